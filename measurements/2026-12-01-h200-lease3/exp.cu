// Scratch experiment for issue 19, lease 3 (not part of the probe), H200:
//  1. race: a pageable cudaMemcpy H2D followed by a kernel on a non-blocking
//     stream (the latency chases' old upload), against MemcpyAsync on that
//     stream + sync: how often the kernel sees the old contents.
//  2. L2 read kernels side by side, 6-32 MiB, ~4 GB per launch, each checked
//     (exact sum of small whole numbers): median and best of 15.
//  3. near/far L2: each SM times a load of every line of a 24 MiB set (L2
//     resident), lines split by latency from SM 0's view, SMs grouped by
//     whether they agree with SM 0, then each group reads only the lines near
//     it (or only the far ones) through an index list.
// nvcc -O3 -arch=sm_90 exp.cu -o exp
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#define CK(x)                                                                                     \
	do {                                                                                      \
		cudaError_t e_ = (x);                                                             \
		if (e_) {                                                                         \
			printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
			exit(1);                                                                  \
		}                                                                                 \
	} while (0)

__device__ __forceinline__ unsigned smid()
{
	unsigned s;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
	return s;
}
__device__ __forceinline__ float4 ld_cg(const float4 *p)
{
	return __ldcg(p);
}
__device__ __forceinline__ float4 ld_na(const float4 *p)
{
	float4 v;
	asm volatile("ld.global.nc.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];"
		     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
		     : "l"(p));
	return v;
}
__device__ __forceinline__ float4 ld_pl(const float4 *p)
{
	return *p;
}
__device__ __forceinline__ float s4(float4 v)
{
	return (v.x + v.y) + (v.z + v.w);
}
__device__ __forceinline__ void block_add(float s, double *out)
{
	__shared__ float part[32];
	for (int o = 16; o; o >>= 1)
		s += __shfl_xor_sync(~0u, s, o);
	if ((threadIdx.x & 31) == 0)
		part[threadIdx.x >> 5] = s;
	__syncthreads();
	if (threadIdx.x == 0) {
		double t = 0;
		for (int w = 0; w < (int)(blockDim.x >> 5); w++)
			t += part[w];
		atomicAdd(out, t);
	}
}

// ---- 1. race
__global__ void wsum(const unsigned *a, size_t n, unsigned long long *out)
{
	unsigned long long s = 0;
	for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		s += (unsigned long long)a[i] * (2 * i + 1);
	atomicAdd(out, s);
}

// ---- 2. L2 kernels. Chunked: block b reads chunk b mod chunks (the probe's form).
template <int T, int PER, int MINB, int UNR, int LD>
__global__ void __launch_bounds__(T, MINB) l2_chunk(const float4 *a, int chunks, double *out)
{
	const float4 *p = a + (size_t)(blockIdx.x % chunks) * (T * PER) + threadIdx.x;
	float s0 = 0, s1 = 0;
#pragma unroll UNR
	for (int i = 0; i < PER; i += 2) {
		float4 v0, v1;
		if (LD == 0) {
			v0 = ld_cg(p + i * T);
			v1 = ld_cg(p + (i + 1) * T);
		} else if (LD == 1) {
			v0 = ld_na(p + i * T);
			v1 = ld_na(p + (i + 1) * T);
		} else {
			v0 = ld_pl(p + i * T);
			v1 = ld_pl(p + (i + 1) * T);
		}
		s0 += s4(v0);
		s1 += s4(v1);
	}
	block_add(s0 + s1, out);
}
// gpu-benches gpu-l2-cache's interleaved form, float4 (idx of load i: across all blocks' slots contiguous).
template <int T, int PER, int MINB, int LD>
__global__ void __launch_bounds__(T, MINB) l2_inter(const float4 *a, int chunks, double *out)
{
	float s = 0;
#pragma unroll
	for (int i = 0; i < PER; i++) {
		size_t idx = ((size_t)T * chunks * i + (size_t)(blockIdx.x % chunks) * T) + threadIdx.x;
		float4 v = LD == 0 ? ld_cg(a + idx) : LD == 1 ? ld_na(a + idx) : ld_pl(a + idx);
		s += s4(v);
	}
	block_add(s, out);
}
// gpu-benches' own kernel (doubles, N = 64, 1024 threads), with a checked sum.
__global__ void l2_rrze(const double *B, int blockRun, double *out)
{
	double s = 0;
	for (int i = 0; i < 32; i++) {
		int idx = (blockDim.x * blockRun * i + (blockIdx.x % blockRun) * 1024) * 2 + threadIdx.x;
		s += B[idx] + B[idx + 1024];
	}
	block_add((float)s, out);
}
// Persistent: one wave, block b re-reads its own slice reps times.
template <int T, int MINB>
__global__ void __launch_bounds__(T, MINB) l2_persist(const float4 *a, size_t per_block, int reps, double *out)
{
	const float4 *p = a + blockIdx.x * per_block;
	float s0 = 0, s1 = 0;
	for (int r = 0; r < reps; r++) {
#pragma unroll 4
		for (size_t i = threadIdx.x; i + T < per_block; i += 2 * T) {
			s0 += s4(ld_cg(p + i));
			s1 += s4(ld_cg(p + i + T));
		}
	}
	block_add(s0 + s1, out);
}

// ---- 3. near/far
__global__ void lat_lines(const float4 *a, int lines, unsigned short *lat, unsigned *sm)
{
	__shared__ volatile float sink;
	unsigned short *row = lat + (size_t)blockIdx.x * lines;
	const float4 *p = a;
	// Each SM starts at its own line, so no two ask one line at once (the
	// first version walked in step: 132 requests per line, 512-cycle "latencies").
	int l0 = (int)((long long)blockIdx.x * lines / gridDim.x);
	for (int j = 0; j < lines; j++)
		sink = __ldcg(p + (size_t)((l0 + j) % lines) * 8).x; // warm
	for (int j = 0; j < lines; j++) {
		int l = (l0 + j) % lines;
		unsigned c0 = (unsigned)clock();
		float v = __ldcg(p + (size_t)l * 8).x;
		sink = v;
		unsigned c1 = (unsigned)clock();
		row[l] = (unsigned short)min(c1 - c0, 65535u);
	}
	if (threadIdx.x == 0)
		sm[blockIdx.x] = smid();
}
// Each warp reads 4 whole lines per step from its group's list; group of an SM from smgroup[smid].
__global__ void __launch_bounds__(1024, 2)
	l2_list(const float4 *a, const unsigned *list0, const unsigned *list1, int chunk_lines, int chunks,
		const unsigned char *smgroup, int far, double *out)
{
	__shared__ int g;
	if (threadIdx.x == 0)
		g = smgroup[smid()] ^ far;
	__syncthreads();
	const unsigned *list = (g ? list1 : list0) + (size_t)(blockIdx.x % chunks) * chunk_lines;
	int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
	float s0 = 0;
#pragma unroll 8
	for (int k = 0; k < chunk_lines / 128; k++) {
		unsigned line = __ldg(list + k * 128 + warp * 4 + (lane >> 3));
		s0 += s4(ld_cg(a + (size_t)line * 8 + (lane & 7)));
	}
	block_add(s0, out);
}

template <typename F> void timeit(F f, double bytes, double *med, double *best, int reps = 15)
{
	cudaEvent_t e0, e1;
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	std::vector<float> t(reps);
	f();
	f();
	CK(cudaDeviceSynchronize());
	for (int r = 0; r < reps; r++) {
		CK(cudaEventRecord(e0));
		f();
		CK(cudaEventRecord(e1));
		CK(cudaEventSynchronize(e1));
		CK(cudaEventElapsedTime(&t[r], e0, e1));
	}
	std::sort(t.begin(), t.end());
	*med = bytes / (t[reps / 2] * 1e-3) / 1e12;
	*best = bytes / (t[0] * 1e-3) / 1e12;
	CK(cudaEventDestroy(e0));
	CK(cudaEventDestroy(e1));
}

int main()
{
	cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, 0));
	int sms = prop.multiProcessorCount;
	printf("%s, %d SMs, L2 %d B\n", prop.name, sms, prop.l2CacheSize);
	cudaStream_t st;
	CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	// 1. race
	{
		const size_t n = 32768;
		std::vector<unsigned> h(n);
		unsigned long long *dsum;
		CK(cudaMalloc(&dsum, 8));
		const char *modes[] = {
			"cudaMemcpy (pageable) then kernel on a non-blocking stream",
			"the probe's old order: fresh malloc'd host buffer, cudaMalloc, cudaMemcpy, cudaMalloc 4 MiB, kernel",
			"MemcpyAsync on the stream + sync (the fix)"
		};
		for (int mode = 0; mode < 3; mode++) {
			int bad = 0, trials = mode == 1 ? 1000 : 400;
			for (int t = 0; t < trials; t++) {
				unsigned *hp = mode == 1 ? (unsigned *)malloc(n * 4) : h.data();
				for (size_t i = 0; i < n; i++)
					hp[i] = (unsigned)(i * 2654435761u + t * 40503u + mode * 7 + 1);
				unsigned long long want = 0;
				for (size_t i = 0; i < n; i++)
					want += (unsigned long long)hp[i] * (2 * i + 1);
				unsigned *d;
				void *other = nullptr;
				CK(cudaMalloc(&d, n * 4));
				if (mode < 2)
					CK(cudaMemcpy(d, hp, n * 4, cudaMemcpyHostToDevice));
				else {
					CK(cudaMemcpyAsync(d, hp, n * 4, cudaMemcpyHostToDevice, st));
					CK(cudaStreamSynchronize(st));
				}
				if (mode == 1)
					CK(cudaMalloc(&other, 4 << 20));
				CK(cudaMemsetAsync(dsum, 0, 8, st));
				wsum<<<sms, 256, 0, st>>>(d, n, dsum);
				unsigned long long got;
				CK(cudaMemcpyAsync(&got, dsum, 8, cudaMemcpyDeviceToHost, st));
				CK(cudaStreamSynchronize(st));
				bad += got != want;
				CK(cudaFree(d));
				if (other)
					CK(cudaFree(other));
				if (mode == 1)
					free(hp);
			}
			printf("race: %s: %d of %d kernels saw a buffer other than the one copied\n", modes[mode], bad,
			       trials);
		}
		CK(cudaFree(dsum));
	}
	// 2. L2 kernels
	size_t big = 64ull << 20;
	float4 *a;
	double *out;
	CK(cudaMalloc(&a, big));
	CK(cudaMalloc(&out, 8));
	{
		std::vector<float> h(big / 4);
		for (size_t i = 0; i < h.size(); i++)
			h[i] = (float)(1 + (i * 7919 % 8));
		CK(cudaMemcpy(a, h.data(), big, cudaMemcpyHostToDevice));
		CK(cudaDeviceSynchronize());
		std::vector<double> pre(h.size() + 1, 0);
		for (size_t i = 0; i < h.size(); i++)
			pre[i + 1] = pre[i] + h[i];
		const char *names[] = { "old(cg,1024x2,u4)", "cg,512x4,u8 (probe)", "na,512x4,u8",    "cg,256x8,u8",
					"cg,512x4,u16",      "plain,512x4,u8",      "rrze(dbl,plain)" };
		const int NV = 7;
		printf("L2 (TB/s: median / best of 15; ~4 GB per launch; bad = failed sum check)\n%6s", "MiB");
		for (int v = 0; v < NV; v++)
			printf(" %22s", names[v]);
		printf("\n");
		for (double mib : { 6.0, 8.0, 12.0, 16.0, 20.0, 24.0, 32.0 }) {
			printf("%6.0f", mib);
			for (int v = 0; v < NV; v++) {
				size_t chunk = v == 0 || v == 6 ? 1024 * 32 * 16
					       : v == 3         ? 256 * 32 * 16
								: 512 * 32 * 16;
				int ch = (int)(mib * 1048576 / chunk);
				size_t reads = (size_t)(4e9 / ((double)ch * chunk)) + 1;
				int blocks = (int)(reads * ch);
				double bytes = (double)blocks * chunk,
				       want = (double)reads * pre[(size_t)ch * chunk / 4];
				auto launch = [&] {
					switch (v) {
					case 0:
						l2_chunk<1024, 32, 2, 4, 0><<<blocks, 1024>>>(a, ch, out);
						break;
					case 1:
						l2_chunk<512, 32, 4, 8, 0><<<blocks, 512>>>(a, ch, out);
						break;
					case 2:
						l2_chunk<512, 32, 4, 8, 1><<<blocks, 512>>>(a, ch, out);
						break;
					case 3:
						l2_chunk<256, 32, 8, 8, 0><<<blocks, 256>>>(a, ch, out);
						break;
					case 4:
						l2_chunk<512, 32, 4, 16, 0><<<blocks, 512>>>(a, ch, out);
						break;
					case 5:
						l2_chunk<512, 32, 4, 8, 2><<<blocks, 512>>>(a, ch, out);
						break;
					case 6:
						l2_rrze<<<blocks, 1024>>>((const double *)a, ch, out);
						break;
					}
				};
				CK(cudaMemset(out, 0, 8));
				launch();
				double got;
				CK(cudaMemcpy(&got, out, 8, cudaMemcpyDeviceToHost));
				bool ok = v == 6 || got == want;
				double med, best;
				timeit(launch, bytes, &med, &best);
				char cell[64];
				snprintf(cell, sizeof cell, "%.3f / %.3f%s", med, best, ok ? "" : " bad");
				printf(" %22s", cell);
			}
			printf("\n");
			fflush(stdout);
		}
		CK(cudaGetLastError());
	}
	// 3. near/far
	{
		const int lines = 24 * 1048576 / 128;
		int blocks = sms;
		unsigned short *dlat;
		unsigned *dsm;
		CK(cudaMalloc(&dlat, (size_t)blocks * lines * 2));
		CK(cudaMalloc(&dsm, blocks * 4));
		lat_lines<<<blocks, 1>>>(a, lines, dlat, dsm);
		CK(cudaGetLastError());
		CK(cudaDeviceSynchronize());
		std::vector<unsigned short> lat((size_t)blocks * lines);
		std::vector<unsigned> sm(blocks);
		CK(cudaMemcpy(lat.data(), dlat, lat.size() * 2, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(sm.data(), dsm, blocks * 4, cudaMemcpyDeviceToHost));
		// Threshold from block 0: 2-means on its latencies.
		std::vector<unsigned short> r0(lat.begin(), lat.begin() + lines);
		std::vector<unsigned short> srt = r0;
		std::sort(srt.begin(), srt.end());
		double lo = srt[lines / 10], hi = srt[lines * 9 / 10], th = 0;
		for (int it = 0; it < 50; it++) {
			th = (lo + hi) / 2;
			double s0 = 0, s1 = 0;
			long n0 = 0, n1 = 0;
			for (int l = 0; l < lines; l++)
				if (r0[l] < th) {
					s0 += r0[l];
					n0++;
				} else {
					s1 += r0[l];
					n1++;
				}
			lo = s0 / std::max(n0, 1L);
			hi = s1 / std::max(n1, 1L);
		}
		std::vector<char> near0(lines);
		long nn = 0;
		for (int l = 0; l < lines; l++) {
			near0[l] = r0[l] < th;
			nn += near0[l];
		}
		printf("near/far: SM %u sees %ld of %d lines near (mean %.1f cycles) and the rest far (mean %.1f); threshold %.1f; p10/p50/p90 %d/%d/%d\n",
		       sm[0], nn, lines, lo, hi, th, srt[lines / 10], srt[lines / 2], srt[lines * 9 / 10]);
		std::vector<unsigned char> group(1024, 0);
		int nA = 0, nB = 0, unclear = 0;
		printf("per SM (smid:agreement with SM %u's near/far split):", sm[0]);
		for (int b = 0; b < blocks; b++) {
			long agree = 0;
			double lo_b = 0;
			long nlo = 0;
			for (int l = 0; l < lines; l++) {
				bool n = lat[(size_t)b * lines + l] < th;
				agree += n == (bool)near0[l];
				if (n) {
					lo_b += lat[(size_t)b * lines + l];
					nlo++;
				}
			}
			double f = (double)agree / lines;
			if (f > 0.9) {
				group[sm[b]] = 0;
				nA++;
			} else if (f < 0.1) {
				group[sm[b]] = 1;
				nB++;
			} else
				unclear++;
			printf(" %u:%.2f", sm[b], f);
		}
		printf("\nnear/far: %d SMs agree with SM %u (group 0), %d see the opposite split (group 1), %d neither\n",
		       nA, sm[0], nB, unclear);
		unsigned char *dg;
		CK(cudaMalloc(&dg, 1024));
		CK(cudaMemcpy(dg, group.data(), 1024, cudaMemcpyHostToDevice));
		printf("near/far bandwidth through line lists (index loads not counted), TB/s median / best of 15:\n");
		printf("%6s %8s %18s %18s %18s\n", "MiB", "lines", "near (own half)", "far (other half)",
		       "all lines, all SMs");
		for (int mib : { 8, 16, 24 }) {
			int nl = mib * 8192;
			std::vector<unsigned> l0, l1, all;
			for (int l = 0; l < nl; l++) {
				(near0[l] ? l0 : l1).push_back(l);
				all.push_back(l);
			}
			int chunk_lines = 4096;
			int chunks = (int)(std::min(l0.size(), l1.size()) / chunk_lines);
			int chunks_all = nl / chunk_lines;
			unsigned *d0, *d1, *da;
			CK(cudaMalloc(&d0, l0.size() * 4 + 4));
			CK(cudaMalloc(&d1, l1.size() * 4 + 4));
			CK(cudaMalloc(&da, all.size() * 4));
			CK(cudaMemcpy(d0, l0.data(), l0.size() * 4, cudaMemcpyHostToDevice));
			CK(cudaMemcpy(d1, l1.data(), l1.size() * 4, cudaMemcpyHostToDevice));
			CK(cudaMemcpy(da, all.data(), all.size() * 4, cudaMemcpyHostToDevice));
			printf("%6d %8d", mib, nl);
			for (int m = 0; m < 3; m++) {
				int ch = m < 2 ? chunks : chunks_all;
				if (ch < 1) {
					printf(" %18s", "-");
					continue;
				}
				int blocks2 = (int)((size_t)(4e9 / (chunk_lines * 128.0 * ch)) + 1) * ch;
				double bytes = (double)blocks2 * chunk_lines * 128;
				auto launch = [&] {
					if (m < 2)
						l2_list<<<blocks2, 1024>>>(a, d0, d1, chunk_lines, ch, dg, m, out);
					else
						l2_list<<<blocks2, 1024>>>(a, da, da, chunk_lines, ch, dg, 0, out);
				};
				double med, best;
				timeit(launch, bytes, &med, &best);
				char cell[48];
				snprintf(cell, sizeof cell, "%.3f / %.3f", med, best);
				printf(" %18s", cell);
			}
			printf("   (%zu near / %zu far lines; groups read %d chunks of %d lines each)\n", l0.size(),
			       l1.size(), chunks, chunk_lines);
			CK(cudaFree(d0));
			CK(cudaFree(d1));
			CK(cudaFree(da));
		}
		CK(cudaGetLastError());
	}
	printf("done\n");
	return 0;
}
