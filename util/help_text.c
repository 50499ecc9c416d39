/* --help text wrapped to the terminal's customary 80 columns, whoever wrote
 * it: a command's hand-written usage, the text generated from a parameter
 * table, ridge's own list of commands. A line that fits is printed as is; a
 * longer one is broken at spaces, its continuation lines indented as the
 * help's own continuation lines are: under an option's description, under a
 * usage line's first option, else under the line's own first word. Lines
 * that continue a long one are joined to it first, so the paragraph is
 * wrapped again as a whole. */
#include <stdlib.h>
#include <string.h>

#include "help_text.h"

#include <stdbool.h>

/* 80 columns; RIDGE_HELP_WIDTH may ask for fewer (40 to 80): the man
 * pages' generator asks for 72, what a page indented 7 columns holds at
 * MANWIDTH=80 (scripts/gen-docs.sh). */
static int help_width(void)
{
	static int width;
	if (!width) {
		const char *env = getenv("RIDGE_HELP_WIDTH");
		long w = env ? strtol(env, NULL, 10) : 80;
		width = w >= 40 && w <= 80 ? (int)w : 80;
	}
	return width;
}
#define HELP_WIDTH help_width()

/* Display columns of s[0..len): UTF-8 continuation bytes take none. */
static int columns(const char *s, size_t len)
{
	int n = 0;
	for (size_t i = 0; i < len; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			n++;
	return n;
}

/* The byte offset in line where its display column col starts. */
static size_t offset_of_column(const char *line, size_t len, int col)
{
	size_t i = 0;
	for (int c = 0; i < len; i++) {
		if (((unsigned char)line[i] & 0xC0) == 0x80)
			continue;
		if (c == col)
			break;
		c++;
	}
	return i;
}

/* The column after a line's first gap of two or more spaces ("  --gpu GPU
 * <gap> text", "  gemm <gap> text": an option or a row of a two-column list),
 * or -1 when it has none within the first half of the width. */
static int description_column(const char *line, size_t len)
{
	size_t lead = strspn(line, " ");
	if (lead > 6)
		return -1;
	const char *gap = strstr(line + lead, "  ");
	if (!gap || gap >= line + len)
		return -1;
	size_t at = (size_t)(gap - line) + strspn(gap, " ");
	if (at >= len || columns(line, at) > HELP_WIDTH / 2)
		return -1;
	return columns(line, at);
}

static bool is_usage(const char *line)
{
	size_t lead = strspn(line, " ");
	/* a second form sits under the first: "       ridge cost decode ..." */
	return strncmp(line, "usage: ", 7) == 0 || (lead == 7 && strncmp(line + lead, "ridge", 5) == 0);
}

/* Where a continuation of line starts (a column). */
static int continuation_indent(const char *line, size_t len)
{
	size_t lead = strspn(line, " ");
	if (is_usage(line)) { /* under the first option or operand: "[--gpu", "(--flops", "--m" */
		for (size_t i = lead; i + 1 < len; i++)
			if (line[i] == ' ' && (line[i + 1] == '-' || line[i + 1] == '[' || line[i + 1] == '('))
				return columns(line, i + 1);
		return (int)lead + 4;
	}
	const char *flags = strstr(line, " flags: "); /* "  shape flags: --m --n ...": under the first */
	if (lead <= 6 && flags && flags < line + len)
		return columns(line, (size_t)(flags - line) + 8);
	int column = description_column(line, len);
	if (column >= 0)
		return column;
	if (lead >= 2 && lead <= 6 && line[lead] == '-') /* an option too long for a gap */
		return (int)lead + 4;
	return (int)lead;
}

/* One line (no newline) of len bytes, wrapped. */
static void print_line(const char *line, size_t len, FILE *out)
{
	int indent = continuation_indent(line, len);
	if (indent > HELP_WIDTH / 2) /* too little room beside it: under the line's start, deeper */
		indent = (int)strspn(line, " ") + 4;
	int first = 1;
	while (columns(line, len) > HELP_WIDTH - (first ? 0 : indent)) {
		int room = HELP_WIDTH - (first ? 0 : indent);
		size_t limit = offset_of_column(line, len, room);
		/* The last space at or before the limit, past the indentation. */
		size_t lead = first ? strspn(line, " ") : 0;
		size_t cut = limit;
		while (cut > lead && line[cut] != ' ')
			cut--;
		if (cut <= lead) { /* one long word: break after it */
			cut = limit;
			while (cut < len && line[cut] != ' ')
				cut++;
			if (cut >= len)
				break;
		}
		size_t end = cut;
		while (end > 0 && line[end - 1] == ' ')
			end--;
		fprintf(out, "%*s%.*s\n", first ? 0 : indent, "", (int)end, line);
		while (cut < len && line[cut] == ' ')
			cut++;
		line += cut;
		len -= cut;
		first = 0;
	}
	fprintf(out, "%*s%.*s\n", first ? 0 : indent, "", (int)len, line);
}

/* Whether next (len bytes) continues line (line_len bytes), whose
 * continuation starts at column indent, after the line before it, prev
 * (prev_len bytes): deeper than an option or list row for its description,
 * deeper than a usage line for its options, at the same depth for prose
 * (not a new sentence starting a line after one that ended: a paragraph);
 * never a new option, usage form or list item. */
static bool continues(const char *next, size_t len, int indent, const char *line, size_t line_len, const char *prev,
		      size_t prev_len)
{
	size_t lead = strspn(next, " ");
	if (lead >= len)
		return false;
	if (is_usage(next) || strncmp(next + lead, "- ", 2) == 0)
		return false;
	size_t line_lead = strspn(line, " ");
	const char *flags = strstr(line, " flags: ");
	bool columnar = is_usage(line) || description_column(line, line_len) >= 0 ||
			(line_lead <= 6 && flags && flags < line + line_len) ||
			(line_lead >= 2 && line_lead <= 6 && line[line_lead] == '-');
	if (columnar) /* the description's own lines sit deeper than the option */
		return lead > 6 && lead > line_lead;
	bool sentence_ended = prev_len > 0 && (prev[prev_len - 1] == '.' || prev[prev_len - 1] == ':');
	if (sentence_ended && next[lead] >= 'A' && next[lead] <= 'Z')
		return false;
	return (int)lead == indent && lead == line_lead && description_column(next, len) < 0;
}

void help_text_print(const char *text, FILE *out)
{
	while (*text) {
		size_t len = strcspn(text, "\n");
		const char *line = text;
		text += len;
		if (*text == '\n')
			text++;
		if (columns(line, len) <= HELP_WIDTH) {
			fprintf(out, "%.*s\n", (int)len, line);
			continue;
		}
		/* Too long: its continuation lines join it and the whole is
		 * wrapped again, so no short remnant is left between them. */
		int indent = continuation_indent(line, len);
		size_t cap = len + 2;
		int more = 0;
		const char *prev = line;
		size_t prev_len = len;
		for (const char *t = text; *t; more++) {
			size_t n = strcspn(t, "\n");
			if (!continues(t, n, indent, line, len, prev, prev_len))
				break;
			cap += n + 1;
			prev = t;
			prev_len = n;
			t += n + (t[n] == '\n');
		}
		char *joined = malloc(cap + 1); /* + its NUL: continuation_indent reads it as a string */
		if (!joined) {
			print_line(line, len, out);
			continue;
		}
		memcpy(joined, line, len);
		size_t used = len;
		for (int i = 0; i < more; i++) {
			size_t n = strcspn(text, "\n");
			size_t lead = strspn(text, " ");
			/* "memory-" + "efficient": a word broken at its hyphen joins whole */
			bool hyphen = used >= 2 && joined[used - 1] == '-' && joined[used - 2] >= 'a' &&
				      joined[used - 2] <= 'z';
			if (!hyphen)
				joined[used++] = ' ';
			memcpy(joined + used, text + lead, n - lead);
			used += n - lead;
			text += n + (text[n] == '\n');
		}
		joined[used] = '\0';
		print_line(joined, used, out);
		free(joined);
	}
}
