/* ridge hw list | show GPU | check [FILE...]: the hardware database. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "hw_view.h"

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
static int hw_check_all_cmd(const struct param_values *v)
{
	bool json = params_flag(v, HW_JSON);
	struct app_status st;
	app_status_init(&st);
	struct hw_check_all c;
	int rc = hw_check_all_open(&c, params_text(v, HW_HWDB), &st);
	cli_report(&st);
	if (json) {
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
	int rc, index = cli_subcommand("hw", subcommands, hw_params_command.usage, argc, argv, &rc);
	if (index < 0)
		return rc;
	const char *sub = subcommands[index];
	struct param_values v;
	int nargs = params_parse(&v, &hw_params_command, argc - 1, argv + 1, &rc);
	if (nargs < 0)
		return rc;
	char **args = v.operands;
	bool json = params_flag(&v, HW_JSON);

	if (strcmp(sub, "check") == 0)
		return nargs > 0 ? hw_check_files_cmd(nargs, args, json) : hw_check_all_cmd(&v);

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
	if (app_hw_open(&hw, params_text(&v, HW_HWDB), params_text(&v, HW_CALIBRATION), &st) != 0) {
		cli_report(&st);
		return EXIT_USAGE;
	}
	if (strcmp(sub, "list") == 0) {
		cli_report(&st);
		if (json) {
			rc = cli_json_print(hw_list_json(&hw));
		} else {
			hw_list_print(stdout, &hw);
			rc = EXIT_OK;
		}
	} else {
		const struct hwdb_entry *e = app_hw_find(&hw, args[0], &st);
		cli_report(&st);
		rc = EXIT_USAGE;
		if (e && json) {
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
