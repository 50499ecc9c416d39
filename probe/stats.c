/* Statistics of repeated timings and the L2 plateau (see stats.h). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int probe_stats_compute(const double *values, int n, struct probe_stats *s)
{
	memset(s, 0, sizeof *s);
	if (n < 1)
		return -1;
	double *sorted = malloc((size_t)n * sizeof *sorted);
	if (!sorted)
		return -1;
	double sum = 0;
	for (int i = 0; i < n; i++) {
		if (!isfinite(values[i])) {
			free(sorted);
			return -1;
		}
		sorted[i] = values[i];
		sum += values[i];
	}
	qsort(sorted, (size_t)n, sizeof *sorted, compare_double);
	s->n = n;
	s->min = sorted[0];
	s->max = sorted[n - 1];
	s->median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
	s->mean = sum / n;
	if (n > 1) {
		double ss = 0;
		for (int i = 0; i < n; i++)
			ss += (values[i] - s->mean) * (values[i] - s->mean);
		s->stddev = sqrt(ss / (n - 1));
		s->cv = s->mean != 0 ? s->stddev / fabs(s->mean) : 0;
	}
	free(sorted);
	return 0;
}

static double median_of(const double *v, int first, int last)
{
	int n = last - first + 1;
	double tmp[256];
	if (n > 256)
		n = 256;
	memcpy(tmp, v + first, (size_t)n * sizeof *tmp);
	qsort(tmp, (size_t)n, sizeof *tmp, compare_double);
	return n % 2 ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
}

int probe_plateau_find(const double *sizes, const double *bandwidth, int n, double l2_bytes, double within,
		       struct probe_plateau *out)
{
	memset(out, 0, sizeof *out);
	if (n < 1 || !(l2_bytes > 0) || !(within > 0 && within < 1))
		return -1;
	for (int i = 0; i < n; i++) {
		if (!(sizes[i] > 0) || !(bandwidth[i] > 0) || !isfinite(bandwidth[i]))
			return -1;
		if (i && sizes[i] <= sizes[i - 1])
			return -1;
	}
	/* HBM level: the points well past L2. */
	int hbm_first = -1;
	for (int i = 0; i < n; i++)
		if (sizes[i] >= 2 * l2_bytes) {
			hbm_first = i;
			break;
		}
	if (hbm_first >= 0) {
		out->has_hbm = true;
		out->hbm_bandwidth = median_of(bandwidth, hbm_first, n - 1);
	}
	/* Plateau: among points inside L2, the longest run within `within` of its best point. */
	int inside = 0;
	while (inside < n && sizes[inside] < l2_bytes)
		inside++;
	if (inside == 0)
		return 0;
	int best_first = -1, best_last = -1;
	double best_peak = 0;
	for (int start = 0; start < inside; start++) {
		double peak = bandwidth[start];
		int end = start;
		/* Extend while every point stays within the band of the run's running best. */
		while (end + 1 < inside) {
			double next = bandwidth[end + 1];
			double new_peak = next > peak ? next : peak;
			bool ok = true;
			for (int i = start; i <= end + 1 && ok; i++)
				ok = bandwidth[i] >= (1 - within) * new_peak;
			if (!ok)
				break;
			peak = new_peak;
			end++;
		}
		int len = end - start + 1, best_len = best_last - best_first + 1;
		if (best_first < 0 || len > best_len || (len == best_len && peak > best_peak)) {
			best_first = start;
			best_last = end;
			best_peak = peak;
		}
	}
	out->found = true;
	out->first = best_first;
	out->last = best_last;
	out->from_bytes = sizes[best_first];
	out->to_bytes = sizes[best_last];
	out->bandwidth = median_of(bandwidth, best_first, best_last);
	out->peak = best_peak;
	if (out->has_hbm && out->bandwidth > out->hbm_bandwidth) {
		double mid = 0.5 * (out->bandwidth + out->hbm_bandwidth);
		for (int i = best_first; i < n; i++) {
			if (bandwidth[i] >= mid) {
				out->has_knee = true;
				out->knee_bytes = sizes[i];
			} else {
				break;
			}
		}
	}
	return 0;
}
