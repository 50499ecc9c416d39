/* Roofline panel: the inputs and numbers on the left, a log-log braille plot
 * on the right with every dtype's ceiling, every known memory level and the
 * kernel's point. Each plotted value is the model's: ceilings and ridge
 * points from roofline_ceiling_from(), curves sampled per pixel column
 * through roofline_attainable(). */
#include <math.h>
#include <ncurses.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "draw.h"

void tui_spec_roofline(const struct tui_state *s, struct tui_layout_spec *spec)
{
	(void)s;
	spec->form_on_top = false;
	spec->results_rows = 0; /* numbers go under the inputs: the plot takes the view */
}

static void draw_numbers(const struct tui_state *s, const struct tui_layout *l)
{
	const struct tui_roofline_results *r = &s->out.roofline;
	int x = l->form.x + 1, w = l->form.w - 2;
	int y = l->form.y + tui_form_rows(s) + 1, bottom = l->form.y + l->form.h;
	char a[48], b[48];
	if (!r->ok) {
		tui_put(y, x, w, TUI_ROLE_BAD, "%s", r->error);
		return;
	}
	const struct ridge_roofline_point *p = &r->point;
	const struct ridge_roofline_ceiling *c = &r->ceiling;
	if (r->has_cost && y < bottom) {
		fmt_si(r->cost.flops, "FLOP", a, sizeof a);
		tui_put_pair(y++, x, w, "FLOPs", TUI_ROLE_RESULT, "%s", a);
		fmt_si(r->cost.bytes, "B", a, sizeof a);
		if (y < bottom)
			tui_put_pair(y++, x, w, "bytes", TUI_ROLE_RESULT, "%s", a);
		const struct ridge_gemm_l2 *l2 = &r->cost.l2;
		/* A tiled GEMM's L2-aware traffic (model/intensity.h, intensity_gemm_l2);
		 * a library GEMM's bytes above are already its DRAM model. */
		if (l2->modelled && !l2->library && y < bottom) {
			fmt_si(l2->hbm_bytes, "B", a, sizeof a);
			fmt_si(l2->l2_traffic, "B", b, sizeof b);
			tui_put_pair(y++, x, w, "HBM / L2", TUI_ROLE_RESULT, "%s / %s", a, b);
			if (y < bottom)
				tui_put(y++, x, w, TUI_ROLE_DIM, "wave %.17g CTAs; A %s (x%.4g), B %s (x%.4g)",
					l2->wave_ctas, l2->a_resident ? "stays in L2" : "re-read", l2->a_reads,
					l2->b_resident ? "stays in L2" : "re-read", l2->b_reads);
		}
	}
	if (y < bottom)
		tui_put_pair(y++, x, w, "intensity", TUI_ROLE_RESULT, "%.4g FLOP/B", p->intensity);
	fmt_si(c->peak_flops, "FLOP/s", a, sizeof a);
	if (y < bottom)
		tui_put_pair(y++, x, w, c->matrix ? "peak (matrix)" : "peak (vector)", TUI_ROLE_VALUE, "%s", a);
	fmt_si(c->bandwidth, "B/s", b, sizeof b);
	if (y < bottom)
		tui_put_pair(y++, x, w, roofline_level_label(c->level), TUI_ROLE_VALUE, "%s", b);
	if (y < bottom)
		tui_put_pair(y++, x, w, "ridge point", TUI_ROLE_VALUE, "%.4g FLOP/B", c->ridge_point);
	fmt_si(p->attainable_flops, "FLOP/s", a, sizeof a);
	if (y < bottom)
		tui_put_pair(y++, x, w, "attainable", TUI_ROLE_GOOD, "%s", a);
	if (y < bottom)
		tui_put_pair(y++, x, w, "bound", p->bound == RIDGE_BOUND_MEMORY ? TUI_ROLE_WARN : TUI_ROLE_GOOD, "%s",
			     roofline_bound_name(p->bound));
	if (p->has_work && y < bottom) {
		fmt_seconds(p->time_floor_s, a, sizeof a);
		tui_put_pair(y++, x, w, "time floor", TUI_ROLE_RESULT, "%s", a);
	}
	if (r->has_time_model && y < bottom) {
		const struct ridge_kernel_time *t = &r->time_model;
		fmt_seconds(t->predicted_time_s, a, sizeof a);
		fmt_seconds(t->fixed_cost.value, b, sizeof b);
		tui_put_pair(y++, x, w, "predicted", TUI_ROLE_RESULT, "%s (eff %.3g / %.3g, fixed %s)", a,
			     t->compute_efficiency.value, t->memory_efficiency.value, b);
		if (y < bottom) {
			/* How far to trust it: P10-P90 of held-out errors of its class. */
			fmt_seconds(t->predicted_time_range_s[0], a, sizeof a);
			fmt_seconds(t->predicted_time_range_s[1], b, sizeof b);
			tui_put_pair(y++, x, w, "range", TUI_ROLE_VALUE, "%s - %s (%s)", a, b,
				     ridge_provenance_name(t->provenance));
		}
	}
	if (r->has_cost && r->cost.matrix_work && y < bottom) {
		if (r->path.tensor_eligible && !r->path.fast_path)
			tui_put(y++, x, w, TUI_ROLE_WARN, "tensor cores, off the aligned fast path: %s",
				r->path.reason);
		else if (r->path.tensor_eligible)
			tui_put_pair(y++, x, w, "tensor cores", TUI_ROLE_GOOD, "%s",
				     r->path.uses_matrix ? "used" : "eligible");
		else
			tui_put(y++, x, w, TUI_ROLE_WARN, "no tensor cores: %s", r->path.reason);
	}
	if (r->has_cost && r->path.note[0] && y < bottom)
		tui_put(y++, x, w, TUI_ROLE_DIM, "%s", r->path.note);
}

static void si_short(double v, char *buf, size_t len)
{
	static const char *const prefixes[] = { "", "K", "M", "G", "T", "P", "E" };
	int i = 0;
	while (v >= 1000 && i < 6) {
		v /= 1000;
		i++;
	}
	snprintf(buf, len, "%.3g%s", v, prefixes[i]);
}

/* The canvas is large (256 KiB): one per process, like the screen itself. */
static struct braille_canvas canvas;

void tui_draw_roofline(const struct tui_state *s, const struct tui_layout *l, bool ascii)
{
	draw_numbers(s, l);
	const struct tui_roofline_results *r = &s->out.roofline;
	const struct tui_rect *v = &l->view;
	const struct ridge_gpu *gpu = tui_state_gpu(s);
	if (!gpu || v->w < 24 || v->h < 8)
		return;
	/* Title row, plot, x-axis row; y labels on the left, ceiling labels on the right. */
	const int label_l = 5, label_r = 11;
	struct tui_rect plot = tui_chart_plot(v, label_l, label_r, &canvas);
	tui_put(v->y, v->x, v->w, TUI_ROLE_TITLE, "%s roofline: FLOP/s vs FLOP/byte", gpu->id);
	int W = canvas.width, H = canvas.height;

	/* Ranges: every ridge point and the kernel's point, with room around. */
	double max_peak = 0, min_peak = INFINITY, lo_i = INFINITY, hi_i = 0;
	const int sel_level = s->in.roofline_level;
	for (int i = 0; i < r->compute_count; i++) {
		max_peak = fmax(max_peak, r->compute[i].peak);
		min_peak = fmin(min_peak, r->compute[i].peak);
		for (int lv = 0; lv < RIDGE_LEVEL_COUNT; lv++) {
			struct ridge_roofline_ceiling c;
			if (!r->has_level[lv] ||
			    roofline_ceiling_from(r->compute[i].peak, r->level_bandwidth[lv], &c, NULL, 0) != 0)
				continue;
			lo_i = fmin(lo_i, c.ridge_point);
			hi_i = fmax(hi_i, c.ridge_point);
		}
	}
	if (r->compute_count == 0 || !(hi_i > 0))
		return;
	if (r->ok) {
		lo_i = fmin(lo_i, r->point.intensity);
		hi_i = fmax(hi_i, r->point.intensity);
	}
	double x_lo = pow(10, floor(log10(lo_i / 4))), x_hi = pow(10, ceil(log10(hi_i * 4)));
	double y_hi = pow(10, ceil(log10(max_peak * 1.5)));
	double lowest_bw = INFINITY;
	for (int lv = 0; lv < RIDGE_LEVEL_COUNT; lv++)
		if (r->has_level[lv])
			lowest_bw = fmin(lowest_bw, r->level_bandwidth[lv]);
	double y_min = fmin(roofline_attainable(max_peak, lowest_bw, x_lo), min_peak);
	if (r->ok)
		y_min = fmin(y_min, r->point.attainable_flops);
	double y_lo = pow(10, floor(log10(y_min / 1.5)));
	/* Canvas y grows downwards. */
#define PX(i) braille_log_pos((i), x_lo, x_hi, W)
#define PY(f) ((H - 1) - braille_log_pos((f), y_lo, y_hi, H))

	/* Memory diagonals, each up to the highest ceiling. */
	for (int lv = 0; lv < RIDGE_LEVEL_COUNT; lv++) {
		if (!r->has_level[lv])
			continue;
		double prev_x = 0, prev_y = 0;
		for (int px = 0; px < W; px++) {
			double intensity = pow(10, log10(x_lo) + (log10(x_hi) - log10(x_lo)) * px / (W - 1));
			double f = roofline_attainable(max_peak, r->level_bandwidth[lv], intensity);
			double py = PY(f);
			if (px > 0)
				braille_line(&canvas, prev_x, prev_y, px, py,
					     lv == sel_level ? TUI_ROLE_MEMORY : TUI_ROLE_AXIS);
			prev_x = px;
			prev_y = py;
		}
	}
	/* Compute ceilings: flat from each one's ridge point against the chosen level. */
	double sel_bw = r->has_level[sel_level] ? r->level_bandwidth[sel_level] : lowest_bw;
	int label_row_used[BRAILLE_MAX_ROWS] = { 0 };
	for (int i = 0; i < r->compute_count; i++) {
		const struct tui_roofline_compute *c = &r->compute[i];
		bool selected =
			r->ok && c->peak == r->ceiling.peak_flops && c->dtype == (enum ridge_dtype)s->in.roofline_dtype;
		struct ridge_roofline_ceiling ceil;
		if (roofline_ceiling_from(c->peak, sel_bw, &ceil, NULL, 0) != 0)
			continue;
		double py = PY(c->peak);
		braille_line(&canvas, PX(ceil.ridge_point), py, W - 1, py, selected ? TUI_ROLE_COMPUTE : TUI_ROLE_AXIS);
		int row = (int)lround(py) / 4;
		if (row >= 0 && row < plot.h && (!label_row_used[row] || selected)) {
			char peak[16];
			si_short(c->peak, peak, sizeof peak);
			tui_put(plot.y + row, plot.x + plot.w + 1, label_r - 1,
				selected ? TUI_ROLE_COMPUTE : TUI_ROLE_DIM, "%s%s %s", ridge_dtype_name(c->dtype),
				c->matrix ? "" : "v", peak);
			label_row_used[row] = 1;
		}
	}
	/* The kernel's point: a small cross. */
	int point_row = -1, point_col = -1;
	if (r->ok) {
		double px = PX(r->point.intensity), py = PY(r->point.attainable_flops);
		braille_line(&canvas, px - 2, py, px + 2, py, TUI_ROLE_POINT);
		braille_line(&canvas, px, py - 2, px, py + 2, TUI_ROLE_POINT);
		point_row = (int)lround(py) / 4;
		point_col = (int)lround(px) / 2;
	}
	tui_draw_canvas(&canvas, plot.y, plot.x, ascii);

	/* Axes: decades. */
	for (double f = y_lo; f <= y_hi * 1.0001; f *= 10) {
		int row = (int)lround(PY(f)) / 4;
		char t[16];
		si_short(f, t, sizeof t);
		if (row >= 0 && row < plot.h)
			tui_put_right(plot.y + row, v->x, label_l - 1, TUI_ROLE_AXIS, "%s", t);
	}
	int axis_y = plot.y + plot.h;
	for (double i = x_lo; i <= x_hi * 1.0001; i *= 10) {
		int col = (int)lround(PX(i)) / 2;
		char t[16];
		if (i < 1)
			snprintf(t, sizeof t, "%g", i);
		else
			si_short(i, t, sizeof t);
		int n = (int)strlen(t);
		int at = plot.x + col - n / 2;
		if (at < plot.x)
			at = plot.x;
		if (at + n <= plot.x + plot.w)
			tui_put(axis_y, at, n, TUI_ROLE_AXIS, "%s", t);
	}
	/* Labels: the memory levels along their diagonals, the point. */
	for (int lv = 0; lv < RIDGE_LEVEL_COUNT; lv++) {
		if (!r->has_level[lv])
			continue;
		double i_at = pow(10, log10(x_lo) + (log10(x_hi) - log10(x_lo)) * 0.12);
		int row = (int)lround(PY(roofline_attainable(max_peak, r->level_bandwidth[lv], i_at))) / 4 + 1;
		int col = (int)lround(PX(i_at)) / 2 + 1;
		if (row >= 0 && row < plot.h)
			tui_put(plot.y + row, plot.x + col, plot.w - col,
				lv == sel_level ? TUI_ROLE_MEMORY : TUI_ROLE_DIM, "%s",
				roofline_level_name((enum ridge_level)lv));
	}
	if (point_row >= 0 && point_row < plot.h && point_col + 2 < plot.w) {
		const char *mark = r->point.bound == RIDGE_BOUND_MEMORY ? "memory-bound" : "compute-bound";
		int col = point_col + 2;
		int n = (int)strlen(mark);
		if (col + n > plot.w)
			col = point_col - 1 - n;
		int row = point_row + 1 < plot.h ? point_row + 1 : point_row - 1;
		if (col >= 0)
			tui_put(plot.y + row, plot.x + col, n, TUI_ROLE_POINT, "%s", mark);
	}
#undef PX
#undef PY
}
