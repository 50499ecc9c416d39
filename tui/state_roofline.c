/* Roofline panel: the kernel's FLOPs and bytes (model/intensity), its ceiling
 * and placement (model/roofline), and the ceilings to plot: `ridge gemm`'s
 * gemm_place (GEMM mode) and the calls of `ridge roofline --intensity`. */
#include <stdio.h>
#include <string.h>

#include "gemm_calc.h"
#include "kernel_view.h"
#include "panels.h"

static const enum ridge_kernel algorithm_kernel[] = { RIDGE_KERNEL_GEMM, RIDGE_KERNEL_GEMM_TILED,
						      RIDGE_KERNEL_GEMM_NAIVE };

/* The kernel shape the GEMM inputs describe. */
int tui_roofline_shape(const struct tui_inputs *in, struct ridge_kernel_shape *shape, char *err, size_t err_len)
{
	memset(shape, 0, sizeof *shape);
	int a = in->gemm_algorithm;
	shape->kernel = algorithm_kernel[a >= 0 && a < 3 ? a : 0];
	shape->dtype = (enum ridge_dtype)in->roofline_dtype;
	shape->traffic = (enum ridge_traffic)in->gemm_traffic; /* default, tiled, compulsory */
	shape->m = in->gemm_m;
	shape->n = in->gemm_n;
	shape->k = in->gemm_k;
	/* The tile belongs to the tiled algorithm; empty leaves the model's 32. */
	if (shape->kernel == RIDGE_KERNEL_GEMM_TILED && in->gemm_tile[0] &&
	    kernel_tile_parse(in->gemm_tile, &shape->tile_m, &shape->tile_n, &shape->tile_k) != 0) {
		snprintf(err, err_len, "tile '%s' is not T or MxNxK (whole numbers 1..65536)", in->gemm_tile);
		return -1;
	}
	return 0;
}

static void plot_ceilings(const struct ridge_gpu *gpu, struct tui_roofline_results *r)
{
	r->compute_count = 0;
	for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
		/* The matrix rate where the dtype has one, and the vector rate. */
		static const enum ridge_peak_kind kinds[] = { RIDGE_PEAK_MATRIX, RIDGE_PEAK_VECTOR };
		for (int k = 0; k < 2; k++) {
			double peak;
			if (!ridge_gpu_peak(gpu, (enum ridge_dtype)d, kinds[k], false, &peak, NULL))
				continue;
			struct tui_roofline_compute *c = &r->compute[r->compute_count++];
			c->dtype = (enum ridge_dtype)d;
			c->matrix = kinds[k] == RIDGE_PEAK_MATRIX;
			c->peak = peak;
		}
	}
	for (int l = 0; l < RIDGE_LEVEL_COUNT; l++)
		r->has_level[l] = roofline_bandwidth(gpu, (enum ridge_level)l, &r->level_bandwidth[l], NULL);
}

void tui_compute_roofline(struct tui_state *s)
{
	struct tui_roofline_results *r = &s->out.roofline;
	const struct tui_inputs *in = &s->in;
	const struct ridge_gpu *gpu = tui_panel_gpu(s, r, sizeof *r, r->error, sizeof r->error);
	if (!gpu)
		return;
	plot_ceilings(gpu, r);
	enum ridge_level level = (enum ridge_level)in->roofline_level;
	bool no_tensor = in->roofline_no_tensor != 0;
	char err[TUI_TEXT];
	if (in->roofline_mode == TUI_ROOFLINE_GEMM) {
		struct ridge_kernel_shape shape;
		/* ridge gemm's sequence (app/calc/gemm_calc.c), at the chosen level: at
		 * L2 a kernel moves its tiled traffic, as `ridge roofline --kernel
		 * --level l2` places it. */
		struct gemm_options opt = { .no_tensor = no_tensor, .level = level };
		struct gemm_placement g;
		if (tui_roofline_shape(in, &shape, err, sizeof err) != 0 ||
		    gemm_place(gpu, &shape, &opt, &g, err, sizeof err) != 0) {
			snprintf(r->error, sizeof r->error, "%s", err);
			return;
		}
		r->has_cost = true;
		r->cost = g.cost;
		r->path = g.path;
		r->ceiling = g.ceiling;
		r->point = g.point;
		r->has_time_model = g.has_time_model;
		r->time_model = g.time_model;
	} else {
		enum ridge_peak_kind kind = no_tensor ? RIDGE_PEAK_VECTOR : RIDGE_PEAK_DEFAULT;
		if (roofline_ceiling(gpu, (enum ridge_dtype)in->roofline_dtype, kind, false, level, &r->ceiling, err,
				     sizeof err) != 0 ||
		    roofline_place_intensity(&r->ceiling, in->intensity, &r->point, err, sizeof err) != 0) {
			snprintf(r->error, sizeof r->error, "%s", err);
			return;
		}
	}
	r->ok = true;
}
