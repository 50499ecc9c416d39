/* What ridge-probe reports, derived from a raw result and the device's hwdb
 * entry: ceilings beside the spec sheet, ridge points, launch costs, the L2
 * plateau, the GEMM sweep and the hwdb checks; as a human table or JSON.
 * Plain C, no GPU (the same code renders a live run and --replay). */
#ifndef RIDGE_PROBE_REPORT_H
#define RIDGE_PROBE_REPORT_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "../model/gpu.h"
#include "match.h"
#include "probe.h"

#define PROBE_MAX_CEILINGS 32
#define PROBE_MAX_LATENCY 16
#define PROBE_MAX_SUSTAINED 4

struct probe_ceiling {
	char name[40];
	char unit[12]; /* "B/s", "FLOP/s" */
	double measured;
	bool has_spec;
	double spec;
	double fraction; /* measured / spec */
	char spec_source[160];
	char method[KERN_METHOD + 160];
	int repeats;
	double cv;
	double clock_mhz; /* median SM clock while it ran; 0: not read */
	double power_w;   /* highest power read while it ran; 0: not read */
	const struct probe_measurement *from;
	/* Library GEMM ceilings: the best of `shapes` GEMMs of the kind the probe
	 * timed (m x n x k of the best: cuBLAS's m = output features); 0 otherwise. */
	int shapes;
	long shape_m, shape_n, shape_k;
};

struct probe_ridge {
	enum ridge_dtype dtype;
	const char *kind; /* "vector" or "matrix" */
	bool has_spec, has_measured;
	double spec, measured; /* FLOP/byte */
};

/* One pointer-chase point (kernels/cuda/latency.cu). */
struct probe_latency {
	char level[40];   /* "L1", "L2", "HBM", "shared memory", "TLB reach" */
	double bytes;     /* working set */
	double stride;    /* bytes between chain elements */
	double seconds;   /* median per dependent load */
	double cycles;    /* seconds x the SM clock read while it ran (NVML), else the runtime's */
	double clock_mhz; /* the clock used for cycles */
	double cv;
	const struct probe_measurement *from;
};

/* The near and far L2 partition, from the per-load latencies of one chase. */
struct probe_l2_split {
	bool found;           /* a latency_hops measurement was there */
	bool differ;          /* the two groups differ by more than 10 % */
	double near_s, far_s; /* group centres, seconds (device clock) */
	double near_cycles, far_cycles;
	double near_fraction; /* share of the loads in the near group */
};

/* time = fixed + work / rate, least squares over small kernels. */
struct probe_fixed_fit {
	bool has; /* at least 3 points and a positive intercept */
	int points;
	double fixed_s;
	double rate; /* 1 / slope: bytes/s or FLOP/s */
	double from_work, to_work;
};

/* A --sustained run of one kernel: windows back to back. */
struct probe_sustained {
	char name[48];
	const char *unit;
	int first, windows;                              /* indexes into r->m */
	double burst;                                    /* the headline measurement's rate (0: not measured) */
	double first_rate, last_rate, min_rate, settled; /* settled: median of the last third */
	double clock_first, clock_last, clock_min, power_max;
	double seconds; /* at_s of the last window */
	unsigned long long clock_events;
};

enum probe_launch_kind { PROBE_LAUNCH, PROBE_LAUNCH_SYNC, PROBE_GRAPH_NODE, PROBE_GRAPH_LAUNCH, PROBE_LAUNCH_KINDS };

struct probe_report {
	const struct probe_result *r;
	const struct ridge_gpu *spec; /* the matched hwdb entry, or NULL */
	int ceiling_count;
	struct probe_ceiling ceilings[PROBE_MAX_CEILINGS];
	int ridge_count;
	struct probe_ridge ridge[8];
	bool has_launch[PROBE_LAUNCH_KINDS];
	double launch_s[PROBE_LAUNCH_KINDS], launch_cv[PROBE_LAUNCH_KINDS];
	bool has_sweep;
	struct probe_plateau plateau;
	int check_count;
	struct probe_check checks[PROBE_MAX_CHECKS];
	/* ridge's occupancy model (model/occupancy.h, on the hwdb entry) against
	 * each runtime answer recorded in r->occupancy. */
	int occupancy_compared, occupancy_agree;
	int occupancy_disagree[8];    /* indexes into r->occupancy, the first few */
	int occupancy_model[8];       /* the model's blocks per SM for each of them */
	int occupancy_disagree_count; /* entries filled above */
	int latency_count;
	struct probe_latency latency[PROBE_MAX_LATENCY];
	struct probe_l2_split l2_split;
	struct probe_fixed_fit kernel_fixed, gemm_fixed;
	int sustained_count;
	struct probe_sustained sustained[PROBE_MAX_SUSTAINED];
	/* Every measured ceiling against its hwdb value: a datasheet value the
	 * device exceeds by more than 5 % is contradicted (ok false). */
	int rate_check_count;
	struct probe_check rate_checks[PROBE_MAX_CEILINGS];
	double launch_min[PROBE_LAUNCH_KINDS], launch_max[PROBE_LAUNCH_KINDS];
	int failures; /* measurements that ran and failed (not unsupported) */
	int high_cv;  /* ceilings and launch costs with CV > 5 % */
};

/* Derives the report. spec may be NULL (no hwdb entry: no spec column). */
void probe_report_build(const struct probe_result *r, const struct ridge_gpu *spec, struct probe_report *out);

/* The ceiling of that name, or NULL. */
const struct probe_ceiling *probe_report_ceiling(const struct probe_report *rep, const char *name);

/* The whole --json document. */
cJSON *probe_report_json(const struct probe_report *rep);

/* The human report. */
void probe_report_text(const struct probe_report *rep, FILE *out);

#endif
