/* ridge tui --dump FILE: every item of the scenario the explorer has a panel
 * for, loaded into the explorer's state and computed by tui_state_compute(),
 * printed with the keys `ridge eval --json` uses for the same item, so the
 * two can be compared number by number (tests/suite_tui.sh does). */
#include <string.h>

#include "kernel_time.h"
#include "calc.h"
#include "app.h"
#include "scenario.h"
#include "tui.h"

static void cost_train_json(cJSON *o, const struct tui_state *s)
{
	const struct tui_cost_results *r = &s->out.cost;
	if (r->has_target)
		calc_json_train_comparison(o, &r->train);
	else
		calc_json_train(o, &r->train.current);
}

static void ceiling_json(cJSON *o, const struct ridge_roofline_ceiling *c)
{
	cJSON_AddStringToObject(o, "path", c->matrix ? "matrix" : "vector");
	cJSON_AddStringToObject(o, "level", roofline_level_name(c->level));
	json_number(o, "peak_flops", c->peak_flops);
	json_number(o, "bandwidth", c->bandwidth);
	json_number(o, "ridge_point", c->ridge_point);
}

/* `ridge gemm`'s keys. */
static void gemm_json(cJSON *o, const struct tui_state *s)
{
	const struct tui_roofline_results *r = &s->out.roofline;
	static const char *const algorithms[] = { "library", "tiled", "naive" };
	cJSON_AddStringToObject(o, "algorithm", algorithms[s->in.gemm_algorithm]);
	cJSON_AddStringToObject(o, "dtype", ridge_dtype_name((enum ridge_dtype)s->in.roofline_dtype));
	json_number(o, "m", s->in.gemm_m);
	json_number(o, "n", s->in.gemm_n);
	json_number(o, "k", s->in.gemm_k);
	json_number(o, "read_bytes", r->cost.read_bytes);
	json_number(o, "write_bytes", r->cost.write_bytes);
	json_number(o, "compulsory_bytes", r->cost.compulsory_bytes);
	if (r->cost.l2.modelled) {
		json_number(o, "hbm_bytes", r->cost.l2.hbm_bytes);
		json_number(o, "l2_bytes", r->cost.l2.l2_traffic);
		json_number(o, "wave_ctas", r->cost.l2.wave_ctas);
		cJSON_AddBoolToObject(o, "l2_resident", r->cost.l2.a_resident && r->cost.l2.b_resident);
	}
	cJSON_AddBoolToObject(o, "tensor_core_eligible", r->path.tensor_eligible);
	cJSON_AddBoolToObject(o, "tensor_core_fast_path", r->path.fast_path);
	cJSON_AddBoolToObject(o, "uses_tensor_cores", r->path.uses_matrix);
	cJSON_AddStringToObject(o, "compute_dtype", ridge_dtype_name(r->ceiling.dtype));
	ceiling_json(o, &r->ceiling);
	cJSON_DeleteItemFromObject(o, "level"); /* gemm has no level: always HBM */
	calc_json_roofline_point(o, &r->point);
	if (r->has_time_model) {
		json_number(o, "predicted_time_s", r->time_model.predicted_time_s);
		kernel_time_trust_json(o, &r->time_model);
	}
}

/* `ridge roofline`'s keys (an intensity, or a named GEMM kernel). */
static void roofline_json(cJSON *o, const struct tui_state *s)
{
	const struct tui_roofline_results *r = &s->out.roofline;
	cJSON_AddStringToObject(o, "dtype", ridge_dtype_name(r->ceiling.dtype));
	ceiling_json(o, &r->ceiling);
	calc_json_roofline_point(o, &r->point);
}

/* `ridge occupancy`'s keys. */
static void occupancy_json(cJSON *o, const struct tui_state *s)
{
	const struct tui_occupancy_results *r = &s->out.occupancy;
	const struct ridge_occupancy_result *res = &r->analysis.result;
	cJSON_AddNumberToObject(o, "blocks_per_sm", res->blocks_per_sm);
	cJSON_AddNumberToObject(o, "active_warps", res->active_warps);
	cJSON_AddNumberToObject(o, "max_warps", res->max_warps);
	json_number(o, "occupancy", res->occupancy);
	cJSON_AddStringToObject(o, "limiter", occupancy_limiter_name(res->limiter));
	calc_json_occupancy_limits(o, res);
	cJSON_AddNumberToObject(o, "warps_per_block", res->warps_per_block);
	json_number(o, "smem_per_sm", res->smem_per_sm);
	if (r->has_best) {
		cJSON *mp = cJSON_AddObjectToObject(o, "max_potential_block_size");
		cJSON_AddNumberToObject(mp, "block_size", r->best_block_size);
		cJSON_AddNumberToObject(mp, "blocks_per_sm", r->best_blocks_per_sm);
		cJSON_AddNumberToObject(mp, "min_grid_size", r->best_min_grid);
	}
}

/* `ridge align`'s keys, for what the panel shows: the rule and each
 * finding's verdict and next aligned values. */
static void align_json(cJSON *o, const struct tui_state *s)
{
	const struct align_run *r = &s->out.align.run;
	cJSON_AddBoolToObject(o, "ok", r->errors == 0);
	cJSON_AddStringToObject(o, "dtype", ridge_dtype_name(r->rule.dtype));
	calc_json_align_rule(o, &r->rule);
	cJSON_AddNumberToObject(o, "tokens", (double)r->set.tokens);
	cJSON_AddNumberToObject(o, "errors", r->errors);
	cJSON_AddNumberToObject(o, "warnings", r->warnings);
	cJSON *findings = cJSON_AddArrayToObject(o, "findings");
	for (int i = 0; i < r->count; i++)
		cJSON_AddItemToArray(findings, calc_json_align_finding(&r->findings[i]));
}

const char *tui_panel_error(const struct tui_state *s, enum tui_panel_id panel)
{
	switch (panel) {
	case TUI_PANEL_ROOFLINE:
		return s->out.roofline.ok ? NULL : s->out.roofline.error;
	case TUI_PANEL_OCCUPANCY:
		return s->out.occupancy.ok ? NULL : s->out.occupancy.error;
	case TUI_PANEL_ALIGN:
		return s->out.align.ok ? NULL : s->out.align.error;
	case TUI_PANEL_COST:
		return s->out.cost.ok ? NULL : s->out.cost.error;
	default:
		return NULL;
	}
}

static int dump_item(void *ctx, const struct tui_state *s, int index, const char *name, const struct tui_kind *kind)
{
	cJSON *items = ctx;
	cJSON *entry = cJSON_CreateObject();
	cJSON_AddNumberToObject(entry, "index", index);
	cJSON_AddStringToObject(entry, "name", name);
	cJSON_AddStringToObject(entry, "kind", kind->kind);
	cJSON_AddStringToObject(entry, "panel", tui_panel_name(kind->panel));
	cJSON_AddItemToArray(items, entry);
	const char *error = tui_panel_error(s, kind->panel);
	if (error) {
		cJSON_AddStringToObject(entry, "error", error);
		return 0;
	}
	cJSON_AddItemToObject(entry, "result", tui_dump_result(s, kind));
	return 0;
}

cJSON *tui_dump_result(const struct tui_state *s, const struct tui_kind *kind)
{
	cJSON *result = cJSON_CreateObject();
	cJSON_AddStringToObject(result, "gpu", tui_state_gpu(s)->id);
	if (strcmp(kind->kind, "gemm") == 0)
		gemm_json(result, s);
	else if (strcmp(kind->kind, "roofline") == 0)
		roofline_json(result, s);
	else if (strcmp(kind->kind, "occupancy") == 0)
		occupancy_json(result, s);
	else if (strcmp(kind->kind, "align") == 0)
		align_json(result, s);
	else if (kind->panel == TUI_PANEL_COST && kind->mode == TUI_COST_TRAIN)
		cost_train_json(result, s);
	else if (kind->panel == TUI_PANEL_COST && kind->mode == TUI_COST_DECODE)
		calc_json_decode(result, &s->out.cost.decode);
	return result;
}

int tui_dump(const struct tui_state *s, const char *path, const char *hwdb_dir, const char *calibration, FILE *out,
	     struct app_status *st)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "file", path);
	cJSON *items = cJSON_AddArrayToObject(doc, "items");
	if (scenario_each(s, path, hwdb_dir, calibration, dump_item, items, st) != 0) {
		cJSON_Delete(doc);
		return EXIT_USAGE;
	}
	char *text = cJSON_Print(doc);
	cJSON_Delete(doc);
	if (!text) {
		app_error_env(st, "out of memory while writing JSON");
		return EXIT_ENV;
	}
	/* A failed write is caught where the stream is closed (ridge: main). */
	fputs(text, out);
	fputc('\n', out);
	cJSON_free(text);
	return fflush(out) == 0 && !ferror(out) ? EXIT_OK : EXIT_ENV;
}
