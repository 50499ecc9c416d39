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
