/* ridge calibrate's work (calibrate_calc.c): read measured kernels (a
 * ridge-timings-1 JSON document or an Nsight Compute CSV), fit the time
 * model's per-class efficiencies and fixed costs (model/timing.h), judge the
 * fit on the cases it never saw, write the calibration, and show the result
 * as text or JSON. cli/cmd_calibrate.c only parses argv and dispatches. */
#ifndef RIDGE_CALIBRATE_CALC_H
#define RIDGE_CALIBRATE_CALC_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#include "app.h"
#include "calc.h"
#include "params.h"
#include "status.h"

/* What the command line asked for; exactly one of timings and ncu is set. */
struct calibrate_request {
	const char *timings;     /* --timings FILE, or NULL */
	const char *ncu;         /* --ncu FILE, or NULL */
	const char *gpu;         /* --gpu GPU, or NULL */
	const char *calibration; /* --calibration FILE, or NULL (hw has read it) */
	const char *out;         /* --out FILE, or NULL: where the fitted calibration is written */
	bool fit_all;            /* fit the held-out cases too */
	bool no_fit;             /* judge with the entry's own timing section */
};

struct calibrate_result;

/* Reads the measurements, fits (or, with no_fit, takes the entry's terms),
 * judges every case and writes req->out when given. Returns the result, or
 * NULL with the errors in st (an --out that cannot be written: exit 3).
 * Warnings (kernels no class fits, the hwdb's and the calibration's) go to
 * st either way; any error fails the run and nothing is written (the
 * timings file's GPU unknown or another than the entry's; nothing to fit;
 * a fit the hwdb loader would refuse, app_write_calibration). */
struct calibrate_result *calibrate_run(const struct calibrate_request *req, const struct app_hw *hw,
				       struct app_status *st);

/* The timings reader alone on text (the fuzz harness's entry point): 0 with
 * the cases read in *cases, or -1 with why in st. */
int calibrate_timings_check(const char *path, const char *text, size_t len, int *cases, struct app_status *st);

/* The --json document: fits (per class), cases, and "out" when written. */
cJSON *calibrate_json(const struct calibrate_result *r);
/* The human view on out: the fit per class, then every case. */
void calibrate_print(FILE *out, const struct calibrate_result *r);
void calibrate_free(struct calibrate_result *r);

/* ridge calibrate's options and --help (calibrate_calc.c); the usage is
 * their help (ridge calibrate is no scenario kind). */
#define CALIBRATE_PARAMS(X)                                                                                \
	X(CALIBRATE_TIMINGS, PARAM_TEXT_ROW("timings", .flags = PARAM_CLI_ONLY, .metavar = "FILE",         \
					    .help = "measured framework kernels (ridge-timings-1)"))       \
	X(CALIBRATE_NCU, PARAM_TEXT_ROW("ncu", .flags = PARAM_CLI_ONLY, .metavar = "FILE",                 \
					.help = "an Nsight Compute CSV of your own run"))                  \
	CALC_GPU_ROWS(X, CALIBRATE)                                                                        \
	X(CALIBRATE_OUT, PARAM_TEXT_ROW("out", .flags = PARAM_CLI_ONLY, .metavar = "FILE",                 \
					.help = "write the calibration with the fitted timing section"))   \
	X(CALIBRATE_FIT_ALL,                                                                               \
	  PARAM_FLAG_ROW("fit_all", .flags = PARAM_CLI_ONLY, .help = "fit every case, held-out ones too")) \
	X(CALIBRATE_NO_FIT,                                                                                \
	  PARAM_FLAG_ROW("no_fit", .flags = PARAM_CLI_ONLY, .help = "fit nothing: judge every case"))      \
	X(CALIBRATE_JSON, CALC_JSON_ROW)
PARAMS_ENUM(calibrate_params, CALIBRATE_PARAMS);
extern const struct params_command calibrate_params_command;

#endif
