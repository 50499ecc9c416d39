#include "parallel.h"
#include "names.h"
#include "fail.h"

#include <math.h>
#include <string.h>
#include <strings.h>

/* Bytes per parameter under mixed-precision Adam (ZeRO paper section 3.1). */
#define WEIGHT_BYTES 2.0
#define GRAD_BYTES 2.0
#define OPTIMIZER_BYTES 12.0
#define ACTIVATION_BYTES 2.0 /* bf16 activations on the wire */

bool parallel_sharding_parse(const char *text, enum ridge_sharding *out)
{
	static const struct {
		const char *name;
		enum ridge_sharding s;
	} names[] = { { "ddp", RIDGE_SHARD_DDP },
		      { "zero1", RIDGE_SHARD_ZERO1 },
		      { "zero2", RIDGE_SHARD_ZERO2 },
		      { "zero3", RIDGE_SHARD_ZERO3 },
		      { "fsdp", RIDGE_SHARD_ZERO3 } };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (strcasecmp(text, names[i].name) == 0) {
			*out = names[i].s;
			return true;
		}
	}
	return false;
}

const char *parallel_sharding_name(enum ridge_sharding s)
{
	static const char *const names[] = { "ddp", "zero1", "zero2", "zero3" };
	return (int)s >= 0 && s <= RIDGE_SHARD_ZERO3 ? names[s] : NULL;
}

static const char *const recompute_names[] = { "none", "selective", "full" };

bool parallel_recompute_parse(const char *text, enum ridge_recompute *out)
{
	int i = model_name_index(recompute_names, 0, RIDGE_RECOMPUTE_FULL + 1, text);
	if (i < 0)
		return false;
	*out = (enum ridge_recompute)i;
	return true;
}

const char *parallel_recompute_name(enum ridge_recompute r)
{
	return (int)r >= 0 && r <= RIDGE_RECOMPUTE_FULL ? recompute_names[r] : NULL;
}

static bool whole(double v)
{
	return isfinite(v) && v >= 1 && v == floor(v);
}

static bool fraction(double v)
{
	return isfinite(v) && v >= 0 && v <= 1;
}

static void add_memory(const struct ridge_parallel_input *in, struct ridge_parallel_result *r)
{
	double shard = in->params / (in->tp * in->pp);
	double dp = r->dp;
	r->weight_bytes = shard * WEIGHT_BYTES / (in->sharding >= RIDGE_SHARD_ZERO3 ? dp : 1);
	r->grad_bytes = shard * GRAD_BYTES / (in->sharding >= RIDGE_SHARD_ZERO2 ? dp : 1);
	r->optimizer_bytes = shard * OPTIMIZER_BYTES / (in->sharding >= RIDGE_SHARD_ZERO1 ? dp : 1);
	r->memory_required = r->weight_bytes + r->grad_bytes + r->optimizer_bytes;
	if (!r->has_activations)
		return;
	double sbh = in->seq * in->micro_batch * in->hidden, t = in->tp;
	switch (in->recompute) {
	case RIDGE_RECOMPUTE_FULL:
		r->activation_per_layer_bytes = 2 * sbh;
		break;
	case RIDGE_RECOMPUTE_SELECTIVE:
		r->activation_per_layer_bytes = sbh * (10 + 24 / t);
		break;
	default:
		r->activation_per_layer_bytes = sbh * (10 + 24 / t + 5 * in->heads * in->seq / (in->hidden * t));
		break;
	}
	double in_flight = fmin(in->pp, r->micro_batches);
	r->activation_bytes = r->activation_per_layer_bytes * (in->layers / in->pp) * in_flight;
	r->memory_required += r->activation_bytes;
}

int parallel_train(const struct ridge_gpu *gpu, const struct ridge_parallel_input *in,
		   struct ridge_parallel_result *out, char *err, size_t err_len)
{
	memset(out, 0, sizeof *out);
	if (!whole(in->tp) || !whole(in->pp) || !whole(in->gpus))
		return model_fail(err, err_len, "tp, pp and the GPU count must be whole numbers from 1");
	if (fmod(in->gpus, in->tp * in->pp) != 0)
		return model_fail(err, err_len, "tp x pp = %g does not divide the %g GPUs", in->tp * in->pp, in->gpus);
	if (!whole(in->micro_batch))
		return model_fail(err, err_len, "the micro-batch must be a whole number of sequences from 1, not %g",
				  in->micro_batch);
	if (!(isfinite(in->compute_efficiency) && in->compute_efficiency > 0 && in->compute_efficiency <= 1))
		return model_fail(err, err_len, "the compute efficiency must be in (0, 1], not %g",
				  in->compute_efficiency);
	if (!fraction(in->dp_overlap) || !fraction(in->tp_overlap))
		return model_fail(err, err_len, "overlap fractions must be in [0, 1]");
	if (!(in->flops_per_step > 0) || !(in->peak_flops > 0) || !(in->params > 0))
		return model_fail(err, err_len, "FLOPs per step, peak and parameters must be greater than 0");
	out->dp = in->gpus / (in->tp * in->pp);
	double per_pipeline = in->batch / out->dp;
	out->micro_batches = per_pipeline / in->micro_batch;
	if (out->micro_batches != floor(out->micro_batches) || out->micro_batches < 1)
		return model_fail(
			err, err_len,
			"the batch of %g sequences does not split into %g data-parallel replicas of whole micro-batches of %g",
			in->batch, out->dp, in->micro_batch);
	bool need_shape = in->tp > 1 || in->pp > 1;
	out->has_activations =
		in->hidden > 0 && in->layers > 0 && (in->recompute != RIDGE_RECOMPUTE_NONE || in->heads > 0);
	if (need_shape && !(in->hidden > 0 && in->layers > 0))
		return model_fail(err, err_len,
				  "tensor and pipeline parallelism need the hidden size and the layer count");

	out->compute_s = in->flops_per_step / (in->gpus * in->peak_flops * in->compute_efficiency);
	out->bubble_fraction = (in->pp - 1) / (out->micro_batches + in->pp - 1);
	out->bubble_s = out->compute_s * (in->pp - 1) / out->micro_batches;

	double tokens_per_micro_batch = in->micro_batch * in->seq;
	if (in->tp > 1) {
		out->has_tp = true;
		/* 4 per layer of this stage, for each of its micro-batches */
		if (comm_tensor_parallel(gpu, in->tp, tokens_per_micro_batch, in->hidden, ACTIVATION_BYTES, 4,
					 in->layers / in->pp * out->micro_batches, in->network_bandwidth, &out->tp, err,
					 err_len) != 0)
			return -1;
		out->tp_exposed_s = out->tp.time_s * (1 - in->tp_overlap);
	}
	if (in->pp > 1) {
		out->has_pp = true;
		if (comm_pipeline_parallel(gpu, in->pp, out->micro_batches, tokens_per_micro_batch, in->hidden,
					   ACTIVATION_BYTES, 2, in->network_bandwidth, &out->pp, err, err_len) != 0)
			return -1;
		out->pp_s = out->pp.time_s;
	}
	if (out->dp > 1) {
		out->has_dp = true;
		out->dp_bytes = in->params / (in->tp * in->pp) * GRAD_BYTES;
		/* Megatron's rank order puts a DP group's members tp GPUs apart:
		 * a fabric domain holds domain_gpus / tp of them. */
		struct ridge_comm_input ci = { in->sharding == RIDGE_SHARD_DDP ? RIDGE_ALL_REDUCE
									       : RIDGE_REDUCE_SCATTER,
					       out->dp, out->dp_bytes, RIDGE_ALGO_AUTO, in->network_bandwidth };
		struct ridge_gpu strided = *gpu;
		strided.ic.domain_gpus = (int)fmax(1, floor(gpu->ic.domain_gpus / in->tp));
		/* NVLS scales with the GPUs in the switch: restate the published figure at the new domain */
		if (strided.ic.domain_gpus >= 2)
			strided.ic.nvls_bus_bandwidth = comm_nvls_bus_bandwidth(&gpu->ic, strided.ic.domain_gpus);
		else
			strided.ic.has_nvls_bus_bandwidth = false;
		if (comm_collective(&strided, &ci, &out->dp_reduce, err, err_len) != 0)
			return -1;
		out->dp_comm_s = out->dp_reduce.time_s;
		if (in->sharding != RIDGE_SHARD_DDP) {
			ci.op = RIDGE_ALL_GATHER;
			out->dp_gathers = in->sharding == RIDGE_SHARD_ZERO3 ? 2 : 1;
			if (comm_collective(&strided, &ci, &out->dp_gather, err, err_len) != 0)
				return -1;
			out->dp_comm_s += out->dp_gathers * out->dp_gather.time_s;
		}
		out->dp_exposed_s = out->dp_comm_s * (1 - in->dp_overlap);
	}
	out->comm_s = out->tp.time_s + out->pp_s + out->dp_comm_s;
	out->exposed_comm_s = out->tp_exposed_s + out->pp_s + out->dp_exposed_s;
	out->step_s = out->compute_s + out->bubble_s + out->exposed_comm_s;
	out->mfu = in->flops_per_step / (in->gpus * in->peak_flops * out->step_s);
	add_memory(in, out);
	out->fits = in->memory_bytes <= 0 || out->memory_required <= in->memory_bytes;
	if (!isfinite(out->step_s) || !isfinite(out->memory_required))
		return model_fail(err, err_len, "overflow: the step time or memory is too large to represent");
	return 0;
}
