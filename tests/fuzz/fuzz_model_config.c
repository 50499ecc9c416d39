/* libFuzzer harness: the model-config reader behind `ridge align --model`
 * (app_model_config_parse: Hugging Face config.json through cJSON, or the
 * same keys in YAML through libyaml), and the align model it feeds.
 *
 * The first byte picks the file name, and so the format: "config.json",
 * "config.yaml", or "config" (sniffed: '{' first means JSON). The rest is the
 * file. Invariants beyond "no crash":
 *   - an accepted config has every required key in 1..RIDGE_ALIGN_MAX_DIM;
 *   - resolving it and deriving its GEMMs either fails with a message or gives
 *     dimensions in range and finite FLOP counts, never inf or nan;
 *   - the SwiGLU size from its multiple_of / ffn_dim_multiplier likewise. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "model_config.h"
#include "status.h"

static void check_model(const struct app_model_config *config)
{
	const struct ridge_align_model *m = &config->model;
	const long long dims[] = { m->hidden_size, m->intermediate_size, m->num_attention_heads, m->vocab_size,
				   m->num_hidden_layers };
	for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
		CHECK(dims[i] >= 1 && dims[i] <= RIDGE_ALIGN_MAX_DIM);

	struct ridge_align_model resolved = *m;
	char err[256] = "";
	if (align_model_resolve(&resolved, err, sizeof err) != 0) {
		CHECK(err[0] != '\0');
		return;
	}
	static const long long tokens[] = { 1, 4096, RIDGE_ALIGN_MAX_DIM };
	for (size_t t = 0; t < sizeof tokens / sizeof tokens[0]; t++) {
		struct ridge_align_gemm gemms[RIDGE_GEMM_COUNT];
		err[0] = '\0';
		if (align_model_gemms(&resolved, tokens[t], gemms, err, sizeof err) != 0) {
			CHECK(err[0] != '\0');
			continue;
		}
		for (int g = 0; g < RIDGE_GEMM_COUNT; g++) {
			CHECK(gemms[g].n >= 1 && gemms[g].n <= RIDGE_ALIGN_MAX_DIM);
			CHECK(gemms[g].k >= 1 && gemms[g].k <= RIDGE_ALIGN_MAX_DIM);
			CHECK(isfinite(gemms[g].flops) && gemms[g].flops > 0);
			struct ridge_align_tile tile = { 128, 128, 1 };
			struct ridge_align_tiling tiling;
			if (align_tiling(gemms[g].m, gemms[g].n, &tile, 132, &tiling, err, sizeof err) == 0)
				CHECK(isfinite(tiling.efficiency) && tiling.efficiency > 0 && tiling.efficiency <= 1);
		}
	}
	struct ridge_align_swiglu swiglu;
	long long multiple = config->has_multiple_of ? config->multiple_of : 256;
	if (align_swiglu(resolved.hidden_size, config->has_ffn_dim_multiplier, config->ffn_dim_multiplier, multiple,
			 &swiglu, err, sizeof err) == 0)
		CHECK(swiglu.intermediate >= 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	static const char *const names[] = { "config.json", "config.yaml", "config" };
	const char *name = names[data[0] % 3];
	size_t len = size - 1;
	char *text = malloc(len + 1);
	CHECK(text);
	memcpy(text, data + 1, len);
	text[len] = '\0';

	struct app_model_config config;
	struct app_status st;
	app_status_init(&st);
	if (app_model_config_parse(name, text, len, &config, &st) == 0)
		check_model(&config);
	free(text);
	return 0;
}
