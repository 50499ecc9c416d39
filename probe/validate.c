/* The validation suite's predictions (see validate.h). */
#include "validate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"
#include "median.h"
#include "timing.h"

static const char *const group_names[PROBE_VG_COUNT] = { "stream", "fp32_gemm", "library_gemm", "fused", "launch" };
static const char *const group_titles[PROBE_VG_COUNT] = {
	"stream: c = a + b (fp32) over a working set, L2 then HBM",
	"fp32 GEMM: naive and 32 x 32 shared-memory tiled (the textbook's kernels)",
	"library GEMM: cuBLAS bf16 (m = output features, n = tokens, k = reduction)",
	"fused vs unfused element-wise (bf16, 256 MiB tensors)",
	"launch-bound: tiny dependent kernels, eager vs one graph",
};

const char *probe_vgroup_name(enum probe_vgroup g)
{
	return (int)g >= 0 && g < PROBE_VG_COUNT ? group_names[g] : NULL;
}

static void set_error(struct probe_prediction *p, double measured)
{
	p->error = (p->predicted_s - measured) / measured;
}

/* A roofline prediction: levels NULL = one level (HBM) with the kernel's
 * default traffic; else the hierarchical roofline over the given bytes. */
static void predict_roofline(const struct ridge_gpu *g, const struct ridge_kernel_shape *s,
			     const struct ridge_kernel_cost *c, const double *levels, double measured,
			     struct probe_prediction *p)
{
	memset(p, 0, sizeof *p);
	for (int i = 0; i < RIDGE_LEVEL_COUNT; i++)
		p->level_s[i] = -1;
	struct ridge_roofline_ceiling ceiling;
	struct ridge_kernel_path path;
	char err[RIDGE_LONG_TEXT];
	if (intensity_ceiling(g, s, c, false, false, RIDGE_LEVEL_HBM, &ceiling, &path, err, sizeof err)) {
		snprintf(p->why, sizeof p->why, "%s", err);
		return;
	}
	double bytes[RIDGE_LEVEL_COUNT] = { c->bytes, -1, -1 };
	if (levels)
		memcpy(bytes, levels, sizeof bytes);
	struct ridge_roofline_hierarchy h;
	if (roofline_hierarchy(g, ceiling.peak_flops, c->flops, bytes, c->write_bytes, &h, err, sizeof err)) {
		snprintf(p->why, sizeof p->why, "%s", err);
		return;
	}
	p->ok = true;
	p->peak_flops = ceiling.peak_flops;
	p->dtype = ceiling.dtype;
	p->matrix = ceiling.matrix;
	p->predicted_s = h.time_floor_s;
	p->compute_s = h.compute_time_s;
	for (int i = 0; i < RIDGE_LEVEL_COUNT; i++)
		if (h.levels[i].placed)
			p->level_s[i] = h.levels[i].time_s;
	snprintf(p->binding, sizeof p->binding, "%s", roofline_binding_name(&h));
	set_error(p, measured);
	struct ridge_kernel_time t;
	if (timing_kernel(g, s, NULL, &t, err, sizeof err) == 0 && measured > 0) {
		p->has_time_model = true;
		p->predicted_time_s = t.predicted_time_s;
		p->time_model_error = (t.predicted_time_s - measured) / measured;
	}
}

static void predict_launch(const struct ridge_gpu *g, double kernels, bool graph, double measured,
			   struct probe_prediction *p)
{
	memset(p, 0, sizeof *p);
	for (int i = 0; i < RIDGE_LEVEL_COUNT; i++)
		p->level_s[i] = -1;
	struct ridge_launch_input in;
	memset(&in, 0, sizeof in);
	launch_defaults(g, &in);
	in.kernels_per_layer = kernels;
	in.layers = 1;
	struct ridge_launch_result res;
	char err[RIDGE_LONG_TEXT];
	if (launch_compute(&in, &res, err, sizeof err)) {
		snprintf(p->why, sizeof p->why, "%s", err);
		return;
	}
	p->ok = true;
	p->predicted_s = graph ? res.graph_overhead_s : res.overhead_s;
	snprintf(p->binding, sizeof p->binding, "%s", graph ? "graph replay" : "launch (host)");
	set_error(p, measured);
}

static void shape_init(struct ridge_kernel_shape *s, enum ridge_kernel k, enum ridge_dtype d)
{
	memset(s, 0, sizeof *s);
	s->kernel = k;
	s->dtype = d;
}

static const struct probe_measurement *aligned_reference(const struct probe_result *r)
{
	for (int i = 0; i < r->count; i++) {
		const struct probe_measurement *m = &r->m[i];
		if (m->validation && m->ok && m->id == KERN_GEMM_BF16 && m->m == 8192 && m->n == 8192 && m->k == 8192)
			return m;
	}
	return NULL;
}

static void format_mib(double bytes, char *buf, size_t len)
{
	double mib = bytes / 1048576.0;
	if (mib >= 1024 && fmod(mib, 1024) == 0)
		snprintf(buf, len, "%.0f GiB", mib / 1024);
	else
		snprintf(buf, len, "%.0f MiB", mib);
}

/* One case from one measurement; false when the measurement is not a case. */
static bool build_case(const struct probe_result *r, const struct probe_measurement *m, const struct ridge_gpu *spec,
		       const struct ridge_gpu *cal, struct probe_vcase *v)
{
	memset(v, 0, sizeof *v);
	v->m = m;
	snprintf(v->kernel, sizeof v->kernel, "%s", m->name);
	v->measured_s = m->stats.median;
	v->cv = m->stats.cv;
	for (int i = 0; i < RIDGE_LEVEL_COUNT; i++)
		v->level_bytes[i] = -1;
	v->spec.level_s[0] = v->cal.level_s[0] = -1;
	struct ridge_kernel_shape s;
	char err[RIDGE_LONG_TEXT];
	if (m->id == KERN_V_LAUNCH_EAGER || m->id == KERN_V_LAUNCH_GRAPH) {
		bool graph = m->id == KERN_V_LAUNCH_GRAPH;
		v->group = PROBE_VG_LAUNCH;
		snprintf(v->shape, sizeof v->shape, "%ld kernels", m->m);
		snprintf(v->model, sizeof v->model, "%s", graph ? "launch (graph)" : "launch (eager)");
		if (spec)
			predict_launch(spec, (double)m->m, graph, v->measured_s, &v->spec);
		if (cal)
			predict_launch(cal, (double)m->m, graph, v->measured_s, &v->cal);
		snprintf(v->note, sizeof v->note, "%s",
			 graph ? "model/launch: t_graph_launch + K x t_node" : "model/launch: K x t_launch");
		return true;
	}
	double levels[RIDGE_LEVEL_COUNT];
	if (m->id == KERN_V_STREAM) {
		v->group = PROBE_VG_STREAM;
		v->roofline = true;
		double per = m->bytes / 3; /* bytes per array */
		double passes = m->bytes > 0 ? round(m->work / m->bytes) : 0;
		shape_init(&s, RIDGE_KERNEL_VECTOR_ADD, RIDGE_FP32);
		s.m = passes;
		s.n = per / 4;
		format_mib(m->bytes, v->shape, sizeof v->shape);
		snprintf(v->model, sizeof v->model, "vector-add x %.0f pass%s", passes, passes == 1 ? "" : "es");
	} else if (m->id == KERN_V_GEMM_NAIVE || m->id == KERN_V_GEMM_TILED) {
		v->group = PROBE_VG_GEMM;
		shape_init(&s, m->id == KERN_V_GEMM_NAIVE ? RIDGE_KERNEL_GEMM_NAIVE : RIDGE_KERNEL_GEMM_TILED,
			   RIDGE_FP32);
		s.m = (double)m->m;
		s.n = (double)m->n;
		s.k = (double)m->k;
		snprintf(v->shape, sizeof v->shape, "%ldx%ldx%ld", m->m, m->n, m->k);
	} else if (m->id == KERN_GEMM_BF16 && m->validation) {
		v->group = PROBE_VG_BLAS;
		double tokens = (double)m->n, features = (double)m->m;
		bool gemv = tokens < 128;
		shape_init(&s, gemv ? RIDGE_KERNEL_GEMV : RIDGE_KERNEL_GEMM, RIDGE_BF16);
		s.m = tokens;
		s.n = features;
		s.k = (double)m->k;
		snprintf(v->shape, sizeof v->shape, "%ldx%ldx%ld", m->m, m->n, m->k);
		/* The token count is no leading dimension (ridge align); features and K are. */
		bool aligned = m->m % 64 == 0 && m->k % 64 == 0 && (gemv || m->n % 64 == 0);
		v->roofline = aligned && (gemv || (m->m >= 2048 && m->n >= 2048 && m->k >= 2048));
		const struct ridge_gpu *g = cal ? cal : spec;
		/* ridge's one tensor-core rule (model/align.c), in the layout the probe
		 * calls cuBLAS with: TN, m = features, n = tokens (F.linear's). */
		struct ridge_gemm_tensor_rule rule;
		if (g && align_gemm_rule(g, RIDGE_BF16, RIDGE_GEMM_LAYOUT_LINEAR, m->n, m->m, m->k, &rule, err,
					 sizeof err) == 0) {
			v->has_align = true;
			snprintf(v->align, sizeof v->align, "%s", align_severity_name(rule.severity));
		}
		const struct probe_measurement *ref = aligned_reference(r);
		if (ref && ref != m && ref->rate > 0 && m->rate > 0 && m->n >= 8000)
			v->penalty = ref->rate / m->rate;
	} else if (m->id >= KERN_V_RESNORM_UNFUSED && m->id <= KERN_V_SOFTMAX_FUSED) {
		v->group = PROBE_VG_FUSED;
		v->roofline = true;
		bool resnorm = m->id <= KERN_V_RESNORM_FUSED;
		shape_init(&s, resnorm ? RIDGE_KERNEL_RESIDUAL_RMSNORM : RIDGE_KERNEL_SOFTMAX, RIDGE_BF16);
		s.m = (double)m->m;
		s.n = (double)m->n;
		s.fused = m->id == KERN_V_RESNORM_FUSED;
		s.passes = m->id == KERN_V_SOFTMAX_SAFE ? 3 : m->id == KERN_V_SOFTMAX_ONLINE ? 2 : 1;
		snprintf(v->shape, sizeof v->shape, "%ld x %ld", m->m, m->n);
	} else {
		return false;
	}
	struct ridge_kernel_cost c;
	/* The GEMMs' DRAM traffic depends on the GPU's SMs and L2 (intensity_gemm_l2). */
	const struct ridge_gpu *machine = spec ? spec : cal;
	if (machine ? intensity_kernel_on(machine, &s, &c, err, sizeof err)
		    : intensity_kernel(&s, &c, err, sizeof err)) {
		snprintf(v->note, sizeof v->note, "no model: %s", err);
		return true;
	}
	if (!v->model[0]) {
		snprintf(v->model, sizeof v->model, "%s", intensity_kernel_name(s.kernel));
		if (s.kernel == RIDGE_KERNEL_RESIDUAL_RMSNORM)
			snprintf(v->model, sizeof v->model, "residual-rmsnorm %s", s.fused ? "fused" : "unfused");
		else if (s.kernel == RIDGE_KERNEL_SOFTMAX)
			snprintf(v->model, sizeof v->model, "softmax passes %d", s.passes);
	}
	v->flops = c.flops;
	v->default_bytes = c.bytes;
	if (intensity_levels(&s, &c, levels, err, sizeof err)) {
		snprintf(v->note, sizeof v->note, "no levels: %s", err);
		return true;
	}
	if (m->id == KERN_V_STREAM && m->bytes <= r->device.l2_bytes) {
		/* The same working set is read pass after pass and launch after
		 * launch: once it fits in L2, DRAM sees none of it in steady state. */
		levels[RIDGE_LEVEL_HBM] = -1;
		snprintf(v->note, sizeof v->note, "working set <= L2 (%.0f MiB): HBM idle in steady state",
			 r->device.l2_bytes / 1048576);
	}
	memcpy(v->level_bytes, levels, sizeof levels);
	/* The spec sheet: HBM with the default traffic, and the L1 / shared
	 * memory of the kernels that have a count there (the fp32 GEMMs) at the
	 * derived 128 B per clock per SM (roofline_smem_bandwidth_derived). */
	double spec_levels[RIDGE_LEVEL_COUNT] = { c.bytes, -1, levels[RIDGE_LEVEL_SMEM] };
	if (spec)
		predict_roofline(spec, &s, &c, spec_levels, v->measured_s, &v->spec);
	if (cal)
		predict_roofline(cal, &s, &c, levels, v->measured_s, &v->cal);
	if (m->id == KERN_V_GEMM_NAIVE || m->id == KERN_V_GEMM_TILED) {
		const struct ridge_gpu *g = spec ? spec : cal;
		double peak = g && g->peak[RIDGE_FP32].has_vector ? g->peak[RIDGE_FP32].vector : 0;
		double achieved = c.flops / v->measured_s;
		if (peak > 0 && m->id == KERN_V_GEMM_NAIVE)
			snprintf(
				v->note, sizeof v->note,
				"%.2f TFLOP/s = %.1f%% of the fp32 peak; the textbook's no-reuse %.4g GB from HBM would "
				"allow %.2f%%",
				achieved / 1e12, 100 * achieved / peak, c.tiled_bytes / 1e9,
				100 * (c.flops / (c.tiled_bytes / g->memory_bandwidth)) / peak);
		else if (peak > 0)
			snprintf(v->note, sizeof v->note, "%.2f TFLOP/s = %.1f%% of the fp32 peak; its tiles %.4g GB",
				 achieved / 1e12, 100 * achieved / peak, c.tiled_bytes / 1e9);
	} else if (m->id == KERN_GEMM_BF16) {
		size_t used = 0;
		if (v->has_align) {
			char verdict[sizeof v->align];
			memcpy(verdict, v->align, sizeof verdict);
			used += (size_t)snprintf(v->note, sizeof v->note, "ridge align: %s", verdict);
		}
		if (m->n % 8)
			used += (size_t)snprintf(v->note + used, sizeof v->note - used, "%stokens (n) not checked",
						 used ? "; " : "");
		if (v->penalty > 0 && used < sizeof v->note)
			snprintf(v->note + used, sizeof v->note - used, "%s%.2fx the time per FLOP of 8192^3",
				 used ? "; " : "", v->penalty);
	}
	return true;
}

/* The effect the model leaves out, for a case it misses by more than 25 %
 * (calibrated). Each sentence rests on a measurement of the suite: ncu
 * counters (tests/fixtures/ncu_h200_*.csv) or neighbouring cases. */
static void explain(const struct probe_result *r, struct probe_vcase *v)
{
	if (!v->cal.ok || fabs(v->cal.error) <= 0.25)
		return;
	const struct probe_measurement *m = v->m;
	double l2 = r->device.l2_bytes;
	switch (m->id) {
	case KERN_V_STREAM:
		if (m->bytes <= 4 * 1048576.0)
			snprintf(v->why, sizeof v->why,
				 "too few threads: %.0f MiB is one float4 per thread for %.0f threads, too few loads "
				 "in flight "
				 "to cover L2 latency (the model assumes the L2 bandwidth is reached)",
				 m->bytes / 1048576, m->bytes / 3 / 16);
		else if (m->bytes > 0.75 * l2 && m->bytes < 2 * l2)
			snprintf(v->why, sizeof v->why,
				 "the L2 -> HBM transition: between ~%.0f and ~%.0f MiB part of the set still hits in "
				 "L2 and part comes from HBM (on the H200 the time climbs from the L2 rate at 48 MiB "
				 "to the HBM rate by ~256 MiB); the model switches at the L2 size in one step",
				 0.75 * l2 / 1048576, 2 * l2 / 1048576);
		else if (v->cal.error > 0 && v->cal.binding[0] == 'L')
			snprintf(
				v->why, sizeof v->why,
				"L2 serves reads and writes together faster than the read-only sweep that calibrated it "
				"(c = a + b moved %.3g TB/s through L2)",
				m->work / v->measured_s / 1e12);
		break;
	case KERN_V_GEMM_NAIVE:
		snprintf(
			v->why, sizeof v->why,
			"global loads through L1 retire below one per clock (on the H200 ncu counted 0.78 requests per "
			"SM clock at 2048^3, 0.64-0.69 at 4096^3-8192^3 as L1 misses grow), against the one wavefront "
			"per clock of the shared-memory ceiling");
		break;
	case KERN_V_GEMM_TILED:
		snprintf(v->why, sizeof v->why,
			 "the floor issues A's broadcast as 128-bit shared loads, 42 wavefronts per warp per tile; on "
			 "the H200 ncu counted 50.5 (measurements/2026-11-30-h200-validate/ncu_h200_gemm.csv), and "
			 "shared loads retire below one wavefront per clock, as the naive kernel's global loads do");
		break;
	case KERN_GEMM_BF16:
		if (v->has_align && strcmp(v->align, "ok") != 0) {
			char verdict[sizeof v->align];
			memcpy(verdict, v->align, sizeof verdict);
			snprintf(
				v->why, sizeof v->why,
				"misaligned (ridge align: %s): cuBLAS leaves its aligned kernels (on the H200, ncu: an "
				"sm_75-era cutlass tensor-op kernel with narrow loads); the model prices the aligned "
				"kernel",
				verdict);
		} else if (m->m * m->n <= 1024L * 1024)
			snprintf(v->why, sizeof v->why,
				 "too small to fill the GPU: %ld tiles of 128 x 128 on %d SMs, a few microseconds of "
				 "latency the roofline does not count",
				 ((m->m + 127) / 128) * ((m->n + 127) / 128), r->device.sm_count);
		break;
	case KERN_V_LAUNCH_EAGER:
		snprintf(
			v->why, sizeof v->why,
			"t_launch was measured on an empty kernel with no arguments (ridge-probe's launch); this kernel "
			"takes a pointer, and each step ends in a stream synchronize the model does not count");
		break;
	case KERN_V_LAUNCH_GRAPH:
		snprintf(v->why, sizeof v->why,
			 "t_node was measured on empty kernels; these nodes load and store y, and each waits for the "
			 "previous one's store (%.2f us per node measured against %.2f us)",
			 v->measured_s / (double)m->m * 1e6, v->cal.predicted_s / (double)m->m * 1e6);
		break;
	default:
		break;
	}
}

int probe_validation_build(const struct probe_result *r, const struct ridge_gpu *spec, const struct ridge_gpu *cal,
			   struct probe_validation *out)
{
	memset(out, 0, sizeof *out);
	out->has_spec = spec != NULL;
	out->has_calibration = cal != NULL;
	if (cal) {
		char note[sizeof out->calibration_note];
		snprintf(
			note, sizeof note,
			"HBM %.3f TB/s, L2 %s, L1/shared %s, fp32 %.1f TFLOP/s, bf16 matrix %.1f TFLOP/s, launch %.2f us, "
			"graph node %.3f us",
			cal->memory_bandwidth / 1e12, cal->has_l2_bandwidth ? "measured" : "unknown",
			cal->has_smem_bandwidth ? "measured" : "unknown", cal->peak[RIDGE_FP32].vector / 1e12,
			cal->peak[RIDGE_BF16].matrix / 1e12, cal->launch_overhead_s * 1e6, cal->graph_node_s * 1e6);
		memcpy(out->calibration_note, note, sizeof note);
	} else
		snprintf(out->calibration_note, sizeof out->calibration_note,
			 "no calibration from this run (its ceilings were not all measured): spec predictions only");
	for (int i = 0; i < r->count && out->count < PROBE_MAX_VALIDATION; i++) {
		const struct probe_measurement *m = &r->m[i];
		if (!m->validation || !m->ok || !(m->stats.median > 0))
			continue;
		if (build_case(r, m, spec, cal, &out->cases[out->count])) {
			explain(r, &out->cases[out->count]);
			out->count++;
		}
	}
	double errs[PROBE_MAX_VALIDATION], errs_spec[PROBE_MAX_VALIDATION];
	for (int g = 0; g < PROBE_VG_COUNT; g++) {
		struct probe_vgroup_summary *s = &out->groups[g];
		int n = 0, ns = 0;
		for (int i = 0; i < out->count; i++) {
			const struct probe_vcase *v = &out->cases[i];
			if ((int)v->group != g)
				continue;
			s->count++;
			if (v->cal.ok) {
				errs[n++] = fabs(v->cal.error);
				s->over_25 += fabs(v->cal.error) > 0.25;
			}
			if (v->spec.ok)
				errs_spec[ns++] = fabs(v->spec.error);
		}
		s->predicted = n;
		s->median_abs_error = ridge_median(errs, (size_t)n);
		s->median_abs_error_spec = ridge_median(errs_spec, (size_t)ns);
	}
	int n = 0, ns = 0;
	for (int i = 0; i < out->count; i++) {
		const struct probe_vcase *v = &out->cases[i];
		if (!v->roofline)
			continue;
		out->roofline_count++;
		if (v->cal.ok)
			errs[n++] = fabs(v->cal.error);
		if (v->spec.ok)
			errs_spec[ns++] = fabs(v->spec.error);
	}
	out->roofline_median_abs_error = ridge_median(errs, (size_t)n);
	out->roofline_median_abs_error_spec = ridge_median(errs_spec, (size_t)ns);
	return out->count;
}

/* ---- JSON ---- */

static void json_num(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static void json_levels(cJSON *o, const char *key, const double *v)
{
	cJSON *l = cJSON_AddObjectToObject(o, key);
	for (int i = 0; i < RIDGE_LEVEL_COUNT; i++) {
		if (v[i] >= 0)
			json_num(l, roofline_level_name((enum ridge_level)i), v[i]);
		else
			cJSON_AddNullToObject(l, roofline_level_name((enum ridge_level)i));
	}
}

cJSON *probe_validation_json(const struct probe_validation *v)
{
	cJSON *arr = cJSON_CreateArray();
	for (int i = 0; i < v->count; i++) {
		const struct probe_vcase *c = &v->cases[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "kernel", c->kernel);
		cJSON_AddStringToObject(o, "shape", c->shape);
		cJSON_AddStringToObject(o, "group", group_names[c->group]);
		cJSON_AddStringToObject(o, "model", c->model);
		cJSON_AddBoolToObject(o, "roofline_case", c->roofline);
		if (c->cal.ok) {
			json_num(o, "predicted_s", c->cal.predicted_s);
		} else {
			cJSON_AddNullToObject(o, "predicted_s");
		}
		json_num(o, "measured_s", c->measured_s);
		if (c->cal.ok)
			json_num(o, "error", c->cal.error);
		else
			cJSON_AddNullToObject(o, "error");
		if (c->cal.has_time_model) {
			json_num(o, "predicted_time_s", c->cal.predicted_time_s);
			json_num(o, "time_model_error", c->cal.time_model_error);
		}
		if (c->cal.ok)
			cJSON_AddStringToObject(o, "binding", c->cal.binding);
		else
			cJSON_AddNullToObject(o, "binding");
		if (c->spec.ok) {
			json_num(o, "predicted_spec_s", c->spec.predicted_s);
			json_num(o, "error_spec", c->spec.error);
			cJSON_AddStringToObject(o, "binding_spec", c->spec.binding);
		} else {
			cJSON_AddNullToObject(o, "predicted_spec_s");
			cJSON_AddNullToObject(o, "error_spec");
			cJSON_AddNullToObject(o, "binding_spec");
		}
		json_num(o, "cv", c->cv);
		if (c->group != PROBE_VG_LAUNCH) {
			json_num(o, "flops", c->flops);
			json_num(o, "bytes", c->default_bytes);
			json_levels(o, "level_bytes", c->level_bytes);
			const struct probe_prediction *any = c->cal.ok ? &c->cal : &c->spec;
			if (any->ok) {
				cJSON_AddStringToObject(o, "dtype", ridge_dtype_name(any->dtype));
				cJSON_AddStringToObject(o, "path", any->matrix ? "matrix" : "vector");
			}
			if (c->cal.ok) {
				json_num(o, "compute_s", c->cal.compute_s);
				json_levels(o, "level_s", c->cal.level_s);
				json_num(o, "peak_flops", c->cal.peak_flops);
			}
			if (c->spec.ok)
				json_num(o, "peak_flops_spec", c->spec.peak_flops);
		} else {
			json_num(o, "kernels", (double)c->m->m);
		}
		if (c->has_align)
			cJSON_AddStringToObject(o, "align_severity", c->align);
		if (c->penalty > 0)
			json_num(o, "penalty", c->penalty);
		if (c->note[0])
			cJSON_AddStringToObject(o, "note", c->note);
		if (c->why[0])
			cJSON_AddStringToObject(o, "explanation", c->why);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

cJSON *probe_validation_summary_json(const struct probe_validation *v)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "error_definition", "(predicted_s - measured_s) / measured_s");
	cJSON_AddStringToObject(o, "spec_model",
				"roofline at HBM with the kernel's default traffic (and L1/shared memory for the fp32 "
				"GEMMs at 128 B/clk per SM, derived), hwdb spec ceilings");
	cJSON_AddStringToObject(o, "calibrated_model",
				"hierarchical roofline (HBM, L2, L1/shared memory), this run's measured ceilings");
	cJSON_AddBoolToObject(o, "calibrated", v->has_calibration);
	cJSON_AddStringToObject(o, "calibration", v->calibration_note);
	cJSON *groups = cJSON_AddObjectToObject(o, "groups");
	for (int g = 0; g < PROBE_VG_COUNT; g++) {
		const struct probe_vgroup_summary *s = &v->groups[g];
		if (!s->count)
			continue;
		cJSON *x = cJSON_AddObjectToObject(groups, group_names[g]);
		cJSON_AddNumberToObject(x, "cases", s->count);
		json_num(x, "median_abs_error", s->median_abs_error);
		json_num(x, "median_abs_error_spec", s->median_abs_error_spec);
		cJSON_AddNumberToObject(x, "over_25_percent", s->over_25);
	}
	cJSON *t = cJSON_AddObjectToObject(o, "target");
	cJSON_AddStringToObject(t, "cases", "stream, large GEMM, GEMV, fused element-wise (roofline_case)");
	cJSON_AddNumberToObject(t, "count", v->roofline_count);
	json_num(t, "median_abs_error", v->roofline_median_abs_error);
	json_num(t, "median_abs_error_spec", v->roofline_median_abs_error_spec);
	cJSON_AddNumberToObject(t, "goal", 0.10);
	cJSON_AddBoolToObject(t, "met", v->roofline_median_abs_error <= 0.10);
	return o;
}

/* ---- text ---- */

static void format_time(double s, char *buf, size_t len)
{
	if (!(s > 0) || !isfinite(s))
		snprintf(buf, len, "-");
	else if (s < 1e-3)
		snprintf(buf, len, "%.2f us", s * 1e6);
	else if (s < 1)
		snprintf(buf, len, "%.3f ms", s * 1e3);
	else
		snprintf(buf, len, "%.3f s", s);
}

static void format_error(const struct probe_prediction *p, char *buf, size_t len)
{
	if (!p->ok)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.1f%%%s", 100 * p->error, fabs(p->error) > 0.25 ? " !" : "");
}

static const char *level_short(const char *binding)
{
	return strcmp(binding, "shared memory") == 0 ? "L1/smem" : binding;
}

void probe_validation_text(const struct probe_validation *v, FILE *f)
{
	if (!v->count)
		return;
	fprintf(f, "\nValidation: predicted time against the measured median; error = (predicted - measured) / "
		   "measured\n");
	fprintf(f, "  spec:       roofline at HBM on the hwdb entry, the kernel's default traffic; the fp32 GEMMs\n"
		   "              also at L1/shared memory (128 B/clk per SM x SMs x clock, derived)\n");
	fprintf(f, "  calibrated: hierarchical roofline (HBM, L2, L1/shared memory) on this run's ceilings\n");
	fprintf(f, "              (%s)\n", v->calibration_note);
	for (int g = 0; g < PROBE_VG_COUNT; g++) {
		const struct probe_vgroup_summary *s = &v->groups[g];
		if (!s->count)
			continue;
		fprintf(f, "\n%s\n", group_titles[g]);
		fprintf(f, "  %-18s %-16s %11s %11s %9s %11s %9s  %-14s %s\n", "case", "shape", "measured", "spec",
			"error", "calibrated", "error", "binds", "note");
		for (int i = 0; i < v->count; i++) {
			const struct probe_vcase *c = &v->cases[i];
			if ((int)c->group != g)
				continue;
			char meas[24], ps[24], pc[24], es[24], ec[24];
			format_time(c->measured_s, meas, sizeof meas);
			format_time(c->spec.ok ? c->spec.predicted_s : 0, ps, sizeof ps);
			format_time(c->cal.ok ? c->cal.predicted_s : 0, pc, sizeof pc);
			format_error(&c->spec, es, sizeof es);
			format_error(&c->cal, ec, sizeof ec);
			fprintf(f, "  %-18s %-16s %11s %11s %9s %11s %9s  %-14s %s\n", c->kernel, c->shape, meas, ps,
				es, pc, ec,
				c->cal.ok ? level_short(c->cal.binding) : (c->spec.ok ? c->spec.binding : "-"),
				c->note);
			if (c->why[0])
				fprintf(f, "  %-18s   why: %s\n", "", c->why);
		}
		fprintf(f, "  median |error|: calibrated %.1f%%, spec %.1f%% over %d case%s; %d above 25%%\n",
			100 * s->median_abs_error, 100 * s->median_abs_error_spec, s->count, s->count == 1 ? "" : "s",
			s->over_25);
	}
	fprintf(f,
		"\nTarget (median |error| <= 10%% with measured ceilings, over %d roofline cases: stream, large "
		"GEMM, GEMV, fused element-wise): calibrated %.1f%% (%s), spec %.1f%%\n",
		v->roofline_count, 100 * v->roofline_median_abs_error,
		v->roofline_median_abs_error <= 0.10 ? "met" : "not met", 100 * v->roofline_median_abs_error_spec);
}
