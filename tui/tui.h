/* ridge tui: the entry points cli/cmd_tui.c calls (tui_main, tui_print_keys),
 * and the pieces the tests drive. */
#ifndef RIDGE_TUI_H
#define RIDGE_TUI_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#include "calc.h"
#include "params.h"
#include "state.h"

struct app_status;

/* What `ridge tui` was asked for (cli/cmd_tui.c parses the arguments). */
struct tui_options {
	const char *gpu, *hwdb_dir, *calibration; /* NULL: not given */
	const char *file;                         /* the scenario file, or NULL */
	bool dump, bench;
	int lines, cols, presses; /* --bench's screen and key presses */
};

/* ridge tui after its arguments: the hardware database, the GPU to start on,
 * the state, then --dump (JSON on out), --bench (the table on out) or the
 * explorer on terminal (the raw stdout). Returns an exit code; what went
 * wrong (and the warnings of the loads) is in st, for the front end to print
 * once the terminal is its own again. */
int tui_main(const struct tui_options *opt, FILE *terminal, FILE *out, struct app_status *st);

/* The interactive explorer on the terminal; returns an exit code, why it
 * could not start in st. The terminal is restored on every way out, signals
 * included. */
int tui_run(struct tui_state *s, FILE *terminal, struct app_status *st);

/* Loads the scenario file path into s (its items become the panels'
 * inputs) and remembers it for saving. Returns 0, or -1 with why in st. */
int tui_open_scenario(struct tui_state *s, const char *path, const char *hwdb_dir, const char *calibration,
		      struct app_status *st);

/* Key press -> state update + redraw into an off-screen terminal (newterm on
 * /dev/null) for every panel, lines x cols; prints per-panel median and max
 * in microseconds. Returns an exit code, why not in st. */
int tui_bench(struct tui_state *s, int lines, int cols, int presses, FILE *out, struct app_status *st);

/* No terminal: each item of the scenario at path that a panel shows, loaded
 * into a copy of s and computed by tui_state_compute(), printed on out as
 * one JSON document with the result keys of `ridge eval --json`. Returns an
 * exit code, the problems in st. */
int tui_dump(const struct tui_state *s, const char *path, const char *hwdb_dir, const char *calibration, FILE *out,
	     struct app_status *st);
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

/* What the status line shows of a status: its first error with its
 * location ("x.yaml:3:7: unknown key 'foo' ..."), or "" when it holds none. */
void tui_status_text(const struct app_status *st, char *buf, size_t len);

/* Restores the terminal if the explorer holds it; safe to call any time.
 * Call before printing a fatal message. */
void tui_restore_terminal(void);

/* ridge tui's options and --help (tui.c; cli/cmd_tui.c reads them into a
 * struct tui_options). --size and --presses are checked after the loop,
 * with their own messages. */
#define TUI_PARAMS(X)                                                                                               \
	CALC_GPU_ROWS(X, TUI)                                                                                       \
	X(TUI_DUMP,                                                                                                 \
	  PARAM_FLAG_ROW("dump", .flags = PARAM_CLI_ONLY, .help = "print the panels' values as one JSON document")) \
	X(TUI_BENCH,                                                                                                \
	  PARAM_FLAG_ROW("bench", .flags = PARAM_CLI_ONLY, .help = "time key press -> update + redraw off-screen")) \
	X(TUI_SIZE, PARAM_TEXT_ROW("size", .flags = PARAM_CLI_ONLY, .metavar = "COLSxLINES",                        \
				   .help = "--bench screen size", .def = "100x30"))                                 \
	X(TUI_PRESSES, PARAM_TEXT_ROW("presses", .flags = PARAM_CLI_ONLY, .metavar = "N",                           \
				      .help = "--bench key presses per panel", .def = "500"))                       \
	X(TUI_KEYS,                                                                                                 \
	  PARAM_FLAG_ROW("keys", .flags = PARAM_CLI_ONLY, .help = "print the key bindings as a Markdown table"))
PARAMS_ENUM(tui_params, TUI_PARAMS);
extern const struct params_command tui_params_command;

#endif
