/* libFuzzer harness: the scenario loader behind `ridge eval` (eval_parse:
 * YAML, top-level keys, every item's kind, keys and values, GPUs, the model
 * section), then every item run through its calculator, as `ridge eval` does.
 *
 * Invariants beyond "no crash":
 *   - every number in every result is finite, and a JSON null appears only
 *     under the keys that are null by design (json_number turning an
 *     overflow into null would be an overflow not reported);
 *   - the human output of each result (the calculator's printer) never shows
 *     "inf" or "nan", and once through the escaping of stdout (cli_escape_text)
 *     holds no control character but newline and tab (issue 21: names from
 *     the file, ESC and BEL, drove the terminal);
 *   - memory and time stay bounded (tests/fuzz/run.sh: -rss_limit_mb,
 *     -timeout) on alias bombs and item floods: the limits of eval.c.
 * Ridge's error messages are silenced with -close_fd_mask=3
 * (fuzz_scenario.options); sanitizer reports still come through. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "eval.h"
#include "fuzz.h"

/* Keys whose value is null by design, when the quantity does not exist: no
 * break-even or crossover, no --ffn-dim-multiplier, a memory level without a
 * bandwidth, the default carveout, no change that gains a block; and every
 * key under an occupancy "limits" object (null: that resource sets no limit).
 * Any other null is a non-finite number json_number hid. */
static const char *const
	null_keys[] = { "break_even_step", "crossover_batch",  "ffn_dim_multiplier",
			"actual",          "graph_reduction", /* a ratio to a zero graph cost: none (json_ratio) */
			"bandwidth",       "carveout_percent", "registers_to_drop",
			"vgprs_to_drop",   "smem_to_drop",     NULL };

static void check_json(const cJSON *node, const char *key, const char *parent)
{
	if (cJSON_IsNumber(node)) {
		CHECK(isfinite(node->valuedouble));
	} else if (cJSON_IsNull(node)) {
		bool allowed = parent && strcmp(parent, "limits") == 0;
		for (const char *const *k = null_keys; *k && key; k++)
			allowed |= strcmp(*k, key) == 0;
		if (!allowed)
			fprintf(stderr, "null under '%s'\n", key ? key : "(array item)");
		CHECK(allowed);
	}
	for (const cJSON *child = node->child; child; child = child->next)
		check_json(child, child->string, key);
}

static bool is_word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* "inf" or "nan" as a word of its own (not "info", "financial"). */
static bool shows_non_finite(const char *text)
{
	for (const char *p = text; *p; p++) {
		if ((strncasecmp(p, "inf", 3) == 0 || strncasecmp(p, "nan", 3) == 0) &&
		    (p == text || !is_word_char(p[-1]))) {
			const char *after = p + 3;
			if (strncasecmp(p, "inf", 3) == 0 && strncasecmp(after, "inity", 5) == 0)
				after += 5;
			if (!is_word_char(*after))
				return true;
		}
	}
	return false;
}

static void check_human(const struct calc *calc, const cJSON *result)
{
	char *text = NULL;
	size_t len = 0;
	FILE *saved = stdout;
	FILE *capture = open_memstream(&text, &len);
	CHECK(capture);
	stdout = capture;
	if (calc->print)
		calc->print(stdout, result);
	else
		calc_print_table(stdout, result, "  ");
	fflush(capture);
	stdout = saved;
	fclose(capture);
	if (shows_non_finite(text)) {
		fprintf(stderr, "human output shows inf/nan:\n%s\n", text);
		CHECK(!"human output shows inf or nan");
	}
	char *escaped = malloc(6 * len + 16);
	CHECK(escaped);
	bool pending = false;
	size_t n = cli_escape_text(text, len, escaped, 6 * len + 16, &pending);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)escaped[i];
		CHECK((c >= 0x20 && c != 0x7f) || c == '\n' || c == '\t');
		CHECK(!(c == 0xc2 && i + 1 < n && (unsigned char)escaped[i + 1] >= 0x80 &&
			(unsigned char)escaped[i + 1] <= 0x9f));
	}
	free(escaped);
	free(text);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_builtin_hwdb_only();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* model.config paths are relative to the scenario: examples/ has configs. */
	struct app_status st;
	app_status_init(&st);
	struct eval_scenario *sc = eval_parse("examples/fuzz.yaml", (const char *)data, size, NULL, NULL, &st);
	if (!sc)
		return 0;
	for (int i = 0; i < eval_item_count(sc); i++) {
		cJSON *result = eval_run(sc, i, &st);
		if (!result)
			continue;
		check_json(result, NULL, NULL);
		check_human(eval_item_calc(sc, i), result);
		cJSON_Delete(result);
	}
	eval_close(sc);
	return 0;
}
