/* Cost panel: training (cost at the current MFU, at a target MFU, the saving
 * and the return on an investment) or decode (TPOT, tokens/s, $ per million
 * tokens), every value from model/cost. */
#include <math.h>
#include <ncurses.h>
#include <stdio.h>

#include "app.h"
#include "draw.h"

void tui_spec_cost(const struct tui_state *s, struct tui_layout_spec *spec)
{
	(void)s;
	spec->form_on_top = false;
	spec->results_rows = 1000;
}

struct rows {
	int y, x, w, bottom;
	bool started; /* a title after the first gets a blank row above it */
};

static void pair(struct rows *r, const char *label, enum tui_role role, const char *fmt, double v)
{
	if (r->y >= r->bottom)
		return;
	tui_put_pair(r->y++, r->x, r->w, label, role, fmt, v);
}

static void text_pair(struct rows *r, const char *label, enum tui_role role, const char *text)
{
	if (r->y >= r->bottom)
		return;
	tui_put_pair(r->y++, r->x, r->w, label, role, "%s", text);
}

static void title(struct rows *r, const char *text)
{
	if (r->y + 1 >= r->bottom)
		return;
	if (r->started)
		r->y++;
	r->started = true;
	tui_put(r->y++, r->x, r->w, TUI_ROLE_TITLE, "%s", text);
}

static void train_half(struct rows *rows, const struct ridge_train_result *t)
{
	char a[48];
	fmt_seconds(t->step_time_s, a, sizeof a);
	text_pair(rows, "step time", TUI_ROLE_RESULT, a);
	pair(rows, "wall time", TUI_ROLE_RESULT, "%.4g h", t->wall_hours);
	fmt_gpu_hours(t->gpu_hours, a, sizeof a);
	text_pair(rows, "GPU-hours", TUI_ROLE_RESULT, a);
	tui_fmt_usd(t->cost_usd, a, sizeof a);
	text_pair(rows, "cost", TUI_ROLE_GOOD, a);
}

static void draw_train(const struct tui_state *s, struct rows *rows)
{
	const struct ridge_train_comparison *c = &s->out.cost.train;
	char a[64];
	title(rows, "training run");
	fmt_si(c->current.flops_per_step, "FLOP", a, sizeof a);
	text_pair(rows, "FLOPs per step", TUI_ROLE_RESULT, a);
	fmt_si(c->current.cluster_flops, "FLOP/s", a, sizeof a);
	text_pair(rows, "cluster at MFU", TUI_ROLE_RESULT, a);
	train_half(rows, &c->current);
	if (!s->out.cost.has_target)
		return;
	snprintf(a, sizeof a, "at target MFU %.4g%%", c->target.mfu * 100);
	title(rows, a);
	train_half(rows, &c->target);
	tui_fmt_usd(c->savings_usd, a, sizeof a);
	text_pair(rows, "savings", c->savings_usd >= 0 ? TUI_ROLE_GOOD : TUI_ROLE_BAD, a);
	pair(rows, "speedup", TUI_ROLE_RESULT, "%.4gx", c->speedup);
	if (!c->has_investment)
		return;
	title(rows, "return on the investment");
	fmt_roi(c->roi_net, a, sizeof a);
	text_pair(rows, "ROI net", c->roi_net >= 0 ? TUI_ROLE_GOOD : TUI_ROLE_BAD, a);
	fmt_roi(c->roi_gross, a, sizeof a);
	text_pair(rows, "ROI gross", TUI_ROLE_RESULT, a);
	if (c->breaks_even)
		pair(rows, "break-even step", TUI_ROLE_RESULT, "%.6g", c->break_even_step);
	else
		text_pair(rows, "break-even", TUI_ROLE_BAD, "never");
}

static void draw_decode(const struct tui_state *s, struct rows *rows)
{
	const struct ridge_decode_result *d = &s->out.cost.decode;
	char a[64], b[64];
	title(rows, "one decode step");
	fmt_bytes(d->kv_bytes_per_token, a, sizeof a);
	text_pair(rows, "KV per token", TUI_ROLE_RESULT, a);
	fmt_bytes(d->weight_bytes, a, sizeof a);
	text_pair(rows, "weights read", TUI_ROLE_RESULT, a);
	fmt_bytes(d->kv_bytes, a, sizeof a);
	text_pair(rows, "KV cache read", TUI_ROLE_RESULT, a);
	pair(rows, "intensity", TUI_ROLE_RESULT, "%.4g FLOP/B", d->intensity);
	fmt_seconds(d->memory_time_s, a, sizeof a);
	text_pair(rows, "memory time", TUI_ROLE_RESULT, a);
	fmt_seconds(d->compute_time_s, a, sizeof a);
	text_pair(rows, "compute time", TUI_ROLE_RESULT, a);
	text_pair(rows, "bound", d->bound == RIDGE_BOUND_MEMORY ? TUI_ROLE_WARN : TUI_ROLE_GOOD,
		  cost_bound_name(d->bound));
	title(rows, "serving");
	fmt_seconds(d->tpot_s, a, sizeof a);
	text_pair(rows, "TPOT", TUI_ROLE_GOOD, a);
	pair(rows, "tokens/s", TUI_ROLE_RESULT, "%.6g", d->tokens_per_s);
	tui_fmt_usd(d->usd_per_million_tokens, a, sizeof a);
	text_pair(rows, "$ per 1M tokens", TUI_ROLE_GOOD, a);
	fmt_bytes(d->memory_required, a, sizeof a);
	if (d->memory_available > 0) {
		fmt_bytes(d->memory_available, b, sizeof b);
		char both[140];
		snprintf(both, sizeof both, "%s of %s", a, b);
		text_pair(rows, d->fits ? "memory (fits)" : "memory: NO FIT", d->fits ? TUI_ROLE_RESULT : TUI_ROLE_BAD,
			  both);
	}
	if (d->has_crossover)
		pair(rows, "compute-bound at", TUI_ROLE_DIM, "batch %.4g", d->crossover_batch);
}

void tui_draw_cost(const struct tui_state *s, const struct tui_layout *l, bool ascii)
{
	(void)ascii;
	const struct tui_rect *v = &l->view;
	struct rows rows = { v->y, v->x, v->w - 1 < 44 ? v->w - 1 : 44, v->y + v->h, false };
	if (!s->out.cost.ok) {
		tui_put(v->y, v->x, v->w, TUI_ROLE_BAD, "%s", s->out.cost.error);
		return;
	}
	if (s->in.cost_mode == TUI_COST_TRAIN)
		draw_train(s, &rows);
	else
		draw_decode(s, &rows);
}
