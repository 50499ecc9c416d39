/* Tensor-core alignment of GEMM dimensions, and the tile and wave
 * quantization of a GEMM on a GPU.
 *
 * For a dtype on a GPU, align_rule() gives two multiples, in elements:
 *   required:    16 bytes of elements (8 bf16/fp16, 4 tf32/fp32, 16 fp8/int8,
 *                2 fp64, 32 fp4). Below it cuBLAS/cuBLASLt leave their fast
 *                tensor-core kernels (a slower kernel for unaligned operands,
 *                or padding; cuBLAS < 11 and strict kernels use no tensor
 *                cores at all).
 *   recommended: 128 bytes of elements on NVIDIA compute capability >= 8.0
 *                and on AMD (64 bf16/fp16, 32 tf32, 128 fp8/int8, 16 fp64);
 *                on older NVIDIA GPUs it equals the required multiple.
 * Sources and the argument are in docs/models/alignment.md.
 *
 * align_tiling() counts CTA tiles and waves for an M x N output and the
 * efficiency lost to partial tiles and to the last partial wave (NVIDIA,
 * "Matrix Multiplication Background", section 3).
 *
 * align_model_gemms() derives the GEMMs of one decoder layer and the LM head
 * from a Hugging Face style config; align_swiglu() is the Llama reference
 * code's SwiGLU intermediate size. All exact: integers throughout, one
 * division at the end of each ratio. */
#ifndef RIDGE_ALIGN_H
#define RIDGE_ALIGN_H

#include <stdbool.h>
#include <stddef.h>

#include "gpu.h"

/* cuBLAS takes dimensions as int: every dimension is 1..2^31-1. */
#define RIDGE_ALIGN_MAX_DIM 2147483647LL
/* align_gemm_rule() takes larger GEMMs (cuBLAS's 64-bit interface) up to 2^53,
 * where doubles still count exactly. */
#define RIDGE_ALIGN_MAX_GEMM_DIM 9007199254740992LL
/* Largest CTA tile edge accepted (CUTLASS tiles are at most 256). */
#define RIDGE_ALIGN_MAX_TILE 4096

enum ridge_align_severity {
	RIDGE_ALIGN_OK,      /* a multiple of the recommended size */
	RIDGE_ALIGN_WARNING, /* 16-byte aligned, below the recommended multiple */
	RIDGE_ALIGN_ERROR    /* not a multiple of 16 bytes */
};

/* "ok", "warning", "error". */
const char *align_severity_name(enum ridge_align_severity severity);

struct ridge_align_rule {
	enum ridge_dtype dtype;
	long long required_multiple;    /* elements (16 bytes) */
	long long recommended_multiple; /* elements */
	int required_bytes;             /* 16 */
	int recommended_bytes;          /* 128, or 16 before compute capability 8.0 */
	bool matrix_path;               /* the GPU has a dense matrix (tensor-core) rate for dtype */
	bool any_path;                  /* the GPU has any rate (matrix or vector) for dtype */
	const char *path_note;          /* why there is no matrix path, or NULL */
	bool alignment_required;        /* fp8: cuBLAS has no kernel off the 16-byte conditions */
	bool tn_only;                   /* fp8 on compute capability 8.9 and 9.x: cuBLASLt's TN layout only */
	const char *basis;              /* where the multiples come from */
};

/* Returns 0, or -1 with a message for an unknown dtype. */
int align_rule(const struct ridge_gpu *gpu, enum ridge_dtype dtype, struct ridge_align_rule *rule, char *err,
	       size_t err_len);

/* The smallest multiple of `multiple` at or above value; -1 on overflow or a
 * non-positive argument. */
long long align_round_up(long long value, long long multiple);

struct ridge_align_dim {
	long long value;
	long long required_multiple, recommended_multiple;
	long long suggested;             /* nearest multiple of required_multiple at or above value */
	long long suggested_recommended; /* nearest multiple of recommended_multiple at or above */
	enum ridge_align_severity severity;
};

/* Checks one dimension (1..RIDGE_ALIGN_MAX_DIM). Returns 0, or -1 with a message. */
int align_check_dim(const struct ridge_align_rule *rule, long long value, struct ridge_align_dim *out, char *err,
		    size_t err_len);

/* ---- the tensor-core rule for one GEMM (one rule for gemm, align, the TUI
 * and the validation) ----
 *
 * cuBLAS's "Tensor Core Usage" (cuBLAS >= 11.0) states its conditions on the
 * column-major call C = op(A) op(B), C m x n, op(A) m x k:
 *   (op_A == N ? m : k) * sizeof(A) % 16 == 0    lda * sizeof(A) % 16 == 0
 *   (op_B == N ? k : n) * sizeof(B) % 16 == 0    ldb * sizeof(B) % 16 == 0
 *   m * sizeof(C) % 16 == 0                      ldc * sizeof(C) % 16 == 0
 * (and 16-byte aligned pointers, which ridge assumes). Outside them cuBLAS
 * still uses tensor cores, through slower kernels ("the library will pick a
 * Tensor Core enabled implementation wherever it determines that it would
 * provide the best performance"); for FP8 the conditions are required
 * ("you must ensure ... meet the optimal requirements listed above"), and
 * cuBLASLt's FP8 kernels on Ada (8.9) and Hopper (9.x) take only the TN
 * layout ("A must be transposed and B non-transposed"). ridge takes C in
 * the dtype of A and B (PyTorch's output dtype; the strictest case for fp8).
 *
 * A ridge GEMM is row-major, Y[M,N] = X[M,K] B, as PyTorch stores it:
 *   linear  B = W^T with W[N,K] row-major (F.linear, nn.Linear): cuBLAS
 *           computes Y^T = W X^T as op_A = T (A = W, lda = K), op_B = N
 *           (B = X, ldb = K), m = N, n = M, k = K, ldc = N: the TN layout.
 *           Conditions on K and N only: M (tokens) is free, as the H200
 *           measured (8192 x 8191 tokens x 8192: 0.97x the time per FLOP).
 *   matmul  B[K,N] row-major (torch.matmul of two row-major tensors): cuBLAS
 *           NN with A = B (lda = N), B = X (ldb = K), m = N, n = M, k = K.
 *           The same conditions on N and K, but not TN: no FP8 on 8.9/9.x. */
enum ridge_gemm_layout { RIDGE_GEMM_LAYOUT_LINEAR, RIDGE_GEMM_LAYOUT_MATMUL };

/* "linear", "matmul"; parse returns false for an unknown name. */
const char *align_layout_name(enum ridge_gemm_layout layout);
bool align_layout_parse(const char *text, enum ridge_gemm_layout *out);

/* The column-major cuBLAS call. */
struct ridge_blas_call {
	bool trans_a, trans_b; /* op_A, op_B == T */
	long long m, n, k, lda, ldb, ldc;
};

/* The cuBLAS call for a row-major M x N x K GEMM in layout. */
void align_blas_call(enum ridge_gemm_layout layout, long long m, long long n, long long k, struct ridge_blas_call *out);

#define RIDGE_GEMM_CONDITIONS 6

struct ridge_gemm_condition {
	const char *term; /* "k [op_A=T]", "lda", ... in cuBLAS's terms */
	char dim;         /* the ridge dimension it equals: 'M', 'N' or 'K' */
	long long value;
	long long multiple;    /* elements in 16 bytes */
	long long recommended; /* elements in the recommended bytes */
	bool ok;               /* a multiple of `multiple` */
	bool recommended_ok;
};

struct ridge_gemm_tensor_rule {
	struct ridge_align_rule rule;
	struct ridge_blas_call call;
	enum ridge_gemm_layout layout;
	struct ridge_gemm_condition conditions[RIDGE_GEMM_CONDITIONS];
	bool aligned;                       /* all six conditions hold: cuBLAS's fast tensor-core kernels */
	bool required;                      /* the conditions are required (fp8): no kernel otherwise */
	bool layout_ok;                     /* the layout has a tensor-core kernel (fp8 on 8.9/9.x: TN only) */
	bool tensor_cores;                  /* the GEMM runs on tensor cores: a matrix rate, the layout, and the
			    * conditions where required */
	enum ridge_align_severity severity; /* error: a condition fails; warning: below recommended */
	char reason[RIDGE_LONG_TEXT];       /* why not aligned or not on tensor cores; "" when aligned */
};

/* The rule for a row-major M x N x K GEMM in dtype on gpu (each dimension
 * 1..RIDGE_ALIGN_MAX_GEMM_DIM). Returns 0, or -1 with a message. */
int align_gemm_rule(const struct ridge_gpu *gpu, enum ridge_dtype dtype, enum ridge_gemm_layout layout, long long m,
		    long long n, long long k, struct ridge_gemm_tensor_rule *out, char *err, size_t err_len);

/* A CTA (thread-block) tile of the output and how many run at once per SM. */
struct ridge_align_tile {
	int m, n;        /* 128 x 128 by default */
	int ctas_per_sm; /* concurrent CTAs per SM; 1 by default */
};

struct ridge_align_tiling {
	long long m, n;
	long long tiles_m, tiles_n, tiles; /* ceil(M/tm), ceil(N/tn), their product */
	long long slots;                   /* CTAs running at once: SMs x CTAs per SM */
	long long waves;                   /* ceil(tiles / slots) */
	long long last_wave_tiles;         /* tiles in the last wave (1..slots) */
	double waves_exact;                /* tiles / slots */
	double tile_efficiency;            /* M*N / (tiles_m*tm * tiles_n*tn) */
	double wave_efficiency;            /* tiles / (waves * slots) */
	double efficiency;                 /* M*N / (waves * slots * tm * tn) = product of the two */
};

/* Tile and wave quantization of an M x N output (K does not enter: every
 * tile runs the same K loop). Returns 0, or -1 with a message. */
int align_tiling(long long m, long long n, const struct ridge_align_tile *tile, int sm_count,
		 struct ridge_align_tiling *out, char *err, size_t err_len);

/* SwiGLU intermediate size as Meta's Llama reference code computes it
 * (llama/model.py FeedForward):
 *   base   = floor(2 * (4 d) / 3)
 *   scaled = floor(ffn_dim_multiplier * base)   (when a multiplier is given)
 *   size   = multiple_of * ceil(scaled / multiple_of)
 * d = 8192, multiple_of = 256: base 21845, size 22016;
 * Llama-3-70B (d 8192, 1.3, 1024): 28672; Llama-3-8B (4096, 1.3, 1024): 14336. */
struct ridge_align_swiglu {
	long long d_model;
	bool has_multiplier;
	double ffn_dim_multiplier;
	long long multiple_of;
	long long base;         /* floor(8d/3): the unrounded 8/3 d */
	long long scaled;       /* after the multiplier */
	long long intermediate; /* rounded up to multiple_of */
};

int align_swiglu(long long d_model, bool has_multiplier, double ffn_dim_multiplier, long long multiple_of,
		 struct ridge_align_swiglu *out, char *err, size_t err_len);

/* The keys of a Hugging Face config.json that shape a decoder's GEMMs. */
struct ridge_align_model {
	long long hidden_size;
	long long intermediate_size;
	long long num_attention_heads;
	long long num_key_value_heads; /* default: num_attention_heads */
	long long head_dim;            /* default: hidden_size / num_attention_heads */
	long long vocab_size;
	long long num_hidden_layers;
	bool has_num_key_value_heads, has_head_dim;
};

enum ridge_align_gemm_id {
	RIDGE_GEMM_Q,
	RIDGE_GEMM_K,
	RIDGE_GEMM_V,
	RIDGE_GEMM_O,
	RIDGE_GEMM_GATE,
	RIDGE_GEMM_UP,
	RIDGE_GEMM_DOWN,
	RIDGE_GEMM_LM_HEAD,
	RIDGE_GEMM_COUNT
};

/* One forward GEMM, Y[M,N] = X[M,K] W[N,K]^T, with M the tokens. */
struct ridge_align_gemm {
	const char *name;   /* "q_proj", ..., "lm_head" */
	const char *n_from; /* which config keys give N, e.g. "num_attention_heads x head_dim" */
	const char *k_from;
	long long m, n, k;
	long long count; /* per forward pass: num_hidden_layers, or 1 for lm_head */
	double flops;    /* 2 M N K count */
};

/* Fills in the defaults and checks the config (all positive, head_dim
 * derivable, heads a multiple of KV heads). Returns 0, or -1 with a message
 * naming the key. */
int align_model_resolve(struct ridge_align_model *model, char *err, size_t err_len);

/* The GEMMs of a resolved model for `tokens` tokens (M). Returns 0, or -1. */
int align_model_gemms(const struct ridge_align_model *model, long long tokens,
		      struct ridge_align_gemm gemms[RIDGE_GEMM_COUNT], char *err, size_t err_len);

#endif
