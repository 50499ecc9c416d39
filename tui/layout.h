/* Panel rectangles from the terminal size: pure arithmetic, testable without a
 * terminal. Recomputed on every KEY_RESIZE from LINES/COLS. */
#ifndef RIDGE_TUI_LAYOUT_H
#define RIDGE_TUI_LAYOUT_H

#include <stdbool.h>

/* Below this the screen only says it is too small. 80x24 is the design size. */
#define TUI_MIN_COLS 60
#define TUI_MIN_LINES 16

struct tui_rect {
	int y, x, h, w;
};

/* How a panel wants its body split. */
struct tui_layout_spec {
	bool form_on_top; /* inputs in rows across the top (hardware), else a left column */
	int form_rows;    /* with form_on_top: rows the inputs need */
	int results_rows; /* rows of text results above the chart in the view */
};

struct tui_layout {
	int lines, cols;
	bool too_small;
	struct tui_rect tabs;    /* row 0: the panel tabs */
	struct tui_rect body;    /* everything between tabs and status */
	struct tui_rect form;    /* the inputs */
	struct tui_rect view;    /* results and chart */
	struct tui_rect results; /* top of view */
	struct tui_rect chart;   /* rest of view; h or w 0 when there is no room */
	struct tui_rect status;  /* last row: messages, prompt, key hints */
	struct tui_rect help;    /* the help overlay, centred */
};

/* help_rows: lines the help text needs. */
void tui_layout_compute(int lines, int cols, const struct tui_layout_spec *spec, int help_rows, struct tui_layout *out);

/* True when (y, x) lies inside r. */
bool tui_rect_contains(const struct tui_rect *r, int y, int x);

#endif
