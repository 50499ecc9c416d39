/* Occupancy model: the textbook's worked examples (and where the textbook is wrong),
 * each resource limit, the AMD rules, and the compiler-report parsers. Every
 * expected number is worked by hand in the comment beside it. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct nv_case {
	const char *name;
	const char *gpu;
	int threads, regs;
	double static_smem, dynamic_smem;
	int carveout;
	bool optin;
	int barriers;
	/* expected */
	int blocks, active_warps;
	double occupancy;
	enum ridge_occupancy_limiter limiter;
	int warps, registers, shared_memory, barrier_limit;
};

#define UNL RIDGE_OCC_UNLIMITED

static const struct nv_case nv_cases[] = {
	/* The textbook's §7.1.4: 256 thr, 32 regs, 32 KB static on H100.
     * smem: 32768 + 1024 reserve = 33792; 233472 / 33792 = 6.9 -> 6 blocks,
     * 48 of 64 warps = 75% (the chapter's 87.5% forgets the reserve).
     * regs: 32 x 32 = 1024 per warp; 16384 / 1024 = 16 warps per SMSP, x4 = 64 / 8 = 8. */
	{ "textbook A (H100)", "h100-sxm", 256, 32, 32768, 0, -1, false, 1, 6, 48, 0.75, RIDGE_OCC_SHARED_MEMORY, 8, 8,
	  6, 64 },
	/* The textbook's review question 1: 48 regs, 48 KB, 256 thr.
     * regs: 1536 per warp; 16384 / 1536 = 10 per SMSP -> 40 / 8 = 5.
     * smem: 50176; 233472 / 50176 = 4.65 -> 4 blocks = 32 warps = 50%. */
	{ "textbook review Q1 (H100)", "h100-sxm", 256, 48, 49152, 0, -1, false, 1, 4, 32, 0.5, RIDGE_OCC_SHARED_MEMORY,
	  8, 5, 4, 64 },
	/* Same kernels on the H200 (same GH100 SM, same numbers). */
	{ "textbook A (H200)", "h200-sxm", 256, 32, 32768, 0, -1, false, 1, 6, 48, 0.75, RIDGE_OCC_SHARED_MEMORY, 8, 8,
	  6, 64 },
	/* sm_80 (Kokkos #5739): 92 regs x 224 threads. 92 x 32 = 2944 -> 3072
     * per warp; 16384 / 3072 = 5 warps per SMSP -> 20 / 7 warps = 2 blocks
     * (the naive 65536 / (92 x 224) = 3.2 says 3). smem: 1024 reserve only:
     * 167936 / 1024 = 164. warps: 64 / 7 = 9. */
	{ "sm_80 92 regs x 224", "a100-sxm-80gb", 224, 92, 0, 0, -1, false, 1, 2, 14, 14.0 / 64, RIDGE_OCC_REGISTERS, 9,
	  2, 164, UNL },
	/* The hardware check: 800 threads = 25 warps x 80 regs (2560 per warp) =
     * 64000 <= 65536, but the check rounds warps up to 28 (4 sub-partitions):
     * 71680 > 65536 -> cannot launch. */
	{ "register hardware check", "h100-sxm", 800, 80, 0, 0, -1, false, 1, 0, 0, 0, RIDGE_OCC_REGISTERS, 2, 0, 228,
	  64 },
	/* 1024 x 64 regs: 2048 per warp x 32 warps = 65536 fits exactly: 16384 /
     * 2048 = 8 per SMSP -> 32 / 32 = 1 block. */
	{ "1024 x 64 regs", "h100-sxm", 1024, 64, 0, 0, -1, false, 1, 1, 32, 0.5, RIDGE_OCC_REGISTERS, 2, 1, 228, 64 },
	/* Carveout 0% with 32 KB: the preference 0 is below the 33792 a block
     * needs, so the driver takes the next legal size, 64 KB: 65536 / 33792 = 1. */
	{ "carveout 0", "h100-sxm", 256, 32, 32768, 0, 0, false, 1, 1, 8, 0.125, RIDGE_OCC_SHARED_MEMORY, 8, 8, 1, 64 },
	/* Carveout 50%: 116736 -> 132 KB = 135168; 135168 / 33792 = 4. */
	{ "carveout 50", "h100-sxm", 256, 32, 32768, 0, 50, false, 1, 4, 32, 0.5, RIDGE_OCC_SHARED_MEMORY, 8, 8, 4,
	  64 },
	/* 100 KB dynamic without opt-in: above the 48 KB default -> cannot launch. */
	{ "100 KB dynamic, no opt-in", "h100-sxm", 256, 32, 0, 102400, -1, false, 1, 0, 0, 0, RIDGE_OCC_SHARED_MEMORY,
	  8, 8, 0, 64 },
	/* ... with opt-in: 103424 per block; 233472 / 103424 = 2. */
	{ "100 KB dynamic, opt-in", "h100-sxm", 256, 32, 0, 102400, -1, true, 1, 2, 16, 0.25, RIDGE_OCC_SHARED_MEMORY,
	  8, 8, 2, 64 },
	/* 16 named barriers on sm_90: 2 x 32 / 16 = 4 blocks. 64 threads, 16
     * regs (512 per warp, 32 per SMSP = 128 warps / 2 = 64), warps 32. */
	{ "16 barriers", "h100-sxm", 64, 16, 0, 0, -1, false, 16, 4, 8, 0.125, RIDGE_OCC_BARRIERS, 32, 64, 228, 4 },
	/* Before sm_90 the header applies no barrier limit. */
	{ "16 barriers on sm_80", "a100-sxm-80gb", 64, 16, 0, 0, -1, false, 16, 32, 64, 1.0, RIDGE_OCC_WARPS, 32, 64,
	  164, UNL },
	/* Ties: 128 threads x 32 regs fills the SM by warps and registers (16
     * each); "warps" is named. */
	{ "tie warps/registers", "h100-sxm", 128, 32, 0, 0, -1, false, 1, 16, 64, 1.0, RIDGE_OCC_WARPS, 16, 16, 228,
	  64 },
	/* 32-thread blocks: 32 blocks per SM = 32 of 64 warps. */
	{ "small blocks", "h100-sxm", 32, 16, 0, 0, -1, false, 1, 32, 32, 0.5, RIDGE_OCC_BLOCKS, 64, 128, 228, 64 },
	/* sm_89: 1536 threads per SM, 24 blocks: 256 x 32 -> 6 by warps. */
	{ "L4 256 x 32", "l4", 256, 32, 0, 0, -1, false, 1, 6, 48, 1.0, RIDGE_OCC_WARPS, 6, 8, 100, UNL },
	/* V100: 256 B allocation unit, no reserve. 1000 bytes -> 1024; carveout
     * default = 96 KB: 98304 / 1024 = 96; blocks 32. */
	{ "V100 small smem", "v100-sxm2", 64, 16, 1000, 0, -1, false, 1, 32, 64, 1.0, RIDGE_OCC_WARPS, 32, 64, 96,
	  UNL },
	/* Block larger than the device allows. */
	{ "1025 threads", "h100-sxm", 1025, 16, 0, 0, -1, false, 1, 0, 0, 0, RIDGE_OCC_WARPS, 0, 3, 228, 64 },
};

static void test_nvidia_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof nv_cases / sizeof nv_cases[0]; i++) {
		const struct nv_case *c = &nv_cases[i];
		struct ridge_occupancy_input in;
		occupancy_input_init(&in);
		in.threads_per_block = c->threads;
		in.regs_per_thread = c->regs;
		in.static_smem = c->static_smem;
		in.dynamic_smem = c->dynamic_smem;
		in.carveout_percent = c->carveout;
		in.optin = c->optin;
		in.barriers = c->barriers;
		struct ridge_occupancy_result r;
		char err[256] = "";
		if (occupancy_compute(test_gpu(c->gpu), &in, &r, err, sizeof err) != 0)
			fail_msg("%s: %s", c->name, err);
		if (r.blocks_per_sm != c->blocks || r.active_warps != c->active_warps || r.occupancy != c->occupancy ||
		    r.limiter != c->limiter || r.limit[RIDGE_OCC_WARPS] != c->warps ||
		    r.limit[RIDGE_OCC_REGISTERS] != c->registers ||
		    r.limit[RIDGE_OCC_SHARED_MEMORY] != c->shared_memory ||
		    r.limit[RIDGE_OCC_BARRIERS] != c->barrier_limit)
			fail_msg("%s: got %d blocks, %d warps, %g, limiter %s, limits warps %d regs %d smem %d bars %d",
				 c->name, r.blocks_per_sm, r.active_warps, r.occupancy,
				 occupancy_limiter_name(r.limiter), r.limit[RIDGE_OCC_WARPS],
				 r.limit[RIDGE_OCC_REGISTERS], r.limit[RIDGE_OCC_SHARED_MEMORY],
				 r.limit[RIDGE_OCC_BARRIERS]);
	}
}

static struct ridge_occupancy_analysis analyze(const char *gpu, int threads, int regs, double smem)
{
	struct ridge_occupancy_input in;
	occupancy_input_init(&in);
	in.threads_per_block = threads;
	in.regs_per_thread = regs;
	in.static_smem = smem;
	struct ridge_occupancy_analysis an;
	char err[256] = "";
	if (occupancy_analyze(test_gpu(gpu), &in, &an, err, sizeof err) != 0)
		fail_msg("%s", err);
	return an;
}

static void test_seed_textbook_difference(void **state)
{
	(void)state;
	/* Case A: the chapter's 228 KB / 32 KB = 7 blocks (87.5%) is what the
	 * calculation gives without the per-block reserve. */
	struct ridge_occupancy_analysis a = analyze("h100-sxm", 256, 32, 32768);
	assert_int_equal(a.result.blocks_per_sm, 6);
	assert_int_equal(a.result.smem_per_block, 33792);
	assert_int_equal(a.smem_limit_without_reserve, 7);
	assert_int_equal(a.blocks_without_reserve, 7);
	/* The smallest change for a 7th block: alloc <= 233472 / 7 -> 33280
	 * (260 x 128) -> 32256 bytes of smem: drop 512. Registers cannot help. */
	assert_true(a.has_smem_change);
	assert_true(a.smem_to_drop == 512);
	assert_false(a.has_regs_change);
	/* The chapter's "reduce SMEM to 28 KB -> 8 blocks -> 100%" is wrong too:
	 * 28672 + 1024 = 29696; 233472 / 29696 = 7.9 -> 7 blocks. */
	struct ridge_occupancy_analysis b = analyze("h100-sxm", 256, 32, 28672);
	assert_int_equal(b.result.blocks_per_sm, 7);
	assert_int_equal(b.blocks_without_reserve, 8);
	/* 8 blocks need alloc <= 29184 -> 28160 bytes (27.5 KB). */
	assert_true(b.smem_to_drop == 512);
	assert_int_equal(analyze("h100-sxm", 256, 32, 28160).result.blocks_per_sm, 8);

	/* Review question: 4 blocks with or without the reserve (no difference to
	 * explain). A 5th block: alloc <= 46694 -> 46592 -> 45568 bytes: drop
	 * 3584; registers (limit 5) cannot help alone. */
	struct ridge_occupancy_analysis q = analyze("h100-sxm", 256, 48, 49152);
	assert_int_equal(q.result.blocks_per_sm, 4);
	assert_int_equal(q.blocks_without_reserve, 4);
	assert_true(q.has_smem_change);
	assert_true(q.smem_to_drop == 3584);
	assert_false(q.has_regs_change);

	/* sm_80 92 x 224: the naive register arithmetic says 3; 2 is right. The
	 * smallest register change to reach 3 blocks: 21 warps need 6 per SMSP:
	 * 16384 / 6 = 2730 -> 2560 per warp -> 80 registers: drop 12. */
	struct ridge_occupancy_analysis s = analyze("a100-sxm-80gb", 224, 92, 0);
	assert_int_equal(s.result.blocks_per_sm, 2);
	assert_int_equal(s.regs_limit_naive, 3);
	assert_int_equal(s.blocks_naive_regs, 3);
	assert_true(s.has_regs_change);
	assert_int_equal(s.regs_to_drop, 12);
	assert_int_equal(analyze("a100-sxm-80gb", 224, 80, 0).result.blocks_per_sm, 3);
	assert_int_equal(analyze("a100-sxm-80gb", 224, 81, 0).result.blocks_per_sm, 2);
}

static void test_max_potential_block_size(void **state)
{
	(void)state;
	struct ridge_occupancy_input in;
	occupancy_input_init(&in);
	char err[256];
	int size, grid, blocks;
	/* 32 regs, no smem: 1024 threads x 2 blocks fills the SM; stops there. */
	in.regs_per_thread = 32;
	assert_int_equal(
		occupancy_max_potential_block_size(test_gpu("h100-sxm"), &in, &size, &grid, &blocks, err, sizeof err),
		0);
	assert_int_equal(size, 1024);
	assert_int_equal(blocks, 2);
	assert_int_equal(grid, 264);
	/* 255 regs: 8192 per warp, 2 warps per SMSP = 8 warps per SM. 256 threads
	 * x 1 and 128 x 2 and 64 x 4 tie at 256 threads: the larger block wins. */
	in.regs_per_thread = 255;
	assert_int_equal(
		occupancy_max_potential_block_size(test_gpu("h100-sxm"), &in, &size, &grid, &blocks, err, sizeof err),
		0);
	assert_int_equal(size, 256);
	assert_int_equal(blocks, 1);
	assert_int_equal(grid, 132);
	/* A kernel limit of 100 threads: tries 100, 96, ..., 32, 100 first. With
	 * 32 regs, 100 threads = 4 warps: 16 blocks (regs 64/4, warps 64/4) =
	 * 1600 threads; 96 threads = 3 warps: 21 blocks = 2016 (best so far);
	 * 64: 32 blocks = 2048 = the SM's maximum: stop. */
	in.regs_per_thread = 32;
	in.max_threads_limit = 100;
	assert_int_equal(
		occupancy_max_potential_block_size(test_gpu("h100-sxm"), &in, &size, &grid, &blocks, err, sizeof err),
		0);
	assert_int_equal(size, 64);
	assert_int_equal(blocks, 32);
}

static void test_bad_input(void **state)
{
	(void)state;
	static const struct {
		int threads, regs;
		double smem;
		int carveout;
		const char *reason;
	} bad[] = {
		{ 0, 32, 0, -1, "threads" },          { -5, 32, 0, -1, "threads" },
		{ 256, 256, 0, -1, "registers" },     { 256, -1, 0, -1, "registers" },
		{ 256, 32, 0.5, -1, "whole number" }, { 256, 32, -1, -1, "whole number" },
		{ 256, 32, 0, 101, "carveout" },      { 256, 32, 0, -2, "carveout" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct ridge_occupancy_input in;
		occupancy_input_init(&in);
		in.threads_per_block = bad[i].threads;
		in.regs_per_thread = bad[i].regs;
		in.static_smem = bad[i].smem;
		in.carveout_percent = bad[i].carveout;
		struct ridge_occupancy_result r;
		char err[256] = "";
		if (occupancy_compute(test_gpu("h100-sxm"), &in, &r, err, sizeof err) == 0)
			fail_msg("case %zu should be rejected", i);
		if (!strstr(err, bad[i].reason))
			fail_msg("case %zu: '%s' does not mention '%s'", i, err, bad[i].reason);
	}
	/* An entry without occupancy data is an error, not a division by zero. */
	struct ridge_gpu empty;
	memset(&empty, 0, sizeof empty);
	snprintf(empty.id, sizeof empty.id, "empty");
	struct ridge_occupancy_input in;
	occupancy_input_init(&in);
	in.threads_per_block = 128;
	struct ridge_occupancy_result r;
	char err[256] = "";
	assert_int_equal(occupancy_compute(&empty, &in, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "lacks occupancy data"));
}

struct amd_case {
	const char *name;
	int threads, vgprs, agprs, sgprs;
	double lds;
	int blocks, waves, hip_blocks;
	enum ridge_occupancy_limiter limiter;
};

static const struct amd_case amd_cases[] = {
	/* 256 threads = 4 waves, 64 VGPRs: 512/64 = 8 waves per SIMD; 4 x 8 / 4 = 8 WGs = 32 waves. */
	{ "64 VGPRs", 256, 64, 0, 32, 0, 8, 32, 8, RIDGE_OCC_WARPS },
	/* 128 + 64 AGPRs: unified 128 + 64 = 192 -> 512/192 = 2 waves per SIMD: 4 x 2 / 4 = 2 WGs. */
	{ "AGPRs share the file", 256, 128, 64, 32, 0, 2, 8, 2, RIDGE_OCC_REGISTERS },
	/* 65 VGPRs + 1 AGPR: alignTo(65, 4) = 68 + 1 = 69 -> 72: 512/72 = 7. 64 threads: 4 x 7 = 28 WGs. */
	{ "AGPR offset alignment", 64, 65, 1, 16, 0, 28, 28, 28, RIDGE_OCC_REGISTERS },
	/* 100 SGPRs: LLVM 800/100 = 8 waves; HIP 800/alignUp(100,16)=112 -> 7: 1-wave WGs 32 vs 28. */
	{ "SGPR rule differs", 64, 32, 0, 100, 0, 32, 32, 28, RIDGE_OCC_WARPS },
	/* 13000 bytes LDS: LLVM rounds to 13312 (26 x 512): 65536/13312 = 4; HIP 65536/13000 = 5. */
	{ "LDS granule differs", 64, 32, 0, 16, 13000, 4, 4, 5, RIDGE_OCC_SHARED_MEMORY },
	/* 512 unified VGPRs: 1 wave per SIMD = 4 per CU: a 1024-thread (16-wave) WG cannot launch. */
	{ "512 VGPRs, 1024 threads", 1024, 256, 256, 16, 0, 0, 0, 0, RIDGE_OCC_REGISTERS },
	/* 3-wave WGs: 32 slots / 3 = 10 WGs (HIP: 4 x 8 x 64 / 192 = 10). */
	{ "3-wave workgroups", 192, 32, 0, 16, 0, 10, 30, 10, RIDGE_OCC_WARPS },
};

/* hipOccupancyMaxPotentialBlockSize, worked by hand from ROCm CLR's
 * ihipOccupancyMaxActiveBlocksPerMultiprocessor (bCalcPotentialBlkSz):
 * alu = 4 SIMDs x min(8, 512/alignUp(V,8), 800/alignUp(S,16)) x 64;
 * block = min(alu, alignUp(limit, 64)); grid = 304 CUs x min(alu/block, 65536/LDS). */
static void test_amd_hip_max_potential(void **state)
{
	(void)state;
	const struct ridge_gpu *g = test_gpu("mi300x");
	static const struct {
		int vgprs, sgprs, limit;
		double lds;
		int block, blocks, grid;
	} cases[] = {
		/* 96 VGPRs: 5 waves, alu 1280: 1024 threads, 1 per CU, grid 304 (the case;
		 * the hardware rule's search gives 640 x 2, grid 608). */
		{ 96, 0, 0, 0, 1024, 1, 304 },
		/* 256 VGPRs: 2 waves, alu 512. */
		{ 256, 0, 0, 0, 512, 1, 304 },
		/* 32 VGPRs: 16 waves -> 8, alu 2048; 40 KiB LDS: 1 per CU. */
		{ 32, 0, 0, 40960, 1024, 1, 304 },
		/* 100 SGPRs: 800 / 112 = 7 waves, alu 1792. */
		{ 32, 100, 0, 0, 1024, 1, 304 },
		/* A 100-thread limit rounds up to 128: 2048 / 128 = 16 per CU. */
		{ 32, 0, 100, 0, 128, 16, 4864 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ridge_occupancy_input in;
		occupancy_input_init(&in);
		in.regs_per_thread = cases[i].vgprs;
		in.sgprs = cases[i].sgprs;
		in.max_threads_limit = cases[i].limit;
		in.static_smem = cases[i].lds;
		int block = -1, grid = -1, blocks = -1;
		char err[256] = "";
		assert_int_equal(
			occupancy_hip_max_potential_block_size(g, &in, &block, &grid, &blocks, err, sizeof err), 0);
		if (block != cases[i].block || blocks != cases[i].blocks || grid != cases[i].grid)
			fail_msg("case %zu: %d threads, %d per CU, grid %d", i, block, blocks, grid);
	}
	struct ridge_occupancy_input in;
	occupancy_input_init(&in);
	in.regs_per_thread = 96;
	int block, grid, blocks;
	char err[256];
	assert_int_equal(occupancy_max_potential_block_size(g, &in, &block, &grid, &blocks, err, sizeof err), 0);
	assert_true(block == 640 && blocks == 2 && grid == 608);
	/* NVIDIA entries have no HIP answer. */
	assert_int_equal(occupancy_hip_max_potential_block_size(test_gpu("h100-sxm"), &in, &block, &grid, &blocks, err,
								sizeof err),
			 -1);
}

static void test_amd_cases(void **state)
{
	(void)state;
	static const char *const gpus[] = { "mi300x", "mi250x", "mi210", "mi325x" };
	for (size_t g = 0; g < sizeof gpus / sizeof gpus[0]; g++) {
		for (size_t i = 0; i < sizeof amd_cases / sizeof amd_cases[0]; i++) {
			const struct amd_case *c = &amd_cases[i];
			struct ridge_occupancy_input in;
			occupancy_input_init(&in);
			in.threads_per_block = c->threads;
			in.regs_per_thread = c->vgprs;
			in.agprs = c->agprs;
			in.sgprs = c->sgprs;
			in.static_smem = c->lds;
			struct ridge_occupancy_result r;
			char err[256] = "";
			if (occupancy_compute(test_gpu(gpus[g]), &in, &r, err, sizeof err) != 0)
				fail_msg("%s %s: %s", gpus[g], c->name, err);
			if (r.blocks_per_sm != c->blocks || r.active_warps != c->waves ||
			    r.amd.hip_blocks_per_cu != c->hip_blocks || r.limiter != c->limiter ||
			    r.amd.rules_agree != (c->blocks == c->hip_blocks))
				fail_msg("%s %s: got %d WGs, %d waves, HIP %d, limiter %s", gpus[g], c->name,
					 r.blocks_per_sm, r.active_warps, r.amd.hip_blocks_per_cu,
					 occupancy_limiter_name(r.limiter));
			assert_int_equal(r.max_warps, 32);
		}
	}
}

static void test_amd_vgpr_ladder(void **state)
{
	(void)state;
	/* LLVM D138443 (gfx90a/gfx940): waves per SIMD by VGPR count. */
	static const int vgprs[] = { 1, 64, 65, 72, 73, 80, 81, 96, 97, 128, 129, 168, 169, 256 };
	static const int waves[] = { 8, 8, 7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2 };
	for (size_t i = 0; i < sizeof vgprs / sizeof vgprs[0]; i++) {
		struct ridge_occupancy_input in;
		occupancy_input_init(&in);
		in.threads_per_block = 64;
		in.regs_per_thread = vgprs[i];
		struct ridge_occupancy_result r;
		char err[256];
		assert_int_equal(occupancy_compute(test_gpu("mi300x"), &in, &r, err, sizeof err), 0);
		if (r.amd.vgpr_waves_per_simd != waves[i])
			fail_msg("%d VGPRs: %d waves per SIMD, expected %d", vgprs[i], r.amd.vgpr_waves_per_simd,
				 waves[i]);
	}
	/* AMD bad input: 257 ArchVGPRs, 103 SGPRs. */
	struct ridge_occupancy_input in;
	occupancy_input_init(&in);
	in.threads_per_block = 64;
	in.regs_per_thread = 257;
	struct ridge_occupancy_result r;
	char err[256] = "";
	assert_int_equal(occupancy_compute(test_gpu("mi300x"), &in, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "VGPRs"));
	in.regs_per_thread = 32;
	in.sgprs = 103;
	assert_int_equal(occupancy_compute(test_gpu("mi300x"), &in, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "SGPRs"));
}

static void test_amd_suggestions(void **state)
{
	(void)state;
	/* 256 threads, 100 VGPRs: 512/104 = 4 waves -> 4 WGs. 5 WGs need 5
	 * waves per SIMD: <= 96 VGPRs: drop 4. 13000 bytes LDS limits at 4 too? No:
	 * LDS 4, registers 4: neither alone gains a block. */
	struct ridge_occupancy_analysis a = analyze("mi300x", 256, 100, 0);
	assert_int_equal(a.result.blocks_per_sm, 4);
	assert_true(a.has_regs_change);
	assert_int_equal(a.regs_to_drop, 4);
	assert_false(a.has_smem_change);
	struct ridge_occupancy_analysis b = analyze("mi300x", 256, 100, 13000);
	assert_int_equal(b.result.blocks_per_sm, 4);
	assert_false(b.has_regs_change);
	assert_false(b.has_smem_change);
	/* 64 threads, 32 VGPRs, 20000 B LDS: 20480 -> 3 WGs; 4 need <= 16384: drop 3616. */
	struct ridge_occupancy_analysis c = analyze("mi300x", 64, 32, 20000);
	assert_int_equal(c.result.blocks_per_sm, 3);
	assert_true(c.has_smem_change);
	assert_true(c.smem_to_drop == 3616);
}

static void test_runtime_case(void **state)
{
	(void)state;
	struct ridge_occupancy_input in;
	occupancy_input_init(&in);
	in.threads_per_block = 256;
	in.regs_per_thread = 40;
	in.static_smem = 4096;
	struct ridge_occupancy_runtime_case rc;
	char err[256];
	assert_int_equal(occupancy_runtime_case(test_gpu("h100-sxm"), &in, &rc, err, sizeof err), 0);
	/* Without opt-in the runtime's attribute is the 48 KB default minus static smem. */
	assert_int_equal((int)rc.max_dynamic_shared_size, 49152 - 4096);
	in.optin = true;
	assert_int_equal(occupancy_runtime_case(test_gpu("h100-sxm"), &in, &rc, err, sizeof err), 0);
	assert_int_equal((int)rc.max_dynamic_shared_size, 232448 - 4096);
	assert_int_equal(rc.num_barriers, 1);
	assert_int_equal(rc.carveout_percent, -1);

	/* The random generator is deterministic and legal. */
	uint64_t s1 = 7, s2 = 7;
	for (int i = 0; i < 1000; i++) {
		struct ridge_occupancy_input a, b;
		struct ridge_occupancy_result r;
		occupancy_random_input(test_gpu("b200"), &s1, &a);
		occupancy_random_input(test_gpu("b200"), &s2, &b);
		assert_memory_equal(&a, &b, sizeof a);
		if (occupancy_compute(test_gpu("b200"), &a, &r, err, sizeof err) != 0)
			fail_msg("random input %d rejected: %s", i, err);
	}
}

/* Counts, allocates, parses (the two-call protocol); *k is NULL on failure. */
static int parse(const char *text, enum ridge_usage_format fmt, double reserve, struct ridge_kernel_usage **k,
		 char *err, size_t len)
{
	int count = 0, again = 0;
	*k = NULL;
	if (occupancy_parse_usage(text, strlen(text), fmt, reserve, NULL, 0, &count, err, len) != 0)
		return -1;
	*k = calloc((size_t)count, sizeof **k);
	assert_non_null(*k);
	if (occupancy_parse_usage(text, strlen(text), fmt, reserve, *k, count, &again, err, len) != 0)
		fail_msg("the second pass failed: %s", err);
	assert_int_equal(again, count);
	return count;
}

static void test_parse_ptxas(void **state)
{
	(void)state;
	/* CUDA 13.0, sm_90 (reference/occupancy.md), plus a second kernel in the
	 * sm_80 format of CUDA 11/12 (cmem, no barriers) and nvcc noise. */
	static const char text[] =
		"nvcc warning : something unrelated\n"
		"ptxas info    : 0 bytes gmem\n"
		"ptxas info    : Compiling entry function '_Z2k0Pf' for 'sm_90'\n"
		"ptxas info    : Function properties for _Z2k0Pf\n"
		"    224 bytes stack frame, 220 bytes spill stores, 264 bytes spill loads\n"
		"ptxas info    : Used 32 registers, used 1 barriers, 224 bytes cumulative stack size, 32768 bytes smem\n"
		"ptxas info    : Function properties for _Z6helperv\n"
		"    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
		"ptxas info    : Compiling entry function '_Z2k1v' for 'sm_80'\n"
		"ptxas info    : Function properties for _Z2k1v\r\n"
		"    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\r\n"
		"ptxas info    : Used 29 registers, 8192 bytes smem, 380 bytes cmem[0], 8 bytes cmem[2]\r\n"
		"ptxas info    : Compiling entry function '_Z2k2v' for 'sm_75'\n"
		"ptxas info    : Used 10 registers, 356 bytes cmem[0]\n";
	struct ridge_kernel_usage *k = NULL;
	char err[256] = "";
	int n = parse(text, RIDGE_USAGE_PTXAS, 1024, &k, err, sizeof err);
	if (n != 3)
		fail_msg("expected 3 kernels, got %d: %s", n, err);
	assert_string_equal(k[0].name, "_Z2k0Pf");
	assert_string_equal(k[0].arch, "sm_90");
	assert_int_equal(k[0].regs, 32);
	assert_int_equal(k[0].barriers, 1);
	assert_true(k[0].smem == 32768);
	assert_true(k[0].stack == 224);
	assert_true(k[0].spill_stores == 220 && k[0].spill_loads == 264);
	assert_int_equal(k[0].line, 6);
	assert_string_equal(k[1].name, "_Z2k1v");
	assert_int_equal(k[1].regs, 29);
	assert_int_equal(k[1].barriers, -1);
	assert_true(k[1].smem == 8192 && k[1].cmem == 380);
	assert_true(k[1].spill_stores == 0);
	assert_string_equal(k[2].name, "_Z2k2v");
	assert_true(k[2].smem == 0 && k[2].spill_stores == -1);
	free(k);
}

static void test_parse_bad_reports(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		enum ridge_usage_format fmt;
		const char *reason;
	} bad[] = {
		{ "", RIDGE_USAGE_PTXAS, "no kernels" },
		{ "hello world\nthis is not ptxas output\n", RIDGE_USAGE_PTXAS, "no kernels" },
		{ "ptxas info    : Compiling entry function '_Z1kv' for 'sm_90'\n"
		  "ptxas info    : Used 32 registers, 12 bogons\n",
		  RIDGE_USAGE_PTXAS, "2:36: cannot read" },
		{ "ptxas info    : Compiling entry function '_Z1kv' for 'sm_90'\n"
		  "ptxas info    : Used many registers\n",
		  RIDGE_USAGE_PTXAS, "2:" },
		{ "ptxas info    : Compiling entry function for 'sm_90'\n", RIDGE_USAGE_PTXAS, "kernel name" },
		{ " Function _Z1kv:\n  REG:x STACK:0 SHARED:0\n", RIDGE_USAGE_CUOBJDUMP, "2:" },
		{ "  REG:32 STACK:0 SHARED:0\n", RIDGE_USAGE_CUOBJDUMP, "without a preceding" },
		{ "Fatbin elf code:\n================\n", RIDGE_USAGE_CUOBJDUMP, "no kernels" },
		{ "k.hip:1:1: remark: Function Name: _Z1kv [-Rpass-analysis=kernel-resource-usage]\n",
		  RIDGE_USAGE_AMD_REMARKS, "VGPRs" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct ridge_kernel_usage *k;
		char err[256] = "";
		if (parse(bad[i].text, bad[i].fmt, 1024, &k, err, sizeof err) >= 0)
			fail_msg("case %zu should be rejected", i);
		assert_null(k);
		if (!strstr(err, bad[i].reason))
			fail_msg("case %zu: '%s' does not mention '%s'", i, err, bad[i].reason);
	}
	/* Binary garbage. */
	static const char binary[] = { 'p', 't', 'x', 'a', 's', 0, 1, 2 };
	int count;
	char err[256] = "";
	assert_int_equal(
		occupancy_parse_usage(binary, sizeof binary, RIDGE_USAGE_PTXAS, 0, NULL, 0, &count, err, sizeof err),
		-1);
	assert_non_null(strstr(err, "not a text file"));
	/* A second kernel whose remarks lack VGPRs is caught too. */
	struct ridge_kernel_usage *k;
	assert_int_equal(parse("x:1:1: remark: Function Name: a [-Rpass-analysis=kernel-resource-usage]\n"
			       "x:1:1: remark:     VGPRs: 4 [-Rpass-analysis=kernel-resource-usage]\n"
			       "x:9:1: remark: Function Name: b [-Rpass-analysis=kernel-resource-usage]\n"
			       "x:9:1: remark:     AGPRs: 4 [-Rpass-analysis=kernel-resource-usage]\n",
			       RIDGE_USAGE_AMD_REMARKS, 0, &k, err, sizeof err),
			 -1);
	assert_non_null(strstr(err, "3: kernel 'b' has no 'VGPRs:'"));
	/* A small array: the count is exact and the first kernels are filled. */
	static const char two[] = "ptxas info    : Compiling entry function '_Z1av' for 'sm_90'\n"
				  "ptxas info    : Used 10 registers\n"
				  "ptxas info    : Compiling entry function '_Z1bv' for 'sm_90'\n"
				  "ptxas info    : Used 20 registers\n";
	struct ridge_kernel_usage one[1];
	assert_int_equal(occupancy_parse_usage(two, strlen(two), RIDGE_USAGE_PTXAS, 0, one, 1, &count, err, sizeof err),
			 0);
	assert_int_equal(count, 2);
	assert_string_equal(one[0].name, "_Z1av");
	assert_int_equal(one[0].regs, 10);
}

static void test_parse_cuobjdump_and_amd(void **state)
{
	(void)state;
	/* cuobjdump's SHARED includes the 1 KB reserve: 33792 -> 32768. */
	static const char dump[] =
		"\nFatbin elf code:\n================\narch = sm_90\ncode version = [1,8]\n"
		"host = linux\ncompile_size = 64bit\n\nResource usage:\n Common:\n  GLOBAL:0\n"
		" Function _Z2k0Pf:\n"
		"  REG:32 STACK:224 SHARED:33792 LOCAL:0 CONSTANT[0]:536 TEXTURE:0 SURFACE:0 SAMPLER:0\n"
		" Function _Z2k1v:\n"
		"  REG:48 STACK:0 SHARED:50176 LOCAL:0 CONSTANT[0]:380 TEXTURE:0 SURFACE:0 SAMPLER:0\n";
	struct ridge_kernel_usage *k = NULL;
	char err[256] = "";
	int n = parse(dump, RIDGE_USAGE_CUOBJDUMP, 1024, &k, err, sizeof err);
	if (n != 2)
		fail_msg("expected 2 kernels, got %d: %s", n, err);
	assert_string_equal(k[0].name, "_Z2k0Pf");
	assert_string_equal(k[0].arch, "sm_90");
	assert_int_equal(k[0].regs, 32);
	assert_true(k[0].smem == 32768 && k[0].stack == 224 && k[0].cmem == 536);
	assert_true(k[1].smem == 49152);
	free(k);

	static const char remarks[] =
		"k.hip:3:1: remark: Function Name: _Z4gemmPf [-Rpass-analysis=kernel-resource-usage]\n"
		"k.hip:3:1: remark:     TotalSGPRs: 18 [-Rpass-analysis=kernel-resource-usage]\n"
		"k.hip:3:1: remark:     VGPRs: 102 [-Rpass-analysis=kernel-resource-usage]\n"
		"k.hip:3:1: remark:     AGPRs: 64 [-Rpass-analysis=kernel-resource-usage]\n"
		"k.hip:3:1: remark:     ScratchSize [bytes/lane]: 0 [-Rpass-analysis=kernel-resource-usage]\n"
		"k.hip:3:1: remark:     Dynamic Stack: False [-Rpass-analysis=kernel-resource-usage]\n"
		"k.hip:3:1: remark:     Occupancy [waves/SIMD]: 3 [-Rpass-analysis=kernel-resource-usage]\n"
		"k.hip:3:1: remark:     SGPRs Spill: 0 [-Rpass-analysis=kernel-resource-usage]\n"
		"k.hip:3:1: remark:     VGPRs Spill: 0 [-Rpass-analysis=kernel-resource-usage]\n"
		"k.hip:3:1: remark:     LDS Size [bytes/block]: 8192 [-Rpass-analysis=kernel-resource-usage]\n";
	n = parse(remarks, RIDGE_USAGE_AMD_REMARKS, 0, &k, err, sizeof err);
	if (n != 1)
		fail_msg("expected 1 kernel, got %d: %s", n, err);
	assert_string_equal(k[0].name, "_Z4gemmPf");
	assert_int_equal(k[0].regs, 102);
	assert_int_equal(k[0].agprs, 64);
	assert_int_equal(k[0].sgprs, 18);
	assert_int_equal(k[0].compiler_occupancy, 3);
	assert_true(k[0].smem == 8192);
	/* alignTo(102, 4) + 64 = 168 -> 512/168 = 3 waves: the compiler's 3. */
	struct ridge_occupancy_input in;
	occupancy_input_init(&in);
	in.threads_per_block = 256;
	in.regs_per_thread = k[0].regs;
	in.agprs = k[0].agprs;
	in.sgprs = k[0].sgprs;
	in.static_smem = k[0].smem;
	struct ridge_occupancy_result r;
	assert_int_equal(occupancy_compute(test_gpu("mi300x"), &in, &r, err, sizeof err), 0);
	assert_int_equal(r.amd.vgpr_waves_per_simd, 3);
	free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nvidia_cases),
		cmocka_unit_test(test_seed_textbook_difference),
		cmocka_unit_test(test_max_potential_block_size),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_amd_cases),
		cmocka_unit_test(test_amd_hip_max_potential),
		cmocka_unit_test(test_amd_vgpr_ladder),
		cmocka_unit_test(test_amd_suggestions),
		cmocka_unit_test(test_runtime_case),
		cmocka_unit_test(test_parse_ptxas),
		cmocka_unit_test(test_parse_bad_reports),
		cmocka_unit_test(test_parse_cuobjdump_and_amd),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
