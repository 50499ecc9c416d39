/* The item kinds of scenario files, alphabetical. Adding a calculator to
 * `ridge eval` (and the TUI) is one line here: its struct calc, which the
 * command line uses too. */
#include "eval.h"

#include <stdio.h>

const struct calc *const eval_kinds[] = {
	&calc_align, &calc_comm,   &calc_cost_decode, &calc_cost_prefill, &calc_cost_train,
	&calc_gemm,  &calc_launch, &calc_occupancy,   &calc_cost_rank,    &calc_roofline,
};
const size_t eval_kind_count = sizeof eval_kinds / sizeof eval_kinds[0];

/* ---- the command line: ridge eval ---- */

static const char usage_head[] = "usage: ridge eval FILE.yaml [--json] [--hwdb DIR] [--calibration FILE]\n"
				 "\n"
				 "Runs a scenario file: a GPU, a model and a list of what-if items, each one of\n"
				 "ridge's calculations with its inputs, of the kinds\n";
static const char usage_tail[] = "Prints each item's result as a table; with --json one document with one result per\n"
				 "item. An item's `expect` values are checked (exit 1 when one differs); its `book`\n"
				 "values (what a source printed) are shown beside the exact ones with the drift.\n"
				 "The format: examples/README.md, \"Scenario files\".\n"
				 "\n"
				 "  --json              one JSON document on stdout (SI units)\n"
				 "  --hwdb DIR          also load the hwdb entries in DIR\n"
				 "  --calibration FILE  a ridge-probe calibration (measured ceilings)\n";

static const struct param eval_params[] = PARAMS_ROWS(EVAL_PARAMS);

/* The --help with the kinds from eval_kinds[], so the list is never behind the table. */
const struct params_command *eval_params_command(void)
{
	static char usage[4096];
	static struct params_command cmd = {
		.name = "eval",
		PARAMS_COMMAND_TABLE(eval_params),
		.usage = usage,
		.operands = PARAMS_OPERANDS_ANY,
	};
	if (!usage[0]) {
		size_t used = (size_t)snprintf(usage, sizeof usage, "%s", usage_head);
		for (size_t i = 0; i < eval_kind_count && used < sizeof usage; i++)
			used += (size_t)snprintf(usage + used, sizeof usage - used, "%s%s", i ? ", " : "  ",
						 eval_kinds[i]->name);
		if (used < sizeof usage)
			snprintf(usage + used, sizeof usage - used, ".\n%s", usage_tail);
	}
	return &cmd;
}
