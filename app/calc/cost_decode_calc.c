/* ridge cost decode and ridge cost prefill (the scenario kinds cost-decode and cost-prefill): the tables of inputs, the run on model/cost.h or, with a model config, on app/calc/cost_model_calc.c, the JSON and the text. */
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

/* ---- cost decode ---- */

/* clang-format off */
#define SERVE_PARAMS                                                                                            \
	{ "tp", PARAM_INTEGER, 0, NULL, 1, 1e6, 0, "T", "--model: tensor-parallel GPUs per replica (default --gpus)", NULL, NULL }, \
	{ "launch", PARAM_TEXT, 0, NULL, 0, 0, 0, "MODE", "--model: eager, graph (default) or persistent", NULL, NULL },      \
	{ "kernels_per_layer", PARAM_INTEGER, 0, NULL, 1, 1e6, 0, "K",                                              \
	  "--model: kernels launched per layer (default: the modelled sequence)", NULL, NULL },                          \
	{ "weight_group", PARAM_INTEGER, 0, NULL, 0, 1e9, 0, "G",                                                   \
	  "--model: weights per quantization scale (default int4 128, fp4 16, else none)", NULL, NULL },                 \
	{ "kv_group", PARAM_INTEGER, 0, NULL, 0, 1e9, 0, "G", "--model: cache elements per scale (defaults as weights)", \
	  NULL, NULL },                                                                                                   \
	{ "impl", PARAM_TEXT, 0, NULL, 0, 0, 0, "IMPL", "--model: attention implementation (default ideal fa2 fa3 cudnn)", \
	  NULL, NULL },                                                                                                   \
	{ "communication_ms", PARAM_NUMBER, RIDGE_UNIT_SECONDS, "ms", 0, 3600, 0, "T",                               \
	  "--model: per-step communication time, ms, instead of ridge comm's model of it", "0 to 3600 s", NULL },          \
	{ "expert_parallel", PARAM_FLAG, 0, NULL, 0, 0, 0, NULL,                                                    \
	  "--model: whole experts on the tp GPUs, all-to-alls instead of the MoE layers' all-reduce", NULL, NULL },       \
	{ "comm_overlap", PARAM_FRACTION, 0, NULL, 0, 1, 0, "F",                                                    \
	  "--model: share of the communication hidden under the kernels (default 0)", NULL, NULL },                      \
	{ "network_bw", PARAM_NUMBER, RIDGE_UNIT_BYTES_PER_S, NULL, 0, 1e15, PARAM_OPEN_LO, "B/s",                  \
	  "--model: network bandwidth per GPU past the fabric domain (tp larger than one node)", "greater than 0", NULL }
/* How decode and prefill store the weights and the KV cache. */
#define STORAGE_PARAMS                                                                                          \
	{ "weight_dtype", PARAM_TEXT, 0, NULL, 0, 0, 0, "DT",                                                       \
	  "weight storage: fp32 bf16 fp16 fp8 int8 int4 fp4 (default bf16)", NULL, NULL },                            \
	{ "kv_dtype", PARAM_TEXT, 0, NULL, 0, 0, 0, "DT", "KV-cache storage", NULL, "bf16" }
/* clang-format on */

static const struct param decode_params[] = {
	{ "model", PARAM_TEXT, 0, NULL, 0, 0, 0, "FILE",
	  "a Hugging Face config.json: every kernel of a step priced (instead of --params ...)", NULL, NULL },
	{ "params", PARAM_NUMBER, RIDGE_UNIT_COUNT, NULL, 0, INFINITY, PARAM_MODEL | PARAM_OPEN_LO, "N",
	  "active parameters per token", "greater than 0", NULL },
	{ "layers", PARAM_INTEGER, 0, NULL, 1, 1e6, PARAM_MODEL, "L", "layers", NULL, NULL },
	{ "kv_heads", PARAM_INTEGER, 0, NULL, 1, 1e6, PARAM_MODEL, "H", "key/value heads (GQA)", NULL, NULL },
	{ "head_dim", PARAM_INTEGER, 0, NULL, 1, 1e6, PARAM_MODEL, "D", "head dimension", NULL, NULL },
	{ "context", PARAM_INTEGER, 1, NULL, 1, 1e12, PARAM_REQUIRED, "C", "tokens in each request's KV cache", NULL,
	  NULL },
	{ "batch", PARAM_INTEGER, 0, NULL, 1, 1e9, PARAM_REQUIRED, "B", "requests decoded together", NULL, NULL },
	{ "gpus", PARAM_INTEGER, 0, NULL, 1, 1e6, PARAM_REQUIRED, "G",
	  "GPUs sharing weights and cache (tensor parallel)", NULL, NULL },
	SERVE_PARAMS,
	PRICE_PARAM("USD per GPU-hour (default: the GPU's hwdb price)"),
	STORAGE_PARAMS,
	{ "compute_dtype", PARAM_TEXT, 0, NULL, 0, 0, 0, "DT", "dtype of the GEMMs, for the peak", NULL, "bf16" },
	{ "peak", PARAM_NUMBER, RIDGE_UNIT_FLOPS, NULL, 0, INFINITY, PARAM_OPEN_LO, "FLOPS",
	  "peak per GPU instead of hwdb's", "greater than 0", NULL },
	{ "overhead_ms", PARAM_NUMBER, RIDGE_UNIT_SECONDS, "ms", 0, 3600, 0, "T",
	  "per-step time added to the roofline floor, ms (launches, communication)", "0 to 3600 s", NULL },
	{ "sweep", PARAM_FLAG, 0, NULL, 0, 0, 0, NULL, "also every batch 1, 2, 4 ... 1024", NULL, NULL },
	EXPLAIN_PARAM,
	CALC_GPU_PARAMS,
	CALC_JSON_PARAM,
};

static int storage(struct calc_input *in, const char *param, double *bytes, cJSON *o)
{
	const char *name = params_text(in->values, param);
	if (!name)
		name = "bf16";
	if (!cost_storage_bytes(name, bytes))
		return calc_fail(in, "%s: unknown storage type '%s' (known: %s)", params_where(in->values, param), name,
				 cost_storage_list());
	cJSON_AddStringToObject(o, param, name);
	char key[64];
	snprintf(key, sizeof key, "%s_bytes", param);
	json_number(o, key, *bytes);
	return 0;
}

/* A --sweep row: the step's traffic, its time and what it costs. */
static const struct json_field sweep_row_fields[] = {
	JSON_FIELDS(struct ridge_decode_result, bytes_per_step, tpot_s, tokens_per_s, usd_per_million_tokens),
};
static const struct json_field decode_fields[] = {
	JSON_FIELDS(struct ridge_decode_result, kv_bytes_per_token, weight_bytes, kv_bytes, bytes_per_step,
		    flops_per_step, intensity, ridge_point, memory_time_s, compute_time_s, tpot_s, tokens_per_s,
		    usd_per_million_tokens),
};
static const struct json_field decode_memory_fields[] = {
	JSON_FIELD_AS(struct ridge_decode_result, "memory_required_bytes", memory_required),
	JSON_FIELD_AS(struct ridge_decode_result, "memory_available_bytes", memory_available),
	JSON_FIELD(struct ridge_decode_result, fits),
};

void calc_json_decode(cJSON *o, const struct ridge_decode_result *r)
{
	json_put_fields(o, r, decode_fields, JSON_FIELD_COUNT(decode_fields));
	cJSON_AddStringToObject(o, "bound", cost_bound_name(r->bound));
	json_put_fields(o, r, decode_memory_fields, JSON_FIELD_COUNT(decode_memory_fields));
	if (r->has_crossover)
		json_number(o, "crossover_batch", r->crossover_batch);
	else
		cJSON_AddNullToObject(o, "crossover_batch");
}

/* --model prices every kernel (app/calc/cost_model_calc.c); the hand-typed shape
 * (--params --layers --kv-heads --head-dim) keeps the step-level roofline. */
static const char *const hand_shape[] = { "params", "layers", "kv_heads", "head_dim", NULL };
static const char *const model_only[] = { "tp",   "launch",           "kernels_per_layer", "weight_group", "kv_group",
					  "impl", "communication_ms", "expert_parallel",   "comm_overlap", "network_bw",
					  NULL };

static int check_decode_inputs(struct calc_input *in, bool *model)
{
	const struct param_values *v = in->values;
	*model = params_has(v, "model");
	for (int i = 0; *model && hand_shape[i]; i++)
		if (params_has(v, hand_shape[i]))
			return calc_fail(
				in,
				"%s: give the model as --model FILE or as --params --layers --kv-heads --head-dim, not both",
				params_where(v, hand_shape[i]));
	if (*model && (params_has(v, "overhead_ms") || params_has(v, "peak")))
		return calc_fail(
			in,
			"%s: with --model the launches are modelled (--launch) and communication is --communication-ms",
			params_where(v, params_has(v, "peak") ? "peak" : "overhead_ms"));
	for (int i = 0; !*model && hand_shape[i]; i++)
		if (!params_has(v, hand_shape[i]))
			return in->item ? calc_fail(in, "missing key '%s' (in the item or the model section)",
						    hand_shape[i])
					: calc_fail(in, "%s is required (see 'ridge cost decode --help')",
						    params_where(v, hand_shape[i]));
	for (int i = 0; !*model && model_only[i]; i++)
		if (params_has(v, model_only[i]))
			return calc_fail(in, "%s needs --model FILE", params_where(v, model_only[i]));
	return 0;
}

static cJSON *decode_run(struct calc_input *in)
{
	const struct param_values *v = in->values;
	bool model;
	if (check_decode_inputs(in, &model) != 0)
		return NULL;
	if (model)
		return serve_run(in, RIDGE_PHASE_DECODE);
	struct ridge_decode_input di = { 0 };
	cJSON *o = cJSON_CreateObject();
	calc_json_gpu(o, in->gpu);
	if (storage(in, "weight_dtype", &di.weight_bytes, o) != 0 || storage(in, "kv_dtype", &di.kv_bytes, o) != 0 ||
	    cost_resolve_peak(in, "compute_dtype", &di.peak_flops, o) != 0 ||
	    cost_resolve_price(in, &di.price_usd_per_gpu_hour, o) != 0) {
		cJSON_Delete(o);
		return NULL;
	}
	static const struct json_field decode_inputs[] = {
		JSON_FIELDS(struct ridge_decode_input, params, layers, kv_heads, head_dim, context, batch, gpus),
	};
	params_read_fields(v, &di, decode_inputs, JSON_FIELD_COUNT(decode_inputs));
	di.bandwidth = in->gpu->memory_bandwidth;
	di.memory_bytes = ridge_gpu_usable_memory(in->gpu);
	di.overhead_s = params_has(v, "overhead_ms") ? params_num(v, "overhead_ms") : 0;
	static const struct json_field decode_input_fields[] = {
		JSON_FIELDS(struct ridge_decode_input, bandwidth, params, layers, kv_heads, head_dim, context, batch,
			    gpus, overhead_s),
	};
	json_put_fields(o, &di, decode_input_fields, JSON_FIELD_COUNT(decode_input_fields));

	struct ridge_explain *ex = params_flag(v, "explain") ? calloc(1, sizeof *ex) : NULL;
	struct ridge_decode_result r;
	char err[400];
	if (cost_decode(&di, &r, ex, err, sizeof err) != 0) {
		calc_fail(in, "%s", err);
		free(ex);
		cJSON_Delete(o);
		return NULL;
	}
	calc_json_decode(o, &r);
	if (params_flag(v, "sweep")) {
		cJSON *sweep = cJSON_AddArrayToObject(o, "sweep");
		double batches[16];
		int n = 0;
		bool placed = false;
		for (double b = 1; b <= 1024; b *= 2) {
			if (!placed && di.batch < b) {
				batches[n++] = di.batch;
				placed = true;
			}
			placed |= di.batch == b;
			batches[n++] = b;
		}
		if (!placed)
			batches[n++] = di.batch;
		for (int i = 0; i < n; i++) {
			struct ridge_decode_input d = di;
			struct ridge_decode_result s;
			d.batch = batches[i];
			if (cost_decode(&d, &s, NULL, err, sizeof err) != 0) {
				calc_fail(in, "batch %g: %s", d.batch, err);
				free(ex);
				cJSON_Delete(o);
				return NULL;
			}
			cJSON *row = cJSON_CreateObject();
			json_number(row, "batch", d.batch);
			json_put_fields(row, &s, sweep_row_fields, JSON_FIELD_COUNT(sweep_row_fields));
			cJSON_AddStringToObject(row, "bound", cost_bound_name(s.bound));
			cJSON_AddBoolToObject(row, "fits", s.fits);
			cJSON_AddItemToArray(sweep, row);
		}
	}
	if (ex) {
		cJSON_AddItemToObject(o, "explain", cost_explain_json(ex));
		free(ex);
	}
	return o;
}

static void decode_print(FILE *out, const cJSON *r)
{
	if (calc_has(r, "model")) {
		serve_print(out, r, "tpot_s");
		return;
	}
	char a[64], b[64], c[64], d[64];
	fmt_si(calc_num(r, "bandwidth"), "B/s", a, sizeof a);
	fmt_si(calc_num(r, "peak_flops"), "FLOP/s", b, sizeof b);
	fmt_usd(calc_num(r, "price_usd_per_gpu_hour"), c, sizeof c);
	fprintf(out, "Decode cost: %.0f x %s (%s, %s %s each: %s), %s per GPU-hour%s\n", calc_num(r, "gpus"),
		calc_str(r, "gpu"), a, calc_str(r, "compute_dtype"), b,
		strcmp(calc_str(r, "ceilings"), "measured") == 0 ? "measured" : "spec sheet", c,
		strcmp(calc_str(r, "price_source"), "hwdb") == 0 ? " (hwdb)" : "");
	fmt_grouped(calc_num(r, "params"), 0, a, sizeof a);
	fprintf(out, "  %s parameters, weights %s, KV cache %s; batch %.0f x context %.0f\n", a,
		calc_str(r, "weight_dtype"), calc_str(r, "kv_dtype"), calc_num(r, "batch"), calc_num(r, "context"));
	fmt_grouped(calc_num(r, "kv_bytes_per_token"), 0, a, sizeof a);
	cost_format_exact(calc_num(r, "kv_dtype_bytes"), d, sizeof d);
	fprintf(out, "\n  KV bytes per token    2 x %.0f layers x %.0f KV heads x %.0f x %s B = %s B\n",
		calc_num(r, "layers"), calc_num(r, "kv_heads"), calc_num(r, "head_dim"), d, a);
	fmt_si(calc_num(r, "weight_bytes"), "B", a, sizeof a);
	fmt_si(calc_num(r, "kv_bytes"), "B", b, sizeof b);
	fmt_si(calc_num(r, "bytes_per_step"), "B", c, sizeof c);
	fprintf(out, "  bytes per step        weights %s + KV cache %s = %s\n", a, b, c);
	fmt_seconds(calc_num(r, "memory_time_s"), a, sizeof a);
	fmt_seconds(calc_num(r, "compute_time_s"), b, sizeof b);
	fprintf(out, "  memory time           %s;  compute time %s  -> %s-bound\n", a, b, calc_str(r, "bound"));
	fmt_seconds(calc_num(r, "tpot_s"), a, sizeof a);
	fmt_grouped(calc_num(r, "tokens_per_s"), 1, b, sizeof b);
	fmt_usd(calc_num(r, "usd_per_million_tokens"), c, sizeof c);
	fprintf(out, "  TPOT %s, %s tokens/s, %s per million tokens\n", a, b, c);
	fmt_si(calc_num(r, "memory_required_bytes"), "B", a, sizeof a);
	fmt_si(calc_num(r, "memory_available_bytes"), "B", b, sizeof b);
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "fits")))
		fprintf(out, "  memory: %s of %s\n", a, b);
	else
		fprintf(out, "  DOES NOT FIT: needs %s, the GPUs have %s\n", a, b);
	if (calc_has(r, "crossover_batch"))
		fprintf(out, "  compute-bound from batch %.1f on (at this context)\n", calc_num(r, "crossover_batch"));
	else
		fprintf(out, "  never compute-bound at this context: each request's KV read outgrows its compute\n");

	const cJSON *sweep = cJSON_GetObjectItemCaseSensitive(r, "sweep");
	if (cJSON_IsArray(sweep)) {
		fprintf(out, "\n  %6s %12s %12s %14s %12s %8s %5s\n", "batch", "bytes/step", "TPOT", "tokens/s",
			"$/M tokens", "bound", "fits");
		const cJSON *row;
		cJSON_ArrayForEach (row, sweep) {
			fmt_si(calc_num(row, "bytes_per_step"), "B", a, sizeof a);
			fmt_seconds(calc_num(row, "tpot_s"), b, sizeof b);
			fmt_grouped(calc_num(row, "tokens_per_s"), 1, c, sizeof c);
			fmt_usd(calc_num(row, "usd_per_million_tokens"), d, sizeof d);
			fprintf(out, "  %6.0f %12s %12s %14s %12s %8s %5s\n", calc_num(row, "batch"), a, b, c, d,
				calc_str(row, "bound"),
				cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row, "fits")) ? "yes" : "NO");
		}
	}
	cost_print_explain(out, r);
}

const struct calc calc_cost_decode = {
	.name = "cost-decode",
	.command = "cost decode",
	.synopsis =
		"usage: ridge cost decode --params N --layers L --kv-heads H --head-dim D --context C --batch B\n"
		"                         --gpus G [--gpu GPU] [--price USD] [--weight-dtype DT] [--kv-dtype DT]\n"
		"                         [--sweep] [--explain] [--json] [--hwdb DIR] [--calibration FILE]\n"
		"       ridge cost decode --model FILE --context C --batch B --gpus G [--tp T]\n"
		"                         [--launch eager|graph|persistent] [--kernels-per-layer K]\n"
		"                         [--weight-dtype DT] [--kv-dtype DT] [--weight-group G] [--kv-group G] [...]",
	.description =
		"Inference decode per step: weights + KV cache bytes (KV per token = 2 L n_kv d_head bytes),\n"
		"memory time vs compute time (2 N batch FLOPs), TPOT = the larger (+ --overhead-ms),\n"
		"tokens/s and dollars per million tokens. The GPUs share weights and cache (tensor parallel,\n"
		"communication not modelled unless given as --overhead-ms).\n"
		"With --model FILE (a config.json): every kernel of the step (model/workload.c's sequence) is\n"
		"priced per GPU by the kernel time model, MoE weights as the experts the batch touches, KV with\n"
		"whole heads per GPU, the launch mode's cost added; memory fit per GPU and the largest batch;\n"
		"--sweep runs batch 1..1024 x context 1k..128k.\n",
	CALC_IMPL(decode_params, decode_run, decode_print),
};

/* ---- cost prefill ---- */

static const struct param prefill_params[] = {
	{ "model", PARAM_TEXT, 0, NULL, 0, 0, PARAM_REQUIRED, "FILE", "a Hugging Face config.json", NULL, NULL },
	{ "seq", PARAM_INTEGER, 0, NULL, 1, 1e9, PARAM_REQUIRED, "S", "prompt tokens per request", NULL, NULL },
	{ "batch", PARAM_INTEGER, 0, NULL, 1, 1e9, PARAM_REQUIRED, "B", "requests prefilled together", NULL, NULL },
	{ "gpus", PARAM_INTEGER, 0, NULL, 1, 1e6, PARAM_REQUIRED, "G", "GPUs (tensor parallel unless --tp)", NULL,
	  NULL },
	SERVE_PARAMS,
	PRICE_PARAM("USD per GPU-hour (default: the GPU's hwdb price)"),
	STORAGE_PARAMS,
	{ "compute_dtype", PARAM_TEXT, 0, NULL, 0, 0, 0, "DT", "dtype of the GEMMs and attention", NULL, "bf16" },
	EXPLAIN_PARAM,
	CALC_GPU_PARAMS,
	CALC_JSON_PARAM,
};

static cJSON *prefill_run(struct calc_input *in)
{
	return serve_run(in, RIDGE_PHASE_PREFILL);
}

static void prefill_print(FILE *out, const cJSON *r)
{
	serve_print(out, r, "ttft_s");
}

const struct calc calc_cost_prefill = {
	.name = "cost-prefill",
	.command = "cost prefill",
	.synopsis =
		"usage: ridge cost prefill --model FILE --seq S --batch B --gpus G [--tp T]\n"
		"                          [--launch eager|graph|persistent] [--kernels-per-layer K] [--weight-dtype DT]\n"
		"                          [--kv-dtype DT] [--explain] [--json] [--gpu GPU] [--calibration FILE]",
	.description = "Time to first token: the prompt's B x S tokens through every kernel of the model (causal\n"
		       "FlashAttention, the same kernel pricing as cost decode --model), the logits of the last\n"
		       "position of each request, the launch mode's cost.\n",
	CALC_IMPL(prefill_params, prefill_run, prefill_print),
};
