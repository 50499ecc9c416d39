/* The frame around the panels: tabs, the inputs form, status line, help. */
#include "draw.h"

#include <math.h>
#include <ncurses.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "app.h"

const struct tui_panel_view tui_panel_views[TUI_PANEL_COUNT] = {
	[TUI_PANEL_HW] = { tui_draw_hw, tui_spec_hw },
	[TUI_PANEL_ROOFLINE] = { tui_draw_roofline, tui_spec_roofline },
	[TUI_PANEL_OCCUPANCY] = { tui_draw_occupancy, tui_spec_occupancy },
	[TUI_PANEL_ALIGN] = { tui_draw_align, tui_spec_align },
	[TUI_PANEL_COST] = { tui_draw_cost, tui_spec_cost },
};

/* ---- helpers ---- */

static void put_text(int y, int x, int w, enum tui_role role, const char *text)
{
	if (w <= 0 || y < 0 || y >= LINES || x >= COLS)
		return;
	if (x + w > COLS)
		w = COLS - x;
	attrset(tui_color_attr(role));
	mvaddnstr(y, x, text, w);
	attrset(A_NORMAL);
}

/* text ending at column x + w - 1; cut to w columns when longer. */
static void put_text_right(int y, int x, int w, enum tui_role role, const char *text)
{
	int n = (int)strlen(text);
	if (n >= w)
		put_text(y, x, w, role, text);
	else
		put_text(y, x + w - n, n, role, text);
}

void tui_put_aligned(int y, int x, int w, enum tui_role role, bool right, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	(right ? put_text_right : put_text)(y, x, w, role, buf);
}

/* The label stays whole: a value too wide for the room beside it loses its
 * parenthesised details first ("176 us (eff 0.86 / 0.77, fixed 9.3 us)" is
 * "176 us"), then its end. */
void tui_put_pair(int y, int x, int w, const char *label, enum tui_role value_role, const char *fmt, ...)
{
	put_text(y, x, w, TUI_ROLE_LABEL, label);
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	int room = w - (int)strlen(label) - 1;
	if (room < 1)
		return;
	char *paren;
	while ((int)strlen(buf) > room && (paren = strrchr(buf, '(')) && paren > buf && paren[-1] == ' ')
		paren[-1] = '\0';
	if ((int)strlen(buf) > room)
		buf[room] = '\0';
	put_text_right(y, x, w, value_role, buf);
}

struct tui_rect tui_chart_plot(const struct tui_rect *view, int label_left, int label_right,
			       struct braille_canvas *canvas)
{
	struct tui_rect plot = { view->y + 1, view->x + label_left, view->h - 2, view->w - label_left - label_right };
	braille_init(canvas, plot.w, plot.h);
	return plot;
}

void tui_draw_canvas(const struct braille_canvas *c, int y, int x, bool ascii)
{
	for (int row = 0; row < c->rows; row++) {
		if (y + row >= LINES)
			break;
		for (int col = 0; col < c->cols && x + col < COLS; col++) {
			if (!c->dots[row][col])
				continue;
			char cell[4];
			if (ascii) {
				cell[0] = braille_cell_ascii(c, col, row);
				cell[1] = '\0';
			} else {
				braille_cell_utf8(c, col, row, cell);
			}
			attrset(tui_color_attr((enum tui_role)c->role[row][col]));
			mvaddstr(y + row, x + col, cell);
		}
	}
	attrset(A_NORMAL);
}

void tui_fmt_usd(double usd, char *buf, size_t len)
{
	if (!isfinite(usd)) {
		snprintf(buf, len, "-");
		return;
	}
	if (fabs(usd) < 1000) {
		snprintf(buf, len, "%s$%.2f", usd < 0 ? "-" : "", fabs(usd));
		return;
	}
	/* Thousands separators by hand: printf's ' flag depends on the locale. */
	char digits[64];
	snprintf(digits, sizeof digits, "%.0f", fabs(usd));
	size_t n = strlen(digits), used = 0;
	char out[96];
	out[used++] = usd < 0 ? '-' : '$';
	if (usd < 0)
		out[used++] = '$';
	for (size_t i = 0; i < n && used + 2 < sizeof out; i++) {
		if (i && (n - i) % 3 == 0)
			out[used++] = ',';
		out[used++] = digits[i];
	}
	out[used] = '\0';
	snprintf(buf, len, "%s", out);
}

int tui_form_rows(const struct tui_state *s)
{
	const struct tui_field *fields[32];
	return tui_panel_fields(s, s->panel, fields, 32);
}

/* ---- the frame ---- */

static void draw_tabs(const struct tui_state *s, const struct tui_layout *l)
{
	attrset(tui_color_attr(TUI_ROLE_TAB));
	mvhline(l->tabs.y, 0, ' ', l->tabs.w);
	int x = 0;
	for (int p = 0; p < TUI_PANEL_COUNT && x < l->cols; p++) {
		char tab[32];
		tui_tab_label((enum tui_panel_id)p, tab, sizeof tab);
		put_text(l->tabs.y, x, l->cols - x, p == (int)s->panel ? TUI_ROLE_TAB_ACTIVE : TUI_ROLE_TAB, tab);
		x += (int)strlen(tab);
	}
	const char *file = s->scenario_path[0] ? s->scenario_path : "ridge tui";
	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	int n = (int)strlen(base);
	if (x + n + 2 <= l->cols)
		put_text(l->tabs.y, l->cols - n - 1, n, TUI_ROLE_TAB, base);
}

static void draw_form(const struct tui_state *s, const struct tui_layout *l, bool horizontal)
{
	const struct tui_field *fields[32];
	int n = tui_panel_fields(s, s->panel, fields, 32);
	const struct tui_field *selected = tui_state_selected_field(s);
	const struct tui_rect *r = &l->form;
	int x = r->x + 1, y = r->y;
	int label_w = 0;
	for (int i = 0; i < n && i < 32; i++)
		if ((int)strlen(fields[i]->label) > label_w)
			label_w = (int)strlen(fields[i]->label);
	for (int i = 0; i < n && i < 32; i++) {
		const struct tui_field *f = fields[i];
		char value[TUI_PATH];
		bool editing = f == selected && s->prompt == TUI_PROMPT_FIELD;
		if (editing)
			snprintf(value, sizeof value, "%s_", s->edit);
		else
			tui_field_format(s, f, value, sizeof value);
		/* A value still selected (typing replaces it) shows as the selection. */
		enum tui_role value_role = editing && !s->edit_selected ? TUI_ROLE_EDIT
					   : f == selected              ? TUI_ROLE_SELECTED
									: TUI_ROLE_VALUE;
		if (horizontal) {
			int lw = (int)strlen(f->label);
			int vw = (int)strlen(value) + 2;
			if (vw < 14)
				vw = 14;
			if (x + lw + 1 + vw > r->x + r->w)
				break;
			put_text(y, x, lw, TUI_ROLE_LABEL, f->label);
			tui_put(y, x + lw + 1, vw, value_role, " %-*s", vw - 1, value);
			x += lw + 1 + vw + 3;
			continue;
		}
		if (y >= r->y + r->h)
			break;
		int w = r->w - 2;
		int lw = label_w + 1 < w - 10 ? label_w + 1 : w - 10;
		put_text(y, x, lw, TUI_ROLE_LABEL, f->label);
		int vw = w - lw;
		int len = (int)strlen(value);
		if (editing && len > vw - 1) /* show the end of a long edit */
			tui_put(y, x + lw, vw, value_role, " %s", value + (len - (vw - 1)));
		else
			tui_put(y, x + lw, vw, value_role, " %-*s", vw - 1, value);
		y++;
	}
}

static void draw_status(const struct tui_state *s, const struct tui_layout *l)
{
	const struct tui_rect *r = &l->status;
	if (r->h == 0)
		return;
	attrset(tui_color_attr(TUI_ROLE_STATUS));
	mvhline(r->y, 0, ' ', r->w);
	attrset(A_NORMAL);
	if (s->prompt == TUI_PROMPT_SAVE || s->prompt == TUI_PROMPT_OPEN) {
		tui_put(r->y, 0, r->w, TUI_ROLE_EDIT, " %s scenario file: %s_",
			s->prompt == TUI_PROMPT_SAVE ? "save to" : "open", s->edit);
		return;
	}
	if (s->prompt == TUI_PROMPT_FIELD && s->edit_selected) {
		tui_put(r->y, 0, r->w, TUI_ROLE_STATUS,
			" typing replaces it   End: edit it   Enter: set   Esc: cancel");
		return;
	}
	if (s->prompt == TUI_PROMPT_FIELD) {
		tui_put(r->y, 0, r->w, TUI_ROLE_STATUS,
			" Enter: set   Esc: cancel   ^U: clear   (units: 32KiB 70e9 989T 5us $3 45%%)");
		return;
	}
	if (s->message[0]) {
		tui_put(r->y, 0, r->w, s->message_error ? TUI_ROLE_ERROR : TUI_ROLE_STATUS, " %s", s->message);
		return;
	}
	/* Hints from the binding table: the first key of each common action. */
	static const enum tui_action hints[] = { TUI_ACT_HELP, TUI_ACT_NEXT_PANEL, TUI_ACT_FIELD_NEXT, TUI_ACT_INC,
						 TUI_ACT_EDIT, TUI_ACT_MODE,       TUI_ACT_SAVE,       TUI_ACT_QUIT };
	char line[256] = " ";
	size_t used = 1;
	for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++) {
		const struct tui_binding *b = tui_binding_of(hints[i]);
		char key[16];
		tui_key_name(b->keys[0], key, sizeof key);
		int k = snprintf(line + used, sizeof line - used, "%s %s  ", key, b->name);
		if (k < 0 || (size_t)k >= sizeof line - used)
			break;
		used += (size_t)k;
	}
	tui_put(r->y, 0, r->w, TUI_ROLE_STATUS, "%s", line);
	const struct ridge_gpu *gpu = tui_state_gpu(s);
	if (gpu) {
		char right[160];
		snprintf(right, sizeof right, "%s: %s ", gpu->id, app_ceiling_source(gpu));
		int n = (int)strlen(right);
		if ((int)used + n < r->w)
			put_text(r->y, r->w - n, n, TUI_ROLE_STATUS, right);
	}
}

static int help_rows(void)
{
	return (int)tui_binding_count + 4;
}

static void draw_help(const struct tui_layout *l)
{
	const struct tui_rect *r = &l->help;
	attrset(tui_color_attr(TUI_ROLE_HELP));
	for (int y = r->y; y < r->y + r->h; y++)
		mvhline(y, r->x, ' ', r->w);
	attrset(A_NORMAL);
	int y = r->y + 1, x = r->x + 2, w = r->w - 4;
	tui_put(y++, x, w, TUI_ROLE_HELP, "ridge tui: keys (any key closes this)");
	int keys_w = 0;
	for (size_t i = 0; i < tui_binding_count; i++) {
		char keys[64];
		int n = (int)strlen(tui_binding_keys(&tui_bindings[i], keys, sizeof keys));
		if (n > keys_w)
			keys_w = n;
	}
	for (size_t i = 0; i < tui_binding_count && y < r->y + r->h - 1; i++) {
		char keys[64];
		tui_binding_keys(&tui_bindings[i], keys, sizeof keys);
		tui_put(y++, x, w, TUI_ROLE_HELP, "%-*s  %s", keys_w, keys, tui_bindings[i].help);
	}
	if (y < r->y + r->h - 1)
		tui_put(y++, x, w, TUI_ROLE_HELP,
			"Values take units: 32KiB 70e9 989T 5us $3; percentages 45%% or 0.45.");
	if (y < r->y + r->h - 1)
		tui_put(y++, x, w, TUI_ROLE_HELP, "Numbers come from the same model functions as the ridge CLI.");
}

void tui_draw_layout(const struct tui_state *s, int lines, int cols, struct tui_layout *l)
{
	struct tui_layout_spec spec = { 0 };
	const struct tui_panel_view *v = &tui_panel_views[s->panel];
	if (v->spec)
		v->spec(s, &spec);
	tui_layout_compute(lines, cols, &spec, help_rows(), l);
}

void tui_draw(const struct tui_state *s, const struct tui_layout *l, bool ascii)
{
	erase();
	if (l->too_small) {
		tui_put(0, 0, l->cols, TUI_ROLE_BAD, "terminal too small");
		tui_put(1, 0, l->cols, TUI_ROLE_NORMAL, "need %dx%d, have %dx%d", TUI_MIN_COLS, TUI_MIN_LINES, l->cols,
			l->lines);
		tui_put(2, 0, l->cols, TUI_ROLE_NORMAL, "q quits");
		return;
	}
	draw_tabs(s, l);
	const struct tui_panel_view *v = &tui_panel_views[s->panel];
	struct tui_layout_spec spec = { 0 };
	if (v->spec)
		v->spec(s, &spec);
	draw_form(s, l, spec.form_on_top);
	if (v->draw)
		v->draw(s, l, ascii);
	draw_status(s, l);
	if (s->help)
		draw_help(l);
}
