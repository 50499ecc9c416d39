/* ridge trace FILE: what a profiler trace says about launches and kernels
 * (cli/trace.h reads nsys SQLite exports and PyTorch traces). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "params.h"
#include "trace.h"

static const struct param trace_params[] = {
	{ "steps", PARAM_INTEGER, 0, NULL, 1, 1e9, 0, "N",
	  "the trace covers N steps (decode steps, iterations): per-step counts", NULL, NULL },
	{ "tokens", PARAM_INTEGER, 0, NULL, 1, 1e12, 0, "N", "the trace produced N tokens: per-token counts", NULL,
	  NULL },
	{ "top", PARAM_INTEGER, 0, NULL, 1, 1e6, 0, "N", "kernels listed, longest total first (default 10)", NULL,
	  NULL },
	{ "json", PARAM_FLAG, 0, NULL, 0, 0, PARAM_CLI_ONLY, NULL, "one JSON document on stdout (SI units)", NULL,
	  NULL },
};
#define TRACE_PARAM_COUNT (int)(sizeof trace_params / sizeof trace_params[0])

static const char trace_synopsis[] =
	"usage: ridge trace FILE.sqlite|FILE.json [--steps N] [--tokens N] [--top N] [--json]";
static const char trace_description[] =
	"Reads a profiler trace: an Nsight Systems SQLite export (nsys export --type sqlite\n"
	"REPORT.nsys-rep) or a PyTorch profiler trace (prof.export_chrome_trace(PATH) with\n"
	"ProfilerActivity.CUDA). Prints the kernels by total time (calls, average, grid,\n"
	"block, registers, the operator that issued them), launches and kernel time per\n"
	"step or token, host API time (launch cost per call, cudaMalloc, synchronizations,\n"
	"device-to-host copies) and the gaps where the GPU ran no kernel.\n"
	"ridge launch --trace FILE takes the kernels per step and the cost per launch from it.\n";

static void print_groups(const struct trace_summary *s, int top)
{
	int n = s->group_count < top ? s->group_count : top;
	printf("kernels by total time (%d of %d names)\n", n, s->group_count);
	printf("  %-40s %7s %11s %11s %6s  %-14s %-12s %4s  %s\n", "kernel", "calls", "total", "average", "share",
	       "grid", "block", "regs", "operator");
	for (int i = 0; i < n; i++) {
		const struct trace_kernel_group *g = &s->groups[i];
		char total[32], avg[32], grid[40], block[40];
		fmt_seconds(g->total_s, total, sizeof total);
		fmt_seconds(g->total_s / g->calls, avg, sizeof avg);
		snprintf(grid, sizeof grid, "%d,%d,%d", g->first->grid[0], g->first->grid[1], g->first->grid[2]);
		snprintf(block, sizeof block, "%d,%d,%d", g->first->block[0], g->first->block[1], g->first->block[2]);
		printf("  %-40.40s %7d %11s %11s %5.1f%%  %-14s %-12s %4d  %s%s\n", g->name, g->calls, total, avg,
		       100 * g->total_s / s->kernel_s, grid, block, g->first->registers,
		       g->op && g->op[0] ? g->op : "-", g->shape_varies ? " (shape varies)" : "");
	}
}

static void print_per(const char *what, long long n, const struct trace *t, const struct trace_summary *s)
{
	char kernel[32], span[32];
	fmt_seconds(s->kernel_s / n, kernel, sizeof kernel);
	fmt_seconds(s->span_s / n, span, sizeof span);
	printf("per %s (%lld): %.4g kernel launches, %s of kernels, %s of trace\n", what, n,
	       (double)t->kernel_count / n, kernel, span);
}

static void print_host(const struct trace *t, const struct trace_summary *s)
{
	if (!t->has_api) {
		printf("host API: not in this trace (nsys profile --trace=cuda records it)\n");
		return;
	}
	char each[32], total[32];
	printf("host API\n");
	if (s->launches) {
		fmt_seconds(s->launch_s / s->launches, each, sizeof each);
		fmt_seconds(s->launch_s, total, sizeof total);
		printf("  kernel launches     %7d calls, %s each, %s in all\n", s->launches, each, total);
	}
	fmt_seconds(s->malloc_s, total, sizeof total);
	printf("  cudaMalloc          %7d calls, %s\n", s->mallocs, total);
	fmt_seconds(s->sync_s, total, sizeof total);
	printf("  synchronizations    %7d calls, %s\n", s->syncs, total);
	if (t->has_copies) {
		char bytes[32];
		fmt_bytes(t->dtoh.bytes, bytes, sizeof bytes);
		fmt_seconds((double)t->dtoh.total_ns / 1e9, total, sizeof total);
		printf("  device-to-host      %7d copies, %s, %s\n", t->dtoh.count, bytes, total);
	}
	int n = t->api_count < 5 ? t->api_count : 5;
	printf("  longest:");
	for (int i = 0; i < n; i++) {
		fmt_seconds((double)t->apis[i].total_ns / 1e9, total, sizeof total);
		printf("%s %s %s (%d)", i ? "," : "", t->apis[i].name, total, t->apis[i].calls);
	}
	printf("\n");
}

static void print_text(const char *path, const struct trace *t, const struct trace_summary *s, long long steps,
		       long long tokens, int top)
{
	char span[32], busy[32], idle[32], median[32], max[32];
	fmt_seconds(s->span_s, span, sizeof span);
	fmt_seconds(s->busy_s, busy, sizeof busy);
	printf("%s (%s): %d kernel launches over %s, GPU busy %s (%.1f%%)\n", path, trace_format_name(t->format),
	       t->kernel_count, span, busy, s->span_s > 0 ? 100 * s->busy_s / s->span_s : 0);
	if (steps)
		print_per("step", steps, t, s);
	if (tokens)
		print_per("token", tokens, t, s);
	printf("\n");
	print_groups(s, top);
	printf("\n");
	print_host(t, s);
	fmt_seconds(s->idle_s, idle, sizeof idle);
	fmt_seconds(s->median_gap_s, median, sizeof median);
	fmt_seconds(s->max_gap_s, max, sizeof max);
	printf("\ngaps between kernels: %d, %s idle in all, median %s, longest %s\n", s->gaps, idle, median, max);
}

static void add_per(cJSON *doc, const char *key, long long n, const struct trace *t, const struct trace_summary *s)
{
	cJSON *o = cJSON_AddObjectToObject(doc, key);
	cJSON_AddNumberToObject(o, "count", (double)n);
	json_number(o, "kernel_launches", (double)t->kernel_count / n);
	json_number(o, "kernel_s", s->kernel_s / n);
	json_number(o, "span_s", s->span_s / n);
}

static cJSON *dim3_json(const int v[3])
{
	return cJSON_CreateIntArray(v, 3);
}

static int print_json(const char *path, const struct trace *t, const struct trace_summary *s, long long steps,
		      long long tokens, int top)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "file", path);
	cJSON_AddStringToObject(doc, "format", t->format == TRACE_NSYS_SQLITE ? "nsys_sqlite" : "pytorch_chrome_trace");
	cJSON_AddNumberToObject(doc, "kernel_launches", t->kernel_count);
	json_number(doc, "span_s", s->span_s);
	json_number(doc, "busy_s", s->busy_s);
	json_number(doc, "kernel_s", s->kernel_s);
	if (steps)
		add_per(doc, "per_step", steps, t, s);
	if (tokens)
		add_per(doc, "per_token", tokens, t, s);
	cJSON *kernels = cJSON_AddArrayToObject(doc, "kernels");
	for (int i = 0; i < s->group_count && i < top; i++) {
		const struct trace_kernel_group *g = &s->groups[i];
		cJSON *k = cJSON_CreateObject();
		cJSON_AddStringToObject(k, "name", g->name);
		cJSON_AddNumberToObject(k, "calls", g->calls);
		json_number(k, "total_s", g->total_s);
		json_number(k, "average_s", g->total_s / g->calls);
		json_number(k, "min_s", g->min_s);
		json_number(k, "max_s", g->max_s);
		cJSON_AddItemToObject(k, "grid", dim3_json(g->first->grid));
		cJSON_AddItemToObject(k, "block", dim3_json(g->first->block));
		cJSON_AddNumberToObject(k, "registers_per_thread", g->first->registers);
		cJSON_AddBoolToObject(k, "shape_varies", g->shape_varies);
		if (g->op && g->op[0])
			cJSON_AddStringToObject(k, "operator", g->op);
		cJSON_AddItemToArray(kernels, k);
	}
	cJSON *host = cJSON_AddObjectToObject(doc, "host");
	cJSON_AddBoolToObject(host, "recorded", t->has_api);
	cJSON_AddNumberToObject(host, "launches", s->launches);
	json_number(host, "launch_s", s->launch_s);
	if (s->launches)
		json_number(host, "launch_each_s", s->launch_s / s->launches);
	cJSON_AddNumberToObject(host, "malloc_calls", s->mallocs);
	json_number(host, "malloc_s", s->malloc_s);
	cJSON_AddNumberToObject(host, "synchronizations", s->syncs);
	json_number(host, "synchronization_s", s->sync_s);
	cJSON_AddNumberToObject(host, "device_to_host_copies", t->dtoh.count);
	json_number(host, "device_to_host_bytes", t->dtoh.bytes);
	json_number(host, "device_to_host_s", (double)t->dtoh.total_ns / 1e9);
	cJSON *apis = cJSON_AddArrayToObject(host, "apis");
	for (int i = 0; i < t->api_count; i++) {
		cJSON *a = cJSON_CreateObject();
		cJSON_AddStringToObject(a, "name", t->apis[i].name);
		cJSON_AddNumberToObject(a, "calls", t->apis[i].calls);
		json_number(a, "total_s", (double)t->apis[i].total_ns / 1e9);
		cJSON_AddItemToArray(apis, a);
	}
	cJSON *gaps = cJSON_AddObjectToObject(doc, "gaps");
	cJSON_AddNumberToObject(gaps, "count", s->gaps);
	json_number(gaps, "idle_s", s->idle_s);
	json_number(gaps, "median_s", s->median_gap_s);
	json_number(gaps, "max_s", s->max_gap_s);
	return cli_json_print(doc);
}

static int run_trace(int argc, char **argv)
{
	struct param_values v;
	params_init(&v, trace_params, TRACE_PARAM_COUNT);
	const char *files[1];
	int nfiles = 0;
	int rc = params_parse_argv(&v, "trace", trace_synopsis, trace_description, argc, argv, files, 1, &nfiles);
	if (rc == 1)
		return EXIT_OK;
	if (rc != 0)
		return rc;
	if (nfiles != 1) {
		cli_error("trace needs a file: an nsys SQLite export or a PyTorch trace (see 'ridge trace --help')");
		return EXIT_USAGE;
	}
	struct trace t;
	struct app_status st;
	app_status_init(&st);
	if (trace_load(files[0], &t, NULL, &st) != 0) {
		cli_report(&st);
		return EXIT_USAGE;
	}
	struct trace_summary s;
	if (trace_summarize(&t, &s) != 0) {
		trace_free(&t);
		cli_error("out of memory summarizing '%s'", files[0]);
		return EXIT_ENV;
	}
	long long steps = params_has(&v, "steps") ? (long long)params_num(&v, "steps") : 0;
	long long tokens = params_has(&v, "tokens") ? (long long)params_num(&v, "tokens") : 0;
	int top = params_has(&v, "top") ? (int)params_num(&v, "top") : 10;
	if (params_flag(&v, "json")) {
		rc = print_json(files[0], &t, &s, steps, tokens, top) != 0 ? EXIT_ENV : EXIT_OK;
	} else {
		print_text(files[0], &t, &s, steps, tokens, top);
		rc = EXIT_OK;
	}
	trace_summary_free(&s);
	trace_free(&t);
	return rc;
}

const struct cli_command cli_cmd_trace = {
	"trace", run_trace, "a profiler trace (nsys SQLite, PyTorch): kernels, launches, host API, gaps"
};
