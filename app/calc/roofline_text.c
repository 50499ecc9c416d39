/* ridge roofline's human output, read back from its JSON document: the point, its ceilings, the hierarchy and the prediction. */
#include "roofline_calc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "app.h"
#include "json_fields.h"
#include "kernel_time.h"
#include "kernel_view.h"
#include "ncu.h"
#include "report.h"
#include "roofline_svg.h"
#include "roofline_validation.h"
#include "roofline_internal.h"

/* ---- human output, read back from the document ---- */

static void print_point(FILE *out, const cJSON *d)
{
	char a[48], b[48];
	bool int8 = strcmp(calc_str(d, "dtype"), "int8") == 0;
	fmt_si(calc_num(d, "peak_flops"), int8 ? "OP/s" : "FLOP/s", a, sizeof a);
	fmt_si(calc_num(d, "bandwidth"), "B/s", b, sizeof b);
	enum ridge_level level = RIDGE_LEVEL_HBM;
	roofline_level_parse(calc_str(d, "level"), &level);
	bool matrix = strcmp(calc_str(d, "path"), "matrix") == 0;
	double peak = calc_num(d, "peak_flops"), ridge = calc_num(d, "ridge_point"),
	       intensity = calc_num(d, "intensity");
	fprintf(out, "Roofline: %s (%s), %s ceilings\n", calc_str(d, "gpu_name"), calc_str(d, "gpu"),
		calc_str(d, "ceiling_source"));
	fprintf(out, "  peak        %s %s%s rate: %s\n", calc_str(d, "dtype"),
		cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "sparse")) ? "sparse " : "dense ",
		matrix ? "matrix (tensor-core)" : "vector", a);
	fprintf(out, "  bandwidth   %s: %s\n", roofline_level_label(level), b);
	fprintf(out, "  ridge point %.6g FLOP/byte\n", ridge);
	if (calc_has(d, "flops")) {
		fmt_si(calc_num(d, "flops"), "FLOP", a, sizeof a);
		fmt_si(calc_num(d, "bytes"), "B", b, sizeof b);
		fprintf(out, "  work        %s on %s\n", a, b);
	}
	fprintf(out, "  intensity   %.6g FLOP/byte\n", intensity);
	fmt_si(calc_num(d, "attainable_flops"), "FLOP/s", a, sizeof a);
	enum ridge_level binding;
	/* A GEMM's modelled traffic binds on an inner level: its floor (roofline_calc.c). */
	bool inner = calc_has(d, "time_floor_s") && roofline_level_parse(calc_str(d, "binding"), &binding) &&
		     calc_num(d, "time_floor_s") > calc_num(d, "memory_time_s") &&
		     calc_num(d, "time_floor_s") > calc_num(d, "compute_time_s");
	if (inner)
		fprintf(out, "  attainable  %s: bound by %s (%.4g%% of peak; hierarchical roofline below)\n", a,
			roofline_level_label(binding), 100 * calc_num(d, "attainable_flops") / peak);
	else if (strcmp(calc_str(d, "bound"), "memory") == 0)
		fprintf(out, "  attainable  %s: memory-bound, %.4gx below the ridge (%.4g%% of peak)\n", a,
			ridge / intensity, 100 * calc_num(d, "attainable_flops") / peak);
	else
		fprintf(out, "  attainable  %s: compute-bound, %.4gx above the ridge\n", a, intensity / ridge);
	struct calc_text text = { 0 };
	if (inner)
		fprintf(out, "  time floor  %s (%s %s; memory %s, compute %s)\n",
			calc_text_seconds(&text, d, "time_floor_s"), roofline_level_label(binding),
			calc_text_seconds(&text, d, "time_floor_s"), calc_text_seconds(&text, d, "memory_time_s"),
			calc_text_seconds(&text, d, "compute_time_s"));
	else if (calc_has(d, "time_floor_s"))
		fprintf(out, "  time floor  %s (memory %s, compute %s)\n", calc_text_seconds(&text, d, "time_floor_s"),
			calc_text_seconds(&text, d, "memory_time_s"), calc_text_seconds(&text, d, "compute_time_s"));
	if (calc_has(d, "time_s")) {
		fprintf(out, "  measured    %s: %s = %.4g%% of attainable, %.4g%% of peak; %s = %.4g%% of bandwidth\n",
			calc_text_seconds(&text, d, "time_s"), calc_text_si(&text, d, "achieved_flops", "FLOP/s"),
			100 * calc_num(d, "fraction_of_attainable"), 100 * calc_num(d, "fraction_of_peak"),
			calc_text_si(&text, d, "achieved_bandwidth", "B/s"),
			100 * calc_num(d, "fraction_of_bandwidth"));
		if (calc_num(d, "fraction_of_attainable") > 1)
			fprintf(out,
				"  note        faster than the roofline allows: the bytes or FLOPs given are more than "
				"the kernel really moved or did (cache hits?)\n");
	}
}

static void print_hierarchy(FILE *out, const cJSON *d)
{
	char a[48], b[48], t[48];
	fprintf(out, "Hierarchical roofline (the binding resource takes longest):\n");
	fmt_seconds(calc_num(d, "compute_time_s"), t, sizeof t);
	fprintf(out, "  %-14s %12s\n", "compute", t);
	const cJSON *l;
	cJSON_ArrayForEach (l, cJSON_GetObjectItemCaseSensitive(d, "levels")) {
		enum ridge_level level = RIDGE_LEVEL_HBM;
		roofline_level_parse(calc_str(l, "level"), &level);
		const char *label = roofline_level_label(level);
		fmt_si(calc_num(l, "bytes"), "B", a, sizeof a);
		if (!calc_has(l, "bandwidth")) {
			fmt_none(calc_num(l, "intensity"), b, sizeof b, "%.4g FLOP/byte");
			fprintf(out, "  %-14s %12s  %s, %s: not placed, %s\n", label, "-", a, b, calc_str(l, "note"));
			continue;
		}
		fmt_seconds(calc_num(l, "time_s"), t, sizeof t);
		fmt_si(calc_num(l, "bandwidth"), "B/s", b, sizeof b);
		if (calc_has(l, "write_fraction")) {
			/* The calibration's bandwidth at this read/write mix. */
			size_t used = strlen(b);
			snprintf(b + used, sizeof b - used, " (%.0f%% writes)", 100 * calc_num(l, "write_fraction"));
		}
		if (calc_has(l, "note")) /* a derived bandwidth (roofline_smem_bandwidth_derived) */
			snprintf(b + strlen(b), sizeof b - strlen(b), " (derived)");
		fprintf(out, "  %-14s %12s  %s at %s, %.4g FLOP/byte (ridge %.4g): %s-bound\n", label, t, a, b,
			calc_num(l, "intensity"), calc_num(l, "ridge_point"), calc_str(l, "bound"));
	}
	const char *binding = calc_str(d, "binding");
	enum ridge_level bl;
	fmt_seconds(calc_num(d, "hierarchical_time_floor_s"), t, sizeof t);
	fprintf(out, "  binding: %s; time floor %s\n",
		roofline_level_parse(binding, &bl) ? roofline_level_label(bl) : binding, t);
}

void roofline_print(FILE *out, const cJSON *d)
{
	const cJSON *kernel = cJSON_GetObjectItemCaseSensitive(d, "kernel");
	if (!kernel) {
		print_point(out, d);
		if (cJSON_GetObjectItemCaseSensitive(d, "levels"))
			print_hierarchy(out, d);
		return;
	}
	kernel_print_json(out, kernel);
	print_point(out, d);
	char t[48];
	if (strcmp(calc_str(kernel, "traffic"), "compulsory") != 0 &&
	    calc_num(kernel, "compulsory_bytes") != calc_num(kernel, "bytes")) {
		fmt_seconds(calc_num(d, "compulsory_time_floor_s"), t, sizeof t);
		fprintf(out,
			"  if L2 caught every re-read (compulsory bytes): %.4g FLOP/byte, %s-bound, time floor %s\n",
			calc_num(kernel, "compulsory_intensity"), calc_str(d, "compulsory_bound"), t);
	}
	const cJSON *prediction = cJSON_GetObjectItemCaseSensitive(d, "prediction");
	if (prediction)
		kernel_time_print(out, prediction, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "explain")));
	bool inner_placed = false;
	const cJSON *l;
	cJSON_ArrayForEach (l, cJSON_GetObjectItemCaseSensitive(d, "levels"))
		inner_placed = inner_placed || (strcmp(calc_str(l, "level"), "hbm") != 0 && calc_has(l, "bandwidth"));
	if (inner_placed)
		print_hierarchy(out, d);
}
