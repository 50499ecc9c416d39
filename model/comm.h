/* Communication: the time of a collective on N GPUs and M bytes, as
 * alpha + beta * M, in NCCL's conventions, and the communication terms of
 * tensor-, expert-, pipeline- and data-parallel work built on it.
 *
 * Bytes and bus bandwidth follow nccl-tests (doc/PERFORMANCE.md): M is the
 * "size" column (all-reduce: the buffer reduced; all-gather: the gathered
 * output; reduce-scatter: the input; all-to-all: what each GPU sends and
 * receives in all), and the bytes each GPU moves over its links are
 *
 *   all-reduce                     2 (N-1)/N * M
 *   all-gather, reduce-scatter     (N-1)/N * M
 *   all-to-all                     (N-1)/N * M
 *   send-recv (point to point)     M
 *
 * time = alpha + bus_bytes / bus_bandwidth, so beta = bus factor / bus bandwidth.
 *
 * alpha follows NCCL's own tuning model (src/graph/tuning.cc): a base latency
 * per collective plus a latency per algorithm step, with the steps of the
 * algorithm: ring 2(N-1) for all-reduce and N-1 for the others (steps that
 * leave a fabric domain pay the network's step latency), tree 2(g-1) + 2 log2(D)
 * for g GPUs per domain and D domains, NVLS one in-switch reduction. The base
 * and step latencies are the entry's (interconnect.base_latency, .latency: the
 * LL protocol's, the fastest for small messages) while the bus bandwidth is the
 * large-message one: alpha + beta M is the floor of NCCL's own estimate, which
 * switches protocol with the size (LL for small, Simple for large messages).
 *
 * The bus bandwidth, in order of preference:
 *   1. measured: a calibration's interconnect.<op>_bus_bandwidth (ridge-probe);
 *      its <op>_latency replaces alpha when N equals measured_gpus.
 *   2. published: the entry's interconnect.bus_bandwidth (nccl-tests, large
 *      messages, a switch fabric) and nvls_bus_bandwidth (NVLink SHARP).
 *   3. derived: the links' one-direction rate times RIDGE_NCCL_EFFICIENCY.
 * The links' rate: a switch gives every GPU its whole per_direction rate to any
 * peer; a full mesh gives N-1 peers one link each, min(per_direction,
 * (N-1) * peer_bandwidth); a bridged pair its bridge; anything past the bridge,
 * or a PCIe-only card, the PCIe link.
 *
 * NVLS by GPU count: the switch reduces, and each GPU moves M (1 + 1/n) over
 * its links (NVIDIA/nccl issue #2140), so the NVLS algorithm bandwidth is
 * B n / (n + 1) and its bus bandwidth B 2 (n-1) / (n+1): the entry's
 * nvls_bus_bandwidth is the figure at domain_gpus and fixes B. On 8 x H100
 * (480 GB/s at 8) that is 370 at 4 and 206 at 2, where the ring wins.
 *
 * Past the fabric domain (N > domain_gpus: D nodes of g GPUs), as NCCL runs it:
 *   ring   one ring through every GPU per channel; each channel leaves a node
 *          once, so a node's NICs together carry the bus bytes: bus bandwidth
 *          min(intra-node, g x network per GPU x 47/50).
 *   tree   hierarchical (NCCL's Tree, NVLSTree where the switch has NVLS):
 *          inside each node a reduce-scatter / all-gather (NVLS or the ring),
 *          between nodes a double binary tree whose busiest node sends and
 *          receives M x min(2(D-1), 4)/2 over the node's NICs (NVLSTree: at
 *          most RIDGE_NCCL_MAX_NVLS_HEADS of them); the two run pipelined, so
 *          the slower sets the time. NVLSTree's alpha is NCCL's: 25 us inside
 *          the domain + 2 log2(D) network steps of 20.9 us (Simple), not the
 *          ring's 2(g-1) LL steps (which would be 85 us on a 72-GPU domain).
 * A fabric domain may be a whole rack: GB200 NVL72 joins 72 GPUs (18 trays of
 * 4) by NVLink switches with NVLS, so up to 72 GPUs are one domain (NVLS over
 * all of them) and 144 are two domains joined by the NICs; the entry's nics
 * then counts the domain's NICs (72), one 400 Gb/s per GPU.
 *   direct all-to-all and send-recv: each GPU's own NIC share.
 * The network bandwidth per GPU is --network-bw, else the entry's
 * interconnect.nics x nic_bandwidth / domain_gpus.
 *
 * Launch mode (issue 30). alpha + beta M is what NCCL's tuner estimates: the
 * device's time for one collective. What a stream of them costs each depends
 * on how they are launched (docs/sources/nccl-small-message-latency.md):
 *   device  alpha + beta M alone (the tuner's estimate; callers that price
 *           a collective inside a larger step)
 *   eager   the host enqueues each collective on each of its GPUs
 *           (ncclAllReduce, then the kernel launch) while the devices run the
 *           previous one, so a stream is bound by the slower of the two:
 *           max(device, p x RIDGE_NCCL_HOST_ENQUEUE_S), p the GPUs one host
 *           thread drives (nccl-tests -g p; 1 in frameworks and under mpirun,
 *           as NCCL's maintainers advise)
 *   graph   captured in a CUDA graph the host is off the path; each
 *           collective is one more graph node: device + launch.graph_node. */
#ifndef RIDGE_COMM_H
#define RIDGE_COMM_H

#include <stdbool.h>
#include <stddef.h>

#include "gpu.h"

/* NCCL's protocol overhead on NVLink: 450 GB/s line rate gives ~370 GB/s of
 * bus bandwidth (S. Jeaugey, NVIDIA/nccl-tests issue #212, H100). Used only to
 * derive a bus bandwidth where none is published or measured. */
#define RIDGE_NCCL_EFFICIENCY (370.0 / 450.0)
/* NCCL tuning.cc hwLat, ring LL: per step over the network, and over PCIe
 * (a bridged card talking past its bridge partner). */
#define RIDGE_NCCL_NET_STEP_LATENCY 2.7e-6
#define RIDGE_NCCL_PCI_STEP_LATENCY 1.0e-6
/* NCCL tuning.cc hwLat NVLS (Simple), NVLink: the latency of one NVLS collective. */
#define RIDGE_NCCL_NVLS_LATENCY 25e-6
/* NCCL tuning.cc hwLat NVLSTree (Simple), network: per step of the tree
 * between domains (NVLSTree has no LL protocol; its latency is
 * hwLat NVLink 25 us + 2 log2(nodes) x this). */
#define RIDGE_NCCL_NVLS_TREE_NET_STEP_LATENCY 20.9e-6
/* NCCL's NVLS graph has at most NCCL_MAX_NVLS_ARITY (32) channels, one head
 * GPU each (src/include/device.h; graph/search.cc: "NVLS ... search must have
 * ngpus heads at most", maxChannels = min(NCCL_MAX_NVLS_ARITY, GPUs)): an
 * NVLSTree reaches the network through at most 32 of a domain's NICs. Binds
 * only on domains of more than 32 GPUs (GB200 NVL72). */
#define RIDGE_NCCL_MAX_NVLS_HEADS 32
/* NCCL tuning.cc: tree bus bandwidth = 0.9 x the ring's (busBw * .9). */
#define RIDGE_NCCL_TREE_BANDWIDTH_FACTOR 0.9
/* What NCCL moves through one NIC, per byte of its line rate: "For NDR @
 * 400Gbps you should see 46-48GB/s per NIC" (NCCL maintainer, NVIDIA/nccl-tests
 * issue #290): 47 / 50. Not fitted to any all-reduce ridge is checked on. */
#define RIDGE_NCCL_NET_EFFICIENCY (47.0 / 50.0)
/* The host time NCCL takes to enqueue one collective on one GPU (the API call,
 * the plan, the kernel launch). Fitted (the one fitted constant of the launch
 * term) to NVIDIA/nccl-tests issue #123: 8 B to 128 B all-reduces on a
 * DGX-A100, 2 to 8 GPUs driven by one thread (-g N), 10.0 to 33.7 us: the
 * least-squares fit of the relative error of max(device, N h) over its 7 rows
 * (validation/train_layouts.py recomputes it); judged on the other sources of
 * docs/sources/nccl-small-message-latency.md (validation/README.md). */
#define RIDGE_NCCL_HOST_ENQUEUE_S 4.34e-6

enum ridge_comm_algorithm {
	RIDGE_ALGO_AUTO, /* the fastest that applies (NCCL's choice by its model) */
	RIDGE_ALGO_RING,
	RIDGE_ALGO_TREE,   /* all-reduce only */
	RIDGE_ALGO_NVLS,   /* all-reduce only, NVLink SHARP in the switch */
	RIDGE_ALGO_DIRECT, /* all-to-all pairwise exchange; send-recv */
	RIDGE_ALGO_NONE,   /* one GPU: nothing to communicate */
	/* all-reduce only, not NCCL's: the serving engines' own one-kernel
	 * all-reduce through peer memory (comm_custom_allreduce_s); never
	 * chosen by AUTO */
	RIDGE_ALGO_CUSTOM,
	RIDGE_ALGO_COUNT
};

/* How a collective is launched (above). DEVICE (0) is what a zeroed input gets. */
enum ridge_comm_launch {
	RIDGE_COMM_LAUNCH_DEVICE, /* the device's time alone: NCCL's tuner estimate */
	RIDGE_COMM_LAUNCH_EAGER,  /* a stream of eager launches, host and device pipelined */
	RIDGE_COMM_LAUNCH_GRAPH,  /* captured in a CUDA graph: one node each */
	RIDGE_COMM_LAUNCH_COUNT
};

/* "device", "eager", "graph". */
const char *comm_launch_name(enum ridge_comm_launch launch);
bool comm_launch_parse(const char *text, enum ridge_comm_launch *out);

/* "auto", "ring", "tree", "nvls", "direct", "none", "custom". */
const char *comm_algorithm_name(enum ridge_comm_algorithm algorithm);
bool comm_algorithm_parse(const char *text, enum ridge_comm_algorithm *out);
/* all-reduce (allreduce), all-gather, reduce-scatter, all-to-all, send-recv (p2p). */
bool comm_collective_parse(const char *text, enum ridge_collective *out);
const char *comm_collective_list(void); /* for messages */

struct ridge_comm_input {
	enum ridge_collective op;
	double gpus;  /* N, a whole number >= 1 */
	double bytes; /* M, nccl-tests' size */
	enum ridge_comm_algorithm algorithm;
	double network_bandwidth; /* bytes/s per GPU, one direction, between fabric domains; 0: none */
	enum ridge_comm_launch launch;
	double gpus_per_process; /* GPUs one host thread drives (eager); 0: 1 */
};

/* The network per GPU the entry's node gives: nics x nic_bandwidth /
 * domain_gpus (DGX H100: 8 x 400 Gb/s for 8 GPUs, 50 GB/s); 0 when not given. */
double comm_network_per_gpu(const struct ridge_interconnect *ic);

/* ---- the serving engines' custom all-reduce ----
 *
 * vLLM, SGLang and TensorRT-LLM reduce a small tensor-parallel message with
 * their own kernel instead of NCCL's: every GPU reads its peers' buffers
 * through NVLink peer memory and sums them in one kernel (one-shot), or
 * reduces a slice and gathers (two-shot), behind flag barriers, with no ring
 * steps. The engines use it inside one NVLink switch domain up to a size cap
 * (struct ridge_engine.custom_allreduce_max_bytes) and NCCL past it.
 *
 * Its device time is the published table of SGLang PR #2904 (sgl-project/
 * sglang, "optimize custom allreduce kernel", 2025-01-15: TensorRT-LLM's
 * one-shot/two-shot kernels as SGLang runs them, H100 SXM, 2, 4 and 8 GPUs,
 * 512 to 1,048,576 bf16 elements), interpolated linearly in bytes (flat
 * below the smallest message). Only the H100 was measured: other NVLink
 * switch GPUs get the H100's times (the result's caveat says so). Nothing
 * was fitted. docs/models/comm.md, "Serving engines' custom all-reduce". */
#define RIDGE_CUSTOM_ALLREDUCE_MAX_TABLE_BYTES 2097152.0 /* the table's largest message */
/* The table's device time for n GPUs and bytes; 0 where it has no row
 * (n other than 2, 4, 8; bytes past the table). */
double comm_custom_allreduce_s(double n, double bytes);

/* The NVLS bus bandwidth on n GPUs of one domain (above); 0 without NVLS. */
double comm_nvls_bus_bandwidth(const struct ridge_interconnect *ic, double n);

struct ridge_comm_result {
	enum ridge_collective op;
	enum ridge_comm_algorithm algorithm; /* the one priced; AUTO: a measurement (NCCL's own choice) */
	double gpus, bytes;
	double bus_factor;      /* 2(N-1)/N, (N-1)/N or 1 */
	double bus_bytes;       /* bus_factor * M */
	double domains;         /* fabric domains spanned: ceil(N / domain_gpus) */
	double gpus_per_domain; /* g = N / domains */
	double intra_steps, inter_steps;
	double base_latency_s, step_latency_s, net_step_latency_s;
	double alpha_s;
	double link_bandwidth;  /* bytes/s, one direction: the links the algorithm uses */
	double efficiency;      /* bus_bandwidth / link_bandwidth */
	double bus_bandwidth;   /* bytes/s */
	double beta_s_per_byte; /* bus_factor / bus_bandwidth */
	double time_s;          /* device_s + launch_term_s */
	enum ridge_comm_launch launch;
	double gpus_per_process;
	double device_s;              /* alpha + bus bytes / bus bandwidth: NCCL's tuner estimate */
	double host_issue_s;          /* eager: gpus_per_process x RIDGE_NCCL_HOST_ENQUEUE_S */
	double graph_node_s;          /* graph: the entry's launch.graph_node */
	double launch_term_s;         /* time_s - device_s */
	const char *launch_bound;     /* "device", "host" (eager), "graph node", "none" */
	double algbw;                 /* M / time */
	double busbw;                 /* bus_bytes / time */
	const char *bandwidth_source; /* "measured", "published", "derived" */
	const char *latency_source;   /* "measured", "NCCL/RCCL tuning model, hwdb" */
	const char *path;             /* "NVSwitch", "mesh", "bridge", "PCIe", "network", "NVLS + network tree", ... */
	/* past one domain: the network per GPU at NCCL's efficiency, and the two
	 * phases of a hierarchical tree per byte of M (0 for the others) */
	double network_bus_bandwidth; /* bytes/s per GPU */
	double intra_s_per_byte, inter_s_per_byte;
	double inter_nics; /* the tree's NICs between domains, per domain: g, or NVLSTree's heads */
	/* where the prediction is past what published runs confirm, why (NULL: within them) */
	const char *caveat;
};

/* Fills out. Returns 0, or -1 with err (no fabric in the entry, N < 1 or not
 * whole, bytes negative, an algorithm that does not apply, a network needed). */
int comm_collective(const struct ridge_gpu *gpu, const struct ridge_comm_input *in, struct ridge_comm_result *out,
		    char *err, size_t err_len);

/* ---- the parallelism terms built on comm_collective ---- */

/* Each helper below prices its collectives as launch says (above). */

/* Tensor parallel (Megatron): each layer's attention and MLP blocks end in an
 * all-reduce of the activations, tokens x hidden x act_bytes, over the tp GPUs:
 * 2 per layer forward (decode, prefill), 4 with the backward pass (training). */
struct ridge_tp_comm {
	double bytes_per_allreduce;
	double allreduces; /* per step */
	struct ridge_comm_result one;
	double time_s; /* allreduces * one.time_s, before any overlap */
};

int comm_tensor_parallel(const struct ridge_gpu *gpu, double tp, double tokens, double hidden, double act_bytes,
			 double allreduces_per_layer, double layers, double network_bandwidth,
			 enum ridge_comm_launch launch, struct ridge_tp_comm *out, char *err, size_t err_len);

/* Decode or prefill: 2 all-reduces per layer of tokens x hidden (tokens = the
 * batch for a decode step, batch x prompt for prefill). */
int comm_tensor_parallel_decode(const struct ridge_gpu *gpu, double tp, double tokens, double hidden, double act_bytes,
				double layers, double network_bandwidth, enum ridge_comm_launch launch,
				struct ridge_tp_comm *out, char *err, size_t err_len);

/* Expert parallel: each MoE layer sends every routed token copy to its
 * expert's GPU and back, two all-to-alls of tokens x top_k x hidden x act_bytes. */
struct ridge_ep_comm {
	double bytes_per_alltoall;
	double alltoalls;
	struct ridge_comm_result one;
	double time_s;
};

int comm_expert_parallel(const struct ridge_gpu *gpu, double ep, double tokens, double top_k, double hidden,
			 double act_bytes, double moe_layers, double network_bandwidth, enum ridge_comm_launch launch,
			 struct ridge_ep_comm *out, char *err, size_t err_len);

/* Pipeline parallel: pp stages, m micro-batches per step. The bubble (GPipe /
 * 1F1B) idles (pp-1)/(m+pp-1) of the step; each micro-batch crosses pp-1 stage
 * boundaries, a send-recv of tokens x hidden x act_bytes each way per pass. */
/* The communication of one decode step or prefill on tp GPUs: 2 all-reduces
 * per layer of tokens x hidden x 2 B (after attention, after the MLP). With
 * expert_parallel, the MoE layers keep whole experts on the tp GPUs instead
 * of slicing each one: their MLP all-reduce becomes a dispatch and a combine
 * all-to-all of tokens x top_k x hidden x 2 B (comm_expert_parallel), so
 * 2 L - moe_layers all-reduces and 2 moe_layers all-to-alls. overlap (0..1)
 * of the total hides under the kernels (0: NCCL's kernels run between the
 * layer's kernels); exposed_s is what the step pays. */
struct ridge_serve_comm {
	bool has_tp, has_ep;
	struct ridge_tp_comm tp;
	struct ridge_ep_comm ep;
	double total_s;
	double overlap;
	double exposed_s;
};

int comm_serve_step(const struct ridge_gpu *gpu, double tp, bool expert_parallel, double tokens, double hidden,
		    double layers, double top_k, double moe_layers, double overlap, double network_bandwidth,
		    struct ridge_serve_comm *out, char *err, size_t err_len);
/* The same with each collective priced as it is launched (comm_serve_step:
 * RIDGE_COMM_LAUNCH_DEVICE): a step run as a CUDA graph pays a graph node per
 * collective; eagerly, the slower of the device and the host's enqueue. */
int comm_serve_step_launch(const struct ridge_gpu *gpu, double tp, bool expert_parallel, double tokens, double hidden,
			   double layers, double top_k, double moe_layers, double overlap, double network_bandwidth,
			   enum ridge_comm_launch launch, struct ridge_serve_comm *out, char *err, size_t err_len);

/* The same as a serving engine runs its all-reduces: those below
 * custom_max_bytes go to the engine's own kernel (RIDGE_ALGO_CUSTOM) where it
 * applies (an NVLink switch domain, 2, 4 or 8 GPUs, a message its published
 * times cover), the rest to NCCL (custom_max_bytes 0: all of them). */
int comm_serve_step_engine(const struct ridge_gpu *gpu, double tp, bool expert_parallel, double tokens, double hidden,
			   double layers, double top_k, double moe_layers, double overlap, double network_bandwidth,
			   enum ridge_comm_launch launch, double custom_max_bytes, struct ridge_serve_comm *out,
			   char *err, size_t err_len);

struct ridge_pp_comm {
	double bubble_fraction;
	double bytes_per_transfer;
	double transfers; /* per step, on the critical path */
	struct ridge_comm_result one;
	double time_s;
};

int comm_pipeline_parallel(const struct ridge_gpu *gpu, double pp, double micro_batches, double tokens_per_micro_batch,
			   double hidden, double act_bytes, double passes, double network_bandwidth,
			   enum ridge_comm_launch launch, struct ridge_pp_comm *out, char *err, size_t err_len);

#endif
