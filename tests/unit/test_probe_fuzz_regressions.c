/* Regression tests for what tests/fuzz/fuzz_probe_replay.c found in the
 * probe's plain C (the crashing inputs are in tests/fuzz/corpus/probe_replay/). */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../probe/calib.h"
#include "../../probe/result.h"
#include "json_check.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *text = malloc((size_t)n + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	text[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return text;
}

/* crash-ca47c7c5: a replayed run whose device reports 4.9e53 bytes of shared
 * memory per block. probe_calibration_write wrote that calibration (replacing
 * whatever file was there), then found it did not load back: --out left a
 * broken file. It now checks the text first and writes nothing. */
static void test_invalid_calibration_not_written(void **state)
{
	(void)state;
	size_t len;
	char *json = slurp(PROBE_FIXTURES "/../fuzz/corpus/probe_replay/crash-ca47c7c5-smem-out-of-range.json", &len);
	static struct probe_result r;
	static struct probe_report rep;
	char err[600] = "";
	if (probe_result_from_json(json, len, &r, err, sizeof err) != 0)
		fail_msg("fixture rejected: %s", err);
	free(json);
	probe_report_build(&r, test_gpu("h200-sxm"), &rep);

	char path[] = "/tmp/ridge-calib-badXXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "previous: 1\n", 12), 12);
	close(fd);
	assert_int_equal(probe_calibration_write(&rep, path, err, sizeof err), -1);
	assert_non_null(strstr(err, "not written: the calibration would not load"));
	assert_non_null(strstr(err, "'shared_memory.per_block' is 4.9188888888888893e+53 B"));
	size_t after_len;
	char *after = slurp(path, &after_len);
	assert_string_equal(after, "previous: 1\n");
	free(after);
	unlink(path);
}

/* crash-ac932fdc: "regs": 3.9e10 in an occupancy row was converted to int:
 * undefined behaviour (UBSan). Every count read into an integer is now
 * range-checked, null included, and the document refused. */
static void test_counts_out_of_range_refused(void **state)
{
	(void)state;
	static struct probe_result r;
	char err[600] = "";
	size_t len;
	char *json = slurp(PROBE_FIXTURES "/../fuzz/corpus/probe_replay/crash-ac932fdc-regs-out-of-range.json", &len);
	assert_int_equal(probe_result_from_json(json, len, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "'regs' in occupancy[3] is out of range (0..2147483647)"));
	free(json);

	/* The same for a device field, a null, and a measurement's shape. */
	static const struct {
		const char *from, *to, *message;
	} edits[] = {
		{ "\"sm_count\":132", "\"sm_count\":1e300", "'sm_count' in device is out of range" },
		{ "\"sm_count\":132", "\"sm_count\":null", "'sm_count' in device is out of range" },
		{ "\"sm_count\":132", "\"sm_count\":-3e9", "'sm_count' in device is out of range" },
		/* Issue 21: the rules of the YAML loader. A count of SMs is >= 1. */
		{ "\"sm_count\":132", "\"sm_count\":-5", "'sm_count' in device is out of range (1..2147483647)" },
		{ "\"sm_count\":132", "\"sm_count\":0", "'sm_count' in device is out of range (1..2147483647)" },
		{ "\"warp_size\":32", "\"warp_size\":-32", "'warp_size' in device is out of range" },
		{ "\"clock_hz\":1980000000", "\"clock_hz\":-1", "'clock_hz' in device must be a finite number >= 0" },
		/* A control byte is no whitespace (cJSON skips any byte <= 0x20). */
		{ "\"sm_count\":132", "\"sm_count\":\x01 132", "not valid JSON: control byte 0x01" },
		/* A key given twice: neither copy is taken. */
		{ "\"sm_count\":132", "\"sm_count\":132, \"sm_count\":8", "'device.sm_count' is given twice" },
		/* A denormal time made "inf EB/s"; a time is positive and normal. */
		{ "\"seconds\":[0.0002680000066757202", "\"seconds\":[1e-320",
		  "'seconds' must be positive, finite times" },
		{ "\"seconds\":[0.0002680000066757202", "\"seconds\":[-0.5",
		  "'seconds' must be positive, finite times" },
	};
	char *seed = slurp(PROBE_FIXTURES "/../fuzz/corpus/probe_replay/probe_h200.json", &len);
	assert_int_equal(probe_result_from_json(seed, len, &r, err, sizeof err), 0);
	for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
		char *at = strstr(seed, edits[i].from);
		assert_non_null(at);
		size_t head = (size_t)(at - seed), n = len - strlen(edits[i].from) + strlen(edits[i].to);
		char *edited = malloc(n + 1);
		assert_non_null(edited);
		snprintf(edited, n + 1, "%.*s%s%s", (int)head, seed, edits[i].to, at + strlen(edits[i].from));
		err[0] = '\0';
		assert_int_equal(probe_result_from_json(edited, n, &r, err, sizeof err), -1);
		if (!strstr(err, edits[i].message))
			fail_msg("edit %zu: '%s' lacks '%s'", i, err, edits[i].message);
		free(edited);
	}
	/* A NUL byte between tokens (cJSON took it for whitespace). */
	char *nul = strstr(seed, "\"sm_count\":132");
	assert_non_null(nul);
	nul[strlen("\"sm_count\":")] = '\0'; /* "sm_count":<NUL>32 */
	err[0] = '\0';
	assert_int_equal(probe_result_from_json(seed, len, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "control byte 0x00"));
	free(seed);
}

/* crash-14119b92 (fuzz_validation): "{}\r;", an empty object, reached
 * qsort(NULL, 0) in the duplicate-key check (util/json_check.c): undefined
 * behaviour under UBSan. Empty objects are checked without sorting. */
static void test_empty_object_duplicate_check(void **state)
{
	(void)state;
	cJSON *doc = cJSON_Parse("{\"a\": {}, \"b\": [{}, {\"c\": 1, \"c\": 2}]}");
	assert_non_null(doc);
	char path[64];
	assert_string_equal(hwdb_json_duplicate(doc, path, sizeof path), "c");
	assert_string_equal(path, "b[1].c");
	cJSON_Delete(doc);
	doc = cJSON_Parse("{}");
	assert_null(hwdb_json_duplicate(doc, path, sizeof path));
	cJSON_Delete(doc);
	static struct probe_result r;
	char err[300];
	assert_int_equal(probe_result_from_json("{}\r;", 4, &r, err, sizeof err), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invalid_calibration_not_written),
		cmocka_unit_test(test_counts_out_of_range_refused),
		cmocka_unit_test(test_empty_object_duplicate_check),
	};
	return cmocka_run_group_tests_name("probe_fuzz_regressions", tests, NULL, NULL);
}
