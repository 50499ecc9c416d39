/* The portable reference kernels and their host runners: memory (copy, triad,
 * read, write, the L2 sweep, shared memory), vector FMA (fp32, fp64, half2)
 * and launch costs. Included once by kernels/cuda/backend.cu and once by
 * kernels/hip/backend.hip after kernels/common/gpu.h. */
#ifndef RIDGE_KERN_STREAM_H
#define RIDGE_KERN_STREAM_H

#include <math.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "gpu.h"

#include "../rand.h"
#include "../verify.h"

#if defined(__HIPCC__)
#include <hip/hip_fp16.h>
/* HIP has no cache-global load for float4; a plain load may be served by the
 * 16 KiB vector L1 of a CU at the smallest working sets (kernels/README.md). */
#define KERN_LOAD_L2(p) (*(p))
#define KERN_LOAD_L2_NAME "plain loads"
#else
#include <cuda_fp16.h>
#define KERN_LOAD_L2(p) __ldcg(p)
#define KERN_LOAD_L2_NAME "ld.global.cg (L1 bypassed)"
#endif

/* ---------------------------------------------------------------- timing */

/* Waits for event e, reading clocks and power (cfg->sample) meanwhile. */
static int wait_sampling(const struct kern_config *cfg, gpuEvent_t e, char *err, size_t err_len)
{
	for (;;) {
		gpuError_t q = gpu(EventQuery)(e);
		if (q == gpuSuccess)
			break;
		if (q != gpuErrorNotReady)
			CK(q);
		if (cfg->sample)
			cfg->sample(cfg->sample_user);
		usleep(500);
	}
	CK(gpu(EventSynchronize)(e));
	return 0;
}

/* Sustained mode (cfg->window_s > 0): each timed run is a window of
 * back-to-back launches lasting about window_s, sized from the last warm-up
 * launch; its seconds are the window's device time per launch. The next
 * window is queued before the last one is waited for, so the device never
 * idles between windows. */
static int time_windows(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res,
			kern_launch_fn launch, void *user, char *err, size_t err_len)
{
	int n = cfg->repeats;
	struct events {
		gpuEvent_t e[2 * KERN_MAX_REPEATS + 2];
		int count = 0;
		~events()
		{
			for (int i = 0; i < count; i++)
				(void)gpu(EventDestroy)(e[i]);
		}
	} ev;
	for (int i = 0; i < 2 * n + 2; i++) {
		CK(gpu(EventCreate)(&ev.e[i]));
		ev.count++;
	}
	CK(gpu(EventRecord)(ev.e[0], ctx->stream));
	if (launch(user, -1, err, err_len))
		return -1;
	CK(gpu(EventRecord)(ev.e[1], ctx->stream));
	CK(gpu(EventSynchronize)(ev.e[1]));
	float ms = 0;
	CK(gpu(EventElapsedTime)(&ms, ev.e[0], ev.e[1]));
	double one = ms > 0 ? ms * 1e-3 : 1e-6;
	long per_window = (long)ceil(cfg->window_s / one);
	if (per_window < 1)
		per_window = 1;
	if (per_window > 1000000)
		per_window = 1000000;
	for (int r = 0; r < n; r++) {
		gpuEvent_t start = ev.e[2 + 2 * r], stop = ev.e[3 + 2 * r];
		CK(gpu(EventRecord)(start, ctx->stream));
		for (long i = 0; i < per_window; i++) {
			if (launch(user, (int)(i % KERN_MAX_REPEATS), err, err_len))
				return -1;
			/* A full launch queue blocks here for most of a window: read
			 * the clocks here too, or a window would have no samples. */
			if (cfg->sample && i % 16 == 15)
				cfg->sample(cfg->sample_user);
		}
		CK(gpu(EventRecord)(stop, ctx->stream));
		if (r > 0) {
			if (wait_sampling(cfg, ev.e[1 + 2 * r], err, err_len))
				return -1;
			CK(gpu(EventElapsedTime)(&ms, ev.e[2 * r], ev.e[1 + 2 * r]));
			res->seconds[r - 1] = ms * 1e-3 / per_window;
			if (cfg->window_end)
				cfg->window_end(cfg->sample_user, r - 1);
		}
	}
	if (wait_sampling(cfg, ev.e[1 + 2 * n], err, err_len))
		return -1;
	CK(gpu(EventElapsedTime)(&ms, ev.e[2 * n], ev.e[1 + 2 * n]));
	res->seconds[n - 1] = ms * 1e-3 / per_window;
	if (cfg->window_end)
		cfg->window_end(cfg->sample_user, n - 1);
	res->repeats = n;
	return 0;
}

int kern_time_launches(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res,
		       kern_launch_fn launch, void *user, char *err, size_t err_len)
{
	int n = cfg->repeats;
	if (n < 1 || n > KERN_MAX_REPEATS)
		return kern_failf(err, err_len, "repeats %d is out of range (1..%d)", n, KERN_MAX_REPEATS);
	for (int w = 0; w < cfg->warmup; w++)
		if (launch(user, -1 - w, err, err_len))
			return -1;
	CK(gpu(StreamSynchronize)(ctx->stream));
	if (cfg->window_s > 0)
		return time_windows(ctx, cfg, res, launch, user, err, err_len);

	struct events {
		gpuEvent_t e[KERN_MAX_REPEATS + 1];
		int count = 0;
		~events()
		{
			for (int i = 0; i < count; i++)
				(void)gpu(EventDestroy)(e[i]);
		}
	} ev;
	for (int i = 0; i <= n; i++) {
		CK(gpu(EventCreate)(&ev.e[i]));
		ev.count++;
	}
	CK(gpu(EventRecord)(ev.e[0], ctx->stream));
	for (int r = 0; r < n; r++) {
		if (launch(user, r, err, err_len))
			return -1;
		CK(gpu(EventRecord)(ev.e[r + 1], ctx->stream));
	}
	/* Read clocks and power while the device works through the queue. */
	if (wait_sampling(cfg, ev.e[n], err, err_len))
		return -1;
	for (int r = 0; r < n; r++) {
		float ms = 0;
		CK(gpu(EventElapsedTime)(&ms, ev.e[r], ev.e[r + 1]));
		res->seconds[r] = ms * 1e-3;
	}
	res->repeats = n;
	return 0;
}

/* ---------------------------------------------------------------- fill */

__global__ void aux_fill(int kind, void *ptr, size_t count, uint64_t seed)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
		switch (kind) {
		case FILL_F32:
			((uint32_t *)ptr)[i] = kern_bits_f32(seed, i, 0);
			break;
		case FILL_F32_POSITIVE:
			((uint32_t *)ptr)[i] = kern_bits_f32(seed, i, 1);
			break;
		case FILL_BF16:
			((uint16_t *)ptr)[i] = kern_bits_bf16(seed, i);
			break;
		case FILL_F16:
			((uint16_t *)ptr)[i] = kern_bits_f16(seed, i);
			break;
		case FILL_E4M3:
			((uint8_t *)ptr)[i] = kern_bits_e4m3(seed, i);
			break;
		case FILL_F64:
			((uint64_t *)ptr)[i] = kern_bits_f64(seed, i);
			break;
		case FILL_E5M2:
			((uint8_t *)ptr)[i] = kern_bits_e5m2(seed, i);
			break;
		case FILL_TF32:
			((uint32_t *)ptr)[i] = kern_bits_tf32(seed, i);
			break;
		case FILL_S8:
			((uint8_t *)ptr)[i] = kern_bits_s8(seed, i);
			break;
		}
	}
}

int kern_fill(struct kern_ctx *ctx, enum kern_fill kind, void *ptr, size_t count, uint64_t seed, char *err,
	      size_t err_len)
{
	aux_fill<<<kern_blocks_for(ctx, 256), 256, 0, ctx->stream>>>((int)kind, ptr, count, seed);
	CK_LAUNCH("aux_fill");
	return 0;
}

/* Bytes an HBM kernel moves per launch, at least (rp_copy says why). */
#define STREAM_BYTES_PER_LAUNCH 2147483648.0

static size_t default_array_bytes(const struct kern_ctx *ctx)
{
	/* At least 8 x L2 (and 256 MiB), a whole number of MiB. */
	double want = 8 * ctx->info.l2_bytes;
	if (want < 256.0 * 1048576)
		want = 256.0 * 1048576;
	return (size_t)ceil(want / 1048576) * 1048576;
}

/* One full wave: as many blocks as the runtime says fit on every SM at once,
 * so a grid-stride kernel has no partly filled second wave. */
template <typename F>
static int full_wave(struct kern_ctx *ctx, F func, int threads, size_t dyn, int *blocks, char *err, size_t err_len)
{
	int per_sm = 0;
	CK(gpu(OccupancyMaxActiveBlocksPerMultiprocessor)(&per_sm, func, threads, dyn));
	if (per_sm < 1)
		return kern_failf(err, err_len, "a kernel of %d threads does not fit on an SM", threads);
	*blocks = per_sm * ctx->info.sm_count;
	return 0;
}

static double seconds_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---------------------------------------------------------------- HBM kernels */

/* Copy and triad: one float4 per thread over 2 GiB arrays, a grid of
 * n / 256 blocks (the BabelStream form). Blocks that finish are replaced by
 * new ones, so every SM stays full to the end, and one launch moves 4 GiB
 * (copy) or 6 GiB (triad): its ramp-up and tail are under 1 % of it. On the
 * H200 the grid-stride form with four loads in flight, one full wave and
 * several passes over 480 MiB arrays reached 3.93 / 4.13 TB/s
 * (probe/README.md, "copy and triad"). */
__global__ void rp_copy(const float4 *__restrict__ a, float4 *__restrict__ b, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		b[i] = a[i];
}

__device__ __forceinline__ float4 triad4(float4 b, float4 c, float s)
{
	return make_float4(fmaf(s, c.x, b.x), fmaf(s, c.y, b.y), fmaf(s, c.z, b.z), fmaf(s, c.w, b.w));
}

__global__ void rp_triad(float4 *__restrict__ a, const float4 *__restrict__ b, const float4 *__restrict__ c, float s,
			 size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		a[i] = triad4(b[i], c[i], s);
}

/* The other HBM kernels (read, write, read_wide): four independent 16-byte
 * loads in flight per thread, grid-stride, `passes` passes over arrays of
 * 8 x L2 or more in one launch. Each thread touches the same elements in
 * every pass, so a pass needs no barrier and the result is that of one pass
 * (the read kernels' sums grow by the pass count). Why several passes: one
 * pass over 480 MiB lasts 0.11 ms on an H200 and the launch's ramp-up and
 * tail cost ~4 % of it (probe/README.md, "array size"). */

/* Device-side check of a copy or triad output (n float4) against the
 * generator's values, in double: acc[0] += sum (out - ref)^2, acc[1] +=
 * sum ref^2, acc[2] += non-finite outputs. triad_s = 0: copy of seed's array;
 * else seed's + triad_s x (seed + 1)'s. */
__global__ void aux_check_stream(const float *__restrict__ out, size_t nf, uint64_t seed, float triad_s, double *acc)
{
	__shared__ double part[2][32];
	__shared__ unsigned long long bad_count;
	if (threadIdx.x == 0)
		bad_count = 0;
	__syncthreads();
	double d2 = 0, r2 = 0;
	unsigned long long bad = 0;
	size_t step = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < nf; i += step) {
		double ref = (double)__uint_as_float(kern_bits_f32(seed, i, 0));
		if (triad_s != 0)
			ref += (double)triad_s * (double)__uint_as_float(kern_bits_f32(seed + 1, i, 0));
		float o = out[i];
		if (!isfinite(o)) {
			bad++;
			continue;
		}
		d2 += ((double)o - ref) * ((double)o - ref);
		r2 += ref * ref;
	}
	int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
	for (int off = warpSize / 2; off > 0; off /= 2) {
#if defined(__HIPCC__)
		d2 += __shfl_down(d2, off);
		r2 += __shfl_down(r2, off);
#else
		d2 += __shfl_down_sync(0xffffffffu, d2, off);
		r2 += __shfl_down_sync(0xffffffffu, r2, off);
#endif
	}
	if (lane == 0) {
		part[0][warp] = d2;
		part[1][warp] = r2;
	}
	if (bad)
		atomicAdd(&bad_count, bad);
	__syncthreads();
	if (threadIdx.x == 0) {
		double a = 0, b = 0;
		for (int w = 0; w < (int)(blockDim.x / warpSize); w++) {
			a += part[0][w];
			b += part[1][w];
		}
		atomicAdd(&acc[0], a);
		atomicAdd(&acc[1], b);
		if (bad_count)
			atomicAdd(&acc[2], (double)bad_count);
	}
}

__device__ __forceinline__ float sum4(float4 v)
{
	return (v.x + v.y) + (v.z + v.w);
}

/* Block sum of one float per thread, added to *out in double. */
__device__ void block_sum_to(float v, double *out)
{
	__shared__ float partial[32];
	int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
	for (int off = warpSize / 2; off > 0; off /= 2)
#if defined(__HIPCC__)
		v += __shfl_down(v, off);
#else
		v += __shfl_down_sync(0xffffffffu, v, off);
#endif
	if (lane == 0)
		partial[warp] = v;
	__syncthreads();
	if (threadIdx.x == 0) {
		double s = 0;
		for (int w = 0; w < (int)(blockDim.x / warpSize); w++)
			s += partial[w];
		atomicAdd(out, s);
	}
}

__global__ void rp_read(const float4 *__restrict__ a, size_t n, int passes, double *out)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	for (int p = 0; p < passes; p++) {
		size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
		for (; i + 3 * stride < n; i += 4 * stride) {
			float4 v0 = a[i], v1 = a[i + stride], v2 = a[i + 2 * stride], v3 = a[i + 3 * stride];
			s0 += sum4(v0);
			s1 += sum4(v1);
			s2 += sum4(v2);
			s3 += sum4(v3);
		}
		for (; i < n; i += stride)
			s0 += sum4(a[i]);
	}
	block_sum_to((s0 + s1) + (s2 + s3), out);
}

/* Eight 16-byte loads in flight per thread; on sm_80 and later each load
 * asks L2 to fetch the whole 256-byte block around it (ld.global.nc.L2::256B),
 * so DRAM sees long bursts. Elsewhere plain loads. */
__device__ __forceinline__ float4 load_wide(const float4 *p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(__HIPCC__)
	float4 v;
	asm volatile("ld.global.nc.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
		     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
		     : "l"(p));
	return v;
#else
	return *p;
#endif
}

__global__ void rp_read_wide(const float4 *__restrict__ a, size_t n, int passes, double *out)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	float s[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
	for (int p = 0; p < passes; p++) {
		size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
		for (; i + 7 * stride < n; i += 8 * stride) {
			float4 v[8];
#pragma unroll
			for (int k = 0; k < 8; k++)
				v[k] = load_wide(a + i + k * stride);
#pragma unroll
			for (int k = 0; k < 8; k++)
				s[k] += sum4(v[k]);
		}
		for (; i < n; i += stride)
			s[0] += sum4(load_wide(a + i));
	}
	block_sum_to(((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7])), out);
}

/* The value the write kernel stores at element e (host and device). */
static __host__ __device__ __forceinline__ float write_value(float base, size_t e)
{
	return base + (float)(unsigned)(e & 0xFFFFu);
}

__global__ void rp_write(float4 *__restrict__ a, float base, size_t n, int passes)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (int p = 0; p < passes; p++)
		for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
			size_t e = 4 * i;
			a[i] = make_float4(write_value(base, e), write_value(base, e + 1), write_value(base, e + 2),
					   write_value(base, e + 3));
		}
}

/* The L2 sweep, in the form of RRZE gpu-benches' gpu-l2-cache (own code): the
 * working set is cut into chunks of L2_CHUNK_BYTES; block b reads chunk
 * b mod chunks once, 512 threads, each L2_PER_THREAD float4 with loads that
 * skip L1 (ld.global.cg), four blocks per SM. Thousands of short blocks per
 * launch, so the SMs stay full to the end of it; the chunks are read equally
 * often. On the H200 (2026-12-01, logs/2026-12-01-h200-lease3/exp.txt) 512 x 4
 * read 0.7-0.9 % faster than 1024 x 2 at every set from 6 to 32 MiB, and as
 * fast as gpu-l2-cache's own kernel; the first form (one full wave of
 * 256-thread blocks, grid-stride passes, 4 loads in flight) reached 8.6 TB/s
 * (probe/README.md, "L2"). */
#define L2_THREADS 512
#define L2_PER_THREAD 32
#define L2_CHUNK_BYTES (L2_THREADS * L2_PER_THREAD * 16.0)

/* Four blocks of 512 per SM (32 registers) where an SM holds 2048 threads,
 * two elsewhere. */
#if defined(__CUDA_ARCH__) && !defined(__HIPCC__) && \
	(__CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000 || __CUDA_ARCH__ == 1030)
#define L2_MIN_BLOCKS 4
#elif defined(__CUDA_ARCH__) && !defined(__HIPCC__)
#define L2_MIN_BLOCKS 2
#else
#define L2_MIN_BLOCKS 1
#endif

__global__ void __launch_bounds__(L2_THREADS, L2_MIN_BLOCKS)
	rp_l2_read(const float4 *__restrict__ a, int chunks, double *out)
{
	const float4 *p = a + (size_t)(blockIdx.x % chunks) * (L2_THREADS * L2_PER_THREAD) + threadIdx.x;
	float s0 = 0, s1 = 0;
#pragma unroll 8
	for (int i = 0; i < L2_PER_THREAD; i += 2) {
		float4 v0 = KERN_LOAD_L2(p + i * L2_THREADS), v1 = KERN_LOAD_L2(p + (i + 1) * L2_THREADS);
		s0 += sum4(v0);
		s1 += sum4(v1);
	}
	block_sum_to(s0 + s1, out);
}

/* Shared memory: SMEM_ELEMS float4 per block; thread t reads element
 * (t + i) mod SMEM_ELEMS at step i, so a warp reads 32 consecutive 16-byte
 * words (no bank conflicts) and every thread sums every element
 * SMEM_ITERS / SMEM_ELEMS times. */
#define SMEM_ELEMS 2048
#define SMEM_THREADS 512
#define SMEM_ITERS 16384

__global__ void __launch_bounds__(SMEM_THREADS) rp_smem(const float4 *__restrict__ in, float *__restrict__ out)
{
	__shared__ float4 tile[SMEM_ELEMS];
	for (int i = threadIdx.x; i < SMEM_ELEMS; i += blockDim.x)
		tile[i] = in[(size_t)blockIdx.x * SMEM_ELEMS + i];
	__syncthreads();
	float4 acc0 = make_float4(0, 0, 0, 0), acc1 = acc0;
	int t = threadIdx.x;
#pragma unroll 8
	for (int i = 0; i < SMEM_ITERS; i += 2) {
		float4 v0 = tile[(t + i) & (SMEM_ELEMS - 1)];
		float4 v1 = tile[(t + i + 1) & (SMEM_ELEMS - 1)];
		acc0.x += v0.x;
		acc0.y += v0.y;
		acc0.z += v0.z;
		acc0.w += v0.w;
		acc1.x += v1.x;
		acc1.y += v1.y;
		acc1.z += v1.z;
		acc1.w += v1.w;
	}
	float v = sum4(acc0) + sum4(acc1);
	__shared__ float partial[SMEM_THREADS / 32];
	for (int off = 16; off > 0; off /= 2)
#if defined(__HIPCC__)
		v += __shfl_down(v, off, 32);
#else
		v += __shfl_down_sync(0xffffffffu, v, off);
#endif
	if ((t & 31) == 0)
		partial[t >> 5] = v;
	__syncthreads();
	if (t == 0) {
		float s = 0;
		for (int w = 0; w < SMEM_THREADS / 32; w++)
			s += partial[w];
		out[blockIdx.x] = s;
	}
}

/* ---------------------------------------------------------------- memory runners */

struct stream_job {
	struct kern_ctx *ctx;
	enum kern_id id;
	dev_buffer *bufs;
	int nbuf;
	size_t n4;
	int blocks, threads;
	double *sum;
	float triad_s, write_base;
	int passes;
};

static int stream_launch(void *user, int rep, char *err, size_t err_len)
{
	struct stream_job *j = (struct stream_job *)user;
	int r = rep < 0 ? 0 : rep;
	/* Rotate the roles among nbuf buffers so no run starts on data the last
	 * one left in L2. */
	float4 *b0 = j->bufs[r % j->nbuf].as<float4>();
	float4 *b1 = j->bufs[(r + 1) % j->nbuf].as<float4>();
	float4 *b2 = j->bufs[(r + 2) % j->nbuf].as<float4>();
	gpuStream_t s = j->ctx->stream;
	switch (j->id) {
	case KERN_COPY:
	case KERN_COPY_FIXED:
		rp_copy<<<j->blocks, j->threads, 0, s>>>(b0, b1, j->n4);
		break;
	case KERN_TRIAD:
		rp_triad<<<j->blocks, j->threads, 0, s>>>(b0, b1, b2, j->triad_s, j->n4);
		break;
	case KERN_READ:
		rp_read<<<j->blocks, j->threads, 0, s>>>(b0, j->n4, j->passes, j->sum);
		break;
	case KERN_WRITE:
		rp_write<<<j->blocks, j->threads, 0, s>>>(b0, j->write_base, j->n4, j->passes);
		break;
	case KERN_READ_WIDE:
		rp_read_wide<<<j->blocks, j->threads, 0, s>>>(b0, j->n4, j->passes, j->sum);
		break;
	default:
		return kern_failf(err, err_len, "stream_launch: unexpected kernel %d", (int)j->id);
	}
	CK_LAUNCH("stream kernel");
	return 0;
}

/* Bytes per array of copy and triad (see rp_copy). */
#define STREAM_ONE_PER_THREAD_BYTES 2147483648.0

/* copy, triad and copy_fixed (one float4 per thread) are checked on the
 * device in double (aux_check_stream): a host check of 2 GiB would take
 * seconds. */
static int check_stream_on_device(struct kern_ctx *ctx, const void *out, size_t nf, uint64_t seed, float triad_s,
				  struct kern_error *e, char *err, size_t err_len)
{
	dev_buffer acc;
	CK_ALLOC(acc, 3 * sizeof(double));
	CK(gpu(MemsetAsync)(acc.ptr, 0, 3 * sizeof(double), ctx->stream));
	aux_check_stream<<<kern_blocks_for(ctx, 256), 256, 0, ctx->stream>>>((const float *)out, nf, seed, triad_s,
									     acc.as<double>());
	CK_LAUNCH("aux_check_stream");
	double h[3];
	CK(gpu(MemcpyAsync)(h, acc.ptr, sizeof h, gpuMemcpyDeviceToHost, ctx->stream));
	CK(gpu(StreamSynchronize)(ctx->stream));
	e->diff2 = h[0];
	e->ref2 = h[1];
	e->bad = (int)h[2];
	return 0;
}

static int run_stream(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
		      size_t err_len)
{
	bool one_per_thread = cfg->id == KERN_COPY || cfg->id == KERN_TRIAD || cfg->id == KERN_COPY_FIXED;
	bool is_copy = cfg->id == KERN_COPY || cfg->id == KERN_COPY_FIXED;
	size_t bytes = cfg->bytes > 0   ? (size_t)cfg->bytes
		       : one_per_thread ? (size_t)STREAM_ONE_PER_THREAD_BYTES
					: default_array_bytes(ctx);
	bytes = bytes / 64 * 64;
	if (bytes < 4096)
		return kern_failf(err, err_len, "%s: %zu bytes per array is too small", kern_id_name(cfg->id), bytes);
	size_t n4 = bytes / 16, nf = n4 * 4;
	int arrays = is_copy ? 2 : cfg->id == KERN_TRIAD ? 3 : 1;
	int nbuf = arrays + 1;
	dev_buffer bufs[4], sum;
	for (int b = 0; b < nbuf; b++) {
		CK_ALLOC(bufs[b], bytes);
		if (kern_fill(ctx, (cfg->id == KERN_READ || cfg->id == KERN_READ_WIDE) ? FILL_F32_POSITIVE : FILL_F32,
			      bufs[b].ptr, nf, cfg->seed + b, err, err_len))
			return -1;
	}
	CK_ALLOC(sum, sizeof(double));
	struct stream_job job;
	job.ctx = ctx;
	job.id = cfg->id;
	job.bufs = bufs;
	job.nbuf = nbuf;
	job.n4 = n4;
	job.threads = 256;
	int fw = 0;
	if (one_per_thread) {
		size_t blocks = (n4 + 255) / 256;
		if (blocks > 0x7FFFFFFFu)
			return kern_failf(err, err_len, "%s: %zu bytes per array needs too many blocks",
					  kern_id_name(cfg->id), bytes);
		job.blocks = (int)blocks;
	} else {
		fw = cfg->id == KERN_READ        ? full_wave(ctx, rp_read, 256, 0, &job.blocks, err, err_len)
		     : cfg->id == KERN_READ_WIDE ? full_wave(ctx, rp_read_wide, 256, 0, &job.blocks, err, err_len)
						 : full_wave(ctx, rp_write, 256, 0, &job.blocks, err, err_len);
	}
	if (fw)
		return -1;
	job.sum = sum.as<double>();
	job.triad_s = 0.375f;
	job.write_base = (float)kern_decode_f32(kern_bits_f32(cfg->seed + 99, 0, 1));
	double moved = is_copy ? 2.0 : cfg->id == KERN_TRIAD ? 3.0 : 1.0;
	/* The grid-stride kernels: at least 2 GiB moved per launch (see rp_read). */
	job.passes = one_per_thread ? 1 : (int)ceil(STREAM_BYTES_PER_LAUNCH / (moved * (double)bytes));
	if (job.passes < 1)
		job.passes = 1;

	/* Verify the run with roles 0, 1, 2 on a poisoned output. */
	if (is_copy)
		CK(gpu(MemsetAsync)(bufs[1].ptr, 0xFF, bytes, ctx->stream));
	else if (cfg->id != KERN_READ && cfg->id != KERN_READ_WIDE)
		CK(gpu(MemsetAsync)(bufs[0].ptr, 0xFF, bytes, ctx->stream));
	CK(gpu(MemsetAsync)(sum.ptr, 0, sizeof(double), ctx->stream));
	if (stream_launch(&job, 0, err, err_len))
		return -1;
	CK(gpu(StreamSynchronize)(ctx->stream));
	struct kern_error e = { 0, 0, 0 };
	if (cfg->id == KERN_READ || cfg->id == KERN_READ_WIDE) {
		double got = 0, want = 0;
		CK(gpu(Memcpy)(&got, sum.ptr, sizeof got, gpuMemcpyDeviceToHost));
		for (size_t i = 0; i < nf; i++)
			want += kern_value(KERN_ELEM_F32_POSITIVE, cfg->seed, i);
		kern_error_add(&e, got, job.passes * want);
		res->verify_tolerance = 1e-4;
	} else if (one_per_thread) {
		/* copy: b1 = b0 (seed); triad: b0 = b1 (seed + 1) + s b2 (seed + 2). */
		if (check_stream_on_device(ctx, is_copy ? bufs[1].ptr : bufs[0].ptr, nf,
					   is_copy ? cfg->seed : cfg->seed + 1, is_copy ? 0.0f : job.triad_s, &e, err,
					   err_len))
			return -1;
		res->verify_tolerance = cfg->id == KERN_TRIAD ? 1e-6 : 0;
	} else {
		host_buffer host;
		if (!host.alloc(bytes))
			return kern_failf(err, err_len, "out of host memory (%zu bytes)", bytes);
		CK(gpu(Memcpy)(host.ptr, bufs[0].ptr, bytes, gpuMemcpyDeviceToHost));
		const float *h = host.as<float>();
		for (size_t i = 0; i < nf; i++)
			kern_error_add(&e, h[i], write_value(job.write_base, i));
		res->verify_tolerance = 0;
	}
	res->verify_error = kern_error_value(&e);
	if (!(res->verify_error <= res->verify_tolerance))
		return kern_failf(err, err_len, "%s: verification failed: relative error %.3g > tolerance %.3g",
				  kern_id_name(cfg->id), res->verify_error, res->verify_tolerance);

	if (kern_time_launches(ctx, cfg, res, stream_launch, &job, err, err_len))
		return -1;
	res->work = moved * (double)bytes * job.passes;
	res->bytes = (double)bytes;
	if (one_per_thread)
		snprintf(res->method, sizeof res->method,
			 "%s, %d x %.4g MiB arrays (roles rotated over %d), one float4 per thread, %d x %d threads, "
			 "one pass per launch; checked on the device in double; bytes read + written",
			 kern_id_name(cfg->id), arrays, bytes / 1048576.0, nbuf, job.blocks, job.threads);
	else
		snprintf(res->method, sizeof res->method,
			 "%s, %d x %.0f MiB arrays (roles rotated over %d), %d passes per launch, float4 accesses, %s "
			 "per thread, %d x %d threads (one full wave); bytes read + written",
			 kern_id_name(cfg->id), arrays, bytes / 1048576.0, nbuf, job.passes,
			 cfg->id == KERN_READ_WIDE ? "8 in flight with the L2::256B prefetch hint" : "4 in flight",
			 job.blocks, job.threads);
	return 0;
}

/* The L2 sweep keeps one array (5 x L2 or the largest working set asked) and
 * its host prefix sums, so each point costs only its own timing. */
static int l2_prepare(struct kern_ctx *ctx, size_t need, uint64_t seed, char *err, size_t err_len)
{
	size_t want = (size_t)(5 * ctx->info.l2_bytes);
	if (want < need)
		want = need;
	want = (want + 1048575) / 1048576 * 1048576;
	if (ctx->l2_buf.ptr && ctx->l2_buf.bytes >= need && ctx->l2_seed == seed)
		return 0;
	free(ctx->l2_prefix);
	ctx->l2_prefix = NULL;
	CK_ALLOC(ctx->l2_buf, want);
	size_t n4 = want / 16;
	if (kern_fill(ctx, FILL_F32_POSITIVE, ctx->l2_buf.ptr, n4 * 4, seed, err, err_len))
		return -1;
	ctx->l2_prefix = (double *)malloc((n4 + 1) * sizeof(double));
	if (!ctx->l2_prefix)
		return kern_failf(err, err_len, "out of host memory for the L2 sweep reference");
	ctx->l2_prefix[0] = 0;
	for (size_t i = 0; i < n4; i++) {
		double s = 0;
		for (int j = 0; j < 4; j++)
			s += kern_value(KERN_ELEM_F32_POSITIVE, seed, 4 * i + j);
		ctx->l2_prefix[i + 1] = ctx->l2_prefix[i] + s;
	}
	ctx->l2_count = n4;
	ctx->l2_seed = seed;
	return 0;
}

static int l2_launch(void *user, int rep, char *err, size_t err_len)
{
	(void)rep;
	struct stream_job *j = (struct stream_job *)user;
	rp_l2_read<<<j->blocks, L2_THREADS, 0, j->ctx->stream>>>(j->ctx->l2_buf.as<float4>(), j->passes, j->sum);
	CK_LAUNCH("rp_l2_read");
	return 0;
}

static int run_l2(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
		  size_t err_len)
{
	size_t chunk = (size_t)L2_CHUNK_BYTES;
	size_t chunks = (size_t)cfg->bytes / chunk;
	if (chunks < 1 || chunks > 1u << 20)
		return kern_failf(err, err_len, "l2_read: working set %.0f bytes: not 1 to 2^20 chunks of %zu bytes",
				  cfg->bytes, chunk);
	size_t bytes = chunks * chunk;
	/* One array for the whole sweep: its seed stays fixed per process. */
	if (l2_prepare(ctx, bytes, cfg->seed, err, err_len))
		return -1;
	dev_buffer sum;
	CK_ALLOC(sum, sizeof(double));
	struct stream_job job;
	memset(&job, 0, sizeof job);
	job.ctx = ctx;
	job.id = KERN_L2_READ;
	job.n4 = bytes / 16;
	job.threads = L2_THREADS;
	/* About 4 GB read per launch, every chunk read the same number of times
	 * (job.passes holds the chunk count for l2_launch). */
	size_t reads = (size_t)ceil(4e9 / chunk / (double)chunks);
	if (reads < 1)
		reads = 1;
	if (reads * chunks > 0x7FFFFFFFu)
		return kern_failf(err, err_len, "l2_read: too many blocks");
	job.blocks = (int)(reads * chunks);
	job.passes = (int)chunks;
	job.sum = sum.as<double>();
	CK(gpu(MemsetAsync)(sum.ptr, 0, sizeof(double), ctx->stream));
	if (l2_launch(&job, 0, err, err_len))
		return -1;
	double got = 0;
	CK(gpu(MemcpyAsync)(&got, sum.ptr, sizeof got, gpuMemcpyDeviceToHost, ctx->stream));
	CK(gpu(StreamSynchronize)(ctx->stream));
	struct kern_error e = { 0, 0, 0 };
	kern_error_add(&e, got, (double)reads * ctx->l2_prefix[job.n4]);
	res->verify_error = kern_error_value(&e);
	res->verify_tolerance = 1e-4;
	if (!(res->verify_error <= res->verify_tolerance))
		return kern_failf(err, err_len, "l2_read: verification failed at %zu bytes: relative error %.3g > %.3g",
				  bytes, res->verify_error, res->verify_tolerance);
	if (kern_time_launches(ctx, cfg, res, l2_launch, &job, err, err_len))
		return -1;
	res->work = (double)reads * (double)bytes;
	res->bytes = (double)bytes;
	snprintf(
		res->method, sizeof res->method,
		"read-only, %.2f MiB working set in %zu chunks of %.0f KiB, block b reads chunk b mod %zu with " KERN_LOAD_L2_NAME
		", %d blocks of %d threads (each chunk read %zu times per launch)",
		bytes / 1048576.0, chunks, chunk / 1024.0, chunks, job.blocks, L2_THREADS, reads);
	return 0;
}

struct smem_job {
	struct kern_ctx *ctx;
	int blocks;
	const float4 *in;
	float *out;
};

static int smem_launch(void *user, int rep, char *err, size_t err_len)
{
	(void)rep;
	struct smem_job *j = (struct smem_job *)user;
	rp_smem<<<j->blocks, SMEM_THREADS, 0, j->ctx->stream>>>(j->in, j->out);
	CK_LAUNCH("rp_smem");
	return 0;
}

static int run_smem(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
		    size_t err_len)
{
	int blocks = 0;
	if (full_wave(ctx, rp_smem, SMEM_THREADS, 0, &blocks, err, err_len))
		return -1;
	dev_buffer in, out;
	size_t nf = (size_t)blocks * SMEM_ELEMS * 4;
	CK_ALLOC(in, nf * sizeof(float));
	CK_ALLOC(out, blocks * sizeof(float));
	if (kern_fill(ctx, FILL_F32_POSITIVE, in.ptr, nf, cfg->seed, err, err_len))
		return -1;
	CK(gpu(MemsetAsync)(out.ptr, 0xFF, blocks * sizeof(float), ctx->stream));
	struct smem_job job = { ctx, blocks, in.as<float4>(), out.as<float>() };
	if (smem_launch(&job, 0, err, err_len))
		return -1;
	CK(gpu(StreamSynchronize)(ctx->stream));
	host_buffer host;
	if (!host.alloc(blocks * sizeof(float)))
		return kern_failf(err, err_len, "out of host memory");
	CK(gpu(Memcpy)(host.ptr, out.ptr, blocks * sizeof(float), gpuMemcpyDeviceToHost));
	struct kern_error e = { 0, 0, 0 };
	for (int b = 0; b < blocks; b++) {
		double s = 0;
		for (size_t i = 0; i < SMEM_ELEMS * 4; i++)
			s += kern_value(KERN_ELEM_F32_POSITIVE, cfg->seed, (size_t)b * SMEM_ELEMS * 4 + i);
		kern_error_add(&e, host.as<float>()[b], s * SMEM_THREADS * (SMEM_ITERS / SMEM_ELEMS));
	}
	res->verify_error = kern_error_value(&e);
	res->verify_tolerance = 1e-4;
	if (!(res->verify_error <= res->verify_tolerance))
		return kern_failf(err, err_len, "smem: verification failed: relative error %.3g > %.3g",
				  res->verify_error, res->verify_tolerance);
	if (kern_time_launches(ctx, cfg, res, smem_launch, &job, err, err_len))
		return -1;
	res->work = (double)blocks * SMEM_THREADS * SMEM_ITERS * 16.0;
	res->bytes = SMEM_ELEMS * 16.0;
	snprintf(res->method, sizeof res->method,
		 "shared-memory reads, 16-byte conflict-free accesses, %d KiB per block, %d x %d threads, %d reads per "
		 "thread",
		 SMEM_ELEMS * 16 / 1024, blocks, SMEM_THREADS, SMEM_ITERS);
	return 0;
}

/* ---------------------------------------------------------------- vector FMA */

/* CHAINS independent chains x = x * b + c per thread, ITERS steps each.
 * b < 1, so rounding errors fade and the result is close to the closed form.
 * Operands are placed so each FMA reads one register from the register file:
 * b is a kernel parameter (the constant bank) and c is one register shared by
 * the thread's chains (consecutive FMAs reuse it through the operand reuse
 * cache). Three distinct register operands collide in the register banks and
 * cap the rate near two thirds of peak (measured on an H200: 61%). The chains
 * differ in x0 (per chain and thread), c differs per thread. */
#define FMA_CHAINS 8
#define FMA_ITERS 8192
#define FMA_THREADS 256

template <typename T, typename B, T (*FMA)(T, B, T)>
__device__ __forceinline__ void fma_chains(const T *__restrict__ x0, B b, const T *__restrict__ c, T *__restrict__ out,
					   int iters)
{
	size_t n = (size_t)gridDim.x * blockDim.x, t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	T x[FMA_CHAINS], cc = c[t];
#pragma unroll
	for (int j = 0; j < FMA_CHAINS; j++)
		x[j] = x0[j * n + t];
	for (int i = 0; i < iters; i += 4) {
#pragma unroll
		for (int u = 0; u < 4; u++)
#pragma unroll
			for (int j = 0; j < FMA_CHAINS; j++)
				x[j] = FMA(x[j], b, cc);
	}
#pragma unroll
	for (int j = 0; j < FMA_CHAINS; j++)
		out[j * n + t] = x[j];
}

__device__ __forceinline__ float fma_f32(float x, float b, float c)
{
	return fmaf(x, b, c);
}
__device__ __forceinline__ double fma_f64(double x, double b, double c)
{
	return fma(x, b, c);
}
__device__ __forceinline__ __half2 fma_f16x2(__half2 x, __half2 b, __half2 c)
{
	return __hfma2(x, b, c);
}

__global__ void __launch_bounds__(FMA_THREADS)
	rp_fma_f32(const float *__restrict__ x0, float b, const float *__restrict__ c, float *__restrict__ out,
		   int iters)
{
	fma_chains<float, float, fma_f32>(x0, b, c, out, iters);
}

__global__ void __launch_bounds__(FMA_THREADS)
	rp_fma_f64(const double *__restrict__ x0, double b, const double *__restrict__ c, double *__restrict__ out,
		   int iters)
{
	fma_chains<double, double, fma_f64>(x0, b, c, out, iters);
}

__global__ void __launch_bounds__(FMA_THREADS)
	rp_fma_f16x2(const __half2 *__restrict__ x0, __half2 b, const __half2 *__restrict__ c,
		     __half2 *__restrict__ out, int iters)
{
	fma_chains<__half2, __half2, fma_f16x2>(x0, b, c, out, iters);
}

/* Chain inputs: x0 and c positive, c scaled by 2^-10 (fp32, fp64). Index i
 * is the element (chain j, thread t) -> j * T + t; for half2 the two lanes
 * are elements 2i and 2i + 1. */
__global__ void aux_fill_chains(int kind, void *x0, void *c, size_t count, uint64_t seed)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
		if (kind == 0) {
			((float *)x0)[i] = __uint_as_float(kern_bits_f32(seed, i, 1));
			((float *)c)[i] = __uint_as_float(kern_bits_f32(seed + 2, i, 1)) * 0x1p-10f;
		} else if (kind == 1) {
			uint64_t xb = kern_bits_f64(seed, i) & ~(1ull << 63),
				 cb = kern_bits_f64(seed + 2, i) & ~(1ull << 63);
			((double *)x0)[i] = __longlong_as_double((long long)xb);
			((double *)c)[i] = __longlong_as_double((long long)cb) * 0x1p-10;
		} else {
			for (int lane = 0; lane < 2; lane++) {
				size_t e = 2 * i + lane;
				((__half_raw *)x0)[e].x = (unsigned short)(kern_bits_f16(seed, e) & 0x7FFF);
				((__half_raw *)c)[e].x = (unsigned short)(kern_bits_f16(seed + 2, e) & 0x7FFF);
			}
		}
	}
}

struct fma_job {
	struct kern_ctx *ctx;
	enum kern_id id;
	int blocks;
	void *x0, *c, *out;
	float b32;
	double b64;
	__half2 b16;
};

static int fma_launch(void *user, int rep, char *err, size_t err_len)
{
	(void)rep;
	struct fma_job *j = (struct fma_job *)user;
	gpuStream_t s = j->ctx->stream;
	if (j->id == KERN_FMA_FP32)
		rp_fma_f32<<<j->blocks, FMA_THREADS, 0, s>>>((const float *)j->x0, j->b32, (const float *)j->c,
							     (float *)j->out, FMA_ITERS);
	else if (j->id == KERN_FMA_FP64)
		rp_fma_f64<<<j->blocks, FMA_THREADS, 0, s>>>((const double *)j->x0, j->b64, (const double *)j->c,
							     (double *)j->out, FMA_ITERS);
	else
		rp_fma_f16x2<<<j->blocks, FMA_THREADS, 0, s>>>((const __half2 *)j->x0, j->b16, (const __half2 *)j->c,
							       (__half2 *)j->out, FMA_ITERS);
	CK_LAUNCH("fma kernel");
	return 0;
}

static int run_fma(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
		   size_t err_len)
{
	int kind = cfg->id == KERN_FMA_FP32 ? 0 : cfg->id == KERN_FMA_FP64 ? 1 : 2;
	int blocks = 0;
	int fw = kind == 0   ? full_wave(ctx, rp_fma_f32, FMA_THREADS, 0, &blocks, err, err_len)
		 : kind == 1 ? full_wave(ctx, rp_fma_f64, FMA_THREADS, 0, &blocks, err, err_len)
			     : full_wave(ctx, rp_fma_f16x2, FMA_THREADS, 0, &blocks, err, err_len);
	if (fw)
		return -1;
	size_t T = (size_t)blocks * FMA_THREADS, count = T * FMA_CHAINS;
	size_t elem = kind == 1 ? 8 : 4; /* half2 is 4 bytes */
	dev_buffer x0, c, out;
	CK_ALLOC(x0, count * elem);
	CK_ALLOC(c, count * elem);
	CK_ALLOC(out, count * elem);
	aux_fill_chains<<<kern_blocks_for(ctx, 256), 256, 0, ctx->stream>>>(kind, x0.ptr, c.ptr, count, cfg->seed);
	CK_LAUNCH("aux_fill_chains");
	CK(gpu(MemsetAsync)(out.ptr, 0xFF, count * elem, ctx->stream));
	uint64_t s = cfg->seed;
	struct fma_job job = {};
	job.ctx = ctx;
	job.id = cfg->id;
	job.blocks = blocks;
	job.x0 = x0.ptr;
	job.c = c.ptr;
	job.out = out.ptr;
	job.b32 = kern_chain_b_f32(s + 1, 0);
	job.b64 = kern_chain_b_f64(s + 1, 0);
	job.b16 = __floats2half2_rn(kern_chain_b_f16(s + 1, 0), kern_chain_b_f16(s + 1, 0));
	if (fma_launch(&job, 0, err, err_len))
		return -1;
	CK(gpu(StreamSynchronize)(ctx->stream));
	host_buffer host;
	if (!host.alloc(count * elem))
		return kern_failf(err, err_len, "out of host memory");
	CK(gpu(Memcpy)(host.ptr, out.ptr, count * elem, gpuMemcpyDeviceToHost));
	struct kern_error e = { 0, 0, 0 };
	for (size_t i = 0; i < count; i++) {
		size_t ci = i % T; /* c is per thread */
		if (kind == 0) {
			double x = kern_decode_f32(kern_bits_f32(s, i, 1));
			double cc = kern_decode_f32(kern_bits_f32(s + 2, ci, 1)) * 0x1p-10;
			kern_error_add(&e, host.as<float>()[i], kern_chain_reference(x, job.b32, cc, FMA_ITERS));
		} else if (kind == 1) {
			double x = fabs(kern_decode_f64(kern_bits_f64(s, i)));
			double cc = fabs(kern_decode_f64(kern_bits_f64(s + 2, ci))) * 0x1p-10;
			kern_error_add(&e, host.as<double>()[i], kern_chain_reference(x, job.b64, cc, FMA_ITERS));
		} else {
			for (int lane = 0; lane < 2; lane++) {
				size_t el = 2 * i + lane;
				double x = kern_decode_f16((uint16_t)(kern_bits_f16(s, el) & 0x7FFF));
				double cc = kern_decode_f16((uint16_t)(kern_bits_f16(s + 2, 2 * ci + lane) & 0x7FFF));
				uint16_t got = ((const uint16_t *)host.ptr)[el];
				kern_error_add(&e, kern_decode_f16(got),
					       kern_chain_reference(x, kern_chain_b_f16(s + 1, 0), cc, FMA_ITERS));
			}
		}
	}
	res->verify_error = kern_error_value(&e);
	res->verify_tolerance = kind == 0 ? 1e-3 : kind == 1 ? 1e-9 : 5e-2;
	if (!(res->verify_error <= res->verify_tolerance))
		return kern_failf(err, err_len, "%s: verification failed: relative error %.3g > tolerance %.3g",
				  kern_id_name(cfg->id), res->verify_error, res->verify_tolerance);
	if (kern_time_launches(ctx, cfg, res, fma_launch, &job, err, err_len))
		return -1;
	double flops_per_step = kind == 2 ? 4.0 : 2.0; /* an FMA is 2 FLOPs; HFMA2 does two */
	res->work = (double)T * FMA_CHAINS * FMA_ITERS * flops_per_step;
	res->bytes = 0;
	snprintf(res->method, sizeof res->method,
		 "%s, %d independent chains x = x*b + c per thread (b constant bank, c shared register), %d steps, %d "
		 "x %d threads "
		 "(one full wave); closed-form reference",
		 kind == 0   ? "FFMA fp32"
		 : kind == 1 ? "DFMA fp64"
			     : "HFMA2 half2 (4 FLOP per instruction)",
		 FMA_CHAINS, FMA_ITERS, blocks, FMA_THREADS);
	return 0;
}

/* ---------------------------------------------------------------- launch costs */

__global__ void rp_empty(void)
{
}

/* The median of n (<= LAUNCH_SUBBATCHES) values; sorts them in place. */
static double median_of(double *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Host-timed launch figures: each sample is the median of LAUNCH_SUBBATCHES
 * batches (the queue drained between them, untimed), so a preemption inside
 * one batch does not become launch cost. On the H200 (2026-11-30, 6 trials
 * of 15 samples) one 4000-launch batch per sample gave CV 1.1-7.0 %, the
 * median of 8 x 500 gave 1.7-2.5 %; a stall longer than half a sample still
 * shows (probe/README.md, "launch CV"). */
#define LAUNCH_SUBBATCHES 8
#define LAUNCH_BATCH 500
#define LAUNCH_SYNC_BATCH 25
#define GRAPH_NODES 1000

struct graph_holder {
	gpuGraph_t graph = nullptr;
	gpuGraphExec_t exec = nullptr;
	~graph_holder()
	{
		if (exec)
			(void)gpu(GraphExecDestroy)(exec);
		if (graph)
			(void)gpu(GraphDestroy)(graph);
	}
};

static int build_graph(struct kern_ctx *ctx, int nodes, struct graph_holder *g, char *err, size_t err_len)
{
	CK(gpu(StreamBeginCapture)(ctx->stream, gpuStreamCaptureModeGlobal));
	for (int i = 0; i < nodes; i++)
		rp_empty<<<1, 32, 0, ctx->stream>>>();
	gpuError_t launch = gpu(GetLastError)();
	CK(gpu(StreamEndCapture)(ctx->stream, &g->graph));
	CK(launch);
	CK(gpu(GraphInstantiateWithFlags)(&g->exec, g->graph, 0));
	return 0;
}

static int run_launch(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
		      size_t err_len)
{
	int n = cfg->repeats;
	if (n < 1 || n > KERN_MAX_REPEATS)
		return kern_failf(err, err_len, "repeats %d is out of range (1..%d)", n, KERN_MAX_REPEATS);
	struct graph_holder g;
	gpuEvent_t e0, e1;
	int ops = cfg->id == KERN_LAUNCH_SYNC  ? LAUNCH_SYNC_BATCH
		  : cfg->id == KERN_GRAPH_NODE ? GRAPH_NODES
					       : LAUNCH_BATCH;
	if (cfg->id == KERN_GRAPH_NODE || cfg->id == KERN_GRAPH_LAUNCH)
		if (build_graph(ctx, cfg->id == KERN_GRAPH_NODE ? GRAPH_NODES : 1, &g, err, err_len))
			return -1;
	CK(gpu(EventCreate)(&e0));
	struct event_guard {
		gpuEvent_t *e;
		~event_guard()
		{
			(void)gpu(EventDestroy)(*e);
		}
	} guard0 = { &e0 };
	CK(gpu(EventCreate)(&e1));
	struct event_guard guard1 = { &e1 };
	(void)guard0;
	(void)guard1;
	/* Sample -1 .. -warmup are warm-up. */
	for (int r = -(cfg->warmup > 0 ? cfg->warmup : 1); r < n; r++) {
		double per_op[LAUNCH_SUBBATCHES];
		int batches = cfg->id == KERN_GRAPH_NODE ? 1 : LAUNCH_SUBBATCHES;
		for (int b = 0; b < batches; b++) {
			double t0 = 0, t1 = 0;
			switch (cfg->id) {
			case KERN_LAUNCH_ASYNC:
				t0 = seconds_now();
				for (int i = 0; i < ops; i++)
					rp_empty<<<1, 32, 0, ctx->stream>>>();
				t1 = seconds_now();
				CK_LAUNCH("rp_empty");
				break;
			case KERN_LAUNCH_SYNC:
				t0 = seconds_now();
				for (int i = 0; i < ops; i++) {
					rp_empty<<<1, 32, 0, ctx->stream>>>();
					CK(gpu(StreamSynchronize)(ctx->stream));
				}
				t1 = seconds_now();
				CK_LAUNCH("rp_empty");
				break;
			case KERN_GRAPH_NODE: {
				CK(gpu(EventRecord)(e0, ctx->stream));
				CK(gpu(GraphLaunch)(g.exec, ctx->stream));
				CK(gpu(EventRecord)(e1, ctx->stream));
				CK(gpu(EventSynchronize)(e1));
				float ms = 0;
				CK(gpu(EventElapsedTime)(&ms, e0, e1));
				t1 = ms * 1e-3;
				break;
			}
			case KERN_GRAPH_LAUNCH:
				t0 = seconds_now();
				for (int i = 0; i < ops; i++)
					CK(gpu(GraphLaunch)(g.exec, ctx->stream));
				t1 = seconds_now();
				break;
			default:
				return kern_failf(err, err_len, "run_launch: unexpected kernel %d", (int)cfg->id);
			}
			if (cfg->sample)
				cfg->sample(cfg->sample_user);
			CK(gpu(StreamSynchronize)(ctx->stream));
			per_op[b] = (t1 - t0) / ops;
		}
		if (r >= 0)
			res->seconds[r] = median_of(per_op, batches);
	}
	res->repeats = n;
	res->work = ops;
	res->bytes = 0;
	res->verify_error = -1;
	res->verify_tolerance = 0;
	const char *what =
		cfg->id == KERN_LAUNCH_ASYNC
			? "host time of %d back-to-back empty-kernel launches (1 x 32 threads), per launch; "
			  "each run the median of %d such batches"
		: cfg->id == KERN_LAUNCH_SYNC
			? "host time of %d launch + stream-synchronize round trips, per round trip; each run "
			  "the median of %d such batches"
		: cfg->id == KERN_GRAPH_NODE
			? "device time (events) of one replay of a graph of %d empty-kernel nodes, per node"
			: "host time of %d launches of a one-node graph, per launch; each run the median of %d "
			  "such batches";
	snprintf(res->method, sizeof res->method, what, ops, LAUNCH_SUBBATCHES);
	return 0;
}

#endif
