/* Cost models: training (FLOPs, step time from MFU, GPU-hours, dollars, the
 * savings and ROI of an MFU gain), inference decode (bytes per step, TPOT,
 * tokens/s, dollars per million tokens) and the ranking of engineering
 * projects by return. Formulas:
 * docs/models/cost.md.
 *
 * Every value is computed from unrounded inputs and unrounded intermediates.
 * Each computation can fill an explain trail: one step per intermediate with
 * its label, symbolic formula, the formula with the numbers substituted, the
 * value and its unit, so a reviewer can check the arithmetic line by line. */
#ifndef RIDGE_COST_H
#define RIDGE_COST_H

#include <stdbool.h>
#include <stddef.h>

#include "roofline.h"

/* ---- explain trail ---- */

#define RIDGE_EXPLAIN_MAX 96

struct ridge_explain_step {
	char label[64];        /* "step time (current)" */
	char formula[128];     /* "F_step / (n_gpu * peak * MFU)" */
	char substituted[256]; /* "3.52321536e+18 / (512 * 9.89e+14 * 0.4)" */
	double value;
	char unit[16]; /* "s", "FLOP", "USD", "" */
};

struct ridge_explain {
	int count;
	int dropped; /* steps past RIDGE_EXPLAIN_MAX */
	struct ridge_explain_step steps[RIDGE_EXPLAIN_MAX];
};

/* The shortest decimal text that reads back as exactly v ("989e12" prints
 * "9.89e+14", 0.4 prints "0.4"). */
void cost_format_exact(double v, char *buf, size_t len);

/* ---- storage types (weights, KV cache) ---- */

/* Bytes per element of a storage type: fp32 4, bf16/fp16 2, fp8/int8 1,
 * int4/fp4 0.5. Returns false when the name is unknown. */
bool cost_storage_bytes(const char *name, double *bytes);
/* "fp32 bf16 fp16 fp8 int8 int4 fp4": for error messages. */
const char *cost_storage_list(void);

/* ---- model shape ---- */

/* A dense decoder (Llama style: attention with n_kv_heads for K and V, a gated
 * MLP of three hidden x intermediate matrices, two RMSNorms per layer, a final
 * norm, an embedding and an LM head, tied or not). The keys of a Hugging Face
 * config.json. */
struct ridge_model_shape {
	double hidden;       /* hidden_size */
	double intermediate; /* intermediate_size */
	double layers;       /* num_hidden_layers */
	double heads;        /* num_attention_heads */
	double kv_heads;     /* num_key_value_heads */
	double head_dim;     /* head_dim (hidden / heads when absent) */
	double vocab;        /* vocab_size */
	bool tied_embeddings;
};

/* Parameter count of the shape: Llama-3-70B's config gives 70,553,706,496.
 * Returns 0, or -1 with err (a zero or negative dimension, overflow). */
int cost_model_params(const struct ridge_model_shape *m, double *params, struct ridge_explain *ex, char *err,
		      size_t err_len);

/* ---- training ---- */

enum ridge_flops_formula {
	RIDGE_FLOPS_6N,  /* 6 N per token */
	RIDGE_FLOPS_PALM /* 6 N + 12 L n_heads d_head s per token (PaLM appendix B) */
};

struct ridge_train_input {
	double params; /* N */
	double seq;    /* tokens per sequence */
	double batch;  /* sequences per step (global batch) */
	double steps;
	double gpus;
	double peak_flops; /* per GPU, dense, the dtype the run computes in */
	double mfu;        /* 0 < MFU <= 1 */
	double price_usd_per_gpu_hour;
	enum ridge_flops_formula formula;
	double layers, heads, head_dim; /* RIDGE_FLOPS_PALM only */
	bool causal;                    /* halve the attention term (only the lower triangle is computed) */
};

struct ridge_train_result {
	double mfu;
	double flops_per_token;
	double attention_flops_per_token; /* 0 for 6N */
	double tokens_per_step;
	double flops_per_step;
	double achieved_flops_per_gpu; /* peak * MFU */
	double cluster_flops;          /* gpus * peak * MFU */
	double step_time_s;
	double wall_s;
	double wall_hours;
	double gpu_hours;
	double cost_usd;
	double cost_per_step_usd;
};

/* tag ("current", "target", or NULL) is added to each explain label. */
int cost_train(const struct ridge_train_input *in, struct ridge_train_result *out, struct ridge_explain *ex,
	       const char *tag, char *err, size_t err_len);

struct ridge_train_comparison {
	struct ridge_train_result current, target;
	double savings_usd;      /* cost(current) - cost(target); equals cost(current) * (1 - m1/m2) */
	double savings_fraction; /* savings / cost(current) */
	double speedup;          /* step_time(current) / step_time(target) = m2 / m1 */
	bool has_investment;
	double investment_usd;
	double saving_per_step_usd; /* savings / steps */
	double roi_net;             /* (savings - I) / I */
	double roi_gross;           /* savings / I */
	bool breaks_even;           /* false when the target saves nothing */
	double break_even_step;     /* I / saving per step */
};

/* The current run (in->mfu) against the same run at target_mfu, and, with an
 * investment, its return. A target below the current MFU is allowed: the
 * savings are negative and the investment never breaks even. */
int cost_train_compare(const struct ridge_train_input *in, double target_mfu, bool has_investment,
		       double investment_usd, struct ridge_train_comparison *out, struct ridge_explain *ex, char *err,
		       size_t err_len);

/* The same comparison done the way a hand calculation does it: the step time
 * rounded to a multiple of step_quantum_s and the wall hours to a multiple of
 * hours_quantum before multiplying (the textbook's Worked Example 7.1 rounds to
 * 0.1 s and to whole hours). Shows the drift that rounding intermediates
 * causes; the exact comparison is the answer. */
struct ridge_train_rounded {
	double step_time_s, wall_hours, cost_usd;                      /* current */
	double target_step_time_s, target_wall_hours, target_cost_usd; /* target */
	double savings_usd;
	double roi_net;                                                  /* when the comparison has an investment */
	double cost_drift_usd, target_cost_drift_usd, savings_drift_usd; /* rounded - exact */
};

int cost_train_rounded(const struct ridge_train_input *in, const struct ridge_train_comparison *exact,
		       double step_quantum_s, double hours_quantum, struct ridge_train_rounded *out, char *err,
		       size_t err_len);

/* ---- inference decode ---- */

/* enum ridge_bound (memory / compute) is the roofline's: model/roofline.h. */

struct ridge_decode_input {
	double params;       /* active parameters per token, N */
	double layers;       /* L */
	double kv_heads;     /* n_kv_heads (GQA: fewer than the query heads) */
	double head_dim;     /* d_head */
	double context;      /* tokens in each request's KV cache */
	double batch;        /* requests decoded together */
	double gpus;         /* tensor-parallel GPUs sharing the weights and the cache */
	double weight_bytes; /* bytes per parameter (bf16 2, fp8 1, int4 0.5) */
	double kv_bytes;     /* bytes per cached element */
	double bandwidth;    /* memory bandwidth per GPU, bytes/s */
	double peak_flops;   /* per GPU, the dtype the GEMMs run in */
	double memory_bytes; /* capacity per GPU; 0 skips the fit check */
	double price_usd_per_gpu_hour;
	double overhead_s; /* per step: launches, communication; may be 0 */
};

struct ridge_decode_result {
	double kv_bytes_per_token; /* 2 L n_kv d_head b_kv */
	double weight_bytes;       /* N b_w */
	double kv_heads_per_gpu;   /* max(ceil(n_kv / gpus), 1): whole heads per GPU */
	double kv_replication;     /* gpus * heads per GPU / n_kv: 2 for 8 KV heads on 16 GPUs */
	double kv_bytes;           /* batch * context * kv_bytes_per_token * replication, all GPUs together */
	double bytes_per_step;
	double flops_per_step; /* 2 N batch */
	double intensity;      /* FLOP per byte */
	double ridge_point;    /* peak / bandwidth */
	double memory_time_s;  /* bytes / (gpus * bandwidth) */
	double compute_time_s; /* flops / (gpus * peak) */
	double tpot_s;         /* max(memory, compute) + overhead */
	double tokens_per_s;   /* batch / TPOT */
	double usd_per_million_tokens;
	enum ridge_bound bound;
	double memory_required;  /* weights + KV cache */
	double memory_available; /* gpus * capacity (0 when unknown) */
	bool fits;
	bool has_crossover;
	double crossover_batch; /* batch at which compute time reaches memory time */
};

int cost_decode(const struct ridge_decode_input *in, struct ridge_decode_result *out, struct ridge_explain *ex,
		char *err, size_t err_len);

const char *cost_bound_name(enum ridge_bound bound); /* "memory", "compute" */

/* ---- investment ranking ---- */

enum ridge_project_kind {
	RIDGE_PROJECT_MFU, /* raises training MFU by mfu_gain (absolute: 0.15 is 40% -> 55%) */
	RIDGE_PROJECT_TPOT /* cuts inference TPOT by tpot_reduction (0.18 is -18%) */
};

struct ridge_project {
	char name[64];
	enum ridge_project_kind kind;
	double mfu_gain;
	double tpot_reduction;
	double applies_to;     /* fraction of that share's GPU time the project touches (1: all) */
	double engineer_weeks; /* effort; used when has_cost is false */
	bool has_cost;
	double cost_usd;           /* engineering cost given directly */
	double ready_after_months; /* savings start after this (0: at once) */
};

struct ridge_fleet {
	double budget_usd_per_month; /* hardware spend of the whole fleet */
	double training_share;       /* of the budget */
	double inference_share;
	double baseline_mfu; /* training MFU before any project */
	double engineer_usd_per_hour;
	double hours_per_week;
	double horizon_months;
};

struct ridge_project_result {
	int index; /* into the projects given */
	int rank;  /* 1 = best net ROI */
	double engineering_usd;
	double spend_per_month; /* the share the project acts on */
	double target_mfu;      /* MFU projects */
	double saving_fraction; /* of that spend */
	double savings_per_month;
	double months_saving; /* horizon - ready_after, at least 0 */
	double horizon_savings;
	double net_usd; /* horizon savings - engineering */
	double roi_net;
	double roi_gross;
	double payback_months; /* ready_after + engineering / savings per month */
};

/* Weeks in a month for converting engineer-months: 52 / 12. */
#define RIDGE_WEEKS_PER_MONTH (52.0 / 12.0)

/* Fills results[0..n) in rank order (best net ROI first; ties keep the given
 * order). Returns 0, or -1 with err naming the project and the bad value. */
int cost_rank(const struct ridge_fleet *fleet, const struct ridge_project *projects, int n,
	      struct ridge_project_result *results, struct ridge_explain *ex, char *err, size_t err_len);

#endif
