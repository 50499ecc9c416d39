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
#include "kernel_time.h"
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
int cost_resolve_peak(struct calc_input *in, int dtype_param, int peak_param, double *peak, cJSON *o)
{
	const struct param_values *v = in->values;
	const char *name = params_text(v, dtype_param);
	enum ridge_dtype dtype = RIDGE_BF16;
	if (name && !ridge_dtype_parse(name, &dtype))
		return calc_fail(in, "%s: unknown dtype '%s' (known: %s)", params_where(v, dtype_param), name,
				 ridge_dtype_list());
	struct cost_peak pk;
	int found = cost_peak_lookup(in->gpu, dtype, params_has(v, peak_param) ? params_num(v, peak_param) : 0, &pk);
	cJSON_AddStringToObject(o, v->spec[dtype_param].name, ridge_dtype_name(dtype));
	if (pk.has_hwdb)
		json_number(o, "hwdb_peak_flops", pk.hwdb_peak);
	if (found != 0)
		return calc_fail(in, "%s has no %s rate (%s): give %s", in->gpu->id, ridge_dtype_name(dtype), pk.why,
				 params_where(v, peak_param));
	*peak = pk.peak;
	cJSON_AddStringToObject(o, "peak_source", pk.source);
	json_number(o, "peak_flops", *peak);
	return 0;
}

int cost_resolve_price(struct calc_input *in, int price_param, double *price, cJSON *o)
{
	const struct param_values *v = in->values;
	if (params_has(v, price_param)) {
		*price = params_num(v, price_param);
		cJSON_AddStringToObject(o, "price_source", "given");
	} else if (in->gpu->has_price) {
		*price = in->gpu->price_usd_per_hour;
		cJSON_AddStringToObject(o, "price_source", "hwdb");
	} else {
		return calc_fail(in, "no price: give %s (USD per GPU-hour); %s has none in hwdb",
				 params_where(v, price_param), in->gpu->id);
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

#define TRAIN_PARAMS(X)                                                                                                \
	X(TRAIN_NPARAMS,                                                                                               \
	  PARAM_NUM("params", RIDGE_UNIT_COUNT, 0, INFINITY, .flags = PARAM_REQUIRED | PARAM_MODEL | PARAM_OPEN_LO,    \
		    .metavar = "N", .help = "model parameters (70e9, 70G)", .range = "greater than 0"))                \
	X(TRAIN_SEQ, PARAM_INT("seq", 1, PARAM_TOKENS_MAX, .flags = PARAM_REQUIRED, .metavar = "S",                    \
			       .help = "tokens per sequence"))                                                         \
	X(TRAIN_BATCH, PARAM_INT("batch", 1, 1e15, .flags = PARAM_REQUIRED, .metavar = "B",                            \
				 .help = "sequences per step (global batch)"))                                         \
	X(TRAIN_STEPS,                                                                                                 \
	  PARAM_INT("steps", 1, 1e18, .flags = PARAM_REQUIRED, .metavar = "K", .help = "optimizer steps"))             \
	X(TRAIN_GPUS, PARAM_INT("gpus", 1, PARAM_BATCH_MAX, .flags = PARAM_REQUIRED, .metavar = "G", .help = "GPUs"))  \
	X(TRAIN_MFU, PARAM_FRAC("mfu", 0, 1, .flags = PARAM_OPEN_LO, .metavar = "M",                                   \
				.help = "model FLOPs utilization: 0.4 or 40% (required unless "                        \
					"--compute-efficiency predicts it)",                                           \
				.range = "0 < MFU <= 1"))                                                              \
	X(TRAIN_TARGET_MFU,                                                                                            \
	  PARAM_FRAC("target_mfu", 0, 1, .flags = PARAM_OPEN_LO, .metavar = "M2",                                      \
		     .help = "compare with the run at this MFU (may be lower)", .range = "0 < MFU <= 1"))              \
	X(TRAIN_PRICE, PRICE_ROW("USD per GPU-hour (default: the GPU's hwdb price)"))                                  \
	X(TRAIN_INVESTMENT,                                                                                            \
	  PARAM_NUM("investment", RIDGE_UNIT_USD, 0, INFINITY, .flags = PARAM_OPEN_LO, .metavar = "USD",               \
		    .help = "engineering cost of the MFU gain: ROI and break-even step",                               \
		    .range = "greater than 0 USD"))                                                                    \
	X(TRAIN_FLOPS_FORMULA, PARAM_TEXT_ROW("flops_formula", .metavar = "6n|palm",                                   \
					      .help = "FLOPs per token: 6N (default) or 6N + 12 L H d s"))             \
	X(TRAIN_LAYERS,                                                                                                \
	  PARAM_INT("layers", 1, PARAM_COUNT_MAX, .flags = PARAM_MODEL, .metavar = "L", .help = "layers (palm)"))      \
	X(TRAIN_HEADS, PARAM_INT("heads", 1, PARAM_COUNT_MAX, .flags = PARAM_MODEL, .metavar = "H",                    \
				 .help = "attention heads (palm)"))                                                    \
	X(TRAIN_HEAD_DIM, PARAM_INT("head_dim", 1, PARAM_COUNT_MAX, .flags = PARAM_MODEL, .metavar = "D",              \
				    .help = "head dimension (palm)"))                                                  \
	X(TRAIN_CAUSAL, PARAM_FLAG_ROW("causal", .help = "palm: halve the attention term (causal mask)"))              \
	X(TRAIN_PEAK, PARAM_NUM("peak", RIDGE_UNIT_FLOPS, 0, INFINITY, .flags = PARAM_OPEN_LO, .metavar = "FLOPS",     \
				.help = "peak per GPU instead of hwdb's (989T: the book's H100 figure)",               \
				.range = "greater than 0"))                                                            \
	X(TRAIN_DTYPE,                                                                                                 \
	  PARAM_TEXT_ROW("dtype", .metavar = "DT", .help = "dtype whose hwdb peak is used", .def = "bf16"))            \
	X(TRAIN_SHOW_ROUNDING,                                                                                         \
	  PARAM_FLAG_ROW("show_rounding",                                                                              \
			 .help = "also do it as a hand calculation does: step time to 0.1 s, hours to 1 "              \
				 "h, and show the drift"))                                                             \
	X(TRAIN_TP, PARAM_INT("tp", 1, PARAM_COUNT_MAX, .metavar = "T", .help = "tensor-parallel GPUs", .def = "1"))   \
	X(TRAIN_PP, PARAM_INT("pp", 1, PARAM_COUNT_MAX, .metavar = "P", .help = "pipeline stages", .def = "1"))        \
	X(TRAIN_MICRO_BATCH, PARAM_INT("micro_batch", 1, PARAM_BATCH_MAX, .metavar = "B",                              \
				       .help = "sequences per micro-batch", .def = "1"))                               \
	X(TRAIN_HIDDEN_SIZE, PARAM_INT("hidden_size", 1, 1e7, .flags = PARAM_MODEL, .metavar = "H",                    \
				       .help = "hidden size (TP/PP messages, activations)"))                           \
	X(TRAIN_SHARDING, PARAM_TEXT_ROW("sharding", .metavar = "S",                                                   \
					 .help = "data-parallel sharding: ddp (default), zero1, zero2, zero3|fsdp"))   \
	X(TRAIN_RECOMPUTE, PARAM_TEXT_ROW("recompute", .metavar = "R",                                                 \
					  .help = "activation recomputation: none, selective (default), full"))        \
	X(TRAIN_DP_OVERLAP,                                                                                            \
	  PARAM_FRAC("dp_overlap", 0, 1, .metavar = "F",                                                               \
		     .help = "share of the gradient communication hidden under compute (default 0)"))                  \
	X(TRAIN_TP_OVERLAP, PARAM_FRAC("tp_overlap", 0, 1, .metavar = "F",                                             \
				       .help = "share of the tensor-parallel all-reduces hidden", .def = "0"))         \
	X(TRAIN_COMPUTE_EFFICIENCY,                                                                                    \
	  PARAM_FRAC("compute_efficiency", 0, 1, .flags = PARAM_OPEN_LO, .metavar = "E",                               \
		     .help = "fraction of peak the kernels reach: predicts the step and the MFU",                      \
		     .range = "0 < E <= 1"))                                                                           \
	X(TRAIN_EFFICIENCY,                                                                                            \
	  PARAM_TEXT_ROW("efficiency", .metavar = "gemm=F",                                                            \
			 .help = "what-if efficiency of the step's kernels (gemm=0.6), as --compute-efficiency"))      \
	X(TRAIN_NETWORK_BW, PARAM_NUM("network_bw", RIDGE_UNIT_BYTES_PER_S, 0, PARAM_NET_BW_MAX,                       \
				      .flags = PARAM_OPEN_LO, .metavar = "B/s",                                        \
				      .help = "network bandwidth per GPU, one direction, between nodes (default: the " \
					      "entry's NICs per GPU)",                                                 \
				      .range = "greater than 0"))                                                      \
	X(TRAIN_SEQUENCE_PARALLEL,                                                                                     \
	  PARAM_FLAG_ROW("sequence_parallel",                                                                          \
			 .help = "sequence parallelism (Korthikanti et al. 2022): activations 34 s b h / t, TP as "    \
				 "reduce-scatter + all-gather"))                                                       \
	X(TRAIN_CP, PARAM_INT("cp", 1, PARAM_COUNT_MAX, .metavar = "N",                                                \
			      .help = "context-parallel GPUs per sequence (ring attention)", .def = "1"))              \
	X(TRAIN_VIRTUAL_STAGES,                                                                                        \
	  PARAM_INT("virtual_stages", 1, PARAM_COUNT_MAX, .metavar = "V",                                              \
		    .help = "interleaved 1F1B: model chunks per stage (bubble / V)", .def = "1"))                      \
	X(TRAIN_NO_SCATTER_GATHER,                                                                                     \
	  PARAM_FLAG_ROW("no_scatter_gather",                                                                          \
			 .help = "pipeline hand-offs whole on every TP rank (default: 1/tp each, then an "             \
				 "all-gather, as Megatron)"))                                                          \
	X(TRAIN_KV_HEADS, PARAM_INT("kv_heads", 1, PARAM_COUNT_MAX, .metavar = "H",                                    \
				    .help = "key/value heads: the K/V context parallelism moves (default: --heads)"))  \
	X(TRAIN_LAUNCH, PARAM_TEXT_ROW("launch", .metavar = "MODE",                                                    \
				       .help = "eager (default) or graph: how the step's collectives are launched"))   \
	X(TRAIN_EXPERTS, PARAM_INT("experts", 1, PARAM_COUNT_MAX, .flags = PARAM_MODEL, .metavar = "E",                \
				   .help = "MoE: routed experts per MoE layer (FLOPs from the active parameters)"))    \
	X(TRAIN_TOP_K, PARAM_INT("top_k", 1, PARAM_COUNT_MAX, .flags = PARAM_MODEL, .metavar = "K",                    \
				 .help = "MoE: routed experts per token"))                                             \
	X(TRAIN_EXPERT_PARAMS,                                                                                         \
	  PARAM_NUM("expert_params", RIDGE_UNIT_COUNT, 0, INFINITY, .flags = PARAM_MODEL | PARAM_OPEN_LO,              \
		    .metavar = "N", .help = "MoE: the routed experts' parameters, all layers (part of --params)",      \
		    .range = "greater than 0"))                                                                        \
	X(TRAIN_MOE_LAYERS, PARAM_INT("moe_layers", 1, PARAM_COUNT_MAX, .flags = PARAM_MODEL, .metavar = "L",          \
				      .help = "MoE: layers with routed experts (default: all)"))                       \
	X(TRAIN_EP, PARAM_INT("ep", 1, PARAM_COUNT_MAX, .metavar = "N",                                                \
			      .help = "expert-parallel GPUs (drawn from the data-parallel ranks)", .def = "1"))        \
	X(TRAIN_EP_OVERLAP, PARAM_FRAC("ep_overlap", 0, 1, .metavar = "F",                                             \
				       .help = "share of the expert all-to-alls hidden", .def = "0"))                  \
	X(TRAIN_EXPLAIN, EXPLAIN_ROW)                                                                                  \
	CALC_GPU_ROWS(X, TRAIN)                                                                                        \
	X(TRAIN_JSON, CALC_JSON_ROW)
PARAMS_TABLE(train_params, TRAIN_PARAMS);

/* Where the step's compute efficiency comes from: --compute-efficiency or
 * --efficiency gemm=F, both what-ifs; none: --mfu alone. */
struct train_efficiency {
	bool predicted; /* false: --mfu alone, nothing predicts the step */
	double value;
	enum ridge_provenance provenance;
	const char *source;
};

static int train_efficiency(struct calc_input *in, struct train_efficiency *e)
{
	const struct param_values *v = in->values;
	*e = (struct train_efficiency){ .provenance = RIDGE_PROVENANCE_WHAT_IF };
	if (params_has(v, TRAIN_COMPUTE_EFFICIENCY)) {
		*e = (struct train_efficiency){ true, params_num(v, TRAIN_COMPUTE_EFFICIENCY), RIDGE_PROVENANCE_WHAT_IF,
						"--compute-efficiency: a what-if" };
		return 0;
	}
	if (params_has(v, TRAIN_EFFICIENCY)) {
		struct ridge_timing_overrides o = { 0 };
		bool given = false;
		char err[300];
		if (calc_timing_overrides(v, TRAIN_EFFICIENCY, -1, &o, &given, err, sizeof err))
			return calc_fail(in, "%s", err);
		for (int c = 0; c < RIDGE_TIME_CLASS_COUNT; c++)
			if ((o.has_compute[c] || o.has_memory[c]) && c != RIDGE_TIME_GEMM)
				return calc_fail(in, "%s: the training step is priced by its GEMMs: only gemm applies",
						 params_where(v, TRAIN_EFFICIENCY));
		if (!o.has_compute[RIDGE_TIME_GEMM])
			return calc_fail(in, "%s: give gemm=F or gemm.compute=F", params_where(v, TRAIN_EFFICIENCY));
		*e = (struct train_efficiency){ true, o.compute[RIDGE_TIME_GEMM], RIDGE_PROVENANCE_WHAT_IF,
						"--efficiency: a what-if" };
		return 0;
	}
	/* Not the entry's gemm class: a training step is GEMMs, attention,
	 * norms, the optimizer and more; the GEMM efficiency alone would
	 * predict an MFU no training run reaches. --mfu or a what-if. */
	return 0;
}

static const int parallel_flags[] = { TRAIN_TP,
				      TRAIN_PP,
				      TRAIN_MICRO_BATCH,
				      TRAIN_SHARDING,
				      TRAIN_RECOMPUTE,
				      TRAIN_DP_OVERLAP,
				      TRAIN_TP_OVERLAP,
				      TRAIN_COMPUTE_EFFICIENCY,
				      TRAIN_NETWORK_BW,
				      TRAIN_SEQUENCE_PARALLEL,
				      TRAIN_CP,
				      TRAIN_VIRTUAL_STAGES,
				      TRAIN_NO_SCATTER_GATHER,
				      TRAIN_LAUNCH,
				      TRAIN_EXPERTS,
				      TRAIN_EP,
				      TRAIN_EP_OVERLAP };

static bool parallel_asked(const struct param_values *v)
{
	for (size_t i = 0; i < sizeof parallel_flags / sizeof parallel_flags[0]; i++)
		if (params_has(v, parallel_flags[i]))
			return true;
	return false;
}

/* The predicted step's range: its kernels (compute and the pipeline bubble,
 * all GEMM-priced) take the gemm class's band at the efficiency's
 * provenance; the exposed communication carries none. */
static void train_step_range(cJSON *p, const struct train_efficiency *eff, double kernels_s, double step_s)
{
	struct ridge_time_band band = { 0, 0, 0 };
	timing_band(RIDGE_TIME_GEMM, eff->provenance, &band);
	double range[2] = { step_s + kernels_s * band.low, step_s + kernels_s * band.high };
	kernel_time_range_json(p, range);
	cJSON *prov = cJSON_AddObjectToObject(p, "provenance");
	cJSON_AddStringToObject(prov, "prediction", ridge_provenance_name(eff->provenance));
	cJSON_AddStringToObject(prov, "compute_efficiency", ridge_provenance_name(eff->provenance));
}

static void json_comm_term(cJSON *o, const char *key, const struct ridge_comm_result *r, double count, double total_s)
{
	cJSON *t = cJSON_AddObjectToObject(o, key);
	calc_json_comm(t, r);
	json_number(t, "count", count);
	json_number(t, "total_s", total_s);
}

/* A mixture of experts' flags: all of --experts, --top-k and --expert-params,
 * or none (then no flag that needs them). active: what the FLOPs count. */
struct train_moe {
	bool on;
	double experts, top_k, expert_params, moe_layers, active_params;
};

static int train_moe_read(struct calc_input *in, double params, struct train_moe *m)
{
	const struct param_values *v = in->values;
	*m = (struct train_moe){ .active_params = params };
	if (!params_has(v, TRAIN_EXPERTS)) {
		static const int needs[] = { TRAIN_TOP_K, TRAIN_EXPERT_PARAMS, TRAIN_MOE_LAYERS, TRAIN_EP_OVERLAP };
		for (size_t i = 0; i < sizeof needs / sizeof needs[0]; i++)
			if (params_has(v, needs[i]))
				return calc_fail(in, "%s needs %s (a mixture of experts)", params_where(v, needs[i]),
						 params_where(v, TRAIN_EXPERTS));
		if (params_has(v, TRAIN_EP) && params_num(v, TRAIN_EP) > 1)
			return calc_fail(in, "%s: expert parallelism needs a mixture of experts: give %s, %s and %s",
					 params_where(v, TRAIN_EP), params_where(v, TRAIN_EXPERTS),
					 params_where(v, TRAIN_TOP_K), params_where(v, TRAIN_EXPERT_PARAMS));
		return 0;
	}
	static const int need[] = { TRAIN_TOP_K, TRAIN_EXPERT_PARAMS };
	for (int i = 0; i < 2; i++)
		if (!params_has(v, need[i]))
			return calc_fail(in, "%s needs %s", params_where(v, TRAIN_EXPERTS), params_where(v, need[i]));
	m->on = true;
	m->experts = params_num(v, TRAIN_EXPERTS);
	m->top_k = params_num(v, TRAIN_TOP_K);
	m->expert_params = params_num(v, TRAIN_EXPERT_PARAMS);
	m->moe_layers = params_has(v, TRAIN_MOE_LAYERS) ? params_num(v, TRAIN_MOE_LAYERS) : 0;
	if (m->top_k > m->experts)
		return calc_fail(in, "%s %g is more than the %g experts", params_where(v, TRAIN_TOP_K), m->top_k,
				 m->experts);
	if (m->expert_params >= params)
		return calc_fail(in, "%s %g must be part of %s %g", params_where(v, TRAIN_EXPERT_PARAMS),
				 m->expert_params, params_where(v, TRAIN_NPARAMS), params);
	/* each token runs top_k of the experts' parameters */
	m->active_params = params - m->expert_params * (1 - m->top_k / m->experts);
	return 0;
}

static void train_moe_json(cJSON *o, const struct train_moe *m)
{
	if (!m->on)
		return;
	cJSON *j = cJSON_AddObjectToObject(o, "moe");
	json_number(j, "experts", m->experts);
	json_number(j, "top_k", m->top_k);
	json_number(j, "expert_params", m->expert_params);
	if (m->moe_layers > 0)
		json_number(j, "moe_layers", m->moe_layers);
	json_number(j, "active_params", m->active_params);
}

/* Expert parallelism's terms: the all-to-alls and the experts' own gradient reduction. */
static void train_expert_json(cJSON *p, const struct ridge_parallel_input *pi, const struct ridge_parallel_result *r)
{
	if (pi->experts <= 0)
		return;
	json_number(p, "ep", r->ep);
	json_number(p, "ep_overlap", pi->ep_overlap);
	json_number(p, "expert_dp", r->expert_dp);
	if (r->has_ep) {
		json_comm_term(p, "ep_alltoall", &r->ep_comm.one, r->ep_comm.alltoalls, r->ep_comm.time_s);
		json_number(p, "ep_comm_s", r->ep_comm.time_s);
		json_number(p, "ep_exposed_s", r->ep_exposed_s);
	}
	if (r->dp_expert_reduce.gpus > 0) {
		json_comm_term(p, pi->sharding == RIDGE_SHARD_DDP ? "dp_expert_allreduce" : "dp_expert_reduce_scatter",
			       &r->dp_expert_reduce, r->dp_reduces, r->dp_reduces * r->dp_expert_reduce.time_s);
		if (pi->sharding != RIDGE_SHARD_DDP)
			json_comm_term(p, "dp_expert_allgather", &r->dp_expert_gather, r->dp_gathers,
				       r->dp_gathers * r->dp_expert_gather.time_s);
	}
}

/* What sequence, context and interleaved pipeline parallelism and recomputation add. */
static void train_parallel_scale_json(cJSON *p, const struct ridge_parallel_input *pi,
				      const struct ridge_parallel_result *r)
{
	json_number(p, "cp", r->cp);
	json_number(p, "virtual_stages", r->virtual_stages);
	cJSON_AddBoolToObject(p, "sequence_parallel", pi->sequence_parallel);
	cJSON_AddStringToObject(p, "recompute", parallel_recompute_name(pi->recompute));
	json_number(p, "recompute_flops", r->recompute_flops);
	if (r->has_tp && pi->sequence_parallel)
		json_comm_term(p, "tp_allgather", &r->tp_gather, r->tp.allreduces,
			       r->tp.allreduces * r->tp_gather.time_s);
	if (r->has_cp) {
		json_comm_term(p, "cp_allgather", &r->cp_gather, r->cp_collectives,
			       r->cp_collectives * r->cp_gather.time_s);
		json_comm_term(p, "cp_reduce_scatter", &r->cp_scatter, r->cp_collectives / 2,
			       r->cp_collectives / 2 * r->cp_scatter.time_s);
		json_number(p, "cp_comm_s", r->cp_comm_s);
		json_number(p, "cp_attention_s", r->cp_attention_s);
		json_number(p, "cp_exposed_s", r->cp_exposed_s);
	}
	if (r->has_pp) {
		cJSON_AddBoolToObject(p, "pp_scatter_gather", r->pp_scatter_gather);
		if (r->pp_gather.gpus > 0)
			json_comm_term(p, "pp_allgather", &r->pp_gather, r->pp.transfers,
				       r->pp.transfers * r->pp_gather.time_s);
	}
}

/* The memory per GPU of a parallel step (parallel.h). */
static void train_memory_json(cJSON *p, const struct ridge_parallel_input *pi, const struct ridge_parallel_result *r)
{
	cJSON *m = cJSON_AddObjectToObject(p, "memory");
	json_number(m, "weights_bytes", r->weight_bytes);
	json_number(m, "grads_bytes", r->grad_bytes);
	json_number(m, "optimizer_bytes", r->optimizer_bytes);
	if (pi->experts > 0)
		json_number(m, "expert_params_per_gpu", r->expert_params_per_gpu);
	if (r->has_activations) {
		cJSON_AddStringToObject(m, "recompute", parallel_recompute_name(pi->recompute));
		json_number(m, "activation_per_layer_bytes", r->activation_per_layer_bytes);
		json_number(m, "activations_bytes", r->activation_bytes);
		json_number(m, "stage_layers", r->stage_layers);
		json_number(m, "stage_micro_batches_in_flight", r->stage_micro_batches);
	} else {
		cJSON_AddNullToObject(m, "activations_bytes");
	}
	json_number(m, "required_bytes", r->memory_required);
	json_number(m, "available_bytes", pi->memory_bytes);
	cJSON_AddBoolToObject(m, "fits", r->fits);
}

/* parallel_train's refusal, naming the flag its first word names. */
static int train_parallel_fail(struct calc_input *in, const char *err)
{
	const struct param_values *v = in->values;
	static const struct {
		const char *prefix;
		int param;
	} named[] = { { "tp x cp x pp", TRAIN_GPUS },
		      { "tp ", TRAIN_TP },
		      { "pp ", TRAIN_PP },
		      { "cp ", TRAIN_CP },
		      { "virtual stages ", TRAIN_VIRTUAL_STAGES },
		      { "ep overlap", TRAIN_EP_OVERLAP },
		      { "ep ", TRAIN_EP },
		      { "a mixture of experts", TRAIN_EXPERTS },
		      { "moe layers", TRAIN_MOE_LAYERS } };
	if (strstr(err, "network bandwidth"))
		return calc_fail(in, "%s: give %s", err, params_where(v, TRAIN_NETWORK_BW));
	if (strstr(err, "hidden size"))
		return calc_fail(in, "%s: give %s and %s", err, params_where(v, TRAIN_HIDDEN_SIZE),
				 params_where(v, TRAIN_LAYERS));
	for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
		if (strncmp(err, named[i].prefix, strlen(named[i].prefix)) == 0)
			return calc_fail(in, "%s: %s", params_where(v, named[i].param), err);
	return calc_fail(in, "%s", err);
}

/* The parallel terms of a training step: with --compute-efficiency they
 * predict the MFU (returned in *mfu); with only --mfu they say what the kernels
 * must reach for it. */
static int train_parallel(struct calc_input *in, const struct ridge_train_input *ti, const struct train_efficiency *eff,
			  const struct train_moe *moe, double params, double flops_per_step, cJSON *o, double *mfu)
{
	const struct param_values *v = in->values;
	struct ridge_parallel_input pi = {
		.params = params,
		.seq = ti->seq,
		.batch = ti->batch,
		.gpus = ti->gpus,
		.flops_per_step = flops_per_step,
		.peak_flops = ti->peak_flops,
		.compute_efficiency = eff->predicted ? eff->value : 1,
		.tp = params_has(v, TRAIN_TP) ? params_num(v, TRAIN_TP) : 1,
		.pp = params_has(v, TRAIN_PP) ? params_num(v, TRAIN_PP) : 1,
		.micro_batch = params_has(v, TRAIN_MICRO_BATCH) ? params_num(v, TRAIN_MICRO_BATCH) : 1,
		.hidden = params_has(v, TRAIN_HIDDEN_SIZE) ? params_num(v, TRAIN_HIDDEN_SIZE) : 0,
		.layers = params_has(v, TRAIN_LAYERS) ? params_num(v, TRAIN_LAYERS) : 0,
		.heads = params_has(v, TRAIN_HEADS) ? params_num(v, TRAIN_HEADS) : 0,
		.recompute = RIDGE_RECOMPUTE_SELECTIVE,
		.dp_overlap = params_has(v, TRAIN_DP_OVERLAP) ? params_num(v, TRAIN_DP_OVERLAP) : 0,
		.tp_overlap = params_has(v, TRAIN_TP_OVERLAP) ? params_num(v, TRAIN_TP_OVERLAP) : 0,
		.memory_bytes = ridge_gpu_usable_memory(in->gpu),
		.network_bandwidth = params_has(v, TRAIN_NETWORK_BW) ? params_num(v, TRAIN_NETWORK_BW)
								     : comm_network_per_gpu(&in->gpu->ic),
		.cp = params_has(v, TRAIN_CP) ? params_num(v, TRAIN_CP) : 1,
		.virtual_stages = params_has(v, TRAIN_VIRTUAL_STAGES) ? params_num(v, TRAIN_VIRTUAL_STAGES) : 1,
		.sequence_parallel = params_flag(v, TRAIN_SEQUENCE_PARALLEL),
		.whole_handoffs = params_flag(v, TRAIN_NO_SCATTER_GATHER),
		.causal = params_flag(v, TRAIN_CAUSAL),
		.launch = RIDGE_COMM_LAUNCH_EAGER,
		.experts = moe->experts,
		.top_k = moe->top_k,
		.moe_layers = moe->moe_layers,
		.expert_params = moe->expert_params,
		.ep = params_has(v, TRAIN_EP) ? params_num(v, TRAIN_EP) : 1,
		.ep_overlap = params_has(v, TRAIN_EP_OVERLAP) ? params_num(v, TRAIN_EP_OVERLAP) : 0,
	};
	const char *launch = params_text(v, TRAIN_LAUNCH);
	if (launch && (!comm_launch_parse(launch, &pi.launch) || pi.launch == RIDGE_COMM_LAUNCH_DEVICE))
		return calc_fail(in, "%s: unknown launch mode '%s' (known: eager, graph)",
				 params_where(v, TRAIN_LAUNCH), launch);
	if (params_has(v, TRAIN_KV_HEADS) && pi.heads > 0)
		pi.kv_hidden = pi.hidden * params_num(v, TRAIN_KV_HEADS) / pi.heads;
	const char *sharding = params_text(v, TRAIN_SHARDING), *recompute = params_text(v, TRAIN_RECOMPUTE);
	if (sharding && !parallel_sharding_parse(sharding, &pi.sharding))
		return calc_fail(in, "%s: unknown sharding '%s' (known: ddp, zero1, zero2, zero3, fsdp)",
				 params_where(v, TRAIN_SHARDING), sharding);
	if (recompute && !parallel_recompute_parse(recompute, &pi.recompute))
		return calc_fail(in, "%s: unknown recomputation '%s' (known: none, selective, full)",
				 params_where(v, TRAIN_RECOMPUTE), recompute);
	struct ridge_parallel_result r;
	char err[400];
	if (parallel_train(in->gpu, &pi, &r, err, sizeof err) != 0)
		return train_parallel_fail(in, err);
	cJSON *p = cJSON_AddObjectToObject(o, "parallel");
	json_number(p, "tp", pi.tp);
	json_number(p, "pp", pi.pp);
	json_number(p, "dp", r.dp);
	json_number(p, "micro_batch", pi.micro_batch);
	json_number(p, "micro_batches", r.micro_batches);
	cJSON_AddStringToObject(p, "sharding", parallel_sharding_name(pi.sharding));
	json_number(p, "dp_overlap", pi.dp_overlap);
	json_number(p, "tp_overlap", pi.tp_overlap);
	cJSON_AddStringToObject(p, "comm_launch", comm_launch_name(pi.launch));
	train_expert_json(p, &pi, &r);
	if (r.has_tp)
		json_comm_term(p, pi.sequence_parallel ? "tp_reduce_scatter" : "tp_allreduce", &r.tp.one,
			       r.tp.allreduces, r.tp.allreduces * r.tp.one.time_s);
	if (r.has_pp)
		json_comm_term(p, "pp_send_recv", &r.pp.one, r.pp.transfers, r.pp.time_s);
	if (r.has_dp) {
		json_comm_term(p, pi.sharding == RIDGE_SHARD_DDP ? "dp_allreduce" : "dp_reduce_scatter", &r.dp_reduce,
			       r.dp_reduces, r.dp_reduces * r.dp_reduce.time_s);
		if (pi.sharding != RIDGE_SHARD_DDP)
			json_comm_term(p, "dp_allgather", &r.dp_gather, r.dp_gathers,
				       r.dp_gathers * r.dp_gather.time_s);
	}
	train_parallel_scale_json(p, &pi, &r);
	json_number(p, "bubble_fraction", r.bubble_fraction);
	json_number(p, "tp_comm_s", r.tp.time_s);
	static const struct json_field parallel_result_fields[] = {
		JSON_FIELDS(struct ridge_parallel_result, tp_exposed_s),
		JSON_FIELD_AS(struct ridge_parallel_result, "pp_comm_s", pp_s),
		JSON_FIELDS(struct ridge_parallel_result, dp_comm_s, dp_exposed_s, comm_s, exposed_comm_s),
	};
	json_put_fields(p, &r, parallel_result_fields, JSON_FIELD_COUNT(parallel_result_fields));
	if (eff->predicted) {
		json_number(p, "compute_efficiency", pi.compute_efficiency);
		cJSON_AddStringToObject(p, "compute_efficiency_source", eff->source);
		json_number(p, "compute_s", r.compute_s);
		json_number(p, "bubble_s", r.bubble_s);
		json_number(p, "recompute_s", r.recompute_s);
		json_number(p, "step_time_s", r.step_s);
		train_step_range(p, eff, r.compute_s + r.bubble_s, r.step_s);
		json_number(p, "predicted_mfu", r.mfu);
		json_number(p, "predicted_hfu", r.hfu);
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
		double compute = kernel_time / (1 + (pi.pp - 1) / (r.micro_batches * r.virtual_stages));
		json_number(p, "step_time_s", step);
		json_number(p, "compute_s", compute);
		json_number(p, "bubble_s", kernel_time - compute);
		/* the kernels run the model's FLOPs and the recomputed ones */
		double kernel_flops = flops_per_step + r.recompute_flops;
		json_number(p, "implied_compute_efficiency", kernel_flops / (ti->gpus * ti->peak_flops * compute));
		json_number(p, "recompute_s", compute * r.recompute_flops / kernel_flops);
		json_number(p, "comm_share", r.exposed_comm_s / step);
		*mfu = ti->mfu;
	}
	train_memory_json(p, &pi, &r);
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
	if (cost_resolve_peak(in, TRAIN_DTYPE, TRAIN_PEAK, &ti.peak_flops, o) != 0 ||
	    cost_resolve_price(in, TRAIN_PRICE, &ti.price_usd_per_gpu_hour, o) != 0)
		goto bad;
	static const struct json_field train_inputs[] = {
		JSON_FIELDS(struct ridge_train_input, params, seq, batch, steps, gpus),
	};
	params_read_fields(v, &ti, train_inputs, JSON_FIELD_COUNT(train_inputs));
	const char *formula = params_text(v, TRAIN_FLOPS_FORMULA);
	if (!formula || strcasecmp(formula, "6n") == 0) {
		ti.formula = RIDGE_FLOPS_6N;
	} else if (strcasecmp(formula, "palm") == 0) {
		ti.formula = RIDGE_FLOPS_PALM;
		static const int need[] = { TRAIN_LAYERS, TRAIN_HEADS, TRAIN_HEAD_DIM };
		for (int i = 0; i < 3; i++)
			if (!params_has(v, need[i])) {
				calc_fail(in, "%s palm needs %s", params_where(v, TRAIN_FLOPS_FORMULA),
					  params_where(v, need[i]));
				goto bad;
			}
		ti.layers = params_num(v, TRAIN_LAYERS);
		ti.heads = params_num(v, TRAIN_HEADS);
		ti.head_dim = params_num(v, TRAIN_HEAD_DIM);
		ti.causal = params_flag(v, TRAIN_CAUSAL);
	} else {
		calc_fail(in, "%s: unknown formula '%s' (known: 6n, palm)", params_where(v, TRAIN_FLOPS_FORMULA),
			  formula);
		goto bad;
	}
	bool has_target = params_has(v, TRAIN_TARGET_MFU), has_investment = params_has(v, TRAIN_INVESTMENT);
	if (has_investment && !has_target) {
		calc_fail(in, "%s needs %s (the savings come from the MFU gain)", params_where(v, TRAIN_INVESTMENT),
			  params_where(v, TRAIN_TARGET_MFU));
		goto bad;
	}
	if (params_flag(v, TRAIN_SHOW_ROUNDING) && !has_target) {
		calc_fail(in, "%s needs %s", params_where(v, TRAIN_SHOW_ROUNDING), params_where(v, TRAIN_TARGET_MFU));
		goto bad;
	}
	cJSON_AddStringToObject(o, "flops_formula", ti.formula == RIDGE_FLOPS_PALM ? "palm" : "6n");
	static const struct json_field train_input_fields[] = {
		JSON_FIELDS(struct ridge_train_input, causal, params, seq, batch, steps, gpus),
	};
	json_put_fields(o, &ti, train_input_fields, JSON_FIELD_COUNT(train_input_fields));
	struct train_efficiency eff;
	if (train_efficiency(in, &eff) != 0)
		goto bad;
	if (!params_has(v, TRAIN_MFU) && !eff.predicted) {
		calc_fail(in, "%s is required (or %s to predict the MFU)", params_where(v, TRAIN_MFU),
			  params_where(v, TRAIN_COMPUTE_EFFICIENCY));
		goto bad;
	}
	ti.mfu = params_has(v, TRAIN_MFU) ? params_num(v, TRAIN_MFU) : 1;
	struct train_moe moe;
	double params = ti.params;
	if (train_moe_read(in, params, &moe) != 0)
		goto bad;
	train_moe_json(o, &moe);
	ti.params = moe.active_params; /* the FLOPs count what each token runs */
	if (parallel_asked(v) || eff.predicted) {
		/* the FLOPs per step do not depend on MFU: one run at the assumed (or a placeholder) MFU gives them */
		struct ridge_train_result flops;
		char ferr[400];
		if (cost_train(&ti, &flops, NULL, NULL, ferr, sizeof ferr) != 0) {
			calc_fail(in, "%s", ferr);
			goto bad;
		}
		if (train_parallel(in, &ti, &eff, &moe, params, flops.flops_per_step, o, &ti.mfu) != 0)
			goto bad;
		cJSON_AddStringToObject(o, "mfu_source", eff.predicted ? "predicted" : "given");
	}

	struct ridge_explain *ex = params_flag(v, TRAIN_EXPLAIN) ? calloc(1, sizeof *ex) : NULL;
	char err[400];
	struct ridge_train_comparison c;
	if (cost_train_run(&ti, has_target, has_target ? params_num(v, TRAIN_TARGET_MFU) : 0, has_investment,
			   has_investment ? params_num(v, TRAIN_INVESTMENT) : 0, &c, ex, err, sizeof err) != 0) {
		calc_fail(in, "%s", err);
		free(ex);
		goto bad;
	}
	if (!has_target) {
		calc_json_train(o, &c.current);
	} else {
		calc_json_train_comparison(o, &c);
		if (params_flag(v, TRAIN_SHOW_ROUNDING)) {
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

const struct calc calc_cost_train = {
	.name = "cost-train",
	.command = "cost train",
	.synopsis = "usage: ridge cost train --params N --seq S --batch B --steps K --gpus G --mfu M [--price USD]\n"
		    "                        [--target-mfu M2] [--investment USD] [--flops-formula 6n|palm]\n"
		    "                        [--layers L --heads H --head-dim D] [--peak FLOPS] [--explain] [--json]",
	.description = "Training cost from MFU: FLOPs per step = 6N x seq x batch (or the PaLM form), step time =\n"
		       "F / (GPUs x peak x MFU), GPU-hours and dollars. With --target-mfu: the same run at that MFU\n"
		       "and the savings; with --investment: net and gross ROI and the break-even step. Nothing is\n"
		       "rounded; --explain prints every intermediate with its formula.\n",
	CALC_IMPL(train_params, train_run, cost_train_print),
};
