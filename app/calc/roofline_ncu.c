/* ridge roofline's command-line work: one placement with its plot (--svg), and --ncu: every profiled kernel of an Nsight Compute report placed on the GPU's roofline. */
#include "roofline_calc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "app.h"
#include "json_fields.h"
#include "kernel_time.h"
#include "kernel_view.h"
#include "ncu.h"
#include "read_limits.h"
#include "report.h"
#include "roofline_svg.h"
#include "roofline_validation.h"
#include "roofline_internal.h"

/* ---- the command ---- */

static int write_plot(const char *svg, bool sparse, const struct ridge_gpu *gpu, const struct ridge_roofline_ceiling *c,
		      const struct roofline_plot_point *points, int count, struct app_status *st)
{
	if (!svg)
		return 0;
	struct roofline_plot plot = { gpu, NULL, *c, sparse, count, points };
	return roofline_svg_write(svg, &plot, st);
}

/* One placement: the calculator's run (calc_run refuses a result that is
 * not finite, naming the input, as for a scenario item), then the plot. */
int roofline_run_model(FILE *out, const struct param_values *v, const struct roofline_request *r,
		       const struct ridge_gpu *gpu, cJSON **json, struct app_status *st)
{
	struct calc_input in = { .values = v, .gpu = gpu };
	cJSON *doc = calc_run(&calc_roofline, &in);
	if (!doc) {
		app_error(st, "%s", in.err);
		return EXIT_USAGE;
	}
	const char *svg = params_text(v, ROOFLINE_SVG);
	if (svg) {
		char err[600];
		struct plot_out plot;
		cJSON_Delete(roofline_compute(gpu, r, &plot, err, sizeof err));
		if (write_plot(svg, r->sparse, gpu, &plot.ceiling, plot.points, plot.count, st)) {
			cJSON_Delete(doc);
			return EXIT_ENV;
		}
		cJSON_AddStringToObject(doc, "svg", svg);
	}
	if (params_flag(v, ROOFLINE_JSON)) {
		*json = doc;
		return EXIT_OK;
	}
	roofline_print(out, doc);
	cJSON_Delete(doc);
	if (svg)
		fprintf(out, "wrote %s\n", svg);
	return EXIT_OK;
}

struct ncu_placed {
	const struct ncu_kernel *k;
	double flops, bytes;
	bool has_flops;
	struct ridge_roofline_ceiling c;
	struct ridge_roofline_point p;
	double l2_time_s;
	bool l2_placed;
	bool tensor_flops_missing;
};

/* The CSV (or report) at path, parsed, with FLOP counts. Returns 0, or an exit code with the error in st. */
static int ncu_read(const char *path, struct ncu_report *report, struct app_status *st)
{
	char err[600];
	size_t len;
	char *text = NULL;
	if (ncu_is_report(path)) {
		int imported = ncu_import(path, &text, &len, err, sizeof err);
		if (imported != 0) {
			app_error(st, "--ncu: %s", err);
			return imported;
		}
	} else {
		text = app_read_file(path, READ_MAX_NCU_BYTES, "Nsight Compute CSV", &len, st);
	}
	if (!text)
		return EXIT_USAGE;
	int rc = ncu_parse(path, text, len, report, err, sizeof err);
	free(text);
	if (rc) {
		app_error(st, "%s", err);
		return EXIT_USAGE;
	}
	if (!report->any_flop_metric) {
		app_error(st,
			  "%s: no FLOP counts (sm__sass_thread_inst_executed_op_*_pred_on.sum or "
			  "sm__ops_path_tensor_src_*.sum); collect them to place kernels on a roofline",
			  path);
		ncu_free(report);
		return EXIT_USAGE;
	}
	return 0;
}

/* One kernel placed under its ceiling (the dominant precision, or --dtype's),
 * with its L2 time where the GPU has an L2 bandwidth (has_l2). Returns 0, or
 * EXIT_USAGE with the error in st. */
static int ncu_place(const struct param_values *v, const struct roofline_request *req, const struct ridge_gpu *gpu,
		     const char *path, const struct ncu_kernel *k, bool has_l2, double l2_bandwidth,
		     struct ncu_placed *pl, struct app_status *st)
{
	char err[600];
	pl->k = k;
	if (!k->has_time) {
		app_error(st, "%s:%d: kernel '%s' (ID %s) has no time (gpu__time_duration.sum)", path, k->line, k->name,
			  k->id);
		return EXIT_USAGE;
	}
	if (!ncu_dram_bytes(k, &pl->bytes)) {
		app_error(st,
			  "%s:%d: kernel '%s' (ID %s) has no DRAM bytes (dram__bytes_read.sum and "
			  "dram__bytes_write.sum, or dram__bytes.sum)",
			  path, k->line, k->name, k->id);
		return EXIT_USAGE;
	}
	if (!(k->time_s > 0)) {
		app_error(st, "%s:%d: kernel '%s' (ID %s) has a time of 0", path, k->line, k->name, k->id);
		return EXIT_USAGE;
	}
	pl->flops = ncu_flops(k);
	enum ridge_dtype dtype = RIDGE_FP32;
	bool matrix = false;
	bool dominant = ncu_dominant(k, &dtype, &matrix);
	pl->tensor_flops_missing = k->tensor_instructions > 0 && !(matrix && dominant);
	for (int d = 0; d < RIDGE_DTYPE_COUNT && pl->tensor_flops_missing; d++)
		if (ncu_tensor_flops(k, (enum ridge_dtype)d) > 0)
			pl->tensor_flops_missing = false;
	enum ridge_peak_kind kind = matrix ? RIDGE_PEAK_MATRIX : RIDGE_PEAK_VECTOR;
	if (params_has(v, ROOFLINE_DTYPE)) {
		dtype = req->dtype;
		kind = req->no_tensor ? RIDGE_PEAK_VECTOR : RIDGE_PEAK_DEFAULT;
	}
	if (roofline_ceiling(gpu, dtype, kind, req->sparse, RIDGE_LEVEL_HBM, &pl->c, err, sizeof err)) {
		app_error(st, "%s:%d: kernel '%s': %s", path, k->line, k->name, err);
		return EXIT_USAGE;
	}
	pl->has_flops = pl->flops > 0;
	if (pl->has_flops && pl->bytes > 0) {
		/* It refuses a time so short the rates overflow. */
		if (roofline_place(&pl->c, pl->flops, pl->bytes, k->time_s, &pl->p, err, sizeof err)) {
			app_error(st, "%s:%d: kernel '%s' (ID %s): %s", path, k->line, k->name, k->id, err);
			return EXIT_USAGE;
		}
	} else {
		/* No FLOPs (a copy) or no DRAM bytes (all L2 hits): no finite intensity. */
		pl->p = (struct ridge_roofline_point){ 0 };
		pl->p.intensity = pl->bytes > 0 ? 0 : INFINITY;
		pl->p.bound = pl->bytes > 0 ? RIDGE_BOUND_MEMORY : RIDGE_BOUND_COMPUTE;
		pl->p.attainable_flops = pl->bytes > 0 ? 0 : pl->c.peak_flops;
		pl->p.has_time = true;
		pl->p.time_s = k->time_s;
		pl->p.achieved_flops = pl->flops / k->time_s;
		pl->p.achieved_bandwidth = pl->bytes / k->time_s;
		pl->p.fraction_of_bandwidth = pl->p.achieved_bandwidth / pl->c.bandwidth;
		pl->p.fraction_of_peak = pl->p.achieved_flops / pl->c.peak_flops;
		pl->p.fraction_of_attainable = pl->bytes > 0 ? NAN : pl->p.fraction_of_peak;
		if (!isfinite(pl->p.achieved_flops) || !isfinite(pl->p.achieved_bandwidth)) {
			app_error(st,
				  "%s:%d: kernel '%s' (ID %s): overflow: a time of %g s gives rates too large to "
				  "represent",
				  path, k->line, k->name, k->id, k->time_s);
			return EXIT_USAGE;
		}
	}
	if (k->has_l2 && has_l2 && k->l2_bytes > 0) {
		pl->l2_placed = true;
		pl->l2_time_s = k->l2_bytes / l2_bandwidth;
	}
	return 0;
}

/* Short labels: "void f<T>(args)" plots as "f". */
static void ncu_label(const struct ncu_kernel *k, char *label, size_t len)
{
	const char *short_name = k->name;
	if (strncmp(short_name, "void ", 5) == 0)
		short_name += 5;
	size_t cut = strcspn(short_name, "(<");
	if (cut > 32)
		cut = 32;
	snprintf(label, len, "%s %.*s", k->id, (int)cut, short_name);
}

/* The --json document: the file, the GPU and every kernel placed. */
static cJSON *ncu_json(const struct ncu_report *report, const struct ncu_placed *placed, const char *path,
		       const char *svg, const struct ridge_gpu *gpu)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "gpu", gpu->id);
	cJSON_AddStringToObject(doc, "ceiling_source", app_ceiling_source(gpu));
	cJSON_AddStringToObject(doc, "file", path);
	cJSON_AddStringToObject(doc, "layout", report->raw ? "raw" : "details");
	json_number(doc, "bandwidth", gpu->memory_bandwidth);
	cJSON *arr = cJSON_AddArrayToObject(doc, "kernels");
	for (int i = 0; i < report->count; i++) {
		const struct ncu_placed *pl = &placed[i];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "id", pl->k->id);
		cJSON_AddStringToObject(e, "name", pl->k->name);
		cJSON_AddNumberToObject(e, "line", pl->k->line);
		cJSON_AddStringToObject(e, "dtype", ridge_dtype_name(pl->c.dtype));
		cJSON_AddStringToObject(e, "path", pl->c.matrix ? "matrix" : "vector");
		json_number(e, "peak_flops", pl->c.peak_flops);
		json_number(e, "ridge_point", pl->c.ridge_point);
		json_number(e, "flops", pl->flops);
		cJSON *by = cJSON_AddObjectToObject(e, "flops_by_precision");
		static const char *const vec[NCU_PRECISIONS] = { "fp64_vector", "fp32_vector", "fp16_vector" };
		for (int p = 0; p < NCU_PRECISIONS; p++)
			if (ncu_vector_flops(pl->k, p) > 0)
				json_number(by, vec[p], ncu_vector_flops(pl->k, p));
		for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
			char key[32];
			snprintf(key, sizeof key, "%s_tensor", ridge_dtype_name((enum ridge_dtype)d));
			if (ncu_tensor_flops(pl->k, (enum ridge_dtype)d) > 0)
				json_number(by, key, ncu_tensor_flops(pl->k, (enum ridge_dtype)d));
		}
		json_number(e, "bytes", pl->bytes);
		json_number(e, "time_s", pl->k->time_s);
		json_number(e, "intensity", pl->p.intensity);
		json_put_fields(e, &pl->p, point_achieved_fields, JSON_FIELD_COUNT(point_achieved_fields));
		json_number(e, "attainable_flops", pl->p.attainable_flops);
		cJSON_AddStringToObject(e, "bound", roofline_bound_name(pl->p.bound));
		json_put_fields(e, &pl->p, point_fraction_fields, JSON_FIELD_COUNT(point_fraction_fields));
		if (pl->k->has_l2) {
			json_number(e, "l2_bytes", pl->k->l2_bytes);
			if (pl->l2_placed)
				json_number(e, "l2_time_s", pl->l2_time_s);
		}
		if (pl->tensor_flops_missing)
			cJSON_AddStringToObject(e, "note",
						"tensor instructions ran but the CSV has no tensor FLOP "
						"counts (FLOPs undercounted); capture them with: " NCU_CAPTURE_COMMAND);
		cJSON_AddItemToArray(arr, e);
	}
	if (svg)
		cJSON_AddStringToObject(doc, "svg", svg);
	return doc;
}

/* The human table: every kernel placed, the notes, the plot written. */
static void ncu_print(FILE *out, const struct ncu_report *report, const struct ncu_placed *placed, const char *path,
		      const char *svg, const struct ridge_gpu *gpu, bool has_l2)
{
	char bw[48];
	fmt_si(gpu->memory_bandwidth, "B/s", bw, sizeof bw);
	fprintf(out, "Kernels of %s (%s layout) on %s (%s), %s ceilings, HBM %s\n", path,
		report->raw ? "raw" : "details", gpu->name, gpu->id, app_ceiling_source(gpu), bw);
	fprintf(out, "%-4s %-30s %-12s %10s %10s %10s %9s %14s %14s %-7s %8s %8s\n", "ID", "kernel", "placed on",
		"FLOPs", "bytes", "time", "FLOP/B", "achieved", "attainable", "bound", "of att.", "of BW");
	int notes = 0;
	for (int i = 0; i < report->count; i++) {
		const struct ncu_placed *pl = &placed[i];
		char f[32], b[32], t[32], ach[32], att[32], kind[32], frac[16], ai[16];
		fmt_si(pl->flops, "", f, sizeof f);
		fmt_si(pl->bytes, "B", b, sizeof b);
		fmt_seconds(pl->k->time_s, t, sizeof t);
		fmt_si(pl->p.achieved_flops, "FLOP/s", ach, sizeof ach);
		fmt_si(pl->p.attainable_flops, "FLOP/s", att, sizeof att);
		snprintf(kind, sizeof kind, "%s %s", ridge_dtype_name(pl->c.dtype), pl->c.matrix ? "matrix" : "vector");
		if (isfinite(pl->p.fraction_of_attainable))
			snprintf(frac, sizeof frac, "%.1f%%", 100 * pl->p.fraction_of_attainable);
		else
			snprintf(frac, sizeof frac, "-");
		if (isfinite(pl->p.intensity))
			snprintf(ai, sizeof ai, "%.4g", pl->p.intensity);
		else
			snprintf(ai, sizeof ai, "no DRAM"); /* FLOPs over 0 bytes: human output shows no "inf" */
		fprintf(out, "%-4s %-30.30s %-12s %10s %10s %10s %9s %14s %14s %-7s %8s %7.1f%%%s\n", pl->k->id,
			pl->k->name, kind, f, b, t, ai, ach, att, roofline_bound_name(pl->p.bound), frac,
			100 * pl->p.fraction_of_bandwidth, pl->tensor_flops_missing ? " *" : "");
		notes += pl->tensor_flops_missing;
	}
	if (notes)
		fprintf(out,
			"* tensor instructions ran but the CSV has no tensor FLOP counts (FLOPs undercounted); capture them "
			"with:\n  " NCU_CAPTURE_COMMAND "\n");
	if (!has_l2) {
		bool any_l2 = false;
		for (int i = 0; i < report->count; i++)
			any_l2 = any_l2 || report->kernels[i].has_l2;
		if (any_l2)
			fprintf(out,
				"L2 bytes (lts__t_bytes.sum) are in the CSV but %s has no L2 bandwidth: not placed at L2\n",
				gpu->id);
	}
	if (svg)
		fprintf(out, "wrote %s\n", svg);
}

/* Every kernel of an Nsight Compute CSV (or report). */
int roofline_run_ncu(FILE *out, const struct param_values *v, const struct roofline_request *req,
		     const struct ridge_gpu *gpu, cJSON **json, struct app_status *st)
{
	const char *path = params_text(v, ROOFLINE_NCU);
	const char *svg = params_text(v, ROOFLINE_SVG);
	struct ncu_report report;
	int rc = ncu_read(path, &report, st);
	if (rc)
		return rc;
	struct ncu_placed *placed = calloc((size_t)report.count, sizeof *placed);
	struct roofline_plot_point *points = calloc((size_t)report.count, sizeof *points);
	char(*labels)[64] = calloc((size_t)report.count, sizeof *labels);
	if (!placed || !points || !labels) {
		app_error_env(st, "out of memory");
		rc = EXIT_ENV;
		goto done;
	}
	double l2_bandwidth = 0;
	bool has_l2 = roofline_bandwidth(gpu, RIDGE_LEVEL_L2, &l2_bandwidth, NULL);
	struct ridge_roofline_ceiling focus = { 0 };
	double focus_flops = 0;
	bool have_focus = false;
	for (int i = 0; i < report.count; i++) {
		struct ncu_placed *pl = &placed[i];
		if ((rc = ncu_place(v, req, gpu, path, &report.kernels[i], has_l2, l2_bandwidth, pl, st)) != 0)
			goto done;
		if (!have_focus || pl->flops > focus_flops) {
			/* The plot's bold ceiling is that of the kernel doing the most work. */
			focus = pl->c;
			focus_flops = pl->flops;
			have_focus = true;
		}
		ncu_label(pl->k, labels[i], sizeof labels[i]);
		/* Every kernel was measured; one without FLOPs is drawn on the bandwidth axis. */
		points[i] = roofline_placed_point(labels[i], &pl->p);
		points[i].achieved_bandwidth = pl->p.achieved_bandwidth;
	}
	if (write_plot(svg, req->sparse, gpu, &focus, points, report.count, st)) {
		rc = EXIT_ENV;
		goto done;
	}
	if (params_flag(v, ROOFLINE_JSON))
		*json = ncu_json(&report, placed, path, svg, gpu);
	else
		ncu_print(out, &report, placed, path, svg, gpu, has_l2);
	rc = EXIT_OK;
done:
	free(placed);
	free(points);
	free(labels);
	ncu_free(&report);
	return rc;
}
