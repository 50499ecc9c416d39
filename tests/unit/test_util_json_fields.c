/* util/json_fields.h: a struct's members shown by a table, keys from the
 * member names, kinds from their types, in the table's order. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json_fields.h"
#include "json_out.h"

struct sample {
	double ratio;
	int count;
	bool fits;
	long long big;
	int flags;
	const char *name;
	double inf;
	double half;
	const char *missing;
	char label[16];
};

static const struct json_field sample_fields[] = {
	JSON_FIELDS(struct sample, ratio, count, fits, big),
	JSON_FIELD_AS(struct sample, "flag_bits", flags),
	JSON_FIELDS(struct sample, name, half, missing, label),
};

static char *print(const struct json_field *fields, size_t count, const struct sample *s)
{
	cJSON *o = cJSON_CreateObject();
	json_put_fields(o, s, fields, count);
	char *text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return text;
}

static void test_keys_kinds_and_order(void **state)
{
	(void)state;
	struct sample s = { .ratio = 0.25,
			    .count = -3,
			    .fits = true,
			    .big = 1LL << 40,
			    .flags = 7u,
			    .name = "h200",
			    .half = 0.5,
			    .missing = NULL,
			    .label = "step" };
	char *text = print(sample_fields, JSON_FIELD_COUNT(sample_fields), &s);
	assert_string_equal(text, "{\"ratio\":0.25,\"count\":-3,\"fits\":true,\"big\":1099511627776,\"flag_bits\":7,"
				  "\"name\":\"h200\",\"half\":0.5,\"label\":\"step\"}");
	free(text);
	assert_null(json_take_nonfinite());
}

static void test_one_member_and_nonfinite(void **state)
{
	(void)state;
	static const struct json_field one[] = { JSON_FIELDS(struct sample, inf) };
	assert_int_equal(JSON_FIELD_COUNT(one), 1);
	struct sample s = { .inf = INFINITY };
	char *text = print(one, JSON_FIELD_COUNT(one), &s);
	assert_string_equal(text, "{\"inf\":null}");
	free(text);
	assert_string_equal(json_take_nonfinite(), "inf");
}

static void test_long_list_expands_every_member(void **state)
{
	(void)state;
	/* 9 members: each list element is one rescan of JSON_FIELDS_EVAL. */
	static const struct json_field all[] = {
		JSON_FIELDS(struct sample, ratio, count, fits, big, flags, name, inf, half, missing),
	};
	assert_int_equal(JSON_FIELD_COUNT(all), 9);
	assert_string_equal(all[8].key, "missing");
	assert_int_equal(all[8].offset, offsetof(struct sample, missing));
	assert_int_equal(all[7].kind, JSON_FIELD_DOUBLE);
	assert_int_equal(all[3].kind, JSON_FIELD_LLONG);
	assert_int_equal(all[5].kind, JSON_FIELD_STRING);
	static const struct json_field text[] = { JSON_FIELDS(struct sample, label) };
	assert_int_equal(text[0].kind, JSON_FIELD_TEXT);
}

static void test_numbers_read_and_written_by_row(void **state)
{
	(void)state;
	struct sample s = { 0 };
	static const struct json_field rows[] = { JSON_FIELDS(struct sample, ratio, count, big, fits, name) };
	assert_true(json_field_set_number(&rows[0], &s, 0.375));
	assert_true(json_field_set_number(&rows[1], &s, -7.9)); /* toward zero */
	assert_true(json_field_set_number(&rows[2], &s, 1099511627776.0));
	assert_false(json_field_set_number(&rows[3], &s, 1)); /* a bool is not a number row */
	assert_false(json_field_set_number(&rows[4], &s, 1));
	assert_true(s.ratio == 0.375);
	assert_int_equal(s.count, -7);
	assert_true(s.big == 1099511627776LL);
	assert_false(s.fits);
	assert_null(s.name);
	double x = 0;
	assert_true(json_field_number(&rows[2], &s, &x));
	assert_true(x == 1099511627776.0);
	assert_false(json_field_number(&rows[3], &s, &x));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys_kinds_and_order),
		cmocka_unit_test(test_one_member_and_nonfinite),
		cmocka_unit_test(test_long_list_expands_every_member),
		cmocka_unit_test(test_numbers_read_and_written_by_row),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
