#include "train_plan.h"
#include "timing.h"
#include "names.h"
#include "fail.h"

#include <math.h>
#include <string.h>

static const char *const bind_names[RIDGE_BIND_COUNT] = {
	"compute",
	"pipeline bubble",
	"tensor-parallel communication",
	"context-parallel communication",
	"pipeline hand-offs",
	"data-parallel communication",
	"recomputation",
	"expert all-to-all",
};

const char *train_plan_bind_name(enum ridge_train_bind b)
{
	return model_name_of(bind_names, 0, RIDGE_BIND_COUNT, (int)b);
}

static bool divides(double d, double n)
{
	return d >= 1 && fmod(n, d) == 0;
}

/* The term beyond compute that costs the step most (compute when none reaches 5 %). */
static void find_binding(struct ridge_train_layout *l)
{
	const struct ridge_parallel_result *r = &l->r;
	double terms[RIDGE_BIND_COUNT] = { 0 };
	terms[RIDGE_BIND_BUBBLE] = r->bubble_s;
	terms[RIDGE_BIND_TP] = r->tp_exposed_s;
	terms[RIDGE_BIND_CP] = r->cp_exposed_s;
	terms[RIDGE_BIND_PP] = r->pp_s;
	terms[RIDGE_BIND_DP] = r->dp_exposed_s;
	terms[RIDGE_BIND_RECOMPUTE] = r->recompute_s;
	terms[RIDGE_BIND_EP] = r->ep_exposed_s;
	l->binds = RIDGE_BIND_COMPUTE;
	l->binds_s = r->compute_s - r->recompute_s;
	double largest = 0.05 * r->step_s;
	for (int b = RIDGE_BIND_BUBBLE; b < RIDGE_BIND_COUNT; b++)
		if (terms[b] > largest) {
			largest = terms[b];
			l->binds = (enum ridge_train_bind)b;
			l->binds_s = terms[b];
		}
	l->memory_headroom = l->in.memory_bytes > 0 ? 1 - r->memory_required / l->in.memory_bytes : 0;
}

/* Keeps the top list sorted by step time (then less memory), at most n long. */
static void keep(struct ridge_train_plan_result *out, int n, const struct ridge_train_layout *l)
{
	int at = out->count;
	while (at > 0 &&
	       (out->top[at - 1].r.step_s > l->r.step_s || (out->top[at - 1].r.step_s == l->r.step_s &&
							    out->top[at - 1].r.memory_required > l->r.memory_required)))
		at--;
	if (at >= n)
		return;
	int last = out->count < n ? out->count : n - 1;
	memmove(&out->top[at + 1], &out->top[at], (size_t)(last - at) * sizeof out->top[0]);
	out->top[at] = *l;
	if (out->count < n)
		out->count++;
}

/* The layout's MLP gate-and-up GEMM on one GPU: its FLOPs over peak x predicted time.
 * A mixture of experts' is one expert's: the rows it gets are the micro-batch's
 * tokens x top_k / experts from each of the ep GPUs that route to it. */
static double shape_efficiency(const struct ridge_gpu *gpu, const struct ridge_train_plan_input *in,
			       const struct ridge_parallel_input *p)
{
	struct ridge_kernel_shape shape = { .kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_BF16 };
	shape.m = p->micro_batch * p->seq / p->cp;
	if (in->experts > 0)
		shape.m = fmax(1, round(shape.m * in->top_k * p->ep / in->experts));
	shape.n = 2 * in->ffn / p->tp;
	shape.k = in->hidden;
	struct ridge_timing_options options = { .in_stream = true };
	struct ridge_kernel_time t;
	char err[300];
	if (timing_kernel(gpu, &shape, &options, &t, err, sizeof err) != 0 || !(t.predicted_time_s > 0))
		return 0;
	double flops = 2 * shape.m * shape.n * shape.k;
	return fmin(1, flops / (in->peak_flops * t.predicted_time_s));
}

static void price(const struct ridge_gpu *gpu, const struct ridge_train_plan_input *in, struct ridge_train_layout *l,
		  struct ridge_train_plan_result *out)
{
	char err[300];
	out->tried++;
	l->gemm_efficiency = in->compute_efficiency > 0 ? in->compute_efficiency : shape_efficiency(gpu, in, &l->in);
	if (!(l->gemm_efficiency > 0))
		return;
	l->in.compute_efficiency = l->gemm_efficiency;
	if (parallel_train(gpu, &l->in, &l->r, err, sizeof err) != 0)
		return; /* the layout does not divide: skipped */
	out->priced++;
	find_binding(l);
	if (l->r.fits) {
		out->fitting++;
		keep(out, in->top, l);
	} else if (!out->has_nearest || l->r.memory_required < out->nearest.r.memory_required) {
		out->nearest = *l;
		out->has_nearest = true;
	}
}

/* A mixture of experts: every ep that divides the experts and dp x cp (1 for a dense model). */
static void search_experts(const struct ridge_gpu *gpu, const struct ridge_train_plan_input *in,
			   struct ridge_train_layout *l, double dp, struct ridge_train_plan_result *out)
{
	struct ridge_parallel_input *p = &l->in;
	double most = in->experts > 0 ? fmin(in->experts, dp * p->cp) : 1;
	for (p->ep = 1; p->ep <= most; p->ep *= 2)
		if (divides(p->ep, in->experts > 0 ? in->experts : 1) && divides(p->ep, dp * p->cp))
			price(gpu, in, l, out);
}

/* The choices of one (tp, cp, pp) that the search varies last. */
static void search_inner(const struct ridge_gpu *gpu, const struct ridge_train_plan_input *in,
			 struct ridge_train_layout *l, double sequences, struct ridge_train_plan_result *out)
{
	static const double micro_batches[] = { 1, 2, 4, 8 };
	static const double virtuals[] = { 1, 2, 3, 4, 6, 8 };
	static const enum ridge_sharding shardings[] = { RIDGE_SHARD_DDP, RIDGE_SHARD_ZERO1, RIDGE_SHARD_ZERO2,
							 RIDGE_SHARD_ZERO3 };
	struct ridge_parallel_input *p = &l->in;
	double dp = p->gpus / (p->tp * p->cp * p->pp);
	double per_stage = fmod(p->layers, p->pp) == 0 ? p->layers / p->pp : (p->layers + 2) / p->pp;
	for (size_t b = 0; b < sizeof micro_batches / sizeof micro_batches[0]; b++) {
		p->micro_batch = micro_batches[b];
		if (!divides(dp * p->micro_batch, sequences))
			continue;
		double m = sequences / (dp * p->micro_batch);
		for (size_t v = 0; v < sizeof virtuals / sizeof virtuals[0]; v++) {
			p->virtual_stages = virtuals[v];
			if (p->virtual_stages > 1 &&
			    (p->pp < 2 || !divides(p->virtual_stages, per_stage) || !divides(p->pp, m)))
				continue;
			for (int sp = 0; sp <= (p->tp > 1); sp++) {
				p->sequence_parallel = sp;
				for (int rc = RIDGE_RECOMPUTE_NONE; rc <= RIDGE_RECOMPUTE_FULL; rc++) {
					p->recompute = (enum ridge_recompute)rc;
					for (size_t z = 0; z < sizeof shardings / sizeof shardings[0]; z++) {
						p->sharding = shardings[z];
						search_experts(gpu, in, l, dp, out);
					}
				}
			}
		}
	}
}

static bool pp_splits(double pp, double layers)
{
	return pp == 1 || divides(pp, layers) || (pp > 2 && divides(pp, layers + 2));
}

int train_plan_search(const struct ridge_gpu *gpu, const struct ridge_train_plan_input *in,
		      struct ridge_train_plan_result *out, char *err, size_t err_len)
{
	memset(out, 0, sizeof *out);
	if (!(in->params > 0 && in->hidden > 0 && in->ffn > 0 && in->layers >= 1 && in->heads >= 1 && in->seq >= 1 &&
	      in->gpus >= 1 && in->global_batch_tokens > 0 && in->flops_per_step > 0 && in->peak_flops > 0))
		return model_fail(err, err_len,
				  "the model, the sequence, the GPUs and the batch must be greater than 0");
	if (in->top < 1 || in->top > RIDGE_TRAIN_PLAN_MAX_TOP)
		return model_fail(err, err_len, "top must be 1 to %d, not %d", RIDGE_TRAIN_PLAN_MAX_TOP, in->top);
	double sequences = in->global_batch_tokens / in->seq;
	if (sequences != floor(sequences))
		return model_fail(err, err_len,
				  "the global batch of %g tokens is not a whole number of %g-token sequences",
				  in->global_batch_tokens, in->seq);
	struct ridge_train_layout l;
	memset(&l, 0, sizeof l);
	l.in = (struct ridge_parallel_input){
		.params = in->params,
		.seq = in->seq,
		.batch = sequences,
		.gpus = in->gpus,
		.flops_per_step = in->flops_per_step,
		.peak_flops = in->peak_flops,
		.hidden = in->hidden,
		.layers = in->layers,
		.heads = in->heads,
		.dp_overlap = in->dp_overlap,
		.tp_overlap = in->tp_overlap,
		.ep_overlap = in->ep_overlap,
		.memory_bytes = in->memory_bytes,
		.network_bandwidth = in->network_bandwidth,
		.causal = in->causal,
		.kv_hidden = in->kv_heads > 0 ? in->hidden * in->kv_heads / in->heads : 0,
		.launch = RIDGE_COMM_LAUNCH_EAGER,
		.experts = in->experts,
		.top_k = in->top_k,
		.moe_layers = in->moe_layers,
		.expert_params = in->expert_params,
	};
	double max_tp = fmax(1, gpu->ic.domain_gpus);
	for (double tp = 1; tp <= max_tp; tp *= 2) {
		if (!divides(tp, in->heads) || !divides(tp, in->gpus))
			continue;
		for (double cp = 1; cp <= 32; cp *= 2) {
			if (!divides(tp * cp, in->gpus) || (cp > 1 && !divides(2 * cp, in->seq)))
				continue;
			for (double pp = 1; pp <= fmin(128, in->layers); pp++) {
				if (!pp_splits(pp, in->layers) || !divides(tp * cp * pp, in->gpus))
					continue;
				l.in.tp = tp, l.in.cp = cp, l.in.pp = pp;
				search_inner(gpu, in, &l, sequences, out);
			}
		}
	}
	return 0;
}
