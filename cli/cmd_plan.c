/* ridge plan: the cheapest serving configurations that meet a TPOT and a TTFT
 * limit (model/plan.h): GPU type x count (tensor parallel) x batch x weight
 * dtype x launch mode, ranked by $ per million output tokens; --svg draws the
 * cost-latency Pareto front. Exit 1 when no configuration meets the limits.
 * The options are here; the search and its views are app/calc/plan_calc.c. */
#include <stdlib.h>

#include "calc.h"
#include "cli.h"
#include "plan_calc.h"

static int run_plan(int argc, char **argv)
{
	struct param_values v;
	int rc;
	if (params_parse(&v, &plan_params_command, argc, argv, &rc) < 0)
		return rc;
	struct app_status st;
	app_status_init(&st);
	cJSON *json = NULL;
	rc = plan_command(stdout, &v, &json, &st);
	int reported = cli_report(&st);
	if (rc < 0)
		return reported;
	if (json) {
		int printed = cli_json_print(json);
		return printed != EXIT_OK ? printed : rc;
	}
	return rc;
}

const struct cli_command cli_cmd_plan = { "plan", run_plan, "cheapest GPUs, TP and batch that meet a TPOT/TTFT limit" };
