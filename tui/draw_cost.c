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

/* A value through one of the CLI's formatters (fmt_seconds, fmt_bytes ...). */
static void formatted_pair(struct rows *r, const char *label, enum tui_role role,
			   void (*format)(double v, char *buf, size_t len), double v)
{
	char text[64];
	format(v, text, sizeof text);
	text_pair(r, label, role, text);
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
	formatted_pair(rows, "step time", TUI_ROLE_RESULT, fmt_seconds, t->step_time_s);
	pair(rows, "wall time", TUI_ROLE_RESULT, "%.4g h", t->wall_hours);
	formatted_pair(rows, "GPU-hours", TUI_ROLE_RESULT, fmt_gpu_hours, t->gpu_hours);
	formatted_pair(rows, "cost", TUI_ROLE_GOOD, tui_fmt_usd, t->cost_usd);
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
	formatted_pair(rows, "savings", c->savings_usd >= 0 ? TUI_ROLE_GOOD : TUI_ROLE_BAD, tui_fmt_usd,
		       c->savings_usd);
	pair(rows, "speedup", TUI_ROLE_RESULT, "%.4gx", c->speedup);
	if (!c->has_investment)
		return;
	title(rows, "return on the investment");
	formatted_pair(rows, "ROI net", c->roi_net >= 0 ? TUI_ROLE_GOOD : TUI_ROLE_BAD, fmt_roi, c->roi_net);
	formatted_pair(rows, "ROI gross", TUI_ROLE_RESULT, fmt_roi, c->roi_gross);
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
	formatted_pair(rows, "KV per token", TUI_ROLE_RESULT, fmt_bytes, d->kv_bytes_per_token);
	formatted_pair(rows, "weights read", TUI_ROLE_RESULT, fmt_bytes, d->weight_bytes);
	formatted_pair(rows, "KV cache read", TUI_ROLE_RESULT, fmt_bytes, d->kv_bytes);
	pair(rows, "intensity", TUI_ROLE_RESULT, "%.4g FLOP/B", d->intensity);
	formatted_pair(rows, "memory time", TUI_ROLE_RESULT, fmt_seconds, d->memory_time_s);
	formatted_pair(rows, "compute time", TUI_ROLE_RESULT, fmt_seconds, d->compute_time_s);
	text_pair(rows, "bound", d->bound == RIDGE_BOUND_MEMORY ? TUI_ROLE_WARN : TUI_ROLE_GOOD,
		  cost_bound_name(d->bound));
	title(rows, "serving");
	formatted_pair(rows, "TPOT (floor)", TUI_ROLE_GOOD, fmt_seconds, d->tpot_s);
	pair(rows, "tokens/s", TUI_ROLE_RESULT, "%.6g", d->tokens_per_s);
	formatted_pair(rows, "$ per 1M tokens", TUI_ROLE_GOOD, tui_fmt_usd, d->usd_per_million_tokens);
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
