/* The roofline calculator: place work (FLOPs and bytes, an intensity, a
 * named kernel, or every kernel of an Nsight Compute CSV) under a GPU's
 * roofline. One table of inputs for `ridge roofline` and the scenario kind
 * `roofline`; one JSON document per placement that the command, its printer
 * and `ridge eval` share (--ncu, --validation and --svg are command-line
 * only); the report section. */
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

/* What to place: the same whether it came from the command line or a
 * scenario file item. */
struct roofline_request {
	enum ridge_dtype dtype;
	bool no_tensor, sparse;
	bool has_level;
	enum ridge_level level;
	bool has_flops, has_bytes, has_intensity, has_time, has_l2_bytes, has_smem_bytes;
	double flops, bytes, intensity, time, l2_bytes, smem_bytes;
	bool has_kernel;
	struct ridge_kernel_shape shape;
	unsigned fields;              /* shape fields given */
	const char *first_field_flag; /* for "--m applies to --kernel only" */
	bool fused_given, unfused_given, traffic_given;
	enum ridge_attention_impl impl; /* --impl: attention kernels */
	bool impl_given;
	bool explain; /* --explain: every term of the prediction with its source */
};

/* The inputs, once: the command line's flags and a scenario item's keys
 * ('_' for '-'). */
static const struct param roofline_params[] = {
	{ "dtype", PARAM_TEXT, 0, NULL, 0, 0, 0, "DT", "fp64 fp32 tf32 bf16 fp16 fp8 int8 fp4", NULL, "bf16" },
	{ "flops", PARAM_NUMBER, RIDGE_UNIT_FLOP, NULL, 0, INFINITY, PARAM_OPEN_LO, "F", "FLOPs of the work",
	  "greater than 0", NULL },
	{ "bytes", PARAM_NUMBER, RIDGE_UNIT_BYTES, NULL, 0, INFINITY, PARAM_OPEN_LO, "B", "bytes it moves at the level",
	  "greater than 0", NULL },
	{ "intensity", PARAM_NUMBER, RIDGE_UNIT_COUNT, NULL, 0, INFINITY, PARAM_OPEN_LO, "I", "FLOP/byte alone",
	  "greater than 0", NULL },
	{ "time", PARAM_NUMBER, RIDGE_UNIT_SECONDS, NULL, 0, INFINITY, PARAM_OPEN_LO, "T", "a measured time",
	  "greater than 0", NULL },
	{ "level", PARAM_TEXT, 0, NULL, 0, 0, 0, "L", "hbm (default), l2, smem", NULL, NULL },
	{ "no_tensor", PARAM_FLAG, 0, NULL, 0, 0, 0, NULL, "the vector rate", NULL, NULL },
	{ "sparse", PARAM_FLAG, 0, NULL, 0, 0, 0, NULL, "the 2:4 sparse matrix rate", NULL, NULL },
	{ "l2_bytes", PARAM_NUMBER, RIDGE_UNIT_BYTES, NULL, 0, INFINITY, PARAM_OPEN_LO, "B", "bytes at L2",
	  "greater than 0", NULL },
	{ "smem_bytes", PARAM_NUMBER, RIDGE_UNIT_BYTES, NULL, 0, INFINITY, PARAM_OPEN_LO, "B", "bytes at shared memory",
	  "greater than 0", NULL },
	{ "kernel", PARAM_TEXT, 0, NULL, 0, 0, 0, "NAME", "a named kernel (ridge roofline --help lists them)", NULL,
	  NULL },
	{ "m", PARAM_INTEGER, 0, NULL, 1, 1099511627776.0, 0, "M", "rows / GEMM M", NULL, NULL },
	{ "n", PARAM_INTEGER, 0, NULL, 1, 1099511627776.0, 0, "N", "width / GEMM N", NULL, NULL },
	{ "k", PARAM_INTEGER, 0, NULL, 1, 1099511627776.0, 0, "K", "GEMM K / hidden size", NULL, NULL },
	{ "batch", PARAM_INTEGER, 0, NULL, 1, 1099511627776.0, 0, "B", "batch", NULL, NULL },
	{ "tile", PARAM_TEXT, 0, NULL, 0, 0, 0, "T|MxNxK", "CTA tile, or the flash query tile", NULL, NULL },
	{ "seq", PARAM_INTEGER, 0, NULL, 1, 1099511627776.0, 0, "S", "sequence length", NULL, NULL },
	{ "heads", PARAM_INTEGER, 0, NULL, 1, 1099511627776.0, 0, "H", "query heads", NULL, NULL },
	{ "kv_heads", PARAM_INTEGER, 0, NULL, 1, 1099511627776.0, 0, "H", "key/value heads (GQA)", NULL, NULL },
	{ "head_dim", PARAM_INTEGER, 0, NULL, 1, 1099511627776.0, 0, "D", "head dimension", NULL, NULL },
	{ "causal", PARAM_FLAG, 0, NULL, 0, 0, 0, NULL, "causal attention", NULL, NULL },
	{ "fused", PARAM_FLAG, 0, NULL, 0, 0, 0, NULL, "one kernel instead of two", NULL, NULL },
	{ "unfused", PARAM_FLAG, 0, NULL, 0, 0, 0, NULL, "two kernels (the default)", NULL, NULL },
	{ "passes", PARAM_INTEGER, 0, NULL, 1, 3, 0, "P", "softmax reads of the input", NULL, NULL },
	{ "flops_per_element", PARAM_NUMBER, RIDGE_UNIT_COUNT, NULL, 0, INFINITY, PARAM_OPEN_LO, "F",
	  "activation FLOPs per element", "greater than 0", NULL },
	{ "traffic", PARAM_TEXT, 0, NULL, 0, 0, 0, "default|tiled|compulsory", "which byte count is `bytes`", NULL,
	  NULL },
	{ "impl", PARAM_TEXT, 0, NULL, 0, 0, 0, "default|ideal|fa2|fa3|cudnn", "the attention implementation", NULL,
	  NULL },
	{ "explain", PARAM_FLAG, 0, NULL, 0, 0, PARAM_CLI_ONLY, NULL, "every term of the prediction with its source",
	  NULL, NULL },
	{ "svg", PARAM_TEXT, 0, NULL, 0, 0, PARAM_CLI_ONLY, "FILE", "a log-log roofline plot (SVG)", NULL, NULL },
	{ "ncu", PARAM_TEXT, 0, NULL, 0, 0, PARAM_CLI_ONLY, "FILE", "every kernel of an Nsight Compute CSV", NULL,
	  NULL },
	{ "validation", PARAM_TEXT, 0, NULL, 0, 0, PARAM_CLI_ONLY, "FILE", "the cases of a ridge-probe --validate run",
	  NULL, NULL },
	{ "group", PARAM_TEXT, 0, NULL, 0, 0, PARAM_CLI_ONLY, "G", "with --validation: one group", NULL, NULL },
	CALC_GPU_PARAMS,
	CALC_JSON_PARAM,
};

/* Which shape flag sets which field (for the applicability check). */
static const struct {
	const char *name;
	unsigned field;
	const char *flag;
} shape_flags[] = {
	{ "m", RIDGE_FIELD_M, "--m" },
	{ "n", RIDGE_FIELD_N, "--n" },
	{ "k", RIDGE_FIELD_K, "--k" },
	{ "batch", RIDGE_FIELD_BATCH, "--batch" },
	{ "tile", RIDGE_FIELD_TILE, "--tile" },
	{ "seq", RIDGE_FIELD_SEQ, "--seq" },
	{ "heads", RIDGE_FIELD_HEADS, "--heads" },
	{ "kv_heads", RIDGE_FIELD_KV_HEADS, "--kv-heads" },
	{ "head_dim", RIDGE_FIELD_HEAD_DIM, "--head-dim" },
	{ "causal", RIDGE_FIELD_CAUSAL, "--causal" },
	{ "fused", RIDGE_FIELD_FUSED, "--fused" },
	{ "unfused", RIDGE_FIELD_FUSED, "--unfused" },
	{ "passes", RIDGE_FIELD_PASSES, "--passes" },
	{ "flops_per_element", RIDGE_FIELD_FLOPS_PER_ELEMENT, "--flops-per-element" },
};

/* The combinations: exactly one way of giving the work. ncu: the request
 * comes with --ncu FILE. Returns 0, or -1 with err. */
static int request_check(const struct roofline_request *r, bool ncu, char *err, size_t err_len)
{
	int modes = (r->has_flops || r->has_bytes) + r->has_intensity + r->has_kernel + ncu;
	if (modes == 0) {
		snprintf(err, err_len,
			 "give the work: --flops and --bytes, --intensity, --kernel or --ncu "
			 "(see 'ridge roofline --help')");
		return -1;
	}
	if (modes > 1) {
		snprintf(err, err_len, "give only one of --flops/--bytes, --intensity, --kernel and --ncu");
		return -1;
	}
	if (r->has_flops != r->has_bytes) {
		snprintf(err, err_len,
			 r->has_flops ? "--flops needs --bytes (the bytes it moves)"
				      : "--bytes needs --flops (the work done)");
		return -1;
	}
	if (r->has_time && (r->has_intensity || ncu)) {
		snprintf(err, err_len,
			 ncu ? "--time does not apply to --ncu (the CSV carries each kernel's time)"
			     : "--time needs FLOPs: give --flops and --bytes, or --kernel");
		return -1;
	}
	if ((r->has_l2_bytes || r->has_smem_bytes) && !r->has_flops) {
		snprintf(err, err_len, "%s applies to --flops/--bytes only",
			 r->has_l2_bytes ? "--l2-bytes" : "--smem-bytes");
		return -1;
	}
	if (r->has_flops &&
	    ((r->has_l2_bytes && r->level == RIDGE_LEVEL_L2) || (r->has_smem_bytes && r->level == RIDGE_LEVEL_SMEM))) {
		snprintf(err, err_len, "--bytes already counts the %s level (--level %s); drop %s",
			 roofline_level_label(r->level), roofline_level_name(r->level),
			 r->level == RIDGE_LEVEL_L2 ? "--l2-bytes" : "--smem-bytes");
		return -1;
	}
	if (!r->has_kernel && (r->fields || r->traffic_given)) {
		snprintf(err, err_len, "%s applies to --kernel only", r->fields ? r->first_field_flag : "--traffic");
		return -1;
	}
	if (r->impl_given && !(r->has_kernel && timing_kernel_class(r->shape.kernel) == RIDGE_TIME_ATTENTION)) {
		snprintf(err, err_len, "--impl applies to --kernel flash-attention only");
		return -1;
	}
	if (r->explain && !r->has_kernel) {
		snprintf(err, err_len, "--explain applies to --kernel only (the prediction's terms)");
		return -1;
	}
	if (ncu && r->has_level && r->level != RIDGE_LEVEL_HBM) {
		snprintf(err, err_len,
			 "--level: an ncu CSV gives DRAM bytes, placed against HBM; its L2 bytes "
			 "(lts__t_bytes.sum) are placed at L2 by themselves");
		return -1;
	}
	if (r->has_kernel) {
		const char *name = intensity_kernel_name(r->shape.kernel);
		unsigned allowed = intensity_kernel_fields(r->shape.kernel);
		for (size_t i = 0; i < sizeof shape_flags / sizeof shape_flags[0]; i++) {
			if ((r->fields & shape_flags[i].field) && !(allowed & shape_flags[i].field)) {
				snprintf(err, err_len, "%s does not apply to --kernel %s (%s: %s)", shape_flags[i].flag,
					 name, name, intensity_kernel_summary(r->shape.kernel));
				return -1;
			}
		}
		if (r->fused_given && r->unfused_given) {
			snprintf(err, err_len, "give --fused or --unfused, not both");
			return -1;
		}
		if (r->level == RIDGE_LEVEL_SMEM) {
			snprintf(err, err_len,
				 "--level smem: the kernel models count global-memory bytes, not shared-memory "
				 "traffic; give --flops and --smem-bytes instead");
			return -1;
		}
	}
	return 0;
}

/* ---- computing: one JSON document per request ---- */

/* What the plot needs besides the document. */
struct plot_out {
	struct ridge_roofline_ceiling ceiling;
	int count;
	struct roofline_plot_point points[2];
	char labels[2][200];
};

/* The members shown as they are, in the documents' key order. */
static const struct json_field ceiling_rate_fields[] = {
	JSON_FIELDS(struct ridge_roofline_ceiling, peak_flops, bandwidth, ridge_point),
};
static const struct json_field point_roof_fields[] = {
	JSON_FIELDS(struct ridge_roofline_point, intensity, attainable_flops),
};
static const struct json_field point_work_fields[] = {
	JSON_FIELDS(struct ridge_roofline_point, flops, bytes, compute_time_s, memory_time_s, time_floor_s),
};
static const struct json_field point_achieved_fields[] = {
	JSON_FIELDS(struct ridge_roofline_point, achieved_flops, achieved_bandwidth),
};
static const struct json_field point_fraction_fields[] = {
	JSON_FIELDS(struct ridge_roofline_point, fraction_of_attainable, fraction_of_peak, fraction_of_bandwidth),
};
static const struct json_field level_placed_fields[] = {
	JSON_FIELDS(struct ridge_roofline_level, ridge_point, time_s, attainable_flops),
};

static void json_ceiling(cJSON *o, const struct ridge_gpu *gpu, const struct ridge_roofline_ceiling *c)
{
	cJSON_AddStringToObject(o, "gpu", gpu->id);
	cJSON_AddStringToObject(o, "gpu_name", gpu->name);
	cJSON_AddStringToObject(o, "ceiling_source", app_ceiling_source(gpu));
	cJSON_AddStringToObject(o, "dtype", ridge_dtype_name(c->dtype));
	cJSON_AddStringToObject(o, "path", c->matrix ? "matrix" : "vector");
	cJSON_AddBoolToObject(o, "sparse", c->sparse);
	cJSON_AddStringToObject(o, "level", roofline_level_name(c->level));
	json_put_fields(o, c, ceiling_rate_fields, JSON_FIELD_COUNT(ceiling_rate_fields));
}

void calc_json_roofline_point(cJSON *o, const struct ridge_roofline_point *p)
{
	json_put_fields(o, p, point_roof_fields, JSON_FIELD_COUNT(point_roof_fields));
	cJSON_AddStringToObject(o, "bound", roofline_bound_name(p->bound));
	if (p->has_work)
		json_put_fields(o, p, point_work_fields, JSON_FIELD_COUNT(point_work_fields));
	if (p->has_time) {
		json_number(o, "time_s", p->time_s);
		json_put_fields(o, p, point_achieved_fields, JSON_FIELD_COUNT(point_achieved_fields));
		json_put_fields(o, p, point_fraction_fields, JSON_FIELD_COUNT(point_fraction_fields));
	}
}

/* The plot's point for a placement: at its achieved rate when a time was
 * measured, else on its roof. */
static struct roofline_plot_point placed_point(const char *label, const struct ridge_roofline_point *p)
{
	return (struct roofline_plot_point){ .label = label,
					     .intensity = p->intensity,
					     .flops = p->has_time ? p->achieved_flops : p->attainable_flops,
					     .attainable_flops = p->attainable_flops,
					     .measured = p->has_time,
					     .bound = p->bound };
}

static void json_hierarchy(cJSON *o, const struct ridge_roofline_hierarchy *h)
{
	cJSON *levels = cJSON_AddArrayToObject(o, "levels");
	for (int i = 0; i < RIDGE_LEVEL_COUNT; i++) {
		const struct ridge_roofline_level *l = &h->levels[i];
		if (!l->has_bytes)
			continue;
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "level", roofline_level_name((enum ridge_level)i));
		json_number(e, "bytes", l->bytes);
		json_number(e, "intensity", l->intensity);
		if (l->placed) {
			json_number(e, "bandwidth", l->bandwidth);
			if (l->write_fraction >= 0)
				json_number(e, "write_fraction", l->write_fraction);
			json_put_fields(e, l, level_placed_fields, JSON_FIELD_COUNT(level_placed_fields));
			cJSON_AddStringToObject(e, "bound", roofline_bound_name(l->bound));
		} else {
			cJSON_AddNullToObject(e, "bandwidth");
			cJSON_AddStringToObject(e, "note", l->why);
		}
		cJSON_AddItemToArray(levels, e);
	}
	/* compute_time_s is the point's own (same peak, same FLOPs). */
	cJSON_AddStringToObject(o, "binding",
				h->binding < 0 ? "compute" : roofline_level_name((enum ridge_level)h->binding));
	json_number(o, "hierarchical_time_floor_s", h->time_floor_s);
}

static cJSON *compute_work(const struct ridge_gpu *gpu, const struct roofline_request *r, struct plot_out *plot,
			   char *err, size_t err_len)
{
	struct ridge_roofline_ceiling c;
	if (roofline_ceiling(gpu, r->dtype, r->no_tensor ? RIDGE_PEAK_VECTOR : RIDGE_PEAK_DEFAULT, r->sparse, r->level,
			     &c, err, err_len))
		return NULL;
	struct ridge_roofline_point p;
	if (r->has_intensity ? roofline_place_intensity(&c, r->intensity, &p, err, err_len)
			     : roofline_place(&c, r->flops, r->bytes, r->has_time ? r->time : 0, &p, err, err_len))
		return NULL;
	struct ridge_roofline_hierarchy h;
	bool hierarchical = r->has_l2_bytes || r->has_smem_bytes;
	if (hierarchical) {
		double bytes[RIDGE_LEVEL_COUNT] = { -1, -1, -1 };
		bytes[r->level] = r->bytes;
		if (r->has_l2_bytes)
			bytes[RIDGE_LEVEL_L2] = r->l2_bytes;
		if (r->has_smem_bytes)
			bytes[RIDGE_LEVEL_SMEM] = r->smem_bytes;
		if (roofline_hierarchy(gpu, c.peak_flops, r->flops, bytes, -1, &h, err, err_len))
			return NULL;
	}
	if (plot) {
		plot->ceiling = c;
		plot->count = 1;
		snprintf(plot->labels[0], sizeof plot->labels[0], "%s", r->has_time ? "measured" : "work");
		plot->points[0] = placed_point(plot->labels[0], &p);
	}
	cJSON *doc = cJSON_CreateObject();
	json_ceiling(doc, gpu, &c);
	calc_json_roofline_point(doc, &p);
	if (hierarchical)
		json_hierarchy(doc, &h);
	return doc;
}

static cJSON *compute_kernel(const struct ridge_gpu *gpu, const struct roofline_request *r, struct plot_out *plot,
			     char *err, size_t err_len)
{
	struct ridge_kernel_shape s = r->shape;
	s.dtype = r->dtype;
	s.fused = r->fused_given;
	const char *name = intensity_kernel_name(s.kernel);
	char why[400];
	struct ridge_kernel_cost cost;
	struct ridge_roofline_ceiling c;
	struct ridge_kernel_path path;
	struct ridge_roofline_point p, compulsory;
	struct ridge_roofline_hierarchy h;
	/* Each level's bytes (model/intensity.h, intensity_levels): the
	 * hierarchical model ridge-probe --validate checks. At L2 alone the
	 * kernel's traffic is its tiled traffic (what its loads ask for). */
	double level_bytes[RIDGE_LEVEL_COUNT] = { -1, -1, -1 };
	if (intensity_kernel_on(gpu, &s, &cost, why, sizeof why) ||
	    intensity_ceiling(gpu, &s, &cost, r->no_tensor, r->sparse, r->level, &c, &path, why, sizeof why) ||
	    roofline_place(&c, cost.flops, r->level == RIDGE_LEVEL_L2 ? cost.tiled_bytes : cost.bytes,
			   r->has_time ? r->time : 0, &p, why, sizeof why) ||
	    roofline_place(&c, cost.flops, cost.compulsory_bytes, 0, &compulsory, why, sizeof why) ||
	    intensity_levels(&s, &cost, level_bytes, why, sizeof why) ||
	    roofline_hierarchy(gpu, c.peak_flops, cost.flops, level_bytes, cost.write_bytes, &h, why, sizeof why)) {
		snprintf(err, err_len, "--kernel %s: %s", name, why);
		return NULL;
	}
	if (plot) {
		/* Both traffic bounds when they differ: real HBM traffic lies between. */
		bool two = cost.compulsory_bytes != cost.tiled_bytes && r->level == RIDGE_LEVEL_HBM;
		/* The other bound: compulsory beside the tiled or L2-aware bytes, tiled beside compulsory. */
		bool other_tiled = cost.traffic == RIDGE_TRAFFIC_COMPULSORY;
		plot->ceiling = c;
		plot->count = two ? 2 : 1;
		char chosen[48] = "";
		if (two)
			snprintf(chosen, sizeof chosen, " (%s bytes)", intensity_traffic_name(cost.traffic));
		snprintf(plot->labels[0], sizeof plot->labels[0], "%s%s%s", name, chosen,
			 r->has_time ? ", measured" : "");
		plot->points[0] = placed_point(plot->labels[0], &p);
		if (two) {
			/* The other bound is drawn on its roof: a model, not a measurement. */
			struct ridge_roofline_point q;
			roofline_place(&c, cost.flops, other_tiled ? cost.tiled_bytes : cost.compulsory_bytes, 0, &q,
				       why, sizeof why);
			snprintf(plot->labels[1], sizeof plot->labels[1], "%s (%s bytes)", name,
				 other_tiled ? "tiled" : "compulsory");
			plot->points[1] = placed_point(plot->labels[1], &q);
		}
	}
	cJSON *doc = cJSON_CreateObject();
	json_ceiling(doc, gpu, &c);
	calc_json_roofline_point(doc, &p);
	cJSON_AddStringToObject(doc, "compulsory_bound", roofline_bound_name(compulsory.bound));
	json_number(doc, "compulsory_time_floor_s", compulsory.time_floor_s);
	json_hierarchy(doc, &h);
	cJSON_AddItemToObject(doc, "kernel", kernel_json(&s, &cost, &path));
	/* The time model on the same shape and ceiling choice. */
	struct ridge_timing_options topt = { .no_tensor = r->no_tensor, .sparse = r->sparse, .impl = r->impl };
	struct ridge_kernel_time kt;
	if (timing_kernel(gpu, &s, &topt, &kt, why, sizeof why)) {
		cJSON_Delete(doc);
		snprintf(err, err_len, "--kernel %s: %s", name, why);
		return NULL;
	}
	json_number(doc, "predicted_time_s", kt.predicted_time_s);
	cJSON_AddItemToObject(doc, "prediction", kernel_time_json(&kt));
	if (r->explain)
		cJSON_AddBoolToObject(doc, "explain", true);
	return doc;
}

static cJSON *roofline_compute(const struct ridge_gpu *gpu, const struct roofline_request *r, struct plot_out *plot,
			       char *err, size_t err_len)
{
	return r->has_kernel ? compute_kernel(gpu, r, plot, err, err_len) : compute_work(gpu, r, plot, err, err_len);
}

/* ---- human output, read back from the document ---- */

static void print_point(const cJSON *d)
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
	printf("Roofline: %s (%s), %s ceilings\n", calc_str(d, "gpu_name"), calc_str(d, "gpu"),
	       calc_str(d, "ceiling_source"));
	printf("  peak        %s %s%s rate: %s\n", calc_str(d, "dtype"),
	       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "sparse")) ? "sparse " : "dense ",
	       matrix ? "matrix (tensor-core)" : "vector", a);
	printf("  bandwidth   %s: %s\n", roofline_level_label(level), b);
	printf("  ridge point %.6g FLOP/byte\n", ridge);
	if (calc_has(d, "flops")) {
		fmt_si(calc_num(d, "flops"), "FLOP", a, sizeof a);
		fmt_si(calc_num(d, "bytes"), "B", b, sizeof b);
		printf("  work        %s on %s\n", a, b);
	}
	printf("  intensity   %.6g FLOP/byte\n", intensity);
	fmt_si(calc_num(d, "attainable_flops"), "FLOP/s", a, sizeof a);
	if (strcmp(calc_str(d, "bound"), "memory") == 0)
		printf("  attainable  %s: memory-bound, %.4gx below the ridge (%.4g%% of peak)\n", a, ridge / intensity,
		       100 * calc_num(d, "attainable_flops") / peak);
	else
		printf("  attainable  %s: compute-bound, %.4gx above the ridge\n", a, intensity / ridge);
	struct calc_text text = { 0 };
	if (calc_has(d, "time_floor_s"))
		printf("  time floor  %s (memory %s, compute %s)\n", calc_text_seconds(&text, d, "time_floor_s"),
		       calc_text_seconds(&text, d, "memory_time_s"), calc_text_seconds(&text, d, "compute_time_s"));
	if (calc_has(d, "time_s")) {
		printf("  measured    %s: %s = %.4g%% of attainable, %.4g%% of peak; %s = %.4g%% of bandwidth\n",
		       calc_text_seconds(&text, d, "time_s"), calc_text_si(&text, d, "achieved_flops", "FLOP/s"),
		       100 * calc_num(d, "fraction_of_attainable"), 100 * calc_num(d, "fraction_of_peak"),
		       calc_text_si(&text, d, "achieved_bandwidth", "B/s"), 100 * calc_num(d, "fraction_of_bandwidth"));
		if (calc_num(d, "fraction_of_attainable") > 1)
			printf("  note        faster than the roofline allows: the bytes or FLOPs given are more than "
			       "the kernel really moved or did (cache hits?)\n");
	}
}

static void print_hierarchy(const cJSON *d)
{
	char a[48], b[48], t[48];
	printf("Hierarchical roofline (the binding resource takes longest):\n");
	fmt_seconds(calc_num(d, "compute_time_s"), t, sizeof t);
	printf("  %-14s %12s\n", "compute", t);
	const cJSON *l;
	cJSON_ArrayForEach (l, cJSON_GetObjectItemCaseSensitive(d, "levels")) {
		enum ridge_level level = RIDGE_LEVEL_HBM;
		roofline_level_parse(calc_str(l, "level"), &level);
		const char *label = roofline_level_label(level);
		fmt_si(calc_num(l, "bytes"), "B", a, sizeof a);
		if (!calc_has(l, "bandwidth")) {
			fmt_none(calc_num(l, "intensity"), b, sizeof b, "%.4g FLOP/byte");
			printf("  %-14s %12s  %s, %s: not placed, %s\n", label, "-", a, b, calc_str(l, "note"));
			continue;
		}
		fmt_seconds(calc_num(l, "time_s"), t, sizeof t);
		fmt_si(calc_num(l, "bandwidth"), "B/s", b, sizeof b);
		if (calc_has(l, "write_fraction")) {
			/* The calibration's bandwidth at this read/write mix. */
			size_t used = strlen(b);
			snprintf(b + used, sizeof b - used, " (%.0f%% writes)", 100 * calc_num(l, "write_fraction"));
		}
		printf("  %-14s %12s  %s at %s, %.4g FLOP/byte (ridge %.4g): %s-bound\n", label, t, a, b,
		       calc_num(l, "intensity"), calc_num(l, "ridge_point"), calc_str(l, "bound"));
	}
	const char *binding = calc_str(d, "binding");
	enum ridge_level bl;
	fmt_seconds(calc_num(d, "hierarchical_time_floor_s"), t, sizeof t);
	printf("  binding: %s; time floor %s\n",
	       roofline_level_parse(binding, &bl) ? roofline_level_label(bl) : binding, t);
}

static void roofline_print(const cJSON *d)
{
	const cJSON *kernel = cJSON_GetObjectItemCaseSensitive(d, "kernel");
	if (!kernel) {
		print_point(d);
		if (cJSON_GetObjectItemCaseSensitive(d, "levels"))
			print_hierarchy(d);
		return;
	}
	kernel_print_json(kernel);
	print_point(d);
	char t[48];
	if (strcmp(calc_str(kernel, "traffic"), "compulsory") != 0 &&
	    calc_num(kernel, "compulsory_bytes") != calc_num(kernel, "bytes")) {
		fmt_seconds(calc_num(d, "compulsory_time_floor_s"), t, sizeof t);
		printf("  if L2 caught every re-read (compulsory bytes): %.4g FLOP/byte, %s-bound, time floor %s\n",
		       calc_num(kernel, "compulsory_intensity"), calc_str(d, "compulsory_bound"), t);
	}
	const cJSON *prediction = cJSON_GetObjectItemCaseSensitive(d, "prediction");
	if (prediction)
		kernel_time_print(prediction, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "explain")));
	bool inner_placed = false;
	const cJSON *l;
	cJSON_ArrayForEach (l, cJSON_GetObjectItemCaseSensitive(d, "levels"))
		inner_placed = inner_placed || (strcmp(calc_str(l, "level"), "hbm") != 0 && calc_has(l, "bandwidth"));
	if (inner_placed)
		print_hierarchy(d);
}

/* ---- the command ---- */

static int write_plot(const char *svg, bool sparse, const struct ridge_gpu *gpu, const struct ridge_roofline_ceiling *c,
		      const struct roofline_plot_point *points, int count, struct app_status *st)
{
	if (!svg)
		return 0;
	struct roofline_plot plot = { gpu, NULL, *c, sparse, count, points };
	return roofline_svg_write(svg, &plot, st);
}

/* One placement: the calculator's run (calc_run refuses a result that is
 * not finite, naming the input, as for a scenario item), then the plot. */
static int run_model(const struct param_values *v, const struct roofline_request *r, const struct ridge_gpu *gpu,
		     cJSON **json, struct app_status *st)
{
	struct calc_input in = { .values = v, .gpu = gpu };
	cJSON *doc = calc_run(&calc_roofline, &in);
	if (!doc) {
		app_error(st, "%s", in.err);
		return EXIT_USAGE;
	}
	const char *svg = params_text(v, "svg");
	if (svg) {
		char err[600];
		struct plot_out plot;
		cJSON_Delete(roofline_compute(gpu, r, &plot, err, sizeof err));
		if (write_plot(svg, r->sparse, gpu, &plot.ceiling, plot.points, plot.count, st)) {
			cJSON_Delete(doc);
			return EXIT_ENV;
		}
		cJSON_AddStringToObject(doc, "svg", svg);
	}
	if (params_flag(v, "json")) {
		*json = doc;
		return EXIT_OK;
	}
	roofline_print(doc);
	cJSON_Delete(doc);
	if (svg)
		printf("wrote %s\n", svg);
	return EXIT_OK;
}

struct ncu_placed {
	const struct ncu_kernel *k;
	double flops, bytes;
	bool has_flops;
	struct ridge_roofline_ceiling c;
	struct ridge_roofline_point p;
	double l2_time_s;
	bool l2_placed;
	bool tensor_flops_missing;
};

/* Every kernel of an Nsight Compute CSV (or report). */
static int run_ncu(const struct param_values *v, const struct roofline_request *req, const struct ridge_gpu *gpu,
		   cJSON **json, struct app_status *st)
{
	const char *path = params_text(v, "ncu");
	const char *svg = params_text(v, "svg");
	char err[600];
	size_t len;
	char *text = NULL;
	if (ncu_is_report(path)) {
		int imported = ncu_import(path, &text, &len, err, sizeof err);
		if (imported != 0) {
			app_error(st, "--ncu: %s", err);
			return imported;
		}
	} else {
		text = app_read_file(path, (size_t)256 << 20, "Nsight Compute CSV", &len, st);
	}
	if (!text)
		return EXIT_USAGE;
	struct ncu_report report;
	int rc = ncu_parse(path, text, len, &report, err, sizeof err);
	free(text);
	if (rc) {
		app_error(st, "%s", err);
		return EXIT_USAGE;
	}
	if (!report.any_flop_metric) {
		app_error(st,
			  "%s: no FLOP counts (sm__sass_thread_inst_executed_op_*_pred_on.sum or "
			  "sm__ops_path_tensor_src_*.sum); collect them to place kernels on a roofline",
			  path);
		ncu_free(&report);
		return EXIT_USAGE;
	}
	struct ncu_placed *placed = calloc((size_t)report.count, sizeof *placed);
	struct roofline_plot_point *points = calloc((size_t)report.count, sizeof *points);
	char(*labels)[64] = calloc((size_t)report.count, sizeof *labels);
	if (!placed || !points || !labels) {
		app_error_env(st, "out of memory");
		rc = EXIT_ENV;
		goto done;
	}
	double l2_bandwidth = 0;
	bool has_l2 = roofline_bandwidth(gpu, RIDGE_LEVEL_L2, &l2_bandwidth, NULL);
	struct ridge_roofline_ceiling focus = { 0 };
	double focus_flops = 0;
	bool have_focus = false;
	for (int i = 0; i < report.count; i++) {
		const struct ncu_kernel *k = &report.kernels[i];
		struct ncu_placed *pl = &placed[i];
		pl->k = k;
		if (!k->has_time) {
			app_error(st, "%s:%d: kernel '%s' (ID %s) has no time (gpu__time_duration.sum)", path, k->line,
				  k->name, k->id);
			rc = EXIT_USAGE;
			goto done;
		}
		if (!ncu_dram_bytes(k, &pl->bytes)) {
			app_error(st,
				  "%s:%d: kernel '%s' (ID %s) has no DRAM bytes (dram__bytes_read.sum and "
				  "dram__bytes_write.sum, or dram__bytes.sum)",
				  path, k->line, k->name, k->id);
			rc = EXIT_USAGE;
			goto done;
		}
		if (!(k->time_s > 0)) {
			app_error(st, "%s:%d: kernel '%s' (ID %s) has a time of 0", path, k->line, k->name, k->id);
			rc = EXIT_USAGE;
			goto done;
		}
		pl->flops = ncu_flops(k);
		enum ridge_dtype dtype = RIDGE_FP32;
		bool matrix = false;
		bool dominant = ncu_dominant(k, &dtype, &matrix);
		pl->tensor_flops_missing = k->tensor_instructions > 0 && !(matrix && dominant);
		for (int d = 0; d < RIDGE_DTYPE_COUNT && pl->tensor_flops_missing; d++)
			if (ncu_tensor_flops(k, (enum ridge_dtype)d) > 0)
				pl->tensor_flops_missing = false;
		enum ridge_peak_kind kind = matrix ? RIDGE_PEAK_MATRIX : RIDGE_PEAK_VECTOR;
		if (params_has(v, "dtype")) {
			dtype = req->dtype;
			kind = req->no_tensor ? RIDGE_PEAK_VECTOR : RIDGE_PEAK_DEFAULT;
		}
		if (roofline_ceiling(gpu, dtype, kind, req->sparse, RIDGE_LEVEL_HBM, &pl->c, err, sizeof err)) {
			app_error(st, "%s:%d: kernel '%s': %s", path, k->line, k->name, err);
			rc = EXIT_USAGE;
			goto done;
		}
		pl->has_flops = pl->flops > 0;
		if (pl->has_flops && pl->bytes > 0) {
			/* It refuses a time so short the rates overflow. */
			if (roofline_place(&pl->c, pl->flops, pl->bytes, k->time_s, &pl->p, err, sizeof err)) {
				app_error(st, "%s:%d: kernel '%s' (ID %s): %s", path, k->line, k->name, k->id, err);
				rc = EXIT_USAGE;
				goto done;
			}
		} else {
			/* No FLOPs (a copy) or no DRAM bytes (all L2 hits): no finite intensity. */
			pl->p = (struct ridge_roofline_point){ 0 };
			pl->p.intensity = pl->bytes > 0 ? 0 : INFINITY;
			pl->p.bound = pl->bytes > 0 ? RIDGE_BOUND_MEMORY : RIDGE_BOUND_COMPUTE;
			pl->p.attainable_flops = pl->bytes > 0 ? 0 : pl->c.peak_flops;
			pl->p.has_time = true;
			pl->p.time_s = k->time_s;
			pl->p.achieved_flops = pl->flops / k->time_s;
			pl->p.achieved_bandwidth = pl->bytes / k->time_s;
			pl->p.fraction_of_bandwidth = pl->p.achieved_bandwidth / pl->c.bandwidth;
			pl->p.fraction_of_peak = pl->p.achieved_flops / pl->c.peak_flops;
			pl->p.fraction_of_attainable = pl->bytes > 0 ? NAN : pl->p.fraction_of_peak;
			if (!isfinite(pl->p.achieved_flops) || !isfinite(pl->p.achieved_bandwidth)) {
				app_error(
					st,
					"%s:%d: kernel '%s' (ID %s): overflow: a time of %g s gives rates too large to "
					"represent",
					path, k->line, k->name, k->id, k->time_s);
				rc = EXIT_USAGE;
				goto done;
			}
		}
		if (k->has_l2 && has_l2 && k->l2_bytes > 0) {
			pl->l2_placed = true;
			pl->l2_time_s = k->l2_bytes / l2_bandwidth;
		}
		if (!have_focus || pl->flops > focus_flops) {
			/* The plot's bold ceiling is that of the kernel doing the most work. */
			focus = pl->c;
			focus_flops = pl->flops;
			have_focus = true;
		}
		/* Short labels: "void f<T>(args)" plots as "f". */
		const char *short_name = k->name;
		if (strncmp(short_name, "void ", 5) == 0)
			short_name += 5;
		size_t cut = strcspn(short_name, "(<");
		if (cut > 32)
			cut = 32;
		snprintf(labels[i], sizeof labels[i], "%s %.*s", k->id, (int)cut, short_name);
		/* Every kernel was measured; one without FLOPs is drawn on the bandwidth axis. */
		points[i] = placed_point(labels[i], &pl->p);
		points[i].achieved_bandwidth = pl->p.achieved_bandwidth;
	}
	if (write_plot(svg, req->sparse, gpu, &focus, points, report.count, st)) {
		rc = EXIT_ENV;
		goto done;
	}
	if (params_flag(v, "json")) {
		cJSON *doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "gpu", gpu->id);
		cJSON_AddStringToObject(doc, "ceiling_source", app_ceiling_source(gpu));
		cJSON_AddStringToObject(doc, "file", path);
		cJSON_AddStringToObject(doc, "layout", report.raw ? "raw" : "details");
		json_number(doc, "bandwidth", gpu->memory_bandwidth);
		cJSON *arr = cJSON_AddArrayToObject(doc, "kernels");
		for (int i = 0; i < report.count; i++) {
			const struct ncu_placed *pl = &placed[i];
			cJSON *e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "id", pl->k->id);
			cJSON_AddStringToObject(e, "name", pl->k->name);
			cJSON_AddNumberToObject(e, "line", pl->k->line);
			cJSON_AddStringToObject(e, "dtype", ridge_dtype_name(pl->c.dtype));
			cJSON_AddStringToObject(e, "path", pl->c.matrix ? "matrix" : "vector");
			json_number(e, "peak_flops", pl->c.peak_flops);
			json_number(e, "ridge_point", pl->c.ridge_point);
			json_number(e, "flops", pl->flops);
			cJSON *by = cJSON_AddObjectToObject(e, "flops_by_precision");
			static const char *const vec[NCU_PRECISIONS] = { "fp64_vector", "fp32_vector", "fp16_vector" };
			for (int p = 0; p < NCU_PRECISIONS; p++)
				if (ncu_vector_flops(pl->k, p) > 0)
					json_number(by, vec[p], ncu_vector_flops(pl->k, p));
			for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
				char key[32];
				snprintf(key, sizeof key, "%s_tensor", ridge_dtype_name((enum ridge_dtype)d));
				if (ncu_tensor_flops(pl->k, (enum ridge_dtype)d) > 0)
					json_number(by, key, ncu_tensor_flops(pl->k, (enum ridge_dtype)d));
			}
			json_number(e, "bytes", pl->bytes);
			json_number(e, "time_s", pl->k->time_s);
			json_number(e, "intensity", pl->p.intensity);
			json_put_fields(e, &pl->p, point_achieved_fields, JSON_FIELD_COUNT(point_achieved_fields));
			json_number(e, "attainable_flops", pl->p.attainable_flops);
			cJSON_AddStringToObject(e, "bound", roofline_bound_name(pl->p.bound));
			json_put_fields(e, &pl->p, point_fraction_fields, JSON_FIELD_COUNT(point_fraction_fields));
			if (pl->k->has_l2) {
				json_number(e, "l2_bytes", pl->k->l2_bytes);
				if (pl->l2_placed)
					json_number(e, "l2_time_s", pl->l2_time_s);
			}
			if (pl->tensor_flops_missing)
				cJSON_AddStringToObject(
					e, "note",
					"tensor instructions ran but the CSV has no tensor FLOP "
					"counts (FLOPs undercounted); capture them with: " NCU_CAPTURE_COMMAND);
			cJSON_AddItemToArray(arr, e);
		}
		if (svg)
			cJSON_AddStringToObject(doc, "svg", svg);
		*json = doc;
		rc = EXIT_OK;
		goto done;
	}
	char bw[48];
	fmt_si(gpu->memory_bandwidth, "B/s", bw, sizeof bw);
	printf("Kernels of %s (%s layout) on %s (%s), %s ceilings, HBM %s\n", path, report.raw ? "raw" : "details",
	       gpu->name, gpu->id, app_ceiling_source(gpu), bw);
	printf("%-4s %-30s %-12s %10s %10s %10s %9s %14s %14s %-7s %8s %8s\n", "ID", "kernel", "placed on", "FLOPs",
	       "bytes", "time", "FLOP/B", "achieved", "attainable", "bound", "of att.", "of BW");
	int notes = 0;
	for (int i = 0; i < report.count; i++) {
		const struct ncu_placed *pl = &placed[i];
		char f[32], b[32], t[32], ach[32], att[32], kind[32], frac[16], ai[16];
		fmt_si(pl->flops, "", f, sizeof f);
		fmt_si(pl->bytes, "B", b, sizeof b);
		fmt_seconds(pl->k->time_s, t, sizeof t);
		fmt_si(pl->p.achieved_flops, "FLOP/s", ach, sizeof ach);
		fmt_si(pl->p.attainable_flops, "FLOP/s", att, sizeof att);
		snprintf(kind, sizeof kind, "%s %s", ridge_dtype_name(pl->c.dtype), pl->c.matrix ? "matrix" : "vector");
		if (isfinite(pl->p.fraction_of_attainable))
			snprintf(frac, sizeof frac, "%.1f%%", 100 * pl->p.fraction_of_attainable);
		else
			snprintf(frac, sizeof frac, "-");
		if (isfinite(pl->p.intensity))
			snprintf(ai, sizeof ai, "%.4g", pl->p.intensity);
		else
			snprintf(ai, sizeof ai, "no DRAM"); /* FLOPs over 0 bytes: human output shows no "inf" */
		printf("%-4s %-30.30s %-12s %10s %10s %10s %9s %14s %14s %-7s %8s %7.1f%%%s\n", pl->k->id, pl->k->name,
		       kind, f, b, t, ai, ach, att, roofline_bound_name(pl->p.bound), frac,
		       100 * pl->p.fraction_of_bandwidth, pl->tensor_flops_missing ? " *" : "");
		notes += pl->tensor_flops_missing;
	}
	if (notes)
		printf("* tensor instructions ran but the CSV has no tensor FLOP counts (FLOPs undercounted); capture them "
		       "with:\n  " NCU_CAPTURE_COMMAND "\n");
	if (!has_l2) {
		bool any_l2 = false;
		for (int i = 0; i < report.count; i++)
			any_l2 = any_l2 || report.kernels[i].has_l2;
		if (any_l2)
			printf("L2 bytes (lts__t_bytes.sum) are in the CSV but %s has no L2 bandwidth: not placed at L2\n",
			       gpu->id);
	}
	if (svg)
		printf("wrote %s\n", svg);
	rc = EXIT_OK;
done:
	free(placed);
	free(points);
	free(labels);
	ncu_free(&report);
	return rc;
}

/* An optional number: true and *out set when the key was given, *out left
 * alone when not. */
static bool take_number(const struct param_values *v, const char *name, double *out)
{
	if (!params_has(v, name))
		return false;
	*out = params_num(v, name);
	return true;
}

/* The request from parsed values, the command line's or a scenario item's.
 * Returns 0, or -1 with err. */
static int request_from_values(const struct param_values *v, struct roofline_request *out, char *err, size_t err_len)
{
	struct roofline_request r = { .dtype = RIDGE_BF16, .level = RIDGE_LEVEL_HBM };
	const char *text;
	if ((text = params_text(v, "dtype")) && !ridge_dtype_parse(text, &r.dtype)) {
		snprintf(err, err_len, "%s: unknown dtype '%s' (known: %s)", params_where(v, "dtype"), text,
			 ridge_dtype_list());
		return -1;
	}
	if ((text = params_text(v, "level")) && !(r.has_level = roofline_level_parse(text, &r.level))) {
		snprintf(err, err_len, "%s: unknown memory level '%s' (known: %s)", params_where(v, "level"), text,
			 roofline_level_list());
		return -1;
	}
	if ((text = params_text(v, "kernel")) && !(r.has_kernel = intensity_kernel_parse(text, &r.shape.kernel))) {
		snprintf(err, err_len, "%s: unknown kernel '%s' (known: %s)", params_where(v, "kernel"), text,
			 intensity_kernel_list());
		return -1;
	}
	if ((text = params_text(v, "traffic")) &&
	    !(r.traffic_given = intensity_traffic_parse(text, &r.shape.traffic))) {
		snprintf(err, err_len, "%s: unknown traffic model '%s' (known: default tiled compulsory)",
			 params_where(v, "traffic"), text);
		return -1;
	}
	if ((text = params_text(v, "impl")) && !(r.impl_given = timing_attention_impl_parse(text, &r.impl))) {
		snprintf(err, err_len, "%s: unknown attention implementation '%s' (known: %s)", params_where(v, "impl"),
			 text, timing_attention_impl_list());
		return -1;
	}
	if ((text = params_text(v, "tile"))) {
		double tm, tn, tk;
		if (kernel_tile_parse(text, &tm, &tn, &tk)) {
			snprintf(
				err, err_len,
				"%s: '%s' is not a tile: give T (square, T x T x T) or MxNxK, whole numbers from 1 to 65536",
				params_where(v, "tile"), text);
			return -1;
		}
		r.shape.tile_m = tm;
		r.shape.tile_n = tn;
		r.shape.tile_k = tk;
	}
	r.no_tensor = params_flag(v, "no_tensor");
	r.sparse = params_flag(v, "sparse");
	r.has_flops = take_number(v, "flops", &r.flops);
	r.has_bytes = take_number(v, "bytes", &r.bytes);
	r.has_intensity = take_number(v, "intensity", &r.intensity);
	r.has_time = take_number(v, "time", &r.time);
	r.has_l2_bytes = take_number(v, "l2_bytes", &r.l2_bytes);
	r.has_smem_bytes = take_number(v, "smem_bytes", &r.smem_bytes);
	for (size_t i = 0; i < sizeof shape_flags / sizeof shape_flags[0]; i++) {
		int p = params_index(v->spec, v->count, shape_flags[i].name);
		if (!params_has(v, shape_flags[i].name) ||
		    (v->spec[p].kind == PARAM_FLAG && !params_flag(v, shape_flags[i].name)))
			continue; /* "causal: false" is not giving it */
		r.fields |= shape_flags[i].field;
		if (!r.first_field_flag)
			r.first_field_flag = shape_flags[i].flag;
	}
	struct ridge_kernel_shape *s = &r.shape;
	s->m = params_has(v, "m") ? params_num(v, "m") : 0;
	s->n = params_has(v, "n") ? params_num(v, "n") : 0;
	s->k = params_has(v, "k") ? params_num(v, "k") : 0;
	s->batch = params_has(v, "batch") ? params_num(v, "batch") : 0;
	s->seq = params_has(v, "seq") ? params_num(v, "seq") : 0;
	s->heads = params_has(v, "heads") ? params_num(v, "heads") : 0;
	s->kv_heads = params_has(v, "kv_heads") ? params_num(v, "kv_heads") : 0;
	s->head_dim = params_has(v, "head_dim") ? params_num(v, "head_dim") : 0;
	s->causal = params_flag(v, "causal");
	r.fused_given = params_flag(v, "fused");
	r.unfused_given = params_flag(v, "unfused");
	s->passes = params_has(v, "passes") ? (int)params_num(v, "passes") : 0;
	s->flops_per_element = params_has(v, "flops_per_element") ? params_num(v, "flops_per_element") : 0;
	r.explain = params_flag(v, "explain");
	*out = r;
	return 0;
}

/* The scenario kind "roofline" (ridge eval), and the command's one placement. */
static cJSON *roofline_item_run(struct calc_input *in)
{
	struct roofline_request r;
	if (request_from_values(in->values, &r, in->err, sizeof in->err) ||
	    request_check(&r, false, in->err, sizeof in->err))
		return NULL;
	return roofline_compute(in->gpu, &r, NULL, in->err, sizeof in->err);
}

int roofline_check_request(const struct param_values *v, struct app_status *st)
{
	char err[600];
	struct roofline_request r;
	bool validation = params_has(v, "validation"), ncu = params_has(v, "ncu");
	if (request_from_values(v, &r, err, sizeof err)) {
		app_error(st, "%s", err);
		return -1;
	}
	if (params_has(v, "group") && !validation) {
		app_error(st, "--group applies to --validation only");
		return -1;
	}
	if (validation) {
		if (ncu || r.has_flops || r.has_bytes || r.has_intensity || r.has_kernel || r.has_time || r.has_level ||
		    r.has_l2_bytes || r.has_smem_bytes || r.fields || r.traffic_given || params_has(v, "dtype") ||
		    r.no_tensor || r.sparse) {
			app_error(
				st,
				"--validation places the cases of a validation file (their work, dtype and times come "
				"from it): give no other work, --dtype, --time or --level");
			return -1;
		}
	} else if (request_check(&r, ncu, err, sizeof err)) {
		app_error(st, "%s", err);
		return -1;
	}
	return 0;
}

int roofline_command(const struct param_values *v, const struct ridge_gpu *gpu, cJSON **json, struct app_status *st)
{
	*json = NULL;
	char err[600];
	struct roofline_request r;
	if (request_from_values(v, &r, err, sizeof err)) {
		app_error(st, "%s", err);
		return EXIT_USAGE;
	}
	if (params_has(v, "validation"))
		return roofline_validation_run(params_text(v, "validation"), params_text(v, "group"), gpu,
					       params_text(v, "svg"), params_flag(v, "json") ? json : NULL, st);
	if (params_has(v, "ncu"))
		return run_ncu(v, &r, gpu, json, st);
	return run_model(v, &r, gpu, json, st);
}

const struct calc calc_roofline = {
	.name = "roofline",
	.synopsis = "kind: roofline  (dtype, flops + bytes | intensity | kernel + shape keys, time, level, ...)",
	.description = "A roofline placement: the keys are ridge roofline's flags with '_' for '-'\n"
		       "(no_tensor, l2_bytes, head_dim, ...); --ncu and --svg are command-line only.\n",
	CALC_IMPL(roofline_params, roofline_item_run, roofline_print),
};

/* ---- ridge report ---- */

/* One kernel row; with kernels, an element of that array: the ceiling and
 * the placed point as `ridge roofline --json` has them. */
static void report_kernel(const struct ridge_gpu *gpu, const char *label, struct ridge_kernel_shape s, cJSON *kernels)
{
	char err[400], f[32], b[32], t[32];
	struct ridge_kernel_cost cost;
	struct ridge_kernel_path path;
	struct ridge_roofline_ceiling c;
	struct ridge_roofline_point p;
	int rc = intensity_kernel_on(gpu, &s, &cost, err, sizeof err) ||
		 intensity_ceiling(gpu, &s, &cost, false, false, RIDGE_LEVEL_HBM, &c, &path, err, sizeof err) ||
		 roofline_place(&c, cost.flops, cost.bytes, 0, &p, err, sizeof err);
	if (kernels) {
		cJSON *k = cJSON_CreateObject();
		cJSON_AddItemToArray(kernels, k);
		cJSON_AddStringToObject(k, "label", label + strspn(label, " "));
		cJSON_AddStringToObject(k, "kernel", intensity_kernel_name(s.kernel));
		cJSON_AddStringToObject(k, "traffic", intensity_traffic_name(s.traffic));
		if (rc) {
			cJSON_AddStringToObject(k, "error", err);
			return;
		}
		json_ceiling(k, gpu, &c);
		calc_json_roofline_point(k, &p);
		return;
	}
	if (rc) {
		printf("  %-44s n/a: %s\n", label, err);
		return;
	}
	fmt_si(cost.flops, "", f, sizeof f);
	fmt_si(cost.bytes, "B", b, sizeof b);
	fmt_seconds(p.time_floor_s, t, sizeof t);
	printf("  %-44s %9s %10s %9.4g  %-7s %-12s %10s\n", label, f, b, p.intensity, roofline_bound_name(p.bound),
	       c.matrix ? "matrix" : "vector", t);
}

/* "ridge_points" and "levels": the JSON of the report's first table. */
static void report_ridge_points_json(const struct ridge_gpu *gpu, cJSON *o)
{
	json_number(o, "bandwidth", gpu->memory_bandwidth);
	cJSON *points = cJSON_AddObjectToObject(o, "ridge_points");
	for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
		const struct ridge_peak *pk = &gpu->peak[d];
		if (!pk->has_matrix && !pk->has_vector)
			continue;
		cJSON *one = cJSON_AddObjectToObject(points, ridge_dtype_name((enum ridge_dtype)d));
		if (pk->has_matrix)
			json_ratio(one, "matrix", pk->matrix, gpu->memory_bandwidth);
		if (pk->has_vector)
			json_ratio(one, "vector", pk->vector, gpu->memory_bandwidth);
		if (pk->has_matrix_sparse)
			json_ratio(one, "matrix_sparse", pk->matrix_sparse, gpu->memory_bandwidth);
	}
	cJSON *levels = cJSON_AddArrayToObject(o, "levels");
	for (int l = RIDGE_LEVEL_L2; l < RIDGE_LEVEL_COUNT; l++) {
		double level_bw;
		const char *why = NULL;
		cJSON *one = cJSON_CreateObject();
		cJSON_AddItemToArray(levels, one);
		cJSON_AddStringToObject(one, "level", roofline_level_name((enum ridge_level)l));
		if (roofline_bandwidth(gpu, (enum ridge_level)l, &level_bw, &why)) {
			json_number(one, "bandwidth", level_bw);
		} else {
			cJSON_AddNullToObject(one, "bandwidth");
			cJSON_AddStringToObject(one, "why", why);
		}
	}
}

void report_roofline(const struct ridge_gpu *gpu, cJSON *json)
{
	char bw[48];
	cJSON *kernels = NULL;
	if (json) {
		cJSON *r = cJSON_AddObjectToObject(json, "roofline");
		report_ridge_points_json(gpu, r);
		kernels = cJSON_AddArrayToObject(r, "kernels");
	}
	fmt_si(gpu->memory_bandwidth, "B/s", bw, sizeof bw);
	if (!json) {
		printf("== Roofline (%s): ridge points and the chapter's kernels ==\n", gpu->id);
		printf("ridge point = peak / bandwidth, FLOP/byte against HBM (%s), dense rates\n", bw);
		printf("  %-6s %14s %14s %14s\n", "dtype", "matrix", "vector", "sparse matrix");
	}
	for (int d = 0; d < RIDGE_DTYPE_COUNT && !json; d++) {
		const struct ridge_peak *pk = &gpu->peak[d];
		if (!pk->has_matrix && !pk->has_vector)
			continue;
		char m[32] = "-", v[32] = "-", sp[32] = "-";
		if (pk->has_matrix)
			snprintf(m, sizeof m, "%.6g", pk->matrix / gpu->memory_bandwidth);
		if (pk->has_vector)
			snprintf(v, sizeof v, "%.6g", pk->vector / gpu->memory_bandwidth);
		if (pk->has_matrix_sparse)
			snprintf(sp, sizeof sp, "%.6g", pk->matrix_sparse / gpu->memory_bandwidth);
		printf("  %-6s %14s %14s %14s\n", ridge_dtype_name((enum ridge_dtype)d), m, v, sp);
	}
	for (int l = RIDGE_LEVEL_L2; l < RIDGE_LEVEL_COUNT && !json; l++) {
		double level_bw;
		const char *why = NULL;
		if (roofline_bandwidth(gpu, (enum ridge_level)l, &level_bw, &why)) {
			char lb[48];
			fmt_si(level_bw, "B/s", lb, sizeof lb);
			printf("  %s: %s\n", roofline_level_label((enum ridge_level)l), lb);
		} else {
			printf("  %s: no inner ridge points, %s\n", roofline_level_label((enum ridge_level)l), why);
		}
	}
	/* The chapter's worked examples (the textbook, sections 7.2 and 7.6.2):
	 * 4096^3 GEMMs, attention over S = 8192 with 64 heads of 128. A GPU
	 * without bf16 runs them in fp16 (a label's %s). */
	enum ridge_dtype half =
		gpu->peak[RIDGE_BF16].has_matrix || gpu->peak[RIDGE_BF16].has_vector ? RIDGE_BF16 : RIDGE_FP16;
	const struct ridge_kernel_shape gemm32 = { .dtype = RIDGE_FP32, .m = 4096, .n = 4096, .k = 4096 };
	struct ridge_kernel_shape gemm = gemm32;
	gemm.dtype = half;
	const struct ridge_kernel_shape attn = { .dtype = half, .seq = 8192, .heads = 64, .head_dim = 128 };
	const struct {
		const char *label;
		const struct ridge_kernel_shape *shape;
		enum ridge_kernel kernel;
		enum ridge_traffic traffic;
	} examples[] = {
		{ "naive GEMM, fp32 (2*M*N*K reads)", &gemm32, RIDGE_KERNEL_GEMM_NAIVE, RIDGE_TRAFFIC_DEFAULT },
		{ "tiled GEMM, %s, tile 32 (A, B 128x at L2)", &gemm, RIDGE_KERNEL_GEMM_TILED, RIDGE_TRAFFIC_DEFAULT },
		{ "  the same, every matrix once", &gemm, RIDGE_KERNEL_GEMM_TILED, RIDGE_TRAFFIC_COMPULSORY },
		{ "library GEMM, %s, tile 128x128", &gemm, RIDGE_KERNEL_GEMM, RIDGE_TRAFFIC_TILED },
		{ "standard attention, %s", &attn, RIDGE_KERNEL_ATTENTION, RIDGE_TRAFFIC_DEFAULT },
		{ "  the same, every tensor once", &attn, RIDGE_KERNEL_ATTENTION, RIDGE_TRAFFIC_COMPULSORY },
		{ "flash-attention, %s, query tile 128", &attn, RIDGE_KERNEL_FLASH_ATTENTION, RIDGE_TRAFFIC_TILED },
		{ "  the same, every tensor once", &attn, RIDGE_KERNEL_FLASH_ATTENTION, RIDGE_TRAFFIC_COMPULSORY },
	};
	if (!json)
		printf("  %-44s %9s %10s %9s  %-7s %-12s %10s\n", "kernel (4096^3 GEMMs; attention S=8192, 64x128)",
		       "FLOPs", "bytes", "FLOP/B", "bound", "rate", "time floor");
	for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++) {
		struct ridge_kernel_shape s = *examples[i].shape;
		s.kernel = examples[i].kernel;
		s.traffic = examples[i].traffic;
		char label[96];
		snprintf(label, sizeof label, examples[i].label, ridge_dtype_name(half));
		report_kernel(gpu, label, s, kernels);
	}
	if (json)
		return;
	printf("  bytes: the algorithm's re-reads all reach HBM (an upper bound); \"every ... once\": L2 catches\n"
	       "  every re-read (a lower bound). Measured HBM traffic lies between. The textbook's 0.6%% utilization\n"
	       "  and 2,045 FLOP/B are explained in model/README.md, \"The textbook's numbers\".\n");
}
