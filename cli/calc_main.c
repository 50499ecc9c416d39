/* A calculator (app/core/calc.h) as a command: argv through its parameter
 * table, the GPU, the run, then JSON or the human printer, and the exit
 * code. */
#include "calc.h"
#include "cli.h"

/* The rows every GPU command shares (CALC_GPU_ROWS, CALC_JSON_ROW), found by
 * name: this code serves every table. NULL, false: not given or no such row. */
static const char *shared_text(const struct param_values *v, const char *name)
{
	return params_text(v, params_index(v->spec, v->count, name));
}

static bool shared_flag(const struct param_values *v, const char *name)
{
	return params_flag(v, params_index(v->spec, v->count, name));
}

/* ---- a calculator as a command ---- */

int calc_main(const struct calc *calc, int argc, char **argv)
{
	struct param_values v;
	const struct params_command cmd = calc_params_command(calc);
	int rc;
	if (params_parse(&v, &cmd, argc, argv, &rc) < 0)
		return rc;
	struct app_hw hw;
	struct app_status st;
	app_status_init(&st);
	struct calc_input in = { .values = &v, .st = &st };
	if (!calc->takes_no_gpu) {
		const struct hwdb_entry *e = app_hw_open_gpu(
			&hw, shared_text(&v, "hwdb"), shared_text(&v, "calibration"), shared_text(&v, "gpu"), &st);
		if (!e) {
			cli_report(&st);
			return EXIT_USAGE;
		}
		in.gpu = &e->gpu;
	}
	cJSON *result = calc_run(calc, &in);
	bool problem =
		result && calc->problem_unless_ok && cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(result, "ok"));
	if (!result && in.err[0])
		app_error(&st, "%s", in.err);
	/* The warnings (a calibration of another GPU, what a model config
	 * holds that is not modelled) before the output, as they always were. */
	cli_report(&st);
	if (!result) {
		rc = EXIT_USAGE;
	} else if (shared_flag(&v, "json")) {
		rc = cli_json_print(result);
		result = NULL;
	} else {
		if (calc->print)
			calc->print(stdout, result);
		else
			calc_print_table(stdout, result, "");
		rc = fflush(stdout) == 0 ? EXIT_OK : EXIT_ENV;
	}
	if (rc == EXIT_OK && problem)
		rc = EXIT_PROBLEM;
	cJSON_Delete(result);
	if (!calc->takes_no_gpu)
		app_hw_close(&hw);
	return rc;
}

/* --svg must not be any file the command reads (--ncu, --model,
 * --calibration, --ptxas, ...): every other value given is a candidate, and
 * app_output_not_input compares files, so a value that is no file is none. */
static int svg_not_input(const struct param_values *v, const char *svg, struct app_status *st)
{
	const char *inputs[PARAM_MAX + 1];
	int n = 0, svg_index = params_index(v->spec, v->count, "svg");
	for (int i = 0; i < v->count; i++)
		if (i != svg_index && params_has(v, i) && params_text(v, i))
			inputs[n++] = params_text(v, i);
	for (int i = 0; i < v->operand_count && n < PARAM_MAX + 1; i++)
		inputs[n++] = v->operands[i];
	return app_output_not_input("--svg", svg, inputs, n, st);
}

int calc_command_main(const struct params_command *cmd, const struct calc_command *fns, int argc, char **argv)
{
	struct param_values v;
	int rc;
	if (params_parse(&v, cmd, argc, argv, &rc) < 0)
		return rc;
	struct app_status st;
	app_status_init(&st);
	const char *svg = shared_text(&v, "svg");
	if (svg && (app_output_path_ok("--svg", svg, &st) != 0 || svg_not_input(&v, svg, &st) != 0))
		return cli_report(&st);
	if (fns->check_request(&v, &st) != 0)
		return cli_report(&st);
	struct app_hw hw;
	const struct hwdb_entry *e = app_hw_open_gpu(&hw, shared_text(&v, "hwdb"), shared_text(&v, "calibration"),
						     shared_text(&v, "gpu"), &st);
	if (!e)
		return cli_report(&st);
	cJSON *json = NULL;
	rc = fns->run(stdout, &v, &e->gpu, &json, &st);
	app_hw_close(&hw);
	cli_report(&st); /* the warnings before the output, as they always were */
	if (rc == EXIT_OK && json)
		return cli_json_print(json);
	cJSON_Delete(json);
	return rc;
}
