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

/* Korthikanti et al. 2022, Table 2: activation bytes per layer per micro-batch. */
static double activation_per_layer(const struct ridge_parallel_input *in, double cp)
{
	double sbh = in->seq / cp * in->micro_batch * in->hidden, t = in->tp;
	double scores = in->heads > 0 ? 5 * in->heads * in->seq / (in->hidden * t) : 0;
	bool sp = in->sequence_parallel;
	switch (in->recompute) {
	case RIDGE_RECOMPUTE_FULL:
		return sp ? 2 * sbh / t : 2 * sbh;
	case RIDGE_RECOMPUTE_SELECTIVE:
		return sp ? 34 * sbh / t : sbh * (10 + 24 / t);
	default:
		return sp ? sbh * (34 / t + scores) : sbh * (10 + 24 / t + scores);
	}
}

/* Layers of stage i: even, or Llama 3's split (first and last one short). */
static double stage_layers(const struct ridge_parallel_input *in, int i)
{
	double pp = in->pp;
	if (fmod(in->layers, pp) == 0)
		return in->layers / pp;
	double middle = (in->layers + 2) / pp;
	return i == 0 || i == (int)pp - 1 ? middle - 1 : middle;
}

/* Bytes per GPU of one kind of state (bytes per parameter) when the ZeRO stage
 * from_stage and above shards it: the dense shard over dp x cp, the experts'
 * over the expert-data-parallel group dp x cp / ep. */
static double state_bytes(const struct ridge_parallel_input *in, const struct ridge_parallel_result *r,
			  double bytes_per_param, enum ridge_sharding from_stage)
{
	double ep = r->ep, expert = ep > 1 ? in->expert_params : 0;
	double dense_shard = (in->params - expert) / (in->tp * in->pp), expert_shard = expert / (in->tp * in->pp * ep);
	bool sharded = in->sharding >= from_stage;
	double replicas = r->dp * r->cp; /* what ZeRO shards over: the data-parallel x context-parallel group */
	return bytes_per_param * (dense_shard / (sharded ? replicas : 1) + expert_shard / (sharded ? r->expert_dp : 1));
}

static void add_memory(const struct ridge_parallel_input *in, struct ridge_parallel_result *r)
{
	r->weight_bytes = state_bytes(in, r, WEIGHT_BYTES, RIDGE_SHARD_ZERO3);
	r->grad_bytes = state_bytes(in, r, GRAD_BYTES, RIDGE_SHARD_ZERO2);
	r->optimizer_bytes = state_bytes(in, r, OPTIMIZER_BYTES, RIDGE_SHARD_ZERO1);
	r->expert_params_per_gpu = in->expert_params / (in->tp * in->pp * r->ep);
	r->memory_required = r->weight_bytes + r->grad_bytes + r->optimizer_bytes;
	if (!r->has_activations)
		return;
	r->activation_per_layer_bytes = activation_per_layer(in, r->cp);
	/* 1F1B: stage i keeps min(pp - i, m) micro-batches in flight; the worst stage sets the memory */
	double worst = 0;
	for (int i = 0; i < (int)in->pp; i++) {
		double held = stage_layers(in, i) * fmin(in->pp - i, r->micro_batches);
		if (held > worst) {
			worst = held;
			r->stage_layers = stage_layers(in, i);
			r->stage_micro_batches = fmin(in->pp - i, r->micro_batches);
		}
	}
	if (r->virtual_stages > 1)
		r->stage_micro_batches *= 1 + (in->pp - 1) / (in->pp * r->virtual_stages);
	r->activation_bytes = r->activation_per_layer_bytes * r->stage_layers * r->stage_micro_batches;
	r->memory_required += r->activation_bytes;
}

/* The layout's shape: whole numbers that divide what they split. */
static int check_layout(const struct ridge_parallel_input *in, double cp, double v, char *err, size_t err_len)
{
	if (!whole(in->tp) || !whole(in->pp) || !whole(in->gpus) || !whole(cp) || !whole(v))
		return model_fail(err, err_len,
				  "tp, cp, pp, the virtual stages and the GPU count must be whole numbers "
				  "from 1");
	if (fmod(in->gpus, in->tp * cp * in->pp) != 0)
		return model_fail(err, err_len, "tp x cp x pp = %g does not divide the %g GPUs", in->tp * cp * in->pp,
				  in->gpus);
	if (in->heads > 0 && fmod(in->heads, in->tp) != 0)
		return model_fail(err, err_len, "tp %g does not divide the %g attention heads", in->tp, in->heads);
	if (in->layers > 0 && in->pp > 1 && fmod(in->layers, in->pp) != 0 &&
	    !(in->pp > 2 && fmod(in->layers + 2, in->pp) == 0))
		return model_fail(err, err_len,
				  "pp %g does not divide the %g layers (nor %g + 2, with the first and last stage "
				  "one layer short)",
				  in->pp, in->layers, in->layers);
	if (cp > 1 && fmod(in->seq, 2 * cp) != 0)
		return model_fail(err, err_len,
				  "cp %g cannot split a sequence of %g tokens: it must divide into 2 x cp = %g chunks "
				  "(load-balanced causal ring attention)",
				  cp, in->seq, 2 * cp);
	if (v > 1) {
		if (in->pp < 2)
			return model_fail(err, err_len, "virtual stages %g need pipeline parallelism (pp 2 or more)",
					  v);
		/* the full stages' layers (Llama 3's split: the middle ones) */
		double per_stage = fmod(in->layers, in->pp) == 0 ? in->layers / in->pp : (in->layers + 2) / in->pp;
		if (!(in->layers > 0) || fmod(per_stage, v) != 0)
			return model_fail(err, err_len,
					  "virtual stages %g do not divide the %g layers per stage (%g layers, pp %g)",
					  v, per_stage, in->layers, in->pp);
	}
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
	return 0;
}

/* A group whose members are tp apart (Megatron's rank order: tp, cp, dp, pp):
 * a fabric domain holds domain_gpus / tp of them. Only what comm_collective
 * reads is copied (the entry is large): the id, the interconnect and the
 * graph node a graph-launched collective adds. */
static void strided_by_tp(const struct ridge_gpu *gpu, double tp, struct ridge_gpu *strided)
{
	memcpy(strided->id, gpu->id, sizeof strided->id);
	strided->graph_node_s = gpu->graph_node_s;
	strided->ic = gpu->ic;
	strided->ic.domain_gpus = (int)fmax(1, floor(gpu->ic.domain_gpus / tp));
	/* NVLS scales with the GPUs in the switch: restate the published figure at the new domain */
	if (strided->ic.domain_gpus >= 2)
		strided->ic.nvls_bus_bandwidth = comm_nvls_bus_bandwidth(&gpu->ic, strided->ic.domain_gpus);
	else
		strided->ic.has_nvls_bus_bandwidth = false;
}

static int one_collective(const struct ridge_gpu *gpu, const struct ridge_parallel_input *in, enum ridge_collective op,
			  double n, double bytes, struct ridge_comm_result *out, char *err, size_t err_len)
{
	struct ridge_comm_input ci = { op, n, bytes, RIDGE_ALGO_AUTO, in->network_bandwidth, in->launch, 1 };
	return comm_collective(gpu, &ci, out, err, err_len);
}

/* Tensor parallel: all-reduces, or with sequence parallelism reduce-scatter + all-gather. */
static int add_tensor_parallel(const struct ridge_gpu *gpu, const struct ridge_parallel_input *in, double tokens,
			       struct ridge_parallel_result *out, char *err, size_t err_len)
{
	out->has_tp = true;
	double per_stage = in->layers / in->pp * out->micro_batches;
	if (comm_tensor_parallel(gpu, in->tp, tokens, in->hidden, ACTIVATION_BYTES, 4, per_stage, in->network_bandwidth,
				 in->launch, &out->tp, err, err_len) != 0)
		return -1;
	if (in->sequence_parallel) {
		if (one_collective(gpu, in, RIDGE_REDUCE_SCATTER, in->tp, out->tp.bytes_per_allreduce, &out->tp.one,
				   err, err_len) != 0 ||
		    one_collective(gpu, in, RIDGE_ALL_GATHER, in->tp, out->tp.bytes_per_allreduce, &out->tp_gather, err,
				   err_len) != 0)
			return -1;
		out->tp.time_s = out->tp.allreduces * (out->tp.one.time_s + out->tp_gather.time_s);
	}
	out->tp_exposed_s = out->tp.time_s * (1 - in->tp_overlap);
	return 0;
}

/* Context parallel: K/V gathered forward and backward, their gradients
 * reduce-scattered; ring attention overlaps them with the attention itself. */
static int add_context_parallel(const struct ridge_gpu *strided, const struct ridge_parallel_input *in,
				struct ridge_parallel_result *out, char *err, size_t err_len)
{
	out->has_cp = true;
	double kv = in->kv_hidden > 0 ? in->kv_hidden : in->hidden;
	double bytes = in->micro_batch * in->seq * kv * 2 * ACTIVATION_BYTES; /* K and V, gathered */
	if (one_collective(strided, in, RIDGE_ALL_GATHER, out->cp, bytes, &out->cp_gather, err, err_len) != 0 ||
	    one_collective(strided, in, RIDGE_REDUCE_SCATTER, out->cp, bytes, &out->cp_scatter, err, err_len) != 0)
		return -1;
	double per_stage = in->layers / in->pp * out->micro_batches;
	out->cp_collectives = 2 * per_stage;
	out->cp_comm_s = per_stage * (2 * out->cp_gather.time_s + out->cp_scatter.time_s);
	/* the attention core this GPU computes meanwhile: 4 b s^2 h forward x 3 (with backward), split over tp x cp */
	double attention_flops = 12 * in->micro_batch * in->seq * in->seq * in->hidden * (in->causal ? 0.5 : 1) /
				 (in->tp * out->cp) * per_stage;
	out->cp_attention_s = attention_flops / (in->peak_flops * in->compute_efficiency);
	out->cp_exposed_s = fmax(0, out->cp_comm_s - out->cp_attention_s);
	return 0;
}

/* Pipeline hand-offs; with scatter/gather each tp rank sends 1/tp and the tp GPUs all-gather. */
static int add_pipeline(const struct ridge_gpu *gpu, const struct ridge_parallel_input *in, double tokens,
			struct ridge_parallel_result *out, char *err, size_t err_len)
{
	out->has_pp = true;
	out->pp_scatter_gather = in->tp > 1 && !in->whole_handoffs;
	double split = out->pp_scatter_gather ? in->tp : 1;
	/* v m + pp - 2 slots per pass when interleaved: comm_pipeline_parallel's m + pp - 2 with v m */
	if (comm_pipeline_parallel(gpu, in->pp, out->micro_batches * out->virtual_stages, tokens / split, in->hidden,
				   ACTIVATION_BYTES, 2, in->network_bandwidth, in->launch, &out->pp, err, err_len) != 0)
		return -1;
	out->pp.bubble_fraction = out->bubble_fraction;
	out->pp_s = out->pp.time_s;
	if (out->pp_scatter_gather && !in->sequence_parallel) {
		if (one_collective(gpu, in, RIDGE_ALL_GATHER, in->tp, tokens * in->hidden * ACTIVATION_BYTES,
				   &out->pp_gather, err, err_len) != 0)
			return -1;
		out->pp_s += out->pp.transfers * out->pp_gather.time_s;
	}
	return 0;
}

/* One group's gradient reduction (and ZeRO's weight gathers) of bytes over n GPUs. */
static int reduce_gradients(const struct ridge_gpu *strided, const struct ridge_parallel_input *in, double n,
			    double bytes, struct ridge_comm_result *reduce, struct ridge_comm_result *gather,
			    double *time_s, const struct ridge_parallel_result *out, char *err, size_t err_len)
{
	enum ridge_collective op = in->sharding == RIDGE_SHARD_DDP ? RIDGE_ALL_REDUCE : RIDGE_REDUCE_SCATTER;
	if (one_collective(strided, in, op, n, bytes, reduce, err, err_len) != 0)
		return -1;
	*time_s = out->dp_reduces * reduce->time_s;
	if (in->sharding != RIDGE_SHARD_DDP) {
		if (one_collective(strided, in, RIDGE_ALL_GATHER, n, bytes, gather, err, err_len) != 0)
			return -1;
		*time_s += out->dp_gathers * gather->time_s;
	}
	return 0;
}

/* Gradients: the dense shard over dp x cp (members tp apart); with expert
 * parallelism the experts' shard over dp x cp / ep (members tp x ep apart). */
static int add_data_parallel(const struct ridge_gpu *gpu, const struct ridge_gpu *strided,
			     const struct ridge_parallel_input *in, struct ridge_parallel_result *out, char *err,
			     size_t err_len)
{
	out->has_dp = true;
	double expert = out->ep > 1 ? in->expert_params : 0;
	out->dp_bytes = (in->params - expert) / (in->tp * in->pp) * GRAD_BYTES;
	/* Sharded gradients (zero2, zero3) cannot accumulate whole: they are reduce-scattered
	 * after every micro-batch; zero3 gathers the weights again for every micro-batch's
	 * forward and backward (FSDP reshards after each). ddp and zero1 accumulate, once a step. */
	out->dp_reduces = in->sharding >= RIDGE_SHARD_ZERO2 ? out->micro_batches : 1;
	if (in->sharding != RIDGE_SHARD_DDP)
		out->dp_gathers = in->sharding == RIDGE_SHARD_ZERO3 ? 2 * out->micro_batches : 1;
	if (reduce_gradients(strided, in, out->dp * out->cp, out->dp_bytes, &out->dp_reduce, &out->dp_gather,
			     &out->dp_comm_s, out, err, err_len) != 0)
		return -1;
	if (expert > 0 && out->expert_dp > 1) {
		struct ridge_gpu expert_strided;
		double expert_s;
		strided_by_tp(gpu, in->tp * out->ep, &expert_strided);
		out->dp_expert_bytes = expert / (in->tp * in->pp * out->ep) * GRAD_BYTES;
		if (reduce_gradients(&expert_strided, in, out->expert_dp, out->dp_expert_bytes, &out->dp_expert_reduce,
				     &out->dp_expert_gather, &expert_s, out, err, err_len) != 0)
			return -1;
		out->dp_comm_s += expert_s;
	}
	out->dp_exposed_s = out->dp_comm_s * (1 - in->dp_overlap);
	return 0;
}

/* Expert parallel: the dispatch and combine all-to-alls of each MoE layer,
 * forward and backward (and the recomputed forward under full recomputation). */
static int add_expert_parallel(const struct ridge_gpu *strided, const struct ridge_parallel_input *in,
			       struct ridge_parallel_result *out, char *err, size_t err_len)
{
	out->has_ep = true;
	double moe_layers = in->moe_layers > 0 ? in->moe_layers : in->layers;
	double tokens = in->micro_batch * in->seq / out->cp / (in->sequence_parallel ? in->tp : 1);
	double passes = in->recompute == RIDGE_RECOMPUTE_FULL ? 3 : 2; /* forward, backward (, forward again) */
	/* comm_expert_parallel counts a dispatch-combine pair per layer it is given: one per pass */
	double layer_passes = moe_layers / in->pp * out->micro_batches * passes;
	if (comm_expert_parallel(strided, out->ep, tokens, in->top_k, in->hidden, ACTIVATION_BYTES, layer_passes,
				 in->network_bandwidth, in->launch, &out->ep_comm, err, err_len) != 0)
		return -1;
	out->ep_exposed_s = out->ep_comm.time_s * (1 - in->ep_overlap);
	return 0;
}

/* The mixture of experts' inputs and the expert-parallel group's shape. */
static int check_moe(const struct ridge_parallel_input *in, const struct ridge_parallel_result *out, char *err,
		     size_t err_len)
{
	double ep = out->ep;
	if (!whole(ep))
		return model_fail(err, err_len, "ep must be a whole number from 1, not %g", in->ep);
	if (!fraction(in->ep_overlap))
		return model_fail(err, err_len, "ep overlap must be in [0, 1], not %g", in->ep_overlap);
	bool moe = in->experts > 0;
	if (ep > 1 && !moe)
		return model_fail(err, err_len,
				  "ep %g needs a mixture of experts (the experts, experts per token "
				  "and expert parameters)",
				  ep);
	if (!moe)
		return 0;
	if (!(in->top_k >= 1 && in->top_k <= in->experts && in->expert_params > 0 && in->expert_params <= in->params))
		return model_fail(
			err, err_len,
			"a mixture of experts needs 1 to %g experts per token and expert parameters in (0, %g]",
			in->experts, in->params);
	if (!(in->moe_layers >= 0 && (in->moe_layers <= in->layers || in->layers <= 0)))
		return model_fail(err, err_len, "moe layers %g are more than the %g layers", in->moe_layers,
				  in->layers);
	if (fmod(in->experts, ep) != 0)
		return model_fail(err, err_len, "ep %g does not divide the %g experts", ep, in->experts);
	if (fmod(out->dp * out->cp, ep) != 0)
		return model_fail(err, err_len,
				  "ep %g does not divide the data-parallel size dp x cp = %g (Megatron draws the "
				  "expert-parallel group from the data-parallel ranks)",
				  ep, out->dp * out->cp);
	if (ep > 1 && !(in->hidden > 0 && in->layers > 0))
		return model_fail(err, err_len, "ep %g needs the hidden size and the layer count", ep);
	return 0;
}

static void add_recompute(const struct ridge_parallel_input *in, struct ridge_parallel_result *out)
{
	if (in->recompute == RIDGE_RECOMPUTE_FULL)
		out->recompute_flops = in->flops_per_step / 3;
	else if (in->recompute == RIDGE_RECOMPUTE_SELECTIVE && in->hidden > 0 && in->layers > 0)
		out->recompute_flops =
			4 * in->batch * in->seq * in->seq * in->hidden * in->layers * (in->causal ? 0.5 : 1);
}

int parallel_train(const struct ridge_gpu *gpu, const struct ridge_parallel_input *in,
		   struct ridge_parallel_result *out, char *err, size_t err_len)
{
	memset(out, 0, sizeof *out);
	out->cp = in->cp > 0 ? in->cp : 1;
	out->virtual_stages = in->virtual_stages > 0 ? in->virtual_stages : 1;
	if (check_layout(in, out->cp, out->virtual_stages, err, err_len) != 0)
		return -1;
	out->dp = in->gpus / (in->tp * out->cp * in->pp);
	out->ep = in->ep > 0 ? in->ep : 1;
	if (check_moe(in, out, err, err_len) != 0)
		return -1;
	out->expert_dp = out->dp * out->cp / out->ep;
	double per_pipeline = in->batch / out->dp;
	out->micro_batches = per_pipeline / in->micro_batch;
	if (out->micro_batches != floor(out->micro_batches) || out->micro_batches < 1)
		return model_fail(
			err, err_len,
			"the batch of %g sequences does not split into %g data-parallel replicas of whole micro-batches of %g",
			in->batch, out->dp, in->micro_batch);
	if (out->virtual_stages > 1 && fmod(out->micro_batches, in->pp) != 0)
		return model_fail(err, err_len,
				  "virtual stages need the micro-batches per pipeline (%g) to be a multiple of pp %g "
				  "(Megatron's interleaved schedule)",
				  out->micro_batches, in->pp);
	bool need_shape = in->tp > 1 || in->pp > 1 || out->cp > 1;
	out->has_activations =
		in->hidden > 0 && in->layers > 0 && (in->recompute != RIDGE_RECOMPUTE_NONE || in->heads > 0);
	if (need_shape && !(in->hidden > 0 && in->layers > 0))
		return model_fail(err, err_len,
				  "tensor, context and pipeline parallelism need the hidden size and the layer count");

	add_recompute(in, out);
	double kernel_rate = in->gpus * in->peak_flops * in->compute_efficiency;
	out->compute_s = (in->flops_per_step + out->recompute_flops) / kernel_rate;
	out->recompute_s = out->recompute_flops / kernel_rate;
	out->bubble_fraction = (in->pp - 1) / (out->micro_batches * out->virtual_stages + in->pp - 1);
	out->bubble_s = out->compute_s * (in->pp - 1) / (out->micro_batches * out->virtual_stages);

	double tokens_per_micro_batch = in->micro_batch * in->seq / out->cp;
	if (in->tp > 1 && add_tensor_parallel(gpu, in, tokens_per_micro_batch, out, err, err_len) != 0)
		return -1;
	/* Not initialized: strided_by_tp sets what comm_collective reads (the id, the
	 * interconnect, the graph node); copying the whole entry would cost a layout search dearly. */
	struct ridge_gpu strided;
	if (out->cp > 1 || out->dp * out->cp > 1)
		strided_by_tp(gpu, in->tp, &strided);
	if (out->cp > 1 && add_context_parallel(&strided, in, out, err, err_len) != 0)
		return -1;
	if (in->pp > 1 && add_pipeline(gpu, in, tokens_per_micro_batch, out, err, err_len) != 0)
		return -1;
	if (out->ep > 1 && add_expert_parallel(&strided, in, out, err, err_len) != 0)
		return -1;
	if (out->dp * out->cp > 1 && add_data_parallel(gpu, &strided, in, out, err, err_len) != 0)
		return -1;
	out->comm_s = out->tp.time_s + out->cp_comm_s + out->ep_comm.time_s + out->pp_s + out->dp_comm_s;
	out->exposed_comm_s = out->tp_exposed_s + out->cp_exposed_s + out->ep_exposed_s + out->pp_s + out->dp_exposed_s;
	out->step_s = out->compute_s + out->bubble_s + out->exposed_comm_s;
	out->mfu = in->flops_per_step / (in->gpus * in->peak_flops * out->step_s);
	out->hfu = (in->flops_per_step + out->recompute_flops) / (in->gpus * in->peak_flops * out->step_s);
	add_memory(in, out);
	out->fits = in->memory_bytes <= 0 || out->memory_required <= in->memory_bytes;
	if (!isfinite(out->step_s) || !isfinite(out->memory_required))
		return model_fail(err, err_len, "overflow: the step time or memory is too large to represent");
	return 0;
}
