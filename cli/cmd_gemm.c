/* ridge gemm: FLOPs, global-memory bytes and roofline bound of one GEMM under
 * a chosen algorithm (naive, shared-memory tiled, or the library's tensor-core
 * tiling), and whether its shape can use tensor cores. */
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "kernel_view.h"

static const char usage_text[] =
	"usage: ridge gemm --m M --n N --k K [--dtype DT] [--gpu GPU] [--naive | --tile T|MxNxK]\n"
	"                  [--batch B] [--traffic tiled|compulsory] [--no-tensor] [--sparse]\n"
	"                  [--time T] [--json] [--hwdb DIR] [--calibration FILE]\n"
	"\n"
	"C (M x N) = A (M x K) x B (K x N), 2*M*N*K FLOPs, in dtype (default bf16).\n"
	"  default      the library's tensor-core GEMM: CTA tile 128x128x64; A is read\n"
	"               ceil(N/128) times, B ceil(M/128) times, C written once\n"
	"  --tile T     a shared-memory tiled kernel with a T x T (or MxNxK) CTA tile\n"
	"  --naive      one thread per output, no reuse: 2*M*N*K element reads; CUDA cores\n"
	"  --batch B    B independent GEMMs of this shape (strided batched)\n"
	"  --traffic compulsory   count every matrix once instead (L2 catches the re-reads)\n"
	"  --no-tensor  the vector (CUDA-core) rate even where tensor cores would apply\n"
	"  --time T     a measured time: achieved FLOP/s and fraction of attainable\n"
	"  --json       keys: flops, bytes, intensity, bound, time_floor_s,\n"
	"               tensor_core_eligible (and reason when false), peak_flops, ...\n"
	"\n"
	"Tensor cores need a matrix rate for the dtype and M, N, K multiples of 16 bytes of\n"
	"elements (8 for bf16/fp16, 16 for fp8/int8, 4 for tf32): cuBLAS's alignment rule.\n";

enum {
	OPT_GPU = 256,
	OPT_HWDB,
	OPT_CALIBRATION,
	OPT_DTYPE,
	OPT_M,
	OPT_N,
	OPT_K,
	OPT_BATCH,
	OPT_NAIVE,
	OPT_TILE,
	OPT_TRAFFIC,
	OPT_NO_TENSOR,
	OPT_SPARSE,
	OPT_TIME,
	OPT_JSON,
	OPT_HELP,
};

static int parse_dim(const char *flag, const char *text, double *out)
{
	long long v;
	if (cli_parse_int(flag, text, 1, 1099511627776LL, &v) != 0)
		return -1;
	*out = (double)v;
	return 0;
}

static int run_gemm(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "gpu", required_argument, NULL, OPT_GPU },
		{ "hwdb", required_argument, NULL, OPT_HWDB },
		{ "calibration", required_argument, NULL, OPT_CALIBRATION },
		{ "dtype", required_argument, NULL, OPT_DTYPE },
		{ "m", required_argument, NULL, OPT_M },
		{ "n", required_argument, NULL, OPT_N },
		{ "k", required_argument, NULL, OPT_K },
		{ "batch", required_argument, NULL, OPT_BATCH },
		{ "naive", no_argument, NULL, OPT_NAIVE },
		{ "tile", required_argument, NULL, OPT_TILE },
		{ "traffic", required_argument, NULL, OPT_TRAFFIC },
		{ "no-tensor", no_argument, NULL, OPT_NO_TENSOR },
		{ "sparse", no_argument, NULL, OPT_SPARSE },
		{ "time", required_argument, NULL, OPT_TIME },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	const char *gpu_name = CLI_DEFAULT_GPU, *hwdb_dir = NULL, *calibration = NULL;
	struct ridge_kernel_shape s = { .kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_BF16 };
	bool naive = false, tiled = false, json = false, no_tensor = false, sparse = false;
	double time_s = 0;
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		int rc = 0;
		switch (c) {
		case OPT_GPU:
			gpu_name = optarg;
			break;
		case OPT_HWDB:
			hwdb_dir = optarg;
			break;
		case OPT_CALIBRATION:
			calibration = optarg;
			break;
		case OPT_DTYPE:
			rc = cli_parse_dtype("--dtype", optarg, &s.dtype);
			break;
		case OPT_M:
			rc = parse_dim("--m", optarg, &s.m);
			break;
		case OPT_N:
			rc = parse_dim("--n", optarg, &s.n);
			break;
		case OPT_K:
			rc = parse_dim("--k", optarg, &s.k);
			break;
		case OPT_BATCH:
			rc = parse_dim("--batch", optarg, &s.batch);
			break;
		case OPT_NAIVE:
			naive = true;
			break;
		case OPT_TILE:
			rc = cli_parse_tile("--tile", optarg, &s.tile_m, &s.tile_n, &s.tile_k);
			tiled = true;
			break;
		case OPT_TRAFFIC:
			if (!intensity_traffic_parse(optarg, &s.traffic)) {
				cli_error("--traffic: unknown traffic model '%s' (known: tiled compulsory)", optarg);
				rc = -1;
			}
			break;
		case OPT_NO_TENSOR:
			no_tensor = true;
			break;
		case OPT_SPARSE:
			sparse = true;
			break;
		case OPT_TIME:
			rc = cli_parse_positive("--time", optarg, RIDGE_UNIT_SECONDS, &time_s);
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_HELP:
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("gemm", argv, c);
		}
		if (rc)
			return EXIT_USAGE;
	}
	if (optind < argc) {
		cli_error("gemm takes no arguments, got '%s' (see 'ridge gemm --help')", argv[optind]);
		return EXIT_USAGE;
	}
	if (naive && tiled) {
		cli_error("give --naive or --tile, not both");
		return EXIT_USAGE;
	}
	const char *missing = s.m == 0 ? "--m" : s.n == 0 ? "--n" : s.k == 0 ? "--k" : NULL;
	if (missing) {
		cli_error("gemm needs %s (see 'ridge gemm --help')", missing);
		return EXIT_USAGE;
	}
	if (naive)
		s.kernel = RIDGE_KERNEL_GEMM_NAIVE;
	else if (tiled)
		s.kernel = RIDGE_KERNEL_GEMM_TILED;

	struct cli_hw hw;
	if (cli_hw_open(&hw, hwdb_dir, calibration) != 0)
		return EXIT_USAGE;
	const struct hwdb_entry *e = cli_hw_find(&hw, gpu_name);
	if (!e) {
		cli_hw_close(&hw);
		return EXIT_USAGE;
	}
	const struct ridge_gpu *gpu = &e->gpu;
	char err[400];
	struct ridge_kernel_cost cost;
	struct ridge_kernel_path path;
	struct ridge_roofline_ceiling ceiling;
	struct ridge_roofline_point p, compulsory;
	int rc = EXIT_USAGE;
	if (intensity_kernel(&s, &cost, err, sizeof err) ||
	    intensity_ceiling(gpu, &s, &cost, no_tensor, sparse, RIDGE_LEVEL_HBM, &ceiling, &path, err, sizeof err) ||
	    roofline_place(&ceiling, cost.flops, cost.bytes, time_s, &p, err, sizeof err) ||
	    roofline_place(&ceiling, cost.flops, cost.compulsory_bytes, 0, &compulsory, err, sizeof err)) {
		cli_error("gemm: %s", err);
		goto done;
	}
	if (json) {
		cJSON *doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "gpu", gpu->id);
		cJSON_AddStringToObject(doc, "ceiling_source", cli_ceiling_source(gpu));
		cJSON_AddStringToObject(doc, "algorithm", naive ? "naive" : tiled ? "tiled" : "library");
		cJSON_AddStringToObject(doc, "dtype", ridge_dtype_name(s.dtype));
		cli_json_number(doc, "m", s.m);
		cli_json_number(doc, "n", s.n);
		cli_json_number(doc, "k", s.k);
		cli_json_number(doc, "batch", s.batch > 0 ? s.batch : 1);
		cli_json_number(doc, "flops", cost.flops);
		cli_json_number(doc, "bytes", cost.bytes);
		cli_json_number(doc, "read_bytes", cost.read_bytes);
		cli_json_number(doc, "write_bytes", cost.write_bytes);
		cli_json_number(doc, "intensity", p.intensity);
		cJSON_AddStringToObject(doc, "bound", roofline_bound_name(p.bound));
		cli_json_number(doc, "time_floor_s", p.time_floor_s);
		cJSON_AddBoolToObject(doc, "tensor_core_eligible", path.tensor_eligible);
		if (!path.tensor_eligible)
			cJSON_AddStringToObject(doc, "reason", path.reason);
		cJSON_AddBoolToObject(doc, "uses_tensor_cores", path.uses_matrix);
		cJSON_AddStringToObject(doc, "compute_dtype", ridge_dtype_name(ceiling.dtype));
		cJSON_AddStringToObject(doc, "path", ceiling.matrix ? "matrix" : "vector");
		cli_json_number(doc, "peak_flops", ceiling.peak_flops);
		cli_json_number(doc, "bandwidth", ceiling.bandwidth);
		cli_json_number(doc, "ridge_point", ceiling.ridge_point);
		cli_json_number(doc, "attainable_flops", p.attainable_flops);
		cli_json_number(doc, "compute_time_s", p.compute_time_s);
		cli_json_number(doc, "memory_time_s", p.memory_time_s);
		cli_json_number(doc, "compulsory_bytes", cost.compulsory_bytes);
		cli_json_number(doc, "compulsory_intensity", compulsory.intensity);
		cJSON_AddStringToObject(doc, "compulsory_bound", roofline_bound_name(compulsory.bound));
		cli_json_number(doc, "compulsory_time_floor_s", compulsory.time_floor_s);
		if (p.has_time) {
			cli_json_number(doc, "time_s", p.time_s);
			cli_json_number(doc, "achieved_flops", p.achieved_flops);
			cli_json_number(doc, "fraction_of_attainable", p.fraction_of_attainable);
			cli_json_number(doc, "fraction_of_peak", p.fraction_of_peak);
		}
		if (path.note[0])
			cJSON_AddStringToObject(doc, "note", path.note);
		cJSON_AddItemToObject(doc, "kernel", kernel_json(&s, &cost, &path));
		rc = cli_json_print(doc);
		goto done;
	}
	char a[48], b[48], t[48];
	kernel_print(&s, &cost, &path);
	cli_format_si(ceiling.peak_flops, "FLOP/s", a, sizeof a);
	cli_format_si(ceiling.bandwidth, "B/s", b, sizeof b);
	printf("On %s (%s ceilings): %s %s %s, HBM %s, ridge %.6g FLOP/byte\n", gpu->id, cli_ceiling_source(gpu),
	       ridge_dtype_name(ceiling.dtype), ceiling.matrix ? "matrix" : "vector", a, b, ceiling.ridge_point);
	cli_format_seconds(p.time_floor_s, t, sizeof t);
	cli_format_si(p.attainable_flops, "FLOP/s", a, sizeof a);
	printf("  intensity %.6g FLOP/byte: %s-bound, attainable %s, time floor %s\n", p.intensity,
	       roofline_bound_name(p.bound), a, t);
	if (s.traffic == RIDGE_TRAFFIC_TILED && cost.compulsory_bytes != cost.bytes) {
		cli_format_seconds(compulsory.time_floor_s, t, sizeof t);
		printf("  every matrix once (compulsory): %.6g FLOP/byte: %s-bound, time floor %s\n", compulsory.intensity,
		       roofline_bound_name(compulsory.bound), t);
	}
	if (p.has_time) {
		cli_format_si(p.achieved_flops, "FLOP/s", a, sizeof a);
		printf("  measured: %s = %.4g%% of attainable, %.4g%% of peak\n", a, 100 * p.fraction_of_attainable,
		       100 * p.fraction_of_peak);
	}
	rc = EXIT_OK;
done:
	cli_hw_close(&hw);
	return rc;
}

const struct cli_command cli_cmd_gemm = { "gemm", run_gemm,
					  "FLOPs, bytes, bound and tensor-core eligibility of one GEMM" };
