/* The raw result as JSON and back: what --json writes under "device",
 * "measurements", "occupancy" and "notes", and what --replay reads. */
#ifndef RIDGE_PROBE_RESULT_H
#define RIDGE_PROBE_RESULT_H

#include <cjson/cJSON.h>

#include "probe.h"

/* Adds the raw parts of r to doc (an object). hwdb_id may be NULL. */
void probe_result_json_device(const struct probe_result *r, const char *hwdb_id, cJSON *doc);
void probe_result_json_raw(const struct probe_result *r, cJSON *doc);

/* Reads a document written by ridge-probe --json. Returns 0, or -1 with a
 * message naming what is missing or malformed. Derived values are recomputed. */
int probe_result_from_json(const char *text, size_t len, struct probe_result *r, char *err, size_t err_len);

/* Adds a number, or null when it is not finite (JSON has no NaN). */
cJSON *probe_json_number(cJSON *object, const char *key, double value);

#endif
