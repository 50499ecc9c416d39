/* The hardware description every model works from: one struct ridge_gpu per GPU.
 * Filled by hwdb/ from YAML (or by a test by hand); read, never written, by model/. */
#ifndef RIDGE_GPU_H
#define RIDGE_GPU_H

#include <stdbool.h>
#include <stddef.h>

#include "timing_classes.h"

enum ridge_vendor { RIDGE_VENDOR_NVIDIA, RIDGE_VENDOR_AMD };

enum ridge_dtype {
	RIDGE_FP64,
	RIDGE_FP32,
	RIDGE_TF32,
	RIDGE_BF16,
	RIDGE_FP16,
	RIDGE_FP8,
	RIDGE_INT8,
	RIDGE_FP4,
	RIDGE_DTYPE_COUNT
};

/* Peak rates of one dtype, FLOP/s (OP/s for int8). A rate is meaningful only
 * when its has_ bit is set: a missing rate is "the hardware has no such path",
 * never zero. */
struct ridge_peak {
	bool has_vector, has_matrix, has_matrix_sparse;
	double vector;        /* CUDA cores / SIMD units */
	double matrix;        /* tensor cores / matrix cores, dense */
	double matrix_sparse; /* 2:4 structured sparsity */
};

#define RIDGE_MAX_ALIASES 8
#define RIDGE_MAX_SOURCES 16
#define RIDGE_MAX_NOTES 8
#define RIDGE_MAX_CARVEOUTS 24
#define RIDGE_TEXT 128
#define RIDGE_LONG_TEXT 512

/* NVIDIA occupancy parameters (cuda_occupancy.h's cudaOccDeviceProp plus the
 * per-architecture constants that header hard-codes). */
struct ridge_nvidia_occupancy {
	int sub_partitions;             /* warp schedulers; warps are allocated per sub-partition */
	int reg_alloc_unit;             /* registers per warp are rounded up to this */
	int max_regs_per_thread;        /* 255 */
	double smem_alloc_unit;         /* bytes */
	double smem_reserved_per_block; /* bytes the driver reserves per block */
	int carveout_count;
	double carveout_sizes[RIDGE_MAX_CARVEOUTS]; /* legal SM shared-memory sizes, bytes, ascending */
	int barriers_per_block_slot;                /* 0: no barrier limit (before sm_90); 1 or 2 */
	int virtual_resources_per_sm;               /* 0: not tracked */
};

/* AMD CDNA occupancy parameters (LLVM AMDGPUBaseInfo and HIP CLR). */
struct ridge_amd_occupancy {
	int simds_per_cu;
	int waves_per_simd;
	int vgprs_per_lane; /* unified ArchVGPR + AGPR file per lane per SIMD */
	int vgpr_granule;
	int sgprs_per_simd;
	int sgpr_granule;
	int max_sgprs_per_wave;
	double lds_granule; /* bytes */
	int barrier_slots;  /* workgroups with more than one wave per CU */
};

/* How GPUs of one host reach each other. */
enum ridge_topology {
	RIDGE_TOPOLOGY_UNKNOWN, /* not in the entry */
	RIDGE_TOPOLOGY_SWITCH,  /* every GPU at full bandwidth to a switch (NVSwitch): any pair sees it all */
	RIDGE_TOPOLOGY_MESH,    /* point-to-point links, one (or a few) per pair (Infinity Fabric, DGX-1's cube mesh) */
	RIDGE_TOPOLOGY_BRIDGE,  /* a bridge joins a pair (or 4) of PCIe cards; the rest talk over PCIe */
	RIDGE_TOPOLOGY_PCIE,    /* no GPU fabric: PCIe through the host */
	RIDGE_TOPOLOGY_COUNT
};

/* The collectives of model/comm.h, in the order of their hwdb calibration keys. */
enum ridge_collective {
	RIDGE_ALL_REDUCE,
	RIDGE_ALL_GATHER,
	RIDGE_REDUCE_SCATTER,
	RIDGE_ALL_TO_ALL,
	RIDGE_SEND_RECV, /* point to point: one GPU to one other */
	RIDGE_COLLECTIVE_COUNT
};

/* One collective measured by ridge-probe on measured_gpus GPUs (a calibration). */
struct ridge_collective_measured {
	bool has_bus_bandwidth, has_latency;
	double bus_bandwidth; /* bytes/s, NCCL's bus-bandwidth convention */
	double latency;       /* s: the fitted alpha (time of a near-empty message) */
};

/* The interconnect as the communication model sees it (hwdb interconnect.*).
 * Every field past the name is optional in an entry: has_fabric says the
 * fabric keys are there (per_direction, peer_bandwidth, topology, domain_gpus,
 * latency, base_latency, pcie_bandwidth); has_ bits cover the rest. */
struct ridge_interconnect {
	bool has_fabric;
	enum ridge_topology topology;
	char topology_name[RIDGE_TEXT]; /* as the entry spells it: "switch" */
	int links;                      /* links per GPU (0: not given) */
	double per_direction;           /* bytes/s, all links of one GPU, one direction */
	double peer_bandwidth;          /* bytes/s, one direction, between one pair of GPUs */
	int domain_gpus;                /* GPUs the fabric joins (8: an HGX board; 2: a bridged pair) */
	bool nvls;                      /* NVLink SHARP: the switch reduces (NCCL's NVLS algorithm) */
	double latency;                 /* s per algorithm step (NCCL/RCCL tuning model, LL protocol) */
	double base_latency;            /* s per collective (the same tables) */
	bool has_bus_bandwidth;         /* published large-message ring bus bandwidth (nccl-tests) */
	double bus_bandwidth;
	bool has_nvls_bus_bandwidth;
	double nvls_bus_bandwidth;
	char pcie[RIDGE_TEXT]; /* "Gen5 x16" */
	double pcie_bandwidth; /* bytes/s, one direction */
	struct ridge_collective_measured measured[RIDGE_COLLECTIVE_COUNT];
	int measured_gpus; /* GPUs the measured latencies were taken on (0: none) */
	/* The system's scale-out NICs (interconnect.nics, .nic_bandwidth: the
	 * compute fabric of the DGX/HGX node this GPU ships in), for the network
	 * per GPU past the fabric domain (model/comm.h). 0 / false: not given. */
	int nics;
	bool has_nic_bandwidth;
	double nic_bandwidth; /* bytes/s, one direction, one NIC */
};

/* "switch", "mesh", "bridge", "pcie"; NULL for UNKNOWN or out of range. */
const char *ridge_topology_name(enum ridge_topology topology);
/* Parses a topology name (case-insensitive). Returns false when unknown. */
bool ridge_topology_parse(const char *text, enum ridge_topology *out);
/* "all-reduce", "all-gather", "reduce-scatter", "all-to-all", "send-recv". */
const char *ridge_collective_name(enum ridge_collective op);
/* "allreduce", ... "sendrecv": the prefix of the op's hwdb calibration keys. */
const char *ridge_collective_key(enum ridge_collective op);

/* Efficiency and fixed cost of one kernel class (model/timing.h), fitted from
 * measured kernels or taken from a sourced public figure: an entry's
 * `timing.<slot>` map. A missing value means "not known", never 1 or 0.
 * The slots follow the classes of timing_classes.h: RIDGE_SLOT_GEMM,
 * RIDGE_SLOT_ATTENTION_FA2, _FA3, _CUDNN, RIDGE_SLOT_NORM, RIDGE_SLOT_SOFTMAX,
 * RIDGE_SLOT_ELEMENTWISE. */
#define RIDGE_SLOT_ENUM_(u, SLOT, NAME, IMPL, key) RIDGE_SLOT_##SLOT,
enum ridge_timing_slot { RIDGE_TIMING_SLOT_LIST(RIDGE_SLOT_ENUM_, ) RIDGE_TIMING_SLOTS };
#undef RIDGE_SLOT_ENUM_

/* Where a time-model value came from (timing.<slot>.provenance and
 * <value>_provenance): MEASURED, fitted here from runs on this GPU model;
 * SOURCED, a public measurement of it (the source names the document, table,
 * hardware and software); TRANSFERRED, carried from another entry by a stated
 * rule. FLOOR: nothing known, the roofline itself; WHAT_IF: the user's
 * --efficiency / --fixed-cost. A file may say the first three only. */
enum ridge_provenance {
	RIDGE_PROVENANCE_FLOOR,
	RIDGE_PROVENANCE_MEASURED,
	RIDGE_PROVENANCE_SOURCED,
	RIDGE_PROVENANCE_TRANSFERRED,
	RIDGE_PROVENANCE_WHAT_IF,
	RIDGE_PROVENANCE_COUNT
};
/* "floor", "measured", "sourced", "transferred", "what-if"; NULL out of range. */
const char *ridge_provenance_name(enum ridge_provenance provenance);
/* Parses one of those names (exact). False when unknown. */
bool ridge_provenance_parse(const char *text, enum ridge_provenance *out);
/* A power.provenance or power.recovery_provenance text's provenance: none
 * given, measured (what the hwdb reader takes a calibration's to be); one it
 * would refuse, transferred (the weaker). */
enum ridge_provenance ridge_power_provenance(const char *text);

/* The values of a timing slot that carry their own origin. */
enum ridge_timing_value {
	RIDGE_TIMING_COMPUTE, /* compute_efficiency */
	RIDGE_TIMING_MEMORY,  /* memory_efficiency */
	RIDGE_TIMING_FIXED,   /* fixed_cost */
	RIDGE_TIMING_ROW,     /* row_time */
	RIDGE_TIMING_CTA,     /* cta_bandwidth */
	RIDGE_TIMING_VALUES
};

/* A value's own provenance and source (<value>_provenance, <value>_source);
 * empty: the slot's. */
struct ridge_timing_origin {
	char provenance[16];
	char source[RIDGE_LONG_TEXT];
};

struct ridge_timing_terms {
	bool has_compute_efficiency, has_memory_efficiency, has_fixed_cost;
	double compute_efficiency; /* fraction of the compute ceiling reached */
	double memory_efficiency;  /* fraction of the binding memory level's bandwidth */
	double fixed_cost_s;       /* per kernel */
	char source[RIDGE_LONG_TEXT];
	char provenance[16]; /* the slot's: "measured", "sourced", "transferred" */
	/* The bytes per second one CTA streams (timing.<slot>.cta_bandwidth).
	 * Attention: from its KV head's cache; a decode kernel with fewer
	 * (request, KV head) units than SMs cannot reach the HBM ceiling: one
	 * unit's cache streams at this rate (model/serve.c). Row kernels (norm,
	 * softmax): its rows, read and written (model/timing.c, cta_stream). */
	/* Row kernels (norms): the time per row and reduction pass when rows, not
	 * bytes, bind (many narrow rows: each row's reduction and launch share of
	 * a CTA), timing.<slot>.row_time; the slot's source says where from. */
	bool has_row_time;
	double row_time_s;
	bool has_cta_bandwidth;
	double cta_bandwidth;
	/* Per value; value[RIDGE_TIMING_CTA].source is cta_bandwidth_source,
	 * which a cta_bandwidth must have. */
	struct ridge_timing_origin value[RIDGE_TIMING_VALUES];
	/* Row kernels of one CTA per row (softmax wider than a warp's rows): the
	 * time a CTA spends on its row beyond streaming it (its block
	 * reductions and the round trips between its phases),
	 * timing.<slot>.cta_latency; with cta_bandwidth it makes the CTA stream
	 * of model/timing.c. Its origin is cta_bandwidth's. */
	bool has_cta_latency;
	double cta_latency_s;
};

struct ridge_gpu {
	char id[RIDGE_TEXT];
	char name[RIDGE_TEXT];
	enum ridge_vendor vendor;
	char arch[RIDGE_TEXT];
	int cc_major, cc_minor;      /* NVIDIA compute capability */
	char gfx_target[RIDGE_TEXT]; /* AMD LLVM target */
	int alias_count;
	char aliases[RIDGE_MAX_ALIASES][RIDGE_TEXT];

	int sm_count; /* SMs (NVIDIA) or CUs (AMD) */
	int warp_size;

	double boost_clock_hz;
	bool has_base_clock;
	double base_clock_hz;
	double matrix_clock_hz; /* the clock the matrix peaks assume */
	double vector_clock_hz; /* the clock the vector peaks assume */

	struct ridge_peak peak[RIDGE_DTYPE_COUNT];

	double memory_bytes; /* the card's memory, its real (binary) size: 80 GiB for an H100 80GB */
	/* What the driver reports as total (nvidia-smi memory.total, rocm-smi VRAM
	 * total): the capacity a process can allocate from, less than the card's
	 * size; fits checks use it where it is known. */
	bool has_usable_memory;
	double usable_memory_bytes;
	double memory_bandwidth; /* bytes/s: the ceiling (a calibration: the best kernel) */
	/* Measured HBM bandwidth by read/write mix, optional (a calibration
	 * supplies them): reads only, 2 reads : 1 write (triad), 1 : 1 (copy),
	 * writes only. DRAM loses time turning the bus around between reads and
	 * writes, so a kernel that writes runs below the read-only rate;
	 * roofline_hbm_bandwidth() interpolates by the write fraction. */
	bool has_read_bandwidth, has_triad_bandwidth, has_copy_bandwidth, has_write_bandwidth;
	double read_bandwidth, triad_bandwidth, copy_bandwidth, write_bandwidth; /* bytes/s */
	char memory_type[RIDGE_TEXT];
	double l2_bytes;
	bool has_infinity_cache;
	double infinity_cache_bytes;
	/* Measured or documented bandwidth of the inner levels for the
	 * hierarchical roofline; optional (a calibration supplies them). */
	bool has_l2_bandwidth, has_smem_bandwidth;
	double l2_bandwidth, smem_bandwidth; /* bytes/s, whole GPU */

	double smem_per_sm;          /* bytes */
	double smem_per_block;       /* default per-block limit, bytes */
	double smem_per_block_optin; /* opt-in per-block limit, bytes */

	int regs_per_sm;
	int regs_per_block;
	int max_threads_per_sm;
	int max_threads_per_block;
	int max_warps_per_sm;
	int max_blocks_per_sm;

	struct ridge_nvidia_occupancy nv; /* valid when vendor == NVIDIA */
	struct ridge_amd_occupancy amd;   /* valid when vendor == AMD */

	double tdp_watts;
	/* Under continuous tensor-core work the GPU holds its burst clock for
	 * power.burst_time, then the power limit lowers the clock until the
	 * matrix rate is power.sustained_matrix_fraction of the burst rate
	 * (ridge-probe --sustained: settled / burst). Optional: without them
	 * every phase runs at the burst rate. */
	bool has_sustained_matrix;
	double sustained_matrix_fraction; /* (0, 1] */
	double burst_time_s;
	char power_source[RIDGE_LONG_TEXT];
	/* measured (ridge-probe on this GPU model), sourced or transferred
	 * (another GPU's, by validation/timing_transfer.py rule W); a
	 * calibration without it: measured */
	char power_provenance[RIDGE_TEXT];
	/* How the burst comes back (power.recovery_*, optional): burst time
	 * regained per second the GPU waits with no work (idle) and per second
	 * of work that is not compute-bound matrix work (busy: memory-bound
	 * kernels). Without them a serving run's every iteration starts rested. */
	bool has_power_recovery, has_power_recovery_busy; /* both or neither (hwdb.c) */
	double power_recovery_idle, power_recovery_busy;
	char power_recovery_provenance[RIDGE_TEXT];
	char power_recovery_source[RIDGE_LONG_TEXT];
	char interconnect[RIDGE_TEXT];
	double interconnect_bandwidth; /* bytes/s, bidirectional, all links of one GPU (the datasheet figure) */
	struct ridge_interconnect ic;  /* what the communication model needs (model/comm.h) */

	double launch_overhead_s; /* host cost of one kernel launch */
	/* The host time per kernel of a framework's eager dispatch (the
	 * Python call, the dispatcher, the launch itself: PyTorch eager issues
	 * one kernel per ~28 us where cudaLaunchKernel alone takes ~4 us);
	 * eager steps issue their kernels at this rate when it is known. */
	bool has_framework_overhead;
	double framework_overhead_s;
	char framework_source[RIDGE_LONG_TEXT];
	double graph_node_s; /* per-node cost of a CUDA/HIP graph replay */
	/* GPU-side fixed cost per kernel (fill, drain, tail), measured by
	 * ridge-probe as the intercept of time against work: of the stream
	 * kernels against bytes, of small library GEMMs against FLOPs. */
	bool has_kernel_fixed_cost, has_gemm_fixed_cost;
	double kernel_fixed_cost_s, gemm_fixed_cost_s;
	struct ridge_timing_terms timing[RIDGE_TIMING_SLOTS];
	char attention_default[RIDGE_TEXT]; /* timing.attention_default: "fa2", "fa3", "cudnn"; empty: fa2 */
	bool has_price;
	double price_usd_per_hour;

	int source_count;
	char sources[RIDGE_MAX_SOURCES][RIDGE_LONG_TEXT];
	int note_count;
	char notes[RIDGE_MAX_NOTES][RIDGE_LONG_TEXT];

	/* Set for calibrations written by ridge-probe: the ceilings above were
	 * measured, not copied from a datasheet. */
	bool measured;
	char measured_on[RIDGE_LONG_TEXT]; /* device, driver, clock, date */
};

/* "fp64", "fp32", ... Returns NULL for an out-of-range value. */
const char *ridge_dtype_name(enum ridge_dtype dtype);
/* Parses a dtype name (case-insensitive). Returns false when unknown. */
bool ridge_dtype_parse(const char *text, enum ridge_dtype *out);
/* Bytes per element: fp4 is 0.5. */
double ridge_dtype_bytes(enum ridge_dtype dtype);
/* "fp64 fp32 tf32 bf16 fp16 fp8 int8 fp4": for error messages. */
const char *ridge_dtype_list(void);

enum ridge_peak_kind { RIDGE_PEAK_DEFAULT, RIDGE_PEAK_VECTOR, RIDGE_PEAK_MATRIX };

/* The peak rate for dtype: the dense matrix rate when the GPU has one (and
 * kind is not VECTOR), else the vector rate; sparse when asked and present.
 * Returns false (and leaves *flops_per_s alone) when the GPU has no such path;
 * why is set to a static explanation. */
bool ridge_gpu_peak(const struct ridge_gpu *gpu, enum ridge_dtype dtype, enum ridge_peak_kind kind, bool sparse,
		    double *flops_per_s, const char **why);

/* The memory a process can use: the driver's total where the entry has it,
 * else the card's size. */
double ridge_gpu_usable_memory(const struct ridge_gpu *gpu);

/* One measured HBM read/write mix of an entry (memory.*_bandwidth). */
struct ridge_hbm_mix {
	const char *key;       /* the hwdb key under memory: "triad_bandwidth" */
	const char *label;     /* "triad 2:1" */
	double write_fraction; /* writes / (reads + writes): 0, 1/3, 1/2, 1 */
	bool has;
	double bandwidth; /* bytes/s, when has */
};
#define RIDGE_HBM_MIXES 4

/* The four mixes in order of write fraction: read, triad, copy, write. */
void ridge_gpu_hbm_mixes(const struct ridge_gpu *gpu, struct ridge_hbm_mix out[RIDGE_HBM_MIXES]);

/* Whether the entry has any measured mix (a calibration; spec sheets have none). */
bool ridge_gpu_has_hbm_mix(const struct ridge_gpu *gpu);

#endif
