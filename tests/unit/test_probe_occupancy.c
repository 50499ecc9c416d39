/* ridge's occupancy model (model/occupancy.h, branch feat/occupancy) against
 * what the CUDA runtime answered on an H200 for the probe's own kernels
 * (tests/fixtures/occupancy_h200.json: cudaFuncGetAttributes and
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor over block sizes, dynamic
 * shared memory with and without opt-in, and carveouts; 1788 answers).
 * Every row must agree. */
#include "test_util.h"

#include <string.h>

#include "probe_fixture.h"

#include "occupancy.h"

struct fixture_kernel {
	char name[48];
	int regs, max_threads, barriers;
	double static_smem;
};

static const cJSON *get(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v)
		fail_msg("occupancy_h200.json: missing '%s'", key);
	return v;
}

static void test_model_equals_runtime(void **state)
{
	(void)state;
	size_t len;
	char *text = fixture_text("occupancy_h200.json", &len);
	cJSON *doc = cJSON_ParseWithLength(text, len);
	free(text);
	assert_non_null(doc);
	static struct fixture_kernel kernels[32];
	int nk = 0;
	const cJSON *k;
	cJSON_ArrayForEach (k, get(doc, "kernels")) {
		assert_true(nk < 32);
		snprintf(kernels[nk].name, sizeof kernels[nk].name, "%s", get(k, "name")->valuestring);
		kernels[nk].regs = get(k, "regs")->valueint;
		kernels[nk].max_threads = get(k, "max_threads")->valueint;
		kernels[nk].barriers = get(k, "barriers")->valueint;
		kernels[nk].static_smem = get(k, "static_smem")->valuedouble;
		nk++;
	}
	const struct ridge_gpu *gpu = test_gpu("h200-sxm");
	int rows = 0, wrong = 0;
	const cJSON *r;
	cJSON_ArrayForEach (r, get(doc, "rows")) {
		const struct fixture_kernel *fk = NULL;
		for (int i = 0; i < nk; i++)
			if (strcmp(kernels[i].name, get(r, "kernel")->valuestring) == 0)
				fk = &kernels[i];
		assert_non_null(fk);
		struct ridge_occupancy_input in;
		occupancy_input_init(&in);
		in.threads_per_block = get(r, "block")->valueint;
		in.regs_per_thread = fk->regs;
		in.static_smem = fk->static_smem;
		in.dynamic_smem = get(r, "dynamic_smem")->valuedouble;
		in.carveout_percent = get(r, "carveout")->valueint;
		in.optin = cJSON_IsTrue(get(r, "optin"));
		in.max_dynamic_smem = get(r, "max_dynamic_smem")->valuedouble;
		in.barriers = fk->barriers;
		in.max_threads_limit = fk->max_threads;
		struct ridge_occupancy_result out;
		char err[300];
		if (occupancy_compute(gpu, &in, &out, err, sizeof err) != 0)
			fail_msg("%s block %d dyn %.0f: %s", fk->name, in.threads_per_block, in.dynamic_smem, err);
		int want = get(r, "blocks_per_sm")->valueint;
		if (out.blocks_per_sm != want) {
			if (wrong < 10)
				print_error(
					"%s: block %d, dynamic smem %.0f, carveout %d, opt-in %d: model %d, runtime %d\n",
					fk->name, in.threads_per_block, in.dynamic_smem, in.carveout_percent, in.optin,
					out.blocks_per_sm, want);
			wrong++;
		}
		rows++;
	}
	cJSON_Delete(doc);
	assert_int_equal(rows, 1788);
	if (wrong)
		fail_msg("the model disagrees with the CUDA runtime on %d of %d configurations", wrong, rows);
}

/* The fixture itself: what a later comparison relies on. */
static void test_fixture_shape(void **state)
{
	(void)state;
	const struct probe_result *r = fixture_h200();
	/* The run of 2026-12-01: more rows than occupancy_h200.json (from the run
	 * of 2026-11-30) since the L2 kernel takes 1024 threads per block. */
	assert_int_equal(r->occupancy_count, 2439);
	int optin = 0, carveouts = 0, zero = 0, wgmma = 0;
	for (int i = 0; i < r->occupancy_count; i++) {
		const struct kern_occupancy_row *w = &r->occupancy[i];
		optin += w->optin;
		carveouts += w->carveout >= 0;
		zero += w->blocks_per_sm == 0;
		wgmma += strcmp(w->kernel, "rp_wgmma_bf16") == 0;
		assert_true(w->blocks_per_sm >= 0 && w->blocks_per_sm <= 32);
		assert_true(w->dynamic_smem <= w->max_dynamic_smem);
	}
	assert_true(optin > 0 && carveouts > 0 && wgmma > 0);
	(void)zero;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_equals_runtime),
		cmocka_unit_test(test_fixture_shape),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
