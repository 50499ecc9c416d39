/* ridge plan: the cheapest serving configurations that meet a TPOT and a TTFT
 * limit (model/plan.h): GPU type x count (tensor parallel) x batch x weight
 * dtype x launch mode, ranked by $ per million output tokens; --svg draws the
 * cost-latency Pareto front. Exit 1 when no configuration meets the limits.
 * The options are here; the search and its views are app/calc/plan_calc.c.
 * With --train: the training layout search (app/calc/plan_train_calc.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calc.h"
#include "cli.h"
#include "plan_calc.h"

static bool has_flag(int argc, char **argv, const char *flag)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], flag) == 0)
			return true;
	return false;
}

static int run_plan(int argc, char **argv)
{
	/* --train: the training layout search, its own flags (app/calc/plan_train_calc.c) */
	if (has_flag(argc, argv, "--train"))
		return calc_main(&calc_plan_train, argc, argv);
	struct param_values v;
	int rc;
	if (params_parse(&v, &plan_params_command, argc, argv, &rc) < 0) {
		/* --help: the serving search's, then the training search's */
		if (rc == EXIT_OK && has_flag(argc, argv, "--help")) {
			printf("\n");
			char help[] = "--help";
			char *train_help[] = { argv[0], help, NULL };
			return calc_main(&calc_plan_train, 2, train_help);
		}
		return rc;
	}
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
