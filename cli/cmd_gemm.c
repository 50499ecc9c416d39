/* ridge gemm: the calculator calc_gemm (app/calc/gemm_calc.c) as a command. */
#include "cli.h"

static int run_gemm(int argc, char **argv)
{
	return calc_main(&calc_gemm, argc, argv);
}

const struct cli_command cli_cmd_gemm = { "gemm", run_gemm,
					  "FLOPs, bytes, bound and tensor-core eligibility of one GEMM" };
