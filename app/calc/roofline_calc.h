/* The roofline calculator (roofline_calc.c): `ridge roofline` and the
 * scenario kind `roofline` (calc_roofline, calc.h) read one table of inputs,
 * calc_roofline.params. */
#ifndef RIDGE_ROOFLINE_CALC_H
#define RIDGE_ROOFLINE_CALC_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "calc.h"
#include "status.h"

/* The command's combinations, before a GPU is known: one way of giving the
 * work (--flops/--bytes, --intensity, --kernel, --ncu or --validation), the
 * flags each applies to, the names of dtypes, levels, kernels, traffic
 * models and implementations. Returns 0, or -1 with st. */
int roofline_check_request(const struct param_values *v, struct app_status *st);

/* `ridge roofline` on parsed values: one placement (with --svg), every
 * kernel of --ncu, or the cases of --validation. With --json the document
 * is left in *json for the front end to print (--validation prints its
 * own); else the text is printed. Returns an exit code; errors in st. */
int roofline_command(FILE *out, const struct param_values *v, const struct ridge_gpu *gpu, cJSON **json,
		     struct app_status *st);

#endif
