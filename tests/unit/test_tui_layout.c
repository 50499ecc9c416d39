/* Layout from terminal size: no terminal needed. */
#include "test_util.h"

#include "layout.h"

static void assert_inside(const struct tui_rect *r, int lines, int cols)
{
	assert_true(r->y >= 0 && r->x >= 0);
	assert_true(r->y + r->h <= lines);
	assert_true(r->x + r->w <= cols);
}

static bool overlap(const struct tui_rect *a, const struct tui_rect *b)
{
	if (a->h == 0 || a->w == 0 || b->h == 0 || b->w == 0)
		return false;
	return a->y < b->y + b->h && b->y < a->y + a->h && a->x < b->x + b->w && b->x < a->x + a->w;
}

static void test_80x24_column_form(void **state)
{
	(void)state;
	struct tui_layout_spec spec = { .form_on_top = false, .results_rows = 6 };
	struct tui_layout l;
	tui_layout_compute(24, 80, &spec, 21, &l);
	assert_false(l.too_small);
	/* Tabs on top, status at the bottom, body between. */
	assert_int_equal(l.tabs.y, 0);
	assert_int_equal(l.tabs.w, 80);
	assert_int_equal(l.status.y, 23);
	assert_int_equal(l.body.y, 1);
	assert_int_equal(l.body.h, 22);
	/* 40% of 80 = 32 columns of inputs, the rest (minus a gap) is the view. */
	assert_int_equal(l.form.w, 32);
	assert_int_equal(l.form.h, 22);
	assert_int_equal(l.view.x, 33);
	assert_int_equal(l.view.w, 47);
	assert_int_equal(l.results.h, 6);
	assert_int_equal(l.chart.y, 1 + 6);
	assert_int_equal(l.chart.h, 16);
	assert_false(overlap(&l.form, &l.view));
	assert_false(overlap(&l.results, &l.chart));
	assert_false(overlap(&l.tabs, &l.body));
	assert_false(overlap(&l.status, &l.body));
	/* The help fits on screen with its text (21 rows + 2 borders = 23 > 22: clamped). */
	assert_int_equal(l.help.h, 22);
	assert_inside(&l.help, 24, 80);
}

static void test_form_on_top(void **state)
{
	(void)state;
	struct tui_layout_spec spec = { .form_on_top = true, .form_rows = 1, .results_rows = 1000 };
	struct tui_layout l;
	tui_layout_compute(30, 100, &spec, 10, &l);
	assert_int_equal(l.form.y, 1);
	assert_int_equal(l.form.h, 1);
	assert_int_equal(l.form.w, 100);
	assert_int_equal(l.view.y, 3);
	assert_int_equal(l.view.h, 28 - 2);
	/* All results, no chart. */
	assert_int_equal(l.results.h, l.view.h);
	assert_int_equal(l.chart.h, 0);
}

/* Every size from the minimum up to large: all rectangles inside the screen,
 * none overlapping, the form never wider than 44 nor narrower than 30. */
static void test_every_size(void **state)
{
	(void)state;
	for (int top = 0; top < 2; top++) {
		struct tui_layout_spec spec = { .form_on_top = top, .form_rows = 3, .results_rows = 5 };
		for (int lines = TUI_MIN_LINES; lines <= 120; lines += 7) {
			for (int cols = TUI_MIN_COLS; cols <= 300; cols += 11) {
				struct tui_layout l;
				tui_layout_compute(lines, cols, &spec, 25, &l);
				assert_false(l.too_small);
				const struct tui_rect *all[] = { &l.tabs,    &l.body,  &l.form,   &l.view,
								 &l.results, &l.chart, &l.status, &l.help };
				for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
					assert_inside(all[i], lines, cols);
				assert_false(overlap(&l.form, &l.view));
				assert_false(overlap(&l.results, &l.chart));
				if (!top) {
					assert_true(l.form.w >= 30 && l.form.w <= 44);
					assert_int_equal(l.form.w + 1 + l.view.w, cols);
				}
				assert_true(l.chart.h == 0 || l.chart.h >= 4);
			}
		}
	}
}

static void test_too_small(void **state)
{
	(void)state;
	struct tui_layout_spec spec = { 0 };
	struct tui_layout l;
	tui_layout_compute(TUI_MIN_LINES - 1, 80, &spec, 10, &l);
	assert_true(l.too_small);
	tui_layout_compute(24, TUI_MIN_COLS - 1, &spec, 10, &l);
	assert_true(l.too_small);
	assert_int_equal(l.status.y, 23);
	tui_layout_compute(1, 1, &spec, 10, &l); /* degenerate: no crash, nothing negative */
	assert_true(l.too_small);
	assert_true(l.body.h >= 0);
	tui_layout_compute(0, 0, &spec, 10, &l);
	assert_true(l.too_small);
}

static void test_contains(void **state)
{
	(void)state;
	struct tui_rect r = { 2, 3, 4, 5 };
	assert_true(tui_rect_contains(&r, 2, 3));
	assert_true(tui_rect_contains(&r, 5, 7));
	assert_false(tui_rect_contains(&r, 6, 7));
	assert_false(tui_rect_contains(&r, 5, 8));
	assert_false(tui_rect_contains(&r, 1, 3));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_80x24_column_form), cmocka_unit_test(test_form_on_top),
		cmocka_unit_test(test_every_size),        cmocka_unit_test(test_too_small),
		cmocka_unit_test(test_contains),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
