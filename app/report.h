/* The sections of `ridge report`, in order; each calculator contributes one
 * (defined beside its command). */
#ifndef RIDGE_REPORT_H
#define RIDGE_REPORT_H

#include <stddef.h>

#include "gpu.h"

typedef void (*report_section_fn)(const struct ridge_gpu *gpu);

void report_hardware(const struct ridge_gpu *gpu);
void report_roofline(const struct ridge_gpu *gpu);
void report_align(const struct ridge_gpu *gpu);
void report_cost(const struct ridge_gpu *gpu);
void report_occupancy(const struct ridge_gpu *gpu); /* app/occupancy_calc.c */

extern const report_section_fn report_sections[];
extern const size_t report_section_count;

#endif
