/* ridge launch's work: the calculator calc_launch (app/core/calc.h; also the
 * scenario kind "launch") and what --trace FILE fills in for the flags the
 * user left out. */
#ifndef RIDGE_LAUNCH_CALC_H
#define RIDGE_LAUNCH_CALC_H

#include <stdbool.h>

/* What the command line gave, as typed (argv handling is the front end's). */
struct launch_trace_given {
	const char *trace;          /* --trace FILE, or NULL */
	const char *steps, *layers; /* --steps, --layers, or NULL */
	bool kernels_per_layer, extra_kernels, launch_us, step_ms, help;
};

/* The flags filled from the trace, each with its value as text: the front
 * end adds them to the command line, so they are parsed and range-checked
 * like typed ones. */
#define LAUNCH_TRACE_FILLS 5
struct launch_trace_fill {
	int count;
	const char *flag[LAUNCH_TRACE_FILLS]; /* "--launch-us" */
	char value[LAUNCH_TRACE_FILLS][64];
};

/* Reads the trace (none, or --help: nothing to fill) and fills what the
 * user left out: --layers 1, --kernels-per-layer (and --extra-kernels) from
 * the kernels per step, --launch-us from the host launch calls, --step-ms
 * from the kernels' span per step. calc_launch's next run says which came
 * from the trace. Returns 0, or -1 with why in st (a bad --steps, a trace
 * that cannot be read; out of memory: exit 3). */
struct app_status;
int launch_trace_fill(const struct launch_trace_given *given, struct launch_trace_fill *fill, struct app_status *st);

#endif
