/* ridge: a roofline and cost-model calculator with measurement validation.
 * This file only dispatches: each command is cli/cmd_<name>.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.inc"
#include "suggest.h"

#define COMMAND_COUNT (int)(sizeof commands / sizeof commands[0])

static void usage_to(FILE *out)
{
	fprintf(out, "usage: ridge <command> [options]   (ridge <command> --help for each)\n\ncommands:\n");
	for (int i = 0; i < COMMAND_COUNT; i++)
		fprintf(out, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(out, "\nNumbers take suffixes K M G T P (x1000) and Ki Mi Gi Ti (x1024) and units:\n"
		     "  70e9, 32KiB, 3.35TB/s, 989T, 5us, 25ms.\n"
		     "--json prints one JSON document (SI units).\n"
		     "Exit codes: 0 ok, 1 problem found, 2 usage or input error, 3 environment error.\n");
}

/* The list of commands, wrapped to 80 columns (help_text_print). */
static void usage(FILE *out)
{
	char *text = NULL;
	size_t size = 0;
	FILE *buf = open_memstream(&text, &size);
	if (!buf) {
		usage_to(out);
		return;
	}
	usage_to(buf);
	fclose(buf);
	help_text_print(text, out);
	free(text);
}

static int run_command(int argc, char **argv);

/* The one check of standard output, after every command: a write that
 * failed (ridge hw list > /dev/full) is reported here, whatever printed it,
 * and is exit 3 (spec/cli.md). fclose also catches what fflush cannot (a
 * delayed error from an NFS file). */
static int finish_stdout(int rc)
{
	int failed = cli_flush_stdout() != 0;
	if (fclose(stdout) != 0 && !failed) {
		failed = 1;
		if (!cli_stdout_errno())
			errno = errno ? errno : EIO;
	}
	if (!failed)
		return rc;
	int e = cli_stdout_errno() ? cli_stdout_errno() : errno;
	fprintf(stderr, "ridge: error: writing standard output: %s\n", strerror(e ? e : EIO));
	return rc == EXIT_USAGE ? rc : EXIT_ENV;
}

int main(int argc, char **argv)
{
	cli_escape_streams();
	return finish_stdout(run_command(argc, argv));
}

static int run_command(int argc, char **argv)
{
	if (argc < 2) {
		cli_error("no command given");
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *name = argv[1];
	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
		if (argc > 2 && strcmp(name, "help") == 0) {
			for (int i = 0; i < COMMAND_COUNT; i++) {
				if (strcmp(commands[i]->name, argv[2]) == 0) {
					char *help_argv[] = { argv[2], "--help", NULL };
					return commands[i]->run(2, help_argv);
				}
			}
			cli_error("no help on '%s': not a command (see 'ridge --help')", argv[2]);
			return EXIT_USAGE;
		}
		usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
		printf("ridge %s\n", RIDGE_VERSION);
		return EXIT_OK;
	}
	for (int i = 0; i < COMMAND_COUNT; i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i]->run(argc - 1, argv + 1);

	/* The closest command, for a typo (edit distance, as for GPU names and
	 * flags), else the one sharing the longest prefix ("ridge occ"). */
	const char *names[COMMAND_COUNT];
	for (int i = 0; i < COMMAND_COUNT; i++)
		names[i] = commands[i]->name;
	int closest = suggest_closest(name, names, COMMAND_COUNT);
	const char *best = NULL;
	size_t best_len = 0;
	for (int i = 0; i < COMMAND_COUNT; i++) {
		size_t n = 0;
		while (name[n] && name[n] == commands[i]->name[n])
			n++;
		if (n > best_len) {
			best_len = n;
			best = commands[i]->name;
		}
	}
	if (closest >= 0)
		best = names[closest];
	if (best)
		cli_error("unknown command '%s'; did you mean '%s'? (see 'ridge --help')", name, best);
	else
		cli_error("unknown command '%s' (see 'ridge --help')", name);
	return EXIT_USAGE;
}
