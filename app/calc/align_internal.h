/* Shared between the pieces of align_calc.c (not for other files). */
#ifndef RIDGE_ALIGN_INTERNAL_H
#define RIDGE_ALIGN_INTERNAL_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "align_findings.h"
#include "calc.h"
#include "app.h"
#include "eval.h"
#include "kernel_view.h"
#include "model_config.h"
#include "report.h"
#include "json_fields.h"

cJSON *align_tiling_json(const struct ridge_align_tiling *t);

void align_fmt_next_value(long long value, long long next, char *buf, size_t len);

#endif
