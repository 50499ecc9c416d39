/* Shared between the pieces of cost_calc.c (not for other files). */
#ifndef RIDGE_COST_INTERNAL_H
#define RIDGE_COST_INTERNAL_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "app.h"
#include "calc.h"
#include "cost.h"
#include "eval.h"
#include "json_fields.h"
#include "parallel.h"
#include "cost_model_calc.h"
#include "cost_calc.h"

/* Rows the cost tables share. */
/* clang-format off */
#define PRICE_PARAM(help)                                                                                     \
	{ "price", PARAM_NUMBER, RIDGE_UNIT_USD, NULL, 0, INFINITY, 0, "USD", help, "0 or more USD per GPU-hour", NULL }
/* clang-format on */
/* clang-format off */
#define EXPLAIN_PARAM                                                                                         \
	{ "explain", PARAM_FLAG, 0, NULL, 0, 0, 0, NULL, "show every intermediate: formula, numbers, exact value", NULL, NULL }
/* clang-format on */

int cost_resolve_peak(struct calc_input *in, const char *dtype_param, double *peak, cJSON *o);

int cost_resolve_price(struct calc_input *in, double *price, cJSON *o);

cJSON *cost_explain_json(const struct ridge_explain *ex);

void cost_print_explain(FILE *out, const cJSON *r);

#endif
