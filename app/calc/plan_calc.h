/* ridge plan (plan_calc.c): the cheapest serving configurations that meet a
 * TPOT and a TTFT limit (model/plan.h), read from the parsed values of
 * cli/cmd_plan.c's parameter table. */
#ifndef RIDGE_PLAN_CALC_H
#define RIDGE_PLAN_CALC_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "params.h"
#include "status.h"

/* Reads --model, the dtypes, the hwdb and the GPUs with their prices, searches
 * and ranks; writes --svg (the cost-latency Pareto front). With --json the
 * document (the ranking, or the nearest when none meets the limits) is left
 * in *json for the front end to print; else the ranking table is printed on
 * out. Returns
 * EXIT_OK, EXIT_PROBLEM (none meets the limits), EXIT_ENV (out failed), or
 * -1 with the error in st; the model config's warnings are in st either way. */
/* ridge plan's options and --help (plan_calc.c); plan_command reads the values. */
extern const struct params_command plan_params_command;

int plan_command(FILE *out, const struct param_values *v, cJSON **json, struct app_status *st);

#endif
