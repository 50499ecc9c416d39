/* A kernel's predicted time as JSON and text (kernel_time.h). */
#include "kernel_time.h"

#include <stdio.h>
#include <string.h>

#include "calc.h"
#include "app.h"
#include "json_fields.h"

cJSON *kernel_time_json(const struct ridge_kernel_time *t)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "class", timing_class_name(t->cls));
	if (t->cls == RIDGE_TIME_ATTENTION)
		cJSON_AddStringToObject(o, "impl", timing_attention_impl_name(t->impl));
	json_number(o, "time_floor_s", t->time_floor_s);
	json_number(o, "predicted_time_s", t->predicted_time_s);
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
	cJSON_AddStringToObject(o, "binds", t->rows_bind ? "rows" : t->compute_binds ? "compute" : "memory");
	return o;
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
	fprintf(out,
		"  predicted   %s = max(compute %s / %.4g, memory %s / %.4g%s) + fixed %s  (hierarchical floor %s, "
		"%.3gx)\n",
		total, compute, calc_num(p, "compute_efficiency"), memory, calc_num(p, "memory_efficiency"), rows,
		fixed, floor_text, calc_num(p, "predicted_time_s") / calc_num(p, "time_floor_s"));
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
	fprintf(out, "    compute eff.   %.4g: %s\n", calc_num(p, "compute_efficiency"),
		calc_str(p, "compute_efficiency_source"));
	fprintf(out, "    memory eff.    %.4g: %s\n", calc_num(p, "memory_efficiency"),
		calc_str(p, "memory_efficiency_source"));
	fprintf(out, "    fixed cost     %s: %s\n", fixed, calc_str(p, "fixed_cost_source"));
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
