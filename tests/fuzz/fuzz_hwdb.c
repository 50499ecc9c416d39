/* libFuzzer harness: the hwdb YAML loader (hwdb_parse), on arbitrary bytes.
 *
 * Beyond "no crash, no sanitizer report", each input checks what callers rely on:
 *   - the result does not depend on whether diagnostics are collected;
 *   - a rejected entry has at least one diagnostic, each with a message, and a
 *     line number inside the text;
 *   - an accepted entry has its required fields set and every rate finite;
 *   - an accepted entry written back as YAML (hwdb_format, what ridge-probe
 *     writes as a calibration) parses to exactly the same struct. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "hwdb.h"

static int count_lines(const uint8_t *data, size_t size)
{
	int lines = 1;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n' || data[i] == '\r';
	return lines;
}

static void check_valid(const struct ridge_gpu *g)
{
	CHECK(g->id[0] != '\0' && g->name[0] != '\0' && g->arch[0] != '\0');
	CHECK(g->sm_count >= 1 && (g->warp_size == 32 || g->warp_size == 64));
	CHECK(isfinite(g->memory_bandwidth) && g->memory_bandwidth > 0);
	CHECK(isfinite(g->memory_bytes) && g->memory_bytes > 0);
	CHECK(isfinite(g->boost_clock_hz) && g->boost_clock_hz > 0);
	CHECK(g->source_count >= 1 && g->source_count <= RIDGE_MAX_SOURCES);
	CHECK(g->alias_count >= 0 && g->alias_count <= RIDGE_MAX_ALIASES);
	int rates = 0;
	for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
		const struct ridge_peak *p = &g->peak[d];
		CHECK(!p->has_vector || (isfinite(p->vector) && p->vector > 0));
		CHECK(!p->has_matrix || (isfinite(p->matrix) && p->matrix > 0));
		CHECK(!p->has_matrix_sparse || (isfinite(p->matrix_sparse) && p->has_matrix));
		rates += p->has_vector || p->has_matrix;
	}
	CHECK(rates > 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct ridge_gpu *gpu = malloc(sizeof *gpu);
	struct ridge_gpu *again = malloc(sizeof *again);
	struct hwdb_diags *diags = calloc(1, sizeof *diags);
	CHECK(gpu && again && diags);

	int rc = hwdb_parse("fuzz.yaml", text, size, gpu, diags);
	int rc_quiet = hwdb_parse("fuzz.yaml", text, size, again, NULL);
	CHECK(rc == rc_quiet);

	if (rc != 0) {
		CHECK(diags->count + diags->dropped > 0);
		int lines = count_lines(data, size);
		for (int i = 0; i < diags->count; i++) {
			const struct hwdb_diag *d = &diags->items[i];
			CHECK(d->message[0] != '\0');
			CHECK(d->line >= 0 && d->line <= lines + 1);
			CHECK(d->column >= 0);
			char line[1024];
			hwdb_diag_format(d, line, sizeof line);
		}
	} else {
		CHECK(diags->count == 0 && diags->dropped == 0);
		CHECK(memcmp(gpu, again, sizeof *gpu) == 0);
		check_valid(gpu);

		char *yaml = NULL;
		size_t len = 0;
		CHECK(hwdb_format(gpu, &yaml, &len) == 0);
		struct hwdb_diags *round = calloc(1, sizeof *round);
		CHECK(round);
		int rc_round = hwdb_parse("round-trip.yaml", yaml, len, again, round);
		if (rc_round != 0) {
			char line[1024];
			for (int i = 0; i < round->count; i++) {
				hwdb_diag_format(&round->items[i], line, sizeof line);
				fprintf(stderr, "%s\n", line);
			}
			fprintf(stderr, "--- written:\n%.*s\n", (int)len, yaml);
		}
		CHECK(rc_round == 0);
		CHECK(memcmp(gpu, again, sizeof *gpu) == 0);
		free(round);
		free(yaml);
	}
	free(diags);
	free(again);
	free(gpu);
	return 0;
}
