/* Profiler traces as users have them: an `nsys export --type sqlite` database
 * (Nsight Systems' SQLite export schema: CUPTI_ACTIVITY_KIND_KERNEL,
 * CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_MEMCPY, StringIds) or a
 * PyTorch profiler Chrome trace (torch.profiler's export_chrome_trace with
 * ProfilerActivity.CUDA: "kernel", "cuda_runtime"/"cuda_driver", "gpu_memcpy"
 * and "cpu_op" events joined by correlation and External id). Both become the
 * same records: one per kernel execution and one per host API call. Errors
 * are returned in a struct app_status, never printed: ridge trace, ridge launch --trace and
 * ridge calibrate all read through trace_load(). */
#ifndef RIDGE_TRACE_H
#define RIDGE_TRACE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "calc.h"
#include "name_table.h"
#include "params.h"

enum trace_format { TRACE_NSYS_SQLITE, TRACE_PYTORCH_JSON };

/* The longest name kept (bytes, with the NUL); longer ones are cut at a
 * character boundary. */
#define TRACE_NAME 256

/* One kernel execution: 72 bytes, its names interned in the trace. */
struct trace_kernel {
	long long start_ns, end_ns; /* the trace's clock, whole nanoseconds (exact sums) */
	long long correlation;
	double external_id; /* PyTorch: the issuing operator's External id; NAN when none */
	int name;           /* index into trace.names */
	int op;             /* the operator that issued it (PyTorch: aten::mm), index into trace.names; -1 unknown */
	int device;         /* the GPU it ran on (nsys deviceId, PyTorch args.device); 0 when not said */
	int registers;      /* per thread; 0 when the trace does not say */
	int grid[3], block[3];
};

/* Host API calls of one name ("cudaLaunchKernel", without nsys's _v7000). */
struct trace_api {
	char name[96];
	long long calls;
	long long total_ns;
};

struct trace_copies {
	long long count;
	double bytes; /* 0 when the trace does not say */
	long long total_ns;
};

/* The limits a read runs under: util/read_limits.h's, or lower ones that
 * the environment variable RIDGE_TEST_LIMITS names (tests/README.md), so a
 * test can reach each within 2 s and 256 MB; it cannot raise one. */
struct trace_limits {
	long long kernels;      /* READ_MAX_TRACE_KERNELS */
	long long names;        /* READ_MAX_TRACE_NAMES: distinct names, and StringIds rows */
	long long events;       /* READ_MAX_TRACE_EVENTS */
	long long sqlite_steps; /* caps the step budget of the file's size (none: LLONG_MAX) */
	long long sqlite_heap;  /* READ_TRACE_SQLITE_HEAP_BYTES */
};

struct trace {
	enum trace_format format;
	struct trace_limits limits;
	int kernel_count;
	struct trace_kernel *kernels; /* by device, then start */
	struct name_table names;      /* kernel and operator names, each once */
	int device_count;             /* distinct devices the kernels ran on */
	int api_count;
	struct trace_api *apis;      /* by total time, longest first */
	struct name_table api_names; /* apis[i]'s name is api_names' i-th (while reading) */
	bool has_api;                /* the trace recorded host API calls at all */
	struct trace_copies dtoh, htod;
	bool has_copies;
};

/* Reads path (format from its first bytes). Returns 0, or -1 with why in st:
 * not SQLite or JSON, a table or column an older nsys lacks (named), a JSON
 * document that is not a trace, a trace without kernels, a row outside the
 * physical range (trace_check_interval), a limit of util/read_limits.h
 * passed (exit 2), out of memory (exit 3); shown after flag ("--trace:
 * ...") unless flag is NULL. A file that cannot be read at all is said
 * without the flag ("cannot open 'x': ..."). */
struct app_status;
int trace_load(const char *path, struct trace *t, const char *flag, struct app_status *st);
/* A PyTorch trace already read (the fuzz harness's entry point): the same
 * reading and checks, the text named name; chunk 0 reads it in place, else
 * through the stream's window chunk bytes at a time, as a file is read. */
int trace_parse_pytorch(const char *name, const char *text, size_t len, size_t chunk, struct trace *t,
			struct app_status *st);
void trace_free(struct trace *t);

const char *trace_format_name(enum trace_format format);

/* A kernel's duration in seconds: what ridge calibrate fits. */
double trace_kernel_seconds(const struct trace_kernel *k);

/* A kernel's name and its operator's ("" when unknown). */
const char *trace_kernel_name(const struct trace *t, const struct trace_kernel *k);
const char *trace_kernel_op(const struct trace *t, const struct trace_kernel *k);

/* What a command reports, derived from the records. */
struct trace_kernel_group {
	const char *name; /* points into the trace */
	const char *op;
	long long calls;
	double total_s, min_s, max_s;
	const struct trace_kernel *first; /* grid, block and registers of the first launch */
	bool shape_varies;                /* a later launch had another grid, block or register count */
};

struct trace_summary {
	double span_s;   /* first kernel start to last kernel end, over every device */
	double busy_s;   /* union of kernel intervals, per device, summed over the devices */
	double kernel_s; /* sum of kernel durations */
	int gaps;        /* idle intervals between kernels (each device's timeline) */
	double idle_s, median_gap_s, max_gap_s;
	long long launches; /* host launch API calls (cudaLaunchKernel, cuLaunchKernel, ...) */
	double launch_s;
	long long mallocs;
	double malloc_s;
	long long syncs;
	double sync_s;
	int group_count;
	struct trace_kernel_group *groups; /* by total time, longest first */
};

/* Returns 0, or -1 (out of memory). No sum overflows: trace_load checked the
 * sum of every kernel's duration, which bounds every other. */
int trace_summarize(const struct trace *t, struct trace_summary *s);
void trace_summary_free(struct trace_summary *s);

/* ---- ridge trace FILE: the summary as text or JSON (trace_view.c) ---- */

struct trace_report {
	const char *path;
	long long steps, tokens; /* the steps and tokens the trace covers; 0: not given */
	int top;                 /* kernel names listed, longest total first */
	struct trace trace;
	struct trace_summary summary;
};

/* Reads and summarizes r->path (path, steps, tokens and top set by the
 * caller). Returns 0, or -1 with why in st: the trace cannot be read (exit
 * 2), out of memory (exit 3); nothing to close then. */
int trace_report_open(struct trace_report *r, struct app_status *st);
/* The summary on out, then the --json document returned for the front end. */
void trace_report_print(FILE *out, const struct trace_report *r);
cJSON *trace_report_json(const struct trace_report *r);
void trace_report_close(struct trace_report *r);

/* ridge trace FILE's options (the command: trace_view.c). */
#define TRACE_PARAMS(X)                                                                                           \
	X(TRACE_STEPS, PARAM_INT("steps", 1, PARAM_BATCH_MAX, .metavar = "N",                                     \
				 .help = "the trace covers N steps (decode steps, iterations): per-step counts")) \
	X(TRACE_TOKENS, PARAM_INT("tokens", 1, PARAM_TOKENS_MAX, .metavar = "N",                                  \
				  .help = "the trace produced N tokens: per-token counts"))                       \
	X(TRACE_TOP, PARAM_INT("top", 1, PARAM_COUNT_MAX, .metavar = "N",                                         \
			       .help = "kernels listed, longest total first (default 10)"))                       \
	X(TRACE_JSON, CALC_JSON_ROW)
PARAMS_ENUM(trace_params, TRACE_PARAMS);
extern const struct params_command trace_params_command;

#endif
