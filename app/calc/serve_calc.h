/* ridge serve (serve_calc.c): a serving engine under load simulated
 * (model/serve_sim.h) from the parsed values of its parameter table; the
 * text and the timeline SVG are app/view/serve_view.c's. */
#ifndef RIDGE_SERVE_CALC_H
#define RIDGE_SERVE_CALC_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "gpu.h"
#include "params.h"
#include "status.h"

extern const struct params_command serve_params_command;

/* The values alone (before the GPU): --concurrency or --rate, the chunked
 * prefill flags. Returns 0, or -1 with the error in st. */
int serve_check_request(const struct param_values *v, struct app_status *st);

/* Runs the simulation; prints the text on out or leaves the --json document
 * in *json; writes --svg. Returns EXIT_OK, EXIT_PROBLEM (the configuration
 * cannot hold one request: said in st), EXIT_USAGE (st has the error) or
 * EXIT_ENV. */
int serve_command(FILE *out, const struct param_values *v, const struct ridge_gpu *gpu, cJSON **json,
		  struct app_status *st);

#endif
