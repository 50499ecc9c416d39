/* ridge roofline: the arguments, through the calculator's own table
 * (calc_roofline.params, app/calc/roofline_calc.c), then the calculator. */
#include <stdio.h>

#include "cli.h"
#include "roofline_calc.h"

static const char usage_text[] =
	"usage: ridge roofline [--gpu GPU] [--dtype DT] (--flops F --bytes B | --intensity I\n"
	"                      | --kernel NAME [shape flags] | --ncu FILE | --validation FILE [--group G])\n"
	"                      [--time T] [--level hbm|l2|smem] [--no-tensor] [--sparse]\n"
	"                      [--l2-bytes B] [--smem-bytes B] [--svg FILE] [--json]\n"
	"                      [--hwdb DIR] [--calibration FILE]\n"
	"\n"
	"attainable = min(peak(dtype), intensity x bandwidth(level)); the ridge point is\n"
	"peak / bandwidth; below it a kernel is memory-bound, at or above it compute-bound.\n"
	"\n"
	"  --gpu GPU          hwdb id or alias (default " APP_DEFAULT_GPU ")\n"
	"  --dtype DT         fp64 fp32 tf32 bf16 fp16 fp8 int8 fp4 (default bf16); the matrix\n"
	"                     (tensor-core) rate where the GPU has one\n"
	"  --no-tensor        the vector (CUDA-core / SIMD) rate instead\n"
	"  --sparse           the 2:4 structured-sparse matrix rate\n"
	"  --flops F --bytes B   the work: FLOPs and bytes moved at --level (70e9, 549GB)\n"
	"  --intensity I      FLOP/byte alone (no time floor)\n"
	"  --time T           a measured time (25ms, 5us): achieved FLOP/s and the fraction\n"
	"                     of attainable\n"
	"  --level L          the memory level --bytes is counted at: hbm (default), l2, smem;\n"
	"                     L2 and shared-memory bandwidths come only from a calibration\n"
	"  --l2-bytes B, --smem-bytes B   bytes at the other levels: a hierarchical roofline\n"
	"                     (the binding level is the one that takes longest)\n"
	"  --svg FILE         write a log-log roofline plot (SVG)\n"
	"  --json             one JSON document: peak_flops, bandwidth, ridge_point,\n"
	"                     intensity, attainable_flops, bound, time_floor_s,\n"
	"                     achieved_flops, fraction_of_attainable, ...\n"
	"\n"
	"Named kernels (--kernel NAME); their FLOPs and bytes are shown term by term, and\n"
	"two times: the roofline floor (time_floor_s: nothing runs faster) and the prediction\n"
	"(predicted_time_s = max(compute / compute efficiency, memory / memory efficiency)\n"
	"+ fixed cost, the efficiencies and fixed cost of the kernel's class from the\n"
	"calibration or hwdb entry; model/README.md, \"time model\"):\n"
	"%s"
	"  shape flags: --m --n --k --batch --tile (T or MxNxK) --seq --heads --kv-heads\n"
	"  --head-dim --causal --fused/--unfused --passes --flops-per-element\n"
	"  --impl I           attention implementation: default (the entry's\n"
	"                     timing.attention_default: what PyTorch's SDPA runs there), ideal\n"
	"                     (the roofline), fa2, fa3, cudnn, efficient (SDPA's memory-\n"
	"                     efficient backend), split-kv, per-head (decode kernels: the KV\n"
	"                     sequence split over CTAs, or one CTA a KV head)\n"
	"  --explain          every term of the prediction with its source\n"
	"  --traffic default|tiled|compulsory  tiled: the algorithm's re-reads all reach\n"
	"                     memory; compulsory: every tensor once (L2 catches re-reads);\n"
	"                     default: compulsory for gemm, gemv, attention, flash-attention and\n"
	"                     element-wise kernels, tiled for unfused and multi-pass kernels,\n"
	"                     l2-aware for gemm-naive, gemm-tiled and a given --tile (the tiles\n"
	"                     L2 keeps between waves; gemm-naive from its access pattern: A a\n"
	"                     broadcast, B coalesced, L1 wavefronts) (measured: model/README.md);\n"
	"                     the floor of a GEMM is the slowest level of its traffic\n"
	"\n"
	"--ncu FILE places every kernel of an Nsight Compute CSV (ncu --csv [--page raw]\n"
	"--metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,\n"
	"sm__sass_thread_inst_executed_op_{d,f,h}{add,mul,fma}_pred_on.sum,\n"
	"sm__ops_path_tensor_src_<dtype>_dst_<dtype>.sum[,lts__t_bytes.sum]): achieved FLOP/s,\n"
	"intensity, bound and fraction of attainable. Without --dtype each kernel is placed\n"
	"against the precision that carried most of its FLOPs.\n"
	"\n"
	"--validation FILE places the cases of a ridge-probe --validate --json document: each\n"
	"measured point (achieved FLOP/s at its intensity) beside the model's prediction, the\n"
	"two joined in the plot; --group G keeps one group (stream fp32_gemm library_gemm fused).\n"
	"Give the calibration of the same run: --calibration FILE --gpu its id.\n"
	"\n"
	"Example: ridge roofline --kernel attention --seq 8192 --heads 64 --head-dim 128 --dtype bf16\n";

/* The --help text with the named kernels listed. */
static void help_text(char *buf, size_t len)
{
	char kernels[2048];
	size_t used = 0;
	for (int k = 0; k < RIDGE_KERNEL_COUNT; k++) {
		int w = snprintf(kernels + used, sizeof kernels - used, "  %-17s %s\n",
				 intensity_kernel_name((enum ridge_kernel)k),
				 intensity_kernel_summary((enum ridge_kernel)k));
		if (w > 0 && (size_t)w < sizeof kernels - used)
			used += (size_t)w;
	}
	snprintf(buf, len, usage_text, kernels);
}

static int run_roofline(int argc, char **argv)
{
	static char usage[8192];
	help_text(usage, sizeof usage);
	static const struct calc_command fns = { roofline_check_request, roofline_command };
	struct params_command cmd = calc_params_command(&calc_roofline);
	cmd.usage = usage;
	cmd.check_required = false; /* the work comes in several forms: roofline_check_request */
	return calc_command_main(&cmd, &fns, argc, argv);
}

const struct cli_command cli_cmd_roofline = { "roofline", run_roofline,
					      "place work or a kernel under a GPU's roofline; plot it" };
