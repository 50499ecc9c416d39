/* Kernel FLOPs and bytes: every formula of docs/models/intensity.md checked against
 * numbers worked by hand, the textbook's examples pinned, tensor-core
 * eligibility, the compute path, and bad shapes. */
#include "test_util.h"

#include <math.h>
#include <string.h>

static struct ridge_kernel_cost cost_of(struct ridge_kernel_shape s)
{
	struct ridge_kernel_cost c;
	char err[300];
	if (intensity_kernel(&s, &c, err, sizeof err) != 0)
		fail_msg("%s: %s", intensity_kernel_name(s.kernel), err);
	/* Invariants every kernel keeps. */
	assert_true(c.bytes == c.read_bytes + c.write_bytes);
	assert_true(c.intensity == c.flops / c.bytes);
	assert_true(c.compulsory_bytes <= c.tiled_bytes);
	assert_true(c.traffic == intensity_default_traffic(&s) && c.traffic != RIDGE_TRAFFIC_DEFAULT);
	assert_true(c.bytes == (c.traffic == RIDGE_TRAFFIC_COMPULSORY ? c.compulsory_bytes : c.tiled_bytes));
	double sum = 0;
	for (int i = 0; i < c.term_count; i++)
		sum += c.terms[i].bytes;
	assert_true(sum == c.bytes);
	return c;
}

static void expect_error(struct ridge_kernel_shape s, const char *text)
{
	struct ridge_kernel_cost c;
	char err[300] = "";
	if (intensity_kernel(&s, &c, err, sizeof err) == 0)
		fail_msg("%s should be rejected", intensity_kernel_name(s.kernel));
	if (!strstr(err, text))
		fail_msg("error '%s' lacks '%s'", err, text);
}

/* The textbook's §7.2.1: naive FP32 GEMM 4096^3. */
static void test_gemm_naive(void **state)
{
	(void)state;
	struct ridge_kernel_cost c = cost_of((struct ridge_kernel_shape){
		.kernel = RIDGE_KERNEL_GEMM_NAIVE, .dtype = RIDGE_FP32, .m = 4096, .n = 4096, .k = 4096 });
	assert_true(c.flops == 137438953472.0);
	assert_true(c.read_bytes == 549755813888.0); /* the textbook's 549 GB: 2*4096^3 reads of 4 B */
	assert_true(c.write_bytes == 67108864.0);    /* C, which the textbook leaves out */
	assert_true(c.bytes == 549822922752.0);
	assert_close(c.intensity, 2048.0 / 8193, 1e-15); /* 2K / (8K + 4): the C write costs 0.012% */
	assert_true(c.compulsory_bytes == 3.0 * 4096 * 4096 * 4);
	assert_false(c.matrix_work && c.tile_m > 0); /* no tile */
}

/* The textbook's §7.2.2: tiled bf16 GEMM 4096^3, TILE=32; and the three traffic counts. */
static void test_gemm_tiled_seed(void **state)
{
	(void)state;
	struct ridge_kernel_shape s = {
		.kernel = RIDGE_KERNEL_GEMM_TILED, .dtype = RIDGE_BF16, .m = 4096, .n = 4096, .k = 4096
	};
	struct ridge_kernel_cost c = cost_of(s);
	assert_true(c.tile_m == 32 && c.tile_n == 32 && c.tile_k == 32);
	/* A and B each read 4096/32 = 128 times, C written once. */
	assert_true(c.terms[0].times == 128 && c.terms[1].times == 128);
	assert_true(c.bytes == 2.0 * 4096 * 4096 * 2 * 128 + 4096.0 * 4096 * 2);
	assert_true(c.bytes == 8623489024.0);
	assert_close(c.intensity, 4096.0 / 257, 1e-15); /* 15.94 FLOP/B: memory-bound */
	assert_true(c.smem_per_block == 4096);          /* the textbook's "4 KB per block" */
	/* Every matrix once, C included: 3 * 4096^2 * 2 B, 1365.33 FLOP/B. */
	assert_true(c.compulsory_bytes == 100663296.0);
	assert_close(c.flops / c.compulsory_bytes, 4096.0 / 3, 1e-15);
	/* The textbook's count (A and B once, C left out): 67,108,864 B = 67 MB, giving
	 * exactly 2048 FLOP/B (it prints 2,045 from 137/67). */
	assert_true(c.flops / (2.0 * 4096 * 4096 * 2) == 2048.0);

	s.traffic = RIDGE_TRAFFIC_COMPULSORY;
	c = cost_of(s);
	assert_true(c.bytes == 100663296.0);
}

static void test_gemm_library_and_ceil(void **state)
{
	(void)state;
	/* The library tile 128x128: A, B read 32 times each in the tiled count;
	 * the default for a library GEMM is the compulsory count (measured on
	 * the H200: cuBLAS runs 4096^3 bf16 at 800 TFLOP/s). */
	struct ridge_kernel_cost c = cost_of((struct ridge_kernel_shape){
		.kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_BF16, .m = 4096, .n = 4096, .k = 4096 });
	assert_true(c.tiled_bytes == 2181038080.0);
	assert_true(c.traffic == RIDGE_TRAFFIC_COMPULSORY && c.bytes == 100663296.0);
	assert_true(c.tile_m == 128 && c.tile_n == 128 && c.tile_k == 64);
	assert_true(c.smem_per_block == (128.0 * 64 + 64 * 128) * 2);
	/* Ragged: M=100, N=200, K=64, fp32: A read ceil(200/128) = 2 times, B once. */
	c = cost_of((struct ridge_kernel_shape){ .kernel = RIDGE_KERNEL_GEMM,
						 .dtype = RIDGE_FP32,
						 .m = 100,
						 .n = 200,
						 .k = 64,
						 .traffic = RIDGE_TRAFFIC_TILED });
	assert_true(c.terms[0].times == 2 && c.terms[1].times == 1);
	assert_true(c.bytes == 4.0 * (100 * 64 * 2 + 64 * 200 + 100 * 200));
	assert_true(c.flops == 2.0 * 100 * 200 * 64);
	/* A rectangular tile 128x256x64: A read ceil(N/256), B ceil(M/128). */
	c = cost_of((struct ridge_kernel_shape){ .kernel = RIDGE_KERNEL_GEMM,
						 .dtype = RIDGE_FP8,
						 .m = 1000,
						 .n = 1000,
						 .k = 512,
						 .tile_m = 128,
						 .tile_n = 256,
						 .tile_k = 64 });
	assert_true(c.terms[0].times == 4 && c.terms[1].times == 8);
	assert_true(c.bytes == 1000.0 * 512 * 4 + 512.0 * 1000 * 8 + 1000.0 * 1000);
	/* Batched: everything times the batch. */
	struct ridge_kernel_cost one = cost_of((struct ridge_kernel_shape){
		.kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_FP16, .m = 512, .n = 512, .k = 256 });
	struct ridge_kernel_cost eight = cost_of((struct ridge_kernel_shape){
		.kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_FP16, .m = 512, .n = 512, .k = 256, .batch = 8 });
	assert_true(eight.flops == 8 * one.flops);
	assert_true(eight.bytes == 8 * one.bytes);
	assert_true(eight.compulsory_bytes == 8 * one.compulsory_bytes);
}

static void test_gemv(void **state)
{
	(void)state;
	/* Decode: one token against an 8192 x 8192 bf16 weight. */
	struct ridge_kernel_cost c = cost_of(
		(struct ridge_kernel_shape){ .kernel = RIDGE_KERNEL_GEMV, .dtype = RIDGE_BF16, .n = 8192, .k = 8192 });
	assert_true(c.flops == 2.0 * 8192 * 8192);
	assert_true(c.bytes == (8192.0 + 8192.0 * 8192 + 8192) * 2);
	assert_close(c.intensity, 4096.0 / 4097, 1e-15);
	/* A decode batch of 16 shares the weight. */
	c = cost_of((struct ridge_kernel_shape){
		.kernel = RIDGE_KERNEL_GEMV, .dtype = RIDGE_BF16, .m = 16, .n = 8192, .k = 8192 });
	assert_true(c.bytes == (16.0 * 8192 + 8192.0 * 8192 + 16.0 * 8192) * 2);
	assert_true(c.tiled_bytes == c.compulsory_bytes);
}

static void test_elementwise_and_rows(void **state)
{
	(void)state;
	struct ridge_kernel_cost c = cost_of(
		(struct ridge_kernel_shape){ .kernel = RIDGE_KERNEL_VECTOR_ADD, .dtype = RIDGE_FP32, .n = 1e6 });
	assert_true(c.flops == 1e6 && c.bytes == 12e6);
	assert_close(c.intensity, 1.0 / 12, 1e-15);
	c = cost_of((struct ridge_kernel_shape){ .kernel = RIDGE_KERNEL_ACTIVATION,
						 .dtype = RIDGE_BF16,
						 .m = 4096,
						 .n = 14336,
						 .flops_per_element = 4 });
	assert_true(c.flops == 4.0 * 4096 * 14336 && c.bytes == 2.0 * 2 * 4096 * 14336);
	c = cost_of((struct ridge_kernel_shape){ .kernel = RIDGE_KERNEL_ACTIVATION, .dtype = RIDGE_BF16, .n = 10 });
	assert_true(c.flops == 10); /* default: one FLOP per element */

	const double r = 4096, d = 8192;
	c = cost_of(
		(struct ridge_kernel_shape){ .kernel = RIDGE_KERNEL_REDUCTION, .dtype = RIDGE_FP32, .m = r, .n = d });
	assert_true(c.flops == r * (d - 1) && c.bytes == (r * d + r) * 4);
	c = cost_of((struct ridge_kernel_shape){ .kernel = RIDGE_KERNEL_RMSNORM, .dtype = RIDGE_BF16, .m = r, .n = d });
	assert_true(c.flops == r * (4 * d + 2) && c.bytes == (2 * r * d + d) * 2);
	c = cost_of(
		(struct ridge_kernel_shape){ .kernel = RIDGE_KERNEL_LAYERNORM, .dtype = RIDGE_BF16, .m = r, .n = d });
	assert_true(c.flops == r * (7 * d + 2) && c.bytes == (2 * r * d + 2 * d) * 2);
	/* --batch multiplies the rows. */
	struct ridge_kernel_cost b = cost_of((struct ridge_kernel_shape){
		.kernel = RIDGE_KERNEL_LAYERNORM, .dtype = RIDGE_BF16, .m = r / 4, .n = d, .batch = 4 });
	assert_true(b.flops == c.flops && b.bytes == c.bytes);
}

static void test_softmax_passes(void **state)
{
	(void)state;
	const double r = 64 * 8192.0, n = 8192;
	static const struct {
		int passes;
		double per_row;
		double reads;
	} cases[] = {
		{ 1, 5 * 8192.0 - 2, 1 }, { 2, 10 * 8192.0, 2 }, { 3, 7 * 8192.0 - 2, 3 }, { 0, 10 * 8192.0, 2 }
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ridge_kernel_cost c = cost_of((struct ridge_kernel_shape){ .kernel = RIDGE_KERNEL_SOFTMAX,
										  .dtype = RIDGE_BF16,
										  .m = r,
										  .n = n,
										  .passes = cases[i].passes });
		assert_true(c.flops == r * cases[i].per_row);
		assert_true(c.bytes == (cases[i].reads + 1) * r * n * 2);
		assert_true(c.compulsory_bytes == 2 * r * n * 2);
	}
	expect_error(
		(struct ridge_kernel_shape){ .kernel = RIDGE_KERNEL_SOFTMAX, .dtype = RIDGE_BF16, .n = 8, .passes = 4 },
		"--passes must be 1, 2 or 3");
}

/* Fusion saves the intermediate's write and read back (the textbook's §7.5.4). */
static void test_fusion(void **state)
{
	(void)state;
	const double r = 4096, d = 8192, o = 28672;
	struct ridge_kernel_shape s = { .kernel = RIDGE_KERNEL_RESIDUAL_RMSNORM, .dtype = RIDGE_BF16, .m = r, .n = d };
	struct ridge_kernel_cost unfused = cost_of(s);
	s.fused = true;
	struct ridge_kernel_cost fused = cost_of(s);
	assert_true(unfused.bytes == (5 * r * d + d) * 2);
	assert_true(fused.bytes == (4 * r * d + d) * 2);
	assert_true(unfused.flops == fused.flops && fused.flops == 5 * r * d + 2 * r);
	assert_true(unfused.alternative_bytes == fused.bytes && fused.alternative_bytes == unfused.bytes);
	assert_true(unfused.compulsory_bytes == fused.bytes);

	s = (struct ridge_kernel_shape){
		.kernel = RIDGE_KERNEL_RMSNORM_LINEAR, .dtype = RIDGE_BF16, .m = r, .k = d, .n = o
	};
	unfused = cost_of(s);
	s.fused = true;
	fused = cost_of(s);
	assert_true(fused.bytes == (r * d + d + d * o + r * o) * 2);
	assert_true(unfused.bytes - fused.bytes == 2 * r * d * 2); /* write and read of X_norm */
	assert_true(fused.flops == r * (4 * d + 2) + 2 * r * d * o);
	assert_true(fused.matrix_work);
	/* The compulsory view of the unfused chain is the fused kernel's traffic. */
	s.fused = false;
	s.traffic = RIDGE_TRAFFIC_COMPULSORY;
	struct ridge_kernel_cost comp = cost_of(s);
	assert_true(comp.bytes == fused.bytes);
	assert_true(comp.tiled_bytes == unfused.bytes);
}

/* The textbook's §7.6.2: attention at S=8192, 64 heads of 128, bf16. */
static void test_attention(void **state)
{
	(void)state;
	const double S = 8192, H = 64, D = 128;
	const double score = S * S * 2; /* one S x S bf16 matrix */
	assert_true(score == 134217728.0);
	/* The textbook's 10.7 GB is 80 such matrices exactly: 10,737,418,240 B = 10 GiB. */
	assert_true(80 * score == 10737418240.0);
	assert_close(10.7e9 / score, 79.72, 1e-3);

	struct ridge_kernel_shape s = { .kernel = RIDGE_KERNEL_ATTENTION,
					.dtype = RIDGE_BF16,
					.seq = S,
					.heads = H,
					.head_dim = D,
					.traffic = RIDGE_TRAFFIC_COMPULSORY };
	struct ridge_kernel_cost c = cost_of(s);
	assert_true(c.flops == 4 * H * S * S * D);
	assert_true(c.flops == 2199023255552.0);
	/* write S, read S, write P, read P: 4 trips of 64 matrices */
	double scores = 0;
	for (int i = 0; i < c.term_count; i++)
		if (strstr(c.terms[i].name, "scores") || strstr(c.terms[i].name, "probabilities"))
			scores += c.terms[i].bytes;
	assert_true(scores == 4 * H * score);
	assert_true(scores == 34359738368.0);
	assert_true(c.bytes == scores + 4 * H * S * D * 2);

	/* Tiled: GEMM 1 reads Q and K 64 times each, GEMM 2 reads P once and V 64 times. */
	s.traffic = RIDGE_TRAFFIC_TILED;
	c = cost_of(s);
	double qkv = H * S * D * 2;
	assert_true(c.bytes == qkv * 64 + qkv * 64 + 4 * H * score + qkv * 64 + qkv);
	/* Causal does not change what eager attention computes or moves. */
	s.causal = true;
	struct ridge_kernel_cost causal = cost_of(s);
	assert_true(causal.flops == c.flops && causal.bytes == c.bytes);
}

static void test_flash_attention(void **state)
{
	(void)state;
	const double S = 8192, H = 64, D = 128;
	struct ridge_kernel_shape s = {
		.kernel = RIDGE_KERNEL_FLASH_ATTENTION, .dtype = RIDGE_BF16, .seq = S, .heads = H, .head_dim = D
	};
	struct ridge_kernel_cost c = cost_of(s);
	double qkv = H * S * D * 2; /* 134,217,728 B per tensor */
	assert_true(c.flops == 4 * H * S * S * D);
	/* Q once, O once; K and V once per query tile of 128: 64 times (the
	 * tiled count); by default each tensor once (L2 holds a head's K and V). */
	assert_true(c.tiled_bytes == 2 * qkv + 2 * 64 * qkv);
	assert_true(c.tiled_bytes == 17448304640.0);
	assert_true(c.compulsory_bytes == 4 * qkv);
	assert_true(c.bytes == c.compulsory_bytes);
	assert_true(c.flops / c.compulsory_bytes == 4096.0); /* = 2 * S / (e * ...) : compute-bound */

	/* GQA, 8 KV heads: compulsory K and V shrink 8x; the tiled count does not
	 * (every query head's tiles load their group's K and V). */
	s.kv_heads = 8;
	struct ridge_kernel_cost gqa = cost_of(s);
	assert_true(gqa.compulsory_bytes == 2 * qkv + 2 * qkv / 8);
	assert_true(gqa.tiled_bytes == c.tiled_bytes);

	/* Causal: S(S+1)/2 pairs of work; query tile i loads min(S, (i+1)*128) keys. */
	s.kv_heads = 0;
	s.causal = true;
	struct ridge_kernel_cost causal = cost_of(s);
	assert_true(causal.flops == 2 * H * S * (S + 1) * D);
	double keys = 128.0 * 63 * 64 / 2 + S; /* sum over 64 tiles */
	assert_true(keys == 266240);
	assert_true(causal.tiled_bytes == 2 * qkv + 2 * H * keys * D * 2);
	/* Ragged sequence, query tile 64: ceil(1000/64) = 16 tiles. */
	s = (struct ridge_kernel_shape){ .kernel = RIDGE_KERNEL_FLASH_ATTENTION,
					 .dtype = RIDGE_FP16,
					 .seq = 1000,
					 .heads = 2,
					 .head_dim = 64,
					 .tile_m = 64,
					 .batch = 3 };
	c = cost_of(s);
	assert_true(c.tiled_bytes == 3 * 2 * (2 * 1000.0 * 64 * 2 + 2 * 16 * 1000.0 * 64 * 2));
	/* A sliding window of 1024 over a causal prompt of 8192: query i sees
	 * min(i + 1, 1024) keys, 1024 x 1025 / 2 + 7168 x 1024 = 7,864,832 pairs
	 * a head (a full causal prompt: 33,558,528). Chunked by 1024: 8 whole
	 * chunks of 1024 x 1025 / 2 = 4,198,400 pairs. */
	s = (struct ridge_kernel_shape){ .kernel = RIDGE_KERNEL_FLASH_ATTENTION,
					 .dtype = RIDGE_BF16,
					 .seq = 8192,
					 .heads = 1,
					 .head_dim = 128,
					 .causal = true,
					 .window = 1024 };
	c = cost_of(s);
	assert_true(c.flops == 4 * 7864832.0 * 128);
	s.chunked = true;
	c = cost_of(s);
	assert_true(c.flops == 4 * 4198400.0 * 128);
	/* a window as wide as the prompt changes nothing */
	s.chunked = false;
	s.window = 8192;
	c = cost_of(s);
	assert_true(c.flops == 2 * 8192.0 * 8193 * 128);
}

/* The default traffic per kernel (one place: intensity_default_traffic) and
 * the bytes each memory level carries in the hierarchical roofline. */
static void test_default_traffic_and_levels(void **state)
{
	(void)state;
	static const struct {
		enum ridge_kernel kernel;
		enum ridge_traffic traffic;
	} defaults[] = {
		{ RIDGE_KERNEL_GEMM, RIDGE_TRAFFIC_COMPULSORY },
		{ RIDGE_KERNEL_GEMM_NAIVE, RIDGE_TRAFFIC_TILED },
		{ RIDGE_KERNEL_GEMM_TILED, RIDGE_TRAFFIC_TILED },
		{ RIDGE_KERNEL_GEMV, RIDGE_TRAFFIC_COMPULSORY },
		{ RIDGE_KERNEL_VECTOR_ADD, RIDGE_TRAFFIC_COMPULSORY },
		{ RIDGE_KERNEL_RESIDUAL_RMSNORM, RIDGE_TRAFFIC_TILED },
		{ RIDGE_KERNEL_RMSNORM_LINEAR, RIDGE_TRAFFIC_TILED },
		{ RIDGE_KERNEL_SOFTMAX, RIDGE_TRAFFIC_TILED },
		{ RIDGE_KERNEL_ATTENTION, RIDGE_TRAFFIC_COMPULSORY },
		{ RIDGE_KERNEL_FLASH_ATTENTION, RIDGE_TRAFFIC_COMPULSORY },
		{ RIDGE_KERNEL_RMSNORM, RIDGE_TRAFFIC_COMPULSORY },
	};
	for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++) {
		struct ridge_kernel_shape s = { .kernel = defaults[i].kernel };
		assert_int_equal(intensity_default_traffic(&s), defaults[i].traffic);
		s.traffic = RIDGE_TRAFFIC_TILED;
		assert_int_equal(intensity_default_traffic(&s), RIDGE_TRAFFIC_TILED);
		s.traffic = RIDGE_TRAFFIC_COMPULSORY;
		assert_int_equal(intensity_default_traffic(&s), RIDGE_TRAFFIC_COMPULSORY);
	}
	/* An explicit tile makes a library GEMM the user's tiled algorithm. */
	struct ridge_kernel_shape g = { .kernel = RIDGE_KERNEL_GEMM,
					.dtype = RIDGE_BF16,
					.m = 4096,
					.n = 4096,
					.k = 4096,
					.tile_m = 128,
					.tile_n = 128,
					.tile_k = 64 };
	assert_int_equal(intensity_default_traffic(&g), RIDGE_TRAFFIC_TILED);
	assert_true(cost_of(g).bytes == 2181038080.0);
	assert_string_equal(intensity_traffic_name(RIDGE_TRAFFIC_DEFAULT), "default");
	enum ridge_traffic t = RIDGE_TRAFFIC_TILED;
	assert_true(intensity_traffic_parse("default", &t) && t == RIDGE_TRAFFIC_DEFAULT);

	double b[RIDGE_LEVEL_COUNT];
	char err[200];
	/* Naive fp32 4096^3: L1 serves the 2*M*N*K reads (the textbook's 549.8 GB),
	 * L2 the 32 x 32 block tiles (A and B 128 times each), DRAM each matrix once. */
	struct ridge_kernel_shape n = {
		.kernel = RIDGE_KERNEL_GEMM_NAIVE, .dtype = RIDGE_FP32, .m = 4096, .n = 4096, .k = 4096
	};
	struct ridge_kernel_cost c = cost_of(n);
	assert_int_equal(intensity_levels(&n, &c, b, err, sizeof err), 0);
	assert_true(b[RIDGE_LEVEL_SMEM] == 549822922752.0);
	assert_true(b[RIDGE_LEVEL_L2] == 4.0 * (2.0 * 4096 * 4096 * 128 + 4096.0 * 4096));
	assert_true(b[RIDGE_LEVEL_HBM] == 3.0 * 4096 * 4096 * 4);
	/* The 32 x 32 shared-memory tiled kernel: its shared-memory wavefronts
	 * (B one a k per warp, A's broadcast 16 bytes at a time: 1.25 M N K e) plus
	 * its tile stores; L2 its tiled count. */
	n.kernel = RIDGE_KERNEL_GEMM_TILED;
	c = cost_of(n);
	assert_int_equal(intensity_levels(&n, &c, b, err, sizeof err), 0);
	assert_true(b[RIDGE_LEVEL_SMEM] == 1.25 * 4096 * 4096 * 4096 * 4 + 4.0 * 2 * 4096 * 4096 * 128);
	assert_true(b[RIDGE_LEVEL_L2] == c.tiled_bytes && b[RIDGE_LEVEL_HBM] == c.compulsory_bytes);
	/* The library GEMM: L2 not placed unless a tile is given. */
	g.tile_m = g.tile_n = g.tile_k = 0;
	c = cost_of(g);
	assert_int_equal(intensity_levels(&g, &c, b, err, sizeof err), 0);
	assert_true(b[RIDGE_LEVEL_L2] < 0 && b[RIDGE_LEVEL_SMEM] < 0 && b[RIDGE_LEVEL_HBM] == 100663296.0);
	g.tile_m = 128;
	c = cost_of(g);
	assert_int_equal(intensity_levels(&g, &c, b, err, sizeof err), 0);
	assert_true(b[RIDGE_LEVEL_L2] == c.tiled_bytes);
	/* Softmax in three passes: every pass reaches DRAM. */
	struct ridge_kernel_shape sm = {
		.kernel = RIDGE_KERNEL_SOFTMAX, .dtype = RIDGE_BF16, .m = 16384, .n = 8192, .passes = 3
	};
	c = cost_of(sm);
	assert_int_equal(intensity_levels(&sm, &c, b, err, sizeof err), 0);
	assert_true(b[RIDGE_LEVEL_HBM] == 4.0 * 16384 * 8192 * 2 && b[RIDGE_LEVEL_L2] == b[RIDGE_LEVEL_HBM]);
	/* Element-wise: each tensor once at both levels. */
	struct ridge_kernel_shape va = { .kernel = RIDGE_KERNEL_VECTOR_ADD, .dtype = RIDGE_FP32, .n = 1000 };
	c = cost_of(va);
	assert_int_equal(intensity_levels(&va, &c, b, err, sizeof err), 0);
	assert_true(b[RIDGE_LEVEL_HBM] == 12000 && b[RIDGE_LEVEL_L2] == 12000 && b[RIDGE_LEVEL_SMEM] < 0);
}

static void test_bad_shapes(void **state)
{
	(void)state;
	expect_error((struct ridge_kernel_shape){ .kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_BF16, .m = 8, .n = 8 },
		     "needs --k");
	expect_error(
		(struct ridge_kernel_shape){
			.kernel = RIDGE_KERNEL_ATTENTION, .dtype = RIDGE_BF16, .heads = 8, .head_dim = 64 },
		"needs --seq");
	expect_error((struct ridge_kernel_shape){ .kernel = RIDGE_KERNEL_FLASH_ATTENTION,
						  .dtype = RIDGE_BF16,
						  .seq = 8,
						  .heads = 8,
						  .kv_heads = 3,
						  .head_dim = 64 },
		     "must divide --heads");
	expect_error(
		(struct ridge_kernel_shape){
			.kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_BF16, .m = 1.5, .n = 8, .k = 8 },
		"whole number");
	expect_error(
		(struct ridge_kernel_shape){
			.kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_BF16, .m = -4, .n = 8, .k = 8 },
		"whole number");
	expect_error(
		(struct ridge_kernel_shape){
			.kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_BF16, .m = NAN, .n = 8, .k = 8 },
		"whole number");
	/* A one-element reduction does no work. */
	expect_error((struct ridge_kernel_shape){ .kernel = RIDGE_KERNEL_REDUCTION, .dtype = RIDGE_FP32, .n = 1 },
		     "nothing to place");
	expect_error((struct ridge_kernel_shape){ .kernel = RIDGE_KERNEL_COUNT, .dtype = RIDGE_FP32, .n = 1 },
		     "unknown kernel");
}

/* The kernels' tensor-core verdicts come from model/align.c's rule
 * (test_align.c pins the rule itself against cuBLAS's "Tensor Core Usage"
 * conditions); here: which GEMMs each kernel hands it. */
static void test_tensor_eligibility(void **state)
{
	(void)state;
	const struct ridge_gpu *h100 = test_gpu("h100-sxm");
	static const struct {
		struct ridge_kernel_shape shape;
		bool eligible, fast;
		const char *reason;
	} cases[] = {
		{ { .kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_BF16, .m = 4096, .n = 4096, .k = 4096 },
		  true,
		  true,
		  "" },
		/* F.linear's TN call: M is cuBLAS's n and enters no condition. */
		{ { .kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_BF16, .m = 8191, .n = 4096, .k = 4096 },
		  true,
		  true,
		  "" },
		{ { .kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_BF16, .m = 1, .n = 8192, .k = 8192 }, true, true, "" },
		{ { .kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_BF16, .m = 4096, .n = 21845, .k = 8192 },
		  true,
		  false,
		  "N=21845 (cuBLAS m [C], ldc) is not a multiple of 8 (16 bytes of bf16)" },
		/* matmul (cuBLAS NN): N is op_A's m and lda. */
		{ { .kernel = RIDGE_KERNEL_GEMM,
		    .dtype = RIDGE_BF16,
		    .m = 4096,
		    .n = 4095,
		    .k = 4096,
		    .layout = RIDGE_GEMM_LAYOUT_MATMUL },
		  true,
		  false,
		  "N=4095 (cuBLAS m [op_A=N], m [C], lda, ldc)" },
		/* fp8: the conditions are required. */
		{ { .kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_FP8, .m = 100, .n = 4096, .k = 24 },
		  false,
		  false,
		  "K=24 (cuBLAS k [op_A=T], k [op_B=N], lda, ldb) is not a multiple of 16 (16 bytes of fp8): required" },
		{ { .kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_FP32, .m = 4096, .n = 4096, .k = 4096 },
		  false,
		  false,
		  "no matrix (tensor-core) rate" },
		/* Attention: Q K^T (linear, K = head_dim) and P V (matmul, N = head_dim). */
		{ { .kernel = RIDGE_KERNEL_ATTENTION, .dtype = RIDGE_BF16, .seq = 1000, .heads = 8, .head_dim = 100 },
		  true,
		  false,
		  "Q K^T: K=100" },
		{ { .kernel = RIDGE_KERNEL_ATTENTION, .dtype = RIDGE_BF16, .seq = 1001, .heads = 8, .head_dim = 128 },
		  true,
		  false,
		  "Q K^T: N=1001" },
		{ { .kernel = RIDGE_KERNEL_RMSNORM_LINEAR,
		    .dtype = RIDGE_BF16,
		    .m = 3,
		    .batch = 5,
		    .n = 4096,
		    .k = 4096 },
		  true,
		  true,
		  "" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ridge_kernel_cost cost = cost_of(cases[i].shape);
		struct ridge_roofline_ceiling c;
		struct ridge_kernel_path path;
		char err[400];
		assert_int_equal(intensity_ceiling(h100, &cases[i].shape, &cost, false, false, RIDGE_LEVEL_HBM, &c,
						   &path, err, sizeof err),
				 0);
		if (path.tensor_eligible != cases[i].eligible || path.fast_path != cases[i].fast ||
		    !strstr(path.reason, cases[i].reason))
			fail_msg("case %zu: eligible %d fast %d, reason '%s'", i, path.tensor_eligible, path.fast_path,
				 path.reason);
	}
	assert_true(intensity_alignment_elements(RIDGE_FP4) == 32);
}

static void test_compute_path(void **state)
{
	(void)state;
	const struct ridge_gpu *h100 = test_gpu("h100-sxm");
	struct ridge_roofline_ceiling c;
	struct ridge_kernel_path path;
	char err[400];

	/* An aligned bf16 GEMM runs at the tensor rate; --no-tensor and naive do not. */
	struct ridge_kernel_shape s = {
		.kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_BF16, .m = 4096, .n = 4096, .k = 4096
	};
	struct ridge_kernel_cost cost = cost_of(s);
	assert_int_equal(intensity_ceiling(h100, &s, &cost, false, false, RIDGE_LEVEL_HBM, &c, &path, err, sizeof err),
			 0);
	assert_true(path.uses_matrix && c.peak_flops == 989.4e12);
	assert_int_equal(intensity_ceiling(h100, &s, &cost, true, false, RIDGE_LEVEL_HBM, &c, &path, err, sizeof err),
			 0);
	assert_true(!path.uses_matrix && c.peak_flops == 133.8e12 && path.tensor_eligible);
	assert_int_equal(intensity_ceiling(h100, &s, &cost, false, true, RIDGE_LEVEL_HBM, &c, &path, err, sizeof err),
			 0);
	assert_true(c.peak_flops == 1978.9e12);
	s.kernel = RIDGE_KERNEL_GEMM_NAIVE;
	cost = cost_of(s);
	assert_int_equal(intensity_ceiling(h100, &s, &cost, false, false, RIDGE_LEVEL_HBM, &c, &path, err, sizeof err),
			 0);
	assert_true(!path.uses_matrix && c.peak_flops == 133.8e12);

	/* Misaligned: eligible, off the fast path, capped by the matrix rate (cuBLAS
	 * keeps tensor cores with slower kernels); the note says it is an upper bound. */
	s = (struct ridge_kernel_shape){
		.kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_BF16, .m = 4096, .n = 21845, .k = 8192
	};
	cost = cost_of(s);
	assert_int_equal(intensity_ceiling(h100, &s, &cost, false, false, RIDGE_LEVEL_HBM, &c, &path, err, sizeof err),
			 0);
	assert_true(path.uses_matrix && path.tensor_eligible && !path.fast_path && c.peak_flops == 989.4e12);
	assert_non_null(strstr(path.reason, "N=21845"));
	assert_non_null(strstr(path.note, "upper bound"));
	/* fp8 off its required conditions: no tensor-core kernel, priced without
	 * (the fp32 vector rate: the H100 has no fp8 vector rate). */
	s = (struct ridge_kernel_shape){
		.kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_FP8, .m = 4096, .n = 4096, .k = 4088
	};
	cost = cost_of(s);
	assert_int_equal(intensity_ceiling(h100, &s, &cost, false, false, RIDGE_LEVEL_HBM, &c, &path, err, sizeof err),
			 0);
	assert_true(!path.uses_matrix && !path.tensor_eligible && c.peak_flops == 66.9e12);
	/* ... and in the matmul layout (cuBLAS NN) on sm_90: TN only. */
	s.k = 4096;
	s.layout = RIDGE_GEMM_LAYOUT_MATMUL;
	cost = cost_of(s);
	assert_int_equal(intensity_ceiling(h100, &s, &cost, false, false, RIDGE_LEVEL_HBM, &c, &path, err, sizeof err),
			 0);
	assert_true(!path.uses_matrix && !path.tensor_eligible && strstr(path.reason, "only TN"));
	/* Blackwell takes any fp8 layout. */
	assert_int_equal(intensity_ceiling(test_gpu("b200"), &s, &cost, false, false, RIDGE_LEVEL_HBM, &c, &path, err,
					   sizeof err),
			 0);
	assert_true(path.uses_matrix && path.fast_path);
	/* fp32 has no matrix rate on an H100: the vector rate, eligible or not. */
	s.dtype = RIDGE_FP32;
	s.n = 4096;
	cost = cost_of(s);
	assert_int_equal(intensity_ceiling(h100, &s, &cost, false, false, RIDGE_LEVEL_HBM, &c, &path, err, sizeof err),
			 0);
	assert_true(!path.uses_matrix && c.peak_flops == 66.9e12);
	/* A decode GEMV (M=1) runs on the vector units. */
	s = (struct ridge_kernel_shape){ .kernel = RIDGE_KERNEL_GEMV, .dtype = RIDGE_BF16, .n = 8192, .k = 8192 };
	cost = cost_of(s);
	assert_int_equal(intensity_ceiling(h100, &s, &cost, false, false, RIDGE_LEVEL_HBM, &c, &path, err, sizeof err),
			 0);
	assert_true(!path.uses_matrix && c.peak_flops == 133.8e12);
	assert_non_null(strstr(path.note, "m=1"));

	/* An fp8 softmax has no fp8 vector rate: it computes in fp32. */
	s = (struct ridge_kernel_shape){ .kernel = RIDGE_KERNEL_SOFTMAX, .dtype = RIDGE_FP8, .m = 8, .n = 4096 };
	cost = cost_of(s);
	assert_int_equal(intensity_ceiling(h100, &s, &cost, false, false, RIDGE_LEVEL_HBM, &c, &path, err, sizeof err),
			 0);
	assert_true(path.compute_dtype == RIDGE_FP32 && c.peak_flops == 66.9e12);
	assert_non_null(strstr(path.note, "fp32 vector rate"));
	/* Sparsity is a matrix-rate property. */
	assert_int_equal(intensity_ceiling(h100, &s, &cost, false, true, RIDGE_LEVEL_HBM, &c, &path, err, sizeof err),
			 -1);
	assert_non_null(strstr(err, "sparsity applies to matrix rates only"));
	/* fp8 on an A100: no path at all. */
	assert_int_equal(intensity_ceiling(test_gpu("a100-sxm-80gb"), &s, &cost, false, false, RIDGE_LEVEL_HBM, &c,
					   &path, err, sizeof err),
			 -1);
	assert_non_null(strstr(err, "no hardware path for fp8"));
	/* Flash attention: the head dimension decides eligibility. */
	s = (struct ridge_kernel_shape){
		.kernel = RIDGE_KERNEL_FLASH_ATTENTION, .dtype = RIDGE_BF16, .seq = 1000, .heads = 8, .head_dim = 100
	};
	cost = cost_of(s);
	assert_int_equal(intensity_ceiling(h100, &s, &cost, false, false, RIDGE_LEVEL_HBM, &c, &path, err, sizeof err),
			 0);
	assert_true(path.tensor_eligible && !path.fast_path);
	assert_non_null(strstr(path.reason, "K=100"));
}

static void test_names(void **state)
{
	(void)state;
	for (int k = 0; k < RIDGE_KERNEL_COUNT; k++) {
		enum ridge_kernel back;
		assert_true(intensity_kernel_parse(intensity_kernel_name((enum ridge_kernel)k), &back));
		assert_int_equal(back, k);
		assert_non_null(strstr(intensity_kernel_list(), intensity_kernel_name((enum ridge_kernel)k)));
		assert_non_null(intensity_kernel_summary((enum ridge_kernel)k));
		assert_true(intensity_kernel_fields((enum ridge_kernel)k) != 0);
	}
	enum ridge_kernel k;
	assert_false(intensity_kernel_parse("gemmm", &k));
	enum ridge_traffic t;
	assert_true(intensity_traffic_parse("compulsory", &t) && t == RIDGE_TRAFFIC_COMPULSORY);
	assert_false(intensity_traffic_parse("ideal", &t));
}

/* fp8 off a multiple of 16 in the token dimension N alone is priced padded on
 * tensor cores (as engines and torch._scaled_mm run it); misaligned in K it
 * has no kernel and stays on the vector units. */
static void test_fp8_token_padding(void **state)
{
	(void)state;
	const struct ridge_gpu *h200 = test_gpu("h200-sxm");
	struct ridge_roofline_ceiling c;
	struct ridge_kernel_path path;
	char err[400];
	struct ridge_kernel_shape s = {
		.kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_FP8, .m = 5120, .n = 40, .k = 8192
	};
	struct ridge_kernel_cost cost = cost_of(s);
	assert_int_equal(intensity_ceiling(h200, &s, &cost, false, false, RIDGE_LEVEL_HBM, &c, &path, err, sizeof err),
			 0);
	assert_true(path.uses_matrix && path.tensor_eligible);
	assert_true(path.padded_n == 48);
	assert_non_null(strstr(path.note, "N padded to 48"));
	s.n = 48;
	cost = cost_of(s);
	assert_int_equal(intensity_ceiling(h200, &s, &cost, false, false, RIDGE_LEVEL_HBM, &c, &path, err, sizeof err),
			 0);
	assert_true(path.uses_matrix && path.padded_n == 0);
	s.n = 48;
	s.k = 8200; /* K off the multiple: no padding, no fp8 kernel */
	cost = cost_of(s);
	assert_int_equal(intensity_ceiling(h200, &s, &cost, false, false, RIDGE_LEVEL_HBM, &c, &path, err, sizeof err),
			 0);
	assert_true(!path.uses_matrix && path.padded_n == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gemm_naive),
		cmocka_unit_test(test_gemm_tiled_seed),
		cmocka_unit_test(test_gemm_library_and_ceil),
		cmocka_unit_test(test_gemv),
		cmocka_unit_test(test_elementwise_and_rows),
		cmocka_unit_test(test_softmax_passes),
		cmocka_unit_test(test_fusion),
		cmocka_unit_test(test_attention),
		cmocka_unit_test(test_flash_attention),
		cmocka_unit_test(test_default_traffic_and_levels),
		cmocka_unit_test(test_bad_shapes),
		cmocka_unit_test(test_tensor_eligibility),
		cmocka_unit_test(test_compute_path),
		cmocka_unit_test(test_fp8_token_padding),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests_name("intensity", tests, NULL, NULL);
}
