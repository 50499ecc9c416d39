/* ridge cost train's text (cost_calc.c computes the result): the run's
 * table, and the parallel step's communication and memory terms
 * (model/parallel.h) read back from its JSON. */
#include "cost_internal.h"

static void print_comm_term(FILE *out, const cJSON *p, const char *key, const char *label, double overlap)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(p, key);
	if (!t)
		return;
	char a[32], b[32], c[32], d[32];
	fmt_bytes(calc_num(t, "bytes"), a, sizeof a);
	fmt_seconds(calc_num(t, "time_s"), b, sizeof b);
	fmt_seconds(calc_num(t, "total_s"), c, sizeof c);
	fmt_seconds(calc_num(t, "total_s") * (1 - overlap), d, sizeof d);
	fprintf(out, "  %-18s %6.0f x %s of %s on %.0f GPUs (%s, %s) = %s, exposed %s\n", label, calc_num(t, "count"),
		calc_str(t, "op"), a, calc_num(t, "gpus"), calc_str(t, "algorithm"), b, c, d);
	const cJSON *caveat = cJSON_GetObjectItemCaseSensitive(t, "caveat");
	if (cJSON_IsString(caveat))
		fprintf(out, "  %-18s %s\n", "  trust", caveat->valuestring);
}

/* The communication and memory terms of a parallel step (model/parallel.h). */
static void print_parallel(FILE *out, const cJSON *r)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(r, "parallel");
	if (!p)
		return;
	char a[32], b[32], c[32], d[32];
	fprintf(out, "\n  Parallel: TP %.0f x CP %.0f x PP %.0f x DP %.0f, %.0f micro-batches of %.0f per pipeline, %s",
		calc_num(p, "tp"), calc_num(p, "cp"), calc_num(p, "pp"), calc_num(p, "dp"),
		calc_num(p, "micro_batches"), calc_num(p, "micro_batch"), calc_str(p, "sharding"));
	if (calc_num(p, "virtual_stages") > 1)
		fprintf(out, ", interleaved x %.0f", calc_num(p, "virtual_stages"));
	if (calc_has(p, "ep"))
		fprintf(out, ", EP %.0f (expert DP %.0f)", calc_num(p, "ep"), calc_num(p, "expert_dp"));
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "sequence_parallel")))
		fprintf(out, ", sequence parallel");
	fprintf(out, "\n");
	print_comm_term(out, p, "tp_allreduce", "tensor parallel", calc_num(p, "tp_overlap"));
	print_comm_term(out, p, "tp_reduce_scatter", "tensor parallel", calc_num(p, "tp_overlap"));
	print_comm_term(out, p, "tp_allgather", "  (SP all-gather)", calc_num(p, "tp_overlap"));
	print_comm_term(out, p, "cp_allgather", "context K/V", 0);
	print_comm_term(out, p, "cp_reduce_scatter", "context dK/dV", 0);
	if (calc_has(p, "cp_comm_s")) {
		fmt_seconds(calc_num(p, "cp_attention_s"), a, sizeof a);
		fmt_seconds(calc_num(p, "cp_exposed_s"), b, sizeof b);
		fprintf(out, "  %-18s ring attention hides it under %s of attention: exposed %s\n", "", a, b);
	}
	print_comm_term(out, p, "ep_alltoall", "expert all-to-all", calc_num(p, "ep_overlap"));
	print_comm_term(out, p, "pp_send_recv", "pipeline", 0);
	print_comm_term(out, p, "pp_allgather", "  (scatter/gather)", 0);
	print_comm_term(out, p, "dp_allreduce", "gradients", calc_num(p, "dp_overlap"));
	print_comm_term(out, p, "dp_reduce_scatter", "gradients", calc_num(p, "dp_overlap"));
	print_comm_term(out, p, "dp_allgather", "weights", calc_num(p, "dp_overlap"));
	print_comm_term(out, p, "dp_expert_allreduce", "expert gradients", calc_num(p, "dp_overlap"));
	print_comm_term(out, p, "dp_expert_reduce_scatter", "expert gradients", calc_num(p, "dp_overlap"));
	print_comm_term(out, p, "dp_expert_allgather", "expert weights", calc_num(p, "dp_overlap"));
	fmt_seconds(calc_num(p, "compute_s"), a, sizeof a);
	fmt_seconds(calc_num(p, "bubble_s"), b, sizeof b);
	fmt_seconds(calc_num(p, "exposed_comm_s"), c, sizeof c);
	fmt_seconds(calc_num(p, "step_time_s"), d, sizeof d);
	char share[32];
	fmt_percent(calc_num(p, "comm_share"), share, sizeof share);
	fprintf(out, "  step = compute %s + bubble %s + exposed communication %s = %s (communication %s of the step)\n",
		a, b, c, d, share);
	if (calc_num(p, "recompute_flops") > 0) {
		fmt_seconds(calc_num(p, "recompute_s"), a, sizeof a);
		fprintf(out, "  compute includes %s recomputation (%s): %.4g FLOP the model does not count\n", a,
			calc_str(p, "recompute"), calc_num(p, "recompute_flops"));
	}
	if (calc_has(p, "predicted_mfu")) {
		fmt_percent(calc_num(p, "compute_efficiency"), a, sizeof a);
		fmt_percent(calc_num(p, "predicted_mfu"), b, sizeof b);
		const cJSON *prov = cJSON_GetObjectItemCaseSensitive(p, "provenance");
		const char *kind = calc_str(prov, "compute_efficiency");
		fprintf(out, "  kernels at %s of peak (%s%s) -> predicted MFU %s (used for the cost)\n", a,
			strcmp(kind, "what-if") == 0 ? "" : "the GPU's timing.gemm, ", kind, b);
		const cJSON *range = cJSON_GetObjectItemCaseSensitive(p, "predicted_time_range_s");
		if (cJSON_GetArraySize(range) == 2) {
			fmt_seconds(cJSON_GetArrayItem(range, 0)->valuedouble, a, sizeof a);
			fmt_seconds(cJSON_GetArrayItem(range, 1)->valuedouble, b, sizeof b);
			fprintf(out,
				"  step range %s - %s (the gemm class's held-out P10-P90 on the kernels; "
				"communication without a band)\n",
				a, b);
		}
	} else {
		fmt_percent(calc_num(p, "implied_compute_efficiency"), a, sizeof a);
		fmt_percent(calc_num(r, "mfu"), b, sizeof b);
		fprintf(out, "  for MFU %s the kernels must reach %s of peak\n", b, a);
	}
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(p, "memory");
	struct calc_text text = { 0 };
	fprintf(out, "  memory per GPU: weights %s + grads %s + optimizer %s",
		calc_text_bytes(&text, m, "weights_bytes"), calc_text_bytes(&text, m, "grads_bytes"),
		calc_text_bytes(&text, m, "optimizer_bytes"));
	if (calc_has(m, "activations_bytes"))
		fprintf(out, " + activations %s (recompute %s)", calc_text_bytes(&text, m, "activations_bytes"),
			calc_str(m, "recompute"));
	else
		fprintf(out, " (activations: give --hidden-size and --layers)");
	fprintf(out, " = %s of %s: %s\n", calc_text_bytes(&text, m, "required_bytes"),
		calc_text_bytes(&text, m, "available_bytes"),
		cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "fits")) ? "fits" : "DOES NOT FIT");
}

void cost_train_print(FILE *out, const cJSON *r)
{
	char a[64], b[64], c[64], d[64];
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(r, "target");
	fmt_si(calc_num(r, "peak_flops"), "FLOP/s", a, sizeof a);
	fprintf(out, "Training cost: %.0f x %s at %s each", calc_num(r, "gpus"), calc_str(r, "gpu"), a);
	if (strcmp(calc_str(r, "peak_source"), "given") == 0) {
		if (calc_has(r, "hwdb_peak_flops")) {
			fmt_si(calc_num(r, "hwdb_peak_flops"), "FLOP/s", b, sizeof b);
			fprintf(out, " (given; hwdb %s dense: %s)", calc_str(r, "dtype"), b);
		} else {
			fprintf(out, " (given)");
		}
	} else {
		fprintf(out, " (%s %s dense, %s)",
			strcmp(calc_str(r, "peak_source"), "measured") == 0 ? "measured" : "hwdb", calc_str(r, "dtype"),
			strcmp(calc_str(r, "ceilings"), "measured") == 0 ? "calibration" : "spec sheet");
	}
	fmt_usd(calc_num(r, "price_usd_per_gpu_hour"), c, sizeof c);
	fprintf(out, ", %s per GPU-hour%s\n", c, strcmp(calc_str(r, "price_source"), "hwdb") == 0 ? " (hwdb)" : "");

	fmt_grouped(calc_num(r, "flops_per_step"), 0, a, sizeof a);
	fmt_grouped(calc_num(r, "steps"), 0, b, sizeof b);
	cost_format_exact(calc_num(r, "params"), d, sizeof d);
	const cJSON *moe = cJSON_GetObjectItemCaseSensitive(r, "moe");
	if (moe) { /* the FLOPs count the active parameters */
		fprintf(out, "  MoE: %.0f experts, %.0f per token, %s parameters of which %s routed experts\n",
			calc_num(moe, "experts"), calc_num(moe, "top_k"), d,
			(cost_format_exact(calc_num(moe, "expert_params"), c, sizeof c), c));
		cost_format_exact(calc_num(moe, "active_params"), d, sizeof d);
	}
	fprintf(out, "  N = %s %sparameters, seq %.0f x batch %.0f, %s steps; FLOPs per step (%s) = %s\n", d,
		moe ? "active " : "", calc_num(r, "seq"), calc_num(r, "batch"), b,
		strcmp(calc_str(r, "flops_formula"), "palm") == 0 ? "6N + attention" : "6N", a);

	fprintf(out, "\n  %-22s %24s", "", "current");
	if (t)
		fprintf(out, " %24s", "target");
	fprintf(out, "\n");
	struct {
		const char *label, *key;
		int kind; /* 0 percent, 1 seconds, 2 hours, 3 usd, 4 count, 5 GPU-hours */
	} rows[] = {
		{ "MFU", "mfu", 0 },
		{ "step time", "step_time_s", 1 },
		{ "wall hours", "wall_hours", 2 },
		{ "GPU-hours", "gpu_hours", 5 },
		{ "cost", "cost_usd", 3 },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const cJSON *objs[2] = { r, t };
		fprintf(out, "  %-22s", rows[i].label);
		for (int j = 0; j < (t ? 2 : 1); j++) {
			double x = calc_num(objs[j], rows[i].key);
			if (rows[i].kind == 0)
				fmt_percent(x, a, sizeof a);
			else if (rows[i].kind == 1)
				/* %f of a huge time would be cut off by the buffer: a wrong number. */
				snprintf(a, sizeof a, fabs(x) < 1e9 ? "%.6f s" : "%.6g s", x);
			else if (rows[i].kind == 2)
				fmt_grouped(x, 2, a, sizeof a);
			else if (rows[i].kind == 5)
				fmt_gpu_hours(x, a, sizeof a);
			else
				fmt_usd(x, a, sizeof a);
			fprintf(out, " %24s", a);
		}
		fprintf(out, "\n");
	}
	if (t) {
		fmt_usd(calc_num(r, "savings_usd"), a, sizeof a);
		fmt_percent(calc_num(r, "savings_fraction"), b, sizeof b);
		fprintf(out, "\n  %s: %s (%s of the cost), %.6gx the speed\n",
			calc_num(r, "savings_usd") >= 0 ? "savings" : "LOSS", a, b, calc_num(r, "speedup"));
	}
	if (calc_has(r, "investment_usd")) {
		fmt_usd(calc_num(r, "investment_usd"), a, sizeof a);
		fmt_roi(calc_num(r, "roi_net"), b, sizeof b);
		fmt_roi(calc_num(r, "roi_gross"), c, sizeof c);
		fprintf(out, "  investment %s: net ROI %s, gross ROI %s, ", a, b, c);
		if (calc_has(r, "break_even_step")) {
			fmt_grouped(calc_num(r, "break_even_step"), 1, b, sizeof b);
			fmt_grouped(calc_num(r, "steps"), 0, c, sizeof c);
			fprintf(out, "break-even at step %s of %s\n", b, c);
		} else {
			fprintf(out, "never breaks even (the target saves nothing)\n");
		}
	}
	print_parallel(out, r);
	const cJSON *ro = cJSON_GetObjectItemCaseSensitive(r, "rounded");
	if (ro) {
		fprintf(out,
			"\n  Rounded the way a hand calculation does (step time to 0.1 s, hours to whole hours):\n");
		fprintf(out, "    current: %.1f s/step -> %s h -> ", calc_num(ro, "step_time_s"),
			(fmt_grouped(calc_num(ro, "wall_hours"), 0, a, sizeof a), a));
		fmt_usd(calc_num(ro, "cost_usd"), b, sizeof b);
		fmt_usd(calc_num(ro, "cost_drift_usd"), c, sizeof c);
		fprintf(out, "%s (drift %s)\n", b, c);
		fprintf(out, "    target:  %.1f s/step -> %s h -> ", calc_num(ro, "target_step_time_s"),
			(fmt_grouped(calc_num(ro, "target_wall_hours"), 0, a, sizeof a), a));
		fmt_usd(calc_num(ro, "target_cost_usd"), b, sizeof b);
		fmt_usd(calc_num(ro, "target_cost_drift_usd"), c, sizeof c);
		fprintf(out, "%s (drift %s)\n", b, c);
		fmt_usd(calc_num(ro, "savings_usd"), b, sizeof b);
		fmt_usd(calc_num(ro, "savings_drift_usd"), c, sizeof c);
		fprintf(out, "    savings: %s (drift %s)", b, c);
		if (calc_has(ro, "roi_net")) {
			fmt_roi(calc_num(ro, "roi_net"), c, sizeof c);
			fprintf(out, ", net ROI %s", c);
		}
		fprintf(out, "\n");
	}
	cost_print_explain(out, r);
}
