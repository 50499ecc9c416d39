/* Launch overhead, graphs and persistent kernels: the textbook's §7.3 and
 * 7.8.1 and review question 5, recomputed from their inputs. */
#include "test_util.h"

#include <math.h>
#include <string.h>

static struct ridge_launch_input seed_decode(void)
{
	/* Llama-3-70B decode: 6 kernels per layer, 80 layers, ~5 us per launch. */
	struct ridge_launch_input in = { 0 };
	in.kernels_per_layer = 6;
	in.layers = 80;
	in.launch_s = 5e-6;
	in.graph_launch_s = 5e-6;
	in.graph_node_s = 0.5e-6;
	return in;
}

static void test_seed_fractions(void **state)
{
	(void)state;
	/* 480 launches x 5 us = 2.4 ms: 9.6% of a 25 ms step, 24% of 10 ms, 48% of 5 ms. */
	static const struct {
		double step_s, fraction;
	} cases[] = { { 25e-3, 0.096 }, { 10e-3, 0.24 }, { 5e-3, 0.48 } };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ridge_launch_input in = seed_decode();
		in.has_step = true;
		in.step_s = cases[i].step_s;
		struct ridge_launch_result r;
		char err[200];
		assert_int_equal(launch_compute(&in, &r, err, sizeof err), 0);
		assert_true(r.launches == 480);
		assert_close(r.overhead_s, 2.4e-3, 1e-15);
		assert_close(r.fraction_of_step, cases[i].fraction, 1e-14);
		/* persistent: the launches are gone from the step */
		assert_close(r.tpot_persistent_s, cases[i].step_s - 2.4e-3, 1e-14);
		assert_true(r.persistent_overhead_s == 0);
	}
}

static void test_graph_replay(void **state)
{
	(void)state;
	struct ridge_launch_input in = seed_decode();
	in.has_step = true;
	in.step_s = 25e-3;
	struct ridge_launch_result r;
	char err[200];
	/* one graph launch (5 us) + 480 nodes x 0.5 us = 245 us */
	assert_int_equal(launch_compute(&in, &r, err, sizeof err), 0);
	assert_close(r.graph_overhead_s, 245e-6, 1e-14);
	assert_close(r.graph_saving_s, 2.4e-3 - 245e-6, 1e-14);
	assert_close(r.tpot_graph_s, 25e-3 - 2.4e-3 + 245e-6, 1e-14);
	assert_close(r.graph_speedup, 25e-3 / (25e-3 - 2.4e-3 + 245e-6), 1e-14);

	/* The textbook's replay total, 0.024 ms: its "100x reduction". */
	in.has_graph_total = true;
	in.graph_total_s = 0.024e-3;
	assert_int_equal(launch_compute(&in, &r, err, sizeof err), 0);
	assert_close(r.graph_reduction, 100, 1e-13);
	assert_close(r.tpot_graph_s, 22.624e-3, 1e-13);
}

static void test_review_question_5(void **state)
{
	(void)state;
	/* TPOT 22 ms eager, 19.5 ms with graphs, 480 launches: 2.5 ms of launch
	 * overhead, 5.2083 us per launch; at an 8 ms target that is 31.25%. */
	struct ridge_launch_input in = seed_decode();
	in.has_step = true;
	in.step_s = 22e-3;
	in.has_graph_step = true;
	in.graph_step_s = 19.5e-3;
	in.has_target = true;
	in.target_s = 8e-3;
	struct ridge_launch_result r;
	char err[200];
	assert_int_equal(launch_compute(&in, &r, err, sizeof err), 0);
	assert_close(r.measured_saving_s, 2.5e-3, 1e-13);
	assert_close(r.inferred_launch_s, 2.5e-3 / 480, 1e-13);
	assert_close(r.inferred_vs_assumed, 2.5e-3 / 480 / 5e-6, 1e-13);
	/* the replay itself is not free: add back its 245 us */
	assert_close(r.inferred_launch_replay_s, (2.5e-3 + 245e-6) / 480, 1e-13);
	assert_close(r.fraction_of_target, 0.3125, 1e-13);
	assert_close(r.graph_fraction_of_target, 245e-6 / 8e-3, 1e-13);
}

static void test_gpu_defaults(void **state)
{
	(void)state;
	const struct ridge_gpu *gpu = test_gpu("h100-sxm");
	struct ridge_launch_input in = { 0 };
	launch_defaults(gpu, &in);
	assert_true(in.launch_s == gpu->launch_overhead_s);
	assert_true(in.graph_node_s == gpu->graph_node_s);
	assert_true(in.graph_launch_s == gpu->launch_overhead_s);
}

static void test_bad_inputs(void **state)
{
	(void)state;
	static const struct {
		const char *what;
		double step_s, graph_step_s, launch_s;
		const char *reason;
	} cases[] = {
		{ "step shorter than its launches", 2e-3, 0, 5e-6, "not longer than the launch overhead" },
		{ "graph step not shorter", 22e-3, 22e-3, 5e-6, "not shorter than the eager step" },
		{ "negative launch cost", 22e-3, 0, -1e-6, "not negative" },
		{ "infinite launch cost", 22e-3, 0, INFINITY, "finite" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ridge_launch_input in = seed_decode();
		in.launch_s = cases[i].launch_s;
		in.has_step = true;
		in.step_s = cases[i].step_s;
		in.has_graph_step = cases[i].graph_step_s > 0;
		in.graph_step_s = cases[i].graph_step_s;
		struct ridge_launch_result r;
		char err[200] = "";
		if (launch_compute(&in, &r, err, sizeof err) == 0)
			fail_msg("%s: accepted", cases[i].what);
		if (!strstr(err, cases[i].reason))
			fail_msg("%s: error '%s' lacks '%s'", cases[i].what, err, cases[i].reason);
	}
	struct ridge_launch_input none = seed_decode();
	none.kernels_per_layer = 0;
	struct ridge_launch_result r;
	char err[200];
	assert_int_equal(launch_compute(&none, &r, err, sizeof err), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_fractions),    cmocka_unit_test(test_graph_replay),
		cmocka_unit_test(test_review_question_5), cmocka_unit_test(test_gpu_defaults),
		cmocka_unit_test(test_bad_inputs),
	};
	return cmocka_run_group_tests_name("launch", tests, NULL, NULL);
}
