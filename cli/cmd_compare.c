/* ridge compare BASE.json AFTER.json: did a change help, hurt, or stay in the
 * noise (app/read/compare.h has the rule, app/view/compare_view.c the pairing, text and
 * JSON). Exit 0 no regression, 1 a regression, 2 bad input: for scripts. */
#include "cli.h"
#include "compare.h"
#include "params.h"

static int run_compare(int argc, char **argv)
{
	struct param_values v;
	int rc;
	if (params_parse(&v, &compare_params_command, argc, argv, &rc) < 0)
		return rc;
	struct comparison c = {
		.base_path = v.operands[0],
		.after_path = v.operands[1],
		.threshold = params_has(&v, COMPARE_THRESHOLD) ? params_num(&v, COMPARE_THRESHOLD) : 0.03,
	};
	struct app_status st;
	app_status_init(&st);
	if (comparison_open(&c, &st) != 0) {
		rc = cli_report(&st);
	} else if (params_flag(&v, COMPARE_JSON)) {
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
