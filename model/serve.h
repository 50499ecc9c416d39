/* Serving a decoder: one decode step (TPOT) or one prefill (TTFT) of a
 * model/workload.h model on tensor-parallel GPUs, kernel by kernel.
 *
 *   each kernel of a layer (workload_layer_kernels) and of the step
 *   (embedding gather, final norm, LM head, sampling) gets its per-GPU shape
 *   under tensor parallelism and is priced by the kernel time model
 *   (timing_kernel: max(compute/eff_c, memory/eff_m) + fixed cost);
 *   the step is the sum, plus the launch cost of the mode and the
 *   communication time the caller supplies:
 *     eager       the host issues each kernel (launch.framework_overhead, a
 *                 framework's measured host cost per kernel, else
 *                 launch.overhead); a kernel
 *                 starts when both it is launched and the previous one is
 *                 done: host-bound steps take the host's time
 *     graph       one graph launch + kernels x launch.graph_node
 *     persistent  one launch
 *   layer plan    attention priced per kind of layer (workload.h): global
 *                 layers at the whole context, sliding-window layers at
 *                 min(context, window) (chunked: the keys of the request's
 *                 own chunk); the cache of each kind kept accordingly
 *   decode attention  one CTA per (request, KV head): with fewer such units
 *                 than SMs the kernel takes at least waves x (its cache /
 *                 units) / timing.<slot>.cta_bandwidth
 *   power limit   the step's compute-bound tensor-core time T beyond
 *                 power.burst_time (tau) runs at power.sustained_matrix_fraction
 *                 (f) of the burst rate: + (1/f - 1) (T - tau) (ridge-probe
 *                 --sustained measures f; the held clock's duration, tau)
 *   tpot_floor_s  max(bytes / bandwidth, FLOPs / peak) per GPU: the roofline
 *                 floor of the whole step (no launches, no fixed costs)
 *
 *   routed experts  grouped (the default): one grouped GEMM per projection
 *                 over the experts the batch touches, as serving engines run
 *                 them (fused MoE, torch._grouped_mm, DeepGEMM): one launch,
 *                 one fixed cost, FLOPs and bytes the sum over the experts,
 *                 each expert's rows (the routing expectation) in tiles of
 *                 their own (timing_grouped_quantization); the activation and
 *                 the combine one kernel each over all routed rows.
 *                 loop: one launch per expert touched, each kernel of the
 *                 expert's rows (the Hugging Face eager loop)
 *
 * Weights read per step: the dense weights, the experts the batch's routing
 * touches (workload_experts_touched), B gathered rows of the input table.
 * KV bytes: each GPU reads its max(ceil(n_kv / T), 1) heads (MLA: the whole
 * latent). Quantized storage adds its scale bytes (one scale per group).
 *
 * Pure; errors returned. docs/models/serve.md. */
#ifndef RIDGE_SERVE_H
#define RIDGE_SERVE_H

#include <stdbool.h>
#include <stddef.h>

#include "gpu.h"
#include "roofline.h"
#include "timing.h"
#include "workload.h"

enum ridge_launch_mode { RIDGE_LAUNCH_EAGER, RIDGE_LAUNCH_GRAPH, RIDGE_LAUNCH_PERSISTENT };
const char *serve_launch_name(enum ridge_launch_mode mode); /* "eager", "graph", "persistent" */
bool serve_launch_parse(const char *text, enum ridge_launch_mode *out);

/* Stored bytes per element with a group's scale: bytes + scale_bytes / group
 * (group 0: no per-group scale). */
struct ridge_storage {
	double bytes;       /* per element: bf16 2, fp8 1, int4 0.5 */
	double group;       /* elements per scale; 0: none */
	double scale_bytes; /* bytes of one scale */
};
double serve_storage_bytes(const struct ridge_storage *s);

enum ridge_serve_phase { RIDGE_PHASE_DECODE, RIDGE_PHASE_PREFILL };

/* How a MoE layer's routed experts run (above): grouped is 0, the default of
 * a zeroed request. */
enum ridge_moe_impl { RIDGE_MOE_GROUPED, RIDGE_MOE_LOOP };
const char *serve_moe_impl_name(enum ridge_moe_impl impl); /* "grouped", "loop"; NULL out of range */
bool serve_moe_impl_parse(const char *text, enum ridge_moe_impl *out);

/* How a layer's element-wise work runs: fused (0, the default) as engines
 * and ridge's kernel list have it (one RoPE kernel, one SiLU-multiply, one
 * cache write), or pytorch: one kernel per torch op as a plain layer written
 * with them runs (RoPE as t * cos, neg, cat, * sin, add on q and on k; the
 * two cache writes; SiLU and the multiply apart), on views: the
 * elementwise_strided class (serve.c, price_view_op). */
enum ridge_layer_ops { RIDGE_LAYER_OPS_FUSED, RIDGE_LAYER_OPS_PYTORCH };
const char *serve_layer_ops_name(enum ridge_layer_ops ops); /* "fused", "pytorch"; NULL out of range */
bool serve_layer_ops_parse(const char *text, enum ridge_layer_ops *out);

/* A host loop between steps: the time each step the GPU waits for the host,
 * serial with the kernels (a Python generation loop's bookkeeping between
 * tokens: logits processing, stopping criteria, cache positions, the
 * synchronize that hands the token to the host). An engine's or a graph-replay
 * loop that keeps the GPU fed has none. The named loops are measured
 * (serve.c, host_loops; validation/harnesses/hf_profile.py): a token's time
 * less the GPU's busy time in it. */
struct ridge_host_loop {
	const char *name;  /* "hf-generate" */
	double seconds;    /* per step: the fitted value */
	double range_s[2]; /* every measured shape's value, lowest and highest */
	enum ridge_provenance provenance;
	const char *source;
};
/* The named loop, or NULL; "none" is a loop of 0 s. */
const struct ridge_host_loop *serve_host_loop_find(const char *name);
const char *serve_host_loop_list(void); /* "none hf-generate" */

struct ridge_serve_request {
	const struct ridge_workload_model *model; /* resolved (workload_resolve) */
	const struct ridge_gpu *gpu;
	enum ridge_serve_phase phase;
	double batch;   /* requests */
	double context; /* decode: tokens in each request's cache; prefill: prompt tokens per request */
	double tp;      /* tensor-parallel GPUs: weights and heads split over them */
	struct ridge_storage weights, kv;
	/* A checkpoint that stores tensor groups differently (gpt-oss: MXFP4
	 * experts, bf16 attention; DeepSeek-V3: fp8 layers, bf16 embedding):
	 * the routed experts' and the embedding / LM head's storage. bytes 0:
	 * as weights. */
	struct ridge_storage expert_weights, embedding_weights;
	enum ridge_dtype compute_dtype; /* what the GEMMs and attention compute in (bf16) */
	enum ridge_launch_mode launch;
	enum ridge_moe_impl moe_impl;   /* the routed experts' kernels (MoE models) */
	enum ridge_layer_ops layer_ops; /* the layer's element-wise kernels (above) */
	bool fused_projections;         /* q/k/v and gate/up as one GEMM each, as engines load them
					 (serve.c, fuse_projections); false: one GEMM per projection,
					 as the Hugging Face modelling code runs them */
	/* the serving sim's token pass: a tensor-parallel all-reduce of fewer
	 * bytes than this (0: none) also adds the residual and applies the
	 * RMSNorm after it, in its one kernel (TensorRT-LLM's Llama layers:
	 * AllReduceFusionOp.RESIDUAL_RMS_NORM on its own kernels, which take
	 * messages up to its workspace; NCCL's, past it, run them apart), so a
	 * dense, non-MLA model at tp > 1 runs no norm or residual-add kernel of
	 * its own in the layers (the one norm left, the final one, is the
	 * logits pass's, as many as the unfused first layer's input norm) */
	double fused_allreduce_norm_bytes;
	double kernels_per_layer; /* launches per layer; 0: the modelled sequence's count. More than
				     modelled: the extra ones are priced as element-wise kernels on
				     the tokens x hidden activation */
	struct ridge_timing_options timing;
	/* --efficiency / --fixed-cost what-ifs (timing.h); used when has_overrides
	 * (held here, not behind timing.overrides, so a copied request keeps them) */
	bool has_overrides;
	struct ridge_timing_overrides overrides;
	double communication_s; /* per step, added as it is (tensor-parallel all-reduces: the
				   caller's model); 0: none */
	/* The host loop's wait per step (above), added as it is and its range
	 * to the step's range: host_loop_range_s [lo, hi] around host_loop_s
	 * (both 0: no spread known) */
	double host_loop_s;
	double host_loop_range_s[2];
	double price_usd_per_gpu_hour;
};

#define RIDGE_SERVE_MAX_KERNELS (RIDGE_WORKLOAD_MAX_OPS + 8)

/* One kernel of the step, per GPU: its time once and how often it runs. */
struct ridge_serve_kernel {
	char name[48];            /* "q_proj", "attention", "experts.up_proj" */
	enum ridge_kernel kernel; /* the shape priced */
	double count;             /* per step: layers x instances */
	double flops, bytes;      /* once, per GPU, with the storage types */
	double floor_s;           /* the kernel's roofline floor */
	double predicted_s;       /* timing_kernel's prediction (once), power_limit_s included */
	double matrix_s;          /* of it: tensor-core compute time at the burst rate, when compute binds */
	double power_limit_s;     /* what the sustained matrix rate adds to it (serve.c, the power limit) */
	bool stream_bound;        /* decode attention: fewer units than SMs, one CTA's stream rate binds */
	bool routed;              /* a routed expert's kernel (moe_impl says how it ran) */
	enum ridge_moe_impl moe_impl;
	double groups;    /* a grouped GEMM: the experts in its one launch (the expectation); 0 otherwise */
	bool chained;     /* launched after the previous kernel of its entry (--layer-ops pytorch: one
			     entry's several ops), not in its place (attention's global and window shares) */
	int layer_kernel; /* the workload_layer_kernels entry it prices (one entry may take two:
			     attention over global and over sliding-window layers); -1: a step kernel */
	struct ridge_kernel_time time;
};

struct ridge_serve_result {
	double tokens;                     /* through the step: batch (decode), batch x context (prefill) */
	double experts_touched;            /* per MoE layer (decode: batch tokens' routing) */
	double kv_bytes_per_token;         /* the whole model's cache entry, one token, all GPUs' distinct copy */
	double kv_bytes_per_token_per_gpu; /* what one GPU keeps (the head rule) */
	double weight_bytes;               /* weights read per step, all GPUs together */
	double kv_bytes;                   /* KV cache read (decode) or written (prefill) per step, all GPUs together */
	double bytes_per_step;             /* every kernel's traffic, all GPUs together */
	double flops_per_step;             /* all GPUs together */
	double attention_flops;            /* of flops_per_step: Q K^T and P V (4 L H d C per token for decode) */
	double memory_time_s;              /* per GPU: its bytes / HBM bandwidth */
	double compute_time_s;             /* per GPU: its FLOPs / peak */
	double floor_s;                    /* max of the two */
	enum ridge_bound bound;
	double kernel_time_s;          /* sum of the kernels' predictions (the power limit included) */
	double matrix_time_s;          /* of the kernels: compute-bound tensor-core time at the burst rate */
	double power_limit_time_s;     /* of kernel_time_s: the sustained rate's addition, (1/f - 1) (T - tau) */
	double launch_time_s;          /* what the launch mode adds to the step */
	double launch_time_range_s[2]; /* eager: launch_time_s with the host cost a kernel at the ends of
					  the eager band (timing_eager_host_band); else launch_time_s */
	double communication_s;
	double host_loop_s; /* the request's host loop wait per step */
	double step_s;      /* TPOT or TTFT: kernels + launches + communication + host loop */
	/* How far to trust step_s: the kernels' ranges summed by class
	 * (timing.h, struct ridge_time_sum: linear within a class, quadrature
	 * across classes); launches and communication carry no band (they
	 * are not in the held-out sets), so they shift the range without
	 * widening it. */
	struct ridge_time_sum time_sum;
	double step_range_s[2];
	double kernels_per_step;
	double tokens_per_s; /* decode: batch / TPOT; prefill: tokens / TTFT */
	double usd_per_million_tokens;
	/* memory per GPU */
	double weights_stored_per_gpu;
	double kv_cache_per_gpu; /* batch x the GPU's KV bytes of one request (every layer's cached tokens) */
	double memory_required_per_gpu, memory_available_per_gpu;
	bool fits;
	double max_batch; /* the largest batch whose cache fits beside the weights (0: the weights do not) */
	int kernel_count;
	struct ridge_serve_kernel kernels[RIDGE_SERVE_MAX_KERNELS];
};

/* The host time per kernel of an eager step: launch.framework_overhead
 * where the entry has it (a framework's measured dispatch cost), else
 * launch.overhead (the bare launch). */
double serve_eager_issue_s(const struct ridge_gpu *gpu);

/* A decode step (TPOT) or a prefill (TTFT). Returns 0, or -1 with err. */
int serve_step(const struct ridge_serve_request *req, struct ridge_serve_result *out, char *err, size_t err_len);

/* ---- one iteration of a serving engine (model/serve_sim.h) ----
 *
 * An engine's iteration mixes requests: some decode one token against their
 * own cache, some run a chunk of their prompt. Its parts, each priced by the
 * same kernels as serve_step:
 *   token pass      every kernel of the step at M = the iteration's tokens
 *                   (embedding, every layer's GEMMs, norms, rope, KV writes,
 *                   activations, residuals) except attention and the logits
 *   logits pass     the final norm, LM head and sampling over the rows that
 *                   sample (one per decoding request and per finished prompt)
 *   decode attention  one split-kv kernel per layer over the decoding
 *                   requests' caches (their mean context: its FLOPs and bytes
 *                   are linear in the summed context)
 *   chunk attention causal attention of a prompt chunk against its prefix
 *                   and itself: chunk x prefix + chunk (chunk + 1) / 2 pairs
 *                   per head; with no prefix, the prefill kernel of serve_step
 * A decode-only iteration of B requests at context C is serve_step's decode
 * step, kernel for kernel; one chunk of S tokens with no prefix is its
 * prefill of batch 1 (tests/unit check both). */
struct ridge_serve_pass {
	double kernel_time_s; /* sum of count x predicted (no power limit: serve_iteration_total adds it) */
	double matrix_time_s; /* of it: compute-bound tensor-core time at the burst rate */
	double kernels;       /* launches */
	double flops, bytes;  /* per GPU */
};

/* The token pass at `tokens` rows. req's phase, batch and context are not
 * read (the pass is the same for decode and prefill rows). */
int serve_token_pass(const struct ridge_serve_request *req, double tokens, struct ridge_serve_pass *out, char *err,
		     size_t err_len);
/* The logits pass over `rows` rows. */
int serve_logits_pass(const struct ridge_serve_request *req, double rows, struct ridge_serve_pass *out, char *err,
		      size_t err_len);
/* Decode attention of `requests` requests whose caches hold context_sum
 * tokens together (every layer). */
int serve_decode_attention_pass(const struct ridge_serve_request *req, double requests, double context_sum,
				struct ridge_serve_pass *out, char *err, size_t err_len);
/* Attention of a prompt chunk of `chunk` tokens after `prefix` cached ones
 * (every layer). */
int serve_chunk_attention_pass(const struct ridge_serve_request *req, double chunk, double prefix,
			       struct ridge_serve_pass *out, char *err, size_t err_len);
/* The power limit (serve.h, above) over an iteration whose compute-bound
 * tensor-core time is matrix_time_s: what it adds. */
double serve_power_limit_extra(const struct ridge_gpu *gpu, double matrix_time_s);

#endif
