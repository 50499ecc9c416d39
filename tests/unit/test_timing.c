/* model/timing: the kernel time model and its fit, pinned with hand-worked
 * numbers (docs/models/timing.md). */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "models.h"
#include "test_util.h"

/* max(compute / eff_c, memory / eff_m) + fixed: 100 us / 0.8 = 125 us beats
 * 60 us / 0.9 = 66.7 us, plus 5 us = 130 us. */
static void test_predict_formula(void **state)
{
	(void)state;
	assert_close(timing_predict(100e-6, 60e-6, 0.8, 0.9, 5e-6), 130e-6, 1e-15);
	assert_close(timing_predict(10e-6, 90e-6, 0.8, 0.9, 5e-6), 105e-6, 1e-15);
}

/* Samples made from known terms come back exactly: eff_c 0.75, eff_m 0.85,
 * fixed 7 us, over work spanning 20x in both regimes. */
static void test_fit_recovers_terms(void **state)
{
	(void)state;
	struct ridge_timing_sample s[8];
	const double compute[] = { 50e-6, 200e-6, 1000e-6, 400e-6, 1e-6, 2e-6, 1e-6, 3e-6 };
	const double memory[] = { 10e-6, 20e-6, 100e-6, 50e-6, 20e-6, 100e-6, 400e-6, 60e-6 };
	for (int i = 0; i < 8; i++)
		s[i] = (struct ridge_timing_sample){ compute[i], memory[i],
						     timing_predict(compute[i], memory[i], 0.75, 0.85, 7e-6) };
	struct ridge_timing_fit f;
	char err[200];
	assert_int_equal(timing_fit(s, 8, 1, 1, 0, &f, err, sizeof err), 0);
	assert_true(f.fitted_compute && f.fitted_memory && f.fitted_fixed);
	assert_int_equal(f.compute_bound_samples, 4);
	assert_int_equal(f.memory_bound_samples, 4);
	assert_close(f.compute_efficiency, 0.75, 1e-9);
	assert_close(f.memory_efficiency, 0.85, 1e-9);
	assert_close(f.fixed_cost_s, 7e-6, 1e-9);
	assert_true(f.median_abs_error < 1e-9);
}

/* Samples of one size cannot tell an efficiency from a fixed cost: the fixed
 * cost stays at the prior (3 us) and the efficiency takes the rest. Four
 * kernels of 48 us memory time measured at 66 us: eff = 48 / (66 - 3) = 0.7619. */
static void test_fit_one_size_holds_fixed_cost(void **state)
{
	(void)state;
	struct ridge_timing_sample s[4];
	for (int i = 0; i < 4; i++)
		s[i] = (struct ridge_timing_sample){ 1e-6, 48e-6, 66e-6 };
	struct ridge_timing_fit f;
	char err[200];
	assert_int_equal(timing_fit(s, 4, 1, 1, 3e-6, &f, err, sizeof err), 0);
	assert_false(f.fitted_fixed);
	assert_close(f.fixed_cost_s, 3e-6, 1e-18);
	assert_close(f.memory_efficiency, 48.0 / 63.0, 1e-12);
}

static void test_fit_refuses_bad_samples(void **state)
{
	(void)state;
	struct ridge_timing_sample s[1] = { { 1e-6, 1e-6, 0 } };
	struct ridge_timing_fit f;
	char err[200];
	assert_int_equal(timing_fit(s, 1, 1, 1, 0, &f, err, sizeof err), -1);
	assert_non_null(strstr(err, "sample 1"));
	assert_int_equal(timing_fit(s, 0, 1, 1, 0, &f, err, sizeof err), -1);
	s[0].measured_s = NAN;
	assert_int_equal(timing_fit(s, 1, 1, 1, 0, &f, err, sizeof err), -1);
}

/* bf16 4096^3 on the H100 spec sheet: 2 * 4096^3 = 137438953472 FLOP at
 * 989.4 TFLOP/s = 138.911 us; 32 x 32 = 1024 tiles of 128 x 128 on 132 SMs
 * run in 8 waves of 132: 1024 / 1056 of the computed area is useful; the
 * entry's gemm class (compute efficiency 0.8593, fixed 9.31 us) gives
 * 138.911 / (1024 / 1056) / 0.8593 + 9.31 = 176.02 us. */
static void test_gemm_prediction(void **state)
{
	(void)state;
	const struct ridge_gpu *g = test_gpu("h100-sxm");
	struct ridge_kernel_shape s = {
		.kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_BF16, .m = 4096, .n = 4096, .k = 4096
	};
	struct ridge_kernel_time t;
	char err[300];
	assert_int_equal(timing_kernel(g, &s, NULL, &t, err, sizeof err), 0);
	assert_int_equal(t.cls, RIDGE_TIME_GEMM);
	assert_true(t.quantized);
	assert_int_equal(t.tile_m, 128);
	assert_int_equal(t.tile_n, 128);
	assert_close(t.tiles, 1024, 0);
	assert_close(t.waves, 8, 0);
	assert_close(t.quantization_efficiency, 1024.0 / 1056.0, 1e-15);
	double compute = 137438953472.0 / 989.4e12;
	assert_close(t.compute_time_s, compute, 1e-18);
	assert_close(t.compute_efficiency.value, 0.8593, 0);
	assert_close(t.fixed_cost.value, 9.31e-6, 1e-18);
	assert_close(t.predicted_time_s, compute / (1024.0 / 1056.0) / 0.8593 + 9.31e-6, 1e-15);
	assert_close(t.predicted_time_s, 176.02e-6, 1e-4);
	assert_true(t.predicted_time_s >= t.time_floor_s);
}

/* Back to back (a CUDA graph) the launch latency an isolated kernel shows is
 * hidden: the H100 entry's GEMM fixed cost 9.31 us less its
 * launch.kernel_fixed_cost 4.94 us leaves 4.37 us. */
static void test_in_stream_fixed_cost(void **state)
{
	(void)state;
	const struct ridge_gpu *g = test_gpu("h100-sxm");
	struct ridge_kernel_shape s = {
		.kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_BF16, .m = 4096, .n = 4096, .k = 4096
	};
	struct ridge_timing_options o = { .in_stream = true };
	struct ridge_kernel_time t;
	char err[300];
	assert_int_equal(timing_kernel(g, &s, &o, &t, err, sizeof err), 0);
	assert_close(t.fixed_cost.value, 9.31e-6 - 4.94e-6, 1e-12);
	assert_non_null(strstr(t.fixed_cost.source, "in a stream"));
	/* The element-wise class's 5.71 us is almost all launch latency: 0.77 us stay. */
	s = (struct ridge_kernel_shape){ .kernel = RIDGE_KERNEL_VECTOR_ADD, .dtype = RIDGE_BF16, .m = 1024, .n = 4096 };
	assert_int_equal(timing_kernel(g, &s, &o, &t, err, sizeof err), 0);
	assert_close(t.fixed_cost.value, 5.71e-6 - 4.94e-6, 1e-12);
}

/* A decode GEMV's 8-token output is tiled 128 x 8, not 128 x 128: a skinny
 * GEMM with M = 4096 outputs and N = 8 tokens has 32 tiles, not 32 x 16 of
 * wasted area. */
static void test_skinny_gemm_tile(void **state)
{
	(void)state;
	const struct ridge_gpu *g = test_gpu("h100-sxm");
	struct ridge_kernel_shape s = {
		.kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_BF16, .m = 4096, .n = 8, .k = 14336
	};
	struct ridge_kernel_time t;
	char err[300];
	assert_int_equal(timing_kernel(g, &s, NULL, &t, err, sizeof err), 0);
	assert_int_equal(t.tile_n, 8);
	assert_close(t.tiles, 32, 0);
	assert_close(t.quantization_efficiency, 32.0 / 132.0, 1e-15);
	assert_false(t.compute_binds); /* 117 MB of weights: memory-bound */
}

/* A grouped GEMM's tiles are per group: 8 experts of 8 rows x 14336 on the
 * H100's 132 SMs take tiles of 8 x 128, 112 a group, 896 in all: 7 waves
 * (6.79), 896 / (7 x 132) = 0.9697 of them used. 8 groups of 100 rows fill
 * 128-row tiles each (100/128), where one 800-row GEMM would fill 7 of them
 * (800/896): the grouped one computes 8 x 2 = 16 half-empty tile rows. The
 * expectation may be fractional: 2.5 groups of 1 row (tile 8: 1/8). */
static void test_grouped_quantization(void **state)
{
	(void)state;
	const struct ridge_gpu *g = test_gpu("h100-sxm");
	struct ridge_kernel_time t = { .compute_time_s = 1e-3 };
	char err[300];
	assert_int_equal(timing_grouped_quantization(g, 8, 8, 14336, &t, err, sizeof err), 0);
	assert_true(t.quantized);
	assert_int_equal(t.tile_m, 8);
	assert_int_equal(t.tile_n, 128);
	assert_close(t.tiles, 896, 0);
	assert_close(t.waves, 7, 0);
	assert_close(t.quantization_efficiency, 896.0 / (7 * 132), 1e-15);
	assert_close(t.quantized_compute_time_s, 1e-3 / (896.0 / (7 * 132)), 1e-15);

	assert_int_equal(timing_grouped_quantization(g, 8, 100, 14336, &t, err, sizeof err), 0);
	assert_int_equal(t.tile_m, 128);
	assert_close(t.tiles, 896, 0);
	assert_close(t.quantization_efficiency, 100.0 / 128 * (896.0 / (7 * 132)), 1e-15);

	assert_int_equal(timing_grouped_quantization(g, 2.5, 1, 4096, &t, err, sizeof err), 0);
	assert_int_equal(t.tile_m, 8);
	assert_close(t.tiles, 80, 0);
	assert_close(t.waves, 1, 0);
	assert_close(t.quantization_efficiency, 1.0 / 8 * (80.0 / 132), 1e-15);

	assert_int_equal(timing_grouped_quantization(g, 0, 8, 4096, &t, err, sizeof err), -1);
	assert_non_null(strstr(err, "groups"));
	assert_int_equal(timing_grouped_quantization(g, 8, NAN, 4096, &t, err, sizeof err), -1);
	assert_non_null(strstr(err, "rows per group"));
}

/* A kernel class with no timing terms predicts its floor; own kernels too.
 * Every built-in entry has a timing section, so the entry here is one with
 * its section and launch intercept taken out (a user's file without them). */
static void test_unknown_class_is_the_floor(void **state)
{
	(void)state;
	static struct ridge_gpu bare;
	bare = *test_gpu("a100-sxm-80gb");
	memset(bare.timing, 0, sizeof bare.timing);
	bare.has_kernel_fixed_cost = false;
	const struct ridge_gpu *g = &bare;
	struct ridge_kernel_shape s = { .kernel = RIDGE_KERNEL_SOFTMAX, .dtype = RIDGE_BF16, .m = 8192, .n = 4096 };
	struct ridge_kernel_time t;
	char err[300];
	assert_int_equal(timing_kernel(g, &s, NULL, &t, err, sizeof err), 0);
	assert_close(t.predicted_time_s, t.time_floor_s, 0);
	assert_non_null(strstr(t.memory_efficiency.source, "none known"));
	s = (struct ridge_kernel_shape){
		.kernel = RIDGE_KERNEL_GEMM_TILED, .dtype = RIDGE_BF16, .m = 1024, .n = 1024, .k = 1024
	};
	assert_int_equal(timing_kernel(test_gpu("h100-sxm"), &s, NULL, &t, err, sizeof err), 0);
	assert_int_equal(t.cls, RIDGE_TIME_OWN);
	assert_close(t.predicted_time_s, t.time_floor_s, 0);
}

/* The attention implementation: the entry's default (cudnn on the H100 and
 * H200 entries: what PyTorch 2.11's SDPA ran), ideal is the roofline. */
static void test_attention_impl(void **state)
{
	(void)state;
	const struct ridge_gpu *g = test_gpu("h100-sxm");
	struct ridge_kernel_shape s = { .kernel = RIDGE_KERNEL_FLASH_ATTENTION,
					.dtype = RIDGE_BF16,
					.seq = 4096,
					.heads = 32,
					.head_dim = 128,
					.causal = true };
	struct ridge_kernel_time t;
	char err[300];
	assert_int_equal(timing_kernel(g, &s, NULL, &t, err, sizeof err), 0);
	assert_int_equal(t.impl, RIDGE_ATTENTION_CUDNN);
	assert_int_equal(t.slot, RIDGE_SLOT_ATTENTION_CUDNN);
	struct ridge_timing_options o = { .impl = RIDGE_ATTENTION_IDEAL };
	assert_int_equal(timing_kernel(g, &s, &o, &t, err, sizeof err), 0);
	assert_close(t.predicted_time_s, t.time_floor_s, 0);
	enum ridge_attention_impl impl;
	assert_true(timing_attention_impl_parse("FA3", &impl));
	assert_int_equal(impl, RIDGE_ATTENTION_FA3);
	assert_false(timing_attention_impl_parse("fa4", &impl));
}

/* Rebasing keeps the rate: efficiency x ceiling is the same before and after. */
static void test_rebase_keeps_rate(void **state)
{
	(void)state;
	const struct ridge_gpu *from = test_gpu("h200-sxm");
	struct ridge_gpu to = *from;
	double peak_from = from->peak[RIDGE_BF16].matrix;
	to.peak[RIDGE_BF16].matrix = 803e12;
	to.memory_bandwidth = 4.5e12;
	memset(to.timing, 0, sizeof to.timing);
	timing_rebase(from, &to);
	const struct ridge_timing_terms *a = &from->timing[RIDGE_SLOT_GEMM], *b = &to.timing[RIDGE_SLOT_GEMM];
	assert_true(b->has_compute_efficiency && b->has_memory_efficiency && b->has_fixed_cost);
	assert_close(b->compute_efficiency * 803e12, a->compute_efficiency * peak_from, 1e-3);
	assert_close(b->memory_efficiency * 4.5e12, a->memory_efficiency * from->memory_bandwidth, 1e-3);
	assert_close(b->fixed_cost_s, a->fixed_cost_s, 0);
	assert_string_equal(to.attention_default, "cudnn");
}

/* A calibration without a class takes the entry's, carried to its measured
 * ceilings with the rate kept and said so; a class it has stays its own. */
static void test_inherit_missing_classes(void **state)
{
	(void)state;
	const struct ridge_gpu *entry = test_gpu("h200-sxm");
	struct ridge_gpu cal = *entry;
	cal.measured = true;
	cal.memory_bandwidth = 4.505e12;
	memset(cal.timing, 0, sizeof cal.timing);
	cal.attention_default[0] = '\0';
	cal.timing[RIDGE_SLOT_NORM].has_memory_efficiency = true; /* its own fit */
	cal.timing[RIDGE_SLOT_NORM].memory_efficiency = 0.5;
	int carried = timing_inherit(entry, &cal);
	int entry_slots = 0;
	for (int i = 0; i < RIDGE_TIMING_SLOTS; i++) {
		const struct ridge_timing_terms *t = &entry->timing[i];
		entry_slots += t->has_compute_efficiency || t->has_memory_efficiency || t->has_fixed_cost ||
			       t->has_cta_bandwidth;
	}
	/* every slot took something: the norm slot keeps its own fit and takes
	 * only the entry's absolute time per row */
	assert_int_equal(carried, entry_slots);
	assert_close(cal.timing[RIDGE_SLOT_NORM].memory_efficiency, 0.5, 0);
	assert_false(cal.timing[RIDGE_SLOT_NORM].has_fixed_cost);
	assert_true(cal.timing[RIDGE_SLOT_NORM].has_row_time);
	assert_close(cal.timing[RIDGE_SLOT_NORM].row_time_s, entry->timing[RIDGE_SLOT_NORM].row_time_s, 0);
	assert_non_null(strstr(cal.timing[RIDGE_SLOT_NORM].source, "absolute terms from the h200-sxm entry"));
	const struct ridge_timing_terms *a = &entry->timing[RIDGE_SLOT_ATTENTION_SPLIT_KV];
	const struct ridge_timing_terms *b = &cal.timing[RIDGE_SLOT_ATTENTION_SPLIT_KV];
	assert_true(b->has_memory_efficiency && b->has_fixed_cost);
	assert_close(b->memory_efficiency * 4.505e12, a->memory_efficiency * entry->memory_bandwidth, 1e-12);
	assert_non_null(strstr(b->source, "inherited from the h200-sxm entry"));
	assert_true(cal.timing[RIDGE_SLOT_ATTENTION_PER_HEAD].has_cta_bandwidth);
	assert_true(cal.timing[RIDGE_SLOT_NORM].has_cta_bandwidth); /* absolute: taken beside its own fit */
	assert_true(cal.timing[RIDGE_SLOT_SOFTMAX].has_cta_latency);
	assert_close(cal.timing[RIDGE_SLOT_SOFTMAX].cta_latency_s, entry->timing[RIDGE_SLOT_SOFTMAX].cta_latency_s, 0);
	assert_string_equal(cal.attention_default, "cudnn");
	assert_int_equal(timing_inherit(entry, &cal), 0); /* nothing left to take */
}

/* Decode attention at one query token: split-kv and per-head have their own
 * slots, and the names parse. */
static void test_decode_attention_impls(void **state)
{
	(void)state;
	enum ridge_attention_impl impl;
	assert_true(timing_attention_impl_parse("split-kv", &impl));
	assert_int_equal(impl, RIDGE_ATTENTION_SPLIT_KV);
	assert_true(timing_attention_impl_parse("per-head", &impl));
	assert_int_equal(timing_slot(RIDGE_TIME_ATTENTION, impl), RIDGE_SLOT_ATTENTION_PER_HEAD);
	assert_string_equal(timing_slot_key(RIDGE_SLOT_ATTENTION_SPLIT_KV), "attention_split_kv");
	const struct ridge_gpu *g = test_gpu("h200-sxm");
	/* 537 MB of KV (batch 1, 8 KV heads, 131072 tokens, d 128, bf16): the
	 * split-kv fit's rate, 0.8775 x 4.8 TB/s, plus 12.42 us; measured 138 us */
	assert_close(g->timing[RIDGE_SLOT_ATTENTION_SPLIT_KV].memory_efficiency, 0.8775, 0);
	double t = 536870912.0 / (0.8775 * g->memory_bandwidth) + g->timing[RIDGE_SLOT_ATTENTION_SPLIT_KV].fixed_cost_s;
	assert_true(fabs(t - 138.18e-6) / 138.18e-6 < 0.10);
}

/* Narrow rows: a norm's rows x passes x timing.norm.row_time binds when it
 * is the largest term (RMSNorm 262144 x 64 on the H200: 164.1 us measured). */
static void test_norm_rows_bind(void **state)
{
	(void)state;
	const struct ridge_gpu *g = test_gpu("h200-sxm");
	struct ridge_kernel_shape s = { .kernel = RIDGE_KERNEL_RMSNORM, .dtype = RIDGE_BF16, .m = 262144, .n = 64 };
	struct ridge_kernel_time t;
	char err[300];
	assert_int_equal(timing_kernel(g, &s, NULL, &t, err, sizeof err), 0);
	assert_true(t.rows_bind);
	double rows = 262144 * g->timing[RIDGE_SLOT_NORM].row_time_s;
	assert_close(t.row_time_s, rows, 1e-15);
	assert_close(t.predicted_time_s, rows + g->timing[RIDGE_SLOT_NORM].fixed_cost_s, 1e-15);
	assert_true(fabs(t.predicted_time_s - 164.1e-6) / 164.1e-6 < 0.05);
	s.kernel = RIDGE_KERNEL_LAYERNORM; /* two passes */
	assert_int_equal(timing_kernel(g, &s, NULL, &t, err, sizeof err), 0);
	assert_close(t.row_time_s, 2 * rows, 1e-15);
	s = (struct ridge_kernel_shape){ .kernel = RIDGE_KERNEL_RMSNORM, .dtype = RIDGE_BF16, .m = 4096, .n = 4096 };
	assert_int_equal(timing_kernel(g, &s, NULL, &t, err, sizeof err), 0);
	assert_false(t.rows_bind); /* wide rows: the bytes bind */
}

/* Wide rows: a norm of one CTA per row with fewer rows than the HBM can
 * serve streams (512 x 2.944 GB/s below 4.8 TB/s) is its CTA stream plus the
 * launch latency: RMSNorm 512 x 32768 (measured 65.06 us on the H200) is
 * 131072 B x (1 / 2.944 GB/s + 512 / 4.8 TB/s) + 4.94 us = 63.44 us. */
static void test_norm_wide_rows_cta_stream(void **state)
{
	(void)state;
	const struct ridge_gpu *g = test_gpu("h200-sxm");
	const struct ridge_timing_terms *n = &g->timing[RIDGE_SLOT_NORM];
	assert_close(n->cta_bandwidth, 2.944e9, 0);
	assert_close(g->memory_bandwidth, 4.8e12, 0);
	struct ridge_kernel_shape s = { .kernel = RIDGE_KERNEL_RMSNORM, .dtype = RIDGE_BF16, .m = 512, .n = 32768 };
	struct ridge_kernel_time t;
	char err[300];
	assert_int_equal(timing_kernel(g, &s, NULL, &t, err, sizeof err), 0);
	assert_string_equal(t.library_kernel, "vectorized_layer_norm_kernel");
	assert_close(t.ctas, 512, 0);
	assert_close(t.resident_ctas, 2112, 0); /* 132 SMs x 2048 / 128 threads */
	assert_true(t.ctas_bind && !t.rows_bind && !t.compute_binds);
	double stream = 131072 * (1 / 2.944e9 + 512 / 4.8e12);
	assert_close(t.cta_stream_s, stream, 1e-18);
	assert_close(t.predicted_time_s, stream + 4.94e-6, 1e-15);
	assert_true(fabs(t.predicted_time_s - 63.44e-6) < 0.01e-6);
	/* decode: 8 rows of 4096 in a graph, the stream alone (no launch, no
	 * fixed cost): 5.59 us, where torch.profiler saw 5.53 us (harness B) */
	struct ridge_timing_options in_stream = { .impl = RIDGE_ATTENTION_DEFAULT, .in_stream = true };
	s.m = 8;
	s.n = 4096;
	assert_int_equal(timing_kernel(g, &s, &in_stream, &t, err, sizeof err), 0);
	assert_close(t.predicted_time_s, 16384 * (1 / 2.944e9 + 8 / 4.8e12), 1e-18);
	/* 2112 streams ask 6.2 TB/s: more than the HBM gives, the bytes bind */
	s.m = 65536;
	assert_int_equal(timing_kernel(g, &s, NULL, &t, err, sizeof err), 0);
	assert_close(t.cta_stream_s, 0, 0);
	assert_false(t.ctas_bind);
}

/* Softmax by width (PyTorch's SoftMax.cu): up to 2048 columns a warp per
 * row (no CTA term: the class's bytes), wider one CTA of 1024 threads per
 * row, two an SM: 8192 x 2560 (register kernel, measured 84.58 us) is
 * 8192 / 264 waves x (1.155 us + 10240 B x (1 / 12.39 GB/s + 264 / 4.8 TB/s))
 * + 4.94 us = 83.90 us. */
static void test_softmax_kernel_by_width(void **state)
{
	(void)state;
	const struct ridge_gpu *g = test_gpu("h200-sxm");
	const struct ridge_timing_terms *sm = &g->timing[RIDGE_SLOT_SOFTMAX];
	assert_true(sm->has_cta_latency && sm->has_cta_bandwidth);
	assert_close(sm->cta_latency_s, 1.155e-6, 0);
	assert_close(sm->cta_bandwidth, 12.39e9, 0);
	struct ridge_kernel_shape s = { .kernel = RIDGE_KERNEL_SOFTMAX, .dtype = RIDGE_BF16, .m = 8192, .n = 2560 };
	struct ridge_kernel_time t;
	char err[300];
	assert_int_equal(timing_kernel(g, &s, NULL, &t, err, sizeof err), 0);
	assert_string_equal(t.library_kernel, "cunn_SoftMaxForwardReg");
	assert_close(t.resident_ctas, 264, 0);
	double expect = 8192.0 / 264 * (1.155e-6 + 10240 * (1 / 12.39e9 + 264 / 4.8e12));
	assert_close(t.cta_stream_s, expect, 1e-15);
	assert_true(t.ctas_bind);
	assert_close(t.predicted_time_s, expect + 4.94e-6, 1e-15);
	assert_true(fabs(t.predicted_time_s - 83.90e-6) < 0.01e-6);
	static const struct {
		double n;
		const char *kernel;
		double rows_per_cta;
	} widths[] = {
		{ 64, "softmax_warp_forward", 8 },       { 128, "softmax_warp_forward", 8 },
		{ 2048, "softmax_warp_forward", 4 },     { 2049, "cunn_SoftMaxForwardReg", 1 },
		{ 9216, "cunn_SoftMaxForwardReg", 1 },   { 9224, "cunn_SoftMaxForwardSmem", 1 },
		{ 24504, "cunn_SoftMaxForwardSmem", 1 }, { 24512, "cunn_SoftMaxForward", 1 },
		{ 16385, "cunn_SoftMaxForward", 1 },     { 128256, "cunn_SoftMaxForward", 1 },
	};
	for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
		s.m = 4096;
		s.n = widths[i].n;
		assert_int_equal(timing_kernel(g, &s, NULL, &t, err, sizeof err), 0);
		assert_string_equal(t.library_kernel, widths[i].kernel);
		assert_close(t.ctas, ceil(4096 / widths[i].rows_per_cta), 0);
		/* the warp kernel keeps the class's bytes: no CTA term */
		assert_true((t.cta_stream_s > 0) == (widths[i].n > 2048));
	}
	s.passes = 3; /* the user's own algorithm, not the library's */
	assert_int_equal(timing_kernel(g, &s, NULL, &t, err, sizeof err), 0);
	assert_null(t.library_kernel);
	assert_close(t.cta_stream_s, 0, 0);
}

/* Up to 256 tokens the library's token tile is the token count rounded up to
 * 8 and its idle SMs split K (cuBLAS's nvjet 256x144, 128x176 ... kernels on
 * an H100, measurements/2026-12-06-h100-gemm-library): 144 tokens lose
 * nothing to tiles or waves, 100 tokens 100/104 of a tile; 257 tokens are
 * back to 128-row tiles and waves. */
static void test_token_tile(void **state)
{
	(void)state;
	const struct ridge_gpu *g = test_gpu("h100-sxm");
	struct ridge_kernel_shape s = {
		.kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_BF16, .m = 144, .n = 4096, .k = 4096
	};
	struct ridge_kernel_time t;
	char err[300];
	assert_int_equal(timing_kernel(g, &s, NULL, &t, err, sizeof err), 0);
	assert_int_equal(t.tile_m, 144);
	assert_close(t.quantization_efficiency, 1, 0);
	s.m = 100;
	assert_int_equal(timing_kernel(g, &s, NULL, &t, err, sizeof err), 0);
	assert_int_equal(t.tile_m, 104);
	assert_close(t.quantization_efficiency, 100.0 / 104, 1e-15);
	s.m = 257;
	assert_int_equal(timing_kernel(g, &s, NULL, &t, err, sizeof err), 0);
	assert_int_equal(t.tile_m, 128);
	/* 3 x 32 = 96 tiles of 128 x 128 on 132 SMs, 257 of 384 rows */
	assert_close(t.quantization_efficiency, 257.0 / 384 * (96.0 / 132), 1e-15);
}

/* A grouped GEMM takes the grouped_gemm class where the entry has it (the
 * H100's fit: 0.8287 of spec, 15.5 us) and the gemm class's terms, as
 * transferred and said so, where it does not (B200). */
static void test_grouped_gemm_class(void **state)
{
	(void)state;
	struct ridge_kernel_shape s = {
		.kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_BF16, .m = 16, .n = 28672, .k = 4096
	};
	struct ridge_timing_options o = { .impl = RIDGE_ATTENTION_DEFAULT, .grouped = true };
	struct ridge_kernel_time t;
	char err[256];
	assert_int_equal(timing_kernel(test_gpu("h100-sxm"), &s, &o, &t, err, sizeof err), 0);
	assert_int_equal(t.cls, RIDGE_TIME_GROUPED_GEMM);
	assert_false(t.grouped_as_gemm);
	assert_true(t.memory_efficiency.value == 0.8287 && t.fixed_cost.value == 15.5e-6);
	assert_int_equal(t.memory_efficiency.provenance, RIDGE_PROVENANCE_MEASURED);
	const struct ridge_gpu *b200 = test_gpu("b200");
	struct ridge_kernel_time plain;
	struct ridge_timing_options none = { .impl = RIDGE_ATTENTION_DEFAULT };
	assert_int_equal(timing_kernel(b200, &s, &o, &t, err, sizeof err), 0);
	assert_int_equal(timing_kernel(b200, &s, &none, &plain, err, sizeof err), 0);
	assert_int_equal(t.cls, RIDGE_TIME_GROUPED_GEMM);
	assert_int_equal(plain.cls, RIDGE_TIME_GEMM);
	assert_true(t.grouped_as_gemm);
	assert_true(t.memory_efficiency.value == plain.memory_efficiency.value &&
		    t.fixed_cost.value == plain.fixed_cost.value);
	assert_true(strstr(t.memory_efficiency.source, "no grouped_gemm fit") != NULL);
	assert_int_not_equal(t.memory_efficiency.provenance, RIDGE_PROVENANCE_MEASURED);
}

/* An fp8 shape's library GEMM is its own class, gemm_fp8: the H200 entry's
 * measured compute efficiency (0.8217) where the entry has one, with the gemm
 * class's memory efficiency and fixed cost as the slot says; the B200's sourced
 * one (rule P of validation/timing_transfer.py); the gemm class's terms, said
 * as transferred, where it has none (RTX 5090). A bf16 shape stays gemm, and a
 * gemm what-if reaches an fp8 GEMM unless one names gemm_fp8. */
static void test_gemm_fp8_class(void **state)
{
	(void)state;
	struct ridge_kernel_shape s = {
		.kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_FP8, .m = 8192, .n = 8192, .k = 8192
	};
	struct ridge_kernel_time t, bf;
	char err[256];
	assert_int_equal(timing_shape_class(&s), RIDGE_TIME_GEMM_FP8);
	assert_int_equal(timing_kernel(test_gpu("h200-sxm"), &s, NULL, &t, err, sizeof err), 0);
	assert_int_equal(t.cls, RIDGE_TIME_GEMM_FP8);
	assert_true(t.compute_efficiency.value == 0.8217 && t.memory_efficiency.value == 0.7647 &&
		    t.fixed_cost.value == 9.31e-6);
	assert_int_equal(t.compute_efficiency.provenance, RIDGE_PROVENANCE_MEASURED);
	assert_int_equal(t.memory_efficiency.provenance, RIDGE_PROVENANCE_TRANSFERRED);
	/* 2 x 8192^3 at 1978.9 TFLOP/s, its tiles' quantization, / 0.8217 + 9.31 us */
	assert_close(t.predicted_time_s, t.quantized_compute_time_s / 0.8217 + 9.31e-6, 1e-15);
	struct ridge_kernel_shape b = s;
	b.dtype = RIDGE_BF16;
	assert_int_equal(timing_shape_class(&b), RIDGE_TIME_GEMM);
	assert_int_equal(timing_kernel(test_gpu("h200-sxm"), &b, NULL, &bf, err, sizeof err), 0);
	assert_int_equal(bf.cls, RIDGE_TIME_GEMM);
	assert_true(bf.compute_efficiency.value == 0.8593);

	assert_int_equal(timing_kernel(test_gpu("b200"), &s, NULL, &t, err, sizeof err), 0);
	assert_int_equal(t.cls, RIDGE_TIME_GEMM_FP8);
	assert_true(t.compute_efficiency.value == 0.7976 && t.memory_efficiency.value == 0.7647);
	assert_int_equal(t.compute_efficiency.provenance, RIDGE_PROVENANCE_SOURCED);

	const struct ridge_gpu *rtx = test_gpu("rtx-5090");
	struct ridge_kernel_time plain;
	assert_int_equal(timing_kernel(rtx, &s, NULL, &t, err, sizeof err), 0);
	assert_int_equal(timing_kernel(rtx, &b, NULL, &plain, err, sizeof err), 0);
	assert_int_equal(t.cls, RIDGE_TIME_GEMM_FP8);
	assert_true(t.compute_efficiency.value == plain.compute_efficiency.value &&
		    t.memory_efficiency.value == plain.memory_efficiency.value);
	assert_non_null(strstr(t.compute_efficiency.source, "no gemm_fp8 fit"));
	assert_int_equal(t.compute_efficiency.provenance, RIDGE_PROVENANCE_TRANSFERRED);

	struct ridge_timing_overrides ov;
	memset(&ov, 0, sizeof ov);
	assert_int_equal(timing_parse_overrides("gemm=0.5", false, &ov, err, sizeof err), 0);
	struct ridge_timing_options o = { .impl = RIDGE_ATTENTION_DEFAULT, .overrides = &ov };
	assert_int_equal(timing_kernel(test_gpu("h200-sxm"), &s, &o, &t, err, sizeof err), 0);
	assert_true(t.compute_efficiency.value == 0.5);
	assert_int_equal(t.compute_efficiency.provenance, RIDGE_PROVENANCE_WHAT_IF);
	assert_int_equal(timing_parse_overrides("gemm=0.5,gemm_fp8=0.7", false, &ov, err, sizeof err), 0);
	assert_int_equal(timing_kernel(test_gpu("h200-sxm"), &s, &o, &t, err, sizeof err), 0);
	assert_true(t.compute_efficiency.value == 0.7);
}

/* An fp4 shape's library GEMM is gemm_fp4: the B200's sourced 0.7667 (rule P),
 * the GB200's transferred from it, the gemm class's terms on a GPU with no fit
 * (RTX 5090); a gemm what-if reaches it unless one names gemm_fp4. */
static void test_gemm_fp4_class(void **state)
{
	(void)state;
	struct ridge_kernel_shape s = {
		.kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_FP4, .m = 8192, .n = 8192, .k = 8192
	};
	struct ridge_kernel_time t, plain;
	char err[256];
	assert_int_equal(timing_shape_class(&s), RIDGE_TIME_GEMM_FP4);
	assert_int_equal(timing_kernel(test_gpu("b200"), &s, NULL, &t, err, sizeof err), 0);
	assert_int_equal(t.cls, RIDGE_TIME_GEMM_FP4);
	assert_true(t.compute_efficiency.value == 0.7667 && t.fixed_cost.value == 9.31e-6);
	assert_int_equal(t.compute_efficiency.provenance, RIDGE_PROVENANCE_SOURCED);
	assert_close(t.predicted_time_s, t.quantized_compute_time_s / 0.7667 + 9.31e-6, 1e-15);
	assert_int_equal(timing_kernel(test_gpu("gb200"), &s, NULL, &t, err, sizeof err), 0);
	assert_int_equal(t.compute_efficiency.provenance, RIDGE_PROVENANCE_TRANSFERRED);

	const struct ridge_gpu *rtx = test_gpu("rtx-5090");
	struct ridge_kernel_shape b = s;
	b.dtype = RIDGE_BF16;
	assert_int_equal(timing_kernel(rtx, &s, NULL, &t, err, sizeof err), 0);
	assert_int_equal(timing_kernel(rtx, &b, NULL, &plain, err, sizeof err), 0);
	assert_int_equal(t.cls, RIDGE_TIME_GEMM_FP4);
	assert_true(t.compute_efficiency.value == plain.compute_efficiency.value);
	assert_non_null(strstr(t.compute_efficiency.source, "no gemm_fp4 fit"));

	struct ridge_timing_overrides ov;
	memset(&ov, 0, sizeof ov);
	struct ridge_timing_options o = { .impl = RIDGE_ATTENTION_DEFAULT, .overrides = &ov };
	assert_int_equal(timing_parse_overrides("gemm=0.5", false, &ov, err, sizeof err), 0);
	assert_int_equal(timing_kernel(test_gpu("b200"), &s, &o, &t, err, sizeof err), 0);
	assert_true(t.compute_efficiency.value == 0.5);
	assert_int_equal(timing_parse_overrides("gemm=0.5,gemm_fp4=0.6", false, &ov, err, sizeof err), 0);
	assert_int_equal(timing_kernel(test_gpu("b200"), &s, &o, &t, err, sizeof err), 0);
	assert_true(t.compute_efficiency.value == 0.6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_predict_formula),
		cmocka_unit_test(test_fit_recovers_terms),
		cmocka_unit_test(test_fit_one_size_holds_fixed_cost),
		cmocka_unit_test(test_fit_refuses_bad_samples),
		cmocka_unit_test(test_gemm_prediction),
		cmocka_unit_test(test_skinny_gemm_tile),
		cmocka_unit_test(test_token_tile),
		cmocka_unit_test(test_grouped_quantization),
		cmocka_unit_test(test_unknown_class_is_the_floor),
		cmocka_unit_test(test_attention_impl),
		cmocka_unit_test(test_rebase_keeps_rate),
		cmocka_unit_test(test_in_stream_fixed_cost),
		cmocka_unit_test(test_inherit_missing_classes),
		cmocka_unit_test(test_decode_attention_impls),
		cmocka_unit_test(test_norm_rows_bind),
		cmocka_unit_test(test_norm_wide_rows_cta_stream),
		cmocka_unit_test(test_softmax_kernel_by_width),
		cmocka_unit_test(test_grouped_gemm_class),
		cmocka_unit_test(test_gemm_fp8_class),
		cmocka_unit_test(test_gemm_fp4_class),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
