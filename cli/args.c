/* The one command-line parser: --name value / --name=value for each
 * parameter of a table (app/core/params.h), --help from the same table. */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "params.h"

void params_usage(const struct param *spec, int count, const char *synopsis, const char *description)
{
	printf("%s\n", synopsis);
	if (description)
		printf("\n%s", description);
	printf("\n");
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
		printf("  %-26s %s%s%s\n", left, p->help, def, (p->flags & PARAM_REQUIRED) ? " (required)" : "");
	}
	printf("  %-26s %s\n", "--help", "this text");
}

int params_parse_flags(struct param_values *v, const char *command, const char *synopsis, const char *description,
		       const char *usage, int argc, char **argv)
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
			if (usage)
				fputs(usage, stdout);
			else if (synopsis)
				params_usage(v->spec, v->count, synopsis, description);
			return 1;
		}
		if (c < 1000)
			return cli_bad_option(command, argv, c);
		int i = c - 1000;
		struct app_status st;
		app_status_init(&st);
		if (params_set(v, i, v->spec[i].kind == PARAM_FLAG ? NULL : optarg, NULL, &st) != 0)
			return cli_report(&st);
	}
	return 0;
}

/* The flags, then at most max_positional operands into positional. */
static int parse_argv(struct param_values *v, const char *command, const char *synopsis, const char *description,
		      const char *usage, int argc, char **argv, const char **positional, int max_positional,
		      int *positional_count)
{
	int rc = params_parse_flags(v, command, synopsis, description, usage, argc, argv);
	if (rc != 0)
		return rc;
	int extra = argc - optind;
	if (extra > max_positional) {
		if (max_positional == 0)
			cli_error("%s takes no arguments, got '%s' (see 'ridge %s --help')", command, argv[optind],
				  command);
		else
			cli_error("%s takes at most %d argument%s, got '%s' (see 'ridge %s --help')", command,
				  max_positional, max_positional == 1 ? "" : "s", argv[optind + max_positional],
				  command);
		return EXIT_USAGE;
	}
	for (int i = 0; i < extra; i++)
		positional[i] = argv[optind + i];
	if (positional_count)
		*positional_count = extra;
	return 0;
}

int params_parse_argv(struct param_values *v, const char *command, const char *synopsis, const char *description,
		      int argc, char **argv, const char **positional, int max_positional, int *positional_count)
{
	return parse_argv(v, command, synopsis, description, NULL, argc, argv, positional, max_positional,
			  positional_count);
}

int params_parse_argv_usage(struct param_values *v, const char *command, const char *usage, int argc, char **argv)
{
	return parse_argv(v, command, NULL, NULL, usage, argc, argv, NULL, 0, NULL);
}

int params_parse_required(struct param_values *v, const char *command, const char *synopsis, const char *description,
			  const char *usage, int argc, char **argv)
{
	int rc = parse_argv(v, command, synopsis, description, usage, argc, argv, NULL, 0, NULL);
	if (rc != 0)
		return rc;
	int missing = params_missing(v);
	if (missing >= 0) {
		cli_error("%s is required (see 'ridge %s --help')", params_where_at(v, missing), command);
		return EXIT_USAGE;
	}
	return 0;
}

int params_parse_files(struct param_values *v, const struct param *spec, int spec_count, const char *command,
		       const char *synopsis, const char *description, int argc, char **argv, const char **files,
		       int count, const char *need)
{
	params_init(v, spec, spec_count);
	int given = 0;
	int rc = params_parse_argv(v, command, synopsis, description, argc, argv, files, count, &given);
	if (rc == 0 && given < count) {
		cli_error("%s", need);
		return EXIT_USAGE;
	}
	return rc;
}
