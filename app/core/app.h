/* What the calculators of the application layer share: reading numbers
 * and names with messages that name the flag, the hardware database as a
 * command or the TUI sees it, files in and out. The front ends (cli/, tui/)
 * build on this; nothing here parses argv or prints. */
#ifndef RIDGE_APP_H
#define RIDGE_APP_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "format.h"
#include "hwdb.h"
#include "json_out.h"
#include "json_strict.h"
#include "models.h"
#include "status.h"

/* Default GPU when --gpu is left out. */
#define APP_DEFAULT_GPU "h100-sxm"

/* Each returns 0, or adds an error naming the flag and the text to st and returns -1. */
int app_parse_quantity(const char *flag, const char *text, enum ridge_unit unit, double *out, struct app_status *st);
/* A finite quantity > 0. */
int app_parse_positive(const char *flag, const char *text, enum ridge_unit unit, double *out, struct app_status *st);
/* An integer in lo..hi (suffixes such as 8K are allowed; fractions are not). */
int app_parse_int(const char *flag, const char *text, long long lo, long long hi, long long *out,
		  struct app_status *st);
int app_parse_dtype(const char *flag, const char *text, enum ridge_dtype *out, struct app_status *st);

/* The hardware database as a command sees it: built-in, user, $RIDGE_HWDB,
 * --hwdb DIR, then --calibration FILE. */
struct app_hw {
	struct hwdb db;
	const char *calibration;         /* file given with --calibration, or NULL */
	char calibration_id[RIDGE_TEXT]; /* the GPU it measured ("h200-sxm"); empty without one */
};

/* Returns 0, or adds every problem (file:line:col) to st and returns -1. The
 * warnings of the load (what was skipped) go to st either way. */
int app_hw_open(struct app_hw *hw, const char *hwdb_dir, const char *calibration, struct app_status *st);
/* Finds name; on failure adds an error suggesting the closest ids. With a
 * calibration of another GPU it adds a warning that name's spec sheet is used. */
const struct hwdb_entry *app_hw_find(const struct app_hw *hw, const char *name, struct app_status *st);
/* The GPU a command uses when --gpu is left out: the calibration's GPU when
 * --calibration was given, else APP_DEFAULT_GPU. */
const char *app_hw_default_gpu(const struct app_hw *hw);
/* app_hw_open, then app_hw_find of gpu (NULL: app_hw_default_gpu): the
 * entry, or NULL with the reason in st and nothing left open. */
const struct hwdb_entry *app_hw_open_gpu(struct app_hw *hw, const char *hwdb_dir, const char *calibration,
					 const char *gpu, struct app_status *st);
void app_hw_close(struct app_hw *hw);
/* "spec sheet" or "measured (...)": which ceilings a calculation used. */
const char *app_ceiling_source(const struct ridge_gpu *gpu);

/* Of the n given values, the index of the one farthest from 1 in magnitude
 * (1e308, 1e-300): the input that most likely made a result overflow, for
 * the message that names it. -1 when none. */
int app_extreme_index(const double *values, const bool *given, int n);

/* Reads a whole text file, NUL-terminated, refusing more than max_bytes (what
 * names the expected content for that message: "model config"). Returns the
 * text (free it), or NULL with the error in st. */
char *app_read_file(const char *path, size_t max_bytes, const char *what, size_t *len, struct app_status *st);
/* The 1-based line and column of text[offset]. */
void app_text_position(const char *text, size_t offset, int *line, int *col);

/* text as one strict JSON document within lim (util/json_strict.h, the one
 * strict reader of the timings, trace and compare files): the document, or
 * NULL with "PATH:LINE:COL: not valid JSON: why" in st (exit 2), or "out of
 * memory reading 'PATH'" (exit 3). */
cJSON *app_json_parse(const char *path, const char *text, size_t len, const struct json_strict_limits *lim,
		      struct app_status *st);
/* The same message for e, in buf: "LINE:COL: not valid JSON: why" (a reader
 * that says it its own way); returns the exit code it calls for. */
int app_json_error_text(const struct json_strict_error *e, char *buf, size_t buf_len);

/* Checks, before any work, that an output file named by flag can be written:
 * a name, not a directory, in a directory that exists and is writable. An
 * unusable path is a usage error (exit 2); a write that fails later (disk
 * full) is an environment error (exit 3). Returns 0, or adds
 * "FLAG: cannot write 'PATH': why" to st and returns -1. */
int app_output_path_ok(const char *flag, const char *path, struct app_status *st);

/* The one rule for outputs and inputs (issue 31): refuses (exit 2) an output
 * named by flag that is, or resolves to (the same device and inode, or the
 * same real path), any of the count inputs of the same command. NULL inputs
 * are skipped. Returns 0, or adds "FLAG: 'OUT' is the input 'IN': ..." to
 * st and returns -1. */
int app_output_not_input(const char *flag, const char *out, const char *const *inputs, int count,
			 struct app_status *st);

/* Writes data to path atomically (temporary file + rename), or adds
 * "cannot write 'path': why" to st (an environment error) and returns -1. */
int app_write_atomic(const char *path, const char *data, size_t len, struct app_status *st);

/* Writes gpu as a calibration file at path only when the hwdb loader reads
 * it back (issue 31: a fit outside the loader's ranges once wrote files
 * every later --calibration refused): formatted, parsed by hwdb_parse, then
 * written atomically. Returns 0, or -1 with "FLAG: ..." in st: the loader's
 * first objection (exit 2), or a write that failed (exit 3). */
int app_write_calibration(const char *flag, const char *path, const struct ridge_gpu *gpu, struct app_status *st);

/* The whole entry as JSON (ridge hw show --json), SI units. */
cJSON *app_gpu_json(const struct ridge_gpu *gpu, const char *origin);

#endif
