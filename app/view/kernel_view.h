/* What `ridge roofline --kernel` and `ridge gemm` share: the --tile syntax,
 * and a kernel's FLOPs and bytes shown term by term (human and JSON). */
#ifndef RIDGE_KERNEL_VIEW_H
#define RIDGE_KERNEL_VIEW_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "models.h"

/* "32" (a square tile, 32x32x32) or "128x128x64" (M x N x K), whole numbers
 * 1..65536. Returns 0, or -1 when text is not a tile. */
int kernel_tile_parse(const char *text, double *tile_m, double *tile_n, double *tile_k);
/* The same, adding an error naming flag and text to st. */
struct app_status;
int app_parse_tile(const char *flag, const char *text, double *tile_m, double *tile_n, double *tile_k,
		   struct app_status *st);

/* "gemm, bf16, M=4096 N=4096 K=4096": the kernel and its shape in one line. */
void kernel_describe(const struct ridge_kernel_shape *shape, char *buf, size_t len);

/* FLOPs and bytes, term by term, both traffic models, the compute path:
 * human output read back from kernel_json's object (one path for the
 * command line and scenario files). */
void kernel_print_json(FILE *out, const cJSON *kernel);

/* The same as a JSON object: kernel, dtype, shape, traffic_model, flops,
 * bytes, read_bytes, write_bytes, tiled_bytes, compulsory_bytes, terms, ... */
/* The tensor-core rule's layout, severity and six conditions (align.h) into o:
 * layout, layout_text, alignment_severity, alignment_required,
 * alignment_conditions. */
void kernel_rule_json(cJSON *o, const struct ridge_gemm_tensor_rule *rule);
cJSON *kernel_json(const struct ridge_kernel_shape *shape, const struct ridge_kernel_cost *cost,
		   const struct ridge_kernel_path *path);

#endif
