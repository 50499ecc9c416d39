/* ridge cost decode --model and ridge cost prefill (app/calc/cost_model_calc.c): a
 * model config through model/serve.c, as the commands' JSON and print. */
#ifndef RIDGE_APP_COST_MODEL_CALC_H
#define RIDGE_APP_COST_MODEL_CALC_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#include "calc.h"
#include "model_config.h"
#include "serve.h"

/* Where the run finds its inputs in the calculator's table: each index is
 * the row's in decode's or prefill's table (cost_decode_calc.c defines the
 * two); -1: the table has no such row (prefill's sweep). */
struct serve_params {
	enum ridge_serve_phase phase;
	int model, batch, tokens /* context (decode) or seq (prefill) */, gpus, tp, launch, kernels_per_layer;
	int weight_dtype, weight_group, kv_dtype, kv_group, compute_dtype, impl, moe_impl, fused_projections, layer_ops,
		efficiency, fixed_cost;
	int communication_ms, expert_parallel, custom_allreduce, comm_overlap, network_bw, price, sweep, explain,
		assume_family;
	int host_loop, host_loop_ms;
};
extern const struct serve_params serve_decode_params, serve_prefill_params;

/* The request from the calculator's inputs (model, batch, context or seq,
 * gpus, tp, dtypes and groups, launch, kernels_per_layer, impl, moe_impl,
 * communication_ms, price) at p's rows; config receives the model it points
 * to. *replicas = gpus / tp. Returns 0, or -1 with in->err (empty: printed). */
int serve_request_from(struct calc_input *in, const struct serve_params *p, struct app_model_config *config,
		       struct ridge_serve_request *req, double *replicas, cJSON *o);

/* The result's keys; step_key "tpot_s" or "ttft_s"; kernels: the per-kernel list. */
void serve_json_result(cJSON *o, const struct ridge_serve_result *r, const char *step_key, double replicas,
		       bool kernels);
void serve_json_explain(cJSON *o, const struct ridge_serve_request *req, const struct ridge_serve_result *r);

/* The scale bytes and default group of a storage type ("int4": fp16 scales
 * per 128; "fp4": NVFP4, an fp8 scale per 16; others none). */
void serve_storage_scale(const char *name, double *scale_bytes, double *group);
/* The whole run and the print of its JSON. */
cJSON *serve_run(struct calc_input *in, const struct serve_params *p);
void serve_print(FILE *out, const cJSON *result, const char *step_key);

/* The model description's keys (cmd_model.c): ridge model and the cost
 * commands' "model" object. */
void app_json_workload_model(cJSON *o, const struct app_model_config *c);

#endif
