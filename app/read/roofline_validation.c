/* ridge roofline --validation FILE (see roofline_validation.h). */
#include "roofline_validation.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "json_check.h"
#include "read_limits.h"
#include "roofline_svg.h"

struct vpoint {
	char kernel[48], shape[64], group[24], binding[24], label[48];
	double flops, bytes, measured_s, predicted_s, error;
	bool has_prediction;
	struct ridge_roofline_ceiling ceiling;
	double intensity, achieved, predicted, attainable;
};

static const char *str_item(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool num_item(const cJSON *o, const char *key, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!cJSON_IsNumber(v))
		return false;
	*out = v->valuedouble;
	return true;
}

/* The fields a case may have, with the type each must have when given (as
 * the YAML loader refuses "sm_count: lots"): a wrong type is an error, never
 * a field silently taken as absent. null counts as absent. */
static const struct {
	const char *key;
	int type; /* cJSON_Number or cJSON_String */
} case_fields[] = {
	{ "kernel", cJSON_String },      { "shape", cJSON_String }, { "group", cJSON_String },
	{ "dtype", cJSON_String },       { "path", cJSON_String },  { "binding", cJSON_String },
	{ "flops", cJSON_Number },       { "bytes", cJSON_Number }, { "measured_s", cJSON_Number },
	{ "predicted_s", cJSON_Number }, { "error", cJSON_Number },
};

static int check_case_types(const char *file, int index, const cJSON *o, struct app_status *st)
{
	if (!cJSON_IsObject(o)) {
		app_error_at(st, file, 0, 0, "validation[%d] must be an object", index);
		return -1;
	}
	for (size_t i = 0; i < sizeof case_fields / sizeof case_fields[0]; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, case_fields[i].key);
		if (!v || cJSON_IsNull(v) || (v->type & 0xff) == case_fields[i].type)
			continue;
		app_error_at(st, file, 0, 0, "validation[%d]: '%s' must be a %s", index, case_fields[i].key,
			     case_fields[i].type == cJSON_Number ? "number" : "string");
		return -1;
	}
	return 0;
}

/* "naive 4096", "cuBLAS 8192x64x8192", "add 16 MiB", "softmax/3 16384 x 8192". */
static void short_label(const char *kernel, const char *shape, char *out, size_t len)
{
	static const struct {
		const char *kernel, *alias;
	} aliases[] = {
		{ "v_stream_add", "add" },           { "v_gemm_naive", "naive" },
		{ "v_gemm_tiled", "tiled" },         { "gemm_bf16", "cuBLAS" },
		{ "v_resnorm_unfused", "add+norm" }, { "v_resnorm_fused", "add+norm fused" },
		{ "v_softmax_safe", "softmax/3" },   { "v_softmax_online", "softmax/2" },
		{ "v_softmax_fused", "softmax/1" },
	};
	const char *alias = kernel;
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
		if (strcmp(kernel, aliases[i].kernel) == 0)
			alias = aliases[i].alias;
	const char *x = strchr(shape, 'x');
	if (strncmp(kernel, "v_gemm", 6) == 0 && x)
		snprintf(out, len, "%s %.*s", alias, (int)(x - shape), shape); /* square: one side */
	else if (strncmp(kernel, "v_res", 5) == 0 || strncmp(kernel, "v_soft", 6) == 0)
		snprintf(out, len, "%s %s", alias, strrchr(shape, ' ') ? strrchr(shape, ' ') + 1 : shape);
	else
		snprintf(out, len, "%s %s", alias, shape);
}

static int load_text(const char *file, const char *text, size_t len, const char *group, const struct ridge_gpu *gpu,
		     struct vpoint *pts, int *count, struct app_status *st);

static int load(const char *file, const char *group, const struct ridge_gpu *gpu, struct vpoint *pts, int *count,
		struct app_status *st)
{
	size_t len;
	char *text = app_read_file(file, READ_MAX_VALIDATION_BYTES, "validation JSON", &len, st);
	if (!text)
		return EXIT_USAGE;
	int rc = load_text(file, text, len, group, gpu, pts, count, st);
	free(text);
	return rc;
}

int roofline_validation_check(const char *file, const char *text, size_t len, const struct ridge_gpu *gpu, int *count,
			      struct app_status *st)
{
	static struct vpoint pts[READ_MAX_VALIDATION_CASES];
	*count = 0;
	return load_text(file, text, len, NULL, gpu, pts, count, st);
}

/* The text as one JSON document: no control byte, valid, no key given
 * twice. NULL with why in st. */
static cJSON *parse_validation(const char *file, const char *text, size_t len, struct app_status *st)
{
	size_t bad;
	if (hwdb_json_bad_byte(text, len, &bad)) {
		int line, col;
		app_text_position(text, bad, &line, &col);
		app_error_at(st, file, line, col, "not valid JSON: control byte 0x%02x", (unsigned char)text[bad]);
		return NULL;
	}
	cJSON *doc = cJSON_ParseWithLength(text, len);
	if (!doc) {
		int line, col;
		const char *at = cJSON_GetErrorPtr();
		app_text_position(text, at && at >= text && at <= text + len ? (size_t)(at - text) : 0, &line, &col);
		app_error_at(st, file, line, col, "not valid JSON");
		return NULL;
	}
	char dup_path[256];
	if (hwdb_json_duplicate(doc, dup_path, sizeof dup_path)) {
		app_error_at(st, file, 0, 0, "'%s' is given twice", dup_path);
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

/* validation[index] (kernel, shape and group already read) as a point on
 * gpu's roofline. Returns 1 with *p filled, 0 for a case with no point (a
 * launch case: no FLOPs or bytes), -1 with why in st. */
static int read_case(const char *file, int index, const cJSON *o, const char *kernel, const char *shape, const char *g,
		     const struct ridge_gpu *gpu, struct vpoint *p, struct app_status *st)
{
	memset(p, 0, sizeof *p);
	const char *dtype = str_item(o, "dtype"), *path = str_item(o, "path");
	if (!num_item(o, "flops", &p->flops) || !num_item(o, "bytes", &p->bytes) || !dtype || !path)
		return 0; /* launch cases: no roofline point */
	if (!num_item(o, "measured_s", &p->measured_s) || !(p->measured_s > 0) || !(p->flops > 0) || !(p->bytes > 0)) {
		app_error_at(st, file, 0, 0, "validation[%d] (%s %s) has no positive measured_s, flops and bytes",
			     index, kernel, shape);
		return -1;
	}
	enum ridge_dtype d;
	if (!ridge_dtype_parse(dtype, &d)) {
		app_error_at(st, file, 0, 0, "validation[%d]: unknown dtype '%s'", index, dtype);
		return -1;
	}
	char err[300];
	if (roofline_ceiling(gpu, d, strcmp(path, "matrix") == 0 ? RIDGE_PEAK_MATRIX : RIDGE_PEAK_VECTOR, false,
			     RIDGE_LEVEL_HBM, &p->ceiling, err, sizeof err)) {
		app_error_at(st, file, 0, 0, "validation[%d] (%s %s): %s", index, kernel, shape, err);
		return -1;
	}
	p->has_prediction = num_item(o, "predicted_s", &p->predicted_s) && p->predicted_s > 0;
	if (p->has_prediction)
		num_item(o, "error", &p->error);
	snprintf(p->kernel, sizeof p->kernel, "%s", kernel);
	snprintf(p->shape, sizeof p->shape, "%s", shape);
	snprintf(p->group, sizeof p->group, "%s", g);
	const char *b = str_item(o, "binding");
	snprintf(p->binding, sizeof p->binding, "%s", b ? b : "-");
	short_label(kernel, shape, p->label, sizeof p->label);
	p->intensity = p->flops / p->bytes;
	p->achieved = p->flops / p->measured_s;
	p->predicted = p->has_prediction ? p->flops / p->predicted_s : 0;
	p->attainable = roofline_attainable(p->ceiling.peak_flops, p->ceiling.bandwidth, p->intensity);
	/* Finite inputs can still overflow (1e308 FLOPs in 1e-300 s): refuse
	 * the case rather than print inf or nan. */
	if (!isfinite(p->intensity) || !(p->intensity > 0) || !isfinite(p->achieved) || !isfinite(p->predicted) ||
	    !isfinite(p->error * 100) || !(p->attainable > 0) || !isfinite(p->attainable)) {
		app_error_at(st, file, 0, 0,
			     "validation[%d] (%s %s): overflow: its flops, bytes, measured_s, predicted_s and "
			     "error give values out of range",
			     index, kernel, shape);
		return -1;
	}
	return 1;
}

/* The document's "validation" cases of group (NULL: all) into pts, each
 * checked (check_case_types) and placed (read_case). */
static int load_text(const char *file, const char *text, size_t len, const char *group, const struct ridge_gpu *gpu,
		     struct vpoint *pts, int *count, struct app_status *st)
{
	cJSON *doc = parse_validation(file, text, len, st);
	if (!doc)
		return EXIT_USAGE;
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(doc, "validation");
	if (!cJSON_IsArray(arr)) {
		app_error_at(st, file, 0, 0,
			     "no 'validation' array (write one with ridge-probe --validate --json, or --replay a "
			     "validation run with --json)");
		cJSON_Delete(doc);
		return EXIT_USAGE;
	}
	*count = 0;
	int index = 0, groups_seen = 0;
	const cJSON *o;
	cJSON_ArrayForEach (o, arr) {
		index++;
		if (check_case_types(file, index - 1, o, st) != 0) {
			cJSON_Delete(doc);
			return EXIT_USAGE;
		}
		const char *kernel = str_item(o, "kernel"), *shape = str_item(o, "shape"), *g = str_item(o, "group");
		if (!kernel || !shape || !g) {
			app_error_at(st, file, 0, 0, "validation[%d] lacks 'kernel', 'shape' or 'group'", index - 1);
			cJSON_Delete(doc);
			return EXIT_USAGE;
		}
		if (group && strcmp(group, g) != 0)
			continue;
		groups_seen++;
		struct vpoint p;
		int placed = read_case(file, index - 1, o, kernel, shape, g, gpu, &p, st);
		if (placed < 0) {
			cJSON_Delete(doc);
			return EXIT_USAGE;
		}
		if (placed == 0)
			continue;
		if (*count >= READ_MAX_VALIDATION_CASES) {
			app_error_at(st, file, 0, 0, "more than %d validation cases", READ_MAX_VALIDATION_CASES);
			cJSON_Delete(doc);
			return EXIT_USAGE;
		}
		pts[(*count)++] = p;
	}
	cJSON_Delete(doc);
	if (group && !groups_seen) {
		app_error_flag(st, "--group",
			       "no case of group '%s' in %s (groups: stream fp32_gemm library_gemm fused launch)",
			       group, file);
		return EXIT_USAGE;
	}
	if (!*count) {
		app_error_at(st, file, 0, 0, "no validation case with FLOPs and bytes to place%s%s",
			     group ? " in group " : "", group ? group : "");
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int roofline_validation_run(FILE *out, const char *file, const char *group, const struct ridge_gpu *gpu,
			    const char *svg, cJSON **json_doc, struct app_status *st)
{
	static struct vpoint pts[READ_MAX_VALIDATION_CASES];
	int count = 0;
	int rc = load(file, group, gpu, pts, &count, st);
	if (rc)
		return rc;
	if (svg) {
		static struct roofline_plot_point points[2 * READ_MAX_VALIDATION_CASES];
		int n = 0, focus = 0;
		for (int i = 0; i < count; i++) {
			const struct vpoint *p = &pts[i];
			if (p->flops > pts[focus].flops)
				focus = i;
			enum ridge_bound bound =
				strcmp(p->binding, "compute") == 0 ? RIDGE_BOUND_COMPUTE : RIDGE_BOUND_MEMORY;
			points[n++] = (struct roofline_plot_point){ .label = p->label,
								    .intensity = p->intensity,
								    .flops = p->achieved,
								    .attainable_flops = p->attainable,
								    .measured = true,
								    .bound = bound };
			if (p->has_prediction)
				points[n++] = (struct roofline_plot_point){ .intensity = p->intensity,
									    .flops = p->predicted,
									    .attainable_flops = p->predicted,
									    .bound = bound,
									    .predicted = true,
									    .has_link = true,
									    .link_intensity = p->intensity,
									    .link_flops = p->achieved };
		}
		char subtitle[300];
		snprintf(subtitle, sizeof subtitle,
			 "%s: measured (circles) and predicted by the hierarchical model (diamonds)%s%s", file,
			 group ? ", group " : "", group ? group : "");
		struct roofline_plot plot = { gpu, subtitle, pts[focus].ceiling, false, n, points };
		if (roofline_svg_write(svg, &plot, st))
			return EXIT_ENV;
	}
	if (json_doc) {
		cJSON *doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "gpu", gpu->id);
		cJSON_AddStringToObject(doc, "ceiling_source", app_ceiling_source(gpu));
		cJSON_AddStringToObject(doc, "file", file);
		if (group)
			cJSON_AddStringToObject(doc, "group", group);
		cJSON *arr = cJSON_AddArrayToObject(doc, "points");
		for (int i = 0; i < count; i++) {
			const struct vpoint *p = &pts[i];
			cJSON *e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "kernel", p->kernel);
			cJSON_AddStringToObject(e, "shape", p->shape);
			cJSON_AddStringToObject(e, "group", p->group);
			cJSON_AddStringToObject(e, "dtype", ridge_dtype_name(p->ceiling.dtype));
			cJSON_AddStringToObject(e, "path", p->ceiling.matrix ? "matrix" : "vector");
			json_number(e, "intensity", p->intensity);
			json_number(e, "achieved_flops", p->achieved);
			json_number(e, "attainable_flops", p->attainable);
			json_number(e, "fraction_of_attainable", p->achieved / p->attainable);
			if (p->has_prediction) {
				json_number(e, "predicted_flops", p->predicted);
				json_number(e, "error", p->error);
				cJSON_AddStringToObject(e, "binding", p->binding);
			}
			cJSON_AddItemToArray(arr, e);
		}
		if (svg)
			cJSON_AddStringToObject(doc, "svg", svg);
		*json_doc = doc;
		return EXIT_OK;
	}
	char bw[48];
	fmt_si(gpu->memory_bandwidth, "B/s", bw, sizeof bw);
	fprintf(out, "Validation cases of %s on %s (%s), %s ceilings, HBM %s%s%s\n", file, gpu->name, gpu->id,
		app_ceiling_source(gpu), bw, group ? "; group " : "", group ? group : "");
	fprintf(out, "%-24s %-12s %9s %14s %14s %14s %8s %-14s\n", "case", "placed on", "FLOP/B", "achieved",
		"predicted", "HBM roof", "error", "binds (model)");
	for (int i = 0; i < count; i++) {
		const struct vpoint *p = &pts[i];
		char a[32], pr[32], at[32], kind[32], err[16];
		fmt_si(p->achieved, "FLOP/s", a, sizeof a);
		fmt_si(p->predicted, "FLOP/s", pr, sizeof pr);
		fmt_si(p->attainable, "FLOP/s", at, sizeof at);
		snprintf(kind, sizeof kind, "%s %s", ridge_dtype_name(p->ceiling.dtype),
			 p->ceiling.matrix ? "matrix" : "vector");
		if (p->has_prediction)
			snprintf(err, sizeof err, "%+.1f%%", 100 * p->error);
		else
			snprintf(err, sizeof err, "-");
		fprintf(out, "%-24.24s %-12s %9.4g %14s %14s %14s %8s %-14s\n", p->label, kind, p->intensity, a,
			p->has_prediction ? pr : "-", at, err, p->binding);
	}
	if (svg)
		fprintf(out, "wrote %s\n", svg);
	return EXIT_OK;
}
