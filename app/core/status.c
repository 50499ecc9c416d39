#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hwdb.h"

void app_status_init(struct app_status *st)
{
	st->count = 0;
	st->dropped = 0;
	st->errors = 0;
	st->exit_code = EXIT_OK;
}

void app_status_clear(struct app_status *st)
{
	app_status_init(st);
}

bool app_status_failed(const struct app_status *st)
{
	return st->errors > 0;
}

/* The next free message, or NULL when the status is full (counted). */
static struct app_msg *add(struct app_status *st, enum app_level level, int exit_code)
{
	if (level == APP_ERROR) {
		if (st->errors++ == 0)
			st->exit_code = exit_code;
	}
	if (st->count >= APP_STATUS_MAX) {
		st->dropped++;
		return NULL;
	}
	struct app_msg *m = &st->msgs[st->count++];
	m->level = level;
	m->flag[0] = '\0';
	m->file[0] = '\0';
	m->line = 0;
	m->col = 0;
	m->text[0] = '\0';
	return m;
}

static void vadd(struct app_status *st, enum app_level level, int exit_code, const char *flag, const char *file,
		 int line, int col, const char *fmt, va_list ap)
{
	struct app_msg *m = add(st, level, exit_code);
	if (!m)
		return;
	size_t used = 0;
	if (flag && strlen(flag) < sizeof m->flag) {
		snprintf(m->flag, sizeof m->flag, "%s", flag);
	} else if (flag) {
		/* A position text longer than the field ("file:12:10: mfu"):
		 * it leads the text, so that the message still reads the same. */
		int n = snprintf(m->text, sizeof m->text, "%s: ", flag);
		used = n > 0 && (size_t)n < sizeof m->text ? (size_t)n : sizeof m->text - 1;
	}
	if (file && strlen(file) < sizeof m->file) {
		snprintf(m->file, sizeof m->file, "%s", file);
		m->line = line;
		m->col = col;
	} else if (file) {
		/* The same for a path longer than the field. */
		int n = line > 0 ? snprintf(m->text + used, sizeof m->text - used, "%s:%d:%d: ", file, line, col)
				 : snprintf(m->text + used, sizeof m->text - used, "%s: ", file);
		used += n > 0 && (size_t)n < sizeof m->text - used ? (size_t)n : sizeof m->text - 1 - used;
	}
	vsnprintf(m->text + used, sizeof m->text - used, fmt, ap);
}

/* The body of every variadic entry point below: each differs only in the
 * level, exit code and location it hands to vadd(). */
#define VADD_VARIADIC(...)                      \
	do {                                    \
		va_list ap;                     \
		va_start(ap, fmt);              \
		vadd(st, __VA_ARGS__, fmt, ap); \
		va_end(ap);                     \
	} while (0)

void app_error(struct app_status *st, const char *fmt, ...)
{
	VADD_VARIADIC(APP_ERROR, EXIT_USAGE, NULL, NULL, 0, 0);
}

void app_error_env(struct app_status *st, const char *fmt, ...)
{
	VADD_VARIADIC(APP_ERROR, EXIT_ENV, NULL, NULL, 0, 0);
}

void app_error_flag(struct app_status *st, const char *flag, const char *fmt, ...)
{
	VADD_VARIADIC(APP_ERROR, EXIT_USAGE, flag, NULL, 0, 0);
}

void app_error_at(struct app_status *st, const char *file, int line, int col, const char *fmt, ...)
{
	VADD_VARIADIC(APP_ERROR, EXIT_USAGE, NULL, file, line, col);
}

void app_warning(struct app_status *st, const char *fmt, ...)
{
	VADD_VARIADIC(APP_WARNING, EXIT_OK, NULL, NULL, 0, 0);
}

void app_warning_at(struct app_status *st, const char *file, int line, int col, const char *fmt, ...)
{
	VADD_VARIADIC(APP_WARNING, EXIT_OK, NULL, file, line, col);
}

void app_verror_at(struct app_status *st, const char *file, int line, int col, const char *fmt, va_list ap)
{
	vadd(st, APP_ERROR, EXIT_USAGE, NULL, file, line, col, fmt, ap);
}

int app_fail_text(char *err, size_t err_len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, err_len, fmt, ap);
	va_end(ap);
	return -1;
}

void app_msg_format(const struct app_msg *m, char *buf, size_t len)
{
	if (m->file[0] && m->line > 0)
		snprintf(buf, len, "%s:%d:%d: %s", m->file, m->line, m->col, m->text);
	else if (m->file[0])
		snprintf(buf, len, "%s: %s", m->file, m->text);
	else if (m->flag[0])
		snprintf(buf, len, "%s: %s", m->flag, m->text);
	else
		snprintf(buf, len, "%s", m->text);
}

const struct app_msg *app_status_first_error(const struct app_status *st)
{
	for (int i = 0; i < st->count; i++)
		if (st->msgs[i].level == APP_ERROR)
			return &st->msgs[i];
	return NULL;
}

void app_status_add_hwdb(struct app_status *st, const struct hwdb_diags *diags)
{
	for (int i = 0; i < diags->warning_count; i++) {
		const struct hwdb_diag *d = &diags->warnings[i];
		app_warning_at(st, d->file, d->line, d->column, "%s", d->message);
	}
	if (diags->warnings_dropped)
		app_warning(st, "... and %d more skipped", diags->warnings_dropped);
	for (int i = 0; i < diags->count; i++) {
		const struct hwdb_diag *d = &diags->items[i];
		app_error_at(st, d->file, d->line, d->column, "%s", d->message);
	}
	if (diags->dropped)
		app_error(st, "... and %d more problems", diags->dropped);
}
