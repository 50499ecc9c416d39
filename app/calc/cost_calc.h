/* What `ridge cost` and the TUI's cost panel share (cost_calc.c): the peak a
 * cost is priced at, and the training run's sequence of model calls. */
#ifndef RIDGE_COST_CALC_H
#define RIDGE_COST_CALC_H

#include <stdbool.h>
#include <stddef.h>

#include "models.h"
#include "calc.h"
#include "params.h"

struct cost_peak {
	double peak;        /* the rate priced at */
	const char *source; /* "given", "measured" (a calibration) or "hwdb" */
	bool has_hwdb;      /* the entry has the dtype's rate: hwdb_peak */
	double hwdb_peak;
	const char *why; /* the entry's reason when it has none */
};

/* The dtype's dense peak (the matrix rate where there is one) from the GPU's
 * entry, unless given > 0 overrides it. Returns 0, or -1 when neither: why
 * says what the entry lacks. */
int cost_peak_lookup(const struct ridge_gpu *gpu, enum ridge_dtype dtype, double given, struct cost_peak *out);

/* A training run (cost_train), or with a target MFU the run against the same
 * run at the target (cost_train_compare, with the investment's return when
 * has_investment). Without a target only c->current is filled. Returns 0, or
 * -1 with err. */
int cost_train_run(const struct ridge_train_input *in, bool has_target, double target_mfu, bool has_investment,
		   double investment_usd, struct ridge_train_comparison *c, struct ridge_explain *ex, char *err,
		   size_t err_len);

/* ridge cost rank FILE's options (cost_rank_calc.c): the items run as ridge eval runs them. */
#define COST_RANK_CLI_PARAMS(X)                                                                                        \
	X(RANK_CLI_HWDB, PARAM_TEXT_ROW("hwdb", .metavar = "DIR", .help = "also load the hwdb entries in DIR"))        \
	X(RANK_CLI_CALIBRATION, PARAM_TEXT_ROW("calibration", .metavar = "FILE", .help = "a ridge-probe calibration")) \
	X(RANK_CLI_JSON, CALC_JSON_ROW)
PARAMS_ENUM(cost_rank_cli_params, COST_RANK_CLI_PARAMS);
extern const struct params_command cost_rank_params_command;

#endif
