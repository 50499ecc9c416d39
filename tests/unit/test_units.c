/* Number-and-unit parsing: the forms spec/cli.md fixes, and the bad ones. */
#include "test_util.h"

#include <string.h>

static double parse_ok(const char *text, enum ridge_unit unit)
{
	double v = -1;
	char err[200] = "";
	if (ridge_quantity_parse(text, unit, &v, err, sizeof err) != 0)
		fail_msg("'%s' should parse: %s", text, err);
	return v;
}

static void parse_bad(const char *text, enum ridge_unit unit, const char *reason)
{
	double v = 12345;
	char err[200] = "";
	if (ridge_quantity_parse(text, unit, &v, err, sizeof err) == 0)
		fail_msg("'%s' should be rejected", text);
	assert_true(v == 12345); /* output untouched on failure */
	if (reason && !strstr(err, reason))
		fail_msg("error for '%s' is '%s', expected it to mention '%s'", text, err, reason);
}

static void test_spec_forms(void **state)
{
	(void)state;
	assert_true(parse_ok("32KiB", RIDGE_UNIT_BYTES) == 32768.0);
	assert_true(parse_ok("3.35TB/s", RIDGE_UNIT_BYTES_PER_S) == 3.35e12);
	assert_true(parse_ok("989T", RIDGE_UNIT_FLOPS) == 989e12);
	assert_true(parse_ok("70e9", RIDGE_UNIT_COUNT) == 70e9);
	assert_true(parse_ok("5us", RIDGE_UNIT_SECONDS) == 5e-6);
	assert_true(parse_ok("25ms", RIDGE_UNIT_SECONDS) == 25e-3);
}

static void test_prefixes_and_spacing(void **state)
{
	(void)state;
	assert_true(parse_ok("228 KiB", RIDGE_UNIT_BYTES) == 233472.0);
	assert_true(parse_ok("80 GB", RIDGE_UNIT_BYTES) == 80e9);
	assert_true(parse_ok("1Gi", RIDGE_UNIT_COUNT) == 1073741824.0);
	assert_true(parse_ok("8K", RIDGE_UNIT_COUNT) == 8000.0);
	assert_true(parse_ok("1980 MHz", RIDGE_UNIT_HZ) == 1980e6);
	assert_true(parse_ok("989.4 TFLOP/s", RIDGE_UNIT_FLOPS) == 989.4e12);
	assert_true(parse_ok("1978.9 TOP/s", RIDGE_UNIT_FLOPS) == 1978.9e12);
	assert_true(parse_ok("137 GFLOP", RIDGE_UNIT_FLOP) == 137e9);
	assert_true(parse_ok("700 W", RIDGE_UNIT_WATTS) == 700.0);
	assert_true(parse_ok("$240k", RIDGE_UNIT_USD) == 240e3);
	assert_true(parse_ok("3.00 USD", RIDGE_UNIT_USD) == 3.0);
	assert_true(parse_ok("10ns", RIDGE_UNIT_SECONDS) == 1e-8);
	assert_true(parse_ok("5\xc2\xb5s", RIDGE_UNIT_SECONDS) == 5e-6);
	assert_true(parse_ok("  42  ", RIDGE_UNIT_COUNT) == 42.0);
	assert_true(parse_ok("-3", RIDGE_UNIT_COUNT) == -3.0);
	assert_true(parse_ok(".5", RIDGE_UNIT_COUNT) == 0.5);
}

static void test_bad_forms(void **state)
{
	(void)state;
	parse_bad("", RIDGE_UNIT_COUNT, "empty");
	parse_bad("abc", RIDGE_UNIT_COUNT, "not a number");
	parse_bad("nan", RIDGE_UNIT_COUNT, "not a number");
	parse_bad("inf", RIDGE_UNIT_COUNT, "not a number");
	parse_bad("0x10", RIDGE_UNIT_COUNT, "hexadecimal");
	parse_bad("1e400", RIDGE_UNIT_COUNT, "too large");
	parse_bad("1e300P", RIDGE_UNIT_COUNT, "too large");
	parse_bad("12 parsecs", RIDGE_UNIT_COUNT, "unknown suffix");
	parse_bad("3.35TB", RIDGE_UNIT_BYTES_PER_S, "expected B/s");
	parse_bad("5 MHz", RIDGE_UNIT_SECONDS, "expected s");
	parse_bad("32KiB", RIDGE_UNIT_SECONDS, NULL);
	parse_bad("5usx", RIDGE_UNIT_SECONDS, NULL);
	parse_bad("1..2", RIDGE_UNIT_COUNT, NULL);
	parse_bad("1KK", RIDGE_UNIT_COUNT, NULL);
	parse_bad("--1", RIDGE_UNIT_COUNT, "not a number");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_forms),
		cmocka_unit_test(test_prefixes_and_spacing),
		cmocka_unit_test(test_bad_forms),
	};
	return cmocka_run_group_tests_name("units", tests, NULL, NULL);
}
