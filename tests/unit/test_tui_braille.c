/* The braille canvas: dot bits, UTF-8 encoding, lines, clipping, axes. */
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "braille.h"

static struct braille_canvas *canvas(int cols, int rows)
{
	struct braille_canvas *c = malloc(sizeof *c);
	assert_non_null(c);
	braille_init(c, cols, rows);
	return c;
}

/* Each of the 8 pixels of a cell sets its Unicode dot (U+2801 dot 1 ... U+2880 dot 8). */
static void test_dot_encoding(void **state)
{
	(void)state;
	static const struct {
		int x, y;
		const char *utf8;
	} cases[] = {
		{ 0, 0, "\xE2\xA0\x81" }, /* U+2801 dot 1 */
		{ 0, 1, "\xE2\xA0\x82" }, /* U+2802 dot 2 */
		{ 0, 2, "\xE2\xA0\x84" }, /* U+2804 dot 3 */
		{ 1, 0, "\xE2\xA0\x88" }, /* U+2808 dot 4 */
		{ 1, 1, "\xE2\xA0\x90" }, /* U+2810 dot 5 */
		{ 1, 2, "\xE2\xA0\xA0" }, /* U+2820 dot 6 */
		{ 0, 3, "\xE2\xA1\x80" }, /* U+2840 dot 7 */
		{ 1, 3, "\xE2\xA2\x80" }, /* U+2880 dot 8 */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct braille_canvas *c = canvas(1, 1);
		braille_set(c, cases[i].x, cases[i].y, 1);
		char cell[4];
		assert_int_equal(braille_cell_utf8(c, 0, 0, cell), 3);
		assert_string_equal(cell, cases[i].utf8);
		free(c);
	}
	/* All eight: U+28FF. */
	struct braille_canvas *c = canvas(1, 1);
	for (int y = 0; y < 4; y++)
		for (int x = 0; x < 2; x++)
			braille_set(c, x, y, 1);
	char cell[4];
	braille_cell_utf8(c, 0, 0, cell);
	assert_string_equal(cell, "\xE2\xA3\xBF");
	free(c);
}

static void test_empty_and_bounds(void **state)
{
	(void)state;
	struct braille_canvas *c = canvas(3, 2);
	assert_int_equal(c->width, 6);
	assert_int_equal(c->height, 8);
	braille_set(c, -1, 0, 1);
	braille_set(c, 6, 0, 1);
	braille_set(c, 0, 8, 1);
	char row[64];
	assert_int_equal(braille_render_row(c, 0, false, row, sizeof row), 3);
	assert_string_equal(row, "   ");
	braille_set(c, 5, 7, 2);
	assert_true(braille_get(c, 5, 7));
	assert_false(braille_get(c, 4, 7));
	assert_int_equal(c->role[1][2], 2);
	assert_int_equal(braille_render_row(c, 1, false, row, sizeof row), 2 + 3);
	assert_string_equal(row, "  \xE2\xA2\x80");
	/* Too small a buffer is refused, not overrun. */
	assert_int_equal(braille_render_row(c, 1, false, row, 4), -1);
	/* Clamped sizes. */
	braille_init(c, BRAILLE_MAX_COLS + 10, -3);
	assert_int_equal(c->cols, BRAILLE_MAX_COLS);
	assert_int_equal(c->rows, 0);
	free(c);
}

static void test_lines(void **state)
{
	(void)state;
	struct braille_canvas *c = canvas(4, 2); /* 8 x 8 pixels */
	/* The diagonal sets exactly the 8 diagonal pixels. */
	braille_line(c, 0, 0, 7, 7, 1);
	int count = 0;
	for (int y = 0; y < 8; y++)
		for (int x = 0; x < 8; x++)
			if (braille_get(c, x, y)) {
				count++;
				assert_int_equal(x, y);
			}
	assert_int_equal(count, 8);
	/* A horizontal line along the bottom row. */
	braille_clear(c);
	braille_line(c, 0, 7, 7, 7, 1);
	for (int x = 0; x < 8; x++)
		assert_true(braille_get(c, x, 7));
	assert_false(braille_get(c, 0, 6));
	/* Endpoints far outside: clipped to the canvas, same pixels as the
	 * in-range part (and bounded work). */
	braille_clear(c);
	braille_line(c, -1e9, 3, 1e9, 3, 1);
	for (int x = 0; x < 8; x++)
		assert_true(braille_get(c, x, 3));
	braille_clear(c);
	braille_line(c, -100, -100, -5, -5, 1); /* entirely outside */
	braille_line(c, NAN, 0, 3, 3, 1);       /* not a number: nothing */
	for (int y = 0; y < 8; y++)
		for (int x = 0; x < 8; x++)
			assert_false(braille_get(c, x, y));
	/* A steep line from outside enters at the top edge. */
	braille_line(c, 2, -10, 2, 100, 1);
	for (int y = 0; y < 8; y++)
		assert_true(braille_get(c, 2, y));
	free(c);
}

static void test_ascii_fallback(void **state)
{
	(void)state;
	struct braille_canvas *c = canvas(4, 1);
	braille_set(c, 0, 0, 1); /* top half of cell 0 */
	braille_set(c, 2, 3, 1); /* bottom half of cell 1 */
	braille_set(c, 4, 1, 1); /* both halves of cell 2 */
	braille_set(c, 5, 2, 1);
	char row[16];
	assert_int_equal(braille_render_row(c, 0, true, row, sizeof row), 4);
	assert_string_equal(row, "'.: ");
	free(c);
}

static void test_axes(void **state)
{
	(void)state;
	/* A log axis 1..1000 over 301 pixels: each decade is 100 pixels. */
	assert_close(braille_log_pos(1, 1, 1000, 301), 0, 1e-12);
	assert_close(braille_log_pos(10, 1, 1000, 301), 100, 1e-12);
	assert_close(braille_log_pos(1000, 1, 1000, 301), 300, 1e-12);
	assert_close(braille_log_pos(1e4, 1, 1000, 301), 400, 1e-12); /* not clamped */
	assert_close(braille_lin_pos(0.5, 0, 1, 101), 50, 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dot_encoding), cmocka_unit_test(test_empty_and_bounds),
		cmocka_unit_test(test_lines),        cmocka_unit_test(test_ascii_fallback),
		cmocka_unit_test(test_axes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
