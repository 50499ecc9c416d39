/* ridge-probe's --help: the one text its --help prints (through
 * util/help_text.c, wrapped to 80 columns) and its man page is made of
 * (probe/usage_print.c prints it for scripts/gen-docs.sh, so the page is
 * written where no nvcc is). PROBE_NAME: ridge-probe, or ridge-probe-hip. */
#ifndef RIDGE_PROBE_USAGE_H
#define RIDGE_PROBE_USAGE_H

#ifndef PROBE_NAME
#define PROBE_NAME "ridge-probe"
#endif

static const char probe_usage_text[] =
	"usage: " PROBE_NAME " [--device N] [--quick] [--only LIST] [--validate] [--json] [--out FILE]\n"
	"                   [--hwdb DIR] [--repeats N] [--warmup N] [--sustained SECONDS]\n"
	"                   [--out-dir DIR [--barrier-file PATH] [--barrier-timeout SECONDS]]\n"
	"       " PROBE_NAME " --replay FILE [--json] [--out FILE] [--validation-json FILE] [--hwdb DIR]\n"
	"\n"
	"Measures this GPU's ceilings (memory, L2 and shared-memory bandwidth, vector and\n"
	"tensor-core rates, library GEMM, launch costs, the runtime's occupancy answers)\n"
	"and sets them beside its hwdb entry. Every kernel verifies its output before\n"
	"its time counts; times are device events, median of the runs, with the\n"
	"coefficient of variation (flagged above 5%) and the SM clock and power read\n"
	"through NVML while each ran. A library GEMM ceiling (bf16_matrix, ...) is the\n"
	"best rate over every GEMM shape of its kind the run timed; its method and shape\n"
	"say which.\n"
	"\n"
	"  --device N      the GPU to measure (default 0)\n"
	"  --quick         fewer runs, a coarser L2 sweep and, of the GEMM sweep, only the few\n"
	"                  shapes the matrix ceilings take the best of (about 15 s)\n"
	"  --only LIST     comma-separated groups or measurements:\n"
	"                  memory (copy triad read write read_wide), l2, smem, compute (fma_fp32\n"
	"                  fma_fp64 fma_fp16x2), tensor (mma_bf16 wgmma_bf16 wgmma_fp16 wgmma_tf32\n"
	"                  wgmma_e4m3 wgmma_e5m2 wgmma_int8 wgmma_sp_bf16 wgmma_sp_e4m3), gemm\n"
	"                  (gemm_bf16 gemm_fp16 gemm_tf32 gemm_fp32 gemm_fp8 gemm_sweep),\n"
	"                  launch (launch launch_sync graph_node graph_launch), latency (pointer\n"
	"                  chases: latency latency_smem latency_hops), fixed (copy_fixed and small\n"
	"                  GEMMs: the fixed cost per kernel), occupancy;\n"
	"                  the validation suite: validate, or its parts v_stream, v_gemm, v_blas,\n"
	"                  v_fused, v_launch\n"
	"  --validate      also run the validation suite: kernels whose time ridge's model\n"
	"                  predicts from the spec sheet and from this run's measured ceilings,\n"
	"                  shown with the error (about 40 s more; with --quick a few cases)\n"
	"  --json          one JSON document on stdout (SI units; launch costs in us): the keys\n"
	"                  of the CLI reference plus the raw times, latency, l2_sweep, fixed_cost,\n"
	"                  sustained, rate_checks, checks and more (docs/ridge-probe.md)\n"
	"  --validation-json FILE  write the validation cases alone (predicted, measured,\n"
	"                  error per case; what `ridge roofline --validation` plots)\n"
	"  --out FILE      write the measured ceilings as a hwdb calibration (YAML) that\n"
	"                  `ridge --calibration FILE` and `ridge --hwdb DIR` load\n"
	"  --hwdb DIR      also load hwdb entries from DIR when matching the device\n"
	"  --repeats N     timed runs per measurement (default 15, --quick 8; 1..64)\n"
	"  --warmup N      untimed runs before them (default 3, --quick 2)\n"
	"  --sustained SECONDS  also run the bf16 and fp8 GEMMs (cuBLAS(Lt) 8192^3) and the HBM\n"
	"                  copy for SECONDS each, in windows of at least 1 s: rate, SM clock and\n"
	"                  power per window beside the burst rate, in the report and the JSON's\n"
	"                  `sustained` (opt-in: it takes 3 x SECONDS; 1..600)\n"
	"  --out-dir DIR   one result per GPU, for a fleet (ridge fleet DIR): under srun, mpirun,\n"
	"                  mpiexec or torchrun each rank measures the GPU of its local rank and\n"
	"                  writes DIR/<host>-gpu<N>.json (the --json document with a placement:\n"
	"                  rank, host, GPU index, UUID) and DIR/<host>-gpu<N>.yaml (its calibration);\n"
	"                  a file that exists is never overwritten (two ranks on one GPU are refused);\n"
	"                  with --replay FILE: a saved run into DIR, placed by the launcher's variables\n"
	"  --barrier-file PATH  with --out-dir: start every rank together (power and cooling\n"
	"                  loaded at once) through the directory PATH on a shared file system\n"
	"  --barrier-timeout SECONDS  how long a rank waits there before it starts unaligned,\n"
	"                  saying so in its result (default 600; 1..86400)\n"
	"  --replay FILE   re-render the report of a saved --json document (no GPU needed)\n"
	"  --help          this text\n"
	"\n"
	"Exit status: 0 done; 1 a kernel failed to run or verify; 2 bad usage or input;\n"
	"3 no GPU, a driver problem, or the output could not be written.\n";

#endif
