/* Scenario files: one item, its kind's calculator and its keys read through the calculator's parameter table (lists joined, positions kept). */
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

/* ---- items ---- */

const struct calc *eval_find_kind(const char *name)
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
char *eval_own(struct eval_scenario *sc, char *text, const yaml_node_t *node)
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
		eval_node_error(sc, node, "out of memory");
		return NULL;
	}
	sc->owned[sc->owned_count++] = text;
	return text;
}

/* "file:line:col" of node, then suffix (": key"), as a text the scenario owns. */
static const char *own_where(struct eval_scenario *sc, const yaml_node_t *node, const char *suffix)
{
	char where[PARAM_WHERE];
	eval_where_of(sc, node, where, sizeof where);
	snprintf(where + strlen(where), sizeof where - strlen(where), "%s", suffix);
	return eval_own(sc, strdup(where), node);
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
		yaml_node_t *node = eval_node_at(sc, *e);
		if (node->type == YAML_SCALAR_NODE) {
			cap += strlen((const char *)node->data.scalar.value) + 1;
		} else if (node->type == YAML_MAPPING_NODE &&
			   node->data.mapping.pairs.top - node->data.mapping.pairs.start == 1) {
			yaml_node_pair_t *p = node->data.mapping.pairs.start;
			cap += strlen(eval_key_text(eval_node_at(sc, p->key))) + 1;
			yaml_node_t *value = eval_node_at(sc, p->value);
			if (value->type == YAML_SCALAR_NODE)
				cap += strlen((const char *)value->data.scalar.value) + 1;
		}
	}
	if (list->data.sequence.items.top == list->data.sequence.items.start) {
		eval_node_error(sc, list, "'%s' is an empty list", key);
		return NULL;
	}
	char *text = malloc(cap);
	if (!text) {
		eval_node_error(sc, list, "out of memory");
		return NULL;
	}
	size_t used = 0;
	text[0] = '\0';
	for (yaml_node_item_t *e = list->data.sequence.items.start; e < list->data.sequence.items.top; e++) {
		yaml_node_t *node = eval_node_at(sc, *e);
		const char *name = NULL, *value = NULL;
		if (node->type == YAML_SCALAR_NODE) {
			value = eval_scalar(sc, node, key);
		} else if (node->type == YAML_MAPPING_NODE &&
			   node->data.mapping.pairs.top - node->data.mapping.pairs.start == 1) {
			yaml_node_pair_t *p = node->data.mapping.pairs.start;
			yaml_node_t *k = eval_node_at(sc, p->key);
			name = k->type == YAML_SCALAR_NODE ? eval_key_text(k) : NULL;
			value = eval_scalar(sc, eval_node_at(sc, p->value), name ? name : key);
			if (!name || !plain_element(name) || !name[0]) {
				eval_node_error(sc, k, "each name in '%s' must be a word", key);
				value = NULL;
			}
		} else {
			eval_node_error(sc, node,
					"each element of '%s' must be a value or a 'name: value' pair, not %s", key,
					hwdb_yaml_type_name(node));
		}
		if (!value) {
			free(text);
			return NULL;
		}
		if (!plain_element(value) && !(name == NULL && !strchr(value, ','))) {
			eval_node_error(sc, node, "an element of '%s' holds a ',' or a second '=': '%s'", key, value);
			free(text);
			return NULL;
		}
		used += (size_t)snprintf(text + used, cap - used, "%s%s%s%s", used ? "," : "", name ? name : "",
					 name ? "=" : "", value);
	}
	return eval_own(sc, text, list);
}

/* Reads one mapping's keys into values with spec; reserved keys are skipped
 * (the caller reads them). Reports unknown keys. */
void eval_read_keys(struct eval_scenario *sc, const yaml_node_t *map, struct param_values *values,
		    const char *const *reserved, const char *what)
{
	eval_check_duplicates(sc, map);
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = eval_node_at(sc, p->key);
		yaml_node_t *v = eval_node_at(sc, p->value);
		const char *key = eval_key_text(k);
		bool skip = false;
		for (const char *const *r = reserved; r && *r; r++)
			skip |= strcmp(*r, key) == 0;
		if (skip)
			continue;
		int i = params_index(values->spec, values->count, key);
		if (i < 0 || (values->spec[i].flags & PARAM_CLI_ONLY)) {
			char known[1024];
			key_list(values->spec, values->count, known, sizeof known);
			eval_node_error(sc, k, "unknown key '%s' in %s (known: %s)", key, what, known);
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
				eval_node_error(sc, v, "'%s' must be a list, not %s", key, hwdb_yaml_type_name(v));
				continue;
			}
			values->where[i] = where;
			values->set[i] = true;
			values->text[i] = "";
			values->node[i] = v;
			continue;
		}
		const char *text = eval_scalar(sc, v, key);
		if (!text)
			values->bad[i] = true; /* reported: not "missing" too */
		else if (params_set(values, i, text, where, sc->st) != 0)
			sc->errors++;
	}
}

static const char *const item_reserved[] = { "name", "kind", "expect", "book", "tolerance", NULL };

void eval_load_item(struct eval_scenario *sc, struct eval_item *it, yaml_node_t *node, int index)
{
	it->sc = sc;
	it->node = node;
	it->tolerance = DEFAULT_TOLERANCE;
	it->where = own_where(sc, node, "");
	if (!it->where)
		it->where = sc->path;
	snprintf(it->name, sizeof it->name, "item %d", index + 1);
	if (node->type != YAML_MAPPING_NODE) {
		eval_node_error(sc, node, "each item must be a mapping with a 'kind', not %s",
				hwdb_yaml_type_name(node));
		return;
	}
	yaml_node_t *name = eval_map_get(sc, node, "name", NULL);
	if (name) {
		const char *text = eval_scalar(sc, name, "name");
		if (text)
			snprintf(it->name, sizeof it->name, "%s", text);
	}
	char kinds[256];
	kind_list(kinds, sizeof kinds);
	yaml_node_t *kind = eval_map_get(sc, node, "kind", NULL);
	if (!kind) {
		eval_node_error(sc, node, "item '%s' has no 'kind' (one of: %s)", it->name, kinds);
		return;
	}
	const char *kind_name = eval_scalar(sc, kind, "kind");
	if (!kind_name)
		return;
	it->calc = eval_find_kind(kind_name);
	if (!it->calc) {
		eval_node_error(sc, kind, "unknown kind '%s' (one of: %s)", kind_name, kinds);
		return;
	}
	params_init(&it->values, it->calc->params, it->calc->param_count);
	char what[200];
	snprintf(what, sizeof what, "a %s item", it->calc->name);
	eval_read_keys(sc, node, &it->values, item_reserved, what);

	yaml_node_t *k;
	if ((it->expect = eval_map_get(sc, node, "expect", &k)) && it->expect->type != YAML_MAPPING_NODE) {
		eval_node_error(sc, it->expect, "'expect' must be a mapping of result keys to values, not %s",
				hwdb_yaml_type_name(it->expect));
		it->expect = NULL;
	}
	if ((it->book = eval_map_get(sc, node, "book", &k)) && it->book->type != YAML_MAPPING_NODE) {
		eval_node_error(sc, it->book, "'book' must be a mapping of result keys to printed values, not %s",
				hwdb_yaml_type_name(it->book));
		it->book = NULL;
	}
	yaml_node_t *tol = eval_map_get(sc, node, "tolerance", NULL);
	if (tol) {
		const char *text = eval_scalar(sc, tol, "tolerance");
		char err[200];
		if (text && (ridge_quantity_parse(text, RIDGE_UNIT_COUNT, &it->tolerance, err, sizeof err) != 0 ||
			     !(it->tolerance >= 0 && it->tolerance < 1)))
			eval_node_error(sc, tol, "tolerance: '%s' must be a relative tolerance in [0, 1)", text);
	}

	for (int i = 0; i < it->values.count; i++)
		if (!it->values.set[i] && (it->values.spec[i].flags & PARAM_MODEL) && sc->model)
			eval_fill_from_model(sc, it, i);
	int missing = params_missing(&it->values);
	if (missing >= 0) {
		bool model = it->values.spec[missing].flags & PARAM_MODEL;
		eval_node_error(sc, node, "item '%s' (%s): missing key '%s'%s", it->name, it->calc->name,
				it->values.spec[missing].name, model ? " (in the item or the model section)" : "");
	}

	if (!it->calc->takes_no_gpu) {
		it->gpu = sc->gpu;
		int g = params_index(it->values.spec, it->values.count, "gpu");
		if (g >= 0 && it->values.set[g]) {
			yaml_node_t *gn = eval_map_get(sc, node, "gpu", NULL);
			it->gpu = eval_find_gpu(sc, gn ? gn : node, it->values.text[g]);
			if (!it->gpu)
				return;
		}
		if (!it->gpu)
			it->gpu = &hwdb_find(&sc->hw.db, app_hw_default_gpu(&sc->hw))->gpu;
	}
}
