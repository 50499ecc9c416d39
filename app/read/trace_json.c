/* PyTorch profiler Chrome traces (torch.profiler's export_chrome_trace with
 * ProfilerActivity.CUDA: "kernel", "cuda_runtime"/"cuda_driver",
 * "gpu_memcpy" and "cpu_op" events joined by External id), read in two
 * steps so that memory stays the text plus the records kept (issue 31): the
 * strict reader checks the whole text once (grammar, duplicate keys,
 * trailing text, UTF-8), then each event of "traceEvents" is parsed alone
 * with cJSON and freed. A whole-document parse cost ~100 bytes a value: a
 * 1M-event trace took 2.1 GB, 100 MB of zeros 4 GB. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "json_strict.h"
#include "read_limits.h"
#include "trace_internal.h"

struct op_id {
	double id;
	int name;
};

struct pytorch {
	const char *text;
	size_t len;
	struct trace *t;
	struct trace_err *err;
	int kernel_cap;
	struct op_id *ops; /* cpu_op events by External id, sorted at the end */
	size_t op_count, op_cap;
	long event; /* the event being read, 0-based */
	size_t event_at;
	int rc; /* what the last event gave (its reason in err) */
};

/* ---- walking the checked text ---- */

static size_t skip_space(const char *s, size_t len, size_t i)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

/* The end of the value at s[i] (checked JSON: brackets balance, strings close). */
static size_t skip_value(const char *s, size_t len, size_t i)
{
	int depth = 0;
	do {
		char c = s[i];
		if (c == '"') {
			for (i++; i < len && s[i] != '"'; i++)
				if (s[i] == '\\')
					i++;
			i++;
		} else if (c == '{' || c == '[') {
			depth++;
			i++;
		} else if (c == '}' || c == ']') {
			depth--;
			i++;
		} else if (depth == 0) {
			while (i < len && !strchr(",}] \t\n\r", s[i]))
				i++;
		} else {
			i++;
		}
	} while (depth > 0 && i < len);
	return i;
}

/* The position of the value of the top-level key, or 0 when absent. */
static size_t top_level_value(const char *s, size_t len, const char *key)
{
	size_t key_len = strlen(key), i = skip_space(s, len, 0) + 1;
	for (;;) {
		i = skip_space(s, len, i);
		if (i >= len || s[i] != '"')
			return 0;
		size_t start = i + 1, end = skip_value(s, len, i) - 1;
		i = skip_space(s, len, end + 1) + 1; /* past ':' */
		i = skip_space(s, len, i);
		if (end - start == key_len && memcmp(s + start, key, key_len) == 0)
			return i;
		i = skip_space(s, len, skip_value(s, len, i));
		if (i >= len || s[i] != ',')
			return 0;
		i++;
	}
}

/* ---- one event ---- */

__attribute__((format(printf, 2, 3))) static int event_fail(struct pytorch *p, const char *fmt, ...)
{
	int line, col;
	json_strict_position(p->text, p->len, p->event_at, &line, &col);
	char what[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return trace_fail(p->err, TRACE_BAD, "%d:%d: traceEvents[%ld]: %s", line, col, p->event, what);
}

static const char *json_text(const cJSON *o, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

/* 1: key holds a finite number (in *out); 0: absent; -1: present, not one. */
static int json_num(const cJSON *o, const char *key, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
		return -1;
	*out = v->valuedouble;
	return 1;
}

static void json_dim3(const cJSON *args, const char *key, int out[3])
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(args, key);
	for (int i = 0; i < 3; i++) {
		const cJSON *v = cJSON_GetArrayItem(a, i);
		out[i] = cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e9 ? (int)v->valuedouble : 0;
	}
}

/* An event's "dur" in whole nanoseconds: microseconds (Kineto writes 3
 * decimals), >= 0 and at most a day. 1: read; 0: absent; TRACE_BAD. */
static int event_duration(struct pytorch *p, const cJSON *e, const char *what, long long *ns)
{
	double dur;
	int got = json_num(e, "dur", &dur);
	if (got < 0)
		return event_fail(p, "%s: 'dur' is not a finite number", what);
	if (got == 0)
		return 0;
	if (!(dur >= 0) || dur * 1e3 > (double)READ_MAX_TRACE_DURATION_NS)
		return event_fail(p, "%s: 'dur' %g us is not a duration (0 to a day)", what, dur);
	*ns = llround(dur * 1e3);
	return 1;
}

static int pytorch_kernel(struct pytorch *p, const cJSON *e)
{
	double ts;
	long long dur_ns;
	int got_ts = json_num(e, "ts", &ts), got_dur = event_duration(p, e, "kernel", &dur_ns);
	if (got_dur < 0)
		return TRACE_BAD;
	if (got_ts < 0 || (got_ts && !(fabs(ts * 1e3) <= (double)READ_MAX_TRACE_TIMESTAMP_NS)))
		return event_fail(p, "kernel: 'ts' is not a time within +-2^61 ns");
	if (!got_ts || !got_dur)
		return 0; /* an instant or a marker: no interval to keep */
	struct trace_kernel *k;
	if (trace_new_kernel(p->t, &p->kernel_cap, &k, p->err))
		return TRACE_BAD;
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
	const char *name = json_text(e, "name");
	if (trace_intern(p->t, name, name ? strlen(name) : 0, &k->name, p->err))
		return TRACE_BAD;
	k->start_ns = llround(ts * 1e3);
	k->end_ns = k->start_ns + dur_ns; /* both within 2^61 + a day: no overflow */
	char why[200];
	if (trace_check_interval(k->start_ns, k->end_ns, why, sizeof why))
		return event_fail(p, "kernel: %s", why);
	json_dim3(args, "grid", k->grid);
	json_dim3(args, "block", k->block);
	double v;
	if (json_num(args, "registers per thread", &v) == 1 && v >= 0 && v < 1e6)
		k->registers = (int)v;
	if (json_num(args, "correlation", &v) == 1 && fabs(v) < 9e18)
		k->correlation = (long long)v;
	if (json_num(args, "device", &v) == 1) {
		if (!(v >= 0 && v <= 1e6 && v == floor(v)))
			return event_fail(p, "kernel: 'device' %g is not a device number", v);
		k->device = (int)v;
	}
	if (json_num(args, "External id", &v) == 1)
		k->external_id = v;
	return 0;
}

static int pytorch_op(struct pytorch *p, const cJSON *e)
{
	double id;
	const char *name = json_text(e, "name");
	if (!name || json_num(cJSON_GetObjectItemCaseSensitive(e, "args"), "External id", &id) != 1)
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
	op->id = id;
	return trace_intern(p->t, name, strlen(name), &op->name, p->err);
}

static int pytorch_event(struct pytorch *p, const cJSON *e)
{
	const char *cat = json_text(e, "cat"), *ph = json_text(e, "ph");
	if (cat && strcmp(cat, "cpu_op") == 0)
		return pytorch_op(p, e);
	if (!cat || !ph || strcmp(ph, "X") != 0)
		return 0;
	if (strcmp(cat, "kernel") == 0)
		return pytorch_kernel(p, e);
	bool api = strcmp(cat, "cuda_runtime") == 0 || strcmp(cat, "cuda_driver") == 0;
	bool copy = strcmp(cat, "gpu_memcpy") == 0;
	if (!api && !copy)
		return 0;
	long long ns = 0;
	if (event_duration(p, e, cat, &ns) < 0)
		return TRACE_BAD;
	if (api) {
		p->t->has_api = true;
		return trace_add_api(p->t, json_text(e, "name"), 1, ns, p->err);
	}
	const char *name = json_text(e, "name");
	double bytes = 0;
	if (json_num(cJSON_GetObjectItemCaseSensitive(e, "args"), "bytes", &bytes) < 0)
		return event_fail(p, "%s: 'bytes' is not a finite number", cat);
	p->t->has_copies = true;
	int kind = !name ? 0 : strstr(name, "DtoH") ? 2 : strstr(name, "HtoD") ? 1 : 0;
	return trace_add_copy(p->t, kind, bytes, ns, p->err);
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
	if (p->op_count > 1) /* qsort(NULL, 0) is undefined */
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

/* One element of "traceEvents", checked by the strict reader: parsed alone. */
static int read_event(void *ctx, size_t start, size_t end, char *why, size_t why_len)
{
	struct pytorch *p = ctx;
	p->event_at = start;
	if (p->event >= READ_MAX_TRACE_EVENTS)
		p->rc = trace_fail(p->err, TRACE_BAD, "more than %ld events, the limit of a trace",
				   READ_MAX_TRACE_EVENTS);
	else if (p->text[start] != '{')
		p->rc = event_fail(p, "not an object (an event is one)");
	else {
		cJSON *e = cJSON_ParseWithLength(p->text + start, end - start);
		p->rc = e ? pytorch_event(p, e)
			  : trace_fail(p->err, TRACE_NOMEM, "out of memory reading event %ld", p->event);
		cJSON_Delete(e);
	}
	p->event++;
	if (p->rc)
		snprintf(why, why_len, "%s", p->err->text);
	return p->rc;
}

int trace_load_pytorch(const char *text, size_t len, struct trace *t, struct trace_err *err)
{
	/* No cJSON document of the whole: each event is parsed alone, as soon as
	 * the strict reader has checked it, so a file of no events (100 MB of
	 * zeros) is refused at its first. */
	struct pytorch p = { .text = text, .len = len, .t = t, .err = err };
	struct json_strict_limits lim = { .max_values = SIZE_MAX,
					  .max_depth = 32,
					  .max_open_keys = READ_MAX_JSON_OPEN_KEYS,
					  .what = "PyTorch trace",
					  .element_key = "traceEvents",
					  .element_fn = read_event,
					  .element_ctx = &p };
	struct json_strict_error e;
	int rc = 0;
	if (json_strict_check(text, len, &lim, &e)) {
		if (p.rc) {
			rc = p.rc;
		} else {
			char why[400];
			int code = app_json_error_text(text, len, &e, why, sizeof why);
			rc = trace_fail(err, code == EXIT_ENV ? TRACE_NOMEM : TRACE_BAD, "%s", why);
		}
	} else {
		size_t events = text[skip_space(text, len, 0)] == '{' ? top_level_value(text, len, "traceEvents") : 0;
		if (!events || text[events] != '[')
			rc = trace_fail(err, TRACE_BAD,
					"JSON but not a trace: no \"traceEvents\" list (a PyTorch profiler trace is "
					"written by prof.export_chrome_trace(PATH))");
		else
			resolve_ops(&p);
	}
	free(p.ops);
	return rc;
}
