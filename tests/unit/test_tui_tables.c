/* One table of inputs per calculator: the TUI's fields, the command line
 * and scenario items read the same parameter, so they accept the same
 * values and refuse the others with the same reason. */
#include "test_util.h"

#include <math.h>
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "eval.h"
#include "occupancy_calc.h"
#include "state.h"

/* What stderr received while the last capture_begin was active. */
static FILE *captured;
static int saved_stderr = -1;

static void capture_begin(void)
{
	fflush(stderr);
	captured = tmpfile();
	assert_non_null(captured);
	saved_stderr = dup(fileno(stderr));
	assert_true(saved_stderr >= 0);
	assert_true(dup2(fileno(captured), fileno(stderr)) >= 0);
}

static void capture_end(char *buf, size_t len)
{
	fflush(stderr);
	dup2(saved_stderr, fileno(stderr));
	close(saved_stderr);
	rewind(captured);
	size_t n = fread(buf, 1, len - 1, captured);
	buf[n] = '\0';
	fclose(captured);
}

/* Every message of st, formatted as the front ends show them, one a line. */
static void status_text(const struct app_status *st, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int i = 0; i < st->count && n + 1 < len; i++) {
		app_msg_format(&st->msgs[i], buf + n, len - n);
		n += strlen(buf + n);
		if (n + 1 < len) {
			buf[n++] = '\n';
			buf[n] = '\0';
		}
	}
}

/* The reason after "<name>: " in the first error line, without the newline. */
static const char *reason_after(const char *text, const char *name, char *buf, size_t len)
{
	char needle[64];
	snprintf(needle, sizeof needle, "%s: ", name);
	const char *at = strstr(text, needle);
	if (!at)
		fail_msg("no '%s' in: %s", needle, text);
	snprintf(buf, len, "%s", at + strlen(needle));
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static const struct param *table_param(const struct calc *calc, const char *name)
{
	int i = params_index(calc->params, calc->param_count, name);
	assert_true(i >= 0);
	return &calc->params[i];
}

/* Parses `ridge <command> ARGS` through the calculator's own path; returns
 * the exit code params_parse gave (EXIT_OK when it parsed), stderr in err. */
static int parse_calc(const struct calc *calc, struct param_values *v, const char *const *args, int n, char *err,
		      size_t err_len)
{
	char *argv[16];
	argv[0] = (char *)calc_command(calc);
	for (int i = 0; i < n; i++)
		argv[i + 1] = (char *)args[i];
	struct params_command cmd = calc_params_command(calc);
	cmd.usage = "usage\n";
	cmd.check_required = false;
	capture_begin();
	int rc = EXIT_OK;
	if (params_parse(v, &cmd, n + 1, argv, &rc) >= 0)
		rc = EXIT_OK;
	capture_end(err, err_len);
	return rc;
}

static int parse_occupancy(struct param_values *v, const char *const *args, int n, char *err, size_t err_len)
{
	return parse_calc(&calc_occupancy, v, args, n, err, err_len);
}

/* The field of a panel mode with that key (keys repeat across modes: "params"). */
static const struct tui_field *mode_field(enum tui_panel_id panel, int mode, const char *key)
{
	for (size_t i = 0; i < tui_field_count; i++)
		if (tui_fields[i].panel == panel && (tui_fields[i].mode < 0 || tui_fields[i].mode == mode) &&
		    strcmp(tui_fields[i].key, key) == 0)
			return &tui_fields[i];
	fail_msg("no field %s", key);
	return NULL;
}

/* The field takes the top of its calculator's range and refuses the next
 * value above it with the command line's own reason (the flag --key). */
static void assert_top_agrees(const struct tui_field *f, const char *top, const char *over)
{
	struct param_values v;
	char flag[64], err[1024], cli_reason[256], tui_err[256];
	params_flag_name(f->key, flag, sizeof flag);
	assert_int_equal(parse_calc(f->calc, &v, (const char *const[]){ flag, over }, 2, err, sizeof err), EXIT_USAGE);
	struct tui_inputs in;
	tui_inputs_default(&in, test_hwdb(), 0);
	assert_int_equal(tui_field_set_text(&in, test_hwdb(), f, top, tui_err, sizeof tui_err), 0);
	assert_int_equal(tui_field_set_text(&in, test_hwdb(), f, over, tui_err, sizeof tui_err), -1);
	assert_string_equal(reason_after(err, flag, cli_reason, sizeof cli_reason), tui_err);
}

/* A scenario of one occupancy item with the given keys; NULL when it does
 * not load, its messages in err. */
static struct eval_scenario *occupancy_item(const char *keys, char *err, size_t err_len)
{
	char text[1024];
	snprintf(text, sizeof text, "scenario: tables\ngpu: h100-sxm\nitems:\n  - name: t\n    kind: occupancy\n%s",
		 keys);
	struct app_status st;
	app_status_init(&st);
	struct eval_scenario *sc = eval_parse("t.yaml", text, strlen(text), NULL, NULL, &st);
	status_text(&st, err, err_len);
	return sc;
}

static void test_threads_range_is_the_table_s(void **state)
{
	(void)state;
	const struct tui_field *f = tui_field_find_in(TUI_PANEL_OCCUPANCY, "threads");
	assert_non_null(f);
	const struct param *p = tui_field_param(f);
	assert_ptr_equal(p, table_param(&calc_occupancy, "threads"));
	double lo, hi;
	bool open_lo;
	tui_field_range(f, &lo, &hi, &open_lo);
	assert_true(lo == p->lo && hi == p->hi && !open_lo);
	assert_true(lo == 1 && hi == 1024);

	/* The command line takes the top of the range and refuses one more; so does the TUI. */
	struct param_values v;
	char err[1024], tui_err[256];
	assert_int_equal(
		parse_occupancy(&v, (const char *const[]){ "--threads", "1024", "--regs", "32" }, 4, err, sizeof err),
		0);
	assert_int_equal(params_num(&v, params_index(v.spec, v.count, "threads")), 1024);
	assert_int_equal(parse_occupancy(&v, (const char *const[]){ "--threads", "1025" }, 2, err, sizeof err),
			 EXIT_USAGE);
	struct tui_inputs in;
	tui_inputs_default(&in, test_hwdb(), 0);
	assert_int_equal(tui_field_set_text(&in, test_hwdb(), f, "1024", tui_err, sizeof tui_err), 0);
	assert_true(in.threads == 1024);
	assert_int_equal(tui_field_set_text(&in, test_hwdb(), f, "1025", tui_err, sizeof tui_err), -1);
	char cli_reason[256];
	assert_string_equal(reason_after(err, "--threads", cli_reason, sizeof cli_reason), tui_err);
	assert_string_equal(tui_err, "'1025' is out of range (1..1024)");

	/* The TUI starts from the table's default. */
	tui_inputs_default(&in, test_hwdb(), 0);
	assert_non_null(p->def);
	assert_true(in.threads == atof(p->def));
}

static void test_mfu_range_is_the_table_s(void **state)
{
	(void)state;
	const struct tui_field *f = NULL;
	for (size_t i = 0; i < tui_field_count; i++)
		if (tui_fields[i].panel == TUI_PANEL_COST && tui_fields[i].mode == TUI_COST_TRAIN &&
		    strcmp(tui_fields[i].key, "mfu") == 0)
			f = &tui_fields[i];
	assert_non_null(f);
	const struct param *p = tui_field_param(f);
	assert_ptr_equal(p, table_param(&calc_cost_train, "mfu"));
	double lo, hi;
	bool open_lo;
	tui_field_range(f, &lo, &hi, &open_lo);
	assert_true(lo == 0 && hi == 1 && open_lo); /* the model's (0, 1] */
	struct tui_inputs in;
	char err[256];
	tui_inputs_default(&in, test_hwdb(), 0);
	assert_int_equal(tui_field_set_text(&in, test_hwdb(), f, "0.0005", err, sizeof err), 0);
	assert_int_equal(tui_field_set_text(&in, test_hwdb(), f, "0%", err, sizeof err), -1);
	assert_string_equal(err, "'0%' is out of range (0 < MFU <= 1)");
}

static void test_same_message_from_cli_and_scenario(void **state)
{
	(void)state;
	char cli_err[1024], file_err[1024], a[256], b[256];
	struct param_values v;

	/* The table's range: refused while parsing, on the command line and in a file. */
	assert_int_equal(parse_occupancy(&v, (const char *const[]){ "--threads", "0", "--regs", "32" }, 4, cli_err,
					 sizeof cli_err),
			 EXIT_USAGE);
	assert_null(occupancy_item("    threads: 0\n    regs: 32\n", file_err, sizeof file_err));
	assert_string_equal(reason_after(cli_err, "--threads", a, sizeof a),
			    reason_after(file_err, "threads", b, sizeof b));
	assert_string_equal(a, "'0' is out of range (1..1024)");
	assert_non_null(strstr(file_err, "t.yaml:6:"));

	/* The GPU's own limit (255 registers on an H100): one check, occupancy_build_input, for both. */
	assert_int_equal(parse_occupancy(&v, (const char *const[]){ "--threads", "256", "--regs", "256" }, 4, cli_err,
					 sizeof cli_err),
			 0);
	const struct hwdb_entry *h100 = hwdb_find(test_hwdb(), "h100-sxm");
	assert_non_null(h100);
	struct app_status st;
	app_status_init(&st);
	struct ridge_occupancy_input occ;
	assert_int_equal(occupancy_build_input(&v, &h100->gpu, &occ, &st), -1);
	char cli_msg[APP_MSG_TEXT + 600];
	app_msg_format(app_status_first_error(&st), cli_msg, sizeof cli_msg);
	struct eval_scenario *sc = occupancy_item("    threads: 256\n    regs: 256\n", file_err, sizeof file_err);
	assert_non_null(sc);
	struct app_status run_st;
	app_status_init(&run_st);
	cJSON *result = eval_run(sc, 0, &run_st);
	status_text(&run_st, file_err, sizeof file_err);
	assert_null(result);
	assert_string_equal(reason_after(cli_msg, "--regs", a, sizeof a), reason_after(file_err, "regs", b, sizeof b));
	assert_string_equal(a, "'256' is out of range (0..255)");
	eval_close(sc);
}

/* Every number the TUI takes is a calculator's parameter: its range is
 * written once, in the calculator's table, and the TUI's is that one. */
static void test_every_number_field_is_a_parameter(void **state)
{
	(void)state;
	for (size_t i = 0; i < tui_field_count; i++) {
		const struct tui_field *f = &tui_fields[i];
		const struct param *p = tui_field_param(f);
		if (f->calc && !p)
			fail_msg("%s: %s has no parameter '%s'", tui_panel_name(f->panel), f->calc->name, f->key);
		if (f->kind != TUI_FIELD_NUMBER && f->kind != TUI_FIELD_INTEGER)
			continue;
		if (!p)
			fail_msg("%s: the number field '%s' names no calculator", tui_panel_name(f->panel), f->key);
		assert_true(p->kind == PARAM_NUMBER || p->kind == PARAM_INTEGER || p->kind == PARAM_FRACTION);
		assert_int_equal(f->kind == TUI_FIELD_INTEGER, p->kind == PARAM_INTEGER);
		double lo, hi;
		bool open_lo;
		tui_field_range(f, &lo, &hi, &open_lo);
		assert_true(lo == p->lo && hi == p->hi && open_lo == ((p->flags & PARAM_OPEN_LO) != 0));
	}
}

/* The cost decode fields: ridge cost decode's ranges (they were the TUI's own). */
static void test_decode_ranges_are_the_table_s(void **state)
{
	(void)state;
	const struct tui_field *batch = mode_field(TUI_PANEL_COST, TUI_COST_DECODE, "batch");
	assert_ptr_equal(batch->calc, &calc_cost_decode);
	assert_ptr_equal(tui_field_param(batch), table_param(&calc_cost_decode, "batch"));
	assert_top_agrees(batch, "1e9", "2e9"); /* the TUI stopped at 1e7 */
	assert_top_agrees(mode_field(TUI_PANEL_COST, TUI_COST_DECODE, "context"), "1e12", "2e12");
	assert_top_agrees(mode_field(TUI_PANEL_COST, TUI_COST_DECODE, "layers"), "1000000", "1000001");
	assert_top_agrees(mode_field(TUI_PANEL_COST, TUI_COST_DECODE, "overhead_ms"), "3600s", "3601s");

	/* A price of 0 and a peak above 1e18 are the command's to take; a peak of 0 is not. */
	struct tui_inputs in;
	char err[256];
	tui_inputs_default(&in, test_hwdb(), 0);
	assert_int_equal(tui_field_set_text(&in, test_hwdb(), mode_field(TUI_PANEL_COST, TUI_COST_DECODE, "price"), "0",
					    err, sizeof err),
			 0);
	assert_true(in.decode_price == 0);
	const struct tui_field *peak = mode_field(TUI_PANEL_COST, TUI_COST_DECODE, "peak");
	assert_int_equal(tui_field_set_text(&in, test_hwdb(), peak, "2e18", err, sizeof err), 0);
	assert_int_equal(tui_field_set_text(&in, test_hwdb(), peak, "0", err, sizeof err), -1);
	assert_string_equal(err, "'0' is out of range (greater than 0)");

	/* A bare number is read in the flag's unit, as --overhead-ms reads it. */
	const struct tui_field *overhead = mode_field(TUI_PANEL_COST, TUI_COST_DECODE, "overhead_ms");
	assert_int_equal(tui_field_set_text(&in, test_hwdb(), overhead, "2", err, sizeof err), 0);
	assert_true(in.decode_overhead == 2e-3);
	assert_int_equal(tui_field_set_text(&in, test_hwdb(), overhead, "2 s", err, sizeof err), 0);
	assert_true(in.decode_overhead == 2);
	assert_int_equal(tui_field_set_text(&in, test_hwdb(), overhead, "3600001", err, sizeof err), -1);

	/* The storage and compute dtypes start from the table's default. */
	const struct tui_field *kv = mode_field(TUI_PANEL_COST, TUI_COST_DECODE, "kv_dtype");
	assert_string_equal(table_param(&calc_cost_decode, "kv_dtype")->def, "bf16");
	assert_string_equal(kv->choices[in.decode_kv_dtype], "bf16");
	assert_int_equal(in.decode_dtype, RIDGE_BF16);
}

/* GEMM M, N, K: ridge gemm's range, which is ridge roofline's too (a GEMM
 * away from HBM is saved as a roofline item). */
static void test_gemm_ranges_are_the_table_s(void **state)
{
	(void)state;
	static const char *const dims[] = { "m", "n", "k" };
	for (int i = 0; i < 3; i++) {
		const struct tui_field *f = mode_field(TUI_PANEL_ROOFLINE, TUI_ROOFLINE_GEMM, dims[i]);
		const struct param *gemm = table_param(&calc_gemm, dims[i]),
				   *roofline = table_param(&calc_roofline, dims[i]);
		assert_ptr_equal(tui_field_param(f), gemm);
		assert_true(gemm->lo == roofline->lo && gemm->hi == roofline->hi);
		assert_true(gemm->lo == 1 && gemm->hi == 1099511627776.0);
		/* The TUI stopped at 1e9. */
		assert_top_agrees(f, "1099511627776", "1099511627777");
	}
	/* Stepping up stops at the table's top. */
	struct tui_state *s = malloc(sizeof *s);
	assert_non_null(s);
	tui_state_init(s, test_hwdb(), 0);
	s->in.gemm_m = 1099511627776.0 / 2;
	tui_state_goto(s, TUI_PANEL_ROOFLINE);
	s->selected[TUI_PANEL_ROOFLINE] = 2; /* mode, algorithm, M */
	assert_string_equal(tui_state_selected_field(s)->key, "m");
	tui_state_key(s, KEY_PPAGE);
	assert_true(s->in.gemm_m == 1099511627776.0);
	free(s);
}

/* An intensity: ridge roofline's "greater than 0" (the TUI took 1e-3 to 1e6). */
static void test_intensity_range_is_the_table_s(void **state)
{
	(void)state;
	const struct tui_field *f = mode_field(TUI_PANEL_ROOFLINE, TUI_ROOFLINE_INTENSITY, "intensity");
	assert_ptr_equal(tui_field_param(f), table_param(&calc_roofline, "intensity"));
	double lo, hi;
	bool open_lo;
	tui_field_range(f, &lo, &hi, &open_lo);
	assert_true(lo == 0 && open_lo && hi == INFINITY);
	struct tui_inputs in;
	char err[256], cli_err[1024];
	tui_inputs_default(&in, test_hwdb(), 0);
	assert_int_equal(tui_field_set_text(&in, test_hwdb(), f, "1e-4", err, sizeof err), 0);
	assert_int_equal(tui_field_set_text(&in, test_hwdb(), f, "1e7", err, sizeof err), 0);
	assert_int_equal(tui_field_set_text(&in, test_hwdb(), f, "0", err, sizeof err), -1);
	struct param_values v;
	assert_int_equal(
		parse_calc(&calc_roofline, &v, (const char *const[]){ "--intensity", "0" }, 2, cli_err, sizeof cli_err),
		EXIT_USAGE);
	/* Both refuse it; the command line words a positive quantity its own way. */
	char cli_reason[256];
	assert_string_equal(reason_after(cli_err, "--intensity", cli_reason, sizeof cli_reason),
			    "must be greater than 0, not '0'");
	assert_string_equal(err, "'0' is out of range (greater than 0)");

	/* Stepping down divides: below 1 FLOP/byte (an elementwise kernel), never to 0. */
	struct tui_state *s = malloc(sizeof *s);
	assert_non_null(s);
	tui_state_init(s, test_hwdb(), 0);
	s->in.roofline_mode = TUI_ROOFLINE_INTENSITY;
	s->in.intensity = 1;
	tui_state_goto(s, TUI_PANEL_ROOFLINE);
	s->selected[TUI_PANEL_ROOFLINE] = 1; /* mode, intensity */
	assert_string_equal(tui_state_selected_field(s)->key, "intensity");
	tui_state_key(s, KEY_LEFT);
	assert_true(s->in.intensity == 0.8);
	for (int i = 0; i < 100; i++)
		tui_state_key(s, KEY_NPAGE);
	assert_true(s->in.intensity > 0);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads_range_is_the_table_s),
		cmocka_unit_test(test_mfu_range_is_the_table_s),
		cmocka_unit_test(test_same_message_from_cli_and_scenario),
		cmocka_unit_test(test_every_number_field_is_a_parameter),
		cmocka_unit_test(test_decode_ranges_are_the_table_s),
		cmocka_unit_test(test_gemm_ranges_are_the_table_s),
		cmocka_unit_test(test_intensity_range_is_the_table_s),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
