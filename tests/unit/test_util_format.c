/* util/format: the number formats every front end shares, edge cases first
 * (zero, huge, negative, not finite). */
#include "test_util.h"

#include <math.h>
#include <string.h>

#include "format.h"

#define assert_format(fn, value, want)                                                                   \
	do {                                                                                             \
		char buf_[128];                                                                          \
		fn((value), buf_, sizeof buf_);                                                          \
		if (strcmp(buf_, (want)) != 0)                                                           \
			fail_msg("%s(%.17g) = '%s', expected '%s'", #fn, (double)(value), buf_, (want)); \
	} while (0)

static void test_roi(void **state)
{
	(void)state;
	/* Worked Example 7.1: $2,854,488.61 saved on $240,000. */
	assert_format(fmt_roi, 2854488.605428949 / 240000 - 1, "10.89x");
	assert_format(fmt_roi, 239, "239x");
	assert_format(fmt_roi, 0.5, "0.5x");
	assert_format(fmt_roi, 0, "0x");
	assert_format(fmt_roi, -0.0, "0x");
	/* A target that saves nothing: the investment is lost and more. */
	assert_format(fmt_roi, -11.30791, "-11.31x");
	assert_format(fmt_roi, -1, "-1x");
	assert_format(fmt_roi, 9999.4, "9999x");
	assert_format(fmt_roi, 9999.7, "10,000x");
	assert_format(fmt_roi, 123456.7, "123,457x");
	assert_format(fmt_roi, -123456.7, "-123,457x");
	assert_format(fmt_roi, 1e300, "1e+300x");
	assert_format(fmt_roi, 1e-7, "1e-07x");
	assert_format(fmt_roi, INFINITY, "none");
	assert_format(fmt_roi, -INFINITY, "none");
	assert_format(fmt_roi, NAN, "none");
}

static void test_gpu_hours(void **state)
{
	(void)state;
	assert_format(fmt_gpu_hours, 2472889.967, "2,472,889.97");
	assert_format(fmt_gpu_hours, 671.68, "671.68");
	assert_format(fmt_gpu_hours, 0, "0.00");
	assert_format(fmt_gpu_hours, 0.004, "0.00");
	assert_format(fmt_gpu_hours, -1234.5, "-1,234.50");
	assert_format(fmt_gpu_hours, 1e20, "100,000,000,000,000,000,000.00");
	assert_format(fmt_gpu_hours, 1e21, "1e+21");
	assert_format(fmt_gpu_hours, INFINITY, "none");
	assert_format(fmt_gpu_hours, NAN, "none");
}

/* The buffer is never overrun: a short one holds a cut, terminated text. */
static void test_short_buffer(void **state)
{
	(void)state;
	char buf[6];
	memset(buf, 'z', sizeof buf);
	fmt_gpu_hours(2472889.967, buf, sizeof buf);
	assert_string_equal(buf, "2,472");
	fmt_roi(123456.7, buf, sizeof buf);
	assert_string_equal(buf, "123,4");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roi),
		cmocka_unit_test(test_gpu_hours),
		cmocka_unit_test(test_short_buffer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
