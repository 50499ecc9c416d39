/* ridge trace FILE: what a profiler trace says about launches and kernels.
 * The options are here; the reading is app/read/trace.c (nsys SQLite exports and
 * PyTorch traces), the text and JSON app/view/trace_view.c. */
#include "cli.h"
#include "params.h"
#include "trace.h"

static int run_trace(int argc, char **argv)
{
	struct param_values v;
	int rc;
	if (params_parse(&v, &trace_params_command, argc, argv, &rc) < 0)
		return rc;
	struct trace_report r = {
		.path = v.operands[0],
		.steps = (long long)params_num(&v, TRACE_STEPS),
		.tokens = (long long)params_num(&v, TRACE_TOKENS),
		.top = params_has(&v, TRACE_TOP) ? (int)params_num(&v, TRACE_TOP) : 10,
	};
	struct app_status st;
	app_status_init(&st);
	if (trace_report_open(&r, &st) != 0)
		return cli_report(&st);
	if (params_flag(&v, TRACE_JSON)) {
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
