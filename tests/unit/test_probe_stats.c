/* probe/stats.c: median, CV and the L2 plateau, on exact small cases and on
 * the sweep recorded on an H200. */
#include "test_util.h"

#include <math.h>
#include <string.h>

#include "probe_fixture.h"
#include "../../probe/stats.h"

static void test_stats_exact(void **state)
{
	(void)state;
	static const struct {
		double v[6];
		int n;
		double median, mean, sd, min, max;
	} cases[] = {
		{ { 1, 2, 3, 4 }, 4, 2.5, 2.5, 1.2909944487358056, 1, 4 },
		{ { 5, 1, 3 }, 3, 3, 3, 2, 1, 5 },
		{ { 7 }, 1, 7, 7, 0, 7, 7 },
		{ { 2, 2, 2, 2, 2 }, 5, 2, 2, 0, 2, 2 },
		{ { 10, 0, 20, 30, 40, 50 }, 6, 25, 25, 18.708286933869708, 0, 50 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct probe_stats s;
		double copy[6];
		memcpy(copy, cases[i].v, sizeof copy);
		assert_int_equal(probe_stats_compute(copy, cases[i].n, &s), 0);
		assert_memory_equal(copy, cases[i].v, sizeof copy); /* input untouched */
		assert_int_equal(s.n, cases[i].n);
		assert_close(s.median, cases[i].median, 1e-15);
		assert_close(s.mean, cases[i].mean, 1e-15);
		assert_close(s.stddev, cases[i].sd, 1e-14);
		assert_true(s.min == cases[i].min && s.max == cases[i].max);
		if (cases[i].mean != 0)
			assert_close(s.cv, cases[i].sd / cases[i].mean, 1e-14);
	}
}

static void test_stats_rejects(void **state)
{
	(void)state;
	struct probe_stats s;
	double v[2] = { 1, NAN };
	assert_int_equal(probe_stats_compute(v, 0, &s), -1);
	assert_int_equal(probe_stats_compute(v, 2, &s), -1);
	v[1] = INFINITY;
	assert_int_equal(probe_stats_compute(v, 2, &s), -1);
}

/* A made-up sweep: rising, flat at ~10 (within 10 %), a knee, then HBM at 4. */
static void test_plateau_synthetic(void **state)
{
	(void)state;
	double mib = 1048576;
	double sizes[] = { 1 * mib,  2 * mib,  4 * mib,  8 * mib,   16 * mib,
			   32 * mib, 48 * mib, 64 * mib, 128 * mib, 256 * mib };
	double bw[] = { 4, 7, 9.6, 10, 9.8, 10.2, 9.5, 6, 4.1, 4.0 };
	struct probe_plateau p;
	assert_int_equal(probe_plateau_find(sizes, bw, 10, 60 * mib, 0.10, &p), 0);
	assert_true(p.found);
	assert_int_equal(p.first, 2);
	assert_int_equal(p.last, 6);
	assert_true(p.from_bytes == 4 * mib && p.to_bytes == 48 * mib);
	assert_close(p.bandwidth, 9.8, 1e-15); /* median of 9.6 10 9.8 10.2 9.5 */
	assert_close(p.peak, 10.2, 1e-15);
	assert_true(p.has_hbm);
	assert_close(p.hbm_bandwidth, 4.05, 1e-15); /* median of 4.1 and 4.0 (>= 120 MiB) */
	assert_true(p.has_knee);
	assert_true(p.knee_bytes == 48 * mib); /* 6 is below the midpoint 6.925 */
}

static void test_plateau_rejects(void **state)
{
	(void)state;
	double sizes[] = { 2, 1 }, bw[] = { 1, 1 };
	struct probe_plateau p;
	assert_int_equal(probe_plateau_find(sizes, bw, 2, 10, 0.1, &p), -1); /* not ascending */
	double s2[] = { 1, 2 }, b2[] = { 1, 0 };
	assert_int_equal(probe_plateau_find(s2, b2, 2, 10, 0.1, &p), -1); /* zero bandwidth */
	assert_int_equal(probe_plateau_find(s2, bw, 0, 10, 0.1, &p), -1);
	assert_int_equal(probe_plateau_find(s2, bw, 2, 0, 0.1, &p), -1);
	/* Everything past L2: no plateau, but the HBM level. */
	double s3[] = { 100, 200 }, b3[] = { 4, 4 };
	assert_int_equal(probe_plateau_find(s3, b3, 2, 10, 0.1, &p), 0);
	assert_false(p.found);
	assert_true(p.has_hbm);
}

/* The H200 sweep: the plateau must be what an independent reading of the raw
 * times gives. */
static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void test_plateau_h200(void **state)
{
	(void)state;
	const struct probe_result *r = fixture_h200();
	double sizes[64], bw[64];
	int n = 0;
	for (int i = 0; i < r->count; i++) {
		const struct probe_measurement *m = &r->m[i];
		if (m->id != KERN_L2_READ || !m->ok)
			continue;
		double t[KERN_MAX_REPEATS];
		memcpy(t, m->seconds, sizeof t);
		sizes[n] = m->bytes;
		bw[n] = m->work / median(t, m->repeats);
		n++;
	}
	assert_true(n >= 25); /* 1 MiB to past 4 x 60 MiB in x1.25 steps */
	assert_true(sizes[n - 1] >= 4 * r->device.l2_bytes);
	struct probe_plateau p;
	assert_int_equal(probe_plateau_find(sizes, bw, n, r->device.l2_bytes, 0.10, &p), 0);
	assert_true(p.found);
	/* Every plateau point is within 10 % of the best of them. */
	for (int i = p.first; i <= p.last; i++)
		assert_true(bw[i] >= 0.9 * p.peak);
	double pts[64];
	int k = 0;
	for (int i = p.first; i <= p.last; i++)
		pts[k++] = bw[i];
	assert_close(p.bandwidth, median(pts, k), 1e-15);
	/* The recorded run (2026-12-01, 512 KiB chunks): the plateau spans 5 MiB .. 36 MiB at 9.51 TB/s. */
	assert_true(p.from_bytes == 5 * 1048576.0);
	assert_true(p.to_bytes == 36 * 1048576.0);
	assert_true(p.bandwidth > 9.4e12 && p.bandwidth < 9.6e12);
	assert_true(p.has_hbm && p.hbm_bandwidth > 4.6e12 && p.hbm_bandwidth < 4.8e12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_exact),       cmocka_unit_test(test_stats_rejects),
		cmocka_unit_test(test_plateau_synthetic), cmocka_unit_test(test_plateau_rejects),
		cmocka_unit_test(test_plateau_h200),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
