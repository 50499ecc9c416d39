/* Occupancy panel: the inputs, the result and every resource's block limit
 * on the left; occupancy over block sizes (the sweep) on the right. */
#include <math.h>
#include <ncurses.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "draw.h"

void tui_spec_occupancy(const struct tui_state *s, struct tui_layout_spec *spec)
{
	(void)s;
	spec->form_on_top = false;
	spec->results_rows = 0;
}

static const char *const limiter_labels[RIDGE_OCC_LIMITER_COUNT] = {
	[RIDGE_OCC_WARPS] = "warps",   [RIDGE_OCC_REGISTERS] = "registers", [RIDGE_OCC_SHARED_MEMORY] = "shared memory",
	[RIDGE_OCC_BLOCKS] = "blocks", [RIDGE_OCC_BARRIERS] = "barriers",   [RIDGE_OCC_VIRTUAL] = "virtual",
};

static void draw_numbers(const struct tui_state *s, const struct tui_layout *l)
{
	const struct tui_occupancy_results *r = &s->out.occupancy;
	const struct ridge_gpu *gpu = tui_state_gpu(s);
	int x = l->form.x + 1, w = l->form.w - 2;
	int y = l->form.y + tui_form_rows(s) + 1, bottom = l->form.y + l->form.h;
	if (!r->ok) {
		tui_put(y, x, w, TUI_ROLE_BAD, "%s", r->error);
		return;
	}
	const struct ridge_occupancy_result *o = &r->analysis.result;
	bool amd = gpu->vendor == RIDGE_VENDOR_AMD;
	enum tui_role level = o->occupancy >= 0.5 ? TUI_ROLE_GOOD : o->occupancy > 0 ? TUI_ROLE_WARN : TUI_ROLE_BAD;
	tui_put_pair(y++, x, w, "occupancy", level, "%.4g%%", o->occupancy * 100);
	if (y < bottom)
		tui_put_pair(y++, x, w, amd ? "workgroups/CU" : "blocks/SM", TUI_ROLE_RESULT, "%d", o->blocks_per_sm);
	if (y < bottom)
		tui_put_pair(y++, x, w, amd ? "waves" : "warps", TUI_ROLE_RESULT, "%d of %d", o->active_warps,
			     o->max_warps);
	if (y < bottom)
		tui_put_pair(y++, x, w, "limiter", TUI_ROLE_WARN, "%s", occupancy_limiter_name(o->limiter));
	if (y < bottom)
		tui_put(y++, x, w, TUI_ROLE_TITLE, "%s", "blocks allowed by");
	for (int i = 0; i < RIDGE_OCC_LIMITER_COUNT && y < bottom; i++) {
		if (o->limit[i] == RIDGE_OCC_UNLIMITED)
			continue;
		bool binding = (o->limiter_mask >> i) & 1u;
		tui_put_pair(y++, x, w, limiter_labels[i], binding ? TUI_ROLE_WARN : TUI_ROLE_VALUE, "%d%s",
			     o->limit[i], binding ? " <" : "  ");
	}
	char a[32];
	fmt_bytes(o->smem_per_block, a, sizeof a);
	if (y < bottom)
		tui_put_pair(y++, x, w, amd ? "LDS/workgroup" : "smem/block", TUI_ROLE_VALUE, "%s", a);
	if (r->analysis.has_regs_change && y < bottom)
		tui_put(y++, x, w, TUI_ROLE_DIM, "-%d regs/thread: +1 block", r->analysis.regs_to_drop);
	if (r->analysis.has_smem_change && y < bottom) {
		fmt_bytes(r->analysis.smem_to_drop, a, sizeof a);
		tui_put(y++, x, w, TUI_ROLE_DIM, "-%s smem: +1 block", a);
	}
	/* A legal configuration that cannot launch: why. */
	if (o->dynamic_over_max && y < bottom)
		tui_put(y++, x, w, TUI_ROLE_BAD, "%s", "dynamic smem needs opt-in");
	if (o->smem_over_block && y < bottom)
		tui_put(y++, x, w, TUI_ROLE_BAD, "%s", "smem over the per-block limit");
	if (o->regs_over_block && y < bottom)
		tui_put(y++, x, w, TUI_ROLE_BAD, "%s", "registers over the per-block limit");
	if (o->threads_over_block && y < bottom)
		tui_put(y++, x, w, TUI_ROLE_BAD, "%s", "block larger than allowed");
	if (amd && !o->amd.rules_agree && y < bottom)
		tui_put(y++, x, w, TUI_ROLE_WARN, "HIP's API says %d", o->amd.hip_blocks_per_cu);
	if (r->has_best && y < bottom)
		tui_put_pair(y++, x, w, "best block", TUI_ROLE_GOOD, "%d thr", r->best_block_size);
}

static struct braille_canvas canvas;

void tui_draw_occupancy(const struct tui_state *s, const struct tui_layout *l, bool ascii)
{
	draw_numbers(s, l);
	const struct tui_occupancy_results *r = &s->out.occupancy;
	const struct tui_rect *v = &l->view;
	const struct ridge_gpu *gpu = tui_state_gpu(s);
	if (!gpu || !r->ok || r->sweep_count < 2 || v->w < 20 || v->h < 8)
		return;
	const int label_l = 5;
	struct tui_rect plot = tui_chart_plot(v, label_l, 1, &canvas);
	tui_put(v->y, v->x, v->w, TUI_ROLE_TITLE, "occupancy vs block size, %s", gpu->id);
	int W = canvas.width, H = canvas.height;
	double t_lo = r->sweep_threads[0], t_hi = r->sweep_threads[r->sweep_count - 1];
#define PX(t) braille_lin_pos((t), t_lo, t_hi, W)
#define PY(o) ((H - 1) - braille_lin_pos((o), 0, 1, H))
	/* Grid lines at 25% steps. */
	for (int q = 1; q <= 3; q++)
		for (int px = 0; px < W; px += 6)
			braille_set(&canvas, px, (int)lround(PY(q / 4.0)), TUI_ROLE_AXIS);
	/* The sweep as steps: occupancy holds until the next block size. */
	for (int i = 0; i < r->sweep_count; i++) {
		double x0 = PX(r->sweep_threads[i]);
		double y0 = PY(r->sweep_occupancy[i]);
		if (i + 1 < r->sweep_count) {
			double x1 = PX(r->sweep_threads[i + 1]);
			double y1 = PY(r->sweep_occupancy[i + 1]);
			braille_line(&canvas, x0, y0, x1, y0, TUI_ROLE_CURVE);
			braille_line(&canvas, x1, y0, x1, y1, TUI_ROLE_CURVE);
		}
	}
	/* The current block size: a vertical line and the point. */
	double cur = s->in.threads;
	if (cur >= t_lo && cur <= t_hi) {
		double px = PX(cur);
		for (int py = 0; py < H; py += 2)
			braille_set(&canvas, (int)lround(px), py, TUI_ROLE_POINT);
		double py = PY(r->analysis.result.occupancy);
		braille_line(&canvas, px - 2, py, px + 2, py, TUI_ROLE_POINT);
		braille_line(&canvas, px, py - 2, px, py + 2, TUI_ROLE_POINT);
	}
	tui_draw_canvas(&canvas, plot.y, plot.x, ascii);
	for (int q = 0; q <= 4; q++) {
		int row = (int)lround(PY(q / 4.0)) / 4;
		tui_put_right(plot.y + row, v->x, label_l - 1, TUI_ROLE_AXIS, "%d%%", q * 25);
	}
	int axis_y = plot.y + plot.h;
	int last_end = -1;
	for (int i = 0; i < r->sweep_count; i++) {
		int t = r->sweep_threads[i];
		/* Label powers of two and the ends. */
		if ((t & (t - 1)) != 0 && i != r->sweep_count - 1)
			continue;
		char text[16];
		snprintf(text, sizeof text, "%d", t);
		int n = (int)strlen(text);
		int at = plot.x + (int)lround(PX(t)) / 2 - n / 2;
		if (at < plot.x)
			at = plot.x;
		if (at + n > plot.x + plot.w)
			at = plot.x + plot.w - n;
		if (at <= last_end)
			continue;
		tui_put(axis_y, at, n, TUI_ROLE_AXIS, "%s", text);
		last_end = at + n;
	}
#undef PX
#undef PY
}
