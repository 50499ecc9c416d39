/* Helpers shared by the unit tests. */
#ifndef RIDGE_TEST_UTIL_H
#define RIDGE_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "models.h"
#include "hwdb.h"

/* The built-in hwdb, loaded once (tests must not depend on the user's
 * config); fails the test when it does not load. */
struct hwdb *test_hwdb(void);
/* Loads a built-in hwdb entry by id; fails the test when missing. */
const struct ridge_gpu *test_gpu(const char *id);

/* Relative closeness: |a - b| <= rel * |b|. */
#define assert_close(a, b, rel) assert_true_msg_close((a), (b), (rel), __FILE__, __LINE__)
void assert_true_msg_close(double a, double b, double rel, const char *file, int line);

#endif
