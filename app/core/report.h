/* The sections of `ridge report`, in order; each calculator contributes one
 * (defined beside its command). A section computes once and writes it one of
 * two ways: json NULL, the human text on out; otherwise its keys added to
 * json (`ridge report --json`, SI units, the calculators' own JSON keys), so
 * the two outputs cannot disagree on a number. */
#ifndef RIDGE_REPORT_H
#define RIDGE_REPORT_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>

#include "gpu.h"
#include "calc.h"
#include "params.h"

typedef void (*report_section_fn)(FILE *out, const struct ridge_gpu *gpu, cJSON *json);

void report_hardware(FILE *out, const struct ridge_gpu *gpu, cJSON *json); /* "hardware", "measured_against_spec" */
void report_roofline(FILE *out, const struct ridge_gpu *gpu, cJSON *json); /* "roofline" (app/calc/roofline_calc.c) */
void report_align(FILE *out, const struct ridge_gpu *gpu, cJSON *json);    /* "align" (app/calc/align_calc.c) */
void report_cost(FILE *out, const struct ridge_gpu *gpu, cJSON *json);     /* "launch", "training", "decode", "rank" */
void report_occupancy(FILE *out, const struct ridge_gpu *gpu,
		      cJSON *json); /* "occupancy" (app/calc/occupancy_calc.c) */

extern const report_section_fn report_sections[];
extern const size_t report_section_count;

/* ridge report's options and --help (report.c). */
#define REPORT_PARAMS(X) CALC_GPU_ROWS(X, REPORT) X(REPORT_JSON, CALC_JSON_ROW)
PARAMS_ENUM(report_params, REPORT_PARAMS);
extern const struct params_command report_params_command;

#endif
