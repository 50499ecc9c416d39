#include "cli.h"
#include "name_table.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "suggest.h"

/* ---- the one escaping of control characters ----
 * Names from files (scenario items, ncu and ptxas kernels, validation
 * cases, GPU names) reach stdout and stderr in many places; an ESC or BEL in
 * one would drive the terminal (clear the screen, retitle the window, fake
 * output). Rather than escape at every printf, stdout and stderr themselves
 * escape: a stream (fopencookie) in front of each that writes every control
 * character other than newline and tab as \xNN (C1 controls, U+0080..U+009F
 * in UTF-8, as \u0080). JSON output is unchanged: cJSON already writes them
 * as \u001b. The TUI draws through ncurses on the raw stream, which shows a
 * control character as ^X. */
struct escaper {
	FILE *raw;
	bool pending_c2; /* the last byte written was 0xC2 (a C1 control may follow) */
};

size_t cli_escape_text(const char *in, size_t len, char *out, size_t out_len, bool *pending_c2)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;
	for (size_t i = 0; i < len && n + 8 < out_len; i++) {
		unsigned char c = (unsigned char)in[i];
		if (*pending_c2) {
			*pending_c2 = false;
			if (c >= 0x80 && c <= 0x9f) {
				memcpy(out + n, "\\u00", 4);
				out[n + 4] = hex[c >> 4];
				out[n + 5] = hex[c & 15];
				n += 6;
				continue;
			}
			out[n++] = (char)0xc2;
		}
		if (c == 0xc2) {
			*pending_c2 = true;
		} else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
			out[n++] = '\\';
			out[n++] = 'x';
			out[n++] = hex[c >> 4];
			out[n++] = hex[c & 15];
		} else {
			out[n++] = (char)c;
		}
	}
	return n;
}

static ssize_t escaper_write(void *cookie, const char *buf, size_t size)
{
	struct escaper *e = cookie;
	char out[4096 * 6 + 16];
	for (size_t done = 0; done < size;) {
		size_t chunk = size - done < 4096 ? size - done : 4096;
		size_t n = cli_escape_text(buf + done, chunk, out, sizeof out, &e->pending_c2);
		if (fwrite(out, 1, n, e->raw) != n)
			return -1;
		done += chunk;
	}
	/* Unbuffered below: the cookie stream buffers (and stderr's is unbuffered). */
	return fflush(e->raw) == 0 ? (ssize_t)size : -1;
}

static int escaper_close(void *cookie)
{
	struct escaper *e = cookie;
	int rc = 0;
	if (e->pending_c2 && fputc(0xc2, e->raw) == EOF)
		rc = -1;
	if (fclose(e->raw) != 0)
		rc = -1;
	return rc;
}

static FILE *raw_stdout;

static FILE *escaping(FILE *original, int fd, FILE **raw_out)
{
	static struct escaper escapers[2];
	struct escaper *e = &escapers[fd == STDERR_FILENO];
	/* On the same descriptor, not a copy: a dup2 onto fd 2 (the TUI's
	 * capture of messages) still takes what is written. */
	e->raw = fdopen(fd, "w");
	if (!e->raw)
		return original;
	setvbuf(e->raw, NULL, _IONBF, 0);
	cookie_io_functions_t io = { .write = escaper_write, .close = escaper_close };
	FILE *f = fopencookie(e, "w", io);
	if (!f)
		return original;
	if (fd == STDERR_FILENO)
		setvbuf(f, NULL, _IOLBF, 0);
	else if (isatty(fd))
		setvbuf(f, NULL, _IOLBF, 0);
	if (raw_out)
		*raw_out = e->raw;
	return f;
}

void cli_escape_streams(void)
{
	FILE *err = escaping(stderr, STDERR_FILENO, NULL);
	FILE *out = escaping(stdout, STDOUT_FILENO, &raw_stdout);
	/* glibc's stdout and stderr are variables (its manual says they may be set). */
	stderr = err;
	stdout = out;
}

FILE *cli_terminal(void)
{
	fflush(stdout);
	return raw_stdout ? raw_stdout : stdout;
}

/* The errno of the first failed flush of stdout: the stream's error flag
 * stays set, but errno would be long gone when main reports it. */
static int stdout_errno;

int cli_flush_stdout(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	if (!stdout_errno)
		stdout_errno = errno ? errno : EIO;
	return -1;
}

int cli_stdout_errno(void)
{
	return stdout_errno;
}

/* One message line on stderr after what stdout holds so far. */
static void say(const char *prefix, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static void say(const char *prefix, const char *fmt, va_list ap)
{
	cli_flush_stdout();
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say("ridge: error: ", fmt, ap);
	va_end(ap);
}

void cli_warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say("ridge: warning: ", fmt, ap);
	va_end(ap);
}

/* " (did you mean '--context'?)" for an unknown --flag close to one of
 * longopts (suggest_closest: a typo, not any flag), else "". */
static void option_suggestion(const char *arg, const struct option *longopts, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!longopts || strncmp(arg, "--", 2) != 0)
		return;
	char word[64];
	snprintf(word, sizeof word, "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
	const char *names[PARAM_MAX + 8];
	int n = 0;
	for (; longopts[n].name && n < (int)(sizeof names / sizeof names[0]); n++)
		names[n] = longopts[n].name;
	int best = suggest_closest(word, names, n);
	if (best >= 0)
		snprintf(buf, len, "; did you mean '--%s'?", names[best]);
}

int cli_bad_option(const char *command, char **argv, int code, const struct option *longopts)
{
	const char *arg = argv[optind - 1];
	char hint[96];
	if (code == ':')
		cli_error("option '%s' needs a value (see 'ridge %s --help')", arg, command);
	else if (optopt && strncmp(arg, "--", 2) == 0) /* getopt_long's optopt is then the option's code */
		cli_error("option '%.*s' takes no value (see 'ridge %s --help')", (int)strcspn(arg, "="), arg, command);
	else if (optopt)
		cli_error("unknown option '-%c' (see 'ridge %s --help')", optopt, command);
	else {
		option_suggestion(arg, longopts, hint, sizeof hint);
		cli_error("unknown option '%s'%s (see 'ridge %s --help')", arg, hint, command);
	}
	return EXIT_USAGE;
}

void cli_print_diags(const struct hwdb_diags *diags)
{
	char line[1024];
	for (int i = 0; i < diags->warning_count; i++) {
		hwdb_diag_format(&diags->warnings[i], line, sizeof line);
		cli_warning("%s", line);
	}
	if (diags->warnings_dropped)
		cli_warning("... and %d more skipped", diags->warnings_dropped);
	for (int i = 0; i < diags->count; i++) {
		hwdb_diag_format(&diags->items[i], line, sizeof line);
		cli_error("%s", line);
	}
	if (diags->dropped)
		cli_error("... and %d more problems", diags->dropped);
}

/* "train, decode, prefill" + last_sep + "rank" */
static void join_names(const char *const *names, const char *last_sep, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; names[i] && used < len; i++) {
		const char *sep = i == 0 ? "" : names[i + 1] ? ", " : last_sep;
		used += (size_t)snprintf(buf + used, len - used, "%s%s", sep, names[i]);
	}
}

int cli_subcommand(const char *command, const char *const *names, const char *usage, int argc, char **argv,
		   int *exit_code)
{
	char list[256];
	*exit_code = EXIT_USAGE;
	if (argc < 2) {
		join_names(names, " or ", list, sizeof list);
		cli_error("%s needs a subcommand: %s (see 'ridge %s --help')", command, list, command);
		return -1;
	}
	const char *sub = argv[1];
	if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
		help_text_print(usage, stdout);
		*exit_code = EXIT_OK;
		return -1;
	}
	for (int i = 0; names[i]; i++)
		if (strcmp(sub, names[i]) == 0)
			return i;
	join_names(names, ", ", list, sizeof list);
	int count = 0;
	while (names[count])
		count++;
	int best = suggest_closest(sub, names, count);
	if (best >= 0)
		cli_error("unknown %s subcommand '%s'; did you mean '%s'? (known: %s)", command, sub, names[best],
			  list);
	else
		cli_error("unknown %s subcommand '%s' (known: %s)", command, sub, list);
	return -1;
}

/* Every string of a result in valid UTF-8: a file path or a name read from a
 * file can hold any bytes, and a JSON text must not (issue 31); a bad byte
 * becomes U+FFFD. Returns false when memory ran out. */
static bool json_strings_utf8(cJSON *node)
{
	for (; node; node = node->next) {
		if (cJSON_IsString(node) && node->valuestring && !text_valid_utf8(node->valuestring)) {
			size_t len = strlen(node->valuestring), cap = 4 * len + 1;
			char *clean = malloc(cap);
			if (!clean)
				return false;
			text_line_copy(clean, cap, node->valuestring, len);
			char *set = cJSON_SetValuestring(node, clean);
			free(clean);
			if (!set)
				return false;
		}
		if (node->child && !json_strings_utf8(node->child))
			return false;
	}
	return true;
}

int cli_json_print(cJSON *doc)
{
	char *text = doc && json_strings_utf8(doc) ? cJSON_Print(doc) : NULL;
	cJSON_Delete(doc);
	if (!text) {
		cli_error("out of memory while writing JSON");
		return EXIT_ENV;
	}
	puts(text);
	cJSON_free(text);
	/* A failed write is reported once, by main (finish_stdout). */
	return cli_flush_stdout() == 0 ? EXIT_OK : EXIT_ENV;
}

int cli_report(const struct app_status *st)
{
	char line[APP_MSG_TEXT + 600];
	for (int i = 0; i < st->count; i++) {
		app_msg_format(&st->msgs[i], line, sizeof line);
		if (st->msgs[i].level == APP_ERROR)
			cli_error("%s", line);
		else
			cli_warning("%s", line);
	}
	if (st->dropped)
		cli_error("... and %d more", st->dropped);
	return st->errors ? st->exit_code : EXIT_OK;
}

int cli_report_now(struct app_status *st)
{
	int rc = cli_report(st);
	app_status_clear(st);
	return rc;
}
