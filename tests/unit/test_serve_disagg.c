/* model/serve_disagg.c and the hybrid KV cache of model/serve_worker.c:
 * the KV transfer is comm_collective's send-recv of the bytes the decode
 * GPUs hold; a lone request's TTFT and TPOT across the pools are the
 * prices of its iterations and its transfer; the pools' inputs are
 * checked; sliding-window layers hold only their window's blocks (vLLM's
 * hybrid allocator), so more requests run at once. */
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

static struct ridge_serve_sim_input sim_input(const struct ridge_workload_model *m, const struct ridge_gpu *gpu,
					      enum ridge_engine_kind kind)
{
	struct ridge_serve_sim_input in = { 0 };
	in.req.model = m;
	in.req.gpu = gpu;
	in.req.tp = 1;
	in.req.weights = (struct ridge_storage){ 2, 0, 2 };
	in.req.kv = (struct ridge_storage){ 2, 0, 2 };
	in.req.compute_dtype = RIDGE_BF16;
	in.req.launch = RIDGE_LAUNCH_GRAPH;
	in.req.price_usd_per_gpu_hour = 3;
	serve_engine_defaults(kind, ridge_gpu_usable_memory(gpu), gpu->id, 1, &in.engine);
	in.isl = 1000;
	in.osl = 3;
	in.concurrency = 1;
	in.requests = 4;
	in.warmup = 1;
	in.seed = 1;
	return in;
}

static void disaggregate(struct ridge_serve_sim_input *in, double prefill_tp, double prefill_workers, double decode_tp,
			 double decode_workers)
{
	in->disagg.prefill_tp = prefill_tp;
	in->disagg.prefill_workers = prefill_workers;
	in->disagg.decode_tp = decode_tp;
	in->disagg.decode_workers = decode_workers;
	in->req.tp = decode_tp;
	serve_engine_defaults(in->engine.kind, ridge_gpu_usable_memory(in->req.gpu), in->req.gpu->id, prefill_tp,
			      &in->disagg.prefill_engine);
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

/* Llama-3-8B keeps 8 KV heads x 128 x (K, V) x 2 B = 4096 B a token and a
 * layer, 131,072 B over 32 layers: a 1024-token prompt is 134,217,728 B
 * whatever the decode tp (tp 4: 2 heads a GPU x 4 GPUs). Within one node
 * it is a send-recv of 2 GPUs over NVLink; past it, of two nodes over the
 * NICs; min(prefill tp, decode tp) GPU pairs carry it at once. */
static void test_transfer(void **state)
{
	(void)state;
	struct ridge_workload_model m = llama3_8b();
	const struct ridge_gpu *gpu = test_gpu("h100-sxm");
	struct ridge_serve_sim_input in = sim_input(&m, gpu, RIDGE_ENGINE_VLLM);
	struct ridge_serve_disagg_result d;
	struct ridge_comm_result c;
	char err[400];
	assert_int_equal(serve_disagg_transfer(&in.req, 1, 1, 1024, 2, 0, &d, err, sizeof err), 0);
	assert_true(d.transfer_bytes == 134217728.0 && d.transfer_streams == 1);
	struct ridge_comm_input ci = {
		.op = RIDGE_SEND_RECV, .gpus = 2, .bytes = 134217728.0, .algorithm = RIDGE_ALGO_AUTO
	};
	assert_int_equal(comm_collective(gpu, &ci, &c, err, sizeof err), 0);
	assert_true(d.transfer_s == c.time_s && strcmp(d.transfer_path, "NVLink") == 0);
	assert_true(d.transfer_s == d.transfer_latency_s + d.transfer_bytes / d.transfer_bandwidth);
	/* prefill tp 2 to decode tp 4 on 2 x 2 + 2 x 4 = 12 GPUs: two nodes */
	assert_int_equal(serve_disagg_transfer(&in.req, 2, 4, 1024, 12, 0, &d, err, sizeof err), 0);
	assert_true(d.transfer_bytes == 134217728.0 && d.transfer_streams == 2);
	ci = (struct ridge_comm_input){ .op = RIDGE_SEND_RECV,
					.gpus = 2.0 * gpu->ic.domain_gpus,
					.bytes = 134217728.0 / 2,
					.algorithm = RIDGE_ALGO_AUTO,
					.network_bandwidth = comm_network_per_gpu(&gpu->ic) };
	assert_int_equal(comm_collective(gpu, &ci, &c, err, sizeof err), 0);
	assert_true(d.transfer_s == c.time_s && strcmp(d.transfer_path, "network") == 0);
	/* a GPU whose entry has no NICs needs the network bandwidth */
	struct ridge_gpu bare = *gpu;
	bare.ic.nics = 0;
	in.req.gpu = &bare;
	assert_int_equal(serve_disagg_transfer(&in.req, 2, 4, 1024, 12, 0, &d, err, sizeof err), -1);
	assert_non_null(strstr(err, "network bandwidth per GPU is needed"));
	assert_int_equal(serve_disagg_transfer(&in.req, 2, 4, 1024, 12, 25e9, &d, err, sizeof err), 0);
	assert_true(d.transfer_bandwidth == 25e9 * RIDGE_NCCL_NET_EFFICIENCY);
}

/* The price of one iteration: the passes, the power limit and one host
 * launch (the GPU busier than the host). */
static double prefill_price(const struct ridge_serve_request *req, double chunk, double prefix, double host_launches)
{
	struct ridge_serve_pass t, l, a;
	char err[300];
	assert_int_equal(serve_token_pass(req, chunk, &t, err, sizeof err), 0);
	assert_int_equal(serve_logits_pass(req, 1, &l, err, sizeof err), 0);
	assert_int_equal(serve_chunk_attention_pass(req, chunk, prefix, &a, err, sizeof err), 0);
	if (chunk < RIDGE_LIBRARY_TILE_M) {
		struct ridge_serve_pass tile;
		assert_int_equal(serve_token_pass(req, RIDGE_LIBRARY_TILE_M, &tile, err, sizeof err), 0);
		if (tile.kernel_time_s < t.kernel_time_s)
			t = tile;
	}
	double gpu = t.kernel_time_s + l.kernel_time_s + a.kernel_time_s +
		     serve_power_limit_extra(req->gpu, t.matrix_time_s + l.matrix_time_s + a.matrix_time_s);
	double issue = serve_eager_issue_s(req->gpu);
	double launches = host_launches > 0 ? host_launches : t.kernels + l.kernels + a.kernels;
	return gpu + fmax(launches * issue - gpu, 0) + issue;
}

static double decode_price(const struct ridge_serve_request *req, double context)
{
	struct ridge_serve_pass t, l, a;
	char err[300];
	assert_int_equal(serve_token_pass(req, 1, &t, err, sizeof err), 0);
	assert_int_equal(serve_logits_pass(req, 1, &l, err, sizeof err), 0);
	assert_int_equal(serve_decode_attention_pass(req, 1, context, &a, err, sizeof err), 0);
	return t.kernel_time_s + l.kernel_time_s + a.kernel_time_s +
	       serve_power_limit_extra(req->gpu, t.matrix_time_s + l.matrix_time_s + a.matrix_time_s) +
	       req->gpu->launch_overhead_s + (t.kernels + l.kernels + a.kernels) * req->gpu->graph_node_s;
}

/* One client, a prompt of 1000 and 3 output tokens, one prefill and one
 * decode worker. SGLang: the prefill's iteration samples the first token,
 * which reaches the client when the cache has crossed: TTFT = the prefill
 * iteration + the transfer; the two more tokens are decode iterations at
 * context 1001 and 1002. vLLM: the decode worker recomputes the last
 * prompt token first (a one-token chunk after 999 cached ones), and that
 * iteration's end is the first token. */
static void test_lone_request_handoff(void **state)
{
	(void)state;
	struct ridge_workload_model m = llama3_8b();
	const struct ridge_gpu *gpu = test_gpu("h100-sxm");
	struct ridge_serve_sim_result r;
	struct ridge_serve_disagg_result d;
	char err[400];
	assert_int_equal(
		serve_disagg_transfer(&(struct ridge_serve_request){ .model = &m, .gpu = gpu, .kv = { 2, 0, 2 } }, 1, 1,
				      1000, 2, 0, &d, err, sizeof err),
		0);
	struct ridge_serve_sim_input in = sim_input(&m, gpu, RIDGE_ENGINE_SGLANG);
	disaggregate(&in, 1, 1, 1, 1);
	assert_int_equal(run(&in, &r, err, sizeof err), 0);
	assert_true(r.disaggregated && r.gpus == 2 && !r.disagg.first_token_on_decode);
	/* the request's host time outside the loops: in its TTFT and E2E, nowhere else */
	double request = in.engine.request_latency_s;
	assert_true(request > 0);
	double prefill = prefill_price(&in.req, 1000, 0, 0);
	assert_close(r.ttft.p50_s, prefill + d.transfer_s + request, 1e-12);
	assert_close(r.ttft.p99_s, prefill + d.transfer_s + request, 1e-12);
	assert_close(r.disagg.ttft_transfer_s, d.transfer_s, 1e-12);
	assert_true(r.disagg.ttft_wait_s == 0 && r.disagg.ttft_decode_s == 0);
	double decode = decode_price(&in.req, 1001) + decode_price(&in.req, 1002);
	assert_close(r.tpot.p50_s, decode / 2, 1e-9);
	assert_close(r.e2e.mean_s, prefill + d.transfer_s + decode + request, 1e-9);
	/* 4 requests back to back on 2 GPUs */
	assert_close(r.output_tokens_per_s_per_gpu, 12 / (4 * (prefill + d.transfer_s + decode)) / 2, 1e-9);
	assert_true(r.disagg.prefill.iterations == 5 && r.disagg.decode.iterations == 10 && r.iterations == 10);

	in = sim_input(&m, gpu, RIDGE_ENGINE_VLLM);
	disaggregate(&in, 1, 1, 1, 1);
	assert_int_equal(run(&in, &r, err, sizeof err), 0);
	assert_true(r.disagg.first_token_on_decode);
	double host = 2 * 32 + 4;              /* vLLM's piecewise graphs */
	double cpu = in.engine.cpu_overhead_s; /* vLLM's CPU time on every iteration (its preset) */
	assert_true(cpu > 0);
	prefill = prefill_price(&in.req, 1000, 0, host) + cpu;
	double recompute = prefill_price(&in.req, 1, 999, host) + cpu;
	assert_close(r.ttft.p50_s, prefill + d.transfer_s + recompute + request, 1e-12);
	assert_close(r.disagg.ttft_decode_s, recompute, 1e-12);
	decode = decode_price(&in.req, 1001) + decode_price(&in.req, 1002) + 2 * cpu;
	assert_close(r.tpot.p50_s, decode / 2, 1e-9);
	assert_true(r.disagg.decode.iterations == 15);
}

/* Under load every request is measured once, each pool's cache holds
 * what it should, and round robin spreads the prompts. */
static void test_pools_under_load(void **state)
{
	(void)state;
	struct ridge_workload_model m = llama3_8b();
	const struct ridge_gpu *gpu = test_gpu("h100-sxm");
	struct ridge_serve_sim_input in = sim_input(&m, gpu, RIDGE_ENGINE_VLLM);
	struct ridge_serve_sim_result r, again;
	char err[400];
	in.concurrency = 32;
	in.requests = 200;
	in.warmup = 32;
	in.osl = 64;
	disaggregate(&in, 1, 2, 2, 1);
	assert_int_equal(run(&in, &r, err, sizeof err), 0);
	assert_true(r.measured_requests == 200 && r.gpus == 4);
	assert_true(r.disagg.prefill.workers == 2 && r.disagg.decode.tp == 2);
	assert_true(r.disagg.prefill.iterations > 0 && r.disagg.decode.iterations > r.disagg.prefill.iterations);
	assert_true(r.ttft.p50_s <= r.ttft.p90_s && r.tpot.p50_s > 0);
	assert_close(r.ttft.mean_s,
		     r.disagg.ttft_prefill_s + r.disagg.ttft_wait_s + r.disagg.ttft_transfer_s +
			     r.disagg.ttft_decode_s + r.disagg.ttft_request_s,
		     1e-9);
	assert_close(r.disagg.ttft_request_s, in.engine.request_latency_s, 1e-12);
	assert_close(r.usd_per_million_output_tokens, 4 * 3.0 / 3600 / r.output_tokens_per_s * 1e6, 1e-12);
	/* the same input, the same run; open loop too */
	assert_int_equal(run(&in, &again, err, sizeof err), 0);
	assert_memory_equal(&r.ttft, &again.ttft, sizeof r.ttft);
	in.concurrency = 0;
	in.rate = 10;
	assert_int_equal(run(&in, &r, err, sizeof err), 0);
	assert_true(fabs(r.requests_per_s / 10 - 1) < 0.25);
}

static void test_disagg_bad_input(void **state)
{
	(void)state;
	struct ridge_workload_model m = llama3_8b();
	const struct ridge_gpu *gpu = test_gpu("h100-sxm");
	struct ridge_serve_sim_input in = sim_input(&m, gpu, RIDGE_ENGINE_VLLM);
	char err[400];
	disaggregate(&in, 3, 1, 1, 1);
	assert_true(serve_sim_workspace_bytes(&in, err, sizeof err) == 0);
	assert_non_null(strstr(err, "prefill tp 3 does not divide"));
	disaggregate(&in, 1, 1, 5, 1);
	assert_true(serve_sim_workspace_bytes(&in, err, sizeof err) == 0);
	assert_non_null(strstr(err, "decode tp 5"));
	disaggregate(&in, 1, 0.5, 1, 1);
	assert_true(serve_sim_workspace_bytes(&in, err, sizeof err) == 0);
	assert_non_null(strstr(err, "prefill workers"));
	disaggregate(&in, 1, 40, 1, 40);
	assert_true(serve_sim_workspace_bytes(&in, err, sizeof err) == 0);
	/* aggregated: the tp divides the heads too */
	in = sim_input(&m, gpu, RIDGE_ENGINE_VLLM);
	in.req.tp = 3;
	assert_true(serve_sim_workspace_bytes(&in, err, sizeof err) == 0);
	assert_non_null(strstr(err, "tensor parallelism 3"));
}

/* A Llama-3-8B with half its layers in 128-token windows. vLLM's hybrid
 * allocator groups 16 layers a block: a block is 16 tokens x 16 layers x
 * 4096 B = 1 MiB, half the 2 MiB of a block over every layer. A lone
 * request of 1000 + 3 tokens holds 63 full-group and 63 window-group
 * blocks after its prefill (nothing computed before it to drop); at its
 * first decode step (1000 computed) the window group drops the blocks
 * before token 1000 - 128 + 1 = 873: floor(873 / 16) = 54, keeping 9. */
static void test_hybrid_blocks(void **state)
{
	(void)state;
	struct ridge_workload_model m = llama3_8b();
	m.sliding_window = 128;
	m.local_layers = 16;
	const struct ridge_gpu *gpu = test_gpu("h100-sxm");
	struct ridge_serve_sim_input in = sim_input(&m, gpu, RIDGE_ENGINE_VLLM);
	struct ridge_serve_sim_result hybrid, whole;
	char err[400];
	in.memory_bytes = 40e9;
	assert_true(in.engine.hybrid_kv_cache);
	assert_int_equal(run(&in, &hybrid, err, sizeof err), 0);
	in.engine.hybrid_kv_cache = false;
	assert_int_equal(run(&in, &whole, err, sizeof err), 0);
	assert_true(hybrid.kv_cache_bytes == whole.kv_cache_bytes);
	assert_true(hybrid.kv_blocks == floor(hybrid.kv_cache_bytes / (16 * 16 * 4096.0)));
	assert_true(whole.kv_blocks == floor(whole.kv_cache_bytes / (16 * 131072.0)));
	assert_true(hybrid.kv_tokens == floor(hybrid.kv_blocks / 2) * 16);
	assert_true(hybrid.kv_utilization_peak * hybrid.kv_blocks == 126);
	assert_true(whole.kv_utilization_peak * whole.kv_blocks == 63);
	/* the same latencies: the cache never ran out */
	assert_true(hybrid.ttft.p50_s == whole.ttft.p50_s && hybrid.tpot.p50_s == whole.tpot.p50_s);

	/* a cache of about 12 whole requests of 200 + 1000 tokens under 32
	 * clients: every layer at the whole context preempts; with the
	 * windows about twice as many run at once */
	in = sim_input(&m, gpu, RIDGE_ENGINE_VLLM);
	in.isl = 200;
	in.osl = 1000;
	in.concurrency = 32;
	in.requests = 64;
	in.warmup = 0;
	in.memory_bytes = 20.2e9;
	assert_int_equal(run(&in, &hybrid, err, sizeof err), 0);
	in.engine.hybrid_kv_cache = false;
	assert_int_equal(run(&in, &whole, err, sizeof err), 0);
	assert_true(whole.preemptions > hybrid.preemptions);
	assert_true(hybrid.mean_running > 1.5 * whole.mean_running);
	assert_true(hybrid.output_tokens_per_s > whole.output_tokens_per_s);
}

/* SGLang admits a prompt only when all of it fits: a prompt admitted by
 * its first chunk could preempt itself at its second, be admitted again
 * at its first, and never finish while the decoders wait behind the
 * prefill-first scheduler (205 prompts of 2000 tokens on an L40S pair ran
 * forever). Now it finishes, preempting a little, well inside a bound. */
static void test_sglang_admits_whole_prompts(void **state)
{
	(void)state;
	struct ridge_workload_model m = llama3_8b();
	const struct ridge_gpu *gpu = test_gpu("l40s");
	struct ridge_serve_sim_input in = sim_input(&m, gpu, RIDGE_ENGINE_SGLANG);
	struct ridge_serve_sim_result r;
	char err[400];
	serve_engine_defaults(RIDGE_ENGINE_SGLANG, ridge_gpu_usable_memory(gpu), gpu->id, 2, &in.engine);
	in.req.tp = 2;
	in.engine.max_num_batched_tokens = 2048;
	in.isl = 2000;
	in.osl = 200;
	in.concurrency = 0;
	in.rate = 8;
	in.requests = 205;
	in.warmup = 0;
	in.max_iterations = 20000;
	assert_int_equal(run(&in, &r, err, sizeof err), 0);
	assert_true(r.measured_requests == 205 && r.preemptions > 0 && r.iterations < 2000);
	/* the bound stops a run that passes it */
	in.max_iterations = 100;
	assert_int_equal(run(&in, &r, err, sizeof err), 2);
	assert_non_null(strstr(err, "stopped after 100 iterations"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_transfer),         cmocka_unit_test(test_lone_request_handoff),
		cmocka_unit_test(test_pools_under_load), cmocka_unit_test(test_disagg_bad_input),
		cmocka_unit_test(test_hybrid_blocks),    cmocka_unit_test(test_sglang_admits_whole_prompts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
