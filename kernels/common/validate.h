/* The validation suite (ridge-probe --validate): kernels whose time ridge's
 * model predicts, so that prediction and measurement can be set side by side.
 * Portable (CUDA and HIP); included once by kernels/common/backend.h after
 * stream.h. The library GEMM shapes of the suite reuse gemm.cu.
 *
 *   v_stream_add       c = a + b (fp32, float4) over a working set of 1 MiB to
 *                      4 GiB, several passes per launch below ~2 GB, loads
 *                      that skip L1 (ld.global.cg): L2 serves a set that fits
 *   v_gemm_naive       fp32 C = A B, one thread per output reading its row of
 *                      A and column of B from global memory every iteration
 *   v_gemm_tiled       the same through 32 x 32 shared-memory tiles (the
 *                      textbook's TILE_SIZE kernel), one output per thread
 *   v_resnorm_*        bf16 h = x + r; y = RMSNorm(h) * w, as two kernels
 *                      (h written, then read back) or one
 *   v_softmax_*        bf16 row softmax as three kernels (max; sum of exp;
 *                      normalize), two (online max and sum; normalize) or one
 *                      (the row held in registers)
 *   v_launch_*         m tiny dependent kernels (32 threads, one add each),
 *                      launched one by one or as one graph; host time to
 *                      completion
 *
 * Every kernel verifies before it is timed: outputs poisoned (all bits set),
 * inputs fresh random values (kernels/rand.h), a device count of poison left
 * (must be 0) and sampled outputs against a double-precision host reference. */
#ifndef RIDGE_KERN_VALIDATE_H
#define RIDGE_KERN_VALIDATE_H

#include <math.h>

#include "stream.h"

/* ---------------------------------------------------------------- helpers */

/* 16-byte loads and stores the compiler may neither drop nor merge across the
 * passes of a multi-pass kernel; loads skip L1 on CUDA (ld.global.cg). */
__device__ __forceinline__ float4 v_load_cg(const float4 *p)
{
#if defined(__HIPCC__)
	return *p;
#else
	float4 v;
	asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];"
		     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
		     : "l"(p));
	return v;
#endif
}

__device__ __forceinline__ void v_store(float4 *p, float4 v)
{
#if defined(__HIPCC__)
	*p = v;
#else
	asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
		     : "memory");
#endif
}

/* bf16 <-> fp32 by bits (round to nearest even; inputs here are never NaN). */
static __host__ __device__ __forceinline__ float v_bf16_to_f32(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

static __host__ __device__ __forceinline__ uint16_t v_f32_to_bf16(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	u += 0x7FFFu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

/* Elements of an array still holding the poison pattern (all bits set). */
__global__ void aux_poison_count(const void *d, int bytes_per_elem, size_t count, unsigned long long *poison)
{
	kern_count_poison(d, bytes_per_elem, count, poison);
}

static int v_poison_left(struct kern_ctx *ctx, const void *d, int bytes_per_elem, size_t count,
			 unsigned long long *left, char *err, size_t err_len)
{
	dev_buffer counter;
	CK_ALLOC(counter, sizeof(unsigned long long));
	CK(gpu(MemsetAsync)(counter.ptr, 0, sizeof(unsigned long long), ctx->stream));
	aux_poison_count<<<kern_blocks_for(ctx, 256), 256, 0, ctx->stream>>>(d, bytes_per_elem, count,
									     counter.as<unsigned long long>());
	CK_LAUNCH("aux_poison_count");
	CK(gpu(MemcpyAsync)(left, counter.ptr, sizeof *left, gpuMemcpyDeviceToHost, ctx->stream));
	CK(gpu(StreamSynchronize)(ctx->stream));
	return 0;
}

/* Copies count elements of size bytes starting at element first to host. */
static int v_fetch(void *host, const void *dev, size_t first, size_t count, size_t size, char *err, size_t err_len)
{
	CK(gpu(Memcpy)(host, (const char *)dev + first * size, count * size, gpuMemcpyDeviceToHost));
	return 0;
}

/* ---------------------------------------------------------------- stream */

__global__ void rv_stream_add(const float4 *a, const float4 *b, float4 *c, size_t n, int passes)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	for (int p = 0; p < passes; p++) {
		size_t i = first;
		for (; i + 3 * stride < n; i += 4 * stride) {
			float4 a0 = v_load_cg(a + i), a1 = v_load_cg(a + i + stride),
			       a2 = v_load_cg(a + i + 2 * stride), a3 = v_load_cg(a + i + 3 * stride);
			float4 b0 = v_load_cg(b + i), b1 = v_load_cg(b + i + stride),
			       b2 = v_load_cg(b + i + 2 * stride), b3 = v_load_cg(b + i + 3 * stride);
			v_store(c + i, make_float4(a0.x + b0.x, a0.y + b0.y, a0.z + b0.z, a0.w + b0.w));
			v_store(c + i + stride, make_float4(a1.x + b1.x, a1.y + b1.y, a1.z + b1.z, a1.w + b1.w));
			v_store(c + i + 2 * stride, make_float4(a2.x + b2.x, a2.y + b2.y, a2.z + b2.z, a2.w + b2.w));
			v_store(c + i + 3 * stride, make_float4(a3.x + b3.x, a3.y + b3.y, a3.z + b3.z, a3.w + b3.w));
		}
		for (; i < n; i += stride) {
			float4 x = v_load_cg(a + i), y = v_load_cg(b + i);
			v_store(c + i, make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w));
		}
	}
}

struct v_stream_job {
	struct kern_ctx *ctx;
	const float4 *a, *b;
	float4 *c;
	size_t n4;
	int blocks, passes;
};

static int v_stream_launch(void *user, int rep, char *err, size_t err_len)
{
	(void)rep;
	struct v_stream_job *j = (struct v_stream_job *)user;
	rv_stream_add<<<j->blocks, 256, 0, j->ctx->stream>>>(j->a, j->b, j->c, j->n4, j->passes);
	CK_LAUNCH("rv_stream_add");
	return 0;
}

/* Host reference of one float sum, rounded as the device rounds it. */
static float v_sum_f32(double a, double b)
{
	return (float)((float)a + (float)b);
}

#define V_SAMPLES 4096

static int run_v_stream(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
			size_t err_len)
{
	/* Three arrays of a third of the working set each, whole float4 counts. */
	size_t per = (size_t)(cfg->bytes / 3) / 64 * 64;
	if (per < 4096)
		return kern_failf(err, err_len, "v_stream_add: working set %.0f bytes is too small", cfg->bytes);
	size_t n4 = per / 16, nf = n4 * 4;
	dev_buffer a, b, c;
	CK_ALLOC(a, per);
	CK_ALLOC(b, per);
	CK_ALLOC(c, per);
	if (kern_fill(ctx, FILL_F32, a.ptr, nf, cfg->seed, err, err_len) ||
	    kern_fill(ctx, FILL_F32, b.ptr, nf, cfg->seed + 1, err, err_len))
		return -1;
	CK(gpu(MemsetAsync)(c.ptr, 0xFF, per, ctx->stream));
	struct v_stream_job job;
	job.ctx = ctx;
	job.a = a.as<float4>();
	job.b = b.as<float4>();
	job.c = c.as<float4>();
	job.n4 = n4;
	/* One float4 per thread per pass at least; one full wave when the set allows. */
	int wave = 0;
	if (full_wave(ctx, rv_stream_add, 256, 0, &wave, err, err_len))
		return -1;
	long threads = (long)wave * 256;
	if ((long)n4 < threads)
		threads = (long)n4;
	job.blocks = (int)((threads + 255) / 256);
	/* About 2 GB moved per launch (one pass past that). */
	job.passes = (int)ceil(2e9 / (3.0 * (double)per));
	if (job.passes < 1)
		job.passes = 1;
	if (v_stream_launch(&job, 0, err, err_len))
		return -1;
	CK(gpu(StreamSynchronize)(ctx->stream));
	unsigned long long left = 0;
	if (v_poison_left(ctx, c.ptr, 4, nf, &left, err, err_len))
		return -1;
	if (left)
		return kern_failf(err, err_len, "v_stream_add: verification failed: %llu of %zu outputs never written",
				  left, nf);
	struct kern_error e = { 0, 0, 0 };
	for (int s = 0; s < V_SAMPLES; s++) {
		size_t i = (size_t)(((uint64_t)kern_hash(cfg->seed + 5, s) << 32 | kern_hash(cfg->seed + 6, s)) % nf);
		float got;
		if (v_fetch(&got, c.ptr, i, 1, sizeof got, err, err_len))
			return -1;
		kern_error_add(&e, got,
			       v_sum_f32(kern_value(KERN_ELEM_F32, cfg->seed, i),
					 kern_value(KERN_ELEM_F32, cfg->seed + 1, i)));
	}
	res->verify_error = kern_error_value(&e);
	res->verify_tolerance = 0;
	if (!(res->verify_error <= res->verify_tolerance))
		return kern_failf(err, err_len, "v_stream_add: verification failed: relative error %.3g",
				  res->verify_error);
	if (kern_time_launches(ctx, cfg, res, v_stream_launch, &job, err, err_len))
		return -1;
	res->work = (double)job.passes * 3.0 * (double)per;
	res->bytes = 3.0 * (double)per;
	snprintf(res->method, sizeof res->method,
		 "c = a + b, 3 x %.3f MiB arrays (working set %.3f MiB), %d pass%s per launch, float4 loads "
		 "with " KERN_LOAD_L2_NAME ", %d x 256 threads; bytes read + written",
		 per / 1048576.0, 3.0 * per / 1048576.0, job.passes, job.passes == 1 ? "" : "es", job.blocks);
	return 0;
}

/* ---------------------------------------------------------------- fp32 GEMMs */

#define V_TILE 32

/* Row-major A (M x K), B (K x N), C (M x N); a 32 x 32 block of threads
 * computes a 32 x 32 block of C, one output per thread, threadIdx.x along N. */
__global__ void __launch_bounds__(V_TILE *V_TILE)
	rv_gemm_naive(const float *A, const float *B, float *C, int M, int N, int K)
{
	int col = blockIdx.x * V_TILE + threadIdx.x, row = blockIdx.y * V_TILE + threadIdx.y;
	if (row >= M || col >= N)
		return;
	float s = 0;
	for (int k = 0; k < K; k++)
		s += A[(size_t)row * K + k] * B[(size_t)k * N + col];
	C[(size_t)row * N + col] = s;
}

/* The textbook's tiled kernel: M, N, K multiples of 32. */
__global__ void __launch_bounds__(V_TILE *V_TILE)
	rv_gemm_tiled(const float *A, const float *B, float *C, int M, int N, int K)
{
	__shared__ float As[V_TILE][V_TILE], Bs[V_TILE][V_TILE];
	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.y * V_TILE + ty, col = blockIdx.x * V_TILE + tx;
	float s = 0;
	for (int t = 0; t < K; t += V_TILE) {
		As[ty][tx] = A[(size_t)row * K + t + tx];
		Bs[ty][tx] = B[(size_t)(t + ty) * N + col];
		__syncthreads();
#pragma unroll
		for (int k = 0; k < V_TILE; k++)
			s += As[ty][k] * Bs[k][tx];
		__syncthreads();
	}
	C[(size_t)row * N + col] = s;
	(void)M;
}

struct v_gemm_job {
	struct kern_ctx *ctx;
	bool tiled;
	const float *a, *b;
	float *c;
	int m, n, k;
};

static int v_gemm_launch(void *user, int rep, char *err, size_t err_len)
{
	(void)rep;
	struct v_gemm_job *j = (struct v_gemm_job *)user;
	dim3 block(V_TILE, V_TILE), grid((j->n + V_TILE - 1) / V_TILE, (j->m + V_TILE - 1) / V_TILE);
	if (j->tiled)
		rv_gemm_tiled<<<grid, block, 0, j->ctx->stream>>>(j->a, j->b, j->c, j->m, j->n, j->k);
	else
		rv_gemm_naive<<<grid, block, 0, j->ctx->stream>>>(j->a, j->b, j->c, j->m, j->n, j->k);
	CK_LAUNCH("rv_gemm");
	return 0;
}

#define V_GEMM_SAMPLES 256

static int run_v_gemm(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
		      size_t err_len)
{
	bool tiled = cfg->id == KERN_V_GEMM_TILED;
	long m = cfg->m, n = cfg->n, k = cfg->k;
	if (m < V_TILE || n < V_TILE || k < V_TILE || m > 32768 || n > 32768 || k > 32768 ||
	    (tiled && (m % V_TILE || n % V_TILE || k % V_TILE)))
		return kern_failf(err, err_len, "%s: shape %ldx%ldx%ld is not supported (32..32768%s)",
				  kern_id_name(cfg->id), m, n, k, tiled ? ", multiples of 32" : "");
	dev_buffer a, b, c;
	CK_ALLOC(a, (size_t)m * k * 4);
	CK_ALLOC(b, (size_t)k * n * 4);
	CK_ALLOC(c, (size_t)m * n * 4);
	if (kern_fill(ctx, FILL_F32, a.ptr, (size_t)m * k, cfg->seed, err, err_len) ||
	    kern_fill(ctx, FILL_F32, b.ptr, (size_t)k * n, cfg->seed + 1, err, err_len))
		return -1;
	CK(gpu(MemsetAsync)(c.ptr, 0xFF, (size_t)m * n * 4, ctx->stream));
	struct v_gemm_job job = { ctx, tiled, a.as<float>(), b.as<float>(), c.as<float>(), (int)m, (int)n, (int)k };
	if (v_gemm_launch(&job, -1, err, err_len))
		return -1;
	CK(gpu(StreamSynchronize)(ctx->stream));
	unsigned long long left = 0;
	if (v_poison_left(ctx, c.ptr, 4, (size_t)m * n, &left, err, err_len))
		return -1;
	if (left)
		return kern_failf(err, err_len, "%s: verification failed: %llu of %ld outputs never written",
				  kern_id_name(cfg->id), left, m * n);
	struct kern_error e = { 0, 0, 0 };
	for (int s = 0; s < V_GEMM_SAMPLES; s++) {
		long row = (long)(kern_hash(cfg->seed + 77, 2 * s) % (uint32_t)m);
		long col = (long)(kern_hash(cfg->seed + 77, 2 * s + 1) % (uint32_t)n);
		float got;
		if (v_fetch(&got, c.ptr, (size_t)row * n + col, 1, sizeof got, err, err_len))
			return -1;
		double ref = 0;
		for (long p = 0; p < k; p++)
			ref += kern_value(KERN_ELEM_F32, cfg->seed, (size_t)row * k + p) *
			       kern_value(KERN_ELEM_F32, cfg->seed + 1, (size_t)p * n + col);
		kern_error_add(&e, got, ref);
	}
	res->verify_error = kern_error_value(&e);
	res->verify_tolerance = 1e-4;
	if (!(res->verify_error <= res->verify_tolerance))
		return kern_failf(err, err_len, "%s: verification failed at %ldx%ldx%ld: relative error %.3g > %.3g",
				  kern_id_name(cfg->id), m, n, k, res->verify_error, res->verify_tolerance);
	if (kern_time_launches(ctx, cfg, res, v_gemm_launch, &job, err, err_len))
		return -1;
	res->work = 2.0 * m * n * k;
	res->bytes = 4.0 * ((double)m * k + (double)k * n + (double)m * n);
	snprintf(res->method, sizeof res->method,
		 "%s fp32 GEMM %ldx%ldx%ld, row-major, 32 x 32 threads per block, one output per thread%s",
		 tiled ? "shared-memory tiled (32 x 32 tiles of A and B)"
		       : "naive (A and B read from global memory "
			 "every iteration)",
		 m, n, k, tiled ? ", two barriers per tile" : "");
	return 0;
}

/* ---------------------------------------------------------------- row kernels (bf16) */

/* Row kernels: every thread holds V_ROW_MAX 16-byte vectors (32 bf16) of
 * one row, all loaded before any arithmetic so that four loads are in flight
 * per thread; a row of n bf16 is served by T = n / 32 threads, and a block of
 * V_ROW_BLOCK threads serves V_ROW_BLOCK / T rows (n = 1024, 2048, 4096 or
 * 8192). Statistics in fp32. */
#define V_ROW_BLOCK 256
#define V_ROW_MAX 4
#define V_ROW_MIN_BLOCKS 5 /* 1280 threads per SM (RMSNorm kernels: 1024): registers capped, no spills */
#define V_RMS_EPS 1e-6f

/* Eight bf16 in one 16-byte vector: element j is the low (even j) or high half
 * of word j / 2. Shifts, not a union, so the values stay in registers. */
struct v_pack {
	uint32_t w[4];
	__device__ __forceinline__ void load(uint4 v)
	{
		w[0] = v.x;
		w[1] = v.y;
		w[2] = v.z;
		w[3] = v.w;
	}
	__device__ __forceinline__ uint4 vec() const
	{
		return make_uint4(w[0], w[1], w[2], w[3]);
	}
	__device__ __forceinline__ float get(int j) const
	{
		uint32_t u = (j & 1) ? (w[j >> 1] & 0xFFFF0000u) : (w[j >> 1] << 16);
		return __uint_as_float(u);
	}
	__device__ __forceinline__ void set(int j, uint16_t h)
	{
		if (j & 1)
			w[j >> 1] = (w[j >> 1] & 0xFFFFu) | ((uint32_t)h << 16);
		else
			w[j >> 1] = (w[j >> 1] & 0xFFFF0000u) | h;
	}
};

/* Where this thread's row and vectors are. */
struct v_row {
	int T;       /* threads per row */
	int t;       /* this thread's index in its row */
	size_t row;  /* the row */
	size_t base; /* its first vector */
	__device__ __forceinline__ v_row(int n8)
	{
		T = n8 / V_ROW_MAX;
		t = threadIdx.x % T;
		row = (size_t)blockIdx.x * (V_ROW_BLOCK / T) + threadIdx.x / T;
		base = row * n8;
	}
	__device__ __forceinline__ size_t at(int q) const
	{
		return base + t + (size_t)q * T;
	}
};

__device__ __forceinline__ float v_shfl_xor(float v, int off)
{
#if defined(__HIPCC__)
	return __shfl_xor(v, off, 32);
#else
	return __shfl_xor_sync(0xffffffffu, v, off);
#endif
}

/* This thread's V_ROW_MAX vectors of row r of x. */
__device__ __forceinline__ void v_row_load(v_pack *v, const uint4 *x, const v_row &r)
{
#pragma unroll
	for (int q = 0; q < V_ROW_MAX; q++)
		v[q].load(x[r.at(q)]);
}

/* Sum (max) over the T threads of a row; every thread of the row gets it.
 * scratch holds V_ROW_BLOCK / 32 floats; consecutive calls may reuse it. */
__device__ __forceinline__ float v_row_sum(float v, const v_row &r, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v += v_shfl_xor(v, off);
	__syncthreads();
	if (threadIdx.x % 32 == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	int first = (int)(threadIdx.x / 32) / (r.T / 32) * (r.T / 32);
	float s = 0;
	for (int w = 0; w < r.T / 32; w++)
		s += scratch[first + w];
	return s;
}

__device__ __forceinline__ float v_row_max(float v, const v_row &r, float *scratch)
{
	for (int off = 16; off > 0; off /= 2)
		v = fmaxf(v, v_shfl_xor(v, off));
	__syncthreads();
	if (threadIdx.x % 32 == 0)
		scratch[threadIdx.x / 32] = v;
	__syncthreads();
	int first = (int)(threadIdx.x / 32) / (r.T / 32) * (r.T / 32);
	float s = scratch[first];
	for (int w = 1; w < r.T / 32; w++)
		s = fmaxf(s, scratch[first + w]);
	return s;
}

/* Online (max, sum of exp) pairs combined. */
__device__ __forceinline__ void v_online_merge(float &m, float &s, float m2, float s2)
{
	float mm = fmaxf(m, m2);
	s = s * __expf(m - mm) + s2 * __expf(m2 - mm);
	m = mm;
}

/* h = x + r, elementwise over n8 vectors of 8 bf16, four vectors in flight per thread. */
__global__ void rv_add_bf16(const uint4 *x, const uint4 *r, uint4 *h, size_t n8)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	for (; i + 3 * stride < n8; i += 4 * stride) {
		v_pack a[4], b[4];
#pragma unroll
		for (int u = 0; u < 4; u++) {
			a[u].load(x[i + u * stride]);
			b[u].load(r[i + u * stride]);
		}
#pragma unroll
		for (int u = 0; u < 4; u++) {
			v_pack o;
#pragma unroll
			for (int j = 0; j < 8; j++)
				o.set(j, v_f32_to_bf16(a[u].get(j) + b[u].get(j)));
			h[i + u * stride] = o.vec();
		}
	}
	for (; i < n8; i += stride) {
		v_pack a, b, o;
		a.load(x[i]);
		b.load(r[i]);
#pragma unroll
		for (int j = 0; j < 8; j++)
			o.set(j, v_f32_to_bf16(a.get(j) + b.get(j)));
		h[i] = o.vec();
	}
}

/* The second half of RMSNorm, shared by the unfused and fused kernels: from
 * the row's values v (this thread's part) and their sum of squares ss,
 * y = v * rsqrt(mean(v^2) + eps) * w, rounded to bf16. */
__device__ __forceinline__ void v_rmsnorm_store(const v_pack *v, float ss, const v_row &r, float *scratch,
						const uint4 *w, uint4 *y, int n8)
{
	float scale = rsqrtf(v_row_sum(ss, r, scratch) / (float)(n8 * 8) + V_RMS_EPS);
#pragma unroll
	for (int q = 0; q < V_ROW_MAX; q++) {
		v_pack wv, o;
		wv.load(w[r.t + q * r.T]);
#pragma unroll
		for (int j = 0; j < 8; j++)
			o.set(j, v_f32_to_bf16(v[q].get(j) * scale * wv.get(j)));
		y[r.at(q)] = o.vec();
	}
}

/* y = h * rsqrt(mean(h^2) + eps) * w. */
__global__ void __launch_bounds__(V_ROW_BLOCK, V_ROW_MIN_BLOCKS - 1)
	rv_rmsnorm_bf16(const uint4 *h, const uint4 *w, uint4 *y, int n8)
{
	__shared__ float scratch[V_ROW_BLOCK / 32];
	v_row r(n8);
	v_pack v[V_ROW_MAX];
	v_row_load(v, h, r);
	float ss = 0;
#pragma unroll
	for (int q = 0; q < V_ROW_MAX; q++)
#pragma unroll
		for (int j = 0; j < 8; j++)
			ss += v[q].get(j) * v[q].get(j);
	v_rmsnorm_store(v, ss, r, scratch, w, y, n8);
}

/* Both in one kernel: h = x + r written (the next residual), y from the rounded h. */
__global__ void __launch_bounds__(V_ROW_BLOCK, V_ROW_MIN_BLOCKS - 1)
	rv_add_rmsnorm_bf16(const uint4 *x, const uint4 *res, const uint4 *w, uint4 *h, uint4 *y, int n8)
{
	__shared__ float scratch[V_ROW_BLOCK / 32];
	v_row r(n8);
	v_pack v[V_ROW_MAX], b[V_ROW_MAX];
#pragma unroll
	for (int q = 0; q < V_ROW_MAX; q++) {
		v[q].load(x[r.at(q)]);
		b[q].load(res[r.at(q)]);
	}
	float ss = 0;
#pragma unroll
	for (int q = 0; q < V_ROW_MAX; q++) {
#pragma unroll
		for (int j = 0; j < 8; j++) {
			v[q].set(j, v_f32_to_bf16(v[q].get(j) + b[q].get(j)));
			ss += v[q].get(j) * v[q].get(j);
		}
		h[r.at(q)] = v[q].vec();
	}
	v_rmsnorm_store(v, ss, r, scratch, w, y, n8);
}

/* Softmax pieces. */
__device__ __forceinline__ float v_local_max(const v_pack *v)
{
	float m = -INFINITY;
#pragma unroll
	for (int q = 0; q < V_ROW_MAX; q++)
#pragma unroll
		for (int j = 0; j < 8; j++)
			m = fmaxf(m, v[q].get(j));
	return m;
}

__device__ __forceinline__ float v_local_sumexp(const v_pack *v, float m)
{
	float s = 0;
#pragma unroll
	for (int q = 0; q < V_ROW_MAX; q++)
#pragma unroll
		for (int j = 0; j < 8; j++)
			s += __expf(v[q].get(j) - m);
	return s;
}

/* y = exp(v - m) * inv, rounded to bf16: the softmax's last step. */
__device__ __forceinline__ void v_softmax_store(const v_pack *v, float m, float inv, const v_row &r, uint4 *y)
{
#pragma unroll
	for (int q = 0; q < V_ROW_MAX; q++) {
		v_pack o;
#pragma unroll
		for (int j = 0; j < 8; j++)
			o.set(j, v_f32_to_bf16(__expf(v[q].get(j) - m) * inv));
		y[r.at(q)] = o.vec();
	}
}

__global__ void __launch_bounds__(V_ROW_BLOCK, V_ROW_MIN_BLOCKS) rv_row_max_bf16(const uint4 *x, float *mx, int n8)
{
	__shared__ float scratch[V_ROW_BLOCK / 32];
	v_row r(n8);
	v_pack v[V_ROW_MAX];
	v_row_load(v, x, r);
	float m = v_row_max(v_local_max(v), r, scratch);
	if (r.t == 0)
		mx[r.row] = m;
}

__global__ void __launch_bounds__(V_ROW_BLOCK, V_ROW_MIN_BLOCKS)
	rv_row_sumexp_bf16(const uint4 *x, const float *mx, float *sum, int n8)
{
	__shared__ float scratch[V_ROW_BLOCK / 32];
	v_row r(n8);
	v_pack v[V_ROW_MAX];
	v_row_load(v, x, r);
	float s = v_row_sum(v_local_sumexp(v, mx[r.row]), r, scratch);
	if (r.t == 0)
		sum[r.row] = s;
}

/* Online softmax statistics: each thread's (max, sum of exp) over its values,
 * merged across the row's threads with the rescaling rule. */
__global__ void __launch_bounds__(V_ROW_BLOCK, V_ROW_MIN_BLOCKS)
	rv_row_online_bf16(const uint4 *x, float *mx, float *sum, int n8)
{
	__shared__ float sm[V_ROW_BLOCK / 32], ss[V_ROW_BLOCK / 32];
	v_row r(n8);
	v_pack v[V_ROW_MAX];
	v_row_load(v, x, r);
	float m = v_local_max(v);
	float s = v_local_sumexp(v, m);
	for (int off = 16; off > 0; off /= 2)
		v_online_merge(m, s, v_shfl_xor(m, off), v_shfl_xor(s, off));
	if (threadIdx.x % 32 == 0) {
		sm[threadIdx.x / 32] = m;
		ss[threadIdx.x / 32] = s;
	}
	__syncthreads();
	if (r.t == 0) {
		int first = (int)(threadIdx.x / 32);
		for (int w = 1; w < r.T / 32; w++)
			v_online_merge(m, s, sm[first + w], ss[first + w]);
		mx[r.row] = m;
		sum[r.row] = s;
	}
}

__global__ void __launch_bounds__(V_ROW_BLOCK, V_ROW_MIN_BLOCKS)
	rv_softmax_norm_bf16(const uint4 *x, const float *mx, const float *sum, uint4 *y, int n8)
{
	v_row r(n8);
	v_pack v[V_ROW_MAX];
	v_row_load(v, x, r);
	float m = mx[r.row], inv = 1.0f / sum[r.row];
	v_softmax_store(v, m, inv, r, y);
}

/* The whole softmax with the row in registers (packed bf16): x read once;
 * exp is recomputed for the output rather than kept (registers, occupancy). */
__global__ void __launch_bounds__(V_ROW_BLOCK, V_ROW_MIN_BLOCKS) rv_softmax_fused_bf16(const uint4 *x, uint4 *y, int n8)
{
	__shared__ float scratch[V_ROW_BLOCK / 32];
	v_row r(n8);
	v_pack v[V_ROW_MAX];
	v_row_load(v, x, r);
	float m = v_row_max(v_local_max(v), r, scratch);
	float inv = 1.0f / v_row_sum(v_local_sumexp(v, m), r, scratch);
	v_softmax_store(v, m, inv, r, y);
}

struct v_row_job {
	struct kern_ctx *ctx;
	enum kern_id id;
	int rows, n8, blocks;
	const uint4 *x, *r, *w;
	uint4 *h, *y;
	float *mx, *sum;
	int add_blocks;
};

static int v_row_launch(void *user, int rep, char *err, size_t err_len)
{
	(void)rep;
	struct v_row_job *j = (struct v_row_job *)user;
	gpuStream_t s = j->ctx->stream;
	switch (j->id) {
	case KERN_V_RESNORM_UNFUSED:
		rv_add_bf16<<<j->add_blocks, 256, 0, s>>>(j->x, j->r, j->h, (size_t)j->rows * j->n8);
		CK_LAUNCH("rv_add_bf16");
		rv_rmsnorm_bf16<<<j->blocks, V_ROW_BLOCK, 0, s>>>(j->h, j->w, j->y, j->n8);
		CK_LAUNCH("rv_rmsnorm_bf16");
		break;
	case KERN_V_RESNORM_FUSED:
		rv_add_rmsnorm_bf16<<<j->blocks, V_ROW_BLOCK, 0, s>>>(j->x, j->r, j->w, j->h, j->y, j->n8);
		CK_LAUNCH("rv_add_rmsnorm_bf16");
		break;
	case KERN_V_SOFTMAX_SAFE:
		rv_row_max_bf16<<<j->blocks, V_ROW_BLOCK, 0, s>>>(j->x, j->mx, j->n8);
		CK_LAUNCH("rv_row_max_bf16");
		rv_row_sumexp_bf16<<<j->blocks, V_ROW_BLOCK, 0, s>>>(j->x, j->mx, j->sum, j->n8);
		CK_LAUNCH("rv_row_sumexp_bf16");
		rv_softmax_norm_bf16<<<j->blocks, V_ROW_BLOCK, 0, s>>>(j->x, j->mx, j->sum, j->y, j->n8);
		CK_LAUNCH("rv_softmax_norm_bf16");
		break;
	case KERN_V_SOFTMAX_ONLINE:
		rv_row_online_bf16<<<j->blocks, V_ROW_BLOCK, 0, s>>>(j->x, j->mx, j->sum, j->n8);
		CK_LAUNCH("rv_row_online_bf16");
		rv_softmax_norm_bf16<<<j->blocks, V_ROW_BLOCK, 0, s>>>(j->x, j->mx, j->sum, j->y, j->n8);
		CK_LAUNCH("rv_softmax_norm_bf16");
		break;
	case KERN_V_SOFTMAX_FUSED:
		rv_softmax_fused_bf16<<<j->blocks, V_ROW_BLOCK, 0, s>>>(j->x, j->y, j->n8);
		CK_LAUNCH("rv_softmax_fused_bf16");
		break;
	default:
		return kern_failf(err, err_len, "v_row_launch: unexpected kernel %d", (int)j->id);
	}
	return 0;
}

/* bf16 value of a double, rounded to nearest even through fp32 (the sums
 * here are exact in fp32). */
static double v_round_bf16(double v)
{
	return v_bf16_to_f32(v_f32_to_bf16((float)v));
}

#define V_ROW_SAMPLES 16

static int run_v_rows(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
		      size_t err_len)
{
	long rows = cfg->m, n = cfg->n;
	long per_row = n / (8 * V_ROW_MAX); /* threads per row */
	if (rows < 1 || rows > (1L << 24) || !(n == 1024 || n == 2048 || n == 4096 || n == 8192) ||
	    rows % (V_ROW_BLOCK / per_row))
		return kern_failf(err, err_len,
				  "%s: %ld rows of %ld are not supported (width 1024, 2048, 4096 or 8192; rows a "
				  "multiple of %ld)",
				  kern_id_name(cfg->id), rows, n, per_row > 0 ? V_ROW_BLOCK / per_row : 1L);
	bool resnorm = cfg->id == KERN_V_RESNORM_UNFUSED || cfg->id == KERN_V_RESNORM_FUSED;
	size_t count = (size_t)rows * n, bytes = count * 2;
	dev_buffer x, r, w, h, y, mx, sum;
	CK_ALLOC(x, bytes);
	CK_ALLOC(y, bytes);
	CK_ALLOC(w, (size_t)n * 2);
	CK_ALLOC(mx, (size_t)rows * 4);
	CK_ALLOC(sum, (size_t)rows * 4);
	if (kern_fill(ctx, FILL_BF16, x.ptr, count, cfg->seed, err, err_len))
		return -1;
	if (resnorm) {
		CK_ALLOC(r, bytes);
		CK_ALLOC(h, bytes);
		if (kern_fill(ctx, FILL_BF16, r.ptr, count, cfg->seed + 1, err, err_len) ||
		    kern_fill(ctx, FILL_BF16, w.ptr, (size_t)n, cfg->seed + 2, err, err_len))
			return -1;
		CK(gpu(MemsetAsync)(h.ptr, 0xFF, bytes, ctx->stream));
	}
	CK(gpu(MemsetAsync)(y.ptr, 0xFF, bytes, ctx->stream));
	struct v_row_job job;
	job.ctx = ctx;
	job.id = cfg->id;
	job.rows = (int)rows;
	job.n8 = (int)(n / 8);
	job.blocks = (int)(rows / (V_ROW_BLOCK / per_row));
	job.x = x.as<uint4>();
	job.r = r.as<uint4>();
	job.w = w.as<uint4>();
	job.h = h.as<uint4>();
	job.y = y.as<uint4>();
	job.mx = mx.as<float>();
	job.sum = sum.as<float>();
	if (full_wave(ctx, rv_add_bf16, 256, 0, &job.add_blocks, err, err_len))
		return -1;
	if (v_row_launch(&job, -1, err, err_len))
		return -1;
	CK(gpu(StreamSynchronize)(ctx->stream));
	unsigned long long left = 0, left_h = 0;
	if (v_poison_left(ctx, y.ptr, 2, count, &left, err, err_len) ||
	    (resnorm && v_poison_left(ctx, h.ptr, 2, count, &left_h, err, err_len)))
		return -1;
	if (left || left_h)
		return kern_failf(err, err_len, "%s: verification failed: %llu outputs never written",
				  kern_id_name(cfg->id), left + left_h);
	/* Sampled rows against double precision. */
	host_buffer hy, hh;
	if (!hy.alloc((size_t)n * 2) || !hh.alloc((size_t)n * 2))
		return kern_failf(err, err_len, "out of host memory");
	struct kern_error e = { 0, 0, 0 }, eh = { 0, 0, 0 };
	double *ref = (double *)malloc((size_t)n * sizeof(double));
	if (!ref)
		return kern_failf(err, err_len, "out of host memory");
	for (int s = 0; s < V_ROW_SAMPLES; s++) {
		size_t row = kern_hash(cfg->seed + 9, s) % (uint32_t)rows;
		if (v_fetch(hy.ptr, y.ptr, row * n, (size_t)n, 2, err, err_len) ||
		    (resnorm && v_fetch(hh.ptr, h.ptr, row * n, (size_t)n, 2, err, err_len))) {
			free(ref);
			return -1;
		}
		if (resnorm) {
			double ss = 0;
			for (long i = 0; i < n; i++) {
				size_t el = row * n + i;
				ref[i] = v_round_bf16(kern_value(KERN_ELEM_BF16, cfg->seed, el) +
						      kern_value(KERN_ELEM_BF16, cfg->seed + 1, el));
				ss += ref[i] * ref[i];
				kern_error_add(&eh, v_bf16_to_f32(hh.as<uint16_t>()[i]), ref[i]);
			}
			double scale = 1.0 / sqrt(ss / (double)n + (double)V_RMS_EPS);
			for (long i = 0; i < n; i++)
				kern_error_add(&e, v_bf16_to_f32(hy.as<uint16_t>()[i]),
					       ref[i] * scale * kern_value(KERN_ELEM_BF16, cfg->seed + 2, (size_t)i));
		} else {
			double m = -INFINITY, sumexp = 0;
			for (long i = 0; i < n; i++) {
				ref[i] = kern_value(KERN_ELEM_BF16, cfg->seed, row * n + i);
				m = ref[i] > m ? ref[i] : m;
			}
			for (long i = 0; i < n; i++)
				sumexp += exp(ref[i] - m);
			for (long i = 0; i < n; i++)
				kern_error_add(&e, v_bf16_to_f32(hy.as<uint16_t>()[i]), exp(ref[i] - m) / sumexp);
		}
	}
	free(ref);
	double eh_value = kern_error_value(&eh);
	res->verify_error = kern_error_value(&e);
	res->verify_tolerance = 1e-2;
	if (!(res->verify_error <= res->verify_tolerance) || !(eh_value <= 0))
		return kern_failf(err, err_len,
				  "%s: verification failed: relative error %.3g > %.3g (h: %.3g, exact expected)",
				  kern_id_name(cfg->id), res->verify_error, res->verify_tolerance, eh_value);
	if (kern_time_launches(ctx, cfg, res, v_row_launch, &job, err, err_len))
		return -1;
	double t = (double)bytes;
	double moved = cfg->id == KERN_V_RESNORM_UNFUSED  ? 5 * t + 2.0 * n
		       : cfg->id == KERN_V_RESNORM_FUSED  ? 4 * t + 2.0 * n
		       : cfg->id == KERN_V_SOFTMAX_SAFE   ? 4 * t
		       : cfg->id == KERN_V_SOFTMAX_ONLINE ? 3 * t
							  : 2 * t;
	res->work = moved;
	res->bytes = t;
	static const char *const what[] = {
		"bf16 residual add (h = x + r), then RMSNorm (one row per block, fp32 statistics): two kernels",
		"bf16 residual add and RMSNorm in one kernel (h and y written, the row in registers)",
		"bf16 softmax in three kernels: row max, sum of exp(x - max), normalize",
		"bf16 softmax in two kernels: online row max and rescaled sum, normalize",
		"bf16 softmax in one kernel, the row in registers (x read once)",
	};
	snprintf(res->method, sizeof res->method,
		 "%s; %ld rows x %ld, %ld threads per row (32 values each, loaded before use), %d-thread blocks",
		 what[cfg->id - KERN_V_RESNORM_UNFUSED], rows, n, per_row, V_ROW_BLOCK);
	return 0;
}

/* ---------------------------------------------------------------- launch-bound */

#define V_TINY_THREADS 32

__global__ void rv_tiny(float *y)
{
	y[threadIdx.x] += 1.0f;
}

static int run_v_launch(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
			size_t err_len)
{
	int kernels = (int)cfg->m;
	if (kernels < 1 || kernels > 100000)
		return kern_failf(err, err_len, "%s: %d kernels is out of range (1..100000)", kern_id_name(cfg->id),
				  kernels);
	int n = cfg->repeats;
	if (n < 1 || n > KERN_MAX_REPEATS)
		return kern_failf(err, err_len, "repeats %d is out of range (1..%d)", n, KERN_MAX_REPEATS);
	bool graph = cfg->id == KERN_V_LAUNCH_GRAPH;
	dev_buffer y;
	CK_ALLOC(y, V_TINY_THREADS * sizeof(float));
	/* Whole numbers, so every sum is exact: y0[t] = t + 1 + (seed mod 64). */
	float y0[V_TINY_THREADS];
	int base = (int)(cfg->seed % 64);
	for (int t = 0; t < V_TINY_THREADS; t++)
		y0[t] = (float)(t + 1 + base);
	/* On the (non-blocking) stream and waited for: a plain Memcpy from pageable
	 * memory may return before its DMA lands (kernels/common/latency.h). */
	CK(gpu(MemcpyAsync)(y.ptr, y0, sizeof y0, gpuMemcpyHostToDevice, ctx->stream));
	CK(gpu(StreamSynchronize)(ctx->stream));
	struct graph_holder g;
	if (graph) {
		CK(gpu(StreamBeginCapture)(ctx->stream, gpuStreamCaptureModeGlobal));
		for (int i = 0; i < kernels; i++)
			rv_tiny<<<1, V_TINY_THREADS, 0, ctx->stream>>>(y.as<float>());
		gpuError_t launch = gpu(GetLastError)();
		CK(gpu(StreamEndCapture)(ctx->stream, &g.graph));
		CK(launch);
		CK(gpu(GraphInstantiateWithFlags)(&g.exec, g.graph, 0));
	}
	long steps = 0;
	/* Step -warmup-1 .. -1: the first verifies, the rest warm up. */
	for (int r = -(cfg->warmup + 1); r < n; r++) {
		double t0 = seconds_now();
		if (graph) {
			CK(gpu(GraphLaunch)(g.exec, ctx->stream));
		} else {
			for (int i = 0; i < kernels; i++)
				rv_tiny<<<1, V_TINY_THREADS, 0, ctx->stream>>>(y.as<float>());
			CK_LAUNCH("rv_tiny");
		}
		CK(gpu(StreamSynchronize)(ctx->stream));
		double t1 = seconds_now();
		steps++;
		if (cfg->sample)
			cfg->sample(cfg->sample_user);
		if (r == -(cfg->warmup + 1)) {
			float got[V_TINY_THREADS];
			CK(gpu(Memcpy)(got, y.ptr, sizeof got, gpuMemcpyDeviceToHost));
			struct kern_error e = { 0, 0, 0 };
			for (int t = 0; t < V_TINY_THREADS; t++)
				kern_error_add(&e, got[t], (double)y0[t] + kernels);
			res->verify_error = kern_error_value(&e);
			res->verify_tolerance = 0;
			if (!(res->verify_error <= 0))
				return kern_failf(err, err_len, "%s: verification failed: relative error %.3g",
						  kern_id_name(cfg->id), res->verify_error);
		}
		if (r >= 0)
			res->seconds[r] = t1 - t0;
	}
	float got[V_TINY_THREADS];
	CK(gpu(Memcpy)(got, y.ptr, sizeof got, gpuMemcpyDeviceToHost));
	for (int t = 0; t < V_TINY_THREADS; t++)
		if ((double)got[t] != (double)y0[t] + (double)kernels * steps)
			return kern_failf(err, err_len, "%s: after %ld steps y[%d] is %.9g, expected %.9g",
					  kern_id_name(cfg->id), steps, t, (double)got[t],
					  (double)y0[t] + (double)kernels * steps);
	res->repeats = n;
	res->work = kernels;
	res->bytes = 0;
	snprintf(res->method, sizeof res->method,
		 "%d dependent tiny kernels (1 x %d threads, y += 1) %s; host time from the first launch to "
		 "stream synchronize, per step",
		 kernels, V_TINY_THREADS,
		 graph ? "replayed as one graph (one cudaGraphLaunch)" : "launched one by one");
	return 0;
}

/* ---------------------------------------------------------------- dispatch */

static int run_validation(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
			  size_t err_len)
{
	switch (cfg->id) {
	case KERN_V_STREAM:
		return run_v_stream(ctx, cfg, res, err, err_len);
	case KERN_V_GEMM_NAIVE:
	case KERN_V_GEMM_TILED:
		return run_v_gemm(ctx, cfg, res, err, err_len);
	case KERN_V_RESNORM_UNFUSED:
	case KERN_V_RESNORM_FUSED:
	case KERN_V_SOFTMAX_SAFE:
	case KERN_V_SOFTMAX_ONLINE:
	case KERN_V_SOFTMAX_FUSED:
		return run_v_rows(ctx, cfg, res, err, err_len);
	case KERN_V_LAUNCH_EAGER:
	case KERN_V_LAUNCH_GRAPH:
		return run_v_launch(ctx, cfg, res, err, err_len);
	default:
		return kern_failf(err, err_len, "run_validation: unexpected kernel %d", (int)cfg->id);
	}
}

#endif
