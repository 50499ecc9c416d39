/* ridge calibrate: the options and the dispatch. The work (reading the
 * measured kernels, the fit through model/timing.h, the calibration written,
 * text and JSON) is app/calc/calibrate_calc.c.
 *
 *   --timings FILE  a ridge-timings-1 JSON document (validation/heldout/kernels.py):
 *                   cases with a ridge kernel, its shape flags, samples, and a
 *                   set: "fit" cases are fitted, "heldout" cases only judged
 *   --ncu FILE      an Nsight Compute CSV of the user's own kernels: each kernel
 *                   is classed by its name and placed by its counted FLOPs and
 *                   DRAM bytes; every kernel is fitted (there is no held-out set) */
#include <stdio.h>
#include <stdlib.h>

#include "calibrate_calc.h"
#include "cli.h"

static const char usage[] = "usage: ridge calibrate (--timings FILE | --ncu FILE) [--gpu GPU] [--calibration FILE]\n"
			    "                       [--hwdb DIR] [--out FILE] [--fit-all | --no-fit] [--json]\n"
			    "\n"
			    "Fits the time model (predicted = max(compute / compute efficiency, memory /\n"
			    "memory efficiency) + fixed cost; model/README.md, \"time model\") to measured\n"
			    "kernels, one kernel class at a time (gemm, attention by implementation, norm,\n"
			    "softmax, elementwise), by least squares on the relative error; prints the fit's\n"
			    "residuals and, for a timings file, the error on its held-out cases, which the\n"
			    "fit never sees.\n"
			    "\n"
			    "  --timings FILE     measured framework kernels (validation/heldout/kernels.py\n"
			    "                     writes them): each case names a ridge kernel and its shape;\n"
			    "                     cases marked \"fit\" are fitted, \"heldout\" ones only judged\n"
			    "  --ncu FILE         an Nsight Compute CSV of your own run (the metrics\n"
			    "                     'ridge roofline --help' lists): kernels are classed by name\n"
			    "                     (gemm/gemv/cutlass/nvjet, flash/fmha/sdpa, norm, softmax,\n"
			    "                     elementwise) and placed by their counted FLOPs and DRAM bytes\n"
			    "  --gpu GPU          the GPU measured (default: the timings file's GPU, else the\n"
			    "                     calibration's, else " APP_DEFAULT_GPU ")\n"
			    "  --calibration FILE the ceilings to fit against (ridge-probe --out): the same\n"
			    "                     lease's calibration, for efficiencies relative to measured\n"
			    "                     ceilings; its own timing section is ignored and refitted\n"
			    "  --out FILE         write the calibration with the fitted timing section (atomic:\n"
			    "                     the old file stays whole if anything fails)\n"
			    "  --fit-all          fit every case, held-out ones too (for a final calibration)\n"
			    "  --no-fit           fit nothing: judge every case with the entry's own timing\n"
			    "                     section (what a calibration written by ridge-probe predicts)\n"
			    "  --json             one JSON document: fits (per class) and cases\n"
			    "\n"
			    "Exit status: 0, or 2 for bad input (a file without durations, unknown kernels,\n"
			    "a calibration of another GPU).\n";

/* The flags (the usage above is their help; ridge calibrate is no scenario kind). */
static const struct param calibrate_params[] = {
	{ "timings", PARAM_TEXT, 0, NULL, 0, 0, PARAM_CLI_ONLY, "FILE", "measured framework kernels (ridge-timings-1)",
	  NULL, NULL },
	{ "ncu", PARAM_TEXT, 0, NULL, 0, 0, PARAM_CLI_ONLY, "FILE", "an Nsight Compute CSV of your own run", NULL,
	  NULL },
	CALC_GPU_PARAMS,
	{ "out", PARAM_TEXT, 0, NULL, 0, 0, PARAM_CLI_ONLY, "FILE",
	  "write the calibration with the fitted timing section", NULL, NULL },
	{ "fit_all", PARAM_FLAG, 0, NULL, 0, 0, PARAM_CLI_ONLY, NULL, "fit every case, held-out ones too", NULL, NULL },
	{ "no_fit", PARAM_FLAG, 0, NULL, 0, 0, PARAM_CLI_ONLY, NULL, "fit nothing: judge every case", NULL, NULL },
	CALC_JSON_PARAM,
};
#define CALIBRATE_PARAM_COUNT (int)(sizeof calibrate_params / sizeof calibrate_params[0])

/* ---- the command ---- */

/* The request from argv. Returns 0, 1 after --help, or an exit code. */
static int parse(int argc, char **argv, struct param_values *v, struct calibrate_request *req)
{
	params_init(v, calibrate_params, CALIBRATE_PARAM_COUNT);
	int rc = params_parse_argv_usage(v, "calibrate", usage, argc, argv);
	if (rc != 0)
		return rc;
	*req = (struct calibrate_request){
		.timings = params_text(v, "timings"),
		.ncu = params_text(v, "ncu"),
		.gpu = params_text(v, "gpu"),
		.calibration = params_text(v, "calibration"),
		.out = params_text(v, "out"),
		.fit_all = params_flag(v, "fit_all"),
		.no_fit = params_flag(v, "no_fit"),
	};
	struct app_status st;
	app_status_init(&st);
	if (req->out && app_output_path_ok("--out", req->out, &st) != 0)
		return cli_report(&st);
	if (req->fit_all && req->no_fit) {
		cli_error("give only one of --fit-all and --no-fit");
		return EXIT_USAGE;
	}
	if (req->no_fit && req->out) {
		cli_error("--out writes a fit: it does not go with --no-fit");
		return EXIT_USAGE;
	}
	if (!req->timings == !req->ncu) {
		cli_error("give one of --timings FILE and --ncu FILE (see 'ridge calibrate --help')");
		return EXIT_USAGE;
	}
	return 0;
}

static int run_calibrate(int argc, char **argv)
{
	struct param_values v;
	struct calibrate_request req;
	int rc = parse(argc, argv, &v, &req);
	if (rc != 0)
		return rc == 1 ? EXIT_OK : rc;
	struct app_hw hw;
	struct app_status st;
	app_status_init(&st);
	if (app_hw_open(&hw, params_text(&v, "hwdb"), req.calibration, &st) != 0)
		return cli_report(&st);
	struct calibrate_result *r = calibrate_run(&req, &hw, &st);
	/* Printed before the result, as they arose; an error of a lookup that
	 * did not stop the run does not fail it. */
	rc = cli_report(&st);
	if (r) {
		if (params_flag(&v, "json")) {
			rc = cli_json_print(calibrate_json(r));
		} else {
			calibrate_print(stdout, r);
			rc = EXIT_OK;
		}
	}
	calibrate_free(r);
	app_hw_close(&hw);
	return rc;
}

const struct cli_command cli_cmd_calibrate = {
	"calibrate", run_calibrate, "fit the time model's efficiencies and fixed costs to measured kernels"
};
