/* A fleet's statistics (fleet.h). */
#include "fleet.h"

#include <math.h>
#include <string.h>

#include "median.h"

double ridge_percentile_sorted(const double *sorted, size_t count, double p)
{
	if (count == 0 || !(p >= 0 && p <= 100))
		return NAN;
	double rank = (double)(count - 1) * p / 100;
	size_t below = (size_t)floor(rank);
	if (below + 1 >= count)
		return sorted[count - 1];
	double weight = rank - (double)below;
	return sorted[below] + weight * (sorted[below + 1] - sorted[below]);
}

int ridge_spread_compute(double *values, double *scratch, size_t count, struct ridge_spread *out)
{
	memset(out, 0, sizeof *out);
	if (count == 0)
		return -1;
	for (size_t i = 0; i < count; i++)
		if (!isfinite(values[i]))
			return -1;
	double median = ridge_median(values, count); /* sorts values */
	for (size_t i = 0; i < count; i++)
		scratch[i] = fabs(values[i] - median);
	out->count = count;
	out->median = median;
	out->p5 = ridge_percentile_sorted(values, count, 5);
	out->p95 = ridge_percentile_sorted(values, count, 95);
	out->mad = ridge_median(scratch, count);
	out->min = values[0];
	out->max = values[count - 1];
	return 0;
}

double ridge_shortfall(double value, double reference, enum ridge_direction direction)
{
	if (!(isfinite(reference) && reference > 0))
		return NAN;
	if (direction == RIDGE_NO_DIRECTION)
		return 0;
	double fraction = (value - reference) / reference;
	return direction == RIDGE_HIGHER_IS_BETTER ? -fraction : fraction;
}

bool ridge_fleet_flagged(double value, double median, enum ridge_direction direction, double threshold)
{
	double shortfall = ridge_shortfall(value, median, direction);
	/* A relative tolerance of a few ulps: 4.6 against a median of 5.0 is
	 * exactly 8 % short, and must be flagged at an 8 % threshold though
	 * (5.0 - 4.6) / 5.0 rounds just below 0.08. */
	return isfinite(shortfall) && direction != RIDGE_NO_DIRECTION && shortfall >= threshold - 1e-12;
}
