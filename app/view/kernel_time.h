/* A kernel's predicted time (model/timing.h) as JSON and as text: what
 * `ridge roofline --kernel`, `ridge gemm` and `ridge calibrate` show. The
 * printer reads the JSON object back, so the command line and scenario files
 * print the same thing. */
#ifndef RIDGE_KERNEL_TIME_H
#define RIDGE_KERNEL_TIME_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#include "models.h"

/* The `prediction` object: time_floor_s, predicted_time_s, class, impl,
 * compute_time_s, quantization (efficiency, tiles, waves, slots),
 * memory_time_s, memory_level, compute_efficiency, memory_efficiency,
 * fixed_cost_s, each with its *_source, binds. */
cJSON *kernel_time_json(const struct ridge_kernel_time *t);
/* "predicted_time_range_s": [low, high] on o. */
void kernel_time_range_json(cJSON *o, const double range[2]);
/* predicted_time_range_s and "provenance" ({"prediction": what binds,
 * then each term's}) of t on o: what every predicted time carries. */
void kernel_time_trust_json(cJSON *o, const struct ridge_kernel_time *t);
/* "  range       8.1 ms - 9.5 ms  (measured, P10-P90 of 39 held-out
 * errors; ...)" from a prediction object. */
void kernel_time_range_print(FILE *out, const cJSON *prediction);
/* A step's or a run's range and provenance by class ("provenance":
 * {"prediction": the weakest used, "gemm": ..., ...}). */
void kernel_time_sum_json(cJSON *o, const struct ridge_time_sum *sum, const double range[2]);
/* "<indent>range 7.9 ms - 8.6 ms (...): gemm measured, norm measured" from
 * such an object. */
void kernel_time_sum_print(FILE *out, const cJSON *o, const char *indent);

/* "power_limit" on doc: {"known", and when known "sustained_matrix_fraction",
 * "burst_time_s", "provenance", "source"}: what every throttled prediction
 * of a step on gpu carries. */
void power_limit_json(cJSON *doc, const struct ridge_gpu *gpu);
/* "  power limit: compute-bound work past 37.3 ms runs at 0.8706 of the burst
 * rate (measured)" from doc's "power_limit" and "gpu". */
void power_limit_print(FILE *out, const cJSON *doc);

/* "  predicted   52.3 us = max(compute ..., memory ...) + fixed ..." and, with
 * explain, one line per term with its source. */
void kernel_time_print(FILE *out, const cJSON *prediction, bool explain);

/* "--impl": default ideal fa2 fa3 cudnn split-kv per-head; adds the error naming the text to st. */
struct app_status;
int app_parse_attention_impl(const char *flag, const char *text, enum ridge_attention_impl *out, struct app_status *st);

#endif
