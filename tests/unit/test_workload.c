/* model/workload.c: parameter counts of real configs (the published totals),
 * experts touched, the KV split rule, MLA cache bytes, the GEMM list and the
 * rejected configs. Hand-worked values are derived in the comments; the
 * published totals are the model cards' (examples/README.md). */
#include "test_util.h"

#include <math.h>
#include <string.h>

static struct ridge_workload_model llama3_8b(void)
{
	return (struct ridge_workload_model){
		.hidden = 4096, .intermediate = 14336, .layers = 32, .heads = 32, .kv_heads = 8, .vocab = 128256
	};
}

static struct ridge_workload_model mixtral(void)
{
	struct ridge_workload_model m = llama3_8b();
	m.vocab = 32000;
	m.experts = 8;
	m.experts_per_token = 2;
	m.expert_intermediate = 14336;
	return m;
}

static struct ridge_workload_model deepseek_v3(void)
{
	return (struct ridge_workload_model){ .hidden = 7168,
					      .intermediate = 18432,
					      .layers = 61,
					      .heads = 128,
					      .kv_heads = 128,
					      .vocab = 129280,
					      .experts = 256,
					      .experts_per_token = 8,
					      .expert_intermediate = 2048,
					      .shared_intermediate = 2048,
					      .dense_layers = 3,
					      .mla = true,
					      .q_lora_rank = 1536,
					      .kv_lora_rank = 512,
					      .qk_nope_head_dim = 128,
					      .qk_rope_head_dim = 64,
					      .v_head_dim = 128 };
}

static void test_dense_params(void **state)
{
	(void)state;
	char err[300];
	struct ridge_workload_model m = llama3_8b();
	struct ridge_workload_params p;
	assert_int_equal(workload_resolve(&m, err, sizeof err), 0);
	assert_int_equal(m.head_dim, 128);
	assert_int_equal(workload_params(&m, &p, err, sizeof err), 0);
	/* Llama-3-8B: 8,030,261,248 (Meta's model card: 8.03B; the sum of the
	 * safetensors shapes). attention 2*4096^2 + 2*4096*1024 = 41,943,040;
	 * MLP 3*4096*14336 = 176,160,768; norms 8192: 218,112,000 per layer. */
	assert_true(p.attention_per_layer == 41943040.0);
	assert_true(p.dense_mlp_per_layer == 176160768.0);
	assert_true(p.total == 8030261248.0);
	assert_true(p.active == p.total);
	/* multiplied: 32 layers x 218,103,808 + the LM head 525,336,576 */
	assert_true(p.matmul_active == 32.0 * 218103808 + 525336576);
}

static void test_moe_params(void **state)
{
	(void)state;
	char err[300];
	struct ridge_workload_model m = mixtral();
	struct ridge_workload_params p;
	assert_int_equal(workload_resolve(&m, err, sizeof err), 0);
	assert_int_equal(workload_params(&m, &p, err, sizeof err), 0);
	/* per layer: attention 41,943,040 + norms 8192 + router 4096*8 = 32,768
	 * + 8 experts x 176,160,768 = 1,451,270,144; x 32 = 46,440,644,608;
	 * + embedding and LM head 2 x 131,072,000 + final norm 4096
	 * = 46,702,792,704 (Mistral: "46.7B total") */
	assert_true(p.total == 46702792704.0);
	/* active: 6 experts fewer per layer: - 32 x 6 x 176,160,768 = 12,879,925,248 ("12.9B") */
	assert_true(p.active == 46702792704.0 - 32.0 * 6 * 176160768);
	/* read every step whatever the routing: attention, norms, router, LM head
	 * and final norm, not the input table */
	assert_true(p.dense_weights == 32.0 * (41943040 + 8192 + 32768) + 131072000 + 4096);
}

static void test_deepseek_v3(void **state)
{
	(void)state;
	char err[300];
	struct ridge_workload_model m = deepseek_v3();
	assert_int_equal(workload_resolve(&m, err, sizeof err), 0);
	/* MLA: the head is qk_nope + qk_rope = 192 wide, never hidden/heads = 56 */
	assert_int_equal(workload_qk_head_dim(&m), 192);
	assert_int_equal(m.head_dim, 192);
	struct ridge_workload_params p;
	assert_int_equal(workload_params(&m, &p, err, sizeof err), 0);
	/* attention per layer: q_a 7168*1536 + q_b 1536*24576 + kv_a 7168*576
	 * + kv_b 512*32768 + o 16384*7168 + latent norms 1536 + 512
	 * = 11,010,048 + 37,748,736 + 4,128,768 + 16,777,216 + 117,440,512 + 2048 = 187,107,328 */
	assert_true(p.attention_per_layer == 187107328.0);
	/* total 671,026,404,352: DeepSeek's "671B" main model (the 11.5B MTP module excluded) */
	assert_true(p.total == 671026404352.0);
	struct ridge_workload_gemm g[RIDGE_WORKLOAD_MAX_GEMMS];
	int n = workload_gemms(&m, 4096, g, err, sizeof err);
	assert_true(n > 0);
	assert_string_equal(g[1].name, "q_b_proj");
	assert_true(g[1].n == 24576 && g[1].k == 1536);
	/* experts at 4096 tokens: 4096 x 8 / 256 = 128 rows each, 256 per layer, 58 layers */
	int e = -1;
	for (int i = 0; i < n; i++)
		if (strcmp(g[i].name, "experts.gate_proj") == 0)
			e = i;
	assert_true(e >= 0);
	assert_true(g[e].m == 128 && g[e].instances == 256 && g[e].layers == 58 && g[e].expert);
	/* compressed cache: (512 + 64) elements per token per layer, replicated under TP */
	struct ridge_kv_layout kv;
	assert_int_equal(workload_kv_layout(&m, 8, &kv, err, sizeof err), 0);
	assert_true(kv.elements_per_token_layer == 576);
	assert_true(kv.elements_per_token_layer_per_gpu == 576);
	/* bf16: 576 x 61 x 2 = 70,272 B per token */
	assert_true(kv.elements_per_token_layer * 61 * 2 == 70272);
}

static void test_experts_touched(void **state)
{
	(void)state;
	/* Mixtral at batch 32: 8 (1 - (3/4)^32) = 18444891053520699775 / 2^61
	 * = 7.999196380594235 (exact rational, then rounded once) */
	assert_close(workload_experts_touched(8, 2, 32), 7.999196380594235, 1e-15);
	/* one token touches exactly its k experts */
	assert_true(workload_experts_touched(8, 2, 1) == 2);
	/* DeepSeek-V2-Lite (64, top-6) at 8 tokens: 64 (1 - (58/64)^8) = 34.881826421187725 */
	assert_close(workload_experts_touched(64, 6, 8), 34.881826421187725, 1e-14);
}

static void test_kv_split(void **state)
{
	(void)state;
	char err[300];
	/* Llama-3-70B's 8 KV heads: 16 GPUs still hold one whole head each (2x the
	 * 1/16 share), 8 GPUs one each, 3 GPUs ceil(8/3) = 3 each */
	assert_true(workload_kv_heads_per_gpu(8, 16) == 1);
	assert_true(workload_kv_heads_per_gpu(8, 8) == 1);
	assert_true(workload_kv_heads_per_gpu(8, 3) == 3);
	assert_true(workload_kv_heads_per_gpu(8, 1) == 8);
	struct ridge_workload_model m = llama3_8b();
	m.layers = 80;
	m.hidden = 8192;
	m.heads = 64;
	m.intermediate = 28672;
	assert_int_equal(workload_resolve(&m, err, sizeof err), 0);
	struct ridge_kv_layout kv;
	assert_int_equal(workload_kv_layout(&m, 16, &kv, err, sizeof err), 0);
	assert_true(kv.elements_per_token_layer == 2048);
	assert_true(kv.elements_per_token_layer_per_gpu == 256);
	assert_true(kv.replication == 2);
	assert_int_equal(workload_kv_layout(&m, 2.5, &kv, err, sizeof err), -1);
}

static void test_bad_configs(void **state)
{
	(void)state;
	char err[300];
	struct ridge_workload_model m = mixtral();
	m.experts_per_token = 9;
	assert_int_equal(workload_resolve(&m, err, sizeof err), -1);
	assert_non_null(strstr(err, "num_experts_per_tok (9) is more than the experts (8)"));
	m = llama3_8b();
	m.heads = 30; /* 4096 / 30 is not whole, and 8 KV heads do not divide 30 */
	m.kv_heads = 6;
	assert_int_equal(workload_resolve(&m, err, sizeof err), -1);
	assert_non_null(strstr(err, "hidden_size (4096) is not divisible by num_attention_heads (30)"));
	m = llama3_8b();
	m.kv_heads = 5;
	assert_int_equal(workload_resolve(&m, err, sizeof err), -1);
	assert_non_null(strstr(err, "not a multiple of num_key_value_heads (5)"));
	m = deepseek_v3();
	m.v_head_dim = 0;
	assert_int_equal(workload_resolve(&m, err, sizeof err), -1);
	assert_non_null(strstr(err, "v_head_dim"));
	m = llama3_8b();
	m.vocab = 0;
	assert_int_equal(workload_resolve(&m, err, sizeof err), -1);
	assert_non_null(strstr(err, "vocab_size"));
}

static void test_layer_kernels(void **state)
{
	(void)state;
	char err[300];
	struct ridge_workload_model m = llama3_8b();
	assert_int_equal(workload_resolve(&m, err, sizeof err), 0);
	struct ridge_workload_gemm g[RIDGE_WORKLOAD_MAX_GEMMS];
	int n = workload_gemms(&m, 1, g, err, sizeof err);
	struct ridge_layer_kernel k[RIDGE_WORKLOAD_MAX_OPS];
	/* norm q k v rope kv-write attention o residual norm gate up act down residual */
	assert_int_equal(workload_layer_kernels(&m, g, n, 0, k), 15);
	assert_int_equal(k[6].op, RIDGE_OP_ATTENTION);
	assert_string_equal(g[k[7].gemm].name, "o_proj");
}

/* gpt-oss-120b (its config.json): 116,829,156,672 parameters (the model
 * card's 116.83B), 5,132,849,472 active without the input table (the
 * card's 5.13B), with biases on q/k/v/o, the experts and the router, and
 * one attention sink per head. Per layer: attention 2880 x 4096 x 2 + 2880
 * x 512 x 2 = 26,542,080 weights + 4096 + 512 + 512 + 2880 biases + 64
 * sinks = 26,550,144; each expert 3 x 2880^2 + 2 x 2880 + 2880 = 24,891,840;
 * router 2880 x 128 + 128 = 368,768; norms 5760. */
static void test_gpt_oss_params(void **state)
{
	(void)state;
	char err[300];
	struct ridge_workload_model m = { .hidden = 2880,
					  .intermediate = 2880,
					  .layers = 36,
					  .heads = 64,
					  .kv_heads = 8,
					  .head_dim = 64,
					  .vocab = 201088,
					  .qkv_bias = true,
					  .o_bias = true,
					  .attention_sinks = true,
					  .expert_bias = true,
					  .sliding_window = 128,
					  .local_layers = 18,
					  .experts = 128,
					  .experts_per_token = 4,
					  .expert_intermediate = 2880 };
	struct ridge_workload_params p;
	assert_int_equal(workload_resolve(&m, err, sizeof err), 0);
	assert_int_equal(workload_params(&m, &p, err, sizeof err), 0);
	assert_true(p.attention_per_layer == 26550144.0);
	assert_true(p.expert == 24891840.0);
	assert_true(p.router_per_layer == 368768.0);
	assert_true(p.total == 116829156672.0);
	assert_true(p.active_without_embedding == 5132849472.0);
	assert_true(p.active - p.active_without_embedding == 201088.0 * 2880);
	/* the plan: 18 global layers keep the context, 18 local ones 128 */
	assert_int_equal(workload_local_layers(&m), 18);
	assert_int_equal(workload_global_layers(&m), 18);
	assert_true(workload_cached_layer_tokens(&m, 131072) == 18 * 131072.0 + 18 * 128.0);
	assert_true(workload_cached_layer_tokens(&m, 100) == 36 * 100.0);
	/* a plan with more local layers than layers, or local layers with no window */
	struct ridge_workload_model bad = m;
	bad.local_layers = 37;
	assert_int_equal(workload_resolve(&bad, err, sizeof err), -1);
	assert_non_null(strstr(err, "37 sliding-window layers"));
	bad = m;
	bad.sliding_window = 0;
	assert_int_equal(workload_resolve(&bad, err, sizeof err), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dense_params),  cmocka_unit_test(test_moe_params),
		cmocka_unit_test(test_deepseek_v3),   cmocka_unit_test(test_experts_touched),
		cmocka_unit_test(test_kv_split),      cmocka_unit_test(test_bad_configs),
		cmocka_unit_test(test_layer_kernels), cmocka_unit_test(test_gpt_oss_params),
	};
	return cmocka_run_group_tests_name("workload", tests, NULL, NULL);
}
