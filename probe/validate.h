/* ridge-probe --validate: for every case of the validation suite, ridge's
 * model predicts the time from (a) the spec sheet (the device's hwdb entry,
 * one-level roofline at HBM with the kernel's default traffic: what
 * `ridge roofline` shows without a calibration) and (b) the ceilings this run
 * measured (the calibration probe_calibration_build makes, hierarchical
 * roofline over HBM, L2 and L1/shared memory: what `ridge roofline
 * --calibration` shows), and sets both beside the measured median.
 *
 *   error = (predicted - measured) / measured   (+0.10: the model said 10 % slower)
 *
 * Plain C, no GPU: a saved run (--replay) gives the same table. */
#ifndef RIDGE_PROBE_VALIDATE_H
#define RIDGE_PROBE_VALIDATE_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "../model/models.h"
#include "probe.h"

#define PROBE_MAX_VALIDATION 128

enum probe_vgroup { PROBE_VG_STREAM, PROBE_VG_GEMM, PROBE_VG_BLAS, PROBE_VG_FUSED, PROBE_VG_LAUNCH, PROBE_VG_COUNT };

/* "stream", "fp32_gemm", "library_gemm", "fused", "launch". */
const char *probe_vgroup_name(enum probe_vgroup g);

struct probe_prediction {
	bool ok;
	double predicted_s;
	double error;     /* (predicted - measured) / measured */
	char binding[40]; /* "HBM", "L2", "shared memory", "compute", "launch (host)", "graph replay" */
	double compute_s; /* FLOPs over the compute ceiling (0 for launch cases) */
	double level_s[RIDGE_LEVEL_COUNT]; /* bytes over bandwidth per level; < 0: not placed */
	double peak_flops;                 /* the compute ceiling used */
	enum ridge_dtype dtype;            /* its dtype and path */
	bool matrix;
	char why[200]; /* why there is no prediction */
	/* The time model (model/timing.h) on the same shape: the kernel class's
	 * efficiencies and fixed cost over the floor. */
	bool has_time_model;
	double predicted_time_s, time_model_error;
};

struct probe_vcase {
	const struct probe_measurement *m;
	enum probe_vgroup group;
	char kernel[48]; /* the measurement's name */
	char shape[64];  /* "working set 1 MiB", "4096x4096x4096", "16384 x 8192", "100 kernels" */
	char model[48];  /* the model's kernel: "vector-add", "gemm-naive", ..., "launch (eager)" */
	bool roofline;   /* counts toward the target (stream, large GEMM, GEMV, fused element-wise) */
	double measured_s;
	double cv;
	double flops;
	double default_bytes;                  /* the single-level (default traffic) bytes */
	double level_bytes[RIDGE_LEVEL_COUNT]; /* hierarchical bytes; < 0: not modelled */
	struct probe_prediction spec, cal;
	/* Library GEMMs: ridge align's verdict on the dimensions it checks
	 * (features N and reduction K; the token count is not a leading dimension). */
	bool has_align;
	char align[16]; /* "ok", "warning", "error" */
	double penalty; /* achieved FLOP/s of the aligned reference shape over this one's; 0: none */
	char note[240];
	/* For a case whose calibrated error is above 25 %: the effect the model
	 * leaves out, from what the suite measured (ncu, the other cases). */
	char why[300];
};

struct probe_vgroup_summary {
	int count, predicted;
	double median_abs_error, median_abs_error_spec;
	int over_25; /* cases with |calibrated error| > 25 % */
};

struct probe_validation {
	bool has_spec, has_calibration;
	char calibration_note[200]; /* what the calibrated predictions used, or why there are none */
	int count;
	struct probe_vcase cases[PROBE_MAX_VALIDATION];
	struct probe_vgroup_summary groups[PROBE_VG_COUNT];
	/* The target: median |error| over the roofline cases (calibrated). */
	int roofline_count;
	double roofline_median_abs_error, roofline_median_abs_error_spec;
};

/* spec: the device's hwdb entry (NULL: no spec predictions); cal: the
 * calibration of the same run (NULL: none). Returns the number of cases. */
int probe_validation_build(const struct probe_result *r, const struct ridge_gpu *spec, const struct ridge_gpu *cal,
			   struct probe_validation *out);

/* The `validation` array (keys of shared/spec/cli.md plus the model's detail). */
cJSON *probe_validation_json(const struct probe_validation *v);
/* The summary object (`validation_summary`). */
cJSON *probe_validation_summary_json(const struct probe_validation *v);

/* One table per group, then the summary. */
void probe_validation_text(const struct probe_validation *v, FILE *out);

#endif
