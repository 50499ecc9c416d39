/* ridge plan --isl N --osl M (--concurrency C | --rate R): the serving
 * search on the simulation (model/serve_plan.h), its own parameter table
 * beside ridge plan's (app/calc/plan_calc.c); cli/cmd_plan.c picks it when
 * --isl or --osl is given. */
#ifndef RIDGE_PLAN_SERVE_CALC_H
#define RIDGE_PLAN_SERVE_CALC_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "params.h"
#include "status.h"

extern const struct params_command plan_serve_params_command;

/* Reads the model, GPUs, dtypes and engines, searches, ranks; writes --svg
 * (output tokens/s per GPU against tokens/s per user). With --json the
 * document is left in *json; else the front and the ranking are printed on
 * out. Returns EXIT_OK, EXIT_PROBLEM (none meets the limits), EXIT_ENV, or
 * -1 with the error in st. */
int plan_serve_command(FILE *out, const struct param_values *v, cJSON **json, struct app_status *st);

#endif
