#include "cli.h"

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

void cli_error(const char *fmt, ...)
{
	va_list ap;
	cli_flush_stdout();
	fputs("ridge: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_warning(const char *fmt, ...)
{
	va_list ap;
	cli_flush_stdout();
	fputs("ridge: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_parse_quantity(const char *flag, const char *text, enum ridge_unit unit, double *out)
{
	char err[200];
	if (ridge_quantity_parse(text, unit, out, err, sizeof err) != 0) {
		cli_error("%s: %s", flag, err);
		return -1;
	}
	return 0;
}

int cli_parse_positive(const char *flag, const char *text, enum ridge_unit unit, double *out)
{
	if (cli_parse_quantity(flag, text, unit, out) != 0)
		return -1;
	if (!(*out > 0)) {
		cli_error("%s: must be greater than 0, not '%s'", flag, text);
		return -1;
	}
	return 0;
}

int cli_parse_int(const char *flag, const char *text, long long lo, long long hi, long long *out)
{
	double v;
	if (cli_parse_quantity(flag, text, RIDGE_UNIT_COUNT, &v) != 0)
		return -1;
	if (v != floor(v)) {
		cli_error("%s: must be a whole number, not '%s'", flag, text);
		return -1;
	}
	if (v < (double)lo || v > (double)hi) {
		cli_error("%s: '%s' is out of range (%lld..%lld)", flag, text, lo, hi);
		return -1;
	}
	*out = (long long)v;
	return 0;
}

int cli_parse_dtype(const char *flag, const char *text, enum ridge_dtype *out)
{
	if (!ridge_dtype_parse(text, out)) {
		cli_error("%s: unknown dtype '%s' (known: %s)", flag, text, ridge_dtype_list());
		return -1;
	}
	return 0;
}

int cli_bad_option(const char *command, char **argv, int code)
{
	const char *arg = argv[optind - 1];
	if (code == ':')
		cli_error("option '%s' needs a value (see 'ridge %s --help')", arg, command);
	else if (optopt)
		cli_error("unknown option '-%c' (see 'ridge %s --help')", optopt, command);
	else
		cli_error("unknown option '%s' (see 'ridge %s --help')", arg, command);
	return EXIT_USAGE;
}

int cli_parse_options(const char *command, int argc, char **argv, unsigned accept, struct cli_options *opt)
{
	static const struct option all[] = {
		{ "gpu", required_argument, NULL, 'g' },
		{ "json", no_argument, NULL, 'j' },
		{ "hwdb", required_argument, NULL, 'd' },
		{ "calibration", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
	};
	/* Only the accepted ones, so that the others are unknown options. */
	struct option longopts[sizeof all / sizeof all[0] + 1] = { { 0 } };
	int n = 0;
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		if ((all[i].val != 'g' || (accept & CLI_OPT_GPU)) && (all[i].val != 'j' || (accept & CLI_OPT_JSON)))
			longopts[n++] = all[i];
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'g':
			opt->gpu = optarg;
			break;
		case 'j':
			opt->json = true;
			break;
		case 'd':
			opt->hwdb_dir = optarg;
			break;
		case 'c':
			opt->calibration = optarg;
			break;
		case 'h':
			opt->help = true;
			return 0;
		default:
			return cli_bad_option(command, argv, c);
		}
	}
	return 0;
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

int cli_hw_open(struct cli_hw *hw, const char *hwdb_dir, const char *calibration)
{
	struct hwdb_diags diags = { 0 };
	hw->calibration = calibration;
	hw->calibration_id[0] = '\0';
	if (hwdb_open(&hw->db, hwdb_dir, &diags) != 0 || (calibration && hwdb_add_file(&hw->db, calibration, &diags) != 0)) {
		cli_print_diags(&diags);
		hwdb_close(&hw->db);
		return -1;
	}
	cli_print_diags(&diags); /* the warnings: what was skipped */
	if (calibration) {
		/* The entry the file added: the last one loaded from it. */
		for (int i = hw->db.count - 1; i >= 0; i--) {
			if (strcmp(hw->db.entries[i].origin, calibration) == 0) {
				snprintf(hw->calibration_id, sizeof hw->calibration_id, "%s", hw->db.entries[i].gpu.id);
				break;
			}
		}
	}
	return 0;
}

const char *cli_hw_default_gpu(const struct cli_hw *hw)
{
	return hw->calibration_id[0] ? hw->calibration_id : CLI_DEFAULT_GPU;
}

const struct hwdb_entry *cli_hw_find(const struct cli_hw *hw, const char *name)
{
	const struct hwdb_entry *e = hwdb_find(&hw->db, name);
	if (e) {
		if (hw->calibration_id[0] && strcasecmp(e->gpu.id, hw->calibration_id) != 0)
			cli_warning("--calibration '%s' measured %s, not %s: %s's spec sheet is used", hw->calibration,
				    hw->calibration_id, e->gpu.id, e->gpu.id);
		return e;
	}
	const char *ids[3];
	int n = hwdb_suggest(&hw->db, name, ids, 3);
	if (n == 0)
		cli_error("unknown GPU '%s' (see 'ridge hw list')", name);
	else if (n == 1)
		cli_error("unknown GPU '%s'; did you mean '%s'? (see 'ridge hw list')", name, ids[0]);
	else if (n == 2)
		cli_error("unknown GPU '%s'; did you mean '%s' or '%s'? (see 'ridge hw list')", name, ids[0], ids[1]);
	else
		cli_error("unknown GPU '%s'; did you mean '%s', '%s' or '%s'? (see 'ridge hw list')", name, ids[0], ids[1],
			  ids[2]);
	return NULL;
}

void cli_hw_close(struct cli_hw *hw)
{
	hwdb_close(&hw->db);
}

const char *cli_ceiling_source(const struct ridge_gpu *gpu)
{
	return gpu->measured ? "measured (calibration)" : "spec sheet";
}

int cli_json_print(cJSON *doc)
{
	char *text = doc ? cJSON_Print(doc) : NULL;
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

/* The first result that was not finite since cli_json_take_nonfinite. */
static char nonfinite_key[64];

cJSON *cli_json_number(cJSON *object, const char *key, double value)
{
	if (!isfinite(value)) {
		if (!nonfinite_key[0])
			snprintf(nonfinite_key, sizeof nonfinite_key, "%s", key);
		return cJSON_AddNullToObject(object, key);
	}
	return cJSON_AddNumberToObject(object, key, value);
}

cJSON *cli_json_ratio(cJSON *object, const char *key, double num, double den)
{
	if (den == 0)
		return cJSON_AddNullToObject(object, key); /* "none" */
	return cli_json_number(object, key, num / den);
}

const char *cli_json_take_nonfinite(void)
{
	static char taken[sizeof nonfinite_key];
	if (!nonfinite_key[0])
		return NULL;
	memcpy(taken, nonfinite_key, sizeof taken);
	nonfinite_key[0] = '\0';
	return taken;
}

int cli_extreme_index(const double *values, const bool *given, int n)
{
	int best = -1;
	double best_mag = -1;
	for (int i = 0; i < n; i++) {
		if (!given[i] || values[i] == 0 || !isfinite(values[i]))
			continue;
		double mag = fabs(log10(fabs(values[i])));
		if (mag > best_mag) {
			best_mag = mag;
			best = i;
		}
	}
	return best;
}

void cli_format_none(double value, char *buf, size_t len, const char *fmt)
{
	if (!isfinite(value))
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, fmt, value);
}

char *cli_read_file(const char *path, size_t max_bytes, const char *what, size_t *len)
{
	char *text;
	int e;
	const char *type;
	switch (hwdb_read_file(path, max_bytes, &text, len, &e, &type)) {
	case HWDB_READ_OK:
		return text;
	case HWDB_READ_OPEN:
		cli_error("cannot open '%s': %s", path, strerror(e));
		break;
	case HWDB_READ_IO:
		cli_error("cannot read '%s': %s", path, strerror(e));
		break;
	case HWDB_READ_NOT_REGULAR:
		cli_error("cannot read '%s': %s, not a regular file (a %s is read from a file)", path, type, what);
		break;
	case HWDB_READ_TOO_BIG:
		cli_error("'%s' is larger than %zu bytes: not a %s", path, max_bytes, what);
		break;
	case HWDB_READ_NOMEM:
		cli_error("out of memory reading '%s'", path);
		break;
	}
	return NULL;
}

void cli_text_position(const char *text, size_t offset, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < offset && text[i]; i++) {
		if (text[i] == '\n') {
			++*line;
			*col = 1;
		} else {
			++*col;
		}
	}
}

int cli_output_path_ok(const char *flag, const char *path)
{
	char err[HWDB_PATH + 128];
	if (hwdb_output_path_check(path, err, sizeof err) != 0) {
		cli_error("%s: %s", flag, err);
		return -1;
	}
	return 0;
}

int cli_write_atomic(const char *path, const char *data, size_t len)
{
	char err[HWDB_PATH + 128];
	if (hwdb_write_atomic(path, data, len, err, sizeof err) != 0) {
		cli_error("%s", err);
		return -1;
	}
	return 0;
}

void cli_format_si(double value, const char *unit, char *buf, size_t len)
{
	if (!isfinite(value)) {
		snprintf(buf, len, "none");
		return;
	}
	static const char *const prefixes[] = { "", "K", "M", "G", "T", "P", "E" };
	int i = 0;
	double v = value;
	while (fabs(v) >= 1000 && i < 6) {
		v /= 1000;
		i++;
	}
	snprintf(buf, len, "%.4g %s%s", v, prefixes[i], unit);
}

void cli_format_bytes(double bytes, char *buf, size_t len)
{
	if (!isfinite(bytes)) {
		snprintf(buf, len, "none");
		return;
	}
	static const char *const prefixes[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	int i = 0;
	double v = bytes;
	while (fabs(v) >= 1024 && i < 5) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, "%.4g %s", v, prefixes[i]);
}

void cli_format_seconds(double seconds, char *buf, size_t len)
{
	if (!isfinite(seconds)) {
		snprintf(buf, len, "none");
		return;
	}
	double a = fabs(seconds);
	if (a >= 1 || a == 0)
		snprintf(buf, len, "%.4g s", seconds);
	else if (a >= 1e-3)
		snprintf(buf, len, "%.4g ms", seconds * 1e3);
	else if (a >= 1e-6)
		snprintf(buf, len, "%.4g us", seconds * 1e6);
	else
		snprintf(buf, len, "%.4g ns", seconds * 1e9);
}
