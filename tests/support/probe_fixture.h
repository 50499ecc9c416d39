/* Loading the H200 measurement fixture (tests/fixtures/probe_h200.json,
 * recorded by ridge-probe on a real H200) for the probe's unit tests.
 * Header-only: only the probe tests link the probe's objects. */
#ifndef RIDGE_PROBE_FIXTURE_H
#define RIDGE_PROBE_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

#include "../../probe/probe.h"
#include "../../probe/result.h"

#ifndef PROBE_FIXTURES
#define PROBE_FIXTURES "tests/fixtures"
#endif

/* The whole file as a NUL-terminated string; fails the test when unreadable. */
static inline char *fixture_text(const char *name, size_t *len)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", PROBE_FIXTURES, name);
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open fixture %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *text = malloc((size_t)n + 1);
	if (!text || fread(text, 1, (size_t)n, f) != (size_t)n)
		fail_msg("cannot read fixture %s", path);
	fclose(f);
	text[n] = '\0';
	if (len)
		*len = (size_t)n;
	return text;
}

/* The recorded H200 run, parsed (static: a probe_result is large). */
static inline const struct probe_result *fixture_h200(void)
{
	static struct probe_result r;
	static int loaded;
	if (!loaded) {
		size_t len;
		char *text = fixture_text("probe_h200.json", &len);
		char err[300];
		if (probe_result_from_json(text, len, &r, err, sizeof err) != 0)
			fail_msg("probe_h200.json does not load: %s", err);
		free(text);
		loaded = 1;
	}
	return &r;
}

/* The first measurement of that name that is not a sweep point. */
static inline const struct probe_measurement *fixture_measurement(const struct probe_result *r, const char *name)
{
	for (int i = 0; i < r->count; i++)
		if (!r->m[i].sweep && strcmp(r->m[i].name, name) == 0)
			return &r->m[i];
	fail_msg("no measurement '%s' in the fixture", name);
	return NULL;
}

#endif
