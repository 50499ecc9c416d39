/* Limits: huge, deep and overflowing inputs are refused with a message, in
 * bounded time and memory, never turned into inf or nan. */
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "a: " then depth '[' then depth ']' */
static char *nested(int depth, size_t *len)
{
	*len = 3 + 2 * (size_t)depth + 1;
	char *text = malloc(*len + 1);
	assert_non_null(text);
	memcpy(text, "a: ", 3);
	memset(text + 3, '[', (size_t)depth);
	memset(text + 3 + depth, ']', (size_t)depth);
	text[*len - 1] = '\n';
	text[*len] = '\0';
	return text;
}

static void test_nesting_limit(void **state)
{
	(void)state;
	size_t len;
	int line = 0, column = 0;
	char *text = nested(HWDB_MAX_NESTING - 1, &len); /* + the top mapping = the limit */
	assert_int_equal(hwdb_yaml_nesting(text, len, HWDB_MAX_NESTING, &line, &column), 0);
	free(text);

	text = nested(HWDB_MAX_NESTING, &len);
	assert_int_equal(hwdb_yaml_nesting(text, len, HWDB_MAX_NESTING, &line, &column), -1);
	assert_int_equal(line, 1);
	assert_int_equal(column, 3 + HWDB_MAX_NESTING); /* the first '[' past the limit */
	free(text);

	/* A nesting bomb: libyaml alone needs minutes for this (its scanner is
	 * quadratic in depth); refused at once, with the position. */
	text = nested(1000000, &len);
	struct ridge_gpu gpu;
	struct hwdb_diags diags = { 0 };
	assert_int_equal(hwdb_parse("deep.yaml", text, len, &gpu, &diags), -1);
	assert_int_equal(diags.count, 1);
	char msg[1024];
	hwdb_diag_format(&diags.items[0], msg, sizeof msg);
	assert_string_equal(msg, "deep.yaml:1:19: nested deeper than 16 levels: not a hwdb entry");
	free(text);

	/* Syntax errors are not the nesting check's business. */
	assert_int_equal(hwdb_yaml_nesting("a: [", 4, HWDB_MAX_NESTING, &line, &column), 0);
}

static void test_huge_file_refused(void **state)
{
	(void)state;
	struct ridge_gpu gpu;
	struct hwdb_diags diags = { 0 };
	/* An endless file: reading stops at the size limit. */
	assert_int_equal(hwdb_load_file("/dev/zero", &gpu, &diags), -1);
	assert_int_equal(diags.count, 1);
	assert_non_null(strstr(diags.items[0].message, "file is larger than 4194304 bytes"));
}

static void test_huge_list_refused(void **state)
{
	(void)state;
	/* A million list items: one message with the count, not a million. */
	const int items = 1000000;
	size_t len = strlen("aliases: [") + (size_t)items * 3 + 2;
	char *text = malloc(len + 1);
	assert_non_null(text);
	char *p = text + sprintf(text, "aliases: [");
	for (int i = 0; i < items; i++)
		p += sprintf(p, "%s", i ? ", x" : "x");
	strcpy(p, "]\n");
	struct ridge_gpu gpu;
	struct hwdb_diags diags = { 0 };
	assert_int_equal(hwdb_parse("wide.yaml", text, strlen(text), &gpu, &diags), -1);
	int found = 0;
	for (int i = 0; i < diags.count; i++)
		found |= strstr(diags.items[i].message, "'aliases' has 1000000 items, at most 8") != NULL;
	assert_true(found);
	assert_true(diags.count < HWDB_MAX_DIAGS);
	free(text);
}

static void test_quantity_overflow(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		enum ridge_unit unit;
		int ok;
	} cases[] = {
		{ "1e308", RIDGE_UNIT_COUNT, 1 },
		{ "1.7976931348623157e308", RIDGE_UNIT_COUNT, 1 },
		{ "1.8e308", RIDGE_UNIT_COUNT, 0 },
		{ "1e309", RIDGE_UNIT_COUNT, 0 },
		{ "1e308K", RIDGE_UNIT_COUNT, 0 },
		{ "1e306P", RIDGE_UNIT_COUNT, 0 },
		{ "1e290 PiB", RIDGE_UNIT_BYTES, 1 },
		{ "1e294 PiB", RIDGE_UNIT_BYTES, 0 },
		{ "1e308 TB/s", RIDGE_UNIT_BYTES_PER_S, 0 },
		{ "1e99999999999999999999", RIDGE_UNIT_COUNT, 0 },
		{ "-1e309", RIDGE_UNIT_COUNT, 0 },
		{ "1e-400", RIDGE_UNIT_COUNT, 1 }, /* underflows to 0: a finite value */
		{ "inf", RIDGE_UNIT_COUNT, 0 },
		{ "nan", RIDGE_UNIT_COUNT, 0 },
		{ "infinity", RIDGE_UNIT_FLOPS, 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		double v = 42;
		char err[200] = "";
		int rc = ridge_quantity_parse(cases[i].text, cases[i].unit, &v, err, sizeof err);
		if (cases[i].ok) {
			if (rc != 0)
				fail_msg("'%s' rejected: %s", cases[i].text, err);
			assert_true(isfinite(v));
		} else {
			if (rc == 0)
				fail_msg("'%s' accepted as %g", cases[i].text, v);
			assert_true(v == 42);
			assert_non_null(strstr(err, cases[i].text));
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nesting_limit),
		cmocka_unit_test(test_huge_file_refused),
		cmocka_unit_test(test_huge_list_refused),
		cmocka_unit_test(test_quantity_overflow),
	};
	return cmocka_run_group_tests_name("limits", tests, NULL, NULL);
}
