/* ridge fleet DIR [DIR2]: which GPUs of a fleet fall short of the others
 * (app/calc/fleet_calc.h has the rule, app/read/fleet_read.c the reading,
 * app/view/fleet_view.c the views). Exit 0 none flagged, 1 a GPU flagged or
 * a ceiling regressed, 2 bad input: a health-check job's answer. */
#include <string.h>

#include "cli.h"
#include "fleet_calc.h"
#include "params.h"

#define FLEET_ERRORS_LISTED 20

/* The files of run that are no result, as errors (exit 2). */
static void refuse_bad(const struct fleet_run *run, struct app_status *st)
{
	for (int i = 0; i < run->bad_count && i < FLEET_ERRORS_LISTED; i++)
		app_error(st, "'%s/%s': %s", run->dir, run->bad[i].file, run->bad[i].why);
	app_error(st, "%d of the %d result files in '%s' cannot be read%s (--skip-bad reports them and goes on)",
		  run->bad_count, run->files, run->dir,
		  run->bad_count > FLEET_ERRORS_LISTED ? "; the first 20 above" : "");
}

static int read_and_analyze(const char *dir, bool skip_bad, const struct fleet_options *options, struct fleet_run *run,
			    struct fleet_analysis *a, struct app_status *st)
{
	if (fleet_run_read(dir, run, st) != 0)
		return -1;
	if (run->bad_count && !skip_bad) {
		refuse_bad(run, st);
		return -1;
	}
	return fleet_analyze(run, options, a, st);
}

static int run_fleet(int argc, char **argv)
{
	struct param_values v;
	int rc;
	int operands = params_parse(&v, &fleet_params_command, argc, argv, &rc);
	if (operands < 0)
		return rc;
	if (operands < 1) {
		cli_error("fleet needs a directory of ridge-probe results (see 'ridge fleet --help')");
		return EXIT_USAGE;
	}
	struct fleet_options options = {
		.threshold = params_has(&v, FLEET_THRESHOLD) ? params_num(&v, FLEET_THRESHOLD) : 0.05,
		.spec_floor = params_has(&v, FLEET_SPEC_FLOOR) ? params_num(&v, FLEET_SPEC_FLOOR) : 0,
		.metric = params_text(&v, FLEET_METRIC),
	};
	bool skip_bad = params_flag(&v, FLEET_SKIP_BAD);
	const char *svg = params_text(&v, FLEET_SVG);
	struct app_status st;
	app_status_init(&st);
	if (svg && app_output_path_ok("--svg", svg, &st) != 0)
		return cli_report(&st);
	struct fleet_run runs[2];
	struct fleet_analysis analyses[2];
	memset(runs, 0, sizeof runs);
	memset(analyses, 0, sizeof analyses);
	struct fleet_comparison comparison;
	memset(&comparison, 0, sizeof comparison);
	int failed = 0;
	for (int i = 0; i < operands && !failed; i++)
		failed = read_and_analyze(v.operands[i], skip_bad, &options, &runs[i], &analyses[i], &st) != 0;
	const struct fleet_analysis *now = &analyses[operands - 1], *base = operands == 2 ? &analyses[0] : NULL;
	if (!failed && base)
		failed = fleet_compare(base, now, &comparison, &st) != 0;
	if (!failed && svg)
		failed = fleet_svg(now, svg, &st) != 0;
	if (failed) {
		rc = cli_report(&st);
	} else if (params_flag(&v, FLEET_JSON)) {
		rc = cli_json_print(fleet_json(now, base ? &comparison : NULL, base));
	} else {
		fleet_print(stdout, now, base ? &comparison : NULL, base);
		rc = EXIT_OK;
	}
	bool problem = now->flagged_gpus || runs[0].bad_count || runs[1].bad_count ||
		       (base && comparison.verdicts[COMPARE_REGRESSION]);
	if (rc == EXIT_OK && problem)
		rc = EXIT_PROBLEM;
	fleet_comparison_free(&comparison);
	for (int i = 0; i < 2; i++) {
		fleet_analysis_free(&analyses[i]);
		fleet_run_free(&runs[i]);
	}
	return rc;
}

const struct cli_command cli_cmd_fleet = { "fleet", run_fleet,
					   "a fleet's probe results: which GPUs fall short of the others" };
