/* ridge report [--gpu GPU] [--json]: the main job (`make run`): one page on a
 * GPU from every calculator, on built-in defaults; --json, the same sections
 * as one JSON document. */
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "report.h"

static const char usage_text[] =
	"usage: ridge report [--gpu GPU] [--hwdb DIR] [--calibration FILE] [--json]\n"
	"\n"
	"A one-page report on a GPU (default " APP_DEFAULT_GPU "): its ceilings and ridge points,\n"
	"and each calculator run on the worked examples of chapter 7 (GPU kernels) of the textbook\n"
	"AI/ML Infrastructure from Silicon to Scale (Venkat Vinjam), cited by section.\n"
	"\n"
	"  --gpu GPU           hwdb id or alias (default: the calibration's GPU, else " APP_DEFAULT_GPU ")\n"
	"  --hwdb DIR          also load the hwdb entries in DIR\n"
	"  --calibration FILE  a ridge-probe calibration: measured ceilings, set against the spec sheet\n"
	"  --json              every section as one JSON document on stdout (SI units; the keys of\n"
	"                      ridge hw show, roofline, align, launch, cost and occupancy --json)\n";

static int run_report(int argc, char **argv)
{
	struct cli_options opt = { .gpu = NULL };
	int rc = cli_parse_options("report", argc, argv, CLI_OPT_GPU | CLI_OPT_JSON, &opt);
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
	const struct hwdb_entry *e = app_hw_open_gpu(&hw, opt.hwdb_dir, opt.calibration, opt.gpu, &st);
	cli_report(&st);
	if (!e)
		return EXIT_USAGE;
	if (opt.json) {
		cJSON *doc = cJSON_CreateObject();
		calc_json_gpu(doc, &e->gpu);
		for (size_t i = 0; i < report_section_count; i++)
			report_sections[i](stdout, &e->gpu, doc);
		cJSON *hardware = cJSON_GetObjectItemCaseSensitive(doc, "hardware");
		if (hardware)
			cJSON_AddStringToObject(hardware, "origin", e->origin);
		app_hw_close(&hw);
		return cli_json_print(doc);
	}
	for (size_t i = 0; i < report_section_count; i++) {
		if (i)
			printf("\n");
		report_sections[i](stdout, &e->gpu, NULL);
	}
	app_hw_close(&hw);
	return EXIT_OK;
}

const struct cli_command cli_cmd_report = { "report", run_report, "a one-page report on a GPU from every calculator" };
