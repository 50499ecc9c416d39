/* LLM workloads from a model description: the arithmetic of one decoder
 * (dense Llama/Mistral/Qwen2/Gemma, GQA/MQA, sliding window, MoE with routed
 * and shared experts and dense first layers, DeepSeek's MLA) as exact
 * formulas, for `ridge model`, `ridge align --model` and `ridge cost
 * decode|prefill --model`.
 *
 *   parameters      total, and active per token (top-k of the routed experts)
 *   GEMMs           every weight GEMM of a layer with N x K and M (the tokens
 *                   it sees: an expert GEMM sees tokens x k / E on average)
 *   KV cache        bytes per token: 2 n_kv d_head b per layer; MLA caches
 *                   the compressed latent, kv_lora_rank + qk_rope_head_dim
 *   KV split        tensor parallel over T GPUs: each GPU holds
 *                   max(ceil(n_kv / T), 1) whole KV heads (MLA: the latent,
 *                   replicated)
 *   experts touched E (1 - (1 - k/E)^B): the expected number of distinct
 *                   experts B tokens' top-k routing selects, uniform routing
 *
 * Pure C11; no I/O; errors returned with a message naming the config key.
 * The config.json reading is app/read/model_config.c's.
 * docs/models/workload.md. */
#ifndef RIDGE_WORKLOAD_H
#define RIDGE_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>

/* The architecture families the arithmetic knows. */
enum ridge_arch {
	RIDGE_ARCH_DENSE, /* Llama, Mistral, Qwen2, Gemma: attention + gated MLP */
	RIDGE_ARCH_MOE,   /* routed experts (Mixtral, Qwen-MoE, DeepSeek) */
};

/* One decoder, the keys of a Hugging Face config.json (0 or false: absent). */
struct ridge_workload_model {
	long long hidden;       /* hidden_size */
	long long intermediate; /* intermediate_size: the dense MLP (and DeepSeek's dense first layers) */
	long long layers;       /* num_hidden_layers */
	long long heads;        /* num_attention_heads */
	long long kv_heads;     /* num_key_value_heads (default heads) */
	long long head_dim;     /* head_dim (default hidden / heads; not used by MLA) */
	long long vocab;        /* vocab_size */
	bool tied_embeddings;   /* tie_word_embeddings: the LM head is the embedding table */
	bool qkv_bias;          /* Qwen2's q/k/v biases, attention_bias */
	bool o_bias;            /* o_proj has a bias too (gpt-oss; Llama's attention_bias) */
	bool attention_sinks;   /* gpt-oss: one learned sink logit per query head and layer */

	/* The layer plan (per-layer attention). local_layers of the layers attend
	 * within the last sliding_window tokens (chunked: within their chunk of
	 * sliding_window tokens, Llama-4), the other layers to the whole context.
	 * Order does not change the arithmetic, so a count is the whole plan.
	 * workload_resolve: a window with local_layers 0 is every layer local. */
	long long sliding_window; /* 0: every layer attends to the whole context */
	long long local_layers;
	bool chunked_attention;

	/* MoE (experts 0: dense) */
	long long experts;             /* routed experts: num_local_experts / num_experts / n_routed_experts */
	long long experts_per_token;   /* num_experts_per_tok */
	long long expert_intermediate; /* moe_intermediate_size (Mixtral: intermediate_size) */
	long long shared_intermediate; /* the always-on shared expert MLP's width (0: none):
					  Qwen-MoE shared_expert_intermediate_size, DeepSeek
					  n_shared_experts x moe_intermediate_size */
	bool shared_expert_gate;       /* Qwen-MoE: a hidden x 1 sigmoid gate on the shared expert */
	long long dense_layers;        /* layers with the dense MLP instead of experts: first_k_dense_replace,
					  or those a MoE-layer step or list leaves dense (order does not
					  change the arithmetic) */
	bool expert_bias;              /* gpt-oss: the experts' gate/up and down biases and the router's */

	/* MLA (DeepSeek-V2/V3) */
	bool mla;
	long long q_lora_rank; /* 0: Q projected directly (DeepSeek-V2-Lite) */
	long long kv_lora_rank;
	long long qk_nope_head_dim, qk_rope_head_dim, v_head_dim;
};

/* Checks a model and fills the defaults (kv_heads = heads; head_dim = hidden
 * / heads, which needs heads to divide hidden). Errors name the key:
 * experts_per_tok above the experts, heads not a multiple of the KV heads,
 * a missing MLA dimension. Returns 0, or -1 with err. */
int workload_resolve(struct ridge_workload_model *m, char *err, size_t err_len);

/* Width of one query/key head and of one value head (MLA: nope + rope, v). */
long long workload_qk_head_dim(const struct ridge_workload_model *m);
long long workload_v_head_dim(const struct ridge_workload_model *m);

/* Layers with routed experts: layers - dense_layers (0 for dense models). */
long long workload_moe_layers(const struct ridge_workload_model *m);

/* The layer plan: layers attending within the window (0 without one) and
 * to the whole context. */
long long workload_local_layers(const struct ridge_workload_model *m);
long long workload_global_layers(const struct ridge_workload_model *m);

/* Tokens one request's layer keeps at `context` tokens: min(context,
 * window) for a local layer; the whole context for a global one. */
double workload_cached_tokens(const struct ridge_workload_model *m, bool local, double context);

/* Tokens a request keeps summed over every layer at `context` tokens
 * (global layers x context + local layers x min(context, window)); the cache
 * bytes are this x the bytes of one token in one layer. */
double workload_cached_layer_tokens(const struct ridge_workload_model *m, double context);

/* ---- parameters ---- */

struct ridge_workload_params {
	double attention_per_layer;        /* projections (+ biases, MLA's latent norms) */
	double dense_mlp_per_layer;        /* 3 h ff */
	double expert;                     /* one routed expert: 3 h ff_expert */
	double shared_per_layer;           /* shared expert MLP (+ its gate) */
	double router_per_layer;           /* h x E */
	double norms_per_layer;            /* 2 h */
	double embedding;                  /* V h: the input table */
	double lm_head;                    /* V h, 0 when tied */
	double final_norm;                 /* h */
	double total;                      /* every parameter stored */
	double active;                     /* used per token: top-k experts, the embedding row counted as the table */
	double active_without_embedding;   /* active less the input table (what gpt-oss's card calls
					    active; the LM head stays) */
	double attention_extras_per_layer; /* of attention_per_layer: biases, sinks, MLA's latent norms */
	double matmul_active;              /* multiplied per token (2 FLOPs each): active without the input
				       table (a gather) and the norms; the LM head included */
	double dense_weights;              /* read by every step whatever the routing: attention, dense MLPs,
				       shared experts, routers, norms, LM head (without the input table) */
};

int workload_params(const struct ridge_workload_model *m, struct ridge_workload_params *out, char *err, size_t err_len);

/* ---- MoE routing ---- */

/* E (1 - (1 - k/E)^tokens): the expected distinct experts a layer's tokens
 * select (each token picks k of E, uniformly). Mixtral (8, top-2) at 32
 * tokens: 8 (1 - 0.75^32) = 7.99198... ; at 1 token: exactly k. */
double workload_experts_touched(double experts, double per_token, double tokens);

/* ---- KV cache ---- */

struct ridge_kv_layout {
	double elements_per_token_layer; /* 2 n_kv d (MLA: kv_lora_rank + qk_rope_head_dim) */
	double heads_per_gpu;            /* max(ceil(n_kv / tp), 1); MLA: the latent is replicated (1) */
	double elements_per_token_layer_per_gpu;
	double replication; /* tp x per-GPU / total: 2 when 8 KV heads are split 16 ways */
};

/* The cache layout under tensor parallelism over tp GPUs. */
int workload_kv_layout(const struct ridge_workload_model *m, double tp, struct ridge_kv_layout *out, char *err,
		       size_t err_len);

/* The per-GPU head rule on its own: max(ceil(kv_heads / tp), 1). */
double workload_kv_heads_per_gpu(double kv_heads, double tp);

/* ---- the GEMMs of a layer ---- */

#define RIDGE_WORKLOAD_MAX_GEMMS 24

/* One weight GEMM, Y[M, N] = X[M, K] W[N, K]^T. */
struct ridge_workload_gemm {
	const char *name;   /* "q_proj", "experts.gate_proj", "lm_head" */
	const char *n_from; /* the config keys behind N and K */
	const char *k_from;
	long long n, k;
	double m;         /* tokens through this GEMM: tokens, or tokens x k / E for an expert */
	double instances; /* per layer it appears in (an expert GEMM: E of them) */
	double layers;    /* layers it appears in (1 for lm_head) */
	bool expert;      /* a routed-expert GEMM */
	bool per_step;    /* lm_head: once per step, not per layer */
};

/* Every weight GEMM for `tokens` tokens through the model: attention (MLA's
 * low-rank projections), the dense MLP of dense layers, router, routed and
 * shared experts, and the LM head. Returns the count, or -1 with err. */
int workload_gemms(const struct ridge_workload_model *m, double tokens,
		   struct ridge_workload_gemm out[RIDGE_WORKLOAD_MAX_GEMMS], char *err, size_t err_len);

/* ---- the kernel sequence of a layer ---- */

enum ridge_layer_op {
	RIDGE_OP_NORM,       /* RMSNorm over the hidden state (or MLA's latent) */
	RIDGE_OP_GEMM,       /* a weight GEMM (gemm index) */
	RIDGE_OP_ROPE,       /* rotary embedding of q and k: element-wise */
	RIDGE_OP_KV_WRITE,   /* appending the step's K and V (or latent) to the cache */
	RIDGE_OP_ATTENTION,  /* softmax(Q K^T) V over the cache */
	RIDGE_OP_ROUTER,     /* softmax and top-k of the router logits */
	RIDGE_OP_ACTIVATION, /* silu(gate) * up */
	RIDGE_OP_RESIDUAL,   /* the residual add */
	RIDGE_OP_COUNT
};

/* "norm", "gemm", ... */
const char *workload_op_name(enum ridge_layer_op op);

#define RIDGE_WORKLOAD_MAX_OPS 40

struct ridge_layer_kernel {
	enum ridge_layer_op op;
	int gemm;         /* RIDGE_OP_GEMM: index into workload_gemms()'s list; else -1 */
	double instances; /* per layer: a routed expert's kernels run once per expert touched */
	bool moe;         /* only in MoE layers */
	bool dense;       /* only in dense layers */
	bool routed;      /* a routed expert's kernel: once per expert touched in the Hugging Face loop */
};

/* The kernels one decoder layer launches, in order, as an eager PyTorch
 * implementation of the Hugging Face modelling code does (15 for a dense
 * Llama layer: norm, q, k, v, rope, kv write, attention, o, residual, norm,
 * gate, up, activation, down, residual... see docs/models/workload.md). The routed
 * experts' kernels count experts_touched instances each. Returns the count. */
int workload_layer_kernels(const struct ridge_workload_model *m, const struct ridge_workload_gemm *gemms,
			   int gemm_count, double experts_touched,
			   struct ridge_layer_kernel out[RIDGE_WORKLOAD_MAX_OPS]);

#endif
