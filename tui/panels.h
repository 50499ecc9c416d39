/* Inside tui/: each panel's compute step (state_<panel>.c, pure, calling
 * model/) and draw step (draw_<panel>.c, ncurses). */
#ifndef RIDGE_TUI_PANELS_H
#define RIDGE_TUI_PANELS_H

#include "layout.h"
#include "state.h"

/* Compute: inputs -> s->out, through model/ only. */
/* The GPU a panel computes on, its results (size bytes) cleared; NULL, with
 * error written, when none is selected. */
const struct ridge_gpu *tui_panel_gpu(const struct tui_state *s, void *results, size_t size, char *error,
				      size_t error_len);
void tui_compute_hw(struct tui_state *s);
/* Every other panel (one call per panel inside). */
void tui_compute_panels(struct tui_state *s);
void tui_compute_roofline(struct tui_state *s);
void tui_compute_occupancy(struct tui_state *s);
void tui_compute_align(struct tui_state *s);
void tui_compute_cost(struct tui_state *s);

/* The GEMM the roofline panel's inputs describe. Returns 0, or -1 with err
 * (a tile that is not T or MxNxK). */
int tui_roofline_shape(const struct tui_inputs *in, struct ridge_kernel_shape *shape, char *err, size_t err_len);
/* The occupancy input the panel's inputs describe. */
void tui_occupancy_input(const struct tui_inputs *in, const struct ridge_gpu *gpu, struct ridge_occupancy_input *occ);

/* The cost model inputs the panel's inputs describe. Return 0, or -1 with err
 * (the GPU has no rate for the compute dtype). */
int tui_train_input(const struct tui_inputs *in, const struct ridge_gpu *gpu, struct ridge_train_input *t, char *err,
		    size_t err_len);
int tui_decode_input(const struct tui_inputs *in, const struct ridge_gpu *gpu, struct ridge_decode_input *d, char *err,
		     size_t err_len);

#endif
