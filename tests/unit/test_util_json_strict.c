/* util/json_strict.h and util/name_table.h (issue 31): the strict, bounded
 * JSON check every large JSON input goes through, the interned names and the
 * one-line copy of a name into output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json_strict.h"
#include "name_table.h"

static const struct json_strict_limits roomy = {
	.max_values = 1000, .max_depth = 8, .max_open_keys = 100, .what = "test file"
};

/* 0, or -1 with e filled (why and offset). */
static int check(const char *text, const struct json_strict_limits *lim, struct json_strict_error *e)
{
	return json_strict_check(text, strlen(text), lim, e);
}

static void accepts_what_rfc_8259_allows(void **state)
{
	(void)state;
	struct json_strict_error e;
	const char *good[] = { "{}",
			       "[]",
			       " {\"a\": [1, -2.5e-3, true, false, null, \"x\"]} \n",
			       "\"\\u00e9\\ud83d\\ude00\\n\\\"\"",
			       "{\"a\": {\"a\": 1}}", /* one key per object */
			       "0",
			       "\"\xc3\xa9\xf0\x9f\x98\x80\"" };
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		assert_int_equal(check(good[i], &roomy, &e), 0);
		cJSON *doc = json_strict_parse(good[i], strlen(good[i]), &roomy, &e);
		assert_non_null(doc); /* what the check passes, cJSON parses */
		cJSON_Delete(doc);
	}
}

static void refuses_with_reason_and_offset(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		const char *why;
		size_t offset;
	} bad[] = {
		{ "{\"a\": 1, \"a\": 2}", "key \"a\" given twice", 9 },
		{ "{\"a\": 1, \"\\u0061\": 2}", "key \"\\u0061\" given twice", 9 }, /* escapes decoded */
		{ "[1] x", "text after the JSON document", 4 },
		{ "[1]\x01", "control byte 0x01 after the document", 3 },
		{ "[\"a\tb\"]", "control byte 0x09 in a string", 3 },
		{ "[\"\\u0000\"]", "a NUL character", 2 },
		{ "[\"\\udc00\"]", "a lone UTF-16 low surrogate", 2 },
		{ "[\"\\ud800x\"]", "high surrogate without its low half", 2 },
		{ "[\"\xff\"]", "invalid UTF-8 (byte 0xff)", 2 },
		{ "[\"\xc0\xaf\"]", "invalid UTF-8", 2 }, /* overlong */
		{ "[01]", "expected ',' or ']'", 2 },
		{ "[1.]", "digits after its '.'", 2 },
		{ "[+1]", "not a JSON value", 1 },
		{ "{\"a\" 1}", "expected ':'", 5 },
		{ "[1,]", "not a JSON value", 3 },
		{ "", "the text ends", 0 },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct json_strict_error e;
		assert_int_equal(check(bad[i].text, &roomy, &e), -1);
		if (!strstr(e.why, bad[i].why))
			fail_msg("'%s': '%s' lacks '%s'", bad[i].text, e.why, bad[i].why);
		assert_int_equal(e.offset, bad[i].offset);
		assert_false(e.out_of_memory);
	}
}

/* Exactly the bound passes, one more is refused. */
static void bounds_are_exact(void **state)
{
	(void)state;
	struct json_strict_limits lim = roomy;
	struct json_strict_error e;
	lim.max_values = 4; /* the list and its 3 numbers */
	assert_int_equal(check("[1, 2, 3]", &lim, &e), 0);
	assert_int_equal(check("[1, 2, 3, 4]", &lim, &e), -1);
	assert_non_null(strstr(e.why, "more than 4 JSON values, the limit of a test file"));
	lim = roomy;
	lim.max_depth = 3;
	assert_int_equal(check("[[[1]]]", &lim, &e), 0);
	assert_int_equal(check("[[[[1]]]]", &lim, &e), -1);
	assert_non_null(strstr(e.why, "nested deeper than 3 levels"));
	lim = roomy;
	lim.max_open_keys = 2;
	assert_int_equal(check("{\"a\": {\"b\": {\"c\": 1}}}", &lim, &e), -1); /* a, b and c open at once */
	assert_non_null(strstr(e.why, "more than 2 keys in the objects open at once"));
	assert_int_equal(check("{\"a\": {\"b\": 1}, \"c\": 2}", &lim, &e), 0); /* b closed before c */
}

struct seen {
	int count;
};

static int take(void *ctx, size_t start, size_t end, char *why, size_t why_len)
{
	struct seen *s = ctx;
	(void)start;
	(void)end;
	if (++s->count == 3) {
		snprintf(why, why_len, "stop at the third");
		return -1;
	}
	return 0;
}

static void streams_the_named_list(void **state)
{
	(void)state;
	struct seen s = { 0 };
	struct json_strict_limits lim = roomy;
	lim.element_key = "events";
	lim.element_fn = take;
	lim.element_ctx = &s;
	struct json_strict_error e;
	assert_int_equal(check("{\"x\": [9, 9, 9], \"events\": [1, {\"a\": 2}]}", &lim, &e), 0);
	assert_int_equal(s.count, 2); /* only the top level's "events" */
	s.count = 0;
	assert_int_equal(check("{\"events\": [1, 2, 3, 4]}", &lim, &e), -1);
	assert_int_equal(s.count, 3); /* stopped at once */
	assert_string_equal(e.why, "stop at the third");
	assert_int_equal(e.offset, 18);
}

static void names_are_interned_and_bounded(void **state)
{
	(void)state;
	struct name_table t;
	name_table_init(&t, 1000);
	char name[32];
	for (int i = 0; i < 1000; i++) {
		snprintf(name, sizeof name, "kernel_%d", i);
		assert_int_equal(name_table_intern(&t, name, strlen(name)), i);
	}
	assert_int_equal(name_table_intern(&t, "kernel_500", 10), 500); /* found, not added */
	assert_int_equal(name_table_intern(&t, "kernel_1000", 11), NAME_TABLE_FULL);
	assert_int_equal(name_table_find(&t, "kernel_5", 8), 5);
	assert_int_equal(name_table_find(&t, "kernel_50", 8), 5); /* len counts */
	assert_int_equal(name_table_find(&t, "nope", 4), -1);
	assert_string_equal(name_table_name(&t, 999), "kernel_999");
	name_table_free(&t);
}

static void a_name_is_one_line_of_utf8(void **state)
{
	(void)state;
	char out[16];
	assert_string_equal(text_line_copy(out, sizeof out, "a\nb\tc", 5), "a\\x0ab\\x09c");
	assert_string_equal(text_line_copy(out, sizeof out,
					   "x\xff"
					   "y",
					   3),
			    "x\xef\xbf\xbdy");
	/* 7 two-byte characters (14 bytes) do not fit 15 bytes + NUL: cut whole, not mid-character. */
	assert_string_equal(text_line_copy(out, 8, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 8), "\xc3\xa9\xc3\xa9\xc3\xa9");
	assert_string_equal(text_line_copy(out, 4, "ab\ncd", 5), "ab"); /* the escape does not fit: cut before it */
	assert_string_equal(text_line_copy(out, sizeof out, "", 0), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(accepts_what_rfc_8259_allows),
		cmocka_unit_test(refuses_with_reason_and_offset),
		cmocka_unit_test(bounds_are_exact),
		cmocka_unit_test(streams_the_named_list),
		cmocka_unit_test(names_are_interned_and_bounded),
		cmocka_unit_test(a_name_is_one_line_of_utf8),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
