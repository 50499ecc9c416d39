/* The uncertainty of a predicted time (timing.h, timing_band): how far
 * measured times fell from predictions of the same class and provenance on
 * cases no fit saw. The rows are printed by validation/time_ranges.py from
 * the measurements it names (tests/suite_time_ranges.sh fails when they
 * differ); validation/README.md, "How far to trust a prediction", says how
 * they were computed and what their coverage was on another harness. */
#include <math.h>

#include "timing.h"

/* clang-format off */
#define RIDGE_TIME_BANDS(BAND) \
	/* sourced: rms of the public spread 0.0713; transferred: rms of the transfer errors 0.0992 */ \
	BAND(OWN, FLOOR, -0.1298, 0.2192, 44) \
	BAND(GEMM, MEASURED, -0.0862, 0.0525, 39) \
	BAND(GEMM, SOURCED, -0.1256, 0.1054, 39) \
	BAND(GEMM, TRANSFERRED, -0.1536, 0.1375, 39) \
	BAND(GEMM, FLOOR, -0.0045, 0.6045, 39) \
	BAND(ATTENTION, MEASURED, -0.1062, 0.1064, 20) \
	BAND(ATTENTION, SOURCED, -0.1401, 0.1403, 20) \
	BAND(ATTENTION, TRANSFERRED, -0.1656, 0.1658, 20) \
	BAND(ATTENTION, FLOOR, 0.1898, 1.7788, 20) \
	BAND(NORM, MEASURED, -0.0968, 0.5660, 20) \
	BAND(NORM, SOURCED, -0.1331, 0.5733, 20) \
	BAND(NORM, TRANSFERRED, -0.1598, 0.5801, 20) \
	BAND(NORM, FLOOR, 0.1950, 1.8869, 20) \
	BAND(SOFTMAX, MEASURED, -0.1784, 0.3653, 12) \
	BAND(SOFTMAX, SOURCED, -0.2004, 0.3766, 12) \
	BAND(SOFTMAX, TRANSFERRED, -0.2190, 0.3868, 12) \
	BAND(SOFTMAX, FLOOR, 0.2899, 1.5510, 12) \
	BAND(ELEMENTWISE, MEASURED, -0.0586, 0.0347, 14) \
	BAND(ELEMENTWISE, SOURCED, -0.1085, 0.0977, 14) \
	BAND(ELEMENTWISE, TRANSFERRED, -0.1399, 0.1317, 14) \
	BAND(ELEMENTWISE, FLOOR, -0.0051, 2.7107, 14) \
	/* held out: two models' prefill profiles, each op summed over its layers */ \
	BAND(ELEMENTWISE_STRIDED, MEASURED, -0.1308, 0.4778, 28) \
	BAND(ELEMENTWISE_STRIDED, SOURCED, -0.1596, 0.4865, 28) \
	BAND(ELEMENTWISE_STRIDED, TRANSFERRED, -0.1824, 0.4945, 28) \
	BAND(ELEMENTWISE_STRIDED, FLOOR, 1.2409, 3.0958, 28)
/* clang-format on */

/* The host issue time of an eager step (serve.c): measured / predicted - 1
 * of the eager decode steps of harnesses B and C (validation/time_ranges.py,
 * eager_band), which launch.framework_overhead's fit (harness A) never saw. */
/* clang-format off */
#define RIDGE_EAGER_HOST_BAND { -0.3137, 0.9783, 24 }
/* clang-format on */

bool timing_eager_host_band(struct ridge_time_band *out)
{
	static const struct ridge_time_band band = RIDGE_EAGER_HOST_BAND;
	*out = band;
	return true;
}

#define BAND_ROW(CLS, PROV, lo, hi, n) { RIDGE_TIME_##CLS, RIDGE_PROVENANCE_##PROV, { lo, hi, n } },
static const struct {
	enum ridge_time_class cls;
	enum ridge_provenance provenance;
	struct ridge_time_band band;
} bands[] = { RIDGE_TIME_BANDS(BAND_ROW) };
#undef BAND_ROW

bool timing_band(enum ridge_time_class cls, enum ridge_provenance provenance, struct ridge_time_band *out)
{
	/* A what-if efficiency is the user's claim: what remains is the
	 * formula's own error where its efficiencies were right, the measured
	 * band. The own class has only its floor. */
	if (provenance == RIDGE_PROVENANCE_WHAT_IF)
		provenance = RIDGE_PROVENANCE_MEASURED;
	if (cls == RIDGE_TIME_OWN)
		provenance = RIDGE_PROVENANCE_FLOOR;
	/* The grouped GEMM has no held-out band of its own (ridge calibrate
	 * cannot replay its cases): the library GEMM's. Its 96 held-out
	 * kernels measured P10 -9.2 % to P90 +17.9 % of the prediction
	 * (validation/harnesses/fit_grouped_gemm.py). */
	if (cls == RIDGE_TIME_GROUPED_GEMM)
		cls = RIDGE_TIME_GEMM;
	/* The fp8 and fp4 GEMMs likewise: the fp8 fit's held-out shapes are
	 * kernels of one lease (validation/harnesses/fit_fp8_gemm.py), not a
	 * replayed band; fp4's is sourced, not measured here. */
	if (timing_low_precision_gemm(cls))
		cls = RIDGE_TIME_GEMM;
	for (size_t i = 0; i < sizeof bands / sizeof bands[0]; i++)
		if (bands[i].cls == cls && bands[i].provenance == provenance) {
			*out = bands[i].band;
			return true;
		}
	return false;
}

/* The provenance of what binds: the CTA stream or the row term, else the
 * efficiency of the larger term; a what-if anywhere in the prediction makes
 * it a what-if. */
static enum ridge_provenance binding_provenance(const struct ridge_kernel_time *t)
{
	if (t->cls == RIDGE_TIME_OWN)
		return RIDGE_PROVENANCE_FLOOR;
	if (t->compute_efficiency.provenance == RIDGE_PROVENANCE_WHAT_IF ||
	    t->memory_efficiency.provenance == RIDGE_PROVENANCE_WHAT_IF ||
	    t->fixed_cost.provenance == RIDGE_PROVENANCE_WHAT_IF)
		return RIDGE_PROVENANCE_WHAT_IF;
	if (t->ctas_bind)
		return t->cta_provenance;
	if (t->rows_bind)
		return t->row_provenance;
	return t->compute_binds ? t->compute_efficiency.provenance : t->memory_efficiency.provenance;
}

void timing_range(struct ridge_kernel_time *t)
{
	t->provenance = binding_provenance(t);
	struct ridge_time_band band = { 0, 0, 0 };
	t->has_band = timing_band(t->cls, t->provenance, &band);
	t->band = band;
	double p = t->predicted_time_s;
	/* Nothing runs below the floor: the low end stops there. */
	t->predicted_time_range_s[0] = fmax(p * (1 + band.low), fmin(t->time_floor_s, p));
	t->predicted_time_range_s[1] = fmax(p * (1 + band.high), t->predicted_time_range_s[0]);
}

/* Weakest last: a class summed over kernels says the weakest it used. */
static int provenance_rank(enum ridge_provenance p)
{
	switch (p) {
	case RIDGE_PROVENANCE_MEASURED:
		return 0;
	case RIDGE_PROVENANCE_SOURCED:
		return 1;
	case RIDGE_PROVENANCE_TRANSFERRED:
		return 2;
	case RIDGE_PROVENANCE_FLOOR:
		return 3;
	default:
		return 4;
	}
}

void timing_range_add(struct ridge_time_sum *sum, const struct ridge_kernel_time *t, double scale)
{
	int c = (int)t->cls;
	double p = t->predicted_time_s * scale;
	sum->central[c] += p;
	sum->low[c] += t->predicted_time_range_s[0] * scale;
	sum->high[c] += t->predicted_time_range_s[1] * scale;
	if (!sum->seen[c] || provenance_rank(t->provenance) > provenance_rank(sum->provenance[c]))
		sum->provenance[c] = t->provenance;
	sum->seen[c] = true;
}

void timing_sum_power_limit(struct ridge_time_sum *sum, const struct ridge_gpu *gpu)
{
	sum->power_limit_seen = true;
	sum->power_limit = ridge_power_provenance(gpu->power_provenance);
}

enum ridge_provenance timing_sum_weakest(const struct ridge_time_sum *sum)
{
	enum ridge_provenance weakest = RIDGE_PROVENANCE_FLOOR;
	bool any = false;
	for (int c = 0; c < RIDGE_TIME_CLASS_COUNT; c++)
		if (sum->seen[c] && (!any || provenance_rank(sum->provenance[c]) > provenance_rank(weakest))) {
			weakest = sum->provenance[c];
			any = true;
		}
	if (sum->power_limit_seen && any && provenance_rank(sum->power_limit) > provenance_rank(weakest))
		weakest = sum->power_limit;
	return weakest;
}

void timing_range_total(const struct ridge_time_sum *sum, double central, double range[2])
{
	double down = 0, up = 0;
	for (int c = 0; c < RIDGE_TIME_CLASS_COUNT; c++) {
		down += (sum->central[c] - sum->low[c]) * (sum->central[c] - sum->low[c]);
		up += (sum->high[c] - sum->central[c]) * (sum->high[c] - sum->central[c]);
	}
	range[0] = central - sqrt(down);
	range[1] = central + sqrt(up);
}
