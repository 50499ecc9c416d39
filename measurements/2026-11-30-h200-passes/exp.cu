// Scratch experiment (not committed): which array size / grid / unroll gives the
// most stable HBM read bandwidth, and which launch batch gives the steadiest
// host launch cost. Results feed kernels/common/stream.h defaults.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <algorithm>
#include <time.h>
#include <sched.h>
#define CK(x)                                                                        \
	do {                                                                         \
		cudaError_t e_ = (x);                                                \
		if (e_ != cudaSuccess) {                                             \
			printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); \
			exit(1);                                                     \
		}                                                                    \
	} while (0)
__device__ __forceinline__ float sum4(float4 v)
{
	return (v.x + v.y) + (v.z + v.w);
}
template <int U> __global__ void rd(const float4 *__restrict__ a, size_t n, float *out)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	float s[U];
#pragma unroll
	for (int k = 0; k < U; k++)
		s[k] = 0;
	for (; i + (U - 1) * stride < n; i += U * stride) {
		float4 v[U];
#pragma unroll
		for (int k = 0; k < U; k++)
			v[k] = a[i + k * stride];
#pragma unroll
		for (int k = 0; k < U; k++)
			s[k] += sum4(v[k]);
	}
	for (; i < n; i += stride)
		s[0] += sum4(a[i]);
	float t = 0;
#pragma unroll
	for (int k = 0; k < U; k++)
		t += s[k];
	if (t == 123.456f)
		out[0] = t; // keep the loads
}
// contiguous chunk per block variant: each block reads a contiguous slab
template <int U> __global__ void rd_chunk(const float4 *__restrict__ a, size_t n, float *out)
{
	size_t per = (n + gridDim.x - 1) / gridDim.x;
	size_t beg = blockIdx.x * per, end = min(n, beg + per);
	float s[U];
#pragma unroll
	for (int k = 0; k < U; k++)
		s[k] = 0;
	size_t i = beg + threadIdx.x;
	for (; i + (U - 1) * blockDim.x < end; i += U * blockDim.x) {
		float4 v[U];
#pragma unroll
		for (int k = 0; k < U; k++)
			v[k] = a[i + k * blockDim.x];
#pragma unroll
		for (int k = 0; k < U; k++)
			s[k] += sum4(v[k]);
	}
	for (; i < end; i += blockDim.x)
		s[0] += sum4(a[i]);
	float t = 0;
#pragma unroll
	for (int k = 0; k < U; k++)
		t += s[k];
	if (t == 123.456f)
		out[0] = t;
}
__global__ void fill(float4 *a, size_t n)
{
	size_t s = (size_t)gridDim.x * blockDim.x;
	for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += s)
		a[i] = make_float4(1e-3f * (i & 1023), 1, 2, 3);
}
__global__ void empty()
{
}
static double now()
{
	timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}
struct St {
	double med, cv, best;
};
static St stats(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	double m = 0;
	for (double x : v)
		m += x;
	m /= v.size();
	double sd = 0;
	for (double x : v)
		sd += (x - m) * (x - m);
	sd = sqrt(sd / (v.size() - 1));
	return { v[v.size() / 2], sd / m, v[0] };
}
template <typename K>
static void bench(const char *name, K k, float4 **bufs, int nbuf, size_t bytes, int blocks, float *out)
{
	size_t n = bytes / 16;
	cudaEvent_t e0, e1;
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	std::vector<double> t;
	for (int r = -3; r < 20; r++) {
		CK(cudaEventRecord(e0));
		k<<<blocks, 256>>>(bufs[(r + 8) % nbuf], n, out);
		CK(cudaEventRecord(e1));
		CK(cudaEventSynchronize(e1));
		float ms;
		CK(cudaEventElapsedTime(&ms, e0, e1));
		if (r >= 0)
			t.push_back(bytes / (ms * 1e-3) / 1e12);
	}
	St s = stats(t);
	printf("%-16s %6zu MiB grid %5d  med %.3f TB/s  best %.3f  cv %.1f%%\n", name, bytes >> 20, blocks, s.med,
	       t.back() > 0 ? *std::max_element(t.begin(), t.end()) : 0, 100 * s.cv);
}
int main()
{
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, 0));
	printf("%s  SMs %d  L2 %d MiB  mem %.1f GiB\n", p.name, p.multiProcessorCount, p.l2CacheSize >> 20,
	       p.totalGlobalMem / 1073741824.0);
	const int nbuf = 3;
	size_t maxb = 4ull << 30;
	float4 *bufs[nbuf];
	float *out;
	for (int b = 0; b < nbuf; b++) {
		CK(cudaMalloc(&bufs[b], maxb));
		fill<<<1024, 256>>>(bufs[b], maxb / 16);
	}
	CK(cudaMalloc(&out, 64));
	CK(cudaDeviceSynchronize());
	int per4 = 0, per8 = 0;
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per4, rd<4>, 256, 0));
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per8, rd<8>, 256, 0));
	int wave = per4 * p.multiProcessorCount;
	printf("full wave %d blocks (per SM %d; U8 %d)\n", wave, per4, per8);
	size_t sizes[] = { 480ull << 20, 1ull << 30, 2ull << 30, 4ull << 30 };
	if (getenv("EXP_BW"))
		for (size_t b : sizes) {
			bench("rd4 wave", rd<4>, bufs, nbuf, b, wave, out);
			bench("rd8 wave", rd<8>, bufs, nbuf, b, per8 * p.multiProcessorCount, out);
			bench("rd4 2wave", rd<4>, bufs, nbuf, b, 2 * wave, out);
			bench("rd4 8wave", rd<4>, bufs, nbuf, b, 8 * wave, out);
			bench("chunk4 wave", rd_chunk<4>, bufs, nbuf, b, wave, out);
			bench("chunk8 4wave", rd_chunk<8>, bufs, nbuf, b, 4 * wave, out);
		}
	// second pass over the best candidates: repeatability
	if (getenv("EXP_BW"))
		for (int rep = 0; rep < 2; rep++) {
			bench("rd4 wave", rd<4>, bufs, nbuf, 480ull << 20, wave, out);
			bench("rd4 wave", rd<4>, bufs, nbuf, 2ull << 30, wave, out);
			bench("rd8 wave", rd<8>, bufs, nbuf, 2ull << 30, per8 * p.multiProcessorCount, out);
		}
	// launch: pinned vs not, one batch vs median of sub-batches
	for (int trial = 0; trial < 3; trial++)
		for (int mode = 0; mode < 4; mode++) {
			cpu_set_t old;
			sched_getaffinity(0, sizeof old, &old);
			if (mode & 1) {
				cpu_set_t one;
				CPU_ZERO(&one);
				CPU_SET(sched_getcpu(), &one);
				sched_setaffinity(0, sizeof one, &one);
			}
			int sub = (mode & 2) ? 8 : 1, B = (mode & 2) ? 500 : 4000;
			std::vector<double> t;
			for (int r = -3; r < 15; r++) {
				std::vector<double> per;
				for (int k = 0; k < sub; k++) {
					double t0 = now();
					for (int i = 0; i < B; i++)
						empty<<<1, 32>>>();
					double t1 = now();
					CK(cudaDeviceSynchronize());
					per.push_back((t1 - t0) / B * 1e6);
				}
				std::sort(per.begin(), per.end());
				if (r >= 0)
					t.push_back(per[per.size() / 2]);
			}
			sched_setaffinity(0, sizeof old, &old);
			St s = stats(t);
			std::vector<double> lo(t);
			std::sort(lo.begin(), lo.end());
			printf("launch %s %s: med %.3f us cv %.1f%% min %.3f max %.3f | ",
			       (mode & 1) ? "pinned  " : "unpinned", (mode & 2) ? "8x500 " : "1x4000", s.med,
			       100 * s.cv, lo.front(), lo.back());
			for (double x : t)
				printf("%.2f ", x);
			printf("\n");
		}
	return 0;
}
