/* The strict, bounded JSON check (json_strict.h): one recursive-descent pass
 * over the text that allocates nothing but the keys of the objects open at
 * once, so that a hostile file (100 MB of zeros, a million keys, a nesting
 * bomb) is refused before cJSON spends ~100 bytes a value on it. The depth
 * is bounded (JSON_STRICT_MAX_DEPTH), so the recursion is too. */
#include "json_strict.h"
#include "name_table.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct key_span {
	size_t start, end; /* the key's text between its quotes */
};

struct scan {
	const char *s;
	size_t len, pos;
	const struct json_strict_limits *lim;
	size_t values;
	struct key_span *keys; /* of the objects open now, innermost last */
	size_t key_count, key_cap;
	struct json_strict_error *e;
	bool next_is_target; /* the value about to be scanned is the top level's element_key */
	bool target_seen;    /* only the first such list streams (a second is a duplicate key) */
};

__attribute__((format(printf, 3, 4))) static int fail(struct scan *sc, size_t at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(sc->e->why, sizeof sc->e->why, fmt, ap);
	va_end(ap);
	sc->e->offset = at;
	return -1;
}

static void skip_space(struct scan *sc)
{
	while (sc->pos < sc->len) {
		char c = sc->s[sc->pos];
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			return;
		sc->pos++;
	}
}

static int hex4(const char *s, size_t i, size_t len, unsigned *out)
{
	if (i + 4 > len)
		return -1;
	unsigned v = 0;
	for (size_t k = 0; k < 4; k++) {
		char c = s[i + k];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

/* The code point at s[*i] of a checked string (escapes decoded), *i moved past it. */
static unsigned next_code_point(const char *s, size_t *i)
{
	const unsigned char *u = (const unsigned char *)s;
	if (s[*i] != '\\') {
		unsigned c = u[*i];
		size_t n = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
		unsigned cp = n == 1 ? c : n == 2 ? c & 0x1f : n == 3 ? c & 0x0f : c & 0x07;
		for (size_t k = 1; k < n; k++)
			cp = cp << 6 | (u[*i + k] & 0x3f);
		*i += n;
		return cp;
	}
	char c = s[*i + 1];
	*i += 2;
	switch (c) {
	case 'b':
		return '\b';
	case 'f':
		return '\f';
	case 'n':
		return '\n';
	case 'r':
		return '\r';
	case 't':
		return '\t';
	case 'u': {
		unsigned hi = 0, lo = 0;
		hex4(s, *i, *i + 4, &hi);
		*i += 4;
		if (hi >= 0xd800 && hi <= 0xdbff) {
			hex4(s, *i + 2, *i + 6, &lo);
			*i += 6;
			return 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
		}
		return hi;
	}
	default:
		return (unsigned char)c; /* " \ / */
	}
}

/* Compares two checked keys as the strings they decode to. */
static int compare_keys(const char *s, const struct key_span *a, const struct key_span *b)
{
	size_t i = a->start, j = b->start;
	while (i < a->end && j < b->end) {
		unsigned x = next_code_point(s, &i), y = next_code_point(s, &j);
		if (x != y)
			return x < y ? -1 : 1;
	}
	return (i < a->end) - (j < b->end);
}

static const char *sort_text; /* qsort has no context argument; set only around the sort */

static int compare_spans(const void *a, const void *b)
{
	int c = compare_keys(sort_text, a, b);
	if (c)
		return c;
	size_t x = ((const struct key_span *)a)->start, y = ((const struct key_span *)b)->start;
	return (x > y) - (x < y);
}

/* A string at sc->pos (its opening quote); its content's span in span. */
static int scan_string(struct scan *sc, struct key_span *span)
{
	const unsigned char *u = (const unsigned char *)sc->s;
	size_t i = sc->pos + 1;
	span->start = i;
	while (i < sc->len && sc->s[i] != '"') {
		if (u[i] < 0x20)
			return fail(sc, i, "control byte 0x%02x in a string", u[i]);
		if (sc->s[i] != '\\') {
			size_t n = text_utf8_length(u, i, sc->len);
			if (n == 0)
				return fail(sc, i, "invalid UTF-8 (byte 0x%02x)", u[i]);
			i += n;
			continue;
		}
		if (i + 1 >= sc->len)
			break;
		char c = sc->s[i + 1];
		if (c != 'u') {
			if (!strchr("\"\\/bfnrt", c) || c == '\0')
				return fail(sc, i, "unknown escape '\\%c'", c >= 0x20 && c < 0x7f ? c : '?');
			i += 2;
			continue;
		}
		unsigned cp, lo;
		if (hex4(sc->s, i + 2, sc->len, &cp))
			return fail(sc, i, "'\\u' needs four hex digits");
		if (cp == 0)
			return fail(sc, i, "a NUL character (\\u0000) in a string");
		if (cp >= 0xdc00 && cp <= 0xdfff)
			return fail(sc, i, "a lone UTF-16 low surrogate");
		if (cp >= 0xd800 && cp <= 0xdbff) {
			if (i + 7 >= sc->len || sc->s[i + 6] != '\\' || sc->s[i + 7] != 'u' ||
			    hex4(sc->s, i + 8, sc->len, &lo) || lo < 0xdc00 || lo > 0xdfff)
				return fail(sc, i, "a UTF-16 high surrogate without its low half");
			i += 6;
		}
		i += 6;
	}
	if (i >= sc->len)
		return fail(sc, sc->pos, "a string without its closing quote");
	span->end = i;
	sc->pos = i + 1;
	return 0;
}

static int scan_number(struct scan *sc)
{
	const char *s = sc->s;
	size_t i = sc->pos, start = i;
#define DIGIT(k) ((k) < sc->len && s[k] >= '0' && s[k] <= '9')
	if (i < sc->len && s[i] == '-')
		i++;
	if (!DIGIT(i))
		return fail(sc, start, "not a JSON value");
	if (s[i] == '0')
		i++;
	else
		while (DIGIT(i))
			i++;
	if (i < sc->len && s[i] == '.') {
		if (!DIGIT(i + 1))
			return fail(sc, i, "a number needs digits after its '.'");
		i++;
		while (DIGIT(i))
			i++;
	}
	if (i < sc->len && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < sc->len && (s[i] == '+' || s[i] == '-'))
			i++;
		if (!DIGIT(i))
			return fail(sc, i, "a number needs digits in its exponent");
		while (DIGIT(i))
			i++;
	}
#undef DIGIT
	sc->pos = i;
	return 0;
}

static int scan_value(struct scan *sc, int depth);

/* The object's keys, sc->keys[first..]: sorted, a key given twice sits next to itself. */
static int check_keys(struct scan *sc, size_t first)
{
	size_t n = sc->key_count - first;
	if (n < 2)
		return 0;
	sort_text = sc->s;
	qsort(sc->keys + first, n, sizeof *sc->keys, compare_spans);
	sort_text = NULL;
	for (size_t i = first + 1; i < sc->key_count; i++) {
		const struct key_span *a = &sc->keys[i - 1], *b = &sc->keys[i];
		if (compare_keys(sc->s, a, b) == 0) {
			int shown = (int)(b->end - b->start < 80 ? b->end - b->start : 80);
			return fail(sc, b->start - 1, "key \"%.*s\" given twice in one object", shown,
				    sc->s + b->start);
		}
	}
	return 0;
}

static int push_key(struct scan *sc, struct key_span key)
{
	if (sc->key_count >= sc->lim->max_open_keys)
		return fail(sc, key.start, "more than %zu keys in the objects open at once, the limit of a %s",
			    sc->lim->max_open_keys, sc->lim->what);
	if (sc->key_count == sc->key_cap) {
		size_t cap = sc->key_cap ? sc->key_cap * 2 : 64;
		struct key_span *k = realloc(sc->keys, cap * sizeof *k);
		if (!k) {
			sc->e->out_of_memory = true;
			return fail(sc, key.start, "out of memory");
		}
		sc->keys = k;
		sc->key_cap = cap;
	}
	sc->keys[sc->key_count++] = key;
	return 0;
}

static int scan_object(struct scan *sc, int depth)
{
	size_t first = sc->key_count;
	sc->pos++;
	skip_space(sc);
	if (sc->pos < sc->len && sc->s[sc->pos] == '}') {
		sc->pos++;
		return 0;
	}
	for (;;) {
		struct key_span key;
		if (sc->pos >= sc->len || sc->s[sc->pos] != '"')
			return fail(sc, sc->pos, "expected a key (a string)");
		if (scan_string(sc, &key) || push_key(sc, key))
			return -1;
		skip_space(sc);
		if (sc->pos >= sc->len || sc->s[sc->pos] != ':')
			return fail(sc, sc->pos, "expected ':' after a key");
		sc->pos++;
		const char *target = sc->lim->element_key;
		sc->next_is_target = depth == 1 && target && !sc->target_seen &&
				     key.end - key.start == strlen(target) &&
				     memcmp(sc->s + key.start, target, key.end - key.start) == 0;
		if (scan_value(sc, depth))
			return -1;
		sc->next_is_target = false;
		skip_space(sc);
		if (sc->pos < sc->len && sc->s[sc->pos] == ',') {
			sc->pos++;
			skip_space(sc);
			continue;
		}
		if (sc->pos < sc->len && sc->s[sc->pos] == '}')
			break;
		return fail(sc, sc->pos, "expected ',' or '}' in an object");
	}
	sc->pos++;
	int rc = check_keys(sc, first);
	sc->key_count = first;
	return rc;
}

static int scan_array(struct scan *sc, int depth)
{
	bool target = sc->next_is_target;
	sc->next_is_target = false;
	sc->target_seen |= target;
	sc->pos++;
	skip_space(sc);
	if (sc->pos < sc->len && sc->s[sc->pos] == ']') {
		sc->pos++;
		return 0;
	}
	for (;;) {
		skip_space(sc);
		size_t start = sc->pos;
		if (scan_value(sc, depth))
			return -1;
		if (target &&
		    sc->lim->element_fn(sc->lim->element_ctx, start, sc->pos, sc->e->why, sizeof sc->e->why)) {
			sc->e->offset = start;
			return -1;
		}
		skip_space(sc);
		if (sc->pos < sc->len && sc->s[sc->pos] == ',') {
			sc->pos++;
			continue;
		}
		if (sc->pos < sc->len && sc->s[sc->pos] == ']')
			break;
		return fail(sc, sc->pos, "expected ',' or ']' in a list");
	}
	sc->pos++;
	return 0;
}

static int scan_value(struct scan *sc, int depth)
{
	skip_space(sc);
	if (sc->pos >= sc->len)
		return fail(sc, sc->pos, "the text ends where a value should be");
	if (++sc->values > sc->lim->max_values)
		return fail(sc, sc->pos, "more than %zu JSON values, the limit of a %s", sc->lim->max_values,
			    sc->lim->what);
	char c = sc->s[sc->pos];
	if (c != '[')
		sc->next_is_target = false;
	if (c == '{' || c == '[') {
		if (depth >= sc->lim->max_depth)
			return fail(sc, sc->pos, "nested deeper than %d levels", sc->lim->max_depth);
		return c == '{' ? scan_object(sc, depth + 1) : scan_array(sc, depth + 1);
	}
	if (c == '"') {
		struct key_span ignored;
		return scan_string(sc, &ignored);
	}
	if (c == '-' || (c >= '0' && c <= '9'))
		return scan_number(sc);
	static const char *const literals[] = { "true", "false", "null" };
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(literals[i]);
		if (sc->len - sc->pos >= n && memcmp(sc->s + sc->pos, literals[i], n) == 0) {
			sc->pos += n;
			return 0;
		}
	}
	if ((unsigned char)c < 0x20)
		return fail(sc, sc->pos, "control byte 0x%02x", (unsigned char)c);
	return fail(sc, sc->pos, "not a JSON value");
}

int json_strict_check(const char *text, size_t len, const struct json_strict_limits *lim, struct json_strict_error *e)
{
	struct json_strict_limits bounded = *lim;
	if (bounded.max_depth > JSON_STRICT_MAX_DEPTH || bounded.max_depth < 1)
		bounded.max_depth = JSON_STRICT_MAX_DEPTH;
	struct scan sc = { .s = text, .len = len, .lim = &bounded, .e = e };
	e->offset = 0;
	e->out_of_memory = false;
	e->why[0] = '\0';
	int rc = scan_value(&sc, 0);
	if (rc == 0) {
		skip_space(&sc);
		if (sc.pos < len)
			rc = (unsigned char)text[sc.pos] < 0x20
				     ? fail(&sc, sc.pos, "control byte 0x%02x after the document",
					    (unsigned char)text[sc.pos])
				     : fail(&sc, sc.pos, "text after the JSON document");
	}
	free(sc.keys);
	return rc;
}

cJSON *json_strict_parse(const char *text, size_t len, const struct json_strict_limits *lim,
			 struct json_strict_error *e)
{
	if (json_strict_check(text, len, lim, e) != 0)
		return NULL;
	cJSON *doc = cJSON_ParseWithLength(text, len);
	if (!doc) {
		/* Checked first, so only memory can fail it. */
		e->out_of_memory = true;
		snprintf(e->why, sizeof e->why, "out of memory");
	}
	return doc;
}

void json_strict_position(const char *text, size_t len, size_t offset, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < offset && i < len; i++) {
		if (text[i] == '\n') {
			++*line;
			*col = 1;
		} else if (((unsigned char)text[i] & 0xc0) != 0x80) {
			++*col;
		}
	}
}
