/* ridge fleet's analysis (fleet_calc.h): groups, spreads, flags, nodes, and
 * the comparison of two runs. */
#include "fleet_calc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

void fleet_gpu_label(const struct fleet_gpu *g, char *buf, size_t len)
{
	if (g->gpu_index >= 0)
		snprintf(buf, len, "%s gpu%d", g->host, g->gpu_index);
	else
		snprintf(buf, len, "%s", g->host);
}

/* ---- which ceilings ---- */

static int select_metrics(const struct fleet_run *run, const char *list, bool *selected, struct app_status *st)
{
	for (int m = 0; m < run->metric_count; m++)
		selected[m] = list == NULL;
	if (!list)
		return 0;
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", list);
	char *save = NULL;
	int chosen = 0;
	for (char *name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		int m = fleet_metric_find(run, name);
		if (m < 0) {
			char known[600] = "";
			for (int k = 0; k < run->metric_count; k++)
				snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", k ? " " : "",
					 run->metrics[k].name);
			app_error_flag(st, "--metric", "no ceiling '%s' in the results (they have: %s)", name, known);
			return -1;
		}
		selected[m] = true;
		chosen++;
	}
	if (!chosen) {
		app_error_flag(st, "--metric", "names no ceiling");
		return -1;
	}
	return 0;
}

/* ---- groups: one GPU model each, its GPUs by host and index ---- */

static int compare_placement(const void *a, const void *b, void *run_ptr)
{
	const struct fleet_run *run = run_ptr;
	const struct fleet_gpu *x = &run->gpus[*(const int *)a], *y = &run->gpus[*(const int *)b];
	int c = strcmp(x->model, y->model);
	if (!c)
		c = strcmp(x->host, y->host);
	if (!c)
		c = (x->gpu_index > y->gpu_index) - (x->gpu_index < y->gpu_index);
	return c ? c : strcmp(x->file, y->file);
}

static void note_version(struct fleet_group *g, const char *version)
{
	if (strstr(g->versions, version)) /* close enough: versions are dotted numbers */
		return;
	g->version_count++;
	size_t n = strlen(g->versions);
	snprintf(g->versions + n, sizeof g->versions - n, "%s%s", n ? ", " : "", version);
}

static int build_groups(struct fleet_analysis *a, int *order, struct app_status *st)
{
	const struct fleet_run *run = a->run;
	for (int i = 0; i < run->count;) {
		int j = i;
		while (j < run->count && strcmp(run->gpus[order[j]].model, run->gpus[order[i]].model) == 0)
			j++;
		struct fleet_group *g = &a->groups[a->group_count++];
		const struct fleet_gpu *first = &run->gpus[order[i]];
		snprintf(g->model, sizeof g->model, "%s", first->model);
		snprintf(g->device_name, sizeof g->device_name, "%s", first->device_name);
		g->known_model = first->known_model;
		g->gpu_count = j - i;
		g->gpus = malloc((size_t)g->gpu_count * sizeof *g->gpus);
		if (!g->gpus) {
			app_error(st, "out of memory");
			return -1;
		}
		for (int k = 0; k < g->gpu_count; k++) {
			g->gpus[k] = order[i + k];
			const struct fleet_gpu *gpu = &run->gpus[order[i + k]];
			if (k == 0 || strcmp(gpu->host, run->gpus[order[i + k - 1]].host) != 0)
				g->host_count++;
			note_version(g, gpu->version);
		}
		i = j;
	}
	return 0;
}

/* ---- one group: spreads and flags ---- */

/* Room for one more item in a growing array of count items (doubling from
 * first). Returns 0, or -1 with "out of memory" in st. */
static int room_for_one(void **items, int count, int *capacity, size_t size, int first, struct app_status *st)
{
	if (count < *capacity)
		return 0;
	int grown_capacity = *capacity ? 2 * *capacity : first;
	void *grown = realloc(*items, (size_t)grown_capacity * size);
	if (!grown) {
		app_error(st, "out of memory");
		return -1;
	}
	*items = grown;
	*capacity = grown_capacity;
	return 0;
}

static int add_flag(struct fleet_group *g, int *capacity, const struct fleet_flag *f, struct app_status *st)
{
	if (room_for_one((void **)&g->flags, g->flag_count, capacity, sizeof *g->flags, 16, st))
		return -1;
	g->flags[g->flag_count++] = *f;
	return 0;
}

static double sample_stddev(const double *values, int n)
{
	if (n < 2)
		return 0;
	double mean = 0, ss = 0;
	for (int i = 0; i < n; i++)
		mean += values[i];
	mean /= n;
	for (int i = 0; i < n; i++)
		ss += (values[i] - mean) * (values[i] - mean);
	return sqrt(ss / (n - 1));
}

/* The spread of each selected metric over the group (values and scratch:
 * gpu_count doubles each). */
static void group_spreads(const struct fleet_analysis *a, struct fleet_group *g, double *values, double *scratch)
{
	const struct fleet_run *run = a->run;
	for (int m = 0; m < run->metric_count; m++) {
		if (!a->selected[m])
			continue;
		int n = 0, specs = 0;
		for (int k = 0; k < g->gpu_count; k++) {
			const struct fleet_gpu *gpu = &run->gpus[g->gpus[k]];
			if (!isnan(gpu->value[m]))
				values[n++] = gpu->value[m];
			if (isfinite(gpu->spec[m]) && gpu->spec[m] > 0)
				scratch[specs++] = gpu->spec[m];
		}
		if (n == 0)
			continue;
		struct fleet_stat *s = &g->stats[g->stat_count++];
		s->metric = m;
		s->spec = specs ? ridge_median(scratch, (size_t)specs) : NAN;
		s->stddev = sample_stddev(values, n);
		ridge_spread_compute(values, scratch, (size_t)n, &s->spread);
	}
}

static int group_flags(const struct fleet_analysis *a, struct fleet_group *g, struct app_status *st)
{
	const struct fleet_run *run = a->run;
	int capacity = 0;
	g->flag_start = malloc(((size_t)g->gpu_count + 1) * sizeof *g->flag_start);
	if (!g->flag_start) {
		app_error(st, "out of memory");
		return -1;
	}
	for (int k = 0; k < g->gpu_count; k++) {
		const struct fleet_gpu *gpu = &run->gpus[g->gpus[k]];
		g->flag_start[k] = g->flag_count;
		bool any = false;
		for (int s = 0; s < g->stat_count; s++) {
			struct fleet_stat *stat = &g->stats[s];
			const struct fleet_metric *metric = &run->metrics[stat->metric];
			double v = gpu->value[stat->metric];
			if (isnan(v))
				continue;
			struct fleet_flag f = {
				.gpu = g->gpus[k],
				.metric = stat->metric,
				.value = v,
				.shortfall = ridge_shortfall(v, stat->spread.median, metric->direction),
				.below_median = ridge_fleet_flagged(v, stat->spread.median, metric->direction,
								    a->options.threshold),
				.below_spec = a->options.spec_floor > 0 && !isnan(stat->spec) &&
					      metric->direction == RIDGE_HIGHER_IS_BETTER &&
					      v < a->options.spec_floor * stat->spec,
			};
			if (!f.below_median && !f.below_spec)
				continue;
			if (add_flag(g, &capacity, &f, st) != 0)
				return -1;
			stat->flagged++;
			any = true;
		}
		g->flagged_gpus += any;
	}
	g->flag_start[g->gpu_count] = g->flag_count;
	return 0;
}

/* ---- the node view: hosts whose every GPU is short on one ceiling ---- */

/* The flag of the GPU at position k of g on metric, or NULL. */
static const struct fleet_flag *flag_of(const struct fleet_group *g, int k, int metric)
{
	for (int f = g->flag_start[k]; f < g->flag_start[k + 1]; f++)
		if (g->flags[f].metric == metric)
			return &g->flags[f];
	return NULL;
}

/* The host of GPUs [from, to) of g: a node entry when it has two GPUs or
 * more and every one is flagged on some ceiling. */
static int host_node(struct fleet_analysis *a, struct fleet_group *g, int from, int to, int *capacity,
		     struct app_status *st)
{
	struct fleet_node node;
	memset(&node, 0, sizeof node);
	snprintf(node.host, sizeof node.host, "%s", a->run->gpus[g->gpus[from]].host);
	node.gpus = to - from;
	for (int s = 0; s < g->stat_count && node.gpus >= 2; s++) {
		int metric = g->stats[s].metric, k;
		double shortfalls[FLEET_MAX_METRICS * 4];
		int n = 0;
		for (k = from; k < to; k++) {
			const struct fleet_flag *f = flag_of(g, k, metric);
			if (!f || !f->below_median)
				break;
			if (n < (int)(sizeof shortfalls / sizeof shortfalls[0]))
				shortfalls[n++] = f->shortfall;
		}
		if (k < to)
			continue;
		node.metrics[node.metric_count] = metric;
		node.shortfall[node.metric_count++] = ridge_median(shortfalls, (size_t)n);
	}
	if (!node.metric_count)
		return 0;
	if (room_for_one((void **)&g->nodes, g->node_count, capacity, sizeof *g->nodes, 8, st))
		return -1;
	g->nodes[g->node_count++] = node;
	a->flagged_nodes++;
	return 0;
}

static int group_nodes(struct fleet_analysis *a, struct fleet_group *g, struct app_status *st)
{
	int capacity = 0;
	if (!g->flag_count)
		return 0;
	for (int i = 0; i < g->gpu_count;) {
		int j = i;
		while (j < g->gpu_count && strcmp(a->run->gpus[g->gpus[j]].host, a->run->gpus[g->gpus[i]].host) == 0)
			j++;
		if (host_node(a, g, i, j, &capacity, st) != 0)
			return -1;
		i = j;
	}
	return 0;
}

int fleet_analyze(const struct fleet_run *run, const struct fleet_options *options, struct fleet_analysis *out,
		  struct app_status *st)
{
	memset(out, 0, sizeof *out);
	out->run = run;
	out->options = *options;
	if (run->count == 0) {
		app_error(st, "'%s' holds no readable ridge-probe result (%d *.json file%s)", run->dir, run->files,
			  run->files == 1 ? "" : "s");
		return -1;
	}
	if (select_metrics(run, options->metric, out->selected, st) != 0)
		return -1;
	int *order = malloc((size_t)run->count * sizeof *order);
	double *values = malloc((size_t)run->count * sizeof *values);
	double *scratch = malloc((size_t)run->count * sizeof *scratch);
	out->groups = calloc((size_t)run->count, sizeof *out->groups);
	int rc = order && values && scratch && out->groups ? 0 : -1;
	if (rc != 0)
		app_error(st, "out of memory");
	for (int i = 0; rc == 0 && i < run->count; i++)
		order[i] = i;
	if (rc == 0) {
		qsort_r(order, (size_t)run->count, sizeof *order, compare_placement, (void *)run);
		rc = build_groups(out, order, st);
	}
	for (int i = 0; rc == 0 && i < out->group_count; i++) {
		struct fleet_group *g = &out->groups[i];
		group_spreads(out, g, values, scratch);
		rc = group_flags(out, g, st);
		if (rc == 0)
			rc = group_nodes(out, g, st);
		out->flagged_gpus += g->flagged_gpus;
	}
	free(order);
	free(values);
	free(scratch);
	return rc;
}

void fleet_analysis_free(struct fleet_analysis *a)
{
	for (int i = 0; a->groups && i < a->group_count; i++) {
		free(a->groups[i].gpus);
		free(a->groups[i].flags);
		free(a->groups[i].flag_start);
		free(a->groups[i].nodes);
	}
	free(a->groups);
	a->groups = NULL;
	a->group_count = 0;
}

/* ---- two runs ---- */

static const struct fleet_group *find_group(const struct fleet_analysis *a, const char *model)
{
	for (int i = 0; i < a->group_count; i++)
		if (strcmp(a->groups[i].model, model) == 0)
			return &a->groups[i];
	return NULL;
}

static const struct fleet_stat *find_stat(const struct fleet_analysis *a, const struct fleet_group *g, const char *name)
{
	for (int s = 0; s < g->stat_count; s++)
		if (strcmp(a->run->metrics[g->stats[s].metric].name, name) == 0)
			return &g->stats[s];
	return NULL;
}

static void series_of(const struct fleet_analysis *a, const struct fleet_stat *s, struct compare_series *out)
{
	const struct fleet_metric *m = &a->run->metrics[s->metric];
	memset(out, 0, sizeof *out);
	snprintf(out->name, sizeof out->name, "%s", m->name);
	snprintf(out->unit, sizeof out->unit, "%s", m->unit);
	out->higher_is_better = m->direction == RIDGE_HIGHER_IS_BETTER;
	out->samples = (int)s->spread.count;
	out->center = s->spread.median;
	out->stddev = s->stddev;
}

static void gpu_identity(const struct fleet_gpu *g, char *buf, size_t len)
{
	if (g->uuid[0])
		snprintf(buf, len, "%s", g->uuid);
	else
		fleet_gpu_label(g, buf, len);
}

#define FLEET_KEY 200

static int compare_key_text(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The identities of run's GPUs, sorted (count x FLEET_KEY bytes), or NULL. */
static char *sorted_identities(const struct fleet_run *run)
{
	char *keys = malloc((size_t)(run->count ? run->count : 1) * FLEET_KEY);
	if (!keys)
		return NULL;
	for (int i = 0; i < run->count; i++)
		gpu_identity(&run->gpus[i], keys + (size_t)i * FLEET_KEY, FLEET_KEY);
	qsort(keys, (size_t)run->count, FLEET_KEY, compare_key_text);
	return keys;
}

/* The GPUs of one run that the other lacks (by UUID, else host and index). */
static void missing_gpus(const struct fleet_run *from, const struct fleet_run *other, const char *other_keys,
			 const char *which, int *count, struct fleet_comparison *c)
{
	for (int i = 0; i < from->count; i++) {
		char key[FLEET_KEY];
		gpu_identity(&from->gpus[i], key, sizeof key);
		if (bsearch(key, other_keys, (size_t)other->count, FLEET_KEY, compare_key_text))
			continue;
		++*count;
		if (c->missing_listed < FLEET_MISSING_LISTED) {
			char label[160];
			fleet_gpu_label(&from->gpus[i], label, sizeof label);
			snprintf(c->missing[c->missing_listed++], sizeof c->missing[0], "%s (only %s)", label, which);
		}
	}
}

int fleet_compare(const struct fleet_analysis *base, const struct fleet_analysis *after, struct fleet_comparison *out,
		  struct app_status *st)
{
	memset(out, 0, sizeof *out);
	out->changes = calloc((size_t)after->group_count * FLEET_MAX_METRICS, sizeof *out->changes);
	if (!out->changes) {
		app_error(st, "out of memory");
		return -1;
	}
	for (int i = 0; i < after->group_count; i++) {
		const struct fleet_group *ga = &after->groups[i];
		const struct fleet_group *gb = find_group(base, ga->model);
		for (int s = 0; gb && s < ga->stat_count; s++) {
			const struct fleet_stat *sa = &ga->stats[s];
			const struct fleet_stat *sb = find_stat(base, gb, after->run->metrics[sa->metric].name);
			if (!sb || after->run->metrics[sa->metric].direction == RIDGE_NO_DIRECTION)
				continue;
			struct fleet_change *ch = &out->changes[out->count++];
			ch->base_group = gb;
			ch->after_group = ga;
			ch->base = sb;
			ch->after = sa;
			series_of(base, sb, &ch->base_series);
			series_of(after, sa, &ch->after_series);
			/* With fewer than 3 GPUs of a model in a run there is no spread to
			 * judge a change against (one GPU: a standard deviation of 0, so
			 * a 0.1 % move would be a regression): the flag threshold is the
			 * noise then, the rule a single GPU of the fleet is held to. */
			if (sb->spread.count < 3 || sa->spread.count < 3) {
				double floor = after->options.threshold * fabs(sb->spread.median);
				ch->base_series.stddev = fmax(ch->base_series.stddev, floor);
				ch->after_series.stddev = fmax(ch->after_series.stddev, floor);
			}
			ch->verdict = compare_decide(&ch->base_series, &ch->after_series, 0.03, &ch->delta,
						     &ch->delta_fraction);
			out->verdicts[ch->verdict]++;
		}
	}
	if (out->count == 0) {
		app_error(st, "'%s' and '%s' have no GPU model and ceiling in common", base->run->dir, after->run->dir);
		return -1;
	}
	char *base_keys = sorted_identities(base->run), *after_keys = sorted_identities(after->run);
	if (!base_keys || !after_keys) {
		free(base_keys);
		free(after_keys);
		app_error(st, "out of memory");
		return -1;
	}
	missing_gpus(base->run, after->run, after_keys, "before", &out->only_base, out);
	missing_gpus(after->run, base->run, base_keys, "after", &out->only_after, out);
	free(base_keys);
	free(after_keys);
	return 0;
}

void fleet_comparison_free(struct fleet_comparison *c)
{
	free(c->changes);
	c->changes = NULL;
	c->count = 0;
}
