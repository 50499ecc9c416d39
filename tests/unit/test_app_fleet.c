/* ridge fleet, below the command line: model/fleet.c's percentiles, MAD
 * and shortfall on exact small cases; app/read/fleet_read.c on a real H200
 * result and on what it must refuse; app/calc/fleet_calc.c's flags and node
 * view on a fleet built in memory. */
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_calc.h"
#include "status.h"

static void test_percentiles(void **state)
{
	(void)state;
	/* numpy.percentile(..., method="linear") on the same values. */
	static const double v[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	assert_close(ridge_percentile_sorted(v, 10, 0), 1, 1e-15);
	assert_close(ridge_percentile_sorted(v, 10, 5), 1.45, 1e-15);
	assert_close(ridge_percentile_sorted(v, 10, 50), 5.5, 1e-15);
	assert_close(ridge_percentile_sorted(v, 10, 95), 9.55, 1e-15);
	assert_close(ridge_percentile_sorted(v, 10, 100), 10, 1e-15);
	static const double one[] = { 4.2 };
	assert_close(ridge_percentile_sorted(one, 1, 5), 4.2, 1e-15);
	assert_true(isnan(ridge_percentile_sorted(v, 0, 50)));
	assert_true(isnan(ridge_percentile_sorted(v, 10, -1)));
	assert_true(isnan(ridge_percentile_sorted(v, 10, 100.5)));
}

static void test_spread(void **state)
{
	(void)state;
	double values[] = { 10, 1, 4, 2, 3, 100 }, scratch[6];
	struct ridge_spread s;
	assert_int_equal(ridge_spread_compute(values, scratch, 6, &s), 0);
	/* sorted 1 2 3 4 10 100: median 3.5; |v - 3.5| = 2.5 1.5 .5 .5 6.5 96.5: MAD 2 */
	assert_int_equal((int)s.count, 6);
	assert_close(s.median, 3.5, 1e-15);
	assert_close(s.mad, 2, 1e-15);
	assert_close(s.min, 1, 1e-15);
	assert_close(s.max, 100, 1e-15);
	assert_close(s.p5, 1.25, 1e-15);  /* rank 0.25 */
	assert_close(s.p95, 77.5, 1e-15); /* rank 4.75: 10 + 0.75 x 90 */
	double bad[] = { 1, NAN };
	assert_int_equal(ridge_spread_compute(bad, scratch, 2, &s), -1);
	assert_int_equal(ridge_spread_compute(values, scratch, 0, &s), -1);
}

static void test_shortfall_and_flag(void **state)
{
	(void)state;
	assert_close(ridge_shortfall(4.6, 5.0, RIDGE_HIGHER_IS_BETTER), 0.08, 1e-12);
	assert_close(ridge_shortfall(5.4, 5.0, RIDGE_HIGHER_IS_BETTER), -0.08, 1e-12);
	assert_close(ridge_shortfall(5.4, 5.0, RIDGE_LOWER_IS_BETTER), 0.08, 1e-12);
	assert_true(ridge_shortfall(1, 2, RIDGE_NO_DIRECTION) == 0);
	assert_true(isnan(ridge_shortfall(1, 0, RIDGE_HIGHER_IS_BETTER)));
	/* At the threshold exactly: flagged (4.6 of 5.0 is 8 %, however it rounds). */
	assert_true(ridge_fleet_flagged(4.6, 5.0, RIDGE_HIGHER_IS_BETTER, 0.08));
	assert_false(ridge_fleet_flagged(4.61, 5.0, RIDGE_HIGHER_IS_BETTER, 0.08));
	assert_true(ridge_fleet_flagged(4.75, 5.0, RIDGE_HIGHER_IS_BETTER, 0.05));
	assert_false(ridge_fleet_flagged(4.76, 5.0, RIDGE_HIGHER_IS_BETTER, 0.05));
	assert_true(ridge_fleet_flagged(5.25, 5.0, RIDGE_LOWER_IS_BETTER, 0.05));
	assert_false(ridge_fleet_flagged(4.0, 5.0, RIDGE_LOWER_IS_BETTER, 0.05)); /* faster is never flagged */
	assert_false(ridge_fleet_flagged(1.0, 5.0, RIDGE_NO_DIRECTION, 0.05));
}

static char *read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *text = malloc((size_t)n + 1);
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	text[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return text;
}

/* The H200 result as the probe wrote it: every measured ceiling, at its value. */
static void test_parse_h200(void **state)
{
	(void)state;
	size_t len;
	char *text = read_text("tests/fixtures/probe_h200.json", &len);
	static struct fleet_run run;
	static struct fleet_gpu gpu;
	memset(&run, 0, sizeof run);
	char why[400] = "";
	if (fleet_result_parse(text, len, "node12-gpu5.json", &run, &gpu, why, sizeof why) != 0)
		fail_msg("%s", why);
	assert_string_equal(gpu.model, "h200-sxm");
	assert_string_equal(gpu.device_name, "NVIDIA H200");
	assert_true(gpu.known_model);
	assert_string_equal(gpu.host, "node12"); /* from the file name: no placement in it */
	assert_int_equal(gpu.gpu_index, 5);
	assert_string_equal(gpu.version, "0.1.0");
	int hbm = fleet_metric_find(&run, "hbm_bandwidth");
	assert_true(hbm >= 0);
	assert_close(gpu.value[hbm], 4594450162362.378, 1e-15);
	assert_close(gpu.spec[hbm], 4.8e12, 1e-15);
	int launch = fleet_metric_find(&run, "launch");
	assert_close(gpu.value[launch], 4.33487000000099e-6, 1e-12);
	assert_int_equal(run.metrics[launch].direction, RIDGE_LOWER_IS_BETTER);
	assert_close(gpu.value[fleet_metric_find(&run, "latency_hbm")], 3.4706494140625e-07, 1e-15);
	assert_close(gpu.value[fleet_metric_find(&run, "sm_clock")], 1.98e9, 1e-12);
	assert_int_equal(run.metrics[fleet_metric_find(&run, "power")].direction, RIDGE_NO_DIRECTION);
	/* 25 ceilings measured, sm_clock, power, launch, graph_node, 4 latencies. */
	assert_int_equal(run.metric_count, 33);
	free(text);
}

static void test_parse_refuses(void **state)
{
	(void)state;
	static const struct {
		const char *text, *why;
	} cases[] = {
		{ "", "not a JSON object" },
		{ "[]", "not a JSON object" },
		{ "{}", "an empty object, not a ridge-probe result" },
		{ "{\"tool\": \"ridge-probe\"", "',' or '}' must follow" },
		{ "{\"tool\": \"ridge-probe\", \"tool\": \"x\"}", "the key 'tool' is given twice" },
		{ "{\"tool\": \"ridge-probe\", \"version\": \"1\", \"device\": {\"name\": \"x\"}}", "no \"ceilings\"" },
		{ "{\"tool\": \"ridge-probe\", \"version\": \"1\", \"device\": {\"name\": \"x\"}, \"ceilings\": [1,]}",
		  "\"ceilings\" is not valid JSON" },
		{ "{\"tool\": \"ridge-probe\", \"version\": \"1\", \"device\": {\"name\": \"x\"}, \"ceilings\": []}",
		  "no measured ceiling" },
		{ "{\"tool\": \"ridge-probe\", \"version\": \"1\", \"device\": {\"name\": \"x\"}, \"ceilings\": "
		  "[{\"name\": \"a\", \"unit\": \"B/s\", \"measured\": -1}]}",
		  "'a' is not a finite number >= 0" },
		{ "{\"tool\": \"ridge-probe\", \"version\": \"1\", \"device\": {\"name\": \"x\"}, \"ceilings\": "
		  "[{\"name\": \"a\", \"unit\": \"B/s\", \"measured\": 1}, {\"name\": \"a\", \"unit\": \"B/s\", "
		  "\"measured\": 2}]}",
		  "the ceiling 'a' is given twice" },
		{ "{\"tool\": \"ridge-probe\", \"x\": [1, {\"a\": \"b\"]]}", "a ']' that closes nothing" },
		{ "{\"tool\": \"ridge-probe\", \"x\": \"a\x01\"}", "a control byte (0x01) in a string" },
		{ "{\"tool\": \"ridge-probe\", \"x\": [\x02]}", "a control byte (0x02) at byte" },
		{ "{\"tool\": \"ridge-probe\"} x", "text after the document" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		static struct fleet_run run;
		static struct fleet_gpu gpu;
		memset(&run, 0, sizeof run);
		char why[400] = "";
		assert_int_equal(
			fleet_result_parse(cases[i].text, strlen(cases[i].text), "f.json", &run, &gpu, why, sizeof why),
			-1);
		if (!strstr(why, cases[i].why))
			fail_msg("case %zu: '%s' lacks '%s'", i, why, cases[i].why);
	}
}

/* A fleet of two hosts of three GPUs: one GPU 8 % short on HBM, host b 10 %
 * short on FP32 on every GPU; rates otherwise equal. */
static void test_analysis(void **state)
{
	(void)state;
	static struct fleet_run run;
	memset(&run, 0, sizeof run);
	run.dir = "mem";
	run.metric_count = 3;
	snprintf(run.metrics[0].name, FLEET_NAME, "hbm");
	snprintf(run.metrics[0].unit, 16, "B/s");
	run.metrics[0].direction = RIDGE_HIGHER_IS_BETTER;
	snprintf(run.metrics[1].name, FLEET_NAME, "fp32");
	snprintf(run.metrics[1].unit, 16, "FLOP/s");
	run.metrics[1].direction = RIDGE_HIGHER_IS_BETTER;
	snprintf(run.metrics[2].name, FLEET_NAME, "latency");
	snprintf(run.metrics[2].unit, 16, "s");
	run.metrics[2].direction = RIDGE_LOWER_IS_BETTER;
	struct fleet_gpu gpus[6];
	memset(gpus, 0, sizeof gpus);
	for (int i = 0; i < 6; i++) {
		struct fleet_gpu *g = &gpus[i];
		const char *host = i < 3 ? "a" : "b";
		snprintf(g->host, sizeof g->host, "%s", host);
		g->gpu_index = i % 3;
		snprintf(g->file, sizeof g->file, "%s-gpu%d.json", host, g->gpu_index);
		snprintf(g->model, sizeof g->model, "h200-sxm");
		snprintf(g->version, sizeof g->version, "0.1.0");
		g->known_model = true;
		for (int m = 0; m < FLEET_MAX_METRICS; m++)
			g->value[m] = g->spec[m] = NAN;
		g->value[0] = i == 1 ? 4.6 : 5.0;
		g->spec[0] = 5.0;
		g->value[1] = i >= 3 ? 90 : 100;
		g->value[2] = 1.0;
	}
	run.gpus = gpus;
	run.count = 6;
	struct fleet_options options = { .threshold = 0.05 };
	struct fleet_analysis a;
	struct app_status st;
	app_status_init(&st);
	assert_int_equal(fleet_analyze(&run, &options, &a, &st), 0);
	assert_int_equal(a.group_count, 1);
	const struct fleet_group *g = &a.groups[0];
	assert_int_equal(g->gpu_count, 6);
	assert_int_equal(g->host_count, 2);
	/* fp32: 90 90 90 100 100 100, median 95: host b is 5.26 % short, flagged at 5 %. */
	assert_close(g->stats[1].spread.median, 95, 1e-15);
	assert_int_equal(g->stats[1].flagged, 3);
	assert_int_equal(g->stats[0].flagged, 1);
	assert_int_equal(g->stats[2].flagged, 0);
	assert_int_equal(a.flagged_gpus, 4);
	assert_int_equal(a.flagged_nodes, 1);
	assert_string_equal(g->nodes[0].host, "b");
	assert_int_equal(g->nodes[0].metric_count, 1);
	assert_int_equal(g->nodes[0].metrics[0], 1);
	assert_close(g->nodes[0].shortfall[0], 5.0 / 95, 1e-12);
	fleet_analysis_free(&a);
	/* At 6 %, only the HBM GPU; with a spec floor of 95 % (4.75), the same GPU by the spec too. */
	options.threshold = 0.06;
	options.spec_floor = 0.95;
	assert_int_equal(fleet_analyze(&run, &options, &a, &st), 0);
	assert_int_equal(a.flagged_gpus, 1);
	assert_int_equal(a.flagged_nodes, 0);
	assert_true(a.groups[0].flags[0].below_median && a.groups[0].flags[0].below_spec);
	fleet_analysis_free(&a);
	/* --metric names what the results hold. */
	options.metric = "fp33";
	assert_int_equal(fleet_analyze(&run, &options, &a, &st), -1);
	assert_non_null(strstr(st.msgs[0].text, "no ceiling 'fp33' in the results (they have: hbm fp32 latency)"));
	fleet_analysis_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentiles),        cmocka_unit_test(test_spread),
		cmocka_unit_test(test_shortfall_and_flag), cmocka_unit_test(test_parse_h200),
		cmocka_unit_test(test_parse_refuses),      cmocka_unit_test(test_analysis),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
