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

/* Rows decode and prefill share, as X-macro lines for a table whose index
 * names start P (SERVE_ROWS(X, DECODE): DECODE_TP, DECODE_LAUNCH, ...). */
#define SERVE_ROWS(X, P)                                                                                                                                                                                                                              \
	X(P##_ASSUME_FAMILY,                                                                                                                                                                                                                          \
	  PARAM_TEXT_ROW(                                                                                                                                                                                                                             \
		  "assume_family", .metavar = "TYPE",                                                                                                                                                                                                 \
		  .help = "--model: read the config as this family knowingly (llama): a hybrid or unknown architecture ridge would refuse"))                                                                                                          \
	X(P##_TP, PARAM_INT("tp", 1, PARAM_COUNT_MAX, .metavar = "T",                                                                                                                                                                                 \
			    .help = "--model: tensor-parallel GPUs per replica (default --gpus)"))                                                                                                                                                    \
	X(P##_LAUNCH,                                                                                                                                                                                                                                 \
	  PARAM_TEXT_ROW("launch", .metavar = "MODE", .help = "--model: eager, graph (default) or persistent"))                                                                                                                                       \
	X(P##_KERNELS_PER_LAYER,                                                                                                                                                                                                                      \
	  PARAM_INT("kernels_per_layer", 1, PARAM_COUNT_MAX, .metavar = "K",                                                                                                                                                                          \
		    .help = "--model: kernels launched per layer (default: the modelled sequence)"))                                                                                                                                                  \
	X(P##_WEIGHT_GROUP,                                                                                                                                                                                                                           \
	  PARAM_INT("weight_group", 0, PARAM_BATCH_MAX, .metavar = "G",                                                                                                                                                                               \
		    .help = "--model: weights per quantization scale (default int4 128, fp4 16, else "                                                                                                                                                \
			    "none)"))                                                                                                                                                                                                                 \
	X(P##_KV_GROUP, PARAM_INT("kv_group", 0, PARAM_BATCH_MAX, .metavar = "G",                                                                                                                                                                     \
				  .help = "--model: cache elements per scale (defaults as weights)"))                                                                                                                                                 \
	X(P##_IMPL,                                                                                                                                                                                                                                   \
	  PARAM_TEXT_ROW(                                                                                                                                                                                                                             \
		  "impl", .metavar = "IMPL",                                                                                                                                                                                                          \
		  .help = "--model: attention implementation: default (decode: split-kv; prefill: the entry's), ideal, fa2, fa3, cudnn, split-kv, per-head, efficient, repeat-kv (transformers' static cache), repeat-kv-fused (the same compiled)")) \
	X(P##_MOE_IMPL,                                                                                                                                                                                                                               \
	  PARAM_TEXT_ROW(                                                                                                                                                                                                                             \
		  "moe_impl", .metavar = "IMPL",                                                                                                                                                                                                      \
		  .help = "--model: routed experts as grouped (default: one grouped GEMM over the experts touched) or loop (one GEMM launch per expert)"))                                                                                            \
	X(P##_LAYER_OPS,                                                                                                                                                                                                                              \
	  PARAM_TEXT_ROW(                                                                                                                                                                                                                             \
		  "layer_ops", .metavar = "OPS",                                                                                                                                                                                                      \
		  .help = "--model: the layer's element-wise kernels: fused (default: one RoPE, one SiLU-multiply, one cache write, as engines run them) or pytorch (one kernel per torch op on views, as a plain PyTorch layer runs them)"))         \
	X(P##_FUSED_PROJECTIONS,                                                                                                                                                                                                                      \
	  PARAM_FLAG_ROW(                                                                                                                                                                                                                             \
		  "fused_projections",                                                                                                                                                                                                                \
		  .help = "--model: q/k/v and gate/up as one GEMM each, as engines and fused-weight code load them (default: one GEMM per projection, as the Hugging Face modelling code runs them)"))                                                \
	X(P##_EFFICIENCY,                                                                                                                                                                                                                             \
	  PARAM_TEXT_ROW(                                                                                                                                                                                                                             \
		  "efficiency", .metavar = "CLASS=F,...",                                                                                                                                                                                             \
		  .help = "--model: what-if efficiencies over the entry's: gemm (fp8 and fp4 GEMMs too, unless gemm_fp8 or gemm_fp4 is named) gemm_fp8 gemm_fp4 attention norm softmax elementwise, =F for both, .compute=F or .memory=F for one"))   \
	X(P##_FIXED_COST, PARAM_TEXT_ROW("fixed_cost", .metavar = "CLASS=T,...",                                                                                                                                                                      \
					 .help = "--model: what-if fixed cost per kernel of a class (gemm=5us)"))                                                                                                                                     \
	X(P##_COMMUNICATION_MS,                                                                                                                                                                                                                       \
	  PARAM_NUM("communication_ms", RIDGE_UNIT_SECONDS, 0, PARAM_HOUR_S, .bare_unit = "ms", .metavar = "T",                                                                                                                                       \
		    .help = "--model: per-step communication time, ms, instead of ridge comm's model "                                                                                                                                                \
			    "of it",                                                                                                                                                                                                                  \
		    .range = "0 to 3600 s"))                                                                                                                                                                                                          \
	X(P##_HOST_LOOP,                                                                                                                                                                                                                              \
	  PARAM_TEXT_ROW(                                                                                                                                                                                                                             \
		  "host_loop", .metavar = "LOOP",                                                                                                                                                                                                     \
		  .help = "--model: the time each step waits for the host loop between steps: none (default: an engine or a graph-replay loop keeps the GPU fed) or hf-generate (transformers' generate, measured: 1.73 ms)"))                        \
	X(P##_HOST_LOOP_MS,                                                                                                                                                                                                                           \
	  PARAM_NUM(                                                                                                                                                                                                                                  \
		  "host_loop_ms", RIDGE_UNIT_SECONDS, 0, PARAM_HOUR_S, .bare_unit = "ms", .metavar = "T",                                                                                                                                             \
		  .help = "--model: the host loop's wait per step, ms, measured on your own loop (instead of --host-loop's)",                                                                                                                         \
		  .range = "0 to 3600 s"))                                                                                                                                                                                                            \
	X(P##_EXPERT_PARALLEL,                                                                                                                                                                                                                        \
	  PARAM_FLAG_ROW("expert_parallel",                                                                                                                                                                                                           \
			 .help = "--model: whole experts on the tp GPUs, all-to-alls instead of the MoE "                                                                                                                                             \
				 "layers' all-reduce"))                                                                                                                                                                                               \
	X(P##_CUSTOM_ALLREDUCE,                                                                                                                                                                                                                       \
	  PARAM_FLAG_ROW("custom_allreduce", .help = "--model: the tensor-parallel all-reduces below 8 MiB on a "                                                                                                                                     \
						     "serving engine's own kernel (vLLM's, SGLang's: ridge comm "                                                                                                                                     \
						     "--algorithm custom) instead of NCCL's"))                                                                                                                                                        \
	X(P##_COMM_OVERLAP,                                                                                                                                                                                                                           \
	  PARAM_FRAC("comm_overlap", 0, 1, .metavar = "F",                                                                                                                                                                                            \
		     .help = "--model: share of the communication hidden under the kernels (default 0)"))                                                                                                                                             \
	X(P##_NETWORK_BW, PARAM_NUM("network_bw", RIDGE_UNIT_BYTES_PER_S, 0, PARAM_NET_BW_MAX, .flags = PARAM_OPEN_LO,                                                                                                                                \
				    .metavar = "B/s",                                                                                                                                                                                                 \
				    .help = "--model: network bandwidth per GPU past the fabric domain (tp larger "                                                                                                                                   \
					    "than one node)",                                                                                                                                                                                         \
				    .range = "greater than 0"))
/* How decode and prefill store the weights and the KV cache. */
#define STORAGE_ROWS(X, P)                                                                                             \
	X(P##_WEIGHT_DTYPE, PARAM_TEXT_ROW("weight_dtype", .metavar = "DT",                                            \
					   .help = "weight storage: fp32 bf16 fp16 fp8 int8 int4 fp4 (default bf16)")) \
	X(P##_KV_DTYPE, PARAM_TEXT_ROW("kv_dtype", .metavar = "DT", .help = "KV-cache storage", .def = "bf16"))

#define DECODE_PARAMS(X)                                                                                               \
	X(DECODE_MODEL,                                                                                                \
	  PARAM_TEXT_ROW("model", .metavar = "FILE",                                                                   \
			 .help = "a Hugging Face config.json: every kernel of a step priced (instead of "              \
				 "--params ...)"))                                                                     \
	X(DECODE_NPARAMS, PARAM_NUM("params", RIDGE_UNIT_COUNT, 0, INFINITY, .flags = PARAM_MODEL | PARAM_OPEN_LO,     \
				    .metavar = "N", .help = "active parameters per token", .range = "greater than 0")) \
	X(DECODE_LAYERS,                                                                                               \
	  PARAM_INT("layers", 1, PARAM_COUNT_MAX, .flags = PARAM_MODEL, .metavar = "L", .help = "layers"))             \
	X(DECODE_KV_HEADS, PARAM_INT("kv_heads", 1, PARAM_COUNT_MAX, .flags = PARAM_MODEL, .metavar = "H",             \
				     .help = "key/value heads (GQA)"))                                                 \
	X(DECODE_HEAD_DIM,                                                                                             \
	  PARAM_INT("head_dim", 1, PARAM_COUNT_MAX, .flags = PARAM_MODEL, .metavar = "D", .help = "head dimension"))   \
	X(DECODE_CONTEXT, PARAM_INT("context", 1, PARAM_TOKENS_MAX, .flags = PARAM_REQUIRED, .metavar = "C",           \
				    .help = "tokens in each request's KV cache"))                                      \
	X(DECODE_BATCH, PARAM_INT("batch", 1, PARAM_BATCH_MAX, .flags = PARAM_REQUIRED, .metavar = "B",                \
				  .help = "requests decoded together"))                                                \
	X(DECODE_GPUS, PARAM_INT("gpus", 1, PARAM_COUNT_MAX, .flags = PARAM_REQUIRED, .metavar = "G",                  \
				 .help = "GPUs sharing weights and cache (tensor parallel)"))                          \
	SERVE_ROWS(X, DECODE)                                                                                          \
	X(DECODE_PRICE, PRICE_ROW("USD per GPU-hour (default: the GPU's hwdb price)"))                                 \
	STORAGE_ROWS(X, DECODE)                                                                                        \
	X(DECODE_COMPUTE_DTYPE,                                                                                        \
	  PARAM_TEXT_ROW("compute_dtype", .metavar = "DT", .help = "dtype of the GEMMs, for the peak", .def = "bf16")) \
	X(DECODE_PEAK, PARAM_NUM("peak", RIDGE_UNIT_FLOPS, 0, INFINITY, .flags = PARAM_OPEN_LO, .metavar = "FLOPS",    \
				 .help = "peak per GPU instead of hwdb's", .range = "greater than 0"))                 \
	X(DECODE_OVERHEAD_MS,                                                                                          \
	  PARAM_NUM("overhead_ms", RIDGE_UNIT_SECONDS, 0, PARAM_HOUR_S, .bare_unit = "ms", .metavar = "T",             \
		    .help = "per-step time added to the roofline floor, ms (launches, communication)",                 \
		    .range = "0 to 3600 s"))                                                                           \
	X(DECODE_SWEEP, PARAM_FLAG_ROW("sweep", .help = "also every batch 1, 2, 4 ... 1024"))                          \
	X(DECODE_EXPLAIN, EXPLAIN_ROW)                                                                                 \
	CALC_GPU_ROWS(X, DECODE)                                                                                       \
	X(DECODE_JSON, CALC_JSON_ROW)
PARAMS_TABLE(decode_params, DECODE_PARAMS);

static int storage(struct calc_input *in, int param, double *bytes, cJSON *o)
{
	const char *name = params_text(in->values, param);
	const char *key_name = in->values->spec[param].name; /* the JSON key: weight_dtype, kv_dtype */
	if (!name)
		name = "bf16";
	if (!cost_storage_bytes(name, bytes))
		return calc_fail(in, "%s: unknown storage type '%s' (known: %s)", params_where(in->values, param), name,
				 cost_storage_list());
	cJSON_AddStringToObject(o, key_name, name);
	char key[64];
	snprintf(key, sizeof key, "%s_bytes", key_name);
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
static const int hand_shape[] = { DECODE_NPARAMS, DECODE_LAYERS, DECODE_KV_HEADS, DECODE_HEAD_DIM };
#define HAND_SHAPE (int)(sizeof hand_shape / sizeof hand_shape[0])
static const int model_only[] = { DECODE_TP,           DECODE_LAUNCH,           DECODE_KERNELS_PER_LAYER,
				  DECODE_WEIGHT_GROUP, DECODE_KV_GROUP,         DECODE_IMPL,
				  DECODE_MOE_IMPL,     DECODE_COMMUNICATION_MS, DECODE_EXPERT_PARALLEL,
				  DECODE_COMM_OVERLAP, DECODE_NETWORK_BW,       DECODE_HOST_LOOP,
				  DECODE_HOST_LOOP_MS };
#define MODEL_ONLY (int)(sizeof model_only / sizeof model_only[0])

static int check_decode_inputs(struct calc_input *in, bool *model)
{
	const struct param_values *v = in->values;
	*model = params_has(v, DECODE_MODEL);
	for (int i = 0; *model && i < HAND_SHAPE; i++)
		if (params_has(v, hand_shape[i]))
			return calc_fail(
				in,
				"%s: give the model as --model FILE or as --params --layers --kv-heads --head-dim, not both",
				params_where(v, hand_shape[i]));
	if (*model && (params_has(v, DECODE_OVERHEAD_MS) || params_has(v, DECODE_PEAK)))
		return calc_fail(
			in,
			"%s: with --model the launches are modelled (--launch) and communication is --communication-ms",
			params_where(v, params_has(v, DECODE_PEAK) ? DECODE_PEAK : DECODE_OVERHEAD_MS));
	for (int i = 0; !*model && i < HAND_SHAPE; i++)
		if (!params_has(v, hand_shape[i]))
			return in->item ? calc_fail(in, "missing key '%s' (in the item or the model section)",
						    v->spec[hand_shape[i]].name)
					: calc_fail(in, "%s is required (see 'ridge cost decode --help')",
						    params_where(v, hand_shape[i]));
	for (int i = 0; !*model && i < MODEL_ONLY; i++)
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
		return serve_run(in, &serve_decode_params);
	struct ridge_decode_input di = { 0 };
	cJSON *o = cJSON_CreateObject();
	calc_json_gpu(o, in->gpu);
	if (storage(in, DECODE_WEIGHT_DTYPE, &di.weight_bytes, o) != 0 ||
	    storage(in, DECODE_KV_DTYPE, &di.kv_bytes, o) != 0 ||
	    cost_resolve_peak(in, DECODE_COMPUTE_DTYPE, DECODE_PEAK, &di.peak_flops, o) != 0 ||
	    cost_resolve_price(in, DECODE_PRICE, &di.price_usd_per_gpu_hour, o) != 0) {
		cJSON_Delete(o);
		return NULL;
	}
	static const struct json_field decode_inputs[] = {
		JSON_FIELDS(struct ridge_decode_input, params, layers, kv_heads, head_dim, context, batch, gpus),
	};
	params_read_fields(v, &di, decode_inputs, JSON_FIELD_COUNT(decode_inputs));
	di.bandwidth = in->gpu->memory_bandwidth;
	di.memory_bytes = ridge_gpu_usable_memory(in->gpu);
	di.overhead_s = params_has(v, DECODE_OVERHEAD_MS) ? params_num(v, DECODE_OVERHEAD_MS) : 0;
	static const struct json_field decode_input_fields[] = {
		JSON_FIELDS(struct ridge_decode_input, bandwidth, params, layers, kv_heads, head_dim, context, batch,
			    gpus, overhead_s),
	};
	json_put_fields(o, &di, decode_input_fields, JSON_FIELD_COUNT(decode_input_fields));

	struct ridge_explain *ex = params_flag(v, DECODE_EXPLAIN) ? calloc(1, sizeof *ex) : NULL;
	struct ridge_decode_result r;
	char err[400];
	if (cost_decode(&di, &r, ex, err, sizeof err) != 0) {
		calc_fail(in, "%s", err);
		free(ex);
		cJSON_Delete(o);
		return NULL;
	}
	calc_json_decode(o, &r);
	/* Without a model config the step is the roofline's: every byte at the
	 * spec bandwidth, no kernel efficiencies, no launches (issue 34): the
	 * number is a floor, and the document says so. */
	cJSON_AddBoolToObject(o, "tpot_is_floor", true);
	cJSON_AddStringToObject(o, "tpot_kind",
				"roofline floor: weights and KV at the memory bandwidth (+ --overhead-ms); --model "
				"prices every kernel");
	if (params_flag(v, DECODE_SWEEP)) {
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
	fprintf(out,
		"  TPOT floor %s, %s tokens/s, %s per million tokens at the floor (the roofline: no kernel\n"
		"  efficiencies or launches; --model FILE prices every kernel)\n",
		a, b, c);
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
		fprintf(out, "\n  %6s %12s %12s %14s %12s %8s %5s\n", "batch", "bytes/step", "TPOT floor", "tokens/s",
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
		"memory time vs compute time (2 N batch FLOPs), TPOT = the larger (+ --overhead-ms): a floor,\n"
		"with tokens/s and dollars per million tokens at it. The GPUs share weights and cache (tensor parallel,\n"
		"communication not modelled unless given as --overhead-ms).\n"
		"With --model FILE (a config.json): every kernel of the step (model/workload.c's sequence) is\n"
		"priced per GPU by the kernel time model, MoE weights as the experts the batch touches (one\n"
		"grouped GEMM per projection over them; --moe-impl loop: one GEMM launch per expert), KV with\n"
		"whole heads per GPU, the launch mode's cost added; memory fit per GPU and the largest batch;\n"
		"--sweep runs batch 1..1024 x context 1k..128k.\n",
	CALC_IMPL(decode_params, decode_run, decode_print),
};

/* ---- cost prefill ---- */

#define PREFILL_PARAMS(X)                                                                                              \
	X(PREFILL_MODEL,                                                                                               \
	  PARAM_TEXT_ROW("model", .flags = PARAM_REQUIRED, .metavar = "FILE", .help = "a Hugging Face config.json"))   \
	X(PREFILL_SEQ, PARAM_INT("seq", 1, PARAM_BATCH_MAX, .flags = PARAM_REQUIRED, .metavar = "S",                   \
				 .help = "prompt tokens per request"))                                                 \
	X(PREFILL_BATCH, PARAM_INT("batch", 1, PARAM_BATCH_MAX, .flags = PARAM_REQUIRED, .metavar = "B",               \
				   .help = "requests prefilled together"))                                             \
	X(PREFILL_GPUS, PARAM_INT("gpus", 1, PARAM_COUNT_MAX, .flags = PARAM_REQUIRED, .metavar = "G",                 \
				  .help = "GPUs (tensor parallel unless --tp)"))                                       \
	SERVE_ROWS(X, PREFILL)                                                                                         \
	X(PREFILL_PRICE, PRICE_ROW("USD per GPU-hour (default: the GPU's hwdb price)"))                                \
	STORAGE_ROWS(X, PREFILL)                                                                                       \
	X(PREFILL_COMPUTE_DTYPE,                                                                                       \
	  PARAM_TEXT_ROW("compute_dtype", .metavar = "DT", .help = "dtype of the GEMMs and attention", .def = "bf16")) \
	X(PREFILL_EXPLAIN, EXPLAIN_ROW)                                                                                \
	CALC_GPU_ROWS(X, PREFILL)                                                                                      \
	X(PREFILL_JSON, CALC_JSON_ROW)
PARAMS_TABLE(prefill_params, PREFILL_PARAMS);

static cJSON *prefill_run(struct calc_input *in)
{
	return serve_run(in, &serve_prefill_params);
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

/* Where the --model run (cost_model_calc.c) finds its inputs in each table. */
#define SERVE_PARAMS_OF(P, phase_, tokens_, sweep_)                                                                   \
	{                                                                                                             \
		.phase = (phase_), .model = P##_MODEL, .batch = P##_BATCH, .tokens = (tokens_), .gpus = P##_GPUS,     \
		.tp = P##_TP, .launch = P##_LAUNCH, .kernels_per_layer = P##_KERNELS_PER_LAYER,                       \
		.weight_dtype = P##_WEIGHT_DTYPE, .weight_group = P##_WEIGHT_GROUP, .kv_dtype = P##_KV_DTYPE,         \
		.kv_group = P##_KV_GROUP, .compute_dtype = P##_COMPUTE_DTYPE, .impl = P##_IMPL,                       \
		.moe_impl = P##_MOE_IMPL, .fused_projections = P##_FUSED_PROJECTIONS, .layer_ops = P##_LAYER_OPS,     \
		.efficiency = P##_EFFICIENCY, .fixed_cost = P##_FIXED_COST, .communication_ms = P##_COMMUNICATION_MS, \
		.host_loop = P##_HOST_LOOP, .host_loop_ms = P##_HOST_LOOP_MS, .expert_parallel = P##_EXPERT_PARALLEL, \
		.custom_allreduce = P##_CUSTOM_ALLREDUCE, .comm_overlap = P##_COMM_OVERLAP,                           \
		.network_bw = P##_NETWORK_BW, .price = P##_PRICE, .sweep = (sweep_), .explain = P##_EXPLAIN,          \
		.assume_family = P##_ASSUME_FAMILY                                                                    \
	}
const struct serve_params serve_decode_params =
	SERVE_PARAMS_OF(DECODE, RIDGE_PHASE_DECODE, DECODE_CONTEXT, DECODE_SWEEP);
const struct serve_params serve_prefill_params = SERVE_PARAMS_OF(PREFILL, RIDGE_PHASE_PREFILL, PREFILL_SEQ, -1);
