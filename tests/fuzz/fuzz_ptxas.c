/* libFuzzer harness: the compiler resource-report parsers behind
 * `ridge occupancy --ptxas FILE | --resource-usage FILE`
 * (occupancy_parse_usage: `nvcc -Xptxas -v`, `cuobjdump --dump-resource-usage`,
 * AMD -Rpass-analysis=kernel-resource-usage), then the occupancy of each
 * kernel as ridge occupancy computes it.
 *
 * The first byte picks the format (and whether a 1 KiB driver reserve is
 * subtracted, as for cuobjdump on sm_80+); the rest is the report.
 * Invariants beyond "no crash":
 *   - counting (capacity 0), a short array and a full array agree on the
 *     count and, for the kernels filled, on every field;
 *   - a rejected report has a message; an accepted one has >= 1 kernel, each
 *     with a NUL-terminated name, a line >= 1, and finite sizes;
 *   - occupancy_analyze on each kernel (H100 for NVIDIA reports, MI300X for
 *     AMD) either fails with a message or gives 0 <= occupancy <= 1. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "hwdb.h"
#include "occupancy.h"

static struct hwdb db;
static const struct ridge_gpu *nvidia, *amd;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_open_builtin_hwdb(&db);
	nvidia = &hwdb_find(&db, "h100-sxm")->gpu;
	amd = &hwdb_find(&db, "mi300x")->gpu;
	return 0;
}

static void check_kernel(const struct ridge_kernel_usage *k, bool is_amd)
{
	CHECK(memchr(k->name, '\0', sizeof k->name) != NULL);
	CHECK(memchr(k->arch, '\0', sizeof k->arch) != NULL);
	CHECK(k->line >= 1);
	CHECK(isfinite(k->smem) && isfinite(k->stack));
	CHECK(isfinite(k->spill_stores) && isfinite(k->spill_loads) && isfinite(k->cmem) && isfinite(k->local));
	CHECK(isfinite(k->scratch));

	struct ridge_occupancy_input in;
	occupancy_input_init(&in);
	in.threads_per_block = 256;
	in.regs_per_thread = k->regs;
	in.static_smem = k->smem;
	if (k->barriers >= 0)
		in.barriers = k->barriers;
	if (is_amd) {
		in.agprs = k->agprs > 0 ? k->agprs : 0;
		in.sgprs = k->sgprs > 0 ? k->sgprs : 0;
	}
	struct ridge_occupancy_analysis an;
	char err[512] = "";
	if (occupancy_analyze(is_amd ? amd : nvidia, &in, &an, err, sizeof err) != 0) {
		CHECK(err[0] != '\0');
		return;
	}
	CHECK(an.result.blocks_per_sm >= 0);
	CHECK(isfinite(an.result.occupancy) && an.result.occupancy >= 0 && an.result.occupancy <= 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	enum ridge_usage_format format = (enum ridge_usage_format)(data[0] % 3);
	double reserve = (data[0] & 4) ? 1024 : 0;
	const char *text = (const char *)data + 1;
	size_t len = size - 1;

	int count = -1;
	char err[512] = "";
	int rc = occupancy_parse_usage(text, len, format, reserve, NULL, 0, &count, err, sizeof err);
	if (rc != 0) {
		CHECK(rc == -1 && err[0] != '\0');
		return 0;
	}
	CHECK(count >= 1);
	struct ridge_kernel_usage *all = calloc((size_t)count, sizeof *all);
	struct ridge_kernel_usage *first = calloc(1, sizeof *first);
	CHECK(all && first);
	int count_all = -1, count_first = -1;
	CHECK(occupancy_parse_usage(text, len, format, reserve, all, count, &count_all, err, sizeof err) == 0);
	CHECK(occupancy_parse_usage(text, len, format, reserve, first, 1, &count_first, err, sizeof err) == 0);
	CHECK(count_all == count && count_first == count);
	CHECK(memcmp(first, &all[0], sizeof *first) == 0);
	for (int i = 0; i < count; i++)
		check_kernel(&all[i], format == RIDGE_USAGE_AMD_REMARKS);
	free(first);
	free(all);
	return 0;
}
