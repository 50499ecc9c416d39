/* libFuzzer harness: the nsys SQLite reader behind `ridge trace FILE.sqlite`
 * (trace_load on a scratch file: SQLite reads files, not buffers), then the
 * summary.
 *
 * Invariants beyond "no crash" (issue 31): an accepted export has kernels,
 * each ending no earlier than it starts; every name one line of valid UTF-8;
 * every summary time finite and >= 0; a rejection is a usage error or out
 * of memory; and the input file is left as it was, with no -wal or -shm
 * beside it (read-only, immutable). libFuzzer's -timeout catches a query
 * that the step budget does not bound. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "fuzz.h"
#include "trace.h"

static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(path, sizeof path, "/tmp/ridge-fuzz-trace-%ld.sqlite", (long)getpid());
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	CHECK(f && fwrite(data, 1, size, f) == size && fclose(f) == 0);
	struct trace t;
	struct app_status st;
	app_status_init(&st);
	int rc = trace_load(path, &t, NULL, &st);
	char side[80];
	struct stat sb;
	snprintf(side, sizeof side, "%s-wal", path);
	CHECK(stat(side, &sb) != 0);
	snprintf(side, sizeof side, "%s-shm", path);
	CHECK(stat(side, &sb) != 0);
	CHECK(stat(path, &sb) == 0 && (size_t)sb.st_size == size);
	if (rc != 0) {
		CHECK(st.exit_code == EXIT_USAGE || st.exit_code == EXIT_ENV);
		return 0;
	}
	CHECK(t.kernel_count >= 1);
	for (int i = 0; i < t.kernel_count; i++)
		CHECK(t.kernels[i].end_ns >= t.kernels[i].start_ns);
	struct trace_summary s;
	if (trace_summarize(&t, &s) == 0) {
		CHECK(isfinite(s.span_s) && s.span_s >= 0 && isfinite(s.busy_s) && s.busy_s >= 0);
		CHECK(isfinite(s.kernel_s) && s.busy_s <= s.kernel_s * (1 + 1e-12));
		for (int i = 0; i < s.group_count; i++)
			CHECK(!strchr(s.groups[i].name, '\n'));
		trace_summary_free(&s);
	}
	trace_free(&t);
	return 0;
}
