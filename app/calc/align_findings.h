/* What `ridge align` checks, as one computation: the findings for a list of
 * dimensions or for every GEMM of a model config, each with its severity,
 * next aligned values, reason, tile and wave quantization, and the Llama
 * SwiGLU size beside the FFN dimensions. The command and the scenario kind
 * `align` (app/calc/align_calc.c, through calc.h) and the TUI's alignment panel
 * (tui/state_align.c) all run this, so they report the same findings with
 * the same names. No printing: errors come back as messages. The numbers
 * come from model/align.c. */
#ifndef RIDGE_APP_ALIGN_FINDINGS_H
#define RIDGE_APP_ALIGN_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "model_config.h"
#include "models.h"

#define ALIGN_MAX_DIMS 64
#define ALIGN_MAX_FINDINGS \
	(2 * RIDGE_WORKLOAD_MAX_GEMMS + 2 > ALIGN_MAX_DIMS ? 2 * RIDGE_WORKLOAD_MAX_GEMMS + 2 : ALIGN_MAX_DIMS)
#define ALIGN_DEFAULT_TOKENS 4096
#define ALIGN_DEFAULT_MULTIPLE_OF 256

/* The inputs besides the dimensions or the model. */
struct align_settings {
	enum ridge_dtype dtype;
	long long tokens;             /* M of every GEMM */
	struct ridge_align_tile tile; /* 128x128, 1 per SM */
	bool has_multiple_of;         /* SwiGLU rounding: given, else the config's, else 256 */
	long long multiple_of;
	bool has_multiplier; /* SwiGLU ffn_dim_multiplier: given, else the config's, else none */
	double multiplier;
	const char *tokens_where; /* names tokens in messages ("--tokens"); NULL: "tokens" */
};

struct align_finding {
	char name[64];
	const char *from; /* the config key(s) behind the value, or NULL */
	int gemm;         /* index into the GEMM table, or -1 */
	struct ridge_align_dim dim;
	bool has_tiling; /* dimension lists: M = tokens x N = value */
	struct ridge_align_tiling tiling;
	bool has_swiglu; /* an FFN dimension: the SwiGLU size is shown beside it */
	char reason[400];
};

struct align_run {
	struct align_settings set;
	const struct ridge_gpu *gpu;
	struct ridge_align_rule rule;
	int count;
	struct align_finding findings[ALIGN_MAX_FINDINGS];
	/* a model config */
	bool model_mode;
	struct ridge_align_model model;       /* resolved; head_dim is the query/key head's (MLA: nope + rope) */
	struct ridge_workload_model workload; /* the same model as model/workload.h has it */
	int gemm_count; /* the architecture's weight GEMMs (model/workload.c): experts at tokens x k / E */
	struct ridge_align_gemm gemms[RIDGE_WORKLOAD_MAX_GEMMS];
	struct ridge_align_tiling gemm_tiling[RIDGE_WORKLOAD_MAX_GEMMS];
	enum ridge_align_severity gemm_severity[RIDGE_WORKLOAD_MAX_GEMMS];
	/* model/align.c's tensor-core rule on each GEMM, in the linear layout
	 * (x W^T: cuBLAS TN), the rule ridge gemm and the validation apply. */
	struct ridge_gemm_tensor_rule gemm_rule[RIDGE_WORKLOAD_MAX_GEMMS];
	bool has_swiglu;
	struct ridge_align_swiglu swiglu;
	/* Whether the Llama rule is the config's rule: model_type "llama" or
	 * none (shape keys, a bare YAML), or the rule's settings given (config or
	 * flags); another family's config sizes its FFN its own way. */
	bool swiglu_applies;
	char model_type[64];
	int errors, warnings;
};

/* dtype bf16, 4096 tokens, 128x128 tiles one per SM, no SwiGLU settings. */
void align_settings_default(struct align_settings *set);

/* Starts a run on gpu: the rule for set->dtype. Returns 0, or -1 with a
 * message (the dtype has no rule). */
int align_run_start(struct align_run *run, const struct ridge_gpu *gpu, const struct align_settings *set, char *err,
		    size_t err_len);

/* Dimensions as `--dims` takes them: "6000,21845" or "d_model=6000,ffn=21845"
 * (names: letters, digits, _ . -). A dimension named d_model, hidden_size,
 * hidden or dim makes those named ffn, d_ff, ffn_dim, intermediate or
 * intermediate_size show the Llama SwiGLU size. where names the input in
 * messages ("--dims", "x.yaml:7:11: dims"). Returns 0, or -1 with a message. */
int align_run_dims(struct align_run *run, const char *list, const char *where, char *err, size_t err_len);

/* Every weight GEMM of config's architecture (model/workload.c: attention
 * or MLA's low-rank projections, the dense MLP, router, routed experts at
 * tokens x k / E rows and shared experts) and the LM head, then attention's
 * head sizes. label names the config in messages.
 * Returns 0, or -1 with a message. */
int align_run_model(struct align_run *run, const struct app_model_config *config, const char *label, char *err,
		    size_t err_len);

/* Share of the forward GEMM FLOPs (model mode) in GEMMs with an error; the
 * total in *total. */
double align_run_misaligned_fraction(const struct align_run *run, double *total);

#endif
