/* The set of known GPUs: built-in entries (embedded at build time), then user
 * and environment directories, then --hwdb; later layers override by id. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "hwdb.h"
#include "suggest.h"
#include "timing.h"

/* A calibration written before its entry knew the power limit keeps the
 * entry's (the probe copies power.* from the entry it measured when it writes
 * one): a property of the GPU model and its power limit, not of the lease. */
static void power_inherit(const struct ridge_gpu *from, struct ridge_gpu *to)
{
	if (to->has_sustained_matrix || !from->has_sustained_matrix)
		return;
	to->has_sustained_matrix = true;
	to->sustained_matrix_fraction = from->sustained_matrix_fraction;
	to->burst_time_s = from->burst_time_s;
	snprintf(to->power_provenance, sizeof to->power_provenance, "%s", from->power_provenance);
	if (!to->has_power_recovery && from->has_power_recovery) {
		to->has_power_recovery = to->has_power_recovery_busy = true;
		to->power_recovery_idle = from->power_recovery_idle;
		to->power_recovery_busy = from->power_recovery_busy;
		snprintf(to->power_recovery_provenance, sizeof to->power_recovery_provenance, "%s",
			 from->power_recovery_provenance);
		snprintf(to->power_recovery_source, sizeof to->power_recovery_source, "inherited from the %s entry: %s",
			 from->id, from->power_recovery_source);
	}
	snprintf(to->power_source, sizeof to->power_source,
		 "inherited from the %s entry (the calibration has none): %s", from->id, from->power_source);
}

static int add_entry(struct hwdb *db, const struct ridge_gpu *gpu, const char *origin, int layer_start,
		     struct hwdb_diags *diags)
{
	for (int i = 0; i < db->count; i++) {
		if (strcmp(db->entries[i].gpu.id, gpu->id) != 0)
			continue;
		if (i >= layer_start) {
			if (diags && diags->count < HWDB_MAX_DIAGS) {
				struct hwdb_diag *d = &diags->items[diags->count++];
				snprintf(d->file, sizeof d->file, "%s", origin);
				d->line = 0;
				d->column = 0;
				snprintf(d->message, sizeof d->message, "duplicate id '%s' (also in %s)", gpu->id,
					 db->entries[i].origin);
			}
			return -1;
		}
		/* A later layer overrides. A calibration keeps the time-model
		 * classes it lacks from the entry it measured, carried to its own
		 * ceilings (timing_inherit): never the floor where the entry knows. */
		struct ridge_gpu merged = *gpu;
		if (merged.measured) {
			timing_inherit(&db->entries[i].gpu, &merged);
			power_inherit(&db->entries[i].gpu, &merged);
		}
		db->entries[i].gpu = merged;
		snprintf(db->entries[i].origin, sizeof db->entries[i].origin, "%s", origin);
		return 0;
	}
	struct hwdb_entry *grown = realloc(db->entries, (size_t)(db->count + 1) * sizeof *grown);
	if (!grown)
		return -1;
	db->entries = grown;
	db->entries[db->count].gpu = *gpu;
	snprintf(db->entries[db->count].origin, sizeof db->entries[db->count].origin, "%s", origin);
	db->count++;
	return 0;
}

static void warn(struct hwdb_diags *diags, const char *file, const char *fmt, const char *why)
{
	if (!diags)
		return;
	if (diags->warning_count >= HWDB_MAX_WARNINGS) {
		diags->warnings_dropped++;
		return;
	}
	struct hwdb_diag *w = &diags->warnings[diags->warning_count++];
	snprintf(w->file, sizeof w->file, "%s", file);
	w->line = w->column = 0;
	snprintf(w->message, sizeof w->message, fmt, why);
}

static int has_yaml_suffix(const char *name)
{
	size_t n = strlen(name);
	return (n > 5 && strcmp(name + n - 5, ".yaml") == 0) || (n > 4 && strcmp(name + n - 4, ".yml") == 0);
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Loads every *.yaml in dir as one layer. A directory that cannot be read
 * is an error when required (given explicitly with --hwdb); an optional one
 * (the user's, $RIDGE_HWDB's) is skipped: silently when missing, with a
 * warning otherwise (a file where the directory should be, no permission),
 * so that a broken optional layer cannot stop every command. A *.yaml that
 * is not a regular file (a FIFO would block the read) is skipped with a
 * warning. */
static int add_directory(struct hwdb *db, const char *dir, int required, struct hwdb_diags *diags)
{
	DIR *d = opendir(dir);
	if (!d) {
		if (!required && errno == ENOENT)
			return 0;
		if (!required) {
			warn(diags, dir, "hwdb directory skipped: %s", strerror(errno));
			return 0;
		}
		if (diags && diags->count < HWDB_MAX_DIAGS) {
			struct hwdb_diag *g = &diags->items[diags->count++];
			snprintf(g->file, sizeof g->file, "%s", dir);
			g->line = g->column = 0;
			snprintf(g->message, sizeof g->message, "cannot open hwdb directory: %s", strerror(errno));
		}
		return -1;
	}
	char **names = NULL;
	size_t count = 0;
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || !has_yaml_suffix(e->d_name))
			continue;
		char **grown = realloc(names, (count + 1) * sizeof *names);
		if (!grown) {
			rc = -1;
			break;
		}
		names = grown;
		names[count] = strdup(e->d_name);
		if (!names[count]) {
			rc = -1;
			break;
		}
		count++;
	}
	closedir(d);
	if (count > 1) /* qsort(NULL, 0) is undefined */
		qsort(names, count, sizeof *names, compare_names);
	int layer_start = db->count;
	for (size_t i = 0; i < count; i++) {
		char path[HWDB_PATH];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		struct stat st;
		if (rc == 0 && stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
			warn(diags, path, "skipped: %s, not a regular file", hwdb_file_type_name((unsigned)st.st_mode));
			free(names[i]);
			continue;
		}
		struct ridge_gpu gpu;
		if (rc == 0 &&
		    (hwdb_load_file(path, &gpu, diags) != 0 || add_entry(db, &gpu, path, layer_start, diags) != 0))
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc;
}

int hwdb_add_file(struct hwdb *db, const char *path, struct hwdb_diags *diags)
{
	struct ridge_gpu gpu;
	if (hwdb_load_file(path, &gpu, diags) != 0)
		return -1;
	return add_entry(db, &gpu, path, db->count, diags);
}

int hwdb_open(struct hwdb *db, const char *extra_dir, struct hwdb_diags *diags)
{
	db->count = 0;
	db->entries = NULL;
	for (int i = 0; i < hwdb_builtin_count(); i++) {
		size_t len;
		const char *text = hwdb_builtin_text(i, &len);
		struct ridge_gpu gpu;
		if (hwdb_parse(hwdb_builtin_name(i), text, len, &gpu, diags) != 0 ||
		    add_entry(db, &gpu, hwdb_builtin_name(i), 0, diags) != 0)
			return -1;
	}

	char dir[HWDB_PATH];
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	if (xdg && *xdg)
		snprintf(dir, sizeof dir, "%s/ridge/hwdb", xdg);
	else if (home && *home)
		snprintf(dir, sizeof dir, "%s/.config/ridge/hwdb", home);
	else
		dir[0] = '\0';
	if (dir[0] && add_directory(db, dir, 0, diags) != 0)
		return -1;

	const char *env = getenv("RIDGE_HWDB");
	if (env && *env) {
		char *copy = strdup(env);
		if (!copy)
			return -1;
		int rc = 0;
		for (char *save = NULL, *part = strtok_r(copy, ":", &save); part && rc == 0;
		     part = strtok_r(NULL, ":", &save))
			rc = add_directory(db, part, 0, diags);
		free(copy);
		if (rc != 0)
			return -1;
	}
	if (extra_dir && add_directory(db, extra_dir, 1, diags) != 0)
		return -1;
	return 0;
}

void hwdb_close(struct hwdb *db)
{
	free(db->entries);
	db->entries = NULL;
	db->count = 0;
}

const struct hwdb_entry *hwdb_find(const struct hwdb *db, const char *name)
{
	for (int i = 0; i < db->count; i++) {
		const struct ridge_gpu *g = &db->entries[i].gpu;
		if (strcasecmp(g->id, name) == 0)
			return &db->entries[i];
	}
	for (int i = 0; i < db->count; i++) {
		const struct ridge_gpu *g = &db->entries[i].gpu;
		for (int a = 0; a < g->alias_count; a++)
			if (strcasecmp(g->aliases[a], name) == 0)
				return &db->entries[i];
	}
	return NULL;
}

int hwdb_suggest(const struct hwdb *db, const char *name, const char **ids, int max)
{
	int n = 0;
	int distances[16];
	if (max > 16)
		max = 16;
	for (int i = 0; i < db->count; i++) {
		const char *id = db->entries[i].gpu.id;
		int d = suggest_edit_distance(name, id);
		/* A substring match ("h100" in "h100-sxm") is as good as a close spelling. */
		if (strcasestr(id, name) || strcasestr(name, id))
			d = d < 1 ? d : 1;
		int pos = n;
		while (pos > 0 && distances[pos - 1] > d)
			pos--;
		if (pos >= max)
			continue;
		for (int k = (n < max ? n : max - 1); k > pos; k--) {
			distances[k] = distances[k - 1];
			ids[k] = ids[k - 1];
		}
		distances[pos] = d;
		ids[pos] = id;
		if (n < max)
			n++;
	}
	return n;
}
