/* libFuzzer harness: ridge calibrate's timings reader
 * (calibrate_timings_check, added: the reader on a buffer).
 *
 * Invariants beyond "no crash" (issue 31): the strict reader's verdict is
 * the only way in (a duplicate key or trailing text never passes); an
 * accepted file has 1 to READ_MAX_TIMINGS_CASES cases; a rejection is a
 * usage error or out of memory. */
#include <stdint.h>

#include "calibrate_calc.h"
#include "cli.h"
#include "fuzz.h"
#include "read_limits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct app_status st;
	app_status_init(&st);
	int cases = -1;
	if (calibrate_timings_check("fuzz.json", (const char *)data, size, &cases, &st) != 0) {
		CHECK(st.exit_code == EXIT_USAGE || st.exit_code == EXIT_ENV);
		return 0;
	}
	CHECK(cases >= 1 && cases <= READ_MAX_TIMINGS_CASES);
	return 0;
}
