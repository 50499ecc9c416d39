/* ridge tui: the entry points cli/cmd_tui.c calls. */
#ifndef RIDGE_TUI_H
#define RIDGE_TUI_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "state.h"

/* The interactive explorer on the terminal; returns an exit code. The
 * terminal is restored on every way out, signals included. */
int tui_run(struct tui_state *s, FILE *terminal);

/* Loads the scenario file path into s (its items become the panels'
 * inputs) and remembers it for saving. Returns 0, or -1 with err set. */
int tui_open_scenario(struct tui_state *s, const char *path, const char *hwdb_dir, const char *calibration, char *err,
		      size_t err_len);

/* Key press -> state update + redraw into an off-screen terminal (newterm on
 * /dev/null) for every panel, lines x cols; prints per-panel median and max
 * in microseconds. Returns an exit code. */
int tui_bench(struct tui_state *s, int lines, int cols, int presses, FILE *out);

/* No terminal: each item of the scenario at path that a panel shows, loaded
 * into a copy of s and computed by tui_state_compute(), printed as one JSON
 * document with the result keys of `ridge eval --json`. Returns an exit code. */
int tui_dump(const struct tui_state *s, const char *path, const char *hwdb_dir, const char *calibration);
/* The result object --dump prints for a state computed with an item of kind
 * (caller frees), and the panel's error when its computation failed (else NULL). */
struct tui_kind;
cJSON *tui_dump_result(const struct tui_state *s, const struct tui_kind *kind);
const char *tui_panel_error(const struct tui_state *s, enum tui_panel_id panel);

/* The key table as a Markdown table (for tui/README.md). */
void tui_print_keys(FILE *out);

/* Reads a model config (HF config.json or YAML) into s->model_config for the
 * alignment panel. Returns 0, or -1 with the reader's message in err. */
int tui_load_model_config(struct tui_state *s, const char *path, char *err, size_t err_len);

/* stderr caught in a temporary file while the screen is ours (the loaders
 * report problems there): end hands back the first message, without the
 * "ridge: error: " prefix. */
struct tui_capture {
	FILE *file;
	int saved_fd;
};
void tui_capture_begin(struct tui_capture *c);
void tui_capture_end(struct tui_capture *c, char *message, size_t len);

/* Restores the terminal if the explorer holds it; safe to call any time.
 * Call before printing a fatal message. */
void tui_restore_terminal(void);

#endif
