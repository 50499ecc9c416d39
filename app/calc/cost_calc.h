/* What `ridge cost` and the TUI's cost panel share (cost_calc.c): the peak a
 * cost is priced at, and the training run's sequence of model calls. */
#ifndef RIDGE_COST_CALC_H
#define RIDGE_COST_CALC_H

#include <stdbool.h>
#include <stddef.h>

#include "models.h"

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

#endif
