/* ridge serve's simulation (model/serve_sim.h): 10,000 measured requests of
 * Llama-3-8B on an H100 under vLLM's preset, closed loop at concurrency 64,
 * prompts of 1024 and outputs of 128 and of 1024 tokens; the issue asks for
 * 10,000 requests under 1 s. Then ridge plan's search on the simulation
 * (model/serve_plan.h): Llama-3-70B on h100-sxm, h200-sxm and mi300x, bf16
 * and fp8, vLLM, aggregated and disaggregated up to 8 GPUs, prompts of 1024
 * and outputs of 128 at concurrency 64; the issue asks for 1,000
 * configurations or more under 10 s. Prints the best of three runs of each. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hwdb.h"
#include "serve_plan.h"
#include "serve_sim.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static struct ridge_gpu gpus[3];
static const char *const gpu_ids[3] = { "h100-sxm", "h200-sxm", "mi300x" };

static int load_gpus(void)
{
	for (int i = 0; i < hwdb_builtin_count(); i++) {
		size_t len;
		const char *text = hwdb_builtin_text(i, &len);
		struct ridge_gpu g;
		struct hwdb_diags diags = { 0 };
		if (hwdb_parse(hwdb_builtin_name(i), text, len, &g, &diags) != 0)
			continue;
		for (int k = 0; k < 3; k++)
			if (strcmp(g.id, gpu_ids[k]) == 0)
				gpus[k] = g;
	}
	for (int k = 0; k < 3; k++)
		if (!gpus[k].id[0] || !gpus[k].has_price) {
			fprintf(stderr, "serve_bench: no built-in %s with a price\n", gpu_ids[k]);
			return -1;
		}
	return 0;
}

static int plan_bench(void)
{
	/* Llama-3-70B (examples/models/llama-3-70b.json) */
	static struct ridge_workload_model model = {
		.hidden = 8192, .intermediate = 28672, .layers = 80, .heads = 64, .kv_heads = 8, .vocab = 128256
	};
	char err[400];
	if (workload_resolve(&model, err, sizeof err) != 0) {
		fprintf(stderr, "serve_bench: %s\n", err);
		return 1;
	}
	static struct ridge_serve_plan_input in;
	in.model = &model;
	for (int k = 0; k < 3; k++) {
		in.gpus[k] = &gpus[k];
		in.prices[k] = gpus[k].price_usd_per_hour;
	}
	in.gpu_count = 3;
	strcpy(in.dtype_names[0], "bf16");
	in.weights[0] = (struct ridge_storage){ 2, 0, 0 };
	strcpy(in.dtype_names[1], "fp8");
	in.weights[1] = (struct ridge_storage){ 1, 0, 0 };
	in.dtype_count = 2;
	in.kv = in.weights[0];
	in.engines[0] = RIDGE_ENGINE_VLLM;
	in.engine_count = 1;
	in.budgets[0] = 2048;
	in.budgets[1] = 8192;
	in.budget_count = 2;
	in.isl = 1024;
	in.osl = 128;
	in.concurrency = 64;
	in.ttft_limit_s = 2;
	in.tpot_limit_s = 0.05;
	in.percentile = 90;
	in.max_gpus = 8;
	in.aggregated = in.disaggregated = true;
	in.seed = 1;
	int n = serve_plan_space(&in), count = 0, simulated = 0;
	struct ridge_serve_plan_config *all = calloc((size_t)n, sizeof *all);
	if (!all)
		return 1;
	double best = 1e9;
	for (int run = 0; run < 3; run++) {
		double t0 = now();
		if (serve_plan_search(&in, all, n, &count, &simulated, err, sizeof err) != 0) {
			fprintf(stderr, "serve_bench: %s\n", err);
			free(all);
			return 1;
		}
		double dt = now() - t0;
		best = dt < best ? dt : best;
	}
	int meeting = 0;
	while (meeting < count && all[meeting].meets)
		meeting++;
	printf("serve_bench: plan search, Llama-3-70B, 3 GPU types x bf16/fp8 x vllm, aggregated and "
	       "disaggregated to 8 GPUs, concurrency 64: %d configurations (%d simulated) in %.3f s (%s 10 s); "
	       "%d meet TTFT P90 <= 2 s and TPOT P90 <= 50 ms, the cheapest $%.3f per million output tokens\n",
	       count, simulated, best, best < 10 ? "under" : "OVER", meeting,
	       meeting > 0 ? all[0].usd_per_million_output_tokens : NAN);
	free(all);
	return 0;
}

int main(void)
{
	if (load_gpus() != 0)
		return 1;
	const struct ridge_gpu gpu = gpus[0];
	/* Llama-3-8B (examples/models/llama-3-8b.json) */
	static struct ridge_workload_model model = {
		.hidden = 4096, .intermediate = 14336, .layers = 32, .heads = 32, .kv_heads = 8, .vocab = 128256
	};
	char err[400];
	if (workload_resolve(&model, err, sizeof err) != 0) {
		fprintf(stderr, "serve_bench: %s\n", err);
		return 1;
	}
	static struct ridge_serve_sim_input in;
	in.req.model = &model;
	in.req.gpu = &gpu;
	in.req.tp = 1;
	in.req.weights = (struct ridge_storage){ 2, 0, 2 };
	in.req.kv = in.req.weights;
	in.req.compute_dtype = RIDGE_BF16;
	in.req.launch = RIDGE_LAUNCH_GRAPH;
	in.req.price_usd_per_gpu_hour = 3;
	serve_engine_defaults(RIDGE_ENGINE_VLLM, ridge_gpu_usable_memory(&gpu), gpu.id, 1, &in.engine);
	in.isl = 1024;
	in.concurrency = 64;
	in.requests = 10000;
	in.warmup = 64;
	in.seed = 1;
	const double outputs[] = { 128, 1024 };
	for (int k = 0; k < 2; k++) {
		in.osl = outputs[k];
		size_t bytes = serve_sim_workspace_bytes(&in, err, sizeof err);
		void *workspace = bytes ? malloc(bytes) : NULL;
		if (!workspace) {
			fprintf(stderr, "serve_bench: %s\n", bytes ? "out of memory" : err);
			return 1;
		}
		static struct ridge_serve_sim_result r;
		double best = 1e9;
		for (int run = 0; run < 3; run++) {
			double t0 = now();
			if (serve_sim_run(&in, workspace, bytes, NULL, &r, err, sizeof err) != 0) {
				fprintf(stderr, "serve_bench: %s\n", err);
				return 1;
			}
			double dt = now() - t0;
			best = dt < best ? dt : best;
		}
		free(workspace);
		printf("serve_bench: %.0f requests, prompt %.0f, output %.0f, concurrency %.0f: %.0f iterations in "
		       "%.3f s (%s 1 s); TTFT P50 %.4g s, TPOT P50 %.4g s\n",
		       r.measured_requests, in.isl, in.osl, in.concurrency, r.iterations, best,
		       best < 1 ? "under" : "OVER", r.ttft.p50_s, r.tpot.p50_s);
	}
	return plan_bench();
}
