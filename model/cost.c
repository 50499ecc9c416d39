#include "cost.h"
#include "fail.h"
#include "names.h"
#include "workload.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cost_format_exact(double v, char *buf, size_t len)
{
	/* %.17g always round-trips but prints 0.40000000000000002 for 0.4; the
	 * first precision that reads back as v is the honest short form. */
	for (int precision = 1; precision <= 17; precision++) {
		snprintf(buf, len, "%.*g", precision, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* "{} * {}" with each {} replaced by the exact text of the next double. */
static void substitute(char *buf, size_t len, const char *tmpl, va_list ap)
{
	size_t used = 0;
	buf[0] = '\0';
	for (const char *p = tmpl; *p && used + 1 < len; p++) {
		if (p[0] == '{' && p[1] == '}') {
			char num[40];
			cost_format_exact(va_arg(ap, double), num, sizeof num);
			int n = snprintf(buf + used, len - used, "%s", num);
			used += n > 0 ? (size_t)n : 0;
			if (used >= len)
				used = len - 1;
			p++;
		} else {
			buf[used++] = *p;
			buf[used] = '\0';
		}
	}
}

/* Adds one step to the trail (ex may be NULL). The values to substitute for
 * each {} in tmpl follow as doubles. */
static void step(struct ridge_explain *ex, const char *label, const char *tag, const char *formula, const char *unit,
		 double value, const char *tmpl, ...)
{
	if (!ex)
		return;
	if (ex->count >= RIDGE_EXPLAIN_MAX) {
		ex->dropped++;
		return;
	}
	struct ridge_explain_step *s = &ex->steps[ex->count++];
	if (tag && *tag)
		snprintf(s->label, sizeof s->label, "%s (%s)", label, tag);
	else
		snprintf(s->label, sizeof s->label, "%s", label);
	snprintf(s->formula, sizeof s->formula, "%s", formula);
	snprintf(s->unit, sizeof s->unit, "%s", unit);
	s->value = value;
	va_list ap;
	va_start(ap, tmpl);
	substitute(s->substituted, sizeof s->substituted, tmpl, ap);
	va_end(ap);
}

/* Inputs must be finite; results that overflow are reported by name. */
static int check_finite(double v, const char *what, char *err, size_t err_len)
{
	if (!isfinite(v))
		return model_fail(err, err_len, "overflow: %s is too large to represent", what);
	return 0;
}

static bool positive(double v)
{
	return isfinite(v) && v > 0;
}

/* An input under the name its message gives it. */
struct named_input {
	const char *name;
	double v;
};

/* 0, or -1 with "NAME must be greater than 0" for the first input that is not. */
static int require_positive(const struct named_input *inputs, size_t count, char *err, size_t err_len)
{
	for (size_t i = 0; i < count; i++)
		if (!positive(inputs[i].v))
			return model_fail(err, err_len, "%s must be greater than 0", inputs[i].name);
	return 0;
}

/* ---- storage types ---- */

static const struct {
	const char *name;
	double bytes;
} storage_types[] = {
	{ "fp32", 4 }, { "bf16", 2 }, { "fp16", 2 }, { "fp8", 1 }, { "int8", 1 }, { "int4", 0.5 }, { "fp4", 0.5 },
};

bool cost_storage_bytes(const char *name, double *bytes)
{
	int i = model_row_index(storage_types, sizeof storage_types / sizeof storage_types[0], sizeof storage_types[0],
				name);
	if (i < 0)
		return false;
	*bytes = storage_types[i].bytes;
	return true;
}

const char *cost_storage_list(void)
{
	return "fp32 bf16 fp16 fp8 int8 int4 fp4";
}

/* ---- model shape ---- */

int cost_model_params(const struct ridge_model_shape *m, double *params, struct ridge_explain *ex, char *err,
		      size_t err_len)
{
	/* The symbols of the formulas; the messages give their config keys. */
	double h = m->hidden, ff = m->intermediate, L = m->layers, H = m->heads, n_kv = m->kv_heads, d = m->head_dim,
	       V = m->vocab;
	const struct named_input dims[] = {
		{ "hidden_size", h },         { "intermediate_size", ff },     { "num_hidden_layers", L },
		{ "num_attention_heads", H }, { "num_key_value_heads", n_kv }, { "head_dim", d },
		{ "vocab_size", V },
	};
	if (require_positive(dims, sizeof dims / sizeof dims[0], err, err_len))
		return -1;
	double q = H * d, kv = n_kv * d;
	double attention = h * q + 2 * h * kv + q * h;
	step(ex, "attention weights per layer", NULL, "h*(H*d) + 2*h*(n_kv*d) + (H*d)*h", "", attention,
	     "{}*{} + 2*{}*{} + {}*{}", h, q, h, kv, q, h);
	double mlp = 3 * h * ff;
	step(ex, "MLP weights per layer", NULL, "3*h*ff (gate, up, down)", "", mlp, "3*{}*{}", h, ff);
	double layer = attention + mlp + 2 * h;
	step(ex, "parameters per layer", NULL, "attention + MLP + 2 norms", "", layer, "{} + {} + 2*{}", attention, mlp,
	     h);
	double embeddings = (m->tied_embeddings ? 1 : 2) * V * h;
	step(ex, "embedding + LM head", NULL, m->tied_embeddings ? "V*h (tied)" : "2*V*h", "", embeddings,
	     m->tied_embeddings ? "{}*{}" : "2*{}*{}", V, h);
	double total = L * layer + embeddings + h;
	step(ex, "parameters", NULL, "L*layer + embeddings + final norm", "", total, "{}*{} + {} + {}", L, layer,
	     embeddings, h);
	if (check_finite(total, "the parameter count", err, err_len))
		return -1;
	*params = total;
	return 0;
}

/* ---- training ---- */

/* flops_ex receives the FLOP-count steps (NULL when a comparison has already
 * explained them: they do not depend on MFU). */
static int train(const struct ridge_train_input *in, struct ridge_train_result *out, struct ridge_explain *flops_ex,
		 struct ridge_explain *ex, const char *tag, char *err, size_t err_len)
{
	memset(out, 0, sizeof *out);
	if (!positive(in->params))
		return model_fail(err, err_len, "params must be greater than 0");
	if (!positive(in->seq) || !positive(in->batch))
		return model_fail(err, err_len, "seq and batch must be greater than 0");
	if (!positive(in->steps))
		return model_fail(err, err_len, "steps must be greater than 0");
	if (!positive(in->gpus))
		return model_fail(err, err_len, "gpus must be greater than 0");
	if (!positive(in->peak_flops))
		return model_fail(err, err_len, "the peak rate must be greater than 0");
	if (!(isfinite(in->mfu) && in->mfu > 0 && in->mfu <= 1))
		return model_fail(err, err_len, "MFU must be in (0, 1], not %g", in->mfu);
	if (!(isfinite(in->price_usd_per_gpu_hour) && in->price_usd_per_gpu_hour >= 0))
		return model_fail(err, err_len, "the price must not be negative");

	out->mfu = in->mfu;
	double n = in->params;
	if (in->formula == RIDGE_FLOPS_PALM) {
		if (!positive(in->layers) || !positive(in->heads) || !positive(in->head_dim))
			return model_fail(err, err_len,
					  "the PaLM formula needs layers, heads and head_dim greater than 0");
		double factor = in->causal ? 6 : 12;
		out->attention_flops_per_token = factor * in->layers * in->heads * in->head_dim * in->seq;
		step(flops_ex, "attention FLOPs per token", NULL,
		     in->causal ? "6*L*n_heads*d_head*s (12, halved: causal)" : "12*L*n_heads*d_head*s", "FLOP",
		     out->attention_flops_per_token, "{}*{}*{}*{}*{}", factor, in->layers, in->heads, in->head_dim,
		     in->seq);
		out->flops_per_token = 6 * n + out->attention_flops_per_token;
		step(flops_ex, "FLOPs per token", NULL, "6*N + attention", "FLOP", out->flops_per_token, "6*{} + {}", n,
		     out->attention_flops_per_token);
	} else {
		out->flops_per_token = 6 * n;
		step(flops_ex, "FLOPs per token", NULL, "6*N", "FLOP", out->flops_per_token, "6*{}", n);
	}
	out->tokens_per_step = in->seq * in->batch;
	step(flops_ex, "tokens per step", NULL, "seq * batch", "", out->tokens_per_step, "{}*{}", in->seq, in->batch);
	out->flops_per_step = out->flops_per_token * out->tokens_per_step;
	step(flops_ex, "FLOPs per step", NULL, "FLOPs per token * tokens per step", "FLOP", out->flops_per_step,
	     "{}*{}", out->flops_per_token, out->tokens_per_step);
	if (check_finite(out->flops_per_step, "the FLOPs per step (params x seq x batch)", err, err_len))
		return -1;

	out->achieved_flops_per_gpu = in->peak_flops * in->mfu;
	step(ex, "achieved FLOP/s per GPU", tag, "peak * MFU", "FLOP/s", out->achieved_flops_per_gpu, "{}*{}",
	     in->peak_flops, in->mfu);
	out->cluster_flops = in->gpus * out->achieved_flops_per_gpu;
	step(ex, "cluster FLOP/s", tag, "n_gpu * peak * MFU", "FLOP/s", out->cluster_flops, "{}*{}", in->gpus,
	     out->achieved_flops_per_gpu);
	if (check_finite(out->cluster_flops, "the cluster rate (gpus x peak)", err, err_len))
		return -1;
	out->step_time_s = out->flops_per_step / out->cluster_flops;
	step(ex, "step time", tag, "F_step / (n_gpu * peak * MFU)", "s", out->step_time_s, "{} / {}",
	     out->flops_per_step, out->cluster_flops);
	out->wall_s = in->steps * out->step_time_s;
	step(ex, "wall time", tag, "steps * step time", "s", out->wall_s, "{}*{}", in->steps, out->step_time_s);
	out->wall_hours = out->wall_s / 3600;
	step(ex, "wall hours", tag, "wall time / 3600", "h", out->wall_hours, "{} / 3600", out->wall_s);
	out->gpu_hours = in->gpus * out->wall_hours;
	step(ex, "GPU-hours", tag, "n_gpu * wall hours", "GPU-h", out->gpu_hours, "{}*{}", in->gpus, out->wall_hours);
	out->cost_usd = out->gpu_hours * in->price_usd_per_gpu_hour;
	step(ex, "cost", tag, "GPU-hours * price", "USD", out->cost_usd, "{}*{}", out->gpu_hours,
	     in->price_usd_per_gpu_hour);
	out->cost_per_step_usd = out->cost_usd / in->steps;
	if (check_finite(out->wall_s, "the wall time (steps x step time)", err, err_len) ||
	    check_finite(out->cost_usd, "the cost (GPU-hours x price)", err, err_len))
		return -1;
	return 0;
}

int cost_train(const struct ridge_train_input *in, struct ridge_train_result *out, struct ridge_explain *ex,
	       const char *tag, char *err, size_t err_len)
{
	return train(in, out, ex, ex, tag, err, err_len);
}

int cost_train_compare(const struct ridge_train_input *in, double target_mfu, bool has_investment,
		       double investment_usd, struct ridge_train_comparison *out, struct ridge_explain *ex, char *err,
		       size_t err_len)
{
	memset(out, 0, sizeof *out);
	if (!(isfinite(target_mfu) && target_mfu > 0 && target_mfu <= 1))
		return model_fail(err, err_len, "target MFU must be in (0, 1], not %g", target_mfu);
	if (has_investment && !positive(investment_usd))
		return model_fail(err, err_len, "the investment must be greater than 0");
	if (train(in, &out->current, ex, ex, "current", err, err_len))
		return -1;
	struct ridge_train_input target = *in;
	target.mfu = target_mfu;
	if (train(&target, &out->target, NULL, ex, "target", err, err_len))
		return -1;
	out->savings_usd = out->current.cost_usd - out->target.cost_usd;
	step(ex, "savings", NULL, "cost(current) - cost(target) = cost(current)*(1 - m1/m2)", "USD", out->savings_usd,
	     "{} - {}", out->current.cost_usd, out->target.cost_usd);
	out->savings_fraction = out->current.cost_usd > 0 ? out->savings_usd / out->current.cost_usd : 0;
	out->speedup = out->current.step_time_s / out->target.step_time_s;
	step(ex, "speedup", NULL, "step time(current) / step time(target) = m2/m1", "x", out->speedup, "{} / {}",
	     out->current.step_time_s, out->target.step_time_s);
	if (!has_investment)
		return 0;
	out->has_investment = true;
	out->investment_usd = investment_usd;
	out->roi_net = (out->savings_usd - investment_usd) / investment_usd;
	step(ex, "net ROI", NULL, "(savings - I) / I", "x", out->roi_net, "({} - {}) / {}", out->savings_usd,
	     investment_usd, investment_usd);
	out->roi_gross = out->savings_usd / investment_usd;
	step(ex, "gross ROI", NULL, "savings / I", "x", out->roi_gross, "{} / {}", out->savings_usd, investment_usd);
	out->saving_per_step_usd = out->savings_usd / in->steps;
	step(ex, "saving per step", NULL, "savings / steps", "USD", out->saving_per_step_usd, "{} / {}",
	     out->savings_usd, in->steps);
	out->breaks_even = out->saving_per_step_usd > 0;
	out->break_even_step = out->breaks_even ? investment_usd / out->saving_per_step_usd : INFINITY;
	if (out->breaks_even)
		step(ex, "break-even step", NULL, "I / saving per step", "step", out->break_even_step, "{} / {}",
		     investment_usd, out->saving_per_step_usd);
	return 0;
}

static double round_to(double v, double quantum)
{
	return quantum > 0 ? round(v / quantum) * quantum : v;
}

int cost_train_rounded(const struct ridge_train_input *in, const struct ridge_train_comparison *exact,
		       double step_quantum_s, double hours_quantum, struct ridge_train_rounded *out, char *err,
		       size_t err_len)
{
	memset(out, 0, sizeof *out);
	if (!(isfinite(step_quantum_s) && step_quantum_s >= 0) || !(isfinite(hours_quantum) && hours_quantum >= 0))
		return model_fail(err, err_len, "rounding quanta must be finite and not negative");
	const struct ridge_train_result *r[2] = { &exact->current, &exact->target };
	double *step_s[2] = { &out->step_time_s, &out->target_step_time_s };
	double *hours[2] = { &out->wall_hours, &out->target_wall_hours };
	double *cost[2] = { &out->cost_usd, &out->target_cost_usd };
	for (int i = 0; i < 2; i++) {
		*step_s[i] = round_to(r[i]->step_time_s, step_quantum_s);
		*hours[i] = round_to(in->steps * *step_s[i] / 3600, hours_quantum);
		*cost[i] = *hours[i] * in->gpus * in->price_usd_per_gpu_hour;
	}
	out->savings_usd = out->cost_usd - out->target_cost_usd;
	if (exact->has_investment)
		out->roi_net = (out->savings_usd - exact->investment_usd) / exact->investment_usd;
	out->cost_drift_usd = out->cost_usd - exact->current.cost_usd;
	out->target_cost_drift_usd = out->target_cost_usd - exact->target.cost_usd;
	out->savings_drift_usd = out->savings_usd - exact->savings_usd;
	return 0;
}

/* ---- inference decode ---- */

const char *cost_bound_name(enum ridge_bound bound)
{
	return bound == RIDGE_BOUND_COMPUTE ? "compute" : "memory";
}

int cost_decode(const struct ridge_decode_input *in, struct ridge_decode_result *out, struct ridge_explain *ex,
		char *err, size_t err_len)
{
	memset(out, 0, sizeof *out);
	const struct named_input need[] = {
		{ "params", in->params },     { "layers", in->layers },
		{ "kv_heads", in->kv_heads }, { "head_dim", in->head_dim },
		{ "context", in->context },   { "batch", in->batch },
		{ "gpus", in->gpus },         { "weight bytes", in->weight_bytes },
		{ "kv bytes", in->kv_bytes }, { "bandwidth", in->bandwidth },
		{ "peak", in->peak_flops },
	};
	if (require_positive(need, sizeof need / sizeof need[0], err, err_len))
		return -1;
	if (!(isfinite(in->price_usd_per_gpu_hour) && in->price_usd_per_gpu_hour >= 0))
		return model_fail(err, err_len, "the price must not be negative");
	if (!(isfinite(in->overhead_s) && in->overhead_s >= 0))
		return model_fail(err, err_len, "the per-step overhead must not be negative");
	if (!(isfinite(in->memory_bytes) && in->memory_bytes >= 0))
		return model_fail(err, err_len, "the memory capacity must not be negative");

	out->kv_bytes_per_token = 2 * in->layers * in->kv_heads * in->head_dim * in->kv_bytes;
	step(ex, "KV bytes per token", NULL, "2 * L * n_kv * d_head * bytes(kv)", "B", out->kv_bytes_per_token,
	     "2*{}*{}*{}*{}", in->layers, in->kv_heads, in->head_dim, in->kv_bytes);
	out->weight_bytes = in->params * in->weight_bytes;
	step(ex, "weight bytes", NULL, "N * bytes(weights)", "B", out->weight_bytes, "{}*{}", in->params,
	     in->weight_bytes);
	/* Tensor parallelism splits the cache by whole heads: each GPU holds
	 * max(ceil(n_kv / G), 1) of them, so past G = n_kv the cache is
	 * replicated (8 KV heads on 16 GPUs: every head twice). */
	out->kv_heads_per_gpu = workload_kv_heads_per_gpu(in->kv_heads, in->gpus);
	step(ex, "KV heads per GPU", NULL, "max(ceil(n_kv / n_gpu), 1)", "", out->kv_heads_per_gpu,
	     "max(ceil({} / {}), 1)", in->kv_heads, in->gpus);
	out->kv_replication = in->gpus * out->kv_heads_per_gpu / in->kv_heads;
	out->kv_bytes = in->batch * in->context * out->kv_bytes_per_token * out->kv_replication;
	step(ex, "KV cache bytes read", NULL, "batch * context * KV bytes per token * n_gpu * heads per GPU / n_kv",
	     "B", out->kv_bytes, "{}*{}*{}*{}*{}/{}", in->batch, in->context, out->kv_bytes_per_token, in->gpus,
	     out->kv_heads_per_gpu, in->kv_heads);
	out->bytes_per_step = out->weight_bytes + out->kv_bytes;
	step(ex, "bytes per step", NULL, "weights + KV cache", "B", out->bytes_per_step, "{} + {}", out->weight_bytes,
	     out->kv_bytes);
	out->flops_per_step = 2 * in->params * in->batch;
	step(ex, "FLOPs per step", NULL, "2 * N * batch", "FLOP", out->flops_per_step, "2*{}*{}", in->params,
	     in->batch);
	if (check_finite(out->bytes_per_step, "the bytes per step", err, err_len) ||
	    check_finite(out->flops_per_step, "the FLOPs per step", err, err_len))
		return -1;
	out->intensity = out->flops_per_step / out->bytes_per_step;
	out->ridge_point = in->peak_flops / in->bandwidth;
	double bandwidth = in->gpus * in->bandwidth, peak = in->gpus * in->peak_flops;
	out->memory_time_s = out->bytes_per_step / bandwidth;
	step(ex, "memory time", NULL, "bytes / (n_gpu * bandwidth)", "s", out->memory_time_s, "{} / ({}*{})",
	     out->bytes_per_step, in->gpus, in->bandwidth);
	out->compute_time_s = out->flops_per_step / peak;
	step(ex, "compute time", NULL, "FLOPs / (n_gpu * peak)", "s", out->compute_time_s, "{} / ({}*{})",
	     out->flops_per_step, in->gpus, in->peak_flops);
	out->bound = out->compute_time_s > out->memory_time_s ? RIDGE_BOUND_COMPUTE : RIDGE_BOUND_MEMORY;
	double floor_s = fmax(out->memory_time_s, out->compute_time_s);
	out->tpot_s = floor_s + in->overhead_s;
	step(ex, "TPOT", NULL, "max(memory, compute) + overhead", "s", out->tpot_s, "max({}, {}) + {}",
	     out->memory_time_s, out->compute_time_s, in->overhead_s);
	out->tokens_per_s = in->batch / out->tpot_s;
	step(ex, "tokens per second", NULL, "batch / TPOT", "token/s", out->tokens_per_s, "{} / {}", in->batch,
	     out->tpot_s);
	out->usd_per_million_tokens = in->gpus * in->price_usd_per_gpu_hour / (3600 * out->tokens_per_s) * 1e6;
	step(ex, "USD per million tokens", NULL, "n_gpu * price / (3600 * tokens/s) * 1e6", "USD",
	     out->usd_per_million_tokens, "{}*{} / (3600*{}) * 1e6", in->gpus, in->price_usd_per_gpu_hour,
	     out->tokens_per_s);

	out->memory_required = out->weight_bytes + out->kv_bytes;
	out->memory_available = in->gpus * in->memory_bytes;
	out->fits = in->memory_bytes == 0 || out->memory_required <= out->memory_available;
	/* Compute reaches memory time when 2 N B / P = (W + B C k) / BW, i.e.
	 * B = (W / BW) / (2 N / P - C k / BW); none when the KV term grows at
	 * least as fast as the compute term. */
	double per_request_compute = 2 * in->params / peak;
	double per_request_memory = in->context * out->kv_bytes_per_token * out->kv_replication / bandwidth;
	if (per_request_compute > per_request_memory) {
		out->has_crossover = true;
		out->crossover_batch = (out->weight_bytes / bandwidth) / (per_request_compute - per_request_memory);
	}
	return 0;
}

/* ---- investment ranking ---- */

int cost_rank(const struct ridge_fleet *fleet, const struct ridge_project *projects, int n,
	      struct ridge_project_result *results, struct ridge_explain *ex, char *err, size_t err_len)
{
	if (n < 1)
		return model_fail(err, err_len, "no projects to rank");
	if (!positive(fleet->budget_usd_per_month))
		return model_fail(err, err_len, "the budget must be greater than 0");
	if (!(fleet->training_share >= 0 && fleet->inference_share >= 0 &&
	      fleet->training_share + fleet->inference_share <= 1 + 1e-12))
		return model_fail(err, err_len,
				  "training and inference shares must be fractions adding up to at most 1");
	if (!(isfinite(fleet->horizon_months) && fleet->horizon_months > 0))
		return model_fail(err, err_len, "the horizon must be greater than 0");
	for (int i = 0; i < n; i++) {
		const struct ridge_project *p = &projects[i];
		struct ridge_project_result *r = &results[i];
		memset(r, 0, sizeof *r);
		r->index = i;
		if (!(p->applies_to > 0 && p->applies_to <= 1))
			return model_fail(err, err_len, "project '%s': applies_to must be in (0, 1]", p->name);
		if (!(isfinite(p->ready_after_months) && p->ready_after_months >= 0))
			return model_fail(err, err_len, "project '%s': ready_after_months must not be negative",
					  p->name);
		if (p->has_cost) {
			if (!positive(p->cost_usd))
				return model_fail(err, err_len, "project '%s': the cost must be greater than 0",
						  p->name);
			r->engineering_usd = p->cost_usd;
			step(ex, "engineering cost", p->name, "given", "USD", r->engineering_usd, "{}", p->cost_usd);
		} else {
			if (!positive(p->engineer_weeks) || !positive(fleet->engineer_usd_per_hour) ||
			    !positive(fleet->hours_per_week))
				return model_fail(
					err, err_len,
					"project '%s': needs engineer weeks (or months) and an hourly cost greater than 0",
					p->name);
			r->engineering_usd = p->engineer_weeks * fleet->hours_per_week * fleet->engineer_usd_per_hour;
			step(ex, "engineering cost", p->name, "engineer-weeks * hours/week * USD/hour", "USD",
			     r->engineering_usd, "{}*{}*{}", p->engineer_weeks, fleet->hours_per_week,
			     fleet->engineer_usd_per_hour);
		}
		if (p->kind == RIDGE_PROJECT_MFU) {
			if (!(fleet->baseline_mfu > 0 && fleet->baseline_mfu <= 1))
				return model_fail(err, err_len, "the baseline MFU must be in (0, 1]");
			if (!(p->mfu_gain > 0))
				return model_fail(err, err_len, "project '%s': the MFU gain must be greater than 0",
						  p->name);
			r->target_mfu = fleet->baseline_mfu + p->mfu_gain;
			if (r->target_mfu > 1)
				return model_fail(err, err_len, "project '%s': baseline MFU %g + gain %g exceeds 1",
						  p->name, fleet->baseline_mfu, p->mfu_gain);
			r->spend_per_month = fleet->budget_usd_per_month * fleet->training_share;
			step(ex, "training spend per month", p->name, "budget * training share", "USD",
			     r->spend_per_month, "{}*{}", fleet->budget_usd_per_month, fleet->training_share);
			/* The same training work at a higher MFU needs m0/m1 of the GPU time. */
			r->saving_fraction = (1 - fleet->baseline_mfu / r->target_mfu) * p->applies_to;
			step(ex, "saving fraction", p->name, "(1 - m0/(m0 + gain)) * applies_to", "",
			     r->saving_fraction, "(1 - {}/{}) * {}", fleet->baseline_mfu, r->target_mfu, p->applies_to);
		} else {
			if (!(p->tpot_reduction > 0 && p->tpot_reduction < 1))
				return model_fail(err, err_len, "project '%s': the TPOT reduction must be in (0, 1)",
						  p->name);
			r->spend_per_month = fleet->budget_usd_per_month * fleet->inference_share;
			step(ex, "inference spend per month", p->name, "budget * inference share", "USD",
			     r->spend_per_month, "{}*{}", fleet->budget_usd_per_month, fleet->inference_share);
			/* The same tokens at a TPOT (1 - r) as long need (1 - r) of the GPU time. */
			r->saving_fraction = p->tpot_reduction * p->applies_to;
			step(ex, "saving fraction", p->name, "TPOT reduction * applies_to", "", r->saving_fraction,
			     "{}*{}", p->tpot_reduction, p->applies_to);
		}
		r->savings_per_month = r->spend_per_month * r->saving_fraction;
		step(ex, "savings per month", p->name, "spend * saving fraction", "USD", r->savings_per_month, "{}*{}",
		     r->spend_per_month, r->saving_fraction);
		r->months_saving = fmax(0, fleet->horizon_months - p->ready_after_months);
		r->horizon_savings = r->savings_per_month * r->months_saving;
		step(ex, "savings over the horizon", p->name, "savings per month * (horizon - ready after)", "USD",
		     r->horizon_savings, "{}*({} - {})", r->savings_per_month, fleet->horizon_months,
		     p->ready_after_months);
		r->net_usd = r->horizon_savings - r->engineering_usd;
		r->roi_net = r->net_usd / r->engineering_usd;
		step(ex, "net ROI", p->name, "(savings - cost) / cost", "x", r->roi_net, "({} - {}) / {}",
		     r->horizon_savings, r->engineering_usd, r->engineering_usd);
		r->roi_gross = r->horizon_savings / r->engineering_usd;
		r->payback_months = p->ready_after_months + r->engineering_usd / r->savings_per_month;
		step(ex, "payback", p->name, "ready after + cost / savings per month", "months", r->payback_months,
		     "{} + {} / {}", p->ready_after_months, r->engineering_usd, r->savings_per_month);
		if (check_finite(r->horizon_savings, "the savings", err, err_len) ||
		    check_finite(r->roi_net, "the ROI", err, err_len))
			return -1;
	}
	/* Insertion sort by net ROI, stable: n is a handful of projects. */
	for (int i = 1; i < n; i++) {
		struct ridge_project_result key = results[i];
		int j = i - 1;
		while (j >= 0 && results[j].roi_net < key.roi_net) {
			results[j + 1] = results[j];
			j--;
		}
		results[j + 1] = key;
	}
	for (int i = 0; i < n; i++)
		results[i].rank = i + 1;
	return 0;
}
