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

#endif
