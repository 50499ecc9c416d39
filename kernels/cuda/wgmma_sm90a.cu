/* Tensor-core instruction rate on Hopper: wgmma.mma_async m64n256k16 bf16
 * with fp32 accumulators, A and B from shared memory through matrix
 * descriptors, issued by one warpgroup (4 warps) per block, in a loop with no
 * global-memory traffic. Compiled only for sm_90a
 * (-gencode=arch=compute_90a,code=sm_90a); the backend runs it only on a
 * compute capability 9.0 device.
 *
 * Layout (no swizzle, K-major, "interleave"): a core matrix is 8 rows x 16
 * bytes (8 bf16 along K) stored contiguously; the two core matrices along K
 * (k 0-7, 8-15) are LBO = 128 bytes apart, consecutive groups of 8 rows
 * SBO = 256 bytes apart. A is 64x16 (2 KiB), B is 256x16 (8 KiB), both
 * K-major (D = A * B^T in that storage).
 *
 * Every block loads the same A and B; after ITERS x WG_BATCH instructions
 * each accumulator is ITERS * WG_BATCH * (A B^T), checked on the host through
 * the accumulator fragment layout (kernels/verify.c). */
#include "../common/gpu.h"
#include "../rand.h"
#include "../verify.h"

#define WG_THREADS 128
#define WG_N 256
#define WG_BATCH 4
#define WG_ITERS 2048

__device__ __forceinline__ uint64_t wg_desc(const void *smem, unsigned lbo, unsigned sbo)
{
	uint32_t addr = (uint32_t)__cvta_generic_to_shared(smem);
	return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)((lbo >> 4) & 0x3FFF) << 16) |
	       ((uint64_t)((sbo >> 4) & 0x3FFF) << 32);
}

/* Byte offset of element (row, k) of a K-major tile with 16 k per row. */
__host__ __device__ __forceinline__ unsigned wg_offset(int row, int k)
{
	return (unsigned)((row % 8) * 16 + (row / 8) * 256 + (k / 8) * 128 + (k % 8) * 2);
}

__device__ __forceinline__ void wg_mma(float *d, uint64_t da, uint64_t db)
{
	asm volatile(
	    "{\n"
	    ".reg .pred p;\n"
	    "setp.ne.b32 p, %130, 0;\n"
	    "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
	    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, "
	    "%23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, "
	    "%44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, "
	    "%65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, "
	    "%86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, "
	    "%106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, "
	    "%123, %124, %125, %126, %127}, %128, %129, p, 1, 1, 0, 0;\n"
	    "}\n"
	    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
	      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
	      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
	      "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
	      "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
	      "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
	      "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
	      "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
	      "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
	      "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
	      "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
	      "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
	      "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]),
	      "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
	      "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]),
	      "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]),
	      "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
	    : "l"(da), "l"(db), "r"(1));
}

__global__ void __launch_bounds__(WG_THREADS)
    rp_wgmma_bf16(const uint16_t *__restrict__ a, const uint16_t *__restrict__ b, float *__restrict__ out, int iters,
		  unsigned lbo, unsigned sbo)
{
	__shared__ __align__(1024) uint16_t sa[64 * 16];
	__shared__ __align__(1024) uint16_t sb[WG_N * 16];
	int t = threadIdx.x;
	/* a and b are row-major logical tiles [row][k]; store them in the layout above. */
	for (int i = t; i < 64 * 16; i += WG_THREADS)
		sa[wg_offset(i / 16, i % 16) / 2] = a[i];
	for (int i = t; i < WG_N * 16; i += WG_THREADS)
		sb[wg_offset(i / 16, i % 16) / 2] = b[i];
	/* Ordinary stores read next by the tensor cores (the async proxy). */
	asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
	__syncthreads();
	uint64_t da = wg_desc(sa, lbo, sbo), db = wg_desc(sb, lbo, sbo);
	float d[128];
#pragma unroll
	for (int r = 0; r < 128; r++)
		d[r] = 0.f;
	for (int i = 0; i < iters; i++) {
		asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
		for (int j = 0; j < WG_BATCH; j++)
			wg_mma(d, da, db);
		asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
		asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
	}
	asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
	float *o = out + ((size_t)blockIdx.x * WG_THREADS + t) * 128;
#pragma unroll
	for (int r = 0; r < 128; r++)
		o[r] = d[r];
}

extern "C" const void *rp_wgmma_kernel(void)
{
	return (const void *)rp_wgmma_bf16;
}

struct wg_job {
	struct kern_ctx *ctx;
	int blocks;
	const uint16_t *a, *b;
	float *out;
	unsigned lbo, sbo;
};

static int wg_launch(void *user, int rep, char *err, size_t err_len)
{
	(void)rep;
	struct wg_job *j = (struct wg_job *)user;
	rp_wgmma_bf16<<<j->blocks, WG_THREADS, 0, j->ctx->stream>>>(j->a, j->b, j->out, WG_ITERS, j->lbo, j->sbo);
	CK_LAUNCH("rp_wgmma_bf16");
	return 0;
}

extern "C" int rp_wgmma_run(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
			    size_t err_len)
{
	int per_sm = 0;
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, rp_wgmma_bf16, WG_THREADS, 0));
	if (per_sm < 1)
		return kern_failf(err, err_len, "wgmma_bf16: the kernel does not fit on an SM");
	int blocks = ctx->info.sm_count * per_sm;
	size_t nout = (size_t)blocks * WG_THREADS * 128;
	dev_buffer a, b, out;
	CK_ALLOC(a, 64 * 16 * 2);
	CK_ALLOC(b, WG_N * 16 * 2);
	CK_ALLOC(out, nout * sizeof(float));
	if (kern_fill(ctx, FILL_BF16, a.ptr, 64 * 16, cfg->seed, err, err_len) ||
	    kern_fill(ctx, FILL_BF16, b.ptr, WG_N * 16, cfg->seed + 1, err, err_len))
		return -1;
	CK(cudaMemsetAsync(out.ptr, 0xFF, nout * sizeof(float), ctx->stream));
	struct wg_job job = {ctx, blocks, a.as<uint16_t>(), b.as<uint16_t>(), out.as<float>(), 128, 256};
	if (wg_launch(&job, 0, err, err_len))
		return -1;
	CK(cudaStreamSynchronize(ctx->stream));

	host_buffer ref, host;
	if (!ref.alloc(64 * WG_N * sizeof(double)) || !host.alloc(nout * sizeof(float)))
		return kern_failf(err, err_len, "out of host memory");
	double *D = ref.as<double>();
	for (int m = 0; m < 64; m++)
		for (int n = 0; n < WG_N; n++) {
			double s = 0;
			for (int k = 0; k < 16; k++)
				s += kern_value(KERN_ELEM_BF16, cfg->seed, (size_t)m * 16 + k) *
				     kern_value(KERN_ELEM_BF16, cfg->seed + 1, (size_t)n * 16 + k);
			D[m * WG_N + n] = s * WG_ITERS * WG_BATCH;
		}
	CK(cudaMemcpy(host.ptr, out.ptr, nout * sizeof(float), cudaMemcpyDeviceToHost));
	struct kern_error e = {0, 0, 0};
	for (int blk = 0; blk < blocks; blk++)
		for (int t = 0; t < WG_THREADS; t++)
			for (int r = 0; r < 128; r++) {
				int row, col;
				kern_wgmma_d_coords(t, r, &row, &col);
				kern_error_add(&e, host.as<float>()[((size_t)blk * WG_THREADS + t) * 128 + r],
					       D[row * WG_N + col]);
			}
	res->verify_error = kern_error_value(&e);
	res->verify_tolerance = 1e-3;
	if (!(res->verify_error <= res->verify_tolerance))
		return kern_failf(err, err_len, "wgmma_bf16: verification failed: relative error %.3g > %.3g",
				  res->verify_error, res->verify_tolerance);
	if (kern_time_launches(ctx, cfg, res, wg_launch, &job, err, err_len))
		return -1;
	res->work = (double)blocks * WG_ITERS * WG_BATCH * 2.0 * 64 * WG_N * 16;
	snprintf(res->method, sizeof res->method,
		 "wgmma.mma_async m64n256k16 bf16->fp32, A and B from shared memory (descriptors, no swizzle), "
		 "1 warpgroup per block, %d blocks/SM, %d x %d instructions per warpgroup",
		 per_sm, WG_ITERS, WG_BATCH);
	return 0;
}
