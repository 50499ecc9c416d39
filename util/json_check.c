/* The strict rules every JSON input is read with (model configs, validation
 * runs, ridge-probe --replay), as the YAML loader applies them: cJSON takes
 * any byte below 0x20 for whitespace (a NUL or 0x01 between tokens passes) and
 * keeps both of two equal keys (cJSON_GetObjectItem finds the first; Python
 * and Hugging Face use the last). Here: control bytes are refused (JSON
 * allows only tab, newline and carriage return outside strings, and none
 * unescaped inside), and so is a key given twice in one object. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_check.h"

int hwdb_json_bad_byte(const char *text, size_t len, size_t *offset)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
			*offset = i;
			return 1;
		}
	}
	return 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first duplicate in object o (depth first), its path in path. */
static const char *duplicate_in(const cJSON *o, char *path, size_t path_len, size_t used, int *oom)
{
	if (cJSON_IsObject(o)) {
		size_t n = 0;
		for (const cJSON *c = o->child; c; c = c->next)
			n++;
		const char **names = n ? malloc(n * sizeof *names) : NULL;
		if (n && !names) {
			*oom = 1;
			return NULL;
		}
		size_t k = 0;
		for (const cJSON *c = o->child; c; c = c->next)
			names[k++] = c->string ? c->string : "";
		/* Sorted, a repeated key sits next to itself: n log n, not n^2.
		 * (An empty object has no array: qsort(NULL, 0) is undefined.) */
		if (n > 1)
			qsort(names, n, sizeof *names, compare_names);
		for (size_t i = 1; i < n; i++) {
			if (strcmp(names[i - 1], names[i]) == 0) {
				/* The key as it is in the document (names are its strings). */
				for (const cJSON *c = o->child; c; c = c->next) {
					if (c->string && strcmp(c->string, names[i]) == 0) {
						snprintf(path + used, path_len - used, "%s%s", used ? "." : "",
							 c->string);
						free(names);
						return c->string;
					}
				}
			}
		}
		free(names);
	}
	int index = 0;
	for (const cJSON *c = o->child; c; c = c->next, index++) {
		if (!cJSON_IsObject(c) && !cJSON_IsArray(c))
			continue;
		int w;
		if (cJSON_IsObject(o))
			w = snprintf(path + used, path_len - used, "%s%s", used ? "." : "", c->string ? c->string : "");
		else
			w = snprintf(path + used, path_len - used, "[%d]", index);
		size_t next = used + (w > 0 ? (size_t)w : 0);
		if (next >= path_len)
			next = path_len - 1;
		const char *dup = duplicate_in(c, path, path_len, next, oom);
		if (dup || *oom)
			return dup;
		path[used] = '\0';
	}
	return NULL;
}

const char *hwdb_json_duplicate(const cJSON *doc, char *path, size_t path_len)
{
	int oom = 0;
	if (path_len == 0)
		return NULL;
	path[0] = '\0';
	const char *dup = duplicate_in(doc, path, path_len, 0, &oom);
	if (oom) {
		snprintf(path, path_len, "(out of memory)");
		return "(out of memory)";
	}
	return dup;
}

int hwdb_json_key_position(const char *text, size_t len, int depth, const char *key, int nth, int *line, int *col)
{
	size_t key_len = strlen(key);
	int level = 0, seen = 0, l = 1, c = 1;
	for (size_t i = 0; i < len; i++) {
		char ch = text[i];
		if (ch == '"') {
			size_t start = i, j = i + 1;
			while (j < len && text[j] != '"')
				j += text[j] == '\\' ? 2 : 1;
			/* A key: a string followed by ':', at the depth asked for. */
			size_t k = j + 1;
			while (k < len && (text[k] == ' ' || text[k] == '\t' || text[k] == '\n' || text[k] == '\r'))
				k++;
			if (level == depth && k < len && text[k] == ':' && j - start - 1 == key_len &&
			    memcmp(text + start + 1, key, key_len) == 0 && ++seen == nth) {
				*line = l;
				*col = c;
				return 0;
			}
			for (size_t m = i; m <= j && m < len; m++) {
				if (text[m] == '\n') {
					l++;
					c = 1;
				} else {
					c++;
				}
			}
			i = j;
			continue;
		}
		if (ch == '{' || ch == '[')
			level++;
		else if (ch == '}' || ch == ']')
			level--;
		if (ch == '\n') {
			l++;
			c = 1;
		} else {
			c++;
		}
	}
	return -1;
}
