/* The cost calculators: ridge cost train | decode | prefill | rank on the
 * cost models of model/cost.h (the scenario item kinds cost-train,
 * cost-decode, cost-prefill and rank), the peak lookup and the training
 * run's sequence the TUI's cost panel shares. */
#include "cost_calc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app.h"
#include "calc.h"
#include "cost.h"
#include "eval.h"
#include "json_fields.h"
#include "parallel.h"
#include "cost_model_calc.h"
#include "cost_internal.h"

int cost_peak_lookup(const struct ridge_gpu *gpu, enum ridge_dtype dtype, double given, struct cost_peak *out)
{
	memset(out, 0, sizeof *out);
	out->has_hwdb = ridge_gpu_peak(gpu, dtype, RIDGE_PEAK_DEFAULT, false, &out->hwdb_peak, &out->why);
	if (given > 0) {
		out->peak = given;
		out->source = "given";
	} else if (out->has_hwdb) {
		out->peak = out->hwdb_peak;
		out->source = gpu->measured ? "measured" : "hwdb";
	} else {
		return -1;
	}
	return 0;
}

int cost_train_run(const struct ridge_train_input *in, bool has_target, double target_mfu, bool has_investment,
		   double investment_usd, struct ridge_train_comparison *c, struct ridge_explain *ex, char *err,
		   size_t err_len)
{
	memset(c, 0, sizeof *c);
	if (!has_target)
		return cost_train(in, &c->current, ex, NULL, err, err_len);
	return cost_train_compare(in, target_mfu, has_investment, investment_usd, c, ex, err, err_len);
}

/* ---- shared pieces ---- */

/* The dtype's dense peak from hwdb, or the --peak override. */
int cost_resolve_peak(struct calc_input *in, const char *dtype_param, double *peak, cJSON *o)
{
	const struct param_values *v = in->values;
	const char *name = params_text(v, dtype_param);
	enum ridge_dtype dtype = RIDGE_BF16;
	if (name && !ridge_dtype_parse(name, &dtype))
		return calc_fail(in, "%s: unknown dtype '%s' (known: %s)", params_where(v, dtype_param), name,
				 ridge_dtype_list());
	struct cost_peak pk;
	int found = cost_peak_lookup(in->gpu, dtype, params_has(v, "peak") ? params_num(v, "peak") : 0, &pk);
	cJSON_AddStringToObject(o, dtype_param, ridge_dtype_name(dtype));
	if (pk.has_hwdb)
		json_number(o, "hwdb_peak_flops", pk.hwdb_peak);
	if (found != 0)
		return calc_fail(in, "%s has no %s rate (%s): give %s", in->gpu->id, ridge_dtype_name(dtype), pk.why,
				 params_where(v, "peak"));
	*peak = pk.peak;
	cJSON_AddStringToObject(o, "peak_source", pk.source);
	json_number(o, "peak_flops", *peak);
	return 0;
}

int cost_resolve_price(struct calc_input *in, double *price, cJSON *o)
{
	const struct param_values *v = in->values;
	if (params_has(v, "price")) {
		*price = params_num(v, "price");
		cJSON_AddStringToObject(o, "price_source", "given");
	} else if (in->gpu->has_price) {
		*price = in->gpu->price_usd_per_hour;
		cJSON_AddStringToObject(o, "price_source", "hwdb");
	} else {
		return calc_fail(in, "no price: give %s (USD per GPU-hour); %s has none in hwdb",
				 params_where(v, "price"), in->gpu->id);
	}
	json_number(o, "price_usd_per_gpu_hour", *price);
	return 0;
}

cJSON *cost_explain_json(const struct ridge_explain *ex)
{
	cJSON *array = cJSON_CreateArray();
	for (int i = 0; i < ex->count; i++) {
		const struct ridge_explain_step *s = &ex->steps[i];
		cJSON *o = cJSON_CreateObject();
		static const struct json_field explain_step_fields[] = {
			JSON_FIELDS(struct ridge_explain_step, label, formula, substituted, value, unit),
		};
		json_put_fields(o, s, explain_step_fields, JSON_FIELD_COUNT(explain_step_fields));
		cJSON_AddItemToArray(array, o);
	}
	return array;
}

void cost_print_explain(FILE *out, const cJSON *r)
{
	const cJSON *steps = cJSON_GetObjectItemCaseSensitive(r, "explain");
	if (!cJSON_IsArray(steps))
		return;
	fprintf(out, "\nExplain: every step, unrounded (values are the exact doubles, shortest form)\n");
	int n = 0;
	const cJSON *s;
	cJSON_ArrayForEach (s, steps) {
		char exact[48], grouped[64];
		double value = calc_num(s, "value");
		cost_format_exact(value, exact, sizeof exact);
		fprintf(out, "  %2d. %s = %s\n", ++n, calc_str(s, "label"), calc_str(s, "formula"));
		fprintf(out, "        = %s\n", calc_str(s, "substituted"));
		if (value == floor(value) && fabs(value) >= 10000 && fabs(value) < 1e21) {
			fmt_grouped(value, 0, grouped, sizeof grouped);
			fprintf(out, "        = %s %s  (%s)\n", grouped, calc_str(s, "unit"), exact);
		} else {
			fprintf(out, "        = %s %s\n", exact, calc_str(s, "unit"));
		}
	}
}

/* ---- cost train ---- */

static const struct param train_params[] = {
	{ "params", PARAM_NUMBER, RIDGE_UNIT_COUNT, NULL, 0, INFINITY, PARAM_REQUIRED | PARAM_MODEL | PARAM_OPEN_LO,
	  "N", "model parameters (70e9, 70G)", "greater than 0", NULL },
	{ "seq", PARAM_INTEGER, 0, NULL, 1, 1e12, PARAM_REQUIRED, "S", "tokens per sequence", NULL, NULL },
	{ "batch", PARAM_INTEGER, 0, NULL, 1, 1e15, PARAM_REQUIRED, "B", "sequences per step (global batch)", NULL,
	  NULL },
	{ "steps", PARAM_INTEGER, 0, NULL, 1, 1e18, PARAM_REQUIRED, "K", "optimizer steps", NULL, NULL },
	{ "gpus", PARAM_INTEGER, 0, NULL, 1, 1e9, PARAM_REQUIRED, "G", "GPUs", NULL, NULL },
	{ "mfu", PARAM_FRACTION, 0, NULL, 0, 1, PARAM_OPEN_LO, "M",
	  "model FLOPs utilization: 0.4 or 40% (required unless --compute-efficiency predicts it)", "0 < MFU <= 1",
	  NULL },
	{ "target_mfu", PARAM_FRACTION, 0, NULL, 0, 1, PARAM_OPEN_LO, "M2",
	  "compare with the run at this MFU (may be lower)", "0 < MFU <= 1", NULL },
	PRICE_PARAM("USD per GPU-hour (default: the GPU's hwdb price)"),
	{ "investment", PARAM_NUMBER, RIDGE_UNIT_USD, NULL, 0, INFINITY, PARAM_OPEN_LO, "USD",
	  "engineering cost of the MFU gain: ROI and break-even step", "greater than 0 USD", NULL },
	{ "flops_formula", PARAM_TEXT, 0, NULL, 0, 0, 0, "6n|palm", "FLOPs per token: 6N (default) or 6N + 12 L H d s",
	  NULL, NULL },
	{ "layers", PARAM_INTEGER, 0, NULL, 1, 1e6, PARAM_MODEL, "L", "layers (palm)", NULL, NULL },
	{ "heads", PARAM_INTEGER, 0, NULL, 1, 1e6, PARAM_MODEL, "H", "attention heads (palm)", NULL, NULL },
	{ "head_dim", PARAM_INTEGER, 0, NULL, 1, 1e6, PARAM_MODEL, "D", "head dimension (palm)", NULL, NULL },
	{ "causal", PARAM_FLAG, 0, NULL, 0, 0, 0, NULL, "palm: halve the attention term (causal mask)", NULL, NULL },
	{ "peak", PARAM_NUMBER, RIDGE_UNIT_FLOPS, NULL, 0, INFINITY, PARAM_OPEN_LO, "FLOPS",
	  "peak per GPU instead of hwdb's (989T: the book's H100 figure)", "greater than 0", NULL },
	{ "dtype", PARAM_TEXT, 0, NULL, 0, 0, 0, "DT", "dtype whose hwdb peak is used", NULL, "bf16" },
	{ "show_rounding", PARAM_FLAG, 0, NULL, 0, 0, 0, NULL,
	  "also do it as a hand calculation does: step time to 0.1 s, hours to 1 h, and show the drift", NULL, NULL },
	/* parallelism: any of these adds the communication and memory terms (model/parallel.h) */
	{ "tp", PARAM_INTEGER, 0, NULL, 1, 1e6, 0, "T", "tensor-parallel GPUs", NULL, "1" },
	{ "pp", PARAM_INTEGER, 0, NULL, 1, 1e6, 0, "P", "pipeline stages", NULL, "1" },
	{ "micro_batch", PARAM_INTEGER, 0, NULL, 1, 1e9, 0, "B", "sequences per micro-batch", NULL, "1" },
	{ "hidden_size", PARAM_INTEGER, 0, NULL, 1, 1e7, PARAM_MODEL, "H", "hidden size (TP/PP messages, activations)",
	  NULL, NULL },
	{ "sharding", PARAM_TEXT, 0, NULL, 0, 0, 0, "S",
	  "data-parallel sharding: ddp (default), zero1, zero2, zero3|fsdp", NULL, NULL },
	{ "recompute", PARAM_TEXT, 0, NULL, 0, 0, 0, "R", "activation recomputation: none, selective (default), full",
	  NULL, NULL },
	{ "dp_overlap", PARAM_FRACTION, 0, NULL, 0, 1, 0, "F",
	  "share of the gradient communication hidden under compute (default 0)", NULL, NULL },
	{ "tp_overlap", PARAM_FRACTION, 0, NULL, 0, 1, 0, "F", "share of the tensor-parallel all-reduces hidden", NULL,
	  "0" },
	{ "compute_efficiency", PARAM_FRACTION, 0, NULL, 0, 1, PARAM_OPEN_LO, "E",
	  "fraction of peak the kernels reach: predicts the step and the MFU", "0 < E <= 1", NULL },
	{ "network_bw", PARAM_NUMBER, RIDGE_UNIT_BYTES_PER_S, NULL, 0, 1e15, PARAM_OPEN_LO, "B/s",
	  "network bandwidth per GPU, one direction, between nodes (50GB/s: 400 Gb/s)", "greater than 0", NULL },
	EXPLAIN_PARAM,
	CALC_GPU_PARAMS,
	CALC_JSON_PARAM,
};

static const char *const parallel_flags[] = { "tp",        "pp",         "micro_batch", "sharding",
					      "recompute", "dp_overlap", "tp_overlap",  "compute_efficiency",
					      "network_bw" };

static bool parallel_asked(const struct param_values *v)
{
	for (size_t i = 0; i < sizeof parallel_flags / sizeof parallel_flags[0]; i++)
		if (params_has(v, parallel_flags[i]))
			return true;
	return false;
}

static void json_comm_term(cJSON *o, const char *key, const struct ridge_comm_result *r, double count, double total_s)
{
	cJSON *t = cJSON_AddObjectToObject(o, key);
	calc_json_comm(t, r);
	json_number(t, "count", count);
	json_number(t, "total_s", total_s);
}

/* The parallel terms of a training step: with --compute-efficiency they
 * predict the MFU (returned in *mfu); with only --mfu they say what the kernels
 * must reach for it. */
static int train_parallel(struct calc_input *in, const struct ridge_train_input *ti, double flops_per_step, cJSON *o,
			  double *mfu)
{
	const struct param_values *v = in->values;
	struct ridge_parallel_input pi = {
		.params = ti->params,
		.seq = ti->seq,
		.batch = ti->batch,
		.gpus = ti->gpus,
		.flops_per_step = flops_per_step,
		.peak_flops = ti->peak_flops,
		.compute_efficiency = params_has(v, "compute_efficiency") ? params_num(v, "compute_efficiency") : 1,
		.tp = params_has(v, "tp") ? params_num(v, "tp") : 1,
		.pp = params_has(v, "pp") ? params_num(v, "pp") : 1,
		.micro_batch = params_has(v, "micro_batch") ? params_num(v, "micro_batch") : 1,
		.hidden = params_has(v, "hidden_size") ? params_num(v, "hidden_size") : 0,
		.layers = params_has(v, "layers") ? params_num(v, "layers") : 0,
		.heads = params_has(v, "heads") ? params_num(v, "heads") : 0,
		.recompute = RIDGE_RECOMPUTE_SELECTIVE,
		.dp_overlap = params_has(v, "dp_overlap") ? params_num(v, "dp_overlap") : 0,
		.tp_overlap = params_has(v, "tp_overlap") ? params_num(v, "tp_overlap") : 0,
		.memory_bytes = ridge_gpu_usable_memory(in->gpu),
		.network_bandwidth = params_has(v, "network_bw") ? params_num(v, "network_bw") : 0,
	};
	const char *sharding = params_text(v, "sharding"), *recompute = params_text(v, "recompute");
	if (sharding && !parallel_sharding_parse(sharding, &pi.sharding))
		return calc_fail(in, "%s: unknown sharding '%s' (known: ddp, zero1, zero2, zero3, fsdp)",
				 params_where(v, "sharding"), sharding);
	if (recompute && !parallel_recompute_parse(recompute, &pi.recompute))
		return calc_fail(in, "%s: unknown recomputation '%s' (known: none, selective, full)",
				 params_where(v, "recompute"), recompute);
	struct ridge_parallel_result r;
	char err[400];
	if (parallel_train(in->gpu, &pi, &r, err, sizeof err) != 0) {
		if (strstr(err, "network bandwidth"))
			return calc_fail(in, "%s: give %s", err, params_where(v, "network_bw"));
		if (strstr(err, "hidden size"))
			return calc_fail(in, "%s: give %s and %s", err, params_where(v, "hidden_size"),
					 params_where(v, "layers"));
		return calc_fail(in, "%s", err);
	}
	cJSON *p = cJSON_AddObjectToObject(o, "parallel");
	json_number(p, "tp", pi.tp);
	json_number(p, "pp", pi.pp);
	json_number(p, "dp", r.dp);
	json_number(p, "micro_batch", pi.micro_batch);
	json_number(p, "micro_batches", r.micro_batches);
	cJSON_AddStringToObject(p, "sharding", parallel_sharding_name(pi.sharding));
	json_number(p, "dp_overlap", pi.dp_overlap);
	json_number(p, "tp_overlap", pi.tp_overlap);
	if (r.has_tp)
		json_comm_term(p, "tp_allreduce", &r.tp.one, r.tp.allreduces, r.tp.time_s);
	if (r.has_pp)
		json_comm_term(p, "pp_send_recv", &r.pp.one, r.pp.transfers, r.pp.time_s);
	if (r.has_dp) {
		json_comm_term(p, pi.sharding == RIDGE_SHARD_DDP ? "dp_allreduce" : "dp_reduce_scatter", &r.dp_reduce,
			       1, r.dp_reduce.time_s);
		if (pi.sharding != RIDGE_SHARD_DDP)
			json_comm_term(p, "dp_allgather", &r.dp_gather, r.dp_gathers,
				       r.dp_gathers * r.dp_gather.time_s);
	}
	json_number(p, "bubble_fraction", r.bubble_fraction);
	json_number(p, "tp_comm_s", r.tp.time_s);
	static const struct json_field parallel_result_fields[] = {
		JSON_FIELDS(struct ridge_parallel_result, tp_exposed_s),
		JSON_FIELD_AS(struct ridge_parallel_result, "pp_comm_s", pp_s),
		JSON_FIELDS(struct ridge_parallel_result, dp_comm_s, dp_exposed_s, comm_s, exposed_comm_s),
	};
	json_put_fields(p, &r, parallel_result_fields, JSON_FIELD_COUNT(parallel_result_fields));
	if (params_has(v, "compute_efficiency")) {
		json_number(p, "compute_efficiency", pi.compute_efficiency);
		json_number(p, "compute_s", r.compute_s);
		json_number(p, "bubble_s", r.bubble_s);
		json_number(p, "step_time_s", r.step_s);
		json_number(p, "predicted_mfu", r.mfu);
		json_number(p, "comm_share", r.exposed_comm_s / r.step_s);
		*mfu = r.mfu;
	} else {
		/* step = compute (1 + (pp-1)/m) + exposed comm, at the assumed MFU */
		double step = flops_per_step / (ti->gpus * ti->peak_flops * ti->mfu);
		double kernel_time = step - r.exposed_comm_s;
		if (!(kernel_time > 0))
			return calc_fail(in,
					 "at MFU %g the step (%g s) is shorter than its exposed communication (%g s)",
					 ti->mfu, step, r.exposed_comm_s);
		double compute = kernel_time / (1 + (pi.pp - 1) / r.micro_batches);
		json_number(p, "step_time_s", step);
		json_number(p, "compute_s", compute);
		json_number(p, "bubble_s", kernel_time - compute);
		json_number(p, "implied_compute_efficiency", flops_per_step / (ti->gpus * ti->peak_flops * compute));
		json_number(p, "comm_share", r.exposed_comm_s / step);
		*mfu = ti->mfu;
	}
	cJSON *m = cJSON_AddObjectToObject(p, "memory");
	json_number(m, "weights_bytes", r.weight_bytes);
	json_number(m, "grads_bytes", r.grad_bytes);
	json_number(m, "optimizer_bytes", r.optimizer_bytes);
	if (r.has_activations) {
		cJSON_AddStringToObject(m, "recompute", parallel_recompute_name(pi.recompute));
		json_number(m, "activation_per_layer_bytes", r.activation_per_layer_bytes);
		json_number(m, "activations_bytes", r.activation_bytes);
	} else {
		cJSON_AddNullToObject(m, "activations_bytes");
	}
	json_number(m, "required_bytes", r.memory_required);
	json_number(m, "available_bytes", pi.memory_bytes);
	cJSON_AddBoolToObject(m, "fits", r.fits);
	return 0;
}

static const struct json_field train_fields[] = {
	JSON_FIELDS(struct ridge_train_result, mfu, flops_per_token, attention_flops_per_token, tokens_per_step,
		    flops_per_step, achieved_flops_per_gpu, cluster_flops, step_time_s, wall_s, wall_hours, gpu_hours,
		    cost_usd, cost_per_step_usd),
};

void calc_json_train(cJSON *o, const struct ridge_train_result *r)
{
	json_put_fields(o, r, train_fields, JSON_FIELD_COUNT(train_fields));
}

static const struct json_field savings_fields[] = {
	JSON_FIELDS(struct ridge_train_comparison, savings_usd, savings_fraction, speedup),
};
static const struct json_field investment_fields[] = {
	JSON_FIELDS(struct ridge_train_comparison, investment_usd, roi_net, roi_gross, saving_per_step_usd),
};

void calc_json_train_comparison(cJSON *o, const struct ridge_train_comparison *c)
{
	calc_json_train(o, &c->current);
	calc_json_train(cJSON_AddObjectToObject(o, "target"), &c->target);
	json_put_fields(o, c, savings_fields, JSON_FIELD_COUNT(savings_fields));
	if (!c->has_investment)
		return;
	json_put_fields(o, c, investment_fields, JSON_FIELD_COUNT(investment_fields));
	if (c->breaks_even)
		json_number(o, "break_even_step", c->break_even_step);
	else
		cJSON_AddNullToObject(o, "break_even_step");
}

static cJSON *train_run(struct calc_input *in)
{
	const struct param_values *v = in->values;
	struct ridge_train_input ti = { 0 };
	cJSON *o = cJSON_CreateObject();
	calc_json_gpu(o, in->gpu);
	if (cost_resolve_peak(in, "dtype", &ti.peak_flops, o) != 0 ||
	    cost_resolve_price(in, &ti.price_usd_per_gpu_hour, o) != 0)
		goto bad;
	static const struct json_field train_inputs[] = {
		JSON_FIELDS(struct ridge_train_input, params, seq, batch, steps, gpus),
	};
	params_read_fields(v, &ti, train_inputs, JSON_FIELD_COUNT(train_inputs));
	const char *formula = params_text(v, "flops_formula");
	if (!formula || strcasecmp(formula, "6n") == 0) {
		ti.formula = RIDGE_FLOPS_6N;
	} else if (strcasecmp(formula, "palm") == 0) {
		ti.formula = RIDGE_FLOPS_PALM;
		static const char *const need[] = { "layers", "heads", "head_dim" };
		for (int i = 0; i < 3; i++)
			if (!params_has(v, need[i])) {
				calc_fail(in, "%s palm needs %s", params_where(v, "flops_formula"),
					  params_where(v, need[i]));
				goto bad;
			}
		ti.layers = params_num(v, "layers");
		ti.heads = params_num(v, "heads");
		ti.head_dim = params_num(v, "head_dim");
		ti.causal = params_flag(v, "causal");
	} else {
		calc_fail(in, "%s: unknown formula '%s' (known: 6n, palm)", params_where(v, "flops_formula"), formula);
		goto bad;
	}
	bool has_target = params_has(v, "target_mfu"), has_investment = params_has(v, "investment");
	if (has_investment && !has_target) {
		calc_fail(in, "%s needs %s (the savings come from the MFU gain)", params_where(v, "investment"),
			  params_where(v, "target_mfu"));
		goto bad;
	}
	if (params_flag(v, "show_rounding") && !has_target) {
		calc_fail(in, "%s needs %s", params_where(v, "show_rounding"), params_where(v, "target_mfu"));
		goto bad;
	}
	cJSON_AddStringToObject(o, "flops_formula", ti.formula == RIDGE_FLOPS_PALM ? "palm" : "6n");
	static const struct json_field train_input_fields[] = {
		JSON_FIELDS(struct ridge_train_input, causal, params, seq, batch, steps, gpus),
	};
	json_put_fields(o, &ti, train_input_fields, JSON_FIELD_COUNT(train_input_fields));
	if (!params_has(v, "mfu") && !params_has(v, "compute_efficiency")) {
		calc_fail(in, "%s is required (or %s to predict the MFU)", params_where(v, "mfu"),
			  params_where(v, "compute_efficiency"));
		goto bad;
	}
	ti.mfu = params_has(v, "mfu") ? params_num(v, "mfu") : 1;
	if (parallel_asked(v)) {
		/* the FLOPs per step do not depend on MFU: one run at the assumed (or a placeholder) MFU gives them */
		struct ridge_train_result flops;
		char ferr[400];
		if (cost_train(&ti, &flops, NULL, NULL, ferr, sizeof ferr) != 0) {
			calc_fail(in, "%s", ferr);
			goto bad;
		}
		if (train_parallel(in, &ti, flops.flops_per_step, o, &ti.mfu) != 0)
			goto bad;
		cJSON_AddStringToObject(o, "mfu_source", params_has(v, "compute_efficiency") ? "predicted" : "given");
	}

	struct ridge_explain *ex = params_flag(v, "explain") ? calloc(1, sizeof *ex) : NULL;
	char err[400];
	struct ridge_train_comparison c;
	if (cost_train_run(&ti, has_target, has_target ? params_num(v, "target_mfu") : 0, has_investment,
			   has_investment ? params_num(v, "investment") : 0, &c, ex, err, sizeof err) != 0) {
		calc_fail(in, "%s", err);
		free(ex);
		goto bad;
	}
	if (!has_target) {
		calc_json_train(o, &c.current);
	} else {
		calc_json_train_comparison(o, &c);
		if (params_flag(v, "show_rounding")) {
			struct ridge_train_rounded rr;
			if (cost_train_rounded(&ti, &c, 0.1, 1, &rr, err, sizeof err) != 0) {
				calc_fail(in, "%s", err);
				free(ex);
				goto bad;
			}
			cJSON *ro = cJSON_AddObjectToObject(o, "rounded");
			json_number(ro, "step_quantum_s", 0.1);
			json_number(ro, "hours_quantum", 1);
			static const struct json_field train_rounded_fields[] = {
				JSON_FIELDS(struct ridge_train_rounded, step_time_s, wall_hours, cost_usd,
					    target_step_time_s, target_wall_hours, target_cost_usd, savings_usd),
			};
			json_put_fields(ro, &rr, train_rounded_fields, JSON_FIELD_COUNT(train_rounded_fields));
			if (c.has_investment)
				json_number(ro, "roi_net", rr.roi_net);
			json_number(ro, "cost_drift_usd", rr.cost_drift_usd);
			json_number(ro, "target_cost_drift_usd", rr.target_cost_drift_usd);
			json_number(ro, "savings_drift_usd", rr.savings_drift_usd);
		}
	}
	if (ex) {
		cJSON_AddItemToObject(o, "explain", cost_explain_json(ex));
		free(ex);
	}
	return o;
bad:
	cJSON_Delete(o);
	return NULL;
}

static void print_comm_term(FILE *out, const cJSON *p, const char *key, const char *label, double overlap)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(p, key);
	if (!t)
		return;
	char a[32], b[32], c[32], d[32];
	fmt_bytes(calc_num(t, "bytes"), a, sizeof a);
	fmt_seconds(calc_num(t, "time_s"), b, sizeof b);
	fmt_seconds(calc_num(t, "total_s"), c, sizeof c);
	fmt_seconds(calc_num(t, "total_s") * (1 - overlap), d, sizeof d);
	fprintf(out, "  %-18s %6.0f x %s of %s on %.0f GPUs (%s, %s) = %s, exposed %s\n", label, calc_num(t, "count"),
		calc_str(t, "op"), a, calc_num(t, "gpus"), calc_str(t, "algorithm"), b, c, d);
}

/* The communication and memory terms of a parallel step (model/parallel.h). */
static void print_parallel(FILE *out, const cJSON *r)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(r, "parallel");
	if (!p)
		return;
	char a[32], b[32], c[32], d[32];
	fprintf(out, "\n  Parallel: TP %.0f x PP %.0f x DP %.0f, %.0f micro-batches of %.0f per pipeline, %s\n",
		calc_num(p, "tp"), calc_num(p, "pp"), calc_num(p, "dp"), calc_num(p, "micro_batches"),
		calc_num(p, "micro_batch"), calc_str(p, "sharding"));
	print_comm_term(out, p, "tp_allreduce", "tensor parallel", calc_num(p, "tp_overlap"));
	print_comm_term(out, p, "pp_send_recv", "pipeline", 0);
	print_comm_term(out, p, "dp_allreduce", "gradients", calc_num(p, "dp_overlap"));
	print_comm_term(out, p, "dp_reduce_scatter", "gradients", calc_num(p, "dp_overlap"));
	print_comm_term(out, p, "dp_allgather", "weights", calc_num(p, "dp_overlap"));
	fmt_seconds(calc_num(p, "compute_s"), a, sizeof a);
	fmt_seconds(calc_num(p, "bubble_s"), b, sizeof b);
	fmt_seconds(calc_num(p, "exposed_comm_s"), c, sizeof c);
	fmt_seconds(calc_num(p, "step_time_s"), d, sizeof d);
	char share[32];
	fmt_percent(calc_num(p, "comm_share"), share, sizeof share);
	fprintf(out, "  step = compute %s + bubble %s + exposed communication %s = %s (communication %s of the step)\n",
		a, b, c, d, share);
	if (calc_has(p, "predicted_mfu")) {
		fmt_percent(calc_num(p, "compute_efficiency"), a, sizeof a);
		fmt_percent(calc_num(p, "predicted_mfu"), b, sizeof b);
		fprintf(out, "  kernels at %s of peak -> predicted MFU %s (used for the cost)\n", a, b);
	} else {
		fmt_percent(calc_num(p, "implied_compute_efficiency"), a, sizeof a);
		fmt_percent(calc_num(r, "mfu"), b, sizeof b);
		fprintf(out, "  for MFU %s the kernels must reach %s of peak\n", b, a);
	}
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(p, "memory");
	struct calc_text text = { 0 };
	fprintf(out, "  memory per GPU: weights %s + grads %s + optimizer %s",
		calc_text_bytes(&text, m, "weights_bytes"), calc_text_bytes(&text, m, "grads_bytes"),
		calc_text_bytes(&text, m, "optimizer_bytes"));
	if (calc_has(m, "activations_bytes"))
		fprintf(out, " + activations %s (recompute %s)", calc_text_bytes(&text, m, "activations_bytes"),
			calc_str(m, "recompute"));
	else
		fprintf(out, " (activations: give --hidden-size and --layers)");
	fprintf(out, " = %s of %s: %s\n", calc_text_bytes(&text, m, "required_bytes"),
		calc_text_bytes(&text, m, "available_bytes"),
		cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "fits")) ? "fits" : "DOES NOT FIT");
}

static void train_print(FILE *out, const cJSON *r)
{
	char a[64], b[64], c[64], d[64];
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(r, "target");
	fmt_si(calc_num(r, "peak_flops"), "FLOP/s", a, sizeof a);
	fprintf(out, "Training cost: %.0f x %s at %s each", calc_num(r, "gpus"), calc_str(r, "gpu"), a);
	if (strcmp(calc_str(r, "peak_source"), "given") == 0) {
		if (calc_has(r, "hwdb_peak_flops")) {
			fmt_si(calc_num(r, "hwdb_peak_flops"), "FLOP/s", b, sizeof b);
			fprintf(out, " (given; hwdb %s dense: %s)", calc_str(r, "dtype"), b);
		} else {
			fprintf(out, " (given)");
		}
	} else {
		fprintf(out, " (%s %s dense, %s)",
			strcmp(calc_str(r, "peak_source"), "measured") == 0 ? "measured" : "hwdb", calc_str(r, "dtype"),
			strcmp(calc_str(r, "ceilings"), "measured") == 0 ? "calibration" : "spec sheet");
	}
	fmt_usd(calc_num(r, "price_usd_per_gpu_hour"), c, sizeof c);
	fprintf(out, ", %s per GPU-hour%s\n", c, strcmp(calc_str(r, "price_source"), "hwdb") == 0 ? " (hwdb)" : "");

	fmt_grouped(calc_num(r, "flops_per_step"), 0, a, sizeof a);
	fmt_grouped(calc_num(r, "steps"), 0, b, sizeof b);
	cost_format_exact(calc_num(r, "params"), d, sizeof d);
	fprintf(out, "  N = %s parameters, seq %.0f x batch %.0f, %s steps; FLOPs per step (%s) = %s\n", d,
		calc_num(r, "seq"), calc_num(r, "batch"), b,
		strcmp(calc_str(r, "flops_formula"), "palm") == 0 ? "6N + attention" : "6N", a);

	fprintf(out, "\n  %-22s %24s", "", "current");
	if (t)
		fprintf(out, " %24s", "target");
	fprintf(out, "\n");
	struct {
		const char *label, *key;
		int kind; /* 0 percent, 1 seconds, 2 hours, 3 usd, 4 count, 5 GPU-hours */
	} rows[] = {
		{ "MFU", "mfu", 0 },
		{ "step time", "step_time_s", 1 },
		{ "wall hours", "wall_hours", 2 },
		{ "GPU-hours", "gpu_hours", 5 },
		{ "cost", "cost_usd", 3 },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const cJSON *objs[2] = { r, t };
		fprintf(out, "  %-22s", rows[i].label);
		for (int j = 0; j < (t ? 2 : 1); j++) {
			double x = calc_num(objs[j], rows[i].key);
			if (rows[i].kind == 0)
				fmt_percent(x, a, sizeof a);
			else if (rows[i].kind == 1)
				/* %f of a huge time would be cut off by the buffer: a wrong number. */
				snprintf(a, sizeof a, fabs(x) < 1e9 ? "%.6f s" : "%.6g s", x);
			else if (rows[i].kind == 2)
				fmt_grouped(x, 2, a, sizeof a);
			else if (rows[i].kind == 5)
				fmt_gpu_hours(x, a, sizeof a);
			else
				fmt_usd(x, a, sizeof a);
			fprintf(out, " %24s", a);
		}
		fprintf(out, "\n");
	}
	if (t) {
		fmt_usd(calc_num(r, "savings_usd"), a, sizeof a);
		fmt_percent(calc_num(r, "savings_fraction"), b, sizeof b);
		fprintf(out, "\n  %s: %s (%s of the cost), %.6gx the speed\n",
			calc_num(r, "savings_usd") >= 0 ? "savings" : "LOSS", a, b, calc_num(r, "speedup"));
	}
	if (calc_has(r, "investment_usd")) {
		fmt_usd(calc_num(r, "investment_usd"), a, sizeof a);
		fmt_roi(calc_num(r, "roi_net"), b, sizeof b);
		fmt_roi(calc_num(r, "roi_gross"), c, sizeof c);
		fprintf(out, "  investment %s: net ROI %s, gross ROI %s, ", a, b, c);
		if (calc_has(r, "break_even_step")) {
			fmt_grouped(calc_num(r, "break_even_step"), 1, b, sizeof b);
			fmt_grouped(calc_num(r, "steps"), 0, c, sizeof c);
			fprintf(out, "break-even at step %s of %s\n", b, c);
		} else {
			fprintf(out, "never breaks even (the target saves nothing)\n");
		}
	}
	print_parallel(out, r);
	const cJSON *ro = cJSON_GetObjectItemCaseSensitive(r, "rounded");
	if (ro) {
		fprintf(out,
			"\n  Rounded the way a hand calculation does (step time to 0.1 s, hours to whole hours):\n");
		fprintf(out, "    current: %.1f s/step -> %s h -> ", calc_num(ro, "step_time_s"),
			(fmt_grouped(calc_num(ro, "wall_hours"), 0, a, sizeof a), a));
		fmt_usd(calc_num(ro, "cost_usd"), b, sizeof b);
		fmt_usd(calc_num(ro, "cost_drift_usd"), c, sizeof c);
		fprintf(out, "%s (drift %s)\n", b, c);
		fprintf(out, "    target:  %.1f s/step -> %s h -> ", calc_num(ro, "target_step_time_s"),
			(fmt_grouped(calc_num(ro, "target_wall_hours"), 0, a, sizeof a), a));
		fmt_usd(calc_num(ro, "target_cost_usd"), b, sizeof b);
		fmt_usd(calc_num(ro, "target_cost_drift_usd"), c, sizeof c);
		fprintf(out, "%s (drift %s)\n", b, c);
		fmt_usd(calc_num(ro, "savings_usd"), b, sizeof b);
		fmt_usd(calc_num(ro, "savings_drift_usd"), c, sizeof c);
		fprintf(out, "    savings: %s (drift %s)", b, c);
		if (calc_has(ro, "roi_net")) {
			fmt_roi(calc_num(ro, "roi_net"), c, sizeof c);
			fprintf(out, ", net ROI %s", c);
		}
		fprintf(out, "\n");
	}
	cost_print_explain(out, r);
}

const struct calc calc_cost_train = {
	.name = "cost-train",
	.command = "cost train",
	.synopsis = "usage: ridge cost train --params N --seq S --batch B --steps K --gpus G --mfu M --price USD\n"
		    "                        [--target-mfu M2] [--investment USD] [--flops-formula 6n|palm]\n"
		    "                        [--layers L --heads H --head-dim D] [--peak FLOPS] [--explain] [--json]",
	.description = "Training cost from MFU: FLOPs per step = 6N x seq x batch (or the PaLM form), step time =\n"
		       "F / (GPUs x peak x MFU), GPU-hours and dollars. With --target-mfu: the same run at that MFU\n"
		       "and the savings; with --investment: net and gross ROI and the break-even step. Nothing is\n"
		       "rounded; --explain prints every intermediate with its formula.\n",
	CALC_IMPL(train_params, train_run, train_print),
};
