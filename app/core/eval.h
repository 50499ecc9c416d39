/* Scenario files (ridge eval, ridge cost rank, the TUI): a GPU, a model and a
 * list of what-if items, each one calculator run on its inputs. The format is
 * documented in examples/README.md ("Scenario files"). Every error names
 * file:line:column. */
#ifndef RIDGE_EVAL_H
#define RIDGE_EVAL_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "calc.h"

/* The item kinds a scenario may use: adding a calculator to scenario files is
 * adding its struct calc to this table (app/core/eval_kinds.c). */
extern const struct calc *const eval_kinds[];
extern const size_t eval_kind_count;

struct eval_scenario;
struct eval_item;

/* Loads and checks a scenario: YAML syntax, top-level keys, each item's kind,
 * keys and values (parsed with the calculator's own table), the GPUs. Returns
 * NULL with every problem found (file:line:col) in st; its warnings (a
 * calibration of another GPU) go to st either way. */
struct app_status;
struct eval_scenario *eval_open(const char *path, const char *hwdb_dir, const char *calibration, struct app_status *st);
/* The same on text in memory (copied); path names it in messages and
 * anchors a relative model.config. The fuzz harness's entry. */
struct eval_scenario *eval_parse(const char *path, const char *text, size_t len, const char *hwdb_dir,
				 const char *calibration, struct app_status *st);
void eval_close(struct eval_scenario *sc);

int eval_item_count(const struct eval_scenario *sc);
const char *eval_item_name(const struct eval_scenario *sc, int i);
const char *eval_item_kind(const struct eval_scenario *sc, int i);
const struct calc *eval_item_calc(const struct eval_scenario *sc, int i);

/* Runs item i: the result object (caller frees), or NULL with an error
 * naming the item's position in st. */
cJSON *eval_run(struct eval_scenario *sc, int i, struct app_status *st);

/* Runs every item (or those of only_kind): the `ridge eval --json` document
 * (caller frees; its "ok" is false when an `expect` check failed), or NULL
 * with the problems of the file or an input in st. */
cJSON *eval_file(const char *path, const char *hwdb_dir, const char *calibration, const char *only_kind,
		 struct app_status *st);
/* That document as the human report on out: each item's table, its book
 * comparison and its checks. */
void eval_print(FILE *out, const cJSON *doc);

/* For calculators that take a list of mappings (rank's projects): parses each
 * element with spec (errors at file:line:col) and calls fn with its values
 * and its position text. Returns 0, or -1 with the error in the status of
 * the eval_run in progress. */
typedef int (*eval_each_fn)(void *ctx, const struct param_values *v, int index, const char *where);
int eval_item_each(struct eval_item *item, const char *key, const struct param *spec, int count, eval_each_fn fn,
		   void *ctx);

/* "file:line:col" of the item, for messages. */
const char *eval_item_where(const struct eval_item *item);

/* The inputs of item i as its calculator parsed them (the item's keys, then
 * the model section's), and the GPU it runs on (NULL for calculators that
 * need none). The TUI loads a scenario into its panels through these. */
const struct param_values *eval_item_values(const struct eval_scenario *sc, int i);
const struct ridge_gpu *eval_item_gpu(const struct eval_scenario *sc, int i);
const struct eval_item *eval_item_at(const struct eval_scenario *sc, int i);

/* Whether the item gives key itself (not through the model section). */
bool eval_item_gives(const struct eval_item *item, const char *key);

/* A file named in the scenario, relative to the scenario file's directory
 * (absolute paths as they are): the path to open. */
void eval_path(const struct eval_scenario *sc, const char *file, char *buf, size_t len);
void eval_item_path(const struct eval_item *item, const char *file, char *buf, size_t len);

/* The scenario's model section: its config as read (model.config; NULL
 * without one) and its name ("" unnamed; NULL without a model section). */
struct app_model_config;
const struct app_model_config *eval_item_model_config(const struct eval_item *item);
const char *eval_item_model_name(const struct eval_item *item);

/* ridge eval's options, and the command with its --help, which lists the
 * kinds of eval_kinds[] (eval_kinds.c). */
#define EVAL_PARAMS(X) X(EVAL_HWDB, CALC_HWDB_ROW) X(EVAL_CALIBRATION, CALC_CALIBRATION_ROW) X(EVAL_JSON, CALC_JSON_ROW)
PARAMS_ENUM(eval_params, EVAL_PARAMS);
const struct params_command *eval_params_command(void);

#endif
