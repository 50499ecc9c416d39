/* A GPU with every row of the hwdb schema table (hwdb/schema.h) set: what
 * the round-trip (test_hwdb.c) and JSON (test_app_gpu_json.c) tests feed the
 * writer and app_gpu_json, so that a row added to the table is covered
 * without touching them. */
#ifndef RIDGE_TEST_SCHEMA_FILL_H
#define RIDGE_TEST_SCHEMA_FILL_H

#include "schema.h"

/* Starts from the built-in entry id (its peaks, vendor and compute
 * capability stay) and gives every row its vendor may have a value of its
 * own inside the row's range: strings "<key>-<n>", numbers a third of the way
 * from min to max, lists two items, bools true, the measured mark; gates
 * (ic.has_fabric) are opened. The values are in range, not plausible
 * together: the cross-field checks may well complain. */
void test_fill_every_field(const char *id, struct ridge_gpu *gpu);

#endif
