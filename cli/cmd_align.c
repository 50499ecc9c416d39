/* ridge align --dtype DT (--dims D1,D2,... | --model FILE): which GEMM
 * dimensions leave the tensor-core fast path, what to round them to, and the
 * tile and wave quantization of each GEMM. The numbers come from
 * model/align.c; this file parses, calls and prints. */
#include <ctype.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "model_config.h"
#include "report.h"

static const char usage_text[] =
	"usage: ridge align --dtype DT (--dims D1,D2,... | --model FILE) [--gpu GPU]\n"
	"                   [--tokens T] [--tile MxN] [--ctas-per-sm N]\n"
	"                   [--multiple-of N] [--ffn-dim-multiplier X]\n"
	"                   [--json] [--hwdb DIR] [--calibration FILE]\n"
	"\n"
	"Checks GEMM dimensions against the multiples the tensor cores want for DT:\n"
	"  error    not a multiple of 16 bytes of elements (8 bf16/fp16, 4 tf32/fp32,\n"
	"           16 fp8/int8, 2 fp64): off cuBLAS's fast tensor-core kernels\n"
	"  warning  16-byte aligned, but not a multiple of 128 bytes (64 bf16/fp16,\n"
	"           128 fp8/int8), the recommended multiple on A100 and later\n"
	"  ok       a multiple of the recommended size\n"
	"and shows each dimension's tile and wave quantization for M = T tokens.\n"
	"\n"
	"  --dtype DT              fp64 fp32 tf32 bf16 fp16 fp8 int8 fp4\n"
	"  --dims LIST             dimensions, plain or named: 6000,21845 or\n"
	"                          d_model=6000,ffn=21845 (a dim named d_model or\n"
	"                          hidden_size makes those named ffn, d_ff or\n"
	"                          intermediate_size show the Llama SwiGLU size)\n"
	"  --model FILE            a Hugging Face config.json, or the same keys in YAML\n"
	"                          (hidden_size, intermediate_size, num_attention_heads,\n"
	"                          num_key_value_heads, head_dim, vocab_size,\n"
	"                          num_hidden_layers): checks every GEMM of a decoder\n"
	"                          layer and the LM head\n"
	"  --gpu GPU               hwdb id or alias (default " CLI_DEFAULT_GPU ")\n"
	"  --tokens T              M, the tokens in one GEMM (batch x sequence; default 4096)\n"
	"  --tile MxN              CTA output tile (default 128x128)\n"
	"  --ctas-per-sm N         CTAs resident per SM at once (default 1)\n"
	"  --multiple-of N         SwiGLU rounding (default: the config's multiple_of, else 256)\n"
	"  --ffn-dim-multiplier X  SwiGLU multiplier (default: the config's, else none)\n"
	"  --json                  one JSON document on stdout\n"
	"  --hwdb DIR              also load every *.yaml in DIR\n"
	"  --calibration FILE      also load FILE (a ridge-probe calibration)\n"
	"\n"
	"Exit: 0 all aligned (warnings allowed), 1 any error, 2 bad input.\n";

#define MAX_DIMS 64
#define MAX_FINDINGS (2 * RIDGE_GEMM_COUNT + 1 > MAX_DIMS ? 2 * RIDGE_GEMM_COUNT + 1 : MAX_DIMS)
#define DEFAULT_TOKENS 4096
#define DEFAULT_MULTIPLE_OF 256

struct align_options {
	bool has_dtype;
	enum ridge_dtype dtype;
	const char *dims;
	const char *model_path;
	const char *gpu;
	const char *hwdb_dir;
	const char *calibration;
	long long tokens;
	struct ridge_align_tile tile;
	bool has_multiple_of;
	long long multiple_of;
	bool has_multiplier;
	double multiplier;
	bool json;
};

struct finding {
	char name[64];
	const char *from;   /* the config key(s) behind the value, or NULL */
	int gemm;           /* index into the GEMM table, or -1 */
	struct ridge_align_dim dim;
	bool has_tiling;    /* --dims: M = tokens x N = value */
	struct ridge_align_tiling tiling;
	bool has_swiglu;
	char reason[400];
};

struct align_run {
	struct align_options opt;
	const struct ridge_gpu *gpu;
	struct ridge_align_rule rule;
	int count;
	struct finding findings[MAX_FINDINGS];
	/* --model */
	bool model_mode;
	struct ridge_align_model model;
	struct ridge_align_gemm gemms[RIDGE_GEMM_COUNT];
	struct ridge_align_tiling gemm_tiling[RIDGE_GEMM_COUNT];
	enum ridge_align_severity gemm_severity[RIDGE_GEMM_COUNT];
	bool has_swiglu;
	struct ridge_align_swiglu swiglu;
	int errors, warnings;
};

static int parse_tile(const char *text, struct ridge_align_tile *tile)
{
	char *x = strchr(text, 'x');
	if (!x)
		x = strchr(text, 'X');
	if (!x || x == text || !x[1]) {
		cli_error("--tile: '%s' must be MxN, e.g. 128x128", text);
		return -1;
	}
	char m_text[64];
	size_t m_len = (size_t)(x - text);
	if (m_len >= sizeof m_text) {
		cli_error("--tile: '%s' must be MxN, e.g. 128x128", text);
		return -1;
	}
	memcpy(m_text, text, m_len);
	m_text[m_len] = '\0';
	long long m, n;
	if (cli_parse_int("--tile", m_text, 1, RIDGE_ALIGN_MAX_TILE, &m) != 0 ||
	    cli_parse_int("--tile", x + 1, 1, RIDGE_ALIGN_MAX_TILE, &n) != 0)
		return -1;
	tile->m = (int)m;
	tile->n = (int)n;
	return 0;
}

static int parse_options(int argc, char **argv, struct align_options *opt)
{
	static const struct option longopts[] = {
		{ "dtype", required_argument, NULL, 't' },
		{ "dims", required_argument, NULL, 'D' },
		{ "model", required_argument, NULL, 'm' },
		{ "gpu", required_argument, NULL, 'g' },
		{ "tokens", required_argument, NULL, 'T' },
		{ "tile", required_argument, NULL, 'l' },
		{ "ctas-per-sm", required_argument, NULL, 'C' },
		{ "multiple-of", required_argument, NULL, 'o' },
		{ "ffn-dim-multiplier", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "hwdb", required_argument, NULL, 'd' },
		{ "calibration", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	opt->gpu = CLI_DEFAULT_GPU;
	opt->tokens = DEFAULT_TOKENS;
	opt->tile = (struct ridge_align_tile){ 128, 128, 1 };
	int c;
	long long v;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (cli_parse_dtype("--dtype", optarg, &opt->dtype) != 0)
				return EXIT_USAGE;
			opt->has_dtype = true;
			break;
		case 'D':
			opt->dims = optarg;
			break;
		case 'm':
			opt->model_path = optarg;
			break;
		case 'g':
			opt->gpu = optarg;
			break;
		case 'T':
			if (cli_parse_int("--tokens", optarg, 1, RIDGE_ALIGN_MAX_DIM, &opt->tokens) != 0)
				return EXIT_USAGE;
			break;
		case 'l':
			if (parse_tile(optarg, &opt->tile) != 0)
				return EXIT_USAGE;
			break;
		case 'C':
			if (cli_parse_int("--ctas-per-sm", optarg, 1, 64, &v) != 0)
				return EXIT_USAGE;
			opt->tile.ctas_per_sm = (int)v;
			break;
		case 'o':
			if (cli_parse_int("--multiple-of", optarg, 1, RIDGE_ALIGN_MAX_DIM, &opt->multiple_of) != 0)
				return EXIT_USAGE;
			opt->has_multiple_of = true;
			break;
		case 'f':
			if (cli_parse_positive("--ffn-dim-multiplier", optarg, RIDGE_UNIT_COUNT, &opt->multiplier) != 0)
				return EXIT_USAGE;
			opt->has_multiplier = true;
			break;
		case 'j':
			opt->json = true;
			break;
		case 'd':
			opt->hwdb_dir = optarg;
			break;
		case 'c':
			opt->calibration = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return -2;
		default:
			return cli_bad_option("align", argv, c);
		}
	}
	if (optind < argc) {
		cli_error("align takes no arguments, got '%s' (see 'ridge align --help')", argv[optind]);
		return EXIT_USAGE;
	}
	if (!opt->has_dtype) {
		cli_error("--dtype is required (one of: %s)", ridge_dtype_list());
		return EXIT_USAGE;
	}
	if (!opt->dims == !opt->model_path) {
		cli_error(opt->dims ? "give --dims or --model, not both" : "give --dims LIST or --model FILE "
									   "(see 'ridge align --help')");
		return EXIT_USAGE;
	}
	return 0;
}

static void reason_text(const struct align_run *run, const struct ridge_align_dim *d, char *buf, size_t len)
{
	const struct ridge_align_rule *r = &run->rule;
	const char *dt = ridge_dtype_name(r->dtype);
	if (!r->matrix_path) {
		/* Without tensor cores the byte rules still decide whether loads
		 * vectorize, but no kernel choice hangs on them. */
		const char *hint = r->dtype == RIDGE_FP32 && run->gpu->peak[RIDGE_TF32].has_matrix
					   ? " (--dtype tf32 uses the tensor cores)"
					   : "";
		int used = snprintf(buf, len, "no tensor-core path: %s%s; ", r->path_note, hint);
		if (used < 0 || (size_t)used >= len)
			return;
		buf += used;
		len -= (size_t)used;
		if (d->severity == RIDGE_ALIGN_ERROR)
			snprintf(buf, len, "not a multiple of %lld (%d bytes of %s)", r->required_multiple,
				 r->required_bytes, dt);
		else if (d->severity == RIDGE_ALIGN_WARNING)
			snprintf(buf, len, "a multiple of %lld (%d bytes) but not of %lld (%d bytes)", r->required_multiple,
				 r->required_bytes, r->recommended_multiple, r->recommended_bytes);
		else
			snprintf(buf, len, "a multiple of %lld (%d bytes of %s)", r->recommended_multiple,
				 r->recommended_bytes, dt);
		return;
	}
	bool amd = run->gpu->vendor == RIDGE_VENDOR_AMD;
	switch (d->severity) {
	case RIDGE_ALIGN_ERROR:
		snprintf(buf, len,
			 "not a multiple of %lld (%d bytes of %s): off %s fast %s kernels "
			 "(a slower kernel for unaligned operands, or padding)",
			 r->required_multiple, r->required_bytes, dt, amd ? "the BLAS library's" : "cuBLAS's",
			 amd ? "matrix-core" : "tensor-core");
		break;
	case RIDGE_ALIGN_WARNING:
		snprintf(buf, len,
			 "a multiple of %lld (%d bytes: %s kernels apply) but not of %lld (%d bytes), "
			 "the recommended multiple",
			 r->required_multiple, r->required_bytes, amd ? "matrix-core" : "tensor-core",
			 r->recommended_multiple, r->recommended_bytes);
		break;
	case RIDGE_ALIGN_OK:
		snprintf(buf, len, "a multiple of %lld (%d bytes of %s)", r->recommended_multiple, r->recommended_bytes,
			 dt);
		break;
	}
}

static int add_finding(struct align_run *run, const char *name, const char *from, int gemm, long long value)
{
	if (run->count >= MAX_FINDINGS) {
		cli_error("--dims: more than %d dimensions", MAX_DIMS);
		return -1;
	}
	struct finding *f = &run->findings[run->count];
	memset(f, 0, sizeof *f);
	snprintf(f->name, sizeof f->name, "%s", name);
	f->from = from;
	f->gemm = gemm;
	char err[300];
	if (align_check_dim(&run->rule, value, &f->dim, err, sizeof err) != 0) {
		cli_error("%s: %s", name, err);
		return -1;
	}
	reason_text(run, &f->dim, f->reason, sizeof f->reason);
	run->count++;
	if (f->dim.severity == RIDGE_ALIGN_ERROR)
		run->errors++;
	else if (f->dim.severity == RIDGE_ALIGN_WARNING)
		run->warnings++;
	return 0;
}

static bool name_in(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(name, *list) == 0)
			return true;
	return false;
}

static const char *const d_model_names[] = { "d_model", "hidden_size", "hidden", "dim", NULL };
static const char *const ffn_names[] = { "ffn", "d_ff", "ffn_dim", "intermediate", "intermediate_size", NULL };

static int swiglu_for(struct align_run *run, long long d_model, bool config_has_mult, double config_mult,
		      bool config_has_multiple, long long config_multiple)
{
	const struct align_options *o = &run->opt;
	bool has_mult = o->has_multiplier || config_has_mult;
	double mult = o->has_multiplier ? o->multiplier : config_mult;
	long long multiple = o->has_multiple_of ? o->multiple_of
				: config_has_multiple ? config_multiple
						      : DEFAULT_MULTIPLE_OF;
	char err[300];
	if (align_swiglu(d_model, has_mult, mult, multiple, &run->swiglu, err, sizeof err) != 0) {
		cli_error("SwiGLU size: %s", err);
		return -1;
	}
	run->has_swiglu = true;
	return 0;
}

static int collect_dims(struct align_run *run)
{
	const char *list = run->opt.dims;
	size_t len = strlen(list);
	char *copy = malloc(len + 1);
	if (!copy) {
		cli_error("out of memory");
		return EXIT_ENV;
	}
	memcpy(copy, list, len + 1);
	int rc = 0, index = 0;
	char *item = copy;
	long long d_model = 0;
	for (;;) {
		char *comma = strchr(item, ',');
		if (comma)
			*comma = '\0';
		index++;
		if (*item == '\0') {
			cli_error("--dims: empty item %d in '%s'", index, list);
			rc = EXIT_USAGE;
			break;
		}
		char name[64], flag[96];
		const char *value_text = item;
		char *eq = strchr(item, '=');
		if (eq) {
			*eq = '\0';
			value_text = eq + 1;
			size_t n = strlen(item);
			bool ok = n > 0 && n < 48;
			for (size_t i = 0; ok && i < n; i++)
				ok = isalnum((unsigned char)item[i]) || strchr("_.-", item[i]);
			if (!ok) {
				cli_error("--dims: bad name '%s' in '%s' (letters, digits, _ . - ; up to 47)", item, list);
				rc = EXIT_USAGE;
				break;
			}
			snprintf(name, sizeof name, "%s", item);
			snprintf(flag, sizeof flag, "--dims %s", item);
		} else {
			snprintf(name, sizeof name, "dim%d", index);
			snprintf(flag, sizeof flag, "--dims");
		}
		long long value;
		if (cli_parse_int(flag, value_text, 1, RIDGE_ALIGN_MAX_DIM, &value) != 0) {
			rc = EXIT_USAGE;
			break;
		}
		if (add_finding(run, name, NULL, -1, value) != 0) {
			rc = EXIT_USAGE;
			break;
		}
		struct finding *f = &run->findings[run->count - 1];
		char err[300];
		if (align_tiling(run->opt.tokens, value, &run->opt.tile, run->gpu->sm_count, &f->tiling, err, sizeof err)) {
			cli_error("%s: %s", name, err);
			rc = EXIT_USAGE;
			break;
		}
		f->has_tiling = true;
		if (eq && d_model == 0 && name_in(name, d_model_names))
			d_model = value;
		if (!comma)
			break;
		item = comma + 1;
	}
	free(copy);
	if (rc != 0)
		return rc;
	if (d_model > 0) {
		bool any = false;
		for (int i = 0; i < run->count; i++) {
			if (name_in(run->findings[i].name, ffn_names)) {
				run->findings[i].has_swiglu = true;
				any = true;
			}
		}
		if (any && swiglu_for(run, d_model, false, 0, false, 0) != 0)
			return EXIT_USAGE;
	}
	return 0;
}

static int collect_model(struct align_run *run)
{
	struct cli_model_config config;
	if (cli_model_config_load(run->opt.model_path, &config) != 0)
		return EXIT_USAGE;
	run->model = config.model;
	char err[400];
	if (align_model_resolve(&run->model, err, sizeof err) != 0) {
		cli_error("%s: %s", run->opt.model_path, err);
		return EXIT_USAGE;
	}
	if (align_model_gemms(&run->model, run->opt.tokens, run->gemms, err, sizeof err) != 0) {
		cli_error("--tokens: %s", err);
		return EXIT_USAGE;
	}
	run->model_mode = true;
	if (swiglu_for(run, run->model.hidden_size, config.has_ffn_dim_multiplier, config.ffn_dim_multiplier,
		       config.has_multiple_of, config.multiple_of) != 0)
		return EXIT_USAGE;
	for (int g = 0; g < RIDGE_GEMM_COUNT; g++) {
		const struct ridge_align_gemm *gemm = &run->gemms[g];
		char name[64];
		snprintf(name, sizeof name, "%s.N", gemm->name);
		if (add_finding(run, name, gemm->n_from, g, gemm->n) != 0)
			return EXIT_USAGE;
		run->findings[run->count - 1].has_swiglu = g == RIDGE_GEMM_GATE || g == RIDGE_GEMM_UP;
		enum ridge_align_severity worst = run->findings[run->count - 1].dim.severity;
		snprintf(name, sizeof name, "%s.K", gemm->name);
		if (add_finding(run, name, gemm->k_from, g, gemm->k) != 0)
			return EXIT_USAGE;
		run->findings[run->count - 1].has_swiglu = g == RIDGE_GEMM_DOWN;
		if (run->findings[run->count - 1].dim.severity > worst)
			worst = run->findings[run->count - 1].dim.severity;
		run->gemm_severity[g] = worst;
		if (align_tiling(gemm->m, gemm->n, &run->opt.tile, run->gpu->sm_count, &run->gemm_tiling[g], err,
				 sizeof err) != 0) {
			cli_error("%s: %s", gemm->name, err);
			return EXIT_USAGE;
		}
	}
	/* head_dim is K of Q K^T and N of P V in attention, per head. */
	return add_finding(run, "attention.head_dim", "head_dim", -1, run->model.head_dim) != 0 ? EXIT_USAGE : 0;
}

/* Share of the forward GEMM FLOPs in GEMMs with an error. */
static double misaligned_fraction(const struct align_run *run, double *total_out)
{
	double total = 0, bad = 0;
	for (int g = 0; g < RIDGE_GEMM_COUNT; g++) {
		total += run->gemms[g].flops;
		if (run->gemm_severity[g] == RIDGE_ALIGN_ERROR)
			bad += run->gemms[g].flops;
	}
	*total_out = total;
	return bad / total;
}

static cJSON *tiling_json(const struct ridge_align_tiling *t)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "m", (double)t->m);
	cJSON_AddNumberToObject(o, "n", (double)t->n);
	cJSON_AddNumberToObject(o, "tiles_m", (double)t->tiles_m);
	cJSON_AddNumberToObject(o, "tiles_n", (double)t->tiles_n);
	cJSON_AddNumberToObject(o, "tiles", (double)t->tiles);
	cJSON_AddNumberToObject(o, "concurrent_ctas", (double)t->slots);
	cJSON_AddNumberToObject(o, "waves", (double)t->waves);
	cli_json_number(o, "waves_exact", t->waves_exact);
	cJSON_AddNumberToObject(o, "last_wave_tiles", (double)t->last_wave_tiles);
	cli_json_number(o, "tile_efficiency", t->tile_efficiency);
	cli_json_number(o, "wave_efficiency", t->wave_efficiency);
	cli_json_number(o, "efficiency", t->efficiency);
	return o;
}

static cJSON *swiglu_json(const struct ridge_align_swiglu *s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "rule", "multiple_of * ceil(floor(ffn_dim_multiplier * floor(8 d / 3)) / multiple_of)");
	cJSON_AddNumberToObject(o, "d_model", (double)s->d_model);
	if (s->has_multiplier)
		cli_json_number(o, "ffn_dim_multiplier", s->ffn_dim_multiplier);
	else
		cJSON_AddNullToObject(o, "ffn_dim_multiplier");
	cJSON_AddNumberToObject(o, "multiple_of", (double)s->multiple_of);
	cJSON_AddNumberToObject(o, "eight_thirds_d", (double)s->base);
	cJSON_AddNumberToObject(o, "intermediate", (double)s->intermediate);
	return o;
}

static int print_json(const struct align_run *run)
{
	const struct ridge_gpu *g = run->gpu;
	const struct ridge_align_rule *r = &run->rule;
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddBoolToObject(doc, "ok", run->errors == 0);
	cJSON_AddStringToObject(doc, "gpu", g->id);
	cJSON_AddStringToObject(doc, "gpu_name", g->name);
	cJSON_AddStringToObject(doc, "ceilings", cli_ceiling_source(g));
	cJSON_AddStringToObject(doc, "dtype", ridge_dtype_name(r->dtype));
	cJSON_AddNumberToObject(doc, "sm_count", g->sm_count);
	cJSON *rule = cJSON_AddObjectToObject(doc, "rule");
	cJSON_AddNumberToObject(rule, "required_multiple", (double)r->required_multiple);
	cJSON_AddNumberToObject(rule, "required_bytes", r->required_bytes);
	cJSON_AddNumberToObject(rule, "recommended_multiple", (double)r->recommended_multiple);
	cJSON_AddNumberToObject(rule, "recommended_bytes", r->recommended_bytes);
	cJSON_AddBoolToObject(rule, "tensor_core_path", r->matrix_path);
	if (r->path_note)
		cJSON_AddStringToObject(rule, "note", r->path_note);
	cJSON_AddStringToObject(rule, "basis", r->basis);
	cJSON_AddNumberToObject(doc, "tokens", (double)run->opt.tokens);
	cJSON *tile = cJSON_AddObjectToObject(doc, "tile");
	cJSON_AddNumberToObject(tile, "m", run->opt.tile.m);
	cJSON_AddNumberToObject(tile, "n", run->opt.tile.n);
	cJSON_AddNumberToObject(tile, "ctas_per_sm", run->opt.tile.ctas_per_sm);
	cJSON_AddNumberToObject(doc, "errors", run->errors);
	cJSON_AddNumberToObject(doc, "warnings", run->warnings);

	cJSON *findings = cJSON_AddArrayToObject(doc, "findings");
	for (int i = 0; i < run->count; i++) {
		const struct finding *f = &run->findings[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", f->name);
		cJSON_AddNumberToObject(o, "value", (double)f->dim.value);
		cJSON_AddNumberToObject(o, "required_multiple", (double)f->dim.required_multiple);
		cJSON_AddNumberToObject(o, "suggested", (double)f->dim.suggested);
		cJSON_AddStringToObject(o, "severity", align_severity_name(f->dim.severity));
		cJSON_AddNumberToObject(o, "recommended_multiple", (double)f->dim.recommended_multiple);
		cJSON_AddNumberToObject(o, "suggested_recommended", (double)f->dim.suggested_recommended);
		cJSON_AddBoolToObject(o, "tensor_core_path", r->matrix_path);
		cJSON_AddStringToObject(o, "reason", f->reason);
		if (f->from)
			cJSON_AddStringToObject(o, "from", f->from);
		if (f->gemm >= 0)
			cJSON_AddStringToObject(o, "gemm", run->gemms[f->gemm].name);
		if (f->has_tiling)
			cJSON_AddItemToObject(o, "tiling", tiling_json(&f->tiling));
		if (f->has_swiglu && run->has_swiglu)
			cJSON_AddNumberToObject(o, "swiglu_intermediate", (double)run->swiglu.intermediate);
		cJSON_AddItemToArray(findings, o);
	}
	if (run->has_swiglu)
		cJSON_AddItemToObject(doc, "swiglu", swiglu_json(&run->swiglu));
	if (run->model_mode) {
		const struct ridge_align_model *m = &run->model;
		cJSON *model = cJSON_AddObjectToObject(doc, "model");
		cJSON_AddStringToObject(model, "file", run->opt.model_path);
		cJSON_AddNumberToObject(model, "hidden_size", (double)m->hidden_size);
		cJSON_AddNumberToObject(model, "intermediate_size", (double)m->intermediate_size);
		cJSON_AddNumberToObject(model, "num_attention_heads", (double)m->num_attention_heads);
		cJSON_AddNumberToObject(model, "num_key_value_heads", (double)m->num_key_value_heads);
		cJSON_AddNumberToObject(model, "head_dim", (double)m->head_dim);
		cJSON_AddNumberToObject(model, "vocab_size", (double)m->vocab_size);
		cJSON_AddNumberToObject(model, "num_hidden_layers", (double)m->num_hidden_layers);
		cJSON *gemms = cJSON_AddArrayToObject(doc, "gemms");
		for (int i = 0; i < RIDGE_GEMM_COUNT; i++) {
			const struct ridge_align_gemm *gm = &run->gemms[i];
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "name", gm->name);
			cJSON_AddNumberToObject(o, "m", (double)gm->m);
			cJSON_AddNumberToObject(o, "n", (double)gm->n);
			cJSON_AddNumberToObject(o, "k", (double)gm->k);
			cJSON_AddStringToObject(o, "n_from", gm->n_from);
			cJSON_AddStringToObject(o, "k_from", gm->k_from);
			cJSON_AddNumberToObject(o, "count", (double)gm->count);
			cli_json_number(o, "flops", gm->flops);
			cJSON_AddBoolToObject(o, "aligned", run->gemm_severity[i] != RIDGE_ALIGN_ERROR);
			cJSON_AddStringToObject(o, "severity", align_severity_name(run->gemm_severity[i]));
			cJSON_AddItemToObject(o, "tiling", tiling_json(&run->gemm_tiling[i]));
			cJSON_AddItemToArray(gemms, o);
		}
		double total;
		double fraction = misaligned_fraction(run, &total);
		cli_json_number(doc, "gemm_flops", total);
		cli_json_number(doc, "misaligned_flops_fraction", fraction);
	}
	return cli_json_print(doc);
}

static void print_header(const struct align_run *run)
{
	const struct ridge_gpu *g = run->gpu;
	const struct ridge_align_rule *r = &run->rule;
	printf("%s on %s (%s), %d %s; %s entry\n", ridge_dtype_name(r->dtype), g->name, g->id, g->sm_count,
	       g->vendor == RIDGE_VENDOR_AMD ? "CUs" : "SMs", cli_ceiling_source(g));
	printf("rule: multiples of %lld elements (%d bytes) required, %lld (%d bytes) recommended\n",
	       r->required_multiple, r->required_bytes, r->recommended_multiple, r->recommended_bytes);
	if (!r->matrix_path)
		printf("note: %s: these GEMMs run without tensor cores whatever the alignment\n", r->path_note);
	if (g->vendor == RIDGE_VENDOR_AMD)
		printf("note: %s\n", r->basis);
	printf("tiles: M = %lld tokens, %dx%d CTA tiles, %d per %s (%lld at once)\n", run->opt.tokens, run->opt.tile.m,
	       run->opt.tile.n, run->opt.tile.ctas_per_sm, g->vendor == RIDGE_VENDOR_AMD ? "CU" : "SM",
	       (long long)g->sm_count * run->opt.tile.ctas_per_sm);
}

static void fmt_waves(const struct ridge_align_tiling *t, char *buf, size_t len)
{
	snprintf(buf, len, "%.2f -> %lld", t->waves_exact, t->waves);
}

static void fmt_next(const struct ridge_align_dim *d, bool recommended, char *buf, size_t len)
{
	long long next = recommended ? d->suggested_recommended : d->suggested;
	if (next == d->value)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%lld", next);
}

static void print_dims(const struct align_run *run)
{
	const struct ridge_align_rule *r = &run->rule;
	char next_req[24], next_rec[24];
	snprintf(next_req, sizeof next_req, "NEXT x%lld", r->required_multiple);
	snprintf(next_rec, sizeof next_rec, "NEXT x%lld", r->recommended_multiple);
	printf("\n%-20s %10s  %-8s %10s %10s %8s %14s %9s %9s\n", "NAME", "VALUE", "SEVERITY", next_req, next_rec,
	       "TILES", "WAVES", "TILE EFF", "WAVE EFF");
	for (int i = 0; i < run->count; i++) {
		const struct finding *f = &run->findings[i];
		char a[24], b[24], w[32];
		fmt_next(&f->dim, false, a, sizeof a);
		fmt_next(&f->dim, true, b, sizeof b);
		fmt_waves(&f->tiling, w, sizeof w);
		printf("%-20s %10lld  %-8s %10s %10s %8lld %14s %8.2f%% %8.2f%%\n", f->name, f->dim.value,
		       align_severity_name(f->dim.severity), a, b, f->tiling.tiles, w, 100 * f->tiling.tile_efficiency,
		       100 * f->tiling.wave_efficiency);
	}
	printf("\n");
	for (int i = 0; i < run->count; i++) {
		const struct finding *f = &run->findings[i];
		printf("%s = %lld: %s\n", f->name, f->dim.value, f->reason);
		if (f->has_swiglu && run->has_swiglu) {
			const struct ridge_align_swiglu *s = &run->swiglu;
			printf("  SwiGLU for d_model %lld (Llama rule, multiple_of %lld%s): 8/3 x %lld = %lld -> %lld\n",
			       s->d_model, s->multiple_of, s->has_multiplier ? ", with ffn_dim_multiplier" : "", s->d_model,
			       s->base, s->intermediate);
		}
	}
}

static void print_model(const struct align_run *run)
{
	const struct ridge_align_model *m = &run->model;
	printf("model: %s: hidden %lld, intermediate %lld, %lld heads (%lld KV, head_dim %lld), vocab %lld, %lld "
	       "layers\n",
	       run->opt.model_path, m->hidden_size, m->intermediate_size, m->num_attention_heads, m->num_key_value_heads,
	       m->head_dim, m->vocab_size, m->num_hidden_layers);
	printf("\n%-10s %-26s %-8s %-28s %6s %14s %s\n", "GEMM", "M x N x K", "ALIGNED", "SUGGESTED CHANGE", "TILES",
	       "WAVES", "EFFICIENCY (TILE x WAVE)");
	for (int g = 0; g < RIDGE_GEMM_COUNT; g++) {
		const struct ridge_align_gemm *gm = &run->gemms[g];
		const struct ridge_align_tiling *t = &run->gemm_tiling[g];
		char shape[64], change[96] = "", w[32];
		snprintf(shape, sizeof shape, "%lld x %lld x %lld", gm->m, gm->n, gm->k);
		/* The GEMM's two findings are N then K, in GEMM order. */
		for (int i = 0; i < run->count; i++) {
			const struct finding *f = &run->findings[i];
			if (f->gemm != g || f->dim.severity == RIDGE_ALIGN_OK)
				continue;
			size_t used = strlen(change);
			char axis = f->name[strlen(f->name) - 1];
			if (f->dim.severity == RIDGE_ALIGN_ERROR)
				snprintf(change + used, sizeof change - used, "%s%c %lld->%lld (x%lld: %lld)", used ? "; " : "",
					 axis, f->dim.value, f->dim.suggested, f->dim.recommended_multiple,
					 f->dim.suggested_recommended);
			else
				snprintf(change + used, sizeof change - used, "%s%c %lld->%lld", used ? "; " : "", axis,
					 f->dim.value, f->dim.suggested_recommended);
		}
		if (!change[0])
			snprintf(change, sizeof change, "-");
		const char *aligned = run->gemm_severity[g] == RIDGE_ALIGN_ERROR     ? "NO"
				      : run->gemm_severity[g] == RIDGE_ALIGN_WARNING ? "yes (w)"
										     : "yes";
		fmt_waves(t, w, sizeof w);
		printf("%-10s %-26s %-8s %-28s %6lld %14s %6.2f%% (%.2f%% x %.2f%%)\n", gm->name, shape, aligned, change,
		       t->tiles, w, 100 * t->efficiency, 100 * t->tile_efficiency, 100 * t->wave_efficiency);
	}
	if (run->warnings)
		printf("(w): 16-byte aligned, below the recommended multiple.\n");
	printf("M (tokens) is no leading dimension of a row-major linear layer: only N and K are checked;\n"
	       "M enters the tiles and waves.\n");

	printf("\n");
	int shown = 0;
	for (int i = 0; i < run->count; i++) {
		const struct finding *f = &run->findings[i];
		if (f->dim.severity == RIDGE_ALIGN_OK)
			continue;
		printf("%-7s %s = %lld (%s): %s\n", align_severity_name(f->dim.severity), f->name, f->dim.value, f->from,
		       f->reason);
		shown++;
	}
	if (!shown)
		printf("every dimension is a multiple of %lld\n", run->rule.recommended_multiple);
	const struct ridge_align_swiglu *s = &run->swiglu;
	printf("SwiGLU check: 8/3 x hidden %lld = %lld", s->d_model, s->base);
	if (s->has_multiplier)
		printf(", x ffn_dim_multiplier %g = %lld", s->ffn_dim_multiplier, s->scaled);
	printf(", Llama rule (multiple_of %lld) gives %lld; ", s->multiple_of, s->intermediate);
	if (s->intermediate == m->intermediate_size)
		printf("the config's %lld matches it\n", m->intermediate_size);
	else
		printf("the config has %lld\n  (not the Llama rule with these settings: --ffn-dim-multiplier and --multiple-of\n"
		       "  set them; Llama-3 used 1.3 and 1024)\n",
		       m->intermediate_size);
	double total;
	double fraction = misaligned_fraction(run, &total);
	printf("GEMMs with an error carry %.1f%% of the %.4g forward GEMM FLOPs (%lld tokens; attention's\n"
	       "Q K^T and P V, which grow with context, are not counted)\n",
	       100 * fraction, total, run->opt.tokens);
}

static int run_align(int argc, char **argv)
{
	struct align_run *run = calloc(1, sizeof *run);
	if (!run) {
		cli_error("out of memory");
		return EXIT_ENV;
	}
	int rc = parse_options(argc, argv, &run->opt);
	if (rc != 0) {
		free(run);
		return rc == -2 ? EXIT_OK : rc;
	}
	struct cli_hw hw;
	if (cli_hw_open(&hw, run->opt.hwdb_dir, run->opt.calibration) != 0) {
		free(run);
		return EXIT_USAGE;
	}
	const struct hwdb_entry *e = cli_hw_find(&hw, run->opt.gpu);
	if (!e) {
		cli_hw_close(&hw);
		free(run);
		return EXIT_USAGE;
	}
	run->gpu = &e->gpu;
	char err[300];
	if (align_rule(run->gpu, run->opt.dtype, &run->rule, err, sizeof err) != 0) {
		cli_error("--dtype: %s", err);
		rc = EXIT_USAGE;
	} else {
		rc = run->opt.dims ? collect_dims(run) : collect_model(run);
	}
	if (rc == 0 && !run->rule.any_path)
		cli_warning("%s has no %s hardware path at all (no matrix or vector rate): the multiples are the byte "
			    "rules only",
			    run->gpu->id, ridge_dtype_name(run->opt.dtype));
	if (rc == 0) {
		if (run->opt.json) {
			rc = print_json(run);
		} else {
			print_header(run);
			if (run->model_mode)
				print_model(run);
			else
				print_dims(run);
			printf("\n%d error%s, %d warning%s: %s\n", run->errors, run->errors == 1 ? "" : "s", run->warnings,
			       run->warnings == 1 ? "" : "s",
			       run->errors ? "misaligned (exit 1)" : run->warnings ? "aligned, below the recommended multiple"
										 : "aligned");
			if (run->errors && run->rule.matrix_path && run->gpu->vendor == RIDGE_VENDOR_NVIDIA)
				printf("ridge flags where a dimension leaves the fast kernels, not how much slower they run: on\n"
				       "cuBLAS >= 11 an unaligned GEMM stays on tensor cores through slower kernels or\n"
				       "padding (the \"falls back to FP32 CUDA cores, 30x slower\" story is cuBLAS < 11).\n"
				       "ridge-probe measures the real penalty (K = 8192 vs 8191 vs 8184).\n");
			else if (run->errors)
				printf("ridge flags where a dimension is unaligned, not how much slower it runs; the probe\n"
				       "measures that on the GPU.\n");
			rc = fflush(stdout) == 0 ? EXIT_OK : EXIT_ENV;
		}
		if (rc == EXIT_OK && run->errors)
			rc = EXIT_PROBLEM;
	}
	cli_hw_close(&hw);
	free(run);
	return rc;
}

const struct cli_command cli_cmd_align = { "align", run_align,
					   "tensor-core alignment and tile/wave quantization of GEMM dims or a model" };

/* A short verdict for the report: what the rule says about one value. */
static void verdict(const struct ridge_gpu *gpu, const struct ridge_align_rule *r, const struct ridge_align_dim *d,
		    char *buf, size_t len)
{
	const char *dt = ridge_dtype_name(r->dtype);
	const char *core = gpu->vendor == RIDGE_VENDOR_AMD ? "matrix-core" : "tensor-core";
	if (!r->matrix_path)
		snprintf(buf, len, "%s: no %s path on this GPU", dt, core);
	else if (d->severity == RIDGE_ALIGN_ERROR && d->suggested == d->suggested_recommended)
		snprintf(buf, len, "%s: off the fast %s kernels (not a multiple of %lld; next %lld)", dt, core,
			 r->required_multiple, d->suggested);
	else if (d->severity == RIDGE_ALIGN_ERROR)
		snprintf(buf, len, "%s: off the fast %s kernels (not a multiple of %lld; next %lld, or %lld for %lld)", dt,
			 core, r->required_multiple, d->suggested, d->suggested_recommended, r->recommended_multiple);
	else if (d->severity == RIDGE_ALIGN_WARNING)
		snprintf(buf, len, "%s: on %s cores, short of the recommended %lld (next %lld)", dt,
			 gpu->vendor == RIDGE_VENDOR_AMD ? "matrix" : "tensor", r->recommended_multiple,
			 d->suggested_recommended);
	else
		snprintf(buf, len, "%s: a multiple of the recommended %lld", dt, r->recommended_multiple);
}

/* ridge report: the seed's cases (7.2.3, review question 3) on this GPU. */
void report_align(const struct ridge_gpu *gpu)
{
	static const struct {
		const char *label;
		long long value;
	} cases[] = {
		{ "d_model = 6000 (review q. 3)", 6000 },
		{ "8/3 x 8192 = 21845 (SwiGLU)", 21845 },
		{ "seed's fix 21888 (342 x 64)", 21888 },
		{ "Llama rule, multiple_of 256", 22016 },
		{ "probe shape 8191", 8191 },
		{ "probe shape 8184", 8184 },
		{ "probe shape 8192", 8192 },
	};
	const long long tokens = DEFAULT_TOKENS;
	const struct ridge_align_tile tile = { 128, 128, 1 };
	struct ridge_align_rule half, fp8;
	char err[300];
	/* The seed's dtype is bf16; a GPU without bf16 matrix units (V100) gets fp16. */
	enum ridge_dtype half_dtype = gpu->peak[RIDGE_BF16].has_matrix || !gpu->peak[RIDGE_FP16].has_matrix ? RIDGE_BF16
													     : RIDGE_FP16;
	const char *hn = ridge_dtype_name(half_dtype);
	printf("== Tensor-core alignment (seed 7.2.3) on %s ==\n", gpu->name);
	if (align_rule(gpu, half_dtype, &half, err, sizeof err) != 0 || align_rule(gpu, RIDGE_FP8, &fp8, err, sizeof err)) {
		printf("cannot check: %s\n", err);
		return;
	}
	printf("%s: multiples of %lld required, %lld recommended; fp8: %lld and %lld\n", hn, half.required_multiple,
	       half.recommended_multiple, fp8.required_multiple, fp8.recommended_multiple);
	char fix_head[24];
	snprintf(fix_head, sizeof fix_head, "%s fix", hn);
	printf("%-30s %-8s %-8s %9s %7s %14s %9s %9s\n", "dimension (as N)", hn, "fp8", fix_head, "tiles", "waves",
	       "tile eff", "wave eff");
	struct ridge_align_dim seen_half[2], seen_fp8[2];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ridge_align_dim a, b;
		struct ridge_align_tiling t;
		if (align_check_dim(&half, cases[i].value, &a, err, sizeof err) != 0 ||
		    align_check_dim(&fp8, cases[i].value, &b, err, sizeof err) != 0 ||
		    align_tiling(tokens, cases[i].value, &tile, gpu->sm_count, &t, err, sizeof err) != 0) {
			printf("%-30s %s\n", cases[i].label, err);
			return;
		}
		if (i < 2) {
			seen_half[i] = a;
			seen_fp8[i] = b;
		}
		char fix[24], w[32];
		fmt_next(&a, true, fix, sizeof fix);
		fmt_waves(&t, w, sizeof w);
		printf("%-30s %-8s %-8s %9s %7lld %14s %8.2f%% %8.2f%%\n", cases[i].label,
		       half.matrix_path ? align_severity_name(a.severity) : "no TC",
		       fp8.matrix_path ? align_severity_name(b.severity) : "no TC", fix, t.tiles, w,
		       100 * t.tile_efficiency, 100 * t.wave_efficiency);
	}
	printf("tiles: M = %lld tokens x N, %dx%d CTA tiles, one per %s, %d %s.\n", tokens, tile.m, tile.n,
	       gpu->vendor == RIDGE_VENDOR_AMD ? "CU" : "SM", gpu->sm_count,
	       gpu->vendor == RIDGE_VENDOR_AMD ? "CUs" : "SMs");
	char line[200];
	for (int i = 0; i < 2; i++) {
		printf("%lld:\n", cases[i].value);
		verdict(gpu, &half, &seen_half[i], line, sizeof line);
		printf("  %s\n", line);
		verdict(gpu, &fp8, &seen_fp8[i], line, sizeof line);
		printf("  %s\n", line);
	}

	/* The seed says the misaligned FFN is "~36% of model compute": here is
	 * the share of forward GEMM FLOPs in a Llama-3-70B shape with 21845. */
	struct ridge_align_model m = { .hidden_size = 8192,
				       .intermediate_size = 21845,
				       .num_attention_heads = 64,
				       .num_key_value_heads = 8,
				       .has_num_key_value_heads = true,
				       .vocab_size = 128256,
				       .num_hidden_layers = 80 };
	struct ridge_align_gemm g[RIDGE_GEMM_COUNT];
	if (align_model_resolve(&m, err, sizeof err) == 0 && align_model_gemms(&m, tokens, g, err, sizeof err) == 0) {
		double total = 0, ffn = 0;
		for (int i = 0; i < RIDGE_GEMM_COUNT; i++) {
			total += g[i].flops;
			if (i == RIDGE_GEMM_GATE || i == RIDGE_GEMM_UP || i == RIDGE_GEMM_DOWN)
				ffn += g[i].flops;
		}
		printf("A Llama-3-70B shape with intermediate 21845: gate, up and down carry %.1f%% of the forward\n"
		       "GEMM FLOPs at %lld tokens (the seed says ~36%% of model compute; attention's Q K^T and P V\n"
		       "are not counted here and grow with context).\n",
		       100 * ffn / total, tokens);
	}
	printf("The seed's \"not divisible by 16 silently falls back to FP32 CUDA cores, 30x slower\" is\n"
	       "cuBLAS < 11; newer cuBLAS uses slower tensor-core kernels or pads. ridge-probe measures it.\n");
}
