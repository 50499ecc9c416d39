/* The hwdb schema table (schema.h): every key of an entry, where it lives in
 * struct ridge_gpu, what the loader accepts, and how the writer and hw
 * show's JSON put it. The order of rows is the order keys are written and
 * shown, and the order the loader lists them in "(known: ...)". */
#include "schema.h"

#include <string.h>

#include "timing.h"

#define V_NV HWDB_NV
#define V_AMD HWDB_AMD
#define V_ALL HWDB_ALL
#define NO_OFFSET HWDB_NO_OFFSET
#define G(member) offsetof(struct ridge_gpu, member)
#define FABRIC G(ic.has_fabric)

/* The row initializers, in struct hwdb_field's order:
 * key, type, unit, min, max, required, allowed, offset, has_offset,
 * count_offset, size, max_items, children, gate_offset, flags, json_key. */
#define END                                                                     \
	{                                                                       \
		NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, NO_OFFSET, 0, NULL \
	}
#define ROW(k, type, unit, lo, hi, req, allow, off, has, count, size, items, kids, gate, flags, json)    \
	{                                                                                                \
		k, type, unit, lo, hi, req, allow, off, has, count, size, items, kids, gate, flags, json \
	}

#define STR(k, m, req, allow, json)                                                                            \
	ROW(k, HWDB_STR, 0, 0, 0, req, allow, G(m), NO_OFFSET, 0, sizeof(((struct ridge_gpu *)0)->m), 0, NULL, \
	    NO_OFFSET, 0, json)
#define INT(k, m, lo, hi, req, allow, json) \
	ROW(k, HWDB_INT, 0, lo, hi, req, allow, G(m), NO_OFFSET, 0, 0, 0, NULL, NO_OFFSET, 0, json)
#define QTY(k, m, u, lo, hi, req, allow, json) \
	ROW(k, HWDB_QTY, u, lo, hi, req, allow, G(m), NO_OFFSET, 0, 0, 0, NULL, NO_OFFSET, 0, json)
#define OPTQTY(k, m, has, u, lo, hi, allow, json) \
	ROW(k, HWDB_QTY, u, lo, hi, 0, allow, G(m), G(has), 0, 0, 0, NULL, NO_OFFSET, 0, json)
#define MAP(k, kids, req, allow, flags, json) \
	ROW(k, HWDB_MAP, 0, 0, 0, req, allow, NO_OFFSET, NO_OFFSET, 0, 0, 0, kids, NO_OFFSET, flags, json)
#define BOOL(k, m, allow, json) ROW(k, HWDB_BOOL, 0, 0, 0, 0, allow, G(m), NO_OFFSET, 0, 0, 0, NULL, NO_OFFSET, 0, json)
/* A row of the interconnect's fabric: written only with all of it. */
#define FABRIC_ROW(type, k, m, u, lo, hi, flags, json)                                                             \
	ROW(k, type, u, lo, hi, 0, V_ALL, G(m), NO_OFFSET, 0, sizeof(((struct ridge_gpu *)0)->m), 0, NULL, FABRIC, \
	    flags, json)

static const struct hwdb_field clock_fields[] = {
	QTY("boost", boost_clock_hz, RIDGE_UNIT_HZ, 1e8, 5e9, V_ALL, V_ALL, "boost"),
	OPTQTY("base", base_clock_hz, has_base_clock, RIDGE_UNIT_HZ, 1e8, 5e9, V_ALL, "base"),
	QTY("matrix_peak", matrix_clock_hz, RIDGE_UNIT_HZ, 1e8, 5e9, V_ALL, V_ALL, "matrix_peak"),
	QTY("vector_peak", vector_clock_hz, RIDGE_UNIT_HZ, 1e8, 5e9, V_ALL, V_ALL, "vector_peak"),
	END,
};

static const struct hwdb_field memory_fields[] = {
	QTY("size", memory_bytes, RIDGE_UNIT_BYTES, 1e9, 1e13, V_ALL, V_ALL, "memory_bytes"),
	ROW("usable_size", HWDB_QTY, RIDGE_UNIT_BYTES, 1e9, 1e13, 0, V_ALL, G(usable_memory_bytes),
	    G(has_usable_memory), 0, 0, 0, NULL, NO_OFFSET, HWDB_WRITE_AFTER_NEXT, "usable_memory_bytes"),
	QTY("bandwidth", memory_bandwidth, RIDGE_UNIT_BYTES_PER_S, 1e10, 1e14, V_ALL, V_ALL, "memory_bandwidth"),
	/* The mixes in ridge_gpu_hbm_mixes()'s order (model/gpu.c). */
	OPTQTY("read_bandwidth", read_bandwidth, has_read_bandwidth, RIDGE_UNIT_BYTES_PER_S, 1e10, 1e14, V_ALL,
	       "read_bandwidth"),
	OPTQTY("triad_bandwidth", triad_bandwidth, has_triad_bandwidth, RIDGE_UNIT_BYTES_PER_S, 1e10, 1e14, V_ALL,
	       "triad_bandwidth"),
	OPTQTY("copy_bandwidth", copy_bandwidth, has_copy_bandwidth, RIDGE_UNIT_BYTES_PER_S, 1e10, 1e14, V_ALL,
	       "copy_bandwidth"),
	OPTQTY("write_bandwidth", write_bandwidth, has_write_bandwidth, RIDGE_UNIT_BYTES_PER_S, 1e10, 1e14, V_ALL,
	       "write_bandwidth"),
	STR("type", memory_type, 0, V_ALL, "memory_type"),
	END,
};

static const struct hwdb_field cache_fields[] = {
	QTY("l2", l2_bytes, RIDGE_UNIT_BYTES, 65536, 4e9, V_ALL, V_ALL, "l2_bytes"),
	OPTQTY("infinity_cache", infinity_cache_bytes, has_infinity_cache, RIDGE_UNIT_BYTES, 1e6, 4e9, V_AMD,
	       "infinity_cache_bytes"),
	OPTQTY("l2_bandwidth", l2_bandwidth, has_l2_bandwidth, RIDGE_UNIT_BYTES_PER_S, 1e10, 1e15, V_ALL,
	       "l2_bandwidth"),
	OPTQTY("smem_bandwidth", smem_bandwidth, has_smem_bandwidth, RIDGE_UNIT_BYTES_PER_S, 1e10, 1e16, V_ALL,
	       "smem_bandwidth"),
	END,
};

static const struct hwdb_field smem_fields[] = {
	QTY("per_sm", smem_per_sm, RIDGE_UNIT_BYTES, 1024, 1048576, V_ALL, V_ALL, "per_sm"),
	QTY("per_block", smem_per_block, RIDGE_UNIT_BYTES, 1024, 1048576, V_ALL, V_ALL, "per_block"),
	QTY("per_block_optin", smem_per_block_optin, RIDGE_UNIT_BYTES, 1024, 1048576, V_ALL, V_ALL, "per_block_optin"),
	QTY("reserved_per_block", nv.smem_reserved_per_block, RIDGE_UNIT_BYTES, 0, 65536, V_ALL, V_ALL,
	    "reserved_per_block"),
	QTY("alloc_unit", nv.smem_alloc_unit, RIDGE_UNIT_BYTES, 1, 65536, V_ALL, V_ALL, "alloc_unit"),
	ROW("carveout_sizes", HWDB_QTYLIST, RIDGE_UNIT_BYTES, 0, 1048576, V_NV, V_NV, G(nv.carveout_sizes), NO_OFFSET,
	    G(nv.carveout_count), 0, RIDGE_MAX_CARVEOUTS, NULL, NO_OFFSET, 0, "carveout_sizes"),
	END,
};

static const struct hwdb_field register_fields[] = {
	INT("per_sm", regs_per_sm, 1024, 1048576, V_ALL, V_ALL, "per_sm"),
	INT("per_block", regs_per_block, 1024, 1048576, V_ALL, V_ALL, "per_block"),
	INT("per_thread_max", nv.max_regs_per_thread, 16, 1024, V_ALL, V_ALL, "per_thread_max"),
	INT("alloc_unit", nv.reg_alloc_unit, 1, 4096, V_ALL, V_ALL, "alloc_unit"),
	END,
};

static const struct hwdb_field limit_fields[] = {
	INT("threads_per_sm", max_threads_per_sm, 32, 8192, V_ALL, V_ALL, "threads_per_sm"),
	INT("threads_per_block", max_threads_per_block, 32, 4096, V_ALL, V_ALL, "threads_per_block"),
	INT("warps_per_sm", max_warps_per_sm, 1, 256, V_ALL, V_ALL, "warps_per_sm"),
	INT("blocks_per_sm", max_blocks_per_sm, 1, 256, V_ALL, V_ALL, "blocks_per_sm"),
	INT("sub_partitions", nv.sub_partitions, 1, 16, V_ALL, V_ALL, "sub_partitions"),
	INT("barriers_per_block_slot", nv.barriers_per_block_slot, 0, 16, V_ALL, V_ALL, "barriers_per_block_slot"),
	INT("virtual_resources_per_sm", nv.virtual_resources_per_sm, 0, 4096, V_ALL, V_ALL, "virtual_resources_per_sm"),
	END,
};

static const struct hwdb_field amd_fields[] = {
	INT("simds_per_cu", amd.simds_per_cu, 1, 16, V_AMD, V_AMD, "simds_per_cu"),
	INT("waves_per_simd", amd.waves_per_simd, 1, 64, V_AMD, V_AMD, "waves_per_simd"),
	INT("vgprs_per_lane", amd.vgprs_per_lane, 64, 4096, V_AMD, V_AMD, "vgprs_per_lane"),
	INT("vgpr_granule", amd.vgpr_granule, 1, 64, V_AMD, V_AMD, "vgpr_granule"),
	INT("sgprs_per_simd", amd.sgprs_per_simd, 16, 8192, V_AMD, V_AMD, "sgprs_per_simd"),
	INT("sgpr_granule", amd.sgpr_granule, 1, 64, V_AMD, V_AMD, "sgpr_granule"),
	INT("max_sgprs_per_wave", amd.max_sgprs_per_wave, 16, 1024, V_AMD, V_AMD, "max_sgprs_per_wave"),
	QTY("lds_granule", amd.lds_granule, RIDGE_UNIT_BYTES, 1, 65536, V_AMD, V_AMD, "lds_granule"),
	INT("barrier_slots", amd.barrier_slots, 1, 256, V_AMD, V_AMD, "barrier_slots"),
	END,
};

static const struct hwdb_field power_fields[] = {
	QTY("tdp", tdp_watts, RIDGE_UNIT_WATTS, 10, 5000, V_ALL, V_ALL, "tdp_watts"),
	/* The power limit's throttling (ridge-probe --sustained): burst_time and
	 * source go with the fraction. */
	OPTQTY("sustained_matrix_fraction", sustained_matrix_fraction, has_sustained_matrix, RIDGE_UNIT_COUNT, 0.05, 1,
	       V_ALL, "sustained_matrix_fraction"),
	ROW("burst_time", HWDB_QTY, RIDGE_UNIT_SECONDS, 0, 3600, 0, V_ALL, G(burst_time_s), NO_OFFSET, 0, 0, 0, NULL,
	    G(has_sustained_matrix), 0, "burst_time_s"),
	ROW("provenance", HWDB_STR, 0, 0, 0, 0, V_ALL, G(power_provenance), NO_OFFSET, 0,
	    sizeof(((struct ridge_gpu *)0)->power_provenance), 0, NULL, G(has_sustained_matrix), 0, "power_provenance"),
	ROW("source", HWDB_STR, 0, 0, 0, 0, V_ALL, G(power_source), NO_OFFSET, 0,
	    sizeof(((struct ridge_gpu *)0)->power_source), 0, NULL, G(has_sustained_matrix), 0, "power_source"),
	/* how the burst comes back (validation/harnesses/power_recovery.py): both
	 * rates, their provenance and source go together */
	OPTQTY("recovery_idle", power_recovery_idle, has_power_recovery, RIDGE_UNIT_COUNT, 0, 1000, V_ALL,
	       "power_recovery_idle"),
	OPTQTY("recovery_busy", power_recovery_busy, has_power_recovery_busy, RIDGE_UNIT_COUNT, 0, 1000, V_ALL,
	       "power_recovery_busy"),
	ROW("recovery_provenance", HWDB_STR, 0, 0, 0, 0, V_ALL, G(power_recovery_provenance), NO_OFFSET, 0,
	    sizeof(((struct ridge_gpu *)0)->power_recovery_provenance), 0, NULL, G(has_power_recovery), 0,
	    "power_recovery_provenance"),
	ROW("recovery_source", HWDB_STR, 0, 0, 0, 0, V_ALL, G(power_recovery_source), NO_OFFSET, 0,
	    sizeof(((struct ridge_gpu *)0)->power_recovery_source), 0, NULL, G(has_power_recovery), 0,
	    "power_recovery_source"),
	END,
};

/* A collective a calibration measured: <op>_bus_bandwidth and <op>_latency. */
#define MEASURED_COLLECTIVE(op, index)                                                                                \
	OPTQTY(op "_bus_bandwidth", ic.measured[index].bus_bandwidth, ic.measured[index].has_bus_bandwidth,           \
	       RIDGE_UNIT_BYTES_PER_S, 1e6, 1e14, V_ALL, op "_bus_bandwidth"),                                        \
		OPTQTY(op "_latency", ic.measured[index].latency, ic.measured[index].has_latency, RIDGE_UNIT_SECONDS, \
		       1e-8, 1, V_ALL, op "_latency_s")

/* name and bandwidth are the datasheet's one line ("NVLink 4, 900 GB/s
 * bidirectional"); the fabric keys after them are what model/comm.h needs,
 * all or none (hwdb.c, check_interconnect), written only when all are there;
 * the <op>_ keys are a calibration's measurements. */
static const struct hwdb_field interconnect_fields[] = {
	STR("name", interconnect, V_ALL, V_ALL, "name"),
	QTY("bandwidth", interconnect_bandwidth, RIDGE_UNIT_BYTES_PER_S, 0, 1e14, V_ALL, V_ALL, "bandwidth"),
	FABRIC_ROW(HWDB_STR, "topology", ic.topology_name, 0, 0, 0, 0, "topology"),
	FABRIC_ROW(HWDB_INT, "links", ic.links, 0, 0, 1024, HWDB_OMIT_ZERO, "links"),
	FABRIC_ROW(HWDB_QTY, "per_direction", ic.per_direction, RIDGE_UNIT_BYTES_PER_S, 1e9, 1e14, 0, "per_direction"),
	FABRIC_ROW(HWDB_QTY, "peer_bandwidth", ic.peer_bandwidth, RIDGE_UNIT_BYTES_PER_S, 1e9, 1e14, 0,
		   "peer_bandwidth"),
	FABRIC_ROW(HWDB_INT, "domain_gpus", ic.domain_gpus, 0, 1, 1000000, 0, "domain_gpus"),
	FABRIC_ROW(HWDB_BOOL, "nvls", ic.nvls, 0, 0, 0, 0, "nvls"),
	FABRIC_ROW(HWDB_QTY, "latency", ic.latency, RIDGE_UNIT_SECONDS, 1e-8, 1e-2, 0, "latency_s"),
	FABRIC_ROW(HWDB_QTY, "base_latency", ic.base_latency, RIDGE_UNIT_SECONDS, 0, 1e-2, 0, "base_latency_s"),
	ROW("bus_bandwidth", HWDB_QTY, RIDGE_UNIT_BYTES_PER_S, 1e9, 1e14, 0, V_ALL, G(ic.bus_bandwidth),
	    G(ic.has_bus_bandwidth), 0, 0, 0, NULL, FABRIC, 0, "bus_bandwidth"),
	ROW("nvls_bus_bandwidth", HWDB_QTY, RIDGE_UNIT_BYTES_PER_S, 1e9, 1e14, 0, V_ALL, G(ic.nvls_bus_bandwidth),
	    G(ic.has_nvls_bus_bandwidth), 0, 0, 0, NULL, FABRIC, 0, "nvls_bus_bandwidth"),
	FABRIC_ROW(HWDB_STR, "pcie", ic.pcie, 0, 0, 0, 0, "pcie"),
	FABRIC_ROW(HWDB_QTY, "pcie_bandwidth", ic.pcie_bandwidth, RIDGE_UNIT_BYTES_PER_S, 1e9, 1e14, 0,
		   "pcie_bandwidth"),
	ROW("nics", HWDB_INT, 0, 1, 1024, 0, V_ALL, G(ic.nics), NO_OFFSET, 0, 0, 0, NULL, NO_OFFSET, HWDB_OMIT_ZERO,
	    "nics"),
	OPTQTY("nic_bandwidth", ic.nic_bandwidth, ic.has_nic_bandwidth, RIDGE_UNIT_BYTES_PER_S, 1e8, 1e13, V_ALL,
	       "nic_bandwidth"),
	MEASURED_COLLECTIVE("allreduce", RIDGE_ALL_REDUCE),
	MEASURED_COLLECTIVE("allgather", RIDGE_ALL_GATHER),
	MEASURED_COLLECTIVE("reducescatter", RIDGE_REDUCE_SCATTER),
	MEASURED_COLLECTIVE("alltoall", RIDGE_ALL_TO_ALL),
	MEASURED_COLLECTIVE("sendrecv", RIDGE_SEND_RECV),
	ROW("measured_gpus", HWDB_INT, 0, 1, 1000000, 0, V_ALL, G(ic.measured_gpus), NO_OFFSET, 0, 0, 0, NULL,
	    NO_OFFSET, HWDB_OMIT_ZERO, "measured_gpus"),
	END,
};

static const struct hwdb_field launch_fields[] = {
	QTY("overhead", launch_overhead_s, RIDGE_UNIT_SECONDS, 1e-9, 1e-3, V_ALL, V_ALL, "launch_overhead_s"),
	QTY("graph_node", graph_node_s, RIDGE_UNIT_SECONDS, 1e-10, 1e-3, V_ALL, V_ALL, "graph_node_s"),
	OPTQTY("kernel_fixed_cost", kernel_fixed_cost_s, has_kernel_fixed_cost, RIDGE_UNIT_SECONDS, 0, 1e-3, V_ALL,
	       "kernel_fixed_cost_s"),
	OPTQTY("gemm_fixed_cost", gemm_fixed_cost_s, has_gemm_fixed_cost, RIDGE_UNIT_SECONDS, 0, 1e-3, V_ALL,
	       "gemm_fixed_cost_s"),
	/* The framework's host cost per kernel in eager mode; its source goes with it. */
	OPTQTY("framework_overhead", framework_overhead_s, has_framework_overhead, RIDGE_UNIT_SECONDS, 1e-8, 1e-2,
	       V_ALL, "framework_overhead_s"),
	ROW("framework_source", HWDB_STR, 0, 0, 0, 0, V_ALL, G(framework_source), NO_OFFSET, 0,
	    sizeof(((struct ridge_gpu *)0)->framework_source), 0, NULL, G(has_framework_overhead), 0,
	    "framework_source"),
	END,
};

/* timing.<slot>: one kernel class's efficiencies and fixed cost (model/timing.h);
 * one map a slot of model/timing_classes.h, keyed as timing_slot_key() names it. */
/* A STR row of timing.<slot>: k its key, m the member under the slot. */
#define TIMING_STR(SLOT, k, m)                                                            \
	ROW(k, HWDB_STR, 0, 0, 0, 0, V_ALL, G(timing[RIDGE_SLOT_##SLOT].m), NO_OFFSET, 0, \
	    sizeof(((struct ridge_gpu *)0)->timing[RIDGE_SLOT_##SLOT].m), 0, NULL, NO_OFFSET, 0, k)
/* A value's own provenance and source (struct ridge_timing_origin). */
#define TIMING_ORIGIN(SLOT, name, V) \
	TIMING_STR(SLOT, name "_provenance", value[V].provenance), TIMING_STR(SLOT, name "_source", value[V].source)
#define TIMING_SLOT_FIELDS(u, SLOT, NAME, IMPL, key)                                                                   \
	static const struct hwdb_field timing_##SLOT##_fields[] = {                                                    \
		TIMING_STR(SLOT, "provenance", provenance),                                                            \
		OPTQTY("compute_efficiency", timing[RIDGE_SLOT_##SLOT].compute_efficiency,                             \
		       timing[RIDGE_SLOT_##SLOT].has_compute_efficiency, RIDGE_UNIT_COUNT, 0.01, 1.5, V_ALL,           \
		       "compute_efficiency"),                                                                          \
		TIMING_ORIGIN(SLOT, "compute_efficiency", RIDGE_TIMING_COMPUTE),                                       \
		OPTQTY("memory_efficiency", timing[RIDGE_SLOT_##SLOT].memory_efficiency,                               \
		       timing[RIDGE_SLOT_##SLOT].has_memory_efficiency, RIDGE_UNIT_COUNT, 0.01, 1.5, V_ALL,            \
		       "memory_efficiency"),                                                                           \
		TIMING_ORIGIN(SLOT, "memory_efficiency", RIDGE_TIMING_MEMORY),                                         \
		OPTQTY("fixed_cost", timing[RIDGE_SLOT_##SLOT].fixed_cost_s, timing[RIDGE_SLOT_##SLOT].has_fixed_cost, \
		       RIDGE_UNIT_SECONDS, 0, 1e-3, V_ALL, "fixed_cost_s"),                                            \
		TIMING_ORIGIN(SLOT, "fixed_cost", RIDGE_TIMING_FIXED),                                                 \
		OPTQTY("row_time", timing[RIDGE_SLOT_##SLOT].row_time_s, timing[RIDGE_SLOT_##SLOT].has_row_time,       \
		       RIDGE_UNIT_SECONDS, 0, 1e-6, V_ALL, "row_time_s"),                                              \
		TIMING_ORIGIN(SLOT, "row_time", RIDGE_TIMING_ROW),                                                     \
		STR("source", timing[RIDGE_SLOT_##SLOT].source, 0, V_ALL, "source"),                                   \
		OPTQTY("cta_bandwidth", timing[RIDGE_SLOT_##SLOT].cta_bandwidth,                                       \
		       timing[RIDGE_SLOT_##SLOT].has_cta_bandwidth, RIDGE_UNIT_BYTES_PER_S, 1e6, 1e14, V_ALL,          \
		       "cta_bandwidth"),                                                                               \
		TIMING_ORIGIN(SLOT, "cta_bandwidth", RIDGE_TIMING_CTA),                                                \
		OPTQTY("cta_latency", timing[RIDGE_SLOT_##SLOT].cta_latency_s,                                         \
		       timing[RIDGE_SLOT_##SLOT].has_cta_latency, RIDGE_UNIT_SECONDS, 0, 1e-3, V_ALL,                  \
		       "cta_latency_s"),                                                                               \
		END,                                                                                                   \
	};
RIDGE_TIMING_SLOT_LIST(TIMING_SLOT_FIELDS, )
#define TIMING_SLOT_MAP(u, SLOT, NAME, IMPL, key) MAP(key, timing_##SLOT##_fields, 0, V_ALL, 0, key),

/* attention_default first, as every calibration so far has it. */
static const struct hwdb_field timing_fields[] = {
	STR("attention_default", attention_default, 0, V_ALL, "attention_default"),
	RIDGE_TIMING_SLOT_LIST(TIMING_SLOT_MAP, ) END,
};

#define IDENTITY(k, m, req, allow)                                                                             \
	ROW(k, HWDB_STR, 0, 0, 0, req, allow, G(m), NO_OFFSET, 0, sizeof(((struct ridge_gpu *)0)->m), 0, NULL, \
	    NO_OFFSET, HWDB_IDENTITY, k)

const struct hwdb_field hwdb_schema[] = {
	ROW("schema", HWDB_SCHEMA, 0, 1, 1, V_ALL, V_ALL, NO_OFFSET, NO_OFFSET, 0, 0, 0, NULL, NO_OFFSET, HWDB_IDENTITY,
	    NULL),
	IDENTITY("id", id, V_ALL, V_ALL),
	IDENTITY("name", name, V_ALL, V_ALL),
	ROW("vendor", HWDB_VENDOR, 0, 0, 0, V_ALL, V_ALL, G(vendor), NO_OFFSET, 0, 0, 0, NULL, NO_OFFSET, HWDB_IDENTITY,
	    "vendor"),
	IDENTITY("arch", arch, V_ALL, V_ALL),
	ROW("compute_capability", HWDB_CC, 0, 0, 0, V_NV, V_NV, NO_OFFSET, NO_OFFSET, 0, 0, 0, NULL, NO_OFFSET,
	    HWDB_IDENTITY, "compute_capability"),
	IDENTITY("gfx_target", gfx_target, V_AMD, V_AMD),
	ROW("aliases", HWDB_STRLIST, 0, 0, 0, 0, V_ALL, G(aliases), NO_OFFSET, G(alias_count), RIDGE_TEXT,
	    RIDGE_MAX_ALIASES, NULL, NO_OFFSET, HWDB_IDENTITY, "aliases"),
	INT("sm_count", sm_count, 1, 4096, V_ALL, V_ALL, "sm_count"),
	INT("warp_size", warp_size, 32, 64, V_ALL, V_ALL, "warp_size"),
	MAP("clocks", clock_fields, V_ALL, V_ALL, 0, "clocks_hz"),
	ROW("peak_flops", HWDB_PEAKS, RIDGE_UNIT_FLOPS, 1e9, 1e18, V_ALL, V_ALL, NO_OFFSET, NO_OFFSET, 0, 0, 0, NULL,
	    NO_OFFSET, 0, "peak_flops"),
	MAP("memory", memory_fields, V_ALL, V_ALL, HWDB_JSON_FLAT, NULL),
	MAP("cache", cache_fields, V_ALL, V_ALL, HWDB_JSON_FLAT, NULL),
	MAP("shared_memory", smem_fields, V_ALL, V_ALL, 0, "shared_memory"),
	MAP("registers", register_fields, V_ALL, V_ALL, 0, "registers"),
	MAP("limits", limit_fields, V_ALL, V_ALL, 0, "limits"),
	MAP("amd", amd_fields, V_AMD, V_AMD, 0, "amd"),
	MAP("power", power_fields, V_ALL, V_ALL, HWDB_JSON_FLAT, NULL),
	MAP("interconnect", interconnect_fields, 0, V_ALL, 0, "interconnect"),
	MAP("launch", launch_fields, V_ALL, V_ALL, HWDB_JSON_FLAT, NULL),
	MAP("timing", timing_fields, 0, V_ALL, 0, "timing"),
	OPTQTY("price", price_usd_per_hour, has_price, RIDGE_UNIT_USD, 0, 1000, V_ALL, "price_usd_per_hour"),
	ROW("sources", HWDB_STRLIST, 0, 0, 0, V_ALL, V_ALL, G(sources), NO_OFFSET, G(source_count), RIDGE_LONG_TEXT,
	    RIDGE_MAX_SOURCES, NULL, NO_OFFSET, HWDB_BLOCK_LIST, "sources"),
	ROW("notes", HWDB_STRLIST, 0, 0, 0, 0, V_ALL, G(notes), NO_OFFSET, G(note_count), RIDGE_LONG_TEXT,
	    RIDGE_MAX_NOTES, NULL, NO_OFFSET, HWDB_BLOCK_LIST, "notes"),
	/* JSON: "measured" (true/false) and "measured_on", after the identity. */
	ROW("measured", HWDB_MEASURED, 0, 0, 0, 0, V_ALL, G(measured), NO_OFFSET, 0, 0, 0, NULL, NO_OFFSET, 0,
	    "measured"),
	END,
};

unsigned hwdb_vendor_bit(const struct ridge_gpu *gpu)
{
	return gpu->vendor == RIDGE_VENDOR_AMD ? HWDB_AMD : HWDB_NV;
}

static bool flag(const struct ridge_gpu *gpu, size_t offset)
{
	return *(const bool *)hwdb_field_member(gpu, offset);
}

bool hwdb_field_set(const struct ridge_gpu *gpu, const struct hwdb_field *f)
{
	if (f->has_offset != NO_OFFSET)
		return flag(gpu, f->has_offset);
	switch (f->type) {
	case HWDB_STR:
		return hwdb_field_string(gpu, f)[0] != '\0';
	case HWDB_INT:
		return hwdb_field_int(gpu, f) != 0;
	case HWDB_QTY:
		return hwdb_field_double(gpu, f) != 0;
	case HWDB_BOOL:
	case HWDB_MEASURED:
		return flag(gpu, f->offset);
	case HWDB_STRLIST:
	case HWDB_QTYLIST:
		return hwdb_field_count(gpu, f) > 0;
	case HWDB_MAP:
		for (const struct hwdb_field *c = f->children; c->key; c++)
			if ((c->allowed & hwdb_vendor_bit(gpu)) && hwdb_field_set(gpu, c))
				return true;
		return false;
	case HWDB_PEAKS:
	case HWDB_CC:
	case HWDB_VENDOR:
	case HWDB_SCHEMA:
		return true;
	}
	return false;
}

bool hwdb_field_present(const struct ridge_gpu *gpu, const struct hwdb_field *f)
{
	unsigned vendor = hwdb_vendor_bit(gpu);
	if (!(f->allowed & vendor))
		return false;
	if (f->gate_offset != NO_OFFSET && !flag(gpu, f->gate_offset))
		return false;
	if (f->required & vendor)
		return true;
	if (f->has_offset != NO_OFFSET)
		return flag(gpu, f->has_offset);
	switch (f->type) {
	case HWDB_INT:
		return !(f->flags & HWDB_OMIT_ZERO) || hwdb_field_int(gpu, f) != 0;
	case HWDB_QTY:
	case HWDB_BOOL:
		return true;
	default:
		return hwdb_field_set(gpu, f);
	}
}

const struct hwdb_field *hwdb_field_find(const char *path)
{
	const struct hwdb_field *rows = hwdb_schema;
	for (;;) {
		size_t n = strcspn(path, ".");
		const struct hwdb_field *f = rows;
		while (f->key && !(strlen(f->key) == n && strncmp(f->key, path, n) == 0))
			f++;
		if (!f->key)
			return NULL;
		if (path[n] == '\0')
			return f;
		if (f->type != HWDB_MAP)
			return NULL;
		rows = f->children;
		path += n + 1;
	}
}
