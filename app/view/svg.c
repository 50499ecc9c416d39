#include "svg.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

static void append(struct svg *s, const char *text, size_t n)
{
	if (s->failed)
		return;
	if (s->len + n + 1 > s->cap) {
		size_t cap = s->cap ? s->cap : 4096;
		while (s->len + n + 1 > cap)
			cap *= 2;
		char *grown = realloc(s->data, cap);
		if (!grown) {
			s->failed = true;
			return;
		}
		s->data = grown;
		s->cap = cap;
	}
	memcpy(s->data + s->len, text, n);
	s->len += n;
	s->data[s->len] = '\0';
}

void svg_raw(struct svg *s, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0) {
		s->failed = true;
		return;
	}
	if ((size_t)n < sizeof small) {
		append(s, small, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big) {
		s->failed = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	append(s, big, (size_t)n);
	free(big);
}

/* The five characters XML reserves, and the entity written for each. */
static const char xml_reserved[] = "&<>\"'";
static const char *const xml_entities[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&apos;" };

static void append_escaped(struct svg *s, const char *text)
{
	for (const char *c = text; *c; c++) {
		const char *reserved = strchr(xml_reserved, *c);
		if (reserved) {
			const char *entity = xml_entities[reserved - xml_reserved];
			append(s, entity, strlen(entity));
		} else if ((unsigned char)*c >= 0x20 || *c == '\t' || *c == '\n') {
			/* Control characters are not allowed in XML 1.0. */
			append(s, c, 1);
		}
	}
}

void svg_begin(struct svg *s, double width, double height, const char *title)
{
	memset(s, 0, sizeof *s);
	s->width = width;
	s->height = height;
	svg_raw(s,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" viewBox=\"0 0 %g %g\" "
		"font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n",
		width, height, width, height);
	if (title) {
		append(s, "<title>", 7);
		append_escaped(s, title);
		append(s, "</title>\n", 9);
	}
	svg_rect(s, 0, 0, width, height, "#ffffff", NULL);
}

void svg_text(struct svg *s, double x, double y, double size, const char *anchor, const char *color, const char *text)
{
	svg_raw(s, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%g\" text-anchor=\"%s\" fill=\"%s\">", x, y, size,
		anchor ? anchor : "start", color ? color : "#000000");
	append_escaped(s, text);
	append(s, "</text>\n", 8);
}

void svg_text_halo(struct svg *s, double x, double y, double size, const char *anchor, const char *color,
		   const char *text)
{
	svg_raw(s,
		"<text x=\"%.2f\" y=\"%.2f\" font-size=\"%g\" text-anchor=\"%s\" fill=\"%s\" stroke=\"#ffffff\" "
		"stroke-width=\"3\" stroke-linejoin=\"round\" paint-order=\"stroke\">",
		x, y, size, anchor ? anchor : "start", color ? color : "#000000");
	append_escaped(s, text);
	append(s, "</text>\n", 8);
}

void svg_line(struct svg *s, double x1, double y1, double x2, double y2, const char *color, double width, bool dashed)
{
	svg_raw(s, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" stroke-width=\"%g\"%s/>\n", x1,
		y1, x2, y2, color, width, dashed ? " stroke-dasharray=\"5,4\"" : "");
}

void svg_rect(struct svg *s, double x, double y, double w, double h, const char *fill, const char *stroke)
{
	svg_raw(s, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" stroke=\"%s\"/>\n", x, y, w,
		h, fill ? fill : "none", stroke ? stroke : "none");
}

void svg_circle(struct svg *s, double cx, double cy, double r, const char *fill, const char *stroke)
{
	svg_raw(s, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%g\" fill=\"%s\" stroke=\"%s\"/>\n", cx, cy, r,
		fill ? fill : "none", stroke ? stroke : "none");
}

void svg_polyline(struct svg *s, const double *xs, const double *ys, int n, const char *color, double width)
{
	svg_raw(s, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%g\" points=\"", color, width);
	for (int i = 0; i < n; i++)
		svg_raw(s, "%s%.2f,%.2f", i ? " " : "", xs[i], ys[i]);
	append(s, "\"/>\n", 4);
}

void svg_end(struct svg *s)
{
	append(s, "</svg>\n", 7);
}

int svg_save(struct svg *s, const char *path, struct app_status *st)
{
	if (s->failed || !s->data) {
		app_error_env(st, "out of memory while drawing '%s'", path);
		return -1;
	}
	return app_write_atomic(path, s->data, s->len, st);
}

void svg_free(struct svg *s)
{
	free(s->data);
	memset(s, 0, sizeof *s);
}

double svg_log_scale(double value, double lo, double hi, double pixel_lo, double pixel_hi)
{
	double t = (log10(value) - log10(lo)) / (log10(hi) - log10(lo));
	return pixel_lo + t * (pixel_hi - pixel_lo);
}

double svg_linear_scale(double value, double lo, double hi, double pixel_lo, double pixel_hi)
{
	return pixel_lo + (value - lo) / (hi - lo) * (pixel_hi - pixel_lo);
}
