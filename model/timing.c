/* The kernel time model (timing.h): floor, efficiency and fixed cost. */
#include "timing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "align.h"
#include "fail.h"
#include "median.h"
#include "units.h"

/* What timing_classes.h says of each class. */
#define TIMING_INTERCEPT_GEMM true
#define TIMING_INTERCEPT_KERNEL false
#define TIMING_SLOTS_NONE false
#define TIMING_SLOTS_ONE false
#define TIMING_SLOTS_PER_IMPL true
#define CLASS_ROW(u, NAME, name, slots, kernels, patterns, intercept) \
	[RIDGE_TIME_##NAME] = { name, TIMING_SLOTS_##slots, TIMING_INTERCEPT_##intercept },
static const struct {
	const char *name;
	bool per_impl;       /* one slot an attention implementation */
	bool gemm_intercept; /* falls back on launch.gemm_fixed_cost first */
} classes[RIDGE_TIME_CLASS_COUNT] = { RIDGE_TIME_CLASSES(CLASS_ROW, RIDGE_TIME_NONE, RIDGE_TIME_NONE, ) };
#undef CLASS_ROW

const char *timing_class_name(enum ridge_time_class cls)
{
	return (unsigned)cls < RIDGE_TIME_CLASS_COUNT ? classes[cls].name : NULL;
}

/* Every kernel is in exactly one class: a kernel listed twice is a duplicate
 * case label, and the count of those listed is the count of kernels. */
#define KERNEL_CASE(kernel) case RIDGE_KERNEL_##kernel:
#define KERNEL_ONE(kernel) 1,
#define CLASS_CASES(u, NAME, name, slots, kernels, patterns, intercept) kernels return RIDGE_TIME_##NAME;
#define CLASS_KERNELS(u, NAME, name, slots, kernels, patterns, intercept) kernels
/* (the count through sizeof of a compound literal: no object, which clang's
 * -Wunneeded-internal-declaration would refuse) */
_Static_assert(sizeof((const char[]){ RIDGE_TIME_CLASSES(CLASS_KERNELS, KERNEL_ONE, RIDGE_TIME_NONE, ) }) ==
		       RIDGE_KERNEL_COUNT,
	       "timing_classes.h: every kernel in one class");

enum ridge_time_class timing_kernel_class(enum ridge_kernel kernel)
{
	switch (kernel) {
		RIDGE_TIME_CLASSES(CLASS_CASES, KERNEL_CASE, RIDGE_TIME_NONE, )
	default:
		return RIDGE_TIME_OWN;
	}
}

enum ridge_time_class timing_shape_class(const struct ridge_kernel_shape *shape)
{
	enum ridge_time_class cls = timing_kernel_class(shape->kernel);
	if (cls == RIDGE_TIME_GEMM && shape->dtype == RIDGE_FP8)
		return RIDGE_TIME_GEMM_FP8;
	if (cls == RIDGE_TIME_GEMM && shape->dtype == RIDGE_FP4)
		return RIDGE_TIME_GEMM_FP4;
	return cls;
}

bool timing_low_precision_gemm(enum ridge_time_class cls)
{
	return cls == RIDGE_TIME_GEMM_FP8 || cls == RIDGE_TIME_GEMM_FP4;
}
#undef KERNEL_CASE
#undef KERNEL_ONE
#undef CLASS_CASES
#undef CLASS_KERNELS

static const char *const impl_names[RIDGE_ATTENTION_IMPL_COUNT] = {
	"default", "ideal", "fa2", "fa3", "cudnn", "split-kv", "per-head", "efficient", "repeat-kv", "repeat-kv-fused",
};

const char *timing_attention_impl_name(enum ridge_attention_impl impl)
{
	return (unsigned)impl < RIDGE_ATTENTION_IMPL_COUNT ? impl_names[impl] : NULL;
}

bool timing_attention_impl_parse(const char *text, enum ridge_attention_impl *out)
{
	for (int i = 0; i < RIDGE_ATTENTION_IMPL_COUNT; i++)
		if (strcasecmp(text, impl_names[i]) == 0) {
			*out = (enum ridge_attention_impl)i;
			return true;
		}
	return false;
}

const char *timing_attention_impl_list(void)
{
	return "default ideal fa2 fa3 cudnn split-kv per-head efficient repeat-kv repeat-kv-fused";
}

#define SLOT_ROW(u, SLOT, NAME, IMPL, key) [RIDGE_SLOT_##SLOT] = { key, RIDGE_TIME_##NAME, RIDGE_ATTENTION_##IMPL },
static const struct {
	const char *key;
	enum ridge_time_class cls;
	enum ridge_attention_impl impl; /* a PER_IMPL class's slot: its implementation */
} slots[RIDGE_TIMING_SLOTS] = { RIDGE_TIMING_SLOT_LIST(SLOT_ROW, ) };
#undef SLOT_ROW

const char *timing_slot_key(int slot)
{
	return slot >= 0 && slot < RIDGE_TIMING_SLOTS ? slots[slot].key : NULL;
}

bool timing_class_per_impl(enum ridge_time_class cls)
{
	return (unsigned)cls < RIDGE_TIME_CLASS_COUNT && classes[cls].per_impl;
}

enum ridge_time_class timing_slot_class(int slot)
{
	return slot >= 0 && slot < RIDGE_TIMING_SLOTS ? slots[slot].cls : RIDGE_TIME_OWN;
}

int timing_slot(enum ridge_time_class cls, enum ridge_attention_impl impl)
{
	for (int slot = 0; (unsigned)cls < RIDGE_TIME_CLASS_COUNT && slot < RIDGE_TIMING_SLOTS; slot++)
		if (slots[slot].cls == cls && (!classes[cls].per_impl || slots[slot].impl == impl))
			return slot;
	return -1;
}

bool timing_probe_fixed_cost(const struct ridge_gpu *gpu, enum ridge_time_class cls, double *value, const char **source)
{
	if ((unsigned)cls < RIDGE_TIME_CLASS_COUNT && classes[cls].gemm_intercept && gpu->has_gemm_fixed_cost) {
		*value = gpu->gemm_fixed_cost_s;
		*source = "launch.gemm_fixed_cost: ridge-probe's intercept of small library GEMMs";
		return true;
	}
	if (gpu->has_kernel_fixed_cost) {
		*value = gpu->kernel_fixed_cost_s;
		*source = "launch.kernel_fixed_cost: ridge-probe's intercept of the stream kernels";
		return true;
	}
	return false;
}

/* The implementation an attention kernel gets when none is asked for. */
static enum ridge_attention_impl resolve_impl(const struct ridge_gpu *gpu, enum ridge_attention_impl impl)
{
	if (impl != RIDGE_ATTENTION_DEFAULT)
		return impl;
	enum ridge_attention_impl named;
	if (gpu->attention_default[0] && timing_attention_impl_parse(gpu->attention_default, &named) &&
	    named != RIDGE_ATTENTION_DEFAULT)
		return named;
	return RIDGE_ATTENTION_FA2;
}

static struct ridge_time_term term(double value, const char *source, enum ridge_provenance provenance)
{
	return (struct ridge_time_term){ value, source, provenance };
}

enum ridge_provenance timing_value_provenance(const struct ridge_timing_terms *t, enum ridge_timing_value v)
{
	enum ridge_provenance p;
	if (!t || (int)v < 0 || v >= RIDGE_TIMING_VALUES)
		return RIDGE_PROVENANCE_FLOOR;
	if (t->value[v].provenance[0] && ridge_provenance_parse(t->value[v].provenance, &p))
		return p;
	if (t->provenance[0] && ridge_provenance_parse(t->provenance, &p))
		return p;
	return RIDGE_PROVENANCE_FLOOR;
}

const char *timing_value_source(const struct ridge_timing_terms *t, enum ridge_timing_value v)
{
	if (!t || (int)v < 0 || v >= RIDGE_TIMING_VALUES)
		return "";
	return t->value[v].source[0] ? t->value[v].source : t->source;
}

static struct ridge_time_term value_term(const struct ridge_timing_terms *t, enum ridge_timing_value v)
{
	double value = v == RIDGE_TIMING_COMPUTE  ? t->compute_efficiency
		       : v == RIDGE_TIMING_MEMORY ? t->memory_efficiency
		       : v == RIDGE_TIMING_FIXED  ? t->fixed_cost_s
		       : v == RIDGE_TIMING_ROW    ? t->row_time_s
						  : t->cta_bandwidth;
	const char *source = timing_value_source(t, v);
	return term(value, source[0] ? source : "the hwdb entry's timing section", timing_value_provenance(t, v));
}

/* The kernel PyTorch (2.11, CUDA) runs for a row kernel, by width:
 *   RMSNorm, LayerNorm: vectorized_layer_norm_kernel, one CTA of 32 x 4
 *     threads per row (layer_norm_kernel.cu; ncu shows block (32, 4, 1) and a
 *     grid of one CTA per row: measurements/2026-12-01-h200-heldout/ncu_rows.csv);
 *   softmax over the last dimension (SoftMax.cu, host_softmax): up to 2048
 *     columns and 8192 bytes a row, softmax_warp_forward (PersistentSoftmax.cuh,
 *     dispatch_softmax_forward: 128 threads a CTA, a warp of min(32, the
 *     power of two at or above the width) lanes per row, two rows a warp up to
 *     128 columns); wider, one CTA per row of min(width, 1024) threads
 *     rounded up to a warp (SoftMaxForward_getBlockSize): the register kernel
 *     cunn_SoftMaxForwardReg while ceil(width / threads) < 10
 *     (potential_register_count), cunn_SoftMaxForwardSmem while the row fits
 *     the per-block shared memory beside one float per warp and the width is a
 *     multiple of 16 bytes, else cunn_SoftMaxForward, which reads the row
 *     three times (max, sum, normalize).
 * Returns false for other kernels, for a softmax given --passes (the
 * user's own algorithm, not the library's) and off NVIDIA (PyTorch's ROCm
 * build runs other softmax kernels: host_softmax's use_fast_softmax). */
struct row_kernel {
	const char *name;
	double rows_per_cta;
	double threads;  /* per CTA */
	bool block_rows; /* one CTA of up to 1024 threads per row */
};

static double power_of_two_at_or_above(double x)
{
	double p = 1;
	while (p < x)
		p *= 2;
	return p;
}

static bool row_kernel_of(const struct ridge_gpu *gpu, const struct ridge_kernel_shape *s, struct row_kernel *k)
{
	if (gpu->vendor != RIDGE_VENDOR_NVIDIA)
		return false;
	if (s->kernel == RIDGE_KERNEL_RMSNORM || s->kernel == RIDGE_KERNEL_LAYERNORM) {
		*k = (struct row_kernel){ "vectorized_layer_norm_kernel", 1, 128, false };
		return true;
	}
	if (s->kernel != RIDGE_KERNEL_SOFTMAX || s->passes != 0 || !(s->n >= 1))
		return false;
	double e = ridge_dtype_bytes(s->dtype), n = s->n;
	if (n <= 2048 && n * e <= 8192) {
		double p = power_of_two_at_or_above(n);
		double lanes = p < 32 ? p : 32;
		*k = (struct row_kernel){ "softmax_warp_forward", (128 / lanes) * (p <= 128 ? 2 : 1), 128, false };
		return true;
	}
	double threads = n < 1024 ? ceil(n / 32) * 32 : 1024;
	double smem_elements = (gpu->smem_per_block - threads / 32 * 4) / e;
	const char *name = ceil(n / threads) < 10                      ? "cunn_SoftMaxForwardReg"
			   : n < smem_elements && fmod(n * e, 16) == 0 ? "cunn_SoftMaxForwardSmem"
								       : "cunn_SoftMaxForward";
	*k = (struct row_kernel){ name, 1, threads, true };
	return true;
}

/* The CTA stream of a row kernel's library kernel (timing.h, cta_stream_s):
 * n = min(ctas, resident) CTAs stream at once, each its rows' bytes b (read
 * and written) at the slot's cta_bandwidth, a rate set by what one CTA keeps
 * in flight over the memory latency; the n streams queue at the HBM, so each
 * byte also waits for the wave's others (n / memory.bandwidth a byte). A wave
 * takes cta_latency + b (1 / cta_bandwidth + n / memory.bandwidth), the
 * kernel max(1, ctas / resident) waves. Only while the n streams ask for less
 * than the HBM delivers (n x cta_bandwidth below memory.bandwidth): beyond,
 * the bytes bind and the memory term holds. 0 when it does not apply. */
static double cta_stream(const struct ridge_gpu *gpu, const struct ridge_kernel_shape *s,
			 const struct ridge_timing_terms *terms, const struct row_kernel *k,
			 struct ridge_kernel_time *t)
{
	if (!terms || !terms->has_cta_bandwidth || !(terms->cta_bandwidth > 0) || !(gpu->memory_bandwidth > 0))
		return 0;
	/* the slot's constants hold for the kernels they were measured on: the
	 * norms' kernel and softmax's one-CTA-per-row kernels */
	if (s->kernel == RIDGE_KERNEL_SOFTMAX && !k->block_rows)
		return 0;
	double streams = t->ctas < t->resident_ctas ? t->ctas : t->resident_ctas;
	if (!(streams * terms->cta_bandwidth < gpu->memory_bandwidth))
		return 0;
	double waves = t->ctas > t->resident_ctas ? t->ctas / t->resident_ctas : 1;
	double bytes = 2 * k->rows_per_cta * s->n * ridge_dtype_bytes(s->dtype);
	double latency = terms->has_cta_latency ? terms->cta_latency_s : 0;
	return waves * (latency + bytes * (1 / terms->cta_bandwidth + streams / gpu->memory_bandwidth));
}

/* The row terms of a row kernel (timing.h): for a norm with the entry's
 * row_time, rows x reduction passes (RMSNorm 1, LayerNorm 2) x row_time, a
 * term of the max; for the library's kernel, its CTAs and the CTA stream
 * (cta_stream). Where the stream applies (the CTAs' streams cannot fill the
 * HBM) it is the kernel: its critical path from the first CTA to the last,
 * fill and drain included, so neither the bytes at the class's efficiency
 * nor the class's fixed cost (both fitted to kernels that fill the GPU) is
 * added; only the launch latency CUDA events see around an isolated kernel
 * (launch.kernel_fixed_cost, hidden back to back) is. */
static void row_terms(const struct ridge_gpu *gpu, const struct ridge_kernel_shape *s,
		      const struct ridge_timing_terms *terms, bool in_stream, struct ridge_kernel_time *t)
{
	double rows = (s->m > 0 ? s->m : 1) * (s->batch > 0 ? s->batch : 1);
	int passes = s->kernel == RIDGE_KERNEL_LAYERNORM                                               ? 2
		     : s->kernel == RIDGE_KERNEL_RMSNORM || s->kernel == RIDGE_KERNEL_RESIDUAL_RMSNORM ? 1
												       : 0;
	if (terms && terms->has_row_time && passes > 0) {
		t->row_time_s = rows * passes * terms->row_time_s;
		t->row_provenance = timing_value_provenance(terms, RIDGE_TIMING_ROW);
		if (t->row_time_s > t->predicted_time_s - t->fixed_cost.value) {
			t->rows_bind = true;
			t->compute_binds = false;
			t->predicted_time_s = t->row_time_s + t->fixed_cost.value;
		}
	}
	struct row_kernel k;
	if (!row_kernel_of(gpu, s, &k))
		return;
	t->library_kernel = k.name;
	t->ctas = ceil(rows / k.rows_per_cta);
	double per_sm = floor(gpu->max_threads_per_sm / k.threads);
	if (gpu->max_blocks_per_sm > 0 && per_sm > gpu->max_blocks_per_sm)
		per_sm = gpu->max_blocks_per_sm;
	t->resident_ctas = gpu->sm_count * (per_sm >= 1 ? per_sm : 1);
	t->cta_stream_s = cta_stream(gpu, s, terms, &k, t);
	if (t->cta_stream_s > 0) {
		double launch = !in_stream && gpu->has_kernel_fixed_cost ? gpu->kernel_fixed_cost_s : 0;
		t->ctas_bind = true;
		t->rows_bind = false;
		t->compute_binds = false;
		t->predicted_time_s = t->cta_stream_s + launch;
		t->cta_stream_source = terms->value[RIDGE_TIMING_CTA].source;
		t->cta_provenance = timing_value_provenance(terms, RIDGE_TIMING_CTA);
	}
}

/* The what-ifs of --efficiency and --fixed-cost, over the entry's values. */
static void apply_overrides(const struct ridge_timing_overrides *ov, struct ridge_kernel_time *t)
{
	if (!ov || t->cls == RIDGE_TIME_OWN || (t->cls == RIDGE_TIME_ATTENTION && t->impl == RIDGE_ATTENTION_IDEAL))
		return;
	int c = (int)t->cls;
	/* an fp8 (fp4) GEMM takes the gemm what-if where none names gemm_fp8 (gemm_fp4): it was a gemm before
	 * its class existed */
	int g = timing_low_precision_gemm(t->cls) ? RIDGE_TIME_GEMM : c;
	int cc = ov->has_compute[c] ? c : g, cm = ov->has_memory[c] ? c : g, cf = ov->has_fixed[c] ? c : g;
	if (ov->has_compute[cc])
		t->compute_efficiency = term(ov->compute[cc], ov->text[cc][0], RIDGE_PROVENANCE_WHAT_IF);
	if (ov->has_memory[cm])
		t->memory_efficiency = term(ov->memory[cm], ov->text[cm][1], RIDGE_PROVENANCE_WHAT_IF);
	if (ov->has_fixed[cf])
		t->fixed_cost = term(ov->fixed_s[cf], ov->text[cf][2], RIDGE_PROVENANCE_WHAT_IF);
}

/* One "CLASS[.part]=VALUE" item of timing_parse_overrides. */
static int parse_override_item(const char *item, bool fixed, struct ridge_timing_overrides *o, char *err,
			       size_t err_len)
{
	const char *eq = strchr(item, '=');
	if (!eq || eq == item)
		return model_fail(err, err_len, "'%s' is not CLASS=%s", item, fixed ? "TIME" : "F");
	char name[32];
	size_t n = (size_t)(eq - item);
	if (n >= sizeof name)
		return model_fail(err, err_len, "'%.*s...' is not a kernel class", 24, item);
	memcpy(name, item, n);
	name[n] = '\0';
	int part = fixed ? 2 : -1; /* -1: compute and memory */
	char *dot = strchr(name, '.');
	if (dot && !fixed) {
		*dot++ = '\0';
		if (strcmp(dot, "compute") == 0)
			part = 0;
		else if (strcmp(dot, "memory") == 0)
			part = 1;
		else
			return model_fail(err, err_len, "'%s': the part is compute or memory, not '%s'", item, dot);
	}
	int cls = -1;
	for (int c = 0; c < RIDGE_TIME_CLASS_COUNT; c++)
		if (c != RIDGE_TIME_OWN && strcasecmp(name, timing_class_name((enum ridge_time_class)c)) == 0)
			cls = c;
	if (cls < 0)
		return model_fail(
			err, err_len,
			"'%s' is not a kernel class (known: gemm gemm_fp8 gemm_fp4 grouped_gemm attention norm softmax "
			"elementwise elementwise_strided)",
			name);
	double v;
	const char *value = eq + 1;
	char why[160];
	if (fixed) {
		if (ridge_quantity_parse(value, RIDGE_UNIT_SECONDS, &v, why, sizeof why) != 0)
			return model_fail(err, err_len, "'%s': %s", item, why);
		if (!(v >= 0 && v <= 1))
			return model_fail(err, err_len, "'%s': a fixed cost from 0 to 1 s", item);
	} else {
		size_t len = strlen(value);
		bool percent = len > 0 && value[len - 1] == '%';
		char number[48];
		snprintf(number, sizeof number, "%.*s", (int)(percent ? len - 1 : len), value);
		if (ridge_quantity_parse(number, RIDGE_UNIT_COUNT, &v, why, sizeof why) != 0)
			return model_fail(err, err_len, "'%s': %s", item, why);
		if (percent)
			v /= 100;
		if (!(v > 0 && v <= 1))
			return model_fail(err, err_len, "'%s': an efficiency is above 0 and at most 1 (or 100%%)",
					  item);
	}
	for (int p = 0; p < 3; p++) {
		if (!(p == part || (part == -1 && p < 2)))
			continue;
		double *slot = p == 0 ? &o->compute[cls] : p == 1 ? &o->memory[cls] : &o->fixed_s[cls];
		bool *has = p == 0 ? &o->has_compute[cls] : p == 1 ? &o->has_memory[cls] : &o->has_fixed[cls];
		*slot = v;
		*has = true;
		snprintf(o->text[cls][p], sizeof o->text[cls][p], "--%s %.24s: a what-if",
			 fixed ? "fixed-cost" : "efficiency", item);
	}
	return 0;
}

int timing_parse_overrides(const char *text, bool fixed, struct ridge_timing_overrides *o, char *err, size_t err_len)
{
	char buf[512];
	if (strlen(text) >= sizeof buf)
		return model_fail(err, err_len, "longer than %zu characters", sizeof buf - 1);
	snprintf(buf, sizeof buf, "%s", text);
	int items = 0;
	for (char *save = NULL, *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		while (*item == ' ')
			item++;
		if (parse_override_item(item, fixed, o, err, err_len) != 0)
			return -1;
		items++;
	}
	if (items == 0)
		return model_fail(err, err_len, "give CLASS=%s[,CLASS=%s]", fixed ? "TIME" : "F", fixed ? "TIME" : "F");
	return 0;
}

double timing_predict(double quantized_compute_time_s, double memory_time_s, double compute_efficiency,
		      double memory_efficiency, double fixed_cost_s)
{
	double compute = quantized_compute_time_s / compute_efficiency;
	double memory = memory_time_s / memory_efficiency;
	return (compute > memory ? compute : memory) + fixed_cost_s;
}

/* The CTA tile a library picks along one output dimension: its default 128,
 * or the power of two at or above a smaller dimension (at least 8). cuBLAS on
 * the H200 ran decode and skinny shapes with tiles of 64x8, 128x8, 128x32,
 * 80x64 and large ones with 128..320 x 128 (the kernel names of
 * measurements/2026-12-01-h200-heldout/timings.json): a 128-wide tile on an
 * 8-token GEMM would count 16x the work it does. */
static int library_tile(double dim, int full)
{
	int t = 8;
	while (t < full && t < dim)
		t *= 2;
	return t;
}

/* The library's tile along the token dimension M: one tile of M rounded up
 * to 8 for M up to 256, else the default 128. cuBLAS (through F.linear, bf16,
 * an H100) ran 48..224 tokens with one tile of exactly that many
 * (nvjet_sm90_tst_256x72_..., 256x144, 128x176, 128x224: the kernel names of
 * measurements/2026-12-06-h100-gemm-library/gemm_small_m.json); a 128-row
 * tile on 144 tokens would count 256 rows of work. */
static int library_token_tile(double m)
{
	if (m <= 256)
		return (int)(ceil(m / 8) * 8);
	return library_tile(m, RIDGE_LIBRARY_TILE_M);
}

/* Tile and wave quantization of a library GEMM's output: the library's tile
 * (library_tile), one CTA per SM (a 128 x 128 bf16 tile with its pipeline
 * stages fills most of an SM's shared memory), `batch` independent outputs. */
static int quantize_gemm(const struct ridge_gpu *gpu, const struct ridge_kernel_shape *s, struct ridge_kernel_time *t,
			 char *err, size_t err_len)
{
	double batch = s->batch >= 1 ? s->batch : 1;
	double m = s->m, n = s->n;
	if (m > 9e15 || n > 9e15 || m * batch > 9e15)
		return model_fail(err, err_len, "GEMM of %g x %g is too large to count its tiles", m, n);
	struct ridge_align_tile tile = { library_token_tile(m), library_tile(n, RIDGE_LIBRARY_TILE_N), 1 };
	struct ridge_align_tiling q;
	/* The batch stacks along M: batch x ceil(M/tm) x ceil(N/tn) tiles. */
	if (align_tiling((long long)m, (long long)n, &tile, gpu->sm_count, &q, err, err_len))
		return -1;
	double tiles = (double)q.tiles * batch;
	double slots = (double)q.slots;
	double waves = ceil(tiles / slots);
	t->quantized = true;
	t->tiles = tiles;
	t->slots = slots;
	t->waves = waves;
	t->tile_m = tile.m;
	t->tile_n = tile.n;
	t->quantization_efficiency = q.tile_efficiency * (tiles / (waves * slots));
	/* Up to 256 tokens the library splits K over the SMs its tiles leave idle
	 * (stream-K: the nvjet kernels of gemm_small_m.json); only the tile's
	 * padding of M is lost. */
	if (m <= 256 && batch == 1)
		t->quantization_efficiency = q.tile_efficiency;
	return 0;
}

int timing_grouped_quantization(const struct ridge_gpu *gpu, double groups, double m, double n,
				struct ridge_kernel_time *t, char *err, size_t err_len)
{
	const struct {
		const char *what;
		double v;
	} need[] = { { "groups", groups }, { "rows per group", m }, { "columns", n } };
	for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
		if (!(isfinite(need[i].v) && need[i].v > 0 && need[i].v <= 9e15))
			return model_fail(err, err_len, "grouped GEMM: %s must be from 0 to 9e15 (exclusive), not %g",
					  need[i].what, need[i].v);
	if (gpu->sm_count < 1)
		return model_fail(err, err_len, "grouped GEMM: %s has no SM count", gpu->id);
	double tm = library_tile(m, RIDGE_LIBRARY_TILE_M), tn = library_tile(n, RIDGE_LIBRARY_TILE_N);
	double tiles_m = ceil(m / tm), tiles_n = ceil(n / tn);
	double tiles = groups * tiles_m * tiles_n;
	double slots = gpu->sm_count;
	double waves = ceil(tiles / slots);
	t->quantized = true;
	t->tiles = tiles;
	t->slots = slots;
	t->waves = waves;
	t->tile_m = (int)tm;
	t->tile_n = (int)tn;
	t->quantization_efficiency = m * n / (tiles_m * tm * tiles_n * tn) * (tiles / (waves * slots));
	t->quantized_compute_time_s = t->compute_time_s / t->quantization_efficiency;
	return 0;
}

/* Classes that price with another class's terms where the entry has no fit
 * of their own, and what the output says then. The grouped GEMM: on the H100
 * the library GEMM's terms run its weights 12 % faster than torch._grouped_mm
 * does (validation/harnesses/fit_grouped_gemm.py). The strided element-wise
 * ops: the contiguous kernels' terms stream about twice as fast as PyTorch's
 * unvectorized kernel on views (validation/harnesses/fit_strided_elementwise.py). */
static const struct {
	enum ridge_time_class cls, from;
	const char *why;
} borrowed_terms[] = {
	{ RIDGE_TIME_GROUPED_GEMM, RIDGE_TIME_GEMM,
	  "the gemm class's: this GPU has no grouped_gemm fit (on the H100 the grouped kernel streams its weights "
	  "12 % slower than the gemm class says)" },
	{ RIDGE_TIME_GEMM_FP8, RIDGE_TIME_GEMM,
	  "the gemm class's (fitted to bf16 GEMMs): this GPU has no gemm_fp8 fit (on the H200 and H100 the fp8 "
	  "library GEMM reaches a different fraction of its spec rate than bf16: validation/harnesses/fit_fp8_gemm.py)" },
	{ RIDGE_TIME_GEMM_FP4, RIDGE_TIME_GEMM,
	  "the gemm class's (fitted to bf16 GEMMs): this GPU has no gemm_fp4 fit (on the B200 the published NVFP4 "
	  "library GEMM reaches a lower fraction of its spec rate than bf16: hwdb/b200.yaml)" },
	{ RIDGE_TIME_ELEMENTWISE_STRIDED, RIDGE_TIME_ELEMENTWISE,
	  "the elementwise class's: this GPU has no elementwise_strided fit (on the H100 PyTorch's unvectorized "
	  "kernels on views stream at about half its rate)" },
};

/* The entry's terms for t's slot, or the class's it borrows from where the
 * slot is empty (t->borrowed_terms says so, and grouped_as_gemm). */
static const struct ridge_timing_terms *slot_terms(const struct ridge_gpu *gpu, struct ridge_kernel_time *t)
{
	const struct ridge_timing_terms *terms = t->slot >= 0 ? &gpu->timing[t->slot] : NULL;
	for (size_t i = 0; i < sizeof borrowed_terms / sizeof borrowed_terms[0]; i++)
		if (t->cls == borrowed_terms[i].cls && terms && timing_slot_empty(terms)) {
			t->grouped_as_gemm = t->cls == RIDGE_TIME_GROUPED_GEMM;
			t->borrowed_terms = borrowed_terms[i].why;
			return &gpu->timing[timing_slot(borrowed_terms[i].from, RIDGE_ATTENTION_DEFAULT)];
		}
	return terms;
}

/* Terms borrowed from another class are transferred, and say whose. */
static void mark_borrowed(struct ridge_kernel_time *t)
{
	if (!t->borrowed_terms)
		return;
	struct ridge_time_term *terms[] = { &t->compute_efficiency, &t->memory_efficiency, &t->fixed_cost };
	for (size_t i = 0; i < sizeof terms / sizeof terms[0]; i++) {
		terms[i]->source = t->borrowed_terms;
		if (terms[i]->provenance == RIDGE_PROVENANCE_MEASURED ||
		    terms[i]->provenance == RIDGE_PROVENANCE_SOURCED)
			terms[i]->provenance = RIDGE_PROVENANCE_TRANSFERRED;
	}
}

int timing_kernel(const struct ridge_gpu *gpu, const struct ridge_kernel_shape *shape,
		  const struct ridge_timing_options *options, struct ridge_kernel_time *out, char *err, size_t err_len)
{
	static const struct ridge_timing_options none = { .impl = RIDGE_ATTENTION_DEFAULT };
	const struct ridge_timing_options *o = options ? options : &none;
	memset(out, 0, sizeof *out);
	struct ridge_kernel_time *t = out;
	double level_bytes[RIDGE_LEVEL_COUNT] = { -1, -1, -1 };
	if (intensity_kernel_on(gpu, shape, &t->cost, err, err_len) ||
	    intensity_ceiling(gpu, shape, &t->cost, o->no_tensor, o->sparse, RIDGE_LEVEL_HBM, &t->ceiling, &t->path,
			      err, err_len) ||
	    intensity_levels_on(gpu, shape, &t->cost, &t->path, level_bytes, err, err_len) ||
	    roofline_hierarchy(gpu, t->ceiling.peak_flops, t->cost.flops, level_bytes, t->cost.write_bytes,
			       &t->hierarchy, err, err_len))
		return -1;

	const struct ridge_roofline_hierarchy *h = &t->hierarchy;
	t->cls = timing_kernel_class(shape->kernel);
	if (o->grouped && t->cls == RIDGE_TIME_GEMM)
		t->cls = RIDGE_TIME_GROUPED_GEMM;
	else if (t->path.uses_matrix)
		t->cls = timing_shape_class(shape);
	if (o->strided && t->cls == RIDGE_TIME_ELEMENTWISE)
		t->cls = RIDGE_TIME_ELEMENTWISE_STRIDED;
	t->impl = classes[t->cls].per_impl ? resolve_impl(gpu, o->impl) : RIDGE_ATTENTION_DEFAULT;
	t->slot = timing_slot(t->cls, t->impl);
	t->time_floor_s = h->time_floor_s;
	t->compute_time_s = h->compute_time_s;
	t->quantization_efficiency = 1;
	/* The memory term is the DRAM bytes at the entry's plain HBM ceiling
	 * (memory.bandwidth), not at the read/write mix the floor uses: a class's
	 * memory efficiency then times one number, so it carries over exactly
	 * from one entry's ceilings to another's (timing_rebase) and absorbs the
	 * class's typical mix. Without DRAM bytes, the hierarchy's slowest level. */
	t->memory_time_s = 0;
	t->memory_level = -1;
	if (level_bytes[RIDGE_LEVEL_HBM] >= 0 && gpu->memory_bandwidth > 0) {
		t->memory_time_s = level_bytes[RIDGE_LEVEL_HBM] / gpu->memory_bandwidth;
		t->memory_level = RIDGE_LEVEL_HBM;
	} else {
		for (int l = 0; l < RIDGE_LEVEL_COUNT; l++)
			if (h->levels[l].placed && h->levels[l].time_s > t->memory_time_s) {
				t->memory_time_s = h->levels[l].time_s;
				t->memory_level = l;
			}
	}
	/* Only a library GEMM's tiles are known well enough to quantize; a GEMV's
	 * handful of output columns does not fill tiles the way a GEMM does. */
	if (shape->kernel == RIDGE_KERNEL_GEMM && t->path.uses_matrix && quantize_gemm(gpu, shape, t, err, err_len))
		return -1;
	t->quantized_compute_time_s = t->compute_time_s / t->quantization_efficiency;

	const struct ridge_timing_terms *terms = slot_terms(gpu, t);
	static const char unknown[] = "none known for this GPU and kernel class: 1 (the floor)";
	t->compute_efficiency = terms && terms->has_compute_efficiency ? value_term(terms, RIDGE_TIMING_COMPUTE)
								       : term(1, unknown, RIDGE_PROVENANCE_FLOOR);
	t->memory_efficiency = terms && terms->has_memory_efficiency ? value_term(terms, RIDGE_TIMING_MEMORY)
								     : term(1, unknown, RIDGE_PROVENANCE_FLOOR);
	double intercept;
	const char *intercept_source;
	if (t->cls == RIDGE_TIME_OWN || (t->cls == RIDGE_TIME_ATTENTION && t->impl == RIDGE_ATTENTION_IDEAL)) {
		t->compute_efficiency =
			term(1, "the roofline itself (this kernel's algorithm is the model)", RIDGE_PROVENANCE_FLOOR);
		t->memory_efficiency = t->compute_efficiency;
		t->fixed_cost = term(0, "none: the floor is the model", RIDGE_PROVENANCE_FLOOR);
	} else if (terms && terms->has_fixed_cost) {
		t->fixed_cost = value_term(terms, RIDGE_TIMING_FIXED);
	} else if (timing_probe_fixed_cost(gpu, t->cls, &intercept, &intercept_source)) {
		/* ridge-probe's intercept: measured where the entry is a
		 * calibration, else the entry's own launch figure (its
		 * comment and sources say where from). */
		t->fixed_cost = term(intercept, intercept_source,
				     gpu->measured ? RIDGE_PROVENANCE_MEASURED : RIDGE_PROVENANCE_SOURCED);
	} else {
		t->fixed_cost = term(0, "none known for this GPU (a calibration measures it)", RIDGE_PROVENANCE_FLOOR);
	}
	mark_borrowed(t);
	apply_overrides(o->overrides, t);
	if (o->in_stream && t->cls != RIDGE_TIME_OWN && t->fixed_cost.value > 0) {
		/* The fitted fixed costs were measured on isolated kernels (CUDA
		 * events around one call), launch latency included; the probe's
		 * launch.kernel_fixed_cost is that latency for a streaming kernel
		 * timed the same way. Back to back it is hidden. */
		if (gpu->has_kernel_fixed_cost)
			t->fixed_cost = term(fmax(t->fixed_cost.value - gpu->kernel_fixed_cost_s, 0),
					     "in a stream: the class's fixed cost less launch.kernel_fixed_cost (the "
					     "launch latency an isolated kernel shows, hidden back to back)",
					     t->fixed_cost.provenance);
	}
	double compute = t->quantized_compute_time_s / t->compute_efficiency.value;
	double memory = t->memory_time_s / t->memory_efficiency.value;
	t->compute_binds = compute >= memory;
	t->predicted_time_s = timing_predict(t->quantized_compute_time_s, t->memory_time_s, t->compute_efficiency.value,
					     t->memory_efficiency.value, t->fixed_cost.value);
	row_terms(gpu, shape, terms, o->in_stream, t);
	/* Nothing runs faster than the floor: a prediction never goes below it. */
	t->floor_binds = t->predicted_time_s < t->time_floor_s;
	if (t->floor_binds)
		t->predicted_time_s = t->time_floor_s;
	if (!isfinite(t->predicted_time_s))
		return model_fail(err, err_len, "the predicted time overflows (%g FLOP, %g bytes)", t->cost.flops,
				  t->cost.bytes);
	timing_range(t);
	return 0;
}

/* Slot i of from with each efficiency converted to to's ceilings so that
 * efficiency x ceiling, the rate the class reaches, is kept; the source says
 * how it came (fmt with from's id). */
static struct ridge_timing_terms rebase_slot(const struct ridge_gpu *from, const struct ridge_gpu *to, int i,
					     const char *fmt)
{
	double peak_from = 0, peak_to = 0;
	const char *why;
	bool compute = ridge_gpu_peak(from, RIDGE_BF16, RIDGE_PEAK_DEFAULT, false, &peak_from, &why) &&
		       ridge_gpu_peak(to, RIDGE_BF16, RIDGE_PEAK_DEFAULT, false, &peak_to, &why) && peak_to > 0;
	bool memory = from->memory_bandwidth > 0 && to->memory_bandwidth > 0;
	struct ridge_timing_terms t = from->timing[i];
	if (t.has_compute_efficiency && compute)
		t.compute_efficiency *= peak_from / peak_to;
	else
		t.has_compute_efficiency = false;
	if (t.has_memory_efficiency && memory)
		t.memory_efficiency *= from->memory_bandwidth / to->memory_bandwidth;
	else
		t.has_memory_efficiency = false;
	if (t.source[0] && from != to) {
		char carried[sizeof t.source];
		char how[160];
		snprintf(how, sizeof how, fmt, from->id);
		snprintf(carried, sizeof carried, "%s: %s", how, t.source);
		memcpy(t.source, carried, sizeof t.source);
	}
	return t;
}

void timing_rebase(const struct ridge_gpu *from, struct ridge_gpu *to)
{
	for (int i = 0; i < RIDGE_TIMING_SLOTS; i++)
		to->timing[i] = rebase_slot(from, to, i, "carried from %s's ceilings with the rate kept");
	memcpy(to->attention_default, from->attention_default, sizeof to->attention_default);
}

/* Value v of slot t with its provenance and source resolved (its own, else
 * the slot's): what a copy into another entry's slot must carry. */
static struct ridge_timing_origin origin_of(const struct ridge_timing_terms *t, enum ridge_timing_value v)
{
	struct ridge_timing_origin o;
	snprintf(o.provenance, sizeof o.provenance, "%s", ridge_provenance_name(timing_value_provenance(t, v)));
	snprintf(o.source, sizeof o.source, "%s", timing_value_source(t, v));
	return o;
}

bool timing_slot_empty(const struct ridge_timing_terms *t)
{
	return !t->has_compute_efficiency && !t->has_memory_efficiency && !t->has_fixed_cost && !t->has_cta_bandwidth &&
	       !t->has_row_time && !t->has_cta_latency;
}

int timing_inherit(const struct ridge_gpu *from, struct ridge_gpu *to)
{
	int carried = 0;
	for (int i = 0; i < RIDGE_TIMING_SLOTS; i++) {
		const struct ridge_timing_terms *f = &from->timing[i];
		struct ridge_timing_terms *t = &to->timing[i];
		if (timing_slot_empty(f))
			continue;
		if (timing_slot_empty(t)) {
			*t = rebase_slot(from, to, i,
					 "inherited from the %s entry (the calibration has none), carried to its "
					 "measured ceilings with the rate kept");
			carried++;
			continue;
		}
		/* A class the calibration holds keeps its fit; the absolute terms
		 * an older file cannot have (a time per row, one CTA's stream)
		 * come from the entry as they are, and the source says so. */
		bool took = false;
		if (!t->has_row_time && f->has_row_time) {
			t->has_row_time = true;
			t->row_time_s = f->row_time_s;
			t->value[RIDGE_TIMING_ROW] = origin_of(f, RIDGE_TIMING_ROW);
			took = true;
		}
		if (!t->has_cta_bandwidth && f->has_cta_bandwidth) {
			t->has_cta_bandwidth = true;
			t->cta_bandwidth = f->cta_bandwidth;
			t->value[RIDGE_TIMING_CTA] = origin_of(f, RIDGE_TIMING_CTA);
			/* the latency is half of the same stream term: it comes with it */
			t->has_cta_latency = f->has_cta_latency;
			t->cta_latency_s = f->cta_latency_s;
			took = true;
		}
		if (took) {
			size_t used = strlen(t->source);
			snprintf(t->source + used, sizeof t->source - used, "%s(absolute terms from the %s entry)",
				 used ? "; " : "", from->id);
			carried++;
		}
	}
	if (!to->attention_default[0])
		memcpy(to->attention_default, from->attention_default, sizeof to->attention_default);
	return carried;
}

/* ---- the fit ---- */

/* Solves the n x n system a x = b (n <= 3) by Gaussian elimination with
 * partial pivoting; false when singular. */
static bool solve(int n, double a[3][3], double b[3], double x[3])
{
	/* Singular relative to the matrix's own scale: samples that all look
	 * alike (the same floor) cannot separate an efficiency from a fixed cost. */
	double scale = 0;
	for (int r = 0; r < n; r++)
		for (int c = 0; c < n; c++)
			if (fabs(a[r][c]) > scale)
				scale = fabs(a[r][c]);
	for (int c = 0; c < n; c++) {
		int p = c;
		for (int r = c + 1; r < n; r++)
			if (fabs(a[r][c]) > fabs(a[p][c]))
				p = r;
		if (!(fabs(a[p][c]) > 1e-9 * scale))
			return false;
		if (p != c) {
			for (int k = 0; k < n; k++) {
				double tmp = a[c][k];
				a[c][k] = a[p][k];
				a[p][k] = tmp;
			}
			double tmp = b[c];
			b[c] = b[p];
			b[p] = tmp;
		}
		for (int r = c + 1; r < n; r++) {
			double f = a[r][c] / a[c][c];
			for (int k = c; k < n; k++)
				a[r][k] -= f * a[c][k];
			b[r] -= f * b[c];
		}
	}
	for (int r = n - 1; r >= 0; r--) {
		double s = b[r];
		for (int k = r + 1; k < n; k++)
			s -= a[r][k] * x[k];
		x[r] = s / a[r][r];
	}
	for (int r = 0; r < n; r++)
		if (!isfinite(x[r]))
			return false;
	return true;
}

struct fit_state {
	double inv_compute, inv_memory, fixed; /* 1/efficiency: the model is linear in these */
	bool free_compute, free_memory, free_fixed;
};

/* One weighted least-squares step: with each sample's regime fixed, the
 * relative residual (x u + y v + b) / t - 1 is linear in the free unknowns. */
static bool fit_step(const struct ridge_timing_sample *s, int count, const bool *compute_regime, struct fit_state *st)
{
	int index[3], n = 0;
	if (st->free_compute)
		index[n++] = 0;
	if (st->free_memory)
		index[n++] = 1;
	if (st->free_fixed)
		index[n++] = 2;
	if (n == 0)
		return true;
	double a[3][3] = { { 0 } }, b[3] = { 0 }, x[3] = { 0 };
	for (int i = 0; i < count; i++) {
		double inv_t = 1 / s[i].measured_s;
		double row[3] = { compute_regime[i] ? s[i].compute_time_s * inv_t : 0,
				  compute_regime[i] ? 0 : s[i].memory_time_s * inv_t, inv_t };
		/* The held parameters move to the right-hand side. */
		double rhs = 1;
		if (!st->free_compute)
			rhs -= row[0] * st->inv_compute;
		if (!st->free_memory)
			rhs -= row[1] * st->inv_memory;
		if (!st->free_fixed)
			rhs -= row[2] * st->fixed;
		for (int r = 0; r < n; r++) {
			for (int c = 0; c < n; c++)
				a[r][c] += row[index[r]] * row[index[c]];
			b[r] += row[index[r]] * rhs;
		}
	}
	if (!solve(n, a, b, x))
		return false;
	for (int r = 0; r < n; r++) {
		if (index[r] == 0)
			st->inv_compute = x[r];
		else if (index[r] == 1)
			st->inv_memory = x[r];
		else
			st->fixed = x[r];
	}
	return true;
}

/* Whether the samples can tell an efficiency from a fixed cost: only when the
 * model times of a regime's samples span at least a factor of two (a fixed
 * cost is what stays when the work shrinks; samples of one size cannot show
 * it). */
static bool separable(const struct ridge_timing_sample *s, int count, const bool *compute_regime)
{
	double lo[2] = { INFINITY, INFINITY }, hi[2] = { 0, 0 };
	for (int i = 0; i < count; i++) {
		int r = compute_regime[i] ? 0 : 1;
		double x = compute_regime[i] ? s[i].compute_time_s : s[i].memory_time_s;
		if (x < lo[r])
			lo[r] = x;
		if (x > hi[r])
			hi[r] = x;
	}
	return (hi[0] > 0 && hi[0] >= 2 * lo[0]) || (hi[1] > 0 && hi[1] >= 2 * lo[1]);
}

/* Efficiencies stay in (0, 1.5]: above the ceiling by half is a bad fit, not a GPU. */
#define MIN_INV_EFFICIENCY (1 / 1.5)

int timing_fit(const struct ridge_timing_sample *samples, int count, double prior_compute_efficiency,
	       double prior_memory_efficiency, double prior_fixed_cost_s, struct ridge_timing_fit *out, char *err,
	       size_t err_len)
{
	memset(out, 0, sizeof *out);
	if (count <= 0)
		return model_fail(err, err_len, "no samples to fit");
	if (count > 100000)
		return model_fail(err, err_len, "%d samples: at most 100000", count);
	if (!(prior_compute_efficiency > 0) || !(prior_memory_efficiency > 0) || !(prior_fixed_cost_s >= 0) ||
	    !isfinite(prior_compute_efficiency) || !isfinite(prior_memory_efficiency) || !isfinite(prior_fixed_cost_s))
		return model_fail(err, err_len, "the priors must be finite, efficiencies > 0 and the fixed cost >= 0");
	for (int i = 0; i < count; i++) {
		const struct ridge_timing_sample *s = &samples[i];
		if (!(s->measured_s > 0) || !isfinite(s->measured_s) || !(s->compute_time_s >= 0) ||
		    !isfinite(s->compute_time_s) || !(s->memory_time_s >= 0) || !isfinite(s->memory_time_s))
			return model_fail(err, err_len,
					  "sample %d: times must be finite, the measured time > 0 (compute %g s, "
					  "memory %g s, measured %g s)",
					  i + 1, s->compute_time_s, s->memory_time_s, s->measured_s);
	}
	bool *regime = malloc((size_t)count * sizeof *regime);
	double *errors = malloc((size_t)count * sizeof *errors);
	if (!regime || !errors) {
		free(regime);
		free(errors);
		return model_fail(err, err_len, "out of memory for %d samples", count);
	}
	struct fit_state st = {
		1 / prior_compute_efficiency, 1 / prior_memory_efficiency, prior_fixed_cost_s, false, false, count >= 3
	};
	/* Regimes by the priors first, then by the fitted terms until they settle. */
	for (int iteration = 0; iteration < 20; iteration++) {
		int nc = 0, nm = 0;
		bool changed = iteration == 0;
		for (int i = 0; i < count; i++) {
			bool c = samples[i].compute_time_s * st.inv_compute >= samples[i].memory_time_s * st.inv_memory;
			changed = changed || c != regime[i];
			regime[i] = c;
			nc += c;
			nm += !c;
		}
		if (!changed)
			break;
		out->compute_bound_samples = nc;
		out->memory_bound_samples = nm;
		st.free_compute = nc >= 2;
		st.free_memory = nm >= 2;
		st.free_fixed = count >= 3 && (st.free_compute || st.free_memory) && separable(samples, count, regime);
		st.inv_compute = 1 / prior_compute_efficiency;
		st.inv_memory = 1 / prior_memory_efficiency;
		st.fixed = prior_fixed_cost_s;
		if (!fit_step(samples, count, regime, &st)) {
			/* Degenerate (all samples alike): hold the fixed cost and retry. */
			st.free_fixed = false;
			st.fixed = prior_fixed_cost_s;
			st.inv_compute = 1 / prior_compute_efficiency;
			st.inv_memory = 1 / prior_memory_efficiency;
			if (!fit_step(samples, count, regime, &st))
				break;
		}
		if (st.free_fixed && st.fixed < 0) {
			st.free_fixed = false;
			st.fixed = 0;
			st.inv_compute = 1 / prior_compute_efficiency;
			st.inv_memory = 1 / prior_memory_efficiency;
			if (!fit_step(samples, count, regime, &st))
				break;
		}
		/* An efficiency past the bound is held there and the rest refitted. */
		bool clamped = false;
		if (st.free_compute && st.inv_compute < MIN_INV_EFFICIENCY) {
			st.free_compute = false;
			st.inv_compute = MIN_INV_EFFICIENCY;
			clamped = true;
		}
		if (st.free_memory && st.inv_memory < MIN_INV_EFFICIENCY) {
			st.free_memory = false;
			st.inv_memory = MIN_INV_EFFICIENCY;
			clamped = true;
		}
		if (clamped && !fit_step(samples, count, regime, &st))
			break;
		if (st.free_fixed && st.fixed < 0) {
			st.free_fixed = false;
			st.fixed = 0;
			if (!fit_step(samples, count, regime, &st))
				break;
		}
	}
	out->samples = count;
	out->fitted_compute = st.free_compute;
	out->fitted_memory = st.free_memory;
	out->fitted_fixed = st.free_fixed;
	out->compute_efficiency = 1 / st.inv_compute;
	out->memory_efficiency = 1 / st.inv_memory;
	out->fixed_cost_s = st.fixed;
	double sum_sq = 0;
	for (int i = 0; i < count; i++) {
		double p = timing_predict(samples[i].compute_time_s, samples[i].memory_time_s, out->compute_efficiency,
					  out->memory_efficiency, out->fixed_cost_s);
		double e = (p - samples[i].measured_s) / samples[i].measured_s;
		errors[i] = fabs(e);
		sum_sq += e * e;
	}
	out->median_abs_error = ridge_median(errors, (size_t)count); /* sorts: the last is the largest */
	out->max_abs_error = errors[count - 1];
	out->rms_error = sqrt(sum_sq / count);
	free(regime);
	free(errors);
	if (!isfinite(out->compute_efficiency) || !isfinite(out->memory_efficiency) || !isfinite(out->fixed_cost_s))
		return model_fail(err, err_len, "the fit did not converge");
	return 0;
}
