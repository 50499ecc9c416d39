/* ridge launch: the command line of calc_launch (app/calc/launch_calc.c). With
 * --trace FILE the flags the user left out are filled from the trace and
 * added to argv, so they are parsed and range-checked like typed ones. */
#include <string.h>

#include "cli.h"
#include "launch_calc.h"

/* The value of --name in argv (--name V or --name=V), or NULL. */
static const char *flag_value(int argc, char **argv, const char *name)
{
	size_t n = strlen(name);
	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], name, n) != 0)
			continue;
		if (argv[i][n] == '=')
			return argv[i] + n + 1;
		if (argv[i][n] == '\0')
			return i + 1 < argc ? argv[i + 1] : "";
	}
	return NULL;
}

#define MAX_ARGS 256

static int run_launch(int argc, char **argv)
{
	if (argc > MAX_ARGS) {
		cli_error("launch: too many arguments");
		return EXIT_USAGE;
	}
	const struct launch_trace_given given = {
		.trace = flag_value(argc, argv, "--trace"),
		.steps = flag_value(argc, argv, "--steps"),
		.layers = flag_value(argc, argv, "--layers"),
		.kernels_per_layer = flag_value(argc, argv, "--kernels-per-layer") != NULL,
		.extra_kernels = flag_value(argc, argv, "--extra-kernels") != NULL,
		.launch_us = flag_value(argc, argv, "--launch-us") != NULL,
		.step_ms = flag_value(argc, argv, "--step-ms") != NULL,
		.help = flag_value(argc, argv, "--help") != NULL,
	};
	struct launch_trace_fill fill;
	struct app_status st;
	app_status_init(&st);
	if (launch_trace_fill(&given, &fill, &st) != 0)
		return cli_report(&st);
	char *args[MAX_ARGS + 2 * LAUNCH_TRACE_FILLS + 1];
	memcpy(args, argv, (size_t)argc * sizeof *argv);
	int n = argc;
	for (int i = 0; i < fill.count; i++) {
		args[n++] = (char *)fill.flag[i];
		args[n++] = fill.value[i];
	}
	args[n] = NULL;
	return calc_main(&calc_launch, n, args);
}

const struct cli_command cli_cmd_launch = { "launch", run_launch,
					    "kernel-launch overhead: eager, CUDA graphs, persistent" };
