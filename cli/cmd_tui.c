/* ridge tui [--gpu GPU] [FILE.yaml]: the ncurses what-if explorer (tui/). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../tui/tui.h"

static int parse_size(const char *text, int *cols, int *lines)
{
	char *end;
	long c = strtol(text, &end, 10);
	if (end == text || (*end != 'x' && *end != 'X')) {
		cli_error("--size: '%s' is not COLSxLINES (e.g. 100x30)", text);
		return -1;
	}
	const char *rest = end + 1;
	long l = strtol(rest, &end, 10);
	if (end == rest || *end || c < 20 || c > 500 || l < 5 || l > 250) {
		cli_error("--size: '%s' is not COLSxLINES within 20x5..500x250", text);
		return -1;
	}
	*cols = (int)c;
	*lines = (int)l;
	return 0;
}

/* Returns 0 to run, -1 after --help (printed: exit 0), or the exit code of
 * an error. */
static int parse_options(int argc, char **argv, struct tui_options *opt, bool *keys)
{
	struct param_values v;
	int rc, operands = params_parse(&v, &tui_params_command, argc, argv, &rc);
	if (operands < 0)
		return rc == EXIT_OK ? -1 : rc;
	opt->gpu = params_text(&v, TUI_GPU);
	opt->hwdb_dir = params_text(&v, TUI_HWDB);
	opt->calibration = params_text(&v, TUI_CALIBRATION);
	opt->dump = params_flag(&v, TUI_DUMP);
	opt->bench = params_flag(&v, TUI_BENCH);
	*keys = params_flag(&v, TUI_KEYS);
	if (params_has(&v, TUI_SIZE) && parse_size(params_text(&v, TUI_SIZE), &opt->cols, &opt->lines) != 0)
		return EXIT_USAGE;
	if (params_has(&v, TUI_PRESSES)) {
		/* app_parse_int's range text (1..1000000), as --presses always said it. */
		struct app_status st;
		app_status_init(&st);
		long long presses;
		if (app_parse_int("--presses", params_text(&v, TUI_PRESSES), 1, 1000000, &presses, &st) != 0)
			return cli_report(&st);
		opt->presses = (int)presses;
	}
	if (operands > 0)
		opt->file = v.operands[0];
	if (operands > 1) {
		cli_error("tui takes one scenario file, got also '%s'", v.operands[1]);
		return EXIT_USAGE;
	}
	if (opt->dump && !opt->file) {
		cli_error("--dump needs a scenario file (ridge tui --dump FILE.yaml)");
		return EXIT_USAGE;
	}
	return 0;
}

static int run_tui(int argc, char **argv)
{
	struct tui_options opt = { .lines = 30, .cols = 100, .presses = 500 };
	bool keys = false;
	int rc = parse_options(argc, argv, &opt, &keys);
	if (rc != 0)
		return rc < 0 ? EXIT_OK : rc;
	if (keys) {
		tui_print_keys(stdout);
		return EXIT_OK;
	}
	struct app_status st;
	app_status_init(&st);
	rc = tui_main(&opt, cli_terminal(), stdout, &st);
	/* After the explorer has given the terminal back. */
	cli_report(&st);
	return rc;
}

const struct cli_command cli_cmd_tui = { "tui", run_tui, "the what-if explorer (ncurses): every panel live" };
