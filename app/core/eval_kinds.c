/* The item kinds of scenario files, alphabetical. Adding a calculator to
 * `ridge eval` (and the TUI) is one line here: its struct calc, which the
 * command line uses too. */
#include "eval.h"

const struct calc *const eval_kinds[] = {
	&calc_align, &calc_comm,   &calc_cost_decode, &calc_cost_prefill, &calc_cost_train,
	&calc_gemm,  &calc_launch, &calc_occupancy,   &calc_cost_rank,    &calc_roofline,
};
const size_t eval_kind_count = sizeof eval_kinds / sizeof eval_kinds[0];
