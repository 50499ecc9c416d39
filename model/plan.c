#include "plan.h"
#include "comm.h"
#include "fail.h"
#include "launch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ACTIVATION_BYTES 2.0 /* bf16 activations in the all-reduces */

const char *plan_launch_name(enum ridge_plan_launch mode)
{
	return mode == RIDGE_PLAN_GRAPH ? "graph" : "eager";
}

/* The GEMMs run in fp8 when the weights are stored in 1 byte and the GPU has
 * an fp8 rate, else in bf16. */
static double compute_peak(const struct ridge_gpu *gpu, double weight_bytes)
{
	double peak = 0;
	if (weight_bytes <= 1 && ridge_gpu_peak(gpu, RIDGE_FP8, RIDGE_PEAK_DEFAULT, false, &peak, NULL))
		return peak;
	if (ridge_gpu_peak(gpu, RIDGE_BF16, RIDGE_PEAK_DEFAULT, false, &peak, NULL))
		return peak;
	if (ridge_gpu_peak(gpu, RIDGE_FP16, RIDGE_PEAK_DEFAULT, false, &peak, NULL))
		return peak;
	return 0;
}

int plan_price(const struct ridge_plan_input *in, struct ridge_plan_config *cfg, char *err, size_t err_len)
{
	const struct ridge_plan_gpu *pg = &in->gpus[cfg->gpu_index];
	const struct ridge_gpu *gpu = pg->gpu;
	double weight_bytes = in->dtype_bytes[cfg->dtype_index];
	double peak = compute_peak(gpu, weight_bytes);
	if (!(peak > 0))
		return model_fail(err, err_len, "%s has no bf16, fp16 or fp8 rate", gpu->id);
	const struct ridge_model_shape *m = &in->shape;

	struct ridge_tp_comm tp;
	if (comm_tensor_parallel_decode(gpu, cfg->gpus, cfg->batch, m->hidden, ACTIVATION_BYTES, m->layers, 0, &tp, err,
					err_len) != 0)
		return -1;
	cfg->comm_s = tp.time_s;
	cfg->comm_algorithm = comm_algorithm_name(tp.one.algorithm);

	struct ridge_launch_input li = { 0 };
	launch_defaults(gpu, &li);
	li.kernels_per_layer = in->kernels_per_layer;
	li.layers = m->layers;
	struct ridge_launch_result lr;
	if (launch_compute(&li, &lr, err, err_len) != 0)
		return -1;
	cfg->launch_s = cfg->launch == RIDGE_PLAN_GRAPH ? lr.graph_overhead_s : lr.overhead_s;

	struct ridge_decode_input di = {
		.params = in->params,
		.layers = m->layers,
		.kv_heads = m->kv_heads,
		.head_dim = m->head_dim,
		.context = in->context,
		.batch = cfg->batch,
		.gpus = cfg->gpus,
		.weight_bytes = weight_bytes,
		.kv_bytes = in->kv_bytes,
		.bandwidth = gpu->memory_bandwidth,
		.peak_flops = peak,
		.memory_bytes = gpu->memory_bytes,
		.price_usd_per_gpu_hour = pg->price_usd_per_hour,
		.overhead_s = cfg->comm_s + cfg->launch_s,
	};
	struct ridge_decode_result dr;
	if (cost_decode(&di, &dr, NULL, err, err_len) != 0)
		return -1;
	cfg->memory_time_s = dr.memory_time_s;
	cfg->compute_time_s = dr.compute_time_s;
	cfg->kernel_time_s = fmax(dr.memory_time_s, dr.compute_time_s);
	cfg->tpot_s = dr.tpot_s;
	cfg->comm_share = cfg->comm_s / dr.tpot_s;
	cfg->tokens_per_s = dr.tokens_per_s;
	cfg->tokens_per_s_per_gpu = dr.tokens_per_s / cfg->gpus;
	cfg->usd_per_million_tokens = dr.usd_per_million_tokens;
	cfg->memory_required = dr.memory_required;
	cfg->memory_available = dr.memory_available;
	cfg->fits = dr.fits;

	/* Prefill of one request: the prompt's GEMMs or the weights, whichever is slower, and its all-reduces. */
	double prompt_flops = 2 * in->params * in->context;
	cfg->ttft_kernel_s = fmax(prompt_flops / (cfg->gpus * peak),
				  in->params * weight_bytes / (cfg->gpus * gpu->memory_bandwidth));
	struct ridge_tp_comm prefill;
	if (comm_tensor_parallel_decode(gpu, cfg->gpus, in->context, m->hidden, ACTIVATION_BYTES, m->layers, 0, &prefill,
					err, err_len) != 0)
		return -1;
	cfg->ttft_comm_s = prefill.time_s;
	cfg->ttft_s = cfg->ttft_kernel_s + cfg->ttft_comm_s + cfg->launch_s;

	cfg->meets_tpot = cfg->tpot_s <= in->tpot_limit_s;
	cfg->meets_ttft = cfg->ttft_s <= in->ttft_limit_s;
	cfg->meets = cfg->fits && cfg->meets_tpot && cfg->meets_ttft;
	cfg->violation = fmax(fmax(cfg->tpot_s / in->tpot_limit_s, cfg->ttft_s / in->ttft_limit_s),
			      cfg->memory_available > 0 ? cfg->memory_required / cfg->memory_available : 0);
	return 0;
}

/* GPU counts 1, 2, 4 ... that the fabric joins and that divide the heads. */
static bool count_allowed(const struct ridge_plan_input *in, const struct ridge_gpu *gpu, double n)
{
	return n <= in->max_gpus && n <= gpu->ic.domain_gpus && fmod(in->shape.heads, n) == 0;
}

int plan_space(const struct ridge_plan_input *in)
{
	int n = 0;
	for (int g = 0; g < in->gpu_count; g++)
		for (double c = 1; count_allowed(in, in->gpus[g].gpu, c); c *= 2)
			for (double b = 1; b <= in->max_batch; b *= 2)
				n += in->dtype_count * RIDGE_PLAN_LAUNCHES;
	return n;
}

static int rank_order(const void *a, const void *b)
{
	const struct ridge_plan_config *x = a, *y = b;
	if (x->meets != y->meets)
		return x->meets ? -1 : 1;
	if (x->meets) {
		if (x->usd_per_million_tokens != y->usd_per_million_tokens)
			return x->usd_per_million_tokens < y->usd_per_million_tokens ? -1 : 1;
		if (x->tokens_per_s_per_gpu != y->tokens_per_s_per_gpu)
			return x->tokens_per_s_per_gpu > y->tokens_per_s_per_gpu ? -1 : 1;
	} else if (x->violation != y->violation) {
		return x->violation < y->violation ? -1 : 1;
	}
	/* the order visited: GPU, count, batch, dtype, mode (stable across platforms) */
	if (x->gpu_index != y->gpu_index)
		return x->gpu_index - y->gpu_index;
	if (x->gpus != y->gpus)
		return x->gpus < y->gpus ? -1 : 1;
	if (x->batch != y->batch)
		return x->batch < y->batch ? -1 : 1;
	if (x->dtype_index != y->dtype_index)
		return x->dtype_index - y->dtype_index;
	return (int)x->launch - (int)y->launch;
}

int plan_search(const struct ridge_plan_input *in, struct ridge_plan_config *out, int capacity, int *count, char *err,
		size_t err_len)
{
	*count = 0;
	if (in->gpu_count < 1 || in->gpu_count > RIDGE_PLAN_MAX_GPUS || in->dtype_count < 1 ||
	    in->dtype_count > RIDGE_PLAN_MAX_DTYPES)
		return model_fail(err, err_len, "1 to %d GPU types and 1 to %d weight dtypes", RIDGE_PLAN_MAX_GPUS,
				  RIDGE_PLAN_MAX_DTYPES);
	if (!(in->tpot_limit_s > 0) || !(in->ttft_limit_s > 0) || !(in->context >= 1) || !(in->max_batch >= 1) ||
	    !(in->max_gpus >= 1))
		return model_fail(err, err_len, "limits, context, batch and GPU bounds must be greater than 0");
	for (int g = 0; g < in->gpu_count; g++)
		if (!in->gpus[g].gpu->ic.has_fabric)
			return model_fail(err, err_len, "%s has no interconnect fabric in hwdb", in->gpus[g].gpu->id);
	int n = 0;
	for (int g = 0; g < in->gpu_count; g++)
		for (double c = 1; count_allowed(in, in->gpus[g].gpu, c); c *= 2)
			for (double b = 1; b <= in->max_batch; b *= 2)
				for (int d = 0; d < in->dtype_count; d++)
					for (int l = 0; l < RIDGE_PLAN_LAUNCHES; l++) {
						if (n >= capacity)
							return model_fail(err, err_len, "more than %d configurations", capacity);
						struct ridge_plan_config *cfg = &out[n];
						memset(cfg, 0, sizeof *cfg);
						cfg->gpu_index = g;
						cfg->dtype_index = d;
						cfg->gpus = c;
						cfg->batch = b;
						cfg->launch = (enum ridge_plan_launch)l;
						if (plan_price(in, cfg, err, err_len) != 0)
							return -1;
						n++;
					}
	qsort(out, (size_t)n, sizeof *out, rank_order);
	*count = n;
	return 0;
}
