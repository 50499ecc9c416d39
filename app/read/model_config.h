/* Reads a transformer model config: a Hugging Face config.json (parsed with
 * cJSON) or the same keys in YAML (parsed with libyaml). Errors name the file
 * and, for malformed input, the line and column. */
#ifndef RIDGE_CLI_MODEL_CONFIG_H
#define RIDGE_CLI_MODEL_CONFIG_H

#include <stdbool.h>

#include "model_family.h"
#include "models.h"
#include "workload.h"

#define CLI_MODEL_MAX_WARNINGS 8

struct app_model_config {
	/* hidden_size, intermediate_size, num_attention_heads, vocab_size and
	 * num_hidden_layers are required; num_key_value_heads and head_dim are
	 * optional (absent or null). Not yet resolved: see align_model_resolve(). */
	struct ridge_align_model model;
	/* Meta's params.json keys for the SwiGLU size, used when present. */
	bool has_multiple_of;
	long long multiple_of;
	bool has_ffn_dim_multiplier;
	double ffn_dim_multiplier;
	bool is_yaml;
	/* The decoder as model/workload.h describes it (not yet resolved:
	 * see app_model_config_workload()), model_type (Hugging Face's: "llama", "qwen2", ...; "" when absent: the
	 * Llama SwiGLU rule is only checked against Llama configs), and what the config says that ridge
	 * does not model (an unknown model_type, MTP modules, ...). */
	struct ridge_workload_model workload;
	char model_type[64];
	int warning_count;
	char warnings[CLI_MODEL_MAX_WARNINGS][320];
	/* the layer plan, the stored format, the nesting, the vision tower */
	struct app_model_extras extras;
	char assume_family[32]; /* --assume-family: read as this family knowingly ("": the config's) */
	char layer_plan[160];   /* "21 x local 4096 + 21 x global" ("": every layer global) */
	char plan_source[200];  /* the key or the family rule it came from */
};

/* Whether the config is read as a Llama decoder (model_type "llama", or
 * --assume-family llama): what engines' Llama-only code paths key on. */
bool app_model_config_is_llama(const struct app_model_config *config);

/* Returns 0, or adds "FILE[:LINE:COL]: ..." to st and returns -1. */
struct app_status;
int app_model_config_load(const char *path, struct app_model_config *out, struct app_status *st);

/* The same, read as the family `assume` ("llama"; NULL or "": the
 * config's model_type): --assume-family, which reads a family ridge refuses
 * (a hybrid, an unknown model_type with keys that change the architecture)
 * with the keys ridge knows, knowingly, with a warning. */
int app_model_config_load_as(const char *path, const char *assume, struct app_model_config *out, struct app_status *st);

/* The same on text already in memory (text[len] must be '\0'); path names it
 * in messages and its extension picks JSON or YAML. The fuzz harness's entry. */
int app_model_config_parse(const char *path, const char *text, size_t len, struct app_model_config *out,
			   struct app_status *st);
int app_model_config_parse_as(const char *path, const char *assume, const char *text, size_t len,
			      struct app_model_config *out, struct app_status *st);

/* config's workload resolved (defaults filled, checked: workload_resolve).
 * Returns 0, or -1 with "LABEL: reason" in err. */
int app_model_config_workload(const struct app_model_config *config, const char *label,
			      struct ridge_workload_model *out, char *err, size_t err_len);

#endif
