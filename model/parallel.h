/* A training step on tp x cp x pp x dp GPUs: the compute at a kernel
 * efficiency (with what recomputation adds), the pipeline bubble, the tensor-,
 * context-, pipeline- and data-parallel communication (model/comm.h) with the
 * share of each that overlaps compute, and so the step time and the MFU they
 * predict; and the memory each GPU holds (weights, gradients, optimizer
 * states, activations) and whether it fits.
 *
 *   recompute  full: one more forward pass, F/3 (6N: the forward is 2N of it);
 *              selective: the attention core's forward, 4 b s^2 h per layer
 *              (QK^T and softmax x V; half under a causal mask) (Korthikanti
 *              et al. 2022, section 5: "Selective Activation Recomputation")
 *   compute    = (F_step + recompute) / (n_gpu * peak * compute_efficiency)
 *   bubble     = compute * (pp - 1) / (m v)   (m micro-batches per pipeline,
 *                v virtual stages: interleaved 1F1B, Narayanan et al. 2021 section 2.2.2)
 *   TP         = 4 all-reduces per layer per micro-batch (2 forward, 2 backward; Megatron-LM)
 *                of micro_batch x seq/cp x hidden x 2 B over tp GPUs; with sequence
 *                parallelism each becomes a reduce-scatter and an all-gather of the
 *                same bytes; (1 - tp_overlap) exposed
 *   CP         = per layer per micro-batch an all-gather of K and V (forward), another and a
 *                reduce-scatter of their gradients (backward), of micro_batch x seq x
 *                kv_hidden x 2 x 2 B over cp GPUs; ring attention hides them under the
 *                attention it computes meanwhile: only what exceeds it is exposed
 *   PP         = send-recv hand-offs of micro_batch x seq/cp x hidden x 2 B, v m + pp - 2 per pass;
 *                scatter/gather (Megatron, default with TP): each tp rank sends 1/tp of it and
 *                an all-gather over the tp GPUs rebuilds it (sequence parallel: none needed)
 *   DP         = the gradients of one tp x pp shard, (N/(tp pp)) x grad bytes, over the dp x cp
 *                GPUs holding replicas: ddp: all-reduce; zero1: reduce-scatter + all-gather (the
 *                same bytes), once a step; zero2: the gradients sharded cannot accumulate, so a
 *                reduce-scatter after each of the m micro-batches; zero3 / fsdp: also an
 *                all-gather of the weights for each micro-batch's forward and backward (2 m);
 *                (1 - dp_overlap) exposed. One micro-batch: the ZeRO paper's 2x / 3x of DDP
 *   EP         = (MoE, ep > 1) per MoE layer per micro-batch two all-to-alls forward (dispatch and
 *                combine) and two backward (their gradients; three forward passes' worth with
 *                full recomputation: 6), each of tokens x top_k x hidden x 2 B, tokens the
 *                micro-batch's seq/cp (/tp with sequence parallelism), over the ep GPUs of the
 *                expert-parallel group, drawn from the data-parallel ranks as Megatron draws it
 *                (members tp apart, like the DP group); (1 - ep_overlap) exposed
 *   step       = compute + bubble + exposed TP + exposed CP + exposed EP + PP + exposed DP
 *   MFU        = F_step / (n_gpu * peak * step); HFU counts the recomputation too
 *
 * Memory per GPU (mixed-precision Adam, ZeRO paper, Rajbhandari et al. 2020,
 * section 3.1: 2 + 2 + 12 bytes per parameter): weights 2 B, gradients 2 B,
 * optimizer 12 B (fp32 master copy, momentum, variance) per parameter of the
 * GPU's tp x pp shard; zero1 divides the optimizer by dp x cp, zero2 also the
 * gradients, zero3/fsdp also the weights. With expert parallelism the routed
 * experts' parameters are split tp x ep x pp ways (expert tensor parallelism =
 * tp) and ZeRO shards them over the expert-data-parallel group, dp x cp / ep;
 * their gradients are reduced over that group, the rest over dp x cp. Activations per layer per
 * micro-batch (Korthikanti et al. 2022, Table 2), s = seq / cp:
 *               without sequence parallelism       with it
 *   none       s b h (10 + 24/t + 5 a S / (h t))  s b h (34/t + 5 a S / (h t))   (S: the whole sequence)
 *   selective  s b h (10 + 24/t)                  34 s b h / t
 *   full       2 s b h                            2 s b h / t
 * The stage holding most: layers_i x min(pp - i, m) micro-batches in flight (1F1B:
 * stage i holds pp - i), times 1 + (pp - 1)/(pp v) when interleaved (Korthikanti
 * section 4.2.3). Layers split evenly over the stages, or (Llama 3's 405B run) with
 * the first and last stage one layer short when pp divides layers + 2. */
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
	double cp;                     /* context-parallel GPUs per sequence; 0 or 1: none */
	double virtual_stages;         /* interleaved 1F1B model chunks per stage; 0 or 1: none */
	bool sequence_parallel;        /* Korthikanti et al. 2022: LayerNorm/dropout split over tp */
	bool whole_handoffs;           /* pipeline hand-offs not split over tp (scatter/gather off) */
	bool causal;                   /* attention under a causal mask: half the attention core */
	double kv_hidden;              /* K/V width (kv heads x head dim) for CP; 0: hidden */
	enum ridge_comm_launch launch; /* how the step's collectives are launched (comm.h); DEVICE: tuner only */
	/* Mixture of experts (0: a dense model). params counts every expert; the
	 * caller's flops_per_step counts the active ones. */
	double experts;       /* routed experts per MoE layer */
	double top_k;         /* routed experts per token */
	double moe_layers;    /* layers with routed experts; 0: all */
	double expert_params; /* routed experts' parameters, all layers (part of params) */
	double ep;            /* expert-parallel GPUs; 0 or 1: none */
	double ep_overlap;    /* 0..1 of the all-to-alls hidden under compute */
};

struct ridge_parallel_result {
	double dp; /* gpus / (tp cp pp) */
	double cp, virtual_stages;
	double micro_batches;   /* per pipeline per step: batch / (dp micro_batch) */
	double recompute_flops; /* per step, all GPUs: what recomputation adds to F_step */
	double compute_s, recompute_s, bubble_fraction, bubble_s;
	bool has_tp;
	struct ridge_tp_comm tp;
	struct ridge_comm_result tp_gather; /* sequence parallel: the all-gather (tp.one: the reduce-scatter) */
	double tp_exposed_s;
	bool has_cp;
	struct ridge_comm_result cp_gather, cp_scatter; /* K/V all-gather, dK/dV reduce-scatter */
	double cp_collectives;                          /* per step: gathers (2 per layer per micro-batch) */
	double cp_comm_s, cp_attention_s, cp_exposed_s;
	bool has_pp;
	struct ridge_pp_comm pp;
	bool pp_scatter_gather;
	struct ridge_comm_result pp_gather; /* scatter/gather: the all-gather over tp after each hand-off */
	double pp_s;
	bool has_dp;
	double dp_bytes;                    /* the gradient shard each GPU reduces */
	struct ridge_comm_result dp_reduce; /* all-reduce (ddp) or reduce-scatter (zero) */
	struct ridge_comm_result dp_gather; /* zero: the all-gather of weights (zero1/2 once, zero3 twice) */
	double dp_reduces; /* per step: 1 (ddp, zero1: gradients accumulate), m (zero2/3: after each micro-batch) */
	double dp_gathers; /* zero1/2: 1; zero3: 2 m (forward and backward of every micro-batch) */
	double dp_comm_s, dp_exposed_s;
	bool has_ep;
	double ep;
	struct ridge_ep_comm ep_comm; /* one all-to-all in .one; .alltoalls per step; .time_s all */
	double ep_exposed_s;
	double expert_dp;       /* the expert-data-parallel group: dp x cp / ep */
	double dp_expert_bytes; /* the expert gradient shard each GPU reduces (ep > 1) */
	struct ridge_comm_result dp_expert_reduce, dp_expert_gather; /* over expert_dp, like dp_reduce/dp_gather */
	double comm_s, exposed_comm_s;                               /* all of it, and what the step pays */
	double step_s;
	double mfu, hfu; /* predicted */
	/* memory per GPU */
	bool has_activations;
	double weight_bytes, grad_bytes, optimizer_bytes, activation_bytes, activation_per_layer_bytes, memory_required;
	double expert_params_per_gpu; /* of the weights: the routed experts' parameters this GPU holds */
	double stage_layers;          /* layers of the stage holding most activations */
	double stage_micro_batches;   /* micro-batches in flight there (x the interleaving factor) */
	bool fits;
};

/* Returns 0, or -1 with err naming what is wrong (tp x cp x pp not dividing the
 * GPUs, tp not dividing the heads, pp not dividing the layers, virtual stages not
 * dividing the layers per stage, cp not splitting the sequence, the batch not
 * dividing into micro-batches, a missing hidden size or layer count, a fraction
 * out of range, ep not dividing the experts or dp x cp, or comm_collective's
 * errors). Messages begin with the input's name ("tp ", "pp ", "cp ",
 * "virtual stages ", "ep ") so a caller can name its flag. */
int parallel_train(const struct ridge_gpu *gpu, const struct ridge_parallel_input *in,
		   struct ridge_parallel_result *out, char *err, size_t err_len);

#endif
