/* ridge comm: the command for calc_comm (app/calc/comm_calc.c). */
#include "cli.h"

static int run_comm(int argc, char **argv)
{
	return calc_main(&calc_comm, argc, argv);
}

const struct cli_command cli_cmd_comm = { "comm", run_comm,
					  "collective time: all-reduce, all-gather, all-to-all, p2p" };
