/* Latency by pointer chase (the method of RRZE gpu-benches' gpu-latency, own
 * code): one thread follows a chain of dependent loads through a working set
 * in a random cyclic order, so every load waits for the one before it and no
 * prefetcher can guess the next line.
 *
 *   KERN_LATENCY       global memory: cfg->bytes working set, one element per
 *                      cfg->stride bytes (128 B lines by default; at strides of
 *                      a page or more each element sits at a random line of its
 *                      page, so the L2 sets stay spread), cfg->l1 = 1 for
 *                      L1-cached loads (ld.global.ca), 0 for ld.global.cg (L2).
 *   KERN_LATENCY_SMEM  the same chase through 4 KiB of shared memory.
 *   KERN_LATENCY_HOPS  one chase over a working set in L2 with the clock read
 *                      around each load: 4096 per-load latencies, returned as
 *                      64 quantiles (seconds at the device clock), from which
 *                      the report separates the near and the far L2 partition.
 *
 * Time per load: %globaltimer around the whole chase (ns), so the launch does
 * not count; the kernel's clock64 cycles go into the method text. Verified:
 * the address the chase ends on is the one the host's walk of the same
 * permutation ends on. */
#include <algorithm>

#include "../common/gpu.h"
#include "../rand.h"

#define LAT_LINE 128
#define LAT_SMEM_ELEMS 1024
#define LAT_HOPS_RECORDED 4096
#define LAT_QUANTILES 64

__device__ __forceinline__ uint64_t lat_now_ns(void)
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

/* hops dependent steps x = step(x), timed: out[0] the last x, out[1] ns, out[2] cycles. */
template <typename T, typename F> __device__ __forceinline__ void lat_timed(T x, long hops, uint64_t *out, F step)
{
	uint64_t t0 = lat_now_ns();
	long long c0 = clock64();
#pragma unroll 1
	for (long i = 0; i < hops; i += 16) {
#pragma unroll
		for (int u = 0; u < 16; u++)
			x = step(x);
	}
	long long c1 = clock64();
	uint64_t t1 = lat_now_ns();
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
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += step) {
		size_t lines = stride / LAT_LINE;
		size_t at = i * stride + (lines > 1 ? (kern_hash(seed, i) % lines) * LAT_LINE : 0);
		size_t n = next[i];
		size_t to = n * stride + (lines > 1 ? (kern_hash(seed, n) % lines) * LAT_LINE : 0);
		base[at / 8] = (uint64_t)((char *)base + to);
	}
}

/* A random single cycle over count elements (Sattolo's algorithm). */
static void lat_cycle(uint32_t *next, size_t count, uint64_t seed)
{
	for (size_t i = 0; i < count; i++)
		next[i] = (uint32_t)i;
	for (size_t i = count - 1; i > 0; i--) {
		uint64_t r = ((uint64_t)kern_hash(seed, 2 * i) << 32) | kern_hash(seed, 2 * i + 1);
		size_t j = (size_t)(r % i);
		uint32_t t = next[i];
		next[i] = next[j];
		next[j] = t;
	}
}

static size_t lat_walk(const uint32_t *next, long hops)
{
	size_t at = 0;
	for (long i = 0; i < hops; i++)
		at = next[at];
	return at;
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

static int lat_launch(const struct lat_job *j, char *err, size_t err_len)
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
	CK(cudaStreamSynchronize(s));
	return 0;
}

extern "C" int rp_latency_run(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
			      size_t err_len)
{
	int n = cfg->repeats;
	if (n < 1 || n > KERN_MAX_REPEATS)
		return kern_failf(err, err_len, "repeats %d is out of range (1..%d)", n, KERN_MAX_REPEATS);
	bool smem = cfg->id == KERN_LATENCY_SMEM;
	size_t stride = smem ? 4 : cfg->stride >= 8 ? (size_t)cfg->stride : LAT_LINE;
	if (!smem && stride % 8)
		return kern_failf(err, err_len, "%s: stride %zu is not a multiple of 8 bytes", kern_id_name(cfg->id),
				  stride);
	if (!smem && stride > LAT_LINE && stride % LAT_LINE)
		return kern_failf(err, err_len, "%s: stride %zu is not a multiple of %d", kern_id_name(cfg->id), stride,
				  LAT_LINE);
	size_t bytes = smem ? LAT_SMEM_ELEMS * 4 : (size_t)cfg->bytes;
	size_t count = bytes / stride;
	if (count < 16 || count > 0xFFFFFFFFu)
		return kern_failf(err, err_len, "%s: %zu elements of %zu bytes: out of range", kern_id_name(cfg->id),
				  count, stride);
	/* At least one walk over the whole chain, at least 2^14 loads, at most 2^16
	 * per run (the hops variant: the recorded ones after a walk of the chain). */
	long hops = (long)std::min<size_t>(std::max<size_t>(count, 16384), 65536) / 16 * 16;
	if (cfg->id == KERN_LATENCY_HOPS)
		hops = (long)count + LAT_HOPS_RECORDED;
	host_buffer next;
	if (!next.alloc(count * sizeof(uint32_t)))
		return kern_failf(err, err_len, "out of host memory");
	lat_cycle(next.as<uint32_t>(), count, cfg->seed);
	dev_buffer chain, dnext, out, cyc;
	CK_ALLOC(out, 3 * sizeof(uint64_t));
	CK_ALLOC(cyc, LAT_HOPS_RECORDED * sizeof(uint32_t));
	CK_ALLOC(dnext, count * sizeof(uint32_t));
	if (smem)
		for (size_t i = 0; i < count; i++)
			next.as<uint32_t>()[i] *= 4; /* byte offsets */
	CK(cudaMemcpy(dnext.ptr, next.ptr, count * sizeof(uint32_t), cudaMemcpyHostToDevice));
	struct lat_job job = {ctx, cfg->id, cfg->l1 != 0, NULL, dnext.as<uint32_t>(), hops, out.as<uint64_t>(),
			      cyc.as<uint32_t>()};
	if (!smem) {
		CK_ALLOC(chain, bytes);
		aux_chain<<<kern_blocks_for(ctx, 256), 256, 0, ctx->stream>>>(chain.as<uint64_t>(), dnext.as<uint32_t>(),
									     count, stride, cfg->seed);
		CK_LAUNCH("aux_chain");
		size_t lines = stride / LAT_LINE;
		job.start = chain.as<uint64_t>() + (lines > 1 ? (kern_hash(cfg->seed, 0) % lines) * LAT_LINE / 8 : 0);
	}
	/* Verify: where the chase ends. */
	if (lat_launch(&job, err, err_len))
		return -1;
	uint64_t got[3];
	CK(cudaMemcpy(got, out.ptr, sizeof got, cudaMemcpyDeviceToHost));
	if (smem)
		for (size_t i = 0; i < count; i++)
			next.as<uint32_t>()[i] /= 4;
	size_t end = lat_walk(next.as<uint32_t>(), hops);
	uint64_t want;
	if (smem) {
		want = end * 4;
	} else {
		size_t lines = stride / LAT_LINE;
		want = (uint64_t)(chain.as<char>() + end * stride +
				  (lines > 1 ? (kern_hash(cfg->seed, end) % lines) * LAT_LINE : 0));
	}
	res->verify_error = got[0] == want ? 0 : 1;
	res->verify_tolerance = 0;
	if (got[0] != want)
		return kern_failf(err, err_len,
				  "%s: verification failed: after %ld loads the chase did not end where the host's walk "
				  "of the same cycle of %zu elements does",
				  kern_id_name(cfg->id), hops, count);
	for (int w = 0; w < cfg->warmup; w++) {
		if (!smem) {
			CK(cudaMemcpy(got, out.ptr, sizeof got, cudaMemcpyDeviceToHost));
			job.start = (const uint64_t *)got[0];
		}
		if (lat_launch(&job, err, err_len))
			return -1;
	}
	/* Each run goes on from where the last one ended: over a set larger than
	 * the loads of one run, every load is a first touch, as far as the set
	 * allows (a first version restarted each run at the same element, and the
	 * 2^16 lines it visited stayed in L2: "HBM" read 286 cycles). */
	double cycles[KERN_MAX_REPEATS];
	for (int r = 0; r < n; r++) {
		if (!smem) {
			CK(cudaMemcpy(got, out.ptr, sizeof got, cudaMemcpyDeviceToHost));
			job.start = (const uint64_t *)got[0];
		}
		if (lat_launch(&job, err, err_len))
			return -1;
		if (cfg->sample)
			cfg->sample(cfg->sample_user);
		CK(cudaMemcpy(got, out.ptr, sizeof got, cudaMemcpyDeviceToHost));
		res->seconds[r] = (double)got[1] * 1e-9 / hops;
		cycles[r] = (double)got[2] / hops;
	}
	res->repeats = n;
	res->work = (double)hops;
	res->bytes = (double)bytes;
	if (cfg->id == KERN_LATENCY_HOPS) {
		/* The recorded per-load cycles of the last run as 64 quantiles, in
		 * seconds at the device's clock. */
		uint32_t lat[LAT_HOPS_RECORDED];
		CK(cudaMemcpy(lat, cyc.ptr, sizeof lat, cudaMemcpyDeviceToHost));
		std::sort(lat, lat + LAT_HOPS_RECORDED);
		int q = n < LAT_QUANTILES ? LAT_QUANTILES : n;
		if (q > KERN_MAX_REPEATS)
			q = KERN_MAX_REPEATS;
		for (int i = 0; i < q; i++)
			res->seconds[i] = lat[((size_t)i * 2 + 1) * LAT_HOPS_RECORDED / (2 * (size_t)q)] / ctx->info.clock_hz;
		res->repeats = q;
		res->work = LAT_HOPS_RECORDED;
		snprintf(res->method, sizeof res->method,
			 "pointer chase, 1 thread, %.2f MiB in L2 (ld.global.cg, %zu-byte lines, random cycle): clock "
			 "read around each of %d loads after a walk of the chain; seconds are %d quantiles of those "
			 "cycles at %.0f MHz (they include the clock read)",
			 bytes / 1048576.0, stride, LAT_HOPS_RECORDED, q, ctx->info.clock_hz / 1e6);
		return 0;
	}
	std::sort(cycles, cycles + n);
	double med = n % 2 ? cycles[n / 2] : 0.5 * (cycles[n / 2 - 1] + cycles[n / 2]);
	if (smem)
		snprintf(res->method, sizeof res->method,
			 "pointer chase, 1 thread, %d x 4-byte offsets in shared memory (random cycle), %ld loads per "
			 "run, %%globaltimer; %.1f cycles per load by clock64",
			 LAT_SMEM_ELEMS, hops, med);
	else
		snprintf(res->method, sizeof res->method,
			 "pointer chase, 1 thread, %.4g MiB, one element per %zu bytes%s (random cycle), %s, %ld loads "
			 "per run, %%globaltimer; %.1f cycles per load by clock64",
			 bytes / 1048576.0, stride, stride > LAT_LINE ? " at a random line of each" : "",
			 cfg->l1 ? "ld.global.ca (L1)" : "ld.global.cg (L2)", hops, med);
	return 0;
}
