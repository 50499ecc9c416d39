/* trace_load and trace_summarize (app/read/trace.h). */
#include "trace.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app.h"
#include "read_limits.h"

static struct trace_kernel *add_kernel(struct trace *t, int *cap)
{
	if (t->kernel_count == *cap) {
		int grown = *cap ? *cap * 2 : 1024;
		struct trace_kernel *k = realloc(t->kernels, (size_t)grown * sizeof *k);
		if (!k)
			return NULL;
		t->kernels = k;
		*cap = grown;
	}
	struct trace_kernel *k = &t->kernels[t->kernel_count++];
	memset(k, 0, sizeof *k);
	return k;
}

/* nsys names runtime calls with their ABI version: cudaLaunchKernel_v7000. */
static void api_base_name(const char *name, char *out, size_t len)
{
	snprintf(out, len, "%s", name ? name : "");
	char *v = strstr(out, "_v");
	if (v && isdigit((unsigned char)v[2])) {
		char *p = v + 2;
		while (isdigit((unsigned char)*p))
			p++;
		if (*p == '\0')
			*v = '\0';
	}
}

static int add_api(struct trace *t, const char *raw_name, int calls, long long ns)
{
	char name[96];
	api_base_name(raw_name, name, sizeof name);
	for (int i = 0; i < t->api_count; i++) {
		if (strcmp(t->apis[i].name, name) == 0) {
			t->apis[i].calls += calls;
			t->apis[i].total_ns += ns;
			return 0;
		}
	}
	struct trace_api *a = realloc(t->apis, (size_t)(t->api_count + 1) * sizeof *a);
	if (!a)
		return -1;
	t->apis = a;
	struct trace_api *n = &t->apis[t->api_count++];
	snprintf(n->name, sizeof n->name, "%s", name);
	n->calls = calls;
	n->total_ns = ns;
	return 0;
}

static int cmp_api(const void *a, const void *b)
{
	long long x = ((const struct trace_api *)a)->total_ns, y = ((const struct trace_api *)b)->total_ns;
	return (x < y) - (x > y);
}

static int cmp_kernel_start(const void *a, const void *b)
{
	long long x = ((const struct trace_kernel *)a)->start_ns, y = ((const struct trace_kernel *)b)->start_ns;
	return (x > y) - (x < y);
}

/* ---- nsys export --type sqlite ---- */

/* Whether table exists, and the columns of want it lacks, comma-separated, in missing. */
static bool table_columns(sqlite3 *db, const char *table, const char *const *want, int n, char *missing, size_t len)
{
	char sql[200];
	snprintf(sql, sizeof sql, "PRAGMA table_info(\"%s\")", table);
	sqlite3_stmt *st = NULL;
	bool found[32] = { false };
	bool exists = false;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			exists = true;
			const char *col = (const char *)sqlite3_column_text(st, 1);
			for (int i = 0; i < n && col; i++)
				if (strcmp(col, want[i]) == 0)
					found[i] = true;
		}
	}
	sqlite3_finalize(st);
	missing[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (found[i])
			continue;
		size_t used = strlen(missing);
		snprintf(missing + used, len - used, "%s%s", used ? ", " : "", want[i]);
	}
	return exists;
}

static int nsys_schema_error(char *err, size_t err_len, const char *table, const char *missing)
{
	return app_fail_text(
		err, err_len,
		"%s lacks %s: the columns the Nsight Systems SQLite export schema reference lists (an older "
		"nsys? export again with a current one)",
		table, missing);
}

/* One row of a query into t: 0, or -1 (out of memory). */
typedef int (*trace_row_fn)(sqlite3_stmt *row, struct trace *t, void *ctx);

/* Steps st through every row, row() taking each, and finalizes it. Returns
 * 0, or -1 with err (out of memory, a failed step). */
static int read_rows(sqlite3 *db, sqlite3_stmt *st, trace_row_fn row, struct trace *t, void *ctx, char *err,
		     size_t err_len)
{
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (row(st, t, ctx) != 0) {
			sqlite3_finalize(st);
			return app_fail_text(err, err_len, "out of memory");
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : app_fail_text(err, err_len, "%s", sqlite3_errmsg(db));
}

/* A kernel: start, end, correlation, grid, block, registers, name (ctx: the
 * capacity of t->kernels). */
static int kernel_row(sqlite3_stmt *row, struct trace *t, void *ctx)
{
	struct trace_kernel *k = add_kernel(t, ctx);
	if (!k)
		return -1;
	k->start_ns = sqlite3_column_int64(row, 0);
	k->end_ns = sqlite3_column_int64(row, 1);
	k->correlation = sqlite3_column_int64(row, 2);
	for (int i = 0; i < 3; i++) {
		k->grid[i] = sqlite3_column_int(row, 3 + i);
		k->block[i] = sqlite3_column_int(row, 6 + i);
	}
	k->registers = sqlite3_column_int(row, 9);
	const char *name = (const char *)sqlite3_column_text(row, 10);
	snprintf(k->name, sizeof k->name, "%s", name ? name : "(unnamed)");
	return 0;
}

/* The kernel table's name column: shortName, or demangledName in exports without it. */
static int nsys_kernels(sqlite3 *db, struct trace *t, char *err, size_t err_len)
{
	static const char *const cols[] = { "start", "end",    "correlationId", "gridX",  "gridY",
					    "gridZ", "blockX", "blockY",        "blockZ", "registersPerThread" };
	char missing[400];
	if (!table_columns(db, "StringIds", (const char *const[]){ "id", "value" }, 2, missing, sizeof missing))
		return app_fail_text(err, err_len, "no StringIds table: not an nsys SQLite export");
	if (missing[0])
		return nsys_schema_error(err, err_len, "StringIds", missing);
	if (!table_columns(db, "CUPTI_ACTIVITY_KIND_KERNEL", cols, 10, missing, sizeof missing))
		return app_fail_text(
			err, err_len,
			"no CUPTI_ACTIVITY_KIND_KERNEL table: the report has no CUDA kernels (profile with "
			"nsys profile --trace=cuda)");
	if (missing[0])
		return nsys_schema_error(err, err_len, "CUPTI_ACTIVITY_KIND_KERNEL", missing);
	char name_missing[100];
	table_columns(db, "CUPTI_ACTIVITY_KIND_KERNEL", (const char *const[]){ "shortName" }, 1, name_missing,
		      sizeof name_missing);
	const char *name_col = "shortName";
	if (name_missing[0]) {
		table_columns(db, "CUPTI_ACTIVITY_KIND_KERNEL", (const char *const[]){ "demangledName" }, 1,
			      name_missing, sizeof name_missing);
		if (name_missing[0])
			return nsys_schema_error(err, err_len, "CUPTI_ACTIVITY_KIND_KERNEL",
						 "shortName and demangledName");
		name_col = "demangledName";
	}
	char sql[600];
	snprintf(
		sql, sizeof sql,
		"SELECT k.start, k.end, k.correlationId, k.gridX, k.gridY, k.gridZ, k.blockX, k.blockY, k.blockZ, "
		"k.registersPerThread, s.value FROM CUPTI_ACTIVITY_KIND_KERNEL AS k LEFT JOIN StringIds AS s ON s.id = "
		"k.%s ORDER BY k.start",
		name_col);
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return app_fail_text(err, err_len, "%s", sqlite3_errmsg(db));
	int cap = 0;
	return read_rows(db, st, kernel_row, t, &cap, err, err_len);
}

/* An optional table: nothing when the export lacks it (*present stays
 * false), an error when it lacks some of cols or the query fails, else
 * every row of sql through row(). */
static int read_optional(sqlite3 *db, const char *table, const char *const *cols, int col_count, const char *sql,
			 bool *present, trace_row_fn row, struct trace *t, char *err, size_t err_len)
{
	char missing[200];
	if (!table_columns(db, table, cols, col_count, missing, sizeof missing))
		return 0;
	if (missing[0])
		return nsys_schema_error(err, err_len, table, missing);
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return app_fail_text(err, err_len, "%s", sqlite3_errmsg(db));
	*present = true;
	return read_rows(db, st, row, t, NULL, err, err_len);
}

/* Host API calls of one name: name, calls, total time. */
static int api_row(sqlite3_stmt *row, struct trace *t, void *ctx)
{
	(void)ctx;
	return add_api(t, (const char *)sqlite3_column_text(row, 0), sqlite3_column_int(row, 1),
		       sqlite3_column_int64(row, 2));
}

/* Copies of one direction. copyKind is CUpti_ActivityMemcpyKind: 1 host to
 * device, 2 device to host (CUPTI Activity API); the others are not kept. */
static int copy_row(sqlite3_stmt *row, struct trace *t, void *ctx)
{
	(void)ctx;
	int kind = sqlite3_column_int(row, 0);
	struct trace_copies *c = kind == 1 ? &t->htod : kind == 2 ? &t->dtoh : NULL;
	if (c) {
		c->count += sqlite3_column_int(row, 1);
		c->bytes += sqlite3_column_double(row, 2);
		c->total_ns += sqlite3_column_int64(row, 3);
	}
	return 0;
}

/* Host API calls by name: optional (the table exists only when CUDA API calls were traced). */
static int nsys_runtime(sqlite3 *db, struct trace *t, char *err, size_t err_len)
{
	static const char *const cols[] = { "start", "end", "nameId" };
	return read_optional(db, "CUPTI_ACTIVITY_KIND_RUNTIME", cols, 3,
			     "SELECT s.value, COUNT(*), SUM(r.end - r.start) FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r "
			     "LEFT JOIN StringIds AS s ON s.id = r.nameId GROUP BY r.nameId",
			     &t->has_api, api_row, t, err, err_len);
}

/* Copies by direction: optional (recorded with nsys profile --trace=cuda). */
static int nsys_memcpy(sqlite3 *db, struct trace *t, char *err, size_t err_len)
{
	static const char *const cols[] = { "start", "end", "bytes", "copyKind" };
	return read_optional(db, "CUPTI_ACTIVITY_KIND_MEMCPY", cols, 4,
			     "SELECT copyKind, COUNT(*), SUM(bytes), SUM(end - start) FROM CUPTI_ACTIVITY_KIND_MEMCPY "
			     "GROUP BY copyKind",
			     &t->has_copies, copy_row, t, err, err_len);
}

static int load_nsys(const char *path, struct trace *t, char *err, size_t err_len)
{
	sqlite3 *db = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		int rc = app_fail_text(err, err_len, "cannot open the SQLite database: %s",
				       db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return rc;
	}
	/* A file that only starts like SQLite fails here, before any table is looked for. */
	int rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL) == SQLITE_OK
			 ? 0
			 : app_fail_text(err, err_len, "not a readable SQLite database: %s", sqlite3_errmsg(db));
	if (rc == 0)
		rc = nsys_kernels(db, t, err, err_len);
	if (rc == 0)
		rc = nsys_runtime(db, t, err, err_len);
	if (rc == 0)
		rc = nsys_memcpy(db, t, err, err_len);
	sqlite3_close(db);
	return rc;
}

/* ---- PyTorch profiler Chrome trace ---- */

static const char *json_text(const cJSON *o, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static bool json_num(const cJSON *o, const char *key, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
		return false;
	*out = v->valuedouble;
	return true;
}

static void json_dim3(const cJSON *args, const char *key, int out[3])
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(args, key);
	for (int i = 0; i < 3; i++) {
		const cJSON *v = cJSON_GetArrayItem(a, i);
		out[i] = cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e9 ? (int)v->valuedouble : 0;
	}
}

/* Chrome trace times are microseconds, to the nanosecond (Kineto writes 3 decimals). */
static long long us_to_ns(double us)
{
	return fabs(us) < 9e15 ? llround(us * 1e3) : 0;
}

struct op_id {
	double id;
	const char *name;
};

static int cmp_op_id(const void *a, const void *b)
{
	double x = ((const struct op_id *)a)->id, y = ((const struct op_id *)b)->id;
	return (x > y) - (x < y);
}

/* The operators (cpu_op events) by External id, sorted for bsearch. */
static struct op_id *pytorch_ops(const cJSON *events, int *count)
{
	int n = 0, cap = cJSON_GetArraySize(events);
	struct op_id *ops = malloc((size_t)(cap ? cap : 1) * sizeof *ops);
	if (!ops)
		return NULL;
	const cJSON *e;
	cJSON_ArrayForEach (e, events) {
		const char *cat = json_text(e, "cat");
		double id;
		if (cat && strcmp(cat, "cpu_op") == 0 && json_text(e, "name") &&
		    json_num(cJSON_GetObjectItemCaseSensitive(e, "args"), "External id", &id))
			ops[n++] = (struct op_id){ id, json_text(e, "name") };
	}
	if (n > 1) /* qsort(NULL, 0) is undefined */
		qsort(ops, (size_t)n, sizeof *ops, cmp_op_id);
	*count = n;
	return ops;
}

static int pytorch_kernel(struct trace *t, int *cap, const cJSON *e, const struct op_id *ops, int op_count)
{
	double ts, dur;
	if (!json_num(e, "ts", &ts) || !json_num(e, "dur", &dur))
		return 0;
	struct trace_kernel *k = add_kernel(t, cap);
	if (!k)
		return -1;
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
	const char *name = json_text(e, "name");
	snprintf(k->name, sizeof k->name, "%s", name ? name : "(unnamed)");
	k->start_ns = us_to_ns(ts);
	k->end_ns = us_to_ns(ts) + us_to_ns(dur);
	json_dim3(args, "grid", k->grid);
	json_dim3(args, "block", k->block);
	double v;
	if (json_num(args, "registers per thread", &v) && v >= 0 && v < 1e6)
		k->registers = (int)v;
	if (json_num(args, "correlation", &v))
		k->correlation = (long long)v;
	struct op_id key = { 0, NULL };
	if (json_num(args, "External id", &key.id)) {
		const struct op_id *op = bsearch(&key, ops, (size_t)op_count, sizeof *ops, cmp_op_id);
		if (op)
			snprintf(k->op, sizeof k->op, "%s", op->name);
	}
	return 0;
}

static void pytorch_copy(struct trace *t, const cJSON *e)
{
	const char *name = json_text(e, "name");
	double dur = 0, bytes = 0;
	json_num(e, "dur", &dur);
	json_num(cJSON_GetObjectItemCaseSensitive(e, "args"), "bytes", &bytes);
	struct trace_copies *c = !name                  ? NULL
				 : strstr(name, "DtoH") ? &t->dtoh
				 : strstr(name, "HtoD") ? &t->htod
							: NULL;
	t->has_copies = true;
	if (!c)
		return;
	c->count++;
	c->bytes += bytes;
	c->total_ns += us_to_ns(dur);
}

static int load_pytorch(const char *path, const char *text, size_t len, struct trace *t, char *err, size_t err_len)
{
	const char *end = NULL;
	cJSON *doc = strlen(text) == len ? cJSON_ParseWithOpts(text, &end, 1) : NULL;
	if (!doc) {
		int line, col;
		app_text_position(text, end && strlen(text) == len ? (size_t)(end - text) : strlen(text), &line, &col);
		return app_fail_text(err, err_len, "line %d: not valid JSON", line);
	}
	const cJSON *events = cJSON_GetObjectItemCaseSensitive(doc, "traceEvents");
	if (!cJSON_IsArray(events)) {
		cJSON_Delete(doc);
		return app_fail_text(
			err, err_len,
			"JSON but not a trace: no \"traceEvents\" list (a PyTorch profiler trace is written by "
			"prof.export_chrome_trace(PATH))");
	}
	(void)path;
	int op_count = 0, cap = 0, rc = 0;
	struct op_id *ops = pytorch_ops(events, &op_count);
	if (!ops) {
		cJSON_Delete(doc);
		return app_fail_text(err, err_len, "out of memory");
	}
	const cJSON *e;
	cJSON_ArrayForEach (e, events) {
		const char *cat = json_text(e, "cat"), *ph = json_text(e, "ph");
		if (!cat || !ph || strcmp(ph, "X") != 0)
			continue;
		if (strcmp(cat, "kernel") == 0) {
			rc = pytorch_kernel(t, &cap, e, ops, op_count);
		} else if (strcmp(cat, "cuda_runtime") == 0 || strcmp(cat, "cuda_driver") == 0) {
			double dur = 0;
			json_num(e, "dur", &dur);
			t->has_api = true;
			rc = add_api(t, json_text(e, "name"), 1, us_to_ns(dur));
		} else if (strcmp(cat, "gpu_memcpy") == 0) {
			pytorch_copy(t, e);
		}
		if (rc != 0)
			break;
	}
	free(ops);
	cJSON_Delete(doc);
	if (rc != 0)
		return app_fail_text(err, err_len, "out of memory");
	if (t->kernel_count > 1) /* no kernels: no array, and qsort(NULL, 0) is undefined (UBSan) */
		qsort(t->kernels, (size_t)t->kernel_count, sizeof *t->kernels, cmp_kernel_start);
	return 0;
}

static int trace_read(const char *path, struct trace *t, char *err, size_t err_len, struct app_status *status)
{
	memset(t, 0, sizeof *t);
	/* A FIFO or a device would block or stream forever: regular files only. */
	struct stat st;
	if (stat(path, &st) != 0)
		return app_fail_text(err, err_len, "cannot open '%s': %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return app_fail_text(err, err_len,
				     "cannot read '%s': %s, not a regular file (a trace is read from a file)", path,
				     hwdb_file_type_name(st.st_mode));
	FILE *f = fopen(path, "rb");
	if (!f)
		return app_fail_text(err, err_len, "cannot open '%s': %s", path, strerror(errno));
	char head[16] = { 0 };
	size_t got = fread(head, 1, sizeof head, f);
	int read_errno = ferror(f) ? errno : 0;
	fclose(f);
	if (read_errno)
		return app_fail_text(err, err_len, "cannot read '%s': %s", path, strerror(read_errno));
	int rc;
	char why[500];
	if (got == 16 && memcmp(head, "SQLite format 3", 16) == 0) {
		t->format = TRACE_NSYS_SQLITE;
		rc = load_nsys(path, t, why, sizeof why);
	} else {
		size_t i = 0;
		while (i < got && isspace((unsigned char)head[i]))
			i++;
		if (i == got || head[i] != '{') {
			snprintf(err, err_len,
				 "'%s': not an nsys SQLite export (nsys export --type sqlite) or a PyTorch profiler "
				 "trace (JSON)",
				 path);
			return -1;
		}
		t->format = TRACE_PYTORCH_JSON;
		size_t len = 0;
		char *text = app_read_file(path, READ_MAX_TRACE_JSON_BYTES, "PyTorch trace", &len, status);
		if (!text) {
			err[0] = '\0'; /* app_read_file said why */
			return -1;
		}
		rc = load_pytorch(path, text, len, t, why, sizeof why);
		free(text);
	}
	if (rc == 0 && t->kernel_count == 0) {
		snprintf(why, sizeof why, "no CUDA kernels in the trace (%s)",
			 t->format == TRACE_NSYS_SQLITE
				 ? "profile with nsys profile --trace=cuda"
				 : "profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]");
		rc = -1;
	}
	if (rc != 0) {
		snprintf(err, err_len, "'%s': %s", path, why);
		trace_free(t);
		return -1;
	}
	if (t->api_count > 1) /* qsort(NULL, 0) is undefined */
		qsort(t->apis, (size_t)t->api_count, sizeof *t->apis, cmp_api);
	return 0;
}

void trace_free(struct trace *t)
{
	free(t->kernels);
	free(t->apis);
	t->kernels = NULL;
	t->apis = NULL;
	t->kernel_count = t->api_count = 0;
}

double trace_kernel_seconds(const struct trace_kernel *k)
{
	return (double)(k->end_ns - k->start_ns) / 1e9;
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

/* Host API totals by what they are: launches, allocations, synchronizations. */
static void summarize_api(const struct trace *t, struct trace_summary *s)
{
	long long launch = 0, malloc_ns = 0, sync = 0;
	for (int i = 0; i < t->api_count; i++) {
		const struct trace_api *a = &t->apis[i];
		if (strstr(a->name, "LaunchKernel") || strstr(a->name, "LaunchCooperativeKernel")) {
			s->launches += a->calls;
			launch += a->total_ns;
		} else if (strncmp(a->name, "cudaMalloc", 10) == 0 || strncmp(a->name, "cuMemAlloc", 10) == 0) {
			s->mallocs += a->calls;
			malloc_ns += a->total_ns;
		} else if (strstr(a->name, "Synchronize")) {
			s->syncs += a->calls;
			sync += a->total_ns;
		}
	}
	s->launch_s = ns_to_s(launch);
	s->malloc_s = ns_to_s(malloc_ns);
	s->sync_s = ns_to_s(sync);
}

/* Kernels by name; totals summed in nanoseconds. */
static int summarize_groups(const struct trace *t, struct trace_summary *s)
{
	s->groups = calloc((size_t)t->kernel_count, sizeof *s->groups);
	long long *total = calloc((size_t)t->kernel_count, sizeof *total);
	if (!s->groups || !total) {
		free(total);
		return -1;
	}
	for (int i = 0; i < t->kernel_count; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		long long d = k->end_ns - k->start_ns;
		int j = 0;
		while (j < s->group_count && strcmp(s->groups[j].name, k->name) != 0)
			j++;
		struct trace_kernel_group *g = &s->groups[j];
		if (j == s->group_count) {
			s->group_count++;
			*g = (struct trace_kernel_group){
				.name = k->name, .op = k->op, .min_s = ns_to_s(d), .max_s = ns_to_s(d), .first = k
			};
		}
		g->calls++;
		total[j] += d;
		g->min_s = fmin(g->min_s, ns_to_s(d));
		g->max_s = fmax(g->max_s, ns_to_s(d));
		g->shape_varies |= !same_shape(g->first, k);
		if (!g->op[0])
			g->op = k->op;
	}
	for (int j = 0; j < s->group_count; j++)
		s->groups[j].total_s = ns_to_s(total[j]);
	free(total);
	if (s->group_count > 1) /* qsort(NULL, 0) is undefined */
		qsort(s->groups, (size_t)s->group_count, sizeof *s->groups, cmp_group);
	return 0;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
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
	/* Kernels are in start order: the busy time is the union of their
	 * intervals, a gap any stretch after the latest end so far. */
	long long busy_end = t->kernels[0].end_ns, busy = busy_end - t->kernels[0].start_ns;
	long long kernel = 0, idle = 0;
	for (int i = 0; i < t->kernel_count; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		kernel += k->end_ns - k->start_ns;
		if (i == 0)
			continue;
		if (k->start_ns > busy_end) {
			gaps[s->gaps++] = k->start_ns - busy_end;
			idle += k->start_ns - busy_end;
			busy += k->end_ns - k->start_ns;
			busy_end = k->end_ns;
		} else if (k->end_ns > busy_end) {
			busy += k->end_ns - busy_end;
			busy_end = k->end_ns;
		}
	}
	s->span_s = ns_to_s(busy_end - t->kernels[0].start_ns);
	s->busy_s = ns_to_s(busy);
	s->kernel_s = ns_to_s(kernel);
	s->idle_s = ns_to_s(idle);
	if (s->gaps) {
		qsort(gaps, (size_t)s->gaps, sizeof *gaps, cmp_ll);
		s->median_gap_s = s->gaps % 2 ? ns_to_s(gaps[s->gaps / 2])
					      : ns_to_s(gaps[s->gaps / 2 - 1] + gaps[s->gaps / 2]) / 2;
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
	if (trace_read(path, t, err, sizeof err, st) == 0)
		return 0;
	if (err[0]) /* else app_read_file has said why */
		app_error_flag(st, flag, "%s", err);
	return -1;
}
