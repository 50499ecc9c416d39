/* What the CUDA and HIP backends share: a two-way name layer (gpu(Malloc) is
 * cudaMalloc or hipMalloc), the checked-call macro, the context, and RAII
 * holders so an early error return frees what was allocated. Included only by
 * the .cu files of kernels/cuda and the .hip files of kernels/hip. */
#ifndef RIDGE_KERN_GPU_H
#define RIDGE_KERN_GPU_H

#include <new>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#define gpu(name) hip##name
typedef hipError_t gpuError_t;
typedef hipStream_t gpuStream_t;
typedef hipEvent_t gpuEvent_t;
typedef hipGraph_t gpuGraph_t;
typedef hipGraphExec_t gpuGraphExec_t;
typedef hipFuncAttributes gpuFuncAttributes;
#define gpuSuccess hipSuccess
#define gpuErrorNotReady hipErrorNotReady
#define gpuStreamNonBlocking hipStreamNonBlocking
#define gpuStreamCaptureModeGlobal hipStreamCaptureModeGlobal
#define gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define gpuMemcpyHostToDevice hipMemcpyHostToDevice
#define gpuFuncAttributeMaxDynamicSharedMemorySize hipFuncAttributeMaxDynamicSharedMemorySize
#define gpuFuncAttributePreferredSharedMemoryCarveout hipFuncAttributePreferredSharedMemoryCarveout
#define KERN_BACKEND_NAME "hip"
#else
#include <cuda_runtime.h>
#define gpu(name) cuda##name
typedef cudaError_t gpuError_t;
typedef cudaStream_t gpuStream_t;
typedef cudaEvent_t gpuEvent_t;
typedef cudaGraph_t gpuGraph_t;
typedef cudaGraphExec_t gpuGraphExec_t;
typedef cudaFuncAttributes gpuFuncAttributes;
#define gpuSuccess cudaSuccess
#define gpuErrorNotReady cudaErrorNotReady
#define gpuStreamNonBlocking cudaStreamNonBlocking
#define gpuStreamCaptureModeGlobal cudaStreamCaptureModeGlobal
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuMemcpyHostToDevice cudaMemcpyHostToDevice
#define gpuFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize
#define gpuFuncAttributePreferredSharedMemoryCarveout cudaFuncAttributePreferredSharedMemoryCarveout
#define KERN_BACKEND_NAME "cuda"
#endif

#include "../kernels.h"

/* Formats "file:line: expression: message" into err; returns -1. */
static inline int kern_fail(char *err, size_t err_len, const char *file, int line, const char *expr, const char *msg)
{
	const char *base = strrchr(file, '/');
	snprintf(err, err_len, "%s:%d: %s: %s", base ? base + 1 : file, line, expr, msg);
	return -1;
}

static inline int kern_failf(char *err, size_t err_len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, err_len, fmt, ap);
	va_end(ap);
	return -1;
}

/* Every runtime call goes through CK: on failure the function returns -1 with
 * file:line, the expression and the runtime's message in err (never exits).
 * The enclosing function must have `char *err, size_t err_len` in scope. */
#define CK(expr)                                                                                                    \
	do {                                                                                                        \
		gpuError_t ck_status_ = (expr);                                                                     \
		if (ck_status_ != gpuSuccess)                                                                       \
			return kern_fail(err, err_len, __FILE__, __LINE__, #expr, gpu(GetErrorString)(ck_status_)); \
	} while (0)

/* After a kernel launch: the launch error, if any. */
#define CK_LAUNCH(what) CK(gpu(GetLastError)())

/* Output verification on the device: adds to *poison how many of the count
 * elements (2 or 4 bytes each) of d still hold the poison pattern (all bits
 * set), grid-stride, one atomic per thread that found any. */
__device__ __forceinline__ void kern_count_poison(const void *d, int bytes_per_elem, size_t count,
						  unsigned long long *poison)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	unsigned long long local = 0;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
		if (bytes_per_elem == 2)
			local += ((const uint16_t *)d)[i] == 0xFFFFu;
		else
			local += ((const uint32_t *)d)[i] == 0xFFFFFFFFu;
	}
	if (local)
		atomicAdd(poison, local);
}

/* A device allocation freed when it goes out of scope. */
struct dev_buffer {
	void *ptr = nullptr;
	size_t bytes = 0;
	dev_buffer() = default;
	dev_buffer(const dev_buffer &) = delete;
	dev_buffer &operator=(const dev_buffer &) = delete;
	~dev_buffer()
	{
		release();
	}
	void release()
	{
		if (ptr)
			(void)gpu(Free)(ptr);
		ptr = nullptr;
		bytes = 0;
	}
	template <typename T> T *as() const
	{
		return static_cast<T *>(ptr);
	}
};

#define CK_ALLOC(buf, n)                          \
	do {                                      \
		(buf).release();                  \
		CK(gpu(Malloc)(&(buf).ptr, (n))); \
		(buf).bytes = (n);                \
	} while (0)

/* A host allocation freed when it goes out of scope. */
struct host_buffer {
	void *ptr = nullptr;
	host_buffer() = default;
	host_buffer(const host_buffer &) = delete;
	host_buffer &operator=(const host_buffer &) = delete;
	~host_buffer()
	{
		free(ptr);
	}
	bool alloc(size_t n)
	{
		free(ptr);
		ptr = malloc(n ? n : 1);
		return ptr != nullptr;
	}
	template <typename T> T *as() const
	{
		return static_cast<T *>(ptr);
	}
};

struct kern_ctx {
	int device;
	struct kern_device info;
	gpuStream_t stream;
	bool has_wgmma; /* the sm_90a kernel is in the binary and the device is CC 9.0 */
	void *blas;     /* library handles (gemm.cu), NULL until the first GEMM */
	/* The L2 sweep's array, kept between points with its host prefix sums. */
	dev_buffer l2_buf;
	uint64_t l2_seed;
	double *l2_prefix; /* l2_prefix[i] = sum of the first i float4 (all four lanes) */
	size_t l2_count;   /* float4 elements */
};

/* Threads per SM the backend fills for streaming kernels. */
static inline int kern_blocks_for(const struct kern_ctx *ctx, int threads)
{
	int per_sm = ctx->info.max_threads_per_sm / threads;
	return ctx->info.sm_count * (per_sm > 0 ? per_sm : 1);
}

/* One timed launch: rep >= 0 for timed runs, < 0 for warm-up. */
typedef int (*kern_launch_fn)(void *user, int rep, char *err, size_t err_len);

/* Warm-up, then cfg->repeats launches with an event before and after each;
 * cfg->sample is called while they run. Fills res->seconds and repeats. */
int kern_time_launches(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res,
		       kern_launch_fn launch, void *user, char *err, size_t err_len);

/* Device fill kernels (kernels/rand.h encodings). */
enum kern_fill { FILL_F32, FILL_F32_POSITIVE, FILL_BF16, FILL_F16, FILL_E4M3, FILL_F64, FILL_E5M2, FILL_TF32, FILL_S8 };
int kern_fill(struct kern_ctx *ctx, enum kern_fill kind, void *ptr, size_t count, uint64_t seed, char *err,
	      size_t err_len);

/* Runners in their own translation units. */
extern "C" int rp_mma_run(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
			  size_t err_len);
extern "C" const void *rp_mma_kernel(void);
extern "C" int rp_wgmma_run(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
			    size_t err_len);
extern "C" const void *rp_wgmma_kernel(void);
/* kernels/cuda/latency.cu: the pointer chases (KERN_LATENCY, _SMEM, _HOPS). */
extern "C" int rp_latency_run(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
			      size_t err_len);
extern "C" int rp_gemm_run(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
			   size_t err_len);
extern "C" void rp_gemm_close(struct kern_ctx *ctx);

#endif
