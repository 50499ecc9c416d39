/* ridge align: the command for calc_align (app/calc/align_calc.c). */
#include "cli.h"

static int run_align(int argc, char **argv)
{
	return calc_main(&calc_align, argc, argv);
}

const struct cli_command cli_cmd_align = { "align", run_align,
					   "tensor-core alignment and tile/wave quantization of GEMM dims or a model" };
