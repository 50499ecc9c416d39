/* The training layout search (model/train_plan.h): what it enumerates, that
 * every layout it keeps is parallel_train's own answer and fits, that the
 * list is the fastest first, and the GEMM-shape efficiency it prices thin
 * layouts with. On the built-in H100 entry (its fabric and timing.gemm). */
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A Llama-3-8B-like model on 64 GPUs, 1M tokens of 4096 per step. */
static struct ridge_train_plan_input small_run(void)
{
	return (struct ridge_train_plan_input){
		.params = 8e9,
		.hidden = 4096,
		.ffn = 14336,
		.layers = 32,
		.heads = 32,
		.kv_heads = 8,
		.seq = 4096,
		.global_batch_tokens = 1048576,
		.gpus = 64,
		.flops_per_step = 6 * 8e9 * 1048576,
		.peak_flops = 989.4e12,
		.compute_efficiency = 0.5,
		.network_bandwidth = 50e9,
		.memory_bytes = 80e9,
		.causal = true,
		.top = 10,
	};
}

static void test_search_keeps_the_fastest_that_fit(void **state)
{
	(void)state;
	const struct ridge_gpu *gpu = test_gpu("h100-sxm");
	struct ridge_train_plan_input in = small_run();
	struct ridge_train_plan_result *res = calloc(1, sizeof *res);
	char err[300];
	assert_int_equal(train_plan_search(gpu, &in, res, err, sizeof err), 0);
	assert_true(res->count == 10 && res->fitting >= 10 && res->priced <= res->tried);
	for (int i = 0; i < res->count; i++) {
		const struct ridge_train_layout *l = &res->top[i];
		assert_true(l->r.fits && l->r.memory_required <= 80e9);
		if (i > 0)
			assert_true(res->top[i - 1].r.step_s <= l->r.step_s);
		/* each is exactly what parallel_train says of that layout */
		struct ridge_parallel_result again;
		assert_int_equal(parallel_train(gpu, &l->in, &again, err, sizeof err), 0);
		assert_true(again.step_s == l->r.step_s && again.memory_required == l->r.memory_required);
		assert_true(l->in.gpus == l->in.tp * l->r.cp * l->in.pp * l->r.dp);
		assert_true(fmod(32, l->in.tp) == 0); /* tp divides the heads */
		assert_true(l->in.tp <= 8);           /* inside the NVSwitch domain */
	}
	/* the best beats a plain layout the search also saw: TP 8, DP 8, ZeRO-1, selective */
	struct ridge_parallel_input plain = res->top[0].in;
	plain.tp = 8, plain.pp = 1, plain.cp = 1, plain.virtual_stages = 1, plain.micro_batch = 1;
	plain.sequence_parallel = false, plain.recompute = RIDGE_RECOMPUTE_SELECTIVE;
	plain.sharding = RIDGE_SHARD_ZERO1;
	struct ridge_parallel_result r;
	assert_int_equal(parallel_train(gpu, &plain, &r, err, sizeof err), 0);
	assert_true(res->top[0].r.step_s <= r.step_s);
	free(res);
}

static void test_shape_efficiency_and_refusals(void **state)
{
	(void)state;
	const struct ridge_gpu *gpu = test_gpu("h100-sxm");
	struct ridge_train_plan_input in = small_run();
	in.compute_efficiency = 0; /* per layout, from the GEMM class */
	struct ridge_train_plan_result *res = calloc(1, sizeof *res);
	char err[300];
	assert_int_equal(train_plan_search(gpu, &in, res, err, sizeof err), 0);
	assert_true(res->count == 10);
	/* no layout's kernels beat the class's own efficiency */
	double gemm = gpu->timing[RIDGE_SLOT_GEMM].compute_efficiency;
	for (int i = 0; i < res->count; i++)
		assert_true(res->top[i].gemm_efficiency > 0 && res->top[i].gemm_efficiency <= gemm);
	/* refusals: a batch that is not whole sequences, top out of range */
	in.global_batch_tokens = 1048577;
	assert_int_equal(train_plan_search(gpu, &in, res, err, sizeof err), -1);
	assert_non_null(strstr(err, "not a whole number"));
	in = small_run();
	in.top = 0;
	assert_int_equal(train_plan_search(gpu, &in, res, err, sizeof err), -1);
	/* nothing fits in 1 GB: no layouts, the nearest named */
	in = small_run();
	in.memory_bytes = 1e9;
	assert_int_equal(train_plan_search(gpu, &in, res, err, sizeof err), 0);
	assert_true(res->count == 0 && res->has_nearest && res->nearest.r.memory_required > 1e9);
	free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_search_keeps_the_fastest_that_fit),
		cmocka_unit_test(test_shape_efficiency_and_refusals),
	};
	return cmocka_run_group_tests_name("train_plan", tests, NULL, NULL);
}
