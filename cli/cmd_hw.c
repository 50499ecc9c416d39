/* ridge hw list | show GPU | check [FILE...]: the hardware database. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "hw_view.h"

static const char usage_text[] = "usage: ridge hw list  [--json] [--hwdb DIR]\n"
				 "       ridge hw show  GPU [--json] [--hwdb DIR] [--calibration FILE]\n"
				 "       ridge hw check [FILE...] [--json] [--hwdb DIR]\n"
				 "\n"
				 "  list    every known GPU: id, name, vendor, architecture, headline rates\n"
				 "  show    one entry in full, with the sources of its numbers (GPU: id or alias,\n"
				 "          e.g. h100-sxm or \"NVIDIA H100 80GB HBM3\")\n"
				 "  check   validate entries (schema, units, ranges, plausibility); with no FILE,\n"
				 "          every entry ridge would load. Exit 1 if any entry is bad.\n"
				 "\n"
				 "  --json              one JSON document on stdout (SI units)\n"
				 "  --hwdb DIR          also load every *.yaml in DIR (overrides by id)\n"
				 "  --calibration FILE  also load FILE (a ridge-probe calibration)\n"
				 "\n"
				 "Entries load from the built-in database, then $XDG_CONFIG_HOME/ridge/hwdb\n"
				 "(~/.config/ridge/hwdb), then each directory in $RIDGE_HWDB (colon-separated).\n";

/* check with files; the report and its exit code are app/view/hw_view.c's. */
static int hw_check_files_cmd(int count, char **files, bool json)
{
	struct app_status st;
	app_status_init(&st);
	cJSON *doc = NULL;
	int rc = hw_check_files(stdout, count, files, json, &doc, &st);
	if (rc < 0)
		return cli_report(&st);
	if (doc) {
		int printed = cli_json_print(doc);
		if (rc == EXIT_OK)
			rc = printed;
	}
	return rc;
}

/* check with no files: every layer ridge would load. */
static int hw_check_all_cmd(const struct cli_options *opt)
{
	struct app_status st;
	app_status_init(&st);
	struct hw_check_all c;
	int rc = hw_check_all_open(&c, opt->hwdb_dir, &st);
	cli_report(&st);
	if (opt->json) {
		int printed = cli_json_print(hw_check_all_json(&c));
		if (rc == EXIT_OK)
			rc = printed;
	} else {
		hw_check_all_print(stdout, &c);
	}
	hw_check_all_close(&c);
	return rc;
}

static int run_hw(int argc, char **argv)
{
	static const char *const subcommands[] = { "list", "show", "check", NULL };
	int rc, index = cli_subcommand("hw", subcommands, usage_text, argc, argv, &rc);
	if (index < 0)
		return rc;
	const char *sub = subcommands[index];
	struct cli_options opt = { 0 };
	rc = cli_parse_options("hw", argc - 1, argv + 1, CLI_OPT_JSON, &opt);
	if (rc != 0)
		return rc;
	if (opt.help) {
		fputs(usage_text, stdout);
		return EXIT_OK;
	}
	char **args = argv + 1 + optind;
	int nargs = argc - 1 - optind;

	if (strcmp(sub, "check") == 0)
		return nargs > 0 ? hw_check_files_cmd(nargs, args, opt.json) : hw_check_all_cmd(&opt);

	if (strcmp(sub, "list") == 0 && nargs > 0) {
		cli_error("hw list takes no arguments, got '%s'", args[0]);
		return EXIT_USAGE;
	}
	if (strcmp(sub, "show") == 0 && nargs != 1) {
		cli_error(nargs == 0 ? "hw show needs a GPU id (see 'ridge hw list')" : "hw show takes one GPU, got %d",
			  nargs);
		return EXIT_USAGE;
	}
	struct app_hw hw;
	struct app_status st;
	app_status_init(&st);
	if (app_hw_open(&hw, opt.hwdb_dir, opt.calibration, &st) != 0) {
		cli_report(&st);
		return EXIT_USAGE;
	}
	if (strcmp(sub, "list") == 0) {
		cli_report(&st);
		if (opt.json) {
			rc = cli_json_print(hw_list_json(&hw));
		} else {
			hw_list_print(stdout, &hw);
			rc = EXIT_OK;
		}
	} else {
		const struct hwdb_entry *e = app_hw_find(&hw, args[0], &st);
		cli_report(&st);
		rc = EXIT_USAGE;
		if (e && opt.json) {
			rc = cli_json_print(app_gpu_json(&e->gpu, e->origin));
		} else if (e) {
			hw_show_print(stdout, e);
			rc = EXIT_OK;
		}
	}
	app_hw_close(&hw);
	return rc;
}

const struct cli_command cli_cmd_hw = { "hw", run_hw, "the hardware database: list, show, check" };
