/* Alignment panel: the rule for the dtype on the GPU and the findings. */
#include <ncurses.h>
#include <stdio.h>

#include "draw.h"

void tui_spec_align(const struct tui_state *s, struct tui_layout_spec *spec)
{
	(void)s;
	spec->form_on_top = false;
	spec->results_rows = 1000;
}

static enum tui_role severity_role(enum ridge_align_severity severity)
{
	return severity == RIDGE_ALIGN_ERROR     ? TUI_ROLE_BAD
	       : severity == RIDGE_ALIGN_WARNING ? TUI_ROLE_WARN
						 : TUI_ROLE_GOOD;
}

void tui_draw_align(const struct tui_state *s, const struct tui_layout *l, bool ascii)
{
	(void)ascii;
	const struct tui_align_results *out = &s->out.align;
	const struct align_run *r = &out->run;
	int x = l->form.x + 1, w = l->form.w - 2;
	int y = l->form.y + tui_form_rows(s) + 1, bottom = l->form.y + l->form.h;
	const struct ridge_align_rule *rule = &r->rule;
	if (rule->required_multiple > 0 && y < bottom) {
		tui_put_pair(y++, x, w, "required", TUI_ROLE_VALUE, "x%lld (%d B)", rule->required_multiple,
			     rule->required_bytes);
		if (y < bottom)
			tui_put_pair(y++, x, w, "recommended", TUI_ROLE_VALUE, "x%lld (%d B)",
				     rule->recommended_multiple, rule->recommended_bytes);
		if (y < bottom)
			tui_put_pair(y++, x, w, "tensor cores", rule->matrix_path ? TUI_ROLE_GOOD : TUI_ROLE_WARN, "%s",
				     rule->matrix_path ? "yes" : "no path");
		if (!rule->matrix_path && rule->path_note && y < bottom)
			tui_put(y++, x, w, TUI_ROLE_DIM, "%s", rule->path_note);
	}
	if (out->ok && y + 1 < bottom) {
		y++;
		tui_put(y++, x, w,
			r->errors     ? TUI_ROLE_BAD
			: r->warnings ? TUI_ROLE_WARN
				      : TUI_ROLE_GOOD,
			"%d error%s, %d warning%s", r->errors, r->errors == 1 ? "" : "s", r->warnings,
			r->warnings == 1 ? "" : "s");
	}

	const struct tui_rect *v = &l->view;
	int vy = v->y, vx = v->x, vw = v->w, vb = v->y + v->h;
	if (!out->ok) {
		tui_put(vy, vx, vw, TUI_ROLE_BAD, "%s", out->error);
		return;
	}
	/* Columns: name, value, verdict, next aligned value, and the recommended
	 * multiple's when there is room. */
	bool wide = vw >= 60;
	int name_w = vw - (wide ? 41 : 30);
	if (name_w > 24)
		name_w = 24;
	if (name_w < 10)
		name_w = 10;
	int xv = vx + name_w + 1, xs = xv + 10, xn = xs + 8, xr = xn + 11;
	tui_put(vy, vx, name_w, TUI_ROLE_TITLE, "%s", r->model_mode ? "GEMM dim" : "dimension");
	tui_put(vy, xv, 9, TUI_ROLE_TITLE, "%9s", "value");
	tui_put(vy, xs, 7, TUI_ROLE_TITLE, "%s", "verdict");
	tui_put(vy, xn, 10, TUI_ROLE_TITLE, "%10s", "next ok");
	if (wide)
		tui_put(vy, xr, 11, TUI_ROLE_TITLE, "%11s", "recommended");
	vy++;
	for (int i = 0; i < r->count && vy < vb; i++) {
		const struct align_finding *f = &r->findings[i];
		const struct ridge_align_dim *d = &f->dim;
		tui_put(vy, vx, name_w, TUI_ROLE_LABEL, "%s", f->name);
		tui_put(vy, xv, 9, TUI_ROLE_VALUE, "%9lld", d->value);
		tui_put(vy, xs, 7, severity_role(d->severity), "%s", align_severity_name(d->severity));
		if (d->severity == RIDGE_ALIGN_ERROR)
			tui_put(vy, xn, 10, TUI_ROLE_RESULT, "%10lld", d->suggested);
		if (wide && d->severity != RIDGE_ALIGN_OK)
			tui_put(vy, xr, 11, TUI_ROLE_RESULT, "%11lld", d->suggested_recommended);
		vy++;
	}
}
