/* model/serve.c: a decode step and a prefill of real configs, with every
 * count worked by hand in the comments (weights read, KV read with the head
 * rule, experts touched, attention FLOPs, launches, scale bytes, the fit). On
 * the h200-sxm entry with its timing section and fixed costs taken out: every
 * kernel's prediction is then its floor, so the sums are exact. */
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static struct ridge_workload_model llama3_8b(void)
{
	struct ridge_workload_model m = {
		.hidden = 4096, .intermediate = 14336, .layers = 32, .heads = 32, .kv_heads = 8, .vocab = 128256
	};
	char err[200];
	assert_int_equal(workload_resolve(&m, err, sizeof err), 0);
	return m;
}

/* h200-sxm without efficiencies or fixed costs: predictions are floors. */
static const struct ridge_gpu *floor_gpu(void)
{
	static struct ridge_gpu gpu;
	gpu = *test_gpu("h200-sxm");
	memset(gpu.timing, 0, sizeof gpu.timing);
	gpu.has_kernel_fixed_cost = gpu.has_gemm_fixed_cost = false;
	gpu.has_framework_overhead = false; /* eager: launch.overhead */
	gpu.has_sustained_matrix = false;   /* no power limit */
	return &gpu;
}

static struct ridge_serve_request request(const struct ridge_workload_model *m, const struct ridge_gpu *gpu)
{
	struct ridge_serve_request r = { 0 };
	r.model = m;
	r.gpu = gpu;
	r.phase = RIDGE_PHASE_DECODE;
	r.batch = 1;
	r.context = 2048;
	r.tp = 1;
	r.weights = (struct ridge_storage){ 2, 0, 2 };
	r.kv = (struct ridge_storage){ 2, 0, 2 };
	r.compute_dtype = RIDGE_BF16;
	r.launch = RIDGE_LAUNCH_GRAPH;
	r.price_usd_per_gpu_hour = 3.5;
	return r;
}

static struct ridge_serve_result *result(void)
{
	static struct ridge_serve_result r;
	return &r;
}

static const struct ridge_serve_kernel *kernel_named(const struct ridge_serve_result *r, const char *name)
{
	for (int i = 0; i < r->kernel_count; i++)
		if (strcmp(r->kernels[i].name, name) == 0)
			return &r->kernels[i];
	fail_msg("no kernel %s", name);
	return NULL;
}

static void test_dense_decode(void **state)
{
	(void)state;
	const struct ridge_gpu *gpu = floor_gpu();
	struct ridge_workload_model m = llama3_8b();
	struct ridge_serve_request req = request(&m, gpu);
	struct ridge_serve_result *r = result();
	char err[300];
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	/* weights read: every parameter but the 128256 x 4096 input table
	 * (8,030,261,248 - 525,336,576 = 7,504,924,672) plus the one gathered row
	 * (4096), 2 bytes each = 15,009,857,536 B */
	assert_true(r->weight_bytes == 15009857536.0);
	/* KV: 2048 tokens x 2 x 32 layers x 8 heads x 128 x 2 B = 268,435,456 B */
	assert_true(r->kv_bytes == 268435456.0);
	/* attention: 4 L H d C = 4 x 32 x 32 x 128 x 2048 = 1,073,741,824 FLOP */
	assert_true(r->attention_flops == 1073741824.0);
	/* 1 embedding + 32 layers x 15 + final norm, LM head, argmax = 484 kernels;
	 * a graph: one launch + 484 nodes */
	assert_true(r->kernels_per_step == 484);
	assert_close(r->launch_time_s, gpu->launch_overhead_s + 484 * gpu->graph_node_s, 1e-12);
	/* each prediction is its floor: the kernels' sum is the sum of floors,
	 * at least the step's floor (per-kernel floors can only add) */
	double floors = 0;
	for (int i = 0; i < r->kernel_count; i++)
		floors += r->kernels[i].count * r->kernels[i].floor_s;
	assert_close(r->kernel_time_s, floors, 1e-12);
	assert_true(r->kernel_time_s >= r->floor_s * (1 - 1e-12));
	assert_close(r->step_s, r->kernel_time_s + r->launch_time_s, 1e-15);
	assert_true(r->bound == RIDGE_BOUND_MEMORY);
	/* memory: 7,504,924,672 weights + the table 525,336,576 in bf16 minus the
	 * norms' share is stored; the cache of one request is 268,435,456 B */
	assert_true(r->kv_cache_per_gpu == 268435456.0);
	assert_true(r->fits);
	/* the driver's 143771 MiB, not the card's 141 GiB */
	assert_true(r->memory_available_per_gpu == 143771.0 * 1048576);
	assert_true(r->max_batch == floor((143771.0 * 1048576 - r->weights_stored_per_gpu) / 268435456.0));
}

/* Engines' fused projections: q/k/v one GEMM of N = 4096 + 2 x 1024 = 6144,
 * gate/up one of N = 2 x 14336 = 28672; 32 x 3 launches fewer a step; the
 * same weights read and stored, the same FLOPs. */
static void test_fused_projections(void **state)
{
	(void)state;
	const struct ridge_gpu *gpu = floor_gpu();
	struct ridge_workload_model m = llama3_8b();
	struct ridge_serve_request req = request(&m, gpu);
	struct ridge_serve_result separate, *fused = result();
	char err[300];
	assert_int_equal(serve_step(&req, &separate, err, sizeof err), 0);
	req.fused_projections = true;
	assert_int_equal(serve_step(&req, fused, err, sizeof err), 0);
	const struct ridge_serve_kernel *qkv = kernel_named(fused, "qkv_proj");
	const struct ridge_serve_kernel *gate_up = kernel_named(fused, "gate_up_proj");
	assert_true(qkv->count == 32 && gate_up->count == 32);
	/* one row through K = 4096: 2 x 6144 x 4096 FLOP; 2 x 28672 x 4096 */
	assert_true(qkv->flops == 2.0 * 6144 * 4096);
	assert_true(gate_up->flops == 2.0 * 28672 * 4096);
	for (int i = 0; i < fused->kernel_count; i++) {
		const char *name = fused->kernels[i].name;
		assert_true(strcmp(name, "q_proj") && strcmp(name, "k_proj") && strcmp(name, "v_proj") &&
			    strcmp(name, "gate_proj") && strcmp(name, "up_proj"));
	}
	assert_true(fused->kernels_per_step == separate.kernels_per_step - 32 * 3);
	assert_true(fused->weight_bytes == separate.weight_bytes);
	assert_true(fused->weights_stored_per_gpu == separate.weights_stored_per_gpu);
	assert_true(fused->flops_per_step == separate.flops_per_step);
}

static void test_kv_head_rule(void **state)
{
	(void)state;
	const struct ridge_gpu *gpu = test_gpu("h100-sxm");
	struct ridge_workload_model m = {
		.hidden = 8192, .intermediate = 28672, .layers = 80, .heads = 64, .kv_heads = 8, .vocab = 128256
	};
	char err[300];
	assert_int_equal(workload_resolve(&m, err, sizeof err), 0);
	struct ridge_serve_request req = request(&m, gpu);
	req.batch = 32;
	req.context = 32768;
	req.tp = 16;
	struct ridge_serve_result *r = result();
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	/* one whole head per GPU: 2 x 80 x 1 x 128 x 2 = 40,960 B per token per
	 * GPU; all 16 GPUs read 32 x 32768 x 40960 x 16 = 687,194,767,360 B,
	 * twice the cache's 343,597,383,680 */
	assert_true(r->kv_bytes_per_token_per_gpu == 40960);
	assert_true(r->kv_bytes == 687194767360.0);
	assert_true(r->kv_cache_per_gpu == 32.0 * 32768 * 40960);
}

static void test_moe_experts(void **state)
{
	(void)state;
	const struct ridge_gpu *gpu = floor_gpu();
	struct ridge_workload_model m = llama3_8b();
	m.vocab = 32000;
	m.experts = 8;
	m.experts_per_token = 2;
	m.expert_intermediate = 14336;
	char err[300];
	assert_int_equal(workload_resolve(&m, err, sizeof err), 0);
	struct ridge_serve_request req = request(&m, gpu);
	req.batch = 32;
	struct ridge_serve_result *r = result();
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	assert_close(r->experts_touched, 7.999196380594235, 1e-15);
	/* weights: dense part 32 x (41,943,040 attention + 8192 norms + 32,768
	 * router) = 1,343,488,000 + LM head 131,072,000 + final norm 4096 =
	 * 1,474,564,096; the
	 * experts 32 x 7.999196... x 176,160,768; 32 gathered rows of 4096; 2 B
	 * each: ~93.1 GB ("Mixtral at batch 32 reads ~93 GB") */
	double want = 2 * (1474564096.0 + 32 * 7.999196380594235 * 176160768.0 + 32 * 4096);
	assert_close(r->weight_bytes, want, 1e-14);
	/* at batch 1 only the 2 routed experts: 2 x (1,474,564,096 + 32 x 2 x 176,160,768 + 4096) */
	req.batch = 1;
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	assert_true(r->weight_bytes == 2 * (1474564096.0 + 64 * 176160768.0 + 4096));
}

static struct ridge_workload_model mixtral(void)
{
	struct ridge_workload_model m = llama3_8b();
	m.vocab = 32000;
	m.experts = 8;
	m.experts_per_token = 2;
	m.expert_intermediate = 14336;
	char err[300];
	assert_int_equal(workload_resolve(&m, err, sizeof err), 0);
	return m;
}

/* --moe-impl: Mixtral at batch 32 (64 routed rows, 7.999196... experts
 * touched, 8.0008 rows each) on the floor GPU with a 5 us GEMM fixed cost.
 * grouped: each projection is one kernel a layer (32 a step), its FLOPs the
 * sum over the experts (2 x 64 x 14336 x 4096, exactly), its bytes the
 * touched experts' weights plus the 64 rows in and out, its time the floor
 * plus ONE fixed cost. loop: 32 x 7.999... launches, each of ceil(8.0008) =
 * 9 rows and its own fixed cost. Both read the same weights. */
static void test_moe_grouped(void **state)
{
	(void)state;
	static struct ridge_gpu gpu;
	gpu = *floor_gpu();
	struct ridge_timing_terms *gemm = &gpu.timing[timing_slot(RIDGE_TIME_GEMM, RIDGE_ATTENTION_DEFAULT)];
	gemm->has_fixed_cost = true;
	gemm->fixed_cost_s = 5e-6;
	struct ridge_workload_model m = mixtral();
	struct ridge_serve_request req = request(&m, &gpu);
	req.batch = 32;
	struct ridge_serve_result *r = result();
	char err[300];
	assert_int_equal(req.moe_impl, RIDGE_MOE_GROUPED); /* the default of a zeroed request */
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	double touched = 7.999196380594235, grouped_weights = r->weight_bytes, grouped_launches = r->kernels_per_step;
	const struct ridge_serve_kernel *up = kernel_named(r, "experts.up_proj");
	assert_true(up->routed && up->moe_impl == RIDGE_MOE_GROUPED);
	assert_true(up->count == 32);
	assert_close(up->groups, touched, 1e-15);
	assert_true(up->flops == 2.0 * 64 * 14336 * 4096);
	assert_close(up->bytes, touched * 14336 * 4096 * 2 + 64 * 4096 * 2 + 64 * 14336 * 2, 1e-15);
	assert_true(up->time.fixed_cost.value == 5e-6);
	assert_close(up->predicted_s, up->floor_s + 5e-6, 1e-12); /* memory-bound, efficiencies 1 */
	/* the tiles per expert: 8.0008 rows in a 16-row tile, 112 column tiles each */
	assert_int_equal(up->time.tile_m, 16);
	assert_close(up->time.tiles, touched * 112, 1e-15);
	assert_close(kernel_named(r, "experts.down_proj")->flops, 2.0 * 64 * 4096 * 14336, 0);
	/* the activation and the combine: one kernel each over the 64 routed rows */
	assert_true(kernel_named(r, "silu-mul")->count == 32);
	assert_true(kernel_named(r, "expert-combine")->count == 32);

	req.moe_impl = RIDGE_MOE_LOOP;
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	up = kernel_named(r, "experts.up_proj");
	assert_true(up->routed && up->moe_impl == RIDGE_MOE_LOOP && up->groups == 0);
	assert_close(up->count, 32 * touched, 1e-15);
	assert_true(up->flops == 2.0 * 9 * 14336 * 4096);
	assert_close(up->predicted_s, up->floor_s + 5e-6, 1e-12);
	assert_true(kernel_named(r, "expert-index-add")->count == up->count);
	assert_close(r->weight_bytes, grouped_weights, 1e-15);
	/* 5 routed kernels a layer: gate, up, activation, down, index-add */
	assert_close(r->kernels_per_step - grouped_launches, 32 * 5 * (touched - 1), 1e-12);

	req.moe_impl = (enum ridge_moe_impl)7;
	assert_int_equal(serve_step(&req, r, err, sizeof err), -1);
	assert_non_null(strstr(err, "MoE implementation"));
	enum ridge_moe_impl impl;
	assert_true(serve_moe_impl_parse("LOOP", &impl) && impl == RIDGE_MOE_LOOP);
	assert_false(serve_moe_impl_parse("fused", &impl));
	assert_string_equal(serve_moe_impl_name(RIDGE_MOE_GROUPED), "grouped");
}

/* Eager: a grouped step issues 5 fewer launches per expert beyond the first
 * in every MoE layer, so the host-bound step is that much shorter. */
static void test_moe_grouped_eager(void **state)
{
	(void)state;
	const struct ridge_gpu *gpu = floor_gpu();
	struct ridge_workload_model m = mixtral();
	struct ridge_serve_request req = request(&m, gpu);
	req.batch = 32;
	req.launch = RIDGE_LAUNCH_EAGER;
	struct ridge_serve_result *r = result();
	char err[300];
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	double grouped = r->step_s;
	req.moe_impl = RIDGE_MOE_LOOP;
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	assert_true(r->step_s > grouped);
}

static void test_quantized_storage(void **state)
{
	(void)state;
	/* int4 with an fp16 scale per 128: 0.5 + 2/128 = 0.515625 B per weight */
	struct ridge_storage s = { 0.5, 128, 2 };
	assert_true(serve_storage_bytes(&s) == 0.515625);
	const struct ridge_gpu *gpu = floor_gpu();
	struct ridge_workload_model m = llama3_8b();
	struct ridge_serve_request req = request(&m, gpu);
	req.weights = s;
	struct ridge_serve_result *r = result();
	char err[300];
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	/* GEMM weights 7,504,658,432 at 0.515625 B; norms (65 x 4096 = 266,240)
	 * in bf16; the gathered row 4096 at 0.515625 */
	assert_close(r->weight_bytes, 7504658432.0 * 0.515625 + 266240 * 2 + 4096 * 0.515625, 1e-15);
}

static void test_prefill(void **state)
{
	(void)state;
	const struct ridge_gpu *gpu = floor_gpu();
	struct ridge_workload_model m = llama3_8b();
	struct ridge_serve_request req = request(&m, gpu);
	req.phase = RIDGE_PHASE_PREFILL;
	req.context = 2048;
	struct ridge_serve_result *r = result();
	char err[300];
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	assert_true(r->tokens == 2048);
	/* causal attention: 4 H d per unmasked pair, S (S+1) / 2 pairs, 32 layers:
	 * 4 x 32 x 128 x 2048 x 2049 / 2 x 32 = 1,100,048,498,688 FLOP */
	assert_true(r->attention_flops == 1100048498688.0);
	/* the cache written: 2048 x 131,072 B */
	assert_true(r->kv_bytes == 268435456.0);
	assert_true(r->bound == RIDGE_BOUND_COMPUTE);
}

/* --layer-ops pytorch: RoPE as five ops on q and five on k, two cache
 * writes, SiLU and the multiply apart: 11 kernels a layer more than the
 * fused list (32 x 11 = 352 a step); the ops on views are the strided class,
 * a contiguous SiLU (separate projections) the elementwise class; eager,
 * each op is a launch of its own. */
static void test_pytorch_layer_ops(void **state)
{
	(void)state;
	struct ridge_gpu gpu = *floor_gpu();
	struct ridge_workload_model m = llama3_8b();
	struct ridge_serve_request req = request(&m, &gpu);
	req.phase = RIDGE_PHASE_PREFILL;
	struct ridge_serve_result fused, *r = result();
	char err[300];
	assert_int_equal(serve_step(&req, &fused, err, sizeof err), 0);
	req.layer_ops = RIDGE_LAYER_OPS_PYTORCH;
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	assert_true(r->kernels_per_step == fused.kernels_per_step + 32 * 11);
	/* q is 2048 x 4096 elements: t * cos reads and writes it, 2 x 2 B each;
	 * neg runs over half of it; the add reads two */
	double q = 2048.0 * 4096;
	assert_true(kernel_named(r, "rope q: t * cos")->bytes == 2 * q * 2);
	assert_true(kernel_named(r, "rope q: neg")->bytes == q * 2);
	assert_true(kernel_named(r, "rope q: add")->bytes == 3 * q * 2);
	assert_true(kernel_named(r, "rope k: cat")->bytes == 2 * 2048.0 * 1024 * 2);
	assert_true(kernel_named(r, "cache write v")->bytes == 2 * 2048.0 * 1024 * 2);
	assert_int_equal(kernel_named(r, "rope k: add")->time.cls, RIDGE_TIME_ELEMENTWISE_STRIDED);
	assert_int_equal(kernel_named(r, "cache write k")->time.cls, RIDGE_TIME_ELEMENTWISE_STRIDED);
	/* separate gate and up projections: SiLU and the multiply on contiguous tensors */
	assert_int_equal(kernel_named(r, "silu")->time.cls, RIDGE_TIME_ELEMENTWISE);
	assert_true(kernel_named(r, "silu * up")->bytes == 3 * 2048.0 * 14336 * 2);
	assert_false(kernel_named(r, "rope q: t * cos")->chained);
	assert_true(kernel_named(r, "rope q: neg")->chained && kernel_named(r, "rope k: t * cos")->chained);
	req.fused_projections = true;
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	assert_int_equal(kernel_named(r, "silu")->time.cls, RIDGE_TIME_ELEMENTWISE_STRIDED);
	/* eager behind a slow host: every kernel, each op included, is a launch */
	gpu.launch_overhead_s = 1e-3;
	req.launch = RIDGE_LAUNCH_EAGER;
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	double last = r->kernels[r->kernel_count - 1].predicted_s;
	assert_close(r->step_s, r->kernels_per_step * 1e-3 + last, 1e-9);
}

/* A host loop adds its wait to the step as it is, and its measured spread to
 * the step's range; the named loop is the measured one, "none" is 0. */
static void test_host_loop(void **state)
{
	(void)state;
	struct ridge_workload_model m = llama3_8b();
	struct ridge_serve_request req = request(&m, floor_gpu());
	struct ridge_serve_result plain, *r = result();
	char err[300];
	assert_int_equal(serve_step(&req, &plain, err, sizeof err), 0);
	const struct ridge_host_loop *loop = serve_host_loop_find("hf-generate");
	assert_non_null(loop);
	assert_true(loop->seconds == 1.728e-3 && loop->range_s[0] < loop->seconds && loop->seconds < loop->range_s[1]);
	assert_true(serve_host_loop_find("none")->seconds == 0);
	assert_null(serve_host_loop_find("vllm"));
	req.host_loop_s = loop->seconds;
	req.host_loop_range_s[0] = loop->range_s[0];
	req.host_loop_range_s[1] = loop->range_s[1];
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	assert_true(r->host_loop_s == 1.728e-3);
	assert_close(r->step_s, plain.step_s + 1.728e-3, 1e-15);
	assert_close(r->step_range_s[0], plain.step_range_s[0] + 1.371e-3, 1e-15);
	assert_close(r->step_range_s[1], plain.step_range_s[1] + 2.150e-3, 1e-15);
	req.host_loop_s = -1;
	assert_int_equal(serve_step(&req, r, err, sizeof err), -1);
	assert_non_null(strstr(err, "host loop"));
}

static void test_eager_host_bound(void **state)
{
	(void)state;
	struct ridge_gpu gpu = *floor_gpu();
	gpu.launch_overhead_s = 1e-3; /* a host far slower than any kernel here */
	struct ridge_workload_model m = llama3_8b();
	struct ridge_serve_request req = request(&m, &gpu);
	req.launch = RIDGE_LAUNCH_EAGER;
	struct ridge_serve_result *r = result();
	char err[300];
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	/* host-bound: the last kernel starts after 484 launches and runs */
	double last = r->kernels[r->kernel_count - 1].predicted_s;
	assert_close(r->step_s, 484 * 1e-3 + last, 1e-12);
	/* its range carries the eager band: the 484 launches at the band's ends */
	struct ridge_time_band band;
	assert_true(timing_eager_host_band(&band) && band.low < 0 && band.high > 0);
	assert_close(r->launch_time_range_s[0], 484 * 1e-3 * (1 + band.low) + last - r->kernel_time_s, 1e-12);
	assert_close(r->launch_time_range_s[1], 484 * 1e-3 * (1 + band.high) + last - r->kernel_time_s, 1e-12);
	assert_true(r->step_range_s[1] - r->step_range_s[0] >= 484 * 1e-3 * (band.high - band.low) - 1e-12);
	/* graphs carry none */
	req.launch = RIDGE_LAUNCH_GRAPH;
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	assert_true(r->launch_time_range_s[0] == r->launch_time_s && r->launch_time_range_s[1] == r->launch_time_s);
	req.launch = RIDGE_LAUNCH_EAGER;
	/* a fast host hides behind the GPU: the step is nearly the kernels' time */
	gpu.launch_overhead_s = 1e-9;
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	assert_true(r->launch_time_s < 1e-8);
}

/* launch.framework_overhead, where the entry has it, is the eager host's
 * cost per kernel in place of launch.overhead. */
static void test_eager_framework_overhead(void **state)
{
	(void)state;
	struct ridge_gpu gpu = *floor_gpu();
	gpu.launch_overhead_s = 1e-9;
	gpu.has_framework_overhead = true;
	gpu.framework_overhead_s = 1e-3;
	assert_true(serve_eager_issue_s(&gpu) == 1e-3);
	struct ridge_workload_model m = llama3_8b();
	struct ridge_serve_request req = request(&m, &gpu);
	req.launch = RIDGE_LAUNCH_EAGER;
	struct ridge_serve_result *r = result();
	char err[300];
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	/* host-bound at 1 ms a kernel: 484 issues, then the last kernel runs */
	double last = r->kernels[r->kernel_count - 1].predicted_s;
	assert_close(r->step_s, 484 * 1e-3 + last, 1e-12);
	/* graphs do not go through the framework per kernel */
	req.launch = RIDGE_LAUNCH_GRAPH;
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	assert_close(r->launch_time_s, 1e-9 + 484 * gpu.graph_node_s, 1e-12);
}

/* The power limit: the step's compute-bound tensor-core time T beyond tau
 * runs at f of the burst rate, T -> tau + (T - tau) / f. */
static void test_power_limit(void **state)
{
	(void)state;
	struct ridge_gpu gpu = *floor_gpu();
	struct ridge_workload_model m = llama3_8b();
	struct ridge_serve_request req = request(&m, &gpu);
	req.phase = RIDGE_PHASE_PREFILL;
	req.context = 2048;
	struct ridge_serve_result *r = result();
	char err[300];
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	double burst_step = r->step_s, T = r->matrix_time_s;
	double q_burst = kernel_named(r, "q_proj")->predicted_s, norm = kernel_named(r, "rmsnorm")->predicted_s;
	/* 2048 tokens of Llama-3-8B: 29.6 TFLOP of GEMMs at 989.4 TFLOP/s, about 30 ms of it */
	assert_true(T > 0.025 && T < burst_step);
	assert_true(r->power_limit_time_s == 0);

	/* f = 1/2 from the first second (tau = 0): every compute-bound matrix
	 * kernel takes exactly twice its burst time, the rest are unchanged */
	gpu.has_sustained_matrix = true;
	gpu.sustained_matrix_fraction = 0.5;
	gpu.burst_time_s = 0;
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	assert_close(kernel_named(r, "q_proj")->predicted_s, 2 * q_burst, 1e-12);
	assert_true(kernel_named(r, "rmsnorm")->predicted_s == norm);
	assert_close(r->power_limit_time_s, T, 1e-12);
	assert_close(r->step_s, burst_step + T, 1e-12);
	/* the step says it paid the limit, and how the limit came: a fraction
	 * given in code without provenance reads as measured (as the hwdb reader
	 * takes a calibration's); a transferred one weakens the prediction */
	assert_true(r->time_sum.power_limit_seen && r->time_sum.power_limit == RIDGE_PROVENANCE_MEASURED);
	enum ridge_provenance classes = timing_sum_weakest(&r->time_sum);
	snprintf(gpu.power_provenance, sizeof gpu.power_provenance, "transferred");
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	assert_int_equal(r->time_sum.power_limit, RIDGE_PROVENANCE_TRANSFERRED);
	assert_int_equal(timing_sum_weakest(&r->time_sum),
			 classes == RIDGE_PROVENANCE_WHAT_IF || classes == RIDGE_PROVENANCE_FLOOR
				 ? classes
				 : RIDGE_PROVENANCE_TRANSFERRED);
	gpu.power_provenance[0] = '\0';

	/* tau = T / 2: the second half at half the rate, (2 - 1)(T - T/2) = T/2 more */
	gpu.burst_time_s = T / 2;
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	assert_close(kernel_named(r, "q_proj")->predicted_s, 1.5 * q_burst, 1e-12);
	assert_close(r->step_s, burst_step + T / 2, 1e-12);

	/* a step shorter than tau runs at the burst rate; a decode step's
	 * memory-bound GEMMs have no compute-bound matrix time at all */
	gpu.burst_time_s = 2 * T;
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	assert_true(r->step_s == burst_step);
	assert_false(r->time_sum.power_limit_seen); /* not paid, not named */
	gpu.burst_time_s = 0;
	req = request(&m, &gpu);
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	assert_true(r->matrix_time_s == 0 && r->power_limit_time_s == 0);
}

/* repeat-kv (transformers over a static cache): the K and V copies and the
 * masked attention over them priced as one kernel. Llama-3-8B at batch 2,
 * cache 4096: per layer K+V are 2 x 8 x 128 x 2 B = 4096 B a token, 32 MiB
 * at 2 x 4096 tokens; the copies read them and write 4x (32/8 heads), the
 * attention reads the 4x again: 32 MiB x (1 + 2 x 4) = 288 MiB, plus q and
 * o (2 x 32 x 128 x 2 B each = 16 KiB). At the timing slot's memory
 * efficiency 0.5 on 4.8 TB/s with 20 us fixed: 20 us + 302,006,272 B / 2.4 TB/s. */
static void test_decode_repeat_kv(void **state)
{
	(void)state;
	struct ridge_gpu gpu = *floor_gpu();
	struct ridge_timing_terms *t = &gpu.timing[RIDGE_SLOT_ATTENTION_REPEAT_KV];
	t->has_memory_efficiency = true;
	t->memory_efficiency = 0.5;
	t->has_fixed_cost = true;
	t->fixed_cost_s = 20e-6;
	struct ridge_workload_model m = llama3_8b();
	struct ridge_serve_request req = request(&m, &gpu);
	req.batch = 2;
	req.context = 4096;
	req.timing.impl = RIDGE_ATTENTION_REPEAT_KV;
	struct ridge_serve_result *r = result();
	char err[300];
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	const struct ridge_serve_kernel *a = kernel_named(r, "attention");
	assert_int_equal(a->time.impl, RIDGE_ATTENTION_REPEAT_KV);
	double bytes = 9.0 * 2 * 4096 * 4096 + 2 * 16384;
	assert_close(a->bytes, bytes, 1e-9);
	assert_close(a->predicted_s, 20e-6 + bytes / (0.5 * gpu.memory_bandwidth), 1e-12);
	/* the cache itself is read once, as with split-kv */
	assert_close(r->kv_bytes, 32.0 * 2 * 4096 * 4096, 1e-9);
	/* compiled (repeat-kv-fused): the same bytes at its own slot's terms */
	struct ridge_timing_terms *f = &gpu.timing[RIDGE_SLOT_ATTENTION_REPEAT_KV_FUSED];
	f->has_memory_efficiency = true;
	f->memory_efficiency = 0.8;
	f->has_fixed_cost = true;
	f->fixed_cost_s = 5e-6;
	req.timing.impl = RIDGE_ATTENTION_REPEAT_KV_FUSED;
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	a = kernel_named(r, "attention");
	assert_int_equal(a->time.impl, RIDGE_ATTENTION_REPEAT_KV_FUSED);
	assert_close(a->bytes, bytes, 1e-9);
	assert_close(a->predicted_s, 5e-6 + bytes / (0.8 * gpu.memory_bandwidth), 1e-12);
	req.timing.impl = RIDGE_ATTENTION_REPEAT_KV;
	/* no copy where every query head has its own KV head */
	m.kv_heads = m.heads;
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	a = kernel_named(r, "attention");
	assert_close(a->bytes, 2.0 * 4096 * (2 * 32 * 128 * 2) + 2 * 16384, 1e-9);
}

/* Per-head decode attention with fewer (request, KV head) units than SMs:
 * one CTA streams its unit's cache at timing.attention_per_head.cta_bandwidth.
 * split-kv, the default for decode, fills the GPU and has no such limit. */
static void test_decode_stream_limit(void **state)
{
	(void)state;
	struct ridge_gpu gpu = *floor_gpu();
	struct ridge_timing_terms *t = &gpu.timing[RIDGE_SLOT_ATTENTION_PER_HEAD];
	t->has_cta_bandwidth = true;
	t->cta_bandwidth = 1e10;
	struct ridge_workload_model m = llama3_8b();
	struct ridge_serve_request req = request(&m, &gpu);
	req.context = 8192;
	struct ridge_serve_result *r = result();
	char err[300];
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	assert_false(kernel_named(r, "attention")->stream_bound); /* split-kv */
	assert_int_equal(kernel_named(r, "attention")->time.impl, RIDGE_ATTENTION_SPLIT_KV);
	req.timing.impl = RIDGE_ATTENTION_PER_HEAD;
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	/* batch 1 x 8 KV heads = 8 units, one wave; a unit's cache per layer:
	 * 8192 tokens x (K and V: 2 x 128) x 2 B = 4,194,304 B at 10 GB/s */
	const struct ridge_serve_kernel *a = kernel_named(r, "attention");
	assert_true(a->stream_bound);
	assert_close(a->predicted_s, 4194304 / 1e10, 1e-12);
	/* batch 32: 256 units on 132 SMs, 2 waves of the same stream; the
	 * memory term (1.07 GB at 4.8 TB/s, 224 us) is shorter */
	req.batch = 32;
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	a = kernel_named(r, "attention");
	assert_close(a->predicted_s, 2 * 4194304 / 1e10, 1e-12);
	/* batch 132 x 8 = 1056 units: 8 waves of 419 us = 3.36 ms against the
	 * HBM term of 4.43 GB at 4.8 TB/s = 0.92 ms: still the stream; at a
	 * CTA rate of 1 TB/s the HBM ceiling binds again */
	t->cta_bandwidth = 1e12;
	req.batch = 132;
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	a = kernel_named(r, "attention");
	assert_false(a->stream_bound);
	/* without the key: the kernel's own term */
	t->has_cta_bandwidth = false;
	req.batch = 1;
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	assert_false(kernel_named(r, "attention")->stream_bound);
	assert_true(kernel_named(r, "attention")->predicted_s < 4194304 / 1e10 / 10);
}

static void test_bad_requests(void **state)
{
	(void)state;
	const struct ridge_gpu *gpu = floor_gpu();
	struct ridge_workload_model m = llama3_8b();
	struct ridge_serve_request req = request(&m, gpu);
	struct ridge_serve_result *r = result();
	char err[300];
	req.batch = 0;
	assert_int_equal(serve_step(&req, r, err, sizeof err), -1);
	assert_non_null(strstr(err, "batch"));
	req = request(&m, gpu);
	req.tp = 1.5;
	assert_int_equal(serve_step(&req, r, err, sizeof err), -1);
	req = request(&m, gpu);
	req.weights.bytes = 0;
	assert_int_equal(serve_step(&req, r, err, sizeof err), -1);
	assert_non_null(strstr(err, "weight storage"));
}

/* Gemma 2 (9B): 21 local layers (window 4096) + 21 global ones. At batch 32
 * and context 8192 the cache read is 32 x (21 x 8192 + 21 x 4096) tokens x
 * 2 x 8 KV heads x 256 x 2 B = 67,645,734,912 B (the issue's 67.65 GB; all
 * local would be half the global part: 45.1 GB). The two attention kernels
 * keep one launch a layer; the memory holds the same cached tokens. */
static void test_layer_plan_decode(void **state)
{
	(void)state;
	const struct ridge_gpu *gpu = floor_gpu();
	struct ridge_workload_model m = { .hidden = 3584,
					  .intermediate = 14336,
					  .layers = 42,
					  .heads = 16,
					  .kv_heads = 8,
					  .head_dim = 256,
					  .vocab = 256000,
					  .tied_embeddings = true,
					  .sliding_window = 4096,
					  .local_layers = 21 };
	char err[300];
	assert_int_equal(workload_resolve(&m, err, sizeof err), 0);
	struct ridge_serve_request req = request(&m, gpu);
	req.batch = 32;
	req.context = 8192;
	struct ridge_serve_result *r = result();
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	assert_true(r->kv_bytes == 67645734912.0);
	assert_true(kernel_named(r, "attention (global)")->count == 21);
	assert_true(kernel_named(r, "attention (window 4096)")->count == 21);
	assert_true(r->kv_cache_per_gpu == 67645734912.0);
	/* a graph: one node per layer for attention, as without a plan */
	struct ridge_workload_model full = m;
	full.sliding_window = full.local_layers = 0;
	struct ridge_serve_result plain;
	struct ridge_serve_request req_full = request(&full, gpu);
	req_full.batch = 32;
	req_full.context = 8192;
	assert_int_equal(serve_step(&req_full, &plain, err, sizeof err), 0);
	assert_true(plain.kernels_per_step == r->kernels_per_step);
	assert_true(plain.kv_bytes == 2 * 21 * 32 * 8192.0 * 8192);
	/* chunked (Llama 4 style): at context 10000 a chunk of 8192 holds
	 * ((10000 - 1) mod 8192) + 1 = 1808 tokens for the decode query */
	struct ridge_workload_model chunked = m;
	chunked.sliding_window = 8192;
	chunked.chunked_attention = true;
	struct ridge_serve_request req_c = request(&chunked, gpu);
	req_c.context = 10000;
	assert_int_equal(serve_step(&req_c, r, err, sizeof err), 0);
	assert_true(r->kv_bytes == (21 * 10000.0 + 21 * 1808.0) * 8192);
}

/* gpt-oss-style storage groups: experts in MXFP4 (0.5 B + 1 B per 32), the
 * rest bf16. Two layers of 4 experts (top 1, batch 1), hidden 64, expert
 * width 32, vocab 100, no window: the weights read are the dense ones in
 * bf16 plus one expert's 3 x 64 x 32 in 0.53125 B each. */
static void test_storage_groups(void **state)
{
	(void)state;
	const struct ridge_gpu *gpu = floor_gpu();
	struct ridge_workload_model m = { .hidden = 64,
					  .intermediate = 32,
					  .layers = 2,
					  .heads = 4,
					  .kv_heads = 4,
					  .vocab = 100,
					  .experts = 4,
					  .experts_per_token = 1,
					  .expert_intermediate = 32 };
	char err[300];
	assert_int_equal(workload_resolve(&m, err, sizeof err), 0);
	struct ridge_serve_request req = request(&m, gpu);
	struct ridge_serve_result *r = result();
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	double bf16_weights = r->weight_bytes;
	req.expert_weights = (struct ridge_storage){ 0.5, 32, 1 };
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	/* per layer one expert (batch 1, top 1): 3 x 64 x 32 = 6144 weights, 2
	 * layers: 12,288 weights, from 2 B to 0.53125 B each */
	assert_true(fabs(bf16_weights - r->weight_bytes - 12288 * (2 - 0.53125)) < 1e-6);
	/* stored: all 4 experts x 2 layers = 49,152 weights at 0.53125 B */
	req.expert_weights = (struct ridge_storage){ 0 };
	struct ridge_serve_result plain;
	assert_int_equal(serve_step(&req, &plain, err, sizeof err), 0);
	req.expert_weights = (struct ridge_storage){ 0.5, 32, 1 };
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	assert_true(fabs(plain.weights_stored_per_gpu - r->weights_stored_per_gpu - 49152 * (2 - 0.53125)) < 1e-6);
}

/* fp8 decode at a batch that is not a multiple of 16 (100): the GEMMs stay
 * on tensor cores (cuBLAS TN with n = 100: ridge align's rule passes it; a
 * shape it does not is padded), never on the vector units (fp8 has no
 * vector rate: priced there in fp32 it was 10x the floor of batch 96).
 * bf16 at batch 1 keeps the GEMV path on the vector units. */
static void test_fp8_token_padding(void **state)
{
	(void)state;
	const struct ridge_gpu *gpu = floor_gpu();
	struct ridge_workload_model m = llama3_8b();
	struct ridge_serve_request req = request(&m, gpu);
	req.weights = (struct ridge_storage){ 1, 0, 0 };
	req.compute_dtype = RIDGE_FP8;
	req.batch = 100;
	struct ridge_serve_result *r = result();
	char err[300];
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	const struct ridge_serve_kernel *q = kernel_named(r, "q_proj");
	assert_true(q->time.path.uses_matrix);
	double at_100 = q->floor_s;
	req.batch = 96;
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	assert_true(at_100 < 1.1 * kernel_named(r, "q_proj")->floor_s);
	req = request(&m, gpu);
	assert_int_equal(serve_step(&req, r, err, sizeof err), 0);
	assert_false(kernel_named(r, "q_proj")->time.path.uses_matrix);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dense_decode),      cmocka_unit_test(test_fused_projections),
		cmocka_unit_test(test_kv_head_rule),      cmocka_unit_test(test_moe_experts),
		cmocka_unit_test(test_moe_grouped),       cmocka_unit_test(test_moe_grouped_eager),
		cmocka_unit_test(test_quantized_storage), cmocka_unit_test(test_prefill),
		cmocka_unit_test(test_pytorch_layer_ops), cmocka_unit_test(test_host_loop),
		cmocka_unit_test(test_eager_host_bound),  cmocka_unit_test(test_eager_framework_overhead),
		cmocka_unit_test(test_power_limit),       cmocka_unit_test(test_decode_stream_limit),
		cmocka_unit_test(test_decode_repeat_kv),  cmocka_unit_test(test_bad_requests),
		cmocka_unit_test(test_layer_plan_decode), cmocka_unit_test(test_storage_groups),
		cmocka_unit_test(test_fp8_token_padding),
	};
	return cmocka_run_group_tests_name("serve", tests, NULL, NULL);
}
