/* ridge fleet's reader: every ridge-probe result (--json, or what
 * `ridge-probe --out-dir DIR` writes: DIR/<host>-gpu<N>.json) of a directory,
 * reduced to one row of numbers per GPU: each ceiling's measured rate, the
 * launch costs, the pointer-chase latencies, the SM clock and the power
 * during the run.
 *
 * Only the top-level members the fleet uses are parsed (tool, version,
 * device, placement, ceilings, launch, latency); the others (the raw times,
 * the occupancy table: most of a result) are only checked for closed
 * strings and brackets and skipped, so a 10,000-GPU directory reads in
 * seconds (docs/cli-extensions.md has the rule and bench/README.md the
 * timing). A file is refused, with its name and why, when it is over
 * READ_MAX_FLEET_RESULT_BYTES, not JSON, has a key twice in one object, is
 * not a ridge-probe result, or claims a GPU (UUID, else host and index)
 * another file claims. fleet_read.c reads one result; fleet_dir.c a
 * directory, on a reader thread per core. */
#ifndef RIDGE_FLEET_READ_H
#define RIDGE_FLEET_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "fleet.h"

#define FLEET_MAX_METRICS 64
#define FLEET_NAME 64
#define FLEET_FILE 256

struct fleet_metric {
	char name[FLEET_NAME]; /* a ceiling's name ("hbm_bandwidth"), "launch", "latency_hbm", "sm_clock", "power" */
	char unit[16];         /* SI: "B/s", "FLOP/s", "s", "Hz", "W" */
	enum ridge_direction direction;
};

struct fleet_gpu {
	char file[FLEET_FILE]; /* the file's name in its directory */
	char host[FLEET_NAME];
	int gpu_index;          /* the GPU's index on its host; -1 when the result does not say */
	char uuid[96];          /* "" when the result does not say */
	char model[FLEET_NAME]; /* the hwdb id, or the device's name when the probe matched none */
	char device_name[FLEET_NAME];
	bool known_model;                /* the probe matched a hwdb entry */
	char version[32];                /* ridge-probe's */
	double value[FLEET_MAX_METRICS]; /* NaN: not measured */
	double spec[FLEET_MAX_METRICS];  /* the spec sheet's, as the probe read it from hwdb; NaN: none */
	/* Reading: the metrics in the order the file gave them, and the
	 * file's place in the directory (the merge of the readers' rows). */
	unsigned char metric_order[FLEET_MAX_METRICS];
	int metric_order_count;
	int file_index;
};

struct fleet_bad_file {
	char file[FLEET_FILE];
	char why[400];
};

struct fleet_run {
	const char *dir;
	int metric_count;
	struct fleet_metric metrics[FLEET_MAX_METRICS];
	int metric_hint; /* where the next lookup tries first */
	int count, capacity;
	struct fleet_gpu *gpus; /* in file-name order */
	int bad_count, bad_capacity;
	struct fleet_bad_file *bad; /* the files refused, in file-name order */
	int files;                  /* *.json files seen */
};

struct app_status;
/* Reads every *.json file of dir (not those starting with '.': the atomic
 * writers' temporaries), on as many threads as there are cores (up to 8;
 * fleet_dir.c): the result is the same as one reader's, file by file. A file that cannot be read as a result is listed in
 * run->bad; so is the second of two files claiming one GPU. Returns 0, or -1
 * with st set when dir cannot be read, holds more than READ_MAX_FLEET_FILES
 * results or too many distinct ceilings, or memory runs out. Free with
 * fleet_run_free either way. */
int fleet_run_read(const char *dir, struct fleet_run *run, struct app_status *st);
void fleet_run_free(struct fleet_run *run);

/* One result's text into gpu (metrics registered in run). file names it in
 * messages. Returns 0, or -1 with why. For the tests and the fuzz harness. */
int fleet_result_parse(const char *text, size_t len, const char *file, struct fleet_run *run, struct fleet_gpu *gpu,
		       char *why, size_t why_len);

/* The index of metric name in run, or -1. */
int fleet_metric_find(const struct fleet_run *run, const char *name);
/* The index of metric name, registered on first sight; -1 with why when its
 * unit differs from the one registered, or the table is full. */
int fleet_metric_register(struct fleet_run *run, const char *name, const char *unit, enum ridge_direction direction,
			  char *why, size_t why_len);

#endif
