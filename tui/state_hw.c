/* Hardware panel: the peak rates of the chosen GPU(s), from ridge_gpu_peak(). */
#include "panels.h"

static void hw_rows(const struct ridge_gpu *gpu, struct tui_hw_row rows[RIDGE_DTYPE_COUNT])
{
	for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
		struct tui_hw_row *r = &rows[d];
		*r = (struct tui_hw_row){ 0 };
		if (!gpu)
			continue;
		enum ridge_dtype dtype = (enum ridge_dtype)d;
		r->has = ridge_gpu_peak(gpu, dtype, RIDGE_PEAK_DEFAULT, false, &r->peak, NULL);
		r->has_vector = ridge_gpu_peak(gpu, dtype, RIDGE_PEAK_VECTOR, false, &r->vector, NULL);
		r->has_matrix = ridge_gpu_peak(gpu, dtype, RIDGE_PEAK_MATRIX, false, &r->matrix, NULL);
	}
}

void tui_compute_hw(struct tui_state *s)
{
	hw_rows(tui_state_gpu(s), s->out.hw[0]);
	hw_rows(tui_state_compare_gpu(s), s->out.hw[1]);
}
