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

#endif
