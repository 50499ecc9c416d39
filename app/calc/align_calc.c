/* ridge align --dtype DT (--dims D1,D2,... | --model FILE): which GEMM
 * dimensions leave the tensor-core fast path, what to round them to, and the
 * tile and wave quantization of each GEMM. One calculator (calc.h) for the
 * command and the scenario kind `align`: the findings come from align_findings.c
 * (model/align.c's numbers), the human output is printed from the --json
 * result, so `ridge align` and `ridge eval` print the same. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "align_findings.h"
#include "calc.h"
#include "app.h"
#include "eval.h"
#include "kernel_view.h"
#include "model_config.h"
#include "report.h"
#include "json_fields.h"
#include "align_internal.h"

static const char usage_text[] =
	"usage: ridge align --dtype DT (--dims D1,D2,... | --model FILE) [--gpu GPU]\n"
	"                   [--tokens T] [--tile MxN] [--ctas-per-sm N]\n"
	"                   [--multiple-of N] [--ffn-dim-multiplier X]\n"
	"                   [--json] [--hwdb DIR] [--calibration FILE]\n"
	"\n"
	"Checks GEMM dimensions against the multiples the tensor cores want for DT:\n"
	"  error    not a multiple of 16 bytes of elements (8 bf16/fp16, 4 tf32/fp32,\n"
	"           16 fp8/int8, 2 fp64): off cuBLAS's fast tensor-core kernels\n"
	"  warning  16-byte aligned, but not a multiple of 128 bytes (64 bf16/fp16,\n"
	"           128 fp8/int8), the recommended multiple on A100 and later\n"
	"  ok       a multiple of the recommended size\n"
	"and shows each dimension's tile and wave quantization for M = T tokens.\n"
	"The rule is ridge's one tensor-core rule (model/align.c, as ridge gemm): cuBLAS's\n"
	"conditions on m, n, k, lda, ldb, ldc for the layout x W^T with W [N,K] row-major\n"
	"(PyTorch's F.linear: cuBLAS TN, lda = ldb = K, ldc = N), so N and K are checked\n"
	"and M (tokens) is free. fp8: the 16-byte conditions are required (cuBLAS has no fp8\n"
	"kernel otherwise, no slower fallback), and on compute capability 8.9/9.x only TN\n"
	"has one. Off the conditions other dtypes stay on tensor cores, slower (3-8x on an\n"
	"H200); ridge says where, not how much. The Llama SwiGLU check runs for Llama\n"
	"configs only (model_type llama, or none, or --multiple-of/--ffn-dim-multiplier).\n"
	"\n"
	"  --dtype DT              fp64 fp32 tf32 bf16 fp16 fp8 int8 fp4\n"
	"  --dims LIST             dimensions, plain or named: 6000,21845 or\n"
	"                          d_model=6000,ffn=21845 (a dim named d_model or\n"
	"                          hidden_size makes those named ffn, d_ff or\n"
	"                          intermediate_size show the Llama SwiGLU size)\n"
	"  --model FILE            a Hugging Face config.json, or the same keys in YAML\n"
	"                          (hidden_size, intermediate_size, num_attention_heads,\n"
	"                          num_key_value_heads, head_dim, vocab_size,\n"
	"                          num_hidden_layers): checks every GEMM of a decoder\n"
	"                          layer and the LM head\n"
	"  --gpu GPU               hwdb id or alias (default " APP_DEFAULT_GPU ")\n"
	"  --tokens T              M, the tokens in one GEMM (batch x sequence; default 4096)\n"
	"  --tile MxN              CTA output tile (default 128x128)\n"
	"  --ctas-per-sm N         CTAs resident per SM at once (default 1)\n"
	"  --multiple-of N         SwiGLU rounding (default: the config's multiple_of, else 256)\n"
	"  --ffn-dim-multiplier X  SwiGLU multiplier (default: the config's, else none)\n"
	"  --json                  one JSON document on stdout\n"
	"  --hwdb DIR              also load every *.yaml in DIR\n"
	"  --calibration FILE      also load FILE (a ridge-probe calibration)\n"
	"\n"
	"Exit: 0 all aligned (warnings allowed), 1 any error, 2 bad input.\n";

/* The inputs: the flags above, and in a scenario item the same names with
 * '_' (dims may be a YAML list there; model is relative to the scenario
 * file). Without dims and model an item checks the shape keys, from the item
 * or the scenario's model section. */
#define ALIGN_RANGE "1..2147483647"
#define SHAPE_ROW(name, help_)                                                                                 \
	PARAM_NUM(name, RIDGE_UNIT_COUNT, 0, INFINITY, .flags = PARAM_MODEL | PARAM_FILE_ONLY | PARAM_OPEN_LO, \
		  .metavar = "N", .help = help_, .range = "greater than 0")

#define ALIGN_PARAMS(X)                                                                                               \
	X(ALIGN_DTYPE, PARAM_TEXT_ROW("dtype", .flags = PARAM_REQUIRED, .metavar = "DT",                              \
				      .help = "fp64 fp32 tf32 bf16 fp16 fp8 int8 fp4"))                               \
	X(ALIGN_DIMS, PARAM_TEXT_ROW("dims", .flags = PARAM_JOIN, .metavar = "LIST",                                  \
				     .help = "dimensions: 6000,21845 or d_model=6000,ffn=21845"))                     \
	X(ALIGN_MODEL,                                                                                                \
	  PARAM_TEXT_ROW("model", .metavar = "FILE", .help = "a Hugging Face config.json, or the same keys in YAML")) \
	X(ALIGN_TOKENS, PARAM_INT("tokens", 1, PARAM_INT32_MAX, .metavar = "T",                                       \
				  .help = "M, the tokens in one GEMM (default 4096)", .range = ALIGN_RANGE))          \
	X(ALIGN_TILE, PARAM_TEXT_ROW("tile", .metavar = "MxN", .help = "CTA output tile (default 128x128)"))          \
	X(ALIGN_CTAS_PER_SM,                                                                                          \
	  PARAM_INT("ctas_per_sm", 1, 64, .metavar = "N", .help = "CTAs resident per SM at once (default 1)"))        \
	X(ALIGN_MULTIPLE_OF, PARAM_INT("multiple_of", 1, PARAM_INT32_MAX, .metavar = "N", .help = "SwiGLU rounding",  \
				       .range = ALIGN_RANGE))                                                         \
	X(ALIGN_FFN_DIM_MULTIPLIER,                                                                                   \
	  PARAM_NUM("ffn_dim_multiplier", RIDGE_UNIT_COUNT, 0, INFINITY, .flags = PARAM_OPEN_LO, .metavar = "X",      \
		    .help = "SwiGLU multiplier", .range = "greater than 0"))                                          \
	X(ALIGN_HIDDEN_SIZE, SHAPE_ROW("hidden_size", "hidden_size"))                                                 \
	X(ALIGN_INTERMEDIATE_SIZE, SHAPE_ROW("intermediate_size", "intermediate_size"))                               \
	X(ALIGN_HEADS, SHAPE_ROW("heads", "num_attention_heads"))                                                     \
	X(ALIGN_KV_HEADS, SHAPE_ROW("kv_heads", "num_key_value_heads (default heads)"))                               \
	X(ALIGN_HEAD_DIM, SHAPE_ROW("head_dim", "head_dim (default hidden_size / heads)"))                            \
	X(ALIGN_VOCAB_SIZE, SHAPE_ROW("vocab_size", "vocab_size"))                                                    \
	X(ALIGN_LAYERS, SHAPE_ROW("layers", "num_hidden_layers"))                                                     \
	CALC_GPU_ROWS(X, ALIGN)                                                                                       \
	X(ALIGN_JSON, CALC_JSON_ROW)
PARAMS_TABLE(align_params, ALIGN_PARAMS);

/* The shape keys, in the order of shape_config()'s fields. */
static const int shape_keys[] = { ALIGN_HIDDEN_SIZE, ALIGN_INTERMEDIATE_SIZE, ALIGN_HEADS, ALIGN_KV_HEADS,
				  ALIGN_HEAD_DIM,    ALIGN_VOCAB_SIZE,        ALIGN_LAYERS };
#define SHAPE_KEYS (int)(sizeof shape_keys / sizeof shape_keys[0])

/* "MxN", each 1..RIDGE_ALIGN_MAX_TILE, with app_parse_int's messages. */
static int parse_tile(const char *where, const char *text, struct ridge_align_tile *tile, char *err, size_t err_len)
{
	const char *x = strchr(text, 'x');
	if (!x)
		x = strchr(text, 'X');
	size_t m_len = x ? (size_t)(x - text) : 0;
	char m_text[64];
	if (!x || x == text || !x[1] || m_len >= sizeof m_text) {
		snprintf(err, err_len, "%s: '%s' must be MxN, e.g. 128x128", where, text);
		return -1;
	}
	memcpy(m_text, text, m_len);
	m_text[m_len] = '\0';
	const char *parts[2] = { m_text, x + 1 };
	int edges[2];
	for (int i = 0; i < 2; i++) {
		double v;
		char why[200];
		if (ridge_quantity_parse(parts[i], RIDGE_UNIT_COUNT, &v, why, sizeof why) != 0) {
			snprintf(err, err_len, "%s: %s", where, why);
			return -1;
		}
		if (v != floor(v)) {
			snprintf(err, err_len, "%s: must be a whole number, not '%s'", where, parts[i]);
			return -1;
		}
		if (v < 1 || v > RIDGE_ALIGN_MAX_TILE) {
			snprintf(err, err_len, "%s: '%s' is out of range (1..%d)", where, parts[i],
				 RIDGE_ALIGN_MAX_TILE);
			return -1;
		}
		edges[i] = (int)v;
	}
	tile->m = edges[0];
	tile->n = edges[1];
	return 0;
}

static int read_settings(struct calc_input *in, struct align_settings *set)
{
	const struct param_values *v = in->values;
	align_settings_default(set);
	const char *dtype = params_text(v, ALIGN_DTYPE);
	if (!ridge_dtype_parse(dtype, &set->dtype)) {
		snprintf(in->err, sizeof in->err, "%s: unknown dtype '%s' (known: %s)", params_where(v, ALIGN_DTYPE),
			 dtype, ridge_dtype_list());
		return -1;
	}
	if (params_has(v, ALIGN_TOKENS))
		set->tokens = (long long)params_num(v, ALIGN_TOKENS);
	set->tokens_where = in->item ? "tokens" : "--tokens";
	if (params_has(v, ALIGN_TILE) && parse_tile(params_where(v, ALIGN_TILE), params_text(v, ALIGN_TILE), &set->tile,
						    in->err, sizeof in->err) != 0)
		return -1;
	if (params_has(v, ALIGN_CTAS_PER_SM))
		set->tile.ctas_per_sm = (int)params_num(v, ALIGN_CTAS_PER_SM);
	if ((set->has_multiple_of = params_has(v, ALIGN_MULTIPLE_OF)))
		set->multiple_of = (long long)params_num(v, ALIGN_MULTIPLE_OF);
	if ((set->has_multiplier = params_has(v, ALIGN_FFN_DIM_MULTIPLIER)))
		set->multiplier = params_num(v, ALIGN_FFN_DIM_MULTIPLIER);
	return 0;
}

/* A shape key as a config value: a whole number up to RIDGE_ALIGN_MAX_DIM. */
static int shape_value(struct calc_input *in, int key, bool *has, long long *out)
{
	const struct param_values *v = in->values;
	*has = params_has(v, key);
	if (!*has)
		return 0;
	double x = params_num(v, key);
	if (x != floor(x) || x > (double)RIDGE_ALIGN_MAX_DIM) {
		snprintf(in->err, sizeof in->err, "%s: '%s' must be a whole number in 1..%lld", params_where(v, key),
			 params_text(v, key), RIDGE_ALIGN_MAX_DIM);
		return -1;
	}
	*out = (long long)x;
	return 0;
}

/* The model from the shape keys (the item's, then the model section's), with
 * the SwiGLU settings of the section's config when it has one. */
static int shape_config(struct calc_input *in, struct app_model_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	struct ridge_align_model *m = &cfg->model;
	long long *fields[] = { &m->hidden_size,         &m->intermediate_size, &m->num_attention_heads,
				&m->num_key_value_heads, &m->head_dim,          &m->vocab_size,
				&m->num_hidden_layers };
	bool has[7];
	char missing[200] = "";
	for (int i = 0; i < SHAPE_KEYS; i++) {
		if (shape_value(in, shape_keys[i], &has[i], fields[i]) != 0)
			return -1;
		bool optional = fields[i] == &m->num_key_value_heads || fields[i] == &m->head_dim;
		if (!has[i] && !optional) {
			size_t used = strlen(missing);
			snprintf(missing + used, sizeof missing - used, "%s%s", used ? ", " : "",
				 align_params[shape_keys[i]].name);
		}
	}
	if (missing[0]) {
		snprintf(in->err, sizeof in->err,
			 "give dims, model (a config file), or the model's shape in the item or the scenario's model "
			 "section (missing: %s)",
			 missing);
		return -1;
	}
	m->has_num_key_value_heads = has[3];
	m->has_head_dim = has[4];
	const struct app_model_config *section = eval_item_model_config(in->item);
	if (section) {
		cfg->has_multiple_of = section->has_multiple_of;
		cfg->multiple_of = section->multiple_of;
		cfg->has_ffn_dim_multiplier = section->has_ffn_dim_multiplier;
		cfg->ffn_dim_multiplier = section->ffn_dim_multiplier;
	}
	return 0;
}

/* Where the shape keys came from, in words. */
static void shape_source(const struct calc_input *in, char *buf, size_t len)
{
	const char *section = eval_item_model_name(in->item);
	bool own = false;
	for (int i = 0; i < SHAPE_KEYS; i++)
		own |= eval_item_gives(in->item, align_params[shape_keys[i]].name);
	if (!section)
		snprintf(buf, len, "the item's shape keys");
	else
		snprintf(buf, len, "the scenario's model%s%s%s%s", section[0] ? " '" : "", section,
			 section[0] ? "'" : "", own ? ", changed by the item" : "");
}

cJSON *align_tiling_json(const struct ridge_align_tiling *t)
{
	cJSON *o = cJSON_CreateObject();
	static const struct json_field align_tiling_fields[] = {
		JSON_FIELDS(struct ridge_align_tiling, m, n, tiles_m, tiles_n, tiles),
		JSON_FIELD_AS(struct ridge_align_tiling, "concurrent_ctas", slots),
		JSON_FIELDS(struct ridge_align_tiling, waves, waves_exact, last_wave_tiles, tile_efficiency,
			    wave_efficiency, efficiency),
	};
	json_put_fields(o, t, align_tiling_fields, JSON_FIELD_COUNT(align_tiling_fields));
	return o;
}

static cJSON *swiglu_json(const struct ridge_align_swiglu *s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "rule",
				"multiple_of * ceil(floor(ffn_dim_multiplier * floor(8 d / 3)) / multiple_of)");
	cJSON_AddNumberToObject(o, "d_model", (double)s->d_model);
	if (s->has_multiplier)
		json_number(o, "ffn_dim_multiplier", s->ffn_dim_multiplier);
	else
		cJSON_AddNullToObject(o, "ffn_dim_multiplier");
	cJSON_AddNumberToObject(o, "multiple_of", (double)s->multiple_of);
	cJSON_AddNumberToObject(o, "eight_thirds_d", (double)s->base);
	if (s->has_multiplier)
		cJSON_AddNumberToObject(o, "scaled", (double)s->scaled);
	cJSON_AddNumberToObject(o, "intermediate", (double)s->intermediate);
	return o;
}

cJSON *calc_json_align_rule(cJSON *obj, const struct ridge_align_rule *r)
{
	cJSON *rule = cJSON_AddObjectToObject(obj, "rule");
	static const struct json_field align_rule_fields[] = {
		JSON_FIELDS(struct ridge_align_rule, required_multiple, required_bytes, recommended_multiple,
			    recommended_bytes),
		JSON_FIELD_AS(struct ridge_align_rule, "tensor_core_path", matrix_path),
		JSON_FIELDS(struct ridge_align_rule, alignment_required, tn_only),
	};
	json_put_fields(rule, r, align_rule_fields, JSON_FIELD_COUNT(align_rule_fields));
	return rule;
}

cJSON *calc_json_align_finding(const struct align_finding *f)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", f->name);
	cJSON_AddNumberToObject(o, "value", (double)f->dim.value);
	cJSON_AddNumberToObject(o, "required_multiple", (double)f->dim.required_multiple);
	cJSON_AddNumberToObject(o, "suggested", (double)f->dim.suggested);
	cJSON_AddStringToObject(o, "severity", align_severity_name(f->dim.severity));
	cJSON_AddNumberToObject(o, "recommended_multiple", (double)f->dim.recommended_multiple);
	cJSON_AddNumberToObject(o, "suggested_recommended", (double)f->dim.suggested_recommended);
	return o;
}

/* The result: `ridge align --json`'s document. model_file is the config read
 * (NULL otherwise); model_from says where the shape came from otherwise (a
 * scenario's model section, the item's keys). */
static cJSON *align_json(const struct align_run *run, const char *model_file, const char *model_from)
{
	const struct ridge_gpu *g = run->gpu;
	const struct ridge_align_rule *r = &run->rule;
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddBoolToObject(doc, "ok", run->errors == 0);
	cJSON_AddStringToObject(doc, "gpu", g->id);
	cJSON_AddStringToObject(doc, "gpu_name", g->name);
	cJSON_AddStringToObject(doc, "vendor", g->vendor == RIDGE_VENDOR_AMD ? "amd" : "nvidia");
	cJSON_AddStringToObject(doc, "ceilings", app_ceiling_source(g));
	cJSON_AddStringToObject(doc, "dtype", ridge_dtype_name(r->dtype));
	cJSON_AddNumberToObject(doc, "sm_count", g->sm_count);
	cJSON *rule = calc_json_align_rule(doc, r);
	if (r->path_note)
		cJSON_AddStringToObject(rule, "note", r->path_note);
	cJSON_AddStringToObject(rule, "basis", r->basis);
	cJSON_AddNumberToObject(doc, "tokens", (double)run->set.tokens);
	cJSON *tile = cJSON_AddObjectToObject(doc, "tile");
	cJSON_AddNumberToObject(tile, "m", run->set.tile.m);
	cJSON_AddNumberToObject(tile, "n", run->set.tile.n);
	cJSON_AddNumberToObject(tile, "ctas_per_sm", run->set.tile.ctas_per_sm);
	cJSON_AddNumberToObject(doc, "errors", run->errors);
	cJSON_AddNumberToObject(doc, "warnings", run->warnings);

	cJSON *findings = cJSON_AddArrayToObject(doc, "findings");
	for (int i = 0; i < run->count; i++) {
		const struct align_finding *f = &run->findings[i];
		cJSON *o = calc_json_align_finding(f);
		cJSON_AddBoolToObject(o, "tensor_core_path", r->matrix_path);
		cJSON_AddStringToObject(o, "reason", f->reason);
		if (f->from)
			cJSON_AddStringToObject(o, "from", f->from);
		if (f->gemm >= 0)
			cJSON_AddStringToObject(o, "gemm", run->gemms[f->gemm].name);
		if (f->has_tiling)
			cJSON_AddItemToObject(o, "tiling", align_tiling_json(&f->tiling));
		if (f->has_swiglu && run->has_swiglu)
			cJSON_AddNumberToObject(o, "swiglu_intermediate", (double)run->swiglu.intermediate);
		cJSON_AddItemToArray(findings, o);
	}
	if (run->has_swiglu) {
		cJSON *swiglu = swiglu_json(&run->swiglu);
		/* Dimension lists name d_model and ffn themselves: the rule is asked for. */
		cJSON_AddBoolToObject(swiglu, "applies", !run->model_mode || run->swiglu_applies);
		cJSON_AddItemToObject(doc, "swiglu", swiglu);
	}
	if (run->model_mode) {
		const struct ridge_align_model *m = &run->model;
		cJSON *model = cJSON_AddObjectToObject(doc, "model");
		if (model_file)
			cJSON_AddStringToObject(model, "file", model_file);
		if (model_from)
			cJSON_AddStringToObject(model, "from", model_from);
		if (run->model_type[0])
			cJSON_AddStringToObject(model, "model_type", run->model_type);
		static const struct json_field align_model_fields[] = {
			JSON_FIELDS(struct ridge_align_model, hidden_size, intermediate_size, num_attention_heads,
				    num_key_value_heads, head_dim, vocab_size, num_hidden_layers),
		};
		json_put_fields(model, m, align_model_fields, JSON_FIELD_COUNT(align_model_fields));
		cJSON *gemms = cJSON_AddArrayToObject(doc, "gemms");
		for (int i = 0; i < run->gemm_count; i++) {
			const struct ridge_align_gemm *gm = &run->gemms[i];
			cJSON *o = cJSON_CreateObject();
			static const struct json_field align_gemm_fields[] = {
				JSON_FIELDS(struct ridge_align_gemm, name, m, n, k, n_from, k_from, count, flops),
			};
			json_put_fields(o, gm, align_gemm_fields, JSON_FIELD_COUNT(align_gemm_fields));
			cJSON_AddBoolToObject(o, "aligned", run->gemm_severity[i] != RIDGE_ALIGN_ERROR);
			cJSON_AddStringToObject(o, "severity", align_severity_name(run->gemm_severity[i]));
			cJSON_AddBoolToObject(o, "tensor_cores", run->gemm_rule[i].tensor_cores);
			kernel_rule_json(o, &run->gemm_rule[i]);
			cJSON_AddItemToObject(o, "tiling", align_tiling_json(&run->gemm_tiling[i]));
			cJSON_AddItemToArray(gemms, o);
		}
		double total;
		double fraction = align_run_misaligned_fraction(run, &total);
		json_number(doc, "gemm_flops", total);
		json_number(doc, "misaligned_flops_fraction", fraction);
	}
	return doc;
}

/* Which of dims, model and the shape keys the input gives: on the command
 * line dims or model; in a scenario item one of dims, model, or neither
 * (the shape keys, from the item or the model section). */
static int check_inputs(struct calc_input *in, bool *dims, bool *model)
{
	const struct param_values *v = in->values;
	*dims = params_has(v, ALIGN_DIMS);
	*model = params_has(v, ALIGN_MODEL);
	if (*dims && *model) {
		snprintf(in->err, sizeof in->err,
			 in->item ? "give dims or model, not both" : "give --dims or --model, not both");
		return -1;
	}
	if (!in->item) {
		if (!*dims && !*model) {
			snprintf(in->err, sizeof in->err,
				 "give --dims LIST or --model FILE (see 'ridge align --help')");
			return -1;
		}
		return 0;
	}
	for (int i = 0; i < SHAPE_KEYS && (*dims || *model); i++) {
		if (eval_item_gives(in->item, align_params[shape_keys[i]].name)) {
			snprintf(in->err, sizeof in->err,
				 "%s: the shape keys describe the model to check; give them without %s (or drop %s)",
				 params_where(v, shape_keys[i]), *dims ? "dims" : "model", *dims ? "dims" : "model");
			return -1;
		}
	}
	return 0;
}

static cJSON *align_calc_run(struct calc_input *in)
{
	const struct param_values *v = in->values;
	struct align_settings set;
	bool dims, model;
	if (read_settings(in, &set) != 0 || check_inputs(in, &dims, &model) != 0)
		return NULL;
	struct align_run *run = calloc(1, sizeof *run);
	if (!run) {
		calc_fail(in, "out of memory");
		return NULL;
	}
	cJSON *result = NULL;
	if (align_run_start(run, in->gpu, &set, in->err, sizeof in->err) != 0) {
		char why[sizeof in->err];
		snprintf(why, sizeof why, "%s", in->err);
		calc_fail(in, "%s: %s", params_where(v, ALIGN_DTYPE), why);
		goto done;
	}
	if (dims) {
		if (align_run_dims(run, params_text(v, ALIGN_DIMS), params_where(v, ALIGN_DIMS), in->err,
				   sizeof in->err) != 0)
			goto done;
		result = align_json(run, NULL, NULL);
	} else if (model) {
		const char *file = params_text(v, ALIGN_MODEL);
		char path[1024];
		if (in->item)
			eval_item_path(in->item, file, path, sizeof path);
		else
			snprintf(path, sizeof path, "%s", file);
		struct app_model_config config;
		if (app_model_config_load(path, &config, in->st) != 0) {
			/* The loader said why; a scenario adds where. */
			if (in->item)
				calc_fail(in, "%s: cannot use '%s' (above)", params_where(v, ALIGN_MODEL), file);
			else
				in->err[0] = '\0';
			goto done;
		}
		for (int i = 0; i < config.warning_count; i++)
			app_warning_at(in->st, path, 0, 0, "%s", config.warnings[i]);
		if (align_run_model(run, &config, path, in->err, sizeof in->err) != 0)
			goto done;
		result = align_json(run, path, NULL);
	} else {
		struct app_model_config config;
		char from[200];
		shape_source(in, from, sizeof from);
		if (shape_config(in, &config) != 0 || align_run_model(run, &config, from, in->err, sizeof in->err) != 0)
			goto done;
		result = align_json(run, NULL, from);
	}
	if (!run->rule.any_path) {
		if (in->item)
			app_warning(
				in->st,
				"%s: %s has no %s hardware path at all (no matrix or vector rate): the multiples are "
				"the byte rules only",
				eval_item_where(in->item), run->gpu->id, ridge_dtype_name(set.dtype));
		else
			app_warning(
				in->st,
				"%s has no %s hardware path at all (no matrix or vector rate): the multiples are the "
				"byte rules only",
				run->gpu->id, ridge_dtype_name(set.dtype));
	}
done:
	free(run);
	return result;
}

/* ---- human output, from the result ---- */

static long long num_ll(const cJSON *o, const char *key)
{
	return (long long)calc_num(o, key);
}

void align_fmt_next_value(long long value, long long next, char *buf, size_t len)
{
	if (next == value)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%lld", next);
}

static void fmt_waves_json(const cJSON *t, char *buf, size_t len)
{
	snprintf(buf, len, "%.2f -> %lld", calc_num(t, "waves_exact"), num_ll(t, "waves"));
}

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

static void print_header(FILE *out, const cJSON *d, bool amd)
{
	const cJSON *r = get(d, "rule"), *tile = get(d, "tile");
	fprintf(out, "%s on %s (%s), %lld %s; %s entry\n", calc_str(d, "dtype"), calc_str(d, "gpu_name"),
		calc_str(d, "gpu"), num_ll(d, "sm_count"), amd ? "CUs" : "SMs", calc_str(d, "ceilings"));
	fprintf(out, "rule: multiples of %lld elements (%lld bytes) required, %lld (%lld bytes) recommended\n",
		num_ll(r, "required_multiple"), num_ll(r, "required_bytes"), num_ll(r, "recommended_multiple"),
		num_ll(r, "recommended_bytes"));
	if (cJSON_IsTrue(get(r, "alignment_required")))
		fprintf(out,
			"  %s: the 16-byte conditions are required (cuBLAS has no %s kernel off them, no slower "
			"fallback)%s\n",
			calc_str(d, "dtype"), calc_str(d, "dtype"),
			cJSON_IsTrue(get(r, "tn_only"))
				? ";\n  on this GPU only the TN layout (x W^T, W [N,K] row-major: "
				  "F.linear's) has one"
				: "");
	if (!cJSON_IsTrue(get(r, "tensor_core_path")))
		fprintf(out, "note: %s: these GEMMs run without tensor cores whatever the alignment\n",
			calc_str(r, "note"));
	if (amd)
		fprintf(out, "note: %s\n", calc_str(r, "basis"));
	fprintf(out, "tiles: M = %lld tokens, %lldx%lld CTA tiles, %lld per %s (%lld at once)\n", num_ll(d, "tokens"),
		num_ll(tile, "m"), num_ll(tile, "n"), num_ll(tile, "ctas_per_sm"), amd ? "CU" : "SM",
		num_ll(d, "sm_count") * num_ll(tile, "ctas_per_sm"));
}

static void print_dims(FILE *out, const cJSON *d)
{
	const cJSON *r = get(d, "rule"), *findings = get(d, "findings"), *f;
	char next_req[24], next_rec[24];
	snprintf(next_req, sizeof next_req, "NEXT x%lld", num_ll(r, "required_multiple"));
	snprintf(next_rec, sizeof next_rec, "NEXT x%lld", num_ll(r, "recommended_multiple"));
	fprintf(out, "\n%-20s %10s  %-8s %10s %10s %8s %14s %9s %9s\n", "NAME", "VALUE", "SEVERITY", next_req, next_rec,
		"TILES", "WAVES", "TILE EFF", "WAVE EFF");
	cJSON_ArrayForEach (f, findings) {
		const cJSON *t = get(f, "tiling");
		long long value = num_ll(f, "value");
		char a[24], b[24], w[32];
		align_fmt_next_value(value, num_ll(f, "suggested"), a, sizeof a);
		align_fmt_next_value(value, num_ll(f, "suggested_recommended"), b, sizeof b);
		fmt_waves_json(t, w, sizeof w);
		fprintf(out, "%-20s %10lld  %-8s %10s %10s %8lld %14s %8.2f%% %8.2f%%\n", calc_str(f, "name"), value,
			calc_str(f, "severity"), a, b, num_ll(t, "tiles"), w, 100 * calc_num(t, "tile_efficiency"),
			100 * calc_num(t, "wave_efficiency"));
	}
	fprintf(out, "\n");
	const cJSON *s = get(d, "swiglu");
	cJSON_ArrayForEach (f, findings) {
		fprintf(out, "%s = %lld: %s\n", calc_str(f, "name"), num_ll(f, "value"), calc_str(f, "reason"));
		if (calc_has(f, "swiglu_intermediate") && s)
			fprintf(out,
				"  SwiGLU for d_model %lld (Llama rule, multiple_of %lld%s): 8/3 x %lld = %lld -> %lld\n",
				num_ll(s, "d_model"), num_ll(s, "multiple_of"),
				calc_has(s, "ffn_dim_multiplier") ? ", with ffn_dim_multiplier" : "",
				num_ll(s, "d_model"), num_ll(s, "eight_thirds_d"), num_ll(s, "intermediate"));
	}
}

/* The config's intermediate_size against the Llama SwiGLU rule, where the
 * rule is the config's (a Llama model_type or the rule's settings given). */
static void print_swiglu_check(FILE *out, const cJSON *s, const cJSON *m, bool command_line)
{
	const char *flag = command_line ? "--multiple-of" : "multiple_of";
	if (!cJSON_IsTrue(get(s, "applies"))) {
		/* Other families size their FFN as they like: no Llama note. */
		fprintf(out, "SwiGLU check: not applied (model_type '%s' is not Llama; %s applies the Llama rule)\n",
			calc_str(m, "model_type"), flag);
		return;
	}
	fprintf(out, "SwiGLU check: 8/3 x hidden %lld = %lld", num_ll(s, "d_model"), num_ll(s, "eight_thirds_d"));
	if (calc_has(s, "ffn_dim_multiplier"))
		fprintf(out, ", x ffn_dim_multiplier %g = %lld", calc_num(s, "ffn_dim_multiplier"),
			num_ll(s, "scaled"));
	fprintf(out, ", Llama rule (multiple_of %lld) gives %lld; ", num_ll(s, "multiple_of"),
		num_ll(s, "intermediate"));
	if (num_ll(s, "intermediate") == num_ll(m, "intermediate_size"))
		fprintf(out, "the config's %lld matches it\n", num_ll(m, "intermediate_size"));
	else
		fprintf(out,
			"the config has %lld\n  (not the Llama rule with these settings: %s and %s\n"
			"  set them; Llama-3 used 1.3 and 1024)\n",
			num_ll(m, "intermediate_size"), command_line ? "--ffn-dim-multiplier" : "ffn_dim_multiplier",
			flag);
}

static void print_model(FILE *out, const cJSON *d, bool command_line)
{
	const cJSON *m = get(d, "model"), *findings = get(d, "findings"), *gm, *f;
	char source[256];
	snprintf(source, sizeof source, "%s", calc_has(m, "file") ? calc_str(m, "file") : calc_str(m, "from"));
	fprintf(out,
		"model: %s: hidden %lld, intermediate %lld, %lld heads (%lld KV, head_dim %lld), vocab %lld, %lld "
		"layers\n",
		source, num_ll(m, "hidden_size"), num_ll(m, "intermediate_size"), num_ll(m, "num_attention_heads"),
		num_ll(m, "num_key_value_heads"), num_ll(m, "head_dim"), num_ll(m, "vocab_size"),
		num_ll(m, "num_hidden_layers"));
	int width = 10; /* the GEMM names: MoE and MLA ones are longer than q_proj */
	cJSON_ArrayForEach (gm, get(d, "gemms")) {
		int len = (int)strlen(calc_str(gm, "name"));
		width = len > width ? len : width;
	}
	fprintf(out, "\n%-*s %-26s %-8s %-28s %6s %14s %s\n", width, "GEMM", "M x N x K", "ALIGNED", "SUGGESTED CHANGE",
		"TILES", "WAVES", "EFFICIENCY (TILE x WAVE)");
	cJSON_ArrayForEach (gm, get(d, "gemms")) {
		const cJSON *t = get(gm, "tiling");
		char shape[64], change[96] = "", w[32];
		snprintf(shape, sizeof shape, "%lld x %lld x %lld", num_ll(gm, "m"), num_ll(gm, "n"), num_ll(gm, "k"));
		/* The GEMM's two findings are N then K, in GEMM order. */
		cJSON_ArrayForEach (f, findings) {
			const char *severity = calc_str(f, "severity");
			if (strcmp(calc_str(f, "gemm"), calc_str(gm, "name")) != 0 || strcmp(severity, "ok") == 0)
				continue;
			size_t used = strlen(change);
			const char *name = calc_str(f, "name");
			char axis = name[strlen(name) - 1];
			if (strcmp(severity, "error") == 0)
				snprintf(change + used, sizeof change - used, "%s%c %lld->%lld (x%lld: %lld)",
					 used ? "; " : "", axis, num_ll(f, "value"), num_ll(f, "suggested"),
					 num_ll(f, "recommended_multiple"), num_ll(f, "suggested_recommended"));
			else
				snprintf(change + used, sizeof change - used, "%s%c %lld->%lld", used ? "; " : "", axis,
					 num_ll(f, "value"), num_ll(f, "suggested_recommended"));
		}
		if (!change[0])
			snprintf(change, sizeof change, "-");
		const char *severity = calc_str(gm, "severity");
		const char *aligned = strcmp(severity, "error") == 0     ? "NO"
				      : strcmp(severity, "warning") == 0 ? "yes (w)"
									 : "yes";
		fmt_waves_json(t, w, sizeof w);
		fprintf(out, "%-*s %-26s %-8s %-28s %6lld %14s %6.2f%% (%.2f%% x %.2f%%)\n", width,
			calc_str(gm, "name"), shape, aligned, change, num_ll(t, "tiles"), w,
			100 * calc_num(t, "efficiency"), 100 * calc_num(t, "tile_efficiency"),
			100 * calc_num(t, "wave_efficiency"));
	}
	if (calc_num(d, "warnings") > 0)
		fprintf(out, "(w): 16-byte aligned, below the recommended multiple.\n");
	fprintf(out, "layout: x W^T with W [N,K] row-major (F.linear): cuBLAS TN, m = N, n = M, k = K,\n"
		     "lda = ldb = K, ldc = N; cuBLAS's six conditions fall on N and K, M (tokens) is free\n"
		     "(ridge gemm's rule; an odd token count ran at 0.97x the time per FLOP on an H200).\n");

	fprintf(out, "\n");
	int shown = 0;
	cJSON_ArrayForEach (f, findings) {
		if (strcmp(calc_str(f, "severity"), "ok") == 0)
			continue;
		fprintf(out, "%-7s %s = %lld (%s): %s\n", calc_str(f, "severity"), calc_str(f, "name"),
			num_ll(f, "value"), calc_str(f, "from"), calc_str(f, "reason"));
		shown++;
	}
	if (!shown)
		fprintf(out, "every dimension is a multiple of %lld\n", num_ll(get(d, "rule"), "recommended_multiple"));
	print_swiglu_check(out, get(d, "swiglu"), m, command_line);
	fprintf(out,
		"GEMMs with an error carry %.1f%% of the %.4g forward GEMM FLOPs (%lld tokens; attention's\n"
		"Q K^T and P V, which grow with context, are not counted)\n",
		100 * calc_num(d, "misaligned_flops_fraction"), calc_num(d, "gemm_flops"), num_ll(d, "tokens"));
}

static void print_result(FILE *out, const cJSON *d, bool command_line)
{
	bool amd = strcmp(calc_str(d, "vendor"), "amd") == 0;
	int errors = (int)calc_num(d, "errors"), warnings = (int)calc_num(d, "warnings");
	print_header(out, d, amd);
	if (calc_has(d, "model"))
		print_model(out, d, command_line);
	else
		print_dims(out, d);
	fprintf(out, "\n%d error%s, %d warning%s: %s\n", errors, errors == 1 ? "" : "s", warnings,
		warnings == 1 ? "" : "s",
		errors && command_line ? "misaligned (exit 1)"
		: errors               ? "misaligned"
		: warnings             ? "aligned, below the recommended multiple"
				       : "aligned");
	bool tensor_cores = cJSON_IsTrue(get(get(d, "rule"), "tensor_core_path"));
	if (errors && tensor_cores && cJSON_IsTrue(get(get(d, "rule"), "alignment_required")))
		fprintf(out,
			"For %s an error marks a GEMM cuBLAS has no kernel for: pad the dimension (or run that\n"
			"GEMM in bf16).\n",
			calc_str(d, "dtype"));
	else if (errors && tensor_cores && !amd)
		fprintf(out, "ridge flags where a dimension leaves the fast kernels, not how much slower they run: on\n"
			     "cuBLAS >= 11 an unaligned GEMM stays on tensor cores through slower kernels or\n"
			     "padding (the \"falls back to FP32 CUDA cores, 30x slower\" story is cuBLAS < 11).\n"
			     "ridge-probe measures the real penalty (K = 8192 vs 8191 vs 8184).\n");
	else if (errors)
		fprintf(out, "ridge flags where a dimension is unaligned, not how much slower it runs; the probe\n"
			     "measures that on the GPU.\n");
}

static void align_print(FILE *out, const cJSON *d)
{
	print_result(out, d, true);
}

static void align_print_item(FILE *out, const cJSON *d)
{
	print_result(out, d, false);
}

const struct calc calc_align = {
	.name = "align",
	.synopsis = "usage: ridge align --dtype DT (--dims D1,D2,... | --model FILE) [--gpu GPU]",
	.description = "Tensor-core alignment of GEMM dimensions, and their tile and wave quantization.\n",
	CALC_IMPL(align_params, align_calc_run, align_print),
	.print_item = align_print_item,
	.usage = usage_text,
	.problem_unless_ok = true,
};
