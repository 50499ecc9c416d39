/* model/serve_plan.c: the search's numbers are the simulation's (a
 * candidate run again by hand gives the same TTFT, TPOT and throughput);
 * the ranking and the Pareto front hold what they say; the space is what
 * its dimensions multiply to. */
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

static struct ridge_serve_plan_input plan_input(const struct ridge_workload_model *m)
{
	struct ridge_serve_plan_input in = { 0 };
	in.model = m;
	in.gpus[0] = test_gpu("h100-sxm");
	in.prices[0] = 3;
	in.gpu_count = 1;
	strcpy(in.dtype_names[0], "bf16");
	in.weights[0] = (struct ridge_storage){ 2, 0, 0 };
	in.dtype_count = 1;
	in.kv = (struct ridge_storage){ 2, 0, 0 };
	in.engines[0] = RIDGE_ENGINE_VLLM;
	in.engine_count = 1;
	in.budgets[0] = 2048;
	in.budgets[1] = 8192;
	in.budget_count = 2;
	in.isl = 1000;
	in.osl = 50;
	in.concurrency = 16;
	in.ttft_limit_s = 1;
	in.tpot_limit_s = 0.02;
	in.percentile = 90;
	in.max_gpus = 2;
	in.aggregated = true;
	in.disaggregated = true;
	in.seed = 1;
	return in;
}

/* Aggregated on 2 GPUs: tp 1 x 1 or 2 replicas (8 clients each), tp 2 x 1;
 * each at 2 budgets; sequence limits up to the replica's clients: 16
 * clients: 1 2 3 4 6 8 12 and 16 (8 limits), 8 clients: 1 2 3 4 6 and 8
 * (6); so 2 x (8 + 6 + 8) = 44. Disaggregated: 1 prefill and 1 decode
 * worker of tp 1, the decode worker's limits up to 16: 8. */
static void test_space(void **state)
{
	(void)state;
	struct ridge_workload_model m = llama3_8b();
	struct ridge_serve_plan_input in = plan_input(&m);
	assert_int_equal(serve_plan_space(&in), 44 + 8);
	in.disaggregated = false;
	assert_int_equal(serve_plan_space(&in), 44);
	in.concurrency = 0;
	in.rate = 4;
	/* open loop: every limit up to vLLM's 1024 on an 80 GB card: 1 2 3 4
	 * 6 ... 768 and 1024 (20), 3 layouts x 2 budgets */
	assert_int_equal(serve_plan_space(&in), 3 * 2 * 20);
}

static void test_search_is_the_simulation(void **state)
{
	(void)state;
	struct ridge_workload_model m = llama3_8b();
	struct ridge_serve_plan_input in = plan_input(&m);
	int n = serve_plan_space(&in), count, simulated;
	struct ridge_serve_plan_config *all = calloc((size_t)n, sizeof *all);
	char err[400];
	assert_int_equal(serve_plan_search(&in, all, n, &count, &simulated, err, sizeof err), 0);
	assert_int_equal(count, n);
	assert_true(simulated > 0 && simulated <= n);
	/* ranked: those meeting the limits first, cheapest first */
	int meeting = 0;
	while (meeting < count && all[meeting].meets)
		meeting++;
	assert_true(meeting > 0);
	for (int i = meeting; i < count; i++)
		assert_false(all[i].meets);
	for (int i = 1; i < meeting; i++)
		assert_true(all[i].usd_per_million_output_tokens >= all[i - 1].usd_per_million_output_tokens);
	for (int i = 0; i < meeting; i++) {
		assert_true(all[i].ttft.p90_s <= in.ttft_limit_s && all[i].tpot.p90_s <= in.tpot_limit_s);
		assert_true(all[i].tokens_per_s_per_user == 1 / all[i].tpot.p50_s);
	}
	/* the front: nothing meeting the limits dominates a member */
	int front = 0;
	for (int i = 0; i < meeting; i++) {
		if (!all[i].pareto)
			continue;
		front++;
		for (int j = 0; j < meeting; j++)
			assert_false(all[j].output_tokens_per_s_per_gpu > all[i].output_tokens_per_s_per_gpu &&
				     all[j].tokens_per_s_per_user > all[i].tokens_per_s_per_user);
	}
	assert_true(front >= 1 && all[0].pareto == (front >= 1 && all[0].pareto));
	/* the best, run again by hand */
	const struct ridge_serve_plan_config *best = &all[0];
	struct ridge_serve_sim_input sim = { 0 };
	sim.req.model = &m;
	sim.req.gpu = in.gpus[0];
	sim.req.tp = best->tp;
	sim.req.weights = in.weights[0];
	sim.req.kv = in.kv;
	sim.req.compute_dtype = RIDGE_BF16;
	sim.req.launch = RIDGE_LAUNCH_GRAPH;
	sim.req.fused_projections = true; /* the plan prices engines, which fuse them */
	sim.req.price_usd_per_gpu_hour = 3;
	serve_engine_defaults(RIDGE_ENGINE_VLLM, ridge_gpu_usable_memory(in.gpus[0]), in.gpus[0]->id, best->tp,
			      &sim.engine);
	sim.engine.max_num_seqs = best->max_num_seqs;
	sim.isl = in.isl;
	sim.osl = in.osl;
	sim.concurrency = best->concurrency;
	sim.requests = fmax(100, 2 * best->concurrency);
	sim.warmup = best->concurrency;
	sim.seed = 1;
	if (best->disaggregated) {
		sim.disagg.prefill_tp = best->prefill_tp;
		sim.disagg.prefill_workers = best->prefill_workers;
		sim.disagg.decode_tp = best->decode_tp;
		sim.disagg.decode_workers = best->decode_workers;
		serve_engine_defaults(RIDGE_ENGINE_VLLM, ridge_gpu_usable_memory(in.gpus[0]), in.gpus[0]->id,
				      best->prefill_tp, &sim.disagg.prefill_engine);
	} else
		sim.engine.max_num_batched_tokens = best->max_num_batched_tokens;
	size_t bytes = serve_sim_workspace_bytes(&sim, err, sizeof err);
	void *ws = malloc(bytes);
	struct ridge_serve_sim_result r;
	assert_int_equal(serve_sim_run(&sim, ws, bytes, NULL, &r, err, sizeof err), 0);
	assert_true(r.ttft.p90_s == best->ttft.p90_s && r.tpot.p50_s == best->tpot.p50_s);
	assert_true(r.output_tokens_per_s_per_gpu == best->output_tokens_per_s_per_gpu);
	assert_true(r.usd_per_million_output_tokens == best->usd_per_million_output_tokens);
	free(ws);
	free(all);
}

static void test_plan_bad_input(void **state)
{
	(void)state;
	struct ridge_workload_model m = llama3_8b();
	struct ridge_serve_plan_input in = plan_input(&m);
	struct ridge_serve_plan_config c[64];
	int count, simulated;
	char err[400];
	in.percentile = 95;
	assert_int_equal(serve_plan_search(&in, c, 64, &count, &simulated, err, sizeof err), -1);
	assert_non_null(strstr(err, "percentile"));
	in = plan_input(&m);
	in.aggregated = in.disaggregated = false;
	assert_int_equal(serve_plan_search(&in, c, 64, &count, &simulated, err, sizeof err), -1);
	in = plan_input(&m);
	assert_int_equal(serve_plan_search(&in, c, 10, &count, &simulated, err, sizeof err), -1);
	assert_non_null(strstr(err, "room"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_space),
		cmocka_unit_test(test_search_is_the_simulation),
		cmocka_unit_test(test_plan_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
