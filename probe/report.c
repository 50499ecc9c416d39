/* ridge-probe's report (see report.h). */
#include "report.h"

#include <math.h>
#include <string.h>

#include "../model/occupancy.h"
#include "result.h"

enum spec_kind { SPEC_MEMORY, SPEC_L2, SPEC_SMEM, SPEC_VECTOR, SPEC_MATRIX, SPEC_MATRIX_SPARSE };

struct ceiling_def {
	const char *name;
	int id; /* kern_id, or -1: derived from several measurements */
	const char *unit;
	enum spec_kind spec;
	enum ridge_dtype dtype;
};

static const struct ceiling_def ceiling_defs[] = {
	{ "hbm_bandwidth", -1, "B/s", SPEC_MEMORY, RIDGE_FP32 },
	{ "hbm_copy", KERN_COPY, "B/s", SPEC_MEMORY, RIDGE_FP32 },
	{ "hbm_triad", KERN_TRIAD, "B/s", SPEC_MEMORY, RIDGE_FP32 },
	{ "hbm_read", KERN_READ, "B/s", SPEC_MEMORY, RIDGE_FP32 },
	{ "hbm_write", KERN_WRITE, "B/s", SPEC_MEMORY, RIDGE_FP32 },
	{ "hbm_read_wide", KERN_READ_WIDE, "B/s", SPEC_MEMORY, RIDGE_FP32 },
	{ "l2_bandwidth", KERN_L2_READ, "B/s", SPEC_L2, RIDGE_FP32 },
	{ "smem_bandwidth", KERN_SMEM, "B/s", SPEC_SMEM, RIDGE_FP32 },
	{ "fp32_vector", KERN_FMA_FP32, "FLOP/s", SPEC_VECTOR, RIDGE_FP32 },
	{ "fp64_vector", KERN_FMA_FP64, "FLOP/s", SPEC_VECTOR, RIDGE_FP64 },
	{ "fp16_vector", KERN_FMA_FP16X2, "FLOP/s", SPEC_VECTOR, RIDGE_FP16 },
	{ "bf16_mma", KERN_MMA_BF16, "FLOP/s", SPEC_MATRIX, RIDGE_BF16 },
	{ "bf16_wgmma", KERN_WGMMA_BF16, "FLOP/s", SPEC_MATRIX, RIDGE_BF16 },
	{ "fp16_wgmma", KERN_WGMMA_FP16, "FLOP/s", SPEC_MATRIX, RIDGE_FP16 },
	{ "tf32_wgmma", KERN_WGMMA_TF32, "FLOP/s", SPEC_MATRIX, RIDGE_TF32 },
	{ "fp8_wgmma", KERN_WGMMA_E4M3, "FLOP/s", SPEC_MATRIX, RIDGE_FP8 },
	{ "fp8_e5m2_wgmma", KERN_WGMMA_E5M2, "FLOP/s", SPEC_MATRIX, RIDGE_FP8 },
	{ "int8_wgmma", KERN_WGMMA_INT8, "OP/s", SPEC_MATRIX, RIDGE_INT8 },
	{ "bf16_sparse_wgmma", KERN_WGMMA_SP_BF16, "FLOP/s", SPEC_MATRIX_SPARSE, RIDGE_BF16 },
	{ "fp8_sparse_wgmma", KERN_WGMMA_SP_E4M3, "FLOP/s", SPEC_MATRIX_SPARSE, RIDGE_FP8 },
	{ "bf16_matrix", KERN_GEMM_BF16, "FLOP/s", SPEC_MATRIX, RIDGE_BF16 },
	{ "fp16_matrix", KERN_GEMM_FP16, "FLOP/s", SPEC_MATRIX, RIDGE_FP16 },
	{ "tf32_matrix", KERN_GEMM_TF32, "FLOP/s", SPEC_MATRIX, RIDGE_TF32 },
	{ "fp32_gemm", KERN_GEMM_FP32, "FLOP/s", SPEC_VECTOR, RIDGE_FP32 },
	{ "fp8_matrix", KERN_GEMM_FP8, "FLOP/s", SPEC_MATRIX, RIDGE_FP8 },
};

static const struct probe_measurement *headline(const struct probe_result *r, int id)
{
	for (int i = 0; i < r->count; i++)
		if ((int)r->m[i].id == id && !r->m[i].sweep && !r->m[i].validation && !r->m[i].sustained && r->m[i].ok)
			return &r->m[i];
	return NULL;
}

static bool spec_value(const struct ridge_gpu *g, const struct ceiling_def *def, double *value, char *source,
		       size_t len)
{
	if (!g)
		return false;
	const struct ridge_peak *p = &g->peak[def->dtype];
	switch (def->spec) {
	case SPEC_MEMORY:
		*value = g->memory_bandwidth;
		snprintf(source, len, "hwdb %s: memory.bandwidth", g->id);
		return g->memory_bandwidth > 0;
	case SPEC_L2:
		if (!g->has_l2_bandwidth)
			return false;
		*value = g->l2_bandwidth;
		snprintf(source, len, "hwdb %s: cache.l2_bandwidth", g->id);
		return true;
	case SPEC_SMEM:
		if (g->has_smem_bandwidth) {
			*value = g->smem_bandwidth;
			snprintf(source, len, "hwdb %s: cache.smem_bandwidth", g->id);
			return true;
		}
		/* 32 banks x 4 bytes per clock per SM (64 x 4 on CDNA's LDS is also 128 B/clk). */
		*value = 128.0 * g->sm_count * g->vector_clock_hz;
		snprintf(source, len, "derived: 128 B/clk per SM x %d SMs x %.0f MHz", g->sm_count,
			 g->vector_clock_hz / 1e6);
		return *value > 0;
	case SPEC_VECTOR:
		if (!p->has_vector)
			return false;
		*value = p->vector;
		snprintf(source, len, "hwdb %s: peak_flops.%s.vector", g->id, ridge_dtype_name(def->dtype));
		return true;
	case SPEC_MATRIX:
		if (!p->has_matrix)
			return false;
		*value = p->matrix;
		snprintf(source, len, "hwdb %s: peak_flops.%s.matrix", g->id, ridge_dtype_name(def->dtype));
		return true;
	case SPEC_MATRIX_SPARSE:
		if (!p->has_matrix_sparse)
			return false;
		*value = p->matrix_sparse;
		snprintf(source, len, "hwdb %s: peak_flops.%s.matrix_sparse", g->id, ridge_dtype_name(def->dtype));
		return true;
	}
	return false;
}

static void fill_from(struct probe_ceiling *c, const struct probe_measurement *m)
{
	c->from = m;
	c->measured = m->rate;
	c->repeats = m->repeats;
	c->cv = m->stats.cv;
	c->clock_mhz = m->env.samples ? m->env.clock_mhz_median : 0;
	c->power_w = m->env.samples ? m->env.power_w_max : 0;
	snprintf(c->method, sizeof c->method, "%s", m->method);
}

/* A library GEMM ceiling (bf16_matrix, fp8_matrix, ...): the best rate the
 * library reached over every GEMM of the kind the probe timed (the headline
 * 8192^3 and the sweep: main.c, plan), not the validation cases nor the
 * --sustained windows. A ceiling from one shape was beaten by the same
 * library on others (cuBLAS bf16 at 8192^3: 773.6 TFLOP/s in one H200 lease,
 * 812 for PyTorch's 2048x37888x3584 F.linear in the same; issue 34), and a
 * floor priced at a ceiling must never be above a real run. */
static void fill_gemm(const struct probe_result *r, int id, struct probe_ceiling *c)
{
	const struct probe_measurement *best = NULL, *head = headline(r, id);
	int shapes = 0;
	for (int i = 0; i < r->count; i++) {
		const struct probe_measurement *m = &r->m[i];
		if ((int)m->id != id || !m->ok || m->validation || m->sustained || !(m->rate > 0))
			continue;
		shapes++;
		if (!best || m->rate > best->rate)
			best = m;
	}
	if (!best)
		return;
	fill_from(c, best);
	c->shapes = shapes;
	c->shape_m = best->m;
	c->shape_n = best->n;
	c->shape_k = best->k;
	if (shapes == 1)
		return;
	char ref[64] = "";
	if (head && head != best)
		snprintf(ref, sizeof ref, "; %ldx%ldx%ld: %.1f", head->m, head->n, head->k, head->rate / 1e12);
	snprintf(c->method, sizeof c->method, "best of %d shapes: %ldx%ldx%ld at %.1f TFLOP/s%s; %s", shapes, best->m,
		 best->n, best->k, best->rate / 1e12, ref, best->method);
}

static void build_sweep(const struct probe_result *r, struct probe_report *rep, double *sizes, double *bw, double *cv,
			int *reps, int *n)
{
	*n = 0;
	for (int i = 0; i < r->count && *n < PROBE_MAX_MEASUREMENTS; i++) {
		const struct probe_measurement *m = &r->m[i];
		if (m->id != KERN_L2_READ || !m->ok || !(m->rate > 0))
			continue;
		/* Keep ascending order; skip a repeated size. */
		if (*n && m->bytes <= sizes[*n - 1])
			continue;
		sizes[*n] = m->bytes;
		bw[*n] = m->rate;
		cv[*n] = m->stats.cv;
		reps[*n] = m->repeats;
		(*n)++;
	}
	rep->has_sweep = *n > 0 && probe_plateau_find(sizes, bw, *n, r->device.l2_bytes, 0.10, &rep->plateau) == 0 &&
			 rep->plateau.found;
}

/* The SM clock (MHz) while m ran: NVML's median, else the runtime's peak clock. */
static double clock_of(const struct probe_result *r, const struct probe_measurement *m)
{
	return m->env.samples && m->env.clock_mhz_median > 0 ? m->env.clock_mhz_median : r->device.clock_hz / 1e6;
}

static void build_latency(const struct probe_result *r, struct probe_report *rep)
{
	for (int i = 0; i < r->count && rep->latency_count < PROBE_MAX_LATENCY; i++) {
		const struct probe_measurement *m = &r->m[i];
		if ((m->id != KERN_LATENCY && m->id != KERN_LATENCY_SMEM) || !m->ok || !(m->rate > 0))
			continue;
		struct probe_latency *l = &rep->latency[rep->latency_count++];
		memset(l, 0, sizeof *l);
		l->bytes = m->bytes;
		l->stride = m->id == KERN_LATENCY_SMEM ? 4 : (double)m->m;
		l->seconds = m->rate;
		l->clock_mhz = clock_of(r, m);
		l->cycles = m->rate * l->clock_mhz * 1e6;
		l->cv = m->stats.cv;
		l->from = m;
		if (m->id == KERN_LATENCY_SMEM)
			snprintf(l->level, sizeof l->level, "shared memory");
		else if (l->stride > 4096)
			snprintf(l->level, sizeof l->level, "TLB reach (1 line per %.0f KiB)", l->stride / 1024);
		else if (m->n == 1)
			snprintf(l->level, sizeof l->level, "L1");
		else if (m->bytes <= r->device.l2_bytes / 2)
			snprintf(l->level, sizeof l->level, "L2");
		else if (m->bytes >= 2 * r->device.l2_bytes)
			snprintf(l->level, sizeof l->level, "HBM");
		else
			snprintf(l->level, sizeof l->level, "L2/HBM");
	}
	/* Near and far L2: two groups of the per-load latencies (1-D k-means, k = 2). */
	for (int i = 0; i < r->count; i++) {
		const struct probe_measurement *m = &r->m[i];
		if (m->id != KERN_LATENCY_HOPS || !m->ok || m->repeats < 4)
			continue;
		double q[KERN_MAX_REPEATS];
		int n = m->repeats;
		memcpy(q, m->seconds, n * sizeof q[0]);
		for (int a = 1; a < n; a++) /* sorted already when written; replay may not be */
			for (int b = a; b > 0 && q[b - 1] > q[b]; b--) {
				double t = q[b];
				q[b] = q[b - 1];
				q[b - 1] = t;
			}
		double c1 = q[n / 10], c2 = q[n - 1 - n / 10];
		int near = 0;
		for (int it = 0; it < 50; it++) {
			double s1 = 0, s2 = 0;
			int n1 = 0;
			for (int k = 0; k < n; k++) {
				if (fabs(q[k] - c1) <= fabs(q[k] - c2)) {
					s1 += q[k];
					n1++;
				} else {
					s2 += q[k];
				}
			}
			if (n1 == 0 || n1 == n)
				break;
			c1 = s1 / n1;
			c2 = s2 / (n - n1);
			near = n1;
		}
		struct probe_l2_split *sp = &rep->l2_split;
		sp->found = true;
		sp->near_s = c1;
		sp->far_s = near ? c2 : c1;
		sp->near_fraction = near ? (double)near / n : 1;
		sp->differ = near > 0 && c2 > 1.10 * c1;
		sp->near_cycles = c1 * r->device.clock_hz;
		sp->far_cycles = sp->far_s * r->device.clock_hz;
		break;
	}
}

/* Weighted least squares time = fixed + work / rate over the points that
 * pass, each weighted by 1 / time^2 (relative residuals): an unweighted fit
 * is ruled by the largest kernel, and on the H200 it put the GEMM intercept
 * (10.2 us) above the time of the smallest GEMM (5 us). */
static void fit_fixed(const struct probe_result *r, bool gemm, struct probe_fixed_fit *f)
{
	double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
	int n = 0;
	memset(f, 0, sizeof *f);
	for (int i = 0; i < r->count; i++) {
		const struct probe_measurement *m = &r->m[i];
		bool use = gemm ? m->id == KERN_GEMM_BF16 && m->sweep && !m->sustained && !m->validation &&
					   m->m == m->n && m->n == m->k && m->m <= 512
				: m->id == KERN_COPY_FIXED;
		if (!use || !m->ok || !(m->stats.median > 0))
			continue;
		double x = m->work, y = m->stats.median, w = 1 / (y * y);
		sw += w;
		sx += w * x;
		sy += w * y;
		sxx += w * x * x;
		sxy += w * x * y;
		if (!n || x < f->from_work)
			f->from_work = x;
		if (x > f->to_work)
			f->to_work = x;
		n++;
	}
	f->points = n;
	double det = sw * sxx - sx * sx;
	if (n < 3 || !(det > 0))
		return;
	double slope = (sw * sxy - sx * sy) / det;
	double icept = (sy - slope * sx) / sw;
	f->fixed_s = icept;
	f->rate = slope > 0 ? 1 / slope : 0;
	f->has = icept > 0 && slope > 0;
}

static void build_sustained(const struct probe_result *r, struct probe_report *rep)
{
	for (int i = 0; i < r->count && rep->sustained_count < PROBE_MAX_SUSTAINED;) {
		const struct probe_measurement *m = &r->m[i];
		if (!m->sustained) {
			i++;
			continue;
		}
		struct probe_sustained *s = &rep->sustained[rep->sustained_count++];
		memset(s, 0, sizeof *s);
		snprintf(s->name, sizeof s->name, "%s", m->name);
		s->unit = kern_id_counts_bytes(m->id) ? "B/s" : "FLOP/s";
		s->first = i;
		double rates[KERN_MAX_REPEATS];
		int n = 0;
		for (; i < r->count && r->m[i].sustained && strcmp(r->m[i].name, s->name) == 0; i++) {
			const struct probe_measurement *w = &r->m[i];
			if (!w->ok || n >= KERN_MAX_REPEATS)
				continue;
			rates[n++] = w->rate;
			double clk = w->env.samples ? w->env.clock_mhz_median : 0;
			if (n == 1) {
				s->first_rate = w->rate;
				s->clock_first = clk;
				s->min_rate = w->rate;
				s->clock_min = clk;
			}
			s->last_rate = w->rate;
			s->clock_last = clk;
			if (w->rate < s->min_rate)
				s->min_rate = w->rate;
			if (clk > 0 && (s->clock_min <= 0 || clk < s->clock_min))
				s->clock_min = clk;
			if (w->env.power_w_max > s->power_max)
				s->power_max = w->env.power_w_max;
			s->clock_events |= w->env.clock_events;
			s->seconds = w->at_s;
		}
		s->windows = n;
		int from = n - (n + 2) / 3; /* the last third */
		struct probe_stats st;
		if (n > 0 && probe_stats_compute(rates + from, n - from, &st) == 0)
			s->settled = st.median;
		const struct probe_measurement *h = headline(r, r->m[s->first].id);
		/* The burst rate: the headline run of the same kernel and size. */
		if (h && h->m == r->m[s->first].m && h->n == r->m[s->first].n && h->k == r->m[s->first].k)
			s->burst = h->rate;
	}
}

/* Copies src into dst (size bytes, NUL-terminated): the texts here live in the
 * same report as their copies, which snprintf's restrict contract forbids. */
static void copy_text(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);
	memmove(dst, src, n);
	dst[n] = '\0';
}

static void build_rate_checks(struct probe_report *rep)
{
	for (int i = 0; i < rep->ceiling_count && rep->rate_check_count < PROBE_MAX_CEILINGS; i++) {
		const struct probe_ceiling *c = &rep->ceilings[i];
		if (!c->has_spec || !(c->spec > 0))
			continue;
		struct probe_check *k = &rep->rate_checks[rep->rate_check_count++];
		memset(k, 0, sizeof *k);
		copy_text(k->field, sizeof k->field, c->name);
		k->device = c->measured;
		k->hwdb = c->spec;
		k->tolerance = 0.05;
		k->ok = c->measured <= c->spec * (1 + k->tolerance);
		if (!k->ok) {
			char note[sizeof k->note];
			snprintf(note, sizeof note,
				 "measured %.4g %s is %.1f%% above %s: the datasheet value is contradicted%s",
				 c->measured, c->unit, 100 * (c->measured / c->spec - 1), c->spec_source,
				 c->clock_mhz > 0 ? " (see the SM clock it ran at)" : "");
			copy_text(k->note, sizeof k->note, note);
		}
	}
}

void probe_report_build(const struct probe_result *r, const struct ridge_gpu *spec, struct probe_report *rep)
{
	memset(rep, 0, sizeof *rep);
	rep->r = r;
	rep->spec = spec;
	if (spec)
		rep->check_count = probe_checks(&r->device, spec, rep->checks, PROBE_MAX_CHECKS);
	for (int i = 0; i < r->count; i++)
		if (!r->m[i].ok && !r->m[i].unsupported)
			rep->failures++;

	static double sizes[PROBE_MAX_MEASUREMENTS], bw[PROBE_MAX_MEASUREMENTS], cv[PROBE_MAX_MEASUREMENTS];
	int reps[PROBE_MAX_MEASUREMENTS], n_sweep;
	build_sweep(r, rep, sizes, bw, cv, reps, &n_sweep);

	for (size_t d = 0; d < sizeof ceiling_defs / sizeof ceiling_defs[0]; d++) {
		const struct ceiling_def *def = &ceiling_defs[d];
		struct probe_ceiling c;
		memset(&c, 0, sizeof c);
		snprintf(c.name, sizeof c.name, "%s", def->name);
		snprintf(c.unit, sizeof c.unit, "%s", def->unit);
		if (def->id == -1) {
			const struct probe_measurement *best = NULL;
			for (int id = KERN_COPY; id <= KERN_READ_WIDE; id++) {
				const struct probe_measurement *m = headline(r, id);
				if (m && (!best || m->rate > best->rate))
					best = m;
			}
			if (!best)
				continue;
			fill_from(&c, best);
			snprintf(c.method, sizeof c.method, "best of the HBM kernels: %s", best->method);
		} else if (def->id == KERN_L2_READ) {
			if (!rep->has_sweep)
				continue;
			const struct probe_plateau *p = &rep->plateau;
			c.measured = p->bandwidth;
			c.repeats = reps[p->first];
			for (int i = p->first; i <= p->last; i++) {
				if (cv[i] > c.cv)
					c.cv = cv[i];
				if (reps[i] < c.repeats)
					c.repeats = reps[i];
			}
			/* The clock of the plateau's first point stands for the sweep. */
			for (int i = 0; i < r->count; i++)
				if (r->m[i].id == KERN_L2_READ && r->m[i].ok && r->m[i].bytes == sizes[p->first]) {
					c.from = &r->m[i];
					c.clock_mhz = r->m[i].env.samples ? r->m[i].env.clock_mhz_median : 0;
					c.power_w = r->m[i].env.samples ? r->m[i].env.power_w_max : 0;
				}
			snprintf(
				c.method, sizeof c.method,
				"L2 plateau: median of %d working sets from %.2f to %.2f MiB within 10%% of their best "
				"(read-only, ld.global.cg); cv is the largest of theirs",
				p->last - p->first + 1, p->from_bytes / 1048576, p->to_bytes / 1048576);
		} else if (def->id >= KERN_GEMM_BF16 && def->id <= KERN_GEMM_FP8) {
			fill_gemm(r, def->id, &c);
			if (!c.from)
				continue;
		} else {
			const struct probe_measurement *m = headline(r, def->id);
			if (!m)
				continue;
			fill_from(&c, m);
		}
		c.has_spec = spec_value(spec, def, &c.spec, c.spec_source, sizeof c.spec_source);
		c.fraction = c.has_spec && c.spec > 0 ? c.measured / c.spec : 0;
		if (c.cv > PROBE_CV_WARN)
			rep->high_cv++;
		if (rep->ceiling_count < PROBE_MAX_CEILINGS)
			rep->ceilings[rep->ceiling_count++] = c;
	}

	/* Ridge points: compute ceiling over the best HBM bandwidth. */
	static const struct {
		enum ridge_dtype dtype;
		const char *ceiling, *kind;
	} ridge_defs[] = {
		{ RIDGE_FP64, "fp64_vector", "vector" }, { RIDGE_FP32, "fp32_vector", "vector" },
		{ RIDGE_TF32, "tf32_matrix", "matrix" }, { RIDGE_BF16, "bf16_matrix", "matrix" },
		{ RIDGE_FP16, "fp16_matrix", "matrix" }, { RIDGE_FP8, "fp8_matrix", "matrix" },
	};
	const struct probe_ceiling *hbm = probe_report_ceiling(rep, "hbm_bandwidth");
	for (size_t i = 0; i < sizeof ridge_defs / sizeof ridge_defs[0]; i++) {
		struct probe_ridge rp;
		memset(&rp, 0, sizeof rp);
		rp.dtype = ridge_defs[i].dtype;
		rp.kind = ridge_defs[i].kind;
		const struct probe_ceiling *c = probe_report_ceiling(rep, ridge_defs[i].ceiling);
		if (c && hbm && hbm->measured > 0) {
			rp.has_measured = true;
			rp.measured = c->measured / hbm->measured;
		}
		if (spec && spec->memory_bandwidth > 0) {
			double peak = 0;
			if (ridge_gpu_peak(spec, rp.dtype,
					   strcmp(rp.kind, "vector") == 0 ? RIDGE_PEAK_VECTOR : RIDGE_PEAK_MATRIX,
					   false, &peak, NULL)) {
				rp.has_spec = true;
				rp.spec = peak / spec->memory_bandwidth;
			}
		}
		if (rp.has_spec || rp.has_measured)
			rep->ridge[rep->ridge_count++] = rp;
	}

	/* The occupancy model against every runtime answer (the runtime does not
	 * report named barriers: the model's default of one is used). */
	for (int i = 0; spec && i < r->occupancy_count; i++) {
		const struct kern_occupancy_row *w = &r->occupancy[i];
		struct ridge_occupancy_input in;
		occupancy_input_init(&in);
		in.threads_per_block = w->block;
		in.regs_per_thread = w->regs;
		in.static_smem = w->static_smem;
		in.dynamic_smem = w->dynamic_smem;
		in.carveout_percent = w->carveout;
		in.optin = w->optin;
		in.max_dynamic_smem = w->max_dynamic_smem;
		in.max_threads_limit = w->max_threads;
		struct ridge_occupancy_result out;
		char err[200];
		int model = -1;
		if (occupancy_compute(spec, &in, &out, err, sizeof err) == 0)
			model = spec->vendor == RIDGE_VENDOR_AMD ? out.amd.hip_blocks_per_cu : out.blocks_per_sm;
		rep->occupancy_compared++;
		if (model == w->blocks_per_sm) {
			rep->occupancy_agree++;
		} else if (rep->occupancy_disagree_count < 8) {
			rep->occupancy_disagree[rep->occupancy_disagree_count] = i;
			rep->occupancy_model[rep->occupancy_disagree_count++] = model;
		}
	}

	static const enum kern_id launch_ids[PROBE_LAUNCH_KINDS] = { KERN_LAUNCH_ASYNC, KERN_LAUNCH_SYNC,
								     KERN_GRAPH_NODE, KERN_GRAPH_LAUNCH };
	for (int k = 0; k < PROBE_LAUNCH_KINDS; k++) {
		const struct probe_measurement *m = headline(r, launch_ids[k]);
		if (!m)
			continue;
		rep->has_launch[k] = true;
		rep->launch_s[k] = m->stats.median;
		rep->launch_cv[k] = m->stats.cv;
		rep->launch_min[k] = m->stats.min;
		rep->launch_max[k] = m->stats.max;
		if (m->stats.cv > PROBE_CV_WARN)
			rep->high_cv++;
	}
	build_latency(r, rep);
	fit_fixed(r, false, &rep->kernel_fixed);
	fit_fixed(r, true, &rep->gemm_fixed);
	build_sustained(r, rep);
	build_rate_checks(rep);
}

const struct probe_ceiling *probe_report_ceiling(const struct probe_report *rep, const char *name)
{
	for (int i = 0; i < rep->ceiling_count; i++)
		if (strcmp(rep->ceilings[i].name, name) == 0)
			return &rep->ceilings[i];
	return NULL;
}

/* ---- JSON ---- */

static const char *gemm_dtype(enum kern_id id)
{
	switch (id) {
	case KERN_GEMM_BF16:
		return "bf16";
	case KERN_GEMM_FP16:
		return "fp16";
	case KERN_GEMM_TF32:
		return "tf32";
	case KERN_GEMM_FP32:
		return "fp32";
	case KERN_GEMM_FP8:
		return "fp8";
	default:
		return NULL;
	}
}

static double gemm_spec(const struct ridge_gpu *g, enum kern_id id)
{
	if (!g)
		return 0;
	enum ridge_dtype d = id == KERN_GEMM_BF16   ? RIDGE_BF16
			     : id == KERN_GEMM_FP16 ? RIDGE_FP16
			     : id == KERN_GEMM_TF32 ? RIDGE_TF32
			     : id == KERN_GEMM_FP32 ? RIDGE_FP32
						    : RIDGE_FP8;
	double peak = 0;
	if (!ridge_gpu_peak(g, d, id == KERN_GEMM_FP32 ? RIDGE_PEAK_VECTOR : RIDGE_PEAK_MATRIX, false, &peak, NULL))
		return 0;
	return peak;
}

static const char *launch_keys[PROBE_LAUNCH_KINDS] = { "launch_us", "launch_sync_us", "graph_node_us",
						       "graph_launch_us" };

static cJSON *json_check(const struct probe_check *c)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "field", c->field);
	probe_json_number(o, "device", c->device);
	probe_json_number(o, "hwdb", c->hwdb);
	probe_json_number(o, "tolerance", c->tolerance);
	cJSON_AddBoolToObject(o, "ok", c->ok);
	if (!c->ok)
		cJSON_AddStringToObject(o, "note", c->note);
	return o;
}

static void json_latency(const struct probe_report *rep, cJSON *doc)
{
	cJSON *lat = cJSON_AddObjectToObject(doc, "latency");
	cJSON *pts = cJSON_AddArrayToObject(lat, "points");
	for (int i = 0; i < rep->latency_count; i++) {
		const struct probe_latency *l = &rep->latency[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "level", l->level);
		probe_json_number(o, "bytes", l->bytes);
		probe_json_number(o, "stride", l->stride);
		probe_json_number(o, "seconds", l->seconds);
		probe_json_number(o, "cycles", l->cycles);
		probe_json_number(o, "clock_mhz", l->clock_mhz);
		probe_json_number(o, "cv", l->cv);
		cJSON_AddItemToArray(pts, o);
	}
	const struct probe_l2_split *sp = &rep->l2_split;
	if (!sp->found) {
		cJSON_AddNullToObject(lat, "l2_partitions");
		return;
	}
	cJSON *o = cJSON_AddObjectToObject(lat, "l2_partitions");
	probe_json_number(o, "near_seconds", sp->near_s);
	probe_json_number(o, "far_seconds", sp->far_s);
	probe_json_number(o, "near_cycles", sp->near_cycles);
	probe_json_number(o, "far_cycles", sp->far_cycles);
	probe_json_number(o, "near_fraction", sp->near_fraction);
	cJSON_AddBoolToObject(o, "differ", sp->differ);
}

static void json_fit(cJSON *parent, const char *key, const struct probe_fixed_fit *f, const char *rate_key)
{
	cJSON *o = cJSON_AddObjectToObject(parent, key);
	cJSON_AddNumberToObject(o, "points", f->points);
	if (f->has) {
		probe_json_number(o, "seconds", f->fixed_s);
		probe_json_number(o, rate_key, f->rate);
	} else {
		cJSON_AddNullToObject(o, "seconds");
		cJSON_AddNullToObject(o, rate_key);
	}
	probe_json_number(o, "from_work", f->from_work);
	probe_json_number(o, "to_work", f->to_work);
}

static void json_fixed(const struct probe_report *rep, cJSON *doc)
{
	cJSON *fc = cJSON_AddObjectToObject(doc, "fixed_cost");
	json_fit(fc, "kernel", &rep->kernel_fixed, "bytes_per_s");
	json_fit(fc, "gemm", &rep->gemm_fixed, "flops_per_s");
}

static void json_sustained(const struct probe_report *rep, cJSON *doc)
{
	cJSON *arr = cJSON_AddArrayToObject(doc, "sustained");
	for (int i = 0; i < rep->sustained_count; i++) {
		const struct probe_sustained *s = &rep->sustained[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", s->name);
		cJSON_AddStringToObject(o, "unit", s->unit);
		cJSON_AddNumberToObject(o, "windows", s->windows);
		probe_json_number(o, "seconds", s->seconds);
		if (s->burst > 0)
			probe_json_number(o, "burst", s->burst);
		else
			cJSON_AddNullToObject(o, "burst");
		probe_json_number(o, "first", s->first_rate);
		probe_json_number(o, "last", s->last_rate);
		probe_json_number(o, "min", s->min_rate);
		probe_json_number(o, "settled", s->settled);
		probe_json_number(o, "clock_mhz_first", s->clock_first);
		probe_json_number(o, "clock_mhz_last", s->clock_last);
		probe_json_number(o, "clock_mhz_min", s->clock_min);
		probe_json_number(o, "power_w_max", s->power_max);
		cJSON_AddNumberToObject(o, "clock_events", (double)s->clock_events);
		cJSON_AddItemToArray(arr, o);
	}
}

cJSON *probe_report_json(const struct probe_report *rep)
{
	const struct probe_result *r = rep->r;
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "tool", "ridge-probe");
	cJSON_AddStringToObject(doc, "version", r->version);
	cJSON_AddStringToObject(doc, "date", r->date);
	cJSON_AddNumberToObject(doc, "seed", (double)r->seed);
	cJSON_AddBoolToObject(doc, "quick", r->quick);
	probe_result_json_device(r, rep->spec ? rep->spec->id : NULL, doc);

	cJSON *ceil = cJSON_AddArrayToObject(doc, "ceilings");
	for (int i = 0; i < rep->ceiling_count; i++) {
		const struct probe_ceiling *c = &rep->ceilings[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", c->name);
		cJSON_AddStringToObject(o, "unit", c->unit);
		if (c->has_spec) {
			probe_json_number(o, "spec", c->spec);
			probe_json_number(o, "measured", c->measured);
			probe_json_number(o, "fraction_of_spec", c->fraction);
			cJSON_AddStringToObject(o, "spec_source", c->spec_source);
		} else {
			cJSON_AddNullToObject(o, "spec");
			probe_json_number(o, "measured", c->measured);
			cJSON_AddNullToObject(o, "fraction_of_spec");
		}
		cJSON_AddStringToObject(o, "method", c->method);
		if (c->shapes > 0) {
			cJSON *sh = cJSON_AddObjectToObject(o, "shape");
			cJSON_AddNumberToObject(sh, "m", (double)c->shape_m);
			cJSON_AddNumberToObject(sh, "n", (double)c->shape_n);
			cJSON_AddNumberToObject(sh, "k", (double)c->shape_k);
			cJSON_AddNumberToObject(o, "shapes", c->shapes);
		}
		cJSON_AddNumberToObject(o, "repeats", c->repeats);
		probe_json_number(o, "cv", c->cv);
		if (c->clock_mhz > 0)
			probe_json_number(o, "clock_mhz", c->clock_mhz);
		else
			cJSON_AddNullToObject(o, "clock_mhz");
		if (c->power_w > 0)
			probe_json_number(o, "power_w", c->power_w);
		else
			cJSON_AddNullToObject(o, "power_w");
		if (c->from && c->from->verify_error >= 0)
			probe_json_number(o, "verify_error", c->from->verify_error);
		cJSON_AddItemToArray(ceil, o);
	}

	cJSON *ridge = cJSON_AddObjectToObject(doc, "ridge_point");
	for (int i = 0; i < rep->ridge_count; i++) {
		const struct probe_ridge *p = &rep->ridge[i];
		cJSON *o = cJSON_AddObjectToObject(ridge, ridge_dtype_name(p->dtype));
		if (p->has_spec)
			probe_json_number(o, "spec", p->spec);
		else
			cJSON_AddNullToObject(o, "spec");
		if (p->has_measured)
			probe_json_number(o, "measured", p->measured);
		else
			cJSON_AddNullToObject(o, "measured");
		cJSON_AddStringToObject(o, "kind", p->kind);
	}

	cJSON *launch = cJSON_AddObjectToObject(doc, "launch");
	for (int k = 0; k < PROBE_LAUNCH_KINDS; k++) {
		if (rep->has_launch[k])
			probe_json_number(launch, launch_keys[k], rep->launch_s[k] * 1e6);
		else
			cJSON_AddNullToObject(launch, launch_keys[k]);
	}
	cJSON *lcv = cJSON_AddObjectToObject(launch, "cv");
	for (int k = 0; k < PROBE_LAUNCH_KINDS; k++)
		if (rep->has_launch[k])
			probe_json_number(lcv, launch_keys[k], rep->launch_cv[k]);
	cJSON *lmin = cJSON_AddObjectToObject(launch, "min_us"), *lmax = cJSON_AddObjectToObject(launch, "max_us");
	for (int k = 0; k < PROBE_LAUNCH_KINDS; k++)
		if (rep->has_launch[k]) {
			probe_json_number(lmin, launch_keys[k], rep->launch_min[k] * 1e6);
			probe_json_number(lmax, launch_keys[k], rep->launch_max[k] * 1e6);
		}

	cJSON *sweep = cJSON_AddObjectToObject(doc, "l2_sweep");
	if (rep->has_sweep) {
		const struct probe_plateau *p = &rep->plateau;
		cJSON *pl = cJSON_AddObjectToObject(sweep, "plateau");
		probe_json_number(pl, "bandwidth", p->bandwidth);
		probe_json_number(pl, "peak", p->peak);
		probe_json_number(pl, "from_bytes", p->from_bytes);
		probe_json_number(pl, "to_bytes", p->to_bytes);
		if (p->has_hbm)
			probe_json_number(pl, "hbm_bandwidth", p->hbm_bandwidth);
		if (p->has_knee)
			probe_json_number(pl, "knee_bytes", p->knee_bytes);
	}
	cJSON *points = cJSON_AddArrayToObject(sweep, "points");
	for (int i = 0; i < r->count; i++) {
		const struct probe_measurement *m = &r->m[i];
		if (m->id != KERN_L2_READ || !m->ok)
			continue;
		cJSON *o = cJSON_CreateObject();
		probe_json_number(o, "bytes", m->bytes);
		probe_json_number(o, "bandwidth", m->rate);
		probe_json_number(o, "cv", m->stats.cv);
		cJSON_AddItemToArray(points, o);
	}

	cJSON *gemm = cJSON_AddArrayToObject(doc, "gemm_sweep");
	for (int i = 0; i < r->count; i++) {
		const struct probe_measurement *m = &r->m[i];
		const char *dt = gemm_dtype(m->id);
		if (!dt || !m->ok || m->validation || m->sustained)
			continue;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "dtype", dt);
		cJSON_AddNumberToObject(o, "m", (double)m->m);
		cJSON_AddNumberToObject(o, "n", (double)m->n);
		cJSON_AddNumberToObject(o, "k", (double)m->k);
		probe_json_number(o, "flops_per_s", m->rate);
		double sp = gemm_spec(rep->spec, m->id);
		if (sp > 0)
			probe_json_number(o, "fraction_of_spec", m->rate / sp);
		else
			cJSON_AddNullToObject(o, "fraction_of_spec");
		probe_json_number(o, "cv", m->stats.cv);
		cJSON_AddItemToArray(gemm, o);
	}

	json_latency(rep, doc);
	json_fixed(rep, doc);
	json_sustained(rep, doc);
	cJSON *rchecks = cJSON_AddArrayToObject(doc, "rate_checks");
	for (int i = 0; i < rep->rate_check_count; i++)
		cJSON_AddItemToArray(rchecks, json_check(&rep->rate_checks[i]));

	cJSON *checks = cJSON_AddArrayToObject(doc, "checks");
	for (int i = 0; i < rep->check_count; i++)
		cJSON_AddItemToArray(checks, json_check(&rep->checks[i]));

	cJSON *occ = cJSON_AddObjectToObject(doc, "occupancy_model");
	cJSON_AddNumberToObject(occ, "compared", rep->occupancy_compared);
	cJSON_AddNumberToObject(occ, "agree", rep->occupancy_agree);
	cJSON *dis = cJSON_AddArrayToObject(occ, "disagreements");
	for (int i = 0; i < rep->occupancy_disagree_count; i++) {
		const struct kern_occupancy_row *w = &r->occupancy[rep->occupancy_disagree[i]];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "kernel", w->kernel);
		cJSON_AddNumberToObject(o, "block", w->block);
		cJSON_AddNumberToObject(o, "dynamic_smem", w->dynamic_smem);
		cJSON_AddNumberToObject(o, "carveout", w->carveout);
		cJSON_AddBoolToObject(o, "optin", w->optin);
		cJSON_AddNumberToObject(o, "runtime", w->blocks_per_sm);
		cJSON_AddNumberToObject(o, "model", rep->occupancy_model[i]);
		cJSON_AddItemToArray(dis, o);
	}

	cJSON *fail = cJSON_AddArrayToObject(doc, "failures");
	for (int i = 0; i < r->count; i++) {
		const struct probe_measurement *m = &r->m[i];
		if (m->ok)
			continue;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", m->name);
		cJSON_AddBoolToObject(o, "unsupported", m->unsupported);
		cJSON_AddStringToObject(o, "error", m->error);
		cJSON_AddItemToArray(fail, o);
	}
	probe_result_json_raw(r, doc);
	return doc;
}

/* ---- text ---- */

static void si(double v, const char *unit, char *buf, size_t len)
{
	static const char *prefix[] = { "", "K", "M", "G", "T", "P", "E" };
	int p = 0;
	double a = fabs(v);
	while (a >= 1000 && p < 6) {
		a /= 1000;
		v /= 1000;
		p++;
	}
	snprintf(buf, len, "%.4g %s%s", v, prefix[p], unit);
}

static void bytes_text(double b, char *buf, size_t len)
{
	if (b >= 1073741824.0)
		snprintf(buf, len, "%.3g GiB", b / 1073741824.0);
	else if (b >= 1048576)
		snprintf(buf, len, "%.3g MiB", b / 1048576);
	else
		snprintf(buf, len, "%.3g KiB", b / 1024);
}

static void text_latency(const struct probe_report *rep, FILE *f)
{
	if (!rep->latency_count && !rep->l2_split.found)
		return;
	fprintf(f, "\nlatency (pointer chase, one thread):\n");
	for (int i = 0; i < rep->latency_count; i++) {
		const struct probe_latency *l = &rep->latency[i];
		char sz[24];
		bytes_text(l->bytes, sz, sizeof sz);
		fprintf(f, "  %-34s %10s, stride %7.0f B: %8.1f ns %7.1f cycles (at %.0f MHz) cv %.1f%%\n", l->level,
			sz, l->stride, l->seconds * 1e9, l->cycles, l->clock_mhz, 100 * l->cv);
	}
	const struct probe_l2_split *sp = &rep->l2_split;
	if (sp->found && sp->differ)
		fprintf(f,
			"  L2 partitions (per-load clock, 4 MiB set): near %.0f cycles (%.0f%% of loads), far %.0f "
			"cycles\n",
			sp->near_cycles, 100 * sp->near_fraction, sp->far_cycles);
	else if (sp->found)
		fprintf(f, "  L2 partitions: the per-load latencies form one group (%.0f cycles)\n", sp->near_cycles);
}

static void text_fit(FILE *f, const char *what, const struct probe_fixed_fit *fit, const char *unit)
{
	char r[32];
	if (fit->has) {
		si(fit->rate, unit, r, sizeof r);
		fprintf(f, "  %s: %.2f us per kernel (intercept of %d points; slope %s)\n", what, fit->fixed_s * 1e6,
			fit->points, r);
	} else if (fit->points) {
		fprintf(f, "  %s: no positive intercept from %d points (%.3g us)\n", what, fit->points,
			fit->fixed_s * 1e6);
	}
}

static void text_fixed(const struct probe_report *rep, FILE *f)
{
	if (!rep->kernel_fixed.points && !rep->gemm_fixed.points)
		return;
	fprintf(f, "\nfixed cost per kernel (time = fixed + work / rate, least squares on relative error):\n");
	text_fit(f, "copy, 64 KiB-16 MiB", &rep->kernel_fixed, "B/s");
	text_fit(f, "cuBLAS bf16 GEMM, 64^3-512^3", &rep->gemm_fixed, "FLOP/s");
}

static void text_sustained(const struct probe_report *rep, FILE *f)
{
	const struct probe_result *r = rep->r;
	for (int i = 0; i < rep->sustained_count; i++) {
		const struct probe_sustained *s = &rep->sustained[i];
		char b[32], fi[32], la[32], mi[32], se[32];
		si(s->burst, s->unit, b, sizeof b);
		si(s->first_rate, s->unit, fi, sizeof fi);
		si(s->last_rate, s->unit, la, sizeof la);
		si(s->min_rate, s->unit, mi, sizeof mi);
		si(s->settled, s->unit, se, sizeof se);
		fprintf(f,
			"\nsustained %s, %d windows over %.0f s: burst %s, first window %s, last %s, lowest %s, "
			"settled (median of the last third) %s; SM clock %.0f -> %.0f MHz (lowest %.0f), power up to "
			"%.0f W\n",
			s->name, s->windows, s->seconds, s->burst > 0 ? b : "-", fi, la, mi, se, s->clock_first,
			s->clock_last, s->clock_min, s->power_max);
		fprintf(f, "  ");
		for (int w = 0; w < s->windows; w++) {
			const struct probe_measurement *m = &r->m[s->first + w];
			fprintf(f, "%s%.0fs %.4g", w ? ", " : "", m->at_s, m->rate / 1e12);
			if (m->env.samples)
				fprintf(f, " @%.0f MHz %.0f W", m->env.clock_mhz_median, m->env.power_w_max);
			if ((w + 1) % 5 == 0 && w + 1 < s->windows)
				fprintf(f, "\n  ");
		}
		fprintf(f, " (T%s)\n", s->unit);
	}
}

void probe_report_text(const struct probe_report *rep, FILE *f)
{
	const struct probe_result *r = rep->r;
	const struct kern_device *d = &r->device;
	fprintf(f, "ridge-probe %s: %s (%s), %s, %d SMs, max SM clock %.0f MHz, %s\n", r->version, d->name,
		rep->spec ? rep->spec->id : "no hwdb entry", d->arch, d->sm_count, d->clock_hz / 1e6, r->date);
	if (r->nvml)
		fprintf(f, "driver %s, power limit %.0f W; clocks and power read with NVML during each measurement\n",
			r->driver, r->power_limit_w);
	else
		fprintf(f, "NVML not available: SM clock and power were not recorded\n");
	fprintf(f, "\n%-16s %12s %12s %8s %6s %6s %9s %6s  %s\n", "ceiling", "measured", "spec", "of spec", "cv",
		"runs", "SM clock", "power", "method");
	for (int i = 0; i < rep->ceiling_count; i++) {
		const struct probe_ceiling *c = &rep->ceilings[i];
		char mv[32], sv[32], fr[16], clk[16], pw[16];
		si(c->measured, c->unit, mv, sizeof mv);
		if (c->has_spec) {
			si(c->spec, c->unit, sv, sizeof sv);
			snprintf(fr, sizeof fr, "%.1f%%", 100 * c->fraction);
		} else {
			snprintf(sv, sizeof sv, "-");
			snprintf(fr, sizeof fr, "-");
		}
		if (c->clock_mhz > 0)
			snprintf(clk, sizeof clk, "%.0f MHz", c->clock_mhz);
		else
			snprintf(clk, sizeof clk, "-");
		if (c->power_w > 0)
			snprintf(pw, sizeof pw, "%.0f W", c->power_w);
		else
			snprintf(pw, sizeof pw, "-");
		fprintf(f, "%-16s %12s %12s %8s %5.1f%%%s %5d %9s %6s  %.70s\n", c->name, mv, sv, fr, 100 * c->cv,
			c->cv > PROBE_CV_WARN ? "!" : " ", c->repeats, clk, pw, c->method);
	}
	if (rep->ridge_count) {
		fprintf(f, "\nridge points (FLOP/byte over the best HBM bandwidth):");
		for (int i = 0; i < rep->ridge_count; i++) {
			const struct probe_ridge *p = &rep->ridge[i];
			fprintf(f, "%s %s ", i ? "," : "", ridge_dtype_name(p->dtype));
			if (p->has_spec)
				fprintf(f, "spec %.1f", p->spec);
			if (p->has_measured)
				fprintf(f, "%smeasured %.1f", p->has_spec ? " / " : "", p->measured);
		}
		fputc('\n', f);
	}
	static const char *launch_names[PROBE_LAUNCH_KINDS] = { "launch", "launch+sync", "graph node", "graph launch" };
	bool any = false;
	for (int k = 0; k < PROBE_LAUNCH_KINDS; k++)
		if (rep->has_launch[k]) {
			fprintf(f, "%s %s %.3f us (cv %.1f%%%s, %.3f-%.3f)",
				any ? "," : "\nlaunch costs:", launch_names[k], rep->launch_s[k] * 1e6,
				100 * rep->launch_cv[k], rep->launch_cv[k] > PROBE_CV_WARN ? "!" : "",
				rep->launch_min[k] * 1e6, rep->launch_max[k] * 1e6);
			any = true;
		}
	if (any) {
		if (rep->spec)
			fprintf(f, " (hwdb: launch %.2f us, graph node %.2f us)", rep->spec->launch_overhead_s * 1e6,
				rep->spec->graph_node_s * 1e6);
		fputc('\n', f);
	}
	if (rep->has_sweep) {
		const struct probe_plateau *p = &rep->plateau;
		char from[24], to[24], knee[24], l2[24];
		bytes_text(p->from_bytes, from, sizeof from);
		bytes_text(p->to_bytes, to, sizeof to);
		bytes_text(d->l2_bytes, l2, sizeof l2);
		fprintf(f, "\nL2 sweep: plateau %.3g TB/s from %s to %s (L2 %s)", p->bandwidth / 1e12, from, to, l2);
		if (p->has_hbm)
			fprintf(f, ", HBM level %.3g TB/s past 2 x L2", p->hbm_bandwidth / 1e12);
		if (p->has_knee) {
			bytes_text(p->knee_bytes, knee, sizeof knee);
			fprintf(f, ", still above the midpoint at %s", knee);
		}
		fputc('\n', f);
		fprintf(f, "  ");
		int col = 0;
		for (int i = 0; i < r->count; i++) {
			const struct probe_measurement *m = &r->m[i];
			if (m->id != KERN_L2_READ || !m->ok)
				continue;
			char sz[24];
			bytes_text(m->bytes, sz, sizeof sz);
			/* Six points a line; the comma ends a line, never starts one. */
			fprintf(f, "%s%s %.3g TB/s", col == 0 ? "" : col % 6 == 0 ? ",\n  " : ", ", sz, m->rate / 1e12);
			col++;
		}
		fprintf(f, "\n");
	}
	bool gemm_header = false;
	for (int i = 0; i < r->count; i++) {
		const struct probe_measurement *m = &r->m[i];
		const char *dt = gemm_dtype(m->id);
		if (!dt || !m->ok || !m->sweep || m->validation || m->sustained)
			continue;
		if (!gemm_header) {
			fprintf(f, "\nGEMM sweep (TFLOP/s, fraction of spec):\n");
			gemm_header = true;
		}
		double sp = gemm_spec(rep->spec, m->id);
		fprintf(f, "  %-5s %6ld x %6ld x %6ld  %7.1f", dt, m->m, m->n, m->k, m->rate / 1e12);
		if (sp > 0)
			fprintf(f, "  %5.1f%%", 100 * m->rate / sp);
		fprintf(f, "  cv %.1f%%\n", 100 * m->stats.cv);
	}
	text_latency(rep, f);
	text_fixed(rep, f);
	text_sustained(rep, f);
	int bad = 0;
	for (int i = 0; i < rep->check_count; i++)
		bad += !rep->checks[i].ok;
	if (rep->spec) {
		fprintf(f, "\nchecks against hwdb %s: %d of %d agree\n", rep->spec->id, rep->check_count - bad,
			rep->check_count);
		for (int i = 0; i < rep->check_count; i++)
			if (!rep->checks[i].ok)
				fprintf(f, "  contradiction: %s: %s\n", rep->checks[i].field, rep->checks[i].note);
		int rbad = 0;
		for (int i = 0; i < rep->rate_check_count; i++)
			rbad += !rep->rate_checks[i].ok;
		fprintf(f, "measured rates against hwdb %s: %d of %d within the datasheet (+5 %%)\n", rep->spec->id,
			rep->rate_check_count - rbad, rep->rate_check_count);
		for (int i = 0; i < rep->rate_check_count; i++) {
			const struct probe_check *c = &rep->rate_checks[i];
			fprintf(f, "  %-18s %10.4g of %10.4g (%5.1f%%)%s%s\n", c->field, c->device, c->hwdb,
				100 * c->device / c->hwdb, c->ok ? "" : "  contradiction: ", c->ok ? "" : c->note);
		}
	} else {
		fprintf(f, "\nno hwdb entry has the name or alias '%s': no spec column, nothing checked\n", d->name);
	}
	for (int i = 0; i < r->count; i++) {
		const struct probe_measurement *m = &r->m[i];
		if (!m->ok)
			fprintf(f, "%s: %s: %s\n", m->unsupported ? "not run" : "FAILED", m->name, m->error);
	}
	if (r->occupancy_count && rep->spec) {
		fprintf(f, "occupancy: ridge's model (hwdb %s) agrees with the runtime on %d of %d configurations\n",
			rep->spec->id, rep->occupancy_agree, rep->occupancy_compared);
		for (int i = 0; i < rep->occupancy_disagree_count; i++) {
			const struct kern_occupancy_row *w = &r->occupancy[rep->occupancy_disagree[i]];
			fprintf(f,
				"  differs: %s, %d threads, %.0f B dynamic smem, carveout %d%s: runtime %d, model %d "
				"blocks/SM\n",
				w->kernel, w->block, w->dynamic_smem, w->carveout, w->optin ? ", opt-in" : "",
				w->blocks_per_sm, rep->occupancy_model[i]);
		}
	} else if (r->occupancy_count) {
		fprintf(f, "occupancy: %d runtime answers recorded (--json); no hwdb entry to compare the model with\n",
			r->occupancy_count);
	}
	for (int i = 0; i < r->note_count; i++)
		fprintf(f, "note: %s\n", r->notes[i]);
}
