/* The serving planner on the simulation (serve_plan.h). */
#include "serve_plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"

#define MAX_TP_STEPS 11 /* tp 1, 2, 4 ... 1024 */

/* Sequence limits tried: powers of two and the halves between them (1, 2,
 * 3, 4, 6, 8, 12, ...). */
static double seq_step(int i)
{
	return i == 0 ? 1 : i % 2 ? pow(2, (i + 1) / 2) : 1.5 * pow(2, i / 2);
}

/* The GEMMs run in fp8 when the weights are stored in 1 byte and the GPU
 * has an fp8 rate (as ridge plan prices them), else in bf16. */
static enum ridge_dtype compute_dtype(const struct ridge_gpu *gpu, double weight_bytes)
{
	double peak;
	if (weight_bytes <= 1 && ridge_gpu_peak(gpu, RIDGE_FP8, RIDGE_PEAK_DEFAULT, false, &peak, NULL))
		return RIDGE_FP8;
	return RIDGE_BF16;
}

static bool tp_ok(const struct ridge_serve_plan_input *in, const struct ridge_gpu *gpu, double tp)
{
	double domain = gpu->ic.domain_gpus > 0 ? gpu->ic.domain_gpus : 1;
	return tp <= in->max_gpus && tp <= domain && fmod((double)in->model->heads, tp) == 0;
}

static void engine_of(const struct ridge_serve_plan_input *in, const struct ridge_serve_plan_config *c, double tp,
		      struct ridge_engine *e)
{
	const struct ridge_gpu *gpu = in->gpus[c->gpu_index];
	serve_engine_defaults(c->engine, ridge_gpu_usable_memory(gpu), gpu->id, tp, e);
}

/* ---- the space ---- */

struct space {
	const struct ridge_serve_plan_input *in;
	struct ridge_serve_plan_config *out;
	int capacity, count;
};

static void add(struct space *s, struct ridge_serve_plan_config *c)
{
	c->index = s->count;
	if (s->out && s->count < s->capacity)
		s->out[s->count] = *c;
	s->count++;
}

/* Every sequence limit up to `most` (and `most` itself) for the layout c,
 * the largest first. */
static void add_seqs(struct space *s, struct ridge_serve_plan_config *c, double most)
{
	int steps = 0;
	while (seq_step(steps) < most)
		steps++;
	c->max_num_seqs = most;
	add(s, c);
	for (int i = steps - 1; i >= 0; i--) {
		c->max_num_seqs = seq_step(i);
		add(s, c);
	}
}

static void aggregated_space(struct space *s, struct ridge_serve_plan_config *c)
{
	const struct ridge_serve_plan_input *in = s->in;
	const struct ridge_gpu *gpu = in->gpus[c->gpu_index];
	c->disaggregated = false;
	for (double tp = 1; tp <= 1024; tp *= 2) {
		if (!tp_ok(in, gpu, tp))
			continue;
		struct ridge_engine e;
		engine_of(in, c, tp, &e);
		for (double r = 1; tp * r <= in->max_gpus; r++) {
			if (in->concurrency > 0 && fmod(in->concurrency, r) != 0)
				continue;
			c->tp = tp;
			c->replicas = r;
			c->gpus = tp * r;
			c->concurrency = in->concurrency / r;
			c->rate = in->concurrency > 0 ? 0 : in->rate / r;
			for (int b = 0; b < in->budget_count; b++) {
				if (!e.chunked_prefill && in->isl > in->budgets[b])
					continue; /* a prompt runs whole: it must fit the budget */
				c->max_num_batched_tokens = in->budgets[b];
				add_seqs(s, c,
					 in->concurrency > 0 ? fmin(c->concurrency, e.max_num_seqs) : e.max_num_seqs);
			}
		}
	}
}

static void disaggregated_space(struct space *s, struct ridge_serve_plan_config *c)
{
	const struct ridge_serve_plan_input *in = s->in;
	const struct ridge_gpu *gpu = in->gpus[c->gpu_index];
	c->disaggregated = true;
	c->replicas = 1;
	c->concurrency = in->concurrency;
	c->rate = in->rate;
	for (double tp_p = 1; tp_p <= 1024; tp_p *= 2)
		for (double tp_d = 1; tp_d <= 1024; tp_d *= 2) {
			if (!tp_ok(in, gpu, tp_p) || !tp_ok(in, gpu, tp_d))
				continue;
			struct ridge_engine e;
			engine_of(in, c, tp_d, &e);
			if (!e.chunked_prefill && in->isl > e.max_num_batched_tokens)
				continue;
			for (double p = 1; p * tp_p + tp_d <= in->max_gpus; p++)
				for (double d = 1; p * tp_p + d * tp_d <= in->max_gpus; d++) {
					c->prefill_tp = tp_p;
					c->prefill_workers = p;
					c->decode_tp = tp_d;
					c->decode_workers = d;
					c->tp = tp_d;
					c->gpus = p * tp_p + d * tp_d;
					c->max_num_batched_tokens = e.max_num_batched_tokens;
					add_seqs(s, c,
						 in->concurrency > 0 ? fmin(in->concurrency, e.max_num_seqs)
								     : e.max_num_seqs);
				}
		}
}

static int enumerate(const struct ridge_serve_plan_input *in, struct ridge_serve_plan_config *out, int capacity)
{
	struct space s = { in, out, capacity, 0 };
	for (int g = 0; g < in->gpu_count; g++)
		for (int d = 0; d < in->dtype_count; d++)
			for (int k = 0; k < in->engine_count; k++) {
				struct ridge_serve_plan_config c = { 0 };
				c.gpu_index = g;
				c.dtype_index = d;
				c.engine = in->engines[k];
				if (in->aggregated)
					aggregated_space(&s, &c);
				if (in->disaggregated)
					disaggregated_space(&s, &c);
			}
	return s.count;
}

static int check(const struct ridge_serve_plan_input *in, char *err, size_t err_len)
{
	if (!in->model || in->gpu_count < 1 || in->gpu_count > RIDGE_SERVE_PLAN_MAX_GPUS || in->dtype_count < 1 ||
	    in->dtype_count > RIDGE_SERVE_PLAN_MAX_DTYPES || in->engine_count < 1 ||
	    in->engine_count > RIDGE_ENGINE_COUNT || in->budget_count < 1 ||
	    in->budget_count > RIDGE_SERVE_PLAN_MAX_BUDGETS)
		return model_fail(err, err_len, "a serving plan needs a model, GPUs, dtypes, engines and budgets");
	if (!(in->percentile == 50 || in->percentile == 90 || in->percentile == 99))
		return model_fail(err, err_len, "percentile must be 50, 90 or 99, not %g", in->percentile);
	if (!(in->ttft_limit_s > 0 && in->tpot_limit_s > 0))
		return model_fail(err, err_len, "the TTFT and TPOT limits must be above 0");
	if (!(in->max_gpus >= 1 && in->max_gpus <= 1024 && in->max_gpus == floor(in->max_gpus)))
		return model_fail(err, err_len, "max GPUs must be a whole number from 1 to 1024, not %g", in->max_gpus);
	if (!in->aggregated && !in->disaggregated)
		return model_fail(err, err_len, "neither aggregated nor disaggregated serving to search");
	return 0;
}

int serve_plan_space(const struct ridge_serve_plan_input *in)
{
	return enumerate(in, NULL, 0);
}

/* ---- one candidate ---- */

struct search {
	const struct ridge_serve_plan_input *in;
	/* the prices per tp (1, 2, 4 ...) of the current GPU and dtype, apart
	 * for an engine that fuses the all-reduces with the norms (its token
	 * pass differs). The engines' custom all-reduce caps (8 MiB, 8 or 16 MB)
	 * all lie past its published times (2 MiB), so its prices are the same
	 * for every engine. */
	struct ridge_serve_memo memo[MAX_TP_STEPS][2];
	int memo_gpu[MAX_TP_STEPS][2], memo_dtype[MAX_TP_STEPS][2];
	double memo_tokens, memo_seqs;
	void *workspace;
	size_t workspace_bytes;
	struct ridge_serve_sim_result result;
	char *err;
	size_t err_len;
};

/* The memo of (the candidate's GPU and dtype, tp, fused norms), cleared
 * when it held another GPU's or dtype's prices. */
static int memo_for(struct search *s, const struct ridge_serve_plan_config *c, double tp, bool fused,
		    struct ridge_serve_memo *out)
{
	int k = (int)round(log2(tp)), f = fused;
	struct ridge_serve_memo *m = &s->memo[k][f];
	if (!m->memory) {
		m->bytes = serve_sim_memo_bytes(s->memo_tokens, s->memo_seqs);
		m->memory = malloc(m->bytes);
		if (!m->memory)
			return model_fail(s->err, s->err_len, "out of memory for the price memo (%zu bytes)", m->bytes);
		s->memo_gpu[k][f] = -1;
	}
	if (s->memo_gpu[k][f] != c->gpu_index || s->memo_dtype[k][f] != c->dtype_index) {
		serve_sim_memo_clear(m, s->memo_tokens, s->memo_seqs);
		s->memo_gpu[k][f] = c->gpu_index;
		s->memo_dtype[k][f] = c->dtype_index;
	}
	*out = *m;
	return 0;
}

static void request_of(const struct ridge_serve_plan_input *in, const struct ridge_serve_plan_config *c, double tp,
		       struct ridge_serve_request *r)
{
	const struct ridge_gpu *gpu = in->gpus[c->gpu_index];
	memset(r, 0, sizeof *r);
	r->model = in->model;
	r->gpu = gpu;
	r->tp = tp;
	r->weights = in->weights[c->dtype_index];
	r->expert_weights = in->expert_weights[c->dtype_index];
	r->embedding_weights = in->embedding_weights[c->dtype_index];
	r->kv = in->kv;
	r->compute_dtype = compute_dtype(gpu, in->weights[c->dtype_index].bytes);
	r->launch = RIDGE_LAUNCH_GRAPH;
	r->fused_projections = true; /* every engine fuses q/k/v and gate/up (serve.c) */
	r->moe_impl = in->moe_impl;
	r->has_overrides = in->has_overrides;
	r->overrides = in->overrides;
	r->price_usd_per_gpu_hour = in->prices[c->gpu_index];
}

static int input_of(struct search *s, const struct ridge_serve_plan_config *c, struct ridge_serve_sim_input *sim)
{
	const struct ridge_serve_plan_input *in = s->in;
	memset(sim, 0, sizeof *sim);
	request_of(in, c, c->tp, &sim->req);
	engine_of(in, c, c->tp, &sim->engine);
	bool fused = serve_engine_fuses_allreduce_norm(&sim->engine, in->llama_decoder, in->model->hidden);
	sim->req.fused_allreduce_norm_bytes = fused ? sim->engine.custom_allreduce_max_bytes : 0;
	sim->engine.max_num_seqs = c->max_num_seqs;
	sim->isl = in->isl;
	sim->osl = in->osl;
	sim->isl_dist = RIDGE_LENGTH_FIXED;
	sim->osl_dist = RIDGE_LENGTH_FIXED;
	sim->concurrency = c->concurrency;
	sim->rate = c->rate;
	sim->requests = in->requests > 0 ? in->requests : c->concurrency > 0 ? fmax(100, 2 * c->concurrency) : 200;
	sim->warmup = c->concurrency > 0 ? c->concurrency : ceil(sim->requests / 10);
	sim->seed = in->seed;
	sim->max_context = in->max_context;
	/* a run that takes more than 4 times the iterations of one request at a
	 * time (its prompt in chunks, its output token by token) is thrashing */
	sim->max_iterations = 4 * (sim->requests + sim->warmup) *
			      (in->osl + 2 + ceil(in->isl / fmin(c->max_num_batched_tokens, 8192)));
	if (memo_for(s, c, c->tp, fused, &sim->memo))
		return -1;
	if (!c->disaggregated) {
		sim->engine.max_num_batched_tokens = c->max_num_batched_tokens;
		return 0;
	}
	struct ridge_serve_disagg *d = &sim->disagg;
	d->prefill_tp = c->prefill_tp;
	d->prefill_workers = c->prefill_workers;
	d->decode_tp = c->decode_tp;
	d->decode_workers = c->decode_workers;
	engine_of(in, c, c->prefill_tp, &d->prefill_engine);
	return memo_for(s, c, c->prefill_tp, fused, &d->prefill_memo);
}

static double at_percentile(const struct ridge_latency_stats *l, double q)
{
	return q == 50 ? l->p50_s : q == 90 ? l->p90_s : l->p99_s;
}

static int simulate(struct search *s, struct ridge_serve_plan_config *c)
{
	const struct ridge_serve_plan_input *in = s->in;
	struct ridge_serve_sim_input sim;
	if (input_of(s, c, &sim))
		return -1;
	size_t bytes = serve_sim_workspace_bytes(&sim, s->err, s->err_len);
	if (bytes == 0)
		return -1;
	if (bytes > s->workspace_bytes) {
		void *grown = realloc(s->workspace, bytes);
		if (!grown)
			return model_fail(s->err, s->err_len, "out of memory for a simulation (%zu bytes)", bytes);
		s->workspace = grown;
		s->workspace_bytes = bytes;
	}
	struct ridge_serve_sim_result *r = &s->result;
	int rc = serve_sim_run(&sim, s->workspace, s->workspace_bytes, NULL, r, s->err, s->err_len);
	if (rc < 0)
		return -1;
	c->violation = 1e300;
	if (rc == 1 || rc == 2) {
		c->status = rc == 1 ? RIDGE_SERVE_PLAN_DOES_NOT_FIT : RIDGE_SERVE_PLAN_STOPPED;
		return 0;
	}
	c->status = RIDGE_SERVE_PLAN_SIMULATED;
	c->ttft = r->ttft;
	c->tpot = r->tpot;
	c->ttft_s = at_percentile(&r->ttft, in->percentile);
	c->tpot_s = at_percentile(&r->tpot, in->percentile);
	c->output_tokens_per_s = r->output_tokens_per_s * c->replicas;
	c->output_tokens_per_s_per_gpu = r->output_tokens_per_s_per_gpu;
	c->tokens_per_s_per_user = 1 / r->tpot.p50_s;
	c->usd_per_million_output_tokens = r->usd_per_million_output_tokens;
	c->kv_utilization = r->kv_utilization;
	c->preemptions = r->preemptions;
	c->violation = fmax(c->ttft_s / in->ttft_limit_s, c->tpot_s / in->tpot_limit_s);
	c->meets = c->violation <= 1;
	return 0;
}

/* Two candidates of one layout (all but the sequence limit equal). */
static bool same_layout(const struct ridge_serve_plan_config *a, const struct ridge_serve_plan_config *b)
{
	return a->gpu_index == b->gpu_index && a->dtype_index == b->dtype_index && a->engine == b->engine &&
	       a->disaggregated == b->disaggregated && a->tp == b->tp && a->replicas == b->replicas &&
	       a->max_num_batched_tokens == b->max_num_batched_tokens && a->prefill_tp == b->prefill_tp &&
	       a->prefill_workers == b->prefill_workers && a->decode_tp == b->decode_tp &&
	       a->decode_workers == b->decode_workers;
}

/* ---- the order and the front ---- */

static int by_rank(const void *pa, const void *pb)
{
	const struct ridge_serve_plan_config *a = pa, *b = pb;
	if (a->meets != b->meets)
		return a->meets ? -1 : 1;
	if (a->meets) {
		if (a->usd_per_million_output_tokens != b->usd_per_million_output_tokens)
			return a->usd_per_million_output_tokens < b->usd_per_million_output_tokens ? -1 : 1;
		if (a->output_tokens_per_s_per_gpu != b->output_tokens_per_s_per_gpu)
			return a->output_tokens_per_s_per_gpu > b->output_tokens_per_s_per_gpu ? -1 : 1;
	} else if (a->violation != b->violation)
		return a->violation < b->violation ? -1 : 1;
	return (a->index > b->index) - (a->index < b->index);
}

/* The front among those meeting the limits (c sorted by rank): no other
 * meets them with as many tokens/s per GPU and per user and more of one;
 * of configurations that tie on both, the first ranked. */
static void mark_front(struct ridge_serve_plan_config *c, int n)
{
	for (int i = 0; i < n; i++) {
		c[i].pareto = c[i].meets;
		for (int j = 0; j < n && c[i].pareto; j++) {
			double gpu_j = c[j].output_tokens_per_s_per_gpu, gpu_i = c[i].output_tokens_per_s_per_gpu;
			double user_j = c[j].tokens_per_s_per_user, user_i = c[i].tokens_per_s_per_user;
			if (j == i || !c[j].meets || gpu_j < gpu_i || user_j < user_i)
				continue;
			if (gpu_j > gpu_i || user_j > user_i || j < i)
				c[i].pareto = false;
		}
	}
}

static void search_free(struct search *s)
{
	for (int k = 0; k < MAX_TP_STEPS; k++)
		for (int f = 0; f < 2; f++)
			free(s->memo[k][f].memory);
	free(s->workspace);
}

int serve_plan_search(const struct ridge_serve_plan_input *in, struct ridge_serve_plan_config *out, int capacity,
		      int *count, int *simulated, char *err, size_t err_len)
{
	*count = 0;
	*simulated = 0;
	if (check(in, err, err_len))
		return -1;
	int n = enumerate(in, out, capacity);
	if (n > capacity)
		return model_fail(err, err_len, "%d configurations, more than the %d room was made for", n, capacity);
	struct search s = { .in = in, .err = err, .err_len = err_len };
	for (int i = 0; i < n; i++) {
		s.memo_tokens = fmax(s.memo_tokens, out[i].max_num_batched_tokens);
		s.memo_seqs = fmax(s.memo_seqs, out[i].max_num_seqs);
	}
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		struct ridge_serve_plan_config *c = &out[i];
		c->violation = 1e300;
		const struct ridge_serve_plan_config *before = i > 0 ? &out[i - 1] : NULL;
		if (before && same_layout(before, c) &&
		    (before->status == RIDGE_SERVE_PLAN_PRUNED || before->status == RIDGE_SERVE_PLAN_STOPPED ||
		     (before->status == RIDGE_SERVE_PLAN_SIMULATED && before->ttft_s > in->ttft_limit_s))) {
			c->status = RIDGE_SERVE_PLAN_PRUNED;
			continue;
		}
		rc = simulate(&s, c);
		*simulated += rc == 0;
	}
	search_free(&s);
	if (rc)
		return -1;
	qsort(out, (size_t)n, sizeof *out, by_rank);
	mark_front(out, n);
	*count = n;
	return 0;
}
