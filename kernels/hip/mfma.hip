/* Matrix-core instruction rate from registers on CDNA2/CDNA3:
 * v_mfma_f32_32x32x8bf16_1k (wave64), MFMA_ACC independent accumulators per
 * wave, in a loop with no memory traffic. Every wave holds the same A (32x8)
 * and B (8x32) operands; after ITERS steps each accumulator is ITERS * A*B,
 * checked on the host through the operand and accumulator layouts of
 * kernels/verify.h (kern_mfma_d_coords), which follow AMD's matrix
 * instruction calculator for this instruction.
 *
 * No AMD GPU was available when this was written: it compiles (gfx90a,
 * gfx940/gfx942) and its layout assumptions are stated, but it has not run. */
#include "../common/gpu.h"
#include "../rand.h"
#include "../verify.h"

#define MFMA_ACC 4
#define MFMA_ITERS 4096
#define MFMA_THREADS 256

typedef float v16f __attribute__((ext_vector_type(16)));
typedef short v4s __attribute__((ext_vector_type(4)));

__global__ void __launch_bounds__(MFMA_THREADS)
	rp_mfma_bf16(const uint16_t *__restrict__ frag, float *__restrict__ out, int iters)
{
	int lane = threadIdx.x & 63;
	v4s a, b;
	for (int j = 0; j < 4; j++) {
		a[j] = (short)frag[lane * 8 + j];
		b[j] = (short)frag[lane * 8 + 4 + j];
	}
	v16f d[MFMA_ACC];
	for (int j = 0; j < MFMA_ACC; j++)
		for (int r = 0; r < 16; r++)
			d[j][r] = 0.f;
	for (int i = 0; i < iters; i++) {
#pragma unroll
		for (int j = 0; j < MFMA_ACC; j++)
			d[j] = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, d[j], 0, 0, 0);
	}
	size_t wave = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 6;
	for (int r = 0; r < 16; r++) {
		float s = 0;
		for (int j = 0; j < MFMA_ACC; j++)
			s += d[j][r];
		out[(wave * 64 + lane) * 16 + r] = s;
	}
}

extern "C" const void *rp_mma_kernel(void)
{
	return (const void *)rp_mfma_bf16;
}

struct mfma_job {
	struct kern_ctx *ctx;
	int blocks;
	const uint16_t *frag;
	float *out;
};

static int mfma_launch(void *user, int rep, char *err, size_t err_len)
{
	(void)rep;
	struct mfma_job *j = (struct mfma_job *)user;
	rp_mfma_bf16<<<j->blocks, MFMA_THREADS, 0, j->ctx->stream>>>(j->frag, j->out, MFMA_ITERS);
	CK_LAUNCH("rp_mfma_bf16");
	return 0;
}

extern "C" int rp_mma_run(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
			  size_t err_len)
{
	int per_cu = 0;
	CK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, rp_mfma_bf16, MFMA_THREADS, 0));
	if (per_cu < 1)
		return kern_failf(err, err_len, "mma_bf16: the kernel does not fit on a CU");
	int blocks = ctx->info.sm_count * per_cu;
	size_t waves = (size_t)blocks * MFMA_THREADS / 64, nout = waves * 64 * 16;
	dev_buffer frag, out;
	CK_ALLOC(frag, 64 * 8 * sizeof(uint16_t));
	CK_ALLOC(out, nout * sizeof(float));
	if (kern_fill(ctx, FILL_BF16, frag.ptr, 64 * 8, cfg->seed, err, err_len))
		return -1;
	CK(hipMemsetAsync(out.ptr, 0xFF, nout * sizeof(float), ctx->stream));
	struct mfma_job job = { ctx, blocks, frag.as<uint16_t>(), out.as<float>() };
	if (mfma_launch(&job, 0, err, err_len))
		return -1;
	CK(hipStreamSynchronize(ctx->stream));

	double A[32][8], B[8][32], D[32][32];
	for (int lane = 0; lane < 64; lane++)
		for (int j = 0; j < 4; j++) {
			A[lane % 32][4 * (lane / 32) + j] = kern_value(KERN_ELEM_BF16, cfg->seed, (size_t)lane * 8 + j);
			B[4 * (lane / 32) + j][lane % 32] =
				kern_value(KERN_ELEM_BF16, cfg->seed, (size_t)lane * 8 + 4 + j);
		}
	for (int m = 0; m < 32; m++)
		for (int n = 0; n < 32; n++) {
			double s = 0;
			for (int k = 0; k < 8; k++)
				s += A[m][k] * B[k][n];
			D[m][n] = s * MFMA_ITERS * MFMA_ACC;
		}
	host_buffer host;
	if (!host.alloc(nout * sizeof(float)))
		return kern_failf(err, err_len, "out of host memory");
	CK(hipMemcpy(host.ptr, out.ptr, nout * sizeof(float), hipMemcpyDeviceToHost));
	struct kern_error e = { 0, 0, 0 };
	for (size_t w = 0; w < waves; w++)
		for (int lane = 0; lane < 64; lane++)
			for (int r = 0; r < 16; r++) {
				int row, col;
				kern_mfma_d_coords(lane, r, &row, &col);
				kern_error_add(&e, host.as<float>()[(w * 64 + lane) * 16 + r], D[row][col]);
			}
	res->verify_error = kern_error_value(&e);
	res->verify_tolerance = 1e-3;
	if (!(res->verify_error <= res->verify_tolerance))
		return kern_failf(err, err_len, "mma_bf16: verification failed: relative error %.3g > %.3g",
				  res->verify_error, res->verify_tolerance);
	if (kern_time_launches(ctx, cfg, res, mfma_launch, &job, err, err_len))
		return -1;
	res->work = (double)waves * MFMA_ITERS * MFMA_ACC * 2.0 * 32 * 32 * 8;
	snprintf(res->method, sizeof res->method,
		 "v_mfma_f32_32x32x8bf16_1k from registers, %d independent accumulators per wave, %d steps, "
		 "%d x %d threads (%d blocks/CU), no memory traffic in the loop",
		 MFMA_ACC, MFMA_ITERS, blocks, MFMA_THREADS, per_cu);
	return 0;
}
