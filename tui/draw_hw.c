/* Hardware panel: one GPU's entry, or two side by side with their ratio. */
#include <ncurses.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "draw.h"

void tui_spec_hw(const struct tui_state *s, struct tui_layout_spec *spec)
{
	(void)s;
	spec->form_on_top = true;
	spec->form_rows = 1;
	spec->results_rows = 1000; /* all text, no chart */
}

typedef void (*cell_fn)(const struct ridge_gpu *g, char *buf, size_t len);
typedef double (*number_fn)(const struct ridge_gpu *g);

struct hw_row {
	const char *label;
	cell_fn cell;
	number_fn number; /* for the ratio column; NULL: no ratio */
};

static void cell_name(const struct ridge_gpu *g, char *b, size_t n)
{
	snprintf(b, n, "%s", g->name);
}
static void cell_arch(const struct ridge_gpu *g, char *b, size_t n)
{
	if (g->vendor == RIDGE_VENDOR_AMD)
		snprintf(b, n, "AMD %s %s", g->arch, g->gfx_target);
	else
		snprintf(b, n, "NVIDIA %s sm_%d%d", g->arch, g->cc_major, g->cc_minor);
}
static void cell_units(const struct ridge_gpu *g, char *b, size_t n)
{
	snprintf(b, n, "%d %s @ %.0f MHz", g->sm_count, g->vendor == RIDGE_VENDOR_AMD ? "CUs" : "SMs",
		 g->boost_clock_hz / 1e6);
}
static double num_units(const struct ridge_gpu *g)
{
	return g->sm_count;
}
static void cell_memory(const struct ridge_gpu *g, char *b, size_t n)
{
	char size[32];
	fmt_bytes(g->memory_bytes, size, sizeof size);
	snprintf(b, n, "%s %s", size, g->memory_type);
}
static double num_memory(const struct ridge_gpu *g)
{
	return g->memory_bytes;
}
static void cell_bandwidth(const struct ridge_gpu *g, char *b, size_t n)
{
	fmt_si(g->memory_bandwidth, "B/s", b, n);
}
static double num_bandwidth(const struct ridge_gpu *g)
{
	return g->memory_bandwidth;
}
static void cell_l2(const struct ridge_gpu *g, char *b, size_t n)
{
	char l2[32], ic[32];
	fmt_bytes(g->l2_bytes, l2, sizeof l2);
	if (g->has_infinity_cache) {
		fmt_bytes(g->infinity_cache_bytes, ic, sizeof ic);
		snprintf(b, n, "%s + %s IC", l2, ic);
	} else {
		snprintf(b, n, "%s", l2);
	}
}
static double num_l2(const struct ridge_gpu *g)
{
	return g->l2_bytes;
}
static void cell_smem(const struct ridge_gpu *g, char *b, size_t n)
{
	char sm[32], blk[32];
	fmt_bytes(g->smem_per_sm, sm, sizeof sm);
	fmt_bytes(g->smem_per_block_optin, blk, sizeof blk);
	snprintf(b, n, "%s (%s/blk)", sm, blk);
}
static double num_smem(const struct ridge_gpu *g)
{
	return g->smem_per_sm;
}
static void cell_regs(const struct ridge_gpu *g, char *b, size_t n)
{
	snprintf(b, n, "%dK regs, %d thr", g->regs_per_sm / 1024, g->max_threads_per_sm);
}
static void cell_power(const struct ridge_gpu *g, char *b, size_t n)
{
	if (g->has_price)
		snprintf(b, n, "%.0f W, $%.2f/h", g->tdp_watts, g->price_usd_per_hour);
	else
		snprintf(b, n, "%.0f W", g->tdp_watts);
}
static double num_power(const struct ridge_gpu *g)
{
	return g->tdp_watts;
}
static void cell_source(const struct ridge_gpu *g, char *b, size_t n)
{
	snprintf(b, n, "%s", g->measured ? "measured" : "spec sheet");
}

static const struct hw_row spec_rows[] = {
	{ "name", cell_name, NULL },
	{ "architecture", cell_arch, NULL },
	{ "compute units", cell_units, num_units },
	{ "memory", cell_memory, num_memory },
	{ "bandwidth", cell_bandwidth, num_bandwidth },
	{ "L2", cell_l2, num_l2 },
	{ "smem per SM", cell_smem, num_smem },
	{ "per SM", cell_regs, NULL },
	{ "power, price", cell_power, num_power },
	{ "ceilings", cell_source, NULL },
};

static void peak_text(const struct tui_hw_row *r, char *b, size_t n)
{
	if (!r->has) {
		snprintf(b, n, "-");
		return;
	}
	char m[16] = "-", v[16] = "-";
	if (r->has_matrix)
		snprintf(m, sizeof m, "%.1f", r->matrix / 1e12);
	if (r->has_vector)
		snprintf(v, sizeof v, "%.1f", r->vector / 1e12);
	snprintf(b, n, "%s / %s", m, v);
}

void tui_draw_hw(const struct tui_state *s, const struct tui_layout *l, bool ascii)
{
	(void)ascii;
	const struct ridge_gpu *a = tui_state_gpu(s), *b = tui_state_compare_gpu(s);
	const struct tui_rect *r = &l->view;
	if (!a) {
		tui_put(r->y, r->x + 1, r->w - 2, TUI_ROLE_BAD, "no GPU selected");
		return;
	}
	int x = r->x + 1, w = r->w - 2, y = r->y, bottom = r->y + r->h;
	int label_w = 16;
	int col_w = b ? (w - label_w - 8) / 2 : w - label_w;
	if (col_w > 30)
		col_w = 30;
	int xa = x + label_w, xb = xa + col_w, xr = xb + col_w;

	tui_put(y, x, label_w, TUI_ROLE_TITLE, "%s", b ? "side by side" : "entry");
	tui_put(y, xa, col_w - 1, TUI_ROLE_TITLE, "%s", a->id);
	if (b) {
		tui_put(y, xb, col_w - 1, TUI_ROLE_TITLE, "%s", b->id);
		tui_put(y, xr, 8, TUI_ROLE_TITLE, "%s", "B/A");
	}
	y++;
	for (size_t i = 0; i < sizeof spec_rows / sizeof spec_rows[0] && y < bottom; i++, y++) {
		const struct hw_row *row = &spec_rows[i];
		char cell[128];
		tui_put(y, x, label_w, TUI_ROLE_LABEL, "%s", row->label);
		row->cell(a, cell, sizeof cell);
		tui_put(y, xa, col_w - 1, TUI_ROLE_VALUE, "%s", cell);
		if (b) {
			row->cell(b, cell, sizeof cell);
			tui_put(y, xb, col_w - 1, TUI_ROLE_VALUE, "%s", cell);
			if (row->number && row->number(a) > 0)
				tui_put(y, xr, 8, TUI_ROLE_RESULT, "%.2fx", row->number(b) / row->number(a));
		}
	}
	if (y >= bottom)
		return;
	tui_put(y, x, label_w, TUI_ROLE_TITLE, "%s", "TFLOP/s");
	tui_put(y, xa, col_w - 1, TUI_ROLE_TITLE, "%s", "matrix / vector");
	if (b)
		tui_put(y, xb, col_w - 1, TUI_ROLE_TITLE, "%s", "matrix / vector");
	y++;
	for (int d = 0; d < RIDGE_DTYPE_COUNT && y < bottom; d++) {
		const struct tui_hw_row *ra = &s->out.hw[0][d], *rb = &s->out.hw[1][d];
		if (!ra->has && !(b && rb->has))
			continue;
		char cell[64];
		tui_put(y, x, label_w, TUI_ROLE_LABEL, "%s", ridge_dtype_name((enum ridge_dtype)d));
		peak_text(ra, cell, sizeof cell);
		tui_put(y, xa, col_w - 1, ra->has ? TUI_ROLE_VALUE : TUI_ROLE_DIM, "%s", cell);
		if (b) {
			peak_text(rb, cell, sizeof cell);
			tui_put(y, xb, col_w - 1, rb->has ? TUI_ROLE_VALUE : TUI_ROLE_DIM, "%s", cell);
			if (ra->has && rb->has)
				tui_put(y, xr, 8, TUI_ROLE_RESULT, "%.2fx", rb->peak / ra->peak);
		}
		y++;
	}
}
