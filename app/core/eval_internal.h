/* Shared between the pieces of eval.c (not for other files). */
#ifndef RIDGE_EVAL_INTERNAL_H
#define RIDGE_EVAL_INTERNAL_H

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>
#include "app.h"
#include "model_config.h"
#include "eval.h"
/* The limits of a scenario (bytes read, YAML nodes written and expanded
 * through aliases, items run) are READ_MAX_SCENARIO_* there. */
#include "read_limits.h"

#define DEFAULT_TOLERANCE 1e-9

/* The keys items may draw from the model (a calculator parameter of the same
 * name with PARAM_MODEL), with their config.json names. */
enum model_key { M_PARAMS, M_LAYERS, M_HEADS, M_KV_HEADS, M_HEAD_DIM, M_HIDDEN, M_INTERMEDIATE, M_VOCAB, M_KEY_COUNT };

/* Where each model value came from: the section itself, its config file, or
 * derived from the shape. */
struct model_value {
	bool set;
	bool bad; /* given, but rejected (already reported) */
	char text[48];
	double number;
	char where[PARAM_WHERE];
};

struct eval_item {
	struct eval_scenario *sc;
	yaml_node_t *node;
	const char *where; /* "file:line:col", owned by the scenario */
	char name[128];
	const struct calc *calc;
	struct param_values values;
	const struct ridge_gpu *gpu;
	yaml_node_t *expect, *book;
	double tolerance;
};

struct eval_scenario {
	char path[512];
	char *text;
	yaml_document_t doc;
	bool have_doc;
	char title[256];
	struct app_hw hw;
	bool hw_open;
	const struct ridge_gpu *gpu; /* the file's default GPU */
	yaml_node_t *model;
	char model_name[128];
	struct model_value *model_values; /* M_KEY_COUNT of them */
	bool has_model_config;            /* model.config, as read */
	struct app_model_config model_config;
	int count;
	struct eval_item *items;
	int errors;
	/* The status of the call in progress (eval_open, eval_run, eval_file):
	 * where every problem goes. */
	struct app_status *st;
	char **owned; /* texts made here (joined lists, positions), freed with the scenario */
	int owned_count, owned_cap;
};

void eval_where_of(const struct eval_scenario *sc, const yaml_node_t *node, char *buf, size_t len);

void eval_node_error(struct eval_scenario *sc, const yaml_node_t *node, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

yaml_node_t *eval_node_at(struct eval_scenario *sc, int index);

const char *eval_scalar(struct eval_scenario *sc, const yaml_node_t *node, const char *key);

const char *eval_key_text(const yaml_node_t *key);

yaml_node_t *eval_map_get(struct eval_scenario *sc, const yaml_node_t *map, const char *key, yaml_node_t **key_node);

void eval_check_duplicates(struct eval_scenario *sc, const yaml_node_t *map);

const struct ridge_gpu *eval_find_gpu(struct eval_scenario *sc, const yaml_node_t *node, const char *name);

void eval_load_model(struct eval_scenario *sc, yaml_node_t *model);

void eval_fill_from_model(struct eval_scenario *sc, struct eval_item *it, int i);

const struct calc *eval_find_kind(const char *name);

char *eval_own(struct eval_scenario *sc, char *text, const yaml_node_t *node);

void eval_read_keys(struct eval_scenario *sc, const yaml_node_t *map, struct param_values *values,
		    const char *const *reserved, const char *what);

void eval_load_item(struct eval_scenario *sc, struct eval_item *it, yaml_node_t *node, int index);

#endif
