/* HIP backend (AMD CDNA): device properties, dispatch and occupancy
 * (kernels/common/), the portable kernels (kernels/common/stream.h) and the
 * MFMA runner in mfma.hip, the pointer chases in latency.hip
 * (kernels/common/latency.h). No library GEMM: Debian's ROCm has no hipBLASLt,
 * so the GEMM measurements report themselves as not run. No AMD GPU was
 * available to run this backend; it is built and compiled, not measured. */
#include "../common/backend.h"

static int attribute(hipDeviceAttribute_t attr, int device, int *out)
{
	*out = 0;
	return hipDeviceGetAttribute(out, attr, device) == hipSuccess ? 0 : -1;
}

static int backend_device_info(int device, struct kern_device *out, char *err, size_t err_len)
{
	hipDeviceProp_t p;
	CK(hipGetDeviceProperties(&p, device));
	memset(out, 0, sizeof *out);
	snprintf(out->backend, sizeof out->backend, "hip");
	snprintf(out->name, sizeof out->name, "%.127s", p.name);
	snprintf(out->arch, sizeof out->arch, "%.127s", p.gcnArchName);
	char *colon = strchr(out->arch, ':');
	if (colon)
		*colon = '\0';
	out->cc_major = p.major;
	out->cc_minor = p.minor;
	out->sm_count = p.multiProcessorCount;
	out->warp_size = p.warpSize;
	out->clock_hz = p.clockRate * 1e3;
	out->memory_clock_hz = p.memoryClockRate * 1e3;
	out->bus_width_bits = p.memoryBusWidth;
	out->l2_bytes = p.l2CacheSize;
	out->smem_per_sm = (double)p.maxSharedMemoryPerMultiProcessor;
	out->smem_per_block = (double)p.sharedMemPerBlock;
	out->smem_per_block_optin = (double)p.sharedMemPerBlock; /* no opt-in on CDNA */
	out->smem_reserved_per_block = 0;
	int v = 0;
	out->regs_per_sm = attribute(hipDeviceAttributeMaxRegistersPerMultiprocessor, device, &v) == 0 ? v : 0;
	out->regs_per_block = p.regsPerBlock;
	out->max_threads_per_sm = p.maxThreadsPerMultiProcessor;
	out->max_threads_per_block = p.maxThreadsPerBlock;
	out->max_blocks_per_sm = 0; /* not reported by HIP on AMD */
	out->memory_bytes = (double)p.totalGlobalMem;
	CK(hipDriverGetVersion(&out->driver_version));
	CK(hipRuntimeGetVersion(&out->runtime_version));
	CK(hipDeviceGetPCIBusId(out->pci_bus_id, sizeof out->pci_bus_id, device));
	return 0;
}

static bool has_mfma_bf16_1k(const struct kern_ctx *ctx)
{
	return strncmp(ctx->info.arch, "gfx90a", 6) == 0 || strncmp(ctx->info.arch, "gfx94", 5) == 0;
}

static const char *backend_unsupported(struct kern_ctx *ctx, enum kern_id id)
{
	if ((int)id < 0 || id >= KERN_COUNT)
		return "unknown kernel";
	if (kern_id_is_wgmma(id))
		return "wgmma is an NVIDIA Hopper instruction";
	if (id == KERN_MMA_BF16 && !has_mfma_bf16_1k(ctx))
		return "v_mfma_f32_32x32x8bf16_1k needs gfx90a or gfx94x";
	if (id >= KERN_GEMM_BF16 && id <= KERN_GEMM_FP8)
		return "no hipBLASLt in this build: library GEMM rates are not measured on AMD";
	return NULL;
}

static int backend_run_matrix(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
			      size_t err_len)
{
	if (cfg->id == KERN_MMA_BF16)
		return rp_mma_run(ctx, cfg, res, err, err_len);
	if (kern_id_is_latency(cfg->id))
		return rp_latency_run(ctx, cfg, res, err, err_len);
	return kern_failf(err, err_len, "%s: not available in the HIP backend", kern_id_name(cfg->id));
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
		{ "rp_mfma_bf16", has_mfma_bf16_1k(ctx) ? rp_mma_kernel() : NULL },
	};
	int n = 0;
	for (size_t i = 0; i < sizeof all / sizeof all[0] && n < max; i++)
		if (all[i].func)
			list[n++] = all[i];
	return n;
}

static void backend_close_extra(struct kern_ctx *ctx)
{
	(void)ctx;
}
