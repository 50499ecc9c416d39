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

/* One <text>: cls (a class the lint reads: "title", "tick", "axis-title")
 * and a rotation about the anchor point when not 0; a halo is a white outline
 * under the glyphs. */
static void text_element(struct svg *s, double x, double y, double size, const char *anchor, const char *color,
			 const char *cls, double rotate, bool halo, const char *text)
{
	svg_raw(s, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%g\" text-anchor=\"%s\" fill=\"%s\"", x, y, size,
		anchor ? anchor : "start", color ? color : "#000000");
	if (cls)
		svg_raw(s, " class=\"%s\"", cls);
	if (rotate != 0)
		svg_raw(s, " transform=\"rotate(%g %.2f %.2f)\"", rotate, x, y);
	if (halo)
		svg_raw(s, " stroke=\"#ffffff\" stroke-width=\"3\" stroke-linejoin=\"round\" paint-order=\"stroke\"");
	append(s, ">", 1);
	append_escaped(s, text);
	append(s, "</text>\n", 8);
}

void svg_text(struct svg *s, double x, double y, double size, const char *anchor, const char *color, const char *text)
{
	text_element(s, x, y, size, anchor, color, NULL, 0, false, text);
}

void svg_text_halo(struct svg *s, double x, double y, double size, const char *anchor, const char *color,
		   const char *text)
{
	text_element(s, x, y, size, anchor, color, NULL, 0, true, text);
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

/* ---- text boxes ---- */

/* DejaVu Sans's advance widths (the font svg_begin names first, and the one
 * rsvg-convert finds on Debian), characters ' ' to '~', in thousandths of an
 * em rounded up: its hmtx table through its cmap (DejaVuSans.ttf 2.37,
 * fonts-dejavu-core). Any other character counts a whole em. Text boxes in
 * tests/support/svg_lint.py read this table from here. */
static const unsigned short dejavu_sans_advance[95] = {
	318, 401, 460, 838, 637, 951, 780, 275, 391, 391, 500, 838, 318, 361,  318, 337, 637, 637, 637,
	637, 637, 637, 637, 637, 637, 637, 337, 337, 838, 838, 838, 531, 1000, 685, 687, 699, 771, 632,
	576, 775, 752, 295, 295, 656, 558, 863, 749, 788, 604, 788, 695, 635,  611, 732, 685, 989, 686,
	611, 686, 391, 337, 391, 838, 500, 500, 613, 635, 550, 635, 616, 353,  635, 634, 278, 278, 580,
	278, 975, 634, 612, 635, 635, 412, 521, 393, 634, 592, 818, 592, 592,  525, 637, 337, 637, 838,
};

double svg_text_width(double size, const char *text)
{
	double ems = 0;
	for (const unsigned char *c = (const unsigned char *)text; *c; c++)
		if (*c >= ' ' && *c <= '~')
			ems += dejavu_sans_advance[*c - ' '] / 1000.0;
		else if ((*c & 0xC0) != 0x80) /* the first byte of a UTF-8 character, or a control byte */
			ems += 1;
	return size * ems;
}

struct svg_box svg_text_box(double x, double y, double size, const char *anchor, const char *text)
{
	double w = svg_text_width(size, text);
	double x0 = anchor && anchor[0] == 'e' ? x - w : anchor && anchor[0] == 'm' ? x - w / 2 : x;
	return (struct svg_box){ x0, y - size, x0 + w, y + 0.25 * size };
}

bool svg_box_overlap(struct svg_box a, struct svg_box b)
{
	return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

/* size, made smaller when text would be wider than room. */
static double size_to_fit(double size, const char *text, double room)
{
	double w = svg_text_width(size, text);
	return w > room && room > 0 ? floor(size * room / w * 10) / 10 : size;
}

void svg_title(struct svg *s, double baseline, double size, const char *text)
{
	text_element(s, s->width / 2, baseline, size_to_fit(size, text, s->width - 16), "middle", "#000000", "title", 0,
		     false, text);
}

/* ---- axes ---- */

static double axis_map(const struct svg_axis *a, double value, double pixel_lo, double pixel_hi)
{
	if (a->scale == SVG_LOG)
		return svg_log_scale(value, a->lo, a->hi, pixel_lo, pixel_hi);
	return svg_linear_scale(value, a->lo, a->hi, pixel_lo, pixel_hi);
}

double svg_plot_x(const struct svg_plot *p, double value)
{
	return axis_map(&p->x, value, p->left, p->right);
}

double svg_plot_y(const struct svg_plot *p, double value)
{
	return axis_map(&p->y, value, p->bottom, p->top);
}

static int axis_count(const struct svg_axis *a)
{
	return a->scale == SVG_CATEGORY ? a->category_count : a->tick_count;
}

static double axis_value(const struct svg_axis *a, int i)
{
	return a->scale == SVG_CATEGORY ? a->category_values[i] : a->ticks[i];
}

static void axis_label(const struct svg_axis *a, int i, char *buf, size_t len)
{
	if (a->scale == SVG_CATEGORY)
		snprintf(buf, len, "%s", a->category_labels[i]);
	else if (a->format)
		a->format(a->ticks[i], buf, len);
	else
		snprintf(buf, len, "%g", a->ticks[i]);
}

static double widest_label(const struct svg_axis *a, double size)
{
	char buf[200];
	double widest = 0;
	for (int i = 0; i < axis_count(a); i++) {
		axis_label(a, i, buf, sizeof buf);
		widest = fmax(widest, svg_text_width(size, buf));
	}
	return widest;
}

/* The mantissas of each kind of log tick: decades, half-decades, 1-2-5. */
static const struct {
	int count;
	double mantissa[3];
} log_steps[] = { { 1, { 1 } }, { 2, { 1, 3 } }, { 3, { 1, 2, 5 } } };

static int log_ticks(double lo, double hi, int kind, int decade_step, double *ticks)
{
	int n = 0;
	for (int e = (int)floor(log10(lo)); e <= (int)ceil(log10(hi)); e++) {
		if (((e % decade_step) + decade_step) % decade_step)
			continue;
		for (int k = 0; k < log_steps[kind].count && n < SVG_AXIS_MAX_TICKS; k++) {
			double v = log_steps[kind].mantissa[k] * pow(10, e);
			if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9))
				ticks[n++] = v;
		}
	}
	return n;
}

/* Multiples of step in [lo, hi]. */
static int linear_ticks(double lo, double hi, double step, double *ticks)
{
	int n = 0;
	for (double k = ceil(lo / step - 1e-9); k <= floor(hi / step + 1e-9) && n < SVG_AXIS_MAX_TICKS; k++)
		ticks[n++] = k * step + 0.0; /* + 0.0: no "-0" */
	return n;
}

/* Whether neighbouring tick labels keep 6 px apart along the axis. */
static bool labels_apart(const struct svg_axis *a, bool horizontal, double pixel_lo, double pixel_hi, double size)
{
	char left[64], right[64];
	for (int i = 1; i < a->tick_count; i++) {
		double gap = fabs(axis_map(a, a->ticks[i], pixel_lo, pixel_hi) -
				  axis_map(a, a->ticks[i - 1], pixel_lo, pixel_hi));
		axis_label(a, i - 1, left, sizeof left);
		axis_label(a, i, right, sizeof right);
		double need = horizontal ? (svg_text_width(size, left) + svg_text_width(size, right)) / 2 : 1.25 * size;
		if (gap < need + 6)
			return false;
	}
	return true;
}

/* A log axis's ticks: every decade, or every 2nd, 3rd, ... when more than 12
 * or their labels crowd (the sparsest with 4 if all crowd); with fewer than 4
 * decades, half-decades, else 1-2-5 steps; a range too narrow for 4 of any
 * is widened to a factor of 25 about its middle, where 1-2-5 steps give 4. */
static void fit_log(struct svg_axis *a, bool horizontal, double pixel_lo, double pixel_hi, double size)
{
	if (!(a->lo > 0) || !isfinite(a->lo))
		a->lo = a->hi > 0 && isfinite(a->hi) ? a->hi / 100 : 1;
	if (!(a->hi > a->lo) || !isfinite(a->hi))
		a->hi = a->lo * 100;
	int step = 1;
	for (;; step++) {
		a->tick_count = log_ticks(a->lo, a->hi, 0, step, a->ticks);
		if (a->tick_count < 4)
			break;
		if (a->tick_count <= 12 && labels_apart(a, horizontal, pixel_lo, pixel_hi, size))
			return;
	}
	if (step > 1) {
		a->tick_count = log_ticks(a->lo, a->hi, 0, step - 1, a->ticks);
		return;
	}
	for (int kind = 1; kind < 3; kind++) {
		a->tick_count = log_ticks(a->lo, a->hi, kind, 1, a->ticks);
		if (a->tick_count >= 4)
			return;
	}
	if (a->hi / a->lo < 25) {
		double middle = sqrt(a->lo * a->hi);
		a->lo = middle / 5;
		a->hi = middle * 5;
	}
	a->tick_count = log_ticks(a->lo, a->hi, 2, 1, a->ticks);
}

/* A linear axis's ticks: the largest 1-2-5 step that gives 4 of them. A
 * range narrower than 1e-4 of its magnitude (or empty) is widened about its
 * middle first, so that 6 digits tell its ticks apart. */
static void fit_linear(struct svg_axis *a)
{
	double magnitude = fmax(fabs(a->lo), fabs(a->hi));
	if (!(a->hi - a->lo >= 1e-4 * magnitude) || magnitude == 0) {
		double middle = (a->lo + a->hi) / 2, half = magnitude > 0 ? 1e-4 * magnitude : 1;
		a->lo = middle - half;
		a->hi = middle + half;
	}
	static const double mantissas[] = { 5, 2, 1 };
	for (int e = (int)ceil(log10(a->hi - a->lo)); e > -300; e--)
		for (int k = 0; k < 3; k++) {
			a->tick_count = linear_ticks(a->lo, a->hi, mantissas[k] * pow(10, e), a->ticks);
			if (a->tick_count >= 4)
				return;
		}
}

static bool is_decades(const struct svg_axis *a)
{
	return a->scale == SVG_LOG && a->tick_count > 1 && fabs(a->ticks[1] / a->ticks[0] - 10) < 1e-6;
}

/* Between a decade axis's ticks, unlabelled marks at 2..9, inside the frame. */
static void minor_marks(struct svg *s, const struct svg_plot *p, const struct svg_axis *a)
{
	for (int i = 0; is_decades(a) && i + 1 < a->tick_count; i++)
		for (int m = 2; m < 10; m++) {
			if (a == &p->x) {
				double x = svg_plot_x(p, a->ticks[i] * m);
				svg_line(s, x, p->bottom, x, p->bottom - 4, "#999999", 1, false);
			} else {
				double y = svg_plot_y(p, a->ticks[i] * m);
				svg_line(s, p->left, y, p->left + 4, y, "#999999", 1, false);
			}
		}
}

/* Where the x axis's tick labels and title sit below the frame (baselines). */
static double x_label_baseline(double size)
{
	return size + fmax(6, 0.6 * size + 1); /* clear of the lowest y label */
}

static double x_title_baseline(double size)
{
	return x_label_baseline(size) + 0.25 * size + 4 + (size + 2);
}

static void draw_x_axis(struct svg *s, const struct svg_plot *p, double size, const char *title)
{
	const struct svg_axis *a = &p->x;
	char buf[200];
	svg_raw(s, "<g class=\"axis x\">\n");
	for (int i = 0; i < axis_count(a); i++) {
		double x = svg_plot_x(p, axis_value(a, i));
		if (a->scale != SVG_CATEGORY)
			svg_line(s, x, p->top, x, p->bottom, "#e3e3e3", 1, false);
		svg_line(s, x, p->bottom, x, p->bottom + 4, "#555555", 1, false);
		axis_label(a, i, buf, sizeof buf);
		text_element(s, x, p->bottom + x_label_baseline(size), size, "middle", "#333333", "tick", 0, false,
			     buf);
	}
	minor_marks(s, p, a);
	text_element(s, (p->left + p->right) / 2, p->bottom + x_title_baseline(size),
		     size_to_fit(size + 2, title, p->right - p->left), "middle", "#000000", "axis-title", 0, false,
		     title);
	svg_raw(s, "</g>\n");
}

/* The y axis: labels right-aligned left of the frame, the title turned a
 * quarter left of them (its glyphs reach 1 em further left). */
static void draw_y_axis(struct svg *s, const struct svg_plot *p, double size, const char *title)
{
	const struct svg_axis *a = &p->y;
	char buf[200];
	svg_raw(s, "<g class=\"axis y%s\">\n", a->scale == SVG_CATEGORY ? " categorical" : "");
	for (int i = 0; i < axis_count(a); i++) {
		double y = svg_plot_y(p, axis_value(a, i));
		if (a->scale != SVG_CATEGORY)
			svg_line(s, p->left, y, p->right, y, "#e3e3e3", 1, false);
		svg_line(s, p->left - 4, y, p->left, y, "#555555", 1, false);
		axis_label(a, i, buf, sizeof buf);
		text_element(s, p->left - 7, y + 0.35 * size, size, "end", "#333333", "tick", 0, false, buf);
	}
	minor_marks(s, p, a);
	double title_size = size_to_fit(size + 2, title, p->bottom - p->top);
	double x = p->left - 7 - widest_label(a, size) - 6 - 0.25 * title_size, y = (p->top + p->bottom) / 2;
	text_element(s, x, y, title_size, "middle", "#000000", "axis-title", -90, false, title);
	svg_raw(s, "</g>\n");
}

static void axis_title(const struct svg_axis *a, char *buf, size_t len)
{
	if (a->unit && a->unit[0])
		snprintf(buf, len, "%s (%s)", a->title ? a->title : "", a->unit);
	else
		snprintf(buf, len, "%s", a->title ? a->title : "");
}

void svg_plot_axes(struct svg *s, struct svg_plot *p)
{
	double size = p->font_size > 0 ? p->font_size : 12;
	struct svg_axis *axes[2] = { &p->x, &p->y };
	for (int i = 0; i < 2; i++) {
		if (axes[i]->scale == SVG_LOG)
			fit_log(axes[i], i == 0, i == 0 ? p->left : p->bottom, i == 0 ? p->right : p->top, size);
		else if (axes[i]->scale == SVG_LINEAR)
			fit_linear(axes[i]);
	}
	/* Room for the y labels and the turned title on the left, the x labels
	 * and title below, half the widest x label on the right. */
	double left = 2 + 1.25 * (size + 2) + 6 + widest_label(&p->y, size) + 7;
	if (p->left < left)
		p->left = left;
	double below = x_title_baseline(size) + 0.25 * (size + 2) + 2;
	if (p->bottom + below > s->height)
		p->bottom = s->height - below;
	double right = s->width - 2 - widest_label(&p->x, size) / 2;
	if (p->right > right)
		p->right = right;
	if (p->fill)
		svg_rect(s, p->left, p->top, p->right - p->left, p->bottom - p->top, p->fill, NULL);
	char x_title[200], y_title[200];
	axis_title(&p->x, x_title, sizeof x_title);
	axis_title(&p->y, y_title, sizeof y_title);
	draw_x_axis(s, p, size, x_title);
	draw_y_axis(s, p, size, y_title);
	svg_rect(s, p->left, p->top, p->right - p->left, p->bottom - p->top, NULL, "#555555");
}

/* ---- labels kept off each other ---- */

void svg_labels_init(struct svg_labels *l, struct svg_box bounds)
{
	l->bounds = bounds;
	l->count = 0;
}

void svg_labels_add(struct svg_labels *l, struct svg_box box, bool is_text)
{
	if (l->count == SVG_LABELS_MAX)
		return;
	l->boxes[l->count] = box;
	l->is_text[l->count++] = is_text;
}

int svg_labels_hits(const struct svg_labels *l, struct svg_box box, int *marks)
{
	*marks = 0;
	if (box.x0 < l->bounds.x0 || box.x1 > l->bounds.x1 || box.y0 < l->bounds.y0 || box.y1 > l->bounds.y1)
		return -1;
	/* Texts kept 2 px apart across (kerning, another font), 1 px up and down. */
	struct svg_box kept = { box.x0 - 2, box.y0 - 1, box.x1 + 2, box.y1 + 1 };
	int texts = 0;
	for (int i = 0; i < l->count; i++) {
		if (l->is_text[i])
			texts += svg_box_overlap(kept, l->boxes[i]);
		else
			*marks += svg_box_overlap(box, l->boxes[i]);
	}
	return texts;
}

/* Candidates sit on rings 8 px apart, about 10 px apart along each ring,
 * starting right of the point and turning upwards; at each the label starts
 * 8 px right of it or ends 8 px left of it, centred on it vertically. The
 * search ends at the first ring with a place free of texts and marks, or 24
 * px past the first free of texts. */
bool svg_labels_place(const struct svg_labels *l, double x, double y, double size, const char *text, double reach,
		      struct svg_spot *spot)
{
	int best_texts = 1 << 30, best_marks = 1 << 30;
	double stop = reach, width = svg_text_width(size, text);
	*spot = (struct svg_spot){ x + 8, y + 0.35 * size, "start",
				   svg_text_box(x + 8, y + 0.35 * size, size, "start", text), 0 };
	for (double r = 0; r <= stop && !(best_texts == 0 && best_marks == 0); r += 8) {
		int n = r == 0 ? 1 : (int)ceil(2 * M_PI * r / 10);
		for (int k = 0; k < n; k++) {
			double angle = 2 * M_PI * k / n, ax = x + r * cos(angle), ay = y - r * sin(angle);
			for (int side = 0; side < 2; side++) {
				const char *anchor = side ? "end" : "start";
				double bx = side ? ax - 8 : ax + 8, by = ay + 0.35 * size, x0 = side ? bx - width : bx;
				struct svg_box box = { x0, by - size, x0 + width, by + 0.25 * size };
				int marks, texts = svg_labels_hits(l, box, &marks);
				if (texts < 0 || texts > best_texts || (texts == best_texts && marks >= best_marks))
					continue;
				if (texts == 0 && best_texts > 0)
					stop = fmin(reach, r + 24);
				best_texts = texts;
				best_marks = marks;
				*spot = (struct svg_spot){ bx, by, anchor, box, r };
			}
		}
	}
	return best_texts == 0;
}

void svg_label_draw(struct svg *s, struct svg_labels *l, const struct svg_spot *spot, double x, double y, double size,
		    const char *color, const char *text)
{
	svg_labels_add(l, spot->box, true);
	if (spot->distance > 12) {
		/* from the point to the nearest point of the label's glyphs */
		double lx = fmin(fmax(x, spot->box.x0), spot->box.x1);
		double ly = fmin(fmax(y, spot->box.y0 + 0.25 * size), spot->box.y1);
		svg_line(s, x, y, lx, ly, color, size > 10 ? 0.8 : 0.6, false);
	}
	text_element(s, spot->x, spot->y, size, spot->anchor, color, NULL, 0, true, text);
}
