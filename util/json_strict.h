/* The one strict JSON reader with bounds (util/json_strict.c), for the
 * inputs that can be large: ridge calibrate's timings, ridge trace's PyTorch
 * traces and ridge compare's runs (issue 31). It refuses what cJSON lets
 * through (trailing text, a key given twice, control bytes, invalid UTF-8)
 * and bounds what a parse can cost before cJSON allocates anything. */
#ifndef RIDGE_UTIL_JSON_STRICT_H
#define RIDGE_UTIL_JSON_STRICT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* The bounds one input is read within: every value counted (an object, an
 * array, a string, a number, a literal: 1 each; cJSON spends about 100 bytes
 * on one, so max_values bounds the parsed document), the nesting, and the
 * keys of the objects open at once (the duplicate check holds them: 16 bytes
 * each). what names the input in the messages ("benchmark JSON file"). */
struct json_strict_limits {
	size_t max_values;
	int max_depth; /* at most JSON_STRICT_MAX_DEPTH */
	size_t max_open_keys;
	const char *what;
	/* Optional, for a reader that streams: each element of the list that
	 * the top-level object holds under element_key is handed to element_fn
	 * (its text, checked, at text[start..end)) as soon as it is checked; a
	 * non-zero return stops the check with why (at most 240 bytes) as its
	 * reason. The rest of the text is still checked after the last one. */
	const char *element_key;
	int (*element_fn)(void *ctx, size_t start, size_t end, char *why, size_t why_len);
	void *element_ctx;
};
#define JSON_STRICT_MAX_DEPTH 64

struct json_strict_error {
	size_t offset;      /* where in the text */
	bool out_of_memory; /* the check or the parse ran out of memory */
	char why[240];
};

/* Checks text (len bytes; a NUL byte is refused) as one JSON document (RFC
 * 8259): its grammar; valid UTF-8 and no control byte (none raw in a string,
 * no \u0000); no key given twice in one object (escapes decoded: "a" and
 * "\u0061" are one key); nothing after the document but whitespace; and
 * lim's bounds. Returns 0, or -1 with e set. A document it passes cJSON
 * parses, unless memory runs out. */
int json_strict_check(const char *text, size_t len, const struct json_strict_limits *lim, struct json_strict_error *e);

/* json_strict_check, then cJSON_ParseWithLength. NULL with e set
 * (e->out_of_memory when the parse ran out). */
cJSON *json_strict_parse(const char *text, size_t len, const struct json_strict_limits *lim,
			 struct json_strict_error *e);

/* The 1-based line and column of text[offset]. */
void json_strict_position(const char *text, size_t len, size_t offset, int *line, int *col);

#endif
