/* A braille canvas: each terminal cell holds a 2x4 grid of dots (Unicode
 * U+2800..U+28FF), so a W x H cell area is a 2W x 4H pixel plot. Pure: no
 * terminal; rendering produces UTF-8 strings (or ASCII when the terminal
 * cannot show braille). Each cell also keeps the role (a color) of the last
 * thing drawn into it. */
#ifndef RIDGE_TUI_BRAILLE_H
#define RIDGE_TUI_BRAILLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BRAILLE_MAX_COLS 512
#define BRAILLE_MAX_ROWS 256

struct braille_canvas {
	int cols, rows;    /* in cells */
	int width, height; /* in pixels: 2*cols, 4*rows; y = 0 is the top */
	uint8_t dots[BRAILLE_MAX_ROWS][BRAILLE_MAX_COLS];
	uint8_t role[BRAILLE_MAX_ROWS][BRAILLE_MAX_COLS];
};

/* Sizes are clamped to 0..BRAILLE_MAX_*; the canvas starts empty. */
void braille_init(struct braille_canvas *c, int cols, int rows);
void braille_clear(struct braille_canvas *c);
/* Pixels outside the canvas are ignored. */
void braille_set(struct braille_canvas *c, int x, int y, uint8_t role);
bool braille_get(const struct braille_canvas *c, int x, int y);
/* A straight line between two pixel positions (which may lie far outside
 * the canvas: the line is clipped first, so the cost is bounded by the canvas). */
void braille_line(struct braille_canvas *c, double x0, double y0, double x1, double y1, uint8_t role);

/* The UTF-8 text of one cell: a braille character, or a space when the cell
 * is empty. out needs 4 bytes; returns the length (1 or 3). */
int braille_cell_utf8(const struct braille_canvas *c, int col, int row, char out[4]);
/* The ASCII stand-in of one cell: ' ', '\'' (dots in the top half), '.'
 * (bottom half) or ':' (both). */
char braille_cell_ascii(const struct braille_canvas *c, int col, int row);
/* One row as a NUL-terminated string (UTF-8 or ASCII). Returns the byte
 * length, or -1 when buf is too small (cols*3+1 bytes always suffice). */
int braille_render_row(const struct braille_canvas *c, int row, bool ascii, char *buf, size_t len);

/* Pixel position of value on a log10 axis from lo to hi spanning pixels
 * 0..pixels-1 (not clamped: outside values map outside the range). */
double braille_log_pos(double value, double lo, double hi, int pixels);
/* Pixel position on a linear axis. */
double braille_lin_pos(double value, double lo, double hi, int pixels);

#endif
