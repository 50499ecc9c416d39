/* ridge plan: the cheapest serving configurations that meet a TPOT and a TTFT
 * limit (model/plan.h): GPU type x count (tensor parallel) x batch x weight
 * dtype x launch mode, ranked by $ per million output tokens; --svg draws the
 * cost-latency Pareto front. Exit 1 when no configuration meets the limits.
 * The options are here; the search and its views are app/calc/plan_calc.c.
 * With --train: the training layout search (app/calc/plan_train_calc.c);
 * with --isl or --osl: the serving search on the simulation
 * (app/calc/plan_serve_calc.c, model/serve_plan.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calc.h"
#include "cli.h"
#include "plan_calc.h"
#include "plan_serve_calc.h"

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
	/* --isl / --osl: the search on the simulation (app/calc/plan_serve_calc.c) */
	bool simulated = has_flag(argc, argv, "--isl") || has_flag(argc, argv, "--osl");
	const struct params_command *cmd = simulated ? &plan_serve_params_command : &plan_params_command;
	struct param_values v;
	int rc;
	if (params_parse(&v, cmd, argc, argv, &rc) < 0) {
		/* --help: the serving search's, the simulated one's, then the training search's */
		if (rc == EXIT_OK && has_flag(argc, argv, "--help")) {
			char help[] = "--help";
			char *help_argv[] = { argv[0], help, NULL };
			if (!simulated) {
				printf("\n");
				params_parse(&v, &plan_serve_params_command, 2, help_argv, &rc);
			}
			printf("\n");
			return calc_main(&calc_plan_train, 2, help_argv);
		}
		return rc;
	}
	struct app_status st;
	app_status_init(&st);
	cJSON *json = NULL;
	rc = simulated ? plan_serve_command(stdout, &v, &json, &st) : plan_command(stdout, &v, &json, &st);
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
