#include "cost_calc.h"

#include <string.h>

int cost_peak_lookup(const struct ridge_gpu *gpu, enum ridge_dtype dtype, double given, struct cost_peak *out)
{
	memset(out, 0, sizeof *out);
	out->has_hwdb = ridge_gpu_peak(gpu, dtype, RIDGE_PEAK_DEFAULT, false, &out->hwdb_peak, &out->why);
	if (given > 0) {
		out->peak = given;
		out->source = "given";
	} else if (out->has_hwdb) {
		out->peak = out->hwdb_peak;
		out->source = gpu->measured ? "measured" : "hwdb";
	} else {
		return -1;
	}
	return 0;
}

int cost_train_run(const struct ridge_train_input *in, bool has_target, double target_mfu, bool has_investment,
		   double investment_usd, struct ridge_train_comparison *c, struct ridge_explain *ex, char *err,
		   size_t err_len)
{
	memset(c, 0, sizeof *c);
	if (!has_target)
		return cost_train(in, &c->current, ex, NULL, err, err_len);
	return cost_train_compare(in, target_mfu, has_investment, investment_usd, c, ex, err, err_len);
}
