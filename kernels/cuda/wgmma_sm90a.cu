/* Tensor-core instruction rates on Hopper: wgmma.mma_async m64n256 for every
 * dtype the instruction takes (bf16, fp16, tf32, fp8 e4m3 and e5m2, int8) and
 * the 2:4 sparse form (wgmma.mma_async.sp: bf16 and e4m3), accumulators in
 * registers, A and B from shared memory through matrix descriptors, issued by
 * one warpgroup (4 warps) per block, in a loop with no global-memory traffic.
 * Compiled only for sm_90a (-gencode=arch=compute_90a,code=sm_90a); the
 * backend runs it only on a compute capability 9.0 device.
 *
 * Layout (no swizzle, K-major, "interleave"): a core matrix is 8 rows x 16
 * bytes stored contiguously; core matrices adjacent along K are LBO = 128
 * bytes apart, consecutive groups of 8 rows SBO = (row bytes / 16) x 128
 * apart. Every dtype's A row is 32 bytes (k16 of 16-bit, k8 of tf32, k32 of
 * 8-bit, and the compressed half of k32 / k64 for the sparse forms); B rows
 * are 32 bytes, 64 for the sparse forms (their K is twice as long). D = A B^T
 * in that storage.
 *
 * Sparse A: every 4-bit metadata field is 0b0100 (the two kept elements of
 * each group of 4 along K are its first two), the same in every thread, so
 * the result does not depend on which thread supplies which field: logical
 * A[m][4g + h] = compressed A[m][2g + h] for h = 0, 1 and 0 for h = 2, 3.
 *
 * Every block loads the same A and B; after the loop each accumulator is
 * (number of instructions) x (A B^T), checked on the host through the
 * accumulator fragment layout (kernels/verify.c). The fp8 kinds are verified
 * with one iteration of the loop (WG_BATCH instructions) and timed with
 * WG_ITERS: Hopper's fp8 accumulation keeps fewer bits than fp32, and 8192
 * accumulations of the same product would test that, not the layout. (A
 * first version restarted the accumulation at each batch with scale-d = 0:
 * ptxas then dropped the instructions whose sums were overwritten, 8 QGMMA
 * left of 20 in SASS, and the "rate" was 2.9x the datasheet's.) */
#include "../common/gpu.h"
#include "../rand.h"
#include "../verify.h"

#define WG_THREADS 128
#define WG_N 256
#define WG_BATCH 4
#define WG_ITERS 2048

#define WG_LBO 128

/* The instruction forms. */
enum wg_kind { WG_BF16, WG_FP16, WG_TF32, WG_E4M3, WG_E5M2, WG_INT8, WG_SP_BF16, WG_SP_E4M3, WG_KINDS };

struct wg_type {
	enum kern_id id;
	const char *name; /* for messages and the method text */
	int elem_bytes;   /* bytes per element of A and B */
	int k;            /* logical K of one instruction */
	bool sparse;      /* A is 2:4 sparse, stored compressed */
	bool integer;     /* s32 accumulators, exact */
	bool short_check; /* verified with one loop iteration (fp8) */
	enum kern_fill fill;
	enum kern_elem elem;
	double tolerance;
};

static const struct wg_type wg_types[WG_KINDS] = {
	{ KERN_WGMMA_BF16, "m64n256k16 bf16->fp32", 2, 16, false, false, false, FILL_BF16, KERN_ELEM_BF16, 1e-3 },
	{ KERN_WGMMA_FP16, "m64n256k16 fp16->fp32", 2, 16, false, false, false, FILL_F16, KERN_ELEM_F16, 1e-3 },
	{ KERN_WGMMA_TF32, "m64n256k8 tf32->fp32", 4, 8, false, false, false, FILL_TF32, KERN_ELEM_TF32, 1e-3 },
	{ KERN_WGMMA_E4M3, "m64n256k32 e4m3->fp32", 1, 32, false, false, true, FILL_E4M3, KERN_ELEM_E4M3, 1e-3 },
	{ KERN_WGMMA_E5M2, "m64n256k32 e5m2->fp32", 1, 32, false, false, true, FILL_E5M2, KERN_ELEM_E5M2, 1e-3 },
	{ KERN_WGMMA_INT8, "m64n256k32 s8->s32", 1, 32, false, true, false, FILL_S8, KERN_ELEM_S8, 0 },
	{ KERN_WGMMA_SP_BF16, "sp m64n256k32 bf16->fp32 (2:4 sparse A)", 2, 32, true, false, false, FILL_BF16,
	  KERN_ELEM_BF16, 1e-3 },
	{ KERN_WGMMA_SP_E4M3, "sp m64n256k64 e4m3->fp32 (2:4 sparse A)", 1, 64, true, false, true, FILL_E4M3,
	  KERN_ELEM_E4M3, 1e-3 },
};

#define WG_A_ROW 32                /* bytes per row of A as stored */
#define WG_B_ROW_MAX 64            /* bytes per row of B, sparse forms */
#define WG_SPARSE_META 0x44444444u /* every field: kept elements 0 and 1 of 4 */

/* Byte offset of byte kb of row `row` in a K-major tile of row_bytes per row. */
__host__ __device__ __forceinline__ unsigned wg_offset(int row, int kb, int row_bytes)
{
	return (unsigned)((row % 8) * 16 + (row / 8) * (row_bytes / 16) * WG_LBO + (kb / 16) * WG_LBO + kb % 16);
}

__device__ __forceinline__ uint64_t wg_desc(const void *smem, unsigned lbo, unsigned sbo)
{
	uint32_t addr = (uint32_t)__cvta_generic_to_shared(smem);
	return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)((lbo >> 4) & 0x3FFF) << 16) |
	       ((uint64_t)((sbo >> 4) & 0x3FFF) << 32);
}

/* The 128 accumulator operands %0..%127, as float ("f") or s32 ("r"). */
#define WG_D8(c, b) \
	c(d[b + 0]), c(d[b + 1]), c(d[b + 2]), c(d[b + 3]), c(d[b + 4]), c(d[b + 5]), c(d[b + 6]), c(d[b + 7])
#define WG_D128(c)                                                                                                    \
	WG_D8(c, 0), WG_D8(c, 8), WG_D8(c, 16), WG_D8(c, 24), WG_D8(c, 32), WG_D8(c, 40), WG_D8(c, 48), WG_D8(c, 56), \
		WG_D8(c, 64), WG_D8(c, 72), WG_D8(c, 80), WG_D8(c, 88), WG_D8(c, 96), WG_D8(c, 104), WG_D8(c, 112),   \
		WG_D8(c, 120)
#define WG_F(x) "+f"(x)
#define WG_R(x) "+r"(x)
#define WG_REGS                                                                                                      \
	"{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, " \
	"%23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, "  \
	"%44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, "  \
	"%65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, "  \
	"%86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, " \
	"%106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, "     \
	"%123, %124, %125, %126, %127}"
/* %128 A descriptor, %129 B descriptor, %130 scale-d (1: D += A B), %131 sparse metadata. */
#define WG_ASM(op, tail, c)                                                                                      \
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n" op " " WG_REGS ", %128, %129, " tail ";\n}\n" \
		     : WG_D128(c)                                                                                \
		     : "l"(da), "l"(db), "r"(acc), "r"(WG_SPARSE_META))

template <int KIND, typename T> __device__ __forceinline__ void wg_mma(T *d, uint64_t da, uint64_t db, int acc)
{
	if constexpr (KIND == WG_BF16)
		WG_ASM("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", "p, 1, 1, 0, 0", WG_F);
	else if constexpr (KIND == WG_FP16)
		WG_ASM("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16", "p, 1, 1, 0, 0", WG_F);
	else if constexpr (KIND == WG_TF32)
		WG_ASM("wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32", "p, 1, 1", WG_F);
	else if constexpr (KIND == WG_E4M3)
		WG_ASM("wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3", "p, 1, 1", WG_F);
	else if constexpr (KIND == WG_E5M2)
		WG_ASM("wgmma.mma_async.sync.aligned.m64n256k32.f32.e5m2.e5m2", "p, 1, 1", WG_F);
	else if constexpr (KIND == WG_INT8)
		WG_ASM("wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8", "p", WG_R);
	else if constexpr (KIND == WG_SP_BF16)
		WG_ASM("wgmma.mma_async.sp.sync.aligned.m64n256k32.f32.bf16.bf16", "%131, 0, p, 1, 1, 0, 0", WG_F);
	else
		WG_ASM("wgmma.mma_async.sp.sync.aligned.m64n256k64.f32.e4m3.e4m3", "%131, 0, p, 1, 1", WG_F);
}

/* a: 64 rows x WG_A_ROW bytes, b: 256 rows x b_row bytes, both row-major
 * logical tiles [row][byte of K]; out: 128 accumulators per thread. */
template <int KIND, typename T>
__global__ void __launch_bounds__(WG_THREADS)
	rp_wgmma(const uint8_t *__restrict__ a, const uint8_t *__restrict__ b, T *__restrict__ out, int iters)
{
	constexpr bool sparse = KIND == WG_SP_BF16 || KIND == WG_SP_E4M3;
	constexpr int b_row = sparse ? 2 * WG_A_ROW : WG_A_ROW;
	__shared__ __align__(1024) uint8_t sa[64 * WG_A_ROW];
	__shared__ __align__(1024) uint8_t sb[WG_N * b_row];
	int t = threadIdx.x;
	/* Store the logical tiles in the layout above. */
	for (int i = t; i < 64 * WG_A_ROW; i += WG_THREADS)
		sa[wg_offset(i / WG_A_ROW, i % WG_A_ROW, WG_A_ROW)] = a[i];
	for (int i = t; i < WG_N * b_row; i += WG_THREADS)
		sb[wg_offset(i / b_row, i % b_row, b_row)] = b[i];
	/* Ordinary stores read next by the tensor cores (the async proxy). */
	asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
	__syncthreads();
	uint64_t da = wg_desc(sa, WG_LBO, (WG_A_ROW / 16) * WG_LBO), db = wg_desc(sb, WG_LBO, (b_row / 16) * WG_LBO);
	T d[128];
#pragma unroll
	for (int r = 0; r < 128; r++)
		d[r] = 0;
	for (int i = 0; i < iters; i++) {
		asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
		for (int j = 0; j < WG_BATCH; j++)
			wg_mma<KIND, T>(d, da, db, 1);
		asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
		asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
	}
	asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
	T *o = out + ((size_t)blockIdx.x * WG_THREADS + t) * 128;
#pragma unroll
	for (int r = 0; r < 128; r++)
		o[r] = d[r];
}

static const void *wg_kernel(int kind)
{
	switch (kind) {
	case WG_BF16:
		return (const void *)rp_wgmma<WG_BF16, float>;
	case WG_FP16:
		return (const void *)rp_wgmma<WG_FP16, float>;
	case WG_TF32:
		return (const void *)rp_wgmma<WG_TF32, float>;
	case WG_E4M3:
		return (const void *)rp_wgmma<WG_E4M3, float>;
	case WG_E5M2:
		return (const void *)rp_wgmma<WG_E5M2, float>;
	case WG_INT8:
		return (const void *)rp_wgmma<WG_INT8, int>;
	case WG_SP_BF16:
		return (const void *)rp_wgmma<WG_SP_BF16, float>;
	default:
		return (const void *)rp_wgmma<WG_SP_E4M3, float>;
	}
}

extern "C" const void *rp_wgmma_kernel(void)
{
	return wg_kernel(WG_BF16);
}

struct wg_job {
	struct kern_ctx *ctx;
	const void *func;
	int blocks;
	const uint8_t *a, *b;
	void *out;
	int iters;
};

static int wg_launch(void *user, int rep, char *err, size_t err_len)
{
	(void)rep;
	struct wg_job *j = (struct wg_job *)user;
	void *args[] = { (void *)&j->a, (void *)&j->b, (void *)&j->out, (void *)&j->iters };
	CK(cudaLaunchKernel(j->func, dim3(j->blocks), dim3(WG_THREADS), args, 0, j->ctx->stream));
	CK_LAUNCH("rp_wgmma");
	return 0;
}

/* The value of element e of a fill (the host's decoding of what the device wrote). */
static double wg_value(const struct wg_type *ty, uint64_t seed, size_t e)
{
	return kern_value(ty->elem, seed, e);
}

extern "C" int rp_wgmma_run(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
			    size_t err_len)
{
	const struct wg_type *ty = NULL;
	int kind = 0;
	for (; kind < WG_KINDS; kind++)
		if (wg_types[kind].id == cfg->id) {
			ty = &wg_types[kind];
			break;
		}
	if (!ty)
		return kern_failf(err, err_len, "rp_wgmma_run: not a wgmma kernel (%d)", (int)cfg->id);
	const char *name = kern_id_name(cfg->id);
	const void *func = wg_kernel(kind);
	int per_sm = 0;
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func, WG_THREADS, 0));
	if (per_sm < 1)
		return kern_failf(err, err_len, "%s: the kernel does not fit on an SM", name);
	int blocks = ctx->info.sm_count * per_sm;
	size_t nout = (size_t)blocks * WG_THREADS * 128;
	int a_k = WG_A_ROW / ty->elem_bytes;  /* stored A elements per row */
	int b_k = (ty->sparse ? 2 : 1) * a_k; /* B elements per row = logical K */
	size_t a_elems = 64 * (size_t)a_k, b_elems = WG_N * (size_t)b_k;
	dev_buffer a, b, out;
	CK_ALLOC(a, a_elems * ty->elem_bytes);
	CK_ALLOC(b, b_elems * ty->elem_bytes);
	CK_ALLOC(out, nout * 4);
	if (kern_fill(ctx, ty->fill, a.ptr, a_elems, cfg->seed, err, err_len) ||
	    kern_fill(ctx, ty->fill, b.ptr, b_elems, cfg->seed + 1, err, err_len))
		return -1;
	CK(cudaMemsetAsync(out.ptr, 0xFF, nout * 4, ctx->stream));
	struct wg_job job = {
		ctx, func, blocks, a.as<uint8_t>(), b.as<uint8_t>(), out.ptr, ty->short_check ? 1 : WG_ITERS
	};
	if (wg_launch(&job, 0, err, err_len))
		return -1;
	CK(cudaStreamSynchronize(ctx->stream));

	host_buffer ref, host;
	if (!ref.alloc(64 * WG_N * sizeof(double)) || !host.alloc(nout * 4))
		return kern_failf(err, err_len, "out of host memory");
	double *D = ref.as<double>();
	/* Instructions per accumulator in the verified run. */
	double times = (double)job.iters * WG_BATCH;
	for (int m = 0; m < 64; m++)
		for (int n = 0; n < WG_N; n++) {
			double s = 0;
			for (int j = 0; j < a_k; j++) {
				/* Stored A element j is logical k = j, or 4 (j / 2) + j % 2 when sparse. */
				int k = ty->sparse ? 4 * (j / 2) + j % 2 : j;
				s += wg_value(ty, cfg->seed, (size_t)m * a_k + j) *
				     wg_value(ty, cfg->seed + 1, (size_t)n * b_k + k);
			}
			D[m * WG_N + n] = s * times;
		}
	CK(cudaMemcpy(host.ptr, out.ptr, nout * 4, cudaMemcpyDeviceToHost));
	struct kern_error e = { 0, 0, 0 };
	for (int blk = 0; blk < blocks; blk++)
		for (int t = 0; t < WG_THREADS; t++)
			for (int r = 0; r < 128; r++) {
				int row, col;
				kern_wgmma_d_coords(t, r, &row, &col);
				size_t at = ((size_t)blk * WG_THREADS + t) * 128 + r;
				double got =
					ty->integer ? (double)host.as<int32_t>()[at] : (double)host.as<float>()[at];
				kern_error_add(&e, got, D[row * WG_N + col]);
			}
	res->verify_error = kern_error_value(&e);
	res->verify_tolerance = ty->tolerance;
	if (!(res->verify_error <= res->verify_tolerance))
		return kern_failf(err, err_len, "%s: verification failed: relative error %.3g > %.3g", name,
				  res->verify_error, res->verify_tolerance);
	job.iters = WG_ITERS;
	if (kern_time_launches(ctx, cfg, res, wg_launch, &job, err, err_len))
		return -1;
	/* Sparse forms count the dense-equivalent FLOPs (the datasheet's convention). */
	res->work = (double)blocks * WG_ITERS * WG_BATCH * 2.0 * 64 * WG_N * ty->k;
	snprintf(res->method, sizeof res->method,
		 "wgmma.mma_async.%s, A and B from shared memory (descriptors, no swizzle), 1 warpgroup per block, "
		 "%d blocks/SM, %d x %d instructions per warpgroup%s%s%s",
		 ty->name, per_sm, WG_ITERS, WG_BATCH, ty->short_check ? " (verified with 1 x 4)" : "",
		 ty->sparse ? "; dense-equivalent FLOPs" : "", ty->integer ? "; OPs counted as FLOPs" : "");
	return 0;
}
