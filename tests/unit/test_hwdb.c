/* The hwdb loader: every shipped entry loads; broken entries are rejected
 * with the right file:line:column message; calibrations round-trip. */
#include "test_util.h"
#include "schema_fill.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A minimal valid NVIDIA entry; line numbers below refer to this text. */
static const char base[] =
	"schema: 1\n"                                                      /* 1 */
	"id: test-gpu\n"                                                   /* 2 */
	"name: Test GPU\n"                                                 /* 3 */
	"vendor: nvidia\n"                                                 /* 4 */
	"arch: hopper\n"                                                   /* 5 */
	"compute_capability: \"9.0\"\n"                                    /* 6 */
	"aliases: [\"NVIDIA Test\"]\n"                                     /* 7 */
	"sm_count: 132\n"                                                  /* 8 */
	"warp_size: 32\n"                                                  /* 9 */
	"clocks:\n"                                                        /* 10 */
	"  boost: 1980 MHz\n"                                              /* 11 */
	"  matrix_peak: 1830 MHz\n"                                        /* 12 */
	"  vector_peak: 1980 MHz\n"                                        /* 13 */
	"peak_flops:\n"                                                    /* 14 */
	"  fp32: {vector: 66.9 TFLOP/s}\n"                                 /* 15 */
	"  bf16: {matrix: 989.4 TFLOP/s, matrix_sparse: 1978.9 TFLOP/s}\n" /* 16 */
	"memory:\n"                                                        /* 17 */
	"  size: 80 GB\n"                                                  /* 18 */
	"  bandwidth: 3.35 TB/s\n"                                         /* 19 */
	"cache:\n"                                                         /* 20 */
	"  l2: 50 MiB\n"                                                   /* 21 */
	"shared_memory:\n"                                                 /* 22 */
	"  per_sm: 228 KiB\n"                                              /* 23 */
	"  per_block: 48 KiB\n"                                            /* 24 */
	"  per_block_optin: 227 KiB\n"                                     /* 25 */
	"  reserved_per_block: 1 KiB\n"                                    /* 26 */
	"  alloc_unit: 128 B\n"                                            /* 27 */
	"  carveout_sizes: [0 KiB, 8 KiB, 16 KiB, 32 KiB, 64 KiB, 100 KiB, 132 KiB, 164 KiB, 196 KiB, 228 KiB]\n" /* 28 */
	"registers:\n"                    /* 29 */
	"  per_sm: 65536\n"               /* 30 */
	"  per_block: 65536\n"            /* 31 */
	"  per_thread_max: 255\n"         /* 32 */
	"  alloc_unit: 256\n"             /* 33 */
	"limits:\n"                       /* 34 */
	"  threads_per_sm: 2048\n"        /* 35 */
	"  threads_per_block: 1024\n"     /* 36 */
	"  warps_per_sm: 64\n"            /* 37 */
	"  blocks_per_sm: 32\n"           /* 38 */
	"  sub_partitions: 4\n"           /* 39 */
	"  barriers_per_block_slot: 2\n"  /* 40 */
	"  virtual_resources_per_sm: 0\n" /* 41 */
	"power:\n"                        /* 42 */
	"  tdp: 700 W\n"                  /* 43 */
	"launch:\n"                       /* 44 */
	"  overhead: 5 us\n"              /* 45 */
	"  graph_node: 0.5 us\n"          /* 46 */
	"sources: [\"a datasheet\"]\n";   /* 47 */

/* base with the first occurrence of `from` replaced by `to`. */
static char *mutate(const char *from, const char *to)
{
	const char *at = strstr(base, from);
	if (!at)
		fail_msg("test bug: '%s' not in the base entry", from);
	size_t n = strlen(base) - strlen(from) + strlen(to) + 1;
	char *out = malloc(n);
	assert_non_null(out);
	size_t head = (size_t)(at - base);
	memcpy(out, base, head);
	strcpy(out + head, to);
	strcat(out, at + strlen(from));
	return out;
}

/* Parses text and expects its first diagnostic, formatted, to be `want`. */
static void expect_first_diag(const char *text, size_t len, const char *want)
{
	struct ridge_gpu gpu;
	struct hwdb_diags diags = { 0 };
	int rc = hwdb_parse("t.yaml", text, len, &gpu, &diags);
	if (rc == 0 || diags.count == 0)
		fail_msg("expected a diagnostic '%s', got none", want);
	char got[1024];
	hwdb_diag_format(&diags.items[0], got, sizeof got);
	if (strcmp(got, want) != 0)
		fail_msg("\n   got: %s\nwanted: %s", got, want);
}

static void expect_mutation(const char *from, const char *to, const char *want)
{
	char *text = mutate(from, to);
	expect_first_diag(text, strlen(text), want);
	free(text);
}

static void test_base_entry_is_valid(void **state)
{
	(void)state;
	struct ridge_gpu gpu;
	struct hwdb_diags diags = { 0 };
	int rc = hwdb_parse("t.yaml", base, strlen(base), &gpu, &diags);
	if (rc != 0) {
		char line[1024];
		hwdb_diag_format(&diags.items[0], line, sizeof line);
		fail_msg("base entry rejected: %s", line);
	}
	assert_string_equal(gpu.id, "test-gpu");
	assert_int_equal(gpu.sm_count, 132);
	assert_true(gpu.smem_per_sm == 233472.0);
	assert_true(gpu.memory_bandwidth == 3.35e12);
	assert_true(gpu.peak[RIDGE_BF16].has_matrix && gpu.peak[RIDGE_BF16].matrix == 989.4e12);
	assert_false(gpu.peak[RIDGE_BF16].has_vector);
	assert_false(gpu.peak[RIDGE_FP8].has_matrix);
	assert_int_equal(gpu.nv.carveout_count, 10);
	assert_true(gpu.launch_overhead_s == 5e-6);
	assert_int_equal(gpu.cc_major, 9);
}

/* Each kind of broken entry, with the exact message it must produce. */
static void test_broken_entries(void **state)
{
	(void)state;
	/* missing required fields */
	expect_mutation("sm_count: 132\n", "", "t.yaml:1:1: missing required key 'sm_count'");
	expect_mutation("  boost: 1980 MHz\n", "", "t.yaml:11:3: missing required key 'clocks.boost'");
	/* wrong type */
	expect_mutation("sm_count: 132", "sm_count: many", "t.yaml:8:11: 'sm_count' must be an integer, not 'many'");
	expect_mutation("sm_count: 132", "sm_count: 132.5", "t.yaml:8:11: 'sm_count' must be an integer, not '132.5'");
	expect_mutation("clocks:\n", "clocks: fast\nx:\n", "t.yaml:10:9: 'clocks' must be a mapping, not a scalar");
	expect_mutation("aliases: [\"NVIDIA Test\"]", "aliases: NVIDIA Test",
			"t.yaml:7:10: 'aliases' must be a list, not a scalar");
	/* negative, zero, NaN, huge */
	expect_mutation("3.35 TB/s", "-3.35 TB/s",
			"t.yaml:19:14: 'memory.bandwidth' is -3.35 TB/s, outside 1e+10 B/s..1e+14 B/s");
	/* a measured mix above the ceiling */
	expect_mutation("  bandwidth: 3.35 TB/s\n", "  bandwidth: 3.35 TB/s\n  copy_bandwidth: 3.4 TB/s\n",
			"t.yaml:20:19: memory.copy_bandwidth is above memory.bandwidth, the ceiling");
	expect_mutation("sm_count: 132", "sm_count: 0", "t.yaml:8:11: 'sm_count' is 0, outside 1..4096");
	expect_mutation("66.9 TFLOP/s", ".nan TFLOP/s",
			"t.yaml:15:18: 'peak_flops.fp32.vector': not a number: '.nan TFLOP/s'");
	expect_mutation("  l2: 50 MiB", "  l2: 1e300 B",
			"t.yaml:21:7: 'cache.l2' is 1e300 B, outside 65536 B..4e+09 B");
	expect_mutation("  l2: 50 MiB", "  l2: 1e999 B", "t.yaml:21:7: 'cache.l2': number too large: '1e999 B'");
	/* units: unknown, wrong kind, missing */
	expect_mutation(
		"80 GB", "80 furlongs",
		"t.yaml:18:9: 'memory.size': unknown unit in '80 furlongs' (expected B, with an optional K M G T P or Ki Mi Gi Ti prefix)");
	expect_mutation(
		"3.35 TB/s", "3.35 TB",
		"t.yaml:19:14: 'memory.bandwidth': unknown unit in '3.35 TB' (expected B/s, with an optional K M G T P or Ki Mi Gi Ti prefix)");
	expect_mutation("  tdp: 700 W", "  tdp: 700", "t.yaml:43:8: 'power.tdp': '700' has no unit (expected W)");
	expect_mutation("5 us", "5 MHz",
			"t.yaml:45:13: 'launch.overhead': unknown unit in '5 MHz' (expected s, ms, us or ns)");
	/* unknown and duplicate keys */
	expect_mutation(
		"warp_size: 32\n", "warp_size: 32\nwarp_sise: 32\n",
		"t.yaml:10:1: unknown key 'warp_sise' (known: schema, id, name, vendor, arch, compute_capability, aliases, "
		"sm_count, warp_size, clocks, peak_flops, memory, cache, shared_memory, registers, limits, power, "
		"interconnect, launch, timing, price, sources, notes, measured)");
	expect_mutation("warp_size: 32\n", "warp_size: 32\nsm_count: 130\n",
			"t.yaml:10:1: duplicate key 'sm_count' (first at line 8)");
	expect_mutation("  fp32: {vector", "  fp33: {vector",
			"t.yaml:15:3: unknown dtype 'peak_flops.fp33' (known: fp64 fp32 tf32 bf16 fp16 fp8 int8 fp4)");
	expect_mutation("  fp32: {vector", "  fp32: {vectr",
			"t.yaml:15:10: unknown key 'peak_flops.fp32.vectr' (known: vector, matrix, matrix_sparse)");
	/* vendor-specific keys and values */
	expect_mutation("arch: hopper\n", "arch: hopper\ngfx_target: gfx942\n",
			"t.yaml:6:1: key 'gfx_target' does not apply to nvidia entries");
	expect_mutation("vendor: nvidia", "vendor: intel",
			"t.yaml:4:9: 'vendor' must be 'nvidia' or 'amd', not 'intel'");
	expect_mutation("\"9.0\"", "nine", "t.yaml:6:21: 'compute_capability' must look like \"9.0\", not 'nine'");
	expect_mutation("schema: 1", "schema: 2",
			"t.yaml:1:9: unsupported schema version 2 (this ridge reads schema 1)");
	expect_mutation("id: test-gpu", "id:", "t.yaml:2:4: 'id' has no value");
	/* plausibility */
	expect_mutation(
		"1978.9 TFLOP/s", "1000 TFLOP/s",
		"t.yaml:16:48: peak_flops.bf16.matrix_sparse is not 2x the dense rate (2:4 sparsity doubles it)");
	expect_mutation("  threads_per_sm: 2048", "  threads_per_sm: 1536",
			"t.yaml:35:19: limits.threads_per_sm 1536 is not warps_per_sm 64 x warp_size 32");
	expect_mutation("196 KiB, 228 KiB]", "228 KiB, 196 KiB]",
			"t.yaml:28:19: shared_memory.carveout_sizes must be ascending");
	expect_mutation("id: test-gpu", "id: Test_GPU",
			"t.yaml:2:5: id 'Test_GPU' must be lowercase letters, digits and '-'");
}

/* hw check against the runtime calculator's per-compute-capability table
 * (cuda_occupancy.h: blocks/SM l.739, barrier limit l.1603, smem granularity
 * l.620, carveout sizes l.804; the 1 KiB reserve from 8.0) and against
 * SMs x clock x FLOP/clk/SM (Hopper: 256 FP32 FLOP/clk/SM: 132 x 1.98 GHz x
 * 256 = 66.9 TFLOP/s). The planted entries must all fail. */
static void test_architecture_checks(void **state)
{
	(void)state;
	/* H100 with fp32 at 669 TFLOP/s (a factor of 10). */
	expect_mutation(
		"fp32: {vector: 66.9 TFLOP/s}", "fp32: {vector: 669 TFLOP/s}",
		"t.yaml:15:18: peak_flops.fp32.vector 669 TFLOP/s is not 132 SMs x clock x the architecture's 256 "
		"FLOP/clk per SM (nearest 66.9082 TFLOP/s; NVIDIA H100 Tensor Core GPU architecture whitepaper; "
		"tolerance 5%)");
	/* Within 5% passes (datasheets round: 66.9 vs 66.908). */
	char *near = mutate("fp32: {vector: 66.9 TFLOP/s}", "fp32: {vector: 68 TFLOP/s}");
	struct ridge_gpu gpu;
	struct hwdb_diags diags = { 0 };
	assert_int_equal(hwdb_parse("t.yaml", near, strlen(near), &gpu, &diags), 0);
	free(near);
	/* An sm_90 entry with 24 block slots. */
	expect_mutation("  blocks_per_sm: 32", "  blocks_per_sm: 24",
			"t.yaml:38:18: limits.blocks_per_sm is 24; compute capability 9.0 has 32 "
			"(cudaOccMaxBlocksPerMultiprocessor)");
	/* No barrier limit on sm_90. */
	expect_mutation("  barriers_per_block_slot: 2", "  barriers_per_block_slot: 0",
			"t.yaml:40:28: limits.barriers_per_block_slot is 0; compute capability 9.0 has 2 "
			"(cudaOccMaxBlocksPerSMBlockBarrierLimit (from 9.0))");
	expect_mutation("  alloc_unit: 128 B", "  alloc_unit: 256 B",
			"t.yaml:27:15: shared_memory.alloc_unit is 256; compute capability 9.0 has 128 "
			"(cudaOccSMemAllocationGranularity)");
	expect_mutation("  reserved_per_block: 1 KiB", "  reserved_per_block: 0 B",
			"t.yaml:26:23: shared_memory.reserved_per_block is 0; compute capability 9.0 has 1024 "
			"(reservedSharedMemPerBlock, 1 KiB from 8.0)");
	expect_mutation(", 196 KiB, 228 KiB]", ", 228 KiB]",
			"t.yaml:28:19: shared_memory.carveout_sizes differ from compute capability 9.0's legal sizes "
			"[0, 8, 16, 32, 64, 100, 132, 164, 196, 228] KiB (cudaOccAlignUpShmemSizeVoltaPlus)");
	expect_mutation("\"9.0\"", "\"6.1\"",
			"t.yaml: compute capability 6.1 is not in cuda_occupancy.h's table (7.0 to 12.1)");
	/* The sm_120 entry: 32 block slots and no barrier limit. */
	const struct ridge_gpu *rtx = test_gpu("rtx-5090");
	assert_int_equal(rtx->max_blocks_per_sm, 24);
	assert_int_equal(rtx->nv.barriers_per_block_slot, 1);
}

static void test_not_an_entry(void **state)
{
	(void)state;
	expect_first_diag("", 0, "t.yaml:1:1: empty file: expected a hwdb entry (a YAML mapping)");
	expect_first_diag("# only a comment\n", 17, "t.yaml:1:1: empty file: expected a hwdb entry (a YAML mapping)");
	expect_first_diag("- a\n- b\n", 8,
			  "t.yaml:1:1: the top level must be a mapping of keys (id, name, ...), not a list");
	expect_first_diag("id: [unclosed\n", 14,
			  "t.yaml:2:1: invalid YAML: did not find expected ',' or ']' while parsing a flow sequence");
	expect_first_diag("id: x\n  bad: indent\n", 20,
			  "t.yaml:2:6: invalid YAML: mapping values are not allowed in this context");
	static const char garbage[] = { 'i', 'd', ':', ' ', 'x', '\n', (char)0xff, (char)0xfe, 0x01, 0x00, 'z' };
	expect_first_diag(garbage, sizeof garbage, "t.yaml:2:4: binary data (a NUL byte): not a YAML file");
	static const char control[] = "id: x\nname: \x01\x02\n";
	expect_first_diag(control, sizeof control - 1, "t.yaml:2:7: invalid YAML: control characters are not allowed");
}

static void test_every_builtin_entry_loads(void **state)
{
	(void)state;
	assert_true(hwdb_builtin_count() >= 1);
	for (int i = 0; i < hwdb_builtin_count(); i++) {
		size_t len;
		const char *text = hwdb_builtin_text(i, &len);
		struct ridge_gpu gpu;
		struct hwdb_diags diags = { 0 };
		if (hwdb_parse(hwdb_builtin_name(i), text, len, &gpu, &diags) != 0) {
			char line[1024];
			hwdb_diag_format(&diags.items[0], line, sizeof line);
			fail_msg("%s", line);
		}
		assert_true(gpu.source_count > 0);
	}
}

static void test_seed_headline_numbers(void **state)
{
	(void)state;
	const struct ridge_gpu *h100 = test_gpu("h100-sxm");
	assert_int_equal(h100->sm_count, 132);
	assert_int_equal(h100->warp_size, 32);
	assert_true(h100->memory_bandwidth == 3.35e12);
	double bf16 = 0;
	assert_true(ridge_gpu_peak(h100, RIDGE_BF16, RIDGE_PEAK_DEFAULT, false, &bf16, NULL));
	assert_true(bf16 == 989.4e12);
	/* aliases resolve, case-insensitively */
	assert_ptr_equal(test_gpu("NVIDIA H100 80GB HBM3"), h100);
	assert_ptr_equal(test_gpu("H100-SXM"), h100);
}

static void test_calibration_round_trip(void **state)
{
	(void)state;
	struct ridge_gpu gpu = *test_gpu("h100-sxm");
	gpu.measured = true;
	snprintf(gpu.measured_on, sizeof gpu.measured_on, "NVIDIA \"H100\" \\ driver 580, 1980 MHz, 2026-11-30");
	gpu.memory_bandwidth = 3.1234567890123e12;
	gpu.has_l2_bandwidth = true;
	gpu.l2_bandwidth = 9.87654321e12;
	gpu.has_triad_bandwidth = true;
	gpu.triad_bandwidth = 2.9876543210987e12;
	gpu.has_copy_bandwidth = true;
	gpu.copy_bandwidth = 2.7654321098765e12;
	gpu.launch_overhead_s = 2.345e-6;
	/* the serving keys a calibration copies from its entry */
	gpu.has_framework_overhead = true;
	gpu.framework_overhead_s = 2.857e-5;
	snprintf(gpu.framework_source, sizeof gpu.framework_source, "PyTorch \"eager\"");
	gpu.has_sustained_matrix = true;
	gpu.sustained_matrix_fraction = 0.8706;
	gpu.burst_time_s = 0.0373;
	snprintf(gpu.power_source, sizeof gpu.power_source, "ridge-probe --sustained");
	gpu.timing[RIDGE_SLOT_ATTENTION_PER_HEAD].has_cta_bandwidth = true;
	gpu.timing[RIDGE_SLOT_ATTENTION_PER_HEAD].cta_bandwidth = 3.932e10;
	snprintf(gpu.timing[RIDGE_SLOT_ATTENTION_PER_HEAD].value[RIDGE_TIMING_CTA].source,
		 sizeof gpu.timing[RIDGE_SLOT_ATTENTION_PER_HEAD].value[RIDGE_TIMING_CTA].source,
		 "decode_step.py's slope");
	char path[] = "/tmp/ridge-test-calXXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	char err[256];
	assert_int_equal(hwdb_write_file(path, &gpu, err, sizeof err), 0);
	struct ridge_gpu back;
	struct hwdb_diags diags = { 0 };
	int rc = hwdb_load_file(path, &back, &diags);
	if (rc != 0) {
		char line[1024];
		hwdb_diag_format(&diags.items[0], line, sizeof line);
		unlink(path);
		fail_msg("calibration does not load back: %s", line);
	}
	unlink(path);
	assert_true(back.measured);
	assert_string_equal(back.measured_on, gpu.measured_on);
	assert_true(back.memory_bandwidth == gpu.memory_bandwidth);
	assert_true(back.l2_bandwidth == gpu.l2_bandwidth);
	assert_true(back.has_triad_bandwidth && back.triad_bandwidth == gpu.triad_bandwidth);
	assert_true(back.has_copy_bandwidth && back.copy_bandwidth == gpu.copy_bandwidth);
	assert_false(back.has_read_bandwidth || back.has_write_bandwidth);
	assert_true(back.launch_overhead_s == gpu.launch_overhead_s);
	assert_true(back.peak[RIDGE_BF16].matrix == gpu.peak[RIDGE_BF16].matrix);
	assert_int_equal(back.nv.carveout_count, gpu.nv.carveout_count);
	assert_int_equal(back.source_count, gpu.source_count);
	assert_true(back.has_framework_overhead && back.framework_overhead_s == gpu.framework_overhead_s);
	assert_string_equal(back.framework_source, gpu.framework_source);
	assert_true(back.has_sustained_matrix && back.sustained_matrix_fraction == 0.8706 &&
		    back.burst_time_s == 0.0373);
	assert_string_equal(back.power_source, gpu.power_source);
	/* written without power.provenance: a calibration measured it */
	assert_string_equal(back.power_provenance, "measured");
	assert_true(back.timing[RIDGE_SLOT_ATTENTION_PER_HEAD].has_cta_bandwidth &&
		    back.timing[RIDGE_SLOT_ATTENTION_PER_HEAD].cta_bandwidth == 3.932e10);
	assert_false(back.timing[RIDGE_SLOT_GEMM].has_cta_bandwidth);
}

/* Compares every row of rows between what was written and what was read. */
static void expect_rows_equal(const struct ridge_gpu *want, const struct ridge_gpu *got, const struct hwdb_field *rows,
			      const char *prefix)
{
	for (const struct hwdb_field *row = rows; row->key; row++) {
		if (!(row->allowed & hwdb_vendor_bit(want)))
			continue;
		char path[128];
		snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "", row->key);
		const char *a = row->offset == HWDB_NO_OFFSET ? NULL : (const char *)want + row->offset;
		const char *b = row->offset == HWDB_NO_OFFSET ? NULL : (const char *)got + row->offset;
		if (row->has_offset != HWDB_NO_OFFSET && *(const bool *)((const char *)got + row->has_offset) !=
								 *(const bool *)((const char *)want + row->has_offset))
			fail_msg("%s: has_ differs after write -> read", path);
		bool same = true;
		switch (row->type) {
		case HWDB_STR:
			same = strcmp(a, b) == 0;
			break;
		case HWDB_INT:
			same = *(const int *)a == *(const int *)b;
			break;
		case HWDB_QTY:
			same = *(const double *)a == *(const double *)b;
			break;
		case HWDB_BOOL:
			same = *(const bool *)a == *(const bool *)b;
			break;
		case HWDB_STRLIST:
		case HWDB_QTYLIST: {
			int n = hwdb_field_count(want, row);
			same = n == hwdb_field_count(got, row);
			for (int i = 0; same && i < n; i++)
				same = row->type == HWDB_STRLIST ? strcmp(hwdb_field_item(want, row, i),
									  hwdb_field_item(got, row, i)) == 0
								 : ((const double *)a)[i] == ((const double *)b)[i];
			break;
		}
		case HWDB_MAP:
			expect_rows_equal(want, got, row->children, path);
			break;
		case HWDB_MEASURED:
			same = got->measured == want->measured && strcmp(got->measured_on, want->measured_on) == 0;
			break;
		case HWDB_PEAKS:
			same = memcmp(got->peak, want->peak, sizeof want->peak) == 0;
			break;
		case HWDB_CC:
			same = got->cc_major == want->cc_major && got->cc_minor == want->cc_minor;
			break;
		case HWDB_VENDOR:
			same = got->vendor == want->vendor;
			break;
		case HWDB_SCHEMA:
			break;
		}
		if (!same)
			fail_msg("%s differs after write -> read", path);
	}
}

/* Every row of the schema table, given a value, is written by hwdb_format
 * and read back by hwdb_parse unchanged: a row added to the table is
 * covered here without a line of this test changing. The values are in
 * range but not plausible together, so the cross-field checks may complain;
 * what must not appear is an unknown, duplicate or missing key. */
static void test_every_field_round_trips(void **state)
{
	(void)state;
	static const char *const ids[] = { "h100-sxm", "mi300x" };
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		struct ridge_gpu gpu, back;
		test_fill_every_field(ids[i], &gpu);
		char *text;
		size_t len;
		assert_int_equal(hwdb_format(&gpu, &text, &len), 0);
		struct hwdb_diags diags = { 0 };
		hwdb_parse("filled.yaml", text, len, &back, &diags);
		free(text);
		for (int d = 0; d < diags.count; d++) {
			const char *m = diags.items[d].message;
			if (strstr(m, "unknown key") || strstr(m, "duplicate key") ||
			    strstr(m, "missing required key") || strstr(m, "must be") || strstr(m, "outside"))
				fail_msg("%s: the written entry reads back with '%s'", ids[i], m);
		}
		expect_rows_equal(&gpu, &back, hwdb_schema, "");
	}
}

static void test_write_failure_keeps_old_file(void **state)
{
	(void)state;
	char err[256] = "";
	const struct ridge_gpu *gpu = test_gpu("h100-sxm");
	assert_int_equal(hwdb_write_file("/nonexistent-dir/x.yaml", gpu, err, sizeof err), -1);
	assert_non_null(strstr(err, "/nonexistent-dir/x.yaml"));
}

static void test_suggestions(void **state)
{
	(void)state;
	struct hwdb db;
	struct hwdb_diags diags = { 0 };
	assert_int_equal(hwdb_open(&db, NULL, &diags), 0);
	const char *ids[3];
	int n = hwdb_suggest(&db, "h100", ids, 2);
	assert_int_equal(n, 2);
	/* Both H100 entries contain "h100": they come before b200 (edit distance 2). */
	assert_true(strncmp(ids[0], "h100-", 5) == 0 && strncmp(ids[1], "h100-", 5) == 0);
	n = hwdb_suggest(&db, "h10-sxm", ids, 1);
	assert_int_equal(n, 1);
	assert_string_equal(ids[0], "h100-sxm");
	hwdb_close(&db);
}

/* Memory capacities are the cards' binary sizes, and the driver's total
 * where it is known (hwdb entries' sources): an H100 80GB is 80 x 2^30 =
 * 85,899,345,920 B with 81559 MiB = 85,520,809,984 B usable; the H200's
 * "141 GB" is 141 GiB (the driver's 143771 MiB would not fit in 141e9 B); the
 * MI300X 192 GiB with rocm-smi's 205,822,885,888 B. */
static void test_memory_capacities(void **state)
{
	(void)state;
	const struct ridge_gpu *h100 = test_gpu("h100-sxm");
	assert_true(h100->memory_bytes == 85899345920.0);
	assert_true(h100->has_usable_memory && h100->usable_memory_bytes == 81559.0 * 1048576);
	assert_true(ridge_gpu_usable_memory(h100) == 85520809984.0);
	const struct ridge_gpu *h200 = test_gpu("h200-sxm");
	assert_true(h200->memory_bytes == 141.0 * 1073741824);
	assert_true(h200->usable_memory_bytes == 143771.0 * 1048576);
	assert_true(h200->usable_memory_bytes > 141e9);
	const struct ridge_gpu *mi300x = test_gpu("mi300x");
	assert_true(mi300x->memory_bytes == 192.0 * 1073741824);
	assert_true(mi300x->usable_memory_bytes == 205822885888.0);
	/* an entry without a driver total: the size is what fits checks use */
	const struct ridge_gpu *v100 = test_gpu("v100-sxm2");
	assert_false(v100->has_usable_memory);
	assert_true(ridge_gpu_usable_memory(v100) == 32.0 * 1073741824);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base_entry_is_valid),
		cmocka_unit_test(test_memory_capacities),
		cmocka_unit_test(test_broken_entries),
		cmocka_unit_test(test_architecture_checks),
		cmocka_unit_test(test_not_an_entry),
		cmocka_unit_test(test_every_builtin_entry_loads),
		cmocka_unit_test(test_seed_headline_numbers),
		cmocka_unit_test(test_calibration_round_trip),
		cmocka_unit_test(test_every_field_round_trips),
		cmocka_unit_test(test_write_failure_keeps_old_file),
		cmocka_unit_test(test_suggestions),
	};
	return cmocka_run_group_tests_name("hwdb", tests, NULL, NULL);
}
