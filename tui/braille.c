#include "braille.h"

#include <math.h>
#include <string.h>

/* Dot numbering of the braille block: bit of pixel (x % 2, y % 4). */
static const uint8_t dot_bit[4][2] = {
	{ 0x01, 0x08 },
	{ 0x02, 0x10 },
	{ 0x04, 0x20 },
	{ 0x40, 0x80 },
};

void braille_init(struct braille_canvas *c, int cols, int rows)
{
	c->cols = cols < 0 ? 0 : cols > BRAILLE_MAX_COLS ? BRAILLE_MAX_COLS : cols;
	c->rows = rows < 0 ? 0 : rows > BRAILLE_MAX_ROWS ? BRAILLE_MAX_ROWS : rows;
	c->width = 2 * c->cols;
	c->height = 4 * c->rows;
	braille_clear(c);
}

void braille_clear(struct braille_canvas *c)
{
	for (int r = 0; r < c->rows; r++) {
		memset(c->dots[r], 0, (size_t)c->cols);
		memset(c->role[r], 0, (size_t)c->cols);
	}
}

void braille_set(struct braille_canvas *c, int x, int y, uint8_t role)
{
	if (x < 0 || y < 0 || x >= c->width || y >= c->height)
		return;
	c->dots[y / 4][x / 2] |= dot_bit[y % 4][x % 2];
	c->role[y / 4][x / 2] = role;
}

bool braille_get(const struct braille_canvas *c, int x, int y)
{
	if (x < 0 || y < 0 || x >= c->width || y >= c->height)
		return false;
	return (c->dots[y / 4][x / 2] & dot_bit[y % 4][x % 2]) != 0;
}

/* Liang-Barsky: clips the segment to [xmin,xmax]x[ymin,ymax]; false when
 * nothing is left. */
static bool clip(double *x0, double *y0, double *x1, double *y1, double xmin, double ymin, double xmax, double ymax)
{
	double dx = *x1 - *x0, dy = *y1 - *y0;
	double p[4] = { -dx, dx, -dy, dy };
	double q[4] = { *x0 - xmin, xmax - *x0, *y0 - ymin, ymax - *y0 };
	double t0 = 0, t1 = 1;
	for (int i = 0; i < 4; i++) {
		if (p[i] == 0) {
			if (q[i] < 0)
				return false;
			continue;
		}
		double t = q[i] / p[i];
		if (p[i] < 0) {
			if (t > t1)
				return false;
			if (t > t0)
				t0 = t;
		} else {
			if (t < t0)
				return false;
			if (t < t1)
				t1 = t;
		}
	}
	double ox = *x0, oy = *y0;
	*x0 = ox + t0 * dx;
	*y0 = oy + t0 * dy;
	*x1 = ox + t1 * dx;
	*y1 = oy + t1 * dy;
	return true;
}

void braille_line(struct braille_canvas *c, double x0, double y0, double x1, double y1, uint8_t role)
{
	if (c->width == 0 || c->height == 0)
		return;
	if (!isfinite(x0) || !isfinite(y0) || !isfinite(x1) || !isfinite(y1))
		return;
	/* Clip to the pixel centres' box widened by half a pixel, so a line
	 * along an edge still lands on it after rounding. */
	if (!clip(&x0, &y0, &x1, &y1, -0.5, -0.5, c->width - 0.5, c->height - 0.5))
		return;
	int ix0 = (int)lround(x0), iy0 = (int)lround(y0), ix1 = (int)lround(x1), iy1 = (int)lround(y1);
	/* Bresenham over integer pixels. */
	int dx = ix1 > ix0 ? ix1 - ix0 : ix0 - ix1, sx = ix0 < ix1 ? 1 : -1;
	int dy = iy1 > iy0 ? iy0 - iy1 : iy1 - iy0, sy = iy0 < iy1 ? 1 : -1;
	int err = dx + dy;
	for (;;) {
		braille_set(c, ix0, iy0, role);
		if (ix0 == ix1 && iy0 == iy1)
			break;
		int e2 = 2 * err;
		if (e2 >= dy) {
			err += dy;
			ix0 += sx;
		}
		if (e2 <= dx) {
			err += dx;
			iy0 += sy;
		}
	}
}

int braille_cell_utf8(const struct braille_canvas *c, int col, int row, char out[4])
{
	uint8_t bits = (col >= 0 && row >= 0 && col < c->cols && row < c->rows) ? c->dots[row][col] : 0;
	if (!bits) {
		out[0] = ' ';
		out[1] = '\0';
		return 1;
	}
	/* U+2800 + bits, in UTF-8: 1110xxxx 10xxxxxx 10xxxxxx. */
	unsigned cp = 0x2800u + bits;
	out[0] = (char)(0xE0 | (cp >> 12));
	out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[2] = (char)(0x80 | (cp & 0x3F));
	out[3] = '\0';
	return 3;
}

char braille_cell_ascii(const struct braille_canvas *c, int col, int row)
{
	uint8_t bits = (col >= 0 && row >= 0 && col < c->cols && row < c->rows) ? c->dots[row][col] : 0;
	bool top = bits & (0x01 | 0x08 | 0x02 | 0x10);
	bool bottom = bits & (0x04 | 0x20 | 0x40 | 0x80);
	return top && bottom ? ':' : top ? '\'' : bottom ? '.' : ' ';
}

int braille_render_row(const struct braille_canvas *c, int row, bool ascii, char *buf, size_t len)
{
	size_t used = 0;
	for (int col = 0; col < c->cols; col++) {
		char cell[4];
		int n;
		if (ascii) {
			cell[0] = braille_cell_ascii(c, col, row);
			n = 1;
		} else {
			n = braille_cell_utf8(c, col, row, cell);
		}
		if (used + (size_t)n + 1 > len)
			return -1;
		memcpy(buf + used, cell, (size_t)n);
		used += (size_t)n;
	}
	if (used + 1 > len)
		return -1;
	buf[used] = '\0';
	return (int)used;
}

double braille_log_pos(double value, double lo, double hi, int pixels)
{
	return (log10(value) - log10(lo)) / (log10(hi) - log10(lo)) * (pixels - 1);
}

double braille_lin_pos(double value, double lo, double hi, int pixels)
{
	return (value - lo) / (hi - lo) * (pixels - 1);
}
