/* ridge tui [--gpu GPU] [FILE.yaml]: the ncurses what-if explorer (tui/). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../tui/tui.h"

static const char usage_text[] =
	"usage: ridge tui [--gpu GPU] [--hwdb DIR] [--calibration FILE] [FILE.yaml]\n"
	"       ridge tui --dump FILE.yaml [--gpu GPU] [--hwdb DIR] [--calibration FILE]\n"
	"       ridge tui --bench [--size COLSxLINES] [--presses N]\n"
	"       ridge tui --keys\n"
	"\n"
	"The what-if explorer: hardware, roofline, occupancy, alignment and cost panels\n"
	"whose numbers change as you change the inputs (the same model functions as\n"
	"the other ridge commands). Press ? inside for the keys.\n"
	"\n"
	"  FILE.yaml           open a scenario file (the format 'ridge eval' reads);\n"
	"                      's' inside saves the what-if back to one\n"
	"  --gpu GPU           the GPU to start with (default " APP_DEFAULT_GPU "; overrides the scenario's)\n"
	"  --hwdb DIR          also load every *.yaml in DIR\n"
	"  --calibration FILE  also load FILE (a ridge-probe calibration); without\n"
	"                      --gpu, start on it\n"
	"  --dump              no terminal: print the panels' values as one JSON document\n"
	"  --bench             time key press -> update + redraw off-screen, per panel\n"
	"  --size COLSxLINES   --bench screen size (default 100x30)\n"
	"  --presses N         --bench key presses per panel (default 500)\n"
	"  --keys              print the key bindings as a Markdown table\n"
	"\n"
	"Colors follow the terminal; NO_COLOR=1 turns them off.\n";

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

/* The flags (usage_text above is their help). --size and --presses are
 * checked after the loop, with their own messages. */
static const struct param tui_params[] = {
	CALC_GPU_PARAMS,
	{ "dump", PARAM_FLAG, 0, NULL, 0, 0, PARAM_CLI_ONLY, NULL, "print the panels' values as one JSON document",
	  NULL, NULL },
	{ "bench", PARAM_FLAG, 0, NULL, 0, 0, PARAM_CLI_ONLY, NULL, "time key press -> update + redraw off-screen",
	  NULL, NULL },
	{ "size", PARAM_TEXT, 0, NULL, 0, 0, PARAM_CLI_ONLY, "COLSxLINES", "--bench screen size", NULL, "100x30" },
	{ "presses", PARAM_TEXT, 0, NULL, 0, 0, PARAM_CLI_ONLY, "N", "--bench key presses per panel", NULL, "500" },
	{ "keys", PARAM_FLAG, 0, NULL, 0, 0, PARAM_CLI_ONLY, NULL, "print the key bindings as a Markdown table", NULL,
	  NULL },
};
#define TUI_PARAM_COUNT (int)(sizeof tui_params / sizeof tui_params[0])

/* Returns 0, 1 after --help, or an exit code. */
static int parse_options(int argc, char **argv, struct tui_options *opt, bool *keys)
{
	struct param_values v;
	params_init(&v, tui_params, TUI_PARAM_COUNT);
	int rc = params_parse_flags(&v, "tui", NULL, NULL, usage_text, argc, argv);
	if (rc != 0)
		return rc;
	opt->gpu = params_text(&v, "gpu");
	opt->hwdb_dir = params_text(&v, "hwdb");
	opt->calibration = params_text(&v, "calibration");
	opt->dump = params_flag(&v, "dump");
	opt->bench = params_flag(&v, "bench");
	*keys = params_flag(&v, "keys");
	if (params_has(&v, "size") && parse_size(params_text(&v, "size"), &opt->cols, &opt->lines) != 0)
		return EXIT_USAGE;
	if (params_has(&v, "presses")) {
		/* app_parse_int's range text (1..1000000), as --presses always said it. */
		struct app_status st;
		app_status_init(&st);
		long long presses;
		if (app_parse_int("--presses", params_text(&v, "presses"), 1, 1000000, &presses, &st) != 0)
			return cli_report(&st);
		opt->presses = (int)presses;
	}
	if (optind < argc)
		opt->file = argv[optind++];
	if (optind < argc) {
		cli_error("tui takes one scenario file, got also '%s'", argv[optind]);
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
		return rc == 1 ? EXIT_OK : rc;
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
