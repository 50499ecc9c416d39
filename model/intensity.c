#include "intensity.h"
#include "names.h"

#include "fail.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const kernel_names[RIDGE_KERNEL_COUNT] = {
	"gemm",           "gemm-naive", "gemm-tiled", "gemv",      "vector-add", "activation", "residual-rmsnorm",
	"rmsnorm-linear", "reduction",  "softmax",    "layernorm", "rmsnorm",    "attention",  "flash-attention",
};

enum {
	F_GEMM = RIDGE_FIELD_M | RIDGE_FIELD_N | RIDGE_FIELD_K | RIDGE_FIELD_BATCH,
	F_ROWS = RIDGE_FIELD_M | RIDGE_FIELD_N | RIDGE_FIELD_BATCH,
	F_ATTN = RIDGE_FIELD_SEQ | RIDGE_FIELD_HEADS | RIDGE_FIELD_KV_HEADS | RIDGE_FIELD_HEAD_DIM | RIDGE_FIELD_BATCH |
		 RIDGE_FIELD_CAUSAL,
};

static const unsigned kernel_fields[RIDGE_KERNEL_COUNT] = {
	[RIDGE_KERNEL_GEMM] = F_GEMM | RIDGE_FIELD_TILE,
	[RIDGE_KERNEL_GEMM_NAIVE] = F_GEMM,
	[RIDGE_KERNEL_GEMM_TILED] = F_GEMM | RIDGE_FIELD_TILE,
	[RIDGE_KERNEL_GEMV] = F_GEMM,
	[RIDGE_KERNEL_VECTOR_ADD] = F_ROWS,
	[RIDGE_KERNEL_ACTIVATION] = F_ROWS | RIDGE_FIELD_FLOPS_PER_ELEMENT,
	[RIDGE_KERNEL_RESIDUAL_RMSNORM] = F_ROWS | RIDGE_FIELD_FUSED,
	[RIDGE_KERNEL_RMSNORM_LINEAR] = F_GEMM | RIDGE_FIELD_FUSED,
	[RIDGE_KERNEL_REDUCTION] = F_ROWS,
	[RIDGE_KERNEL_SOFTMAX] = F_ROWS | RIDGE_FIELD_PASSES,
	[RIDGE_KERNEL_LAYERNORM] = F_ROWS,
	[RIDGE_KERNEL_RMSNORM] = F_ROWS,
	[RIDGE_KERNEL_ATTENTION] = F_ATTN,
	[RIDGE_KERNEL_FLASH_ATTENTION] = F_ATTN | RIDGE_FIELD_TILE,
};

static const char *const kernel_summaries[RIDGE_KERNEL_COUNT] = {
	[RIDGE_KERNEL_GEMM] = "tensor-core GEMM, library CTA tile 128x128x64: --m --n --k [--batch] [--tile MxNxK]",
	[RIDGE_KERNEL_GEMM_NAIVE] = "one thread per output, no reuse in the code: --m --n --k [--batch]",
	[RIDGE_KERNEL_GEMM_TILED] = "shared-memory tiled GEMM: --m --n --k [--tile T | MxNxK] (default 32)",
	[RIDGE_KERNEL_GEMV] = "matrix-vector (decode): --n --k [--m vectors, default 1] [--batch]",
	[RIDGE_KERNEL_VECTOR_ADD] = "c = a + b over --n elements [x --m rows] [--batch]",
	[RIDGE_KERNEL_ACTIVATION] = "y = f(x) over --n elements [--m] [--flops-per-element F, default 1]",
	[RIDGE_KERNEL_RESIDUAL_RMSNORM] = "h = x + r; y = RMSNorm(h): --m rows --n width [--fused]",
	[RIDGE_KERNEL_RMSNORM_LINEAR] = "Y = RMSNorm(X) W: --m rows --k hidden --n outputs [--fused]",
	[RIDGE_KERNEL_REDUCTION] = "sum of each row: --m rows --n length",
	[RIDGE_KERNEL_SOFTMAX] = "row softmax: --m rows --n width [--passes 1|2|3, default 2 (online)]",
	[RIDGE_KERNEL_LAYERNORM] = "LayerNorm: --m rows --n width",
	[RIDGE_KERNEL_RMSNORM] = "RMSNorm: --m rows --n width",
	[RIDGE_KERNEL_ATTENTION] = "standard attention, S x S scores through memory: --seq --heads --head-dim "
				   "[--kv-heads] [--batch] [--causal]",
	[RIDGE_KERNEL_FLASH_ATTENTION] = "FlashAttention, scores on chip: --seq --heads --head-dim [--kv-heads] "
					 "[--batch] [--causal] [--tile query rows, default 128]",
};

MODEL_NAMED_ENUM(intensity_kernel_name, intensity_kernel_parse, enum ridge_kernel, kernel_names, 0, RIDGE_KERNEL_COUNT)

const char *intensity_kernel_list(void)
{
	return "gemm gemm-naive gemm-tiled gemv vector-add activation residual-rmsnorm rmsnorm-linear reduction "
	       "softmax layernorm rmsnorm attention flash-attention";
}

unsigned intensity_kernel_fields(enum ridge_kernel kernel)
{
	if ((int)kernel < 0 || kernel >= RIDGE_KERNEL_COUNT)
		return 0;
	return kernel_fields[kernel];
}

const char *intensity_kernel_summary(enum ridge_kernel kernel)
{
	if ((int)kernel < 0 || kernel >= RIDGE_KERNEL_COUNT)
		return NULL;
	return kernel_summaries[kernel];
}

static const char *const traffic_names[] = {
	[RIDGE_TRAFFIC_DEFAULT] = "default",
	[RIDGE_TRAFFIC_TILED] = "tiled",
	[RIDGE_TRAFFIC_COMPULSORY] = "compulsory",
	[RIDGE_TRAFFIC_L2AWARE] = "l2-aware",
};

MODEL_ENUM_NAME_OR(intensity_traffic_name, enum ridge_traffic, traffic_names, "default")

/* l2-aware is a result, never a request: the names parsed stop before it. */
bool intensity_traffic_parse(const char *text, enum ridge_traffic *out)
{
	int i = model_name_index(traffic_names, 0, RIDGE_TRAFFIC_L2AWARE, text);
	if (i < 0)
		return false;
	*out = (enum ridge_traffic)i;
	return true;
}

/* ---- shape checking ---- */

/* Dimensions beyond 2^40 would let products of four of them leave the range
 * where doubles hold whole numbers exactly long before any real shape does. */
#define MAX_DIM 1099511627776.0

static int dimension(double value, const char *flag, double fallback, double *out, char *err, size_t err_len)
{
	if (value == 0) {
		if (fallback > 0) {
			*out = fallback;
			return 0;
		}
		snprintf(err, err_len, "needs %s", flag);
		return -1;
	}
	if (!isfinite(value) || value < 1 || value != floor(value) || value > MAX_DIM) {
		snprintf(err, err_len, "%s must be a whole number from 1 to 2^40, not %.17g", flag, value);
		return -1;
	}
	*out = value;
	return 0;
}

/* ---- building the cost ---- */

static void add_term(struct ridge_kernel_cost *c, const char *name, double bytes, double times, bool write)
{
	if (c->term_count >= RIDGE_KERNEL_MAX_TERMS)
		return;
	struct ridge_kernel_term *t = &c->terms[c->term_count++];
	t->name = name;
	t->bytes = bytes;
	t->times = times;
	t->write = write;
	if (write)
		c->write_bytes += bytes;
	else
		c->read_bytes += bytes;
}

static void add_flops(struct ridge_kernel_cost *c, const char *name, double flops)
{
	if (c->flop_term_count < RIDGE_KERNEL_MAX_TERMS) {
		c->flop_terms[c->flop_term_count].name = name;
		c->flop_terms[c->flop_term_count].flops = flops;
		c->flop_term_count++;
	}
	c->flops += flops;
}

/* The one place the default traffic model is decided (see intensity.h and
 * docs/models/intensity.md, "Default traffic", for the measurements behind it). */
enum ridge_traffic intensity_default_traffic(const struct ridge_kernel_shape *s)
{
	if (s->traffic == RIDGE_TRAFFIC_TILED || s->traffic == RIDGE_TRAFFIC_COMPULSORY)
		return s->traffic;
	switch (s->kernel) {
	case RIDGE_KERNEL_GEMM_NAIVE:
	case RIDGE_KERNEL_GEMM_TILED:
	case RIDGE_KERNEL_RESIDUAL_RMSNORM:
	case RIDGE_KERNEL_RMSNORM_LINEAR:
	case RIDGE_KERNEL_SOFTMAX:
		return RIDGE_TRAFFIC_TILED;
	case RIDGE_KERNEL_GEMM:
		return s->tile_m > 0 || s->tile_n > 0 || s->tile_k > 0 ? RIDGE_TRAFFIC_TILED : RIDGE_TRAFFIC_COMPULSORY;
	default:
		return RIDGE_TRAFFIC_COMPULSORY;
	}
}

/* Terms are added for the chosen model only; both totals are set by the caller. */
static bool chosen_tiled(const struct ridge_kernel_shape *s)
{
	return intensity_default_traffic(s) == RIDGE_TRAFFIC_TILED;
}

struct gemm_dims {
	double m, n, k, batch, tile_m, tile_n, tile_k;
};

/* The CTA-tiled GEMM: each CTA computes a tile_m x tile_n block of C and
 * streams its tile_m rows of A and tile_n columns of B through shared memory.
 * A is read once per column of CTAs, ceil(N / tile_n) times; B once per row of
 * CTAs, ceil(M / tile_m) times; C is written once. */
static double gemm_tiled_bytes(const struct gemm_dims *g, double e)
{
	return g->batch * e *
	       (g->m * g->k * ceil(g->n / g->tile_n) + g->k * g->n * ceil(g->m / g->tile_m) + g->m * g->n);
}

static double gemm_compulsory_bytes(const struct gemm_dims *g, double e)
{
	return g->batch * e * (g->m * g->k + g->k * g->n + g->m * g->n);
}

static void gemm_terms(struct ridge_kernel_cost *c, const struct gemm_dims *g, double e, bool tiled, const char *a,
		       const char *b, const char *out)
{
	double a_times = tiled ? ceil(g->n / g->tile_n) : 1;
	double b_times = tiled ? ceil(g->m / g->tile_m) : 1;
	add_term(c, a, g->batch * g->m * g->k * e * a_times, a_times, false);
	add_term(c, b, g->batch * g->k * g->n * e * b_times, b_times, false);
	add_term(c, out, g->batch * g->m * g->n * e, 1, true);
}

static int cost_gemm(const struct ridge_kernel_shape *s, double e, struct ridge_kernel_cost *c, char *err,
		     size_t err_len)
{
	struct gemm_dims g;
	bool gemv = s->kernel == RIDGE_KERNEL_GEMV;
	if (dimension(s->m, "--m", gemv ? 1 : 0, &g.m, err, err_len) || dimension(s->n, "--n", 0, &g.n, err, err_len) ||
	    dimension(s->k, "--k", 0, &g.k, err, err_len) || dimension(s->batch, "--batch", 1, &g.batch, err, err_len))
		return -1;
	double fallback = s->kernel == RIDGE_KERNEL_GEMM_TILED ? RIDGE_TILED_GEMM_TILE : 0;
	if (dimension(s->tile_m, "the tile's M", fallback ? fallback : RIDGE_LIBRARY_TILE_M, &g.tile_m, err, err_len) ||
	    dimension(s->tile_n, "the tile's N", fallback ? fallback : RIDGE_LIBRARY_TILE_N, &g.tile_n, err, err_len) ||
	    dimension(s->tile_k, "the tile's K", fallback ? fallback : RIDGE_LIBRARY_TILE_K, &g.tile_k, err, err_len))
		return -1;

	add_flops(c, "2*M*N*K (one multiply and one add per term)", 2 * g.batch * g.m * g.n * g.k);
	c->compulsory_bytes = gemm_compulsory_bytes(&g, e);
	c->matrix_work = true;
	bool tiled = chosen_tiled(s);

	if (s->kernel == RIDGE_KERNEL_GEMM_NAIVE) {
		/* One thread per output element loops over K reading A[row][k] and
		 * B[k][col] from memory every iteration: 2*M*N*K element reads. */
		c->tiled_bytes = g.batch * e * (2 * g.m * g.n * g.k + g.m * g.n);
	} else if (gemv) {
		/* M (a handful of) vectors against one matrix: one row of CTAs covers
		 * all M, so the matrix streams through once; the tiled and
		 * compulsory traffic are the same. */
		c->tiled_bytes = c->compulsory_bytes;
	} else {
		c->tile_m = g.tile_m;
		c->tile_n = g.tile_n;
		c->tile_k = g.tile_k;
		c->smem_per_block = (g.tile_m * g.tile_k + g.tile_k * g.tile_n) * e;
		c->tiled_bytes = gemm_tiled_bytes(&g, e);
	}

	if (gemv) {
		c->model = "GEMV: the matrix streams through once; x read once, y written once";
		gemm_terms(c, &g, e, false, "x (M x K)", "W (K x N)", "y (M x N) write");
	} else if (!tiled) {
		c->model = "compulsory: A and B read once, C written once (L2 catches every re-read)";
		gemm_terms(c, &g, e, false, "A (M x K)", "B (K x N)", "C (M x N) write");
	} else if (s->kernel == RIDGE_KERNEL_GEMM_NAIVE) {
		c->model = "naive: every thread reads its row of A and column of B from memory (2*M*N*K element "
			   "reads), no reuse; C written once";
		add_term(c, "A (M x K), once per output column", g.batch * g.m * g.n * g.k * e, g.n, false);
		add_term(c, "B (K x N), once per output row", g.batch * g.m * g.n * g.k * e, g.m, false);
		add_term(c, "C (M x N) write", g.batch * g.m * g.n * e, 1, true);
	} else {
		c->model = "CTA tiling: A read ceil(N/tile_n) times, B read ceil(M/tile_m) times, C written once; "
			   "no cache reuse across CTAs";
		gemm_terms(c, &g, e, true, "A (M x K)", "B (K x N)", "C (M x N) write");
	}
	return 0;
}

/* Row-wise kernels: rows = batch x m, each of width n. */
static int rows_and_width(const struct ridge_kernel_shape *s, double *rows, double *width, char *err, size_t err_len)
{
	double m, batch;
	if (dimension(s->m, "--m", 1, &m, err, err_len) || dimension(s->batch, "--batch", 1, &batch, err, err_len) ||
	    dimension(s->n, "--n", 0, width, err, err_len))
		return -1;
	*rows = batch * m;
	return 0;
}

/* FLOPs per row of width d, counting every add, multiply, divide, square root
 * and exponential as one (an FMA is two): see docs/models/intensity.md. */
static double rmsnorm_row_flops(double d)
{
	return 4 * d + 2; /* sum of squares 2d-1, mean 1, +eps 1, rsqrt 1, scale by rrms and weight 2d */
}

static double layernorm_row_flops(double d)
{
	return 7 * d + 2; /* mean d, variance 3d, +eps and rsqrt 2, (x-mean)*rstd*gamma+beta 3d */
}

static int cost_elementwise(const struct ridge_kernel_shape *s, double e, struct ridge_kernel_cost *c, char *err,
			    size_t err_len)
{
	double rows, width;
	if (rows_and_width(s, &rows, &width, err, err_len))
		return -1;
	double n = rows * width;
	if (s->kernel == RIDGE_KERNEL_VECTOR_ADD) {
		add_flops(c, "one add per element", n);
		c->model = "a and b read once, c written once";
		add_term(c, "a", n * e, 1, false);
		add_term(c, "b", n * e, 1, false);
		add_term(c, "c write", n * e, 1, true);
	} else {
		double per = s->flops_per_element;
		if (per == 0)
			per = 1;
		if (!isfinite(per) || per <= 0) {
			snprintf(err, err_len, "--flops-per-element must be greater than 0, not %.17g", per);
			return -1;
		}
		add_flops(c, "flops per element x elements", n * per);
		c->model = "x read once, y written once";
		add_term(c, "x", n * e, 1, false);
		add_term(c, "y write", n * e, 1, true);
	}
	c->tiled_bytes = c->compulsory_bytes = c->read_bytes + c->write_bytes;
	return 0;
}

static int cost_norms(const struct ridge_kernel_shape *s, double e, struct ridge_kernel_cost *c, char *err,
		      size_t err_len)
{
	double r, d;
	if (rows_and_width(s, &r, &d, err, err_len))
		return -1;
	switch (s->kernel) {
	case RIDGE_KERNEL_REDUCTION:
		add_flops(c, "n-1 adds per row", r * (d - 1));
		c->model = "x read once, one value per row written";
		add_term(c, "x (rows x n)", r * d * e, 1, false);
		add_term(c, "sums write", r * e, 1, true);
		break;
	case RIDGE_KERNEL_RMSNORM:
		add_flops(c, "(4n+2) per row", r * rmsnorm_row_flops(d));
		c->model = "x read once, the weight read once (L2-resident across rows), y written once";
		add_term(c, "x (rows x n)", r * d * e, 1, false);
		add_term(c, "weight (n)", d * e, 1, false);
		add_term(c, "y write", r * d * e, 1, true);
		break;
	case RIDGE_KERNEL_LAYERNORM:
		add_flops(c, "(7n+2) per row", r * layernorm_row_flops(d));
		c->model = "x read once, weight and bias read once (L2-resident across rows), y written once";
		add_term(c, "x (rows x n)", r * d * e, 1, false);
		add_term(c, "weight and bias (2n)", 2 * d * e, 1, false);
		add_term(c, "y write", r * d * e, 1, true);
		break;
	case RIDGE_KERNEL_SOFTMAX: {
		int passes = s->passes ? s->passes : 2;
		if (passes < 1 || passes > 3) {
			snprintf(err, err_len, "--passes must be 1, 2 or 3, not %d", passes);
			return -1;
		}
		static const char *const models[] = {
			NULL,
			"one pass: the row stays on chip between max, sum and normalize; x read once, y written once",
			"online softmax (two passes): running max and rescaled sum in one pass, normalize in the second; "
			"x read twice, y written once",
			"safe softmax (three passes): max, sum of exponentials, normalize; x read three times, y "
			"written once",
		};
		/* Per row of n: max n-1, subtract n, exp n, sum n-1, divide n = 5n-2 on chip;
		 * safe softmax recomputes exp(x-max) in its third pass (7n-2); online
		 * softmax adds the running rescale d*exp(m_old-m_new) to every element (10n). */
		static const char *const flop_names[] = { NULL, "5n-2 per row", "10n per row", "7n-2 per row" };
		double per_row = passes == 1 ? 5 * d - 2 : passes == 2 ? 10 * d : 7 * d - 2;
		add_flops(c, flop_names[passes], r * per_row);
		c->model = models[passes];
		add_term(c, "x (rows x n)", passes * r * d * e, passes, false);
		add_term(c, "y write", r * d * e, 1, true);
		c->tiled_bytes = (passes + 1) * r * d * e;
		c->compulsory_bytes = 2 * r * d * e;
		if (!chosen_tiled(s)) {
			c->term_count = 0;
			c->read_bytes = c->write_bytes = 0;
			c->model = "compulsory: x read once, y written once";
			add_term(c, "x (rows x n)", r * d * e, 1, false);
			add_term(c, "y write", r * d * e, 1, true);
		}
		return 0;
	}
	default:
		break;
	}
	c->tiled_bytes = c->compulsory_bytes = c->read_bytes + c->write_bytes;
	return 0;
}

static int cost_fused(const struct ridge_kernel_shape *s, double e, struct ridge_kernel_cost *c, char *err,
		      size_t err_len)
{
	/* Unfused minus fused is what fusion saves: the intermediate written by
	 * the first kernel and read back by the second. The compulsory traffic is
	 * the fused kernel's (every tensor once). */
	bool tiled = chosen_tiled(s);
	bool fused_terms = s->fused || !tiled;
	double fused_bytes, unfused_bytes;
	if (s->kernel == RIDGE_KERNEL_RESIDUAL_RMSNORM) {
		double r, d;
		if (rows_and_width(s, &r, &d, err, err_len))
			return -1;
		add_flops(c, "residual add, n per row", r * d);
		add_flops(c, "RMSNorm, (4n+2) per row", r * rmsnorm_row_flops(d));
		fused_bytes = (4 * r * d + d) * e;
		unfused_bytes = (5 * r * d + d) * e;
		add_term(c, "x (rows x n)", r * d * e, 1, false);
		add_term(c, "residual r (rows x n)", r * d * e, 1, false);
		add_term(c, "weight (n)", d * e, 1, false);
		add_term(c, "h = x + r write (the next residual)", r * d * e, 1, true);
		if (!fused_terms)
			add_term(c, "h read back by RMSNorm", r * d * e, 1, false);
		add_term(c, "y write", r * d * e, 1, true);
		c->model = s->fused ? "fused: x, r and the weight read once; h and y written once"
				    : "unfused: add kernel (read x, r; write h), then RMSNorm kernel (read h and the "
				      "weight; write y)";
	} else {
		double m, batch, d, o;
		if (dimension(s->m, "--m", 1, &m, err, err_len) ||
		    dimension(s->batch, "--batch", 1, &batch, err, err_len) ||
		    dimension(s->k, "--k (the hidden size)", 0, &d, err, err_len) ||
		    dimension(s->n, "--n (the output features)", 0, &o, err, err_len))
			return -1;
		double r = batch * m;
		add_flops(c, "RMSNorm, (4k+2) per row", r * rmsnorm_row_flops(d));
		add_flops(c, "Linear, 2*rows*k*n", 2 * r * d * o);
		c->matrix_work = true;
		fused_bytes = (r * d + d + d * o + r * o) * e;
		unfused_bytes = (3 * r * d + d + d * o + r * o) * e;
		add_term(c, "X (rows x k)", r * d * e, 1, false);
		add_term(c, "norm weight (k)", d * e, 1, false);
		if (!fused_terms) {
			add_term(c, "X_norm write", r * d * e, 1, true);
			add_term(c, "X_norm read by the Linear", r * d * e, 1, false);
		}
		add_term(c, "W (k x n)", d * o * e, 1, false);
		add_term(c, "Y write", r * o * e, 1, true);
		c->model = s->fused ? "fused (the textbook, §7.5.4): X, the norm weight and W read once; Y written once"
				    : "unfused: RMSNorm (read X; write X_norm), then Linear (read X_norm and W; "
				      "write Y); W read once";
	}
	if (!tiled)
		c->model = "compulsory: every tensor once (what the fused kernel moves)";
	c->tiled_bytes = s->fused ? fused_bytes : unfused_bytes;
	c->compulsory_bytes = fused_bytes;
	c->has_alternative = tiled;
	c->alternative_bytes = s->fused ? unfused_bytes : fused_bytes;
	return 0;
}

struct attention_dims {
	double batch, heads, kv_heads, seq, head_dim, query_tile;
};

static int attention_dims(const struct ridge_kernel_shape *s, struct attention_dims *a, char *err, size_t err_len)
{
	if (dimension(s->seq, "--seq", 0, &a->seq, err, err_len) ||
	    dimension(s->heads, "--heads", 0, &a->heads, err, err_len) ||
	    dimension(s->head_dim, "--head-dim", 0, &a->head_dim, err, err_len) ||
	    dimension(s->batch, "--batch", 1, &a->batch, err, err_len) ||
	    dimension(s->kv_heads, "--kv-heads", a->heads, &a->kv_heads, err, err_len) ||
	    dimension(s->tile_m, "the query tile", RIDGE_FLASH_QUERY_TILE, &a->query_tile, err, err_len))
		return -1;
	if (a->kv_heads > a->heads || fmod(a->heads, a->kv_heads) != 0) {
		snprintf(err, err_len,
			 "--kv-heads %.17g must divide --heads %.17g (each KV head serves a group of query heads)",
			 a->kv_heads, a->heads);
		return -1;
	}
	return 0;
}

static int cost_attention(const struct ridge_kernel_shape *s, double e, struct ridge_kernel_cost *c, char *err,
			  size_t err_len)
{
	struct attention_dims a;
	if (attention_dims(s, &a, err, err_len))
		return -1;
	double bh = a.batch * a.heads;      /* query heads over the batch */
	double bhkv = a.batch * a.kv_heads; /* KV heads over the batch */
	double S = a.seq, D = a.head_dim;
	double qo = bh * S * D * e;     /* Q (or O) of every query head */
	double kv = bhkv * S * D * e;   /* K (or V) of every KV head */
	double scores = bh * S * S * e; /* one S x S matrix per query head */
	c->matrix_work = true;
	bool tiled = chosen_tiled(s);

	if (s->kernel == RIDGE_KERNEL_ATTENTION) {
		/* Eager attention computes the whole S x S product and masks it
		 * afterwards, so causal does not change the work it does. */
		add_flops(c, "Q*K^T, 2*S*S*D per head", 2 * bh * S * S * D);
		add_flops(c, "P*V, 2*S*S*D per head", 2 * bh * S * S * D);
		/* Three kernels: S = Q K^T (a GEMM with M=N=seq, K=head_dim), the
		 * softmax (reads S, writes P, row on chip), O = P V (M=seq, N=head_dim,
		 * K=seq). The GEMMs' own re-reads follow the library's CTA tile. */
		double tm = RIDGE_LIBRARY_TILE_M, tn = RIDGE_LIBRARY_TILE_N;
		double q_times = ceil(S / tn), k_times = ceil(S / tm); /* GEMM 1: A = Q, B = K^T */
		double p_times = ceil(D / tn), v_times = ceil(S / tm); /* GEMM 2: A = P, B = V */
		c->tile_m = tm;
		c->tile_n = tn;
		c->tile_k = RIDGE_LIBRARY_TILE_K;
		c->tiled_bytes = qo * q_times + bh * S * D * e * k_times + scores + scores + scores + scores * p_times +
				 bh * S * D * e * v_times + qo;
		c->compulsory_bytes = qo + 2 * kv + 4 * scores + qo;
		if (tiled) {
			c->model = "three kernels (GEMM, softmax, GEMM) with the library's CTA tile: scores S written, "
				   "read, probabilities P written, read; K and V read per query head";
			add_term(c, "Q", qo * q_times, q_times, false);
			add_term(c, "K", bh * S * D * e * k_times, k_times, false);
			add_term(c, "scores S write", scores, 1, true);
			add_term(c, "scores S read (softmax)", scores, 1, false);
			add_term(c, "probabilities P write", scores, 1, true);
			add_term(c, "probabilities P read (P*V)", scores * p_times, p_times, false);
			add_term(c, "V", bh * S * D * e * v_times, v_times, false);
			add_term(c, "O write", qo, 1, true);
		} else {
			c->model = "compulsory: Q, K, V read once (K and V per KV head), O written once; scores S "
				   "written and read, probabilities P written and read";
			add_term(c, "Q", qo, 1, false);
			add_term(c, "K (per KV head)", kv, 1, false);
			add_term(c, "V (per KV head)", kv, 1, false);
			add_term(c, "scores S write", scores, 1, true);
			add_term(c, "scores S read (softmax)", scores, 1, false);
			add_term(c, "probabilities P write", scores, 1, true);
			add_term(c, "probabilities P read (P*V)", scores, 1, false);
			add_term(c, "O write", qo, 1, true);
		}
		return 0;
	}

	/* FlashAttention: one CTA per (batch, query head, tile of Br query rows)
	 * keeps its Q tile and O accumulator on chip and streams K and V tiles
	 * past it; the scores never reach memory. Causal: a query tile loads key
	 * tiles up to and including the diagonal, and only the S*(S+1)/2 unmasked
	 * (query, key) pairs are counted as work. */
	/* A sliding window W < S (causal): query i sees min(i + 1, W) keys,
	 * W (W + 1) / 2 + (S - W) W pairs. */
	double W = s->causal && s->window > 0 && s->window < S ? s->window : 0;
	/* Chunked (Llama-4): causal within each chunk of W, n = floor(S / W)
	 * whole chunks and r = S - n W rows: n W (W + 1) / 2 + r (r + 1) / 2. */
	double chunks = W > 0 && s->chunked ? floor(S / W) : 0, rest = S - chunks * W;
	double pairs = W > 0 && s->chunked ? chunks * W * (W + 1) / 2 + rest * (rest + 1) / 2
		       : W > 0             ? W * (W + 1) / 2 + (S - W) * W
		       : s->causal         ? S * (S + 1) / 2
					   : S * S;
	add_flops(c,
		  W > 0 && s->chunked ? "Q*K^T, 2*D per pair in a chunk, n*W*(W+1)/2 + r*(r+1)/2 pairs"
		  : W > 0             ? "Q*K^T, 2*D per pair in the window, W*(W+1)/2 + (S-W)*W pairs"
		  : s->causal         ? "Q*K^T, 2*D per unmasked pair, S*(S+1)/2 pairs"
				      : "Q*K^T, 2*S*S*D per head",
		  2 * bh * pairs * D);
	add_flops(c, s->causal ? "P*V, 2*D per unmasked pair" : "P*V, 2*S*S*D per head", 2 * bh * pairs * D);
	double br = a.query_tile;
	double tiles = ceil(S / br);
	/* Keys each query tile loads, summed over the tiles: S per tile, or for
	 * causal min(S, (i+1)*Br) for tile i, which is Br*(T-1)*T/2 + S. In a
	 * window, the first floor(W / Br) tiles load as causal ones do and each
	 * later one its window and its own rows, min(W + Br - 1, S). */
	double keys = s->causal ? br * (tiles - 1) * tiles / 2 + S : tiles * S;
	if (W > 0 && s->chunked) {
		/* each chunk's tiles load as a causal prompt of W rows does */
		double tw = ceil(W / br);
		keys = (S / W) * (br * (tw - 1) * tw / 2 + W);
	} else if (W > 0) {
		double t0 = fmin(tiles, floor(W / br));
		keys = br * t0 * (t0 + 1) / 2 + (tiles - t0) * fmin(W + br - 1, S);
	}
	double kv_tiled = bh * keys * D * e;
	c->tile_m = br;
	c->tiled_bytes = qo + 2 * kv_tiled + qo;
	c->compulsory_bytes = qo + 2 * kv + qo;
	if (tiled) {
		c->model = "tiled: Q read once, K and V read once per query tile (and per query head), O written "
			   "once; no cache reuse";
		add_term(c, "Q", qo, 1, false);
		add_term(c, "K, per query tile", kv_tiled, keys / S, false);
		add_term(c, "V, per query tile", kv_tiled, keys / S, false);
		add_term(c, "O write", qo, 1, true);
	} else {
		c->model = "compulsory: Q, K, V read once (K and V per KV head), O written once";
		add_term(c, "Q", qo, 1, false);
		add_term(c, "K (per KV head)", kv, 1, false);
		add_term(c, "V (per KV head)", kv, 1, false);
		add_term(c, "O write", qo, 1, true);
	}
	return 0;
}

/* A kernel's FLOPs and bytes, term by term (e: bytes per element); each
 * kernel's is in kernel_costs. */
typedef int kernel_cost_fn(const struct ridge_kernel_shape *s, double e, struct ridge_kernel_cost *c, char *err,
			   size_t err_len);

static kernel_cost_fn *const kernel_costs[RIDGE_KERNEL_COUNT] = {
	[RIDGE_KERNEL_GEMM] = cost_gemm,
	[RIDGE_KERNEL_GEMM_NAIVE] = cost_gemm,
	[RIDGE_KERNEL_GEMM_TILED] = cost_gemm,
	[RIDGE_KERNEL_GEMV] = cost_gemm,
	[RIDGE_KERNEL_VECTOR_ADD] = cost_elementwise,
	[RIDGE_KERNEL_ACTIVATION] = cost_elementwise,
	[RIDGE_KERNEL_RESIDUAL_RMSNORM] = cost_fused,
	[RIDGE_KERNEL_RMSNORM_LINEAR] = cost_fused,
	[RIDGE_KERNEL_REDUCTION] = cost_norms,
	[RIDGE_KERNEL_SOFTMAX] = cost_norms,
	[RIDGE_KERNEL_LAYERNORM] = cost_norms,
	[RIDGE_KERNEL_RMSNORM] = cost_norms,
	[RIDGE_KERNEL_ATTENTION] = cost_attention,
	[RIDGE_KERNEL_FLASH_ATTENTION] = cost_attention,
};

int intensity_kernel(const struct ridge_kernel_shape *shape, struct ridge_kernel_cost *out, char *err, size_t err_len)
{
	*out = (struct ridge_kernel_cost){ 0 };
	const char *name = intensity_kernel_name(shape->kernel);
	double e = ridge_dtype_bytes(shape->dtype);
	if (!name) {
		snprintf(err, err_len, "unknown kernel");
		return -1;
	}
	if (!(e > 0)) {
		snprintf(err, err_len, "unknown dtype");
		return -1;
	}
	if (kernel_costs[shape->kernel](shape, e, out, err, err_len))
		return -1;
	out->traffic = intensity_default_traffic(shape);
	out->bytes = out->read_bytes + out->write_bytes;
	if (!isfinite(out->flops) || !isfinite(out->bytes)) {
		/* Never "inf FLOPs" in a message: name the overflow. */
		snprintf(err, err_len, "overflow: the %s of this shape does more %s than can be represented", name,
			 isfinite(out->flops) ? "bytes" : "FLOPs");
		return -1;
	}
	if (!(out->flops > 0) || !(out->bytes > 0)) {
		/* A row of one element reduces to nothing: 0 FLOPs has no intensity. */
		snprintf(err, err_len, "%s of this shape does %.17g FLOPs on %.17g bytes: nothing to place", name,
			 out->flops, out->bytes);
		return -1;
	}
	out->intensity = out->flops / out->bytes;
	return 0;
}

/* ---- L2-aware DRAM traffic of tiled GEMMs (docs/models/gemm-traffic.md) ---- */

static double whole_gcd(double a, double b)
{
	while (b > 0) {
		double r = fmod(a, b);
		a = b;
		b = r;
	}
	return a;
}

/* The grid seen along the raster: consecutive CTAs walk the J dimension (a
 * "row" of tj tiles, each with its own J panel) and step to the next I panel
 * after tj tiles. Raster along N: J = N (B's column panels), I = M (A's row
 * panels); along M the roles swap. */
struct raster_grid {
	double ti, tj;       /* tiles along I and along J */
	double dim_i, dim_j; /* the matrix extents along I and J */
	double tile_i, tile_j;
};

/* Bytes of the I and J panels (all of K) that L consecutive CTAs touch: at
 * most ceil((L + tj - 1) / tj) rows (a run of L tiles that starts anywhere in
 * a row) and min(tj, L) columns, each clipped to the matrix. */
static double run_footprint(const struct raster_grid *g, double L, double k, double e)
{
	double rows = fmin(g->ti, ceil((L + g->tj - 1) / g->tj));
	double cols = fmin(g->tj, L);
	return e * k * (fmin(g->dim_i, g->tile_i * rows) + fmin(g->dim_j, g->tile_j * cols));
}

/* CTAs one SM holds. A kernel with one thread per output (the textbook's tiled
 * kernel and ridge's, a T x T block of threads for a T x T tile) is limited by
 * threads, blocks and its one stage of shared memory; a larger tile is a
 * tensor-core kernel whose pipeline takes as many stages as shared memory
 * holds (CUTLASS 3.x StageCountAutoCarveout): one CTA per SM. */
static double gemm_ctas_per_sm(const struct ridge_gpu *gpu, const struct ridge_kernel_cost *c, double tm, double tn,
			       const char **why)
{
	double threads = tm * tn;
	if (gpu->max_threads_per_block <= 0 || threads > gpu->max_threads_per_block) {
		*why = "a tile larger than one thread per output allows: a tensor-core kernel whose pipeline stages "
		       "fill shared memory (CUTLASS 3.x StageCountAutoCarveout), one CTA per SM";
		return 1;
	}
	double n = gpu->max_blocks_per_sm > 0 ? gpu->max_blocks_per_sm : 1;
	if (gpu->max_threads_per_sm > 0)
		n = fmin(n, floor(gpu->max_threads_per_sm / threads));
	if (c->smem_per_block > 0 && gpu->smem_per_sm > 0)
		n = fmin(n, floor(gpu->smem_per_sm / c->smem_per_block));
	*why = "one thread per output (tile_m x tile_n threads per CTA): the SM's thread, block and "
	       "shared-memory limits";
	return n >= 1 ? n : 1;
}

static bool gemm_l2_applies(const struct ridge_kernel_shape *s)
{
	return s->kernel == RIDGE_KERNEL_GEMM_TILED || s->kernel == RIDGE_KERNEL_GEMM_NAIVE ||
	       (s->kernel == RIDGE_KERNEL_GEMM && (s->tile_m > 0 || s->tile_n > 0 || s->tile_k > 0));
}

/* The kernel's bytes become the L2-aware HBM traffic (the default model of a
 * tiled GEMM once the GPU is known). */
static void gemm_l2_as_bytes(struct ridge_kernel_cost *c, double a, double b, double out, bool naive)
{
	const struct ridge_gemm_l2 *l = &c->l2;
	c->traffic = RIDGE_TRAFFIC_L2AWARE;
	c->term_count = 0;
	c->read_bytes = c->write_bytes = 0;
	add_term(c, l->a_resident ? "A (M x K), panels stay in L2" : "A (M x K), re-read from DRAM", a * l->a_reads,
		 l->a_reads, false);
	add_term(c, l->b_resident ? "B (K x N), panels stay in L2" : "B (K x N), re-read from DRAM", b * l->b_reads,
		 l->b_reads, false);
	add_term(c, "C (M x N) write", out, 1, true);
	c->bytes = c->read_bytes + c->write_bytes;
	c->intensity = c->flops / c->bytes;
	c->model = l->library ? "the library's tiles (128 x 256, groups of 8 N-tiles): each wave of CTAs reads the "
				"A and B panels it touches once, times the re-reads of CTAs drifting apart on long "
				"runs (fitted to ncu on an H100)"
		   : naive    ? "the naive kernel's access pattern: L1 serves every warp's loads (A a broadcast, B "
				"coalesced), L2 each 32 x 32 block's rows of A and columns of B once, DRAM each panel "
				"once per wave that needs it again after L2 lost it"
			      : "L2-aware: the A and B panels a wave of CTAs shares come from L2 while they fit; DRAM "
				"sees each panel once per wave that needs it again after L2 lost it; the tiled re-reads "
				"go to L2";
}

/* The 128-byte lines (unit 128) or 32-byte sectors (unit 32) that span
 * consecutive elements of e bytes touch, averaged over where they start: a
 * row of N elements starts at a multiple of N, a block's columns at a
 * multiple of 32, so within one unit of per = unit / e elements a span starts
 * at every multiple of g = gcd(N mod per, 32, per), each as often. */
static double span_units(double n, double span, double e, double unit)
{
	double per = unit / e;
	double g = whole_gcd(whole_gcd(fmod(n, per), RIDGE_TILED_GEMM_TILE), per);
	double starts = per / g, sum = 0;
	for (double j = 0; j < starts; j++)
		sum += ceil((j * g + span) / per);
	return sum / starts;
}

/* The naive GEMM's L1 and L2 traffic from its access pattern (struct
 * ridge_naive_gemm; docs/models/gemm-traffic.md, "The naive kernel"). */
static void naive_access(const struct ridge_gpu *gpu, const struct ridge_kernel_shape *s, struct ridge_kernel_cost *c)
{
	struct ridge_naive_gemm *v = &c->naive;
	const double t = RIDGE_TILED_GEMM_TILE, line = RIDGE_L1_WAVEFRONT_BYTES, sector = RIDGE_SECTOR_BYTES;
	double e = ridge_dtype_bytes(s->dtype);
	double m = s->m, n = s->n, k = s->k, batch = s->batch > 0 ? s->batch : 1;
	v->warp_size = gpu->warp_size >= t ? gpu->warp_size : t;
	double rows = v->warp_size / t, span = fmin(n, t);
	v->warps = batch * ceil(m / rows) * ceil(n / t);
	v->a_wavefronts = rows;
	v->b_wavefronts = v->c_wavefronts = span_units(n, span, e, line);
	v->l1_wavefronts = v->warps * (k * (v->a_wavefronts + v->b_wavefronts) + v->c_wavefronts);
	v->l1_bytes = v->l1_wavefronts * line;
	v->b_sector_bytes = span_units(n, span, e, sector) * sector;
	v->l1_sector_bytes = v->warps * (k * (rows * sector + v->b_sector_bytes) + v->b_sector_bytes);
	double tiles_m = ceil(m / t), tiles_n = ceil(n / t);
	v->l2_bytes = batch * (m * k * e * tiles_n + tiles_m * tiles_n * k * v->b_sector_bytes + m * n * e);
	v->modelled = true;
}

/* The waves a library GEMM's persistent CTAs make over its tiles, at most
 * this many walked one by one; beyond, the walked waves' mean stands for the
 * rest (a bound on the work for absurd shapes). */
#define LIBRARY_WAVES_WALKED 65536.0

/* The A and B panels (all of K) each wave of w consecutive tiles reads once,
 * summed over the waves: tiles come in groups of g N-tiles (the last group
 * may be smaller); inside a group the CTAs take the M-tiles in turn, each
 * with the group's N-tiles one after another. A wave's piece [a, b) of a
 * group of gs N-tiles touches M-tiles floor(a/gs) to floor((b-1)/gs) and
 * min(gs, b - a) N-tiles. Groups have N-tiles of their own; their M-tiles
 * are the same: a wave over 3 or more groups touches every M-tile (its
 * middle groups whole), over 2 the union of the first's tail [lo, T-1] and
 * the second's head [0, hi]. */
static void library_wave_panels(double tiles_m, double tiles_n, double g, double w, double *a_panels, double *b_panels)
{
	double tiles = tiles_m * tiles_n, waves = ceil(tiles / w);
	double walked = fmin(waves, LIBRARY_WAVES_WALKED), a = 0, b = 0;
	for (double v = 0; v < walked; v++) {
		double t = v * w, end = fmin(tiles, t + w), first_lo = 0, last_hi = 0;
		int pieces = 0;
		while (t < end) {
			double group = floor(t / (g * tiles_m)), start = group * g * tiles_m;
			double gs = fmin(g, tiles_n - group * g);
			double lo = t - start, hi = fmin(end, start + gs * tiles_m) - start;
			if (pieces++ == 0)
				first_lo = floor(lo / gs);
			last_hi = floor((hi - 1) / gs);
			b += fmin(gs, hi - lo);
			t = start + hi;
		}
		a += pieces == 1   ? last_hi - first_lo + 1
		     : pieces == 2 ? fmin(tiles_m, tiles_m - first_lo + last_hi + 1)
				   : tiles_m;
	}
	*a_panels = a * waves / walked;
	*b_panels = b * waves / walked;
}

/* The library GEMM (its default tile) on a GPU: the DRAM traffic of the
 * library's own tiling (RIDGE_LIBRARY_DRAM_*, intensity.h), each wave's
 * panels once, times the re-reads of CTAs that drift apart: the longer a
 * tile runs (K) and the more waves go by, the further the CTAs sharing a
 * panel spread in time, against the time L2 keeps a panel (its usable
 * capacity over the HBM rate). Never below the compulsory bytes nor above
 * the tiled count of the same tile. docs/models/gemm-traffic.md. */
static void library_gemm_dram(const struct ridge_gpu *gpu, const struct ridge_kernel_shape *s,
			      struct ridge_kernel_cost *c, double e)
{
	struct ridge_gemm_l2 *l = &c->l2;
	double m = s->m, n = s->n, k = s->k, batch = s->batch > 0 ? s->batch : 1;
	l->library = true;
	l->tile_m = RIDGE_LIBRARY_DRAM_TILE_M;
	l->tile_n = RIDGE_LIBRARY_DRAM_TILE_N;
	l->group_tiles = RIDGE_LIBRARY_DRAM_GROUP;
	l->tiles_m = ceil(m / l->tile_m);
	l->tiles_n = ceil(n / l->tile_n);
	l->raster_along_n = false;
	l->raster = "the library's (cuBLAS sm90 nvjet kernels, ncu on an H100): 128 x 256 tiles, groups of 8 "
		    "N-tiles, the M-tiles in turn";
	l->ctas_per_sm = 1;
	l->ctas_per_sm_why = "a persistent tensor-core kernel: one CTA per SM";
	l->wave_ctas = gpu->sm_count;
	l->waves = ceil(l->tiles_m * l->tiles_n / l->wave_ctas);
	double a_panels, b_panels;
	library_wave_panels(l->tiles_m, l->tiles_n, l->group_tiles, l->wave_ctas, &a_panels, &b_panels);
	double a_panel = e * k * m / l->tiles_m, b_panel = e * k * n / l->tiles_n;
	l->wave_bytes = a_panels * a_panel + b_panels * b_panel;
	l->wave_footprint = l->reuse_footprint =
		e * k *
		(fmin(m, l->tile_m * fmin(l->tiles_m, ceil(l->wave_ctas / l->group_tiles))) +
		 fmin(n, l->tile_n * fmin(l->tiles_n, l->group_tiles)));
	double peak = 0;
	const char *why;
	l->drift_x = 0;
	if (l->waves > 1 && gpu->memory_bandwidth > 0 && l->l2_capacity > 0 &&
	    ridge_gpu_peak(gpu, s->dtype, RIDGE_PEAK_DEFAULT, false, &peak, &why) && peak > 0) {
		double tile_s = 2 * l->tile_m * l->tile_n * k / (peak / gpu->sm_count);
		double resident_s = l->l2_capacity / gpu->memory_bandwidth;
		l->drift_x = tile_s * sqrt(l->waves) / resident_s;
	}
	l->drift_factor = 1 + RIDGE_LIBRARY_DRIFT_SLOPE * fmax(0, l->drift_x - RIDGE_LIBRARY_DRIFT_ONSET);
	double a = e * m * k, b = e * k * n;
	double tiled = a * l->tiles_n + b * l->tiles_m;
	double reads = fmin(fmax(l->wave_bytes * l->drift_factor, a + b), tiled);
	/* split the reads between A and B as the waves' panels are */
	double a_share = l->wave_bytes > 0 ? a_panels * a_panel / l->wave_bytes : 0.5;
	l->a_reads = reads * a_share / a;
	l->b_reads = reads * (1 - a_share) / b;
	l->a_resident = l->a_reads <= 1;
	l->b_resident = l->b_reads <= 1;
	l->hbm_bytes = batch * (reads + e * m * n);
	struct gemm_dims d = { m, n, k, batch, l->tile_m, l->tile_n, 0 };
	l->l2_traffic = gemm_tiled_bytes(&d, e);
	l->modelled = true;
}

/* GA100 and GH100 split L2 in two partitions, each caching the data its own
 * GPCs' SMs access (A100 whitepaper, "L2 cache"; measured on H100 by Chips
 * and Cheese, 2023): a panel read by CTAs on both sides is held twice, so one
 * copy of the panels has half the capacity. */
static void l2_capacity_of(const struct ridge_gpu *gpu, struct ridge_gemm_l2 *l)
{
	bool split =
		gpu->vendor == RIDGE_VENDOR_NVIDIA && gpu->cc_minor == 0 && (gpu->cc_major == 8 || gpu->cc_major == 9);
	l->l2_bytes = gpu->l2_bytes;
	l->l2_usable_fraction = split ? 0.5 : 1;
	l->l2_usable_why = split ? "two L2 partitions (GA100/GH100), each caching what its SMs read: panels shared "
				   "GPU-wide are held twice"
				 : "one L2 pool (no partition duplication documented for this GPU)";
	l->l2_capacity = l->l2_bytes * l->l2_usable_fraction;
}

static int library_gemm_l2(const struct ridge_gpu *gpu, const struct ridge_kernel_shape *s, struct ridge_kernel_cost *c,
			   char *err, size_t err_len)
{
	double e = ridge_dtype_bytes(s->dtype);
	if (!(e > 0) || !(s->m >= 1) || !(s->n >= 1) || !(s->k >= 1))
		return model_fail(err, err_len, "the cost has no GEMM traffic to place in L2");
	if (!(gpu->l2_bytes > 0) || gpu->sm_count <= 0)
		return 0;
	l2_capacity_of(gpu, &c->l2);
	library_gemm_dram(gpu, s, c, e);
	if (s->traffic == RIDGE_TRAFFIC_DEFAULT)
		gemm_l2_as_bytes(c, e * s->m * s->k * (s->batch > 0 ? s->batch : 1),
				 e * s->k * s->n * (s->batch > 0 ? s->batch : 1),
				 e * s->m * s->n * (s->batch > 0 ? s->batch : 1), false);
	return 0;
}

int intensity_gemm_l2(const struct ridge_gpu *gpu, const struct ridge_kernel_shape *s, struct ridge_kernel_cost *c,
		      char *err, size_t err_len)
{
	struct ridge_gemm_l2 *l = &c->l2;
	*l = (struct ridge_gemm_l2){ 0 };
	c->naive = (struct ridge_naive_gemm){ 0 };
	if (s->kernel == RIDGE_KERNEL_GEMM && !gemm_l2_applies(s))
		return library_gemm_l2(gpu, s, c, err, err_len);
	if (!gemm_l2_applies(s))
		return 0;
	double e = ridge_dtype_bytes(s->dtype);
	double m = s->m, n = s->n, k = s->k, batch = s->batch > 0 ? s->batch : 1;
	if (!(e > 0) || !(m >= 1) || !(n >= 1) || !(k >= 1) || !(c->tiled_bytes > 0))
		return model_fail(err, err_len, "the cost has no GEMM traffic to place in L2");
	bool naive = s->kernel == RIDGE_KERNEL_GEMM_NAIVE;
	if (naive)
		naive_access(gpu, s, c);
	if (!(gpu->l2_bytes > 0) || gpu->sm_count <= 0)
		return 0;
	double tm = naive ? RIDGE_TILED_GEMM_TILE : c->tile_m, tn = naive ? RIDGE_TILED_GEMM_TILE : c->tile_n;
	if (!(tm >= 1) || !(tn >= 1))
		return model_fail(err, err_len, "the cost has no CTA tile");

	l->tiles_m = ceil(m / tm);
	l->tiles_n = ceil(n / tn);
	if (s->kernel == RIDGE_KERNEL_GEMM) {
		/* CUTLASS 3.x PersistentTileSchedulerSm90: RasterOrderOptions::Heuristic
		 * and max_swizzle_size = 1 by default (static_tile_scheduler.hpp);
		 * the heuristic rasters along M when tiles_n > tiles_m, else along N
		 * (tile_scheduler_params.h, get_rasterization_order). */
		l->raster_along_n = !(l->tiles_n > l->tiles_m);
		l->raster = "CUTLASS 3.x default: along N unless tiles_n > tiles_m, swizzle 1";
	} else {
		l->raster_along_n = true;
		l->raster = "blockIdx.x along N (the textbook's kernel), CTAs issued in blockIdx.x order";
	}
	l->ctas_per_sm = gemm_ctas_per_sm(gpu, c, tm, tn, &l->ctas_per_sm_why);
	l->wave_ctas = gpu->sm_count * l->ctas_per_sm;
	l2_capacity_of(gpu, l);

	struct raster_grid g = l->raster_along_n ? (struct raster_grid){ l->tiles_m, l->tiles_n, m, n, tm, tn }
						 : (struct raster_grid){ l->tiles_n, l->tiles_m, n, m, tn, tm };
	double tiles = g.ti * g.tj, w = l->wave_ctas;
	l->waves = ceil(tiles / w);
	l->wave_footprint = run_footprint(&g, w, k, e);
	/* An I panel is shared by consecutive CTAs of its row: its next user is
	 * at most one wave later. A J panel is next used one row of tiles later
	 * (tj + 1 CTAs on), or within the same wave when a wave spans a row. */
	l->reuse_footprint = run_footprint(&g, fmax(w, g.tj + 1), k, e);
	bool one_wave = l->waves <= 1;
	bool i_resident = one_wave || l->wave_footprint <= l->l2_capacity;
	bool j_resident = one_wave || l->reuse_footprint <= l->l2_capacity;
	/* Otherwise each wave fetches the panels it touches once (its CTAs run
	 * together and share them): rows touched summed over the waves is
	 * waves + ti - 1 less the wave boundaries that fall on a row boundary
	 * (wave j starts at tile j*w: on a boundary when tj divides j*w);
	 * columns touched is min(tj, w) for every full wave plus the last's. */
	double i_reads = 1, j_reads = 1;
	if (!i_resident) {
		double period = g.tj / whole_gcd(g.tj, w);
		i_reads = (l->waves + g.ti - 1 - floor((l->waves - 1) / period)) / g.ti;
	}
	if (!j_resident)
		j_reads = ((l->waves - 1) * fmin(g.tj, w) + fmin(g.tj, tiles - (l->waves - 1) * w)) / g.tj;
	l->a_resident = l->raster_along_n ? i_resident : j_resident;
	l->b_resident = l->raster_along_n ? j_resident : i_resident;
	l->a_reads = l->raster_along_n ? i_reads : j_reads;
	l->b_reads = l->raster_along_n ? j_reads : i_reads;
	double a = batch * e * m * k, b = batch * e * k * n, out = batch * e * m * n;
	l->hbm_bytes = a * l->a_reads + b * l->b_reads + out;
	/* What the CTAs ask of L2: the tiled count (for the naive kernel, its
	 * L1 misses: each 32 x 32 thread block's rows and columns once). */
	struct gemm_dims d = { m, n, k, batch, tm, tn, 0 };
	l->l2_traffic = naive ? c->naive.l2_bytes : gemm_tiled_bytes(&d, e);
	l->modelled = true;
	if (s->traffic == RIDGE_TRAFFIC_DEFAULT)
		gemm_l2_as_bytes(c, a, b, out, naive);
	return 0;
}

int intensity_kernel_on(const struct ridge_gpu *gpu, const struct ridge_kernel_shape *shape,
			struct ridge_kernel_cost *out, char *err, size_t err_len)
{
	if (intensity_kernel(shape, out, err, err_len))
		return -1;
	return intensity_gemm_l2(gpu, shape, out, err, err_len);
}

/* ---- the hierarchical roofline's bytes per level ---- */

int intensity_levels(const struct ridge_kernel_shape *shape, const struct ridge_kernel_cost *cost,
		     double bytes[RIDGE_LEVEL_COUNT], char *err, size_t err_len)
{
	for (int i = 0; i < RIDGE_LEVEL_COUNT; i++)
		bytes[i] = -1;
	double e = ridge_dtype_bytes(shape->dtype);
	if (!(e > 0) || !(cost->compulsory_bytes > 0) || !(cost->tiled_bytes > 0)) {
		snprintf(err, err_len, "the cost has no traffic to distribute over memory levels");
		return -1;
	}
	/* A GEMM whose traffic was given puts that at DRAM: the floor and the
	 * bytes are one model (--traffic tiled: every re-read reaches memory). */
	bool given = shape->traffic == RIDGE_TRAFFIC_TILED || shape->traffic == RIDGE_TRAFFIC_COMPULSORY;
	double gemm_hbm = given ? cost->bytes : cost->l2.modelled ? cost->l2.hbm_bytes : cost->compulsory_bytes;
	switch (shape->kernel) {
	case RIDGE_KERNEL_GEMM_NAIVE: {
		/* L1 serves every warp's loads (A a broadcast, B coalesced: its
		 * wavefronts); L2 sees each 32 x 32 thread block read its rows of A
		 * and columns of B once (L1 catches the re-reads inside a block);
		 * DRAM what L2 loses between waves. Without a GPU: every thread's
		 * element reads at L1, the 32 x 32 tiles at L2. */
		struct gemm_dims g = { shape->m,
				       shape->n,
				       shape->k,
				       shape->batch > 0 ? shape->batch : 1,
				       RIDGE_TILED_GEMM_TILE,
				       RIDGE_TILED_GEMM_TILE,
				       RIDGE_TILED_GEMM_TILE };
		const struct ridge_naive_gemm *v = &cost->naive;
		bytes[RIDGE_LEVEL_SMEM] = v->modelled ? v->l1_bytes : cost->tiled_bytes;
		bytes[RIDGE_LEVEL_L2] = shape->traffic == RIDGE_TRAFFIC_TILED ? cost->tiled_bytes
					: v->modelled                         ? v->l2_bytes
									      : gemm_tiled_bytes(&g, e);
		bytes[RIDGE_LEVEL_HBM] = gemm_hbm;
		return 0;
	}
	case RIDGE_KERNEL_GEMM_TILED: {
		/* Each multiply-add reads one element of A and one of B from shared
		 * memory; each tile is stored there once (the tiled reads of A and
		 * B). The level's bytes are its wavefronts' (128 B a clock per SM):
		 * a warp's 32 elements of B's row are one wavefront a k (e per
		 * output); A's element is the same for the warp's 32 threads (a
		 * broadcast) and consecutive in k, so the unrolled loop reads it 16
		 * bytes at a time (LDS.128), one wavefront per 16/e values of k: e/4
		 * per output a k. The fastest issue of these reads, as a floor must
		 * be; ncu counted 50.5 wavefronts per warp per 32-wide tile on the
		 * H200 against these 42 (measurements/2026-11-30-h200-validate/
		 * ncu_h200_gemm.csv), where one a k for A would be 66. */
		double batch = shape->batch > 0 ? shape->batch : 1;
		double out = batch * shape->m * shape->n * e;
		bytes[RIDGE_LEVEL_SMEM] = 1.25 * batch * shape->m * shape->n * shape->k * e + (cost->tiled_bytes - out);
		bytes[RIDGE_LEVEL_L2] = cost->tiled_bytes;
		bytes[RIDGE_LEVEL_HBM] = gemm_hbm;
		return 0;
	}
	case RIDGE_KERNEL_GEMM:
		/* The library's own tile and clusters: its L2 traffic is not the
		 * 128 x 128 count (see intensity.h); an explicit tile is placed. */
		if (shape->tile_m > 0 || shape->tile_n > 0 || shape->tile_k > 0) {
			bytes[RIDGE_LEVEL_L2] = cost->tiled_bytes;
			bytes[RIDGE_LEVEL_HBM] = gemm_hbm;
		} else {
			bytes[RIDGE_LEVEL_HBM] = gemm_hbm;
		}
		return 0;
	case RIDGE_KERNEL_ATTENTION:
	case RIDGE_KERNEL_FLASH_ATTENTION:
		bytes[RIDGE_LEVEL_L2] = cost->tiled_bytes;
		bytes[RIDGE_LEVEL_HBM] = cost->compulsory_bytes;
		return 0;
	case RIDGE_KERNEL_RESIDUAL_RMSNORM:
	case RIDGE_KERNEL_RMSNORM_LINEAR:
	case RIDGE_KERNEL_SOFTMAX:
		/* The variant's own traffic (tiled_bytes): the unfused intermediate
		 * and every pass of a multi-pass softmax go through memory. */
		bytes[RIDGE_LEVEL_L2] = cost->tiled_bytes;
		bytes[RIDGE_LEVEL_HBM] = cost->tiled_bytes;
		return 0;
	default:
		bytes[RIDGE_LEVEL_L2] = cost->compulsory_bytes;
		bytes[RIDGE_LEVEL_HBM] = cost->compulsory_bytes;
		return 0;
	}
}

int intensity_levels_on(const struct ridge_gpu *gpu, const struct ridge_kernel_shape *shape,
			const struct ridge_kernel_cost *cost, const struct ridge_kernel_path *path,
			double bytes[RIDGE_LEVEL_COUNT], char *err, size_t err_len)
{
	if (intensity_levels(shape, cost, bytes, err, err_len))
		return -1;
	bool one_thread_per_output =
		gpu->max_threads_per_block > 0 && cost->tile_m * cost->tile_n <= gpu->max_threads_per_block;
	if (shape->kernel == RIDGE_KERNEL_GEMM_TILED && (path->uses_matrix || !one_thread_per_output))
		bytes[RIDGE_LEVEL_SMEM] = -1;
	return 0;
}

/* ---- tensor cores ---- */

double intensity_alignment_elements(enum ridge_dtype dtype)
{
	double e = ridge_dtype_bytes(dtype);
	return e > 0 ? 16 / e : 0;
}

/* The kernel's GEMMs under align_gemm_rule(); the first that fails decides. */
/* A required-alignment GEMM (fp8, fp4) that fails only on the token
 * dimension N, with a tensor-core path and layout: the one an engine pads. */
static bool pad_token_dim(const struct ridge_gemm_tensor_rule *rule)
{
	if (!rule->required || rule->aligned || !rule->rule.matrix_path || !rule->layout_ok)
		return false;
	for (int i = 0; i < RIDGE_GEMM_CONDITIONS; i++)
		if (!rule->conditions[i].ok && rule->conditions[i].dim != 'N')
			return false;
	return true;
}

static void kernel_eligible(const struct ridge_gpu *gpu, const struct ridge_kernel_shape *s,
			    struct ridge_kernel_path *path)
{
	struct gemm_view {
		double m, n, k;
		enum ridge_gemm_layout layout;
	} gemms[2];
	int count = 1;
	double m = s->m > 0 ? s->m : 1;
	switch (s->kernel) {
	case RIDGE_KERNEL_GEMM:
	case RIDGE_KERNEL_GEMM_NAIVE:
	case RIDGE_KERNEL_GEMM_TILED:
	case RIDGE_KERNEL_GEMV:
		gemms[0] = (struct gemm_view){ m, s->n, s->k, s->layout };
		break;
	case RIDGE_KERNEL_RMSNORM_LINEAR:
		/* The rows of every batch element form one GEMM's M; x W^T. */
		gemms[0] =
			(struct gemm_view){ m * (s->batch > 0 ? s->batch : 1), s->n, s->k, RIDGE_GEMM_LAYOUT_LINEAR };
		break;
	case RIDGE_KERNEL_ATTENTION:
		/* Batched Q K^T (S x S x D, K^T: the linear layout) and P V (S x D x S,
		 * row-major V: matmul). */
		gemms[0] = (struct gemm_view){ s->seq, s->seq, s->head_dim, RIDGE_GEMM_LAYOUT_LINEAR };
		gemms[1] = (struct gemm_view){ s->seq, s->head_dim, s->seq, RIDGE_GEMM_LAYOUT_MATMUL };
		count = 2;
		break;
	case RIDGE_KERNEL_FLASH_ATTENTION:
		/* The kernel masks ragged sequence tiles itself; head_dim is Q K^T's K
		 * and P V's N (one query row stands for the tile). */
		gemms[0] = (struct gemm_view){ 1, s->head_dim, s->head_dim, RIDGE_GEMM_LAYOUT_LINEAR };
		break;
	default:
		snprintf(path->reason, sizeof path->reason, "no matrix multiply in this kernel");
		return;
	}
	path->tensor_eligible = true;
	path->fast_path = true;
	for (int i = 0; i < count; i++) {
		struct ridge_gemm_tensor_rule rule;
		char err[RIDGE_LONG_TEXT];
		const struct gemm_view *g = &gemms[i];
		if (!(g->m >= 1 && g->m <= RIDGE_ALIGN_MAX_GEMM_DIM && g->n >= 1 && g->n <= RIDGE_ALIGN_MAX_GEMM_DIM &&
		      g->k >= 1 && g->k <= RIDGE_ALIGN_MAX_GEMM_DIM) ||
		    align_gemm_rule(gpu, s->dtype, g->layout, (long long)g->m, (long long)g->n, (long long)g->k, &rule,
				    err, sizeof err) != 0) {
			path->tensor_eligible = path->fast_path = false;
			snprintf(path->reason, sizeof path->reason, "no tensor-core rule for this shape (%s)",
				 "dimensions beyond 2^53");
			return;
		}
		if (i == 0) {
			path->rule = rule;
			path->has_rule = count == 1 && s->kernel != RIDGE_KERNEL_FLASH_ATTENTION;
		}
		if (path->fast_path && (!rule.tensor_cores || !rule.aligned))
			snprintf(path->reason, sizeof path->reason, "%s%s", count > 1 ? (i ? "P V: " : "Q K^T: ") : "",
				 rule.reason);
		/* fp8/fp4 need every condition (no cuBLAS kernel otherwise), but the
		 * libraries and serving engines pad the token dimension (N, cuBLAS's
		 * m and ldc) to the multiple and run the tensor-core kernel: PyTorch
		 * 2.11's torch._scaled_mm on an H200 took 20.1 us at N = 40 against
		 * 19.4 at 32 and 19.7 at 48 (K 8192, M 5120;
		 * measurements/2026-12-03-h200-harnesses/kernel_cases.json). So a GEMM
		 * misaligned in N alone is priced padded, on tensor cores; ridge align
		 * still reports cuBLAS's rule as called. */
		if (pad_token_dim(&rule) && s->kernel != RIDGE_KERNEL_GEMM_NAIVE &&
		    s->kernel != RIDGE_KERNEL_GEMM_TILED) {
			long long mult = rule.rule.required_multiple;
			path->padded_n = (double)(((long long)g->n + mult - 1) / mult * mult);
			rule.tensor_cores = rule.aligned = true;
		}
		path->tensor_eligible &= rule.tensor_cores;
		path->fast_path &= rule.tensor_cores && rule.aligned;
	}
}

int intensity_ceiling(const struct ridge_gpu *gpu, const struct ridge_kernel_shape *shape,
		      const struct ridge_kernel_cost *cost, bool no_tensor, bool sparse, enum ridge_level level,
		      struct ridge_roofline_ceiling *ceiling, struct ridge_kernel_path *path, char *err, size_t err_len)
{
	*path = (struct ridge_kernel_path){ 0 };
	const char *dname = ridge_dtype_name(shape->dtype);
	const char *kname = intensity_kernel_name(shape->kernel);
	if (!dname || !kname) {
		snprintf(err, err_len, "unknown dtype or kernel");
		return -1;
	}
	const struct ridge_peak *p = &gpu->peak[shape->dtype];
	if (!p->has_vector && !p->has_matrix) {
		snprintf(err, err_len, "%s has no %s rate: the GPU has no hardware path for %s", gpu->id, dname, dname);
		return -1;
	}
	path->compute_dtype = shape->dtype;
	if (cost->matrix_work)
		kernel_eligible(gpu, shape, path);
	else
		snprintf(path->reason, sizeof path->reason, "no matrix multiply in %s", kname);
	bool naive = shape->kernel == RIDGE_KERNEL_GEMM_NAIVE;
	/* A GEMV with fewer vectors than one 16-byte row of an MMA tile (decode's
	 * M = 1, below the required count) runs cuBLAS's GEMV kernels on the
	 * vector units: ridge's model of the library's dispatch, which the H200's
	 * decode GEMVs (at HBM speed either way) cannot refute. From one row
	 * group up (M = 100 for fp8: 6 groups and a ragged one) the libraries and
	 * engines run the tensor-core kernel, the token dimension padded (fp8,
	 * fp4) or on an unaligned kernel: the vector units would price 100
	 * decode tokens of Llama-3-70B in fp8 at 270 ms against 55 ms at 96. A
	 * dtype with no vector rate (fp8, fp4) is never computed on the vector
	 * units. */
	double vectors = shape->m > 0 ? shape->m : 1;
	bool narrow_gemv = shape->kernel == RIDGE_KERNEL_GEMV && path->has_rule && p->has_vector &&
			   ((vectors < (double)path->rule.rule.required_multiple &&
			     (long long)vectors % path->rule.rule.required_multiple != 0) ||
			    !path->fast_path);
	if (narrow_gemv && path->fast_path)
		snprintf(path->reason, sizeof path->reason, "m=%.17g vectors, not a multiple of %lld",
			 shape->m > 0 ? shape->m : 1, path->rule.rule.required_multiple);
	path->uses_matrix =
		cost->matrix_work && p->has_matrix && path->tensor_eligible && !no_tensor && !naive && !narrow_gemv;
	if (path->uses_matrix) {
		/* Misaligned matrix work stays on tensor cores: cuBLAS 11 and later
		 * use slower unaligned tensor-core kernels (3-8x the time per FLOP on
		 * the H200, validation/README.md) rather than CUDA cores, so the
		 * matrix peak is its upper bound. */
		if (!path->fast_path)
			snprintf(path->note, sizeof path->note,
				 "off cuBLAS's aligned tensor-core kernels: the matrix peak is an upper bound the "
				 "slower unaligned kernels do not reach (3-8x the time per FLOP on an H200); see "
				 "ridge align");
		if (path->padded_n > 0)
			snprintf(path->note, sizeof path->note,
				 "N padded to %.17g for the %s tensor-core kernel, as the libraries and serving "
				 "engines do (cuBLAS as called has none: %s; ridge align)",
				 path->padded_n, dname, path->reason);
		return roofline_ceiling(gpu, shape->dtype, RIDGE_PEAK_MATRIX, sparse, level, ceiling, err, err_len);
	}
	if (cost->matrix_work && p->has_matrix && !path->tensor_eligible && !no_tensor && !naive)
		snprintf(path->note, sizeof path->note,
			 "no tensor-core kernel for it (reason above): priced without "
			 "tensor cores");

	if (sparse) {
		snprintf(err, err_len, "%s runs on the vector units here (%s); sparsity applies to matrix rates only",
			 kname,
			 no_tensor ? "--no-tensor"
			 : naive   ? "one thread per output uses no tensor cores"
				   : path->reason);
		return -1;
	}
	if (narrow_gemv && !no_tensor)
		snprintf(path->note, sizeof path->note, "a GEMV (%s) runs on the vector units", path->reason);
	if (!p->has_vector) {
		path->compute_dtype = RIDGE_FP32;
		size_t used = strlen(path->note);
		snprintf(path->note + used, sizeof path->note - used,
			 "%s%s has no vector %s rate: placed against the "
			 "fp32 vector rate (the kernel computes in fp32)",
			 used ? "; " : "", gpu->id, dname);
	}
	return roofline_ceiling(gpu, path->compute_dtype, RIDGE_PEAK_VECTOR, false, level, ceiling, err, err_len);
}
