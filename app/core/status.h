/* Errors as values. Every function of the application layer that can fail
 * returns -1 (or NULL) and adds what went wrong to a struct app_status: the
 * reason, and the flag, file, line and column it concerns. Nothing here
 * prints: ridge (cli/) writes a status as "ridge: error: ..." lines on
 * stderr, the TUI shows it on its status line. Warnings (what was skipped)
 * travel the same way, in order with the errors. */
#ifndef RIDGE_APP_STATUS_H
#define RIDGE_APP_STATUS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* The exit codes of ridge (shared/spec/cli.md), which are also the classes
 * of error a status carries. */
enum {
	EXIT_OK = 0,      /* success */
	EXIT_PROBLEM = 1, /* ran, and found what the user asked about (misaligned dims, bad entry) */
	EXIT_USAGE = 2,   /* bad flag, bad number, bad file */
	EXIT_ENV = 3      /* no GPU, driver failure, cannot write output */
};

enum app_level { APP_ERROR, APP_WARNING };

#define APP_MSG_TEXT 1024
/* Enough for a whole hardware-database load (HWDB_MAX_DIAGS errors,
 * HWDB_MAX_WARNINGS warnings and their "... and N more" lines) and more. */
#define APP_STATUS_MAX 48

struct app_msg {
	enum app_level level;
	char flag[64];           /* the option it concerns ("--mfu"), or "" */
	char file[512];          /* the file it concerns, or "" */
	int line, col;           /* the position in file; 0 when not known */
	char text[APP_MSG_TEXT]; /* the reason, without the location */
};

struct app_status {
	int count;
	int dropped;   /* messages past APP_STATUS_MAX (counted, not kept) */
	int errors;    /* how many of all (kept or dropped) are errors */
	int exit_code; /* the class of the first error: EXIT_USAGE unless told otherwise */
	struct app_msg msgs[APP_STATUS_MAX];
};

void app_status_init(struct app_status *st);
/* Forgets every message (a TUI retry). */
void app_status_clear(struct app_status *st);
bool app_status_failed(const struct app_status *st);

/* An error whose text carries its own location, or none. */
void app_error(struct app_status *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An error of the environment (cannot write, out of memory): exit 3. */
void app_error_env(struct app_status *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An error about one flag: shown "FLAG: text". */
void app_error_flag(struct app_status *st, const char *flag, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* An error at a position of a file: shown "FILE:LINE:COL: text" (line 0:
 * "FILE: text"). */
void app_error_at(struct app_status *st, const char *file, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void app_warning(struct app_status *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void app_warning_at(struct app_status *st, const char *file, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* app_error_at with the arguments already gathered: for a wrapper that
 * works out the position itself (a YAML node's line and column). */
void app_verror_at(struct app_status *st, const char *file, int line, int col, const char *fmt, va_list ap)
	__attribute__((format(printf, 5, 0)));
/* For the readers that still report into the caller's buffer (align_run,
 * trace): writes the reason into err and returns -1, so that a failure
 * reads "return app_fail_text(err, err_len, ...)". */
int app_fail_text(char *err, size_t err_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* One message with its location in front: "x.yaml:12:10: reason",
 * "--mfu: reason" or "reason". */
void app_msg_format(const struct app_msg *m, char *buf, size_t len);
/* The first error (NULL when none): what a one-line display shows. */
const struct app_msg *app_status_first_error(const struct app_status *st);

struct hwdb_diags;
/* A hardware-database load's diagnostics, warnings first (as they were
 * always shown), then errors; each keeps its file, line and column. */
void app_status_add_hwdb(struct app_status *st, const struct hwdb_diags *diags);

#endif
