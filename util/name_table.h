/* Names read from files, kept once each (util/name_table.c): a profiler
 * trace repeats a kernel's name for every launch, a benchmark file a case's
 * name for every run. Interning makes a record an index (4 bytes, not a
 * 256-byte array), grouping by name linear, and a limit on distinct names
 * one comparison. And the one copy of a name into a line of output:
 * text_line_copy, valid UTF-8 with no control character, so that a name can
 * neither break --json (invalid UTF-8) nor start a fake line of text. */
#ifndef RIDGE_UTIL_NAME_TABLE_H
#define RIDGE_UTIL_NAME_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct name_table {
	char **names; /* owned, NUL-terminated, in the order first seen */
	int count, cap;
	int max_names; /* refused past this many distinct names */
	int *slots;    /* open addressing: index + 1, 0 empty */
	size_t slot_count;
	size_t bytes;     /* of the names, with their NULs */
	uint32_t *hashes; /* names[i]'s hash: a probe compares text only when they agree */
	uint64_t seed;    /* of the hash: another in each run */
};

/* An empty table that holds at most max_names names. */
void name_table_init(struct name_table *t, int max_names);
void name_table_free(struct name_table *t);

enum { NAME_TABLE_FULL = -2, NAME_TABLE_NOMEM = -1 };
/* The index of name (len bytes, no NUL among them), added when new. Returns the index (>= 0),
 * NAME_TABLE_FULL past max_names, or NAME_TABLE_NOMEM. */
int name_table_intern(struct name_table *t, const char *name, size_t len);
/* The index of name, or -1. */
int name_table_find(const struct name_table *t, const char *name, size_t len);
const char *name_table_name(const struct name_table *t, int index);

/* Copies src (src_len bytes) into dst (dst_len > 0) as one line of valid
 * UTF-8: an invalid byte becomes U+FFFD, a control character (newline,
 * carriage return, tab, ESC, DEL) "\xNN" as the escaped streams show one,
 * and the copy is cut at a character boundary, so dst always ends in whole
 * characters. Returns dst. */
char *text_line_copy(char *dst, size_t dst_len, const char *src, size_t src_len);

/* The length of the UTF-8 sequence at s[i] (1 to 4), or 0 when it is not
 * valid: overlong forms, surrogates and code points past U+10FFFF too. */
size_t text_utf8_length(const unsigned char *s, size_t i, size_t len);

/* Whether text (NUL-terminated) is valid UTF-8 throughout. */
bool text_valid_utf8(const char *text);

#endif
