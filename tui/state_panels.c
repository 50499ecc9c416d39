/* The panels computed from model/ beyond the hardware table. */
#include <stdio.h>
#include <string.h>

#include "panels.h"

const struct ridge_gpu *tui_panel_gpu(const struct tui_state *s, void *results, size_t size, char *error,
				      size_t error_len)
{
	memset(results, 0, size);
	const struct ridge_gpu *gpu = tui_state_gpu(s);
	if (!gpu)
		snprintf(error, error_len, "no GPU selected");
	return gpu;
}

void tui_compute_panels(struct tui_state *s)
{
	tui_compute_roofline(s);
	tui_compute_occupancy(s);
	tui_compute_align(s);
	tui_compute_cost(s);
}
