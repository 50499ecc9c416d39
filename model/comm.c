#include "comm.h"
#include "names.h"
#include "fail.h"

#include <math.h>
#include <string.h>

static const char *const algorithm_names[RIDGE_ALGO_COUNT] = { "auto",   "ring", "tree",  "nvls",
							       "direct", "none", "custom" };
static const char *const launch_names[RIDGE_COMM_LAUNCH_COUNT] = { "device", "eager", "graph" };

const char *comm_launch_name(enum ridge_comm_launch launch)
{
	return model_name_of(launch_names, 0, RIDGE_COMM_LAUNCH_COUNT, (int)launch);
}

bool comm_launch_parse(const char *text, enum ridge_comm_launch *out)
{
	int i = model_name_index(launch_names, 0, RIDGE_COMM_LAUNCH_COUNT, text);
	if (i < 0)
		return false;
	*out = (enum ridge_comm_launch)i;
	return true;
}

const char *comm_algorithm_name(enum ridge_comm_algorithm algorithm)
{
	return model_name_of(algorithm_names, 0, RIDGE_ALGO_COUNT, (int)algorithm);
}

bool comm_algorithm_parse(const char *text, enum ridge_comm_algorithm *out)
{
	int i = model_name_index(algorithm_names, 0, RIDGE_ALGO_COUNT, text);
	if (i < 0 || i == RIDGE_ALGO_NONE)
		return false;
	*out = (enum ridge_comm_algorithm)i;
	return true;
}

bool comm_collective_parse(const char *text, enum ridge_collective *out)
{
	static const struct {
		const char *name;
		enum ridge_collective op;
	} names[] = {
		{ "all-reduce", RIDGE_ALL_REDUCE },
		{ "allreduce", RIDGE_ALL_REDUCE },
		{ "all-gather", RIDGE_ALL_GATHER },
		{ "allgather", RIDGE_ALL_GATHER },
		{ "reduce-scatter", RIDGE_REDUCE_SCATTER },
		{ "reducescatter", RIDGE_REDUCE_SCATTER },
		{ "all-to-all", RIDGE_ALL_TO_ALL },
		{ "alltoall", RIDGE_ALL_TO_ALL },
		{ "send-recv", RIDGE_SEND_RECV },
		{ "sendrecv", RIDGE_SEND_RECV },
		{ "p2p", RIDGE_SEND_RECV },
	};
	int i = model_row_index(names, sizeof names / sizeof names[0], sizeof names[0], text);
	if (i < 0)
		return false;
	*out = names[i].op;
	return true;
}

const char *comm_collective_list(void)
{
	return "all-reduce, all-gather, reduce-scatter, all-to-all, send-recv (p2p)";
}

/* nccl-tests' bus factor: the bytes each GPU puts on its links per byte of M. */
static double bus_factor(enum ridge_collective op, double n)
{
	switch (op) {
	case RIDGE_ALL_REDUCE:
		return 2 * (n - 1) / n;
	case RIDGE_ALL_GATHER:
	case RIDGE_REDUCE_SCATTER:
	case RIDGE_ALL_TO_ALL:
		return (n - 1) / n;
	default:
		return 1;
	}
}

/* The one-direction rate of the links n GPUs of one domain use, and where it runs. */
static double link_rate(const struct ridge_interconnect *ic, enum ridge_collective op, double n, const char **path,
			double *step_latency)
{
	*step_latency = ic->latency;
	switch (ic->topology) {
	case RIDGE_TOPOLOGY_SWITCH:
		*path = "NVSwitch";
		return op == RIDGE_SEND_RECV ? ic->peer_bandwidth : ic->per_direction;
	case RIDGE_TOPOLOGY_MESH:
		*path = "mesh";
		/* one link (peer_bandwidth) to each of the n-1 others; rings and
		 * pairwise exchanges use them all at once */
		return op == RIDGE_SEND_RECV ? ic->peer_bandwidth
					     : fmin(ic->per_direction, (n - 1) * ic->peer_bandwidth);
	case RIDGE_TOPOLOGY_BRIDGE:
		if (n <= ic->domain_gpus) {
			*path = "bridge";
			return ic->peer_bandwidth;
		}
		*path = "PCIe";
		*step_latency = RIDGE_NCCL_PCI_STEP_LATENCY;
		return ic->pcie_bandwidth;
	default:
		*path = "PCIe";
		return ic->pcie_bandwidth;
	}
}

static double log2_whole(double x)
{
	return ceil(log2(x));
}

double comm_network_per_gpu(const struct ridge_interconnect *ic)
{
	if (ic->nics < 1 || !ic->has_nic_bandwidth || ic->domain_gpus < 1)
		return 0;
	return ic->nics * ic->nic_bandwidth / ic->domain_gpus;
}

double comm_nvls_bus_bandwidth(const struct ridge_interconnect *ic, double n)
{
	double d = ic->domain_gpus;
	if (!ic->nvls || !ic->has_nvls_bus_bandwidth || n < 2 || d < 2)
		return 0;
	return ic->nvls_bus_bandwidth * ((n - 1) / (n + 1)) / ((d - 1) / (d + 1));
}

/* The bus bandwidth inside one domain of g GPUs: measured, published or derived. */
static void bandwidth_within(const struct ridge_interconnect *ic, const struct ridge_comm_input *in,
			     enum ridge_comm_algorithm algorithm, double g, bool measured, struct ridge_comm_result *r)
{
	const struct ridge_collective_measured *m = &ic->measured[in->op];
	if (measured) {
		r->bus_bandwidth = m->bus_bandwidth;
		r->bandwidth_source = "measured";
	} else if (algorithm == RIDGE_ALGO_NVLS) {
		r->bus_bandwidth = comm_nvls_bus_bandwidth(ic, g);
		r->bandwidth_source = "published";
	} else if (ic->has_bus_bandwidth && ic->topology == RIDGE_TOPOLOGY_SWITCH) {
		r->bus_bandwidth = ic->bus_bandwidth;
		r->bandwidth_source = "published";
	} else {
		r->bus_bandwidth = r->link_bandwidth * RIDGE_NCCL_EFFICIENCY;
		r->bandwidth_source = "derived";
	}
}

/* Busiest node of NCCL's double binary tree over d nodes: it sends (and
 * receives) M/2 over each of its edges in the two trees, at most 4 of them. */
static double tree_node_load(double d)
{
	return fmin(2 * (d - 1), 4) / 2;
}

/* Past one domain: the network per GPU caps the ring and the direct
 * exchanges at the node's NICs; the tree runs hierarchically (comm.h).
 * Returns whether the tree's phase inside the domain is NVLS (NVLSTree). */
static bool across_domains(const struct ridge_interconnect *ic, const struct ridge_comm_input *in,
			   enum ridge_comm_algorithm shape, struct ridge_comm_result *r)
{
	double g = r->gpus_per_domain, d = r->domains;
	double net = in->network_bandwidth * RIDGE_NCCL_NET_EFFICIENCY;
	r->network_bus_bandwidth = net;
	if (shape == RIDGE_ALGO_TREE) {
		/* inside the node: the all-reduce of the node's g GPUs, NVLS where it is faster */
		double intra_bus = fmax(r->bus_bandwidth, comm_nvls_bus_bandwidth(ic, g));
		bool nvls = comm_nvls_bus_bandwidth(ic, g) > r->bus_bandwidth;
		/* NVLSTree reaches the network through at most NCCL's 32 heads per domain */
		double nics = nvls ? fmin(g, RIDGE_NCCL_MAX_NVLS_HEADS) : g;
		r->intra_s_per_byte = g > 1 ? 2 * (g - 1) / g / intra_bus : 0;
		r->inter_s_per_byte = tree_node_load(d) / (nics * net);
		r->inter_nics = nics;
		double per_byte = fmax(r->intra_s_per_byte, r->inter_s_per_byte);
		r->bus_bandwidth = r->bus_factor / per_byte;
		r->link_bandwidth =
			r->intra_s_per_byte >= r->inter_s_per_byte ? r->link_bandwidth : nics * in->network_bandwidth;
		r->path = nvls                                  ? "NVLS + network tree"
			  : ic->topology == RIDGE_TOPOLOGY_MESH ? "Infinity Fabric + network tree"
								: "NVLink + network tree";
		r->bandwidth_source = "derived";
		/* validation/README.md: GB200 NVL72 nccl-tests all-reduce, CoreWeave */
		if (nvls && g > 8 && d > 2)
			r->caveat =
				"an upper bound: NVLSTree across rack-scale domains is confirmed up to 2 domains (72 "
				"GB200 each: 810 GB/s busbw measured, +3.5 %); at 20 domains nccl-tests measured "
				"405.7 GB/s, half of this model's, for reasons not known (validation/README.md)";
		return nvls;
	}
	/* a ring leaves each node once per channel: the node's g NICs carry the bus bytes */
	double cap = shape == RIDGE_ALGO_RING ? g * net : net;
	if (cap < r->bus_bandwidth) {
		r->bus_bandwidth = cap;
		r->link_bandwidth = shape == RIDGE_ALGO_RING ? g * in->network_bandwidth : in->network_bandwidth;
		r->bandwidth_source = "derived";
		r->path = "network";
	}
	return false;
}

static int price(const struct ridge_gpu *gpu, const struct ridge_comm_input *in, enum ridge_comm_algorithm algorithm,
		 struct ridge_comm_result *r, char *err, size_t err_len)
{
	const struct ridge_interconnect *ic = &gpu->ic;
	double n = in->gpus;
	/* A bridge joins pairs; past it the cards talk over PCIe, which spans the host. */
	double domain = ic->topology == RIDGE_TOPOLOGY_BRIDGE && n > ic->domain_gpus ? n : ic->domain_gpus;
	r->algorithm = algorithm;
	r->domains = ceil(n / domain);
	r->gpus_per_domain = n / r->domains;
	r->bus_factor = bus_factor(in->op, n);
	r->bus_bytes = r->bus_factor * in->bytes;
	r->base_latency_s = ic->base_latency;
	r->net_step_latency_s = RIDGE_NCCL_NET_STEP_LATENCY;
	r->link_bandwidth = link_rate(ic, in->op, r->gpus_per_domain, &r->path, &r->step_latency_s);
	r->latency_source = "NCCL/RCCL tuning model, hwdb";

	const struct ridge_collective_measured *m = &ic->measured[in->op];
	bool measured = algorithm == RIDGE_ALGO_AUTO && m->has_bus_bandwidth && r->domains == 1;
	bandwidth_within(ic, in, algorithm, r->gpus_per_domain, measured, r);
	enum ridge_comm_algorithm shape = algorithm;
	if (shape == RIDGE_ALGO_AUTO) /* measured: NCCL's ring, or the direct exchange */
		shape = in->op == RIDGE_SEND_RECV || in->op == RIDGE_ALL_TO_ALL ? RIDGE_ALGO_DIRECT : RIDGE_ALGO_RING;
	bool nvls_tree = false;
	if (r->domains > 1) {
		if (!(in->network_bandwidth > 0))
			return model_fail(
				err, err_len,
				"%g GPUs span %g fabric domains of %d: the network bandwidth per GPU is needed", n,
				r->domains, ic->domain_gpus);
		nvls_tree = across_domains(ic, in, shape, r);
	} else if (algorithm == RIDGE_ALGO_TREE) {
		r->bus_bandwidth *= RIDGE_NCCL_TREE_BANDWIDTH_FACTOR;
	}
	r->efficiency = r->bus_bandwidth / r->link_bandwidth;

	/* Steps, as NCCL's tuning model counts them. */
	double g = r->gpus_per_domain, d = r->domains;
	switch (shape) {
	case RIDGE_ALGO_TREE:
		r->intra_steps = 2 * (g - 1);
		r->inter_steps = 2 * log2_whole(d);
		if (nvls_tree) { /* NVLSTree: one in-switch reduction, Simple protocol only */
			r->intra_steps = 0;
			r->base_latency_s = RIDGE_NCCL_NVLS_LATENCY;
			r->net_step_latency_s = RIDGE_NCCL_NVLS_TREE_NET_STEP_LATENCY;
		}
		break;
	case RIDGE_ALGO_NVLS:
		r->intra_steps = 0;
		r->inter_steps = 0;
		r->base_latency_s = RIDGE_NCCL_NVLS_LATENCY;
		break;
	case RIDGE_ALGO_DIRECT:
		if (in->op == RIDGE_SEND_RECV) {
			r->intra_steps = d > 1 ? 0 : 1;
			r->inter_steps = d > 1 ? 1 : 0;
		} else { /* pairwise all-to-all: N-1 exchanges, those to other domains over the network */
			r->intra_steps = g - 1;
			r->inter_steps = n - g;
		}
		break;
	default: { /* ring */
		double steps = in->op == RIDGE_ALL_REDUCE ? 2 * (n - 1) : n - 1;
		double inter = in->op == RIDGE_ALL_REDUCE ? 2 * (d - 1) : d - 1;
		r->intra_steps = steps - inter;
		r->inter_steps = inter;
		break;
	}
	}
	r->alpha_s = r->base_latency_s + r->intra_steps * r->step_latency_s + r->inter_steps * r->net_step_latency_s;
	if (measured && m->has_latency && ic->measured_gpus == (int)n) {
		r->alpha_s = m->latency;
		r->latency_source = "measured";
	}
	r->beta_s_per_byte = r->bus_factor / r->bus_bandwidth;
	r->time_s = r->alpha_s + r->bus_bytes / r->bus_bandwidth;
	r->algbw = r->time_s > 0 ? in->bytes / r->time_s : 0;
	r->busbw = r->time_s > 0 ? r->bus_bytes / r->time_s : 0;
	return 0;
}

/* SGLang PR #2904's table (comm.h): bf16 elements 512 ... 1,048,576 as bytes,
 * and the microseconds at 2, 4 and 8 GPUs (H100 SXM). */
static const double custom_allreduce_bytes[] = { 1024, 8192, 65536, 524288, 1048576, 2097152 };
static const double custom_allreduce_us[3][6] = {
	{ 3.7, 3.9, 4.5, 7.9, 12.5, 19.9 },  /* 2 GPUs */
	{ 4.8, 3.7, 4.8, 13.9, 20.2, 31.1 }, /* 4 GPUs */
	{ 5.9, 5.7, 7.8, 16.7, 22.1, 33.8 }, /* 8 GPUs */
};

double comm_custom_allreduce_s(double n, double bytes)
{
	int row = n == 2 ? 0 : n == 4 ? 1 : n == 8 ? 2 : -1;
	if (row < 0 || !(bytes >= 0) || bytes > RIDGE_CUSTOM_ALLREDUCE_MAX_TABLE_BYTES)
		return 0;
	const double *us = custom_allreduce_us[row];
	if (bytes <= custom_allreduce_bytes[0])
		return us[0] * 1e-6;
	int i = 1;
	while (bytes > custom_allreduce_bytes[i])
		i++;
	double x0 = custom_allreduce_bytes[i - 1], x1 = custom_allreduce_bytes[i];
	return (us[i - 1] + (us[i] - us[i - 1]) * (bytes - x0) / (x1 - x0)) * 1e-6;
}

/* The custom all-reduce's terms (comm.h): its table's time, no ring steps. */
static void price_custom(const struct ridge_gpu *gpu, const struct ridge_comm_input *in, struct ridge_comm_result *r)
{
	r->algorithm = RIDGE_ALGO_CUSTOM;
	r->domains = 1;
	r->gpus_per_domain = in->gpus;
	r->bus_factor = bus_factor(in->op, in->gpus);
	r->bus_bytes = r->bus_factor * in->bytes;
	r->link_bandwidth = gpu->ic.per_direction;
	r->time_s = comm_custom_allreduce_s(in->gpus, in->bytes);
	r->alpha_s = r->time_s;
	r->algbw = in->bytes / r->time_s;
	r->busbw = r->bus_bytes / r->time_s;
	r->bus_bandwidth = r->busbw;
	r->efficiency = r->link_bandwidth > 0 ? r->bus_bandwidth / r->link_bandwidth : 0;
	r->bandwidth_source = "published";
	r->latency_source = "published: SGLang PR #2904, TensorRT-LLM's custom all-reduce kernels on H100 SXM";
	r->path = "NVSwitch (peer memory)";
	if (strcmp(gpu->id, "h100-sxm") != 0)
		r->caveat = "the custom all-reduce's times are the H100 SXM's (SGLang PR #2904), transferred to this "
			    "GPU";
}

/* The algorithms NCCL has for op on this fabric (and the engines' custom
 * all-reduce, asked for by name). */
static bool applies(const struct ridge_interconnect *ic, enum ridge_collective op, enum ridge_comm_algorithm a,
		    double n, const char **why)
{
	switch (a) {
	case RIDGE_ALGO_RING:
		*why = "send-recv and all-to-all are direct exchanges, not rings";
		return op != RIDGE_SEND_RECV && op != RIDGE_ALL_TO_ALL;
	case RIDGE_ALGO_TREE:
		*why = "NCCL's tree is an all-reduce algorithm";
		return op == RIDGE_ALL_REDUCE;
	case RIDGE_ALGO_NVLS:
		if (op != RIDGE_ALL_REDUCE) {
			*why = "NVLS is priced for all-reduce only";
			return false;
		}
		if (!ic->nvls) {
			*why = "the fabric has no NVLink SHARP (needs a third-generation or later NVSwitch)";
			return false;
		}
		if (n > ic->domain_gpus) {
			*why = "NVLS reduces inside one NVSwitch domain";
			return false;
		}
		*why = "no NVLS bus bandwidth is published or measured for this GPU (interconnect.nvls_bus_bandwidth)";
		return comm_nvls_bus_bandwidth(ic, n) > 0;
	case RIDGE_ALGO_DIRECT:
		*why = "direct exchange is for all-to-all and send-recv";
		return op == RIDGE_SEND_RECV || op == RIDGE_ALL_TO_ALL;
	case RIDGE_ALGO_CUSTOM:
		if (op != RIDGE_ALL_REDUCE) {
			*why = "the engines' custom kernel is an all-reduce";
			return false;
		}
		if (ic->topology != RIDGE_TOPOLOGY_SWITCH || n > ic->domain_gpus) {
			*why = "the engines' custom all-reduce reads peers' memory inside one NVLink switch domain";
			return false;
		}
		*why = "its published times are for 2, 4 and 8 GPUs";
		return n == 2 || n == 4 || n == 8;
	default:
		*why = "";
		return false;
	}
}

/* The launch mode's term on top of the device time (comm.h, "Launch mode"). */
static void apply_launch(const struct ridge_gpu *gpu, const struct ridge_comm_input *in, struct ridge_comm_result *r)
{
	r->launch = in->launch;
	r->gpus_per_process = in->gpus_per_process > 0 ? in->gpus_per_process : 1;
	r->device_s = r->time_s;
	r->launch_bound = r->algorithm == RIDGE_ALGO_NONE ? "none" : "device";
	if (r->algorithm == RIDGE_ALGO_NONE)
		return; /* one GPU: no collective is launched */
	if (in->launch == RIDGE_COMM_LAUNCH_EAGER) {
		r->host_issue_s = r->gpus_per_process * RIDGE_NCCL_HOST_ENQUEUE_S;
		if (r->host_issue_s > r->device_s) {
			r->time_s = r->host_issue_s;
			r->launch_bound = "host";
		}
	} else if (in->launch == RIDGE_COMM_LAUNCH_GRAPH) {
		r->graph_node_s = gpu->graph_node_s;
		r->time_s += r->graph_node_s;
		r->launch_bound = "graph node";
	}
	r->launch_term_s = r->time_s - r->device_s;
	r->algbw = r->time_s > 0 ? r->bytes / r->time_s : 0;
	r->busbw = r->time_s > 0 ? r->bus_bytes / r->time_s : 0;
}

static int collective_on_device(const struct ridge_gpu *gpu, const struct ridge_comm_input *in,
				struct ridge_comm_result *out, char *err, size_t err_len);

int comm_collective(const struct ridge_gpu *gpu, const struct ridge_comm_input *in, struct ridge_comm_result *out,
		    char *err, size_t err_len)
{
	if ((int)in->launch < 0 || in->launch >= RIDGE_COMM_LAUNCH_COUNT) {
		memset(out, 0, sizeof *out);
		return model_fail(err, err_len, "unknown launch mode");
	}
	if (!isfinite(in->gpus_per_process) || in->gpus_per_process < 0 ||
	    in->gpus_per_process != floor(in->gpus_per_process) || in->gpus_per_process > in->gpus) {
		memset(out, 0, sizeof *out);
		return model_fail(err, err_len, "GPUs per process must be a whole number from 1 to the %g GPUs, not %g",
				  in->gpus, in->gpus_per_process);
	}
	if (collective_on_device(gpu, in, out, err, err_len) != 0)
		return -1;
	apply_launch(gpu, in, out);
	return 0;
}

/* The collective's device time: NCCL's tuner estimate (alpha + beta M). */
static int collective_on_device(const struct ridge_gpu *gpu, const struct ridge_comm_input *in,
				struct ridge_comm_result *out, char *err, size_t err_len)
{
	memset(out, 0, sizeof *out);
	const struct ridge_interconnect *ic = &gpu->ic;
	if (!ic->has_fabric)
		return model_fail(err, err_len,
				  "%s has no interconnect fabric in hwdb (interconnect.topology, per_direction, ...)",
				  gpu->id);
	if ((int)in->op < 0 || in->op >= RIDGE_COLLECTIVE_COUNT)
		return model_fail(err, err_len, "unknown collective");
	if (!isfinite(in->gpus) || in->gpus < 1 || in->gpus != floor(in->gpus) || in->gpus > 1e9)
		return model_fail(err, err_len, "GPUs must be a whole number from 1, not %g", in->gpus);
	if (!isfinite(in->bytes) || in->bytes < 0)
		return model_fail(err, err_len, "bytes must be 0 or more, not %g", in->bytes);
	if (in->network_bandwidth < 0 || !isfinite(in->network_bandwidth))
		return model_fail(err, err_len, "network bandwidth must be 0 or more");
	if (in->op == RIDGE_SEND_RECV && in->gpus < 2)
		return model_fail(err, err_len, "send-recv needs 2 GPUs, not %g", in->gpus);
	out->op = in->op;
	out->gpus = in->gpus;
	out->bytes = in->bytes;
	if (in->gpus == 1) {
		out->algorithm = RIDGE_ALGO_NONE;
		out->domains = 1;
		out->gpus_per_domain = 1;
		out->bandwidth_source = "none";
		out->latency_source = "none";
		out->path = "none";
		return 0;
	}
	const char *why;
	if (in->algorithm != RIDGE_ALGO_AUTO) {
		if (!applies(ic, in->op, in->algorithm, in->gpus, &why))
			return model_fail(err, err_len, "%s does not apply to %s on %s: %s",
					  comm_algorithm_name(in->algorithm), ridge_collective_name(in->op), gpu->id,
					  why);
		out->op = in->op;
		if (in->algorithm == RIDGE_ALGO_CUSTOM) {
			if (in->bytes > RIDGE_CUSTOM_ALLREDUCE_MAX_TABLE_BYTES)
				return model_fail(err, err_len,
						  "custom all-reduce: its published times go to %.0f bytes, not %g",
						  RIDGE_CUSTOM_ALLREDUCE_MAX_TABLE_BYTES, in->bytes);
			price_custom(gpu, in, out);
			return 0;
		}
		return price(gpu, in, in->algorithm, out, err, err_len);
	}
	/* A measured collective is what NCCL chose: take it as it is. */
	const struct ridge_collective_measured *m = &ic->measured[in->op];
	if (m->has_bus_bandwidth && in->gpus <= ic->domain_gpus) {
		if (price(gpu, in, RIDGE_ALGO_AUTO, out, err, err_len) != 0)
			return -1;
		out->algorithm = RIDGE_ALGO_AUTO; /* whatever NCCL chose when it was measured */
		return 0;
	}
	bool found = false;
	for (int a = RIDGE_ALGO_RING; a <= RIDGE_ALGO_DIRECT; a++) {
		if (!applies(ic, in->op, (enum ridge_comm_algorithm)a, in->gpus, &why))
			continue;
		struct ridge_comm_result r = { 0 };
		r.op = in->op;
		r.gpus = in->gpus;
		r.bytes = in->bytes;
		if (price(gpu, in, (enum ridge_comm_algorithm)a, &r, err, err_len) != 0)
			return -1;
		if (!found || r.time_s < out->time_s)
			*out = r;
		found = true;
	}
	return 0;
}

/* ---- parallelism terms ---- */

static int positive_inputs(const char *what, double v, char *err, size_t err_len)
{
	if (!isfinite(v) || v <= 0)
		return model_fail(err, err_len, "%s must be greater than 0, not %g", what, v);
	return 0;
}

/* count collectives of one kind, each of bytes over n GPUs (NCCL's choice of
 * algorithm): one's terms in *one, all of them in *time_s. */
static int repeated_collective(const struct ridge_gpu *gpu, enum ridge_collective op, double n, double bytes,
			       double count, double network_bandwidth, enum ridge_comm_launch launch,
			       struct ridge_comm_result *one, double *time_s, char *err, size_t err_len)
{
	struct ridge_comm_input in = { op, n, bytes, RIDGE_ALGO_AUTO, network_bandwidth, launch, 1 };
	if (comm_collective(gpu, &in, one, err, err_len) != 0)
		return -1;
	*time_s = count * one->time_s;
	return 0;
}

int comm_tensor_parallel(const struct ridge_gpu *gpu, double tp, double tokens, double hidden, double act_bytes,
			 double allreduces_per_layer, double layers, double network_bandwidth,
			 enum ridge_comm_launch launch, struct ridge_tp_comm *out, char *err, size_t err_len)
{
	memset(out, 0, sizeof *out);
	if (positive_inputs("tokens", tokens, err, err_len) || positive_inputs("hidden size", hidden, err, err_len) ||
	    positive_inputs("activation bytes", act_bytes, err, err_len) ||
	    positive_inputs("layers", layers, err, err_len))
		return -1;
	out->bytes_per_allreduce = tokens * hidden * act_bytes;
	out->allreduces = allreduces_per_layer * layers;
	return repeated_collective(gpu, RIDGE_ALL_REDUCE, tp, out->bytes_per_allreduce, out->allreduces,
				   network_bandwidth, launch, &out->one, &out->time_s, err, err_len);
}

int comm_tensor_parallel_decode(const struct ridge_gpu *gpu, double tp, double tokens, double hidden, double act_bytes,
				double layers, double network_bandwidth, enum ridge_comm_launch launch,
				struct ridge_tp_comm *out, char *err, size_t err_len)
{
	return comm_tensor_parallel(gpu, tp, tokens, hidden, act_bytes, 2, layers, network_bandwidth, launch, out, err,
				    err_len);
}

int comm_expert_parallel(const struct ridge_gpu *gpu, double ep, double tokens, double top_k, double hidden,
			 double act_bytes, double moe_layers, double network_bandwidth, enum ridge_comm_launch launch,
			 struct ridge_ep_comm *out, char *err, size_t err_len)
{
	memset(out, 0, sizeof *out);
	if (positive_inputs("tokens", tokens, err, err_len) ||
	    positive_inputs("experts per token", top_k, err, err_len) ||
	    positive_inputs("hidden size", hidden, err, err_len) ||
	    positive_inputs("activation bytes", act_bytes, err, err_len) ||
	    positive_inputs("MoE layers", moe_layers, err, err_len))
		return -1;
	out->bytes_per_alltoall = tokens * top_k * hidden * act_bytes;
	out->alltoalls = 2 * moe_layers; /* dispatch and combine */
	return repeated_collective(gpu, RIDGE_ALL_TO_ALL, ep, out->bytes_per_alltoall, out->alltoalls,
				   network_bandwidth, launch, &out->one, &out->time_s, err, err_len);
}

int comm_pipeline_parallel(const struct ridge_gpu *gpu, double pp, double micro_batches, double tokens_per_micro_batch,
			   double hidden, double act_bytes, double passes, double network_bandwidth,
			   enum ridge_comm_launch launch, struct ridge_pp_comm *out, char *err, size_t err_len)
{
	memset(out, 0, sizeof *out);
	if (!isfinite(pp) || pp < 1 || pp != floor(pp))
		return model_fail(err, err_len, "pipeline stages must be a whole number from 1, not %g", pp);
	if (!isfinite(micro_batches) || micro_batches < 1 || micro_batches != floor(micro_batches))
		return model_fail(err, err_len, "micro-batches must be a whole number from 1, not %g", micro_batches);
	if (positive_inputs("tokens per micro-batch", tokens_per_micro_batch, err, err_len) ||
	    positive_inputs("hidden size", hidden, err, err_len) ||
	    positive_inputs("activation bytes", act_bytes, err, err_len) ||
	    positive_inputs("passes", passes, err, err_len))
		return -1;
	out->bubble_fraction = (pp - 1) / (micro_batches + pp - 1);
	if (pp == 1)
		return 0;
	out->bytes_per_transfer = tokens_per_micro_batch * hidden * act_bytes;
	/* The schedule has m + pp - 1 slots per pass; a hand-off between each. */
	out->transfers = passes * (micro_batches + pp - 2);
	return repeated_collective(gpu, RIDGE_SEND_RECV, pp, out->bytes_per_transfer, out->transfers, network_bandwidth,
				   launch, &out->one, &out->time_s, err, err_len);
}

int comm_serve_step(const struct ridge_gpu *gpu, double tp, bool expert_parallel, double tokens, double hidden,
		    double layers, double top_k, double moe_layers, double overlap, double network_bandwidth,
		    struct ridge_serve_comm *out, char *err, size_t err_len)
{
	return comm_serve_step_launch(gpu, tp, expert_parallel, tokens, hidden, layers, top_k, moe_layers, overlap,
				      network_bandwidth, RIDGE_COMM_LAUNCH_DEVICE, out, err, err_len);
}

int comm_serve_step_launch(const struct ridge_gpu *gpu, double tp, bool expert_parallel, double tokens, double hidden,
			   double layers, double top_k, double moe_layers, double overlap, double network_bandwidth,
			   enum ridge_comm_launch launch, struct ridge_serve_comm *out, char *err, size_t err_len)
{
	memset(out, 0, sizeof *out);
	if (!isfinite(overlap) || overlap < 0 || overlap > 1)
		return model_fail(err, err_len, "the overlap must be in [0, 1], not %g", overlap);
	if (!isfinite(tp) || tp < 1)
		return model_fail(err, err_len, "tp must be 1 or more, not %g", tp);
	if (expert_parallel && !(moe_layers > 0 && top_k > 0))
		return model_fail(err, err_len,
				  "expert parallelism needs an MoE model (experts per token, MoE layers)");
	if (expert_parallel && moe_layers > layers)
		return model_fail(err, err_len, "more MoE layers (%g) than layers (%g)", moe_layers, layers);
	out->overlap = overlap;
	if (tp == 1)
		return 0;
	double allreduces_per_layer = expert_parallel ? (2 * layers - moe_layers) / layers : 2;
	out->has_tp = true;
	if (comm_tensor_parallel(gpu, tp, tokens, hidden, 2, allreduces_per_layer, layers, network_bandwidth, launch,
				 &out->tp, err, err_len))
		return -1;
	if (expert_parallel) {
		out->has_ep = true;
		if (comm_expert_parallel(gpu, tp, tokens, top_k, hidden, 2, moe_layers, network_bandwidth, launch,
					 &out->ep, err, err_len))
			return -1;
	}
	out->total_s = out->tp.time_s + out->ep.time_s;
	out->exposed_s = out->total_s * (1 - overlap);
	return 0;
}

int comm_serve_step_engine(const struct ridge_gpu *gpu, double tp, bool expert_parallel, double tokens, double hidden,
			   double layers, double top_k, double moe_layers, double overlap, double network_bandwidth,
			   enum ridge_comm_launch launch, double custom_max_bytes, struct ridge_serve_comm *out,
			   char *err, size_t err_len)
{
	if (comm_serve_step_launch(gpu, tp, expert_parallel, tokens, hidden, layers, top_k, moe_layers, overlap,
				   network_bandwidth, launch, out, err, err_len))
		return -1;
	const char *why;
	double bytes = out->tp.bytes_per_allreduce;
	if (!out->has_tp || !(custom_max_bytes > bytes) || bytes > RIDGE_CUSTOM_ALLREDUCE_MAX_TABLE_BYTES ||
	    !applies(&gpu->ic, RIDGE_ALL_REDUCE, RIDGE_ALGO_CUSTOM, tp, &why))
		return 0;
	struct ridge_comm_input in = { RIDGE_ALL_REDUCE, tp, bytes, RIDGE_ALGO_CUSTOM, network_bandwidth, launch, 1 };
	if (comm_collective(gpu, &in, &out->tp.one, err, err_len) != 0)
		return -1;
	out->tp.time_s = out->tp.allreduces * out->tp.one.time_s;
	out->total_s = out->tp.time_s + out->ep.time_s;
	out->exposed_s = out->total_s * (1 - overlap);
	return 0;
}
