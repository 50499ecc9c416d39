/* hw show's page (app/view/hw_view.c): the rows its sentences state are rows of
 * the hwdb schema table, and every other row an entry holds is listed after
 * them, walked from the table, so a row added to the schema reaches the
 * page. The test walks the table too, on an entry with every field filled. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw_view.h"
#include "schema.h"
#include "schema_fill.h"

static bool on_page(const char *path)
{
	for (int i = 0; hw_show_page_rows[i]; i++)
		if (strcmp(hw_show_page_rows[i], path) == 0)
			return true;
	return false;
}

static void test_page_rows_are_table_rows(void **state)
{
	(void)state;
	for (int i = 0; hw_show_page_rows[i]; i++) {
		if (!hwdb_field_find(hw_show_page_rows[i]))
			fail_msg("hw_show_page_rows names '%s', which is no row of the schema", hw_show_page_rows[i]);
		for (int j = 0; j < i; j++)
			if (strcmp(hw_show_page_rows[i], hw_show_page_rows[j]) == 0)
				fail_msg("'%s' twice", hw_show_page_rows[i]);
	}
}

/* hw_show_print's text, written on a memory stream. */
static char *page_of(const struct hwdb_entry *e)
{
	char *text = NULL;
	size_t n = 0;
	FILE *page = open_memstream(&text, &n);
	assert_non_null(page);
	hw_show_print(page, e);
	assert_int_equal(fclose(page), 0);
	assert_true(n > 0);
	return text;
}

static void expect_listed(const struct ridge_gpu *g, const char *page, const struct hwdb_field *rows,
			  const char *prefix, int *listed)
{
	for (const struct hwdb_field *row = rows; row->key; row++) {
		char path[128], line[160];
		snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "", row->key);
		if (row->type == HWDB_MAP) {
			expect_listed(g, page, row->children, path, listed);
			continue;
		}
		if (on_page(path) || !hwdb_field_present(g, row))
			continue;
		snprintf(line, sizeof line, "\n  %s ", path);
		if (!strstr(page, line))
			fail_msg("%s: row '%s' is neither stated by the page nor listed after it", g->id, path);
		(*listed)++;
	}
}

static void test_every_other_row_is_listed(void **state)
{
	(void)state;
	static const char *const ids[] = { "h100-sxm", "mi300x" };
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		static struct hwdb_entry e;
		test_fill_every_field(ids[i], &e.gpu);
		snprintf(e.origin, sizeof e.origin, "filled.yaml");
		char *page = page_of(&e);
		assert_non_null(strstr(page, "\n\nAlso in the entry:"));
		int listed = 0;
		expect_listed(&e.gpu, page, hwdb_schema, "", &listed);
		assert_true(listed > 10); /* the timing model, power limit, allocation units... */
		free(page);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_page_rows_are_table_rows),
		cmocka_unit_test(test_every_other_row_is_listed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
