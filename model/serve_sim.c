/* The serving engine's iteration loop (serve_sim.h). */
#include "serve_sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "names.h"
#include "serve_sim_internal.h"

static const char *const engine_names[] = { "vllm", "sglang", "trtllm" };
MODEL_NAMED_ENUM(serve_engine_name, serve_engine_parse, enum ridge_engine_kind, engine_names, 0, RIDGE_ENGINE_COUNT)

#define GIB (1024.0 * 1024.0 * 1024.0)

/* Bounds that keep a run inside a second or two and a few tens of MB. */
#define SIM_MAX_REQUESTS 200000.0
#define SIM_MAX_WORK 2e8 /* requests x output tokens: the decode slots the loop visits */
#define SIM_MAX_TOKENS 1048576.0
#define SIM_MAX_SEQS 65536.0
#define SIM_MAX_WORKERS 64      /* a disaggregated run's workers, both pools */
#define SIM_MAX_QUEUE_SLOTS 4e7 /* requests x workers: each worker's queue holds every request */
/* The output lengths' stream starts at seed XOR this (an arbitrary odd
 * 64-bit constant, not a tuned figure: any other start gives another
 * stream of the same kind). */
#define SIM_OSL_STREAM 0xD1B54A32D192ED03ull

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
 * page_size 1); enable_mixed_chunk False (server_args.py @001067ff;
 * --mixed-chunk turns it on). */
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
	out->hybrid_kv_cache = kind == RIDGE_ENGINE_VLLM;
	/* SGLang: ServerArgs.disable_overlap_schedule False; TensorRT-LLM:
	 * TorchLlmArgs.disable_overlap_scheduler False (llm_args.py); vLLM:
	 * SchedulerConfig.async_scheduling off through v0.13, the versions this
	 * preset was read from (on by default from v0.14.0, pull request #27614) */
	out->overlap_scheduling = kind != RIDGE_ENGINE_VLLM;
	/* the size caps of each engine's custom all-reduce: vLLM's and SGLang's
	 * CustomAllreduce(max_size=8192 * 1024) (vllm/distributed/
	 * device_communicators/custom_all_reduce.py; SGLang's port of it);
	 * TensorRT-LLM's getMaxRequiredWorkspaceSize, 16 MB on 2 GPUs and 8 MB on
	 * more (cpp/tensorrt_llm/common/customAllReduceUtils.h, 1.0 and 1.1),
	 * past which AllreduceOp falls back to NCCL */
	out->custom_allreduce_max_bytes =
		kind == RIDGE_ENGINE_TRTLLM ? (tp <= 2 ? 16e6 : 8e6) : RIDGE_CUSTOM_ALLREDUCE_CAP_VLLM;
	/* tensorrt_llm/_torch/models/modeling_llama.py, LlamaDecoderLayer:
	 * enable_fusion (TRTLLM_LLAMA_EAGER_FUSION_DISABLED unset) and hidden_size >
	 * 4096; PRE_MLP_FUSION / POST_MLP_FUSION when the mapping has tp */
	out->allreduce_norm_fusion = kind == RIDGE_ENGINE_TRTLLM;
	out->custom_allreduce_source =
		kind == RIDGE_ENGINE_TRTLLM
			? "TensorRT-LLM's AllreduceOp: custom kernels up to its workspace "
			  "(customAllReduceUtils.h getMaxRequiredWorkspaceSize), NCCL past it"
			: "CustomAllreduce(max_size=8192 * 1024) (custom_all_reduce.py), NCCL past it";
	/* fitted on vLLM's subset of the published runs below (the least median |TTFT error| over 0
	 * to 80 ms, validation/serve_latency_check.py --fit-request-latency) and used for every
	 * engine: their OpenAI-compatible servers take the same path (HTTP, tokenizer, hand-off,
	 * streaming) */
	out->request_latency_s = 35e-3;
	out->request_latency_source =
		"35 ms, fitted on vLLM's 60 Llama-3.1-70B FP8 runs on an H200 (InferenceMAX's, 2025-10-29, with "
		"their --async-scheduling; validation/README.md), the same for every engine";
	/* fitted per engine on one subset of published runs each (validation/serve_latency_check.py
	 * --fit ENGINE: the least median |TPOT error| over a grid of 0 to 2 ms; a grid flat within
	 * half a point keeps 0, which the overlap schedulers document) */
	out->cpu_overhead_s = kind == RIDGE_ENGINE_TRTLLM ? 0.5e-3 : kind == RIDGE_ENGINE_VLLM ? 0.75e-3 : 0;
	out->cpu_overhead_source =
		kind == RIDGE_ENGINE_TRTLLM
			? "0.5 ms, fitted on TensorRT-LLM 1.0.0rc3's 177 Llama-3.1-8B runs on an H100 (validation/README.md; "
			  "3.6 % against 7.0 % at 0, with its overlap scheduler's admission and the power limit carried "
			  "across iterations priced, 2026-12-07)"
		: kind == RIDGE_ENGINE_VLLM
			? "0.75 ms, fitted on vLLM's 60 Llama-3.1-70B FP8 runs on an H200 (InferenceMAX's, vLLM 0.10.2 "
			  "with --async-scheduling, 2025-10-29; validation/README.md): 6.0 % against 8.1 % at 0"
			: "0, fitted on SGLang 0.5.1.post1's 78 Qwen3-32B runs on an H100 (validation/README.md): flat "
			  "within half a point; the overlap scheduler hides it (docs/sources/serving-engines.md)";
}

bool serve_engine_fuses_allreduce_norm(const struct ridge_engine *e, bool llama_decoder, long long hidden)
{
	return e->allreduce_norm_fusion && llama_decoder && hidden > 4096;
}

/* The power of two at or above a batch of 1 to 4. */
static double small_power_of_two(double batch)
{
	return batch <= 1 ? 1 : batch <= 2 ? 2 : 4;
}

static bool power_of_two(double batch)
{
	int exponent;
	return frexp(batch, &exponent) == 0.5;
}

double serve_engine_graph_size(const struct ridge_engine *e, double batch)
{
	double max = e->graph_max_batch;
	if (!(batch >= 1) || !(max >= 1) || batch > max)
		return 0;
	double size;
	switch (e->graph_sizes) {
	case RIDGE_GRAPH_SGLANG:
		size = batch <= 4 ? small_power_of_two(batch) : batch <= 8 ? 8 : batch <= 12 ? 12 : ceil(batch / 8) * 8;
		break;
	case RIDGE_GRAPH_TRTLLM:
		if (e->graph_batch_size_count > 0) { /* the listed sizes: the next one up, or exactly one */
			for (int i = 0; i < e->graph_batch_size_count; i++)
				if (e->graph_batch_sizes[i] >= batch)
					return e->graph_padding || e->graph_batch_sizes[i] == batch
						       ? e->graph_batch_sizes[i]
						       : 0;
			return 0;
		}
		/* 1..31, 32, 64, 128, powers of two up to the maximum, the maximum;
		 * without padding a batch between them runs eager; with padding
		 * (CudaGraphConfig._generate_cuda_graph_batch_sizes) 1, 2, 4,
		 * multiples of 8 to 128, then powers of two, and the maximum */
		if (e->graph_padding) {
			size = batch <= 4     ? small_power_of_two(batch)
			       : batch <= 128 ? ceil(batch / 8) * 8
					      : pow(2, ceil(log2(batch)));
			return fmin(size, max);
		}
		if (batch <= 32 || batch == max || power_of_two(batch))
			return batch;
		return 0;
	default:
		size = batch <= 4     ? small_power_of_two(batch)
		       : batch <= 256 ? ceil(batch / 8) * 8
				      : ceil(batch / 16) * 16;
		break;
	}
	return fmin(size, max);
}

/* ---- the input ---- */

static double rng_uniform(uint64_t *state)
{
	/* splitmix64: a fixed, seeded sequence on every platform */
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	return ((double)(z >> 11) + 1) / 9007199254740993.0; /* (0, 1] */
}

double sim_total_requests(const struct ridge_serve_sim_input *in)
{
	return in->requests + in->warmup;
}

/* A length distribution: the prompts' or the outputs'. */
struct length_dist {
	enum ridge_length_dist dist;
	double fixed, lo, hi;
	const double *values;
	size_t count;
};

static struct length_dist prompt_dist(const struct ridge_serve_sim_input *in)
{
	return (struct length_dist){ in->isl_dist, in->isl, in->isl_lo, in->isl_hi, in->isl_values, in->isl_count };
}

static struct length_dist output_dist(const struct ridge_serve_sim_input *in)
{
	return (struct length_dist){ in->osl_dist, in->osl, in->osl_lo, in->osl_hi, in->osl_values, in->osl_count };
}

static double dist_max(const struct length_dist *d)
{
	if (d->dist == RIDGE_LENGTH_UNIFORM)
		return d->hi;
	if (d->dist != RIDGE_LENGTH_LIST)
		return d->fixed;
	double most = 0;
	for (size_t i = 0; i < d->count; i++)
		most = fmax(most, d->values[i]);
	return most;
}

static double dist_min(const struct length_dist *d)
{
	if (d->dist == RIDGE_LENGTH_UNIFORM)
		return d->lo;
	if (d->dist != RIDGE_LENGTH_LIST)
		return d->fixed;
	double least = INFINITY;
	for (size_t i = 0; i < d->count; i++)
		least = fmin(least, d->values[i]);
	return least;
}

/* The next length: a uniform draw from `rng`, the list in turn (the
 * request's index), or the fixed length. */
static double dist_next(const struct length_dist *d, uint64_t *rng, int index)
{
	switch (d->dist) {
	case RIDGE_LENGTH_UNIFORM:
		return fmin(d->lo + floor(rng_uniform(rng) * (d->hi - d->lo + 1)), d->hi);
	case RIDGE_LENGTH_LIST:
		return d->values[(size_t)index % d->count];
	default:
		return d->fixed;
	}
}

double sim_max_prompt(const struct ridge_serve_sim_input *in)
{
	struct length_dist d = prompt_dist(in);
	return dist_max(&d);
}

double serve_sim_longest_prompt(const struct ridge_serve_sim_input *in)
{
	return sim_max_prompt(in);
}

double sim_min_prompt(const struct ridge_serve_sim_input *in)
{
	struct length_dist d = prompt_dist(in);
	return dist_min(&d);
}

double sim_max_output(const struct ridge_serve_sim_input *in)
{
	struct length_dist d = output_dist(in);
	return dist_max(&d);
}

double serve_sim_longest_output(const struct ridge_serve_sim_input *in)
{
	return sim_max_output(in);
}

static bool whole(double v, double lo, double hi)
{
	return isfinite(v) && v >= lo && v <= hi && v == floor(v);
}

static bool disaggregated(const struct ridge_serve_sim_input *in)
{
	return in->disagg.decode_workers > 0;
}

/* One distribution's lengths: whole tokens from 1 to 1e7 ("prompt" or
 * "output" in the message). */
static int check_dist(const struct length_dist *d, const char *what, char *err, size_t err_len)
{
	if (d->dist == RIDGE_LENGTH_FIXED && !whole(d->fixed, 1, 1e7))
		return model_fail(err, err_len, "%s length must be a whole number of tokens from 1 to 1e7, not %g",
				  what, d->fixed);
	if (d->dist == RIDGE_LENGTH_UNIFORM && !(whole(d->lo, 1, 1e7) && whole(d->hi, 1, 1e7) && d->lo <= d->hi))
		return model_fail(err, err_len, "uniform %s lengths need whole LO <= HI from 1 to 1e7, not %g:%g", what,
				  d->lo, d->hi);
	if (d->dist == RIDGE_LENGTH_LIST) {
		if (!d->values || d->count == 0)
			return model_fail(err, err_len, "the %s length list is empty", what);
		for (size_t i = 0; i < d->count; i++)
			if (!whole(d->values[i], 1, 1e7))
				return model_fail(err, err_len,
						  "%s length %zu of the list: %g is not a whole number from 1 to 1e7",
						  what, i + 1, d->values[i]);
	}
	return 0;
}

static int check_lengths(const struct ridge_serve_sim_input *in, char *err, size_t err_len)
{
	struct length_dist prompts = prompt_dist(in), outputs = output_dist(in);
	if (check_dist(&outputs, "output", err, err_len) || check_dist(&prompts, "prompt", err, err_len))
		return -1;
	double longest = sim_max_prompt(in) + sim_max_output(in);
	if (in->max_context > 0 && longest > in->max_context)
		return model_fail(err, err_len,
				  "prompt + output of %g tokens is longer than the model's context of %g tokens",
				  longest, in->max_context);
	return 0;
}

int sim_check_engine(const struct ridge_serve_sim_input *in, const struct ridge_engine *e, char *err, size_t err_len)
{
	if (!whole(e->max_num_batched_tokens, 1, SIM_MAX_TOKENS))
		return model_fail(err, err_len, "max-num-batched-tokens must be a whole number from 1 to %g, not %g",
				  SIM_MAX_TOKENS, e->max_num_batched_tokens);
	if (!whole(e->max_num_seqs, 1, SIM_MAX_SEQS))
		return model_fail(err, err_len, "max-num-seqs must be a whole number from 1 to %g, not %g",
				  SIM_MAX_SEQS, e->max_num_seqs);
	if (!e->chunked_prefill && sim_max_prompt(in) > e->max_num_batched_tokens)
		return model_fail(err, err_len,
				  "max-num-batched-tokens %g is smaller than a prompt of %g tokens, which chunked "
				  "prefill off must run in one iteration",
				  e->max_num_batched_tokens, sim_max_prompt(in));
	if (!whole(e->block_size, 1, 1e6) || !(e->memory_fraction > 0 && e->memory_fraction <= 1) ||
	    !(e->graph_max_batch >= 0 && e->graph_max_batch <= SIM_MAX_SEQS) ||
	    !(isfinite(e->cpu_overhead_s) && e->cpu_overhead_s >= 0 && e->cpu_overhead_s <= 10) ||
	    !(e->host_launches_per_layer >= 0 && e->host_launches_per_layer <= 1e4))
		return model_fail(err, err_len,
				  "engine: block size, memory fraction (0..1], graph sizes or CPU "
				  "overhead (0..10 s) out of range");
	if (e->graph_batch_size_count < 0 || e->graph_batch_size_count > RIDGE_GRAPH_SIZES_MAX)
		return model_fail(err, err_len, "engine: %d graph batch sizes (at most %d)", e->graph_batch_size_count,
				  RIDGE_GRAPH_SIZES_MAX);
	for (int i = 0; i < e->graph_batch_size_count; i++)
		if (!whole(e->graph_batch_sizes[i], 1, SIM_MAX_SEQS) ||
		    (i > 0 && !(e->graph_batch_sizes[i] > e->graph_batch_sizes[i - 1])))
			return model_fail(err, err_len,
					  "engine: graph batch sizes must be whole numbers from 1 to %g, ascending",
					  SIM_MAX_SEQS);
	if (!(isfinite(e->request_latency_s) && e->request_latency_s >= 0 && e->request_latency_s <= 60))
		return model_fail(err, err_len, "engine: the request latency must be 0 to 60 s, not %g",
				  e->request_latency_s);
	if (!whole(e->batch_wait_iters, 0, 1e6) ||
	    !(e->batch_wait_tokens_ratio >= 0 && e->batch_wait_tokens_ratio <= 1))
		return model_fail(err, err_len,
				  "engine: batch waiting needs whole iterations from 0 to 1e6 and a token ratio from "
				  "0 to 1, not %g and %g",
				  e->batch_wait_iters, e->batch_wait_tokens_ratio);
	return 0;
}

int sim_check_load(const struct ridge_serve_sim_input *in, char *err, size_t err_len)
{
	bool closed = in->concurrency > 0;
	if (closed && !whole(in->concurrency, 1, SIM_MAX_SEQS))
		return model_fail(err, err_len, "concurrency must be a whole number from 1 to %g, not %g", SIM_MAX_SEQS,
				  in->concurrency);
	if (!closed && !(isfinite(in->rate) && in->rate > 0 && in->rate <= 1e6))
		return model_fail(err, err_len, "request rate must be above 0 and at most 1e6 per second, not %g",
				  in->rate);
	if (!whole(in->requests, 1, SIM_MAX_REQUESTS) || !whole(in->warmup, 0, SIM_MAX_REQUESTS) ||
	    sim_total_requests(in) > SIM_MAX_REQUESTS)
		return model_fail(err, err_len,
				  "requests + warm-up must be whole numbers, 1 to %g together, not %g + %g",
				  SIM_MAX_REQUESTS, in->requests, in->warmup);
	if (sim_total_requests(in) * sim_max_output(in) > SIM_MAX_WORK)
		return model_fail(err, err_len,
				  "%g requests x %g output tokens is more than the %g decode slots one run simulates",
				  sim_total_requests(in), sim_max_output(in), SIM_MAX_WORK);
	if (in->timeline_capacity < 0 || in->timeline_capacity > 1000000)
		return model_fail(err, err_len, "timeline capacity out of range");
	if (!(isfinite(in->max_iterations) && in->max_iterations >= 0))
		return model_fail(err, err_len, "the iteration limit must be 0 or more");
	return 0;
}

/* The pools: whole numbers of workers and tensor-parallel GPUs whose
 * degrees divide the model's attention heads, as each engine requires. */
static int check_disagg(const struct ridge_serve_sim_input *in, char *err, size_t err_len)
{
	const struct ridge_serve_disagg *d = &in->disagg;
	const struct ridge_workload_model *m = in->req.model;
	const struct {
		const char *what;
		double v, hi;
	} need[] = { { "prefill workers", d->prefill_workers, SIM_MAX_WORKERS },
		     { "decode workers", d->decode_workers, SIM_MAX_WORKERS },
		     { "prefill tp", d->prefill_tp, 1024 },
		     { "decode tp", d->decode_tp, 1024 } };
	for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
		if (!whole(need[i].v, 1, need[i].hi))
			return model_fail(err, err_len, "%s must be a whole number from 1 to %g, not %g", need[i].what,
					  need[i].hi, need[i].v);
	if (d->prefill_workers + d->decode_workers > SIM_MAX_WORKERS)
		return model_fail(err, err_len, "prefill workers + decode workers must be at most %d, not %g",
				  SIM_MAX_WORKERS, d->prefill_workers + d->decode_workers);
	for (int i = 2; i < 4; i++)
		if (fmod((double)m->heads, need[i].v) != 0)
			return model_fail(
				err, err_len,
				"%s %g does not divide the model's %lld attention heads (num_attention_heads)",
				need[i].what, need[i].v, m->heads);
	if (sim_total_requests(in) * (d->prefill_workers + d->decode_workers) > SIM_MAX_QUEUE_SLOTS)
		return model_fail(err, err_len, "%g requests on %g workers is more than one run keeps (%g slots)",
				  sim_total_requests(in), d->prefill_workers + d->decode_workers, SIM_MAX_QUEUE_SLOTS);
	if (!(isfinite(d->network_bandwidth) && d->network_bandwidth >= 0))
		return model_fail(err, err_len, "the network bandwidth must be 0 or more");
	return sim_check_engine(in, &d->prefill_engine, err, err_len);
}

static int check_input(const struct ridge_serve_sim_input *in, char *err, size_t err_len)
{
	if (!in->req.model || !in->req.gpu)
		return model_fail(err, err_len, "no model or GPU");
	if (check_lengths(in, err, err_len) || sim_check_engine(in, &in->engine, err, err_len) ||
	    sim_check_load(in, err, err_len))
		return -1;
	if (disaggregated(in))
		return check_disagg(in, err, err_len);
	/* vLLM, SGLang and TensorRT-LLM split the attention heads evenly */
	if (whole(in->req.tp, 1, 1024) && fmod((double)in->req.model->heads, in->req.tp) != 0)
		return model_fail(err, err_len,
				  "tensor parallelism %g does not divide the model's %lld attention heads "
				  "(num_attention_heads)",
				  in->req.tp, in->req.model->heads);
	return 0;
}

/* ---- the prices a run keeps (its own, or a caller's memo) ---- */

struct memo_header {
	int tokens_cap, rows_cap;
	double context_lo, context_hi;
	struct sim_step_memo step;
};

static size_t aligned(size_t at)
{
	return (at + 15) & ~(size_t)15;
}

static size_t prices_bytes(int tokens_cap, int rows_cap)
{
	return aligned(sizeof(struct memo_header)) + aligned((size_t)tokens_cap * sizeof(struct pass_memo)) +
	       aligned((size_t)rows_cap * sizeof(struct pass_memo)) +
	       aligned((size_t)rows_cap * sizeof(struct attention_memo)) +
	       aligned(SIM_CHUNK_MEMO * sizeof(struct chunk_memo));
}

/* Points p at the prices in memory (a header, then the arrays). */
static struct memo_header *prices_bind(struct sim_prices *p, void *memory)
{
	struct memo_header *h = memory;
	char *at = (char *)memory + aligned(sizeof *h);
	p->tokens_cap = h->tokens_cap;
	p->rows_cap = h->rows_cap;
	p->tokens = (struct pass_memo *)at;
	at += aligned((size_t)h->tokens_cap * sizeof(struct pass_memo));
	p->logits = (struct pass_memo *)at;
	at += aligned((size_t)h->rows_cap * sizeof(struct pass_memo));
	p->attention = (struct attention_memo *)at;
	at += aligned((size_t)h->rows_cap * sizeof(struct attention_memo));
	p->chunks = (struct chunk_memo *)at;
	p->step = &h->step;
	return h;
}

static void prices_init(void *memory, int tokens_cap, int rows_cap)
{
	struct memo_header *h = memory;
	h->tokens_cap = tokens_cap;
	h->rows_cap = rows_cap;
	h->context_lo = h->context_hi = NAN;
	h->step.known = false;
	struct sim_prices p;
	prices_bind(&p, memory);
	sim_prices_reset(&p);
}

static int memo_tokens_cap(double max_num_batched_tokens)
{
	return (int)fmax(max_num_batched_tokens, 512) + 1;
}

static int memo_rows_cap(double max_num_seqs)
{
	return (int)fmax(max_num_seqs, 512) + 1;
}

size_t serve_sim_memo_bytes(double max_num_batched_tokens, double max_num_seqs)
{
	return prices_bytes(memo_tokens_cap(max_num_batched_tokens), memo_rows_cap(max_num_seqs));
}

void serve_sim_memo_clear(struct ridge_serve_memo *memo, double max_num_batched_tokens, double max_num_seqs)
{
	int tokens_cap = memo_tokens_cap(max_num_batched_tokens), rows_cap = memo_rows_cap(max_num_seqs);
	if (memo->memory && memo->bytes >= prices_bytes(tokens_cap, rows_cap))
		prices_init(memo->memory, tokens_cap, rows_cap);
}

/* A pool's prices: the caller's memo when it has room for the engine, else
 * the workspace's. The decode attention memo holds for one context range. */
static int prices_open(struct sim_prices *p, const struct ridge_serve_memo *memo, void *own,
		       const struct ridge_engine *e, double total, double lo, double hi, char *err, size_t err_len)
{
	int tokens = sim_token_rows(e), rows = sim_running_cap(e, total);
	struct memo_header *h;
	if (memo->memory) {
		h = prices_bind(p, memo->memory);
		if (h->tokens_cap < tokens || h->rows_cap < rows)
			return model_fail(err, err_len,
					  "the price memo holds %d token rows and %d sequences, not the %d and %d the "
					  "engine needs",
					  h->tokens_cap, h->rows_cap, tokens, rows);
	} else {
		prices_init(own, tokens, rows);
		h = prices_bind(p, own);
	}
	if (!(h->context_lo == lo && h->context_hi == hi)) {
		for (int i = 0; i < p->rows_cap; i++)
			p->attention[i].filled = false;
		h->context_lo = lo;
		h->context_hi = hi;
	}
	p->context_lo = lo;
	p->context_hi = hi;
	return 0;
}

/* ---- the workspace ---- */

struct layout {
	size_t reqs, ttft, tpot, e2e, itl, prices[2], workers, results, running, waiting, pending, heap, end;
	int pools, count[2], running_cap[2], heap_cap;
};

static void layout_of(const struct ridge_serve_sim_input *in, struct layout *l)
{
	size_t total = (size_t)sim_total_requests(in), measured = (size_t)in->requests;
	bool disagg = disaggregated(in);
	const struct ridge_engine *engines[2] = { &in->engine, &in->disagg.prefill_engine };
	const struct ridge_serve_memo *memos[2] = { &in->memo, &in->disagg.prefill_memo };
	memset(l, 0, sizeof *l);
	l->pools = disagg ? 2 : 1;
	l->count[0] = disagg ? (int)in->disagg.decode_workers : 1;
	l->count[1] = disagg ? (int)in->disagg.prefill_workers : 0;
	size_t at = 0;
	l->reqs = at;
	at = l->ttft = aligned(at + total * sizeof(struct sim_request));
	at = l->tpot = aligned(at + measured * sizeof(double));
	at = l->e2e = aligned(at + measured * sizeof(double));
	at = l->itl = aligned(at + measured * sizeof(double));
	at = aligned(at + SIM_ITL_BINS * sizeof(double));
	size_t running = 0;
	for (int k = 0; k < l->pools; k++) {
		l->running_cap[k] = sim_running_cap(engines[k], (double)total);
		running += (size_t)l->count[k] * (size_t)l->running_cap[k];
		l->prices[k] = at;
		if (!memos[k]->memory)
			at = aligned(at + prices_bytes(sim_token_rows(engines[k]), l->running_cap[k]));
	}
	size_t workers = (size_t)(l->count[0] + l->count[1]);
	at = l->workers = aligned(at);
	at = l->results = aligned(at + workers * sizeof(struct sim));
	at = l->running = aligned(at + workers * sizeof(struct ridge_serve_sim_result));
	at = l->waiting = aligned(at + running * sizeof(int));
	at = l->pending = aligned(at + workers * total * sizeof(int));
	at = l->heap = aligned(at + (disagg ? (size_t)l->count[0] * total * sizeof(int) : 0));
	l->heap_cap = disagg ? (int)(total + workers + 4) : 0;
	l->end = aligned(at + (size_t)l->heap_cap * sizeof(struct sim_event));
}

size_t serve_sim_workspace_bytes(const struct ridge_serve_sim_input *in, char *err, size_t err_len)
{
	if (check_input(in, err, err_len))
		return 0;
	struct layout l;
	layout_of(in, &l);
	return l.end;
}

/* ---- requests and statistics ---- */

static double next_prompt(struct sim_shared *sh)
{
	struct length_dist d = prompt_dist(sh->in);
	return dist_next(&d, &sh->rng, sh->issued);
}

static double next_output(struct sim_shared *sh)
{
	struct length_dist d = output_dist(sh->in);
	return dist_next(&d, &sh->osl_rng, sh->issued);
}

int sim_issue(struct sim_shared *sh, double arrival)
{
	int index = sh->issued;
	struct sim_request *r = &sh->reqs[index];
	memset(r, 0, sizeof *r);
	r->arrival = arrival;
	r->isl = next_prompt(sh);
	r->osl = next_output(sh);
	r->target = r->isl;
	r->measured = sh->issued >= (int)sh->in->warmup;
	if (r->measured && !(sh->window_start <= arrival))
		sh->window_start = arrival;
	sh->issued++;
	return index;
}

void sim_next_arrival(struct sim_shared *sh)
{
	sh->next_arrival += -log(rng_uniform(&sh->rng)) / sh->in->rate;
}

void sim_itl_add(struct sim_shared *sh, double gap)
{
	sh->itl_count++;
	sh->itl_sum += gap;
	if (gap != sh->itl_last_gap) { /* an iteration's requests share their gap: its bin once */
		double at = log(fmax(gap, SIM_ITL_LO) / SIM_ITL_LO) / log(SIM_ITL_HI / SIM_ITL_LO) * SIM_ITL_BINS;
		sh->itl_last_gap = gap;
		sh->itl_last_bin = (int)fmin(fmax(at, 0), SIM_ITL_BINS - 1);
	}
	sh->itl_bins[sh->itl_last_bin]++;
}

void sim_record(struct sim_shared *sh, const struct sim_request *r, double now)
{
	int k = sh->measured_done++;
	/* the request's host time outside the loop, as its client sees it */
	double host = sh->in->engine.request_latency_s;
	double e2e = now - r->arrival + host, ttft = r->first_token - r->arrival + host;
	sh->ttft[k] = ttft;
	sh->e2e[k] = e2e;
	sh->tpot[k] = r->osl > 1 ? (e2e - ttft) / (r->osl - 1) : NAN;
	sh->window_end = fmax(sh->window_end, now);
	if (disaggregated(sh->in)) {
		sh->ttft_prefill_sum += r->prefill_done - r->arrival;
		sh->ttft_wait_sum += r->transfer_start - r->prefill_done;
		sh->ttft_transfer_sum += r->transfer_end - r->transfer_start;
		sh->ttft_decode_sum += r->first_token - r->transfer_end;
		sh->ttft_request_sum += host;
	}
}

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
static double itl_percentile(const struct sim_shared *sh, double q)
{
	double want = q / 100 * sh->itl_count, seen = 0;
	for (int i = 0; i < SIM_ITL_BINS; i++) {
		seen += sh->itl_bins[i];
		if (seen >= want && sh->itl_bins[i] > 0)
			return SIM_ITL_LO * pow(SIM_ITL_HI / SIM_ITL_LO, (i + 0.5) / SIM_ITL_BINS);
	}
	return NAN;
}

int sim_stop_check(struct sim_shared *sh)
{
	sh->iterations++;
	if (sh->in->max_iterations > 0 && sh->iterations > sh->in->max_iterations) {
		model_fail(sh->err, sh->err_len, "stopped after %g iterations with %d of %d requests done",
			   sh->in->max_iterations, sh->done, sh->total);
		return 2;
	}
	return 0;
}

void sim_statistics(struct sim_shared *sh, double gpus, struct ridge_serve_sim_result *out)
{
	const struct ridge_serve_sim_input *in = sh->in;
	size_t n = (size_t)sh->measured_done;
	latency_stats(sh->ttft, n, &out->ttft);
	latency_stats(sh->tpot, n, &out->tpot);
	latency_stats(sh->e2e, n, &out->e2e);
	out->itl.mean_s = sh->itl_count > 0 ? sh->itl_sum / sh->itl_count : NAN;
	out->itl.p50_s = itl_percentile(sh, 50);
	out->itl.p90_s = itl_percentile(sh, 90);
	out->itl.p99_s = itl_percentile(sh, 99);
	double output = 0, total = 0;
	for (int i = 0; i < sh->total; i++)
		if (sh->reqs[i].measured) {
			output += sh->reqs[i].osl;
			total += sh->reqs[i].osl + sh->reqs[i].isl;
		}
	out->duration_s = sh->window_end - sh->window_start;
	out->measured_requests = (double)n;
	out->osl_mean = n > 0 ? output / (double)n : NAN;
	out->simulated_requests = sh->total;
	out->gpus = gpus;
	out->output_tokens_per_s = output / out->duration_s;
	out->output_tokens_per_s_per_gpu = out->output_tokens_per_s / gpus;
	out->total_tokens_per_s = total / out->duration_s;
	out->requests_per_s = (double)n / out->duration_s;
	out->usd_per_million_output_tokens =
		gpus * in->req.price_usd_per_gpu_hour / 3600 / out->output_tokens_per_s * 1e6;
}

/* ---- the run ---- */

/* Carves the workspace: the requests, statistics, prices and workers (not
 * yet bound to a role). */
static int space_init(struct sim_space *sp, const struct ridge_serve_sim_input *in, void *workspace,
		      struct ridge_serve_sim_result *out, char *err, size_t err_len)
{
	struct layout l;
	layout_of(in, &l);
	char *base = workspace;
	memset(sp, 0, sizeof *sp);
	memset(base, 0, l.end);
	struct sim_shared *sh = &sp->sh;
	sh->in = in;
	sh->err = err;
	sh->err_len = err_len;
	sh->reqs = (struct sim_request *)(base + l.reqs);
	sh->ttft = (double *)(base + l.ttft);
	sh->tpot = (double *)(base + l.tpot);
	sh->e2e = (double *)(base + l.e2e);
	sh->itl_bins = (double *)(base + l.itl);
	sh->total = (int)sim_total_requests(in);
	sh->rng = in->seed;
	/* the output lengths' own stream (splitmix64 from another start), so
	 * the arrivals and prompt lengths of a seed do not move with them */
	sh->osl_rng = in->seed ^ SIM_OSL_STREAM;
	sh->window_start = INFINITY;
	sh->itl_last_gap = NAN;
	const struct ridge_engine *engines[2] = { &in->engine, &in->disagg.prefill_engine };
	const struct ridge_serve_memo *memos[2] = { &in->memo, &in->disagg.prefill_memo };
	double lo = sim_min_prompt(in) + 1, hi = sim_max_prompt(in) + sim_max_output(in);
	for (int k = 0; k < l.pools; k++)
		if (prices_open(&sp->prices[k], memos[k], base + l.prices[k], engines[k], sh->total, lo, hi, err,
				err_len))
			return -1;
	sp->n_workers = l.count[0] + l.count[1];
	sp->n_prefill = l.count[1];
	sp->workers = (struct sim *)(base + l.workers);
	sp->results = l.pools == 1 ? out : (struct ridge_serve_sim_result *)(base + l.results);
	sp->pending = (int *)(base + l.pending);
	sp->heap = (struct sim_event *)(base + l.heap);
	sp->heap_cap = l.heap_cap;
	int *running = (int *)(base + l.running), *waiting = (int *)(base + l.waiting);
	for (int i = 0; i < sp->n_workers; i++) {
		struct sim *w = &sp->workers[i];
		int pool = i < sp->n_prefill ? 1 : 0;
		w->sh = sh;
		w->engine = engines[pool];
		w->prices = &sp->prices[pool];
		w->out = &sp->results[i];
		w->out->sample_stride = 1;
		w->running = running;
		running += l.running_cap[pool];
		w->waiting = waiting + (size_t)i * (size_t)sh->total;
		w->max_running = (int)fmin(w->engine->max_num_seqs, sh->total);
	}
	return 0;
}

/* Requests that have arrived by now join the queue (open loop). */
static void admit_arrivals(struct sim *w)
{
	struct sim_shared *sh = w->sh;
	while (sh->in->concurrency <= 0 && sh->issued < sh->total && sh->next_arrival <= w->now) {
		sim_worker_push(w, sim_issue(sh, sh->next_arrival), false);
		sim_next_arrival(sh);
	}
}

static void client_next_whole(struct sim_shared *sh, double time)
{
	if (sh->in->concurrency > 0 && sh->issued < sh->total)
		sim_worker_push(sh->context, sim_issue(sh, time), false);
}

static int run_aggregated(struct sim_space *sp, struct ridge_serve_sim_sample *samples,
			  struct ridge_serve_sim_result *out)
{
	struct sim_shared *sh = &sp->sh;
	const struct ridge_serve_sim_input *in = sh->in;
	struct sim *w = &sp->workers[0];
	w->req = &in->req;
	w->role = SIM_WHOLE;
	w->samples = samples;
	w->timeline_capacity = in->timeline_capacity;
	sh->context = w;
	sh->client_next = client_next_whole;
	int rc = sim_worker_memory(w, in->memory_bytes, sim_max_prompt(in) + sim_max_output(in), sim_max_prompt(in));
	if (rc)
		return rc;
	if (in->concurrency > 0)
		while (sh->issued < (int)fmin(in->concurrency, sh->total))
			sim_worker_push(w, sim_issue(sh, 0), false);
	while (sh->done < sh->total) {
		admit_arrivals(w);
		if (w->n_running == 0 && w->wait_count == 0) {
			w->now = sh->next_arrival; /* idle until the next request */
			continue;
		}
		sim_worker_schedule(w);
		if (w->decode_n + w->prefill_tokens == 0)
			return model_fail(sh->err, sh->err_len,
					  "the scheduler found no work it could run (%d waiting, %d running)",
					  w->wait_count, w->n_running);
		struct iteration_cost c;
		if (sim_worker_price(w, &c))
			return -1;
		if (sim_stop_check(sh))
			return 2;
		sim_worker_account(w, &c);
		w->previous_start = w->now;
		w->started = true;
		w->now += c.step_s;
		sim_worker_sample(w, &c);
		sim_worker_advance(w);
	}
	sim_worker_totals(w);
	sim_statistics(sh, in->req.tp, out);
	return 0;
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
	memset(out, 0, sizeof *out);
	struct sim_space *sp = &(struct sim_space){ 0 };
	if (space_init(sp, in, workspace, out, err, err_len))
		return -1;
	if (!disaggregated(in))
		return run_aggregated(sp, samples, out);
	return sim_disagg_run(sp, samples, out);
}
