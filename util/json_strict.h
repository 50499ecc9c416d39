/* The one strict JSON reader with bounds (util/json_strict.c), for the
 * inputs that can be large: ridge calibrate's timings, ridge trace's PyTorch
 * traces and ridge compare's runs (issue 31). It refuses what cJSON lets
 * through (trailing text, a key given twice, control bytes, invalid UTF-8)
 * and bounds what a parse can cost before cJSON allocates anything.
 *
 * Two ways in: json_strict_check (and json_strict_parse) take a whole text;
 * a json_strict_stream reads a source in bounded chunks (a file of any size
 * in a window of a few hundred KiB) and hands its values to a caller that
 * walks the document itself (the PyTorch trace reader, event by event). Both
 * are the same scanner, with the same checks and messages. */
#ifndef RIDGE_UTIL_JSON_STRICT_H
#define RIDGE_UTIL_JSON_STRICT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* The bounds one input is read within: every value counted (an object, an
 * array, a string, a number, a literal: 1 each; cJSON spends about 100 bytes
 * on one, so max_values bounds the parsed document), the nesting, and the
 * keys of the objects open at once (the duplicate check holds them: 40 bytes
 * each and their text, at most JSON_STRICT_MAX_KEY_BYTES). what names the
 * input in the messages ("benchmark JSON file"). */
struct json_strict_limits {
	size_t max_values;
	int max_depth; /* at most JSON_STRICT_MAX_DEPTH */
	size_t max_open_keys;
	const char *what;
	/* A stream only: the most bytes a held value (json_strict_hold) may
	 * span, so the most the window grows to; 0: JSON_STRICT_HELD_BYTES. */
	size_t max_held_bytes;
};
#define JSON_STRICT_MAX_DEPTH 64
#define JSON_STRICT_MAX_KEY_BYTES (16u << 20)
#define JSON_STRICT_HELD_BYTES (16u << 20)

/* Where in a text: the byte offset and the 1-based line and column (columns
 * count characters, not bytes). */
struct json_strict_pos {
	unsigned long long offset;
	long line, col;
};

struct json_strict_error {
	size_t offset;      /* where in the text */
	int line, col;      /* the same, 1-based */
	bool out_of_memory; /* the check or the parse ran out of memory */
	bool source_failed; /* a stream's read function failed: its caller knows why */
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

/* ---- a stream: the document walked by its caller ----
 *
 * The caller reads one value at a time, as the grammar has it: the root, then
 * for an object json_strict_object() and json_strict_key() until it returns
 * 0, each key followed by its value; for a list json_strict_array() and
 * json_strict_next() until 0, each 1 followed by an element; a value it does
 * not want, json_strict_skip(). json_strict_end() after the root. Every call
 * returns -1 once anything failed, with why in s->e; a stream checks exactly
 * what json_strict_check does. */

/* The bytes of a stream's source: at most cap into buf; the count, 0 at
 * the end, or -1 (then s->e.source_failed: the function's owner says why). */
typedef long (*json_strict_read_fn)(void *ctx, char *buf, size_t cap);

struct json_strict_key; /* json_strict.c */

struct json_strict_stream {
	/* All private to json_strict.c. The window: the bytes [base, base +
	 * filled) of the text at buf, pos the next one; hold the first kept. */
	const char *buf;
	char *own; /* buf when reading a source (NULL for a text in memory) */
	size_t cap, pos, filled, hold;
	unsigned long long base;
	struct json_strict_pos hold_at;
	bool at_end, failed;
	json_strict_read_fn read;
	void *ctx;
	struct json_strict_limits lim;
	size_t values;
	/* The open containers, innermost last, and the keys of the open objects. */
	struct json_strict_frame {
		size_t first_key, count;
		unsigned long long seen; /* a bit a key's length and first byte: most keys are told apart by it */
		bool object, deferred;   /* deferred: checked for duplicates when it closes */
	} frames[JSON_STRICT_MAX_DEPTH + 1];
	int depth;
	struct json_strict_key *keys;
	size_t key_count, key_cap;
	char *key_text;
	size_t key_text_len, key_text_cap;
	/* Position: the line, where it starts, the UTF-8 continuation bytes on it so far. */
	long line;
	unsigned long long line_start, line_cont;
	char *scratch; /* a number's text for strtod */
	size_t scratch_cap;
	struct json_strict_error e;
};

/* A string value's raw text (between its quotes) in the window: valid while
 * it is held (json_strict_hold), or always for a text in memory. */
struct json_strict_span {
	unsigned long long start, end;
	bool escaped; /* holds a backslash: json_strict_text decodes it */
};

/* A stream over a whole text in memory (nothing copied). */
void json_strict_stream_text(struct json_strict_stream *s, const struct json_strict_limits *lim, const char *text,
			     size_t len);
/* A stream over read(ctx), read into a window of window bytes at first
 * (grown while a held value needs it). -1: out of memory. */
int json_strict_stream_open(struct json_strict_stream *s, const struct json_strict_limits *lim,
			    json_strict_read_fn read, void *ctx, size_t window);
void json_strict_stream_close(struct json_strict_stream *s);

/* The first byte of the next value ('{', '[', '"', '-', a digit, 't', 'f',
 * 'n', or another byte the value will be refused for), whitespace skipped; -1
 * at the end of the text or after a failure. Reads nothing of the value. */
int json_strict_peek(struct json_strict_stream *s);
/* Where the next byte is (after json_strict_peek: the next value's first). */
void json_strict_where(const struct json_strict_stream *s, struct json_strict_pos *pos);

int json_strict_object(struct json_strict_stream *s);
/* 1: the next key, decoded (valid until the object closes: text[len] is not
 * a NUL), its value next; 0: the object closed; -1. */
int json_strict_key(struct json_strict_stream *s, const char **text, size_t *len);
int json_strict_array(struct json_strict_stream *s);
/* 1: an element follows; 0: the list closed; -1. */
int json_strict_next(struct json_strict_stream *s);
int json_strict_string(struct json_strict_stream *s, struct json_strict_span *span);
/* A number, as strtod reads it (correctly rounded; inf past the range). */
int json_strict_number(struct json_strict_stream *s, double *value);
int json_strict_skip(struct json_strict_stream *s);
/* The next value, whatever it is: a number read into *number ('0'), a
 * string into *span ('"'), anything else checked and skipped (its first
 * byte: '{', '[', 't', 'f', 'n'); -1. */
int json_strict_scalar(struct json_strict_stream *s, double *number, struct json_strict_span *span);
/* After the root: nothing but whitespace may follow. */
int json_strict_end(struct json_strict_stream *s);

/* Keeps the text from the next value on in the window until
 * json_strict_release (at most lim.max_held_bytes), so that the spans of
 * the strings read meanwhile stay valid. */
void json_strict_hold(struct json_strict_stream *s);
void json_strict_release(struct json_strict_stream *s);
/* A held string's text, decoded: the window's bytes when it has no escape,
 * else decoded into out (room for span's raw length). Sets *len. */
const char *json_strict_text(const struct json_strict_stream *s, const struct json_strict_span *span, char *out,
			     size_t *len);

#endif
