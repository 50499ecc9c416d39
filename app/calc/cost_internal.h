/* Shared between the pieces of cost_calc.c (cost_train_text.c: its text; not for other files). */
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

/* Rows the cost tables share (constructors for their X-macro lines). */
#define PRICE_ROW(help_)                                                                 \
	PARAM_NUM("price", RIDGE_UNIT_USD, 0, INFINITY, .metavar = "USD", .help = help_, \
		  .range = "0 or more USD per GPU-hour")
#define EXPLAIN_ROW PARAM_FLAG_ROW("explain", .help = "show every intermediate: formula, numbers, exact value")

/* The dtype's dense peak from hwdb, or the value of peak_param (--peak) over
 * it; the dtype named by dtype_param, its name the JSON key. */
int cost_resolve_peak(struct calc_input *in, int dtype_param, int peak_param, double *peak, cJSON *o);

/* The price per GPU-hour: price_param's value (--price), else the hwdb's. */
int cost_resolve_price(struct calc_input *in, int price_param, double *price, cJSON *o);
cJSON *cost_explain_json(const struct ridge_explain *ex);

void cost_print_explain(FILE *out, const cJSON *r);

/* ridge cost train's text from its JSON (cost_train_text.c). */
void cost_train_print(FILE *out, const cJSON *r);

#endif
