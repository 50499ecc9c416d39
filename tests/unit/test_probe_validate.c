/* ridge-probe --validate replayed offline: the validation run recorded on the
 * H200 (tests/fixtures/validate_h200.json) gives the same predictions with no
 * GPU. Every prediction is recomputed here from the model's formulas and the
 * calibration built from the same run; every error is (predicted - measured)
 * / measured of the median; the JSON carries the keys docs/cli.md fixes. */
#include "test_util.h"

#include <math.h>
#include <string.h>

#include "probe_fixture.h"
#include "../../probe/calib.h"
#include "../../probe/report.h"
#include "../../probe/validate.h"

static struct probe_result run;
static struct probe_report rep;
static struct ridge_gpu cal;
static struct probe_validation val;

static int setup(void **state)
{
	(void)state;
	size_t len;
	char *text = fixture_text("validate_h200.json", &len);
	char err[600];
	if (probe_result_from_json(text, len, &run, err, sizeof err) != 0)
		fail_msg("validate_h200.json does not load: %s", err);
	free(text);
	probe_report_build(&run, test_gpu("h200-sxm"), &rep);
	if (probe_calibration_build(&rep, &cal, err, sizeof err) != 0)
		fail_msg("no calibration: %s", err);
	probe_validation_build(&run, test_gpu("h200-sxm"), &cal, &val);
	return 0;
}

static const struct probe_vcase *find(const char *kernel, const char *shape)
{
	for (int i = 0; i < val.count; i++)
		if (strcmp(val.cases[i].kernel, kernel) == 0 && strcmp(val.cases[i].shape, shape) == 0)
			return &val.cases[i];
	fail_msg("no case %s %s", kernel, shape);
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The suite as it ran: every case, grouped, each with both predictions. */
static void test_cases(void **state)
{
	(void)state;
	assert_int_equal(val.count, 64);
	static const int per_group[PROBE_VG_COUNT] = { 18, 8, 17, 15, 6 };
	for (int g = 0; g < PROBE_VG_COUNT; g++)
		assert_int_equal(val.groups[g].count, per_group[g]);
	assert_true(val.has_spec && val.has_calibration);
	for (int i = 0; i < val.count; i++) {
		const struct probe_vcase *c = &val.cases[i];
		double t[KERN_MAX_REPEATS];
		memcpy(t, c->m->seconds, sizeof t);
		assert_true(c->measured_s == median(t, c->m->repeats));
		assert_true(c->spec.ok && c->cal.ok);
		assert_true(c->cal.error == (c->cal.predicted_s - c->measured_s) / c->measured_s);
		assert_true(c->spec.error == (c->spec.predicted_s - c->measured_s) / c->measured_s);
		/* Each case the model misses by more than 25 % says why. */
		if (fabs(c->cal.error) > 0.25 && !c->why[0])
			fail_msg("%s %s: error %.3f without an explanation", c->kernel, c->shape, c->cal.error);
	}
}

/* The textbook's naive GEMM: its access pattern (L1 wavefronts, each block's
 * tiles at L2, L2-aware DRAM) binds on L1 / shared memory, from the spec sheet
 * (128 B/clk per SM derived: 132 x 128 x 1.98 GHz) as from the calibration. */
static void test_naive_gemm(void **state)
{
	(void)state;
	const struct probe_vcase *c = find("v_gemm_naive", "4096x4096x4096");
	/* 4096 rows x 128 warps x (4096 x (1 broadcast of A + 1 line of B) + 1 store) wavefronts of 128 B. */
	assert_true(c->level_bytes[RIDGE_LEVEL_SMEM] == 4096.0 * 128 * (4096 * 2 + 1) * 128);
	assert_true(c->level_bytes[RIDGE_LEVEL_SMEM] == 549822922752.0);
	assert_true(c->spec.predicted_s == 549822922752.0 / (132 * 128 * 1.98e9));
	assert_string_equal(c->spec.binding, "shared memory");
	assert_true(c->level_bytes[RIDGE_LEVEL_L2] == 4.0 * (2.0 * 4096 * 4096 * 128 + 4096.0 * 4096));
	/* HBM: L2-aware (docs/models/gemm-traffic.md). 264 CTAs (2 per SM) touch 66 MiB of
	 * panels, more than half the 60 MiB L2: B once per wave, (62 x 128 + 16) /
	 * 128 = 62.125 times over 63 waves, A (63 + 127 - 3) / 128 = 187/128 times,
	 * C once: 4 x 4096^2 x 64.5859375 = 4,334,288,896 B (ncu measured 4.264 GB
	 * read + 69 MB written, tests/fixtures/ncu_h200_gemm.csv). */
	assert_true(c->level_bytes[RIDGE_LEVEL_HBM] == 4334288896.0);
	assert_string_equal(c->cal.binding, "shared memory");
	assert_true(c->cal.predicted_s == 549822922752.0 / cal.smem_bandwidth);
	/* The measured 23.9 ms is 4.8x faster than the textbook's no-reuse model
	 * (114.5 ms), 1.4x slower than the L1 floor (loads retire below one a clock). */
	assert_close(c->measured_s, 23.911e-3, 1e-3);
	assert_true(c->spec.error < -0.30 && c->spec.error > -0.33);
	assert_true(c->cal.error < -0.25 && c->cal.error > -0.35);
	/* The tiled kernel binds on shared memory too, its floor below the run
	 * (42 wavefronts per warp per tile against ncu's 50.5, retiring below one
	 * a clock): never above it. */
	c = find("v_gemm_tiled", "4096x4096x4096");
	assert_string_equal(c->cal.binding, "shared memory");
	assert_true(c->cal.error < 0 && c->cal.error > -0.40);
}

/* The L2 -> HBM cliff of the stream kernel. */
static void test_stream_cliff(void **state)
{
	(void)state;
	const struct probe_vcase *c = find("v_stream_add", "16 MiB");
	assert_string_equal(c->cal.binding, "L2");
	assert_true(c->level_bytes[RIDGE_LEVEL_HBM] < 0);
	assert_true(c->cal.predicted_s == c->level_bytes[RIDGE_LEVEL_L2] / cal.l2_bandwidth);
	c = find("v_stream_add", "256 MiB");
	assert_string_equal(c->cal.binding, "HBM");
	/* c = a + b: one write in three accesses, the measured triad's mix. */
	assert_true(cal.has_triad_bandwidth && cal.triad_bandwidth < cal.memory_bandwidth);
	assert_true(c->cal.predicted_s == c->m->work / cal.triad_bandwidth);
	assert_true(fabs(c->cal.error) < 0.10);
	/* 4 GiB: one pass of three 1.33 GiB arrays. */
	c = find("v_stream_add", "4096 MiB");
	assert_true(c->m->work == c->m->bytes);
	/* Past 4 x L2 nothing is left in L2: the triad rate predicts within 3 %.
	 * Between L2 and 2 x L2 part of the set still hits in L2 and the model,
	 * which switches to HBM at the L2 size, predicts slower than measured. */
	int far = 0, transition = 0;
	for (int i = 0; i < val.count; i++) {
		const struct probe_vcase *s = &val.cases[i];
		if (s->m->id != KERN_V_STREAM)
			continue;
		if (s->m->bytes >= 4 * cal.l2_bytes) {
			assert_true(fabs(s->cal.error) < 0.03);
			far++;
		} else if (s->m->bytes > cal.l2_bytes && s->m->bytes < 2 * cal.l2_bytes) {
			assert_true(s->cal.error > 0);
			transition++;
		}
	}
	assert_int_equal(far, 4);
	assert_int_equal(transition, 3);
}

/* Library GEMMs: compute-bound at the measured cuBLAS rate; GEMV at HBM;
 * misaligned shapes flagged by ridge align and measured slower. */
static void test_library_gemm(void **state)
{
	(void)state;
	const struct probe_vcase *c = find("gemm_bf16", "4096x4096x4096");
	assert_string_equal(c->cal.binding, "compute");
	assert_true(c->cal.predicted_s == 2.0 * 4096 * 4096 * 4096 / cal.peak[RIDGE_BF16].matrix);
	/* The ceiling is the best of the run's bf16 shapes (12288^3, 832.9
	 * TFLOP/s): the floor is below every large GEMM, 4096^3 by 3.7 %. */
	assert_true(c->cal.error < 0 && c->cal.error > -0.05);
	assert_true(cal.peak[RIDGE_BF16].matrix > 832e12 && cal.peak[RIDGE_BF16].matrix < 833e12);
	static const char *const large[] = { "2048x2048x2048", "4096x4096x4096", "8192x8192x8192", "14336x4096x4096",
					     "8192x8191x8192" };
	for (size_t i = 0; i < sizeof large / sizeof large[0]; i++)
		assert_true(find("gemm_bf16", large[i])->cal.error < 0);
	/* The spec model (compulsory traffic by default) is compute-bound too. */
	assert_string_equal(c->spec.binding, "compute");
	assert_true(c->spec.predicted_s == 2.0 * 4096 * 4096 * 4096 / 989.4e12);
	c = find("gemm_bf16", "8192x1x8192");
	assert_string_equal(c->cal.binding, "HBM");
	assert_true(c->roofline);
	/* Almost all reads: a hair below the read-only rate. */
	double gemv_bytes = (8192.0 + 8192.0 * 8192 + 8192) * 2;
	assert_true(c->cal.predicted_s == gemv_bytes / roofline_hbm_bandwidth(&cal, 8192.0 * 2 / gemv_bytes));
	c = find("gemm_bf16", "8192x8192x8191");
	assert_string_equal(c->align, "error");
	assert_true(c->penalty > 5 && !c->roofline);
	c = find("gemm_bf16", "8192x8192x8184");
	assert_string_equal(c->align, "warning");
	assert_true(c->penalty > 1 && c->penalty < 1.1);
	/* Tokens are no leading dimension: align says ok, and the time agrees. */
	c = find("gemm_bf16", "8192x8191x8192");
	assert_string_equal(c->align, "ok");
	assert_true(c->penalty < 1.05);
	c = find("gemm_bf16", "8191x8192x8192");
	assert_string_equal(c->align, "error");
	assert_true(c->penalty > 8);
}

/* Fusion: the bytes saved are the model's, and so is most of the time saved. */
static void test_fusion(void **state)
{
	(void)state;
	const struct probe_vcase *u = find("v_resnorm_unfused", "16384 x 8192");
	const struct probe_vcase *f = find("v_resnorm_fused", "16384 x 8192");
	double t = 16384.0 * 8192 * 2;
	assert_true(u->level_bytes[RIDGE_LEVEL_HBM] == 5 * t + 8192 * 2);
	assert_true(f->level_bytes[RIDGE_LEVEL_HBM] == 4 * t + 8192 * 2);
	assert_true(u->measured_s > f->measured_s);
	const struct probe_vcase *s3 = find("v_softmax_safe", "16384 x 8192");
	const struct probe_vcase *s1 = find("v_softmax_fused", "16384 x 8192");
	assert_true(s3->level_bytes[RIDGE_LEVEL_HBM] == 4 * t && s1->level_bytes[RIDGE_LEVEL_HBM] == 2 * t);
	assert_true(s3->measured_s > 1.5 * s1->measured_s);
	assert_true(val.groups[PROBE_VG_FUSED].median_abs_error < 0.10);
}

/* Launch: model/launch with the run's launch and graph-node costs. */
static void test_launch(void **state)
{
	(void)state;
	const struct probe_vcase *c = find("v_launch_eager", "1000 kernels");
	assert_true(c->cal.predicted_s == 1000 * cal.launch_overhead_s);
	assert_true(c->spec.predicted_s == 1000 * 5e-6);
	c = find("v_launch_graph", "1000 kernels");
	assert_true(c->cal.predicted_s == cal.launch_overhead_s + 1000 * cal.graph_node_s);
	assert_string_equal(c->cal.binding, "graph replay");
}

/* The target: median |error| over the roofline cases, recomputed. */
static void test_target(void **state)
{
	(void)state;
	double e[PROBE_MAX_VALIDATION];
	int n = 0;
	for (int i = 0; i < val.count; i++)
		if (val.cases[i].roofline)
			e[n++] = fabs(val.cases[i].cal.error);
	assert_int_equal(n, val.roofline_count);
	assert_int_equal(n, 44);
	assert_true(median(e, n) == val.roofline_median_abs_error);
	assert_true(val.roofline_median_abs_error <= 0.10);
	/* The spec sheet alone misses by about twice as much. */
	assert_true(val.roofline_median_abs_error_spec > 1.5 * val.roofline_median_abs_error);
}

static void test_json_keys(void **state)
{
	(void)state;
	cJSON *arr = probe_validation_json(&val);
	assert_int_equal(cJSON_GetArraySize(arr), val.count);
	static const char *const keys[] = { "kernel",           "shape",      "predicted_s", "measured_s",  "error",
					    "predicted_spec_s", "error_spec", "binding",     "binding_spec" };
	const cJSON *o;
	cJSON_ArrayForEach (o, arr) {
		for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
			if (!cJSON_GetObjectItemCaseSensitive(o, keys[k]))
				fail_msg("validation entry lacks '%s'", keys[k]);
		assert_true(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "error")));
	}
	cJSON_Delete(arr);
	cJSON *sum = probe_validation_summary_json(&val);
	const cJSON *target = cJSON_GetObjectItemCaseSensitive(sum, "target");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(target, "met")));
	cJSON_Delete(sum);
}

/* Without a calibration (ceilings not measured), spec predictions only. */
static void test_spec_only(void **state)
{
	(void)state;
	static struct probe_validation v;
	probe_validation_build(&run, test_gpu("h200-sxm"), NULL, &v);
	assert_int_equal(v.count, 64);
	assert_false(v.has_calibration);
	for (int i = 0; i < v.count; i++)
		assert_true(v.cases[i].spec.ok && !v.cases[i].cal.ok);
	/* A run without validation cases has none. */
	probe_validation_build(fixture_h200(), test_gpu("h200-sxm"), &cal, &v);
	assert_int_equal(v.count, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),        cmocka_unit_test(test_naive_gemm),
		cmocka_unit_test(test_stream_cliff), cmocka_unit_test(test_library_gemm),
		cmocka_unit_test(test_fusion),       cmocka_unit_test(test_launch),
		cmocka_unit_test(test_target),       cmocka_unit_test(test_json_keys),
		cmocka_unit_test(test_spec_only),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
