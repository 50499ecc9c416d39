/* The communication model on a rack-scale NVLink domain (model/comm.h): a
 * GB200-NVL72-like fabric built here (72 GPUs, NVLS, one 400 Gb/s NIC per
 * GPU), so a change of hwdb data cannot move the hand-worked values; then the
 * hwdb entries' own NICs (gb200, mi300x, mi325x) and the training terms that
 * place TP and EP groups inside the 72-GPU domain. Constants: NCCL
 * src/graph/tuning.cc (latencies), src/include/device.h (32 NVLS heads). */
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define GIB 1073741824.0

/* 900 GB/s each way to any of 72 GPUs, NVLS published at 834.6 GB/s on 72
 * (coreweave/nccl-tests), no published ring figure (derived: 900 x 370/450 =
 * 740 GB/s), NCCL's 6.6 us + 0.6 us per NVLink step, 72 NICs of 50 GB/s. */
static struct ridge_gpu rack_gpu(void)
{
	struct ridge_gpu g = { 0 };
	snprintf(g.id, sizeof g.id, "test-rack");
	struct ridge_interconnect *ic = &g.ic;
	ic->has_fabric = true;
	ic->topology = RIDGE_TOPOLOGY_SWITCH;
	ic->per_direction = 900e9;
	ic->peer_bandwidth = 900e9;
	ic->domain_gpus = 72;
	ic->nvls = true;
	ic->latency = 0.6e-6;
	ic->base_latency = 6.6e-6;
	ic->has_nvls_bus_bandwidth = true;
	ic->nvls_bus_bandwidth = 834.6e9;
	ic->pcie_bandwidth = 450e9;
	ic->nics = 72;
	ic->has_nic_bandwidth = true;
	ic->nic_bandwidth = 50e9;
	return g;
}

static struct ridge_comm_result run(const struct ridge_gpu *g, double n, double bytes,
				    enum ridge_comm_algorithm algorithm, double network)
{
	struct ridge_comm_input in = { RIDGE_ALL_REDUCE, n, bytes, algorithm, network, RIDGE_COMM_LAUNCH_DEVICE, 0 };
	struct ridge_comm_result r;
	char err[300];
	if (comm_collective(g, &in, &r, err, sizeof err) != 0)
		fail_msg("unexpected error: %s", err);
	return r;
}

static void test_nvls_over_the_whole_domain(void **state)
{
	(void)state;
	struct ridge_gpu g = rack_gpu();
	/* the network per GPU the rack gives: 72 x 50 GB/s / 72 = 50 GB/s */
	assert_close(comm_network_per_gpu(&g.ic), 50e9, 1e-15);
	/* 72 GPUs, 8 GiB: one domain. NVLS at n = domain is the published 834.6 GB/s, alpha 25 us (one in-switch
	 * reduction); the ring 740 GB/s with 6.6 + 142 x 0.6 = 91.8 us. NVLS: 25e-6 + (142/72 x 8 GiB) / 834.6e9
	 * = 25e-6 + 16941259889.8 / 834.6e9 = 0.0203237 s */
	struct ridge_comm_result r = run(&g, 72, 8 * GIB, RIDGE_ALGO_AUTO, 50e9);
	assert_int_equal(r.algorithm, RIDGE_ALGO_NVLS);
	assert_true(r.domains == 1 && r.gpus_per_domain == 72);
	assert_close(r.bus_bandwidth, 834.6e9, 1e-15);
	assert_close(r.alpha_s, 25e-6, 1e-15);
	assert_close(r.time_s, 25e-6 + 2 * 71.0 / 72 * 8 * GIB / 834.6e9, 1e-15);
	assert_string_equal(r.path, "NVSwitch");
	struct ridge_comm_result ring = run(&g, 72, 8 * GIB, RIDGE_ALGO_RING, 50e9);
	assert_close(ring.bus_bandwidth, 900e9 * 370 / 450, 1e-15);
	assert_close(ring.alpha_s, 6.6e-6 + 142 * 0.6e-6, 1e-12);
	/* NVLS by GPU count, B 2(n-1)/(n+1) / (2 x 71/73): on 16, 834.6 x (15/17) / (71/73) = 757.16 GB/s, above the
	 * ring: NVLS; on 8, 834.6 x (7/9) / (71/73) = 667.42, below the ring's 740: the ring */
	r = run(&g, 16, 8 * GIB, RIDGE_ALGO_AUTO, 50e9);
	assert_int_equal(r.algorithm, RIDGE_ALGO_NVLS);
	assert_close(r.bus_bandwidth, 834.6e9 * (15.0 / 17) / (71.0 / 73), 1e-15);
	assert_close(comm_nvls_bus_bandwidth(&g.ic, 8), 834.6e9 * (7.0 / 9) / (71.0 / 73), 1e-15);
	assert_int_equal(run(&g, 8, 8 * GIB, RIDGE_ALGO_AUTO, 50e9).algorithm, RIDGE_ALGO_RING);
	/* NVLS needs the GPUs inside one domain: 73 are refused */
	struct ridge_comm_input in = { RIDGE_ALL_REDUCE, 73, GIB, RIDGE_ALGO_NVLS, 50e9, RIDGE_COMM_LAUNCH_DEVICE, 0 };
	char err[300];
	assert_int_equal(comm_collective(&g, &in, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "NVLS reduces inside one NVSwitch domain"));
}

static void test_two_racks_and_more(void **state)
{
	(void)state;
	struct ridge_gpu g = rack_gpu();
	/* 144 GPUs, 16 GiB: 2 domains of 72 joined by the NICs (net 50 x 47/50 = 47 GB/s per NIC). NVLSTree:
	 * inside each rack NVLS, (2 x 71/72) / 834.6e9 = 2.36307e-12 s per byte; between 2 racks the tree moves M
	 * once through at most 32 heads' NICs: 1 / (32 x 47e9) = 6.6489e-13 s per byte; the rack binds: bus
	 * bandwidth (2 x 143/144) / 2.36307e-12 = 840.48 GB/s. alpha: NVLSTree's 25 us + 2 log2(2) = 2 network steps
	 * x 20.9 us = 66.8 us. The ring: 740 GB/s (72 NICs x 47 = 3384 GB/s do not bind), so auto takes the tree */
	struct ridge_comm_result r = run(&g, 144, 16 * GIB, RIDGE_ALGO_AUTO, 50e9);
	assert_int_equal(r.algorithm, RIDGE_ALGO_TREE);
	assert_true(r.domains == 2 && r.gpus_per_domain == 72);
	assert_string_equal(r.path, "NVLS + network tree");
	assert_true(r.inter_nics == 32 && r.intra_steps == 0 && r.inter_steps == 2);
	assert_close(r.alpha_s, 25e-6 + 2 * 20.9e-6, 1e-12);
	assert_close(r.intra_s_per_byte, 2 * 71.0 / 72 / 834.6e9, 1e-15);
	assert_close(r.inter_s_per_byte, 1 / (32 * 47e9), 1e-15);
	assert_close(r.bus_bandwidth, 2 * 143.0 / 144 / (2 * 71.0 / 72 / 834.6e9), 1e-15);
	assert_close(r.bus_bandwidth, 840.48e9, 1e-5);
	struct ridge_comm_result ring = run(&g, 144, 16 * GIB, RIDGE_ALGO_RING, 50e9);
	assert_close(ring.bus_bandwidth, 740e9, 1e-15);
	/* ring alpha: 2 x 143 = 286 steps, 2 of them between racks: 6.6 + 284 x 0.6 + 2 x 2.7 = 182.4 us */
	assert_close(ring.alpha_s, 182.4e-6, 1e-12);
	/* 20 racks (1440 GPUs): the busiest tree node carries 2 M, 2 / (32 x 47e9) = 1.32979e-12 s per byte, still
	 * below the rack's 2.36307e-12; 2 ceil(log2 20) = 10 network steps: 25 + 10 x 20.9 = 234 us */
	r = run(&g, 1440, 16 * GIB, RIDGE_ALGO_TREE, 50e9);
	assert_true(r.domains == 20 && r.inter_steps == 10);
	assert_close(r.alpha_s, 234e-6, 1e-12);
	assert_close(r.inter_s_per_byte, 2 / (32 * 47e9), 1e-15);
	assert_close(r.bus_bandwidth, 2 * 1439.0 / 1440 / (2 * 71.0 / 72 / 834.6e9), 1e-15);
	/* the 32 heads bind where the network is slow: 10 GB/s per GPU, 144 GPUs: 1 / (32 x 9.4e9) = 3.32447e-12 s
	 * per byte > the rack's 2.36307e-12: bus bandwidth (2 x 143/144) / 3.32447e-12 = 597.42 GB/s (with all 72
	 * NICs it would be the rack's 840.48); the links the phase uses: 32 x 10 GB/s */
	r = run(&g, 144, 16 * GIB, RIDGE_ALGO_TREE, 10e9);
	assert_close(r.inter_s_per_byte, 1 / (32 * 9.4e9), 1e-15);
	assert_close(r.bus_bandwidth, 2 * 143.0 / 144 * 32 * 9.4e9, 1e-15);
	assert_close(r.link_bandwidth, 320e9, 1e-15);
	/* the ring is the NICs' there: 72 x 9.4 = 676.8 GB/s, under the NVLink ring's 740 */
	ring = run(&g, 144, 16 * GIB, RIDGE_ALGO_RING, 10e9);
	assert_close(ring.bus_bandwidth, 72 * 9.4e9, 1e-15);
	assert_string_equal(ring.path, "network");
}

static void test_hwdb_rack_and_platform_nics(void **state)
{
	(void)state;
	/* GB200 NVL72: one 72-GPU domain with NVLS, 72 ConnectX-7 of 400 Gb/s: 50 GB/s per GPU */
	const struct ridge_gpu *gb = test_gpu("gb200");
	assert_true(gb->ic.domain_gpus == 72 && gb->ic.nvls && gb->ic.nics == 72);
	assert_close(comm_network_per_gpu(&gb->ic), 50e9, 1e-15);
	assert_close(gb->ic.per_direction, 900e9, 1e-15);
	/* MI300X and MI325X platforms: 8 x 400 Gb/s for 8 GPUs, 50 GB/s per GPU */
	assert_close(comm_network_per_gpu(&test_gpu("mi300x")->ic), 50e9, 1e-15);
	assert_close(comm_network_per_gpu(&test_gpu("mi325x")->ic), 50e9, 1e-15);
	/* the alias people type */
	assert_ptr_equal(&hwdb_find(test_hwdb(), "GB200 NVL72")->gpu, gb);
}

/* Training on the rack: a TP group of 72 stays inside the NVLink domain (NVLS, no network); the DP group of
 * the same layout, its members 72 apart, has one member per rack and crosses the NICs. */
static void test_parallel_groups_inside_the_rack(void **state)
{
	(void)state;
	struct ridge_gpu g = rack_gpu();
	struct ridge_parallel_input in = {
		.params = 70e9,
		.seq = 4096,
		.batch = 16,
		.gpus = 144,
		.flops_per_step = 1e18,
		.peak_flops = 2.5e15,
		.compute_efficiency = 0.5,
		.tp = 72,
		.pp = 1,
		.micro_batch = 1,
		.hidden = 9216,
		.layers = 72,
		.heads = 72,
		.recompute = RIDGE_RECOMPUTE_SELECTIVE,
		.network_bandwidth = 50e9,
	};
	struct ridge_parallel_result r;
	char err[300];
	assert_int_equal(parallel_train(&g, &in, &r, err, sizeof err), 0);
	/* TP: all-reduce of 4096 x 9216 x 2 B on 72 GPUs, inside one domain, NVLS */
	assert_true(r.tp.one.domains == 1 && r.tp.one.gpus == 72);
	assert_int_equal(r.tp.one.algorithm, RIDGE_ALGO_NVLS);
	assert_true(r.tp.bytes_per_allreduce == 4096.0 * 9216 * 2);
	/* DP: 2 replicas, 72 apart: a domain holds 72 / 72 = 1 of them, so 2 domains over the network */
	assert_true(r.dp == 2 && r.dp_reduce.gpus == 2 && r.dp_reduce.domains == 2);
	/* EP all-to-all over 64 GPUs of the rack: inside the domain, over the NVLink switches */
	struct ridge_ep_comm ep;
	assert_int_equal(comm_expert_parallel(&g, 64, 4096, 8, 7168, 2, 58, 50e9, RIDGE_COMM_LAUNCH_DEVICE, &ep, err,
					      sizeof err),
			 0);
	assert_true(ep.one.domains == 1);
	assert_string_equal(ep.one.path, "NVSwitch");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nvls_over_the_whole_domain),
		cmocka_unit_test(test_two_racks_and_more),
		cmocka_unit_test(test_hwdb_rack_and_platform_nics),
		cmocka_unit_test(test_parallel_groups_inside_the_rack),
	};
	return cmocka_run_group_tests_name("comm_rack", tests, NULL, NULL);
}
