/* Limits: huge, deep and overflowing inputs are refused with a message, in
 * bounded time and memory, never turned into inf or nan. */
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	/* A file past the size limit (sparse: no disk): reading stops there. */
	char path[] = "/tmp/ridge-huge-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)5 << 20), 0);
	close(fd);
	assert_int_equal(hwdb_load_file(path, &gpu, &diags), -1);
	unlink(path);
	assert_int_equal(diags.count, 1);
	assert_non_null(strstr(diags.items[0].message, "file is larger than 4194304 bytes"));

	/* An endless device, a FIFO nobody writes (open(2) would block
	 * forever): not regular files, refused without reading. */
	diags.count = 0;
	assert_int_equal(hwdb_load_file("/dev/zero", &gpu, &diags), -1);
	assert_non_null(strstr(diags.items[0].message, "a character device, not a regular file"));
	char fifo[] = "/tmp/ridge-fifo-XXXXXX";
	fd = mkstemp(fifo);
	assert_true(fd >= 0);
	close(fd);
	unlink(fifo);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	diags.count = 0;
	assert_int_equal(hwdb_load_file(fifo, &gpu, &diags), -1);
	unlink(fifo);
	assert_non_null(strstr(diags.items[0].message, "a FIFO (named pipe), not a regular file"));
}

static void test_huge_list_refused(void **state)
{
	(void)state;
	/* 50,000 list items (under the node limit): one message with the
	 * count, not 50,000. */
	const int items = 50000;
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
		found |= strstr(diags.items[i].message, "'aliases' has 50000 items, at most 8") != NULL;
	assert_true(found);
	assert_true(diags.count < HWDB_MAX_DIAGS);
	free(text);
}

/* Issue 21: the node limits. Past HWDB_MAX_NODES written, refused before
 * libyaml builds the document (~150 bytes a node); past it once aliases are
 * expanded (billion laughs), refused after the load, in time proportional
 * to the document; an alias inside its own node refused too. */
static void test_node_limits(void **state)
{
	(void)state;
	int line = 0, column = 0;
	/* HWDB_MAX_NODES nodes exactly: the mapping, the key, the list, the items. */
	const long items = HWDB_MAX_NODES - 3;
	char *text = malloc((size_t)items * 3 + 32);
	assert_non_null(text);
	char *p = text + sprintf(text, "a: [");
	for (long i = 0; i < items; i++)
		p += sprintf(p, "%s", i ? ",x" : "x");
	strcpy(p, "]\n");
	assert_int_equal(hwdb_yaml_bounds(text, strlen(text), HWDB_MAX_NESTING, HWDB_MAX_NODES, &line, &column), 0);
	strcpy(p, ",x]\n"); /* one more */
	assert_int_equal(hwdb_yaml_bounds(text, strlen(text), HWDB_MAX_NESTING, HWDB_MAX_NODES, &line, &column),
			 HWDB_YAML_TOO_MANY_NODES);
	assert_int_equal(line, 1);
	free(text);

	/* 10 anchors of 10 aliases each: 10 lines, 10^10 nodes expanded. */
	char laughs[2048];
	p = laughs + sprintf(laughs, "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
	for (int i = 1; i < 10; i++) {
		p += sprintf(p, "a%d: &a%d [", i, i);
		for (int j = 0; j < 10; j++)
			p += sprintf(p, "%s*a%d", j ? ", " : "", i - 1);
		p += sprintf(p, "]\n");
	}
	struct ridge_gpu gpu;
	struct hwdb_diags diags = { 0 };
	assert_int_equal(hwdb_parse("laughs.yaml", laughs, strlen(laughs), &gpu, &diags), -1);
	char msg[1024];
	hwdb_diag_format(&diags.items[0], msg, sizeof msg);
	/* a4 expands to 1 + 10 x 11111 nodes, the first past 100,000. */
	assert_string_equal(msg, "laughs.yaml:5:5: more than 100000 YAML nodes (aliases expanded): not a hwdb entry");

	diags.count = 0;
	const char *cycle = "a: &x [1, *x]\n";
	assert_int_equal(hwdb_parse("cycle.yaml", cycle, strlen(cycle), &gpu, &diags), -1);
	hwdb_diag_format(&diags.items[0], msg, sizeof msg);
	assert_string_equal(msg, "cycle.yaml:1:4: an alias inside the node it names: an endless expansion");
}

/* -0 is 0 (it passed the "not negative" checks and printed as "-0"); a
 * subnormal is refused: it overflows whatever it divides. */
static void test_signed_zero_and_subnormals(void **state)
{
	(void)state;
	double v = 42;
	char err[200] = "";
	assert_int_equal(ridge_quantity_parse("-0", RIDGE_UNIT_COUNT, &v, err, sizeof err), 0);
	assert_true(v == 0 && !signbit(v));
	assert_int_equal(ridge_quantity_parse("-0.0us", RIDGE_UNIT_SECONDS, &v, err, sizeof err), 0);
	assert_true(v == 0 && !signbit(v));
	assert_int_equal(ridge_quantity_parse("1e-320", RIDGE_UNIT_COUNT, &v, err, sizeof err), -1);
	assert_non_null(strstr(err, "number too small: '1e-320'"));
	assert_int_equal(ridge_quantity_parse("2.3e-308", RIDGE_UNIT_COUNT, &v, err, sizeof err), 0);
	assert_true(v == 2.3e-308);
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
		cmocka_unit_test(test_nesting_limit),     cmocka_unit_test(test_huge_file_refused),
		cmocka_unit_test(test_huge_list_refused), cmocka_unit_test(test_quantity_overflow),
		cmocka_unit_test(test_node_limits),       cmocka_unit_test(test_signed_zero_and_subnormals),
	};
	return cmocka_run_group_tests_name("limits", tests, NULL, NULL);
}
