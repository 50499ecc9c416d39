/* A small SVG builder for ridge's plots (roofline, occupancy, plan, serve,
 * fleet): shapes and text appended to a growing buffer, written atomically by
 * svg_save; the axes every plot shares (svg_plot_axes); and the placement of
 * labels off each other (svg_labels_place). */
#ifndef RIDGE_SVG_H
#define RIDGE_SVG_H

#include <stdbool.h>
#include <stddef.h>

struct svg {
	char *data;
	size_t len, cap;
	bool failed; /* out of memory: svg_save refuses */
	double width, height;
};

void svg_begin(struct svg *s, double width, double height, const char *title);
/* Text is escaped (& < > " '). anchor: "start", "middle" or "end". */
void svg_text(struct svg *s, double x, double y, double size, const char *anchor, const char *color, const char *text);
/* The same with a white outline under the glyphs, readable over lines and grid. */
void svg_text_halo(struct svg *s, double x, double y, double size, const char *anchor, const char *color,
		   const char *text);
void svg_line(struct svg *s, double x1, double y1, double x2, double y2, const char *color, double width, bool dashed);
void svg_rect(struct svg *s, double x, double y, double w, double h, const char *fill, const char *stroke);
void svg_circle(struct svg *s, double cx, double cy, double r, const char *fill, const char *stroke);
/* A polyline through n points (xs[i], ys[i]). */
void svg_polyline(struct svg *s, const double *xs, const double *ys, int n, const char *color, double width);
/* Raw markup (already valid SVG). */
void svg_raw(struct svg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void svg_end(struct svg *s);
/* Writes the document atomically; on failure adds why to st (an environment
 * error) and returns -1. */
struct app_status;
int svg_save(struct svg *s, const char *path, struct app_status *st);
void svg_free(struct svg *s);

/* A log10 axis mapping [lo, hi] onto [pixel_lo, pixel_hi]. */
double svg_log_scale(double value, double lo, double hi, double pixel_lo, double pixel_hi);
double svg_linear_scale(double value, double lo, double hi, double pixel_lo, double pixel_hi);

/* ---- text boxes: how every plot (and tests/support/svg_lint.py) estimates
 * where a text's glyphs fall: DejaVu Sans's advance width of each character,
 * from 1 em above the baseline to 0.25 em below it, placed by its anchor. */
struct svg_box {
	double x0, y0, x1, y1;
};
double svg_text_width(double size, const char *text); /* UTF-8 */
struct svg_box svg_text_box(double x, double y, double size, const char *anchor, const char *text);
bool svg_box_overlap(struct svg_box a, struct svg_box b);

/* The plot's visible title, centred at the top (class "title"), its size
 * reduced if it would not fit the canvas's width. */
void svg_title(struct svg *s, double baseline, double size, const char *text);

/* ---- axes ---- */

#define SVG_AXIS_MAX_TICKS 40

enum svg_scale { SVG_LINEAR, SVG_LOG, SVG_CATEGORY };

struct svg_axis {
	enum svg_scale scale;
	/* The values at the frame's ends (lo at the left or bottom); svg_plot_axes
	 * widens a log range too narrow for 4 ticks. A category axis's lo and hi
	 * are the row positions at the bottom and top. */
	double lo, hi;
	const char *title; /* "arithmetic intensity" */
	const char *unit;  /* "FLOP/byte": the axis reads "arithmetic intensity (FLOP/byte)"; none on a category axis */
	void (*format)(double value, char *buf, size_t len); /* a tick's label; NULL: %g */
	/* SVG_CATEGORY: a label at each of these positions instead of numbers */
	int category_count;
	const char *const *category_labels;
	const double *category_values;
	/* set by svg_plot_axes: decades (log, minor marks at 2..9), half-decades
	 * (1, 3) or 1-2-5 steps, at least 4 of them */
	int tick_count;
	double ticks[SVG_AXIS_MAX_TICKS];
};

struct svg_plot {
	/* The frame in pixels; svg_plot_axes moves left, bottom and right in
	 * when the tick labels and axis titles need the room on the canvas. */
	double left, top, right, bottom;
	double font_size; /* tick labels; axis titles are 2 px larger; 0: 12 */
	const char *fill; /* the frame's background; NULL: none */
	struct svg_axis x, y;
};

/* Chooses the ticks, makes room for them, and draws the frame, the grid, the
 * ticks and their labels, and each axis title ("title (unit)"; the y axis's
 * rotated) in a <g class="axis x"> and a <g class="axis y"> (tests lint
 * them). Call it before mapping anything with svg_plot_x/y: it may move the
 * frame and widen a range. */
void svg_plot_axes(struct svg *s, struct svg_plot *p);
double svg_plot_x(const struct svg_plot *p, double value);
double svg_plot_y(const struct svg_plot *p, double value);

/* ---- labels kept off each other ---- */

#define SVG_LABELS_MAX 1024

/* What a new label must keep off: texts (never covered) and marks such as
 * points (covered only when no free place is in reach), all inside bounds. */
struct svg_labels {
	struct svg_box bounds;
	int count;
	struct svg_box boxes[SVG_LABELS_MAX];
	bool is_text[SVG_LABELS_MAX];
};

struct svg_spot {
	double x, y; /* the baseline's anchor point */
	const char *anchor;
	struct svg_box box;
	double distance; /* from the point labelled */
};

void svg_labels_init(struct svg_labels *l, struct svg_box bounds);
void svg_labels_add(struct svg_labels *l, struct svg_box box, bool is_text);
/* The texts box would cover (kept 2 px apart), and in *marks the marks; -1
 * when it leaves the bounds. */
int svg_labels_hits(const struct svg_labels *l, struct svg_box box, int *marks);
/* The nearest place within reach px of (x, y) for a label of this size
 * covering no text (and, if one is in reach, no mark), searched on rings
 * around the point; true when one covers no text. Either way *spot is the
 * best found (fewest texts, then marks, then distance); nothing is added. */
bool svg_labels_place(const struct svg_labels *l, double x, double y, double size, const char *text, double reach,
		      struct svg_spot *spot);
/* Draws the label of the point (x, y) at spot (with a white halo), joined to
 * the point by a leader when set off from it, and adds it to l. */
void svg_label_draw(struct svg *s, struct svg_labels *l, const struct svg_spot *spot, double x, double y, double size,
		    const char *color, const char *text);

#endif
