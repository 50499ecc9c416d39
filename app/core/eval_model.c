/* Scenario files: the model section (inline keys or a model config), read once and given to every item that takes a model key. */
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

/* ---- the model section ---- */

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
	const char *file = eval_scalar(sc, node, "config");
	if (!file)
		return;
	char path[1024];
	eval_path(sc, file, path, sizeof path);
	struct app_model_config cfg;
	if (app_model_config_load(path, &cfg, sc->st) != 0) {
		eval_node_error(sc, node, "model.config: cannot use '%s' (above)", file);
		return;
	}
	sc->has_model_config = true;
	sc->model_config = cfg;
	char where[PARAM_WHERE];
	eval_where_of(sc, node, where, sizeof where);
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

void eval_load_model(struct eval_scenario *sc, yaml_node_t *model)
{
	if (model->type != YAML_MAPPING_NODE) {
		eval_node_error(sc, model,
				"'model' must be a mapping (params, layers, kv_heads, ... or config), not %s",
				hwdb_yaml_type_name(model));
		return;
	}
	sc->model = model;
	eval_check_duplicates(sc, model);
	struct model_value *values = sc->model_values;
	yaml_node_t *config = NULL;
	for (yaml_node_pair_t *p = model->data.mapping.pairs.start; p < model->data.mapping.pairs.top; p++) {
		yaml_node_t *k = eval_node_at(sc, p->key), *v = eval_node_at(sc, p->value);
		const char *key = eval_key_text(k);
		int found = -1;
		for (int i = 0; i < M_KEY_COUNT; i++)
			if (strcmp(key, model_keys[i].key) == 0 ||
			    (model_keys[i].alias && strcmp(key, model_keys[i].alias) == 0))
				found = i;
		if (found >= 0) {
			const char *text = eval_scalar(sc, v, key);
			char err[200];
			double number;
			values[found].bad = true; /* until it is set below */
			if (!text)
				continue;
			if (values[found].set) {
				eval_node_error(sc, k, "model.%s is given twice (as %s and %s)", model_keys[found].key,
						model_keys[found].key, model_keys[found].alias);
			} else if (ridge_quantity_parse(text, RIDGE_UNIT_COUNT, &number, err, sizeof err) != 0) {
				eval_node_error(sc, v, "model.%s: %s", key, err);
			} else if (!(number > 0)) {
				eval_node_error(sc, v, "model.%s: '%s' must be greater than 0", key, text);
			} else {
				char where[PARAM_WHERE];
				eval_where_of(sc, v, where, sizeof where);
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
			eval_node_error(
				sc, k,
				"unknown model key '%s' (known: name, description, config, params, layers, heads, kv_heads, "
				"head_dim, hidden_size, intermediate_size, vocab_size, tie_word_embeddings and the config.json "
				"names num_hidden_layers, num_attention_heads, num_key_value_heads)",
				key);
		} else if (strcmp(key, "name") == 0) {
			const char *text = eval_scalar(sc, v, key);
			if (text)
				snprintf(sc->model_name, sizeof sc->model_name, "%s", text);
		} else if (strcmp(key, "config") == 0) {
			config = v;
		} else {
			eval_scalar(sc, v, key);
		}
	}
	if (config)
		load_model_config(sc, config, values);

	/* Derived: head_dim = hidden / heads, and params from the shape when the
	 * section gives the config.json dimensions but no count. */
	char where[PARAM_WHERE];
	eval_where_of(sc, model, where, sizeof where);
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
		yaml_node_t *tied = eval_map_get(sc, model, "tie_word_embeddings", NULL);
		const char *t =
			tied && tied->type == YAML_SCALAR_NODE ? (const char *)tied->data.scalar.value : "false";
		shape.tied_embeddings = strcasecmp(t, "true") == 0 || strcasecmp(t, "yes") == 0;
		double params;
		char err[200], w[PARAM_WHERE];
		snprintf(w, sizeof w, "%s: model.params (derived from the shape)", where);
		if (cost_model_params(&shape, &params, NULL, err, sizeof err) == 0)
			model_set(&values[M_PARAMS], params, w);
		else
			eval_node_error(sc, model, "model: %s", err);
	}
}

/* Fills a PARAM_MODEL parameter the item left out from the model section. */
void eval_fill_from_model(struct eval_scenario *sc, struct eval_item *it, int i)
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
