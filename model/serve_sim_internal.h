/* The parts of the serving simulation (serve_sim.h) its files share: the
 * requests and statistics of one run (struct sim_shared), one engine
 * instance's loop state (struct sim, a "worker"), and the worker's steps.
 * serve_sim.c runs one worker (aggregated serving); serve_disagg.c runs a
 * prefill pool and a decode pool of them; serve_worker.c is the worker.
 * Not installed: no other file includes it. */
#ifndef RIDGE_SERVE_SIM_INTERNAL_H
#define RIDGE_SERVE_SIM_INTERNAL_H

#include "serve_sim.h"

#define SIM_ITL_BINS 4096
#define SIM_ITL_LO 1e-6 /* s: the histogram's range, log-spaced (0.5 % wide bins) */
#define SIM_ITL_HI 1e3

enum request_state { REQUEST_WAITING, REQUEST_RUNNING, REQUEST_DONE, REQUEST_MOVING };

struct sim_request {
	double arrival, isl, osl;
	double computed;  /* tokens whose K and V are cached */
	double target;    /* tokens to run before the next token: the prompt, or after a preemption
			     the prompt and the tokens generated so far (recomputed) */
	double generated; /* output tokens so far */
	double blocks;    /* KV blocks held on the worker it runs on */
	double first_token, last_token;
	double chunk;  /* this iteration's prompt tokens */
	bool decoding; /* this iteration decodes one token */
	bool measured;
	int state;
	/* disaggregated: the prefill worker that holds its blocks until the
	 * transfer ends, and those blocks */
	int prefill_worker, decode_worker;
	double prefill_blocks;
	double prefill_done, transfer_start, transfer_end;
};

/* A pass priced once per row count (kernel_s NAN: not yet); its
 * collectives launched eagerly (communication_s) and inside a CUDA graph
 * (communication_graph_s). */
struct pass_memo {
	double kernel_s, matrix_s, kernels, communication_s, communication_graph_s;
};

/* Decode attention of n requests, affine in their summed context between
 * the run's shortest and longest context (exact where one roofline term
 * binds over the range, as it does for decode attention: memory). */
struct attention_memo {
	double base_s, slope_s, matrix_base_s, matrix_slope_s, kernels;
	bool filled;
};

/* A prompt chunk's attention by (chunk, prefix): a direct-mapped cache. */
#define SIM_CHUNK_MEMO 1024
struct chunk_memo {
	double chunk, prefix;
	struct ridge_serve_pass pass;
};

/* What the cache's size needs of one decode step (serve_step). */
struct sim_step_memo {
	bool known;
	double weights_bytes, kv_bytes_per_token_per_gpu;
};

/* The prices of one request type (model, GPU, tp, storage): shared by the
 * workers of a pool, and by the runs of a search (serve_sim.h, struct
 * ridge_serve_memo). */
struct sim_prices {
	struct pass_memo *tokens, *logits;
	struct attention_memo *attention;
	struct chunk_memo *chunks; /* SIM_CHUNK_MEMO of them */
	struct sim_step_memo *step;
	int tokens_cap, rows_cap;
	double context_lo, context_hi;
};

struct sim;

/* One run's requests and statistics. */
struct sim_shared {
	const struct ridge_serve_sim_input *in;
	struct sim_request *reqs;
	double *ttft, *tpot, *e2e, *itl_bins;
	int total, issued, done, measured_done;
	double iterations; /* every worker's */
	double itl_count, itl_sum, window_start, window_end, next_arrival;
	double itl_last_gap; /* and its histogram bin */
	int itl_last_bin;
	uint64_t rng, osl_rng; /* arrivals and prompt lengths; output lengths */
	/* a finished request's client sends its next one (closed loop) at `time` */
	void (*client_next)(struct sim_shared *sh, double time);
	/* a prefill worker's request has its prompt's cache (disaggregated) */
	void (*handoff)(struct sim *w, int position);
	void *context; /* the runner's */
	/* disaggregated: the measured requests' TTFT by part, summed */
	double ttft_prefill_sum, ttft_wait_sum, ttft_transfer_sum, ttft_decode_sum, ttft_request_sum;
	char *err;
	size_t err_len;
};

enum sim_role { SIM_WHOLE, SIM_PREFILL, SIM_DECODE };

/* One engine instance. */
struct sim {
	struct sim_shared *sh;
	const struct ridge_serve_request *req;
	const struct ridge_engine *engine;
	enum sim_role role;
	int index; /* in its pool */
	struct sim_prices *prices;
	struct ridge_serve_sim_result *out; /* this worker's memory, iterations and time */
	struct ridge_serve_sim_sample *samples;
	int timeline_capacity;
	int *running, *waiting;
	int n_running, wait_head, wait_count, max_running;
	double free_blocks, now;
	double kv_time, kv_integral, batch_tokens_sum, running_sum;
	/* the cache's blocks: vLLM's hybrid allocator gives a group of
	 * group_layers layers a block each; full groups hold every token,
	 * window groups the tokens of the window (serve_sim_request_blocks) */
	double full_groups, window_groups, window;
	/* this iteration */
	double decode_n, decode_context, prefill_tokens, rows;
	double batch_wait_count; /* iterations in a row that held their prompts back (batch waiting) */
	/* when the iteration before this one started (overlap scheduling's
	 * admission cutoff); started: one has */
	double previous_start;
	bool started;
	/* the power limit across iterations (serve_worker.c, power_limit): the
	 * burst time left and the time it is accounted to; tracked: once set */
	double power_headroom_s, power_at;
	bool power_tracked;
};

struct iteration_cost {
	double token_s, attention_s, logits_s, power_s, launch_s, communication_s, cpu_s, step_s;
	bool graph;
};

/* A disaggregated run's events (serve_disagg.c). */
struct sim_event {
	double time;
	int kind, id;
	long long seq;
};

/* A run's memory, carved from the caller's workspace: the pools' prices
 * (0: the decode pool, or the one engine; 1: the prefill pool), the
 * workers (disaggregated: the prefill pool's first), each worker's result,
 * the decode workers' queues of requests waiting for their blocks, the
 * event heap. */
struct sim_space {
	struct sim_shared sh;
	struct sim_prices prices[2];
	struct sim *workers;
	struct ridge_serve_sim_result *results;
	int n_workers, n_prefill;
	int *pending;
	struct sim_event *heap;
	int heap_cap;
};

/* ---- serve_sim.c ---- */
double sim_total_requests(const struct ridge_serve_sim_input *in);
double sim_max_prompt(const struct ridge_serve_sim_input *in);
double sim_min_prompt(const struct ridge_serve_sim_input *in);
double sim_max_output(const struct ridge_serve_sim_input *in);
int sim_check_load(const struct ridge_serve_sim_input *in, char *err, size_t err_len);
int sim_check_engine(const struct ridge_serve_sim_input *in, const struct ridge_engine *e, char *err, size_t err_len);
/* Creates the next request, arriving at `arrival`; returns its index. */
int sim_issue(struct sim_shared *sh, double arrival);
/* Open loop: draws the next arrival time (the seeded Poisson process). */
void sim_next_arrival(struct sim_shared *sh);
/* A finished request's latencies into the statistics. */
void sim_record(struct sim_shared *sh, const struct sim_request *r, double now);
void sim_itl_add(struct sim_shared *sh, double gap);
/* 2 with err once the run's iterations pass in->max_iterations. */
int sim_stop_check(struct sim_shared *sh);
/* The latency statistics and the throughput of the measured requests, on
 * `gpus` GPUs. */
void sim_statistics(struct sim_shared *sh, double gpus, struct ridge_serve_sim_result *out);

/* ---- serve_disagg.c ---- */
/* Runs the pools (the space filled, each worker bound to its pool's prices
 * and queues); the statistics into out. Returns 0, -1 or 1 as
 * serve_sim_run. */
int sim_disagg_run(struct sim_space *sp, struct ridge_serve_sim_sample *samples, struct ridge_serve_sim_result *out);

/* ---- serve_worker.c ---- */
/* Row counts a pool's memos cover. */
int sim_token_rows(const struct ridge_engine *e);
int sim_running_cap(const struct ridge_engine *e, double total);
void sim_prices_reset(struct sim_prices *p);
/* The cache of a worker: its memory split, blocks and the hybrid groups; 1
 * with err when one request of `longest` tokens (prompt and output) does
 * not fit. */
int sim_worker_memory(struct sim *w, double memory_bytes, double longest, double longest_prompt);
void sim_worker_push(struct sim *w, int index, bool front);
/* Blocks a request holds on this worker once `tokens` are cached, its
 * window groups having dropped what lies before the window of the token
 * after `computed` (vLLM's SlidingWindowManager). */
double sim_request_blocks(const struct sim *w, double computed, double tokens);
void sim_worker_schedule(struct sim *w);
/* The scheduled iteration's cost. Call it once per iteration run, at its
 * start (w->now): it also spends and refills the worker's power headroom
 * (serve_worker.c, power_limit), which runs on from one iteration to the next. */
int sim_worker_price(struct sim *w, struct iteration_cost *c);
void sim_worker_account(struct sim *w, const struct iteration_cost *c);
void sim_worker_sample(struct sim *w, const struct iteration_cost *c);
/* Every scheduled request moves on by its chunk or its token; finished
 * requests leave (or, on a prefill worker, are handed off). */
void sim_worker_advance(struct sim *w);
void sim_worker_remove(struct sim *w, int position);
/* The worker's kv utilisation and means over its iterations. */
void sim_worker_totals(struct sim *w);

#endif
