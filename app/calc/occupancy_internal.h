/* Shared between the pieces of occupancy_calc.c (not for other files). */
#ifndef RIDGE_OCCUPANCY_INTERNAL_H
#define RIDGE_OCCUPANCY_INTERNAL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "app.h"
#include "demangle.h"
#include "report.h"
#include "svg.h"
#include "json_fields.h"
#include "occupancy_calc.h"

/* The JSON keys of the limiters, in enum ridge_occ_limiter order. */
extern const char *const occupancy_limit_keys[RIDGE_OCC_LIMITER_COUNT];

/* One row of --sweep: a block size and its occupancy. */
struct sweep_row {
	int threads;
	struct ridge_occupancy_result r;
};

const char *occupancy_kib(double bytes, char *buf, size_t len);

void occupancy_smem_launch_note(const struct ridge_gpu *g, const struct ridge_occupancy_input *in, char *buf,
				size_t len);

void occupancy_json_launch_note(cJSON *o, const struct ridge_gpu *g, const struct ridge_occupancy_input *in);

void occupancy_print_launch_note(FILE *out, const struct ridge_gpu *g, const struct ridge_occupancy_input *in);

void occupancy_json_result(cJSON *o, const struct ridge_occupancy_result *r);

void occupancy_json_input(cJSON *o, const struct ridge_gpu *g, const struct ridge_occupancy_input *in);

void occupancy_json_details(cJSON *o, const struct ridge_gpu *g, const struct ridge_occupancy_analysis *an);

void occupancy_print_header(FILE *out, const struct ridge_gpu *g);

void occupancy_print_nv_config(FILE *out, const struct ridge_occupancy_input *in,
			       const struct ridge_occupancy_result *r);

void occupancy_print_amd_config(FILE *out, const struct ridge_occupancy_input *in,
				const struct ridge_occupancy_result *r);

void occupancy_print_limits(FILE *out, const struct ridge_gpu *g, const struct ridge_occupancy_input *in,
			    const struct ridge_occupancy_analysis *an);

void occupancy_print_outcome(FILE *out, const struct ridge_gpu *g, const struct ridge_occupancy_result *r);

void occupancy_print_explanations(FILE *out, const struct ridge_gpu *g, const struct ridge_occupancy_input *in,
				  const struct ridge_occupancy_analysis *an);

void occupancy_print_suggestion(FILE *out, const struct ridge_gpu *g, const struct ridge_occupancy_input *in,
				const struct ridge_occupancy_analysis *an, const char *lead, const char *full);

void occupancy_print_potential(FILE *out, const struct ridge_gpu *g, const struct ridge_occupancy_input *in);

void occupancy_json_hip_potential(cJSON *doc, const struct ridge_gpu *g, const struct ridge_occupancy_input *in);

int occupancy_sweep_rows(const struct ridge_occupancy_device *dev, const struct ridge_occupancy_input *in,
			 struct sweep_row *rows, int max);

int occupancy_write_svg(const char *path, const struct ridge_occupancy_device *dev, const struct ridge_gpu *g,
			const struct ridge_occupancy_input *in, const struct ridge_occupancy_result *now,
			struct app_status *st);

int occupancy_run_kernels(FILE *out, const struct param_values *v, const struct ridge_gpu *g,
			  const struct ridge_occupancy_input *base, cJSON **json, struct app_status *st);

/* The calculator's inputs: the table (its file defines the rows) and their index names. */
#define OCCUPANCY_PARAMS(X)                                                                                            \
	X(OCCUPANCY_THREADS, PARAM_INT("threads", 1, 1024, .flags = PARAM_REQUIRED, .metavar = "T",                    \
				       .help = "threads per block", .def = "256"))                                     \
	X(OCCUPANCY_REGS, PARAM_INT("regs", 0, PARAM_REGS_MAX, .flags = PARAM_REQUIRED, .metavar = "R",                \
				    .help = "registers per thread (AMD: ArchVGPRs)", .def = "32"))                     \
	X(OCCUPANCY_SMEM,                                                                                              \
	  PARAM_NUM("smem", RIDGE_UNIT_BYTES, 0, PARAM_SMEM_MAX, .flags = PARAM_WHOLE, .metavar = "BYTES",             \
		    .help = "static shared memory per block (AMD: LDS)", .range = "0 to 1 GiB", .def = "0"))           \
	X(OCCUPANCY_DYN_SMEM,                                                                                          \
	  PARAM_NUM("dyn_smem", RIDGE_UNIT_BYTES, 0, PARAM_SMEM_MAX, .flags = PARAM_WHOLE, .metavar = "BYTES",         \
		    .help = "dynamic shared memory per block", .range = "0 to 1 GiB", .def = "0"))                     \
	X(OCCUPANCY_CARVEOUT, PARAM_INT("carveout", 0, 100, .metavar = "PCT",                                          \
					.help = "preferred shared-memory carveout (default: the driver's)"))           \
	X(OCCUPANCY_CACHE_CONFIG, PARAM_TEXT_ROW("cache_config", .metavar = "C", .help = "none, shared, l1 or equal")) \
	X(OCCUPANCY_OPTIN, PARAM_FLAG_ROW("optin", .help = "opted in above the default per-block limit"))              \
	X(OCCUPANCY_BARRIERS,                                                                                          \
	  PARAM_INT("barriers", 0, 16, .metavar = "N", .help = "named barriers per block", .def = "1"))                \
	X(OCCUPANCY_VGPRS, PARAM_INT("vgprs", 0, PARAM_REGS_MAX, .flags = PARAM_CLI_ONLY, .metavar = "N",              \
				     .help = "AMD: ArchVGPRs (the same as --regs)"))                                   \
	X(OCCUPANCY_AGPRS, PARAM_INT("agprs", 0, PARAM_REGS_MAX, .metavar = "N", .help = "AMD: AGPRs"))                \
	X(OCCUPANCY_SGPRS, PARAM_INT("sgprs", 0, 128, .metavar = "N", .help = "AMD: SGPRs (default: not counted)"))    \
	X(OCCUPANCY_LDS,                                                                                               \
	  PARAM_NUM("lds", RIDGE_UNIT_BYTES, 0, PARAM_SMEM_MAX, .flags = PARAM_WHOLE | PARAM_CLI_ONLY,                 \
		    .metavar = "BYTES", .help = "AMD: LDS per workgroup (the same as --smem)", .range = "0 to 1 GiB")) \
	X(OCCUPANCY_SWEEP, PARAM_FLAG_ROW("sweep", .flags = PARAM_CLI_ONLY,                                            \
					  .help = "also every block size from one warp to the maximum"))               \
	X(OCCUPANCY_SVG, PARAM_TEXT_ROW("svg", .flags = PARAM_CLI_ONLY, .metavar = "FILE",                             \
					.help = "charts of occupancy vs block size, registers and smem"))              \
	X(OCCUPANCY_PTXAS, PARAM_TEXT_ROW("ptxas", .flags = PARAM_CLI_ONLY, .metavar = "FILE",                         \
					  .help = "nvcc -Xptxas -v output: every kernel in it"))                       \
	X(OCCUPANCY_RESOURCE_USAGE,                                                                                    \
	  PARAM_TEXT_ROW("resource_usage", .flags = PARAM_CLI_ONLY, .metavar = "FILE",                                 \
			 .help = "cuobjdump --dump-resource-usage output (AMD: the resource-usage remarks)"))          \
	CALC_GPU_ROWS(X, OCCUPANCY)                                                                                    \
	X(OCCUPANCY_JSON, CALC_JSON_ROW)
PARAMS_ENUM(occupancy_params, OCCUPANCY_PARAMS);

#endif
