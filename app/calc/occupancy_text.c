/* ridge occupancy's JSON and human text of one configuration: the limits, what binds, the explanations, the suggestion and HIP's potential. */
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

/* ------------------------------------------------------------------ JSON */

void occupancy_json_launch_note(cJSON *o, const struct ridge_gpu *g, const struct ridge_occupancy_input *in)
{
	char note[400];
	occupancy_smem_launch_note(g, in, note, sizeof note);
	if (note[0])
		cJSON_AddStringToObject(o, "launch_note", note);
}

void occupancy_print_launch_note(FILE *out, const struct ridge_gpu *g, const struct ridge_occupancy_input *in)
{
	char note[400];
	occupancy_smem_launch_note(g, in, note, sizeof note);
	if (note[0])
		fprintf(out, "  why: %s\n", note);
}

const char *const occupancy_limit_keys[RIDGE_OCC_LIMITER_COUNT] = {
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
		json_limit(limits, occupancy_limit_keys[i], r->limit[i]);
}

/* The keys spec/cli.md fixes, for one configuration. */
void occupancy_json_result(cJSON *o, const struct ridge_occupancy_result *r)
{
	cJSON_AddNumberToObject(o, "blocks_per_sm", r->blocks_per_sm);
	cJSON_AddNumberToObject(o, "active_warps", r->active_warps);
	cJSON_AddNumberToObject(o, "max_warps", r->max_warps);
	json_number(o, "occupancy", r->occupancy);
	cJSON_AddStringToObject(o, "limiter", occupancy_limiter_name(r->limiter));
	cJSON *all = cJSON_AddArrayToObject(o, "limiters");
	for (int i = 0; i < RIDGE_OCC_LIMITER_COUNT; i++)
		if (r->limiter_mask & (1u << i))
			cJSON_AddItemToArray(all, cJSON_CreateString(occupancy_limit_keys[i]));
	calc_json_occupancy_limits(o, r);
}

void occupancy_json_input(cJSON *o, const struct ridge_gpu *g, const struct ridge_occupancy_input *in)
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

void occupancy_json_details(cJSON *o, const struct ridge_gpu *g, const struct ridge_occupancy_analysis *an)
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

void occupancy_print_header(FILE *out, const struct ridge_gpu *g)
{
	if (g->vendor == RIDGE_VENDOR_AMD)
		fprintf(out, "%s (%s), %s; limits: %s\n", g->name, g->id, g->gfx_target, app_ceiling_source(g));
	else
		fprintf(out, "%s (%s), sm_%d%d; limits: %s\n", g->name, g->id, g->cc_major, g->cc_minor,
			app_ceiling_source(g));
}

void occupancy_print_nv_config(FILE *out, const struct ridge_occupancy_input *in,
			       const struct ridge_occupancy_result *r)
{
	char a[32], b[32];
	fprintf(out, "kernel: %d threads (%d warps), %d registers/thread, %s static + %s dynamic shared memory",
		in->threads_per_block, r->warps_per_block, in->regs_per_thread,
		occupancy_kib(in->static_smem, a, sizeof a), occupancy_kib(in->dynamic_smem, b, sizeof b));
	if (in->optin)
		fprintf(out, " (opt-in)");
	fprintf(out, ", %d barrier%s, carveout ", in->barriers, in->barriers == 1 ? "" : "s");
	if (in->carveout_percent == RIDGE_OCC_CARVEOUT_DEFAULT)
		fprintf(out, "default");
	else
		fprintf(out, "%d%%", in->carveout_percent);
	fprintf(out, "\n");
}

/* The warp limit's sentence when the block itself is too large, in the
 * vendor's words; false when it is not. */
static bool print_block_over(FILE *out, const struct ridge_gpu *g, const struct ridge_occupancy_input *in,
			     const struct ridge_occupancy_result *r)
{
	if (!r->threads_over_block)
		return false;
	bool amd = g->vendor == RIDGE_VENDOR_AMD;
	fprintf(out, "a %s of %d%s is over the %d the GPU allows", amd ? "workgroup" : "block", in->threads_per_block,
		amd ? "" : " threads", g->max_threads_per_block);
	return true;
}

static void describe_nv_limit(FILE *out, const struct ridge_gpu *g, const struct ridge_occupancy_input *in,
			      const struct ridge_occupancy_analysis *an, int i)
{
	const struct ridge_occupancy_result *r = &an->result;
	char a[32], b[32];
	int per_sp = an->reg_warps_per_sub_partition;
	switch (i) {
	case RIDGE_OCC_WARPS:
		if (!print_block_over(out, g, in, r))
			fprintf(out, "%d warps per SM / %d per block", r->max_warps, r->warps_per_block);
		break;
	case RIDGE_OCC_REGISTERS:
		if (in->regs_per_thread == 0)
			fprintf(out, "no registers");
		else if (r->regs_over_block)
			fprintf(out,
				"%d per warp (%d x %d in units of %d) x %d warps, counted as %d (whole "
				"sub-partitions), "
				"is over %d per block",
				r->regs_per_warp, in->regs_per_thread, g->warp_size, g->nv.reg_alloc_unit,
				r->warps_per_block, an->warps_counted, g->regs_per_block);
		else
			fprintf(out,
				"%d per warp (%d x %d in units of %d); %d per sub-partition / %d = %d warps x "
				"%d = %d "
				"/ %d",
				r->regs_per_warp, in->regs_per_thread, g->warp_size, g->nv.reg_alloc_unit,
				g->regs_per_sm / g->nv.sub_partitions, r->regs_per_warp, per_sp, g->nv.sub_partitions,
				per_sp * g->nv.sub_partitions, r->warps_per_block);
		break;
	case RIDGE_OCC_SHARED_MEMORY:
		if (r->dynamic_over_max)
			fprintf(out, "%s dynamic is over the kernel's maximum of %s%s",
				occupancy_kib(in->dynamic_smem, a, sizeof a),
				occupancy_kib(r->max_dynamic_smem, b, sizeof b),
				in->optin ? "" : " (add --optin: cudaFuncAttributeMaxDynamicSharedMemorySize)");
		else if (r->smem_over_block)
			fprintf(out, "%.0f B per block is over the %.0f B per-block limit", r->smem_per_block,
				r->smem_block_limit);
		else
			fprintf(out, "%.0f B per block (%.0f + %.0f reserved + %.0f, in units of %.0f) in %s (%.0f B)",
				r->smem_per_block, in->static_smem, g->nv.smem_reserved_per_block, in->dynamic_smem,
				g->nv.smem_alloc_unit, occupancy_kib(r->smem_per_sm, a, sizeof a), r->smem_per_sm);
		break;
	case RIDGE_OCC_BLOCKS:
		fprintf(out, "the SM's block slots");
		break;
	case RIDGE_OCC_BARRIERS:
		if (r->limit[i] == RIDGE_OCC_UNLIMITED)
			fprintf(out, g->nv.barriers_per_block_slot ? "no named barriers counted"
								   : "no barrier limit before sm_90");
		else
			fprintf(out, "%d x %d barrier sets / %d per block", g->nv.barriers_per_block_slot,
				g->max_blocks_per_sm, in->barriers);
		break;
	default:
		fprintf(out, "%d per SM / %d per block", g->nv.virtual_resources_per_sm, in->virtual_resources);
		break;
	}
}

void occupancy_print_amd_config(FILE *out, const struct ridge_occupancy_input *in,
				const struct ridge_occupancy_result *r)
{
	char a[32], b[32];
	const struct ridge_occupancy_amd *d = &r->amd;
	fprintf(out, "kernel: %d threads (%d wave%s), %d ArchVGPRs + %d AGPRs (%d unified, %d allocated), ",
		in->threads_per_block, d->waves_per_workgroup, d->waves_per_workgroup == 1 ? "" : "s",
		in->regs_per_thread, in->agprs, d->vgprs_unified, d->vgprs_allocated);
	if (in->sgprs)
		fprintf(out, "%d SGPRs, ", in->sgprs);
	else
		fprintf(out, "SGPRs not counted, ");
	fprintf(out, "%s + %s dynamic LDS\n", occupancy_kib(in->static_smem, a, sizeof a),
		occupancy_kib(in->dynamic_smem, b, sizeof b));
}

static void describe_amd_limit(FILE *out, const struct ridge_gpu *g, const struct ridge_occupancy_input *in,
			       const struct ridge_occupancy_result *r, int i)
{
	const struct ridge_occupancy_amd *d = &r->amd;
	char a[32];
	switch (i) {
	case RIDGE_OCC_WARPS:
		if (!print_block_over(out, g, in, r))
			fprintf(out, "%d wave slots (%d SIMDs x %d) / %d wave%s per workgroup",
				g->amd.simds_per_cu * g->amd.waves_per_simd, g->amd.simds_per_cu, g->amd.waves_per_simd,
				d->waves_per_workgroup, d->waves_per_workgroup == 1 ? "" : "s");
		break;
	case RIDGE_OCC_REGISTERS:
		fprintf(out, "VGPRs %d/%d = %d waves per SIMD, SGPRs ", g->amd.vgprs_per_lane,
			d->vgprs_allocated ? d->vgprs_allocated : 1, d->vgpr_waves_per_simd);
		if (in->sgprs)
			fprintf(out, "%d/%d -> %d", g->amd.sgprs_per_simd, in->sgprs, d->sgpr_waves_per_simd);
		else
			fprintf(out, "not counted");
		fprintf(out, "; %d SIMDs x %d / %d", g->amd.simds_per_cu,
			d->vgpr_waves_per_simd < d->sgpr_waves_per_simd ? d->vgpr_waves_per_simd
									: d->sgpr_waves_per_simd,
			d->waves_per_workgroup);
		break;
	case RIDGE_OCC_SHARED_MEMORY:
		if (r->smem_over_block)
			fprintf(out, "%.0f B is over the %s per workgroup", r->smem_per_block,
				occupancy_kib(g->smem_per_block, a, sizeof a));
		else if (r->smem_per_block == 0)
			fprintf(out, "no LDS");
		else
			fprintf(out, "%s per CU / %.0f B (in units of %.0f)",
				occupancy_kib(g->smem_per_sm, a, sizeof a), r->smem_per_block, g->amd.lds_granule);
		break;
	case RIDGE_OCC_BLOCKS:
		fprintf(out, "the CU's workgroup slots");
		break;
	case RIDGE_OCC_BARRIERS:
		fprintf(out, d->waves_per_workgroup > 1 ? "barrier slots for multi-wave workgroups"
							: "single-wave workgroups take no barrier slot");
		break;
	}
}

/* One row per limiter: the bound it sets, then where it comes from (the
 * vendor's rule). NVIDIA hides the virtual-resource row when it does not
 * bind; AMD has no such limiter. */
void occupancy_print_limits(FILE *out, const struct ridge_gpu *g, const struct ridge_occupancy_input *in,
			    const struct ridge_occupancy_analysis *an)
{
	const struct ridge_occupancy_result *r = &an->result;
	bool amd = g->vendor == RIDGE_VENDOR_AMD;
	char v[16];
	fprintf(out, "\n  %-14s %9s  %s\n", amd ? "limit (LLVM)" : "limit", amd ? "WGs/CU" : "blocks/SM", "from");
	for (int i = 0; i < RIDGE_OCC_LIMITER_COUNT; i++) {
		if (i == RIDGE_OCC_VIRTUAL && (amd || r->limit[i] == RIDGE_OCC_UNLIMITED))
			continue;
		fmt_limit(r->limit[i], v, sizeof v);
		fprintf(out, "  %-14s %9s  ", limit_label(g, i), v);
		if (amd)
			describe_amd_limit(out, g, in, r, i);
		else
			describe_nv_limit(out, g, in, an, i);
		fprintf(out, "\n");
	}
}

void occupancy_print_outcome(FILE *out, const struct ridge_gpu *g, const struct ridge_occupancy_result *r)
{
	bool amd = g->vendor == RIDGE_VENDOR_AMD;
	fprintf(out, "  %-14s %9d  %s = %d of %d %s = %.1f%% occupancy", "result", r->blocks_per_sm,
		amd ? "workgroups" : "blocks", r->active_warps, r->max_warps, amd ? "waves" : "warps",
		r->occupancy * 100);
	if (r->blocks_per_sm == 0)
		fprintf(out, ": cannot launch (the %s limit is 0)\n", limit_label(g, r->limiter));
	else
		fprintf(out, ", limited by %s\n", limit_label(g, r->limiter));
	int ties = 0;
	for (int i = 0; i < RIDGE_OCC_LIMITER_COUNT; i++)
		ties += (r->limiter_mask >> i) & 1;
	if (ties > 1) {
		fprintf(out, "  (also at that limit:");
		for (int i = 0; i < RIDGE_OCC_LIMITER_COUNT; i++)
			if ((r->limiter_mask & (1u << i)) && i != (int)r->limiter)
				fprintf(out, " %s", limit_label(g, i));
		fprintf(out, ")\n");
	}
}

void occupancy_print_explanations(FILE *out, const struct ridge_gpu *g, const struct ridge_occupancy_input *in,
				  const struct ridge_occupancy_analysis *an)
{
	const struct ridge_occupancy_result *r = &an->result;
	char a[32], b[32], c[32];
	if (g->vendor == RIDGE_VENDOR_AMD) {
		const struct ridge_occupancy_amd *d = &r->amd;
		fprintf(out, "\nHIP's rule (hipOccupancyMaxActiveBlocksPerMultiprocessor): %d workgroup%s",
			d->hip_blocks_per_cu, d->hip_blocks_per_cu == 1 ? "" : "s");
		if (d->rules_agree) {
			fprintf(out, ", the same\n");
			return;
		}
		fprintf(out, " -- DISAGREES with the hardware rule's %d; the CU enforces the hardware rule:\n",
			r->blocks_per_sm);
		int hip_sgpr = d->hip_sgpr_waves_per_simd == RIDGE_OCC_UNLIMITED ? g->amd.waves_per_simd
										 : d->hip_sgpr_waves_per_simd;
		if (in->sgprs > 0 && hip_sgpr != d->sgpr_waves_per_simd)
			fprintf(out,
				"  SGPRs: HIP rounds %d up to %d (granules of %d): %d waves per SIMD, the hardware %d/%d = "
				"%d\n",
				in->sgprs,
				(in->sgprs + g->amd.sgpr_granule - 1) / g->amd.sgpr_granule * g->amd.sgpr_granule,
				g->amd.sgpr_granule, hip_sgpr, g->amd.sgprs_per_simd, in->sgprs,
				d->sgpr_waves_per_simd);
		if (d->hip_limit_lds != r->limit[RIDGE_OCC_SHARED_MEMORY])
			fprintf(out,
				"  LDS: HIP divides by %.0f B (no granule): %d workgroups, the hardware allocates %.0f B "
				"(%.0f B granules): %d\n",
				in->static_smem + in->dynamic_smem, d->hip_limit_lds, r->smem_per_block,
				g->amd.lds_granule, r->limit[RIDGE_OCC_SHARED_MEMORY]);
		if (r->limit[RIDGE_OCC_BARRIERS] < d->hip_blocks_per_cu)
			fprintf(out,
				"  barriers: HIP has no barrier-slot limit; the CU holds %d multi-wave workgroups\n",
				r->limit[RIDGE_OCC_BARRIERS]);
		return;
	}
	/* The textbook arithmetic leaves out the per-block reserve. */
	if (r->limiter == RIDGE_OCC_SHARED_MEMORY && an->blocks_without_reserve != r->blocks_per_sm &&
	    g->nv.smem_reserved_per_block > 0) {
		double user = in->static_smem + in->dynamic_smem;
		fprintf(out, "\nwhy not %.1f%%: %s / %s = %d blocks leaves out the %s the driver reserves per block\n",
			an->occupancy_without_reserve * 100, occupancy_kib(r->smem_per_sm, a, sizeof a),
			occupancy_kib(user, b, sizeof b), an->smem_limit_without_reserve,
			occupancy_kib(g->nv.smem_reserved_per_block, c, sizeof c));
		fprintf(out,
			"  (cudaDevAttrReservedSharedMemoryPerBlock, sm_80 and later): %.0f / (%.0f + %.0f) = %.2f -> %d "
			"blocks.\n",
			r->smem_per_sm, user, g->nv.smem_reserved_per_block,
			r->smem_per_sm / (user + g->nv.smem_reserved_per_block), r->limit[RIDGE_OCC_SHARED_MEMORY]);
	}
	/* ... and the register allocation granularity. */
	if (r->limiter == RIDGE_OCC_REGISTERS && an->blocks_naive_regs != r->blocks_per_sm && in->regs_per_thread > 0) {
		fprintf(out,
			"\nwhy not %d block%s: %d / (%d x %d) = %d counts registers per thread, but they are allocated\n",
			an->blocks_naive_regs, an->blocks_naive_regs == 1 ? "" : "s", g->regs_per_sm,
			in->regs_per_thread, in->threads_per_block, an->regs_limit_naive);
		fprintf(out,
			"  per warp in units of %d (%d per warp) and warps are placed in %d sub-partitions of %d "
			"registers each.\n",
			g->nv.reg_alloc_unit, r->regs_per_warp, g->nv.sub_partitions,
			g->regs_per_sm / g->nv.sub_partitions);
	}
}

/* "to gain a block ..." after lead; nothing at full occupancy unless full is given. */
void occupancy_print_suggestion(FILE *out, const struct ridge_gpu *g, const struct ridge_occupancy_input *in,
				const struct ridge_occupancy_analysis *an, const char *lead, const char *full)
{
	const struct ridge_occupancy_result *r = &an->result;
	bool amd = g->vendor == RIDGE_VENDOR_AMD;
	if (r->threads_over_block || r->occupancy >= 1) {
		if (full)
			fprintf(out, "%s%s\n", lead, full);
		return;
	}
	if (r->blocks_per_sm == 0)
		fprintf(out, "%sto launch at all: ", lead);
	else
		fprintf(out, "%sto gain a %s (%d per %s): ", lead, amd ? "workgroup" : "block", r->blocks_per_sm + 1,
			amd ? "CU" : "SM");
	int n = 0;
	if (an->has_regs_change) {
		int now = amd ? r->amd.vgprs_unified : in->regs_per_thread;
		fprintf(out, "use %d fewer %s (%d%s)", an->regs_to_drop, amd ? "VGPRs" : "registers per thread",
			now - an->regs_to_drop, amd ? " unified" : "");
		n++;
	}
	if (an->has_smem_change) {
		fprintf(out, "%s%.0f fewer bytes of %s per block (%.0f)", n ? ", or " : "", an->smem_to_drop,
			amd ? "LDS" : "shared memory", in->static_smem + in->dynamic_smem - an->smem_to_drop);
		n++;
	}
	if (r->dynamic_over_max && !in->optin) {
		fprintf(out, "%sadd --optin", n ? ", or " : "");
		n++;
	}
	if (!n)
		fprintf(out, "neither registers nor %s alone (the %s limit stays at %d)", amd ? "LDS" : "shared memory",
			limit_label(g, r->limiter), r->blocks_per_sm);
	fprintf(out, "\n");
}

void occupancy_print_potential(FILE *out, const struct ridge_gpu *g, const struct ridge_occupancy_input *in)
{
	int size, grid, blocks;
	char err[256];
	if (occupancy_max_potential_block_size(g, in, &size, &grid, &blocks, err, sizeof err) != 0)
		return;
	bool amd = g->vendor == RIDGE_VENDOR_AMD;
	if (size == 0) {
		fprintf(out, "max potential block size: none launches\n");
		return;
	}
	int warps = (size + g->warp_size - 1) / g->warp_size;
	fprintf(out, "max potential block size (%s): %d threads x %d %s%s = %.1f%%, min grid %d\n",
		amd ? "the hardware rule, searched as cudaOccupancyMaxPotentialBlockSize does"
		    : "cudaOccupancyMaxPotentialBlockSize's search",
		size, blocks, amd ? "workgroup" : "block", blocks == 1 ? "" : "s",
		100.0 * blocks * warps / (g->max_threads_per_sm / g->warp_size), grid);
	int hip_size, hip_grid, hip_blocks;
	if (amd &&
	    occupancy_hip_max_potential_block_size(g, in, &hip_size, &hip_grid, &hip_blocks, err, sizeof err) == 0)
		fprintf(out,
			"HIP's answer (hipOccupancyMaxPotentialBlockSize, ROCm CLR: no search, the block-size limit\n"
			"  capped by the waves the registers allow): %d threads, grid %d%s\n",
			hip_size, hip_grid, hip_size == size && hip_grid == grid ? ", the same" : "");
}

/* HIP's max-potential answer beside the hardware rule's (AMD). */
void occupancy_json_hip_potential(cJSON *doc, const struct ridge_gpu *g, const struct ridge_occupancy_input *in)
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
