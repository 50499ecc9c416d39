/* cuBLAS and cuBLASLt loaded when the first GEMM needs them, not at start.
 * Linked with -lcublas -lcublasLt, the dynamic loader mapped and initialised
 * both (hundreds of MB) before main(): `ridge-probe --help` took 0.4 s. The
 * probe now links this file instead: each cuBLAS entry point gemm.cu calls is
 * defined here, dlopen()s the library on first use (found through the probe's
 * run path, the toolkit's lib directory) and forwards to the real function.
 * The header declarations check every signature below. When a library cannot
 * be loaded, calls return CUBLAS_STATUS_NOT_INITIALIZED and
 * cublasGetStatusString() says which library and why, so a GEMM measurement
 * fails with that message and every other measurement runs.
 *
 * CUBLAS_SONAME / CUBLASLT_SONAME come from the build (the toolkit's own
 * sonames: libcublas.so.13 for CUDA 13). */
#include <cublasLt.h>
#include <cublas_v2.h>
#include <dlfcn.h>
#include <stdio.h>

#ifndef CUBLAS_SONAME
#define CUBLAS_SONAME "libcublas.so"
#endif
#ifndef CUBLASLT_SONAME
#define CUBLASLT_SONAME "libcublasLt.so"
#endif

namespace
{

struct lazy_lib {
	const char *soname;
	void *handle;
	bool tried;
};

lazy_lib blas_lib = { CUBLAS_SONAME, nullptr, false };
lazy_lib lt_lib = { CUBLASLT_SONAME, nullptr, false };
char load_error[512];

void *lazy_symbol(lazy_lib &lib, const char *name)
{
	if (!lib.tried) {
		lib.tried = true;
		lib.handle = dlopen(lib.soname, RTLD_NOW | RTLD_LOCAL);
		if (!lib.handle)
			snprintf(load_error, sizeof load_error, "cannot load %s: %s", lib.soname, dlerror());
	}
	if (!lib.handle)
		return nullptr;
	void *sym = dlsym(lib.handle, name);
	if (!sym)
		snprintf(load_error, sizeof load_error, "%s has no %s", lib.soname, name);
	return sym;
}

/* Calls the library's function named name with the wrapper's own arguments:
 * their types (deduced from the wrapper's parameters, which the header
 * declared) are the real function's. */
template <typename... Args> cublasStatus_t forward(lazy_lib &lib, const char *name, Args... args)
{
	using fn = cublasStatus_t (*)(Args...);
	fn real = reinterpret_cast<fn>(lazy_symbol(lib, name));
	return real ? real(args...) : CUBLAS_STATUS_NOT_INITIALIZED;
}

} // namespace

#define BLAS(name, ...) forward(blas_lib, #name, __VA_ARGS__)
#define LT(name, ...) forward(lt_lib, #name, __VA_ARGS__)

extern "C" {

const char *cublasGetStatusString(cublasStatus_t status)
{
	using fn = const char *(*)(cublasStatus_t);
	fn real = reinterpret_cast<fn>(lazy_symbol(blas_lib, "cublasGetStatusString"));
	if (!real)
		return load_error;
	return real(status);
}

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
	return BLAS(cublasCreate_v2, handle);
}
cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
	return BLAS(cublasDestroy_v2, handle);
}
cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream)
{
	return BLAS(cublasSetStream_v2, handle, stream);
}
cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace, size_t bytes)
{
	return BLAS(cublasSetWorkspace_v2, handle, workspace, bytes);
}
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
	return BLAS(cublasSetMathMode, handle, mode);
}
cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
			    int k, const void *alpha, const void *A, cudaDataType Atype, int lda, const void *B,
			    cudaDataType Btype, int ldb, const void *beta, void *C, cudaDataType Ctype, int ldc,
			    cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
	return BLAS(cublasGemmEx, handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype,
		    ldc, computeType, algo);
}

cublasStatus_t cublasLtCreate(cublasLtHandle_t *handle)
{
	return LT(cublasLtCreate, handle);
}
cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle)
{
	return LT(cublasLtDestroy, handle);
}
cublasStatus_t cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, const void *alpha, const void *A,
			      cublasLtMatrixLayout_t Adesc, const void *B, cublasLtMatrixLayout_t Bdesc,
			      const void *beta, const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
			      cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo, void *workspace,
			      size_t workspace_bytes, cudaStream_t stream)
{
	return LT(cublasLtMatmul, handle, desc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc, D, Ddesc, algo, workspace,
		  workspace_bytes, stream);
}
cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
					      cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc,
					      cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
					      cublasLtMatmulPreference_t pref, int requested,
					      cublasLtMatmulHeuristicResult_t results[], int *returned)
{
	return LT(cublasLtMatmulAlgoGetHeuristic, handle, desc, Adesc, Bdesc, Cdesc, Ddesc, pref, requested, results,
		  returned);
}
cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *desc, cublasComputeType_t compute, cudaDataType_t scale)
{
	return LT(cublasLtMatmulDescCreate, desc, compute, scale);
}
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc)
{
	return LT(cublasLtMatmulDescDestroy, desc);
}
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr,
					      const void *buf, size_t bytes)
{
	return LT(cublasLtMatmulDescSetAttribute, desc, attr, buf, bytes);
}
cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref)
{
	return LT(cublasLtMatmulPreferenceCreate, pref);
}
cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref)
{
	return LT(cublasLtMatmulPreferenceDestroy, pref);
}
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
						    cublasLtMatmulPreferenceAttributes_t attr, const void *buf,
						    size_t bytes)
{
	return LT(cublasLtMatmulPreferenceSetAttribute, pref, attr, buf, bytes);
}
cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *layout, cudaDataType type, uint64_t rows,
					  uint64_t cols, int64_t ld)
{
	return LT(cublasLtMatrixLayoutCreate, layout, type, rows, cols, ld);
}
cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout)
{
	return LT(cublasLtMatrixLayoutDestroy, layout);
}

} /* extern "C" */
