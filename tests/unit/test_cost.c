/* Cost models: Worked Example 7.1 recomputed exactly (and the book's rounding
 * drift), the PaLM FLOP count, decode bytes/TPOT/$ for Llama-3-70B, the
 * review-question-9 ranking, and every rejected input. Expected values were
 * computed independently (Python, IEEE doubles) from the inputs. */
#include "test_util.h"

#include <math.h>
#include <string.h>

/* Worked Example 7.1: 512 H100 at the book's 989 TFLOP/s, Llama-3 70B,
 * seq 4096 x batch 2048, 1M steps, $3/GPU-hour, 40% MFU. */
static struct ridge_train_input we71(void)
{
	struct ridge_train_input in = { 0 };
	in.params = 70e9;
	in.seq = 4096;
	in.batch = 2048;
	in.steps = 1e6;
	in.gpus = 512;
	in.peak_flops = 989e12;
	in.mfu = 0.40;
	in.price_usd_per_gpu_hour = 3;
	in.formula = RIDGE_FLOPS_6N;
	return in;
}

static void test_we71_exact(void **state)
{
	(void)state;
	struct ridge_train_input in = we71();
	struct ridge_train_comparison c;
	char err[200];
	assert_int_equal(cost_train_compare(&in, 0.65, true, 240e3, &c, NULL, err, sizeof err), 0);
	/* 6 * 70e9 * 4096 * 2048, exactly (the book prints 3.53e18) */
	assert_true(c.current.flops_per_step == 3523215360000000000.0);
	assert_true(c.target.flops_per_step == 3523215360000000000.0);
	assert_close(c.current.step_time_s, 17.39453993933266, 1e-15);
	assert_close(c.target.step_time_s, 10.70433227035856, 1e-15);
	assert_close(c.current.wall_hours, 4831.816649814627, 1e-15);
	assert_close(c.current.gpu_hours, 2473890.1247050893, 1e-15);
	assert_close(c.current.cost_usd, 7421670.374115268, 1e-15);
	assert_close(c.target.wall_hours, 2973.425630655155, 1e-15);
	assert_close(c.target.cost_usd, 4567181.768686319, 1e-15);
	assert_close(c.savings_usd, 2854488.605428949, 1e-14);
	/* the reference's identity: savings = cost(m1) * (1 - m1/m2) */
	assert_close(c.savings_usd, c.current.cost_usd * (1 - 0.40 / 0.65), 1e-13);
	assert_close(c.speedup, 0.65 / 0.40, 1e-15);
	assert_close(c.roi_net, 10.893702522620622, 1e-14);
	assert_close(c.roi_gross, 11.893702522620622, 1e-14);
	assert_true(c.breaks_even);
	assert_close(c.break_even_step, 84078.10756138393, 1e-13);
}

static void test_we71_hwdb_peak(void **state)
{
	(void)state;
	/* The same run at hwdb's 989.4 TFLOP/s (the whitepaper's dense bf16). */
	struct ridge_train_input in = we71();
	in.peak_flops = test_gpu("h100-sxm")->peak[RIDGE_BF16].matrix;
	assert_true(in.peak_flops == 989.4e12);
	struct ridge_train_result r;
	char err[200];
	assert_int_equal(cost_train(&in, &r, NULL, NULL, err, sizeof err), 0);
	assert_close(r.step_time_s, 17.387507580351727, 1e-15);
	assert_close(r.cost_usd, 7418669.90095007, 1e-15);
}

static void test_we71_book_rounding(void **state)
{
	(void)state;
	/* The book rounds the step times to 17.4 s and 10.7 s and the hours to
	 * 4,833 and 2,972 before multiplying. That chain gives $7,423,488 and
	 * $4,564,992 (savings $2,858,496); the exact savings are $2,854,488.61. */
	struct ridge_train_input in = we71();
	struct ridge_train_comparison c;
	struct ridge_train_rounded r;
	char err[200];
	assert_int_equal(cost_train_compare(&in, 0.65, true, 240e3, &c, NULL, err, sizeof err), 0);
	assert_int_equal(cost_train_rounded(&in, &c, 0.1, 1, &r, err, sizeof err), 0);
	assert_close(r.step_time_s, 17.4, 1e-15);
	assert_close(r.target_step_time_s, 10.7, 1e-15);
	assert_true(r.wall_hours == 4833);
	assert_true(r.target_wall_hours == 2972);
	assert_true(r.cost_usd == 7423488);
	assert_true(r.target_cost_usd == 4564992);
	assert_true(r.savings_usd == 2858496);
	assert_close(r.savings_drift_usd, 2858496 - 2854488.605428949, 1e-9);
	assert_close(r.roi_net, (2858496.0 - 240e3) / 240e3, 1e-15);
}

static void test_explain_trail(void **state)
{
	(void)state;
	struct ridge_train_input in = we71();
	struct ridge_train_comparison c;
	struct ridge_explain ex = { 0 };
	char err[200];
	assert_int_equal(cost_train_compare(&in, 0.65, true, 240e3, &c, &ex, err, sizeof err), 0);
	assert_int_equal(ex.dropped, 0);
	/* every value of the result appears in the trail, unrounded */
	static const char *const labels[] = { "FLOPs per step", "step time (current)",
					      "cost (current)", "step time (target)",
					      "cost (target)",  "savings",
					      "net ROI",        "break-even step" };
	double values[] = { c.current.flops_per_step, c.current.step_time_s, c.current.cost_usd, c.target.step_time_s,
			    c.target.cost_usd,        c.savings_usd,         c.roi_net,          c.break_even_step };
	for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++) {
		int found = 0;
		for (int j = 0; j < ex.count; j++) {
			if (strcmp(ex.steps[j].label, labels[i]) == 0) {
				assert_true(ex.steps[j].value == values[i]);
				found++;
			}
		}
		if (found != 1)
			fail_msg("explain step '%s' found %d times", labels[i], found);
	}
	/* the substituted formula shows the exact inputs */
	for (int j = 0; j < ex.count; j++)
		if (strcmp(ex.steps[j].label, "FLOPs per token") == 0)
			assert_string_equal(ex.steps[j].substituted, "6*7e+10");
	char buf[40];
	cost_format_exact(0.4, buf, sizeof buf);
	assert_string_equal(buf, "0.4");
	cost_format_exact(989e12, buf, sizeof buf);
	assert_string_equal(buf, "9.89e+14");
	cost_format_exact(17.39453993933266, buf, sizeof buf);
	assert_string_equal(buf, "17.39453993933266");
}

static void test_palm_flops(void **state)
{
	(void)state;
	/* 6N + 12 L n_heads d_head s for Llama-3-70B shapes at s = 4096; causal halves the attention term. */
	struct ridge_train_input in = we71();
	in.formula = RIDGE_FLOPS_PALM;
	in.layers = 80;
	in.heads = 64;
	in.head_dim = 128;
	struct ridge_train_result r;
	char err[200];
	assert_int_equal(cost_train(&in, &r, NULL, NULL, err, sizeof err), 0);
	assert_true(r.attention_flops_per_token == 32212254720.0);
	assert_true(r.flops_per_token == 6 * 70e9 + 32212254720.0);
	assert_true(r.flops_per_step == (6 * 70e9 + 32212254720.0) * 4096 * 2048);
	in.causal = true;
	assert_int_equal(cost_train(&in, &r, NULL, NULL, err, sizeof err), 0);
	assert_true(r.attention_flops_per_token == 16106127360.0);
	in.heads = 0;
	assert_int_equal(cost_train(&in, &r, NULL, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "heads"));
}

static void test_target_below_current(void **state)
{
	(void)state;
	struct ridge_train_input in = we71();
	struct ridge_train_comparison c;
	char err[200];
	assert_int_equal(cost_train_compare(&in, 0.30, true, 240e3, &c, NULL, err, sizeof err), 0);
	assert_true(c.savings_usd < 0);
	assert_true(c.roi_net < -1);
	assert_false(c.breaks_even);
	assert_true(isinf(c.break_even_step));
}

static void test_train_bad_inputs(void **state)
{
	(void)state;
	static const struct {
		const char *what;
		double mfu, price, gpus, steps, params, seq;
		const char *reason;
	} cases[] = {
		{ "mfu 0", 0, 3, 512, 1e6, 70e9, 4096, "MFU" },
		{ "mfu 1.5", 1.5, 3, 512, 1e6, 70e9, 4096, "MFU" },
		{ "mfu nan", NAN, 3, 512, 1e6, 70e9, 4096, "MFU" },
		{ "negative price", 0.4, -1, 512, 1e6, 70e9, 4096, "price" },
		{ "zero gpus", 0.4, 3, 0, 1e6, 70e9, 4096, "gpus" },
		{ "zero steps", 0.4, 3, 512, 0, 70e9, 4096, "steps" },
		{ "zero params", 0.4, 3, 512, 1e6, 0, 4096, "params" },
		{ "flops overflow", 0.4, 3, 512, 1e6, 1e300, 1e10, "overflow" },
		{ "time overflow", 0.4, 3, 512, 1e300, 1e200, 1e6, "overflow" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ridge_train_input in = we71();
		in.mfu = cases[i].mfu;
		in.price_usd_per_gpu_hour = cases[i].price;
		in.gpus = cases[i].gpus;
		in.steps = cases[i].steps;
		in.params = cases[i].params;
		in.seq = cases[i].seq;
		struct ridge_train_result r;
		char err[200] = "";
		if (cost_train(&in, &r, NULL, NULL, err, sizeof err) == 0)
			fail_msg("%s: accepted", cases[i].what);
		if (!strstr(err, cases[i].reason))
			fail_msg("%s: error '%s' lacks '%s'", cases[i].what, err, cases[i].reason);
	}
	struct ridge_train_input in = we71();
	struct ridge_train_comparison c;
	char err[200];
	assert_int_equal(cost_train_compare(&in, 1.2, false, 0, &c, NULL, err, sizeof err), -1);
	assert_int_equal(cost_train_compare(&in, 0.65, true, 0, &c, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "investment"));
}

/* Llama-3-70B (70,553,706,496 parameters) on 8 x H100 SXM, bf16, context 8192. */
static struct ridge_decode_input llama70b_decode(double batch)
{
	const struct ridge_gpu *gpu = test_gpu("h100-sxm");
	struct ridge_decode_input in = { 0 };
	in.params = 70553706496.0;
	in.layers = 80;
	in.kv_heads = 8;
	in.head_dim = 128;
	in.context = 8192;
	in.batch = batch;
	in.gpus = 8;
	in.weight_bytes = 2;
	in.kv_bytes = 2;
	in.bandwidth = gpu->memory_bandwidth;
	in.peak_flops = gpu->peak[RIDGE_BF16].matrix;
	in.memory_bytes = gpu->memory_bytes;
	in.price_usd_per_gpu_hour = 3;
	return in;
}

static void test_decode_llama70b(void **state)
{
	(void)state;
	static const struct {
		double batch, bytes, tpot, tokens_per_s, usd_per_m;
	} cases[] = {
		{ 1, 143791767552.0, 0.005365364460895522, 186.3806284341571, 35.769096405970146 },
		{ 32, 227006758912.0, 0.008470401451940298, 3777.8610826845547, 1.7646669691542287 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ridge_decode_input in = llama70b_decode(cases[i].batch);
		struct ridge_decode_result r;
		char err[200];
		assert_int_equal(cost_decode(&in, &r, NULL, err, sizeof err), 0);
		/* GQA: 2 * 80 layers * 8 KV heads * 128 * 2 bytes */
		assert_true(r.kv_bytes_per_token == 327680);
		assert_true(r.bytes_per_step == cases[i].bytes);
		assert_close(r.tpot_s, cases[i].tpot, 1e-15);
		assert_close(r.tokens_per_s, cases[i].tokens_per_s, 1e-14);
		assert_close(r.usd_per_million_tokens, cases[i].usd_per_m, 1e-14);
		assert_int_equal(r.bound, RIDGE_BOUND_MEMORY);
		assert_true(r.fits);
		/* at 8192 tokens of context each request's KV read outgrows its compute */
		assert_false(r.has_crossover);
	}
}

static void test_decode_dtypes_and_bound(void **state)
{
	(void)state;
	double b;
	assert_true(cost_storage_bytes("int4", &b) && b == 0.5);
	assert_true(cost_storage_bytes("FP8", &b) && b == 1);
	assert_true(cost_storage_bytes("bf16", &b) && b == 2);
	assert_false(cost_storage_bytes("int3", &b));

	/* fp8 KV halves the per-token cache */
	struct ridge_decode_input in = llama70b_decode(32);
	in.kv_bytes = 1;
	in.weight_bytes = 0.5;
	struct ridge_decode_result r;
	char err[200];
	assert_int_equal(cost_decode(&in, &r, NULL, err, sizeof err), 0);
	assert_true(r.kv_bytes_per_token == 163840);
	assert_true(r.weight_bytes == 70553706496.0 * 0.5);

	/* short context: compute catches up with memory at
	 * B* = (W/BW) / (2N/P - C k/BW); past it decode is compute-bound */
	in = llama70b_decode(1);
	in.context = 128;
	assert_int_equal(cost_decode(&in, &r, NULL, err, sizeof err), 0);
	assert_true(r.has_crossover);
	double bw = 8 * in.bandwidth, peak = 8 * in.peak_flops;
	double expected = (in.params * 2 / bw) / (2 * in.params / peak - 128 * 327680.0 / bw);
	assert_close(r.crossover_batch, expected, 1e-14);
	in.batch = ceil(expected) + 1;
	assert_int_equal(cost_decode(&in, &r, NULL, err, sizeof err), 0);
	assert_int_equal(r.bound, RIDGE_BOUND_COMPUTE);
	in.batch = floor(expected);
	assert_int_equal(cost_decode(&in, &r, NULL, err, sizeof err), 0);
	assert_int_equal(r.bound, RIDGE_BOUND_MEMORY);

	/* a batch that does not fit in 8 x 80 GB */
	in = llama70b_decode(256);
	assert_int_equal(cost_decode(&in, &r, NULL, err, sizeof err), 0);
	assert_false(r.fits);

	in = llama70b_decode(1);
	in.kv_heads = 0;
	assert_int_equal(cost_decode(&in, &r, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "kv_heads"));
	in = llama70b_decode(1);
	in.price_usd_per_gpu_hour = -2;
	assert_int_equal(cost_decode(&in, &r, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "price"));
}

static void test_model_params(void **state)
{
	(void)state;
	struct ridge_model_shape llama3_70b = { 8192, 28672, 80, 64, 8, 128, 128256, false };
	double params;
	char err[200];
	assert_int_equal(cost_model_params(&llama3_70b, &params, NULL, err, sizeof err), 0);
	assert_true(params == 70553706496.0);
	/* Llama-3-8B: 8,030,261,248 */
	struct ridge_model_shape llama3_8b = { 4096, 14336, 32, 32, 8, 128, 128256, false };
	assert_int_equal(cost_model_params(&llama3_8b, &params, NULL, err, sizeof err), 0);
	assert_true(params == 8030261248.0);
	llama3_8b.vocab = 0;
	assert_int_equal(cost_model_params(&llama3_8b, &params, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "vocab_size"));
}

static void test_rank_review_question_9(void **state)
{
	(void)state;
	/* $4M/month, 60% training / 40% inference, baseline 40% MFU, $250/hour,
	 * 40 h/week, 12-month horizon. (A) +15 MFU points, 3 engineer-months;
	 * (B) +8 points, 2 weeks; (C) -18% TPOT, 6 weeks. */
	struct ridge_fleet fleet = { 4e6, 0.6, 0.4, 0.40, 250, 40, 12 };
	struct ridge_project p[3] = {
		{ "A attention rewrite", RIDGE_PROJECT_MFU, 0.15, 0, 1, 3 * RIDGE_WEEKS_PER_MONTH, false, 0, 0 },
		{ "B GEMM alignment", RIDGE_PROJECT_MFU, 0.08, 0, 1, 2, false, 0, 0 },
		{ "C persistent decode", RIDGE_PROJECT_TPOT, 0, 0.18, 1, 6, false, 0, 0 },
	};
	struct ridge_project_result r[3];
	char err[200];
	assert_int_equal(cost_rank(&fleet, p, 3, r, NULL, err, sizeof err), 0);
	static const struct {
		int index;
		double cost, per_month, roi_net;
	} want[] = {
		{ 1, 20000, 400000.0000000002, 239.00000000000009 },
		{ 0, 130000, 654545.4545454545, 59.419580419580406 },
		{ 2, 60000, 288000, 56.6 },
	};
	for (int i = 0; i < 3; i++) {
		assert_int_equal(r[i].rank, i + 1);
		assert_int_equal(r[i].index, want[i].index);
		assert_close(r[i].engineering_usd, want[i].cost, 1e-14);
		assert_close(r[i].savings_per_month, want[i].per_month, 1e-14);
		assert_close(r[i].horizon_savings, want[i].per_month * 12, 1e-14);
		assert_close(r[i].roi_net, want[i].roi_net, 1e-13);
	}
	/* a project that exceeds MFU 1, and one with no effort */
	p[0].mfu_gain = 0.7;
	assert_int_equal(cost_rank(&fleet, p, 3, r, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "A attention rewrite"));
	p[0].mfu_gain = 0.15;
	p[2].engineer_weeks = 0;
	assert_int_equal(cost_rank(&fleet, p, 3, r, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "C persistent decode"));
}

/* The KV head rule: Llama-3-70B (8 KV heads), 32k context, batch 32 on 16
 * H100 SXM. Each GPU holds one whole head, so the 16 GPUs read the cache
 * twice: 141,107,412,992 B of weights + 32 x 32768 x 327,680 x 2 =
 * 687,194,767,360 B of KV = 828,302,180,352 B over 16 x 3.35 TB/s =
 * 15.453 ms (dividing the cache 16 ways gave 9.04 ms). */
static void test_decode_kv_head_rule(void **state)
{
	(void)state;
	struct ridge_decode_input in = { 0 };
	in.params = 70553706496;
	in.layers = 80;
	in.kv_heads = 8;
	in.head_dim = 128;
	in.context = 32768;
	in.batch = 32;
	in.gpus = 16;
	in.weight_bytes = 2;
	in.kv_bytes = 2;
	in.bandwidth = 3.35e12;
	in.peak_flops = 989e12;
	struct ridge_decode_result r;
	char err[200];
	assert_int_equal(cost_decode(&in, &r, NULL, err, sizeof err), 0);
	assert_true(r.kv_heads_per_gpu == 1);
	assert_true(r.kv_replication == 2);
	assert_true(r.kv_bytes == 687194767360.0);
	assert_close(r.memory_time_s, 828302180352.0 / (16 * 3.35e12), 1e-15);
	assert_close(r.memory_time_s, 0.0154534, 1e-5);
	/* 8 GPUs: one head each, no replication: the old count */
	in.gpus = 8;
	assert_int_equal(cost_decode(&in, &r, NULL, err, sizeof err), 0);
	assert_true(r.kv_bytes == 343597383680.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_we71_exact),
		cmocka_unit_test(test_we71_hwdb_peak),
		cmocka_unit_test(test_we71_book_rounding),
		cmocka_unit_test(test_explain_trail),
		cmocka_unit_test(test_palm_flops),
		cmocka_unit_test(test_target_below_current),
		cmocka_unit_test(test_train_bad_inputs),
		cmocka_unit_test(test_decode_llama70b),
		cmocka_unit_test(test_decode_dtypes_and_bound),
		cmocka_unit_test(test_decode_kv_head_rule),
		cmocka_unit_test(test_model_params),
		cmocka_unit_test(test_rank_review_question_9),
	};
	return cmocka_run_group_tests_name("cost", tests, NULL, NULL);
}
