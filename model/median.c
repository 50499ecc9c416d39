/* The median (median.h). */
#include "median.h"

#include <math.h>
#include <stdlib.h>

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double ridge_median(double *values, size_t count)
{
	if (count == 0)
		return NAN;
	qsort(values, count, sizeof *values, compare_doubles);
	return count % 2 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
}
