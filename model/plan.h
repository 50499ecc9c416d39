/* The serving planner: every GPU type x GPU count (= tensor-parallel degree)
 * x batch x weight dtype x launch mode priced, kept when it fits in memory
 * and meets the TPOT and TTFT limits, ranked by dollars per million output
 * tokens (then tokens/s per GPU).
 *
 * One function prices a configuration, plan_price(): the decode step and the
 * prefill of model/serve.h (serve_step: every kernel priced by the kernel
 * time model, launches by mode), the same functions as `ridge cost decode
 * --model` and `ridge cost prefill`, with the tensor-parallel all-reduces of
 * model/comm.h (comm_serve_step, not overlapped) as their communication.
 * TTFT is the prefill of one request of `context` tokens. */
#ifndef RIDGE_PLAN_H
#define RIDGE_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "cost.h"
#include "gpu.h"
#include "serve.h"

enum ridge_plan_launch { RIDGE_PLAN_EAGER, RIDGE_PLAN_GRAPH, RIDGE_PLAN_PERSISTENT, RIDGE_PLAN_LAUNCHES };
const char *plan_launch_name(enum ridge_plan_launch mode); /* "eager", "graph", "persistent" */

#define RIDGE_PLAN_MAX_GPUS 8
#define RIDGE_PLAN_MAX_DTYPES 8

struct ridge_plan_gpu {
	const struct ridge_gpu *gpu;
	double price_usd_per_hour;
};

struct ridge_plan_input {
	const struct ridge_workload_model *model; /* resolved */
	double params;                            /* stored parameters (workload_params' total), for messages */
	double context;                           /* tokens per request: the prompt (TTFT) and the KV cache (TPOT) */
	double tpot_limit_s, ttft_limit_s;
	struct ridge_plan_gpu gpus[RIDGE_PLAN_MAX_GPUS];
	int gpu_count;
	char dtype_names[RIDGE_PLAN_MAX_DTYPES][16];
	struct ridge_storage dtype_storage[RIDGE_PLAN_MAX_DTYPES]; /* weight storage, with its scales */
	/* a checkpoint's routed experts' and embedding storage where they differ
	 * (serve.h; bytes 0: as dtype_storage) */
	struct ridge_storage dtype_expert_storage[RIDGE_PLAN_MAX_DTYPES];
	struct ridge_storage dtype_embedding_storage[RIDGE_PLAN_MAX_DTYPES];
	int dtype_count;
	struct ridge_storage kv;      /* per cached element */
	double kernels_per_layer;     /* launches per layer per step; 0: the modelled sequence's */
	enum ridge_moe_impl moe_impl; /* the routed experts' kernels (serve.h): grouped (0) or loop */
	double max_batch;             /* batches 1, 2, 4 ... up to this */
	double max_gpus;              /* GPU counts 1, 2, 4 ... up to this and the fabric domain */
	bool has_overrides;           /* --efficiency / --fixed-cost what-ifs on every GPU */
	struct ridge_timing_overrides overrides;
};

struct ridge_plan_config {
	int gpu_index, dtype_index;
	double gpus; /* = tensor-parallel degree */
	double batch;
	enum ridge_plan_launch launch;
	/* decode step */
	double memory_time_s, compute_time_s, kernel_time_s; /* kernel = max(memory, compute) */
	double comm_s;                                       /* 2 all-reduces per layer of batch x hidden */
	double launch_s;                                     /* per step in this mode */
	double tpot_s;
	double comm_share; /* comm / TPOT */
	const char *comm_algorithm;
	double tokens_per_s, tokens_per_s_per_gpu, usd_per_million_tokens;
	/* prefill of one request */
	double ttft_kernel_s, ttft_comm_s, ttft_s;
	double memory_required, memory_available;
	bool fits, meets_tpot, meets_ttft, meets;
	double violation; /* max(TPOT / limit, TTFT / limit, memory / capacity): <= 1 meets */
	/* How far to trust it (serve.h, step_range_s): the decode step's and
	 * the prefill's ranges, the dollar range they imply (dollars per token
	 * scale with TPOT at a fixed batch and price), the decode step's
	 * weakest provenance, and whether the dollar range overlaps the
	 * cheapest configuration's (a tie within uncertainty). */
	double tpot_range_s[2], ttft_range_s[2], usd_range[2];
	struct ridge_time_sum time_sum;
	enum ridge_provenance provenance;
	bool tie;
};

/* Prices one configuration (the fields before "decode step" set). Returns 0,
 * or -1 with err (comm_collective's, cost_decode's errors). */
int plan_price(const struct ridge_plan_input *in, struct ridge_plan_config *cfg, char *err, size_t err_len);

/* The number of configurations plan_search visits, for sizing out. */
int plan_space(const struct ridge_plan_input *in);

/* Prices the whole space into out[0..*count), sorted: configurations that meet
 * every limit first, by $/1M output tokens (the central value) then tokens/s
 * per GPU, those whose dollar range overlaps the first's marked tie; the rest
 * by violation (the nearest first). Returns 0, or -1 with err. */
int plan_search(const struct ridge_plan_input *in, struct ridge_plan_config *out, int capacity, int *count, char *err,
		size_t err_len);

#endif
