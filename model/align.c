#include "align.h"
#include "names.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The byte rules (docs/models/alignment.md):
 *  - 16 bytes: cuBLAS "Tensor Core Usage" (cuBLAS >= 11.0 uses tensor cores for
 *    any shape, but its fast kernels need m, n, k, lda, ldb, ldc to be
 *    multiples of 16 bytes); cuBLASLt's FP8 kernels require 16-byte multiples
 *    (PyTorch's _scaled_mm checks divisibility by 16).
 *  - 128 bytes: NVIDIA "Matrix Multiplication Background" user's guide,
 *    section 2.2, Table 1: "on A100, multiples of 64" (fp16), 32 (tf32),
 *    128 (int8), 16 (fp64): 128 bytes of elements in every case. The textbook's
 *    "multiples of 128 (FP8)" on Hopper is the same 128 bytes. */
enum { REQUIRED_BYTES = 16, RECOMMENDED_BYTES = 128 };

static const char basis_nvidia[] =
	"16 bytes: cuBLAS 'Tensor Core Usage' (fast tensor-core kernels need m, n, k and leading dimensions "
	"in multiples of 16 bytes; cuBLASLt FP8 needs them); 128 bytes: NVIDIA 'Matrix Multiplication "
	"Background' user's guide, Table 1 (A100 and later)";
static const char basis_nvidia_old[] =
	"16 bytes: cuBLAS 'Tensor Core Usage' and NVIDIA 'Matrix Multiplication Background' Table 1; the guide "
	"gives no larger multiple before compute capability 8.0";
static const char basis_amd[] =
	"NVIDIA's 16- and 128-byte rules applied by analogy: AMD publishes no equivalent table for "
	"rocBLAS/hipBLASLt, so treat these multiples as a heuristic on this GPU";

static const char *const severity_names[] = {
	[RIDGE_ALIGN_OK] = "ok",
	[RIDGE_ALIGN_WARNING] = "warning",
	[RIDGE_ALIGN_ERROR] = "error",
};

MODEL_ENUM_NAME_OR(align_severity_name, enum ridge_align_severity, severity_names, "unknown")

int align_rule(const struct ridge_gpu *gpu, enum ridge_dtype dtype, struct ridge_align_rule *rule, char *err,
	       size_t err_len)
{
	double bytes = ridge_dtype_bytes(dtype);
	if (!(bytes > 0)) {
		snprintf(err, err_len, "unknown dtype %d", (int)dtype);
		return -1;
	}
	bool modern = gpu->vendor == RIDGE_VENDOR_AMD || gpu->cc_major >= 8;
	rule->dtype = dtype;
	rule->required_bytes = REQUIRED_BYTES;
	rule->recommended_bytes = modern ? RECOMMENDED_BYTES : REQUIRED_BYTES;
	/* bytes is 8, 4, 2, 1 or 0.5: both quotients are exact integers. */
	rule->required_multiple = (long long)(rule->required_bytes / bytes);
	rule->recommended_multiple = (long long)(rule->recommended_bytes / bytes);
	const struct ridge_peak *p = &gpu->peak[dtype];
	rule->matrix_path = p->has_matrix;
	rule->any_path = p->has_matrix || p->has_vector;
	rule->path_note = NULL;
	if (!rule->matrix_path) {
		double unused;
		const char *why = NULL;
		ridge_gpu_peak(gpu, dtype, RIDGE_PEAK_MATRIX, false, &unused, &why);
		rule->path_note = why ? why : "the GPU has no matrix (tensor-core) rate for this dtype";
	}
	/* cuBLAS "Tensor Core Usage": "To conduct matrix multiplication with FP8
	 * types ..., you must ensure that your matrix dimensions and pointers
	 * meet the optimal requirements listed above. Aside from FP8, there are
	 * no alignment restrictions"; cublasLtMatmul(): FP8 kernels need "A
	 * transposed and B non-transposed (the TN format)" on Ada and Hopper
	 * (Blackwell takes any layout: TransformerEngine's
	 * nvte_is_non_tn_fp8_gemm_supported()). */
	rule->alignment_required = gpu->vendor == RIDGE_VENDOR_NVIDIA && dtype == RIDGE_FP8 && rule->matrix_path;
	rule->tn_only = rule->alignment_required && ((gpu->cc_major == 8 && gpu->cc_minor == 9) || gpu->cc_major == 9);
	if (gpu->vendor == RIDGE_VENDOR_AMD)
		rule->basis = basis_amd;
	else
		rule->basis = modern ? basis_nvidia : basis_nvidia_old;
	return 0;
}

long long align_round_up(long long value, long long multiple)
{
	if (value <= 0 || multiple <= 0)
		return -1;
	long long q = value / multiple + (value % multiple != 0);
	if (q > LLONG_MAX / multiple)
		return -1;
	return q * multiple;
}

int align_check_dim(const struct ridge_align_rule *rule, long long value, struct ridge_align_dim *out, char *err,
		    size_t err_len)
{
	if (value < 1 || value > RIDGE_ALIGN_MAX_DIM) {
		snprintf(err, err_len, "dimension %lld is out of range (1..%lld)", value, RIDGE_ALIGN_MAX_DIM);
		return -1;
	}
	out->value = value;
	out->required_multiple = rule->required_multiple;
	out->recommended_multiple = rule->recommended_multiple;
	out->suggested = align_round_up(value, rule->required_multiple);
	out->suggested_recommended = align_round_up(value, rule->recommended_multiple);
	if (value % rule->required_multiple != 0)
		out->severity = RIDGE_ALIGN_ERROR;
	else if (value % rule->recommended_multiple != 0)
		out->severity = RIDGE_ALIGN_WARNING;
	else
		out->severity = RIDGE_ALIGN_OK;
	return 0;
}

int align_tiling(long long m, long long n, const struct ridge_align_tile *tile, int sm_count,
		 struct ridge_align_tiling *out, char *err, size_t err_len)
{
	if (m < 1 || m > RIDGE_ALIGN_MAX_DIM || n < 1 || n > RIDGE_ALIGN_MAX_DIM) {
		snprintf(err, err_len, "GEMM output %lld x %lld is out of range (each 1..%lld)", m, n,
			 RIDGE_ALIGN_MAX_DIM);
		return -1;
	}
	if (tile->m < 1 || tile->m > RIDGE_ALIGN_MAX_TILE || tile->n < 1 || tile->n > RIDGE_ALIGN_MAX_TILE) {
		snprintf(err, err_len, "tile %dx%d is out of range (each 1..%d)", tile->m, tile->n,
			 RIDGE_ALIGN_MAX_TILE);
		return -1;
	}
	if (tile->ctas_per_sm < 1 || tile->ctas_per_sm > 64) {
		snprintf(err, err_len, "CTAs per SM %d is out of range (1..64)", tile->ctas_per_sm);
		return -1;
	}
	if (sm_count < 1) {
		snprintf(err, err_len, "the GPU has no SM count (%d)", sm_count);
		return -1;
	}
	long long tm = tile->m, tn = tile->n;
	out->m = m;
	out->n = n;
	out->tiles_m = (m + tm - 1) / tm;
	out->tiles_n = (n + tn - 1) / tn;
	out->tiles = out->tiles_m * out->tiles_n;
	out->slots = (long long)sm_count * tile->ctas_per_sm;
	out->waves = (out->tiles + out->slots - 1) / out->slots;
	out->last_wave_tiles = out->tiles - (out->waves - 1) * out->slots;
	/* Exact integer numerators and denominators (each below 2^63 within the
	 * limits above), one division each. */
	unsigned long long useful = (unsigned long long)m * (unsigned long long)n;
	unsigned long long covered = (unsigned long long)(out->tiles_m * tm) * (unsigned long long)(out->tiles_n * tn);
	unsigned long long launched = (unsigned long long)(out->waves * out->slots) * (unsigned long long)(tm * tn);
	out->waves_exact = (double)out->tiles / (double)out->slots;
	out->tile_efficiency = (double)useful / (double)covered;
	out->wave_efficiency = (double)out->tiles / (double)(out->waves * out->slots);
	out->efficiency = (double)useful / (double)launched;
	return 0;
}

int align_swiglu(long long d_model, bool has_multiplier, double ffn_dim_multiplier, long long multiple_of,
		 struct ridge_align_swiglu *out, char *err, size_t err_len)
{
	if (d_model < 1 || d_model > RIDGE_ALIGN_MAX_DIM) {
		snprintf(err, err_len, "d_model %lld is out of range (1..%lld)", d_model, RIDGE_ALIGN_MAX_DIM);
		return -1;
	}
	if (multiple_of < 1 || multiple_of > RIDGE_ALIGN_MAX_DIM) {
		snprintf(err, err_len, "multiple_of %lld is out of range (1..%lld)", multiple_of, RIDGE_ALIGN_MAX_DIM);
		return -1;
	}
	if (has_multiplier && !(isfinite(ffn_dim_multiplier) && ffn_dim_multiplier > 0 && ffn_dim_multiplier <= 1e6)) {
		snprintf(err, err_len, "ffn_dim_multiplier %g is out of range (0..1e6]", ffn_dim_multiplier);
		return -1;
	}
	out->d_model = d_model;
	out->has_multiplier = has_multiplier;
	out->ffn_dim_multiplier = has_multiplier ? ffn_dim_multiplier : 1.0;
	out->multiple_of = multiple_of;
	/* Python's int(2 * (4 d) / 3): 8d/3 has a fractional part of 0, 1/3 or
	 * 2/3, so the float division truncates to the integer quotient. */
	out->base = 8 * d_model / 3;
	out->scaled = out->base;
	if (has_multiplier) {
		/* int(ffn_dim_multiplier * hidden_dim): the same double product. */
		double scaled = ffn_dim_multiplier * (double)out->base;
		if (!(scaled >= 1) || scaled > (double)RIDGE_ALIGN_MAX_DIM) {
			snprintf(err, err_len, "ffn_dim_multiplier %g x %lld = %g is out of range (1..%lld)",
				 ffn_dim_multiplier, out->base, scaled, RIDGE_ALIGN_MAX_DIM);
			return -1;
		}
		out->scaled = (long long)scaled;
	}
	out->intermediate = align_round_up(out->scaled, multiple_of);
	if (out->intermediate < 0) {
		snprintf(err, err_len, "SwiGLU size %lld rounded to %lld overflows", out->scaled, multiple_of);
		return -1;
	}
	return 0;
}

static int check_key(const char *key, long long value, char *err, size_t err_len)
{
	if (value < 1 || value > RIDGE_ALIGN_MAX_DIM) {
		snprintf(err, err_len, "%s: %lld is out of range (1..%lld)", key, value, RIDGE_ALIGN_MAX_DIM);
		return -1;
	}
	return 0;
}

int align_model_resolve(struct ridge_align_model *model, char *err, size_t err_len)
{
	if (check_key("hidden_size", model->hidden_size, err, err_len) ||
	    check_key("intermediate_size", model->intermediate_size, err, err_len) ||
	    check_key("num_attention_heads", model->num_attention_heads, err, err_len) ||
	    check_key("vocab_size", model->vocab_size, err, err_len) ||
	    check_key("num_hidden_layers", model->num_hidden_layers, err, err_len))
		return -1;
	if (!model->has_num_key_value_heads)
		model->num_key_value_heads = model->num_attention_heads;
	if (check_key("num_key_value_heads", model->num_key_value_heads, err, err_len))
		return -1;
	if (model->num_attention_heads % model->num_key_value_heads != 0) {
		snprintf(err, err_len,
			 "num_attention_heads (%lld) is not a multiple of num_key_value_heads (%lld): grouped-query "
			 "attention shares each KV head among a whole number of query heads",
			 model->num_attention_heads, model->num_key_value_heads);
		return -1;
	}
	if (!model->has_head_dim) {
		if (model->hidden_size % model->num_attention_heads != 0) {
			snprintf(err, err_len,
				 "hidden_size (%lld) is not divisible by num_attention_heads (%lld): give head_dim",
				 model->hidden_size, model->num_attention_heads);
			return -1;
		}
		model->head_dim = model->hidden_size / model->num_attention_heads;
	}
	if (check_key("head_dim", model->head_dim, err, err_len))
		return -1;
	if (model->num_attention_heads > RIDGE_ALIGN_MAX_DIM / model->head_dim) {
		snprintf(err, err_len, "num_attention_heads x head_dim (%lld x %lld) is out of range (1..%lld)",
			 model->num_attention_heads, model->head_dim, RIDGE_ALIGN_MAX_DIM);
		return -1;
	}
	return 0;
}

int align_model_gemms(const struct ridge_align_model *model, long long tokens,
		      struct ridge_align_gemm gemms[RIDGE_GEMM_COUNT], char *err, size_t err_len)
{
	if (tokens < 1 || tokens > RIDGE_ALIGN_MAX_DIM) {
		snprintf(err, err_len, "tokens %lld is out of range (1..%lld)", tokens, RIDGE_ALIGN_MAX_DIM);
		return -1;
	}
	long long hidden = model->hidden_size, inter = model->intermediate_size, layers = model->num_hidden_layers;
	long long q_dim = model->num_attention_heads * model->head_dim;
	long long kv_dim = model->num_key_value_heads * model->head_dim;
	/* Each projection once per layer; the LM head once. */
	const struct {
		const char *name, *n_from, *k_from;
		long long n, k, count;
	} table[RIDGE_GEMM_COUNT] = {
		[RIDGE_GEMM_Q] = { "q_proj", "num_attention_heads x head_dim", "hidden_size", q_dim, hidden, layers },
		[RIDGE_GEMM_K] = { "k_proj", "num_key_value_heads x head_dim", "hidden_size", kv_dim, hidden, layers },
		[RIDGE_GEMM_V] = { "v_proj", "num_key_value_heads x head_dim", "hidden_size", kv_dim, hidden, layers },
		[RIDGE_GEMM_O] = { "o_proj", "hidden_size", "num_attention_heads x head_dim", hidden, q_dim, layers },
		[RIDGE_GEMM_GATE] = { "gate_proj", "intermediate_size", "hidden_size", inter, hidden, layers },
		[RIDGE_GEMM_UP] = { "up_proj", "intermediate_size", "hidden_size", inter, hidden, layers },
		[RIDGE_GEMM_DOWN] = { "down_proj", "hidden_size", "intermediate_size", hidden, inter, layers },
		[RIDGE_GEMM_LM_HEAD] = { "lm_head", "vocab_size", "hidden_size", model->vocab_size, hidden, 1 },
	};
	for (int i = 0; i < RIDGE_GEMM_COUNT; i++) {
		struct ridge_align_gemm *g = &gemms[i];
		g->name = table[i].name;
		g->n_from = table[i].n_from;
		g->k_from = table[i].k_from;
		g->m = tokens;
		g->n = table[i].n;
		g->k = table[i].k;
		g->count = table[i].count;
		g->flops = 2.0 * (double)g->m * (double)g->n * (double)g->k * (double)g->count;
	}
	return 0;
}

/* ---- the tensor-core rule for one GEMM ---- */

const char *align_layout_name(enum ridge_gemm_layout layout)
{
	return layout == RIDGE_GEMM_LAYOUT_MATMUL ? "matmul" : "linear";
}

bool align_layout_parse(const char *text, enum ridge_gemm_layout *out)
{
	if (text && strcmp(text, "linear") == 0)
		*out = RIDGE_GEMM_LAYOUT_LINEAR;
	else if (text && strcmp(text, "matmul") == 0)
		*out = RIDGE_GEMM_LAYOUT_MATMUL;
	else
		return false;
	return true;
}

void align_blas_call(enum ridge_gemm_layout layout, long long m, long long n, long long k, struct ridge_blas_call *out)
{
	/* Row-major Y[M,N] is column-major Y^T[N,M]: cuBLAS computes Y^T = B^T X^T
	 * with its m = N, n = M (align.h). */
	*out = (struct ridge_blas_call){ .m = n, .n = m, .k = k, .ldb = k, .ldc = n };
	if (layout == RIDGE_GEMM_LAYOUT_LINEAR) {
		out->trans_a = true; /* W[N,K] row-major is column-major K x N: op_A = T */
		out->lda = k;
	} else {
		out->lda = n; /* B[K,N] row-major is column-major N x K: op_A = N */
	}
}

int align_gemm_rule(const struct ridge_gpu *gpu, enum ridge_dtype dtype, enum ridge_gemm_layout layout, long long m,
		    long long n, long long k, struct ridge_gemm_tensor_rule *out, char *err, size_t err_len)
{
	memset(out, 0, sizeof *out);
	const long long dims[3] = { m, n, k };
	for (int i = 0; i < 3; i++) {
		if (dims[i] < 1 || dims[i] > RIDGE_ALIGN_MAX_GEMM_DIM) {
			snprintf(err, err_len, "%c = %lld is out of range (1..%lld)", "MNK"[i], dims[i],
				 RIDGE_ALIGN_MAX_GEMM_DIM);
			return -1;
		}
	}
	if (align_rule(gpu, dtype, &out->rule, err, err_len) != 0)
		return -1;
	const struct ridge_align_rule *r = &out->rule;
	out->layout = layout;
	align_blas_call(layout, m, n, k, &out->call);
	const struct ridge_blas_call *c = &out->call;
	/* cuBLAS's six conditions, in its order; C in the dtype of A and B. */
	const struct {
		const char *term;
		long long value;
		char dim;
	} terms[RIDGE_GEMM_CONDITIONS] = {
		{ c->trans_a ? "k [op_A=T]" : "m [op_A=N]", c->trans_a ? c->k : c->m, c->trans_a ? 'K' : 'N' },
		{ c->trans_b ? "n [op_B=T]" : "k [op_B=N]", c->trans_b ? c->n : c->k, c->trans_b ? 'M' : 'K' },
		{ "m [C]", c->m, 'N' },
		{ "lda", c->lda, c->lda == k && c->trans_a ? 'K' : 'N' },
		{ "ldb", c->ldb, 'K' },
		{ "ldc", c->ldc, 'N' },
	};
	out->aligned = true;
	bool recommended = true;
	char bad[RIDGE_LONG_TEXT] = "";
	size_t used = 0;
	char seen[4] = "";
	for (int i = 0; i < RIDGE_GEMM_CONDITIONS; i++) {
		struct ridge_gemm_condition *cond = &out->conditions[i];
		cond->term = terms[i].term;
		cond->dim = terms[i].dim;
		cond->value = terms[i].value;
		cond->multiple = r->required_multiple;
		cond->recommended = r->recommended_multiple;
		cond->ok = cond->value % cond->multiple == 0;
		cond->recommended_ok = cond->value % cond->recommended == 0;
		out->aligned &= cond->ok;
		recommended &= cond->recommended_ok;
		/* Name each failing ridge dimension once, with the cuBLAS terms it fills. */
		if (!cond->ok && !strchr(seen, cond->dim)) {
			size_t n_seen = strlen(seen);
			seen[n_seen] = cond->dim;
			seen[n_seen + 1] = '\0';
			char where[96] = "";
			size_t w = 0;
			for (int j = 0; j < RIDGE_GEMM_CONDITIONS; j++)
				if (terms[j].dim == cond->dim && terms[j].value % cond->multiple != 0)
					w += (size_t)snprintf(where + w, w < sizeof where ? sizeof where - w : 0,
							      "%s%s", w ? ", " : "", terms[j].term);
			int wrote = snprintf(bad + used, used < sizeof bad ? sizeof bad - used : 0,
					     "%s%c=%lld (cuBLAS %s)", used ? ", " : "", cond->dim, cond->value, where);
			if (wrote > 0)
				used += (size_t)wrote;
		}
	}
	out->required = r->alignment_required;
	out->layout_ok = !(r->tn_only && !(c->trans_a && !c->trans_b));
	out->tensor_cores = r->matrix_path && out->layout_ok && (out->aligned || !out->required);
	out->severity = !out->aligned ? RIDGE_ALIGN_ERROR : !recommended ? RIDGE_ALIGN_WARNING : RIDGE_ALIGN_OK;
	const char *dt = ridge_dtype_name(dtype);
	size_t rl = 0;
	if (!r->matrix_path)
		rl += (size_t)snprintf(out->reason, sizeof out->reason, "%s has no matrix (tensor-core) rate for %s%s",
				       gpu->id, dt,
				       dtype == RIDGE_FP32 && gpu->peak[RIDGE_TF32].has_matrix
					       ? "; tf32 runs fp32 data on tensor cores"
					       : "");
	else if (!out->layout_ok)
		rl += (size_t)snprintf(out->reason, sizeof out->reason,
				       "the %s layout (cuBLAS %s%s) has no %s kernel on compute capability %d.%d: "
				       "cuBLASLt's FP8 kernels there take only TN (A transposed, B not: F.linear's "
				       "layout)",
				       align_layout_name(layout), c->trans_a ? "T" : "N", c->trans_b ? "T" : "N", dt,
				       gpu->cc_major, gpu->cc_minor);
	if (!out->aligned && rl < sizeof out->reason)
		snprintf(out->reason + rl, sizeof out->reason - rl, "%s%s %s a multiple of %lld (16 bytes of %s)%s",
			 rl ? "; " : "", bad, strlen(seen) > 1 ? "are not each" : "is not", r->required_multiple, dt,
			 !r->matrix_path ? ""
			 : out->required ? ": required for fp8, cuBLAS has no fp8 kernel otherwise"
					 : ": off cuBLAS's aligned tensor-core kernels (cuBLAS >= 11 stays on tensor "
					   "cores through slower kernels)");
	return 0;
}
