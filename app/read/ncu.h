/* Nsight Compute CSV: the per-kernel counts a roofline needs, from either of
 * ncu's CSV layouts:
 *   ncu --csv --metrics ...              (default "details" page, long format:
 *                                         one row per metric with "Metric Name",
 *                                         "Metric Unit", "Metric Value" columns)
 *   ncu --csv --page raw --metrics ...   (wide format: one column per metric,
 *                                         a units row under the header, one
 *                                         row per kernel)
 * Lines ncu or the application print around the table (==PROF== ...) are
 * skipped. Values may carry thousands separators ("1,234,567"); units are
 * scaled to bytes, seconds and counts ("Kbyte" = 1000 bytes, "usecond").
 *
 * Metrics read (sm__ or smsp__ prefix for the SASS counts):
 *   time      gpu__time_duration.sum (or .avg, or the SpeedOfLight "Duration")
 *   DRAM      dram__bytes_read.sum + dram__bytes_write.sum, or dram__bytes.sum
 *   L2        lts__t_bytes.sum (optional: the L2 level of the hierarchy)
 *   vector    sm__sass_thread_inst_executed_op_{d,f,h}{add,mul,fma}_pred_on.sum
 *             FLOPs = add + mul + 2 x fma (ncu's own roofline sections' rule)
 *   tensor    sm__ops_path_tensor_src_<dtype>[_dst_<dtype>].sum: math ops,
 *             counted by ncu as FLOPs (2 per multiply-add)
 *   sm__inst_executed_pipe_tensor*: tensor instructions, which have no fixed
 *             FLOP count; their presence without ops_path counts is reported. */
#ifndef RIDGE_NCU_H
#define RIDGE_NCU_H

#include <stdbool.h>
#include <stddef.h>

#include "gpu.h"

enum { NCU_FP64, NCU_FP32, NCU_FP16, NCU_PRECISIONS };
enum { NCU_ADD, NCU_MUL, NCU_FMA, NCU_OPS };

struct ncu_kernel {
	char id[32];
	char name[512];
	int line; /* where the kernel's first row is */

	bool has_time;
	double time_s;
	bool has_dram_read, has_dram_write, has_dram_total;
	double dram_read, dram_write, dram_total;
	bool has_l2;
	double l2_bytes;

	bool has_sass[NCU_PRECISIONS][NCU_OPS];
	double sass[NCU_PRECISIONS][NCU_OPS]; /* thread instructions executed */
	/* Tensor-pipe math ops by source dtype: those without a _dst_ part, and
	 * the sum of the _dst_ ones, kept apart so neither is counted twice. */
	bool has_tensor_plain[RIDGE_DTYPE_COUNT], has_tensor_dst[RIDGE_DTYPE_COUNT];
	double tensor_plain[RIDGE_DTYPE_COUNT], tensor_dst[RIDGE_DTYPE_COUNT];
	/* Tensor-pipe instructions that are matrix work: the largest
	 * sm__inst_executed_pipe_tensor* count less the HFMA2.MMA register moves
	 * ptxas issues on the tensor pipe (..._op_hmma_type_hfma2.sum), which
	 * are no matrix multiplies; never below 0. */
	double tensor_instructions;
	double tensor_pipe;  /* the largest sm__inst_executed_pipe_tensor* count */
	double tensor_hfma2; /* sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum, 0 when absent */
};

struct ncu_report {
	bool raw; /* --page raw (wide) layout; false: details (long) */
	int count;
	struct ncu_kernel *kernels;
	bool any_flop_metric; /* some SASS or tensor-ops column/row was present */
};

/* Parses text (the contents of path, used in messages). Returns 0, or -1 with
 * err as "path:line: problem" (or "path: problem" when no line applies). */
int ncu_parse(const char *path, const char *text, size_t len, struct ncu_report *out, char *err, size_t err_len);
void ncu_free(struct ncu_report *report);

/* The ncu command line that captures what ridge roofline --ncu reads,
 * tensor-core FLOPs included: the tensor-op counters are the
 * sm__ops_path_tensor_src_* metrics Nsight Compute 2025.3 offered on the H200
 * (bf16 and tf32 only: it has no fp8 one; tests/fixtures/README.md). */
#define NCU_CAPTURE_COMMAND                                                                                    \
	"ncu --csv --page raw --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,"    \
	"lts__t_bytes.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,"                                  \
	"sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum," \
	"sm__inst_executed_pipe_tensor.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum,"                         \
	"sm__ops_path_tensor_src_tf32_dst_fp32.sum YOUR_PROGRAM > profile.csv"

/* A saved report (.ncu-rep) as CSV: runs `ncu --import path --csv --page raw`
 * (no shell). Returns 0 with *text (free it), 2 (EXIT_USAGE) when ncu failed
 * on the file, 3 (EXIT_ENV) when ncu is not installed; err says why. */
int ncu_import(const char *path, char **text, size_t *len, char *err, size_t err_len);
/* Whether path names a saved report (.ncu-rep), not a CSV. */
bool ncu_is_report(const char *path);

/* Derived counts of one kernel. */
double ncu_vector_flops(const struct ncu_kernel *k, int precision);
double ncu_tensor_flops(const struct ncu_kernel *k, enum ridge_dtype dtype);
double ncu_flops(const struct ncu_kernel *k);
/* DRAM bytes: read + write where both are there, else the total. */
bool ncu_dram_bytes(const struct ncu_kernel *k, double *bytes);
/* The precision carrying most of the FLOPs: the dtype, and whether it ran on
 * the tensor pipe. False when the kernel counted no FLOPs. */
bool ncu_dominant(const struct ncu_kernel *k, enum ridge_dtype *dtype, bool *matrix);

#endif
