#include "arch.h"

#include <stddef.h>
#include <string.h>

/* cuda_occupancy.h (CUDA 13.0) per compute capability, transcribed:
 *   blocks per SM      cudaOccMaxBlocksPerMultiprocessor (l.739): 7.0 32, 7.5 16,
 *                      8.0 32, 8.6/8.7 16, 8.9 24, 9.x 32, 10.1 24, 10.x 32,
 *                      11.0 24, 11.x 32, 12.x 24
 *   barrier sets       cudaOccMaxBlocksPerSMBlockBarrierLimit (l.1603), applied
 *                      from 9.0 on (l.1840): 9.x 2, 10.1 1, 10.x 2, 11.0 1,
 *                      11.x 2, 12.x 1 (x the block limit)
 *   smem granularity   cudaOccSMemAllocationGranularity (l.620): 256 B on 7.x,
 *                      128 B on 8.x-12.x
 *   register unit      cudaOccRegAllocationGranularity (l.680): 256
 *   sub-partitions     cudaOccSubPartitionsPerMultiprocessor (l.708): 4
 *   virtual resources  cudaOccMaxVirtualResourceCountPerSM (l.1211): 128 on
 *                      10-12, else 0
 *   carveout sizes     cudaOccAlignUpShmemSizeVoltaPlus (l.804)
 * and the reserve the driver reports (cudaDeviceProp.reservedSharedMemPerBlock,
 * 1 KiB from 8.0: CUDA C++ Programming Guide, "Shared Memory" of compute
 * capability 8.x, "1 KB of shared memory ... is reserved for system use").
 * tests/crosscheck/occupancy_crosscheck.c compares this table with the
 * header's functions for every compute capability listed. */
static const int carveout_70[] = { 0, 8, 16, 32, 64, 96 };
static const int carveout_75[] = { 32, 64 };
static const int carveout_80[] = { 0, 8, 16, 32, 64, 100, 132, 164 };
static const int carveout_86[] = { 0, 8, 16, 32, 64, 100 };
static const int carveout_90[] = { 0, 8, 16, 32, 64, 100, 132, 164, 196, 228 };

static const struct {
	int major, minor;
	int blocks, barriers;
	const int *carveout;
	int carveout_count;
} cc_table[] = {
#define CARVEOUT(a) a, (int)(sizeof a / sizeof a[0])
	{ 7, 0, 32, 0, CARVEOUT(carveout_70) },  { 7, 5, 16, 0, CARVEOUT(carveout_75) },
	{ 8, 0, 32, 0, CARVEOUT(carveout_80) },  { 8, 6, 16, 0, CARVEOUT(carveout_86) },
	{ 8, 7, 16, 0, CARVEOUT(carveout_80) },  { 8, 9, 24, 0, CARVEOUT(carveout_86) },
	{ 9, 0, 32, 2, CARVEOUT(carveout_90) },  { 10, 0, 32, 2, CARVEOUT(carveout_90) },
	{ 10, 1, 24, 1, CARVEOUT(carveout_90) }, { 10, 3, 32, 2, CARVEOUT(carveout_90) },
	{ 11, 0, 24, 1, CARVEOUT(carveout_90) }, { 12, 0, 24, 1, CARVEOUT(carveout_86) },
	{ 12, 1, 24, 1, CARVEOUT(carveout_86) },
#undef CARVEOUT
};

bool hwdb_cc_occupancy(int major, int minor, struct hwdb_cc_occupancy *out)
{
	for (size_t i = 0; i < sizeof cc_table / sizeof cc_table[0]; i++) {
		if (cc_table[i].major != major || cc_table[i].minor != minor)
			continue;
		*out = (struct hwdb_cc_occupancy){
			.blocks_per_sm = cc_table[i].blocks,
			.barriers_per_block_slot = cc_table[i].barriers,
			.smem_alloc_unit = major == 7 ? 256 : 128,
			.reg_alloc_unit = 256,
			.sub_partitions = 4,
			.virtual_resources_per_sm = major >= 10 ? 128 : 0,
			.smem_reserved_per_block = major >= 8 ? 1024 : 0,
			.carveout_count = cc_table[i].carveout_count,
		};
		for (int c = 0; c < cc_table[i].carveout_count; c++)
			out->carveout_kib[c] = cc_table[i].carveout[c];
		return true;
	}
	return false;
}

/* Dense FLOP (OP) per clock per SM (per CU), from each architecture's
 * whitepaper: the datapath widths (FP32 lanes x 2 for an FMA) and tensor-core
 * throughput per SM, which every product of the architecture shares; where
 * products differ the alternatives are listed (GeForce Ada/Turing/Blackwell
 * run FP32-accumulate tensor math at half rate, and their entries carry
 * that rate). Sources per row group below; the shipped entries' notes show
 * each peak as SMs x rate x clock. */
#define R(dt, m, ...)               \
	{                           \
		RIDGE_##dt, m,      \
		{                   \
			__VA_ARGS__ \
		}                   \
	}
static const struct hwdb_peak_rate rates_70[] = {
	/* Tesla V100 whitepaper: 64 FP32 + 32 FP64 lanes, 8 tensor cores x 64 FMA */
	R(FP64, false, 64),
	R(FP32, false, 128),
	R(FP16, false, 256),
	R(FP16, true, 1024),
};
static const struct hwdb_peak_rate rates_75[] = {
	/* Turing whitepaper: 64 FP32 lanes, 2 FP64 units, 8 tensor cores x 64 FP16 FMA */
	R(FP64, false, 4), R(FP32, false, 128), R(FP16, false, 256), R(FP16, true, 1024, 512), R(INT8, true, 2048),
};
static const struct hwdb_peak_rate rates_80[] = {
	/* A100 whitepaper: 64 FP32 + 32 FP64 lanes, 4 tensor cores x 256 FP16 FMA */
	R(FP64, false, 64),  R(FP64, true, 128),  R(FP32, false, 128), R(TF32, true, 1024), R(BF16, false, 256),
	R(BF16, true, 2048), R(FP16, false, 512), R(FP16, true, 2048), R(INT8, true, 4096),
};
static const struct hwdb_peak_rate rates_86[] = {
	/* GA102 whitepaper: 128 FP32 lanes, 2 FP64 units, 4 tensor cores x 128 FP16 FMA */
	R(FP64, false, 4),        R(FP32, false, 256), R(TF32, true, 512, 256),  R(BF16, false, 256),
	R(BF16, true, 1024, 512), R(FP16, false, 256), R(FP16, true, 1024, 512), R(INT8, true, 2048),
};
static const struct hwdb_peak_rate rates_89[] = {
	/* Ada whitepaper v2.1: as GA102, plus FP8 */
	R(FP64, false, 4),        R(FP32, false, 256),      R(TF32, true, 512, 256),
	R(BF16, false, 256),      R(BF16, true, 1024, 512), R(FP16, false, 256),
	R(FP16, true, 1024, 512), R(FP8, true, 2048, 1024), R(INT8, true, 2048),
};
static const struct hwdb_peak_rate rates_90[] = {
	/* Hopper whitepaper: 128 FP32 + 64 FP64 lanes, 4 tensor cores x 512 FP16 FMA */
	R(FP64, false, 128), R(FP64, true, 256),  R(FP32, false, 256), R(TF32, true, 2048), R(BF16, false, 512),
	R(BF16, true, 4096), R(FP16, false, 512), R(FP16, true, 4096), R(FP8, true, 8192),  R(INT8, true, 8192),
};
static const struct hwdb_peak_rate rates_100[] = {
	/* Blackwell datasheet (HGX B200): twice Hopper's tensor rate per SM, FP64 tensor = vector */
	R(FP64, false, 128), R(FP64, true, 128),   R(FP32, false, 256), R(TF32, true, 4096),
	R(BF16, false, 512), R(BF16, true, 8192),  R(FP16, false, 512), R(FP16, true, 8192),
	R(FP8, true, 16384), R(INT8, true, 16384), R(FP4, true, 32768),
};
static const struct hwdb_peak_rate rates_120[] = {
	/* RTX Blackwell whitepaper: 128 FP32 lanes, 2 FP64 units, 4 tensor cores; FP4 */
	R(FP64, false, 4),        R(FP32, false, 256),      R(TF32, true, 512, 256),  R(BF16, false, 256),
	R(BF16, true, 1024, 512), R(FP16, false, 256),      R(FP16, true, 1024, 512), R(FP8, true, 2048, 1024),
	R(INT8, true, 2048),      R(FP4, true, 4096, 2048),
};
/* AMD, per CU: ROCm "MI300 series microarchitecture" FLOPS/clock/CU (FP64
 * vector 128, FP32 vector 256 packed, FP16 2048, FP8 4096); CDNA2 whitepaper
 * for gfx90a (FP16 matrix 1024). FP32 vector counts unpacked (128) or packed
 * (256): AMD prints either. */
static const struct hwdb_peak_rate rates_gfx942[] = {
	R(FP64, false, 128), R(FP64, true, 256),  R(FP32, false, 128, 256), R(FP32, true, 256),  R(TF32, true, 1024),
	R(BF16, true, 2048), R(FP16, true, 2048), R(FP8, true, 4096),       R(INT8, true, 4096),
};
static const struct hwdb_peak_rate rates_gfx90a[] = {
	R(FP64, false, 128), R(FP64, true, 256),  R(FP32, false, 128, 256), R(FP32, true, 256),
	R(BF16, true, 1024), R(FP16, true, 1024), R(INT8, true, 1024),
};
#undef R

#define RATES(a) a, (int)(sizeof a / sizeof a[0])
static const struct {
	int major, minor; /* NVIDIA; -1 for AMD */
	const char *gfx;
	const struct hwdb_peak_rate *rates;
	int count;
	const char *source;
} rate_table[] = {
	{ 7, 0, NULL, RATES(rates_70), "Tesla V100 GPU architecture whitepaper" },
	{ 7, 5, NULL, RATES(rates_75), "NVIDIA Turing GPU architecture whitepaper" },
	{ 8, 0, NULL, RATES(rates_80), "NVIDIA A100 Tensor Core GPU architecture whitepaper" },
	{ 8, 6, NULL, RATES(rates_86), "NVIDIA Ampere GA102 GPU architecture whitepaper" },
	{ 8, 9, NULL, RATES(rates_89), "NVIDIA Ada Lovelace GPU architecture whitepaper v2.1" },
	{ 9, 0, NULL, RATES(rates_90), "NVIDIA H100 Tensor Core GPU architecture whitepaper" },
	{ 10, 0, NULL, RATES(rates_100), "NVIDIA Blackwell datasheet (HGX B200)" },
	{ 12, 0, NULL, RATES(rates_120), "NVIDIA RTX Blackwell GPU architecture whitepaper" },
	{ -1, -1, "gfx942", RATES(rates_gfx942), "ROCm docs, AMD Instinct MI300 series microarchitecture" },
	{ -1, -1, "gfx90a", RATES(rates_gfx90a), "AMD CDNA2 architecture whitepaper" },
};
#undef RATES

const struct hwdb_peak_rate *hwdb_peak_rates(const struct ridge_gpu *gpu, int *count, const char **source)
{
	for (size_t i = 0; i < sizeof rate_table / sizeof rate_table[0]; i++) {
		bool match = gpu->vendor == RIDGE_VENDOR_AMD
				     ? rate_table[i].gfx && strcmp(rate_table[i].gfx, gpu->gfx_target) == 0
				     : !rate_table[i].gfx && rate_table[i].major == gpu->cc_major &&
					       rate_table[i].minor == gpu->cc_minor;
		if (match) {
			*count = rate_table[i].count;
			*source = rate_table[i].source;
			return rate_table[i].rates;
		}
	}
	*count = 0;
	*source = NULL;
	return NULL;
}
