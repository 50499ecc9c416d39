/* ridge plan's search (model/plan.h) for Llama-3-70B over three GPU types
 * (h100-sxm, h200-sxm, mi300x), two weight dtypes, batches 1..256, GPU counts
 * 1..8 and the three launch modes, each priced kernel by kernel (model/serve.h): the issue asks for the whole search under 1 s.
 * Prints the best of five runs and the configurations per second. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hwdb.h"
#include "plan.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void)
{
	static const char *const ids[] = { "h100-sxm", "h200-sxm", "mi300x" };
	static struct ridge_gpu gpus[3];
	struct ridge_plan_input in = { 0 };
	for (int i = 0; i < hwdb_builtin_count(); i++) {
		size_t len;
		const char *text = hwdb_builtin_text(i, &len);
		struct ridge_gpu g;
		struct hwdb_diags diags = { 0 };
		if (hwdb_parse(hwdb_builtin_name(i), text, len, &g, &diags) != 0)
			continue;
		for (int k = 0; k < 3; k++)
			if (strcmp(g.id, ids[k]) == 0)
				gpus[k] = g;
	}
	for (int k = 0; k < 3; k++) {
		if (!gpus[k].id[0]) {
			fprintf(stderr, "plan_bench: no built-in %s\n", ids[k]);
			return 1;
		}
		in.gpus[k] = (struct ridge_plan_gpu){ &gpus[k], gpus[k].price_usd_per_hour };
	}
	in.gpu_count = 3;
	/* Llama-3-70B (examples/models/llama-3-70b.json) */
	static struct ridge_workload_model model = { .hidden = 8192,
						     .intermediate = 28672,
						     .layers = 80,
						     .heads = 64,
						     .kv_heads = 8,
						     .head_dim = 128,
						     .vocab = 128256 };
	char err[300];
	struct ridge_workload_params params;
	if (workload_resolve(&model, err, sizeof err) != 0 || workload_params(&model, &params, err, sizeof err) != 0) {
		fprintf(stderr, "plan_bench: %s\n", err);
		return 1;
	}
	in.model = &model;
	in.params = params.total;
	in.context = 8192;
	in.tpot_limit_s = 50e-3;
	in.ttft_limit_s = 2;
	snprintf(in.dtype_names[0], sizeof in.dtype_names[0], "bf16");
	snprintf(in.dtype_names[1], sizeof in.dtype_names[1], "fp8");
	in.dtype_storage[0] = (struct ridge_storage){ 2, 0, 2 };
	in.dtype_storage[1] = (struct ridge_storage){ 1, 0, 1 };
	in.dtype_count = 2;
	in.kv = (struct ridge_storage){ 2, 0, 2 };
	in.kernels_per_layer = 0;
	in.max_batch = 256;
	in.max_gpus = 8;
	int capacity = plan_space(&in);
	struct ridge_plan_config *out = malloc(sizeof *out * (size_t)capacity);
	if (!out)
		return 1;
	double best = 1e9;
	int n = 0;
	for (int run = 0; run < 5; run++) {
		double t0 = now();
		if (plan_search(&in, out, capacity, &n, err, sizeof err) != 0) {
			fprintf(stderr, "plan_bench: %s\n", err);
			free(out);
			return 1;
		}
		double t = now() - t0;
		if (t < best)
			best = t;
	}
	printf("plan_bench: Llama-3-70B x 3 GPU types: %d configurations in %.3f ms (best of 5), %.0f per second; %s 1 s\n",
	       n, best * 1e3, n / best, best < 1 ? "under" : "OVER");
	free(out);
	return best < 1 ? 0 : 1;
}
