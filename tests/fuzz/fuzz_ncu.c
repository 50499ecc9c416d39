/* libFuzzer harness: the Nsight Compute CSV parser behind
 * `ridge roofline --ncu FILE` (ncu_parse: the long "details" layout and the
 * wide "--page raw" layout), and the per-kernel counts the roofline places.
 *
 * Invariants beyond "no crash":
 *   - a rejected file has a message; an accepted one has >= 1 kernel with a
 *     NUL-terminated id and name and a line >= 1;
 *   - every count read is finite and not negative, and so are the derived
 *     FLOPs (vector, tensor, total) and DRAM bytes: an overflowing sum must be
 *     refused by the parser, not passed on as inf. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "ncu.h"

static void check_count(bool has, double v)
{
	if (has)
		CHECK(isfinite(v) && v >= 0);
}

static void check_kernel(const struct ncu_kernel *k)
{
	CHECK(memchr(k->id, '\0', sizeof k->id) != NULL);
	CHECK(memchr(k->name, '\0', sizeof k->name) != NULL);
	CHECK(k->line >= 1);
	check_count(k->has_time, k->time_s);
	check_count(k->has_dram_read, k->dram_read);
	check_count(k->has_dram_write, k->dram_write);
	check_count(k->has_dram_total, k->dram_total);
	check_count(k->has_l2, k->l2_bytes);
	for (int p = 0; p < NCU_PRECISIONS; p++) {
		for (int o = 0; o < NCU_OPS; o++)
			check_count(k->has_sass[p][o], k->sass[p][o]);
		double v = ncu_vector_flops(k, p);
		CHECK(isfinite(v) && v >= 0);
	}
	for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
		check_count(k->has_tensor_plain[d], k->tensor_plain[d]);
		check_count(k->has_tensor_dst[d], k->tensor_dst[d]);
		double t = ncu_tensor_flops(k, (enum ridge_dtype)d);
		CHECK(isfinite(t) && t >= 0);
	}
	CHECK(isfinite(k->tensor_instructions) && k->tensor_instructions >= 0);
	double flops = ncu_flops(k);
	CHECK(isfinite(flops) && flops >= 0);
	double bytes;
	if (ncu_dram_bytes(k, &bytes))
		CHECK(isfinite(bytes) && bytes >= 0);
	enum ridge_dtype dtype;
	bool matrix;
	if (ncu_dominant(k, &dtype, &matrix))
		CHECK((int)dtype >= 0 && dtype < RIDGE_DTYPE_COUNT);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ncu_report report;
	char err[512] = "";
	if (ncu_parse("fuzz.csv", (const char *)data, size, &report, err, sizeof err) != 0) {
		CHECK(err[0] != '\0');
		return 0;
	}
	CHECK(report.count >= 1);
	for (int i = 0; i < report.count; i++)
		check_kernel(&report.kernels[i]);
	ncu_free(&report);
	return 0;
}
