/* Drawing: state -> screen (stdscr). Nothing here changes the state. */
#ifndef RIDGE_TUI_DRAW_H
#define RIDGE_TUI_DRAW_H

#include <stdbool.h>

#include "braille.h"
#include "color.h"
#include "layout.h"
#include "state.h"

/* Layout of the current panel for a screen of lines x cols. */
void tui_draw_layout(const struct tui_state *s, int lines, int cols, struct tui_layout *l);
/* Draws everything into stdscr (the caller refreshes). ascii: no braille
 * or other non-ASCII characters (the terminal's locale is not UTF-8). */
void tui_draw(const struct tui_state *s, const struct tui_layout *l, bool ascii);

/* ---- helpers shared by the panel drawers (draw*.c) ---- */

/* Text at (y, x), cut to w columns (ASCII text); or (right) ending at column x + w - 1. */
void tui_put_aligned(int y, int x, int w, enum tui_role role, bool right, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
#define tui_put(y, x, w, role, ...) tui_put_aligned((y), (x), (w), (role), false, __VA_ARGS__)
#define tui_put_right(y, x, w, role, ...) tui_put_aligned((y), (x), (w), (role), true, __VA_ARGS__)
/* "label ....... value" in one row of width w. */
void tui_put_pair(int y, int x, int w, const char *label, enum tui_role value_role, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* The plot of a chart in the view: a title row above it, an x-axis row
 * below, label columns either side; the canvas cleared to its size. */
struct tui_rect tui_chart_plot(const struct tui_rect *view, int label_left, int label_right,
			       struct braille_canvas *canvas);
/* The canvas into the rectangle at (y, x): braille (or ASCII) cells in their roles. */
void tui_draw_canvas(const struct braille_canvas *c, int y, int x, bool ascii);
/* Dollars for humans: "$1,234,567" above $1000, else "$12.34". (Numbers
 * otherwise go through fmt_si/_bytes/_seconds, as in the CLI.) */
void tui_fmt_usd(double usd, char *buf, size_t len);

/* Each panel's drawer and its layout wishes. */
struct tui_panel_view {
	void (*draw)(const struct tui_state *s, const struct tui_layout *l, bool ascii);
	void (*spec)(const struct tui_state *s, struct tui_layout_spec *spec);
};
extern const struct tui_panel_view tui_panel_views[TUI_PANEL_COUNT];

/* Rows the panel's inputs take in the form (results go below them). */
int tui_form_rows(const struct tui_state *s);

void tui_draw_hw(const struct tui_state *s, const struct tui_layout *l, bool ascii);
void tui_spec_hw(const struct tui_state *s, struct tui_layout_spec *spec);
void tui_draw_roofline(const struct tui_state *s, const struct tui_layout *l, bool ascii);
void tui_spec_roofline(const struct tui_state *s, struct tui_layout_spec *spec);
void tui_draw_occupancy(const struct tui_state *s, const struct tui_layout *l, bool ascii);
void tui_spec_occupancy(const struct tui_state *s, struct tui_layout_spec *spec);
void tui_draw_align(const struct tui_state *s, const struct tui_layout *l, bool ascii);
void tui_spec_align(const struct tui_state *s, struct tui_layout_spec *spec);
void tui_draw_cost(const struct tui_state *s, const struct tui_layout *l, bool ascii);
void tui_spec_cost(const struct tui_state *s, struct tui_layout_spec *spec);

#endif
