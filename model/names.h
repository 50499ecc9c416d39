/* The one lookup behind every enum's names in model/ (dtypes, memory
 * levels, kernels, collectives, topologies, recomputation): a table of
 * names indexed by the enum, searched case-insensitively. app/ uses it for
 * its own small enums too (compare kinds and verdicts). */
#ifndef RIDGE_MODEL_NAMES_H
#define RIDGE_MODEL_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* names[index] for first <= index < count, else NULL (a NULL entry stays NULL). */
const char *model_name_of(const char *const *names, int first, int count, int index);
/* The index in first..count-1 whose name is text, ignoring case; -1 when none. */
int model_name_index(const char *const *names, int first, int count, const char *text);

/* The same search over a table of structs whose first member is `const char
 * *name` (aliases such as "allreduce", or names that carry a value): the
 * index of the row of rows[0..count-1] (row_size bytes each) whose name is
 * text, ignoring case; -1 when none. */
int model_row_index(const void *rows, size_t count, size_t row_size, const char *text);

/* Defines the pair every named enum has: `const char *NAME_FN(ENUM)` (NULL
 * out of range) and `bool PARSE_FN(const char *text, ENUM *out)`, over
 * table[first..count-1]. */
#define MODEL_NAMED_ENUM(name_fn, parse_fn, enum_type, table, first, count) \
	const char *name_fn(enum_type value)                                \
	{                                                                   \
		return model_name_of(table, first, count, (int)value);      \
	}                                                                   \
	bool parse_fn(const char *text, enum_type *out)                     \
	{                                                                   \
		int i = model_name_index(table, first, count, text);        \
		if (i < 0)                                                  \
			return false;                                       \
		*out = (enum_type)i;                                        \
		return true;                                                \
	}

/* Defines `const char *NAME_FN(ENUM)` that never returns NULL: table[value]
 * (the table ends at the enum's last name), fallback when the value is out of
 * range. */
#define MODEL_ENUM_NAME_OR(name_fn, enum_type, table, fallback)                                                    \
	const char *name_fn(enum_type value)                                                                       \
	{                                                                                                          \
		const char *name = model_name_of(table, 0, (int)(sizeof(table) / sizeof((table)[0])), (int)value); \
		return name ? name : (fallback);                                                                   \
	}

#endif
