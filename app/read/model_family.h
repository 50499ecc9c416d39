/* What a model config says beyond the flat keys model_config.c reads: the
 * layer plan (per-layer attention), the stored weight format
 * (quantization_config), a nested language model (text_config) and its
 * vision tower, and the keys of architectures ridge does not model (state
 * space and hybrid layers). One row a family in model_family.c's table,
 * each rule with its source; docs/models/families.md is generated from it
 * (`ridge model --families`). */
#ifndef RIDGE_APP_MODEL_FAMILY_H
#define RIDGE_APP_MODEL_FAMILY_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "serve.h"
#include "workload.h"

/* How a family's layers share attention when layer_types does not say. */
enum app_layer_rule {
	APP_LAYERS_ALL_LOCAL,       /* a sliding_window applies to every layer (Mistral, Phi-3) */
	APP_LAYERS_ALTERNATE,       /* even layers local, odd global (Gemma 2) */
	APP_LAYERS_PATTERN,         /* every Nth layer global, the rest local (Gemma 3, Command R7B) */
	APP_LAYERS_CHUNKED_NO_ROPE, /* chunked attention but on NoPE layers (Llama 4) */
	APP_LAYERS_FROM_TYPES,      /* layer_types only (gpt-oss) */
};

/* A decoder family ridge reads: its model_type and what it does that its
 * config's keys do not say. */
struct app_model_family {
	const char *model_type;  /* Hugging Face's */
	bool prefix;             /* the quirks hold for model_types that begin so too (gemma2, qwen2_vl) */
	bool tied_embeddings;    /* tie_word_embeddings defaults to true */
	bool qkv_bias;           /* q/k/v projections have biases, whatever attention_bias says */
	bool sliding_window_off; /* use_sliding_window defaults to false */
	bool swiglu_rule;        /* Llama's SwiGLU sizing rule is its rule (ridge align) */
	enum app_layer_rule layers;
	int pattern;         /* APP_LAYERS_PATTERN's default N (sliding_window_pattern) */
	bool gpt_oss;        /* biases on o_proj, the experts and the router; attention sinks */
	bool llama4;         /* intermediate_size is the experts', intermediate_size_mlp the dense MLP's */
	const char *refused; /* non-NULL: not modelled, and why (state-space and hybrid layers) */
	const char *source;  /* where its rules come from */
	const char *fixture; /* the config under tests/ that tests it */
};

/* The family of a model_type: the row of that name, else a prefix row it
 * begins with; "" (no model_type) is read as llama. NULL when none. */
const struct app_model_family *app_model_family(const char *model_type);

/* --assume-family's value: a modelled family's model_type; else false with
 * the error (naming the flag and the families) in st. */
struct app_status;
bool app_model_assume_ok(const char *assume, struct app_status *st);

/* "llama mistral ...": the modelled families' model_types. */
const char *app_model_family_list(void);

/* The table as Markdown (docs/models/families.md): family, what is
 * modelled, what is refused, the fixture. */
void app_model_family_table(char *out, size_t len);

#define APP_MODEL_MAX_LAYERS 4096

/* A weight tensor group's storage and its name ("mxfp4 (e8m0 scale / 32)"). */
struct app_model_storage_group {
	struct ridge_storage storage;
	char dtype[8]; /* the storage type ridge's --weight-dtype names: fp8, fp4, int4, int8, bf16 */
	char name[48];
};

/* What model_family reads from a config's structured keys. */
struct app_model_extras {
	/* the layer plan */
	int layer_types;                  /* entries in layer_types (0: absent) */
	int local_types, global_types;    /* sliding/chunked and full attention entries */
	bool chunked_types;               /* the local entries are chunked_attention (Llama 4) */
	char other_type[48];              /* an entry that is neither ("linear_attention", "mamba") */
	long long sliding_window_pattern; /* 0: absent */
	long long attention_chunk_size;   /* Llama 4; 0: absent */
	int no_rope_layers, no_rope_ones; /* entries of no_rope_layers and its 1s (RoPE layers: chunked) */
	/* MoE layers that are not every layer */
	long long interleave_moe_layer_step, moe_layers_listed, mlp_only_layers;
	bool has_moe_layers_list;
	long long intermediate_size_mlp;
	bool attention_bias;
	/* the stored format */
	bool quantized;
	char quant_method[32];
	struct app_model_storage_group dense, experts, embedding;
	bool experts_only; /* the quantized layers are the experts (the rest kept in bf16) */
	char quant_note[160];
	/* nesting */
	bool nested;           /* the language model came from text_config */
	char wrapper_type[64]; /* the top level's model_type */
	bool vision;           /* a vision_config is present */
	double vision_params;  /* its estimate (a ViT: attention, MLP, norms, patch and position embeddings;
				   the projector into the language model where the wrapper's is known) */
	double vision_hidden;
	char vision_note[160];
	/* keys of architectures ridge does not model */
	char foreign_keys[200];
};

/* Adds the wrapper's projector from the vision tower into a language model
 * of width text_hidden to x->vision_params: LLaVA's two-layer MLP with
 * biases (linear_1 vision -> text, linear_2 text -> text), Gemma 3's
 * projection matrix and its RMSNorm; others: not counted (the note says). */
void app_model_vision_projector(struct app_model_extras *x, double text_hidden);

/* Reads the structured keys from src (the language model's object) and
 * root (the whole config; the same object when not nested). Returns 0, or
 * -1 with "reason naming the key" in err. */
int app_model_extras_read(const cJSON *src, const cJSON *root, struct app_model_extras *x, char *err, size_t err_len);

/* The layer plan into w (local_layers, sliding_window, chunked_attention):
 * layer_types when given, else the family's rule; plan gets "21 x local
 * 4096 + 21 x global" ("" when every layer is global), plan_source the key
 * or the rule. Returns 0, or -1 with err naming the key. */
int app_model_layer_plan(const struct app_model_family *family, const struct app_model_extras *x,
			 struct ridge_workload_model *w, char *plan, size_t plan_len, char *plan_source,
			 size_t source_len, char *err, size_t err_len);

/* MoE layers that are not every layer into w->dense_layers: Qwen-MoE's
 * decoder_sparse_step (sparse_step; 0: absent) less mlp_only_layers, Llama
 * 4's interleave_moe_layer_step or moe_layers list (and its widths). */
int app_model_moe_layers(const struct app_model_family *family, const struct app_model_extras *x, long long sparse_step,
			 struct ridge_workload_model *w, char *err, size_t err_len);

/* A nested language model's config-class default for key; false: none. */
bool app_model_class_default(const char *model_type, const char *key, double *value, const char **source);

/* A copy of JSON text with each bare Infinity / -Infinity outside strings
 * (Python's json writes them) blanked to null in place, positions kept;
 * NULL when there is none or no memory. The caller frees it. */
char *app_json_without_infinity(const char *text, size_t len);

#endif
