/* Regression tests for what tests/fuzz/fuzz_probe_replay.c found in the
 * probe's plain C (the crashing inputs are in tests/fuzz/corpus/probe_replay/). */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../probe/calib.h"
#include "../../probe/result.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invalid_calibration_not_written),
	};
	return cmocka_run_group_tests_name("probe_fuzz_regressions", tests, NULL, NULL);
}
