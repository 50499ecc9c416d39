#include "layout.h"

static int clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static struct tui_rect rect(int y, int x, int h, int w)
{
	struct tui_rect r = { y, x, h < 0 ? 0 : h, w < 0 ? 0 : w };
	return r;
}

void tui_layout_compute(int lines, int cols, const struct tui_layout_spec *spec, int help_rows, struct tui_layout *out)
{
	*out = (struct tui_layout){ 0 };
	out->lines = lines;
	out->cols = cols;
	out->too_small = lines < TUI_MIN_LINES || cols < TUI_MIN_COLS;
	if (lines < 1 || cols < 1)
		return;
	out->tabs = rect(0, 0, 1, cols);
	out->status = rect(lines - 1, 0, lines > 1 ? 1 : 0, cols);
	out->body = rect(1, 0, lines - 2, cols);
	out->help = rect(0, 0, 0, 0);
	if (out->too_small)
		return;

	const struct tui_rect *b = &out->body;
	if (spec->form_on_top) {
		int rows = clamp(spec->form_rows, 1, b->h / 2);
		out->form = rect(b->y, 0, rows, cols);
		/* One blank row between the inputs and the view. */
		out->view = rect(b->y + rows + 1, 0, b->h - rows - 1, cols);
	} else {
		/* The inputs column: wide enough for "label  value" pairs, never
		 * more than 40% of the screen so the chart keeps its room. */
		int form_w = clamp(cols * 2 / 5, 30, 44);
		out->form = rect(b->y, 0, b->h, form_w);
		out->view = rect(b->y, form_w + 1, b->h, cols - form_w - 1);
	}
	int results = clamp(spec->results_rows, 0, out->view.h);
	out->results = rect(out->view.y, out->view.x, results, out->view.w);
	int chart_h = out->view.h - results;
	/* A chart under 4 rows says nothing: leave the room to the results. */
	if (chart_h < 4)
		out->chart = rect(out->view.y + out->view.h, out->view.x, 0, 0);
	else
		out->chart = rect(out->view.y + results, out->view.x, chart_h, out->view.w);

	int hw = clamp(76, 20, cols - 2);
	int hh = clamp(help_rows + 2, 3, lines - 2);
	out->help = rect((lines - hh) / 2, (cols - hw) / 2, hh, hw);
}

bool tui_rect_contains(const struct tui_rect *r, int y, int x)
{
	return y >= r->y && y < r->y + r->h && x >= r->x && x < r->x + r->w;
}
