#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "calc.h"

const report_section_fn report_sections[] = {
	report_hardware, report_roofline, report_align, report_cost, report_occupancy,
};
const size_t report_section_count = sizeof report_sections / sizeof report_sections[0];

/* The built-in (spec-sheet) entry with this id: what a calibration is set
 * against. False when ridge ships none (a calibration of a user's entry). */
static bool builtin_spec(const char *id, struct ridge_gpu *out)
{
	struct hwdb_diags *diags = calloc(1, sizeof *diags);
	if (!diags)
		return false;
	bool found = false;
	for (int i = 0; i < hwdb_builtin_count() && !found; i++) {
		size_t len = 0;
		const char *text = hwdb_builtin_text(i, &len);
		found = hwdb_parse(hwdb_builtin_name(i), text, len, out, diags) == 0 && strcmp(out->id, id) == 0;
		diags->count = 0;
	}
	free(diags);
	return found;
}

/* One row: a rate (unit given; "of spec" in %) or a time (unit NULL; the
 * ratio, below 1 when the GPU is faster than the entry says). With rows, an
 * element of that array instead, key naming the ceiling as `ridge hw show
 * --json` does ("memory_bandwidth", "bf16_matrix"): spec null when the spec
 * sheet has none. */
static void measured_row(FILE *out, const char *what, const char *key, double spec, double measured, const char *unit,
			 cJSON *rows)
{
	if (rows) {
		cJSON *row = cJSON_CreateObject();
		cJSON_AddStringToObject(row, "ceiling", what + strspn(what, " "));
		cJSON_AddStringToObject(row, "key", key);
		cJSON_AddStringToObject(row, "unit", unit ? unit : "s");
		if (spec > 0)
			json_number(row, "spec", spec);
		else
			cJSON_AddNullToObject(row, "spec");
		json_number(row, "measured", measured);
		json_ratio(row, "measured_over_spec", measured, spec > 0 ? spec : 0);
		cJSON_AddItemToArray(rows, row);
		return;
	}
	char s[48] = "-", m[48], f[16] = "-";
	if (unit) {
		fmt_si(measured, unit, m, sizeof m);
		if (spec > 0) {
			fmt_si(spec, unit, s, sizeof s);
			snprintf(f, sizeof f, "%.1f%%", 100 * measured / spec);
		}
	} else {
		fmt_seconds(measured, m, sizeof m);
		if (spec > 0) {
			fmt_seconds(spec, s, sizeof s);
			snprintf(f, sizeof f, "%.2fx", measured / spec);
		}
	}
	fprintf(out, "  %-24s %16s %16s %8s\n", what, s, m, f);
}

/* A calibration beside its spec sheet: every ceiling the run changed. */
static void report_measured(FILE *out, const struct ridge_gpu *g, cJSON *json)
{
	static struct ridge_gpu spec;
	if (!g->measured || !builtin_spec(g->id, &spec))
		return;
	cJSON *rows = NULL;
	if (json) {
		cJSON *m = cJSON_AddObjectToObject(json, "measured_against_spec");
		cJSON_AddStringToObject(m, "spec_gpu", spec.id);
		cJSON_AddStringToObject(m, "measured_on", g->measured_on);
		rows = cJSON_AddArrayToObject(m, "ceilings");
	} else {
		fprintf(out, "measured against the spec sheet (built-in %s)%s%s:\n", spec.id,
			g->measured_on[0] ? ", " : "", g->measured_on);
		fprintf(out, "  %-24s %16s %16s %8s\n", "ceiling", "spec", "measured", "of spec");
	}
	measured_row(out, "HBM bandwidth", "memory_bandwidth", spec.memory_bandwidth, g->memory_bandwidth, "B/s", rows);
	struct ridge_hbm_mix mixes[RIDGE_HBM_MIXES];
	ridge_gpu_hbm_mixes(g, mixes);
	for (int i = 0; i < RIDGE_HBM_MIXES; i++)
		if (mixes[i].has) {
			char what[32];
			snprintf(what, sizeof what, "  %s", mixes[i].label);
			measured_row(out, what, mixes[i].key, spec.memory_bandwidth, mixes[i].bandwidth, "B/s", rows);
		}
	if (g->has_l2_bandwidth)
		measured_row(out, "L2 bandwidth", "l2_bandwidth", spec.has_l2_bandwidth ? spec.l2_bandwidth : 0,
			     g->l2_bandwidth, "B/s", rows);
	if (g->has_smem_bandwidth)
		measured_row(out, "shared-memory bandwidth", "smem_bandwidth",
			     spec.has_smem_bandwidth ? spec.smem_bandwidth : 0, g->smem_bandwidth, "B/s", rows);
	for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
		const struct ridge_peak *p = &g->peak[d], *q = &spec.peak[d];
		char what[32], key[32];
		/* A rate equal to the spec's was copied, not measured. */
		if (p->has_matrix && p->matrix != (q->has_matrix ? q->matrix : 0)) {
			snprintf(what, sizeof what, "%s matrix", ridge_dtype_name((enum ridge_dtype)d));
			snprintf(key, sizeof key, "%s_matrix", ridge_dtype_name((enum ridge_dtype)d));
			measured_row(out, what, key, q->has_matrix ? q->matrix : 0, p->matrix, "FLOP/s", rows);
		}
		if (p->has_vector && p->vector != (q->has_vector ? q->vector : 0)) {
			snprintf(what, sizeof what, "%s vector", ridge_dtype_name((enum ridge_dtype)d));
			snprintf(key, sizeof key, "%s_vector", ridge_dtype_name((enum ridge_dtype)d));
			measured_row(out, what, key, q->has_vector ? q->vector : 0, p->vector, "FLOP/s", rows);
		}
	}
	if (g->launch_overhead_s != spec.launch_overhead_s)
		measured_row(out, "kernel launch", "launch_overhead_s", spec.launch_overhead_s, g->launch_overhead_s,
			     NULL, rows);
	if (g->graph_node_s != spec.graph_node_s)
		measured_row(out, "graph node", "graph_node_s", spec.graph_node_s, g->graph_node_s, NULL, rows);
}

void report_hardware(FILE *out, const struct ridge_gpu *g, cJSON *json)
{
	if (json) {
		/* The entry as `ridge hw show --json` has it, and the ridge point of
		 * each dtype's default rate (the human table's last column). */
		cJSON *hw = app_gpu_json(g, NULL);
		cJSON_AddItemToObject(json, "hardware", hw);
		cJSON *ridge = cJSON_AddObjectToObject(hw, "ridge_point");
		for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
			double rate;
			if (ridge_gpu_peak(g, (enum ridge_dtype)d, RIDGE_PEAK_DEFAULT, false, &rate, NULL))
				json_ratio(ridge, ridge_dtype_name((enum ridge_dtype)d), rate, g->memory_bandwidth);
		}
		report_measured(out, g, json);
		return;
	}
	char bw[48], mem[48], l2[48];
	fmt_si(g->memory_bandwidth, "B/s", bw, sizeof bw);
	fmt_bytes(g->memory_bytes, mem, sizeof mem);
	fmt_bytes(g->l2_bytes, l2, sizeof l2);
	fprintf(out, "== %s (%s): %s ceilings ==\n", g->name, g->id, app_ceiling_source(g));
	fprintf(out, "%d %s, %s %s at %s, L2 %s\n", g->sm_count, g->vendor == RIDGE_VENDOR_AMD ? "CUs" : "SMs", mem,
		g->memory_type, bw, l2);
	fprintf(out, "%-6s %14s %14s %22s\n", "dtype", "matrix TF/s", "vector TF/s", "ridge point (FLOP/B)");
	for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
		const struct ridge_peak *p = &g->peak[d];
		double rate;
		if (!ridge_gpu_peak(g, (enum ridge_dtype)d, RIDGE_PEAK_DEFAULT, false, &rate, NULL))
			continue;
		char m[32] = "-", v[32] = "-";
		if (p->has_matrix)
			snprintf(m, sizeof m, "%.1f", p->matrix / 1e12);
		if (p->has_vector)
			snprintf(v, sizeof v, "%.1f", p->vector / 1e12);
		fprintf(out, "%-6s %14s %14s %22.1f\n", ridge_dtype_name((enum ridge_dtype)d), m, v,
			rate / g->memory_bandwidth);
	}
	report_measured(out, g, NULL);
}

/* ---- the command line: ridge report ---- */

static const char report_usage[] =
	"usage: ridge report [--gpu GPU] [--hwdb DIR] [--calibration FILE] [--json]\n"
	"\n"
	"A one-page report on a GPU (default " APP_DEFAULT_GPU "): its ceilings and ridge points,\n"
	"and each calculator run on the worked examples of chapter 7 (GPU kernels) of the textbook\n"
	"AI/ML Infrastructure from Silicon to Scale (Venkat Vinjam), cited by section.\n"
	"\n"
	"  --gpu GPU           hwdb id or alias (default: the calibration's GPU, else " APP_DEFAULT_GPU ")\n"
	"  --hwdb DIR          also load the hwdb entries in DIR\n"
	"  --calibration FILE  a ridge-probe calibration: measured ceilings, set against the spec sheet\n"
	"  --json              every section as one JSON document on stdout (SI units; the keys of\n"
	"                      ridge hw show, roofline, align, launch, cost and occupancy --json)\n";

static const struct param report_params[] = PARAMS_ROWS(REPORT_PARAMS);

const struct params_command report_params_command = {
	.name = "report",
	PARAMS_COMMAND_TABLE(report_params),
	.usage = report_usage,
	.operands = PARAMS_OPERANDS_ANY,
};
