/* ridge-probe's data: what one run measured, in a form that is plain C, can be
 * written to JSON and read back (--replay), and from which every derived
 * number (ceilings, ridge points, L2 plateau, calibration) is recomputed.
 * Nothing here needs a GPU. */
#ifndef RIDGE_PROBE_H
#define RIDGE_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include "../kernels/kernels.h"
#include "stats.h"

#define PROBE_MAX_MEASUREMENTS 256
#define PROBE_MAX_OCCUPANCY 4096
#define PROBE_MAX_NOTES 16
#define PROBE_NOTE 256

/* Clocks and power read (NVML) while one measurement ran. */
struct probe_env {
	int samples;
	double clock_mhz_median, clock_mhz_min, clock_mhz_max;
	double power_w_median, power_w_max;
	unsigned long long clock_events; /* OR of nvmlDeviceGetCurrentClocksEventReasons */
};

struct probe_measurement {
	char name[48]; /* kern_id_name() */
	enum kern_id id;
	bool sweep;      /* a point of a sweep (L2 working sets, GEMM shapes), not the headline run */
	bool validation; /* a case of the validation suite (--validate): the model predicts its time */
	bool sustained;  /* a window of --sustained: one timed window, at_s seconds into that kernel's run */
	double at_s;
	bool ok; /* verified and timed */
	bool unsupported;
	char error[KERN_METHOD * 2];
	int repeats;
	double seconds[KERN_MAX_REPEATS];
	double work, bytes;
	long m, n, k;
	double verify_error, verify_tolerance;
	char method[KERN_METHOD];
	struct probe_env env;
	/* Derived by probe_measurement_derive(). */
	struct probe_stats stats;
	double rate; /* work / median seconds: bytes/s or FLOP/s; launch ids: median seconds */
};

struct probe_result {
	char version[16];
	char date[32]; /* UTC, ISO 8601 */
	unsigned long long seed;
	bool quick;
	struct kern_device device;
	/* NVML (absent on AMD or without the library). */
	bool nvml;
	char driver[64]; /* NVML system driver version, e.g. "580.159.04" */
	double max_sm_clock_mhz;
	double power_limit_w;
	int count;
	struct probe_measurement m[PROBE_MAX_MEASUREMENTS];
	int occupancy_count;
	struct kern_occupancy_row occupancy[PROBE_MAX_OCCUPANCY];
	int note_count;
	char notes[PROBE_MAX_NOTES][PROBE_NOTE];
};

/* Fills stats and rate from the samples; ok stays as it is. */
void probe_measurement_derive(struct probe_measurement *m);

/* Adds a note (dropped silently past PROBE_MAX_NOTES). */
void probe_note(struct probe_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
