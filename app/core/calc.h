/* A calculator as both the command line and scenario files (ridge eval) see
 * it: a table of inputs (params.h), a run function that calls model/ and
 * returns the result as JSON (the --json document, SI units), and an optional
 * human printer reading that same JSON. The command line and a scenario item
 * therefore parse, compute and print through one path. */
#ifndef RIDGE_CALC_H
#define RIDGE_CALC_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#include "gpu.h"
#include "params.h"
#include "format.h"

struct eval_item;

struct calc_input {
	const struct param_values *values;
	const struct ridge_gpu *gpu; /* NULL for calculators that need none */
	struct eval_item *item;      /* the scenario item; NULL on the command line */
	/* Why run returned NULL, without the location: the front end puts it
	 * (the command line as is, ridge eval after the item's position). */
	char err[512];
	/* Where a run reports what carries its own location (a model config
	 * it reads: file:line:col) and its warnings; never NULL. A run that
	 * fails with err empty has said why here. */
	struct app_status *st;
};

struct calc {
	const char *name; /* scenario kind: "launch", "cost-train" */
	/* For messages and --help: "cost train"; NULL: the same as name. */
	const char *command;
	const char *synopsis;    /* the usage line(s) */
	const char *description; /* a paragraph for --help, ending in a newline */
	const struct param *params;
	int param_count;
	/* Takes no --gpu: the calculator reads no hwdb entry (ridge cost rank,
	 * whose items name theirs); every other one resolves a GPU first. */
	bool takes_no_gpu;
	/* Returns the result object, or NULL with in->err set. */
	cJSON *(*run)(struct calc_input *in);
	/* Human output from the result; NULL prints the generic table. */
	void (*print)(FILE *out, const cJSON *result);
	/* The same for a scenario item (ridge eval), where exit codes and flag
	 * names of the command do not apply; NULL: print. */
	void (*print_item)(FILE *out, const cJSON *result);
	/* The whole --help text, printed as is; NULL: generated from synopsis,
	 * description and params (which still define the flags either way). */
	const char *usage;
	/* The result's "ok" false is a found problem: the command exits 1
	 * (ridge align: a misaligned dimension). */
	bool problem_unless_ok;
};

/* The command's name in messages and --help: .command, or the name. */
const char *calc_command(const struct calc *calc);

/* The calculator as a command for the option parser (params.h): its name,
 * table, synopsis, description and usage, no operands, required rows
 * checked. */
struct params_command calc_params_command(const struct calc *calc);

/* A calculator's table of inputs in its struct calc: .params and .param_count. */
/* a table of more than PARAM_MAX rows does not compile (the negative array size) */
#define CALC_PARAMS(table)                                                            \
	.params = (table), .param_count = (int)(sizeof(table) / sizeof((table)[0])) + \
					  0 * (int)sizeof(char[PARAMS_COUNT(table) <= PARAM_MAX ? 1 : -1])
/* Its inputs, run and printer, the three every calculator has, on one line. */
#define CALC_IMPL(table, run_fn, print_fn) CALC_PARAMS(table), .run = (run_fn), .print = (print_fn)

/* The rows every GPU calculator takes on the command line, as constructors
 * (params.h) and as X-macro lines for a table whose index names start P:
 * CALC_GPU_ROWS(X, GEMM) is GEMM_GPU, GEMM_HWDB, GEMM_CALIBRATION. */
#define CALC_GPU_ROW PARAM_TEXT_ROW("gpu", .metavar = "GPU", .help = "hwdb id or alias (default " APP_DEFAULT_GPU ")")
#define CALC_HWDB_ROW \
	PARAM_TEXT_ROW("hwdb", .flags = PARAM_CLI_ONLY, .metavar = "DIR", .help = "also load the hwdb entries in DIR")
#define CALC_CALIBRATION_ROW                                                      \
	PARAM_TEXT_ROW("calibration", .flags = PARAM_CLI_ONLY, .metavar = "FILE", \
		       .help = "a ridge-probe calibration (measured ceilings)")
#define CALC_GPU_ROWS(X, P) X(P##_GPU, CALC_GPU_ROW) X(P##_HWDB, CALC_HWDB_ROW) X(P##_CALIBRATION, CALC_CALIBRATION_ROW)
#define CALC_JSON_ROW PARAM_FLAG_ROW("json", .flags = PARAM_CLI_ONLY, .help = "one JSON document on stdout (SI units)")

/* calc->run, and the one check of its result: a number that is not finite
 * (json_number saw it) refuses the result (NULL, in->err naming the
 * input that most likely overflowed it). calc_main and scenarios run through
 * here. */
cJSON *calc_run(const struct calc *calc, struct calc_input *in);

/* The time model's what-ifs, --efficiency and --fixed-cost, from the rows
 * efficiency and fixed_cost of v (timing_parse_overrides) into o; *given is
 * set when either was. Returns 0, or -1 with err "<flag or key>: <why>". */
struct ridge_timing_overrides;
int calc_timing_overrides(const struct param_values *v, int efficiency, int fixed_cost,
			  struct ridge_timing_overrides *o, bool *given, char *err, size_t err_len);

/* A run function's error: the message into in->err; returns -1. */
int calc_fail(struct calc_input *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Generic human output: one row per number, string or bool (nested keys
 * dotted), arrays of objects as tables. */
void calc_print_table(FILE *out, const cJSON *result, const char *indent);

/* Reading results back (printers): a missing number is NAN, a missing string "". */
double calc_num(const cJSON *obj, const char *key);
const char *calc_str(const cJSON *obj, const char *key);
bool calc_has(const cJSON *obj, const char *key);

/* A result's numbers formatted where a printer prints them:
 *   struct calc_text t = { 0 };
 *   fprintf(out, "weights %s + grads %s\n", calc_text_bytes(&t, m, "weights_bytes"),
 *           calc_text_bytes(&t, m, "grads_bytes"));
 * each call formats the key's number (util/format.h; "none" when it is
 * missing) into the next of t's slots and returns it; the slots are reused
 * after CALC_TEXT_SLOTS calls, so a struct calc_text serves one statement. */
#define CALC_TEXT_SLOTS 8
struct calc_text {
	char slot[CALC_TEXT_SLOTS][64];
	int next;
};
const char *calc_text_seconds(struct calc_text *t, const cJSON *obj, const char *key);
const char *calc_text_bytes(struct calc_text *t, const cJSON *obj, const char *key);
const char *calc_text_si(struct calc_text *t, const cJSON *obj, const char *key, const char *unit);
const char *calc_text_percent(struct calc_text *t, const cJSON *obj, const char *key);
const char *calc_text_usd(struct calc_text *t, const cJSON *obj, const char *key);

/* JSON helpers for run functions: "gpu" and "ceilings" (spec sheet or measured). */
void calc_json_gpu(cJSON *obj, const struct ridge_gpu *gpu);

/* Pieces of the calculators' results as their JSON keys, for the commands,
 * ridge eval and the TUI's --dump alike (each defined beside its calculator). */
struct ridge_train_result;
struct ridge_train_comparison;
struct ridge_decode_result;
struct ridge_comm_result;
struct ridge_occupancy_result;
struct ridge_roofline_point;
struct ridge_align_rule;
struct align_finding;
void calc_json_train(cJSON *obj, const struct ridge_train_result *r);
/* The current run's keys, "target" with the target run's, savings and ROI. */
void calc_json_train_comparison(cJSON *obj, const struct ridge_train_comparison *c);
void calc_json_decode(cJSON *obj, const struct ridge_decode_result *r);
/* ridge launch's counts, per-launch costs and overheads (and the step's,
 * the graph step's and the target's terms when the input has them). */
struct ridge_launch_input;
struct ridge_launch_result;
void calc_json_launch(cJSON *obj, const struct ridge_launch_input *in, const struct ridge_launch_result *r);
/* ridge cost rank: the fleet's assumptions, and one ranked project. */
struct ridge_fleet;
struct ridge_project;
struct ridge_project_result;
void calc_json_fleet(cJSON *obj, const struct ridge_fleet *fleet);
cJSON *calc_json_rank_entry(const struct ridge_project *p, const struct ridge_project_result *r);
/* One collective's terms: op, algorithm, alpha, bus bandwidth, time (ridge comm, cost train). */
void calc_json_comm(cJSON *obj, const struct ridge_comm_result *r);
/* "limits": blocks per SM each resource allows (null: no limit). */
void calc_json_occupancy_limits(cJSON *obj, const struct ridge_occupancy_result *r);
/* A placed roofline point: intensity, attainable, bound, the work and time
 * floor when known, and the achieved fractions when a time was measured
 * (ridge roofline, ridge eval and the TUI's --dump). */
void calc_json_roofline_point(cJSON *obj, const struct ridge_roofline_point *p);
/* "rule": the required and recommended multiples; returned for more keys. */
cJSON *calc_json_align_rule(cJSON *obj, const struct ridge_align_rule *r);
/* One finding's verdict and next aligned values, as a new object. */
cJSON *calc_json_align_finding(const struct align_finding *f);

/* The calculators (app/calc/<name>_calc.c); scenario files can use every one listed in
 * eval_kinds[] (app/core/eval_kinds.c). */
extern const struct calc calc_align;
extern const struct calc calc_comm;
extern const struct calc calc_launch;
extern const struct calc calc_cost_train;
extern const struct calc calc_plan_train; /* ridge plan --train: no scenario kind */
extern const struct calc calc_cost_decode;
extern const struct calc calc_cost_prefill;
extern const struct calc calc_cost_rank;
extern const struct calc calc_roofline;
extern const struct calc calc_gemm;
extern const struct calc calc_occupancy;

#endif
