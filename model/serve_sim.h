/* Serving as an engine runs it: a discrete-event simulation of a vLLM,
 * SGLang or TensorRT-LLM iteration loop under load, each iteration priced by
 * ridge's step model (serve.h, "one iteration of a serving engine").
 *
 *   requests   closed loop (concurrency C: C clients, each sending its next
 *              request when the last one finishes, as vLLM's and SGLang's
 *              benchmark clients and trtllm-bench do) or open loop (Poisson
 *              arrivals at a rate, from a seeded PRNG: the same seed, the
 *              same run); the first `warmup` requests are left out of the
 *              statistics
 *   memory     paged KV blocks in what the engine leaves for the cache: its
 *              memory fraction of the card less the weights and the
 *              activations (vLLM, SGLang), or its fraction of what is free
 *              after them (TensorRT-LLM)
 *   scheduler  each iteration takes the running requests' decode tokens and
 *              prompt chunks, then admits waiting requests first come first
 *              served, up to the token budget (max_num_batched_tokens) and
 *              max_num_seqs, while their blocks fit; when a running request's
 *              next block does not fit the newest running request is
 *              preempted and recomputed later (vLLM, SGLang's retraction);
 *              TensorRT-LLM's default policy (GUARANTEED_NO_EVICT) admits a
 *              request only when its whole prompt + output fits, and never
 *              preempts. SGLang runs prefill and decode iterations apart;
 *              with its mixed chunk (off by default) the running requests'
 *              decode tokens join each prefill iteration
 *   iteration  the token pass at the iteration's tokens, decode attention
 *              over the decoding requests' caches, each chunk's attention,
 *              the logits of the rows that sample, the TP all-reduces
 *              (comm_serve_step_launch) and the launch mode: a decode-only
 *              batch up to the engine's largest captured size replays a CUDA
 *              graph (padded to a captured size), its all-reduces graph
 *              nodes; other iterations are issued from the host (host-bound
 *              when their kernels are short), their all-reduces enqueued
 *              eagerly (vLLM's piecewise graphs capture them: graph nodes),
 *              plus the engine's CPU time per iteration
 *
 * Statistics as the engines' benchmark scripts compute them: TTFT, TPOT per
 * request ((E2E - TTFT) / (output tokens - 1)), E2E, inter-token latency
 * (every gap between two tokens of a request), percentiles by linear
 * interpolation (numpy's default); throughput over the measured requests'
 * span. docs/models/serve-sim.md.
 *
 * Pure: no I/O; the caller provides the memory (serve_sim_workspace_bytes). */
#ifndef RIDGE_SERVE_SIM_H
#define RIDGE_SERVE_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "serve.h"

enum ridge_engine_kind { RIDGE_ENGINE_VLLM, RIDGE_ENGINE_SGLANG, RIDGE_ENGINE_TRTLLM, RIDGE_ENGINE_COUNT };
const char *serve_engine_name(enum ridge_engine_kind kind); /* "vllm", "sglang", "trtllm" */
bool serve_engine_parse(const char *text, enum ridge_engine_kind *out);

/* How a decode batch is padded to a captured CUDA graph size. */
#define RIDGE_GRAPH_SIZES_MAX 32 /* captured sizes an engine can list */

enum ridge_graph_sizes {
	RIDGE_GRAPH_VLLM,   /* 1, 2, 4, then multiples of 8 to 256, then of 16 */
	RIDGE_GRAPH_SGLANG, /* 1, 2, 4, 8, 12, then multiples of 8 */
	RIDGE_GRAPH_TRTLLM, /* 1 to 31, 32, 64, 128, powers of two, the maximum; no padding: others run eager
			       (graph_padding: 1, 2, 4, multiples of 8 to 128, powers of two, the maximum) */
};

/* Where the KV cache's memory comes from. */
enum ridge_kv_budget {
	RIDGE_KV_OF_TOTAL, /* fraction x card memory - weights - activations (vLLM, SGLang) */
	RIDGE_KV_OF_FREE,  /* fraction x (card memory - weights - activations) (TensorRT-LLM) */
};

/* An engine's scheduler and runtime, as its documented defaults set them
 * (serve_engine_defaults); every field can be overridden. */
struct ridge_engine {
	enum ridge_engine_kind kind;
	const char *version;           /* the source version the defaults were read from */
	const char *source;            /* file and function of the defaults */
	double max_num_batched_tokens; /* tokens per iteration */
	double max_num_seqs;           /* requests running at once */
	bool chunked_prefill;
	bool mixed_batches;  /* prompt chunks ride with decode tokens in one iteration (SGLang: its
				mixed chunk, with chunked prefill; the decodes first, all of them) */
	bool reserve_output; /* admission reserves prompt + output: no preemption */
	double block_size;   /* tokens per KV block */
	double memory_fraction;
	enum ridge_kv_budget kv_budget;
	double graph_max_batch; /* decode-only iterations up to this batch replay a CUDA graph; 0: none */
	enum ridge_graph_sizes graph_sizes;
	/* launches of an iteration issued from the host per layer: piecewise
	 * graphs (vLLM: one graph piece and one attention kernel) or 0: every
	 * kernel of the layer */
	double host_launches_per_layer;
	double cpu_overhead_s; /* the engine's host time per iteration not hidden under the GPU */
	const char *cpu_overhead_source;
	/* host time of each request outside the iteration loop (the API
	 * server's HTTP, tokenization and hand-off to the engine, the first
	 * token's way back): added to every request's TTFT and E2E as its
	 * client sees them; the loop does not see it (a closed-loop client's
	 * next request reaches the engine when the last one finished there) */
	double request_latency_s;
	const char *request_latency_source;
	/* TensorRT-LLM's batch waiting (batch_wait_timeout_iters and
	 * batch_wait_max_tokens_ratio; 0 and 0, its default, turn it off): an
	 * iteration that has both new prompts and decode tokens runs the decodes
	 * alone while prompts + decodes stay under ratio x the token budget, for
	 * at most batch_wait_iters iterations in a row
	 * (PyExecutor._schedule and _waiting_requests) */
	double batch_wait_iters, batch_wait_tokens_ratio;
	/* TensorRT-LLM's cuda_graph_config.enable_padding: a decode batch runs
	 * the next captured size up (1, 2, 4, multiples of 8 to 128, powers of
	 * two, the maximum) instead of eagerly */
	bool graph_padding;
	/* TensorRT-LLM's cuda_graph_config.batch_sizes: the captured sizes,
	 * ascending, instead of the generated ones (graph_max_batch is then the
	 * last); 0 of them: generated */
	double graph_batch_sizes[RIDGE_GRAPH_SIZES_MAX];
	int graph_batch_size_count;
	/* the engine's own all-reduce kernel (comm.h, "the serving engines'
	 * custom all-reduce") takes tensor-parallel messages below this many
	 * bytes inside one NVLink switch domain; NCCL larger ones; 0: NCCL
	 * always (the engines' --disable-custom-all-reduce) */
	double custom_allreduce_max_bytes;
	const char *custom_allreduce_source;
	/* TensorRT-LLM's Llama layers fuse each all-reduce with the residual
	 * add and RMSNorm after it when tp > 1 and hidden_size > 4096
	 * (LlamaDecoderLayer.enable_fusion); whether a model is such a Llama the
	 * caller says (serve_engine_fuses_allreduce_norm) */
	bool allreduce_norm_fusion;
	/* sliding-window layers keep only their window's blocks (vLLM's hybrid
	 * KV cache manager, on by default); off: every layer holds the whole
	 * context, as the other engines are modelled */
	bool hybrid_kv_cache;
	/* the scheduler runs one iteration ahead: each iteration is built while
	 * the one before it runs, so a request that reached the engine after that
	 * one started waits for the iteration after (aggregated runs; an engine
	 * with nothing running builds an iteration as soon as a request comes).
	 * vLLM's --async-scheduling (pull request #19970; off in the versions
	 * the preset was read from), SGLang's overlap scheduler and TensorRT-LLM's
	 * (both on by default: --disable-overlap-schedule, disable_overlap_scheduler) */
	bool overlap_scheduling;
};

/* The defaults of an engine on a GPU of `memory_bytes` at tp GPUs (vLLM and
 * SGLang choose some by the card's memory). */
void serve_engine_defaults(enum ridge_engine_kind kind, double memory_bytes, const char *gpu_id, double tp,
			   struct ridge_engine *out);

/* vLLM's and SGLang's custom all-reduce cap, CustomAllreduce(max_size=8192 *
 * 1024) (vllm/distributed/device_communicators/custom_all_reduce.py; SGLang's
 * port of it): messages below it take the engine's own kernel. */
#define RIDGE_CUSTOM_ALLREDUCE_CAP_VLLM (8192.0 * 1024)

/* Whether the engine fuses the all-reduces with the norms for this model:
 * its allreduce_norm_fusion, a Llama decoder (model_type "llama", the caller
 * knows it), hidden_size above 4096 (TensorRT-LLM: "Disable fusion for small
 * models due to accuracy issues"). serve.h's fused_allreduce_norm_bytes: the
 * engine's custom all-reduce cap where it does. */
bool serve_engine_fuses_allreduce_norm(const struct ridge_engine *e, bool llama_decoder, long long hidden);

/* The captured size a decode batch of `batch` requests replays (0: no graph). */
double serve_engine_graph_size(const struct ridge_engine *e, double batch);

enum ridge_length_dist { RIDGE_LENGTH_FIXED, RIDGE_LENGTH_UNIFORM, RIDGE_LENGTH_LIST };

/* Iteration prices kept across runs of one request type (the same model,
 * GPU, tp, storage and compute dtype, and the same prompt and output
 * lengths): a search runs many engines on the same passes. The caller owns
 * the memory (serve_sim_memo_bytes for the largest token budget and
 * sequence limit it will run) and clears it (serve_sim_memo_clear) before
 * its first use and whenever the request type changes. memory NULL: the
 * run prices into its own workspace. */
struct ridge_serve_memo {
	void *memory;
	size_t bytes;
};
size_t serve_sim_memo_bytes(double max_num_batched_tokens, double max_num_seqs);
void serve_sim_memo_clear(struct ridge_serve_memo *memo, double max_num_batched_tokens, double max_num_seqs);

/* Disaggregated serving (Dynamo, SGLang's and vLLM's prefill/decode
 * disaggregation, TensorRT-LLM's disaggregated server): prefill_workers
 * engine instances of prefill_tp GPUs run every prompt (prefill-only
 * iterations), decode_workers instances of decode_tp GPUs receive each
 * request after its KV cache crossed to them (docs/models/serve-sim.md,
 * "Disaggregated"). decode_workers 0: aggregated. */
struct ridge_serve_disagg {
	double prefill_tp, prefill_workers, decode_tp, decode_workers;
	struct ridge_engine prefill_engine; /* the decode pool's is the input's engine */
	double network_bandwidth;           /* bytes/s per GPU, one direction, between nodes; 0: the entry's NICs */
	struct ridge_serve_memo prefill_memo;
};

struct ridge_serve_sim_input {
	struct ridge_serve_request req; /* model, GPU, tp, storage, compute dtype, timing, price;
					   phase, batch, context and communication are not read */
	struct ridge_engine engine;
	double isl, osl; /* prompt and output tokens (the fixed lengths) */
	enum ridge_length_dist isl_dist;
	double isl_lo, isl_hi;    /* uniform: whole tokens from lo to hi */
	const double *isl_values; /* list: drawn in turn */
	size_t isl_count;
	/* output lengths, drawn as the prompts' are (osl_dist FIXED: osl); a
	 * uniform draw takes its own seeded stream, so a seed's prompt lengths
	 * and arrivals are the same whatever the output lengths */
	enum ridge_length_dist osl_dist;
	double osl_lo, osl_hi;
	const double *osl_values;
	size_t osl_count;
	double concurrency;           /* closed loop; 0: open loop */
	double rate;                  /* open loop: requests per second */
	double requests;              /* measured */
	double warmup;                /* issued first and left out */
	uint64_t seed;                /* arrivals and uniform lengths */
	double max_context;           /* the model's context (max_position_embeddings); 0: unchecked */
	double memory_bytes;          /* per GPU; 0: the entry's usable memory (the driver's total) */
	int timeline_capacity;        /* iteration samples kept for a plot (0: none; disaggregated: the
				  first decode worker's) */
	struct ridge_serve_memo memo; /* optional: the engine's (disaggregated: the decode pool's) prices */
	double max_iterations;        /* stop after this many iterations, every worker's (0: never) */
	struct ridge_serve_disagg disagg;
};

struct ridge_latency_stats {
	double mean_s, p50_s, p90_s, p99_s;
};

/* One pool of a disaggregated run: its workers' cache and iterations. */
struct ridge_serve_pool {
	double tp, workers, gpus;
	double memory_bytes, weights_bytes, activation_bytes, kv_cache_bytes, kv_blocks, kv_tokens; /* per GPU */
	double kv_utilization, kv_utilization_peak, preemptions;
	double iterations, mean_batch_tokens, mean_running;
	double busy_fraction; /* the workers' iteration time from the first measured arrival over the
				 measured span, mean (at most 1: the last iteration can end past the span) */
};

struct ridge_serve_disagg_result {
	struct ridge_serve_pool prefill, decode;
	/* the KV cache of one request of the longest prompt crossing from a
	 * prefill worker to a decode worker (serve_disagg_transfer) */
	double transfer_bytes;       /* every layer's cache (the layer plan's), as the decode GPUs hold it */
	double transfer_streams;     /* GPU pairs moving it at once: min(prefill tp, decode tp) */
	double transfer_s;           /* send-recv of bytes / streams (comm_collective) */
	double transfer_latency_s;   /* of it: the send-recv's alpha */
	double transfer_bandwidth;   /* bytes/s of one stream */
	const char *transfer_path;   /* "NVLink" (both pools in one fabric domain), "network" */
	double transfer_domain_gpus; /* GPUs one fabric domain joins */
	/* the mean TTFT of the measured requests, by part: arrival to the end of
	 * the prompt's prefill; waiting for the decode worker's blocks and the
	 * link; the transfer; from its end to the first token on the decode
	 * worker (vLLM: its iteration that recomputes the last prompt token) */
	double ttft_prefill_s, ttft_wait_s, ttft_transfer_s, ttft_decode_s;
	double ttft_request_s;      /* the request's host time outside the loops (the engine's request_latency_s) */
	bool first_token_on_decode; /* vLLM: the decode worker samples it; else the prefill's travels with the KV */
};

/* One sample of the iteration loop (the timeline). */
struct ridge_serve_sim_sample {
	double time_s, step_s;
	double decode_tokens, prefill_tokens;
	double running, waiting;
	double kv_used; /* of the blocks */
};

struct ridge_serve_sim_result {
	struct ridge_latency_stats ttft, tpot, itl, e2e;
	double output_tokens_per_s, output_tokens_per_s_per_gpu, total_tokens_per_s, requests_per_s;
	double usd_per_million_output_tokens;
	double kv_utilization;      /* time-weighted mean of the blocks in use, measured span */
	double kv_utilization_peak; /* the most in use in one iteration */
	double preemptions;         /* over the whole run */
	double duration_s;          /* the measured span */
	double measured_requests, simulated_requests;
	double osl_mean; /* the measured requests' output tokens, mean (the lengths drawn) */
	/* memory per GPU */
	double memory_bytes, weights_bytes, activation_bytes, kv_cache_bytes;
	double kv_bytes_per_token_per_gpu;
	double kv_blocks, kv_tokens;
	/* the iterations */
	double iterations, graph_iterations, mixed_iterations, mean_batch_tokens, mean_running;
	/* where the time went, summed over every iteration */
	double token_pass_s, attention_s, logits_s, power_limit_s, launch_s, communication_s, cpu_s;
	/* the timeline (timeline_capacity samples at most, evenly thinned) */
	int sample_count;
	double sample_stride; /* iterations per sample */
	double gpus;          /* tp, or the two pools' GPUs (disaggregated) */
	bool disaggregated;
	struct ridge_serve_disagg_result disagg;
};

/* Bytes of workspace serve_sim_run needs for this input (0 with err when the
 * input is out of bounds). */
size_t serve_sim_workspace_bytes(const struct ridge_serve_sim_input *in, char *err, size_t err_len);

/* Runs the simulation. samples: timeline_capacity of them (may be NULL when
 * 0). Returns 0; -1 with err for bad input; 1 with err when the
 * configuration cannot serve one request (its KV cache does not fit); 2
 * with err when it stopped at max_iterations. */
int serve_sim_run(const struct ridge_serve_sim_input *in, void *workspace, size_t workspace_bytes,
		  struct ridge_serve_sim_sample *samples, struct ridge_serve_sim_result *out, char *err,
		  size_t err_len);

/* Disaggregated serving (in->disagg.decode_workers > 0): the same loop per
 * worker, the requests handed from the prefill pool to the decode pool.
 * serve_sim_workspace_bytes and serve_sim_run take both kinds of input. */

/* The KV cache of one request of `prompt` tokens crossing from a prefill
 * worker of prefill_tp GPUs to a decode worker of decode_tp GPUs: each
 * decode GPU receives its share of every layer's cache (the layer plan's
 * tokens), over min(prefill_tp, decode_tp) GPU pairs at once (each GPU's
 * own NVLink port or NIC share), each a send-recv of comm_collective over
 * NVLink when the pools' GPUs fit in one fabric domain (`gpus` <=
 * domain_gpus), else over the network between two nodes (network_bandwidth
 * per GPU; 0: the entry's NICs). Fills out's transfer_* fields. */
int serve_disagg_transfer(const struct ridge_serve_request *req, double prefill_tp, double decode_tp, double prompt,
			  double gpus, double network_bandwidth, struct ridge_serve_disagg_result *out, char *err,
			  size_t err_len);

/* The longest prompt and the longest output of the input's length
 * distributions. */
double serve_sim_longest_prompt(const struct ridge_serve_sim_input *in);
double serve_sim_longest_output(const struct ridge_serve_sim_input *in);

/* The percentile q (0..100) of sorted values, interpolated linearly between
 * ranks as numpy.percentile does. */
double serve_sim_percentile(const double *sorted, size_t count, double q);

#endif
