/* ridge report's alignment section: the textbook's dimensions and a model's GEMMs against this GPU's tensor-core rule, with their tiles, waves and verdicts. */
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

static void fmt_next(const struct ridge_align_dim *d, bool recommended, char *buf, size_t len)
{
	align_fmt_next_value(d->value, recommended ? d->suggested_recommended : d->suggested, buf, len);
}

static void fmt_waves(const struct ridge_align_tiling *t, char *buf, size_t len)
{
	snprintf(buf, len, "%.2f -> %lld", t->waves_exact, t->waves);
}

/* A short verdict for the report: what the rule says about one value. */
static void verdict(const struct ridge_gpu *gpu, const struct ridge_align_rule *r, const struct ridge_align_dim *d,
		    char *buf, size_t len)
{
	const char *dt = ridge_dtype_name(r->dtype);
	const char *core = gpu->vendor == RIDGE_VENDOR_AMD ? "matrix-core" : "tensor-core";
	if (!r->matrix_path)
		snprintf(buf, len, "%s: no %s path on this GPU", dt, core);
	else if (d->severity == RIDGE_ALIGN_ERROR && d->suggested == d->suggested_recommended)
		snprintf(buf, len, "%s: off the fast %s kernels (not a multiple of %lld; next %lld)", dt, core,
			 r->required_multiple, d->suggested);
	else if (d->severity == RIDGE_ALIGN_ERROR)
		snprintf(buf, len, "%s: off the fast %s kernels (not a multiple of %lld; next %lld, or %lld for %lld)",
			 dt, core, r->required_multiple, d->suggested, d->suggested_recommended,
			 r->recommended_multiple);
	else if (d->severity == RIDGE_ALIGN_WARNING)
		snprintf(buf, len, "%s: on %s cores, short of the recommended %lld (next %lld)", dt,
			 gpu->vendor == RIDGE_VENDOR_AMD ? "matrix" : "tensor", r->recommended_multiple,
			 d->suggested_recommended);
	else
		snprintf(buf, len, "%s: a multiple of the recommended %lld", dt, r->recommended_multiple);
}

/* One dimension's verdict under a rule, as ridge align --json has it. */
static cJSON *report_finding_json(const char *label, const struct ridge_align_dim *d)
{
	struct align_finding f = { .dim = *d, .gemm = -1 };
	snprintf(f.name, sizeof f.name, "%s", label);
	return calc_json_align_finding(&f);
}

/* ridge report: the textbook's cases (7.2.3, review question 3) on this GPU. */
/* The dimensions ridge report checks: the textbook's (review question 3,
 * the SwiGLU size and its fixes) and the probe's shapes. */
static const struct {
	const char *label;
	long long value;
} report_cases[] = {
	{ "d_model = 6000 (review q. 3)", 6000 },
	{ "8/3 x 8192 = 21845 (SwiGLU)", 21845 },
	{ "textbook fix 21888 (342 x 64)", 21888 },
	{ "Llama rule, multiple_of 256", 22016 },
	{ "probe shape 8191", 8191 },
	{ "probe shape 8184", 8184 },
	{ "probe shape 8192", 8192 },
};
static const struct ridge_align_tile report_tile = { 128, 128, 1 };
static const long long report_tokens = ALIGN_DEFAULT_TOKENS;

/* The rules the table is checked against: JSON keys (aj), or the rules'
 * line and the table's head. */
static void report_align_rules(FILE *out, const char *hn, const struct ridge_align_rule *half,
			       const struct ridge_align_rule *fp8, cJSON *aj)
{
	if (aj) {
		cJSON_AddStringToObject(aj, "dtype", hn);
		calc_json_align_rule(cJSON_AddObjectToObject(aj, hn), half);
		calc_json_align_rule(cJSON_AddObjectToObject(aj, "fp8"), fp8);
		cJSON_AddNumberToObject(aj, "tokens", (double)report_tokens);
		cJSON *t = cJSON_AddObjectToObject(aj, "tile");
		cJSON_AddNumberToObject(t, "m", report_tile.m);
		cJSON_AddNumberToObject(t, "n", report_tile.n);
		return;
	}
	fprintf(out, "%s: multiples of %lld required, %lld recommended; fp8: %lld and %lld\n", hn,
		half->required_multiple, half->recommended_multiple, fp8->required_multiple, fp8->recommended_multiple);
	char fix_head[24];
	snprintf(fix_head, sizeof fix_head, "%s fix", hn);
	fprintf(out, "%-30s %-8s %-8s %9s %7s %14s %9s %9s\n", "dimension (as N)", hn, "fp8", fix_head, "tiles",
		"waves", "tile eff", "wave eff");
}

/* One row (or "dims" element) per case; the first two cases' verdicts are
 * kept in seen_half and seen_fp8 for the text under the table. Returns -1
 * when a case cannot be checked (the error said). */
static int report_align_dims(FILE *out, const struct ridge_gpu *gpu, const char *hn,
			     const struct ridge_align_rule *half, const struct ridge_align_rule *fp8, cJSON *aj,
			     struct ridge_align_dim seen_half[2], struct ridge_align_dim seen_fp8[2])
{
	char err[300];
	cJSON *dims = aj ? cJSON_AddArrayToObject(aj, "dims") : NULL;
	for (size_t i = 0; i < sizeof report_cases / sizeof report_cases[0]; i++) {
		struct ridge_align_dim a, b;
		struct ridge_align_tiling t;
		if (align_check_dim(half, report_cases[i].value, &a, err, sizeof err) != 0 ||
		    align_check_dim(fp8, report_cases[i].value, &b, err, sizeof err) != 0 ||
		    align_tiling(report_tokens, report_cases[i].value, &report_tile, gpu->sm_count, &t, err,
				 sizeof err) != 0) {
			if (aj)
				cJSON_AddStringToObject(aj, "error", err);
			else
				fprintf(out, "%-30s %s\n", report_cases[i].label, err);
			return -1;
		}
		if (i < 2) {
			seen_half[i] = a;
			seen_fp8[i] = b;
		}
		if (dims) {
			cJSON *d = cJSON_CreateObject();
			cJSON_AddItemToArray(dims, d);
			cJSON_AddStringToObject(d, "label", report_cases[i].label);
			cJSON_AddNumberToObject(d, "value", (double)report_cases[i].value);
			cJSON_AddItemToObject(d, hn, report_finding_json(report_cases[i].label, &a));
			cJSON_AddItemToObject(d, "fp8", report_finding_json(report_cases[i].label, &b));
			cJSON_AddItemToObject(d, "tiling", align_tiling_json(&t));
			continue;
		}
		char fix[24], w[32];
		fmt_next(&a, true, fix, sizeof fix);
		fmt_waves(&t, w, sizeof w);
		fprintf(out, "%-30s %-8s %-8s %9s %7lld %14s %8.2f%% %8.2f%%\n", report_cases[i].label,
			half->matrix_path ? align_severity_name(a.severity) : "no TC",
			fp8->matrix_path ? align_severity_name(b.severity) : "no TC", fix, t.tiles, w,
			100 * t.tile_efficiency, 100 * t.wave_efficiency);
	}
	return 0;
}

/* Under the table: the tiling assumed, and the first two cases' verdicts in words. */
static void report_align_verdicts(FILE *out, const struct ridge_gpu *gpu, const struct ridge_align_rule *half,
				  const struct ridge_align_rule *fp8, const struct ridge_align_dim seen_half[2],
				  const struct ridge_align_dim seen_fp8[2])
{
	fprintf(out, "tiles: M = %lld tokens x N, %dx%d CTA tiles, one per %s, %d %s.\n", report_tokens, report_tile.m,
		report_tile.n, gpu->vendor == RIDGE_VENDOR_AMD ? "CU" : "SM", gpu->sm_count,
		gpu->vendor == RIDGE_VENDOR_AMD ? "CUs" : "SMs");
	char line[200];
	for (int i = 0; i < 2; i++) {
		fprintf(out, "%lld:\n", report_cases[i].value);
		verdict(gpu, half, &seen_half[i], line, sizeof line);
		fprintf(out, "  %s\n", line);
		verdict(gpu, fp8, &seen_fp8[i], line, sizeof line);
		fprintf(out, "  %s\n", line);
	}
}

/* The textbook says the misaligned FFN is "~36% of model compute": here is
 * the share of forward GEMM FLOPs in a Llama-3-70B shape with 21845. */
static void report_align_ffn_share(FILE *out, cJSON *aj)
{
	const long long tokens = report_tokens;
	char err[300];
	struct ridge_align_model m = { .hidden_size = 8192,
				       .intermediate_size = 21845,
				       .num_attention_heads = 64,
				       .num_key_value_heads = 8,
				       .has_num_key_value_heads = true,
				       .vocab_size = 128256,
				       .num_hidden_layers = 80 };
	struct ridge_align_gemm g[RIDGE_GEMM_COUNT];
	if (align_model_resolve(&m, err, sizeof err) != 0 || align_model_gemms(&m, tokens, g, err, sizeof err) != 0)
		return;
	double total = 0, ffn = 0;
	for (int i = 0; i < RIDGE_GEMM_COUNT; i++) {
		total += g[i].flops;
		if (i == RIDGE_GEMM_GATE || i == RIDGE_GEMM_UP || i == RIDGE_GEMM_DOWN)
			ffn += g[i].flops;
	}
	if (aj) {
		cJSON *o = cJSON_AddObjectToObject(aj, "llama3_70b_ffn");
		cJSON_AddNumberToObject(o, "intermediate_size", (double)m.intermediate_size);
		json_number(o, "ffn_gemm_flops", ffn);
		json_number(o, "gemm_flops", total);
		json_ratio(o, "ffn_fraction", ffn, total);
		return;
	}
	fprintf(out,
		"A Llama-3-70B shape with intermediate 21845: gate, up and down carry %.1f%% of the forward\n"
		"GEMM FLOPs at %lld tokens (the textbook says ~36%% of model compute; attention's Q K^T and P V\n"
		"are not counted here and grow with context).\n",
		100 * ffn / total, tokens);
}

/* The section in phases: the rules, the table of cases, the verdicts in
 * words, the FFN's share of a Llama-3-70B, the note on old cuBLAS. */
void report_align(FILE *out, const struct ridge_gpu *gpu, cJSON *json)
{
	struct ridge_align_rule half, fp8;
	char err[300];
	/* The textbook's dtype is bf16; a GPU without bf16 matrix units (V100) gets fp16. */
	enum ridge_dtype half_dtype =
		gpu->peak[RIDGE_BF16].has_matrix || !gpu->peak[RIDGE_FP16].has_matrix ? RIDGE_BF16 : RIDGE_FP16;
	const char *hn = ridge_dtype_name(half_dtype);
	cJSON *aj = json ? cJSON_AddObjectToObject(json, "align") : NULL;
	if (!json)
		fprintf(out, "== Tensor-core alignment (textbook §7.2.3) on %s ==\n", gpu->name);
	if (align_rule(gpu, half_dtype, &half, err, sizeof err) != 0 ||
	    align_rule(gpu, RIDGE_FP8, &fp8, err, sizeof err)) {
		if (aj)
			cJSON_AddStringToObject(aj, "error", err);
		else
			fprintf(out, "cannot check: %s\n", err);
		return;
	}
	report_align_rules(out, hn, &half, &fp8, aj);
	struct ridge_align_dim seen_half[2], seen_fp8[2];
	if (report_align_dims(out, gpu, hn, &half, &fp8, aj, seen_half, seen_fp8) != 0)
		return;
	if (!json)
		report_align_verdicts(out, gpu, &half, &fp8, seen_half, seen_fp8);
	report_align_ffn_share(out, aj);
	if (json)
		return;
	fprintf(out, "The textbook's \"not divisible by 16 silently falls back to FP32 CUDA cores, 30x slower\" is\n"
		     "cuBLAS < 11; newer cuBLAS uses slower tensor-core kernels or pads. ridge-probe measures it.\n");
}
