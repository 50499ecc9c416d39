/* The arithmetic of a decoder from its config (workload.h). */
#include "workload.h"

#include <math.h>
#include <string.h>

#include "fail.h"

/* Larger than any real dimension and small enough that products of three
 * stay exact in a double (2^31 cubed is below 2^93, but the sums that matter
 * are of products of two: below 2^62). */
#define MAX_DIM 2147483647LL

/* Mixtral gives its experts' width as intermediate_size; the others as moe_intermediate_size. */
#define EXPERT_WIDTH "moe_intermediate_size (Mixtral: intermediate_size)"

static int check_dim(const char *key, long long v, bool required, char *err, size_t err_len)
{
	if (v == 0 && !required)
		return 0;
	if (v < 1 || v > MAX_DIM)
		return model_fail(err, err_len, "%s: %lld is out of range (1..%lld)", key, v, MAX_DIM);
	return 0;
}

int workload_resolve(struct ridge_workload_model *m, char *err, size_t err_len)
{
	const struct {
		const char *key;
		long long v;
	} required[] = {
		{ "hidden_size", m->hidden },
		{ "num_hidden_layers", m->layers },
		{ "num_attention_heads", m->heads },
		{ "vocab_size", m->vocab },
	};
	for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
		if (check_dim(required[i].key, required[i].v, true, err, err_len))
			return -1;
	if (check_dim("sliding_window", m->sliding_window, false, err, err_len) ||
	    check_dim("first_k_dense_replace", m->dense_layers, false, err, err_len))
		return -1;
	if (m->dense_layers > m->layers)
		return model_fail(err, err_len, "first_k_dense_replace (%lld) is more than num_hidden_layers (%lld)",
				  m->dense_layers, m->layers);
	if (m->local_layers < 0 || m->local_layers > m->layers)
		return model_fail(err, err_len,
				  "the layer plan has %lld sliding-window layers of num_hidden_layers %lld",
				  m->local_layers, m->layers);
	if (m->sliding_window == 0 && (m->local_layers > 0 || m->chunked_attention))
		return model_fail(err, err_len, "the layer plan has sliding-window layers but no sliding_window");
	if (m->sliding_window > 0 && m->local_layers == 0)
		m->local_layers = m->layers;
	if (m->kv_heads == 0)
		m->kv_heads = m->heads;
	if (check_dim("num_key_value_heads", m->kv_heads, true, err, err_len))
		return -1;
	if (m->heads % m->kv_heads != 0)
		return model_fail(
			err, err_len,
			"num_attention_heads (%lld) is not a multiple of num_key_value_heads (%lld): grouped-query "
			"attention shares each KV head among a whole number of query heads",
			m->heads, m->kv_heads);
	if (m->mla) {
		if (check_dim("kv_lora_rank", m->kv_lora_rank, true, err, err_len) ||
		    check_dim("q_lora_rank", m->q_lora_rank, false, err, err_len) ||
		    check_dim("qk_nope_head_dim", m->qk_nope_head_dim, true, err, err_len) ||
		    check_dim("qk_rope_head_dim", m->qk_rope_head_dim, true, err, err_len) ||
		    check_dim("v_head_dim", m->v_head_dim, true, err, err_len))
			return -1;
		/* MLA's heads are qk_nope + qk_rope wide; hidden / heads is not a head size there. */
		m->head_dim = m->qk_nope_head_dim + m->qk_rope_head_dim;
	} else if (m->head_dim == 0) {
		if (m->hidden % m->heads != 0)
			return model_fail(
				err, err_len,
				"hidden_size (%lld) is not divisible by num_attention_heads (%lld): give head_dim",
				m->hidden, m->heads);
		m->head_dim = m->hidden / m->heads;
	}
	if (check_dim("head_dim", m->head_dim, true, err, err_len))
		return -1;
	if (m->experts > 0) {
		if (check_dim("num_experts", m->experts, true, err, err_len) ||
		    check_dim("num_experts_per_tok", m->experts_per_token, true, err, err_len) ||
		    check_dim("moe_intermediate_size", m->expert_intermediate, true, err, err_len) ||
		    check_dim("shared_expert_intermediate_size", m->shared_intermediate, false, err, err_len))
			return -1;
		if (m->experts_per_token > m->experts)
			return model_fail(err, err_len, "num_experts_per_tok (%lld) is more than the experts (%lld)",
					  m->experts_per_token, m->experts);
	} else if (m->experts_per_token > 0 || m->shared_intermediate > 0) {
		return model_fail(err, err_len, "num_experts_per_tok or shared experts given without routed experts");
	}
	bool dense_mlp_needed = m->experts == 0 || m->dense_layers > 0;
	if (check_dim("intermediate_size", m->intermediate, dense_mlp_needed, err, err_len))
		return -1;
	return 0;
}

long long workload_qk_head_dim(const struct ridge_workload_model *m)
{
	return m->mla ? m->qk_nope_head_dim + m->qk_rope_head_dim : m->head_dim;
}

long long workload_v_head_dim(const struct ridge_workload_model *m)
{
	return m->mla ? m->v_head_dim : m->head_dim;
}

long long workload_moe_layers(const struct ridge_workload_model *m)
{
	return m->experts > 0 ? m->layers - m->dense_layers : 0;
}

long long workload_local_layers(const struct ridge_workload_model *m)
{
	return m->sliding_window > 0 ? (m->local_layers > 0 ? m->local_layers : m->layers) : 0;
}

long long workload_global_layers(const struct ridge_workload_model *m)
{
	return m->layers - workload_local_layers(m);
}

double workload_cached_tokens(const struct ridge_workload_model *m, bool local, double context)
{
	return local && m->sliding_window > 0 ? fmin(context, (double)m->sliding_window) : context;
}

double workload_cached_layer_tokens(const struct ridge_workload_model *m, double context)
{
	return (double)workload_global_layers(m) * context +
	       (double)workload_local_layers(m) * workload_cached_tokens(m, true, context);
}

/* ---- GEMMs ---- */

static void add_gemm(struct ridge_workload_gemm *out, int *n, const char *name, const char *n_from, const char *k_from,
		     long long rows, long long cols, double m, double instances, double layers, bool expert)
{
	struct ridge_workload_gemm *g = &out[(*n)++];
	*g = (struct ridge_workload_gemm){ name, n_from, k_from, rows, cols, m, instances, layers, expert, false };
}

int workload_gemms(const struct ridge_workload_model *m, double tokens,
		   struct ridge_workload_gemm out[RIDGE_WORKLOAD_MAX_GEMMS], char *err, size_t err_len)
{
	if (!(isfinite(tokens) && tokens >= 1))
		return model_fail(err, err_len, "tokens must be at least 1");
	int n = 0;
	double L = (double)m->layers;
	long long h = m->hidden, H = m->heads;
	if (m->mla) {
		long long qk = m->qk_nope_head_dim + m->qk_rope_head_dim;
		if (m->q_lora_rank > 0) {
			add_gemm(out, &n, "q_a_proj", "q_lora_rank", "hidden_size", m->q_lora_rank, h, tokens, 1, L,
				 false);
			add_gemm(out, &n, "q_b_proj", "num_attention_heads x (qk_nope_head_dim + qk_rope_head_dim)",
				 "q_lora_rank", H * qk, m->q_lora_rank, tokens, 1, L, false);
		} else {
			add_gemm(out, &n, "q_proj", "num_attention_heads x (qk_nope_head_dim + qk_rope_head_dim)",
				 "hidden_size", H * qk, h, tokens, 1, L, false);
		}
		add_gemm(out, &n, "kv_a_proj_with_mqa", "kv_lora_rank + qk_rope_head_dim", "hidden_size",
			 m->kv_lora_rank + m->qk_rope_head_dim, h, tokens, 1, L, false);
		add_gemm(out, &n, "kv_b_proj", "num_attention_heads x (qk_nope_head_dim + v_head_dim)", "kv_lora_rank",
			 H * (m->qk_nope_head_dim + m->v_head_dim), m->kv_lora_rank, tokens, 1, L, false);
		add_gemm(out, &n, "o_proj", "hidden_size", "num_attention_heads x v_head_dim", h, H * m->v_head_dim,
			 tokens, 1, L, false);
	} else {
		long long q = H * m->head_dim, kv = m->kv_heads * m->head_dim;
		add_gemm(out, &n, "q_proj", "num_attention_heads x head_dim", "hidden_size", q, h, tokens, 1, L, false);
		add_gemm(out, &n, "k_proj", "num_key_value_heads x head_dim", "hidden_size", kv, h, tokens, 1, L,
			 false);
		add_gemm(out, &n, "v_proj", "num_key_value_heads x head_dim", "hidden_size", kv, h, tokens, 1, L,
			 false);
		add_gemm(out, &n, "o_proj", "hidden_size", "num_attention_heads x head_dim", h, q, tokens, 1, L, false);
	}
	double moe_layers = (double)workload_moe_layers(m), dense_layers = L - moe_layers;
	if (dense_layers > 0) {
		add_gemm(out, &n, "gate_proj", "intermediate_size", "hidden_size", m->intermediate, h, tokens, 1,
			 dense_layers, false);
		add_gemm(out, &n, "up_proj", "intermediate_size", "hidden_size", m->intermediate, h, tokens, 1,
			 dense_layers, false);
		add_gemm(out, &n, "down_proj", "hidden_size", "intermediate_size", h, m->intermediate, tokens, 1,
			 dense_layers, false);
	}
	if (moe_layers > 0) {
		double E = (double)m->experts, k = (double)m->experts_per_token;
		/* Each token visits k experts: tokens x k / E rows per expert on average. */
		double per_expert = tokens * k / E;
		long long fe = m->expert_intermediate;
		add_gemm(out, &n, "router", "num_experts", "hidden_size", m->experts, h, tokens, 1, moe_layers, false);
		add_gemm(out, &n, "experts.gate_proj", EXPERT_WIDTH, "hidden_size", fe, h, per_expert, E, moe_layers,
			 true);
		add_gemm(out, &n, "experts.up_proj", EXPERT_WIDTH, "hidden_size", fe, h, per_expert, E, moe_layers,
			 true);
		add_gemm(out, &n, "experts.down_proj", "hidden_size", EXPERT_WIDTH, h, fe, per_expert, E, moe_layers,
			 true);
		if (m->shared_intermediate > 0) {
			long long fs = m->shared_intermediate;
			add_gemm(out, &n, "shared_expert.gate_proj", "shared expert intermediate", "hidden_size", fs, h,
				 tokens, 1, moe_layers, false);
			add_gemm(out, &n, "shared_expert.up_proj", "shared expert intermediate", "hidden_size", fs, h,
				 tokens, 1, moe_layers, false);
			add_gemm(out, &n, "shared_expert.down_proj", "hidden_size", "shared expert intermediate", h, fs,
				 tokens, 1, moe_layers, false);
			if (m->shared_expert_gate)
				add_gemm(out, &n, "shared_expert_gate", "1", "hidden_size", 1, h, tokens, 1, moe_layers,
					 false);
		}
	}
	add_gemm(out, &n, "lm_head", "vocab_size", "hidden_size", m->vocab, h, tokens, 1, 1, false);
	out[n - 1].per_step = true;
	(void)err_len;
	return n;
}

/* ---- parameters ---- */

int workload_params(const struct ridge_workload_model *m, struct ridge_workload_params *out, char *err, size_t err_len)
{
	memset(out, 0, sizeof *out);
	struct ridge_workload_gemm g[RIDGE_WORKLOAD_MAX_GEMMS];
	int n = workload_gemms(m, 1, g, err, err_len);
	if (n < 0)
		return -1;
	double h = (double)m->hidden, L = (double)m->layers;
	double moe_layers = (double)workload_moe_layers(m), dense_layers = L - moe_layers;
	double attention = 0, dense_mlp = 0, shared = 0, router = 0, expert = 0;
	for (int i = 0; i < n; i++) {
		double w = (double)g[i].n * (double)g[i].k;
		const char *name = g[i].name;
		if (g[i].per_step)
			continue;
		if (g[i].expert)
			expert += w;
		else if (strcmp(name, "router") == 0)
			router += w;
		else if (strncmp(name, "shared_expert", 13) == 0)
			shared += w;
		else if (strcmp(name, "gate_proj") == 0 || strcmp(name, "up_proj") == 0 ||
			 strcmp(name, "down_proj") == 0)
			dense_mlp += w;
		else
			attention += w;
	}
	/* Parameters no GEMM multiplies: biases, gpt-oss's sinks, MLA's latent norms. */
	double extras = 0;
	if (m->qkv_bias && !m->mla)
		extras += (double)(m->heads + 2 * m->kv_heads) * (double)m->head_dim;
	if (m->o_bias)
		extras += h;
	if (m->attention_sinks)
		extras += (double)m->heads;
	if (m->mla) /* the RMSNorms on the compressed q and kv latents */
		extras += (double)m->q_lora_rank + (double)m->kv_lora_rank;
	attention += extras;
	if (m->expert_bias && m->experts > 0) {
		expert += 2 * (double)m->expert_intermediate + h; /* gate/up's and down's biases */
		router += (double)m->experts;
	}
	out->attention_per_layer = attention;
	out->attention_extras_per_layer = extras;
	out->dense_mlp_per_layer = dense_mlp;
	out->expert = expert;
	out->shared_per_layer = shared;
	out->router_per_layer = router;
	out->norms_per_layer = 2 * h;
	out->embedding = (double)m->vocab * h;
	out->lm_head = m->tied_embeddings ? 0 : (double)m->vocab * h;
	out->final_norm = h;
	double E = (double)m->experts, k = (double)m->experts_per_token;
	double per_layer_common = attention + out->norms_per_layer;
	out->total = L * per_layer_common + dense_layers * dense_mlp + moe_layers * (router + shared + E * expert) +
		     out->embedding + out->lm_head + out->final_norm;
	out->active = L * per_layer_common + dense_layers * dense_mlp + moe_layers * (router + shared + k * expert) +
		      out->embedding + out->lm_head + out->final_norm;
	/* The LM head multiplies whether or not it is tied to the table. */
	double head = (double)m->vocab * h;
	out->active_without_embedding = out->active - out->embedding + (m->tied_embeddings ? head : 0);
	out->matmul_active = L * (attention - extras) + dense_layers * dense_mlp +
			     moe_layers * (router + shared + k * expert) + head;
	if (m->expert_bias && m->experts > 0) /* added, not multiplied */
		out->matmul_active -= moe_layers * (k * (2 * (double)m->expert_intermediate + h) + E);
	out->dense_weights = L * per_layer_common + dense_layers * dense_mlp + moe_layers * (router + shared) + head +
			     out->final_norm;
	if (!isfinite(out->total))
		return model_fail(err, err_len, "overflow: the parameter count is too large to represent");
	return 0;
}

/* ---- routing and cache ---- */

double workload_experts_touched(double experts, double per_token, double tokens)
{
	if (!(experts > 0) || !(per_token > 0) || !(tokens > 0))
		return 0;
	return experts * (1 - pow(1 - per_token / experts, tokens));
}

double workload_kv_heads_per_gpu(double kv_heads, double tp)
{
	return fmax(ceil(kv_heads / tp), 1);
}

int workload_kv_layout(const struct ridge_workload_model *m, double tp, struct ridge_kv_layout *out, char *err,
		       size_t err_len)
{
	memset(out, 0, sizeof *out);
	if (!(isfinite(tp) && tp >= 1 && tp == floor(tp)))
		return model_fail(err, err_len, "tensor parallelism must be a whole number of GPUs, at least 1");
	if (m->mla) {
		/* One latent per token, shared by every head: each GPU keeps all of it. */
		out->elements_per_token_layer = (double)(m->kv_lora_rank + m->qk_rope_head_dim);
		out->heads_per_gpu = 1;
		out->elements_per_token_layer_per_gpu = out->elements_per_token_layer;
	} else {
		double kv = (double)m->kv_heads, d = (double)m->head_dim;
		out->elements_per_token_layer = 2 * kv * d;
		out->heads_per_gpu = workload_kv_heads_per_gpu(kv, tp);
		out->elements_per_token_layer_per_gpu = 2 * out->heads_per_gpu * d;
	}
	out->replication = tp * out->elements_per_token_layer_per_gpu / out->elements_per_token_layer;
	return 0;
}

/* ---- kernels ---- */

static const char *const op_names[RIDGE_OP_COUNT] = {
	"norm", "gemm", "rope", "kv-write", "attention", "router-topk", "activation", "residual",
};

const char *workload_op_name(enum ridge_layer_op op)
{
	return (unsigned)op < RIDGE_OP_COUNT ? op_names[op] : NULL;
}

static int find_gemm(const struct ridge_workload_gemm *g, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(g[i].name, name) == 0)
			return i;
	return -1;
}

struct kernel_list {
	struct ridge_layer_kernel *k;
	int n;
	const struct ridge_workload_gemm *gemms;
	int gemm_count;
};

static void push(struct kernel_list *l, enum ridge_layer_op op, const char *gemm, double instances, bool moe,
		 bool dense)
{
	int index = gemm ? find_gemm(l->gemms, l->gemm_count, gemm) : -1;
	if (gemm && index < 0)
		return;
	if (l->n >= RIDGE_WORKLOAD_MAX_OPS)
		return;
	l->k[l->n++] = (struct ridge_layer_kernel){ op, index, instances, moe, dense, false };
}

/* A routed expert's kernel: once per expert the tokens touch. */
static void push_routed(struct kernel_list *l, enum ridge_layer_op op, const char *gemm, double experts_touched)
{
	int before = l->n;
	push(l, op, gemm, experts_touched, true, false);
	if (l->n > before)
		l->k[l->n - 1].routed = true;
}

int workload_layer_kernels(const struct ridge_workload_model *m, const struct ridge_workload_gemm *gemms,
			   int gemm_count, double experts_touched,
			   struct ridge_layer_kernel out[RIDGE_WORKLOAD_MAX_OPS])
{
	struct kernel_list l = { out, 0, gemms, gemm_count };
	push(&l, RIDGE_OP_NORM, NULL, 1, false, false);
	if (m->mla) {
		if (m->q_lora_rank > 0) {
			push(&l, RIDGE_OP_GEMM, "q_a_proj", 1, false, false);
			push(&l, RIDGE_OP_NORM, NULL, 1, false, false);
			push(&l, RIDGE_OP_GEMM, "q_b_proj", 1, false, false);
		} else {
			push(&l, RIDGE_OP_GEMM, "q_proj", 1, false, false);
		}
		push(&l, RIDGE_OP_GEMM, "kv_a_proj_with_mqa", 1, false, false);
		push(&l, RIDGE_OP_NORM, NULL, 1, false, false);
		push(&l, RIDGE_OP_GEMM, "kv_b_proj", 1, false, false);
	} else {
		push(&l, RIDGE_OP_GEMM, "q_proj", 1, false, false);
		push(&l, RIDGE_OP_GEMM, "k_proj", 1, false, false);
		push(&l, RIDGE_OP_GEMM, "v_proj", 1, false, false);
	}
	push(&l, RIDGE_OP_ROPE, NULL, 1, false, false);
	push(&l, RIDGE_OP_KV_WRITE, NULL, 1, false, false);
	push(&l, RIDGE_OP_ATTENTION, NULL, 1, false, false);
	push(&l, RIDGE_OP_GEMM, "o_proj", 1, false, false);
	push(&l, RIDGE_OP_RESIDUAL, NULL, 1, false, false);
	push(&l, RIDGE_OP_NORM, NULL, 1, false, false);
	bool has_dense = workload_moe_layers(m)<m->layers, has_moe = workload_moe_layers(m)> 0;
	if (has_dense) {
		push(&l, RIDGE_OP_GEMM, "gate_proj", 1, false, true);
		push(&l, RIDGE_OP_GEMM, "up_proj", 1, false, true);
		push(&l, RIDGE_OP_ACTIVATION, NULL, 1, false, true);
		push(&l, RIDGE_OP_GEMM, "down_proj", 1, false, true);
	}
	if (has_moe) {
		push(&l, RIDGE_OP_GEMM, "router", 1, true, false);
		push(&l, RIDGE_OP_ROUTER, NULL, 1, true, false);
		push_routed(&l, RIDGE_OP_GEMM, "experts.gate_proj", experts_touched);
		push_routed(&l, RIDGE_OP_GEMM, "experts.up_proj", experts_touched);
		push_routed(&l, RIDGE_OP_ACTIVATION, NULL, experts_touched);
		push_routed(&l, RIDGE_OP_GEMM, "experts.down_proj", experts_touched);
		/* index_add of each expert's rows back into the output */
		push_routed(&l, RIDGE_OP_RESIDUAL, NULL, experts_touched);
		if (m->shared_intermediate > 0) {
			push(&l, RIDGE_OP_GEMM, "shared_expert.gate_proj", 1, true, false);
			push(&l, RIDGE_OP_GEMM, "shared_expert.up_proj", 1, true, false);
			push(&l, RIDGE_OP_ACTIVATION, NULL, 1, true, false);
			push(&l, RIDGE_OP_GEMM, "shared_expert.down_proj", 1, true, false);
			push(&l, RIDGE_OP_GEMM, "shared_expert_gate", 1, true, false);
			push(&l, RIDGE_OP_RESIDUAL, NULL, 1, true, false);
		}
	}
	push(&l, RIDGE_OP_RESIDUAL, NULL, 1, false, false);
	return l.n;
}
