/* ridge compare's pairing and views: each name of the base run against the
 * same name after (compare_decide), the table on a stream and the --json
 * document. */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "format.h"
#include "json_fields.h"
#include "json_out.h"

static const struct compare_series *find_series(const struct compare_run *run, const char *name)
{
	int i = name_table_find(&run->names, name, strlen(name));
	return i >= 0 ? &run->series[i] : NULL;
}

static int pair_runs(struct comparison *c, struct app_status *st)
{
	c->rows = calloc((size_t)(c->base.count + c->after.count), sizeof *c->rows);
	if (!c->rows) {
		app_error(st, "out of memory");
		return -1;
	}
	for (int i = 0; i < c->base.count; i++) {
		struct compare_row *r = &c->rows[c->count++];
		r->base = &c->base.series[i];
		r->after = find_series(&c->after, r->base->name);
		if (!r->after) {
			c->only_base++;
			continue;
		}
		if (strcmp(r->base->unit, r->after->unit) != 0) {
			app_error(st, "'%s' is in '%s' in the base but in '%s' after: compare like with like",
				  r->base->name, r->base->unit, r->after->unit);
			return -1;
		}
		r->verdict = compare_decide(r->base, r->after, c->threshold, &r->delta, &r->delta_fraction);
		c->verdicts[r->verdict]++;
	}
	for (int j = 0; j < c->after.count; j++) {
		if (!find_series(&c->base, c->after.series[j].name)) {
			c->rows[c->count++].after = &c->after.series[j];
			c->only_after++;
		}
	}
	return 0;
}

int comparison_open(struct comparison *c, struct app_status *st)
{
	if (compare_load(c->base_path, &c->base, st) != 0 || compare_load(c->after_path, &c->after, st) != 0)
		return -1;
	if (c->base.kind != c->after.kind) {
		app_error(st, "'%s' is %s JSON but '%s' is %s JSON: compare runs of one kind", c->base_path,
			  compare_kind_name(c->base.kind), c->after_path, compare_kind_name(c->after.kind));
		return -1;
	}
	if (pair_runs(c, st) != 0)
		return -1;
	if (c->count == c->only_base + c->only_after) {
		app_error(st, "'%s' and '%s' have no name in common", c->base_path, c->after_path);
		return -1;
	}
	return 0;
}

void comparison_close(struct comparison *c)
{
	free(c->rows);
	c->rows = NULL;
	compare_free(&c->base);
	compare_free(&c->after);
}

/* ---- text ---- */

static void format_value(double v, const char *unit, char *buf, size_t len)
{
	if (strcmp(unit, "s") == 0)
		fmt_seconds(v, buf, len);
	else
		snprintf(buf, len, "%.4g%s%s", v, unit[0] ? " " : "", unit);
}

static void print_row(FILE *out, const struct compare_row *r, int width)
{
	char b[32], a[32], d[32], sb[32], sa[32], delta[48], sd[64];
	format_value(r->base->center, r->base->unit, b, sizeof b);
	format_value(r->after->center, r->after->unit, a, sizeof a);
	format_value(r->delta, r->base->unit, d, sizeof d);
	format_value(r->base->stddev, r->base->unit, sb, sizeof sb);
	format_value(r->after->stddev, r->after->unit, sa, sizeof sa);
	if (isnan(r->delta_fraction))
		snprintf(delta, sizeof delta, "%s%s (n/a)", r->delta > 0 ? "+" : "", d);
	else
		snprintf(delta, sizeof delta, "%s%s (%+.1f%%)", r->delta > 0 ? "+" : "", d, 100 * r->delta_fraction);
	snprintf(sd, sizeof sd, "%s / %s", sb, sa);
	fprintf(out, "  %-*.*s %12s %12s %22s %25s  %s%s\n", width, width, r->base->name, b, a, delta, sd,
		compare_verdict_name(r->verdict), r->base->higher_is_better ? " (higher is better)" : "");
}

void comparison_print(FILE *out, const struct comparison *c)
{
	int width = 4;
	for (int i = 0; i < c->count; i++) {
		const struct compare_series *s = c->rows[i].base ? c->rows[i].base : c->rows[i].after;
		int n = (int)strlen(s->name);
		width = n > width ? (n < 40 ? n : 40) : width;
	}
	fprintf(out,
		"%s (%s) -> %s (%s); medians; rule: noise below either stddev, improvement beyond it and > %.4g%%\n\n",
		c->base_path, compare_kind_name(c->base.kind), c->after_path, compare_kind_name(c->after.kind),
		c->threshold * 100);
	fprintf(out, "  %-*s %12s %12s %22s %25s  %s\n", width, "name", "base", "after", "delta", "stddev base / after",
		"verdict");
	for (int i = 0; i < c->count; i++)
		if (c->rows[i].base && c->rows[i].after)
			print_row(out, &c->rows[i], width);
	for (int i = 0; i < c->count; i++)
		if (!c->rows[i].base || !c->rows[i].after)
			fprintf(out, "  %-*.*s only in %s\n", width, width,
				c->rows[i].base ? c->rows[i].base->name : c->rows[i].after->name,
				c->rows[i].base ? "base" : "after");
	fprintf(out, "\n%d regression%s, %d improvement%s, %d better by %.4g%% or less, %d within noise",
		c->verdicts[COMPARE_REGRESSION], c->verdicts[COMPARE_REGRESSION] == 1 ? "" : "s",
		c->verdicts[COMPARE_IMPROVEMENT], c->verdicts[COMPARE_IMPROVEMENT] == 1 ? "" : "s",
		c->verdicts[COMPARE_BETTER], c->threshold * 100, c->verdicts[COMPARE_NOISE]);
	if (c->only_base || c->only_after)
		fprintf(out, "; %d only in base, %d only in after", c->only_base, c->only_after);
	fprintf(out, "\n");
}

/* ---- JSON ---- */

static const struct json_field series_fields[] = {
	JSON_FIELD_AS(struct compare_series, "median", center),
	JSON_FIELDS(struct compare_series, stddev, samples),
};

static cJSON *series_json(const struct compare_series *s)
{
	cJSON *o = cJSON_CreateObject();
	json_put_fields(o, s, series_fields, JSON_FIELD_COUNT(series_fields));
	return o;
}

static cJSON *row_json(const struct compare_row *r)
{
	const struct compare_series *s = r->base ? r->base : r->after;
	cJSON *e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "name", s->name);
	cJSON_AddStringToObject(e, "unit", s->unit);
	cJSON_AddBoolToObject(e, "higher_is_better", s->higher_is_better);
	if (r->base)
		cJSON_AddItemToObject(e, "base", series_json(r->base));
	if (r->after)
		cJSON_AddItemToObject(e, "after", series_json(r->after));
	if (r->base && r->after) {
		json_number(e, "delta", r->delta);
		if (isnan(r->delta_fraction)) /* from a zero base: no relative change */
			cJSON_AddNullToObject(e, "delta_fraction");
		else
			json_number(e, "delta_fraction", r->delta_fraction);
		cJSON_AddStringToObject(e, "verdict", compare_verdict_name(r->verdict));
	} else {
		cJSON_AddStringToObject(e, "verdict", r->base ? "only_in_base" : "only_in_after");
	}
	return e;
}

cJSON *comparison_json(const struct comparison *c)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "base", c->base_path);
	cJSON_AddStringToObject(doc, "after", c->after_path);
	cJSON_AddStringToObject(doc, "kind", compare_kind_name(c->base.kind));
	json_number(doc, "threshold", c->threshold);
	cJSON *list = cJSON_AddArrayToObject(doc, "entries");
	for (int i = 0; i < c->count; i++)
		cJSON_AddItemToArray(list, row_json(&c->rows[i]));
	cJSON_AddNumberToObject(doc, "regressions", c->verdicts[COMPARE_REGRESSION]);
	cJSON_AddNumberToObject(doc, "improvements", c->verdicts[COMPARE_IMPROVEMENT]);
	cJSON_AddNumberToObject(doc, "better", c->verdicts[COMPARE_BETTER]);
	cJSON_AddNumberToObject(doc, "noise", c->verdicts[COMPARE_NOISE]);
	return doc;
}

/* ---- the command line: ridge compare BASE AFTER ---- */

static const char compare_synopsis[] = "usage: ridge compare BASE.json AFTER.json [--threshold F] [--json]";
static const char compare_description[] =
	"Compares two benchmark runs name by name: ridge-probe JSON (each measurement's\n"
	"seconds), validation JSON (measured_s with its cv) or any JSON list of\n"
	"{\"name\", \"samples\": [...]} (samples are costs, lower is better, unless the file or\n"
	"the item says \"better\": \"higher\"). Per name: the medians, the delta, each run's\n"
	"standard deviation and the verdict:\n"
	"  noise        |delta| below either run's standard deviation\n"
	"  improvement  beyond both and better by more than the threshold (3%)\n"
	"  better       beyond both, better by less than the threshold\n"
	"  regression   beyond both and worse, by any amount\n"
	"From a median of 0 a change has no relative size (shown n/a): beyond the noise it\n"
	"is an improvement or a regression. Numbers past 1e100 in magnitude, a key given\n"
	"twice and text after the JSON are refused.\n"
	"Exit status: 0 no regression, 1 at least one regression, 2 bad input.\n";

static const struct param compare_params[] = PARAMS_ROWS(COMPARE_PARAMS);

const struct params_command compare_params_command = {
	.name = "compare",
	PARAMS_COMMAND_TABLE(compare_params),
	.synopsis = compare_synopsis,
	.description = compare_description,
	.operands = 2,
	.need = "compare needs two files, BASE.json and AFTER.json (see 'ridge compare --help')",
};
