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

/* json_get_fields: the table read back, each row by its rule, the first
 * problem named with its key and where. */
static void test_rows_read_back_by_rule(void **state)
{
	(void)state;
	static const struct json_field rows[] = {
		JSON_FIELD_IN(struct sample, count, 1, 10),
		JSON_FIELD_AMOUNT(struct sample, ratio),
		JSON_FIELD(struct sample, label),
		JSON_FIELD_OPT(struct sample, fits),
		JSON_FIELD_OPT_IN(struct sample, big, 0, 100),
	};
	static const struct {
		const char *json, *err; /* NULL: read */
	} cases[] = {
		{ "{\"count\":3,\"ratio\":0.5,\"label\":\"step\",\"fits\":true}", NULL },
		{ "{\"count\":3,\"ratio\":null,\"label\":\"x\",\"big\":\"no\"}", NULL }, /* null: not known; optional */
		{ "{\"ratio\":0.5,\"label\":\"x\"}", "missing key 'count' in s" },
		{ "{\"count\":\"3\",\"ratio\":0.5,\"label\":\"x\"}", "'count' in s is not a number" },
		{ "{\"count\":11,\"ratio\":0.5,\"label\":\"x\"}", "'count' in s is out of range (1..10)" },
		{ "{\"count\":null,\"ratio\":0.5,\"label\":\"x\"}", "'count' in s is out of range (1..10)" },
		{ "{\"count\":3,\"ratio\":-1,\"label\":\"x\"}", "'ratio' in s must be a finite number >= 0" },
		{ "{\"count\":3,\"ratio\":1,\"label\":4}", "'label' in s is not a string" },
		{ "{\"count\":3,\"ratio\":1,\"label\":\"x\",\"big\":101}", "'big' in s is out of range (0..100)" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cJSON *o = cJSON_Parse(cases[i].json);
		struct sample s = { .big = 7 };
		char err[128] = "";
		int rc = json_get_fields(o, "s", &s, rows, JSON_FIELD_COUNT(rows), err, sizeof err);
		cJSON_Delete(o);
		if (!cases[i].err) {
			assert_int_equal(rc, 0);
			assert_int_equal(s.count, 3);
			assert_int_equal(s.big, 0); /* optional: absent or not a number is 0 */
			continue;
		}
		assert_int_equal(rc, -1);
		assert_string_equal(err, cases[i].err);
	}
	cJSON *o = cJSON_Parse("{\"count\":3,\"ratio\":0.5,\"label\":\"a label too long\",\"fits\":true}");
	struct sample s = { 0 };
	char err[128];
	assert_int_equal(json_get_fields(o, "s", &s, rows, JSON_FIELD_COUNT(rows), err, sizeof err), 0);
	assert_true(s.ratio == 0.5 && s.fits);
	assert_string_equal(s.label, "a label too lon"); /* cut to the member's size */
	/* What json_put_fields writes, json_get_fields reads back equal. */
	cJSON *back = cJSON_CreateObject();
	json_put_fields(back, &s, rows, JSON_FIELD_COUNT(rows));
	struct sample t = { 0 };
	assert_int_equal(json_get_fields(back, "s", &t, rows, JSON_FIELD_COUNT(rows), err, sizeof err), 0);
	assert_true(t.count == s.count && t.ratio == s.ratio && t.fits == s.fits && t.big == s.big);
	assert_string_equal(t.label, s.label);
	cJSON_Delete(back);
	cJSON_Delete(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys_kinds_and_order),
		cmocka_unit_test(test_one_member_and_nonfinite),
		cmocka_unit_test(test_long_list_expands_every_member),
		cmocka_unit_test(test_numbers_read_and_written_by_row),
		cmocka_unit_test(test_rows_read_back_by_rule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
