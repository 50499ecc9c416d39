/* ridge cost train | decode | prefill | rank: the subcommand, then its
 * calculator (app/calc/cost_calc.c) through calc_main. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cost_calc.h"
#include "eval.h"

/* ---- the command ---- */

static const char usage_text[] =
	"usage: ridge cost train  --params N --seq S --batch B --steps K --gpus G --mfu M [--price USD] [...]\n"
	"       ridge cost decode --params N --layers L --kv-heads H --head-dim D --context C --batch B --gpus G [...]\n"
	"       ridge cost decode --model FILE --context C --batch B --gpus G [--launch MODE] [...]\n"
	"       ridge cost prefill --model FILE --seq S --batch B --gpus G [...]\n"
	"       ridge cost rank   FILE.yaml [--json]\n"
	"\n"
	"  train   training run cost from MFU; savings and ROI of a better MFU\n"
	"  decode  inference decode: bytes per step, TPOT, tokens/s, $ per million tokens\n"
	"  prefill time to first token of a model config, kernel by kernel\n"
	"  rank    rank engineering projects by ROI (a scenario file's 'rank' items)\n"
	"\n"
	"'ridge cost SUBCOMMAND --help' for each one's options.\n";

static int cost_rank_command(int argc, char **argv)
{
	struct param_values v;
	int rc;
	if (params_parse(&v, &cost_rank_params_command, argc, argv, &rc) < 0)
		return rc;
	return cli_eval_file(v.operands[0], params_text(&v, RANK_CLI_HWDB), params_text(&v, RANK_CLI_CALIBRATION),
			     "rank", params_flag(&v, RANK_CLI_JSON));
}

static int run_cost(int argc, char **argv)
{
	static const char *const subcommands[] = { "train", "decode", "prefill", "rank", NULL };
	static const struct calc *const calcs[] = { &calc_cost_train, &calc_cost_decode, &calc_cost_prefill };
	int rc, sub = cli_subcommand("cost", subcommands, usage_text, argc, argv, &rc);
	if (sub < 0)
		return rc;
	if (strcmp(subcommands[sub], "rank") == 0)
		return cost_rank_command(argc - 1, argv + 1);
	return calc_main(calcs[sub], argc - 1, argv + 1);
}

const struct cli_command cli_cmd_cost = { "cost", run_cost, "training and inference cost, savings, ROI, ranking" };
