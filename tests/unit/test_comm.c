/* The communication model (model/comm.h): each collective's bus factor,
 * alpha and beta worked by hand on fabrics built here, so a change of hwdb
 * data cannot move them. Conventions: nccl-tests doc/PERFORMANCE.md (bus
 * factors), NCCL src/graph/tuning.cc (steps, base and step latencies). */
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An HGX-H100-like switch: 450 GB/s each way, 8 GPUs, NVLS, published
 * 370 GB/s ring and 480 GB/s NVLS bus bandwidth, NCCL's 6.6 us + 0.6 us/step. */
static struct ridge_gpu switch_gpu(void)
{
	struct ridge_gpu g = { 0 };
	snprintf(g.id, sizeof g.id, "test-switch");
	struct ridge_interconnect *ic = &g.ic;
	ic->has_fabric = true;
	ic->topology = RIDGE_TOPOLOGY_SWITCH;
	ic->per_direction = 450e9;
	ic->peer_bandwidth = 450e9;
	ic->domain_gpus = 8;
	ic->nvls = true;
	ic->latency = 0.6e-6;
	ic->base_latency = 6.6e-6;
	ic->has_bus_bandwidth = true;
	ic->bus_bandwidth = 370e9;
	ic->has_nvls_bus_bandwidth = true;
	ic->nvls_bus_bandwidth = 480e9;
	ic->pcie_bandwidth = 64e9;
	return g;
}

/* An MI300X-like full mesh: 7 links of 64 GB/s each way, RCCL's 20.5 + 2.3 us/step. */
static struct ridge_gpu mesh_gpu(void)
{
	struct ridge_gpu g = { 0 };
	snprintf(g.id, sizeof g.id, "test-mesh");
	struct ridge_interconnect *ic = &g.ic;
	ic->has_fabric = true;
	ic->topology = RIDGE_TOPOLOGY_MESH;
	ic->per_direction = 448e9;
	ic->peer_bandwidth = 64e9;
	ic->domain_gpus = 8;
	ic->latency = 2.3e-6;
	ic->base_latency = 20.5e-6;
	ic->pcie_bandwidth = 64e9;
	return g;
}

static struct ridge_comm_result run(const struct ridge_gpu *g, enum ridge_collective op, double n, double bytes,
				    enum ridge_comm_algorithm algorithm, double network)
{
	struct ridge_comm_input in = { op, n, bytes, algorithm, network, RIDGE_COMM_LAUNCH_DEVICE, 0 };
	struct ridge_comm_result r;
	char err[300];
	if (comm_collective(g, &in, &r, err, sizeof err) != 0)
		fail_msg("unexpected error: %s", err);
	return r;
}

static void test_ring_all_reduce(void **state)
{
	(void)state;
	struct ridge_gpu g = switch_gpu();
	/* 64 MiB = 67,108,864 B on 8 GPUs: bus factor 2 x 7 / 8 = 1.75, 117,440,512 B per GPU;
	 * alpha = 6.6 us + 2 x 7 = 14 steps x 0.6 us = 15.0 us;
	 * time = 15 us + 117,440,512 / 370e9 = 15 us + 317.4068 us = 332.4068 us. */
	struct ridge_comm_result r = run(&g, RIDGE_ALL_REDUCE, 8, 67108864, RIDGE_ALGO_RING, 0);
	assert_true(r.bus_factor == 1.75);
	assert_true(r.bus_bytes == 117440512);
	assert_true(r.intra_steps == 14 && r.inter_steps == 0);
	assert_close(r.alpha_s, 15.0e-6, 1e-12);
	assert_close(r.time_s, 332.4068e-6, 1e-7);
	assert_close(r.beta_s_per_byte, 1.75 / 370e9, 1e-15);
	assert_string_equal(r.bandwidth_source, "published");
	/* busbw = bus bytes / time: below 370 GB/s by the latency share */
	assert_close(r.busbw, 117440512 / 332.4068e-6, 1e-7);
}

static void test_nvls_and_auto(void **state)
{
	(void)state;
	struct ridge_gpu g = switch_gpu(), mesh = mesh_gpu();
	/* NVLS: alpha = NCCL's 25 us; 117,440,512 / 480e9 = 244.6677 us; 269.6677 us: faster than the ring's 332 us. */
	struct ridge_comm_result r = run(&g, RIDGE_ALL_REDUCE, 8, 67108864, RIDGE_ALGO_AUTO, 0);
	assert_int_equal(r.algorithm, RIDGE_ALGO_NVLS);
	assert_close(r.alpha_s, 25e-6, 1e-12);
	assert_close(r.time_s, 269.6677e-6, 1e-6);
	/* 8 bytes: the ring's 15 us latency beats NVLS's 25 us */
	r = run(&g, RIDGE_ALL_REDUCE, 8, 8, RIDGE_ALGO_AUTO, 0);
	assert_int_equal(r.algorithm, RIDGE_ALGO_RING);
	assert_close(r.time_s, 15e-6 + 14.0 / 370e9, 1e-12);
	/* the crossover M*: 15 us + 1.75 M / 370e9 = 25 us + 1.75 M / 480e9 -> M* = 10 us / (1.75 x 110 / 177600e9)
	 * = 9,225,974 B: 8 MiB (8,388,608) stays on the ring, 16 MiB goes to NVLS */
	assert_int_equal(run(&g, RIDGE_ALL_REDUCE, 8, 8388608, RIDGE_ALGO_AUTO, 0).algorithm, RIDGE_ALGO_RING);
	assert_int_equal(run(&g, RIDGE_ALL_REDUCE, 8, 16777216, RIDGE_ALGO_AUTO, 0).algorithm, RIDGE_ALGO_NVLS);
	/* NVLS by GPU count: bus bandwidth 480 x ((n-1)/(n+1)) / (7/9): 4 GPUs 480 x 27/35 = 370.2857 GB/s,
	 * 2 GPUs 480 x 9/21 = 205.714 GB/s (the ring's 370 wins there at any size) */
	assert_close(comm_nvls_bus_bandwidth(&g.ic, 4), 480e9 * 27 / 35, 1e-12);
	assert_close(comm_nvls_bus_bandwidth(&g.ic, 2), 480e9 * 9 / 21, 1e-12);
	assert_close(run(&g, RIDGE_ALL_REDUCE, 4, 1e9, RIDGE_ALGO_NVLS, 0).bus_bandwidth, 480e9 * 27 / 35, 1e-12);
	assert_int_equal(run(&g, RIDGE_ALL_REDUCE, 2, 1e10, RIDGE_ALGO_AUTO, 0).algorithm, RIDGE_ALGO_RING);
	assert_close(comm_nvls_bus_bandwidth(&mesh.ic, 8), 0, 0);
}

static void test_gather_scatter_factors(void **state)
{
	(void)state;
	struct ridge_gpu g = switch_gpu();
	/* 4 GPUs, 1 GB: (N-1)/N = 0.75, 3 ring steps: alpha = 6.6 + 3 x 0.6 = 8.4 us; 0.75e9 / 370e9 = 2.027027 ms */
	static const enum ridge_collective ops[] = { RIDGE_ALL_GATHER, RIDGE_REDUCE_SCATTER };
	for (int i = 0; i < 2; i++) {
		struct ridge_comm_result r = run(&g, ops[i], 4, 1e9, RIDGE_ALGO_AUTO, 0);
		assert_int_equal(r.algorithm, RIDGE_ALGO_RING);
		assert_true(r.bus_factor == 0.75);
		assert_true(r.intra_steps == 3);
		assert_close(r.alpha_s, 8.4e-6, 1e-12);
		assert_close(r.time_s, 8.4e-6 + 2.027027027e-3, 1e-9);
	}
	/* all-to-all: the same factor, direct exchange with 3 peers */
	struct ridge_comm_result r = run(&g, RIDGE_ALL_TO_ALL, 4, 1e9, RIDGE_ALGO_AUTO, 0);
	assert_int_equal(r.algorithm, RIDGE_ALGO_DIRECT);
	assert_true(r.bus_factor == 0.75 && r.intra_steps == 3);
	/* send-recv: factor 1, one step: 6.6 + 0.6 = 7.2 us + 1e9 / 370e9 */
	r = run(&g, RIDGE_SEND_RECV, 2, 1e9, RIDGE_ALGO_AUTO, 0);
	assert_true(r.bus_factor == 1 && r.intra_steps == 1);
	assert_close(r.time_s, 7.2e-6 + 1e9 / 370e9, 1e-12);
}

static void test_mesh_peer_vs_aggregate(void **state)
{
	(void)state;
	struct ridge_gpu g = mesh_gpu();
	/* 8 GPUs: 7 peers x 64 = 448 GB/s = the aggregate; x 370/450 = 368.35556 GB/s derived */
	struct ridge_comm_result r = run(&g, RIDGE_ALL_REDUCE, 8, 1e9, RIDGE_ALGO_AUTO, 0);
	assert_close(r.link_bandwidth, 448e9, 1e-15);
	assert_close(r.bus_bandwidth, 448e9 * 370 / 450, 1e-15);
	assert_string_equal(r.bandwidth_source, "derived");
	/* alpha: 20.5 + 14 x 2.3 = 52.7 us */
	assert_close(r.alpha_s, 52.7e-6, 1e-12);
	/* 4 GPUs see only 3 of the 7 links: 192 GB/s */
	r = run(&g, RIDGE_ALL_TO_ALL, 4, 1e9, RIDGE_ALGO_AUTO, 0);
	assert_close(r.link_bandwidth, 192e9, 1e-15);
	assert_close(r.alpha_s, 20.5e-6 + 3 * 2.3e-6, 1e-12);
	/* one pair: one link, 64 GB/s, 1/7 of the aggregate */
	r = run(&g, RIDGE_SEND_RECV, 2, 1e9, RIDGE_ALGO_AUTO, 0);
	assert_close(r.link_bandwidth, 64e9, 1e-15);
	assert_close(r.time_s, 20.5e-6 + 2.3e-6 + 1e9 / (64e9 * 370 / 450), 1e-12);
	/* no NVLS on a mesh */
	struct ridge_comm_input in = { RIDGE_ALL_REDUCE, 8, 1e9, RIDGE_ALGO_NVLS, 0, RIDGE_COMM_LAUNCH_DEVICE, 0 };
	char err[300];
	assert_int_equal(comm_collective(&g, &in, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "NVLink SHARP"));
}

static void test_across_domains(void **state)
{
	(void)state;
	struct ridge_gpu g = switch_gpu();
	/* 16 GPUs = 2 domains of 8, 50 GB/s network per GPU: ring all-reduce 2 x 15 = 30 steps, 2 of them
	 * between domains: alpha = 6.6 + 28 x 0.6 + 2 x 2.7 = 28.8 us. Each channel's ring leaves a node once,
	 * so the node's 8 NICs carry the bus bytes together: min(370, 8 x 50 x 47/50 = 376) = 370, NVLink-bound */
	struct ridge_comm_result r = run(&g, RIDGE_ALL_REDUCE, 16, 1e9, RIDGE_ALGO_RING, 50e9);
	assert_true(r.domains == 2 && r.intra_steps == 28 && r.inter_steps == 2);
	assert_close(r.alpha_s, 28.8e-6, 1e-12);
	assert_close(r.bus_bandwidth, 370e9, 1e-15);
	assert_string_equal(r.path, "NVSwitch");
	assert_true(r.bus_factor == 2 * 15.0 / 16);
	/* 25 GB/s per GPU: the NICs bind, 8 x 25 x 0.94 = 188 GB/s */
	r = run(&g, RIDGE_ALL_REDUCE, 16, 1e9, RIDGE_ALGO_RING, 25e9);
	assert_close(r.bus_bandwidth, 188e9, 1e-15);
	assert_string_equal(r.path, "network");
	/* tree, hierarchical (NVLSTree): NCCL's NVLSTree latency, 25 us inside the node + 2 log2(2) = 2 network
	 * steps of 20.9 us (Simple) = 66.8 us; inside the node NVLS all-reduce, 1.75 / 480e9 s per byte; between
	 * 2 nodes the tree moves M once over the node's 376 GB/s: 1 / 376e9 per byte; the node is slower: bus
	 * bandwidth 1.875 / (1.75 / 480e9) = 514.29 GB/s */
	r = run(&g, RIDGE_ALL_REDUCE, 16, 1e9, RIDGE_ALGO_TREE, 50e9);
	assert_close(r.alpha_s, 66.8e-6, 1e-12);
	assert_true(r.intra_steps == 0 && r.inter_steps == 2 && r.inter_nics == 8);
	assert_close(r.intra_s_per_byte, 1.75 / 480e9, 1e-15);
	assert_close(r.inter_s_per_byte, 1 / 376e9, 1e-15);
	assert_close(r.bus_bandwidth, 1.875 * 480e9 / 1.75, 1e-12);
	assert_string_equal(r.path, "NVLS + network tree");
	/* without NVLS the tree is NCCL's Tree: 2 (8-1) = 14 NVLink steps + 2 network steps of the LL protocol,
	 * 6.6 + 14 x 0.6 + 2 x 2.7 = 20.4 us; inside the node the ring's 370 GB/s */
	struct ridge_gpu plain = g;
	plain.ic.nvls = false;
	plain.ic.has_nvls_bus_bandwidth = false;
	r = run(&plain, RIDGE_ALL_REDUCE, 16, 1e9, RIDGE_ALGO_TREE, 50e9);
	assert_close(r.alpha_s, 20.4e-6, 1e-12);
	assert_close(r.intra_s_per_byte, 1.75 / 370e9, 1e-15);
	assert_string_equal(r.path, "NVLink + network tree");
	/* auto on 16 GiB: the tree (NCCL's NVLSTree on two nodes) */
	assert_int_equal(run(&g, RIDGE_ALL_REDUCE, 16, 17179869184.0, RIDGE_ALGO_AUTO, 50e9).algorithm,
			 RIDGE_ALGO_TREE);
	/* 4 nodes: the busiest tree node carries 2 M, 2 / 376e9 per byte, slower than the ring's 1.9375 / 370e9:
	 * auto takes the ring */
	r = run(&g, RIDGE_ALL_REDUCE, 32, 1e9, RIDGE_ALGO_TREE, 50e9);
	assert_close(r.inter_s_per_byte, 2 / 376e9, 1e-15);
	assert_close(r.bus_bandwidth, 1.9375 * 376e9 / 2, 1e-12);
	assert_int_equal(run(&g, RIDGE_ALL_REDUCE, 32, 17179869184.0, RIDGE_ALGO_AUTO, 50e9).algorithm,
			 RIDGE_ALGO_RING);
	/* no network bandwidth: refused, naming what is missing */
	struct ridge_comm_input in = { RIDGE_ALL_REDUCE, 16, 1e9, RIDGE_ALGO_AUTO, 0, RIDGE_COMM_LAUNCH_DEVICE, 0 };
	char err[300];
	assert_int_equal(comm_collective(&g, &in, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "network bandwidth"));
}

static void test_calibration(void **state)
{
	(void)state;
	struct ridge_gpu g = switch_gpu();
	g.ic.measured[RIDGE_ALL_REDUCE] = (struct ridge_collective_measured){ true, true, 400e9, 30e-6 };
	g.ic.measured_gpus = 8;
	/* measured on 8 GPUs: alpha and beta both measured: 30 us + 1.75e9 / 400e9 */
	struct ridge_comm_result r = run(&g, RIDGE_ALL_REDUCE, 8, 1e9, RIDGE_ALGO_AUTO, 0);
	assert_string_equal(r.bandwidth_source, "measured");
	assert_string_equal(r.latency_source, "measured");
	assert_close(r.time_s, 30e-6 + 1.75e9 / 400e9, 1e-12);
	/* on 4 GPUs: the measured bus bandwidth, the model's alpha (6.6 + 6 x 0.6 = 10.2 us) */
	r = run(&g, RIDGE_ALL_REDUCE, 4, 1e9, RIDGE_ALGO_AUTO, 0);
	assert_string_equal(r.latency_source, "NCCL/RCCL tuning model, hwdb");
	assert_close(r.time_s, 10.2e-6 + 1.5e9 / 400e9, 1e-12);
}

static void test_parallel_terms(void **state)
{
	(void)state;
	struct ridge_gpu g = switch_gpu();
	struct ridge_tp_comm tp;
	char err[300];
	/* decode, batch 32, hidden 8192, bf16, 80 layers, TP 8: 32 x 8192 x 2 = 524,288 B per all-reduce, 160 of them */
	assert_int_equal(
		comm_tensor_parallel_decode(&g, 8, 32, 8192, 2, 80, 0, RIDGE_COMM_LAUNCH_DEVICE, &tp, err, sizeof err),
		0);
	assert_true(tp.bytes_per_allreduce == 524288 && tp.allreduces == 160);
	/* 512 KiB is under the NVLS crossover (9.2 MB): ring, 15 us + 1.75 x 524288 / 370e9 = 17.47973 us */
	assert_int_equal(tp.one.algorithm, RIDGE_ALGO_RING);
	assert_close(tp.one.time_s, 15e-6 + 917504.0 / 370e9, 1e-12);
	assert_close(tp.time_s, 160 * (15e-6 + 917504.0 / 370e9), 1e-12);

	/* expert parallel: 256 tokens x top-2 x 4096 x 2 B = 4 MiB per all-to-all, 2 per MoE layer */
	struct ridge_ep_comm ep;
	assert_int_equal(
		comm_expert_parallel(&g, 8, 256, 2, 4096, 2, 32, 0, RIDGE_COMM_LAUNCH_DEVICE, &ep, err, sizeof err), 0);
	assert_true(ep.bytes_per_alltoall == 4194304 && ep.alltoalls == 64);
	assert_true(ep.one.bus_factor == 7.0 / 8);

	/* pipeline: 4 stages, 8 micro-batches: bubble 3 / 11; 2 passes x (8 + 2) = 20 hand-offs */
	struct ridge_pp_comm pp;
	assert_int_equal(
		comm_pipeline_parallel(&g, 4, 8, 4096, 8192, 2, 2, 0, RIDGE_COMM_LAUNCH_DEVICE, &pp, err, sizeof err),
		0);
	assert_close(pp.bubble_fraction, 3.0 / 11, 1e-15);
	assert_true(pp.transfers == 20 && pp.bytes_per_transfer == 4096.0 * 8192 * 2);
	assert_close(pp.time_s, 20 * (7.2e-6 + 67108864.0 / 370e9), 1e-12);
}

static void test_bad_inputs(void **state)
{
	(void)state;
	struct ridge_gpu g = switch_gpu();
	struct ridge_comm_result r;
	char err[300];
	static const struct {
		enum ridge_collective op;
		double n, bytes;
		enum ridge_comm_algorithm algorithm;
		const char *reason;
	} cases[] = {
		{ RIDGE_ALL_REDUCE, 0, 1, RIDGE_ALGO_AUTO, "whole number" },
		{ RIDGE_ALL_REDUCE, 2.5, 1, RIDGE_ALGO_AUTO, "whole number" },
		{ RIDGE_ALL_REDUCE, 8, -1, RIDGE_ALGO_AUTO, "0 or more" },
		{ RIDGE_ALL_REDUCE, 8, NAN, RIDGE_ALGO_AUTO, "0 or more" },
		{ RIDGE_SEND_RECV, 1, 1, RIDGE_ALGO_AUTO, "needs 2 GPUs" },
		{ RIDGE_ALL_GATHER, 8, 1, RIDGE_ALGO_TREE, "all-reduce algorithm" },
		{ RIDGE_ALL_TO_ALL, 8, 1, RIDGE_ALGO_RING, "direct exchanges" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ridge_comm_input in = {
			cases[i].op, cases[i].n, cases[i].bytes, cases[i].algorithm, 0, RIDGE_COMM_LAUNCH_DEVICE, 0
		};
		if (comm_collective(&g, &in, &r, err, sizeof err) != -1)
			fail_msg("case %zu accepted", i);
		if (!strstr(err, cases[i].reason))
			fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].reason);
	}
	struct ridge_gpu none = { 0 };
	struct ridge_comm_input in = { RIDGE_ALL_REDUCE, 8, 1, RIDGE_ALGO_AUTO, 0, RIDGE_COMM_LAUNCH_DEVICE, 0 };
	assert_int_equal(comm_collective(&none, &in, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "no interconnect fabric"));
	/* one GPU communicates nothing */
	in.gpus = 1;
	assert_int_equal(comm_collective(&g, &in, &r, err, sizeof err), 0);
	assert_true(r.time_s == 0 && r.algorithm == RIDGE_ALGO_NONE);
}

static void test_hwdb_entries(void **state)
{
	(void)state;
	/* Every built-in entry has a fabric, and MI300X's one pair sees 1/7 of its aggregate. */
	static const char *const ids[] = { "h100-sxm",      "h100-pcie",      "h200-sxm", "b200",
					   "a100-sxm-80gb", "a100-pcie-40gb", "l40s",     "l4",
					   "rtx-4090",      "v100-sxm2",      "mi300x",   "mi325x",
					   "mi250x",        "mi210",          "t4",       "a10",
					   "rtx-5090",      "gb200" };
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
		if (!test_gpu(ids[i])->ic.has_fabric)
			fail_msg("%s has no interconnect fabric", ids[i]);
	const struct ridge_gpu *mi = test_gpu("mi300x");
	assert_close(mi->ic.per_direction / mi->ic.peer_bandwidth, 7, 1e-15);
	assert_true(test_gpu("h100-sxm")->ic.nvls && !test_gpu("a100-sxm-80gb")->ic.nvls);
}

static void test_parallel_train(void **state)
{
	(void)state;
	struct ridge_gpu g = switch_gpu();
	/* 8e9 parameters, seq 1024, batch 64 on 16 GPUs: TP 2 x PP 2 x DP 4, micro-batches of 2 sequences:
	 * 64 / 4 = 16 sequences per pipeline = 8 micro-batches. F = 6 x 8e9 x 1024 x 64 = 3.145728e15 FLOP. */
	struct ridge_parallel_input in = {
		.params = 8e9,
		.seq = 1024,
		.batch = 64,
		.gpus = 16,
		.flops_per_step = 3.145728e15,
		.peak_flops = 1e15,
		.compute_efficiency = 0.5,
		.tp = 2,
		.pp = 2,
		.micro_batch = 2,
		.hidden = 4096,
		.layers = 32,
		.sharding = RIDGE_SHARD_DDP,
		.recompute = RIDGE_RECOMPUTE_SELECTIVE,
		.dp_overlap = 0.5,
		.memory_bytes = 80e9,
	};
	struct ridge_parallel_result r;
	char err[300];
	assert_int_equal(parallel_train(&g, &in, &r, err, sizeof err), 0);
	assert_true(r.dp == 4 && r.micro_batches == 8);
	/* selective recomputation redoes the attention core's forward: 4 b s^2 h L = 4 x 64 x 1024^2 x 4096 x 32
	 * = 3.5184372088832e13 FLOP; compute = (3.145728e15 + that) / (16 x 1e15 x 0.5) = 0.397614046511104 s;
	 * bubble (pp-1)/m = 1/8 of it */
	assert_true(r.recompute_flops == 3.5184372088832e13);
	assert_close(r.compute_s, 0.397614046511104, 1e-15);
	assert_close(r.recompute_s, 3.5184372088832e13 / 8e15, 1e-15);
	assert_close(r.bubble_s, 0.397614046511104 / 8, 1e-15);
	assert_close(r.bubble_fraction, 1.0 / 9, 1e-15);
	/* TP: 2 x 1024 x 4096 x 2 B = 16 MiB per all-reduce, 4 per layer x 16 layers per stage x 8 micro-batches = 512;
	 * on 2 GPUs the ring (7.8 us + 16777216 / 370e9) beats NVLS (25 us + 16777216 / 480e9) */
	assert_true(r.tp.bytes_per_allreduce == 16777216 && r.tp.allreduces == 512);
	assert_int_equal(r.tp.one.algorithm, RIDGE_ALGO_RING);
	assert_close(r.tp.time_s, 512 * (7.8e-6 + 16777216 / 370e9), 1e-12);
	/* DP: 8e9 / 4 x 2 B = 4e9 B of gradients over 4 GPUs (one domain: 8 / tp 2 = 4 per domain);
	 * all-reduce 1.5 x 4e9: the ring, 10.2 us + 6e9 / 370e9 = 16.2265 ms (NVLS on 4 GPUs, 25 us +
	 * 6e9 / 370.29e9, is slower), half of it hidden */
	assert_true(r.dp_bytes == 4e9);
	assert_int_equal(r.dp_reduce.algorithm, RIDGE_ALGO_RING);
	assert_close(r.dp_comm_s, 10.2e-6 + 6e9 / 370e9, 1e-12);
	assert_close(r.dp_exposed_s, (10.2e-6 + 6e9 / 370e9) / 2, 1e-12);
	/* PP scatter/gather (default with TP): each of the 2 tp ranks sends 2 x 1024 x 4096 x 2 B / 2 = 8 MiB,
	 * then the pair all-gathers the 16 MiB; 2 passes x (8 + 2 - 2) = 16 hand-offs */
	assert_true(r.pp_scatter_gather && r.pp.bytes_per_transfer == 8388608 && r.pp.transfers == 16);
	assert_close(r.pp_s, 16 * (r.pp.one.time_s + r.pp_gather.time_s), 1e-15);
	assert_close(r.step_s, r.compute_s + r.bubble_s + r.tp.time_s + r.pp_s + r.dp_exposed_s, 1e-15);
	assert_close(r.mfu, 3.145728e15 / (16 * 1e15 * r.step_s), 1e-15);
	/* memory: 2e9 parameters per GPU x (2 + 2 + 12) B = 32e9; activations s b h (10 + 24/2) =
	 * 1024 x 2 x 4096 x 22 = 184,549,376 B per layer x 16 layers x 2 micro-batches in flight */
	assert_true(r.weight_bytes == 4e9 && r.grad_bytes == 4e9 && r.optimizer_bytes == 24e9);
	assert_true(r.activation_per_layer_bytes == 184549376);
	assert_true(r.activation_bytes == 184549376.0 * 32);
	assert_true(r.fits);
	/* ZeRO-3: weights, grads and optimizer over dp 4; full recomputation keeps 2 s b h per layer */
	in.sharding = RIDGE_SHARD_ZERO3;
	in.recompute = RIDGE_RECOMPUTE_FULL;
	assert_int_equal(parallel_train(&g, &in, &r, err, sizeof err), 0);
	assert_true(r.weight_bytes == 1e9 && r.grad_bytes == 1e9 && r.optimizer_bytes == 6e9);
	assert_true(r.activation_per_layer_bytes == 2 * 8388608.0);
	/* ZeRO-3 reshards: the weights gathered for each of the 8 micro-batches' forward and backward, the
	 * sharded gradients reduce-scattered after each */
	assert_true(r.dp_gathers == 16 && r.dp_reduces == 8 && r.dp_reduce.op == RIDGE_REDUCE_SCATTER);
	assert_close(r.dp_comm_s, 8 * r.dp_reduce.time_s + 16 * r.dp_gather.time_s, 1e-15);
	/* ZeRO-1 accumulates: one reduce-scatter and one all-gather a step */
	in.sharding = RIDGE_SHARD_ZERO1;
	assert_int_equal(parallel_train(&g, &in, &r, err, sizeof err), 0);
	assert_true(r.dp_gathers == 1 && r.dp_reduces == 1);
	in.sharding = RIDGE_SHARD_ZERO3;
	/* refusals */
	in.tp = 3;
	assert_int_equal(parallel_train(&g, &in, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "does not divide"));
	in.tp = 2;
	in.micro_batch = 3;
	assert_int_equal(parallel_train(&g, &in, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "micro-batches"));
}

/* Sequence, context and interleaved pipeline parallelism, recomputation's time and the layout refusals. */
static void test_parallel_train_at_scale(void **state)
{
	(void)state;
	struct ridge_gpu g = switch_gpu();
	struct ridge_parallel_input in = {
		.params = 8e9,
		.seq = 4096,
		.batch = 64,
		.gpus = 32,
		.flops_per_step = 1e16,
		.peak_flops = 1e15,
		.compute_efficiency = 0.5,
		.tp = 4,
		.pp = 4,
		.micro_batch = 1,
		.hidden = 4096,
		.layers = 32,
		.heads = 32,
		.recompute = RIDGE_RECOMPUTE_SELECTIVE,
		.sequence_parallel = true,
		.network_bandwidth = 50e9,
	};
	struct ridge_parallel_result r;
	char err[300];
	assert_int_equal(parallel_train(&g, &in, &r, err, sizeof err), 0);
	/* dp = 32 / 16 = 2, 64 / 2 = 32 micro-batches. Selective + SP: 34 s b h / t = 34 x 4096 x 4096 / 4 B per layer;
	 * stage 0 holds 8 layers x min(4, 32) = 4 micro-batches */
	assert_true(r.dp == 2 && r.micro_batches == 32);
	assert_true(r.activation_per_layer_bytes == 34.0 * 4096 * 4096 / 4);
	assert_true(r.stage_layers == 8 && r.stage_micro_batches == 4);
	assert_true(r.activation_bytes == 34.0 * 4096 * 4096 / 4 * 32);
	/* SP: each TP all-reduce is a reduce-scatter and an all-gather of the same 4096 x 4096 x 2 B */
	assert_int_equal(r.tp.one.op, RIDGE_REDUCE_SCATTER);
	assert_int_equal(r.tp_gather.op, RIDGE_ALL_GATHER);
	assert_close(r.tp.time_s, r.tp.allreduces * (r.tp.one.time_s + r.tp_gather.time_s), 1e-15);
	/* hand-offs already split by SP: 4096 x 4096 x 2 / 4 B, no all-gather after */
	assert_true(r.pp.bytes_per_transfer == 4096.0 * 4096 * 2 / 4 && r.pp_s == r.pp.time_s);
	/* interleaved, v = 2: bubble (pp-1)/(m v) = 3/64 of compute; 1 + 3/8 more activations on stage 0 */
	in.virtual_stages = 2;
	assert_int_equal(parallel_train(&g, &in, &r, err, sizeof err), 0);
	assert_close(r.bubble_s, r.compute_s * 3 / 64, 1e-15);
	assert_close(r.bubble_fraction, 3.0 / 67, 1e-15);
	assert_close(r.stage_micro_batches, 4 * (1 + 3.0 / 8), 1e-15);
	/* full recomputation: one more forward, F/3; MFU counts F, HFU F + F/3 */
	in.virtual_stages = 1;
	in.recompute = RIDGE_RECOMPUTE_FULL;
	assert_int_equal(parallel_train(&g, &in, &r, err, sizeof err), 0);
	assert_close(r.compute_s, (1e16 + 1e16 / 3) / (32 * 1e15 * 0.5), 1e-15);
	assert_close(r.hfu / r.mfu, 4.0 / 3, 1e-12);
	assert_true(r.activation_per_layer_bytes == 2.0 * 4096 * 4096 / 4);
	/* context parallel 2: dp 1; K/V of 1 x 4096 x 4096 x 2 x 2 B gathered over 2 GPUs, 2 gathers and a
	 * reduce-scatter per layer per micro-batch; ring attention hides up to 12 b s^2 h / (tp cp) of attention */
	in.recompute = RIDGE_RECOMPUTE_SELECTIVE;
	in.cp = 2;
	assert_int_equal(parallel_train(&g, &in, &r, err, sizeof err), 0);
	assert_true(r.dp == 1 && r.micro_batches == 64 && r.has_cp);
	assert_true(r.cp_gather.bytes == 4096.0 * 4096 * 4 && r.cp_gather.gpus == 2);
	assert_close(r.cp_comm_s, 8 * 64 * (2 * r.cp_gather.time_s + r.cp_scatter.time_s), 1e-15);
	assert_close(r.cp_attention_s, 12.0 * 4096 * 4096 * 4096 / 8 * 8 * 64 / (1e15 * 0.5), 1e-15);
	assert_close(r.cp_exposed_s, fmax(0, r.cp_comm_s - r.cp_attention_s), 1e-15);
	assert_true(r.activation_per_layer_bytes == 34.0 * 2048 * 4096 / 4);
	/* Llama 3's split: 29 layers on pp 4 is refused (neither 29 nor 31 divides), 30 on pp 8 = 6 stages
	 * of 4 and two of 3 */
	in.cp = 1;
	in.layers = 29;
	assert_int_equal(parallel_train(&g, &in, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "pp 4 does not divide the 29 layers"));
	in.layers = 30;
	in.pp = 8;
	in.tp = 2;
	assert_int_equal(parallel_train(&g, &in, &r, err, sizeof err), 0);
	/* stage 0: 3 layers x 8 in flight = 24; stage 1: 4 x 7 = 28, the worst */
	assert_true(r.stage_layers == 4 && r.stage_micro_batches == 7);
	/* refusals naming the input */
	static const struct {
		double tp, pp, cp, v, heads, layers;
		const char *reason;
	} bad[] = {
		{ 3, 1, 1, 1, 32, 32, "tp x cp x pp = 3 does not divide" },
		{ 8, 1, 1, 1, 12, 32, "tp 8 does not divide the 12 attention heads" },
		{ 2, 2, 3, 1, 32, 32, "tp x cp x pp = 12" },
		{ 2, 2, 1, 3, 32, 32, "virtual stages 3 do not divide the 16 layers per stage" },
		{ 2, 1, 1, 2, 32, 32, "virtual stages 2 need pipeline parallelism" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		in.tp = bad[i].tp, in.pp = bad[i].pp, in.cp = bad[i].cp, in.virtual_stages = bad[i].v;
		in.heads = bad[i].heads, in.layers = bad[i].layers;
		if (parallel_train(&g, &in, &r, err, sizeof err) != -1)
			fail_msg("case %zu accepted", i);
		if (!strstr(err, bad[i].reason))
			fail_msg("case %zu: '%s' lacks '%s'", i, err, bad[i].reason);
	}
	/* cp must split the sequence into 2 cp chunks: 4096 tokens, cp 2048 -> 4096 chunks of 1: refused at cp 4096 */
	in = (struct ridge_parallel_input){ .params = 8e9,
					    .seq = 4095,
					    .batch = 8,
					    .gpus = 2,
					    .flops_per_step = 1e16,
					    .peak_flops = 1e15,
					    .compute_efficiency = 0.5,
					    .tp = 1,
					    .pp = 1,
					    .micro_batch = 1,
					    .hidden = 4096,
					    .layers = 32,
					    .cp = 2 };
	assert_int_equal(parallel_train(&g, &in, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "cp 2 cannot split a sequence of 4095 tokens"));
}

static void test_calibration_file_round_trip(void **state)
{
	(void)state;
	/* The fixture's interconnect (fabric and measured collectives) loads, is written back by
	 * hwdb_format as a calibration would be, and reads back the same. */
	struct ridge_gpu g, again;
	struct hwdb_diags diags = { 0 };
	assert_int_equal(hwdb_load_file("tests/fixtures/h200-comm-calibration.yaml", &g, &diags), 0);
	assert_true(g.ic.has_fabric && g.ic.nvls && g.ic.measured_gpus == 8);
	assert_true(g.ic.measured[RIDGE_ALL_REDUCE].has_bus_bandwidth &&
		    g.ic.measured[RIDGE_ALL_REDUCE].bus_bandwidth == 472e9);
	assert_true(g.ic.measured[RIDGE_ALL_TO_ALL].has_bus_bandwidth && !g.ic.measured[RIDGE_ALL_TO_ALL].has_latency);
	char *text;
	size_t len;
	assert_int_equal(hwdb_format(&g, &text, &len), 0);
	int rc = hwdb_parse("again.yaml", text, len, &again, &diags);
	free(text);
	assert_int_equal(rc, 0);
	assert_memory_equal(&g.ic, &again.ic, sizeof g.ic);
	/* measured on 8: 21 us + 1.75 x 64 MiB / 472e9, priced as NCCL's own choice */
	struct ridge_comm_result r = run(&g, RIDGE_ALL_REDUCE, 8, 67108864, RIDGE_ALGO_AUTO, 0);
	assert_int_equal(r.algorithm, RIDGE_ALGO_AUTO);
	assert_close(r.time_s, 21e-6 + 117440512 / 472e9, 1e-12);
}

static void test_serve_step(void **state)
{
	(void)state;
	struct ridge_gpu g = switch_gpu();
	struct ridge_serve_comm c;
	char err[300];
	/* Dense decode, batch 64, hidden 4096, 32 layers, TP 4: 64 x 4096 x 2 B = 524,288 B per all-reduce on 4 GPUs,
	 * 2 per layer = 64; each 6.6 + 6 x 0.6 = 10.2 us + 1.5 x 524288 / 370e9 */
	double ar = 10.2e-6 + 1.5 * 524288 / 370e9;
	assert_int_equal(comm_serve_step(&g, 4, false, 64, 4096, 32, 0, 0, 0, 0, &c, err, sizeof err), 0);
	assert_true(c.has_tp && !c.has_ep && c.tp.allreduces == 64 && c.tp.bytes_per_allreduce == 524288);
	assert_close(c.total_s, 64 * ar, 1e-12);
	assert_close(c.exposed_s, 64 * ar, 1e-12);
	/* Mixtral-like, all 32 layers MoE, top-2, experts whole on the 4 GPUs, a quarter overlapped:
	 * 2 x 32 - 32 = 32 all-reduces (attention) and 2 x 32 = 64 all-to-alls of 64 x 2 x 4096 x 2 B = 1,048,576 B,
	 * each 6.6 + 3 x 0.6 = 8.4 us + 0.75 x 1048576 / 370e9 */
	double a2a = 8.4e-6 + 0.75 * 1048576 / 370e9;
	assert_int_equal(comm_serve_step(&g, 4, true, 64, 4096, 32, 2, 32, 0.25, 0, &c, err, sizeof err), 0);
	assert_true(c.has_ep && c.tp.allreduces == 32 && c.ep.alltoalls == 64 && c.ep.bytes_per_alltoall == 1048576);
	assert_close(c.total_s, 32 * ar + 64 * a2a, 1e-12);
	assert_close(c.exposed_s, 0.75 * (32 * ar + 64 * a2a), 1e-12);
	/* one GPU: nothing */
	assert_int_equal(comm_serve_step(&g, 1, false, 64, 4096, 32, 0, 0, 0, 0, &c, err, sizeof err), 0);
	assert_true(c.total_s == 0 && !c.has_tp && !c.has_ep);
	/* expert parallelism on a dense model is refused */
	assert_int_equal(comm_serve_step(&g, 4, true, 64, 4096, 32, 0, 0, 0, 0, &c, err, sizeof err), -1);
	assert_non_null(strstr(err, "MoE"));
}

/* Launch modes (comm.h): eager is the slower of the device and p x the host's
 * enqueue (RIDGE_NCCL_HOST_ENQUEUE_S), graph the device plus one graph node. */
static void test_launch_modes(void **state)
{
	(void)state;
	struct ridge_gpu g = switch_gpu();
	g.graph_node_s = 0.5e-6;
	char err[300];
	struct ridge_comm_result r;
	/* 8 B on 4 GPUs: device = 6.6 + 6 x 0.6 = 10.2 us + 1.5 x 8 / 370e9 */
	double device = 10.2e-6 + 12.0 / 370e9;
	struct ridge_comm_input in = { RIDGE_ALL_REDUCE, 4, 8, RIDGE_ALGO_AUTO, 0, RIDGE_COMM_LAUNCH_DEVICE, 0 };
	assert_int_equal(comm_collective(&g, &in, &r, err, sizeof err), 0);
	assert_close(r.time_s, device, 1e-15);
	assert_true(r.device_s == r.time_s && r.launch_term_s == 0 && r.gpus_per_process == 1);
	/* eager, one GPU per process: 4.34 us of host < 10.2 us of device: device-bound, no term */
	in.launch = RIDGE_COMM_LAUNCH_EAGER;
	assert_int_equal(comm_collective(&g, &in, &r, err, sizeof err), 0);
	assert_close(r.time_s, device, 1e-15);
	assert_close(r.host_issue_s, RIDGE_NCCL_HOST_ENQUEUE_S, 1e-18);
	assert_string_equal(r.launch_bound, "device");
	/* eager, one thread drives all 4 (nccl-tests -g 4): 4 x 4.34 = 17.36 us, host-bound */
	in.gpus_per_process = 4;
	assert_int_equal(comm_collective(&g, &in, &r, err, sizeof err), 0);
	assert_close(r.time_s, 4 * RIDGE_NCCL_HOST_ENQUEUE_S, 1e-15);
	assert_close(r.launch_term_s, 4 * RIDGE_NCCL_HOST_ENQUEUE_S - device, 1e-15);
	assert_string_equal(r.launch_bound, "host");
	assert_close(r.algbw, 8 / r.time_s, 1e-9);
	/* a large message stays device-bound however many GPUs a thread drives */
	in.bytes = 1e9;
	assert_int_equal(comm_collective(&g, &in, &r, err, sizeof err), 0);
	assert_true(r.time_s == r.device_s && r.launch_term_s == 0);
	/* graph: one node more */
	in.bytes = 8;
	in.gpus_per_process = 0;
	in.launch = RIDGE_COMM_LAUNCH_GRAPH;
	assert_int_equal(comm_collective(&g, &in, &r, err, sizeof err), 0);
	assert_close(r.time_s, device + 0.5e-6, 1e-15);
	assert_close(r.launch_term_s, 0.5e-6, 1e-15);
	assert_string_equal(r.launch_bound, "graph node");
	/* one GPU launches nothing */
	in.gpus = 1;
	assert_int_equal(comm_collective(&g, &in, &r, err, sizeof err), 0);
	assert_true(r.time_s == 0 && r.launch_term_s == 0);
	/* more GPUs per process than GPUs, or not whole: refused */
	in.gpus = 4;
	in.gpus_per_process = 8;
	assert_int_equal(comm_collective(&g, &in, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "GPUs per process"));
	in.gpus_per_process = 1.5;
	assert_int_equal(comm_collective(&g, &in, &r, err, sizeof err), -1);
	/* names */
	enum ridge_comm_launch l;
	assert_true(comm_launch_parse("Graph", &l) && l == RIDGE_COMM_LAUNCH_GRAPH);
	assert_false(comm_launch_parse("lazy", &l));
	assert_string_equal(comm_launch_name(RIDGE_COMM_LAUNCH_EAGER), "eager");
	/* a served step under a graph pays a node per collective: 64 all-reduces, 64 x 0.5 us more */
	struct ridge_serve_comm dev, graph;
	assert_int_equal(comm_serve_step(&g, 4, false, 64, 4096, 32, 0, 0, 0, 0, &dev, err, sizeof err), 0);
	assert_int_equal(comm_serve_step_launch(&g, 4, false, 64, 4096, 32, 0, 0, 0, 0, RIDGE_COMM_LAUNCH_GRAPH, &graph,
						err, sizeof err),
			 0);
	assert_close(graph.total_s - dev.total_s, 64 * 0.5e-6, 1e-12);
}

/* Expert parallelism in a training step (parallel.h): the all-to-alls, the
 * experts' memory over ep, their gradients over dp x cp / ep, and the refusals. */
/* The engines' custom all-reduce (comm.h): SGLang PR #2904's H100 table,
 * linear in bytes between its points, flat below the first, none past 2 MiB
 * or for other GPU counts; asked for by name only (AUTO is NCCL's choice),
 * inside one switch domain; and the serving step's choice by the cap. */
static void test_custom_allreduce(void **state)
{
	(void)state;
	/* at the table's points */
	assert_close(comm_custom_allreduce_s(8, 65536), 7.8e-6, 1e-18);
	assert_close(comm_custom_allreduce_s(2, 2097152), 19.9e-6, 1e-18);
	/* flat below 1 KiB */
	assert_close(comm_custom_allreduce_s(4, 16), 4.8e-6, 1e-18);
	/* 4 GPUs, 100 KiB: 4.8 + (13.9 - 4.8) x (102400 - 65536) / (524288 - 65536) us */
	assert_close(comm_custom_allreduce_s(4, 102400), (4.8 + 9.1 * 36864.0 / 458752.0) * 1e-6, 1e-15);
	/* 8 GPUs, 768 KiB: halfway between 16.7 and 22.1 us */
	assert_close(comm_custom_allreduce_s(8, 786432), 19.4e-6, 1e-15);
	assert_true(comm_custom_allreduce_s(6, 65536) == 0);
	assert_true(comm_custom_allreduce_s(8, 2097153) == 0);

	struct ridge_gpu g = switch_gpu();
	struct ridge_comm_result r = run(&g, RIDGE_ALL_REDUCE, 8, 65536, RIDGE_ALGO_CUSTOM, 0);
	assert_int_equal(r.algorithm, RIDGE_ALGO_CUSTOM);
	assert_close(r.time_s, 7.8e-6, 1e-18);
	assert_close(r.bus_bytes, 1.75 * 65536, 1e-9);
	assert_non_null(r.caveat); /* not the H100 the table was measured on */
	/* AUTO never picks it: NCCL's ring, 6.6 + 14 x 0.6 us + 114688 B / 370 GB/s */
	r = run(&g, RIDGE_ALL_REDUCE, 8, 65536, RIDGE_ALGO_AUTO, 0);
	assert_int_equal(r.algorithm, RIDGE_ALGO_RING);
	assert_close(r.time_s, 15e-6 + 114688 / 370e9, 1e-15);

	struct ridge_comm_input in = { RIDGE_ALL_REDUCE, 8, 4e6, RIDGE_ALGO_CUSTOM, 0, RIDGE_COMM_LAUNCH_DEVICE, 0 };
	char err[300];
	assert_int_equal(comm_collective(&g, &in, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "2097152 bytes"));
	in.bytes = 1024;
	in.gpus = 6;
	assert_int_equal(comm_collective(&g, &in, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "2, 4 and 8 GPUs"));
	in.gpus = 16;
	assert_int_equal(comm_collective(&g, &in, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "switch domain"));
	struct ridge_gpu mesh = mesh_gpu();
	in.gpus = 8;
	assert_int_equal(comm_collective(&mesh, &in, &r, err, sizeof err), -1);
	in.op = RIDGE_ALL_GATHER;
	assert_int_equal(comm_collective(&g, &in, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "is an all-reduce"));

	/* the serving step: 4 tokens x 8192 x 2 B = 64 KiB, 2 all-reduces a layer,
	 * under a graph (+ 0.5 us a node) */
	g.graph_node_s = 0.5e-6;
	struct ridge_serve_comm engine, nccl;
	assert_int_equal(comm_serve_step_engine(&g, 8, false, 4, 8192, 80, 0, 0, 0, 0, RIDGE_COMM_LAUNCH_GRAPH, 8e6,
						&engine, err, sizeof err),
			 0);
	assert_close(engine.exposed_s, 160 * 8.3e-6, 1e-15);
	/* a cap at the message's size, or 0: NCCL's, as comm_serve_step_launch prices it */
	assert_int_equal(comm_serve_step_engine(&g, 8, false, 4, 8192, 80, 0, 0, 0, 0, RIDGE_COMM_LAUNCH_GRAPH, 65536,
						&engine, err, sizeof err),
			 0);
	assert_int_equal(comm_serve_step_launch(&g, 8, false, 4, 8192, 80, 0, 0, 0, 0, RIDGE_COMM_LAUNCH_GRAPH, &nccl,
						err, sizeof err),
			 0);
	assert_close(engine.exposed_s, nccl.exposed_s, 1e-18);
	assert_int_equal(engine.tp.one.algorithm, RIDGE_ALGO_RING);
}

static void test_parallel_train_experts(void **state)
{
	(void)state;
	struct ridge_gpu g = switch_gpu();
	/* 16 GPUs, TP 1 x PP 2 x DP 8, EP 4; 10e9 parameters of which 8e9 routed experts (8 experts, top-2),
	 * hidden 4096, 16 layers all MoE, seq 1024, batch 64 in micro-batches of 2: 64 / 8 = 8 per pipeline,
	 * 4 micro-batches. */
	struct ridge_parallel_input in = {
		.params = 10e9,
		.seq = 1024,
		.batch = 64,
		.gpus = 16,
		.flops_per_step = 1e15,
		.peak_flops = 1e15,
		.compute_efficiency = 0.5,
		.tp = 1,
		.pp = 2,
		.micro_batch = 2,
		.hidden = 4096,
		.layers = 16,
		.sharding = RIDGE_SHARD_ZERO1,
		.recompute = RIDGE_RECOMPUTE_SELECTIVE,
		.memory_bytes = 80e9,
		.experts = 8,
		.top_k = 2,
		.expert_params = 8e9,
		.ep = 4,
		.ep_overlap = 0.25,
	};
	struct ridge_parallel_result r;
	char err[300];
	assert_int_equal(parallel_train(&g, &in, &r, err, sizeof err), 0);
	assert_true(r.dp == 8 && r.ep == 4 && r.expert_dp == 2 && r.micro_batches == 4);
	/* all-to-all: 2 x 1024 tokens x top-2 x 4096 x 2 B = 33,554,432 B over 4 GPUs (members 1 apart: one domain);
	 * per stage 16 / 2 = 8 MoE layers x 4 micro-batches x 4 (dispatch, combine; forward, backward) = 128 */
	assert_true(r.has_ep && r.ep_comm.bytes_per_alltoall == 33554432 && r.ep_comm.alltoalls == 128);
	assert_true(r.ep_comm.one.gpus == 4 && r.ep_comm.one.op == RIDGE_ALL_TO_ALL);
	assert_close(r.ep_comm.time_s, 128 * r.ep_comm.one.time_s, 1e-12);
	assert_close(r.ep_exposed_s, 0.75 * r.ep_comm.time_s, 1e-12);
	/* memory: dense shard 2e9 / 2 = 1e9, experts 8e9 / (2 x 4) = 1e9 per GPU; zero1 shards the optimizer:
	 * dense over dp 8, experts over dp / ep = 2: weights 2 x 2e9, grads 2 x 2e9, optimizer 12 x (1e9/8 + 1e9/2) */
	assert_close(r.weight_bytes, 4e9, 1);
	assert_close(r.grad_bytes, 4e9, 1);
	assert_close(r.optimizer_bytes, 12 * (1e9 / 8 + 1e9 / 2), 1);
	assert_close(r.expert_params_per_gpu, 1e9, 1);
	/* gradients: dense 1e9 x 2 B over 8, experts 1e9 x 2 B over 2 (members 4 apart) */
	assert_true(r.dp_bytes == 2e9 && r.dp_reduce.gpus == 8);
	assert_true(r.dp_expert_bytes == 2e9 && r.dp_expert_reduce.gpus == 2 && r.dp_expert_gather.gpus == 2);
	assert_close(r.dp_comm_s,
		     r.dp_reduce.time_s + r.dp_gather.time_s + r.dp_expert_reduce.time_s + r.dp_expert_gather.time_s,
		     1e-12);
	assert_close(r.exposed_comm_s, r.ep_exposed_s + r.pp_s + r.dp_exposed_s, 1e-12);
	/* full recomputation runs the forward again: 6 all-to-alls a layer */
	in.recompute = RIDGE_RECOMPUTE_FULL;
	assert_int_equal(parallel_train(&g, &in, &r, err, sizeof err), 0);
	assert_true(r.ep_comm.alltoalls == 192);
	in.recompute = RIDGE_RECOMPUTE_SELECTIVE;
	/* ep 1: the experts stay whole on each GPU's pipeline stage; one gradient reduction of all 10e9 / 2 */
	in.ep = 1;
	assert_int_equal(parallel_train(&g, &in, &r, err, sizeof err), 0);
	assert_true(!r.has_ep && r.ep_comm.time_s == 0 && r.dp_bytes == 1e10 && r.dp_expert_reduce.gpus == 0);
	assert_close(r.weight_bytes, 1e10, 1);
	/* refusals, each naming ep */
	in.ep = 3; /* divides neither 8 experts nor dp 8 */
	assert_int_equal(parallel_train(&g, &in, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "ep 3 does not divide the 8 experts"));
	in.ep = 16; /* divides 16... not the 8 experts */
	in.experts = 16;
	assert_int_equal(parallel_train(&g, &in, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "ep 16 does not divide the data-parallel size"));
	in.experts = 0; /* dense */
	in.ep = 2;
	assert_int_equal(parallel_train(&g, &in, &r, err, sizeof err), -1);
	assert_true(strncmp(err, "ep 2 needs a mixture of experts", 31) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_launch_modes),
		cmocka_unit_test(test_custom_allreduce),
		cmocka_unit_test(test_parallel_train_experts),
		cmocka_unit_test(test_ring_all_reduce),
		cmocka_unit_test(test_nvls_and_auto),
		cmocka_unit_test(test_gather_scatter_factors),
		cmocka_unit_test(test_mesh_peer_vs_aggregate),
		cmocka_unit_test(test_across_domains),
		cmocka_unit_test(test_calibration),
		cmocka_unit_test(test_parallel_terms),
		cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_hwdb_entries),
		cmocka_unit_test(test_parallel_train),
		cmocka_unit_test(test_parallel_train_at_scale),
		cmocka_unit_test(test_calibration_file_round_trip),
		cmocka_unit_test(test_serve_step),
	};
	return cmocka_run_group_tests_name("comm", tests, NULL, NULL);
}
