/* Matching the device to its hwdb entry, and the device's own properties
 * checked against that entry: every value the device contradicts is flagged.
 * Plain C, no GPU. */
#ifndef RIDGE_PROBE_MATCH_H
#define RIDGE_PROBE_MATCH_H

#include <stdbool.h>

#include "../hwdb/hwdb.h"
#include "../kernels/kernels.h"

struct probe_check {
	char field[40];   /* "sm_count", "l2_bytes", ... */
	double device;    /* the runtime's value */
	double hwdb;      /* the entry's value */
	double tolerance; /* relative; 0: must be equal */
	bool ok;
	char note[200];
};

#define PROBE_MAX_CHECKS 24

/* The entry whose id or alias is the device name (case-insensitive), or NULL. */
const struct hwdb_entry *probe_match(const struct hwdb *db, const struct kern_device *device);

/* Compares the device with the entry; returns the number of checks written. */
int probe_checks(const struct kern_device *device, const struct ridge_gpu *gpu, struct probe_check *out, int max);

#endif
