/* ridge compare BASE.json AFTER.json: did a change help, hurt, or stay in the
 * noise (app/read/compare.h has the rule, app/view/compare_view.c the pairing, text and
 * JSON). Exit 0 no regression, 1 a regression, 2 bad input: for scripts. */
#include "cli.h"
#include "compare.h"
#include "params.h"

static const char compare_synopsis[] = "usage: ridge compare BASE.json AFTER.json [--threshold F] [--json]";
static const char compare_description[] =
	"Compares two benchmark runs name by name: ridge-probe JSON (each measurement's\n"
	"seconds), validation JSON (measured_s with its cv) or any JSON list of\n"
	"{\"name\", \"samples\": [...]} (samples are costs, lower is better, unless the file or\n"
	"the item says \"better\": \"higher\"). Per name: the medians, the delta, each run's\n"
	"standard deviation and the verdict:\n"
	"  noise        |delta| below either run's standard deviation\n"
	"  improvement  beyond both and better by more than the threshold (3%)\n"
	"  better       beyond both, better by less than the threshold\n"
	"  regression   beyond both and worse, by any amount\n"
	"Exit status: 0 no regression, 1 at least one regression, 2 bad input.\n";

static const struct param compare_params[] = {
	{ "threshold", PARAM_FRACTION, 0, NULL, 0, 1, 0, "F",
	  "the smallest gain that counts as an improvement (default 3%)", NULL, NULL },
	CALC_JSON_PARAM,
};
#define COMPARE_PARAM_COUNT (int)(sizeof compare_params / sizeof compare_params[0])

static int run_compare(int argc, char **argv)
{
	struct param_values v;
	const char *files[2];
	int rc = params_parse_files(&v, compare_params, COMPARE_PARAM_COUNT, "compare", compare_synopsis,
				    compare_description, argc, argv, files, 2,
				    "compare needs two files, BASE.json and AFTER.json (see 'ridge compare --help')");
	if (rc != 0)
		return rc == 1 ? EXIT_OK : rc;
	struct comparison c = {
		.base_path = files[0],
		.after_path = files[1],
		.threshold = params_has(&v, "threshold") ? params_num(&v, "threshold") : 0.03,
	};
	struct app_status st;
	app_status_init(&st);
	if (comparison_open(&c, &st) != 0) {
		rc = cli_report(&st);
	} else if (params_flag(&v, "json")) {
		rc = cli_json_print(comparison_json(&c));
	} else {
		comparison_print(stdout, &c);
		rc = EXIT_OK;
	}
	if (rc == EXIT_OK && c.verdicts[COMPARE_REGRESSION])
		rc = EXIT_PROBLEM;
	comparison_close(&c);
	return rc;
}

const struct cli_command cli_cmd_compare = { "compare", run_compare,
					     "two benchmark runs name by name: noise, improvement or regression" };
