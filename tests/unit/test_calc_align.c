/* The `align` calculator (app/calc/align_calc.c on calc.h, findings from
 * app/calc/align_findings.c): its inputs as the command line and scenario items give
 * them, its result against model/align.c called directly, its messages, and
 * its hand-written --help against its table of inputs. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "align_findings.h"
#include "calc.h"
#include "status.h"

/* Runs calc_align on command-line style inputs: pairs of flag name and text. */
static cJSON *run_align(const char *const *args, char *err, size_t err_len)
{
	struct param_values v;
	struct app_status st;
	app_status_init(&st);
	params_init(&v, calc_align.params, calc_align.param_count);
	for (int i = 0; args[i]; i += 2) {
		int p = params_index(v.spec, v.count, args[i]);
		assert_true(p >= 0);
		assert_int_equal(params_set(&v, p, args[i + 1], NULL, &st), 0); /* NULL: as from its flag */
	}
	struct calc_input in = { .values = &v, .gpu = test_gpu("h100-sxm"), .st = &st };
	cJSON *result = calc_align.run(&in);
	snprintf(err, err_len, "%s", in.err);
	return result;
}

static const cJSON *at(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* Every flag of the table is in the --help text, and the help names no flag
 * the table lacks. */
static void test_usage_matches_table(void **state)
{
	(void)state;
	assert_non_null(calc_align.usage);
	int flags = 0;
	for (int i = 0; i < calc_align.param_count; i++) {
		if (calc_align.params[i].flags & PARAM_FILE_ONLY)
			continue;
		char flag[64];
		params_flag_name(calc_align.params[i].name, flag, sizeof flag);
		if (!strstr(calc_align.usage, flag))
			fail_msg("%s is not in ridge align --help", flag);
		flags++;
	}
	assert_int_equal(flags, 12);
	for (const char *p = strstr(calc_align.usage, "--"); p; p = strstr(p + 2, "--")) {
		char name[64];
		size_t n = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz-");
		snprintf(name, sizeof name, "%.*s", (int)n, p + 2);
		for (char *c = name; *c; c++)
			if (*c == '-')
				*c = '_';
		if (n && params_index(calc_align.params, calc_align.param_count, name) < 0)
			fail_msg("--help names --%.*s, which the table lacks", (int)n, p + 2);
	}
}

/* The textbook's dimensions: each finding is align_check_dim's answer. */
static void test_dims_match_model(void **state)
{
	(void)state;
	static const char *const args[] = { "dtype", "bf16", "dims", "d_model=6000,ffn=21845,21888", NULL };
	char err[512];
	cJSON *r = run_align(args, err, sizeof err);
	if (!r)
		fail_msg("%s", err);
	struct ridge_align_rule rule;
	assert_int_equal(align_rule(test_gpu("h100-sxm"), RIDGE_BF16, &rule, err, sizeof err), 0);
	static const struct {
		const char *name;
		long long value;
	} want[] = { { "d_model", 6000 }, { "ffn", 21845 }, { "dim3", 21888 } };
	const cJSON *findings = at(r, "findings");
	assert_int_equal(cJSON_GetArraySize(findings), 3);
	for (int i = 0; i < 3; i++) {
		const cJSON *f = cJSON_GetArrayItem(findings, i);
		struct ridge_align_dim d;
		assert_int_equal(align_check_dim(&rule, want[i].value, &d, err, sizeof err), 0);
		assert_string_equal(at(f, "name")->valuestring, want[i].name);
		assert_true(at(f, "value")->valuedouble == (double)d.value);
		assert_true(at(f, "suggested")->valuedouble == (double)d.suggested);
		assert_true(at(f, "suggested_recommended")->valuedouble == (double)d.suggested_recommended);
		assert_string_equal(at(f, "severity")->valuestring, align_severity_name(d.severity));
	}
	assert_false(cJSON_IsTrue(at(r, "ok")));
	assert_true(at(r, "errors")->valuedouble == 1);
	assert_true(at(r, "warnings")->valuedouble == 1);
	/* The FFN dimension beside a d_model shows the Llama SwiGLU size for it. */
	struct ridge_align_swiglu sw;
	assert_int_equal(align_swiglu(6000, false, 0, 256, &sw, err, sizeof err), 0);
	assert_true(at(cJSON_GetArrayItem(findings, 1), "swiglu_intermediate")->valuedouble == (double)sw.intermediate);
	assert_null(at(cJSON_GetArrayItem(findings, 0), "swiglu_intermediate"));
	cJSON_Delete(r);
}

/* A model config: every GEMM's N and K, then head_dim, with the config's
 * SwiGLU settings unless given. */
static void test_model_config(void **state)
{
	(void)state;
	static const char *const plain[] = { "dtype", "bf16", "model", "examples/models/llama-3-70b.json", NULL };
	static const char *const meta[] = {
		"dtype",       "bf16", "model", "examples/models/llama-3-70b.json", "ffn_dim_multiplier", "1.3",
		"multiple_of", "1024", NULL
	};
	char err[512];
	cJSON *r = run_align(plain, err, sizeof err);
	if (!r)
		fail_msg("%s", err);
	assert_int_equal(cJSON_GetArraySize(at(r, "findings")), 2 * RIDGE_GEMM_COUNT + 1);
	assert_true(cJSON_IsTrue(at(r, "ok")));
	assert_string_equal(at(at(r, "model"), "file")->valuestring, "examples/models/llama-3-70b.json");
	assert_true(at(at(r, "swiglu"), "intermediate")->valuedouble == 22016);
	assert_null(at(at(r, "swiglu"), "scaled"));
	cJSON_Delete(r);
	r = run_align(meta, err, sizeof err);
	assert_non_null(r);
	assert_true(at(at(r, "swiglu"), "scaled")->valuedouble == 28398); /* floor(1.3 x 21845) */
	assert_true(at(at(r, "swiglu"), "intermediate")->valuedouble == 28672);
	cJSON_Delete(r);
}

/* Bad input: the message names the flag and the text, as `ridge align` always did. */
static void test_messages(void **state)
{
	(void)state;
	static const struct {
		const char *args[9];
		const char *message;
	} cases[] = {
		{ { "dtype", "bf16", "dims", "6000,,8" }, "--dims: empty item 2 in '6000,,8'" },
		{ { "dtype", "bf16", "dims", "6000.5" }, "--dims: must be a whole number, not '6000.5'" },
		{ { "dtype", "bf16", "dims", "d_model=0" }, "--dims d_model: '0' is out of range (1..2147483647)" },
		{ { "dtype", "bf16", "dims", "a b=8" }, "--dims: bad name 'a b' in 'a b=8'" },
		{ { "dtype", "bf16", "dims", "8", "tile", "128" }, "--tile: '128' must be MxN, e.g. 128x128" },
		{ { "dtype", "bf16", "dims", "8", "tile", "128x0" }, "--tile: '0' is out of range (1..4096)" },
		{ { "dtype", "bf17", "dims", "8" }, "--dtype: unknown dtype 'bf17'" },
		{ { "dtype", "bf16", "dims", "8", "model", "x.json" }, "give --dims or --model, not both" },
		{ { "dtype", "bf16" }, "give --dims LIST or --model FILE" },
		{ { "dtype", "bf16", "model", "tests/data/align/heads-not-divisible.json" },
		  "tests/data/align/heads-not-divisible.json: " },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char err[512];
		cJSON *r = run_align(cases[i].args, err, sizeof err);
		if (r)
			fail_msg("case %zu: no error", i);
		if (!strstr(err, cases[i].message))
			fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].message);
	}
}

/* The shared computation directly: what the TUI panel calls. */
static void test_align_run(void **state)
{
	(void)state;
	struct align_settings set;
	align_settings_default(&set);
	set.dtype = RIDGE_FP8;
	struct align_run *run = malloc(sizeof *run);
	assert_non_null(run);
	char err[512];
	assert_int_equal(align_run_start(run, test_gpu("h100-sxm"), &set, err, sizeof err), 0);
	assert_int_equal(align_run_dims(run, " hidden=8192 , ffn=21845", "dims", err, sizeof err), 0);
	assert_int_equal(run->count, 2);
	assert_string_equal(run->findings[0].name, "hidden");
	assert_true(run->findings[1].dim.suggested == 21856); /* 16 x 1366 */
	assert_true(run->has_swiglu && run->swiglu.intermediate == 22016);
	assert_true(run->findings[1].has_tiling && run->findings[1].tiling.tiles == 32 * 171);
	/* 64 dimensions at most. */
	char many[64 * 3 + 8] = "";
	for (int i = 0; i < 65; i++)
		strcat(many, i ? ",8" : "8");
	assert_int_equal(align_run_start(run, test_gpu("h100-sxm"), &set, err, sizeof err), 0);
	assert_int_equal(align_run_dims(run, many, "dims", err, sizeof err), -1);
	assert_non_null(strstr(err, "dims: more than 64 dimensions"));
	free(run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usage_matches_table), cmocka_unit_test(test_dims_match_model),
		cmocka_unit_test(test_model_config),        cmocka_unit_test(test_messages),
		cmocka_unit_test(test_align_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
