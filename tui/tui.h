/* ridge tui: the entry points cli/cmd_tui.c calls. */
#ifndef RIDGE_TUI_H
#define RIDGE_TUI_H

#include <stdio.h>

#include "state.h"

/* The interactive explorer on the terminal; returns an exit code. The
 * terminal is restored on every way out, signals included. */
int tui_run(struct tui_state *s);

/* Key press -> state update + redraw into an off-screen terminal (newterm on
 * /dev/null) for every panel, lines x cols; prints per-panel median and max
 * in microseconds. Returns an exit code. */
int tui_bench(struct tui_state *s, int lines, int cols, int presses, FILE *out);

/* No terminal: the panels' values for the state as one JSON document on
 * stdout (computed by tui_state_compute, as the screen shows them). */
int tui_dump(const struct tui_state *s);

/* The key table as a Markdown table (for tui/README.md). */
void tui_print_keys(FILE *out);

/* Restores the terminal if the explorer holds it; safe to call any time.
 * Call before printing a fatal message. */
void tui_restore_terminal(void);

#endif
