#include "model_config.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "app.h"
#include "json_check.h"
#include "read_limits.h"

enum key_id {
	KEY_HIDDEN,
	KEY_INTERMEDIATE,
	KEY_HEADS,
	KEY_KV_HEADS,
	KEY_HEAD_DIM,
	KEY_VOCAB,
	KEY_LAYERS,
	KEY_MULTIPLE_OF,
	KEY_FFN_MULTIPLIER,
	/* MoE: Mixtral, Qwen-MoE, DeepSeek */
	KEY_LOCAL_EXPERTS,
	KEY_NUM_EXPERTS,
	KEY_ROUTED_EXPERTS,
	KEY_EXPERTS_PER_TOK,
	KEY_MOE_INTERMEDIATE,
	KEY_SHARED_EXPERTS,
	KEY_SHARED_INTERMEDIATE,
	KEY_FIRST_DENSE,
	KEY_SPARSE_STEP,
	/* MLA: DeepSeek-V2/V3 */
	KEY_Q_LORA,
	KEY_KV_LORA,
	KEY_QK_NOPE,
	KEY_QK_ROPE,
	KEY_V_HEAD,
	KEY_SLIDING_WINDOW,
	/* not numbers */
	KEY_TIE,
	KEY_ATTENTION_BIAS,
	KEY_USE_SLIDING,
	KEY_MODEL_TYPE,
	KEY_COUNT
};

enum key_kind { KIND_NUMBER, KIND_BOOL, KIND_TEXT };

static const struct {
	const char *name;
	bool required;
	bool whole; /* a count; otherwise a positive real */
	enum key_kind kind;
} keys[KEY_COUNT] = {
	[KEY_HIDDEN] = { "hidden_size", true, true, KIND_NUMBER },
	[KEY_INTERMEDIATE] = { "intermediate_size", true, true, KIND_NUMBER },
	[KEY_HEADS] = { "num_attention_heads", true, true, KIND_NUMBER },
	[KEY_KV_HEADS] = { "num_key_value_heads", false, true, KIND_NUMBER },
	[KEY_HEAD_DIM] = { "head_dim", false, true, KIND_NUMBER },
	[KEY_VOCAB] = { "vocab_size", true, true, KIND_NUMBER },
	[KEY_LAYERS] = { "num_hidden_layers", true, true, KIND_NUMBER },
	[KEY_MULTIPLE_OF] = { "multiple_of", false, true, KIND_NUMBER },
	[KEY_FFN_MULTIPLIER] = { "ffn_dim_multiplier", false, false, KIND_NUMBER },
	[KEY_LOCAL_EXPERTS] = { "num_local_experts", false, true, KIND_NUMBER },
	[KEY_NUM_EXPERTS] = { "num_experts", false, true, KIND_NUMBER },
	[KEY_ROUTED_EXPERTS] = { "n_routed_experts", false, true, KIND_NUMBER },
	[KEY_EXPERTS_PER_TOK] = { "num_experts_per_tok", false, true, KIND_NUMBER },
	[KEY_MOE_INTERMEDIATE] = { "moe_intermediate_size", false, true, KIND_NUMBER },
	[KEY_SHARED_EXPERTS] = { "n_shared_experts", false, true, KIND_NUMBER },
	[KEY_SHARED_INTERMEDIATE] = { "shared_expert_intermediate_size", false, true, KIND_NUMBER },
	[KEY_FIRST_DENSE] = { "first_k_dense_replace", false, true, KIND_NUMBER },
	[KEY_SPARSE_STEP] = { "decoder_sparse_step", false, true, KIND_NUMBER },
	[KEY_Q_LORA] = { "q_lora_rank", false, true, KIND_NUMBER },
	[KEY_KV_LORA] = { "kv_lora_rank", false, true, KIND_NUMBER },
	[KEY_QK_NOPE] = { "qk_nope_head_dim", false, true, KIND_NUMBER },
	[KEY_QK_ROPE] = { "qk_rope_head_dim", false, true, KIND_NUMBER },
	[KEY_V_HEAD] = { "v_head_dim", false, true, KIND_NUMBER },
	[KEY_SLIDING_WINDOW] = { "sliding_window", false, true, KIND_NUMBER },
	[KEY_TIE] = { "tie_word_embeddings", false, false, KIND_BOOL },
	[KEY_ATTENTION_BIAS] = { "attention_bias", false, false, KIND_BOOL },
	[KEY_USE_SLIDING] = { "use_sliding_window", false, false, KIND_BOOL },
	[KEY_MODEL_TYPE] = { "model_type", false, false, KIND_TEXT },
};

/* Keys that change a decoder's arithmetic in ways ridge does not model:
 * named in a warning when present (never silently ignored). */
static const struct {
	const char *name;
	double harmless; /* a numeric value that changes nothing (1: every layer, one group); NAN: none */
	const char *why;
} unmodelled_keys[] = {
	{ "num_nextn_predict_layers", 0, "multi-token-prediction modules are not counted" },
	{ "moe_layer_freq", 1, "MoE layers at a frequency other than 1 are not modelled" },
	{ "n_group", 1, "device-limited (grouped) routing is taken as uniform top-k" },
};

struct reader {
	const char *path;
	struct app_status *st;
	bool seen[KEY_COUNT];
	double values[KEY_COUNT];
	bool flags[KEY_COUNT];    /* KIND_BOOL */
	char text[KEY_COUNT][64]; /* KIND_TEXT */
	bool present[sizeof unmodelled_keys / sizeof unmodelled_keys[0]];
	struct app_model_extras extras; /* model_family.c's reading of the structured keys */
	char defaulted[300];            /* "vocab_size 262208, head_dim 256": a nested model's class defaults */
	char defaults_source[48];
};

/* The structured keys (model_family.c) of src (the language model) and root. */
static int read_extras(struct reader *r, const cJSON *src, const cJSON *root)
{
	char why[400];
	if (app_model_extras_read(src, root, &r->extras, why, sizeof why) == 0)
		return 0;
	app_error_at(r->st, r->path, 0, 0, "%s", why);
	return -1;
}

/* value: the key's number, NAN when it is not one; null values never count.
 * An empty list (mlp_only_layers: []) is no different from absence. */
static void note_unmodelled(struct reader *r, const char *name, bool non_null, bool empty, double value)
{
	for (size_t i = 0; i < sizeof unmodelled_keys / sizeof unmodelled_keys[0]; i++)
		if (non_null && !empty && strcmp(unmodelled_keys[i].name, name) == 0 &&
		    !(value == unmodelled_keys[i].harmless))
			r->present[i] = true;
}

static int find_key(const char *name)
{
	for (int i = 0; i < KEY_COUNT; i++)
		if (strcmp(keys[i].name, name) == 0)
			return i;
	return -1;
}

/* Counts where 0 means "none". */
static bool zero_allowed(int key)
{
	return key == KEY_SHARED_EXPERTS || key == KEY_SHARED_INTERMEDIATE || key == KEY_FIRST_DENSE ||
	       key == KEY_Q_LORA || key == KEY_SLIDING_WINDOW;
}

/* where: "FILE" or "FILE:LINE:COL". */
static int store_value(struct reader *r, int key, double value, const char *text, const char *where)
{
	const char *name = keys[key].name;
	if (!isfinite(value)) {
		app_error(r->st, "%s: '%s' must be a finite number, not '%s'", where, name, text);
		return -1;
	}
	if (keys[key].whole && value != floor(value)) {
		app_error(r->st, "%s: '%s' must be a whole number, not '%s'", where, name, text);
		return -1;
	}
	if (!(value > 0) && !(value == 0 && zero_allowed(key))) {
		app_error(r->st, "%s: '%s' must be greater than 0, not '%s'", where, name, text);
		return -1;
	}
	if (keys[key].whole && value > (double)RIDGE_ALIGN_MAX_DIM) {
		app_error(r->st, "%s: '%s' is out of range (1..%lld), got '%s'", where, name, RIDGE_ALIGN_MAX_DIM,
			  text);
		return -1;
	}
	r->seen[key] = true;
	r->values[key] = value;
	return 0;
}

/* The class defaults of a nested language model's missing keys, each
 * named in r->defaulted. */
static void apply_class_defaults(struct reader *r)
{
	const char *type = r->seen[KEY_MODEL_TYPE] ? r->text[KEY_MODEL_TYPE] : "";
	for (int key = 0; key < KEY_COUNT; key++) {
		double value;
		const char *source;
		if (r->seen[key] || !app_model_class_default(type, keys[key].name, &value, &source))
			continue;
		r->seen[key] = true;
		r->values[key] = value;
		size_t at = strlen(r->defaulted);
		snprintf(r->defaulted + at, sizeof r->defaulted - at, "%s%s %g", at ? ", " : "", keys[key].name, value);
		snprintf(r->defaults_source, sizeof r->defaults_source, "%s", source);
	}
}

static const char *json_type_name(const cJSON *item)
{
	if (cJSON_IsString(item))
		return "a string";
	if (cJSON_IsBool(item))
		return "a boolean";
	if (cJSON_IsArray(item))
		return "an array";
	if (cJSON_IsObject(item))
		return "an object";
	return "not a number";
}

static int read_json(struct reader *r, const char *text, size_t len)
{
	size_t bad;
	if (hwdb_json_bad_byte(text, len, &bad)) {
		int line, col;
		app_text_position(text, bad, &line, &col);
		if (text[bad] == '\0')
			app_error_at(r->st, r->path, line, col, "malformed JSON: NUL byte in the file");
		else
			app_error_at(r->st, r->path, line, col, "malformed JSON: control byte 0x%02x",
				     (unsigned char)text[bad]);
		return -1;
	}
	/* Python's json writes an infinite float as a bare Infinity
	 * (Nemotron-H's time_step_limit); read as null, in place, so every
	 * position stays where the file has it. */
	char *copy = app_json_without_infinity(text, len);
	if (copy)
		text = copy;
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
	if (!root) {
		int line, col;
		const char *at = end ? end : text + len;
		app_text_position(text, (size_t)(at - text), &line, &col);
		if (*at == '\0')
			app_error_at(r->st, r->path, line, col, "malformed JSON: unexpected end of file");
		else
			app_error_at(r->st, r->path, line, col, "malformed JSON near '%.12s'", at);
		free(copy);
		return -1;
	}
	char dup_path[256];
	const char *dup = hwdb_json_duplicate(root, dup_path, sizeof dup_path);
	if (dup) {
		/* As the YAML form: refused, not the first (cJSON) or the last (Python) taken. */
		int line, col;
		if (strcmp(dup_path, dup) == 0 && hwdb_json_key_position(text, len, 1, dup, 2, &line, &col) == 0)
			app_error_at(r->st, r->path, line, col, "'%s' is given twice", dup);
		else
			app_error_at(r->st, r->path, 0, 0, "'%s' is given twice", dup_path);
		cJSON_Delete(root);
		free(copy);
		return -1;
	}
	if (!cJSON_IsObject(root)) {
		app_error_at(r->st, r->path, 0, 0, "the top level must be a JSON object of config keys, not %s",
			     cJSON_IsNumber(root) ? "a number" : json_type_name(root));
		cJSON_Delete(root);
		free(copy);
		return -1;
	}
	/* A multimodal wrapper (Gemma 3, Llama 4, LLaVA) keeps the language
	 * model under text_config: its keys, the top level's where it has none. */
	const cJSON *src = root, *text_config = cJSON_GetObjectItemCaseSensitive(root, "text_config");
	if (cJSON_IsObject(text_config))
		src = text_config;
	int rc = 0;
	for (int k = 0; k < KEY_COUNT && rc == 0; k++) {
		const cJSON *item = cJSON_GetObjectItemCaseSensitive(src, keys[k].name);
		if ((!item || cJSON_IsNull(item)) && src != root)
			item = cJSON_GetObjectItemCaseSensitive(root, keys[k].name);
		if (!item || cJSON_IsNull(item))
			continue;
		if (keys[k].kind == KIND_BOOL || keys[k].kind == KIND_TEXT) {
			bool is_bool = keys[k].kind == KIND_BOOL;
			if (is_bool ? !cJSON_IsBool(item) : !cJSON_IsString(item)) {
				app_error_at(r->st, r->path, 0, 0, "'%s' must be %s, not %s", keys[k].name,
					     is_bool ? "true or false" : "a string",
					     cJSON_IsNumber(item) ? "a number" : json_type_name(item));
				rc = -1;
				break;
			}
			r->seen[k] = true;
			if (is_bool)
				r->flags[k] = cJSON_IsTrue(item);
			else
				snprintf(r->text[k], sizeof r->text[k], "%s", item->valuestring);
			continue;
		}
		if (!cJSON_IsNumber(item)) {
			app_error_at(r->st, r->path, 0, 0, "'%s' must be a number, not %s", keys[k].name,
				     json_type_name(item));
			rc = -1;
			break;
		}
		/* The shortest of %.15g and %.17g that reads back as the same double. */
		char shown[64];
		snprintf(shown, sizeof shown, "%.15g", item->valuedouble);
		if (strtod(shown, NULL) != item->valuedouble)
			snprintf(shown, sizeof shown, "%.17g", item->valuedouble);
		rc = store_value(r, k, item->valuedouble, shown, r->path);
	}
	if (rc == 0 && src != root)
		apply_class_defaults(r);
	for (const cJSON *item = src->child; item && rc == 0; item = item->next)
		if (item->string)
			note_unmodelled(r, item->string, !cJSON_IsNull(item),
					(cJSON_IsArray(item) || cJSON_IsObject(item)) && !item->child,
					cJSON_IsNumber(item) ? item->valuedouble : NAN);
	if (rc == 0)
		rc = read_extras(r, src, root);
	cJSON_Delete(root);
	free(copy);
	return rc;
}

/* A plain empty, ~ or null scalar: the key is absent. */
static bool yaml_null(const yaml_node_t *node)
{
	if (node->type != YAML_SCALAR_NODE || node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	const char *text = (const char *)node->data.scalar.value;
	return strcmp(text, "") == 0 || strcmp(text, "~") == 0 || strcmp(text, "null") == 0 ||
	       strcmp(text, "Null") == 0 || strcmp(text, "NULL") == 0;
}

/* A boolean (true/false) or a string key. */
static int yaml_word(struct reader *r, int key, const yaml_node_t *node)
{
	char where[600];
	snprintf(where, sizeof where, "%s:%zu:%zu", r->path, node->start_mark.line + 1, node->start_mark.column + 1);
	if (node->type != YAML_SCALAR_NODE) {
		app_error(r->st, "%s: '%s' must be %s, not a %s", where, keys[key].name,
			  keys[key].kind == KIND_BOOL ? "true or false" : "a string",
			  node->type == YAML_MAPPING_NODE ? "mapping" : "sequence");
		return -1;
	}
	if (yaml_null(node))
		return 0;
	const char *text = (const char *)node->data.scalar.value;
	if (keys[key].kind == KIND_BOOL) {
		bool t = strcmp(text, "true") == 0 || strcmp(text, "True") == 0;
		bool f = strcmp(text, "false") == 0 || strcmp(text, "False") == 0;
		if (!(t || f) || node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) {
			app_error(r->st, "%s: '%s' must be true or false, not '%s'", where, keys[key].name, text);
			return -1;
		}
		r->flags[key] = t;
	} else {
		snprintf(r->text[key], sizeof r->text[key], "%s", text);
	}
	r->seen[key] = true;
	return 0;
}

/* A YAML scalar as a number: plain style, decimal digits, sign, point and
 * exponent only (no hex, no YAML 1.1 sexagesimal or underscores). */
static int yaml_number(struct reader *r, int key, const yaml_node_t *node)
{
	char where[600];
	snprintf(where, sizeof where, "%s:%zu:%zu", r->path, node->start_mark.line + 1, node->start_mark.column + 1);
	if (node->type != YAML_SCALAR_NODE) {
		app_error(r->st, "%s: '%s' must be a number, not a %s", where, keys[key].name,
			  node->type == YAML_MAPPING_NODE ? "mapping" : "sequence");
		return -1;
	}
	const char *text = (const char *)node->data.scalar.value;
	bool plain = node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	if (yaml_null(node))
		return 0; /* absent */
	if (!plain) {
		app_error(r->st, "%s: '%s' must be a number, not the quoted string '%s'", where, keys[key].name, text);
		return -1;
	}
	bool ok = *text != '\0' && strspn(text, "0123456789+-.eE") == strlen(text);
	char *end = NULL;
	errno = 0;
	double value = ok ? strtod(text, &end) : 0;
	if (!ok || end == text || *end != '\0') {
		app_error(r->st, "%s: '%s' must be a number, not '%s'", where, keys[key].name, text);
		return -1;
	}
	return store_value(r, key, value, text, where);
}

/* Before parsing: nesting and node count within hwdb's bounds. */
static int yaml_bounds_ok(struct reader *r, const char *text, size_t len)
{
	int deep_line, deep_col;
	int bound =
		hwdb_yaml_bounds(text, len, READ_MAX_YAML_NESTING, READ_MAX_MODEL_CONFIG_NODES, &deep_line, &deep_col);
	if (bound == HWDB_YAML_TOO_DEEP) {
		app_error_at(r->st, r->path, deep_line, deep_col, "nested deeper than %d levels: not a model config",
			     READ_MAX_YAML_NESTING);
		return -1;
	}
	if (bound != 0) {
		app_error_at(r->st, r->path, deep_line, deep_col, "more than %ld YAML nodes: not a model config",
			     READ_MAX_MODEL_CONFIG_NODES);
		return -1;
	}
	return 0;
}

/* Why libyaml could not load the document, at its line and column. */
static void yaml_load_error(struct reader *r, const yaml_parser_t *parser, const char *text, size_t len)
{
	/* libyaml marks are 0-based; people count from 1. A reader error
	 * (bad UTF-8, a control character) has only a byte offset. */
	yaml_mark_t mark = parser->problem_mark;
	if (parser->error == YAML_READER_ERROR) {
		int line, col;
		app_text_position(text, parser->problem_offset < len ? parser->problem_offset : len, &line, &col);
		mark.line = (size_t)line - 1;
		mark.column = (size_t)col - 1;
	}
	const yaml_mark_t *m = &mark;
	if (parser->context)
		app_error_at(r->st, r->path, (int)(m->line + 1), (int)(m->column + 1),
			     "malformed YAML: %s (%s at line %zu)", parser->problem ? parser->problem : "parse error",
			     parser->context, parser->context_mark.line + 1);
	else
		app_error_at(r->st, r->path, (int)(m->line + 1), (int)(m->column + 1), "malformed YAML: %s",
			     parser->problem ? parser->problem : "parse error");
}

/* The top level's keys: each noted (what is not modelled), a known one
 * read once (yaml_number, yaml_word). Returns 0, or -1 at the first error. */
static int yaml_read_keys(struct reader *r, yaml_document_t *doc, const yaml_node_t *root)
{
	int rc = 0;
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top && rc == 0; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		yaml_node_t *v = yaml_document_get_node(doc, p->value);
		if (!k || !v || k->type != YAML_SCALAR_NODE)
			continue;
		int key = find_key((const char *)k->data.scalar.value);
		note_unmodelled(
			r, (const char *)k->data.scalar.value, !(v->type == YAML_SCALAR_NODE && yaml_null(v)),
			(v->type == YAML_SEQUENCE_NODE && v->data.sequence.items.start == v->data.sequence.items.top) ||
				(v->type == YAML_MAPPING_NODE &&
				 v->data.mapping.pairs.start == v->data.mapping.pairs.top),
			v->type == YAML_SCALAR_NODE ? strtod((const char *)v->data.scalar.value, NULL) : NAN);
		if (key < 0)
			continue;
		if (r->seen[key]) {
			app_error_at(r->st, r->path, (int)(k->start_mark.line + 1), (int)(k->start_mark.column + 1),
				     "'%s' is given twice", keys[key].name);
			rc = -1;
			break;
		}
		rc = keys[key].kind == KIND_NUMBER ? yaml_number(r, key, v) : yaml_word(r, key, v);
	}
	return rc;
}

/* A YAML node as cJSON (plain scalars that read as numbers or booleans as
 * those), for model_family.c's reading of the structured keys; the node
 * count is already bounded (hwdb_yaml_expanded), and so is the depth. */
static cJSON *yaml_to_json(yaml_document_t *doc, yaml_node_t *node, int depth)
{
	if (!node || depth > READ_MAX_YAML_NESTING)
		return cJSON_CreateNull();
	if (node->type == YAML_SCALAR_NODE) {
		const char *text = (const char *)node->data.scalar.value;
		if (node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
			return cJSON_CreateString(text);
		if (yaml_null(node))
			return cJSON_CreateNull();
		if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0)
			return cJSON_CreateBool(text[0] == 't');
		char *end = NULL;
		double v = strtod(text, &end);
		if (*text && end && *end == '\0' && strspn(text, "0123456789+-.eE") == strlen(text))
			return cJSON_CreateNumber(v);
		return cJSON_CreateString(text);
	}
	if (node->type == YAML_SEQUENCE_NODE) {
		cJSON *list = cJSON_CreateArray();
		for (yaml_node_item_t *i = node->data.sequence.items.start; list && i < node->data.sequence.items.top;
		     i++)
			cJSON_AddItemToArray(list, yaml_to_json(doc, yaml_document_get_node(doc, *i), depth + 1));
		return list;
	}
	cJSON *map = cJSON_CreateObject();
	for (yaml_node_pair_t *p = node->data.mapping.pairs.start; map && p < node->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		if (k && k->type == YAML_SCALAR_NODE)
			cJSON_AddItemToObject(map, (const char *)k->data.scalar.value,
					      yaml_to_json(doc, yaml_document_get_node(doc, p->value), depth + 1));
	}
	return map;
}

static int yaml_extras(struct reader *r, yaml_document_t *doc, yaml_node_t *root)
{
	cJSON *tree = yaml_to_json(doc, root, 0);
	if (!tree) {
		app_error(r->st, "out of memory reading '%s'", r->path);
		return -1;
	}
	int rc = read_extras(r, tree, tree);
	cJSON_Delete(tree);
	return rc;
}

/* yaml_parser_load reads one document: keys after a "---" would be
 * dropped without a word. Returns -1 when the text holds another. */
static int yaml_second_document(struct reader *r, yaml_parser_t *parser)
{
	int rc = 0;
	yaml_document_t next;
	if (!yaml_parser_load(parser, &next)) {
		app_error_at(r->st, r->path, (int)(parser->problem_mark.line + 1),
			     (int)(parser->problem_mark.column + 1), "malformed YAML: %s",
			     parser->problem ? parser->problem : "parse error");
		return -1;
	}
	yaml_node_t *extra = yaml_document_get_root_node(&next);
	if (extra) {
		app_error_at(r->st, r->path, (int)(extra->start_mark.line + 1), (int)(extra->start_mark.column + 1),
			     "a second YAML document: a model config is one mapping");
		rc = -1;
	}
	yaml_document_delete(&next);
	return rc;
}

/* In phases: the bounds, one document loaded and its aliases within the
 * node bound, the top level a mapping whose keys are read, no second
 * document. */
static int read_yaml(struct reader *r, const char *text, size_t len)
{
	if (yaml_bounds_ok(r, text, len) != 0)
		return -1;
	yaml_parser_t parser;
	yaml_document_t doc;
	if (!yaml_parser_initialize(&parser)) {
		app_error(r->st, "out of memory reading '%s'", r->path);
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		yaml_load_error(r, &parser, text, len);
		yaml_parser_delete(&parser);
		return -1;
	}
	/* A config has ~50 nodes; aliases that expand past the bound (a billion
	 * laughs) are refused before any key is read. */
	int deep_line, deep_col;
	int bound = hwdb_yaml_expanded(&doc, READ_MAX_MODEL_CONFIG_NODES, &deep_line, &deep_col);
	if (bound != 0) {
		if (bound == HWDB_YAML_CYCLE)
			app_error_at(r->st, r->path, deep_line, deep_col,
				     "an alias inside the node it names: an endless expansion");
		else
			app_error_at(r->st, r->path, deep_line, deep_col,
				     "more than %ld YAML nodes (aliases expanded): not a model config",
				     READ_MAX_MODEL_CONFIG_NODES);
		yaml_document_delete(&doc);
		yaml_parser_delete(&parser);
		return -1;
	}
	int rc = 0;
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (!root) {
		app_error_at(r->st, r->path, 0, 0, "empty file: expected the config keys (hidden_size, ...)");
		rc = -1;
	} else if (root->type != YAML_MAPPING_NODE) {
		app_error_at(r->st, r->path, (int)(root->start_mark.line + 1), (int)(root->start_mark.column + 1),
			     "the top level must be a mapping of config keys");
		rc = -1;
	} else {
		rc = yaml_read_keys(r, &doc, root);
		if (rc == 0)
			rc = yaml_extras(r, &doc, root);
	}
	if (rc == 0 && root)
		rc = yaml_second_document(r, &parser);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return rc;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcasecmp(s + a - b, suffix) == 0;
}

static void add_warning(struct app_model_config *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_warning(struct app_model_config *c, const char *fmt, ...)
{
	if (c->warning_count >= CLI_MODEL_MAX_WARNINGS)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->warnings[c->warning_count++], sizeof c->warnings[0], fmt, ap);
	va_end(ap);
}

static long long whole(const struct reader *r, int key)
{
	return r->seen[key] ? (long long)r->values[key] : 0;
}

/* The first of the keys that is given (the MoE expert count has three
 * spellings); -1 when none is. */
static int first_seen(const struct reader *r, const int *list, int n)
{
	for (int i = 0; i < n; i++)
		if (r->seen[list[i]])
			return list[i];
	return -1;
}

/* The decoder as model/workload.h describes it (not yet resolved: the
 * caller's workload_resolve() checks it and names the file); warnings for
 * what the config says that ridge does not model. */
static int fill_workload(const struct reader *r, struct app_model_config *out)
{
	struct ridge_workload_model *w = &out->workload;
	memset(w, 0, sizeof *w);
	snprintf(out->model_type, sizeof out->model_type, "%s", r->seen[KEY_MODEL_TYPE] ? r->text[KEY_MODEL_TYPE] : "");
	const char *type = out->model_type;
	w->hidden = whole(r, KEY_HIDDEN);
	w->intermediate = whole(r, KEY_INTERMEDIATE);
	w->layers = whole(r, KEY_LAYERS);
	w->heads = whole(r, KEY_HEADS);
	w->kv_heads = whole(r, KEY_KV_HEADS);
	w->head_dim = whole(r, KEY_HEAD_DIM);
	w->vocab = whole(r, KEY_VOCAB);
	/* What the family does that its keys do not say (families[]). */
	static const struct app_model_family none = { .model_type = "" };
	const struct app_model_family *family = app_model_family(out->assume_family[0] ? out->assume_family : type);
	if (!family)
		family = &none;
	w->tied_embeddings = r->seen[KEY_TIE] ? r->flags[KEY_TIE] : family->tied_embeddings;
	w->qkv_bias = family->qkv_bias || (r->seen[KEY_ATTENTION_BIAS] && r->flags[KEY_ATTENTION_BIAS]);
	bool sliding_used = !r->seen[KEY_USE_SLIDING] || r->flags[KEY_USE_SLIDING];
	if (family->sliding_window_off && !r->seen[KEY_USE_SLIDING])
		sliding_used = false;
	w->sliding_window = sliding_used ? whole(r, KEY_SLIDING_WINDOW) : 0;
	w->o_bias = r->extras.attention_bias && !family->qkv_bias;
	if (family->gpt_oss)
		w->o_bias = w->attention_sinks = w->expert_bias = true;

	static const int expert_keys[] = { KEY_LOCAL_EXPERTS, KEY_NUM_EXPERTS, KEY_ROUTED_EXPERTS };
	int expert_key = first_seen(r, expert_keys, 3);
	if (expert_key >= 0) {
		w->experts = whole(r, expert_key);
		if (!r->seen[KEY_EXPERTS_PER_TOK]) {
			app_error_at(r->st, r->path, 0, 0,
				     "'%s' is given but 'num_experts_per_tok' is missing: a MoE config needs both",
				     keys[expert_key].name);
			return -1;
		}
		w->experts_per_token = whole(r, KEY_EXPERTS_PER_TOK);
		/* Mixtral's experts are intermediate_size wide; Qwen-MoE and DeepSeek say moe_intermediate_size. */
		w->expert_intermediate =
			r->seen[KEY_MOE_INTERMEDIATE] ? whole(r, KEY_MOE_INTERMEDIATE) : w->intermediate;
		if (r->seen[KEY_SHARED_INTERMEDIATE])
			w->shared_intermediate = whole(r, KEY_SHARED_INTERMEDIATE);
		else if (r->seen[KEY_SHARED_EXPERTS])
			w->shared_intermediate = whole(r, KEY_SHARED_EXPERTS) * w->expert_intermediate;
		w->shared_expert_gate = r->seen[KEY_SHARED_INTERMEDIATE] && w->shared_intermediate > 0;
		w->dense_layers = whole(r, KEY_FIRST_DENSE);
		char why[300];
		if (app_model_moe_layers(family, &r->extras, r->seen[KEY_SPARSE_STEP] ? whole(r, KEY_SPARSE_STEP) : 0,
					 w, why, sizeof why) != 0) {
			app_error_at(r->st, r->path, 0, 0, "%s", why);
			return -1;
		}
	} else if (r->seen[KEY_EXPERTS_PER_TOK] && whole(r, KEY_EXPERTS_PER_TOK) > 0) {
		app_error_at(r->st, r->path, 0, 0,
			     "'num_experts_per_tok' is given without the experts (num_local_experts, num_experts or "
			     "n_routed_experts)");
		return -1;
	}
	if (r->seen[KEY_KV_LORA]) {
		w->mla = true;
		w->q_lora_rank = whole(r, KEY_Q_LORA);
		w->kv_lora_rank = whole(r, KEY_KV_LORA);
		w->qk_nope_head_dim = whole(r, KEY_QK_NOPE);
		w->qk_rope_head_dim = whole(r, KEY_QK_ROPE);
		w->v_head_dim = whole(r, KEY_V_HEAD);
		static const int mla_keys[] = { KEY_QK_NOPE, KEY_QK_ROPE, KEY_V_HEAD };
		for (int i = 0; i < 3; i++)
			if (!r->seen[mla_keys[i]]) {
				app_error_at(
					r->st, r->path, 0, 0,
					"'kv_lora_rank' is given (multi-head latent attention) but '%s' is missing",
					keys[mla_keys[i]].name);
				return -1;
			}
		w->head_dim = 0; /* MLA's head width is qk_nope + qk_rope */
	}
	char why[300];
	if (app_model_layer_plan(family, &r->extras, w, out->layer_plan, sizeof out->layer_plan, out->plan_source,
				 sizeof out->plan_source, why, sizeof why) != 0) {
		app_error_at(r->st, r->path, 0, 0, "%s", why);
		return -1;
	}
	app_model_vision_projector(&out->extras, (double)w->hidden);
	if (strcmp(family->model_type, "phi3") == 0 && w->sliding_window > 0)
		add_warning(out,
			    "'sliding_window' %lld: applied to every layer, as transformers and vLLM do (vLLM PR "
			    "#4380; its --disable-sliding-window caps the context at the window instead): "
			    "docs/models/families.md",
			    w->sliding_window);
	if (r->defaulted[0])
		add_warning(out, "text_config leaves out %s: %s's defaults, as transformers reads them", r->defaulted,
			    r->defaults_source);
	bool known = strcmp(family->model_type, type) == 0 || (family->prefix && type[0]);
	if (out->assume_family[0])
		add_warning(out,
			    "read as '%s' (--assume-family): what only the config's own family has (%s) is not "
			    "modelled",
			    out->assume_family,
			    r->extras.foreign_keys[0] ? r->extras.foreign_keys : "its model_type's rules");
	else if (!type[0])
		add_warning(out, "no 'model_type': read as a Llama-style decoder from the keys ridge knows");
	else if (!known)
		add_warning(out,
			    "model_type '%s' is not one ridge knows (%s): read as a Llama-style decoder from the keys "
			    "ridge knows",
			    type, app_model_family_list());
	for (size_t i = 0; i < sizeof unmodelled_keys / sizeof unmodelled_keys[0]; i++)
		if (r->present[i])
			add_warning(out, "'%s': %s", unmodelled_keys[i].name, unmodelled_keys[i].why);
	return 0;
}

int app_model_config_load(const char *path, struct app_model_config *out, struct app_status *st)
{
	return app_model_config_load_as(path, NULL, out, st);
}

int app_model_config_load_as(const char *path, const char *assume, struct app_model_config *out, struct app_status *st)
{
	size_t len = 0;
	char *text = app_read_file(path, READ_MAX_MODEL_CONFIG_BYTES, "model config", &len, st);
	if (!text)
		return -1;
	int rc = app_model_config_parse_as(path, assume, text, len, out, st);
	free(text);
	return rc;
}

int app_model_config_parse(const char *path, const char *text, size_t len, struct app_model_config *out,
			   struct app_status *st)
{
	return app_model_config_parse_as(path, NULL, text, len, out, st);
}

/* A family ridge does not model (model_family.c's refused rows), or keys of
 * layers it does not model (state-space, linear attention): refused, naming
 * them, unless --assume-family reads it knowingly. */
static int refuse_unmodelled(const struct reader *r, const char *type)
{
	const struct app_model_family *family = app_model_family(type);
	const struct app_model_extras *x = &r->extras;
	if (!(family && family->refused) && !x->foreign_keys[0] && !x->other_type[0])
		return 0;
	char what[300] = "";
	if (x->foreign_keys[0])
		snprintf(what, sizeof what, " (keys %s)", x->foreign_keys);
	else if (x->other_type[0])
		snprintf(what, sizeof what, " (layer_types '%s')", x->other_type);
	app_error_at(r->st, r->path, 0, 0,
		     "model_type '%s': %s%s is not modelled by ridge; --assume-family llama reads its attention and "
		     "MLP keys as a dense decoder, knowingly",
		     type[0] ? type : "(none)",
		     family && family->refused ? family->refused : "layers other than attention and MLP", what);
	return -1;
}

int app_model_config_parse_as(const char *path, const char *assume, const char *text, size_t len,
			      struct app_model_config *out, struct app_status *st)
{
	/* By extension; otherwise a file whose first non-blank character is '{' is JSON. */
	bool yaml = ends_with(path, ".yaml") || ends_with(path, ".yml");
	if (!yaml && !ends_with(path, ".json")) {
		const char *p = text + strspn(text, " \t\r\n");
		yaml = *p != '{';
	}
	struct reader r = { .path = path, .st = st };
	int rc = yaml ? read_yaml(&r, text, len) : read_json(&r, text, len);
	if (rc != 0)
		return -1;
	bool assumed = assume && assume[0];
	if (!assumed && refuse_unmodelled(&r, r.seen[KEY_MODEL_TYPE] ? r.text[KEY_MODEL_TYPE] : ""))
		return -1;

	char missing[512] = "";
	int n_missing = 0;
	for (int k = 0; k < KEY_COUNT; k++) {
		if (keys[k].required && !r.seen[k]) {
			size_t used = strlen(missing);
			snprintf(missing + used, sizeof missing - used, "%s'%s'", n_missing ? ", " : "", keys[k].name);
			n_missing++;
		}
	}
	if (n_missing) {
		app_error_at(st, path, 0, 0,
			     "missing %s %s (a model config needs hidden_size, intermediate_size, "
			     "num_attention_heads, vocab_size and num_hidden_layers)",
			     n_missing == 1 ? "key" : "keys", missing);
		return -1;
	}
	memset(out, 0, sizeof *out);
	out->is_yaml = yaml;
	out->extras = r.extras;
	if (assumed)
		snprintf(out->assume_family, sizeof out->assume_family, "%s", assume);
	struct ridge_align_model *m = &out->model;
	m->hidden_size = (long long)r.values[KEY_HIDDEN];
	m->intermediate_size = (long long)r.values[KEY_INTERMEDIATE];
	m->num_attention_heads = (long long)r.values[KEY_HEADS];
	m->vocab_size = (long long)r.values[KEY_VOCAB];
	m->num_hidden_layers = (long long)r.values[KEY_LAYERS];
	m->has_num_key_value_heads = r.seen[KEY_KV_HEADS];
	m->num_key_value_heads = (long long)r.values[KEY_KV_HEADS];
	m->has_head_dim = r.seen[KEY_HEAD_DIM];
	m->head_dim = (long long)r.values[KEY_HEAD_DIM];
	out->has_multiple_of = r.seen[KEY_MULTIPLE_OF];
	out->multiple_of = (long long)r.values[KEY_MULTIPLE_OF];
	out->has_ffn_dim_multiplier = r.seen[KEY_FFN_MULTIPLIER];
	out->ffn_dim_multiplier = r.values[KEY_FFN_MULTIPLIER];
	return fill_workload(&r, out);
}

int app_model_config_workload(const struct app_model_config *config, const char *label,
			      struct ridge_workload_model *out, char *err, size_t err_len)
{
	*out = config->workload;
	char why[400];
	if (workload_resolve(out, why, sizeof why) != 0) {
		snprintf(err, err_len, "%s: %s", label, why);
		return -1;
	}
	return 0;
}

bool app_model_config_is_llama(const struct app_model_config *config)
{
	const char *family = config->assume_family[0] ? config->assume_family : config->model_type;
	return strcmp(family, "llama") == 0;
}
