/* The roofline model: ridge points from the hwdb, placement, bounds, time
 * floors, the hierarchical roofline, and the textbook's worked numbers
 * (the textbook's §7.2) pinned exactly. */
#include "test_util.h"

#include <math.h>
#include <string.h>

static struct ridge_roofline_ceiling ceiling(const char *gpu, enum ridge_dtype dtype, enum ridge_peak_kind kind)
{
	struct ridge_roofline_ceiling c;
	char err[300];
	if (roofline_ceiling(test_gpu(gpu), dtype, kind, false, RIDGE_LEVEL_HBM, &c, err, sizeof err) != 0)
		fail_msg("ceiling %s %s: %s", gpu, ridge_dtype_name(dtype), err);
	return c;
}

/* Ridge points are peak / bandwidth of the hwdb's numbers, exactly. */
static void test_ridge_points(void **state)
{
	(void)state;
	static const struct {
		const char *gpu;
		enum ridge_dtype dtype;
		enum ridge_peak_kind kind;
		double peak, bandwidth;
		bool matrix;
	} cases[] = {
		{ "h100-sxm", RIDGE_BF16, RIDGE_PEAK_DEFAULT, 989.4e12, 3.35e12, true },
		{ "h100-sxm", RIDGE_BF16, RIDGE_PEAK_VECTOR, 133.8e12, 3.35e12, false },
		{ "h100-sxm", RIDGE_FP32, RIDGE_PEAK_DEFAULT, 66.9e12, 3.35e12, false },
		{ "h100-sxm", RIDGE_FP8, RIDGE_PEAK_DEFAULT, 1978.9e12, 3.35e12, true },
		{ "h100-sxm", RIDGE_FP64, RIDGE_PEAK_DEFAULT, 66.9e12, 3.35e12, true },
		{ "h200-sxm", RIDGE_BF16, RIDGE_PEAK_DEFAULT, 989.4e12, 4.8e12, true },
		{ "a100-sxm-80gb", RIDGE_BF16, RIDGE_PEAK_DEFAULT, 312e12, 2039e9, true },
		{ "mi300x", RIDGE_FP16, RIDGE_PEAK_DEFAULT, 1307.4e12, 5.3e12, true },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ridge_roofline_ceiling c = ceiling(cases[i].gpu, cases[i].dtype, cases[i].kind);
		assert_true(c.peak_flops == cases[i].peak);
		assert_true(c.bandwidth == cases[i].bandwidth);
		assert_true(c.ridge_point == cases[i].peak / cases[i].bandwidth);
		assert_int_equal(c.matrix, cases[i].matrix);
	}
	/* The textbook's "295 FLOP/byte": 989.4 / 3.35 = 295.343..., and 989 / 3.35 = 295.22. */
	struct ridge_roofline_ceiling c = ceiling("h100-sxm", RIDGE_BF16, RIDGE_PEAK_DEFAULT);
	assert_close(c.ridge_point, 295.34328358208955, 1e-15);
	struct ridge_roofline_ceiling seed;
	char err[200];
	assert_int_equal(roofline_ceiling_from(989e12, 3.35e12, &seed, err, sizeof err), 0);
	assert_close(seed.ridge_point, 295.22388059701493, 1e-15);
}

/* Naive FP32 GEMM 4096^3 with the textbook's traffic (2*4096^3 reads of 4 bytes). */
static void test_seed_naive_gemm(void **state)
{
	(void)state;
	const double flops = 2.0 * 4096 * 4096 * 4096, bytes = 2.0 * 4096 * 4096 * 4096 * 4;
	assert_true(flops == 137438953472.0);
	assert_true(bytes == 549755813888.0);
	char err[200];
	struct ridge_roofline_point p;

	/* Against the bf16 tensor ridge the textbook uses. */
	struct ridge_roofline_ceiling bf16 = ceiling("h100-sxm", RIDGE_BF16, RIDGE_PEAK_DEFAULT);
	assert_int_equal(roofline_place(&bf16, flops, bytes, 0, &p, err, sizeof err), 0);
	assert_true(p.intensity == 0.25);
	assert_int_equal(p.bound, RIDGE_BOUND_MEMORY);
	assert_true(p.attainable_flops == 0.25 * 3.35e12);
	assert_true(p.memory_time_s == bytes / 3.35e12);
	assert_close(p.time_floor_s, 0.16410621310089552, 1e-15); /* the textbook's 0.164 s */
	assert_close(p.headroom, 1181.3731343283582, 1e-15);      /* "1,180x below" */

	/* The textbook's compute time uses 100,000 GFLOP/s: 1.374 ms, which it rounds to
	 * 0.001 s; 0.001 / 0.164 is its 0.6%. Unrounded the ratio is 0.8375%. */
	struct ridge_roofline_ceiling hundred;
	assert_int_equal(roofline_ceiling_from(100e12, 3.35e12, &hundred, err, sizeof err), 0);
	assert_int_equal(roofline_place(&hundred, flops, bytes, 0, &p, err, sizeof err), 0);
	assert_true(p.compute_time_s == 0.00137438953472);
	assert_close(p.compute_time_s / p.memory_time_s, 0.008375, 1e-14);
	assert_close(p.attainable_flops / hundred.peak_flops, 0.008375, 1e-14);

	/* On the fp32 vector units a naive kernel really runs on: 1.252% of 66.9 T. */
	struct ridge_roofline_ceiling fp32 = ceiling("h100-sxm", RIDGE_FP32, RIDGE_PEAK_VECTOR);
	assert_int_equal(roofline_place(&fp32, flops, bytes, 0, &p, err, sizeof err), 0);
	assert_close(p.attainable_flops / fp32.peak_flops, 0.25 * 3.35 / 66.9, 1e-15);
	assert_close(p.compute_time_s, 137438953472.0 / 66.9e12, 1e-15);
}

static void test_attainable_and_bound(void **state)
{
	(void)state;
	struct ridge_roofline_ceiling c = ceiling("h100-sxm", RIDGE_BF16, RIDGE_PEAK_DEFAULT);
	static const struct {
		double intensity, attainable;
		enum ridge_bound bound;
	} cases[] = {
		{ 1, 3.35e12, RIDGE_BOUND_MEMORY },         { 100, 335e12, RIDGE_BOUND_MEMORY },
		{ 295, 295 * 3.35e12, RIDGE_BOUND_MEMORY }, { 296, 989.4e12, RIDGE_BOUND_COMPUTE },
		{ 4096, 989.4e12, RIDGE_BOUND_COMPUTE },
	};
	char err[200];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ridge_roofline_point p;
		assert_int_equal(roofline_place_intensity(&c, cases[i].intensity, &p, err, sizeof err), 0);
		assert_true(p.attainable_flops == cases[i].attainable);
		assert_int_equal(p.bound, cases[i].bound);
		assert_false(p.has_work);
	}
	/* Exactly at the ridge: both roofs meet; counted as compute-bound. */
	struct ridge_roofline_point p;
	assert_int_equal(roofline_place_intensity(&c, c.ridge_point, &p, err, sizeof err), 0);
	assert_int_equal(p.bound, RIDGE_BOUND_COMPUTE);
	assert_close(p.attainable_flops, c.peak_flops, 1e-15);
}

static void test_measured_time(void **state)
{
	(void)state;
	struct ridge_roofline_ceiling c = ceiling("h100-sxm", RIDGE_BF16, RIDGE_PEAK_DEFAULT);
	struct ridge_roofline_point p;
	char err[200];
	/* 137.4 GFLOP on 100.7 MB in 200 us: compute-bound, 687 TFLOP/s. */
	assert_int_equal(roofline_place(&c, 137438953472.0, 100663296.0, 200e-6, &p, err, sizeof err), 0);
	assert_true(p.has_time);
	assert_true(p.achieved_flops == 137438953472.0 / 200e-6);
	assert_true(p.fraction_of_attainable == p.achieved_flops / 989.4e12);
	assert_true(p.fraction_of_peak == p.fraction_of_attainable);
	assert_true(p.achieved_bandwidth == 100663296.0 / 200e-6);
	assert_true(p.fraction_of_bandwidth == p.achieved_bandwidth / 3.35e12);
	assert_true(p.time_floor_s == 137438953472.0 / 989.4e12);
}

static void test_bad_numbers(void **state)
{
	(void)state;
	struct ridge_roofline_ceiling c = ceiling("h100-sxm", RIDGE_BF16, RIDGE_PEAK_DEFAULT);
	struct ridge_roofline_point p;
	char err[200];
	const double bad[] = { 0, -1, NAN, INFINITY, -INFINITY };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(roofline_place(&c, bad[i], 1e9, 0, &p, err, sizeof err), -1);
		assert_non_null(strstr(err, "FLOP count"));
		assert_int_equal(roofline_place(&c, 1e9, bad[i], 0, &p, err, sizeof err), -1);
		assert_non_null(strstr(err, "byte count"));
		assert_int_equal(roofline_place_intensity(&c, bad[i], &p, err, sizeof err), -1);
		assert_non_null(strstr(err, "intensity"));
	}
	assert_int_equal(roofline_place(&c, 1e9, 1e9, NAN, &p, err, sizeof err), -1);
	/* 1e-300 / 1e300 underflows to 0: no intensity to place. */
	assert_int_equal(roofline_place(&c, 1e-300, 1e300, 0, &p, err, sizeof err), -1);
	struct ridge_roofline_ceiling x;
	assert_int_equal(roofline_ceiling_from(0, 1e12, &x, err, sizeof err), -1);
	assert_int_equal(roofline_ceiling_from(1e12, NAN, &x, err, sizeof err), -1);
}

static void test_missing_rates_and_levels(void **state)
{
	(void)state;
	struct ridge_roofline_ceiling c;
	char err[300];
	/* fp8 on an A100: no hardware path. */
	assert_int_equal(roofline_ceiling(test_gpu("a100-sxm-80gb"), RIDGE_FP8, RIDGE_PEAK_DEFAULT, false,
					  RIDGE_LEVEL_HBM, &c, err, sizeof err),
			 -1);
	assert_non_null(strstr(err, "a100-sxm-80gb has no fp8 rate"));
	/* No vector fp8 on an H100; no sparse fp64. */
	assert_int_equal(roofline_ceiling(test_gpu("h100-sxm"), RIDGE_FP8, RIDGE_PEAK_VECTOR, false, RIDGE_LEVEL_HBM,
					  &c, err, sizeof err),
			 -1);
	assert_int_equal(roofline_ceiling(test_gpu("h100-sxm"), RIDGE_FP64, RIDGE_PEAK_DEFAULT, true, RIDGE_LEVEL_HBM,
					  &c, err, sizeof err),
			 -1);
	/* Sparse bf16 doubles the rate. */
	assert_int_equal(roofline_ceiling(test_gpu("h100-sxm"), RIDGE_BF16, RIDGE_PEAK_DEFAULT, true, RIDGE_LEVEL_HBM,
					  &c, err, sizeof err),
			 0);
	assert_true(c.peak_flops == 1978.9e12);
	/* Spec entries carry no L2 or shared-memory bandwidth: say so, invent nothing. */
	for (int l = RIDGE_LEVEL_L2; l < RIDGE_LEVEL_COUNT; l++) {
		assert_int_equal(roofline_ceiling(test_gpu("h100-sxm"), RIDGE_BF16, RIDGE_PEAK_DEFAULT, false,
						  (enum ridge_level)l, &c, err, sizeof err),
				 -1);
		assert_non_null(strstr(err, "a ridge-probe calibration measures it"));
	}
}

/* A calibrated GPU with inner-level bandwidths: the binding level is the one
 * that takes longest. */
static void test_hierarchy(void **state)
{
	(void)state;
	struct ridge_gpu g = *test_gpu("h100-sxm");
	g.has_l2_bandwidth = true;
	g.l2_bandwidth = 10e12;
	struct ridge_roofline_hierarchy h;
	char err[200];
	double peak = 989.4e12, flops = 137438953472.0;

	/* HBM 100 MB (29.9 us), L2 2.18 GB (218 us), compute 138.9 us: L2 binds. */
	double bytes[RIDGE_LEVEL_COUNT] = { 100663296.0, 2181038080.0, -1 };
	assert_int_equal(roofline_hierarchy(&g, peak, flops, bytes, -1, &h, err, sizeof err), 0);
	assert_int_equal(h.binding, RIDGE_LEVEL_L2);
	assert_true(h.time_floor_s == 2181038080.0 / 10e12);
	assert_true(h.levels[RIDGE_LEVEL_L2].ridge_point == peak / 10e12);
	assert_int_equal(h.levels[RIDGE_LEVEL_HBM].bound, RIDGE_BOUND_COMPUTE);
	assert_int_equal(h.levels[RIDGE_LEVEL_L2].bound, RIDGE_BOUND_MEMORY);
	assert_string_equal(roofline_binding_name(&h), "L2");
	assert_false(h.levels[RIDGE_LEVEL_SMEM].has_bytes);

	/* Small L2 traffic: compute binds. */
	bytes[RIDGE_LEVEL_L2] = 1e9;
	assert_int_equal(roofline_hierarchy(&g, peak, flops, bytes, -1, &h, err, sizeof err), 0);
	assert_int_equal(h.binding, -1);
	assert_true(h.time_floor_s == flops / peak);
	assert_string_equal(roofline_binding_name(&h), "compute");

	/* Shared-memory bytes on an NVIDIA entry without a measured bandwidth:
	 * placed at the derived 128 B per clock per SM (132 x 128 x 1.98 GHz =
	 * 33.45 TB/s); 5 GB take 149.5 us, more than compute: it binds. */
	bytes[RIDGE_LEVEL_SMEM] = 5e9;
	assert_int_equal(roofline_hierarchy(&g, peak, flops, bytes, -1, &h, err, sizeof err), 0);
	assert_true(h.levels[RIDGE_LEVEL_SMEM].placed && h.levels[RIDGE_LEVEL_SMEM].derived);
	assert_true(h.levels[RIDGE_LEVEL_SMEM].bandwidth == 128.0 * 132 * 1.98e9);
	assert_int_equal(h.binding, RIDGE_LEVEL_SMEM);
	assert_non_null(h.levels[RIDGE_LEVEL_SMEM].why);
	double derived;
	assert_true(roofline_smem_bandwidth_derived(&g, &derived, NULL) && derived == 33454080000000.0);
	/* A measured bandwidth wins; other vendors get none: reported, not placed. */
	g.has_smem_bandwidth = true;
	g.smem_bandwidth = 50e12;
	assert_int_equal(roofline_hierarchy(&g, peak, flops, bytes, -1, &h, err, sizeof err), 0);
	assert_true(h.levels[RIDGE_LEVEL_SMEM].bandwidth == 50e12 && !h.levels[RIDGE_LEVEL_SMEM].derived);
	struct ridge_gpu amd = *test_gpu("mi300x");
	assert_int_equal(roofline_hierarchy(&amd, peak, flops, bytes, -1, &h, err, sizeof err), 0);
	assert_true(h.levels[RIDGE_LEVEL_SMEM].has_bytes);
	assert_false(h.levels[RIDGE_LEVEL_SMEM].placed);
	assert_non_null(h.levels[RIDGE_LEVEL_SMEM].why);
	assert_false(roofline_smem_bandwidth_derived(&amd, &derived, NULL));

	double none[RIDGE_LEVEL_COUNT] = { -1, -1, -1 };
	assert_int_equal(roofline_hierarchy(&g, peak, flops, none, -1, &h, err, sizeof err), -1);
	double zero[RIDGE_LEVEL_COUNT] = { 0, -1, -1 };
	assert_int_equal(roofline_hierarchy(&g, peak, flops, zero, -1, &h, err, sizeof err), -1);
}

/* The HBM bandwidth by read/write mix: the measured points, straight lines
 * between them, the read-only rate at 0, the last point held past it. */
static void test_hbm_bandwidth_mix(void **state)
{
	(void)state;
	struct ridge_gpu g = *test_gpu("h200-sxm");
	/* A spec entry has no mix: the datasheet bandwidth at any fraction, and
	 * the hierarchy records no write share. */
	assert_true(roofline_hbm_bandwidth(&g, 0.5) == g.memory_bandwidth);
	assert_true(roofline_hbm_bandwidth(&g, -1) == g.memory_bandwidth);
	{
		struct ridge_roofline_hierarchy h;
		char err[200];
		double bytes[RIDGE_LEVEL_COUNT] = { 3e9, -1, -1 };
		assert_int_equal(roofline_hierarchy(&g, 64.7e12, 1e9, bytes, 1e9, &h, err, sizeof err), 0);
		assert_true(h.levels[RIDGE_LEVEL_HBM].bandwidth == g.memory_bandwidth);
		assert_true(h.levels[RIDGE_LEVEL_HBM].write_fraction == -1);
	}

	g.memory_bandwidth = 4.5e12;
	g.has_triad_bandwidth = true;
	g.triad_bandwidth = 4.1e12;
	g.has_copy_bandwidth = true;
	g.copy_bandwidth = 3.9e12;
	/* No read_bandwidth: reads only runs at memory.bandwidth. */
	assert_true(roofline_hbm_bandwidth(&g, 0) == 4.5e12);
	assert_true(roofline_hbm_bandwidth(&g, 1.0 / 3.0) == 4.1e12);
	assert_true(roofline_hbm_bandwidth(&g, 0.5) == 3.9e12);
	/* Halfway between reads only and triad; between triad and copy. */
	assert_true(fabs(roofline_hbm_bandwidth(&g, 1.0 / 6.0) - 4.3e12) < 1e-3);
	assert_true(fabs(roofline_hbm_bandwidth(&g, 5.0 / 12.0) - 4.0e12) < 1e-3);
	/* No write-only point: copy's rate is held past 1/2. */
	assert_true(roofline_hbm_bandwidth(&g, 1) == 3.9e12);
	/* With it: a straight line from copy to writes only. */
	g.has_write_bandwidth = true;
	g.write_bandwidth = 4.3e12;
	assert_true(fabs(roofline_hbm_bandwidth(&g, 0.75) - 4.1e12) < 1e-3);
	assert_true(roofline_hbm_bandwidth(&g, 1) == 4.3e12);
	/* A measured read-only rate replaces memory.bandwidth at 0. */
	g.has_read_bandwidth = true;
	g.read_bandwidth = 4.4e12;
	assert_true(roofline_hbm_bandwidth(&g, 0) == 4.4e12);
	/* Unknown fractions: the ceiling. */
	assert_true(roofline_hbm_bandwidth(&g, 1.5) == 4.5e12);
	assert_true(roofline_hbm_bandwidth(&g, NAN) == 4.5e12);

	/* The hierarchy reads the HBM bandwidth at the kernel's write share:
	 * c = a + b moves 2 reads and 1 write (1/3): the triad rate. */
	struct ridge_roofline_hierarchy h;
	char err[200];
	double bytes[RIDGE_LEVEL_COUNT] = { 3 * 1073741824.0, -1, -1 };
	assert_int_equal(roofline_hierarchy(&g, 64.7e12, 268435456.0, bytes, 1073741824.0, &h, err, sizeof err), 0);
	assert_true(h.levels[RIDGE_LEVEL_HBM].write_fraction == 1.0 / 3.0);
	assert_true(h.levels[RIDGE_LEVEL_HBM].bandwidth == 4.1e12);
	assert_true(h.time_floor_s == 3 * 1073741824.0 / 4.1e12);
	/* Unknown writes: the ceiling. */
	assert_int_equal(roofline_hierarchy(&g, 64.7e12, 268435456.0, bytes, -1, &h, err, sizeof err), 0);
	assert_true(h.levels[RIDGE_LEVEL_HBM].bandwidth == 4.5e12);
	assert_true(h.levels[RIDGE_LEVEL_HBM].write_fraction == -1);
}

static void test_names(void **state)
{
	(void)state;
	enum ridge_level l;
	assert_true(roofline_level_parse("L2", &l) && l == RIDGE_LEVEL_L2);
	assert_true(roofline_level_parse("hbm", &l) && l == RIDGE_LEVEL_HBM);
	assert_true(roofline_level_parse("smem", &l) && l == RIDGE_LEVEL_SMEM);
	assert_false(roofline_level_parse("l3", &l));
	assert_string_equal(roofline_bound_name(RIDGE_BOUND_MEMORY), "memory");
	assert_string_equal(roofline_bound_name(RIDGE_BOUND_COMPUTE), "compute");
	assert_null(roofline_level_name(RIDGE_LEVEL_COUNT));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ridge_points),
		cmocka_unit_test(test_seed_naive_gemm),
		cmocka_unit_test(test_attainable_and_bound),
		cmocka_unit_test(test_measured_time),
		cmocka_unit_test(test_bad_numbers),
		cmocka_unit_test(test_missing_rates_and_levels),
		cmocka_unit_test(test_hierarchy),
		cmocka_unit_test(test_hbm_bandwidth_mix),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests_name("roofline", tests, NULL, NULL);
}
