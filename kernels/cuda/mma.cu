/* Tensor-core instruction rate from registers: mma.sync.m16n8k16 bf16 with
 * fp32 accumulators, in a loop with no memory traffic. Each warp keeps
 * MMA_ACC independent accumulators so several MMAs are in flight.
 *
 * Every warp holds the same A (16x16) and B (16x8) fragments, loaded once;
 * after ITERS steps each accumulator is ITERS * A*B, which the host checks
 * against a double-precision reference through the PTX fragment layout. */
#include "../common/gpu.h"
#include "../rand.h"
#include "../verify.h"

#define MMA_ACC 8
#define MMA_ITERS 4096
#define MMA_THREADS 256

__global__ void __launch_bounds__(MMA_THREADS)
	rp_mma_bf16(const uint32_t *__restrict__ frag, float *__restrict__ out, int iters)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	int lane = threadIdx.x & 31;
	uint32_t a0 = frag[lane * 6 + 0], a1 = frag[lane * 6 + 1], a2 = frag[lane * 6 + 2], a3 = frag[lane * 6 + 3];
	uint32_t b0 = frag[lane * 6 + 4], b1 = frag[lane * 6 + 5];
	float d[MMA_ACC][4];
#pragma unroll
	for (int j = 0; j < MMA_ACC; j++)
		d[j][0] = d[j][1] = d[j][2] = d[j][3] = 0.f;
	for (int i = 0; i < iters; i++) {
#pragma unroll
		for (int j = 0; j < MMA_ACC; j++)
			asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
				     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
				     : "+f"(d[j][0]), "+f"(d[j][1]), "+f"(d[j][2]), "+f"(d[j][3])
				     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
	}
	size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
#pragma unroll
	for (int r = 0; r < 4; r++) {
		float s = 0;
#pragma unroll
		for (int j = 0; j < MMA_ACC; j++)
			s += d[j][r];
		out[(warp * 32 + lane) * 4 + r] = s;
	}
#else
	(void)frag;
	(void)out;
	(void)iters;
	__trap();
#endif
}

extern "C" const void *rp_mma_kernel(void)
{
	return (const void *)rp_mma_bf16;
}

struct mma_job {
	struct kern_ctx *ctx;
	int blocks;
	const uint32_t *frag;
	float *out;
};

static int mma_launch(void *user, int rep, char *err, size_t err_len)
{
	(void)rep;
	struct mma_job *j = (struct mma_job *)user;
	rp_mma_bf16<<<j->blocks, MMA_THREADS, 0, j->ctx->stream>>>(j->frag, j->out, MMA_ITERS);
	CK_LAUNCH("rp_mma_bf16");
	return 0;
}

extern "C" int rp_mma_run(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
			  size_t err_len)
{
	int per_sm = 0;
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, rp_mma_bf16, MMA_THREADS, 0));
	if (per_sm < 1)
		return kern_failf(err, err_len, "mma_bf16: the kernel does not fit on an SM");
	int blocks = ctx->info.sm_count * per_sm;
	size_t warps = (size_t)blocks * MMA_THREADS / 32, nout = warps * 32 * 4;
	dev_buffer frag, out;
	CK_ALLOC(frag, 32 * 6 * sizeof(uint32_t));
	CK_ALLOC(out, nout * sizeof(float));
	/* 32 lanes x 6 words x 2 bf16 of random bits. */
	if (kern_fill(ctx, FILL_BF16, frag.ptr, 32 * 6 * 2, cfg->seed, err, err_len))
		return -1;
	CK(cudaMemsetAsync(out.ptr, 0xFF, nout * sizeof(float), ctx->stream));
	struct mma_job job = { ctx, blocks, frag.as<uint32_t>(), out.as<float>() };
	if (mma_launch(&job, 0, err, err_len))
		return -1;
	CK(cudaStreamSynchronize(ctx->stream));

	/* Reference: A and B from the fragments, D = ITERS * MMA_ACC * A*B. */
	double A[16][16], B[16][8], D[16][8];
	for (int lane = 0; lane < 32; lane++)
		for (int reg = 0; reg < 6; reg++)
			for (int half = 0; half < 2; half++) {
				double v = kern_value(KERN_ELEM_BF16, cfg->seed, (size_t)(lane * 6 + reg) * 2 + half);
				int r, c;
				if (reg < 4) {
					kern_mma_a_coords(lane, reg, half, &r, &c);
					A[r][c] = v;
				} else {
					kern_mma_b_coords(lane, reg - 4, half, &r, &c);
					B[r][c] = v;
				}
			}
	for (int m = 0; m < 16; m++)
		for (int n = 0; n < 8; n++) {
			double s = 0;
			for (int k = 0; k < 16; k++)
				s += A[m][k] * B[k][n];
			D[m][n] = s * MMA_ITERS * MMA_ACC;
		}
	host_buffer host;
	if (!host.alloc(nout * sizeof(float)))
		return kern_failf(err, err_len, "out of host memory");
	CK(cudaMemcpy(host.ptr, out.ptr, nout * sizeof(float), cudaMemcpyDeviceToHost));
	struct kern_error e = { 0, 0, 0 };
	for (size_t w = 0; w < warps; w++)
		for (int lane = 0; lane < 32; lane++)
			for (int reg = 0; reg < 4; reg++) {
				int r, c;
				kern_mma_c_coords(lane, reg, &r, &c);
				kern_error_add(&e, host.as<float>()[(w * 32 + lane) * 4 + reg], D[r][c]);
			}
	res->verify_error = kern_error_value(&e);
	res->verify_tolerance = 1e-3;
	if (!(res->verify_error <= res->verify_tolerance))
		return kern_failf(err, err_len, "mma_bf16: verification failed: relative error %.3g > %.3g",
				  res->verify_error, res->verify_tolerance);
	if (kern_time_launches(ctx, cfg, res, mma_launch, &job, err, err_len))
		return -1;
	res->work = (double)warps * MMA_ITERS * MMA_ACC * 2.0 * 16 * 8 * 16;
	snprintf(res->method, sizeof res->method,
		 "mma.sync.m16n8k16 bf16->fp32 from registers, %d independent accumulators per warp, %d steps, "
		 "%d x %d threads (%d blocks/SM), no memory traffic in the loop",
		 MMA_ACC, MMA_ITERS, blocks, MMA_THREADS, per_sm);
	return 0;
}
