/* One table of inputs per calculator (and per command), read from the command
 * line (--name-with-dashes) or from a scenario file item (name_with_underscores)
 * with the same parsing, ranges and messages. An error names where the value
 * came from: the flag ("--mfu") or the file position and key ("x.yaml:12:10: mfu").
 *
 * A table is an X-macro: each line names a row's index and builds the row
 * with a constructor, so the row and the name code reads it by are one line,
 * and a misspelt name does not compile:
 *
 *   #define GEMM_PARAMS(X)                                                          \
 *           X(GEMM_M, PARAM_INT("m", 1, PARAM_DIM_MAX, .flags = PARAM_REQUIRED,    \
 *                               .metavar = "M", .help = "rows of A and C"))         \
 *           X(GEMM_DTYPE, PARAM_TEXT_ROW("dtype", .metavar = "DT", .help = "...",  \
 *                                        .def = "bf16"))                           \
 *           CALC_GPU_ROWS(X, GEMM)                                                 \
 *           X(GEMM_JSON, CALC_JSON_ROW)
 *   PARAMS_TABLE(gemm_params, GEMM_PARAMS);
 *
 * makes enum gemm_params_index { GEMM_M, GEMM_DTYPE, ..., GEMM_JSON } and
 * static const struct param gemm_params[] = { [GEMM_M] = ..., ... }; a value
 * is read by its index: params_num(v, GEMM_M). Adding a flag is one X line. */
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

/* A row, one constructor per kind, the other fields by name:
 *   .flags     PARAM_REQUIRED, PARAM_OPEN_LO, ... (above)
 *   .metavar   the value's name in --help: "K", "USD"
 *   .help      the --help text (and so the man page's and completions')
 *   .range     the range as messages state it; NULL: derived from lo and hi
 *   .def       the default, as input text (below)
 *   .bare_unit PARAM_NUM: the unit of a bare number ("us")
 * They are initialisers, for a table's X-macro lines. */
/* clang-format off */
#define PARAM_INT(name_, lo_, hi_, ...) { .name = (name_), .kind = PARAM_INTEGER, .lo = (lo_), .hi = (hi_), __VA_ARGS__ }
#define PARAM_NUM(name_, unit_, lo_, hi_, ...) \
	{ .name = (name_), .kind = PARAM_NUMBER, .unit = (unit_), .lo = (lo_), .hi = (hi_), __VA_ARGS__ }
#define PARAM_FRAC(name_, lo_, hi_, ...) { .name = (name_), .kind = PARAM_FRACTION, .lo = (lo_), .hi = (hi_), __VA_ARGS__ }
/* _ROW where the kind's own name (PARAM_TEXT, PARAM_FLAG, PARAM_LIST) is taken. */
#define PARAM_TEXT_ROW(name_, ...) { .name = (name_), .kind = PARAM_TEXT, __VA_ARGS__ }
#define PARAM_FLAG_ROW(name_, ...) { .name = (name_), .kind = PARAM_FLAG, __VA_ARGS__ }
#define PARAM_LIST_ROW(name_, ...) { .name = (name_), .kind = PARAM_LIST, __VA_ARGS__ }
/* clang-format on */

/* The bounds several tables share, so that each is written once. */
#define PARAM_DIM_MAX 1099511627776.0 /* 2^40: a GEMM or kernel dimension, a batch of them */
#define PARAM_COUNT_MAX 1e6           /* layers, heads, GPUs, kernels per layer */
#define PARAM_BATCH_MAX 1e9           /* requests in a batch, prompt tokens, steps */
#define PARAM_TOKENS_MAX 1e12         /* tokens: a context, a trace's output */
#define PARAM_INT32_MAX 2147483647.0  /* what an int holds */
#define PARAM_SMEM_MAX 1073741824.0   /* 1 GiB: shared memory (LDS) per block */
#define PARAM_HOUR_S 3600.0           /* an hour: the longest per-step or latency time */
#define PARAM_NET_BW_MAX 1e15         /* B/s: a network's bandwidth per GPU */
#define PARAM_REGS_MAX 256            /* registers per thread (VGPRs, AGPRs) */

/* A table and its index names from its X-macro LIST (X(INDEX, ROW) lines):
 * enum table##_index { INDEX, ... } and static const struct param table[]. */
/* clang-format off */
#define PARAMS_INDEX_(index, row) index,
#define PARAMS_ROW_(index, row) [index] = row,
#define PARAMS_TABLE(table, LIST)                                   \
	enum table##_index { LIST(PARAMS_INDEX_) };                 \
	static const struct param table[] = { LIST(PARAMS_ROW_) }; \
	_Static_assert(PARAMS_COUNT(table) <= PARAM_MAX, #table ": more rows than PARAM_MAX (params.h)")
/* The same in two halves, for a table cli/ reads: the enum in the header
 * beside the X-macro, the rows in the file that defines the command. */
#define PARAMS_ENUM(table, LIST) enum table##_index { LIST(PARAMS_INDEX_) }
#define PARAMS_ROWS(LIST) { LIST(PARAMS_ROW_) }
/* clang-format on */
#define PARAMS_COUNT(table) ((int)(sizeof(table) / sizeof((table)[0])))

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

#define PARAM_MAX 64    /* rows of one command's table: PARAMS_TABLE checks it when it compiles */
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
	/* The command line's operands, in order, after params_parse (cli/). */
	char **operands;
	int operand_count;
};

void params_init(struct param_values *v, const struct param *spec, int count);
/* The first required parameter not given (and not given badly), or -1. */
int params_missing(const struct param_values *v);
/* The one lookup by name, for generic code (calc_main's "gpu", the TUI's
 * fields, scenario keys, json_fields rows): the index, -1 when absent.
 * A calculator reads its own values by index. */
int params_index(const struct param *spec, int count, const char *name);

/* Parses text for parameter i. On error adds "<where>: <reason>" to st
 * and returns -1. A flag takes text "true"/"false" (NULL means true). where
 * is kept by pointer: it must live as long as v (NULL: the flag, "--name"). */
struct app_status;
int params_set(struct param_values *v, int i, const char *text, const char *where, struct app_status *st);

/* A value by its index in the table (the table's enum: params_num(v, GEMM_M)).
 * An index of -1 (params_index found no such row) reads as not given. */
bool params_has(const struct param_values *v, int i);
double params_num(const struct param_values *v, int i);       /* 0 when not given */
const char *params_text(const struct param_values *v, int i); /* NULL when not given */
bool params_flag(const struct param_values *v, int i);        /* given and true */
const void *params_node(const struct param_values *v, int i); /* PARAM_LIST */
/* Where the value came from: "file:12:10: key", or the flag "--name". */
const char *params_where(const struct param_values *v, int i);
/* Each row's member of dst from the number of the parameter its key names
 * (util/json_fields.h rows: JSON_FIELDS(struct ridge_train_input, params,
 * seq, batch)): what a calculator copies into its model input. Rows of
 * number kinds only; a bool member takes params_flag. Every key must be a
 * row of v's table (a programming error aborts). */
void params_read_fields(const struct param_values *v, void *dst, const struct json_field *fields, size_t count);

/* A command as the option parser (cli/'s params_parse) sees it: its name,
 * its table, its --help and the operands it takes. Defined in app/ beside
 * the table (a calculator's is made from its struct calc). */
enum {
	PARAMS_OPERANDS_ANY = -1, /* .operands: any number; the command checks them */
};
struct params_command {
	const char *name; /* in messages: "cost rank" (see 'ridge cost rank --help') */
	const struct param *params;
	int param_count;
	/* --help: usage as is when given, else generated from the table under
	 * synopsis and description. */
	const char *synopsis, *description, *usage;
	/* At most this many operands (0: none, "takes no arguments");
	 * PARAMS_OPERANDS_ANY: the command checks them. */
	int operands;
	/* Exactly .operands are needed: fewer is this error (the files of
	 * ridge trace, compare, model). NULL: fewer is fine. */
	const char *need;
	bool check_required; /* every PARAM_REQUIRED given, else "--x is required" */
};
#define PARAMS_COMMAND_TABLE(table) .params = (table), .param_count = PARAMS_COUNT(table)

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
