/* A training step on tp x pp x dp GPUs: the compute at a kernel efficiency,
 * the pipeline bubble, the tensor-, pipeline- and data-parallel
 * communication (model/comm.h) with the share of each that overlaps compute,
 * and so the step time and the MFU they predict; and the memory each GPU
 * holds (weights, gradients, optimizer states, activations) and whether it fits.
 *
 *   compute    = F_step / (n_gpu * peak * compute_efficiency)
 *   bubble     = compute * (pp - 1) / m                 (m micro-batches per pipeline, 1F1B/GPipe)
 *   TP         = 4 all-reduces per layer per micro-batch (2 forward, 2 backward; Megatron-LM)
 *                of micro_batch x seq x hidden x 2 B over tp GPUs, (1 - tp_overlap) exposed
 *   PP         = send-recv hand-offs of micro_batch x seq x hidden x 2 B (comm_pipeline_parallel)
 *   DP         = the gradients of one tp x pp shard, (N/(tp pp)) x grad bytes, over dp GPUs:
 *                ddp, zero1, zero2: all-reduce (ZeRO 1/2 as reduce-scatter + all-gather: the same bytes);
 *                zero3 / fsdp: + an all-gather of the weights in forward and backward (3 x (dp-1)/dp),
 *                (1 - dp_overlap) exposed
 *   step       = compute + bubble + exposed TP + PP + exposed DP
 *   MFU        = F_step / (n_gpu * peak * step)
 *
 * Memory per GPU (mixed-precision Adam, ZeRO paper, Rajbhandari et al. 2020,
 * section 3.1: 2 + 2 + 12 bytes per parameter): weights 2 B, gradients 2 B,
 * optimizer 12 B (fp32 master copy, momentum, variance) per parameter of the
 * GPU's tp x pp shard; zero1 divides the optimizer by dp, zero2 also the
 * gradients, zero3/fsdp also the weights. Activations per layer per
 * micro-batch (Korthikanti et al. 2022, "Reducing Activation Recomputation in
 * Large Transformer Models", Table 2, tensor parallel without sequence parallel):
 *   none       s b h (10 + 24/t + 5 a s / (h t))
 *   selective  s b h (10 + 24/t)   (attention scores recomputed: FlashAttention keeps none)
 *   full       2 s b h             (only each layer's input is kept)
 * times L/pp layers and min(pp, m) micro-batches in flight (1F1B). */
#ifndef RIDGE_PARALLEL_H
#define RIDGE_PARALLEL_H

#include <stdbool.h>
#include <stddef.h>

#include "comm.h"

enum ridge_sharding { RIDGE_SHARD_DDP, RIDGE_SHARD_ZERO1, RIDGE_SHARD_ZERO2, RIDGE_SHARD_ZERO3 };
enum ridge_recompute { RIDGE_RECOMPUTE_NONE, RIDGE_RECOMPUTE_SELECTIVE, RIDGE_RECOMPUTE_FULL };

/* "ddp", "zero1", "zero2", "zero3" (also "fsdp"); "none", "selective", "full". */
bool parallel_sharding_parse(const char *text, enum ridge_sharding *out);
const char *parallel_sharding_name(enum ridge_sharding s);
bool parallel_recompute_parse(const char *text, enum ridge_recompute *out);
const char *parallel_recompute_name(enum ridge_recompute r);

struct ridge_parallel_input {
	double params, seq, batch, gpus; /* batch: sequences per step, all of them */
	double flops_per_step;           /* cost_train's */
	double peak_flops;               /* per GPU */
	double compute_efficiency;       /* fraction of peak the kernels reach */
	double tp, pp;                   /* 1: none */
	double micro_batch;              /* sequences per micro-batch */
	double hidden, layers, heads; /* hidden and layers needed for TP/PP and activations; heads for recompute none */
	enum ridge_sharding sharding;
	enum ridge_recompute recompute;
	double dp_overlap, tp_overlap; /* 0..1 */
	double memory_bytes;           /* per GPU; 0: no fit check */
	double network_bandwidth;      /* per GPU, between fabric domains */
};

struct ridge_parallel_result {
	double dp;            /* gpus / (tp pp) */
	double micro_batches; /* per pipeline per step: batch / (dp micro_batch) */
	double compute_s, bubble_fraction, bubble_s;
	bool has_tp;
	struct ridge_tp_comm tp;
	double tp_exposed_s;
	bool has_pp;
	struct ridge_pp_comm pp;
	double pp_s;
	bool has_dp;
	double dp_bytes;                    /* the gradient shard each GPU reduces */
	struct ridge_comm_result dp_reduce; /* all-reduce (ddp) or reduce-scatter (zero) */
	struct ridge_comm_result dp_gather; /* zero: the all-gather of weights (zero1/2 once, zero3 twice) */
	double dp_gathers;
	double dp_comm_s, dp_exposed_s;
	double comm_s, exposed_comm_s; /* all of it, and what the step pays */
	double step_s;
	double mfu; /* predicted */
	/* memory per GPU */
	bool has_activations;
	double weight_bytes, grad_bytes, optimizer_bytes, activation_bytes, activation_per_layer_bytes, memory_required;
	bool fits;
};

/* Returns 0, or -1 with err (tp x pp not dividing the GPUs, the batch not
 * dividing into micro-batches, a missing hidden size or layer count, a
 * fraction out of range, or comm_collective's errors). */
int parallel_train(const struct ridge_gpu *gpu, const struct ridge_parallel_input *in,
		   struct ridge_parallel_result *out, char *err, size_t err_len);

#endif
