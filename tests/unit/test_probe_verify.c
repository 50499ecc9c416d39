/* kernels/rand.h and kernels/verify.c: the inputs the device generates are
 * numbers the host can decode exactly, and the fragment layouts used to
 * check the matrix kernels cover every output element exactly once. */
#include "test_util.h"

#include <math.h>
#include <string.h>

#include "../../kernels/kernels.h"
#include "../../kernels/rand.h"
#include "../../kernels/verify.h"

static void test_decoders_exact(void **state)
{
	(void)state;
	static const struct {
		int kind;
		unsigned bits;
		double value;
	} cases[] = {
		{ 0, 0x3F800000u, 1.0 }, { 0, 0xBE000000u, -0.125 }, { 0, 0x3FC00000u, 1.5 },
		{ 1, 0x3F80u, 1.0 },     { 1, 0xC0A0u, -5.0 },       { 1, 0x3E20u, 0.15625 },
		{ 2, 0x3C00u, 1.0 },     { 2, 0xB800u, -0.5 },       { 2, 0x0001u, 0x1p-24 }, /* smallest subnormal */
		{ 2, 0x7BFFu, 65504.0 }, { 3, 0x38u, 1.0 },          { 3, 0xB0u, -0.5 },
		{ 3, 0x7Eu, 448.0 },     { 3, 0x01u, 0x1p-9 },       { 3, 0x3Fu, 1.875 },
		{ 4, 0x3Cu, 1.0 },       { 4, 0xB8u, -0.5 },         { 4, 0x7Bu, 57344.0 }, /* e5m2's largest normal */
		{ 4, 0x01u, 0x1p-16 },   { 4, 0x3Fu, 1.75 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		double v = cases[i].kind == 0   ? kern_decode_f32(cases[i].bits)
			   : cases[i].kind == 1 ? kern_decode_bf16((uint16_t)cases[i].bits)
			   : cases[i].kind == 2 ? kern_decode_f16((uint16_t)cases[i].bits)
			   : cases[i].kind == 3 ? kern_decode_e4m3((uint8_t)cases[i].bits)
						: kern_decode_e5m2((uint8_t)cases[i].bits);
		if (v != cases[i].value)
			fail_msg("case %zu: %.17g != %.17g", i, v, cases[i].value);
	}
}

/* Every generated value is normal, nonzero and in +-[1/8, 2); both signs occur. */
static void test_generated_ranges(void **state)
{
	(void)state;
	static const enum kern_elem types[] = {
		KERN_ELEM_F32,  KERN_ELEM_F32_POSITIVE, KERN_ELEM_BF16, KERN_ELEM_F16,
		KERN_ELEM_E4M3, KERN_ELEM_F64,          KERN_ELEM_E5M2, KERN_ELEM_TF32
	};
	for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
		int negative = 0, distinct_low = 0;
		double prev = 0;
		for (uint64_t i = 0; i < 4096; i++) {
			double v = kern_value(types[t], 12345, i);
			double a = fabs(v);
			if (!(a >= 0.125 && a < 2))
				fail_msg("type %zu index %llu: %g out of range", t, (unsigned long long)i, v);
			negative += v < 0;
			distinct_low += v != prev;
			prev = v;
		}
		if (types[t] == KERN_ELEM_F32_POSITIVE)
			assert_int_equal(negative, 0);
		else
			assert_true(negative > 1500 && negative < 2600);
		assert_true(distinct_low > 3000); /* random, not constant */
	}
	/* A different seed gives different inputs. */
	assert_true(kern_value(KERN_ELEM_F32, 1, 0) != kern_value(KERN_ELEM_F32, 2, 0));
	/* tf32: exact in 10 mantissa bits; int8: odd, -15..15, never zero, all 16 values. */
	int seen[32] = { 0 };
	for (uint64_t i = 0; i < 4096; i++) {
		assert_int_equal(kern_bits_tf32(7, i) & 0x1FFFu, 0);
		double v = kern_value(KERN_ELEM_S8, 7, i);
		assert_true(v >= -15 && v <= 15 && fmod(fabs(v), 2) == 1);
		seen[(int)v + 15]++;
	}
	for (int v = -15; v <= 15; v += 2)
		assert_true(seen[v + 15] > 0);
}

/* The FMA-chain multipliers are exact in their type and in range. */
static void test_chain_multipliers(void **state)
{
	(void)state;
	for (uint64_t i = 0; i < 2000; i++) {
		float b32 = kern_chain_b_f32(7, i);
		double exact = 1.0 - (1.0 + (double)(kern_hash(7, i) >> 20) * 0x1p-12) * 0x1p-12;
		assert_true((double)b32 == exact);
		assert_true(exact >= 1 - 0x1p-11 && exact < 1 - 0x1p-12);
		assert_true(kern_chain_b_f64(7, i) == exact);
		float b16 = kern_chain_b_f16(7, i);
		double e16 = 1.0 - (1.0 + (double)(kern_hash(7, i) >> 29) * 0x1p-3) * 0x1p-5;
		assert_true((double)b16 == e16);
		/* 11 significant bits: representable in fp16. */
		assert_true(ldexp(e16, 11) == floor(ldexp(e16, 11)));
	}
}

/* The closed form against the recurrence itself in long double. */
static void test_chain_reference(void **state)
{
	(void)state;
	static const struct {
		double x0, b, c;
		long n;
	} cases[] = { { 1.5, 0.99951171875, 0.001, 8192 }, { 0.2, 0.5, 1, 50 }, { 1.875, 0.96875, 0.75, 8192 } };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		long double x = cases[i].x0;
		for (long k = 0; k < cases[i].n; k++)
			x = x * cases[i].b + cases[i].c;
		assert_close(kern_chain_reference(cases[i].x0, cases[i].b, cases[i].c, cases[i].n), (double)x, 1e-12);
	}
}

/* mma.m16n8k16: A 16x16 from 32 lanes x 4 registers x 2 halves, B 16x8 from
 * 32 x 2 x 2, C 16x8 from 32 x 4: each element exactly once. */
static void test_mma_layout_covers(void **state)
{
	(void)state;
	int a[16][16] = { { 0 } }, b[16][8] = { { 0 } }, c[16][8] = { { 0 } };
	for (int lane = 0; lane < 32; lane++) {
		for (int reg = 0; reg < 4; reg++) {
			int r, k;
			for (int half = 0; half < 2; half++) {
				kern_mma_a_coords(lane, reg, half, &r, &k);
				a[r][k]++;
			}
			kern_mma_c_coords(lane, reg, &r, &k);
			c[r][k]++;
		}
		for (int reg = 0; reg < 2; reg++)
			for (int half = 0; half < 2; half++) {
				int k, n;
				kern_mma_b_coords(lane, reg, half, &k, &n);
				b[k][n]++;
			}
	}
	for (int i = 0; i < 16; i++)
		for (int j = 0; j < 16; j++) {
			assert_int_equal(a[i][j], 1);
			if (j < 8) {
				assert_int_equal(b[i][j], 1);
				assert_int_equal(c[i][j], 1);
			}
		}
	/* Spot values from the PTX ISA figure: lane 5 (group 1, thread 1) a2 holds A[1][10..11]. */
	int r, k;
	kern_mma_a_coords(5, 2, 0, &r, &k);
	assert_true(r == 1 && k == 10);
}

static void test_wgmma_and_mfma_layouts_cover(void **state)
{
	(void)state;
	static int d[64][256];
	memset(d, 0, sizeof d);
	for (int t = 0; t < 128; t++)
		for (int reg = 0; reg < 128; reg++) {
			int r, c;
			kern_wgmma_d_coords(t, reg, &r, &c);
			assert_true(r >= 0 && r < 64 && c >= 0 && c < 256);
			d[r][c]++;
		}
	for (int r = 0; r < 64; r++)
		for (int c = 0; c < 256; c++)
			assert_int_equal(d[r][c], 1);
	int m[32][32] = { { 0 } };
	for (int lane = 0; lane < 64; lane++)
		for (int reg = 0; reg < 16; reg++) {
			int r, c;
			kern_mfma_d_coords(lane, reg, &r, &c);
			m[r][c]++;
		}
	for (int r = 0; r < 32; r++)
		for (int c = 0; c < 32; c++)
			assert_int_equal(m[r][c], 1);
}

static void test_error_measure(void **state)
{
	(void)state;
	struct kern_error e = { 0, 0, 0 };
	kern_error_add(&e, 3, 4);
	kern_error_add(&e, 4, 3);
	assert_close(kern_error_value(&e), sqrt(2.0 / 25.0), 1e-15);
	kern_error_add(&e, NAN, 1);
	assert_true(isinf(kern_error_value(&e)));
	struct kern_error z = { 0, 0, 0 };
	kern_error_add(&z, 0, 0);
	assert_true(kern_error_value(&z) == 0);
}

static void test_names(void **state)
{
	(void)state;
	for (int i = 0; i < KERN_COUNT; i++) {
		const char *n = kern_id_name((enum kern_id)i);
		assert_non_null(n);
		for (int j = 0; j < i; j++)
			assert_true(strcmp(n, kern_id_name((enum kern_id)j)) != 0);
	}
	assert_null(kern_id_name(KERN_COUNT));
	assert_true(kern_id_counts_bytes(KERN_SMEM) && !kern_id_counts_bytes(KERN_FMA_FP32));
	assert_true(kern_id_is_launch(KERN_GRAPH_NODE) && !kern_id_is_launch(KERN_GEMM_FP8));
	assert_true(kern_id_is_latency(KERN_LATENCY_HOPS) && !kern_id_is_latency(KERN_LAUNCH_ASYNC));
	assert_true(kern_id_is_wgmma(KERN_WGMMA_BF16) && kern_id_is_wgmma(KERN_WGMMA_SP_E4M3) &&
		    !kern_id_is_wgmma(KERN_MMA_BF16) && !kern_id_is_wgmma(KERN_LATENCY));
	assert_true(kern_id_counts_bytes(KERN_COPY_FIXED) && !kern_id_counts_bytes(KERN_LATENCY));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decoders_exact),    cmocka_unit_test(test_generated_ranges),
		cmocka_unit_test(test_chain_multipliers), cmocka_unit_test(test_chain_reference),
		cmocka_unit_test(test_mma_layout_covers), cmocka_unit_test(test_wgmma_and_mfma_layouts_cover),
		cmocka_unit_test(test_error_measure),     cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
