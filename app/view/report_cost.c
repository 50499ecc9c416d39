/* The report section of the launch and cost calculators: the textbook chapter's
 * worked examples (the textbook, sections 7.3, 7.8.1, Worked Example 7.1, review
 * question 9) recomputed on the report's GPU. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "calc.h"
#include "json_fields.h"
#include "app.h"
#include "cost.h"
#include "launch.h"
#include "report.h"

/* A calculation that failed: its error in place of the result. */
static void json_error(cJSON *obj, const char *err)
{
	cJSON_AddStringToObject(obj, "error", err);
}

static void report_launch(FILE *out, const struct ridge_gpu *g, cJSON *json)
{
	char a[48], b[48], c[48], d[48];
	const char *source = g->measured ? "measured" : "hwdb";
	cJSON *steps_json = NULL;
	if (json) {
		cJSON *l = cJSON_AddObjectToObject(json, "launch");
		cJSON_AddStringToObject(l, "workload", "Llama-3-70B decode");
		cJSON_AddStringToObject(l, "launch_source", source);
		cJSON_AddStringToObject(l, "graph_node_source", source);
		steps_json = cJSON_AddArrayToObject(l, "steps");
	} else {
		fmt_seconds(g->launch_overhead_s, a, sizeof a);
		fmt_seconds(g->graph_node_s, b, sizeof b);
		fprintf(out, "Launch overhead, Llama-3-70B decode: 6 kernels x 80 layers = 480 launches per step\n");
		fprintf(out, "  (%s per launch, %s per graph node: %s)\n", a, b, source);
		fprintf(out, "  %-8s %-22s %-26s %s\n", "TPOT", "eager launches", "graph replay", "persistent kernel");
	}
	static const double steps[] = { 25e-3, 10e-3, 5e-3 };
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		struct ridge_launch_input in = {
			.kernels_per_layer = 6, .layers = 80, .has_step = true, .step_s = steps[i]
		};
		launch_defaults(g, &in);
		struct ridge_launch_result r;
		char err[200];
		int rc = launch_compute(&in, &r, err, sizeof err);
		if (steps_json) {
			cJSON *step = cJSON_CreateObject();
			cJSON_AddItemToArray(steps_json, step);
			if (rc != 0) {
				json_number(step, "step_s", steps[i]);
				json_error(step, err);
			} else {
				calc_json_launch(step, &in, &r);
			}
			continue;
		}
		fmt_seconds(steps[i], a, sizeof a);
		if (rc != 0) {
			fprintf(out, "  %-8s %s\n", a, err);
			continue;
		}
		char eager[64], graph[64], pct[32];
		fmt_seconds(r.overhead_s, b, sizeof b);
		fmt_percent(r.fraction_of_step, pct, sizeof pct);
		snprintf(eager, sizeof eager, "%s (%s)", b, pct);
		fmt_seconds(r.graph_overhead_s, c, sizeof c);
		fmt_seconds(r.tpot_graph_s, d, sizeof d);
		snprintf(graph, sizeof graph, "%s -> TPOT %s", c, d);
		fmt_seconds(r.tpot_persistent_s, c, sizeof c);
		fprintf(out, "  %-8s %-22s %-26s 0 -> TPOT %s\n", a, eager, graph, c);
	}
}

/* The peak a training run on g would use: bf16, else fp16. */
static bool training_peak(const struct ridge_gpu *g, double *peak, const char **dtype)
{
	if (ridge_gpu_peak(g, RIDGE_BF16, RIDGE_PEAK_DEFAULT, false, peak, NULL)) {
		*dtype = "bf16";
		return true;
	}
	if (ridge_gpu_peak(g, RIDGE_FP16, RIDGE_PEAK_DEFAULT, false, peak, NULL)) {
		*dtype = "fp16";
		return true;
	}
	return false;
}

/* The keys the cost calculators' --json give their inputs. */
static void json_cost_inputs(cJSON *obj, double gpus, const char *dtype, double peak, double price, bool hwdb_price)
{
	json_number(obj, "gpus", gpus);
	cJSON_AddStringToObject(obj, "dtype", dtype);
	json_number(obj, "peak_flops", peak);
	cJSON_AddStringToObject(obj, "price_source", hwdb_price ? "hwdb" : "assumed");
	json_number(obj, "price_usd_per_gpu_hour", price);
}

/* The report's two fixed workloads, each on one line as the textbook states
 * it; the GPU's peak, bandwidth, memory and price are filled in per GPU. */
/* clang-format off */
static const struct ridge_train_input worked_example_7_1 = {
	.params = 70e9, .seq = 4096, .batch = 2048, .steps = 1e6, .gpus = 512, .mfu = 0.40, .formula = RIDGE_FLOPS_6N,
};
static const struct ridge_decode_input llama3_70b_decode = {
	.params = 70553706496.0, .layers = 80, .kv_heads = 8, .head_dim = 128, .context = 8192, .gpus = 8,
	.weight_bytes = 2, .kv_bytes = 2,
};
/* clang-format on */

static void report_training(FILE *out, const struct ridge_gpu *g, double peak, const char *dtype, double price,
			    cJSON *json)
{
	char a[64], b[64], c[64], d[64];
	struct ridge_train_input in = worked_example_7_1;
	in.peak_flops = peak;
	in.price_usd_per_gpu_hour = price;
	const double target_mfu = 0.65, investment_usd = 240e3;
	struct ridge_train_comparison cmp;
	char err[200];
	if (json) {
		cJSON *t = cJSON_AddObjectToObject(json, "training");
		cJSON_AddStringToObject(t, "example", "Worked Example 7.1");
		json_cost_inputs(t, in.gpus, dtype, peak, price, g->has_price);
		static const struct json_field run_fields[] = {
			JSON_FIELDS(struct ridge_train_input, params, seq, batch, steps),
		};
		json_put_fields(t, &in, run_fields, JSON_FIELD_COUNT(run_fields));
		cJSON_AddStringToObject(t, "flops_formula", "6n");
		if (cost_train_compare(&in, target_mfu, true, investment_usd, &cmp, NULL, err, sizeof err) != 0)
			json_error(t, err);
		else
			calc_json_train_comparison(t, &cmp);
		return;
	}
	fmt_si(peak, "FLOP/s", a, sizeof a);
	fmt_usd(price, b, sizeof b);
	fprintf(out, "\nWorked Example 7.1 on 512 x %s (%s %s, %s/GPU-hour): 70B, seq 4096 x batch 2048, 1M steps\n",
		g->id, dtype, a, b);
	if (cost_train_compare(&in, target_mfu, true, investment_usd, &cmp, NULL, err, sizeof err) != 0) {
		fprintf(out, "  %s\n", err);
		return;
	}
	fmt_grouped(cmp.current.flops_per_step, 0, a, sizeof a);
	fprintf(out, "  FLOPs per step 6N x seq x batch = %s\n", a);
	fmt_usd(cmp.current.cost_usd, a, sizeof a);
	fmt_usd(cmp.target.cost_usd, b, sizeof b);
	fprintf(out, "  MFU 40%%: %.4f s/step, %s    MFU 65%%: %.4f s/step, %s\n", cmp.current.step_time_s, a,
		cmp.target.step_time_s, b);
	fmt_usd(cmp.savings_usd, c, sizeof c);
	fmt_grouped(cmp.break_even_step, 0, d, sizeof d);
	fmt_roi(cmp.roi_net, a, sizeof a);
	fprintf(out, "  savings %s; on $240,000 of engineering: net ROI %s, break-even at step %s\n", c, a, d);
	fprintf(out, "  (the book, at 989 TFLOP/s with rounded intermediates, prints $2,860,800 and 10.9x:\n"
		     "   'ridge eval examples/worked-example-7-1.yaml' shows the drift)\n");
}

static void report_decode(FILE *out, const struct ridge_gpu *g, double peak, const char *dtype, double price,
			  cJSON *json)
{
	cJSON *batches_json = NULL;
	if (json) {
		cJSON *d = cJSON_AddObjectToObject(json, "decode");
		cJSON_AddStringToObject(d, "model", "Llama-3-70B");
		json_cost_inputs(d, 8, dtype, peak, price, g->has_price);
		json_number(d, "context", 8192);
		batches_json = cJSON_AddArrayToObject(d, "batches");
	} else {
		fprintf(out, "\nLlama-3-70B decode on 8 x %s (%s weights and KV cache, context 8192, %s peak):\n",
			g->id, dtype, dtype);
		fprintf(out, "  %6s %12s %12s %13s %8s %s\n", "batch", "TPOT", "tokens/s", "$/M tokens", "bound",
			"fits in memory");
	}
	static const double batches[] = { 1, 32 };
	for (size_t i = 0; i < sizeof batches / sizeof batches[0]; i++) {
		struct ridge_decode_input in = llama3_70b_decode;
		in.batch = batches[i];
		in.bandwidth = g->memory_bandwidth;
		in.peak_flops = peak;
		in.memory_bytes = ridge_gpu_usable_memory(g);
		in.price_usd_per_gpu_hour = price;
		struct ridge_decode_result r;
		char err[200], a[48], b[48], c[48];
		int rc = cost_decode(&in, &r, NULL, err, sizeof err);
		if (batches_json) {
			cJSON *one = cJSON_CreateObject();
			cJSON_AddItemToArray(batches_json, one);
			json_number(one, "batch", batches[i]);
			if (rc != 0)
				json_error(one, err);
			else
				calc_json_decode(one, &r);
			continue;
		}
		if (rc != 0) {
			fprintf(out, "  %6.0f %s\n", batches[i], err);
			continue;
		}
		fmt_seconds(r.tpot_s, a, sizeof a);
		fmt_grouped(r.tokens_per_s, 1, b, sizeof b);
		fmt_usd(r.usd_per_million_tokens, c, sizeof c);
		fprintf(out, "  %6.0f %12s %12s %13s %8s %s\n", batches[i], a, b, c, cost_bound_name(r.bound),
			r.fits ? "yes" : "NO (exceeds 8 x memory)");
	}
	if (!json)
		fprintf(out, "  KV cache per token: 2 x 80 x 8 KV heads x 128 x 2 B = 327,680 B (GQA)\n");
}

static void report_rank(FILE *out, cJSON *json)
{
	/* Review question 9 under the assumptions of examples/review-q9-rank.yaml. */
	struct ridge_fleet fleet = { 4e6, 0.6, 0.4, 0.40, 250, 40, 12 };
	struct ridge_project p[3] = {
		{ "A attention rewrite (+15 MFU pts)", RIDGE_PROJECT_MFU, 0.15, 0, 1, 3 * RIDGE_WEEKS_PER_MONTH, false,
		  0, 0 },
		{ "B GEMM alignment (+8 MFU pts)", RIDGE_PROJECT_MFU, 0.08, 0, 1, 2, false, 0, 0 },
		{ "C persistent decode (-18% TPOT)", RIDGE_PROJECT_TPOT, 0, 0.18, 1, 6, false, 0, 0 },
	};
	struct ridge_project_result r[3];
	char err[200];
	if (json) {
		cJSON *rank = cJSON_AddObjectToObject(json, "rank");
		cJSON_AddStringToObject(rank, "example", "review question 9");
		calc_json_fleet(cJSON_AddObjectToObject(rank, "assumptions"), &fleet);
		if (cost_rank(&fleet, p, 3, r, NULL, err, sizeof err) != 0) {
			json_error(rank, err);
			return;
		}
		cJSON *ranking = cJSON_AddArrayToObject(rank, "ranking");
		for (int i = 0; i < 3; i++)
			cJSON_AddItemToArray(ranking, calc_json_rank_entry(&p[r[i].index], &r[i]));
		return;
	}
	fprintf(out,
		"\nReview question 9 ($4M/month, 60%% training / 40%% inference; baseline MFU 40%%, $250/h, 12 months):\n");
	if (cost_rank(&fleet, p, 3, r, NULL, err, sizeof err) != 0) {
		fprintf(out, "  %s\n", err);
		return;
	}
	for (int i = 0; i < 3; i++) {
		char cost[32], month[32], roi[32];
		fmt_usd(r[i].engineering_usd, cost, sizeof cost);
		fmt_usd(r[i].savings_per_month, month, sizeof month);
		fmt_roi(r[i].roi_net, roi, sizeof roi);
		fprintf(out, "  %d. %-34s cost %-12s saves %s/month, net ROI %s\n", r[i].rank, p[r[i].index].name, cost,
			month, roi);
	}
}

void report_cost(FILE *out, const struct ridge_gpu *g, cJSON *json)
{
	if (!json)
		fprintf(out, "== Launch overhead and cost on %s (%s): %s ceilings ==\n", g->name, g->id,
			app_ceiling_source(g));
	report_launch(out, g, json);
	double peak, price = g->has_price ? g->price_usd_per_hour : 3.0;
	const char *dtype;
	if (!training_peak(g, &peak, &dtype)) {
		if (json) {
			cJSON_AddNullToObject(json, "training");
			cJSON_AddNullToObject(json, "decode");
		} else {
			fprintf(out, "\n%s has no bf16 or fp16 rate: no training or decode cost.\n", g->id);
		}
	} else {
		if (!g->has_price && !json)
			fprintf(out,
				"\n(%s has no price in hwdb: $3.00 per GPU-hour assumed, the textbook's figure, Worked Example 7.1)\n",
				g->id);
		report_training(out, g, peak, dtype, price, json);
		report_decode(out, g, peak, dtype, price, json);
	}
	report_rank(out, json);
}
