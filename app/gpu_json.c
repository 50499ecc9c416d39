#include "app.h"

static void add_strings(cJSON *obj, const char *key, const char (*items)[RIDGE_LONG_TEXT], int count)
{
	cJSON *array = cJSON_AddArrayToObject(obj, key);
	for (int i = 0; i < count; i++)
		cJSON_AddItemToArray(array, cJSON_CreateString(items[i]));
}

/* "interconnect": the datasheet's name and bidirectional bandwidth (the keys
 * it always had), then the fabric the communication model uses, then any
 * measured collectives (a calibration). */
static void add_interconnect(cJSON *o, const struct ridge_gpu *g)
{
	const struct ridge_interconnect *f = &g->ic;
	cJSON *ic = cJSON_AddObjectToObject(o, "interconnect");
	cJSON_AddStringToObject(ic, "name", g->interconnect);
	json_number(ic, "bandwidth", g->interconnect_bandwidth);
	if (f->has_fabric) {
		cJSON_AddStringToObject(ic, "topology", f->topology_name);
		if (f->links)
			cJSON_AddNumberToObject(ic, "links", f->links);
		json_number(ic, "per_direction", f->per_direction);
		json_number(ic, "peer_bandwidth", f->peer_bandwidth);
		cJSON_AddNumberToObject(ic, "domain_gpus", f->domain_gpus);
		cJSON_AddBoolToObject(ic, "nvls", f->nvls);
		json_number(ic, "latency_s", f->latency);
		json_number(ic, "base_latency_s", f->base_latency);
		if (f->has_bus_bandwidth)
			json_number(ic, "bus_bandwidth", f->bus_bandwidth);
		if (f->has_nvls_bus_bandwidth)
			json_number(ic, "nvls_bus_bandwidth", f->nvls_bus_bandwidth);
		if (f->pcie[0])
			cJSON_AddStringToObject(ic, "pcie", f->pcie);
		json_number(ic, "pcie_bandwidth", f->pcie_bandwidth);
	}
	for (int op = 0; op < RIDGE_COLLECTIVE_COUNT; op++) {
		const struct ridge_collective_measured *m = &f->measured[op];
		char key[64];
		const char *name = ridge_collective_key((enum ridge_collective)op);
		if (m->has_bus_bandwidth) {
			snprintf(key, sizeof key, "%s_bus_bandwidth", name);
			json_number(ic, key, m->bus_bandwidth);
		}
		if (m->has_latency) {
			snprintf(key, sizeof key, "%s_latency_s", name);
			json_number(ic, key, m->latency);
		}
	}
	if (f->measured_gpus)
		cJSON_AddNumberToObject(ic, "measured_gpus", f->measured_gpus);
}

cJSON *app_gpu_json(const struct ridge_gpu *g, const char *origin)
{
	cJSON *o = cJSON_CreateObject();
	int amd = g->vendor == RIDGE_VENDOR_AMD;
	cJSON_AddStringToObject(o, "id", g->id);
	cJSON_AddStringToObject(o, "name", g->name);
	cJSON_AddStringToObject(o, "vendor", amd ? "amd" : "nvidia");
	cJSON_AddStringToObject(o, "arch", g->arch);
	if (amd) {
		cJSON_AddStringToObject(o, "gfx_target", g->gfx_target);
	} else {
		char cc[16];
		snprintf(cc, sizeof cc, "%d.%d", g->cc_major, g->cc_minor);
		cJSON_AddStringToObject(o, "compute_capability", cc);
	}
	cJSON *aliases = cJSON_AddArrayToObject(o, "aliases");
	for (int i = 0; i < g->alias_count; i++)
		cJSON_AddItemToArray(aliases, cJSON_CreateString(g->aliases[i]));
	if (origin)
		cJSON_AddStringToObject(o, "origin", origin);
	cJSON_AddBoolToObject(o, "measured", g->measured);
	if (g->measured)
		cJSON_AddStringToObject(o, "measured_on", g->measured_on);
	cJSON_AddNumberToObject(o, "sm_count", g->sm_count);
	cJSON_AddNumberToObject(o, "warp_size", g->warp_size);

	cJSON *clocks = cJSON_AddObjectToObject(o, "clocks_hz");
	json_number(clocks, "boost", g->boost_clock_hz);
	if (g->has_base_clock)
		json_number(clocks, "base", g->base_clock_hz);
	json_number(clocks, "matrix_peak", g->matrix_clock_hz);
	json_number(clocks, "vector_peak", g->vector_clock_hz);

	/* peak_flops: dtype -> the default (dense matrix, else vector) rate, and
	 * "<dtype>_vector" where the vector rate differs; peak_flops_detail has all. */
	cJSON *peaks = cJSON_AddObjectToObject(o, "peak_flops");
	cJSON *detail = cJSON_AddObjectToObject(o, "peak_flops_detail");
	for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
		const struct ridge_peak *p = &g->peak[d];
		const char *name = ridge_dtype_name((enum ridge_dtype)d);
		double rate;
		if (!ridge_gpu_peak(g, (enum ridge_dtype)d, RIDGE_PEAK_DEFAULT, false, &rate, NULL))
			continue;
		json_number(peaks, name, rate);
		if (p->has_vector && p->has_matrix) {
			char key[32];
			snprintf(key, sizeof key, "%s_vector", name);
			json_number(peaks, key, p->vector);
		}
		cJSON *one = cJSON_AddObjectToObject(detail, name);
		if (p->has_vector)
			json_number(one, "vector", p->vector);
		if (p->has_matrix)
			json_number(one, "matrix", p->matrix);
		if (p->has_matrix_sparse)
			json_number(one, "matrix_sparse", p->matrix_sparse);
	}

	json_number(o, "memory_bytes", g->memory_bytes);
	if (g->has_usable_memory)
		json_number(o, "usable_memory_bytes", g->usable_memory_bytes);
	json_number(o, "memory_bandwidth", g->memory_bandwidth);
	struct ridge_hbm_mix mixes[RIDGE_HBM_MIXES];
	ridge_gpu_hbm_mixes(g, mixes);
	for (int i = 0; i < RIDGE_HBM_MIXES; i++)
		if (mixes[i].has)
			json_number(o, mixes[i].key, mixes[i].bandwidth);
	if (g->memory_type[0])
		cJSON_AddStringToObject(o, "memory_type", g->memory_type);
	json_number(o, "l2_bytes", g->l2_bytes);
	if (g->has_infinity_cache)
		json_number(o, "infinity_cache_bytes", g->infinity_cache_bytes);
	if (g->has_l2_bandwidth)
		json_number(o, "l2_bandwidth", g->l2_bandwidth);
	if (g->has_smem_bandwidth)
		json_number(o, "smem_bandwidth", g->smem_bandwidth);

	cJSON *smem = cJSON_AddObjectToObject(o, "shared_memory");
	json_number(smem, "per_sm", g->smem_per_sm);
	json_number(smem, "per_block", g->smem_per_block);
	json_number(smem, "per_block_optin", g->smem_per_block_optin);
	json_number(smem, "reserved_per_block", g->nv.smem_reserved_per_block);
	json_number(smem, "alloc_unit", g->nv.smem_alloc_unit);
	if (!amd) {
		cJSON *sizes = cJSON_AddArrayToObject(smem, "carveout_sizes");
		for (int i = 0; i < g->nv.carveout_count; i++)
			cJSON_AddItemToArray(sizes, cJSON_CreateNumber(g->nv.carveout_sizes[i]));
	}

	cJSON *regs = cJSON_AddObjectToObject(o, "registers");
	cJSON_AddNumberToObject(regs, "per_sm", g->regs_per_sm);
	cJSON_AddNumberToObject(regs, "per_block", g->regs_per_block);
	cJSON_AddNumberToObject(regs, "per_thread_max", g->nv.max_regs_per_thread);
	cJSON_AddNumberToObject(regs, "alloc_unit", g->nv.reg_alloc_unit);

	cJSON *limits = cJSON_AddObjectToObject(o, "limits");
	cJSON_AddNumberToObject(limits, "threads_per_sm", g->max_threads_per_sm);
	cJSON_AddNumberToObject(limits, "threads_per_block", g->max_threads_per_block);
	cJSON_AddNumberToObject(limits, "warps_per_sm", g->max_warps_per_sm);
	cJSON_AddNumberToObject(limits, "blocks_per_sm", g->max_blocks_per_sm);
	cJSON_AddNumberToObject(limits, "sub_partitions", g->nv.sub_partitions);
	cJSON_AddNumberToObject(limits, "barriers_per_block_slot", g->nv.barriers_per_block_slot);
	cJSON_AddNumberToObject(limits, "virtual_resources_per_sm", g->nv.virtual_resources_per_sm);
	if (amd) {
		cJSON *a = cJSON_AddObjectToObject(o, "amd");
		cJSON_AddNumberToObject(a, "simds_per_cu", g->amd.simds_per_cu);
		cJSON_AddNumberToObject(a, "waves_per_simd", g->amd.waves_per_simd);
		cJSON_AddNumberToObject(a, "vgprs_per_lane", g->amd.vgprs_per_lane);
		cJSON_AddNumberToObject(a, "vgpr_granule", g->amd.vgpr_granule);
		cJSON_AddNumberToObject(a, "sgprs_per_simd", g->amd.sgprs_per_simd);
		cJSON_AddNumberToObject(a, "sgpr_granule", g->amd.sgpr_granule);
		cJSON_AddNumberToObject(a, "max_sgprs_per_wave", g->amd.max_sgprs_per_wave);
		json_number(a, "lds_granule", g->amd.lds_granule);
		cJSON_AddNumberToObject(a, "barrier_slots", g->amd.barrier_slots);
	}
	json_number(o, "tdp_watts", g->tdp_watts);
	if (g->interconnect[0])
		add_interconnect(o, g);
	json_number(o, "launch_overhead_s", g->launch_overhead_s);
	json_number(o, "graph_node_s", g->graph_node_s);
	if (g->has_price)
		json_number(o, "price_usd_per_hour", g->price_usd_per_hour);
	add_strings(o, "sources", (const char(*)[RIDGE_LONG_TEXT])g->sources, g->source_count);
	add_strings(o, "notes", (const char(*)[RIDGE_LONG_TEXT])g->notes, g->note_count);
	return o;
}
