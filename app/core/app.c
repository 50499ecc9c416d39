/* The application layer's shared pieces (app.h): numbers and names from
 * text, the hardware database as a command sees it, files in and out. */
#include "app.h"
#include "atomic_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <limits.h>
#include <sys/stat.h>

int app_parse_quantity(const char *flag, const char *text, enum ridge_unit unit, double *out, struct app_status *st)
{
	char err[200];
	if (ridge_quantity_parse(text, unit, out, err, sizeof err) != 0) {
		app_error_flag(st, flag, "%s", err);
		return -1;
	}
	return 0;
}

int app_parse_positive(const char *flag, const char *text, enum ridge_unit unit, double *out, struct app_status *st)
{
	if (app_parse_quantity(flag, text, unit, out, st) != 0)
		return -1;
	if (!(*out > 0)) {
		app_error_flag(st, flag, "must be greater than 0, not '%s'", text);
		return -1;
	}
	return 0;
}

int app_parse_int(const char *flag, const char *text, long long lo, long long hi, long long *out, struct app_status *st)
{
	double v;
	if (app_parse_quantity(flag, text, RIDGE_UNIT_COUNT, &v, st) != 0)
		return -1;
	if (v != floor(v)) {
		app_error_flag(st, flag, "must be a whole number, not '%s'", text);
		return -1;
	}
	if (v < (double)lo || v > (double)hi) {
		app_error_flag(st, flag, "'%s' is out of range (%lld..%lld)", text, lo, hi);
		return -1;
	}
	*out = (long long)v;
	return 0;
}

int app_parse_dtype(const char *flag, const char *text, enum ridge_dtype *out, struct app_status *st)
{
	if (!ridge_dtype_parse(text, out)) {
		app_error_flag(st, flag, "unknown dtype '%s' (known: %s)", text, ridge_dtype_list());
		return -1;
	}
	return 0;
}

int app_hw_open(struct app_hw *hw, const char *hwdb_dir, const char *calibration, struct app_status *st)
{
	struct hwdb_diags diags = { 0 };
	hw->calibration = calibration;
	hw->calibration_id[0] = '\0';
	if (hwdb_open(&hw->db, hwdb_dir, &diags) != 0 ||
	    (calibration && hwdb_add_file(&hw->db, calibration, &diags) != 0)) {
		app_status_add_hwdb(st, &diags);
		hwdb_close(&hw->db);
		return -1;
	}
	app_status_add_hwdb(st, &diags); /* the warnings: what was skipped */
	if (calibration) {
		/* The entry the file added: the last one loaded from it. */
		for (int i = hw->db.count - 1; i >= 0; i--) {
			if (strcmp(hw->db.entries[i].origin, calibration) == 0) {
				snprintf(hw->calibration_id, sizeof hw->calibration_id, "%s", hw->db.entries[i].gpu.id);
				break;
			}
		}
	}
	return 0;
}

const char *app_hw_default_gpu(const struct app_hw *hw)
{
	return hw->calibration_id[0] ? hw->calibration_id : APP_DEFAULT_GPU;
}

const struct hwdb_entry *app_hw_open_gpu(struct app_hw *hw, const char *hwdb_dir, const char *calibration,
					 const char *gpu, struct app_status *st)
{
	if (app_hw_open(hw, hwdb_dir, calibration, st) != 0)
		return NULL;
	const struct hwdb_entry *e = app_hw_find(hw, gpu ? gpu : app_hw_default_gpu(hw), st);
	if (!e)
		app_hw_close(hw);
	return e;
}

const struct hwdb_entry *app_hw_find(const struct app_hw *hw, const char *name, struct app_status *st)
{
	const struct hwdb_entry *e = hwdb_find(&hw->db, name);
	if (e) {
		if (hw->calibration_id[0] && strcasecmp(e->gpu.id, hw->calibration_id) != 0)
			app_warning(st, "--calibration '%s' measured %s, not %s: %s's spec sheet is used",
				    hw->calibration, hw->calibration_id, e->gpu.id, e->gpu.id);
		return e;
	}
	const char *ids[3];
	int n = hwdb_suggest(&hw->db, name, ids, 3);
	if (n == 0)
		app_error(st, "unknown GPU '%s' (see 'ridge hw list')", name);
	else if (n == 1)
		app_error(st, "unknown GPU '%s'; did you mean '%s'? (see 'ridge hw list')", name, ids[0]);
	else if (n == 2)
		app_error(st, "unknown GPU '%s'; did you mean '%s' or '%s'? (see 'ridge hw list')", name, ids[0],
			  ids[1]);
	else
		app_error(st, "unknown GPU '%s'; did you mean '%s', '%s' or '%s'? (see 'ridge hw list')", name, ids[0],
			  ids[1], ids[2]);
	return NULL;
}

void app_hw_close(struct app_hw *hw)
{
	hwdb_close(&hw->db);
}

const char *app_ceiling_source(const struct ridge_gpu *gpu)
{
	return gpu->measured ? "measured (calibration)" : "spec sheet";
}

int app_extreme_index(const double *values, const bool *given, int n)
{
	int best = -1;
	double best_mag = -1;
	for (int i = 0; i < n; i++) {
		if (!given[i] || values[i] == 0 || !isfinite(values[i]))
			continue;
		double mag = fabs(log10(fabs(values[i])));
		if (mag > best_mag) {
			best_mag = mag;
			best = i;
		}
	}
	return best;
}

char *app_read_file(const char *path, size_t max_bytes, const char *what, size_t *len, struct app_status *st)
{
	char *text;
	int e;
	const char *type;
	switch (hwdb_read_file(path, max_bytes, &text, len, &e, &type)) {
	case HWDB_READ_OK:
		return text;
	case HWDB_READ_OPEN:
		app_error(st, "cannot open '%s': %s", path, strerror(e));
		break;
	case HWDB_READ_IO:
		app_error(st, "cannot read '%s': %s", path, strerror(e));
		break;
	case HWDB_READ_NOT_REGULAR:
		app_error(st, "cannot read '%s': %s, not a regular file (a %s is read from a file)", path, type, what);
		break;
	case HWDB_READ_TOO_BIG:
		app_error(st, "'%s' is larger than %zu bytes: not a %s", path, max_bytes, what);
		break;
	case HWDB_READ_NOMEM:
		app_error(st, "out of memory reading '%s'", path);
		break;
	}
	return NULL;
}

void app_text_position(const char *text, size_t offset, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < offset && text[i]; i++) {
		if (text[i] == '\n') {
			++*line;
			*col = 1;
		} else {
			++*col;
		}
	}
}

int app_json_error_text(const struct json_strict_error *e, char *buf, size_t buf_len)
{
	if (e->out_of_memory) {
		snprintf(buf, buf_len, "out of memory reading the JSON");
		return EXIT_ENV;
	}
	snprintf(buf, buf_len, "%d:%d: not valid JSON: %s", e->line, e->col, e->why);
	return EXIT_USAGE;
}

cJSON *app_json_parse(const char *path, const char *text, size_t len, const struct json_strict_limits *lim,
		      struct app_status *st)
{
	struct json_strict_error e;
	cJSON *doc = json_strict_parse(text, len, lim, &e);
	if (doc)
		return doc;
	if (e.out_of_memory) {
		app_error_env(st, "out of memory reading '%s'", path);
		return NULL;
	}
	app_error_at(st, path, e.line, e.col, "not valid JSON: %s", e.why);
	return NULL;
}

int app_output_not_input(const char *flag, const char *out, const char *const *inputs, int count, struct app_status *st)
{
	for (int i = 0; out && i < count; i++) {
		if (inputs[i] && inputs[i][0] && atomic_file_same(out, inputs[i])) {
			app_error_flag(st, flag,
				       "'%s' is the input '%s' of this command: writing it would destroy what is "
				       "read (name another file)",
				       out, inputs[i]);
			return -1;
		}
	}
	return 0;
}

int app_output_path_ok(const char *flag, const char *path, struct app_status *st)
{
	char err[HWDB_PATH + 128];
	if (atomic_file_path_check(path, err, sizeof err) != 0) {
		app_error_flag(st, flag, "%s", err);
		return -1;
	}
	return 0;
}

int app_write_atomic(const char *path, const char *data, size_t len, struct app_status *st)
{
	char err[HWDB_PATH + 128];
	if (atomic_file_write(path, data, len, err, sizeof err) != 0) {
		app_error_env(st, "%s", err);
		return -1;
	}
	return 0;
}

int app_write_calibration(const char *flag, const char *path, const struct ridge_gpu *gpu, struct app_status *st)
{
	char *text = NULL;
	size_t len = 0;
	struct ridge_gpu *back = malloc(sizeof *back);
	struct hwdb_diags *diags = calloc(1, sizeof *diags);
	int rc = -1;
	if (!back || !diags || hwdb_format(gpu, &text, &len) != 0) {
		app_error_env(st, "%s: cannot write '%s': out of memory", flag, path);
	} else if (hwdb_parse(path, text, len, back, diags) != 0) {
		app_error_flag(st, flag, "not written: ridge would refuse to load '%s': %s%s", path,
			       diags->count ? diags->items[0].message : "the loader refuses it",
			       diags->count > 1 ? " (and more)" : "");
	} else {
		char err[HWDB_PATH + 128];
		rc = atomic_file_write(path, text, len, err, sizeof err);
		if (rc != 0)
			app_error_env(st, "%s: %s", flag, err);
	}
	free(text);
	free(back);
	free(diags);
	return rc;
}
