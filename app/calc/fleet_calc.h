/* ridge fleet: which GPUs of a fleet fall short of the others. The results
 * of a directory (fleet_read.h) are grouped by GPU model; for each ceiling
 * of a group the fleet's median, P5-P95 and MAD (model/fleet.h), and the
 * GPUs short of the median by the threshold or more (5 % by default; a
 * latency: over it), or under --spec-floor x the spec sheet; the hosts whose
 * every GPU is short on one ceiling (the node view: cooling, power, a
 * throttled host); and, given a second run of the same fleet, each
 * ceiling's fleet median before and after by ridge compare's noise rule. */
#ifndef RIDGE_FLEET_CALC_H
#define RIDGE_FLEET_CALC_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#include "compare.h"
#include "fleet_read.h"
#include "params.h"

struct fleet_options {
	double threshold;   /* a fraction: 0.05 */
	double spec_floor;  /* a fraction of the spec sheet; 0: no spec check */
	const char *metric; /* comma-separated ceiling names; NULL: all */
};

struct fleet_flag {
	int gpu;    /* index into the run */
	int metric; /* index into the run's metrics */
	double value;
	double shortfall; /* against the group's median: 0.08 is 8 % worse */
	bool below_median, below_spec;
};

struct fleet_stat {
	int metric;
	struct ridge_spread spread;
	double spec;   /* the spec sheet's value (the GPUs' median); NaN: none */
	double stddev; /* the sample standard deviation over the GPUs (ridge compare's noise) */
	int flagged;
};

struct fleet_node {
	char host[FLEET_NAME];
	int gpus;
	int metric_count;
	int metrics[FLEET_MAX_METRICS];
	double shortfall[FLEET_MAX_METRICS]; /* the median of its GPUs' shortfalls */
};

struct fleet_group {
	char model[FLEET_NAME], device_name[FLEET_NAME];
	bool known_model;
	int gpu_count, host_count;
	int *gpus; /* indices into the run, by host and GPU index */
	int stat_count;
	struct fleet_stat stats[FLEET_MAX_METRICS];
	int flag_count;
	struct fleet_flag *flags; /* by GPU, then metric */
	int *flag_start;          /* the flags of the GPU at position k: flag_start[k] .. flag_start[k + 1] */
	int flagged_gpus;
	int node_count;
	struct fleet_node *nodes;
	int version_count;  /* distinct ridge-probe versions */
	char versions[120]; /* "0.1.0, 0.2.0" */
};

struct fleet_analysis {
	const struct fleet_run *run;
	struct fleet_options options;
	bool selected[FLEET_MAX_METRICS];
	int group_count;
	struct fleet_group *groups;
	int flagged_gpus, flagged_nodes;
};

struct app_status;
/* Analyses run under options. Returns 0, or -1 with st set (an unknown
 * --metric, no result at all, out of memory). fleet_analysis_free either way. */
int fleet_analyze(const struct fleet_run *run, const struct fleet_options *options, struct fleet_analysis *out,
		  struct app_status *st);
void fleet_analysis_free(struct fleet_analysis *a);

/* ---- two runs of one fleet: DIR (before) and DIR2 (after) ---- */

struct fleet_change {
	const struct fleet_group *base_group, *after_group;
	const struct fleet_stat *base, *after;
	struct compare_series base_series, after_series;
	double delta, delta_fraction;
	enum compare_verdict verdict;
};

#define FLEET_MISSING_LISTED 20

struct fleet_comparison {
	int count;
	struct fleet_change *changes;
	int verdicts[COMPARE_REGRESSION + 1];
	int only_base, only_after;               /* GPUs (by UUID, else host and index) in one run only */
	char missing[FLEET_MISSING_LISTED][200]; /* the first of them: "host gpu3 (only before)" */
	int missing_listed;
};

/* Pairs the groups by model and the ceilings by name, deciding each by
 * compare_decide (threshold: 3 %, ridge compare's). Returns 0, or -1 with st. */
int fleet_compare(const struct fleet_analysis *base, const struct fleet_analysis *after, struct fleet_comparison *out,
		  struct app_status *st);
void fleet_comparison_free(struct fleet_comparison *c);

/* ---- views (app/view/fleet_view.c) ---- */

void fleet_print(FILE *out, const struct fleet_analysis *a, const struct fleet_comparison *c,
		 const struct fleet_analysis *base);
cJSON *fleet_json(const struct fleet_analysis *a, const struct fleet_comparison *c, const struct fleet_analysis *base);
/* One strip plot per ceiling and group: each GPU a point at its distance
 * from the median, the flagged ones labelled host/gpuN. */
int fleet_svg(const struct fleet_analysis *a, const char *path, struct app_status *st);

/* "host gpu3", or "host" when the index is not known. */
void fleet_gpu_label(const struct fleet_gpu *g, char *buf, size_t len);

#define FLEET_PARAMS(X)                                                                                        \
	X(FLEET_METRIC, PARAM_TEXT_ROW("metric", .metavar = "NAME[,NAME...]",                                  \
				       .help = "only these ceilings (hbm_bandwidth, bf16_matrix, launch, "     \
					       "latency_hbm, sm_clock, ...)"))                                 \
	X(FLEET_THRESHOLD, PARAM_FRAC("threshold", 0, 1, .flags = PARAM_OPEN_LO, .metavar = "PCT",             \
				      .help = "flag a GPU this far short of its fleet's median (default 5%)")) \
	X(FLEET_SPEC_FLOOR, PARAM_FRAC("spec_floor", 0, 1, .flags = PARAM_OPEN_LO, .metavar = "PCT",           \
				       .help = "also flag a ceiling under this fraction of the spec sheet "    \
					       "(default: no spec check)"))                                    \
	X(FLEET_SKIP_BAD, PARAM_FLAG_ROW("skip_bad", .help = "report unreadable results as findings (exit 1) " \
							     "and go on, instead of exit 2"))                  \
	X(FLEET_SVG, PARAM_TEXT_ROW("svg", .metavar = "FILE", .help = "write the strip plots as SVG"))         \
	X(FLEET_JSON, CALC_JSON_ROW)
PARAMS_ENUM(fleet_params, FLEET_PARAMS);
extern const struct params_command fleet_params_command;

#endif
