/* Library GEMM rates: cuBLAS (cublasGemmEx) for bf16, fp16, tf32 and fp32
 * without tensor cores, cuBLASLt for fp8 (e4m3, scale pointers, fast
 * accumulation). All in the TN layout fp8 requires: A stored K x M and B
 * stored K x N, column-major (both K-contiguous), D = A^T B, M x N.
 *
 * Verification: D is poisoned (all bits set: NaN in every output type);
 * after the checked run a kernel counts poison left anywhere in D (it must be
 * none), and 256 random elements are compared with a double-precision dot
 * product of the exact inputs (kernels/rand.h). Inputs rotate over several
 * sets when one set is small enough to stay in L2. */
#include <cublasLt.h>
#include <cublas_v2.h>

#include "../common/gpu.h"
#include "../rand.h"
#include "../verify.h"

#define GEMM_SAMPLES 256
#define LT_WORKSPACE (64u << 20)

struct blas_handles {
	cublasHandle_t blas = nullptr;
	cublasLtHandle_t lt = nullptr;
	dev_buffer workspace;
	dev_buffer scale; /* one float 1.0 for the fp8 scale pointers */
};

static const char *blas_status(cublasStatus_t s)
{
	return cublasGetStatusString(s);
}

#define CKB(expr)                                                                                            \
	do {                                                                                                 \
		cublasStatus_t ckb_status_ = (expr);                                                         \
		if (ckb_status_ != CUBLAS_STATUS_SUCCESS)                                                    \
			return kern_fail(err, err_len, __FILE__, __LINE__, #expr, blas_status(ckb_status_)); \
	} while (0)

static void blas_free(struct blas_handles *h)
{
	if (!h)
		return;
	if (h->lt)
		(void)cublasLtDestroy(h->lt);
	if (h->blas)
		(void)cublasDestroy(h->blas);
	delete h;
}

extern "C" void rp_gemm_close(struct kern_ctx *ctx)
{
	blas_free((struct blas_handles *)ctx->blas);
	ctx->blas = NULL;
}

static int blas_init(struct kern_ctx *ctx, struct blas_handles *h, char *err, size_t err_len)
{
	CKB(cublasCreate(&h->blas));
	CKB(cublasSetStream(h->blas, ctx->stream));
	CKB(cublasLtCreate(&h->lt));
	CK_ALLOC(h->workspace, LT_WORKSPACE);
	CKB(cublasSetWorkspace(h->blas, h->workspace.ptr, LT_WORKSPACE));
	CK_ALLOC(h->scale, sizeof(float));
	float one = 1.0f;
	/* On the (non-blocking) stream and waited for: a plain cudaMemcpy from
	 * pageable memory may return before its DMA lands (kernels/common/latency.h). */
	CK(cudaMemcpyAsync(h->scale.ptr, &one, sizeof one, cudaMemcpyHostToDevice, ctx->stream));
	CK(cudaStreamSynchronize(ctx->stream));
	return 0;
}

/* The handles, created on the first GEMM (a handle costs a fraction of a second). */
static int blas_open(struct kern_ctx *ctx, struct blas_handles **out, char *err, size_t err_len)
{
	if (!ctx->blas) {
		struct blas_handles *h = new (std::nothrow) blas_handles();
		if (!h)
			return kern_failf(err, err_len, "out of host memory");
		if (blas_init(ctx, h, err, err_len)) {
			blas_free(h);
			return -1;
		}
		ctx->blas = h;
	}
	*out = (struct blas_handles *)ctx->blas;
	return 0;
}

/* Counts elements of D still holding the poison pattern, and gathers samples as float. */
__global__ void aux_check_output(const void *d, int bytes_per_elem, size_t count, const size_t *sample_idx, int samples,
				 float *sample_out, unsigned long long *poison)
{
	kern_count_poison(d, bytes_per_elem, count, poison);
	if (blockIdx.x == 0)
		for (int s = threadIdx.x; s < samples; s += blockDim.x) {
			size_t i = sample_idx[s];
			float v;
			if (bytes_per_elem == 2) /* bf16 widens by a shift; fp16 is re-gathered by aux_gather_f16 */
				v = __uint_as_float((uint32_t)((const uint16_t *)d)[i] << 16);
			else
				v = ((const float *)d)[i];
			sample_out[s] = v;
		}
}

__global__ void aux_gather_f16(const uint16_t *d, const size_t *sample_idx, int samples, float *sample_out)
{
	for (int s = threadIdx.x; s < samples; s += blockDim.x) {
		__half_raw raw;
		raw.x = d[sample_idx[s]];
		sample_out[s] = __half2float(__half(raw));
	}
}

struct gemm_type {
	enum kern_id id;
	const char *name;
	cudaDataType_t ab, cd;
	int ab_bytes, cd_bytes;
	enum kern_fill fill;
	enum kern_elem elem;
	double tolerance;
};

static const struct gemm_type gemm_types[] = {
	{ KERN_GEMM_BF16, "bf16", CUDA_R_16BF, CUDA_R_16BF, 2, 2, FILL_BF16, KERN_ELEM_BF16, 1e-2 },
	{ KERN_GEMM_FP16, "fp16", CUDA_R_16F, CUDA_R_16F, 2, 2, FILL_F16, KERN_ELEM_F16, 1e-2 },
	{ KERN_GEMM_TF32, "tf32", CUDA_R_32F, CUDA_R_32F, 4, 4, FILL_F32, KERN_ELEM_F32, 1e-2 },
	{ KERN_GEMM_FP32, "fp32", CUDA_R_32F, CUDA_R_32F, 4, 4, FILL_F32, KERN_ELEM_F32, 1e-4 },
	{ KERN_GEMM_FP8, "fp8", CUDA_R_8F_E4M3, CUDA_R_16BF, 1, 2, FILL_E4M3, KERN_ELEM_E4M3, 1e-2 },
};

struct lt_plan {
	cublasLtMatmulDesc_t desc = nullptr;
	cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
	cublasLtMatmulPreference_t pref = nullptr;
	cublasLtMatmulHeuristicResult_t heur;
	~lt_plan()
	{
		if (pref)
			cublasLtMatmulPreferenceDestroy(pref);
		if (lc)
			cublasLtMatrixLayoutDestroy(lc);
		if (lb)
			cublasLtMatrixLayoutDestroy(lb);
		if (la)
			cublasLtMatrixLayoutDestroy(la);
		if (desc)
			cublasLtMatmulDescDestroy(desc);
	}
};

struct gemm_job {
	struct kern_ctx *ctx;
	struct blas_handles *h;
	const struct gemm_type *type;
	long m, n, k;
	char *a, *b;         /* sets of inputs */
	size_t a_set, b_set; /* bytes per set */
	int sets;
	void *d;
	struct lt_plan *plan;
};

static int gemm_launch(void *user, int rep, char *err, size_t err_len)
{
	struct gemm_job *j = (struct gemm_job *)user;
	int set = rep < 0 ? 0 : rep % j->sets;
	const void *a = j->a + set * j->a_set, *b = j->b + set * j->b_set;
	float alpha = 1.0f, beta = 0.0f;
	int m = (int)j->m, n = (int)j->n, k = (int)j->k;
	if (j->type->id == KERN_GEMM_FP8) {
		CKB(cublasLtMatmul(j->h->lt, j->plan->desc, &alpha, a, j->plan->la, b, j->plan->lb, &beta, j->d,
				   j->plan->lc, j->d, j->plan->lc, &j->plan->heur.algo, j->h->workspace.ptr,
				   LT_WORKSPACE, j->ctx->stream));
		return 0;
	}
	cublasComputeType_t compute = j->type->id == KERN_GEMM_TF32   ? CUBLAS_COMPUTE_32F_FAST_TF32
				      : j->type->id == KERN_GEMM_FP32 ? CUBLAS_COMPUTE_32F_PEDANTIC
								      : CUBLAS_COMPUTE_32F;
	CKB(cublasGemmEx(j->h->blas, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, a, j->type->ab, k, b, j->type->ab, k,
			 &beta, j->d, j->type->cd, m, compute, CUBLAS_GEMM_DEFAULT));
	return 0;
}

static int lt_prepare(struct gemm_job *j, char *err, size_t err_len)
{
	struct lt_plan *p = j->plan;
	CKB(cublasLtMatmulDescCreate(&p->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
	cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
	CKB(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
	CKB(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
	const void *scale = j->h->scale.ptr;
	CKB(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale, sizeof scale));
	CKB(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale, sizeof scale));
	int8_t fast = 1;
	CKB(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast));
	CKB(cublasLtMatrixLayoutCreate(&p->la, j->type->ab, j->k, j->m, j->k));
	CKB(cublasLtMatrixLayoutCreate(&p->lb, j->type->ab, j->k, j->n, j->k));
	CKB(cublasLtMatrixLayoutCreate(&p->lc, j->type->cd, j->m, j->n, j->m));
	CKB(cublasLtMatmulPreferenceCreate(&p->pref));
	uint64_t ws = LT_WORKSPACE;
	CKB(cublasLtMatmulPreferenceSetAttribute(p->pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
	int found = 0;
	CKB(cublasLtMatmulAlgoGetHeuristic(j->h->lt, p->desc, p->la, p->lb, p->lc, p->lc, p->pref, 1, &p->heur,
					   &found));
	if (found < 1)
		return kern_failf(err, err_len, "gemm_fp8: cuBLASLt found no algorithm for %ldx%ldx%ld", j->m, j->n,
				  j->k);
	return 0;
}

extern "C" int rp_gemm_run(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
			   size_t err_len)
{
	const struct gemm_type *type = NULL;
	for (size_t i = 0; i < sizeof gemm_types / sizeof gemm_types[0]; i++)
		if (gemm_types[i].id == cfg->id)
			type = &gemm_types[i];
	if (!type)
		return kern_failf(err, err_len, "not a GEMM: %s", kern_id_name(cfg->id));
	long m = cfg->m > 0 ? cfg->m : 8192, n = cfg->n > 0 ? cfg->n : 8192, k = cfg->k > 0 ? cfg->k : 8192;
	if (m > 65536 || n > 65536 || k > 65536 || (cfg->id == KERN_GEMM_FP8 && (m % 16 || n % 16 || k % 16)))
		return kern_failf(err, err_len, "%s: shape %ldx%ldx%ld is not supported (fp8 needs multiples of 16)",
				  kern_id_name(cfg->id), m, n, k);
	struct blas_handles *h = NULL;
	if (blas_open(ctx, &h, err, err_len))
		return -1;
	CKB(cublasSetMathMode(h->blas, cfg->id == KERN_GEMM_FP32 ? CUBLAS_PEDANTIC_MATH : CUBLAS_DEFAULT_MATH));

	size_t a_set = (size_t)m * k * type->ab_bytes, b_set = (size_t)k * n * type->ab_bytes;
	size_t d_bytes = (size_t)m * n * type->cd_bytes;
	/* Rotate input sets until they span 3 x L2 (at most 8 sets, 8 GiB). */
	int sets = (int)ceil(3 * ctx->info.l2_bytes / (double)(a_set + b_set));
	if (sets < 1)
		sets = 1;
	if (sets > 8)
		sets = 8;
	while (sets > 1 && (a_set + b_set) * sets > (8ull << 30))
		sets--;
	dev_buffer a, b, d, idx, samples, poison;
	CK_ALLOC(a, a_set * sets);
	CK_ALLOC(b, b_set * sets);
	CK_ALLOC(d, d_bytes);
	for (int s = 0; s < sets; s++)
		if (kern_fill(ctx, type->fill, a.as<char>() + s * a_set, (size_t)m * k, cfg->seed + 2 * s, err,
			      err_len) ||
		    kern_fill(ctx, type->fill, b.as<char>() + s * b_set, (size_t)k * n, cfg->seed + 2 * s + 1, err,
			      err_len))
			return -1;
	CK(cudaMemsetAsync(d.ptr, 0xFF, d_bytes, ctx->stream));

	struct lt_plan plan;
	struct gemm_job job = { ctx, h, type, m, n, k, a.as<char>(), b.as<char>(), a_set, b_set, sets, d.ptr, &plan };
	if (cfg->id == KERN_GEMM_FP8 && lt_prepare(&job, err, err_len))
		return -1;
	if (gemm_launch(&job, -1, err, err_len))
		return -1;

	/* Check: no poison left, and GEMM_SAMPLES elements against the reference. */
	size_t host_idx[GEMM_SAMPLES];
	long rows[GEMM_SAMPLES], cols[GEMM_SAMPLES];
	for (int s = 0; s < GEMM_SAMPLES; s++) {
		rows[s] = (long)(kern_hash(cfg->seed + 77, 2 * s) % (uint32_t)m);
		cols[s] = (long)(kern_hash(cfg->seed + 77, 2 * s + 1) % (uint32_t)n);
		host_idx[s] = (size_t)rows[s] + (size_t)cols[s] * m;
	}
	CK_ALLOC(idx, sizeof host_idx);
	CK_ALLOC(samples, GEMM_SAMPLES * sizeof(float));
	CK_ALLOC(poison, sizeof(unsigned long long));
	CK(cudaMemcpyAsync(idx.ptr, host_idx, sizeof host_idx, cudaMemcpyHostToDevice, ctx->stream));
	CK(cudaMemsetAsync(poison.ptr, 0, sizeof(unsigned long long), ctx->stream));
	aux_check_output<<<kern_blocks_for(ctx, 256), 256, 0, ctx->stream>>>(
		d.ptr, type->cd_bytes, (size_t)m * n, idx.as<size_t>(), GEMM_SAMPLES, samples.as<float>(),
		poison.as<unsigned long long>());
	CK_LAUNCH("aux_check_output");
	if (type->cd == CUDA_R_16F) {
		aux_gather_f16<<<1, 256, 0, ctx->stream>>>(d.as<uint16_t>(), idx.as<size_t>(), GEMM_SAMPLES,
							   samples.as<float>());
		CK_LAUNCH("aux_gather_f16");
	}
	float got[GEMM_SAMPLES];
	unsigned long long left = 0;
	CK(cudaMemcpyAsync(got, samples.ptr, sizeof got, cudaMemcpyDeviceToHost, ctx->stream));
	CK(cudaMemcpyAsync(&left, poison.ptr, sizeof left, cudaMemcpyDeviceToHost, ctx->stream));
	CK(cudaStreamSynchronize(ctx->stream));
	if (left)
		return kern_failf(err, err_len, "%s: verification failed: %llu of %ld outputs were never written",
				  kern_id_name(cfg->id), left, m * n);
	struct kern_error e = { 0, 0, 0 };
	for (int s = 0; s < GEMM_SAMPLES; s++) {
		double ref = 0;
		for (long p = 0; p < k; p++)
			ref += kern_value(type->elem, cfg->seed, (size_t)p + (size_t)rows[s] * k) *
			       kern_value(type->elem, cfg->seed + 1, (size_t)p + (size_t)cols[s] * k);
		kern_error_add(&e, got[s], ref);
	}
	res->verify_error = kern_error_value(&e);
	res->verify_tolerance = type->tolerance;
	if (!(res->verify_error <= res->verify_tolerance))
		return kern_failf(err, err_len, "%s: verification failed at %ldx%ldx%ld: relative error %.3g > %.3g",
				  kern_id_name(cfg->id), m, n, k, res->verify_error, res->verify_tolerance);

	if (kern_time_launches(ctx, cfg, res, gemm_launch, &job, err, err_len))
		return -1;
	res->work = 2.0 * m * n * k;
	res->bytes = (double)(a_set + b_set + d_bytes);
	if (cfg->id == KERN_GEMM_FP8)
		snprintf(
			res->method, sizeof res->method,
			"cuBLASLt matmul e4m3 x e4m3 -> bf16, fp32 compute, fast accumulation, scale pointers 1.0, TN, "
			"%ldx%ldx%ld, %d input set%s rotated",
			m, n, k, sets, sets == 1 ? "" : "s");
	else
		snprintf(res->method, sizeof res->method,
			 "cublasGemmEx %s, %s, TN, %ldx%ldx%ld, %d input set%s rotated", type->name,
			 cfg->id == KERN_GEMM_TF32   ? "CUBLAS_COMPUTE_32F_FAST_TF32 (tensor cores)"
			 : cfg->id == KERN_GEMM_FP32 ? "CUBLAS_COMPUTE_32F_PEDANTIC + pedantic math (no tensor cores)"
						     : "CUBLAS_COMPUTE_32F accumulate",
			 m, n, k, sets, sets == 1 ? "" : "s");
	return 0;
}
