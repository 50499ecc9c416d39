/* The serving planner on the simulation (ridge plan --isl/--osl): every GPU
 * type x weight dtype x engine x layout, each configuration simulated as
 * ridge serve runs it (serve_sim.h) under the given load, kept when its
 * TTFT and TPOT percentiles meet the limits, ranked by dollars per million
 * output tokens; the Pareto front of output tokens/s per GPU against
 * tokens/s per user (1 / TPOT P50), as serving benchmarks plot it.
 *
 *   aggregated     tensor parallelism T (dividing the heads, within one
 *                  fabric domain) x R replicas (T x R <= max_gpus; a closed
 *                  loop's clients split evenly: R divides the concurrency;
 *                  an open loop's rate split R ways) x token budget x
 *                  sequence limit (1, 2, 3, 4, 6, 8, 12, ...: powers of two
 *                  and the halves between, up to what the load can fill)
 *   disaggregated  P prefill workers of Tp GPUs and D decode workers of Td
 *                  GPUs (P Tp + D Td <= max_gpus) x the decode workers'
 *                  sequence limit, the engine's token budget
 *
 * Each engine keeps its own memory fraction (the preset's), not the whole
 * card. Speed: the iteration prices are remembered per GPU, dtype and tp
 * across the candidates (serve_sim.h, struct ridge_serve_memo); each
 * candidate simulates a few hundred requests; a layout's sequence limits
 * are tried from the largest down, and once its TTFT misses the limit the
 * smaller ones are not tried (fewer requests at once only queue the others
 * longer: a heuristic, not a proof). docs/models/serve-sim.md, "ridge plan". */
#ifndef RIDGE_SERVE_PLAN_H
#define RIDGE_SERVE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "serve_sim.h"

#define RIDGE_SERVE_PLAN_MAX_GPUS 8
#define RIDGE_SERVE_PLAN_MAX_DTYPES 8
#define RIDGE_SERVE_PLAN_MAX_BUDGETS 8

struct ridge_serve_plan_input {
	const struct ridge_workload_model *model; /* resolved */
	const struct ridge_gpu *gpus[RIDGE_SERVE_PLAN_MAX_GPUS];
	double prices[RIDGE_SERVE_PLAN_MAX_GPUS]; /* USD per GPU-hour */
	int gpu_count;
	char dtype_names[RIDGE_SERVE_PLAN_MAX_DTYPES][16];
	struct ridge_storage weights[RIDGE_SERVE_PLAN_MAX_DTYPES];
	struct ridge_storage expert_weights[RIDGE_SERVE_PLAN_MAX_DTYPES]; /* bytes 0: as weights */
	struct ridge_storage embedding_weights[RIDGE_SERVE_PLAN_MAX_DTYPES];
	int dtype_count;
	struct ridge_storage kv;
	enum ridge_engine_kind engines[RIDGE_ENGINE_COUNT];
	int engine_count;
	double budgets[RIDGE_SERVE_PLAN_MAX_BUDGETS]; /* token budgets tried (aggregated) */
	int budget_count;
	double isl, osl;
	double concurrency; /* closed loop; 0: open loop at rate */
	double rate;
	double ttft_limit_s, tpot_limit_s;
	double percentile; /* 50, 90 or 99: the limits hold at this percentile */
	double max_gpus;   /* GPUs of one deployment: T x R, or P Tp + D Td */
	bool aggregated, disaggregated;
	double requests; /* measured per candidate; 0: max(100, 2 x its concurrency), open loop 200 */
	uint64_t seed;
	double max_context; /* the model's (0: unchecked) */
	enum ridge_moe_impl moe_impl;
	/* the config's model_type is "llama" (TensorRT-LLM fuses its all-reduces
	 * with the norms: serve_engine_fuses_allreduce_norm) */
	bool llama_decoder;
	bool has_overrides;
	struct ridge_timing_overrides overrides;
};

enum ridge_serve_plan_status {
	RIDGE_SERVE_PLAN_SIMULATED,
	RIDGE_SERVE_PLAN_DOES_NOT_FIT, /* the cache cannot hold one request */
	RIDGE_SERVE_PLAN_PRUNED,       /* a larger sequence limit of the layout already missed the TTFT limit */
	RIDGE_SERVE_PLAN_STOPPED,      /* thrashing: stopped at 4 x the iterations of one request at a time */
};

struct ridge_serve_plan_config {
	int index; /* in the order the search visits the space */
	int gpu_index, dtype_index;
	enum ridge_engine_kind engine;
	bool disaggregated;
	double tp, replicas;                                           /* aggregated */
	double prefill_tp, prefill_workers, decode_tp, decode_workers; /* disaggregated */
	double gpus;
	double max_num_batched_tokens, max_num_seqs; /* the engine's (disaggregated: the decode workers') */
	double concurrency, rate;                    /* one replica's load */
	enum ridge_serve_plan_status status;
	struct ridge_latency_stats ttft, tpot;
	double ttft_s, tpot_s; /* at the percentile */
	double output_tokens_per_s_per_gpu, tokens_per_s_per_user, usd_per_million_output_tokens;
	double output_tokens_per_s; /* the whole deployment's */
	double kv_utilization, preemptions;
	bool meets, pareto;
	double violation; /* max(TTFT / limit, TPOT / limit) at the percentile; 1e300 when not simulated */
};

/* The candidates the search visits (for sizing out). */
int serve_plan_space(const struct ridge_serve_plan_input *in);

/* Simulates the space into out[0..*count) (capacity serve_plan_space),
 * sorted: those that meet both limits first by $ per million output tokens
 * (then tokens/s per GPU), the rest by violation; pareto marks the front
 * among those meeting the limits. *simulated counts the runs. Returns 0, or
 * -1 with err (bad input, out of memory). */
int serve_plan_search(const struct ridge_serve_plan_input *in, struct ridge_serve_plan_config *out, int capacity,
		      int *count, int *simulated, char *err, size_t err_len);

#endif
