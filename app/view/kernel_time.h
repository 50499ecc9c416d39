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

/* "  predicted   52.3 us = max(compute ..., memory ...) + fixed ..." and, with
 * explain, one line per term with its source. */
void kernel_time_print(FILE *out, const cJSON *prediction, bool explain);

/* "--impl": default ideal fa2 fa3 cudnn split-kv per-head; adds the error naming the text to st. */
struct app_status;
int app_parse_attention_impl(const char *flag, const char *text, enum ridge_attention_impl *out, struct app_status *st);

#endif
