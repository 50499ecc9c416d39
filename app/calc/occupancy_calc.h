/* The occupancy calculator (occupancy_calc.c): `ridge occupancy`, the
 * scenario kind `occupancy` (calc_occupancy, calc.h) and the TUI's panel read
 * one table of inputs, calc_occupancy.params. */
#ifndef RIDGE_OCCUPANCY_CALC_H
#define RIDGE_OCCUPANCY_CALC_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "calc.h"
#include "occupancy.h"
#include "status.h"

/* The command's combinations, before a GPU is known: --ptxas or
 * --resource-usage, not both, and neither with --sweep or --svg; --threads
 * unless --sweep or a report chooses it. Returns 0, or -1 with st. */
int occupancy_check_request(const struct param_values *v, struct app_status *st);

/* The model's input from parsed values, checked against the GPU: its
 * block-size and register limits, inputs of the other vendor, --regs/--vgprs
 * and --smem/--lds given twice, registers or shared memory beside a compiler
 * report (which gives them). A scenario item and the command line get the
 * same message, naming the key or the flag. Returns 0, or -1 with st. */
int occupancy_build_input(const struct param_values *v, const struct ridge_gpu *g, struct ridge_occupancy_input *in,
			  struct app_status *st);

/* `ridge occupancy` on parsed values: one configuration (--sweep, --svg) or
 * every kernel of a compiler report. With --json the document is left in
 * *json for the front end to print; else the text is printed. Returns an
 * exit code; the errors are in st. */
int occupancy_command(FILE *out, const struct param_values *v, const struct ridge_gpu *g, cJSON **json,
		      struct app_status *st);

#endif
