/* ridge plan's shared flag readers (plan_lists.h). */
#include "plan_lists.h"

#include <string.h>

#include "cost_model_calc.h"
#include "plan.h"
#include "serve_plan.h"

/* The longest GPU list a plan reads (RIDGE_PLAN_MAX_GPUS, RIDGE_SERVE_PLAN_MAX_GPUS). */
#define PLAN_LIST_MAX 8
_Static_assert(RIDGE_PLAN_MAX_GPUS <= PLAN_LIST_MAX && RIDGE_SERVE_PLAN_MAX_GPUS <= PLAN_LIST_MAX,
	       "plan_read_gpus holds every GPU list a plan reads");

int plan_split_list(const char *text, char out[][RIDGE_TEXT], int max)
{
	int n = 0;
	const char *p = text;
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == 0 || len >= RIDGE_TEXT || n >= max)
			return -1;
		memcpy(out[n], p, len);
		out[n][len] = '\0';
		n++;
		if (!comma)
			break;
		p = comma + 1;
		if (!*p)
			return -1;
	}
	return n;
}

int plan_read_gpus(const struct param_values *v, int param, const struct app_hw *hw, int max,
		   const struct ridge_gpu **gpus, struct app_status *st)
{
	char names[PLAN_LIST_MAX][RIDGE_TEXT];
	const char *list = params_has(v, param) ? params_text(v, param) : app_hw_default_gpu(hw);
	int n = max <= PLAN_LIST_MAX ? plan_split_list(list, names, max) : -1;
	if (n < 1) {
		app_error_flag(st, params_where(v, param), "'%s' is not a list of 1 to %d GPU ids (h100-sxm,mi300x)",
			       list, max);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		const struct hwdb_entry *e = app_hw_find(hw, names[i], st);
		if (!e)
			return -1;
		for (int j = 0; j < i; j++)
			if (gpus[j] == &e->gpu) {
				app_error_flag(st, params_where(v, param), "'%s' is given twice", names[i]);
				return -1;
			}
		gpus[i] = &e->gpu;
	}
	return n;
}

int plan_read_storage(const struct param_values *v, int param, const char *name, struct ridge_storage *out,
		      struct app_status *st)
{
	if (!cost_storage_bytes(name, &out->bytes)) {
		app_error_flag(st, params_where(v, param), "unknown storage type '%s' (known: %s)", name,
			       cost_storage_list());
		return -1;
	}
	serve_storage_scale(name, &out->scale_bytes, &out->group);
	return 0;
}

int plan_read_model_options(const struct param_values *v, int moe, int efficiency, int fixed_cost,
			    enum ridge_moe_impl *moe_impl, struct ridge_timing_overrides *overrides,
			    bool *has_overrides, struct app_status *st)
{
	const char *text = params_text(v, moe);
	if (text && !serve_moe_impl_parse(text, moe_impl)) {
		app_error_flag(st, params_where(v, moe), "unknown MoE implementation '%s' (known: grouped loop)", text);
		return -1;
	}
	char why[400];
	if (calc_timing_overrides(v, efficiency, fixed_cost, overrides, has_overrides, why, sizeof why) != 0) {
		app_error(st, "%s", why);
		return -1;
	}
	return 0;
}
