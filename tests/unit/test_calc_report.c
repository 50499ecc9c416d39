/* ridge report and ridge report --json say the same: every section is run
 * both ways on several GPUs (NVIDIA, AMD, one without bf16, a calibration),
 * the JSON's numbers are formatted the way the text formats them, and each
 * formatted row or phrase must be in the text. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calc.h"
#include "app.h"
#include "report.h"

/* The text of every section, as `ridge report` prints it, written on a
 * memory stream (the sections take the stream they print on). */
static char *report_text(const struct ridge_gpu *g)
{
	char *text = NULL;
	size_t len = 0;
	FILE *capture = open_memstream(&text, &len);
	assert_non_null(capture);
	for (size_t i = 0; i < report_section_count; i++)
		report_sections[i](capture, g, NULL);
	assert_int_equal(fclose(capture), 0);
	assert_true(len > 0);
	return text;
}

/* The document `ridge report --json` prints, through the printer and back;
 * with a JSON object the sections write no text. */
static cJSON *report_json(const struct ridge_gpu *g)
{
	char *text = NULL;
	size_t len = 0;
	FILE *capture = open_memstream(&text, &len);
	assert_non_null(capture);
	cJSON *doc = cJSON_CreateObject();
	calc_json_gpu(doc, g);
	for (size_t i = 0; i < report_section_count; i++)
		report_sections[i](capture, g, doc);
	assert_int_equal(fclose(capture), 0);
	assert_int_equal(len, 0);
	free(text);
	char *printed = cJSON_Print(doc);
	cJSON_Delete(doc);
	assert_non_null(printed);
	cJSON *parsed = cJSON_Parse(printed);
	free(printed);
	assert_non_null(parsed);
	return parsed;
}

static const cJSON *at(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v)
		fail_msg("the report's JSON lacks '%s'", key);
	return v;
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = at(o, key);
	if (!cJSON_IsNumber(v))
		fail_msg("'%s' is not a number", key);
	return v->valuedouble;
}

static int checked;

static void expect_in(const char *text, const char *gpu, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void expect_in(const char *text, const char *gpu, const char *fmt, ...)
{
	char want[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(want, sizeof want, fmt, ap);
	va_end(ap);
	if (!strstr(text, want))
		fail_msg("%s: the JSON says '%s', the text does not", gpu, want);
	checked++;
}

static void check_hardware(const char *text, const cJSON *doc, const char *id)
{
	const cJSON *hw = at(doc, "hardware");
	char mem[48];
	fmt_bytes(num(hw, "memory_bytes"), mem, sizeof mem);
	expect_in(text, id, "%.0f %s, %s", num(hw, "sm_count"),
		  strcmp(at(hw, "vendor")->valuestring, "amd") ? "SMs" : "CUs", mem);
	const cJSON *point;
	cJSON_ArrayForEach (point, at(hw, "ridge_point")) {
		char row[64];
		snprintf(row, sizeof row, "%22.1f\n", point->valuedouble);
		expect_in(text, id, "%-6s ", point->string);
		expect_in(text, id, "%s", row);
	}
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(doc, "measured_against_spec");
	if (!m)
		return;
	const cJSON *row;
	cJSON_ArrayForEach (row, at(m, "ceilings")) {
		char s[48] = "-", v[48], f[16] = "-";
		bool rate = strcmp(at(row, "unit")->valuestring, "s") != 0;
		const cJSON *spec = at(row, "spec");
		if (rate)
			fmt_si(num(row, "measured"), at(row, "unit")->valuestring, v, sizeof v);
		else
			fmt_seconds(num(row, "measured"), v, sizeof v);
		if (cJSON_IsNumber(spec)) {
			if (rate)
				fmt_si(spec->valuedouble, at(row, "unit")->valuestring, s, sizeof s);
			else
				fmt_seconds(spec->valuedouble, s, sizeof s);
			snprintf(f, sizeof f, rate ? "%.1f%%" : "%.2fx",
				 num(row, "measured_over_spec") * (rate ? 100 : 1));
		}
		expect_in(text, id, "%s ", at(row, "ceiling")->valuestring);
		expect_in(text, id, " %16s %16s %8s\n", s, v, f);
	}
}

static void check_roofline(const char *text, const cJSON *doc, const char *id)
{
	const cJSON *r = at(doc, "roofline"), *dtype, *k;
	cJSON_ArrayForEach (dtype, at(r, "ridge_points")) {
		char m[32] = "-", v[32] = "-", sp[32] = "-";
		const cJSON *x;
		if ((x = cJSON_GetObjectItemCaseSensitive(dtype, "matrix")))
			snprintf(m, sizeof m, "%.6g", x->valuedouble);
		if ((x = cJSON_GetObjectItemCaseSensitive(dtype, "vector")))
			snprintf(v, sizeof v, "%.6g", x->valuedouble);
		if ((x = cJSON_GetObjectItemCaseSensitive(dtype, "matrix_sparse")))
			snprintf(sp, sizeof sp, "%.6g", x->valuedouble);
		expect_in(text, id, "  %-6s %14s %14s %14s\n", dtype->string, m, v, sp);
	}
	int kernels = 0;
	cJSON_ArrayForEach (k, at(r, "kernels")) {
		char f[32], b[32], t[32];
		fmt_si(num(k, "flops"), "", f, sizeof f);
		fmt_si(num(k, "bytes"), "B", b, sizeof b);
		fmt_seconds(num(k, "time_floor_s"), t, sizeof t);
		expect_in(text, id, "%s ", at(k, "label")->valuestring);
		expect_in(text, id, " %9s %10s %9.4g  %-7s %-12s %10s\n", f, b, num(k, "intensity"),
			  at(k, "bound")->valuestring, at(k, "path")->valuestring, t);
		kernels++;
	}
	assert_int_equal(kernels, 8);
}

static void check_align(const char *text, const cJSON *doc, const char *id)
{
	const cJSON *a = at(doc, "align"), *d;
	const char *half = at(a, "dtype")->valuestring;
	int dims = 0;
	cJSON_ArrayForEach (d, at(a, "dims")) {
		const cJSON *t = at(d, "tiling");
		expect_in(text, id, "%-30s %-8s", at(d, "label")->valuestring,
			  at(at(d, half), "severity")->valuestring);
		char waves[48];
		snprintf(waves, sizeof waves, "%.2f -> %.0f", num(t, "waves_exact"), num(t, "waves"));
		expect_in(text, id, "%7.0f %14s %8.2f%% %8.2f%%\n", num(t, "tiles"), waves,
			  100 * num(t, "tile_efficiency"), 100 * num(t, "wave_efficiency"));
		dims++;
	}
	assert_int_equal(dims, 7);
	expect_in(text, id, "gate, up and down carry %.1f%% of the forward",
		  100 * num(at(a, "llama3_70b_ffn"), "ffn_fraction"));
}

static void check_cost(const char *text, const cJSON *doc, const char *id)
{
	const cJSON *s;
	cJSON_ArrayForEach (s, at(at(doc, "launch"), "steps")) {
		char a[48], b[48], c[48], d[48];
		fmt_seconds(num(s, "overhead_s"), a, sizeof a);
		fmt_percent(num(s, "fraction_of_step"), b, sizeof b);
		fmt_seconds(num(s, "graph_overhead_s"), c, sizeof c);
		fmt_seconds(num(s, "tpot_graph_s"), d, sizeof d);
		expect_in(text, id, "%s (%s)", a, b);
		expect_in(text, id, "%s -> TPOT %s", c, d);
		fmt_seconds(num(s, "tpot_persistent_s"), a, sizeof a);
		expect_in(text, id, "0 -> TPOT %s\n", a);
	}
	const cJSON *t = at(doc, "training");
	if (!cJSON_IsNull(t)) {
		char a[64], b[64];
		fmt_grouped(num(t, "flops_per_step"), 0, a, sizeof a);
		expect_in(text, id, "FLOPs per step 6N x seq x batch = %s\n", a);
		fmt_usd(num(t, "cost_usd"), a, sizeof a);
		fmt_usd(num(at(t, "target"), "cost_usd"), b, sizeof b);
		expect_in(text, id, "MFU %.0f%%: %.4f s/step, %s    MFU %.0f%%: %.4f s/step, %s\n", 100 * num(t, "mfu"),
			  num(t, "step_time_s"), a, 100 * num(at(t, "target"), "mfu"),
			  num(at(t, "target"), "step_time_s"), b);
		fmt_usd(num(t, "savings_usd"), a, sizeof a);
		fmt_roi(num(t, "roi_net"), b, sizeof b);
		expect_in(text, id, "savings %s; on $240,000 of engineering: net ROI %s, break-even at step ", a, b);
		fmt_grouped(num(t, "break_even_step"), 0, a, sizeof a);
		expect_in(text, id, "break-even at step %s\n", a);
		const cJSON *batch;
		cJSON_ArrayForEach (batch, at(at(doc, "decode"), "batches")) {
			char c[48];
			fmt_seconds(num(batch, "tpot_s"), a, sizeof a);
			fmt_grouped(num(batch, "tokens_per_s"), 1, b, sizeof b);
			fmt_usd(num(batch, "usd_per_million_tokens"), c, sizeof c);
			expect_in(text, id, "  %6.0f %12s %12s %13s %8s ", num(batch, "batch"), a, b, c,
				  at(batch, "bound")->valuestring);
		}
	} else {
		expect_in(text, id, "has no bf16 or fp16 rate: no training or decode cost.");
	}
	const cJSON *e;
	int ranked = 0;
	cJSON_ArrayForEach (e, at(at(doc, "rank"), "ranking")) {
		char cost[32], month[32], roi[32];
		fmt_usd(num(e, "engineering_usd"), cost, sizeof cost);
		fmt_usd(num(e, "savings_usd_per_month"), month, sizeof month);
		fmt_roi(num(e, "roi_net"), roi, sizeof roi);
		expect_in(text, id, "  %.0f. %-34s cost %-12s saves %s/month, net ROI %s\n", num(e, "rank"),
			  at(e, "name")->valuestring, cost, month, roi);
		ranked++;
	}
	assert_int_equal(ranked, 3);
}

static void check_occupancy(const char *text, const cJSON *doc, const char *id)
{
	const cJSON *o = at(doc, "occupancy"), *c;
	int cases = 0;
	cJSON_ArrayForEach (c, at(o, "cases")) {
		expect_in(text, id, "%-21s ", at(c, "name")->valuestring);
		expect_in(text, id, "%7.0f %6.0f %5.1f%%  %-14s ", num(c, "blocks_per_sm"), num(c, "active_warps"),
			  100 * num(c, "occupancy"), at(c, "limiter")->valuestring);
		cases++;
	}
	assert_int_equal(cases, 3);
	const cJSON *fix = cJSON_GetObjectItemCaseSensitive(o, "chapter_fix");
	if (fix)
		expect_in(text, id, "28 KiB per block, gives %.0f blocks = %.1f%% here", num(fix, "blocks_per_sm"),
			  100 * num(fix, "occupancy"));
}

static void check_gpu(const struct ridge_gpu *g)
{
	char *text = report_text(g);
	cJSON *doc = report_json(g);
	assert_string_equal(at(doc, "gpu")->valuestring, g->id);
	assert_string_equal(at(doc, "ceilings")->valuestring, g->measured ? "measured" : "spec");
	checked = 0;
	check_hardware(text, doc, g->id);
	check_roofline(text, doc, g->id);
	check_align(text, doc, g->id);
	check_cost(text, doc, g->id);
	check_occupancy(text, doc, g->id);
	assert_true(checked > 60);
	cJSON_Delete(doc);
	free(text);
}

static void test_builtin_gpus(void **state)
{
	(void)state;
	/* Hopper with a price; AMD (CUs, HIP's rule, no chapter fix); Volta (no
	 * bf16: fp16 runs); Turing without a price in hwdb; Blackwell. */
	static const char *const ids[] = { "h100-sxm", "mi300x", "v100-sxm2", "t4", "b200" };
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
		check_gpu(test_gpu(ids[i]));
}

static void test_calibration(void **state)
{
	(void)state;
	static struct ridge_gpu g;
	static struct hwdb_diags diags;
	/* make test runs from the repository root. */
	if (hwdb_load_file("validation/h200-calibration.yaml", &g, &diags) != 0)
		fail_msg("cannot load validation/h200-calibration.yaml (run from the repository root)");
	assert_true(g.measured);
	check_gpu(&g);
	cJSON *doc = report_json(&g);
	const cJSON *m = at(doc, "measured_against_spec");
	assert_string_equal(at(m, "spec_gpu")->valuestring, "h200-sxm");
	assert_true(cJSON_GetArraySize(at(m, "ceilings")) >= 10);
	cJSON_Delete(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_gpus),
		cmocka_unit_test(test_calibration),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
