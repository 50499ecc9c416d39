/* app/core/status.h: errors as values. A message keeps its flag, file, line and
 * column apart and app_msg_format writes them as ridge always has; the exit
 * class is the first error's; past APP_STATUS_MAX messages are counted, not
 * kept; and an application-layer function that fails reports into the
 * status and writes nothing on stderr or stdout. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"

static void test_location_forms(void **state)
{
	(void)state;
	struct app_status st;
	app_status_init(&st);
	char line[APP_MSG_TEXT + 600];
	app_error_at(&st, "x.yaml", 12, 10, "unknown key '%s'", "foo");
	app_error_at(&st, "x.yaml", 0, 0, "empty file");
	app_error_flag(&st, "--mfu", "must be greater than 0, not '%s'", "0");
	app_error(&st, "unknown GPU 'nosuch' (see 'ridge hw list')");
	app_warning_at(&st, "cfg.json", 0, 0, "'rope_scaling': not modelled");
	assert_int_equal(st.count, 5);
	assert_int_equal(st.errors, 4);

	assert_string_equal(st.msgs[0].file, "x.yaml");
	assert_int_equal(st.msgs[0].line, 12);
	assert_int_equal(st.msgs[0].col, 10);
	assert_string_equal(st.msgs[0].text, "unknown key 'foo'");
	app_msg_format(&st.msgs[0], line, sizeof line);
	assert_string_equal(line, "x.yaml:12:10: unknown key 'foo'");
	app_msg_format(&st.msgs[1], line, sizeof line);
	assert_string_equal(line, "x.yaml: empty file");
	assert_string_equal(st.msgs[2].flag, "--mfu");
	app_msg_format(&st.msgs[2], line, sizeof line);
	assert_string_equal(line, "--mfu: must be greater than 0, not '0'");
	app_msg_format(&st.msgs[3], line, sizeof line);
	assert_string_equal(line, "unknown GPU 'nosuch' (see 'ridge hw list')");
	assert_int_equal(st.msgs[4].level, APP_WARNING);
	app_msg_format(&st.msgs[4], line, sizeof line);
	assert_string_equal(line, "cfg.json: 'rope_scaling': not modelled");

	/* A position text too long for the flag field still reads the same. */
	char where[200];
	memset(where, 'a', 150);
	snprintf(where + 150, sizeof where - 150, ":3:7: mfu");
	app_status_clear(&st);
	app_error_flag(&st, where, "must be greater than 0");
	app_msg_format(&st.msgs[0], line, sizeof line);
	char want[300];
	snprintf(want, sizeof want, "%s: must be greater than 0", where);
	assert_string_equal(line, want);
}

static void test_exit_class_and_first_error(void **state)
{
	(void)state;
	struct app_status st;
	app_status_init(&st);
	assert_false(app_status_failed(&st));
	assert_int_equal(st.exit_code, EXIT_OK);
	assert_null(app_status_first_error(&st));
	app_warning(&st, "what was skipped");
	assert_false(app_status_failed(&st));
	assert_null(app_status_first_error(&st)); /* a warning is not an error */
	app_error_env(&st, "cannot write 'x.svg': No space left on device");
	app_error_flag(&st, "--dims", "empty item 2");
	assert_true(app_status_failed(&st));
	assert_int_equal(st.exit_code, EXIT_ENV); /* the first error's class */
	assert_string_equal(app_status_first_error(&st)->text, "cannot write 'x.svg': No space left on device");

	app_status_clear(&st);
	app_error_flag(&st, "--dims", "empty item 2");
	app_error_env(&st, "out of memory");
	assert_int_equal(st.exit_code, EXIT_USAGE);
	assert_string_equal(app_status_first_error(&st)->flag, "--dims");
}

static void test_dropped_past_max(void **state)
{
	(void)state;
	struct app_status st;
	app_status_init(&st);
	for (int i = 0; i < APP_STATUS_MAX + 5; i++)
		app_error(&st, "problem %d", i);
	app_warning(&st, "one more");
	assert_int_equal(st.count, APP_STATUS_MAX);
	assert_int_equal(st.dropped, 6);
	assert_int_equal(st.errors, APP_STATUS_MAX + 5); /* all errors count, kept or not */
	char last[32];
	snprintf(last, sizeof last, "problem %d", APP_STATUS_MAX - 1);
	assert_string_equal(st.msgs[APP_STATUS_MAX - 1].text, last); /* the first ones are kept */
}

/* stderr and stdout into a temporary file while fn runs: what it wrote. */
static long captured_bytes(void (*fn)(void *), void *ctx)
{
	fflush(stdout);
	fflush(stderr);
	FILE *tmp = tmpfile();
	assert_non_null(tmp);
	int saved_err = dup(STDERR_FILENO), saved_out = dup(STDOUT_FILENO);
	assert_true(saved_err >= 0 && saved_out >= 0);
	dup2(fileno(tmp), STDERR_FILENO);
	dup2(fileno(tmp), STDOUT_FILENO);
	fn(ctx);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_err, STDERR_FILENO);
	dup2(saved_out, STDOUT_FILENO);
	close(saved_err);
	close(saved_out);
	/* Written through the descriptor: the stream's own position knows nothing of it. */
	fseek(tmp, 0, SEEK_END);
	long size = ftell(tmp);
	fclose(tmp);
	return size;
}

struct parse_case {
	struct app_status st;
	int rc;
	long long value;
};

static void parse_fraction(void *ctx)
{
	struct parse_case *c = ctx;
	c->rc = app_parse_int("--steps", "1.5", 1, 1000, &c->value, &c->st);
}

static void test_parse_int_reports_without_printing(void **state)
{
	(void)state;
	struct parse_case c = { .value = 7 };
	app_status_init(&c.st);
	assert_int_equal(captured_bytes(parse_fraction, &c), 0);
	assert_int_equal(c.rc, -1);
	assert_int_equal(c.value, 7); /* untouched */
	assert_int_equal(c.st.errors, 1);
	assert_int_equal(c.st.exit_code, EXIT_USAGE);
	const struct app_msg *m = app_status_first_error(&c.st);
	assert_non_null(m);
	assert_string_equal(m->flag, "--steps");
	assert_string_equal(m->text, "must be a whole number, not '1.5'");
}

struct find_case {
	struct app_status st;
	struct app_hw hw;
	int open_rc;
	const struct hwdb_entry *found;
};

static void find_unknown(void *ctx)
{
	struct find_case *c = ctx;
	c->open_rc = app_hw_open(&c->hw, NULL, NULL, &c->st);
	if (c->open_rc == 0)
		c->found = app_hw_find(&c->hw, "h100-sxn", &c->st);
}

static void test_hw_find_reports_without_printing(void **state)
{
	(void)state;
	/* No user directory or $RIDGE_HWDB: the built-in entries alone. */
	setenv("XDG_CONFIG_HOME", "/nonexistent-ridge-test", 1);
	setenv("HOME", "/nonexistent-ridge-test", 1);
	unsetenv("RIDGE_HWDB");
	struct find_case c = { .found = NULL };
	app_status_init(&c.st);
	assert_int_equal(captured_bytes(find_unknown, &c), 0);
	assert_int_equal(c.open_rc, 0);
	assert_null(c.found);
	assert_int_equal(c.st.errors, 1);
	const struct app_msg *m = app_status_first_error(&c.st);
	assert_non_null(m);
	assert_non_null(strstr(m->text, "unknown GPU 'h100-sxn'; did you mean 'h100-sxm'"));
	assert_non_null(strstr(m->text, "(see 'ridge hw list')"));
	assert_int_equal(c.st.exit_code, EXIT_USAGE);
	app_hw_close(&c.hw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_location_forms),
		cmocka_unit_test(test_exit_class_and_first_error),
		cmocka_unit_test(test_dropped_past_max),
		cmocka_unit_test(test_parse_int_reports_without_printing),
		cmocka_unit_test(test_hw_find_reports_without_printing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
