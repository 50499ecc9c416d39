/* trace_load and trace_summarize (app/read/trace.h): the records both
 * formats share, their one validation, and the summary. The formats are
 * trace_nsys.c (SQLite) and trace_json.c (PyTorch). */
#include "trace.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app.h"
#include "read_limits.h"
#include "trace_internal.h"

int trace_fail(struct trace_err *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->text, err->len, fmt, ap);
	va_end(ap);
	err->code = code;
	return code;
}

int trace_new_kernel(struct trace *t, int *cap, struct trace_kernel **k, struct trace_err *err)
{
	if (t->kernel_count >= t->limits.kernels)
		return trace_fail(err, TRACE_BAD, "more than %lld kernels, the limit of a trace (util/read_limits.h)",
				  t->limits.kernels);
	if (t->kernel_count == *cap) {
		/* 1.5x: the slack a growth leaves is half the records, not all
		 * (and trace_finish gives it back). */
		int grown = *cap ? *cap + *cap / 2 : 1024;
		if (grown > t->limits.kernels)
			grown = (int)t->limits.kernels;
		struct trace_kernel *more = realloc(t->kernels, (size_t)grown * sizeof *more);
		if (!more)
			return trace_fail(err, TRACE_NOMEM, "out of memory (%d kernels read)", t->kernel_count);
		t->kernels = more;
		*cap = grown;
	}
	*k = &t->kernels[t->kernel_count++];
	**k = (struct trace_kernel){ .op = -1, .external_id = NAN };
	return 0;
}

/* Whether text_line_copy would copy name as it is: printable ASCII that fits. */
static bool plain_name(const char *name, size_t len)
{
	if (len >= TRACE_NAME)
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)name[i] < 0x20 || (unsigned char)name[i] > 0x7e)
			return false;
	return true;
}

static int intern_into(struct name_table *names, const char *name, size_t len, int *index, struct trace_err *err)
{
	char clean[TRACE_NAME];
	if (!name) {
		name = "(unnamed)";
		len = strlen(name);
	}
	int i;
	if (plain_name(name, len)) { /* the common case: no copy */
		i = name_table_intern(names, name, len);
	} else {
		text_line_copy(clean, sizeof clean, name, len);
		i = name_table_intern(names, clean, strlen(clean));
	}
	if (i == NAME_TABLE_FULL)
		return trace_fail(err, TRACE_BAD, "more than %d distinct names, the limit of a trace",
				  names->max_names);
	if (i < 0)
		return trace_fail(err, TRACE_NOMEM, "out of memory (%d names read)", names->count);
	*index = i;
	return 0;
}

int trace_intern(struct trace *t, const char *name, size_t len, int *index, struct trace_err *err)
{
	return intern_into(&t->names, name, len, index, err);
}

int trace_add_ns(long long *sum, long long v, const char *what, struct trace_err *err)
{
	if (__builtin_add_overflow(*sum, v, sum))
		return trace_fail(err, TRACE_BAD, "%s add up past 2^63 ns (292 years): not a profile", what);
	return 0;
}

int trace_check_interval(long long start_ns, long long end_ns, char *why, size_t why_len)
{
	const long long limit = READ_MAX_TRACE_TIMESTAMP_NS;
	if (start_ns < -limit || start_ns > limit || end_ns < -limit || end_ns > limit) {
		snprintf(why, why_len, "a timestamp past +-2^61 ns (start %lld, end %lld)", start_ns, end_ns);
		return TRACE_BAD;
	}
	if (end_ns < start_ns) {
		snprintf(why, why_len, "ends %lld ns before it starts (start %lld, end %lld)", start_ns - end_ns,
			 start_ns, end_ns);
		return TRACE_BAD;
	}
	if (end_ns - start_ns > READ_MAX_TRACE_DURATION_NS) {
		snprintf(why, why_len, "lasts %.4g s, more than a day: not one GPU or API call",
			 (double)(end_ns - start_ns) / 1e9);
		return TRACE_BAD;
	}
	return 0;
}

/* nsys names runtime calls with their ABI version: cudaLaunchKernel_v7000. */
static void api_base_name(const char *name, size_t name_len, char *out, size_t len)
{
	text_line_copy(out, len, name ? name : "", name ? name_len : 0);
	char *v = strstr(out, "_v");
	if (v && isdigit((unsigned char)v[2])) {
		char *p = v + 2;
		while (isdigit((unsigned char)*p))
			p++;
		if (*p == '\0')
			*v = '\0';
	}
}

int trace_add_api(struct trace *t, const char *raw_name, size_t len, long long calls, long long ns,
		  struct trace_err *err)
{
	char name[sizeof t->apis[0].name];
	api_base_name(raw_name, len, name, sizeof name);
	int count = t->api_names.count, i;
	int rc = intern_into(&t->api_names, name, strlen(name), &i, err);
	if (rc)
		return rc;
	if (i == count) { /* new: grown by doubling (at most READ_MAX_TRACE_NAMES) */
		if ((count & (count - 1)) == 0) {
			struct trace_api *a = realloc(t->apis, (size_t)(count ? count * 2 : 1) * sizeof *a);
			if (!a)
				return trace_fail(err, TRACE_NOMEM, "out of memory");
			t->apis = a;
		}
		t->apis[i] = (struct trace_api){ .calls = 0 };
		snprintf(t->apis[i].name, sizeof t->apis[i].name, "%s", name);
		t->api_count = count + 1;
	}
	if (__builtin_add_overflow(t->apis[i].calls, calls, &t->apis[i].calls))
		return trace_fail(err, TRACE_BAD, "more than 2^63 calls of %s", name);
	return trace_add_ns(&t->apis[i].total_ns, ns, "the host API times", err);
}

int trace_add_copy(struct trace *t, int kind, double bytes, long long ns, struct trace_err *err)
{
	struct trace_copies *c = kind == 1 ? &t->htod : kind == 2 ? &t->dtoh : NULL;
	if (!c)
		return 0;
	if (!isfinite(bytes) || bytes < 0 || bytes > 1e18)
		return trace_fail(err, TRACE_BAD, "a copy of %g bytes: not a size", bytes);
	c->count++;
	c->bytes += bytes;
	return trace_add_ns(&c->total_ns, ns, "the copy times", err);
}

static int cmp_api(const void *a, const void *b)
{
	long long x = ((const struct trace_api *)a)->total_ns, y = ((const struct trace_api *)b)->total_ns;
	return (x < y) - (x > y);
}

static int cmp_kernel(const void *a, const void *b)
{
	const struct trace_kernel *x = a, *y = b;
	if (x->device != y->device)
		return (x->device > y->device) - (x->device < y->device);
	return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

/* The records as one: kernels by device and start, APIs by total; the
 * kernels' durations summed once, checked, so no later sum can overflow. */
static int trace_finish(struct trace *t, struct trace_err *err)
{
	bool sorted = true; /* most traces come in order: no sort, and none of its scratch memory */
	for (int i = 1; i < t->kernel_count && sorted; i++)
		sorted = cmp_kernel(&t->kernels[i - 1], &t->kernels[i]) <= 0;
	if (!sorted) /* qsort(NULL, 0) is undefined (UBSan) */
		qsort(t->kernels, (size_t)t->kernel_count, sizeof *t->kernels, cmp_kernel);
	struct trace_kernel *fitted = realloc(t->kernels, (size_t)t->kernel_count * sizeof *fitted);
	if (fitted) /* the slack of the last growth back (the summary comes next) */
		t->kernels = fitted;
	long long sum = 0;
	t->device_count = 0;
	for (int i = 0; i < t->kernel_count; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		if (trace_add_ns(&sum, k->end_ns - k->start_ns, "the kernels' durations", err))
			return TRACE_BAD;
		if (i == 0 || k->device != k[-1].device)
			t->device_count++;
	}
	if (t->api_count > 1)
		qsort(t->apis, (size_t)t->api_count, sizeof *t->apis, cmp_api);
	name_table_free(&t->api_names); /* the order changed: the names are in apis */
	return 0;
}

/* The first bytes say the format: SQLite's header, else JSON's '{'. */
static int trace_sniff(const char *path, char head[16], size_t *got, char *err, size_t err_len)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return app_fail_text(err, err_len, "cannot open '%s': %s", path, strerror(errno));
	/* A FIFO or a device would block or stream forever: regular files only. */
	if (!S_ISREG(st.st_mode))
		return app_fail_text(err, err_len,
				     "cannot read '%s': %s, not a regular file (a trace is read from a file)", path,
				     hwdb_file_type_name(st.st_mode));
	FILE *f = fopen(path, "rb");
	if (!f)
		return app_fail_text(err, err_len, "cannot open '%s': %s", path, strerror(errno));
	*got = fread(head, 1, 16, f);
	int read_errno = ferror(f) ? errno : 0;
	fclose(f);
	if (read_errno)
		return app_fail_text(err, err_len, "cannot read '%s': %s", path, strerror(read_errno));
	return 0;
}

/* RIDGE_TEST_LIMITS ("trace_kernels=1000,sqlite_heap=8388608"): lower
 * limits for the tests that must reach them within 2 s and 256 MB (tests/
 * README.md). It can only lower a limit: a value above util/read_limits.h's
 * is refused. */
static int trace_limits_read(struct trace_limits *lim, struct app_status *st)
{
	*lim = (struct trace_limits){ .kernels = READ_MAX_TRACE_KERNELS,
				      .names = READ_MAX_TRACE_NAMES,
				      .events = READ_MAX_TRACE_EVENTS,
				      .sqlite_steps = LLONG_MAX,
				      .sqlite_heap = READ_TRACE_SQLITE_HEAP_BYTES };
	const struct {
		const char *name;
		long long *value;
	} rows[] = { { "trace_kernels", &lim->kernels },
		     { "trace_names", &lim->names },
		     { "trace_events", &lim->events },
		     { "sqlite_steps", &lim->sqlite_steps },
		     { "sqlite_heap", &lim->sqlite_heap } };
	const char *env = getenv("RIDGE_TEST_LIMITS");
	for (const char *at = env; at && *at;) {
		size_t len = strcspn(at, ","), eq = strcspn(at, "=");
		char *end = NULL;
		long long v = eq < len ? strtoll(at + eq + 1, &end, 10) : 0;
		size_t i = 0;
		while (i < sizeof rows / sizeof rows[0] &&
		       !(strlen(rows[i].name) == eq && !strncmp(at, rows[i].name, eq)))
			i++;
		if (eq >= len || end != at + len || v < 1 || i == sizeof rows / sizeof rows[0]) {
			app_error(st,
				  "RIDGE_TEST_LIMITS: '%.*s' is not LIMIT=N with N >= 1 (limits: trace_kernels, "
				  "trace_names, trace_events, sqlite_steps, sqlite_heap)",
				  (int)len, at);
			return -1;
		}
		if (v > *rows[i].value) {
			app_error(st,
				  "RIDGE_TEST_LIMITS: %s=%lld is above ridge's own limit %lld (it only lowers limits)",
				  rows[i].name, v, *rows[i].value);
			return -1;
		}
		*rows[i].value = v;
		at += len + (at[len] == ',');
	}
	return 0;
}

/* An empty trace read under its limits. */
static int trace_init(struct trace *t, enum trace_format format, struct app_status *st)
{
	memset(t, 0, sizeof *t);
	t->format = format;
	if (trace_limits_read(&t->limits, st))
		return -1;
	name_table_init(&t->names, (int)t->limits.names);
	name_table_init(&t->api_names, (int)t->limits.names);
	return 0;
}

static int trace_read(const char *path, struct trace *t, char *err, size_t err_len, struct app_status *status)
{
	char head[16] = { 0 };
	size_t got = 0;
	bool from_stdin = strcmp(path, "-") == 0; /* standard input: a PyTorch trace (SQLite needs a file) */
	memset(t, 0, sizeof *t);
	err[0] = '\0';
	if (!from_stdin && trace_sniff(path, head, &got, err, err_len))
		return TRACE_BAD;
	bool sqlite = !from_stdin && got == 16 && memcmp(head, "SQLite format 3", 16) == 0;
	if (trace_init(t, sqlite ? TRACE_NSYS_SQLITE : TRACE_PYTORCH_JSON, status))
		return TRACE_BAD; /* said */
	char why[600];
	struct trace_err e = { why, sizeof why, 0 };
	int rc;
	if (sqlite) {
		struct stat st;
		rc = trace_load_nsys(path, stat(path, &st) == 0 ? (long long)st.st_size : 0, t, &e);
	} else {
		size_t i = 0;
		while (i < got && isspace((unsigned char)head[i]))
			i++;
		if (!from_stdin && (i == got || head[i] != '{')) {
			snprintf(err, err_len,
				 "'%s': not an nsys SQLite export (nsys export --type sqlite) or a PyTorch profiler "
				 "trace (JSON)",
				 path);
			trace_free(t);
			return TRACE_BAD;
		}
		rc = trace_load_pytorch_file(path, t, &e, status);
		if (rc == TRACE_SAID) {
			trace_free(t);
			return TRACE_BAD; /* said in status, as app_read_file says it */
		}
	}
	if (rc == 0 && t->kernel_count == 0) {
		snprintf(why, sizeof why, "no CUDA kernels in the trace (%s)",
			 t->format == TRACE_NSYS_SQLITE
				 ? "profile with nsys profile --trace=cuda"
				 : "profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]");
		rc = TRACE_BAD;
	}
	if (rc == 0)
		rc = trace_finish(t, &e);
	if (rc != 0) {
		snprintf(err, err_len, "'%s': %s", path, why);
		trace_free(t);
		if (e.code)
			rc = e.code; /* out of memory said so, wherever it arose */
	}
	return rc;
}

int trace_parse_pytorch(const char *name, const char *text, size_t len, size_t chunk, struct trace *t,
			struct app_status *st)
{
	if (trace_init(t, TRACE_PYTORCH_JSON, st))
		return -1;
	char why[600];
	struct trace_err e = { why, sizeof why, 0 };
	int rc = chunk ? trace_load_pytorch_chunks(text, len, chunk, t, &e, st) : trace_load_pytorch(text, len, t, &e);
	if (rc == 0 && t->kernel_count == 0)
		rc = trace_fail(&e, TRACE_BAD, "no CUDA kernels in the trace");
	if (rc == 0)
		rc = trace_finish(t, &e);
	if (rc == 0)
		return 0;
	if (e.code == TRACE_NOMEM)
		app_error_env(st, "'%s': %s", name, why);
	else
		app_error(st, "'%s': %s", name, why);
	trace_free(t);
	return -1;
}

void trace_free(struct trace *t)
{
	free(t->kernels);
	free(t->apis);
	name_table_free(&t->names);
	name_table_free(&t->api_names);
	t->kernels = NULL;
	t->apis = NULL;
	t->kernel_count = t->api_count = 0;
}

double trace_kernel_seconds(const struct trace_kernel *k)
{
	return (double)(k->end_ns - k->start_ns) / 1e9;
}

const char *trace_kernel_name(const struct trace *t, const struct trace_kernel *k)
{
	return name_table_name(&t->names, k->name);
}

const char *trace_kernel_op(const struct trace *t, const struct trace_kernel *k)
{
	return k->op >= 0 ? name_table_name(&t->names, k->op) : "";
}

const char *trace_format_name(enum trace_format format)
{
	return format == TRACE_NSYS_SQLITE ? "nsys SQLite export" : "PyTorch profiler trace";
}

/* ---- summary ---- */

static int cmp_group(const void *a, const void *b)
{
	double x = ((const struct trace_kernel_group *)a)->total_s, y = ((const struct trace_kernel_group *)b)->total_s;
	return (x < y) - (x > y);
}

static bool same_shape(const struct trace_kernel *a, const struct trace_kernel *b)
{
	return memcmp(a->grid, b->grid, sizeof a->grid) == 0 && memcmp(a->block, b->block, sizeof a->block) == 0 &&
	       a->registers == b->registers;
}

static double ns_to_s(long long ns)
{
	return (double)ns / 1e9;
}

/* Host API totals by what they are: launches, allocations, synchronizations
 * (each total is at most the checked sum of its API's). */
static void summarize_api(const struct trace *t, struct trace_summary *s)
{
	double launch = 0, malloc_ns = 0, sync = 0;
	for (int i = 0; i < t->api_count; i++) {
		const struct trace_api *a = &t->apis[i];
		if (strstr(a->name, "LaunchKernel") || strstr(a->name, "LaunchCooperativeKernel")) {
			s->launches += a->calls;
			launch += (double)a->total_ns;
		} else if (strncmp(a->name, "cudaMalloc", 10) == 0 || strncmp(a->name, "cuMemAlloc", 10) == 0) {
			s->mallocs += a->calls;
			malloc_ns += (double)a->total_ns;
		} else if (strstr(a->name, "Synchronize")) {
			s->syncs += a->calls;
			sync += (double)a->total_ns;
		}
	}
	s->launch_s = launch / 1e9;
	s->malloc_s = malloc_ns / 1e9;
	s->sync_s = sync / 1e9;
}

/* Kernels by name: one pass, each kernel's group found by its name's index
 * (names are interned), totals in nanoseconds (bounded by the checked sum). */
static int summarize_groups(const struct trace *t, struct trace_summary *s)
{
	int names = t->names.count;
	/* A group a distinct kernel name: at most names (1M kernels of 4 names are 4 groups, not 1M). */
	size_t most = (size_t)(names < t->kernel_count ? names : t->kernel_count);
	int *group_of = malloc((size_t)(names ? names : 1) * sizeof *group_of);
	long long *total = calloc(most ? most : 1, sizeof *total);
	s->groups = calloc(most ? most : 1, sizeof *s->groups);
	if (!s->groups || !total || !group_of) {
		free(total);
		free(group_of);
		return -1;
	}
	for (int i = 0; i < names; i++)
		group_of[i] = -1;
	for (int i = 0; i < t->kernel_count; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		long long d = k->end_ns - k->start_ns;
		int j = group_of[k->name];
		if (j < 0) {
			j = group_of[k->name] = s->group_count++;
			s->groups[j] = (struct trace_kernel_group){ .name = trace_kernel_name(t, k),
								    .op = trace_kernel_op(t, k),
								    .min_s = ns_to_s(d),
								    .max_s = ns_to_s(d),
								    .first = k };
		}
		struct trace_kernel_group *g = &s->groups[j];
		g->calls++;
		total[j] += d;
		g->min_s = fmin(g->min_s, ns_to_s(d));
		g->max_s = fmax(g->max_s, ns_to_s(d));
		g->shape_varies |= !same_shape(g->first, k);
		if (!g->op[0])
			g->op = trace_kernel_op(t, k);
	}
	for (int j = 0; j < s->group_count; j++)
		s->groups[j].total_s = ns_to_s(total[j]);
	free(total);
	free(group_of);
	if (s->group_count > 1) /* qsort(NULL, 0) is undefined */
		qsort(s->groups, (size_t)s->group_count, sizeof *s->groups, cmp_group);
	return 0;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

/* One device's kernels, k[0..n) in start order: the busy time is the union of
 * their intervals, a gap any stretch after the latest end so far. */
static void summarize_device(const struct trace_kernel *k, int n, struct trace_summary *s, long long *gaps,
			     long long *busy, long long *idle, long long *last_end)
{
	long long busy_end = k[0].end_ns;
	*busy += busy_end - k[0].start_ns;
	for (int i = 1; i < n; i++) {
		if (k[i].start_ns > busy_end) {
			gaps[s->gaps++] = k[i].start_ns - busy_end;
			*idle += k[i].start_ns - busy_end;
			*busy += k[i].end_ns - k[i].start_ns;
			busy_end = k[i].end_ns;
		} else if (k[i].end_ns > busy_end) {
			*busy += k[i].end_ns - busy_end;
			busy_end = k[i].end_ns;
		}
	}
	if (busy_end > *last_end)
		*last_end = busy_end;
}

int trace_summarize(const struct trace *t, struct trace_summary *s)
{
	memset(s, 0, sizeof *s);
	if (t->kernel_count == 0)
		return 0;
	long long *gaps = malloc((size_t)t->kernel_count * sizeof *gaps);
	if (!gaps || summarize_groups(t, s) != 0) {
		free(gaps);
		trace_summary_free(s);
		return -1;
	}
	/* Each device's busy time is at most its kernels' summed durations and
	 * each idle stretch at most 2^62 apart (timestamps within +-2^61), so
	 * with the checked kernel sum no total here overflows... except idle
	 * summed over many devices, kept in double. */
	long long busy = 0, kernel = 0, first_start = t->kernels[0].start_ns, last_end = t->kernels[0].end_ns;
	double idle = 0;
	for (int a = 0, b; a < t->kernel_count; a = b) {
		for (b = a; b < t->kernel_count && t->kernels[b].device == t->kernels[a].device; b++)
			kernel += t->kernels[b].end_ns - t->kernels[b].start_ns;
		if (t->kernels[a].start_ns < first_start)
			first_start = t->kernels[a].start_ns;
		long long device_idle = 0;
		summarize_device(&t->kernels[a], b - a, s, gaps, &busy, &device_idle, &last_end);
		idle += (double)device_idle;
	}
	s->span_s = ns_to_s(last_end - first_start);
	s->busy_s = ns_to_s(busy);
	s->kernel_s = ns_to_s(kernel);
	s->idle_s = idle / 1e9;
	if (s->gaps) {
		qsort(gaps, (size_t)s->gaps, sizeof *gaps, cmp_ll);
		long long pair;
		if (s->gaps % 2)
			s->median_gap_s = ns_to_s(gaps[s->gaps / 2]);
		else if (!__builtin_add_overflow(gaps[s->gaps / 2 - 1], gaps[s->gaps / 2], &pair))
			s->median_gap_s = ns_to_s(pair) / 2;
		else
			s->median_gap_s = (ns_to_s(gaps[s->gaps / 2 - 1]) + ns_to_s(gaps[s->gaps / 2])) / 2;
		s->max_gap_s = ns_to_s(gaps[s->gaps - 1]);
	}
	free(gaps);
	summarize_api(t, s);
	return 0;
}

void trace_summary_free(struct trace_summary *s)
{
	free(s->groups);
	s->groups = NULL;
	s->group_count = 0;
}

int trace_load(const char *path, struct trace *t, const char *flag, struct app_status *st)
{
	char err[700];
	int rc = trace_read(path, t, err, sizeof err, st);
	if (rc == 0)
		return 0;
	if (!err[0]) /* app_read_file has said why */
		return -1;
	if (rc == TRACE_NOMEM)
		app_error_env(st, "%s%s%s", flag ? flag : "", flag ? ": " : "", err);
	else
		app_error_flag(st, flag, "%s", err);
	return -1;
}
