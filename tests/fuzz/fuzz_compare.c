/* libFuzzer harness: ridge compare's reader (compare_parse, added: the reader
 * on a buffer) and its decision rule, each run against itself.
 *
 * Invariants beyond "no crash" (issue 31): an accepted run has 1 or more
 * series with unique names (no renaming loop: libFuzzer's -timeout), each
 * name one line without a newline, every median and standard deviation
 * finite, stddev >= 0; a run compared with itself is all noise and its
 * deltas 0; a rejection is a usage error or out of memory. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cli.h"
#include "compare.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct compare_run run;
	struct app_status st;
	app_status_init(&st);
	if (compare_parse("fuzz.json", (const char *)data, size, &run, &st) != 0) {
		CHECK(st.exit_code == EXIT_USAGE || st.exit_code == EXIT_ENV);
		return 0;
	}
	CHECK(run.count >= 1 && run.names.count == run.count);
	for (int i = 0; i < run.count; i++) {
		const struct compare_series *s = &run.series[i];
		CHECK(isfinite(s->center) && isfinite(s->stddev) && s->stddev >= 0);
		CHECK(!strchr(s->name, '\n') && name_table_find(&run.names, s->name, strlen(s->name)) == i);
		double delta, fraction;
		CHECK(compare_decide(s, s, 0.03, &delta, &fraction) == COMPARE_NOISE && delta == 0);
	}
	compare_free(&run);
	return 0;
}
