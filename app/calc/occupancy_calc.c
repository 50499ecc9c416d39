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

/* The inputs, once. Ranges are what any GPU allows (a block has at most
 * 1024 threads on every CUDA and HIP device; 256 VGPRs is CDNA's most); the
 * GPU's own limits are checked by occupancy_build_input. On the command
 * line threads and regs may be left out with a compiler report (or --sweep
 * for threads): PARAM_REQUIRED holds for scenario items, which have neither.
 * The defaults are the TUI's starting kernel. */
static const struct param occupancy_params[] = {
	{ "threads", PARAM_INTEGER, 0, NULL, 1, 1024, PARAM_REQUIRED, "T", "threads per block", NULL, "256" },
	{ "regs", PARAM_INTEGER, 0, NULL, 0, 256, PARAM_REQUIRED, "R", "registers per thread (AMD: ArchVGPRs)", NULL,
	  "32" },
	{ "smem", PARAM_NUMBER, RIDGE_UNIT_BYTES, NULL, 0, 1073741824.0, PARAM_WHOLE, "BYTES",
	  "static shared memory per block (AMD: LDS)", "0 to 1 GiB", "0" },
	{ "dyn_smem", PARAM_NUMBER, RIDGE_UNIT_BYTES, NULL, 0, 1073741824.0, PARAM_WHOLE, "BYTES",
	  "dynamic shared memory per block", "0 to 1 GiB", "0" },
	{ "carveout", PARAM_INTEGER, 0, NULL, 0, 100, 0, "PCT",
	  "preferred shared-memory carveout (default: the driver's)", NULL, NULL },
	{ "cache_config", PARAM_TEXT, 0, NULL, 0, 0, 0, "C", "none, shared, l1 or equal", NULL, NULL },
	{ "optin", PARAM_FLAG, 0, NULL, 0, 0, 0, NULL, "opted in above the default per-block limit", NULL, NULL },
	{ "barriers", PARAM_INTEGER, 0, NULL, 0, 16, 0, "N", "named barriers per block", NULL, "1" },
	{ "vgprs", PARAM_INTEGER, 0, NULL, 0, 256, PARAM_CLI_ONLY, "N", "AMD: ArchVGPRs (the same as --regs)", NULL,
	  NULL },
	{ "agprs", PARAM_INTEGER, 0, NULL, 0, 256, 0, "N", "AMD: AGPRs", NULL, NULL },
	{ "sgprs", PARAM_INTEGER, 0, NULL, 0, 128, 0, "N", "AMD: SGPRs (default: not counted)", NULL, NULL },
	{ "lds", PARAM_NUMBER, RIDGE_UNIT_BYTES, NULL, 0, 1073741824.0, PARAM_WHOLE | PARAM_CLI_ONLY, "BYTES",
	  "AMD: LDS per workgroup (the same as --smem)", "0 to 1 GiB", NULL },
	{ "sweep", PARAM_FLAG, 0, NULL, 0, 0, PARAM_CLI_ONLY, NULL,
	  "also every block size from one warp to the maximum", NULL, NULL },
	{ "svg", PARAM_TEXT, 0, NULL, 0, 0, PARAM_CLI_ONLY, "FILE",
	  "charts of occupancy vs block size, registers and smem", NULL, NULL },
	{ "ptxas", PARAM_TEXT, 0, NULL, 0, 0, PARAM_CLI_ONLY, "FILE", "nvcc -Xptxas -v output: every kernel in it",
	  NULL, NULL },
	{ "resource_usage", PARAM_TEXT, 0, NULL, 0, 0, PARAM_CLI_ONLY, "FILE",
	  "cuobjdump --dump-resource-usage output (AMD: the resource-usage remarks)", NULL, NULL },
	CALC_GPU_PARAMS,
	CALC_JSON_PARAM,
};

/* "--regs" on the command line, "regs" in a scenario item: how a message
 * names another input than the one it is about. */
static const char *input_name(const struct param_values *v, const char *about, const char *name, char *buf, size_t len)
{
	if (params_where(v, about)[0] == '-')
		params_flag_name(name, buf, len);
	else
		snprintf(buf, len, "%s", name);
	return buf;
}

static int int_of(const struct param_values *v, const char *name, int fallback)
{
	return params_has(v, name) ? (int)params_num(v, name) : fallback;
}

int occupancy_check_request(const struct param_values *v, struct app_status *st)
{
	bool ptxas = params_has(v, "ptxas"), usage = params_has(v, "resource_usage");
	bool sweep = params_flag(v, "sweep"), svg = params_has(v, "svg");
	if (ptxas && usage) {
		app_error(st, "give --ptxas or --resource-usage, not both");
		return -1;
	}
	if ((ptxas || usage) && (sweep || svg)) {
		app_error(st, "%s works on one kernel; leave it out with %s", sweep ? "--sweep" : "--svg",
			  ptxas ? "--ptxas" : "--resource-usage");
		return -1;
	}
	if (!params_has(v, "threads") && !sweep && !ptxas && !usage) {
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
	const char *report = params_has(v, "ptxas")            ? "--ptxas"
			     : params_has(v, "resource_usage") ? "--resource-usage"
							       : NULL;
	char a[80], b[80];
	occupancy_input_init(in);
	in->threads_per_block = int_of(v, "threads", 0);
	if (in->threads_per_block > g->max_threads_per_block) {
		app_error(st, "%s: '%s' is out of range (1..%d)", params_where(v, "threads"), params_text(v, "threads"),
			  g->max_threads_per_block);
		return -1;
	}
	static const char *const amd_only[] = { "vgprs", "agprs", "sgprs", "lds" };
	static const char *const nv_only[] = { "carveout", "cache_config", "optin" };
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
	if (params_has(v, "regs") && params_has(v, "vgprs")) {
		app_error(st, "--regs and --vgprs are the same on AMD; give one");
		return -1;
	}
	if (params_has(v, "smem") && params_has(v, "lds")) {
		app_error(st, "--smem and --lds are the same on AMD; give one");
		return -1;
	}
	const char *regs = params_has(v, "vgprs") ? "vgprs" : "regs";
	const char *smem = params_has(v, "lds") ? "lds" : "smem";
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
	if (params_has(v, "dyn_smem"))
		in->dynamic_smem = params_num(v, "dyn_smem");
	in->carveout_percent = int_of(v, "carveout", in->carveout_percent);
	if (params_has(v, "cache_config")) {
		static const char *const names[] = { "none", "shared", "l1", "equal" };
		int found = -1;
		for (int i = 0; i < 4; i++)
			if (strcasecmp(params_text(v, "cache_config"), names[i]) == 0)
				found = i;
		if (found < 0) {
			app_error(st, "%s: unknown value '%s' (known: none, shared, l1, equal)",
				  params_where(v, "cache_config"), params_text(v, "cache_config"));
			return -1;
		}
		in->cache_config = (enum ridge_occupancy_cache)found;
	}
	in->optin = params_flag(v, "optin");
	in->barriers = int_of(v, "barriers", in->barriers);
	static const char *const amd_counts[] = { "agprs", "sgprs" };
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

static const char *kib(double bytes, char *buf, size_t len)
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
static void smem_launch_note(const struct ridge_gpu *g, const struct ridge_occupancy_input *in, char *buf, size_t len)
{
	char a[32], b[32], c[32];
	buf[0] = '\0';
	double total = in->static_smem + in->dynamic_smem;
	if (g->vendor == RIDGE_VENDOR_AMD) {
		if (total > g->smem_per_block)
			snprintf(buf, len, "%s of LDS per workgroup is over the %s maximum on %s: the launch fails",
				 kib(total, a, sizeof a), kib(g->smem_per_block, b, sizeof b), g->id);
		return;
	}
	if (in->static_smem > g->smem_per_block)
		snprintf(buf, len,
			 "%s of static shared memory is over the %s a kernel can declare (ptxas refuses); give the "
			 "rest as --dyn-smem with --optin",
			 kib(in->static_smem, a, sizeof a), kib(g->smem_per_block, b, sizeof b));
	else if (total > g->smem_per_block_optin)
		snprintf(buf, len,
			 "%s static + %s dynamic shared memory is over the opt-in maximum of %s per block on %s: "
			 "the launch fails",
			 kib(in->static_smem, a, sizeof a), kib(in->dynamic_smem, b, sizeof b),
			 kib(g->smem_per_block_optin, c, sizeof c), g->id);
	else if (total > g->smem_per_block && !in->optin)
		snprintf(buf, len,
			 "%s of shared memory per block is over the default %s: the launch fails without --optin "
			 "(cudaFuncAttributeMaxDynamicSharedMemorySize)",
			 kib(total, a, sizeof a), kib(g->smem_per_block, b, sizeof b));
}

/* ------------------------------------------------------------------ JSON */

static void json_launch_note(cJSON *o, const struct ridge_gpu *g, const struct ridge_occupancy_input *in)
{
	char note[400];
	smem_launch_note(g, in, note, sizeof note);
	if (note[0])
		cJSON_AddStringToObject(o, "launch_note", note);
}

static void print_launch_note(const struct ridge_gpu *g, const struct ridge_occupancy_input *in)
{
	char note[400];
	smem_launch_note(g, in, note, sizeof note);
	if (note[0])
		printf("  why: %s\n", note);
}

static const char *const limit_keys[RIDGE_OCC_LIMITER_COUNT] = {
	"warps", "registers", "shared_memory", "blocks", "barriers", "virtual_resources",
};

static void json_limit(cJSON *o, const char *key, int value)
{
	if (value == RIDGE_OCC_UNLIMITED)
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, value);
}

void calc_json_occupancy_limits(cJSON *o, const struct ridge_occupancy_result *r)
{
	cJSON *limits = cJSON_AddObjectToObject(o, "limits");
	for (int i = 0; i < RIDGE_OCC_LIMITER_COUNT; i++)
		json_limit(limits, limit_keys[i], r->limit[i]);
}

/* The keys spec/cli.md fixes, for one configuration. */
static void json_result(cJSON *o, const struct ridge_occupancy_result *r)
{
	cJSON_AddNumberToObject(o, "blocks_per_sm", r->blocks_per_sm);
	cJSON_AddNumberToObject(o, "active_warps", r->active_warps);
	cJSON_AddNumberToObject(o, "max_warps", r->max_warps);
	json_number(o, "occupancy", r->occupancy);
	cJSON_AddStringToObject(o, "limiter", occupancy_limiter_name(r->limiter));
	cJSON *all = cJSON_AddArrayToObject(o, "limiters");
	for (int i = 0; i < RIDGE_OCC_LIMITER_COUNT; i++)
		if (r->limiter_mask & (1u << i))
			cJSON_AddItemToArray(all, cJSON_CreateString(limit_keys[i]));
	calc_json_occupancy_limits(o, r);
}

static void json_input(cJSON *o, const struct ridge_gpu *g, const struct ridge_occupancy_input *in)
{
	cJSON_AddNumberToObject(o, "threads_per_block", in->threads_per_block);
	if (g->vendor == RIDGE_VENDOR_AMD) {
		static const struct json_field occupancy_input_fields[] = {
			JSON_FIELD_AS(struct ridge_occupancy_input, "vgprs", regs_per_thread),
			JSON_FIELDS(struct ridge_occupancy_input, agprs, sgprs),
			JSON_FIELD_AS(struct ridge_occupancy_input, "lds", static_smem),
			JSON_FIELD_AS(struct ridge_occupancy_input, "dynamic_lds", dynamic_smem),
		};
		json_put_fields(o, in, occupancy_input_fields, JSON_FIELD_COUNT(occupancy_input_fields));
		return;
	}
	cJSON_AddNumberToObject(o, "regs_per_thread", in->regs_per_thread);
	json_number(o, "static_smem", in->static_smem);
	json_number(o, "dynamic_smem", in->dynamic_smem);
	if (in->carveout_percent == RIDGE_OCC_CARVEOUT_DEFAULT)
		cJSON_AddNullToObject(o, "carveout_percent");
	else
		cJSON_AddNumberToObject(o, "carveout_percent", in->carveout_percent);
	cJSON_AddBoolToObject(o, "optin", in->optin);
	cJSON_AddNumberToObject(o, "barriers", in->barriers);
}

static void json_details(cJSON *o, const struct ridge_gpu *g, const struct ridge_occupancy_analysis *an)
{
	const struct ridge_occupancy_result *r = &an->result;
	cJSON_AddNumberToObject(o, "warps_per_block", r->warps_per_block);
	cJSON *alloc = cJSON_AddObjectToObject(o, "allocated");
	cJSON_AddNumberToObject(alloc, "registers_per_warp", r->regs_per_warp);
	cJSON_AddNumberToObject(alloc, "registers_per_block", r->regs_per_block);
	json_number(alloc, g->vendor == RIDGE_VENDOR_AMD ? "lds_per_block" : "smem_per_block", r->smem_per_block);
	json_number(o, "smem_per_sm", r->smem_per_sm);
	if (g->vendor == RIDGE_VENDOR_NVIDIA) {
		json_number(o, "smem_reserved_per_block", g->nv.smem_reserved_per_block);
		json_number(o, "smem_block_limit", r->smem_block_limit);
		json_number(o, "max_dynamic_smem", r->max_dynamic_smem);
	}
	cJSON *cannot = cJSON_AddArrayToObject(o, "cannot_launch_because");
	if (r->threads_over_block)
		cJSON_AddItemToArray(cannot, cJSON_CreateString("threads_over_block_limit"));
	if (r->regs_over_block)
		cJSON_AddItemToArray(cannot, cJSON_CreateString("registers_over_block_limit"));
	if (r->dynamic_over_max)
		cJSON_AddItemToArray(cannot, cJSON_CreateString("dynamic_smem_needs_optin"));
	if (r->smem_over_block)
		cJSON_AddItemToArray(cannot, cJSON_CreateString("smem_over_block_limit"));
	cJSON *gain = cJSON_AddObjectToObject(o, "to_gain_a_block");
	cJSON_AddNumberToObject(gain, "blocks_per_sm", r->blocks_per_sm + 1);
	if (an->has_regs_change)
		cJSON_AddNumberToObject(gain, g->vendor == RIDGE_VENDOR_AMD ? "vgprs_to_drop" : "registers_to_drop",
					an->regs_to_drop);
	else
		cJSON_AddNullToObject(gain, g->vendor == RIDGE_VENDOR_AMD ? "vgprs_to_drop" : "registers_to_drop");
	if (an->has_smem_change)
		json_number(gain, "smem_to_drop", an->smem_to_drop);
	else
		cJSON_AddNullToObject(gain, "smem_to_drop");
	if (g->vendor == RIDGE_VENDOR_NVIDIA) {
		cJSON *t = cJSON_AddObjectToObject(o, "textbook");
		cJSON_AddNumberToObject(t, "blocks_without_reserve", an->blocks_without_reserve);
		json_limit(t, "regs_limit_without_granularity", an->regs_limit_naive);
		cJSON_AddNumberToObject(t, "blocks_without_register_granularity", an->blocks_naive_regs);
		return;
	}
	const struct ridge_occupancy_amd *d = &r->amd;
	cJSON *a = cJSON_AddObjectToObject(o, "amd");
	static const struct json_field occupancy_amd_fields[] = {
		JSON_FIELDS(struct ridge_occupancy_amd, waves_per_workgroup, vgprs_unified, vgprs_allocated,
			    vgpr_waves_per_simd, sgpr_waves_per_simd),
	};
	json_put_fields(a, d, occupancy_amd_fields, JSON_FIELD_COUNT(occupancy_amd_fields));
	cJSON *h = cJSON_AddObjectToObject(a, "hip");
	cJSON_AddNumberToObject(h, "blocks_per_cu", d->hip_blocks_per_cu);
	cJSON_AddNumberToObject(h, "vgpr_waves_per_simd", d->hip_vgpr_waves_per_simd);
	json_limit(h, "sgpr_waves_per_simd", d->hip_sgpr_waves_per_simd);
	cJSON *hl = cJSON_AddObjectToObject(h, "limits");
	json_limit(hl, "warps", d->hip_limit_waves);
	json_limit(hl, "registers", d->hip_limit_registers);
	json_limit(hl, "shared_memory", d->hip_limit_lds);
	cJSON_AddBoolToObject(a, "rules_agree", d->rules_agree);
}

/* -------------------------------------------------------------- human */

static const char *limit_label(const struct ridge_gpu *g, int i)
{
	static const char *const nv[RIDGE_OCC_LIMITER_COUNT] = {
		"warps", "registers", "shared memory", "blocks", "barriers", "virtual resources",
	};
	static const char *const amd[RIDGE_OCC_LIMITER_COUNT] = {
		"waves", "registers", "LDS", "workgroups", "barrier slots", "virtual resources",
	};
	return g->vendor == RIDGE_VENDOR_AMD ? amd[i] : nv[i];
}

static void fmt_limit(int v, char *buf, size_t len)
{
	if (v == RIDGE_OCC_UNLIMITED)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%d", v);
}

static void print_header(const struct ridge_gpu *g)
{
	if (g->vendor == RIDGE_VENDOR_AMD)
		printf("%s (%s), %s; limits: %s\n", g->name, g->id, g->gfx_target, app_ceiling_source(g));
	else
		printf("%s (%s), sm_%d%d; limits: %s\n", g->name, g->id, g->cc_major, g->cc_minor,
		       app_ceiling_source(g));
}

static void print_nv_config(const struct ridge_occupancy_input *in, const struct ridge_occupancy_result *r)
{
	char a[32], b[32];
	printf("kernel: %d threads (%d warps), %d registers/thread, %s static + %s dynamic shared memory",
	       in->threads_per_block, r->warps_per_block, in->regs_per_thread, kib(in->static_smem, a, sizeof a),
	       kib(in->dynamic_smem, b, sizeof b));
	if (in->optin)
		printf(" (opt-in)");
	printf(", %d barrier%s, carveout ", in->barriers, in->barriers == 1 ? "" : "s");
	if (in->carveout_percent == RIDGE_OCC_CARVEOUT_DEFAULT)
		printf("default");
	else
		printf("%d%%", in->carveout_percent);
	printf("\n");
}

/* The warp limit's sentence when the block itself is too large, in the
 * vendor's words; false when it is not. */
static bool print_block_over(const struct ridge_gpu *g, const struct ridge_occupancy_input *in,
			     const struct ridge_occupancy_result *r)
{
	if (!r->threads_over_block)
		return false;
	bool amd = g->vendor == RIDGE_VENDOR_AMD;
	printf("a %s of %d%s is over the %d the GPU allows", amd ? "workgroup" : "block", in->threads_per_block,
	       amd ? "" : " threads", g->max_threads_per_block);
	return true;
}

static void describe_nv_limit(const struct ridge_gpu *g, const struct ridge_occupancy_input *in,
			      const struct ridge_occupancy_analysis *an, int i)
{
	const struct ridge_occupancy_result *r = &an->result;
	char a[32], b[32];
	int per_sp = an->reg_warps_per_sub_partition;
	switch (i) {
	case RIDGE_OCC_WARPS:
		if (!print_block_over(g, in, r))
			printf("%d warps per SM / %d per block", r->max_warps, r->warps_per_block);
		break;
	case RIDGE_OCC_REGISTERS:
		if (in->regs_per_thread == 0)
			printf("no registers");
		else if (r->regs_over_block)
			printf("%d per warp (%d x %d in units of %d) x %d warps, counted as %d (whole "
			       "sub-partitions), "
			       "is over %d per block",
			       r->regs_per_warp, in->regs_per_thread, g->warp_size, g->nv.reg_alloc_unit,
			       r->warps_per_block, an->warps_counted, g->regs_per_block);
		else
			printf("%d per warp (%d x %d in units of %d); %d per sub-partition / %d = %d warps x "
			       "%d = %d "
			       "/ %d",
			       r->regs_per_warp, in->regs_per_thread, g->warp_size, g->nv.reg_alloc_unit,
			       g->regs_per_sm / g->nv.sub_partitions, r->regs_per_warp, per_sp, g->nv.sub_partitions,
			       per_sp * g->nv.sub_partitions, r->warps_per_block);
		break;
	case RIDGE_OCC_SHARED_MEMORY:
		if (r->dynamic_over_max)
			printf("%s dynamic is over the kernel's maximum of %s%s", kib(in->dynamic_smem, a, sizeof a),
			       kib(r->max_dynamic_smem, b, sizeof b),
			       in->optin ? "" : " (add --optin: cudaFuncAttributeMaxDynamicSharedMemorySize)");
		else if (r->smem_over_block)
			printf("%.0f B per block is over the %.0f B per-block limit", r->smem_per_block,
			       r->smem_block_limit);
		else
			printf("%.0f B per block (%.0f + %.0f reserved + %.0f, in units of %.0f) in %s (%.0f B)",
			       r->smem_per_block, in->static_smem, g->nv.smem_reserved_per_block, in->dynamic_smem,
			       g->nv.smem_alloc_unit, kib(r->smem_per_sm, a, sizeof a), r->smem_per_sm);
		break;
	case RIDGE_OCC_BLOCKS:
		printf("the SM's block slots");
		break;
	case RIDGE_OCC_BARRIERS:
		if (r->limit[i] == RIDGE_OCC_UNLIMITED)
			printf(g->nv.barriers_per_block_slot ? "no named barriers counted"
							     : "no barrier limit before sm_90");
		else
			printf("%d x %d barrier sets / %d per block", g->nv.barriers_per_block_slot,
			       g->max_blocks_per_sm, in->barriers);
		break;
	default:
		printf("%d per SM / %d per block", g->nv.virtual_resources_per_sm, in->virtual_resources);
		break;
	}
}

static void print_amd_config(const struct ridge_occupancy_input *in, const struct ridge_occupancy_result *r)
{
	char a[32], b[32];
	const struct ridge_occupancy_amd *d = &r->amd;
	printf("kernel: %d threads (%d wave%s), %d ArchVGPRs + %d AGPRs (%d unified, %d allocated), ",
	       in->threads_per_block, d->waves_per_workgroup, d->waves_per_workgroup == 1 ? "" : "s",
	       in->regs_per_thread, in->agprs, d->vgprs_unified, d->vgprs_allocated);
	if (in->sgprs)
		printf("%d SGPRs, ", in->sgprs);
	else
		printf("SGPRs not counted, ");
	printf("%s + %s dynamic LDS\n", kib(in->static_smem, a, sizeof a), kib(in->dynamic_smem, b, sizeof b));
}

static void describe_amd_limit(const struct ridge_gpu *g, const struct ridge_occupancy_input *in,
			       const struct ridge_occupancy_result *r, int i)
{
	const struct ridge_occupancy_amd *d = &r->amd;
	char a[32];
	switch (i) {
	case RIDGE_OCC_WARPS:
		if (!print_block_over(g, in, r))
			printf("%d wave slots (%d SIMDs x %d) / %d wave%s per workgroup",
			       g->amd.simds_per_cu * g->amd.waves_per_simd, g->amd.simds_per_cu, g->amd.waves_per_simd,
			       d->waves_per_workgroup, d->waves_per_workgroup == 1 ? "" : "s");
		break;
	case RIDGE_OCC_REGISTERS:
		printf("VGPRs %d/%d = %d waves per SIMD, SGPRs ", g->amd.vgprs_per_lane,
		       d->vgprs_allocated ? d->vgprs_allocated : 1, d->vgpr_waves_per_simd);
		if (in->sgprs)
			printf("%d/%d -> %d", g->amd.sgprs_per_simd, in->sgprs, d->sgpr_waves_per_simd);
		else
			printf("not counted");
		printf("; %d SIMDs x %d / %d", g->amd.simds_per_cu,
		       d->vgpr_waves_per_simd < d->sgpr_waves_per_simd ? d->vgpr_waves_per_simd
								       : d->sgpr_waves_per_simd,
		       d->waves_per_workgroup);
		break;
	case RIDGE_OCC_SHARED_MEMORY:
		if (r->smem_over_block)
			printf("%.0f B is over the %s per workgroup", r->smem_per_block,
			       kib(g->smem_per_block, a, sizeof a));
		else if (r->smem_per_block == 0)
			printf("no LDS");
		else
			printf("%s per CU / %.0f B (in units of %.0f)", kib(g->smem_per_sm, a, sizeof a),
			       r->smem_per_block, g->amd.lds_granule);
		break;
	case RIDGE_OCC_BLOCKS:
		printf("the CU's workgroup slots");
		break;
	case RIDGE_OCC_BARRIERS:
		printf(d->waves_per_workgroup > 1 ? "barrier slots for multi-wave workgroups"
						  : "single-wave workgroups take no barrier slot");
		break;
	}
}

/* One row per limiter: the bound it sets, then where it comes from (the
 * vendor's rule). NVIDIA hides the virtual-resource row when it does not
 * bind; AMD has no such limiter. */
static void print_limits(const struct ridge_gpu *g, const struct ridge_occupancy_input *in,
			 const struct ridge_occupancy_analysis *an)
{
	const struct ridge_occupancy_result *r = &an->result;
	bool amd = g->vendor == RIDGE_VENDOR_AMD;
	char v[16];
	printf("\n  %-14s %9s  %s\n", amd ? "limit (LLVM)" : "limit", amd ? "WGs/CU" : "blocks/SM", "from");
	for (int i = 0; i < RIDGE_OCC_LIMITER_COUNT; i++) {
		if (i == RIDGE_OCC_VIRTUAL && (amd || r->limit[i] == RIDGE_OCC_UNLIMITED))
			continue;
		fmt_limit(r->limit[i], v, sizeof v);
		printf("  %-14s %9s  ", limit_label(g, i), v);
		if (amd)
			describe_amd_limit(g, in, r, i);
		else
			describe_nv_limit(g, in, an, i);
		printf("\n");
	}
}

static void print_outcome(const struct ridge_gpu *g, const struct ridge_occupancy_result *r)
{
	bool amd = g->vendor == RIDGE_VENDOR_AMD;
	printf("  %-14s %9d  %s = %d of %d %s = %.1f%% occupancy", "result", r->blocks_per_sm,
	       amd ? "workgroups" : "blocks", r->active_warps, r->max_warps, amd ? "waves" : "warps",
	       r->occupancy * 100);
	if (r->blocks_per_sm == 0)
		printf(": cannot launch (the %s limit is 0)\n", limit_label(g, r->limiter));
	else
		printf(", limited by %s\n", limit_label(g, r->limiter));
	int ties = 0;
	for (int i = 0; i < RIDGE_OCC_LIMITER_COUNT; i++)
		ties += (r->limiter_mask >> i) & 1;
	if (ties > 1) {
		printf("  (also at that limit:");
		for (int i = 0; i < RIDGE_OCC_LIMITER_COUNT; i++)
			if ((r->limiter_mask & (1u << i)) && i != (int)r->limiter)
				printf(" %s", limit_label(g, i));
		printf(")\n");
	}
}

static void print_explanations(const struct ridge_gpu *g, const struct ridge_occupancy_input *in,
			       const struct ridge_occupancy_analysis *an)
{
	const struct ridge_occupancy_result *r = &an->result;
	char a[32], b[32], c[32];
	if (g->vendor == RIDGE_VENDOR_AMD) {
		const struct ridge_occupancy_amd *d = &r->amd;
		printf("\nHIP's rule (hipOccupancyMaxActiveBlocksPerMultiprocessor): %d workgroup%s",
		       d->hip_blocks_per_cu, d->hip_blocks_per_cu == 1 ? "" : "s");
		if (d->rules_agree) {
			printf(", the same\n");
			return;
		}
		printf(" -- DISAGREES with the hardware rule's %d; the CU enforces the hardware rule:\n",
		       r->blocks_per_sm);
		int hip_sgpr = d->hip_sgpr_waves_per_simd == RIDGE_OCC_UNLIMITED ? g->amd.waves_per_simd
										 : d->hip_sgpr_waves_per_simd;
		if (in->sgprs > 0 && hip_sgpr != d->sgpr_waves_per_simd)
			printf("  SGPRs: HIP rounds %d up to %d (granules of %d): %d waves per SIMD, the hardware %d/%d = "
			       "%d\n",
			       in->sgprs,
			       (in->sgprs + g->amd.sgpr_granule - 1) / g->amd.sgpr_granule * g->amd.sgpr_granule,
			       g->amd.sgpr_granule, hip_sgpr, g->amd.sgprs_per_simd, in->sgprs, d->sgpr_waves_per_simd);
		if (d->hip_limit_lds != r->limit[RIDGE_OCC_SHARED_MEMORY])
			printf("  LDS: HIP divides by %.0f B (no granule): %d workgroups, the hardware allocates %.0f B "
			       "(%.0f B granules): %d\n",
			       in->static_smem + in->dynamic_smem, d->hip_limit_lds, r->smem_per_block,
			       g->amd.lds_granule, r->limit[RIDGE_OCC_SHARED_MEMORY]);
		if (r->limit[RIDGE_OCC_BARRIERS] < d->hip_blocks_per_cu)
			printf("  barriers: HIP has no barrier-slot limit; the CU holds %d multi-wave workgroups\n",
			       r->limit[RIDGE_OCC_BARRIERS]);
		return;
	}
	/* The textbook arithmetic leaves out the per-block reserve. */
	if (r->limiter == RIDGE_OCC_SHARED_MEMORY && an->blocks_without_reserve != r->blocks_per_sm &&
	    g->nv.smem_reserved_per_block > 0) {
		double user = in->static_smem + in->dynamic_smem;
		printf("\nwhy not %.1f%%: %s / %s = %d blocks leaves out the %s the driver reserves per block\n",
		       an->occupancy_without_reserve * 100, kib(r->smem_per_sm, a, sizeof a), kib(user, b, sizeof b),
		       an->smem_limit_without_reserve, kib(g->nv.smem_reserved_per_block, c, sizeof c));
		printf("  (cudaDevAttrReservedSharedMemoryPerBlock, sm_80 and later): %.0f / (%.0f + %.0f) = %.2f -> %d "
		       "blocks.\n",
		       r->smem_per_sm, user, g->nv.smem_reserved_per_block,
		       r->smem_per_sm / (user + g->nv.smem_reserved_per_block), r->limit[RIDGE_OCC_SHARED_MEMORY]);
	}
	/* ... and the register allocation granularity. */
	if (r->limiter == RIDGE_OCC_REGISTERS && an->blocks_naive_regs != r->blocks_per_sm && in->regs_per_thread > 0) {
		printf("\nwhy not %d block%s: %d / (%d x %d) = %d counts registers per thread, but they are allocated\n",
		       an->blocks_naive_regs, an->blocks_naive_regs == 1 ? "" : "s", g->regs_per_sm,
		       in->regs_per_thread, in->threads_per_block, an->regs_limit_naive);
		printf("  per warp in units of %d (%d per warp) and warps are placed in %d sub-partitions of %d "
		       "registers each.\n",
		       g->nv.reg_alloc_unit, r->regs_per_warp, g->nv.sub_partitions,
		       g->regs_per_sm / g->nv.sub_partitions);
	}
}

/* "to gain a block ..." after lead; nothing at full occupancy unless full is given. */
static void print_suggestion(const struct ridge_gpu *g, const struct ridge_occupancy_input *in,
			     const struct ridge_occupancy_analysis *an, const char *lead, const char *full)
{
	const struct ridge_occupancy_result *r = &an->result;
	bool amd = g->vendor == RIDGE_VENDOR_AMD;
	if (r->threads_over_block || r->occupancy >= 1) {
		if (full)
			printf("%s%s\n", lead, full);
		return;
	}
	if (r->blocks_per_sm == 0)
		printf("%sto launch at all: ", lead);
	else
		printf("%sto gain a %s (%d per %s): ", lead, amd ? "workgroup" : "block", r->blocks_per_sm + 1,
		       amd ? "CU" : "SM");
	int n = 0;
	if (an->has_regs_change) {
		int now = amd ? r->amd.vgprs_unified : in->regs_per_thread;
		printf("use %d fewer %s (%d%s)", an->regs_to_drop, amd ? "VGPRs" : "registers per thread",
		       now - an->regs_to_drop, amd ? " unified" : "");
		n++;
	}
	if (an->has_smem_change) {
		printf("%s%.0f fewer bytes of %s per block (%.0f)", n ? ", or " : "", an->smem_to_drop,
		       amd ? "LDS" : "shared memory", in->static_smem + in->dynamic_smem - an->smem_to_drop);
		n++;
	}
	if (r->dynamic_over_max && !in->optin) {
		printf("%sadd --optin", n ? ", or " : "");
		n++;
	}
	if (!n)
		printf("neither registers nor %s alone (the %s limit stays at %d)", amd ? "LDS" : "shared memory",
		       limit_label(g, r->limiter), r->blocks_per_sm);
	printf("\n");
}

static void print_potential(const struct ridge_gpu *g, const struct ridge_occupancy_input *in)
{
	int size, grid, blocks;
	char err[256];
	if (occupancy_max_potential_block_size(g, in, &size, &grid, &blocks, err, sizeof err) != 0)
		return;
	bool amd = g->vendor == RIDGE_VENDOR_AMD;
	if (size == 0) {
		printf("max potential block size: none launches\n");
		return;
	}
	int warps = (size + g->warp_size - 1) / g->warp_size;
	printf("max potential block size (%s): %d threads x %d %s%s = %.1f%%, min grid %d\n",
	       amd ? "the hardware rule, searched as cudaOccupancyMaxPotentialBlockSize does"
		   : "cudaOccupancyMaxPotentialBlockSize's search",
	       size, blocks, amd ? "workgroup" : "block", blocks == 1 ? "" : "s",
	       100.0 * blocks * warps / (g->max_threads_per_sm / g->warp_size), grid);
	int hip_size, hip_grid, hip_blocks;
	if (amd &&
	    occupancy_hip_max_potential_block_size(g, in, &hip_size, &hip_grid, &hip_blocks, err, sizeof err) == 0)
		printf("HIP's answer (hipOccupancyMaxPotentialBlockSize, ROCm CLR: no search, the block-size limit\n"
		       "  capped by the waves the registers allow): %d threads, grid %d%s\n",
		       hip_size, hip_grid, hip_size == size && hip_grid == grid ? ", the same" : "");
}

/* HIP's max-potential answer beside the hardware rule's (AMD). */
static void json_hip_potential(cJSON *doc, const struct ridge_gpu *g, const struct ridge_occupancy_input *in)
{
	int size, grid, blocks;
	char err[256];
	if (g->vendor != RIDGE_VENDOR_AMD ||
	    occupancy_hip_max_potential_block_size(g, in, &size, &grid, &blocks, err, sizeof err) != 0)
		return;
	cJSON *hip = cJSON_AddObjectToObject(doc, "hip_max_potential_block_size");
	cJSON_AddNumberToObject(hip, "block_size", size);
	cJSON_AddNumberToObject(hip, "blocks_per_cu", blocks);
	cJSON_AddNumberToObject(hip, "grid_size", grid);
}

/* ------------------------------------------------------------ sweep / svg */

struct sweep_row {
	int threads;
	struct ridge_occupancy_result r;
};

static int sweep_rows(const struct ridge_occupancy_device *dev, const struct ridge_occupancy_input *in,
		      struct sweep_row *rows, int max)
{
	struct ridge_occupancy_input t = *in;
	int n = 0;
	char err[256];
	for (int threads = dev->warp_size; threads <= dev->max_threads_per_block && n < max;
	     threads += dev->warp_size) {
		t.threads_per_block = threads;
		if (occupancy_device_compute(dev, &t, &rows[n].r, err, sizeof err) != 0)
			continue;
		rows[n].threads = threads;
		n++;
	}
	return n;
}

/* One chart: occupancy (0..100%) against x; points (xs, ys) as steps. */
static void chart(struct svg *s, double top, const char *title, const char *xlabel, const double *xs, const double *ys,
		  int n, double x_max, double mark_x, double mark_y)
{
	const double left = 70, right = s->width - 30, height = 220, bottom = top + height;
	svg_text(s, left, top - 12, 14, "start", "#000000", title);
	svg_rect(s, left, top, right - left, height, "#fbfbfb", "#999999");
	char label[48];
	for (int p = 0; p <= 100; p += 25) {
		double y = svg_linear_scale(p, 0, 100, bottom, top);
		svg_line(s, left, y, right, y, "#dddddd", 1, p != 0 && p != 100);
		snprintf(label, sizeof label, "%d%%", p);
		svg_text(s, left - 8, y + 4, 11, "end", "#444444", label);
	}
	/* ticks at a power of two, at most 8 of them (sizes read best in KiB) */
	double tick = 1;
	while (x_max / tick > 8)
		tick *= 2;
	for (double v = 0; v <= x_max + 1e-9; v += tick) {
		double x = svg_linear_scale(v, 0, x_max, left, right);
		if (x_max >= 16384)
			snprintf(label, sizeof label, "%.0f KiB", v / 1024);
		else
			snprintf(label, sizeof label, "%.0f", v);
		svg_text(s, x, bottom + 16, 11, "middle", "#444444", label);
	}
	svg_text(s, (left + right) / 2, bottom + 34, 12, "middle", "#000000", xlabel);
	/* steps: each value holds until the next x */
	double *px = malloc(sizeof(double) * (size_t)(2 * n + 2));
	double *py = malloc(sizeof(double) * (size_t)(2 * n + 2));
	if (!px || !py) {
		free(px);
		free(py);
		s->failed = true;
		return;
	}
	int m = 0;
	for (int i = 0; i < n; i++) {
		double x = svg_linear_scale(xs[i], 0, x_max, left, right);
		double y = svg_linear_scale(ys[i] * 100, 0, 100, bottom, top);
		if (m > 0) {
			px[m] = x;
			py[m] = py[m - 1];
			m++;
		}
		px[m] = x;
		py[m] = y;
		m++;
	}
	svg_polyline(s, px, py, m, "#1f6fb4", 2);
	free(px);
	free(py);
	double mx = svg_linear_scale(mark_x, 0, x_max, left, right);
	double my = svg_linear_scale(mark_y * 100, 0, 100, bottom, top);
	svg_line(s, mx, top, mx, bottom, "#d62728", 1, true);
	svg_circle(s, mx, my, 5, "#d62728", "#ffffff");
	snprintf(label, sizeof label, "this kernel: %.1f%%", mark_y * 100);
	svg_text(s, mx + (mx > (left + right) / 2 ? -6 : 6), top + 14, 11, mx > (left + right) / 2 ? "end" : "start",
		 "#d62728", label);
}

static int write_svg(const char *path, const struct ridge_occupancy_device *dev, const struct ridge_gpu *g,
		     const struct ridge_occupancy_input *in, const struct ridge_occupancy_result *now,
		     struct app_status *st)
{
	bool amd = g->vendor == RIDGE_VENDOR_AMD;
	enum { MAX_POINTS = 4096 };
	double *xs = malloc(sizeof(double) * MAX_POINTS), *ys = malloc(sizeof(double) * MAX_POINTS);
	if (!xs || !ys) {
		free(xs);
		free(ys);
		app_error_env(st, "out of memory while drawing '%s'", path);
		return -1;
	}
	struct svg s;
	char title[256], err[256];
	snprintf(title, sizeof title, "Occupancy on %s: %d threads, %d %s, %.0f B %s", g->id, in->threads_per_block,
		 amd ? now->amd.vgprs_unified : in->regs_per_thread, amd ? "VGPRs" : "registers",
		 in->static_smem + in->dynamic_smem, amd ? "LDS" : "shared memory");
	svg_begin(&s, 760, 3 * 300 + 60, title);
	svg_text(&s, 380, 28, 16, "middle", "#000000", title);
	struct ridge_occupancy_input t;
	struct ridge_occupancy_result r;
	int n = 0;

	/* 1: block size */
	t = *in;
	for (int threads = 1; threads <= g->max_threads_per_block && n < MAX_POINTS; threads++) {
		t.threads_per_block = threads;
		if (occupancy_device_compute(dev, &t, &r, err, sizeof err) == 0) {
			xs[n] = threads;
			ys[n++] = r.occupancy;
		}
	}
	chart(&s, 70, amd ? "Occupancy vs threads per workgroup" : "Occupancy vs threads per block",
	      amd ? "threads per workgroup" : "threads per block", xs, ys, n, g->max_threads_per_block,
	      in->threads_per_block, now->occupancy);

	/* 2: registers per thread (AMD: unified VGPRs) */
	t = *in;
	n = 0;
	int max_regs = amd ? g->amd.vgprs_per_lane : g->nv.max_regs_per_thread;
	for (int regs = 0; regs <= max_regs && n < MAX_POINTS; regs++) {
		t.regs_per_thread = regs;
		if (amd) {
			t.agprs = regs > max_regs / 2 ? regs - max_regs / 2 : 0;
			t.regs_per_thread = regs - t.agprs;
		}
		if (occupancy_device_compute(dev, &t, &r, err, sizeof err) == 0) {
			xs[n] = regs;
			ys[n++] = r.occupancy;
		}
	}
	chart(&s, 370, amd ? "Occupancy vs VGPRs (ArchVGPR + AGPR)" : "Occupancy vs registers per thread",
	      amd ? "VGPRs" : "registers per thread", xs, ys, n, max_regs,
	      amd ? now->amd.vgprs_unified : in->regs_per_thread, now->occupancy);

	/* 3: shared memory per block (static kept, dynamic varied; past the
	 * per-block limit nothing launches) */
	t = *in;
	n = 0;
	double limit = amd ? g->smem_per_block : (in->optin ? g->smem_per_block_optin : g->smem_per_block);
	double step = amd ? g->amd.lds_granule : g->nv.smem_alloc_unit;
	for (double bytes = 0; bytes <= limit && n < MAX_POINTS; bytes += step) {
		if (bytes < in->static_smem) {
			t.static_smem = bytes;
			t.dynamic_smem = 0;
		} else {
			t.static_smem = in->static_smem;
			t.dynamic_smem = bytes - in->static_smem;
		}
		if (occupancy_device_compute(dev, &t, &r, err, sizeof err) == 0) {
			xs[n] = bytes;
			ys[n++] = r.occupancy;
		}
	}
	chart(&s, 670, amd ? "Occupancy vs LDS per workgroup" : "Occupancy vs shared memory per block",
	      amd ? "LDS per workgroup" : "static + dynamic shared memory per block", xs, ys, n, limit,
	      in->static_smem + in->dynamic_smem, now->occupancy);
	svg_end(&s);
	free(xs);
	free(ys);
	int rc = svg_save(&s, path, st);
	svg_free(&s);
	return rc;
}

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
 * sure (cli/demangle.c), else as the compiler wrote it. */
static const char *shown_name(const struct ridge_kernel_usage *k, char *buf, size_t len)
{
	return app_demangle(k->name, buf, len) ? buf : k->name;
}

/* Every kernel of a compiler report (--ptxas, --resource-usage). */
static int run_kernels(const struct param_values *v, const struct ridge_gpu *g,
		       const struct ridge_occupancy_input *base, cJSON **json, struct app_status *st)
{
	const char *ptxas = params_text(v, "ptxas");
	const char *path = ptxas ? ptxas : params_text(v, "resource_usage");
	bool threads_given = params_has(v, "threads");
	bool amd = g->vendor == RIDGE_VENDOR_AMD;
	if (ptxas && amd) {
		app_error(st,
			  "--ptxas reads NVIDIA ptxas output; for %s give --resource-usage with the "
			  "-Rpass-analysis=kernel-resource-usage remarks",
			  g->id);
		return EXIT_USAGE;
	}
	enum ridge_usage_format fmt = ptxas ? RIDGE_USAGE_PTXAS : amd ? RIDGE_USAGE_AMD_REMARKS : RIDGE_USAGE_CUOBJDUMP;
	size_t len;
	char *text = app_read_file(path, (size_t)64 << 20, "compiler report", &len, st);
	if (!text)
		return EXIT_USAGE;
	struct ridge_kernel_usage *k = NULL;
	int count = 0;
	char err[512];
	double reserve = amd ? 0 : g->nv.smem_reserved_per_block;
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
	rc = EXIT_OK;
	for (int i = 0; i < count && rc == EXIT_OK; i++) {
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
				rc = EXIT_USAGE;
				break;
			}
			in->threads_per_block = size > 0 ? size : g->max_threads_per_block;
		}
		if (occupancy_analyze(g, in, &an[i], err, sizeof err) != 0) {
			app_error(st, "%s: %s", what, err);
			rc = EXIT_USAGE;
		}
	}
	if (rc != EXIT_OK) {
		free(an);
		free(ins);
		free(k);
		return rc;
	}
	if (params_flag(v, "json")) {
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
			json_input(kj, g, &ins[i]);
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
			json_result(kj, &an[i].result);
			json_details(kj, g, &an[i]);
			cJSON_AddItemToArray(arr, kj);
		}
		*json = doc;
	} else {
		print_header(g);
		printf("%d kernel%s in %s%s\n\n", count, count == 1 ? "" : "s", path,
		       threads_given ? "" : " (each at the block size cudaOccupancyMaxPotentialBlockSize would pick)");
		if (arch_note[0])
			printf("%s\n\n", arch_note);
		printf("  %-7s %5s %4s %4s %10s %11s %7s %7s %6s  %-14s %s\n", "arch", "thr", amd ? "vgpr" : "regs",
		       amd ? "sgpr" : "bar", amd ? "LDS" : "smem", amd ? "scratch" : "spill st/ld",
		       amd ? "WGs/CU" : "blk/SM", amd ? "waves" : "warps", "occ", "limiter", "kernel");
		for (int i = 0; i < count; i++) {
			const struct ridge_occupancy_result *r = &an[i].result;
			char bar[16], sm[32], sp[32];
			if (amd)
				snprintf(bar, sizeof bar, "%d", ins[i].sgprs);
			else if (k[i].barriers >= 0)
				snprintf(bar, sizeof bar, "%d", k[i].barriers);
			else
				snprintf(bar, sizeof bar, "-");
			kib(k[i].smem, sm, sizeof sm);
			if (amd && k[i].scratch >= 0)
				snprintf(sp, sizeof sp, "%.0f B", k[i].scratch);
			else if (!amd && k[i].spill_stores >= 0)
				snprintf(sp, sizeof sp, "%.0f/%.0f B", k[i].spill_stores, k[i].spill_loads);
			else
				snprintf(sp, sizeof sp, "-");
			char name[1024];
			printf("  %-7s %5d %4d %4s %10s %11s %7d %7d %5.1f%%  %-14s %s\n",
			       k[i].arch[0] ? k[i].arch : "-", ins[i].threads_per_block,
			       amd ? r->amd.vgprs_unified : k[i].regs, bar, sm, sp, r->blocks_per_sm, r->active_warps,
			       r->occupancy * 100, occupancy_limiter_name(r->limiter),
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
				printf("\nnote: %s was compiled for %s, not %s: its register count may differ there\n",
				       name, k[i].arch, want);
			if (amd && k[i].compiler_occupancy >= 0) {
				int mine = a->result.amd.vgpr_waves_per_simd < a->result.amd.sgpr_waves_per_simd
						   ? a->result.amd.vgpr_waves_per_simd
						   : a->result.amd.sgpr_waves_per_simd;
				if (k[i].compiler_occupancy != mine)
					printf("\nnote: %s: the compiler reports %d waves per SIMD, ridge's register rule "
					       "%d (the compiler also counts LDS and the workgroup size)\n",
					       name, k[i].compiler_occupancy, mine);
			}
			if (amd && !a->result.amd.rules_agree)
				printf("\nnote: %s: HIP's rule gives %d workgroups, the hardware rule %d\n", name,
				       a->result.amd.hip_blocks_per_cu, a->result.blocks_per_sm);
		}
		printf("\n");
		for (int i = 0; i < count; i++) {
			char lead[1100], name[1024];
			snprintf(lead, sizeof lead, "%s: ", shown_name(&k[i], name, sizeof name));
			print_suggestion(g, &ins[i], &an[i], lead, "full occupancy");
		}
	}
	free(an);
	free(ins);
	free(k);
	return rc;
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
	json_input(doc, g, in);
	if (threads_chosen >= 0)
		cJSON_AddBoolToObject(doc, "threads_chosen", threads_chosen);
	json_result(doc, &an->result);
	json_launch_note(doc, g, in);
	json_details(doc, g, an);
	cJSON *mp = cJSON_AddObjectToObject(doc, "max_potential_block_size");
	cJSON_AddNumberToObject(mp, "block_size", size);
	cJSON_AddNumberToObject(mp, "blocks_per_sm", blocks);
	cJSON_AddNumberToObject(mp, "min_grid_size", grid);
	json_hip_potential(doc, g, in);
}

/* One configuration, with --sweep and --svg. */
static int run_one(const struct param_values *v, const struct ridge_gpu *g, struct ridge_occupancy_input *in,
		   cJSON **json, struct app_status *st)
{
	char err[256];
	bool sweep = params_flag(v, "sweep");
	const char *svg = params_text(v, "svg");
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
	int nrows = sweep ? sweep_rows(&dev, in, rows, 1024) : 0;
	if (svg && write_svg(svg, &dev, g, in, &an.result, st) != 0)
		return EXIT_ENV;

	if (params_flag(v, "json")) {
		cJSON *doc = cJSON_CreateObject();
		json_config(doc, g, in, &an, chosen);
		if (sweep) {
			cJSON *arr = cJSON_AddArrayToObject(doc, "sweep");
			for (int i = 0; i < nrows; i++) {
				cJSON *row = cJSON_CreateObject();
				cJSON_AddNumberToObject(row, "threads_per_block", rows[i].threads);
				json_result(row, &rows[i].r);
				cJSON_AddItemToArray(arr, row);
			}
		}
		if (svg)
			cJSON_AddStringToObject(doc, "svg", svg);
		*json = doc;
		return EXIT_OK;
	}

	print_header(g);
	if (g->vendor == RIDGE_VENDOR_AMD)
		print_amd_config(in, &an.result);
	else
		print_nv_config(in, &an.result);
	print_limits(g, in, &an);
	printf("  %s\n", "--------------------------------------");
	print_outcome(g, &an.result);
	print_launch_note(g, in);
	if (chosen)
		printf("  (block size not given: the one cudaOccupancyMaxPotentialBlockSize would pick)\n");
	print_explanations(g, in, &an);
	print_suggestion(g, in, &an, "\n", NULL);
	print_potential(g, in);
	if (sweep) {
		bool amd = g->vendor == RIDGE_VENDOR_AMD;
		printf("\n  %7s %9s %6s %9s  %s\n", "threads", amd ? "WGs/CU" : "blocks/SM", amd ? "waves" : "warps",
		       "occupancy", "limiter");
		for (int i = 0; i < nrows; i++)
			printf("  %7d %9d %6d %8.1f%%  %s%s\n", rows[i].threads, rows[i].r.blocks_per_sm,
			       rows[i].r.active_warps, rows[i].r.occupancy * 100,
			       occupancy_limiter_name(rows[i].r.limiter),
			       rows[i].threads == in->threads_per_block ? "   <- this kernel" : "");
	}
	if (svg)
		printf("\nwrote %s\n", svg);
	return EXIT_OK;
}

int occupancy_command(const struct param_values *v, const struct ridge_gpu *g, cJSON **json, struct app_status *st)
{
	*json = NULL;
	struct ridge_occupancy_input in;
	if (occupancy_build_input(v, g, &in, st) != 0)
		return EXIT_USAGE;
	return params_has(v, "ptxas") || params_has(v, "resource_usage") ? run_kernels(v, g, &in, json, st)
									 : run_one(v, g, &in, json, st);
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

static void occupancy_print(const cJSON *r)
{
	const cJSON *limits = cJSON_GetObjectItemCaseSensitive(r, "limits");
	bool amd = calc_has(r, "amd");
	printf("Occupancy on %s: %.0f threads, %.0f %s: %.0f %s = %.0f of %.0f %s = %.1f%%, limited by %s\n",
	       calc_str(r, "gpu"), calc_num(r, "threads_per_block"),
	       amd ? calc_num(r, "vgprs") : calc_num(r, "regs_per_thread"), amd ? "VGPRs" : "registers",
	       calc_num(r, "blocks_per_sm"), amd ? "workgroups/CU" : "blocks/SM", calc_num(r, "active_warps"),
	       calc_num(r, "max_warps"), amd ? "waves" : "warps", calc_num(r, "occupancy") * 100,
	       calc_str(r, "limiter"));
	if (amd) {
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(r, "amd");
		const cJSON *h = cJSON_GetObjectItemCaseSensitive(a, "hip");
		printf("  HIP's rule: %.0f workgroups%s\n", calc_num(h, "blocks_per_cu"),
		       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "rules_agree"))
			       ? " (agrees)"
			       : " (DISAGREES with the hardware rule)");
	}
	printf("  limits:");
	for (int i = 0; i < RIDGE_OCC_LIMITER_COUNT; i++) {
		const cJSON *l = cJSON_GetObjectItemCaseSensitive(limits, limit_keys[i]);
		if (cJSON_IsNumber(l))
			printf(" %s %.0f", limit_keys[i], l->valuedouble);
	}
	printf("\n");
	const cJSON *gain = cJSON_GetObjectItemCaseSensitive(r, "to_gain_a_block");
	const cJSON *rd = cJSON_GetObjectItemCaseSensitive(gain, calc_has(gain, "vgprs_to_drop") ? "vgprs_to_drop"
												 : "registers_to_drop");
	const cJSON *sd = cJSON_GetObjectItemCaseSensitive(gain, "smem_to_drop");
	if (calc_num(r, "occupancy") < 1 && (cJSON_IsNumber(rd) || cJSON_IsNumber(sd))) {
		printf("  to gain a block:");
		if (cJSON_IsNumber(rd))
			printf(" %.0f fewer %s", rd->valuedouble, amd ? "VGPRs" : "registers");
		if (cJSON_IsNumber(sd))
			printf("%s %.0f fewer bytes of %s", cJSON_IsNumber(rd) ? " or" : "", sd->valuedouble,
			       amd ? "LDS" : "shared memory");
		printf("\n");
	}
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(r, "textbook");
	if (t && calc_num(t, "blocks_without_reserve") != calc_num(r, "blocks_per_sm") &&
	    !strcmp(calc_str(r, "limiter"), "shared_memory"))
		printf("  without the driver's per-block reserve (the textbook arithmetic): %.0f blocks\n",
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

void report_occupancy(const struct ridge_gpu *g, cJSON *json)
{
	bool amd = g->vendor == RIDGE_VENDOR_AMD;
	static const struct {
		const char *what;
		int threads, regs;
		double smem;
	} cases[] = {
		{ "7.1.4 worked example", 256, 32, 32768 },
		{ "review question 1", 256, 48, 49152 },
		{ "sm_80 register case", 224, 92, 0 },
	};
	cJSON *cases_json = NULL, *occ_json = NULL;
	if (json) {
		occ_json = cJSON_AddObjectToObject(json, "occupancy");
		cJSON_AddStringToObject(occ_json, "rule", amd ? "cdna" : "cuda_runtime");
		cases_json = cJSON_AddArrayToObject(occ_json, "cases");
	} else {
		printf("== Occupancy on %s: %s ==\n", g->id,
		       amd ? "the CDNA hardware rule (LLVM), and HIP's rule"
			   : "the CUDA runtime's calculator, exactly");
		printf("%-21s %4s %5s %7s %7s %6s %6s  %-14s %s\n", "textbook case", "thr", amd ? "vgpr" : "regs",
		       amd ? "LDS" : "smem", amd ? "WGs/CU" : "blk/SM", amd ? "waves" : "warps", "occ", "limiter",
		       amd ? "HIP's rule" : "naive arithmetic");
	}
	char gains[3][160];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ridge_occupancy_input in;
		occupancy_input_init(&in);
		in.threads_per_block = cases[i].threads;
		in.regs_per_thread = cases[i].regs;
		in.static_smem = cases[i].smem;
		struct ridge_occupancy_analysis an;
		char err[256], sm[32], other[96];
		gains[i][0] = '\0';
		int rc = occupancy_analyze(g, &in, &an, err, sizeof err);
		if (cases_json) {
			/* What `ridge occupancy --json` says of this configuration. */
			cJSON *c = cJSON_CreateObject();
			cJSON_AddItemToArray(cases_json, c);
			cJSON_AddStringToObject(c, "name", cases[i].what);
			json_input(c, g, &in);
			if (rc != 0) {
				cJSON_AddStringToObject(c, "error", err);
				continue;
			}
			json_result(c, &an.result);
			json_details(c, g, &an);
			continue;
		}
		if (rc != 0) {
			printf("%-21s %s\n", cases[i].what, err);
			continue;
		}
		const struct ridge_occupancy_result *r = &an.result;
		if (amd) {
			snprintf(other, sizeof other, "%d%s", r->amd.hip_blocks_per_cu,
				 r->amd.rules_agree ? "" : " (differs)");
		} else if (i == 2) {
			snprintf(other, sizeof other, "%d = %.1f%%%s", an.blocks_naive_regs,
				 an.occupancy_naive_regs * 100,
				 an.blocks_naive_regs != r->blocks_per_sm ? " (no register granularity)" : "");
		} else {
			snprintf(other, sizeof other, "%d = %.1f%%%s", an.blocks_without_reserve,
				 an.occupancy_without_reserve * 100,
				 an.blocks_without_reserve != r->blocks_per_sm ? " (no per-block reserve)" : "");
		}
		printf("%-21s %4d %5d %7s %7d %6d %5.1f%%  %-14s %s\n", cases[i].what, cases[i].threads, cases[i].regs,
		       kib(cases[i].smem, sm, sizeof sm), r->blocks_per_sm, r->active_warps, r->occupancy * 100,
		       occupancy_limiter_name(r->limiter), other);
		if (an.has_smem_change)
			snprintf(gains[i], sizeof gains[i], "%.0f B less %s (%.0f)", an.smem_to_drop,
				 amd ? "LDS" : "smem", cases[i].smem - an.smem_to_drop);
		else if (an.has_regs_change)
			snprintf(gains[i], sizeof gains[i], "%d fewer %s (%d)", an.regs_to_drop,
				 amd ? "VGPRs" : "registers", cases[i].regs - an.regs_to_drop);
		else if (r->occupancy < 1)
			snprintf(gains[i], sizeof gains[i], "no single change");
	}
	if (!json) {
		printf("one more block:");
		for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
			if (gains[i][0])
				printf("%s %s: %s", i ? ";" : "", cases[i].what, gains[i]);
		printf("\n");
	}
	if (amd)
		return;
	/* The chapter's proposed fix for the worked example: 28 KB per block. */
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
		json_input(c, g, &fix);
		if (rc != 0)
			cJSON_AddStringToObject(c, "error", err);
		else
			json_result(c, &r);
		return;
	}
	if (rc == 0)
		printf("the chapter's fix, 28 KiB per block, gives %d blocks = %.1f%% here (it promised 8 = 100%% on "
		       "H100)\n",
		       r.blocks_per_sm, r.occupancy * 100);
}
