/* Occupancy calculator: see occupancy.h and docs/models/occupancy.md.
 *
 * The NVIDIA path follows cuda_occupancy.h (CUDA 13.0) step by step, with the
 * header's integer arithmetic (floors, round-ups, INT_MAX for "no limit"), so
 * that results are identical to cudaOccMaxActiveBlocksPerMultiprocessor; the
 * constants the header hard-codes per compute capability come from the hwdb
 * entry instead (gpu->nv.*, gpu->max_blocks_per_sm, ...). */
#include "occupancy.h"
#include "fail.h"

#include <stdio.h>
#include <string.h>

static inline int div_up(int x, int y)
{
	return (x + y - 1) / y;
}

static inline int round_up(int x, int y)
{
	return y * div_up(x, y);
}

static inline int min_int(int a, int b)
{
	return b < a ? b : a;
}

/* Smem sizes must be whole bytes in a range where int arithmetic is safe
 * (three of them summed stay below INT_MAX). */
#define SMEM_MAX_BYTES (1 << 29)

static inline bool whole_bytes(double v)
{
	return v >= 0 && v <= (double)SMEM_MAX_BYTES && v == (double)(int)v;
}

void occupancy_input_init(struct ridge_occupancy_input *in)
{
	memset(in, 0, sizeof *in);
	in->carveout_percent = RIDGE_OCC_CARVEOUT_DEFAULT;
	in->cache_config = RIDGE_OCC_CACHE_NONE;
	in->max_dynamic_smem = -1;
	in->barriers = 1;
}

const char *occupancy_limiter_name(enum ridge_occupancy_limiter limiter)
{
	static const char *const names[RIDGE_OCC_LIMITER_COUNT] = {
		"warps", "registers", "shared_memory", "blocks", "barriers", "virtual_resources",
	};
	return (unsigned)limiter < RIDGE_OCC_LIMITER_COUNT ? names[limiter] : NULL;
}

/* When several limits tie, the one named: the structural limits first (at
 * 100% occupancy "warps" is the honest answer), then the resources a kernel
 * author can trade. The full set is in limiter_mask. */
static inline void finish(const struct ridge_occupancy_device *dev, struct ridge_occupancy_result *r)
{
	const int *l = r->limit;
	int blocks = min_int(min_int(min_int(l[0], l[1]), min_int(l[2], l[3])), min_int(l[4], l[5]));
	unsigned mask = (unsigned)(l[RIDGE_OCC_WARPS] == blocks) << RIDGE_OCC_WARPS |
			(unsigned)(l[RIDGE_OCC_REGISTERS] == blocks) << RIDGE_OCC_REGISTERS |
			(unsigned)(l[RIDGE_OCC_SHARED_MEMORY] == blocks) << RIDGE_OCC_SHARED_MEMORY |
			(unsigned)(l[RIDGE_OCC_BLOCKS] == blocks) << RIDGE_OCC_BLOCKS |
			(unsigned)(l[RIDGE_OCC_BARRIERS] == blocks) << RIDGE_OCC_BARRIERS |
			(unsigned)(l[RIDGE_OCC_VIRTUAL] == blocks) << RIDGE_OCC_VIRTUAL;
	/* The same bits in priority order, so the first set bit names the
	 * limiter (no data-dependent branches on this hot path). */
	unsigned ranked = (mask >> RIDGE_OCC_WARPS & 1u) | (mask >> RIDGE_OCC_BLOCKS & 1u) << 1 |
			  (mask >> RIDGE_OCC_REGISTERS & 1u) << 2 | (mask >> RIDGE_OCC_SHARED_MEMORY & 1u) << 3 |
			  (mask >> RIDGE_OCC_BARRIERS & 1u) << 4 | (mask >> RIDGE_OCC_VIRTUAL & 1u) << 5;
	static const enum ridge_occupancy_limiter by_rank[RIDGE_OCC_LIMITER_COUNT] = {
		RIDGE_OCC_WARPS,         RIDGE_OCC_BLOCKS,   RIDGE_OCC_REGISTERS,
		RIDGE_OCC_SHARED_MEMORY, RIDGE_OCC_BARRIERS, RIDGE_OCC_VIRTUAL,
	};
	enum ridge_occupancy_limiter limiter = by_rank[__builtin_ctz(ranked | 1u << 5)];
	r->blocks_per_sm = blocks;
	r->limiter_mask = mask;
	r->limiter = limiter;
	r->max_warps = dev->max_warps;
	r->active_warps = blocks * r->warps_per_block;
	r->occupancy = (double)r->active_warps / dev->max_warps;
}

/* x / d for x >= 0, by a shift when d is a power of two (shift >= 0). */
static inline int div_by(int x, int d, int shift)
{
	return shift >= 0 ? x >> shift : x / d;
}

static inline int round_up_by(int x, int d, int shift)
{
	return shift >= 0 ? (x + d - 1) & ~(d - 1) : d * ((x + d - 1) / d);
}

static int log2_exact(int v)
{
	if (v <= 0 || (v & (v - 1)))
		return -1;
	return __builtin_ctz((unsigned)v);
}

/* ---------------------------------------------------------------- device */

static bool positive_int(double v)
{
	return whole_bytes(v) && v > 0;
}

int occupancy_device_init(const struct ridge_gpu *gpu, struct ridge_occupancy_device *dev, char *err, size_t err_len)
{
	/* Every field is written below (the NVIDIA ones zero on AMD and the
	 * reverse); no memset: its rep-stos start-up was a third of this call. */
	dev->gpu = gpu;
	dev->amd = gpu->vendor == RIDGE_VENDOR_AMD;
	dev->regs_per_sm = dev->regs_per_block = dev->max_regs_per_thread = 0;
	dev->reg_unit = dev->sub_partitions = dev->regs_per_sub_partition = 0;
	dev->reg_unit_shift = dev->sub_partition_shift = -1;
	dev->smem_reserve = dev->smem_unit = 0;
	dev->smem_unit_shift = -1;
	dev->carveout_count = dev->barrier_sets = dev->virtual_per_sm = 0;
	dev->simds = dev->waves_per_simd = dev->vgprs_per_lane = dev->vgpr_granule = 0;
	dev->sgprs_per_simd = dev->sgpr_granule = dev->max_sgprs = dev->max_arch_vgprs = 0;
	dev->lds_granule = dev->barrier_slots = 0;
	if (gpu->warp_size <= 0 || gpu->max_threads_per_sm <= 0 || gpu->max_threads_per_block <= 0 ||
	    gpu->max_threads_per_sm < gpu->warp_size || gpu->max_blocks_per_sm <= 0 ||
	    !positive_int(gpu->smem_per_sm) || !positive_int(gpu->smem_per_block) ||
	    !whole_bytes(gpu->smem_per_block_optin))
		return model_fail(err, err_len, "%s: the hardware entry lacks occupancy data", gpu->id);
	dev->warp_size = gpu->warp_size;
	dev->warp_shift = log2_exact(gpu->warp_size);
	dev->max_threads_per_block = gpu->max_threads_per_block;
	dev->max_threads_per_sm = gpu->max_threads_per_sm;
	dev->max_warps = div_by(gpu->max_threads_per_sm, gpu->warp_size, dev->warp_shift);
	dev->max_blocks = gpu->max_blocks_per_sm;
	dev->smem_per_sm = (int)gpu->smem_per_sm;
	dev->smem_per_block = (int)gpu->smem_per_block;
	dev->smem_optin = (int)gpu->smem_per_block_optin;
	if (dev->amd) {
		const struct ridge_amd_occupancy *a = &gpu->amd;
		if (a->simds_per_cu <= 0 || a->waves_per_simd <= 0 || a->vgprs_per_lane <= 0 || a->vgpr_granule <= 0 ||
		    a->sgprs_per_simd <= 0 || a->sgpr_granule <= 0 || a->max_sgprs_per_wave <= 0 ||
		    !positive_int(a->lds_granule) || a->barrier_slots <= 0)
			return model_fail(err, err_len, "%s: the hardware entry lacks CDNA occupancy data", gpu->id);
		dev->simds = a->simds_per_cu;
		dev->waves_per_simd = a->waves_per_simd;
		dev->vgprs_per_lane = a->vgprs_per_lane;
		dev->vgpr_granule = a->vgpr_granule;
		dev->sgprs_per_simd = a->sgprs_per_simd;
		dev->sgpr_granule = a->sgpr_granule;
		dev->max_sgprs = a->max_sgprs_per_wave;
		/* ArchVGPRs and AGPRs each get half of the unified file (gfx90a ISA 3.6.4). */
		dev->max_arch_vgprs = a->vgprs_per_lane / 2;
		dev->lds_granule = (int)a->lds_granule;
		dev->barrier_slots = a->barrier_slots;
		return 0;
	}
	const struct ridge_nvidia_occupancy *nv = &gpu->nv;
	if (gpu->regs_per_sm <= 0 || gpu->regs_per_block <= 0 || nv->sub_partitions <= 0 || nv->reg_alloc_unit <= 0 ||
	    nv->max_regs_per_thread <= 0 || !positive_int(nv->smem_alloc_unit) ||
	    !whole_bytes(nv->smem_reserved_per_block) || nv->carveout_count < 0 ||
	    nv->carveout_count > RIDGE_MAX_CARVEOUTS || nv->barriers_per_block_slot < 0 ||
	    nv->virtual_resources_per_sm < 0)
		return model_fail(err, err_len, "%s: the hardware entry lacks occupancy data", gpu->id);
	dev->regs_per_sm = gpu->regs_per_sm;
	dev->regs_per_block = gpu->regs_per_block;
	dev->max_regs_per_thread = nv->max_regs_per_thread;
	dev->reg_unit = nv->reg_alloc_unit;
	dev->reg_unit_shift = log2_exact(nv->reg_alloc_unit);
	dev->sub_partitions = nv->sub_partitions;
	dev->sub_partition_shift = log2_exact(nv->sub_partitions);
	dev->regs_per_sub_partition = div_by(gpu->regs_per_sm, nv->sub_partitions, dev->sub_partition_shift);
	dev->smem_reserve = (int)nv->smem_reserved_per_block;
	dev->smem_unit = (int)nv->smem_alloc_unit;
	dev->smem_unit_shift = log2_exact(dev->smem_unit);
	/* Whole bytes in range, checked without a branch per size (this setup
	 * runs on every occupancy_compute() call). */
	dev->carveout_count = nv->carveout_count;
	bool sizes_ok = true;
	for (int i = 0; i < nv->carveout_count; i++) {
		double v = nv->carveout_sizes[i];
		bool in_range = (v >= 0) & (v <= (double)SMEM_MAX_BYTES);
		int size = (int)(in_range ? v : 0.5);
		sizes_ok &= in_range & ((double)size == v);
		dev->carveouts[i] = size;
	}
	if (!sizes_ok)
		return model_fail(err, err_len, "%s: a carveout size is not a whole number of bytes", gpu->id);
	dev->barrier_sets = gpu->max_blocks_per_sm * nv->barriers_per_block_slot;
	dev->virtual_per_sm = nv->virtual_resources_per_sm;
	return 0;
}

/* ---------------------------------------------------------------- NVIDIA */

/* cudaOccAlignUpShmemSizeVoltaPlus: the smallest legal SM shared-memory size
 * at or above bytes. Returns -1 when bytes is above every legal size. */
static inline int align_up_carveout(const struct ridge_occupancy_device *dev, int bytes)
{
	/* Counting the sizes below bytes (sorted ascending) instead of stopping
	 * at the first fit: the trip count depends only on the GPU, so the loop
	 * is predicted; the data-dependent exit was a misprediction per call. */
	int below = 0;
	for (int i = 0; i < dev->carveout_count; i++)
		below += dev->carveouts[i] < bytes;
	return below < dev->carveout_count ? dev->carveouts[below] : -1;
}

/* cudaOccSMemPerMultiprocessor / cudaOccSMemPreferenceVoltaPlus: the shared
 * memory the carveout preference asks for, rounded up to a legal size. With
 * the default carveout, the cache config decides (-1: no preference). */
static inline int smem_preference(const struct ridge_occupancy_device *dev, const struct ridge_occupancy_input *in)
{
	static const int cache_percent[4] = { RIDGE_OCC_CARVEOUT_DEFAULT, 100, 0, 50 };
	if (dev->carveout_count == 0) /* no carveout (before Volta): the whole SM */
		return dev->smem_per_sm;
	int pct = in->carveout_percent;
	if (pct == RIDGE_OCC_CARVEOUT_DEFAULT && (unsigned)in->cache_config < 4)
		pct = cache_percent[in->cache_config];
	int want =
		pct == RIDGE_OCC_CARVEOUT_DEFAULT ? dev->smem_per_sm : (int)((long long)pct * dev->smem_per_sm / 100);
	return align_up_carveout(dev, want);
}

static inline __attribute__((always_inline)) int nv_compute(const struct ridge_occupancy_device *dev,
							    const struct ridge_occupancy_input *in,
							    struct ridge_occupancy_result *r, char *err, size_t len)
{
	const int threads = in->threads_per_block;
	const int warps = div_by(threads + dev->warp_size - 1, dev->warp_size, dev->warp_shift);
	r->warps_per_block = warps;

	/* Warps (cudaOccMaxBlocksPerSMWarpsLimit): the device's block-size limit. */
	const bool threads_over_block = threads > dev->max_threads_per_block;
	r->threads_over_block = threads_over_block;
	r->limit[RIDGE_OCC_WARPS] = threads_over_block ? 0 : dev->max_warps / warps;

	/* Registers (cudaOccMaxBlocksPerSMRegsLimit): per-warp allocation in
	 * units, warps placed per sub-partition, and the per-block check that the
	 * hardware makes as if every sub-partition got a warp. */
	const int regs_warp = round_up_by(in->regs_per_thread * dev->warp_size, dev->reg_unit, dev->reg_unit_shift);
	const int regs_block = regs_warp * warps;
	const int regs_hw = regs_warp * round_up_by(warps, dev->sub_partitions, dev->sub_partition_shift);
	r->regs_per_warp = regs_warp;
	r->regs_per_block = regs_block;
	const bool regs_over_block = dev->regs_per_block < regs_hw || dev->regs_per_block < regs_block;
	r->regs_over_block = regs_over_block;
	if (regs_over_block)
		r->limit[RIDGE_OCC_REGISTERS] = 0;
	else if (regs_warp > 0)
		r->limit[RIDGE_OCC_REGISTERS] = (dev->regs_per_sub_partition / regs_warp) * dev->sub_partitions / warps;
	else
		r->limit[RIDGE_OCC_REGISTERS] = RIDGE_OCC_UNLIMITED;

	r->limit[RIDGE_OCC_BLOCKS] = dev->max_blocks;

	/* Shared memory (cudaOccMaxBlocksPerSMSmemLimit), with the function
	 * attributes as the runtime fills them: the opt-in limit config, and the
	 * kernel's maximum dynamic size. */
	const int pref = smem_preference(dev, in);
	if (pref < 0)
		return model_fail(err, len, "%s: the carveout preference is above every legal shared-memory size",
				  dev->gpu->id);
	const int stat = (int)in->static_smem + dev->smem_reserve;
	const int dyn = (int)in->dynamic_smem;
	const int alloc = round_up_by(stat + dyn, dev->smem_unit, dev->smem_unit_shift);
	int max_dyn;
	if (in->max_dynamic_smem >= 0) {
		max_dyn = (int)in->max_dynamic_smem;
	} else {
		max_dyn = (in->optin ? dev->smem_optin : dev->smem_per_block) - (int)in->static_smem;
		if (max_dyn < 0)
			max_dyn = 0;
	}
	const int block_limit =
		(stat + max_dyn > dev->smem_per_block ? dev->smem_optin : dev->smem_per_block) + dev->smem_reserve;
	r->smem_per_block = alloc;
	r->smem_preference = pref;
	r->smem_block_limit = block_limit;
	r->max_dynamic_smem = max_dyn;
	/* Locals, not the result's fields: reading back two just-stored bytes
	 * as one word stalls store forwarding. */
	const bool dynamic_over_max = dyn > max_dyn;
	const bool smem_over_block = alloc > block_limit;
	r->dynamic_over_max = dynamic_over_max;
	r->smem_over_block = smem_over_block;
	if (dynamic_over_max | smem_over_block) {
		r->limit[RIDGE_OCC_SHARED_MEMORY] = 0;
		r->smem_per_sm = pref;
	} else {
		int capacity = pref;
		if (pref < alloc) { /* the driver picks the smallest configuration that fits a block */
			capacity = dev->carveout_count ? align_up_carveout(dev, alloc) : dev->smem_per_sm;
			if (capacity < 0)
				return model_fail(err, len,
						  "%s: %d bytes of shared memory per block fit no carveout size",
						  dev->gpu->id, alloc);
		}
		r->smem_per_sm = capacity;
		r->limit[RIDGE_OCC_SHARED_MEMORY] = alloc > 0 ? capacity / alloc : RIDGE_OCC_UNLIMITED;
	}

	/* Virtual resources (CC 10-12), counted only when the kernel uses them. */
	r->limit[RIDGE_OCC_VIRTUAL] = dev->virtual_per_sm > 0 && in->virtual_resources > 0
					      ? dev->virtual_per_sm / in->virtual_resources
					      : RIDGE_OCC_UNLIMITED;
	/* Barriers (sm_90+): named-barrier sets per block slot. */
	r->limit[RIDGE_OCC_BARRIERS] =
		dev->barrier_sets > 0 && in->barriers > 0 ? dev->barrier_sets / in->barriers : RIDGE_OCC_UNLIMITED;
	return 0;
}

/* ------------------------------------------------------------------- AMD */

static void amd_compute(const struct ridge_occupancy_device *dev, const struct ridge_occupancy_input *in,
			struct ridge_occupancy_result *r)
{
	struct ridge_occupancy_amd *d = &r->amd;
	const int wave = dev->warp_size;
	const int threads = in->threads_per_block;
	const int waves = div_up(threads, wave);
	const int slots = dev->simds * dev->waves_per_simd;
	r->warps_per_block = waves;
	d->waves_per_workgroup = waves;
	r->threads_over_block = threads > dev->max_threads_per_block;

	/* Unified VGPR file (gfx90a+): AGPRs start at a 4-aligned offset. */
	const int unified = in->agprs > 0 ? round_up(in->regs_per_thread, 4) + in->agprs : in->regs_per_thread;
	d->vgprs_unified = unified;
	d->vgprs_allocated = round_up(unified, dev->vgpr_granule);

	/* LLVM getNumWavesPerEUWithNumVGPRs: max(1, min(max waves, file / alignTo(V, granule))). */
	int vw = unified > 0 ? dev->vgprs_per_lane / d->vgprs_allocated : dev->waves_per_simd;
	d->vgpr_waves_per_simd = vw < 1 ? 1 : min_int(vw, dev->waves_per_simd);
	/* LLVM getOccupancyWithNumSGPRs (gfx9 table: <=80 10, <=88 9, <=100 8,
	 * else 7) equals floor(SGPRs per SIMD / SGPRs) for every legal count. */
	d->sgpr_waves_per_simd =
		in->sgprs > 0 ? min_int(dev->waves_per_simd, dev->sgprs_per_simd / in->sgprs) : dev->waves_per_simd;
	const int reg_waves = min_int(d->vgpr_waves_per_simd, d->sgpr_waves_per_simd);

	r->limit[RIDGE_OCC_WARPS] = r->threads_over_block ? 0 : slots / waves;
	r->limit[RIDGE_OCC_REGISTERS] = dev->simds * reg_waves / waves;
	r->limit[RIDGE_OCC_BLOCKS] = dev->max_blocks;
	/* Multi-wave workgroups hold a barrier slot; single-wave ones do not. */
	r->limit[RIDGE_OCC_BARRIERS] = waves > 1 ? dev->barrier_slots : RIDGE_OCC_UNLIMITED;
	r->limit[RIDGE_OCC_VIRTUAL] = RIDGE_OCC_UNLIMITED;

	const int lds = (int)in->static_smem + (int)in->dynamic_smem;
	const int lds_alloc = round_up(lds, dev->lds_granule);
	d->lds_allocated = lds_alloc;
	r->smem_per_block = lds_alloc;
	r->smem_per_sm = dev->smem_per_sm;
	r->smem_preference = dev->smem_per_sm;
	r->smem_block_limit = dev->smem_per_block;
	r->max_dynamic_smem = dev->smem_per_block - in->static_smem;
	r->smem_over_block = lds_alloc > dev->smem_per_block;
	if (r->smem_over_block)
		r->limit[RIDGE_OCC_SHARED_MEMORY] = 0;
	else
		r->limit[RIDGE_OCC_SHARED_MEMORY] = lds_alloc > 0 ? dev->smem_per_sm / lds_alloc : RIDGE_OCC_UNLIMITED;
	r->regs_per_warp = d->vgprs_allocated * wave;
	r->regs_per_block = r->regs_per_warp * waves;

	/* HIP (CLR ihipOccupancyMaxActiveBlocksPerMultiprocessor): VGPR waves
	 * without the floor of 1, SGPRs in granules of 16, waves pooled per CU,
	 * LDS without granule, no barrier-slot limit. */
	const int hv = unified > 0 ? dev->vgprs_per_lane / d->vgprs_allocated : dev->waves_per_simd;
	const int hs =
		in->sgprs > 0 ? dev->sgprs_per_simd / round_up(in->sgprs, dev->sgpr_granule) : RIDGE_OCC_UNLIMITED;
	d->hip_vgpr_waves_per_simd = hv;
	d->hip_sgpr_waves_per_simd = hs;
	const int aligned = round_up(threads, wave);
	if (r->threads_over_block) {
		d->hip_limit_waves = d->hip_limit_registers = d->hip_limit_lds = 0;
		d->hip_blocks_per_cu = 0;
	} else {
		d->hip_limit_waves = slots * wave / aligned;
		d->hip_limit_registers = dev->simds * min_int(hv, hs) * wave / aligned;
		d->hip_limit_lds = lds > 0 ? dev->smem_per_sm / lds : RIDGE_OCC_UNLIMITED;
		d->hip_blocks_per_cu = min_int(min_int(d->hip_limit_waves, d->hip_limit_registers), d->hip_limit_lds);
	}
}

/* ------------------------------------------------------------ public API */

static inline __attribute__((always_inline)) int check_input(const struct ridge_occupancy_device *dev,
							     const struct ridge_occupancy_input *in, char *err,
							     size_t len)
{
	if (in->threads_per_block < 1 || in->threads_per_block > (1 << 20))
		return model_fail(err, len, "threads per block %d is out of range (1..%d)", in->threads_per_block,
				  dev->max_threads_per_block);
	if (!whole_bytes(in->static_smem) || !whole_bytes(in->dynamic_smem) ||
	    (in->max_dynamic_smem >= 0 && !whole_bytes(in->max_dynamic_smem)))
		return model_fail(err, len, "shared memory must be a whole number of bytes from 0 to %d",
				  SMEM_MAX_BYTES);
	if (in->barriers < 0 || in->virtual_resources < 0)
		return model_fail(err, len, "barrier and virtual-resource counts cannot be negative");
	if (dev->amd) {
		if (in->regs_per_thread < 0 || in->regs_per_thread > dev->max_arch_vgprs)
			return model_fail(err, len, "%d VGPRs is out of range (0..%d ArchVGPRs on %s)",
					  in->regs_per_thread, dev->max_arch_vgprs, dev->gpu->id);
		if (in->agprs < 0 || in->agprs > dev->max_arch_vgprs)
			return model_fail(err, len, "%d AGPRs is out of range (0..%d on %s)", in->agprs,
					  dev->max_arch_vgprs, dev->gpu->id);
		if (in->sgprs < 0 || in->sgprs > dev->max_sgprs)
			return model_fail(err, len, "%d SGPRs is out of range (0..%d on %s)", in->sgprs, dev->max_sgprs,
					  dev->gpu->id);
		return 0;
	}
	if (in->regs_per_thread < 0 || in->regs_per_thread > dev->max_regs_per_thread)
		return model_fail(err, len, "%d registers per thread is out of range (0..%d on %s)",
				  in->regs_per_thread, dev->max_regs_per_thread, dev->gpu->id);
	if (in->carveout_percent < -1 || in->carveout_percent > 100)
		return model_fail(err, len, "carveout %d%% is out of range (-1 for the default, or 0..100)",
				  in->carveout_percent);
	return 0;
}

/* The calculation on checked input; every field of out is written. */
static inline __attribute__((always_inline)) int compute(const struct ridge_occupancy_device *dev,
							 const struct ridge_occupancy_input *in,
							 struct ridge_occupancy_result *out, char *err, size_t len)
{
	out->dynamic_over_max = false;
	if (dev->amd) {
		amd_compute(dev, in, out);
		finish(dev, out);
		out->amd.rules_agree = out->amd.hip_blocks_per_cu == out->blocks_per_sm;
		return 0;
	}
	memset(&out->amd, 0, sizeof out->amd);
	if (nv_compute(dev, in, out, err, len) != 0)
		return -1;
	finish(dev, out);
	return 0;
}

/* Cache-line aligned: without it this call's time moved by 10% with the code
 * layout of unrelated changes (make bench; docs/models/occupancy.md, "Speed"). */
__attribute__((aligned(64))) int occupancy_device_compute(const struct ridge_occupancy_device *dev,
							  const struct ridge_occupancy_input *in,
							  struct ridge_occupancy_result *out, char *err, size_t err_len)
{
	if (check_input(dev, in, err, err_len) != 0)
		return -1;
	return compute(dev, in, out, err, err_len);
}

int occupancy_compute(const struct ridge_gpu *gpu, const struct ridge_occupancy_input *in,
		      struct ridge_occupancy_result *out, char *err, size_t err_len)
{
	struct ridge_occupancy_device dev;
	if (occupancy_device_init(gpu, &dev, err, err_len) != 0)
		return -1;
	return occupancy_device_compute(&dev, in, out, err, err_len);
}

int occupancy_max_potential_block_size(const struct ridge_gpu *gpu, const struct ridge_occupancy_input *in,
				       int *block_size, int *min_grid, int *blocks_per_sm, char *err, size_t err_len)
{
	struct ridge_occupancy_device dev;
	if (occupancy_device_init(gpu, &dev, err, err_len) != 0)
		return -1;
	struct ridge_occupancy_input probe = *in;
	struct ridge_occupancy_result r;
	int limit = dev.max_threads_per_block;
	if (in->max_threads_limit > 0)
		limit = min_int(limit, in->max_threads_limit);
	probe.threads_per_block = limit;
	if (check_input(&dev, &probe, err, err_len) != 0)
		return -1;
	int best_size = 0, best_blocks = 0, best_threads = 0;
	for (int aligned = round_up(limit, dev.warp_size); aligned > 0; aligned -= dev.warp_size) {
		probe.threads_per_block = min_int(limit, aligned);
		if (compute(&dev, &probe, &r, err, err_len) != 0)
			return -1;
		int threads = probe.threads_per_block * r.blocks_per_sm;
		if (threads > best_threads) {
			best_size = probe.threads_per_block;
			best_blocks = r.blocks_per_sm;
			best_threads = threads;
		}
		if (best_threads == dev.max_threads_per_sm)
			break;
	}
	*block_size = best_size;
	*blocks_per_sm = best_blocks;
	*min_grid = best_blocks * gpu->sm_count;
	return 0;
}

int occupancy_hip_max_potential_block_size(const struct ridge_gpu *gpu, const struct ridge_occupancy_input *in,
					   int *block_size, int *grid, int *blocks_per_cu, char *err, size_t err_len)
{
	struct ridge_occupancy_device dev;
	if (occupancy_device_init(gpu, &dev, err, err_len) != 0)
		return -1;
	if (!dev.amd)
		return model_fail(err, err_len, "%s: hipOccupancyMaxPotentialBlockSize is AMD's", gpu->id);
	/* The unified VGPR count as the hardware rule reads it (one wave's block). */
	struct ridge_occupancy_input probe = *in;
	probe.threads_per_block = dev.warp_size;
	struct ridge_occupancy_result r = { 0 }; /* gcc 12 -fPIC -O2 sees a path around compute() */
	if (check_input(&dev, &probe, err, err_len) != 0 || compute(&dev, &probe, &r, err, err_len) != 0)
		return -1;
	*block_size = *grid = *blocks_per_cu = 0;
	int limit = in->max_threads_limit > 0 && in->max_threads_limit <= dev.max_threads_per_block
			    ? in->max_threads_limit
			    : dev.max_threads_per_block;
	int vgpr_waves = r.amd.vgprs_unified > 0 ? dev.vgprs_per_lane / r.amd.vgprs_allocated : dev.waves_per_simd;
	if (vgpr_waves == 0)
		return 0; /* CLR returns hipErrorUnknown */
	int waves = vgpr_waves;
	if (in->sgprs > 0)
		waves = min_int(waves, dev.sgprs_per_simd / round_up(in->sgprs, dev.sgpr_granule));
	int alu_threads = dev.simds * min_int(dev.waves_per_simd, waves) * dev.warp_size;
	int lds = (int)in->static_smem + (int)in->dynamic_smem;
	int lds_workgroups = lds > 0 ? dev.smem_per_sm / lds : RIDGE_OCC_UNLIMITED;
	int best = min_int(alu_threads, round_up(limit, dev.warp_size));
	if (best <= 0)
		return 0;
	*block_size = best;
	*blocks_per_cu = min_int(alu_threads / best, lds_workgroups);
	*grid = gpu->sm_count * *blocks_per_cu;
	return 0;
}

/* The result with inputs changed by a search (a failure counts as 0 blocks). */
static int blocks_with(const struct ridge_occupancy_device *dev, const struct ridge_occupancy_input *in,
		       struct ridge_occupancy_result *scratch)
{
	if (compute(dev, in, scratch, NULL, 0) != 0) {
		memset(scratch, 0, sizeof *scratch);
		return 0;
	}
	return scratch->blocks_per_sm;
}

/* Lowers static + dynamic smem by drop bytes, dynamic first. */
static void drop_smem(struct ridge_occupancy_input *in, int drop)
{
	int dyn = (int)in->dynamic_smem;
	int from_dyn = drop < dyn ? drop : dyn;
	in->dynamic_smem = dyn - from_dyn;
	in->static_smem = (int)in->static_smem - (drop - from_dyn);
}

static void suggest(const struct ridge_occupancy_device *dev, const struct ridge_occupancy_input *in,
		    struct ridge_occupancy_analysis *an)
{
	const struct ridge_occupancy_result *r = &an->result;
	const int target = r->blocks_per_sm + 1;
	struct ridge_occupancy_result scratch;
	struct ridge_occupancy_input t;
	if (r->threads_over_block)
		return;

	/* Registers: walk the count down until one more block fits, or until
	 * registers stop limiting and something else does. On AMD the count is
	 * the unified VGPR total (ArchVGPRs and AGPRs share the file). */
	int regs_now = dev->amd ? r->amd.vgprs_unified : in->regs_per_thread;
	for (int regs = regs_now - 1; regs >= 0; regs--) {
		t = *in;
		t.regs_per_thread = regs;
		if (dev->amd)
			t.agprs = 0;
		if (blocks_with(dev, &t, &scratch) >= target) {
			an->has_regs_change = true;
			an->regs_to_drop = regs_now - regs;
			break;
		}
		if (scratch.limit[RIDGE_OCC_REGISTERS] >= target)
			break;
	}

	/* Shared memory: walk the allocation down one unit at a time; for each,
	 * the largest use that still allocates it. */
	const int used = (int)in->static_smem + (int)in->dynamic_smem;
	const int unit = dev->amd ? dev->lds_granule : dev->smem_unit;
	const int reserve = dev->amd ? 0 : dev->smem_reserve;
	const int alloc = (int)r->smem_per_block;
	if (used == 0)
		return;
	for (int a = alloc - unit; a >= 0; a -= unit) {
		int drop = used + reserve - a;
		if (drop <= 0)
			continue;
		if (drop > used)
			drop = used;
		t = *in;
		drop_smem(&t, drop);
		if (blocks_with(dev, &t, &scratch) >= target) {
			an->has_smem_change = true;
			an->smem_to_drop = drop;
			break;
		}
		if (scratch.limit[RIDGE_OCC_SHARED_MEMORY] >= target || drop == used)
			break;
	}
}

int occupancy_analyze(const struct ridge_gpu *gpu, const struct ridge_occupancy_input *in,
		      struct ridge_occupancy_analysis *out, char *err, size_t err_len)
{
	memset(out, 0, sizeof *out);
	struct ridge_occupancy_device dev;
	if (occupancy_device_init(gpu, &dev, err, err_len) != 0 ||
	    occupancy_device_compute(&dev, in, &out->result, err, err_len) != 0)
		return -1;
	const struct ridge_occupancy_result *r = &out->result;
	suggest(&dev, in, out);
	out->smem_limit_without_reserve = r->limit[RIDGE_OCC_SHARED_MEMORY];
	out->blocks_without_reserve = r->blocks_per_sm;
	out->regs_limit_naive = r->limit[RIDGE_OCC_REGISTERS];
	out->blocks_naive_regs = r->blocks_per_sm;
	out->occupancy_without_reserve = out->occupancy_naive_regs = r->occupancy;
	if (dev.amd)
		return 0;

	/* The same GPU without the per-block reserve: the textbook arithmetic. */
	struct ridge_occupancy_device no_reserve = dev;
	no_reserve.smem_reserve = 0;
	struct ridge_occupancy_result scratch;
	blocks_with(&no_reserve, in, &scratch);
	out->smem_limit_without_reserve = scratch.limit[RIDGE_OCC_SHARED_MEMORY];
	out->blocks_without_reserve = scratch.blocks_per_sm;
	/* Registers as regs per SM / (regs x threads): no allocation granularity. */
	long long regs = (long long)in->regs_per_thread * in->threads_per_block;
	out->regs_limit_naive = regs > 0 ? (int)(dev.regs_per_sm / regs) : RIDGE_OCC_UNLIMITED;
	int others = RIDGE_OCC_UNLIMITED;
	for (int i = 0; i < RIDGE_OCC_LIMITER_COUNT; i++)
		if (i != RIDGE_OCC_REGISTERS)
			others = min_int(others, r->limit[i]);
	out->blocks_naive_regs = min_int(others, out->regs_limit_naive);
	out->occupancy_without_reserve = (double)out->blocks_without_reserve * r->warps_per_block / r->max_warps;
	out->occupancy_naive_regs = (double)out->blocks_naive_regs * r->warps_per_block / r->max_warps;
	out->reg_warps_per_sub_partition = r->regs_per_warp ? dev.regs_per_sub_partition / r->regs_per_warp : 0;
	out->warps_counted = (r->warps_per_block + dev.sub_partitions - 1) / dev.sub_partitions * dev.sub_partitions;
	return 0;
}

int occupancy_runtime_case(const struct ridge_gpu *gpu, const struct ridge_occupancy_input *in,
			   struct ridge_occupancy_runtime_case *out, char *err, size_t err_len)
{
	struct ridge_occupancy_result r;
	if (occupancy_compute(gpu, in, &r, err, err_len) != 0)
		return -1;
	memset(out, 0, sizeof *out);
	out->block_size = in->threads_per_block;
	out->num_regs = in->regs_per_thread;
	out->shared_size_bytes = (size_t)in->static_smem;
	out->dynamic_smem = (size_t)in->dynamic_smem;
	out->max_dynamic_shared_size = (size_t)r.max_dynamic_smem;
	out->carveout_percent = in->carveout_percent;
	out->cache_config = (int)in->cache_config;
	out->num_barriers = in->barriers;
	return 0;
}

/* splitmix64: a small, well-mixed deterministic generator. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static long long random_below(uint64_t *state, long long n)
{
	return n > 0 ? (long long)(next_random(state) % (uint64_t)n) : 0;
}

/* A size in 0..max bytes: zero, a round number, or anything. */
static long long random_bytes(uint64_t *state, long long max)
{
	switch (random_below(state, 4)) {
	case 0:
		return 0;
	case 1:
		return random_below(state, max / 1024 + 1) * 1024;
	default:
		return random_below(state, max + 1);
	}
}

void occupancy_random_input(const struct ridge_gpu *gpu, uint64_t *state, struct ridge_occupancy_input *out)
{
	occupancy_input_init(out);
	int max_threads = gpu->max_threads_per_block > 0 ? gpu->max_threads_per_block : 1024;
	switch (random_below(state, 6)) {
	case 0: /* warp multiples, the usual launch */
	case 1:
		out->threads_per_block = 32 * (int)(1 + random_below(state, max_threads / 32));
		break;
	case 2: /* small blocks, where the blocks-per-SM limit binds */
		out->threads_per_block = (int)(1 + random_below(state, 64));
		break;
	default:
		out->threads_per_block = (int)(1 + random_below(state, max_threads));
		break;
	}
	int max_regs = gpu->nv.max_regs_per_thread > 0 ? gpu->nv.max_regs_per_thread : 255;
	out->regs_per_thread = (int)(1 + random_below(state, random_below(state, 2) ? max_regs : 64));
	long long per_block = (long long)gpu->smem_per_block;
	long long optin = (long long)gpu->smem_per_block_optin;
	out->static_smem =
		(double)(random_below(state, 3) ? random_bytes(state, per_block / 4) : random_bytes(state, per_block));
	long long room_default = per_block - (long long)out->static_smem;
	long long room_optin = optin - (long long)out->static_smem;
	switch (random_below(state, 4)) {
	case 0:
		out->dynamic_smem = 0;
		break;
	case 1: /* fits without opt-in */
		out->dynamic_smem = (double)random_bytes(state, room_default > 0 ? room_default : 0);
		break;
	case 2: /* fits with opt-in */
		out->dynamic_smem = (double)random_bytes(state, room_optin > 0 ? room_optin : 0);
		break;
	default: /* anything up to the opt-in maximum, some past what fits */
		out->dynamic_smem = (double)random_bytes(state, optin);
		break;
	}
	switch (random_below(state, 4)) {
	case 0:
		out->carveout_percent = -1;
		break;
	case 1:
		out->carveout_percent = random_below(state, 2) ? 0 : 100;
		break;
	default:
		out->carveout_percent = (int)random_below(state, 101);
		break;
	}
	out->cache_config = (enum ridge_occupancy_cache)random_below(state, 4);
	out->optin = random_below(state, 2) == 0;
	out->barriers = random_below(state, 2) ? 1 : (int)random_below(state, 17);
}

/* --------------------------------------------------- compiler reports */

/* The caller's array: kernels past its capacity are parsed (and checked) in
 * a scratch slot and counted, so a second call with a big enough array gets
 * them all. No allocation here. */
struct usage_list {
	struct ridge_kernel_usage *items;
	int count, cap;
	struct ridge_kernel_usage scratch;
	struct ridge_kernel_usage *current; /* the kernel whose fields are being read */
};

static struct ridge_kernel_usage *usage_add(struct usage_list *list)
{
	struct ridge_kernel_usage *k = list->count < list->cap ? &list->items[list->count] : &list->scratch;
	list->count++;
	memset(k, 0, sizeof *k);
	k->barriers = -1;
	k->stack = 0;
	k->spill_stores = k->spill_loads = -1;
	k->cmem = -1;
	k->local = -1;
	k->agprs = k->sgprs = -1;
	k->compiler_occupancy = -1;
	k->scratch = -1;
	list->current = k;
	return k;
}

/* Reads an unsigned decimal at *p; returns false when there is none. */
/* A count in a compiler report: registers, barriers, bytes. At most INT_MAX,
 * since several are stored as int (a larger one was converted to int
 * regardless: undefined behaviour, found by tests/fuzz/fuzz_ptxas.c). */
static bool read_count(const char **p, double *out)
{
	const char *s = *p;
	if (*s < '0' || *s > '9')
		return false;
	double v = 0;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (*s - '0');
		if (v > INT_MAX)
			return false;
		s++;
	}
	*p = s;
	*out = v;
	return true;
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static const char *skip_spaces(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* Copies the text between quotes (' or `...') after marker into out. */
static bool quoted_after(const char *line, const char *marker, char *out, size_t len)
{
	const char *s = strstr(line, marker);
	if (!s)
		return false;
	s += strlen(marker);
	s = skip_spaces(s);
	if (*s != '\'' && *s != '`')
		return false;
	const char *e = strchr(s + 1, '\'');
	if (!e)
		return false;
	size_t n = (size_t)(e - (s + 1));
	if (n == 0)
		return false;
	if (n >= len)
		n = len - 1;
	memcpy(out, s + 1, n);
	out[n] = '\0';
	return true;
}

/* The fields of "Used 32 registers, used 1 barriers, 224 bytes cumulative
 * stack size, 32768 bytes smem, 360 bytes cmem[0]". Returns the column (1-based)
 * of the first field it cannot read, or 0 when all were read. */
static int ptxas_used_fields(const char *line, const char *fields, struct ridge_kernel_usage *k)
{
	const char *p = fields;
	double v;
	p += strlen("Used ");
	if (!read_count(&p, &v) || !starts(p, " registers"))
		return (int)(fields - line) + 1;
	k->regs = (int)v;
	p += strlen(" registers");
	while (*p == ',') {
		p = skip_spaces(p + 1);
		const char *field = p;
		if (starts(p, "used ")) {
			p += 5;
			if (!read_count(&p, &v) || !starts(p, " barriers"))
				return (int)(field - line) + 1;
			k->barriers = (int)v;
			p += strlen(" barriers");
			continue;
		}
		if (!read_count(&p, &v))
			return (int)(field - line) + 1;
		if (starts(p, " bytes cumulative stack size")) {
			k->stack = v;
			p += strlen(" bytes cumulative stack size");
		} else if (starts(p, " bytes smem")) {
			k->smem = v;
			p += strlen(" bytes smem");
		} else if (starts(p, " bytes cmem[")) {
			p += strlen(" bytes cmem[");
			double bank;
			if (!read_count(&p, &bank) || *p != ']')
				return (int)(field - line) + 1;
			p++;
			if (bank == 0)
				k->cmem = v;
		} else if (starts(p, " bytes lmem")) {
			k->local = v;
			p += strlen(" bytes lmem");
		} else if (starts(p, " textures") || starts(p, " samplers") || starts(p, " surfaces")) {
			p += strlen(" textures");
		} else {
			return (int)(field - line) + 1;
		}
	}
	p = skip_spaces(p);
	if (*p && *p != '\r')
		return (int)(p - line) + 1;
	return 0;
}

/* "    224 bytes stack frame, 220 bytes spill stores, 264 bytes spill loads" */
static bool ptxas_properties(const char *p, struct ridge_kernel_usage *k)
{
	double frame, stores, loads;
	p = skip_spaces(p);
	if (!read_count(&p, &frame) || !starts(p, " bytes stack frame, "))
		return false;
	p += strlen(" bytes stack frame, ");
	if (!read_count(&p, &stores) || !starts(p, " bytes spill stores, "))
		return false;
	p += strlen(" bytes spill stores, ");
	if (!read_count(&p, &loads) || !starts(p, " bytes spill loads"))
		return false;
	if (k->stack < frame)
		k->stack = frame;
	k->spill_stores = stores;
	k->spill_loads = loads;
	return true;
}

struct parse_state {
	struct usage_list list;
	char kernel[sizeof((struct ridge_kernel_usage *)0)->name];
	char arch[32];
	bool have_kernel;      /* a "Compiling entry function" waits for its Used line */
	bool props_for_kernel; /* the last "Function properties" named the pending kernel */
	double pending_frame, pending_stores, pending_loads;
	bool have_props;
};

static int parse_ptxas_line(struct parse_state *st, const char *line, int lineno, char *err, size_t len)
{
	const char *p = skip_spaces(line);
	if (st->props_for_kernel && *p >= '0' && *p <= '9') {
		struct ridge_kernel_usage tmp = { .stack = 0 };
		if (ptxas_properties(p, &tmp)) {
			st->pending_frame = tmp.stack;
			st->pending_stores = tmp.spill_stores;
			st->pending_loads = tmp.spill_loads;
			st->have_props = true;
		}
		st->props_for_kernel = false;
		return 0;
	}
	st->props_for_kernel = false;
	if (!starts(p, "ptxas"))
		return 0; /* nvcc mixes in other tools' lines */
	const char *colon = strchr(p, ':');
	if (!colon)
		return 0;
	const char *msg = skip_spaces(colon + 1);
	if (starts(msg, "Compiling entry function")) {
		if (!quoted_after(msg, "Compiling entry function", st->kernel, sizeof st->kernel))
			return model_fail(err, len, "%d: cannot read the kernel name in '%s'", lineno, msg);
		st->arch[0] = '\0';
		quoted_after(msg, " for", st->arch, sizeof st->arch);
		st->have_kernel = true;
		st->have_props = false;
		return 0;
	}
	if (starts(msg, "Compiling ")) { /* a non-entry function: its Used line is not a kernel */
		st->have_kernel = false;
		return 0;
	}
	if (starts(msg, "Function properties for ")) {
		const char *name = msg + strlen("Function properties for ");
		size_t n = strcspn(name, "\r\n");
		st->props_for_kernel = st->have_kernel && n == strlen(st->kernel) && strncmp(name, st->kernel, n) == 0;
		return 0;
	}
	if (starts(msg, "Used ")) {
		if (!st->have_kernel)
			return 0;
		struct ridge_kernel_usage *k = usage_add(&st->list);
		snprintf(k->name, sizeof k->name, "%s", st->kernel);
		snprintf(k->arch, sizeof k->arch, "%s", st->arch);
		k->line = lineno;
		if (st->have_props) {
			k->stack = st->pending_frame;
			k->spill_stores = st->pending_stores;
			k->spill_loads = st->pending_loads;
		}
		int col = ptxas_used_fields(line, msg, k);
		if (col)
			return model_fail(err, len, "%d:%d: cannot read '%s'", lineno, col, msg);
		if (st->have_props && k->stack < st->pending_frame)
			k->stack = st->pending_frame;
		st->have_kernel = false;
		return 0;
	}
	return 0;
}

/* cuobjdump: "arch = sm_90", " Function NAME:", "  REG:32 STACK:224 SHARED:33792 ..." */
static int parse_cuobjdump_line(struct parse_state *st, const char *line, int lineno, double reserve, char *err,
				size_t len)
{
	const char *p = skip_spaces(line);
	if (starts(p, "arch = ")) {
		snprintf(st->arch, sizeof st->arch, "%.*s", (int)strcspn(p + 7, " \r\n"), p + 7);
		return 0;
	}
	if (starts(p, "Function ")) {
		const char *name = p + strlen("Function ");
		size_t n = strcspn(name, "\r\n");
		while (n > 0 && (name[n - 1] == ' ' || name[n - 1] == ':'))
			n--;
		if (n == 0)
			return model_fail(err, len, "%d: a Function line without a name", lineno);
		if (n >= sizeof st->kernel)
			n = sizeof st->kernel - 1;
		memcpy(st->kernel, name, n);
		st->kernel[n] = '\0';
		st->have_kernel = true;
		return 0;
	}
	if (!starts(p, "REG:"))
		return 0;
	if (!st->have_kernel)
		return model_fail(err, len, "%d: resource usage without a preceding 'Function NAME:' line", lineno);
	struct ridge_kernel_usage *k = usage_add(&st->list);
	snprintf(k->name, sizeof k->name, "%s", st->kernel);
	snprintf(k->arch, sizeof k->arch, "%s", st->arch);
	k->line = lineno;
	bool have_shared = false;
	while (*p && *p != '\r' && *p != '\n') {
		const char *field = p;
		const char *c = strchr(p, ':');
		if (!c)
			return model_fail(err, len, "%d:%d: expected KEY:VALUE", lineno, (int)(field - line) + 1);
		size_t klen = (size_t)(c - p);
		const char *v = c + 1;
		double value;
		if (!read_count(&v, &value))
			return model_fail(err, len, "%d:%d: expected a whole number (0..2147483647) after '%.*s:'",
					  lineno, (int)(v - line) + 1, (int)klen, p);
		if (klen == 3 && strncmp(p, "REG", 3) == 0) {
			k->regs = (int)value;
		} else if (klen == 5 && strncmp(p, "STACK", 5) == 0) {
			k->stack = value;
		} else if (klen == 6 && strncmp(p, "SHARED", 6) == 0) {
			/* cuobjdump counts the driver's per-block reserve in SHARED. */
			k->smem = value >= reserve ? value - reserve : 0;
			have_shared = true;
		} else if (klen == 5 && strncmp(p, "LOCAL", 5) == 0) {
			k->local = value;
		} else if (klen == 11 && strncmp(p, "CONSTANT[0]", 11) == 0) {
			k->cmem = value;
		}
		p = skip_spaces(v);
	}
	if (!have_shared)
		return model_fail(err, len, "%d: no SHARED field in the resource usage", lineno);
	st->have_kernel = false;
	return 0;
}

/* A kernel's remarks ended without its VGPR count. */
static bool amd_missing_vgprs(const struct parse_state *st, char *err, size_t len)
{
	const struct ridge_kernel_usage *k = st->list.current;
	if (k && k->regs < 0) {
		model_fail(err, len, "%d: kernel '%s' has no 'VGPRs:' remark", k->line, k->name);
		return true;
	}
	return false;
}

/* "file:1:2: remark: Function Name: _Z1kPf [-Rpass-analysis=kernel-resource-usage]" and its fields. */
static int parse_amd_line(struct parse_state *st, const char *line, int lineno, char *err, size_t len)
{
	const char *r = strstr(line, "remark:");
	if (!r || !strstr(line, "kernel-resource-usage"))
		return 0;
	const char *p = skip_spaces(r + strlen("remark:"));
	/* Keys may hold brackets ("LDS Size [bytes/block]"): cut at the trailing
	 * "[-Rpass-analysis=...]" only. */
	const char *tail = strstr(p, "[-Rpass-analysis");
	size_t n = tail ? (size_t)(tail - p) : strcspn(p, "\r\n");
	while (n > 0 && p[n - 1] == ' ')
		n--;
	if (starts(p, "Function Name: ")) {
		if (st->have_kernel && amd_missing_vgprs(st, err, len))
			return -1;
		const char *name = p + strlen("Function Name: ");
		size_t m = n - strlen("Function Name: ");
		struct ridge_kernel_usage *k = usage_add(&st->list);
		if (m >= sizeof k->name)
			m = sizeof k->name - 1;
		memcpy(k->name, name, m);
		k->name[m] = '\0';
		k->line = lineno;
		k->regs = -1;
		k->sgprs = -1;
		k->agprs = 0;
		st->have_kernel = true;
		return 0;
	}
	if (!st->have_kernel)
		return 0;
	struct ridge_kernel_usage *k = st->list.current;
	const char *colon = memchr(p, ':', n);
	if (!colon)
		return 0;
	const char *v = skip_spaces(colon + 1);
	size_t klen = (size_t)(colon - p);
	double value;
	if (!read_count(&v, &value)) {
		if (klen == strlen("Dynamic Stack") && strncmp(p, "Dynamic Stack", klen) == 0)
			return 0;
		return model_fail(err, len, "%d:%d: expected a whole number (0..2147483647) after '%.*s:'", lineno,
				  (int)(v - line) + 1, (int)klen, p);
	}
#define KEY(s) (klen == strlen(s) && strncmp(p, s, klen) == 0)
	if (KEY("VGPRs"))
		k->regs = (int)value;
	else if (KEY("AGPRs"))
		k->agprs = (int)value;
	else if (KEY("TotalSGPRs") || KEY("SGPRs"))
		k->sgprs = (int)value;
	else if (KEY("LDS Size [bytes/block]"))
		k->smem = value;
	else if (KEY("ScratchSize [bytes/lane]"))
		k->scratch = value;
	else if (KEY("Occupancy [waves/SIMD]"))
		k->compiler_occupancy = (int)value;
#undef KEY
	return 0;
}

int occupancy_parse_usage(const char *text, size_t len, enum ridge_usage_format format, double smem_reserve,
			  struct ridge_kernel_usage *kernels, int capacity, int *count, char *err, size_t err_len)
{
	struct parse_state st;
	memset(&st, 0, sizeof st);
	st.list.items = kernels;
	st.list.cap = kernels ? capacity : 0;
	*count = 0;
	if (memchr(text, '\0', len))
		return model_fail(err, err_len, "not a text file (it contains NUL bytes)");
	char line[8192];
	size_t pos = 0;
	int lineno = 0;
	int rc = 0;
	while (pos < len && rc == 0) {
		size_t end = pos;
		while (end < len && text[end] != '\n')
			end++;
		size_t n = end - pos;
		lineno++;
		if (n >= sizeof line)
			return model_fail(err, err_len, "%d: longer than %zu bytes", lineno, sizeof line - 1);
		memcpy(line, text + pos, n);
		line[n] = '\0';
		if (n && line[n - 1] == '\r')
			line[n - 1] = '\0';
		pos = end + 1;
		switch (format) {
		case RIDGE_USAGE_PTXAS:
			rc = parse_ptxas_line(&st, line, lineno, err, err_len);
			break;
		case RIDGE_USAGE_CUOBJDUMP:
			rc = parse_cuobjdump_line(&st, line, lineno, smem_reserve, err, err_len);
			break;
		case RIDGE_USAGE_AMD_REMARKS:
			rc = parse_amd_line(&st, line, lineno, err, err_len);
			break;
		}
	}
	if (rc != 0)
		return -1;
	if (format == RIDGE_USAGE_AMD_REMARKS && st.have_kernel && amd_missing_vgprs(&st, err, err_len))
		return -1;
	if (st.list.count == 0) {
		static const char *const expected[] = {
			"ptxas 'Used N registers' lines after 'Compiling entry function' (nvcc -Xptxas -v)",
			"'Function NAME:' and 'REG:N ... SHARED:N' lines (cuobjdump --dump-resource-usage)",
			"'Function Name:' and 'VGPRs:' remarks (-Rpass-analysis=kernel-resource-usage)",
		};
		return model_fail(err, err_len, "no kernels found (expected %s)", expected[format]);
	}
	*count = st.list.count;
	return 0;
}
