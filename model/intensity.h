/* Arithmetic intensity of the kernels LLMs are made of: FLOPs and global-memory
 * bytes as exact formulas of shape, dtype and tiling.
 *
 * Two traffic models, both always computed:
 *   tiled       the algorithm's own global-memory traffic: every re-read its
 *               tiles make (a CTA tile of A for each column of tiles, K and V
 *               for each query tile, ...) goes to memory; no cache catches it.
 *               The naive GEMM is its own extreme: 2*M*N*K element reads.
 *   compulsory  every tensor read once and written once: the traffic left
 *               when L2 catches every re-read (a lower bound on HBM bytes).
 * The chosen one is `bytes`; the tiled one is also the traffic at the L2
 * level of the hierarchical roofline. With a GPU known, a tiled GEMM gets a
 * third, between the two (intensity_gemm_l2): the HBM traffic left when L2
 * holds the panels a wave of CTAs shares, as far as it can.
 *
 * Every formula: docs/models/intensity.md, docs/models/gemm-traffic.md and (the
 * bytes per memory level) docs/models/roofline.md. */
#ifndef RIDGE_INTENSITY_H
#define RIDGE_INTENSITY_H

#include <stdbool.h>
#include <stddef.h>

#include "align.h"
#include "gpu.h"
#include "roofline.h"

enum ridge_kernel {
	RIDGE_KERNEL_GEMM,       /* tensor-core GEMM with the library's default CTA tile */
	RIDGE_KERNEL_GEMM_NAIVE, /* one thread per output, no reuse */
	RIDGE_KERNEL_GEMM_TILED, /* shared-memory tiled, tile given (default 32) */
	RIDGE_KERNEL_GEMV,       /* M vectors (M=1: decode) against one matrix */
	RIDGE_KERNEL_VECTOR_ADD,
	RIDGE_KERNEL_ACTIVATION,
	RIDGE_KERNEL_RESIDUAL_RMSNORM,
	RIDGE_KERNEL_RMSNORM_LINEAR,
	RIDGE_KERNEL_REDUCTION,
	RIDGE_KERNEL_SOFTMAX,
	RIDGE_KERNEL_LAYERNORM,
	RIDGE_KERNEL_RMSNORM,
	RIDGE_KERNEL_ATTENTION,       /* standard: the S x S scores go through memory */
	RIDGE_KERNEL_FLASH_ATTENTION, /* tiled, online softmax, scores stay on chip */
	RIDGE_KERNEL_COUNT
};

/* "gemm", "gemm-naive", ...; NULL when out of range. */
const char *intensity_kernel_name(enum ridge_kernel kernel);
bool intensity_kernel_parse(const char *text, enum ridge_kernel *out);
/* Every name, space-separated: for error messages. */
const char *intensity_kernel_list(void);

/* RIDGE_TRAFFIC_DEFAULT (zero, what a shape left alone gets) resolves per
 * kernel through intensity_default_traffic(): the choice the H200
 * measurements support (docs/models/intensity.md, "Default traffic"). */
enum ridge_traffic { RIDGE_TRAFFIC_DEFAULT, RIDGE_TRAFFIC_TILED, RIDGE_TRAFFIC_COMPULSORY, RIDGE_TRAFFIC_L2AWARE };
/* "default", "tiled", "compulsory", "l2-aware" (the resolved model of a tiled
 * GEMM on a GPU: intensity_gemm_l2; not a --traffic choice). */
const char *intensity_traffic_name(enum ridge_traffic traffic);
/* "tiled", "compulsory" and "default". */
bool intensity_traffic_parse(const char *text, enum ridge_traffic *out);

/* The library's default CTA tile (CUTLASS 3.x threadblock tile, the textbook,
 * section 7.2.4) and FlashAttention's query tile. */
#define RIDGE_LIBRARY_TILE_M 128
#define RIDGE_LIBRARY_TILE_N 128
#define RIDGE_LIBRARY_TILE_K 64
#define RIDGE_TILED_GEMM_TILE 32 /* the textbook's TILE_SIZE */
#define RIDGE_FLASH_QUERY_TILE 128

/* A kernel and its shape. Dimensions are whole numbers >= 1; 0 means "not
 * given" (the kernel's default applies, or it is an error when required).
 * Which fields each kernel reads: docs/models/intensity.md and `ridge roofline --help`. */
struct ridge_kernel_shape {
	enum ridge_kernel kernel;
	enum ridge_dtype dtype;
	enum ridge_traffic traffic;
	double m, n, k;
	double batch;
	double tile_m, tile_n, tile_k; /* GEMM CTA tile; tile_m is the flash query tile */
	double seq, heads, kv_heads, head_dim;
	bool causal;
	double window;                 /* flash-attention, causal: each query sees its last `window` keys
					  (a sliding-window layer); 0: all of them */
	bool chunked;                  /* with window: the keys of its own chunk of `window` (Llama-4) */
	bool fused;                    /* residual-rmsnorm, rmsnorm-linear: one kernel instead of two */
	int passes;                    /* softmax reads of the input: 1, 2 (online, default) or 3 (safe) */
	double flops_per_element;      /* activation: default 1 */
	enum ridge_gemm_layout layout; /* GEMMs: how A and B lie in memory (align.h); default linear */
};

/* The traffic model a shape uses: its own when given, else the kernel's
 * default (never RIDGE_TRAFFIC_DEFAULT):
 *   tiled       gemm-naive (the textbook's no-reuse count), gemm-tiled and a gemm
 *               with an explicit tile (the user's algorithm; all three become
 *               l2-aware once the GPU is known: intensity_gemm_l2), the unfused
 *               residual-rmsnorm and rmsnorm-linear and softmax in passes (each
 *               kernel or pass streams tensors larger than L2 through memory);
 *   compulsory  the library gemm (its default tile), gemv, attention,
 *               flash-attention and the element-wise kernels (L2 catches
 *               the re-reads of tiles; measured on the H200: cuBLAS bf16
 *               runs 4096^3 at 800 TFLOP/s, which the tiled count's 63
 *               FLOP/byte would forbid). */
enum ridge_traffic intensity_default_traffic(const struct ridge_kernel_shape *shape);

#define RIDGE_KERNEL_MAX_TERMS 10

/* One named part of a kernel's traffic: tensor bytes x times read. */
struct ridge_kernel_term {
	const char *name; /* "A (M x K)", "scores S write", ... */
	double bytes;     /* total, times included */
	double times;     /* how many times the tensor is read or written */
	bool write;
};

struct ridge_kernel_flop_term {
	const char *name;
	double flops;
};

/* L2-aware DRAM traffic of a CTA-tiled GEMM (intensity_gemm_l2): which A and B
 * panels stay in L2 between the CTAs that share them, from the tile, the order
 * CTAs are issued in, the wave (CTAs resident at once) and the L2 capacity.
 * The model and its sources: docs/models/gemm-traffic.md. */
struct ridge_gemm_l2 {
	bool modelled;           /* false: not a tiled GEMM, or the GPU has no L2 size */
	bool raster_along_n;     /* consecutive CTAs walk along N (one row of tiles) */
	const char *raster;      /* where the order comes from, in words */
	double tiles_m, tiles_n; /* ceil(M / tile_m), ceil(N / tile_n), per batch element */
	double ctas_per_sm;      /* CTAs one SM holds at once */
	const char *ctas_per_sm_why;
	double wave_ctas;          /* sm_count x ctas_per_sm */
	double waves;              /* ceil(tiles / wave_ctas) */
	double l2_bytes;           /* the GPU's L2 */
	double l2_usable_fraction; /* of it, what one copy of shared panels can use */
	const char *l2_usable_why;
	double l2_capacity;          /* l2_bytes x l2_usable_fraction */
	double wave_footprint;       /* bytes of the A and B panels (all of K) one wave touches */
	double reuse_footprint;      /* the same over the reuse distance of the walked panels */
	bool a_resident, b_resident; /* the panels survive in L2 until their next use */
	double a_reads, b_reads;     /* times A and B stream from DRAM (1: compulsory) */
	double hbm_bytes;            /* A x a_reads + B x b_reads + C, x batch */
	double l2_traffic;           /* what the CTAs ask of L2: the tiled count */
	/* The library GEMM (its own tile: intensity_gemm_l2's library model,
	 * docs/models/gemm-traffic.md, "The library GEMM"): */
	bool library;          /* the library's tiling, swizzle and drift below */
	double tile_m, tile_n; /* the CTA tile the model assumes */
	double group_tiles;    /* N-tiles per swizzle group; the CTAs take the M-tiles in turn */
	double wave_bytes;     /* A and B panels each wave reads once, summed over the waves */
	double drift_x;        /* a tile's time at peak x sqrt(waves) over the L2's residency time */
	double drift_factor;   /* the re-reads of CTAs drifting apart: 1 + slope x max(0, drift_x - onset) */
};

/* The library GEMM's DRAM model (intensity_gemm_l2): cuBLAS's sm90 kernels
 * as ncu shows them on an H100 (measurements/2026-12-06-h100-gemm-library):
 * 128 x 256 tiles (M x N), persistent CTAs walking groups of 8 N-tiles. The
 * drift onset and slope were fitted to that run's 18 shapes (median 3.8 %,
 * max 9.8 %); held out: 12 shapes of a second lease (measurements/
 * 2026-12-06-h100-moe-gemm/gemm_dram.csv, median 9.0 %). */
#define RIDGE_LIBRARY_DRAM_TILE_M 128
#define RIDGE_LIBRARY_DRAM_TILE_N 256
#define RIDGE_LIBRARY_DRAM_GROUP 8
#define RIDGE_LIBRARY_DRIFT_ONSET 64.0
#define RIDGE_LIBRARY_DRIFT_SLOPE 0.009

/* The naive GEMM's traffic from its access pattern (intensity_gemm_l2 fills
 * it for gemm-naive; docs/models/gemm-traffic.md, "The naive kernel"). The
 * kernel (kernels/common/validate.h, rv_gemm_naive; the textbook's section
 * 7.2.1) runs 32 x 32 blocks of threads, threadIdx.x along N, one output per
 * thread. A warp of W threads covers W/32 rows and 32 columns; at every k it
 * loads A[row][k], one address per row (a broadcast), and B[k][col..col+31],
 * 32 consecutive elements (coalesced); at the end it stores its 32 outputs
 * of each row. L1 serves every such load; it misses once per line of a block's
 * rows of A (re-used over the next 128 / e values of k) and once per B line of
 * a step k (re-used by the block's other warps): a block's live lines (32 of
 * A, a few of B) are a few KiB, far below any L1. */
struct ridge_naive_gemm {
	bool modelled;
	double warp_size;       /* W: the GPU's warp (32 where unknown) */
	double warps;           /* warps with work: batch x ceil(M / (W/32)) x ceil(N / 32) */
	double a_wavefronts;    /* per warp per k: W/32 broadcasts */
	double b_wavefronts;    /* per warp per k: the 128-byte lines 32 elements of a B row touch,
				 * averaged over where the rows start (1 for fp32 with N % 32 == 0) */
	double c_wavefronts;    /* per warp: its store of C (the same alignment as B) */
	double l1_wavefronts;   /* warps x (K x (a + b) + c) */
	double l1_bytes;        /* l1_wavefronts x 128 B: the L1 data path's occupancy, the
				 * shared-memory level's bytes */
	double l1_sector_bytes; /* the 32-byte sectors those loads and stores ask for (ncu's
				 * l1tex__t_bytes): a broadcast is one sector */
	double b_sector_bytes;  /* sectors of one warp's 32 elements of B, x 32 B (averaged) */
	double l2_bytes;        /* L1 misses and C: each block's rows of A and columns of B once,
				 * b x (M K e tiles_n + tiles_m tiles_n K b_sector_bytes + M N e) */
};

struct ridge_kernel_cost {
	enum ridge_traffic traffic; /* the model `bytes` follows (tiled or compulsory; resolved) */
	double flops;
	double bytes; /* under the chosen traffic model */
	double read_bytes, write_bytes;
	double tiled_bytes;      /* the algorithm's global traffic */
	double compulsory_bytes; /* every tensor once */
	double intensity;        /* flops / bytes */
	bool has_alternative;    /* fusable kernels: the other variant's bytes */
	double alternative_bytes;
	bool matrix_work;              /* matrix multiplies: tensor cores apply when eligible */
	double tile_m, tile_n, tile_k; /* the tile the tiled model used (0 when none) */
	double smem_per_block;         /* tiled GEMMs: one stage of A and B tiles, bytes */
	const char *model;             /* one line: what the chosen traffic counts */
	int term_count;                /* terms of the chosen model */
	struct ridge_kernel_term terms[RIDGE_KERNEL_MAX_TERMS];
	int flop_term_count;
	struct ridge_kernel_flop_term flop_terms[RIDGE_KERNEL_MAX_TERMS];
	struct ridge_gemm_l2 l2;       /* filled by intensity_gemm_l2 / intensity_kernel_on */
	struct ridge_naive_gemm naive; /* gemm-naive on a GPU: intensity_gemm_l2 */
};

/* The shape fields a kernel reads (a caller rejects the others). */
enum {
	RIDGE_FIELD_M = 1 << 0,
	RIDGE_FIELD_N = 1 << 1,
	RIDGE_FIELD_K = 1 << 2,
	RIDGE_FIELD_BATCH = 1 << 3,
	RIDGE_FIELD_TILE = 1 << 4,
	RIDGE_FIELD_SEQ = 1 << 5,
	RIDGE_FIELD_HEADS = 1 << 6,
	RIDGE_FIELD_KV_HEADS = 1 << 7,
	RIDGE_FIELD_HEAD_DIM = 1 << 8,
	RIDGE_FIELD_CAUSAL = 1 << 9,
	RIDGE_FIELD_FUSED = 1 << 10,
	RIDGE_FIELD_PASSES = 1 << 11,
	RIDGE_FIELD_FLOPS_PER_ELEMENT = 1 << 12,
	RIDGE_FIELD_TRAFFIC = 1 << 13,
};
unsigned intensity_kernel_fields(enum ridge_kernel kernel);
/* One line on what the kernel is and which fields it needs. */
const char *intensity_kernel_summary(enum ridge_kernel kernel);

/* FLOPs and bytes of a kernel. Returns 0, or -1 with err naming the missing
 * or bad dimension ("--seq is required", "tile 0 x 128 ..."). */
int intensity_kernel(const struct ridge_kernel_shape *shape, struct ridge_kernel_cost *out, char *err, size_t err_len);

/* The L2-aware DRAM traffic of a tiled GEMM (gemm-tiled, gemm-naive's 32 x 32
 * thread blocks, gemm with an explicit --tile) on gpu, into cost->l2; for
 * other kernels, or a GPU without an L2 size, cost->l2.modelled is false and
 * nothing else changes. For gemm-naive also its access-pattern counts at L1
 * and L2 (cost->naive, with the GPU's warp size). When the shape left its
 * traffic model alone (not --traffic tiled or compulsory), a gemm-tiled,
 * gemm-naive or tiled gemm's `bytes` become the L2-aware HBM bytes (traffic
 * RIDGE_TRAFFIC_L2AWARE); intensity_levels then puts hbm_bytes at HBM and the
 * tiled re-reads (the naive kernel: its L1 misses) at L2. cost must come from
 * intensity_kernel for shape. Returns 0, or -1 with err. */
int intensity_gemm_l2(const struct ridge_gpu *gpu, const struct ridge_kernel_shape *shape,
		      struct ridge_kernel_cost *cost, char *err, size_t err_len);

/* intensity_kernel, then intensity_gemm_l2 on gpu: what every caller with a GPU uses. */
int intensity_kernel_on(const struct ridge_gpu *gpu, const struct ridge_kernel_shape *shape,
			struct ridge_kernel_cost *out, char *err, size_t err_len);

/* The bytes each memory level carries, for the hierarchical roofline
 * (roofline_hierarchy); -1 where the level is not modelled for the kernel.
 *   HBM   what reaches DRAM: for a tiled GEMM (or gemm-naive) whose traffic
 *         was given (--traffic tiled or compulsory), its `bytes`; for one
 *         whose cost->l2 is modelled (intensity_gemm_l2), its hbm_bytes;
 *         gemm-naive without that, its `bytes`; else the compulsory traffic
 *         where a kernel's re-reads are re-reads of tiles by neighbouring CTAs
 *         (GEMMs, GEMV, attention, FlashAttention: L2 catches them); the chosen variant's own traffic
 *         for multi-kernel variants (unfused residual-rmsnorm and
 *         rmsnorm-linear, softmax in several passes), whose intermediate or
 *         repeated pass goes through memory; every tensor once elsewhere.
 *   L2    the global-memory requests of the algorithm at CTA granularity:
 *         the tiled traffic (the naive GEMM: its L1 misses, cost->naive's
 *         l2_bytes, each 32 x 32 block's rows of A and columns of B once;
 *         with --traffic tiled, every request). Not placed (-1) for
 *         the library gemm with its default tile: the library picks its tile
 *         and cluster per shape (on the H200, 256 x 128 CTAs in pairs that
 *         multicast: ncu counted 1.03 GB of L2 traffic for 4096^3 and 8.17 GB
 *         for 8192^3, half of what 128 x 128 tiles would re-read), and its L2
 *         time stayed below its compute time in every measured shape.
 *   SMEM  what the SM's L1 / shared memory serves, where the code makes
 *         per-thread requests: the naive GEMM's L1 wavefronts x 128 B
 *         (cost->naive; without it, 2*M*N*K element reads), and the
 *         shared-memory tiled GEMM's 2*M*N*K shared-memory reads plus its
 *         tile stores; -1 for the others (library kernels stage tiles once).
 * Returns 0, or -1 with err (a cost not made by intensity_kernel for shape). */
int intensity_levels(const struct ridge_kernel_shape *shape, const struct ridge_kernel_cost *cost,
		     double bytes[RIDGE_LEVEL_COUNT], char *err, size_t err_len);

struct ridge_kernel_path;
/* intensity_levels for the compute path the kernel runs on (intensity_ceiling):
 * the shared-memory count of gemm-tiled is the textbook's kernel, one thread
 * per output reading one element of A and one of B per multiply-add; a tile
 * on tensor cores (path->uses_matrix) or larger than one thread per output
 * (tile_m x tile_n above the GPU's threads per block) reads its operands as
 * fragments or register blocks at a fraction of that, so its shared-memory
 * level is not placed. Everything else as intensity_levels. */
int intensity_levels_on(const struct ridge_gpu *gpu, const struct ridge_kernel_shape *shape,
			const struct ridge_kernel_cost *cost, const struct ridge_kernel_path *path,
			double bytes[RIDGE_LEVEL_COUNT], char *err, size_t err_len);

/* Elements that make 16 bytes of dtype: 8 for bf16. */
double intensity_alignment_elements(enum ridge_dtype dtype);

/* The compute path a kernel runs on and its ceiling. */
struct ridge_kernel_path {
	/* model/align.c's align_gemm_rule() on the kernel's GEMM(s), the one
	 * tensor-core rule ridge has: */
	bool tensor_eligible; /* it runs on tensor cores (cuBLAS >= 11: any shape, except
				  * fp8 off its required conditions or layout) */
	bool fast_path;       /* and on cuBLAS's aligned kernels: every condition holds */
	bool has_rule;        /* rule holds the GEMM's conditions (GEMMs, GEMV, rmsnorm-linear) */
	struct ridge_gemm_tensor_rule rule;
	char reason[RIDGE_LONG_TEXT];   /* why not eligible or not on the fast path; "" when both */
	bool uses_matrix;               /* the ceiling is the matrix rate */
	enum ridge_dtype compute_dtype; /* the rate used: fp32 when the dtype has no vector rate */
	char note[RIDGE_LONG_TEXT];     /* a fallback taken, in words; empty when none */
	double padded_n;                /* > 0: an fp8/fp4 GEMM misaligned only in N (the tokens),
					 * priced on tensor cores with N padded to this, as engines do */
};

/* Chooses the rate for a kernel: matrix work that is tensor-core eligible runs
 * at the matrix rate (unless no_tensor), off the fast path too (the matrix
 * peak is then an upper bound, said in note); everything else at the dtype's vector
 * rate, or the fp32 vector rate where the dtype has none (an fp8 softmax
 * computes in fp32). Errors: the GPU has no path for the dtype at all, or
 * sparse asked for vector work. */
int intensity_ceiling(const struct ridge_gpu *gpu, const struct ridge_kernel_shape *shape,
		      const struct ridge_kernel_cost *cost, bool no_tensor, bool sparse, enum ridge_level level,
		      struct ridge_roofline_ceiling *ceiling, struct ridge_kernel_path *path, char *err,
		      size_t err_len);

#endif
