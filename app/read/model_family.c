/* The family table and the structured keys of a model config (model_family.h). */
#include "model_family.h"

#include <math.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "app.h"

/* The decoder families ridge reads, one row each (the model_type list of
 * the unknown-type warning is this table's modelled rows in this order).
 * Each rule names its source: the transformers modelling code of the
 * family (v4.57) unless the row says otherwise. */
static const struct app_model_family families[] = {
	{ .model_type = "llama",
	  .swiglu_rule = true,
	  .source = "LlamaConfig",
	  .fixture = "meta-llama--Meta-Llama-3.1-8B" },
	{ .model_type = "mistral",
	  .source = "MistralConfig: a sliding_window, when given, applies to every layer",
	  .fixture = NULL },
	{ .model_type = "mixtral", .source = "MixtralConfig", .fixture = "mistralai--Mixtral-8x7B-v0.1" },
	/* Qwen2's q/k/v projections have biases (not a config key), and
	 * Qwen2Config defaults use_sliding_window to false; so do its variants. */
	{ .model_type = "qwen2",
	  .prefix = true,
	  .qkv_bias = true,
	  .sliding_window_off = true,
	  .source = "Qwen2Attention (q/k/v bias=True); Qwen2Config use_sliding_window=False",
	  .fixture = "Qwen--Qwen2-7B-Instruct" },
	{ .model_type = "qwen2_moe",
	  .qkv_bias = true,
	  .sliding_window_off = true,
	  .source = "Qwen2MoeConfig: decoder_sparse_step, mlp_only_layers",
	  .fixture = NULL },
	{ .model_type = "qwen3",
	  .prefix = true,
	  .sliding_window_off = true,
	  .source = "Qwen3Config",
	  .fixture = "Qwen--Qwen3-8B" },
	{ .model_type = "qwen3_moe",
	  .sliding_window_off = true,
	  .source = "Qwen3MoeConfig: decoder_sparse_step, mlp_only_layers",
	  .fixture = "Qwen--Qwen3-30B-A3B" },
	/* transformers' default for tie_word_embeddings is true, but each
	 * decoder's config class sets its own: Gemma (and Gemma 2, 3) ties, the
	 * others here do not. Gemma 2 alternates local and global layers,
	 * starting local (Gemma2DecoderLayer: is_sliding = not layer_idx % 2;
	 * the Gemma 2 report, Table 1); Gemma 3 makes every 6th layer global
	 * (sliding_window_pattern 6: is_sliding = (layer_idx + 1) % 6 != 0). */
	{ .model_type = "gemma2",
	  .tied_embeddings = true,
	  .layers = APP_LAYERS_ALTERNATE,
	  .source = "Gemma2DecoderLayer (is_sliding = not layer_idx % 2); Gemma 2 report, Table 1",
	  .fixture = "google--gemma-2-9b" },
	{ .model_type = "gemma3",
	  .prefix = true,
	  .tied_embeddings = true,
	  .layers = APP_LAYERS_PATTERN,
	  .pattern = 6,
	  .source = "Gemma3TextConfig sliding_window_pattern 6 (every 6th layer global); Gemma 3 report, section 2",
	  .fixture = "google--gemma-3-12b-it" },
	{ .model_type = "gemma",
	  .prefix = true,
	  .tied_embeddings = true,
	  .source = "GemmaConfig (tie_word_embeddings=True)",
	  .fixture = NULL },
	{ .model_type = "deepseek_v2", .source = "DeepseekV2Config", .fixture = "deepseek-ai--DeepSeek-V2-Lite" },
	{ .model_type = "deepseek_v3",
	  .source = "DeepseekV3Config; its quantization_config (fp8 e4m3, 128 x 128 block scales)",
	  .fixture = "deepseek-ai--DeepSeek-V3" },
	{ .model_type = "phi3",
	  .source = "Phi3Config: sliding_window applied to every layer, as transformers' Phi3 attention does",
	  .fixture = "microsoft--Phi-3-mini-4k-instruct" },
	{ .model_type = "gpt_oss",
	  .layers = APP_LAYERS_FROM_TYPES,
	  .gpt_oss = true,
	  .source =
		  "GptOssConfig layer_types; biases on q/k/v/o, experts and router, one sink per head (modeling_gpt_oss); "
		  "MXFP4 experts (quantization_config)",
	  .fixture = "openai--gpt-oss-120b" },
	{ .model_type = "cohere2",
	  .tied_embeddings = true,
	  .layers = APP_LAYERS_PATTERN,
	  .pattern = 4,
	  .source = "Cohere2Config sliding_window_pattern 4 (every 4th layer global)",
	  .fixture = NULL },
	{ .model_type = "cohere",
	  .tied_embeddings = true,
	  .source = "CohereConfig (tie_word_embeddings=True; one LayerNorm, parallel attention and MLP)",
	  .fixture = "CohereForAI--c4ai-command-r-v01" },
	{ .model_type = "olmo2", .source = "Olmo2Config", .fixture = "allenai--OLMo-2-1124-7B" },
	{ .model_type = "llama4",
	  .prefix = true,
	  .layers = APP_LAYERS_CHUNKED_NO_ROPE,
	  .llama4 = true,
	  .source = "Llama4TextConfig: attention_chunk_size on RoPE layers, NoPE every 4th layer global "
		    "(no_rope_layers); interleave_moe_layer_step; intermediate_size_mlp for dense layers",
	  .fixture = "meta-llama--Llama-4-Scout-17B-16E-Instruct" },
	/* Refused: layers that keep a recurrent state instead of (or beside) a
	 * KV cache, or blocks ridge's arithmetic does not describe. */
	{ .model_type = "jamba",
	  .refused = "Mamba layers beside attention (attn_layer_period) and MoE every expert_layer_period layers",
	  .source = "JambaConfig",
	  .fixture = "ai21labs--Jamba-v0.1" },
	{ .model_type = "mamba2",
	  .refused = "a state-space model (Mamba-2): a recurrent state, no attention or KV cache",
	  .source = "Mamba2Config",
	  .fixture = NULL },
	{ .model_type = "mamba",
	  .refused = "a state-space model (Mamba): a recurrent state, no attention or KV cache",
	  .source = "MambaConfig",
	  .fixture = NULL },
	{ .model_type = "nemotron_h",
	  .refused = "Mamba-2 layers beside attention (hybrid_override_pattern)",
	  .source = "NemotronHConfig",
	  .fixture = "nvidia--Nemotron-H-56B-Base-8K" },
	{ .model_type = "falcon_h1",
	  .refused = "Mamba-2 heads in parallel with attention in every layer",
	  .source = "FalconH1Config",
	  .fixture = NULL },
	{ .model_type = "qwen3_next",
	  .refused = "gated DeltaNet linear-attention layers beside full attention (layer_types)",
	  .source = "Qwen3NextConfig",
	  .fixture = "Qwen--Qwen3-Next-80B-A3B-Thinking" },
	{ .model_type = "falcon",
	  .refused = "a non-gated GELU MLP beside parallel attention, under other key names (n_head, n_layer)",
	  .source = "FalconConfig",
	  .fixture = NULL },
	{ .model_type = "phi3small",
	  .refused = "block-sparse attention (dense every dense_attention_every_n_layers layers) and a GeGeLU MLP "
		     "sized by ff_intermediate_size",
	  .source = "Phi3SmallConfig (remote code)",
	  .fixture = "microsoft--Phi-3-small-8k-instruct" },
	{ .model_type = "falcon_mamba",
	  .refused = "a state-space model (Mamba): a recurrent state, no attention or KV cache",
	  .source = "FalconMambaConfig",
	  .fixture = "tiiuae--falcon-mamba-7b" },
	{ .model_type = "bamba", .refused = "Mamba-2 layers beside attention", .source = "BambaConfig" },
	{ .model_type = "zamba2", .refused = "Mamba-2 layers with shared attention blocks", .source = "Zamba2Config" },
	{ .model_type = "recurrent_gemma", .refused = "recurrent (RG-LRU) layers", .source = "RecurrentGemmaConfig" },
	{ .model_type = "granitemoehybrid",
	  .refused = "Mamba-2 layers beside attention",
	  .source = "GraniteMoeHybridConfig" },
	{ .model_type = "lfm2", .refused = "short convolution layers beside attention", .source = "Lfm2Config" },
	{ .model_type = "rwkv", .refused = "a recurrent (RWKV) model: no attention", .source = "RwkvConfig" },
};
#define FAMILY_COUNT (sizeof families / sizeof families[0])

const struct app_model_family *app_model_family(const char *model_type)
{
	const char *type = model_type[0] ? model_type : "llama";
	for (size_t i = 0; i < FAMILY_COUNT; i++)
		if (strcmp(type, families[i].model_type) == 0)
			return &families[i];
	for (size_t i = 0; i < FAMILY_COUNT; i++)
		if (families[i].prefix && strncmp(type, families[i].model_type, strlen(families[i].model_type)) == 0)
			return &families[i];
	return NULL;
}

const char *app_model_family_list(void)
{
	static char list[FAMILY_COUNT * 32];
	size_t at = 0;
	for (size_t i = 0; i < FAMILY_COUNT; i++)
		if (!families[i].refused)
			at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", at ? " " : "",
					       families[i].model_type);
	return list;
}

bool app_model_assume_ok(const char *assume, struct app_status *st)
{
	const struct app_model_family *f = app_model_family(assume);
	if (f && !f->refused && strcmp(f->model_type, assume) == 0)
		return true;
	app_error_flag(st, "--assume-family", "'%s' is not a family ridge models (known: %s)", assume,
		       app_model_family_list());
	return false;
}

static const char *rule_text(const struct app_model_family *f)
{
	switch (f->layers) {
	case APP_LAYERS_ALTERNATE:
		return "local (sliding_window) and global layers alternate, local first";
	case APP_LAYERS_PATTERN:
		return "every sliding_window_pattern-th layer global, the rest local";
	case APP_LAYERS_CHUNKED_NO_ROPE:
		return "chunked attention (attention_chunk_size) on RoPE layers, global on NoPE layers";
	case APP_LAYERS_FROM_TYPES:
		return "the layer plan from layer_types";
	default:
		return f->sliding_window_off ? "full attention (use_sliding_window off unless given)"
					     : "a sliding_window, when given, on every layer";
	}
}

void app_model_family_table(char *out, size_t len)
{
	size_t at = (size_t)snprintf(out, len,
				     "| model_type | read as | refused | rule's source | fixture |\n"
				     "|---|---|---|---|---|\n");
	for (size_t i = 0; i < FAMILY_COUNT && at < len; i++) {
		const struct app_model_family *f = &families[i];
		char fixture[160] = "none yet";
		if (f->fixture)
			snprintf(fixture, sizeof fixture, "`tests/fixtures/model-configs/%s.json`", f->fixture);
		at += (size_t)snprintf(out + at, len - at, "| `%s%s` | %s%s%s%s | %s | %s | %s |\n", f->model_type,
				       f->prefix ? "*" : "", f->refused ? "-" : rule_text(f),
				       !f->refused && f->qkv_bias ? "; q/k/v biases" : "",
				       !f->refused && f->tied_embeddings ? "; tied embeddings" : "",
				       f->gpt_oss ? "; o/expert/router biases, attention sinks" : "",
				       f->refused ? f->refused : "-", f->source, fixture);
	}
}

/* ---- the structured keys ---- */

static int fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* src's key, else root's. */
static const cJSON *item_of(const cJSON *src, const cJSON *root, const char *key)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(src, key);
	if ((!item || cJSON_IsNull(item)) && root != src)
		item = cJSON_GetObjectItemCaseSensitive(root, key);
	return item && !cJSON_IsNull(item) ? item : NULL;
}

/* A whole number >= 0 (0 when absent); -1 with err when it is not one. */
static int whole_of(const cJSON *item, const char *key, long long *out, char *err, size_t len)
{
	*out = 0;
	if (!item)
		return 0;
	if (!cJSON_IsNumber(item) || !(item->valuedouble >= 0) || item->valuedouble > 1e9 ||
	    item->valuedouble != floor(item->valuedouble))
		return fail(err, len, "'%s' must be a whole number from 0 to 1e9", key);
	*out = (long long)item->valuedouble;
	return 0;
}

static int read_layer_types(const cJSON *types, struct app_model_extras *x, char *err, size_t len)
{
	if (!cJSON_IsArray(types))
		return fail(err, len, "'layer_types' must be a list of strings");
	const cJSON *t;
	cJSON_ArrayForEach (t, types) {
		if (!cJSON_IsString(t))
			return fail(err, len, "'layer_types' must be a list of strings");
		if (++x->layer_types > APP_MODEL_MAX_LAYERS)
			return fail(err, len, "'layer_types' has more than %d entries", APP_MODEL_MAX_LAYERS);
		const char *v = t->valuestring;
		if (strcmp(v, "full_attention") == 0 || strcmp(v, "attention") == 0)
			x->global_types++;
		else if (strcmp(v, "sliding_attention") == 0 || strcmp(v, "chunked_attention") == 0) {
			x->local_types++;
			x->chunked_types |= v[0] == 'c';
		} else if (!x->other_type[0])
			snprintf(x->other_type, sizeof x->other_type, "%.40s", v);
	}
	return 0;
}

/* no_rope_layers (Llama 4): 1 for a RoPE layer (chunked attention), 0 for a NoPE one (global). */
static int read_no_rope(const cJSON *list, struct app_model_extras *x, char *err, size_t len)
{
	if (!cJSON_IsArray(list))
		return fail(err, len, "'no_rope_layers' must be a list of 0s and 1s");
	const cJSON *v;
	cJSON_ArrayForEach (v, list) {
		if (!cJSON_IsNumber(v) || (v->valuedouble != 0 && v->valuedouble != 1))
			return fail(err, len, "'no_rope_layers' must be a list of 0s and 1s");
		if (++x->no_rope_layers > APP_MODEL_MAX_LAYERS)
			return fail(err, len, "'no_rope_layers' has more than %d entries", APP_MODEL_MAX_LAYERS);
		x->no_rope_ones += v->valuedouble == 1;
	}
	return 0;
}

static void set_group(struct app_model_storage_group *g, double bytes, double group, double scale_bytes,
		      const char *name)
{
	g->storage = (struct ridge_storage){ bytes, group, scale_bytes };
	snprintf(g->name, sizeof g->name, "%s", name);
	const char *dtype = bytes == 2     ? "bf16"
			    : bytes == 1   ? (strncmp(name, "int8", 4) == 0 ? "int8" : "fp8")
			    : bytes == 0.5 ? (strstr(name, "fp4") ? "fp4" : "int4")
					   : "other";
	snprintf(g->dtype, sizeof g->dtype, "%s", dtype);
}

static double number_or(const cJSON *o, const char *key, double fallback)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : fallback;
}

static const char *string_or(const cJSON *o, const char *key, const char *fallback)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : fallback;
}

/* Whether a list of module names (modules_to_not_convert, ignore) names the
 * attention layers: then only the experts are quantized. */
static bool list_names_attention(const cJSON *list)
{
	const cJSON *v;
	cJSON_ArrayForEach (v, list)
		if (cJSON_IsString(v) && (strstr(v->valuestring, "self_attn") || strstr(v->valuestring, "attn")))
			return true;
	return false;
}

/* An integer format of `bits` with a 16-bit scale (and a packed zero point
 * of `bits`, when asymmetric) per `group` weights. */
static void integer_group(struct app_model_storage_group *g, double bits, double group, bool zero, const char *method)
{
	char name[48];
	if (group > 0)
		snprintf(name, sizeof name, "int%g (%s, group %g)", bits, method, group);
	else
		snprintf(name, sizeof name, "int%g (%s, per channel)", bits, method);
	set_group(g, bits / 8, group > 0 ? group : 0, 2 + (zero ? bits / 8 : 0), name);
}

/* compressed-tensors: the first config group's weights. */
static int read_compressed_tensors(const cJSON *q, struct app_model_extras *x, char *err, size_t len)
{
	const cJSON *groups = cJSON_GetObjectItemCaseSensitive(q, "config_groups");
	const cJSON *first = cJSON_IsObject(groups) ? groups->child : NULL;
	const cJSON *w = first ? cJSON_GetObjectItemCaseSensitive(first, "weights") : NULL;
	if (!cJSON_IsObject(w))
		return fail(err, len, "'quantization_config': compressed-tensors without config_groups.*.weights");
	double bits = number_or(w, "num_bits", 0), group = number_or(w, "group_size", 0);
	const char *type = string_or(w, "type", "int");
	if (bits == 4 && strcmp(type, "float") == 0)
		set_group(&x->dense, 0.5, group > 0 ? group : 16, 1, "nvfp4 (fp8 scale / 16)");
	else if (bits == 8 && strcmp(type, "float") == 0)
		set_group(&x->dense, 1, 0, 4, "fp8 (compressed-tensors)");
	else if ((bits == 4 || bits == 8) && strcmp(type, "int") == 0)
		integer_group(&x->dense, bits, group, !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(w, "symmetric")),
			      "compressed-tensors");
	else
		return fail(err, len,
			    "'quantization_config': compressed-tensors weights of %g-bit %s are not a format "
			    "ridge knows: give --weight-dtype",
			    bits, type);
	return 0;
}

/* quantization_config: the stored format of each tensor group. */
static int read_quantization(const cJSON *q, struct app_model_extras *x, char *err, size_t len)
{
	if (!cJSON_IsObject(q))
		return fail(err, len, "'quantization_config' must be an object");
	const char *method = string_or(q, "quant_method", "");
	snprintf(x->quant_method, sizeof x->quant_method, "%.31s", method);
	x->quantized = true;
	const cJSON *skip = cJSON_GetObjectItemCaseSensitive(q, "modules_to_not_convert");
	if (strcmp(method, "fp8") == 0) {
		const cJSON *block = cJSON_GetObjectItemCaseSensitive(q, "weight_block_size");
		double group = 0;
		if (cJSON_IsArray(block) && cJSON_GetArraySize(block) == 2 &&
		    cJSON_IsNumber(cJSON_GetArrayItem(block, 0)) && cJSON_IsNumber(cJSON_GetArrayItem(block, 1)))
			group = cJSON_GetArrayItem(block, 0)->valuedouble * cJSON_GetArrayItem(block, 1)->valuedouble;
		if (!(group > 0 && group <= 1e9))
			group = 0;
		char name[48];
		snprintf(name, sizeof name, group > 0 ? "fp8 (fp32 scale / %g)" : "fp8", group);
		set_group(&x->dense, 1, group, 4, name);
	} else if (strcmp(method, "mxfp4") == 0) {
		set_group(&x->dense, 0.5, 32, 1, "mxfp4 (e8m0 scale / 32)");
		x->experts_only = list_names_attention(skip);
	} else if (strcmp(method, "awq") == 0) {
		double bits = number_or(q, "bits", number_or(q, "w_bit", 4));
		double group = number_or(q, "group_size", number_or(q, "q_group_size", 128));
		const cJSON *zero = cJSON_GetObjectItemCaseSensitive(q, "zero_point");
		integer_group(&x->dense, bits, group, !cJSON_IsFalse(zero), "AWQ");
	} else if (strcmp(method, "gptq") == 0) {
		double bits = number_or(q, "bits", 4), group = number_or(q, "group_size", 128);
		integer_group(&x->dense, bits, group > 0 ? group : 0, true, "GPTQ");
	} else if (strcmp(method, "bitsandbytes") == 0) {
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(q, "load_in_4bit"))) {
			bool twice = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(q, "bnb_4bit_use_double_quant"));
			/* blocks of 64 with an fp32 absmax; double quantization: an
			 * 8-bit absmax and an fp32 per 256 of them */
			set_group(&x->dense, 0.5, 64, twice ? 1 + 4.0 / 256 : 4,
				  twice ? "nf4 (bitsandbytes, double quant)" : "nf4 (bitsandbytes)");
		} else {
			set_group(&x->dense, 1, 0, 4, "int8 (bitsandbytes)");
		}
	} else if (strcmp(method, "compressed-tensors") == 0) {
		if (read_compressed_tensors(q, x, err, len))
			return -1;
	} else if (strcmp(method, "modelopt") == 0) {
		const char *algo = string_or(q, "quant_algo", "");
		if (strcasecmp(algo, "NVFP4") == 0)
			set_group(&x->dense, 0.5, number_or(q, "group_size", 16), 1, "nvfp4 (fp8 scale / 16)");
		else if (strcasecmp(algo, "FP8") == 0)
			set_group(&x->dense, 1, 0, 4, "fp8 (modelopt)");
		else
			return fail(err, len,
				    "'quantization_config': modelopt quant_algo '%.40s' is not one ridge "
				    "knows (FP8, NVFP4): give --weight-dtype",
				    algo);
	} else if (strcmp(method, "fbgemm_fp8") == 0) {
		set_group(&x->dense, 1, 0, 4, "fp8 (fbgemm, per row)");
	} else {
		return fail(err, len,
			    "'quantization_config': quant_method '%.40s' is not one ridge knows (fp8, mxfp4, "
			    "awq, gptq, bitsandbytes, compressed-tensors, modelopt, fbgemm_fp8): give "
			    "--weight-dtype",
			    method);
	}
	x->experts = x->dense;
	if (x->experts_only)
		set_group(&x->dense, 2, 0, 0, "bf16");
	set_group(&x->embedding, 2, 0, 0, "bf16");
	snprintf(x->quant_note, sizeof x->quant_note, "quantization_config (%s)", x->quant_method);
	return 0;
}

/* A vision tower's parameters, estimated as a ViT: per layer q, k, v, o with
 * biases, a two-matrix MLP with biases, two LayerNorms; the patch embedding,
 * one position embedding per patch. */
static void read_vision(const cJSON *v, struct app_model_extras *x)
{
	double h = number_or(v, "hidden_size", number_or(v, "embed_dim", 0));
	double ff = number_or(v, "intermediate_size", 4 * h);
	double layers = number_or(v, "num_hidden_layers", number_or(v, "depth", 0));
	double patch = number_or(v, "patch_size", 14), image = number_or(v, "image_size", 0);
	double channels = number_or(v, "num_channels", number_or(v, "in_channels", 3));
	x->vision = true;
	if (!(h > 0 && layers > 0 && isfinite(h * ff * layers) && patch > 0 && h < 1e6 && ff < 1e7 && layers < 1e4)) {
		snprintf(x->vision_note, sizeof x->vision_note,
			 "vision_config: its size could not be read (hidden_size, num_hidden_layers): not counted");
		return;
	}
	x->vision_hidden = h;
	double per_layer = 4 * h * h + 4 * h + 2 * h * ff + ff + h + 4 * h;
	double positions = image > 0 ? pow(floor(image / patch), 2) : 0;
	x->vision_params = layers * per_layer + channels * patch * patch * h + h + positions * h + 2 * h;
	snprintf(x->vision_note, sizeof x->vision_note,
		 "vision tower: about %.3g parameters (a ViT of %g layers, hidden %g), not priced per token",
		 x->vision_params, layers, h);
}

void app_model_vision_projector(struct app_model_extras *x, double text_hidden)
{
	if (!x->vision || !(x->vision_params > 0))
		return;
	double v = x->vision_hidden, t = text_hidden, projector = 0;
	if (strncmp(x->wrapper_type, "llava", 5) == 0)
		projector = v * t + t + t * t + t;
	else if (strcmp(x->wrapper_type, "gemma3") == 0)
		projector = v * t + v;
	x->vision_params += projector;
	size_t at = strlen(x->vision_note);
	snprintf(x->vision_note + at, sizeof x->vision_note - at, "%s",
		 projector > 0 ? " (with its projector)" : " (no projector counted)");
}

/* Keys of layers ridge does not model (state-space and recurrent layers). */
static void note_foreign(const cJSON *o, struct app_model_extras *x)
{
	static const char *const prefixes[] = {
		"mamba_",      "ssm_",        "attn_layer_",   "hybrid_override_pattern",
		"linear_num_", "linear_key_", "linear_value_", "linear_conv_",
		"state_size",  "time_step_",  "conv_kernel"
	};
	const cJSON *item;
	cJSON_ArrayForEach (item, o) {
		if (!item->string)
			continue;
		for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
			if (strncmp(item->string, prefixes[i], strlen(prefixes[i])) == 0) {
				size_t at = strlen(x->foreign_keys);
				if (at + strlen(item->string) + 8 < sizeof x->foreign_keys)
					snprintf(x->foreign_keys + at, sizeof x->foreign_keys - at, "%s'%s'",
						 at ? ", " : "", item->string);
				break;
			}
	}
}

int app_model_extras_read(const cJSON *src, const cJSON *root, struct app_model_extras *x, char *err, size_t err_len)
{
	memset(x, 0, sizeof *x);
	x->nested = src != root;
	snprintf(x->wrapper_type, sizeof x->wrapper_type, "%.63s", string_or(root, "model_type", ""));
	const cJSON *types = item_of(src, root, "layer_types");
	if (types && read_layer_types(types, x, err, err_len))
		return -1;
	const cJSON *no_rope = item_of(src, root, "no_rope_layers");
	if (no_rope && read_no_rope(no_rope, x, err, err_len))
		return -1;
	const cJSON *moe_layers = item_of(src, root, "moe_layers");
	if (moe_layers && cJSON_IsArray(moe_layers)) {
		x->has_moe_layers_list = true;
		x->moe_layers_listed = cJSON_GetArraySize(moe_layers);
	}
	const cJSON *mlp_only = item_of(src, root, "mlp_only_layers");
	if (mlp_only && cJSON_IsArray(mlp_only))
		x->mlp_only_layers = cJSON_GetArraySize(mlp_only);
	if (whole_of(item_of(src, root, "sliding_window_pattern"), "sliding_window_pattern", &x->sliding_window_pattern,
		     err, err_len) ||
	    whole_of(item_of(src, root, "attention_chunk_size"), "attention_chunk_size", &x->attention_chunk_size, err,
		     err_len) ||
	    whole_of(item_of(src, root, "interleave_moe_layer_step"), "interleave_moe_layer_step",
		     &x->interleave_moe_layer_step, err, err_len) ||
	    whole_of(item_of(src, root, "intermediate_size_mlp"), "intermediate_size_mlp", &x->intermediate_size_mlp,
		     err, err_len))
		return -1;
	const cJSON *bias = item_of(src, root, "attention_bias");
	x->attention_bias = cJSON_IsTrue(bias);
	const cJSON *q = item_of(src, root, "quantization_config");
	if (!q)
		q = item_of(src, root, "compression_config");
	if (q && read_quantization(q, x, err, err_len))
		return -1;
	const cJSON *vision = cJSON_GetObjectItemCaseSensitive(root, "vision_config");
	if (cJSON_IsObject(vision))
		read_vision(vision, x);
	note_foreign(src, x);
	if (root != src)
		note_foreign(root, x);
	return 0;
}

/* ---- the layer plan and the MoE layers ---- */

/* MoE layers that are not every layer: Qwen-MoE's decoder_sparse_step
 * (layer i is MoE when (i + 1) % step == 0) less its mlp_only_layers,
 * Llama 4's interleave_moe_layer_step or moe_layers list (its dense layers
 * are intermediate_size_mlp wide, its experts and shared expert
 * intermediate_size). Order does not matter: a count of dense layers. */
int app_model_moe_layers(const struct app_model_family *family, const struct app_model_extras *x, long long sparse_step,
			 struct ridge_workload_model *w, char *err, size_t err_len)
{
	long long L = w->layers, moe = L - w->dense_layers;
	long long step = sparse_step > 0 ? sparse_step : x->interleave_moe_layer_step;
	if (x->has_moe_layers_list)
		moe = x->moe_layers_listed;
	else if (step > 1)
		moe = L / step;
	moe -= x->mlp_only_layers;
	if (moe < 0 || moe > L)
		return fail(err, err_len, "the MoE layers (%lld) are not within num_hidden_layers (%lld)", moe, L);
	w->dense_layers = L - moe;
	if (family->llama4) {
		w->expert_intermediate = w->intermediate;
		w->shared_intermediate = w->intermediate;
		w->shared_expert_gate = false;
		w->intermediate = x->intermediate_size_mlp > 0 ? x->intermediate_size_mlp : w->intermediate;
	}
	return 0;
}

/* The layer plan: layer_types when given, else the family's rule
 * (model_family.h). */
int app_model_layer_plan(const struct app_model_family *family, const struct app_model_extras *x,
			 struct ridge_workload_model *w, char *plan, size_t plan_len, char *plan_source,
			 size_t source_len, char *err, size_t err_len)
{
	long long L = w->layers, local = w->sliding_window > 0 ? L : 0;
	const char *source = w->sliding_window > 0 ? "sliding_window: every layer" : "";
	if (family->layers == APP_LAYERS_CHUNKED_NO_ROPE && x->attention_chunk_size > 0) {
		w->sliding_window = x->attention_chunk_size;
		w->chunked_attention = true;
		/* no_rope_layers' default: every 4th layer NoPE (Llama4TextConfig no_rope_layer_interval 4) */
		local = x->no_rope_layers > 0 ? x->no_rope_ones : L - L / 4;
		source = x->no_rope_layers > 0
				 ? "attention_chunk_size on no_rope_layers' RoPE layers"
				 : "attention_chunk_size on RoPE layers, every 4th NoPE (Llama4TextConfig)";
	}
	if (x->layer_types > 0) {
		if (x->layer_types != L)
			return fail(err, err_len, "'layer_types' has %d entries for num_hidden_layers %lld",
				    x->layer_types, L);
		if (x->chunked_types && x->attention_chunk_size > 0) {
			w->sliding_window = x->attention_chunk_size;
			w->chunked_attention = true;
		}
		if (x->local_types > 0 && w->sliding_window == 0)
			return fail(err, err_len,
				    "'layer_types' has %d sliding layers but no 'sliding_window' (or "
				    "attention_chunk_size) gives their window",
				    x->local_types);
		local = x->local_types;
		source = "layer_types";
	} else if (w->sliding_window > 0 && !w->chunked_attention) {
		long long n = x->sliding_window_pattern > 0 ? x->sliding_window_pattern : family->pattern;
		if (family->layers == APP_LAYERS_ALTERNATE || family->layers == APP_LAYERS_FROM_TYPES) {
			local = (L + 1) / 2; /* layers 0, 2, 4, ... */
			source = family->source;
		} else if (family->layers == APP_LAYERS_PATTERN && n > 0) {
			local = L - L / n;
			source = x->sliding_window_pattern > 0 ? "sliding_window_pattern: every Nth layer global"
							       : family->source;
		}
	}
	if (local == 0)
		w->sliding_window = 0;
	w->local_layers = local;
	snprintf(plan_source, source_len, "%s", source);
	if (local == 0)
		plan[0] = '\0';
	else if (local == L)
		snprintf(plan, plan_len, "%lld x %s %lld", L, w->chunked_attention ? "chunked" : "local",
			 w->sliding_window);
	else
		snprintf(plan, plan_len, "%lld x %s %lld + %lld x global", local,
			 w->chunked_attention ? "chunked" : "local", w->sliding_window, L - local);
	return 0;
}

/* ---- a nested model's class defaults ---- */

/* A nested language model (text_config) leaves out the keys equal to its
 * config class's defaults, as transformers writes them (Gemma 3's head_dim
 * 256 is not hidden / heads); those defaults, per text model_type, from
 * the class named (transformers v4.57). A top-level config gets none: its
 * missing keys are an error. */
static const struct {
	const char *model_type, *key;
	double value;
	const char *source;
} class_defaults[] = {
	{ "llama", "hidden_size", 4096, "LlamaConfig" },
	{ "llama", "intermediate_size", 11008, "LlamaConfig" },
	{ "llama", "num_attention_heads", 32, "LlamaConfig" },
	{ "llama", "num_hidden_layers", 32, "LlamaConfig" },
	{ "llama", "vocab_size", 32000, "LlamaConfig" },
	{ "mistral", "hidden_size", 4096, "MistralConfig" },
	{ "mistral", "intermediate_size", 14336, "MistralConfig" },
	{ "mistral", "num_attention_heads", 32, "MistralConfig" },
	{ "mistral", "num_key_value_heads", 8, "MistralConfig" },
	{ "mistral", "num_hidden_layers", 32, "MistralConfig" },
	{ "mistral", "vocab_size", 32000, "MistralConfig" },
	{ "qwen2", "hidden_size", 4096, "Qwen2Config" },
	{ "qwen2", "intermediate_size", 22016, "Qwen2Config" },
	{ "qwen2", "num_attention_heads", 32, "Qwen2Config" },
	{ "qwen2", "num_hidden_layers", 32, "Qwen2Config" },
	{ "qwen2", "vocab_size", 151936, "Qwen2Config" },
	{ "gemma3_text", "hidden_size", 2304, "Gemma3TextConfig" },
	{ "gemma3_text", "intermediate_size", 9216, "Gemma3TextConfig" },
	{ "gemma3_text", "num_attention_heads", 8, "Gemma3TextConfig" },
	{ "gemma3_text", "num_key_value_heads", 4, "Gemma3TextConfig" },
	{ "gemma3_text", "head_dim", 256, "Gemma3TextConfig" },
	{ "gemma3_text", "num_hidden_layers", 26, "Gemma3TextConfig" },
	{ "gemma3_text", "vocab_size", 262208, "Gemma3TextConfig" },
	{ "gemma3_text", "sliding_window", 4096, "Gemma3TextConfig" },
	{ "llama4_text", "hidden_size", 5120, "Llama4TextConfig" },
	{ "llama4_text", "intermediate_size", 8192, "Llama4TextConfig" },
	{ "llama4_text", "num_attention_heads", 40, "Llama4TextConfig" },
	{ "llama4_text", "num_key_value_heads", 8, "Llama4TextConfig" },
	{ "llama4_text", "head_dim", 128, "Llama4TextConfig" },
	{ "llama4_text", "num_hidden_layers", 48, "Llama4TextConfig" },
	{ "llama4_text", "vocab_size", 202048, "Llama4TextConfig" },
};

bool app_model_class_default(const char *model_type, const char *key, double *value, const char **source)
{
	for (size_t i = 0; i < sizeof class_defaults / sizeof class_defaults[0]; i++)
		if (strcmp(class_defaults[i].model_type, model_type) == 0 && strcmp(class_defaults[i].key, key) == 0) {
			*value = class_defaults[i].value;
			*source = class_defaults[i].source;
			return true;
		}
	return false;
}

/* ---- JSON as Python writes it ---- */

/* A copy of text with each bare Infinity / -Infinity outside strings
 * blanked to null (padded with spaces); NULL when there is none (or no
 * memory: the parser then names the token). */
char *app_json_without_infinity(const char *text, size_t len)
{
	if (!memmem(text, len, "Infinity", 8))
		return NULL;
	char *copy = malloc(len + 1);
	if (!copy)
		return NULL;
	memcpy(copy, text, len + 1);
	bool in_string = false;
	for (size_t i = 0; i < len; i++) {
		if (in_string) {
			if (copy[i] == '\\')
				i++;
			else if (copy[i] == '"')
				in_string = false;
		} else if (copy[i] == '"') {
			in_string = true;
		} else if (len - i >= 8 && memcmp(copy + i, "Infinity", 8) == 0) {
			size_t at = i > 0 && copy[i - 1] == '-' ? i - 1 : i;
			memset(copy + at, ' ', i + 8 - at);
			memcpy(copy + at, "null", 4);
			i += 7;
		}
	}
	return copy;
}
