/* A calibration: the device's hwdb entry with the ceilings ridge-probe
 * measured in place of the datasheet's, written in hwdb format so that
 * `ridge --calibration FILE` and `--hwdb DIR` load it. Plain C, no GPU. */
#ifndef RIDGE_PROBE_CALIB_H
#define RIDGE_PROBE_CALIB_H

#include "report.h"

/* Builds the calibration from the report (which must have a matched hwdb
 * entry). Measured: memory bandwidth (best HBM kernel), L2 and shared-memory
 * bandwidth, the fp32/fp64/fp16 vector rates, the bf16/fp16/tf32/fp8 matrix
 * rates (library GEMM), launch overhead and graph-node cost; the device's own
 * SM count, L2 size, shared-memory and register sizes replace the entry's.
 * Sparse rates of measured dtypes are dropped (not measured); everything else
 * stays as in the entry and the notes say so. Returns 0, or -1 with err. */
int probe_calibration_build(const struct probe_report *rep, struct ridge_gpu *out, char *err, size_t err_len);

/* Builds the calibration and checks that its text loads back (what
 * probe_calibration_write does before writing): 0, or -1 with err. An input
 * problem of the run, found before any output (exit 2), not after. */
int probe_calibration_check(const struct probe_report *rep, const char *path, struct ridge_gpu *g, char *err,
			    size_t err_len);
/* Builds it, writes it atomically to path (hwdb_write_file) and loads it back
 * to prove it loads. Returns 0, or -1 with err. */
int probe_calibration_write(const struct probe_report *rep, const char *path, char *err, size_t err_len);

#endif
