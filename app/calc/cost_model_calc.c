/* ridge cost decode --model FILE and ridge cost prefill: model/serve.c on a
 * model config (app/read/model_config.c), kernel by kernel, as JSON (SI units)
 * and its human print. The scenario kinds cost-decode (with model) and
 * cost-prefill run the same functions. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "calc.h"
#include "app.h"
#include "comm.h"
#include "cost.h"
#include "kernel_time.h"
#include "eval.h"
#include "model_config.h"
#include "serve.h"
#include "serve_sim.h"
#include "cost_model_calc.h"
#include "json_fields.h"

/* Bytes of one scale and the default group of a storage type: int4 with
 * fp16 scales per 128 weights (GPTQ and AWQ's default group size), fp4 as
 * NVFP4 (an FP8 E4M3 scale per 16 elements: NVIDIA's NVFP4 format); fp8,
 * int8 and the 16/32-bit types carry per-tensor or per-channel scales,
 * negligible per element (group 0 unless given). */
void serve_storage_scale(const char *name, double *scale_bytes, double *group)
{
	*group = 0;
	*scale_bytes = 2;
	if (strcasecmp(name, "int4") == 0)
		*group = 128;
	else if (strcasecmp(name, "fp4") == 0) {
		*group = 16;
		*scale_bytes = 1;
	} else if (strcasecmp(name, "fp8") == 0)
		*scale_bytes = 1;
}

static int storage(struct calc_input *in, int param, int group_param, struct ridge_storage *s, cJSON *o)
{
	const char *name = params_text(in->values, param);
	const char *key_name = in->values->spec[param].name; /* the JSON key: weight_dtype, kv_dtype */
	if (!name)
		name = "bf16";
	if (!cost_storage_bytes(name, &s->bytes))
		return calc_fail(in, "%s: unknown storage type '%s' (known: %s)", params_where(in->values, param), name,
				 cost_storage_list());
	serve_storage_scale(name, &s->scale_bytes, &s->group);
	if (params_has(in->values, group_param))
		s->group = params_num(in->values, group_param);
	cJSON_AddStringToObject(o, key_name, name);
	char key[64];
	snprintf(key, sizeof key, "%s_bytes", key_name);
	json_number(o, key, serve_storage_bytes(s));
	snprintf(key, sizeof key, "%s_group", key_name);
	json_number(o, key, s->group);
	return 0;
}

/* The config, read and resolved; its warnings go to the status (command
 * line) and into the result. */
static int load_model(struct calc_input *in, int model, int assume_param, struct app_model_config *config, char *path,
		      size_t path_len, cJSON *o)
{
	const char *file = params_text(in->values, model);
	const char *assume = params_text(in->values, assume_param);
	if (assume && !app_model_assume_ok(assume, in->st)) {
		in->err[0] = '\0'; /* said */
		return -1;
	}
	if (in->item)
		eval_item_path(in->item, file, path, path_len);
	else
		snprintf(path, path_len, "%s", file);
	if (app_model_config_load_as(path, assume, config, in->st) != 0) {
		if (in->item)
			return calc_fail(in, "%s: cannot use '%s' (above)", params_where(in->values, model), file);
		in->err[0] = '\0'; /* the loader said why */
		return -1;
	}
	struct ridge_workload_model w;
	if (app_model_config_workload(config, path, &w, in->err, sizeof in->err) != 0)
		return -1;
	config->workload = w;
	cJSON *m = cJSON_AddObjectToObject(o, "model");
	cJSON_AddStringToObject(m, "file", path);
	app_json_workload_model(m, config);
	cJSON *warnings = cJSON_AddArrayToObject(o, "warnings");
	for (int i = 0; i < config->warning_count; i++) {
		if (!in->item)
			app_warning_at(in->st, path, 0, 0, "%s", config->warnings[i]);
		cJSON_AddItemToArray(warnings, cJSON_CreateString(config->warnings[i]));
	}
	return 0;
}

/* The step's collectives are launched as its kernels are (model/comm.h): a
 * persistent kernel carries them inside, priced as the device's time. */
static enum ridge_comm_launch serve_comm_launch(enum ridge_launch_mode mode)
{
	return mode == RIDGE_LAUNCH_EAGER   ? RIDGE_COMM_LAUNCH_EAGER
	       : mode == RIDGE_LAUNCH_GRAPH ? RIDGE_COMM_LAUNCH_GRAPH
					    : RIDGE_COMM_LAUNCH_DEVICE;
}

/* The step's communication: --communication-ms as given, else model/comm.h's
 * (the tp GPUs' all-reduces, all-to-alls with --expert-parallel, less
 * --comm-overlap). Written into o["communication"] with every term. */
static int serve_communication(struct calc_input *in, const struct serve_params *p, struct ridge_serve_request *req,
			       cJSON *o)
{
	const struct param_values *v = in->values;
	cJSON *c = cJSON_AddObjectToObject(o, "communication");
	if (params_has(v, p->communication_ms)) {
		for (int i = 0; i < 4; i++) {
			const int modelled[] = { p->expert_parallel, p->custom_allreduce, p->comm_overlap,
						 p->network_bw };
			if (params_has(v, modelled[i]))
				return calc_fail(in, "%s: the communication is given by %s",
						 params_where(v, modelled[i]), params_where(v, p->communication_ms));
		}
		req->communication_s = params_num(v, p->communication_ms);
		cJSON_AddStringToObject(c, "source", "given");
		json_number(c, "exposed_s", req->communication_s);
		return 0;
	}
	const struct ridge_workload_model *m = req->model;
	double tokens = req->phase == RIDGE_PHASE_DECODE ? req->batch : req->batch * req->context;
	struct ridge_serve_comm sc;
	char err[400];
	double custom_max = params_flag(v, p->custom_allreduce) ? RIDGE_CUSTOM_ALLREDUCE_CAP_VLLM : 0;
	if (comm_serve_step_engine(req->gpu, req->tp, params_flag(v, p->expert_parallel), tokens, (double)m->hidden,
				   (double)m->layers, (double)m->experts_per_token, (double)workload_moe_layers(m),
				   params_has(v, p->comm_overlap) ? params_num(v, p->comm_overlap) : 0,
				   params_has(v, p->network_bw) ? params_num(v, p->network_bw) : 0,
				   serve_comm_launch(req->launch), custom_max, &sc, err, sizeof err) != 0) {
		if (strstr(err, "network bandwidth"))
			return calc_fail(in, "%s %g: %s: give %s", params_where(v, p->tp), req->tp, err,
					 params_where(v, p->network_bw));
		if (strstr(err, "MoE"))
			return calc_fail(in, "%s: %s", params_where(v, p->expert_parallel), err);
		return calc_fail(in, "%s", err);
	}
	req->communication_s = sc.exposed_s;
	cJSON_AddStringToObject(c, "source", "modelled");
	if (sc.has_tp) {
		cJSON *t = cJSON_AddObjectToObject(c, "tp_allreduce");
		calc_json_comm(t, &sc.tp.one);
		json_number(t, "count", sc.tp.allreduces);
		json_number(t, "total_s", sc.tp.time_s);
	}
	if (sc.has_ep) {
		cJSON *e = cJSON_AddObjectToObject(c, "ep_alltoall");
		calc_json_comm(e, &sc.ep.one);
		json_number(e, "count", sc.ep.alltoalls);
		json_number(e, "total_s", sc.ep.time_s);
	}
	json_number(c, "total_s", sc.total_s);
	json_number(c, "overlap", sc.overlap);
	json_number(c, "exposed_s", sc.exposed_s);
	return 0;
}

/* A quantized checkpoint's storage per tensor group (quantization_config)
 * when --weight-dtype does not say; --weight-dtype overrides it, with a
 * warning. In o["weight_storage"]: each group and where it came from. */
static void checkpoint_storage(struct calc_input *in, const struct serve_params *p,
			       const struct app_model_config *config, struct ridge_serve_request *req, cJSON *o)
{
	const struct app_model_extras *x = &config->extras;
	const struct param_values *v = in->values;
	cJSON *ws = cJSON_AddObjectToObject(o, "weight_storage");
	if (!x->quantized) {
		cJSON_AddStringToObject(ws, "source", params_has(v, p->weight_dtype) ? "--weight-dtype" : "default");
		return;
	}
	if (params_has(v, p->weight_dtype)) {
		cJSON_AddStringToObject(ws, "source", "--weight-dtype");
		char note[300];
		snprintf(note, sizeof note, "%s %s overrides the checkpoint's %s (experts %s, layers %s)",
			 params_where(v, p->weight_dtype), params_text(v, p->weight_dtype), x->quant_note,
			 x->experts.name, x->dense.name);
		if (!in->item)
			app_warning(in->st, "%s", note);
		cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(o, "warnings"), cJSON_CreateString(note));
		return;
	}
	req->weights = x->dense.storage;
	req->expert_weights = x->experts.storage;
	req->embedding_weights = x->embedding.storage;
	cJSON_AddStringToObject(ws, "source", x->quant_note);
	cJSON_AddStringToObject(ws, "dense", x->dense.name);
	cJSON_AddStringToObject(ws, "experts", x->experts.name);
	cJSON_AddStringToObject(ws, "embedding", x->embedding.name);
	/* weight_dtype: the storage of most of the weights (the experts' in a MoE model) */
	const char *main = req->model->experts > 0 ? x->experts.dtype : x->dense.dtype;
	cJSON_ReplaceItemInObjectCaseSensitive(o, "weight_dtype", cJSON_CreateString(main));
	const struct ridge_storage *most = req->model->experts > 0 ? &req->expert_weights : &req->weights;
	cJSON_ReplaceItemInObjectCaseSensitive(o, "weight_dtype_bytes", cJSON_CreateNumber(serve_storage_bytes(most)));
	cJSON_ReplaceItemInObjectCaseSensitive(o, "weight_dtype_group", cJSON_CreateNumber(most->group));
}

/* The host loop's wait per step: --host-loop-ms as given, else the named
 * --host-loop (model/serve.c's measured loops), else none. Written into
 * o["host_loop"] with its source. */
static int serve_host_loop(struct calc_input *in, const struct serve_params *p, struct ridge_serve_request *req,
			   cJSON *o)
{
	const struct param_values *v = in->values;
	const char *name = params_text(v, p->host_loop);
	const struct ridge_host_loop *loop = serve_host_loop_find(name ? name : "none");
	if (!loop)
		return calc_fail(in, "%s: unknown host loop '%s' (known: %s)", params_where(v, p->host_loop), name,
				 serve_host_loop_list());
	cJSON *h = cJSON_AddObjectToObject(o, "host_loop");
	if (params_has(v, p->host_loop_ms)) {
		if (name)
			return calc_fail(in, "%s: the host loop's time is given by %s", params_where(v, p->host_loop),
					 params_where(v, p->host_loop_ms));
		req->host_loop_s = params_num(v, p->host_loop_ms);
		cJSON_AddStringToObject(h, "name", "given");
		json_number(h, "seconds", req->host_loop_s);
		cJSON_AddStringToObject(h, "provenance", ridge_provenance_name(RIDGE_PROVENANCE_WHAT_IF));
		cJSON_AddStringToObject(h, "source", "--host-loop-ms");
		return 0;
	}
	req->host_loop_s = loop->seconds;
	req->host_loop_range_s[0] = loop->range_s[0];
	req->host_loop_range_s[1] = loop->range_s[1];
	cJSON_AddStringToObject(h, "name", loop->name);
	json_number(h, "seconds", loop->seconds);
	if (loop->range_s[1] > 0)
		json_number_pair(h, "range_s", loop->range_s);
	cJSON_AddStringToObject(h, "provenance", ridge_provenance_name(loop->provenance));
	cJSON_AddStringToObject(h, "source", loop->source);
	return 0;
}

int serve_request_from(struct calc_input *in, const struct serve_params *p, struct app_model_config *config,
		       struct ridge_serve_request *req, double *replicas, cJSON *o)
{
	const struct param_values *v = in->values;
	memset(req, 0, sizeof *req);
	char path[1024];
	enum ridge_serve_phase phase = p->phase;
	if (load_model(in, p->model, p->assume_family, config, path, sizeof path, o) != 0)
		return -1;
	req->model = &config->workload;
	req->gpu = in->gpu;
	req->phase = phase;
	req->batch = params_num(v, p->batch);
	req->context = params_num(v, p->tokens);
	double gpus = params_num(v, p->gpus);
	req->tp = params_has(v, p->tp) ? params_num(v, p->tp) : gpus;
	if (fmod(gpus, req->tp) != 0)
		return calc_fail(in, "%s %g is not a multiple of %s %g (each replica has tp GPUs)",
				 params_where(v, p->gpus), gpus, params_where(v, p->tp), req->tp);
	*replicas = gpus / req->tp;
	if (storage(in, p->weight_dtype, p->weight_group, &req->weights, o) ||
	    storage(in, p->kv_dtype, p->kv_group, &req->kv, o))
		return -1;
	checkpoint_storage(in, p, config, req, o);
	const char *compute = params_text(v, p->compute_dtype);
	req->compute_dtype = RIDGE_BF16;
	if (compute && !ridge_dtype_parse(compute, &req->compute_dtype))
		return calc_fail(in, "%s: unknown dtype '%s' (known: %s)", params_where(v, p->compute_dtype), compute,
				 ridge_dtype_list());
	const char *launch = params_text(v, p->launch);
	req->launch = RIDGE_LAUNCH_GRAPH;
	if (launch && !serve_launch_parse(launch, &req->launch))
		return calc_fail(in, "%s: unknown launch mode '%s' (known: eager graph persistent)",
				 params_where(v, p->launch), launch);
	req->kernels_per_layer = params_has(v, p->kernels_per_layer) ? params_num(v, p->kernels_per_layer) : 0;
	const char *moe_impl = params_text(v, p->moe_impl);
	if (moe_impl && !serve_moe_impl_parse(moe_impl, &req->moe_impl))
		return calc_fail(in, "%s: unknown MoE implementation '%s' (known: grouped loop)",
				 params_where(v, p->moe_impl), moe_impl);
	req->fused_projections = params_flag(v, p->fused_projections);
	const char *layer_ops = params_text(v, p->layer_ops);
	if (layer_ops && !serve_layer_ops_parse(layer_ops, &req->layer_ops))
		return calc_fail(in, "%s: unknown layer ops '%s' (known: fused pytorch)", params_where(v, p->layer_ops),
				 layer_ops);
	const char *impl = params_text(v, p->impl);
	if (impl && !timing_attention_impl_parse(impl, &req->timing.impl))
		return calc_fail(in, "%s: unknown attention implementation '%s' (known: %s)", params_where(v, p->impl),
				 impl, timing_attention_impl_list());
	if (calc_timing_overrides(v, p->efficiency, p->fixed_cost, &req->overrides, &req->has_overrides, in->err,
				  sizeof in->err) != 0)
		return -1;
	if (serve_communication(in, p, req, o) != 0 || serve_host_loop(in, p, req, o) != 0)
		return -1;
	if (params_has(v, p->price))
		req->price_usd_per_gpu_hour = params_num(v, p->price);
	else if (in->gpu->has_price)
		req->price_usd_per_gpu_hour = in->gpu->price_usd_per_hour;
	else
		return calc_fail(in, "no price: give %s (USD per GPU-hour); %s has none in hwdb",
				 params_where(v, p->price), in->gpu->id);
	cJSON_AddStringToObject(o, "compute_dtype", ridge_dtype_name(req->compute_dtype));
	cJSON_AddStringToObject(o, "launch", serve_launch_name(req->launch));
	if (req->model->experts > 0)
		cJSON_AddStringToObject(o, "moe_impl", serve_moe_impl_name(req->moe_impl));
	cJSON_AddBoolToObject(o, "fused_projections", req->fused_projections);
	cJSON_AddStringToObject(o, "layer_ops", serve_layer_ops_name(req->layer_ops));
	json_number(o, "price_usd_per_gpu_hour", req->price_usd_per_gpu_hour);
	json_number(o, "batch", req->batch);
	json_number(o, phase == RIDGE_PHASE_DECODE ? "context" : "seq", req->context);
	json_number(o, "gpus", gpus);
	json_number(o, "tp", req->tp);
	json_number(o, "bandwidth", in->gpu->memory_bandwidth);
	json_number(o, "launch_overhead_s", in->gpu->launch_overhead_s);
	json_number(o, "graph_node_s", in->gpu->graph_node_s);
	return 0;
}

/* The step's keys: step_key is tpot_s (decode) or ttft_s (prefill). */
void serve_json_result(cJSON *o, const struct ridge_serve_result *r, const char *step_key, double replicas,
		       bool kernels)
{
	json_number(o, step_key, r->step_s);
	kernel_time_sum_json(o, &r->time_sum, r->step_range_s);
	json_number(o, strcmp(step_key, "tpot_s") == 0 ? "tpot_floor_s" : "ttft_floor_s", r->floor_s);
	static const struct json_field serve_result_fields[] = {
		JSON_FIELDS(struct ridge_serve_result, tokens, weight_bytes, kv_bytes, bytes_per_step, flops_per_step,
			    attention_flops, kv_bytes_per_token, kv_bytes_per_token_per_gpu, memory_time_s,
			    compute_time_s),
	};
	json_put_fields(o, r, serve_result_fields, JSON_FIELD_COUNT(serve_result_fields));
	cJSON_AddStringToObject(o, "bound", cost_bound_name(r->bound));
	static const struct json_field serve_result_kernel_time_s_fields[] = {
		JSON_FIELDS(struct ridge_serve_result, kernel_time_s, launch_time_s, matrix_time_s, power_limit_time_s),
		JSON_FIELD_AS(struct ridge_serve_result, "communication_time_s", communication_s),
		JSON_FIELD_AS(struct ridge_serve_result, "host_loop_time_s", host_loop_s),
		JSON_FIELDS(struct ridge_serve_result, kernels_per_step),
	};
	json_put_fields(o, r, serve_result_kernel_time_s_fields, JSON_FIELD_COUNT(serve_result_kernel_time_s_fields));
	if (r->launch_time_range_s[0] != r->launch_time_s || r->launch_time_range_s[1] != r->launch_time_s)
		json_number_pair(o, "launch_time_range_s", r->launch_time_range_s);
	json_number(o, "tokens_per_s", replicas * r->tokens_per_s);
	json_number(o, "usd_per_million_tokens", r->usd_per_million_tokens);
	if (r->experts_touched > 0)
		json_number(o, "experts_touched_per_layer", r->experts_touched);
	static const struct json_field serve_result_weights_stored_per_gpu_fields[] = {
		JSON_FIELD_AS(struct ridge_serve_result, "weights_stored_per_gpu_bytes", weights_stored_per_gpu),
		JSON_FIELD_AS(struct ridge_serve_result, "kv_cache_per_gpu_bytes", kv_cache_per_gpu),
		JSON_FIELD_AS(struct ridge_serve_result, "memory_required_bytes", memory_required_per_gpu),
		JSON_FIELD_AS(struct ridge_serve_result, "memory_available_bytes", memory_available_per_gpu),
		JSON_FIELDS(struct ridge_serve_result, fits, max_batch),
	};
	json_put_fields(o, r, serve_result_weights_stored_per_gpu_fields,
			JSON_FIELD_COUNT(serve_result_weights_stored_per_gpu_fields));
	if (!kernels)
		return;
	cJSON *list = cJSON_AddArrayToObject(o, "kernels");
	for (int i = 0; i < r->kernel_count; i++) {
		const struct ridge_serve_kernel *k = &r->kernels[i];
		cJSON *row = cJSON_CreateObject();
		cJSON_AddStringToObject(row, "name", k->name);
		cJSON_AddStringToObject(row, "kernel", intensity_kernel_name(k->kernel));
		cJSON_AddStringToObject(row, "class", timing_class_name(k->time.cls));
		/* Which attention kernel the step assumed (split-kv for decode unless --impl says) */
		if (k->time.cls == RIDGE_TIME_ATTENTION)
			cJSON_AddStringToObject(row, "impl", timing_attention_impl_name(k->time.impl));
		/* How a routed expert's kernel ran (--moe-impl), and a grouped GEMM's experts */
		if (k->routed)
			cJSON_AddStringToObject(row, "moe_impl", serve_moe_impl_name(k->moe_impl));
		if (k->groups > 0)
			json_number(row, "groups", k->groups);
		static const struct json_field serve_kernel_fields[] = {
			JSON_FIELDS(struct ridge_serve_kernel, count, flops, bytes, floor_s, predicted_s),
		};
		json_put_fields(row, k, serve_kernel_fields, JSON_FIELD_COUNT(serve_kernel_fields));
		json_number(row, "compute_efficiency", k->time.compute_efficiency.value);
		json_number(row, "memory_efficiency", k->time.memory_efficiency.value);
		json_number(row, "fixed_cost_s", k->time.fixed_cost.value);
		cJSON_AddStringToObject(row, "fixed_cost_source", k->time.fixed_cost.source);
		json_number(row, "total_s", k->count * k->predicted_s);
		cJSON_AddItemToArray(list, row);
	}
}

/* --explain: every term of the step, each with its formula and numbers. */
static void explain_add(cJSON *list, const char *label, const char *formula, double value, const char *unit,
			const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void explain_add(cJSON *list, const char *label, const char *formula, double value, const char *unit,
			const char *fmt, ...)
{
	char substituted[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(substituted, sizeof substituted, fmt, ap);
	va_end(ap);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "label", label);
	cJSON_AddStringToObject(o, "formula", formula);
	cJSON_AddStringToObject(o, "substituted", substituted);
	json_number(o, "value", value);
	cJSON_AddStringToObject(o, "unit", unit);
	cJSON_AddItemToArray(list, o);
}

void serve_json_explain(cJSON *o, const struct ridge_serve_request *req, const struct ridge_serve_result *r)
{
	cJSON *list = cJSON_AddArrayToObject(o, "explain");
	const struct ridge_workload_model *m = req->model;
	if (m->experts > 0)
		explain_add(list, "experts touched per MoE layer", "E * (1 - (1 - k/E)^tokens)", r->experts_touched, "",
			    "%lld * (1 - (1 - %lld/%lld)^%.17g)", m->experts, m->experts_per_token, m->experts,
			    r->tokens);
	explain_add(list, "KV bytes per token per GPU", "L * elements per token and layer on one GPU * bytes(kv)",
		    r->kv_bytes_per_token_per_gpu, "B", "%lld layers, %s", m->layers,
		    m->mla ? "the latent (kv_lora_rank + qk_rope_head_dim), replicated"
			   : "2 * max(ceil(n_kv / tp), 1) heads * head_dim");
	for (int i = 0; i < r->kernel_count; i++) {
		const struct ridge_serve_kernel *k = &r->kernels[i];
		char label[96];
		snprintf(label, sizeof label, "%s (x%.6g per step)", k->name, k->count);
		explain_add(list, label, "max(compute / eff_c, memory / eff_m) + fixed cost", k->predicted_s, "s",
			    "%.6g FLOP, %.6g B; floor %.6g s; eff_c %.6g, eff_m %.6g, fixed %.6g s (%s)", k->flops,
			    k->bytes, k->floor_s, k->time.compute_efficiency.value, k->time.memory_efficiency.value,
			    k->time.fixed_cost.value, k->time.fixed_cost.source);
	}
	if (r->power_limit_time_s > 0)
		explain_add(list, "power limit (in the kernels above)",
			    "(1 / sustained fraction - 1) * (matrix time - burst time)", r->power_limit_time_s, "s",
			    "(1 / %.6g - 1) * (%.17g - %.17g) (%s)", req->gpu->sustained_matrix_fraction,
			    r->matrix_time_s, req->gpu->burst_time_s,
			    req->gpu->power_source[0] ? req->gpu->power_source : "power.*");
	explain_add(list, "kernel time", "sum of count * predicted", r->kernel_time_s, "s", "%d kernels, %.6g launches",
		    r->kernel_count, r->kernels_per_step);
	const char *launch_formula = req->launch == RIDGE_LAUNCH_EAGER
					     ? "host launches back to back; a kernel waits for its launch"
				     : req->launch == RIDGE_LAUNCH_GRAPH ? "launch overhead + kernels * graph node cost"
									 : "one launch";
	explain_add(list, "launch time", launch_formula, r->launch_time_s, "s",
		    "%s: %.6g launches, %.6g s each, node %.6g s", serve_launch_name(req->launch), r->kernels_per_step,
		    req->launch == RIDGE_LAUNCH_EAGER ? serve_eager_issue_s(req->gpu) : req->gpu->launch_overhead_s,
		    req->gpu->graph_node_s);
	explain_add(list, "communication",
		    "ridge comm's all-reduces and all-to-alls x (1 - overlap), or --communication-ms",
		    r->communication_s, "s", "%.17g", r->communication_s);
	explain_add(list, "host loop", "the GPU's wait for the host loop between steps (--host-loop, --host-loop-ms)",
		    r->host_loop_s, "s", "%.17g", r->host_loop_s);
	explain_add(list, req->phase == RIDGE_PHASE_DECODE ? "TPOT" : "TTFT",
		    "kernels + launches + communication + host loop", r->step_s, "s", "%.17g + %.17g + %.17g + %.17g",
		    r->kernel_time_s, r->launch_time_s, r->communication_s, r->host_loop_s);
	explain_add(list, "memory time (floor)", "bytes per GPU / bandwidth", r->memory_time_s, "s",
		    "%.17g / (%.17g * %.17g)", r->bytes_per_step, req->tp, req->gpu->memory_bandwidth);
	explain_add(list, "compute time (floor)", "FLOPs per GPU / peak", r->compute_time_s, "s", "%.17g / %.17g GPUs",
		    r->flops_per_step, req->tp);
	explain_add(list, "memory per GPU", "weights stored + KV cache", r->memory_required_per_gpu, "B",
		    "%.17g + %.17g", r->weights_stored_per_gpu, r->kv_cache_per_gpu);
}

/* A kernel's row name: its implementation where the step chose one,
 * "attention (split-kv)", "experts.up_proj (grouped, 7.999 experts)",
 * "expert-index-add (loop)". */
static void kernel_label(const cJSON *k, char *name, size_t len)
{
	if (calc_has(k, "impl"))
		snprintf(name, len, "%s (%s)", calc_str(k, "name"), calc_str(k, "impl"));
	else if (calc_has(k, "groups"))
		snprintf(name, len, "%s (%s, %.4g experts)", calc_str(k, "name"), calc_str(k, "moe_impl"),
			 calc_num(k, "groups"));
	else if (calc_has(k, "moe_impl"))
		snprintf(name, len, "%s (%s)", calc_str(k, "name"), calc_str(k, "moe_impl"));
	else
		snprintf(name, len, "%s", calc_str(k, "name"));
}

static void print_kernels(FILE *out, const cJSON *r)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(r, "kernels");
	if (!cJSON_IsArray(list))
		return;
	int width = 22; /* the name column: as wide as the longest name */
	const cJSON *k;
	char name[96];
	cJSON_ArrayForEach (k, list) {
		kernel_label(k, name, sizeof name);
		width = (int)strlen(name) > width ? (int)strlen(name) : width;
	}
	fprintf(out, "\n  %-*s %10s %12s %12s %12s %10s\n", width, "kernel (per GPU)", "per step", "floor", "predicted",
		"total", "fixed");
	cJSON_ArrayForEach (k, list) {
		char a[32], b[32], c[32], d[32];
		fmt_seconds(calc_num(k, "floor_s"), a, sizeof a);
		fmt_seconds(calc_num(k, "predicted_s"), b, sizeof b);
		fmt_seconds(calc_num(k, "total_s"), c, sizeof c);
		fmt_seconds(calc_num(k, "fixed_cost_s"), d, sizeof d);
		kernel_label(k, name, sizeof name);
		fprintf(out, "  %-*s %10.6g %12s %12s %12s %10s\n", width, name, calc_num(k, "count"), a, b, c, d);
	}
}

/* Where the communication term came from, each collective, and its share of the step. */
static void print_communication(FILE *out, const cJSON *r, const char *step_key)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(r, "communication");
	if (!c)
		return;
	char a[32], b[32], share[32];
	double step = calc_num(r, step_key);
	fmt_percent(step > 0 ? calc_num(c, "exposed_s") / step : 0, share, sizeof share);
	if (strcmp(calc_str(c, "source"), "given") == 0) {
		fprintf(out, "  communication: given (--communication-ms), %s of the step\n", share);
		return;
	}
	static const struct {
		const char *key, *label;
	} parts[] = { { "tp_allreduce", "tensor parallel" }, { "ep_alltoall", "expert parallel" } };
	bool any = false;
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(c, parts[i].key);
		if (!t)
			continue;
		any = true;
		fmt_bytes(calc_num(t, "bytes"), a, sizeof a);
		fmt_seconds(calc_num(t, "time_s"), b, sizeof b);
		fprintf(out, "  %-16s %.6g x %s of %s on %.0f GPUs (%s over %s, %s each)\n", parts[i].label,
			calc_num(t, "count"), calc_str(t, "op"), a, calc_num(t, "gpus"), calc_str(t, "algorithm"),
			calc_str(t, "path"), b);
	}
	if (!any)
		return; /* one GPU: nothing to say */
	fmt_percent(calc_num(c, "overlap"), a, sizeof a);
	fprintf(out, "  communication: %s hidden under the kernels (--comm-overlap), the rest is %s of the step\n", a,
		share);
}

void serve_print(FILE *out, const cJSON *r, const char *step_key)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(r, "model");
	bool decode = strcmp(step_key, "tpot_s") == 0;
	char a[64], b[64], c[64], d[64];
	fprintf(out, "%s: %s on %.0f x %s (tp %.0f), %s launches, weights %s, KV %s\n",
		decode ? "Decode step" : "Prefill", calc_str(m, "file"), calc_num(r, "gpus"), calc_str(r, "gpu"),
		calc_num(r, "tp"), calc_str(r, "launch"), calc_str(r, "weight_dtype"), calc_str(r, "kv_dtype"));
	fprintf(out, "  batch %.0f x %s %.0f; %.6g tokens through the step", calc_num(r, "batch"),
		decode ? "context" : "seq", calc_num(r, decode ? "context" : "seq"), calc_num(r, "tokens"));
	if (calc_has(r, "experts_touched_per_layer"))
		fprintf(out, "; experts touched per MoE layer %.6g", calc_num(r, "experts_touched_per_layer"));
	fprintf(out, "\n");
	fmt_si(calc_num(r, "weight_bytes"), "B", a, sizeof a);
	fmt_si(calc_num(r, "kv_bytes"), "B", b, sizeof b);
	fmt_si(calc_num(r, "bytes_per_step"), "B", c, sizeof c);
	fmt_si(calc_num(r, "flops_per_step"), "FLOP", d, sizeof d);
	fprintf(out, "  weights read %s, KV %s %s, all traffic %s, %s (all GPUs)\n", a, decode ? "read" : "written", b,
		c, d);
	print_kernels(out, r);
	fmt_seconds(calc_num(r, "kernel_time_s"), a, sizeof a);
	fmt_seconds(calc_num(r, "launch_time_s"), b, sizeof b);
	fmt_seconds(calc_num(r, "communication_time_s"), c, sizeof c);
	fmt_seconds(calc_num(r, step_key), d, sizeof d);
	fprintf(out, "\n  %s %s = kernels %s + launches %s (%.6g kernels) + communication %s", decode ? "TPOT" : "TTFT",
		d, a, b, calc_num(r, "kernels_per_step"), c);
	if (calc_num(r, "host_loop_time_s") > 0) {
		const cJSON *h = cJSON_GetObjectItemCaseSensitive(r, "host_loop");
		fmt_seconds(calc_num(r, "host_loop_time_s"), a, sizeof a);
		fprintf(out, " + host loop %s (%s, %s)", a, calc_str(h, "name"), calc_str(h, "provenance"));
	}
	fprintf(out, "\n");
	kernel_time_sum_print(out, r, "  ");
	print_communication(out, r, step_key);
	fmt_seconds(calc_num(r, decode ? "tpot_floor_s" : "ttft_floor_s"), a, sizeof a);
	fmt_seconds(calc_num(r, "memory_time_s"), b, sizeof b);
	fmt_seconds(calc_num(r, "compute_time_s"), c, sizeof c);
	fprintf(out, "  roofline floor %s (memory %s, compute %s: %s-bound)\n", a, b, c, calc_str(r, "bound"));
	fmt_grouped(calc_num(r, "tokens_per_s"), 1, a, sizeof a);
	fmt_usd(calc_num(r, "usd_per_million_tokens"), b, sizeof b);
	fprintf(out, "  %s tokens/s, %s per million tokens\n", a, b);
	fmt_bytes(calc_num(r, "memory_required_bytes"), a, sizeof a);
	fmt_bytes(calc_num(r, "memory_available_bytes"), b, sizeof b);
	fprintf(out, "  memory per GPU: %s of %s%s; the largest batch that fits: %.0f\n", a, b,
		cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "fits")) ? "" : " (DOES NOT FIT)",
		calc_num(r, "max_batch"));
	const cJSON *sweep = cJSON_GetObjectItemCaseSensitive(r, "sweep");
	if (cJSON_IsArray(sweep)) {
		fprintf(out, "\n  %6s %9s %12s %14s %12s %5s\n", "batch", "context", "TPOT", "tokens/s", "$/M tokens",
			"fits");
		const cJSON *row;
		cJSON_ArrayForEach (row, sweep) {
			fmt_seconds(calc_num(row, "tpot_s"), a, sizeof a);
			fmt_grouped(calc_num(row, "tokens_per_s"), 1, b, sizeof b);
			fmt_usd(calc_num(row, "usd_per_million_tokens"), c, sizeof c);
			fprintf(out, "  %6.0f %9.0f %12s %14s %12s %5s\n", calc_num(row, "batch"),
				calc_num(row, "context"), a, b, c,
				cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row, "fits")) ? "yes" : "NO");
		}
	}
	const cJSON *steps = cJSON_GetObjectItemCaseSensitive(r, "explain");
	if (cJSON_IsArray(steps)) {
		fprintf(out, "\nExplain: every term\n");
		int n = 0;
		const cJSON *s;
		cJSON_ArrayForEach (s, steps) {
			char exact[48];
			cost_format_exact(calc_num(s, "value"), exact, sizeof exact);
			fprintf(out, "  %2d. %s = %s\n        = %s\n        = %s %s\n", ++n, calc_str(s, "label"),
				calc_str(s, "formula"), calc_str(s, "substituted"), exact, calc_str(s, "unit"));
		}
	}
}

cJSON *serve_run(struct calc_input *in, const struct serve_params *p)
{
	enum ridge_serve_phase phase = p->phase;
	const struct param_values *v = in->values;
	cJSON *o = cJSON_CreateObject();
	calc_json_gpu(o, in->gpu);
	struct app_model_config *config = malloc(sizeof *config);
	struct ridge_serve_result *r = malloc(sizeof *r);
	if (!config || !r) {
		calc_fail(in, "out of memory");
		goto bad;
	}
	struct ridge_serve_request req;
	double replicas = 1;
	if (serve_request_from(in, p, config, &req, &replicas, o) != 0)
		goto bad;
	char err[400];
	if (serve_step(&req, r, err, sizeof err) != 0) {
		calc_fail(in, "%s", err);
		goto bad;
	}
	const char *key = phase == RIDGE_PHASE_DECODE ? "tpot_s" : "ttft_s";
	serve_json_result(o, r, key, replicas, true);
	if (phase == RIDGE_PHASE_DECODE && params_flag(v, p->sweep)) {
		cJSON *sweep = cJSON_AddArrayToObject(o, "sweep");
		for (double context = 1024; context <= 131072; context *= 2)
			for (double batch = 1; batch <= 1024; batch *= 2) {
				struct ridge_serve_request q = req;
				q.batch = batch;
				q.context = context;
				cJSON *scratch =
					cJSON_CreateObject(); /* the row's communication, recomputed for its batch */
				int comm_rc = serve_communication(in, p, &q, scratch);
				cJSON_Delete(scratch);
				if (comm_rc != 0)
					goto bad;
				if (serve_step(&q, r, err, sizeof err) != 0) {
					calc_fail(in, "batch %g, context %g: %s", batch, context, err);
					goto bad;
				}
				cJSON *row = cJSON_CreateObject();
				json_number(row, "batch", batch);
				json_number(row, "context", context);
				json_number(row, "tpot_s", r->step_s);
				json_number(row, "tokens_per_s", replicas * r->tokens_per_s);
				json_number(row, "usd_per_million_tokens", r->usd_per_million_tokens);
				cJSON_AddBoolToObject(row, "fits", r->fits);
				cJSON_AddItemToArray(sweep, row);
			}
		if (serve_step(&req, r, err, sizeof err) != 0) {
			calc_fail(in, "%s", err);
			goto bad;
		}
	}
	if (params_flag(v, p->explain))
		serve_json_explain(o, &req, r);
	free(config);
	free(r);
	return o;
bad:
	free(config);
	free(r);
	cJSON_Delete(o);
	return NULL;
}
