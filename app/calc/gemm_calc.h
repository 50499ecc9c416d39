/* The GEMM calculator (gemm_calc.c): `ridge gemm`, the scenario kind `gemm`
 * (calc_gemm, calc.h) and the TUI's roofline panel in GEMM mode place a GEMM
 * through one sequence of model calls, gemm_place. */
#ifndef RIDGE_GEMM_CALC_H
#define RIDGE_GEMM_CALC_H

#include <stdbool.h>
#include <stddef.h>

#include "models.h"

struct gemm_options {
	bool no_tensor, sparse;
	enum ridge_level level; /* the memory level placed against: HBM (ridge gemm), or the TUI's choice */
	double time_s;          /* a measured time, 0: none */
	const struct ridge_timing_overrides *overrides; /* --efficiency, --fixed-cost; NULL: none */
};

/* A GEMM placed on a GPU's roofline, with the time model's prediction. */
struct gemm_placement {
	struct ridge_kernel_cost cost; /* FLOPs and bytes term by term (model/intensity.h) */
	struct ridge_kernel_path path; /* tensor-core eligibility and the rate used */
	struct ridge_roofline_ceiling ceiling;
	/* At HBM the kernel's bytes (a tiled GEMM's L2-aware bytes, the L2
	 * level's time included in the floor when it binds); at L2 its tiled
	 * traffic, what its loads ask for (as ridge roofline --level l2). */
	struct ridge_roofline_point point;
	struct ridge_roofline_point compulsory;    /* every matrix once */
	struct ridge_roofline_hierarchy hierarchy; /* HBM and L2, when cost.l2.modelled (HBM level only) */
	bool has_time_model;
	struct ridge_kernel_time time_model;
	char time_error[400]; /* why there is no time model */
};

/* intensity_kernel_on, intensity_ceiling, roofline_place (the bytes and the
 * compulsory bytes), the hierarchical floor of an L2-aware tiled GEMM, then
 * timing_kernel. Returns 0, or -1 with err (the time model failing is not an
 * error here: has_time_model false and time_error say why). */
int gemm_place(const struct ridge_gpu *gpu, const struct ridge_kernel_shape *s, const struct gemm_options *opt,
	       struct gemm_placement *out, char *err, size_t err_len);

#endif
