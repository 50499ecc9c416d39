/* Statistics of repeated timings and the L2 plateau of a working-set sweep.
 * Plain C, no GPU: unit-tested on recorded H200 measurements. */
#ifndef RIDGE_PROBE_STATS_H
#define RIDGE_PROBE_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct probe_stats {
	int n;
	double median, mean, min, max;
	double stddev; /* sample standard deviation (n - 1); 0 when n < 2 */
	double cv;     /* stddev / mean; 0 when n < 2 */
};

/* Fills s from n values (n >= 1). Returns 0, or -1 when n < 1 or a value is
 * not finite. The values are not modified. */
int probe_stats_compute(const double *values, int n, struct probe_stats *s);

/* A CV above this is flagged (5 %). */
#define PROBE_CV_WARN 0.05

/* The L2 plateau of a read-bandwidth sweep over working-set sizes. */
struct probe_plateau {
	bool found;
	double bandwidth;            /* median bandwidth of the plateau's points, bytes/s */
	double peak;                 /* the highest point, bytes/s */
	double from_bytes, to_bytes; /* working sets the plateau spans */
	int first, last;             /* indexes of its points (in the sorted input) */
	bool has_hbm;
	double hbm_bandwidth; /* median of the points at >= 2 x L2 */
	bool has_knee;
	double knee_bytes; /* largest working set still above the midpoint of plateau and HBM */
};

/* sizes[] ascending. The plateau is the longest run of consecutive points
 * whose bandwidth is within `within` (e.g. 0.10) of the run's best point,
 * among the points with size < l2_bytes; the run containing the sweep's
 * highest point below l2_bytes wins ties. Returns 0, or -1 for bad input
 * (n < 1, sizes not ascending, non-positive values). */
int probe_plateau_find(const double *sizes, const double *bandwidth, int n, double l2_bytes, double within,
		       struct probe_plateau *out);

#endif
