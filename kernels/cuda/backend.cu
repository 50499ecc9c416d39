/* CUDA backend: device properties, dispatch and occupancy (kernels/common/),
 * the portable kernels (kernels/common/stream.h), and the CUDA-only matrix
 * runners in mma.cu, wgmma_sm90a.cu and gemm.cu. */
#include "../common/backend.h"

static int backend_device_info(int device, struct kern_device *out, char *err, size_t err_len)
{
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, device));
	memset(out, 0, sizeof *out);
	snprintf(out->backend, sizeof out->backend, "cuda");
	snprintf(out->name, sizeof out->name, "%.127s", p.name);
	snprintf(out->arch, sizeof out->arch, "sm_%d%d", p.major, p.minor);
	out->cc_major = p.major;
	out->cc_minor = p.minor;
	out->sm_count = p.multiProcessorCount;
	out->warp_size = p.warpSize;
	int khz = 0;
	CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device));
	out->clock_hz = khz * 1e3;
	CK(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device));
	out->memory_clock_hz = khz * 1e3;
	out->bus_width_bits = p.memoryBusWidth;
	out->l2_bytes = p.l2CacheSize;
	out->smem_per_sm = (double)p.sharedMemPerMultiprocessor;
	out->smem_per_block = (double)p.sharedMemPerBlock;
	out->smem_per_block_optin = (double)p.sharedMemPerBlockOptin;
	out->smem_reserved_per_block = (double)p.reservedSharedMemPerBlock;
	out->regs_per_sm = p.regsPerMultiprocessor;
	out->regs_per_block = p.regsPerBlock;
	out->max_threads_per_sm = p.maxThreadsPerMultiProcessor;
	out->max_threads_per_block = p.maxThreadsPerBlock;
	out->max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
	out->memory_bytes = (double)p.totalGlobalMem;
	CK(cudaDriverGetVersion(&out->driver_version));
	CK(cudaRuntimeGetVersion(&out->runtime_version));
	CK(cudaDeviceGetPCIBusId(out->pci_bus_id, sizeof out->pci_bus_id, device));
	return 0;
}

static bool is_gemm(enum kern_id id)
{
	return id >= KERN_GEMM_BF16 && id <= KERN_GEMM_FP8;
}

static const char *backend_unsupported(struct kern_ctx *ctx, enum kern_id id)
{
	if ((int)id < 0 || id >= KERN_COUNT)
		return "unknown kernel";
	if (kern_id_is_wgmma(id) && !(ctx->info.cc_major == 9 && ctx->info.cc_minor == 0))
		return "wgmma is built for sm_90a only and needs a compute capability 9.0 device";
	if (id == KERN_MMA_BF16 && ctx->info.cc_major < 8)
		return "mma.sync with bf16 needs compute capability 8.0 or later";
	if (id == KERN_GEMM_FP8 && (ctx->info.cc_major * 10 + ctx->info.cc_minor) < 89)
		return "fp8 (e4m3) GEMM needs compute capability 8.9 or later";
#ifdef KERN_NO_CUBLAS
	if (is_gemm(id))
		return "ridge-probe was built without cuBLAS (no cublas_v2.h/libcublas found by make)";
#endif
	return NULL;
}

static int backend_run_matrix(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
			      size_t err_len)
{
	if (cfg->id == KERN_MMA_BF16)
		return rp_mma_run(ctx, cfg, res, err, err_len);
	if (kern_id_is_wgmma(cfg->id))
		return rp_wgmma_run(ctx, cfg, res, err, err_len);
	if (kern_id_is_latency(cfg->id))
		return rp_latency_run(ctx, cfg, res, err, err_len);
#ifndef KERN_NO_CUBLAS
	if (is_gemm(cfg->id))
		return rp_gemm_run(ctx, cfg, res, err, err_len);
#endif
	return kern_failf(err, err_len, "%s: not available in this backend", kern_id_name(cfg->id));
}

static int backend_kernel_list(struct kern_ctx *ctx, struct occ_kernel *list, int max)
{
	struct occ_kernel all[] = {
		{ "rp_copy", (const void *)rp_copy },
		{ "rp_triad", (const void *)rp_triad },
		{ "rp_read", (const void *)rp_read },
		{ "rp_write", (const void *)rp_write },
		{ "rp_read_wide", (const void *)rp_read_wide },
		{ "rp_l2_read", (const void *)rp_l2_read },
		{ "rp_smem", (const void *)rp_smem },
		{ "rp_fma_f32", (const void *)rp_fma_f32 },
		{ "rp_fma_f64", (const void *)rp_fma_f64 },
		{ "rp_fma_f16x2", (const void *)rp_fma_f16x2 },
		{ "rp_empty", (const void *)rp_empty },
		{ "aux_fill", (const void *)aux_fill },
		{ "rv_stream_add", (const void *)rv_stream_add },
		{ "rv_gemm_naive", (const void *)rv_gemm_naive },
		{ "rv_gemm_tiled", (const void *)rv_gemm_tiled },
		{ "rv_add_rmsnorm_bf16", (const void *)rv_add_rmsnorm_bf16 },
		{ "rv_softmax_fused_bf16", (const void *)rv_softmax_fused_bf16 },
		{ "rp_mma_bf16", rp_mma_kernel() },
		{ "rp_wgmma_bf16", ctx->has_wgmma ? rp_wgmma_kernel() : NULL },
	};
	int n = 0;
	for (size_t i = 0; i < sizeof all / sizeof all[0] && n < max; i++)
		if (all[i].func)
			list[n++] = all[i];
	return n;
}

static void backend_close_extra(struct kern_ctx *ctx)
{
#ifndef KERN_NO_CUBLAS
	rp_gemm_close(ctx);
#else
	(void)ctx;
#endif
}
