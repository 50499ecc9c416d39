/* ridge calibrate's work (calibrate_calc.h): fit the time model's per-class
 * efficiencies and fixed costs (model/timing.h) to measured kernels, judge
 * the fit on cases it never saw, and write the result into a calibration
 * every calculator reads.
 *
 *   a timings file: a ridge-timings-1 JSON document (validation/heldout/kernels.py):
 *                   cases with a ridge kernel, its shape flags, samples, and a
 *                   set: "fit" cases are fitted, "heldout" cases only judged
 *   an ncu CSV:     an Nsight Compute CSV of the user's own kernels: each kernel
 *                   is classed by its name and placed by its counted FLOPs and
 *                   DRAM bytes; every kernel is fitted (there is no held-out set) */
#include "calibrate_calc.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hwdb.h"
#include "kernel_time.h"
#include "kernel_view.h"
#include "models.h"
#include "ncu.h"
#include "json_fields.h"
#include "name_table.h"
#include "read_limits.h"

struct cal_case {
	char set[16];   /* "fit" or "heldout" */
	char call[160]; /* what was timed */
	struct ridge_kernel_shape shape;
	bool from_ncu; /* placed by counted FLOPs and bytes, not a shape */
	enum ridge_time_class cls;
	enum ridge_attention_impl impl;
	double flops, bytes; /* ncu cases */
	double measured_s;   /* median of the samples */
	double spread;       /* (max - min) / median of the samples */
	int samples;
	double compute_s, memory_s, floor_s; /* under the prior (no timing terms) */
	double predicted_s;                  /* under the fit */
};

struct cal_input {
	char gpu_name[RIDGE_TEXT];
	char what[RIDGE_LONG_TEXT]; /* "torch 2.11.0+cu130, 2026-12-01T19:53Z" */
	int count;
	struct cal_case *cases;
};

/* ---- kernel names -> classes (ncu and the timings' profiler lists) ---- */

static bool contains(const char *name, const char *needle)
{
	return strcasestr(name, needle) != NULL;
}

/* The attention implementation a kernel name belongs to; DEFAULT when none. */
static enum ridge_attention_impl impl_of_name(const char *name)
{
	if (contains(name, "cudnn") && (contains(name, "sdpa") || contains(name, "flash") || contains(name, "fmha")))
		return RIDGE_ATTENTION_CUDNN;
	/* PyTorch's memory-efficient SDPA backend: xformers' cutlass kernels. */
	if (contains(name, "MemEffAttention") || contains(name, "fmha_cutlass"))
		return RIDGE_ATTENTION_EFFICIENT;
	if (contains(name, "flash_fwd") || contains(name, "flash::") || contains(name, "flash_attn"))
		return contains(name, "sm90") || contains(name, "hopper") ? RIDGE_ATTENTION_FA3 : RIDGE_ATTENTION_FA2;
	return RIDGE_ATTENTION_DEFAULT;
}

/* Each class's pieces of a profiled kernel's name: the patterns column of
 * model/timing_classes.h, in its order. */
#define CLASS_PATTERN(text) text,
#define CLASS_PATTERNS(u, NAME, name, slots, kernels, patterns, intercept) { RIDGE_TIME_##NAME, { patterns NULL } },
static const struct {
	enum ridge_time_class cls;
	const char *patterns[12];
} class_patterns[] = { RIDGE_TIME_CLASSES(CLASS_PATTERNS, RIDGE_TIME_NONE, CLASS_PATTERN, ) };
#undef CLASS_PATTERN
#undef CLASS_PATTERNS

static bool class_named(int row, const char *name, enum ridge_attention_impl impl)
{
	if (timing_class_per_impl(class_patterns[row].cls) && impl != RIDGE_ATTENTION_DEFAULT)
		return true;
	for (const char *const *p = class_patterns[row].patterns; *p; p++)
		if (contains(name, *p))
			return true;
	return false;
}

/* Classes a profiled kernel by its name; false when no class fits. The
 * classes with a slot per implementation come first: a fused attention
 * kernel's name carries its library's (cutlass) too. */
static bool class_of_name(const char *name, enum ridge_time_class *cls, enum ridge_attention_impl *impl)
{
	*impl = impl_of_name(name);
	for (int per_impl = 1; per_impl >= 0; per_impl--)
		for (size_t i = 0; i < sizeof class_patterns / sizeof class_patterns[0]; i++)
			if (timing_class_per_impl(class_patterns[i].cls) == per_impl &&
			    class_named((int)i, name, *impl)) {
				*cls = class_patterns[i].cls;
				return true;
			}
	return false;
}

/* "gemm, attention, ...": the classes a kernel name can be given. */
static const char *named_classes(void)
{
	static char list[256];
	size_t at = 0;
	list[0] = '\0';
	for (size_t i = 0; i < sizeof class_patterns / sizeof class_patterns[0]; i++)
		if (class_patterns[i].patterns[0])
			at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", at ? ", " : "",
					       timing_class_name(class_patterns[i].cls));
	return list;
}

/* ---- reading a timings document ---- */

static int fail_case(char *err, size_t len, const char *path, int index, const char *fmt, const char *detail)
{
	char what[300];
	snprintf(what, sizeof what, fmt, detail);
	snprintf(err, len, "%s: case %d: %s", path, index + 1, what);
	return -1;
}

static const struct {
	const char *key;
	size_t offset;
} shape_keys[] = {
	{ "m", offsetof(struct ridge_kernel_shape, m) },
	{ "n", offsetof(struct ridge_kernel_shape, n) },
	{ "k", offsetof(struct ridge_kernel_shape, k) },
	{ "batch", offsetof(struct ridge_kernel_shape, batch) },
	{ "seq", offsetof(struct ridge_kernel_shape, seq) },
	{ "heads", offsetof(struct ridge_kernel_shape, heads) },
	{ "kv-heads", offsetof(struct ridge_kernel_shape, kv_heads) },
	{ "head-dim", offsetof(struct ridge_kernel_shape, head_dim) },
};

static int read_flags(const cJSON *flags, struct ridge_kernel_shape *s, const char *path, int index, char *err,
		      size_t len)
{
	if (!cJSON_IsObject(flags))
		return fail_case(err, len, path, index, "'flags' must be an object of ridge shape flags%s", "");
	const cJSON *f;
	cJSON_ArrayForEach (f, flags) {
		if (strcmp(f->string, "causal") == 0) {
			if (!cJSON_IsBool(f))
				return fail_case(err, len, path, index, "flag 'causal' must be true or false%s", "");
			s->causal = cJSON_IsTrue(f);
			continue;
		}
		size_t i = 0;
		while (i < sizeof shape_keys / sizeof shape_keys[0] && strcmp(shape_keys[i].key, f->string) != 0)
			i++;
		if (i == sizeof shape_keys / sizeof shape_keys[0])
			return fail_case(
				err, len, path, index,
				"unknown shape flag '%s' (known: m n k batch seq heads kv-heads head-dim causal)",
				f->string);
		double v = f->valuedouble;
		if (!cJSON_IsNumber(f) || !(v >= 1) || v > 1099511627776.0 || v != floor(v))
			return fail_case(err, len, path, index, "flag '%s' must be a whole number from 1 to 2^40",
					 f->string);
		*(double *)((char *)s + shape_keys[i].offset) = v;
	}
	return 0;
}

static int read_samples(const cJSON *c, struct cal_case *out, const char *path, int index, char *err, size_t len)
{
	const cJSON *samples = cJSON_GetObjectItemCaseSensitive(c, "samples_s");
	int n = cJSON_GetArraySize(samples);
	if (!cJSON_IsArray(samples) || n < 1)
		return fail_case(err, len, path, index, "no durations: 'samples_s' must be a list of seconds%s", "");
	if (n > READ_MAX_TIMINGS_SAMPLES) {
		char limit[32];
		snprintf(limit, sizeof limit, "%d", READ_MAX_TIMINGS_SAMPLES);
		return fail_case(err, len, path, index, "more than %s samples", limit);
	}
	double *v = malloc((size_t)n * sizeof *v);
	if (!v)
		return fail_case(err, len, path, index, "out of memory%s", "");
	int i = 0;
	const cJSON *x;
	cJSON_ArrayForEach (x, samples) {
		if (!cJSON_IsNumber(x) || !(x->valuedouble >= READ_MIN_KERNEL_SECONDS) ||
		    !(x->valuedouble <= READ_MAX_KERNEL_SECONDS)) {
			free(v);
			return fail_case(err, len, path, index,
					 "a sample is not a kernel's duration in seconds (1e-9 <= t <= 3600)%s", "");
		}
		v[i++] = x->valuedouble;
	}
	out->samples = n;
	out->measured_s = ridge_median(v, (size_t)n);
	out->spread = (v[n - 1] - v[0]) / out->measured_s;
	free(v);
	return 0;
}

/* Errors read "--timings FILE: ..."; text is the file's, read through the
 * strict reader. */
static int parse_timings(const char *path, const char *text, size_t size, struct cal_input *in, struct app_status *st)
{
	char err[1200] = "";
	size_t len = sizeof err;
	struct json_strict_limits lim = { .max_values = READ_MAX_TIMINGS_VALUES,
					  .max_depth = 16,
					  .max_open_keys = READ_MAX_JSON_OPEN_KEYS,
					  .what = "timings file" };
	cJSON *doc = app_json_parse(path, text, size, &lim, st);
	if (!doc)
		return -1;
	int rc = -1;
	const cJSON *format = cJSON_GetObjectItemCaseSensitive(doc, "format");
	const cJSON *cases = cJSON_GetObjectItemCaseSensitive(doc, "cases");
	if (!cJSON_IsString(format) || strcmp(format->valuestring, "ridge-timings-1") != 0) {
		snprintf(err, len, "%s: not a ridge-timings-1 document (its \"format\" key)", path);
		goto done;
	}
	int n = cJSON_GetArraySize(cases);
	if (!cJSON_IsArray(cases) || n < 1 || n > READ_MAX_TIMINGS_CASES) {
		snprintf(err, len, "%s: 'cases' must be a list of 1 to %d cases", path, READ_MAX_TIMINGS_CASES);
		goto done;
	}
	in->cases = calloc((size_t)n, sizeof *in->cases);
	if (!in->cases) {
		snprintf(err, len, "%s: out of memory", path);
		goto done;
	}
	const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(doc, "gpu");
	if (cJSON_IsString(gpu))
		text_line_copy(in->gpu_name, sizeof in->gpu_name, gpu->valuestring, strlen(gpu->valuestring));
	const cJSON *torch = cJSON_GetObjectItemCaseSensitive(doc, "torch");
	const cJSON *date = cJSON_GetObjectItemCaseSensitive(doc, "date");
	char what[sizeof in->what];
	snprintf(what, sizeof what, "%s%s%s%s", cJSON_IsString(torch) ? "torch " : "",
		 cJSON_IsString(torch) ? torch->valuestring : "", cJSON_IsString(date) ? ", " : "",
		 cJSON_IsString(date) ? date->valuestring : "");
	text_line_copy(in->what, sizeof in->what, what, strlen(what));
	const cJSON *c;
	int i = 0;
	cJSON_ArrayForEach (c, cases) {
		struct cal_case *k = &in->cases[i];
		const cJSON *set = cJSON_GetObjectItemCaseSensitive(c, "set");
		const cJSON *kernel = cJSON_GetObjectItemCaseSensitive(c, "kernel");
		const cJSON *call = cJSON_GetObjectItemCaseSensitive(c, "call");
		if (!cJSON_IsString(set) || (strcmp(set->valuestring, "fit") && strcmp(set->valuestring, "heldout"))) {
			fail_case(err, len, path, i, "'set' must be \"fit\" or \"heldout\"%s", "");
			goto done;
		}
		snprintf(k->set, sizeof k->set, "%s", set->valuestring);
		if (!cJSON_IsString(kernel) || !intensity_kernel_parse(kernel->valuestring, &k->shape.kernel)) {
			fail_case(err, len, path, i, "unknown kernel '%s' (known: see ridge roofline --help)",
				  cJSON_IsString(kernel) ? kernel->valuestring : "(none)");
			goto done;
		}
		k->shape.dtype = RIDGE_BF16;
		const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(c, "dtype");
		if (!dtype)
			dtype = cJSON_GetObjectItemCaseSensitive(doc, "dtype");
		if (dtype && (!cJSON_IsString(dtype) || !ridge_dtype_parse(dtype->valuestring, &k->shape.dtype))) {
			fail_case(err, len, path, i, "unknown dtype '%s'",
				  cJSON_IsString(dtype) ? dtype->valuestring : "?");
			goto done;
		}
		if (read_flags(cJSON_GetObjectItemCaseSensitive(c, "flags"), &k->shape, path, i, err, len) ||
		    read_samples(c, k, path, i, err, len))
			goto done;
		const char *called = cJSON_IsString(call) ? call->valuestring : kernel->valuestring;
		text_line_copy(k->call, sizeof k->call, called, strlen(called));
		k->cls = timing_shape_class(&k->shape);
		k->impl = RIDGE_ATTENTION_DEFAULT;
		/* The implementation that ran, from the profiled kernel names. */
		const cJSON *names = cJSON_GetObjectItemCaseSensitive(c, "kernels"), *kn;
		cJSON_ArrayForEach (kn, names) {
			const cJSON *name = cJSON_GetObjectItemCaseSensitive(kn, "name");
			if (cJSON_IsString(name) && k->impl == RIDGE_ATTENTION_DEFAULT)
				k->impl = impl_of_name(name->valuestring);
		}
		i++;
	}
	in->count = n;
	rc = 0;
done:
	cJSON_Delete(doc);
	if (rc)
		app_error(st, "--timings %s", err);
	return rc;
}

/* The file's own read errors as app_read_file words them. */
static int read_timings(const char *path, struct cal_input *in, struct app_status *st)
{
	size_t size;
	char *text = app_read_file(path, READ_MAX_TIMINGS_BYTES, "timings", &size, st);
	if (!text)
		return -1;
	int rc = parse_timings(path, text, size, in, st);
	free(text);
	return rc;
}

int calibrate_timings_check(const char *path, const char *text, size_t len, int *cases, struct app_status *st)
{
	struct cal_input in = { .count = 0 };
	int rc = parse_timings(path, text, len, &in, st);
	*cases = in.count;
	free(in.cases);
	return rc;
}

/* ---- reading an ncu CSV ---- */

/* The kernels placed by their counted FLOPs and DRAM bytes on gpu. Errors
 * read "--ncu FILE...". */
static int read_ncu_cases(const char *path, const struct ridge_gpu *gpu, struct cal_input *in, char *err, size_t len,
			  struct app_status *st)
{
	size_t size;
	char *text = app_read_file(path, READ_MAX_NCU_BYTES, "ncu CSV", &size, st);
	if (!text)
		return 1; /* the reason is in st already */
	struct ncu_report rep;
	int rc = ncu_parse(path, text, size, &rep, err, len);
	free(text);
	if (rc)
		return -1;
	in->cases = calloc((size_t)(rep.count > 0 ? rep.count : 1), sizeof *in->cases);
	if (!in->cases) {
		ncu_free(&rep);
		snprintf(err, len, "%s: out of memory", path);
		return -1;
	}
	int unknown = 0, no_time = 0, n = 0;
	char first_unknown[120] = "";
	for (int i = 0; i < rep.count; i++) {
		const struct ncu_kernel *k = &rep.kernels[i];
		struct cal_case *c = &in->cases[n];
		if (!k->has_time || !(k->time_s > 0)) {
			no_time++;
			continue;
		}
		if (!(k->time_s >= READ_MIN_KERNEL_SECONDS && k->time_s <= READ_MAX_KERNEL_SECONDS)) {
			snprintf(err, len, "%s:%d: kernel '%.80s' took %g s: not a kernel's duration (1e-9 to 3600 s)",
				 path, k->line, k->name, k->time_s);
			free(in->cases);
			in->cases = NULL;
			ncu_free(&rep);
			return -1;
		}
		double bytes;
		if (!class_of_name(k->name, &c->cls, &c->impl) || !ncu_dram_bytes(k, &bytes)) {
			if (!unknown++)
				snprintf(first_unknown, sizeof first_unknown, "%.100s", k->name);
			continue;
		}
		enum ridge_dtype dtype = RIDGE_FP32;
		bool matrix = false;
		double flops = ncu_flops(k);
		if (flops > 0)
			ncu_dominant(k, &dtype, &matrix);
		double peak = 0;
		const char *why;
		if (flops > 0 &&
		    !ridge_gpu_peak(gpu, dtype, matrix ? RIDGE_PEAK_MATRIX : RIDGE_PEAK_VECTOR, false, &peak, &why)) {
			snprintf(err, len, "%s:%d: kernel '%.80s': %s", path, k->line, k->name, why);
			free(in->cases);
			in->cases = NULL;
			ncu_free(&rep);
			return -1;
		}
		snprintf(c->set, sizeof c->set, "fit");
		text_line_copy(c->call, 151, k->name, strlen(k->name));
		c->from_ncu = true;
		c->flops = flops;
		c->bytes = bytes;
		c->compute_s = flops > 0 ? flops / peak : 0;
		double write_fraction = k->has_dram_read && k->has_dram_write && bytes > 0 ? k->dram_write / bytes : -1;
		c->memory_s = bytes / roofline_hbm_bandwidth(gpu, write_fraction);
		c->floor_s = c->compute_s > c->memory_s ? c->compute_s : c->memory_s;
		c->measured_s = k->time_s;
		c->samples = 1;
		n++;
	}
	ncu_free(&rep);
	if (no_time && n == 0) {
		snprintf(err, len,
			 "%s: no kernel has a duration (gpu__time_duration.sum): profile with --metrics "
			 "gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,...",
			 path);
		free(in->cases);
		in->cases = NULL;
		return -1;
	}
	if (n == 0) {
		snprintf(err, len, "%s: no kernel could be classed (the first: '%s'); known classes: %s", path,
			 first_unknown, named_classes());
		free(in->cases);
		in->cases = NULL;
		return -1;
	}
	if (unknown)
		app_warning(st, "%s: %d kernel(s) left out: no class fits their names (the first: '%s')", path, unknown,
			    first_unknown);
	in->count = n;
	return 0;
}

static int read_ncu(const char *path, const struct ridge_gpu *gpu, struct cal_input *in, struct app_status *st)
{
	char err[1200];
	int rc = read_ncu_cases(path, gpu, in, err, sizeof err, st);
	if (rc < 0)
		app_error(st, "--ncu %s", err);
	return rc ? -1 : 0;
}

/* ---- the fit ---- */

struct slot_fit {
	bool any;
	struct ridge_timing_fit fit;
	double heldout_median, fit_median;
	int heldout_count, fit_count;
};

/* Places every shaped case on prior (the entry without a timing section). */
static int place_cases(const struct ridge_gpu *prior, struct cal_input *in, char *err, size_t len)
{
	for (int i = 0; i < in->count; i++) {
		struct cal_case *c = &in->cases[i];
		if (c->from_ncu)
			continue;
		struct ridge_timing_options o = { .impl = c->impl };
		struct ridge_kernel_time t;
		char why[400];
		if (timing_kernel(prior, &c->shape, &o, &t, why, sizeof why)) {
			snprintf(err, len, "case %d (%s): %s", i + 1, c->call, why);
			return -1;
		}
		c->impl = t.impl;
		c->compute_s = t.quantized_compute_time_s;
		c->memory_s = t.memory_time_s;
		c->floor_s = t.time_floor_s;
	}
	/* The physical range of a fit (issue 31): a shape of 2^40-element
	 * dimensions or a kernel that moves 1e30 bytes is no kernel that ran. */
	for (int i = 0; i < in->count; i++) {
		const struct cal_case *c = &in->cases[i];
		if (!(c->floor_s <= READ_MAX_KERNEL_SECONDS) || !isfinite(c->compute_s) || !isfinite(c->memory_s)) {
			snprintf(err, len,
				 "case %d (%s): its floor is %g s on this GPU: no kernel that ran (at most %g s)",
				 i + 1, c->call, c->floor_s, READ_MAX_KERNEL_SECONDS);
			return -1;
		}
	}
	return 0;
}

static int case_slot(const struct cal_case *c)
{
	return timing_slot(c->cls, c->impl == RIDGE_ATTENTION_DEFAULT ? RIDGE_ATTENTION_FA2 : c->impl);
}

static double prior_fixed_cost(const struct ridge_gpu *g, int slot)
{
	double value;
	const char *source;
	return timing_probe_fixed_cost(g, timing_slot_class(slot), &value, &source) ? value : 0;
}

static int fit_slots(struct ridge_gpu *fitted, const struct cal_input *in, bool fit_all, const char *file,
		     struct slot_fit fits[RIDGE_TIMING_SLOTS], char *err, size_t len)
{
	struct ridge_timing_sample *samples = malloc((size_t)in->count * sizeof *samples);
	if (!samples) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	for (int slot = 0; slot < RIDGE_TIMING_SLOTS; slot++) {
		int n = 0;
		for (int i = 0; i < in->count; i++) {
			const struct cal_case *c = &in->cases[i];
			if (case_slot(c) != slot || (!fit_all && strcmp(c->set, "fit") != 0))
				continue;
			samples[n++] = (struct ridge_timing_sample){ c->compute_s, c->memory_s, c->measured_s };
		}
		fits[slot].any = n > 0;
		if (!n)
			continue;
		char why[300];
		if (timing_fit(samples, n, 1, 1, prior_fixed_cost(fitted, slot), &fits[slot].fit, why, sizeof why)) {
			snprintf(err, len, "fitting %s: %s", timing_slot_key(slot), why);
			free(samples);
			return -1;
		}
		struct ridge_timing_terms *t = &fitted->timing[slot];
		const struct ridge_timing_fit *f = &fits[slot].fit;
		t->has_compute_efficiency = f->fitted_compute;
		t->compute_efficiency = f->compute_efficiency;
		t->has_memory_efficiency = f->fitted_memory;
		t->memory_efficiency = f->memory_efficiency;
		t->has_fixed_cost = true;
		t->fixed_cost_s = f->fixed_cost_s;
		/* Fitted to the user's own measurements: the loader needs the slot's provenance. */
		snprintf(t->provenance, sizeof t->provenance, "measured");
		snprintf(t->source, sizeof t->source,
			 "fitted by ridge calibrate to %d measured kernels of %.200s%s%.120s (median |error| %.1f%%)",
			 n, file, in->what[0] ? ", " : "", in->what, 100 * f->median_abs_error);
	}
	free(samples);
	/* What PyTorch's SDPA ran: the attention implementation seen most. */
	int seen[RIDGE_ATTENTION_IMPL_COUNT] = { 0 }, best = 0;
	for (int i = 0; i < in->count; i++)
		if (in->cases[i].cls == RIDGE_TIME_ATTENTION && in->cases[i].impl != RIDGE_ATTENTION_DEFAULT)
			seen[in->cases[i].impl]++;
	for (int k = 1; k < RIDGE_ATTENTION_IMPL_COUNT; k++)
		if (seen[k] > seen[best])
			best = k;
	if (seen[best] > 0)
		snprintf(fitted->attention_default, sizeof fitted->attention_default, "%s",
			 timing_attention_impl_name((enum ridge_attention_impl)best));
	return 0;
}

/* --no-fit: the entry's own terms, shown as if fitted. */
static int entry_slots(const struct ridge_gpu *g, const struct cal_input *in, struct slot_fit fits[RIDGE_TIMING_SLOTS])
{
	for (int i = 0; i < in->count; i++) {
		int slot = case_slot(&in->cases[i]);
		if (slot < 0)
			continue;
		const struct ridge_timing_terms *t = &g->timing[slot];
		struct ridge_timing_fit *f = &fits[slot].fit;
		fits[slot].any = true;
		f->samples++;
		f->fitted_compute = t->has_compute_efficiency;
		f->compute_efficiency = t->compute_efficiency;
		f->fitted_memory = t->has_memory_efficiency;
		f->memory_efficiency = t->memory_efficiency;
		f->fixed_cost_s = t->has_fixed_cost ? t->fixed_cost_s : 0;
	}
	return 0;
}

static double relative_error(const struct cal_case *c)
{
	return (c->predicted_s - c->measured_s) / c->measured_s;
}

/* Predicts every case with the fitted terms, and the medians per slot and set. */
static void judge(const struct ridge_gpu *fitted, struct cal_input *in, struct slot_fit fits[RIDGE_TIMING_SLOTS])
{
	double *errs = malloc((size_t)(in->count > 0 ? in->count : 1) * sizeof *errs);
	for (int i = 0; i < in->count; i++) {
		struct cal_case *c = &in->cases[i];
		int slot = case_slot(c);
		const struct ridge_timing_terms *t = slot >= 0 ? &fitted->timing[slot] : NULL;
		double ce = t && t->has_compute_efficiency ? t->compute_efficiency : 1;
		double me = t && t->has_memory_efficiency ? t->memory_efficiency : 1;
		double fc = t && t->has_fixed_cost ? t->fixed_cost_s : 0;
		c->predicted_s = timing_predict(c->compute_s, c->memory_s, ce, me, fc);
		/* A shaped case is judged as every command prices it: timing_kernel
		 * with the fitted terms, its row and CTA-stream terms included (the
		 * fit itself is on the two-term formula). */
		struct ridge_timing_options o = { .impl = c->impl };
		struct ridge_kernel_time kt;
		char why[400];
		if (!c->from_ncu && timing_kernel(fitted, &c->shape, &o, &kt, why, sizeof why) == 0)
			c->predicted_s = kt.predicted_time_s;
		if (c->predicted_s < c->floor_s)
			c->predicted_s = c->floor_s; /* as timing_kernel: never below the floor */
	}
	for (int slot = 0; errs && slot < RIDGE_TIMING_SLOTS; slot++) {
		for (int pass = 0; pass < 2; pass++) {
			int n = 0;
			for (int i = 0; i < in->count; i++)
				if (case_slot(&in->cases[i]) == slot &&
				    (strcmp(in->cases[i].set, "fit") == 0) == (pass == 0))
					errs[n++] = fabs(relative_error(&in->cases[i]));
			double med = n ? ridge_median(errs, (size_t)n) : 0;
			if (pass == 0) {
				fits[slot].fit_count = n;
				fits[slot].fit_median = med;
			} else {
				fits[slot].heldout_count = n;
				fits[slot].heldout_median = med;
			}
		}
	}
	free(errs);
}

/* ---- output ---- */

static cJSON *result_json(const struct ridge_gpu *fitted, const struct cal_input *in,
			  const struct slot_fit fits[RIDGE_TIMING_SLOTS], const char *out)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "gpu", fitted->id);
	if (fitted->attention_default[0])
		cJSON_AddStringToObject(doc, "attention_default", fitted->attention_default);
	cJSON *arr = cJSON_AddArrayToObject(doc, "fits");
	for (int slot = 0; slot < RIDGE_TIMING_SLOTS; slot++) {
		if (!fits[slot].any)
			continue;
		const struct ridge_timing_fit *f = &fits[slot].fit;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "class", timing_slot_key(slot));
		cJSON_AddNumberToObject(o, "samples", f->samples);
		if (f->fitted_compute)
			json_number(o, "compute_efficiency", f->compute_efficiency);
		if (f->fitted_memory)
			json_number(o, "memory_efficiency", f->memory_efficiency);
		json_number(o, "fixed_cost_s", f->fixed_cost_s);
		json_number(o, "fit_median_abs_error", f->median_abs_error);
		json_number(o, "fit_max_abs_error", f->max_abs_error);
		json_number(o, "fit_rms_error", f->rms_error);
		if (fits[slot].heldout_count) {
			cJSON_AddNumberToObject(o, "heldout_cases", fits[slot].heldout_count);
			json_number(o, "heldout_median_abs_error", fits[slot].heldout_median);
		}
		cJSON_AddItemToArray(arr, o);
	}
	cJSON *cases = cJSON_AddArrayToObject(doc, "cases");
	for (int i = 0; i < in->count; i++) {
		const struct cal_case *c = &in->cases[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "set", c->set);
		cJSON_AddStringToObject(o, "call", c->call);
		cJSON_AddStringToObject(o, "class", timing_class_name(c->cls));
		if (c->cls == RIDGE_TIME_ATTENTION && c->impl != RIDGE_ATTENTION_DEFAULT)
			cJSON_AddStringToObject(o, "impl", timing_attention_impl_name(c->impl));
		static const struct json_field cal_case_fields[] = {
			JSON_FIELDS(struct cal_case, measured_s),
			JSON_FIELD_AS(struct cal_case, "time_floor_s", floor_s),
			JSON_FIELD_AS(struct cal_case, "compute_time_s", compute_s),
			JSON_FIELD_AS(struct cal_case, "memory_time_s", memory_s),
			JSON_FIELD_AS(struct cal_case, "predicted_time_s", predicted_s),
		};
		json_put_fields(o, c, cal_case_fields, JSON_FIELD_COUNT(cal_case_fields));
		json_number(o, "error", relative_error(c));
		json_number(o, "floor_error", (c->floor_s - c->measured_s) / c->measured_s);
		cJSON_AddItemToArray(cases, o);
	}
	if (out)
		cJSON_AddStringToObject(doc, "out", out);
	return doc;
}

static void print_result(FILE *out, const struct ridge_gpu *fitted, const struct cal_input *in,
			 const struct slot_fit fits[RIDGE_TIMING_SLOTS], bool no_fit)
{
	fprintf(out, "Time model %s %s (%s), %s ceilings\n", no_fit ? "of" : "fitted on", fitted->name, fitted->id,
		app_ceiling_source(fitted));
	if (no_fit)
		fprintf(out, "  nothing fitted: every case judged with the entry's own timing section\n");
	fprintf(out, "  predicted = max(compute / compute eff., memory / memory eff.) + fixed cost, per class\n\n");
	fprintf(out, "  %-19s %7s %9s %9s %10s %10s %10s\n", "class", "fit set", "compute", "memory", "fixed",
		"fit |err|", "held-out");
	for (int slot = 0; slot < RIDGE_TIMING_SLOTS; slot++) {
		if (!fits[slot].any)
			continue;
		const struct ridge_timing_fit *f = &fits[slot].fit;
		char fixed[32], ce[16] = "-", me[16] = "-", held[32] = "-";
		fmt_seconds(f->fixed_cost_s, fixed, sizeof fixed);
		if (f->fitted_compute)
			snprintf(ce, sizeof ce, "%.3f", f->compute_efficiency);
		if (f->fitted_memory)
			snprintf(me, sizeof me, "%.3f", f->memory_efficiency);
		if (fits[slot].heldout_count)
			snprintf(held, sizeof held, "%.1f%% (%d)", 100 * fits[slot].heldout_median,
				 fits[slot].heldout_count);
		fprintf(out, "  %-19s %7d %9s %9s %10s %9.1f%% %10s\n", timing_slot_key(slot), fits[slot].fit_count, ce,
			me, fixed, 100 * fits[slot].fit_median, held);
	}
	if (fitted->attention_default[0])
		fprintf(out, "  attention default: %s (the implementation the measured attention kernels ran)\n",
			fitted->attention_default);
	fprintf(out, "\n  %-8s %-46s %11s %11s %11s %8s %8s\n", "set", "kernel", "measured", "floor", "predicted",
		"error", "floor");
	int heldout = 0;
	double *abs_err = malloc((size_t)(in->count > 0 ? in->count : 1) * sizeof *abs_err);
	for (int i = 0; i < in->count; i++) {
		const struct cal_case *c = &in->cases[i];
		char m[32], f[32], p[32];
		fmt_seconds(c->measured_s, m, sizeof m);
		fmt_seconds(c->floor_s, f, sizeof f);
		fmt_seconds(c->predicted_s, p, sizeof p);
		double e = relative_error(c);
		fprintf(out, "  %-8s %-46.46s %11s %11s %11s %+7.1f%%%s %+7.1f%%\n", c->set, c->call, m, f, p, 100 * e,
			fabs(e) > 0.25 ? "!" : " ", 100 * (c->floor_s - c->measured_s) / c->measured_s);
		if (strcmp(c->set, "heldout") == 0 && abs_err)
			abs_err[heldout++] = fabs(e);
	}
	if (heldout && abs_err)
		fprintf(out, "\n  held-out: median |error| %.1f%% over %d cases (the fit never saw them)\n",
			100 * ridge_median(abs_err, (size_t)heldout), heldout);
	free(abs_err);
}

/* ---- the run ---- */

struct calibrate_result {
	struct ridge_gpu *fitted; /* the entry with the fitted (or, --no-fit, its own) timing terms */
	struct cal_input in;
	struct slot_fit fits[RIDGE_TIMING_SLOTS];
	const char *out;
	bool no_fit;
};

void calibrate_free(struct calibrate_result *r)
{
	if (!r)
		return;
	free(r->fitted);
	free(r->in.cases);
	free(r);
}

/* The GPU the timings file names against the entry fitted (chosen by --gpu,
 * the calibration or the file): the same entry, or a refusal. A name the
 * hwdb does not know is refused too unless --gpu says which entry it is
 * (then a warning): an error that let the run go on once exited 0. */
static int check_timings_gpu(const struct calibrate_request *req, const struct app_hw *hw, const struct cal_input *in,
			     const struct hwdb_entry *e, struct app_status *st)
{
	struct app_status lookup;
	app_status_init(&lookup);
	const struct hwdb_entry *named = app_hw_find(hw, in->gpu_name, &lookup);
	if (!named && !req->gpu) {
		app_error(st, "--timings %s ran on '%s', which is no hwdb entry: say which it is with --gpu GPU",
			  req->timings, in->gpu_name);
		return -1;
	}
	if (!named) {
		app_warning(st, "--timings %s ran on '%s', which is no hwdb entry: fitted to --gpu %s as asked",
			    req->timings, in->gpu_name, e->gpu.id);
		return 0;
	}
	if (strcmp(named->gpu.id, e->gpu.id) != 0) {
		app_error(st, "--timings %s ran on %s (%s), not %s: fit the entry of the GPU that ran the kernels",
			  req->timings, in->gpu_name, named->gpu.id, e->gpu.id);
		return -1;
	}
	return 0;
}

struct calibrate_result *calibrate_run(const struct calibrate_request *req, const struct app_hw *hw,
				       struct app_status *st)
{
	struct calibrate_result *r = calloc(1, sizeof *r);
	if (!r) {
		app_error(st, "out of memory");
		return NULL;
	}
	r->out = req->out;
	r->no_fit = req->no_fit;
	struct cal_input *in = &r->in;
	if (req->timings && read_timings(req->timings, in, st))
		goto fail;
	const char *name = req->gpu                               ? req->gpu
			   : req->calibration || !in->gpu_name[0] ? app_hw_default_gpu(hw)
								  : in->gpu_name;
	const struct hwdb_entry *e = app_hw_find(hw, name, st);
	if (!e)
		goto fail;
	if (req->calibration && hw->calibration_id[0] && strcmp(hw->calibration_id, e->gpu.id) != 0) {
		app_error(st,
			  "--calibration %s measured %s, not %s: fit against the calibration of the GPU that ran the "
			  "kernels",
			  req->calibration, hw->calibration_id, e->gpu.id);
		goto fail;
	}
	if (req->timings && in->gpu_name[0] && check_timings_gpu(req, hw, in, e, st) != 0)
		goto fail;
	/* The prior: the entry without its timing terms, so a refit never
	 * builds on an earlier fit. */
	struct ridge_gpu *fitted = malloc(sizeof *fitted);
	if (!fitted) {
		app_error(st, "out of memory");
		goto fail;
	}
	r->fitted = fitted;
	*fitted = e->gpu;
	if (!req->no_fit) {
		memset(fitted->timing, 0, sizeof fitted->timing);
		fitted->attention_default[0] = '\0';
	}
	if (req->ncu && read_ncu(req->ncu, fitted, in, st))
		goto fail;
	const char *file = req->timings ? req->timings : req->ncu;
	char err[1200] = "";
	if (place_cases(fitted, in, err, sizeof err) ||
	    (req->no_fit ? entry_slots(fitted, in, r->fits)
			 : fit_slots(fitted, in, req->fit_all, file, r->fits, err, sizeof err))) {
		app_error(st, "%s: %s", file, err);
		goto fail;
	}
	judge(fitted, in, r->fits);
	bool fitted_any = false;
	for (int slot = 0; slot < RIDGE_TIMING_SLOTS; slot++)
		fitted_any |= r->fits[slot].any;
	if (!req->no_fit && !fitted_any) {
		if (req->out) {
			app_error(st,
				  "--out: nothing to fit in %s (every case is held out; --fit-all fits them too): "
				  "nothing written",
				  file);
			goto fail;
		}
		app_warning(st, "%s: nothing fitted (every case is held out; --fit-all fits them too)", file);
	}
	/* An error that did not stop the run still fails it: nothing is written. */
	if (app_status_failed(st))
		goto fail;
	if (req->out) {
		if (fitted->note_count < RIDGE_MAX_NOTES)
			snprintf(fitted->notes[fitted->note_count++], sizeof fitted->notes[0],
				 "timing: fitted by ridge calibrate from %.300s", file);
		if (app_write_calibration("--out", req->out, fitted, st))
			goto fail;
	}
	return r;
fail:
	calibrate_free(r);
	return NULL;
}

cJSON *calibrate_json(const struct calibrate_result *r)
{
	return result_json(r->fitted, &r->in, r->fits, r->out);
}

void calibrate_print(FILE *out, const struct calibrate_result *r)
{
	print_result(out, r->fitted, &r->in, r->fits, r->no_fit);
	if (r->out)
		fprintf(out, "\nwrote %s\n", r->out);
}

/* ---- the command line: ridge calibrate ---- */

static const char calibrate_usage[] =
	"usage: ridge calibrate (--timings FILE | --ncu FILE) [--gpu GPU] [--calibration FILE]\n"
	"                       [--hwdb DIR] [--out FILE] [--fit-all | --no-fit] [--json]\n"
	"\n"
	"Fits the time model (predicted = max(compute / compute efficiency, memory /\n"
	"memory efficiency) + fixed cost; model/README.md, \"time model\") to measured\n"
	"kernels, one kernel class at a time (gemm, gemm_fp8 for fp8 GEMMs, attention by\n"
	"implementation, norm, softmax, elementwise), by least squares on the relative\n"
	"error; prints the fit's residuals and, for a timings file, the error on its\n"
	"held-out cases, which the fit never sees.\n"
	"\n"
	"  --timings FILE     measured framework kernels (validation/heldout/kernels.py\n"
	"                     writes them): each case names a ridge kernel and its shape;\n"
	"                     cases marked \"fit\" are fitted, \"heldout\" ones only judged\n"
	"  --ncu FILE         an Nsight Compute CSV of your own run (the metrics\n"
	"                     'ridge roofline --help' lists): kernels are classed by name\n"
	"                     (gemm/gemv/cutlass/nvjet, flash/fmha/sdpa, norm, softmax,\n"
	"                     elementwise) and placed by their counted FLOPs and DRAM bytes\n"
	"  --gpu GPU          the GPU measured (default: the timings file's GPU, else the\n"
	"                     calibration's, else " APP_DEFAULT_GPU ")\n"
	"  --calibration FILE the ceilings to fit against (ridge-probe --out): the same\n"
	"                     lease's calibration, for efficiencies relative to measured\n"
	"                     ceilings; its own timing section is ignored and refitted\n"
	"  --out FILE         write the calibration with the fitted timing section (atomic:\n"
	"                     the old file stays whole if anything fails)\n"
	"  --fit-all          fit every case, held-out ones too (for a final calibration)\n"
	"  --no-fit           fit nothing: judge every case with the entry's own timing\n"
	"                     section (what a calibration written by ridge-probe predicts)\n"
	"  --json             one JSON document: fits (per class) and cases\n"
	"\n"
	"Measured times are kernels' (1e-9 to 3600 s); a case whose floor is past an\n"
	"hour, a timings file of another GPU than the entry's (or of one the hwdb does\n"
	"not know, unless --gpu names it) and --out with nothing to fit are refused. The\n"
	"calibration is written only when the hwdb loader reads it back, never over an\n"
	"input of the command.\n"
	"\n"
	"Exit status: 0, or 2 for bad input (a file without durations, unknown kernels,\n"
	"a calibration of another GPU, a fit ridge could not load), 3 when --out cannot\n"
	"be written.\n";

static const struct param calibrate_params[] = PARAMS_ROWS(CALIBRATE_PARAMS);

const struct params_command calibrate_params_command = {
	.name = "calibrate",
	PARAMS_COMMAND_TABLE(calibrate_params),
	.usage = calibrate_usage,
};
