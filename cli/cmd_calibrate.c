/* ridge calibrate: the options and the dispatch. The work (reading the
 * measured kernels, the fit through model/timing.h, the calibration written,
 * text and JSON) is app/calibrate_calc.c.
 *
 *   --timings FILE  a ridge-timings-1 JSON document (validation/heldout/kernels.py):
 *                   cases with a ridge kernel, its shape flags, samples, and a
 *                   set: "fit" cases are fitted, "heldout" cases only judged
 *   --ncu FILE      an Nsight Compute CSV of the user's own kernels: each kernel
 *                   is classed by its name and placed by its counted FLOPs and
 *                   DRAM bytes; every kernel is fitted (there is no held-out set) */
#include <getopt.h>
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

enum {
	OPT_TIMINGS = 256,
	OPT_NCU,
	OPT_GPU,
	OPT_CALIBRATION,
	OPT_HWDB,
	OPT_OUT,
	OPT_FIT_ALL,
	OPT_NO_FIT,
	OPT_JSON,
	OPT_HELP
};

/* ---- the command ---- */

struct options {
	const char *timings, *ncu, *gpu, *calibration, *hwdb, *out;
	bool fit_all, no_fit, json;
};

static int parse(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "timings", required_argument, NULL, OPT_TIMINGS },
		{ "ncu", required_argument, NULL, OPT_NCU },
		{ "gpu", required_argument, NULL, OPT_GPU },
		{ "calibration", required_argument, NULL, OPT_CALIBRATION },
		{ "hwdb", required_argument, NULL, OPT_HWDB },
		{ "out", required_argument, NULL, OPT_OUT },
		{ "fit-all", no_argument, NULL, OPT_FIT_ALL },
		{ "no-fit", no_argument, NULL, OPT_NO_FIT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_TIMINGS:
			o->timings = optarg;
			break;
		case OPT_NCU:
			o->ncu = optarg;
			break;
		case OPT_GPU:
			o->gpu = optarg;
			break;
		case OPT_CALIBRATION:
			o->calibration = optarg;
			break;
		case OPT_HWDB:
			o->hwdb = optarg;
			break;
		case OPT_OUT: {
			o->out = optarg;
			struct app_status st;
			app_status_init(&st);
			if (app_output_path_ok("--out", optarg, &st))
				return cli_report(&st);
			break;
		}
		case OPT_FIT_ALL:
			o->fit_all = true;
			break;
		case OPT_NO_FIT:
			o->no_fit = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case 'h':
		case OPT_HELP:
			fputs(usage, stdout);
			return -1;
		default:
			return cli_bad_option("calibrate", argv, c);
		}
	}
	if (optind < argc) {
		cli_error("calibrate takes no arguments, got '%s' (see 'ridge calibrate --help')", argv[optind]);
		return EXIT_USAGE;
	}
	if (o->fit_all && o->no_fit) {
		cli_error("give only one of --fit-all and --no-fit");
		return EXIT_USAGE;
	}
	if (o->no_fit && o->out) {
		cli_error("--out writes a fit: it does not go with --no-fit");
		return EXIT_USAGE;
	}
	if (!o->timings == !o->ncu) {
		cli_error("give one of --timings FILE and --ncu FILE (see 'ridge calibrate --help')");
		return EXIT_USAGE;
	}
	return 0;
}

static int run_calibrate(int argc, char **argv)
{
	struct options o = { 0 };
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	struct app_hw hw;
	struct app_status st;
	app_status_init(&st);
	if (app_hw_open(&hw, o.hwdb, o.calibration, &st) != 0)
		return cli_report(&st);
	const struct calibrate_request req = {
		.timings = o.timings,
		.ncu = o.ncu,
		.gpu = o.gpu,
		.calibration = o.calibration,
		.out = o.out,
		.fit_all = o.fit_all,
		.no_fit = o.no_fit,
	};
	struct calibrate_result *r = calibrate_run(&req, &hw, &st);
	/* Printed before the result, as they arose; an error of a lookup that
	 * did not stop the run does not fail it. */
	rc = cli_report(&st);
	if (r) {
		if (o.json) {
			rc = cli_json_print(calibrate_json(r));
		} else {
			calibrate_print(r);
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
