/* Calibrations (see calib.h). */
#include "calib.h"
#include "timing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../hwdb/hwdb.h"

static bool take(const struct probe_report *rep, const char *name, double *value)
{
	const struct probe_ceiling *c = probe_report_ceiling(rep, name);
	if (!c || !(c->measured > 0))
		return false;
	*value = c->measured;
	return true;
}

static void set_rate(const struct probe_report *rep, struct ridge_gpu *g, const char *ceiling, enum ridge_dtype d,
		     bool matrix, char *list, size_t len)
{
	double v;
	if (!take(rep, ceiling, &v))
		return;
	struct ridge_peak *p = &g->peak[d];
	if (matrix) {
		p->has_matrix = true;
		p->matrix = v;
		p->has_matrix_sparse = false; /* 2:4 sparsity was not measured */
		p->matrix_sparse = 0;
	} else {
		p->has_vector = true;
		p->vector = v;
	}
	size_t used = strlen(list);
	snprintf(list + used, len - used, "%s%s.%s", used ? ", " : "", ridge_dtype_name(d),
		 matrix ? "matrix" : "vector");
}

/* The library GEMM ceilings are the best of the run's GEMM shapes
 * (report.c, fill_gemm): which shape reached each, one line. */
static void append_gemm_note(const struct probe_report *rep, struct ridge_gpu *g)
{
	static const char *const names[] = { "bf16_matrix", "fp16_matrix", "tf32_matrix", "fp8_matrix" };
	char line[RIDGE_LONG_TEXT] = "matrix rates: the best cuBLAS/cuBLASLt GEMM of the probe's shapes (m x n x k, m "
				     "= output features): ";
	size_t start = strlen(line);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const struct probe_ceiling *c = probe_report_ceiling(rep, names[i]);
		if (!c || c->shapes < 1 || !(c->measured > 0))
			continue;
		size_t used = strlen(line);
		snprintf(line + used, sizeof line - used, "%s%.*s %ldx%ldx%ld of %d (%.1f TFLOP/s)",
			 used > start ? "; " : "", (int)(strchr(names[i], '_') - names[i]), names[i], c->shape_m,
			 c->shape_n, c->shape_k, c->shapes, c->measured / 1e12);
	}
	if (strlen(line) > start && g->note_count < RIDGE_MAX_NOTES)
		snprintf(g->notes[g->note_count++], RIDGE_LONG_TEXT, "%s", line);
}

/* Latencies have no hwdb field yet: they go into a note, one line. */
static void append_latency_note(const struct probe_report *rep, struct ridge_gpu *g)
{
	if ((!rep->latency_count && !rep->l2_split.found) || g->note_count >= RIDGE_MAX_NOTES)
		return;
	char line[RIDGE_LONG_TEXT] = "measured latency (pointer chase): ";
	for (int i = 0; i < rep->latency_count; i++) {
		const struct probe_latency *l = &rep->latency[i];
		size_t used = strlen(line);
		snprintf(line + used, sizeof line - used, "%s%s %.0f ns = %.0f cycles (%.4g MiB)", i ? ", " : "",
			 l->level, l->seconds * 1e9, l->cycles, l->bytes / 1048576);
	}
	if (rep->l2_split.found && rep->l2_split.differ) {
		size_t used = strlen(line);
		snprintf(line + used, sizeof line - used, "; L2 near %.0f / far %.0f cycles per load",
			 rep->l2_split.near_cycles, rep->l2_split.far_cycles);
	}
	snprintf(g->notes[g->note_count++], RIDGE_LONG_TEXT, "%s", line);
}

int probe_calibration_build(const struct probe_report *rep, struct ridge_gpu *g, char *err, size_t err_len)
{
	const struct probe_result *r = rep->r;
	const struct kern_device *d = &r->device;
	if (!rep->spec) {
		snprintf(err, err_len,
			 "no hwdb entry has the name or alias '%s': a calibration starts from the device's entry "
			 "(add one to hwdb/ or pass --hwdb DIR)",
			 d->name);
		return -1;
	}
	double hbm;
	if (!take(rep, "hbm_bandwidth", &hbm)) {
		snprintf(err, err_len,
			 "no memory bandwidth was measured: a calibration needs at least the memory kernels");
		return -1;
	}
	*g = *rep->spec;
	char measured[RIDGE_LONG_TEXT] = "memory.bandwidth";
	g->memory_bandwidth = hbm;
	/* The HBM bandwidth by read/write mix: what roofline_hbm_bandwidth()
	 * interpolates for kernels that write. Measured or absent, never the spec's. */
	const struct {
		const char *ceiling, *field;
		bool *has;
		double *value;
	} mixes[] = {
		{ "hbm_read", "memory.read_bandwidth", &g->has_read_bandwidth, &g->read_bandwidth },
		{ "hbm_triad", "memory.triad_bandwidth", &g->has_triad_bandwidth, &g->triad_bandwidth },
		{ "hbm_copy", "memory.copy_bandwidth", &g->has_copy_bandwidth, &g->copy_bandwidth },
		{ "hbm_write", "memory.write_bandwidth", &g->has_write_bandwidth, &g->write_bandwidth },
	};
	for (size_t i = 0; i < sizeof mixes / sizeof mixes[0]; i++) {
		*mixes[i].has = take(rep, mixes[i].ceiling, mixes[i].value) && *mixes[i].value <= hbm;
		if (!*mixes[i].has) {
			*mixes[i].value = 0;
			continue;
		}
		strncat(measured, ", ", sizeof measured - strlen(measured) - 1);
		strncat(measured, mixes[i].field, sizeof measured - strlen(measured) - 1);
	}
	double v;
	if (take(rep, "l2_bandwidth", &v)) {
		g->has_l2_bandwidth = true;
		g->l2_bandwidth = v;
		strncat(measured, ", cache.l2_bandwidth", sizeof measured - strlen(measured) - 1);
	}
	if (take(rep, "smem_bandwidth", &v)) {
		g->has_smem_bandwidth = true;
		g->smem_bandwidth = v;
		strncat(measured, ", cache.smem_bandwidth", sizeof measured - strlen(measured) - 1);
	}
	char rates[RIDGE_LONG_TEXT] = "";
	set_rate(rep, g, "fp32_vector", RIDGE_FP32, false, rates, sizeof rates);
	set_rate(rep, g, "fp64_vector", RIDGE_FP64, false, rates, sizeof rates);
	set_rate(rep, g, "fp16_vector", RIDGE_FP16, false, rates, sizeof rates);
	set_rate(rep, g, "bf16_matrix", RIDGE_BF16, true, rates, sizeof rates);
	set_rate(rep, g, "fp16_matrix", RIDGE_FP16, true, rates, sizeof rates);
	set_rate(rep, g, "tf32_matrix", RIDGE_TF32, true, rates, sizeof rates);
	set_rate(rep, g, "fp8_matrix", RIDGE_FP8, true, rates, sizeof rates);
	if (rep->has_launch[PROBE_LAUNCH]) {
		g->launch_overhead_s = rep->launch_s[PROBE_LAUNCH];
		strncat(measured, ", launch.overhead", sizeof measured - strlen(measured) - 1);
	}
	if (rep->has_launch[PROBE_GRAPH_NODE]) {
		g->graph_node_s = rep->launch_s[PROBE_GRAPH_NODE];
		strncat(measured, ", launch.graph_node", sizeof measured - strlen(measured) - 1);
	}
	/* The fixed cost per kernel: intercepts of time against work (report.c). */
	if (rep->kernel_fixed.has) {
		g->has_kernel_fixed_cost = true;
		g->kernel_fixed_cost_s = rep->kernel_fixed.fixed_s;
		strncat(measured, ", launch.kernel_fixed_cost", sizeof measured - strlen(measured) - 1);
	}
	if (rep->gemm_fixed.has) {
		g->has_gemm_fixed_cost = true;
		g->gemm_fixed_cost_s = rep->gemm_fixed.fixed_s;
		strncat(measured, ", launch.gemm_fixed_cost", sizeof measured - strlen(measured) - 1);
	}
	/* 2:4 sparse rates: the own sparse and dense wgmma kernels of one dtype
	 * give the instruction's speed-up; where it is 2 (within the 3 % hwdb
	 * requires) the sparse rate is twice the calibrated dense one. */
	char sparse[RIDGE_LONG_TEXT] = "";
	const struct {
		const char *sparse_name, *dense_name;
		enum ridge_dtype dtype;
	} sparse_defs[] = { { "bf16_sparse_wgmma", "bf16_wgmma", RIDGE_BF16 },
			    { "fp8_sparse_wgmma", "fp8_wgmma", RIDGE_FP8 } };
	for (size_t i = 0; i < sizeof sparse_defs / sizeof sparse_defs[0]; i++) {
		double sp, dn;
		struct ridge_peak *p = &g->peak[sparse_defs[i].dtype];
		if (!take(rep, sparse_defs[i].sparse_name, &sp) || !take(rep, sparse_defs[i].dense_name, &dn) ||
		    !p->has_matrix)
			continue;
		size_t used = strlen(sparse);
		if (fabs(sp / dn - 2.0) <= 0.03 * 2.0) {
			p->has_matrix_sparse = true;
			p->matrix_sparse = 2 * p->matrix;
			snprintf(sparse + used, sizeof sparse - used,
				 "%s%s sparse/dense instruction rate %.3f (kept: 2 x "
				 "the calibrated dense rate)",
				 used ? "; " : "", ridge_dtype_name(sparse_defs[i].dtype), sp / dn);
		} else {
			snprintf(sparse + used, sizeof sparse - used,
				 "%s%s sparse/dense instruction rate %.3f (not 2: "
				 "the sparse rate is dropped)",
				 used ? "; " : "", ridge_dtype_name(sparse_defs[i].dtype), sp / dn);
		}
	}
	/* The device's own properties. */
	g->sm_count = d->sm_count;
	g->l2_bytes = d->l2_bytes;
	if (d->smem_per_sm > 0) {
		g->smem_per_sm = d->smem_per_sm;
		g->smem_per_block = d->smem_per_block;
		g->smem_per_block_optin = d->smem_per_block_optin;
		if (g->vendor == RIDGE_VENDOR_NVIDIA)
			g->nv.smem_reserved_per_block = d->smem_reserved_per_block;
	}
	if (d->regs_per_sm > 0) {
		g->regs_per_sm = d->regs_per_sm;
		g->regs_per_block = d->regs_per_block;
	}
	/* The runtime's total is what a program can allocate: the usable size.
	 * The card's size stays the entry's (the runtime reports less than the
	 * card has), unless the device reports more. */
	g->has_usable_memory = d->memory_bytes > 0;
	g->usable_memory_bytes = d->memory_bytes;
	if (d->memory_bytes > g->memory_bytes)
		g->memory_bytes = d->memory_bytes;
	/* The entry's fitted kernel-class efficiencies, converted to this run's
	 * ceilings (the rate each class reaches is kept; model/timing.h). */
	timing_rebase(rep->spec, g);

	snprintf(g->name, sizeof g->name, "%s (measured)", rep->spec->name);
	g->measured = true;
	char clock[64];
	const struct probe_ceiling *fp32 = probe_report_ceiling(rep, "fp32_vector");
	if (r->nvml && fp32 && fp32->clock_mhz > 0)
		snprintf(clock, sizeof clock, "SM clock %.0f MHz max, %.0f MHz under FP32 load", r->max_sm_clock_mhz,
			 fp32->clock_mhz);
	else if (r->nvml)
		snprintf(clock, sizeof clock, "SM clock %.0f MHz max", r->max_sm_clock_mhz);
	else
		snprintf(clock, sizeof clock, "SM clock %.0f MHz max (runtime; NVML not available)", d->clock_hz / 1e6);
	snprintf(g->measured_on, sizeof g->measured_on, "%s, driver %s, %s, %s", d->name,
		 r->nvml ? r->driver : "unknown", clock, r->date);

	g->source_count = 0;
	snprintf(g->sources[g->source_count++], RIDGE_LONG_TEXT, "ridge-probe %s on %s (%s), %s", r->version, d->name,
		 d->pci_bus_id, r->date);
	snprintf(g->sources[g->source_count++], RIDGE_LONG_TEXT,
		 "values not measured are copied from hwdb entry %s and its sources", rep->spec->id);
	g->note_count = 0;
	snprintf(g->notes[g->note_count++], RIDGE_LONG_TEXT,
		 "measured: %s; device properties: sm_count, cache.l2, "
		 "shared_memory, registers, memory.size",
		 measured);
	if (rates[0])
		snprintf(g->notes[g->note_count++], RIDGE_LONG_TEXT,
			 "measured peak_flops: %s (vector rates from FMA kernels, matrix rates from cuBLAS/cuBLASLt "
			 "GEMM); their 2:4 sparse rates are dropped %s",
			 rates, sparse[0] ? "unless the sparsity note below keeps them" : "(not measured)");
	if (sparse[0])
		snprintf(g->notes[g->note_count++], RIDGE_LONG_TEXT, "measured 2:4 sparsity (own wgmma.sp kernels): %s",
			 sparse);
	append_gemm_note(rep, g);
	append_latency_note(rep, g);
	snprintf(g->notes[g->note_count++], RIDGE_LONG_TEXT,
		 "peak rates not listed as measured are the datasheet's (hwdb %s)", rep->spec->id);
	return 0;
}

int probe_calibration_check(const struct probe_report *rep, const char *path, struct ridge_gpu *g, char *err,
			    size_t err_len)
{
	static struct ridge_gpu back;
	if (probe_calibration_build(rep, g, err, err_len))
		return -1;
	/* Check the text before writing it: a calibration that would not load
	 * (a device property outside the schema's range, say) must not replace
	 * a good file. Found by tests/fuzz/fuzz_probe_replay.c. */
	char *text = NULL;
	size_t len = 0;
	if (hwdb_format(g, &text, &len) != 0) {
		snprintf(err, err_len, "out of memory formatting the calibration");
		return -1;
	}
	struct hwdb_diags check;
	memset(&check, 0, sizeof check);
	int invalid = hwdb_parse(path, text, len, &back, &check);
	free(text);
	if (invalid) {
		char line[512] = "unknown problem";
		if (check.count)
			hwdb_diag_format(&check.items[0], line, sizeof line);
		snprintf(err, err_len, "not written: the calibration would not load: %s", line);
		return -1;
	}
	return 0;
}

int probe_calibration_write(const struct probe_report *rep, const char *path, char *err, size_t err_len)
{
	static struct ridge_gpu g, back;
	if (probe_calibration_check(rep, path, &g, err, err_len))
		return -1;
	char werr[256];
	if (hwdb_write_file(path, &g, werr, sizeof werr)) {
		snprintf(err, err_len, "%s", werr);
		return -1;
	}
	struct hwdb_diags diags;
	memset(&diags, 0, sizeof diags);
	if (hwdb_load_file(path, &back, &diags)) {
		char line[512] = "unknown problem";
		if (diags.count)
			hwdb_diag_format(&diags.items[0], line, sizeof line);
		snprintf(err, err_len, "the calibration written to '%s' does not load back: %s", path, line);
		return -1;
	}
	return 0;
}
