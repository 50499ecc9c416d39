/* Scenario files and the explorer: every example item a panel can show gives
 * the same numbers in the explorer as in `ridge eval` (the same model call on
 * the same inputs, so equal to the last bit), and a saved what-if reads back
 * into the same inputs and the same numbers. */
#include "test_util.h"

#include <dirent.h>
#include <limits.h>
#include <stddef.h>
#include <math.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "eval.h"
#include "scenario.h"
#include "state.h"
#include "tui.h"

static struct hwdb db;
static char tmpdir[256];

static int setup(void **state)
{
	(void)state;
	struct hwdb_diags diags = { 0 };
	snprintf(tmpdir, sizeof tmpdir, "/tmp/ridge-tui-scenario-XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	return hwdb_open(&db, NULL, &diags);
}

static int teardown(void **state)
{
	(void)state;
	hwdb_close(&db);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static struct tui_state *new_state(const char *gpu)
{
	struct tui_state *s = malloc(sizeof *s);
	assert_non_null(s);
	tui_state_init(s, &db, (int)(hwdb_find(&db, gpu) - db.entries));
	return s;
}

static void assert_subset(const cJSON *mine, const cJSON *theirs, const char *what);

/* A list of mine (align's findings) is theirs element by element, each
 * element a subset. */
static void assert_list_subset(const cJSON *mine, const cJSON *theirs, const char *key, const char *what)
{
	if (!cJSON_IsArray(theirs) || cJSON_GetArraySize(mine) != cJSON_GetArraySize(theirs))
		fail_msg("%s: %s has %d elements in the explorer, %d in eval", what, key, cJSON_GetArraySize(mine),
			 cJSON_IsArray(theirs) ? cJSON_GetArraySize(theirs) : -1);
	for (int i = 0; i < cJSON_GetArraySize(mine); i++) {
		const cJSON *a = cJSON_GetArrayItem(mine, i), *b = cJSON_GetArrayItem(theirs, i);
		if (cJSON_IsNumber(a)) { /* a pair such as predicted_time_range_s */
			if (!cJSON_IsNumber(b) || a->valuedouble != b->valuedouble)
				fail_msg("%s: %s.%d is %.17g in the explorer, %.17g in eval", what, key, i,
					 a->valuedouble, cJSON_IsNumber(b) ? b->valuedouble : NAN);
			continue;
		}
		if (!cJSON_IsObject(a) || !cJSON_IsObject(b))
			fail_msg("%s: %s.%d is not an object", what, key, i);
		assert_subset(a, b, what);
	}
}

/* Every number, string and bool of mine is in theirs, equal. */
static void assert_subset(const cJSON *mine, const cJSON *theirs, const char *what)
{
	const cJSON *item;
	int compared = 0;
	cJSON_ArrayForEach (item, mine) {
		const cJSON *other = cJSON_GetObjectItemCaseSensitive(theirs, item->string);
		if (!other)
			fail_msg("%s: eval has no '%s'", what, item->string);
		if (cJSON_IsObject(item)) {
			assert_subset(item, other, what);
		} else if (cJSON_IsArray(item)) {
			assert_list_subset(item, other, item->string, what);
		} else if (cJSON_IsNumber(item)) {
			if (!cJSON_IsNumber(other) || item->valuedouble != other->valuedouble)
				fail_msg("%s: %s is %.17g in the explorer, %.17g in eval", what, item->string,
					 item->valuedouble, cJSON_IsNumber(other) ? other->valuedouble : NAN);
		} else if (cJSON_IsString(item)) {
			if (!cJSON_IsString(other) || strcmp(item->valuestring, other->valuestring) != 0)
				fail_msg("%s: %s is '%s' in the explorer", what, item->string, item->valuestring);
		} else if (cJSON_IsBool(item) || cJSON_IsNull(item)) {
			if (item->type != other->type)
				fail_msg("%s: %s differs", what, item->string);
		}
		compared++;
	}
	assert_true(compared > 0);
}

struct compare_ctx {
	struct eval_scenario *sc;
	const char *path;
	int compared;
};

/* Across the examples: align items compared, and their findings. */
static int align_items_compared, align_findings_compared;

static int compare_item(void *ctx, const struct tui_state *s, int index, const char *name, const struct tui_kind *kind)
{
	struct compare_ctx *c = ctx;
	char what[600];
	snprintf(what, sizeof what, "%s item %d '%s'", c->path, index + 1, name);
	const char *error = tui_panel_error(s, kind->panel);
	if (error)
		fail_msg("%s: the explorer says: %s", what, error);
	struct app_status st;
	app_status_init(&st);
	cJSON *theirs = eval_run(c->sc, index, &st);
	if (!theirs)
		fail_msg("%s: eval failed", what);
	cJSON *mine = tui_dump_result(s, kind);
	assert_subset(mine, theirs, what);
	if (kind->panel == TUI_PANEL_ALIGN) {
		align_findings_compared += cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(mine, "findings"));
		align_items_compared++;
	}
	cJSON_Delete(mine);
	cJSON_Delete(theirs);
	c->compared++;
	return 0;
}

static int compare_file(const char *path)
{
	struct app_status st;
	app_status_init(&st);
	struct compare_ctx c = { eval_open(path, NULL, NULL, &st), path, 0 };
	if (!c.sc)
		fail_msg("eval cannot open '%s'", path);
	struct tui_state *base = new_state("h100-sxm");
	char err[APP_MSG_TEXT + 600];
	if (scenario_each(base, path, NULL, NULL, compare_item, &c, &st) != 0) {
		tui_status_text(&st, err, sizeof err);
		fail_msg("%s: %s", path, err);
	}
	eval_close(c.sc);
	free(base);
	return c.compared;
}

static void test_examples_equal_eval(void **state)
{
	(void)state;
	DIR *dir = opendir("examples");
	assert_non_null(dir);
	struct dirent *e;
	int items = 0;
	while ((e = readdir(dir))) {
		size_t n = strlen(e->d_name);
		if (n < 6 || strcmp(e->d_name + n - 5, ".yaml") != 0)
			continue;
		char path[600];
		snprintf(path, sizeof path, "examples/%s", e->d_name);
		items += compare_file(path);
	}
	closedir(dir);
	/* The examples hold cost-train and cost-decode items at least, and
	 * align items with dimensions and with model configs
	 * (examples/alignment-seed.yaml). */
	assert_true(items >= 4);
	assert_true(align_items_compared >= 4);
	assert_true(align_findings_compared > align_items_compared);
}

static void test_save_and_reload(void **state)
{
	(void)state;
	struct tui_state *s = new_state("h200-sxm");
	char err[APP_MSG_TEXT + 600], path[600];
	struct app_status st;
	app_status_init(&st);
	struct tui_inputs *in = &s->in;
	/* Values that need care to write: fractions, a given peak, money, ms. */
	in->train_params = 70e9;
	in->train_mfu = 0.37;
	in->train_target_mfu = 0.615;
	in->train_investment = 240e3;
	in->train_price = 2.75;
	in->train_peak = 989e12;
	in->train_formula = 1;
	in->train_layers = 80;
	in->train_heads = 64;
	in->train_head_dim = 128;
	in->train_causal = 1;
	in->decode_context = 8192;
	in->decode_batch = 24;
	in->decode_overhead = 2.5e-3;
	in->decode_weight_dtype = 3; /* fp8 */
	in->decode_dtype = RIDGE_FP8;
	in->gemm_algorithm = 1; /* tiled */
	snprintf(in->gemm_tile, sizeof in->gemm_tile, "64x64x32");
	in->gemm_traffic = 1; /* compulsory */
	in->gemm_m = 1000;
	in->gemm_n = 3072;
	in->gemm_k = 768;
	in->roofline_dtype = RIDGE_FP16;
	in->intensity = 42.5;
	in->threads = 384;
	in->regs = 40;
	in->smem = 24576;
	in->dyn_smem = 8192;
	in->carveout = 50;
	in->optin = 1;
	in->barriers = 2;
	in->align_dtype = RIDGE_FP8;
	snprintf(in->align_dims, sizeof in->align_dims, "d_model=6000,ffn=21845,8191");
	in->align_tokens = 8192;
	tui_state_compute(s);
	assert_true(s->out.occupancy.ok);
	assert_true(s->out.roofline.ok);
	assert_true(s->out.align.ok);
	snprintf(path, sizeof path, "%s/whatif.yaml", tmpdir);
	assert_int_equal(scenario_save(s, path, &st), 0);

	/* Back into a fresh explorer on another GPU: the same inputs. */
	struct tui_state *t = new_state("h100-sxm");
	if (scenario_load(t, path, NULL, NULL, &st) != 0)
		fail_msg("reload: %s", (tui_status_text(&st, err, sizeof err), err));
	assert_string_equal(tui_state_gpu(t)->id, "h200-sxm");
	for (size_t i = 0; i < tui_field_count; i++) {
		const struct tui_field *f = &tui_fields[i];
		if (f->panel == TUI_PANEL_HW)
			continue;
		if (f->offset == offsetof(struct tui_inputs, cost_mode) ||
		    f->offset == offsetof(struct tui_inputs, roofline_mode))
			continue; /* a panel shows its first item's mode */
		if (memcmp((char *)&s->in + f->offset, (char *)&t->in + f->offset, f->size) != 0)
			fail_msg("%s did not survive the round trip", f->key);
	}
	/* And ridge eval computes the explorer's numbers from it. */
	assert_int_equal(compare_file(path), 6); /* gemm, roofline, occupancy, cost-train, cost-decode, align */
	free(s);
	free(t);
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	static char buf[16384];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* A model config on the alignment panel: saved as a path from the saved
 * file's directory, read back relative to it, the same findings as eval's. */
static void test_save_align_model(void **state)
{
	(void)state;
	struct tui_state *s = new_state("h100-sxm");
	char err[APP_MSG_TEXT + 600], path[600];
	struct app_status st;
	app_status_init(&st);
	const char *config = "examples/models/d-model-6000.json";
	s->in.align_dtype = RIDGE_FP8;
	snprintf(s->in.align_model, sizeof s->in.align_model, "%s", config);
	if (tui_load_model_config(s, config, err, sizeof err) != 0)
		fail_msg("%s", err);
	tui_state_compute(s);
	assert_true(s->out.align.ok);
	assert_true(s->out.align.run.model_mode);
	assert_int_equal(s->out.align.run.count, 17); /* 8 GEMMs' N and K, and head_dim */
	assert_int_equal(s->out.align.run.errors, 1); /* head_dim 120 in fp8 */
	snprintf(path, sizeof path, "%s/sub/model.yaml", tmpdir);
	char dir[600];
	snprintf(dir, sizeof dir, "%s/sub", tmpdir);
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(scenario_save(s, path, &st), 0);
	const char *text = read_all(path);
	/* The config replaces the dimensions, named from tmpdir/sub. */
	assert_null(strstr(text, "dims:"));
	const char *model = strstr(text, "    model: ");
	assert_non_null(model);
	assert_true(strncmp(model + 11, "../", 3) == 0);

	struct tui_state *t = new_state("h100-sxm");
	if (scenario_load(t, path, NULL, NULL, &st) != 0)
		fail_msg("reload: %s", (tui_status_text(&st, err, sizeof err), err));
	char a[PATH_MAX], b[PATH_MAX];
	assert_non_null(realpath(config, a));
	assert_non_null(realpath(t->in.align_model, b));
	assert_string_equal(a, b);
	assert_true(t->model_config.loaded);
	assert_int_equal(t->out.align.run.count, 17);
	for (int i = 0; i < 17; i++) {
		assert_string_equal(t->out.align.run.findings[i].name, s->out.align.run.findings[i].name);
		assert_memory_equal(&t->out.align.run.findings[i].dim, &s->out.align.run.findings[i].dim,
				    sizeof t->out.align.run.findings[i].dim);
	}
	assert_int_equal(compare_file(path), 6);

	/* Dimensions that do not parse are not saved (eval would refuse the
	 * file); the rest is. */
	s->in.align_model[0] = '\0';
	snprintf(s->in.align_dims, sizeof s->in.align_dims, "4096,,8");
	tui_state_compute(s);
	assert_false(s->out.align.ok);
	snprintf(path, sizeof path, "%s/bad-dims.yaml", tmpdir);
	assert_int_equal(scenario_save(s, path, &st), 0);
	assert_non_null(strstr(read_all(path), "# the alignment panel is not saved: dims: empty item 2"));
	assert_int_equal(compare_file(path), 5);
	free(s);
	free(t);
}

static void test_bad_files(void **state)
{
	(void)state;
	struct tui_state *s = new_state("h100-sxm");
	struct tui_state before = *s;
	char err[APP_MSG_TEXT + 600], path[600];
	struct app_status st;
	app_status_init(&st);
	/* A missing file, and a file with a bad value: nothing changes. */
	snprintf(path, sizeof path, "%s/missing.yaml", tmpdir);
	assert_int_equal(scenario_load(s, path, NULL, NULL, &st), -1);
	tui_status_text(&st, err, sizeof err);
	assert_non_null(strstr(err, "missing.yaml"));
	snprintf(path, sizeof path, "%s/bad.yaml", tmpdir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("gpu: h100-sxm\nitems:\n  - kind: cost-train\n    params: 7e9\n    seq: 4096\n    batch: 8\n"
	      "    steps: 10\n    gpus: 8\n    mfu: 140%\n",
	      f);
	fclose(f);
	assert_int_equal(scenario_load(s, path, NULL, NULL, &st), -1);
	assert_memory_equal(&before.in, &s->in, sizeof s->in);
	/* Saving into a directory that does not exist fails and writes nothing. */
	snprintf(path, sizeof path, "%s/no/such/dir/x.yaml", tmpdir);
	assert_int_equal(scenario_save(s, path, &st), -1);
	assert_int_equal(access(path, F_OK), -1);
	free(s);
}

/* A save onto a file the session read (the calibration, the model config,
 * also through a symbolic link) is refused and leaves it as it was; onto the
 * scenario it came from is a save. */
static void test_save_not_onto_an_input(void **state)
{
	(void)state;
	struct tui_state *s = new_state("h100-sxm");
	char err[APP_MSG_TEXT + 600], cal[600], link[600], config[600];
	struct app_status st;
	app_status_init(&st);
	snprintf(cal, sizeof cal, "%s/cal.yaml", tmpdir);
	FILE *f = fopen(cal, "w");
	assert_non_null(f);
	fputs("# a calibration\n", f);
	fclose(f);
	s->calibration = cal;
	assert_int_equal(scenario_save(s, cal, &st), -1);
	tui_status_text(&st, err, sizeof err);
	assert_non_null(strstr(err, "is the input"));
	assert_string_equal(read_all(cal), "# a calibration\n");
	snprintf(link, sizeof link, "%s/link.yaml", tmpdir);
	assert_int_equal(symlink(cal, link), 0);
	app_status_init(&st);
	assert_int_equal(scenario_save(s, link, &st), -1);
	assert_string_equal(read_all(cal), "# a calibration\n");
	s->calibration = NULL;
	snprintf(config, sizeof config, "%s/model.json", tmpdir);
	char *text = read_all("examples/models/d-model-6000.json");
	f = fopen(config, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	snprintf(s->in.align_model, sizeof s->in.align_model, "%s", config);
	if (tui_load_model_config(s, config, err, sizeof err) != 0)
		fail_msg("%s", err);
	app_status_init(&st);
	assert_int_equal(scenario_save(s, config, &st), -1);
	assert_non_null(strstr(read_all(config), "hidden_size"));
	/* The scenario itself: saved back. */
	snprintf(link, sizeof link, "%s/what-if.yaml", tmpdir);
	app_status_init(&st);
	assert_int_equal(scenario_save(s, link, &st), 0);
	snprintf(s->scenario_path, sizeof s->scenario_path, "%s", link);
	assert_int_equal(scenario_save(s, link, &st), 0);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_examples_equal_eval),    cmocka_unit_test(test_save_and_reload),
		cmocka_unit_test(test_save_align_model),       cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_save_not_onto_an_input),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
