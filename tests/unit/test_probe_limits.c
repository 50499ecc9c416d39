/* The measurements added for issue 19, on the runs recorded on an H200
 * (tests/fixtures/probe_h200.json and probe_h200_sustained.json): the
 * pointer-chase latencies and the near/far L2 split, the fixed cost per
 * kernel (checked by the normal equations of its fit, not by refitting),
 * every rate against the datasheet, the own tensor-core kernels of every
 * dtype, the sustained windows, and what of it reaches the calibration. */
#include "test_util.h"

#include <math.h>
#include <string.h>

#include "probe_fixture.h"
#include "../../probe/calib.h"
#include "../../probe/report.h"

static struct probe_report rep;

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median_of(const double *v, int n)
{
	double t[KERN_MAX_REPEATS];
	memcpy(t, v, (size_t)n * sizeof t[0]);
	qsort(t, (size_t)n, sizeof t[0], cmp);
	return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

static int setup(void **state)
{
	(void)state;
	probe_report_build(fixture_h200(), test_gpu("h200-sxm"), &rep);
	return 0;
}

static const struct probe_latency *level(const char *name, double bytes)
{
	for (int i = 0; i < rep.latency_count; i++)
		if (strcmp(rep.latency[i].level, name) == 0 && (bytes == 0 || rep.latency[i].bytes == bytes))
			return &rep.latency[i];
	fail_msg("no latency point '%s'", name);
	return NULL;
}

static void test_latency_points(void **state)
{
	(void)state;
	const struct probe_result *r = fixture_h200();
	int chases = 0;
	for (int i = 0; i < r->count; i++)
		chases += (r->m[i].id == KERN_LATENCY || r->m[i].id == KERN_LATENCY_SMEM) && r->m[i].ok;
	assert_int_equal(rep.latency_count, chases);
	for (int i = 0; i < rep.latency_count; i++) {
		const struct probe_latency *l = &rep.latency[i];
		/* seconds per load: the median run; cycles at the clock read while it ran. */
		assert_close(l->seconds, median_of(l->from->seconds, l->from->repeats), 1e-15);
		assert_close(l->cycles, l->seconds * l->from->env.clock_mhz_median * 1e6, 1e-12);
	}
	/* The hierarchy as measured: shared memory < L1 < L2 < HBM. */
	const struct probe_latency *smem = level("shared memory", 0), *l1 = level("L1", 0), *l2 = level("L2", 0),
				   *hbm = level("HBM", 0);
	assert_true(smem->cycles < l1->cycles && l1->cycles < l2->cycles && l2->cycles < hbm->cycles);
	/* gpu-benches' gpu-latency on a GH200: L1 32 cycles (gpu-latency/gh200.txt). */
	assert_true(l1->cycles > 25 && l1->cycles < 45);
	assert_true(hbm->bytes >= 2 * r->device.l2_bytes && l2->bytes <= r->device.l2_bytes / 2);
}

/* The split is a fixed point of 2-means: every quantile is nearer its own group. */
static void test_l2_partitions(void **state)
{
	(void)state;
	const struct probe_result *r = fixture_h200();
	const struct probe_measurement *m = NULL;
	for (int i = 0; i < r->count; i++)
		if (r->m[i].id == KERN_LATENCY_HOPS)
			m = &r->m[i];
	assert_non_null(m);
	const struct probe_l2_split *sp = &rep.l2_split;
	assert_true(sp->found && sp->differ);
	assert_true(sp->near_s < sp->far_s);
	int near = 0;
	double sum_near = 0, sum_far = 0;
	for (int k = 0; k < m->repeats; k++) {
		double q = m->seconds[k];
		bool is_near = fabs(q - sp->near_s) <= fabs(q - sp->far_s);
		near += is_near;
		if (is_near)
			sum_near += q;
		else
			sum_far += q;
	}
	assert_close(sp->near_fraction, (double)near / m->repeats, 1e-15);
	assert_close(sp->near_s, sum_near / near, 1e-12);
	assert_close(sp->far_s, sum_far / (m->repeats - near), 1e-12);
	assert_close(sp->near_cycles, sp->near_s * r->device.clock_hz, 1e-15);
}

/* The fit's normal equations: sum w r = 0 and sum w r x = 0, w = 1 / t^2. */
static void check_fit(const struct probe_fixed_fit *f, bool gemm)
{
	const struct probe_result *r = fixture_h200();
	assert_true(f->has && f->points >= 3);
	double s0 = 0, s1 = 0, scale0 = 0, scale1 = 0;
	int n = 0;
	for (int i = 0; i < r->count; i++) {
		const struct probe_measurement *m = &r->m[i];
		bool use = gemm ? m->id == KERN_GEMM_BF16 && m->sweep && !m->sustained && m->m == m->n &&
					   m->n == m->k && m->m <= 512
				: m->id == KERN_COPY_FIXED;
		if (!use || !m->ok)
			continue;
		double t = median_of(m->seconds, m->repeats), w = 1 / (t * t);
		double resid = t - (f->fixed_s + m->work / f->rate);
		s0 += w * resid;
		s1 += w * resid * m->work;
		scale0 += w * t;
		scale1 += w * t * m->work;
		n++;
	}
	assert_int_equal(n, f->points);
	assert_true(fabs(s0) < 1e-9 * scale0 && fabs(s1) < 1e-9 * scale1);
}

static void test_fixed_cost(void **state)
{
	(void)state;
	check_fit(&rep.kernel_fixed, false);
	check_fit(&rep.gemm_fixed, true);
	/* A few microseconds: more than the graph node (0.5 us), less than the
	 * smallest kernel's time. */
	assert_true(rep.kernel_fixed.fixed_s > 0.5e-6 && rep.kernel_fixed.fixed_s < 20e-6);
	assert_true(rep.gemm_fixed.fixed_s > rep.kernel_fixed.fixed_s);
}

static void test_rate_checks(void **state)
{
	(void)state;
	int with_spec = 0;
	for (int i = 0; i < rep.ceiling_count; i++)
		with_spec += rep.ceilings[i].has_spec;
	assert_int_equal(rep.rate_check_count, with_spec);
	/* A rate 20 % above the datasheet contradicts it. */
	static struct probe_result r;
	r = *fixture_h200();
	for (int i = 0; i < r.count; i++)
		if (strcmp(r.m[i].name, "fma_fp32") == 0 && !r.m[i].sweep) {
			r.m[i].work *= 1.2 * 66.9e12 / r.m[i].rate;
			probe_measurement_derive(&r.m[i]);
		}
	static struct probe_report bad;
	probe_report_build(&r, test_gpu("h200-sxm"), &bad);
	int flagged = 0;
	for (int i = 0; i < bad.rate_check_count; i++)
		if (!bad.rate_checks[i].ok) {
			flagged++;
			assert_string_equal(bad.rate_checks[i].field, "fp32_vector");
			assert_non_null(strstr(bad.rate_checks[i].note, "20.0% above"));
		}
	assert_int_equal(flagged, 1);
}

/* Own tensor-core kernels for every dtype: verified, and each within the
 * datasheet (+5 %) on the H200. */
static void test_tensor_kernels(void **state)
{
	(void)state;
	static const char *names[] = { "bf16_wgmma",     "fp16_wgmma", "tf32_wgmma",        "fp8_wgmma",
				       "fp8_e5m2_wgmma", "int8_wgmma", "bf16_sparse_wgmma", "fp8_sparse_wgmma" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const struct probe_ceiling *c = probe_report_ceiling(&rep, names[i]);
		if (!c)
			fail_msg("no ceiling %s", names[i]);
		assert_true(c->has_spec && c->from && c->from->ok);
		assert_true(c->from->verify_error >= 0 && c->from->verify_error <= c->from->verify_tolerance);
		assert_true(c->fraction > 0.5 && c->fraction <= 1.05);
	}
	for (int i = 0; i < rep.rate_check_count; i++)
		assert_true(rep.rate_checks[i].ok);
}

static void test_sustained(void **state)
{
	(void)state;
	static struct probe_result r;
	size_t len;
	char *text = fixture_text("probe_h200_sustained.json", &len);
	char err[300];
	assert_int_equal(probe_result_from_json(text, len, &r, err, sizeof err), 0);
	free(text);
	static struct probe_report s;
	probe_report_build(&r, test_gpu("h200-sxm"), &s);
	assert_int_equal(s.sustained_count, 2);
	for (int k = 0; k < s.sustained_count; k++) {
		const struct probe_sustained *u = &s.sustained[k];
		double rates[KERN_MAX_REPEATS];
		for (int w = 0; w < u->windows; w++) {
			const struct probe_measurement *m = &r.m[u->first + w];
			assert_true(m->sustained && m->repeats == 1 && strcmp(m->name, u->name) == 0);
			rates[w] = m->work / m->seconds[0];
			assert_true(w == 0 || m->at_s > r.m[u->first + w - 1].at_s);
		}
		int from = u->windows - (u->windows + 2) / 3;
		assert_close(u->settled, median_of(rates + from, u->windows - from), 1e-15);
		assert_close(u->first_rate, rates[0], 1e-15);
		assert_close(u->last_rate, rates[u->windows - 1], 1e-15);
		assert_true(u->burst > 0 && u->clock_first > 0);
	}
	/* Sustained windows are not GEMM sweep points nor headline runs. */
	const struct probe_ceiling *c = probe_report_ceiling(&s, "bf16_matrix");
	assert_non_null(c);
	assert_false(c->from->sustained);
}

static void test_calibration(void **state)
{
	(void)state;
	static struct ridge_gpu g;
	char err[600];
	assert_int_equal(probe_calibration_build(&rep, &g, err, sizeof err), 0);
	assert_true(g.has_kernel_fixed_cost && g.kernel_fixed_cost_s == rep.kernel_fixed.fixed_s);
	assert_true(g.has_gemm_fixed_cost && g.gemm_fixed_cost_s == rep.gemm_fixed.fixed_s);
	bool latency_note = false, sparse_note = false;
	for (int i = 0; i < g.note_count; i++) {
		latency_note = latency_note || strstr(g.notes[i], "measured latency (pointer chase)") != NULL;
		sparse_note = sparse_note || strstr(g.notes[i], "sparse/dense instruction rate") != NULL;
	}
	assert_true(latency_note && sparse_note);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_latency_points), cmocka_unit_test(test_l2_partitions),
		cmocka_unit_test(test_fixed_cost),     cmocka_unit_test(test_rate_checks),
		cmocka_unit_test(test_tensor_kernels), cmocka_unit_test(test_sustained),
		cmocka_unit_test(test_calibration),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
