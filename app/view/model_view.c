/* ridge model's view of a model config (model_view.h): what ridge understood
 * (app/read/model_config.c reads it, model/workload.c does the arithmetic). */
#include "model_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "calc.h"
#include "cost.h"
#include "model_config.h"
#include "cost_model_calc.h"
#include "workload.h"
#include "json_fields.h"

/* The model description, the keys as model/workload.h names them. */
void app_json_workload_model(cJSON *o, const struct app_model_config *c)
{
	const struct ridge_workload_model *w = &c->workload;
	cJSON_AddStringToObject(o, "model_type", c->model_type);
	cJSON_AddStringToObject(o, "family", w->experts > 0 ? "moe" : "dense");
	cJSON_AddStringToObject(o, "attention",
				w->mla                   ? "mla"
				: w->kv_heads == 1       ? "mqa"
				: w->kv_heads < w->heads ? "gqa"
							 : "mha");
	static const struct json_field workload_model_fields[] = {
		JSON_FIELD_AS(struct ridge_workload_model, "hidden_size", hidden),
		JSON_FIELD_AS(struct ridge_workload_model, "intermediate_size", intermediate),
		JSON_FIELD_AS(struct ridge_workload_model, "num_hidden_layers", layers),
		JSON_FIELD_AS(struct ridge_workload_model, "num_attention_heads", heads),
		JSON_FIELD_AS(struct ridge_workload_model, "num_key_value_heads", kv_heads),
		JSON_FIELDS(struct ridge_workload_model, head_dim),
		JSON_FIELD_AS(struct ridge_workload_model, "vocab_size", vocab),
		JSON_FIELD_AS(struct ridge_workload_model, "tie_word_embeddings", tied_embeddings),
		JSON_FIELDS(struct ridge_workload_model, qkv_bias, sliding_window),
	};
	json_put_fields(o, w, workload_model_fields, JSON_FIELD_COUNT(workload_model_fields));
	if (c->extras.nested)
		cJSON_AddStringToObject(o, "wrapper_model_type", c->extras.wrapper_type);
	if (c->assume_family[0])
		cJSON_AddStringToObject(o, "assumed_family", c->assume_family);
	cJSON *plan = cJSON_AddObjectToObject(o, "layer_plan");
	json_number(plan, "global_layers", (double)workload_global_layers(w));
	json_number(plan, "local_layers", (double)workload_local_layers(w));
	json_number(plan, "window", (double)w->sliding_window);
	cJSON_AddBoolToObject(plan, "chunked", w->chunked_attention);
	cJSON_AddStringToObject(plan, "text", c->layer_plan[0] ? c->layer_plan : "every layer global");
	cJSON_AddStringToObject(plan, "source", c->plan_source);
	if (w->experts > 0) {
		static const struct json_field workload_model_experts_fields[] = {
			JSON_FIELDS(struct ridge_workload_model, experts, experts_per_token),
			JSON_FIELD_AS(struct ridge_workload_model, "expert_intermediate_size", expert_intermediate),
			JSON_FIELD_AS(struct ridge_workload_model, "shared_expert_intermediate_size",
				      shared_intermediate),
			JSON_FIELDS(struct ridge_workload_model, dense_layers),
		};
		json_put_fields(o, w, workload_model_experts_fields, JSON_FIELD_COUNT(workload_model_experts_fields));
		json_number(o, "moe_layers", (double)workload_moe_layers(w));
	}
	if (w->mla) {
		static const struct json_field workload_model_q_lora_rank_fields[] = {
			JSON_FIELDS(struct ridge_workload_model, q_lora_rank, kv_lora_rank, qk_nope_head_dim,
				    qk_rope_head_dim, v_head_dim),
		};
		json_put_fields(o, w, workload_model_q_lora_rank_fields,
				JSON_FIELD_COUNT(workload_model_q_lora_rank_fields));
	}
}

/* How the checkpoint stores its weights (quantization_config, else bf16)
 * and the bytes that makes: each group's parameters in its storage, the
 * norms and biases in bf16. */
static void model_storage_json(cJSON *doc, const struct app_model_config *c, const struct ridge_workload_params *p)
{
	const struct ridge_workload_model *w = &c->workload;
	const struct app_model_extras *x = &c->extras;
	cJSON *o = cJSON_AddObjectToObject(doc, "storage");
	double experts = (double)workload_moe_layers(w) * (double)w->experts * p->expert;
	double table = p->embedding + p->lm_head;
	double other = p->total - experts - table;
	double bf16 = 2;
	double dense_b = x->quantized ? serve_storage_bytes(&x->dense.storage) : bf16;
	double expert_b = x->quantized ? serve_storage_bytes(&x->experts.storage) : bf16;
	double table_b = x->quantized ? serve_storage_bytes(&x->embedding.storage) : bf16;
	cJSON_AddStringToObject(o, "source", x->quantized ? x->quant_note : "no quantization_config: bf16");
	cJSON_AddStringToObject(o, "dense", x->quantized ? x->dense.name : "bf16");
	if (w->experts > 0)
		cJSON_AddStringToObject(o, "experts", x->quantized ? x->experts.name : "bf16");
	cJSON_AddStringToObject(o, "embedding", x->quantized ? x->embedding.name : "bf16");
	json_number(o, "dense_bytes_per_weight", dense_b);
	json_number(o, "expert_bytes_per_weight", expert_b);
	json_number(o, "embedding_bytes_per_weight", table_b);
	json_number(o, "weight_bytes", other * dense_b + experts * expert_b + table * table_b);
}

static cJSON *model_document(const char *path, const struct app_model_config *c, double tokens, const char *kv_name,
			     double kv_bytes, struct app_status *st)
{
	const struct ridge_workload_model *w = &c->workload;
	struct ridge_workload_params p;
	struct ridge_workload_gemm g[RIDGE_WORKLOAD_MAX_GEMMS];
	struct ridge_kv_layout kv;
	char err[700];
	int n = workload_gemms(w, tokens, g, err, sizeof err);
	if (n < 0 || workload_params(w, &p, err, sizeof err) || workload_kv_layout(w, 1, &kv, err, sizeof err)) {
		app_error(st, "%s: %s", path, err);
		return NULL;
	}
	double touched = workload_experts_touched((double)w->experts, (double)w->experts_per_token, tokens);
	struct ridge_layer_kernel k[RIDGE_WORKLOAD_MAX_OPS];
	int nk = workload_layer_kernels(w, g, n, touched, k);

	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "file", path);
	app_json_workload_model(cJSON_AddObjectToObject(doc, "model"), c);
	cJSON *pj = cJSON_AddObjectToObject(doc, "params");
	static const struct json_field workload_params_fields[] = {
		JSON_FIELDS(struct ridge_workload_params, total, active, matmul_active, embedding, lm_head,
			    attention_per_layer, dense_mlp_per_layer, expert),
		JSON_FIELD_AS(struct ridge_workload_params, "shared_expert_per_layer", shared_per_layer),
		JSON_FIELDS(struct ridge_workload_params, router_per_layer),
	};
	json_put_fields(pj, &p, workload_params_fields, JSON_FIELD_COUNT(workload_params_fields));
	json_number(pj, "active_without_embedding", p.active_without_embedding);
	if (c->extras.vision) {
		json_number(pj, "vision_tower", c->extras.vision_params);
		json_number(pj, "total_with_vision_tower", p.total + c->extras.vision_params);
		cJSON_AddStringToObject(pj, "vision_tower_note", c->extras.vision_note);
	}
	model_storage_json(doc, c, &p);
	cJSON *kj = cJSON_AddObjectToObject(doc, "kv_cache");
	cJSON_AddStringToObject(kj, "kv_dtype", kv_name);
	json_number(kj, "elements_per_token_per_layer", kv.elements_per_token_layer);
	json_number(kj, "kv_bytes_per_token", kv.elements_per_token_layer * (double)w->layers * kv_bytes);
	json_number(kj, "kv_bytes_per_token_per_layer", kv.elements_per_token_layer * kv_bytes);
	json_number(kj, "global_layers", (double)workload_global_layers(w));
	json_number(kj, "local_layers", (double)workload_local_layers(w));
	json_number(kj, "local_window", (double)w->sliding_window);
	json_number(doc, "tokens", tokens);
	if (w->experts > 0)
		json_number(doc, "experts_touched_per_layer", touched);
	cJSON *gj = cJSON_AddArrayToObject(doc, "gemms");
	for (int i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", g[i].name);
		json_number(o, "m", g[i].m);
		json_number(o, "n", (double)g[i].n);
		json_number(o, "k", (double)g[i].k);
		cJSON_AddStringToObject(o, "n_from", g[i].n_from);
		cJSON_AddStringToObject(o, "k_from", g[i].k_from);
		json_number(o, "instances_per_layer", g[i].instances);
		json_number(o, "layers", g[i].layers);
		cJSON_AddBoolToObject(o, "expert", g[i].expert);
		json_number(o, "flops", 2 * g[i].m * (double)g[i].n * (double)g[i].k * g[i].instances * g[i].layers);
		cJSON_AddItemToArray(gj, o);
	}
	cJSON *lj = cJSON_AddArrayToObject(doc, "layer_kernels");
	for (int i = 0; i < nk; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "op", workload_op_name(k[i].op));
		if (k[i].gemm >= 0)
			cJSON_AddStringToObject(o, "gemm", g[k[i].gemm].name);
		json_number(o, "instances", k[i].instances);
		cJSON_AddStringToObject(o, "layers", k[i].moe ? "moe" : k[i].dense ? "dense" : "all");
		cJSON_AddItemToArray(lj, o);
	}
	cJSON *wj = cJSON_AddArrayToObject(doc, "warnings");
	for (int i = 0; i < c->warning_count; i++)
		cJSON_AddItemToArray(wj, cJSON_CreateString(c->warnings[i]));
	return doc;
}

void model_view_print(FILE *out, const cJSON *d)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(d, "model");
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(d, "params");
	const cJSON *kv = cJSON_GetObjectItemCaseSensitive(d, "kv_cache");
	char a[64], b[64], c[64];
	fprintf(out,
		"model: %s (%s): %s, %s attention, %.0f layers, hidden %.0f, %.0f heads (%.0f KV, head_dim %.0f), vocab %.0f%s\n",
		calc_str(d, "file"), calc_str(m, "model_type")[0] ? calc_str(m, "model_type") : "no model_type",
		calc_str(m, "family"), calc_str(m, "attention"), calc_num(m, "num_hidden_layers"),
		calc_num(m, "hidden_size"), calc_num(m, "num_attention_heads"), calc_num(m, "num_key_value_heads"),
		calc_num(m, "head_dim"), calc_num(m, "vocab_size"),
		cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "tie_word_embeddings")) ? ", tied embeddings" : "");
	const cJSON *plan = cJSON_GetObjectItemCaseSensitive(m, "layer_plan");
	if (calc_num(plan, "local_layers") > 0)
		fprintf(out, "  layer plan: %s (%s)\n", calc_str(plan, "text"), calc_str(plan, "source"));
	if (calc_has(m, "wrapper_model_type"))
		fprintf(out, "  the language model of a '%s' config (text_config)\n",
			calc_str(m, "wrapper_model_type"));
	if (calc_has(m, "experts"))
		fprintf(out,
			"  MoE: %.0f routed experts, top-%.0f, %.0f wide; shared expert MLP %.0f wide; %.0f dense + %.0f MoE layers\n",
			calc_num(m, "experts"), calc_num(m, "experts_per_token"),
			calc_num(m, "expert_intermediate_size"), calc_num(m, "shared_expert_intermediate_size"),
			calc_num(m, "dense_layers"), calc_num(m, "moe_layers"));
	if (calc_has(m, "kv_lora_rank"))
		fprintf(out,
			"  MLA: q_lora_rank %.0f, kv_lora_rank %.0f, qk_nope %.0f + qk_rope %.0f, v_head_dim %.0f\n",
			calc_num(m, "q_lora_rank"), calc_num(m, "kv_lora_rank"), calc_num(m, "qk_nope_head_dim"),
			calc_num(m, "qk_rope_head_dim"), calc_num(m, "v_head_dim"));
	fmt_grouped(calc_num(p, "total"), 0, a, sizeof a);
	fmt_grouped(calc_num(p, "active"), 0, b, sizeof b);
	fmt_grouped(calc_num(p, "matmul_active"), 0, c, sizeof c);
	fprintf(out, "parameters: %s total, %s active per token (%s multiplied: without the input table and norms)\n",
		a, b, c);
	fmt_grouped(calc_num(p, "active_without_embedding"), 0, a, sizeof a);
	fprintf(out,
		"  active without the input table: %s (gpt-oss's card counts so; Mixtral's and Qwen3's count "
		"the table)\n",
		a);
	if (calc_has(p, "vision_tower")) {
		fmt_grouped(calc_num(p, "total_with_vision_tower"), 0, a, sizeof a);
		fprintf(out, "  %s; total with it: %s\n", calc_str(p, "vision_tower_note"), a);
	}
	const cJSON *sj = cJSON_GetObjectItemCaseSensitive(d, "storage");
	fmt_bytes(calc_num(sj, "weight_bytes"), a, sizeof a);
	if (calc_has(sj, "experts"))
		fprintf(out, "stored as: experts %s, dense layers %s, embeddings %s (%s): %s of weights\n",
			calc_str(sj, "experts"), calc_str(sj, "dense"), calc_str(sj, "embedding"),
			calc_str(sj, "source"), a);
	else
		fprintf(out, "stored as: layers %s, embeddings %s (%s): %s of weights\n", calc_str(sj, "dense"),
			calc_str(sj, "embedding"), calc_str(sj, "source"), a);
	fmt_grouped(calc_num(kv, "kv_bytes_per_token"), 0, a, sizeof a);
	fprintf(out, "KV cache: %s B per token (%s; %.0f elements per token per layer%s)\n", a,
		calc_str(kv, "kv_dtype"), calc_num(kv, "elements_per_token_per_layer"),
		calc_has(m, "kv_lora_rank") ? ": the compressed latent, kv_lora_rank + qk_rope_head_dim"
					    : ": 2 x KV heads x head_dim");
	if (calc_num(kv, "local_layers") > 0) {
		fmt_grouped(calc_num(kv, "kv_bytes_per_token_per_layer"), 0, a, sizeof a);
		fprintf(out,
			"  per layer: %s B per token; %.0f global layers keep every token, %.0f %s layers at most "
			"%.0f\n",
			a, calc_num(kv, "global_layers"), calc_num(kv, "local_layers"),
			cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(plan, "chunked")) ? "chunked" : "sliding-window",
			calc_num(kv, "local_window"));
	}
	fprintf(out, "\nGEMMs at %.0f token%s (M x N x K; an expert sees tokens x k / E)", calc_num(d, "tokens"),
		calc_num(d, "tokens") == 1 ? "" : "s");
	if (calc_has(d, "experts_touched_per_layer"))
		fprintf(out, "; experts touched per layer %.6g", calc_num(d, "experts_touched_per_layer"));
	fprintf(out, "\n  %-26s %12s %10s %10s %9s %7s  %s\n", "GEMM", "M", "N", "K", "per layer", "layers", "N from");
	const cJSON *g;
	cJSON_ArrayForEach (g, cJSON_GetObjectItemCaseSensitive(d, "gemms")) {
		fprintf(out, "  %-26s %12.6g %10.0f %10.0f %9.0f %7.0f  %s\n", calc_str(g, "name"), calc_num(g, "m"),
			calc_num(g, "n"), calc_num(g, "k"), calc_num(g, "instances_per_layer"), calc_num(g, "layers"),
			calc_str(g, "n_from"));
	}
	fprintf(out, "\nkernels of a layer:");
	const cJSON *k;
	int count = 0;
	cJSON_ArrayForEach (k, cJSON_GetObjectItemCaseSensitive(d, "layer_kernels")) {
		const char *name = calc_has(k, "gemm") || cJSON_GetObjectItemCaseSensitive(k, "gemm")
					   ? calc_str(k, "gemm")
					   : calc_str(k, "op");
		if (calc_num(k, "instances") != 1)
			fprintf(out, "%s %s x%.4g", count ? "," : "", name, calc_num(k, "instances"));
		else
			fprintf(out, "%s %s", count ? "," : "", name);
		if (strcmp(calc_str(k, "layers"), "all") != 0)
			fprintf(out, " (%s layers)", calc_str(k, "layers"));
		count++;
	}
	fprintf(out, "\n");
}

cJSON *model_view_document(const char *path, const char *assume, double tokens, const char *kv_name,
			   struct app_status *st)
{
	double kv_bytes;
	if (!cost_storage_bytes(kv_name, &kv_bytes)) {
		app_error_flag(st, "--kv-dtype", "unknown storage type '%s' (known: %s)", kv_name, cost_storage_list());
		return NULL;
	}
	struct app_model_config *config = malloc(sizeof *config);
	if (!config) {
		app_error_env(st, "out of memory");
		return NULL;
	}
	if (app_model_config_load_as(path, assume, config, st) != 0) {
		free(config);
		return NULL;
	}
	char err[700];
	if (app_model_config_workload(config, path, &config->workload, err, sizeof err) != 0) {
		app_error(st, "%s", err);
		free(config);
		return NULL;
	}
	cJSON *doc = model_document(path, config, tokens, kv_name, kv_bytes, st);
	if (doc)
		for (int i = 0; i < config->warning_count; i++)
			app_warning(st, "%s: %s", path, config->warnings[i]);
	free(config);
	return doc;
}

/* ---- the command line: ridge model FILE ---- */

static const char model_synopsis[] =
	"usage: ridge model FILE [--tokens T] [--kv-dtype DT] [--assume-family TYPE] [--json]\n"
	"       ridge model --families";
static const char model_description[] =
	"Reads a Hugging Face config.json (or the same keys in YAML) and prints what ridge understood:\n"
	"the architecture (dense, GQA/MQA, sliding window, MoE routed and shared experts, MLA), the\n"
	"parameters (total; active per token), every weight GEMM of a layer as M x N x K for T tokens\n"
	"(an expert GEMM sees T x k / E of them), the KV-cache bytes per token and the kernels one\n"
	"layer launches, the layer plan (per-layer sliding-window, chunked or global attention) and how\n"
	"the checkpoint stores its weights (quantization_config). A multimodal wrapper's language model\n"
	"(text_config) is read, its vision tower counted apart. Keys it cannot interpret are named in\n"
	"warnings; a family it does not model (state-space and hybrid layers) is refused, naming the\n"
	"keys, unless --assume-family reads it as a dense decoder knowingly. --families lists them.\n";

static const struct param model_view_params[] = PARAMS_ROWS(MODEL_VIEW_PARAMS);

const struct params_command model_params_command = {
	.name = "model",
	PARAMS_COMMAND_TABLE(model_view_params),
	.synopsis = model_synopsis,
	.description = model_description,
	.operands = 1, /* run_model needs it unless --families */
};
