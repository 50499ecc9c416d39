/* probe/match.c: the device found in hwdb by its runtime name, and every
 * property it reports compared with the entry. */
#include "test_util.h"

#include <string.h>

#include "probe_fixture.h"
#include "../../probe/match.h"

static void test_match_by_runtime_name(void **state)
{
	(void)state;
	static const struct {
		const char *name, *id;
	} cases[] = {
		{ "NVIDIA H200", "h200-sxm" },           { "nvidia h200", "h200-sxm" },
		{ "NVIDIA H100 80GB HBM3", "h100-sxm" }, { "h100-sxm", "h100-sxm" },
		{ "NVIDIA GeForce GTX 480", NULL },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct kern_device d;
		memset(&d, 0, sizeof d);
		snprintf(d.name, sizeof d.name, "%s", cases[i].name);
		const struct hwdb_entry *e = probe_match(test_hwdb(), &d);
		if (!cases[i].id)
			assert_null(e);
		else if (!e || strcmp(e->gpu.id, cases[i].id) != 0)
			fail_msg("'%s' should match %s", cases[i].name, cases[i].id);
	}
}

static const struct probe_check *find(const struct probe_check *c, int n, const char *field)
{
	for (int i = 0; i < n; i++)
		if (strcmp(c[i].field, field) == 0)
			return &c[i];
	fail_msg("no check of %s", field);
	return NULL;
}

/* The H200 that was measured agrees with h200-sxm on all 16 properties
 * (memory within 10 %: 150.1 GB reported, 141 GB on the datasheet). */
static void test_h200_agrees(void **state)
{
	(void)state;
	const struct probe_result *r = fixture_h200();
	struct probe_check c[PROBE_MAX_CHECKS];
	int n = probe_checks(&r->device, test_gpu("h200-sxm"), c, PROBE_MAX_CHECKS);
	assert_int_equal(n, 16);
	for (int i = 0; i < n; i++)
		if (!c[i].ok)
			fail_msg("%s: %s", c[i].field, c[i].note);
	const struct probe_check *mem = find(c, n, "memory_bytes");
	assert_true(mem->device == 150109880320.0 && mem->hwdb == 141.0 * 1024 * 1024 * 1024); /* hwdb: 141 GiB */
	const struct probe_check *l2 = find(c, n, "l2_bytes");
	assert_true(l2->device == 62914560.0);
}

/* The same device against entries that contradict it: each contradiction
 * is named with both values. */
static void test_contradictions(void **state)
{
	(void)state;
	const struct probe_result *r = fixture_h200();
	/* The H100's entry: 50 MiB of L2, 80 GB, 3.35 TB/s. */
	struct probe_check c[PROBE_MAX_CHECKS];
	int n = probe_checks(&r->device, test_gpu("h100-sxm"), c, PROBE_MAX_CHECKS);
	const char *bad[] = { "l2_bytes", "memory_bytes", "memory_bandwidth" };
	int flagged = 0;
	for (int i = 0; i < n; i++)
		flagged += !c[i].ok;
	assert_int_equal(flagged, 3);
	for (size_t i = 0; i < 3; i++)
		assert_false(find(c, n, bad[i])->ok);
	assert_non_null(strstr(find(c, n, "l2_bytes")->note, "60.0 MiB"));
	assert_non_null(strstr(find(c, n, "l2_bytes")->note, "50.0 MiB"));
	/* A hand-made entry with other SM, shared-memory, register and clock values. */
	struct ridge_gpu g = *test_gpu("h200-sxm");
	g.sm_count = 114;
	g.smem_per_block_optin = 200 * 1024;
	g.regs_per_sm = 32768;
	g.boost_clock_hz = 1755e6;
	g.max_blocks_per_sm = 16;
	n = probe_checks(&r->device, &g, c, PROBE_MAX_CHECKS);
	const char *fields[] = { "sm_count", "smem_per_block_optin", "regs_per_sm", "boost_clock_hz",
				 "max_blocks_per_sm" };
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
		assert_false(find(c, n, fields[i])->ok);
	assert_true(find(c, n, "sm_count")->device == 132 && find(c, n, "sm_count")->hwdb == 114);
	assert_true(find(c, n, "l2_bytes")->ok);
}

/* A value the runtime does not report (0) is not compared. */
static void test_unreported_values_skipped(void **state)
{
	(void)state;
	struct kern_device d = fixture_h200()->device;
	d.max_blocks_per_sm = 0;
	d.bus_width_bits = 0;
	struct probe_check c[PROBE_MAX_CHECKS];
	int n = probe_checks(&d, test_gpu("h200-sxm"), c, PROBE_MAX_CHECKS);
	assert_int_equal(n, 14);
	for (int i = 0; i < n; i++)
		assert_true(strcmp(c[i].field, "max_blocks_per_sm") != 0 &&
			    strcmp(c[i].field, "memory_bandwidth") != 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match_by_runtime_name),
		cmocka_unit_test(test_h200_agrees),
		cmocka_unit_test(test_contradictions),
		cmocka_unit_test(test_unreported_values_skipped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
