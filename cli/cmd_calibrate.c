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

/* ---- the command ---- */

/* The request from argv. Returns 0 to run, -1 after --help (printed: exit
 * 0), or the exit code of an error. */
static int parse(int argc, char **argv, struct param_values *v, struct calibrate_request *req)
{
	int rc;
	if (params_parse(v, &calibrate_params_command, argc, argv, &rc) < 0)
		return rc == EXIT_OK ? -1 : rc;
	*req = (struct calibrate_request){
		.timings = params_text(v, CALIBRATE_TIMINGS),
		.ncu = params_text(v, CALIBRATE_NCU),
		.gpu = params_text(v, CALIBRATE_GPU),
		.calibration = params_text(v, CALIBRATE_CALIBRATION),
		.out = params_text(v, CALIBRATE_OUT),
		.fit_all = params_flag(v, CALIBRATE_FIT_ALL),
		.no_fit = params_flag(v, CALIBRATE_NO_FIT),
	};
	struct app_status st;
	app_status_init(&st);
	const char *inputs[] = { req->timings, req->ncu, req->calibration };
	if (req->out && (app_output_path_ok("--out", req->out, &st) != 0 ||
			 app_output_not_input("--out", req->out, inputs, 3, &st) != 0))
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
		return rc < 0 ? EXIT_OK : rc;
	struct app_hw hw;
	struct app_status st;
	app_status_init(&st);
	if (app_hw_open(&hw, params_text(&v, CALIBRATE_HWDB), req.calibration, &st) != 0)
		return cli_report(&st);
	struct calibrate_result *r = calibrate_run(&req, &hw, &st);
	/* Printed before the result, as they arose (warnings only when it ran). */
	rc = cli_report(&st);
	if (r) {
		if (params_flag(&v, CALIBRATE_JSON)) {
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
