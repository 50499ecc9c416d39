/* Occupancy panel: model/occupancy's calculation (the CUDA runtime's, or the
 * CDNA rules), the sweep over block sizes and the best block size. */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "panels.h"

void tui_occupancy_input(const struct tui_inputs *in, const struct ridge_gpu *gpu, struct ridge_occupancy_input *occ)
{
	occupancy_input_init(occ);
	occ->threads_per_block = (int)in->threads;
	occ->regs_per_thread = (int)in->regs;
	occ->static_smem = in->smem;
	occ->dynamic_smem = in->dyn_smem;
	occ->barriers = (int)in->barriers;
	/* Carveout and opt-in are NVIDIA's; `ridge occupancy` refuses them on AMD. */
	if (gpu && gpu->vendor == RIDGE_VENDOR_NVIDIA) {
		occ->carveout_percent = (int)in->carveout;
		occ->optin = in->optin != 0;
	}
}

/* err := why (the two sizes as text, then the GPU's id, as why's %s take
 * them); returns -1. */
static int refuse_smem(char *err, size_t err_len, const char *why, double bytes, double limit, const char *gpu_id)
	__attribute__((format(printf, 3, 0)));
static int refuse_smem(char *err, size_t err_len, const char *why, double bytes, double limit, const char *gpu_id)
{
	char a[32], b[32];
	fmt_bytes(bytes, a, sizeof a);
	fmt_bytes(limit, b, sizeof b);
	snprintf(err, err_len, why, a, b, gpu_id);
	return -1;
}

/* Shared memory the kernel cannot have at all, as `ridge occupancy` refuses
 * it (a legal configuration that cannot launch is a result: 0 blocks). */
static int check_smem(const struct ridge_gpu *g, const struct tui_inputs *in, char *err, size_t err_len)
{
	double total = in->smem + in->dyn_smem;
	if (in->threads > g->max_threads_per_block) {
		snprintf(err, err_len, "%g threads: over the %d per block on %s", in->threads, g->max_threads_per_block,
			 g->id);
		return -1;
	}
	if (g->vendor == RIDGE_VENDOR_AMD) {
		if (total > g->smem_per_block)
			return refuse_smem(err, err_len, "%s of LDS per workgroup is over the %s maximum on %s", total,
					   g->smem_per_block, g->id);
		return 0;
	}
	if (in->smem > g->smem_per_block)
		return refuse_smem(err, err_len,
				   "%s static smem is over the %s a kernel can declare: use dynamic + opt-in", in->smem,
				   g->smem_per_block, g->id);
	if (total > g->smem_per_block_optin)
		return refuse_smem(err, err_len, "%s of smem is over the opt-in maximum of %s per block on %s", total,
				   g->smem_per_block_optin, g->id);
	return 0;
}

void tui_compute_occupancy(struct tui_state *s)
{
	struct tui_occupancy_results *r = &s->out.occupancy;
	const struct ridge_gpu *gpu = tui_panel_gpu(s, r, sizeof *r, r->error, sizeof r->error);
	if (!gpu)
		return;
	struct ridge_occupancy_input occ;
	tui_occupancy_input(&s->in, gpu, &occ);
	char err[TUI_TEXT];
	if (check_smem(gpu, &s->in, err, sizeof err) != 0 ||
	    occupancy_analyze(gpu, &occ, &r->analysis, err, sizeof err) != 0) {
		snprintf(r->error, sizeof r->error, "%s", err);
		return;
	}
	r->ok = true;
	/* The sweep: every whole-warp block size the GPU allows. */
	int step = gpu->warp_size > 0 ? gpu->warp_size : 32;
	for (int threads = step; threads <= gpu->max_threads_per_block && r->sweep_count < TUI_SWEEP_MAX;
	     threads += step) {
		struct ridge_occupancy_input at = occ;
		struct ridge_occupancy_result res;
		at.threads_per_block = threads;
		if (occupancy_compute(gpu, &at, &res, err, sizeof err) != 0)
			continue;
		r->sweep_threads[r->sweep_count] = threads;
		r->sweep_occupancy[r->sweep_count] = res.occupancy;
		r->sweep_limiter[r->sweep_count] = res.limiter;
		r->sweep_count++;
	}
	r->has_best = occupancy_max_potential_block_size(gpu, &occ, &r->best_block_size, &r->best_min_grid,
							 &r->best_blocks_per_sm, err, sizeof err) == 0;
}
