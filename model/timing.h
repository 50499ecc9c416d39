/* The kernel time model: what a kernel is expected to take, beside its floor.
 *
 *   predicted_time = max(compute_time / compute_efficiency,
 *                        memory_time  / memory_efficiency) + fixed_cost
 *
 *   compute_time   the roofline's compute time; for library GEMMs divided by the
 *                  tile and wave quantization of the output (align_tiling: a
 *                  partial last wave leaves SMs idle for a whole tile's time)
 *   memory_time    the largest time of the hierarchical roofline's memory levels
 *   efficiencies   per kernel class (GEMM, attention by implementation, norms,
 *                  softmax, element-wise): the fraction of the ceiling such
 *                  kernels reach, fitted from measured kernels (ridge calibrate,
 *                  the hwdb entry's timing section with its source) or 1 where
 *                  nothing is known (the prediction is then the floor)
 *   fixed_cost     per kernel: fill, drain and tail that no amount of work
 *                  hides; the class's fitted value, else the probe's measured
 *                  intercept (launch.gemm_fixed_cost for GEMMs,
 *                  launch.kernel_fixed_cost for the rest), else none
 *
 * time_floor_s keeps its meaning (the hierarchical roofline floor: nothing runs
 * faster). Every term comes back with where it came from.
 *
 * timing_fit() is the other direction: from measured kernels of one class
 * (their compute and memory times under this model and the measured time) it
 * finds the efficiencies and the fixed cost by least squares on the relative
 * error. Pure functions; errors returned. docs/models/timing.md. */
#ifndef RIDGE_TIMING_H
#define RIDGE_TIMING_H

#include <stdbool.h>
#include <stddef.h>

#include "gpu.h"
#include "intensity.h"
#include "roofline.h"
#include "timing_classes.h"

/* Which efficiency a kernel gets: RIDGE_TIME_OWN, _GEMM, _ATTENTION, _NORM,
 * _SOFTMAX, _ELEMENTWISE, one a line of timing_classes.h (what each is, its
 * kernels and its slots are there). */
#define RIDGE_TIME_ENUM_(u, NAME, name, slots, kernels, patterns, intercept) RIDGE_TIME_##NAME,
enum ridge_time_class {
	RIDGE_TIME_CLASSES(RIDGE_TIME_ENUM_, RIDGE_TIME_NONE, RIDGE_TIME_NONE, ) RIDGE_TIME_CLASS_COUNT
};
#undef RIDGE_TIME_ENUM_

/* "own", "gemm", "attention", "norm", "softmax", "elementwise". */
const char *timing_class_name(enum ridge_time_class cls);
enum ridge_time_class timing_kernel_class(enum ridge_kernel kernel);
/* The class of a kernel of that shape on a matrix path: the kernel's, except a
 * gemm-class kernel in fp8 or fp4, which is gemm_fp8 or gemm_fp4 (its own efficiencies where the
 * entry has them, the gemm class's where not). */
enum ridge_time_class timing_shape_class(const struct ridge_kernel_shape *shape);
/* The library GEMM in a narrow dtype (gemm_fp8, gemm_fp4): it takes the gemm
 * class's what-ifs and held-out band where it has none of its own. */
bool timing_low_precision_gemm(enum ridge_time_class cls);

/* Attention implementations: the `--impl` spellings. ideal is the roofline
 * itself (efficiency 1, no fixed cost); default is the entry's
 * timing.attention_default (what PyTorch's SDPA picks there), else fa2. */
enum ridge_attention_impl {
	RIDGE_ATTENTION_DEFAULT,
	RIDGE_ATTENTION_IDEAL,
	RIDGE_ATTENTION_FA2,
	RIDGE_ATTENTION_FA3,
	RIDGE_ATTENTION_CUDNN,
	/* Decode (one query token per request): split-kv splits each request's
	 * KV sequence across enough CTAs to fill the GPU and combines the parts
	 * (flash-decoding; what SDPA with enable_gqa runs at query length 1 and
	 * what serving engines' paged kernels do), so the cache streams near
	 * HBM bandwidth at any batch: the default for decode attention.
	 * per-head runs one CTA per request x KV head, the query group folded
	 * into the query axis (validation/heldout/decode_step.py's layout):
	 * few CTAs at small batch, each at timing.attention_per_head.cta_bandwidth. */
	RIDGE_ATTENTION_SPLIT_KV,
	RIDGE_ATTENTION_PER_HEAD,
	/* PyTorch SDPA's memory-efficient backend (xformers-style cutlass
	 * kernels): what SDPA runs where FlashAttention-2 does not (Turing,
	 * Volta) or is not picked. */
	RIDGE_ATTENTION_EFFICIENT,
	/* Decode over a static cache as Hugging Face transformers runs it
	 * (sdpa_attention_forward with a mask): K and V copied out to every
	 * query head (repeat_kv), then SDPA with the mask over the whole cache,
	 * which PyTorch 2.11 gives cuDNN's key-splitting kernel. One kernel in
	 * the step model, bytes the cache read once, its H/KV-fold copy written
	 * and read again (model/serve.c); timing.attention_repeat_kv's memory
	 * efficiency is the pair's (validation/harnesses/fit_repeat_kv.py). */
	RIDGE_ATTENTION_REPEAT_KV,
	/* The same under torch.compile: inductor writes each copy as one
	 * generated kernel (fused with the RoPE around it) that streams near the
	 * HBM rate, where eager's strided copies reach about a third of it; its
	 * own slot, timing.attention_repeat_kv_fused. */
	RIDGE_ATTENTION_REPEAT_KV_FUSED,
	RIDGE_ATTENTION_IMPL_COUNT
};
const char *timing_attention_impl_name(enum ridge_attention_impl impl);
bool timing_attention_impl_parse(const char *text, enum ridge_attention_impl *out);
/* "default ideal fa2 fa3 cudnn split-kv per-head efficient repeat-kv repeat-kv-fused". */
const char *timing_attention_impl_list(void);

/* The entry's slot (struct ridge_gpu timing[]) for a class and implementation;
 * -1 for the classes that have none (own; ideal attention). */
int timing_slot(enum ridge_time_class cls, enum ridge_attention_impl impl);
/* The hwdb key of a slot under `timing:` ("gemm", "attention_fa2", ...). */
const char *timing_slot_key(int slot);

/* The fixed cost a kernel of class cls falls back on when its slot has none:
 * ridge-probe's measured intercept (the class's intercept column in
 * timing_classes.h: launch.gemm_fixed_cost for library GEMMs where the entry
 * has it, else launch.kernel_fixed_cost), with where it comes from. False when
 * the entry has neither. */
bool timing_probe_fixed_cost(const struct ridge_gpu *gpu, enum ridge_time_class cls, double *value,
			     const char **source);
/* Whether a class has a slot per attention implementation (its kernels'
 * implementation is resolved: attention). */
bool timing_class_per_impl(enum ridge_time_class cls);
/* The class a slot belongs to (RIDGE_TIME_OWN for no slot). */
enum ridge_time_class timing_slot_class(int slot);

/* What-if values on top of whatever the entry holds, per class (--efficiency
 * CLASS=F, CLASS.compute=F, CLASS.memory=F; --fixed-cost CLASS=T): every
 * attention implementation of the class takes them. Shown as the term's
 * source ("--efficiency gemm=0.7: a what-if"). */
struct ridge_timing_overrides {
	bool has_compute[RIDGE_TIME_CLASS_COUNT], has_memory[RIDGE_TIME_CLASS_COUNT], has_fixed[RIDGE_TIME_CLASS_COUNT];
	double compute[RIDGE_TIME_CLASS_COUNT], memory[RIDGE_TIME_CLASS_COUNT], fixed_s[RIDGE_TIME_CLASS_COUNT];
	char text[RIDGE_TIME_CLASS_COUNT][3][48]; /* the item as given, for the source: compute, memory, fixed */
};

/* Parses "gemm=0.7,attention.compute=55%" (0 < F <= 1) into o, or
 * "gemm=5us,norm=2us" when fixed is true (0 <= T <= 1 s). Classes are the
 * ones with timing slots (gemm gemm_fp8 grouped_gemm attention norm softmax elementwise elementwise_strided). Returns
 * 0, or -1 with err naming the bad item. */
int timing_parse_overrides(const char *text, bool fixed, struct ridge_timing_overrides *o, char *err, size_t err_len);

struct ridge_timing_options {
	const struct ridge_timing_overrides *overrides; /* NULL: none */
	bool no_tensor, sparse;
	enum ridge_attention_impl impl; /* attention kernels only */
	/* Issued back to back (a CUDA graph, a persistent kernel, a busy
	 * stream): the launch latency an isolated kernel shows
	 * (launch.kernel_fixed_cost) overlaps the kernel before, and only the
	 * class's own fill, drain and tail remain of its fixed cost. */
	bool in_stream;
	/* A library GEMM that is one launch over many experts (a grouped GEMM,
	 * model/serve.c): the grouped_gemm class, or the gemm class's terms
	 * where the entry has no grouped_gemm fit (grouped_as_gemm says so). */
	bool grouped;
	/* An element-wise kernel over a non-contiguous view, as PyTorch runs a
	 * plain layer's RoPE, cache writes and SiLU on views (model/serve.c,
	 * --layer-ops pytorch): the elementwise_strided class, or the
	 * elementwise class's terms where the entry has no fit of it
	 * (borrowed_terms says so). */
	bool strided;
};

struct ridge_time_term {
	double value;
	const char *source; /* "fitted: ...", "measured by ridge-probe ...", "none known" */
	enum ridge_provenance provenance;
};

/* A slot with no value at all (an entry without that class's fit). */
bool timing_slot_empty(const struct ridge_timing_terms *t);

/* Value v of a slot: its own provenance (<value>_provenance) else the
 * slot's; FLOOR when neither says (or t is NULL). */
enum ridge_provenance timing_value_provenance(const struct ridge_timing_terms *t, enum ridge_timing_value v);
/* Value v's own source else the slot's ("" when neither). */
const char *timing_value_source(const struct ridge_timing_terms *t, enum ridge_timing_value v);

/* The P10 and P90 of measured / predicted - 1 over held-out cases of one
 * class at one provenance (model/timing_range.c; validation/README.md, "How
 * far to trust a prediction"), and how many cases gave them. */
struct ridge_time_band {
	double low, high;
	int cases;
};

struct ridge_kernel_time {
	enum ridge_time_class cls;
	enum ridge_attention_impl impl; /* resolved (never DEFAULT) for attention */
	int slot;                       /* the entry's timing slot, or -1 */
	struct ridge_kernel_cost cost;
	struct ridge_roofline_ceiling ceiling;
	struct ridge_kernel_path path;
	struct ridge_roofline_hierarchy hierarchy;
	double time_floor_s;             /* the hierarchical roofline floor */
	double compute_time_s;           /* flops / peak */
	bool quantized;                  /* library GEMM: tile and wave quantization applied */
	double quantization_efficiency;  /* useful / computed tile area x waves (1 when not quantized) */
	double tiles, waves, slots;      /* when quantized */
	int tile_m, tile_n;              /* the library tile assumed (timing.c, library_tile) */
	double quantized_compute_time_s; /* compute_time_s / quantization_efficiency */
	double memory_time_s;            /* the slowest memory level's time */
	int memory_level;                /* which (enum ridge_level) */
	struct ridge_time_term compute_efficiency, memory_efficiency, fixed_cost;
	bool compute_binds; /* the compute term is the larger after efficiencies */
	/* Norms with the entry's timing.<slot>.row_time: rows x reduction passes
	 * (RMSNorm 1, LayerNorm 2: mean and variance) x row_time, a third term of
	 * the max (many narrow rows are bound by rows, not bytes); 0 otherwise. */
	double row_time_s;
	bool rows_bind;
	enum ridge_provenance row_provenance; /* of row_time_s */
	/* Row kernels (norms; softmax without --passes) on NVIDIA: the library's
	 * kernel by width (PyTorch's: timing.c, row_kernel_of; NULL for other
	 * kernels), its CTAs (rows / rows per CTA) and how many are resident at
	 * once (SMs x the CTAs an SM holds by threads). With the slot's
	 * cta_bandwidth, while the resident CTAs' streams cannot fill the HBM,
	 * the CTA stream (timing.c, cta_stream; docs/models/timing.md, "Row
	 * kernels") is the kernel: the prediction is it plus the launch latency
	 * of an isolated kernel, and ctas_bind is set. 0 where it does not apply. */
	const char *library_kernel;
	double ctas, resident_ctas;
	double cta_stream_s;
	const char *cta_stream_source;        /* the slot's cta_bandwidth_source, when it applies */
	enum ridge_provenance cta_provenance; /* of cta_stream_s */
	bool ctas_bind;
	bool floor_binds;           /* the formula fell below the floor: the floor is the prediction */
	bool grouped_as_gemm;       /* a grouped GEMM on an entry with no grouped_gemm fit: the gemm class's terms */
	const char *borrowed_terms; /* a class priced with another's terms (no fit of its own on the
				       entry): why, as its terms' source says; NULL: its own */
	double predicted_time_s;
	/* How far to trust it (timing_range): the provenance of what binds
	 * (the row term, else the larger term's efficiency; what-if when any
	 * term is the user's), the class's band for it and the range
	 * [predicted (1 + band.low), predicted (1 + band.high)], never below
	 * the floor. */
	enum ridge_provenance provenance;
	bool has_band;
	struct ridge_time_band band;
	double predicted_time_range_s[2];
};

/* False when no band is known for the pair (a what-if takes the measured
 * band: the formula's own error; the own class its floor band). */
bool timing_band(enum ridge_time_class cls, enum ridge_provenance provenance, struct ridge_time_band *out);
/* The band of an eager step's host issue time (the launches' host cost a
 * kernel): how far host-bound eager steps of code no fit saw fell from
 * their predictions. */
bool timing_eager_host_band(struct ridge_time_band *out);
/* Sets t's provenance, band and predicted_time_range_s from its terms
 * (timing_kernel calls it last; call it again after changing the
 * prediction). */
void timing_range(struct ridge_kernel_time *t);

/* A step's kernels summed by class: errors within a class move together
 * (one efficiency prices them all), so their ranges add linearly; classes
 * are independent, so their deviations add in quadrature. */
struct ridge_time_sum {
	double central[RIDGE_TIME_CLASS_COUNT], low[RIDGE_TIME_CLASS_COUNT], high[RIDGE_TIME_CLASS_COUNT];
	bool seen[RIDGE_TIME_CLASS_COUNT];
	enum ridge_provenance provenance[RIDGE_TIME_CLASS_COUNT]; /* the weakest a class used */
	/* the power limit's throttling, when the step paid it (power.provenance) */
	bool power_limit_seen;
	enum ridge_provenance power_limit;
};
/* Adds scale x t (its prediction and range) to sum. */
void timing_range_add(struct ridge_time_sum *sum, const struct ridge_kernel_time *t, double scale);
/* Notes that the sum's step paid gpu's power limit (its power.provenance;
 * none given: measured, as the hwdb reader takes a calibration's). */
void timing_sum_power_limit(struct ridge_time_sum *sum, const struct ridge_gpu *gpu);
/* The weakest provenance the sum used, its power limit's included (measured
 * < sourced < transferred < floor < what-if); floor when empty. */
enum ridge_provenance timing_sum_weakest(const struct ridge_time_sum *sum);
/* The range of central (the sum's kernels plus terms without a band) from
 * the per-class deviations. */
void timing_range_total(const struct ridge_time_sum *sum, double central, double range[2]);

/* Prices one kernel on gpu. Returns 0, or -1 with err naming the bad input. */
int timing_kernel(const struct ridge_gpu *gpu, const struct ridge_kernel_shape *shape,
		  const struct ridge_timing_options *options, struct ridge_kernel_time *out, char *err, size_t err_len);

/* Tile and wave quantization of a grouped GEMM: one launch over `groups`
 * problems of m x n outputs each (an expectation: both may be fractional, as
 * the experts a batch touches and their rows are). Each group's rows fill
 * tiles of their own (a tile never spans two groups: CUTLASS's grouped GEMM,
 * torch._grouped_mm and the engines' fused-MoE kernels tile each group's M
 * separately), the tile along a dimension the library's for one group's size
 * (timing.c, library_tile), and every group's tiles share the waves over the
 * SMs (one CTA per SM). Sets t's quantized, tiles, waves, slots, tile_m,
 * tile_n, quantization_efficiency (useful area / computed tile area x waves)
 * and quantized_compute_time_s (from its compute_time_s). Returns 0, or -1
 * with err naming the bad input. */
int timing_grouped_quantization(const struct ridge_gpu *gpu, double groups, double m, double n,
				struct ridge_kernel_time *t, char *err, size_t err_len);

/* The prediction from its parts (what timing_kernel computes last): exposed
 * so a fit and a printer use the one formula. */
double timing_predict(double quantized_compute_time_s, double memory_time_s, double compute_efficiency,
		      double memory_efficiency, double fixed_cost_s);

/* Copies from's timing section into to, each efficiency converted so that
 * efficiency x ceiling (the rate the class reaches) is kept: compute against
 * the bf16 matrix peak (the rate the fits are made on), memory against
 * memory.bandwidth. ridge-probe uses it to carry an hwdb entry's fit into a
 * calibration of measured ceilings; fixed costs and sources are copied. */
void timing_rebase(const struct ridge_gpu *from, struct ridge_gpu *to);

/* A calibration (to: measured ceilings) written without some of its
 * entry's (from) timing classes, by an older ridge-probe or for a class added
 * since, takes each missing class from the entry carried to its own ceilings
 * as timing_rebase carries them (the source says "inherited from"), so a
 * measured GPU is never priced at its floor where its spec entry is not.
 * Classes the calibration holds keep their fit and take only the absolute
 * terms they lack (row_time, cta_bandwidth with its cta_latency). Returns how many slots took
 * anything. */
int timing_inherit(const struct ridge_gpu *from, struct ridge_gpu *to);

/* One measured kernel for timing_fit: its model times and the measurement. */
struct ridge_timing_sample {
	double compute_time_s; /* quantized compute time (ridge_kernel_time.quantized_compute_time_s) */
	double memory_time_s;
	double measured_s;
};

struct ridge_timing_fit {
	int samples;
	bool fitted_compute, fitted_memory, fitted_fixed; /* false: held at the prior */
	double compute_efficiency, memory_efficiency, fixed_cost_s;
	int compute_bound_samples, memory_bound_samples;
	double median_abs_error, max_abs_error; /* relative, over the samples */
	double rms_error;
};

/* Least squares on the relative error of timing_predict() over the samples.
 * Each sample is assigned to the regime (compute or memory) whose term is the
 * larger under the current parameters; the parameters of a regime with fewer
 * than two samples stay at the priors (prior_*), as does the fixed cost when
 * fewer than three samples are given. Efficiencies are kept in (0, 1.5] and
 * the fixed cost >= 0 (refitted without it when the free fit goes negative).
 * Returns 0, or -1 with err (no samples, a non-finite or non-positive time). */
int timing_fit(const struct ridge_timing_sample *samples, int count, double prior_compute_efficiency,
	       double prior_memory_efficiency, double prior_fixed_cost_s, struct ridge_timing_fit *out, char *err,
	       size_t err_len);

#endif
