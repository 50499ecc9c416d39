/* ridge report [--gpu GPU]: the main job (`make run`): one page on a GPU from
 * every calculator, on built-in defaults. */
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "report.h"

static const char usage_text[] =
	"usage: ridge report [--gpu GPU] [--hwdb DIR] [--calibration FILE]\n"
	"\n"
	"A one-page report on a GPU (default " APP_DEFAULT_GPU "): its ceilings and ridge points,\n"
	"and each calculator run on the worked examples of the GPU-kernels chapter.\n";

static int run_report(int argc, char **argv)
{
	struct cli_options opt = { .gpu = NULL };
	int rc = cli_parse_options("report", argc, argv, CLI_OPT_GPU, &opt);
	if (rc != 0)
		return rc;
	if (opt.help) {
		fputs(usage_text, stdout);
		return EXIT_OK;
	}
	if (optind < argc) {
		cli_error("report takes no arguments, got '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	struct app_hw hw;
	struct app_status st;
	app_status_init(&st);
	if (app_hw_open(&hw, opt.hwdb_dir, opt.calibration, &st) != 0) {
		cli_report(&st);
		return EXIT_USAGE;
	}
	const struct hwdb_entry *e = app_hw_find(&hw, opt.gpu ? opt.gpu : app_hw_default_gpu(&hw), &st);
	cli_report(&st);
	if (!e) {
		app_hw_close(&hw);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < report_section_count; i++) {
		if (i)
			printf("\n");
		report_sections[i](&e->gpu);
	}
	app_hw_close(&hw);
	return EXIT_OK;
}

const struct cli_command cli_cmd_report = { "report", run_report, "a one-page report on a GPU from every calculator" };
