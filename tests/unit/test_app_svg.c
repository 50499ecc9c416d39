/* app/view/svg.c: the axes every plot shares and the label placement. For
 * log and linear ranges over many magnitudes and widths, every axis gets at
 * least 4 ticks, all inside its (possibly widened) range, on decades,
 * half-decades or 1-2-5 steps, with labels apart; the frame makes room for
 * the tick labels and the turned y title; labels placed around one point
 * never overlap. */
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "svg.h"

/* The mantissa of v (v / 10^floor(log10 v)), rounded off. */
static double mantissa(double v)
{
	double m = v / pow(10, floor(log10(v) + 1e-9));
	return round(m * 1e6) / 1e6;
}

static struct svg_plot plot_of(enum svg_scale scale, double lo, double hi)
{
	return (struct svg_plot){
		.left = 60,
		.top = 40,
		.right = 760,
		.bottom = 540,
		.x = { .scale = scale, .lo = lo, .hi = hi, .title = "x", .unit = "s" },
		.y = { .scale = scale, .lo = lo, .hi = hi, .title = "y", .unit = "B" },
	};
}

/* Ticks inside [lo, hi], rising, their %g labels distinct and, on x, apart. */
static void check_ticks(const struct svg_plot *p, const struct svg_axis *a, const char *what)
{
	char left[64], right[64];
	if (a->tick_count < 4)
		fail_msg("%s [%g, %g]: %d ticks", what, a->lo, a->hi, a->tick_count);
	for (int i = 0; i < a->tick_count; i++) {
		double v = a->ticks[i];
		double slack = 1e-9 * (a->scale == SVG_LOG ? v : a->hi - a->lo); /* rounding */
		if (v < a->lo - slack || v > a->hi + slack)
			fail_msg("%s [%g, %g]: tick %g outside", what, a->lo, a->hi, v);
		if (i && !(v > a->ticks[i - 1]))
			fail_msg("%s [%g, %g]: ticks not rising at %g", what, a->lo, a->hi, v);
		snprintf(left, sizeof left, "%g", i ? a->ticks[i - 1] : 0);
		snprintf(right, sizeof right, "%g", v);
		if (i && strcmp(left, right) == 0)
			fail_msg("%s [%g, %g]: two ticks read %s", what, a->lo, a->hi, right);
		if (a == &p->x && i) {
			snprintf(left, sizeof left, "%g", a->ticks[i - 1]);
			snprintf(right, sizeof right, "%g", v);
			struct svg_box l = svg_text_box(svg_plot_x(p, a->ticks[i - 1]), 0, 12, "middle", left);
			struct svg_box r = svg_text_box(svg_plot_x(p, v), 0, 12, "middle", right);
			if (svg_box_overlap(l, r))
				fail_msg("%s [%g, %g]: labels %s and %s overlap", what, a->lo, a->hi, left, right);
		}
	}
}

static void test_log_axes(void **state)
{
	(void)state;
	const double ratios[] = { 1.001, 1.5, 2,   3.3, 5,   9.99, 10,   12.5,  25,
				  31,    100, 600, 1e4, 1e6, 1e12, 1e30, 1e100, 1e250 };
	int axes = 0;
	for (double e = -15; e <= 15; e += 0.37)
		for (size_t r = 0; r < sizeof ratios / sizeof ratios[0]; r++) {
			double lo = pow(10, e), hi = lo * ratios[r];
			struct svg s;
			svg_begin(&s, 800, 600, "t");
			struct svg_plot p = plot_of(SVG_LOG, lo, hi);
			svg_plot_axes(&s, &p);
			const struct svg_axis *both[] = { &p.x, &p.y };
			for (int k = 0; k < 2; k++, axes++) {
				const struct svg_axis *a = both[k];
				/* widened, never narrowed */
				assert_true(a->lo <= lo * (1 + 1e-12) && a->hi >= hi * (1 - 1e-12));
				check_ticks(&p, a, k ? "log y" : "log x");
				double m, step = a->ticks[1] / a->ticks[0];
				/* decades: every decade, or every k-th, and 12 at most */
				bool decades = mantissa(a->ticks[0]) == 1 && mantissa(step) == 1 && step >= 10;
				if (decades && a->tick_count > 12)
					fail_msg("log [%g, %g]: %d decade ticks", lo, hi, a->tick_count);
				for (int i = 0; i < a->tick_count; i++) {
					m = mantissa(a->ticks[i]);
					if (m != 1 && m != 2 && m != 3 && m != 5)
						fail_msg("log [%g, %g]: tick %g is not 1, 2, 3 or 5 x 10^n", lo, hi,
							 a->ticks[i]);
					if (decades && fabs(log10(a->ticks[i] / a->ticks[0]) - i * log10(step)) > 1e-6)
						fail_msg("log [%g, %g]: decade ticks not evenly spaced", lo, hi);
				}
			}
			svg_free(&s);
		}
	assert_true(axes > 1000);
}

static void test_linear_axes(void **state)
{
	(void)state;
	const double spans[] = { 0, 1e-9, 1e-3, 0.07, 1, 3.9, 7.188, 10, 100, 255, 1024, 49152, 8602, 1e15 };
	for (double lo = -1000; lo <= 1000; lo += 137.5)
		for (size_t k = 0; k < sizeof spans / sizeof spans[0]; k++) {
			double hi = lo + spans[k];
			struct svg s;
			svg_begin(&s, 800, 600, "t");
			struct svg_plot p = plot_of(SVG_LINEAR, lo, hi);
			svg_plot_axes(&s, &p);
			check_ticks(&p, &p.x, "linear x");
			check_ticks(&p, &p.y, "linear y");
			const struct svg_axis *a = &p.x;
			/* evenly spaced by a 1-2-5 step */
			double step = a->ticks[1] - a->ticks[0], m = mantissa(step);
			if (m != 1 && m != 2 && m != 5)
				fail_msg("linear [%g, %g]: step %g", lo, hi, step);
			for (int i = 2; i < a->tick_count; i++)
				assert_true(fabs(a->ticks[i] - a->ticks[i - 1] - step) < 1e-6 * fabs(step));
			svg_free(&s);
		}
}

/* The frame moves right for wide y labels, so the turned title's glyphs
 * (1 em left of its baseline) stay on the canvas. */
static void test_room_for_labels(void **state)
{
	(void)state;
	struct svg s;
	svg_begin(&s, 800, 600, "t");
	struct svg_plot p = plot_of(SVG_LINEAR, 0, 1e15);
	p.left = 10;
	p.bottom = 595;
	p.x.hi = 1e6;
	svg_plot_axes(&s, &p);
	assert_true(p.left > 10);
	assert_true(p.bottom < 595);
	/* "1e+15" at 12 px, the title's 14 px glyphs, their gaps */
	double need = 2 + 1.25 * 14 + 6 + svg_text_width(12, "1e+15") + 7;
	assert_true(p.left >= need - 1e-9);
	assert_non_null(strstr(s.data, "class=\"axis-title\" transform=\"rotate(-90"));
	assert_non_null(strstr(s.data, "<g class=\"axis x\">"));
	assert_non_null(strstr(s.data, ">y (B)</text>"));
	svg_free(&s);
}

static void test_text_width(void **state)
{
	(void)state;
	/* DejaVu Sans: 'a' 0.613 em, '0' 0.637 em (rounded up), 'm' 0.975 em, ' ' 0.318 em */
	assert_true(fabs(svg_text_width(10, "a") - 6.13) < 1e-9);
	assert_true(fabs(svg_text_width(10, "0 m") - (6.37 + 3.18 + 9.75)) < 1e-9);
	/* a character outside ASCII counts 1 em, however many bytes it takes */
	assert_true(fabs(svg_text_width(10, "\xc2\xb5s") - (10 + 5.21)) < 1e-9);
	struct svg_box b = svg_text_box(100, 50, 10, "end", "a");
	assert_true(fabs(b.x0 - 93.87) < 1e-9 && b.x1 == 100 && b.y0 == 40 && b.y1 == 52.5);
}

/* Sixty labels around one point: every one placed keeps off the others and
 * inside the bounds; the first sits right beside the point. */
static void test_label_placement(void **state)
{
	(void)state;
	static struct svg_labels taken;
	svg_labels_init(&taken, (struct svg_box){ 0, 0, 600, 400 });
	svg_labels_add(&taken, (struct svg_box){ 294, 194, 306, 206 }, false);
	struct svg_box placed[60];
	int n = 0;
	for (int i = 0; i < 60; i++) {
		char text[32];
		snprintf(text, sizeof text, "kernel %d", i * 37);
		struct svg_spot spot;
		if (!svg_labels_place(&taken, 300, 200, 13, text, 800, &spot))
			continue;
		if (i == 0)
			assert_true(spot.distance == 0 && strcmp(spot.anchor, "start") == 0 && spot.x == 308);
		svg_labels_add(&taken, spot.box, true);
		placed[n++] = spot.box;
	}
	assert_int_equal(n, 60);
	for (int i = 0; i < n; i++) {
		assert_true(placed[i].x0 >= 0 && placed[i].x1 <= 600 && placed[i].y0 >= 0 && placed[i].y1 <= 400);
		for (int j = i + 1; j < n; j++)
			assert_false(svg_box_overlap(placed[i], placed[j]));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_axes),        cmocka_unit_test(test_linear_axes),
		cmocka_unit_test(test_room_for_labels), cmocka_unit_test(test_text_width),
		cmocka_unit_test(test_label_placement),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
