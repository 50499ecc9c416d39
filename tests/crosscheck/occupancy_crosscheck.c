/* Cross-check: ridge's occupancy model against the CUDA toolkit's own
 * calculator (cuda_occupancy.h) on random configurations, for every NVIDIA
 * entry of the built-in hwdb. The header's device properties are filled from
 * the hwdb entry, so a wrong number in hwdb (or a wrong architecture constant
 * that ridge reads from it) shows up as a mismatch.
 *
 * C99 on purpose: the header compiles as C99, not C89 (reference/occupancy.md).
 * Usage: occupancy_crosscheck [--plant] [configs-per-gpu [seed]]
 * Prints one line per GPU and "N passed, M failed" (one test per GPU and
 * check kind); exit 1 on any mismatch.
 * --plant gives ridge a copy of each entry with a planted error (the driver's
 * per-block reserve dropped, one carveout size removed, one block fewer per
 * SM) while the header keeps the true properties: the check must then find
 * mismatches on every GPU (proof that it can fail); exit 0 only if it does.
 * --cli N prints N configurations per GPU as `ridge occupancy` flags followed
 * by the header's block count, half of them unable to launch (shared memory
 * past the per-block limits): tests/suite_occupancy_crosscheck.sh runs the
 * command on each, so the command (not only the model) answers as the header
 * does, 0 blocks and exit 0 included. */
#include <cuda_occupancy.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "hwdb.h"
#include "occupancy.h"

static int load_gpu(int index, struct ridge_gpu *gpu)
{
	size_t len;
	const char *text = hwdb_builtin_text(index, &len);
	struct hwdb_diags diags;
	memset(&diags, 0, sizeof diags);
	return hwdb_parse(hwdb_builtin_name(index), text, len, gpu, &diags);
}

/* cudaOccDeviceProp from the hwdb entry (the fields cudaGetDeviceProperties gives). */
static void device_prop(const struct ridge_gpu *gpu, cudaOccDeviceProp *prop)
{
	memset(prop, 0, sizeof *prop);
	prop->computeMajor = gpu->cc_major;
	prop->computeMinor = gpu->cc_minor;
	prop->maxThreadsPerBlock = gpu->max_threads_per_block;
	prop->maxThreadsPerMultiprocessor = gpu->max_threads_per_sm;
	prop->regsPerBlock = gpu->regs_per_block;
	prop->regsPerMultiprocessor = gpu->regs_per_sm;
	prop->warpSize = gpu->warp_size;
	prop->sharedMemPerBlock = (size_t)gpu->smem_per_block;
	prop->sharedMemPerMultiprocessor = (size_t)gpu->smem_per_sm;
	prop->numSms = gpu->sm_count;
	prop->sharedMemPerBlockOptin = (size_t)gpu->smem_per_block_optin;
	prop->reservedSharedMemPerBlock = (size_t)gpu->nv.smem_reserved_per_block;
}

/* The function attributes and state the runtime would pass for this launch.
 * From C, every field must be set by hand: {0} would mean no barriers, the
 * DEFAULT shared-memory limit config and no dynamic shared memory at all. */
static void runtime_terms(const struct ridge_occupancy_runtime_case *rc, const struct ridge_occupancy_input *in,
			  cudaOccFuncAttributes *attr, cudaOccDeviceState *state)
{
	memset(attr, 0, sizeof *attr);
	attr->maxThreadsPerBlock = in->max_threads_limit > 0 ? in->max_threads_limit : INT_MAX;
	attr->numRegs = rc->num_regs;
	attr->sharedSizeBytes = rc->shared_size_bytes;
	attr->partitionedGCConfig = PARTITIONED_GC_OFF;
	attr->shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN; /* what the runtime's conversion sets */
	attr->maxDynamicSharedSizeBytes = rc->max_dynamic_shared_size;
	attr->numBlockBarriers = rc->num_barriers;
	attr->virtualResourceCount = in->virtual_resources;
	memset(state, 0, sizeof *state);
	state->cacheConfig = (cudaOccCacheConfig)rc->cache_config;
	state->carveoutConfig = rc->carveout_percent;
}

static unsigned header_mask(unsigned factors)
{
	unsigned m = 0;
	if (factors & OCC_LIMIT_WARPS)
		m |= 1u << RIDGE_OCC_WARPS;
	if (factors & OCC_LIMIT_REGISTERS)
		m |= 1u << RIDGE_OCC_REGISTERS;
	if (factors & OCC_LIMIT_SHARED_MEMORY)
		m |= 1u << RIDGE_OCC_SHARED_MEMORY;
	if (factors & OCC_LIMIT_BLOCKS)
		m |= 1u << RIDGE_OCC_BLOCKS;
	if (factors & OCC_LIMIT_BARRIERS)
		m |= 1u << RIDGE_OCC_BARRIERS;
	if (factors & OCC_LIMIT_VIRTUAL_RESOURCES)
		m |= 1u << RIDGE_OCC_VIRTUAL;
	return m;
}

/* The header sets its limitingFactors bits before it applies the barrier
 * limit (sm_90+): the bits name the limits equal to the minimum of the other
 * limits, and the barrier bit is added when barriers bring the result down to
 * their limit. ridge's limiter_mask names the limits equal to the final
 * result; this rebuilds the header's bits from ridge's limits. */
static unsigned expected_header_mask(const struct ridge_occupancy_result *r)
{
	int pre = INT_MAX;
	for (int i = 0; i < RIDGE_OCC_LIMITER_COUNT; i++)
		if (i != RIDGE_OCC_BARRIERS && r->limit[i] < pre)
			pre = r->limit[i];
	unsigned m = 0;
	for (int i = 0; i < RIDGE_OCC_LIMITER_COUNT; i++)
		if (i != RIDGE_OCC_BARRIERS && r->limit[i] == pre)
			m |= 1u << i;
	if (r->limit[RIDGE_OCC_BARRIERS] != INT_MAX && r->limit[RIDGE_OCC_BARRIERS] == r->blocks_per_sm)
		m |= 1u << RIDGE_OCC_BARRIERS;
	return m;
}

static void describe(const struct ridge_occupancy_input *in)
{
	fprintf(stderr,
		"       threads %d regs %d static %.0f dynamic %.0f carveout %d cache %d optin %d max_dyn %.0f "
		"barriers %d virtual %d limit %d\n",
		in->threads_per_block, in->regs_per_thread, in->static_smem, in->dynamic_smem, in->carveout_percent,
		(int)in->cache_config, (int)in->optin, in->max_dynamic_smem, in->barriers, in->virtual_resources,
		in->max_threads_limit);
}

/* Returns the number of mismatches on one configuration (0 or 1). */
static long coverage[RIDGE_OCC_LIMITER_COUNT + 1]; /* by limiter; last: 0 blocks */

static int check_one(const struct ridge_gpu *gpu, const cudaOccDeviceProp *prop, const struct ridge_occupancy_input *in,
		     int shown)
{
	char err[256];
	struct ridge_occupancy_runtime_case rc;
	struct ridge_occupancy_result r;
	if (occupancy_runtime_case(gpu, in, &rc, err, sizeof err) != 0 ||
	    occupancy_compute(gpu, in, &r, err, sizeof err) != 0) {
		if (shown < 5) {
			fprintf(stderr, "FAIL %s: ridge rejected a legal configuration: %s\n", gpu->id, err);
			describe(in);
		}
		return 1;
	}
	coverage[r.blocks_per_sm == 0 ? RIDGE_OCC_LIMITER_COUNT : (int)r.limiter]++;
	cudaOccFuncAttributes attr;
	cudaOccDeviceState state;
	cudaOccResult h;
	runtime_terms(&rc, in, &attr, &state);
	memset(&h, 0, sizeof h);
	cudaOccError status =
		cudaOccMaxActiveBlocksPerMultiprocessor(&h, prop, &attr, &state, rc.block_size, rc.dynamic_smem);
	int bad = status != CUDA_OCC_SUCCESS || h.activeBlocksPerMultiprocessor != r.blocks_per_sm ||
		  h.blockLimitWarps != r.limit[RIDGE_OCC_WARPS] || h.blockLimitRegs != r.limit[RIDGE_OCC_REGISTERS] ||
		  h.blockLimitSharedMem != r.limit[RIDGE_OCC_SHARED_MEMORY] ||
		  h.blockLimitBlocks != r.limit[RIDGE_OCC_BLOCKS] ||
		  h.blockLimitBarriers != r.limit[RIDGE_OCC_BARRIERS] ||
		  h.blockLimitVirtual != r.limit[RIDGE_OCC_VIRTUAL] ||
		  (double)h.allocatedSharedMemPerBlock != r.smem_per_block ||
		  h.allocatedRegistersPerBlock != r.regs_per_block ||
		  header_mask(h.limitingFactors) != expected_header_mask(&r);
	if (bad && shown < 5) {
		fprintf(stderr,
			"FAIL %s: header status %d blocks %d (warps %d regs %d smem %d blocks %d bars %d virt %d, smem "
			"%zu regs %d, mask %#x)\n",
			gpu->id, (int)status, h.activeBlocksPerMultiprocessor, h.blockLimitWarps, h.blockLimitRegs,
			h.blockLimitSharedMem, h.blockLimitBlocks, h.blockLimitBarriers, h.blockLimitVirtual,
			h.allocatedSharedMemPerBlock, h.allocatedRegistersPerBlock, header_mask(h.limitingFactors));
		fprintf(stderr,
			"     ridge: blocks %d (warps %d regs %d smem %d blocks %d bars %d virt %d, smem %.0f regs %d, "
			"mask %#x)\n",
			r.blocks_per_sm, r.limit[RIDGE_OCC_WARPS], r.limit[RIDGE_OCC_REGISTERS],
			r.limit[RIDGE_OCC_SHARED_MEMORY], r.limit[RIDGE_OCC_BLOCKS], r.limit[RIDGE_OCC_BARRIERS],
			r.limit[RIDGE_OCC_VIRTUAL], r.smem_per_block, r.regs_per_block, expected_header_mask(&r));
		describe(in);
	}
	return bad;
}

static int check_potential(const struct ridge_gpu *gpu, const cudaOccDeviceProp *prop,
			   const struct ridge_occupancy_input *in, int shown)
{
	char err[256];
	struct ridge_occupancy_runtime_case rc;
	int size = -1, grid = -1, blocks = -1;
	if (occupancy_runtime_case(gpu, in, &rc, err, sizeof err) != 0 ||
	    occupancy_max_potential_block_size(gpu, in, &size, &grid, &blocks, err, sizeof err) != 0) {
		if (shown < 5)
			fprintf(stderr, "FAIL %s: ridge max potential block size: %s\n", gpu->id, err);
		return 1;
	}
	cudaOccFuncAttributes attr;
	cudaOccDeviceState state;
	runtime_terms(&rc, in, &attr, &state);
	int h_size = -1, h_grid = -1;
	cudaOccError status =
		cudaOccMaxPotentialOccupancyBlockSize(&h_grid, &h_size, prop, &attr, &state, NULL, rc.dynamic_smem);
	int bad = status != CUDA_OCC_SUCCESS || h_size != size || h_grid != grid;
	if (bad && shown < 5) {
		fprintf(stderr,
			"FAIL %s: max potential block size: header status %d size %d grid %d, ridge size %d grid %d\n",
			gpu->id, (int)status, h_size, h_grid, size, grid);
		describe(in);
	}
	return bad;
}

/* Shared memory a block cannot have: past the opt-in maximum (with or without
 * --optin), or past the default limit without --optin. */
static void make_unlaunchable(const struct ridge_gpu *gpu, uint64_t *state, struct ridge_occupancy_input *in)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	uint64_t r = *state >> 33;
	double limit = r % 2 ? gpu->smem_per_block_optin : gpu->smem_per_block;
	in->optin = r % 2 ? (r >> 1) % 2 == 0 : false;
	if (in->static_smem > gpu->smem_per_block)
		in->static_smem = gpu->smem_per_block;
	in->dynamic_smem = limit - in->static_smem + 1 + (double)((r >> 2) % 4096);
}

/* --cli: one line per configuration: flags, then the header's blocks per SM. */
static int print_cli_cases(long per_gpu, unsigned long long seed)
{
	static const char *const cache_names[] = { "none", "shared", "l1", "equal" };
	for (int i = 0; i < hwdb_builtin_count(); i++) {
		static struct ridge_gpu gpu;
		if (load_gpu(i, &gpu) != 0 || gpu.vendor != RIDGE_VENDOR_NVIDIA)
			continue;
		cudaOccDeviceProp prop;
		device_prop(&gpu, &prop);
		uint64_t state = seed ^ ((uint64_t)(i + 1) * 0x9E3779B97F4A7C15ULL);
		for (long n = 0; n < per_gpu; n++) {
			struct ridge_occupancy_input in;
			occupancy_random_input(&gpu, &state, &in);
			if (n % 2 == 0)
				make_unlaunchable(&gpu, &state, &in);
			struct ridge_occupancy_runtime_case rc;
			char err[256];
			if (occupancy_runtime_case(&gpu, &in, &rc, err, sizeof err) != 0) {
				fprintf(stderr, "%s: %s\n", gpu.id, err);
				return 1;
			}
			cudaOccFuncAttributes attr;
			cudaOccDeviceState dstate;
			cudaOccResult h;
			runtime_terms(&rc, &in, &attr, &dstate);
			memset(&h, 0, sizeof h);
			if (cudaOccMaxActiveBlocksPerMultiprocessor(&h, &prop, &attr, &dstate, rc.block_size,
								    rc.dynamic_smem) != CUDA_OCC_SUCCESS)
				return 1;
			char carveout[32] = ""; /* -1: the flag left out */
			if (in.carveout_percent >= 0)
				snprintf(carveout, sizeof carveout, " --carveout %d", in.carveout_percent);
			printf("--gpu %s --threads %d --regs %d --smem %.0f --dyn-smem %.0f%s --cache-config %s "
			       "--barriers %d%s %d\n",
			       gpu.id, in.threads_per_block, in.regs_per_thread, in.static_smem, in.dynamic_smem,
			       carveout, cache_names[in.cache_config], in.barriers, in.optin ? " --optin" : "",
			       h.activeBlocksPerMultiprocessor);
		}
	}
	return 0;
}

/* hw check's transcription of the header's per-compute-capability constants
 * (hwdb/arch.c) against the header's own functions, for every compute
 * capability the transcription lists. Returns the number of mismatches. */
static int check_cc_table(void)
{
	static const int ccs[][2] = { { 7, 0 },  { 7, 5 },  { 8, 0 },  { 8, 6 },  { 8, 7 },  { 8, 9 }, { 9, 0 },
				      { 10, 0 }, { 10, 1 }, { 10, 3 }, { 11, 0 }, { 12, 0 }, { 12, 1 } };
	int bad = 0, checked = 0;
	for (size_t i = 0; i < sizeof ccs / sizeof ccs[0]; i++) {
		struct hwdb_cc_occupancy t;
		if (!hwdb_cc_occupancy(ccs[i][0], ccs[i][1], &t)) {
			printf("FAIL cc %d.%d: not in hwdb/arch.c's table\n", ccs[i][0], ccs[i][1]);
			bad++;
			continue;
		}
		cudaOccDeviceProp prop;
		memset(&prop, 0, sizeof prop);
		prop.computeMajor = ccs[i][0];
		prop.computeMinor = ccs[i][1];
		int smem_unit = 0, reg_unit = 0, parts = 0, blocks = 0, virt = 0, bars = 0;
		cudaOccFuncAttributes attr;
		memset(&attr, 0, sizeof attr);
		attr.numBlockBarriers = 1;
		cudaOccSMemAllocationGranularity(&smem_unit, &prop);
		cudaOccRegAllocationGranularity(&reg_unit, &prop);
		cudaOccSubPartitionsPerMultiprocessor(&parts, &prop);
		cudaOccMaxBlocksPerMultiprocessor(&blocks, &prop);
		cudaOccMaxVirtualResourceCountPerSM(&virt, &prop);
		/* Barrier sets per block slot: available / blocks with one barrier per
		 * block; the header applies the limit from 9.0 on only. */
		cudaOccMaxBlocksPerSMBlockBarrierLimit(&bars, blocks, &prop, &attr);
		int sets = prop.computeMajor >= 9 ? bars / blocks : 0;
		int legal[32], n_legal = 0;
		for (size_t kib = 0; kib <= 256 && n_legal < 32; kib++) {
			size_t size = kib * 1024;
			if (cudaOccAlignUpShmemSizeVoltaPlus(&size, &prop) == CUDA_OCC_SUCCESS &&
			    (n_legal == 0 || legal[n_legal - 1] != (int)(size / 1024)))
				legal[n_legal++] = (int)(size / 1024);
		}
		int same_carveout = n_legal == t.carveout_count;
		for (int c = 0; same_carveout && c < n_legal; c++)
			same_carveout = legal[c] == t.carveout_kib[c];
		int mismatch = smem_unit != t.smem_alloc_unit || reg_unit != t.reg_alloc_unit ||
			       parts != t.sub_partitions || blocks != t.blocks_per_sm ||
			       virt != t.virtual_resources_per_sm || sets != t.barriers_per_block_slot ||
			       !same_carveout;
		if (mismatch) {
			printf("FAIL cc %d.%d: header smem unit %d regs unit %d partitions %d blocks %d virtual %d barrier "
			       "sets %d, %d carveout sizes; hwdb/arch.c %d %d %d %d %d %d, %d\n",
			       ccs[i][0], ccs[i][1], smem_unit, reg_unit, parts, blocks, virt, sets, n_legal,
			       t.smem_alloc_unit, t.reg_alloc_unit, t.sub_partitions, t.blocks_per_sm,
			       t.virtual_resources_per_sm, t.barriers_per_block_slot, t.carveout_count);
			bad++;
		}
		checked++;
	}
	printf("%s hw check's per-compute-capability table (hwdb/arch.c) on %d compute capabilities: %d "
	       "mismatches with cuda_occupancy.h\n",
	       bad ? "FAIL" : "ok  ", checked, bad);
	return bad;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--cli") == 0)
		return print_cli_cases(argc > 2 ? atol(argv[2]) : 20,
				       argc > 3 ? strtoull(argv[3], NULL, 0) : 20261201ULL);
	int plant = argc > 1 && strcmp(argv[1], "--plant") == 0;
	if (plant) {
		argc--;
		argv++;
	}
	long per_gpu = argc > 1 ? atol(argv[1]) : 15000;
	unsigned long long seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 20260101ULL;
	int planted_found = 0;
	int passed = 0, failed = 0, gpus = 0;
	if (!plant) {
		if (check_cc_table())
			failed++;
		else
			passed++;
	}
	long total = 0, total_potential = 0, mismatches = 0;
	for (int i = 0; i < hwdb_builtin_count(); i++) {
		static struct ridge_gpu gpu;
		if (load_gpu(i, &gpu) != 0) {
			printf("FAIL %s: does not load\n", hwdb_builtin_name(i));
			failed++;
			continue;
		}
		if (gpu.vendor != RIDGE_VENDOR_NVIDIA)
			continue;
		gpus++;
		cudaOccDeviceProp prop;
		device_prop(&gpu, &prop);
		if (plant) { /* the header keeps the true entry; ridge gets a broken one */
			if (gpu.nv.smem_reserved_per_block > 0)
				gpu.nv.smem_reserved_per_block = 0;
			else
				gpu.nv.smem_alloc_unit *= 2;
			gpu.nv.carveout_sizes[1] = gpu.nv.carveout_sizes[2];
			gpu.max_blocks_per_sm -= 1;
		}
		uint64_t state = seed ^ ((uint64_t)(i + 1) * 0x9E3779B97F4A7C15ULL);
		int bad = 0, bad_potential = 0;
		long potential = 0;
		for (long n = 0; n < per_gpu; n++) {
			struct ridge_occupancy_input in;
			occupancy_random_input(&gpu, &state, &in);
			/* Also exercise what occupancy_random_input leaves at defaults. */
			if (n % 7 == 3)
				in.max_dynamic_smem = (double)(state % ((uint64_t)gpu.smem_per_block_optin + 1));
			if (n % 11 == 5 && gpu.nv.virtual_resources_per_sm > 0)
				in.virtual_resources = (int)(1 + state % 64);
			if (n % 13 == 0)
				in.regs_per_thread = 0;
			bad += check_one(&gpu, &prop, &in, bad);
			if (n % 8 == 0) {
				if (n % 16 == 0)
					in.max_threads_limit = (int)(1 + state % (uint64_t)gpu.max_threads_per_block);
				bad_potential += check_potential(&gpu, &prop, &in, bad_potential);
				potential++;
			}
		}
		total += per_gpu;
		total_potential += potential;
		mismatches += bad + bad_potential;
		printf("%s %-16s sm_%d%d: %ld configurations, %d mismatches; max potential block size: %ld, %d "
		       "mismatches\n",
		       bad || bad_potential ? "FAIL" : "ok  ", gpu.id, gpu.cc_major, gpu.cc_minor, per_gpu, bad,
		       potential, bad_potential);
		passed += (bad == 0) + (bad_potential == 0);
		failed += (bad != 0) + (bad_potential != 0);
		planted_found += bad > 0;
	}
	if (gpus == 0) {
		printf("FAIL no NVIDIA entries in the built-in hwdb\n");
		failed++;
	}
	if (plant) {
		printf("planted errors found on %d of %d GPUs\n", planted_found, gpus);
		return planted_found == gpus && gpus > 0 ? 0 : 1;
	}
	printf("cross-checked %ld configurations and %ld max-potential searches on %d GPUs against cuda_occupancy.h "
	       "(calculator for CC up to %d.%d): %ld mismatches\n",
	       total, total_potential, gpus, __CUDA_OCC_MAJOR__, __CUDA_OCC_MINOR__, mismatches);
	printf("coverage: limited by warps %ld, registers %ld, shared memory %ld, blocks %ld, barriers %ld, virtual %ld; "
	       "cannot launch (0 blocks) %ld\n",
	       coverage[RIDGE_OCC_WARPS], coverage[RIDGE_OCC_REGISTERS], coverage[RIDGE_OCC_SHARED_MEMORY],
	       coverage[RIDGE_OCC_BLOCKS], coverage[RIDGE_OCC_BARRIERS], coverage[RIDGE_OCC_VIRTUAL],
	       coverage[RIDGE_OCC_LIMITER_COUNT]);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
