/* Host references for the reference kernels (see verify.h). */
#include "verify.h"

#include <math.h>
#include <string.h>

#include "kernels.h"
#include "rand.h"

double kern_decode_f32(uint32_t bits)
{
	float f;
	memcpy(&f, &bits, sizeof f);
	return f;
}

double kern_decode_f64(uint64_t bits)
{
	double d;
	memcpy(&d, &bits, sizeof d);
	return d;
}

double kern_decode_bf16(uint16_t bits)
{
	return kern_decode_f32((uint32_t)bits << 16);
}

/* Normal numbers, subnormals and zero; the generators never make inf or NaN. */
static double decode_small(unsigned sign, unsigned exp, unsigned mant, int mant_bits, int bias)
{
	double m = (double)mant / (double)(1u << mant_bits);
	double v = exp ? ldexp(1.0 + m, (int)exp - bias) : ldexp(m, 1 - bias);
	return sign ? -v : v;
}

double kern_decode_f16(uint16_t bits)
{
	return decode_small(bits >> 15, (bits >> 10) & 0x1F, bits & 0x3FF, 10, 15);
}

double kern_decode_e4m3(uint8_t bits)
{
	return decode_small(bits >> 7, (bits >> 3) & 0xF, bits & 7, 3, 7);
}

double kern_decode_e5m2(uint8_t bits)
{
	return decode_small(bits >> 7, (bits >> 2) & 0x1F, bits & 3, 2, 15);
}

double kern_value(enum kern_elem type, uint64_t seed, uint64_t i)
{
	switch (type) {
	case KERN_ELEM_F32:
		return kern_decode_f32(kern_bits_f32(seed, i, 0));
	case KERN_ELEM_F32_POSITIVE:
		return kern_decode_f32(kern_bits_f32(seed, i, 1));
	case KERN_ELEM_BF16:
		return kern_decode_bf16(kern_bits_bf16(seed, i));
	case KERN_ELEM_F16:
		return kern_decode_f16(kern_bits_f16(seed, i));
	case KERN_ELEM_E4M3:
		return kern_decode_e4m3(kern_bits_e4m3(seed, i));
	case KERN_ELEM_F64:
		return kern_decode_f64(kern_bits_f64(seed, i));
	case KERN_ELEM_E5M2:
		return kern_decode_e5m2(kern_bits_e5m2(seed, i));
	case KERN_ELEM_TF32:
		return kern_decode_f32(kern_bits_tf32(seed, i));
	case KERN_ELEM_S8:
		return (double)(int8_t)kern_bits_s8(seed, i);
	}
	return NAN;
}

void kern_error_add(struct kern_error *e, double out, double ref)
{
	if (!isfinite(out)) {
		e->bad++;
		return;
	}
	e->diff2 += (out - ref) * (out - ref);
	e->ref2 += ref * ref;
}

double kern_error_value(const struct kern_error *e)
{
	if (e->bad)
		return INFINITY;
	if (e->ref2 == 0)
		return e->diff2 == 0 ? 0 : INFINITY;
	return sqrt(e->diff2 / e->ref2);
}

double kern_chain_reference(double x0, double b, double c, long n)
{
	double bn = pow(b, (double)n);
	return bn * x0 + c * (1.0 - bn) / (1.0 - b);
}

void kern_mma_a_coords(int lane, int reg, int half, int *row, int *col)
{
	int group = lane >> 2, tig = lane & 3;
	*row = group + ((reg & 1) ? 8 : 0);
	*col = tig * 2 + half + ((reg & 2) ? 8 : 0);
}

void kern_mma_b_coords(int lane, int reg, int half, int *k, int *n)
{
	int group = lane >> 2, tig = lane & 3;
	*k = tig * 2 + half + (reg ? 8 : 0);
	*n = group;
}

void kern_mma_c_coords(int lane, int reg, int *row, int *col)
{
	int group = lane >> 2, tig = lane & 3;
	*row = group + ((reg & 2) ? 8 : 0);
	*col = tig * 2 + (reg & 1);
}

void kern_wgmma_d_coords(int thread, int reg, int *row, int *col)
{
	int warp = thread >> 5, lane = thread & 31;
	int group = lane >> 2, tig = lane & 3;
	int chunk = reg >> 2, r = reg & 3;
	*row = warp * 16 + group + ((r & 2) ? 8 : 0);
	*col = chunk * 8 + tig * 2 + (r & 1);
}

void kern_mfma_d_coords(int lane, int reg, int *row, int *col)
{
	*row = 8 * (reg / 4) + 4 * (lane / 32) + reg % 4;
	*col = lane % 32;
}

static const char *const id_names[KERN_COUNT] = {
	[KERN_COPY] = "copy",
	[KERN_TRIAD] = "triad",
	[KERN_READ] = "read",
	[KERN_WRITE] = "write",
	[KERN_READ_WIDE] = "read_wide",
	[KERN_L2_READ] = "l2_read",
	[KERN_SMEM] = "smem",
	[KERN_FMA_FP32] = "fma_fp32",
	[KERN_FMA_FP64] = "fma_fp64",
	[KERN_FMA_FP16X2] = "fma_fp16x2",
	[KERN_MMA_BF16] = "mma_bf16",
	[KERN_WGMMA_BF16] = "wgmma_bf16",
	[KERN_GEMM_BF16] = "gemm_bf16",
	[KERN_GEMM_FP16] = "gemm_fp16",
	[KERN_GEMM_TF32] = "gemm_tf32",
	[KERN_GEMM_FP32] = "gemm_fp32",
	[KERN_GEMM_FP8] = "gemm_fp8",
	[KERN_LAUNCH_ASYNC] = "launch",
	[KERN_LAUNCH_SYNC] = "launch_sync",
	[KERN_GRAPH_NODE] = "graph_node",
	[KERN_GRAPH_LAUNCH] = "graph_launch",
	[KERN_COPY_FIXED] = "copy_fixed",
	[KERN_LATENCY] = "latency",
	[KERN_LATENCY_SMEM] = "latency_smem",
	[KERN_LATENCY_HOPS] = "latency_hops",
	[KERN_WGMMA_FP16] = "wgmma_fp16",
	[KERN_WGMMA_TF32] = "wgmma_tf32",
	[KERN_WGMMA_E4M3] = "wgmma_e4m3",
	[KERN_WGMMA_E5M2] = "wgmma_e5m2",
	[KERN_WGMMA_INT8] = "wgmma_int8",
	[KERN_WGMMA_SP_BF16] = "wgmma_sp_bf16",
	[KERN_WGMMA_SP_E4M3] = "wgmma_sp_e4m3",
	[KERN_V_STREAM] = "v_stream_add",
	[KERN_V_GEMM_NAIVE] = "v_gemm_naive",
	[KERN_V_GEMM_TILED] = "v_gemm_tiled",
	[KERN_V_RESNORM_UNFUSED] = "v_resnorm_unfused",
	[KERN_V_RESNORM_FUSED] = "v_resnorm_fused",
	[KERN_V_SOFTMAX_SAFE] = "v_softmax_safe",
	[KERN_V_SOFTMAX_ONLINE] = "v_softmax_online",
	[KERN_V_SOFTMAX_FUSED] = "v_softmax_fused",
	[KERN_V_LAUNCH_EAGER] = "v_launch_eager",
	[KERN_V_LAUNCH_GRAPH] = "v_launch_graph",
};

const char *kern_id_name(enum kern_id id)
{
	return (int)id >= 0 && id < KERN_COUNT ? id_names[id] : NULL;
}

bool kern_id_is_launch(enum kern_id id)
{
	return id >= KERN_LAUNCH_ASYNC && id <= KERN_GRAPH_LAUNCH;
}

bool kern_id_is_latency(enum kern_id id)
{
	return id == KERN_LATENCY || id == KERN_LATENCY_SMEM || id == KERN_LATENCY_HOPS;
}

bool kern_id_is_wgmma(enum kern_id id)
{
	return id == KERN_WGMMA_BF16 || (id >= KERN_WGMMA_FP16 && id <= KERN_WGMMA_SP_E4M3);
}

bool kern_id_counts_bytes(enum kern_id id)
{
	return id <= KERN_SMEM || id == KERN_COPY_FIXED || id == KERN_V_STREAM ||
	       (id >= KERN_V_RESNORM_UNFUSED && id <= KERN_V_SOFTMAX_FUSED);
}

bool kern_id_is_validation(enum kern_id id)
{
	return id >= KERN_V_STREAM && id < KERN_COUNT;
}
