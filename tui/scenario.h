/* Scenario files: the format `ridge eval` reads (examples/README.md,
 * "Scenario files"), loaded with eval's own loader (app/core/eval.h) so every key,
 * unit, model-section default and error message is the same, and written
 * back with one item per panel. */
#ifndef RIDGE_TUI_SCENARIO_H
#define RIDGE_TUI_SCENARIO_H

#include <stddef.h>

#include "state.h"

/* A scenario item kind the explorer has a panel (and mode) for. One kind
 * may serve two modes ("roofline": an intensity, or a GEMM kernel). */
struct tui_kind {
	const char *kind; /* "cost-train" */
	enum tui_panel_id panel;
	int mode;
	const char *title; /* item name when saving */
};

/* Loads the first item of each panel mode the explorer can show into s->in
 * (and the GPU the items run on). Returns 0, or -1 with s unchanged and in st
 * the problems in the file (file:line:col), then a one-line summary.
 * hwdb_dir and calibration as for `ridge eval`. */
struct app_status;
int scenario_load(struct tui_state *s, const char *path, const char *hwdb_dir, const char *calibration,
		  struct app_status *st);

/* Every item of a supported kind, each loaded into a copy of base and
 * computed: fn gets the item's index, name and kind. Returns 0, fn's non-zero
 * return, or -1 with why in st. */
typedef int (*scenario_item_fn)(void *ctx, const struct tui_state *s, int index, const char *name,
				const struct tui_kind *kind);
int scenario_each(const struct tui_state *base, const char *path, const char *hwdb_dir, const char *calibration,
		  scenario_item_fn fn, void *ctx, struct app_status *st);

/* Writes the current what-if to path atomically (app_write_atomic): the GPU
 * and one item per panel whose kind `ridge eval` knows. Returns 0, or -1
 * with why in st. */
int scenario_save(const struct tui_state *s, const char *path, struct app_status *st);

#endif
