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

/* The limits of a scenario (tests/README.md, "Limits", has the measured
 * worst case): bytes read, YAML nodes written and expanded through aliases,
 * items run. A real scenario has tens of items and a few hundred nodes. */
#define MAX_SCENARIO_BYTES (4u << 20)
#define MAX_SCENARIO_NODES 100000L
#define MAX_SCENARIO_ITEMS 5000
#define DEFAULT_TOLERANCE 1e-9

struct model_value;

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

/* ---- messages ---- */

static void where_of(const struct eval_scenario *sc, const yaml_node_t *node, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%d:%d", sc->path, (int)node->start_mark.line + 1, (int)node->start_mark.column + 1);
}

static void node_error(struct eval_scenario *sc, const yaml_node_t *node, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void node_error(struct eval_scenario *sc, const yaml_node_t *node, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	app_verror_at(sc->st, sc->path, (int)node->start_mark.line + 1, (int)node->start_mark.column + 1, fmt, ap);
	va_end(ap);
	sc->errors++;
}

static yaml_node_t *node_at(struct eval_scenario *sc, int index)
{
	return yaml_document_get_node(&sc->doc, index);
}

/* The text of a scalar, or NULL after an error (not a scalar, or empty). */
static const char *scalar(struct eval_scenario *sc, const yaml_node_t *node, const char *key)
{
	char why[512];
	const char *text = hwdb_yaml_scalar(node, key, why, sizeof why);
	if (!text)
		node_error(sc, node, "%s", why);
	return text;
}

static const char *key_text(const yaml_node_t *key)
{
	return key->type == YAML_SCALAR_NODE ? (const char *)key->data.scalar.value : "";
}

/* Finds key in a mapping node; NULL when absent. */
static yaml_node_t *map_get(struct eval_scenario *sc, const yaml_node_t *map, const char *key, yaml_node_t **key_node)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node_at(sc, p->key);
		if (strcmp(key_text(k), key) == 0) {
			if (key_node)
				*key_node = k;
			return node_at(sc, p->value);
		}
	}
	return NULL;
}

/* Reports duplicate keys in a mapping (YAML allows them; they are always a mistake here). */
static void check_duplicates(struct eval_scenario *sc, const yaml_node_t *map)
{
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node_at(sc, p->key);
		for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
			if (strcmp(key_text(node_at(sc, q->key)), key_text(k)) == 0) {
				node_error(sc, k, "duplicate key '%s'", key_text(k));
				break;
			}
		}
	}
}

/* ---- GPUs ---- */

static const struct ridge_gpu *find_gpu(struct eval_scenario *sc, const yaml_node_t *node, const char *name)
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
		node_error(sc, node, "unknown GPU '%s' (see 'ridge hw list')", name);
	else if (n == 1)
		node_error(sc, node, "unknown GPU '%s'; did you mean '%s'?", name, ids[0]);
	else if (n == 2)
		node_error(sc, node, "unknown GPU '%s'; did you mean '%s' or '%s'?", name, ids[0], ids[1]);
	else
		node_error(sc, node, "unknown GPU '%s'; did you mean '%s', '%s' or '%s'?", name, ids[0], ids[1],
			   ids[2]);
	return NULL;
}

/* ---- the model section ---- */

/* The keys items may draw from the model (a calculator parameter of the same
 * name with PARAM_MODEL), with their config.json names. */
enum model_key { M_PARAMS, M_LAYERS, M_HEADS, M_KV_HEADS, M_HEAD_DIM, M_HIDDEN, M_INTERMEDIATE, M_VOCAB, M_KEY_COUNT };

static const struct {
	const char *key;
	const char *alias;
} model_keys[M_KEY_COUNT] = {
	[M_PARAMS] = { "params", NULL },
	[M_LAYERS] = { "layers", "num_hidden_layers" },
	[M_HEADS] = { "heads", "num_attention_heads" },
	[M_KV_HEADS] = { "kv_heads", "num_key_value_heads" },
	[M_HEAD_DIM] = { "head_dim", NULL },
	[M_HIDDEN] = { "hidden_size", NULL },
	[M_INTERMEDIATE] = { "intermediate_size", NULL },
	[M_VOCAB] = { "vocab_size", NULL },
};

/* Where each model value came from: the section itself, its config file, or
 * derived from the shape. */
struct model_value {
	bool set;
	bool bad; /* given, but rejected (already reported) */
	char text[48];
	double number;
	char where[PARAM_WHERE];
};

static const char *const model_other_keys[] = { "name", "description", "config", "tie_word_embeddings", NULL };

static void model_set(struct model_value *mv, double v, const char *where)
{
	mv->set = true;
	mv->number = v;
	cost_format_exact(v, mv->text, sizeof mv->text);
	snprintf(mv->where, sizeof mv->where, "%s", where);
}

void eval_path(const struct eval_scenario *sc, const char *file, char *buf, size_t len)
{
	const char *slash = strrchr(sc->path, '/');
	if (file[0] == '/' || !slash)
		snprintf(buf, len, "%s", file);
	else
		snprintf(buf, len, "%.*s/%s", (int)(slash - sc->path), sc->path, file);
}

/* model.config: a config.json (or YAML) read by the same loader as ridge align,
 * relative to the scenario's directory. */
static void load_model_config(struct eval_scenario *sc, yaml_node_t *node, struct model_value *values)
{
	const char *file = scalar(sc, node, "config");
	if (!file)
		return;
	char path[1024];
	eval_path(sc, file, path, sizeof path);
	struct app_model_config cfg;
	if (app_model_config_load(path, &cfg, sc->st) != 0) {
		node_error(sc, node, "model.config: cannot use '%s' (above)", file);
		return;
	}
	sc->has_model_config = true;
	sc->model_config = cfg;
	char where[PARAM_WHERE];
	where_of(sc, node, where, sizeof where);
	snprintf(where + strlen(where), sizeof where - strlen(where), ": model.config '%s'", file);
	const struct ridge_align_model *m = &cfg.model;
	struct {
		enum model_key key;
		double v;
		bool has;
	} from[] = {
		{ M_LAYERS, (double)m->num_hidden_layers, true },
		{ M_HEADS, (double)m->num_attention_heads, true },
		{ M_KV_HEADS, (double)m->num_key_value_heads, m->has_num_key_value_heads },
		{ M_HEAD_DIM, (double)m->head_dim, m->has_head_dim },
		{ M_HIDDEN, (double)m->hidden_size, true },
		{ M_INTERMEDIATE, (double)m->intermediate_size, true },
		{ M_VOCAB, (double)m->vocab_size, true },
	};
	for (size_t i = 0; i < sizeof from / sizeof from[0]; i++) {
		char w[PARAM_WHERE];
		snprintf(w, sizeof w, "%s %s", where,
			 model_keys[from[i].key].alias ? model_keys[from[i].key].alias : model_keys[from[i].key].key);
		if (from[i].has && !values[from[i].key].set) /* the section's own keys win */
			model_set(&values[from[i].key], from[i].v, w);
	}
}

static void load_model(struct eval_scenario *sc, yaml_node_t *model)
{
	if (model->type != YAML_MAPPING_NODE) {
		node_error(sc, model, "'model' must be a mapping (params, layers, kv_heads, ... or config), not %s",
			   hwdb_yaml_type_name(model));
		return;
	}
	sc->model = model;
	check_duplicates(sc, model);
	struct model_value *values = sc->model_values;
	yaml_node_t *config = NULL;
	for (yaml_node_pair_t *p = model->data.mapping.pairs.start; p < model->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node_at(sc, p->key), *v = node_at(sc, p->value);
		const char *key = key_text(k);
		int found = -1;
		for (int i = 0; i < M_KEY_COUNT; i++)
			if (strcmp(key, model_keys[i].key) == 0 ||
			    (model_keys[i].alias && strcmp(key, model_keys[i].alias) == 0))
				found = i;
		if (found >= 0) {
			const char *text = scalar(sc, v, key);
			char err[200];
			double number;
			values[found].bad = true; /* until it is set below */
			if (!text)
				continue;
			if (values[found].set) {
				node_error(sc, k, "model.%s is given twice (as %s and %s)", model_keys[found].key,
					   model_keys[found].key, model_keys[found].alias);
			} else if (ridge_quantity_parse(text, RIDGE_UNIT_COUNT, &number, err, sizeof err) != 0) {
				node_error(sc, v, "model.%s: %s", key, err);
			} else if (!(number > 0)) {
				node_error(sc, v, "model.%s: '%s' must be greater than 0", key, text);
			} else {
				char where[PARAM_WHERE];
				where_of(sc, v, where, sizeof where);
				snprintf(where + strlen(where), sizeof where - strlen(where), ": model.%s", key);
				model_set(&values[found], number, where);
				values[found].bad = false;
			}
			continue;
		}
		bool other = false;
		for (const char *const *o = model_other_keys; *o; o++)
			other |= strcmp(key, *o) == 0;
		if (!other) {
			node_error(
				sc, k,
				"unknown model key '%s' (known: name, description, config, params, layers, heads, kv_heads, "
				"head_dim, hidden_size, intermediate_size, vocab_size, tie_word_embeddings and the config.json "
				"names num_hidden_layers, num_attention_heads, num_key_value_heads)",
				key);
		} else if (strcmp(key, "name") == 0) {
			const char *text = scalar(sc, v, key);
			if (text)
				snprintf(sc->model_name, sizeof sc->model_name, "%s", text);
		} else if (strcmp(key, "config") == 0) {
			config = v;
		} else {
			scalar(sc, v, key);
		}
	}
	if (config)
		load_model_config(sc, config, values);

	/* Derived: head_dim = hidden / heads, and params from the shape when the
	 * section gives the config.json dimensions but no count. */
	char where[PARAM_WHERE];
	where_of(sc, model, where, sizeof where);
	if (!values[M_HEAD_DIM].set && values[M_HIDDEN].set && values[M_HEADS].set) {
		char w[PARAM_WHERE];
		snprintf(w, sizeof w, "%s: model.head_dim (hidden_size / num_attention_heads)", where);
		model_set(&values[M_HEAD_DIM], values[M_HIDDEN].number / values[M_HEADS].number, w);
	}
	if (!values[M_PARAMS].set && values[M_HIDDEN].set && values[M_INTERMEDIATE].set && values[M_VOCAB].set &&
	    values[M_LAYERS].set && values[M_HEADS].set) {
		struct ridge_model_shape shape = {
			.hidden = values[M_HIDDEN].number,
			.intermediate = values[M_INTERMEDIATE].number,
			.layers = values[M_LAYERS].number,
			.heads = values[M_HEADS].number,
			.kv_heads = values[M_KV_HEADS].set ? values[M_KV_HEADS].number : values[M_HEADS].number,
			.head_dim = values[M_HEAD_DIM].number,
			.vocab = values[M_VOCAB].number,
		};
		yaml_node_t *tied = map_get(sc, model, "tie_word_embeddings", NULL);
		const char *t =
			tied && tied->type == YAML_SCALAR_NODE ? (const char *)tied->data.scalar.value : "false";
		shape.tied_embeddings = strcasecmp(t, "true") == 0 || strcasecmp(t, "yes") == 0;
		double params;
		char err[200], w[PARAM_WHERE];
		snprintf(w, sizeof w, "%s: model.params (derived from the shape)", where);
		if (cost_model_params(&shape, &params, NULL, err, sizeof err) == 0)
			model_set(&values[M_PARAMS], params, w);
		else
			node_error(sc, model, "model: %s", err);
	}
}

/* Fills a PARAM_MODEL parameter the item left out from the model section. */
static void fill_from_model(struct eval_scenario *sc, struct eval_item *it, int i)
{
	const char *name = it->values.spec[i].name;
	for (int k = 0; k < M_KEY_COUNT; k++) {
		const struct model_value *mv = &sc->model_values[k];
		if (strcmp(model_keys[k].key, name) != 0)
			continue;
		if (mv->bad)
			it->values.bad[i] = true;
		else if (mv->set && params_set(&it->values, i, mv->text, mv->where, sc->st) != 0)
			sc->errors++;
	}
}

/* ---- items ---- */

static const struct calc *find_kind(const char *name)
{
	for (size_t i = 0; i < eval_kind_count; i++)
		if (strcmp(eval_kinds[i]->name, name) == 0)
			return eval_kinds[i];
	return NULL;
}

static void kind_list(char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < eval_kind_count && used < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", eval_kinds[i]->name);
		used += n > 0 ? (size_t)n : 0;
	}
}

static void key_list(const struct param *spec, int count, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < count && used < len; i++) {
		if (spec[i].flags & PARAM_CLI_ONLY)
			continue;
		int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", spec[i].name);
		used += n > 0 ? (size_t)n : 0;
	}
}

/* A text owned by the scenario (freed by eval_close), or NULL after an error. */
static char *own(struct eval_scenario *sc, char *text, const yaml_node_t *node)
{
	if (text && sc->owned_count == sc->owned_cap) {
		int cap = sc->owned_cap ? 2 * sc->owned_cap : 64;
		char **bigger = realloc(sc->owned, (size_t)cap * sizeof *bigger);
		if (!bigger) {
			free(text);
			text = NULL;
		} else {
			sc->owned = bigger;
			sc->owned_cap = cap;
		}
	}
	if (!text) {
		node_error(sc, node, "out of memory");
		return NULL;
	}
	sc->owned[sc->owned_count++] = text;
	return text;
}

/* "file:line:col" of node, then suffix (": key"), as a text the scenario owns. */
static const char *own_where(struct eval_scenario *sc, const yaml_node_t *node, const char *suffix)
{
	char where[PARAM_WHERE];
	where_of(sc, node, where, sizeof where);
	snprintf(where + strlen(where), sizeof where - strlen(where), "%s", suffix);
	return own(sc, strdup(where), node);
}

static bool plain_element(const char *text)
{
	return !strchr(text, ',') && !strchr(text, '=');
}

/* A PARAM_JOIN list as the command line writes it: [6000, 21845] is
 * "6000,21845", [d_model: 6000, 21845] (or [d_model=6000, ...]) is
 * "d_model=6000,21845". NULL after an error. */
static const char *join_list(struct eval_scenario *sc, const yaml_node_t *list, const char *key)
{
	size_t cap = 1;
	for (yaml_node_item_t *e = list->data.sequence.items.start; e < list->data.sequence.items.top; e++) {
		yaml_node_t *node = node_at(sc, *e);
		if (node->type == YAML_SCALAR_NODE) {
			cap += strlen((const char *)node->data.scalar.value) + 1;
		} else if (node->type == YAML_MAPPING_NODE &&
			   node->data.mapping.pairs.top - node->data.mapping.pairs.start == 1) {
			yaml_node_pair_t *p = node->data.mapping.pairs.start;
			cap += strlen(key_text(node_at(sc, p->key))) + 1;
			yaml_node_t *value = node_at(sc, p->value);
			if (value->type == YAML_SCALAR_NODE)
				cap += strlen((const char *)value->data.scalar.value) + 1;
		}
	}
	if (list->data.sequence.items.top == list->data.sequence.items.start) {
		node_error(sc, list, "'%s' is an empty list", key);
		return NULL;
	}
	char *text = malloc(cap);
	if (!text) {
		node_error(sc, list, "out of memory");
		return NULL;
	}
	size_t used = 0;
	text[0] = '\0';
	for (yaml_node_item_t *e = list->data.sequence.items.start; e < list->data.sequence.items.top; e++) {
		yaml_node_t *node = node_at(sc, *e);
		const char *name = NULL, *value = NULL;
		if (node->type == YAML_SCALAR_NODE) {
			value = scalar(sc, node, key);
		} else if (node->type == YAML_MAPPING_NODE &&
			   node->data.mapping.pairs.top - node->data.mapping.pairs.start == 1) {
			yaml_node_pair_t *p = node->data.mapping.pairs.start;
			yaml_node_t *k = node_at(sc, p->key);
			name = k->type == YAML_SCALAR_NODE ? key_text(k) : NULL;
			value = scalar(sc, node_at(sc, p->value), name ? name : key);
			if (!name || !plain_element(name) || !name[0]) {
				node_error(sc, k, "each name in '%s' must be a word", key);
				value = NULL;
			}
		} else {
			node_error(sc, node, "each element of '%s' must be a value or a 'name: value' pair, not %s",
				   key, hwdb_yaml_type_name(node));
		}
		if (!value) {
			free(text);
			return NULL;
		}
		if (!plain_element(value) && !(name == NULL && !strchr(value, ','))) {
			node_error(sc, node, "an element of '%s' holds a ',' or a second '=': '%s'", key, value);
			free(text);
			return NULL;
		}
		used += (size_t)snprintf(text + used, cap - used, "%s%s%s%s", used ? "," : "", name ? name : "",
					 name ? "=" : "", value);
	}
	return own(sc, text, list);
}

/* Reads one mapping's keys into values with spec; reserved keys are skipped
 * (the caller reads them). Reports unknown keys. */
static void read_keys(struct eval_scenario *sc, const yaml_node_t *map, struct param_values *values,
		      const char *const *reserved, const char *what)
{
	check_duplicates(sc, map);
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node_at(sc, p->key);
		yaml_node_t *v = node_at(sc, p->value);
		const char *key = key_text(k);
		bool skip = false;
		for (const char *const *r = reserved; r && *r; r++)
			skip |= strcmp(*r, key) == 0;
		if (skip)
			continue;
		int i = params_index(values->spec, values->count, key);
		if (i < 0 || (values->spec[i].flags & PARAM_CLI_ONLY)) {
			char known[1024];
			key_list(values->spec, values->count, known, sizeof known);
			node_error(sc, k, "unknown key '%s' in %s (known: %s)", key, what, known);
			continue;
		}
		char suffix[200];
		snprintf(suffix, sizeof suffix, ": %s", key);
		const char *where = own_where(sc, v, suffix);
		if (!where) {
			values->bad[i] = true;
			continue;
		}
		if ((values->spec[i].flags & PARAM_JOIN) && v->type == YAML_SEQUENCE_NODE) {
			const char *text = join_list(sc, v, key);
			if (!text)
				values->bad[i] = true;
			else if (params_set(values, i, text, where, sc->st) != 0)
				sc->errors++;
			continue;
		}
		if (values->spec[i].kind == PARAM_LIST) {
			if (v->type != YAML_SEQUENCE_NODE) {
				node_error(sc, v, "'%s' must be a list, not %s", key, hwdb_yaml_type_name(v));
				continue;
			}
			values->where[i] = where;
			values->set[i] = true;
			values->text[i] = "";
			values->node[i] = v;
			continue;
		}
		const char *text = scalar(sc, v, key);
		if (!text)
			values->bad[i] = true; /* reported: not "missing" too */
		else if (params_set(values, i, text, where, sc->st) != 0)
			sc->errors++;
	}
}

static const char *const item_reserved[] = { "name", "kind", "expect", "book", "tolerance", NULL };

static void load_item(struct eval_scenario *sc, struct eval_item *it, yaml_node_t *node, int index)
{
	it->sc = sc;
	it->node = node;
	it->tolerance = DEFAULT_TOLERANCE;
	it->where = own_where(sc, node, "");
	if (!it->where)
		it->where = sc->path;
	snprintf(it->name, sizeof it->name, "item %d", index + 1);
	if (node->type != YAML_MAPPING_NODE) {
		node_error(sc, node, "each item must be a mapping with a 'kind', not %s", hwdb_yaml_type_name(node));
		return;
	}
	yaml_node_t *name = map_get(sc, node, "name", NULL);
	if (name) {
		const char *text = scalar(sc, name, "name");
		if (text)
			snprintf(it->name, sizeof it->name, "%s", text);
	}
	char kinds[256];
	kind_list(kinds, sizeof kinds);
	yaml_node_t *kind = map_get(sc, node, "kind", NULL);
	if (!kind) {
		node_error(sc, node, "item '%s' has no 'kind' (one of: %s)", it->name, kinds);
		return;
	}
	const char *kind_name = scalar(sc, kind, "kind");
	if (!kind_name)
		return;
	it->calc = find_kind(kind_name);
	if (!it->calc) {
		node_error(sc, kind, "unknown kind '%s' (one of: %s)", kind_name, kinds);
		return;
	}
	params_init(&it->values, it->calc->params, it->calc->param_count);
	char what[200];
	snprintf(what, sizeof what, "a %s item", it->calc->name);
	read_keys(sc, node, &it->values, item_reserved, what);

	yaml_node_t *k;
	if ((it->expect = map_get(sc, node, "expect", &k)) && it->expect->type != YAML_MAPPING_NODE) {
		node_error(sc, it->expect, "'expect' must be a mapping of result keys to values, not %s",
			   hwdb_yaml_type_name(it->expect));
		it->expect = NULL;
	}
	if ((it->book = map_get(sc, node, "book", &k)) && it->book->type != YAML_MAPPING_NODE) {
		node_error(sc, it->book, "'book' must be a mapping of result keys to printed values, not %s",
			   hwdb_yaml_type_name(it->book));
		it->book = NULL;
	}
	yaml_node_t *tol = map_get(sc, node, "tolerance", NULL);
	if (tol) {
		const char *text = scalar(sc, tol, "tolerance");
		char err[200];
		if (text && (ridge_quantity_parse(text, RIDGE_UNIT_COUNT, &it->tolerance, err, sizeof err) != 0 ||
			     !(it->tolerance >= 0 && it->tolerance < 1)))
			node_error(sc, tol, "tolerance: '%s' must be a relative tolerance in [0, 1)", text);
	}

	for (int i = 0; i < it->values.count; i++)
		if (!it->values.set[i] && (it->values.spec[i].flags & PARAM_MODEL) && sc->model)
			fill_from_model(sc, it, i);
	int missing = params_missing(&it->values);
	if (missing >= 0) {
		bool model = it->values.spec[missing].flags & PARAM_MODEL;
		node_error(sc, node, "item '%s' (%s): missing key '%s'%s", it->name, it->calc->name,
			   it->values.spec[missing].name, model ? " (in the item or the model section)" : "");
	}

	if (!it->calc->takes_no_gpu) {
		it->gpu = sc->gpu;
		int g = params_index(it->values.spec, it->values.count, "gpu");
		if (g >= 0 && it->values.set[g]) {
			yaml_node_t *gn = map_get(sc, node, "gpu", NULL);
			it->gpu = find_gpu(sc, gn ? gn : node, it->values.text[g]);
			if (!it->gpu)
				return;
		}
		if (!it->gpu)
			it->gpu = &hwdb_find(&sc->hw.db, app_hw_default_gpu(&sc->hw))->gpu;
	}
}

static const char *const top_keys[] = { "scenario", "description", "gpu", "model", "items", NULL };

static struct eval_scenario *eval_load(const char *path, char *text, size_t len, const char *hwdb_dir,
				       const char *calibration, struct app_status *st);

struct eval_scenario *eval_open(const char *path, const char *hwdb_dir, const char *calibration, struct app_status *st)
{
	size_t len = 0;
	char *text = app_read_file(path, MAX_SCENARIO_BYTES, "scenario file", &len, st);
	if (!text)
		return NULL;
	return eval_load(path, text, len, hwdb_dir, calibration, st);
}

struct eval_scenario *eval_parse(const char *path, const char *text, size_t len, const char *hwdb_dir,
				 const char *calibration, struct app_status *st)
{
	if (len > MAX_SCENARIO_BYTES) {
		app_error(st, "'%s' is larger than %u bytes: not a scenario file", path, MAX_SCENARIO_BYTES);
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
			     HWDB_MAX_NESTING);
	else if (bound == HWDB_YAML_CYCLE)
		app_error_at(st, path, line, col, "an alias inside the node it names: an endless expansion");
	else
		app_error_at(st, path, line, col,
			     "more than %ld YAML nodes (aliases expanded), the limit of a scenario file",
			     MAX_SCENARIO_NODES);
}

/* Takes text (malloc'd, text[len] == '\0'): the scenario keeps it, or it is freed. */
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
	int deep_line, deep_col;
	int bound = hwdb_yaml_bounds(sc->text, len, HWDB_MAX_NESTING, MAX_SCENARIO_NODES, &deep_line, &deep_col);
	if (bound != 0) {
		bound_error(st, path, bound, deep_line, deep_col);
		eval_close(sc);
		return NULL;
	}
	if (memchr(sc->text, '\0', len)) {
		int line, col;
		app_text_position(sc->text, (size_t)((char *)memchr(sc->text, '\0', len) - sc->text), &line, &col);
		app_error_at(st, path, line, col, "binary data (a NUL byte): not a YAML file");
		eval_close(sc);
		return NULL;
	}
	yaml_parser_t parser;
	if (!yaml_parser_initialize(&parser)) {
		app_error(st, "cannot initialize the YAML parser");
		eval_close(sc);
		return NULL;
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
		eval_close(sc);
		return NULL;
	}
	sc->have_doc = true;
	/* yaml_parser_load reads one document: items after a "---" would be
	 * dropped without a word. */
	yaml_document_t next;
	if (!yaml_parser_load(&parser, &next)) {
		app_error_at(st, path, (int)parser.problem_mark.line + 1, (int)parser.problem_mark.column + 1,
			     "invalid YAML: %s", parser.problem ? parser.problem : "parse error");
		yaml_parser_delete(&parser);
		eval_close(sc);
		return NULL;
	}
	yaml_node_t *extra = yaml_document_get_root_node(&next);
	if (extra) {
		app_error_at(st, path, (int)extra->start_mark.line + 1, (int)extra->start_mark.column + 1,
			     "a second YAML document: a scenario file is one mapping");
		yaml_document_delete(&next);
		yaml_parser_delete(&parser);
		eval_close(sc);
		return NULL;
	}
	yaml_document_delete(&next);
	yaml_parser_delete(&parser);

	bound = hwdb_yaml_expanded(&sc->doc, MAX_SCENARIO_NODES, &deep_line, &deep_col);
	if (bound != 0) {
		bound_error(st, path, bound, deep_line, deep_col);
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
		node_error(sc, root, "the top level must be a mapping (scenario, gpu, model, items), not %s",
			   hwdb_yaml_type_name(root));
		eval_close(sc);
		return NULL;
	}
	if (app_hw_open(&sc->hw, hwdb_dir, calibration, st) != 0) {
		eval_close(sc);
		return NULL;
	}
	sc->hw_open = true;

	check_duplicates(sc, root);
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node_at(sc, p->key);
		bool known = false;
		for (const char *const *t = top_keys; *t; t++)
			known |= strcmp(*t, key_text(k)) == 0;
		if (!known)
			node_error(sc, k, "unknown key '%s' (known: scenario, description, gpu, model, items)",
				   key_text(k));
	}
	yaml_node_t *title = map_get(sc, root, "scenario", NULL);
	if (title) {
		const char *text = scalar(sc, title, "scenario");
		if (text)
			snprintf(sc->title, sizeof sc->title, "%s", text);
	}
	yaml_node_t *description = map_get(sc, root, "description", NULL);
	if (description)
		scalar(sc, description, "description");
	yaml_node_t *gpu = map_get(sc, root, "gpu", NULL);
	if (gpu) {
		const char *name = scalar(sc, gpu, "gpu");
		if (name)
			sc->gpu = find_gpu(sc, gpu, name);
	} else {
		const struct hwdb_entry *e = hwdb_find(&sc->hw.db, app_hw_default_gpu(&sc->hw));
		sc->gpu = e ? &e->gpu : NULL;
	}
	yaml_node_t *model = map_get(sc, root, "model", NULL);
	if (model)
		load_model(sc, model);

	yaml_node_t *items = map_get(sc, root, "items", NULL);
	if (!items) {
		node_error(sc, root, "no 'items': a scenario needs a list of what-ifs");
	} else if (items->type != YAML_SEQUENCE_NODE) {
		node_error(sc, items, "'items' must be a list, not %s", hwdb_yaml_type_name(items));
	} else {
		int n = (int)(items->data.sequence.items.top - items->data.sequence.items.start);
		if (n == 0)
			node_error(sc, items, "'items' is empty");
		if (n > MAX_SCENARIO_ITEMS) {
			node_error(sc, items, "%d items: more than %d, the limit of a scenario file", n,
				   MAX_SCENARIO_ITEMS);
			eval_close(sc);
			return NULL;
		}
		sc->items = calloc(n > 0 ? (size_t)n : 1, sizeof *sc->items);
		if (!sc->items) {
			app_error(st, "out of memory");
			eval_close(sc);
			return NULL;
		}
		for (int i = 0; i < n; i++)
			load_item(sc, &sc->items[i], node_at(sc, items->data.sequence.items.start[i]), i);
		sc->count = n;
	}
	if (sc->errors) {
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
	return map_get(item->sc, item->node, key, NULL) != NULL;
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
	const yaml_node_t *list = params_node(&item->values, key);
	if (!list)
		return 0;
	int before = sc->errors;
	for (yaml_node_item_t *e = list->data.sequence.items.start; e < list->data.sequence.items.top; e++) {
		yaml_node_t *node = node_at(sc, *e);
		int index = (int)(e - list->data.sequence.items.start);
		if (node->type != YAML_MAPPING_NODE) {
			node_error(sc, node, "each of '%s' must be a mapping, not %s", key, hwdb_yaml_type_name(node));
			continue;
		}
		struct param_values v;
		params_init(&v, spec, count);
		char what[96];
		snprintf(what, sizeof what, "an element of '%s'", key);
		read_keys(sc, node, &v, NULL, what);
		int missing = params_missing(&v);
		if (missing >= 0) {
			node_error(sc, node, "%s element %d: missing key '%s'", key, index + 1, spec[missing].name);
			continue;
		}
		if (sc->errors != before)
			continue;
		char where[PARAM_WHERE];
		where_of(sc, node, where, sizeof where);
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

/* ---- expect and book ---- */

/* "target.cost_usd", "ranking.0.name": parsed strictly, so that a check
 * can never pass against the wrong value. Every component is non-empty and
 * must resolve: a key of the object it is under, or a decimal index (digits
 * only) within the array's length; else NULL with why set. */
#define MAX_RESULT_PATH 255

static const cJSON *result_path(const cJSON *root, const char *path, char *why, size_t why_len)
{
	size_t len = strlen(path);
	if (len == 0 || len > MAX_RESULT_PATH) {
		snprintf(why, why_len, len ? "the key is longer than %d characters" : "the key is empty",
			 MAX_RESULT_PATH);
		return NULL;
	}
	const cJSON *cur = root;
	const char *seg = path;
	for (;;) {
		const char *dot = strchr(seg, '.');
		size_t n = dot ? (size_t)(dot - seg) : strlen(seg);
		char name[MAX_RESULT_PATH + 1];
		memcpy(name, seg, n);
		name[n] = '\0';
		int done = (int)(seg - path);
		if (n == 0) {
			snprintf(why, why_len, "an empty component at character %d of '%s'", done + 1, path);
			return NULL;
		}
		if (cJSON_IsArray(cur)) {
			int size = cJSON_GetArraySize(cur);
			if (strspn(name, "0123456789") != n) {
				snprintf(why, why_len, "'%.*s' is a list: '%s' is not an index (0..%d)",
					 done ? done - 1 : 0, path, name, size - 1);
				return NULL;
			}
			/* Compared as text first: 4294967296 must not wrap to 0. */
			char *end;
			unsigned long long idx = n <= 10 ? strtoull(name, &end, 10) : ULLONG_MAX;
			if (idx >= (unsigned long long)size) {
				snprintf(why, why_len, "index %s is out of range: '%.*s' has %d elements", name,
					 done ? done - 1 : 0, path, size);
				return NULL;
			}
			cur = cJSON_GetArrayItem(cur, (int)idx);
		} else if (cJSON_IsObject(cur)) {
			const cJSON *next = cJSON_GetObjectItemCaseSensitive(cur, name);
			if (!next) {
				if (done)
					snprintf(why, why_len, "'%.*s' has no '%s'", done - 1, path, name);
				else
					snprintf(why, why_len, "no '%s'", name);
				return NULL;
			}
			cur = next;
		} else {
			snprintf(why, why_len, "'%.*s' is a value, not a list or mapping: it has no '%s'", done - 1,
				 path, name);
			return NULL;
		}
		if (!dot)
			return cur;
		seg = dot + 1;
	}
}

static int parse_expected_number(const char *text, double *out)
{
	char err[200];
	if (ridge_quantity_parse(text, RIDGE_UNIT_COUNT, out, err, sizeof err) == 0)
		return 0;
	if (ridge_quantity_parse(text, RIDGE_UNIT_USD, out, err, sizeof err) == 0)
		return 0;
	if (strchr(text, '%') && params_parse_fraction(text, out, err, sizeof err) == 0)
		return 0;
	return -1;
}

static bool close_enough(double actual, double expected, double tolerance)
{
	if (expected == 0)
		return fabs(actual) <= tolerance;
	return fabs(actual - expected) <= tolerance * fabs(expected);
}

/* One key of an item's expect: or book: mapping, found in its result. */
struct result_key {
	const yaml_node_t *key_node, *value_node;
	const char *key;     /* a result path (result_path) */
	const char *text;    /* the scenario's value for it */
	const cJSON *actual; /* the result's */
};

/* What expect: and book: do with each key: append to out; returns 1 for a
 * failed check, 0, or -1 after an error. */
typedef int result_key_fn(struct eval_scenario *sc, const struct eval_item *it, const struct result_key *rk,
			  cJSON *out);

/* Resolves each key of an item's section ("expect" or "book", a mapping, or
 * NULL) in its result, the value a number when numbers_only, and hands it to
 * fn. Returns the sum of fn's answers, or -1 after the first error. */
static int each_result_key(struct eval_scenario *sc, const struct eval_item *it, const yaml_node_t *section,
			   const char *section_name, bool numbers_only, const cJSON *result, result_key_fn *fn,
			   cJSON *out)
{
	int sum = 0;
	if (!section)
		return 0;
	for (yaml_node_pair_t *p = section->data.mapping.pairs.start; p < section->data.mapping.pairs.top; p++) {
		struct result_key rk = { .key_node = node_at(sc, p->key), .value_node = node_at(sc, p->value) };
		rk.key = key_text(rk.key_node);
		char why[400];
		rk.actual = result_path(result, rk.key, why, sizeof why);
		if (!rk.actual || (numbers_only && !cJSON_IsNumber(rk.actual))) {
			node_error(sc, rk.key_node, "%s: the %s item has no %s '%.300s'%s%s", section_name,
				   it->calc->name, numbers_only ? "number" : "result", rk.key, rk.actual ? "" : ": ",
				   rk.actual ? "" : why);
			return -1;
		}
		if (!(rk.text = scalar(sc, rk.value_node, rk.key)))
			return -1;
		int answer = fn(sc, it, &rk, out);
		if (answer < 0)
			return -1;
		sum += answer;
	}
	return sum;
}

/* expect: one check appended to checks; 1 when it fails. */
static int add_check(struct eval_scenario *sc, const struct eval_item *it, const struct result_key *rk, cJSON *checks)
{
	const cJSON *actual = rk->actual;
	const char *key = rk->key, *text = rk->text;
	bool ok;
	cJSON *c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "key", key);
	if (cJSON_IsNumber(actual)) {
		double want;
		if (parse_expected_number(text, &want) != 0) {
			cJSON_Delete(c);
			node_error(sc, rk->value_node, "expect: %s: '%s' is not a number", key, text);
			return -1;
		}
		ok = close_enough(actual->valuedouble, want, it->tolerance);
		json_number(c, "expected", want);
		json_number(c, "actual", actual->valuedouble);
	} else if (cJSON_IsBool(actual)) {
		bool want = strcasecmp(text, "true") == 0 || strcasecmp(text, "yes") == 0;
		ok = want == (bool)cJSON_IsTrue(actual);
		cJSON_AddBoolToObject(c, "expected", want);
		cJSON_AddBoolToObject(c, "actual", cJSON_IsTrue(actual));
	} else if (cJSON_IsString(actual)) {
		ok = strcmp(text, actual->valuestring) == 0;
		cJSON_AddStringToObject(c, "expected", text);
		cJSON_AddStringToObject(c, "actual", actual->valuestring);
	} else if (cJSON_IsNull(actual)) {
		ok = strcasecmp(text, "none") == 0;
		cJSON_AddStringToObject(c, "expected", text);
		cJSON_AddNullToObject(c, "actual");
	} else {
		cJSON_Delete(c);
		node_error(sc, rk->key_node, "expect: '%s' is a list or mapping; name one of its values", key);
		return -1;
	}
	char where[PARAM_WHERE];
	where_of(sc, rk->value_node, where, sizeof where);
	cJSON_AddStringToObject(c, "where", where);
	cJSON_AddBoolToObject(c, "ok", ok);
	cJSON_AddItemToArray(checks, c);
	return !ok;
}

/* book: the source's printed value beside the exact one, appended to book. */
static int add_book(struct eval_scenario *sc, const struct eval_item *it, const struct result_key *rk, cJSON *book)
{
	(void)it;
	double printed, exact = rk->actual->valuedouble;
	if (parse_expected_number(rk->text, &printed) != 0) {
		node_error(sc, rk->value_node, "book: %s: '%s' is not a number", rk->key, rk->text);
		return -1;
	}
	cJSON *b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "key", rk->key);
	json_number(b, "book", printed);
	json_number(b, "exact", exact);
	json_number(b, "drift", printed - exact);
	json_number(b, "drift_relative", exact != 0 ? (printed - exact) / exact : NAN);
	cJSON_AddItemToArray(book, b);
	return 0;
}

static void print_number(double v, char *buf, size_t len)
{
	if (v == floor(v) && fabs(v) >= 10000 && fabs(v) < 1e21)
		fmt_grouped(v, 0, buf, len);
	else
		cost_format_exact(v, buf, len);
}

static void print_book(const cJSON *book)
{
	if (cJSON_GetArraySize(book) == 0)
		return;
	printf("\n  The source's printed values against the exact ones:\n");
	printf("    %-28s %26s %26s %24s %10s\n", "key", "book", "exact", "drift (book - exact)", "drift");
	const cJSON *b;
	cJSON_ArrayForEach (b, book) {
		char printed[48], exact[48], drift[48], rel[32];
		print_number(calc_num(b, "book"), printed, sizeof printed);
		print_number(calc_num(b, "exact"), exact, sizeof exact);
		double dv = calc_num(b, "drift");
		if (dv == floor(dv))
			print_number(dv, drift, sizeof drift);
		else
			snprintf(drift, sizeof drift, "%.6g", dv);
		snprintf(rel, sizeof rel, "%+.3g%%", calc_num(b, "drift_relative") * 100);
		printf("    %-28s %26s %26s %24s %10s\n", calc_str(b, "key"), printed, exact, drift, rel);
	}
}

static void print_checks(const cJSON *checks)
{
	int n = cJSON_GetArraySize(checks), bad = 0;
	if (n == 0)
		return;
	const cJSON *c;
	cJSON_ArrayForEach (c, checks) {
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "ok")))
			continue;
		bad++;
		char want[64], got[64];
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(c, "expected");
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(c, "actual");
		if (cJSON_IsNumber(e)) {
			cost_format_exact(e->valuedouble, want, sizeof want);
			cost_format_exact(a->valuedouble, got, sizeof got);
		} else {
			snprintf(want, sizeof want, "%s",
				 cJSON_IsString(e) ? e->valuestring
				 : cJSON_IsTrue(e) ? "true"
						   : "false");
			snprintf(got, sizeof got, "%s",
				 cJSON_IsString(a) ? a->valuestring
				 : cJSON_IsNull(a) ? "none"
				 : cJSON_IsTrue(a) ? "true"
						   : "false");
		}
		printf("  FAIL %s: %s expected %s, got %s\n", calc_str(c, "where"), calc_str(c, "key"), want, got);
	}
	printf("\n  checks: %d of %d as expected\n", n - bad, n);
}

cJSON *eval_file(const char *path, const char *hwdb_dir, const char *calibration, const char *only_kind,
		 struct app_status *st)
{
	struct eval_scenario *sc = eval_open(path, hwdb_dir, calibration, st);
	if (!sc)
		return NULL;
	int selected = 0;
	bool needs_gpu = false;
	for (int i = 0; i < sc->count; i++) {
		if (!only_kind || strcmp(sc->items[i].calc->name, only_kind) == 0) {
			selected++;
			needs_gpu |= !sc->items[i].calc->takes_no_gpu;
		}
	}
	if (selected == 0) {
		app_error_at(st, path, 0, 0, "no '%s' item in this scenario", only_kind);
		eval_close(sc);
		return NULL;
	}
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "file", sc->path);
	if (sc->title[0])
		cJSON_AddStringToObject(doc, "scenario", sc->title);
	if (sc->gpu && needs_gpu)
		calc_json_gpu(doc, sc->gpu);
	if (sc->model_name[0])
		cJSON_AddStringToObject(doc, "model", sc->model_name);
	cJSON *items = cJSON_AddArrayToObject(doc, "items");

	/* Everything runs before anything is printed: a bad item leaves no half report. */
	int failures = 0;
	for (int i = 0; i < sc->count; i++) {
		struct eval_item *it = &sc->items[i];
		if (only_kind && strcmp(it->calc->name, only_kind) != 0)
			continue;
		cJSON *result = eval_run(sc, i, st);
		if (!result)
			goto bad;
		cJSON *entry = cJSON_CreateObject();
		cJSON_AddStringToObject(entry, "name", it->name);
		cJSON_AddStringToObject(entry, "kind", it->calc->name);
		cJSON_AddStringToObject(entry, "where", it->where);
		cJSON_AddItemToObject(entry, "result", result);
		cJSON *book = cJSON_AddArrayToObject(entry, "book");
		cJSON *checks = cJSON_AddArrayToObject(entry, "checks");
		cJSON_AddItemToArray(items, entry);
		if (each_result_key(sc, it, it->book, "book", true, result, add_book, book) != 0)
			goto bad;
		int failed = each_result_key(sc, it, it->expect, "expect", false, result, add_check, checks);
		if (failed < 0)
			goto bad;
		failures += failed;
	}
	cJSON_AddBoolToObject(doc, "ok", failures == 0);
	eval_close(sc);
	return doc;
bad:
	cJSON_Delete(doc);
	eval_close(sc);
	return NULL;
}

void eval_print(const cJSON *doc)
{
	const char *title = calc_str(doc, "scenario");
	printf("Scenario %s%s%s%s\n", title[0] ? "'" : "", title, title[0] ? "' " : "", calc_str(doc, "file"));
	if (calc_has(doc, "gpu")) {
		const char *model = calc_str(doc, "model");
		/* The words of app_ceiling_source(), from the document's "ceilings". */
		printf("GPU %s (%s ceilings)%s%s\n", calc_str(doc, "gpu"),
		       strcmp(calc_str(doc, "ceilings"), "measured") == 0 ? "measured (calibration)" : "spec sheet",
		       model[0] ? ", model " : "", model);
	}
	int n = 0;
	const cJSON *entry;
	cJSON_ArrayForEach (entry, cJSON_GetObjectItemCaseSensitive(doc, "items")) {
		const struct calc *calc = find_kind(calc_str(entry, "kind"));
		const cJSON *result = cJSON_GetObjectItemCaseSensitive(entry, "result");
		printf("\n[%d] %s  (%s, %s)\n", ++n, calc_str(entry, "name"), calc->name, calc_str(entry, "where"));
		if (calc->print_item)
			calc->print_item(result);
		else if (calc->print)
			calc->print(result);
		else
			calc_print_table(result, "  ");
		print_book(cJSON_GetObjectItemCaseSensitive(entry, "book"));
		print_checks(cJSON_GetObjectItemCaseSensitive(entry, "checks"));
	}
	printf("\n%d item%s, %s\n", n, n == 1 ? "" : "s",
	       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "ok")) ? "every check as expected"
									 : "some checks FAILED");
}
