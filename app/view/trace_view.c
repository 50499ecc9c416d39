/* ridge trace's views: a trace's kernels by total time, launches per step or
 * token, host API time and gaps, as text on a stream or as the --json document
 * (the summary is trace.c's trace_summarize). */
#include "trace.h"

#include <stdio.h>

#include "app.h"
#include "format.h"
#include "json_fields.h"
#include "json_out.h"

int trace_report_open(struct trace_report *r, struct app_status *st)
{
	if (trace_load(r->path, &r->trace, NULL, st) != 0)
		return -1;
	if (trace_summarize(&r->trace, &r->summary) != 0) {
		trace_free(&r->trace);
		app_error_env(st, "out of memory summarizing '%s'", r->path);
		return -1;
	}
	return 0;
}

void trace_report_close(struct trace_report *r)
{
	trace_summary_free(&r->summary);
	trace_free(&r->trace);
}

/* ---- text ---- */

static void print_groups(FILE *out, const struct trace_summary *s, int top)
{
	int n = s->group_count < top ? s->group_count : top;
	fprintf(out, "kernels by total time (%d of %d names)\n", n, s->group_count);
	fprintf(out, "  %-40s %7s %11s %11s %6s  %-14s %-12s %4s  %s\n", "kernel", "calls", "total", "average", "share",
		"grid", "block", "regs", "operator");
	for (int i = 0; i < n; i++) {
		const struct trace_kernel_group *g = &s->groups[i];
		char total[32], avg[32], grid[40], block[40];
		fmt_seconds(g->total_s, total, sizeof total);
		fmt_seconds(g->total_s / g->calls, avg, sizeof avg);
		snprintf(grid, sizeof grid, "%d,%d,%d", g->first->grid[0], g->first->grid[1], g->first->grid[2]);
		snprintf(block, sizeof block, "%d,%d,%d", g->first->block[0], g->first->block[1], g->first->block[2]);
		fprintf(out, "  %-40.40s %7lld %11s %11s %5.1f%%  %-14s %-12s %4d  %s%s\n", g->name, g->calls, total,
			avg, s->kernel_s > 0 ? 100 * g->total_s / s->kernel_s : 0, grid, block, g->first->registers,
			g->op && g->op[0] ? g->op : "-", g->shape_varies ? " (shape varies)" : "");
	}
}

static void print_per(FILE *out, const char *what, long long n, const struct trace *t, const struct trace_summary *s)
{
	char kernel[32], span[32];
	fmt_seconds(s->kernel_s / n, kernel, sizeof kernel);
	fmt_seconds(s->span_s / n, span, sizeof span);
	fprintf(out, "per %s (%lld): %.4g kernel launches, %s of kernels, %s of trace\n", what, n,
		(double)t->kernel_count / n, kernel, span);
}

static void print_host(FILE *out, const struct trace *t, const struct trace_summary *s)
{
	if (!t->has_api) {
		fprintf(out, "host API: not in this trace (nsys profile --trace=cuda records it)\n");
		return;
	}
	char each[32], total[32];
	fprintf(out, "host API\n");
	if (s->launches) {
		fmt_seconds(s->launch_s / s->launches, each, sizeof each);
		fmt_seconds(s->launch_s, total, sizeof total);
		fprintf(out, "  kernel launches     %7lld calls, %s each, %s in all\n", s->launches, each, total);
	}
	fmt_seconds(s->malloc_s, total, sizeof total);
	fprintf(out, "  cudaMalloc          %7lld calls, %s\n", s->mallocs, total);
	fmt_seconds(s->sync_s, total, sizeof total);
	fprintf(out, "  synchronizations    %7lld calls, %s\n", s->syncs, total);
	if (t->has_copies) {
		char bytes[32];
		fmt_bytes(t->dtoh.bytes, bytes, sizeof bytes);
		fmt_seconds((double)t->dtoh.total_ns / 1e9, total, sizeof total);
		fprintf(out, "  device-to-host      %7lld copies, %s, %s\n", t->dtoh.count, bytes, total);
	}
	int n = t->api_count < 5 ? t->api_count : 5;
	fprintf(out, "  longest:");
	for (int i = 0; i < n; i++) {
		fmt_seconds((double)t->apis[i].total_ns / 1e9, total, sizeof total);
		fprintf(out, "%s %s %s (%lld)", i ? "," : "", t->apis[i].name, total, t->apis[i].calls);
	}
	fprintf(out, "\n");
}

void trace_report_print(FILE *out, const struct trace_report *r)
{
	const struct trace *t = &r->trace;
	const struct trace_summary *s = &r->summary;
	char span[32], busy[32], idle[32], median[32], max[32];
	fmt_seconds(s->span_s, span, sizeof span);
	fmt_seconds(s->busy_s, busy, sizeof busy);
	/* Each GPU's timeline is its own: the busy share is of the span on every one. */
	double capacity_s = s->span_s * (t->device_count > 1 ? t->device_count : 1);
	fprintf(out, "%s (%s): %d kernel launches over %s, GPU busy %s (%.1f%%)", r->path, trace_format_name(t->format),
		t->kernel_count, span, busy, capacity_s > 0 ? 100 * s->busy_s / capacity_s : 0);
	if (t->device_count > 1)
		fprintf(out, " summed over %d GPUs, each its own timeline", t->device_count);
	fprintf(out, "\n");
	if (r->steps)
		print_per(out, "step", r->steps, t, s);
	if (r->tokens)
		print_per(out, "token", r->tokens, t, s);
	fprintf(out, "\n");
	print_groups(out, s, r->top);
	fprintf(out, "\n");
	print_host(out, t, s);
	fmt_seconds(s->idle_s, idle, sizeof idle);
	fmt_seconds(s->median_gap_s, median, sizeof median);
	fmt_seconds(s->max_gap_s, max, sizeof max);
	fprintf(out, "\ngaps between kernels: %d, %s idle in all, median %s, longest %s\n", s->gaps, idle, median, max);
}

/* ---- JSON ---- */

static const struct json_field time_fields[] = {
	JSON_FIELDS(struct trace_summary, span_s, busy_s, kernel_s),
};
static const struct json_field malloc_sync_fields[] = {
	JSON_FIELD_AS(struct trace_summary, "malloc_calls", mallocs),
	JSON_FIELD(struct trace_summary, malloc_s),
	JSON_FIELD_AS(struct trace_summary, "synchronizations", syncs),
	JSON_FIELD_AS(struct trace_summary, "synchronization_s", sync_s),
};
static const struct json_field dtoh_fields[] = {
	JSON_FIELD_AS(struct trace_copies, "device_to_host_copies", count),
	JSON_FIELD_AS(struct trace_copies, "device_to_host_bytes", bytes),
};
static const struct json_field gap_fields[] = {
	JSON_FIELD_AS(struct trace_summary, "count", gaps),
	JSON_FIELD(struct trace_summary, idle_s),
	JSON_FIELD_AS(struct trace_summary, "median_s", median_gap_s),
	JSON_FIELD_AS(struct trace_summary, "max_s", max_gap_s),
};

static void add_per(cJSON *doc, const char *key, long long n, const struct trace *t, const struct trace_summary *s)
{
	cJSON *o = cJSON_AddObjectToObject(doc, key);
	cJSON_AddNumberToObject(o, "count", (double)n);
	json_number(o, "kernel_launches", (double)t->kernel_count / n);
	json_number(o, "kernel_s", s->kernel_s / n);
	json_number(o, "span_s", s->span_s / n);
}

static cJSON *group_json(const struct trace_kernel_group *g)
{
	cJSON *k = cJSON_CreateObject();
	cJSON_AddStringToObject(k, "name", g->name);
	cJSON_AddNumberToObject(k, "calls", (double)g->calls);
	json_number(k, "total_s", g->total_s);
	json_number(k, "average_s", g->total_s / g->calls);
	json_number(k, "min_s", g->min_s);
	json_number(k, "max_s", g->max_s);
	cJSON_AddItemToObject(k, "grid", cJSON_CreateIntArray(g->first->grid, 3));
	cJSON_AddItemToObject(k, "block", cJSON_CreateIntArray(g->first->block, 3));
	cJSON_AddNumberToObject(k, "registers_per_thread", g->first->registers);
	cJSON_AddBoolToObject(k, "shape_varies", g->shape_varies);
	if (g->op && g->op[0])
		cJSON_AddStringToObject(k, "operator", g->op);
	return k;
}

static void add_host(cJSON *doc, const struct trace *t, const struct trace_summary *s)
{
	cJSON *host = cJSON_AddObjectToObject(doc, "host");
	cJSON_AddBoolToObject(host, "recorded", t->has_api);
	cJSON_AddNumberToObject(host, "launches", (double)s->launches);
	json_number(host, "launch_s", s->launch_s);
	if (s->launches)
		json_number(host, "launch_each_s", s->launch_s / s->launches);
	json_put_fields(host, s, malloc_sync_fields, JSON_FIELD_COUNT(malloc_sync_fields));
	json_put_fields(host, &t->dtoh, dtoh_fields, JSON_FIELD_COUNT(dtoh_fields));
	json_number(host, "device_to_host_s", (double)t->dtoh.total_ns / 1e9);
	cJSON *apis = cJSON_AddArrayToObject(host, "apis");
	for (int i = 0; i < t->api_count; i++) {
		cJSON *a = cJSON_CreateObject();
		cJSON_AddStringToObject(a, "name", t->apis[i].name);
		cJSON_AddNumberToObject(a, "calls", (double)t->apis[i].calls);
		json_number(a, "total_s", (double)t->apis[i].total_ns / 1e9);
		cJSON_AddItemToArray(apis, a);
	}
}

cJSON *trace_report_json(const struct trace_report *r)
{
	const struct trace *t = &r->trace;
	const struct trace_summary *s = &r->summary;
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "file", r->path);
	cJSON_AddStringToObject(doc, "format", t->format == TRACE_NSYS_SQLITE ? "nsys_sqlite" : "pytorch_chrome_trace");
	cJSON_AddNumberToObject(doc, "kernel_launches", t->kernel_count);
	cJSON_AddNumberToObject(doc, "devices", t->device_count);
	json_put_fields(doc, s, time_fields, JSON_FIELD_COUNT(time_fields));
	if (r->steps)
		add_per(doc, "per_step", r->steps, t, s);
	if (r->tokens)
		add_per(doc, "per_token", r->tokens, t, s);
	cJSON *kernels = cJSON_AddArrayToObject(doc, "kernels");
	for (int i = 0; i < s->group_count && i < r->top; i++)
		cJSON_AddItemToArray(kernels, group_json(&s->groups[i]));
	add_host(doc, t, s);
	json_put_fields(cJSON_AddObjectToObject(doc, "gaps"), s, gap_fields, JSON_FIELD_COUNT(gap_fields));
	return doc;
}

/* ---- the command line: ridge trace FILE ---- */

static const char trace_synopsis[] =
	"usage: ridge trace FILE.sqlite|FILE.json [--steps N] [--tokens N] [--top N] [--json]";
static const char trace_description[] =
	"Reads a profiler trace: an Nsight Systems SQLite export (nsys export --type sqlite\n"
	"REPORT.nsys-rep) or a PyTorch profiler trace (prof.export_chrome_trace(PATH) with\n"
	"ProfilerActivity.CUDA). Prints the kernels by total time (calls, average, grid,\n"
	"block, registers, the operator that issued them), launches and kernel time per\n"
	"step or token, host API time (launch cost per call, cudaMalloc, synchronizations,\n"
	"device-to-host copies) and the gaps where the GPU ran no kernel. Kernels of several\n"
	"GPUs are each GPU's own timeline: busy time and gaps per GPU, the busy share of\n"
	"the span on every GPU.\n"
	"The file is only read (SQLite: read-only and immutable); a row that ends before it\n"
	"starts, lasts more than a day or lies past +-2^61 ns, a view named like an nsys\n"
	"table, a StringIds id given twice, duplicate JSON keys or text after the JSON, and\n"
	"input past the limits of util/read_limits.h are refused (exit 2).\n"
	"ridge launch --trace FILE takes the kernels per step and the cost per launch from it.\n";

static const struct param trace_params[] = PARAMS_ROWS(TRACE_PARAMS);

const struct params_command trace_params_command = {
	.name = "trace",
	PARAMS_COMMAND_TABLE(trace_params),
	.synopsis = trace_synopsis,
	.description = trace_description,
	.operands = 1,
	.need = "trace needs a file: an nsys SQLite export or a PyTorch trace (see 'ridge trace --help')",
};
