/* ridge compare's reading and decision rule (compare.h). */
#include "compare.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "median.h"
#include "name_table.h"
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

/* A number a run can hold: finite and at most READ_MAX_COMPARE_MAGNITUDE in
 * magnitude, so that no mean, square or difference of them overflows (an
 * overflowed standard deviation once called a -100 % change noise). */
static bool in_range(double v)
{
	return isfinite(v) && fabs(v) <= READ_MAX_COMPARE_MAGNITUDE;
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
		if (!cJSON_IsNumber(v) || !in_range(v->valuedouble)) {
			free(values);
			snprintf(why, why_len, "'%s': sample %d is not a finite number within +-%g", s->name, i + 1,
				 READ_MAX_COMPARE_MAGNITUDE);
			return -1;
		}
		values[i++] = v->valuedouble;
	}
	summarize(values, n, s);
	free(values);
	return 0;
}

/* A GEMM dimension or a size as a probe writes one: a whole number from 1
 * to 2^53, or absent (0). -1: present but not one ("m": 1e300 printed 301
 * digits, cut to the same name every time, and the renaming looped). */
static int probe_count(const cJSON *m, const char *key, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, key);
	*out = 0;
	if (!v || cJSON_IsNull(v))
		return 0;
	double x = cJSON_GetNumberValue(v);
	if (!cJSON_IsNumber(v) || !(x >= 0) || x > 9007199254740992.0 || x != floor(x))
		return -1;
	*out = x;
	return 0;
}

/* The probe's key for one measurement: its name, with the shape or the size
 * for the sweeps that repeat a name (gemm_bf16 4096x4096x4096, l2_read 4 MiB). */
static int probe_name(const cJSON *m, char *buf, size_t len, char *why, size_t why_len)
{
	const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "name"));
	double mm, nn, kk, bytes;
	if (probe_count(m, "m", &mm) || probe_count(m, "n", &nn) || probe_count(m, "k", &kk) ||
	    probe_count(m, "bytes", &bytes)) {
		snprintf(why, why_len, "'%.80s': m, n, k and bytes must be whole numbers from 0 to 2^53", name);
		return -1;
	}
	bool sweep = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "sweep"));
	if (mm > 0)
		snprintf(buf, len, "%s %.0fx%.0fx%.0f", name, mm, nn, kk);
	else if (sweep && bytes > 0)
		snprintf(buf, len, "%s %.0f B", name, bytes);
	else
		snprintf(buf, len, "%s", name);
	return 0;
}

/* The names a run has given so far, and per name read the next " #k" to
 * try: each name is found in a hash table (pairing two runs of 100,000
 * entries was quadratic) and the renaming never loops. */
struct run_names {
	struct name_table given; /* base names read, in the order first seen */
	int *next_suffix;        /* per given name */
};

static void run_names_free(struct run_names *rn)
{
	name_table_free(&rn->given);
	free(rn->next_suffix);
}

/* s->name: raw as one line of valid UTF-8 (util/name_table.h), or, when a
 * series of run already has that name, "name #2", "name #3", ... (the name
 * cut at a character boundary to leave room for the suffix). */
static int unique_name(struct compare_run *run, struct run_names *rn, const char *raw, struct compare_series *s,
		       char *why, size_t why_len)
{
	char clean[COMPARE_NAME];
	text_line_copy(clean, sizeof clean, raw, strlen(raw));
	int base = name_table_intern(&rn->given, clean, strlen(clean));
	if (base < 0) {
		snprintf(why, why_len, "out of memory");
		return -1;
	}
	if (base == rn->given.count - 1)
		rn->next_suffix[base] = 2;
	snprintf(s->name, sizeof s->name, "%s", clean);
	/* Each try takes a new suffix, and at most run->count names are taken:
	 * this ends within run->count + 1 tries, and over a run the tries add
	 * up to the entries plus the literal "x #k" names that collide. */
	while (name_table_find(&run->names, s->name, strlen(s->name)) >= 0) {
		char suffix[24];
		int n = snprintf(suffix, sizeof suffix, " #%d", rn->next_suffix[base]++);
		text_line_copy(s->name, sizeof s->name - (size_t)n, clean, strlen(clean));
		strcat(s->name, suffix);
	}
	if (name_table_intern(&run->names, s->name, strlen(s->name)) < 0) {
		snprintf(why, why_len, "out of memory");
		return -1;
	}
	return 0;
}

static int load_probe(const cJSON *list, struct compare_run *run, struct run_names *rn, char *why, size_t why_len)
{
	const cJSON *m;
	cJSON_ArrayForEach (m, list) {
		const cJSON *seconds = cJSON_GetObjectItemCaseSensitive(m, "seconds");
		if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(m, "name")) || !cJSON_IsArray(seconds) ||
		    cJSON_GetArraySize(seconds) == 0 ||
		    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "unsupported")))
			continue; /* not run here: nothing to compare */
		struct compare_series *s = &run->series[run->count];
		char name[COMPARE_NAME * 2];
		if (probe_name(m, name, sizeof name, why, why_len) || unique_name(run, rn, name, s, why, why_len))
			return -1;
		snprintf(s->unit, sizeof s->unit, "s");
		if (series_from_samples(seconds, s, why, why_len) != 0)
			return -1;
		run->count++;
	}
	return 0;
}

static int load_validation(const cJSON *list, struct compare_run *run, struct run_names *rn, char *why, size_t why_len)
{
	const cJSON *v;
	cJSON_ArrayForEach (v, list) {
		const char *kernel = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(v, "kernel"));
		const char *shape = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(v, "shape"));
		const cJSON *measured = cJSON_GetObjectItemCaseSensitive(v, "measured_s");
		const cJSON *cv = cJSON_GetObjectItemCaseSensitive(v, "cv");
		if (!kernel || !cJSON_IsNumber(measured) || !in_range(measured->valuedouble) ||
		    (cv && (!cJSON_IsNumber(cv) || !in_range(cv->valuedouble)))) {
			snprintf(why, why_len,
				 "validation case %d has no kernel and measured_s (and cv, if given) within +-%g",
				 run->count + 1, READ_MAX_COMPARE_MAGNITUDE);
			return -1;
		}
		struct compare_series *s = &run->series[run->count];
		char name[COMPARE_NAME * 2];
		snprintf(name, sizeof name, "%s%s%s", kernel, shape ? " " : "", shape ? shape : "");
		if (unique_name(run, rn, name, s, why, why_len))
			return -1;
		snprintf(s->unit, sizeof s->unit, "s");
		/* One median per case, with its coefficient of variation: the
		 * standard deviation is cv x the median. */
		s->samples = 1;
		s->center = measured->valuedouble;
		s->stddev = cv ? fabs(cv->valuedouble * s->center) : 0;
		run->count++;
	}
	return 0;
}

static int load_generic(const cJSON *list, bool higher, const char *unit, struct compare_run *run, struct run_names *rn,
			char *why, size_t why_len)
{
	const cJSON *item;
	cJSON_ArrayForEach (item, list) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(item, "name"));
		if (!name) {
			snprintf(why, why_len, "item %d has no \"name\" string", run->count + 1);
			return -1;
		}
		struct compare_series *s = &run->series[run->count];
		if (unique_name(run, rn, name, s, why, why_len))
			return -1;
		const char *better = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(item, "better"));
		s->higher_is_better = better ? strcmp(better, "higher") == 0 : higher;
		const char *u = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(item, "unit"));
		text_line_copy(s->unit, sizeof s->unit, u ? u : unit, strlen(u ? u : unit));
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
	if (n > READ_MAX_COMPARE_ENTRIES) {
		snprintf(why, why_len, "more than %d entries, the limit of a benchmark file", READ_MAX_COMPARE_ENTRIES);
		return -1;
	}
	struct run_names rn = { .next_suffix = malloc((size_t)(n ? n : 1) * sizeof *rn.next_suffix) };
	name_table_init(&rn.given, READ_MAX_COMPARE_ENTRIES);
	run->series = calloc((size_t)(n ? n : 1), sizeof *run->series);
	if (!run->series || !rn.next_suffix) {
		run_names_free(&rn);
		snprintf(why, why_len, "out of memory");
		return -1;
	}
	int rc = run->kind == COMPARE_PROBE        ? load_probe(list, run, &rn, why, why_len)
		 : run->kind == COMPARE_VALIDATION ? load_validation(list, run, &rn, why, why_len)
						   : load_generic(list, higher, unit, run, &rn, why, why_len);
	run_names_free(&rn);
	if (rc == 0 && run->count == 0) {
		snprintf(why, why_len, "no measurements to compare");
		rc = -1;
	}
	return rc;
}

/* Reads text (the file at path) into run: one strict JSON document (util/json_strict.h). */
int compare_parse(const char *path, const char *text, size_t len, struct compare_run *run, struct app_status *st)
{
	memset(run, 0, sizeof *run);
	name_table_init(&run->names, READ_MAX_COMPARE_ENTRIES);
	struct json_strict_limits lim = { .max_values = READ_MAX_COMPARE_VALUES,
					  .max_depth = 32,
					  .max_open_keys = READ_MAX_JSON_OPEN_KEYS,
					  .what = "benchmark JSON file" };
	cJSON *doc = app_json_parse(path, text, len, &lim, st);
	if (!doc)
		return -1;
	char why[300];
	int rc = load_doc(doc, run, why, sizeof why);
	cJSON_Delete(doc);
	if (rc != 0) {
		app_error(st, "%s: %s", path, why);
		compare_free(run);
	}
	return rc;
}

void compare_free(struct compare_run *run)
{
	name_table_free(&run->names);
	free(run->series);
	run->series = NULL;
	run->count = 0;
}

enum compare_verdict compare_decide(const struct compare_series *base, const struct compare_series *after,
				    double threshold, double *delta, double *delta_fraction)
{
	*delta = after->center - base->center;
	/* From a zero base a change has no relative size (NAN: shown "n/a"), and
	 * any change beyond the noise is larger than every threshold. */
	*delta_fraction = base->center != 0 ? *delta / fabs(base->center) : NAN;
	double noise = fmax(base->stddev, after->stddev);
	if (fabs(*delta) < noise || *delta == 0)
		return COMPARE_NOISE;
	bool better = after->higher_is_better ? *delta > 0 : *delta < 0;
	if (!better)
		return COMPARE_REGRESSION;
	return isnan(*delta_fraction) || fabs(*delta_fraction) > threshold ? COMPARE_IMPROVEMENT : COMPARE_BETTER;
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
	memset(run, 0, sizeof *run);
	size_t len = 0;
	char *text = app_read_file(path, READ_MAX_COMPARE_BYTES, "benchmark JSON file", &len, st);
	if (!text)
		return -1;
	int rc = compare_parse(path, text, len, run, st);
	free(text);
	return rc;
}
