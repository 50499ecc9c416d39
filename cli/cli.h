/* What every ridge subcommand shares: exit codes, error reporting, number and
 * name parsing with messages that name the flag, the hardware database, and
 * JSON/file output. Each command lives in cli/cmd_<name>.c. */
#ifndef RIDGE_CLI_H
#define RIDGE_CLI_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "hwdb.h"
#include "ridge.h"

enum {
	EXIT_OK = 0,      /* success */
	EXIT_PROBLEM = 1, /* ran, and found what the user asked about (misaligned dims, bad entry) */
	EXIT_USAGE = 2,   /* bad flag, bad number, bad file */
	EXIT_ENV = 3      /* no GPU, driver failure, cannot write output */
};

/* "ridge: error: <message>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "ridge: warning: <message>" on stderr. */
void cli_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

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

/* Each returns 0, or prints an error naming the flag and the text and returns -1. */
int cli_parse_quantity(const char *flag, const char *text, enum ridge_unit unit, double *out);
/* A finite quantity > 0. */
int cli_parse_positive(const char *flag, const char *text, enum ridge_unit unit, double *out);
/* An integer in lo..hi (suffixes such as 8K are allowed; fractions are not). */
int cli_parse_int(const char *flag, const char *text, long long lo, long long hi, long long *out);
int cli_parse_dtype(const char *flag, const char *text, enum ridge_dtype *out);

/* getopt_long error for the option at argv[optind - 1]: unknown or missing its value. */
int cli_bad_option(const char *command, char **argv, int code);

/* The options of the commands that take no others: --hwdb DIR, --calibration
 * FILE, --help (-h), and --gpu GPU and --json where accept has CLI_OPT_GPU,
 * CLI_OPT_JSON. What is not given is left as the caller set it. */
struct cli_options {
	const char *gpu, *hwdb_dir, *calibration;
	bool json;
	bool help; /* parsing stopped at --help: print the usage, exit 0 */
};
enum { CLI_OPT_GPU = 1u, CLI_OPT_JSON = 2u };
/* Parses argv with getopt_long (the operands start at optind). Returns 0, or
 * EXIT_USAGE after an error that names command. */
int cli_parse_options(const char *command, int argc, char **argv, unsigned accept, struct cli_options *opt);

/* The hardware database as a command sees it: built-in, user, $RIDGE_HWDB,
 * --hwdb DIR, then --calibration FILE. */
struct cli_hw {
	struct hwdb db;
	const char *calibration; /* file given with --calibration, or NULL */
	char calibration_id[RIDGE_TEXT]; /* the GPU it measured ("h200-sxm"); empty without one */
};

/* Returns 0, or prints every problem (file:line:col) and returns -1. */
int cli_hw_open(struct cli_hw *hw, const char *hwdb_dir, const char *calibration);
/* Finds name; on failure prints an error suggesting the closest ids. With a
 * calibration of another GPU it warns that name's spec sheet is used. */
const struct hwdb_entry *cli_hw_find(const struct cli_hw *hw, const char *name);
/* The GPU a command uses when --gpu is left out: the calibration's GPU when
 * --calibration was given, else CLI_DEFAULT_GPU. */
const char *cli_hw_default_gpu(const struct cli_hw *hw);
void cli_hw_close(struct cli_hw *hw);
/* Prints the diagnostics of a load: its warnings (what was skipped, also
 * after a load that succeeded), then its errors. */
void cli_print_diags(const struct hwdb_diags *diags);
/* "spec sheet" or "measured (...)": which ceilings a calculation used. */
const char *cli_ceiling_source(const struct ridge_gpu *gpu);

/* Prints doc as one JSON document on stdout and frees it. */
int cli_json_print(cJSON *doc);
/* Every number a result shows goes through here. Adds value; one that is
 * not finite (an overflow: --price 1e308 x hours) is added as null and its
 * key remembered, and calc_run refuses the result, naming the input. */
cJSON *cli_json_number(cJSON *object, const char *key, double value);
/* num / den, or null ("none": shown so, never nan) when den is 0: a ratio
 * that does not exist, not an error. */
cJSON *cli_json_ratio(cJSON *object, const char *key, double num, double den);
/* The key of the first non-finite number added since the last call, or
 * NULL; resets. */
const char *cli_json_take_nonfinite(void);
/* Of the n given values, the index of the one farthest from 1 in magnitude
 * (1e308, 1e-300): the input that most likely made a result overflow, for
 * the message that names it. -1 when none. */
int cli_extreme_index(const double *values, const bool *given, int n);
/* printf of value with fmt ("%.3gx less"), or "none" when it is not finite
 * (a null in a result, a ratio that does not exist). */
void cli_format_none(double value, char *buf, size_t len, const char *fmt) __attribute__((format(printf, 4, 0)));

/* Reads a whole text file, NUL-terminated, refusing more than max_bytes (what
 * names the expected content for that message: "model config"). Returns the
 * text (free it), or NULL after printing the error. */
char *cli_read_file(const char *path, size_t max_bytes, const char *what, size_t *len);
/* The 1-based line and column of text[offset]. */
void cli_text_position(const char *text, size_t offset, int *line, int *col);

/* Checks, before any work, that an output file named by flag can be written:
 * a name, not a directory, in a directory that exists and is writable. An
 * unusable path is a usage error (exit 2); a write that fails later (disk
 * full) is an environment error (exit 3). Returns 0, or prints
 * "ridge: error: FLAG: cannot write 'PATH': why" and returns -1. */
int cli_output_path_ok(const char *flag, const char *path);

/* Writes data to path atomically (temporary file + rename; hwdb_write_atomic),
 * or prints "ridge: error: cannot write 'path': why" and returns -1. */
int cli_write_atomic(const char *path, const char *data, size_t len);

/* Human formatting: "989.4 T" style with unit, binary bytes "50 MiB"; a
 * value that is not finite is "none". */
void cli_format_si(double value, const char *unit, char *buf, size_t len);
void cli_format_bytes(double bytes, char *buf, size_t len);
void cli_format_seconds(double seconds, char *buf, size_t len);

/* The whole entry as JSON (ridge hw show --json), SI units. */
cJSON *cli_gpu_json(const struct ridge_gpu *gpu, const char *origin);

/* Default GPU when --gpu is left out. */
#define CLI_DEFAULT_GPU "h100-sxm"

struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

/* Each cli/cmd_<name>.c defines `const struct cli_command cli_cmd_<name>`; the
 * build generates the table from the file names (scripts/gen-commands.sh), so
 * adding a command is adding its file. */

#endif
