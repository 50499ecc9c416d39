/* ridge compare BASE.json AFTER.json: did a change help, hurt, or stay in the
 * noise (cli/compare.h has the rule). Exit 0 no regression, 1 a regression,
 * 2 bad input: for scripts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare.h"
#include "params.h"

static const struct param compare_params[] = {
	{ "threshold", PARAM_FRACTION, 0, NULL, 0, 1, 0, "F",
	  "the smallest gain that counts as an improvement (default 3%)", NULL, NULL },
	{ "json", PARAM_FLAG, 0, NULL, 0, 0, PARAM_CLI_ONLY, NULL, "one JSON document on stdout (SI units)", NULL,
	  NULL },
};
#define COMPARE_PARAM_COUNT (int)(sizeof compare_params / sizeof compare_params[0])

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
	"Exit status: 0 no regression, 1 at least one regression, 2 bad input.\n";

static void format_value(double v, const char *unit, char *buf, size_t len)
{
	if (strcmp(unit, "s") == 0)
		fmt_seconds(v, buf, len);
	else
		snprintf(buf, len, "%.4g%s%s", v, unit[0] ? " " : "", unit);
}

struct comparison {
	struct compare_run base, after;
	struct compare_row *rows;
	int count;
	int verdicts[COMPARE_REGRESSION + 1];
	int only_base, only_after;
};

static int compare_runs(struct comparison *c, double threshold)
{
	c->rows = calloc((size_t)(c->base.count + c->after.count), sizeof *c->rows);
	if (!c->rows) {
		cli_error("out of memory");
		return -1;
	}
	for (int i = 0; i < c->base.count; i++) {
		struct compare_row *r = &c->rows[c->count++];
		r->base = &c->base.series[i];
		for (int j = 0; j < c->after.count && !r->after; j++)
			if (strcmp(c->after.series[j].name, r->base->name) == 0)
				r->after = &c->after.series[j];
		if (!r->after) {
			c->only_base++;
			continue;
		}
		if (strcmp(r->base->unit, r->after->unit) != 0) {
			cli_error("'%s' is in '%s' in the base but in '%s' after: compare like with like",
				  r->base->name, r->base->unit, r->after->unit);
			return -1;
		}
		r->verdict = compare_decide(r->base, r->after, threshold, &r->delta, &r->delta_fraction);
		c->verdicts[r->verdict]++;
	}
	for (int j = 0; j < c->after.count; j++) {
		bool found = false;
		for (int i = 0; i < c->base.count && !found; i++)
			found = strcmp(c->after.series[j].name, c->base.series[i].name) == 0;
		if (!found) {
			c->rows[c->count++].after = &c->after.series[j];
			c->only_after++;
		}
	}
	return 0;
}

static void print_text(const struct comparison *c, const char *base_path, const char *after_path, double threshold)
{
	int width = 4;
	for (int i = 0; i < c->count; i++) {
		const struct compare_series *s = c->rows[i].base ? c->rows[i].base : c->rows[i].after;
		int n = (int)strlen(s->name);
		width = n > width ? (n < 40 ? n : 40) : width;
	}
	printf("%s (%s) -> %s (%s); medians; rule: noise below either stddev, improvement beyond it and > %.4g%%\n\n",
	       base_path, compare_kind_name(c->base.kind), after_path, compare_kind_name(c->after.kind),
	       threshold * 100);
	printf("  %-*s %12s %12s %22s %25s  %s\n", width, "name", "base", "after", "delta", "stddev base / after",
	       "verdict");
	for (int i = 0; i < c->count; i++) {
		const struct compare_row *r = &c->rows[i];
		if (!r->base || !r->after)
			continue;
		char b[32], a[32], d[32], sb[32], sa[32], delta[48], sd[64];
		format_value(r->base->center, r->base->unit, b, sizeof b);
		format_value(r->after->center, r->after->unit, a, sizeof a);
		format_value(r->delta, r->base->unit, d, sizeof d);
		format_value(r->base->stddev, r->base->unit, sb, sizeof sb);
		format_value(r->after->stddev, r->after->unit, sa, sizeof sa);
		snprintf(delta, sizeof delta, "%s%s (%+.1f%%)", r->delta > 0 ? "+" : "", d, 100 * r->delta_fraction);
		snprintf(sd, sizeof sd, "%s / %s", sb, sa);
		printf("  %-*.*s %12s %12s %22s %25s  %s%s\n", width, width, r->base->name, b, a, delta, sd,
		       compare_verdict_name(r->verdict), r->base->higher_is_better ? " (higher is better)" : "");
	}
	for (int i = 0; i < c->count; i++)
		if (!c->rows[i].base || !c->rows[i].after)
			printf("  %-*.*s only in %s\n", width, width,
			       c->rows[i].base ? c->rows[i].base->name : c->rows[i].after->name,
			       c->rows[i].base ? "base" : "after");
	printf("\n%d regression%s, %d improvement%s, %d better by %.4g%% or less, %d within noise",
	       c->verdicts[COMPARE_REGRESSION], c->verdicts[COMPARE_REGRESSION] == 1 ? "" : "s",
	       c->verdicts[COMPARE_IMPROVEMENT], c->verdicts[COMPARE_IMPROVEMENT] == 1 ? "" : "s",
	       c->verdicts[COMPARE_BETTER], threshold * 100, c->verdicts[COMPARE_NOISE]);
	if (c->only_base || c->only_after)
		printf("; %d only in base, %d only in after", c->only_base, c->only_after);
	printf("\n");
}

static cJSON *series_json(const struct compare_series *s)
{
	cJSON *o = cJSON_CreateObject();
	json_number(o, "median", s->center);
	json_number(o, "stddev", s->stddev);
	cJSON_AddNumberToObject(o, "samples", s->samples);
	return o;
}

static int print_json(const struct comparison *c, const char *base_path, const char *after_path, double threshold)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "base", base_path);
	cJSON_AddStringToObject(doc, "after", after_path);
	cJSON_AddStringToObject(doc, "kind", compare_kind_name(c->base.kind));
	json_number(doc, "threshold", threshold);
	cJSON *list = cJSON_AddArrayToObject(doc, "entries");
	for (int i = 0; i < c->count; i++) {
		const struct compare_row *r = &c->rows[i];
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
			json_number(e, "delta_fraction", r->delta_fraction);
			cJSON_AddStringToObject(e, "verdict", compare_verdict_name(r->verdict));
		} else {
			cJSON_AddStringToObject(e, "verdict", r->base ? "only_in_base" : "only_in_after");
		}
		cJSON_AddItemToArray(list, e);
	}
	cJSON_AddNumberToObject(doc, "regressions", c->verdicts[COMPARE_REGRESSION]);
	cJSON_AddNumberToObject(doc, "improvements", c->verdicts[COMPARE_IMPROVEMENT]);
	cJSON_AddNumberToObject(doc, "better", c->verdicts[COMPARE_BETTER]);
	cJSON_AddNumberToObject(doc, "noise", c->verdicts[COMPARE_NOISE]);
	return cli_json_print(doc);
}

static int load_both(struct comparison *c, const char *base_path, const char *after_path)
{
	struct app_status st;
	app_status_init(&st);
	if (compare_load(base_path, &c->base, &st) != 0 || compare_load(after_path, &c->after, &st) != 0) {
		cli_report(&st);
		return -1;
	}
	if (c->base.kind != c->after.kind) {
		cli_error("'%s' is %s JSON but '%s' is %s JSON: compare runs of one kind", base_path,
			  compare_kind_name(c->base.kind), after_path, compare_kind_name(c->after.kind));
		return -1;
	}
	return 0;
}

static int run_compare(int argc, char **argv)
{
	struct param_values v;
	params_init(&v, compare_params, COMPARE_PARAM_COUNT);
	const char *files[2];
	int nfiles = 0;
	int rc = params_parse_argv(&v, "compare", compare_synopsis, compare_description, argc, argv, files, 2, &nfiles);
	if (rc == 1)
		return EXIT_OK;
	if (rc != 0)
		return rc;
	if (nfiles != 2) {
		cli_error("compare needs two files, BASE.json and AFTER.json (see 'ridge compare --help')");
		return EXIT_USAGE;
	}
	double threshold = params_has(&v, "threshold") ? params_num(&v, "threshold") : 0.03;
	struct comparison c = { 0 };
	rc = EXIT_USAGE;
	if (load_both(&c, files[0], files[1]) == 0 && compare_runs(&c, threshold) == 0) {
		if (c.count == c.only_base + c.only_after) {
			cli_error("'%s' and '%s' have no name in common", files[0], files[1]);
		} else {
			int out = params_flag(&v, "json") ? print_json(&c, files[0], files[1], threshold)
							  : (print_text(&c, files[0], files[1], threshold), 0);
			rc = out != 0 ? EXIT_ENV : c.verdicts[COMPARE_REGRESSION] ? EXIT_PROBLEM : EXIT_OK;
		}
	}
	free(c.rows);
	compare_free(&c.base);
	compare_free(&c.after);
	return rc;
}

const struct cli_command cli_cmd_compare = { "compare", run_compare,
					     "two benchmark runs name by name: noise, improvement or regression" };
