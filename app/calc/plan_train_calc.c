/* ridge plan --train: the fastest parallel layouts of a training run that fit
 * (model/train_plan.h), each priced as ridge cost train prices one
 * (model/parallel.h), with the term that binds it. cli/cmd_plan.c sends a
 * command line with --train here; ridge plan --help shows both. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "calc.h"
#include "cost.h"
#include "json_fields.h"
#include "model_config.h"
#include "train_plan.h"

#define PLAN_TRAIN_PARAMS(X)                                                                                          \
	X(PT_TRAIN, PARAM_FLAG_ROW("train", .help = "search training layouts (this mode)"))                           \
	X(PT_MODEL, PARAM_TEXT_ROW("model", .flags = PARAM_REQUIRED, .metavar = "FILE",                               \
				   .help = "model config (Hugging Face config.json keys, JSON or YAML)"))             \
	X(PT_GPUS,                                                                                                    \
	  PARAM_INT("gpus", 1, PARAM_BATCH_MAX, .flags = PARAM_REQUIRED, .metavar = "N", .help = "GPUs of the run"))  \
	X(PT_GLOBAL_BATCH,                                                                                            \
	  PARAM_NUM("global_batch", RIDGE_UNIT_COUNT, 1, 1e15, .flags = PARAM_REQUIRED, .metavar = "TOKENS",          \
		    .help = "tokens per optimizer step (16Mi: 2048 x 8192)", .range = "1 to 1e15 tokens"))            \
	X(PT_SEQ, PARAM_INT("seq", 1, PARAM_TOKENS_MAX, .flags = PARAM_REQUIRED, .metavar = "S",                      \
			    .help = "tokens per sequence"))                                                           \
	X(PT_NETWORK_BW, PARAM_NUM("network_bw", RIDGE_UNIT_BYTES_PER_S, 0, PARAM_NET_BW_MAX, .flags = PARAM_OPEN_LO, \
				   .metavar = "B/s",                                                                  \
				   .help = "network bandwidth per GPU, one direction, between nodes (default: the "   \
					   "entry's NICs per GPU); needed past one node",                             \
				   .range = "greater than 0"))                                                        \
	X(PT_COMPUTE_EFFICIENCY,                                                                                      \
	  PARAM_FRAC("compute_efficiency", 0, 1, .flags = PARAM_OPEN_LO, .metavar = "E",                              \
		     .help = "fraction of peak the step's kernels reach (default: the GPU's timing.gemm)",            \
		     .range = "0 < E <= 1"))                                                                          \
	X(PT_DP_OVERLAP, PARAM_FRAC("dp_overlap", 0, 1, .metavar = "F",                                               \
				    .help = "share of the gradient communication hidden", .def = "0"))                \
	X(PT_TP_OVERLAP, PARAM_FRAC("tp_overlap", 0, 1, .metavar = "F",                                               \
				    .help = "share of the tensor-parallel communication hidden", .def = "0"))         \
	X(PT_EP_OVERLAP, PARAM_FRAC("ep_overlap", 0, 1, .metavar = "F",                                               \
				    .help = "share of the expert all-to-alls hidden (MoE)", .def = "0"))              \
	X(PT_NOT_CAUSAL, PARAM_FLAG_ROW("not_causal", .help = "full attention (default: causal, half the scores)"))   \
	X(PT_TOP, PARAM_INT("top", 1, RIDGE_TRAIN_PLAN_MAX_TOP, .metavar = "N", .help = "layouts shown", .def = "5")) \
	CALC_GPU_ROWS(X, PT)                                                                                          \
	X(PT_JSON, CALC_JSON_ROW)
PARAMS_TABLE(plan_train_params, PLAN_TRAIN_PARAMS);

/* The search's inputs from the config and the flags; the FLOPs as ridge cost train --flops-formula palm. */
static int plan_train_inputs(struct calc_input *in, const struct ridge_workload_model *w,
			     const struct ridge_workload_params *wp, struct ridge_train_plan_input *pi, cJSON *o)
{
	const struct param_values *v = in->values;
	double peak;
	const char *why;
	if (!ridge_gpu_peak(in->gpu, RIDGE_BF16, RIDGE_PEAK_DEFAULT, false, &peak, &why))
		return calc_fail(in, "%s has no bf16 rate (%s)", in->gpu->id, why);
	double eff = params_has(v, PT_COMPUTE_EFFICIENCY) ? params_num(v, PT_COMPUTE_EFFICIENCY) : 0;
	const char *eff_source = eff > 0 ? "--compute-efficiency: a what-if, every layout alike"
					 : "per layout: its MLP GEMM's shape under the GPU's timing.gemm";
	double seq = params_num(v, PT_SEQ), tokens = params_num(v, PT_GLOBAL_BATCH);
	double params = wp->total, moe_layers = (double)workload_moe_layers(w);
	/* the FLOPs count what each token runs: a mixture of experts' top-k experts */
	struct ridge_train_input ti = { .params = wp->active,
					.seq = seq,
					.batch = tokens / seq,
					.steps = 1,
					.gpus = params_num(v, PT_GPUS),
					.peak_flops = peak,
					.mfu = 1,
					.price_usd_per_gpu_hour = 1,
					.formula = RIDGE_FLOPS_PALM,
					.layers = (double)w->layers,
					.heads = (double)w->heads,
					.head_dim = (double)w->head_dim,
					.causal = !params_flag(v, PT_NOT_CAUSAL) };
	struct ridge_train_result flops;
	if (cost_train(&ti, &flops, NULL, NULL, in->err, sizeof in->err) != 0)
		return -1;
	*pi = (struct ridge_train_plan_input){
		.params = params,
		.hidden = (double)w->hidden,
		.ffn = (double)(w->intermediate > 0 ? w->intermediate : w->expert_intermediate),
		.experts = moe_layers > 0 ? (double)w->experts : 0,
		.top_k = moe_layers > 0 ? (double)w->experts_per_token : 0,
		.moe_layers = moe_layers,
		.expert_params = moe_layers * (double)w->experts * wp->expert,
		.layers = (double)w->layers,
		.heads = (double)w->heads,
		.kv_heads = (double)w->kv_heads,
		.seq = seq,
		.global_batch_tokens = tokens,
		.gpus = ti.gpus,
		.flops_per_step = flops.flops_per_step,
		.peak_flops = peak,
		.compute_efficiency = eff,
		.network_bandwidth = params_has(v, PT_NETWORK_BW) ? params_num(v, PT_NETWORK_BW)
								  : comm_network_per_gpu(&in->gpu->ic),
		.dp_overlap = params_num(v, PT_DP_OVERLAP),
		.tp_overlap = params_num(v, PT_TP_OVERLAP),
		.ep_overlap = params_num(v, PT_EP_OVERLAP),
		.memory_bytes = ridge_gpu_usable_memory(in->gpu),
		.causal = ti.causal,
		.top = params_has(v, PT_TOP) ? (int)params_num(v, PT_TOP) : 5,
	};
	if (pi->gpus > in->gpu->ic.domain_gpus && !(pi->network_bandwidth > 0))
		return calc_fail(in, "%g GPUs span more than one fabric domain of %d: give %s", pi->gpus,
				 in->gpu->ic.domain_gpus, params_where(v, PT_NETWORK_BW));
	json_number(o, "params", params);
	if (moe_layers > 0) {
		json_number(o, "active_params", wp->active);
		json_number(o, "expert_params", pi->expert_params);
	}
	json_number(o, "gpus", pi->gpus);
	json_number(o, "seq", seq);
	json_number(o, "global_batch_tokens", tokens);
	json_number(o, "flops_per_step", pi->flops_per_step);
	json_number(o, "peak_flops", peak);
	if (eff > 0)
		json_number(o, "compute_efficiency", eff);
	cJSON_AddStringToObject(o, "compute_efficiency_source", eff_source);
	json_number(o, "memory_available_bytes", pi->memory_bytes);
	return 0;
}

static cJSON *layout_json(const struct ridge_train_layout *l)
{
	const struct ridge_parallel_input *p = &l->in;
	const struct ridge_parallel_result *r = &l->r;
	cJSON *o = cJSON_CreateObject();
	json_number(o, "tp", p->tp);
	json_number(o, "cp", r->cp);
	json_number(o, "pp", p->pp);
	json_number(o, "ep", r->ep);
	json_number(o, "virtual_stages", r->virtual_stages);
	json_number(o, "dp", r->dp);
	json_number(o, "micro_batch", p->micro_batch);
	json_number(o, "micro_batches", r->micro_batches);
	cJSON_AddBoolToObject(o, "sequence_parallel", p->sequence_parallel);
	cJSON_AddStringToObject(o, "recompute", parallel_recompute_name(p->recompute));
	cJSON_AddStringToObject(o, "sharding", parallel_sharding_name(p->sharding));
	json_number(o, "compute_efficiency", l->gemm_efficiency);
	json_number(o, "step_time_s", r->step_s);
	json_number(o, "predicted_mfu", r->mfu);
	json_number(o, "compute_s", r->compute_s);
	json_number(o, "recompute_s", r->recompute_s);
	json_number(o, "bubble_s", r->bubble_s);
	json_number(o, "exposed_comm_s", r->exposed_comm_s);
	json_number(o, "memory_bytes", r->memory_required);
	json_number(o, "memory_headroom", l->memory_headroom);
	cJSON_AddBoolToObject(o, "fits", r->fits);
	cJSON_AddStringToObject(o, "binds", train_plan_bind_name(l->binds));
	json_number(o, "binds_s", l->binds_s);
	return o;
}

static cJSON *plan_train_run(struct calc_input *in)
{
	cJSON *o = cJSON_CreateObject();
	struct app_model_config *config = calloc(1, sizeof *config);
	struct ridge_train_plan_result *res = calloc(1, sizeof *res);
	if (!config || !res) {
		calc_fail(in, "out of memory");
		goto bad;
	}
	calc_json_gpu(o, in->gpu);
	const char *path = params_text(in->values, PT_MODEL);
	if (app_model_config_load(path, config, in->st) != 0) {
		in->err[0] = '\0'; /* the loader said why */
		goto bad;
	}
	struct ridge_workload_model w;
	struct ridge_workload_params wp;
	if (app_model_config_workload(config, path, &w, in->err, sizeof in->err) != 0 ||
	    workload_params(&w, &wp, in->err, sizeof in->err) != 0)
		goto bad;
	cJSON_AddStringToObject(o, "model", path);
	struct ridge_train_plan_input pi;
	if (plan_train_inputs(in, &w, &wp, &pi, o) != 0)
		goto bad;
	if (train_plan_search(in->gpu, &pi, res, in->err, sizeof in->err) != 0)
		goto bad;
	cJSON *s = cJSON_AddObjectToObject(o, "searched");
	json_number(s, "tried", (double)res->tried);
	json_number(s, "priced", (double)res->priced);
	json_number(s, "fitting", (double)res->fitting);
	cJSON *layouts = cJSON_AddArrayToObject(o, "layouts");
	for (int i = 0; i < res->count; i++)
		cJSON_AddItemToArray(layouts, layout_json(&res->top[i]));
	if (res->count == 0 && res->has_nearest)
		cJSON_AddItemToObject(o, "nearest", layout_json(&res->nearest));
	cJSON_AddBoolToObject(o, "ok", res->count > 0); /* none fits: exit 1 */
	free(config);
	free(res);
	return o;
bad:
	free(config);
	free(res);
	cJSON_Delete(o);
	return NULL;
}

static void print_layout(FILE *out, int rank, const cJSON *l)
{
	char step[32], mem[32], mfu[32], bind[32], eff[32];
	fmt_percent(calc_num(l, "compute_efficiency"), eff, sizeof eff);
	fmt_seconds(calc_num(l, "step_time_s"), step, sizeof step);
	fmt_bytes(calc_num(l, "memory_bytes"), mem, sizeof mem);
	fmt_percent(calc_num(l, "predicted_mfu"), mfu, sizeof mfu);
	fmt_seconds(calc_num(l, "binds_s"), bind, sizeof bind);
	fprintf(out, "  %4d %3.0f %3.0f %3.0f %3.0f %2.0f %5.0f %3.0f %5.0f  %-3s %-9s %-5s %7s %9s %7s %10s  %s %s\n",
		rank, calc_num(l, "tp"), calc_num(l, "cp"), calc_num(l, "pp"), calc_num(l, "ep"),
		calc_num(l, "virtual_stages"), calc_num(l, "dp"), calc_num(l, "micro_batch"),
		calc_num(l, "micro_batches"),
		cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(l, "sequence_parallel")) ? "on" : "off",
		calc_str(l, "recompute"), calc_str(l, "sharding"), eff, step, mfu, mem, calc_str(l, "binds"), bind);
}

static void plan_train_print(FILE *out, const cJSON *r)
{
	char avail[32];
	fmt_bytes(calc_num(r, "memory_available_bytes"), avail, sizeof avail);
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(r, "searched");
	fprintf(out, "Training layouts: %s on %.0f x %s, seq %.0f, %.4g tokens per step\n", calc_str(r, "model"),
		calc_num(r, "gpus"), calc_str(r, "gpu"), calc_num(r, "seq"), calc_num(r, "global_batch_tokens"));
	fprintf(out, "  kernel efficiency: %s; %s per GPU\n", calc_str(r, "compute_efficiency_source"), avail);
	fprintf(out, "  %.0f layouts tried, %.0f divide the model and the batch, %.0f fit\n\n", calc_num(s, "tried"),
		calc_num(s, "priced"), calc_num(s, "fitting"));
	fprintf(out,
		"  rank  tp  cp  pp  ep  v    dp  mb    m   sp  recompute zero   kernels      step     MFU     memory  "
		"binds\n");
	const cJSON *layouts = cJSON_GetObjectItemCaseSensitive(r, "layouts");
	int rank = 1;
	const cJSON *l;
	cJSON_ArrayForEach (l, layouts)
		print_layout(out, rank++, l);
	const cJSON *nearest = cJSON_GetObjectItemCaseSensitive(r, "nearest");
	if (nearest) {
		fprintf(out, "  none fits; the one needing least memory:\n");
		print_layout(out, 0, nearest);
	}
}

const struct calc calc_plan_train = {
	.name = "plan-train",
	.command = "plan --train",
	.synopsis = "usage: ridge plan --train --model FILE --gpus N --global-batch TOKENS --seq S [--gpu GPU]\n"
		    "                  [--network-bw B/s] [--compute-efficiency E] [--ep-overlap F] [--top N]\n"
		    "                  [--json]",
	.description =
		"Searches TP x CP x PP x virtual stages x DP x sequence parallelism x recomputation x micro-batch x\n"
		"ZeRO stage (x EP for a mixture of experts) for the fastest training layouts that fit in memory,\n"
		"each priced as ridge cost train prices one (compute with recomputation, bubble, TP/CP/EP/PP/DP\n"
		"communication, memory per GPU), and shows the term beyond compute that binds each\n"
		"(model/train_plan.h). FLOPs: 6N + attention (palm) of the active parameters, causal unless\n"
		"--not-causal. Exit 1 when no layout fits (the nearest is shown).\n",
	CALC_IMPL(plan_train_params, plan_train_run, plan_train_print),
	.problem_unless_ok = true,
};
