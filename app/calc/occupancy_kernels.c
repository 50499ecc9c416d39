/* ridge occupancy --ptxas/--resource-usage: every kernel of a compiler report, its architecture chosen for the GPU, its occupancy and best block size. */
#include "occupancy_calc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "app.h"
#include "demangle.h"
#include "report.h"
#include "svg.h"
#include "json_fields.h"
#include "read_limits.h"
#include "occupancy_internal.h"

/* -------------------------------------------------------------- kernels */

/* A log built for several architectures (nvcc -gencode ... twice) lists
 * every kernel once per architecture: keep those built for the GPU asked
 * about, and say which. *count shrinks; *selected is "" when nothing was
 * dropped. note says what happened, "" when the log has one architecture. */
static void select_arch(const struct ridge_gpu *g, struct ridge_kernel_usage *k, int *count, char *selected,
			size_t selected_len, char *note, size_t note_len)
{
	selected[0] = note[0] = '\0';
	if (g->vendor != RIDGE_VENDOR_NVIDIA)
		return;
	char want[16], archs[256] = "";
	snprintf(want, sizeof want, "sm_%d%d", g->cc_major, g->cc_minor);
	int distinct = 0, matching = 0;
	for (int i = 0; i < *count; i++) {
		matching += strcmp(k[i].arch, want) == 0;
		bool seen = false;
		for (int j = 0; j < i && !seen; j++)
			seen = strcmp(k[j].arch, k[i].arch) == 0;
		if (!seen && k[i].arch[0]) {
			size_t used = strlen(archs);
			snprintf(archs + used, sizeof archs - used, "%s%s", distinct ? ", " : "", k[i].arch);
			distinct++;
		}
	}
	if (distinct < 2)
		return;
	if (matching == 0) {
		snprintf(note, note_len, "the log is built for %s, none of them %s (%s): every kernel is shown", archs,
			 want, g->id);
		return;
	}
	int kept = 0;
	for (int i = 0; i < *count; i++)
		if (strcmp(k[i].arch, want) == 0)
			k[kept++] = k[i];
	snprintf(note, note_len,
		 "the log is built for %s: showing the %d kernel%s built for %s (--gpu %s), %d left out", archs, kept,
		 kept == 1 ? "" : "s", want, g->id, *count - kept);
	snprintf(selected, selected_len, "%s", want);
	*count = kept;
}

/* The kernel's name as a person reads it: demangled when the demangler is
 * sure (app/read/demangle.c), else as the compiler wrote it. */
static const char *shown_name(const struct ridge_kernel_usage *k, char *buf, size_t len)
{
	return app_demangle(k->name, buf, len) ? buf : k->name;
}

/* The report at path parsed into *out (count kernels; freed by the caller).
 * Returns 0, or an exit code with the error in st. */
static int kernels_read(const char *path, enum ridge_usage_format fmt, double reserve, struct ridge_kernel_usage **out,
			int *out_count, struct app_status *st)
{
	size_t len;
	char *text = app_read_file(path, READ_MAX_COMPILER_REPORT_BYTES, "compiler report", &len, st);
	if (!text)
		return EXIT_USAGE;
	struct ridge_kernel_usage *k = NULL;
	int count = 0;
	char err[512];
	/* first count, then fill */
	int rc = occupancy_parse_usage(text, len, fmt, reserve, NULL, 0, &count, err, sizeof err);
	if (rc == 0) {
		k = calloc((size_t)count, sizeof *k);
		if (!k) {
			free(text);
			app_error_env(st, "out of memory");
			return EXIT_ENV;
		}
		rc = occupancy_parse_usage(text, len, fmt, reserve, k, count, &count, err, sizeof err);
	}
	free(text);
	if (rc != 0) {
		free(k);
		app_error(st, "%s:%s%s", path, err[0] >= '0' && err[0] <= '9' ? "" : " ", err);
		return EXIT_USAGE;
	}
	*out = k;
	*out_count = count;
	return 0;
}

/* Each kernel's input (base with the report's registers, shared memory,
 * barriers; the block size cudaOccupancyMaxPotentialBlockSize picks unless
 * --threads was given) and its analysis. Returns 0, or EXIT_USAGE with the
 * error in st. */
static int kernels_analyze(const struct ridge_gpu *g, const struct ridge_occupancy_input *base, const char *path,
			   const struct ridge_kernel_usage *k, int count, bool threads_given,
			   struct ridge_occupancy_input *ins, struct ridge_occupancy_analysis *an,
			   struct app_status *st)
{
	bool amd = g->vendor == RIDGE_VENDOR_AMD;
	char err[512];
	for (int i = 0; i < count; i++) {
		struct ridge_occupancy_input *in = &ins[i];
		*in = *base;
		in->regs_per_thread = k[i].regs;
		in->static_smem = k[i].smem;
		if (k[i].barriers >= 0 && !amd)
			in->barriers = k[i].barriers;
		if (amd) {
			in->agprs = k[i].agprs > 0 ? k[i].agprs : 0;
			in->sgprs = k[i].sgprs > 0 ? k[i].sgprs : 0;
		}
		char what[1200];
		snprintf(what, sizeof what, "%s:%d: kernel '%s'", path, k[i].line, k[i].name);
		if (!threads_given) {
			int size, grid, blocks;
			in->threads_per_block = 1;
			if (occupancy_max_potential_block_size(g, in, &size, &grid, &blocks, err, sizeof err) != 0) {
				app_error(st, "%s: %s", what, err);
				return EXIT_USAGE;
			}
			in->threads_per_block = size > 0 ? size : g->max_threads_per_block;
		}
		if (occupancy_analyze(g, in, &an[i], err, sizeof err) != 0) {
			app_error(st, "%s: %s", what, err);
			return EXIT_USAGE;
		}
	}
	return EXIT_OK;
}

/* The --json document: the file, the architecture chosen, every kernel. */
static cJSON *kernels_json(const struct ridge_gpu *g, const char *path, enum ridge_usage_format fmt, bool threads_given,
			   const char *selected, const char *arch_note, const struct ridge_kernel_usage *k, int count,
			   const struct ridge_occupancy_input *ins, const struct ridge_occupancy_analysis *an)
{
	cJSON *doc = cJSON_CreateObject();
	calc_json_gpu(doc, g);
	cJSON_AddStringToObject(doc, "file", path);
	cJSON_AddStringToObject(doc, "format",
				fmt == RIDGE_USAGE_PTXAS       ? "ptxas"
				: fmt == RIDGE_USAGE_CUOBJDUMP ? "cuobjdump"
							       : "amdgpu_remarks");
	cJSON_AddBoolToObject(doc, "threads_chosen", !threads_given);
	if (selected[0])
		cJSON_AddStringToObject(doc, "arch_selected", selected);
	if (arch_note[0])
		cJSON_AddStringToObject(doc, "arch_note", arch_note);
	cJSON *arr = cJSON_AddArrayToObject(doc, "kernels");
	for (int i = 0; i < count; i++) {
		cJSON *kj = cJSON_CreateObject();
		char demangled[1024];
		cJSON_AddStringToObject(kj, "name", k[i].name);
		if (app_demangle(k[i].name, demangled, sizeof demangled))
			cJSON_AddStringToObject(kj, "demangled", demangled);
		if (k[i].arch[0])
			cJSON_AddStringToObject(kj, "arch", k[i].arch);
		cJSON_AddNumberToObject(kj, "line", k[i].line);
		occupancy_json_input(kj, g, &ins[i]);
		json_number(kj, "stack", k[i].stack);
		if (k[i].spill_stores >= 0) {
			json_number(kj, "spill_stores", k[i].spill_stores);
			json_number(kj, "spill_loads", k[i].spill_loads);
		}
		if (k[i].cmem >= 0)
			json_number(kj, "cmem", k[i].cmem);
		if (k[i].local >= 0)
			json_number(kj, "local", k[i].local);
		if (k[i].compiler_occupancy >= 0)
			cJSON_AddNumberToObject(kj, "compiler_waves_per_simd", k[i].compiler_occupancy);
		if (k[i].scratch >= 0)
			json_number(kj, "scratch_per_lane", k[i].scratch);
		occupancy_json_result(kj, &an[i].result);
		occupancy_json_details(kj, g, &an[i]);
		cJSON_AddItemToArray(arr, kj);
	}
	return doc;
}

/* The human view: a row per kernel, the notes, each kernel's suggestion. */
static void kernels_print(FILE *out, const struct ridge_gpu *g, const char *path, bool threads_given,
			  const char *arch_note, const struct ridge_kernel_usage *k, int count,
			  const struct ridge_occupancy_input *ins, const struct ridge_occupancy_analysis *an)
{
	bool amd = g->vendor == RIDGE_VENDOR_AMD;
	occupancy_print_header(out, g);
	fprintf(out, "%d kernel%s in %s%s\n\n", count, count == 1 ? "" : "s", path,
		threads_given ? "" : " (each at the block size cudaOccupancyMaxPotentialBlockSize would pick)");
	if (arch_note[0])
		fprintf(out, "%s\n\n", arch_note);
	fprintf(out, "  %-7s %5s %4s %4s %10s %11s %7s %7s %6s  %-14s %s\n", "arch", "thr", amd ? "vgpr" : "regs",
		amd ? "sgpr" : "bar", amd ? "LDS" : "smem", amd ? "scratch" : "spill st/ld", amd ? "WGs/CU" : "blk/SM",
		amd ? "waves" : "warps", "occ", "limiter", "kernel");
	for (int i = 0; i < count; i++) {
		const struct ridge_occupancy_result *r = &an[i].result;
		char bar[16], sm[32], sp[32];
		if (amd)
			snprintf(bar, sizeof bar, "%d", ins[i].sgprs);
		else if (k[i].barriers >= 0)
			snprintf(bar, sizeof bar, "%d", k[i].barriers);
		else
			snprintf(bar, sizeof bar, "-");
		occupancy_kib(k[i].smem, sm, sizeof sm);
		if (amd && k[i].scratch >= 0)
			snprintf(sp, sizeof sp, "%.0f B", k[i].scratch);
		else if (!amd && k[i].spill_stores >= 0)
			snprintf(sp, sizeof sp, "%.0f/%.0f B", k[i].spill_stores, k[i].spill_loads);
		else
			snprintf(sp, sizeof sp, "-");
		char name[1024];
		fprintf(out, "  %-7s %5d %4d %4s %10s %11s %7d %7d %5.1f%%  %-14s %s\n", k[i].arch[0] ? k[i].arch : "-",
			ins[i].threads_per_block, amd ? r->amd.vgprs_unified : k[i].regs, bar, sm, sp, r->blocks_per_sm,
			r->active_warps, r->occupancy * 100, occupancy_limiter_name(r->limiter),
			shown_name(&k[i], name, sizeof name));
	}
	char want[16] = "";
	if (!amd)
		snprintf(want, sizeof want, "sm_%d%d", g->cc_major, g->cc_minor);
	for (int i = 0; i < count; i++) {
		const struct ridge_occupancy_analysis *a = &an[i];
		char buf[1024];
		const char *name = shown_name(&k[i], buf, sizeof buf);
		if (!amd && k[i].arch[0] && strcmp(k[i].arch, want) != 0)
			fprintf(out, "\nnote: %s was compiled for %s, not %s: its register count may differ there\n",
				name, k[i].arch, want);
		if (amd && k[i].compiler_occupancy >= 0) {
			int mine = a->result.amd.vgpr_waves_per_simd < a->result.amd.sgpr_waves_per_simd
					   ? a->result.amd.vgpr_waves_per_simd
					   : a->result.amd.sgpr_waves_per_simd;
			if (k[i].compiler_occupancy != mine)
				fprintf(out,
					"\nnote: %s: the compiler reports %d waves per SIMD, ridge's register rule "
					"%d (the compiler also counts LDS and the workgroup size)\n",
					name, k[i].compiler_occupancy, mine);
		}
		if (amd && !a->result.amd.rules_agree)
			fprintf(out, "\nnote: %s: HIP's rule gives %d workgroups, the hardware rule %d\n", name,
				a->result.amd.hip_blocks_per_cu, a->result.blocks_per_sm);
	}
	fprintf(out, "\n");
	for (int i = 0; i < count; i++) {
		char lead[1100], name[1024];
		snprintf(lead, sizeof lead, "%s: ", shown_name(&k[i], name, sizeof name));
		occupancy_print_suggestion(out, g, &ins[i], &an[i], lead, "full occupancy");
	}
}

/* Every kernel of a compiler report (--ptxas, --resource-usage). */
int occupancy_run_kernels(FILE *out, const struct param_values *v, const struct ridge_gpu *g,
			  const struct ridge_occupancy_input *base, cJSON **json, struct app_status *st)
{
	const char *ptxas = params_text(v, OCCUPANCY_PTXAS);
	const char *path = ptxas ? ptxas : params_text(v, OCCUPANCY_RESOURCE_USAGE);
	bool threads_given = params_has(v, OCCUPANCY_THREADS);
	bool amd = g->vendor == RIDGE_VENDOR_AMD;
	if (ptxas && amd) {
		app_error(st,
			  "--ptxas reads NVIDIA ptxas output; for %s give --resource-usage with the "
			  "-Rpass-analysis=kernel-resource-usage remarks",
			  g->id);
		return EXIT_USAGE;
	}
	enum ridge_usage_format fmt = ptxas ? RIDGE_USAGE_PTXAS : amd ? RIDGE_USAGE_AMD_REMARKS : RIDGE_USAGE_CUOBJDUMP;
	struct ridge_kernel_usage *k = NULL;
	int count = 0;
	double reserve = amd ? 0 : g->nv.smem_reserved_per_block;
	int rc = kernels_read(path, fmt, reserve, &k, &count, st);
	if (rc != 0)
		return rc;
	char selected[16], arch_note[512];
	select_arch(g, k, &count, selected, sizeof selected, arch_note, sizeof arch_note);
	struct ridge_occupancy_analysis *an = calloc((size_t)count, sizeof *an);
	struct ridge_occupancy_input *ins = calloc((size_t)count, sizeof *ins);
	if (!an || !ins) {
		free(an);
		free(ins);
		free(k);
		app_error_env(st, "out of memory");
		return EXIT_ENV;
	}
	rc = kernels_analyze(g, base, path, k, count, threads_given, ins, an, st);
	if (rc == EXIT_OK && params_flag(v, OCCUPANCY_JSON))
		*json = kernels_json(g, path, fmt, threads_given, selected, arch_note, k, count, ins, an);
	else if (rc == EXIT_OK)
		kernels_print(out, g, path, threads_given, arch_note, k, count, ins, an);
	free(an);
	free(ins);
	free(k);
	return rc;
}
