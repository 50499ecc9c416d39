/* ridge compare's reading and decision rule (compare.h). */
#include "compare.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "median.h"
#include "names.h"
#include "read_limits.h"

/* Median and sample standard deviation of values (sorted in place). */
static void summarize(double *values, int n, struct compare_series *s)
{
	s->samples = n;
	s->center = ridge_median(values, (size_t)n);
	double mean = 0;
	for (int i = 0; i < n; i++)
		mean += values[i];
	mean /= n;
	double ss = 0;
	for (int i = 0; i < n; i++)
		ss += (values[i] - mean) * (values[i] - mean);
	s->stddev = n > 1 ? sqrt(ss / (n - 1)) : 0;
}

/* Fills s from a JSON array of numbers. Returns 0, or -1 with why. */
static int series_from_samples(const cJSON *samples, struct compare_series *s, char *why, size_t why_len)
{
	int n = cJSON_GetArraySize(samples);
	if (!cJSON_IsArray(samples) || n < 1 || n > READ_MAX_COMPARE_SAMPLES) {
		snprintf(why, why_len, "'%s': samples must be a list of 1 to %d numbers", s->name,
			 READ_MAX_COMPARE_SAMPLES);
		return -1;
	}
	double *values = malloc((size_t)n * sizeof *values);
	if (!values) {
		snprintf(why, why_len, "out of memory");
		return -1;
	}
	int i = 0;
	const cJSON *v;
	cJSON_ArrayForEach (v, samples) {
		if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
			free(values);
			snprintf(why, why_len, "'%s': sample %d is not a finite number", s->name, i + 1);
			return -1;
		}
		values[i++] = v->valuedouble;
	}
	summarize(values, n, s);
	free(values);
	return 0;
}

/* The probe's key for one measurement: its name, with the shape or the size
 * for the sweeps that repeat a name (gemm_bf16 4096x4096x4096, l2_read 4 MiB). */
static void probe_name(const cJSON *m, char *buf, size_t len)
{
	const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "name"));
	double mm = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(m, "m"));
	double nn = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(m, "n"));
	double kk = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(m, "k"));
	double bytes = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(m, "bytes"));
	bool sweep = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "sweep"));
	if (mm > 0)
		snprintf(buf, len, "%s %.0fx%.0fx%.0f", name, mm, nn, kk);
	else if (sweep && bytes > 0)
		snprintf(buf, len, "%s %.0f B", name, bytes);
	else
		snprintf(buf, len, "%s", name);
}

static bool name_taken(const struct compare_run *run, const char *name)
{
	for (int i = 0; i < run->count; i++)
		if (strcmp(run->series[i].name, name) == 0)
			return true;
	return false;
}

/* A name not yet in run: name, or "name #2", "name #3"... */
static void unique_name(const struct compare_run *run, const char *name, char *out, size_t len)
{
	snprintf(out, len, "%s", name);
	for (int k = 2; name_taken(run, out); k++)
		snprintf(out, len, "%s #%d", name, k);
}

static int load_probe(const cJSON *list, struct compare_run *run, char *why, size_t why_len)
{
	const cJSON *m;
	cJSON_ArrayForEach (m, list) {
		const cJSON *seconds = cJSON_GetObjectItemCaseSensitive(m, "seconds");
		if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(m, "name")) || !cJSON_IsArray(seconds) ||
		    cJSON_GetArraySize(seconds) == 0 ||
		    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "unsupported")))
			continue; /* not run here: nothing to compare */
		struct compare_series *s = &run->series[run->count];
		char name[COMPARE_NAME];
		probe_name(m, name, sizeof name);
		unique_name(run, name, s->name, sizeof s->name);
		snprintf(s->unit, sizeof s->unit, "s");
		if (series_from_samples(seconds, s, why, why_len) != 0)
			return -1;
		run->count++;
	}
	return 0;
}

static int load_validation(const cJSON *list, struct compare_run *run, char *why, size_t why_len)
{
	const cJSON *v;
	cJSON_ArrayForEach (v, list) {
		const char *kernel = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(v, "kernel"));
		const char *shape = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(v, "shape"));
		const cJSON *measured = cJSON_GetObjectItemCaseSensitive(v, "measured_s");
		const cJSON *cv = cJSON_GetObjectItemCaseSensitive(v, "cv");
		if (!kernel || !cJSON_IsNumber(measured) || !isfinite(measured->valuedouble)) {
			snprintf(why, why_len, "validation case %d has no kernel and measured_s", run->count + 1);
			return -1;
		}
		struct compare_series *s = &run->series[run->count];
		char name[COMPARE_NAME];
		snprintf(name, sizeof name, "%s%s%s", kernel, shape ? " " : "", shape ? shape : "");
		unique_name(run, name, s->name, sizeof s->name);
		snprintf(s->unit, sizeof s->unit, "s");
		/* One median per case, with its coefficient of variation: the
		 * standard deviation is cv x the median. */
		s->samples = 1;
		s->center = measured->valuedouble;
		s->stddev = cJSON_IsNumber(cv) && isfinite(cv->valuedouble) ? fabs(cv->valuedouble) * s->center : 0;
		run->count++;
	}
	return 0;
}

static int load_generic(const cJSON *list, bool higher, const char *unit, struct compare_run *run, char *why,
			size_t why_len)
{
	const cJSON *item;
	cJSON_ArrayForEach (item, list) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(item, "name"));
		if (!name) {
			snprintf(why, why_len, "item %d has no \"name\" string", run->count + 1);
			return -1;
		}
		struct compare_series *s = &run->series[run->count];
		unique_name(run, name, s->name, sizeof s->name);
		const char *better = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(item, "better"));
		s->higher_is_better = better ? strcmp(better, "higher") == 0 : higher;
		const char *u = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(item, "unit"));
		snprintf(s->unit, sizeof s->unit, "%s", u ? u : unit);
		if (series_from_samples(cJSON_GetObjectItemCaseSensitive(item, "samples"), s, why, why_len) != 0)
			return -1;
		run->count++;
	}
	return 0;
}

/* A list whose items all have "name" and "samples". */
static bool is_samples_list(const cJSON *list)
{
	if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) == 0)
		return false;
	const cJSON *item;
	cJSON_ArrayForEach (item, list)
		if (!cJSON_IsObject(item) || !cJSON_GetObjectItemCaseSensitive(item, "name") ||
		    !cJSON_GetObjectItemCaseSensitive(item, "samples"))
			return false;
	return true;
}

static int load_doc(const cJSON *doc, struct compare_run *run, char *why, size_t why_len)
{
	const cJSON *measurements = cJSON_GetObjectItemCaseSensitive(doc, "measurements");
	const cJSON *validation = cJSON_GetObjectItemCaseSensitive(doc, "validation");
	const cJSON *list = NULL;
	bool higher = false;
	const char *unit = "";
	if (cJSON_IsArray(measurements) && cJSON_GetObjectItemCaseSensitive(doc, "tool")) {
		run->kind = COMPARE_PROBE;
		list = measurements;
	} else if (cJSON_IsArray(validation)) {
		run->kind = COMPARE_VALIDATION;
		list = validation;
	} else {
		run->kind = COMPARE_GENERIC;
		if (is_samples_list(doc))
			list = doc;
		else if (cJSON_IsObject(doc)) {
			const char *keys[] = { "results", "benchmarks", "samples" };
			for (size_t i = 0; i < sizeof keys / sizeof keys[0] && !list; i++)
				if (is_samples_list(cJSON_GetObjectItemCaseSensitive(doc, keys[i])))
					list = cJSON_GetObjectItemCaseSensitive(doc, keys[i]);
			const char *better = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "better"));
			higher = better && strcmp(better, "higher") == 0;
			const char *u = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "unit"));
			unit = u ? u : "";
		}
		if (!list) {
			snprintf(
				why, why_len,
				"not ridge-probe JSON (\"measurements\"), validation JSON (\"validation\") or a list of "
				"{\"name\", \"samples\"}");
			return -1;
		}
	}
	int n = cJSON_GetArraySize(list);
	run->series = calloc((size_t)(n ? n : 1), sizeof *run->series);
	if (!run->series) {
		snprintf(why, why_len, "out of memory");
		return -1;
	}
	int rc = run->kind == COMPARE_PROBE        ? load_probe(list, run, why, why_len)
		 : run->kind == COMPARE_VALIDATION ? load_validation(list, run, why, why_len)
						   : load_generic(list, higher, unit, run, why, why_len);
	if (rc == 0 && run->count == 0) {
		snprintf(why, why_len, "no measurements to compare");
		rc = -1;
	}
	return rc;
}

static int compare_read(const char *path, struct compare_run *run, char *err, size_t err_len, struct app_status *st)
{
	memset(run, 0, sizeof *run);
	size_t len = 0;
	char *text = app_read_file(path, READ_MAX_COMPARE_BYTES, "benchmark JSON file", &len, st);
	if (!text) {
		err[0] = '\0'; /* app_read_file said why */
		return -1;
	}
	const char *end = NULL;
	cJSON *doc = strlen(text) == len ? cJSON_ParseWithOpts(text, &end, 1) : NULL;
	if (!doc) {
		int line, col;
		size_t at = end && strlen(text) == len ? (size_t)(end - text) : strlen(text);
		app_text_position(text, at, &line, &col);
		snprintf(err, err_len, "%s:%d:%d: not valid JSON", path, line, col);
		free(text);
		return -1;
	}
	free(text);
	char why[300];
	int rc = load_doc(doc, run, why, sizeof why);
	cJSON_Delete(doc);
	if (rc != 0) {
		snprintf(err, err_len, "%s: %s", path, why);
		compare_free(run);
	}
	return rc;
}

void compare_free(struct compare_run *run)
{
	free(run->series);
	run->series = NULL;
	run->count = 0;
}

enum compare_verdict compare_decide(const struct compare_series *base, const struct compare_series *after,
				    double threshold, double *delta, double *delta_fraction)
{
	*delta = after->center - base->center;
	*delta_fraction = base->center != 0 ? *delta / fabs(base->center) : 0;
	double noise = fmax(base->stddev, after->stddev);
	if (fabs(*delta) < noise || *delta == 0)
		return COMPARE_NOISE;
	bool better = after->higher_is_better ? *delta > 0 : *delta < 0;
	if (!better)
		return COMPARE_REGRESSION;
	return fabs(*delta_fraction) > threshold ? COMPARE_IMPROVEMENT : COMPARE_BETTER;
}

static const char *const kind_names[] = {
	[COMPARE_PROBE] = "ridge-probe",
	[COMPARE_VALIDATION] = "validation",
	[COMPARE_GENERIC] = "samples",
};

static const char *const verdict_names[] = {
	[COMPARE_NOISE] = "noise",
	[COMPARE_IMPROVEMENT] = "improvement",
	[COMPARE_BETTER] = "better",
	[COMPARE_REGRESSION] = "regression",
};

/* The name of value in names (count of them), or for a value out of range
 * names[fallback]: the generic kind, a regression (the cautious reading). */
static const char *name_or(const char *const *names, int count, int value, int fallback)
{
	const char *name = model_name_of(names, 0, count, value);
	return name ? name : names[fallback];
}

const char *compare_kind_name(enum compare_kind kind)
{
	return name_or(kind_names, COMPARE_GENERIC + 1, (int)kind, COMPARE_GENERIC);
}

const char *compare_verdict_name(enum compare_verdict verdict)
{
	return name_or(verdict_names, COMPARE_REGRESSION + 1, (int)verdict, COMPARE_REGRESSION);
}

int compare_load(const char *path, struct compare_run *run, struct app_status *st)
{
	char err[600];
	if (compare_read(path, run, err, sizeof err, st) == 0)
		return 0;
	if (err[0]) /* else app_read_file has said why */
		app_error(st, "%s", err);
	return -1;
}
