/* kernels: the reference kernels ridge-probe times, behind one vendor-neutral
 * C interface. Each backend (kernels/cuda/, kernels/hip/) fills a struct
 * kern_backend; the probe links exactly one and knows no CUDA or HIP.
 *
 * Every run verifies its own output before any time counts: the output buffer
 * is poisoned, the inputs are fresh random values (never zeros) drawn from
 * kernels/rand.h, and a host reference in double precision (kernels/verify.c)
 * is compared with the result (normwise relative error against a tolerance).
 * A run that fails verification returns -1 with the error in err. */
#ifndef RIDGE_KERNELS_H
#define RIDGE_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KERN_MAX_REPEATS 64
#define KERN_TEXT 128
#define KERN_METHOD 256

/* What one run measures. The order is the order ridge-probe runs them. */
enum kern_id {
	KERN_COPY,       /* b = a, 16-byte loads and stores */
	KERN_TRIAD,      /* a = b + s * c */
	KERN_READ,       /* sum of a (read-only) */
	KERN_WRITE,      /* a = f(i) (write-only) */
	KERN_READ_WIDE,  /* sum of a, 8 loads in flight with a 256-byte L2 prefetch hint */
	KERN_L2_READ,    /* read-only over a working set, L1 bypassed (the L2 sweep) */
	KERN_SMEM,       /* shared-memory reads, conflict-free 16-byte accesses */
	KERN_FMA_FP32,   /* independent FMA chains, fp32 */
	KERN_FMA_FP64,   /* the same in fp64 */
	KERN_FMA_FP16X2, /* packed half2 FMA (HFMA2, v_pk_fma_f16) */
	KERN_MMA_BF16,   /* matrix instructions from registers: mma.sync m16n8k16 / MFMA 32x32x8 */
	KERN_WGMMA_BF16, /* wgmma m64n256k16 from shared memory (sm_90a) */
	KERN_GEMM_BF16,  /* library GEMM (cuBLAS), bf16 in and out, fp32 accumulate */
	KERN_GEMM_FP16,
	KERN_GEMM_TF32,    /* fp32 in and out, tf32 tensor cores */
	KERN_GEMM_FP32,    /* fp32, no tensor cores (pedantic math) */
	KERN_GEMM_FP8,     /* e4m3 in (TN), bf16 out, cuBLASLt */
	KERN_LAUNCH_ASYNC, /* host cost of one empty-kernel launch (back-to-back) */
	KERN_LAUNCH_SYNC,  /* launch + synchronize round trip */
	KERN_GRAPH_NODE,   /* graph replay, per empty-kernel node */
	KERN_GRAPH_LAUNCH, /* host cost of launching a one-node graph */
	/* Added later (issue 19); appended so the ranges above keep their meaning. */
	KERN_COPY_FIXED,    /* one pass of the copy kernel at a small size: the fixed cost per kernel */
	KERN_LATENCY,       /* pointer chase, one thread: seconds per dependent load (working set, stride) */
	KERN_LATENCY_SMEM,  /* the same chase in shared memory */
	KERN_LATENCY_HOPS,  /* per-load latencies of one chase (clock), as 64 quantiles: near/far L2 */
	KERN_WGMMA_FP16,    /* wgmma m64n256k16 fp16 -> fp32 (sm_90a) */
	KERN_WGMMA_TF32,    /* wgmma m64n256k8 tf32 -> fp32 */
	KERN_WGMMA_E4M3,    /* wgmma m64n256k32 e4m3 -> fp32 */
	KERN_WGMMA_E5M2,    /* wgmma m64n256k32 e5m2 -> fp32 */
	KERN_WGMMA_INT8,    /* wgmma m64n256k32 s8 -> s32 */
	KERN_WGMMA_SP_BF16, /* wgmma.sp m64n256k32 bf16, A 2:4 sparse (dense-equivalent FLOPs) */
	KERN_WGMMA_SP_E4M3, /* wgmma.sp m64n256k64 e4m3, A 2:4 sparse */
	/* The validation suite (ridge-probe --validate): kernels whose time the
	 * model predicts. Library GEMM shapes reuse KERN_GEMM_BF16. */
	KERN_V_STREAM,          /* c = a + b over a working set (bytes), several passes per launch */
	KERN_V_GEMM_NAIVE,      /* fp32 GEMM, one thread per output, no reuse in the code (m = n = k) */
	KERN_V_GEMM_TILED,      /* fp32 GEMM, 32 x 32 shared-memory tiles (the textbook's TILE_SIZE) */
	KERN_V_RESNORM_UNFUSED, /* bf16 h = x + r, then y = RMSNorm(h) w: two kernels (m rows x n) */
	KERN_V_RESNORM_FUSED,   /* the same in one kernel */
	KERN_V_SOFTMAX_SAFE,    /* bf16 row softmax in three kernels: max, sum of exp, normalize */
	KERN_V_SOFTMAX_ONLINE,  /* two kernels: online max and sum, normalize */
	KERN_V_SOFTMAX_FUSED,   /* one kernel, the row held on chip */
	KERN_V_LAUNCH_EAGER,    /* m tiny dependent kernels launched one by one, host time to completion */
	KERN_V_LAUNCH_GRAPH,    /* the same m kernels as one graph replay */
	KERN_COUNT
};

/* "copy", "triad", ... (stable: used in JSON and --only). NULL when out of range. */
const char *kern_id_name(enum kern_id id);
/* True for the ids whose result is a time per operation, not a rate. */
bool kern_id_is_launch(enum kern_id id);
/* True for the latency ids: the rate is the median seconds per dependent load. */
bool kern_id_is_latency(enum kern_id id);
/* True for the wgmma ids (kernels/cuda/wgmma_sm90a.cu). */
bool kern_id_is_wgmma(enum kern_id id);
/* True when the work of the id is bytes (memory kernels), else FLOPs. */
bool kern_id_counts_bytes(enum kern_id id);
/* True for the validation-suite ids (KERN_V_*). */
bool kern_id_is_validation(enum kern_id id);

/* The device as its runtime reports it. */
struct kern_device {
	char backend[16]; /* "cuda", "hip" */
	char name[KERN_TEXT];
	char arch[KERN_TEXT]; /* "sm_90", "gfx90a" */
	int cc_major, cc_minor;
	int sm_count; /* SMs (CUs on AMD) */
	int warp_size;
	double clock_hz;        /* the runtime's peak SM clock */
	double memory_clock_hz; /* peak memory clock */
	int bus_width_bits;
	double l2_bytes;
	double smem_per_sm, smem_per_block, smem_per_block_optin, smem_reserved_per_block;
	int regs_per_sm, regs_per_block;
	int max_threads_per_sm, max_threads_per_block, max_blocks_per_sm;
	double memory_bytes;
	int driver_version, runtime_version; /* e.g. 13000 */
	char pci_bus_id[32];
};

/* Called by a backend while timed work runs on the device, so the caller can
 * read clocks and power during the measurement. May be NULL. */
typedef void (*kern_sample_fn)(void *user);

struct kern_config {
	enum kern_id id;
	double bytes;  /* memory kernels: bytes per array (0: the backend's default, >= 8 x L2);
			  KERN_L2_READ, KERN_V_STREAM: the working set */
	long m, n, k;  /* GEMM shape; row kernels: m rows of n; launch validation: m kernels */
	int warmup;    /* untimed runs after verification */
	int repeats;   /* timed runs, 1..KERN_MAX_REPEATS */
	uint64_t seed; /* inputs are drawn from it (kernels/rand.h) */
	kern_sample_fn sample;
	void *sample_user;
	/* Sustained mode (ridge-probe --sustained): when window_s > 0 each timed
	 * run is a window of back-to-back launches lasting about window_s, its
	 * seconds the mean per launch; window_end (may be NULL) is called with
	 * sample_user after each window, so the caller can read clocks and power
	 * per window. */
	double window_s;
	void (*window_end)(void *user, int window);
	/* KERN_LATENCY: the distance between consecutive chain elements (0: 128 B)
	 * and the load kind: 1 for L1-cached loads (ld.ca), 0 for L2 (ld.cg). */
	double stride;
	int l1;
};

struct kern_result {
	int repeats;
	/* Device time of each timed run (events around it); for the launch ids,
	 * seconds per operation of each sample. */
	double seconds[KERN_MAX_REPEATS];
	double work;         /* bytes or FLOPs of one timed run; launch ids: operations per sample */
	double bytes;        /* size used: bytes per array, working set, or 0 */
	double verify_error; /* normwise relative error of the verified run (-1: nothing to verify) */
	double verify_tolerance;
	char method[KERN_METHOD];
};

/* One row of the runtime's occupancy answer for a real kernel. */
struct kern_occupancy_row {
	char kernel[48];
	int regs;                /* cudaFuncAttributes.numRegs */
	double static_smem;      /* sharedSizeBytes */
	double local_bytes;      /* localSizeBytes */
	int max_threads;         /* maxThreadsPerBlock */
	int binary_version;      /* e.g. 90 */
	int block;               /* threads per block */
	double dynamic_smem;     /* bytes at launch */
	double max_dynamic_smem; /* cudaFuncAttributeMaxDynamicSharedMemorySize in force */
	bool optin;              /* that attribute was raised above the default limit */
	int carveout;            /* preferred carveout percent, -1: left at the default */
	int blocks_per_sm;       /* cudaOccupancyMaxActiveBlocksPerMultiprocessor */
};

struct kern_ctx;

struct kern_backend {
	const char *name; /* "cuda", "hip" */
	/* 0 with the number of devices, or -1 with err (no driver, no device). */
	int (*device_count)(int *count, char *err, size_t err_len);
	int (*open)(int device, struct kern_ctx **ctx, struct kern_device *info, char *err, size_t err_len);
	void (*close)(struct kern_ctx *ctx);
	/* NULL when the id can run on this device; otherwise why not. */
	const char *(*unsupported)(struct kern_ctx *ctx, enum kern_id id);
	/* Verifies, warms up, then times cfg->repeats runs. 0, or -1 with err. */
	int (*run)(struct kern_ctx *ctx, const struct kern_config *cfg, struct kern_result *res, char *err,
		   size_t err_len);
	/* The runtime's occupancy for the backend's own kernels over block sizes,
	 * dynamic shared memory (with and without opt-in) and carveouts. */
	int (*occupancy)(struct kern_ctx *ctx, struct kern_occupancy_row *rows, int max_rows, int *count, char *err,
			 size_t err_len);
};

/* The backend linked into this binary. */
const struct kern_backend *kern_backend(void);

#ifdef __cplusplus
}
#endif

#endif
