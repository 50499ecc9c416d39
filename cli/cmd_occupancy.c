/* ridge occupancy: the arguments, through the calculator's own table
 * (calc_occupancy.params, app/calc/occupancy_calc.c), then the calculator. */
#include "cli.h"
#include "occupancy_calc.h"

static const char usage_text[] =
	"usage: ridge occupancy [--gpu GPU] --threads T --regs R [--smem BYTES] [--dyn-smem BYTES]\n"
	"                       [--carveout PCT] [--optin] [--barriers N] [--cache-config C]\n"
	"                       [--sweep] [--svg FILE] [--json] [--hwdb DIR] [--calibration FILE]\n"
	"       ridge occupancy [--gpu GPU] (--ptxas FILE | --resource-usage FILE) [--threads T] [...]\n"
	"\n"
	"How many blocks of one kernel an SM holds at once, which resource stops one more,\n"
	"and the smallest change that would gain a block. On NVIDIA the answer is exactly\n"
	"cudaOccupancyMaxActiveBlocksPerMultiprocessor's (every limit and granularity of\n"
	"the runtime's calculator, from the hardware database); on AMD CDNA, the hardware\n"
	"rule as LLVM states it and hipOccupancyMaxActiveBlocksPerMultiprocessor's rule,\n"
	"with any disagreement flagged. Also the block size cudaOccupancyMaxPotentialBlockSize\n"
	"would pick.\n"
	"\n"
	"  --gpu GPU             hwdb id or alias (default " APP_DEFAULT_GPU ")\n"
	"  --threads T           threads per block, 1..1024 (may be left out with --sweep,\n"
	"                        --ptxas or --resource-usage: the best block size is used)\n"
	"  --regs R              registers per thread (ptxas \"Used R registers\"), 0..255;\n"
	"                        on AMD the ArchVGPRs (same as --vgprs), 0..256\n"
	"  --smem BYTES          static shared memory per block (ptxas \"bytes smem\", without\n"
	"                        the driver's reserve), at most the 48 KiB default limit;\n"
	"                        on AMD the LDS per workgroup (same as --lds)\n"
	"  --dyn-smem BYTES      dynamic shared memory per block at launch\n"
	"  --carveout PCT        cudaFuncAttributePreferredSharedMemoryCarveout, 0..100\n"
	"                        (default: the driver's, all of the SM's shared memory)\n"
	"  --cache-config C      cudaFuncSetCacheConfig: none, shared, l1 or equal (used\n"
	"                        only when --carveout is not given)\n"
	"  --optin               the kernel raised cudaFuncAttributeMaxDynamicSharedMemorySize\n"
	"                        to the opt-in maximum (needed above 48 KiB per block)\n"
	"  --barriers N          named barriers per block, 0..16 (ptxas \"used N barriers\";\n"
	"                        default 1, as the runtime assumes)\n"
	"  --vgprs N --agprs N --sgprs N --lds BYTES\n"
	"                        AMD: ArchVGPRs, AGPRs (unified VGPR file), total SGPRs (0:\n"
	"                        not counted), LDS per workgroup\n"
	"  --sweep               also every block size from one warp to the maximum\n"
	"  --svg FILE            charts of occupancy vs block size, registers and shared\n"
	"                        memory, the given configuration marked\n"
	"  --ptxas FILE          read `nvcc -Xptxas -v` output and report every kernel in it\n"
	"                        (C++ names demangled; a log built for several architectures:\n"
	"                        the kernels built for --gpu's, said which)\n"
	"  --resource-usage FILE read `cuobjdump --dump-resource-usage` output (its SHARED\n"
	"                        includes the 1 KiB reserve, which is taken out); on AMD the\n"
	"                        -Rpass-analysis=kernel-resource-usage remarks\n"
	"  --json                one JSON document on stdout (bytes, fractions 0..1)\n"
	"  --hwdb DIR            also load every *.yaml in DIR\n"
	"  --calibration FILE    also load FILE (a ridge-probe calibration)\n"
	"\n"
	"Sizes take units: 32KiB, 48K (= 48000), 1024. A configuration that cannot\n"
	"launch reports 0 blocks and the limit that forbids it (exit 0).\n";

static int run_occupancy(int argc, char **argv)
{
	static const struct calc_command fns = { occupancy_check_request, occupancy_command };
	struct params_command cmd = calc_params_command(&calc_occupancy);
	cmd.usage = usage_text;
	cmd.check_required = false; /* --threads may come from --ptxas: occupancy_check_request */
	return calc_command_main(&cmd, &fns, argc, argv);
}

const struct cli_command cli_cmd_occupancy = { "occupancy", run_occupancy,
					       "blocks per SM, the limiting resource, and what would gain a block" };
