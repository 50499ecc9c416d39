/* Shared between the pieces of roofline_calc.c (not for other files). */
#ifndef RIDGE_ROOFLINE_INTERNAL_H
#define RIDGE_ROOFLINE_INTERNAL_H

#include <math.h>
#include <stdio.h>
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
#include "roofline_calc.h"

/* What to place: the same whether it came from the command line or a
 * scenario file item. */
struct roofline_request {
	enum ridge_dtype dtype;
	bool no_tensor, sparse;
	bool has_level;
	enum ridge_level level;
	bool has_flops, has_bytes, has_intensity, has_time, has_l2_bytes, has_smem_bytes;
	double flops, bytes, intensity, time, l2_bytes, smem_bytes;
	bool has_kernel;
	struct ridge_kernel_shape shape;
	unsigned fields;              /* shape fields given */
	const char *first_field_flag; /* for "--m applies to --kernel only" */
	bool fused_given, unfused_given, traffic_given;
	enum ridge_attention_impl impl; /* --impl: attention kernels */
	bool impl_given;
	bool has_overrides; /* --efficiency, --fixed-cost: what-ifs over the entry's timing */
	struct ridge_timing_overrides overrides;
	bool explain; /* --explain: every term of the prediction with its source */
};

/* What the plot needs besides the document. */
struct plot_out {
	struct ridge_roofline_ceiling ceiling;
	int count;
	struct roofline_plot_point points[2];
	char labels[2][200];
};

/* A point's achieved rates and fractions (the placement and --ncu). */
static const struct json_field point_achieved_fields[] = {
	JSON_FIELDS(struct ridge_roofline_point, achieved_flops, achieved_bandwidth),
};
static const struct json_field point_fraction_fields[] = {
	JSON_FIELDS(struct ridge_roofline_point, fraction_of_attainable, fraction_of_peak, fraction_of_bandwidth),
};

void roofline_json_ceiling(cJSON *o, const struct ridge_gpu *gpu, const struct ridge_roofline_ceiling *c);

struct roofline_plot_point roofline_placed_point(const char *label, const struct ridge_roofline_point *p);

cJSON *roofline_compute(const struct ridge_gpu *gpu, const struct roofline_request *r, struct plot_out *plot, char *err,
			size_t err_len);

void roofline_print(FILE *out, const cJSON *d);

int roofline_run_model(FILE *out, const struct param_values *v, const struct roofline_request *r,
		       const struct ridge_gpu *gpu, cJSON **json, struct app_status *st);

int roofline_run_ncu(FILE *out, const struct param_values *v, const struct roofline_request *req,
		     const struct ridge_gpu *gpu, cJSON **json, struct app_status *st);

/* The calculator's inputs: the table (its file defines the rows) and their index names. */
#define ROOFLINE_PARAMS(X)                                                                                             \
	X(ROOFLINE_DTYPE,                                                                                              \
	  PARAM_TEXT_ROW("dtype", .metavar = "DT", .help = "fp64 fp32 tf32 bf16 fp16 fp8 int8 fp4", .def = "bf16"))    \
	X(ROOFLINE_FLOPS, PARAM_NUM("flops", RIDGE_UNIT_FLOP, 0, INFINITY, .flags = PARAM_OPEN_LO, .metavar = "F",     \
				    .help = "FLOPs of the work", .range = "greater than 0"))                           \
	X(ROOFLINE_BYTES, PARAM_NUM("bytes", RIDGE_UNIT_BYTES, 0, INFINITY, .flags = PARAM_OPEN_LO, .metavar = "B",    \
				    .help = "bytes it moves at the level", .range = "greater than 0"))                 \
	X(ROOFLINE_INTENSITY, PARAM_NUM("intensity", RIDGE_UNIT_COUNT, 0, INFINITY, .flags = PARAM_OPEN_LO,            \
					.metavar = "I", .help = "FLOP/byte alone", .range = "greater than 0"))         \
	X(ROOFLINE_TIME, PARAM_NUM("time", RIDGE_UNIT_SECONDS, 0, INFINITY, .flags = PARAM_OPEN_LO, .metavar = "T",    \
				   .help = "a measured time", .range = "greater than 0"))                              \
	X(ROOFLINE_LEVEL, PARAM_TEXT_ROW("level", .metavar = "L", .help = "hbm (default), l2, smem"))                  \
	X(ROOFLINE_NO_TENSOR, PARAM_FLAG_ROW("no_tensor", .help = "the vector rate"))                                  \
	X(ROOFLINE_SPARSE, PARAM_FLAG_ROW("sparse", .help = "the 2:4 sparse matrix rate"))                             \
	X(ROOFLINE_L2_BYTES, PARAM_NUM("l2_bytes", RIDGE_UNIT_BYTES, 0, INFINITY, .flags = PARAM_OPEN_LO,              \
				       .metavar = "B", .help = "bytes at L2", .range = "greater than 0"))              \
	X(ROOFLINE_SMEM_BYTES, PARAM_NUM("smem_bytes", RIDGE_UNIT_BYTES, 0, INFINITY, .flags = PARAM_OPEN_LO,          \
					 .metavar = "B", .help = "bytes at shared memory", .range = "greater than 0")) \
	X(ROOFLINE_KERNEL,                                                                                             \
	  PARAM_TEXT_ROW("kernel", .metavar = "NAME", .help = "a named kernel (ridge roofline --help lists them)"))    \
	X(ROOFLINE_M, PARAM_INT("m", 1, PARAM_DIM_MAX, .metavar = "M", .help = "rows / GEMM M"))                       \
	X(ROOFLINE_N, PARAM_INT("n", 1, PARAM_DIM_MAX, .metavar = "N", .help = "width / GEMM N"))                      \
	X(ROOFLINE_K, PARAM_INT("k", 1, PARAM_DIM_MAX, .metavar = "K", .help = "GEMM K / hidden size"))                \
	X(ROOFLINE_BATCH, PARAM_INT("batch", 1, PARAM_DIM_MAX, .metavar = "B", .help = "batch"))                       \
	X(ROOFLINE_TILE, PARAM_TEXT_ROW("tile", .metavar = "T|MxNxK", .help = "CTA tile, or the flash query tile"))    \
	X(ROOFLINE_SEQ, PARAM_INT("seq", 1, PARAM_DIM_MAX, .metavar = "S", .help = "sequence length"))                 \
	X(ROOFLINE_HEADS, PARAM_INT("heads", 1, PARAM_DIM_MAX, .metavar = "H", .help = "query heads"))                 \
	X(ROOFLINE_KV_HEADS, PARAM_INT("kv_heads", 1, PARAM_DIM_MAX, .metavar = "H", .help = "key/value heads (GQA)")) \
	X(ROOFLINE_HEAD_DIM, PARAM_INT("head_dim", 1, PARAM_DIM_MAX, .metavar = "D", .help = "head dimension"))        \
	X(ROOFLINE_CAUSAL, PARAM_FLAG_ROW("causal", .help = "causal attention"))                                       \
	X(ROOFLINE_FUSED, PARAM_FLAG_ROW("fused", .help = "one kernel instead of two"))                                \
	X(ROOFLINE_UNFUSED, PARAM_FLAG_ROW("unfused", .help = "two kernels (the default)"))                            \
	X(ROOFLINE_PASSES, PARAM_INT("passes", 1, 3, .metavar = "P", .help = "softmax reads of the input"))            \
	X(ROOFLINE_FLOPS_PER_ELEMENT,                                                                                  \
	  PARAM_NUM("flops_per_element", RIDGE_UNIT_COUNT, 0, INFINITY, .flags = PARAM_OPEN_LO, .metavar = "F",        \
		    .help = "activation FLOPs per element", .range = "greater than 0"))                                \
	X(ROOFLINE_TRAFFIC,                                                                                            \
	  PARAM_TEXT_ROW("traffic", .metavar = "default|tiled|compulsory", .help = "which byte count is `bytes`"))     \
	X(ROOFLINE_IMPL, PARAM_TEXT_ROW("impl", .metavar = "default|ideal|fa2|fa3|cudnn|split-kv|per-head",            \
					.help = "the attention implementation"))                                       \
	X(ROOFLINE_EFFICIENCY,                                                                                         \
	  PARAM_TEXT_ROW("efficiency", .metavar = "CLASS=F,...",                                                       \
			 .help = "what-if efficiencies of a kernel class (gemm=0.7, attention.compute=50%)"))          \
	X(ROOFLINE_FIXED_COST, PARAM_TEXT_ROW("fixed_cost", .metavar = "CLASS=T,...",                                  \
					      .help = "what-if fixed cost per kernel of a class (gemm=5us)"))          \
	X(ROOFLINE_EXPLAIN,                                                                                            \
	  PARAM_FLAG_ROW("explain", .flags = PARAM_CLI_ONLY, .help = "every term of the prediction with its source"))  \
	X(ROOFLINE_SVG,                                                                                                \
	  PARAM_TEXT_ROW("svg", .flags = PARAM_CLI_ONLY, .metavar = "FILE", .help = "a log-log roofline plot (SVG)"))  \
	X(ROOFLINE_NCU, PARAM_TEXT_ROW("ncu", .flags = PARAM_CLI_ONLY, .metavar = "FILE",                              \
				       .help = "every kernel of an Nsight Compute CSV"))                               \
	X(ROOFLINE_VALIDATION, PARAM_TEXT_ROW("validation", .flags = PARAM_CLI_ONLY, .metavar = "FILE",                \
					      .help = "the cases of a ridge-probe --validate run"))                    \
	X(ROOFLINE_GROUP,                                                                                              \
	  PARAM_TEXT_ROW("group", .flags = PARAM_CLI_ONLY, .metavar = "G", .help = "with --validation: one group"))    \
	CALC_GPU_ROWS(X, ROOFLINE)                                                                                     \
	X(ROOFLINE_JSON, CALC_JSON_ROW)
PARAMS_ENUM(roofline_params, ROOFLINE_PARAMS);

#endif
