/* Tensor-core alignment, tile/wave quantization, SwiGLU sizing and the GEMMs
 * of a decoder config: exact values, and brute-force recomputations. */
#include "test_util.h"

#include <string.h>

static struct ridge_align_rule rule_for(const struct ridge_gpu *gpu, enum ridge_dtype dtype)
{
	struct ridge_align_rule rule;
	char err[200] = "";
	if (align_rule(gpu, dtype, &rule, err, sizeof err) != 0)
		fail_msg("align_rule: %s", err);
	return rule;
}

/* The multiples per dtype on an sm_90 GPU: 16 bytes required, 128 recommended. */
static void test_rule_multiples(void **state)
{
	(void)state;
	static const struct {
		enum ridge_dtype dtype;
		long long required, recommended;
		bool matrix;
	} cases[] = {
		{ RIDGE_FP64, 2, 16, true },   { RIDGE_FP32, 4, 32, false },  { RIDGE_TF32, 4, 32, true },
		{ RIDGE_BF16, 8, 64, true },   { RIDGE_FP16, 8, 64, true },   { RIDGE_FP8, 16, 128, true },
		{ RIDGE_INT8, 16, 128, true }, { RIDGE_FP4, 32, 256, false },
	};
	const struct ridge_gpu *h100 = test_gpu("h100-sxm");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ridge_align_rule r = rule_for(h100, cases[i].dtype);
		if (r.required_multiple != cases[i].required || r.recommended_multiple != cases[i].recommended ||
		    r.matrix_path != cases[i].matrix)
			fail_msg("%s: got %lld/%lld matrix %d, expected %lld/%lld matrix %d",
				 ridge_dtype_name(cases[i].dtype), r.required_multiple, r.recommended_multiple,
				 r.matrix_path, cases[i].required, cases[i].recommended, cases[i].matrix);
		/* The multiples are byte counts over the element size. */
		assert_true((double)r.required_multiple * ridge_dtype_bytes(cases[i].dtype) == 16.0);
		assert_true((double)r.recommended_multiple * ridge_dtype_bytes(cases[i].dtype) == 128.0);
		assert_true((r.path_note == NULL) == r.matrix_path);
	}
	/* fp32 on H100 has CUDA cores but no tensor cores; fp4 has nothing. */
	assert_true(rule_for(h100, RIDGE_FP32).any_path);
	assert_false(rule_for(h100, RIDGE_FP4).any_path);
}

/* Before compute capability 8.0 the guide gives no larger multiple; AMD takes
 * the NVIDIA byte rules by analogy and says so. */
static void test_rule_by_architecture(void **state)
{
	(void)state;
	struct ridge_gpu volta = *test_gpu("h100-sxm");
	volta.cc_major = 7;
	volta.cc_minor = 0;
	struct ridge_align_rule r = rule_for(&volta, RIDGE_FP16);
	assert_int_equal(r.required_multiple, 8);
	assert_int_equal(r.recommended_multiple, 8);
	assert_int_equal(r.recommended_bytes, 16);

	struct ridge_gpu amd = *test_gpu("h100-sxm");
	amd.vendor = RIDGE_VENDOR_AMD;
	amd.cc_major = 0;
	r = rule_for(&amd, RIDGE_BF16);
	assert_int_equal(r.required_multiple, 8);
	assert_int_equal(r.recommended_multiple, 64);
	assert_non_null(strstr(r.basis, "analogy"));

	struct ridge_gpu no_fp8 = *test_gpu("h100-sxm");
	no_fp8.peak[RIDGE_FP8].has_matrix = false;
	r = rule_for(&no_fp8, RIDGE_FP8);
	assert_false(r.matrix_path);
	assert_non_null(r.path_note);
}

/* cuBLAS "Tensor Core Usage" (cuBLAS >= 11.0), the reference: on the
 * column-major call the fast kernels need
 *   (op_A == N ? m : k), (op_B == N ? k : n), m, lda, ldb, ldc
 * each x element size % 16 == 0; FP8 must meet them; cublasLtMatmul's FP8
 * kernels on Ada/Hopper take only TN. Row-major F.linear (Y = X W^T, X [M,K],
 * W [N,K]) is the call TN with m = N, n = M, k = K, lda = ldb = K, ldc = N:
 * worked by hand below. */
static void test_gemm_rule(void **state)
{
	(void)state;
	const struct ridge_gpu *h100 = test_gpu("h100-sxm");
	struct ridge_gemm_tensor_rule r;
	char err[300];

	/* TN, M = 8191 tokens: m = 4096, n = 8191, k = 4096: n enters no condition. */
	assert_int_equal(
		align_gemm_rule(h100, RIDGE_BF16, RIDGE_GEMM_LAYOUT_LINEAR, 8191, 4096, 4096, &r, err, sizeof err), 0);
	assert_true(r.call.trans_a && !r.call.trans_b);
	assert_true(r.call.m == 4096 && r.call.n == 8191 && r.call.k == 4096);
	assert_true(r.call.lda == 4096 && r.call.ldb == 4096 && r.call.ldc == 4096);
	assert_true(r.aligned && r.tensor_cores && r.severity == RIDGE_ALIGN_OK);
	for (int i = 0; i < RIDGE_GEMM_CONDITIONS; i++)
		assert_true(r.conditions[i].dim != 'M');

	/* TN, N = 4095: m and ldc fail (4095 x 2 = 8190 bytes); still tensor cores. */
	assert_int_equal(
		align_gemm_rule(h100, RIDGE_BF16, RIDGE_GEMM_LAYOUT_LINEAR, 4096, 4095, 4096, &r, err, sizeof err), 0);
	int failing = 0;
	for (int i = 0; i < RIDGE_GEMM_CONDITIONS; i++)
		failing += !r.conditions[i].ok;
	assert_int_equal(failing, 2);
	assert_true(!r.conditions[2].ok && !r.conditions[5].ok); /* m [C], ldc */
	assert_true(!r.aligned && r.tensor_cores && r.severity == RIDGE_ALIGN_ERROR);
	assert_non_null(strstr(r.reason, "N=4095 (cuBLAS m [C], ldc) is not a multiple of 8"));

	/* TN, K = 8184 = 8 x 1023: 16-byte aligned, not 128: a warning. */
	assert_int_equal(
		align_gemm_rule(h100, RIDGE_BF16, RIDGE_GEMM_LAYOUT_LINEAR, 8192, 8192, 8184, &r, err, sizeof err), 0);
	assert_true(r.aligned && r.severity == RIDGE_ALIGN_WARNING);

	/* matmul: NN with A = B [K,N] (lda = N), B = X (ldb = K). */
	assert_int_equal(
		align_gemm_rule(h100, RIDGE_BF16, RIDGE_GEMM_LAYOUT_MATMUL, 7, 4096, 4096, &r, err, sizeof err), 0);
	assert_true(!r.call.trans_a && !r.call.trans_b && r.call.lda == 4096 && r.call.ldb == 4096);
	assert_true(r.aligned);

	/* fp8: K = 4088 (not a multiple of 16): required, so no tensor cores. */
	assert_int_equal(
		align_gemm_rule(h100, RIDGE_FP8, RIDGE_GEMM_LAYOUT_LINEAR, 4096, 4096, 4088, &r, err, sizeof err), 0);
	assert_true(r.required && !r.aligned && !r.tensor_cores);
	assert_non_null(strstr(r.reason, "required for fp8"));
	/* fp8 NN on sm_90 (and sm_89): no kernel; on sm_100: one. */
	assert_int_equal(
		align_gemm_rule(h100, RIDGE_FP8, RIDGE_GEMM_LAYOUT_MATMUL, 4096, 4096, 4096, &r, err, sizeof err), 0);
	assert_true(r.aligned && !r.layout_ok && !r.tensor_cores);
	assert_int_equal(align_gemm_rule(test_gpu("l40s"), RIDGE_FP8, RIDGE_GEMM_LAYOUT_MATMUL, 4096, 4096, 4096, &r,
					 err, sizeof err),
			 0);
	assert_false(r.layout_ok);
	assert_int_equal(align_gemm_rule(test_gpu("b200"), RIDGE_FP8, RIDGE_GEMM_LAYOUT_MATMUL, 4096, 4096, 4096, &r,
					 err, sizeof err),
			 0);
	assert_true(r.layout_ok && r.tensor_cores);
	/* bf16 misaligned is no requirement: tensor cores, slower kernels. */
	assert_int_equal(
		align_gemm_rule(h100, RIDGE_BF16, RIDGE_GEMM_LAYOUT_MATMUL, 4096, 4096, 4095, &r, err, sizeof err), 0);
	assert_true(!r.required && !r.aligned && r.tensor_cores);
	/* No matrix rate: never tensor cores. */
	assert_int_equal(align_gemm_rule(h100, RIDGE_FP32, RIDGE_GEMM_LAYOUT_LINEAR, 64, 64, 64, &r, err, sizeof err),
			 0);
	assert_true(r.aligned && !r.tensor_cores);
	/* Out of range. */
	assert_int_equal(align_gemm_rule(h100, RIDGE_BF16, RIDGE_GEMM_LAYOUT_LINEAR, 0, 64, 64, &r, err, sizeof err),
			 -1);
	assert_non_null(strstr(err, "M = 0"));
}

/* Brute force: in both layouts the rule is "N and K multiples of 16 bytes",
 * whatever M is, for every dtype with a matrix rate. */
static void test_gemm_rule_brute_force(void **state)
{
	(void)state;
	const struct ridge_gpu *h100 = test_gpu("h100-sxm");
	const enum ridge_dtype dtypes[] = { RIDGE_FP64, RIDGE_TF32, RIDGE_BF16, RIDGE_FP8, RIDGE_INT8 };
	char err[300];
	for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++) {
		long long q = (long long)(16 / ridge_dtype_bytes(dtypes[d]));
		for (int layout = 0; layout < 2; layout++)
			for (long long m = 1; m <= 33; m += 4)
				for (long long n = 1; n <= 40; n++)
					for (long long k = 1; k <= 40; k += 3) {
						struct ridge_gemm_tensor_rule r;
						assert_int_equal(align_gemm_rule(h100, dtypes[d],
										 (enum ridge_gemm_layout)layout, m, n,
										 k, &r, err, sizeof err),
								 0);
						bool expect = n % q == 0 && k % q == 0;
						if (r.aligned != expect)
							fail_msg("%s layout %d %lld x %lld x %lld: aligned %d",
								 ridge_dtype_name(dtypes[d]), layout, m, n, k,
								 r.aligned);
					}
	}
}

static void test_check_dims(void **state)
{
	(void)state;
	static const struct {
		enum ridge_dtype dtype;
		long long value, suggested, suggested_recommended;
		enum ridge_align_severity severity;
	} cases[] = {
		/* textbook §7.2.3: d_model 6000 is a multiple of 8 (and 16) but not of 64 */
		{ RIDGE_BF16, 6000, 6000, 6016, RIDGE_ALIGN_WARNING },
		/* textbook: 8/3 x 8192 = 21,845 is odd; 21,888 = 342 x 64 is the textbook's fix */
		{ RIDGE_BF16, 21845, 21848, 21888, RIDGE_ALIGN_ERROR },
		{ RIDGE_BF16, 21888, 21888, 21888, RIDGE_ALIGN_OK },
		{ RIDGE_BF16, 22016, 22016, 22016, RIDGE_ALIGN_OK },
		/* issue 8's probe shapes: K = 8192, 8191, 8184 */
		{ RIDGE_BF16, 8192, 8192, 8192, RIDGE_ALIGN_OK },
		{ RIDGE_BF16, 8191, 8192, 8192, RIDGE_ALIGN_ERROR },
		{ RIDGE_BF16, 8184, 8184, 8192, RIDGE_ALIGN_WARNING },
		{ RIDGE_BF16, 32001, 32008, 32064, RIDGE_ALIGN_ERROR },
		{ RIDGE_BF16, 1, 8, 64, RIDGE_ALIGN_ERROR },
		{ RIDGE_FP16, 128256, 128256, 128256, RIDGE_ALIGN_OK },
		{ RIDGE_FP8, 6000, 6000, 6016, RIDGE_ALIGN_WARNING },
		{ RIDGE_FP8, 120, 128, 128, RIDGE_ALIGN_ERROR },
		{ RIDGE_FP8, 21888, 21888, 21888, RIDGE_ALIGN_OK },
		{ RIDGE_FP8, 21856, 21856, 21888, RIDGE_ALIGN_WARNING },
		{ RIDGE_TF32, 4100, 4100, 4128, RIDGE_ALIGN_WARNING },
		{ RIDGE_FP64, 3, 4, 16, RIDGE_ALIGN_ERROR },
		{ RIDGE_INT8, RIDGE_ALIGN_MAX_DIM, RIDGE_ALIGN_MAX_DIM + 1, RIDGE_ALIGN_MAX_DIM + 1,
		  RIDGE_ALIGN_ERROR },
	};
	const struct ridge_gpu *h100 = test_gpu("h100-sxm");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ridge_align_rule r = rule_for(h100, cases[i].dtype);
		struct ridge_align_dim d;
		char err[200] = "";
		if (align_check_dim(&r, cases[i].value, &d, err, sizeof err) != 0)
			fail_msg("%lld: %s", cases[i].value, err);
		if (d.suggested != cases[i].suggested || d.suggested_recommended != cases[i].suggested_recommended ||
		    d.severity != cases[i].severity)
			fail_msg("%s %lld: got %lld/%lld %s, expected %lld/%lld %s", ridge_dtype_name(cases[i].dtype),
				 cases[i].value, d.suggested, d.suggested_recommended, align_severity_name(d.severity),
				 cases[i].suggested, cases[i].suggested_recommended,
				 align_severity_name(cases[i].severity));
	}
}

/* Every value 1..3000 against a search for the next multiple. */
static void test_check_dims_brute_force(void **state)
{
	(void)state;
	struct ridge_align_rule r = rule_for(test_gpu("h100-sxm"), RIDGE_BF16);
	for (long long v = 1; v <= 3000; v++) {
		struct ridge_align_dim d;
		char err[200];
		assert_int_equal(align_check_dim(&r, v, &d, err, sizeof err), 0);
		long long up8 = v, up64 = v;
		while (up8 % 8)
			up8++;
		while (up64 % 64)
			up64++;
		assert_true(d.suggested == up8);
		assert_true(d.suggested_recommended == up64);
		enum ridge_align_severity want = up8 != v    ? RIDGE_ALIGN_ERROR
						 : up64 != v ? RIDGE_ALIGN_WARNING
							     : RIDGE_ALIGN_OK;
		assert_int_equal(d.severity, want);
	}
}

static void test_check_dim_range(void **state)
{
	(void)state;
	struct ridge_align_rule r = rule_for(test_gpu("h100-sxm"), RIDGE_BF16);
	struct ridge_align_dim d;
	char err[200] = "";
	assert_int_equal(align_check_dim(&r, 0, &d, err, sizeof err), -1);
	assert_non_null(strstr(err, "out of range"));
	assert_int_equal(align_check_dim(&r, -8, &d, err, sizeof err), -1);
	assert_int_equal(align_check_dim(&r, RIDGE_ALIGN_MAX_DIM + 1, &d, err, sizeof err), -1);
	assert_true(align_round_up(0, 8) == -1);
	assert_true(align_round_up(8, 0) == -1);
	assert_true(align_round_up(9223372036854775807LL, 2) == -1);
}

static struct ridge_align_tiling tiling(long long m, long long n, int tm, int tn, int ctas, int sms)
{
	struct ridge_align_tile tile = { tm, tn, ctas };
	struct ridge_align_tiling t;
	char err[200] = "";
	if (align_tiling(m, n, &tile, sms, &t, err, sizeof err) != 0)
		fail_msg("tiling %lldx%lld: %s", m, n, err);
	return t;
}

/* The textbook's SwiGLU case on 132 SMs (H100/H200) with 128x128 tiles. */
static void test_tiling_seed_cases(void **state)
{
	(void)state;
	struct ridge_align_tiling t = tiling(4096, 21845, 128, 128, 1, 132);
	assert_true(t.tiles_m == 32 && t.tiles_n == 171 && t.tiles == 5472);
	assert_true(t.slots == 132 && t.waves == 42 && t.last_wave_tiles == 60);
	assert_true(t.waves_exact == 5472.0 / 132.0);
	assert_true(t.tile_efficiency == 21845.0 / 21888.0);
	assert_true(t.wave_efficiency == 5472.0 / 5544.0);
	assert_true(t.efficiency == (4096.0 * 21845.0) / (42.0 * 132.0 * 128.0 * 128.0));
	assert_close(t.efficiency, t.tile_efficiency * t.wave_efficiency, 1e-15);

	/* 21,888 fills its last tile column: same tiles and waves, no tile loss. */
	struct ridge_align_tiling f = tiling(4096, 21888, 128, 128, 1, 132);
	assert_true(f.tiles == 5472 && f.waves == 42);
	assert_true(f.tile_efficiency == 1.0);
	assert_true(f.wave_efficiency == t.wave_efficiency);

	/* d_model 6000: 47 tile columns, the last 112 wide; 1504 tiles = 11.4 waves. */
	struct ridge_align_tiling d = tiling(4096, 6000, 128, 128, 1, 132);
	assert_true(d.tiles_n == 47 && d.tiles == 1504 && d.waves == 12 && d.last_wave_tiles == 52);
	assert_true(d.tile_efficiency == 6000.0 / 6016.0);
	assert_true(d.wave_efficiency == 1504.0 / 1584.0);

	/* Exactly one full wave: no loss at all. */
	struct ridge_align_tiling w = tiling(128 * 12, 128 * 11, 128, 128, 1, 132);
	assert_true(w.tiles == 132 && w.waves == 1 && w.efficiency == 1.0);
	/* One tile more: a second wave with one tile in it. */
	struct ridge_align_tiling w2 = tiling(128 * 133, 128, 128, 128, 1, 132);
	assert_true(w2.waves == 2 && w2.last_wave_tiles == 1);
	assert_true(w2.wave_efficiency == 133.0 / 264.0);
}

/* Counts tiles by walking the output and waves by handing tiles to slots. */
static void test_tiling_brute_force(void **state)
{
	(void)state;
	static const struct {
		long long m, n;
		int tm, tn, ctas, sms;
	} cases[] = {
		{ 4096, 21845, 128, 128, 1, 132 }, { 1, 1, 128, 128, 1, 132 },        { 4097, 4096, 128, 256, 1, 132 },
		{ 1000, 3000, 64, 64, 2, 108 },    { 8192, 28672, 256, 128, 1, 148 }, { 513, 700, 128, 64, 3, 58 },
		{ 32001, 4096, 128, 128, 1, 304 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ridge_align_tiling t =
			tiling(cases[i].m, cases[i].n, cases[i].tm, cases[i].tn, cases[i].ctas, cases[i].sms);
		long long rows = 0, cols = 0, covered_rows = 0, covered_cols = 0;
		for (long long r = 0; r < cases[i].m; r += cases[i].tm, rows++)
			covered_rows += cases[i].tm;
		for (long long c = 0; c < cases[i].n; c += cases[i].tn, cols++)
			covered_cols += cases[i].tn;
		long long tiles = rows * cols, slots = (long long)cases[i].sms * cases[i].ctas;
		long long waves = 0, left = tiles, last = 0;
		while (left > 0) {
			last = left < slots ? left : slots;
			left -= last;
			waves++;
		}
		assert_true(t.tiles_m == rows && t.tiles_n == cols && t.tiles == tiles);
		assert_true(t.waves == waves && t.last_wave_tiles == last);
		assert_close(t.tile_efficiency,
			     (double)cases[i].m * (double)cases[i].n / ((double)covered_rows * (double)covered_cols),
			     1e-15);
		assert_close(t.wave_efficiency, (double)tiles / ((double)waves * (double)slots), 1e-15);
		assert_close(t.efficiency, t.tile_efficiency * t.wave_efficiency, 1e-14);
		assert_true(t.efficiency > 0 && t.efficiency <= 1);
	}
}

static void test_tiling_bad_input(void **state)
{
	(void)state;
	struct ridge_align_tiling t;
	char err[200];
	struct ridge_align_tile ok = { 128, 128, 1 }, zero = { 0, 128, 1 }, huge = { 128, 8192, 1 },
				noctas = { 128, 128, 0 };
	assert_int_equal(align_tiling(0, 10, &ok, 132, &t, err, sizeof err), -1);
	assert_int_equal(align_tiling(10, RIDGE_ALIGN_MAX_DIM + 1, &ok, 132, &t, err, sizeof err), -1);
	assert_int_equal(align_tiling(10, 10, &zero, 132, &t, err, sizeof err), -1);
	assert_int_equal(align_tiling(10, 10, &huge, 132, &t, err, sizeof err), -1);
	assert_int_equal(align_tiling(10, 10, &noctas, 132, &t, err, sizeof err), -1);
	assert_int_equal(align_tiling(10, 10, &ok, 0, &t, err, sizeof err), -1);
	/* The largest legal case does not overflow. */
	assert_int_equal(align_tiling(RIDGE_ALIGN_MAX_DIM, RIDGE_ALIGN_MAX_DIM, &ok, 132, &t, err, sizeof err), 0);
	assert_true(t.efficiency > 0.99 && t.efficiency <= 1);
}

/* Published Llama intermediate sizes from their params.json. */
static void test_swiglu(void **state)
{
	(void)state;
	static const struct {
		long long d;
		bool has_mult;
		double mult;
		long long multiple_of, base, intermediate;
	} cases[] = {
		{ 8192, false, 0, 256, 21845, 22016 },    /* the textbook's 8/3 x 8192 */
		{ 6000, false, 0, 256, 16000, 16128 },    /* the textbook's d_model */
		{ 4096, false, 0, 256, 10922, 11008 },    /* Llama-2-7B */
		{ 5120, false, 0, 256, 13653, 13824 },    /* Llama-2-13B */
		{ 8192, true, 1.3, 4096, 21845, 28672 },  /* Llama-2-70B */
		{ 4096, true, 1.3, 1024, 10922, 14336 },  /* Llama-3-8B */
		{ 8192, true, 1.3, 1024, 21845, 28672 },  /* Llama-3-70B */
		{ 16384, true, 1.2, 4096, 43690, 53248 }, /* Llama-3.1-405B */
		{ 8192, false, 0, 64, 21845, 21888 },     /* the textbook's fix, as a multiple_of */
		{ 8192, false, 0, 1, 21845, 21845 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ridge_align_swiglu s;
		char err[200] = "";
		if (align_swiglu(cases[i].d, cases[i].has_mult, cases[i].mult, cases[i].multiple_of, &s, err,
				 sizeof err))
			fail_msg("%lld: %s", cases[i].d, err);
		if (s.base != cases[i].base || s.intermediate != cases[i].intermediate)
			fail_msg("d %lld: got %lld -> %lld, expected %lld -> %lld", cases[i].d, s.base, s.intermediate,
				 cases[i].base, cases[i].intermediate);
		assert_true(s.intermediate % cases[i].multiple_of == 0);
		assert_true(s.intermediate >= s.scaled && s.intermediate - s.scaled < cases[i].multiple_of);
	}
	struct ridge_align_swiglu s;
	char err[200];
	/* 1.3 x 10922 = 14198.6 truncates to 14198, as Python's int() does. */
	assert_int_equal(align_swiglu(4096, true, 1.3, 1024, &s, err, sizeof err), 0);
	assert_true(s.scaled == 14198);
	assert_int_equal(align_swiglu(0, false, 0, 256, &s, err, sizeof err), -1);
	assert_int_equal(align_swiglu(4096, false, 0, 0, &s, err, sizeof err), -1);
	assert_int_equal(align_swiglu(4096, true, 0, 256, &s, err, sizeof err), -1);
	assert_int_equal(align_swiglu(4096, true, -1.3, 256, &s, err, sizeof err), -1);
	assert_int_equal(align_swiglu(1, true, 0.1, 256, &s, err, sizeof err), -1); /* rounds to 0 */
}

static struct ridge_align_model llama3_8b(void)
{
	struct ridge_align_model m = { 0 };
	m.hidden_size = 4096;
	m.intermediate_size = 14336;
	m.num_attention_heads = 32;
	m.num_key_value_heads = 8;
	m.has_num_key_value_heads = true;
	m.vocab_size = 128256;
	m.num_hidden_layers = 32;
	return m;
}

static void test_model_gemms(void **state)
{
	(void)state;
	struct ridge_align_model m = llama3_8b();
	char err[200] = "";
	assert_int_equal(align_model_resolve(&m, err, sizeof err), 0);
	assert_true(m.head_dim == 128 && m.num_key_value_heads == 8);
	struct ridge_align_gemm g[RIDGE_GEMM_COUNT];
	assert_int_equal(align_model_gemms(&m, 4096, g, err, sizeof err), 0);
	static const struct {
		const char *name;
		long long n, k, count;
	} want[RIDGE_GEMM_COUNT] = {
		{ "q_proj", 4096, 4096, 32 },     { "k_proj", 1024, 4096, 32 },     { "v_proj", 1024, 4096, 32 },
		{ "o_proj", 4096, 4096, 32 },     { "gate_proj", 14336, 4096, 32 }, { "up_proj", 14336, 4096, 32 },
		{ "down_proj", 4096, 14336, 32 }, { "lm_head", 128256, 4096, 1 },
	};
	double total = 0;
	for (int i = 0; i < RIDGE_GEMM_COUNT; i++) {
		assert_string_equal(g[i].name, want[i].name);
		assert_true(g[i].m == 4096 && g[i].n == want[i].n && g[i].k == want[i].k &&
			    g[i].count == want[i].count);
		assert_true(g[i].flops == 2.0 * 4096 * (double)want[i].n * (double)want[i].k * (double)want[i].count);
		total += g[i].flops;
	}
	/* 2 x tokens x (non-embedding linear parameters + LM head): the 6N rule's forward third. */
	double params = 32.0 * (4096.0 * 4096 * 2 + 4096.0 * 1024 * 2 + 3 * 4096.0 * 14336) + 4096.0 * 128256;
	assert_true(total == 2.0 * 4096 * params);
}

static void test_model_defaults_and_errors(void **state)
{
	(void)state;
	char err[300] = "";
	/* No num_key_value_heads: multi-head attention. */
	struct ridge_align_model m = llama3_8b();
	m.has_num_key_value_heads = false;
	m.num_key_value_heads = 0;
	assert_int_equal(align_model_resolve(&m, err, sizeof err), 0);
	assert_true(m.num_key_value_heads == 32);

	/* Explicit head_dim wider than hidden / heads (Gemma-style). */
	m = llama3_8b();
	m.hidden_size = 3072;
	m.num_attention_heads = 16;
	m.num_key_value_heads = 16;
	m.head_dim = 256;
	m.has_head_dim = true;
	assert_int_equal(align_model_resolve(&m, err, sizeof err), 0);
	struct ridge_align_gemm g[RIDGE_GEMM_COUNT];
	assert_int_equal(align_model_gemms(&m, 1, g, err, sizeof err), 0);
	assert_true(g[RIDGE_GEMM_Q].n == 4096 && g[RIDGE_GEMM_O].k == 4096 && g[RIDGE_GEMM_O].n == 3072);

	/* head_dim cannot be derived. */
	m = llama3_8b();
	m.hidden_size = 6000;
	m.num_attention_heads = 7;
	m.num_key_value_heads = 7;
	assert_int_equal(align_model_resolve(&m, err, sizeof err), -1);
	assert_non_null(strstr(err, "head_dim"));

	/* GQA needs heads to be a multiple of KV heads. */
	m = llama3_8b();
	m.num_key_value_heads = 6;
	assert_int_equal(align_model_resolve(&m, err, sizeof err), -1);
	assert_non_null(strstr(err, "num_key_value_heads"));

	/* Every key must be positive; the message names it. */
	m = llama3_8b();
	m.vocab_size = 0;
	assert_int_equal(align_model_resolve(&m, err, sizeof err), -1);
	assert_non_null(strstr(err, "vocab_size"));
	m = llama3_8b();
	m.num_hidden_layers = -2;
	assert_int_equal(align_model_resolve(&m, err, sizeof err), -1);
	assert_non_null(strstr(err, "num_hidden_layers"));

	m = llama3_8b();
	assert_int_equal(align_model_resolve(&m, err, sizeof err), 0);
	assert_int_equal(align_model_gemms(&m, 0, g, err, sizeof err), -1);
	assert_non_null(strstr(err, "tokens"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule_multiples),
		cmocka_unit_test(test_rule_by_architecture),
		cmocka_unit_test(test_gemm_rule),
		cmocka_unit_test(test_gemm_rule_brute_force),
		cmocka_unit_test(test_check_dims),
		cmocka_unit_test(test_check_dims_brute_force),
		cmocka_unit_test(test_check_dim_range),
		cmocka_unit_test(test_tiling_seed_cases),
		cmocka_unit_test(test_tiling_brute_force),
		cmocka_unit_test(test_tiling_bad_input),
		cmocka_unit_test(test_swiglu),
		cmocka_unit_test(test_model_gemms),
		cmocka_unit_test(test_model_defaults_and_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
