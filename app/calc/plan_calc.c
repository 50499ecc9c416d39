/* ridge plan's search and its views (plan_calc.h): the inputs read from the
 * parsed values, the search over model/plan.h, the ranking table, the JSON
 * document and the cost-latency Pareto SVG. */
#include "plan_calc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "calc.h"
#include "plan_lists.h"
#include "model_config.h"
#include "plan.h"
#include "cost_model_calc.h"
#include "kernel_time.h"
#include "svg.h"
#include "json_fields.h"

#define MAX_SPACE 16384

/* ---- ridge plan's options ---- */

#define PLAN_PARAMS(X)                                                                                                \
	X(PLAN_MODEL, PARAM_TEXT_ROW("model", .flags = PARAM_REQUIRED, .metavar = "FILE",                             \
				     .help = "model config (Hugging Face config.json or YAML)"))                      \
	X(PLAN_ASSUME_FAMILY, PARAM_TEXT_ROW("assume_family", .metavar = "TYPE",                                      \
					     .help = "read the config as this family knowingly (llama)"))             \
	X(PLAN_TPOT, PARAM_NUM("tpot", RIDGE_UNIT_SECONDS, 0, PARAM_HOUR_S, .flags = PARAM_REQUIRED | PARAM_OPEN_LO,  \
			       .metavar = "T", .help = "time per output token limit (50ms)",                          \
			       .range = "greater than 0, at most 3600 s"))                                            \
	X(PLAN_TTFT, PARAM_NUM("ttft", RIDGE_UNIT_SECONDS, 0, PARAM_HOUR_S, .flags = PARAM_REQUIRED | PARAM_OPEN_LO,  \
			       .metavar = "T", .help = "time to first token limit (2s)",                              \
			       .range = "greater than 0, at most 3600 s"))                                            \
	X(PLAN_CONTEXT, PARAM_INT("context", 1, PARAM_BATCH_MAX, .flags = PARAM_REQUIRED, .metavar = "C",             \
				  .help = "tokens per request: prompt and KV cache (8k)"))                            \
	X(PLAN_GPU,                                                                                                   \
	  PARAM_TEXT_ROW("gpu", .metavar = "GPU,...", .help = "GPU types to consider (default " APP_DEFAULT_GPU ")")) \
	X(PLAN_PRICE, PARAM_TEXT_ROW("price", .metavar = "GPU=USD,...",                                               \
				     .help = "USD per GPU-hour for a GPU (default: its hwdb price)"))                 \
	X(PLAN_WEIGHT_DTYPE,                                                                                          \
	  PARAM_TEXT_ROW("weight_dtype", .metavar = "DT,...",                                                         \
			 .help = "weight storage types to consider: checkpoint (the config's quantization_config; "   \
				 "the default when it has one) or bf16 fp8 int4 ... (default bf16)"))                 \
	X(PLAN_KV_DTYPE, PARAM_TEXT_ROW("kv_dtype", .metavar = "DT", .help = "KV-cache storage (default bf16)"))      \
	X(PLAN_KERNELS_PER_LAYER,                                                                                     \
	  PARAM_INT("kernels_per_layer", 1, PARAM_COUNT_MAX, .metavar = "K",                                          \
		    .help = "kernel launches per layer per step (default: the modelled kernel sequence, "             \
			    "as ridge cost decode --model)"))                                                         \
	X(PLAN_MOE_IMPL, PARAM_TEXT_ROW("moe_impl", .metavar = "IMPL",                                                \
					.help = "routed experts: grouped (default) or loop, as ridge cost decode"))   \
	X(PLAN_EFFICIENCY,                                                                                            \
	  PARAM_TEXT_ROW("efficiency", .metavar = "CLASS=F,...",                                                      \
			 .help = "what-if efficiencies on every GPU, as ridge cost decode --efficiency"))             \
	X(PLAN_FIXED_COST, PARAM_TEXT_ROW("fixed_cost", .metavar = "CLASS=T,...",                                     \
					  .help = "what-if fixed cost per kernel of a class (gemm=5us)"))             \
	X(PLAN_MAX_BATCH,                                                                                             \
	  PARAM_INT("max_batch", 1, 65536, .metavar = "B", .help = "largest batch tried: 1, 2, 4 ... (default 256)")) \
	X(PLAN_MAX_GPUS,                                                                                              \
	  PARAM_INT("max_gpus", 1, 1024, .metavar = "N", .help = "most GPUs per replica: 1, 2, 4 ... (default 8)"))   \
	X(PLAN_TOP, PARAM_INT("top", 1, 1000, .metavar = "N", .help = "configurations printed (default 5)"))          \
	X(PLAN_SVG, PARAM_TEXT_ROW("svg", .metavar = "FILE", .help = "write the cost-latency Pareto front"))          \
	X(PLAN_HWDB, PARAM_TEXT_ROW("hwdb", .metavar = "DIR", .help = "also load the hwdb entries in DIR"))           \
	X(PLAN_CALIBRATION,                                                                                           \
	  PARAM_TEXT_ROW("calibration", .metavar = "FILE", .help = "a ridge-probe calibration (measured ceilings)"))  \
	X(PLAN_JSON, CALC_JSON_ROW)
PARAMS_TABLE(plan_params, PLAN_PARAMS);

static const char plan_synopsis[] =
	"usage: ridge plan --model FILE --tpot T --ttft T --context C [--gpu GPU,...] [--price GPU=USD,...]\n"
	"                  [--weight-dtype DT,...] [--kv-dtype DT] [--top N] [--svg FILE] [--json]";
static const char plan_description[] =
	"Searches GPU type x GPU count (= tensor parallel) x batch x weight dtype x launch mode (eager,\n"
	"CUDA graph, persistent) for the configurations that fit in memory and meet the TPOT and TTFT limits, and\n"
	"ranks them by $ per million output tokens (then tokens/s per GPU). Each is priced as ridge cost\n"
	"decode --model and ridge cost prefill price it (every kernel, launches by mode) with ridge comm's\n"
	"tensor-parallel all-reduces; TTFT is the prefill of one request of --context tokens. Exit 1 when\n"
	"none meets the limits (the nearest are shown).\n";

const struct params_command plan_params_command = {
	.name = "plan",
	PARAMS_COMMAND_TABLE(plan_params),
	.synopsis = plan_synopsis,
	.description = plan_description,
	.check_required = true,
};

static int read_gpus(const struct param_values *v, const struct app_hw *hw, struct ridge_plan_input *in,
		     struct app_status *st)
{
	const struct ridge_gpu *gpus[RIDGE_PLAN_MAX_GPUS];
	int n = plan_read_gpus(v, PLAN_GPU, hw, RIDGE_PLAN_MAX_GPUS, gpus, st);
	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		in->gpus[in->gpu_count].gpu = gpus[i];
		in->gpus[in->gpu_count].price_usd_per_hour = gpus[i]->has_price ? gpus[i]->price_usd_per_hour : NAN;
		in->gpu_count++;
	}
	if (params_has(v, PLAN_PRICE)) {
		char items[RIDGE_PLAN_MAX_GPUS][RIDGE_TEXT];
		int k = plan_split_list(params_text(v, PLAN_PRICE), items, RIDGE_PLAN_MAX_GPUS);
		if (k < 1) {
			app_error_flag(st, params_where(v, PLAN_PRICE), "'%s' is not a list of GPU=USD",
				       params_text(v, PLAN_PRICE));
			return -1;
		}
		for (int i = 0; i < k; i++) {
			char *eq = strchr(items[i], '=');
			if (!eq) {
				app_error_flag(st, params_where(v, PLAN_PRICE), "'%s' is not GPU=USD", items[i]);
				return -1;
			}
			*eq = '\0';
			const struct hwdb_entry *e = app_hw_find(hw, items[i], st);
			if (!e)
				return -1;
			int which = -1;
			for (int j = 0; j < in->gpu_count; j++)
				if (in->gpus[j].gpu == &e->gpu)
					which = j;
			if (which < 0) {
				app_error_flag(st, params_where(v, PLAN_PRICE),
					       "'%s' is not one of the GPUs given with %s", items[i],
					       params_where(v, PLAN_GPU));
				return -1;
			}
			double usd;
			if (app_parse_quantity(params_where(v, PLAN_PRICE), eq + 1, RIDGE_UNIT_USD, &usd, st) != 0)
				return -1;
			if (!(usd >= 0)) {
				app_error_flag(st, params_where(v, PLAN_PRICE), "'%s' is negative", eq + 1);
				return -1;
			}
			in->gpus[which].price_usd_per_hour = usd;
		}
	}
	for (int j = 0; j < in->gpu_count; j++)
		if (isnan(in->gpus[j].price_usd_per_hour)) {
			app_error(st, "no price for %s: give %s %s=USD", in->gpus[j].gpu->id,
				  params_where(v, PLAN_PRICE), in->gpus[j].gpu->id);
			return -1;
		}
	return 0;
}

/* "checkpoint": the config's own storage per tensor group (quantization_config). */
static void checkpoint_dtype(const struct app_model_config *cfg, struct ridge_plan_input *in, int i)
{
	const struct app_model_extras *x = &cfg->extras;
	if (!x->quantized) {
		in->dtype_storage[i] = (struct ridge_storage){ 2, 0, 0 };
		return;
	}
	in->dtype_storage[i] = x->dense.storage;
	in->dtype_expert_storage[i] = x->experts.storage;
	in->dtype_embedding_storage[i] = x->embedding.storage;
}

static int read_dtypes(const struct param_values *v, const struct app_model_config *cfg, struct ridge_plan_input *in,
		       struct app_status *st)
{
	char names[RIDGE_PLAN_MAX_DTYPES][RIDGE_TEXT];
	const char *list = params_has(v, PLAN_WEIGHT_DTYPE) ? params_text(v, PLAN_WEIGHT_DTYPE)
			   : cfg->extras.quantized          ? "checkpoint"
							    : "bf16";
	int n = plan_split_list(list, names, RIDGE_PLAN_MAX_DTYPES);
	if (n < 1) {
		app_error_flag(st, params_where(v, PLAN_WEIGHT_DTYPE), "'%s' is not a list of storage types (%s)", list,
			       cost_storage_list());
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (strcmp(names[i], "checkpoint") == 0)
			checkpoint_dtype(cfg, in, i);
		else if (plan_read_storage(v, PLAN_WEIGHT_DTYPE, names[i], &in->dtype_storage[i], st) != 0)
			return -1;
		snprintf(in->dtype_names[i], sizeof in->dtype_names[i], "%s", names[i]);
	}
	in->dtype_count = n;
	return plan_read_storage(v, PLAN_KV_DTYPE,
				 params_has(v, PLAN_KV_DTYPE) ? params_text(v, PLAN_KV_DTYPE) : "bf16", &in->kv, st);
}

/* The config through the same reader as ridge cost decode --model; its warnings go into st. */
static int read_model(const struct param_values *v, struct app_model_config *cfg, struct ridge_plan_input *in,
		      struct app_status *st)
{
	const char *path = params_text(v, PLAN_MODEL);
	const char *assume = params_text(v, PLAN_ASSUME_FAMILY);
	if ((assume && !app_model_assume_ok(assume, st)) || app_model_config_load_as(path, assume, cfg, st) != 0)
		return -1;
	char err[400];
	struct ridge_workload_model w;
	if (app_model_config_workload(cfg, path, &w, err, sizeof err) != 0) {
		app_error(st, "%s", err);
		return -1;
	}
	cfg->workload = w;
	for (int i = 0; i < cfg->warning_count; i++)
		app_warning(st, "%s: %s", path, cfg->warnings[i]);
	struct ridge_workload_params p;
	if (workload_params(&cfg->workload, &p, err, sizeof err) != 0) {
		app_error(st, "%s: %s", path, err);
		return -1;
	}
	in->model = &cfg->workload;
	in->params = p.total;
	return 0;
}

/* --moe-impl and the what-ifs of --efficiency / --fixed-cost. */
static int read_options(const struct param_values *v, struct ridge_plan_input *in, struct app_status *st)
{
	return plan_read_model_options(v, PLAN_MOE_IMPL, PLAN_EFFICIENCY, PLAN_FIXED_COST, &in->moe_impl,
				       &in->overrides, &in->has_overrides, st);
}

static cJSON *config_json(const struct ridge_plan_input *in, const struct ridge_plan_config *c)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "gpu", in->gpus[c->gpu_index].gpu->id);
	json_number(o, "gpus", c->gpus);
	json_number(o, "tp", c->gpus);
	json_number(o, "batch", c->batch);
	cJSON_AddStringToObject(o, "weight_dtype", in->dtype_names[c->dtype_index]);
	cJSON_AddStringToObject(o, "launch", plan_launch_name(c->launch));
	json_number(o, "price_usd_per_gpu_hour", in->gpus[c->gpu_index].price_usd_per_hour);
	static const struct json_field plan_config_fields[] = {
		JSON_FIELDS(struct ridge_plan_config, memory_time_s, compute_time_s, kernel_time_s, comm_s,
			    comm_algorithm, launch_s, tpot_s, comm_share, ttft_s, ttft_kernel_s, ttft_comm_s,
			    tokens_per_s, tokens_per_s_per_gpu, usd_per_million_tokens),
		JSON_FIELD_AS(struct ridge_plan_config, "memory_required_bytes", memory_required),
		JSON_FIELD_AS(struct ridge_plan_config, "memory_available_bytes", memory_available),
		JSON_FIELDS(struct ridge_plan_config, fits, meets_tpot, meets_ttft, violation),
	};
	json_put_fields(o, c, plan_config_fields, JSON_FIELD_COUNT(plan_config_fields));
	kernel_time_sum_json(o, &c->time_sum, c->tpot_range_s);
	cJSON *ttft = cJSON_AddObjectToObject(o, "ttft_range");
	kernel_time_range_json(ttft, c->ttft_range_s);
	json_number_pair(o, "usd_per_million_tokens_range", c->usd_range);
	cJSON_AddBoolToObject(o, "tie_with_best", c->tie);
	return o;
}

static void print_config(FILE *out, int rank, const struct ridge_plan_input *in, const struct ridge_plan_config *c)
{
	char tpot[32], ttft[32], usd[32], tps[32], mem[32], kern[32], comm[32], launch[32], share[32];
	fmt_seconds(c->tpot_s, tpot, sizeof tpot);
	fmt_seconds(c->ttft_s, ttft, sizeof ttft);
	fmt_usd(c->usd_per_million_tokens, usd, sizeof usd);
	fmt_grouped(c->tokens_per_s_per_gpu, 1, tps, sizeof tps);
	fmt_bytes(c->memory_required / c->gpus, mem, sizeof mem);
	fmt_seconds(c->kernel_time_s, kern, sizeof kern);
	fmt_seconds(c->comm_s, comm, sizeof comm);
	fmt_seconds(c->launch_s, launch, sizeof launch);
	fmt_percent(c->comm_share, share, sizeof share);
	char count[32];
	snprintf(count, sizeof count, "%.0f (TP%.0f)", c->gpus, c->gpus);
	fprintf(out, "  %2d%c %-14s %-8s %6.0f  %-5s %-10s %10s %10s %10s %10s %10s\n", rank, c->tie ? '~' : ' ',
		in->gpus[c->gpu_index].gpu->id, count, c->batch, in->dtype_names[c->dtype_index],
		plan_launch_name(c->launch), tpot, ttft, usd, tps, mem);
	fprintf(out, "      TPOT = kernels %s (%s-bound floor) + %s all-reduce (%s, %s of TPOT) + %s launches%s%s%s\n",
		kern, c->memory_time_s >= c->compute_time_s ? "memory" : "compute", comm, c->comm_algorithm, share,
		launch, c->fits ? "" : "; DOES NOT FIT", c->meets_tpot ? "" : "; over the TPOT limit",
		c->meets_ttft ? "" : "; over the TTFT limit");
	char lo[32], hi[32], ulo[32], uhi[32];
	fmt_seconds(c->tpot_range_s[0], lo, sizeof lo);
	fmt_seconds(c->tpot_range_s[1], hi, sizeof hi);
	fmt_usd(c->usd_range[0], ulo, sizeof ulo);
	fmt_usd(c->usd_range[1], uhi, sizeof uhi);
	fprintf(out, "      range TPOT %s - %s, %s - %s per 1M tokens (%s)%s\n", lo, hi, ulo, uhi,
		ridge_provenance_name(c->provenance), c->tie ? "; a tie with #1 within uncertainty" : "");
}

/* One line: each GPU type's weakest time-model provenance (its first
 * configuration's decode step). */
static void print_provenance(FILE *out, const struct ridge_plan_input *in, const struct ridge_plan_config *all, int n)
{
	fprintf(out, "  Time model by GPU (the weakest class of its decode step):\n   ");
	const char *sep = " ";
	for (int g = 0; g < in->gpu_count; g++)
		for (int i = 0; i < n; i++)
			if (all[i].gpu_index == g) {
				fprintf(out, "%s%s %s", sep, in->gpus[g].gpu->id,
					ridge_provenance_name(all[i].provenance));
				sep = ", ";
				break;
			}
	fprintf(out, ".\n  Ranges: P10-P90 of held-out errors (validation/README.md, \"How far to trust a "
		     "prediction\");\n  ~ marks a configuration whose $ range reaches #1's.\n");
}

/* The Pareto front of $/1M tokens against TPOT over every configuration that fits. */
static int write_svg(const char *path, const struct ridge_plan_input *in, const struct ridge_plan_config *all, int n,
		     struct app_status *st)
{
	double tlo = INFINITY, thi = 0, clo = INFINITY, chi = 0;
	for (int i = 0; i < n; i++) {
		if (!all[i].fits)
			continue;
		tlo = fmin(tlo, all[i].tpot_s);
		thi = fmax(thi, all[i].tpot_s);
		clo = fmin(clo, all[i].usd_per_million_tokens);
		chi = fmax(chi, all[i].usd_per_million_tokens);
	}
	struct svg s;
	const double w = 900, h = 540;
	struct svg_plot plot = {
		.left = 90,
		.top = 50,
		.right = 730,
		.bottom = h - 50,
		.x = { .scale = SVG_LOG,
		       .lo = fmin(tlo, in->tpot_limit_s) / 1.5,
		       .hi = fmax(thi, in->tpot_limit_s) * 1.5,
		       .title = "time per output token",
		       .unit = "s" },
		.y = { .scale = SVG_LOG,
		       .lo = clo / 1.5,
		       .hi = chi * 1.5,
		       .title = "cost per 1M output tokens",
		       .unit = "USD" },
	};
	svg_begin(&s, w, h, "ridge plan: cost-latency Pareto front");
	svg_title(&s, 28, 16, "ridge plan: cost-latency Pareto front");
	svg_plot_axes(&s, &plot);
	const double x1 = plot.right, y1 = plot.top;
	double lx = svg_plot_x(&plot, in->tpot_limit_s);
	svg_line(&s, lx, plot.bottom, lx, y1, "#c00", 1.5, true);
	bool room_right = lx + 4 + svg_text_width(11, "TPOT limit") < x1 - 2;
	svg_text_halo(&s, room_right ? lx + 4 : lx - 4, y1 + 14, 11, room_right ? "start" : "end", "#c00",
		      "TPOT limit");
	const char *colors[] = {
		"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#17becf"
	};
	for (int i = 0; i < n; i++) {
		if (!all[i].fits)
			continue;
		double x = svg_plot_x(&plot, all[i].tpot_s), y = svg_plot_y(&plot, all[i].usd_per_million_tokens);
		svg_circle(&s, x, y, all[i].meets ? 3.5 : 2, all[i].meets ? colors[all[i].gpu_index % 8] : "#ccc",
			   "none");
	}
	/* the front: by rising TPOT, each point cheaper than every faster one */
	int *order = malloc(sizeof *order * (size_t)(n > 0 ? n : 1));
	double *xs = malloc(sizeof *xs * (size_t)(n > 0 ? n : 1)), *ys = malloc(sizeof *ys * (size_t)(n > 0 ? n : 1));
	if (!order || !xs || !ys) {
		free(order);
		free(xs);
		free(ys);
		svg_free(&s);
		app_error_env(st, "out of memory drawing '%s'", path);
		return -1;
	}
	int m = 0;
	for (int i = 0; i < n; i++)
		if (all[i].fits)
			order[m++] = i;
	for (int i = 1; i < m; i++) /* insertion sort by TPOT: m is a few thousand at most */
		for (int j = i; j > 0 && all[order[j]].tpot_s < all[order[j - 1]].tpot_s; j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	int k = 0;
	double best = INFINITY;
	for (int i = 0; i < m; i++) {
		const struct ridge_plan_config *c = &all[order[i]];
		if (c->usd_per_million_tokens < best) {
			best = c->usd_per_million_tokens;
			xs[k] = svg_plot_x(&plot, c->tpot_s);
			ys[k] = svg_plot_y(&plot, best);
			k++;
		}
	}
	svg_polyline(&s, xs, ys, k, "#000", 1.5);
	/* The legend, right of the frame. */
	for (int g = 0; g < in->gpu_count; g++) {
		svg_circle(&s, x1 + 20, y1 + 6 + 16 * g, 4, colors[g % 8], "none");
		svg_text(&s, x1 + 30, y1 + 10 + 16 * g, 11, "start", "#000", in->gpus[g].gpu->id);
	}
	svg_text(&s, x1 + 16, y1 + 10 + 16 * in->gpu_count, 11, "start", "#666", "grey: misses a limit");
	svg_text(&s, x1 + 16, y1 + 26 + 16 * in->gpu_count, 11, "start", "#666", "line: the Pareto front");

	free(order);
	free(xs);
	free(ys);
	svg_end(&s);
	int rc = svg_save(&s, path, st);
	svg_free(&s);
	return rc;
}

int plan_command(FILE *out, const struct param_values *v, cJSON **json, struct app_status *st)
{
	*json = NULL;
	const char *svg_path = params_text(v, PLAN_SVG);
	const char *inputs[] = { params_text(v, PLAN_MODEL), params_text(v, PLAN_CALIBRATION) };
	if (svg_path && (app_output_path_ok(params_where(v, PLAN_SVG), svg_path, st) != 0 ||
			 app_output_not_input(params_where(v, PLAN_SVG), svg_path, inputs, 2, st) != 0))
		return -1;
	struct ridge_plan_input *in = calloc(1, sizeof *in);
	struct ridge_plan_config *all = calloc(MAX_SPACE, sizeof *all);
	struct app_model_config *cfg = calloc(1, sizeof *cfg);
	struct app_hw hw;
	bool hw_open = false;
	int rc = -1;
	if (!in || !all || !cfg) {
		app_error(st, "out of memory");
		goto done;
	}
	if (read_model(v, cfg, in, st) != 0 || read_dtypes(v, cfg, in, st) != 0)
		goto done;
	if (app_hw_open(&hw, params_text(v, PLAN_HWDB), params_text(v, PLAN_CALIBRATION), st) != 0)
		goto done;
	hw_open = true;
	if (read_gpus(v, &hw, in, st) != 0)
		goto done;
	if (read_options(v, in, st) != 0)
		goto done;
	in->context = params_num(v, PLAN_CONTEXT);
	in->tpot_limit_s = params_num(v, PLAN_TPOT);
	in->ttft_limit_s = params_num(v, PLAN_TTFT);
	in->kernels_per_layer = params_has(v, PLAN_KERNELS_PER_LAYER) ? params_num(v, PLAN_KERNELS_PER_LAYER) : 0;
	in->max_batch = params_has(v, PLAN_MAX_BATCH) ? params_num(v, PLAN_MAX_BATCH) : 256;
	in->max_gpus = params_has(v, PLAN_MAX_GPUS) ? params_num(v, PLAN_MAX_GPUS) : 8;
	int top = params_has(v, PLAN_TOP) ? (int)params_num(v, PLAN_TOP) : 5;
	int n = 0;
	char err[400];
	if (plan_space(in) > MAX_SPACE) {
		app_error(st, "%s and %s give more than %d configurations", params_where(v, PLAN_MAX_BATCH),
			  params_where(v, PLAN_MAX_GPUS), MAX_SPACE);
		goto done;
	}
	if (plan_search(in, all, MAX_SPACE, &n, err, sizeof err) != 0) {
		app_error(st, "%s", err);
		goto done;
	}
	int meeting = 0;
	while (meeting < n && all[meeting].meets)
		meeting++;
	if (svg_path && write_svg(svg_path, in, all, n, st) != 0)
		goto done;
	int shown = top < n ? top : n;
	if (params_flag(v, PLAN_JSON)) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "model", params_text(v, PLAN_MODEL));
		json_number(o, "params", in->params);
		json_number(o, "context", in->context);
		json_number(o, "tpot_limit_s", in->tpot_limit_s);
		json_number(o, "ttft_limit_s", in->ttft_limit_s);
		if (in->model->experts > 0)
			cJSON_AddStringToObject(o, "moe_impl", serve_moe_impl_name(in->moe_impl));
		json_number(o, "configurations", n);
		json_number(o, "meeting", meeting);
		cJSON_AddBoolToObject(o, "ok", meeting > 0);
		cJSON *list = cJSON_AddArrayToObject(o, meeting > 0 ? "ranking" : "nearest");
		for (int i = 0; i < (meeting > 0 && meeting < shown ? meeting : shown); i++)
			cJSON_AddItemToArray(list, config_json(in, &all[i]));
		*json = o;
		rc = EXIT_OK;
	} else {
		char tpot[32], ttft[32], p[32];
		fmt_seconds(in->tpot_limit_s, tpot, sizeof tpot);
		fmt_seconds(in->ttft_limit_s, ttft, sizeof ttft);
		cost_format_exact(in->params, p, sizeof p);
		fprintf(out, "Serving plan for %s (%s parameters), context %.0f: TPOT <= %s, TTFT <= %s\n",
			params_text(v, PLAN_MODEL), p, in->context, tpot, ttft);
		fprintf(out,
			"  %d configurations priced (GPU x count x batch x weight dtype x launch), %d meet every limit\n",
			n, meeting);
		for (int g = 0; g < in->gpu_count; g++) {
			char usd[32];
			fmt_usd(in->gpus[g].price_usd_per_hour, usd, sizeof usd);
			fprintf(out, "  %s at %s per GPU-hour\n", in->gpus[g].gpu->id, usd);
		}
		if (meeting == 0)
			fprintf(out,
				"\n  No configuration meets the limits. The nearest (by the worst ratio of time to limit or\n"
				"  memory to capacity):\n");
		else
			fprintf(out, "\n  Cheapest first ($ per million output tokens, then tokens/s per GPU):\n");
		fprintf(out, "\n  %2s  %-14s %-8s %6s  %-5s %-10s %10s %10s %10s %10s %10s\n", "#", "GPU", "GPUs",
			"batch", "dtype", "mode", "TPOT", "TTFT", "$/1M tok", "tok/s/GPU", "mem/GPU");
		int rows = meeting > 0 && meeting < shown ? meeting : shown;
		for (int i = 0; i < rows; i++)
			print_config(out, i + 1, in, &all[i]);
		fprintf(out,
			"\n  Priced as ridge cost decode --model / ridge cost prefill do (every kernel, launches by mode),\n"
			"  with ridge comm's all-reduces (not overlapped); TTFT is one request's prefill of --context\n"
			"  tokens. Each request of a batch keeps a KV cache of --context tokens.\n");
		if (in->model->experts > 0)
			fprintf(out, "  Routed experts: %s (--moe-impl).\n", serve_moe_impl_name(in->moe_impl));
		print_provenance(out, in, all, n);
		if (svg_path)
			fprintf(out, "  Pareto front written to %s\n", svg_path);
		rc = fflush(out) == 0 ? EXIT_OK : EXIT_ENV;
	}
	if (rc == EXIT_OK && meeting == 0)
		rc = EXIT_PROBLEM;
done:
	if (hw_open)
		app_hw_close(&hw);
	free(cfg);
	free(all);
	free(in);
	return rc;
}
