/* A kernel's predicted time as JSON and text (kernel_time.h). */
#include "kernel_time.h"

#include <stdio.h>
#include <string.h>

#include "calc.h"
#include "app.h"
#include "json_fields.h"

void kernel_time_range_json(cJSON *o, const double range[2])
{
	json_number_pair(o, "predicted_time_range_s", range);
}

void kernel_time_trust_json(cJSON *o, const struct ridge_kernel_time *t)
{
	kernel_time_range_json(o, t->predicted_time_range_s);
	cJSON *p = cJSON_AddObjectToObject(o, "provenance");
	cJSON_AddStringToObject(p, "prediction", ridge_provenance_name(t->provenance));
	cJSON_AddStringToObject(p, "compute_efficiency", ridge_provenance_name(t->compute_efficiency.provenance));
	cJSON_AddStringToObject(p, "memory_efficiency", ridge_provenance_name(t->memory_efficiency.provenance));
	cJSON_AddStringToObject(p, "fixed_cost", ridge_provenance_name(t->fixed_cost.provenance));
	if (t->row_time_s > 0)
		cJSON_AddStringToObject(p, "row_time", ridge_provenance_name(t->row_provenance));
	if (t->cta_stream_s > 0)
		cJSON_AddStringToObject(p, "cta_bandwidth", ridge_provenance_name(t->cta_provenance));
}

void kernel_time_sum_json(cJSON *o, const struct ridge_time_sum *sum, const double range[2])
{
	kernel_time_range_json(o, range);
	cJSON *p = cJSON_AddObjectToObject(o, "provenance");
	/* The weakest a step used, then each class's. */
	cJSON_AddStringToObject(p, "prediction", ridge_provenance_name(timing_sum_weakest(sum)));
	for (int c = 0; c < RIDGE_TIME_CLASS_COUNT; c++)
		if (sum->seen[c])
			cJSON_AddStringToObject(p, timing_class_name((enum ridge_time_class)c),
						ridge_provenance_name(sum->provenance[c]));
	if (sum->power_limit_seen)
		cJSON_AddStringToObject(p, "power_limit", ridge_provenance_name(sum->power_limit));
}

void power_limit_json(cJSON *doc, const struct ridge_gpu *gpu)
{
	cJSON *p = cJSON_AddObjectToObject(doc, "power_limit");
	cJSON_AddBoolToObject(p, "known", gpu->has_sustained_matrix);
	if (!gpu->has_sustained_matrix)
		return;
	json_number(p, "sustained_matrix_fraction", gpu->sustained_matrix_fraction);
	json_number(p, "burst_time_s", gpu->burst_time_s);
	cJSON_AddStringToObject(p, "provenance", ridge_provenance_name(ridge_power_provenance(gpu->power_provenance)));
	cJSON_AddStringToObject(p, "source", gpu->power_source);
	cJSON_AddBoolToObject(p, "recovery_known", gpu->has_power_recovery);
	if (!gpu->has_power_recovery)
		return;
	json_number(p, "recovery_idle", gpu->power_recovery_idle);
	json_number(p, "recovery_busy", gpu->power_recovery_busy);
	cJSON_AddStringToObject(p, "recovery_provenance",
				ridge_provenance_name(ridge_power_provenance(gpu->power_recovery_provenance)));
	cJSON_AddStringToObject(p, "recovery_source", gpu->power_recovery_source);
}

void power_limit_print(FILE *out, const cJSON *doc)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(doc, "power_limit");
	if (!cJSON_IsObject(p))
		return;
	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "known"))) {
		fprintf(out,
			"  power limit: none known for %s (no power.sustained_matrix_fraction in its entry): "
			"compute-bound work priced at the burst rate, however long it runs\n",
			calc_str(doc, "gpu"));
		return;
	}
	char burst[32];
	fmt_seconds(calc_num(p, "burst_time_s"), burst, sizeof burst);
	const char *provenance = calc_str(p, "provenance");
	fprintf(out, "  power limit: compute-bound work past %s runs at %.4g of the burst rate (%s", burst,
		calc_num(p, "sustained_matrix_fraction"), provenance);
	if (strcmp(provenance, "measured") != 0)
		fprintf(out, ": not measured on a %s; 'ridge hw show %s' gives its source", calc_str(doc, "gpu"),
			calc_str(doc, "gpu"));
	fprintf(out, ")\n");
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "recovery_known")))
		fprintf(out,
			"    carried from one iteration to the next: the burst comes back at %.4g s a second the GPU "
			"waits, %.4g s a second of other work (%s)\n",
			calc_num(p, "recovery_idle"), calc_num(p, "recovery_busy"), calc_str(p, "recovery_provenance"));
	else
		fprintf(out, "    every iteration starts rested (how fast the burst comes back is not in the entry)\n");
}

void kernel_time_sum_print(FILE *out, const cJSON *o, const char *indent)
{
	const cJSON *range = cJSON_GetObjectItemCaseSensitive(o, "predicted_time_range_s");
	const cJSON *prov = cJSON_GetObjectItemCaseSensitive(o, "provenance");
	if (!cJSON_IsArray(range) || cJSON_GetArraySize(range) != 2 || !cJSON_IsObject(prov))
		return;
	char lo[48], hi[48];
	fmt_seconds(cJSON_GetArrayItem(range, 0)->valuedouble, lo, sizeof lo);
	fmt_seconds(cJSON_GetArrayItem(range, 1)->valuedouble, hi, sizeof hi);
	const cJSON *host =
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "host_loop"), "range_s");
	const char *eager = cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(o, "launch_time_range_s"))
				    ? "; the eager host cost's, of code no fit saw"
				    : "";
	fprintf(out, "%srange %s - %s (held-out P10-P90%s%s)", indent, lo, hi, eager,
		cJSON_IsArray(host) ? "; the host loop's measured spread" : "");
	/* The classes grouped by provenance: "; measured: gemm, norm; sourced: attention". */
	for (int kind = 0; kind < RIDGE_PROVENANCE_COUNT; kind++) {
		const char *name = ridge_provenance_name((enum ridge_provenance)kind);
		const char *sep = ";";
		const cJSON *item;
		cJSON_ArrayForEach (item, prov) {
			if (strcmp(item->string, "prediction") == 0 || !cJSON_IsString(item) ||
			    strcmp(item->valuestring, name) != 0)
				continue;
			if (sep[0] == ';')
				fprintf(out, "; %s: %s", name, item->string);
			else
				fprintf(out, ", %s", item->string);
			sep = ", ";
		}
	}
	fprintf(out, "\n");
}

cJSON *kernel_time_json(const struct ridge_kernel_time *t)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "class", timing_class_name(t->cls));
	if (t->cls == RIDGE_TIME_ATTENTION)
		cJSON_AddStringToObject(o, "impl", timing_attention_impl_name(t->impl));
	json_number(o, "time_floor_s", t->time_floor_s);
	json_number(o, "predicted_time_s", t->predicted_time_s);
	kernel_time_trust_json(o, t);
	if (t->has_band) {
		cJSON *b = cJSON_AddObjectToObject(o, "band");
		json_number(b, "low", t->band.low);
		json_number(b, "high", t->band.high);
		cJSON_AddNumberToObject(b, "cases", t->band.cases);
	}
	json_number(o, "compute_time_s", t->compute_time_s);
	if (t->quantized) {
		cJSON *q = cJSON_AddObjectToObject(o, "quantization");
		static const struct json_field kernel_time_fields[] = {
			JSON_FIELD_AS(struct ridge_kernel_time, "efficiency", quantization_efficiency),
			JSON_FIELDS(struct ridge_kernel_time, tiles, waves, slots, tile_m, tile_n),
		};
		json_put_fields(q, t, kernel_time_fields, JSON_FIELD_COUNT(kernel_time_fields));
	}
	json_number(o, "quantized_compute_time_s", t->quantized_compute_time_s);
	json_number(o, "memory_time_s", t->memory_time_s);
	if (t->memory_level >= 0)
		cJSON_AddStringToObject(o, "memory_level", roofline_level_name((enum ridge_level)t->memory_level));
	json_number(o, "compute_efficiency", t->compute_efficiency.value);
	cJSON_AddStringToObject(o, "compute_efficiency_source", t->compute_efficiency.source);
	json_number(o, "memory_efficiency", t->memory_efficiency.value);
	cJSON_AddStringToObject(o, "memory_efficiency_source", t->memory_efficiency.source);
	json_number(o, "fixed_cost_s", t->fixed_cost.value);
	cJSON_AddStringToObject(o, "fixed_cost_source", t->fixed_cost.source);
	if (t->row_time_s > 0)
		json_number(o, "row_time_s", t->row_time_s);
	if (t->library_kernel) {
		cJSON_AddStringToObject(o, "library_kernel", t->library_kernel);
		json_number(o, "ctas", t->ctas);
		json_number(o, "resident_ctas", t->resident_ctas);
	}
	if (t->cta_stream_s > 0) {
		json_number(o, "cta_stream_s", t->cta_stream_s);
		cJSON_AddStringToObject(o, "cta_stream_source", t->cta_stream_source ? t->cta_stream_source : "");
	}
	cJSON_AddStringToObject(o, "binds",
				t->ctas_bind       ? "ctas"
				: t->rows_bind     ? "rows"
				: t->compute_binds ? "compute"
						   : "memory");
	return o;
}

void kernel_time_range_print(FILE *out, const cJSON *p)
{
	const cJSON *range = cJSON_GetObjectItemCaseSensitive(p, "predicted_time_range_s");
	const cJSON *prov = cJSON_GetObjectItemCaseSensitive(p, "provenance");
	if (!cJSON_IsArray(range) || cJSON_GetArraySize(range) != 2)
		return;
	char lo[48], hi[48];
	fmt_seconds(cJSON_GetArrayItem(range, 0)->valuedouble, lo, sizeof lo);
	fmt_seconds(cJSON_GetArrayItem(range, 1)->valuedouble, hi, sizeof hi);
	const cJSON *band = cJSON_GetObjectItemCaseSensitive(p, "band");
	char cases[96] = "";
	if (band)
		snprintf(cases, sizeof cases, ", P10-P90 of %.0f held-out errors", calc_num(band, "cases"));
	fprintf(out, "  range       %s - %s  (%s%s; validation/README.md)\n", lo, hi,
		prov ? calc_str(prov, "prediction") : "", cases);
}

void kernel_time_print(FILE *out, const cJSON *p, bool explain)
{
	char total[48], compute[48], memory[48], fixed[48], floor_text[48];
	fmt_seconds(calc_num(p, "predicted_time_s"), total, sizeof total);
	fmt_seconds(calc_num(p, "quantized_compute_time_s"), compute, sizeof compute);
	fmt_seconds(calc_num(p, "memory_time_s"), memory, sizeof memory);
	fmt_seconds(calc_num(p, "fixed_cost_s"), fixed, sizeof fixed);
	fmt_seconds(calc_num(p, "time_floor_s"), floor_text, sizeof floor_text);
	char rows[64] = "";
	if (calc_has(p, "row_time_s")) {
		char r[48];
		fmt_seconds(calc_num(p, "row_time_s"), r, sizeof r);
		snprintf(rows, sizeof rows, ", rows %s", r);
	}
	if (strcmp(calc_str(p, "binds"), "ctas") == 0) {
		/* the stream is the kernel: no efficiency, no fixed cost (timing.c, row_terms) */
		char stream[48], launch[48];
		fmt_seconds(calc_num(p, "cta_stream_s"), stream, sizeof stream);
		fmt_seconds(calc_num(p, "predicted_time_s") - calc_num(p, "cta_stream_s"), launch, sizeof launch);
		fprintf(out,
			"  predicted   %s = CTA stream %s + launch %s: its CTAs cannot fill the HBM (hierarchical floor "
			"%s, %.3gx)\n",
			total, stream, launch, floor_text,
			calc_num(p, "predicted_time_s") / calc_num(p, "time_floor_s"));
	} else {
		fprintf(out,
			"  predicted   %s = max(compute %s / %.4g, memory %s / %.4g%s) + fixed %s  (hierarchical floor "
			"%s, %.3gx)\n",
			total, compute, calc_num(p, "compute_efficiency"), memory, calc_num(p, "memory_efficiency"),
			rows, fixed, floor_text, calc_num(p, "predicted_time_s") / calc_num(p, "time_floor_s"));
	}
	kernel_time_range_print(out, p);
	if (!explain)
		return;
	const char *impl = calc_str(p, "impl");
	fprintf(out, "    class          %s%s%s\n", calc_str(p, "class"), impl[0] ? ", implementation " : "", impl);
	const cJSON *q = cJSON_GetObjectItemCaseSensitive(p, "quantization");
	if (q)
		fprintf(out,
			"    quantization   %.0f tiles of %.0fx%.0f in %.0f waves of %.0f CTAs: %.4g%% of the computed area "
			"is useful (compute time / %.4g)\n",
			calc_num(q, "tiles"), calc_num(q, "tile_m"), calc_num(q, "tile_n"), calc_num(q, "waves"),
			calc_num(q, "slots"), 100 * calc_num(q, "efficiency"), calc_num(q, "efficiency"));
	const cJSON *prov = cJSON_GetObjectItemCaseSensitive(p, "provenance");
	fprintf(out, "    compute eff.   %.4g (%s): %s\n", calc_num(p, "compute_efficiency"),
		calc_str(prov, "compute_efficiency"), calc_str(p, "compute_efficiency_source"));
	fprintf(out, "    memory eff.    %.4g (%s): %s\n", calc_num(p, "memory_efficiency"),
		calc_str(prov, "memory_efficiency"), calc_str(p, "memory_efficiency_source"));
	fprintf(out, "    fixed cost     %s (%s): %s\n", fixed, calc_str(prov, "fixed_cost"),
		calc_str(p, "fixed_cost_source"));
	if (calc_has(p, "library_kernel"))
		fprintf(out, "    kernel         %s (the library's by width): %.0f CTAs, %.0f resident at once\n",
			calc_str(p, "library_kernel"), calc_num(p, "ctas"), calc_num(p, "resident_ctas"));
	if (calc_has(p, "cta_stream_s"))
		fprintf(out, "    CTA stream     (%s): %s\n", calc_str(prov, "cta_bandwidth"),
			calc_str(p, "cta_stream_source"));
	fprintf(out, "    binds          %s\n", calc_str(p, "binds"));
}

int app_parse_attention_impl(const char *flag, const char *text, enum ridge_attention_impl *out, struct app_status *st)
{
	if (timing_attention_impl_parse(text, out))
		return 0;
	app_error_flag(st, flag, "unknown attention implementation '%s' (known: %s)", text,
		       timing_attention_impl_list());
	return -1;
}
