/* Occupancy: how many blocks (workgroups) of one kernel an SM (CU) holds at once.
 *
 * NVIDIA: the CUDA runtime's calculator, exactly (cuda_occupancy.h's
 * cudaOccMaxActiveBlocksPerMultiprocessor and
 * cudaOccMaxPotentialOccupancyBlockSize, with the function attributes the
 * runtime fills from cudaFuncAttributes). Every limit and granularity is read
 * from struct ridge_gpu (hwdb), none is hard-coded per architecture.
 *
 * AMD CDNA2/CDNA3: the hardware rule as LLVM's AMDGPU backend states it, and
 * HIP's simpler hipOccupancyMaxActiveBlocksPerMultiprocessor rule (CLR); both
 * are reported and a disagreement is flagged.
 *
 * docs/models/occupancy.md gives every formula and where it comes from. */
#ifndef RIDGE_OCCUPANCY_H
#define RIDGE_OCCUPANCY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu.h"

/* What stops one more block from fitting. */
enum ridge_occupancy_limiter {
	RIDGE_OCC_WARPS,         /* warp (wave) slots of the SM */
	RIDGE_OCC_REGISTERS,     /* register file (AMD: VGPRs and SGPRs) */
	RIDGE_OCC_SHARED_MEMORY, /* shared memory (AMD: LDS) */
	RIDGE_OCC_BLOCKS,        /* resident blocks per SM */
	RIDGE_OCC_BARRIERS,      /* named-barrier sets (sm_90+); AMD: barrier slots */
	RIDGE_OCC_VIRTUAL,       /* virtual resources (CC 10-12, when a kernel uses them) */
	RIDGE_OCC_LIMITER_COUNT
};

/* cudaFuncSetCacheConfig: consulted only when the carveout is the default. */
enum ridge_occupancy_cache {
	RIDGE_OCC_CACHE_NONE,
	RIDGE_OCC_CACHE_PREFER_SHARED,
	RIDGE_OCC_CACHE_PREFER_L1,
	RIDGE_OCC_CACHE_PREFER_EQUAL
};

/* A limit that does not constrain (the header's INT_MAX). */
#define RIDGE_OCC_UNLIMITED INT_MAX
#define RIDGE_OCC_CARVEOUT_DEFAULT (-1)

/* One kernel launch configuration. Start from occupancy_input_init(). */
struct ridge_occupancy_input {
	int threads_per_block;
	int regs_per_thread;  /* NVIDIA registers (ptxas "Used N registers"); AMD ArchVGPRs */
	double static_smem;   /* bytes: ptxas "bytes smem" (no driver reserve); AMD: group segment LDS */
	double dynamic_smem;  /* bytes asked for at launch (AMD: dynamic LDS) */
	int carveout_percent; /* cudaFuncAttributePreferredSharedMemoryCarveout, 0..100 or -1 (default) */
	enum ridge_occupancy_cache cache_config;
	/* The kernel raised cudaFuncAttributeMaxDynamicSharedMemorySize above the
	 * default per-block limit (opt-in). */
	bool optin;
	/* That attribute's value, bytes; < 0 derives it as the runtime does: the
	 * opt-in maximum minus static smem with optin, else the default per-block
	 * limit minus static smem. */
	double max_dynamic_smem;
	int barriers;          /* named barriers per block (ptxas "used N barriers"); 0: not counted */
	int virtual_resources; /* virtual resources per block (0: none) */
	int max_threads_limit; /* the kernel's own block-size limit (launch bounds); 0: the device's */
	/* AMD only */
	int agprs; /* accumulation VGPRs (unified file with ArchVGPRs on CDNA) */
	int sgprs; /* total SGPRs incl. VCC etc.; 0: not counted */
};

/* AMD detail: the LLVM (hardware) rule and the HIP runtime rule side by side. */
struct ridge_occupancy_amd {
	int waves_per_workgroup;
	int vgprs_unified;       /* alignTo(VGPR, 4) + AGPR when AGPRs are used, else VGPR */
	int vgprs_allocated;     /* rounded up to the VGPR granule */
	int vgpr_waves_per_simd; /* LLVM */
	int sgpr_waves_per_simd; /* LLVM (no granule: the gfx9 SGPR table) */
	double lds_allocated;    /* LDS per workgroup rounded up to the LDS granule, bytes */
	/* hipOccupancyMaxActiveBlocksPerMultiprocessor */
	int hip_blocks_per_cu;
	int hip_vgpr_waves_per_simd;
	int hip_sgpr_waves_per_simd;
	int hip_limit_waves;     /* wave slots (8 per SIMD, pooled per CU) */
	int hip_limit_registers; /* VGPR and SGPR waves, pooled per CU */
	int hip_limit_lds;       /* LDS per CU / LDS per workgroup, no granule */
	bool rules_agree;        /* hip_blocks_per_cu == blocks_per_sm */
};

struct ridge_occupancy_result {
	int blocks_per_sm;                    /* blocks (workgroups) per SM (CU) */
	int active_warps;                     /* warps (waves) resident: blocks x warps per block */
	int max_warps;                        /* threads per SM / warp size */
	double occupancy;                     /* active_warps / max_warps, 0..1 */
	enum ridge_occupancy_limiter limiter; /* the limit named when several tie: see README */
	unsigned limiter_mask;                /* bit (1u << limiter) for every limit equal to blocks_per_sm */
	int limit[RIDGE_OCC_LIMITER_COUNT];   /* blocks allowed by each resource; RIDGE_OCC_UNLIMITED if none */
	int warps_per_block;
	int regs_per_warp;       /* allocated: regs x warp size rounded up to the allocation unit */
	int regs_per_block;      /* allocated per block (regsAllocatedPerCTA) */
	double smem_per_block;   /* allocated: static + reserve + dynamic rounded up (NVIDIA) */
	double smem_per_sm;      /* the SM's shared-memory configuration the blocks share */
	double smem_preference;  /* the carveout preference, rounded up to a legal size */
	double smem_block_limit; /* per-block limit that applied (default or opt-in, with reserve) */
	double max_dynamic_smem; /* the effective cudaFuncAttributeMaxDynamicSharedMemorySize */
	/* Why a resource gave 0 blocks (a legal configuration that cannot launch). */
	bool dynamic_over_max;          /* dynamic smem above max_dynamic_smem: needs opt-in */
	bool smem_over_block;           /* allocation above the per-block limit */
	bool regs_over_block;           /* registers above the per-block limit (incl. the hardware check) */
	bool threads_over_block;        /* block larger than the device (or kernel) allows */
	struct ridge_occupancy_amd amd; /* valid when the GPU is AMD */
};

/* A GPU's occupancy constants, validated and converted once (the analogue of
 * the header's cudaOccDeviceProp). Loops over many configurations (sweeps,
 * searches, the benchmark) use this; occupancy_compute() builds one per call.
 * It points at gpu, which must outlive it. */
struct ridge_occupancy_device {
	const struct ridge_gpu *gpu;
	bool amd;
	int warp_size, warp_shift; /* shift: log2 of the warp size, -1 if not a power of two */
	int max_threads_per_block, max_threads_per_sm, max_warps, max_blocks;
	int regs_per_sm, regs_per_block, max_regs_per_thread;
	int reg_unit, reg_unit_shift, sub_partitions, sub_partition_shift, regs_per_sub_partition;
	int smem_per_sm, smem_per_block, smem_optin, smem_reserve, smem_unit, smem_unit_shift;
	int carveout_count;
	int carveouts[RIDGE_MAX_CARVEOUTS]; /* legal SM shared-memory sizes, bytes, ascending */
	int barrier_sets;                   /* blocks per SM x barrier sets per block slot; 0: no barrier limit */
	int virtual_per_sm;                 /* 0: not counted */
	/* AMD */
	int simds, waves_per_simd, vgprs_per_lane, vgpr_granule, sgprs_per_simd, sgpr_granule, max_sgprs;
	int max_arch_vgprs, lds_granule, barrier_slots;
};

/* Returns 0, or -1 with a message when the entry lacks occupancy data. */
int occupancy_device_init(const struct ridge_gpu *gpu, struct ridge_occupancy_device *dev, char *err, size_t err_len);
/* occupancy_compute() on a prepared device. */
int occupancy_device_compute(const struct ridge_occupancy_device *dev, const struct ridge_occupancy_input *in,
			     struct ridge_occupancy_result *out, char *err, size_t err_len);

/* Defaults: nothing used, default carveout, derived max dynamic smem, and one
 * barrier (what the runtime's header assumes for a cudaFuncAttributes). */
void occupancy_input_init(struct ridge_occupancy_input *in);

/* The core calculation (the runtime's, on NVIDIA). Returns 0, or -1 with a
 * message for input the runtime itself rejects (threads < 1, registers above
 * the GPU's per-thread maximum, negative or fractional smem, carveout outside
 * -1..100, a GPU entry without occupancy data). A legal configuration that
 * cannot launch returns 0 with blocks_per_sm == 0 and the limit that is 0. */
int occupancy_compute(const struct ridge_gpu *gpu, const struct ridge_occupancy_input *in,
		      struct ridge_occupancy_result *out, char *err, size_t err_len);

/* The result plus what a user asks next. */
struct ridge_occupancy_analysis {
	struct ridge_occupancy_result result;
	/* The smallest change that gains one block (blocks_per_sm + 1), other
	 * inputs unchanged; has_* is false when no such change exists (another
	 * resource also limits at blocks_per_sm). */
	bool has_regs_change;
	int regs_to_drop; /* registers per thread (AMD: unified VGPRs) */
	bool has_smem_change;
	double smem_to_drop; /* bytes of static + dynamic smem (AMD: LDS) */
	/* The textbook arithmetic, for explaining a difference (NVIDIA). */
	int smem_limit_without_reserve;   /* smem limit if the driver reserved nothing per block */
	int blocks_without_reserve;       /* the result under that assumption */
	int regs_limit_naive;             /* regs per SM / (regs x threads): no allocation granularity */
	int blocks_naive_regs;            /* the result with that register limit */
	double occupancy_without_reserve; /* blocks_without_reserve x warps per block / max warps */
	double occupancy_naive_regs;      /* the same for blocks_naive_regs */
	/* The register limit's terms (NVIDIA): warps one sub-partition's
	 * registers hold at regs_per_warp (0 without registers), and the warps
	 * of a block counted in whole sub-partitions. */
	int reg_warps_per_sub_partition;
	int warps_counted;
};

int occupancy_analyze(const struct ridge_gpu *gpu, const struct ridge_occupancy_input *in,
		      struct ridge_occupancy_analysis *out, char *err, size_t err_len);

/* hipOccupancyMaxPotentialBlockSize as ROCm CLR computes it
 * (hipamd/src/hip_platform.cpp, ihipOccupancyMaxActiveBlocksPerMultiprocessor
 * with bCalcPotentialBlkSz): no search. The block-size limit (the kernel's,
 * else the device's 1024) rounded up to the wavefront; the threads the
 * registers allow per CU, alu = SIMDs x min(8, VGPR waves, SGPR waves) x 64
 * (VGPR waves = 512 / alignUp(VGPRs, 8), SGPR waves = 800 / alignUp(SGPRs,
 * 16)); block = min(alu, limit); grid = CUs x min(alu / block, LDS per CU /
 * LDS per workgroup). It ignores the hardware's workgroup-slot, barrier and
 * LDS-granule limits, so it can differ from occupancy_max_potential_block_size
 * (mi300x, 96 VGPRs: HIP 1024 threads, grid 304; the hardware rule's search
 * 640 x 2, grid 608). AMD entries only; *blocks_per_cu = alu / block capped
 * by LDS (0 and block 0 when HIP would fail: VGPR waves of 0). */
int occupancy_hip_max_potential_block_size(const struct ridge_gpu *gpu, const struct ridge_occupancy_input *in,
					   int *block_size, int *grid, int *blocks_per_cu, char *err, size_t err_len);

/* cudaOccMaxPotentialOccupancyBlockSize: the block size (up to the device's or
 * the kernel's limit, in warp-size steps) with the most resident threads per
 * SM; ties go to the larger block; stops early at the SM's thread maximum.
 * in->threads_per_block is ignored. *min_grid = blocks x SM count. */
int occupancy_max_potential_block_size(const struct ridge_gpu *gpu, const struct ridge_occupancy_input *in,
				       int *block_size, int *min_grid, int *blocks_per_sm, char *err, size_t err_len);

/* "warps", "registers", "shared_memory", "blocks", "barriers", "virtual_resources". */
const char *occupancy_limiter_name(enum ridge_occupancy_limiter limiter);

/* For the runtime cross-check run by ridge-probe (--only occupancy) on a real
 * device: the same configuration expressed in the runtime's own terms, so the
 * probe can set a compiled kernel's attributes from it and compare
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor with occupancy_compute().
 * The probe's recipe: take occupancy_random_input(), replace regs_per_thread
 * and static_smem with the compiled kernel's cudaFuncAttributes (numRegs,
 * sharedSizeBytes), call occupancy_runtime_case(), then
 *   cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, max_dynamic_shared_size)
 *   cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, carveout_percent)
 *   cudaFuncSetCacheConfig(k, (cudaFuncCache)cache_config)   (same numbering)
 *   cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k, block_size, dynamic_smem)
 * and compare n with occupancy_compute()'s blocks_per_sm (num_barriers: the
 * kernel's own, from ptxas; the runtime reads it from the binary). */
struct ridge_occupancy_runtime_case {
	int block_size;
	int num_regs;                   /* the kernel's register count */
	size_t shared_size_bytes;       /* cudaFuncAttributes.sharedSizeBytes */
	size_t dynamic_smem;            /* launch argument */
	size_t max_dynamic_shared_size; /* cudaFuncAttributeMaxDynamicSharedMemorySize to set */
	int carveout_percent;           /* cudaFuncAttributePreferredSharedMemoryCarveout (-1: leave) */
	int cache_config;               /* 0 none, 1 prefer shared, 2 prefer L1, 3 prefer equal */
	int num_barriers;
};

/* Fills the runtime's terms from a model input (derived fields resolved as
 * occupancy_compute resolves them). Returns 0, or -1 with a message. */
int occupancy_runtime_case(const struct ridge_gpu *gpu, const struct ridge_occupancy_input *in,
			   struct ridge_occupancy_runtime_case *out, char *err, size_t err_len);

/* A deterministic pseudo-random legal NVIDIA configuration for cross-checks
 * (block size 1..max, registers 1..per-thread max, static smem up to the
 * default per-block limit, dynamic smem up to the opt-in maximum, carveout
 * -1, 0, 100 or random, opt-in on/off, cache config, 0..16 barriers).
 * *state is a 64-bit seed, advanced on each call. */
void occupancy_random_input(const struct ridge_gpu *gpu, uint64_t *state, struct ridge_occupancy_input *out);

/* ---- compiler resource reports ---- */

/* One kernel from `nvcc -Xptxas -v`, `cuobjdump --dump-resource-usage` or
 * AMD's -Rpass-analysis=kernel-resource-usage. Sizes are bytes; -1 where the
 * report does not say. */
struct ridge_kernel_usage {
	char name[1024];
	char arch[32];                    /* "sm_90", "gfx942", or "" */
	int line;                         /* line of the report that gave the register count */
	int regs;                         /* NVIDIA registers; AMD ArchVGPRs */
	int barriers;                     /* -1: not reported */
	double smem;                      /* static shared memory without the driver reserve (AMD: LDS) */
	double stack;                     /* cumulative stack size / frame */
	double spill_stores, spill_loads; /* -1: not reported */
	double cmem;                      /* constant bank 0, -1: not reported */
	double local;                     /* cuobjdump LOCAL, -1: not reported */
	int agprs, sgprs;                 /* AMD; -1: not reported */
	int compiler_occupancy;           /* AMD "Occupancy [waves/SIMD]"; -1: not reported */
	double scratch;                   /* AMD scratch bytes per lane; -1: not reported */
};

enum ridge_usage_format { RIDGE_USAGE_PTXAS, RIDGE_USAGE_CUOBJDUMP, RIDGE_USAGE_AMD_REMARKS };

/* Parses a report held in memory (text, len bytes) into the caller's array
 * of capacity kernels. Returns 0 with *count = every kernel in the report
 * (>= 1; when it exceeds capacity only the first capacity are filled: call
 * again with a larger array, e.g. first with capacity 0 to count). Returns -1
 * with "LINE:COL: ..." or "LINE: ..." (or "no kernels ...") in err for
 * garbage or an empty report; the caller prefixes the file name. For
 * cuobjdump, smem_reserve (the GPU's per-block reserve) is subtracted from
 * SHARED, which already includes it. */
int occupancy_parse_usage(const char *text, size_t len, enum ridge_usage_format format, double smem_reserve,
			  struct ridge_kernel_usage *kernels, int capacity, int *count, char *err, size_t err_len);

#endif
