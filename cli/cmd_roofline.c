/* ridge roofline: place work (FLOPs and bytes, an intensity, a named kernel,
 * or every kernel of an Nsight Compute CSV) under a GPU's roofline. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kernel_view.h"
#include "ncu.h"
#include "report.h"
#include "roofline_svg.h"

static const char usage_text[] =
	"usage: ridge roofline [--gpu GPU] [--dtype DT] (--flops F --bytes B | --intensity I\n"
	"                      | --kernel NAME [shape flags] | --ncu FILE)\n"
	"                      [--time T] [--level hbm|l2|smem] [--no-tensor] [--sparse]\n"
	"                      [--l2-bytes B] [--smem-bytes B] [--svg FILE] [--json]\n"
	"                      [--hwdb DIR] [--calibration FILE]\n"
	"\n"
	"attainable = min(peak(dtype), intensity x bandwidth(level)); the ridge point is\n"
	"peak / bandwidth; below it a kernel is memory-bound, at or above it compute-bound.\n"
	"\n"
	"  --gpu GPU          hwdb id or alias (default " CLI_DEFAULT_GPU ")\n"
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
	"Named kernels (--kernel NAME); their FLOPs and bytes are shown term by term:\n"
	"%s"
	"  shape flags: --m --n --k --batch --tile (T or MxNxK) --seq --heads --kv-heads\n"
	"  --head-dim --causal --fused/--unfused --passes --flops-per-element\n"
	"  --traffic tiled|compulsory  tiled (default): the algorithm's re-reads all reach\n"
	"                     memory; compulsory: every tensor once (L2 catches re-reads)\n"
	"\n"
	"--ncu FILE places every kernel of an Nsight Compute CSV (ncu --csv [--page raw]\n"
	"--metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,\n"
	"sm__sass_thread_inst_executed_op_{d,f,h}{add,mul,fma}_pred_on.sum,\n"
	"sm__ops_path_tensor_src_<dtype>_dst_<dtype>.sum[,lts__t_bytes.sum]): achieved FLOP/s,\n"
	"intensity, bound and fraction of attainable. Without --dtype each kernel is placed\n"
	"against the precision that carried most of its FLOPs.\n"
	"\n"
	"Example: ridge roofline --kernel attention --seq 8192 --heads 64 --head-dim 128 --dtype bf16\n";

enum {
	OPT_GPU = 256,
	OPT_HWDB,
	OPT_CALIBRATION,
	OPT_DTYPE,
	OPT_FLOPS,
	OPT_BYTES,
	OPT_INTENSITY,
	OPT_TIME,
	OPT_LEVEL,
	OPT_SVG,
	OPT_JSON,
	OPT_NO_TENSOR,
	OPT_SPARSE,
	OPT_KERNEL,
	OPT_NCU,
	OPT_L2_BYTES,
	OPT_SMEM_BYTES,
	OPT_M,
	OPT_N,
	OPT_K,
	OPT_BATCH,
	OPT_TILE,
	OPT_SEQ,
	OPT_HEADS,
	OPT_KV_HEADS,
	OPT_HEAD_DIM,
	OPT_CAUSAL,
	OPT_FUSED,
	OPT_UNFUSED,
	OPT_PASSES,
	OPT_FLOPS_PER_ELEMENT,
	OPT_TRAFFIC,
	OPT_HELP,
};

struct options {
	const char *gpu, *hwdb, *calibration, *svg, *ncu, *kernel_text;
	bool json, no_tensor, sparse;
	bool has_dtype;
	enum ridge_dtype dtype;
	bool has_flops, has_bytes, has_intensity, has_time, has_l2_bytes, has_smem_bytes, has_level;
	double flops, bytes, intensity, time, l2_bytes, smem_bytes;
	enum ridge_level level;
	bool has_kernel;
	struct ridge_kernel_shape shape;
	unsigned fields;       /* shape fields given */
	const char *first_field_flag; /* for "--m applies to --kernel only" */
	bool fused_given, unfused_given, traffic_given;
};

/* Which shape flag sets which field (for the applicability check). */
static const struct {
	int option;
	unsigned field;
	const char *flag;
} shape_flags[] = {
	{ OPT_M, RIDGE_FIELD_M, "--m" },
	{ OPT_N, RIDGE_FIELD_N, "--n" },
	{ OPT_K, RIDGE_FIELD_K, "--k" },
	{ OPT_BATCH, RIDGE_FIELD_BATCH, "--batch" },
	{ OPT_TILE, RIDGE_FIELD_TILE, "--tile" },
	{ OPT_SEQ, RIDGE_FIELD_SEQ, "--seq" },
	{ OPT_HEADS, RIDGE_FIELD_HEADS, "--heads" },
	{ OPT_KV_HEADS, RIDGE_FIELD_KV_HEADS, "--kv-heads" },
	{ OPT_HEAD_DIM, RIDGE_FIELD_HEAD_DIM, "--head-dim" },
	{ OPT_CAUSAL, RIDGE_FIELD_CAUSAL, "--causal" },
	{ OPT_FUSED, RIDGE_FIELD_FUSED, "--fused" },
	{ OPT_UNFUSED, RIDGE_FIELD_FUSED, "--unfused" },
	{ OPT_PASSES, RIDGE_FIELD_PASSES, "--passes" },
	{ OPT_FLOPS_PER_ELEMENT, RIDGE_FIELD_FLOPS_PER_ELEMENT, "--flops-per-element" },
};

static int parse_dim(const char *flag, const char *text, double *out)
{
	long long v;
	if (cli_parse_int(flag, text, 1, 1099511627776LL, &v) != 0)
		return -1;
	*out = (double)v;
	return 0;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "gpu", required_argument, NULL, OPT_GPU },
		{ "hwdb", required_argument, NULL, OPT_HWDB },
		{ "calibration", required_argument, NULL, OPT_CALIBRATION },
		{ "dtype", required_argument, NULL, OPT_DTYPE },
		{ "flops", required_argument, NULL, OPT_FLOPS },
		{ "bytes", required_argument, NULL, OPT_BYTES },
		{ "intensity", required_argument, NULL, OPT_INTENSITY },
		{ "time", required_argument, NULL, OPT_TIME },
		{ "level", required_argument, NULL, OPT_LEVEL },
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "no-tensor", no_argument, NULL, OPT_NO_TENSOR },
		{ "sparse", no_argument, NULL, OPT_SPARSE },
		{ "kernel", required_argument, NULL, OPT_KERNEL },
		{ "ncu", required_argument, NULL, OPT_NCU },
		{ "l2-bytes", required_argument, NULL, OPT_L2_BYTES },
		{ "smem-bytes", required_argument, NULL, OPT_SMEM_BYTES },
		{ "m", required_argument, NULL, OPT_M },
		{ "n", required_argument, NULL, OPT_N },
		{ "k", required_argument, NULL, OPT_K },
		{ "batch", required_argument, NULL, OPT_BATCH },
		{ "tile", required_argument, NULL, OPT_TILE },
		{ "seq", required_argument, NULL, OPT_SEQ },
		{ "heads", required_argument, NULL, OPT_HEADS },
		{ "kv-heads", required_argument, NULL, OPT_KV_HEADS },
		{ "head-dim", required_argument, NULL, OPT_HEAD_DIM },
		{ "causal", no_argument, NULL, OPT_CAUSAL },
		{ "fused", no_argument, NULL, OPT_FUSED },
		{ "unfused", no_argument, NULL, OPT_UNFUSED },
		{ "passes", required_argument, NULL, OPT_PASSES },
		{ "flops-per-element", required_argument, NULL, OPT_FLOPS_PER_ELEMENT },
		{ "traffic", required_argument, NULL, OPT_TRAFFIC },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	struct ridge_kernel_shape *s = &o->shape;
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		for (size_t i = 0; i < sizeof shape_flags / sizeof shape_flags[0]; i++) {
			if (shape_flags[i].option == c) {
				o->fields |= shape_flags[i].field;
				if (!o->first_field_flag)
					o->first_field_flag = shape_flags[i].flag;
			}
		}
		int rc = 0;
		switch (c) {
		case OPT_GPU:
			o->gpu = optarg;
			break;
		case OPT_HWDB:
			o->hwdb = optarg;
			break;
		case OPT_CALIBRATION:
			o->calibration = optarg;
			break;
		case OPT_DTYPE:
			rc = cli_parse_dtype("--dtype", optarg, &o->dtype);
			o->has_dtype = true;
			break;
		case OPT_FLOPS:
			rc = cli_parse_positive("--flops", optarg, RIDGE_UNIT_FLOP, &o->flops);
			o->has_flops = true;
			break;
		case OPT_BYTES:
			rc = cli_parse_positive("--bytes", optarg, RIDGE_UNIT_BYTES, &o->bytes);
			o->has_bytes = true;
			break;
		case OPT_INTENSITY:
			rc = cli_parse_positive("--intensity", optarg, RIDGE_UNIT_COUNT, &o->intensity);
			o->has_intensity = true;
			break;
		case OPT_TIME:
			rc = cli_parse_positive("--time", optarg, RIDGE_UNIT_SECONDS, &o->time);
			o->has_time = true;
			break;
		case OPT_LEVEL:
			if (!roofline_level_parse(optarg, &o->level)) {
				cli_error("--level: unknown memory level '%s' (known: %s)", optarg, roofline_level_list());
				rc = -1;
			}
			o->has_level = true;
			break;
		case OPT_SVG:
			o->svg = optarg;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_NO_TENSOR:
			o->no_tensor = true;
			break;
		case OPT_SPARSE:
			o->sparse = true;
			break;
		case OPT_KERNEL:
			if (!intensity_kernel_parse(optarg, &s->kernel)) {
				cli_error("--kernel: unknown kernel '%s' (known: %s)", optarg, intensity_kernel_list());
				rc = -1;
			}
			o->has_kernel = true;
			o->kernel_text = optarg;
			break;
		case OPT_NCU:
			o->ncu = optarg;
			break;
		case OPT_L2_BYTES:
			rc = cli_parse_positive("--l2-bytes", optarg, RIDGE_UNIT_BYTES, &o->l2_bytes);
			o->has_l2_bytes = true;
			break;
		case OPT_SMEM_BYTES:
			rc = cli_parse_positive("--smem-bytes", optarg, RIDGE_UNIT_BYTES, &o->smem_bytes);
			o->has_smem_bytes = true;
			break;
		case OPT_M:
			rc = parse_dim("--m", optarg, &s->m);
			break;
		case OPT_N:
			rc = parse_dim("--n", optarg, &s->n);
			break;
		case OPT_K:
			rc = parse_dim("--k", optarg, &s->k);
			break;
		case OPT_BATCH:
			rc = parse_dim("--batch", optarg, &s->batch);
			break;
		case OPT_TILE:
			rc = cli_parse_tile("--tile", optarg, &s->tile_m, &s->tile_n, &s->tile_k);
			break;
		case OPT_SEQ:
			rc = parse_dim("--seq", optarg, &s->seq);
			break;
		case OPT_HEADS:
			rc = parse_dim("--heads", optarg, &s->heads);
			break;
		case OPT_KV_HEADS:
			rc = parse_dim("--kv-heads", optarg, &s->kv_heads);
			break;
		case OPT_HEAD_DIM:
			rc = parse_dim("--head-dim", optarg, &s->head_dim);
			break;
		case OPT_CAUSAL:
			s->causal = true;
			break;
		case OPT_FUSED:
			s->fused = true;
			o->fused_given = true;
			break;
		case OPT_UNFUSED:
			o->unfused_given = true;
			break;
		case OPT_PASSES: {
			long long passes;
			rc = cli_parse_int("--passes", optarg, 1, 3, &passes);
			s->passes = (int)passes;
			break;
		}
		case OPT_FLOPS_PER_ELEMENT:
			rc = cli_parse_positive("--flops-per-element", optarg, RIDGE_UNIT_COUNT, &s->flops_per_element);
			break;
		case OPT_TRAFFIC:
			if (!intensity_traffic_parse(optarg, &s->traffic)) {
				cli_error("--traffic: unknown traffic model '%s' (known: tiled compulsory)", optarg);
				rc = -1;
			}
			o->traffic_given = true;
			break;
		case OPT_HELP:
		case 'h': {
			char kernels[2048];
			size_t used = 0;
			for (int k = 0; k < RIDGE_KERNEL_COUNT; k++) {
				int w = snprintf(kernels + used, sizeof kernels - used, "  %-17s %s\n",
						 intensity_kernel_name((enum ridge_kernel)k),
						 intensity_kernel_summary((enum ridge_kernel)k));
				if (w > 0 && (size_t)w < sizeof kernels - used)
					used += (size_t)w;
			}
			printf(usage_text, kernels);
			return 1;
		}
		default:
			cli_bad_option("roofline", argv, c);
			return -1;
		}
		if (rc)
			return -1;
	}
	if (optind < argc) {
		cli_error("roofline takes no arguments, got '%s' (see 'ridge roofline --help')", argv[optind]);
		return -1;
	}
	return 0;
}

/* The combinations: exactly one way of giving the work. */
static int check_options(struct options *o)
{
	int modes = (o->has_flops || o->has_bytes) + o->has_intensity + o->has_kernel + (o->ncu != NULL);
	if (modes == 0) {
		cli_error("give the work: --flops and --bytes, --intensity, --kernel or --ncu (see 'ridge roofline --help')");
		return -1;
	}
	if (modes > 1) {
		cli_error("give only one of --flops/--bytes, --intensity, --kernel and --ncu");
		return -1;
	}
	if (o->has_flops != o->has_bytes) {
		cli_error(o->has_flops ? "--flops needs --bytes (the bytes it moves)" : "--bytes needs --flops (the work done)");
		return -1;
	}
	if (o->has_time && (o->has_intensity || o->ncu)) {
		cli_error(o->ncu ? "--time does not apply to --ncu (the CSV carries each kernel's time)"
				 : "--time needs FLOPs: give --flops and --bytes, or --kernel");
		return -1;
	}
	if ((o->has_l2_bytes || o->has_smem_bytes) && !o->has_flops) {
		cli_error("%s applies to --flops/--bytes only", o->has_l2_bytes ? "--l2-bytes" : "--smem-bytes");
		return -1;
	}
	if (o->has_flops && ((o->has_l2_bytes && o->level == RIDGE_LEVEL_L2) ||
			     (o->has_smem_bytes && o->level == RIDGE_LEVEL_SMEM))) {
		cli_error("--bytes already counts the %s level (--level %s); drop %s",
			  roofline_level_label(o->level), roofline_level_name(o->level),
			  o->level == RIDGE_LEVEL_L2 ? "--l2-bytes" : "--smem-bytes");
		return -1;
	}
	if (!o->has_kernel && (o->fields || o->traffic_given)) {
		cli_error("%s applies to --kernel only", o->fields ? o->first_field_flag : "--traffic");
		return -1;
	}
	if (o->ncu && o->has_level && o->level != RIDGE_LEVEL_HBM) {
		cli_error("--level: an ncu CSV gives DRAM bytes, placed against HBM; its L2 bytes "
			  "(lts__t_bytes.sum) are placed at L2 by themselves");
		return -1;
	}
	if (o->has_kernel) {
		unsigned allowed = intensity_kernel_fields(o->shape.kernel);
		for (size_t i = 0; i < sizeof shape_flags / sizeof shape_flags[0]; i++) {
			if ((o->fields & shape_flags[i].field) && !(allowed & shape_flags[i].field)) {
				cli_error("%s does not apply to --kernel %s (%s: %s)", shape_flags[i].flag,
					  intensity_kernel_name(o->shape.kernel), intensity_kernel_name(o->shape.kernel),
					  intensity_kernel_summary(o->shape.kernel));
				return -1;
			}
		}
		if (o->fused_given && o->unfused_given) {
			cli_error("give --fused or --unfused, not both");
			return -1;
		}
		if (o->has_level && o->level == RIDGE_LEVEL_SMEM) {
			cli_error("--level smem: the kernel models count global-memory bytes, not shared-memory "
				  "traffic; give --flops and --smem-bytes instead");
			return -1;
		}
	}
	return 0;
}

/* ---- output ---- */

static void json_ceiling(cJSON *o, const struct ridge_gpu *gpu, const struct ridge_roofline_ceiling *c)
{
	cJSON_AddStringToObject(o, "gpu", gpu->id);
	cJSON_AddStringToObject(o, "ceiling_source", cli_ceiling_source(gpu));
	cJSON_AddStringToObject(o, "dtype", ridge_dtype_name(c->dtype));
	cJSON_AddStringToObject(o, "path", c->matrix ? "matrix" : "vector");
	cJSON_AddBoolToObject(o, "sparse", c->sparse);
	cJSON_AddStringToObject(o, "level", roofline_level_name(c->level));
	cli_json_number(o, "peak_flops", c->peak_flops);
	cli_json_number(o, "bandwidth", c->bandwidth);
	cli_json_number(o, "ridge_point", c->ridge_point);
}

static void json_point(cJSON *o, const struct ridge_roofline_point *p)
{
	cli_json_number(o, "intensity", p->intensity);
	cli_json_number(o, "attainable_flops", p->attainable_flops);
	cJSON_AddStringToObject(o, "bound", roofline_bound_name(p->bound));
	if (p->has_work) {
		cli_json_number(o, "flops", p->flops);
		cli_json_number(o, "bytes", p->bytes);
		cli_json_number(o, "compute_time_s", p->compute_time_s);
		cli_json_number(o, "memory_time_s", p->memory_time_s);
		cli_json_number(o, "time_floor_s", p->time_floor_s);
	}
	if (p->has_time) {
		cli_json_number(o, "time_s", p->time_s);
		cli_json_number(o, "achieved_flops", p->achieved_flops);
		cli_json_number(o, "achieved_bandwidth", p->achieved_bandwidth);
		cli_json_number(o, "fraction_of_attainable", p->fraction_of_attainable);
		cli_json_number(o, "fraction_of_peak", p->fraction_of_peak);
		cli_json_number(o, "fraction_of_bandwidth", p->fraction_of_bandwidth);
	}
}

static void json_hierarchy(cJSON *o, const struct ridge_roofline_hierarchy *h)
{
	cJSON *levels = cJSON_AddArrayToObject(o, "levels");
	for (int i = 0; i < RIDGE_LEVEL_COUNT; i++) {
		const struct ridge_roofline_level *l = &h->levels[i];
		if (!l->has_bytes)
			continue;
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "level", roofline_level_name((enum ridge_level)i));
		cli_json_number(e, "bytes", l->bytes);
		cli_json_number(e, "intensity", l->intensity);
		if (l->placed) {
			cli_json_number(e, "bandwidth", l->bandwidth);
			cli_json_number(e, "ridge_point", l->ridge_point);
			cli_json_number(e, "time_s", l->time_s);
			cli_json_number(e, "attainable_flops", l->attainable_flops);
			cJSON_AddStringToObject(e, "bound", roofline_bound_name(l->bound));
		} else {
			cJSON_AddNullToObject(e, "bandwidth");
			cJSON_AddStringToObject(e, "note", l->why);
		}
		cJSON_AddItemToArray(levels, e);
	}
	/* compute_time_s is the point's own (same peak, same FLOPs). */
	cJSON_AddStringToObject(o, "binding", h->binding < 0 ? "compute" : roofline_level_name((enum ridge_level)h->binding));
	cli_json_number(o, "hierarchical_time_floor_s", h->time_floor_s);
}

static void print_ceiling(const struct ridge_gpu *gpu, const struct ridge_roofline_ceiling *c)
{
	char a[48], b[48];
	cli_format_si(c->peak_flops, c->dtype == RIDGE_INT8 ? "OP/s" : "FLOP/s", a, sizeof a);
	cli_format_si(c->bandwidth, "B/s", b, sizeof b);
	printf("Roofline: %s (%s), %s ceilings\n", gpu->name, gpu->id, cli_ceiling_source(gpu));
	printf("  peak        %s %s%s rate: %s\n", ridge_dtype_name(c->dtype), c->sparse ? "sparse " : "dense ",
	       c->matrix ? "matrix (tensor-core)" : "vector", a);
	printf("  bandwidth   %s: %s\n", roofline_level_label(c->level), b);
	printf("  ridge point %.6g FLOP/byte\n", c->ridge_point);
}

static void print_point(const struct ridge_roofline_ceiling *c, const struct ridge_roofline_point *p)
{
	char a[48], b[48], t[48];
	if (p->has_work) {
		cli_format_si(p->flops, "FLOP", a, sizeof a);
		cli_format_si(p->bytes, "B", b, sizeof b);
		printf("  work        %s on %s\n", a, b);
	}
	printf("  intensity   %.6g FLOP/byte\n", p->intensity);
	cli_format_si(p->attainable_flops, "FLOP/s", a, sizeof a);
	if (p->bound == RIDGE_BOUND_MEMORY)
		printf("  attainable  %s: memory-bound, %.4gx below the ridge (%.4g%% of peak)\n", a, p->headroom,
		       100 * p->attainable_flops / c->peak_flops);
	else
		printf("  attainable  %s: compute-bound, %.4gx above the ridge\n", a, 1 / p->headroom);
	if (p->has_work) {
		cli_format_seconds(p->time_floor_s, t, sizeof t);
		cli_format_seconds(p->memory_time_s, a, sizeof a);
		cli_format_seconds(p->compute_time_s, b, sizeof b);
		printf("  time floor  %s (memory %s, compute %s)\n", t, a, b);
	}
	if (p->has_time) {
		cli_format_seconds(p->time_s, t, sizeof t);
		cli_format_si(p->achieved_flops, "FLOP/s", a, sizeof a);
		cli_format_si(p->achieved_bandwidth, "B/s", b, sizeof b);
		printf("  measured    %s: %s = %.4g%% of attainable, %.4g%% of peak; %s = %.4g%% of bandwidth\n", t,
		       a, 100 * p->fraction_of_attainable, 100 * p->fraction_of_peak, b, 100 * p->fraction_of_bandwidth);
		if (p->fraction_of_attainable > 1)
			printf("  note        faster than the roofline allows: the bytes or FLOPs given are more than "
			       "the kernel really moved or did (cache hits?)\n");
	}
}

static void print_hierarchy(const struct ridge_roofline_hierarchy *h)
{
	char a[48], b[48], t[48];
	printf("Hierarchical roofline (the binding resource takes longest):\n");
	cli_format_seconds(h->compute_time_s, t, sizeof t);
	printf("  %-14s %12s\n", "compute", t);
	for (int i = 0; i < RIDGE_LEVEL_COUNT; i++) {
		const struct ridge_roofline_level *l = &h->levels[i];
		if (!l->has_bytes)
			continue;
		cli_format_si(l->bytes, "B", a, sizeof a);
		if (!l->placed) {
			printf("  %-14s %12s  %s, %.4g FLOP/byte: not placed, %s\n", roofline_level_label((enum ridge_level)i),
			       "-", a, l->intensity, l->why);
			continue;
		}
		cli_format_seconds(l->time_s, t, sizeof t);
		cli_format_si(l->bandwidth, "B/s", b, sizeof b);
		printf("  %-14s %12s  %s at %s, %.4g FLOP/byte (ridge %.4g): %s-bound\n",
		       roofline_level_label((enum ridge_level)i), t, a, b, l->intensity, l->ridge_point,
		       roofline_bound_name(l->bound));
	}
	cli_format_seconds(h->time_floor_s, t, sizeof t);
	printf("  binding: %s; time floor %s\n", roofline_binding_name(h), t);
}

static int write_plot(const struct options *o, const struct ridge_gpu *gpu, const struct ridge_roofline_ceiling *c,
		      const struct roofline_plot_point *points, int count)
{
	if (!o->svg)
		return 0;
	struct roofline_plot plot = { gpu, *c, o->sparse, count, points };
	return roofline_svg_write(o->svg, &plot);
}

/* ---- the modes ---- */

static int run_work(const struct options *o, const struct ridge_gpu *gpu, enum ridge_dtype dtype)
{
	char err[400];
	struct ridge_roofline_ceiling c;
	if (roofline_ceiling(gpu, dtype, o->no_tensor ? RIDGE_PEAK_VECTOR : RIDGE_PEAK_DEFAULT, o->sparse, o->level, &c,
			     err, sizeof err)) {
		cli_error("%s", err);
		return EXIT_USAGE;
	}
	struct ridge_roofline_point p;
	int rc = o->has_intensity ? roofline_place_intensity(&c, o->intensity, &p, err, sizeof err)
				  : roofline_place(&c, o->flops, o->bytes, o->has_time ? o->time : 0, &p, err, sizeof err);
	if (rc) {
		cli_error("%s", err);
		return EXIT_USAGE;
	}
	struct ridge_roofline_hierarchy h;
	bool hierarchical = o->has_l2_bytes || o->has_smem_bytes;
	if (hierarchical) {
		double bytes[RIDGE_LEVEL_COUNT] = { -1, -1, -1 };
		bytes[o->level] = o->bytes;
		if (o->has_l2_bytes)
			bytes[RIDGE_LEVEL_L2] = o->l2_bytes;
		if (o->has_smem_bytes)
			bytes[RIDGE_LEVEL_SMEM] = o->smem_bytes;
		if (roofline_hierarchy(gpu, c.peak_flops, o->flops, bytes, &h, err, sizeof err)) {
			cli_error("%s", err);
			return EXIT_USAGE;
		}
	}
	struct roofline_plot_point pt = { o->has_time ? "measured" : "work", p.intensity,
					  p.has_time ? p.achieved_flops : p.attainable_flops, p.attainable_flops,
					  p.has_time, p.bound };
	if (write_plot(o, gpu, &c, &pt, 1))
		return EXIT_ENV;
	if (o->json) {
		cJSON *doc = cJSON_CreateObject();
		json_ceiling(doc, gpu, &c);
		json_point(doc, &p);
		if (hierarchical)
			json_hierarchy(doc, &h);
		if (o->svg)
			cJSON_AddStringToObject(doc, "svg", o->svg);
		return cli_json_print(doc);
	}
	print_ceiling(gpu, &c);
	print_point(&c, &p);
	if (hierarchical)
		print_hierarchy(&h);
	if (o->svg)
		printf("wrote %s\n", o->svg);
	return EXIT_OK;
}

static int run_kernel(struct options *o, const struct ridge_gpu *gpu)
{
	char err[400];
	struct ridge_kernel_shape *s = &o->shape;
	s->fused = o->fused_given;
	struct ridge_kernel_cost cost;
	if (intensity_kernel(s, &cost, err, sizeof err)) {
		cli_error("--kernel %s: %s", intensity_kernel_name(s->kernel), err);
		return EXIT_USAGE;
	}
	struct ridge_roofline_ceiling c;
	struct ridge_kernel_path path;
	if (intensity_ceiling(gpu, s, &cost, o->no_tensor, o->sparse, o->level, &c, &path, err, sizeof err)) {
		cli_error("--kernel %s: %s", intensity_kernel_name(s->kernel), err);
		return EXIT_USAGE;
	}
	/* At L2 the kernel's traffic is its tiled traffic (what its loads ask for). */
	double bytes = o->level == RIDGE_LEVEL_L2 ? cost.tiled_bytes : cost.bytes;
	struct ridge_roofline_point p;
	if (roofline_place(&c, cost.flops, bytes, o->has_time ? o->time : 0, &p, err, sizeof err)) {
		cli_error("--kernel %s: %s", intensity_kernel_name(s->kernel), err);
		return EXIT_USAGE;
	}
	double level_bytes[RIDGE_LEVEL_COUNT] = { cost.bytes, cost.tiled_bytes, -1 };
	struct ridge_roofline_hierarchy h;
	if (roofline_hierarchy(gpu, c.peak_flops, cost.flops, level_bytes, &h, err, sizeof err)) {
		cli_error("--kernel %s: %s", intensity_kernel_name(s->kernel), err);
		return EXIT_USAGE;
	}
	/* The compulsory view of the same kernel, against the same ceiling. */
	struct ridge_roofline_point compulsory;
	roofline_place(&c, cost.flops, cost.compulsory_bytes, 0, &compulsory, err, sizeof err);

	/* The plot shows both traffic bounds when they differ: real HBM traffic
	 * lies between the tiled count and the compulsory one. */
	char label[200], other_label[200];
	bool two = cost.compulsory_bytes != cost.bytes && o->level == RIDGE_LEVEL_HBM;
	snprintf(label, sizeof label, "%s%s%s", intensity_kernel_name(s->kernel),
		 two ? (s->traffic == RIDGE_TRAFFIC_TILED ? " (tiled bytes)" : " (compulsory bytes)") : "",
		 o->has_time ? ", measured" : "");
	struct roofline_plot_point pts[2] = {
		{ label, p.intensity, p.has_time ? p.achieved_flops : p.attainable_flops, p.attainable_flops, p.has_time,
		  p.bound },
	};
	if (two) {
		/* The other bound is drawn on its roof: a model, not a measurement. */
		struct ridge_roofline_point q;
		double other = s->traffic == RIDGE_TRAFFIC_TILED ? cost.compulsory_bytes : cost.tiled_bytes;
		roofline_place(&c, cost.flops, other, 0, &q, err, sizeof err);
		snprintf(other_label, sizeof other_label, "%s (%s bytes)", intensity_kernel_name(s->kernel),
			 s->traffic == RIDGE_TRAFFIC_TILED ? "compulsory" : "tiled");
		pts[1] = (struct roofline_plot_point){ other_label, q.intensity, q.attainable_flops, q.attainable_flops,
						       false, q.bound };
	}
	if (write_plot(o, gpu, &c, pts, two ? 2 : 1))
		return EXIT_ENV;
	if (o->json) {
		cJSON *doc = cJSON_CreateObject();
		json_ceiling(doc, gpu, &c);
		json_point(doc, &p);
		cJSON_AddStringToObject(doc, "compulsory_bound", roofline_bound_name(compulsory.bound));
		cli_json_number(doc, "compulsory_time_floor_s", compulsory.time_floor_s);
		json_hierarchy(doc, &h);
		cJSON_AddItemToObject(doc, "kernel", kernel_json(s, &cost, &path));
		if (o->svg)
			cJSON_AddStringToObject(doc, "svg", o->svg);
		return cli_json_print(doc);
	}
	kernel_print(s, &cost, &path);
	print_ceiling(gpu, &c);
	print_point(&c, &p);
	char t[48];
	cli_format_seconds(compulsory.time_floor_s, t, sizeof t);
	if (s->traffic == RIDGE_TRAFFIC_TILED && cost.compulsory_bytes != cost.bytes)
		printf("  if L2 caught every re-read (compulsory bytes): %.4g FLOP/byte, %s-bound, time floor %s\n",
		       compulsory.intensity, roofline_bound_name(compulsory.bound), t);
	if (o->level == RIDGE_LEVEL_HBM && !h.levels[RIDGE_LEVEL_L2].placed && cost.tiled_bytes != cost.bytes)
		printf("  L2 level not placed: %s has no L2 bandwidth\n", gpu->id);
	else if (h.levels[RIDGE_LEVEL_L2].placed)
		print_hierarchy(&h);
	if (o->svg)
		printf("wrote %s\n", o->svg);
	return EXIT_OK;
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		cli_error("--ncu: cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (n < cap)
			break;
		char *grown = cap > ((size_t)1 << 30) ? NULL : realloc(buf, cap * 2);
		if (!grown) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = grown;
		cap *= 2;
	}
	int bad = ferror(f);
	fclose(f);
	if (!buf || bad) {
		cli_error("--ncu: cannot read '%s'%s", path, buf ? "" : ": out of memory or larger than 1 GiB");
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

struct ncu_placed {
	const struct ncu_kernel *k;
	double flops, bytes;
	bool has_flops;
	struct ridge_roofline_ceiling c;
	struct ridge_roofline_point p;
	double l2_time_s;
	bool l2_placed;
	bool tensor_flops_missing;
};

static int run_ncu(const struct options *o, const struct ridge_gpu *gpu)
{
	char err[600];
	size_t len;
	char *text = read_file(o->ncu, &len);
	if (!text)
		return EXIT_USAGE;
	struct ncu_report report;
	int rc = ncu_parse(o->ncu, text, len, &report, err, sizeof err);
	free(text);
	if (rc) {
		cli_error("%s", err);
		return EXIT_USAGE;
	}
	if (!report.any_flop_metric) {
		cli_error("%s: no FLOP counts (sm__sass_thread_inst_executed_op_*_pred_on.sum or "
			  "sm__ops_path_tensor_src_*.sum); collect them to place kernels on a roofline",
			  o->ncu);
		ncu_free(&report);
		return EXIT_USAGE;
	}
	struct ncu_placed *placed = calloc((size_t)report.count, sizeof *placed);
	struct roofline_plot_point *points = calloc((size_t)report.count, sizeof *points);
	char (*labels)[64] = calloc((size_t)report.count, sizeof *labels);
	if (!placed || !points || !labels) {
		cli_error("out of memory");
		rc = EXIT_ENV;
		goto done;
	}
	double l2_bandwidth = 0;
	bool has_l2 = roofline_bandwidth(gpu, RIDGE_LEVEL_L2, &l2_bandwidth, NULL);
	struct ridge_roofline_ceiling focus = { 0 };
	double focus_flops = 0;
	bool have_focus = false;
	for (int i = 0; i < report.count; i++) {
		const struct ncu_kernel *k = &report.kernels[i];
		struct ncu_placed *pl = &placed[i];
		pl->k = k;
		if (!k->has_time) {
			cli_error("%s:%d: kernel '%s' (ID %s) has no time (gpu__time_duration.sum)", o->ncu, k->line, k->name,
				  k->id);
			rc = EXIT_USAGE;
			goto done;
		}
		if (!ncu_dram_bytes(k, &pl->bytes)) {
			cli_error("%s:%d: kernel '%s' (ID %s) has no DRAM bytes (dram__bytes_read.sum and "
				  "dram__bytes_write.sum, or dram__bytes.sum)",
				  o->ncu, k->line, k->name, k->id);
			rc = EXIT_USAGE;
			goto done;
		}
		if (!(k->time_s > 0)) {
			cli_error("%s:%d: kernel '%s' (ID %s) has a time of 0", o->ncu, k->line, k->name, k->id);
			rc = EXIT_USAGE;
			goto done;
		}
		pl->flops = ncu_flops(k);
		enum ridge_dtype dtype = RIDGE_FP32;
		bool matrix = false;
		bool dominant = ncu_dominant(k, &dtype, &matrix);
		pl->tensor_flops_missing = k->tensor_instructions > 0 && !(matrix && dominant);
		for (int d = 0; d < RIDGE_DTYPE_COUNT && pl->tensor_flops_missing; d++)
			if (ncu_tensor_flops(k, (enum ridge_dtype)d) > 0)
				pl->tensor_flops_missing = false;
		enum ridge_peak_kind kind = matrix ? RIDGE_PEAK_MATRIX : RIDGE_PEAK_VECTOR;
		if (o->has_dtype) {
			dtype = o->dtype;
			kind = o->no_tensor ? RIDGE_PEAK_VECTOR : RIDGE_PEAK_DEFAULT;
		}
		if (roofline_ceiling(gpu, dtype, kind, o->sparse, RIDGE_LEVEL_HBM, &pl->c, err, sizeof err)) {
			cli_error("%s:%d: kernel '%s': %s", o->ncu, k->line, k->name, err);
			rc = EXIT_USAGE;
			goto done;
		}
		pl->has_flops = pl->flops > 0;
		if (pl->has_flops && pl->bytes > 0) {
			roofline_place(&pl->c, pl->flops, pl->bytes, k->time_s, &pl->p, err, sizeof err);
		} else {
			/* No FLOPs (a copy) or no DRAM bytes (all L2 hits): no finite intensity. */
			pl->p = (struct ridge_roofline_point){ 0 };
			pl->p.intensity = pl->bytes > 0 ? 0 : INFINITY;
			pl->p.bound = pl->bytes > 0 ? RIDGE_BOUND_MEMORY : RIDGE_BOUND_COMPUTE;
			pl->p.attainable_flops = pl->bytes > 0 ? 0 : pl->c.peak_flops;
			pl->p.has_time = true;
			pl->p.time_s = k->time_s;
			pl->p.achieved_flops = pl->flops / k->time_s;
			pl->p.achieved_bandwidth = pl->bytes / k->time_s;
			pl->p.fraction_of_bandwidth = pl->p.achieved_bandwidth / pl->c.bandwidth;
			pl->p.fraction_of_peak = pl->p.achieved_flops / pl->c.peak_flops;
			pl->p.fraction_of_attainable = pl->bytes > 0 ? NAN : pl->p.fraction_of_peak;
		}
		if (k->has_l2 && has_l2 && k->l2_bytes > 0) {
			pl->l2_placed = true;
			pl->l2_time_s = k->l2_bytes / l2_bandwidth;
		}
		if (!have_focus || pl->flops > focus_flops) {
			/* The plot's bold ceiling is that of the kernel doing the most work. */
			focus = pl->c;
			focus_flops = pl->flops;
			have_focus = true;
		}
		/* Short labels: "void f<T>(args)" plots as "f". */
		const char *short_name = k->name;
		if (strncmp(short_name, "void ", 5) == 0)
			short_name += 5;
		size_t cut = strcspn(short_name, "(<");
		if (cut > 32)
			cut = 32;
		snprintf(labels[i], sizeof labels[i], "%s %.*s", k->id, (int)cut, short_name);
		points[i] = (struct roofline_plot_point){ labels[i], pl->p.intensity, pl->p.achieved_flops,
							  pl->p.attainable_flops, true, pl->p.bound };
	}
	if (write_plot(o, gpu, &focus, points, report.count)) {
		rc = EXIT_ENV;
		goto done;
	}
	if (o->json) {
		cJSON *doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "gpu", gpu->id);
		cJSON_AddStringToObject(doc, "ceiling_source", cli_ceiling_source(gpu));
		cJSON_AddStringToObject(doc, "file", o->ncu);
		cJSON_AddStringToObject(doc, "layout", report.raw ? "raw" : "details");
		cli_json_number(doc, "bandwidth", gpu->memory_bandwidth);
		cJSON *arr = cJSON_AddArrayToObject(doc, "kernels");
		for (int i = 0; i < report.count; i++) {
			const struct ncu_placed *pl = &placed[i];
			cJSON *e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "id", pl->k->id);
			cJSON_AddStringToObject(e, "name", pl->k->name);
			cJSON_AddNumberToObject(e, "line", pl->k->line);
			cJSON_AddStringToObject(e, "dtype", ridge_dtype_name(pl->c.dtype));
			cJSON_AddStringToObject(e, "path", pl->c.matrix ? "matrix" : "vector");
			cli_json_number(e, "peak_flops", pl->c.peak_flops);
			cli_json_number(e, "ridge_point", pl->c.ridge_point);
			cli_json_number(e, "flops", pl->flops);
			cJSON *by = cJSON_AddObjectToObject(e, "flops_by_precision");
			static const char *const vec[NCU_PRECISIONS] = { "fp64_vector", "fp32_vector", "fp16_vector" };
			for (int p = 0; p < NCU_PRECISIONS; p++)
				if (ncu_vector_flops(pl->k, p) > 0)
					cli_json_number(by, vec[p], ncu_vector_flops(pl->k, p));
			for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
				char key[32];
				snprintf(key, sizeof key, "%s_tensor", ridge_dtype_name((enum ridge_dtype)d));
				if (ncu_tensor_flops(pl->k, (enum ridge_dtype)d) > 0)
					cli_json_number(by, key, ncu_tensor_flops(pl->k, (enum ridge_dtype)d));
			}
			cli_json_number(e, "bytes", pl->bytes);
			cli_json_number(e, "time_s", pl->k->time_s);
			cli_json_number(e, "intensity", pl->p.intensity);
			cli_json_number(e, "achieved_flops", pl->p.achieved_flops);
			cli_json_number(e, "achieved_bandwidth", pl->p.achieved_bandwidth);
			cli_json_number(e, "attainable_flops", pl->p.attainable_flops);
			cJSON_AddStringToObject(e, "bound", roofline_bound_name(pl->p.bound));
			cli_json_number(e, "fraction_of_attainable", pl->p.fraction_of_attainable);
			cli_json_number(e, "fraction_of_peak", pl->p.fraction_of_peak);
			cli_json_number(e, "fraction_of_bandwidth", pl->p.fraction_of_bandwidth);
			if (pl->k->has_l2) {
				cli_json_number(e, "l2_bytes", pl->k->l2_bytes);
				if (pl->l2_placed)
					cli_json_number(e, "l2_time_s", pl->l2_time_s);
			}
			if (pl->tensor_flops_missing)
				cJSON_AddStringToObject(e, "note", "tensor instructions ran but the CSV has no "
								   "sm__ops_path_tensor_src_* counts: FLOPs are undercounted");
			cJSON_AddItemToArray(arr, e);
		}
		if (o->svg)
			cJSON_AddStringToObject(doc, "svg", o->svg);
		rc = cli_json_print(doc);
		goto done;
	}
	char bw[48];
	cli_format_si(gpu->memory_bandwidth, "B/s", bw, sizeof bw);
	printf("Kernels of %s (%s layout) on %s (%s), %s ceilings, HBM %s\n", o->ncu, report.raw ? "raw" : "details",
	       gpu->name, gpu->id, cli_ceiling_source(gpu), bw);
	printf("%-4s %-30s %-12s %10s %10s %10s %9s %14s %14s %-7s %8s %8s\n", "ID", "kernel", "placed on", "FLOPs", "bytes",
	       "time", "FLOP/B", "achieved", "attainable", "bound", "of att.", "of BW");
	int notes = 0;
	for (int i = 0; i < report.count; i++) {
		const struct ncu_placed *pl = &placed[i];
		char f[32], b[32], t[32], ach[32], att[32], kind[32], frac[16], ai[16];
		cli_format_si(pl->flops, "", f, sizeof f);
		cli_format_si(pl->bytes, "B", b, sizeof b);
		cli_format_seconds(pl->k->time_s, t, sizeof t);
		cli_format_si(pl->p.achieved_flops, "FLOP/s", ach, sizeof ach);
		cli_format_si(pl->p.attainable_flops, "FLOP/s", att, sizeof att);
		snprintf(kind, sizeof kind, "%s %s", ridge_dtype_name(pl->c.dtype), pl->c.matrix ? "matrix" : "vector");
		if (isfinite(pl->p.fraction_of_attainable))
			snprintf(frac, sizeof frac, "%.1f%%", 100 * pl->p.fraction_of_attainable);
		else
			snprintf(frac, sizeof frac, "-");
		if (isfinite(pl->p.intensity))
			snprintf(ai, sizeof ai, "%.4g", pl->p.intensity);
		else
			snprintf(ai, sizeof ai, "inf");
		printf("%-4s %-30.30s %-12s %10s %10s %10s %9s %14s %14s %-7s %8s %7.1f%%%s\n", pl->k->id, pl->k->name, kind,
		       f, b, t, ai, ach, att, roofline_bound_name(pl->p.bound), frac, 100 * pl->p.fraction_of_bandwidth,
		       pl->tensor_flops_missing ? " *" : "");
		notes += pl->tensor_flops_missing;
	}
	if (notes)
		printf("* tensor instructions ran but the CSV has no sm__ops_path_tensor_src_* counts: FLOPs undercounted\n");
	if (!has_l2) {
		bool any_l2 = false;
		for (int i = 0; i < report.count; i++)
			any_l2 = any_l2 || report.kernels[i].has_l2;
		if (any_l2)
			printf("L2 bytes (lts__t_bytes.sum) are in the CSV but %s has no L2 bandwidth: not placed at L2\n",
			       gpu->id);
	}
	if (o->svg)
		printf("wrote %s\n", o->svg);
	rc = EXIT_OK;
done:
	free(placed);
	free(points);
	free(labels);
	ncu_free(&report);
	return rc;
}

static int run_roofline(int argc, char **argv)
{
	struct options o = { 0 };
	o.gpu = CLI_DEFAULT_GPU;
	o.level = RIDGE_LEVEL_HBM;
	o.dtype = RIDGE_BF16;
	int rc = parse_options(argc, argv, &o);
	if (rc > 0)
		return EXIT_OK;
	if (rc < 0 || check_options(&o))
		return EXIT_USAGE;
	struct cli_hw hw;
	if (cli_hw_open(&hw, o.hwdb, o.calibration) != 0)
		return EXIT_USAGE;
	const struct hwdb_entry *e = cli_hw_find(&hw, o.gpu);
	if (!e) {
		cli_hw_close(&hw);
		return EXIT_USAGE;
	}
	o.shape.dtype = o.dtype;
	if (o.ncu)
		rc = run_ncu(&o, &e->gpu);
	else if (o.has_kernel)
		rc = run_kernel(&o, &e->gpu);
	else
		rc = run_work(&o, &e->gpu, o.dtype);
	cli_hw_close(&hw);
	return rc;
}

const struct cli_command cli_cmd_roofline = { "roofline", run_roofline,
					      "place work or a kernel under a GPU's roofline; plot it" };

/* ---- ridge report ---- */

static void report_kernel(const struct ridge_gpu *gpu, const char *label, struct ridge_kernel_shape s, bool no_tensor)
{
	char err[400], f[32], b[32], t[32];
	struct ridge_kernel_cost cost;
	struct ridge_kernel_path path;
	struct ridge_roofline_ceiling c;
	struct ridge_roofline_point p;
	if (intensity_kernel(&s, &cost, err, sizeof err) ||
	    intensity_ceiling(gpu, &s, &cost, no_tensor, false, RIDGE_LEVEL_HBM, &c, &path, err, sizeof err) ||
	    roofline_place(&c, cost.flops, cost.bytes, 0, &p, err, sizeof err)) {
		printf("  %-44s n/a: %s\n", label, err);
		return;
	}
	cli_format_si(cost.flops, "", f, sizeof f);
	cli_format_si(cost.bytes, "B", b, sizeof b);
	cli_format_seconds(p.time_floor_s, t, sizeof t);
	printf("  %-44s %9s %10s %9.4g  %-7s %-12s %10s\n", label, f, b, p.intensity, roofline_bound_name(p.bound),
	       c.matrix ? "matrix" : "vector", t);
}

void report_roofline(const struct ridge_gpu *gpu)
{
	char bw[48];
	cli_format_si(gpu->memory_bandwidth, "B/s", bw, sizeof bw);
	printf("== Roofline (%s): ridge points and the chapter's kernels ==\n", gpu->id);
	printf("ridge point = peak / bandwidth, FLOP/byte against HBM (%s), dense rates\n", bw);
	printf("  %-6s %14s %14s %14s\n", "dtype", "matrix", "vector", "sparse matrix");
	for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
		const struct ridge_peak *pk = &gpu->peak[d];
		if (!pk->has_matrix && !pk->has_vector)
			continue;
		char m[32] = "-", v[32] = "-", sp[32] = "-";
		if (pk->has_matrix)
			snprintf(m, sizeof m, "%.6g", pk->matrix / gpu->memory_bandwidth);
		if (pk->has_vector)
			snprintf(v, sizeof v, "%.6g", pk->vector / gpu->memory_bandwidth);
		if (pk->has_matrix_sparse)
			snprintf(sp, sizeof sp, "%.6g", pk->matrix_sparse / gpu->memory_bandwidth);
		printf("  %-6s %14s %14s %14s\n", ridge_dtype_name((enum ridge_dtype)d), m, v, sp);
	}
	for (int l = RIDGE_LEVEL_L2; l < RIDGE_LEVEL_COUNT; l++) {
		double level_bw;
		const char *why = NULL;
		if (roofline_bandwidth(gpu, (enum ridge_level)l, &level_bw, &why)) {
			char lb[48];
			cli_format_si(level_bw, "B/s", lb, sizeof lb);
			printf("  %s: %s\n", roofline_level_label((enum ridge_level)l), lb);
		} else {
			printf("  %s: no inner ridge points, %s\n", roofline_level_label((enum ridge_level)l), why);
		}
	}
	/* The chapter's worked examples (seeds/000 sections 7.2 and 7.6.2); a GPU
	 * without bf16 runs them in fp16. */
	enum ridge_dtype half = gpu->peak[RIDGE_BF16].has_matrix || gpu->peak[RIDGE_BF16].has_vector ? RIDGE_BF16
												     : RIDGE_FP16;
	const char *h = ridge_dtype_name(half);
	char label[96];
	printf("  %-44s %9s %10s %9s  %-7s %-12s %10s\n", "kernel (4096^3 GEMMs; attention S=8192, 64x128)", "FLOPs",
	       "bytes", "FLOP/B", "bound", "rate", "time floor");
	struct ridge_kernel_shape g = { .dtype = RIDGE_FP32, .m = 4096, .n = 4096, .k = 4096 };
	g.kernel = RIDGE_KERNEL_GEMM_NAIVE;
	report_kernel(gpu, "naive GEMM, fp32 (2*M*N*K reads)", g, false);
	g.dtype = half;
	g.kernel = RIDGE_KERNEL_GEMM_TILED;
	snprintf(label, sizeof label, "tiled GEMM, %s, tile 32 (A, B read 128x)", h);
	report_kernel(gpu, label, g, false);
	g.traffic = RIDGE_TRAFFIC_COMPULSORY;
	snprintf(label, sizeof label, "  the same, every matrix once");
	report_kernel(gpu, label, g, false);
	g.traffic = RIDGE_TRAFFIC_TILED;
	g.kernel = RIDGE_KERNEL_GEMM;
	snprintf(label, sizeof label, "library GEMM, %s, tile 128x128", h);
	report_kernel(gpu, label, g, false);
	struct ridge_kernel_shape a = { .kernel = RIDGE_KERNEL_ATTENTION, .dtype = half, .seq = 8192, .heads = 64,
					.head_dim = 128 };
	snprintf(label, sizeof label, "standard attention, %s", h);
	report_kernel(gpu, label, a, false);
	a.traffic = RIDGE_TRAFFIC_COMPULSORY;
	report_kernel(gpu, "  the same, every tensor once", a, false);
	a.kernel = RIDGE_KERNEL_FLASH_ATTENTION;
	a.traffic = RIDGE_TRAFFIC_TILED;
	snprintf(label, sizeof label, "flash-attention, %s, query tile 128", h);
	report_kernel(gpu, label, a, false);
	a.traffic = RIDGE_TRAFFIC_COMPULSORY;
	report_kernel(gpu, "  the same, every tensor once", a, false);
	printf("  bytes: the algorithm's re-reads all reach HBM (an upper bound); \"every ... once\": L2 catches\n"
	       "  every re-read (a lower bound). Measured HBM traffic lies between. The seed's 0.6%% utilization\n"
	       "  and 2,045 FLOP/B are explained in model/README.md, \"The seed's numbers\".\n");
}
