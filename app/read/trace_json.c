/* PyTorch profiler Chrome traces (torch.profiler's export_chrome_trace with
 * ProfilerActivity.CUDA: "kernel", "cuda_runtime"/"cuda_driver",
 * "gpu_memcpy" and "cpu_op" events joined by External id), read as a stream
 * (issue 31): the file goes through the strict reader's window in chunks
 * (util/json_strict.c: grammar, duplicate keys, trailing text, UTF-8, the
 * nesting bound, line and column in every error), and each element of
 * "traceEvents" is read as it comes by the scanner below, which takes the
 * keys it knows and skips, checked, the rest. Nothing of the document is kept
 * but the records: memory is the window (256 KiB; more only for one event
 * that large, at most 16 MiB) plus the kernels, operators and names, whatever
 * the file's size. A whole-document cJSON parse cost ~100 bytes a value (a
 * 1M-event trace took 2.1 GB); parsing each event with cJSON after a strict
 * pass over the text held in memory took 5.5 s and 326 MB for 1M kernels. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "json_strict.h"
#include "read_limits.h"
#include "trace_internal.h"

/* The window's first size: large enough that a read is a few hundred KiB. */
#define TRACE_WINDOW_BYTES (256u << 10)

struct op_id {
	double id;
	int name;
};

/* A number an event gives: absent (or null), a finite number, or something else. */
enum { NUM_ABSENT = 0, NUM_GIVEN = 1, NUM_BAD = -1 };
struct event_num {
	int state;
	double value;
};

/* What one event says: its strings as spans of the held event, its numbers. */
struct event {
	struct json_strict_span cat, ph, name;
	bool has_cat, has_ph, has_name;
	struct event_num ts, dur;
	struct event_num device, external_id, correlation, registers, bytes; /* of "args" */
	int grid[3], block[3];
};

struct pytorch {
	struct json_strict_stream js;
	struct trace *t;
	struct trace_err *err;
	int kernel_cap;
	struct op_id *ops; /* cpu_op events by External id, sorted at the end */
	size_t op_count, op_cap;
	long event; /* the event being read, 0-based */
	struct json_strict_pos event_at;
	char *decoded; /* a string with escapes, decoded */
	size_t decoded_cap;
};

/* ---- one event's values ---- */

static bool key_is(const char *key, size_t len, const char *want)
{
	return strlen(want) == len && memcmp(key, want, len) == 0;
}

static int read_number(struct pytorch *p, struct event_num *n)
{
	struct json_strict_span ignored;
	int kind = json_strict_scalar(&p->js, &n->value, &ignored);
	if (kind < 0)
		return -1;
	/* null says nothing; a string, a list, an object, true or false is no number */
	n->state = kind == 'n' ? NUM_ABSENT : kind == '0' && isfinite(n->value) ? NUM_GIVEN : NUM_BAD;
	return 0;
}

static int read_text(struct pytorch *p, struct json_strict_span *span, bool *has)
{
	double ignored;
	int kind = json_strict_scalar(&p->js, &ignored, span);
	*has = kind == '"';
	return kind < 0 ? -1 : 0;
}

/* "grid": [x, y, z]: each a count below 10^9, else 0. */
static int read_dims(struct pytorch *p, int out[3])
{
	if (json_strict_peek(&p->js) != '[')
		return json_strict_skip(&p->js);
	if (json_strict_array(&p->js))
		return -1;
	int r;
	for (int i = 0; (r = json_strict_next(&p->js)) == 1; i++) {
		struct event_num n = { 0 };
		if (i >= 3) {
			if (json_strict_skip(&p->js))
				return -1;
		} else {
			if (read_number(p, &n))
				return -1;
			out[i] = n.state == NUM_GIVEN && n.value >= 0 && n.value < 1e9 ? (int)n.value : 0;
		}
	}
	return r;
}

static int read_args(struct pytorch *p, struct event *ev)
{
	if (json_strict_peek(&p->js) != '{')
		return json_strict_skip(&p->js);
	if (json_strict_object(&p->js))
		return -1;
	const char *key;
	size_t len;
	int r;
	while ((r = json_strict_key(&p->js, &key, &len)) == 1) {
		int rc = key_is(key, len, "device")                 ? read_number(p, &ev->device)
			 : key_is(key, len, "External id")          ? read_number(p, &ev->external_id)
			 : key_is(key, len, "correlation")          ? read_number(p, &ev->correlation)
			 : key_is(key, len, "registers per thread") ? read_number(p, &ev->registers)
			 : key_is(key, len, "bytes")                ? read_number(p, &ev->bytes)
			 : key_is(key, len, "grid")                 ? read_dims(p, ev->grid)
			 : key_is(key, len, "block")                ? read_dims(p, ev->block)
								    : json_strict_skip(&p->js);
		if (rc)
			return -1;
	}
	return r;
}

/* ---- one event's records ---- */

__attribute__((format(printf, 2, 3))) static int event_fail(struct pytorch *p, const char *fmt, ...)
{
	char what[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return trace_fail(p->err, TRACE_BAD, "%ld:%ld: traceEvents[%ld]: %s", p->event_at.line, p->event_at.col,
			  p->event, what);
}

/* A string of the held event, decoded (into p->decoded when it has escapes). */
static const char *event_text(struct pytorch *p, const struct json_strict_span *span, size_t *len)
{
	size_t raw = (size_t)(span->end - span->start);
	if (span->escaped && raw > p->decoded_cap) {
		char *more = realloc(p->decoded, raw);
		if (!more)
			return NULL;
		p->decoded = more;
		p->decoded_cap = raw;
	}
	return json_strict_text(&p->js, span, p->decoded, len);
}

/* Whether a string the event has is want (decoded). */
static bool text_is(struct pytorch *p, bool has, const struct json_strict_span *span, const char *want)
{
	size_t len;
	const char *text = has ? event_text(p, span, &len) : NULL;
	return text && key_is(text, len, want);
}

/* The event's name, interned; NULL (not a string): "(unnamed)". */
static int intern_name(struct pytorch *p, const struct event *ev, int *index)
{
	size_t len = 0;
	const char *name = ev->has_name ? event_text(p, &ev->name, &len) : NULL;
	if (ev->has_name && !name)
		return trace_fail(p->err, TRACE_NOMEM, "out of memory (a name of %llu bytes)",
				  (unsigned long long)(ev->name.end - ev->name.start));
	return trace_intern(p->t, name, len, index, p->err);
}

/* The event's "dur" in whole nanoseconds: microseconds (Kineto writes 3
 * decimals), >= 0 and at most a day. 1: read; 0: absent; TRACE_BAD. */
static int event_duration(struct pytorch *p, const struct event *ev, const char *what, long long *ns)
{
	if (ev->dur.state == NUM_BAD)
		return event_fail(p, "%s: 'dur' is not a finite number", what);
	if (ev->dur.state == NUM_ABSENT)
		return 0;
	double dur = ev->dur.value;
	if (!(dur >= 0) || dur * 1e3 > (double)READ_MAX_TRACE_DURATION_NS)
		return event_fail(p, "%s: 'dur' %g us is not a duration (0 to a day)", what, dur);
	*ns = llround(dur * 1e3);
	return 1;
}

static int pytorch_kernel(struct pytorch *p, const struct event *ev)
{
	long long dur_ns;
	int got_ts = ev->ts.state, got_dur = event_duration(p, ev, "kernel", &dur_ns);
	if (got_dur < 0)
		return TRACE_BAD;
	double ts = ev->ts.value;
	if (got_ts < 0 || (got_ts && !(fabs(ts * 1e3) <= (double)READ_MAX_TRACE_TIMESTAMP_NS)))
		return event_fail(p, "kernel: 'ts' is not a time within +-2^61 ns");
	if (!got_ts || !got_dur)
		return 0; /* an instant or a marker: no interval to keep */
	struct trace_kernel *k;
	if (trace_new_kernel(p->t, &p->kernel_cap, &k, p->err) || intern_name(p, ev, &k->name))
		return p->err->code;
	k->start_ns = llround(ts * 1e3);
	k->end_ns = k->start_ns + dur_ns; /* both within 2^61 + a day: no overflow */
	char why[200];
	if (trace_check_interval(k->start_ns, k->end_ns, why, sizeof why))
		return event_fail(p, "kernel: %s", why);
	memcpy(k->grid, ev->grid, sizeof k->grid);
	memcpy(k->block, ev->block, sizeof k->block);
	double v = ev->registers.value;
	if (ev->registers.state == NUM_GIVEN && v >= 0 && v < 1e6)
		k->registers = (int)v;
	v = ev->correlation.value;
	if (ev->correlation.state == NUM_GIVEN && fabs(v) < 9e18)
		k->correlation = (long long)v;
	v = ev->device.value;
	if (ev->device.state == NUM_GIVEN) {
		if (!(v >= 0 && v <= 1e6 && v == floor(v)))
			return event_fail(p, "kernel: 'device' %g is not a device number", v);
		k->device = (int)v;
	}
	if (ev->external_id.state == NUM_GIVEN)
		k->external_id = ev->external_id.value;
	return 0;
}

static int pytorch_op(struct pytorch *p, const struct event *ev)
{
	if (!ev->has_name || ev->external_id.state != NUM_GIVEN)
		return 0;
	if (p->op_count == p->op_cap) {
		size_t cap = p->op_cap ? p->op_cap + p->op_cap / 2 : 1024;
		struct op_id *more = realloc(p->ops, cap * sizeof *more);
		if (!more)
			return trace_fail(p->err, TRACE_NOMEM, "out of memory (%zu operators read)", p->op_count);
		p->ops = more;
		p->op_cap = cap;
	}
	struct op_id *op = &p->ops[p->op_count++];
	op->id = ev->external_id.value;
	return intern_name(p, ev, &op->name);
}

/* The categories read; every other event is skipped. */
enum event_kind { EVENT_OTHER, EVENT_CPU_OP, EVENT_KERNEL, EVENT_RUNTIME, EVENT_DRIVER, EVENT_MEMCPY };
static const char *const event_kinds[] = { "", "cpu_op", "kernel", "cuda_runtime", "cuda_driver", "gpu_memcpy" };

static enum event_kind event_kind(struct pytorch *p, const struct event *ev)
{
	size_t len;
	const char *cat = ev->has_cat ? event_text(p, &ev->cat, &len) : NULL;
	for (int k = EVENT_CPU_OP; cat && k <= EVENT_MEMCPY; k++)
		if (key_is(cat, len, event_kinds[k]))
			return (enum event_kind)k;
	return EVENT_OTHER;
}

static int pytorch_event(struct pytorch *p, const struct event *ev)
{
	enum event_kind kind = event_kind(p, ev);
	if (kind == EVENT_CPU_OP)
		return pytorch_op(p, ev);
	if (kind == EVENT_OTHER || !text_is(p, ev->has_ph, &ev->ph, "X"))
		return 0;
	if (kind == EVENT_KERNEL)
		return pytorch_kernel(p, ev);
	const char *cat = event_kinds[kind];
	long long ns = 0;
	if (event_duration(p, ev, cat, &ns) < 0)
		return TRACE_BAD;
	size_t len = 0;
	const char *name = ev->has_name ? event_text(p, &ev->name, &len) : NULL;
	if (ev->has_name && !name)
		return trace_fail(p->err, TRACE_NOMEM, "out of memory");
	if (kind != EVENT_MEMCPY) {
		p->t->has_api = true;
		return trace_add_api(p->t, name, len, 1, ns, p->err);
	}
	if (ev->bytes.state == NUM_BAD)
		return event_fail(p, "%s: 'bytes' is not a finite number", cat);
	p->t->has_copies = true;
	int copy = !name ? 0 : memmem(name, len, "DtoH", 4) ? 2 : memmem(name, len, "HtoD", 4) ? 1 : 0;
	return trace_add_copy(p->t, copy, ev->bytes.state == NUM_GIVEN ? ev->bytes.value : 0, ns, p->err);
}

/* One element of "traceEvents": held in the window while its keys are read,
 * then made into records. -1: the strict reader failed (its reason in js.e);
 * else 0 or a TRACE_ code with why in err. */
static int read_event(struct pytorch *p)
{
	if (p->event >= p->t->limits.events)
		return trace_fail(p->err, TRACE_BAD, "more than %lld events, the limit of a trace",
				  p->t->limits.events);
	int c = json_strict_peek(&p->js);
	json_strict_where(&p->js, &p->event_at);
	if (c != '{')
		return json_strict_skip(&p->js) ? -1 : event_fail(p, "not an object (an event is one)");
	struct event ev = { .has_cat = false };
	json_strict_hold(&p->js);
	if (json_strict_object(&p->js))
		return -1;
	const char *key;
	size_t len;
	int r;
	while ((r = json_strict_key(&p->js, &key, &len)) == 1) {
		int rc = key_is(key, len, "ph")     ? read_text(p, &ev.ph, &ev.has_ph)
			 : key_is(key, len, "cat")  ? read_text(p, &ev.cat, &ev.has_cat)
			 : key_is(key, len, "name") ? read_text(p, &ev.name, &ev.has_name)
			 : key_is(key, len, "ts")   ? read_number(p, &ev.ts)
			 : key_is(key, len, "dur")  ? read_number(p, &ev.dur)
			 : key_is(key, len, "args") ? read_args(p, &ev)
						    : json_strict_skip(&p->js);
		if (rc)
			return -1;
	}
	if (r < 0)
		return -1;
	int rc = pytorch_event(p, &ev);
	json_strict_release(&p->js);
	return rc;
}

/* ---- the whole trace ---- */

static int cmp_op_id(const void *a, const void *b)
{
	double x = ((const struct op_id *)a)->id, y = ((const struct op_id *)b)->id;
	return (x > y) - (x < y);
}

/* Each kernel's operator, by its External id. */
static void resolve_ops(struct pytorch *p)
{
	bool sorted = true;
	for (size_t i = 1; i < p->op_count && sorted; i++)
		sorted = p->ops[i - 1].id <= p->ops[i].id;
	if (!sorted) /* qsort(NULL, 0) is undefined; most traces come in order */
		qsort(p->ops, p->op_count, sizeof *p->ops, cmp_op_id);
	for (int i = 0; i < p->t->kernel_count; i++) {
		struct trace_kernel *k = &p->t->kernels[i];
		struct op_id key = { k->external_id, 0 };
		const struct op_id *op = isnan(k->external_id) || !p->op_count
						 ? NULL
						 : bsearch(&key, p->ops, p->op_count, sizeof *p->ops, cmp_op_id);
		if (op)
			k->op = op->name;
	}
}

static int read_events(struct pytorch *p)
{
	if (json_strict_array(&p->js))
		return -1;
	int r;
	while ((r = json_strict_next(&p->js)) == 1) {
		int rc = read_event(p);
		if (rc)
			return rc;
		p->event++;
	}
	return r;
}

/* The document: an object whose "traceEvents" is a list of events; every
 * other value checked and skipped. */
static int read_trace(struct pytorch *p)
{
	if (json_strict_peek(&p->js) != '{')
		return json_strict_skip(&p->js) || json_strict_end(&p->js) ? -1 : 1;
	if (json_strict_object(&p->js))
		return -1;
	bool found = false;
	const char *key;
	size_t len;
	int r;
	while ((r = json_strict_key(&p->js, &key, &len)) == 1) {
		int rc;
		if (!found && key_is(key, len, "traceEvents") && json_strict_peek(&p->js) == '[') {
			found = true;
			rc = read_events(p);
		} else {
			rc = json_strict_skip(&p->js);
		}
		if (rc)
			return rc;
	}
	if (r < 0 || json_strict_end(&p->js))
		return -1;
	return found ? 0 : 1;
}

/* Reads p->js to its end: 0, or a TRACE_ code with why in err. */
static int read_stream(struct pytorch *p)
{
	int rc = read_trace(p);
	if (rc == -1 && p->js.failed) {
		char why[400];
		int code = app_json_error_text(&p->js.e, why, sizeof why);
		rc = trace_fail(p->err, code == EXIT_ENV ? TRACE_NOMEM : TRACE_BAD, "%s", why);
	} else if (rc == 1) {
		rc = trace_fail(p->err, TRACE_BAD,
				"JSON but not a trace: no \"traceEvents\" list (a PyTorch profiler trace is written by "
				"prof.export_chrome_trace(PATH))");
	} else if (rc == 0) {
		resolve_ops(p);
	}
	free(p->ops);
	free(p->decoded);
	json_strict_stream_close(&p->js);
	return rc;
}

static const struct json_strict_limits trace_limits_json = { .max_values = SIZE_MAX,
							     .max_depth = 32,
							     .max_open_keys = READ_MAX_JSON_OPEN_KEYS,
							     .what = "PyTorch trace",
							     .max_held_bytes = READ_MAX_TRACE_EVENT_BYTES };

int trace_load_pytorch(const char *text, size_t len, struct trace *t, struct trace_err *err)
{
	struct pytorch p = { .t = t, .err = err };
	json_strict_stream_text(&p.js, &trace_limits_json, text, len);
	return read_stream(&p);
}

/* ---- a file or standard input, in chunks ---- */

struct source {
	int fd;
	const char *path;
	bool from_stdin, first;
	const char *chunk_text; /* a text in memory read in chunks (the fuzz harness) */
	size_t chunk, chunk_len, chunk_at;
	unsigned long long bytes;
	int error_number;
	enum { SOURCE_OK, SOURCE_IO, SOURCE_TOO_BIG, SOURCE_SQLITE } problem;
};

static long read_source(void *ctx, char *buf, size_t cap)
{
	struct source *src = ctx;
	size_t got = 0;
	if (src->chunk_text) {
		got = src->chunk_len - src->chunk_at;
		got = got < cap ? got : cap;
		got = got < src->chunk ? got : src->chunk;
		memcpy(buf, src->chunk_text + src->chunk_at, got);
		src->chunk_at += got;
		return (long)got;
	}
	/* The first read takes 16 bytes at least (or the whole text), so that
	 * an SQLite header on standard input is told. */
	size_t want = src->first ? 16 : 1;
	while (got < want) {
		ssize_t n = read(src->fd, buf + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			src->error_number = errno;
			src->problem = SOURCE_IO;
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (src->first && src->from_stdin && got >= 16 && memcmp(buf, "SQLite format 3", 16) == 0) {
		src->problem = SOURCE_SQLITE;
		return -1;
	}
	src->first = false;
	src->bytes += got;
	if (src->bytes > READ_MAX_TRACE_JSON_BYTES) {
		src->problem = SOURCE_TOO_BIG;
		return -1;
	}
	return (long)got;
}

/* Opens path ("-": standard input) as app_read_file would read it: a file
 * or a pipe, no terminal, within READ_MAX_TRACE_JSON_BYTES. */
static int open_source(struct source *src, const char *path, struct app_status *st)
{
	*src = (struct source){ .path = path, .from_stdin = strcmp(path, "-") == 0, .first = true };
	src->fd = src->from_stdin ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (src->fd < 0) {
		app_error(st, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	struct stat sb;
	const char *problem = NULL;
	if (fstat(src->fd, &sb) != 0)
		problem = strerror(errno);
	else if (S_ISDIR(sb.st_mode))
		problem = strerror(EISDIR);
	if (problem)
		app_error(st, "cannot read '%s': %s", path, problem);
	else if (src->from_stdin && isatty(src->fd))
		app_error(st,
			  "cannot read '%s': a terminal (pipe or redirect a file into it), not a regular file (a "
			  "PyTorch trace is read from a file)",
			  path);
	else if (!src->from_stdin && !S_ISREG(sb.st_mode))
		app_error(st, "cannot read '%s': %s, not a regular file (a PyTorch trace is read from a file)", path,
			  hwdb_file_type_name((unsigned)sb.st_mode));
	else if (S_ISREG(sb.st_mode) && (unsigned long long)sb.st_size > READ_MAX_TRACE_JSON_BYTES)
		app_error(st, "'%s' is larger than %zu bytes: not a PyTorch trace", path,
			  (size_t)READ_MAX_TRACE_JSON_BYTES);
	else
		return 0;
	close(src->fd);
	return -1;
}

static int load_source(struct source *src, struct trace *t, struct trace_err *err, struct app_status *st, size_t window)
{
	struct pytorch p = { .t = t, .err = err };
	if (json_strict_stream_open(&p.js, &trace_limits_json, read_source, src, window)) {
		json_strict_stream_close(&p.js);
		return trace_fail(err, TRACE_NOMEM, "out of memory");
	}
	int rc = read_stream(&p);
	if (src->problem == SOURCE_SQLITE)
		return trace_fail(err, TRACE_BAD, "an nsys SQLite export is read from a file, not standard input");
	if (src->problem == SOURCE_IO)
		app_error(st, "cannot read '%s': %s", src->path, strerror(src->error_number));
	else if (src->problem == SOURCE_TOO_BIG)
		app_error(st, "'%s' is larger than %zu bytes: not a PyTorch trace", src->path,
			  (size_t)READ_MAX_TRACE_JSON_BYTES);
	return src->problem == SOURCE_OK ? rc : TRACE_SAID;
}

int trace_load_pytorch_file(const char *path, struct trace *t, struct trace_err *err, struct app_status *st)
{
	struct source src;
	if (open_source(&src, path, st))
		return TRACE_SAID;
	int rc = load_source(&src, t, err, st, TRACE_WINDOW_BYTES);
	close(src.fd);
	return rc;
}

int trace_load_pytorch_chunks(const char *text, size_t len, size_t chunk, struct trace *t, struct trace_err *err,
			      struct app_status *st)
{
	struct source src = { .path = "(text)", .chunk_text = text, .chunk_len = len, .chunk = chunk ? chunk : 1 };
	return load_source(&src, t, err, st, chunk);
}
