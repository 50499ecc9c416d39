#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static struct hwdb db;
static int loaded;

struct hwdb *test_hwdb(void)
{
	if (!loaded) {
		struct hwdb_diags diags = { 0 };
		/* Built-in entries only: tests must not depend on the user's config. */
		db.count = 0;
		db.entries = NULL;
		if (hwdb_open(&db, NULL, &diags) != 0) {
			char line[1024];
			for (int i = 0; i < diags.count; i++) {
				hwdb_diag_format(&diags.items[i], line, sizeof line);
				print_error("%s\n", line);
			}
			fail_msg("built-in hwdb failed to load");
		}
		loaded = 1;
	}
	return &db;
}

const struct ridge_gpu *test_gpu(const char *id)
{
	const struct hwdb_entry *e = hwdb_find(test_hwdb(), id);
	if (!e)
		fail_msg("no hwdb entry '%s'", id);
	return &e->gpu;
}

void assert_true_msg_close(double a, double b, double rel, const char *file, int line)
{
	double tolerance = rel * fabs(b);
	if (!(fabs(a - b) <= tolerance)) {
		print_error("%s:%d: %.17g is not within %g of %.17g\n", file, line, a, rel, b);
		fail();
	}
}
