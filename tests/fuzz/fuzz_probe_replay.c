/* libFuzzer harness: what `ridge-probe --replay FILE` reads (a saved --json
 * document: probe_result_from_json), then everything replay derives from it:
 * the hwdb match, the report (text and JSON) and the calibration --out would
 * write.
 *
 * Invariants beyond "no crash":
 *   - a rejected document has a message;
 *   - the calibration built from an accepted one, written as hwdb YAML,
 *     loads back through the hwdb loader, or else --out refuses to write it
 *     and leaves no file: a calibration ridge-probe writes must be one ridge
 *     can read. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../probe/calib.h"
#include "../../probe/result.h"
#include "fuzz.h"
#include "hwdb.h"
#include "json_check.h"

static struct hwdb db;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_open_builtin_hwdb(&db);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct probe_result r;
	static struct probe_report rep;
	memset(&r, 0, sizeof r);
	char err[600] = "";
	if (probe_result_from_json((const char *)data, size, &r, err, sizeof err) != 0) {
		CHECK(err[0] != '\0');
		return 0;
	}
	/* Issue 21: an accepted document holds what the YAML loader would
	 * accept (a positive SM count and warp, finite rates: "-5 SMs" and a
	 * denormal time's "inf EB/s" were taken), and had no control byte
	 * between its tokens. */
	CHECK(r.device.sm_count >= 1 && r.device.warp_size >= 1);
	for (int i = 0; i < r.count; i++) {
		CHECK(isfinite(r.m[i].rate));
		for (int k = 0; k < r.m[i].repeats; k++)
			CHECK(isfinite(r.m[i].seconds[k]) && r.m[i].seconds[k] >= DBL_MIN);
	}
	size_t bad;
	CHECK(!hwdb_json_bad_byte((const char *)data, size, &bad));
	const struct hwdb_entry *e = probe_match(&db, &r.device);
	probe_report_build(&r, e ? &e->gpu : NULL, &rep);

	FILE *sink = fopen("/dev/null", "w");
	CHECK(sink);
	probe_report_text(&rep, sink);
	fclose(sink);
	cJSON_Delete(probe_report_json(&rep));

	if (!e)
		return 0;
	static struct ridge_gpu cal, back;
	if (probe_calibration_build(&rep, &cal, err, sizeof err) != 0) {
		CHECK(err[0] != '\0');
		return 0;
	}
	char *yaml = NULL;
	size_t len = 0;
	CHECK(hwdb_format(&cal, &yaml, &len) == 0);
	struct hwdb_diags diags = { 0 };
	int rc = hwdb_parse("calibration.yaml", yaml, len, &back, &diags);
	free(yaml);
	if (rc != 0) {
		/* A run whose device properties are out of the schema's range
		 * builds a calibration that cannot load: --out must refuse it
		 * and leave no file (crash-ca47c7c5). */
		char path[64];
		snprintf(path, sizeof path, "/tmp/ridge-fuzz-cal-%d.yaml", (int)getpid());
		unlink(path);
		CHECK(probe_calibration_write(&rep, path, err, sizeof err) == -1);
		CHECK(strstr(err, "not written") != NULL);
		CHECK(access(path, F_OK) != 0);
	}
	return 0;
}
