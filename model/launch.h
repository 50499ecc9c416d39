/* Kernel-launch overhead per step (a decode step, a training micro-step):
 * K eager launches against one CUDA/HIP graph replay and against a persistent
 * kernel (the textbook, sections 7.3 and 7.8.1).
 *
 *   eager      overhead = K * t_launch           (host-bound: added to the step)
 *   graph      overhead = t_graph_launch + K * t_node
 *   persistent overhead = 0 per step             (one launch, amortised away)
 *
 * t_launch and t_node default to the GPU's hwdb values (launch.overhead,
 * launch.graph_node); a ridge-probe calibration replaces them with measured ones. */
#ifndef RIDGE_LAUNCH_H
#define RIDGE_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>

struct ridge_gpu;

struct ridge_launch_input {
	double kernels_per_layer;
	double layers;
	double extra_kernels;  /* per step, outside the layers (embedding, sampling...); may be 0 */
	double launch_s;       /* t_launch: host cost of one eager launch */
	double graph_node_s;   /* t_node: per-node cost of a graph replay */
	double graph_launch_s; /* cost of the one cudaGraphLaunch; callers usually pass launch_s */
	bool has_graph_total;  /* the whole replay cost given directly (the textbook's 0.024 ms) */
	double graph_total_s;
	bool has_step; /* a measured eager step time (TPOT), launches included */
	double step_s;
	bool has_graph_step; /* a measured step time with graphs: infer t_launch from the saving */
	double graph_step_s;
	bool has_target; /* a step-time target to express the overhead against */
	double target_s;
};

struct ridge_launch_result {
	double launches;              /* K = kernels_per_layer * layers + extra */
	double overhead_s;            /* K * t_launch */
	double graph_overhead_s;      /* t_graph_launch + K * t_node, or the given total */
	double graph_saving_s;        /* overhead_s - graph_overhead_s */
	double graph_reduction;       /* overhead_s / graph_overhead_s ("100x") */
	double persistent_overhead_s; /* 0: the one launch is not paid per step */

	/* with has_step */
	double fraction_of_step;       /* overhead_s / step_s */
	double tpot_eager_s;           /* step_s */
	double tpot_graph_s;           /* step_s - overhead_s + graph_overhead_s */
	double tpot_persistent_s;      /* step_s - overhead_s */
	double graph_fraction_of_step; /* graph_overhead_s / tpot_graph_s */
	double graph_speedup;          /* tpot_eager_s / tpot_graph_s */
	double persistent_speedup;     /* tpot_eager_s / tpot_persistent_s */

	/* with has_graph_step (needs has_step) */
	double measured_saving_s;        /* step_s - graph_step_s */
	double inferred_launch_s;        /* measured_saving_s / K: the replay taken as free */
	double inferred_launch_replay_s; /* (measured_saving_s + graph_overhead_s) / K */
	double inferred_vs_assumed;      /* inferred_launch_s / t_launch */

	/* with has_target: the eager overhead (measured when has_graph_step) over the target */
	double target_overhead_s;
	double fraction_of_target;
	double graph_fraction_of_target;
};

/* Fills out. Returns 0, or -1 with a lowercase reason in err (negative or
 * non-finite input, a step shorter than its own launch overhead, a graph step
 * not shorter than the eager one). */
int launch_compute(const struct ridge_launch_input *in, struct ridge_launch_result *out, char *err, size_t err_len);

/* Fills the per-launch costs from the GPU: launch_s and graph_launch_s from
 * gpu->launch_overhead_s, graph_node_s from gpu->graph_node_s. */
void launch_defaults(const struct ridge_gpu *gpu, struct ridge_launch_input *in);

#endif
