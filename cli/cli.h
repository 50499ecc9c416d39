/* The command line's own pieces: printing errors, the escaped streams,
 * argv parsing (one parser, driven by the calculators' parameter tables)
 * and running a calculator as a command. What commands compute lives in
 * the application layer (app/core/app.h); each command is cli/cmd_<name>.c. */
#ifndef RIDGE_CLI_H
#define RIDGE_CLI_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "app.h"
#include "help_text.h"
#include "calc.h"
#include "params.h"

/* "ridge: error: <message>" / "ridge: warning: <message>" on stderr: the
 * command line's own messages (bad options); what app/ reports comes in a
 * struct app_status, printed by cli_report. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints a status's messages, in order, as "ridge: error: ..." and
 * "ridge: warning: ..." lines. Returns its exit code (EXIT_OK when it holds
 * no error). */
int cli_report(const struct app_status *st);
/* The same, then forgets them: for a command that reports as it goes, one
 * status through several calls. */
int cli_report_now(struct app_status *st);

/* Puts the one escaping of control characters in front of stdout and
 * stderr (main calls it first): every control character but newline and
 * tab is written as \xNN, so that no name from a file can drive the
 * terminal. cli_escape_text is the escaping itself (pending_c2 carries a
 * 0xC2 between calls); it returns the length written to out (6x len + 1
 * bytes always suffice). cli_terminal is stdout without it, for ncurses. */
void cli_escape_streams(void);
size_t cli_escape_text(const char *in, size_t len, char *out, size_t out_len, bool *pending_c2);
FILE *cli_terminal(void);

/* Flushes stdout: 0, or -1 after a write failed (now or before), the first
 * failure's errno kept for cli_stdout_errno(). main reports it once, as
 * "writing standard output: ...", exit 3. */
int cli_flush_stdout(void);
int cli_stdout_errno(void);

/* getopt_long error for the option at argv[optind - 1]: unknown or missing
 * its value; an unknown --flag close to one of longopts (NULL-ended; may be
 * NULL) gets "did you mean '--flag'?". */
struct option;
int cli_bad_option(const char *command, char **argv, int code, const struct option *longopts);

/* The subcommand of "ridge command SUB ..." among names (NULL-ended): its
 * index, or -1 with *exit_code set after printing usage (--help, -h:
 * EXIT_OK) or the error (none given, or one not in names: EXIT_USAGE). */
int cli_subcommand(const char *command, const char *const *names, const char *usage, int argc, char **argv,
		   int *exit_code);
/* Prints the diagnostics of a load: its warnings (what was skipped, also
 * after a load that succeeded), then its errors. */
void cli_print_diags(const struct hwdb_diags *diags);
/* Prints doc as one JSON document on stdout and frees it. */
int cli_json_print(cJSON *doc);
/* The one call into the option parser (git's parse_options shape): v
 * initialised from cmd's table, then getopt_long over the rows not
 * PARAM_FILE_ONLY (--name value / --name=value, a PARAM_FLAG without a
 * value) and --help (-h), each value through params_set as it comes; then
 * the operands against cmd->operands and cmd->need, then, with
 * cmd->check_required, every PARAM_REQUIRED row. Returns the number of
 * operands (>= 0; they are v->operands[0..n-1]), or -1 when the command is
 * over: *exit_code is EXIT_OK after --help (printed: cmd->usage as is, else
 * generated from the table under cmd->synopsis and cmd->description), or
 * EXIT_USAGE after the error printed (naming cmd->name). */
int params_parse(struct param_values *v, const struct params_command *cmd, int argc, char **argv, int *exit_code);

/* Runs calc as a command: parse argv, check required inputs, find the GPU,
 * run, print JSON or human output. Returns the exit code. */
int calc_main(const struct calc *calc, int argc, char **argv);

/* A command whose calculator has its own entry points (ridge occupancy,
 * ridge roofline: command-line-only inputs such as --svg and compiler
 * reports): argv through params_parse (cmd: the calculator's table and the
 * hand-written usage), --svg's path
 * checked, check_request on the values alone, the GPU, then run, which
 * prints the human output itself (on the stream given) or hands back the --json document. */
struct calc_command {
	int (*check_request)(const struct param_values *v, struct app_status *st);
	int (*run)(FILE *out, const struct param_values *v, const struct ridge_gpu *gpu, cJSON **json,
		   struct app_status *st);
};
int calc_command_main(const struct params_command *cmd, const struct calc_command *fns, int argc, char **argv);

/* ridge eval FILE and ridge cost rank FILE: the scenario's items (or those of
 * only_kind) run and printed, human or --json. Returns the exit code: 0, 1
 * when an `expect` check failed, 2 for a bad file or input. */
int cli_eval_file(const char *path, const char *hwdb_dir, const char *calibration, const char *only_kind, bool json);

struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

/* Each cli/cmd_<name>.c defines `const struct cli_command cli_cmd_<name>`; the
 * build generates the table from the file names (scripts/gen-commands.sh), so
 * adding a command is adding its file. */

#endif
