/* ridge launch: kernel-launch overhead per step, eager vs CUDA/HIP graph vs a
 * persistent kernel (model/launch.h). Also the scenario item kind "launch".
 * cli/cmd_launch.c keeps the command line (--trace's flags added to argv). */
#include "launch_calc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "app.h"
#include "calc.h"
#include "format.h"
#include "json_fields.h"
#include "json_out.h"
#include "launch.h"
#include "trace.h"

#define LAUNCH_PARAMS(X)                                                                                             \
	X(LAUNCH_KERNELS_PER_LAYER, PARAM_INT("kernels_per_layer", 1, PARAM_COUNT_MAX, .flags = PARAM_REQUIRED,      \
					      .metavar = "K", .help = "kernels launched per layer per step"))        \
	X(LAUNCH_LAYERS, PARAM_INT("layers", 1, PARAM_COUNT_MAX, .flags = PARAM_REQUIRED | PARAM_MODEL,              \
				   .metavar = "L", .help = "layers"))                                                \
	X(LAUNCH_EXTRA_KERNELS, PARAM_INT("extra_kernels", 0, PARAM_BATCH_MAX, .metavar = "N",                       \
					  .help = "kernels per step outside the layers (default 0)"))                \
	X(LAUNCH_LAUNCH_US, PARAM_NUM("launch_us", RIDGE_UNIT_SECONDS, 0, 1, .bare_unit = "us", .metavar = "U",      \
				      .help = "host cost of one launch, us (default: the GPU's hwdb or calibration " \
					      "value)",                                                              \
				      .range = "0 to 1 s"))                                                          \
	X(LAUNCH_GRAPH_NODE_US,                                                                                      \
	  PARAM_NUM("graph_node_us", RIDGE_UNIT_SECONDS, 0, 1, .bare_unit = "us", .metavar = "G",                    \
		    .help = "per-node cost of a graph replay, us (default: hwdb)", .range = "0 to 1 s"))             \
	X(LAUNCH_GRAPH_LAUNCH_US,                                                                                    \
	  PARAM_NUM("graph_launch_us", RIDGE_UNIT_SECONDS, 0, 1, .bare_unit = "us", .metavar = "U",                  \
		    .help = "cost of the one graph launch, us (default: the launch cost)", .range = "0 to 1 s"))     \
	X(LAUNCH_GRAPH_US, PARAM_NUM("graph_us", RIDGE_UNIT_SECONDS, 0, 10, .bare_unit = "us", .metavar = "T",       \
				     .help = "the whole replay cost per step, us, instead of launch + nodes (the "   \
					     "textbook's 24)",                                                       \
				     .range = "0 to 10 s"))                                                          \
	X(LAUNCH_STEP_MS,                                                                                            \
	  PARAM_NUM("step_ms", RIDGE_UNIT_SECONDS, 0, PARAM_HOUR_S, .bare_unit = "ms", .flags = PARAM_OPEN_LO,       \
		    .metavar = "S", .help = "measured eager step time (TPOT), ms, launches included",                \
		    .range = "greater than 0, at most 3600 s"))                                                      \
	X(LAUNCH_GRAPH_STEP_MS,                                                                                      \
	  PARAM_NUM("graph_step_ms", RIDGE_UNIT_SECONDS, 0, PARAM_HOUR_S, .bare_unit = "ms", .flags = PARAM_OPEN_LO, \
		    .metavar = "S", .help = "measured step time with graphs, ms: infers the per-launch cost",        \
		    .range = "greater than 0, at most 3600 s"))                                                      \
	X(LAUNCH_TARGET_MS,                                                                                          \
	  PARAM_NUM("target_ms", RIDGE_UNIT_SECONDS, 0, PARAM_HOUR_S, .bare_unit = "ms", .flags = PARAM_OPEN_LO,     \
		    .metavar = "T", .help = "a step-time target, ms: the share the eager overhead would take",       \
		    .range = "greater than 0, at most 3600 s"))                                                      \
	X(LAUNCH_TRACE,                                                                                              \
	  PARAM_TEXT_ROW("trace", .flags = PARAM_CLI_ONLY, .metavar = "FILE",                                        \
			 .help = "a profiler trace (ridge trace): kernels per step, us per launch and the "          \
				 "step time from it"))                                                               \
	X(LAUNCH_STEPS, PARAM_INT("steps", 1, PARAM_BATCH_MAX, .flags = PARAM_CLI_ONLY, .metavar = "N",              \
				  .help = "with --trace: the steps it covers (default 1)"))                          \
	CALC_GPU_ROWS(X, LAUNCH)                                                                                     \
	X(LAUNCH_JSON, CALC_JSON_ROW)
PARAMS_TABLE(launch_params, LAUNCH_PARAMS);

/* What --trace supplied (launch_trace_fill sets it for the command's one
 * run of calc_launch; a scenario item never reads it). */
static struct {
	const char *path;
	bool launch, kernels, step;
	double kernels_per_step;
} from_trace;

/* An input and its result side by side, so that one member table can
 * interleave their keys in the document's order. */
struct launch_shown {
	struct ridge_launch_input in;
	struct ridge_launch_result r;
};
#define INPUT(member) JSON_FIELD_AS(struct launch_shown, #member, in.member)
#define RESULT(member) JSON_FIELD_AS(struct launch_shown, #member, r.member)

static const struct json_field launch_fields[] = {
	INPUT(kernels_per_layer), INPUT(layers),
	INPUT(extra_kernels),     RESULT(launches),
	INPUT(launch_s),          INPUT(graph_node_s),
	INPUT(graph_launch_s),    JSON_FIELD_AS(struct launch_shown, "graph_total_given", in.has_graph_total),
	RESULT(overhead_s),       RESULT(graph_overhead_s),
	RESULT(graph_saving_s),
};
static const struct json_field step_fields[] = {
	INPUT(step_s),         RESULT(fraction_of_step),   RESULT(tpot_eager_s),
	RESULT(tpot_graph_s),  RESULT(tpot_persistent_s),  RESULT(graph_fraction_of_step),
	RESULT(graph_speedup), RESULT(persistent_speedup),
};
static const struct json_field graph_step_fields[] = {
	INPUT(graph_step_s),         RESULT(measured_saving_s),
	RESULT(inferred_launch_s),   RESULT(inferred_launch_replay_s),
	RESULT(inferred_vs_assumed),
};
static const struct json_field target_fields[] = {
	INPUT(target_s),
	RESULT(target_overhead_s),
	RESULT(fraction_of_target),
	RESULT(graph_fraction_of_target),
};

void calc_json_launch(cJSON *o, const struct ridge_launch_input *li, const struct ridge_launch_result *r)
{
	const struct launch_shown s = { *li, *r };
	json_put_fields(o, &s, launch_fields, JSON_FIELD_COUNT(launch_fields));
	json_ratio(o, "graph_reduction", r->overhead_s, r->graph_overhead_s);
	json_number(o, "persistent_overhead_s", r->persistent_overhead_s);
	if (li->has_step)
		json_put_fields(o, &s, step_fields, JSON_FIELD_COUNT(step_fields));
	if (li->has_graph_step)
		json_put_fields(o, &s, graph_step_fields, JSON_FIELD_COUNT(graph_step_fields));
	if (li->has_target)
		json_put_fields(o, &s, target_fields, JSON_FIELD_COUNT(target_fields));
}

static cJSON *launch_run(struct calc_input *in)
{
	const struct param_values *v = in->values;
	struct ridge_launch_input li = { 0 };
	launch_defaults(in->gpu, &li);
	li.kernels_per_layer = params_num(v, LAUNCH_KERNELS_PER_LAYER);
	li.layers = params_num(v, LAUNCH_LAYERS);
	li.extra_kernels = params_has(v, LAUNCH_EXTRA_KERNELS) ? params_num(v, LAUNCH_EXTRA_KERNELS) : 0;
	const char *hwdb_source = in->gpu->measured ? "measured" : "hwdb";
	const char *launch_source = hwdb_source, *node_source = hwdb_source;
	if (params_has(v, LAUNCH_LAUNCH_US)) {
		li.launch_s = params_num(v, LAUNCH_LAUNCH_US);
		li.graph_launch_s = li.launch_s;
		launch_source = from_trace.launch ? "trace" : "given";
	}
	if (params_has(v, LAUNCH_GRAPH_NODE_US)) {
		li.graph_node_s = params_num(v, LAUNCH_GRAPH_NODE_US);
		node_source = "given";
	}
	if (params_has(v, LAUNCH_GRAPH_LAUNCH_US))
		li.graph_launch_s = params_num(v, LAUNCH_GRAPH_LAUNCH_US);
	/* The optional times the model takes with a flag saying they were given. */
	const struct {
		int param;
		bool *given;
		double *value;
	} optional[] = {
		{ LAUNCH_GRAPH_US, &li.has_graph_total, &li.graph_total_s },
		{ LAUNCH_STEP_MS, &li.has_step, &li.step_s },
		{ LAUNCH_GRAPH_STEP_MS, &li.has_graph_step, &li.graph_step_s },
		{ LAUNCH_TARGET_MS, &li.has_target, &li.target_s },
	};
	for (size_t i = 0; i < sizeof optional / sizeof optional[0]; i++)
		if ((*optional[i].given = params_has(v, optional[i].param)))
			*optional[i].value = params_num(v, optional[i].param);
	if (li.has_graph_step && !li.has_step) {
		snprintf(in->err, sizeof in->err, "%s needs %s (the eager step it is compared with)",
			 params_where(v, LAUNCH_GRAPH_STEP_MS), params_where(v, LAUNCH_STEP_MS));
		return NULL;
	}
	struct ridge_launch_result r;
	char err[400];
	if (launch_compute(&li, &r, err, sizeof err) != 0) {
		snprintf(in->err, sizeof in->err, "%s", err);
		return NULL;
	}

	cJSON *o = cJSON_CreateObject();
	calc_json_gpu(o, in->gpu);
	cJSON_AddStringToObject(o, "launch_source", launch_source);
	if (from_trace.path && !in->item) {
		cJSON_AddStringToObject(o, "trace", from_trace.path);
		json_number(o, "trace_kernels_per_step", from_trace.kernels_per_step);
		cJSON_AddBoolToObject(o, "trace_step", from_trace.step);
	}
	cJSON_AddStringToObject(o, "graph_node_source", node_source);
	calc_json_launch(o, &li, &r);
	return o;
}

static void sec(double s, char *buf, size_t len)
{
	fmt_seconds(s, buf, len);
}

static void launch_print(FILE *out, const cJSON *r)
{
	char a[48], b[48], c[48], d[48];
	sec(calc_num(r, "launch_s"), a, sizeof a);
	sec(calc_num(r, "graph_node_s"), b, sizeof b);
	fprintf(out, "Launch overhead on %s: %s per launch (%s), %s per graph node (%s)\n", calc_str(r, "gpu"), a,
		calc_str(r, "launch_source"), b, calc_str(r, "graph_node_source"));
	double k = calc_num(r, "launches");
	if (calc_has(r, "trace"))
		fprintf(out, "  from %s: %.4g kernels per step%s\n", calc_str(r, "trace"),
			calc_num(r, "trace_kernels_per_step"),
			cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "trace_step"))
				? ", the step time its kernels span"
				: "");
	fprintf(out, "  %.0f launches per step (%.0f per layer x %.0f layers", k, calc_num(r, "kernels_per_layer"),
		calc_num(r, "layers"));
	if (calc_num(r, "extra_kernels") > 0)
		fprintf(out, " + %.0f", calc_num(r, "extra_kernels"));
	fprintf(out, ")\n\n");

	char left[96];
	sec(calc_num(r, "overhead_s"), c, sizeof c);
	snprintf(left, sizeof left, "%.0f x %s", k, a);
	fprintf(out, "  eager       %-26s = %s per step\n", left, c);
	sec(calc_num(r, "graph_overhead_s"), c, sizeof c);
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "graph_total_given"))) {
		snprintf(left, sizeof left, "one replay (as given)");
	} else {
		sec(calc_num(r, "graph_launch_s"), d, sizeof d);
		snprintf(left, sizeof left, "%s + %.0f x %s", d, k, b);
	}
	sec(calc_num(r, "graph_saving_s"), d, sizeof d);
	char less[40];
	fmt_none(calc_num(r, "graph_reduction"), less, sizeof less, "%.3gx less");
	fprintf(out, "  graph       %-26s = %s per step (saves %s, %s)\n", left, c, d, less);
	fprintf(out, "  persistent  %-26s = 0 per step\n", "one launch, then none");

	if (calc_has(r, "step_s")) {
		char f[32], g[32];
		sec(calc_num(r, "step_s"), a, sizeof a);
		fmt_percent(calc_num(r, "fraction_of_step"), f, sizeof f);
		fprintf(out, "\n  At a %s step the launches are %s of it.\n", a, f);
		sec(calc_num(r, "tpot_graph_s"), b, sizeof b);
		sec(calc_num(r, "tpot_persistent_s"), c, sizeof c);
		fmt_percent(calc_num(r, "graph_fraction_of_step"), g, sizeof g);
		fprintf(out, "  TPOT: eager %s, with a graph %s (%.4gx; replay %s of it), persistent %s (%.4gx)\n", a,
			b, calc_num(r, "graph_speedup"), g, c, calc_num(r, "persistent_speedup"));
	}
	if (calc_has(r, "measured_saving_s")) {
		sec(calc_num(r, "step_s"), a, sizeof a);
		sec(calc_num(r, "graph_step_s"), b, sizeof b);
		sec(calc_num(r, "measured_saving_s"), c, sizeof c);
		fprintf(out, "\n  Measured: %s eager, %s with graphs: %s of launch overhead removed.\n", a, b, c);
		sec(calc_num(r, "inferred_launch_s"), a, sizeof a);
		sec(calc_num(r, "launch_s"), b, sizeof b);
		fprintf(out,
			"  Per launch: %s / %.0f = %s (%.4gx the %s assumed; a lower bound: the replay is taken as free)\n",
			c, k, a, calc_num(r, "inferred_vs_assumed"), b);
		sec(calc_num(r, "inferred_launch_replay_s"), a, sizeof a);
		sec(calc_num(r, "graph_overhead_s"), d, sizeof d);
		fprintf(out, "  Adding back the replay's own %s: %s per launch\n", d, a);
	}
	if (calc_has(r, "target_s")) {
		char f[32], g[32];
		sec(calc_num(r, "target_s"), a, sizeof a);
		sec(calc_num(r, "target_overhead_s"), b, sizeof b);
		fmt_percent(calc_num(r, "fraction_of_target"), f, sizeof f);
		fmt_percent(calc_num(r, "graph_fraction_of_target"), g, sizeof g);
		fprintf(out, "\n  At the %s target: %s of eager launch overhead is %s of it; with a graph, %s.\n", a, b,
			f, g);
	}
}

const struct calc calc_launch = {
	.name = "launch",
	.synopsis = "usage: ridge launch --kernels-per-layer K --layers L [--launch-us U] [--step-ms S]\n"
		    "                    [--graph-node-us G] [--graph-step-ms S2] [--target-ms T] [--gpu GPU] [--json]",
	.description = "Kernel-launch overhead per step: K launches x t_launch eager, one graph launch + K x t_node\n"
		       "with a CUDA/HIP graph, none per step with a persistent kernel. t_launch and t_node come\n"
		       "from the GPU's hwdb entry (or a --calibration measured by ridge-probe) unless given.\n"
		       "With --step-ms: the fraction of the step and TPOT with and without graphs. With\n"
		       "--graph-step-ms too: the per-launch cost the measured saving implies.\n",
	CALC_IMPL(launch_params, launch_run, launch_print),
};

/* ---- --trace ---- */

static void add_fill(struct launch_trace_fill *f, const char *flag, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add_fill(struct launch_trace_fill *f, const char *flag, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	f->flag[f->count] = flag;
	vsnprintf(f->value[f->count], sizeof f->value[f->count], fmt, ap);
	f->count++;
	va_end(ap);
}

int launch_trace_fill(const struct launch_trace_given *given, struct launch_trace_fill *fill, struct app_status *st)
{
	fill->count = 0;
	from_trace.path = given->trace;
	if (!given->trace || !given->trace[0] || given->help)
		return 0;
	long long steps = 1;
	if (given->steps && app_parse_int("--steps", given->steps, 1, 1000000000, &steps, st) != 0)
		return -1;
	struct trace t;
	struct trace_summary s;
	if (trace_load(given->trace, &t, "--trace", st) != 0)
		return -1;
	if (trace_summarize(&t, &s) != 0) {
		trace_free(&t);
		app_error_env(st, "--trace: out of memory");
		return -1;
	}
	/* A bad --layers is calc_launch's to report (once): here it counts as 1. */
	long long layers = 1;
	struct app_status layers_st;
	app_status_init(&layers_st);
	if (given->layers && app_parse_int("--layers", given->layers, 1, 1000000, &layers, &layers_st) != 0)
		layers = 1;
	from_trace.kernels_per_step = (double)t.kernel_count / (double)steps;
	long long per_step = llround(from_trace.kernels_per_step);
	if (!given->layers)
		add_fill(fill, "--layers", "1");
	if ((from_trace.kernels = !given->kernels_per_layer)) {
		add_fill(fill, "--kernels-per-layer", "%lld", per_step / layers);
		if (!given->extra_kernels && per_step % layers)
			add_fill(fill, "--extra-kernels", "%lld", per_step % layers);
	}
	if ((from_trace.launch = !given->launch_us && s.launches > 0))
		add_fill(fill, "--launch-us", "%.17g", s.launch_s / s.launches * 1e6);
	if ((from_trace.step = !given->step_ms && s.span_s > 0))
		add_fill(fill, "--step-ms", "%.17g", s.span_s / (double)steps * 1e3);
	trace_summary_free(&s);
	trace_free(&t);
	return 0;
}
