/* nsys export --type sqlite (Nsight Systems' SQLite export schema:
 * StringIds, CUPTI_ACTIVITY_KIND_KERNEL, _RUNTIME, _MEMCPY), read as a file
 * that may be hostile (issue 31):
 *   - opened read-only and immutable (URI file:PATH?mode=ro&immutable=1): no
 *     lock, no journal, no -wal or -shm file left beside the input;
 *   - every nsys table must be a table (a view named like one can recurse or
 *     cross-join forever);
 *   - each query's virtual-machine steps are budgeted (a progress handler),
 *     SQLite's heap is bounded and its temporary store kept in it;
 *   - no JOIN and no ORDER BY: StringIds are read once, refused when an id
 *     repeats, and joined on their key in C; rows are sorted in C;
 *   - every row passes trace_check_interval and its integers their ranges. */
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read_limits.h"
#include "trace_internal.h"

struct string_id {
	long long id;
	int name; /* index into trace.names */
};

struct nsys {
	sqlite3 *db;
	struct trace *t;
	struct trace_err *err;
	struct string_id *ids; /* sorted by id */
	int id_count;
	int kernel_cap;                            /* of t->kernels */
	long long progress_calls, progress_budget; /* the progress handler runs every 1000 steps */
};

static int over_budget(void *ctx)
{
	struct nsys *n = ctx;
	return ++n->progress_calls > n->progress_budget;
}

/* The SQLite error of the last call, said as what it means here. */
static int sqlite_fail(struct nsys *n, const char *what)
{
	int code = sqlite3_errcode(n->db);
	if (code == SQLITE_INTERRUPT)
		return trace_fail(n->err, TRACE_BAD,
				  "%s: more than %lld SQLite steps (the budget for a file this size): not an nsys "
				  "export",
				  what, n->progress_budget * 1000);
	if (code == SQLITE_NOMEM)
		return trace_fail(n->err, TRACE_BAD, "%s: SQLite needs more than %lld MiB (its limit here)", what,
				  n->t->limits.sqlite_heap >> 20);
	return trace_fail(n->err, TRACE_BAD, "%s: %s", what, sqlite3_errmsg(n->db));
}

/* "table", "view", "virtual table", ... of name in the schema, in type
 * (empty when absent). A virtual table is one to SQLite's schema, but its
 * module runs SQL of the file's choosing (fts4's content= view read the
 * rows of an endless recursive view: 3 s to the step budget). */
static int object_type(struct nsys *n, const char *name, char *type, size_t len)
{
	sqlite3_stmt *st = NULL;
	type[0] = '\0';
	/* A virtual table's row says "table" with no pages of its own (rootpage 0). */
	if (sqlite3_prepare_v2(
		    n->db,
		    "SELECT type, type = 'table' AND rootpage = 0 FROM sqlite_master WHERE name = ?1 COLLATE "
		    "NOCASE",
		    -1, &st, NULL) != SQLITE_OK)
		return sqlite_fail(n, "the schema");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const char *what = (const char *)sqlite3_column_text(st, 0);
		snprintf(type, len, "%s%s", sqlite3_column_int(st, 1) ? "virtual " : "", what ? what : "?");
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : sqlite_fail(n, "the schema");
}

/* Whether table exists (a table: anything else named so is refused), and
 * the columns of want it lacks, comma-separated, in missing. */
static int table_columns(struct nsys *n, const char *table, const char *const *want, int count, bool *exists,
			 char *missing, size_t len)
{
	char type[32];
	*exists = false;
	missing[0] = '\0';
	if (object_type(n, table, type, sizeof type))
		return TRACE_BAD;
	if (!type[0])
		return 0;
	if (strcmp(type, "table") != 0)
		return trace_fail(n->err, TRACE_BAD, "%s is a %s, not a table: not an nsys export", table, type);
	char sql[200];
	snprintf(sql, sizeof sql, "PRAGMA table_info(\"%s\")", table);
	sqlite3_stmt *st = NULL;
	bool found[32] = { false };
	if (sqlite3_prepare_v2(n->db, sql, -1, &st, NULL) != SQLITE_OK)
		return sqlite_fail(n, table);
	while (sqlite3_step(st) == SQLITE_ROW) {
		*exists = true;
		const char *col = (const char *)sqlite3_column_text(st, 1);
		for (int i = 0; i < count && col; i++)
			if (strcmp(col, want[i]) == 0)
				found[i] = true;
	}
	sqlite3_finalize(st);
	for (int i = 0; i < count; i++) {
		if (found[i])
			continue;
		size_t used = strlen(missing);
		snprintf(missing + used, len - used, "%s%s", used ? ", " : "", want[i]);
	}
	return 0;
}

static int schema_error(struct nsys *n, const char *table, const char *missing)
{
	return trace_fail(n->err, TRACE_BAD,
			  "%s lacks %s: the columns the Nsight Systems SQLite export schema reference lists (an older "
			  "nsys? export again with a current one)",
			  table, missing);
}

/* Column i of row as an integer in lo..hi, or TRACE_BAD naming it. */
static int int_column(struct nsys *n, sqlite3_stmt *row, int i, long long lo, long long hi, const char *table,
		      long long row_number, long long *out)
{
	if (sqlite3_column_type(row, i) != SQLITE_INTEGER)
		return trace_fail(n->err, TRACE_BAD, "%s row %lld: %s is not an integer", table, row_number,
				  sqlite3_column_name(row, i));
	*out = sqlite3_column_int64(row, i);
	if (*out < lo || *out > hi)
		return trace_fail(n->err, TRACE_BAD, "%s row %lld: %s %lld is out of range (%lld..%lld)", table,
				  row_number, sqlite3_column_name(row, i), *out, lo, hi);
	return 0;
}

/* start and end (columns 0, 1) of row, checked (trace_check_interval). */
static int interval(struct nsys *n, sqlite3_stmt *row, const char *table, long long row_number, long long *start,
		    long long *end)
{
	if (int_column(n, row, 0, LLONG_MIN, LLONG_MAX, table, row_number, start) ||
	    int_column(n, row, 1, LLONG_MIN, LLONG_MAX, table, row_number, end))
		return TRACE_BAD;
	char why[200];
	if (trace_check_interval(*start, *end, why, sizeof why))
		return trace_fail(n->err, TRACE_BAD, "%s row %lld: %s", table, row_number, why);
	return 0;
}

/* The name of a StringIds id, or "(unnamed)" (-1) for one not there. */
static int name_of(const struct nsys *n, long long id)
{
	int lo = 0, hi = n->id_count;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (n->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n->id_count && n->ids[lo].id == id ? n->ids[lo].name : -1;
}

typedef int (*row_fn)(struct nsys *n, sqlite3_stmt *row, long long row_number);

/* Every row of sql through fn; the statement finalized either way. */
static int each_row(struct nsys *n, const char *table, const char *sql, row_fn fn)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(n->db, sql, -1, &st, NULL) != SQLITE_OK)
		return sqlite_fail(n, table);
	int rc, out = 0;
	long long row_number = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((out = fn(n, st, ++row_number)) != 0)
			break;
	}
	if (out == 0 && rc != SQLITE_DONE)
		out = sqlite_fail(n, table);
	sqlite3_finalize(st);
	return out;
}

static int string_row(struct nsys *n, sqlite3_stmt *row, long long row_number)
{
	long long id;
	if (n->id_count >= n->t->limits.names)
		return trace_fail(n->err, TRACE_BAD, "StringIds: more than %lld rows, the limit of a trace",
				  n->t->limits.names);
	if (int_column(n, row, 0, LLONG_MIN, LLONG_MAX, "StringIds", row_number, &id))
		return TRACE_BAD;
	if ((n->id_count & (n->id_count - 1)) == 0) {
		struct string_id *more = realloc(n->ids, (size_t)(n->id_count ? n->id_count * 2 : 1) * sizeof *more);
		if (!more)
			return trace_fail(n->err, TRACE_NOMEM, "out of memory (%d StringIds read)", n->id_count);
		n->ids = more;
	}
	const char *value = (const char *)sqlite3_column_text(row, 1);
	struct string_id *s = &n->ids[n->id_count++];
	s->id = id;
	return trace_intern(n->t, value, value ? (size_t)sqlite3_column_bytes(row, 1) : 0, &s->name, n->err);
}

static int cmp_string_id(const void *a, const void *b)
{
	long long x = ((const struct string_id *)a)->id, y = ((const struct string_id *)b)->id;
	return (x > y) - (x < y);
}

/* StringIds, each id once: a repeated id would multiply every row joined to it. */
static int read_string_ids(struct nsys *n)
{
	char missing[100];
	bool exists;
	if (table_columns(n, "StringIds", (const char *const[]){ "id", "value" }, 2, &exists, missing, sizeof missing))
		return TRACE_BAD;
	if (!exists)
		return trace_fail(n->err, TRACE_BAD, "no StringIds table: not an nsys SQLite export");
	if (missing[0])
		return schema_error(n, "StringIds", missing);
	if (each_row(n, "StringIds", "SELECT id, value FROM StringIds", string_row))
		return TRACE_BAD;
	if (n->id_count > 1)
		qsort(n->ids, (size_t)n->id_count, sizeof *n->ids, cmp_string_id);
	for (int i = 1; i < n->id_count; i++)
		if (n->ids[i].id == n->ids[i - 1].id)
			return trace_fail(n->err, TRACE_BAD,
					  "StringIds: id %lld is given twice (ids are keys): not an nsys export",
					  n->ids[i].id);
	return 0;
}

/* start, end, correlationId, gridX..Z, blockX..Z, registersPerThread, name, deviceId. */
static int kernel_row(struct nsys *n, sqlite3_stmt *row, long long row_number)
{
	static const char table[] = "CUPTI_ACTIVITY_KIND_KERNEL";
	long long start, end, v[12];
	if (interval(n, row, table, row_number, &start, &end))
		return TRACE_BAD;
	for (int i = 3; i < 9; i++)
		if (int_column(n, row, i, 0, INT_MAX, table, row_number, &v[i]))
			return TRACE_BAD;
	if (int_column(n, row, 9, 0, 65536, table, row_number, &v[9]) ||
	    int_column(n, row, 10, LLONG_MIN, LLONG_MAX, table, row_number, &v[10]) ||
	    int_column(n, row, 11, 0, INT_MAX, table, row_number, &v[11]))
		return TRACE_BAD;
	struct trace_kernel *k;
	if (trace_new_kernel(n->t, &n->kernel_cap, &k, n->err))
		return TRACE_BAD;
	k->start_ns = start;
	k->end_ns = end;
	k->correlation = sqlite3_column_int64(row, 2);
	for (int i = 0; i < 3; i++) {
		k->grid[i] = (int)v[3 + i];
		k->block[i] = (int)v[6 + i];
	}
	k->registers = (int)v[9];
	k->device = (int)v[11];
	int name = name_of(n, v[10]);
	if (name < 0)
		return trace_intern(n->t, NULL, 0, &k->name, n->err);
	k->name = name;
	return 0;
}

/* The kernel table's name column: shortName, or demangledName in exports
 * without it; deviceId, or device 0 in a hand-made export without it. */
static int read_kernels(struct nsys *n)
{
	static const char table[] = "CUPTI_ACTIVITY_KIND_KERNEL";
	static const char *const cols[] = { "start", "end",    "correlationId", "gridX",  "gridY",
					    "gridZ", "blockX", "blockY",        "blockZ", "registersPerThread" };
	char missing[400], other[100];
	bool exists;
	if (table_columns(n, table, cols, 10, &exists, missing, sizeof missing))
		return TRACE_BAD;
	if (!exists)
		return trace_fail(n->err, TRACE_BAD,
				  "no CUPTI_ACTIVITY_KIND_KERNEL table: the report has no CUDA kernels (profile with "
				  "nsys profile --trace=cuda)");
	if (missing[0])
		return schema_error(n, table, missing);
	const char *name_col = "shortName";
	table_columns(n, table, (const char *const[]){ "shortName" }, 1, &exists, other, sizeof other);
	if (other[0]) {
		table_columns(n, table, (const char *const[]){ "demangledName" }, 1, &exists, other, sizeof other);
		if (other[0])
			return schema_error(n, table, "shortName and demangledName");
		name_col = "demangledName";
	}
	table_columns(n, table, (const char *const[]){ "deviceId" }, 1, &exists, other, sizeof other);
	char sql[400];
	snprintf(sql, sizeof sql,
		 "SELECT start, end, correlationId, gridX, gridY, gridZ, blockX, blockY, blockZ, registersPerThread, "
		 "%s, %s FROM %s",
		 name_col, other[0] ? "0" : "deviceId", table);
	return each_row(n, table, sql, kernel_row);
}

/* One host API call: start, end, nameId. */
static int api_row(struct nsys *n, sqlite3_stmt *row, long long row_number)
{
	long long start, end, name_id;
	if (interval(n, row, "CUPTI_ACTIVITY_KIND_RUNTIME", row_number, &start, &end) ||
	    int_column(n, row, 2, LLONG_MIN, LLONG_MAX, "CUPTI_ACTIVITY_KIND_RUNTIME", row_number, &name_id))
		return TRACE_BAD;
	int name = name_of(n, name_id);
	const char *text = name >= 0 ? name_table_name(&n->t->names, name) : NULL;
	return trace_add_api(n->t, text, text ? strlen(text) : 0, 1, end - start, n->err);
}

/* One copy: start, end, bytes, copyKind (CUpti_ActivityMemcpyKind: 1 host to
 * device, 2 device to host; the others are not kept). */
static int copy_row(struct nsys *n, sqlite3_stmt *row, long long row_number)
{
	static const char table[] = "CUPTI_ACTIVITY_KIND_MEMCPY";
	long long start, end, bytes, kind;
	if (interval(n, row, table, row_number, &start, &end) ||
	    int_column(n, row, 2, 0, 1000000000000000000LL, table, row_number, &bytes) ||
	    int_column(n, row, 3, INT_MIN, INT_MAX, table, row_number, &kind))
		return TRACE_BAD;
	return trace_add_copy(n->t, (int)kind, (double)bytes, end - start, n->err);
}

/* An optional table: nothing when the export lacks it (*present stays
 * false), an error when it lacks some of cols, else every row through fn. */
static int read_optional(struct nsys *n, const char *table, const char *const *cols, int col_count, const char *sql,
			 bool *present, row_fn fn)
{
	char missing[200];
	bool exists;
	if (table_columns(n, table, cols, col_count, &exists, missing, sizeof missing))
		return TRACE_BAD;
	if (!exists)
		return 0;
	if (missing[0])
		return schema_error(n, table, missing);
	*present = true;
	return each_row(n, table, sql, fn);
}

/* "file:/abs/path?mode=ro&immutable=1", the path percent-encoded. */
static int uri_of(const char *path, char *uri, size_t len)
{
	char real[PATH_MAX];
	if (!realpath(path, real))
		return -1;
	size_t at = (size_t)snprintf(uri, len, "file:");
	for (const unsigned char *p = (const unsigned char *)real; *p && at + 4 < len; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("/-._~", *p))
			uri[at++] = (char)*p;
		else
			at += (size_t)snprintf(uri + at, len - at, "%%%02X", *p);
	}
	int n = snprintf(uri + at, len - at, "?mode=ro&immutable=1");
	return n > 0 && (size_t)n < len - at ? 0 : -1;
}

static int read_tables(struct nsys *n)
{
	/* A file that only starts like SQLite fails here, before any table is looked for. */
	if (sqlite3_exec(n->db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL) != SQLITE_OK)
		return trace_fail(n->err, TRACE_BAD, "not a readable SQLite database: %s", sqlite3_errmsg(n->db));
	sqlite3_exec(n->db, "PRAGMA temp_store = MEMORY", NULL, NULL, NULL);
	if (read_string_ids(n) || read_kernels(n))
		return TRACE_BAD;
	static const char *const api_cols[] = { "start", "end", "nameId" };
	static const char *const copy_cols[] = { "start", "end", "bytes", "copyKind" };
	/* Optional: the API table exists when CUDA API calls were traced, the
	 * copies when nsys profile --trace=cuda recorded any. */
	if (read_optional(n, "CUPTI_ACTIVITY_KIND_RUNTIME", api_cols, 3,
			  "SELECT start, end, nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME", &n->t->has_api, api_row))
		return TRACE_BAD;
	return read_optional(n, "CUPTI_ACTIVITY_KIND_MEMCPY", copy_cols, 4,
			     "SELECT start, end, bytes, copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY", &n->t->has_copies,
			     copy_row);
}

int trace_load_nsys(const char *path, long long file_bytes, struct trace *t, struct trace_err *err)
{
	char uri[PATH_MAX * 3 + 64];
	if (uri_of(path, uri, sizeof uri))
		return trace_fail(err, TRACE_BAD, "cannot resolve the path");
	/* Process-wide, and ridge opens one database a run. */
	sqlite3_hard_heap_limit64(t->limits.sqlite_heap);
	struct nsys n = { .t = t, .err = err };
	long long budget = READ_TRACE_SQLITE_BASE_STEPS + READ_TRACE_SQLITE_STEPS_PER_BYTE * file_bytes;
	n.progress_budget = (budget < t->limits.sqlite_steps ? budget : t->limits.sqlite_steps) / 1000;
	if (sqlite3_open_v2(uri, &n.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
		int rc = trace_fail(err, TRACE_BAD, "cannot open the SQLite database: %s",
				    n.db ? sqlite3_errmsg(n.db) : "out of memory");
		sqlite3_close(n.db);
		return rc;
	}
	sqlite3_progress_handler(n.db, 1000, over_budget, &n);
	int rc = read_tables(&n);
	sqlite3_close(n.db);
	free(n.ids);
	return rc;
}
