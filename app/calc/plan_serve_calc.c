/* ridge plan's serving search on the simulation (plan_serve_calc.h): the
 * inputs read from the parsed values, the search over model/serve_plan.h,
 * the Pareto front and the ranking as text and JSON, the front as SVG. */
#include "plan_serve_calc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "calc.h"
#include "plan_lists.h"
#include "cost_model_calc.h"
#include "json_fields.h"
#include "model_config.h"
#include "serve_plan.h"
#include "serve_view.h"
#include "svg.h"

#define PLAN_SERVE_PARAMS(X)                                                                                           \
	X(PS_MODEL, PARAM_TEXT_ROW("model", .flags = PARAM_REQUIRED, .metavar = "FILE",                                \
				   .help = "model config (Hugging Face config.json or YAML)"))                         \
	X(PS_ASSUME_FAMILY, PARAM_TEXT_ROW("assume_family", .metavar = "TYPE",                                         \
					   .help = "read the config as this family knowingly (llama)"))                \
	X(PS_ISL,                                                                                                      \
	  PARAM_INT("isl", 1, 1e7, .flags = PARAM_REQUIRED, .metavar = "N", .help = "prompt tokens per request"))      \
	X(PS_OSL,                                                                                                      \
	  PARAM_INT("osl", 1, 1e7, .flags = PARAM_REQUIRED, .metavar = "M", .help = "output tokens per request"))      \
	X(PS_CONCURRENCY, PARAM_INT("concurrency", 1, 65536, .metavar = "C",                                           \
				    .help = "closed loop: C clients over the whole deployment"))                       \
	X(PS_RATE, PARAM_NUM("rate", RIDGE_UNIT_COUNT, 0, 1e6, .flags = PARAM_OPEN_LO, .metavar = "R",                 \
			     .help = "open loop: Poisson arrivals, R requests per second",                             \
			     .range = "greater than 0, at most 1e6 per second"))                                       \
	X(PS_TPOT, PARAM_NUM("tpot", RIDGE_UNIT_SECONDS, 0, PARAM_HOUR_S, .flags = PARAM_REQUIRED | PARAM_OPEN_LO,     \
			     .metavar = "T", .help = "time per output token limit at --percentile (50ms)",             \
			     .range = "greater than 0, at most 3600 s"))                                               \
	X(PS_TTFT, PARAM_NUM("ttft", RIDGE_UNIT_SECONDS, 0, PARAM_HOUR_S, .flags = PARAM_REQUIRED | PARAM_OPEN_LO,     \
			     .metavar = "T", .help = "time to first token limit at --percentile (2s)",                 \
			     .range = "greater than 0, at most 3600 s"))                                               \
	X(PS_PERCENTILE, PARAM_INT("percentile", 50, 99, .metavar = "P",                                               \
				   .help = "the percentile the limits hold at: 50, 90 (default) or 99"))               \
	X(PS_GPU,                                                                                                      \
	  PARAM_TEXT_ROW("gpu", .metavar = "GPU,...", .help = "GPU types to consider (default " APP_DEFAULT_GPU ")"))  \
	X(PS_PRICE, PARAM_TEXT_ROW("price", .metavar = "GPU=USD,...",                                                  \
				   .help = "USD per GPU-hour for a GPU (default: its hwdb price)"))                    \
	X(PS_WEIGHT_DTYPE, PARAM_TEXT_ROW("weight_dtype", .metavar = "DT,...",                                         \
					  .help = "weight storage types to consider: checkpoint or bf16 fp8 int4 ... " \
						  "(default: the checkpoint's, else bf16)"))                           \
	X(PS_KV_DTYPE, PARAM_TEXT_ROW("kv_dtype", .metavar = "DT", .help = "KV-cache storage (default bf16)"))         \
	X(PS_ENGINE,                                                                                                   \
	  PARAM_TEXT_ROW("engine", .metavar = "E,...", .help = "engines to consider: vllm (default), sglang, trtllm")) \
	X(PS_BUDGETS, PARAM_TEXT_ROW("max_num_batched_tokens", .metavar = "B,...",                                     \
				     .help = "token budgets tried, aggregated (default 2048,8192)"))                   \
	X(PS_LAYOUT, PARAM_TEXT_ROW("layout", .metavar = "L",                                                          \
				    .help = "both (default), agg (one engine per replica) or disagg (prefill and "     \
					    "decode pools)"))                                                          \
	X(PS_MAX_GPUS, PARAM_INT("max_gpus", 1, 1024, .metavar = "N",                                                  \
				 .help = "most GPUs of a deployment: TP x replicas, or both pools (default 8)"))       \
	X(PS_REQUESTS, PARAM_INT("requests", 1, 200000, .metavar = "K",                                                \
				 .help = "requests measured per configuration (default max(100, 2 x its "              \
					 "concurrency); open loop 200)"))                                              \
	X(PS_SEED, PARAM_INT("seed", 0, 4294967295.0, .metavar = "S", .help = "seed of the arrivals (default 1)"))     \
	X(PS_MAX_CONTEXT,                                                                                              \
	  PARAM_INT("max_context", 1, 1e9, .metavar = "N",                                                             \
		    .help = "the model's context (default: max_position_embeddings of a config.json)"))                \
	X(PS_MOE_IMPL,                                                                                                 \
	  PARAM_TEXT_ROW("moe_impl", .metavar = "IMPL", .help = "routed experts: grouped (default) or loop"))          \
	X(PS_EFFICIENCY, PARAM_TEXT_ROW("efficiency", .metavar = "CLASS=F,...",                                        \
					.help = "what-if efficiencies on every GPU, as ridge cost decode"))            \
	X(PS_FIXED_COST, PARAM_TEXT_ROW("fixed_cost", .metavar = "CLASS=T,...",                                        \
					.help = "what-if fixed cost per kernel of a class (gemm=5us)"))                \
	X(PS_TOP, PARAM_INT("top", 1, 1000, .metavar = "N", .help = "configurations ranked (default 5)"))              \
	X(PS_SVG,                                                                                                      \
	  PARAM_TEXT_ROW("svg", .metavar = "FILE", .help = "write output tokens/s per GPU against tokens/s per user")) \
	X(PS_HWDB, PARAM_TEXT_ROW("hwdb", .metavar = "DIR", .help = "also load the hwdb entries in DIR"))              \
	X(PS_CALIBRATION,                                                                                              \
	  PARAM_TEXT_ROW("calibration", .metavar = "FILE", .help = "a ridge-probe calibration (measured ceilings)"))   \
	X(PS_JSON, CALC_JSON_ROW)
PARAMS_TABLE(plan_serve_params, PLAN_SERVE_PARAMS);

static const char plan_serve_synopsis[] =
	"usage: ridge plan --model FILE --isl N --osl M (--concurrency C | --rate R) --tpot T --ttft T\n"
	"                  [--percentile 50|90|99] [--gpu GPU,...] [--weight-dtype DT,...] [--engine E,...]\n"
	"                  [--layout both|agg|disagg] [--max-gpus N] [--top N] [--svg FILE] [--json]";
static const char plan_serve_description[] =
	"With --isl and --osl: simulates each configuration under the load as ridge serve does (GPU type x\n"
	"weight dtype x engine x TP x replicas x token budget x sequence limit, and disaggregated prefill\n"
	"and decode pools), keeps those whose TTFT and TPOT at --percentile meet the limits, ranks them by\n"
	"$ per million output tokens and prints the Pareto front of output tokens/s per GPU against\n"
	"tokens/s per user (1 / TPOT P50). Exit 1 when none meets the limits (the nearest are shown).\n"
	"docs/models/serve-sim.md, \"ridge plan\".\n";

const struct params_command plan_serve_params_command = {
	.name = "plan",
	PARAMS_COMMAND_TABLE(plan_serve_params),
	.synopsis = plan_serve_synopsis,
	.description = plan_serve_description,
	.check_required = true,
};

/* Everything the command holds until it has printed. */
struct plan_serve {
	struct ridge_serve_plan_input in;
	struct app_model_config config;
	struct ridge_serve_plan_config *all;
	int *order; /* the front's, by tokens/s per user */
	int count, simulated, meeting, not_fit, pruned, stopped;
	const char *model_path;
};

static int gpu_index(const struct ridge_serve_plan_input *in, const struct ridge_gpu *gpu)
{
	for (int j = 0; j < in->gpu_count; j++)
		if (in->gpus[j] == gpu)
			return j;
	return -1;
}

static int read_prices(const struct param_values *v, const struct app_hw *hw, struct ridge_serve_plan_input *in,
		       struct app_status *st)
{
	const char *flag = params_where(v, PS_PRICE);
	char items[RIDGE_SERVE_PLAN_MAX_GPUS][RIDGE_TEXT];
	int k = params_has(v, PS_PRICE) ? plan_split_list(params_text(v, PS_PRICE), items, RIDGE_SERVE_PLAN_MAX_GPUS)
					: 0;
	if (k < 0) {
		app_error_flag(st, flag, "'%s' is not a list of GPU=USD", params_text(v, PS_PRICE));
		return -1;
	}
	for (int i = 0; i < k; i++) {
		char *eq = strchr(items[i], '=');
		if (!eq) {
			app_error_flag(st, flag, "'%s' is not GPU=USD", items[i]);
			return -1;
		}
		*eq = '\0';
		const struct hwdb_entry *e = app_hw_find(hw, items[i], st);
		if (!e)
			return -1;
		int which = gpu_index(in, &e->gpu);
		if (which < 0) {
			app_error_flag(st, flag, "'%s' is not one of the GPUs given with %s", items[i],
				       params_where(v, PS_GPU));
			return -1;
		}
		if (app_parse_quantity(flag, eq + 1, RIDGE_UNIT_USD, &in->prices[which], st) != 0)
			return -1;
		if (!(in->prices[which] >= 0)) {
			app_error_flag(st, flag, "'%s' is negative", eq + 1);
			return -1;
		}
	}
	for (int j = 0; j < in->gpu_count; j++)
		if (isnan(in->prices[j])) {
			app_error(st, "no price for %s: give %s %s=USD", in->gpus[j]->id, flag, in->gpus[j]->id);
			return -1;
		}
	return 0;
}

static int read_gpus(const struct param_values *v, const struct app_hw *hw, struct ridge_serve_plan_input *in,
		     struct app_status *st)
{
	const struct ridge_gpu *gpus[RIDGE_SERVE_PLAN_MAX_GPUS];
	int n = plan_read_gpus(v, PS_GPU, hw, RIDGE_SERVE_PLAN_MAX_GPUS, gpus, st);
	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		in->gpus[in->gpu_count] = gpus[i];
		in->prices[in->gpu_count++] = gpus[i]->has_price ? gpus[i]->price_usd_per_hour : NAN;
	}
	return read_prices(v, hw, in, st);
}

static int read_dtypes(const struct param_values *v, struct plan_serve *ps, struct app_status *st)
{
	struct ridge_serve_plan_input *in = &ps->in;
	const struct app_model_extras *x = &ps->config.extras;
	char names[RIDGE_SERVE_PLAN_MAX_DTYPES][RIDGE_TEXT];
	const char *list = params_has(v, PS_WEIGHT_DTYPE) ? params_text(v, PS_WEIGHT_DTYPE)
			   : x->quantized                 ? "checkpoint"
							  : "bf16";
	int n = plan_split_list(list, names, RIDGE_SERVE_PLAN_MAX_DTYPES);
	if (n < 1) {
		app_error_flag(st, params_where(v, PS_WEIGHT_DTYPE), "'%s' is not a list of storage types (%s)", list,
			       cost_storage_list());
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (strcmp(names[i], "checkpoint") == 0 && x->quantized) {
			in->weights[i] = x->dense.storage;
			in->expert_weights[i] = x->experts.storage;
			in->embedding_weights[i] = x->embedding.storage;
		} else if (strcmp(names[i], "checkpoint") == 0) {
			in->weights[i] = (struct ridge_storage){ 2, 0, 0 };
		} else if (plan_read_storage(v, PS_WEIGHT_DTYPE, names[i], &in->weights[i], st) != 0)
			return -1;
		snprintf(in->dtype_names[i], sizeof in->dtype_names[i], "%s", names[i]);
	}
	in->dtype_count = n;
	return plan_read_storage(v, PS_KV_DTYPE, params_has(v, PS_KV_DTYPE) ? params_text(v, PS_KV_DTYPE) : "bf16",
				 &in->kv, st);
}

/* --engine, --max-num-batched-tokens, --layout, --moe-impl and the what-ifs. */
static int read_choices(const struct param_values *v, struct ridge_serve_plan_input *in, struct app_status *st)
{
	char words[RIDGE_SERVE_PLAN_MAX_BUDGETS][RIDGE_TEXT];
	const char *engines = params_has(v, PS_ENGINE) ? params_text(v, PS_ENGINE) : "vllm";
	int n = plan_split_list(engines, words, RIDGE_ENGINE_COUNT);
	for (int i = 0; i < n; i++)
		if (!serve_engine_parse(words[i], &in->engines[i]))
			n = -1;
	if (n < 1) {
		app_error_flag(st, params_where(v, PS_ENGINE), "'%s' is not a list of engines (vllm sglang trtllm)",
			       engines);
		return -1;
	}
	in->engine_count = n;
	const char *budgets = params_has(v, PS_BUDGETS) ? params_text(v, PS_BUDGETS) : "2048,8192";
	n = plan_split_list(budgets, words, RIDGE_SERVE_PLAN_MAX_BUDGETS);
	for (int i = 0; i < n; i++) {
		char *end;
		in->budgets[i] = strtod(words[i], &end);
		if (*end ||
		    !(in->budgets[i] >= 1 && in->budgets[i] <= 1048576 && in->budgets[i] == floor(in->budgets[i])))
			n = -1;
	}
	if (n < 1) {
		app_error_flag(st, params_where(v, PS_BUDGETS),
			       "'%s' is not a list of 1 to %d whole token budgets from 1 to 1048576", budgets,
			       RIDGE_SERVE_PLAN_MAX_BUDGETS);
		return -1;
	}
	in->budget_count = n;
	const char *layout = params_has(v, PS_LAYOUT) ? params_text(v, PS_LAYOUT) : "both";
	in->aggregated = strcmp(layout, "both") == 0 || strcmp(layout, "agg") == 0;
	in->disaggregated = strcmp(layout, "both") == 0 || strcmp(layout, "disagg") == 0;
	if (!in->aggregated && !in->disaggregated) {
		app_error_flag(st, params_where(v, PS_LAYOUT), "'%s' is not both, agg or disagg", layout);
		return -1;
	}
	return plan_read_model_options(v, PS_MOE_IMPL, PS_EFFICIENCY, PS_FIXED_COST, &in->moe_impl, &in->overrides,
				       &in->has_overrides, st);
}

/* max_position_embeddings of a JSON config (YAML configs: unchecked). */
static double config_context(const char *path)
{
	size_t len = strlen(path);
	struct app_status quiet;
	app_status_init(&quiet);
	if (len < 5 || strcmp(path + len - 5, ".json") != 0)
		return 0;
	char *text = app_read_file(path, 16u << 20, "model config", &len, &quiet);
	cJSON *doc = text ? cJSON_Parse(text) : NULL;
	free(text);
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(doc, "max_position_embeddings");
	double context = cJSON_IsNumber(n) && n->valuedouble >= 1 ? n->valuedouble : 0;
	cJSON_Delete(doc);
	app_status_clear(&quiet);
	return context;
}

static int read_load(const struct param_values *v, struct ridge_serve_plan_input *in, struct app_status *st)
{
	bool closed = params_has(v, PS_CONCURRENCY), open = params_has(v, PS_RATE);
	if (closed == open) {
		app_error(st, "give one of --concurrency (closed loop) or --rate (open loop)%s",
			  closed ? ", not both" : "");
		return -1;
	}
	in->isl = params_num(v, PS_ISL);
	in->osl = params_num(v, PS_OSL);
	in->concurrency = closed ? params_num(v, PS_CONCURRENCY) : 0;
	in->rate = open ? params_num(v, PS_RATE) : 0;
	in->ttft_limit_s = params_num(v, PS_TTFT);
	in->tpot_limit_s = params_num(v, PS_TPOT);
	in->percentile = params_has(v, PS_PERCENTILE) ? params_num(v, PS_PERCENTILE) : 90;
	if (!(in->percentile == 50 || in->percentile == 90 || in->percentile == 99)) {
		app_error_flag(st, params_where(v, PS_PERCENTILE), "'%g' is not 50, 90 or 99", in->percentile);
		return -1;
	}
	in->max_gpus = params_has(v, PS_MAX_GPUS) ? params_num(v, PS_MAX_GPUS) : 8;
	in->requests = params_has(v, PS_REQUESTS) ? params_num(v, PS_REQUESTS) : 0;
	in->seed = params_has(v, PS_SEED) ? (uint64_t)params_num(v, PS_SEED) : 1;
	return 0;
}

static int read_model(const struct param_values *v, struct plan_serve *ps, struct app_status *st)
{
	const char *path = ps->model_path = params_text(v, PS_MODEL);
	const char *assume = params_text(v, PS_ASSUME_FAMILY);
	if ((assume && !app_model_assume_ok(assume, st)) ||
	    app_model_config_load_as(path, assume, &ps->config, st) != 0)
		return -1;
	char err[400];
	struct ridge_workload_model w;
	if (app_model_config_workload(&ps->config, path, &w, err, sizeof err) != 0) {
		app_error(st, "%s", err);
		return -1;
	}
	ps->config.workload = w;
	for (int i = 0; i < ps->config.warning_count; i++)
		app_warning(st, "%s: %s", path, ps->config.warnings[i]);
	ps->in.model = &ps->config.workload;
	ps->in.llama_decoder = app_model_config_is_llama(&ps->config);
	ps->in.max_context = params_has(v, PS_MAX_CONTEXT) ? params_num(v, PS_MAX_CONTEXT) : config_context(path);
	if (ps->in.max_context > 0 && ps->in.isl + ps->in.osl > ps->in.max_context) {
		app_error_flag(st, params_where(v, PS_ISL),
			       "prompt + output of %g tokens is longer than the model's context of %g tokens",
			       ps->in.isl + ps->in.osl, ps->in.max_context);
		return -1;
	}
	return 0;
}

/* ---- the views ---- */

/* The front's indices by rising tokens/s per user (falling tokens/s per
 * GPU): the order a plot of it reads. Returns how many. */
static int front_order(const struct plan_serve *ps, int *order)
{
	int n = 0;
	for (int i = 0; i < ps->meeting; i++)
		if (ps->all[i].pareto)
			order[n++] = i;
	for (int i = 1; i < n; i++)
		for (int j = i;
		     j > 0 && ps->all[order[j]].tokens_per_s_per_user < ps->all[order[j - 1]].tokens_per_s_per_user;
		     j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	return n;
}

static void layout_text(const struct ridge_serve_plan_config *c, char *buf, size_t len)
{
	if (c->disaggregated)
		snprintf(buf, len, "%.0fP tp%.0f + %.0fD tp%.0f", c->prefill_workers, c->prefill_tp, c->decode_workers,
			 c->decode_tp);
	else
		snprintf(buf, len, "tp%.0f x %.0f", c->tp, c->replicas);
}

static cJSON *config_json(const struct ridge_serve_plan_input *in, const struct ridge_serve_plan_config *c)
{
	typedef struct ridge_serve_plan_config C;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "gpu", in->gpus[c->gpu_index]->id);
	cJSON_AddStringToObject(o, "weight_dtype", in->dtype_names[c->dtype_index]);
	cJSON_AddStringToObject(o, "engine", serve_engine_name(c->engine));
	cJSON_AddStringToObject(o, "layout", c->disaggregated ? "disaggregated" : "aggregated");
	static const struct json_field shape[] = { JSON_FIELDS(C, tp, replicas, gpus, max_num_batched_tokens,
							       max_num_seqs) };
	json_put_fields(o, c, shape, JSON_FIELD_COUNT(shape));
	if (c->disaggregated) {
		static const struct json_field pools[] = { JSON_FIELDS(C, prefill_tp, prefill_workers, decode_tp,
								       decode_workers) };
		json_put_fields(cJSON_AddObjectToObject(o, "disagg"), c, pools, JSON_FIELD_COUNT(pools));
	}
	json_number(o, "price_usd_per_gpu_hour", in->prices[c->gpu_index]);
	const struct ridge_latency_stats *l[2] = { &c->ttft, &c->tpot };
	const char *names[2] = { "ttft", "tpot" };
	for (int i = 0; i < 2; i++) {
		char key[32];
		const char *suffix[] = { "mean", "p50", "p90", "p99" };
		const double value[] = { l[i]->mean_s, l[i]->p50_s, l[i]->p90_s, l[i]->p99_s };
		for (int k = 0; k < 4; k++) {
			snprintf(key, sizeof key, "%s_%s_s", names[i], suffix[k]);
			json_number(o, key, value[k]);
		}
	}
	static const struct json_field results[] = {
		JSON_FIELDS(C, output_tokens_per_s, output_tokens_per_s_per_gpu, tokens_per_s_per_user,
			    usd_per_million_output_tokens, kv_utilization, preemptions, violation, meets, pareto),
	};
	json_put_fields(o, c, results, JSON_FIELD_COUNT(results));
	return o;
}

static cJSON *plan_json(const struct plan_serve *ps, int top)
{
	const struct ridge_serve_plan_input *in = &ps->in;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "model", ps->model_path);
	json_number(o, "isl", in->isl);
	json_number(o, "osl", in->osl);
	cJSON_AddStringToObject(o, "load", in->concurrency > 0 ? "closed" : "open");
	json_number(o, in->concurrency > 0 ? "concurrency" : "rate", in->concurrency > 0 ? in->concurrency : in->rate);
	json_number(o, "percentile", in->percentile);
	json_number(o, "ttft_limit_s", in->ttft_limit_s);
	json_number(o, "tpot_limit_s", in->tpot_limit_s);
	json_number(o, "max_gpus", in->max_gpus);
	json_number(o, "configurations", ps->count);
	json_number(o, "simulated", ps->simulated);
	json_number(o, "does_not_fit", ps->not_fit);
	json_number(o, "pruned", ps->pruned);
	json_number(o, "stopped", ps->stopped);
	json_number(o, "meeting", ps->meeting);
	cJSON_AddBoolToObject(o, "ok", ps->meeting > 0);
	cJSON *trust = cJSON_AddObjectToObject(o, "validation"); /* per engine searched */
	for (int e = 0; trust && e < in->engine_count; e++)
		serve_view_validation(trust, serve_engine_name(in->engines[e]), in->engines[e]);
	cJSON *front = cJSON_AddArrayToObject(o, "pareto");
	int n = front_order(ps, ps->order);
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(front, config_json(in, &ps->all[ps->order[i]]));
	cJSON *list = cJSON_AddArrayToObject(o, ps->meeting > 0 ? "ranking" : "nearest");
	int shown = ps->meeting > 0 && ps->meeting < top ? ps->meeting : top < ps->count ? top : ps->count;
	for (int i = 0; i < shown; i++)
		if (ps->all[i].status == RIDGE_SERVE_PLAN_SIMULATED)
			cJSON_AddItemToArray(list, config_json(in, &ps->all[i]));
	return o;
}

static void print_row(FILE *out, const struct ridge_serve_plan_input *in, const struct ridge_serve_plan_config *c,
		      const char *mark)
{
	char layout[48], ttft[32], tpot[32], usd[32], gpu_rate[32], user_rate[32];
	layout_text(c, layout, sizeof layout);
	fmt_seconds(c->ttft_s, ttft, sizeof ttft);
	fmt_seconds(c->tpot_s, tpot, sizeof tpot);
	fmt_usd(c->usd_per_million_output_tokens, usd, sizeof usd);
	fmt_grouped(c->output_tokens_per_s_per_gpu, 1, gpu_rate, sizeof gpu_rate);
	fmt_grouped(c->tokens_per_s_per_user, 1, user_rate, sizeof user_rate);
	fprintf(out, "  %-4s %-10s %-6s %-7s %-18s %6.0f %5.0f %10s %10s %10s %10s %9s\n", mark,
		in->gpus[c->gpu_index]->id, in->dtype_names[c->dtype_index], serve_engine_name(c->engine), layout,
		c->max_num_batched_tokens, c->max_num_seqs, ttft, tpot, user_rate, gpu_rate, usd);
}

static void print_header(FILE *out, const struct ridge_serve_plan_input *in)
{
	char t[16], p[16];
	snprintf(t, sizeof t, "TTFT P%.0f", in->percentile);
	snprintf(p, sizeof p, "TPOT P%.0f", in->percentile);
	fprintf(out, "  %-4s %-10s %-6s %-7s %-18s %6s %5s %10s %10s %10s %10s %9s\n", "#", "GPU", "dtype", "engine",
		"layout", "budget", "seqs", t, p, "tok/s/user", "tok/s/GPU", "$/1M tok");
}

static void print_plan(FILE *out, const struct plan_serve *ps, int top)
{
	const struct ridge_serve_plan_input *in = &ps->in;
	char ttft[32], tpot[32], load[64];
	fmt_seconds(in->ttft_limit_s, ttft, sizeof ttft);
	fmt_seconds(in->tpot_limit_s, tpot, sizeof tpot);
	if (in->concurrency > 0)
		snprintf(load, sizeof load, "closed loop at concurrency %.0f", in->concurrency);
	else
		snprintf(load, sizeof load, "open loop at %.6g requests/s", in->rate);
	fprintf(out, "Serving plan for %s: prompt %.0f, output %.0f tokens, %s; TTFT P%.0f <= %s, TPOT P%.0f <= %s\n",
		ps->model_path, in->isl, in->osl, load, in->percentile, ttft, in->percentile, tpot);
	fprintf(out,
		"  %d configurations (GPU x dtype x engine x TP x replicas x budget x sequence limit, and "
		"disaggregated pools up to %.0f GPUs): %d simulated (%d do not fit, %d stopped thrashing), %d "
		"skipped, %d meet every limit\n",
		ps->count, in->max_gpus, ps->simulated, ps->not_fit, ps->stopped, ps->pruned, ps->meeting);
	for (int g = 0; g < in->gpu_count; g++) {
		char usd[32];
		fmt_usd(in->prices[g], usd, sizeof usd);
		fprintf(out, "  %s at %s per GPU-hour\n", in->gpus[g]->id, usd);
	}
	if (ps->meeting > 0) {
		fprintf(out, "\n  Pareto front: output tokens/s per GPU against tokens/s per user (1 / TPOT P50):\n\n");
		print_header(out, in);
		int n = front_order(ps, ps->order);
		for (int i = 0; i < n; i++)
			print_row(out, in, &ps->all[ps->order[i]], "*");
		fprintf(out, "\n  Cheapest first ($ per million output tokens, then tokens/s per GPU):\n\n");
	} else
		fprintf(out,
			"\n  No configuration meets the limits. The nearest (by the worse ratio of a percentile to "
			"its limit):\n\n");
	print_header(out, in);
	int shown = 0;
	for (int i = 0; i < ps->count && shown < top && (ps->meeting == 0 || i < ps->meeting); i++)
		if (ps->all[i].status == RIDGE_SERVE_PLAN_SIMULATED) {
			char rank[8];
			snprintf(rank, sizeof rank, "%d", ++shown);
			print_row(out, in, &ps->all[i], rank);
		}
	fprintf(out,
		"\n  Each simulated as ridge serve runs it (the engine's preset and memory fraction, CUDA graphs,\n"
		"  chunked prefill, preemption); replicas split the load evenly; a layout's sequence limits\n"
		"  run from the largest down, and those below one whose TTFT misses the limit are skipped.\n"
		"  layout: tpT x R = R replicas of tensor parallelism T; PP tpT + DD tpT = prefill and\n"
		"  decode workers (disaggregated).\n");
	cJSON *trust = cJSON_CreateObject();
	for (int e = 0; trust && e < in->engine_count; e++) {
		const char *name = serve_engine_name(in->engines[e]);
		const cJSON *v = serve_view_validation(trust, name, in->engines[e]);
		if (v)
			serve_view_print_trust(out, name, v);
	}
	cJSON_Delete(trust);
}

/* ---- the SVG: every configuration simulated, the front of those meeting the limits ---- */

static int write_svg(const char *path, const struct plan_serve *ps, struct app_status *st)
{
	const struct ridge_serve_plan_input *in = &ps->in;
	double xhi = 0, yhi = 0;
	for (int i = 0; i < ps->count; i++)
		if (ps->all[i].status == RIDGE_SERVE_PLAN_SIMULATED) {
			xhi = fmax(xhi, ps->all[i].tokens_per_s_per_user);
			yhi = fmax(yhi, ps->all[i].output_tokens_per_s_per_gpu);
		}
	struct svg s;
	const double w = 900, h = 540;
	struct svg_plot plot = {
		.left = 90,
		.top = 50,
		.right = 730,
		.bottom = h - 50,
		.x = { .scale = SVG_LINEAR,
		       .lo = 0,
		       .hi = xhi > 0 ? xhi * 1.1 : 1,
		       .title = "tokens per user = 1 / TPOT P50",
		       .unit = "tokens/s" },
		.y = { .scale = SVG_LINEAR,
		       .lo = 0,
		       .hi = yhi > 0 ? yhi * 1.1 : 1,
		       .title = "output tokens per GPU",
		       .unit = "tokens/s" },
	};
	svg_begin(&s, w, h, "ridge plan: throughput per GPU against tokens per user");
	svg_title(&s, 28, 16, "ridge plan: throughput per GPU against tokens per user");
	svg_plot_axes(&s, &plot);
	const char *colors[] = {
		"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#17becf"
	};
	for (int i = 0; i < ps->count; i++) {
		const struct ridge_serve_plan_config *c = &ps->all[i];
		if (c->status != RIDGE_SERVE_PLAN_SIMULATED)
			continue;
		double x = svg_plot_x(&plot, c->tokens_per_s_per_user),
		       y = svg_plot_y(&plot, c->output_tokens_per_s_per_gpu);
		svg_circle(&s, x, y, c->meets ? 3.5 : 2, c->meets ? colors[c->gpu_index % 8] : "#ccc", "none");
	}
	double xs[256], ys[256];
	int n = front_order(ps, ps->order), k = 0;
	for (; k < n && k < 256; k++) {
		xs[k] = svg_plot_x(&plot, ps->all[ps->order[k]].tokens_per_s_per_user);
		ys[k] = svg_plot_y(&plot, ps->all[ps->order[k]].output_tokens_per_s_per_gpu);
	}
	svg_polyline(&s, xs, ys, k, "#000", 1.5);
	/* The legend, right of the frame. */
	const double x1 = plot.right, y1 = plot.top;
	for (int g = 0; g < in->gpu_count; g++) {
		svg_circle(&s, x1 + 20, y1 + 6 + 16 * g, 4, colors[g % 8], "none");
		svg_text(&s, x1 + 30, y1 + 10 + 16 * g, 11, "start", "#000", in->gpus[g]->id);
	}
	svg_text(&s, x1 + 16, y1 + 10 + 16 * in->gpu_count, 11, "start", "#666", "grey: misses a limit");
	svg_text(&s, x1 + 16, y1 + 26 + 16 * in->gpu_count, 11, "start", "#666", "line: the Pareto front");
	svg_end(&s);
	int rc = svg_save(&s, path, st);
	svg_free(&s);
	return rc;
}

/* ---- the command ---- */

static int search(struct plan_serve *ps, struct app_status *st)
{
	int space = serve_plan_space(&ps->in);
	if (space < 1) {
		app_error(st, "no configuration to simulate: no TP of %g GPUs or fewer divides the %lld heads",
			  ps->in.max_gpus, ps->in.model->heads);
		return -1;
	}
	if (space > 200000) {
		app_error(st, "%d configurations: more than 200000 (fewer GPUs, dtypes, engines or budgets)", space);
		return -1;
	}
	ps->all = calloc((size_t)space, sizeof *ps->all);
	ps->order = calloc((size_t)space, sizeof *ps->order);
	char err[600];
	if (!ps->all || !ps->order) {
		app_error_env(st, "out of memory");
		return -1;
	}
	if (serve_plan_search(&ps->in, ps->all, space, &ps->count, &ps->simulated, err, sizeof err) != 0) {
		app_error(st, "%s", err);
		return -1;
	}
	while (ps->meeting < ps->count && ps->all[ps->meeting].meets)
		ps->meeting++;
	for (int i = 0; i < ps->count; i++) {
		ps->not_fit += ps->all[i].status == RIDGE_SERVE_PLAN_DOES_NOT_FIT;
		ps->pruned += ps->all[i].status == RIDGE_SERVE_PLAN_PRUNED;
		ps->stopped += ps->all[i].status == RIDGE_SERVE_PLAN_STOPPED;
	}
	return 0;
}

static int plan_serve_read(const struct param_values *v, struct plan_serve *ps, struct app_hw *hw,
			   struct app_status *st)
{
	if (read_load(v, &ps->in, st) || read_model(v, ps, st) || read_dtypes(v, ps, st) ||
	    read_choices(v, &ps->in, st))
		return -1;
	return read_gpus(v, hw, &ps->in, st);
}

int plan_serve_command(FILE *out, const struct param_values *v, cJSON **json, struct app_status *st)
{
	*json = NULL;
	const char *svg_path = params_text(v, PS_SVG);
	const char *inputs[] = { params_text(v, PS_MODEL), params_text(v, PS_CALIBRATION) };
	if (svg_path && (app_output_path_ok(params_where(v, PS_SVG), svg_path, st) != 0 ||
			 app_output_not_input(params_where(v, PS_SVG), svg_path, inputs, 2, st) != 0))
		return -1;
	struct plan_serve *ps = calloc(1, sizeof *ps);
	if (!ps) {
		app_error_env(st, "out of memory");
		return EXIT_ENV;
	}
	struct app_hw hw;
	bool hw_open = false;
	int rc = -1;
	if (app_hw_open(&hw, params_text(v, PS_HWDB), params_text(v, PS_CALIBRATION), st) == 0) {
		hw_open = true;
		if (plan_serve_read(v, ps, &hw, st) == 0 && search(ps, st) == 0 &&
		    !(svg_path && write_svg(svg_path, ps, st) != 0))
			rc = EXIT_OK;
	}
	int top = params_has(v, PS_TOP) ? (int)params_num(v, PS_TOP) : 5;
	if (rc == EXIT_OK && params_flag(v, PS_JSON)) {
		*json = plan_json(ps, top);
	} else if (rc == EXIT_OK) {
		print_plan(out, ps, top);
		if (svg_path)
			fprintf(out, "  Front written to %s\n", svg_path);
		rc = fflush(out) == 0 ? EXIT_OK : EXIT_ENV;
	}
	if (rc == EXIT_OK && ps->meeting == 0)
		rc = EXIT_PROBLEM;
	if (hw_open)
		app_hw_close(&hw);
	free(ps->all);
	free(ps->order);
	free(ps);
	return rc;
}
