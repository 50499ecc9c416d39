/* ridge eval FILE.yaml: runs a scenario file (app/core/eval.c; the format is in
 * examples/README.md). */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "eval.h"

static const char usage_head[] = "usage: ridge eval FILE.yaml [--json] [--hwdb DIR] [--calibration FILE]\n"
				 "\n"
				 "Runs a scenario file: a GPU, a model and a list of what-if items, each one of\n"
				 "ridge's calculations with its inputs, of the kinds\n";
static const char usage_tail[] = "Prints each item's result as a table; with --json one document with one result per\n"
				 "item. An item's `expect` values are checked (exit 1 when one differs); its `book`\n"
				 "values (what a source printed) are shown beside the exact ones with the drift.\n"
				 "The format: examples/README.md, \"Scenario files\".\n"
				 "\n"
				 "  --json              one JSON document on stdout (SI units)\n"
				 "  --hwdb DIR          also load the hwdb entries in DIR\n"
				 "  --calibration FILE  a ridge-probe calibration (measured ceilings)\n";

/* The kinds from eval_kinds[], so the list is never behind the table. */
static void usage(void)
{
	fputs(usage_head, stdout);
	for (size_t i = 0; i < eval_kind_count; i++)
		printf("%s%s", i ? ", " : "  ", eval_kinds[i]->name);
	printf(".\n");
	fputs(usage_tail, stdout);
}

static int run_eval(int argc, char **argv)
{
	struct cli_options opt = { 0 };
	int rc = cli_parse_options("eval", argc, argv, CLI_OPT_JSON, &opt);
	if (rc != 0)
		return rc;
	if (opt.help) {
		usage();
		return EXIT_OK;
	}
	if (argc - optind != 1) {
		if (argc - optind == 0)
			cli_error("eval needs a scenario file (see 'ridge eval --help')");
		else
			cli_error("eval takes one scenario file, got '%s' too", argv[optind + 1]);
		return EXIT_USAGE;
	}
	return cli_eval_file(argv[optind], opt.hwdb_dir, opt.calibration, NULL, opt.json);
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
