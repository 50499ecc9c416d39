/* What ridge plan's two searches (plan_calc.c: one decode step; plan_serve_calc.c:
 * the serving simulation) read alike from their flags. */
#ifndef RIDGE_APP_PLAN_LISTS_H
#define RIDGE_APP_PLAN_LISTS_H

#include "app.h"
#include "params.h"
#include "serve.h"

/* Splits "a,b,c" into at most max words shorter than RIDGE_TEXT; returns the
 * count, or -1 for an empty word, a word too long or too many words. */
int plan_split_list(const char *text, char out[][RIDGE_TEXT], int max);

/* The GPUs of flag `param` (default: the hwdb's default GPU), at most max of
 * them, each once, into gpus; returns how many, or -1 with st set. */
int plan_read_gpus(const struct param_values *v, int param, const struct app_hw *hw, int max,
		   const struct ridge_gpu **gpus, struct app_status *st);

/* A storage type name (bf16, fp8, int4, ...) into its bytes, scale bytes
 * and group; an unknown name is an error on flag `param`. */
int plan_read_storage(const struct param_values *v, int param, const char *name, struct ridge_storage *out,
		      struct app_status *st);

/* --moe-impl (flag moe) and the what-ifs of --efficiency / --fixed-cost
 * (flags efficiency, fixed_cost) into their fields; -1 with st set. */
int plan_read_model_options(const struct param_values *v, int moe, int efficiency, int fixed_cost,
			    enum ridge_moe_impl *moe_impl, struct ridge_timing_overrides *overrides,
			    bool *has_overrides, struct app_status *st);

#endif
