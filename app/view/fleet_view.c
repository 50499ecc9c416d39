/* ridge fleet's views (fleet_calc.h): the text report, the --json document,
 * the strip plots, and the command's parameter table. */
#include "fleet_calc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "format.h"
#include "json_out.h"
#include "svg.h"

#define FLEET_WORST_LISTED 4 /* ceilings per flagged GPU in the text */
#define FLEET_BAD_LISTED 20

static void format_value(double v, const char *unit, char *buf, size_t len)
{
	if (strcmp(unit, "s") == 0)
		fmt_seconds(v, buf, len);
	else
		fmt_si(v, unit, buf, len);
}

static const char *direction_word(enum ridge_direction d)
{
	return d == RIDGE_HIGHER_IS_BETTER ? "higher" : d == RIDGE_LOWER_IS_BETTER ? "lower" : "none";
}

/* ---- text ---- */

static void print_stats(FILE *out, const struct fleet_analysis *a, const struct fleet_group *g)
{
	fprintf(out, "  %-22s %13s %19s %7s %8s %8s\n", "ceiling", "median", "P5 .. P95", "MAD", "of spec", "flagged");
	for (int s = 0; s < g->stat_count; s++) {
		const struct fleet_stat *st = &g->stats[s];
		const struct fleet_metric *m = &a->run->metrics[st->metric];
		const struct ridge_spread *sp = &st->spread;
		char median[32], range[48], mad[16], spec[16], flagged[16];
		format_value(sp->median, m->unit, median, sizeof median);
		snprintf(range, sizeof range, "%+.1f%% .. %+.1f%%", 100 * (sp->p5 / sp->median - 1),
			 100 * (sp->p95 / sp->median - 1));
		snprintf(mad, sizeof mad, "%.2f%%", 100 * sp->mad / sp->median);
		if (isnan(st->spec))
			snprintf(spec, sizeof spec, "-");
		else
			snprintf(spec, sizeof spec, "%.1f%%", 100 * sp->median / st->spec);
		if (m->direction == RIDGE_NO_DIRECTION)
			snprintf(flagged, sizeof flagged, "(shown)");
		else
			snprintf(flagged, sizeof flagged, "%d", st->flagged);
		fprintf(out, "  %-22.22s %13s %19s %7s %8s %8s\n", m->name, median, range, mad, spec, flagged);
	}
}

/* One flagged GPU: its worst ceilings, most short first. */
static void print_flagged_gpu(FILE *out, const struct fleet_analysis *a, const struct fleet_group *g, int k)
{
	const struct fleet_gpu *gpu = &a->run->gpus[g->gpus[k]];
	int from = g->flag_start[k], to = g->flag_start[k + 1];
	bool used[FLEET_MAX_METRICS] = { false };
	char label[160];
	fleet_gpu_label(gpu, label, sizeof label);
	fprintf(out, "    %-20s", label);
	int listed = 0;
	for (; listed < FLEET_WORST_LISTED && listed < to - from; listed++) {
		int worst = -1;
		for (int f = from; f < to; f++)
			if (!used[f - from] && (worst < 0 || g->flags[f].shortfall > g->flags[worst].shortfall))
				worst = f;
		used[worst - from] = true;
		const struct fleet_flag *fl = &g->flags[worst];
		const struct fleet_metric *m = &a->run->metrics[fl->metric];
		char value[32];
		format_value(fl->value, m->unit, value, sizeof value);
		fprintf(out, "%s %s %s (%+.1f%%%s)", listed ? "," : "", m->name, value,
			-100 * fl->shortfall * (m->direction == RIDGE_LOWER_IS_BETTER ? -1 : 1),
			fl->below_spec ? ", under the spec floor" : "");
	}
	if (to - from > listed)
		fprintf(out, " and %d more", to - from - listed);
	fprintf(out, "  [%s%s%s]\n", gpu->file, gpu->uuid[0] ? " " : "", gpu->uuid);
}

static void print_group(FILE *out, const struct fleet_analysis *a, const struct fleet_group *g)
{
	fprintf(out, "%s (%s): %d GPU%s on %d host%s, ridge-probe %s\n", g->device_name,
		g->known_model ? g->model : "no hwdb entry: no spec sheet to compare with", g->gpu_count,
		g->gpu_count == 1 ? "" : "s", g->host_count, g->host_count == 1 ? "" : "s", g->versions);
	if (g->version_count > 1)
		fprintf(out, "  note: results of %d ridge-probe versions; a ceiling's method may differ between them\n",
			g->version_count);
	print_stats(out, a, g);
	if (g->flagged_gpus) {
		fprintf(out, "\n  flagged GPUs (%d of %d):\n", g->flagged_gpus, g->gpu_count);
		for (int k = 0; k < g->gpu_count; k++)
			if (g->flag_start[k + 1] > g->flag_start[k])
				print_flagged_gpu(out, a, g, k);
	}
	if (g->node_count) {
		fprintf(out, "\n  hosts whose every GPU is short (cooling, power, a throttled node?):\n");
		for (int n = 0; n < g->node_count; n++) {
			const struct fleet_node *node = &g->nodes[n];
			fprintf(out, "    %-20s %d GPUs:", node->host, node->gpus);
			for (int i = 0; i < node->metric_count; i++) {
				const struct fleet_metric *m = &a->run->metrics[node->metrics[i]];
				fprintf(out, "%s %s %+.1f%%", i ? "," : "", m->name,
					-100 * node->shortfall[i] * (m->direction == RIDGE_LOWER_IS_BETTER ? -1 : 1));
			}
			fprintf(out, "\n");
		}
	}
	fprintf(out, "\n");
}

static void print_bad(FILE *out, const struct fleet_run *run)
{
	if (!run->bad_count)
		return;
	fprintf(out, "unreadable results in %s (%d of %d files, left out):\n", run->dir, run->bad_count, run->files);
	for (int i = 0; i < run->bad_count && i < FLEET_BAD_LISTED; i++)
		fprintf(out, "  %s: %s\n", run->bad[i].file, run->bad[i].why);
	if (run->bad_count > FLEET_BAD_LISTED)
		fprintf(out, "  and %d more\n", run->bad_count - FLEET_BAD_LISTED);
	fprintf(out, "\n");
}

static void print_comparison(FILE *out, const struct fleet_comparison *c, const struct fleet_analysis *base,
			     const struct fleet_analysis *a)
{
	fprintf(out,
		"%s -> %s: each ceiling's fleet median; rule (ridge compare's): noise below either run's standard\n"
		"deviation over its GPUs, improvement beyond it and > 3%%, regression beyond it and worse\n",
		base->run->dir, a->run->dir);
	fprintf(out, "  %-12s %-22s %13s %13s %10s  %s\n", "model", "ceiling", "before", "after", "delta", "verdict");
	for (int i = 0; i < c->count; i++) {
		const struct fleet_change *ch = &c->changes[i];
		char before[32], after[32];
		format_value(ch->base_series.center, ch->base_series.unit, before, sizeof before);
		format_value(ch->after_series.center, ch->after_series.unit, after, sizeof after);
		fprintf(out, "  %-12.12s %-22.22s %13s %13s %+9.1f%%  %s\n", ch->after_group->model,
			ch->after_series.name, before, after, 100 * ch->delta_fraction,
			compare_verdict_name(ch->verdict));
	}
	fprintf(out, "  %d regression%s, %d improvement%s, %d better by 3%% or less, %d within noise\n",
		c->verdicts[COMPARE_REGRESSION], c->verdicts[COMPARE_REGRESSION] == 1 ? "" : "s",
		c->verdicts[COMPARE_IMPROVEMENT], c->verdicts[COMPARE_IMPROVEMENT] == 1 ? "" : "s",
		c->verdicts[COMPARE_BETTER], c->verdicts[COMPARE_NOISE]);
	if (c->only_base || c->only_after) {
		fprintf(out, "  GPUs in one run only: %d before, %d after:", c->only_base, c->only_after);
		for (int i = 0; i < c->missing_listed; i++)
			fprintf(out, "%s %s", i ? "," : "", c->missing[i]);
		fprintf(out, "%s\n", c->only_base + c->only_after > c->missing_listed ? ", ..." : "");
	}
	fprintf(out, "\n");
}

void fleet_print(FILE *out, const struct fleet_analysis *a, const struct fleet_comparison *c,
		 const struct fleet_analysis *base)
{
	int hosts = 0;
	for (int i = 0; i < a->group_count; i++)
		hosts += a->groups[i].host_count;
	fprintf(out, "%s: %d result%s, %d GPU model%s; flagged: %.4g%% or more short of the fleet median", a->run->dir,
		a->run->count, a->run->count == 1 ? "" : "s", a->group_count, a->group_count == 1 ? "" : "s",
		100 * a->options.threshold);
	if (a->options.spec_floor > 0)
		fprintf(out, ", or under %.4g%% of the spec sheet", 100 * a->options.spec_floor);
	fprintf(out, "\n(a rate under the median, a latency over it; P5 .. P95 relative to the median)\n\n");
	(void)hosts;
	print_bad(out, a->run);
	for (int i = 0; i < a->group_count; i++)
		print_group(out, a, &a->groups[i]);
	if (c)
		print_comparison(out, c, base, a);
	fprintf(out, "%d GPU%s flagged, %d host%s with every GPU short", a->flagged_gpus,
		a->flagged_gpus == 1 ? "" : "s", a->flagged_nodes, a->flagged_nodes == 1 ? "" : "s");
	if (a->run->bad_count)
		fprintf(out, ", %d unreadable result%s", a->run->bad_count, a->run->bad_count == 1 ? "" : "s");
	if (c)
		fprintf(out, ", %d ceiling%s regressed", c->verdicts[COMPARE_REGRESSION],
			c->verdicts[COMPARE_REGRESSION] == 1 ? "" : "s");
	fprintf(out, "\n");
}

/* ---- JSON ---- */

static cJSON *stat_json(const struct fleet_analysis *a, const struct fleet_stat *s)
{
	const struct fleet_metric *m = &a->run->metrics[s->metric];
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", m->name);
	cJSON_AddStringToObject(o, "unit", m->unit);
	cJSON_AddStringToObject(o, "better", direction_word(m->direction));
	cJSON_AddNumberToObject(o, "count", (double)s->spread.count);
	json_number(o, "median", s->spread.median);
	json_number(o, "p5", s->spread.p5);
	json_number(o, "p95", s->spread.p95);
	json_number(o, "mad", s->spread.mad);
	json_number(o, "min", s->spread.min);
	json_number(o, "max", s->spread.max);
	json_number(o, "stddev", s->stddev);
	if (isnan(s->spec)) {
		cJSON_AddNullToObject(o, "spec");
		cJSON_AddNullToObject(o, "median_fraction_of_spec");
	} else {
		json_number(o, "spec", s->spec);
		json_number(o, "median_fraction_of_spec", s->spread.median / s->spec);
	}
	cJSON_AddNumberToObject(o, "flagged", s->flagged);
	return o;
}

static cJSON *flagged_gpu_json(const struct fleet_analysis *a, const struct fleet_group *g, int k)
{
	const struct fleet_gpu *gpu = &a->run->gpus[g->gpus[k]];
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "host", gpu->host);
	if (gpu->gpu_index >= 0)
		cJSON_AddNumberToObject(o, "gpu_index", gpu->gpu_index);
	else
		cJSON_AddNullToObject(o, "gpu_index");
	cJSON_AddStringToObject(o, "uuid", gpu->uuid);
	cJSON_AddStringToObject(o, "file", gpu->file);
	cJSON *list = cJSON_AddArrayToObject(o, "ceilings");
	for (int f = g->flag_start[k]; f < g->flag_start[k + 1]; f++) {
		const struct fleet_flag *fl = &g->flags[f];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", a->run->metrics[fl->metric].name);
		json_number(e, "value", fl->value);
		json_number(e, "shortfall", fl->shortfall);
		cJSON_AddBoolToObject(e, "below_median", fl->below_median);
		cJSON_AddBoolToObject(e, "below_spec", fl->below_spec);
		cJSON_AddItemToArray(list, e);
	}
	return o;
}

static cJSON *group_json(const struct fleet_analysis *a, const struct fleet_group *g)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "model", g->model);
	cJSON_AddStringToObject(o, "name", g->device_name);
	cJSON_AddBoolToObject(o, "known_model", g->known_model);
	cJSON_AddNumberToObject(o, "gpus", g->gpu_count);
	cJSON_AddNumberToObject(o, "hosts", g->host_count);
	cJSON_AddStringToObject(o, "probe_versions", g->versions);
	cJSON *stats = cJSON_AddArrayToObject(o, "ceilings");
	for (int s = 0; s < g->stat_count; s++)
		cJSON_AddItemToArray(stats, stat_json(a, &g->stats[s]));
	cJSON *flagged = cJSON_AddArrayToObject(o, "flagged");
	for (int k = 0; k < g->gpu_count; k++)
		if (g->flag_start[k + 1] > g->flag_start[k])
			cJSON_AddItemToArray(flagged, flagged_gpu_json(a, g, k));
	cJSON *nodes = cJSON_AddArrayToObject(o, "nodes");
	for (int n = 0; n < g->node_count; n++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "host", g->nodes[n].host);
		cJSON_AddNumberToObject(e, "gpus", g->nodes[n].gpus);
		cJSON *list = cJSON_AddArrayToObject(e, "ceilings");
		for (int i = 0; i < g->nodes[n].metric_count; i++) {
			cJSON *c = cJSON_CreateObject();
			cJSON_AddStringToObject(c, "name", a->run->metrics[g->nodes[n].metrics[i]].name);
			json_number(c, "shortfall", g->nodes[n].shortfall[i]);
			cJSON_AddItemToArray(list, c);
		}
		cJSON_AddItemToArray(nodes, e);
	}
	return o;
}

static cJSON *series_json(const struct compare_series *s)
{
	cJSON *o = cJSON_CreateObject();
	json_number(o, "median", s->center);
	json_number(o, "stddev", s->stddev);
	cJSON_AddNumberToObject(o, "gpus", s->samples);
	return o;
}

static cJSON *comparison_json_of(const struct fleet_comparison *c, const struct fleet_analysis *base)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "before", base->run->dir);
	cJSON *list = cJSON_AddArrayToObject(o, "entries");
	for (int i = 0; i < c->count; i++) {
		const struct fleet_change *ch = &c->changes[i];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "model", ch->after_group->model);
		cJSON_AddStringToObject(e, "name", ch->after_series.name);
		cJSON_AddStringToObject(e, "unit", ch->after_series.unit);
		cJSON_AddBoolToObject(e, "higher_is_better", ch->after_series.higher_is_better);
		cJSON_AddItemToObject(e, "before", series_json(&ch->base_series));
		cJSON_AddItemToObject(e, "after", series_json(&ch->after_series));
		json_number(e, "delta", ch->delta);
		json_number(e, "delta_fraction", ch->delta_fraction);
		cJSON_AddStringToObject(e, "verdict", compare_verdict_name(ch->verdict));
		cJSON_AddItemToArray(list, e);
	}
	cJSON_AddNumberToObject(o, "regressions", c->verdicts[COMPARE_REGRESSION]);
	cJSON_AddNumberToObject(o, "improvements", c->verdicts[COMPARE_IMPROVEMENT]);
	cJSON_AddNumberToObject(o, "better", c->verdicts[COMPARE_BETTER]);
	cJSON_AddNumberToObject(o, "noise", c->verdicts[COMPARE_NOISE]);
	cJSON_AddNumberToObject(o, "only_before", c->only_base);
	cJSON_AddNumberToObject(o, "only_after", c->only_after);
	return o;
}

cJSON *fleet_json(const struct fleet_analysis *a, const struct fleet_comparison *c, const struct fleet_analysis *base)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "dir", a->run->dir);
	json_number(doc, "threshold", a->options.threshold);
	if (a->options.spec_floor > 0)
		json_number(doc, "spec_floor", a->options.spec_floor);
	else
		cJSON_AddNullToObject(doc, "spec_floor");
	cJSON_AddNumberToObject(doc, "files", a->run->files);
	cJSON_AddNumberToObject(doc, "results", a->run->count);
	cJSON *groups = cJSON_AddArrayToObject(doc, "groups");
	for (int i = 0; i < a->group_count; i++)
		cJSON_AddItemToArray(groups, group_json(a, &a->groups[i]));
	cJSON *bad = cJSON_AddArrayToObject(doc, "unreadable");
	for (int i = 0; i < a->run->bad_count; i++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "file", a->run->bad[i].file);
		cJSON_AddStringToObject(e, "error", a->run->bad[i].why);
		cJSON_AddItemToArray(bad, e);
	}
	cJSON_AddNumberToObject(doc, "flagged_gpus", a->flagged_gpus);
	cJSON_AddNumberToObject(doc, "flagged_nodes", a->flagged_nodes);
	if (c)
		cJSON_AddItemToObject(doc, "comparison", comparison_json_of(c, base));
	return doc;
}

/* ---- SVG: a strip per ceiling, worse to the left ---- */

#define SVG_WIDTH 960.0
#define SVG_TOP 44.0
#define SVG_ROW 46.0
#define SVG_LABELS_PER_ROW 6

/* Where a GPU sits: its distance from the median in percent, better to the right. */
static double better_percent(const struct fleet_metric *m, double value, double median)
{
	double shortfall = ridge_shortfall(value, median,
					   m->direction == RIDGE_NO_DIRECTION ? RIDGE_HIGHER_IS_BETTER : m->direction);
	return -100 * shortfall;
}

static const struct fleet_flag *gpu_flag(const struct fleet_group *g, int k, int metric)
{
	for (int f = g->flag_start[k]; f < g->flag_start[k + 1]; f++)
		if (g->flags[f].metric == metric)
			return &g->flags[f];
	return NULL;
}

/* One ceiling's strip in the row from top: every GPU a point (a fixed jitter
 * keeps points of one value apart), the flagged ones red and labelled where
 * a label fits in the row off the others (svg_labels_place), the rest
 * counted in a "+N more flagged" note at the row's right. */
static void svg_strip(struct svg *s, const struct svg_plot *plot, const struct fleet_analysis *a,
		      const struct fleet_group *g, const struct fleet_stat *st, double top, double range,
		      struct svg_labels *taken)
{
	const struct fleet_metric *m = &a->run->metrics[st->metric];
	double x0 = plot->left, x1 = plot->right, mid = top + SVG_ROW / 2;
	char label[200];
	svg_line(s, x0, mid, x1, mid, "#ddd", 1, false);
	double zero = svg_plot_x(plot, 0);
	svg_line(s, zero, top + 4, zero, top + SVG_ROW - 4, "#888", 1, false);
	if (m->direction != RIDGE_NO_DIRECTION) {
		double cut = svg_plot_x(plot, -100 * a->options.threshold);
		svg_line(s, cut, top + 4, cut, top + SVG_ROW - 4, "#c62828", 1, true);
	}
	svg_labels_init(taken, (struct svg_box){ x0 + 2, top + 1, x1 - 2, top + SVG_ROW - 1 });
	svg_labels_add(taken, svg_text_box(x1 - 4, top + 11, 9, "end", "+999 more flagged"), true);
	for (int pass = 0; pass < 2; pass++) {
		int labelled = 0, unlabelled = 0;
		for (int k = 0; k < g->gpu_count; k++) {
			const struct fleet_gpu *gpu = &a->run->gpus[g->gpus[k]];
			double v = gpu->value[st->metric];
			if (isnan(v))
				continue;
			double p = fmax(-range, fmin(range, better_percent(m, v, st->spread.median)));
			double x = svg_plot_x(plot, p), y = mid + ((k * 7919) % 17 - 8) * 1.2;
			const struct fleet_flag *flag = gpu_flag(g, k, st->metric);
			if (pass == 0) {
				svg_circle(s, x, y, flag ? 3.5 : 2.2, flag ? "#c62828" : "#1565c0", "none");
				svg_labels_add(taken, (struct svg_box){ x - 3.5, y - 3.5, x + 3.5, y + 3.5 }, false);
				continue;
			}
			if (!flag)
				continue;
			struct svg_spot spot;
			fleet_gpu_label(gpu, label, sizeof label);
			if (labelled == SVG_LABELS_PER_ROW || !svg_labels_place(taken, x, y, 9, label, 80, &spot)) {
				unlabelled++;
				continue;
			}
			svg_label_draw(s, taken, &spot, x, y, 9, "#c62828", label);
			labelled++;
		}
		if (pass == 1 && unlabelled) {
			snprintf(label, sizeof label, "+%d more flagged", unlabelled);
			svg_text(s, x1 - 4, top + 11, 9, "end", "#c62828", label);
		}
	}
}

/* The rows: a heading per GPU model, then a strip per ceiling, each named
 * (with its fleet median) on the plot's y axis. */
static int draw_fleet(struct svg *s, struct svg_plot *plot, const struct fleet_analysis *a, double range)
{
	int rows = 0, strips = 0;
	for (int i = 0; i < a->group_count; i++) {
		rows += a->groups[i].stat_count + 1;
		strips += a->groups[i].stat_count;
	}
	char(*names)[120] = malloc(sizeof *names * (size_t)(strips ? strips : 1));
	const char **labels = malloc(sizeof *labels * (size_t)(strips ? strips : 1));
	double *places = malloc(sizeof *places * (size_t)(strips ? strips : 1));
	struct svg_labels *taken = malloc(sizeof *taken);
	int rc = names && labels && places && taken ? 0 : -1;
	for (int i = 0, row = 0, k = 0; rc == 0 && i < a->group_count; i++, row++)
		for (int j = 0; j < a->groups[i].stat_count; j++, k++) {
			const struct fleet_stat *st = &a->groups[i].stats[j];
			const struct fleet_metric *m = &a->run->metrics[st->metric];
			char median[32];
			format_value(st->spread.median, m->unit, median, sizeof median);
			snprintf(names[k], sizeof names[k], "%s (%s)", m->name, median);
			labels[k] = names[k];
			places[k] = ++row + 0.5;
		}
	if (rc == 0) {
		*plot = (struct svg_plot){
			.left = 200,
			.top = SVG_TOP,
			.right = SVG_WIDTH - 40,
			.bottom = SVG_TOP + rows * SVG_ROW,
			.font_size = 11,
			.x = { .scale = SVG_LINEAR,
			       .lo = -range,
			       .hi = range,
			       .title = "each GPU against its model's median",
			       .unit = "% better" },
			.y = { .scale = SVG_CATEGORY,
			       .lo = rows,
			       .hi = 0,
			       .title = "ceiling (fleet median)",
			       .category_count = strips,
			       .category_labels = labels,
			       .category_values = places },
		};
		svg_plot_axes(s, plot);
	}
	double top = SVG_TOP;
	for (int i = 0; rc == 0 && i < a->group_count; i++) {
		const struct fleet_group *g = &a->groups[i];
		char heading[300];
		snprintf(heading, sizeof heading, "%s (%s): %d GPUs, %d flagged", g->device_name, g->model,
			 g->gpu_count, g->flagged_gpus);
		svg_text_halo(s, plot->left + 6, top + SVG_ROW / 2 + 4, 12, "start", "#000", heading);
		top += SVG_ROW;
		for (int k = 0; k < g->stat_count; k++, top += SVG_ROW)
			svg_strip(s, plot, a, g, &g->stats[k], top, range, taken);
	}
	free(names);
	free(labels);
	free(places);
	free(taken);
	return rc;
}

int fleet_svg(const struct fleet_analysis *a, const char *path, struct app_status *st)
{
	int rows = 0;
	for (int i = 0; i < a->group_count; i++)
		rows += a->groups[i].stat_count + 1;
	/* The axis spans twice the threshold, or the farthest GPU (up to 50 %). */
	double range = 200 * a->options.threshold;
	for (int i = 0; i < a->group_count; i++)
		for (int f = 0; f < a->groups[i].flag_count; f++)
			range = fmax(range, fmin(50, 100 * fabs(a->groups[i].flags[f].shortfall) * 1.1));
	struct svg s;
	svg_begin(&s, SVG_WIDTH, SVG_TOP + rows * SVG_ROW + 60, "ridge fleet");
	char title[300];
	snprintf(title, sizeof title,
		 "ridge fleet %s: each GPU against its model's median (%% better; dashed: -%.4g%%)", a->run->dir,
		 100 * a->options.threshold);
	svg_title(&s, 24, 14, title);
	struct svg_plot plot;
	if (draw_fleet(&s, &plot, a, range) != 0) {
		svg_free(&s);
		app_error_env(st, "out of memory while drawing '%s'", path);
		return -1;
	}
	svg_end(&s);
	int rc = svg_save(&s, path, st);
	svg_free(&s);
	return rc;
}

/* ---- the command line: ridge fleet DIR [DIR2] ---- */

static const char fleet_synopsis[] =
	"usage: ridge fleet DIR [DIR2] [--metric NAME[,NAME...]] [--threshold PCT] [--spec-floor PCT]\n"
	"                   [--skip-bad] [--svg FILE] [--json]";
static const char fleet_description[] =
	"Reads every ridge-probe result (*.json) in DIR, as `ridge-probe --out-dir DIR` writes them\n"
	"under srun, mpirun or torchrun (DIR/<host>-gpu<N>.json), groups the GPUs by model, and for\n"
	"each ceiling (HBM, L2, vector and tensor rates, cuBLAS per dtype, launch and graph-node\n"
	"costs, pointer-chase latencies, SM clock; power is shown, never flagged) prints the fleet's\n"
	"median, P5 .. P95 and MAD, and flags the GPUs short of the median by the threshold or more\n"
	"(a rate under it, a latency over it), with host, GPU index and UUID; then the hosts whose\n"
	"every GPU is short on one ceiling (cooling, power, a throttled node).\n"
	"With DIR2 (a second run of the fleet: after a driver update) the flags are DIR2's, and each\n"
	"ceiling's fleet median is compared before -> after by ridge compare's rule (noise below\n"
	"either run's standard deviation over its GPUs; improvement beyond it and > 3%).\n"
	"A file that is not a readable result (not JSON, cut short, over 16 MiB, a key twice, not\n"
	"ridge-probe's, a GPU another file claims too) is an input error naming it (exit 2), unless\n"
	"--skip-bad: then it is listed as a finding and the rest are analysed.\n"
	"Exit status: 0 no GPU flagged; 1 a GPU flagged, a ceiling regressed, or (--skip-bad) an\n"
	"unreadable result; 2 bad usage or input.\n";

static const struct param fleet_param_rows[] = PARAMS_ROWS(FLEET_PARAMS);

const struct params_command fleet_params_command = {
	.name = "fleet",
	PARAMS_COMMAND_TABLE(fleet_param_rows),
	.synopsis = fleet_synopsis,
	.description = fleet_description,
	.operands = 2,
};
