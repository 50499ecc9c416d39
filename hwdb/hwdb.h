/* hwdb: YAML hardware entries -> struct ridge_gpu, with every error naming
 * file:line:column. Also the registry of entries (built-in, user, $RIDGE_HWDB,
 * --hwdb) and the writer used by ridge-probe for calibrations. */
#ifndef RIDGE_HWDB_H
#define RIDGE_HWDB_H

#include <stddef.h>

#include "gpu.h"

#include "read_limits.h"

#define HWDB_MAX_DIAGS 32
#define HWDB_PATH 512

struct hwdb_diag {
	char file[HWDB_PATH];
	int line, column; /* 1-based; 0 when the problem has no position */
	char message[256];
};

#define HWDB_MAX_WARNINGS 8

struct hwdb_diags {
	int count;
	int dropped; /* problems past HWDB_MAX_DIAGS */
	struct hwdb_diag items[HWDB_MAX_DIAGS];
	/* What was skipped without failing the load: an optional directory
	 * (the user's, $RIDGE_HWDB's) that cannot be read, a *.yaml in a
	 * directory that is not a regular file. Front ends print them as
	 * warnings, also when the load succeeds. */
	int warning_count;
	int warnings_dropped;
	struct hwdb_diag warnings[HWDB_MAX_WARNINGS];
};

/* Deepest nesting of mappings and sequences a hwdb entry may have (it needs
 * 3); every YAML reader's (util/read_limits.h). */
#define HWDB_MAX_NESTING READ_MAX_YAML_NESTING

/* Checks that YAML text nests mappings and sequences at most limit deep,
 * before it is loaded: libyaml's scanner is quadratic in the nesting depth
 * (a 2 MB file of '[' takes minutes), and every ridge YAML file (hwdb entries,
 * scenarios, model configs) is shallow. Returns 0, or -1 with the 1-based
 * position of the first collection past the limit. Syntax errors are left to
 * the real load, which reports them. */
int hwdb_yaml_nesting(const char *text, size_t len, int limit, int *line, int *column);

/* The bounds every ridge YAML input is held to (tests/README.md, "Limits"),
 * checked in two steps so that memory and time stay proportional to what a
 * valid file may hold:
 *  - before loading (hwdb_yaml_bounds, one pass of libyaml's event parser,
 *    which holds no document): at most nesting_limit deep and node_limit
 *    nodes written (scalars, collections, aliases), since libyaml's document
 *    costs ~150 bytes per node;
 *  - after loading (hwdb_yaml_expanded): at most limit nodes once every
 *    alias is expanded (an alias bomb: 9 anchors of 9 aliases each make 10^9
 *    nodes from 100 lines), and no alias inside the node it names.
 * Each returns 0, or one of these with the 1-based position of the node
 * where the bound was passed. */
enum { HWDB_YAML_TOO_DEEP = 1, HWDB_YAML_TOO_MANY_NODES = 2, HWDB_YAML_CYCLE = 3 };
int hwdb_yaml_bounds(const char *text, size_t len, int nesting_limit, long node_limit, int *line, int *column);
struct yaml_document_s;
int hwdb_yaml_expanded(const struct yaml_document_s *doc, long limit, int *line, int *column);

/* The limits of a hwdb entry (a real one has ~200 nodes; util/read_limits.h). */
#define HWDB_MAX_NODES READ_MAX_HWDB_NODES

/* Reading an input file: hwdb_read_file opens path without blocking (a FIFO
 * with no writer, a terminal), refuses what is not a regular file, and reads
 * at most max_bytes; path "-" reads standard input (a pipe or a redirected
 * file; a terminal is refused as HWDB_READ_NOT_REGULAR). On success *text is malloc'd and NUL-terminated (free
 * it). Otherwise: HWDB_READ_OPEN or HWDB_READ_IO with *error_number (errno;
 * EISDIR for a directory), HWDB_READ_NOT_REGULAR with *type ("a FIFO (named
 * pipe)"), HWDB_READ_TOO_BIG past max_bytes, HWDB_READ_NOMEM. */
enum hwdb_read {
	HWDB_READ_OK,
	HWDB_READ_OPEN,
	HWDB_READ_IO,
	HWDB_READ_NOT_REGULAR,
	HWDB_READ_TOO_BIG,
	HWDB_READ_NOMEM
};
enum hwdb_read hwdb_read_file(const char *path, size_t max_bytes, char **text, size_t *len, int *error_number,
			      const char **type);
/* "a directory", "a FIFO (named pipe)", "a character device", ... for st_mode. */
const char *hwdb_file_type_name(unsigned mode);

/* Parses one entry from text (name is used in diagnostics). Returns 0 when
 * the entry is valid; otherwise -1 with every problem found in diags. */
int hwdb_parse(const char *name, const char *text, size_t len, struct ridge_gpu *out, struct hwdb_diags *diags);

/* Reads and parses a file. */
int hwdb_load_file(const char *path, struct ridge_gpu *out, struct hwdb_diags *diags);

struct hwdb_entry {
	struct ridge_gpu gpu;
	char origin[HWDB_PATH]; /* file it came from ("hwdb/x.yaml" when built in) */
};

struct hwdb {
	int count;
	struct hwdb_entry *entries;
};

/* Loads the built-in entries, then $XDG_CONFIG_HOME/ridge/hwdb (default
 * ~/.config/ridge/hwdb), then each directory of $RIDGE_HWDB, then extra_dir
 * (may be NULL). A later entry with the same id replaces an earlier one; two
 * entries with one id in one layer are an error. Returns 0, or -1 with diags. */
int hwdb_open(struct hwdb *db, const char *extra_dir, struct hwdb_diags *diags);

/* Adds one file as the last layer (a calibration given by --calibration). */
int hwdb_add_file(struct hwdb *db, const char *path, struct hwdb_diags *diags);

void hwdb_close(struct hwdb *db);

/* Finds an entry by id or alias, case-insensitively. NULL when none. */
const struct hwdb_entry *hwdb_find(const struct hwdb *db, const char *name);

/* Fills up to max ids closest to name (edit distance). Returns how many. */
int hwdb_suggest(const struct hwdb *db, const char *name, const char **ids, int max);

/* The number of built-in entries and each one's file name and text. */
int hwdb_builtin_count(void);
const char *hwdb_builtin_name(int index);
const char *hwdb_builtin_text(int index, size_t *len);

/* Writes gpu as a hwdb YAML entry with atomic_file_write (util/atomic_file.h):
 * on failure the old file is left intact. Returns 0, or -1 with err set. */
int hwdb_write_file(const char *path, const struct ridge_gpu *gpu, char *err, size_t err_len);

/* The same entry text hwdb_write_file writes, in a malloc'd buffer (free it):
 * what the fuzz harness and tests round-trip through hwdb_parse without a file.
 * Returns 0, or -1 when out of memory. */
int hwdb_format(const struct ridge_gpu *gpu, char **text, size_t *len);

/* Formats one diagnostic as "file:line:col: message". */
void hwdb_diag_format(const struct hwdb_diag *d, char *buf, size_t len);

/* YAML nodes as hwdb reads them, so that scenario files (app/core/eval.c) read
 * them alike. struct yaml_node_s is libyaml's yaml_node_t. */
struct yaml_node_s;
/* "a scalar", "a list", "a mapping" (or "nothing"): for messages. */
const char *hwdb_yaml_type_name(const struct yaml_node_s *node);
/* The text of a scalar; NULL when the node is no scalar or no value (plain
 * empty, ~ or null in any case), with why set to the message about subject:
 * "'x' must be a scalar, not a list", "'x' has no value". */
const char *hwdb_yaml_scalar(const struct yaml_node_s *node, const char *subject, char *why, size_t why_len);

#endif
