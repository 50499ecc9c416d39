/* ridge serve: a serving engine under load (app/calc/serve_calc.c). */
#include "cli.h"
#include "serve_calc.h"

static int run_serve(int argc, char **argv)
{
	static const struct calc_command fns = { serve_check_request, serve_command };
	return calc_command_main(&serve_params_command, &fns, argc, argv);
}

const struct cli_command cli_cmd_serve = { "serve", run_serve,
					   "TTFT, TPOT and throughput of an engine under load (simulated)" };
