/* ridge report [--gpu GPU]: the main job (`make run`): one page on a GPU from
 * every calculator, on built-in defaults. */
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "report.h"

static const char usage_text[] =
	"usage: ridge report [--gpu GPU] [--hwdb DIR] [--calibration FILE]\n"
	"\n"
	"A one-page report on a GPU (default " CLI_DEFAULT_GPU "): its ceilings and ridge points,\n"
	"and each calculator run on the worked examples of the GPU-kernels chapter.\n";

static int run_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "gpu", required_argument, NULL, 'g' },
		{ "hwdb", required_argument, NULL, 'd' },
		{ "calibration", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *gpu_name = NULL, *hwdb_dir = NULL, *calibration = NULL;
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'g':
			gpu_name = optarg;
			break;
		case 'd':
			hwdb_dir = optarg;
			break;
		case 'c':
			calibration = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("report", argv, c);
		}
	}
	if (optind < argc) {
		cli_error("report takes no arguments, got '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	struct cli_hw hw;
	if (cli_hw_open(&hw, hwdb_dir, calibration) != 0)
		return EXIT_USAGE;
	const struct hwdb_entry *e = cli_hw_find(&hw, gpu_name ? gpu_name : cli_hw_default_gpu(&hw));
	if (!e) {
		cli_hw_close(&hw);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < report_section_count; i++) {
		if (i)
			printf("\n");
		report_sections[i](&e->gpu);
	}
	cli_hw_close(&hw);
	return EXIT_OK;
}

const struct cli_command cli_cmd_report = { "report", run_report, "a one-page report on a GPU from every calculator" };
