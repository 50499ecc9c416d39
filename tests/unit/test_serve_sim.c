/* model/serve_sim.c and the iteration passes of model/serve.c: the passes
 * reproduce serve_step; a lone request's TTFT and TPOT are the prices of
 * its iterations, worked out from the passes; the engines' presets and
 * graph sizes are their sources'; preemption, reservation, seeds, bounds. */
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct ridge_workload_model llama3_8b(void)
{
	struct ridge_workload_model m = {
		.hidden = 4096, .intermediate = 14336, .layers = 32, .heads = 32, .kv_heads = 8, .vocab = 128256
	};
	char err[200];
	assert_int_equal(workload_resolve(&m, err, sizeof err), 0);
	return m;
}

static struct ridge_serve_request request(const struct ridge_workload_model *m, const struct ridge_gpu *gpu)
{
	struct ridge_serve_request r = { 0 };
	r.model = m;
	r.gpu = gpu;
	r.tp = 1;
	r.weights = (struct ridge_storage){ 2, 0, 2 };
	r.kv = (struct ridge_storage){ 2, 0, 2 };
	r.compute_dtype = RIDGE_BF16;
	r.launch = RIDGE_LAUNCH_GRAPH;
	r.price_usd_per_gpu_hour = 3;
	return r;
}

/* TensorRT-LLM's all-reduce fused with the residual add and RMSNorm
 * (serve.h, fused_allreduce_norm_bytes): at tp 2 the token pass of 16 tokens
 * (all-reduces of 16 x 4096 x 2 = 131072 bytes) loses each layer's two norms
 * and two residual adds (4 x 32 launches of Llama-3-8B), nothing else, below
 * the byte limit; at the limit, or at tp 1 (no all-reduce), nothing is fused.
 * Which engines and models fuse: TensorRT-LLM's Llama layers wider than 4096. */
static void test_fused_allreduce_norm(void **state)
{
	(void)state;
	struct ridge_workload_model m = llama3_8b();
	struct ridge_serve_request req = request(&m, test_gpu("h100-sxm"));
	req.fused_projections = true;
	struct ridge_serve_pass plain, fused;
	char err[300];
	for (double tp = 1; tp <= 2; tp++) {
		req.tp = tp;
		req.fused_allreduce_norm_bytes = 0;
		assert_int_equal(serve_token_pass(&req, 16, &plain, err, sizeof err), 0);
		req.fused_allreduce_norm_bytes = 131072; /* not below: NCCL's, apart */
		assert_int_equal(serve_token_pass(&req, 16, &fused, err, sizeof err), 0);
		assert_true(fused.kernels == plain.kernels && fused.kernel_time_s == plain.kernel_time_s);
		req.fused_allreduce_norm_bytes = 8e6;
		assert_int_equal(serve_token_pass(&req, 16, &fused, err, sizeof err), 0);
		if (tp == 1) {
			assert_true(fused.kernels == plain.kernels && fused.kernel_time_s == plain.kernel_time_s);
			continue;
		}
		assert_true(fused.kernels == plain.kernels - 4 * 32);
		assert_true(fused.kernel_time_s < plain.kernel_time_s);
		assert_true(fused.matrix_time_s == plain.matrix_time_s); /* the GEMMs stay */
	}
	struct ridge_engine e;
	const struct ridge_gpu *gpu = test_gpu("h200-sxm");
	serve_engine_defaults(RIDGE_ENGINE_TRTLLM, ridge_gpu_usable_memory(gpu), gpu->id, 8, &e);
	assert_true(serve_engine_fuses_allreduce_norm(&e, true, 8192));
	assert_false(serve_engine_fuses_allreduce_norm(&e, true, 4096));  /* "small models" */
	assert_false(serve_engine_fuses_allreduce_norm(&e, false, 8192)); /* not a Llama */
	serve_engine_defaults(RIDGE_ENGINE_VLLM, ridge_gpu_usable_memory(gpu), gpu->id, 8, &e);
	assert_false(serve_engine_fuses_allreduce_norm(&e, true, 8192));
}

/* The passes of a decode-only iteration and of one whole prompt are
 * serve_step's decode step and prefill, kernel for kernel. */
static void test_passes_reproduce_step(void **state)
{
	(void)state;
	struct ridge_workload_model m = llama3_8b();
	struct ridge_serve_request req = request(&m, test_gpu("h100-sxm"));
	static struct ridge_serve_result step;
	struct ridge_serve_pass t, l, a;
	char err[300];
	req.phase = RIDGE_PHASE_DECODE;
	req.batch = 64;
	req.context = 2048;
	assert_int_equal(serve_step(&req, &step, err, sizeof err), 0);
	assert_int_equal(serve_token_pass(&req, 64, &t, err, sizeof err), 0);
	assert_int_equal(serve_logits_pass(&req, 64, &l, err, sizeof err), 0);
	assert_int_equal(serve_decode_attention_pass(&req, 64, 64 * 2048.0, &a, err, sizeof err), 0);
	assert_close(t.kernel_time_s + l.kernel_time_s + a.kernel_time_s +
			     serve_power_limit_extra(req.gpu, t.matrix_time_s + l.matrix_time_s + a.matrix_time_s),
		     step.kernel_time_s, 1e-12);
	assert_true(t.kernels + l.kernels + a.kernels == step.kernels_per_step);
	assert_close((t.flops + l.flops + a.flops) * req.tp, step.flops_per_step, 1e-12);

	req.phase = RIDGE_PHASE_PREFILL;
	req.batch = 1;
	req.context = 2048;
	assert_int_equal(serve_step(&req, &step, err, sizeof err), 0);
	assert_int_equal(serve_token_pass(&req, 2048, &t, err, sizeof err), 0);
	assert_int_equal(serve_logits_pass(&req, 1, &l, err, sizeof err), 0);
	assert_int_equal(serve_chunk_attention_pass(&req, 2048, 0, &a, err, sizeof err), 0);
	double matrix = t.matrix_time_s + l.matrix_time_s + a.matrix_time_s;
	assert_close(t.kernel_time_s + l.kernel_time_s + a.kernel_time_s + serve_power_limit_extra(req.gpu, matrix),
		     step.kernel_time_s, 1e-12);
	assert_true(t.kernels + l.kernels + a.kernels == step.kernels_per_step);
}

/* A chunk of 1024 tokens after 1024 cached ones: 1024 x 1024 + 1024 x 1025 / 2
 * = 1,573,376 query-key pairs per head; 2 x 32 heads x pairs x (128 + 128) =
 * 25,778,192,384 FLOP a layer, x 32 layers = 824,902,156,288. */
static void test_chunk_attention_pairs(void **state)
{
	(void)state;
	struct ridge_workload_model m = llama3_8b();
	struct ridge_serve_request req = request(&m, test_gpu("h100-sxm"));
	struct ridge_serve_pass with_prefix, alone;
	char err[300];
	assert_int_equal(serve_chunk_attention_pass(&req, 1024, 1024, &with_prefix, err, sizeof err), 0);
	assert_true(with_prefix.flops == 824902156288.0);
	assert_true(with_prefix.kernels == 32);
	/* the same chunk with no prefix sees fewer keys: cheaper */
	assert_int_equal(serve_chunk_attention_pass(&req, 1024, 0, &alone, err, sizeof err), 0);
	assert_true(alone.kernel_time_s < with_prefix.kernel_time_s);
	assert_int_equal(serve_chunk_attention_pass(&req, 0, 0, &alone, err, sizeof err), -1);
	assert_int_equal(serve_decode_attention_pass(&req, 0, 10, &alone, err, sizeof err), -1);
}

/* vllm/engine/arg_utils.py, sglang server_args.py, TensorRT-LLM llm_args.py
 * (docs/sources/serving-engines.md). */
static void test_engine_presets(void **state)
{
	(void)state;
	const double gib = 1024.0 * 1024 * 1024;
	struct ridge_engine e;
	serve_engine_defaults(RIDGE_ENGINE_VLLM, 80 * gib, "h100-sxm", 1, &e);
	assert_true(e.max_num_batched_tokens == 8192 && e.max_num_seqs == 1024 && e.block_size == 16);
	assert_true(e.graph_max_batch == 512 && e.memory_fraction == 0.9 && e.chunked_prefill);
	serve_engine_defaults(RIDGE_ENGINE_VLLM, 80 * gib, "a100-sxm-80gb", 1, &e);
	assert_true(e.max_num_batched_tokens == 2048 && e.max_num_seqs == 256 && e.graph_max_batch == 512);
	serve_engine_defaults(RIDGE_ENGINE_VLLM, 24 * gib, "l4", 1, &e);
	assert_true(e.max_num_batched_tokens == 2048 && e.max_num_seqs == 256);
	/* SGLang on 80 GiB at tp 2: reserved 9.5 + 2/2 = 10.5 GiB; (80 - 10.5) / 80 */
	serve_engine_defaults(RIDGE_ENGINE_SGLANG, 80 * gib, "h100-sxm", 2, &e);
	assert_true(e.memory_fraction == (80 - 10.5) / 80);
	assert_true(e.max_num_batched_tokens == 8192 && e.graph_max_batch == 160 && e.block_size == 1);
	assert_false(e.mixed_batches);
	serve_engine_defaults(RIDGE_ENGINE_SGLANG, 141 * gib, "h200-sxm", 1, &e);
	assert_true(e.graph_max_batch == 256 && e.memory_fraction == (141 - 12.5) / 141);
	serve_engine_defaults(RIDGE_ENGINE_SGLANG, 180 * gib, "b200", 1, &e);
	assert_true(e.max_num_batched_tokens == 16384 && e.graph_max_batch == 512);
	serve_engine_defaults(RIDGE_ENGINE_TRTLLM, 80 * gib, "h100-sxm", 1, &e);
	assert_true(e.max_num_batched_tokens == 8192 && e.max_num_seqs == 2048 && e.block_size == 32);
	assert_true(e.reserve_output && !e.chunked_prefill && e.kv_budget == RIDGE_KV_OF_FREE);
	enum ridge_engine_kind kind;
	assert_true(serve_engine_parse("SGLang", &kind) && kind == RIDGE_ENGINE_SGLANG);
	assert_false(serve_engine_parse("tgi", &kind));
}

static void test_graph_sizes(void **state)
{
	(void)state;
	struct ridge_engine e;
	serve_engine_defaults(RIDGE_ENGINE_VLLM, 80.0 * (1 << 30), "h100-sxm", 1, &e);
	const double vllm[][2] = { { 1, 1 },     { 3, 4 },     { 5, 8 },     { 100, 104 },
				   { 256, 256 }, { 300, 304 }, { 512, 512 }, { 513, 0 } };
	for (size_t i = 0; i < sizeof vllm / sizeof vllm[0]; i++)
		assert_true(serve_engine_graph_size(&e, vllm[i][0]) == vllm[i][1]);
	serve_engine_defaults(RIDGE_ENGINE_SGLANG, 80.0 * (1 << 30), "h100-sxm", 1, &e);
	assert_true(serve_engine_graph_size(&e, 9) == 12 && serve_engine_graph_size(&e, 13) == 16);
	assert_true(serve_engine_graph_size(&e, 161) == 0);
	serve_engine_defaults(RIDGE_ENGINE_TRTLLM, 80.0 * (1 << 30), "h100-sxm", 1, &e);
	assert_true(serve_engine_graph_size(&e, 31) == 31 && serve_engine_graph_size(&e, 64) == 64);
	assert_true(serve_engine_graph_size(&e, 48) == 0 && serve_engine_graph_size(&e, 129) == 0);
	/* padded (cuda_graph_config enable_padding, max 1024): 1, 2, 4, multiples of 8
	 * to 128, powers of two, the maximum */
	e.graph_padding = true;
	e.graph_max_batch = 1024;
	const double padded[][2] = { { 3, 4 },     { 5, 8 },     { 100, 104 },  { 128, 128 },
				     { 129, 256 }, { 300, 512 }, { 700, 1024 }, { 1025, 0 } };
	for (size_t i = 0; i < sizeof padded / sizeof padded[0]; i++)
		assert_true(serve_engine_graph_size(&e, padded[i][0]) == padded[i][1]);
	e.graph_max_batch = 100; /* the maximum is captured too */
	assert_true(serve_engine_graph_size(&e, 97) == 100 && serve_engine_graph_size(&e, 96) == 96);
	/* listed sizes (cuda_graph_config batch_sizes): the next one up with padding, else exactly one */
	const double listed[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512, 1024 };
	e.graph_batch_size_count = 12;
	memcpy(e.graph_batch_sizes, listed, sizeof listed);
	e.graph_max_batch = 1024;
	assert_true(serve_engine_graph_size(&e, 20) == 32 && serve_engine_graph_size(&e, 300) == 384);
	assert_true(serve_engine_graph_size(&e, 600) == 1024 && serve_engine_graph_size(&e, 1025) == 0);
	e.graph_padding = false;
	assert_true(serve_engine_graph_size(&e, 384) == 384 && serve_engine_graph_size(&e, 300) == 0);
}

static void test_percentile(void **state)
{
	(void)state;
	const double v[] = { 1, 2, 3, 4 };
	/* numpy.percentile([1, 2, 3, 4], q): 2.5, 3.7, 3.97 */
	assert_close(serve_sim_percentile(v, 4, 50), 2.5, 1e-15);
	assert_close(serve_sim_percentile(v, 4, 90), 3.7, 1e-15);
	assert_close(serve_sim_percentile(v, 4, 99), 3.97, 1e-15);
	assert_true(serve_sim_percentile(v, 1, 99) == 1);
}

static struct ridge_serve_sim_input sim_input(const struct ridge_workload_model *m, const struct ridge_gpu *gpu)
{
	struct ridge_serve_sim_input in = { 0 };
	in.req = request(m, gpu);
	serve_engine_defaults(RIDGE_ENGINE_VLLM, ridge_gpu_usable_memory(gpu), gpu->id, 1, &in.engine);
	in.isl = 1000;
	in.osl = 3;
	in.concurrency = 1;
	in.requests = 4;
	in.warmup = 1;
	in.seed = 1;
	return in;
}

static int run(const struct ridge_serve_sim_input *in, struct ridge_serve_sim_result *out, char *err, size_t len)
{
	size_t bytes = serve_sim_workspace_bytes(in, err, len);
	if (bytes == 0)
		return -1;
	void *ws = malloc(bytes);
	assert_non_null(ws);
	int rc = serve_sim_run(in, ws, bytes, NULL, out, err, len);
	free(ws);
	return rc;
}

/* One client, prompts of 1000 and 3 output tokens: each request runs alone.
 * Its first token is one prefill iteration (the token pass at 1000 rows, one
 * logits row, the chunk's attention, issued from the host: one launch
 * overhead while the GPU is busier than the host); each next token one
 * decode iteration replaying a graph of size 1 at context 1001, then 1002. */
static void test_lone_request(void **state)
{
	(void)state;
	struct ridge_workload_model m = llama3_8b();
	const struct ridge_gpu *gpu = test_gpu("h100-sxm");
	struct ridge_serve_sim_input in = sim_input(&m, gpu);
	struct ridge_serve_sim_result r;
	char err[400];
	assert_int_equal(run(&in, &r, err, sizeof err), 0);
	struct ridge_serve_pass t, l, a;
	assert_int_equal(serve_token_pass(&in.req, 1000, &t, err, sizeof err), 0);
	assert_int_equal(serve_logits_pass(&in.req, 1, &l, err, sizeof err), 0);
	assert_int_equal(serve_chunk_attention_pass(&in.req, 1000, 0, &a, err, sizeof err), 0);
	double matrix = t.matrix_time_s + l.matrix_time_s + a.matrix_time_s;
	/* vLLM's CPU time per iteration (its preset), on top of every iteration */
	double cpu = in.engine.cpu_overhead_s;
	assert_true(cpu > 0);
	double ttft = t.kernel_time_s + l.kernel_time_s + a.kernel_time_s + serve_power_limit_extra(gpu, matrix) +
		      serve_eager_issue_s(gpu) + cpu;
	/* the request's host time outside the loop: in TTFT and E2E as the client sees them */
	double request = in.engine.request_latency_s;
	assert_true(request > 0);
	assert_close(r.ttft.p50_s, ttft + request, 1e-12);
	assert_close(r.ttft.p99_s, ttft + request, 1e-12);
	double decode = 0;
	for (double context = 1001; context <= 1002; context++) {
		assert_int_equal(serve_token_pass(&in.req, 1, &t, err, sizeof err), 0);
		assert_int_equal(serve_logits_pass(&in.req, 1, &l, err, sizeof err), 0);
		assert_int_equal(serve_decode_attention_pass(&in.req, 1, context, &a, err, sizeof err), 0);
		decode += t.kernel_time_s + l.kernel_time_s + a.kernel_time_s +
			  serve_power_limit_extra(gpu, t.matrix_time_s + l.matrix_time_s + a.matrix_time_s) +
			  gpu->launch_overhead_s + (t.kernels + l.kernels + a.kernels) * gpu->graph_node_s + cpu;
	}
	assert_close(r.tpot.p50_s, decode / 2, 1e-9);
	assert_close(r.e2e.mean_s, ttft + decode + request, 1e-9);
	/* 4 measured requests back to back: 12 output tokens over their span */
	assert_true(r.measured_requests == 4 && r.simulated_requests == 5);
	assert_close(r.output_tokens_per_s, 12 / (4 * (ttft + decode)), 1e-9);
	assert_close(r.usd_per_million_output_tokens, 3.0 / 3600 / r.output_tokens_per_s * 1e6, 1e-12);
	assert_true(r.preemptions == 0 && r.iterations == 15 && r.graph_iterations == 10);
}

/* The power limit across iterations (serve_worker.c, power_limit): one client,
 * prompts of 8000 tokens (each prefill's matrix time well past the H100's
 * 37.3 ms burst) and 3 output tokens, 5 requests with the warm-up. Without
 * recovery rates every iteration starts rested; rates so fast that the CPU
 * time between iterations refills the burst give the same run; with rates of
 * 0 only the first prefill has its burst, so the other four pay
 * (1/f - 1) x tau more each; the entry's measured rates lie between (the
 * two decode iterations and the CPU time give some of it back). Decode
 * iterations have no compute-bound matrix time and pay nothing either way. */
static void test_power_across_iterations(void **state)
{
	(void)state;
	struct ridge_workload_model m = llama3_8b();
	struct ridge_gpu gpu = *test_gpu("h100-sxm");
	assert_true(gpu.has_sustained_matrix && gpu.has_power_recovery);
	struct ridge_serve_sim_input in = sim_input(&m, &gpu);
	in.isl = 8000;
	struct ridge_serve_sim_result measured, rested, fast, none;
	char err[400];
	assert_int_equal(run(&in, &measured, err, sizeof err), 0);
	gpu.has_power_recovery = gpu.has_power_recovery_busy = false;
	assert_int_equal(run(&in, &rested, err, sizeof err), 0);
	assert_true(rested.power_limit_s > 0);
	gpu.has_power_recovery = gpu.has_power_recovery_busy = true;
	gpu.power_recovery_idle = gpu.power_recovery_busy = 1000;
	assert_int_equal(run(&in, &fast, err, sizeof err), 0);
	assert_close(fast.power_limit_s, rested.power_limit_s, 1e-12);
	assert_close(fast.ttft.mean_s, rested.ttft.mean_s, 1e-12);
	gpu.power_recovery_idle = gpu.power_recovery_busy = 0;
	assert_int_equal(run(&in, &none, err, sizeof err), 0);
	double per_prefill = gpu.burst_time_s * (1 / gpu.sustained_matrix_fraction - 1);
	assert_close(none.power_limit_s - rested.power_limit_s, 4 * per_prefill, 1e-9);
	/* the warm-up request had the burst: every measured TTFT pays it */
	assert_close(none.ttft.mean_s - rested.ttft.mean_s, per_prefill, 1e-9);
	assert_true(measured.power_limit_s > rested.power_limit_s && measured.power_limit_s < none.power_limit_s);
}

/* One client, one request of 100 prompt and 12 output tokens, no CPU time:
 * the decode step of request 1 of two_clients running alone. */
static void lone_short_request(struct ridge_serve_sim_input *in)
{
	in->engine.cpu_overhead_s = 0;
	in->isl = 100;
	in->osl = 12;
	in->requests = 1;
	in->warmup = 0;
}

/* Two clients, outputs of 10 and 40 in turn, three requests measured: request
 * 2 comes when request 0 ends, while request 1 decodes. */
static void two_clients(struct ridge_serve_sim_input *in)
{
	static const double outputs[] = { 10, 40 };
	in->osl_dist = RIDGE_LENGTH_LIST;
	in->osl_values = outputs;
	in->osl_count = 2;
	in->concurrency = 2;
	in->requests = 3;
}

/* TensorRT-LLM's batch waiting. Two clients, prompts of 100, outputs of 10
 * and 40: request 2 arrives while request 1 decodes, and its 100 + 1 tokens
 * stay under 0.9 x the 8192 budget, so it waits 5 decode-only iterations,
 * then runs: its TTFT grows by 5 of request 1's decode steps, the mean TTFT
 * of the 3 requests by 5/3 of one. At a ratio the 101 tokens reach, nothing
 * waits: the run is the run without waiting. */
static void test_trtllm_batch_wait(void **state)
{
	(void)state;
	struct ridge_workload_model m = llama3_8b();
	const struct ridge_gpu *gpu = test_gpu("h100-sxm");
	struct ridge_serve_sim_input in = sim_input(&m, gpu);
	struct ridge_serve_sim_result off, on, reached, lone;
	char err[400];
	serve_engine_defaults(RIDGE_ENGINE_TRTLLM, ridge_gpu_usable_memory(gpu), gpu->id, 1, &in.engine);
	lone_short_request(&in); /* its decode step */
	assert_int_equal(run(&in, &lone, err, sizeof err), 0);
	two_clients(&in);
	assert_int_equal(run(&in, &off, err, sizeof err), 0);
	in.engine.batch_wait_iters = 5;
	in.engine.batch_wait_tokens_ratio = 0.9;
	assert_int_equal(run(&in, &on, err, sizeof err), 0);
	assert_close(3 * (on.ttft.mean_s - off.ttft.mean_s), 5 * lone.tpot.mean_s, 1e-3);
	assert_true(on.ttft.p50_s == off.ttft.p50_s); /* requests 0 and 1 arrived together: nothing to wait for */
	in.engine.batch_wait_tokens_ratio = 101.0 / 8192;
	assert_int_equal(run(&in, &reached, err, sizeof err), 0);
	assert_true(reached.ttft.mean_s == off.ttft.mean_s && reached.e2e.mean_s == off.e2e.mean_s);
	in.engine.batch_wait_tokens_ratio = 1.5; /* out of range */
	assert_int_equal(run(&in, &reached, err, sizeof err), -1);
	assert_non_null(strstr(err, "batch waiting"));
}

/* The overlap schedulers (vLLM's --async-scheduling; SGLang's and
 * TensorRT-LLM's by default) build an iteration while the one before it
 * runs. Two clients, prompts of 100, outputs of 10 and 40: request 2 comes
 * when request 0 ends, while request 1 decodes, so with overlap the next
 * iteration is already built without it and it starts one iteration later:
 * the mean TTFT of the 3 requests grows by a third of request 1's decode
 * step. Requests 0 and 1 come to an idle engine: no change; a lone client
 * never waits. The presets: overlap on for SGLang and TensorRT-LLM. */
static void test_overlap_admission(void **state)
{
	(void)state;
	struct ridge_workload_model m = llama3_8b();
	const struct ridge_gpu *gpu = test_gpu("h100-sxm");
	struct ridge_serve_sim_input in = sim_input(&m, gpu);
	struct ridge_serve_sim_result off, on, lone, lone_on;
	char err[400];
	assert_false(in.engine.overlap_scheduling);
	lone_short_request(&in);
	assert_int_equal(run(&in, &lone, err, sizeof err), 0);
	in.engine.overlap_scheduling = true;
	assert_int_equal(run(&in, &lone_on, err, sizeof err), 0);
	assert_true(lone_on.ttft.mean_s == lone.ttft.mean_s && lone_on.e2e.mean_s == lone.e2e.mean_s);
	two_clients(&in);
	in.engine.overlap_scheduling = false;
	assert_int_equal(run(&in, &off, err, sizeof err), 0);
	in.engine.overlap_scheduling = true;
	assert_int_equal(run(&in, &on, err, sizeof err), 0);
	assert_close(3 * (on.ttft.mean_s - off.ttft.mean_s), lone.tpot.mean_s, 1e-2);
	assert_true(on.ttft.p50_s == off.ttft.p50_s); /* requests 0 and 1: an idle engine takes them at once */

	struct ridge_engine e;
	serve_engine_defaults(RIDGE_ENGINE_SGLANG, ridge_gpu_usable_memory(gpu), gpu->id, 1, &e);
	assert_true(e.overlap_scheduling);
	serve_engine_defaults(RIDGE_ENGINE_TRTLLM, ridge_gpu_usable_memory(gpu), gpu->id, 1, &e);
	assert_true(e.overlap_scheduling);
}

/* A cache that holds about three whole requests under eight clients, each
 * admitted at its prompt's blocks: vLLM preempts and recomputes, TensorRT-LLM's reservation never does; every
 * request still finishes. */
static void test_preemption_and_reservation(void **state)
{
	(void)state;
	struct ridge_workload_model m = llama3_8b();
	const struct ridge_gpu *gpu = test_gpu("h100-sxm");
	struct ridge_serve_sim_input in = sim_input(&m, gpu);
	struct ridge_serve_sim_result r;
	char err[400];
	in.isl = 200; /* admitted at 200 tokens, each grows to 1200 */
	in.osl = 1000;
	in.concurrency = 8;
	in.requests = 40;
	in.warmup = 0;
	/* 0.9 x 19.9 GB - 16.06 GB of weights - 1.36 GB of activations = about 0.49 GB:
	 * 3,700-odd tokens of 131,072 B, three requests of 1200 */
	in.memory_bytes = 19.9e9;
	assert_int_equal(run(&in, &r, err, sizeof err), 0);
	assert_true(r.kv_tokens >= 1200 && r.kv_tokens < 8 * 1200);
	assert_true(r.preemptions > 0);
	assert_true(r.measured_requests == 40);
	assert_true(r.kv_utilization_peak <= 1);
	serve_engine_defaults(RIDGE_ENGINE_TRTLLM, in.memory_bytes, gpu->id, 1, &in.engine);
	assert_int_equal(run(&in, &r, err, sizeof err), 0);
	assert_true(r.preemptions == 0 && r.measured_requests == 40);
	/* too little for one request: a finding (1), not an error */
	in.memory_bytes = 17.5e9;
	assert_int_equal(run(&in, &r, err, sizeof err), 1);
	assert_non_null(strstr(err, "not one request"));
}

/* Poisson arrivals from a seed: the same seed, the same run. */
static void test_open_loop_seeded(void **state)
{
	(void)state;
	struct ridge_workload_model m = llama3_8b();
	const struct ridge_gpu *gpu = test_gpu("h100-sxm");
	struct ridge_serve_sim_input in = sim_input(&m, gpu);
	struct ridge_serve_sim_result a, b, c;
	char err[400];
	in.concurrency = 0;
	in.rate = 20;
	in.osl = 64;
	in.requests = 300;
	in.warmup = 30;
	in.isl_dist = RIDGE_LENGTH_UNIFORM;
	in.isl_lo = 200;
	in.isl_hi = 2000;
	assert_int_equal(run(&in, &a, err, sizeof err), 0);
	assert_int_equal(run(&in, &b, err, sizeof err), 0);
	assert_memory_equal(&a.ttft, &b.ttft, sizeof a.ttft);
	assert_true(a.output_tokens_per_s == b.output_tokens_per_s);
	in.seed = 2;
	assert_int_equal(run(&in, &c, err, sizeof err), 0);
	assert_true(c.ttft.mean_s != a.ttft.mean_s);
	/* below saturation the engine keeps up: about rate x output tokens */
	assert_true(fabs(a.requests_per_s / 20 - 1) < 0.25);
	assert_true(a.ttft.p50_s <= a.ttft.p90_s && a.ttft.p90_s <= a.ttft.p99_s);
}

/* Output lengths drawn per request: a list in turn gives an exact mean; a
 * uniform draw has its own stream, so the prompts a seed draws (and the
 * arrivals) are the same whatever the output lengths. */
static void test_output_lengths(void **state)
{
	(void)state;
	struct ridge_workload_model m = llama3_8b();
	const struct ridge_gpu *gpu = test_gpu("h100-sxm");
	struct ridge_serve_sim_input in = sim_input(&m, gpu);
	struct ridge_serve_sim_result fixed, drawn;
	char err[400];
	/* requests 0..4, the first a warm-up: lengths 2, 6, 2, 6 measured */
	const double list[] = { 2, 6 };
	in.osl_dist = RIDGE_LENGTH_LIST;
	in.osl_values = list;
	in.osl_count = 2;
	assert_int_equal(run(&in, &drawn, err, sizeof err), 0);
	assert_true(drawn.osl_mean == 4);
	assert_close(drawn.output_tokens_per_s * drawn.duration_s, 16, 1e-9);
	/* open loop, prompts uniform 200..2000: the same prompt tokens with a
	 * fixed output and with uniform outputs */
	in = sim_input(&m, gpu);
	in.concurrency = 0;
	in.rate = 20;
	in.osl = 64;
	in.requests = 200;
	in.warmup = 20;
	in.isl_dist = RIDGE_LENGTH_UNIFORM;
	in.isl_lo = 200;
	in.isl_hi = 2000;
	assert_int_equal(run(&in, &fixed, err, sizeof err), 0);
	assert_true(fixed.osl_mean == 64);
	in.osl_dist = RIDGE_LENGTH_UNIFORM;
	in.osl_lo = 16;
	in.osl_hi = 128;
	assert_int_equal(run(&in, &drawn, err, sizeof err), 0);
	double prompts_fixed = (fixed.total_tokens_per_s - fixed.output_tokens_per_s) * fixed.duration_s;
	double prompts_drawn = (drawn.total_tokens_per_s - drawn.output_tokens_per_s) * drawn.duration_s;
	assert_close(prompts_drawn, prompts_fixed, 1e-9);
	assert_true(drawn.osl_mean > 16 && drawn.osl_mean < 128 && drawn.osl_mean != floor(drawn.osl_mean));
	/* bad distributions */
	in.osl_lo = 129;
	assert_true(serve_sim_workspace_bytes(&in, err, sizeof err) == 0);
	assert_non_null(strstr(err, "uniform output lengths"));
	in.osl_dist = RIDGE_LENGTH_LIST;
	in.osl_values = NULL;
	in.osl_count = 0;
	assert_true(serve_sim_workspace_bytes(&in, err, sizeof err) == 0);
	assert_non_null(strstr(err, "output length list is empty"));
	/* the longest prompt and the longest output against the context */
	in.osl_dist = RIDGE_LENGTH_UNIFORM;
	in.osl_lo = 16;
	in.osl_hi = 7000;
	in.max_context = 8192;
	assert_true(serve_sim_workspace_bytes(&in, err, sizeof err) == 0);
	assert_non_null(strstr(err, "prompt + output of 9000 tokens"));
	assert_true(serve_sim_longest_output(&in) == 7000);
}

/* SGLang with a budget of 100 tokens, two clients, prompts of 150 and 4
 * output tokens, worked by hand (decode tokens, prompt tokens):
 *   prompts alone (its default)   mixed chunk
 *   A 100                         A 100
 *   A 50 + B 50 (A's 1st token)   A 50 + B 50 (A's 1st token)
 *   B 100 (B's 1st token)         A 1 + B 99 (the chunk gets 100 - 1)
 *   A, B: 2 decode tokens x 3     A 1 + B 1 (B's 1st token)
 *                                 A, B: 2; then B alone, twice */
static void test_sglang_mixed_chunk(void **state)
{
	(void)state;
	struct ridge_workload_model m = llama3_8b();
	const struct ridge_gpu *gpu = test_gpu("h100-sxm");
	struct ridge_serve_sim_input in = sim_input(&m, gpu);
	serve_engine_defaults(RIDGE_ENGINE_SGLANG, ridge_gpu_usable_memory(gpu), gpu->id, 1, &in.engine);
	in.engine.max_num_batched_tokens = 100;
	in.isl = 150;
	in.osl = 4;
	in.concurrency = 2;
	in.requests = 2;
	in.warmup = 0;
	in.timeline_capacity = 16;
	struct ridge_serve_sim_sample samples[16];
	struct ridge_serve_sim_result r;
	char err[400];
	const double alone[][2] = { { 0, 100 }, { 0, 100 }, { 0, 100 }, { 2, 0 }, { 2, 0 }, { 2, 0 } };
	const double mixed[][2] = { { 0, 100 }, { 0, 100 }, { 1, 99 }, { 1, 1 }, { 2, 0 }, { 1, 0 }, { 1, 0 } };
	for (int mix = 0; mix < 2; mix++) {
		in.engine.mixed_batches = mix;
		const double(*want)[2] = mix ? mixed : alone;
		int count = mix ? 7 : 6;
		size_t bytes = serve_sim_workspace_bytes(&in, err, sizeof err);
		void *ws = malloc(bytes);
		assert_non_null(ws);
		assert_int_equal(serve_sim_run(&in, ws, bytes, samples, &r, err, sizeof err), 0);
		free(ws);
		assert_int_equal(r.sample_count, count);
		for (int i = 0; i < count; i++) {
			assert_true(samples[i].decode_tokens == want[i][0]);
			assert_true(samples[i].prefill_tokens == want[i][1]);
		}
		assert_true(r.mixed_iterations == (mix ? 2 : 0));
	}
	/* mixing needs chunked prefill (SGLang's Scheduler.is_mixed_chunk):
	 * without it the iterations are the default's */
	in.engine.chunked_prefill = false;
	in.engine.max_num_batched_tokens = 150;
	in.engine.mixed_batches = true;
	size_t bytes = serve_sim_workspace_bytes(&in, err, sizeof err);
	void *ws = malloc(bytes);
	assert_non_null(ws);
	assert_int_equal(serve_sim_run(&in, ws, bytes, samples, &r, err, sizeof err), 0);
	free(ws);
	assert_true(r.mixed_iterations == 0);
}

/* The all-reduces of tp 2, priced by the iteration's launch: a decode
 * batch replaying a graph pays a graph node each; SGLang's prefill
 * iterations are enqueued eagerly; vLLM's run piecewise graphs, the
 * all-reduces inside them. One client, prompts of 1000, 3 output tokens:
 * per request one prefill iteration and two decode iterations at batch 1.
 * The prefill's 8,192,000 bytes are past the custom kernel's published
 * times (2 MiB): NCCL; a decode token's 8 KiB go to the engine's own
 * kernel, 3.9 us at 8 KiB on 2 H100s (SGLang PR #2904) plus the node;
 * --no-custom-allreduce (a cap of 0) sends them to NCCL too. */
static void test_collectives_by_launch(void **state)
{
	(void)state;
	struct ridge_workload_model m = llama3_8b();
	const struct ridge_gpu *gpu = test_gpu("h100-sxm");
	struct ridge_serve_sim_input in = sim_input(&m, gpu);
	in.req.tp = 2;
	struct ridge_serve_comm eager, graph, decode;
	char err[400];
	double hidden = (double)m.hidden, layers = (double)m.layers;
	assert_int_equal(comm_serve_step_launch(gpu, 2, false, 1000, hidden, layers, 0, 0, 0, 0,
						RIDGE_COMM_LAUNCH_EAGER, &eager, err, sizeof err),
			 0);
	assert_int_equal(comm_serve_step_launch(gpu, 2, false, 1000, hidden, layers, 0, 0, 0, 0,
						RIDGE_COMM_LAUNCH_GRAPH, &graph, err, sizeof err),
			 0);
	struct ridge_serve_comm nccl_decode;
	assert_int_equal(comm_serve_step_launch(gpu, 2, false, 1, hidden, layers, 0, 0, 0, 0, RIDGE_COMM_LAUNCH_GRAPH,
						&nccl_decode, err, sizeof err),
			 0);
	assert_int_equal(comm_serve_step_engine(gpu, 2, false, 1, hidden, layers, 0, 0, 0, 0, RIDGE_COMM_LAUNCH_GRAPH,
						8192.0 * 1024, &decode, err, sizeof err),
			 0);
	assert_int_equal(decode.tp.one.algorithm, RIDGE_ALGO_CUSTOM);
	assert_close(decode.tp.one.time_s, 3.9e-6 + gpu->graph_node_s, 1e-15);
	assert_close(decode.exposed_s, 2 * layers * (3.9e-6 + gpu->graph_node_s), 1e-15);
	assert_true(decode.exposed_s < nccl_decode.exposed_s);
	assert_true(graph.exposed_s != eager.exposed_s);
	struct ridge_serve_sim_result r;
	serve_engine_defaults(RIDGE_ENGINE_SGLANG, ridge_gpu_usable_memory(gpu), gpu->id, 2, &in.engine);
	assert_int_equal(run(&in, &r, err, sizeof err), 0);
	assert_true(r.graph_iterations == 10 && r.iterations == 15);
	assert_close(r.communication_s, 5 * (eager.exposed_s + 2 * decode.exposed_s), 1e-12);
	serve_engine_defaults(RIDGE_ENGINE_VLLM, ridge_gpu_usable_memory(gpu), gpu->id, 2, &in.engine);
	assert_int_equal(run(&in, &r, err, sizeof err), 0);
	assert_close(r.communication_s, 5 * (graph.exposed_s + 2 * decode.exposed_s), 1e-12);
	in.engine.custom_allreduce_max_bytes = 0;
	assert_int_equal(run(&in, &r, err, sizeof err), 0);
	assert_close(r.communication_s, 5 * (graph.exposed_s + 2 * nccl_decode.exposed_s), 1e-12);
}

static void test_bad_input(void **state)
{
	(void)state;
	struct ridge_workload_model m = llama3_8b();
	const struct ridge_gpu *gpu = test_gpu("h100-sxm");
	struct ridge_serve_sim_input in;
	char err[400];
	in = sim_input(&m, gpu);
	in.osl = 0;
	assert_true(serve_sim_workspace_bytes(&in, err, sizeof err) == 0);
	assert_non_null(strstr(err, "output length"));
	in = sim_input(&m, gpu);
	in.concurrency = 0;
	in.rate = 0;
	assert_true(serve_sim_workspace_bytes(&in, err, sizeof err) == 0);
	assert_non_null(strstr(err, "request rate"));
	in = sim_input(&m, gpu);
	in.max_context = 1000;
	assert_true(serve_sim_workspace_bytes(&in, err, sizeof err) == 0);
	assert_non_null(strstr(err, "context"));
	in = sim_input(&m, gpu);
	in.engine.chunked_prefill = false;
	in.engine.max_num_batched_tokens = 512;
	assert_true(serve_sim_workspace_bytes(&in, err, sizeof err) == 0);
	assert_non_null(strstr(err, "max-num-batched-tokens"));
	in = sim_input(&m, gpu);
	in.requests = 150000;
	in.osl = 10000;
	assert_true(serve_sim_workspace_bytes(&in, err, sizeof err) == 0);
	in = sim_input(&m, gpu);
	in.isl_dist = RIDGE_LENGTH_LIST;
	in.isl_values = NULL;
	in.isl_count = 0;
	assert_true(serve_sim_workspace_bytes(&in, err, sizeof err) == 0);
	/* the workspace is checked */
	in = sim_input(&m, gpu);
	struct ridge_serve_sim_result r;
	char small[16];
	assert_int_equal(serve_sim_run(&in, small, sizeof small, NULL, &r, err, sizeof err), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_passes_reproduce_step),
		cmocka_unit_test(test_fused_allreduce_norm),
		cmocka_unit_test(test_chunk_attention_pairs),
		cmocka_unit_test(test_engine_presets),
		cmocka_unit_test(test_graph_sizes),
		cmocka_unit_test(test_trtllm_batch_wait),
		cmocka_unit_test(test_overlap_admission),
		cmocka_unit_test(test_percentile),
		cmocka_unit_test(test_lone_request),
		cmocka_unit_test(test_power_across_iterations),
		cmocka_unit_test(test_preemption_and_reservation),
		cmocka_unit_test(test_open_loop_seeded),
		cmocka_unit_test(test_output_lengths),
		cmocka_unit_test(test_sglang_mixed_chunk),
		cmocka_unit_test(test_collectives_by_launch),
		cmocka_unit_test(test_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
