/* ridge roofline --validation FILE: the cases of a `ridge-probe --validate
 * --json` document placed on the roofline of a GPU (a calibration, usually
 * the one written by the same run): each measured point (achieved FLOP/s at
 * its HBM intensity) beside the model's predicted point (FLOP/s at the
 * predicted time), a table of both, and the plot. */
#ifndef RIDGE_ROOFLINE_VALIDATION_H
#define RIDGE_ROOFLINE_VALIDATION_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "models.h"

/* group: only the cases of that group ("stream", "fp32_gemm", "library_gemm",
 * "fused"), or NULL for all. With json_doc, the result is the --json document
 * put there (the caller prints and frees it); without, the table is printed
 * on out. Returns an exit code (EXIT_OK, EXIT_USAGE for a bad file or
 * group, EXIT_ENV when the plot cannot be written), the errors in st. */
struct app_status;
int roofline_validation_run(FILE *out, const char *file, const char *group, const struct ridge_gpu *gpu,
			    const char *svg, cJSON **json_doc, struct app_status *st);

/* The loader alone, on text in memory (len bytes; path names it in messages),
 * for the fuzz harness: every case checked as the command checks it. Returns
 * EXIT_OK with *count cases placed, or EXIT_USAGE with the error in st. */
int roofline_validation_check(const char *path, const char *text, size_t len, const struct ridge_gpu *gpu, int *count,
			      struct app_status *st);

#endif
