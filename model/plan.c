#include "plan.h"
#include "comm.h"
#include "fail.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *plan_launch_name(enum ridge_plan_launch mode)
{
	static const char *const names[] = { "eager", "graph", "persistent" };
	return (int)mode >= 0 && mode < RIDGE_PLAN_LAUNCHES ? names[mode] : NULL;
}

static enum ridge_launch_mode serve_launch(enum ridge_plan_launch mode)
{
	return mode == RIDGE_PLAN_EAGER   ? RIDGE_LAUNCH_EAGER
	       : mode == RIDGE_PLAN_GRAPH ? RIDGE_LAUNCH_GRAPH
					  : RIDGE_LAUNCH_PERSISTENT;
}

/* The step's collectives are launched as its kernels are (model/comm.h): a
 * persistent kernel carries them inside, priced as the device's time. */
static enum ridge_comm_launch comm_launch(enum ridge_plan_launch mode)
{
	return mode == RIDGE_PLAN_EAGER   ? RIDGE_COMM_LAUNCH_EAGER
	       : mode == RIDGE_PLAN_GRAPH ? RIDGE_COMM_LAUNCH_GRAPH
					  : RIDGE_COMM_LAUNCH_DEVICE;
}

/* The GEMMs run in fp8 when the weights are stored in 1 byte and the GPU has
 * an fp8 rate, else in bf16. */
static enum ridge_dtype compute_dtype(const struct ridge_gpu *gpu, double weight_bytes)
{
	double peak;
	if (weight_bytes <= 1 && ridge_gpu_peak(gpu, RIDGE_FP8, RIDGE_PEAK_DEFAULT, false, &peak, NULL))
		return RIDGE_FP8;
	return RIDGE_BF16;
}

/* One serve_step with its tensor-parallel communication. */
static int step(const struct ridge_plan_input *in, const struct ridge_plan_config *cfg, enum ridge_serve_phase phase,
		double batch, double context, struct ridge_serve_result *r, struct ridge_serve_comm *comm, char *err,
		size_t err_len)
{
	const struct ridge_plan_gpu *pg = &in->gpus[cfg->gpu_index];
	const struct ridge_workload_model *m = in->model;
	double tokens = phase == RIDGE_PHASE_DECODE ? batch : batch * context;
	if (comm_serve_step_launch(pg->gpu, cfg->gpus, false, tokens, (double)m->hidden, (double)m->layers, 0, 0, 0, 0,
				   comm_launch(cfg->launch), comm, err, err_len) != 0)
		return -1;
	struct ridge_serve_request req = {
		.model = m,
		.gpu = pg->gpu,
		.phase = phase,
		.batch = batch,
		.context = context,
		.tp = cfg->gpus,
		.weights = in->dtype_storage[cfg->dtype_index],
		.expert_weights = in->dtype_expert_storage[cfg->dtype_index],
		.embedding_weights = in->dtype_embedding_storage[cfg->dtype_index],
		.kv = in->kv,
		.compute_dtype = compute_dtype(pg->gpu, in->dtype_storage[cfg->dtype_index].bytes),
		.launch = serve_launch(cfg->launch),
		.moe_impl = in->moe_impl,
		.kernels_per_layer = in->kernels_per_layer,
		.communication_s = comm->exposed_s,
		.price_usd_per_gpu_hour = pg->price_usd_per_hour,
		.has_overrides = in->has_overrides,
		.overrides = in->overrides,
	};
	return serve_step(&req, r, err, err_len);
}

int plan_price(const struct ridge_plan_input *in, struct ridge_plan_config *cfg, char *err, size_t err_len)
{
	struct ridge_serve_result *r = malloc(sizeof *r); /* a result holds every kernel: not for the stack */
	if (!r)
		return model_fail(err, err_len, "out of memory");
	struct ridge_serve_comm comm;
	int rc = -1;
	if (step(in, cfg, RIDGE_PHASE_DECODE, cfg->batch, in->context, r, &comm, err, err_len) != 0)
		goto done;
	cfg->memory_time_s = r->memory_time_s;
	cfg->compute_time_s = r->compute_time_s;
	cfg->kernel_time_s = r->kernel_time_s;
	cfg->launch_s = r->launch_time_s;
	cfg->comm_s = r->communication_s;
	cfg->comm_algorithm = comm.has_tp ? comm_algorithm_name(comm.tp.one.algorithm) : "none";
	cfg->tpot_s = r->step_s;
	memcpy(cfg->tpot_range_s, r->step_range_s, sizeof cfg->tpot_range_s);
	cfg->time_sum = r->time_sum;
	cfg->provenance = timing_sum_weakest(&r->time_sum);
	cfg->comm_share = r->communication_s / r->step_s;
	cfg->tokens_per_s = r->tokens_per_s;
	cfg->tokens_per_s_per_gpu = r->tokens_per_s / cfg->gpus;
	cfg->usd_per_million_tokens = r->usd_per_million_tokens;
	for (int i = 0; i < 2; i++)
		cfg->usd_range[i] = r->usd_per_million_tokens * cfg->tpot_range_s[i] / r->step_s;
	cfg->memory_required = r->memory_required_per_gpu * cfg->gpus;
	cfg->memory_available = r->memory_available_per_gpu * cfg->gpus;
	cfg->fits = r->fits;
	if (step(in, cfg, RIDGE_PHASE_PREFILL, 1, in->context, r, &comm, err, err_len) != 0)
		goto done;
	cfg->ttft_comm_s = r->communication_s;
	cfg->ttft_kernel_s = r->kernel_time_s + r->launch_time_s;
	cfg->ttft_s = r->step_s;
	memcpy(cfg->ttft_range_s, r->step_range_s, sizeof cfg->ttft_range_s);
	cfg->meets_tpot = cfg->tpot_s <= in->tpot_limit_s;
	cfg->meets_ttft = cfg->ttft_s <= in->ttft_limit_s;
	cfg->meets = cfg->fits && cfg->meets_tpot && cfg->meets_ttft;
	cfg->violation = fmax(fmax(cfg->tpot_s / in->tpot_limit_s, cfg->ttft_s / in->ttft_limit_s),
			      cfg->memory_available > 0 ? cfg->memory_required / cfg->memory_available : 0);
	rc = 0;
done:
	free(r);
	return rc;
}

/* GPU counts 1, 2, 4 ... that the fabric joins and that divide the heads. */
static bool count_allowed(const struct ridge_plan_input *in, const struct ridge_gpu *gpu, double n)
{
	return n <= in->max_gpus && n <= gpu->ic.domain_gpus && fmod((double)in->model->heads, n) == 0;
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
	if (!in->model)
		return model_fail(err, err_len, "no model");
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
							return model_fail(err, err_len, "more than %d configurations",
									  capacity);
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
	/* Ranked by the central value; a meeting configuration whose dollar
	 * range reaches the cheapest one's is a tie within uncertainty. */
	for (int i = 1; i < n && out[0].meets && out[i].meets; i++)
		out[i].tie = out[i].usd_range[0] <= out[0].usd_range[1];
	*count = n;
	return 0;
}
