/* ridge eval FILE.yaml: runs a scenario file (app/core/eval.c; the format is in
 * examples/README.md). */
#include <stdio.h>

#include "cli.h"
#include "eval.h"

static int run_eval(int argc, char **argv)
{
	struct param_values v;
	int rc, operands = params_parse(&v, eval_params_command(), argc, argv, &rc);
	if (operands < 0)
		return rc;
	if (operands != 1) {
		if (operands == 0)
			cli_error("eval needs a scenario file (see 'ridge eval --help')");
		else
			cli_error("eval takes one scenario file, got '%s' too", v.operands[1]);
		return EXIT_USAGE;
	}
	return cli_eval_file(v.operands[0], params_text(&v, EVAL_HWDB), params_text(&v, EVAL_CALIBRATION), NULL,
			     params_flag(&v, EVAL_JSON));
}

int cli_eval_file(const char *path, const char *hwdb_dir, const char *calibration, const char *only_kind, bool json)
{
	struct app_status st;
	app_status_init(&st);
	cJSON *doc = eval_file(path, hwdb_dir, calibration, only_kind, &st);
	int rc = cli_report(&st);
	if (!doc)
		return EXIT_USAGE; /* a bad file or input, whatever its class */
	bool ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "ok"));
	if (json) {
		rc = cli_json_print(doc);
	} else {
		eval_print(stdout, doc);
		cJSON_Delete(doc);
		rc = fflush(stdout) == 0 ? EXIT_OK : EXIT_ENV;
	}
	return rc == EXIT_OK && !ok ? EXIT_PROBLEM : rc;
}

const struct cli_command cli_cmd_eval = { "eval", run_eval, "run a scenario file of what-ifs (examples/)" };
