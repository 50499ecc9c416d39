/* ridge comm: the time of one collective on N GPUs (model/comm.h), alpha +
 * beta x M in NCCL's bus-bandwidth convention, the algorithm stated. Also the
 * scenario item kind "comm". */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "calc.h"
#include "app.h"
#include "comm.h"
#include "json_fields.h"

#define COMM_PARAMS(X)                                                                                                 \
	X(COMM_OP, PARAM_TEXT_ROW("op", .flags = PARAM_REQUIRED, .metavar = "OP",                                      \
				  .help = "all-reduce, all-gather, reduce-scatter, all-to-all or send-recv (p2p)"))    \
	X(COMM_GPUS,                                                                                                   \
	  PARAM_INT("gpus", 1, PARAM_COUNT_MAX, .flags = PARAM_REQUIRED, .metavar = "N", .help = "GPUs taking part"))  \
	X(COMM_BYTES, PARAM_NUM("bytes", RIDGE_UNIT_BYTES, 0, 1e18, .flags = PARAM_REQUIRED, .metavar = "M",           \
				.help = "message size as nccl-tests counts it (64MiB): the buffer reduced, the "       \
					"gathered output",                                                             \
				.range = "0 to 1e18 B"))                                                               \
	X(COMM_ALGORITHM, PARAM_TEXT_ROW("algorithm", .metavar = "ALG",                                                \
					 .help = "ring, tree, nvls, direct (default auto: the fastest that applies), " \
						 "custom (the serving engines' own all-reduce kernel)"))               \
	X(COMM_NETWORK_BW, PARAM_NUM("network_bw", RIDGE_UNIT_BYTES_PER_S, 0, PARAM_NET_BW_MAX,                        \
				     .flags = PARAM_OPEN_LO, .metavar = "B/s",                                         \
				     .help = "network bandwidth per GPU, one direction, past the fabric domain "       \
					     "(default: the entry's interconnect.nics x nic_bandwidth / domain_gpus)", \
				     .range = "greater than 0"))                                                       \
	X(COMM_LAUNCH, PARAM_TEXT_ROW("launch", .metavar = "MODE",                                                     \
				      .help = "eager (default: what nccl-tests runs) or graph (CUDA graph)"))          \
	X(COMM_GPUS_PER_PROCESS,                                                                                       \
	  PARAM_INT("gpus_per_process", 1, PARAM_COUNT_MAX, .metavar = "P",                                            \
		    .help = "GPUs one host thread drives, eager (nccl-tests -g P; default 1: one per process)"))       \
	X(COMM_SWEEP,                                                                                                  \
	  PARAM_FLAG_ROW("sweep", .help = "also every size 8 B, 64 B ... 8 GiB (x8), as nccl-tests prints"))           \
	CALC_GPU_ROWS(X, COMM)                                                                                         \
	X(COMM_JSON, CALC_JSON_ROW)
PARAMS_TABLE(comm_params, COMM_PARAMS);

static const struct json_field comm_fields[] = {
	JSON_FIELDS(struct ridge_comm_result, gpus, bytes, bus_factor, bus_bytes, domains, gpus_per_domain, intra_steps,
		    inter_steps, base_latency_s, step_latency_s, net_step_latency_s, alpha_s, link_bandwidth,
		    efficiency, bus_bandwidth, beta_s_per_byte, time_s, algbw, busbw, bandwidth_source, latency_source,
		    path),
};

static const struct json_field comm_launch_fields[] = {
	JSON_FIELDS(struct ridge_comm_result, gpus_per_process, device_s, host_issue_s, graph_node_s, launch_term_s,
		    launch_bound),
};

void calc_json_comm(cJSON *o, const struct ridge_comm_result *r)
{
	cJSON_AddStringToObject(o, "op", ridge_collective_name(r->op));
	cJSON_AddStringToObject(o, "algorithm", comm_algorithm_name(r->algorithm));
	json_put_fields(o, r, comm_fields, JSON_FIELD_COUNT(comm_fields));
	/* how it is launched (model/comm.h): absent where only the device's time is priced */
	if (r->launch != RIDGE_COMM_LAUNCH_DEVICE) {
		cJSON_AddStringToObject(o, "launch", comm_launch_name(r->launch));
		json_put_fields(o, r, comm_launch_fields, JSON_FIELD_COUNT(comm_launch_fields));
	}
	if (r->domains > 1)
		json_number(o, "network_bus_bandwidth", r->network_bus_bandwidth);
	if (r->intra_s_per_byte > 0 || r->inter_s_per_byte > 0) {
		cJSON *h = cJSON_AddObjectToObject(o, "hierarchical");
		json_number(h, "intra_node_s_per_byte", r->intra_s_per_byte);
		json_number(h, "inter_node_s_per_byte", r->inter_s_per_byte);
		cJSON_AddStringToObject(h, "bound",
					r->intra_s_per_byte >= r->inter_s_per_byte ? "intra_node" : "inter_node");
		/* only where NCCL's 32 NVLS heads leave some of the domain's NICs out (GB200 NVL72) */
		if (r->inter_nics > 0 && r->inter_nics < r->gpus_per_domain)
			json_number(h, "network_nics", r->inter_nics);
	}
	if (r->caveat)
		cJSON_AddStringToObject(o, "caveat", r->caveat);
}

static cJSON *comm_run(struct calc_input *in)
{
	const struct param_values *v = in->values;
	struct ridge_comm_input ci = { 0 };
	const char *op = params_text(v, COMM_OP);
	if (!comm_collective_parse(op, &ci.op)) {
		snprintf(in->err, sizeof in->err, "%s: unknown collective '%s' (known: %s)", params_where(v, COMM_OP),
			 op, comm_collective_list());
		return NULL;
	}
	const char *algorithm = params_text(v, COMM_ALGORITHM);
	if (algorithm && !comm_algorithm_parse(algorithm, &ci.algorithm)) {
		snprintf(in->err, sizeof in->err,
			 "%s: unknown algorithm '%s' (known: auto, ring, tree, nvls, direct, custom)",
			 params_where(v, COMM_ALGORITHM), algorithm);
		return NULL;
	}
	const char *launch = params_text(v, COMM_LAUNCH);
	ci.launch = RIDGE_COMM_LAUNCH_EAGER;
	if (launch && (!comm_launch_parse(launch, &ci.launch) || ci.launch == RIDGE_COMM_LAUNCH_DEVICE)) {
		snprintf(in->err, sizeof in->err, "%s: unknown launch mode '%s' (known: eager, graph)",
			 params_where(v, COMM_LAUNCH), launch);
		return NULL;
	}
	ci.gpus = params_num(v, COMM_GPUS);
	ci.bytes = params_num(v, COMM_BYTES);
	ci.gpus_per_process = params_has(v, COMM_GPUS_PER_PROCESS) ? params_num(v, COMM_GPUS_PER_PROCESS) : 1;
	if (ci.launch == RIDGE_COMM_LAUNCH_GRAPH && params_has(v, COMM_GPUS_PER_PROCESS)) {
		snprintf(in->err, sizeof in->err, "%s: only eager launches pay the host per GPU (give --launch eager)",
			 params_where(v, COMM_GPUS_PER_PROCESS));
		return NULL;
	}
	/* given, else the entry's node: its NICs over its GPUs */
	ci.network_bandwidth =
		params_has(v, COMM_NETWORK_BW) ? params_num(v, COMM_NETWORK_BW) : comm_network_per_gpu(&in->gpu->ic);
	struct ridge_comm_result r;
	char err[400];
	if (comm_collective(in->gpu, &ci, &r, err, sizeof err) != 0) {
		/* The model names the value; the command names the flag it came from. */
		if (strstr(err, "network bandwidth"))
			snprintf(in->err, sizeof in->err, "%s: give %s", err, params_where(v, COMM_NETWORK_BW));
		else if (strstr(err, "does not apply"))
			snprintf(in->err, sizeof in->err, "%s: %s", params_where(v, COMM_ALGORITHM), err);
		else if (strstr(err, "published times go to"))
			snprintf(in->err, sizeof in->err, "%s: %s", params_where(v, COMM_BYTES), err);
		else if (strstr(err, "GPUs per process"))
			snprintf(in->err, sizeof in->err, "%s: %s", params_where(v, COMM_GPUS_PER_PROCESS), err);
		else
			snprintf(in->err, sizeof in->err, "%s: %s", params_where(v, COMM_GPUS), err);
		return NULL;
	}
	cJSON *o = cJSON_CreateObject();
	calc_json_gpu(o, in->gpu);
	cJSON_AddStringToObject(o, "topology", in->gpu->ic.topology_name);
	json_number(o, "domain_gpus", in->gpu->ic.domain_gpus);
	if (ci.network_bandwidth > 0) {
		json_number(o, "network_bandwidth", ci.network_bandwidth);
		cJSON_AddStringToObject(o, "network_bandwidth_source",
					params_has(v, COMM_NETWORK_BW) ? "given" : "hwdb");
	}
	calc_json_comm(o, &r);
	if (params_flag(v, COMM_SWEEP)) {
		cJSON *sweep = cJSON_AddArrayToObject(o, "sweep");
		/* the custom kernel's published times stop at 2 MiB */
		double largest = ci.algorithm == RIDGE_ALGO_CUSTOM ? RIDGE_CUSTOM_ALLREDUCE_MAX_TABLE_BYTES
								   : 8.0 * 1024 * 1024 * 1024;
		for (double size = 8; size <= largest; size *= 8) {
			struct ridge_comm_input s = ci;
			struct ridge_comm_result sr;
			s.bytes = size;
			if (comm_collective(in->gpu, &s, &sr, err, sizeof err) != 0) {
				snprintf(in->err, sizeof in->err, "%s", err);
				cJSON_Delete(o);
				return NULL;
			}
			cJSON *row = cJSON_CreateObject();
			json_number(row, "bytes", size);
			cJSON_AddStringToObject(row, "algorithm", comm_algorithm_name(sr.algorithm));
			json_number(row, "time_s", sr.time_s);
			json_number(row, "device_s", sr.device_s);
			json_number(row, "algbw", sr.algbw);
			json_number(row, "busbw", sr.busbw);
			json_number(row, "latency_share", sr.time_s > 0 ? sr.alpha_s / sr.time_s : 0);
			cJSON_AddItemToArray(sweep, row);
		}
	}
	return o;
}

/* The launch mode's line: eager's host enqueue against the device, or the graph node. */
static void comm_print_launch(FILE *out, const cJSON *r)
{
	char a[48], b[48];
	if (strcmp(calc_str(r, "launch"), "graph") == 0) {
		fmt_seconds(calc_num(r, "graph_node_s"), a, sizeof a);
		fprintf(out, "  launch graph: + %s, one graph node (hwdb launch.graph_node)\n", a);
		return;
	}
	fmt_seconds(calc_num(r, "host_issue_s"), a, sizeof a);
	fmt_seconds(calc_num(r, "launch_term_s"), b, sizeof b);
	fprintf(out, "  launch eager: host enqueue %s (%.0f GPU%s per thread x %.3g us): %s-bound, + %s\n", a,
		calc_num(r, "gpus_per_process"), calc_num(r, "gpus_per_process") == 1 ? "" : "s",
		RIDGE_NCCL_HOST_ENQUEUE_S * 1e6, calc_str(r, "launch_bound"), b);
}

static void comm_print_sweep(FILE *out, const cJSON *r);

/* The launch line, the time with its bandwidths, and the caveat where there is one. */
static void comm_print_time(FILE *out, const cJSON *r)
{
	char a[48], b[48], c[48];
	comm_print_launch(out, r);
	fmt_seconds(calc_num(r, "time_s"), a, sizeof a);
	fmt_si(calc_num(r, "algbw"), "B/s", b, sizeof b);
	fmt_si(calc_num(r, "busbw"), "B/s", c, sizeof c);
	fprintf(out, "  time   %s; algbw %s, busbw %s\n", a, b, c);
	const cJSON *caveat = cJSON_GetObjectItemCaseSensitive(r, "caveat");
	if (cJSON_IsString(caveat))
		fprintf(out, "  trust  %s\n", caveat->valuestring);
}

/* The engines' custom all-reduce: a published time, no ring steps to show. */
static void comm_print_custom(FILE *out, const cJSON *r)
{
	char a[32], b[32];
	fmt_seconds(calc_num(r, "device_s"), a, sizeof a);
	fmt_bytes(calc_num(r, "bytes"), b, sizeof b);
	fprintf(out, "  device %s: the engines' own all-reduce kernel, %s on %.0f GPUs\n", a, b, calc_num(r, "gpus"));
	fprintf(out, "  source %s, interpolated\n", calc_str(r, "latency_source"));
	comm_print_time(out, r);
}

static void comm_print(FILE *out, const cJSON *r)
{
	char a[48], b[48], c[48], d[48], e[48];
	fmt_bytes(calc_num(r, "bytes"), a, sizeof a);
	fprintf(out, "%s of %s on %.0f x %s (%s fabric, %.0f GPUs per domain)\n", calc_str(r, "op"), a,
		calc_num(r, "gpus"), calc_str(r, "gpu"), calc_str(r, "topology"), calc_num(r, "domain_gpus"));
	if (strcmp(calc_str(r, "algorithm"), "none") == 0) {
		fprintf(out, "  one GPU: nothing to communicate, 0 s\n");
		return;
	}
	if (strcmp(calc_str(r, "algorithm"), "auto") == 0)
		fprintf(out, "  algorithm NCCL's own choice, as measured, over %s", calc_str(r, "path"));
	else
		fprintf(out, "  algorithm %s over %s", calc_str(r, "algorithm"), calc_str(r, "path"));
	if (calc_num(r, "domains") > 1)
		fprintf(out, ", %.0f domains of %.4g GPUs", calc_num(r, "domains"), calc_num(r, "gpus_per_domain"));
	fprintf(out, "\n\n");
	if (strcmp(calc_str(r, "algorithm"), "custom") == 0) {
		comm_print_custom(out, r);
		comm_print_sweep(out, r);
		return;
	}
	fmt_seconds(calc_num(r, "base_latency_s"), a, sizeof a);
	fmt_seconds(calc_num(r, "step_latency_s"), b, sizeof b);
	fmt_seconds(calc_num(r, "alpha_s"), c, sizeof c);
	if (strcmp(calc_str(r, "latency_source"), "measured") == 0) {
		fprintf(out, "  alpha  %s (measured)\n", c);
	} else {
		fprintf(out, "  alpha  %s + %.0f steps x %s", a, calc_num(r, "intra_steps"), b);
		if (calc_num(r, "inter_steps") > 0) {
			fmt_seconds(calc_num(r, "net_step_latency_s"), d, sizeof d);
			fprintf(out, " + %.0f network steps x %s", calc_num(r, "inter_steps"), d);
		}
		fprintf(out, " = %s (%s)\n", c, calc_str(r, "latency_source"));
	}
	fmt_bytes(calc_num(r, "bus_bytes"), a, sizeof a);
	fmt_si(calc_num(r, "bus_bandwidth"), "B/s", b, sizeof b);
	fmt_si(calc_num(r, "link_bandwidth"), "B/s", d, sizeof d);
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(r, "hierarchical");
	fprintf(out, "  bus    %.6g x M = %s per GPU at %s", calc_num(r, "bus_factor"), a, b);
	if (h)
		fprintf(out, " (derived: the slower phase)\n");
	else if (strcmp(calc_str(r, "bandwidth_source"), "derived") == 0)
		fprintf(out, " (derived: %s links x %.4g efficiency)\n", d, calc_num(r, "efficiency"));
	else
		fprintf(out, " (%s; the links carry %s)\n", calc_str(r, "bandwidth_source"), d);
	if (h) {
		double bytes = calc_num(r, "bytes");
		fmt_seconds(bytes * calc_num(h, "intra_node_s_per_byte"), a, sizeof a);
		fmt_seconds(bytes * calc_num(h, "inter_node_s_per_byte"), b, sizeof b);
		fmt_si(calc_num(r, "network_bus_bandwidth"), "B/s", c, sizeof c);
		if (cJSON_GetObjectItemCaseSensitive(h, "network_nics"))
			fprintf(out,
				"  phases inside the node %s, between nodes %s (%.0f of the %.4g GPUs' NICs: NCCL's NVLS "
				"heads; %s each, 47/50 of line); pipelined: the slower sets the time\n",
				a, b, calc_num(h, "network_nics"), calc_num(r, "gpus_per_domain"), c);
		else
			fprintf(out,
				"  phases inside the node %s, between nodes %s (NICs %s per GPU, 47/50 of line); "
				"pipelined: the slower sets the time\n",
				a, b, c);
	}
	fmt_seconds(calc_num(r, "device_s"), a, sizeof a);
	fmt_seconds(calc_num(r, "alpha_s"), d, sizeof d);
	fmt_seconds(calc_num(r, "device_s") - calc_num(r, "alpha_s"), e, sizeof e);
	fprintf(out, "  device %s = %s latency + %s transfer (the tuning model's estimate)\n", a, d, e);
	comm_print_time(out, r);
	comm_print_sweep(out, r);
}

/* --sweep's table. */
static void comm_print_sweep(FILE *out, const cJSON *r)
{
	char a[48], b[48], c[48], d[48], e[48];
	const cJSON *sweep = cJSON_GetObjectItemCaseSensitive(r, "sweep");
	if (cJSON_IsArray(sweep)) {
		fprintf(out, "\n  %12s %-7s %12s %12s %12s %9s\n", "size", "algo", "time", "algbw", "busbw", "latency");
		const cJSON *row;
		cJSON_ArrayForEach (row, sweep) {
			fmt_bytes(calc_num(row, "bytes"), a, sizeof a);
			fmt_seconds(calc_num(row, "time_s"), b, sizeof b);
			fmt_si(calc_num(row, "algbw"), "B/s", c, sizeof c);
			fmt_si(calc_num(row, "busbw"), "B/s", d, sizeof d);
			fmt_percent(calc_num(row, "latency_share"), e, sizeof e);
			fprintf(out, "  %12s %-7s %12s %12s %12s %9s\n", a, calc_str(row, "algorithm"), b, c, d, e);
		}
	}
}

const struct calc calc_comm = {
	.name = "comm",
	.synopsis = "usage: ridge comm --op OP --gpus N --bytes M [--gpu GPU] [--algorithm ALG] [--network-bw B/s]\n"
		    "                  [--launch eager|graph] [--gpus-per-process P] [--sweep] [--json]\n"
		    "                  [--hwdb DIR] [--calibration FILE]",
	.description =
		"Time of one collective as alpha + beta x M in NCCL's bus-bandwidth convention: all-reduce moves\n"
		"2(N-1)/N x M per GPU, all-gather, reduce-scatter and all-to-all (N-1)/N x M, send-recv M.\n"
		"alpha = NCCL's base latency + steps x step latency (ring 2(N-1) or N-1, tree 2 log2, NVLS one);\n"
		"the bus bandwidth is measured (a --calibration), published (nccl-tests) or derived from the\n"
		"links (model/comm.h). NVLS bus bandwidth scales as 2(n-1)/(n+1) with the GPUs in the switch.\n"
		"Past one fabric domain (node) the ring's bus bytes cross the node's NICs together (g x\n"
		"--network-bw x 47/50) and the tree runs hierarchically: inside the node (NVLS or ring),\n"
		"between nodes a double binary tree, pipelined. --algorithm auto takes the fastest, as\n"
		"NCCL's tuner does. That is the device's time; a stream of collectives launched eagerly\n"
		"costs the slower of it and the host's enqueue (4.34 us per GPU a thread drives: --gpus-per-\n"
		"process), in a CUDA graph (--launch graph) it plus a graph node. --algorithm custom prices\n"
		"the serving engines' own all-reduce kernel instead (vLLM, SGLang, TensorRT-LLM: peer memory\n"
		"inside one NVLink switch domain, 2, 4 or 8 GPUs, up to 2 MiB): SGLang PR #2904's published\n"
		"H100 times, interpolated.\n",
	CALC_IMPL(comm_params, comm_run, comm_print),
};
