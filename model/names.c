#include "names.h"

#include <stddef.h>
#include <strings.h>

const char *model_name_of(const char *const *names, int first, int count, int index)
{
	return index >= first && index < count ? names[index] : NULL;
}

int model_name_index(const char *const *names, int first, int count, const char *text)
{
	for (int i = first; i < count; i++)
		if (names[i] && strcasecmp(text, names[i]) == 0)
			return i;
	return -1;
}

int model_row_index(const void *rows, size_t count, size_t row_size, const char *text)
{
	for (size_t i = 0; i < count; i++) {
		/* A pointer to a struct, converted, points to its first member. */
		const char *name = *(const char *const *)(const void *)((const char *)rows + i * row_size);
		if (name && strcasecmp(text, name) == 0)
			return (int)i;
	}
	return -1;
}
