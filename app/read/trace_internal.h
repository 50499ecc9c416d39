/* What the trace readers share (trace.c, trace_nsys.c, trace_json.c): the
 * records are added, named and checked through these, so that both formats
 * pass the one validation (trace_check_interval) and the same limits. Each
 * returns 0, or TRACE_BAD (bad input: exit 2) or TRACE_NOMEM (exit 3) with
 * why in err. */
#ifndef RIDGE_TRACE_INTERNAL_H
#define RIDGE_TRACE_INTERNAL_H

#include <stddef.h>

#include "trace.h"

enum { TRACE_BAD = -1, TRACE_SAID = -2, TRACE_NOMEM = -3 }; /* TRACE_SAID: bad input, said in the status */

/* Where a reader says why: the text, and the code of the failure (the
 * first trace_fail's), which the callers' plain "failed" returns carry up. */
struct trace_err {
	char *text;
	size_t len;
	int code;
};

/* A new kernel record (zeroed, op -1, no External id). */
int trace_new_kernel(struct trace *t, int *cap, struct trace_kernel **k, struct trace_err *err);
/* The index of name (len bytes) in t->names, made one line of valid UTF-8
 * and cut to TRACE_NAME (text_line_copy); NULL: "(unnamed)". */
int trace_intern(struct trace *t, const char *name, size_t len, int *index, struct trace_err *err);
/* Adds calls of an API (raw_name: len bytes, NULL unnamed; nsys's _v7000
 * dropped) taking ns in all (checked). */
int trace_add_api(struct trace *t, const char *raw_name, size_t len, long long calls, long long ns,
		  struct trace_err *err);
/* Adds one copy of kind (1 host to device, 2 device to host; others are not
 * kept) of bytes taking ns (checked). */
int trace_add_copy(struct trace *t, int kind, double bytes, long long ns, struct trace_err *err);

/* The one check of every interval read, either format: both ends within
 * +-READ_MAX_TRACE_TIMESTAMP_NS, the end not before the start, and at most
 * READ_MAX_TRACE_DURATION_NS long. 0, or TRACE_BAD with why ("ends 5 ns
 * before it starts"). */
int trace_check_interval(long long start_ns, long long end_ns, char *why, size_t why_len);
/* *sum += v, or TRACE_BAD naming what when the sum passes 64 bits. */
int trace_add_ns(long long *sum, long long v, const char *what, struct trace_err *err);

int trace_fail(struct trace_err *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The formats (file size: the SQLite step budget). A PyTorch trace from a
 * text in memory, from a file or standard input ("-") read in chunks
 * (TRACE_SAID when it could not be read: said in st as app_read_file says
 * it), or from a text read chunk bytes at a time through a window of chunk
 * bytes (the fuzz harness: every boundary a file's reads could cut at). */
int trace_load_nsys(const char *path, long long file_bytes, struct trace *t, struct trace_err *err);
int trace_load_pytorch(const char *text, size_t len, struct trace *t, struct trace_err *err);
int trace_load_pytorch_file(const char *path, struct trace *t, struct trace_err *err, struct app_status *st);
int trace_load_pytorch_chunks(const char *text, size_t len, size_t chunk, struct trace *t, struct trace_err *err,
			      struct app_status *st);

#endif
