/* make bench: ridge's occupancy_compute() against the CUDA toolkit's
 * cudaOccMaxActiveBlocksPerMultiprocessor (cuda_occupancy.h) on the same
 * random configurations (every NVIDIA entry of the built-in hwdb), in one run.
 * The set is small enough to stay in cache (the calculators are timed, not
 * memory); each pass runs it `repeats` times per side, and the best of the
 * passes counts. The results are compared too, so both sides do equal work.
 * Usage: occupancy_bench [configs-per-gpu [passes [repeats]]] */
#define _POSIX_C_SOURCE 199309L
#include <cuda_occupancy.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hwdb.h"
#include "occupancy.h"

struct config {
	int gpu;
	struct ridge_occupancy_input in;
	cudaOccFuncAttributes attr;
	cudaOccDeviceState state;
	int block_size;
	size_t dynamic_smem;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: a shared machine deschedules us */
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	long per_gpu = argc > 1 ? atol(argv[1]) : 2000;
	int passes = argc > 2 ? atoi(argv[2]) : 15;
	int repeats = argc > 3 ? atoi(argv[3]) : 10;
	static struct ridge_gpu gpus[64];
	static cudaOccDeviceProp props[64];
	static struct ridge_occupancy_device devs[64];
	int ngpu = 0;
	for (int i = 0; i < hwdb_builtin_count() && ngpu < 64; i++) {
		size_t len;
		const char *text = hwdb_builtin_text(i, &len);
		struct hwdb_diags diags;
		memset(&diags, 0, sizeof diags);
		struct ridge_gpu *g = &gpus[ngpu];
		if (hwdb_parse(hwdb_builtin_name(i), text, len, g, &diags) != 0 || g->vendor != RIDGE_VENDOR_NVIDIA)
			continue;
		cudaOccDeviceProp *p = &props[ngpu];
		memset(p, 0, sizeof *p);
		p->computeMajor = g->cc_major;
		p->computeMinor = g->cc_minor;
		p->maxThreadsPerBlock = g->max_threads_per_block;
		p->maxThreadsPerMultiprocessor = g->max_threads_per_sm;
		p->regsPerBlock = g->regs_per_block;
		p->regsPerMultiprocessor = g->regs_per_sm;
		p->warpSize = g->warp_size;
		p->sharedMemPerBlock = (size_t)g->smem_per_block;
		p->sharedMemPerMultiprocessor = (size_t)g->smem_per_sm;
		p->numSms = g->sm_count;
		p->sharedMemPerBlockOptin = (size_t)g->smem_per_block_optin;
		p->reservedSharedMemPerBlock = (size_t)g->nv.smem_reserved_per_block;
		char e[256];
		if (occupancy_device_init(g, &devs[ngpu], e, sizeof e) != 0) {
			fprintf(stderr, "occupancy_bench: %s\n", e);
			return 1;
		}
		ngpu++;
	}
	long n = per_gpu * ngpu;
	struct config *cfg = calloc((size_t)n, sizeof *cfg);
	int *ridge_blocks = calloc((size_t)n, sizeof *ridge_blocks);
	int *header_blocks = calloc((size_t)n, sizeof *header_blocks);
	if (!cfg || !ridge_blocks || !header_blocks || ngpu == 0) {
		fprintf(stderr, "occupancy_bench: no NVIDIA entries or out of memory\n");
		return 1;
	}
	uint64_t seed = 12345;
	char err[256];
	for (long i = 0; i < n; i++) {
		struct config *c = &cfg[i];
		c->gpu = (int)(i % ngpu);
		occupancy_random_input(&gpus[c->gpu], &seed, &c->in);
		struct ridge_occupancy_runtime_case rc;
		if (occupancy_runtime_case(&gpus[c->gpu], &c->in, &rc, err, sizeof err) != 0) {
			fprintf(stderr, "occupancy_bench: %s\n", err);
			return 1;
		}
		c->attr.maxThreadsPerBlock = INT_MAX;
		c->attr.numRegs = rc.num_regs;
		c->attr.sharedSizeBytes = rc.shared_size_bytes;
		c->attr.partitionedGCConfig = PARTITIONED_GC_OFF;
		c->attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
		c->attr.maxDynamicSharedSizeBytes = rc.max_dynamic_shared_size;
		c->attr.numBlockBarriers = rc.num_barriers;
		c->state.cacheConfig = (cudaOccCacheConfig)rc.cache_config;
		c->state.carveoutConfig = rc.carveout_percent;
		c->block_size = rc.block_size;
		c->dynamic_smem = rc.dynamic_smem;
	}

	double best_ridge = 1e30, best_header = 1e30, best_unprepared = 1e30;
	long unprepared_mismatches = 0;
	for (int pass = 0; pass < passes; pass++) {
		/* occupancy_compute(): converts and checks the hwdb entry on every call */
		double u0 = now();
		for (int rep = 0; rep < repeats; rep++)
			for (long i = 0; i < n; i++) {
				struct ridge_occupancy_result r;
				if (occupancy_compute(&gpus[cfg[i].gpu], &cfg[i].in, &r, err, sizeof err) != 0)
					r.blocks_per_sm = -1;
				ridge_blocks[i] = r.blocks_per_sm;
			}
		double u1 = now();
		if (u1 - u0 < best_unprepared)
			best_unprepared = u1 - u0;
		for (long i = 0; i < n; i++)
			unprepared_mismatches += pass == 0 && ridge_blocks[i] < 0;
		/* occupancy_device_compute(): the device prepared once, as the header's cudaOccDeviceProp is */
		double t0 = now();
		for (int rep = 0; rep < repeats; rep++)
			for (long i = 0; i < n; i++) {
				struct ridge_occupancy_result r;
				if (occupancy_device_compute(&devs[cfg[i].gpu], &cfg[i].in, &r, err, sizeof err) != 0)
					r.blocks_per_sm = -1;
				ridge_blocks[i] = r.blocks_per_sm;
			}
		double t1 = now();
		for (int rep = 0; rep < repeats; rep++)
			for (long i = 0; i < n; i++) {
				cudaOccResult h;
				if (cudaOccMaxActiveBlocksPerMultiprocessor(&h, &props[cfg[i].gpu], &cfg[i].attr,
									    &cfg[i].state, cfg[i].block_size,
									    cfg[i].dynamic_smem) != CUDA_OCC_SUCCESS)
					h.activeBlocksPerMultiprocessor = -1;
				header_blocks[i] = h.activeBlocksPerMultiprocessor;
			}
		double t2 = now();
		if (t1 - t0 < best_ridge)
			best_ridge = t1 - t0;
		if (t2 - t1 < best_header)
			best_header = t2 - t1;
	}
	long mismatches = unprepared_mismatches;
	for (long i = 0; i < n; i++)
		mismatches += ridge_blocks[i] != header_blocks[i];
	printf("occupancy bench: %ld configurations (%d GPUs) x %d, best of %d passes\n", n, ngpu, repeats, passes);
	printf("  cudaOccMaxActiveBlocksPerMultiprocessor  %7.1f ns per configuration\n",
	       best_header / ((double)n * repeats) * 1e9);
	printf("  ridge occupancy_device_compute           %7.1f ns per configuration\n",
	       best_ridge / ((double)n * repeats) * 1e9);
	printf("  ridge occupancy_compute (entry per call) %7.1f ns per configuration\n",
	       best_unprepared / ((double)n * repeats) * 1e9);
	printf("  ratio header/ridge: %.2f (%s); %ld result mismatches\n", best_header / best_ridge,
	       best_ridge <= best_header ? "ridge is at least as fast" : "ridge is SLOWER", mismatches);
	free(cfg);
	free(ridge_blocks);
	free(header_blocks);
	return mismatches ? 1 : 0;
}
