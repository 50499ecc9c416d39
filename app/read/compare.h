/* ridge compare: benchmark bookkeeping, one run against another. Reads
 * ridge-probe JSON (measurements[].seconds), validation JSON (validation[]:
 * measured_s with its cv) or any JSON of {name, samples} (a list, or an
 * object holding one under "results"/"benchmarks"), and decides per name:
 *   noise        |delta| below either run's standard deviation
 *   improvement  beyond both, better by more than the threshold (3 %)
 *   regression   beyond both, worse (any amount)
 *   better       beyond both, better by less than the threshold
 * Samples are costs (times): lower is better, unless the file says
 * "better": "higher" (a whole generic file or one item). */
#ifndef RIDGE_COMPARE_H
#define RIDGE_COMPARE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "calc.h"
#include "name_table.h"
#include "params.h"

enum compare_kind { COMPARE_PROBE, COMPARE_VALIDATION, COMPARE_GENERIC };
enum compare_verdict { COMPARE_NOISE, COMPARE_IMPROVEMENT, COMPARE_BETTER, COMPARE_REGRESSION };

#define COMPARE_NAME 160

struct compare_series {
	char name[COMPARE_NAME];
	char unit[16]; /* "s" for probe and validation files; a generic file's "unit", or "" */
	bool higher_is_better;
	int samples;
	double center; /* median of the samples */
	double stddev; /* sample standard deviation (n - 1); validation: cv x measured; 0 for one sample */
};

struct compare_run {
	enum compare_kind kind;
	int count;
	struct compare_series *series;
	struct name_table names; /* series[i].name is names' i-th: pairing by name is a lookup */
};

struct compare_row {
	const struct compare_series *base, *after; /* either NULL when the name is in one file only */
	double delta;                              /* after - base */
	double delta_fraction;                     /* delta / base; NAN from a zero base */
	enum compare_verdict verdict;
};

/* Reads path into run through the strict JSON reader (no duplicate key, no
 * trailing text, at most READ_MAX_COMPARE_VALUES values and _ENTRIES
 * entries; every number within READ_MAX_COMPARE_MAGNITUDE; names one line of
 * valid UTF-8, unique: "name #2"). Returns 0, or -1 with the reason in st
 * ("x.json:3:1: not valid JSON: ...", "x.json: no measurements"). */
struct app_status;
int compare_load(const char *path, struct compare_run *run, struct app_status *st);
/* The same on text already read (the fuzz harness's entry point). */
int compare_parse(const char *path, const char *text, size_t len, struct compare_run *run, struct app_status *st);
void compare_free(struct compare_run *run);

/* The decision for one name (the rule above); threshold is a fraction (0.03). */
enum compare_verdict compare_decide(const struct compare_series *base, const struct compare_series *after,
				    double threshold, double *delta, double *delta_fraction);

const char *compare_kind_name(enum compare_kind kind);
const char *compare_verdict_name(enum compare_verdict verdict);

/* ---- ridge compare BASE AFTER: the runs paired by name (compare_view.c) ---- */

struct comparison {
	const char *base_path, *after_path;
	double threshold; /* the smallest gain that counts as an improvement (0.03) */
	struct compare_run base, after;
	struct compare_row *rows; /* the names of base in its order, then those only in after */
	int count;
	int verdicts[COMPARE_REGRESSION + 1];
	int only_base, only_after;
};

/* Reads both files of c (paths and threshold set by the caller) and decides
 * each name in both. Returns 0, or -1 with why in st: a file that cannot be
 * read, runs of two kinds, a name in two units, no name in common. Call
 * comparison_close either way. */
int comparison_open(struct comparison *c, struct app_status *st);
/* The table of medians, deltas and verdicts, and the counts, on out. */
void comparison_print(FILE *out, const struct comparison *c);
/* The same as one document, for the front end to print. */
cJSON *comparison_json(const struct comparison *c);
void comparison_close(struct comparison *c);

/* ridge compare BASE AFTER's options (the command: compare_view.c). */
#define COMPARE_PARAMS(X)                                                                          \
	X(COMPARE_THRESHOLD, PARAM_FRAC("threshold", 0, 1, .metavar = "F",                         \
					.help = "the smallest gain that counts as an improvement " \
						"(default 3%)"))                                   \
	X(COMPARE_JSON, CALC_JSON_ROW)
PARAMS_ENUM(compare_params, COMPARE_PARAMS);
extern const struct params_command compare_params_command;

#endif
