/* The parallel layout of a training run: every TP x CP x PP x virtual stages x
 * DP x sequence parallelism x recomputation x micro-batch x ZeRO stage that
 * divides the GPUs, the model and the batch, each priced by parallel_train
 * (model/parallel.h); the fastest that fit in memory, ranked by step time
 * (the same as by MFU: every layout does the same model FLOPs), each with the
 * term that binds it. Like Calculon's search (Isaev et al. 2023), with ridge's
 * communication model and one kernel efficiency for the step.
 *
 * The space: tp 1, 2, 4 ... up to the fabric domain (dividing the heads); cp
 * 1, 2, 4 ... 32 (2 cp dividing the sequence); pp every count that divides
 * the layers (or layers + 2: Llama 3's split), up to 128; v 1, 2, 3, 4, 6, 8
 * dividing the layers per stage (pp > 1, micro-batches a multiple of pp);
 * micro-batches of 1, 2, 4, 8 sequences; sequence parallelism on and off
 * (tp > 1); recompute none, selective, full; ddp, zero1, zero2, zero3; for a
 * mixture of experts, ep 1, 2, 4 ... dividing the experts and dp x cp (the
 * expert-parallel group drawn from the data-parallel ranks).
 *
 * The kernel efficiency: given (a what-if, every layout alike), else per
 * layout from the GPU's GEMM class (model/timing.h, timing_kernel): the MLP's
 * gate-and-up GEMM at the layout's shape on one GPU, micro_batch x seq / cp
 * tokens by 2 ffn / tp outputs over hidden, its FLOPs over peak x its
 * predicted time (efficiency, tile and wave quantization, memory-bound small
 * M, fixed cost): thin micro-batches and wide TP splits pay for their small
 * GEMMs, which one efficiency for every layout would not see. A mixture of
 * experts' GEMM is one expert's, micro_batch x seq / cp x top_k x ep / experts
 * rows: expert parallelism gathers each expert's tokens from ep GPUs, and its
 * larger GEMMs are what the all-to-alls buy. */
#ifndef RIDGE_TRAIN_PLAN_H
#define RIDGE_TRAIN_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "parallel.h"

#define RIDGE_TRAIN_PLAN_MAX_TOP 50

struct ridge_train_plan_input {
	double params, hidden, layers, heads, kv_heads; /* kv_heads 0: heads */
	double ffn;                                     /* intermediate size (the GEMM-shape efficiency) */
	/* a mixture of experts (experts 0: dense): params counts every expert, flops_per_step the active ones */
	double experts, top_k, moe_layers, expert_params;
	double seq, global_batch_tokens, gpus;
	double flops_per_step; /* the model's, per step (cost_train's) */
	double peak_flops;
	double compute_efficiency; /* 0: per layout, from the GPU's GEMM class */
	double network_bandwidth, dp_overlap, tp_overlap, ep_overlap;
	double memory_bytes; /* per GPU */
	bool causal;
	int top; /* layouts kept, 1..RIDGE_TRAIN_PLAN_MAX_TOP */
};

/* What sets a layout's step beyond its compute: the largest other term. */
enum ridge_train_bind {
	RIDGE_BIND_COMPUTE, /* nothing else above 5 % of the step */
	RIDGE_BIND_BUBBLE,
	RIDGE_BIND_TP,
	RIDGE_BIND_CP,
	RIDGE_BIND_PP,
	RIDGE_BIND_DP,
	RIDGE_BIND_RECOMPUTE,
	RIDGE_BIND_EP,
	RIDGE_BIND_COUNT
};
/* "compute", "pipeline bubble", "tensor-parallel communication", ... */
const char *train_plan_bind_name(enum ridge_train_bind b);

struct ridge_train_layout {
	struct ridge_parallel_input in;
	struct ridge_parallel_result r;
	enum ridge_train_bind binds;
	double binds_s;         /* that term's time in the step */
	double gemm_efficiency; /* the layout's kernel efficiency (given, or its GEMM shape's) */
	double memory_headroom; /* 1 - required / available */
};

struct ridge_train_plan_result {
	long tried, priced, fitting;
	int count;                                               /* layouts in top, fastest first */
	struct ridge_train_layout top[RIDGE_TRAIN_PLAN_MAX_TOP]; /* those that fit */
	bool has_nearest;                                        /* none fits: the least memory among the priced */
	struct ridge_train_layout nearest;
};

/* Returns 0 (count 0 when nothing divides or fits: see nearest), or -1 with
 * err: inputs out of range, or the global batch not a whole number of
 * sequences. */
int train_plan_search(const struct ridge_gpu *gpu, const struct ridge_train_plan_input *in,
		      struct ridge_train_plan_result *out, char *err, size_t err_len);

#endif
