#include "launch.h"
#include "fail.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpu.h"

static bool ok_nonneg(double v)
{
	return isfinite(v) && v >= 0;
}

void launch_defaults(const struct ridge_gpu *gpu, struct ridge_launch_input *in)
{
	in->launch_s = gpu->launch_overhead_s;
	/* cudaGraphLaunch is itself one launch call on the host. */
	in->graph_launch_s = gpu->launch_overhead_s;
	in->graph_node_s = gpu->graph_node_s;
}

int launch_compute(const struct ridge_launch_input *in, struct ridge_launch_result *out, char *err, size_t err_len)
{
	memset(out, 0, sizeof *out);
	if (!ok_nonneg(in->kernels_per_layer) || !ok_nonneg(in->layers) || !ok_nonneg(in->extra_kernels))
		return model_fail(err, err_len, "kernel counts must be finite and not negative");
	if (!ok_nonneg(in->launch_s) || !ok_nonneg(in->graph_node_s) || !ok_nonneg(in->graph_launch_s))
		return model_fail(err, err_len, "launch costs must be finite and not negative");
	if (in->has_graph_total && !ok_nonneg(in->graph_total_s))
		return model_fail(err, err_len, "the graph replay cost must be finite and not negative");

	double k = in->kernels_per_layer * in->layers + in->extra_kernels;
	if (!isfinite(k) || k < 1)
		return model_fail(err, err_len, "%s",
				  !isfinite(k) ? "overflow: the launch count is not finite" : "no kernels per step");
	out->launches = k;
	out->overhead_s = k * in->launch_s;
	out->graph_overhead_s = in->has_graph_total ? in->graph_total_s : in->graph_launch_s + k * in->graph_node_s;
	if (!isfinite(out->overhead_s) || !isfinite(out->graph_overhead_s))
		return model_fail(err, err_len, "overflow: the launch overhead is not finite");
	out->graph_saving_s = out->overhead_s - out->graph_overhead_s;
	out->graph_reduction = out->graph_overhead_s > 0 ? out->overhead_s / out->graph_overhead_s : INFINITY;
	out->persistent_overhead_s = 0;

	if (in->has_step) {
		if (!(isfinite(in->step_s) && in->step_s > 0))
			return model_fail(err, err_len, "the step time must be greater than 0");
		/* The model adds the launches to the GPU time; a step shorter than
		 * its own launch cost contradicts it (the launches overlap the GPU
		 * work, so the host is not the bottleneck this model describes). */
		if (in->step_s <= out->overhead_s)
			return model_fail(
				err, err_len,
				"the step (%g s) is not longer than the launch overhead of %g launches (%g s): the host is not the bottleneck",
				in->step_s, k, out->overhead_s);
		out->fraction_of_step = out->overhead_s / in->step_s;
		out->tpot_eager_s = in->step_s;
		out->tpot_persistent_s = in->step_s - out->overhead_s;
		out->tpot_graph_s = out->tpot_persistent_s + out->graph_overhead_s;
		out->graph_fraction_of_step = out->graph_overhead_s / out->tpot_graph_s;
		out->graph_speedup = out->tpot_eager_s / out->tpot_graph_s;
		out->persistent_speedup = out->tpot_eager_s / out->tpot_persistent_s;
	}

	double eager_overhead = out->overhead_s;
	if (in->has_graph_step) {
		if (!in->has_step)
			return model_fail(err, err_len, "a measured step with graphs needs the eager step time too");
		if (!(isfinite(in->graph_step_s) && in->graph_step_s > 0))
			return model_fail(err, err_len, "the step time with graphs must be greater than 0");
		if (in->graph_step_s >= in->step_s)
			return model_fail(
				err, err_len,
				"the step with graphs (%g s) is not shorter than the eager step (%g s): nothing to attribute to launches",
				in->graph_step_s, in->step_s);
		out->measured_saving_s = in->step_s - in->graph_step_s;
		out->inferred_launch_s = out->measured_saving_s / k;
		out->inferred_launch_replay_s = (out->measured_saving_s + out->graph_overhead_s) / k;
		out->inferred_vs_assumed = in->launch_s > 0 ? out->inferred_launch_s / in->launch_s : INFINITY;
		eager_overhead = out->measured_saving_s;
	}

	if (in->has_target) {
		if (!(isfinite(in->target_s) && in->target_s > 0))
			return model_fail(err, err_len, "the target step time must be greater than 0");
		out->target_overhead_s = eager_overhead;
		out->fraction_of_target = eager_overhead / in->target_s;
		out->graph_fraction_of_target = out->graph_overhead_s / in->target_s;
	}
	return 0;
}
