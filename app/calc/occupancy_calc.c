/* The occupancy calculator: how many blocks of a kernel fit on one SM, what
 * limits them, and the smallest change that gains one. NVIDIA: the CUDA
 * runtime's calculator exactly (model/occupancy.c); AMD CDNA: the LLVM
 * hardware rule and HIP's rule side by side. One table of inputs for
 * `ridge occupancy`, the scenario kind `occupancy` and the TUI's panel; the
 * command's JSON, printers, sweep, SVG charts and compiler reports; and the
 * report section. */
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
#include "occupancy_internal.h"

/* The inputs, once. Ranges are what any GPU allows (a block has at most
 * 1024 threads on every CUDA and HIP device; 256 VGPRs is CDNA's most); the
 * GPU's own limits are checked by occupancy_build_input. On the command
 * line threads and regs may be left out with a compiler report (or --sweep
 * for threads): PARAM_REQUIRED holds for scenario items, which have neither.
 * The defaults are the TUI's starting kernel. */
static const struct param occupancy_params[] = PARAMS_ROWS(OCCUPANCY_PARAMS);

/* "--regs" on the command line, "regs" in a scenario item: how a message
 * names another input than the one it is about. */
static const char *input_name(const struct param_values *v, int about, const char *name, char *buf, size_t len)
{
	if (params_where(v, about)[0] == '-')
		params_flag_name(name, buf, len);
	else
		snprintf(buf, len, "%s", name);
	return buf;
}

static int int_of(const struct param_values *v, int param, int fallback)
{
	return params_has(v, param) ? (int)params_num(v, param) : fallback;
}

int occupancy_check_request(const struct param_values *v, struct app_status *st)
{
	bool ptxas = params_has(v, OCCUPANCY_PTXAS), usage = params_has(v, OCCUPANCY_RESOURCE_USAGE);
	bool sweep = params_flag(v, OCCUPANCY_SWEEP), svg = params_has(v, OCCUPANCY_SVG);
	if (ptxas && usage) {
		app_error(st, "give --ptxas or --resource-usage, not both");
		return -1;
	}
	if ((ptxas || usage) && (sweep || svg)) {
		app_error(st, "%s works on one kernel; leave it out with %s", sweep ? "--sweep" : "--svg",
			  ptxas ? "--ptxas" : "--resource-usage");
		return -1;
	}
	if (!params_has(v, OCCUPANCY_THREADS) && !sweep && !ptxas && !usage) {
		app_error(
			st,
			"--threads is required (or --sweep, --ptxas, --resource-usage; see 'ridge occupancy --help')");
		return -1;
	}
	return 0;
}

int occupancy_build_input(const struct param_values *v, const struct ridge_gpu *g, struct ridge_occupancy_input *in,
			  struct app_status *st)
{
	bool amd = g->vendor == RIDGE_VENDOR_AMD;
	const char *report = params_has(v, OCCUPANCY_PTXAS)            ? "--ptxas"
			     : params_has(v, OCCUPANCY_RESOURCE_USAGE) ? "--resource-usage"
								       : NULL;
	char a[80], b[80];
	occupancy_input_init(in);
	in->threads_per_block = int_of(v, OCCUPANCY_THREADS, 0);
	if (in->threads_per_block > g->max_threads_per_block) {
		app_error(st, "%s: '%s' is out of range (1..%d)", params_where(v, OCCUPANCY_THREADS),
			  params_text(v, OCCUPANCY_THREADS), g->max_threads_per_block);
		return -1;
	}
	static const int amd_only[] = { OCCUPANCY_VGPRS, OCCUPANCY_AGPRS, OCCUPANCY_SGPRS, OCCUPANCY_LDS };
	static const int nv_only[] = { OCCUPANCY_CARVEOUT, OCCUPANCY_CACHE_CONFIG, OCCUPANCY_OPTIN };
	for (int i = 0; i < 4 && !amd; i++) {
		if (params_has(v, amd_only[i])) {
			app_error(st, "%s applies to AMD GPUs; %s is NVIDIA (use %s and %s)",
				  params_where(v, amd_only[i]), g->id, input_name(v, amd_only[i], "regs", a, sizeof a),
				  input_name(v, amd_only[i], "smem", b, sizeof b));
			return -1;
		}
	}
	for (int i = 0; i < 3 && amd; i++) {
		if (params_has(v, nv_only[i])) {
			app_error(st, "%s applies to NVIDIA GPUs; %s has no shared-memory carveout or opt-in",
				  params_where(v, nv_only[i]), g->id);
			return -1;
		}
	}
	if (params_has(v, OCCUPANCY_REGS) && params_has(v, OCCUPANCY_VGPRS)) {
		app_error(st, "--regs and --vgprs are the same on AMD; give one");
		return -1;
	}
	if (params_has(v, OCCUPANCY_SMEM) && params_has(v, OCCUPANCY_LDS)) {
		app_error(st, "--smem and --lds are the same on AMD; give one");
		return -1;
	}
	int regs = params_has(v, OCCUPANCY_VGPRS) ? OCCUPANCY_VGPRS : OCCUPANCY_REGS;
	int smem = params_has(v, OCCUPANCY_LDS) ? OCCUPANCY_LDS : OCCUPANCY_SMEM;
	if (!report) {
		if (!params_has(v, regs)) {
			app_error(st, "%s is required (see 'ridge occupancy --help')",
				  amd ? "--regs (or --vgprs)" : "--regs");
			return -1;
		}
		int max_regs = amd ? g->amd.vgprs_per_lane / 2 : g->nv.max_regs_per_thread;
		in->regs_per_thread = int_of(v, regs, 0);
		if (in->regs_per_thread > max_regs) {
			app_error(st, "%s: '%s' is out of range (0..%d)", params_where(v, regs), params_text(v, regs),
				  max_regs);
			return -1;
		}
		if (params_has(v, smem))
			in->static_smem = params_num(v, smem);
	} else if (params_has(v, regs) || params_has(v, smem)) {
		bool r = params_has(v, regs);
		app_error(st, "%s conflicts with %s: the report gives each kernel's %s",
			  params_where(v, r ? regs : smem), report, r ? "registers" : "shared memory");
		return -1;
	}
	if (params_has(v, OCCUPANCY_DYN_SMEM))
		in->dynamic_smem = params_num(v, OCCUPANCY_DYN_SMEM);
	in->carveout_percent = int_of(v, OCCUPANCY_CARVEOUT, in->carveout_percent);
	if (params_has(v, OCCUPANCY_CACHE_CONFIG)) {
		static const char *const names[] = { "none", "shared", "l1", "equal" };
		int found = -1;
		for (int i = 0; i < 4; i++)
			if (strcasecmp(params_text(v, OCCUPANCY_CACHE_CONFIG), names[i]) == 0)
				found = i;
		if (found < 0) {
			app_error(st, "%s: unknown value '%s' (known: none, shared, l1, equal)",
				  params_where(v, OCCUPANCY_CACHE_CONFIG), params_text(v, OCCUPANCY_CACHE_CONFIG));
			return -1;
		}
		in->cache_config = (enum ridge_occupancy_cache)found;
	}
	in->optin = params_flag(v, OCCUPANCY_OPTIN);
	in->barriers = int_of(v, OCCUPANCY_BARRIERS, in->barriers);
	static const int amd_counts[] = { OCCUPANCY_AGPRS, OCCUPANCY_SGPRS };
	for (int i = 0; i < 2; i++) {
		int max = i == 0 ? g->amd.vgprs_per_lane / 2 : g->amd.max_sgprs_per_wave;
		int value = int_of(v, amd_counts[i], 0);
		if (value > max) {
			app_error(st, "%s: '%s' is out of range (0..%d)", params_where(v, amd_counts[i]),
				  params_text(v, amd_counts[i]), max);
			return -1;
		}
		*(i == 0 ? &in->agprs : &in->sgprs) = value;
	}
	return 0;
}

const char *occupancy_kib(double bytes, char *buf, size_t len)
{
	/* Whole KiB read best in KiB; anything else exactly (232449 B is not
	 * "227 KiB": one byte decides whether it launches). */
	if (fmod(bytes, 1024) != 0)
		snprintf(buf, len, "%.0f B", bytes);
	else
		fmt_bytes(bytes, buf, len);
	return buf;
}

/* Why shared memory keeps a kernel from launching, in words ("" when it does
 * not): more than a block may have. Not an input error: cuda_occupancy.h
 * (and the runtime) answer 0 blocks for it, and so does ridge (--help); a
 * static size past what ptxas lets a kernel declare is said too. */
void occupancy_smem_launch_note(const struct ridge_gpu *g, const struct ridge_occupancy_input *in, char *buf,
				size_t len)
{
	char a[32], b[32], c[32];
	buf[0] = '\0';
	double total = in->static_smem + in->dynamic_smem;
	if (g->vendor == RIDGE_VENDOR_AMD) {
		if (total > g->smem_per_block)
			snprintf(buf, len, "%s of LDS per workgroup is over the %s maximum on %s: the launch fails",
				 occupancy_kib(total, a, sizeof a), occupancy_kib(g->smem_per_block, b, sizeof b),
				 g->id);
		return;
	}
	if (in->static_smem > g->smem_per_block)
		snprintf(buf, len,
			 "%s of static shared memory is over the %s a kernel can declare (ptxas refuses); give the "
			 "rest as --dyn-smem with --optin",
			 occupancy_kib(in->static_smem, a, sizeof a), occupancy_kib(g->smem_per_block, b, sizeof b));
	else if (total > g->smem_per_block_optin)
		snprintf(buf, len,
			 "%s static + %s dynamic shared memory is over the opt-in maximum of %s per block on %s: "
			 "the launch fails",
			 occupancy_kib(in->static_smem, a, sizeof a), occupancy_kib(in->dynamic_smem, b, sizeof b),
			 occupancy_kib(g->smem_per_block_optin, c, sizeof c), g->id);
	else if (total > g->smem_per_block && !in->optin)
		snprintf(buf, len,
			 "%s of shared memory per block is over the default %s: the launch fails without --optin "
			 "(cudaFuncAttributeMaxDynamicSharedMemorySize)",
			 occupancy_kib(total, a, sizeof a), occupancy_kib(g->smem_per_block, b, sizeof b));
}

/* ------------------------------------------------------------------ run */

/* The keys of one configuration, as the command and a scenario item give
 * them (threads_chosen: the command's, -1 leaves it out). */
static void json_config(cJSON *doc, const struct ridge_gpu *g, const struct ridge_occupancy_input *in,
			const struct ridge_occupancy_analysis *an, int threads_chosen)
{
	int size = 0, grid = 0, blocks = 0;
	char err[256];
	occupancy_max_potential_block_size(g, in, &size, &grid, &blocks, err, sizeof err);
	calc_json_gpu(doc, g);
	occupancy_json_input(doc, g, in);
	if (threads_chosen >= 0)
		cJSON_AddBoolToObject(doc, "threads_chosen", threads_chosen);
	occupancy_json_result(doc, &an->result);
	occupancy_json_launch_note(doc, g, in);
	occupancy_json_details(doc, g, an);
	cJSON *mp = cJSON_AddObjectToObject(doc, "max_potential_block_size");
	cJSON_AddNumberToObject(mp, "block_size", size);
	cJSON_AddNumberToObject(mp, "blocks_per_sm", blocks);
	cJSON_AddNumberToObject(mp, "min_grid_size", grid);
	occupancy_json_hip_potential(doc, g, in);
}

/* One configuration, with --sweep and --svg. */
static int run_one(FILE *out, const struct param_values *v, const struct ridge_gpu *g, struct ridge_occupancy_input *in,
		   cJSON **json, struct app_status *st)
{
	char err[256];
	bool sweep = params_flag(v, OCCUPANCY_SWEEP);
	const char *svg = params_text(v, OCCUPANCY_SVG);
	struct ridge_occupancy_device dev;
	if (occupancy_device_init(g, &dev, err, sizeof err) != 0) {
		app_error(st, "%s", err);
		return EXIT_USAGE;
	}
	bool chosen = false;
	if (in->threads_per_block == 0) { /* --sweep without --threads: the best block size */
		int size, grid, blocks;
		in->threads_per_block = 1;
		if (occupancy_max_potential_block_size(g, in, &size, &grid, &blocks, err, sizeof err) != 0) {
			app_error(st, "%s", err);
			return EXIT_USAGE;
		}
		in->threads_per_block = size > 0 ? size : g->max_threads_per_block;
		chosen = true;
	}
	struct ridge_occupancy_analysis an;
	if (occupancy_analyze(g, in, &an, err, sizeof err) != 0) {
		app_error(st, "%s", err);
		return EXIT_USAGE;
	}
	struct sweep_row rows[1024];
	int nrows = sweep ? occupancy_sweep_rows(&dev, in, rows, 1024) : 0;
	if (svg && occupancy_write_svg(svg, &dev, g, in, &an.result, st) != 0)
		return EXIT_ENV;

	if (params_flag(v, OCCUPANCY_JSON)) {
		cJSON *doc = cJSON_CreateObject();
		json_config(doc, g, in, &an, chosen);
		if (sweep) {
			cJSON *arr = cJSON_AddArrayToObject(doc, "sweep");
			for (int i = 0; i < nrows; i++) {
				cJSON *row = cJSON_CreateObject();
				cJSON_AddNumberToObject(row, "threads_per_block", rows[i].threads);
				occupancy_json_result(row, &rows[i].r);
				cJSON_AddItemToArray(arr, row);
			}
		}
		if (svg)
			cJSON_AddStringToObject(doc, "svg", svg);
		*json = doc;
		return EXIT_OK;
	}

	occupancy_print_header(out, g);
	if (g->vendor == RIDGE_VENDOR_AMD)
		occupancy_print_amd_config(out, in, &an.result);
	else
		occupancy_print_nv_config(out, in, &an.result);
	occupancy_print_limits(out, g, in, &an);
	fprintf(out, "  %s\n", "--------------------------------------");
	occupancy_print_outcome(out, g, &an.result);
	occupancy_print_launch_note(out, g, in);
	if (chosen)
		fprintf(out, "  (block size not given: the one cudaOccupancyMaxPotentialBlockSize would pick)\n");
	occupancy_print_explanations(out, g, in, &an);
	occupancy_print_suggestion(out, g, in, &an, "\n", NULL);
	occupancy_print_potential(out, g, in);
	if (sweep) {
		bool amd = g->vendor == RIDGE_VENDOR_AMD;
		fprintf(out, "\n  %7s %9s %6s %9s  %s\n", "threads", amd ? "WGs/CU" : "blocks/SM",
			amd ? "waves" : "warps", "occupancy", "limiter");
		for (int i = 0; i < nrows; i++)
			fprintf(out, "  %7d %9d %6d %8.1f%%  %s%s\n", rows[i].threads, rows[i].r.blocks_per_sm,
				rows[i].r.active_warps, rows[i].r.occupancy * 100,
				occupancy_limiter_name(rows[i].r.limiter),
				rows[i].threads == in->threads_per_block ? "   <- this kernel" : "");
	}
	if (svg)
		fprintf(out, "\nwrote %s\n", svg);
	return EXIT_OK;
}

int occupancy_command(FILE *out, const struct param_values *v, const struct ridge_gpu *g, cJSON **json,
		      struct app_status *st)
{
	*json = NULL;
	struct ridge_occupancy_input in;
	if (occupancy_build_input(v, g, &in, st) != 0)
		return EXIT_USAGE;
	return params_has(v, OCCUPANCY_PTXAS) || params_has(v, OCCUPANCY_RESOURCE_USAGE)
		       ? occupancy_run_kernels(out, v, g, &in, json, st)
		       : run_one(out, v, g, &in, json, st);
}

/* ------------------------------------------------ scenario files (eval) */

/* The scenario item kind "occupancy": one configuration, the same JSON as
 * `ridge occupancy --json` (without --sweep, --svg and compiler reports). */
static cJSON *occupancy_run(struct calc_input *ci)
{
	const struct ridge_gpu *g = ci->gpu;
	struct app_status st;
	app_status_init(&st);
	struct ridge_occupancy_input in;
	struct ridge_occupancy_analysis an;
	char err[256];
	if (occupancy_build_input(ci->values, g, &in, &st) == 0 && occupancy_analyze(g, &in, &an, err, sizeof err) != 0)
		app_error(&st, "%s", err);
	if (app_status_failed(&st)) {
		app_msg_format(app_status_first_error(&st), ci->err, sizeof ci->err);
		return NULL;
	}
	cJSON *doc = cJSON_CreateObject();
	json_config(doc, g, &in, &an, -1);
	return doc;
}

static void occupancy_print(FILE *out, const cJSON *r)
{
	const cJSON *limits = cJSON_GetObjectItemCaseSensitive(r, "limits");
	bool amd = calc_has(r, "amd");
	fprintf(out, "Occupancy on %s: %.0f threads, %.0f %s: %.0f %s = %.0f of %.0f %s = %.1f%%, limited by %s\n",
		calc_str(r, "gpu"), calc_num(r, "threads_per_block"),
		amd ? calc_num(r, "vgprs") : calc_num(r, "regs_per_thread"), amd ? "VGPRs" : "registers",
		calc_num(r, "blocks_per_sm"), amd ? "workgroups/CU" : "blocks/SM", calc_num(r, "active_warps"),
		calc_num(r, "max_warps"), amd ? "waves" : "warps", calc_num(r, "occupancy") * 100,
		calc_str(r, "limiter"));
	if (amd) {
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(r, "amd");
		const cJSON *h = cJSON_GetObjectItemCaseSensitive(a, "hip");
		fprintf(out, "  HIP's rule: %.0f workgroups%s\n", calc_num(h, "blocks_per_cu"),
			cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "rules_agree"))
				? " (agrees)"
				: " (DISAGREES with the hardware rule)");
	}
	fprintf(out, "  limits:");
	for (int i = 0; i < RIDGE_OCC_LIMITER_COUNT; i++) {
		const cJSON *l = cJSON_GetObjectItemCaseSensitive(limits, occupancy_limit_keys[i]);
		if (cJSON_IsNumber(l))
			fprintf(out, " %s %.0f", occupancy_limit_keys[i], l->valuedouble);
	}
	fprintf(out, "\n");
	const cJSON *gain = cJSON_GetObjectItemCaseSensitive(r, "to_gain_a_block");
	const cJSON *rd = cJSON_GetObjectItemCaseSensitive(gain, calc_has(gain, "vgprs_to_drop") ? "vgprs_to_drop"
												 : "registers_to_drop");
	const cJSON *sd = cJSON_GetObjectItemCaseSensitive(gain, "smem_to_drop");
	if (calc_num(r, "occupancy") < 1 && (cJSON_IsNumber(rd) || cJSON_IsNumber(sd))) {
		fprintf(out, "  to gain a block:");
		if (cJSON_IsNumber(rd))
			fprintf(out, " %.0f fewer %s", rd->valuedouble, amd ? "VGPRs" : "registers");
		if (cJSON_IsNumber(sd))
			fprintf(out, "%s %.0f fewer bytes of %s", cJSON_IsNumber(rd) ? " or" : "", sd->valuedouble,
				amd ? "LDS" : "shared memory");
		fprintf(out, "\n");
	}
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(r, "textbook");
	if (t && calc_num(t, "blocks_without_reserve") != calc_num(r, "blocks_per_sm") &&
	    !strcmp(calc_str(r, "limiter"), "shared_memory"))
		fprintf(out, "  without the driver's per-block reserve (the textbook arithmetic): %.0f blocks\n",
			calc_num(t, "blocks_without_reserve"));
}

const struct calc calc_occupancy = {
	.name = "occupancy",
	.synopsis =
		"kind: occupancy (threads, regs, smem, dyn_smem, carveout, cache_config, optin, barriers, agprs, sgprs)",
	.description = "Blocks per SM for one kernel configuration: the CUDA runtime's calculator on NVIDIA,\n"
		       "the LLVM hardware rule (and HIP's) on AMD CDNA. The command line is `ridge occupancy`.\n",
	CALC_IMPL(occupancy_params, occupancy_run, occupancy_print),
};

/* ---------------------------------------------------------------- report */

/* The textbook's configurations ridge report places. */
struct occupancy_report_case {
	const char *what;
	int threads, regs;
	double smem;
};
static const struct occupancy_report_case report_cases[] = {
	{ "7.1.4 worked example", 256, 32, 32768 },
	{ "review question 1", 256, 48, 49152 },
	{ "sm_80 register case", 224, 92, 0 },
};

/* One case's row of the text (i: its index; the third is the register
 * case, set against the arithmetic without register granularity), and
 * into gain what would gain a block ("" when nothing need). */
static void report_case_row(FILE *out, const struct ridge_gpu *g, size_t i, const struct ridge_occupancy_analysis *an,
			    char *gain, size_t gain_len)
{
	bool amd = g->vendor == RIDGE_VENDOR_AMD;
	const struct occupancy_report_case *c = &report_cases[i];
	char sm[32], other[96];
	const struct ridge_occupancy_result *r = &an->result;
	if (amd) {
		snprintf(other, sizeof other, "%d%s", r->amd.hip_blocks_per_cu, r->amd.rules_agree ? "" : " (differs)");
	} else if (i == 2) {
		snprintf(other, sizeof other, "%d = %.1f%%%s", an->blocks_naive_regs, an->occupancy_naive_regs * 100,
			 an->blocks_naive_regs != r->blocks_per_sm ? " (no register granularity)" : "");
	} else {
		snprintf(other, sizeof other, "%d = %.1f%%%s", an->blocks_without_reserve,
			 an->occupancy_without_reserve * 100,
			 an->blocks_without_reserve != r->blocks_per_sm ? " (no per-block reserve)" : "");
	}
	fprintf(out, "%-21s %4d %5d %7s %7d %6d %5.1f%%  %-14s %s\n", c->what, c->threads, c->regs,
		occupancy_kib(c->smem, sm, sizeof sm), r->blocks_per_sm, r->active_warps, r->occupancy * 100,
		occupancy_limiter_name(r->limiter), other);
	if (an->has_smem_change)
		snprintf(gain, gain_len, "%.0f B less %s (%.0f)", an->smem_to_drop, amd ? "LDS" : "smem",
			 c->smem - an->smem_to_drop);
	else if (an->has_regs_change)
		snprintf(gain, gain_len, "%d fewer %s (%d)", an->regs_to_drop, amd ? "VGPRs" : "registers",
			 c->regs - an->regs_to_drop);
	else if (r->occupancy < 1)
		snprintf(gain, gain_len, "no single change");
}

/* The chapter's proposed fix for the worked example: 28 KB per block
 * (NVIDIA only). */
static void report_chapter_fix(FILE *out, const struct ridge_gpu *g, cJSON *occ_json)
{
	struct ridge_occupancy_input fix;
	occupancy_input_init(&fix);
	fix.threads_per_block = 256;
	fix.regs_per_thread = 32;
	fix.static_smem = 28672;
	struct ridge_occupancy_result r;
	char err[256];
	int rc = occupancy_compute(g, &fix, &r, err, sizeof err);
	if (occ_json) {
		cJSON *c = cJSON_AddObjectToObject(occ_json, "chapter_fix");
		cJSON_AddStringToObject(c, "name", "7.1.4 worked example, 28 KiB per block");
		occupancy_json_input(c, g, &fix);
		if (rc != 0)
			cJSON_AddStringToObject(c, "error", err);
		else
			occupancy_json_result(c, &r);
		return;
	}
	if (rc == 0)
		fprintf(out,
			"the chapter's fix, 28 KiB per block, gives %d blocks = %.1f%% here (it promised 8 = 100%% on "
			"H100)\n",
			r.blocks_per_sm, r.occupancy * 100);
}

/* The section: the head, one row (or JSON case) per textbook case, what
 * would gain each a block, and on NVIDIA the chapter's fix. */
void report_occupancy(FILE *out, const struct ridge_gpu *g, cJSON *json)
{
	bool amd = g->vendor == RIDGE_VENDOR_AMD;
	cJSON *cases_json = NULL, *occ_json = NULL;
	if (json) {
		occ_json = cJSON_AddObjectToObject(json, "occupancy");
		cJSON_AddStringToObject(occ_json, "rule", amd ? "cdna" : "cuda_runtime");
		cases_json = cJSON_AddArrayToObject(occ_json, "cases");
	} else {
		fprintf(out, "== Occupancy on %s: %s ==\n", g->id,
			amd ? "the CDNA hardware rule (LLVM), and HIP's rule"
			    : "the CUDA runtime's calculator, exactly");
		fprintf(out, "%-21s %4s %5s %7s %7s %6s %6s  %-14s %s\n", "textbook case", "thr", amd ? "vgpr" : "regs",
			amd ? "LDS" : "smem", amd ? "WGs/CU" : "blk/SM", amd ? "waves" : "warps", "occ", "limiter",
			amd ? "HIP's rule" : "naive arithmetic");
	}
	char gains[3][160];
	for (size_t i = 0; i < sizeof report_cases / sizeof report_cases[0]; i++) {
		struct ridge_occupancy_input in;
		occupancy_input_init(&in);
		in.threads_per_block = report_cases[i].threads;
		in.regs_per_thread = report_cases[i].regs;
		in.static_smem = report_cases[i].smem;
		struct ridge_occupancy_analysis an;
		char err[256];
		gains[i][0] = '\0';
		int rc = occupancy_analyze(g, &in, &an, err, sizeof err);
		if (cases_json) {
			/* What `ridge occupancy --json` says of this configuration. */
			cJSON *c = cJSON_CreateObject();
			cJSON_AddItemToArray(cases_json, c);
			cJSON_AddStringToObject(c, "name", report_cases[i].what);
			occupancy_json_input(c, g, &in);
			if (rc != 0) {
				cJSON_AddStringToObject(c, "error", err);
				continue;
			}
			occupancy_json_result(c, &an.result);
			occupancy_json_details(c, g, &an);
			continue;
		}
		if (rc != 0) {
			fprintf(out, "%-21s %s\n", report_cases[i].what, err);
			continue;
		}
		report_case_row(out, g, i, &an, gains[i], sizeof gains[i]);
	}
	if (!json) {
		fprintf(out, "one more block:");
		for (size_t i = 0; i < sizeof report_cases / sizeof report_cases[0]; i++)
			if (gains[i][0])
				fprintf(out, "%s %s: %s", i ? ";" : "", report_cases[i].what, gains[i]);
		fprintf(out, "\n");
	}
	if (amd)
		return;
	report_chapter_fix(out, g, occ_json);
}
