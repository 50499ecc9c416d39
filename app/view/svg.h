/* A small SVG builder for ridge's plots (roofline, occupancy charts): shapes
 * and text appended to a growing buffer, written atomically by svg_save. */
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

#endif
