/* The median of a list of numbers: what the fits, the validation and the
 * benchmark comparison all report. */
#ifndef RIDGE_MEDIAN_H
#define RIDGE_MEDIAN_H

#include <stddef.h>

/* Sorts values (count of them) in place, ascending, and returns their median
 * (the mean of the middle two for an even count); NaN when count is 0. */
double ridge_median(double *values, size_t count);

#endif
