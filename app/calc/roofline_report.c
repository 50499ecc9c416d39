/* ridge report's roofline section: the ridge points of every ceiling and the textbook's kernels placed on this GPU. */
#include "roofline_calc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "app.h"
#include "json_fields.h"
#include "kernel_time.h"
#include "kernel_view.h"
#include "ncu.h"
#include "report.h"
#include "roofline_svg.h"
#include "roofline_validation.h"
#include "roofline_internal.h"

/* ---- ridge report ---- */

/* One kernel row; with kernels, an element of that array: the ceiling and
 * the placed point as `ridge roofline --json` has them. */
static void report_kernel(FILE *out, const struct ridge_gpu *gpu, const char *label, struct ridge_kernel_shape s,
			  cJSON *kernels)
{
	char err[400], f[32], b[32], t[32];
	struct ridge_kernel_cost cost;
	struct ridge_kernel_path path;
	struct ridge_roofline_ceiling c;
	struct ridge_roofline_point p;
	int rc = intensity_kernel_on(gpu, &s, &cost, err, sizeof err) ||
		 intensity_ceiling(gpu, &s, &cost, false, false, RIDGE_LEVEL_HBM, &c, &path, err, sizeof err) ||
		 roofline_place(&c, cost.flops, cost.bytes, 0, &p, err, sizeof err);
	if (kernels) {
		cJSON *k = cJSON_CreateObject();
		cJSON_AddItemToArray(kernels, k);
		cJSON_AddStringToObject(k, "label", label + strspn(label, " "));
		cJSON_AddStringToObject(k, "kernel", intensity_kernel_name(s.kernel));
		cJSON_AddStringToObject(k, "traffic", intensity_traffic_name(s.traffic));
		if (rc) {
			cJSON_AddStringToObject(k, "error", err);
			return;
		}
		roofline_json_ceiling(k, gpu, &c);
		calc_json_roofline_point(k, &p);
		return;
	}
	if (rc) {
		fprintf(out, "  %-44s n/a: %s\n", label, err);
		return;
	}
	fmt_si(cost.flops, "", f, sizeof f);
	fmt_si(cost.bytes, "B", b, sizeof b);
	fmt_seconds(p.time_floor_s, t, sizeof t);
	fprintf(out, "  %-44s %9s %10s %9.4g  %-7s %-12s %10s\n", label, f, b, p.intensity,
		roofline_bound_name(p.bound), c.matrix ? "matrix" : "vector", t);
}

/* "ridge_points" and "levels": the JSON of the report's first table. */
static void report_ridge_points_json(const struct ridge_gpu *gpu, cJSON *o)
{
	json_number(o, "bandwidth", gpu->memory_bandwidth);
	cJSON *points = cJSON_AddObjectToObject(o, "ridge_points");
	for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
		const struct ridge_peak *pk = &gpu->peak[d];
		if (!pk->has_matrix && !pk->has_vector)
			continue;
		cJSON *one = cJSON_AddObjectToObject(points, ridge_dtype_name((enum ridge_dtype)d));
		if (pk->has_matrix)
			json_ratio(one, "matrix", pk->matrix, gpu->memory_bandwidth);
		if (pk->has_vector)
			json_ratio(one, "vector", pk->vector, gpu->memory_bandwidth);
		if (pk->has_matrix_sparse)
			json_ratio(one, "matrix_sparse", pk->matrix_sparse, gpu->memory_bandwidth);
	}
	cJSON *levels = cJSON_AddArrayToObject(o, "levels");
	for (int l = RIDGE_LEVEL_L2; l < RIDGE_LEVEL_COUNT; l++) {
		double level_bw;
		const char *why = NULL;
		cJSON *one = cJSON_CreateObject();
		cJSON_AddItemToArray(levels, one);
		cJSON_AddStringToObject(one, "level", roofline_level_name((enum ridge_level)l));
		if (roofline_bandwidth(gpu, (enum ridge_level)l, &level_bw, &why)) {
			json_number(one, "bandwidth", level_bw);
		} else {
			cJSON_AddNullToObject(one, "bandwidth");
			cJSON_AddStringToObject(one, "why", why);
		}
	}
}

void report_roofline(FILE *out, const struct ridge_gpu *gpu, cJSON *json)
{
	char bw[48];
	cJSON *kernels = NULL;
	if (json) {
		cJSON *r = cJSON_AddObjectToObject(json, "roofline");
		report_ridge_points_json(gpu, r);
		kernels = cJSON_AddArrayToObject(r, "kernels");
	}
	fmt_si(gpu->memory_bandwidth, "B/s", bw, sizeof bw);
	if (!json) {
		fprintf(out, "== Roofline (%s): ridge points and the chapter's kernels ==\n", gpu->id);
		fprintf(out, "ridge point = peak / bandwidth, FLOP/byte against HBM (%s), dense rates\n", bw);
		fprintf(out, "  %-6s %14s %14s %14s\n", "dtype", "matrix", "vector", "sparse matrix");
	}
	for (int d = 0; d < RIDGE_DTYPE_COUNT && !json; d++) {
		const struct ridge_peak *pk = &gpu->peak[d];
		if (!pk->has_matrix && !pk->has_vector)
			continue;
		char m[32] = "-", v[32] = "-", sp[32] = "-";
		if (pk->has_matrix)
			snprintf(m, sizeof m, "%.6g", pk->matrix / gpu->memory_bandwidth);
		if (pk->has_vector)
			snprintf(v, sizeof v, "%.6g", pk->vector / gpu->memory_bandwidth);
		if (pk->has_matrix_sparse)
			snprintf(sp, sizeof sp, "%.6g", pk->matrix_sparse / gpu->memory_bandwidth);
		fprintf(out, "  %-6s %14s %14s %14s\n", ridge_dtype_name((enum ridge_dtype)d), m, v, sp);
	}
	for (int l = RIDGE_LEVEL_L2; l < RIDGE_LEVEL_COUNT && !json; l++) {
		double level_bw;
		const char *why = NULL;
		if (roofline_bandwidth(gpu, (enum ridge_level)l, &level_bw, &why)) {
			char lb[48];
			fmt_si(level_bw, "B/s", lb, sizeof lb);
			fprintf(out, "  %s: %s\n", roofline_level_label((enum ridge_level)l), lb);
		} else {
			fprintf(out, "  %s: no inner ridge points, %s\n", roofline_level_label((enum ridge_level)l),
				why);
		}
	}
	/* The chapter's worked examples (the textbook, sections 7.2 and 7.6.2):
	 * 4096^3 GEMMs, attention over S = 8192 with 64 heads of 128. A GPU
	 * without bf16 runs them in fp16 (a label's %s). */
	enum ridge_dtype half =
		gpu->peak[RIDGE_BF16].has_matrix || gpu->peak[RIDGE_BF16].has_vector ? RIDGE_BF16 : RIDGE_FP16;
	const struct ridge_kernel_shape gemm32 = { .dtype = RIDGE_FP32, .m = 4096, .n = 4096, .k = 4096 };
	struct ridge_kernel_shape gemm = gemm32;
	gemm.dtype = half;
	const struct ridge_kernel_shape attn = { .dtype = half, .seq = 8192, .heads = 64, .head_dim = 128 };
	const struct {
		const char *label;
		const struct ridge_kernel_shape *shape;
		enum ridge_kernel kernel;
		enum ridge_traffic traffic;
	} examples[] = {
		{ "naive GEMM, fp32 (2*M*N*K reads)", &gemm32, RIDGE_KERNEL_GEMM_NAIVE, RIDGE_TRAFFIC_TILED },
		{ "tiled GEMM, %s, tile 32 (A, B 128x at L2)", &gemm, RIDGE_KERNEL_GEMM_TILED, RIDGE_TRAFFIC_DEFAULT },
		{ "  the same, every matrix once", &gemm, RIDGE_KERNEL_GEMM_TILED, RIDGE_TRAFFIC_COMPULSORY },
		{ "library GEMM, %s, tile 128x128", &gemm, RIDGE_KERNEL_GEMM, RIDGE_TRAFFIC_TILED },
		{ "standard attention, %s", &attn, RIDGE_KERNEL_ATTENTION, RIDGE_TRAFFIC_DEFAULT },
		{ "  the same, every tensor once", &attn, RIDGE_KERNEL_ATTENTION, RIDGE_TRAFFIC_COMPULSORY },
		{ "flash-attention, %s, query tile 128", &attn, RIDGE_KERNEL_FLASH_ATTENTION, RIDGE_TRAFFIC_TILED },
		{ "  the same, every tensor once", &attn, RIDGE_KERNEL_FLASH_ATTENTION, RIDGE_TRAFFIC_COMPULSORY },
	};
	if (!json)
		fprintf(out, "  %-44s %9s %10s %9s  %-7s %-12s %10s\n",
			"kernel (4096^3 GEMMs; attention S=8192, 64x128)", "FLOPs", "bytes", "FLOP/B", "bound", "rate",
			"time floor");
	for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++) {
		struct ridge_kernel_shape s = *examples[i].shape;
		s.kernel = examples[i].kernel;
		s.traffic = examples[i].traffic;
		char label[96];
		snprintf(label, sizeof label, examples[i].label, ridge_dtype_name(half));
		report_kernel(out, gpu, label, s, kernels);
	}
	if (json)
		return;
	fprintf(out,
		"  bytes: the algorithm's re-reads all reach HBM (an upper bound); \"every ... once\": L2 catches\n"
		"  every re-read (a lower bound). Measured HBM traffic lies between. The textbook's 0.6%% utilization\n"
		"  and 2,045 FLOP/B are explained in model/README.md, \"The textbook's numbers\".\n");
}
