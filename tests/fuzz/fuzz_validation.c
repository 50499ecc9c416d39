/* libFuzzer harness: the validation-JSON loader behind
 * `ridge roofline --validation FILE` (roofline_validation_check, added: the
 * loader on a buffer): every case's fields, dtype, ceiling on the GPU, and the
 * points placed (intensity, achieved and predicted FLOP/s, error).
 *
 * Invariants beyond "no crash": the result is "placed" (>= 1 case) or a
 * usage error, nothing else; the loader refuses any case whose numbers
 * overflow (checked inside: it is where inf would otherwise be printed).
 * Ridge's error messages are silenced with -close_fd_mask=2. */
#include <stdint.h>
#include <stdlib.h>

#include "cli.h"
#include "fuzz.h"
#include "roofline_validation.h"

static struct hwdb db;
static const struct ridge_gpu *gpu;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_open_builtin_hwdb(&db);
	gpu = &hwdb_find(&db, "h200-sxm")->gpu;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int count = -1;
	struct app_status st;
	app_status_init(&st);
	int rc = roofline_validation_check("fuzz.json", (const char *)data, size, gpu, &count, &st);
	CHECK(rc == EXIT_OK || rc == EXIT_USAGE);
	if (rc == EXIT_OK)
		CHECK(count >= 1);
	return 0;
}
