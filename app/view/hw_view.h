/* The views of `ridge hw list | show | check`: human text on the stream given, JSON
 * documents returned for the front end to print. */
#ifndef RIDGE_HW_VIEW_H
#define RIDGE_HW_VIEW_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#include "app.h"
#include "calc.h"
#include "params.h"

/* hw list: every entry, one line each (or a JSON array of objects). */
cJSON *hw_list_json(const struct app_hw *hw);
void hw_list_print(FILE *out, const struct app_hw *hw);
/* hw show: one entry in full with its sources (its JSON is app_gpu_json):
 * the page of sentences, then every other row the entry has, walked from
 * the schema table (hwdb/schema.c). */
void hw_show_print(FILE *out, const struct hwdb_entry *e);
/* The YAML paths of the rows the page's sentences state (NULL-ended); each
 * is a row of the table (tests/unit/test_app_hw_view.c). */
extern const char *const hw_show_page_rows[];

/* hw check FILE...: each file parsed on its own, ids unique among them.
 * Prints the human report as it goes, or with json sets *doc to the
 * document. Returns EXIT_OK, EXIT_PROBLEM (a bad entry), or -1 with an
 * error in st (a file that cannot be opened; nothing printed then). */
int hw_check_files(FILE *out, int count, char **files, bool json, cJSON **doc, struct app_status *st);

/* hw check with no files: every layer ridge would load, as it would load it. */
struct hw_check_all {
	struct hwdb db;
	struct hwdb_diags diags;
	bool failed;
};
/* Loads; adds the warnings (what was skipped) to st. Returns EXIT_OK or
 * EXIT_PROBLEM (the load failed; the problems are in the report). Call
 * hw_check_all_close either way. */
int hw_check_all_open(struct hw_check_all *c, const char *hwdb_dir, struct app_status *st);
cJSON *hw_check_all_json(const struct hw_check_all *c);
void hw_check_all_print(FILE *out, const struct hw_check_all *c);
void hw_check_all_close(struct hw_check_all *c);

/* ridge hw's options (after the subcommand) and --help (hw_view.c). */
#define HW_PARAMS(X) X(HW_HWDB, CALC_HWDB_ROW) X(HW_CALIBRATION, CALC_CALIBRATION_ROW) X(HW_JSON, CALC_JSON_ROW)
PARAMS_ENUM(hw_params, HW_PARAMS);
extern const struct params_command hw_params_command;

#endif
