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

#define PROBE_MAX_CEILINGS 24

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
	double power_w;	  /* highest power read while it ran; 0: not read */
	const struct probe_measurement *from;
};

struct probe_ridge {
	enum ridge_dtype dtype;
	const char *kind; /* "vector" or "matrix" */
	bool has_spec, has_measured;
	double spec, measured; /* FLOP/byte */
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
	int occupancy_model[8];	      /* the model's blocks per SM for each of them */
	int occupancy_disagree_count; /* entries filled above */
	int failures;		      /* measurements that ran and failed (not unsupported) */
	int high_cv;		      /* ceilings and launch costs with CV > 5 % */
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
