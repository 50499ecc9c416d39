/* probe/report.c and probe/result.c on the run recorded on an H200: every
 * derived number is recomputed here from the raw times, the JSON carries the
 * keys docs/cli.md fixes, and JSON -> result -> JSON loses nothing. */
#include "test_util.h"

#include <math.h>
#include <string.h>

#include "probe_fixture.h"
#include "../../probe/report.h"

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* work / median(seconds), computed independently of probe/stats.c. */
static double rate_of(const struct probe_measurement *m)
{
	double t[KERN_MAX_REPEATS];
	memcpy(t, m->seconds, sizeof t);
	qsort(t, (size_t)m->repeats, sizeof t[0], cmp);
	int n = m->repeats;
	double med = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
	return kern_id_is_launch(m->id) ? med : m->work / med;
}

static struct probe_report rep;

static const struct probe_ceiling *ceiling(const char *name)
{
	const struct probe_ceiling *c = probe_report_ceiling(&rep, name);
	if (!c)
		fail_msg("no ceiling '%s'", name);
	return c;
}

static int setup(void **state)
{
	(void)state;
	probe_report_build(fixture_h200(), test_gpu("h200-sxm"), &rep);
	return 0;
}

static void test_ceilings_from_raw_times(void **state)
{
	(void)state;
	const struct probe_result *r = fixture_h200();
	static const struct {
		const char *ceiling, *measurement;
		double spec;
	} table[] = {
		{ "hbm_copy", "copy", 4.8e12 },           { "hbm_triad", "triad", 4.8e12 },
		{ "hbm_read", "read", 4.8e12 },           { "hbm_write", "write", 4.8e12 },
		{ "hbm_read_wide", "read_wide", 4.8e12 }, { "fp32_vector", "fma_fp32", 66.9e12 },
		{ "fp64_vector", "fma_fp64", 33.5e12 },   { "fp16_vector", "fma_fp16x2", 133.8e12 },
		{ "bf16_mma", "mma_bf16", 989.4e12 },     { "bf16_wgmma", "wgmma_bf16", 989.4e12 },
		{ "fp16_matrix", "gemm_fp16", 989.4e12 }, { "tf32_matrix", "gemm_tf32", 494.7e12 },
		{ "fp32_gemm", "gemm_fp32", 66.9e12 },    { "fp8_matrix", "gemm_fp8", 1978.9e12 },
	};
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
		const struct probe_ceiling *c = ceiling(table[i].ceiling);
		const struct probe_measurement *m = fixture_measurement(r, table[i].measurement);
		assert_true(m->ok);
		assert_close(c->measured, rate_of(m), 1e-15);
		assert_true(c->has_spec);
		assert_close(c->spec, table[i].spec, 1e-12);
		assert_close(c->fraction, c->measured / c->spec, 1e-15);
		assert_int_equal(c->repeats, m->repeats);
		assert_close(c->cv, m->stats.cv, 1e-15);
		assert_true(c->clock_mhz > 0); /* NVML was read on the H200 */
	}
	/* The best HBM kernel is the largest of the four. */
	double best = 0;
	const char *names[] = { "copy", "triad", "read", "write", "read_wide" };
	for (int i = 0; i < 5; i++) {
		double v = rate_of(fixture_measurement(r, names[i]));
		if (v > best)
			best = v;
	}
	assert_close(ceiling("hbm_bandwidth")->measured, best, 1e-15);
	/* A library GEMM ceiling is the best of the run's GEMMs of its kind
	 * (headline and sweep; issue 34): cuBLAS bf16 8192^3 ran at 776 TFLOP/s,
	 * 8192 x 4096 x 14336 (long K) at 794.3, the best of 14 shapes. */
	const struct probe_ceiling *bf16 = ceiling("bf16_matrix");
	const struct probe_measurement *top = NULL;
	int shapes = 0;
	for (int i = 0; i < r->count; i++)
		if (r->m[i].id == KERN_GEMM_BF16 && r->m[i].ok && !r->m[i].validation && !r->m[i].sustained) {
			shapes++;
			if (!top || rate_of(&r->m[i]) > rate_of(top))
				top = &r->m[i];
		}
	assert_close(bf16->measured, rate_of(top), 1e-15);
	assert_true(bf16->measured > rate_of(fixture_measurement(r, "gemm_bf16")));
	assert_true(bf16->shapes == shapes && shapes == 14);
	assert_true(bf16->shape_m == 8192 && bf16->shape_n == 4096 && bf16->shape_k == 14336);
	static const char method[] = "best of 14 shapes: 8192x4096x14336 at 794.3 TFLOP/s; 8192x8192x8192: 776.0;";
	assert_true(strncmp(bf16->method, method, strlen(method)) == 0);
	/* Shared memory: 128 B/clk x 132 SMs x 1980 MHz when hwdb has no figure. */
	assert_close(ceiling("smem_bandwidth")->spec, 128.0 * 132 * 1980e6, 1e-15);
	/* L2 has no published figure: no spec, no fraction. */
	assert_false(ceiling("l2_bandwidth")->has_spec);
}

/* What the H200 run achieved against the targets set for it (the fixture's
 * record, read through the report code). */
static void test_h200_record(void **state)
{
	(void)state;
	assert_true(ceiling("hbm_bandwidth")->measured >= 4.4e12);
	/* Issue 19's targets: copy >= 4.15, triad >= 4.30 TB/s (one float4 per thread, 2 GiB arrays). */
	assert_true(ceiling("hbm_copy")->measured >= 4.15e12);
	assert_true(ceiling("hbm_triad")->measured >= 4.30e12);
	assert_true(ceiling("fp32_vector")->measured >= 63e12);
	/* cuBLAS bf16 8192^3: 776 TFLOP/s in this run at 1920 MHz (804-812 in the
	 * runs of 2026-11-30, another machine): under the 780 aimed at then; the
	 * ceiling, the top shape of the sweep, 794.3. */
	assert_true(ceiling("bf16_matrix")->measured >= 790e12);
	assert_true(ceiling("fp8_matrix")->measured >= 1.2e15);
	assert_true(ceiling("bf16_wgmma")->fraction >= 0.85);
	assert_true(rep.has_launch[PROBE_GRAPH_NODE] && rep.launch_cv[PROBE_GRAPH_NODE] <= 0.05);
	assert_int_equal(rep.failures, 0);
	/* ridge's occupancy model agrees with every runtime answer. */
	assert_int_equal(rep.occupancy_compared, 2439);
	assert_int_equal(rep.occupancy_agree, 2439);
	assert_int_equal(rep.occupancy_disagree_count, 0);
	/* The 8-load variant with the L2::256B hint lost to the plain read. */
	assert_true(ceiling("hbm_read_wide")->measured < ceiling("hbm_read")->measured);
	/* No ceiling and no launch cost above 5 % CV in this run (launch 3.8 %). */
	assert_int_equal(rep.high_cv, 0);
	assert_true(rep.launch_cv[PROBE_LAUNCH] < 0.05);
}

static void test_ridge_points_and_launch(void **state)
{
	(void)state;
	const struct probe_result *r = fixture_h200();
	double hbm = ceiling("hbm_bandwidth")->measured;
	int seen = 0;
	for (int i = 0; i < rep.ridge_count; i++) {
		const struct probe_ridge *p = &rep.ridge[i];
		const char *name = p->dtype == RIDGE_BF16   ? "bf16_matrix"
				   : p->dtype == RIDGE_FP32 ? "fp32_vector"
							    : NULL;
		if (!name)
			continue;
		seen++;
		assert_true(p->has_spec && p->has_measured);
		assert_close(p->measured, ceiling(name)->measured / hbm, 1e-15);
		assert_close(p->spec, (p->dtype == RIDGE_BF16 ? 989.4e12 : 66.9e12) / 4.8e12, 1e-12);
	}
	assert_int_equal(seen, 2);
	assert_close(rep.launch_s[PROBE_LAUNCH], rate_of(fixture_measurement(r, "launch")), 1e-15);
	assert_close(rep.launch_s[PROBE_GRAPH_NODE], rate_of(fixture_measurement(r, "graph_node")), 1e-15);
}

static const cJSON *get(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v)
		fail_msg("missing JSON key '%s'", key);
	return v;
}

static void test_json_keys(void **state)
{
	(void)state;
	cJSON *doc = probe_report_json(&rep);
	const cJSON *dev = get(doc, "device");
	assert_string_equal(get(dev, "name")->valuestring, "NVIDIA H200");
	assert_string_equal(get(dev, "hwdb_id")->valuestring, "h200-sxm");
	assert_int_equal(get(dev, "sm_count")->valueint, 132);
	assert_true(get(dev, "clock_mhz")->valuedouble == 1980);
	const cJSON *c, *ceilings = get(doc, "ceilings");
	assert_int_equal(cJSON_GetArraySize(ceilings), rep.ceiling_count);
	cJSON_ArrayForEach (c, ceilings) {
		static const char *keys[] = { "name",   "unit",    "spec", "measured", "fraction_of_spec",
					      "method", "repeats", "cv" };
		for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
			get(c, keys[i]);
		assert_true(cJSON_IsNumber(get(c, "measured")));
	}
	const cJSON *ridge = get(doc, "ridge_point");
	static const char *dtypes[] = { "fp64", "fp32", "tf32", "bf16", "fp16", "fp8" };
	for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++) {
		const cJSON *o = get(ridge, dtypes[i]);
		assert_true(cJSON_IsNumber(get(o, "spec")) && cJSON_IsNumber(get(o, "measured")));
	}
	const cJSON *launch = get(doc, "launch");
	assert_close(get(launch, "launch_us")->valuedouble, rep.launch_s[PROBE_LAUNCH] * 1e6, 1e-15);
	assert_true(cJSON_IsNumber(get(launch, "launch_sync_us")));
	assert_true(cJSON_IsNumber(get(launch, "graph_node_us")));
	assert_true(cJSON_GetArraySize(get(doc, "checks")) == 16);
	assert_true(cJSON_GetArraySize(get(doc, "occupancy")) == 2439);
	assert_int_equal(get(get(doc, "occupancy_model"), "agree")->valueint, 2439);
	/* The issue-19 sections. */
	assert_true(cJSON_IsArray(get(get(doc, "latency"), "points")));
	assert_true(cJSON_IsObject(get(get(doc, "latency"), "l2_partitions")));
	assert_true(cJSON_IsNumber(get(get(get(doc, "fixed_cost"), "kernel"), "seconds")));
	assert_true(cJSON_IsNumber(get(get(get(doc, "fixed_cost"), "gemm"), "seconds")));
	assert_true(cJSON_IsArray(get(doc, "sustained")) && cJSON_IsArray(get(doc, "rate_checks")));
	assert_true(cJSON_IsObject(get(launch, "min_us")) && cJSON_IsObject(get(launch, "max_us")));
	cJSON_Delete(doc);
}

/* JSON -> result -> JSON -> result: the same measurements, to the last bit. */
static void test_round_trip(void **state)
{
	(void)state;
	const struct probe_result *r = fixture_h200();
	cJSON *doc = probe_report_json(&rep);
	char *text = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	static struct probe_result back;
	char err[300];
	assert_int_equal(probe_result_from_json(text, strlen(text), &back, err, sizeof err), 0);
	free(text);
	assert_int_equal(back.count, r->count);
	assert_int_equal(back.occupancy_count, r->occupancy_count);
	assert_string_equal(back.device.name, r->device.name);
	assert_string_equal(back.driver, r->driver);
	for (int i = 0; i < r->count; i++) {
		assert_string_equal(back.m[i].name, r->m[i].name);
		assert_int_equal(back.m[i].repeats, r->m[i].repeats);
		assert_memory_equal(back.m[i].seconds, r->m[i].seconds, sizeof r->m[i].seconds[0] * r->m[i].repeats);
		assert_true(back.m[i].work == r->m[i].work && back.m[i].bytes == r->m[i].bytes);
		assert_true(back.m[i].rate == r->m[i].rate);
	}
	assert_memory_equal(back.occupancy, r->occupancy, sizeof r->occupancy[0] * r->occupancy_count);
}

static void test_bad_documents(void **state)
{
	(void)state;
	static struct probe_result r;
	char err[300];
	static const struct {
		const char *text, *message;
	} cases[] = {
		{ "{\n\"tool\": \"ridge-probe\",\n  oops", "line 3: not valid JSON" },
		{ "{\"tool\": \"ridge\"}", "not a ridge-probe --json document" },
		{ "{\"tool\": \"ridge-probe\", \"version\": \"0.1.0\", \"date\": \"x\"}", "missing key 'device'" },
		{ "{\"tool\": \"ridge-probe\", \"version\": \"0.1.0\", \"date\": \"x\", \"device\": {\"name\": 3}}",
		  "'name' in device is not a string" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_int_equal(probe_result_from_json(cases[i].text, strlen(cases[i].text), &r, err, sizeof err), -1);
		if (!strstr(err, cases[i].message))
			fail_msg("case %zu: '%s' does not say '%s'", i, err, cases[i].message);
	}
	/* An unknown measurement name. */
	size_t len;
	char *text = fixture_text("probe_h200.json", &len);
	char *at = strstr(text, "\"graph_launch\"");
	assert_non_null(at);
	memcpy(at, "\"graph_lunch\" ", 14);
	assert_int_equal(probe_result_from_json(text, len, &r, err, sizeof err), -1);
	free(text);
	if (!strstr(err, "unknown measurement 'graph_lunch'"))
		fail_msg("unexpected error: %s", err);
}

/* Without an hwdb entry there is no spec column and nothing to check. */
static void test_no_hwdb_entry(void **state)
{
	(void)state;
	static struct probe_report bare;
	probe_report_build(fixture_h200(), NULL, &bare);
	assert_int_equal(bare.check_count, 0);
	assert_true(bare.ceiling_count == rep.ceiling_count);
	for (int i = 0; i < bare.ceiling_count; i++)
		assert_false(bare.ceilings[i].has_spec);
	cJSON *doc = probe_report_json(&bare);
	assert_true(cJSON_IsNull(get(get(doc, "device"), "hwdb_id")));
	cJSON_Delete(doc);
}

/* The L2 sweep's points wrap six to a line; a comma ends a line, never
 * starts the next (tests/fixtures/probe_h200.txt is the whole text). */
static void test_sweep_lines(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	assert_non_null(f);
	probe_report_text(&rep, f);
	fclose(f);
	const char *sweep = strstr(buf, "\nL2 sweep: ");
	assert_non_null(sweep);
	int point_lines = 0;
	for (const char *line = strchr(sweep + 1, '\n') + 1; strncmp(line, "  ", 2) == 0;
	     line = strchr(line, '\n') + 1) {
		assert_true(line[2] != ',');
		point_lines++;
	}
	assert_true(point_lines >= 2);
	assert_null(strstr(buf, "\n  , "));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ceilings_from_raw_times),
		cmocka_unit_test(test_h200_record),
		cmocka_unit_test(test_ridge_points_and_launch),
		cmocka_unit_test(test_json_keys),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_bad_documents),
		cmocka_unit_test(test_no_hwdb_entry),
		cmocka_unit_test(test_sweep_lines),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
