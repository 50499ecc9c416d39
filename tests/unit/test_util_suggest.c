/* util/suggest: the edit distance and the closest name behind every "did
 * you mean" (GPU names, commands, subcommands, flags). */
#include "test_util.h"

#include <string.h>

#include "suggest.h"

static void test_edit_distance(void **state)
{
	(void)state;
	const struct {
		const char *a, *b;
		int want;
	} rows[] = {
		{ "", "", 0 },
		{ "context", "context", 0 },
		{ "contxt", "context", 1 },    /* a letter left out */
		{ "conetxt", "context", 2 },   /* two letters swapped: two edits */
		{ "H100-SXM", "h100-sxm", 0 }, /* case does not count */
		{ "kitten", "sitting", 3 },
		{ "", "abc", 3 },
		{ "abc", "", 3 },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		if (suggest_edit_distance(rows[i].a, rows[i].b) != rows[i].want)
			fail_msg("distance('%s', '%s') = %d, expected %d", rows[i].a, rows[i].b,
				 suggest_edit_distance(rows[i].a, rows[i].b), rows[i].want);
	char long_word[80];
	memset(long_word, 'a', sizeof long_word - 1);
	long_word[sizeof long_word - 1] = '\0';
	assert_int_equal(suggest_edit_distance(long_word, "a"), 1000);
}

static void test_closest(void **state)
{
	(void)state;
	const char *flags[] = { "model", "context", "batch", "gpus", "gpu", "kv-heads", "head-dim", "json" };
	const int n = (int)(sizeof flags / sizeof flags[0]);
	assert_int_equal(suggest_closest("contxt", flags, n), 1);
	assert_int_equal(suggest_closest("gpsu", flags, n), 4); /* gpu: one letter too many; gpus: two swapped */
	assert_int_equal(suggest_closest("bacth", flags, n), 2);
	assert_int_equal(suggest_closest("kv-head", flags, n), 5);
	assert_int_equal(suggest_closest("headdim", flags, n), 6);
	/* Nothing close: no suggestion rather than a wild one. */
	assert_int_equal(suggest_closest("zzz", flags, n), -1);
	assert_int_equal(suggest_closest("temperature", flags, n), -1);
	/* Commands: a letter left out, one missing at the end. */
	const char *commands[] = { "occupancy", "roofline", "calibrate" };
	assert_int_equal(suggest_closest("ocupancy", commands, 3), 0);
	assert_int_equal(suggest_closest("calibrat", commands, 3), 2);
	assert_int_equal(suggest_closest("x", commands, 3), -1);
	assert_int_equal(suggest_closest("anything", commands, 0), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edit_distance),
		cmocka_unit_test(test_closest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
