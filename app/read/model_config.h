/* Reads a transformer model config: a Hugging Face config.json (parsed with
 * cJSON) or the same keys in YAML (parsed with libyaml). Errors name the file
 * and, for malformed input, the line and column. */
#ifndef RIDGE_CLI_MODEL_CONFIG_H
#define RIDGE_CLI_MODEL_CONFIG_H

#include <stdbool.h>

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
};

/* A decoder family ridge reads completely (app/read/model_config.c's
 * families[], one row a family): its model_type and what it does that its
 * config's keys do not say. */
struct app_model_family {
	const char *model_type;  /* Hugging Face's */
	bool prefix;             /* the quirks hold for model_types that begin so too (gemma2, qwen2_vl) */
	bool tied_embeddings;    /* tie_word_embeddings defaults to true */
	bool qkv_bias;           /* q/k/v projections have biases, whatever attention_bias says */
	bool sliding_window_off; /* use_sliding_window defaults to false */
	bool swiglu_rule;        /* Llama's SwiGLU sizing rule is its rule (ridge align) */
};

/* The family of a model_type: the row of that name, else a prefix row it
 * begins with; "" (no model_type) is read as llama. NULL when none. */
const struct app_model_family *app_model_family(const char *model_type);

/* Returns 0, or adds "FILE[:LINE:COL]: ..." to st and returns -1. */
struct app_status;
int app_model_config_load(const char *path, struct app_model_config *out, struct app_status *st);

/* The same on text already in memory (text[len] must be '\0'); path names it
 * in messages and its extension picks JSON or YAML. The fuzz harness's entry. */
int app_model_config_parse(const char *path, const char *text, size_t len, struct app_model_config *out,
			   struct app_status *st);

/* config's workload resolved (defaults filled, checked: workload_resolve).
 * Returns 0, or -1 with "LABEL: reason" in err. */
int app_model_config_workload(const struct app_model_config *config, const char *label,
			      struct ridge_workload_model *out, char *err, size_t err_len);

#endif
