/* ridge trace FILE: what a profiler trace says about launches and kernels.
 * The options are here; the reading is app/read/trace.c (nsys SQLite exports and
 * PyTorch traces), the text and JSON app/view/trace_view.c. */
#include "cli.h"
#include "params.h"
#include "trace.h"

static const char trace_synopsis[] =
	"usage: ridge trace FILE.sqlite|FILE.json [--steps N] [--tokens N] [--top N] [--json]";
static const char trace_description[] =
	"Reads a profiler trace: an Nsight Systems SQLite export (nsys export --type sqlite\n"
	"REPORT.nsys-rep) or a PyTorch profiler trace (prof.export_chrome_trace(PATH) with\n"
	"ProfilerActivity.CUDA). Prints the kernels by total time (calls, average, grid,\n"
	"block, registers, the operator that issued them), launches and kernel time per\n"
	"step or token, host API time (launch cost per call, cudaMalloc, synchronizations,\n"
	"device-to-host copies) and the gaps where the GPU ran no kernel.\n"
	"ridge launch --trace FILE takes the kernels per step and the cost per launch from it.\n";

static const struct param trace_params[] = {
	{ "steps", PARAM_INTEGER, 0, NULL, 1, 1e9, 0, "N",
	  "the trace covers N steps (decode steps, iterations): per-step counts", NULL, NULL },
	{ "tokens", PARAM_INTEGER, 0, NULL, 1, 1e12, 0, "N", "the trace produced N tokens: per-token counts", NULL,
	  NULL },
	{ "top", PARAM_INTEGER, 0, NULL, 1, 1e6, 0, "N", "kernels listed, longest total first (default 10)", NULL,
	  NULL },
	CALC_JSON_PARAM,
};
#define TRACE_PARAM_COUNT (int)(sizeof trace_params / sizeof trace_params[0])

static int run_trace(int argc, char **argv)
{
	struct param_values v;
	const char *files[1];
	int rc = params_parse_files(
		&v, trace_params, TRACE_PARAM_COUNT, "trace", trace_synopsis, trace_description, argc, argv, files, 1,
		"trace needs a file: an nsys SQLite export or a PyTorch trace (see 'ridge trace --help')");
	if (rc != 0)
		return rc == 1 ? EXIT_OK : rc;
	struct trace_report r = {
		.path = files[0],
		.steps = params_has(&v, "steps") ? (long long)params_num(&v, "steps") : 0,
		.tokens = params_has(&v, "tokens") ? (long long)params_num(&v, "tokens") : 0,
		.top = params_has(&v, "top") ? (int)params_num(&v, "top") : 10,
	};
	struct app_status st;
	app_status_init(&st);
	if (trace_report_open(&r, &st) != 0)
		return cli_report(&st);
	if (params_flag(&v, "json")) {
		rc = cli_json_print(trace_report_json(&r));
	} else {
		trace_report_print(stdout, &r);
		rc = EXIT_OK;
	}
	trace_report_close(&r);
	return rc;
}

const struct cli_command cli_cmd_trace = {
	"trace", run_trace, "a profiler trace (nsys SQLite, PyTorch): kernels, launches, host API, gaps"
};
