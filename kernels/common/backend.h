/* The backend table and the parts of it both vendors share: dispatch,
 * close, and the occupancy sweep. Included once by each backend after
 * kernels/common/stream.h; the backend defines before it:
 *   static int backend_device_info(int device, struct kern_device *out, char *err, size_t err_len);
 *   static const char *backend_unsupported(struct kern_ctx *ctx, enum kern_id id);
 *   static int backend_run_matrix(struct kern_ctx *, const struct kern_config *, struct kern_result *, char *, size_t);
 *   static int backend_kernel_list(struct kern_ctx *ctx, struct occ_kernel *list, int max);
 *   static void backend_close_extra(struct kern_ctx *ctx); */
#ifndef RIDGE_KERN_BACKEND_H
#define RIDGE_KERN_BACKEND_H

#include <new>

#include "stream.h"
#include "validate.h"

struct occ_kernel {
	const char *name;
	const void *func;
};

static int backend_device_info(int device, struct kern_device *out, char *err, size_t err_len);
static const char *backend_unsupported(struct kern_ctx *ctx, enum kern_id id);
static int backend_run_matrix(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
			      size_t err_len);
static int backend_kernel_list(struct kern_ctx *ctx, struct occ_kernel *list, int max);
static void backend_close_extra(struct kern_ctx *ctx);

static int backend_device_count(int *count, char *err, size_t err_len)
{
	*count = 0;
	CK(gpu(GetDeviceCount)(count));
	return 0;
}

static void backend_close(struct kern_ctx *ctx)
{
	if (!ctx)
		return;
	backend_close_extra(ctx);
	ctx->l2_buf.release();
	free(ctx->l2_prefix);
	if (ctx->stream)
		(void)gpu(StreamDestroy)(ctx->stream);
	delete ctx;
}

static int backend_open(int device, struct kern_ctx **out, struct kern_device *info, char *err, size_t err_len)
{
	*out = NULL;
	int count = 0;
	CK(gpu(GetDeviceCount)(&count));
	if (device < 0 || device >= count)
		return kern_failf(err, err_len, "device %d does not exist (%d device%s found)", device, count,
				  count == 1 ? "" : "s");
	CK(gpu(SetDevice)(device));
	struct kern_ctx *ctx = new (std::nothrow) kern_ctx();
	if (!ctx)
		return kern_failf(err, err_len, "out of host memory");
	ctx->device = device;
	if (backend_device_info(device, &ctx->info, err, err_len)) {
		delete ctx;
		return -1;
	}
	ctx->has_wgmma = backend_unsupported(ctx, KERN_WGMMA_BF16) == NULL;
	gpuError_t s = gpu(StreamCreateWithFlags)(&ctx->stream, gpuStreamNonBlocking);
	if (s != gpuSuccess) {
		kern_fail(err, err_len, __FILE__, __LINE__, "StreamCreateWithFlags", gpu(GetErrorString)(s));
		delete ctx;
		return -1;
	}
	*info = ctx->info;
	*out = ctx;
	return 0;
}

static int backend_run(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
		       size_t err_len)
{
	memset(res, 0, sizeof *res);
	res->verify_error = -1;
	const char *why = backend_unsupported(ctx, cfg->id);
	if (why)
		return kern_failf(err, err_len, "%s: %s", kern_id_name(cfg->id), why);
	CK(gpu(SetDevice)(ctx->device));
	switch (cfg->id) {
	case KERN_COPY:
	case KERN_TRIAD:
	case KERN_READ:
	case KERN_WRITE:
	case KERN_READ_WIDE:
	case KERN_COPY_FIXED:
		return run_stream(ctx, cfg, res, err, err_len);
	case KERN_L2_READ:
		return run_l2(ctx, cfg, res, err, err_len);
	case KERN_SMEM:
		return run_smem(ctx, cfg, res, err, err_len);
	case KERN_FMA_FP32:
	case KERN_FMA_FP64:
	case KERN_FMA_FP16X2:
		return run_fma(ctx, cfg, res, err, err_len);
	case KERN_LAUNCH_ASYNC:
	case KERN_LAUNCH_SYNC:
	case KERN_GRAPH_NODE:
	case KERN_GRAPH_LAUNCH:
		return run_launch(ctx, cfg, res, err, err_len);
	case KERN_V_STREAM:
	case KERN_V_GEMM_NAIVE:
	case KERN_V_GEMM_TILED:
	case KERN_V_RESNORM_UNFUSED:
	case KERN_V_RESNORM_FUSED:
	case KERN_V_SOFTMAX_SAFE:
	case KERN_V_SOFTMAX_ONLINE:
	case KERN_V_SOFTMAX_FUSED:
	case KERN_V_LAUNCH_EAGER:
	case KERN_V_LAUNCH_GRAPH:
		return run_validation(ctx, cfg, res, err, err_len);
	default:
		return backend_run_matrix(ctx, cfg, res, err, err_len);
	}
}

/* Block sizes, dynamic shared memory sizes (bytes; the opt-in ones need the
 * attribute raised) and carveouts the occupancy sweep asks the runtime for. */
static const int occ_blocks[] = { 32, 64, 96, 128, 192, 256, 384, 512, 640, 768, 1024 };
static const double occ_dyn_kib[] = { 0, 1, 4, 16, 40, 64, 100, 160, 200 };
static const int occ_carveouts[] = { 0, 25, 50, 100 };

static int occ_query(struct kern_ctx *ctx, const struct occ_kernel *k, const gpuFuncAttributes *attr, int block,
		     size_t dyn, size_t max_dyn, bool optin, int carveout, struct kern_occupancy_row *row, char *err,
		     size_t err_len)
{
	int blocks = 0;
	CK(gpu(OccupancyMaxActiveBlocksPerMultiprocessor)(&blocks, k->func, block, dyn));
	memset(row, 0, sizeof *row);
	snprintf(row->kernel, sizeof row->kernel, "%s", k->name);
	row->regs = attr->numRegs;
	row->static_smem = (double)attr->sharedSizeBytes;
	row->local_bytes = (double)attr->localSizeBytes;
	row->max_threads = attr->maxThreadsPerBlock;
	row->binary_version = attr->binaryVersion;
	row->block = block;
	row->dynamic_smem = (double)dyn;
	row->max_dynamic_smem = (double)max_dyn;
	row->optin = optin;
	row->carveout = carveout;
	row->blocks_per_sm = blocks;
	(void)ctx;
	return 0;
}

static int backend_occupancy(struct kern_ctx *ctx, struct kern_occupancy_row *rows, int max_rows, int *count, char *err,
			     size_t err_len)
{
	struct occ_kernel list[32];
	int nk = backend_kernel_list(ctx, list, 32);
	*count = 0;
	CK(gpu(SetDevice)(ctx->device));
	for (int ki = 0; ki < nk; ki++) {
		const struct occ_kernel *k = &list[ki];
		gpuFuncAttributes attr;
		CK(gpu(FuncGetAttributes)(&attr, k->func));
		size_t stat = attr.sharedSizeBytes;
		size_t dflt = (size_t)ctx->info.smem_per_block > stat ? (size_t)ctx->info.smem_per_block - stat : 0;
		size_t optin_max = (size_t)ctx->info.smem_per_block_optin > stat
					   ? (size_t)ctx->info.smem_per_block_optin - stat
					   : 0;
		for (size_t di = 0; di < sizeof occ_dyn_kib / sizeof occ_dyn_kib[0] + 2; di++) {
			size_t dyn;
			if (di < sizeof occ_dyn_kib / sizeof occ_dyn_kib[0])
				dyn = (size_t)(occ_dyn_kib[di] * 1024);
			else if (di == sizeof occ_dyn_kib / sizeof occ_dyn_kib[0])
				dyn = dflt; /* exactly the default limit */
			else
				dyn = optin_max; /* exactly the opt-in limit */
			if (dyn > optin_max)
				continue;
			bool optin = dyn > dflt;
			size_t max_dyn = optin ? optin_max : dflt;
			if (optin)
				CK(gpu(FuncSetAttribute)(k->func, gpuFuncAttributeMaxDynamicSharedMemorySize,
							 (int)optin_max));
			for (size_t bi = 0; bi < sizeof occ_blocks / sizeof occ_blocks[0]; bi++) {
				int block = occ_blocks[bi];
				if (block > attr.maxThreadsPerBlock)
					continue;
				if (*count >= max_rows)
					return kern_failf(err, err_len, "occupancy: more than %d rows", max_rows);
				if (occ_query(ctx, k, &attr, block, dyn, max_dyn, optin, -1, &rows[*count], err,
					      err_len))
					return -1;
				(*count)++;
				/* Carveouts for a few small dynamic sizes. */
				if (dyn <= 4096 && (block == 128 || block == 256 || block == attr.maxThreadsPerBlock)) {
					for (size_t ci = 0; ci < sizeof occ_carveouts / sizeof occ_carveouts[0]; ci++) {
						if (*count >= max_rows)
							return kern_failf(err, err_len, "occupancy: more than %d rows",
									  max_rows);
						CK(gpu(FuncSetAttribute)(k->func,
									 gpuFuncAttributePreferredSharedMemoryCarveout,
									 occ_carveouts[ci]));
						int rc = occ_query(ctx, k, &attr, block, dyn, max_dyn, optin,
								   occ_carveouts[ci], &rows[*count], err, err_len);
						CK(gpu(FuncSetAttribute)(
							k->func, gpuFuncAttributePreferredSharedMemoryCarveout, -1));
						if (rc)
							return -1;
						(*count)++;
					}
				}
			}
			if (optin)
				CK(gpu(FuncSetAttribute)(k->func, gpuFuncAttributeMaxDynamicSharedMemorySize,
							 (int)dflt));
		}
	}
	return 0;
}

static const struct kern_backend backend_table = {
	KERN_BACKEND_NAME,   backend_device_count, backend_open,      backend_close,
	backend_unsupported, backend_run,          backend_occupancy,
};

extern "C" const struct kern_backend *kern_backend(void)
{
	return &backend_table;
}

#endif
