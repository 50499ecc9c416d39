#include "model_config.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "cli.h"
#include "json_check.h"

/* A config is a few kilobytes; anything near this is not a config. */
#define MAX_CONFIG_BYTES (16L * 1024 * 1024)

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
	KEY_COUNT
};

static const struct {
	const char *name;
	bool required;
	bool whole; /* a count; otherwise a positive real */
} keys[KEY_COUNT] = {
	[KEY_HIDDEN] = { "hidden_size", true, true },
	[KEY_INTERMEDIATE] = { "intermediate_size", true, true },
	[KEY_HEADS] = { "num_attention_heads", true, true },
	[KEY_KV_HEADS] = { "num_key_value_heads", false, true },
	[KEY_HEAD_DIM] = { "head_dim", false, true },
	[KEY_VOCAB] = { "vocab_size", true, true },
	[KEY_LAYERS] = { "num_hidden_layers", true, true },
	[KEY_MULTIPLE_OF] = { "multiple_of", false, true },
	[KEY_FFN_MULTIPLIER] = { "ffn_dim_multiplier", false, false },
};

struct reader {
	const char *path;
	bool seen[KEY_COUNT];
	double values[KEY_COUNT];
	char model_type[64];
};

static int find_key(const char *name)
{
	for (int i = 0; i < KEY_COUNT; i++)
		if (strcmp(keys[i].name, name) == 0)
			return i;
	return -1;
}

/* where: "FILE" or "FILE:LINE:COL". */
static int store_value(struct reader *r, int key, double value, const char *text, const char *where)
{
	const char *name = keys[key].name;
	if (!isfinite(value)) {
		cli_error("%s: '%s' must be a finite number, not '%s'", where, name, text);
		return -1;
	}
	if (keys[key].whole && value != floor(value)) {
		cli_error("%s: '%s' must be a whole number, not '%s'", where, name, text);
		return -1;
	}
	if (!(value > 0)) {
		cli_error("%s: '%s' must be greater than 0, not '%s'", where, name, text);
		return -1;
	}
	if (keys[key].whole && value > (double)RIDGE_ALIGN_MAX_DIM) {
		cli_error("%s: '%s' is out of range (1..%lld), got '%s'", where, name, RIDGE_ALIGN_MAX_DIM, text);
		return -1;
	}
	r->seen[key] = true;
	r->values[key] = value;
	return 0;
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
		cli_text_position(text, bad, &line, &col);
		if (text[bad] == '\0')
			cli_error("%s:%d:%d: malformed JSON: NUL byte in the file", r->path, line, col);
		else
			cli_error("%s:%d:%d: malformed JSON: control byte 0x%02x", r->path, line, col, (unsigned char)text[bad]);
		return -1;
	}
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
	if (!root) {
		int line, col;
		const char *at = end ? end : text + len;
		cli_text_position(text, (size_t)(at - text), &line, &col);
		if (*at == '\0')
			cli_error("%s:%d:%d: malformed JSON: unexpected end of file", r->path, line, col);
		else
			cli_error("%s:%d:%d: malformed JSON near '%.12s'", r->path, line, col, at);
		return -1;
	}
	char dup_path[256];
	const char *dup = hwdb_json_duplicate(root, dup_path, sizeof dup_path);
	if (dup) {
		/* As the YAML form: refused, not the first (cJSON) or the last (Python) taken. */
		int line, col;
		if (strcmp(dup_path, dup) == 0 && hwdb_json_key_position(text, len, 1, dup, 2, &line, &col) == 0)
			cli_error("%s:%d:%d: '%s' is given twice", r->path, line, col, dup);
		else
			cli_error("%s: '%s' is given twice", r->path, dup_path);
		cJSON_Delete(root);
		return -1;
	}
	if (!cJSON_IsObject(root)) {
		cli_error("%s: the top level must be a JSON object of config keys, not %s", r->path,
			  cJSON_IsNumber(root) ? "a number" : json_type_name(root));
		cJSON_Delete(root);
		return -1;
	}
	int rc = 0;
	for (int k = 0; k < KEY_COUNT && rc == 0; k++) {
		const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, keys[k].name);
		if (!item || cJSON_IsNull(item))
			continue;
		if (!cJSON_IsNumber(item)) {
			cli_error("%s: '%s' must be a number, not %s", r->path, keys[k].name, json_type_name(item));
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
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "model_type");
	if (cJSON_IsString(type))
		snprintf(r->model_type, sizeof r->model_type, "%s", type->valuestring);
	cJSON_Delete(root);
	return rc;
}

/* A YAML scalar as a number: plain style, decimal digits, sign, point and
 * exponent only (no hex, no YAML 1.1 sexagesimal or underscores). */
static int yaml_number(struct reader *r, int key, const yaml_node_t *node)
{
	char where[600];
	snprintf(where, sizeof where, "%s:%zu:%zu", r->path, node->start_mark.line + 1, node->start_mark.column + 1);
	if (node->type != YAML_SCALAR_NODE) {
		cli_error("%s: '%s' must be a number, not a %s", where, keys[key].name,
			  node->type == YAML_MAPPING_NODE ? "mapping" : "sequence");
		return -1;
	}
	const char *text = (const char *)node->data.scalar.value;
	bool plain = node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	if (plain && (strcmp(text, "") == 0 || strcmp(text, "~") == 0 || strcmp(text, "null") == 0 ||
		      strcmp(text, "Null") == 0 || strcmp(text, "NULL") == 0))
		return 0; /* absent */
	if (!plain) {
		cli_error("%s: '%s' must be a number, not the quoted string '%s'", where, keys[key].name, text);
		return -1;
	}
	bool ok = *text != '\0' && strspn(text, "0123456789+-.eE") == strlen(text);
	char *end = NULL;
	errno = 0;
	double value = ok ? strtod(text, &end) : 0;
	if (!ok || end == text || *end != '\0') {
		cli_error("%s: '%s' must be a number, not '%s'", where, keys[key].name, text);
		return -1;
	}
	return store_value(r, key, value, text, where);
}

static int read_yaml(struct reader *r, const char *text, size_t len)
{
	int deep_line, deep_col;
	int bound = hwdb_yaml_bounds(text, len, HWDB_MAX_NESTING, HWDB_MAX_NODES, &deep_line, &deep_col);
	if (bound == HWDB_YAML_TOO_DEEP) {
		cli_error("%s:%d:%d: nested deeper than %d levels: not a model config", r->path, deep_line, deep_col,
			  HWDB_MAX_NESTING);
		return -1;
	}
	if (bound != 0) {
		cli_error("%s:%d:%d: more than %ld YAML nodes: not a model config", r->path, deep_line, deep_col,
			  HWDB_MAX_NODES);
		return -1;
	}
	yaml_parser_t parser;
	yaml_document_t doc;
	if (!yaml_parser_initialize(&parser)) {
		cli_error("out of memory reading '%s'", r->path);
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		/* libyaml marks are 0-based; people count from 1. A reader error
		 * (bad UTF-8, a control character) has only a byte offset. */
		yaml_mark_t mark = parser.problem_mark;
		if (parser.error == YAML_READER_ERROR) {
			int line, col;
			cli_text_position(text, parser.problem_offset < len ? parser.problem_offset : len, &line, &col);
			mark.line = (size_t)line - 1;
			mark.column = (size_t)col - 1;
		}
		const yaml_mark_t *m = &mark;
		if (parser.context)
			cli_error("%s:%zu:%zu: malformed YAML: %s (%s at line %zu)", r->path, m->line + 1, m->column + 1,
				  parser.problem ? parser.problem : "parse error", parser.context,
				  parser.context_mark.line + 1);
		else
			cli_error("%s:%zu:%zu: malformed YAML: %s", r->path, m->line + 1, m->column + 1,
				  parser.problem ? parser.problem : "parse error");
		yaml_parser_delete(&parser);
		return -1;
	}
	int rc = 0;
	bound = hwdb_yaml_expanded(&doc, HWDB_MAX_NODES, &deep_line, &deep_col);
	if (bound != 0) {
		/* Only the top-level keys are read, but a billion laughs is no model config. */
		cli_error("%s:%d:%d: %s: not a model config", r->path, deep_line, deep_col,
			  bound == HWDB_YAML_CYCLE ? "an alias inside the node it names"
						   : "more than 100000 YAML nodes (aliases expanded)");
		yaml_document_delete(&doc);
		yaml_parser_delete(&parser);
		return -1;
	}
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (!root) {
		cli_error("%s: empty file: expected the config keys (hidden_size, ...)", r->path);
		rc = -1;
	} else if (root->type != YAML_MAPPING_NODE) {
		cli_error("%s:%zu:%zu: the top level must be a mapping of config keys", r->path, root->start_mark.line + 1,
			  root->start_mark.column + 1);
		rc = -1;
	} else {
		for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top && rc == 0;
		     p++) {
			yaml_node_t *k = yaml_document_get_node(&doc, p->key);
			yaml_node_t *v = yaml_document_get_node(&doc, p->value);
			if (!k || !v || k->type != YAML_SCALAR_NODE)
				continue;
			int key = find_key((const char *)k->data.scalar.value);
			if (key < 0 && v->type == YAML_SCALAR_NODE &&
			    strcmp((const char *)k->data.scalar.value, "model_type") == 0)
				snprintf(r->model_type, sizeof r->model_type, "%s", (const char *)v->data.scalar.value);
			if (key < 0)
				continue;
			if (r->seen[key]) {
				cli_error("%s:%zu:%zu: '%s' is given twice", r->path, k->start_mark.line + 1,
					  k->start_mark.column + 1, keys[key].name);
				rc = -1;
				break;
			}
			rc = yaml_number(r, key, v);
		}
	}
	/* yaml_parser_load reads one document: keys after a "---" would be
	 * dropped without a word. */
	if (rc == 0 && root) {
		yaml_document_t next;
		if (!yaml_parser_load(&parser, &next)) {
			cli_error("%s:%zu:%zu: malformed YAML: %s", r->path, parser.problem_mark.line + 1,
				  parser.problem_mark.column + 1, parser.problem ? parser.problem : "parse error");
			rc = -1;
		} else {
			yaml_node_t *extra = yaml_document_get_root_node(&next);
			if (extra) {
				cli_error("%s:%zu:%zu: a second YAML document: a model config is one mapping", r->path,
					  extra->start_mark.line + 1, extra->start_mark.column + 1);
				rc = -1;
			}
			yaml_document_delete(&next);
		}
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return rc;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcasecmp(s + a - b, suffix) == 0;
}

int cli_model_config_load(const char *path, struct cli_model_config *out)
{
	size_t len = 0;
	char *text = cli_read_file(path, MAX_CONFIG_BYTES, "model config", &len);
	if (!text)
		return -1;
	int rc = cli_model_config_parse(path, text, len, out);
	free(text);
	return rc;
}

int cli_model_config_parse(const char *path, const char *text, size_t len, struct cli_model_config *out)
{
	/* By extension; otherwise a file whose first non-blank character is '{' is JSON. */
	bool yaml = ends_with(path, ".yaml") || ends_with(path, ".yml");
	if (!yaml && !ends_with(path, ".json")) {
		const char *p = text + strspn(text, " \t\r\n");
		yaml = *p != '{';
	}
	struct reader r = { .path = path };
	int rc = yaml ? read_yaml(&r, text, len) : read_json(&r, text, len);
	if (rc != 0)
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
		cli_error("%s: missing %s %s (a model config needs hidden_size, intermediate_size, "
			  "num_attention_heads, vocab_size and num_hidden_layers)",
			  path, n_missing == 1 ? "key" : "keys", missing);
		return -1;
	}
	memset(out, 0, sizeof *out);
	out->is_yaml = yaml;
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
	snprintf(out->model_type, sizeof out->model_type, "%s", r.model_type);
	out->has_multiple_of = r.seen[KEY_MULTIPLE_OF];
	out->multiple_of = (long long)r.values[KEY_MULTIPLE_OF];
	out->has_ffn_dim_multiplier = r.seen[KEY_FFN_MULTIPLIER];
	out->ffn_dim_multiplier = r.values[KEY_FFN_MULTIPLIER];
	return 0;
}
