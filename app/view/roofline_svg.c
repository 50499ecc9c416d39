#include "roofline_svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "svg.h"

#define WIDTH 1040.0
#define HEIGHT 680.0
#define PLOT_LEFT 96.0
#define PLOT_RIGHT 730.0
#define PLOT_TOP 74.0
#define PLOT_BOTTOM 600.0
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

/* Label boxes already drawn, so a new label can be moved off them. */
struct box {
	double x0, y0, x1, y1;
};

#define MAX_BOXES 1024

struct boxes {
	int count;
	struct box items[MAX_BOXES];
};

/* DejaVu Sans averages about 0.6 em per character. */
static struct box text_box(double x, double y, double size, const char *anchor, const char *text)
{
	double w = 0.6 * size * (double)strlen(text);
	double x0 = anchor[0] == 'e' ? x - w : anchor[0] == 'm' ? x - w / 2 : x;
	return (struct box){ x0, y - size, x0 + w, y + 3 };
}

static void boxes_add(struct boxes *b, struct box box)
{
	if (b->count < MAX_BOXES)
		b->items[b->count++] = box;
}

/* How many drawn things box would cover; leaving the plot counts as many. */
static int boxes_hits(const struct boxes *b, struct box box)
{
	if (box.x0 < PLOT_LEFT || box.x1 > PLOT_RIGHT || box.y0 < PLOT_TOP || box.y1 > PLOT_BOTTOM)
		return 1000;
	int hits = 0;
	for (int i = 0; i < b->count; i++) {
		const struct box *o = &b->items[i];
		if (box.x0 < o->x1 && o->x0 < box.x1 && box.y0 < o->y1 && o->y0 < box.y1)
			hits++;
	}
	return hits;
}

struct frame {
	double x_lo, x_hi, y_lo, y_hi;
};

static double px(const struct frame *f, double intensity)
{
	return svg_log_scale(intensity, f->x_lo, f->x_hi, PLOT_LEFT, PLOT_RIGHT);
}

static double py(const struct frame *f, double flops)
{
	return svg_log_scale(flops, f->y_lo, f->y_hi, PLOT_BOTTOM, PLOT_TOP);
}

static void format_decade(double v, bool flops, char *buf, size_t len)
{
	if (flops) {
		fmt_si(v, "", buf, len);
		size_t n = strlen(buf);
		while (n && buf[n - 1] == ' ')
			buf[--n] = '\0';
		return;
	}
	int e = (int)lround(log10(v));
	if (e >= -3 && e <= 4)
		snprintf(buf, len, "%g", v);
	else
		snprintf(buf, len, "1e%d", e);
}

static void draw_axes(struct svg *s, const struct frame *f)
{
	char buf[32];
	for (int e = (int)lround(log10(f->x_lo)); e <= (int)lround(log10(f->x_hi)); e++) {
		double v = pow(10, e), x = px(f, v);
		svg_line(s, x, PLOT_TOP, x, PLOT_BOTTOM, "#e3e3e3", 1, false);
		for (int m = 2; m < 10 && e < (int)lround(log10(f->x_hi)); m++) {
			double xm = px(f, v * m);
			svg_line(s, xm, PLOT_BOTTOM, xm, PLOT_BOTTOM - 4, "#999999", 1, false);
		}
		format_decade(v, false, buf, sizeof buf);
		svg_text(s, x, PLOT_BOTTOM + 18, 12, "middle", "#333333", buf);
	}
	for (int e = (int)lround(log10(f->y_lo)); e <= (int)lround(log10(f->y_hi)); e++) {
		double v = pow(10, e), y = py(f, v);
		svg_line(s, PLOT_LEFT, y, PLOT_RIGHT, y, "#e3e3e3", 1, false);
		for (int m = 2; m < 10 && e < (int)lround(log10(f->y_hi)); m++) {
			double ym = py(f, v * m);
			svg_line(s, PLOT_LEFT, ym, PLOT_LEFT + 4, ym, "#999999", 1, false);
		}
		format_decade(v, true, buf, sizeof buf);
		svg_text(s, PLOT_LEFT - 8, y + 4, 12, "end", "#333333", buf);
	}
	svg_rect(s, PLOT_LEFT, PLOT_TOP, PLOT_RIGHT - PLOT_LEFT, PLOT_BOTTOM - PLOT_TOP, NULL, "#555555");
	svg_text(s, (PLOT_LEFT + PLOT_RIGHT) / 2, PLOT_BOTTOM + 44, 14, "middle", "#000000",
		 "arithmetic intensity (FLOP/byte)");
	svg_raw(s,
		"<text x=\"%.2f\" y=\"%.2f\" font-size=\"14\" text-anchor=\"middle\" fill=\"#000000\" "
		"transform=\"rotate(-90 %.2f %.2f)\">performance (FLOP/s)</text>\n",
		28.0, (PLOT_TOP + PLOT_BOTTOM) / 2, 28.0, (PLOT_TOP + PLOT_BOTTOM) / 2);
}

/* A memory slope y = intensity x bandwidth from the left edge (or the bottom)
 * up to the highest ceiling. */
static void draw_slope(struct svg *s, const struct frame *f, double bandwidth, double top, const char *color,
		       bool dashed, double width)
{
	double x_start = f->x_lo, y_start = x_start * bandwidth;
	if (y_start < f->y_lo) {
		y_start = f->y_lo;
		x_start = f->y_lo / bandwidth;
	}
	double x_end = top / bandwidth;
	if (x_end > f->x_hi)
		x_end = f->x_hi;
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
	if (on_bandwidth_axis(pt)) {
		/* At the left edge the HBM roof is hbm x x_lo FLOP/s; the point sits
		 * at its share of it (achieved / peak bandwidth), kept inside the frame. */
		*x = PLOT_LEFT + 8;
		*y = fmin(fmax(py(f, pt->achieved_bandwidth / hbm * (hbm * f->x_lo)), PLOT_TOP + 8), PLOT_BOTTOM - 8);
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

/* Axis ranges in whole decades, wide enough for every ridge and point. */
static struct frame plot_frame(const struct roofline_plot *p, double top, double bottom, double hbm)
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
	return (struct frame){ pow(10, floor(log10(i_lo))), pow(10, ceil(log10(i_hi))), pow(10, floor(log10(f_lo))),
			       pow(10, ceil(log10(f_hi))) };
}

/* The title and the line under it: what the points are placed against. */
static void draw_title(struct svg *s, const struct roofline_plot *p, const char *title)
{
	char buf[200], rate[48], bw[48];
	svg_text(s, WIDTH / 2, 28, 18, "middle", "#000000", title);
	fmt_si(p->focus.peak_flops, "FLOP/s", rate, sizeof rate);
	fmt_si(p->focus.bandwidth, "B/s", bw, sizeof bw);
	snprintf(buf, sizeof buf, "points placed against %s %s%s (%s) and %s (%s); dense rates unless marked",
		 ridge_dtype_name(p->focus.dtype), p->focus.sparse ? "sparse " : "",
		 p->focus.matrix ? "matrix" : "vector", rate, roofline_level_label(p->focus.level), bw);
	svg_text(s, WIDTH / 2, 50, 13, "middle", "#444444", p->subtitle ? p->subtitle : buf);
}

/* The roofs: one slope per memory level, one line per ceiling with its
 * label, and the focus ridge; what they cover goes into taken, so the
 * points' labels avoid it. */
static void draw_roofs(struct svg *s, const struct frame *f, const struct roofline_plot *p,
		       const struct ceiling_line *lines, int n, const double *bw_levels, const bool *has_level,
		       struct boxes *taken)
{
	char buf[200], rate[48];
	double hbm = bw_levels[RIDGE_LEVEL_HBM], top = lines[0].rate;
	for (int l = RIDGE_LEVEL_COUNT - 1; l >= 0; l--)
		if (has_level[l])
			draw_slope(s, f, bw_levels[l], top, level_colors[l], l != RIDGE_LEVEL_HBM, 2.2);

	for (int i = 0; i < n; i++) {
		const struct ceiling_line *c = &lines[i];
		double ridge = c->rate / hbm, y = py(f, c->rate);
		svg_line(s, px(f, ridge), y, PLOT_RIGHT, y, c->color, c->focus ? 3.2 : 1.8, c->dashed);
		svg_circle(s, px(f, ridge), y, c->focus ? 4.5 : 3, c->color, "#ffffff");
		fmt_si(c->rate, "", rate, sizeof rate);
		snprintf(buf, sizeof buf, "%s %sFLOP/s", c->label, rate);
		svg_text_halo(s, PLOT_RIGHT - 6, y - 5, c->focus ? 12 : 11, "end", c->color, buf);
		boxes_add(taken, text_box(PLOT_RIGHT - 6, y - 5, c->focus ? 12 : 11, "end", buf));
	}
	/* The focus ridge: where its roof bends. */
	double fx = px(f, p->focus.ridge_point), fy = py(f, p->focus.peak_flops);
	svg_line(s, fx, fy, fx, PLOT_BOTTOM, "#444444", 1, true);
	snprintf(buf, sizeof buf, "ridge %.4g FLOP/B", p->focus.ridge_point);
	svg_text_halo(s, fx + 5, PLOT_BOTTOM - 8, 12, "start", "#222222", buf);
	boxes_add(taken, text_box(fx + 5, PLOT_BOTTOM - 8, 12, "start", buf));
}

/* The points, before any label, so labels can avoid every point. Returns
 * how many have no FLOPs (drawn on the bandwidth axis; the legend says so). */
static int draw_points(struct svg *s, const struct frame *f, const struct roofline_plot *p, double hbm,
		       struct boxes *taken)
{
	int zero_flop = 0;
	for (int i = 0; i < p->point_count; i++) {
		const struct roofline_plot_point *pt = &p->points[i];
		double x, y;
		if (!point_position(f, hbm, pt, &x, &y))
			continue;
		if (on_bandwidth_axis(pt)) {
			/* A hollow square on the left edge, as far up the memory roof as it got. */
			svg_raw(s,
				"<rect x=\"%.2f\" y=\"%.2f\" width=\"10\" height=\"10\" fill=\"#ffffff\" stroke=\"#1f5fbf\" stroke-width=\"1.8\"/>\n",
				x - 5, y - 5);
			boxes_add(taken, (struct box){ x - 6, y - 6, x + 6, y + 6 });
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
			boxes_add(taken, (struct box){ x - 6, y - 6, x + 6, y + 6 });
			continue;
		}
		if (pt->measured && pt->attainable_flops > pt->flops)
			svg_line(s, x, y, x, py(f, pt->attainable_flops), color, 1.2, true);
		svg_circle(s, x, y, 5.5, color, "#ffffff");
		boxes_add(taken, (struct box){ x - 6, y - 6, x + 6, y + 6 });
	}
	return zero_flop;
}

/* One point's label, greedily: the nearest candidate spot that covers
 * nothing drawn so far (points, ceiling labels, earlier labels), else the
 * one covering least. Candidates ring the point at growing distances, left,
 * right, above and below; a label set off from its point gets a leader line. */
static void draw_label(struct svg *s, double x, double y, const char *color, const char *text, struct boxes *taken)
{
	double best_dx = 9, best_dy = -9;
	const char *best_anchor = "start";
	int best_hits = 1 << 30;
	for (int ring = 0; ring < 30 && best_hits > 0; ring++) {
		double r = 18.0 * ring;
		const struct {
			double dx, dy;
			const char *anchor;
		} spots[] = {
			{ 9 + r * 0.3, -9 - r, "start" }, { -9 - r * 0.3, -9 - r, "end" },
			{ 9 + r * 0.3, 19 + r, "start" }, { -9 - r * 0.3, 19 + r, "end" },
			{ 9 + 2 * r, 4, "start" },        { -9 - 2 * r, 4, "end" },
		};
		for (size_t k = 0; k < sizeof spots / sizeof spots[0] && best_hits > 0; k++) {
			int hits = boxes_hits(taken,
					      text_box(x + spots[k].dx, y + spots[k].dy, 13, spots[k].anchor, text));
			if (hits < best_hits) {
				best_hits = hits;
				best_dx = spots[k].dx;
				best_dy = spots[k].dy;
				best_anchor = spots[k].anchor;
			}
		}
	}
	struct box b = text_box(x + best_dx, y + best_dy, 13, best_anchor, text);
	boxes_add(taken, b);
	if (fabs(best_dy) > 20 || fabs(best_dx) > 20) {
		/* The leader runs from the point to the nearest corner of the label. */
		double lx = best_anchor[0] == 'e' ? b.x1 : b.x0, ly = best_dy < 0 ? b.y1 : b.y0;
		if (fabs(best_dy) <= 20)
			ly = (b.y0 + b.y1) / 2;
		svg_line(s, x, y, lx, ly, color, 0.8, false);
	}
	svg_text_halo(s, x + best_dx, y + best_dy, 13, best_anchor, color, text);
}

/* Every labelled point's label, in order (draw_label); zero-FLOP points
 * are labelled "name (0 FLOP)", predicted ones not at all. */
static void draw_labels(struct svg *s, const struct frame *f, const struct roofline_plot *p, double hbm,
			struct boxes *taken)
{
	for (int i = 0; i < p->point_count; i++) {
		const struct roofline_plot_point *pt = &p->points[i];
		double x, y;
		if (!pt->label || !pt->label[0] || pt->predicted || !point_position(f, hbm, pt, &x, &y))
			continue;
		char text[200];
		snprintf(text, sizeof text, "%s%s", pt->label, on_bandwidth_axis(pt) ? " (0 FLOP)" : "");
		const char *color = pt->bound == RIDGE_BOUND_MEMORY ? "#1f5fbf" : "#c0392b";
		draw_label(s, x, y, color, text, taken);
	}
}

/* The legend's roofs: every ceiling line, then every memory level.
 * Returns the y below them. */
static double legend_roofs(struct svg *s, const struct ceiling_line *lines, int n, const double *bw_levels,
			   const bool *has_level)
{
	char buf[200], rate[48], bw[48];
	double y = PLOT_TOP + 6;
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

/* The plot in phases: the frame from the ceilings and points, the title,
 * the roofs, the points, their labels (clipped to the frame), the legend. */
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
	struct frame f = plot_frame(p, lines[0].rate, lines[n - 1].rate, hbm);

	char title[400];
	snprintf(title, sizeof title, "Roofline: %s (%s), %s ceilings", g->name, g->id, app_ceiling_source(g));
	struct svg s;
	svg_begin(&s, WIDTH, HEIGHT, title);
	draw_title(&s, p, title);
	draw_axes(&s, &f);

	/* Clip everything drawn inside the frame to it. */
	svg_raw(&s,
		"<clipPath id=\"plot\"><rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"/></clipPath>\n"
		"<g clip-path=\"url(#plot)\">\n",
		PLOT_LEFT, PLOT_TOP, PLOT_RIGHT - PLOT_LEFT, PLOT_BOTTOM - PLOT_TOP);
	struct boxes taken = { 0 };
	draw_roofs(&s, &f, p, lines, n, bw_levels, has_level, &taken);
	int zero_flop = draw_points(&s, &f, p, hbm, &taken);
	draw_labels(&s, &f, p, hbm, &taken);
	svg_raw(&s, "</g>\n");

	double y = legend_roofs(&s, lines, n, bw_levels, has_level);
	legend_kernels(&s, p, y, zero_flop);

	svg_end(&s);
	int rc = svg_save(&s, path, st);
	svg_free(&s);
	return rc;
}
