/* util/json_strict.h and util/name_table.h (issue 31): the strict, bounded
 * JSON check every large JSON input goes through (a whole text, or a stream
 * read a few bytes at a time), the interned names and the one-line copy of
 * a name into output. */
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
			       "{\"\": 1}", /* an empty key first (was a null pointer's offset: UBSan) */
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
		{ "{\"a\": 1, \"\\u0061\": 2}", "key \"a\" given twice", 9 }, /* escapes decoded */
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
		{ "{\"\": 1, \"\": 2}", "key \"\" given twice", 8 },
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

/* A source that hands out its text a few bytes at a time. */
struct trickle {
	const char *text;
	size_t len, at, step;
};

static long trickle_read(void *ctx, char *buf, size_t cap)
{
	struct trickle *t = ctx;
	size_t n = t->len - t->at;
	n = n < cap ? n : cap;
	n = n < t->step ? n : t->step;
	memcpy(buf, t->text + t->at, n);
	t->at += n;
	return (long)n;
}

/* The stream, reading 1, 2, 3, 5 or 7 bytes at a time through a 16-byte
 * window, refuses exactly what the check of the whole text refuses, with
 * the same reason and place, and passes what it passes. */
static void a_stream_agrees_with_the_whole_text(void **state)
{
	(void)state;
	const char *texts[] = {
		"{\"a\": 1, \"a\": 2}",
		"{\"a\": 1, \"\\u0061\": 2}",
		"[1] x",
		"[\"a\tb\"]",
		"[\"\\ud800x\"]",
		"[\"\xc3\xa9\xc3\xa9\", \"\xff\"]",
		"{\n  \"k\xc3\xa9y\": [1.5e3, -0, true, null],\n  \"b\": {\"c\": \"\\n\"} }\n",
		"[1.]",
		"{\"a\" 1}",
		"[1,]",
		"\"a string that never ends",
		"[12345678901234567890123, 1e400, \"x\\u00e9\"]",
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		struct json_strict_error whole;
		int want = json_strict_check(texts[i], strlen(texts[i]), &roomy, &whole);
		static const size_t steps[] = { 1, 2, 3, 5, 7 };
		for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
			struct trickle src = { texts[i], strlen(texts[i]), 0, steps[k] };
			struct json_strict_stream s;
			assert_int_equal(json_strict_stream_open(&s, &roomy, trickle_read, &src, 16), 0);
			int got = json_strict_skip(&s) || json_strict_end(&s) ? -1 : 0;
			if (got != want || (got && (strcmp(s.e.why, whole.why) != 0 || s.e.offset != whole.offset ||
						    s.e.line != whole.line || s.e.col != whole.col)))
				fail_msg("'%s' by %zu: %d '%s' at %zu (%d:%d), whole text: %d '%s' at %zu (%d:%d)",
					 texts[i], steps[k], got, s.e.why, s.e.offset, s.e.line, s.e.col, want,
					 whole.why, whole.offset, whole.line, whole.col);
			json_strict_stream_close(&s);
		}
	}
}

/* Lines and columns count characters: the é before the error is one column. */
static void positions_are_lines_and_characters(void **state)
{
	(void)state;
	struct json_strict_error e;
	const char *text = "{\n  \"\xc3\xa9t\xc3\xa9\": 1,\n  \"b\": x}";
	assert_int_equal(check(text, &roomy, &e), -1);
	assert_string_equal(e.why, "not a JSON value");
	assert_int_equal(e.line, 3);
	assert_int_equal(e.col, 8);
	assert_int_equal(check("{\"\xc3\xa9\": 1 2}", &roomy, &e), -1);
	assert_int_equal(e.line, 1);
	assert_int_equal(e.col, 9); /* {"é": 1 and a space are 8 characters (9 bytes) */
}

/* Walking a document: keys and strings decoded, numbers as strtod reads them. */
static void a_stream_hands_out_values(void **state)
{
	(void)state;
	const char *text = "{\"events\": [{\"name\": \"gemm\\u00e9\\n\", \"ts\": 5301428333712.687},"
			   " {\"name\": \"b\", \"ts\": 1e-3}], \"n\": -0.5}";
	struct trickle src = { text, strlen(text), 0, 3 };
	struct json_strict_stream s;
	assert_int_equal(json_strict_stream_open(&s, &roomy, trickle_read, &src, 16), 0);
	const char *key;
	size_t len;
	assert_int_equal(json_strict_object(&s), 0);
	assert_int_equal(json_strict_key(&s, &key, &len), 1);
	assert_true(len == 6 && memcmp(key, "events", 6) == 0);
	assert_int_equal(json_strict_array(&s), 0);
	double ts[2] = { 0, 0 };
	char names[2][16] = { "", "" };
	for (int n = 0; json_strict_next(&s) == 1; n++) {
		json_strict_hold(&s);
		struct json_strict_span span = { 0, 0, false };
		assert_int_equal(json_strict_object(&s), 0);
		while (json_strict_key(&s, &key, &len) == 1) {
			if (len == 4 && memcmp(key, "name", 4) == 0)
				assert_int_equal(json_strict_string(&s, &span), 0);
			else
				assert_int_equal(json_strict_number(&s, &ts[n]), 0);
		}
		char out[16];
		size_t got;
		const char *name = json_strict_text(&s, &span, out, &got); /* still in the window: held */
		memcpy(names[n], name, got);
		json_strict_release(&s);
	}
	assert_string_equal(names[0], "gemm\xc3\xa9\n");
	assert_string_equal(names[1], "b");
	assert_true(ts[0] == strtod("5301428333712.687", NULL) && ts[1] == 1e-3);
	double v;
	assert_int_equal(json_strict_key(&s, &key, &len), 1);
	assert_int_equal(json_strict_number(&s, &v), 0);
	assert_true(v == -0.5);
	assert_int_equal(json_strict_key(&s, &key, &len), 0);
	assert_int_equal(json_strict_end(&s), 0);
	json_strict_stream_close(&s);
}

/* Every number the same double strtod makes, the quick path or not. */
static void numbers_are_correctly_rounded(void **state)
{
	(void)state;
	const char *numbers[] = { "0",
				  "-0",
				  "1.5",
				  "5301428333712.687",
				  "0.1",
				  "1e22",
				  "1e23",
				  "9007199254740993",
				  "123456789012345678901234567890",
				  "2.2250738585072014e-308",
				  "4.9e-324",
				  "1e-400",
				  "1e400",
				  "-12.5e-3",
				  "0.30000000000000004",
				  "179769313486231570000000000000" };
	for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
		for (size_t step = 1; step <= 64; step *= 4) {
			struct trickle src = { numbers[i], strlen(numbers[i]), 0, step };
			struct json_strict_stream s;
			assert_int_equal(json_strict_stream_open(&s, &roomy, trickle_read, &src, 16), 0);
			double v = 42;
			assert_int_equal(json_strict_number(&s, &v), 0);
			double want = strtod(numbers[i], NULL);
			if (memcmp(&v, &want, sizeof v) != 0)
				fail_msg("%s by %zu: %.17g, strtod: %.17g", numbers[i], step, v, want);
			json_strict_stream_close(&s);
		}
	}
}

/* A held value past its bound is refused, not held. */
static void a_held_value_is_bounded(void **state)
{
	(void)state;
	char text[200];
	snprintf(text, sizeof text, "[{\"name\": \"%0100d\"}]", 0);
	struct json_strict_limits lim = roomy;
	lim.max_held_bytes = 64;
	struct trickle src = { text, strlen(text), 0, 7 };
	struct json_strict_stream s;
	assert_int_equal(json_strict_stream_open(&s, &lim, trickle_read, &src, 16), 0);
	assert_int_equal(json_strict_array(&s), 0);
	assert_int_equal(json_strict_next(&s), 1);
	json_strict_hold(&s);
	assert_int_equal(json_strict_skip(&s), -1);
	assert_string_equal(s.e.why, "one value of more than 64 bytes, the limit of a test file");
	assert_int_equal(s.e.offset, 1); /* where the held value starts */
	json_strict_stream_close(&s);
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
		cmocka_unit_test(a_stream_agrees_with_the_whole_text),
		cmocka_unit_test(positions_are_lines_and_characters),
		cmocka_unit_test(a_stream_hands_out_values),
		cmocka_unit_test(numbers_are_correctly_rounded),
		cmocka_unit_test(a_held_value_is_bounded),
		cmocka_unit_test(names_are_interned_and_bounded),
		cmocka_unit_test(a_name_is_one_line_of_utf8),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
