/* The GEMM calculator: FLOPs, global-memory bytes and roofline bound of one
 * GEMM under a chosen algorithm (naive, shared-memory tiled, or the
 * library's tensor-core tiling), and whether its shape can use tensor
 * cores. `ridge gemm`, the scenario kind `gemm` and the TUI's GEMM mode. */
#include "gemm_calc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "calc.h"
#include "kernel_time.h"
#include "kernel_view.h"
#include "json_fields.h"

#define GEMM_PARAMS(X)                                                                                                 \
	X(GEMM_M,                                                                                                      \
	  PARAM_INT("m", 1, PARAM_DIM_MAX, .flags = PARAM_REQUIRED, .metavar = "M", .help = "rows of A and C"))        \
	X(GEMM_N,                                                                                                      \
	  PARAM_INT("n", 1, PARAM_DIM_MAX, .flags = PARAM_REQUIRED, .metavar = "N", .help = "columns of B and C"))     \
	X(GEMM_K, PARAM_INT("k", 1, PARAM_DIM_MAX, .flags = PARAM_REQUIRED, .metavar = "K",                            \
			    .help = "the reduction dimension"))                                                        \
	X(GEMM_DTYPE,                                                                                                  \
	  PARAM_TEXT_ROW("dtype", .metavar = "DT", .help = "fp64 fp32 tf32 bf16 fp16 fp8 int8 fp4", .def = "bf16"))    \
	X(GEMM_NAIVE, PARAM_FLAG_ROW("naive", .help = "one thread per output, no reuse in the code (the textbook's)")) \
	X(GEMM_TILE,                                                                                                   \
	  PARAM_TEXT_ROW("tile", .metavar = "T|MxNxK", .help = "a shared-memory tiled kernel with this CTA tile"))     \
	X(GEMM_BATCH,                                                                                                  \
	  PARAM_INT("batch", 1, PARAM_DIM_MAX, .metavar = "B", .help = "independent GEMMs of this shape", .def = "1")) \
	X(GEMM_TRAFFIC,                                                                                                \
	  PARAM_TEXT_ROW("traffic", .metavar = "default|tiled|compulsory",                                             \
			 .help = "default: compulsory for the library GEMM, tiled for --tile and --naive; "            \
				 "tiled: every re-read "                                                               \
				 "reaches memory; compulsory: every matrix once"))                                     \
	X(GEMM_LAYOUT, PARAM_TEXT_ROW("layout", .metavar = "linear|matmul",                                            \
				      .help = "how A and B lie in memory (default linear: x W^T, cuBLAS TN)"))         \
	X(GEMM_NO_TENSOR, PARAM_FLAG_ROW("no_tensor", .help = "the vector (CUDA-core) rate"))                          \
	X(GEMM_SPARSE, PARAM_FLAG_ROW("sparse", .help = "the 2:4 sparse matrix rate"))                                 \
	X(GEMM_TIME,                                                                                                   \
	  PARAM_NUM("time", RIDGE_UNIT_SECONDS, 0, INFINITY, .flags = PARAM_OPEN_LO, .metavar = "T",                   \
		    .help = "a measured time: achieved FLOP/s and fraction of attainable", .range = "greater than 0")) \
	CALC_GPU_ROWS(X, GEMM)                                                                                         \
	X(GEMM_EFFICIENCY,                                                                                             \
	  PARAM_TEXT_ROW("efficiency", .metavar = "gemm=F",                                                            \
			 .help = "what-if efficiency of the library GEMM (gemm=0.7, gemm.compute=60%)"))               \
	X(GEMM_FIXED_COST,                                                                                             \
	  PARAM_TEXT_ROW("fixed_cost", .metavar = "gemm=T", .help = "what-if fixed cost per GEMM (gemm=5us)"))         \
	X(GEMM_JSON, CALC_JSON_ROW)
PARAMS_TABLE(gemm_params, GEMM_PARAMS);

/* A tiled or naive GEMM whose bytes are its L2-aware HBM traffic is placed on
 * the hierarchical roofline: HBM with those bytes, L2 with the tiled re-reads
 * (the naive kernel: its L1 misses; where the GPU's L2 bandwidth is known),
 * shared memory where intensity_levels_on places it. Its time floor and bound
 * are the largest of them and compute; other GEMMs keep the one-level
 * placement. */
static int gemm_l2_floor(const struct ridge_gpu *gpu, const struct ridge_kernel_shape *s,
			 const struct ridge_kernel_cost *cost, const struct ridge_roofline_ceiling *ceiling,
			 const struct ridge_kernel_path *path, struct ridge_roofline_point *p,
			 struct ridge_roofline_hierarchy *h, char *err, size_t err_len)
{
	memset(h, 0, sizeof *h);
	if (!cost->l2.modelled)
		return 0;
	double levels[RIDGE_LEVEL_COUNT];
	/* The shared-memory level where the kernel's count describes it: the
	 * naive kernel's L1 wavefronts, the textbook's one-thread-per-output tile
	 * on the vector units (not a tensor-core tile: intensity_levels_on). */
	if (intensity_levels_on(gpu, s, cost, path, levels, err, err_len))
		return -1;
	if (roofline_hierarchy(gpu, ceiling->peak_flops, cost->flops, levels, cost->write_bytes, h, err, err_len))
		return -1;
	if (h->time_floor_s > p->time_floor_s) {
		p->time_floor_s = h->time_floor_s;
		p->attainable_flops = h->attainable_flops;
		p->bound = RIDGE_BOUND_MEMORY;
	}
	return 0;
}

/* The L2-aware keys at the top level (the kernel object has the whole model). */
static void gemm_l2_json(cJSON *doc, const struct ridge_kernel_cost *cost, const struct ridge_roofline_hierarchy *h)
{
	const struct ridge_gemm_l2 *l = &cost->l2;
	json_number(doc, "hbm_bytes", l->hbm_bytes);
	json_number(doc, "l2_bytes", l->l2_traffic);
	json_number(doc, "wave_ctas", l->wave_ctas);
	cJSON_AddBoolToObject(doc, "l2_resident", l->a_resident && l->b_resident);
	const struct ridge_roofline_level *l2 = &h->levels[RIDGE_LEVEL_L2];
	if (l2->placed) {
		json_number(doc, "l2_bandwidth", l2->bandwidth);
		json_number(doc, "l2_time_s", l2->time_s);
	}
	const struct ridge_roofline_level *l1 = &h->levels[RIDGE_LEVEL_SMEM];
	if (l1->placed) {
		json_number(doc, "smem_bytes", l1->bytes);
		json_number(doc, "smem_bandwidth", l1->bandwidth);
		json_number(doc, "smem_time_s", l1->time_s);
		if (l1->derived)
			cJSON_AddStringToObject(doc, "smem_bandwidth_source", l1->why);
	}
	cJSON_AddStringToObject(doc, "binding", roofline_binding_name(h));
}

int gemm_place(const struct ridge_gpu *gpu, const struct ridge_kernel_shape *s, const struct gemm_options *opt,
	       struct gemm_placement *out, char *err, size_t err_len)
{
	memset(out, 0, sizeof *out);
	bool at_l2 = opt->level == RIDGE_LEVEL_L2;
	if (intensity_kernel_on(gpu, s, &out->cost, err, err_len) ||
	    intensity_ceiling(gpu, s, &out->cost, opt->no_tensor, opt->sparse, opt->level, &out->ceiling, &out->path,
			      err, err_len) ||
	    roofline_place(&out->ceiling, out->cost.flops, at_l2 ? out->cost.tiled_bytes : out->cost.bytes, opt->time_s,
			   &out->point, err, err_len) ||
	    roofline_place(&out->ceiling, out->cost.flops, out->cost.compulsory_bytes, 0, &out->compulsory, err,
			   err_len))
		return -1;
	if (opt->level == RIDGE_LEVEL_HBM &&
	    gemm_l2_floor(gpu, s, &out->cost, &out->ceiling, &out->path, &out->point, &out->hierarchy, err, err_len))
		return -1;
	/* The time model on the same shape and compute path (model/timing.h). */
	struct ridge_timing_options topt = { .no_tensor = opt->no_tensor,
					     .sparse = opt->sparse,
					     .impl = RIDGE_ATTENTION_DEFAULT,
					     .overrides = opt->overrides };
	out->has_time_model =
		timing_kernel(gpu, s, &topt, &out->time_model, out->time_error, sizeof out->time_error) == 0;
	return 0;
}

/* The result's groups of keys, each the members of one model struct. */
static const struct json_field gemm_traffic_fields[] = {
	JSON_FIELDS(struct ridge_kernel_cost, flops, bytes, read_bytes, write_bytes),
};
static const struct json_field gemm_ceiling_fields[] = {
	JSON_FIELDS(struct ridge_roofline_ceiling, peak_flops, bandwidth, ridge_point),
};
static const struct json_field gemm_point_fields[] = {
	JSON_FIELDS(struct ridge_roofline_point, attainable_flops, compute_time_s, memory_time_s),
};
static const struct json_field gemm_timed_fields[] = {
	JSON_FIELDS(struct ridge_roofline_point, time_s, achieved_flops, fraction_of_attainable, fraction_of_peak),
};

static cJSON *gemm_run(struct calc_input *in)
{
	const struct param_values *v = in->values;
	const struct ridge_gpu *gpu = in->gpu;
	struct ridge_kernel_shape s = { .kernel = RIDGE_KERNEL_GEMM, .dtype = RIDGE_BF16 };
	const char *text;
	bool naive = params_flag(v, GEMM_NAIVE), tiled = params_has(v, GEMM_TILE);
	if ((text = params_text(v, GEMM_DTYPE)) && !ridge_dtype_parse(text, &s.dtype)) {
		snprintf(in->err, sizeof in->err, "%s: unknown dtype '%s' (known: %s)", params_where(v, GEMM_DTYPE),
			 text, ridge_dtype_list());
		return NULL;
	}
	if (naive && tiled) {
		snprintf(in->err, sizeof in->err, "give %s or %s, not both", params_where(v, GEMM_NAIVE),
			 params_where(v, GEMM_TILE));
		return NULL;
	}
	if (tiled && kernel_tile_parse(params_text(v, GEMM_TILE), &s.tile_m, &s.tile_n, &s.tile_k)) {
		snprintf(in->err, sizeof in->err,
			 "%s: '%s' is not a tile: give T (square, T x T x T) or MxNxK, whole numbers from 1 to 65536",
			 params_where(v, GEMM_TILE), params_text(v, GEMM_TILE));
		return NULL;
	}
	if ((text = params_text(v, GEMM_TRAFFIC)) && !intensity_traffic_parse(text, &s.traffic)) {
		snprintf(in->err, sizeof in->err, "%s: unknown traffic model '%s' (known: default tiled compulsory)",
			 params_where(v, GEMM_TRAFFIC), text);
		return NULL;
	}
	if ((text = params_text(v, GEMM_LAYOUT)) && !align_layout_parse(text, &s.layout)) {
		snprintf(in->err, sizeof in->err, "%s: unknown layout '%s' (known: linear matmul)",
			 params_where(v, GEMM_LAYOUT), text);
		return NULL;
	}
	s.m = params_num(v, GEMM_M);
	s.n = params_num(v, GEMM_N);
	s.k = params_num(v, GEMM_K);
	s.batch = params_has(v, GEMM_BATCH) ? params_num(v, GEMM_BATCH) : 0;
	if (naive)
		s.kernel = RIDGE_KERNEL_GEMM_NAIVE;
	else if (tiled)
		s.kernel = RIDGE_KERNEL_GEMM_TILED;
	double time_s = params_has(v, GEMM_TIME) ? params_num(v, GEMM_TIME) : 0;

	char err[400];
	struct ridge_timing_overrides overrides = { 0 };
	bool has_overrides = false;
	if (calc_timing_overrides(v, GEMM_EFFICIENCY, GEMM_FIXED_COST, &overrides, &has_overrides, in->err,
				  sizeof in->err) != 0)
		return NULL;
	struct gemm_options opt = { .overrides = has_overrides ? &overrides : NULL,
				    .no_tensor = params_flag(v, GEMM_NO_TENSOR),
				    .sparse = params_flag(v, GEMM_SPARSE),
				    .level = RIDGE_LEVEL_HBM,
				    .time_s = time_s };
	struct gemm_placement g;
	if (gemm_place(gpu, &s, &opt, &g, err, sizeof err)) {
		snprintf(in->err, sizeof in->err, "gemm: %s", err);
		return NULL;
	}
	if (!g.has_time_model) {
		snprintf(in->err, sizeof in->err, "gemm: %s", g.time_error);
		return NULL;
	}
	const struct ridge_kernel_cost cost = g.cost;
	const struct ridge_kernel_path path = g.path;
	const struct ridge_roofline_ceiling ceiling = g.ceiling;
	const struct ridge_roofline_point p = g.point, compulsory = g.compulsory;
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "gpu", gpu->id);
	cJSON_AddStringToObject(doc, "ceiling_source", app_ceiling_source(gpu));
	cJSON_AddStringToObject(doc, "algorithm", naive ? "naive" : tiled ? "tiled" : "library");
	cJSON_AddStringToObject(doc, "dtype", ridge_dtype_name(s.dtype));
	json_number(doc, "m", s.m);
	json_number(doc, "n", s.n);
	json_number(doc, "k", s.k);
	json_number(doc, "batch", s.batch > 0 ? s.batch : 1);
	json_put_fields(doc, &cost, gemm_traffic_fields, JSON_FIELD_COUNT(gemm_traffic_fields));
	json_number(doc, "intensity", p.intensity);
	cJSON_AddStringToObject(doc, "bound", roofline_bound_name(p.bound));
	json_number(doc, "time_floor_s", p.time_floor_s);
	cJSON_AddBoolToObject(doc, "tensor_core_eligible", path.tensor_eligible);
	cJSON_AddBoolToObject(doc, "tensor_core_fast_path", path.fast_path);
	if (!path.tensor_eligible || !path.fast_path)
		cJSON_AddStringToObject(doc, "reason", path.reason);
	cJSON_AddBoolToObject(doc, "uses_tensor_cores", path.uses_matrix);
	cJSON_AddStringToObject(doc, "compute_dtype", ridge_dtype_name(ceiling.dtype));
	cJSON_AddStringToObject(doc, "path", ceiling.matrix ? "matrix" : "vector");
	json_put_fields(doc, &ceiling, gemm_ceiling_fields, JSON_FIELD_COUNT(gemm_ceiling_fields));
	json_put_fields(doc, &p, gemm_point_fields, JSON_FIELD_COUNT(gemm_point_fields));
	json_number(doc, "compulsory_bytes", cost.compulsory_bytes);
	json_number(doc, "compulsory_intensity", compulsory.intensity);
	cJSON_AddStringToObject(doc, "compulsory_bound", roofline_bound_name(compulsory.bound));
	json_number(doc, "compulsory_time_floor_s", compulsory.time_floor_s);
	if (p.has_time) {
		json_put_fields(doc, &p, gemm_timed_fields, JSON_FIELD_COUNT(gemm_timed_fields));
	}
	if (path.note[0])
		cJSON_AddStringToObject(doc, "note", path.note);
	if (cost.l2.modelled)
		gemm_l2_json(doc, &cost, &g.hierarchy);
	cJSON_AddItemToObject(doc, "kernel", kernel_json(&s, &cost, &path));
	json_number(doc, "predicted_time_s", g.time_model.predicted_time_s);
	kernel_time_trust_json(doc, &g.time_model);
	cJSON_AddItemToObject(doc, "prediction", kernel_time_json(&g.time_model));
	return doc;
}

static void gemm_l2_print(FILE *out, const cJSON *d)
{
	if (!calc_has(d, "l2_time_s"))
		return;
	char a[48], b[48];
	fmt_seconds(calc_num(d, "l2_time_s"), a, sizeof a);
	fmt_si(calc_num(d, "l2_bandwidth"), "B/s", b, sizeof b);
	fprintf(out, "  L2: the tiled re-reads take %s at %s; binding: %s\n", a, b, calc_str(d, "binding"));
}

static void gemm_smem_print(FILE *out, const cJSON *d)
{
	if (!calc_has(d, "smem_time_s"))
		return;
	char a[48], b[48], t[48];
	fmt_si(calc_num(d, "smem_bytes"), "B", a, sizeof a);
	fmt_si(calc_num(d, "smem_bandwidth"), "B/s", b, sizeof b);
	fmt_seconds(calc_num(d, "smem_time_s"), t, sizeof t);
	fprintf(out, "  L1 / shared memory: %s take %s at %s%s; binding: %s\n", a, t, b,
		calc_has(d, "smem_bandwidth_source") ? " (derived: 128 B/clk per SM)" : "", calc_str(d, "binding"));
}

static void gemm_print(FILE *out, const cJSON *d)
{
	char a[48], b[48], t[48];
	const cJSON *kernel = cJSON_GetObjectItemCaseSensitive(d, "kernel");
	kernel_print_json(out, kernel);
	fmt_si(calc_num(d, "peak_flops"), "FLOP/s", a, sizeof a);
	fmt_si(calc_num(d, "bandwidth"), "B/s", b, sizeof b);
	fprintf(out, "On %s (%s ceilings): %s %s %s, HBM %s, ridge %.6g FLOP/byte\n", calc_str(d, "gpu"),
		calc_str(d, "ceiling_source"), calc_str(d, "compute_dtype"), calc_str(d, "path"), a, b,
		calc_num(d, "ridge_point"));
	fmt_seconds(calc_num(d, "time_floor_s"), t, sizeof t);
	fmt_si(calc_num(d, "attainable_flops"), "FLOP/s", a, sizeof a);
	fprintf(out, "  intensity %.6g FLOP/byte: %s-bound, attainable %s, time floor %s\n", calc_num(d, "intensity"),
		calc_str(d, "bound"), a, t);
	if (strcmp(calc_str(kernel, "traffic"), "compulsory") != 0 &&
	    calc_num(d, "compulsory_bytes") != calc_num(d, "bytes")) {
		fmt_seconds(calc_num(d, "compulsory_time_floor_s"), t, sizeof t);
		fprintf(out, "  every matrix once (compulsory): %.6g FLOP/byte: %s-bound, time floor %s\n",
			calc_num(d, "compulsory_intensity"), calc_str(d, "compulsory_bound"), t);
	}
	gemm_l2_print(out, d);
	gemm_smem_print(out, d);
	const cJSON *prediction = cJSON_GetObjectItemCaseSensitive(d, "prediction");
	if (prediction)
		kernel_time_print(out, prediction, false);
	if (calc_has(d, "time_s")) {
		fmt_si(calc_num(d, "achieved_flops"), "FLOP/s", a, sizeof a);
		fprintf(out, "  measured: %s = %.4g%% of attainable, %.4g%% of peak\n", a,
			100 * calc_num(d, "fraction_of_attainable"), 100 * calc_num(d, "fraction_of_peak"));
	}
}

const struct calc calc_gemm = {
	.name = "gemm",
	.synopsis = "usage: ridge gemm --m M --n N --k K [--dtype DT] [--gpu GPU] [--naive | --tile T|MxNxK]\n"
		    "                  [--batch B] [--traffic default|tiled|compulsory] [--layout linear|matmul]\n"
		    "                  [--no-tensor] [--sparse]\n"
		    "                  [--time T] [--json] [--hwdb DIR] [--calibration FILE]",
	.description = "C (M x N) = A (M x K) x B (K x N), 2*M*N*K FLOPs, in dtype (default bf16).\n"
		       "  default      the library's tensor-core GEMM, compulsory traffic: each matrix\n"
		       "               once (L2 catches the re-reads of its tiles; cuBLAS bf16 4096^3 ran\n"
		       "               at 800 TFLOP/s on an H200); --traffic tiled: CTA tile 128x128x64,\n"
		       "               A read ceil(N/128) times, B ceil(M/128) times, C written once\n"
		       "  --tile T     a shared-memory tiled kernel with a T x T (or MxNxK) CTA tile\n"
		       "               (tiled traffic, l2-aware on a GPU, by default)\n"
		       "  --naive      one thread per output, no reuse in the code (2*M*N*K element reads,\n"
		       "               --traffic tiled); by default what its loads do: L1 serves every\n"
		       "               warp's (A a broadcast, B coalesced), L2 each 32x32 block's tiles,\n"
		       "               DRAM what L2 loses between waves (l2-aware); CUDA cores\n"
		       "JSON keys: flops, bytes, intensity, bound, time_floor_s, tensor_core_eligible (reason when\n"
		       "false or off the fast path), tensor_core_fast_path, layout, alignment_conditions,\n"
		       "peak_flops, ridge_point, compulsory_bytes, ...\n"
		       "Tensor cores (model/align.c, one rule for gemm, align, the TUI and the validation): the\n"
		       "dtype needs a matrix rate; cuBLAS's fast kernels need its six conditions (m, n or k by the\n"
		       "transposes, lda, ldb, ldc) in multiples of 16 bytes of elements (8 bf16/fp16, 16 fp8/int8,\n"
		       "4 tf32). --layout linear (default) is PyTorch's F.linear, x W^T with W [N,K] row-major:\n"
		       "cuBLAS TN with lda = ldb = K, ldc = N, so only N and K are checked and M (tokens) is free;\n"
		       "--layout matmul is A [M,K] x B [K,N], both row-major: cuBLAS NN, N and K checked.\n"
		       "Off those conditions cuBLAS >= 11 stays on tensor cores through slower kernels (eligible,\n"
		       "off the fast path: the matrix peak is an upper bound; 3-8x slower on an H200). fp8 needs\n"
		       "them (no fp8 kernel otherwise: not eligible, priced without tensor cores), and on compute\n"
		       "capability 8.9 and 9.x only the TN layout (linear).\n",
	CALC_IMPL(gemm_params, gemm_run, gemm_print),
};
