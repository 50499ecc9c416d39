/* Interned names and the one-line copy of a name (name_table.h). */
#include "name_table.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void name_table_init(struct name_table *t, int max_names)
{
	memset(t, 0, sizeof *t);
	t->max_names = max_names;
	/* A seed that differs from run to run (the table's address, under
	 * ASLR): names chosen to collide in one run's slots do not in the next. */
	t->seed = (uint64_t)(uintptr_t)t * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)&name_table_init;
}

void name_table_free(struct name_table *t)
{
	for (int i = 0; i < t->count; i++)
		free(t->names[i]);
	free(t->names);
	free(t->hashes);
	free(t->slots);
	memset(t, 0, sizeof *t);
}

/* FNV-1a from the seed, then mixed (MurmurHash3's finalizer) so that the
 * low bits, which pick the slot, depend on every byte. */
static uint64_t hash_of(const struct name_table *t, const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull ^ t->seed;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

/* The slot of name (hash h): where it is, or the empty one it would take.
 * A name's hash is kept beside it, so a probe compares text only when the
 * hashes agree. */
static size_t slot_of(const struct name_table *t, const char *name, size_t len, uint64_t h)
{
	size_t mask = t->slot_count - 1, i = (uint32_t)h & mask;
	while (t->slots[i]) {
		int k = t->slots[i] - 1;
		const char *n = t->names[k];
		if (t->hashes[k] == (uint32_t)h && strncmp(n, name, len) == 0 && n[len] == '\0')
			break;
		i = (i + 1) & mask;
	}
	return i;
}

int name_table_find(const struct name_table *t, const char *name, size_t len)
{
	if (!t->slot_count || memchr(name, '\0', len))
		return -1;
	size_t i = slot_of(t, name, len, hash_of(t, name, len));
	return t->slots[i] ? t->slots[i] - 1 : -1;
}

/* Doubles the slots (load kept under a half). */
static int grow_slots(struct name_table *t)
{
	size_t count = t->slot_count ? t->slot_count * 2 : 256, mask = count - 1;
	int *slots = calloc(count, sizeof *slots);
	if (!slots)
		return -1;
	free(t->slots);
	t->slots = slots;
	t->slot_count = count;
	for (int k = 0; k < t->count; k++) { /* by the kept hashes: no name is read again */
		size_t i = t->hashes[k] & mask;
		while (slots[i])
			i = (i + 1) & mask;
		slots[i] = k + 1;
	}
	return 0;
}

int name_table_intern(struct name_table *t, const char *name, size_t len)
{
	uint64_t h = hash_of(t, name, len);
	size_t i = t->slot_count ? slot_of(t, name, len, h) : 0;
	if (t->slot_count && t->slots[i])
		return t->slots[i] - 1;
	if (t->count >= t->max_names)
		return NAME_TABLE_FULL;
	if ((size_t)(t->count + 1) * 2 > t->slot_count) {
		if (grow_slots(t) != 0)
			return NAME_TABLE_NOMEM;
		i = slot_of(t, name, len, h);
	}
	if (t->count == t->cap) {
		int cap = t->cap ? t->cap * 2 : 64;
		char **names = realloc(t->names, (size_t)cap * sizeof *names);
		uint32_t *hashes = names ? realloc(t->hashes, (size_t)cap * sizeof *hashes) : NULL;
		if (names)
			t->names = names;
		if (!hashes)
			return NAME_TABLE_NOMEM;
		t->hashes = hashes;
		t->cap = cap;
	}
	char *copy = malloc(len + 1);
	if (!copy)
		return NAME_TABLE_NOMEM;
	memcpy(copy, name, len);
	copy[len] = '\0';
	t->names[t->count] = copy;
	t->hashes[t->count] = (uint32_t)h;
	t->slots[i] = t->count + 1;
	t->bytes += len + 1;
	return t->count++;
}

const char *name_table_name(const struct name_table *t, int index)
{
	return index >= 0 && index < t->count ? t->names[index] : "";
}

size_t text_utf8_length(const unsigned char *s, size_t i, size_t len)
{
	unsigned char c = s[i];
	if (c < 0x80)
		return 1;
	size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
	if (n == 0 || i + n > len)
		return 0;
	for (size_t k = 1; k < n; k++)
		if ((s[i + k] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && s[i + 1] < 0xa0) || (c == 0xed && s[i + 1] > 0x9f) || (c == 0xf0 && s[i + 1] < 0x90) ||
	    (c == 0xf4 && s[i + 1] > 0x8f))
		return 0;
	return n;
}

bool text_valid_utf8(const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t len = strlen(text);
	for (size_t i = 0; i < len;) {
		size_t n = text_utf8_length(s, i, len);
		if (n == 0)
			return false;
		i += n;
	}
	return true;
}

char *text_line_copy(char *dst, size_t dst_len, const char *src, size_t src_len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)src;
	size_t out = 0;
	for (size_t i = 0; i < src_len && s[i];) {
		char piece[4];
		size_t n = text_utf8_length(s, i, src_len), piece_len;
		const char *from;
		if (n == 1 && (s[i] < 0x20 || s[i] == 0x7f)) {
			piece[0] = '\\';
			piece[1] = 'x';
			piece[2] = hex[s[i] >> 4];
			piece[3] = hex[s[i] & 15];
			from = piece;
			piece_len = 4;
			n = 1;
		} else if (n == 0) {
			from = "\xef\xbf\xbd"; /* U+FFFD */
			piece_len = 3;
			n = 1;
		} else {
			from = src + i;
			piece_len = n;
		}
		if (out + piece_len >= dst_len)
			break;
		memcpy(dst + out, from, piece_len);
		out += piece_len;
		i += n;
	}
	dst[out] = '\0';
	return dst;
}
