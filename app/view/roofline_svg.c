#include "roofline_svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "svg.h"

#define WIDTH 1060.0
#define HEIGHT 680.0
#define FRAME_TOP 74.0 /* the plot's frame and the legend begin this far down */
#define LEGEND_LEFT 752.0

/* One horizontal ceiling; dtypes with the same rate share a line. */
struct ceiling_line {
	double rate;
	char label[160];
	const char *color;
	bool dashed; /* vector (and mixed) rates dashed, matrix solid */
	bool focus;
};

static const char *const dtype_colors[RIDGE_DTYPE_COUNT] = {
	[RIDGE_FP64] = "#7b3294", [RIDGE_FP32] = "#1a9850", [RIDGE_TF32] = "#2c7bb6", [RIDGE_BF16] = "#d7301f",
	[RIDGE_FP16] = "#fc8d59", [RIDGE_FP8] = "#e7298a",  [RIDGE_INT8] = "#66a61e", [RIDGE_FP4] = "#a6761d",
};

static int collect_ceilings(const struct roofline_plot *p, struct ceiling_line *lines, int max)
{
	const struct ridge_gpu *g = p->gpu;
	int n = 0;
	for (int pass = 0; pass < 3; pass++) {
		for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
			const struct ridge_peak *pk = &g->peak[d];
			bool has = pass == 0 ? pk->has_matrix : pass == 1 ? pk->has_vector : false;
			double rate = pass == 0 ? pk->matrix : pk->vector;
			if (pass == 2) {
				/* Sparse: only the focus dtype's, and only when asked. */
				has = p->show_sparse && d == (int)p->focus.dtype && pk->has_matrix_sparse;
				rate = pk->matrix_sparse;
			}
			if (!has || !(rate > 0))
				continue;
			const char *kind = pass == 0 ? "matrix" : pass == 1 ? "vector" : "sparse matrix";
			bool focus = d == (int)p->focus.dtype && rate == p->focus.peak_flops;
			int found = -1;
			for (int i = 0; i < n; i++)
				if (lines[i].rate == rate)
					found = i;
			if (found >= 0) {
				size_t used = strlen(lines[found].label);
				snprintf(lines[found].label + used, sizeof lines[found].label - used, ", %s %s",
					 ridge_dtype_name((enum ridge_dtype)d), kind);
				lines[found].dashed = lines[found].dashed && pass != 0;
				lines[found].focus = lines[found].focus || focus;
				continue;
			}
			if (n == max)
				continue;
			struct ceiling_line *l = &lines[n++];
			l->rate = rate;
			snprintf(l->label, sizeof l->label, "%s %s", ridge_dtype_name((enum ridge_dtype)d), kind);
			l->color = dtype_colors[d];
			l->dashed = pass != 0;
			l->focus = focus;
		}
	}
	/* Highest first: the legend reads top-down like the plot. */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && lines[j].rate > lines[j - 1].rate; j--) {
			struct ceiling_line t = lines[j];
			lines[j] = lines[j - 1];
			lines[j - 1] = t;
		}
	return n;
}

/* Where the plot is drawn (svg_plot_axes may move its frame) and what the
 * labels inside it keep off. */
struct frame {
	struct svg_plot plot;
	struct svg_labels *taken;
};

static double px(const struct frame *f, double intensity)
{
	return svg_plot_x(&f->plot, intensity);
}

static double py(const struct frame *f, double flops)
{
	return svg_plot_y(&f->plot, flops);
}

static void format_flops(double v, char *buf, size_t len)
{
	fmt_si(v, "", buf, len);
	size_t n = strlen(buf);
	while (n && buf[n - 1] == ' ')
		buf[--n] = '\0';
}

static void format_intensity(double v, char *buf, size_t len)
{
	int e = (int)floor(log10(v) + 1e-9);
	if (e >= -3 && e <= 4)
		snprintf(buf, len, "%g", v);
	else
		snprintf(buf, len, "%ge%d", v / pow(10, e), e);
}

static void mark(struct frame *f, double x, double y, double half)
{
	svg_labels_add(f->taken, (struct svg_box){ x - half, y - half, x + half, y + half }, false);
}

/* A memory slope y = intensity x bandwidth from the left edge (or the bottom)
 * up to the highest ceiling. */
static void draw_slope(struct svg *s, const struct frame *f, double bandwidth, double top, const char *color,
		       bool dashed, double width)
{
	const struct svg_plot *p = &f->plot;
	double x_start = p->x.lo, y_start = x_start * bandwidth;
	if (y_start < p->y.lo) {
		y_start = p->y.lo;
		x_start = p->y.lo / bandwidth;
	}
	double x_end = top / bandwidth;
	if (x_end > p->x.hi)
		x_end = p->x.hi;
	svg_line(s, px(f, x_start), py(f, y_start), px(f, x_end), py(f, x_end * bandwidth), color, width, dashed);
}

static bool on_bandwidth_axis(const struct roofline_plot_point *pt)
{
	return !(pt->flops > 0) && pt->achieved_bandwidth > 0 && isfinite(pt->achieved_bandwidth);
}

/* Where a point is drawn; false when it has no place (no FLOPs and no bandwidth). */
static bool point_position(const struct frame *f, double hbm, const struct roofline_plot_point *pt, double *x,
			   double *y)
{
	const struct svg_plot *p = &f->plot;
	if (on_bandwidth_axis(pt)) {
		/* At the left edge the HBM roof is hbm x x_lo FLOP/s; the point sits
		 * at its share of it (achieved / peak bandwidth), kept inside the frame. */
		*x = p->left + 8;
		*y = fmin(fmax(py(f, pt->achieved_bandwidth / hbm * (hbm * p->x.lo)), p->top + 8), p->bottom - 8);
		return true;
	}
	if (!(pt->intensity > 0) || !isfinite(pt->intensity) || !(pt->flops > 0))
		return false;
	*x = px(f, pt->intensity);
	*y = py(f, pt->flops);
	return true;
}

static void legend_line(struct svg *s, double y, const char *color, bool dashed, double width, const char *text)
{
	svg_line(s, LEGEND_LEFT, y - 4, LEGEND_LEFT + 30, y - 4, color, width, dashed);
	svg_text(s, LEGEND_LEFT + 38, y, 12, "start", "#222222", text);
}

/* The memory roofs' colours, HBM darkest: the slopes and the legend. */
static const char *const level_colors[RIDGE_LEVEL_COUNT] = { "#000000", "#555555", "#999999" };

/* A log axis over the whole decades around [lo, hi]. */
static struct svg_axis decades_axis(double lo, double hi, const char *title, const char *unit,
				    void (*format)(double, char *, size_t))
{
	return (struct svg_axis){ .scale = SVG_LOG,
				  .lo = pow(10, floor(log10(lo))),
				  .hi = pow(10, ceil(log10(hi))),
				  .title = title,
				  .unit = unit,
				  .format = format };
}

/* The frame and its axes: ranges in whole decades, wide enough for every
 * ridge and point. */
static struct svg_plot plot_frame(const struct roofline_plot *p, double top, double bottom, double hbm)
{
	double i_lo = 0.1, i_hi = top / hbm * 4, f_lo = bottom / 100, f_hi = top * 1.5;
	for (int i = 0; i < p->point_count; i++) {
		const struct roofline_plot_point *pt = &p->points[i];
		if (pt->intensity > 0 && isfinite(pt->intensity)) {
			if (pt->intensity / 2 < i_lo)
				i_lo = pt->intensity / 2;
			if (pt->intensity * 2 > i_hi)
				i_hi = pt->intensity * 2;
		}
		if (pt->flops > 0 && pt->flops / 2 < f_lo)
			f_lo = pt->flops / 2;
	}
	return (struct svg_plot){
		.left = 96,
		.top = FRAME_TOP,
		.right = 730,
		.bottom = 600,
		.x = decades_axis(i_lo, i_hi, "arithmetic intensity", "FLOP/byte", format_intensity),
		.y = decades_axis(f_lo, f_hi, "performance", "FLOP/s", format_flops),
	};
}

/* The title and the line under it: what the points are placed against. */
static void draw_title(struct svg *s, const struct roofline_plot *p, const char *title)
{
	char buf[200], rate[48], bw[48];
	svg_title(s, 28, 18, title);
	fmt_si(p->focus.peak_flops, "FLOP/s", rate, sizeof rate);
	fmt_si(p->focus.bandwidth, "B/s", bw, sizeof bw);
	snprintf(buf, sizeof buf, "points placed against %s %s%s (%s) and %s (%s); dense rates unless marked",
		 ridge_dtype_name(p->focus.dtype), p->focus.sparse ? "sparse " : "",
		 p->focus.matrix ? "matrix" : "vector", rate, roofline_level_label(p->focus.level), bw);
	const char *subtitle = p->subtitle ? p->subtitle : buf;
	double width = svg_text_width(13, subtitle), room = WIDTH - 16;
	svg_text(s, WIDTH / 2, 50, width > room ? 13 * room / width : 13, "middle", "#444444", subtitle);
}

/* The roofs: one slope per memory level, one line per ceiling, and the focus
 * ridge marked; their markers go into taken. */
static void draw_roofs(struct svg *s, struct frame *f, const struct roofline_plot *p, const struct ceiling_line *lines,
		       int n, const double *bw_levels, const bool *has_level)
{
	double hbm = bw_levels[RIDGE_LEVEL_HBM], top = lines[0].rate;
	for (int l = RIDGE_LEVEL_COUNT - 1; l >= 0; l--)
		if (has_level[l])
			draw_slope(s, f, bw_levels[l], top, level_colors[l], l != RIDGE_LEVEL_HBM, 2.2);
	for (int i = 0; i < n; i++) {
		const struct ceiling_line *c = &lines[i];
		double ridge = c->rate / hbm, y = py(f, c->rate);
		svg_line(s, px(f, ridge), y, f->plot.right, y, c->color, c->focus ? 3.2 : 1.8, c->dashed);
		svg_circle(s, px(f, ridge), y, c->focus ? 4.5 : 3, c->color, "#ffffff");
		mark(f, px(f, ridge), y, 4.5);
	}
	double fx = px(f, p->focus.ridge_point), fy = py(f, p->focus.peak_flops);
	svg_line(s, fx, fy, fx, f->plot.bottom, "#444444", 1, true);
}

/* A ceiling label's place: right-aligned just above its line or just below
 * it, or a row further off, slid left from the frame's right edge; of those
 * covering no label, the cheapest: a row off costs 100, a point covered 50,
 * each px reaching left of the line's ridge 4, each slide 1. False when
 * every place covers a label. */
static bool ceiling_label_spot(const struct frame *f, double y, double ridge_x, double size, const char *text,
			       double *x_out, double *y_out)
{
	double best = -1;
	for (int row = 0; row < 4 && best != 0; row++) {
		/* above, below, above one row up, below one row down */
		double base = row % 2 ? y + size + 3 + (row / 2) * (size + 4) : y - 5 - (row / 2) * (size + 4);
		for (int slide = 0; best != 0; slide++) {
			double x = f->plot.right - 6 - 12 * slide;
			struct svg_box box = svg_text_box(x, base, size, "end", text);
			int marks, texts = svg_labels_hits(f->taken, box, &marks);
			if (texts < 0)
				break;
			double cost = 100 * row + 50 * marks + 4 * fmax(0, ridge_x + 4 - box.x0) + slide;
			if (texts == 0 && (best < 0 || cost < best)) {
				best = cost;
				*x_out = x;
				*y_out = base;
			}
		}
	}
	return best >= 0;
}

/* The focus ridge's label at the frame's bottom, then each ceiling's
 * (ceiling_label_spot). A ceiling with no free place is left to the legend,
 * which names every ceiling. */
static void label_roofs(struct svg *s, struct frame *f, const struct roofline_plot *p, const struct ceiling_line *lines,
			int n, double hbm)
{
	char buf[200], rate[48];
	double fx = px(f, p->focus.ridge_point);
	snprintf(buf, sizeof buf, "ridge %.4g FLOP/B", p->focus.ridge_point);
	bool right = fx + 5 + svg_text_width(12, buf) < f->plot.right - 2; /* else left of the ridge line */
	svg_text_halo(s, right ? fx + 5 : fx - 5, f->plot.bottom - 8, 12, right ? "start" : "end", "#222222", buf);
	svg_labels_add(f->taken,
		       svg_text_box(right ? fx + 5 : fx - 5, f->plot.bottom - 8, 12, right ? "start" : "end", buf),
		       true);
	for (int i = 0; i < n; i++) {
		const struct ceiling_line *c = &lines[i];
		double size = c->focus ? 12 : 11, x = 0, y = 0;
		fmt_si(c->rate, "", rate, sizeof rate);
		snprintf(buf, sizeof buf, "%s %sFLOP/s", c->label, rate);
		if (!ceiling_label_spot(f, py(f, c->rate), px(f, c->rate / hbm), size, buf, &x, &y))
			continue;
		svg_text_halo(s, x, y, size, "end", c->color, buf);
		svg_labels_add(f->taken, svg_text_box(x, y, size, "end", buf), true);
	}
}

/* The points, before any label, so labels can avoid every point. Returns
 * how many have no FLOPs (drawn on the bandwidth axis; the legend says so). */
static int draw_points(struct svg *s, struct frame *f, const struct roofline_plot *p, double hbm)
{
	int zero_flop = 0;
	for (int i = 0; i < p->point_count; i++) {
		const struct roofline_plot_point *pt = &p->points[i];
		double x, y;
		if (!point_position(f, hbm, pt, &x, &y))
			continue;
		mark(f, x, y, 6);
		if (on_bandwidth_axis(pt)) {
			/* A hollow square on the left edge, as far up the memory roof as it got. */
			svg_raw(s,
				"<rect x=\"%.2f\" y=\"%.2f\" width=\"10\" height=\"10\" fill=\"#ffffff\" stroke=\"#1f5fbf\" stroke-width=\"1.8\"/>\n",
				x - 5, y - 5);
			zero_flop++;
			continue;
		}
		const char *color = pt->bound == RIDGE_BOUND_MEMORY ? "#1f5fbf" : "#c0392b";
		if (pt->has_link && pt->link_intensity > 0 && pt->link_flops > 0)
			svg_line(s, x, y, px(f, pt->link_intensity), py(f, pt->link_flops), "#777777", 1, true);
		if (pt->predicted) {
			svg_raw(s,
				"<path d=\"M %.2f %.2f L %.2f %.2f L %.2f %.2f L %.2f %.2f Z\" fill=\"#ffffff\" "
				"stroke=\"%s\" stroke-width=\"1.6\"/>\n",
				x, y - 6, x + 6, y, x, y + 6, x - 6, y, color);
			continue;
		}
		if (pt->measured && pt->attainable_flops > pt->flops)
			svg_line(s, x, y, x, py(f, pt->attainable_flops), color, 1.2, true);
		svg_circle(s, x, y, 5.5, color, "#ffffff");
	}
	return zero_flop;
}

/* Every labelled point's label, in order, on the nearest place that covers
 * no other label (svg_labels_place, anywhere in the frame), joined to its
 * point by a leader when set off; zero-FLOP points are labelled "name (0
 * FLOP)", predicted ones not at all. */
static void draw_labels(struct svg *s, struct frame *f, const struct roofline_plot *p, double hbm)
{
	double reach = hypot(f->plot.right - f->plot.left, f->plot.bottom - f->plot.top);
	for (int i = 0; i < p->point_count; i++) {
		const struct roofline_plot_point *pt = &p->points[i];
		double x, y;
		if (!pt->label || !pt->label[0] || pt->predicted || !point_position(f, hbm, pt, &x, &y))
			continue;
		char text[200];
		snprintf(text, sizeof text, "%s%s", pt->label, on_bandwidth_axis(pt) ? " (0 FLOP)" : "");
		const char *color = pt->bound == RIDGE_BOUND_MEMORY ? "#1f5fbf" : "#c0392b";
		struct svg_spot spot;
		svg_labels_place(f->taken, x, y, 13, text, reach, &spot);
		svg_label_draw(s, f->taken, &spot, x, y, 13, color, text);
	}
}

/* The legend's roofs: every ceiling line, then every memory level.
 * Returns the y below them. */
static double legend_roofs(struct svg *s, const struct ceiling_line *lines, int n, const double *bw_levels,
			   const bool *has_level)
{
	char buf[200], rate[48], bw[48];
	double y = FRAME_TOP + 6;
	svg_text(s, LEGEND_LEFT, y, 13, "start", "#000000", "compute ceilings (dense)");
	y += 20;
	for (int i = 0; i < n; i++, y += 18) {
		fmt_si(lines[i].rate, "", rate, sizeof rate);
		snprintf(buf, sizeof buf, "%s %s", lines[i].label, rate);
		if (strlen(buf) > 36) {
			/* Long shared labels wrap onto a second line. */
			legend_line(s, y, lines[i].color, lines[i].dashed, lines[i].focus ? 3.2 : 1.8, rate);
			y += 14;
			svg_text(s, LEGEND_LEFT + 38, y, 11, "start", "#444444", lines[i].label);
		} else {
			legend_line(s, y, lines[i].color, lines[i].dashed, lines[i].focus ? 3.2 : 1.8, buf);
		}
	}
	y += 10;
	svg_text(s, LEGEND_LEFT, y, 13, "start", "#000000", "memory bandwidth");
	y += 20;
	for (int l = 0; l < RIDGE_LEVEL_COUNT; l++, y += 18) {
		if (has_level[l]) {
			fmt_si(bw_levels[l], "B/s", bw, sizeof bw);
			snprintf(buf, sizeof buf, "%s %s", roofline_level_label((enum ridge_level)l), bw);
			legend_line(s, y, level_colors[l], l != RIDGE_LEVEL_HBM, 2.2, buf);
		} else {
			snprintf(buf, sizeof buf, "%s: bandwidth unknown", roofline_level_label((enum ridge_level)l));
			svg_text(s, LEGEND_LEFT + 38, y, 12, "start", "#888888", buf);
		}
	}
	return y;
}

/* The legend's kernels from y down: the point shapes the plot uses (a
 * zero-FLOP square and a predicted diamond only when drawn), then how to
 * read them. */
static void legend_kernels(struct svg *s, const struct roofline_plot *p, double y, int zero_flop)
{
	y += 10;
	svg_text(s, LEGEND_LEFT, y, 13, "start", "#000000", "kernels");
	y += 20;
	svg_circle(s, LEGEND_LEFT + 15, y - 4, 5.5, "#1f5fbf", "#ffffff");
	svg_text(s, LEGEND_LEFT + 38, y, 12, "start", "#222222", "memory-bound");
	y += 18;
	svg_circle(s, LEGEND_LEFT + 15, y - 4, 5.5, "#c0392b", "#ffffff");
	svg_text(s, LEGEND_LEFT + 38, y, 12, "start", "#222222", "compute-bound");
	y += 18;
	if (zero_flop) {
		svg_raw(s,
			"<rect x=\"%.2f\" y=\"%.2f\" width=\"10\" height=\"10\" fill=\"#ffffff\" stroke=\"#1f5fbf\" stroke-width=\"1.8\"/>\n",
			LEGEND_LEFT + 10, y - 9);
		svg_text(s, LEGEND_LEFT + 38, y, 12, "start", "#222222", "0 FLOP: left edge, share of");
		y += 16;
		svg_text(s, LEGEND_LEFT + 38, y, 12, "start", "#222222", "the memory roof reached");
		y += 18;
	}
	bool any_predicted = false;
	for (int i = 0; i < p->point_count; i++)
		any_predicted = any_predicted || p->points[i].predicted;
	if (any_predicted) {
		svg_raw(s,
			"<path d=\"M %.2f %.2f L %.2f %.2f L %.2f %.2f L %.2f %.2f Z\" fill=\"#ffffff\" stroke=\"#444444\" "
			"stroke-width=\"1.6\"/>\n",
			LEGEND_LEFT + 15, y - 10, LEGEND_LEFT + 21, y - 4, LEGEND_LEFT + 15, y + 2, LEGEND_LEFT + 9,
			y - 4);
		svg_text(s, LEGEND_LEFT + 38, y, 12, "start", "#222222", "predicted (dashed to measured)");
		y += 18;
	}
	svg_text(s, LEGEND_LEFT, y, 11, "start", "#444444", "modelled points sit on their roof;");
	y += 14;
	svg_text(s, LEGEND_LEFT, y, 11, "start", "#444444", "measured ones show the gap to it (dotted)");
	y += 14;
	svg_text(s, LEGEND_LEFT, y, 11, "start", "#444444", "solid: matrix (tensor cores); dashed: vector");
}

/* The plot in phases: the frame from the ceilings and points, the title and
 * axes, the roofs, the points, the roofs' labels, the points' labels (inside
 * the frame, clipped to it), the legend. */
int roofline_svg_write(const char *path, const struct roofline_plot *p, struct app_status *st)
{
	const struct ridge_gpu *g = p->gpu;
	struct ceiling_line lines[3 * RIDGE_DTYPE_COUNT];
	int n = collect_ceilings(p, lines, 3 * RIDGE_DTYPE_COUNT);
	if (n == 0) {
		app_error(st, "cannot draw '%s': %s has no peak rates", path, g->id);
		return -1;
	}
	double bw_levels[RIDGE_LEVEL_COUNT];
	bool has_level[RIDGE_LEVEL_COUNT];
	for (int l = 0; l < RIDGE_LEVEL_COUNT; l++)
		has_level[l] = roofline_bandwidth(g, (enum ridge_level)l, &bw_levels[l], NULL);
	double hbm = bw_levels[RIDGE_LEVEL_HBM];
	struct frame f = { plot_frame(p, lines[0].rate, lines[n - 1].rate, hbm), malloc(sizeof *f.taken) };
	if (!f.taken) {
		app_error_env(st, "out of memory while drawing '%s'", path);
		return -1;
	}

	char title[400];
	snprintf(title, sizeof title, "Roofline: %s (%s), %s ceilings", g->name, g->id, app_ceiling_source(g));
	struct svg s;
	svg_begin(&s, WIDTH, HEIGHT, title);
	draw_title(&s, p, title);
	svg_plot_axes(&s, &f.plot);
	const struct svg_plot *fp = &f.plot;
	svg_labels_init(f.taken, (struct svg_box){ fp->left + 2, fp->top + 2, fp->right - 2, fp->bottom - 2 });

	/* Clip everything drawn inside the frame to it. */
	svg_raw(&s,
		"<clipPath id=\"plot\"><rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"/></clipPath>\n"
		"<g clip-path=\"url(#plot)\">\n",
		fp->left, fp->top, fp->right - fp->left, fp->bottom - fp->top);
	draw_roofs(&s, &f, p, lines, n, bw_levels, has_level);
	int zero_flop = draw_points(&s, &f, p, hbm);
	label_roofs(&s, &f, p, lines, n, hbm);
	draw_labels(&s, &f, p, hbm);
	svg_raw(&s, "</g>\n");
	free(f.taken);

	double y = legend_roofs(&s, lines, n, bw_levels, has_level);
	legend_kernels(&s, p, y, zero_flop);

	svg_end(&s);
	int rc = svg_save(&s, path, st);
	svg_free(&s);
	return rc;
}
