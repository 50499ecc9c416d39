/* Scenario files: load (libyaml document API, every problem reported with
 * file:line:col before giving up), run each item through its calculator's
 * struct calc, check `expect`, compare `book`, print. */
#include "eval.h"

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
#include "eval_internal.h"

/* ---- messages ---- */

void eval_where_of(const struct eval_scenario *sc, const yaml_node_t *node, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%d:%d", sc->path, (int)node->start_mark.line + 1, (int)node->start_mark.column + 1);
}

void eval_node_error(struct eval_scenario *sc, const yaml_node_t *node, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	app_verror_at(sc->st, sc->path, (int)node->start_mark.line + 1, (int)node->start_mark.column + 1, fmt, ap);
	va_end(ap);
	sc->errors++;
}

yaml_node_t *eval_node_at(struct eval_scenario *sc, int index)
{
	return yaml_document_get_node(&sc->doc, index);
}

/* The text of a eval_scalar, or NULL after an error (not a eval_scalar, or empty). */
const char *eval_scalar(struct eval_scenario *sc, const yaml_node_t *node, const char *key)
{
	char why[512];
	const char *text = hwdb_yaml_scalar(node, key, why, sizeof why);
	if (!text)
		eval_node_error(sc, node, "%s", why);
	return text;
}

const char *eval_key_text(const yaml_node_t *key)
{
	return key->type == YAML_SCALAR_NODE ? (const char *)key->data.scalar.value : "";
}

/* Finds key in a mapping node; NULL when absent. */
yaml_node_t *eval_map_get(struct eval_scenario *sc, const yaml_node_t *map, const char *key, yaml_node_t **key_node)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = eval_node_at(sc, p->key);
		if (strcmp(eval_key_text(k), key) == 0) {
			if (key_node)
				*key_node = k;
			return eval_node_at(sc, p->value);
		}
	}
	return NULL;
}

/* Reports duplicate keys in a mapping (YAML allows them; they are always a mistake here). */
void eval_check_duplicates(struct eval_scenario *sc, const yaml_node_t *map)
{
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = eval_node_at(sc, p->key);
		for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
			if (strcmp(eval_key_text(eval_node_at(sc, q->key)), eval_key_text(k)) == 0) {
				eval_node_error(sc, k, "duplicate key '%s'", eval_key_text(k));
				break;
			}
		}
	}
}

/* ---- GPUs ---- */

const struct ridge_gpu *eval_find_gpu(struct eval_scenario *sc, const yaml_node_t *node, const char *name)
{
	const struct hwdb_entry *e = hwdb_find(&sc->hw.db, name);
	if (e) {
		if (sc->hw.calibration_id[0] && strcasecmp(e->gpu.id, sc->hw.calibration_id) != 0)
			app_warning(sc->st, "--calibration '%s' measured %s, not %s: %s's spec sheet is used",
				    sc->hw.calibration, sc->hw.calibration_id, e->gpu.id, e->gpu.id);
		return &e->gpu;
	}
	const char *ids[3];
	int n = hwdb_suggest(&sc->hw.db, name, ids, 3);
	if (n == 0)
		eval_node_error(sc, node, "unknown GPU '%s' (see 'ridge hw list')", name);
	else if (n == 1)
		eval_node_error(sc, node, "unknown GPU '%s'; did you mean '%s'?", name, ids[0]);
	else if (n == 2)
		eval_node_error(sc, node, "unknown GPU '%s'; did you mean '%s' or '%s'?", name, ids[0], ids[1]);
	else
		eval_node_error(sc, node, "unknown GPU '%s'; did you mean '%s', '%s' or '%s'?", name, ids[0], ids[1],
				ids[2]);
	return NULL;
}

/* The keys of a scenario file's top level. */
static const char *const top_keys[] = { "scenario", "description", "gpu", "model", "items", NULL };

static struct eval_scenario *eval_load(const char *path, char *text, size_t len, const char *hwdb_dir,
				       const char *calibration, struct app_status *st);

struct eval_scenario *eval_open(const char *path, const char *hwdb_dir, const char *calibration, struct app_status *st)
{
	size_t len = 0;
	char *text = app_read_file(path, READ_MAX_SCENARIO_BYTES, "scenario file", &len, st);
	if (!text)
		return NULL;
	return eval_load(path, text, len, hwdb_dir, calibration, st);
}

struct eval_scenario *eval_parse(const char *path, const char *text, size_t len, const char *hwdb_dir,
				 const char *calibration, struct app_status *st)
{
	if (len > READ_MAX_SCENARIO_BYTES) {
		app_error(st, "'%s' is larger than %u bytes: not a scenario file", path, READ_MAX_SCENARIO_BYTES);
		return NULL;
	}
	char *copy = malloc(len + 1);
	if (!copy) {
		app_error(st, "out of memory");
		return NULL;
	}
	memcpy(copy, text, len);
	copy[len] = '\0';
	return eval_load(path, copy, len, hwdb_dir, calibration, st);
}

static void bound_error(struct app_status *st, const char *path, int bound, int line, int col)
{
	if (bound == HWDB_YAML_TOO_DEEP)
		app_error_at(st, path, line, col, "nested deeper than %d levels: not a scenario file",
			     READ_MAX_YAML_NESTING);
	else if (bound == HWDB_YAML_CYCLE)
		app_error_at(st, path, line, col, "an alias inside the node it names: an endless expansion");
	else
		app_error_at(st, path, line, col,
			     "more than %ld YAML nodes (aliases expanded), the limit of a scenario file",
			     READ_MAX_SCENARIO_NODES);
}

/* Before parsing: the YAML within the nesting and node bounds, and no NUL
 * byte (libyaml would stop there). Returns 0, or -1 with why in st. */
static int check_text(struct eval_scenario *sc, size_t len)
{
	struct app_status *st = sc->st;
	const char *path = sc->path;
	int deep_line, deep_col;
	int bound =
		hwdb_yaml_bounds(sc->text, len, READ_MAX_YAML_NESTING, READ_MAX_SCENARIO_NODES, &deep_line, &deep_col);
	if (bound != 0) {
		bound_error(st, path, bound, deep_line, deep_col);
		return -1;
	}
	if (memchr(sc->text, '\0', len)) {
		int line, col;
		app_text_position(sc->text, (size_t)((char *)memchr(sc->text, '\0', len) - sc->text), &line, &col);
		app_error_at(st, path, line, col, "binary data (a NUL byte): not a YAML file");
		return -1;
	}
	return 0;
}

/* The text into sc->doc: one YAML document, its aliases expanded within
 * the node bound. Returns 0, or -1 with why in st (sc->have_doc says
 * whether eval_close has a document to free). */
static int load_document(struct eval_scenario *sc, size_t len)
{
	struct app_status *st = sc->st;
	const char *path = sc->path;
	yaml_parser_t parser;
	if (!yaml_parser_initialize(&parser)) {
		app_error(st, "cannot initialize the YAML parser");
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)sc->text, len);
	if (!yaml_parser_load(&parser, &sc->doc)) {
		int line, col;
		if (parser.error == YAML_READER_ERROR) {
			app_text_position(sc->text, parser.problem_offset, &line, &col);
		} else {
			line = (int)parser.problem_mark.line + 1;
			col = (int)parser.problem_mark.column + 1;
		}
		app_error_at(st, path, line, col, "invalid YAML: %s%s%s",
			     parser.problem ? parser.problem : "parse error", parser.context ? " " : "",
			     parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		return -1;
	}
	sc->have_doc = true;
	/* yaml_parser_load reads one document: items after a "---" would be
	 * dropped without a word. */
	yaml_document_t next;
	if (!yaml_parser_load(&parser, &next)) {
		app_error_at(st, path, (int)parser.problem_mark.line + 1, (int)parser.problem_mark.column + 1,
			     "invalid YAML: %s", parser.problem ? parser.problem : "parse error");
		yaml_parser_delete(&parser);
		return -1;
	}
	yaml_node_t *extra = yaml_document_get_root_node(&next);
	if (extra) {
		app_error_at(st, path, (int)extra->start_mark.line + 1, (int)extra->start_mark.column + 1,
			     "a second YAML document: a scenario file is one mapping");
		yaml_document_delete(&next);
		yaml_parser_delete(&parser);
		return -1;
	}
	yaml_document_delete(&next);
	yaml_parser_delete(&parser);

	int deep_line, deep_col;
	int bound = hwdb_yaml_expanded(&sc->doc, READ_MAX_SCENARIO_NODES, &deep_line, &deep_col);
	if (bound != 0) {
		bound_error(st, path, bound, deep_line, deep_col);
		return -1;
	}
	return 0;
}

/* The top-level keys but items: each known, then the title, the default
 * GPU (the file's gpu, else the hwdb's default) and the model section.
 * Problems are counted in sc->errors. */
static void load_top_keys(struct eval_scenario *sc, yaml_node_t *root)
{
	eval_check_duplicates(sc, root);
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *k = eval_node_at(sc, p->key);
		bool known = false;
		for (const char *const *t = top_keys; *t; t++)
			known |= strcmp(*t, eval_key_text(k)) == 0;
		if (!known)
			eval_node_error(sc, k, "unknown key '%s' (known: scenario, description, gpu, model, items)",
					eval_key_text(k));
	}
	yaml_node_t *title = eval_map_get(sc, root, "scenario", NULL);
	if (title) {
		const char *text = eval_scalar(sc, title, "scenario");
		if (text)
			snprintf(sc->title, sizeof sc->title, "%s", text);
	}
	yaml_node_t *description = eval_map_get(sc, root, "description", NULL);
	if (description)
		eval_scalar(sc, description, "description");
	yaml_node_t *gpu = eval_map_get(sc, root, "gpu", NULL);
	if (gpu) {
		const char *name = eval_scalar(sc, gpu, "gpu");
		if (name)
			sc->gpu = eval_find_gpu(sc, gpu, name);
	} else {
		const struct hwdb_entry *e = hwdb_find(&sc->hw.db, app_hw_default_gpu(&sc->hw));
		sc->gpu = e ? &e->gpu : NULL;
	}
	yaml_node_t *model = eval_map_get(sc, root, "model", NULL);
	if (model)
		eval_load_model(sc, model);
}

/* The items list, each item loaded (eval_items.c). Returns -1 when the
 * scenario cannot go on (too many items, out of memory), else 0 with the
 * items' problems counted in sc->errors. */
static int load_items(struct eval_scenario *sc, yaml_node_t *root)
{
	yaml_node_t *items = eval_map_get(sc, root, "items", NULL);
	if (!items) {
		eval_node_error(sc, root, "no 'items': a scenario needs a list of what-ifs");
	} else if (items->type != YAML_SEQUENCE_NODE) {
		eval_node_error(sc, items, "'items' must be a list, not %s", hwdb_yaml_type_name(items));
	} else {
		int n = (int)(items->data.sequence.items.top - items->data.sequence.items.start);
		if (n == 0)
			eval_node_error(sc, items, "'items' is empty");
		if (n > READ_MAX_SCENARIO_ITEMS) {
			eval_node_error(sc, items, "%d items: more than %d, the limit of a scenario file", n,
					READ_MAX_SCENARIO_ITEMS);
			return -1;
		}
		sc->items = calloc(n > 0 ? (size_t)n : 1, sizeof *sc->items);
		if (!sc->items) {
			app_error(sc->st, "out of memory");
			return -1;
		}
		for (int i = 0; i < n; i++)
			eval_load_item(sc, &sc->items[i], eval_node_at(sc, items->data.sequence.items.start[i]), i);
		sc->count = n;
	}
	return 0;
}

/* Takes text (malloc'd, text[len] == '\0'): the scenario keeps it, or it is
 * freed. In phases: the text checked and parsed into one document, the top
 * level a mapping, the hwdb opened, the top-level keys, the items; any
 * problem closes the scenario (its errors are in st). */
static struct eval_scenario *eval_load(const char *path, char *text, size_t len, const char *hwdb_dir,
				       const char *calibration, struct app_status *st)
{
	struct eval_scenario *sc = calloc(1, sizeof *sc);
	if (!sc) {
		app_error(st, "out of memory");
		free(text);
		return NULL;
	}
	sc->text = text;
	sc->st = st;
	snprintf(sc->path, sizeof sc->path, "%s", path);
	sc->model_values = calloc(M_KEY_COUNT, sizeof *sc->model_values);
	if (!sc->model_values) {
		app_error(st, "out of memory");
		eval_close(sc);
		return NULL;
	}
	if (check_text(sc, len) != 0 || load_document(sc, len) != 0) {
		eval_close(sc);
		return NULL;
	}
	yaml_node_t *root = yaml_document_get_root_node(&sc->doc);
	if (!root) {
		app_error_at(st, path, 1, 1, "empty file: expected a scenario (a mapping with 'items')");
		eval_close(sc);
		return NULL;
	}
	if (root->type != YAML_MAPPING_NODE) {
		eval_node_error(sc, root, "the top level must be a mapping (scenario, gpu, model, items), not %s",
				hwdb_yaml_type_name(root));
		eval_close(sc);
		return NULL;
	}
	if (app_hw_open(&sc->hw, hwdb_dir, calibration, st) != 0) {
		eval_close(sc);
		return NULL;
	}
	sc->hw_open = true;

	load_top_keys(sc, root);
	if (load_items(sc, root) != 0 || sc->errors) {
		eval_close(sc);
		return NULL;
	}
	return sc;
}

void eval_close(struct eval_scenario *sc)
{
	if (!sc)
		return;
	if (sc->hw_open)
		app_hw_close(&sc->hw);
	if (sc->have_doc)
		yaml_document_delete(&sc->doc);
	free(sc->items);
	for (int i = 0; i < sc->owned_count; i++)
		free(sc->owned[i]);
	free(sc->owned);
	free(sc->model_values);
	free(sc->text);
	free(sc);
}

int eval_item_count(const struct eval_scenario *sc)
{
	return sc->count;
}

const char *eval_item_name(const struct eval_scenario *sc, int i)
{
	return sc->items[i].name;
}

const char *eval_item_kind(const struct eval_scenario *sc, int i)
{
	return sc->items[i].calc->name;
}

const struct calc *eval_item_calc(const struct eval_scenario *sc, int i)
{
	return sc->items[i].calc;
}

const char *eval_item_where(const struct eval_item *item)
{
	return item->where;
}

const struct param_values *eval_item_values(const struct eval_scenario *sc, int i)
{
	return &sc->items[i].values;
}

const struct ridge_gpu *eval_item_gpu(const struct eval_scenario *sc, int i)
{
	return sc->items[i].gpu;
}

const struct eval_item *eval_item_at(const struct eval_scenario *sc, int i)
{
	return &sc->items[i];
}

bool eval_item_gives(const struct eval_item *item, const char *key)
{
	return eval_map_get(item->sc, item->node, key, NULL) != NULL;
}

void eval_item_path(const struct eval_item *item, const char *file, char *buf, size_t len)
{
	eval_path(item->sc, file, buf, len);
}

const struct app_model_config *eval_item_model_config(const struct eval_item *item)
{
	return item->sc->has_model_config ? &item->sc->model_config : NULL;
}

const char *eval_item_model_name(const struct eval_item *item)
{
	return item->sc->model ? item->sc->model_name : NULL;
}

int eval_item_each(struct eval_item *item, const char *key, const struct param *spec, int count, eval_each_fn fn,
		   void *ctx)
{
	struct eval_scenario *sc = item->sc;
	const yaml_node_t *list = params_node(&item->values, params_index(item->values.spec, item->values.count, key));
	if (!list)
		return 0;
	int before = sc->errors;
	for (yaml_node_item_t *e = list->data.sequence.items.start; e < list->data.sequence.items.top; e++) {
		yaml_node_t *node = eval_node_at(sc, *e);
		int index = (int)(e - list->data.sequence.items.start);
		if (node->type != YAML_MAPPING_NODE) {
			eval_node_error(sc, node, "each of '%s' must be a mapping, not %s", key,
					hwdb_yaml_type_name(node));
			continue;
		}
		struct param_values v;
		params_init(&v, spec, count);
		char what[96];
		snprintf(what, sizeof what, "an element of '%s'", key);
		eval_read_keys(sc, node, &v, NULL, what);
		int missing = params_missing(&v);
		if (missing >= 0) {
			eval_node_error(sc, node, "%s element %d: missing key '%s'", key, index + 1,
					spec[missing].name);
			continue;
		}
		if (sc->errors != before)
			continue;
		char where[PARAM_WHERE];
		eval_where_of(sc, node, where, sizeof where);
		if (fn(ctx, &v, index, where) != 0)
			return -1;
	}
	return sc->errors != before ? -1 : 0;
}

cJSON *eval_run(struct eval_scenario *sc, int i, struct app_status *st)
{
	struct eval_item *it = &sc->items[i];
	sc->st = st; /* for eval_item_each and node_error during the run */
	struct calc_input in = { .values = &it->values, .gpu = it->gpu, .item = it, .st = st };
	int before = sc->errors;
	cJSON *result = calc_run(it->calc, &in);
	if (!result && sc->errors == before && in.err[0])
		app_error(st, "%s: item '%s' (%s): %s", it->where, it->name, it->calc->name, in.err);
	if (!result)
		sc->errors++;
	return result;
}
