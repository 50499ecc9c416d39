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

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

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
	/* The library GEMM: 16 x 8 tiles of 128 x 256 fit one wave of 132, so
	 * its model reads every tensor once. */
	s.kernel = RIDGE_KERNEL_GEMM;
	c = l2_cost(h200, s);
	assert_true(c.l2.modelled && c.l2.library && c.l2.waves == 1 && c.l2.drift_factor == 1);
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

/* The naive kernel's access pattern (struct ridge_naive_gemm) on a small
 * shape, worked by hand. fp32 64^3 on the H200 (warps of 32): 64 rows x 2
 * warps = 128 warps; per k each loads A[row][k] (one broadcast) and 32 floats
 * of B (128 B: one line, 4 sectors), and stores its 32 outputs once: 128 x
 * (64 x 2 + 1) = 16,512 wavefronts of 128 B = 2,113,536 B at L1; sectors
 * 128 x (64 x (32 + 128) + 128) = 1,327,104 B; L2 each block's rows of A
 * (64 x 64 x 4 B x 2 column blocks = 32,768), columns of B (2 x 2 blocks x 64
 * x 128 B = 32,768) and C (16,384): 81,920 B. */
static void test_naive_access_pattern(void **state)
{
	(void)state;
	const struct ridge_gpu *h200 = test_gpu("h200-sxm");
	struct ridge_kernel_shape s = {
		.kernel = RIDGE_KERNEL_GEMM_NAIVE, .dtype = RIDGE_FP32, .m = 64, .n = 64, .k = 64
	};
	struct ridge_kernel_cost c = l2_cost(h200, s);
	const struct ridge_naive_gemm *v = &c.naive;
	assert_true(v->modelled && v->warp_size == 32 && v->warps == 128);
	assert_true(v->a_wavefronts == 1 && v->b_wavefronts == 1 && v->c_wavefronts == 1);
	assert_true(v->l1_wavefronts == 16512 && v->l1_bytes == 2113536);
	assert_true(v->b_sector_bytes == 128 && v->l1_sector_bytes == 1327104);
	assert_true(v->l2_bytes == 81920 && c.l2.l2_traffic == v->l2_bytes);
	/* One wave (4 blocks): DRAM sees each matrix once, and that is `bytes`. */
	assert_true(c.traffic == RIDGE_TRAFFIC_L2AWARE && c.bytes == 3 * 64 * 64 * 4.0);
	double b[RIDGE_LEVEL_COUNT];
	char err[300];
	assert_int_equal(intensity_levels(&s, &c, b, err, sizeof err), 0);
	assert_true(b[RIDGE_LEVEL_SMEM] == 2113536 && b[RIDGE_LEVEL_L2] == 81920 && b[RIDGE_LEVEL_HBM] == c.bytes);
	/* --traffic tiled: every thread's element reads reach L2 and DRAM (the
	 * textbook's count); --traffic compulsory: DRAM each matrix once. L1 keeps
	 * the wavefronts either way. */
	s.traffic = RIDGE_TRAFFIC_TILED;
	c = l2_cost(h200, s);
	assert_int_equal(intensity_levels(&s, &c, b, err, sizeof err), 0);
	double textbook = 4.0 * (2.0 * 64 * 64 * 64 + 64 * 64);
	assert_true(c.bytes == textbook && b[RIDGE_LEVEL_HBM] == textbook && b[RIDGE_LEVEL_L2] == textbook);
	assert_true(b[RIDGE_LEVEL_SMEM] == 2113536);
	s.traffic = RIDGE_TRAFFIC_COMPULSORY;
	c = l2_cost(h200, s);
	assert_int_equal(intensity_levels(&s, &c, b, err, sizeof err), 0);
	assert_true(b[RIDGE_LEVEL_HBM] == 3 * 64 * 64 * 4.0 && b[RIDGE_LEVEL_L2] == 81920);
	s.traffic = RIDGE_TRAFFIC_DEFAULT;

	/* bf16: 32 elements are 64 B, still one line and one wavefront, but two
	 * sectors (64 B); the broadcast of A costs a wavefront as before, so L1
	 * time does not halve with the bytes. */
	s.dtype = RIDGE_BF16;
	c = l2_cost(h200, s);
	assert_true(c.naive.b_wavefronts == 1 && c.naive.b_sector_bytes == 64 && c.naive.l1_bytes == 2113536);
	/* fp64: 256 B, two lines. */
	s.dtype = RIDGE_FP64;
	c = l2_cost(h200, s);
	assert_true(c.naive.b_wavefronts == 2 && c.naive.b_sector_bytes == 256);
	/* fp32 with N = 33 (rows start at every 4-byte offset): a span of 128 B
	 * starts on a line boundary 1 time in 32 (one line), else crosses one (two
	 * lines): 63/32; sectors: 4 at 1 start in 8, else 5: 39/8 x 32 B = 156 B. */
	s.dtype = RIDGE_FP32;
	s.n = 33;
	c = l2_cost(h200, s);
	assert_true(c.naive.b_wavefronts == 63.0 / 32 && c.naive.b_sector_bytes == 156);
	assert_true(c.naive.warps == 64 * 2);
	/* Wave64 (CDNA): a wavefront covers 2 rows, 2 broadcasts per k. */
	s.n = 64;
	c = l2_cost(test_gpu("mi300x"), s);
	assert_true(c.naive.warp_size == 64 && c.naive.warps == 64 && c.naive.a_wavefronts == 2);
}

/* The access pattern against ncu on the H200
 * (measurements/2026-11-30-h200-validate/ncu_h200_gemm.csv): the global load
 * requests (l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum, one wavefront
 * each here) exactly, the sectors L1 was asked for (l1tex__t_bytes.sum) within
 * 0.1 %, L2 (lts__t_bytes.sum) within 25 % (+8 % at 1024^3, -20 % at 8192^3,
 * where 69 GB also come from DRAM through L2). */
static void test_naive_against_ncu(void **state)
{
	(void)state;
	const struct ridge_gpu *h200 = test_gpu("h200-sxm");
	static const struct {
		double n, requests, l1_bytes, l2_bytes;
	} ncu[] = {
		{ 1024, 67108864, 0.005373e12, 0.252502e9 },
		{ 2048, 536870912, 0.042966e12, 2.110826e9 },
		{ 4096, 4294967296, 0.343664e12, 18.653197e9 },
		{ 8192, 34359738368, 2.749048e12, 172.353747e9 },
	};
	for (size_t i = 0; i < sizeof ncu / sizeof ncu[0]; i++) {
		double n = ncu[i].n;
		struct ridge_kernel_shape s = {
			.kernel = RIDGE_KERNEL_GEMM_NAIVE, .dtype = RIDGE_FP32, .m = n, .n = n, .k = n
		};
		struct ridge_kernel_cost c = l2_cost(h200, s);
		const struct ridge_naive_gemm *v = &c.naive;
		assert_true(v->warps * n * (v->a_wavefronts + v->b_wavefronts) == ncu[i].requests);
		if (fabs(v->l1_sector_bytes / ncu[i].l1_bytes - 1) > 1e-3 ||
		    fabs(v->l2_bytes / ncu[i].l2_bytes - 1) > 0.25)
			fail_msg("%.17g^3: L1 %.17g vs %.17g, L2 %.17g vs %.17g", n, v->l1_sector_bytes,
				 ncu[i].l1_bytes, v->l2_bytes, ncu[i].l2_bytes);
	}
}

/* The library model's wave sums against a brute-force walk of its tile order
 * (groups of 8 N-tiles, the M-tiles in turn, each with the group's N-tiles):
 * with no memory bandwidth the drift term is off and wave_bytes is exactly
 * the panels each wave touches, summed. */
static void test_library_waves_match_walk(void **state)
{
	(void)state;
	struct ridge_gpu gpu = *test_gpu("h100-sxm");
	gpu.memory_bandwidth = 0;
	for (int sms = 1; sms <= 13; sms += 3) {
		gpu.sm_count = sms;
		for (int tm = 1; tm <= 9; tm += 2) {
			for (int tn = 1; tn <= 19; tn += 3) {
				struct ridge_kernel_shape s = { .kernel = RIDGE_KERNEL_GEMM,
								.dtype = RIDGE_BF16,
								.m = tm * 128.0,
								.n = tn * 256.0,
								.k = 64 };
				struct ridge_kernel_cost c = l2_cost(&gpu, s);
				int order_m[9 * 19], order_n[9 * 19], t = 0;
				for (int g0 = 0; g0 < tn; g0 += 8)
					for (int i = 0; i < tm; i++)
						for (int j = g0; j < tn && j < g0 + 8; j++) {
							order_m[t] = i;
							order_n[t++] = j;
						}
				double panels_a = 0, panels_b = 0;
				for (int w = 0; w < t; w += sms) {
					bool seen_m[9] = { 0 }, seen_n[19] = { 0 };
					for (int x = w; x < t && x < w + sms; x++) {
						panels_a += !seen_m[order_m[x]];
						panels_b += !seen_n[order_n[x]];
						seen_m[order_m[x]] = seen_n[order_n[x]] = true;
					}
				}
				double want = 2.0 * 64 * (panels_a * 128 + panels_b * 256);
				if (c.l2.wave_bytes != want)
					fail_msg("%d SMs, %d x %d tiles: %.17g, walk %.17g", sms, tm, tn,
						 c.l2.wave_bytes, want);
				assert_true(c.l2.drift_factor == 1);
			}
		}
	}
}

/* The library model against ncu's DRAM bytes (read + written) of torch.mm
 * (cuBLAS) on an H100: the 12 shapes of a second lease that fitted nothing
 * (measurements/2026-12-06-h100-moe-gemm/gemm_dram.csv; the fit set is
 * measurements/2026-12-06-h100-gemm-library). Median within 12 %, each
 * within 20 % but 3072 x 3072 x 49152, the one known miss (+65 %: three
 * waves, where the drift term overshoots), within 70 %. */
static void test_library_against_ncu(void **state)
{
	(void)state;
	const struct ridge_gpu *h100 = test_gpu("h100-sxm");
	static const double ncu[][4] = {
		{ 4096, 4096, 4096, 150490368 + 27782912 },       { 8192, 8192, 8192, 1249947648 + 130321664 },
		{ 12288, 12288, 12288, 4744221696 + 298574592 },  { 16384, 16384, 16384, 17584592640 + 535776768 },
		{ 6144, 6144, 24576, 2048687616 + 70509568 },     { 10240, 10240, 10240, 2456911872 + 208122880 },
		{ 20480, 5120, 5120, 1083902464 + 204130816 },    { 5120, 20480, 5120, 1090355712 + 203609344 },
		{ 3072, 3072, 49152, 943833088 + 12088320 },      { 12288, 24576, 6144, 4261326336 + 598616576 },
		{ 24576, 12288, 12288, 12431600896 + 603060736 }, { 14336, 14336, 14336, 9837050624 + 409144320 },
	};
	enum { N = sizeof ncu / sizeof ncu[0] };
	double err[N];
	for (int i = 0; i < N; i++) {
		struct ridge_kernel_shape s = {
			.kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_BF16, .m = ncu[i][0], .n = ncu[i][1], .k = ncu[i][2]
		};
		struct ridge_kernel_cost c = l2_cost(h100, s);
		assert_true(c.traffic == RIDGE_TRAFFIC_L2AWARE && fabs(c.bytes / c.l2.hbm_bytes - 1) < 1e-12);
		err[i] = fabs(c.bytes / ncu[i][3] - 1);
		double limit = ncu[i][2] == 49152 ? 0.70 : 0.20;
		if (err[i] > limit)
			fail_msg("%.0f x %.0f x %.0f: %.17g B against ncu's %.17g", ncu[i][0], ncu[i][1], ncu[i][2],
				 c.bytes, ncu[i][3]);
	}
	qsort(err, N, sizeof err[0], compare_doubles);
	assert_true((err[N / 2 - 1] + err[N / 2]) / 2 <= 0.12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_textbook_tile128),         cmocka_unit_test(test_resident_and_not_modelled),
		cmocka_unit_test(test_closed_form_matches_walk), cmocka_unit_test(test_h200_replay),
		cmocka_unit_test(test_naive_access_pattern),     cmocka_unit_test(test_naive_against_ncu),
		cmocka_unit_test(test_library_waves_match_walk), cmocka_unit_test(test_library_against_ncu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
