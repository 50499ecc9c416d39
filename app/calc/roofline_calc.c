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
#include "roofline_internal.h"

/* The inputs, once: the command line's flags and a scenario item's keys
 * ('_' for '-'). */
static const struct param roofline_params[] = PARAMS_ROWS(ROOFLINE_PARAMS);

/* Which shape flag sets which field (for the applicability check). */
static const struct {
	int param;
	unsigned field;
	const char *flag;
} shape_flags[] = {
	{ ROOFLINE_M, RIDGE_FIELD_M, "--m" },
	{ ROOFLINE_N, RIDGE_FIELD_N, "--n" },
	{ ROOFLINE_K, RIDGE_FIELD_K, "--k" },
	{ ROOFLINE_BATCH, RIDGE_FIELD_BATCH, "--batch" },
	{ ROOFLINE_TILE, RIDGE_FIELD_TILE, "--tile" },
	{ ROOFLINE_SEQ, RIDGE_FIELD_SEQ, "--seq" },
	{ ROOFLINE_HEADS, RIDGE_FIELD_HEADS, "--heads" },
	{ ROOFLINE_KV_HEADS, RIDGE_FIELD_KV_HEADS, "--kv-heads" },
	{ ROOFLINE_HEAD_DIM, RIDGE_FIELD_HEAD_DIM, "--head-dim" },
	{ ROOFLINE_CAUSAL, RIDGE_FIELD_CAUSAL, "--causal" },
	{ ROOFLINE_FUSED, RIDGE_FIELD_FUSED, "--fused" },
	{ ROOFLINE_UNFUSED, RIDGE_FIELD_FUSED, "--unfused" },
	{ ROOFLINE_PASSES, RIDGE_FIELD_PASSES, "--passes" },
	{ ROOFLINE_FLOPS_PER_ELEMENT, RIDGE_FIELD_FLOPS_PER_ELEMENT, "--flops-per-element" },
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
	if (r->has_overrides && !r->has_kernel) {
		snprintf(err, err_len, "--efficiency and --fixed-cost apply to --kernel only (the prediction's terms)");
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
static const struct json_field level_placed_fields[] = {
	JSON_FIELDS(struct ridge_roofline_level, ridge_point, time_s, attainable_flops),
};

void roofline_json_ceiling(cJSON *o, const struct ridge_gpu *gpu, const struct ridge_roofline_ceiling *c)
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
struct roofline_plot_point roofline_placed_point(const char *label, const struct ridge_roofline_point *p)
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
			if (l->derived)
				cJSON_AddStringToObject(e, "note", l->why);
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
		plot->points[0] = roofline_placed_point(plot->labels[0], &p);
	}
	cJSON *doc = cJSON_CreateObject();
	roofline_json_ceiling(doc, gpu, &c);
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
	    intensity_levels_on(gpu, &s, &cost, &path, level_bytes, why, sizeof why) ||
	    roofline_hierarchy(gpu, c.peak_flops, cost.flops, level_bytes, cost.write_bytes, &h, why, sizeof why)) {
		snprintf(err, err_len, "--kernel %s: %s", name, why);
		return NULL;
	}
	/* A tiled or naive GEMM's traffic is one model over every level (its
	 * DRAM bytes are `bytes`, intensity_levels): its floor is the slowest of
	 * them, as the time model's (timing_kernel). */
	bool gemm_levels = cost.l2.modelled || cost.naive.modelled;
	if (gemm_levels && r->level == RIDGE_LEVEL_HBM && h.time_floor_s > p.time_floor_s) {
		p.time_floor_s = h.time_floor_s;
		p.attainable_flops = h.attainable_flops;
		p.bound = RIDGE_BOUND_MEMORY;
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
		plot->points[0] = roofline_placed_point(plot->labels[0], &p);
		if (two) {
			/* The other bound is drawn on its roof: a model, not a measurement. */
			struct ridge_roofline_point q;
			roofline_place(&c, cost.flops, other_tiled ? cost.tiled_bytes : cost.compulsory_bytes, 0, &q,
				       why, sizeof why);
			snprintf(plot->labels[1], sizeof plot->labels[1], "%s (%s bytes)", name,
				 other_tiled ? "tiled" : "compulsory");
			plot->points[1] = roofline_placed_point(plot->labels[1], &q);
		}
	}
	cJSON *doc = cJSON_CreateObject();
	roofline_json_ceiling(doc, gpu, &c);
	calc_json_roofline_point(doc, &p);
	cJSON_AddStringToObject(doc, "compulsory_bound", roofline_bound_name(compulsory.bound));
	json_number(doc, "compulsory_time_floor_s", compulsory.time_floor_s);
	json_hierarchy(doc, &h);
	cJSON_AddItemToObject(doc, "kernel", kernel_json(&s, &cost, &path));
	/* The time model on the same shape and ceiling choice. */
	struct ridge_timing_options topt = { .no_tensor = r->no_tensor,
					     .sparse = r->sparse,
					     .impl = r->impl,
					     .overrides = r->has_overrides ? &r->overrides : NULL };
	struct ridge_kernel_time kt;
	if (timing_kernel(gpu, &s, &topt, &kt, why, sizeof why)) {
		cJSON_Delete(doc);
		snprintf(err, err_len, "--kernel %s: %s", name, why);
		return NULL;
	}
	json_number(doc, "predicted_time_s", kt.predicted_time_s);
	kernel_time_trust_json(doc, &kt);
	cJSON_AddItemToObject(doc, "prediction", kernel_time_json(&kt));
	if (r->explain)
		cJSON_AddBoolToObject(doc, "explain", true);
	return doc;
}

cJSON *roofline_compute(const struct ridge_gpu *gpu, const struct roofline_request *r, struct plot_out *plot, char *err,
			size_t err_len)
{
	return r->has_kernel ? compute_kernel(gpu, r, plot, err, err_len) : compute_work(gpu, r, plot, err, err_len);
}

/* An optional number: true and *out set when the key was given, *out left
 * alone when not. */
static bool take_number(const struct param_values *v, int param, double *out)
{
	if (!params_has(v, param))
		return false;
	*out = params_num(v, param);
	return true;
}

/* The request from parsed values, the command line's or a scenario item's.
 * Returns 0, or -1 with err. */
static int request_from_values(const struct param_values *v, struct roofline_request *out, char *err, size_t err_len)
{
	struct roofline_request r = { .dtype = RIDGE_BF16, .level = RIDGE_LEVEL_HBM };
	const char *text;
	if ((text = params_text(v, ROOFLINE_DTYPE)) && !ridge_dtype_parse(text, &r.dtype)) {
		snprintf(err, err_len, "%s: unknown dtype '%s' (known: %s)", params_where(v, ROOFLINE_DTYPE), text,
			 ridge_dtype_list());
		return -1;
	}
	if ((text = params_text(v, ROOFLINE_LEVEL)) && !(r.has_level = roofline_level_parse(text, &r.level))) {
		snprintf(err, err_len, "%s: unknown memory level '%s' (known: %s)", params_where(v, ROOFLINE_LEVEL),
			 text, roofline_level_list());
		return -1;
	}
	if ((text = params_text(v, ROOFLINE_KERNEL)) &&
	    !(r.has_kernel = intensity_kernel_parse(text, &r.shape.kernel))) {
		snprintf(err, err_len, "%s: unknown kernel '%s' (known: %s)", params_where(v, ROOFLINE_KERNEL), text,
			 intensity_kernel_list());
		return -1;
	}
	if ((text = params_text(v, ROOFLINE_TRAFFIC)) &&
	    !(r.traffic_given = intensity_traffic_parse(text, &r.shape.traffic))) {
		snprintf(err, err_len, "%s: unknown traffic model '%s' (known: default tiled compulsory)",
			 params_where(v, ROOFLINE_TRAFFIC), text);
		return -1;
	}
	if ((text = params_text(v, ROOFLINE_IMPL)) && !(r.impl_given = timing_attention_impl_parse(text, &r.impl))) {
		snprintf(err, err_len, "%s: unknown attention implementation '%s' (known: %s)",
			 params_where(v, ROOFLINE_IMPL), text, timing_attention_impl_list());
		return -1;
	}
	if (calc_timing_overrides(v, ROOFLINE_EFFICIENCY, ROOFLINE_FIXED_COST, &r.overrides, &r.has_overrides, err,
				  err_len) != 0)
		return -1;
	if ((text = params_text(v, ROOFLINE_TILE))) {
		double tm, tn, tk;
		if (kernel_tile_parse(text, &tm, &tn, &tk)) {
			snprintf(
				err, err_len,
				"%s: '%s' is not a tile: give T (square, T x T x T) or MxNxK, whole numbers from 1 to 65536",
				params_where(v, ROOFLINE_TILE), text);
			return -1;
		}
		r.shape.tile_m = tm;
		r.shape.tile_n = tn;
		r.shape.tile_k = tk;
	}
	r.no_tensor = params_flag(v, ROOFLINE_NO_TENSOR);
	r.sparse = params_flag(v, ROOFLINE_SPARSE);
	r.has_flops = take_number(v, ROOFLINE_FLOPS, &r.flops);
	r.has_bytes = take_number(v, ROOFLINE_BYTES, &r.bytes);
	r.has_intensity = take_number(v, ROOFLINE_INTENSITY, &r.intensity);
	r.has_time = take_number(v, ROOFLINE_TIME, &r.time);
	r.has_l2_bytes = take_number(v, ROOFLINE_L2_BYTES, &r.l2_bytes);
	r.has_smem_bytes = take_number(v, ROOFLINE_SMEM_BYTES, &r.smem_bytes);
	for (size_t i = 0; i < sizeof shape_flags / sizeof shape_flags[0]; i++) {
		int p = shape_flags[i].param;
		if (!params_has(v, p) || (v->spec[p].kind == PARAM_FLAG && !params_flag(v, p)))
			continue; /* "causal: false" is not giving it */
		r.fields |= shape_flags[i].field;
		if (!r.first_field_flag)
			r.first_field_flag = shape_flags[i].flag;
	}
	struct ridge_kernel_shape *s = &r.shape;
	s->m = params_has(v, ROOFLINE_M) ? params_num(v, ROOFLINE_M) : 0;
	s->n = params_has(v, ROOFLINE_N) ? params_num(v, ROOFLINE_N) : 0;
	s->k = params_has(v, ROOFLINE_K) ? params_num(v, ROOFLINE_K) : 0;
	s->batch = params_has(v, ROOFLINE_BATCH) ? params_num(v, ROOFLINE_BATCH) : 0;
	s->seq = params_has(v, ROOFLINE_SEQ) ? params_num(v, ROOFLINE_SEQ) : 0;
	s->heads = params_has(v, ROOFLINE_HEADS) ? params_num(v, ROOFLINE_HEADS) : 0;
	s->kv_heads = params_has(v, ROOFLINE_KV_HEADS) ? params_num(v, ROOFLINE_KV_HEADS) : 0;
	s->head_dim = params_has(v, ROOFLINE_HEAD_DIM) ? params_num(v, ROOFLINE_HEAD_DIM) : 0;
	s->causal = params_flag(v, ROOFLINE_CAUSAL);
	r.fused_given = params_flag(v, ROOFLINE_FUSED);
	r.unfused_given = params_flag(v, ROOFLINE_UNFUSED);
	s->passes = params_has(v, ROOFLINE_PASSES) ? (int)params_num(v, ROOFLINE_PASSES) : 0;
	s->flops_per_element =
		params_has(v, ROOFLINE_FLOPS_PER_ELEMENT) ? params_num(v, ROOFLINE_FLOPS_PER_ELEMENT) : 0;
	r.explain = params_flag(v, ROOFLINE_EXPLAIN);
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
	bool validation = params_has(v, ROOFLINE_VALIDATION), ncu = params_has(v, ROOFLINE_NCU);
	if (request_from_values(v, &r, err, sizeof err)) {
		app_error(st, "%s", err);
		return -1;
	}
	if (params_has(v, ROOFLINE_GROUP) && !validation) {
		app_error(st, "--group applies to --validation only");
		return -1;
	}
	if (validation) {
		if (ncu || r.has_flops || r.has_bytes || r.has_intensity || r.has_kernel || r.has_time || r.has_level ||
		    r.has_l2_bytes || r.has_smem_bytes || r.fields || r.traffic_given ||
		    params_has(v, ROOFLINE_DTYPE) || r.no_tensor || r.sparse) {
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

int roofline_command(FILE *out, const struct param_values *v, const struct ridge_gpu *gpu, cJSON **json,
		     struct app_status *st)
{
	*json = NULL;
	char err[600];
	struct roofline_request r;
	if (request_from_values(v, &r, err, sizeof err)) {
		app_error(st, "%s", err);
		return EXIT_USAGE;
	}
	if (params_has(v, ROOFLINE_VALIDATION))
		return roofline_validation_run(out, params_text(v, ROOFLINE_VALIDATION), params_text(v, ROOFLINE_GROUP),
					       gpu, params_text(v, ROOFLINE_SVG),
					       params_flag(v, ROOFLINE_JSON) ? json : NULL, st);
	if (params_has(v, ROOFLINE_NCU))
		return roofline_run_ncu(out, v, &r, gpu, json, st);
	return roofline_run_model(out, v, &r, gpu, json, st);
}

const struct calc calc_roofline = {
	.name = "roofline",
	.synopsis = "kind: roofline  (dtype, flops + bytes | intensity | kernel + shape keys, time, level, ...)",
	.description = "A roofline placement: the keys are ridge roofline's flags with '_' for '-'\n"
		       "(no_tensor, l2_bytes, head_dim, ...); --ncu and --svg are command-line only.\n",
	CALC_IMPL(roofline_params, roofline_item_run, roofline_print),
};
