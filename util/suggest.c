/* Edit distance and the closest name, for "did you mean" messages. */
#include "suggest.h"

#include <string.h>

int suggest_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 63 || lb > 63)
		return 1000;
	int row[64];
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diagonal = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int cost = (a[i - 1] | 32) == (b[j - 1] | 32) ? 0 : 1;
			int best = diagonal + cost;
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diagonal = row[j];
			row[j] = best;
		}
	}
	return row[lb];
}

int suggest_closest(const char *word, const char *const *names, int count)
{
	int limit = (int)strlen(word) / 3;
	if (limit < 2)
		limit = 2;
	int best = -1, best_distance = limit + 1;
	for (int i = 0; i < count; i++) {
		if (!names[i])
			continue;
		int d = suggest_edit_distance(word, names[i]);
		if (d < best_distance) {
			best = i;
			best_distance = d;
		}
	}
	return best;
}
