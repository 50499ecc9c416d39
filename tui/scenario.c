#include "scenario.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "eval.h"
#include "tui.h"

/* Panels and the scenario item kinds that carry their inputs. A field's key
 * is the calculator's parameter name, so one table serves both directions;
 * the few keys that are not one field (gemm's naive and tile, roofline's
 * kernel) are handled by name below. */

/* A row of the item's calculator by name (the item may be of several
 * kinds: align, roofline, gemm): -1, which reads as not given, when its
 * table has none. */
static int named(const struct param_values *v, const char *name)
{
	return params_index(v->spec, v->count, name);
}
static const struct tui_kind kinds[] = {
	{ "gemm", TUI_PANEL_ROOFLINE, TUI_ROOFLINE_GEMM, "GEMM" },
	{ "roofline", TUI_PANEL_ROOFLINE, TUI_ROOFLINE_GEMM, "GEMM kernel" },
	{ "roofline", TUI_PANEL_ROOFLINE, TUI_ROOFLINE_INTENSITY, "arithmetic intensity" },
	{ "occupancy", TUI_PANEL_OCCUPANCY, 0, "occupancy" },
	{ "cost-train", TUI_PANEL_COST, TUI_COST_TRAIN, "training cost" },
	{ "cost-decode", TUI_PANEL_COST, TUI_COST_DECODE, "decode cost" },
	{ "align", TUI_PANEL_ALIGN, 0, "alignment" },
};
#define KIND_COUNT (sizeof kinds / sizeof kinds[0])
#define ROOFLINE_KERNEL (&kinds[1])

/* Keys that change no number the panels show. */
static const char *const ignored_keys[] = { "gpu", "explain", "show_rounding", "sweep", NULL };

/* The GEMM algorithms and the kernel names `ridge roofline --kernel` gives them,
 * in the order of the algorithm field's choices. */
static const char *const gemm_kernels[] = { "gemm", "gemm-tiled", "gemm-naive" };

static const struct calc *eval_calc(const char *name)
{
	for (size_t i = 0; i < eval_kind_count; i++)
		if (strcmp(eval_kinds[i]->name, name) == 0)
			return eval_kinds[i];
	return NULL;
}

static bool field_in_kind(const struct tui_field *f, const struct tui_kind *k)
{
	return f->panel == k->panel && (f->mode < 0 || f->mode == k->mode);
}

static bool is_gemm_kernel(const char *name, int *algorithm)
{
	for (int i = 0; i < 3; i++) {
		if (strcmp(name, gemm_kernels[i]) == 0) {
			if (algorithm)
				*algorithm = i;
			return true;
		}
	}
	return false;
}

/* The panel mode that shows item i, or NULL when no panel can show it
 * faithfully: an unknown kind, or a key no input of the panel holds (a
 * measured time, a named kernel other than a GEMM, sparse rates...). */
static const struct tui_kind *item_kind(const struct eval_scenario *sc, int i)
{
	const char *name = eval_item_kind(sc, i);
	const struct param_values *v = eval_item_values(sc, i);
	const struct tui_kind *k = NULL;
	for (size_t j = 0; j < KIND_COUNT && !k; j++)
		if (strcmp(kinds[j].kind, name) == 0)
			k = &kinds[j];
	if (!k)
		return NULL;
	const struct eval_item *item = eval_item_at(sc, i);
	/* An align item without dims or model checks the model section's shape:
	 * the panel holds a config file or dimensions, not a shape. */
	if (k->panel == TUI_PANEL_ALIGN && !params_has(v, named(v, "dims")) && !params_has(v, named(v, "model")))
		return NULL;
	if (strcmp(name, "roofline") == 0) {
		const char *kernel = params_has(v, named(v, "kernel")) ? params_text(v, named(v, "kernel")) : NULL;
		if (kernel && !is_gemm_kernel(kernel, NULL))
			return NULL;
		k = kernel ? ROOFLINE_KERNEL : &kinds[2];
		if (!kernel && !params_has(v, named(v, "intensity")))
			return NULL; /* FLOPs and bytes given: no input holds them */
	}
	for (int p = 0; p < v->count; p++) {
		if (!v->set[p])
			continue;
		const char *key = v->spec[p].name;
		bool known = false;
		for (const char *const *ig = ignored_keys; *ig && !known; ig++)
			known = strcmp(*ig, key) == 0;
		/* A flag set to false is the flag not given. */
		if (v->spec[p].kind == PARAM_FLAG && v->num[p] == 0)
			known = true;
		if (k->panel == TUI_PANEL_ROOFLINE && (strcmp(key, "naive") == 0 || strcmp(key, "kernel") == 0))
			known = true;
		/* The model section fills the shape keys of every align item; with
		 * dims or a config they are unused. */
		if (k->panel == TUI_PANEL_ALIGN && (v->spec[p].flags & PARAM_MODEL) && !eval_item_gives(item, key))
			known = true;
		for (size_t f = 0; f < tui_field_count && !known; f++)
			known = field_in_kind(&tui_fields[f], k) && strcmp(tui_fields[f].key, key) == 0;
		if (!known)
			return NULL;
	}
	return k;
}

/* ---- loading ---- */

/* The panel's inputs back to their defaults, then the item's values on top:
 * what the item leaves out is the calculator's default, which is ours too. */
static int apply_item(struct tui_state *s, const struct eval_scenario *sc, int i, const struct tui_kind *k, char *err,
		      size_t err_len)
{
	const struct ridge_gpu *gpu = eval_item_gpu(sc, i);
	if (gpu) {
		const struct hwdb_entry *e = hwdb_find(s->db, gpu->id);
		if (!e) {
			snprintf(err, err_len, "%s: GPU '%s' is not in the explorer's hardware database",
				 eval_item_name(sc, i), gpu->id);
			return -1;
		}
		int old = s->in.gpu;
		s->in.gpu = (int)(e - s->db->entries);
		tui_inputs_follow_gpu(&s->in, s->db, old);
	}
	struct tui_inputs def;
	tui_inputs_default(&def, s->db, s->in.gpu);
	for (size_t f = 0; f < tui_field_count; f++) {
		const struct tui_field *field = &tui_fields[f];
		if (field_in_kind(field, k) && field->offset != offsetof(struct tui_inputs, gpu))
			memcpy((char *)&s->in + field->offset, (char *)&def + field->offset, field->size);
	}
	if (k->panel == TUI_PANEL_ROOFLINE)
		s->in.roofline_mode = k->mode;
	else if (k->panel == TUI_PANEL_COST)
		s->in.cost_mode = k->mode;
	if (k->panel == TUI_PANEL_ROOFLINE && k->mode == TUI_ROOFLINE_GEMM) {
		const struct param_values *v = eval_item_values(sc, i);
		/* gemm: naive or a tile; roofline: the kernel's name. */
		int algorithm = 0;
		if (params_has(v, named(v, "kernel")))
			is_gemm_kernel(params_text(v, named(v, "kernel")), &algorithm);
		else if (params_flag(v, named(v, "naive")))
			algorithm = 2;
		else if (params_has(v, named(v, "tile")))
			algorithm = 1;
		s->in.gemm_algorithm = algorithm;
	}

	const struct param_values *v = eval_item_values(sc, i);
	for (size_t f = 0; f < tui_field_count; f++) {
		const struct tui_field *field = &tui_fields[f];
		if (!field_in_kind(field, k))
			continue;
		int p = params_index(v->spec, v->count, field->key);
		if (p < 0)
			continue;
		char *at = (char *)&s->in + field->offset;
		if (!v->set[p]) {
			if (field->has_unset && (field->kind == TUI_FIELD_NUMBER || field->kind == TUI_FIELD_INTEGER))
				*(double *)at = field->unset_value;
			continue;
		}
		const struct param *spec = &v->spec[p];
		switch (field->kind) {
		case TUI_FIELD_NUMBER:
		case TUI_FIELD_INTEGER:
			*(double *)at = v->num[p];
			break;
		case TUI_FIELD_CHOICE:
			if (spec->kind == PARAM_FLAG) {
				*(int *)at = v->num[p] != 0;
				break;
			}
			/* A word otherwise. */
			__attribute__((fallthrough));
		case TUI_FIELD_DTYPE:
		case TUI_FIELD_TEXT:
		case TUI_FIELD_GPU: {
			char why[TUI_TEXT];
			if (tui_field_set_text(&s->in, s->db, field, v->text[p], why, sizeof why) != 0) {
				snprintf(err, err_len, "%s: %s", params_where(v, p), why);
				return -1;
			}
			break;
		}
		}
	}
	/* A model config is named relative to the scenario file; the panel
	 * holds a path from the working directory, and the file's keys. */
	if (k->panel == TUI_PANEL_ALIGN && params_has(v, named(v, "model"))) {
		char path[TUI_PATH];
		eval_path(sc, params_text(v, named(v, "model")), path, sizeof path);
		if (strlen(path) >= sizeof s->in.align_model) {
			snprintf(err, err_len, "%s: path too long", params_where(v, named(v, "model")));
			return -1;
		}
		snprintf(s->in.align_model, sizeof s->in.align_model, "%s", path);
		char why[TUI_TEXT];
		if (tui_load_model_config(s, path, why, sizeof why) != 0) {
			snprintf(err, err_len, "%s: %s", params_where(v, named(v, "model")), why);
			return -1;
		}
	}
	return 0;
}

/* Opens the file with eval's loader: the file's problems, then a summary, in st. */
static struct eval_scenario *open_file(const char *path, const char *hwdb_dir, const char *calibration,
				       struct app_status *st)
{
	struct eval_scenario *sc = eval_open(path, hwdb_dir, calibration, st);
	if (!sc)
		app_error(st, "cannot load scenario '%s'", path);
	return sc;
}

int scenario_load(struct tui_state *s, const char *path, const char *hwdb_dir, const char *calibration,
		  struct app_status *st)
{
	struct eval_scenario *sc = open_file(path, hwdb_dir, calibration, st);
	if (!sc)
		return -1;
	struct tui_state *work = malloc(sizeof *work);
	if (!work) {
		eval_close(sc);
		app_error_env(st, "out of memory");
		return -1;
	}
	char err[TUI_TEXT * 2] = "";
	*work = *s;
	/* The first item for each panel mode; a panel shows the mode of its first item. */
	bool loaded[TUI_PANEL_COUNT][2] = { { false } }, shown[TUI_PANEL_COUNT] = { false };
	int used = 0, rc = 0, modes[TUI_PANEL_COUNT] = { 0 };
	bool first_panel = true;
	for (int i = 0; i < eval_item_count(sc) && rc == 0; i++) {
		const struct tui_kind *k = item_kind(sc, i);
		if (!k || loaded[k->panel][k->mode])
			continue;
		rc = apply_item(work, sc, i, k, err, sizeof err);
		loaded[k->panel][k->mode] = true;
		used++;
		if (!shown[k->panel]) {
			shown[k->panel] = true;
			modes[k->panel] = k->mode;
		}
		if (first_panel) {
			work->panel = k->panel;
			first_panel = false;
		}
	}
	work->in.roofline_mode = modes[TUI_PANEL_ROOFLINE];
	work->in.cost_mode = modes[TUI_PANEL_COST];
	if (rc == 0) {
		tui_state_compute(work);
		*s = *work;
		tui_state_message(s, false, "opened %s: %d of %d item%s shown", path, used, eval_item_count(sc),
				  eval_item_count(sc) == 1 ? "" : "s");
	} else {
		app_error(st, "%s", err);
	}
	free(work);
	eval_close(sc);
	return rc;
}

int scenario_each(const struct tui_state *base, const char *path, const char *hwdb_dir, const char *calibration,
		  scenario_item_fn fn, void *ctx, struct app_status *st)
{
	struct eval_scenario *sc = open_file(path, hwdb_dir, calibration, st);
	if (!sc)
		return -1;
	struct tui_state *work = malloc(sizeof *work);
	char err[TUI_TEXT * 2];
	int rc = 0;
	if (!work) {
		app_error_env(st, "out of memory");
		rc = -1;
	}
	for (int i = 0; work && i < eval_item_count(sc) && rc == 0; i++) {
		const struct tui_kind *k = item_kind(sc, i);
		if (!k)
			continue;
		*work = *base;
		if (apply_item(work, sc, i, k, err, sizeof err) != 0) {
			app_error(st, "%s", err);
			rc = -1;
			break;
		}
		if (base->gpu_override >= 0)
			tui_inputs_use_gpu(&work->in, work->db, base->gpu_override);
		work->panel = k->panel;
		tui_state_compute(work);
		rc = fn(ctx, work, i, eval_item_name(sc, i), k);
	}
	free(work);
	eval_close(sc);
	return rc;
}

/* ---- saving ---- */

struct text {
	char *buf;
	size_t len, cap;
	bool failed;
};

static void add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct text *t, const char *fmt, ...)
{
	if (t->failed)
		return;
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->failed = true;
			return;
		}
		if ((size_t)n < t->cap - t->len) {
			t->len += (size_t)n;
			return;
		}
		size_t cap = t->cap * 2 + (size_t)n;
		char *bigger = realloc(t->buf, cap);
		if (!bigger) {
			t->failed = true;
			return;
		}
		t->buf = bigger;
		t->cap = cap;
	}
}

/* A YAML scalar that needs no quoting: our values are numbers, words and
 * paths; anything else is double-quoted with escapes. */
static void add_scalar(struct text *t, const char *value)
{
	bool plain = value[0] != '\0';
	for (const char *c = value; *c && plain; c++)
		plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
			strchr("._-+/$%", *c);
	if (plain) {
		add(t, "%s", value);
		return;
	}
	add(t, "\"");
	for (const char *c = value; *c; c++) {
		if (*c == '"' || *c == '\\')
			add(t, "\\%c", *c);
		else if ((unsigned char)*c < 32)
			add(t, "\\x%02x", (unsigned char)*c);
		else
			add(t, "%c", *c);
	}
	add(t, "\"");
}

/* The value of a field as the calculator's parameter reads it back exactly. */
static bool field_value_text(const struct tui_state *s, const struct tui_field *f, const struct param *spec, char *buf,
			     size_t len)
{
	const char *at = (const char *)&s->in + f->offset;
	switch (f->kind) {
	case TUI_FIELD_NUMBER:
	case TUI_FIELD_INTEGER: {
		double v = *(const double *)at;
		if (f->has_unset && v == f->unset_value)
			return false;
		char exact[64];
		cost_format_exact(v, exact, sizeof exact);
		/* A parameter whose bare numbers are in another unit (overhead_ms)
		 * gets the base unit written out. */
		if (spec->kind == PARAM_NUMBER && spec->bare_unit)
			snprintf(buf, len, "%s%s", exact, ridge_unit_symbol(spec->unit));
		else
			snprintf(buf, len, "%s", exact);
		return true;
	}
	case TUI_FIELD_CHOICE:
		if (spec->kind == PARAM_FLAG) {
			/* A flag off is a flag not given. */
			snprintf(buf, len, "true");
			return *(const int *)at != 0;
		}
		__attribute__((fallthrough));
	default:
		tui_field_format(s, f, buf, len);
		return f->kind != TUI_FIELD_TEXT || at[0] != '\0';
	}
}

/* path (from the working directory, or absolute) as a file saved at file
 * names it: relative to that file's directory when both resolve, else
 * absolute. Returns 0, or -1 when path does not resolve. */
static int path_from(const char *file, const char *path, char *buf, size_t len)
{
	char dir[TUI_PATH];
	const char *slash = strrchr(file, '/');
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else if (slash == file)
		snprintf(dir, sizeof dir, "/");
	else
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - file), file);
	char real_dir[PATH_MAX], real_path[PATH_MAX];
	if (!realpath(path, real_path))
		return -1;
	if (!realpath(dir, real_dir)) {
		snprintf(buf, len, "%s", real_path);
		return 0;
	}
	/* The common leading directories, then ".." for each of dir's others. */
	size_t common = 0, i = 0;
	for (; real_dir[i] && real_dir[i] == real_path[i]; i++)
		if (real_dir[i] == '/')
			common = i;
	if (real_dir[i] == '\0' && real_path[i] == '/')
		common = i;
	size_t used = 0;
	buf[0] = '\0';
	for (const char *c = real_dir + common; *c; c++)
		if (*c == '/' && c[1] != '\0')
			used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "../");
	snprintf(buf + (used < len ? used : len - 1), used < len ? len - used : 1, "%s", real_path + common + 1);
	return used < len ? 0 : -1;
}

int scenario_save(const struct tui_state *s, const char *path, struct app_status *st)
{
	/* The files this session read, which a save must not replace: the
	 * calibration and the alignment panel's model config. (The scenario
	 * itself is saved back on purpose: it is the document.) */
	const char *inputs[] = { s->calibration, s->in.align_model,
				 s->model_config.loaded ? s->model_config.path : NULL };
	if (app_output_not_input(NULL, path, inputs, 3, st) != 0)
		return -1;
	const struct ridge_gpu *gpu = tui_state_gpu(s);
	struct text t = { malloc(4096), 0, 4096, false };
	if (!t.buf) {
		app_error_env(st, "out of memory");
		return -1;
	}
	add(&t, "# A what-if saved by ridge tui: 'ridge eval %s' runs it, 'ridge tui %s' opens it.\n", path, path);
	add(&t, "scenario: what-if from ridge tui\n");
	if (gpu)
		add(&t, "gpu: %s\n", gpu->id);
	const struct ridge_gpu *compare = tui_state_compare_gpu(s);
	if (compare)
		add(&t, "# hardware panel: compared with %s\n", compare->id);
	add(&t, "items:\n");
	/* One item per panel mode; the GEMM is a gemm item at HBM and a roofline
	 * item with its kernel named at the other levels (gemm has no level). */
	const struct tui_kind *save[] = {
		s->in.roofline_level == RIDGE_LEVEL_HBM ? &kinds[0] : ROOFLINE_KERNEL,
		&kinds[2],
		&kinds[3],
		&kinds[4],
		&kinds[5],
		&kinds[6],
	};
	int items = 0;
	for (size_t k = 0; k < sizeof save / sizeof save[0]; k++) {
		const struct tui_kind *kind = save[k];
		const struct calc *calc = eval_calc(kind->kind);
		if (!calc)
			continue;
		/* Dimensions that do not parse, or a config that is not read, would
		 * make a file `ridge eval` refuses. */
		const char *panel_error = tui_panel_error(s, kind->panel);
		if (kind->panel == TUI_PANEL_ALIGN && panel_error) {
			add(&t, "  # the alignment panel is not saved: %s\n", panel_error);
			continue;
		}
		add(&t, "  - name: %s\n    kind: %s\n", kind->title, kind->kind);
		bool gemm_mode = kind->panel == TUI_PANEL_ROOFLINE && kind->mode == TUI_ROOFLINE_GEMM;
		int algorithm = s->in.gemm_algorithm;
		if (gemm_mode && kind == ROOFLINE_KERNEL)
			add(&t, "    kernel: %s\n", gemm_kernels[algorithm]);
		if (gemm_mode && algorithm == 2 && kind != ROOFLINE_KERNEL)
			add(&t, "    naive: true\n");
		if (gemm_mode && algorithm == 1) {
			add(&t, "    tile: ");
			add_scalar(&t, s->in.gemm_tile[0] ? s->in.gemm_tile : "32");
			add(&t, "\n");
		}
		for (size_t f = 0; f < tui_field_count; f++) {
			const struct tui_field *field = &tui_fields[f];
			if (!field_in_kind(field, kind) || (gemm_mode && strcmp(field->key, "tile") == 0))
				continue;
			int p = params_index(calc->params, calc->param_count, field->key);
			if (p < 0 || (calc->params[p].flags & PARAM_CLI_ONLY))
				continue;
			/* Carveout and opt-in are NVIDIA's: `ridge occupancy` refuses them on AMD. */
			if (gpu && gpu->vendor == RIDGE_VENDOR_AMD && kind->panel == TUI_PANEL_OCCUPANCY &&
			    (strcmp(field->key, "carveout") == 0 || strcmp(field->key, "optin") == 0))
				continue;
			char value[TUI_PATH];
			if (!field_value_text(s, field, &calc->params[p], value, sizeof value))
				continue;
			/* A config replaces the dimensions; its path is from the saved file. */
			if (kind->panel == TUI_PANEL_ALIGN && s->in.align_model[0] && strcmp(field->key, "dims") == 0)
				continue;
			if (kind->panel == TUI_PANEL_ALIGN && strcmp(field->key, "model") == 0 &&
			    path_from(path, s->in.align_model, value, sizeof value) != 0) {
				free(t.buf);
				app_error(st, "model config '%s': cannot resolve its path", s->in.align_model);
				return -1;
			}
			add(&t, "    %s: ", field->key);
			add_scalar(&t, value);
			add(&t, "\n");
		}
		items++;
	}
	if (t.failed) {
		free(t.buf);
		app_error_env(st, "out of memory");
		return -1;
	}
	if (items == 0) {
		free(t.buf);
		app_error(st, "no panel has a scenario item kind that 'ridge eval' knows");
		return -1;
	}
	if (app_write_atomic(path, t.buf, t.len, st) != 0) {
		free(t.buf);
		return -1;
	}
	free(t.buf);
	return 0;
}

int tui_open_scenario(struct tui_state *s, const char *path, const char *hwdb_dir, const char *calibration,
		      struct app_status *st)
{
	if (scenario_load(s, path, hwdb_dir, calibration, st) != 0)
		return -1;
	snprintf(s->scenario_path, sizeof s->scenario_path, "%s", path);
	return 0;
}
