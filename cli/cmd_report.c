/* ridge report [--gpu GPU] [--json]: the main job (`make run`): one page on a
 * GPU from every calculator, on built-in defaults; --json, the same sections
 * as one JSON document. */
#include <string.h>

#include "cli.h"
#include "report.h"

static int run_report(int argc, char **argv)
{
	struct param_values v;
	int rc, operands = params_parse(&v, &report_params_command, argc, argv, &rc);
	if (operands < 0)
		return rc;
	if (operands > 0) {
		cli_error("report takes no arguments, got '%s'", v.operands[0]);
		return EXIT_USAGE;
	}
	struct app_hw hw;
	struct app_status st;
	app_status_init(&st);
	const struct hwdb_entry *e =
		app_hw_open_gpu(&hw, params_text(&v, REPORT_HWDB), params_text(&v, REPORT_CALIBRATION),
				params_text(&v, REPORT_GPU), &st);
	cli_report(&st);
	if (!e)
		return EXIT_USAGE;
	if (params_flag(&v, REPORT_JSON)) {
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
