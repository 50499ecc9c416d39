/* The serving engine's iteration loop (serve_sim.h). */
#include "serve_sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "fail.h"
#include "names.h"

static const char *const engine_names[] = { "vllm", "sglang", "trtllm" };
MODEL_NAMED_ENUM(serve_engine_name, serve_engine_parse, enum ridge_engine_kind, engine_names, 0, RIDGE_ENGINE_COUNT)

#define GIB (1024.0 * 1024.0 * 1024.0)

/* Bounds that keep a run inside a second or two and a few tens of MB. */
#define SIM_MAX_REQUESTS 200000.0
#define SIM_MAX_WORK 2e8 /* requests x output tokens: the decode slots the loop visits */
#define SIM_MAX_TOKENS 1048576.0
#define SIM_MAX_SEQS 65536.0
#define ITL_BINS 4096
#define ITL_LO 1e-6 /* s: the histogram's range, log-spaced (0.5 % wide bins) */
#define ITL_HI 1e3

/* vLLM: vllm/engine/arg_utils.py (EngineArgs.get_batch_defaults: the
 * OpenAI server's budget on >= 70 GiB cards other than the A100),
 * vllm/config/cache.py (block_size 16, gpu_memory_utilization 0.9),
 * vllm/config/vllm.py (_set_cudagraph_sizes: capture sizes up to
 * min(2 max_num_seqs, 512, max_num_batched_tokens); FULL_AND_PIECEWISE:
 * mixed batches run piecewise graphs, attention between the pieces).
 * docs/sources/serving-engines.md cites each line. */
static void vllm_defaults(double memory_bytes, const char *gpu_id, struct ridge_engine *e)
{
	bool large = memory_bytes >= 70 * GIB && !strstr(gpu_id, "a100");
	e->version = "vllm-project/vllm@99d7eb5d (arg_utils.py), @09f030ea (config/vllm.py)";
	e->source = "EngineArgs.get_batch_defaults, CacheConfig, VllmConfig._set_cudagraph_sizes";
	e->max_num_batched_tokens = large ? 8192 : 2048;
	e->max_num_seqs = large ? 1024 : 256;
	e->chunked_prefill = true;
	e->mixed_batches = true;
	e->reserve_output = false;
	e->block_size = 16;
	e->memory_fraction = 0.9;
	e->kv_budget = RIDGE_KV_OF_TOTAL;
	e->graph_max_batch = fmin(fmin(2 * e->max_num_seqs, 512), e->max_num_batched_tokens);
	e->graph_sizes = RIDGE_GRAPH_VLLM;
	e->host_launches_per_layer = 2;
}

/* SGLang: python/sglang/srt/server_args.py (ServerArgs.__post_init__:
 * mem_fraction_static = (memory - reserved) / memory, reserved 9.5 + tp/2
 * GiB below 90 GiB, 12 + tp/2 below 160, 32 above; chunked_prefill_size
 * 2048 / 8192 / 16384 by memory; cuda_graph_max_bs 160 / 256 / 512;
 * page_size 1; mixed chunk off). */
static void sglang_defaults(double memory_bytes, double tp, struct ridge_engine *e)
{
	double gib = memory_bytes / GIB;
	double reserved = gib < 35 ? 2.8 + tp / 10 : gib < 90 ? 9.5 + tp / 2 : gib < 160 ? 12 + tp / 2 : 32;
	e->version = "sgl-project/sglang@469c63e5";
	e->source = "ServerArgs.__post_init__ (server_args.py)";
	e->max_num_batched_tokens = gib < 35 ? 2048 : gib < 160 ? 8192 : 16384;
	e->max_num_seqs = 4096; /* max_running_requests: by default what the cache holds */
	e->chunked_prefill = true;
	e->mixed_batches = false;
	e->reserve_output = false;
	e->block_size = 1;
	e->memory_fraction = fmax((gib - reserved) / gib, 0.05);
	e->kv_budget = RIDGE_KV_OF_TOTAL;
	e->graph_max_batch = gib < 35 ? (tp < 4 ? 8 : 80) : gib < 90 ? 160 : gib < 160 ? 256 : 512;
	e->graph_sizes = RIDGE_GRAPH_SGLANG;
	e->host_launches_per_layer = 0;
}

/* TensorRT-LLM's LLM API (trtllm-serve, PyTorch backend):
 * tensorrt_llm/llmapi/llm_args.py: max_batch_size 2048, max_num_tokens 8192,
 * KvCacheConfig.free_gpu_memory_fraction 0.9 of the memory free after the
 * weights, tokens_per_block 32, CudaGraphConfig max_batch_size 128 without
 * padding, enable_chunked_prefill false, the capacity scheduler's
 * GUARANTEED_NO_EVICT. */
static void trtllm_defaults(struct ridge_engine *e)
{
	e->version = "NVIDIA/TensorRT-LLM@fcd3f316";
	e->source = "BaseLlmArgs, KvCacheConfig, CudaGraphConfig (llmapi/llm_args.py)";
	e->max_num_batched_tokens = 8192;
	e->max_num_seqs = 2048;
	e->chunked_prefill = false;
	e->mixed_batches = true;
	e->reserve_output = true;
	e->block_size = 32;
	e->memory_fraction = 0.9;
	e->kv_budget = RIDGE_KV_OF_FREE;
	e->graph_max_batch = 128;
	e->graph_sizes = RIDGE_GRAPH_TRTLLM;
	e->host_launches_per_layer = 0;
}

void serve_engine_defaults(enum ridge_engine_kind kind, double memory_bytes, const char *gpu_id, double tp,
			   struct ridge_engine *out)
{
	memset(out, 0, sizeof *out);
	out->kind = kind;
	if (kind == RIDGE_ENGINE_SGLANG)
		sglang_defaults(memory_bytes, tp, out);
	else if (kind == RIDGE_ENGINE_TRTLLM)
		trtllm_defaults(out);
	else
		vllm_defaults(memory_bytes, gpu_id ? gpu_id : "", out);
	out->cpu_overhead_s = 0;
	out->cpu_overhead_source =
		"0, fitted per engine on published TTFT/TPOT runs (validation/README.md); "
		"TensorRT-LLM's and SGLang's overlap schedulers hide it (docs/sources/serving-engines.md)";
}

double serve_engine_graph_size(const struct ridge_engine *e, double batch)
{
	double max = e->graph_max_batch;
	if (!(batch >= 1) || !(max >= 1) || batch > max)
		return 0;
	double size;
	switch (e->graph_sizes) {
	case RIDGE_GRAPH_SGLANG:
		size = batch <= 4 ? pow(2, ceil(log2(batch))) : batch <= 8 ? 8 : batch <= 12 ? 12 : ceil(batch / 8) * 8;
		break;
	case RIDGE_GRAPH_TRTLLM:
		/* 1..31, 32, 64, 128, powers of two up to the maximum, the maximum;
		 * without padding a batch between them runs eager */
		if (batch <= 32 || batch == max || (batch == pow(2, round(log2(batch)))))
			return batch;
		return 0;
	default:
		size = batch <= 4     ? pow(2, ceil(log2(batch)))
		       : batch <= 256 ? ceil(batch / 8) * 8
				      : ceil(batch / 16) * 16;
		break;
	}
	return fmin(size, max);
}

/* ---- the simulation ---- */

enum request_state { REQUEST_WAITING, REQUEST_RUNNING, REQUEST_DONE };

struct sim_request {
	double arrival, isl, osl;
	double computed;  /* tokens whose K and V are cached */
	double target;    /* tokens to run before the next token: the prompt, or after a preemption
			     the prompt and the tokens generated so far (recomputed) */
	double generated; /* output tokens so far */
	double blocks;    /* KV blocks held */
	double first_token, last_token;
	double chunk;  /* this iteration's prompt tokens */
	bool decoding; /* this iteration decodes one token */
	bool measured;
	int state;
};

/* A pass priced once per row count (kernel_s NAN: not yet). */
struct pass_memo {
	double kernel_s, matrix_s, kernels, communication_s;
};

/* Decode attention of n requests, affine in their summed context between
 * the run's shortest and longest context (exact where one roofline term
 * binds over the range, as it does for decode attention: memory). */
struct attention_memo {
	double base_s, slope_s, matrix_base_s, matrix_slope_s, kernels;
	bool filled;
};

struct sim {
	const struct ridge_serve_sim_input *in;
	struct ridge_serve_sim_result *out;
	struct ridge_serve_sim_sample *samples;
	struct sim_request *reqs;
	double *ttft, *tpot, *e2e, *itl_bins;
	struct pass_memo *tokens, *logits;
	struct attention_memo *attention;
	int *running, *waiting;
	int total, issued, done, n_running, wait_head, wait_count, measured_done, tokens_cap, rows_cap;
	double free_blocks, now, next_arrival, context_lo, context_hi, itl_count, itl_sum;
	double window_start, window_end, kv_time, kv_integral, batch_tokens_sum, running_sum;
	uint64_t rng;
	char *err;
	size_t err_len;
	/* this iteration */
	double decode_n, decode_context, prefill_tokens, rows;
};

static double rng_uniform(uint64_t *state)
{
	/* splitmix64: a fixed, seeded sequence on every platform */
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	return ((double)(z >> 11) + 1) / 9007199254740993.0; /* (0, 1] */
}

static double total_requests(const struct ridge_serve_sim_input *in)
{
	return in->requests + in->warmup;
}

static double max_prompt(const struct ridge_serve_sim_input *in)
{
	if (in->isl_dist == RIDGE_LENGTH_UNIFORM)
		return in->isl_hi;
	if (in->isl_dist != RIDGE_LENGTH_LIST)
		return in->isl;
	double most = 0;
	for (size_t i = 0; i < in->isl_count; i++)
		most = fmax(most, in->isl_values[i]);
	return most;
}

static double min_prompt(const struct ridge_serve_sim_input *in)
{
	if (in->isl_dist == RIDGE_LENGTH_UNIFORM)
		return in->isl_lo;
	if (in->isl_dist != RIDGE_LENGTH_LIST)
		return in->isl;
	double least = INFINITY;
	for (size_t i = 0; i < in->isl_count; i++)
		least = fmin(least, in->isl_values[i]);
	return least;
}

static bool whole(double v, double lo, double hi)
{
	return isfinite(v) && v >= lo && v <= hi && v == floor(v);
}

static int check_lengths(const struct ridge_serve_sim_input *in, char *err, size_t err_len)
{
	if (!whole(in->osl, 1, 1e7))
		return model_fail(err, err_len, "output length must be a whole number of tokens from 1 to 1e7, not %g",
				  in->osl);
	if (in->isl_dist == RIDGE_LENGTH_FIXED && !whole(in->isl, 1, 1e7))
		return model_fail(err, err_len, "prompt length must be a whole number of tokens from 1 to 1e7, not %g",
				  in->isl);
	if (in->isl_dist == RIDGE_LENGTH_UNIFORM &&
	    !(whole(in->isl_lo, 1, 1e7) && whole(in->isl_hi, 1, 1e7) && in->isl_lo <= in->isl_hi))
		return model_fail(err, err_len, "uniform prompt lengths need whole LO <= HI from 1 to 1e7, not %g:%g",
				  in->isl_lo, in->isl_hi);
	if (in->isl_dist == RIDGE_LENGTH_LIST) {
		if (!in->isl_values || in->isl_count == 0)
			return model_fail(err, err_len, "the prompt length list is empty");
		for (size_t i = 0; i < in->isl_count; i++)
			if (!whole(in->isl_values[i], 1, 1e7))
				return model_fail(
					err, err_len,
					"prompt length %zu of the list: %g is not a whole number from 1 to 1e7", i + 1,
					in->isl_values[i]);
	}
	double longest = max_prompt(in) + in->osl;
	if (in->max_context > 0 && longest > in->max_context)
		return model_fail(err, err_len,
				  "prompt + output of %g tokens is longer than the model's context of %g tokens",
				  longest, in->max_context);
	return 0;
}

static int check_engine(const struct ridge_serve_sim_input *in, char *err, size_t err_len)
{
	const struct ridge_engine *e = &in->engine;
	if (!whole(e->max_num_batched_tokens, 1, SIM_MAX_TOKENS))
		return model_fail(err, err_len, "max-num-batched-tokens must be a whole number from 1 to %g, not %g",
				  SIM_MAX_TOKENS, e->max_num_batched_tokens);
	if (!whole(e->max_num_seqs, 1, SIM_MAX_SEQS))
		return model_fail(err, err_len, "max-num-seqs must be a whole number from 1 to %g, not %g",
				  SIM_MAX_SEQS, e->max_num_seqs);
	if (!e->chunked_prefill && max_prompt(in) > e->max_num_batched_tokens)
		return model_fail(err, err_len,
				  "max-num-batched-tokens %g is smaller than a prompt of %g tokens, which chunked "
				  "prefill off must run in one iteration",
				  e->max_num_batched_tokens, max_prompt(in));
	if (!whole(e->block_size, 1, 1e6) || !(e->memory_fraction > 0 && e->memory_fraction <= 1) ||
	    !(e->graph_max_batch >= 0 && e->graph_max_batch <= SIM_MAX_SEQS) ||
	    !(isfinite(e->cpu_overhead_s) && e->cpu_overhead_s >= 0 && e->cpu_overhead_s <= 10) ||
	    !(e->host_launches_per_layer >= 0 && e->host_launches_per_layer <= 1e4))
		return model_fail(err, err_len,
				  "engine: block size, memory fraction (0..1], graph sizes or CPU "
				  "overhead (0..10 s) out of range");
	return 0;
}

static int check_input(const struct ridge_serve_sim_input *in, char *err, size_t err_len)
{
	if (!in->req.model || !in->req.gpu)
		return model_fail(err, err_len, "no model or GPU");
	if (check_lengths(in, err, err_len) || check_engine(in, err, err_len))
		return -1;
	bool closed = in->concurrency > 0;
	if (closed && !whole(in->concurrency, 1, SIM_MAX_SEQS))
		return model_fail(err, err_len, "concurrency must be a whole number from 1 to %g, not %g", SIM_MAX_SEQS,
				  in->concurrency);
	if (!closed && !(isfinite(in->rate) && in->rate > 0 && in->rate <= 1e6))
		return model_fail(err, err_len, "request rate must be above 0 and at most 1e6 per second, not %g",
				  in->rate);
	if (!whole(in->requests, 1, SIM_MAX_REQUESTS) || !whole(in->warmup, 0, SIM_MAX_REQUESTS) ||
	    total_requests(in) > SIM_MAX_REQUESTS)
		return model_fail(err, err_len,
				  "requests + warm-up must be whole numbers, 1 to %g together, not %g + %g",
				  SIM_MAX_REQUESTS, in->requests, in->warmup);
	if (total_requests(in) * in->osl > SIM_MAX_WORK)
		return model_fail(err, err_len,
				  "%g requests x %g output tokens is more than the %g decode slots one run simulates",
				  total_requests(in), in->osl, SIM_MAX_WORK);
	if (in->timeline_capacity < 0 || in->timeline_capacity > 1000000)
		return model_fail(err, err_len, "timeline capacity out of range");
	return 0;
}

/* Row counts the memos cover: the token budget or the largest graph, and
 * the running requests (or the largest graph) for the logits. */
static int token_rows(const struct ridge_serve_sim_input *in)
{
	return (int)fmax(in->engine.max_num_batched_tokens, in->engine.graph_max_batch) + 1;
}

static int running_cap(const struct ridge_serve_sim_input *in)
{
	double running = fmin(in->engine.max_num_seqs, total_requests(in));
	return (int)fmax(running, fmin(in->engine.graph_max_batch, SIM_MAX_SEQS)) + 1;
}

struct layout {
	size_t reqs, ttft, tpot, e2e, itl, tokens, logits, attention, running, waiting, end;
};

static size_t aligned(size_t at)
{
	return (at + 15) & ~(size_t)15;
}

static void layout_of(const struct ridge_serve_sim_input *in, struct layout *l)
{
	size_t total = (size_t)total_requests(in), measured = (size_t)in->requests, rows = (size_t)running_cap(in);
	l->reqs = 0;
	l->ttft = aligned(l->reqs + total * sizeof(struct sim_request));
	l->tpot = aligned(l->ttft + measured * sizeof(double));
	l->e2e = aligned(l->tpot + measured * sizeof(double));
	l->itl = aligned(l->e2e + measured * sizeof(double));
	l->tokens = aligned(l->itl + ITL_BINS * sizeof(double));
	l->logits = aligned(l->tokens + (size_t)token_rows(in) * sizeof(struct pass_memo));
	l->attention = aligned(l->logits + rows * sizeof(struct pass_memo));
	l->running = aligned(l->attention + rows * sizeof(struct attention_memo));
	l->waiting = aligned(l->running + rows * sizeof(int));
	l->end = aligned(l->waiting + total * sizeof(int));
}

size_t serve_sim_workspace_bytes(const struct ridge_serve_sim_input *in, char *err, size_t err_len)
{
	if (check_input(in, err, err_len))
		return 0;
	struct layout l;
	layout_of(in, &l);
	return l.end;
}

/* The activations an engine keeps beside the weights and the cache,
 * estimated (not measured): the budget's tokens through the widest
 * tensors of a layer in the compute dtype, and fp32 logits for the
 * sampling rows. SGLang's reserve covers them (its memory fraction). */
static double activation_bytes(const struct ridge_serve_sim_input *in)
{
	const struct ridge_workload_model *m = in->req.model;
	if (in->engine.kind == RIDGE_ENGINE_SGLANG)
		return 0;
	double tp = in->req.tp, e = ridge_dtype_bytes(in->req.compute_dtype);
	double tokens = in->engine.max_num_batched_tokens;
	double ff = (double)(m->experts > 0 ? m->expert_intermediate * m->experts_per_token : m->intermediate);
	double qkv = (double)((m->heads + 2 * m->kv_heads) * workload_qk_head_dim(m));
	double per_token = 4 * (double)m->hidden + qkv / tp + 2 * ff / tp;
	double rows = fmin(in->engine.max_num_seqs, tokens);
	return tokens * per_token * e + rows * ceil((double)m->vocab / tp) * 4;
}

/* The cache: its bytes, blocks and tokens per GPU; 1 with err when one
 * request (the longest prompt and its output) does not fit. */
static int memory_setup(struct sim *s)
{
	const struct ridge_serve_sim_input *in = s->in;
	struct ridge_serve_sim_result *out = s->out;
	struct ridge_serve_request req = in->req;
	req.phase = RIDGE_PHASE_DECODE;
	req.batch = 1;
	req.context = 1;
	req.communication_s = 0;
	struct ridge_serve_result *step = &(struct ridge_serve_result){ 0 };
	if (serve_step(&req, step, s->err, s->err_len))
		return -1;
	double memory = in->memory_bytes > 0 ? in->memory_bytes : ridge_gpu_usable_memory(in->req.gpu);
	out->memory_bytes = memory;
	out->weights_bytes = step->weights_stored_per_gpu;
	out->activation_bytes = activation_bytes(in);
	out->kv_bytes_per_token_per_gpu = step->kv_bytes_per_token_per_gpu;
	double rest = memory - out->weights_bytes - out->activation_bytes;
	double cache = in->engine.kv_budget == RIDGE_KV_OF_FREE
			       ? in->engine.memory_fraction * rest
			       : in->engine.memory_fraction * memory - out->weights_bytes - out->activation_bytes;
	out->kv_cache_bytes = fmax(cache, 0);
	double block_bytes = in->engine.block_size * out->kv_bytes_per_token_per_gpu;
	out->kv_blocks = floor(out->kv_cache_bytes / block_bytes);
	out->kv_tokens = out->kv_blocks * in->engine.block_size;
	s->free_blocks = out->kv_blocks;
	double need = ceil((max_prompt(in) + in->osl) / in->engine.block_size);
	if (out->kv_blocks < need) {
		model_fail(s->err, s->err_len,
			   "the KV cache holds %g tokens per GPU (%.4g GB left of %.4g GB after %.4g GB of weights and "
			   "%.4g GB of activations at memory fraction %g): not one request of %g tokens",
			   out->kv_tokens, out->kv_cache_bytes / 1e9, memory / 1e9, out->weights_bytes / 1e9,
			   out->activation_bytes / 1e9, in->engine.memory_fraction, max_prompt(in) + in->osl);
		return 1;
	}
	return 0;
}

static double next_prompt(struct sim *s)
{
	const struct ridge_serve_sim_input *in = s->in;
	switch (in->isl_dist) {
	case RIDGE_LENGTH_UNIFORM:
		return fmin(in->isl_lo + floor(rng_uniform(&s->rng) * (in->isl_hi - in->isl_lo + 1)), in->isl_hi);
	case RIDGE_LENGTH_LIST:
		return in->isl_values[(size_t)s->issued % in->isl_count];
	default:
		return in->isl;
	}
}

static void wait_push(struct sim *s, int index, bool front)
{
	if (front) {
		s->wait_head = (s->wait_head + s->total - 1) % s->total;
		s->waiting[s->wait_head] = index;
	} else
		s->waiting[(s->wait_head + s->wait_count) % s->total] = index;
	s->wait_count++;
	s->reqs[index].state = REQUEST_WAITING;
}

static void issue(struct sim *s, double arrival)
{
	struct sim_request *r = &s->reqs[s->issued];
	memset(r, 0, sizeof *r);
	r->arrival = arrival;
	r->isl = next_prompt(s);
	r->osl = s->in->osl;
	r->target = r->isl;
	r->measured = s->issued >= (int)s->in->warmup;
	if (r->measured && !(s->window_start <= arrival))
		s->window_start = arrival;
	wait_push(s, s->issued, false);
	s->issued++;
}

/* Requests that have arrived by now join the queue (open loop). */
static void admit_arrivals(struct sim *s)
{
	while (s->in->concurrency <= 0 && s->issued < s->total && s->next_arrival <= s->now) {
		issue(s, s->next_arrival);
		s->next_arrival += -log(rng_uniform(&s->rng)) / s->in->rate;
	}
}

static double blocks_for(const struct sim *s, double tokens)
{
	return ceil(tokens / s->in->engine.block_size);
}

static void remove_running(struct sim *s, int position)
{
	memmove(&s->running[position], &s->running[position + 1],
		(size_t)(s->n_running - position - 1) * sizeof s->running[0]);
	s->n_running--;
}

/* The newest running request gives its blocks back and waits at the head
 * of the queue to recompute its prompt and what it generated. */
static void preempt_newest(struct sim *s)
{
	int index = s->running[s->n_running - 1];
	struct sim_request *r = &s->reqs[index];
	s->free_blocks += r->blocks;
	r->blocks = 0;
	r->computed = 0;
	r->target = r->isl + r->generated;
	r->chunk = 0;
	r->decoding = false;
	remove_running(s, s->n_running - 1);
	wait_push(s, index, true);
	s->out->preemptions++;
}

/* Grows running request `position` to hold `tokens`, preempting newer ones;
 * false when it was itself preempted. */
static bool grow(struct sim *s, int position, double tokens)
{
	struct sim_request *r = &s->reqs[s->running[position]];
	double need = blocks_for(s, tokens) - r->blocks;
	while (need > s->free_blocks) {
		bool self = s->n_running - 1 == position;
		preempt_newest(s);
		if (self)
			return false;
	}
	if (need > 0) {
		s->free_blocks -= need;
		r->blocks += need;
	}
	return true;
}

static void schedule_chunk(struct sim *s, struct sim_request *r, double chunk, double *budget)
{
	r->chunk = chunk;
	*budget -= chunk;
	s->prefill_tokens += chunk;
	if (r->computed + chunk >= r->target)
		s->rows++;
}

/* The running requests' work: prompt chunks (prefill) and decode tokens
 * (decode), oldest first, within the budget. */
static void schedule_running(struct sim *s, double *budget, bool prefill, bool decode)
{
	bool chunked = s->in->engine.chunked_prefill;
	for (int i = 0; i < s->n_running; i++) {
		struct sim_request *r = &s->reqs[s->running[i]];
		double remaining = r->target - r->computed;
		if (remaining > 0) {
			double chunk = fmin(remaining, *budget);
			if (!prefill || chunk <= 0 || (!chunked && chunk < remaining))
				continue;
			if (!s->in->engine.reserve_output && !grow(s, i, r->computed + chunk)) {
				i--; /* it left: the next request is now at i */
				continue;
			}
			schedule_chunk(s, r, chunk, budget);
		} else if (decode) {
			if (s->in->engine.mixed_batches && *budget < 1)
				break;
			if (!s->in->engine.reserve_output && !grow(s, i, r->computed + 1))
				break; /* it was the newest: nothing after it */
			r->decoding = true;
			s->decode_n++;
			s->decode_context += r->computed + 1;
			s->rows++;
			*budget -= 1;
		}
	}
}

/* Waiting requests, first come first served, while the budget, the
 * sequence limit and the free blocks allow. */
static void schedule_waiting(struct sim *s, double *budget)
{
	const struct ridge_engine *e = &s->in->engine;
	while (s->wait_count > 0 && *budget >= 1 && s->n_running < (int)fmin(e->max_num_seqs, s->total)) {
		int index = s->waiting[s->wait_head];
		struct sim_request *r = &s->reqs[index];
		double remaining = r->target - r->computed;
		double chunk = e->chunked_prefill ? fmin(remaining, *budget) : remaining;
		if (chunk > *budget)
			break;
		double need = e->reserve_output ? blocks_for(s, r->isl + r->osl) : blocks_for(s, r->computed + chunk);
		if (need > s->free_blocks)
			break;
		s->free_blocks -= need;
		r->blocks = need;
		s->wait_head = (s->wait_head + 1) % s->total;
		s->wait_count--;
		r->state = REQUEST_RUNNING;
		s->running[s->n_running++] = index;
		schedule_chunk(s, r, chunk, budget);
	}
}

/* One iteration's batch. Mixed engines put decode tokens first, then the
 * prompt chunks; SGLang runs a prefill iteration whenever a prompt can
 * start or continue, else a decode one. */
static void schedule(struct sim *s)
{
	s->decode_n = s->decode_context = s->prefill_tokens = s->rows = 0;
	for (int i = 0; i < s->n_running; i++) {
		s->reqs[s->running[i]].chunk = 0;
		s->reqs[s->running[i]].decoding = false;
	}
	double budget = s->in->engine.max_num_batched_tokens;
	if (s->in->engine.mixed_batches) {
		schedule_running(s, &budget, true, true);
		schedule_waiting(s, &budget);
		return;
	}
	schedule_running(s, &budget, true, false);
	schedule_waiting(s, &budget);
	if (s->prefill_tokens > 0)
		return;
	budget = INFINITY; /* a decode batch is bounded by the running requests alone */
	schedule_running(s, &budget, false, true);
}

/* ---- pricing an iteration ---- */

static int token_pass(struct sim *s, double tokens, struct pass_memo **out)
{
	struct pass_memo *m = &s->tokens[(int)tokens];
	*out = m;
	if (!isnan(m->kernel_s))
		return 0;
	const struct ridge_serve_request *req = &s->in->req;
	const struct ridge_workload_model *model = req->model;
	struct ridge_serve_pass pass;
	struct ridge_serve_comm comm;
	if (serve_token_pass(req, tokens, &pass, s->err, s->err_len) ||
	    comm_serve_step(req->gpu, req->tp, false, tokens, (double)model->hidden, (double)model->layers,
			    (double)model->experts_per_token, (double)workload_moe_layers(model), 0, 0, &comm, s->err,
			    s->err_len))
		return -1;
	/* Fewer rows than one library tile never run slower than a whole tile:
	 * the library can pad them (serve.c prices them as the GEMV class, whose
	 * fitted efficiencies come from a few rows and overprice 65 to 127) */
	if (tokens < RIDGE_LIBRARY_TILE_M) {
		struct ridge_serve_pass tile;
		if (serve_token_pass(req, RIDGE_LIBRARY_TILE_M, &tile, s->err, s->err_len))
			return -1;
		if (tile.kernel_time_s < pass.kernel_time_s)
			pass = tile;
	}
	*m = (struct pass_memo){ pass.kernel_time_s, pass.matrix_time_s, pass.kernels, comm.exposed_s };
	return 0;
}

static int logits_pass(struct sim *s, double rows, struct pass_memo **out)
{
	struct pass_memo *m = &s->logits[(int)rows];
	*out = m;
	if (!isnan(m->kernel_s))
		return 0;
	struct ridge_serve_pass pass;
	if (serve_logits_pass(&s->in->req, rows, &pass, s->err, s->err_len))
		return -1;
	*m = (struct pass_memo){ pass.kernel_time_s, pass.matrix_time_s, pass.kernels, 0 };
	return 0;
}

static int attention_pass(struct sim *s, double n, double context_sum, struct ridge_serve_pass *out)
{
	struct attention_memo *m = &s->attention[(int)n];
	if (!m->filled) {
		struct ridge_serve_pass lo, hi;
		double span = s->context_hi - s->context_lo;
		if (serve_decode_attention_pass(&s->in->req, n, n * s->context_lo, &lo, s->err, s->err_len) ||
		    (span > 0 &&
		     serve_decode_attention_pass(&s->in->req, n, n * s->context_hi, &hi, s->err, s->err_len)))
			return -1;
		m->base_s = lo.kernel_time_s;
		m->matrix_base_s = lo.matrix_time_s;
		m->slope_s = span > 0 ? (hi.kernel_time_s - lo.kernel_time_s) / (n * span) : 0;
		m->matrix_slope_s = span > 0 ? (hi.matrix_time_s - lo.matrix_time_s) / (n * span) : 0;
		m->kernels = lo.kernels;
		m->filled = true;
	}
	double extra = context_sum - n * s->context_lo;
	memset(out, 0, sizeof *out);
	out->kernel_time_s = m->base_s + m->slope_s * extra;
	out->matrix_time_s = m->matrix_base_s + m->matrix_slope_s * extra;
	out->kernels = m->kernels;
	return 0;
}

struct iteration_cost {
	double token_s, attention_s, logits_s, power_s, launch_s, communication_s, cpu_s, step_s;
	bool graph;
};

/* The launch cost: a graph replay (launch + a node per kernel), or the host
 * issuing launches while the GPU runs (host-bound when kernels are short). */
static double launch_cost(const struct sim *s, bool graph, double kernels, double gpu_time)
{
	const struct ridge_gpu *gpu = s->in->req.gpu;
	if (graph)
		return gpu->launch_overhead_s + kernels * gpu->graph_node_s;
	double per_layer = s->in->engine.host_launches_per_layer;
	double launches = per_layer > 0 ? per_layer * (double)s->in->req.model->layers + 4 : kernels;
	double issue = serve_eager_issue_s(gpu);
	return fmax(launches * issue - gpu_time, 0) + issue;
}

static int price_iteration(struct sim *s, struct iteration_cost *c)
{
	memset(c, 0, sizeof *c);
	double graph_size = s->prefill_tokens == 0 ? serve_engine_graph_size(&s->in->engine, s->decode_n) : 0;
	c->graph = graph_size > 0;
	double tokens = c->graph ? graph_size : s->decode_n + s->prefill_tokens;
	double rows = c->graph ? graph_size : s->rows;
	struct pass_memo *t, *l;
	if (token_pass(s, tokens, &t) || (rows > 0 && logits_pass(s, rows, &l)))
		return -1;
	double matrix = t->matrix_s, kernels = t->kernels;
	c->token_s = t->kernel_s;
	c->communication_s = t->communication_s;
	if (rows > 0) {
		c->logits_s = l->kernel_s;
		matrix += l->matrix_s;
		kernels += l->kernels;
	}
	struct ridge_serve_pass a;
	if (s->decode_n > 0) {
		if (attention_pass(s, s->decode_n, s->decode_context, &a))
			return -1;
		c->attention_s += a.kernel_time_s;
		matrix += a.matrix_time_s;
		kernels += a.kernels;
	}
	for (int i = 0; i < s->n_running; i++) {
		const struct sim_request *r = &s->reqs[s->running[i]];
		if (r->chunk <= 0)
			continue;
		if (serve_chunk_attention_pass(&s->in->req, r->chunk, r->computed, &a, s->err, s->err_len))
			return -1;
		c->attention_s += a.kernel_time_s;
		matrix += a.matrix_time_s;
		kernels += a.kernels;
	}
	c->power_s = serve_power_limit_extra(s->in->req.gpu, matrix);
	double gpu_time = c->token_s + c->attention_s + c->logits_s + c->power_s;
	c->launch_s = launch_cost(s, c->graph, kernels, gpu_time);
	c->cpu_s = s->in->engine.cpu_overhead_s;
	c->step_s = gpu_time + c->launch_s + c->communication_s + c->cpu_s;
	return 0;
}

/* ---- after the iteration ---- */

static void itl_add(struct sim *s, double gap)
{
	s->itl_count++;
	s->itl_sum += gap;
	double at = log(fmax(gap, ITL_LO) / ITL_LO) / log(ITL_HI / ITL_LO) * ITL_BINS;
	s->itl_bins[(int)fmin(fmax(at, 0), ITL_BINS - 1)]++;
}

static void finish(struct sim *s, int position)
{
	int index = s->running[position];
	struct sim_request *r = &s->reqs[index];
	r->state = REQUEST_DONE;
	s->free_blocks += r->blocks;
	r->blocks = 0;
	remove_running(s, position);
	s->done++;
	if (r->measured) {
		int k = s->measured_done++;
		double e2e = s->now - r->arrival, ttft = r->first_token - r->arrival;
		s->ttft[k] = ttft;
		s->e2e[k] = e2e;
		s->tpot[k] = r->osl > 1 ? (e2e - ttft) / (r->osl - 1) : NAN;
		s->window_end = fmax(s->window_end, s->now);
	}
	if (s->in->concurrency > 0 && s->issued < s->total)
		issue(s, s->now); /* the client's next request */
}

/* Every scheduled request moves on by its chunk or its token; a request
 * whose prompt is in samples a token. */
static void advance(struct sim *s)
{
	for (int i = 0; i < s->n_running; i++) {
		struct sim_request *r = &s->reqs[s->running[i]];
		bool token = false;
		if (r->chunk > 0) {
			r->computed += r->chunk;
			token = r->computed >= r->target;
		} else if (r->decoding) {
			r->computed += 1;
			token = true;
		}
		if (!token)
			continue;
		r->generated++;
		if (r->generated == 1)
			r->first_token = s->now;
		else if (r->measured)
			itl_add(s, s->now - r->last_token);
		r->last_token = s->now;
		if (r->generated >= r->osl) {
			finish(s, i);
			i--;
		}
	}
}

static void record_sample(struct sim *s, const struct iteration_cost *c, double kv_used)
{
	struct ridge_serve_sim_result *out = s->out;
	int capacity = s->in->timeline_capacity;
	if (capacity <= 0 || !s->samples)
		return;
	double iteration = out->iterations - 1;
	if (fmod(iteration, out->sample_stride) != 0)
		return;
	if (out->sample_count == capacity) {
		/* full: keep every other sample and sample half as often */
		for (int i = 0; i < capacity / 2; i++)
			s->samples[i] = s->samples[2 * i];
		out->sample_count = capacity / 2;
		out->sample_stride *= 2;
		if (fmod(iteration, out->sample_stride) != 0)
			return;
	}
	s->samples[out->sample_count++] =
		(struct ridge_serve_sim_sample){ s->now,       c->step_s,     s->decode_n, s->prefill_tokens,
						 s->n_running, s->wait_count, kv_used };
}

static void account_iteration(struct sim *s, const struct iteration_cost *c)
{
	struct ridge_serve_sim_result *out = s->out;
	out->iterations++;
	out->graph_iterations += c->graph;
	out->mixed_iterations += s->decode_n > 0 && s->prefill_tokens > 0;
	out->token_pass_s += c->token_s;
	out->attention_s += c->attention_s;
	out->logits_s += c->logits_s;
	out->power_limit_s += c->power_s;
	out->launch_s += c->launch_s;
	out->communication_s += c->communication_s;
	out->cpu_s += c->cpu_s;
	s->batch_tokens_sum += s->decode_n + s->prefill_tokens;
	s->running_sum += s->n_running;
	double used = out->kv_blocks > 0 ? (out->kv_blocks - s->free_blocks) / out->kv_blocks : 0;
	out->kv_utilization_peak = fmax(out->kv_utilization_peak, used);
	if (s->now >= s->window_start) {
		s->kv_integral += used * c->step_s;
		s->kv_time += c->step_s;
	}
}

/* ---- statistics ---- */

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double serve_sim_percentile(const double *sorted, size_t count, double q)
{
	if (count == 0)
		return NAN;
	double rank = q / 100 * (double)(count - 1);
	size_t below = (size_t)floor(rank);
	if (below + 1 >= count)
		return sorted[count - 1];
	return sorted[below] + (rank - (double)below) * (sorted[below + 1] - sorted[below]);
}

/* Sorts values (NaN last, left out) into mean and percentiles. */
static void latency_stats(double *values, size_t count, struct ridge_latency_stats *out)
{
	size_t n = 0;
	for (size_t i = 0; i < count; i++)
		if (!isnan(values[i]))
			values[n++] = values[i];
	qsort(values, n, sizeof *values, compare_doubles);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += values[i];
	out->mean_s = n ? sum / (double)n : NAN;
	out->p50_s = serve_sim_percentile(values, n, 50);
	out->p90_s = serve_sim_percentile(values, n, 90);
	out->p99_s = serve_sim_percentile(values, n, 99);
}

/* Inter-token latency from the histogram: each bin's geometric middle. */
static double itl_percentile(const struct sim *s, double q)
{
	double want = q / 100 * s->itl_count, seen = 0;
	for (int i = 0; i < ITL_BINS; i++) {
		seen += s->itl_bins[i];
		if (seen >= want && s->itl_bins[i] > 0)
			return ITL_LO * pow(ITL_HI / ITL_LO, (i + 0.5) / ITL_BINS);
	}
	return NAN;
}

static void statistics(struct sim *s)
{
	const struct ridge_serve_sim_input *in = s->in;
	struct ridge_serve_sim_result *out = s->out;
	size_t n = (size_t)s->measured_done;
	latency_stats(s->ttft, n, &out->ttft);
	latency_stats(s->tpot, n, &out->tpot);
	latency_stats(s->e2e, n, &out->e2e);
	out->itl.mean_s = s->itl_count > 0 ? s->itl_sum / s->itl_count : NAN;
	out->itl.p50_s = itl_percentile(s, 50);
	out->itl.p90_s = itl_percentile(s, 90);
	out->itl.p99_s = itl_percentile(s, 99);
	double output = 0, total = 0;
	for (int i = 0; i < s->total; i++)
		if (s->reqs[i].measured) {
			output += s->reqs[i].osl;
			total += s->reqs[i].osl + s->reqs[i].isl;
		}
	out->duration_s = s->window_end - s->window_start;
	out->measured_requests = (double)n;
	out->simulated_requests = s->total;
	out->output_tokens_per_s = output / out->duration_s;
	out->output_tokens_per_s_per_gpu = out->output_tokens_per_s / in->req.tp;
	out->total_tokens_per_s = total / out->duration_s;
	out->requests_per_s = (double)n / out->duration_s;
	out->usd_per_million_output_tokens =
		in->req.tp * in->req.price_usd_per_gpu_hour / 3600 / out->output_tokens_per_s * 1e6;
	out->kv_utilization = s->kv_time > 0 ? s->kv_integral / s->kv_time : 0;
	out->mean_batch_tokens = out->iterations > 0 ? s->batch_tokens_sum / out->iterations : 0;
	out->mean_running = out->iterations > 0 ? s->running_sum / out->iterations : 0;
}

/* ---- the run ---- */

static void sim_init(struct sim *s, const struct ridge_serve_sim_input *in, void *workspace,
		     struct ridge_serve_sim_sample *samples, struct ridge_serve_sim_result *out, char *err,
		     size_t err_len)
{
	struct layout l;
	layout_of(in, &l);
	char *base = workspace;
	memset(s, 0, sizeof *s);
	memset(out, 0, sizeof *out);
	s->in = in;
	s->out = out;
	s->samples = samples;
	s->err = err;
	s->err_len = err_len;
	s->reqs = (struct sim_request *)(base + l.reqs);
	s->ttft = (double *)(base + l.ttft);
	s->tpot = (double *)(base + l.tpot);
	s->e2e = (double *)(base + l.e2e);
	s->itl_bins = (double *)(base + l.itl);
	s->tokens = (struct pass_memo *)(base + l.tokens);
	s->logits = (struct pass_memo *)(base + l.logits);
	s->attention = (struct attention_memo *)(base + l.attention);
	s->running = (int *)(base + l.running);
	s->waiting = (int *)(base + l.waiting);
	memset(base, 0, l.end);
	s->tokens_cap = token_rows(in);
	s->rows_cap = running_cap(in);
	for (int i = 0; i < s->tokens_cap; i++)
		s->tokens[i].kernel_s = NAN;
	for (int i = 0; i < s->rows_cap; i++)
		s->logits[i].kernel_s = NAN;
	s->total = (int)total_requests(in);
	s->rng = in->seed;
	s->window_start = INFINITY;
	s->context_lo = min_prompt(in) + 1;
	s->context_hi = max_prompt(in) + in->osl;
	out->sample_stride = 1;
}

int serve_sim_run(const struct ridge_serve_sim_input *in, void *workspace, size_t workspace_bytes,
		  struct ridge_serve_sim_sample *samples, struct ridge_serve_sim_result *out, char *err, size_t err_len)
{
	size_t need = serve_sim_workspace_bytes(in, err, err_len);
	if (need == 0)
		return -1;
	if (!workspace || workspace_bytes < need)
		return model_fail(err, err_len, "the workspace holds %zu bytes, not the %zu the run needs",
				  workspace_bytes, need);
	struct sim *s = &(struct sim){ 0 };
	sim_init(s, in, workspace, samples, out, err, err_len);
	int rc = memory_setup(s);
	if (rc)
		return rc;
	if (in->concurrency > 0)
		while (s->issued < (int)fmin(in->concurrency, s->total))
			issue(s, 0);
	while (s->done < s->total) {
		admit_arrivals(s);
		if (s->n_running == 0 && s->wait_count == 0) {
			s->now = s->next_arrival; /* idle until the next request */
			continue;
		}
		schedule(s);
		if (s->decode_n + s->prefill_tokens == 0)
			return model_fail(err, err_len,
					  "the scheduler found no work it could run (%d waiting, %d running)",
					  s->wait_count, s->n_running);
		struct iteration_cost c;
		if (price_iteration(s, &c))
			return -1;
		account_iteration(s, &c);
		s->now += c.step_s;
		double used = out->kv_blocks > 0 ? (out->kv_blocks - s->free_blocks) / out->kv_blocks : 0;
		record_sample(s, &c, used);
		advance(s);
	}
	statistics(s);
	return 0;
}
