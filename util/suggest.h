/* "Did you mean ...?": the closest of a list of names to a word typed
 * wrong, by edit distance. The GPU names (hwdb_suggest), the commands,
 * subcommands and flags of the command line all use it, so a typo is
 * answered the same way everywhere. */
#ifndef RIDGE_UTIL_SUGGEST_H
#define RIDGE_UTIL_SUGGEST_H

/* Levenshtein distance, case-insensitive; 1000 for a word over 63 bytes. */
int suggest_edit_distance(const char *a, const char *b);

/* The index of the name in names[0..count-1] closest to word, or -1 when
 * none is close enough to be a typo of it: an edit distance of at most 2,
 * or at most a third of word's length for a longer word (so "contxt" finds
 * "context", "x" finds nothing). The first of equally close names wins. */
int suggest_closest(const char *word, const char *const *names, int count);

#endif
