/* A decode step or a prefill, kernel by kernel (serve.h). */
#include "serve.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "fail.h"
#include "intensity.h"
#include "names.h"

static const char *const launch_names[] = { "eager", "graph", "persistent" };
static const char *const moe_impl_names[] = { "grouped", "loop" };
static const char *const layer_ops_names[] = { "fused", "pytorch" };

MODEL_NAMED_ENUM(serve_moe_impl_name, serve_moe_impl_parse, enum ridge_moe_impl, moe_impl_names, 0, 2)
MODEL_NAMED_ENUM(serve_layer_ops_name, serve_layer_ops_parse, enum ridge_layer_ops, layer_ops_names, 0, 2)

/* Fitted by validation/harnesses/fit_host_loop.py: transformers 5.17's
 * generate (static cache, torch.compile, a streamer that synchronizes each
 * token) on an H100 host (Intel Xeon, Python 3.12, PyTorch 2.11), 2026-12-06:
 * per token, the token's time less the GPU's busy time in it (torch.profiler).
 * The median of the 3 Llama-3-8B shapes (1.704, 2.150, 1.728 ms); the range is
 * all 5 shapes' (Qwen2.5-7B 1.371, Llama-3.2-3B 1.913 held out). Another host
 * or version of transformers runs its own Python: the value is that machine's. */
static const struct ridge_host_loop host_loops[] = {
	{ "none",
	  0,
	  { 0, 0 },
	  RIDGE_PROVENANCE_FLOOR,
	  "none: the GPU never waits for the host between steps (an engine's scheduler overlapped with the "
	  "step, or a loop of graph replays), the least a loop can add" },
	{ "hf-generate",
	  1.728e-3,
	  { 1.371e-3, 2.150e-3 },
	  RIDGE_PROVENANCE_MEASURED,
	  "transformers' generate (5.17, static cache, compiled), measured on an H100 host (Intel Xeon, Python "
	  "3.12, PyTorch 2.11), 2026-12-06: a token's time less the GPU's busy time in it, the median of 3 "
	  "Llama-3-8B shapes; 1.37-2.15 ms over 5 shapes (measurements/2026-12-06-h100-host-gap, "
	  "validation/harnesses/fit_host_loop.py)" },
};

const struct ridge_host_loop *serve_host_loop_find(const char *name)
{
	for (size_t i = 0; name && i < sizeof host_loops / sizeof host_loops[0]; i++)
		if (strcasecmp(name, host_loops[i].name) == 0)
			return &host_loops[i];
	return NULL;
}

const char *serve_host_loop_list(void)
{
	return "none hf-generate";
}

const char *serve_launch_name(enum ridge_launch_mode mode)
{
	return (unsigned)mode < 3 ? launch_names[mode] : NULL;
}

bool serve_launch_parse(const char *text, enum ridge_launch_mode *out)
{
	for (int i = 0; i < 3; i++)
		if (strcasecmp(text, launch_names[i]) == 0) {
			*out = (enum ridge_launch_mode)i;
			return true;
		}
	return false;
}

double serve_storage_bytes(const struct ridge_storage *s)
{
	return s->bytes + (s->group > 0 ? s->scale_bytes / s->group : 0);
}

/* Library GEMMs with fewer rows than one CTA tile are skinny: cuBLAS runs
 * them as a pass over the weights (GEMV-like, split-K), which the 128 x 128
 * tile and wave quantization of timing.h does not describe. */
#define SKINNY_ROWS RIDGE_LIBRARY_TILE_M

/* The layer-count cap of the eager launch simulation: past it every layer
 * repeats the last one's increment (the pattern is periodic by then). */
#define SIMULATED_LAYERS 4096

struct pricer {
	const struct ridge_serve_request *req;
	struct ridge_serve_result *out;
	double e;            /* bytes per element of the compute dtype */
	double w;            /* stored bytes per weight element */
	double w_expert;     /* of a routed expert's weights */
	double w_embedding;  /* of the input table and the LM head */
	double kv;           /* stored bytes per cache element */
	double flops, bytes; /* per GPU, the whole step */
	char *err;
	size_t err_len;
};

/* The pricer of a request: its storage types' bytes per element (a tensor
 * group without its own storage: the weights'). */
static struct pricer pricer_for(const struct ridge_serve_request *req, struct ridge_serve_result *out, char *err,
				size_t err_len)
{
	double w = serve_storage_bytes(&req->weights);
	return (struct pricer){ req,
				out,
				ridge_dtype_bytes(req->compute_dtype),
				w,
				req->expert_weights.bytes > 0 ? serve_storage_bytes(&req->expert_weights) : w,
				req->embedding_weights.bytes > 0 ? serve_storage_bytes(&req->embedding_weights) : w,
				serve_storage_bytes(&req->kv),
				0,
				0,
				err,
				err_len };
}

static struct ridge_kernel_shape shape_of(const struct pricer *p, enum ridge_kernel kernel, double m, double n,
					  double k)
{
	struct ridge_kernel_shape s = { 0 };
	s.kernel = kernel;
	s.dtype = p->req->compute_dtype;
	s.m = m;
	s.n = n;
	s.k = k;
	return s;
}

/* Times one kernel, once, into the step's next slot (not yet counted: account
 * adds it). grouped, strided: the timing options of those names (timing.h). */
static struct ridge_serve_kernel *time_kernel_as(struct pricer *p, const char *name,
						 const struct ridge_kernel_shape *shape, bool grouped, bool strided)
{
	struct ridge_serve_result *out = p->out;
	if (out->kernel_count >= RIDGE_SERVE_MAX_KERNELS) {
		model_fail(p->err, p->err_len, "more than %d kernels in a step", RIDGE_SERVE_MAX_KERNELS);
		return NULL;
	}
	struct ridge_serve_kernel *k = &out->kernels[out->kernel_count];
	memset(k, 0, sizeof *k);
	char why[300];
	/* A graph or a persistent kernel issues its kernels back to back; an
	 * eager step's kernels wait for the host (the launch simulation). */
	struct ridge_timing_options topt = p->req->timing;
	topt.in_stream = p->req->launch != RIDGE_LAUNCH_EAGER;
	topt.overrides = p->req->has_overrides ? &p->req->overrides : NULL;
	topt.grouped = grouped;
	topt.strided = strided;
	/* Decode attention with no implementation asked for is split-kv, what
	 * SDPA and the serving engines run at one query token (timing.h). */
	if (shape->kernel == RIDGE_KERNEL_FLASH_ATTENTION && p->req->phase == RIDGE_PHASE_DECODE &&
	    topt.impl == RIDGE_ATTENTION_DEFAULT)
		topt.impl = RIDGE_ATTENTION_SPLIT_KV;
	/* A prompt through transformers' masked path: the mask sends SDPA to
	 * cuDNN (PyTorch 2.11); the copies are small beside the prompt's FLOPs. */
	if (shape->kernel == RIDGE_KERNEL_FLASH_ATTENTION && p->req->phase != RIDGE_PHASE_DECODE &&
	    (topt.impl == RIDGE_ATTENTION_REPEAT_KV || topt.impl == RIDGE_ATTENTION_REPEAT_KV_FUSED))
		topt.impl = RIDGE_ATTENTION_CUDNN;
	if (timing_kernel(p->req->gpu, shape, &topt, &k->time, why, sizeof why)) {
		model_fail(p->err, p->err_len, "%s: %s", name, why);
		return NULL;
	}
	snprintf(k->name, sizeof k->name, "%s", name);
	k->kernel = shape->kernel;
	k->layer_kernel = -1;
	return k;
}

static struct ridge_serve_kernel *time_kernel(struct pricer *p, const char *name,
					      const struct ridge_kernel_shape *shape)
{
	return time_kernel_as(p, name, shape, false, false);
}

/* Adds the kernel time_kernel timed `count` times to the step. flops and
 * bytes (>= 0) replace the shape's own where the storage types differ from
 * the compute dtype or the shape cannot say it (decode attention: one query
 * row against the cache; a grouped GEMM); the efficiencies, fixed cost and
 * quantization are then the kernel's time's, applied by timing_predict. */
static void account(struct pricer *p, struct ridge_serve_kernel *k, double count, double flops, double bytes,
		    double write_bytes)
{
	struct ridge_serve_result *out = p->out;
	const struct ridge_kernel_time *t = &k->time;
	k->count = count;
	if (flops < 0) {
		k->flops = t->cost.flops;
		k->bytes = t->hierarchy.levels[RIDGE_LEVEL_HBM].bytes;
		k->floor_s = t->time_floor_s;
		k->predicted_s = t->predicted_time_s;
		if (t->path.uses_matrix && t->compute_binds)
			k->matrix_s = t->floor_binds ? t->predicted_time_s
						     : t->quantized_compute_time_s / t->compute_efficiency.value;
	} else {
		double peak = t->ceiling.peak_flops;
		double compute = flops / peak;
		double bandwidth = roofline_hbm_bandwidth(p->req->gpu, bytes > 0 ? write_bytes / bytes : -1);
		double memory = bytes / bandwidth;
		k->flops = flops;
		k->bytes = bytes;
		k->floor_s = fmax(compute, memory);
		k->predicted_s =
			timing_predict(compute / t->quantization_efficiency, memory, t->compute_efficiency.value,
				       t->memory_efficiency.value, t->fixed_cost.value);
		double c = compute / t->quantization_efficiency / t->compute_efficiency.value;
		if (t->path.uses_matrix && c >= memory / t->memory_efficiency.value)
			k->matrix_s = c;
	}
	p->flops += count * k->flops;
	p->bytes += count * k->bytes;
	out->kernel_time_s += count * k->predicted_s;
	out->kernels_per_step += count;
	out->kernel_count++;
}

/* Prices one kernel, once, and adds it `count` times to the step (flops,
 * bytes and write_bytes as account's). */
static int price(struct pricer *p, const char *name, const struct ridge_kernel_shape *shape, double count, double flops,
		 double bytes, double write_bytes)
{
	struct ridge_serve_kernel *k = time_kernel(p, name, shape);
	if (!k)
		return -1;
	account(p, k, count, flops, bytes, write_bytes);
	return 0;
}

/* How a weight GEMM is split over tp GPUs (Megatron-style): column-parallel
 * (N split), row-parallel (K split: the projections back to hidden), or
 * replicated (the router, MLA's down-projections, the shared-expert gate). */
static void split_gemm(const struct ridge_workload_gemm *g, double tp, double *n, double *k)
{
	static const char *const row_parallel[] = { "o_proj", "down_proj", "experts.down_proj",
						    "shared_expert.down_proj" };
	static const char *const replicated[] = { "router", "q_a_proj", "kv_a_proj_with_mqa", "shared_expert_gate" };
	*n = (double)g->n;
	*k = (double)g->k;
	for (size_t i = 0; i < sizeof replicated / sizeof replicated[0]; i++)
		if (strcmp(g->name, replicated[i]) == 0)
			return;
	for (size_t i = 0; i < sizeof row_parallel / sizeof row_parallel[0]; i++)
		if (strcmp(g->name, row_parallel[i]) == 0) {
			*k = ceil(*k / tp);
			return;
		}
	*n = ceil(*n / tp);
}

/* A weight GEMM of m rows on one GPU: the weights in their storage type. */
/* Stored bytes per element of a GEMM's weights: its tensor group's storage. */
static double weight_storage(const struct pricer *p, const struct ridge_workload_gemm *g)
{
	return g->expert ? p->w_expert : g->per_step ? p->w_embedding : p->w;
}

static int price_gemm(struct pricer *p, const struct ridge_workload_gemm *g, double m, double count)
{
	double n, k, w = weight_storage(p, g);
	split_gemm(g, p->req->tp, &n, &k);
	m = ceil(m);
	struct ridge_kernel_shape s = shape_of(p, m < SKINNY_ROWS ? RIDGE_KERNEL_GEMV : RIDGE_KERNEL_GEMM, m, n, k);
	double weights = n * k * w;
	p->out->weight_bytes += count * p->req->tp * weights;
	if (w == p->e)
		return price(p, g->name, &s, count, -1, -1, 0);
	double y = m * n * p->e;
	return price(p, g->name, &s, count, 2 * m * n * k, m * k * p->e + weights + y, y);
}

/* A routed experts' GEMM as one grouped GEMM (--moe-impl grouped): one
 * launch over the `experts` the batch touches, sharing `routed_rows` (tokens
 * x top-k) by the routing expectation: routed_rows / experts each (both
 * fractional). FLOPs and bytes are the sum over the experts: 2 x routed rows
 * x N x K; each expert's weights once in their storage type, the routed
 * rows' activations in and out. Its tiles are per expert
 * (timing_grouped_quantization); one fixed cost for the launch. Its class
 * is grouped_gemm (torch._grouped_mm measured alone on an H100:
 * validation/harnesses/fit_grouped_gemm.py), the gemm class's terms where
 * the entry has none. */
static int price_grouped_gemm(struct pricer *p, const struct ridge_workload_gemm *g, double routed_rows, double experts,
			      double count)
{
	double n, k, rows = routed_rows / experts;
	split_gemm(g, p->req->tp, &n, &k);
	struct ridge_kernel_shape s = shape_of(p, RIDGE_KERNEL_GEMM, ceil(rows), n, k);
	struct ridge_serve_kernel *kernel = time_kernel_as(p, g->name, &s, true, false);
	if (!kernel)
		return -1;
	double flops = 2 * routed_rows * n * k;
	kernel->time.compute_time_s = flops / kernel->time.ceiling.peak_flops;
	if (timing_grouped_quantization(p->req->gpu, experts, rows, n, &kernel->time, p->err, p->err_len))
		return -1;
	kernel->groups = experts;
	double weights = experts * n * k * weight_storage(p, g);
	p->out->weight_bytes += count * p->req->tp * weights;
	double y = routed_rows * n * p->e;
	account(p, kernel, count, flops, routed_rows * k * p->e + weights + y, y);
	return 0;
}

/* An element-wise kernel over rows x width (reads one tensor, writes one;
 * two_inputs: reads two, as silu(gate) * up and a residual add do). */
static int price_elementwise(struct pricer *p, const char *name, double rows, double width, bool two_inputs,
			     double count)
{
	struct ridge_kernel_shape s =
		shape_of(p, two_inputs ? RIDGE_KERNEL_VECTOR_ADD : RIDGE_KERNEL_ACTIVATION, ceil(rows), width, 0);
	return price(p, name, &s, count, -1, -1, 0);
}

/* One torch element-wise op of a plain layer (--layer-ops pytorch): an
 * element-wise pass over rows x width reading `inputs` tensors, on a view
 * (PyTorch's unvectorized kernel: the elementwise_strided class) or on
 * contiguous tensors (its vectorized kernel: the elementwise class).
 * chained: a kernel of its own after the entry's previous one (a launch of
 * its own in an eager step). */
static int price_view_op(struct pricer *p, const char *name, double rows, double width, int inputs, bool strided,
			 bool chained, double count)
{
	/* On a view the kernel's time goes with its output elements, whatever it
	 * reads (the unvectorized kernel's per-element index arithmetic binds,
	 * not DRAM: validation/harnesses/fit_strided_elementwise.py): timed as
	 * one pass over its output, a read and a write; a second input's bytes
	 * are traffic all the same, added after. */
	bool by_output = strided && inputs > 1;
	struct ridge_kernel_shape s = shape_of(
		p, inputs > 1 && !by_output ? RIDGE_KERNEL_VECTOR_ADD : RIDGE_KERNEL_ACTIVATION, ceil(rows), width, 0);
	struct ridge_serve_kernel *k = time_kernel_as(p, name, &s, false, strided);
	if (!k)
		return -1;
	account(p, k, count, -1, -1, 0);
	k->chained = chained;
	if (by_output) {
		double extra = ceil(rows) * width * p->e * (inputs - 1);
		k->bytes += extra;
		p->bytes += count * extra;
		k->floor_s = fmax(k->floor_s, k->bytes / p->req->gpu->memory_bandwidth);
	}
	return 0;
}

/* RoPE as plain torch writes it, t * cos + cat(-t[..., d/2:], t[..., :d/2]) * sin,
 * on q and on k (the transposed [B, H, T, D] views): five kernels each. */
static int price_rope_ops(struct pricer *p, double rows, double q_width, double k_width, double count)
{
	static const struct {
		const char *name;
		double share; /* of the tensor's width the kernel runs over */
		int inputs;
	} ops[] = { { "t * cos", 1, 1 }, { "neg", 0.5, 1 }, { "cat", 1, 1 }, { "* sin", 1, 1 }, { "add", 1, 2 } };
	const struct {
		const char *tensor;
		double width;
	} tensors[] = { { "q", q_width }, { "k", k_width } };
	for (size_t t = 0; t < 2; t++)
		for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
			char name[40];
			snprintf(name, sizeof name, "rope %s: %s", tensors[t].tensor, ops[o].name);
			if (price_view_op(p, name, rows, tensors[t].width * ops[o].share, ops[o].inputs, true,
					  t > 0 || o > 0, count))
				return -1;
		}
	return 0;
}

static int price_norm(struct pricer *p, double rows, double width, double count)
{
	struct ridge_kernel_shape s = shape_of(p, RIDGE_KERNEL_RMSNORM, rows, width, 0);
	p->out->weight_bytes += count * p->req->tp * width * p->e;
	return price(p, "rmsnorm", &s, count, -1, -1, 0);
}

struct attention_sizes {
	double heads, kv_heads; /* per GPU */
	double qk, v;           /* head widths */
	double cache_elements;  /* per token per layer per GPU */
	double context;         /* tokens a query of a global layer attends to */
};

static void attention_sizes(const struct ridge_serve_request *req, const struct ridge_kv_layout *kv,
			    struct attention_sizes *a)
{
	const struct ridge_workload_model *m = req->model;
	a->heads = ceil((double)m->heads / req->tp);
	a->kv_heads = m->mla ? a->heads : kv->heads_per_gpu;
	a->qk = (double)workload_qk_head_dim(m);
	a->v = (double)workload_v_head_dim(m);
	a->cache_elements = kv->elements_per_token_layer_per_gpu;
	a->context = req->context;
}

/* A per-head decode attention kernel (--impl per-head) runs one CTA per
 * (request, KV head) unit, the query heads of a group together (the grouped
 * query of validation/heldout/decode_step.py), each streaming its
 * unit's cache from the first key to the last. With fewer units than SMs the
 * HBM ceiling is out of reach: the kernel takes at least waves x (cache /
 * units) / cta_bandwidth (one CTA's streaming rate, the entry's
 * timing.<slot>.cta_bandwidth; of the attention slots only attention_per_head has one: split-kv
 * kernels fill the GPU whatever the batch). */
static int stream_limit(struct pricer *p, struct ridge_serve_kernel *k, double units, double cache, double count)
{
	const struct ridge_gpu *gpu = p->req->gpu;
	const struct ridge_kernel_time *t = &k->time;
	if (t->slot < 0 || !gpu->timing[t->slot].has_cta_bandwidth || !(units >= 1) || !(cache > 0))
		return 0;
	double waves = ceil(units / gpu->sm_count);
	double stream = waves * (cache / units) / gpu->timing[t->slot].cta_bandwidth;
	/* The class's fixed cost (fill, drain, tail of kernels that fill the
	 * GPU) is not added on top: one CTA's stream from first key to last is
	 * the kernel's critical path, its start and end included. */
	if (stream <= k->predicted_s)
		return 0;
	double before = k->predicted_s;
	k->predicted_s = stream;
	k->stream_bound = true;
	p->out->kernel_time_s += count * (k->predicted_s - before);
	return 0;
}

/* Decode attention: one query row per request and head against the cache.
 * FLOPs 2 B H C (d_qk + d_v) = 4 B H d C for equal widths; MLA attends in
 * the latent (absorbed form): 2 B H C ((kv_lora + rope) + kv_lora). Bytes:
 * the cache read once in its storage type, q read and the output written.
 * repeat-kv (transformers over a static cache) first copies the cache out to
 * every query head and attends over the copy: the cache read, H/KV times it
 * written and read again (no copy where every head has its own KV head, as
 * transformers' repeat_kv returns its input at one repetition). */
static int price_decode_attention(struct pricer *p, const char *name, const struct attention_sizes *a, double count)
{
	const struct ridge_workload_model *m = p->req->model;
	double B = p->req->batch, C = a->context;
	double per_pair = m->mla ? (double)(2 * m->kv_lora_rank + m->qk_rope_head_dim) : a->qk + a->v;
	double flops = 2 * B * a->heads * C * per_pair;
	double cache = B * C * a->cache_elements * p->kv;
	double q = B * a->heads * (m->mla ? (double)(m->kv_lora_rank + m->qk_rope_head_dim) : a->qk) * p->e;
	double o = B * a->heads * (m->mla ? (double)m->kv_lora_rank : a->v) * p->e;
	p->out->kv_bytes += count * p->req->tp * cache;
	p->out->attention_flops += count * p->req->tp * flops;
	/* The shape names the class (attention) and its ceiling; its own
	 * counts are replaced: a FlashAttention shape has as many keys as queries. */
	struct ridge_kernel_shape s = shape_of(p, RIDGE_KERNEL_FLASH_ATTENTION, 0, 0, 0);
	s.batch = B;
	s.seq = 1;
	s.heads = a->heads;
	s.kv_heads = a->heads;
	s.head_dim = a->qk;
	double moved = cache;
	bool repeat = p->req->timing.impl == RIDGE_ATTENTION_REPEAT_KV ||
		      p->req->timing.impl == RIDGE_ATTENTION_REPEAT_KV_FUSED;
	if (repeat && !m->mla && a->heads > a->kv_heads)
		moved = cache * (1 + 2 * a->heads / a->kv_heads);
	if (price(p, name, &s, count, flops, moved + q + o, o))
		return -1;
	return stream_limit(p, &p->out->kernels[p->out->kernel_count - 1], B * a->kv_heads, cache, count);
}

/* Prefill attention: causal FlashAttention over the prompt, the shape's own
 * counts (S (S+1) / 2 pairs per head). MLA runs it with the decompressed
 * heads (qk_nope + qk_rope wide). */
static int price_prefill_attention(struct pricer *p, const char *name, const struct attention_sizes *a, bool local,
				   double count)
{
	const struct ridge_workload_model *m = p->req->model;
	struct ridge_kernel_shape s = shape_of(p, RIDGE_KERNEL_FLASH_ATTENTION, 0, 0, 0);
	if (local) {
		s.window = (double)m->sliding_window;
		s.chunked = m->chunked_attention;
	}
	s.batch = p->req->batch;
	s.seq = p->req->context;
	s.heads = a->heads;
	s.kv_heads = fmod(a->heads, a->kv_heads) == 0 ? a->kv_heads : a->heads;
	s.head_dim = a->qk;
	s.causal = true;
	int rc = price(p, name, &s, count, -1, -1, 0);
	if (rc == 0)
		p->out->attention_flops += count * p->req->tp * p->out->kernels[p->out->kernel_count - 1].flops;
	return rc;
}

/* Tokens a decode query of a sliding-window layer attends to at `context`:
 * the window's (min(context, W)); chunked, its own chunk's so far,
 * ((context - 1) mod W) + 1. */
static double local_context(const struct ridge_workload_model *m, double context)
{
	double W = (double)m->sliding_window;
	return m->chunked_attention ? fmod(context - 1, W) + 1 : fmin(context, W);
}

/* Attention over the layer plan: the global layers' kernel and the
 * sliding-window layers' (count split by their share of the layers); one
 * kind alone keeps the name "attention". */
static int price_attention_plan(struct pricer *p, const struct attention_sizes *a, double count)
{
	const struct ridge_workload_model *m = p->req->model;
	double L = (double)m->layers, local = (double)workload_local_layers(m), global = L - local;
	bool both = local > 0 && global > 0;
	bool decode = p->req->phase == RIDGE_PHASE_DECODE;
	if (global > 0 &&
	    (decode ? price_decode_attention(p, both ? "attention (global)" : "attention", a, count * global / L)
		    : price_prefill_attention(p, both ? "attention (global)" : "attention", a, false,
					      count * global / L)))
		return -1;
	if (local == 0)
		return 0;
	char name[48];
	snprintf(name, sizeof name, both ? "attention (%s %lld)" : "attention",
		 m->chunked_attention ? "chunk" : "window", m->sliding_window);
	struct attention_sizes windowed = *a;
	windowed.context = local_context(m, a->context);
	return decode ? price_decode_attention(p, name, &windowed, count * local / L)
		      : price_prefill_attention(p, name, a, true, count * local / L);
}

/* Rows a kernel of the layer sees: the tokens; a routed expert's kernel in
 * the loop, the expert's share; grouped, every routed row (tokens x top-k)
 * in one kernel. */
static double rows_for(const struct ridge_serve_request *req, const struct ridge_layer_kernel *k, double tokens,
		       double per_expert)
{
	if (!k->routed)
		return tokens;
	return req->moe_impl == RIDGE_MOE_GROUPED ? tokens * (double)req->model->experts_per_token : per_expert;
}

static int price_layer(struct pricer *p, const struct ridge_workload_gemm *g, const struct ridge_layer_kernel *lk,
		       int nk, const struct attention_sizes *a, double tokens, double touched,
		       const struct ridge_kv_layout *kv)
{
	const struct ridge_serve_request *req = p->req;
	const struct ridge_workload_model *m = req->model;
	double L = (double)m->layers, moe_layers = (double)workload_moe_layers(m);
	double per_expert = touched > 0 ? tokens * (double)m->experts_per_token / touched : tokens;
	double h = (double)m->hidden, tp = req->tp;
	bool plain = req->layer_ops == RIDGE_LAYER_OPS_PYTORCH;
	for (int i = 0; i < nk; i++) {
		const struct ridge_layer_kernel *k = &lk[i];
		double layers = k->moe ? moe_layers : k->dense ? L - moe_layers : L;
		double count = layers * k->instances;
		if (count <= 0)
			continue;
		double rows = rows_for(req, k, tokens, per_expert);
		const char *prev = i > 0 && lk[i - 1].gemm >= 0 ? g[lk[i - 1].gemm].name : "";
		bool grouped = k->routed && req->moe_impl == RIDGE_MOE_GROUPED;
		int first = p->out->kernel_count, rc = 0;
		switch (k->op) {
		case RIDGE_OP_GEMM:
			rc = grouped ? price_grouped_gemm(p, &g[k->gemm], rows, touched, count)
				     : price_gemm(p, &g[k->gemm], rows, count);
			break;
		case RIDGE_OP_NORM: {
			double width = strcmp(prev, "q_a_proj") == 0             ? (double)m->q_lora_rank
				       : strcmp(prev, "kv_a_proj_with_mqa") == 0 ? (double)m->kv_lora_rank
										 : h;
			rc = price_norm(p, rows, width, count);
			break;
		}
		case RIDGE_OP_ROPE: {
			if (plain && !m->mla) {
				rc = price_rope_ops(p, rows, a->heads * a->qk, a->kv_heads * a->qk, count);
				break;
			}
			double width = m->mla ? (a->heads + 1) * (double)m->qk_rope_head_dim
					      : (a->heads + a->kv_heads) * a->qk;
			rc = price_elementwise(p, "rope", rows, width, false, count);
			break;
		}
		case RIDGE_OP_KV_WRITE: {
			/* the step's new entries, written in the cache's storage type */
			double elements = rows * kv->elements_per_token_layer_per_gpu;
			struct ridge_kernel_shape s = shape_of(p, RIDGE_KERNEL_ACTIVATION, ceil(rows),
							       kv->elements_per_token_layer_per_gpu, 0);
			if (req->phase == RIDGE_PHASE_PREFILL)
				p->out->kv_bytes += count * tp * elements * p->kv;
			if (plain && !m->mla && p->kv == p->e) {
				/* k and v copied into the cache apart (v from its view) */
				double half = kv->elements_per_token_layer_per_gpu / 2;
				rc = price_view_op(p, "cache write k", rows, half, 1, true, false, count) ||
				     price_view_op(p, "cache write v", rows, half, 1, true, true, count);
				break;
			}
			rc = p->kv == p->e ? price(p, "kv-write", &s, count, -1, -1, 0)
					   : price(p, "kv-write", &s, count, elements, elements * (p->e + p->kv),
						   elements * p->kv);
			break;
		}
		case RIDGE_OP_ATTENTION:
			rc = price_attention_plan(p, a, count);
			break;
		case RIDGE_OP_ROUTER: {
			struct ridge_kernel_shape s =
				shape_of(p, RIDGE_KERNEL_SOFTMAX, ceil(rows), (double)m->experts, 0);
			rc = price(p, "router-topk", &s, count, -1, -1, 0);
			break;
		}
		case RIDGE_OP_ACTIVATION: {
			double ff = strncmp(prev, "experts", 7) == 0          ? (double)m->expert_intermediate
				    : strncmp(prev, "shared_expert", 13) == 0 ? (double)m->shared_intermediate
									      : (double)m->intermediate;
			/* the activation follows up_proj; its width is up_proj's per-GPU N */
			if (plain) {
				/* SiLU and the multiply apart, over the halves of a fused
				 * gate/up output (views) or two projections' outputs */
				bool views = req->fused_projections;
				rc = price_view_op(p, "silu", rows, ceil(ff / tp), 1, views, false, count) ||
				     price_view_op(p, "silu * up", rows, ceil(ff / tp), 2, views, true, count);
				break;
			}
			rc = price_elementwise(p, "silu-mul", rows, ceil(ff / tp), true, count);
			break;
		}
		case RIDGE_OP_RESIDUAL:
			rc = price_elementwise(p,
					       !k->routed ? "residual-add"
					       : grouped  ? "expert-combine"
							  : "expert-index-add",
					       rows, h, true, count);
			break;
		default:
			break;
		}
		if (rc)
			return -1;
		for (int j = first; j < p->out->kernel_count; j++) {
			p->out->kernels[j].routed = k->routed;
			p->out->kernels[j].moe_impl = req->moe_impl;
			p->out->kernels[j].layer_kernel = i;
		}
	}
	return 0;
}

/* Engines load the projections that read the same input as one weight and
 * run one GEMM of their summed N: q, k and v (vLLM's and SGLang's
 * QKVParallelLinear, TensorRT-LLM's qkv_proj), gate and up
 * (MergedColumnParallelLinear, gate_up_proj; a fused MoE's w13), as
 * docs/models/serve.md cites. With req->fused_projections the layer's list
 * takes the fused GEMM at the first one's place and drops the others; the
 * first's entry in g becomes the fused one (its N the sum), the others' keep
 * no instances (so the weights stored count once). A group not all
 * present (MLA has no k_proj, v_proj) stays as it is. */
static void fuse_projections(struct ridge_workload_gemm *g, struct ridge_layer_kernel *lk, int *nk)
{
	static const struct {
		const char *first, *others[2], *fused, *n_from;
	} groups[] = {
		{ "q_proj", { "k_proj", "v_proj" }, "qkv_proj", "(heads + 2 kv heads) x head_dim" },
		{ "gate_proj", { "up_proj", NULL }, "gate_up_proj", "2 x intermediate_size" },
		{ "shared_expert.gate_proj",
		  { "shared_expert.up_proj", NULL },
		  "shared_expert.gate_up_proj",
		  "2 x shared expert intermediate" },
		{ "experts.gate_proj",
		  { "experts.up_proj", NULL },
		  "experts.gate_up_proj",
		  "2 x moe_intermediate_size" },
	};
	for (size_t gi = 0; gi < sizeof groups / sizeof groups[0]; gi++) {
		int first = -1, others[2] = { -1, -1 }, wanted = 0, found = 0;
		for (int i = 0; i < *nk; i++) {
			if (lk[i].op != RIDGE_OP_GEMM)
				continue;
			const char *name = g[lk[i].gemm].name;
			if (first < 0 && strcmp(name, groups[gi].first) == 0)
				first = i;
			for (int o = 0; o < 2; o++)
				if (first >= 0 && groups[gi].others[o] && others[o] < 0 &&
				    strcmp(name, groups[gi].others[o]) == 0)
					others[o] = i;
		}
		for (int o = 0; o < 2; o++)
			if (groups[gi].others[o]) {
				wanted++;
				found += others[o] >= 0;
			}
		if (first < 0 || found != wanted)
			continue;
		struct ridge_workload_gemm *f = &g[lk[first].gemm];
		for (int o = 0; o < 2; o++)
			if (others[o] >= 0) {
				struct ridge_workload_gemm *absorbed = &g[lk[others[o]].gemm];
				f->n += absorbed->n;
				absorbed->instances = 0; /* its weights are the fused one's now */
			}
		f->name = groups[gi].fused;
		f->n_from = groups[gi].n_from;
		int kept = 0;
		for (int i = 0; i < *nk; i++)
			if (i != others[0] && i != others[1])
				lk[kept++] = lk[i];
		*nk = kept;
	}
}

/* The layer's kernels as the request runs them (fused projections or not). */
static int layer_kernels(const struct ridge_serve_request *req, struct ridge_workload_gemm *g, int ng, double touched,
			 struct ridge_layer_kernel lk[RIDGE_WORKLOAD_MAX_OPS])
{
	int nk = workload_layer_kernels(req->model, g, ng, touched, lk);
	if (req->fused_projections)
		fuse_projections(g, lk, &nk);
	return nk;
}

/* The launch mode's cost. Eager: kernel i starts when the host has launched
 * it (one launch.overhead each, back to back) and kernel i-1 is done; the
 * step ends with the last kernel. Graph: one launch plus a node cost each.
 * Persistent: one launch. issue_scale: the eager host time a kernel as a
 * multiple of the entry's (1; the eager band's ends for the step's range). */
static double launch_time(const struct ridge_serve_request *req, const struct ridge_serve_result *out,
			  const struct ridge_layer_kernel *lk, int nk, int first_layer_kernel, int layer_kernels_end,
			  double issue_scale)
{
	const struct ridge_gpu *gpu = req->gpu;
	if (req->launch == RIDGE_LAUNCH_PERSISTENT)
		return gpu->launch_overhead_s;
	if (req->launch == RIDGE_LAUNCH_GRAPH)
		return gpu->launch_overhead_s + out->kernels_per_step * gpu->graph_node_s;
	/* eager: simulate host and GPU clocks over the sequence */
	const struct ridge_workload_model *m = req->model;
	double t_launch = serve_eager_issue_s(gpu) * issue_scale;
	double host = 0, device = 0;
	const struct ridge_serve_kernel *k = out->kernels;
	/* the step's own kernels before the layers (the embedding) */
	for (int i = 0; i < first_layer_kernel; i++) {
		host += k[i].count * t_launch;
		device = fmax(device, host) + k[i].count * k[i].predicted_s;
	}
	double L = (double)m->layers, dense = L - (double)workload_moe_layers(m);
	double simulated = fmin(L, SIMULATED_LAYERS), last_increment = 0, last_host_increment = 0;
	for (double layer = 0; layer < simulated; layer++) {
		double before = device, host_before = host;
		bool is_dense = layer < dense;
		int j = first_layer_kernel;
		for (int i = 0; i < nk && j < layer_kernels_end; i++) {
			double layers = lk[i].moe ? L - dense : lk[i].dense ? dense : L;
			if (layers * lk[i].instances <= 0)
				continue; /* not priced: no entry */
			bool runs = lk[i].moe ? !is_dense : lk[i].dense ? is_dense : true;
			/* the entry's kernels (attention: global and sliding-window
			 * layers' in their shares), one launch */
			double t = 0;
			for (; j < layer_kernels_end && k[j].layer_kernel == i; j++) {
				if (k[j].chained && runs) { /* the previous kernels' launch, then its own */
					host += lk[i].instances * t_launch;
					device = fmax(device, host) + lk[i].instances * t;
					t = 0;
				}
				t += k[j].predicted_s * k[j].count / (layers * lk[i].instances);
			}
			if (runs) {
				host += lk[i].instances * t_launch;
				device = fmax(device, host) + lk[i].instances * t;
			}
		}
		/* the extra element-wise kernels of --kernels-per-layer, if any */
		for (; j < layer_kernels_end; j++) {
			double per_layer = k[j].count / L;
			host += per_layer * t_launch;
			device = fmax(device, host) + per_layer * k[j].predicted_s;
		}
		last_increment = device - before;
		last_host_increment = host - host_before;
	}
	/* past the simulated layers each layer repeats the last one's increments */
	device += (L - simulated) * last_increment;
	host += (L - simulated) * last_host_increment;
	for (int i = layer_kernels_end; i < out->kernel_count; i++) {
		host += k[i].count * t_launch;
		device = fmax(device, host) + k[i].count * k[i].predicted_s;
	}
	return device - out->kernel_time_s;
}

double serve_eager_issue_s(const struct ridge_gpu *gpu)
{
	return gpu->has_framework_overhead ? gpu->framework_overhead_s : gpu->launch_overhead_s;
}

/* The power limit over the step: the tensor-core compute time T of the
 * step's compute-bound matrix kernels runs at the burst rate for the first
 * power.burst_time (tau), then at sustained_matrix_fraction (f) of it:
 * T becomes tau + (T - tau) / f. Each such kernel's compute time grows by
 * the same factor, (1/f - 1) (1 - tau/T), so the eager simulation and the
 * per-kernel table see the throttled kernels. */
static void apply_power_limit(const struct ridge_gpu *gpu, struct ridge_serve_result *out)
{
	double matrix = 0;
	for (int i = 0; i < out->kernel_count; i++)
		matrix += out->kernels[i].count * out->kernels[i].matrix_s;
	out->matrix_time_s = matrix;
	if (!gpu->has_sustained_matrix || !(matrix > gpu->burst_time_s))
		return;
	double growth = (1 / gpu->sustained_matrix_fraction - 1) * (1 - gpu->burst_time_s / matrix);
	for (int i = 0; i < out->kernel_count; i++) {
		struct ridge_serve_kernel *k = &out->kernels[i];
		double extra = k->matrix_s * growth;
		k->power_limit_s = extra;
		k->predicted_s += extra;
		out->power_limit_time_s += k->count * extra;
	}
	out->kernel_time_s += out->power_limit_time_s;
}

static int check_request(const struct ridge_serve_request *r, char *err, size_t err_len)
{
	if (!r->model || !r->gpu)
		return model_fail(err, err_len, "no model or GPU");
	const struct {
		const char *what;
		double v;
	} need[] = { { "batch", r->batch },
		     { r->phase == RIDGE_PHASE_DECODE ? "context" : "seq", r->context },
		     { "tensor parallelism", r->tp } };
	for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
		if (!(isfinite(need[i].v) && need[i].v >= 1 && need[i].v == floor(need[i].v) && need[i].v <= 1e12))
			return model_fail(err, err_len, "%s must be a whole number from 1 to 1e12, not %g",
					  need[i].what, need[i].v);
	const struct ridge_storage *st[4] = { &r->weights, &r->kv, &r->expert_weights, &r->embedding_weights };
	static const char *const what[4] = { "weight", "KV", "expert weight", "embedding" };
	for (int i = 0; i < 4; i++) {
		bool unset = i >= 2 && st[i]->bytes == 0 && st[i]->group == 0 && st[i]->scale_bytes == 0;
		if (!unset && !(st[i]->bytes > 0 && isfinite(st[i]->bytes) && st[i]->group >= 0 &&
				isfinite(st[i]->group) && st[i]->scale_bytes >= 0 && isfinite(st[i]->scale_bytes)))
			return model_fail(err, err_len, "%s storage: bytes must be > 0, group and scale bytes >= 0",
					  what[i]);
	}
	if (!serve_moe_impl_name(r->moe_impl))
		return model_fail(err, err_len, "unknown MoE implementation %d", (int)r->moe_impl);
	if (!serve_layer_ops_name(r->layer_ops))
		return model_fail(err, err_len, "unknown layer ops %d", (int)r->layer_ops);
	if (!(isfinite(r->kernels_per_layer) && r->kernels_per_layer >= 0 && r->kernels_per_layer <= 1e6))
		return model_fail(err, err_len, "kernels per layer must be 0 to 1e6");
	if (!(isfinite(r->communication_s) && r->communication_s >= 0))
		return model_fail(err, err_len, "the communication time must not be negative");
	if (!(isfinite(r->host_loop_s) && r->host_loop_s >= 0 && isfinite(r->host_loop_range_s[0]) &&
	      isfinite(r->host_loop_range_s[1]) && r->host_loop_range_s[0] <= r->host_loop_range_s[1]))
		return model_fail(err, err_len, "the host loop time must not be negative, its range low to high");
	if (!(isfinite(r->price_usd_per_gpu_hour) && r->price_usd_per_gpu_hour >= 0))
		return model_fail(err, err_len, "the price must not be negative");
	if (r->model->layers > 100000)
		return model_fail(err, err_len,
				  "num_hidden_layers %lld: more than 100000 layers is not a decoder ridge can time",
				  r->model->layers);
	return 0;
}

/* The step from its kernels: the launches (and, eager, their host cost at
 * the eager band's ends), the communication and the host loop added, and
 * the step's range: the kernels' bands, then the eager band's and the host
 * loop's spreads, each beside the others. */
static void step_total(const struct ridge_serve_request *req, struct ridge_serve_result *out,
		       const struct ridge_layer_kernel *lk, int nk, int first_layer_kernel, int layer_kernels_end)
{
	out->launch_time_s = launch_time(req, out, lk, nk, first_layer_kernel, layer_kernels_end, 1);
	out->launch_time_range_s[0] = out->launch_time_range_s[1] = out->launch_time_s;
	struct ridge_time_band eager;
	if (req->launch == RIDGE_LAUNCH_EAGER && timing_eager_host_band(&eager)) {
		out->launch_time_range_s[0] =
			launch_time(req, out, lk, nk, first_layer_kernel, layer_kernels_end, 1 + eager.low);
		out->launch_time_range_s[1] =
			launch_time(req, out, lk, nk, first_layer_kernel, layer_kernels_end, 1 + eager.high);
	}
	out->communication_s = req->communication_s;
	out->host_loop_s = req->host_loop_s;
	out->step_s = out->kernel_time_s + out->launch_time_s + out->communication_s + out->host_loop_s;
	for (int i = 0; i < out->kernel_count; i++) {
		const struct ridge_serve_kernel *k = &out->kernels[i];
		if (k->time.predicted_time_s > 0)
			timing_range_add(&out->time_sum, &k->time,
					 k->count * k->predicted_s / k->time.predicted_time_s);
	}
	if (out->power_limit_time_s > 0)
		timing_sum_power_limit(&out->time_sum, req->gpu);
	timing_range_total(&out->time_sum, out->step_s, out->step_range_s);
	/* an eager step's host cost a kernel: its own held-out band */
	out->step_range_s[0] += out->launch_time_range_s[0] - out->launch_time_s;
	out->step_range_s[1] += out->launch_time_range_s[1] - out->launch_time_s;
	if (req->host_loop_range_s[1] > 0) { /* the host loop's own spread, beside the kernels' */
		out->step_range_s[0] += req->host_loop_range_s[0] - req->host_loop_s;
		out->step_range_s[1] += req->host_loop_range_s[1] - req->host_loop_s;
	}
}

int serve_step(const struct ridge_serve_request *req, struct ridge_serve_result *out, char *err, size_t err_len)
{
	memset(out, 0, sizeof *out);
	if (check_request(req, err, err_len))
		return -1;
	const struct ridge_workload_model *m = req->model;
	struct pricer p = pricer_for(req, out, err, err_len);
	double B = req->batch, tp = req->tp, h = (double)m->hidden;
	double tokens = req->phase == RIDGE_PHASE_DECODE ? B : B * req->context;
	out->tokens = tokens;
	struct ridge_kv_layout kv;
	struct ridge_workload_gemm g[RIDGE_WORKLOAD_MAX_GEMMS];
	int ng = workload_gemms(m, tokens, g, err, err_len);
	if (ng < 0 || workload_kv_layout(m, tp, &kv, err, err_len))
		return -1;
	double L = (double)m->layers;
	out->kv_bytes_per_token = kv.elements_per_token_layer * L * p.kv;
	out->kv_bytes_per_token_per_gpu = kv.elements_per_token_layer_per_gpu * L * p.kv;
	double touched = workload_experts_touched((double)m->experts, (double)m->experts_per_token, tokens);
	out->experts_touched = touched;
	struct ridge_layer_kernel lk[RIDGE_WORKLOAD_MAX_OPS];
	int nk = layer_kernels(req, g, ng, touched, lk);
	/* grouped: each routed kernel is one launch over the experts touched */
	for (int i = 0; i < nk; i++)
		if (lk[i].routed && req->moe_impl == RIDGE_MOE_GROUPED)
			lk[i].instances = 1;
	struct attention_sizes a;
	attention_sizes(req, &kv, &a);

	/* the input embedding: B (or B x S) rows gathered from the table */
	if (price_elementwise(&p, "embedding", tokens, h, false, 1))
		return -1;
	out->weight_bytes += tokens * h * p.w_embedding;
	int first_layer_kernel = out->kernel_count;
	if (price_layer(&p, g, lk, nk, &a, tokens, touched, &kv))
		return -1;
	double modelled_per_layer = out->kernels_per_step - 1;
	if (req->kernels_per_layer > modelled_per_layer / L &&
	    price_elementwise(&p, "other (element-wise)", tokens, h, false,
			      L * (req->kernels_per_layer - modelled_per_layer / L)))
		return -1;
	int layer_kernels_end = out->kernel_count;
	/* the logits: only the last position of each request (decode: its one token) */
	const struct ridge_workload_gemm *head = &g[ng - 1];
	if (price_norm(&p, B, h, 1) || price_gemm(&p, head, B, 1))
		return -1;
	double n_head, k_head;
	split_gemm(head, tp, &n_head, &k_head);
	struct ridge_kernel_shape argmax = shape_of(&p, RIDGE_KERNEL_REDUCTION, B, n_head, 0);
	if (price(&p, "sampling (argmax)", &argmax, 1, -1, -1, 0))
		return -1;
	if (req->kernels_per_layer > 0 && req->kernels_per_layer < modelled_per_layer / L)
		out->kernels_per_step += L * req->kernels_per_layer - modelled_per_layer; /* fused: fewer launches */

	out->bytes_per_step = p.bytes * tp;
	out->flops_per_step = p.flops * tp;
	double peak = 0;
	const char *why = NULL;
	if (!ridge_gpu_peak(req->gpu, req->compute_dtype, RIDGE_PEAK_DEFAULT, false, &peak, &why))
		return model_fail(err, err_len, "%s has no %s rate (%s)", req->gpu->id,
				  ridge_dtype_name(req->compute_dtype), why);
	out->memory_time_s = p.bytes / req->gpu->memory_bandwidth;
	out->compute_time_s = p.flops / peak;
	out->floor_s = fmax(out->memory_time_s, out->compute_time_s);
	out->bound = out->compute_time_s > out->memory_time_s ? RIDGE_BOUND_COMPUTE : RIDGE_BOUND_MEMORY;
	apply_power_limit(req->gpu, out);
	step_total(req, out, lk, nk, first_layer_kernel, layer_kernels_end);
	out->tokens_per_s = (req->phase == RIDGE_PHASE_DECODE ? B : tokens) / out->step_s;
	out->usd_per_million_tokens = tp * req->price_usd_per_gpu_hour / (3600 * out->tokens_per_s) * 1e6;

	/* memory per GPU: every weight in its storage (all experts), the table
	 * split by vocabulary, norms in the compute dtype, the cache */
	struct ridge_workload_params params;
	if (workload_params(m, &params, err, err_len))
		return -1;
	double stored = 0;
	for (int i = 0; i < ng; i++) {
		double n, k;
		split_gemm(&g[i], tp, &n, &k);
		if (!(m->tied_embeddings && g[i].per_step))
			stored += n * k * g[i].instances * g[i].layers * weight_storage(&p, &g[i]);
	}
	stored += ceil((double)m->vocab / tp) * h * p.w_embedding + (2 * L + 1) * h * p.e;
	out->weights_stored_per_gpu = stored;
	/* one request's cache: every layer's tokens (the layer plan), per GPU */
	double per_request = workload_cached_layer_tokens(m, req->context) * kv.elements_per_token_layer_per_gpu * p.kv;
	out->kv_cache_per_gpu = B * per_request;
	out->memory_required_per_gpu = stored + out->kv_cache_per_gpu;
	out->memory_available_per_gpu = ridge_gpu_usable_memory(req->gpu);
	out->fits = out->memory_available_per_gpu == 0 || out->memory_required_per_gpu <= out->memory_available_per_gpu;
	out->max_batch = out->memory_available_per_gpu > stored
				 ? floor((out->memory_available_per_gpu - stored) / per_request)
				 : 0;
	if (!isfinite(out->step_s) || !isfinite(out->bytes_per_step))
		return model_fail(err, err_len, "overflow: the step's bytes or time are too large to represent");
	return 0;
}

/* ---- one iteration's parts (serve.h, "one iteration of a serving engine") ---- */

/* What every part needs: the pricer over a scratch result, the GEMMs at
 * `tokens` rows, the cache layout and the attention sizes. */
struct pass_context {
	struct ridge_serve_request req; /* the caller's, with the part's phase, batch and context */
	struct ridge_serve_result scratch;
	struct pricer p;
	struct ridge_workload_gemm g[RIDGE_WORKLOAD_MAX_GEMMS];
	int ng;
	struct ridge_kv_layout kv;
	struct attention_sizes a;
};

static int pass_begin(struct pass_context *c, const struct ridge_serve_request *req, enum ridge_serve_phase phase,
		      double batch, double context, double tokens, char *err, size_t err_len)
{
	c->req = *req;
	c->req.phase = phase;
	c->req.batch = batch;
	c->req.context = context;
	c->req.kernels_per_layer = 0;
	/* the parts are priced as a graph or a persistent kernel issues them; the
	 * engine's launch mode is the iteration's (model/serve_sim.c) */
	if (c->req.launch == RIDGE_LAUNCH_EAGER)
		c->req.launch = RIDGE_LAUNCH_GRAPH;
	if (check_request(&c->req, err, err_len))
		return -1;
	/* the kernels' slots are written as they are timed (time_kernel): the
	 * totals before them are what starts at zero */
	memset(&c->scratch, 0, offsetof(struct ridge_serve_result, kernels));
	c->p = pricer_for(&c->req, &c->scratch, err, err_len);
	c->ng = workload_gemms(req->model, tokens, c->g, err, err_len);
	if (c->ng < 0 || workload_kv_layout(req->model, req->tp, &c->kv, err, err_len))
		return -1;
	attention_sizes(&c->req, &c->kv, &c->a);
	return 0;
}

static void pass_end(const struct pass_context *c, struct ridge_serve_pass *out)
{
	memset(out, 0, sizeof *out);
	const struct ridge_serve_result *r = &c->scratch;
	out->kernel_time_s = r->kernel_time_s;
	out->kernels = r->kernels_per_step;
	out->flops = c->p.flops;
	out->bytes = c->p.bytes;
	for (int i = 0; i < r->kernel_count; i++)
		out->matrix_time_s += r->kernels[i].count * r->kernels[i].matrix_s;
}

int serve_token_pass(const struct ridge_serve_request *req, double tokens, struct ridge_serve_pass *out, char *err,
		     size_t err_len)
{
	struct pass_context context, *c = &context; /* pass_begin fills it */
	if (pass_begin(c, req, RIDGE_PHASE_DECODE, tokens, 1, tokens, err, err_len))
		return -1;
	const struct ridge_workload_model *m = req->model;
	double touched = workload_experts_touched((double)m->experts, (double)m->experts_per_token, tokens);
	struct ridge_layer_kernel all[RIDGE_WORKLOAD_MAX_OPS], lk[RIDGE_WORKLOAD_MAX_OPS];
	int n_all = layer_kernels(req, c->g, c->ng, touched, all), nk = 0;
	bool fused_norms = req->tp > 1 && tokens * (double)m->hidden * 2 < req->fused_allreduce_norm_bytes && !m->mla &&
			   m->experts == 0;
	for (int i = 0; i < n_all; i++) {
		if (all[i].op == RIDGE_OP_ATTENTION)
			continue; /* per request: the attention passes */
		if (fused_norms && (all[i].op == RIDGE_OP_NORM || all[i].op == RIDGE_OP_RESIDUAL))
			continue; /* inside the all-reduce (serve.h) */
		lk[nk] = all[i];
		if (lk[nk].routed && req->moe_impl == RIDGE_MOE_GROUPED)
			lk[nk].instances = 1;
		nk++;
	}
	if (price_elementwise(&c->p, "embedding", tokens, (double)m->hidden, false, 1) ||
	    price_layer(&c->p, c->g, lk, nk, &c->a, tokens, touched, &c->kv))
		return -1;
	pass_end(c, out);
	return 0;
}

int serve_logits_pass(const struct ridge_serve_request *req, double rows, struct ridge_serve_pass *out, char *err,
		      size_t err_len)
{
	struct pass_context context, *c = &context; /* pass_begin fills it */
	if (pass_begin(c, req, RIDGE_PHASE_DECODE, rows, 1, rows, err, err_len))
		return -1;
	const struct ridge_workload_gemm *head = &c->g[c->ng - 1];
	if (price_norm(&c->p, rows, (double)req->model->hidden, 1) || price_gemm(&c->p, head, rows, 1))
		return -1;
	double n_head, k_head;
	split_gemm(head, req->tp, &n_head, &k_head);
	struct ridge_kernel_shape argmax = shape_of(&c->p, RIDGE_KERNEL_REDUCTION, rows, n_head, 0);
	if (price(&c->p, "sampling (argmax)", &argmax, 1, -1, -1, 0))
		return -1;
	pass_end(c, out);
	return 0;
}

int serve_decode_attention_pass(const struct ridge_serve_request *req, double requests, double context_sum,
				struct ridge_serve_pass *out, char *err, size_t err_len)
{
	if (!(requests >= 1 && context_sum >= requests))
		return model_fail(err, err_len, "decode attention needs a request and a token of context each");
	struct pass_context context, *c = &context; /* pass_begin fills it */
	/* the mean context: FLOPs and cache bytes are linear in the sum */
	if (pass_begin(c, req, RIDGE_PHASE_DECODE, requests, 1, requests, err, err_len))
		return -1;
	c->req.context = context_sum / requests;
	attention_sizes(&c->req, &c->kv, &c->a);
	/* the layer plan at the mean context (a window caps each kind's keys) */
	if (price_attention_plan(&c->p, &c->a, (double)req->model->layers))
		return -1;
	pass_end(c, out);
	return 0;
}

/* A prompt chunk's attention over `layers` layers whose queries see at most
 * `window` keys: the chunk's queries against prefix + chunk keys, causal
 * within the chunk (a chunked-attention layer is priced as a window of its
 * chunk size: the upper bound). */
static int price_chunk_attention(struct pass_context *c, double chunk, double prefix, double window, double layers)
{
	if (!(layers > 0))
		return 0;
	const struct ridge_workload_model *m = c->req.model;
	double pairs = 0;
	if (prefix + chunk <= window)
		pairs = chunk * prefix + chunk * (chunk + 1) / 2;
	else
		pairs = chunk * fmin(window, prefix + (chunk + 1) / 2); /* each query sees at most the window */
	double e = c->p.e;
	double per_pair = m->mla ? (double)(workload_qk_head_dim(m) + workload_v_head_dim(m)) : c->a.qk + c->a.v;
	double flops = 2 * c->a.heads * pairs * per_pair;
	double keys = fmin(prefix + chunk, window + chunk);
	double cache = keys * c->a.cache_elements * c->p.kv;
	double q = chunk * c->a.heads * c->a.qk * e, o = chunk * c->a.heads * c->a.v * e;
	struct ridge_kernel_shape s = shape_of(&c->p, RIDGE_KERNEL_FLASH_ATTENTION, 0, 0, 0);
	s.batch = 1;
	s.seq = chunk;
	s.heads = c->a.heads;
	s.kv_heads = fmod(c->a.heads, c->a.kv_heads) == 0 ? c->a.kv_heads : c->a.heads;
	s.head_dim = c->a.qk;
	s.causal = true;
	return price(&c->p, isinf(window) ? "attention (chunk)" : "attention (chunk, window)", &s, layers, flops,
		     q + cache + o, o);
}

int serve_chunk_attention_pass(const struct ridge_serve_request *req, double chunk, double prefix,
			       struct ridge_serve_pass *out, char *err, size_t err_len)
{
	if (!(chunk >= 1 && prefix >= 0 && chunk == floor(chunk) && prefix == floor(prefix)))
		return model_fail(err, err_len, "a prompt chunk needs whole tokens, at least one");
	struct pass_context context, *c = &context; /* pass_begin fills it */
	if (pass_begin(c, req, RIDGE_PHASE_PREFILL, 1, chunk, chunk, err, err_len))
		return -1;
	double L = (double)req->model->layers;
	if (prefix == 0) {
		if (price_attention_plan(&c->p, &c->a, L))
			return -1;
		pass_end(c, out);
		return 0;
	}
	/* global layers: the whole prefix; sliding-window layers: the window */
	const struct ridge_workload_model *m = req->model;
	double local = (double)workload_local_layers(m);
	if (price_chunk_attention(c, chunk, prefix, INFINITY, L - local) ||
	    price_chunk_attention(c, chunk, prefix, (double)m->sliding_window, local))
		return -1;
	pass_end(c, out);
	return 0;
}

double serve_power_limit_extra(const struct ridge_gpu *gpu, double matrix_time_s)
{
	if (!gpu->has_sustained_matrix || !(matrix_time_s > gpu->burst_time_s))
		return 0;
	return matrix_time_s * (1 / gpu->sustained_matrix_fraction - 1) * (1 - gpu->burst_time_s / matrix_time_s);
}
