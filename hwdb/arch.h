/* What `ridge hw check` checks an entry's architecture constants and peaks
 * against: the per-compute-capability occupancy constants of the CUDA
 * runtime's calculator (cuda_occupancy.h, transcribed; the cross-check suite
 * compares this transcription with the header itself), and the FLOP per clock
 * per SM (per CU on AMD) of each architecture's datapaths, from the vendors'
 * whitepapers, for peak = SMs x clock x rate. */
#ifndef RIDGE_HWDB_ARCH_H
#define RIDGE_HWDB_ARCH_H

#include <stdbool.h>

#include "gpu.h"

#define HWDB_ARCH_MAX_CARVEOUTS 12

/* cuda_occupancy.h's constants for one compute capability. */
struct hwdb_cc_occupancy {
	int blocks_per_sm;            /* cudaOccMaxBlocksPerMultiprocessor */
	int barriers_per_block_slot;  /* cudaOccMaxBlocksPerSMBlockBarrierLimit: 2 or 1; 0 before 9.0
				      * (the header applies the barrier limit from 9.0 on) */
	int smem_alloc_unit;          /* cudaOccSMemAllocationGranularity, bytes */
	int reg_alloc_unit;           /* cudaOccRegAllocationGranularity */
	int sub_partitions;           /* cudaOccSubPartitionsPerMultiprocessor */
	int virtual_resources_per_sm; /* cudaOccMaxVirtualResourceCountPerSM */
	int smem_reserved_per_block;  /* cudaDeviceProp.reservedSharedMemPerBlock: 1 KiB from 8.0 */
	int carveout_count;           /* cudaOccAlignUpShmemSizeVoltaPlus's legal sizes */
	int carveout_kib[HWDB_ARCH_MAX_CARVEOUTS];
};

/* The constants for compute capability major.minor; false when the header
 * does not know it (it answers CUDA_OCC_ERROR_UNKNOWN_DEVICE) or ridge's
 * table stops before it (7.0 and later). */
bool hwdb_cc_occupancy(int major, int minor, struct hwdb_cc_occupancy *out);

/* Dense FLOP (OP) per clock per SM of one datapath; up to three values where
 * products of one architecture differ (GeForce's half-rate FP32 accumulate). */
struct hwdb_peak_rate {
	enum ridge_dtype dtype;
	bool matrix;
	int per_clock[3]; /* 0-terminated */
};

/* The rates of gpu's architecture (NVIDIA by compute capability, AMD by gfx
 * target); *count 0 when ridge has none for it. */
const struct hwdb_peak_rate *hwdb_peak_rates(const struct ridge_gpu *gpu, int *count, const char **source);

/* How far a peak may sit from SMs x clock x rate before hw check refuses it:
 * datasheets round (L40S bf16 362.05 vs 366.4 computed: 1.2%). */
#define HWDB_PEAK_TOLERANCE 0.05

#endif
