/* The strict, bounded JSON reader (json_strict.h): one scanner over a window
 * of the text, which is either the whole text in memory or a few hundred KiB
 * of a source read in chunks. It allocates nothing but the window, the keys of
 * the objects open at once and a number's text when strtod must read it, so a
 * hostile file (100 MB of zeros, a million keys, a nesting bomb, a 1 GB
 * trace) is refused, or read, in bounded memory; the depth is bounded
 * (JSON_STRICT_MAX_DEPTH), so the recursion of json_strict_skip is too.
 *
 * Positions are counted as the scanner goes: raw newlines only occur in
 * whitespace, and the only bytes that are not a column of their own (UTF-8
 * continuation bytes) only inside strings, where each sequence is validated
 * anyway; so a line and column cost nothing until an error asks for them. */
#include "json_strict.h"
#include "name_table.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <locale.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One key of an open object: its decoded text in key_text, where it was. */
struct json_strict_key {
	size_t at, len;
	const char *text; /* set while sorting */
	struct json_strict_pos pos;
};

#define NO_HOLD SIZE_MAX
/* An object's keys are checked one against the others as they come up to
 * this many; a larger object is sorted when it closes (n log n, not n^2). */
#define LINEAR_KEYS 32

static struct json_strict_pos here(const struct json_strict_stream *s, size_t i)
{
	unsigned long long at = s->base + i;
	return (struct json_strict_pos){ at, s->line, (long)(at - s->line_start - s->line_cont) + 1 };
}

/* The first failure is kept: a later one (the caller going on) changes nothing. */
__attribute__((format(printf, 3, 4))) static int fail_at(struct json_strict_stream *s, struct json_strict_pos at,
							 const char *fmt, ...)
{
	if (s->failed)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->e.why, sizeof s->e.why, fmt, ap);
	va_end(ap);
	s->e.offset = (size_t)at.offset;
	s->e.line = (int)at.line;
	s->e.col = (int)at.col;
	s->failed = true;
	return -1;
}
#define fail(s, i, ...) fail_at(s, here(s, i), __VA_ARGS__)

static int out_of_memory(struct json_strict_stream *s)
{
	if (!s->failed)
		s->e.out_of_memory = true;
	return fail(s, s->pos, "out of memory");
}

/* ---- the window ---- */

/* More bytes after the window's: false at the end of the source or after a
 * failure. What is before pos (and before hold) is dropped first; the window
 * grows only while a held value fills it. */
static bool refill(struct json_strict_stream *s)
{
	if (s->at_end || s->failed)
		return false;
	size_t keep = s->hold < s->pos ? s->hold : s->pos;
	if (keep > 0) {
		memmove(s->own, s->own + keep, s->filled - keep);
		s->base += keep;
		s->filled -= keep;
		s->pos -= keep;
		if (s->hold != NO_HOLD)
			s->hold -= keep;
	}
	if (s->filled == s->cap || s->cap - s->filled < s->cap / 2) {
		if (s->hold != NO_HOLD && s->filled - s->hold >= s->lim.max_held_bytes) {
			fail_at(s, s->hold_at, "one value of more than %zu bytes, the limit of a %s",
				s->lim.max_held_bytes, s->lim.what);
			return false;
		}
		size_t cap = s->cap * 2;
		char *more = realloc(s->own, cap);
		if (!more) {
			out_of_memory(s);
			return false;
		}
		s->own = more;
		s->buf = more;
		s->cap = cap;
	}
	long n = s->read(s->ctx, s->own + s->filled, s->cap - s->filled);
	if (n < 0) {
		s->e.source_failed = true;
		fail(s, s->pos, "the text could not be read");
		return false;
	}
	if (n == 0) {
		s->at_end = true;
		return false;
	}
	s->filled += (size_t)n;
	return true;
}

/* At least n bytes from pos on, unless the text ends first. */
static bool ensure(struct json_strict_stream *s, size_t n)
{
	while (s->filled - s->pos < n)
		if (!refill(s))
			return false;
	return true;
}

/* The byte at pos (refilling), or -1 at the end. */
static int current(struct json_strict_stream *s)
{
	if (s->pos < s->filled || refill(s))
		return (unsigned char)s->buf[s->pos];
	return -1;
}

static void skip_space_slow(struct json_strict_stream *s)
{
	for (;;) {
		const char *b = s->buf;
		size_t i = s->pos, n = s->filled;
		while (i < n) {
			char c = b[i];
			if (c == ' ' || c == '\t' || c == '\r') {
				i++;
			} else if (c == '\n') {
				i++;
				s->line++;
				s->line_start = s->base + i;
				s->line_cont = 0;
			} else {
				s->pos = i;
				return;
			}
		}
		s->pos = i;
		if (!refill(s))
			return;
	}
}

/* Most values follow their ':' or ',' at once, or after one space. */
static inline void skip_space(struct json_strict_stream *s)
{
	if (s->pos + 1 < s->filled) {
		unsigned char c = (unsigned char)s->buf[s->pos];
		if (c > ' ')
			return;
		if (c == ' ' && (unsigned char)s->buf[s->pos + 1] > ' ') {
			s->pos++;
			return;
		}
	}
	skip_space_slow(s);
}

/* ---- strings ---- */

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

static size_t utf8_encode(unsigned cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* The character a checked escape at e[0] ('\\') stands for, into out;
 * *raw set to the escape's length. */
static size_t decode_escape(const char *e, size_t len, char *out, size_t *raw)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	if (e[1] != 'u') {
		*raw = 2;
		out[0] = to[strchr(from, e[1]) - from];
		return 1;
	}
	unsigned cp = 0, lo = 0;
	hex4(e, 2, len, &cp);
	*raw = 6;
	if (cp >= 0xd800 && cp <= 0xdbff) {
		hex4(e, 8, len, &lo);
		*raw = 12;
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	return utf8_encode(cp, out);
}

static int key_append(struct json_strict_stream *s, const char *bytes, size_t n)
{
	if (s->key_text_len + n > JSON_STRICT_MAX_KEY_BYTES)
		return fail(s, s->pos, "more than %u bytes in the keys of the objects open at once, the limit of a %s",
			    JSON_STRICT_MAX_KEY_BYTES, s->lim.what);
	if (s->key_text_len + n > s->key_text_cap || !s->key_text) {
		size_t cap = s->key_text_cap ? s->key_text_cap * 2 : 256;
		while (cap < s->key_text_len + n)
			cap *= 2;
		char *more = realloc(s->key_text, cap);
		if (!more)
			return out_of_memory(s);
		s->key_text = more;
		s->key_text_cap = cap;
	}
	memcpy(s->key_text + s->key_text_len, bytes, n);
	s->key_text_len += n;
	return 0;
}

/* The escape at pos, checked (and decoded onto the key text for a key). */
static int scan_escape(struct json_strict_stream *s, bool key, struct json_strict_pos open)
{
	ensure(s, 12);
	if (s->failed)
		return -1;
	const char *b = s->buf;
	size_t i = s->pos, len = s->filled;
	if (i + 1 >= len)
		return fail_at(s, open, "a string without its closing quote");
	char c = b[i + 1];
	if (c != 'u' && (!strchr("\"\\/bfnrt", c) || c == '\0'))
		return fail(s, i, "unknown escape '\\%c'", c >= 0x20 && c < 0x7f ? c : '?');
	if (c == 'u') {
		unsigned cp, lo;
		if (hex4(b, i + 2, len, &cp))
			return fail(s, i, "'\\u' needs four hex digits");
		if (cp == 0)
			return fail(s, i, "a NUL character (\\u0000) in a string");
		if (cp >= 0xdc00 && cp <= 0xdfff)
			return fail(s, i, "a lone UTF-16 low surrogate");
		if (cp >= 0xd800 && cp <= 0xdbff &&
		    (i + 7 >= len || b[i + 6] != '\\' || b[i + 7] != 'u' || hex4(b, i + 8, len, &lo) || lo < 0xdc00 ||
		     lo > 0xdfff))
			return fail(s, i, "a UTF-16 high surrogate without its low half");
	}
	char out[4];
	size_t raw, n = decode_escape(b + i, len - i, out, &raw);
	s->pos = i + raw;
	return key ? key_append(s, out, n) : 0;
}

/* The end of the run of plain bytes from i (at most n): 16 at a time where
 * SSE2 is (every x86-64), one at a time otherwise and for the last few. A
 * signed compare below ' ' catches the control bytes and every byte from
 * 0x80 on (UTF-8, validated one sequence at a time) together. */
static inline size_t plain_run(const unsigned char *u, size_t i, size_t n)
{
#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(' ');
	for (; i + 16 <= n; i += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(u + i));
		__m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
					    _mm_cmplt_epi8(x, space));
		int mask = _mm_movemask_epi8(stop);
		if (mask)
			return i + (size_t)__builtin_ctz((unsigned)mask);
	}
#endif
	while (i < n && u[i] >= 0x20 && u[i] < 0x80 && u[i] != '"' && u[i] != '\\')
		i++;
	return i;
}

/* A string at pos (its opening quote): checked; a key's decoded text onto
 * key_text; a value's raw span in span. */
static int scan_string(struct json_strict_stream *s, bool key, struct json_strict_span *span)
{
	struct json_strict_pos open = here(s, s->pos);
	s->pos++;
	if (span) {
		span->start = s->base + s->pos;
		span->escaped = false;
	}
	for (;;) {
		const unsigned char *u = (const unsigned char *)s->buf;
		size_t i = s->pos, n = s->filled, run = i;
		i = plain_run(u, i, n);
		if (key && i > run && key_append(s, s->buf + run, i - run))
			return -1;
		s->pos = i;
		if (i >= n) {
			if (!refill(s))
				return fail_at(s, open, "a string without its closing quote");
			continue;
		}
		unsigned char c = u[i];
		if (c == '"') {
			if (span)
				span->end = s->base + i;
			s->pos = i + 1;
			return 0;
		}
		if (c < 0x20)
			return fail(s, i, "control byte 0x%02x in a string", c);
		if (c == '\\') {
			if (span)
				span->escaped = true;
			if (scan_escape(s, key, open))
				return -1;
			continue;
		}
		ensure(s, 4);
		if (s->failed)
			return -1;
		i = s->pos;
		size_t len = text_utf8_length((const unsigned char *)s->buf, i, s->filled);
		if (len == 0)
			return fail(s, i, "invalid UTF-8 (byte 0x%02x)", (unsigned char)s->buf[i]);
		if (key && key_append(s, s->buf + i, len))
			return -1;
		s->line_cont += len - 1;
		s->pos = i + len;
	}
}

/* scan_string for the common string: plain bytes, its closing quote in the
 * window (and a key's room on the key text). */
static inline int scan_string_fast(struct json_strict_stream *s, bool key, struct json_strict_span *span)
{
	const unsigned char *u = (const unsigned char *)s->buf;
	size_t start = s->pos + 1, end = plain_run(u, start, s->filled), len = end - start;
	if (end >= s->filled || u[end] != '"' ||
	    (key && (s->key_text_len + len >= s->key_text_cap || s->key_text_len + len > JSON_STRICT_MAX_KEY_BYTES)))
		return scan_string(s, key, span);
	if (key) {
		char *to = s->key_text + s->key_text_len;
#ifdef __SSE2__
		if (len <= 16 && start + 16 <= s->filled && s->key_text_len + 16 <= s->key_text_cap) /* most keys */
			_mm_storeu_si128((__m128i *)to, _mm_loadu_si128((const __m128i *)(s->buf + start)));
		else
#endif
			memcpy(to, s->buf + start, len);
		s->key_text_len += len;
	}
	if (span)
		*span = (struct json_strict_span){ s->base + start, s->base + end, false };
	s->pos = end + 1;
	return 0;
}

const char *json_strict_text(const struct json_strict_stream *s, const struct json_strict_span *span, char *out,
			     size_t *len)
{
	const char *raw = s->buf + (span->start - s->base);
	size_t n = (size_t)(span->end - span->start);
	if (!span->escaped) {
		*len = n;
		return raw;
	}
	size_t used = 0;
	for (size_t i = 0; i < n;) {
		if (raw[i] != '\\') {
			out[used++] = raw[i++];
			continue;
		}
		size_t step;
		used += decode_escape(raw + i, n - i, out + used, &step);
		i += step;
	}
	*len = used;
	return out;
}

/* ---- numbers, literals ---- */

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* The exact powers of ten a double holds (Clinger's fast path). */
static const double exact_tens[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
				     1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

/* The number's text (window bytes [from, pos)) through strtod, with the
 * locale's decimal point as cJSON does. */
static int slow_number(struct json_strict_stream *s, size_t from, double *value)
{
	size_t n = s->pos - from;
	if (n + 1 > s->scratch_cap) {
		char *more = realloc(s->scratch, n + 1);
		if (!more)
			return out_of_memory(s);
		s->scratch = more;
		s->scratch_cap = n + 1;
	}
	memcpy(s->scratch, s->buf + from, n);
	s->scratch[n] = '\0';
	char point = localeconv()->decimal_point[0], *dot = memchr(s->scratch, '.', n);
	if (dot && point)
		*dot = point;
	*value = strtod(s->scratch, NULL);
	return 0;
}

/* A number whose text lies in the window up to a byte that ends it: checked
 * and converted without a refill, or 0 when the window ends first (or the
 * number is malformed: the careful path below says how). */
static bool fast_number(struct json_strict_stream *s, double *value)
{
	const char *b = s->buf;
	size_t i = s->pos, n = s->filled;
	bool negative = i < n && b[i] == '-';
	i += negative;
	if (i >= n || b[i] < '0' || b[i] > '9' || (b[i] == '0' && i + 1 < n && b[i + 1] >= '0' && b[i + 1] <= '9'))
		return false;
	uint64_t m = 0;
	int digits = 0;
	long e10 = 0;
	for (; i < n && b[i] >= '0' && b[i] <= '9'; i++, digits++)
		m = m * 10 + (uint64_t)(b[i] - '0');
	if (i < n && b[i] == '.') {
		i++;
		size_t first = i;
		for (; i < n && b[i] >= '0' && b[i] <= '9'; i++, digits++)
			m = m * 10 + (uint64_t)(b[i] - '0');
		if (i == first)
			return false;
		e10 = -(long)(i - first);
	}
	/* An exponent, more than 19 digits or the window's end: the careful path. */
	if (i >= n || b[i] == 'e' || b[i] == 'E' || digits > 19)
		return false;
	if (value) {
		if (m == 0)
			*value = 0;
		else if (m <= (1ULL << 53) && e10 >= -22)
			*value = e10 >= 0 ? (double)m : (double)m / exact_tens[-e10];
		else
			return false;
		if (negative)
			*value = -*value;
	}
	s->pos = i;
	return true;
}

/* A number at pos; its value in *value when asked. The digits are gathered
 * as they are checked: up to 19 significant ones with a small exponent make
 * the exact double at once (m * 10^e and m / 10^e are correctly rounded for
 * m <= 2^53, |e| <= 22); anything else goes through strtod. */
static int scan_number(struct json_strict_stream *s, double *value)
{
	if (fast_number(s, value))
		return 0;
	struct json_strict_pos start = here(s, s->pos);
	bool own_hold = value && s->hold == NO_HOLD; /* strtod may need the text */
	if (own_hold)
		s->hold = s->pos;
	bool negative = false, exact = true;
	uint64_t m = 0;
	long e10 = 0;
	int c = current(s);
	if (c == '-') {
		negative = true;
		s->pos++;
		c = current(s);
	}
	if (!is_digit(c))
		return fail_at(s, start, "not a JSON value");
	if (c == '0') {
		s->pos++;
		c = current(s);
	} else {
		for (; is_digit(c); s->pos++, c = current(s)) {
			if (m < UINT64_MAX / 10 - 1)
				m = m * 10 + (uint64_t)(c - '0');
			else
				exact = false;
		}
	}
	if (c == '.') {
		struct json_strict_pos dot = here(s, s->pos);
		s->pos++;
		c = current(s);
		if (!is_digit(c))
			return fail_at(s, dot, "a number needs digits after its '.'");
		for (; is_digit(c); s->pos++, c = current(s)) {
			if (m < UINT64_MAX / 10 - 1) {
				m = m * 10 + (uint64_t)(c - '0');
				e10--;
			} else {
				exact = false;
			}
		}
	}
	if (c == 'e' || c == 'E') {
		s->pos++;
		c = current(s);
		int sign = 1;
		if (c == '+' || c == '-') {
			sign = c == '-' ? -1 : 1;
			s->pos++;
			c = current(s);
		}
		if (!is_digit(c))
			return fail(s, s->pos, "a number needs digits in its exponent");
		long x = 0;
		for (; is_digit(c); s->pos++, c = current(s))
			if (x < 100000)
				x = x * 10 + (c - '0');
		e10 += sign * x;
	}
	if (s->failed)
		return -1;
	int rc = 0;
	if (value) {
		if (exact && m == 0)
			*value = 0;
		else if (exact && m <= (1ULL << 53) && e10 >= -22 && e10 <= 22)
			*value = e10 >= 0 ? (double)m * exact_tens[e10] : (double)m / exact_tens[-e10];
		else /* the text from its first digit: held, so still in the window */
			rc = slow_number(s, (size_t)(start.offset - s->base) + (negative ? 1 : 0), value);
		if (rc == 0 && negative)
			*value = -*value;
	}
	if (own_hold)
		s->hold = NO_HOLD;
	return rc;
}

static int scan_literal(struct json_strict_stream *s, int c)
{
	const char *literal = c == 't' ? "true" : c == 'f' ? "false" : c == 'n' ? "null" : NULL;
	if (literal) {
		size_t n = strlen(literal);
		ensure(s, n);
		if (s->filled - s->pos >= n && memcmp(s->buf + s->pos, literal, n) == 0) {
			s->pos += n;
			return 0;
		}
	}
	if (c < 0x20)
		return fail(s, s->pos, "control byte 0x%02x", (unsigned)c);
	return fail(s, s->pos, "not a JSON value");
}

/* ---- containers ---- */

/* Whitespace skipped, the value counted: its first byte, or -1. */
static inline int value_start(struct json_strict_stream *s)
{
	if (s->failed)
		return -1;
	skip_space(s);
	if (s->failed)
		return -1;
	if (s->pos >= s->filled)
		return fail(s, s->pos, "the text ends where a value should be");
	if (++s->values > s->lim.max_values)
		return fail(s, s->pos, "more than %zu JSON values, the limit of a %s", s->lim.max_values, s->lim.what);
	return (unsigned char)s->buf[s->pos];
}

static int open_container(struct json_strict_stream *s, bool object)
{
	if (s->depth >= s->lim.max_depth)
		return fail(s, s->pos, "nested deeper than %d levels", s->lim.max_depth);
	s->frames[s->depth++] = (struct json_strict_frame){ .first_key = s->key_count, .object = object };
	s->pos++;
	return 0;
}

static int duplicate(struct json_strict_stream *s, const char *text, size_t len, struct json_strict_pos at)
{
	char shown[84];
	text_line_copy(shown, sizeof shown, text, len);
	return fail_at(s, at, "key \"%s\" given twice in one object", shown);
}

static int compare_keys(const void *a, const void *b)
{
	const struct json_strict_key *x = a, *y = b;
	int c = memcmp(x->text, y->text, x->len < y->len ? x->len : y->len);
	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return (x->pos.offset > y->pos.offset) - (x->pos.offset < y->pos.offset);
}

/* A large object's keys, sorted: a key given twice sits next to itself. */
static int check_keys(struct json_strict_stream *s, size_t first)
{
	struct json_strict_key *k = s->keys + first;
	size_t n = s->key_count - first;
	for (size_t i = 0; i < n; i++)
		k[i].text = s->key_text + k[i].at;
	qsort(k, n, sizeof *k, compare_keys);
	for (size_t i = 1; i < n; i++)
		if (k[i].len == k[i - 1].len && memcmp(k[i].text, k[i - 1].text, k[i].len) == 0)
			return duplicate(s, k[i].text, k[i].len, k[i].pos);
	return 0;
}

static int push_key(struct json_strict_stream *s, size_t at, struct json_strict_pos pos)
{
	size_t len = s->key_text_len - at;
	if (s->key_count >= s->lim.max_open_keys)
		return fail_at(s, pos, "more than %zu keys in the objects open at once, the limit of a %s",
			       s->lim.max_open_keys, s->lim.what);
	struct json_strict_frame *f = &s->frames[s->depth - 1];
	if (!f->deferred && s->key_count - f->first_key >= LINEAR_KEYS)
		f->deferred = true;
	const char *text = s->key_text + at;
	unsigned long long bit = 1ULL << ((len * 7 + (len ? (unsigned char)text[0] : 0)) & 63);
	if (!f->deferred && (f->seen & bit)) { /* a key like it before: compare */
		for (size_t k = f->first_key; k < s->key_count; k++)
			if (s->keys[k].len == len && memcmp(s->key_text + s->keys[k].at, text, len) == 0)
				return duplicate(s, text, len, pos);
	}
	f->seen |= bit;
	if (s->key_count == s->key_cap) {
		size_t cap = s->key_cap ? s->key_cap * 2 : 64;
		struct json_strict_key *more = realloc(s->keys, cap * sizeof *more);
		if (!more)
			return out_of_memory(s);
		s->keys = more;
		s->key_cap = cap;
	}
	struct json_strict_key *k = &s->keys[s->key_count++];
	k->at = at;
	k->len = len;
	if (f->deferred) /* where it is matters only to the check at the close */
		k->pos = pos;
	else
		k->pos.offset = pos.offset;
	return 0;
}

static int close_container(struct json_strict_stream *s)
{
	struct json_strict_frame *f = &s->frames[s->depth - 1];
	s->pos++;
	if (f->object) {
		if (f->deferred && check_keys(s, f->first_key))
			return -1;
		if (s->key_count > f->first_key)
			s->key_text_len = s->keys[f->first_key].at;
		s->key_count = f->first_key;
	}
	s->depth--;
	return 0;
}

int json_strict_key(struct json_strict_stream *s, const char **text, size_t *len)
{
	if (s->failed || s->depth == 0 || !s->frames[s->depth - 1].object)
		return s->failed ? -1 : fail(s, s->pos, "a key read outside an object");
	struct json_strict_frame *f = &s->frames[s->depth - 1];
	skip_space(s);
	int c = s->pos < s->filled ? (unsigned char)s->buf[s->pos] : -1;
	if (f->count > 0 && c == ',') {
		s->pos++;
		skip_space(s);
		c = s->pos < s->filled ? (unsigned char)s->buf[s->pos] : -1;
	} else if (c == '}') {
		return close_container(s) ? -1 : 0;
	} else if (f->count > 0) {
		return fail(s, s->pos, "expected ',' or '}' in an object");
	}
	if (s->failed)
		return -1;
	if (c != '"')
		return fail(s, s->pos, "expected a key (a string)");
	if (!s->key_text && key_append(s, "", 0)) /* the key text exists, even for "" */
		return -1;
	struct json_strict_pos pos = here(s, s->pos);
	size_t at = s->key_text_len;
	if (scan_string_fast(s, true, NULL) || push_key(s, at, pos))
		return -1;
	skip_space(s);
	if (s->pos >= s->filled || s->buf[s->pos] != ':')
		return fail(s, s->pos, "expected ':' after a key");
	s->pos++;
	f->count++;
	*text = s->key_text + at;
	*len = s->key_text_len - at;
	return 1;
}

int json_strict_next(struct json_strict_stream *s)
{
	if (s->failed || s->depth == 0 || s->frames[s->depth - 1].object)
		return s->failed ? -1 : fail(s, s->pos, "an element read outside a list");
	struct json_strict_frame *f = &s->frames[s->depth - 1];
	skip_space(s);
	if (s->failed)
		return -1;
	int c = s->pos < s->filled ? (unsigned char)s->buf[s->pos] : -1;
	if (c == ']')
		return close_container(s) ? -1 : 0;
	if (f->count > 0) {
		if (c != ',')
			return fail(s, s->pos, "expected ',' or ']' in a list");
		s->pos++;
	}
	f->count++;
	return 1;
}

/* ---- values ---- */

static int skip_from(struct json_strict_stream *s, int c)
{
	if (c == '{' || c == '[') {
		if (open_container(s, c == '{'))
			return -1;
		int r;
		if (c == '{') {
			const char *key;
			size_t len;
			while ((r = json_strict_key(s, &key, &len)) == 1)
				if (json_strict_skip(s))
					return -1;
		} else {
			while ((r = json_strict_next(s)) == 1)
				if (json_strict_skip(s))
					return -1;
		}
		return r;
	}
	if (c == '"')
		return scan_string_fast(s, false, NULL);
	if (c == '-' || is_digit(c))
		return scan_number(s, NULL);
	return scan_literal(s, c);
}

int json_strict_skip(struct json_strict_stream *s)
{
	int c = value_start(s);
	return c < 0 ? -1 : skip_from(s, c);
}

int json_strict_object(struct json_strict_stream *s)
{
	int c = value_start(s);
	if (c < 0)
		return -1;
	return c == '{' ? open_container(s, true) : skip_from(s, c) ? -1 : fail(s, s->pos, "expected an object");
}

int json_strict_array(struct json_strict_stream *s)
{
	int c = value_start(s);
	if (c < 0)
		return -1;
	return c == '[' ? open_container(s, false) : skip_from(s, c) ? -1 : fail(s, s->pos, "expected a list");
}

int json_strict_string(struct json_strict_stream *s, struct json_strict_span *span)
{
	int c = value_start(s);
	if (c < 0)
		return -1;
	return c == '"'          ? scan_string_fast(s, false, span)
	       : skip_from(s, c) ? -1
				 : fail(s, s->pos, "expected a string");
}

int json_strict_number(struct json_strict_stream *s, double *value)
{
	int c = value_start(s);
	if (c < 0)
		return -1;
	if (c == '-' || is_digit(c))
		return scan_number(s, value);
	return skip_from(s, c) ? -1 : fail(s, s->pos, "expected a number");
}

int json_strict_scalar(struct json_strict_stream *s, double *number, struct json_strict_span *span)
{
	int c = value_start(s);
	if (c < 0)
		return -1;
	if (c == '-' || is_digit(c))
		return scan_number(s, number) ? -1 : '0';
	if (c == '"')
		return scan_string_fast(s, false, span) ? -1 : '"';
	return skip_from(s, c) ? -1 : c;
}

int json_strict_peek(struct json_strict_stream *s)
{
	if (s->failed)
		return -1;
	skip_space(s);
	return s->failed || s->pos >= s->filled ? -1 : (unsigned char)s->buf[s->pos];
}

void json_strict_where(const struct json_strict_stream *s, struct json_strict_pos *pos)
{
	*pos = here(s, s->pos);
}

int json_strict_end(struct json_strict_stream *s)
{
	if (s->failed)
		return -1;
	skip_space(s);
	if (s->failed)
		return -1;
	if (s->pos < s->filled) {
		unsigned char c = (unsigned char)s->buf[s->pos];
		return c < 0x20 ? fail(s, s->pos, "control byte 0x%02x after the document", c)
				: fail(s, s->pos, "text after the JSON document");
	}
	return 0;
}

void json_strict_hold(struct json_strict_stream *s)
{
	skip_space(s);
	s->hold = s->pos;
	s->hold_at = here(s, s->pos);
}

void json_strict_release(struct json_strict_stream *s)
{
	s->hold = NO_HOLD;
}

/* ---- opening ---- */

static void stream_init(struct json_strict_stream *s, const struct json_strict_limits *lim)
{
	memset(s, 0, sizeof *s);
	s->lim = *lim;
	if (s->lim.max_depth > JSON_STRICT_MAX_DEPTH || s->lim.max_depth < 1)
		s->lim.max_depth = JSON_STRICT_MAX_DEPTH;
	if (s->lim.max_held_bytes == 0)
		s->lim.max_held_bytes = JSON_STRICT_HELD_BYTES;
	s->hold = NO_HOLD;
	s->line = 1;
}

void json_strict_stream_text(struct json_strict_stream *s, const struct json_strict_limits *lim, const char *text,
			     size_t len)
{
	stream_init(s, lim);
	s->buf = text;
	s->filled = s->cap = len;
	s->at_end = true;
}

int json_strict_stream_open(struct json_strict_stream *s, const struct json_strict_limits *lim,
			    json_strict_read_fn read, void *ctx, size_t window)
{
	stream_init(s, lim);
	s->cap = window < 16 ? 16 : window;
	s->own = malloc(s->cap);
	s->buf = s->own;
	s->read = read;
	s->ctx = ctx;
	return s->own ? 0 : -1;
}

void json_strict_stream_close(struct json_strict_stream *s)
{
	free(s->own);
	free(s->keys);
	free(s->key_text);
	free(s->scratch);
	s->own = s->key_text = s->scratch = NULL;
	s->keys = NULL;
}

int json_strict_check(const char *text, size_t len, const struct json_strict_limits *lim, struct json_strict_error *e)
{
	struct json_strict_stream s;
	json_strict_stream_text(&s, lim, text, len);
	int rc = json_strict_skip(&s) || json_strict_end(&s) ? -1 : 0;
	*e = s.e;
	json_strict_stream_close(&s);
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
