/* One table of inputs per calculator, read from the command line (--name-with-dashes)
 * or from a scenario file item (name_with_underscores) with the same parsing,
 * ranges and messages. An error names where the value came from: the flag
 * ("--mfu") or the file position and key ("x.yaml:12:10: mfu"). */
#ifndef RIDGE_PARAMS_H
#define RIDGE_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#include "json_fields.h"

#include "units.h"

enum param_kind {
	PARAM_NUMBER,   /* a quantity in unit; a bare number is in bare_unit */
	PARAM_INTEGER,  /* a whole number (suffixes allowed: 1M) */
	PARAM_FRACTION, /* 0.4 or 40% */
	PARAM_TEXT,     /* a word: a GPU id, a dtype, a choice */
	PARAM_FLAG,     /* on/off: a flag with no value; true/false in a file */
	PARAM_LIST      /* a list of mappings (files only): read by the calculator */
};

enum {
	PARAM_REQUIRED = 1u << 0, /* must be given */
	PARAM_MODEL = 1u << 1,    /* may come from a scenario's model section */
	PARAM_CLI_ONLY = 1u << 2, /* command line only (--json, --hwdb) */
	PARAM_FILE_ONLY = 1u << 3,
	PARAM_OPEN_LO = 1u << 4, /* lo itself is out of range */
	/* PARAM_TEXT: in a file also a list, its elements (scalars, or one-key
	 * mappings `name: value`) joined as "a,b,name=c" (ridge align's dims). */
	PARAM_JOIN = 1u << 5,
	/* PARAM_NUMBER: a whole number of the unit (bytes); one message for a
	 * fraction and for out of range: "'1e300' is not a whole number of
	 * bytes from 0 to 1 GiB". */
	PARAM_WHOLE = 1u << 6,
};

struct param {
	const char *name; /* snake_case; the flag is --name with '_' as '-' */
	enum param_kind kind;
	enum ridge_unit unit; /* PARAM_NUMBER */
	const char
		*bare_unit; /* PARAM_NUMBER: the unit of a bare number ("us": --launch-us 5 is 5 us); NULL: base unit */
	double lo, hi;      /* NUMBER, INTEGER, FRACTION */
	unsigned flags;
	const char *metavar; /* for usage: "K", "USD" */
	const char *help;
	const char *range; /* for messages: "0 < MFU <= 1"; NULL: derived from lo, hi */
	/* The value used when none is given, as text parsed like the input
	 * ("1", "32KiB", "bf16"): generated --help says "(default X)" after help
	 * (not for a required input), and the TUI starts its field from it (for
	 * a required input the example it starts from). NULL: none, or one the
	 * help text explains in words. */
	const char *def;
};

#define PARAM_MAX 48
#define PARAM_WHERE 600 /* the longest position text callers build ("file:12:10: key") */

struct param_values {
	const struct param *spec;
	int count;
	bool set[PARAM_MAX];
	bool bad[PARAM_MAX]; /* given, but rejected (already reported) */
	double num[PARAM_MAX];
	const char *text[PARAM_MAX]; /* the text as given (argv or the file) */
	const void *node[PARAM_MAX]; /* PARAM_LIST: the file's node */
	/* Where each value came from, "file:12:10: mfu", or NULL for the flag
	 * ("--mfu"): a pointer, not a copy, so that an item of a scenario
	 * costs what it holds (the file's texts live as long as the scenario). */
	const char *where[PARAM_MAX];
};

void params_init(struct param_values *v, const struct param *spec, int count);
/* The first required parameter not given (and not given badly), or -1. */
int params_missing(const struct param_values *v);
int params_index(const struct param *spec, int count, const char *name); /* -1 when absent */

/* Parses text for parameter i. On error adds "<where>: <reason>" to st
 * and returns -1. A flag takes text "true"/"false" (NULL means true). where
 * is kept by pointer: it must live as long as v (NULL: the flag, "--name"). */
struct app_status;
int params_set(struct param_values *v, int i, const char *text, const char *where, struct app_status *st);

/* Access by name; the name must be in the table (a programming error aborts). */
bool params_has(const struct param_values *v, const char *name);
double params_num(const struct param_values *v, const char *name);
/* Each row's member of dst from the number of the parameter its key names
 * (util/json_fields.h rows: JSON_FIELDS(struct ridge_train_input, params,
 * seq, batch)): what a calculator copies into its model input. Rows of
 * number kinds only; a bool member takes params_flag. */
void params_read_fields(const struct param_values *v, void *dst, const struct json_field *fields, size_t count);
const char *params_text(const struct param_values *v, const char *name);
const char *params_where(const struct param_values *v, const char *name);
const char *params_where_at(const struct param_values *v, int i);
bool params_flag(const struct param_values *v, const char *name);
const void *params_node(const struct param_values *v, const char *name);

/* "--kernels-per-layer" for name "kernels_per_layer". */
void params_flag_name(const char *name, char *buf, size_t len);

/* The range as messages state it: "1..1024", "0 < MFU <= 1". */
void params_range_text(const struct param *p, char *buf, size_t len);

/* A PARAM_NUMBER's text in its unit, a bare number in its bare_unit
 * ("--overhead-ms 2" is 2 ms): the parse of params_set, for a front end
 * that reads one value (the TUI's fields). Returns 0, or -1 with a reason. */
int params_parse_number(const struct param *p, const char *text, double *value, char *err, size_t err_len);

/* Parses a fraction: "0.4", "40%". Returns 0, or -1 with a reason. */
int params_parse_fraction(const char *text, double *out, char *err, size_t err_len);

#endif
