/* The one command-line parser: --name value / --name=value for each
 * parameter of a table (app/core/params.h), --help from the same table,
 * the operands and required flags checked (struct params_command). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "params.h"

/* --help generated from the table: synopsis, description, a line a flag. */
static void params_usage_to(FILE *out, const struct param *spec, int count, const char *synopsis,
			    const char *description)
{
	fprintf(out, "%s\n", synopsis);
	if (description)
		fprintf(out, "\n%s", description);
	fprintf(out, "\n");
	for (int i = 0; i < count; i++) {
		const struct param *p = &spec[i];
		if (p->flags & PARAM_FILE_ONLY)
			continue;
		char flag[80], left[120];
		params_flag_name(p->name, flag, sizeof flag);
		if (p->kind == PARAM_FLAG)
			snprintf(left, sizeof left, "%s", flag);
		else
			snprintf(left, sizeof left, "%s %s", flag, p->metavar ? p->metavar : "X");
		char def[80] = "";
		if (p->def && !(p->flags & PARAM_REQUIRED))
			snprintf(def, sizeof def, " (default %s)", p->def);
		if (strlen(left) > 26) /* the description on its own line, in its column */
			fprintf(out, "  %s\n  %-26s", left, "");
		else
			fprintf(out, "  %-26s", left);
		fprintf(out, " %s%s%s\n", p->help, def, (p->flags & PARAM_REQUIRED) ? " (required)" : "");
	}
	fprintf(out, "  %-26s %s\n", "--help", "this text");
}

/* The same on stdout, each line wrapped to 80 columns (help_text_print). */
static void params_usage(const struct param *spec, int count, const char *synopsis, const char *description)
{
	char *text = NULL;
	size_t size = 0;
	FILE *buf = open_memstream(&text, &size);
	if (!buf) { /* out of memory: the text unwrapped */
		params_usage_to(stdout, spec, count, synopsis, description);
		return;
	}
	params_usage_to(buf, spec, count, synopsis, description);
	fclose(buf);
	help_text_print(text, stdout);
	free(text);
}

/* The option loop: getopt_long over the rows not PARAM_FILE_ONLY and --help
 * (-h), each value through params_set as it comes. Returns 0 with the
 * operands left at argv[optind..] (getopt_long moves them there), 1 after
 * --help (printed), or an exit code after printing the error. */
static int parse_flags(struct param_values *v, const struct params_command *cmd, int argc, char **argv)
{
	struct option longopts[PARAM_MAX + 2];
	char names[PARAM_MAX][64];
	int n = 0;
	for (int i = 0; i < v->count; i++) {
		if (v->spec[i].flags & PARAM_FILE_ONLY)
			continue;
		char flag[72];
		params_flag_name(v->spec[i].name, flag, sizeof flag);
		snprintf(names[n], sizeof names[n], "%s", flag + 2);
		longopts[n].name = names[n];
		longopts[n].has_arg = v->spec[i].kind == PARAM_FLAG ? no_argument : required_argument;
		longopts[n].flag = NULL;
		longopts[n].val = 1000 + i;
		n++;
	}
	longopts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };

	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (c == 'h') {
			if (cmd->usage)
				help_text_print(cmd->usage, stdout);
			else if (cmd->synopsis)
				params_usage(v->spec, v->count, cmd->synopsis, cmd->description);
			return 1;
		}
		if (c < 1000)
			return cli_bad_option(cmd->name, argv, c, longopts);
		int i = c - 1000;
		struct app_status st;
		app_status_init(&st);
		if (params_set(v, i, v->spec[i].kind == PARAM_FLAG ? NULL : optarg, NULL, &st) != 0)
			return cli_report(&st);
		cli_report(&st); /* a warning about a value taken (32KB: K = 1000) */
	}
	return 0;
}

/* The operands against cmd's rule: 0, or an exit code after the error. */
static int check_operands(const struct params_command *cmd, int count, char **operands)
{
	if (cmd->operands == PARAMS_OPERANDS_ANY)
		return 0;
	if (count > cmd->operands) {
		if (cmd->operands == 0)
			cli_error("%s takes no arguments, got '%s' (see 'ridge %s --help')", cmd->name, operands[0],
				  cmd->name);
		else
			cli_error("%s takes at most %d argument%s, got '%s' (see 'ridge %s --help')", cmd->name,
				  cmd->operands, cmd->operands == 1 ? "" : "s", operands[cmd->operands], cmd->name);
		return EXIT_USAGE;
	}
	if (cmd->need && count < cmd->operands) {
		cli_error("%s", cmd->need);
		return EXIT_USAGE;
	}
	return 0;
}

int params_parse(struct param_values *v, const struct params_command *cmd, int argc, char **argv, int *exit_code)
{
	params_init(v, cmd->params, cmd->param_count);
	int rc = parse_flags(v, cmd, argc, argv);
	if (rc == 0) {
		v->operands = argv + optind;
		v->operand_count = argc - optind;
		rc = check_operands(cmd, v->operand_count, v->operands);
	}
	if (rc == 0 && cmd->check_required) {
		int missing = params_missing(v);
		if (missing >= 0) {
			cli_error("%s is required (see 'ridge %s --help')", params_where(v, missing), cmd->name);
			rc = EXIT_USAGE;
		}
	}
	if (rc == 0)
		return v->operand_count;
	*exit_code = rc == 1 ? EXIT_OK : rc;
	return -1;
}
