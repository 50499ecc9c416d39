/* The L2-aware DRAM traffic of tiled GEMMs (intensity_gemm_l2): the
 * textbook's 128x128x64 case worked by hand, the closed-form re-read counts
 * against a brute-force walk of the waves, and the replay of every ncu
 * measurement of DRAM reads recorded on the H200
 * (tests/fixtures/ncu_h200_gemm_dram.csv; the table is validation/README.md,
 * "L2-aware GEMM traffic"). */
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct ridge_kernel_cost l2_cost(const struct ridge_gpu *gpu, struct ridge_kernel_shape s)
{
	struct ridge_kernel_cost c;
	char err[300];
	if (intensity_kernel_on(gpu, &s, &c, err, sizeof err) != 0)
		fail_msg("%s: %s", intensity_kernel_name(s.kernel), err);
	return c;
}

/* The textbook's §7.2.4 on the H100 SXM (132 SMs, 50 MiB L2): 4096^3 bf16,
 * 128 x 128 tiles, one CTA per SM. 32 x 32 tiles, raster along N: a wave of
 * 132 CTAs touches all 32 B panels (32 MiB) and up to 6 A panels of 1 MiB:
 * 38 MiB > 25 MiB (half of L2, two partitions), so neither stays. B: 4 waves
 * of 132 + ... = 8 waves (1024 / 132 = 7.76), each reading all of B: 8 x B.
 * A: rows touched summed over the waves = 8 + 32 - 1 - floor(7 / (32 /
 * gcd(32, 132) = 8)) = 39: 39/32 x A. HBM = 39/32 x 32 MiB + 8 x 32 MiB + 32
 * MiB (C) = 40,894,464 + 268,435,456 + 33,554,432 = 342,884,352 B: 400.8
 * FLOP/B, above the 295.3 ridge, so compute-bound from the spec sheet. */
static void test_textbook_tile128(void **state)
{
	(void)state;
	const struct ridge_gpu *h100 = test_gpu("h100-sxm");
	struct ridge_kernel_shape s = { .kernel = RIDGE_KERNEL_GEMM_TILED,
					.dtype = RIDGE_BF16,
					.m = 4096,
					.n = 4096,
					.k = 4096,
					.tile_m = 128,
					.tile_n = 128,
					.tile_k = 64 };
	struct ridge_kernel_cost c = l2_cost(h100, s);
	assert_true(c.l2.modelled);
	assert_true(c.traffic == RIDGE_TRAFFIC_L2AWARE);
	assert_true(c.l2.ctas_per_sm == 1 && c.l2.wave_ctas == 132 && c.l2.waves == 8);
	assert_true(c.l2.l2_capacity == 26214400);
	assert_true(c.l2.wave_footprint == 2.0 * 4096 * (6 * 128 + 4096));
	assert_false(c.l2.a_resident);
	assert_false(c.l2.b_resident);
	assert_true(c.l2.a_reads == 39.0 / 32 && c.l2.b_reads == 8);
	assert_true(c.l2.hbm_bytes == 342884352);
	assert_true(c.bytes == c.l2.hbm_bytes && c.bytes == c.read_bytes + c.write_bytes);
	assert_true(c.l2.l2_traffic == c.tiled_bytes && c.tiled_bytes == 2181038080.0);
	assert_true(c.flops / c.bytes > 989.4e12 / 3.35e12);

	double levels[RIDGE_LEVEL_COUNT];
	char err[300];
	assert_int_equal(intensity_levels(&s, &c, levels, err, sizeof err), 0);
	assert_true(levels[RIDGE_LEVEL_HBM] == 342884352 && levels[RIDGE_LEVEL_L2] == 2181038080.0);

	/* --traffic tiled keeps the no-cache count; --traffic compulsory every matrix once. */
	s.traffic = RIDGE_TRAFFIC_TILED;
	c = l2_cost(h100, s);
	assert_true(c.bytes == 2181038080.0 && c.traffic == RIDGE_TRAFFIC_TILED && c.l2.hbm_bytes == 342884352);
	s.traffic = RIDGE_TRAFFIC_COMPULSORY;
	c = l2_cost(h100, s);
	assert_true(c.bytes == 100663296 && c.traffic == RIDGE_TRAFFIC_COMPULSORY);
}

/* Panels that fit: 2048^3 fp32 with 32 x 32 tiles on the H200 (2 CTAs of
 * 1024 threads per SM, 264 CTAs): a wave touches B (16 MiB) and 6 A panels,
 * 16.75 MiB < 30 MiB: compulsory. The library gemm without a tile is not
 * modelled (cuBLAS picks its tile per shape). */
static void test_resident_and_not_modelled(void **state)
{
	(void)state;
	const struct ridge_gpu *h200 = test_gpu("h200-sxm");
	struct ridge_kernel_shape s = {
		.kernel = RIDGE_KERNEL_GEMM_TILED, .dtype = RIDGE_FP32, .m = 2048, .n = 2048, .k = 2048
	};
	struct ridge_kernel_cost c = l2_cost(h200, s);
	assert_true(c.l2.ctas_per_sm == 2 && c.l2.wave_ctas == 264);
	assert_true(c.l2.a_resident && c.l2.b_resident && c.l2.a_reads == 1 && c.l2.b_reads == 1);
	assert_true(c.l2.hbm_bytes == c.compulsory_bytes);
	s.kernel = RIDGE_KERNEL_GEMM;
	c = l2_cost(h200, s);
	assert_false(c.l2.modelled);
	assert_true(c.bytes == c.compulsory_bytes);
	/* An entry without an L2 size is left alone. */
	struct ridge_gpu no_l2 = *h200;
	no_l2.l2_bytes = 0;
	s.kernel = RIDGE_KERNEL_GEMM_TILED;
	c = l2_cost(&no_l2, s);
	assert_false(c.l2.modelled);
	assert_true(c.traffic == RIDGE_TRAFFIC_TILED);
}

/* The closed forms against a walk of the waves: with a 1-byte L2 nothing
 * stays, and each wave reads every row and column panel it touches once. */
static void test_closed_form_matches_walk(void **state)
{
	(void)state;
	struct ridge_gpu gpu = *test_gpu("h200-sxm");
	gpu.l2_bytes = 1;
	for (int sms = 1; sms <= 9; sms += 2) {
		gpu.sm_count = sms;
		for (int tm = 1; tm <= 7; tm++) {
			for (int tn = 1; tn <= 7; tn++) {
				struct ridge_kernel_shape s = { .kernel = RIDGE_KERNEL_GEMM_TILED,
								.dtype = RIDGE_BF16,
								.m = tm * 128.0,
								.n = tn * 128.0,
								.k = 64,
								.tile_m = 128,
								.tile_n = 128,
								.tile_k = 64 };
				struct ridge_kernel_cost c = l2_cost(&gpu, s);
				int w = sms, tiles = tm * tn;
				if (tiles <= w)
					continue; /* one wave: compulsory */
				long rows = 0, cols = 0;
				for (int start = 0; start < tiles; start += w) {
					char seen_r[8] = { 0 }, seen_c[8] = { 0 };
					for (int t = start; t < start + w && t < tiles; t++) {
						rows += !seen_r[t / tn];
						cols += !seen_c[t % tn];
						seen_r[t / tn] = seen_c[t % tn] = 1;
					}
				}
				if (fabs(c.l2.a_reads - (double)rows / tm) > 1e-12 ||
				    fabs(c.l2.b_reads - (double)cols / tn) > 1e-12)
					fail_msg("%d SMs, %d x %d tiles: a %.17g vs %ld/%d, b %.17g vs %ld/%d", sms, tm,
						 tn, c.l2.a_reads, rows, tm, c.l2.b_reads, cols, tn);
			}
		}
	}
}

/* ---- the H200 measurements ---- */

struct measured {
	char kernel[160], model[16];
	enum ridge_dtype dtype;
	double m, n, k, tile_m, tile_n, dram_read;
};

static int load_fixture(struct measured *rows, int max)
{
	FILE *f = fopen("tests/fixtures/ncu_h200_gemm_dram.csv", "r");
	if (!f)
		fail_msg("cannot open tests/fixtures/ncu_h200_gemm_dram.csv");
	char line[1024];
	int count = 0;
	if (!fgets(line, sizeof line, f))
		fail_msg("empty fixture");
	while (count < max && fgets(line, sizeof line, f)) {
		struct measured *r = &rows[count];
		char dtype[16];
		if (sscanf(line, "%*[^,],%159[^,],%15[^,],%15[^,],%lf,%lf,%lf,%lf,%lf,%lf", r->kernel, r->model, dtype,
			   &r->m, &r->n, &r->k, &r->tile_m, &r->tile_n, &r->dram_read) != 9 ||
		    !ridge_dtype_parse(dtype, &r->dtype))
			fail_msg("bad fixture line: %s", line);
		count++;
	}
	fclose(f);
	return count;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Every modelled row: predicted DRAM reads (HBM bytes less C's write) vs
 * ncu's dram__bytes_read.sum. Ridge's own kernels (the raster the model
 * assumes) within 5%, except the tiled 4096^3 fp32, whose B panels measured
 * one re-read per row of tiles instead of one per wave (-49%; the naive
 * kernel of the same grid measured the per-wave count within 0.1%); cuBLAS
 * never below its compulsory reads and never more than twice the
 * measurement; the median |error| over all rows below 3%. */
static void test_h200_replay(void **state)
{
	(void)state;
	const struct ridge_gpu *h200 = test_gpu("h200-sxm");
	struct measured rows[32];
	int count = load_fixture(rows, 32);
	double errors[32];
	int modelled = 0;
	for (int i = 0; i < count; i++) {
		const struct measured *r = &rows[i];
		enum ridge_kernel kernel;
		if (strcmp(r->model, "none") == 0)
			continue; /* split-K CUTLASS 2.x kernel: outside the model (validation/README.md) */
		assert_true(intensity_kernel_parse(r->model, &kernel));
		struct ridge_kernel_shape s = { .kernel = kernel, .dtype = r->dtype, .m = r->m, .n = r->n, .k = r->k };
		if (kernel == RIDGE_KERNEL_GEMM || kernel == RIDGE_KERNEL_GEMM_TILED) {
			s.tile_m = r->tile_m;
			s.tile_n = r->tile_n;
			s.tile_k = 64;
		}
		struct ridge_kernel_cost c = l2_cost(h200, s);
		/* A GEMV streams its matrix once: compulsory, no L2 model. */
		assert_true(c.l2.modelled == (kernel != RIDGE_KERNEL_GEMV));
		double e = ridge_dtype_bytes(r->dtype);
		double predicted = (c.l2.modelled ? c.l2.hbm_bytes : c.compulsory_bytes) - e * r->m * r->n;
		double error = (predicted - r->dram_read) / r->dram_read;
		errors[modelled++] = fabs(error);
		bool ridge_kernel = kernel == RIDGE_KERNEL_GEMM_NAIVE || kernel == RIDGE_KERNEL_GEMM_TILED;
		if (ridge_kernel && kernel == RIDGE_KERNEL_GEMM_TILED && r->m == 4096) {
			if (!(error > -0.55 && error < -0.45))
				fail_msg("tiled 4096: %.1f%%", 100 * error);
		} else if (ridge_kernel && fabs(error) > 0.05) {
			fail_msg("%s %.17g^3: predicted %.17g, measured %.17g (%.1f%%)", r->kernel, r->m, predicted,
				 r->dram_read, 100 * error);
		} else if (!ridge_kernel) {
			assert_true(predicted >= c.compulsory_bytes - e * r->m * r->n);
			if (!(error < 1.0 && error > -0.05))
				fail_msg("%s: %.1f%%", r->kernel, 100 * error);
		}
	}
	assert_true(modelled >= 12);
	qsort(errors, (size_t)modelled, sizeof errors[0], by_value);
	double median = modelled % 2 ? errors[modelled / 2] : (errors[modelled / 2 - 1] + errors[modelled / 2]) / 2;
	assert_true(median < 0.03);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_textbook_tile128),
		cmocka_unit_test(test_resident_and_not_modelled),
		cmocka_unit_test(test_closed_form_matches_walk),
		cmocka_unit_test(test_h200_replay),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
