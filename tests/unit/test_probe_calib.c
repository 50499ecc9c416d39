/* probe/calib.c: the calibration built from the recorded H200 run carries
 * the measured ceilings, loads back through hwdb exactly, and is the file the
 * probe wrote on the H200 itself (tests/fixtures/h200-measured.yaml). */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe_fixture.h"
#include "../../probe/calib.h"

static struct probe_report rep;

static int setup(void **state)
{
	(void)state;
	probe_report_build(fixture_h200(), test_gpu("h200-sxm"), &rep);
	return 0;
}

static double measured(const char *name)
{
	const struct probe_ceiling *c = probe_report_ceiling(&rep, name);
	if (!c)
		fail_msg("no ceiling %s", name);
	return c->measured;
}

static void test_build(void **state)
{
	(void)state;
	static struct ridge_gpu g;
	char err[300];
	assert_int_equal(probe_calibration_build(&rep, &g, err, sizeof err), 0);
	assert_string_equal(g.id, "h200-sxm");
	assert_true(g.measured);
	assert_non_null(strstr(g.measured_on, "NVIDIA H200, driver 580.159.04, SM clock 1980 MHz max"));
	assert_non_null(strstr(g.measured_on, "2026-12-01"));
	assert_true(g.memory_bandwidth == measured("hbm_bandwidth"));
	assert_true(g.has_l2_bandwidth && g.l2_bandwidth == measured("l2_bandwidth"));
	assert_true(g.has_smem_bandwidth && g.smem_bandwidth == measured("smem_bandwidth"));
	/* The HBM bandwidth by read/write mix, each from its own kernel. */
	assert_true(g.has_read_bandwidth && g.read_bandwidth == measured("hbm_read"));
	assert_true(g.has_triad_bandwidth && g.triad_bandwidth == measured("hbm_triad"));
	assert_true(g.has_copy_bandwidth && g.copy_bandwidth == measured("hbm_copy"));
	assert_true(g.has_write_bandwidth && g.write_bandwidth == measured("hbm_write"));
	assert_true(g.copy_bandwidth < g.triad_bandwidth && g.triad_bandwidth < g.read_bandwidth);
	assert_true(g.peak[RIDGE_FP32].vector == measured("fp32_vector"));
	assert_true(g.peak[RIDGE_FP64].vector == measured("fp64_vector"));
	assert_true(g.peak[RIDGE_FP16].vector == measured("fp16_vector"));
	assert_true(g.peak[RIDGE_BF16].matrix == measured("bf16_matrix"));
	assert_true(g.peak[RIDGE_FP16].matrix == measured("fp16_matrix"));
	assert_true(g.peak[RIDGE_TF32].matrix == measured("tf32_matrix"));
	assert_true(g.peak[RIDGE_FP8].matrix == measured("fp8_matrix"));
	/* Sparse rates of measured dtypes are dropped, unmeasured ones stay. */
	assert_false(g.peak[RIDGE_BF16].has_matrix_sparse);
	assert_true(g.peak[RIDGE_INT8].has_matrix_sparse && g.peak[RIDGE_INT8].matrix == 1978.9e12);
	assert_true(g.peak[RIDGE_FP64].matrix == 66.9e12);
	assert_true(g.launch_overhead_s == rep.launch_s[PROBE_LAUNCH]);
	assert_true(g.graph_node_s == rep.launch_s[PROBE_GRAPH_NODE]);
	/* The device's own properties. */
	/* The runtime's total (150109880320 B) is the usable size; the card's
	 * 141 GiB (151397597184 B, hwdb) stays its size. */
	assert_true(g.l2_bytes == 62914560.0 && g.usable_memory_bytes == 150109880320.0 && g.has_usable_memory &&
		    g.memory_bytes == 141.0 * 1024 * 1024 * 1024 && g.sm_count == 132);
}

static void test_write_and_load_back(void **state)
{
	(void)state;
	char path[] = "/tmp/ridge-calib-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	char err[600];
	assert_int_equal(probe_calibration_write(&rep, path, err, sizeof err), 0);
	static struct ridge_gpu built, back, device_file;
	assert_int_equal(probe_calibration_build(&rep, &built, err, sizeof err), 0);
	struct hwdb_diags diags;
	memset(&diags, 0, sizeof diags);
	assert_int_equal(hwdb_load_file(path, &back, &diags), 0);
	/* %.17g: every number comes back bit for bit. */
	assert_true(back.memory_bandwidth == built.memory_bandwidth);
	assert_true(back.l2_bandwidth == built.l2_bandwidth && back.smem_bandwidth == built.smem_bandwidth);
	for (int d = 0; d < RIDGE_DTYPE_COUNT; d++)
		assert_memory_equal(&back.peak[d], &built.peak[d], sizeof built.peak[d]);
	assert_true(back.launch_overhead_s == built.launch_overhead_s && back.graph_node_s == built.graph_node_s);
	assert_string_equal(back.measured_on, built.measured_on);
	/* The file the probe wrote on the H200 from the same run is the same entry. */
	char fixture[1024];
	snprintf(fixture, sizeof fixture, "%s/h200-measured.yaml", PROBE_FIXTURES);
	assert_int_equal(hwdb_load_file(fixture, &device_file, &diags), 0);
	/* Within an ulp or two, not bit for bit: the JSON the replay reads holds
	 * 15 significant digits where cJSON deems them enough (its round-trip
	 * test allows one ulp), so a rate recomputed from it can differ from the
	 * one computed on the device in the last bit. */
	assert_close(device_file.memory_bandwidth, back.memory_bandwidth, 1e-15);
	for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
		const struct ridge_peak *a = &device_file.peak[d], *b = &back.peak[d];
		assert_true(a->has_vector == b->has_vector && a->has_matrix == b->has_matrix &&
			    a->has_matrix_sparse == b->has_matrix_sparse);
		assert_close(a->vector, b->vector, 1e-15);
		/* The device wrote cuBLAS bf16 8192^3 (776.0 TFLOP/s); since issue 34
		 * the ceiling is the best of the run's GEMM shapes: 8192 x 4096 x
		 * 14336 at 794.3 (the other dtypes' best is 8192^3). */
		if (d == RIDGE_BF16)
			assert_true(a->matrix < b->matrix && b->matrix > 794e12 && b->matrix < 795e12);
		else
			assert_close(a->matrix, b->matrix, 1e-15);
		assert_close(a->matrix_sparse, b->matrix_sparse, 1e-15);
	}
	assert_true(device_file.has_kernel_fixed_cost && back.has_kernel_fixed_cost &&
		    device_file.has_gemm_fixed_cost && back.has_gemm_fixed_cost);
	assert_close(device_file.kernel_fixed_cost_s, back.kernel_fixed_cost_s, 1e-14);
	assert_close(device_file.gemm_fixed_cost_s, back.gemm_fixed_cost_s, 1e-14);
	assert_string_equal(device_file.measured_on, back.measured_on);
	/* Loaded as the last layer (--calibration), it replaces the entry. */
	struct hwdb db;
	assert_int_equal(hwdb_open(&db, NULL, &diags), 0);
	assert_int_equal(hwdb_add_file(&db, path, &diags), 0);
	const struct hwdb_entry *e = hwdb_find(&db, "NVIDIA H200");
	assert_non_null(e);
	assert_true(e->gpu.measured && e->gpu.memory_bandwidth == built.memory_bandwidth);
	hwdb_close(&db);
	unlink(path);
}

static void test_refusals(void **state)
{
	(void)state;
	static struct ridge_gpu g;
	char err[300];
	static struct probe_report bare;
	probe_report_build(fixture_h200(), NULL, &bare);
	assert_int_equal(probe_calibration_build(&bare, &g, err, sizeof err), -1);
	assert_non_null(strstr(err, "no hwdb entry has the name or alias 'NVIDIA H200'"));
	/* A run without the memory kernels cannot make a calibration. */
	static struct probe_result partial;
	partial = *fixture_h200();
	for (int i = 0; i < partial.count; i++)
		if (partial.m[i].id <= KERN_READ_WIDE)
			partial.m[i].ok = false;
	static struct probe_report no_hbm;
	probe_report_build(&partial, test_gpu("h200-sxm"), &no_hbm);
	assert_int_equal(probe_calibration_build(&no_hbm, &g, err, sizeof err), -1);
	assert_non_null(strstr(err, "no memory bandwidth was measured"));
	/* An unwritable path: an error, and nothing left behind. */
	assert_int_equal(probe_calibration_write(&rep, "/nonexistent-dir/cal.yaml", err, sizeof err), -1);
	assert_true(access("/nonexistent-dir/cal.yaml", F_OK) != 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_write_and_load_back),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
