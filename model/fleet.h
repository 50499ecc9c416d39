/* A fleet's statistics (ridge fleet): the spread of one ceiling over many
 * GPUs of one model, and whether one GPU is short of the others. Pure: the
 * values are sorted in place, nothing is allocated. */
#ifndef RIDGE_FLEET_H
#define RIDGE_FLEET_H

#include <stdbool.h>
#include <stddef.h>

struct ridge_spread {
	size_t count;
	double median;
	double p5, p95; /* percentiles by linear interpolation between the order statistics */
	double mad;     /* the median absolute deviation from the median (unscaled) */
	double min, max;
};

/* The p-th percentile (0 <= p <= 100) of sorted values (count > 0): the
 * value at rank (count - 1) x p / 100, interpolated linearly between the two
 * nearest (Hyndman and Fan's definition 7, numpy's and R's default); NaN for
 * no values or p outside 0..100. */
double ridge_percentile_sorted(const double *sorted, size_t count, double p);

/* Sorts values in place and fills out. scratch holds count doubles (the
 * absolute deviations, for the MAD). Returns 0, or -1 when count is 0 or a
 * value is not finite (out is then zeroed). */
int ridge_spread_compute(double *values, double *scratch, size_t count, struct ridge_spread *out);

/* Which way a ceiling is better. */
enum ridge_direction {
	RIDGE_HIGHER_IS_BETTER = 1, /* a rate: bandwidth, FLOP/s, clock */
	RIDGE_LOWER_IS_BETTER = -1, /* a cost: latency, launch time */
	RIDGE_NO_DIRECTION = 0,     /* reported, never flagged: power */
};

/* How far value falls short of reference, as a fraction of reference:
 * positive when worse (below a rate, above a latency), negative when better,
 * 0 for RIDGE_NO_DIRECTION; NaN when reference is not finite and > 0. */
double ridge_shortfall(double value, double reference, enum ridge_direction direction);

/* Whether a GPU is flagged: its shortfall against the fleet median is at
 * least threshold (0.05: 5 % under the median for a rate, 5 % over it for a
 * latency). A shortfall exactly at the threshold is flagged. */
bool ridge_fleet_flagged(double value, double median, enum ridge_direction direction, double threshold);

#endif
