/* Latency by pointer chase (the method of RRZE gpu-benches' gpu-latency, own
 * code): one thread follows a chain of dependent loads through a working set
 * in a random cyclic order, so every load waits for the one before it and no
 * prefetcher can guess the next line. Portable: compiled by
 * kernels/cuda/latency.cu and kernels/hip/latency.hip; the loads and clocks
 * are the vendor's (below).
 *
 *   KERN_LATENCY       global memory: cfg->bytes working set, one element per
 *                      cfg->stride bytes (128 B lines by default; at strides of
 *                      a page or more each element sits at a random line of its
 *                      page, so the L2 sets stay spread), cfg->l1 = 1 for
 *                      L1-cached loads, 0 for loads that skip L1 (L2).
 *   KERN_LATENCY_SMEM  the same chase through 4 KiB of shared memory.
 *   KERN_LATENCY_HOPS  one chase over a working set in L2 with the clock read
 *                      around each load: 4096 per-load latencies, returned as
 *                      64 quantiles (seconds at the device clock), from which
 *                      the report separates the near and the far L2 partition.
 *
 * Time per load: the device's wall clock around the whole chase, so the
 * launch does not count; the kernel's cycle counter goes into the method
 * text. Verified exactly (kernels/chase.h): the chain's checksum, and the end
 * element of every run against the host's walk of the same cycle.
 *
 * Every host-to-device copy goes through the backend's stream and is waited
 * for: the stream is non-blocking, and a plain cudaMemcpy from pageable
 * memory may return before its DMA lands, so a kernel queued on that stream
 * next could read the buffer's old contents. That is the one mechanism found
 * that fits the intermittent latency_hops failures of 2026-12-01 (a chain
 * built from a stale next[] passed every other chase's old check); 1800
 * uploads in that form did not trigger it on an H200 (probe/README.md). */
#ifndef RIDGE_KERN_LATENCY_H
#define RIDGE_KERN_LATENCY_H

#include <algorithm>

#include "gpu.h" /* first: the runtime header defines __device__ for rand.h */
#include "../chase.h"

#define LAT_SMEM_ELEMS 1024
#define LAT_HOPS_RECORDED 4096
#define LAT_QUANTILES 64

#if defined(__HIPCC__)
/* AMD: wall_clock64() runs at hipDeviceAttributeWallClockRate; a relaxed
 * agent-scope atomic load is a coherent (glc/sc1) load that the vector L1
 * does not serve. */
__device__ __forceinline__ uint64_t lat_timer(void)
{
#if defined(__HIP_DEVICE_COMPILE__)
	return (uint64_t)wall_clock64();
#else
	return 0; /* the host pass (HIP 5.2 declares wall_clock64 for the device pass only) */
#endif
}

template <bool L1> __device__ __forceinline__ const uint64_t *lat_load(const uint64_t *p)
{
	uint64_t v;
	if (L1)
		v = *(const volatile uint64_t *)p;
	else
		v = __hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
	return (const uint64_t *)v;
}
#define LAT_LOAD_L1_NAME "plain loads (vector L1)"
#define LAT_LOAD_L2_NAME "agent-coherent loads (L2)"
#define LAT_TIMER_NAME "wall_clock64()"
#else
/* NVIDIA: %globaltimer counts nanoseconds. */
__device__ __forceinline__ uint64_t lat_timer(void)
{
	uint64_t t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
	return t;
}

template <bool L1> __device__ __forceinline__ const uint64_t *lat_load(const uint64_t *p)
{
	uint64_t v;
	if (L1)
		asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
	else
		asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
	return (const uint64_t *)v;
}
#define LAT_LOAD_L1_NAME "ld.global.ca (L1)"
#define LAT_LOAD_L2_NAME "ld.global.cg (L2)"
#define LAT_TIMER_NAME "%%globaltimer"
#endif

/* hops dependent steps x = step(x), timed: out[0] the last x, out[1] timer
 * ticks, out[2] cycles. The timed runs make a multiple of 16 loads; the tail
 * loop serves the verification run's count. */
template <typename T, typename F> __device__ __forceinline__ void lat_timed(T x, long hops, uint64_t *out, F step)
{
	uint64_t t0 = lat_timer();
	long long c0 = clock64();
	long i = 0;
#pragma unroll 1
	for (; i + 16 <= hops; i += 16) {
#pragma unroll
		for (int u = 0; u < 16; u++)
			x = step(x);
	}
#pragma unroll 1
	for (; i < hops; i++)
		x = step(x);
	long long c1 = clock64();
	uint64_t t1 = lat_timer();
	out[0] = (uint64_t)x;
	out[1] = t1 - t0;
	out[2] = (uint64_t)(c1 - c0);
}

template <bool L1> __global__ void rp_chase(const uint64_t *start, long hops, uint64_t *out)
{
	lat_timed(start, hops, out, [](const uint64_t *p) { return lat_load<L1>(p); });
}

/* The chase with the clock read around every load of the last
 * LAT_HOPS_RECORDED hops (after hops - LAT_HOPS_RECORDED unrecorded ones). The
 * loaded value is stored to shared memory before the second clock read, so
 * that read waits for the load. */
__global__ void rp_chase_hops(const uint64_t *start, long hops, uint64_t *out, uint32_t *cycles)
{
	__shared__ uint32_t lat[LAT_HOPS_RECORDED];
	__shared__ volatile uint64_t sink[1];
	const uint64_t *p = start;
#pragma unroll 1
	for (long i = 0; i < hops - LAT_HOPS_RECORDED; i++)
		p = lat_load<false>(p);
#pragma unroll 1
	for (int i = 0; i < LAT_HOPS_RECORDED; i++) {
		uint32_t c0 = (uint32_t)clock();
		p = lat_load<false>(p);
		sink[0] = (uint64_t)p;
		uint32_t c1 = (uint32_t)clock();
		lat[i] = c1 - c0;
	}
	for (int i = 0; i < LAT_HOPS_RECORDED; i++)
		cycles[i] = lat[i];
	out[0] = (uint64_t)p;
}

/* next[]: byte offsets of the following element, LAT_SMEM_ELEMS of them. */
__global__ void rp_chase_smem(const uint32_t *next, long hops, uint64_t *out)
{
	__shared__ uint32_t s[LAT_SMEM_ELEMS];
	for (int i = 0; i < LAT_SMEM_ELEMS; i++)
		s[i] = next[i];
	__syncthreads();
	lat_timed(0u, hops, out, [&](uint32_t j) { return *(volatile uint32_t *)((volatile char *)s + j); });
}

/* Writes the chain: element i holds the address of element next[i]. */
__global__ void aux_chain(uint64_t *base, const uint32_t *next, size_t count, size_t stride, uint64_t seed)
{
	size_t step = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += step)
		base[kern_chase_offset(seed, i, stride) / 8] =
			(uint64_t)((char *)base + kern_chase_offset(seed, next[i], stride));
}

/* The chain's checksum (kernels/chase.h): over a chain in memory (base set:
 * the byte offset each element points to), or over the byte offsets of the
 * shared-memory chase's next[] (base NULL). */
__global__ void aux_chain_checksum(const uint64_t *base, const uint32_t *next, size_t count, size_t stride,
				   uint64_t seed, unsigned long long *sum)
{
	size_t step = (size_t)gridDim.x * blockDim.x;
	unsigned long long local = 0;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += step) {
		uint64_t to = base ? base[kern_chase_offset(seed, i, stride) / 8] - (uint64_t)base : next[i];
		local += kern_chase_weight(seed, i) * to;
	}
	atomicAdd(sum, local);
}

struct lat_job {
	struct kern_ctx *ctx;
	enum kern_id id;
	bool l1;
	const uint64_t *start;
	const uint32_t *snext;
	long hops;
	uint64_t *out;
	uint32_t *cycles;
};

/* One chase, waited for; got: the end element, timer ticks, cycles. */
static int lat_launch(const struct lat_job *j, uint64_t got[3], char *err, size_t err_len)
{
	gpuStream_t s = j->ctx->stream;
	if (j->id == KERN_LATENCY_SMEM)
		rp_chase_smem<<<1, 1, 0, s>>>(j->snext, j->hops, j->out);
	else if (j->id == KERN_LATENCY_HOPS)
		rp_chase_hops<<<1, 1, 0, s>>>(j->start, j->hops, j->out, j->cycles);
	else if (j->l1)
		rp_chase<true><<<1, 1, 0, s>>>(j->start, j->hops, j->out);
	else
		rp_chase<false><<<1, 1, 0, s>>>(j->start, j->hops, j->out);
	CK_LAUNCH("rp_chase");
	CK(gpu(MemcpyAsync)(got, j->out, 3 * sizeof(uint64_t), gpuMemcpyDeviceToHost, s));
	CK(gpu(StreamSynchronize)(s));
	return 0;
}

/* Ticks of lat_timer per second. */
static int lat_timer_hz(struct kern_ctx *ctx, double *hz, char *err, size_t err_len)
{
#if defined(__HIPCC__) && HIP_VERSION >= 50300000
	int khz = 0;
	CK(hipDeviceGetAttribute(&khz, hipDeviceAttributeWallClockRate, ctx->device));
	if (khz <= 0)
		return kern_failf(err, err_len, "the device reports no wall-clock rate");
	*hz = khz * 1e3;
#elif defined(__HIPCC__)
	/* HIP before 5.3 has no wall-clock-rate attribute: s_memrealtime, behind
	 * wall_clock64(), counts at a constant 100 MHz on CDNA (gfx90a, gfx94x). */
	(void)ctx;
	(void)err;
	(void)err_len;
	*hz = 100e6;
#else
	(void)ctx;
	(void)err;
	(void)err_len;
	*hz = 1e9;
#endif
	return 0;
}

extern "C" int rp_latency_run(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
			      size_t err_len)
{
	int n = cfg->repeats;
	if (n < 1 || n > KERN_MAX_REPEATS)
		return kern_failf(err, err_len, "repeats %d is out of range (1..%d)", n, KERN_MAX_REPEATS);
	bool smem = cfg->id == KERN_LATENCY_SMEM;
	size_t stride = smem ? 4 : cfg->stride >= 8 ? (size_t)cfg->stride : KERN_CHASE_LINE;
	if (!smem && stride % 8)
		return kern_failf(err, err_len, "%s: stride %zu is not a multiple of 8 bytes", kern_id_name(cfg->id),
				  stride);
	if (!smem && stride > KERN_CHASE_LINE && stride % KERN_CHASE_LINE)
		return kern_failf(err, err_len, "%s: stride %zu is not a multiple of %d", kern_id_name(cfg->id), stride,
				  KERN_CHASE_LINE);
	size_t bytes = smem ? LAT_SMEM_ELEMS * 4 : (size_t)cfg->bytes;
	size_t count = bytes / stride;
	if (count < 16 || count > 0xFFFFFFFFu)
		return kern_failf(err, err_len, "%s: %zu elements of %zu bytes: out of range", kern_id_name(cfg->id),
				  count, stride);
	double timer_hz;
	if (lat_timer_hz(ctx, &timer_hz, err, err_len))
		return -1;
	/* At least one walk over the whole chain, at least 2^14 loads, at most 2^16
	 * per run (the hops variant: the recorded ones after a walk of the chain). */
	long hops = (long)std::min<size_t>(std::max<size_t>(count, 16384), 65536) / 16 * 16;
	if (cfg->id == KERN_LATENCY_HOPS)
		hops = (long)count + LAT_HOPS_RECORDED;
	host_buffer next;
	if (!next.alloc(count * sizeof(uint32_t)))
		return kern_failf(err, err_len, "out of host memory");
	uint32_t *hnext = next.as<uint32_t>();
	kern_chase_cycle(hnext, count, cfg->seed);
	dev_buffer chain, dnext, out, cyc, sum;
	CK_ALLOC(out, 3 * sizeof(uint64_t));
	CK_ALLOC(cyc, LAT_HOPS_RECORDED * sizeof(uint32_t));
	CK_ALLOC(sum, sizeof(unsigned long long));
	CK_ALLOC(dnext, count * sizeof(uint32_t));
	if (smem)
		for (size_t i = 0; i < count; i++)
			hnext[i] *= 4; /* byte offsets */
	CK(gpu(MemcpyAsync)(dnext.ptr, hnext, count * sizeof(uint32_t), gpuMemcpyHostToDevice, ctx->stream));
	if (smem)
		for (size_t i = 0; i < count; i++)
			hnext[i] /= 4;
	struct lat_job job = {
		ctx, cfg->id, cfg->l1 != 0, NULL, dnext.as<uint32_t>(), hops, out.as<uint64_t>(), cyc.as<uint32_t>()
	};
	if (!smem) {
		CK_ALLOC(chain, bytes);
		aux_chain<<<kern_blocks_for(ctx, 256), 256, 0, ctx->stream>>>(
			chain.as<uint64_t>(), dnext.as<uint32_t>(), count, stride, cfg->seed);
		CK_LAUNCH("aux_chain");
	}
	char *base = chain.as<char>();
	uint64_t start = kern_chase_offset(cfg->seed, 0, stride); /* element 0 */
	job.start = (const uint64_t *)(base + start);

	/* Verify 1: every link of the chain (the shared-memory chase: the offsets
	 * it copies in). */
	CK(gpu(MemsetAsync)(sum.ptr, 0, sizeof(unsigned long long), ctx->stream));
	aux_chain_checksum<<<kern_blocks_for(ctx, 256), 256, 0, ctx->stream>>>(smem ? NULL : chain.as<uint64_t>(),
									       dnext.as<uint32_t>(), count, stride,
									       cfg->seed, sum.as<unsigned long long>());
	CK_LAUNCH("aux_chain_checksum");
	unsigned long long got_sum = 0;
	CK(gpu(MemcpyAsync)(&got_sum, sum.ptr, sizeof got_sum, gpuMemcpyDeviceToHost, ctx->stream));
	CK(gpu(StreamSynchronize)(ctx->stream));
	uint64_t want_sum = kern_chase_checksum(hnext, count, stride, cfg->seed);
	res->verify_tolerance = 0;
	res->verify_error = got_sum == want_sum ? 0 : 1;
	if (got_sum != want_sum)
		return kern_failf(err, err_len,
				  "%s: verification failed: the chain of %zu elements the device holds is not the "
				  "host's cycle (checksum %016llx, expected %016llx)",
				  kern_id_name(cfg->id), count, got_sum, (unsigned long long)want_sum);

	/* Verify 2: every run ends where the host's walk of the same cycle ends;
	 * the first makes a number of loads that is not a multiple of the
	 * cycle's length. The global chases go on from where the last run ended,
	 * the shared-memory one starts at element 0 each time. */
	size_t at = 0;
	uint64_t got[3];
	double cycles[KERN_MAX_REPEATS];
	for (int r = -1 - cfg->warmup; r < n; r++) {
		bool verify_run = r == -1 - cfg->warmup;
		job.hops = verify_run ? kern_chase_verify_hops(hops, count) : hops;
		if (!smem)
			job.start = (const uint64_t *)(base + kern_chase_offset(cfg->seed, at, stride));
		else
			at = 0;
		if (lat_launch(&job, got, err, err_len))
			return -1;
		at = kern_chase_walk(hnext, at, job.hops);
		uint64_t want = smem ? at * 4 : (uint64_t)(base + kern_chase_offset(cfg->seed, at, stride));
		if (got[0] != want) {
			res->verify_error = 1;
			return kern_failf(err, err_len,
					  "%s: verification failed: after %ld loads (%s) the chase did not end where "
					  "the host's walk of the same cycle of %zu elements does",
					  kern_id_name(cfg->id), job.hops,
					  verify_run ? "the verification run"
					  : r < 0    ? "a warm-up run"
						     : "a timed run",
					  count);
		}
		if (r < 0)
			continue;
		if (cfg->sample)
			cfg->sample(cfg->sample_user);
		res->seconds[r] = (double)got[1] / timer_hz / (double)hops;
		cycles[r] = (double)got[2] / (double)hops;
	}
	res->repeats = n;
	res->work = (double)hops;
	res->bytes = (double)bytes;
	if (cfg->id == KERN_LATENCY_HOPS) {
		/* The recorded per-load cycles of the last run as 64 quantiles, in
		 * seconds at the device's clock. */
		uint32_t lat[LAT_HOPS_RECORDED];
		CK(gpu(MemcpyAsync)(lat, cyc.ptr, sizeof lat, gpuMemcpyDeviceToHost, ctx->stream));
		CK(gpu(StreamSynchronize)(ctx->stream));
		std::sort(lat, lat + LAT_HOPS_RECORDED);
		int q = n < LAT_QUANTILES ? LAT_QUANTILES : n;
		if (q > KERN_MAX_REPEATS)
			q = KERN_MAX_REPEATS;
		for (int i = 0; i < q; i++)
			res->seconds[i] =
				lat[((size_t)i * 2 + 1) * LAT_HOPS_RECORDED / (2 * (size_t)q)] / ctx->info.clock_hz;
		res->repeats = q;
		res->work = LAT_HOPS_RECORDED;
		snprintf(res->method, sizeof res->method,
			 "pointer chase, 1 thread, %.2f MiB in L2 (" LAT_LOAD_L2_NAME
			 ", %zu-byte lines, random cycle): clock read around each of %d loads after a walk of the "
			 "chain; seconds are %d quantiles of those cycles at %.0f MHz (they include the clock read)",
			 bytes / 1048576.0, stride, LAT_HOPS_RECORDED, q, ctx->info.clock_hz / 1e6);
		return 0;
	}
	std::sort(cycles, cycles + n);
	double med = n % 2 ? cycles[n / 2] : 0.5 * (cycles[n / 2 - 1] + cycles[n / 2]);
	if (smem)
		snprintf(res->method, sizeof res->method,
			 "pointer chase, 1 thread, %d x 4-byte offsets in shared memory (random cycle), %ld loads per "
			 "run, " LAT_TIMER_NAME "; %.1f cycles per load by clock64",
			 LAT_SMEM_ELEMS, hops, med);
	else
		snprintf(res->method, sizeof res->method,
			 "pointer chase, 1 thread, %.4g MiB, one element per %zu bytes%s (random cycle), %s, %ld loads "
			 "per run, " LAT_TIMER_NAME "; %.1f cycles per load by clock64",
			 bytes / 1048576.0, stride, stride > KERN_CHASE_LINE ? " at a random line of each" : "",
			 cfg->l1 ? LAT_LOAD_L1_NAME : LAT_LOAD_L2_NAME, hops, med);
	return 0;
}

#endif
