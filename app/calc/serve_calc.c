/* ridge serve: an engine under load (model/serve_sim.h) from a model config,
 * the engine's preset and its overrides; the JSON document here, the text
 * and the SVG in app/view/serve_view.c. */
#include "serve_calc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app.h"
#include "calc.h"
#include "cost.h"
#include "cost_model_calc.h"
#include "json_out.h"
#include "model_config.h"
#include "serve_sim.h"
#include "serve_view.h"

#define SERVE_PARAMS(X)                                                                                                \
	X(SERVE_MODEL, PARAM_TEXT_ROW("model", .flags = PARAM_REQUIRED, .metavar = "FILE",                             \
				      .help = "model config (Hugging Face config.json or YAML)"))                      \
	X(SERVE_TP,                                                                                                    \
	  PARAM_INT("tp", 1, 1024, .metavar = "T", .help = "tensor-parallel GPUs of the engine (default 1)"))          \
	X(SERVE_ISL, PARAM_INT("isl", 1, 1e7, .metavar = "N",                                                          \
			       .help = "prompt tokens per request (required unless --isl-dist gives them)"))           \
	X(SERVE_OSL, PARAM_INT("osl", 1, 1e7, .metavar = "M",                                                          \
			       .help = "output tokens per request (required unless --osl-dist gives them)"))           \
	X(SERVE_CONCURRENCY, PARAM_INT("concurrency", 1, 65536, .metavar = "C",                                        \
				       .help = "closed loop: C clients, each sending its next request when the last "  \
					       "one ends"))                                                            \
	X(SERVE_RATE, PARAM_NUM("rate", RIDGE_UNIT_COUNT, 0, 1e6, .flags = PARAM_OPEN_LO, .metavar = "R",              \
				.help = "open loop: Poisson arrivals, R requests per second",                          \
				.range = "greater than 0, at most 1e6 per second"))                                    \
	X(SERVE_REQUESTS, PARAM_INT("requests", 1, 200000, .metavar = "K",                                             \
				    .help = "requests measured (default 10 x concurrency, at least 200; open loop "    \
					    "1000)"))                                                                  \
	X(SERVE_WARMUP, PARAM_INT("warmup", 0, 200000, .metavar = "W",                                                 \
				  .help = "requests sent first and left out (default: the concurrency; open loop "     \
					  "10 % of --requests)"))                                                      \
	X(SERVE_SEED,                                                                                                  \
	  PARAM_INT("seed", 0, 4294967295.0, .metavar = "S", .help = "seed of the arrivals and lengths (default 1)"))  \
	X(SERVE_ENGINE, PARAM_TEXT_ROW("engine", .metavar = "E",                                                       \
				       .help = "vllm (default), sglang or trtllm: the scheduler defaults"))            \
	X(SERVE_MAX_TOKENS, PARAM_INT("max_num_batched_tokens", 1, 1048576, .metavar = "B",                            \
				      .help = "tokens per iteration (default: the engine's)"))                         \
	X(SERVE_MAX_SEQS, PARAM_INT("max_num_seqs", 1, 65536, .metavar = "S",                                          \
				    .help = "requests running at once (default: the engine's)"))                       \
	X(SERVE_CHUNKED, PARAM_FLAG_ROW("chunked_prefill", .help = "split prompts into chunks of the token budget"))   \
	X(SERVE_NO_CHUNKED, PARAM_FLAG_ROW("no_chunked_prefill", .help = "run each prompt in one iteration"))          \
	X(SERVE_BLOCK_SIZE,                                                                                            \
	  PARAM_INT("block_size", 1, 1e6, .metavar = "N", .help = "tokens per KV block (default: the engine's)"))      \
	X(SERVE_MEMORY_FRACTION, PARAM_FRAC("memory_fraction", 0, 1, .flags = PARAM_OPEN_LO, .metavar = "F",           \
					    .help = "the engine's memory fraction (default: the engine's)"))           \
	X(SERVE_GRAPH_MAX, PARAM_INT("graph_max_batch", 0, 65536, .metavar = "B",                                      \
				     .help = "largest decode batch replayed as a CUDA graph (0: none; default: the "   \
					     "engine's)"))                                                             \
	X(SERVE_GRAPH_PADDING,                                                                                         \
	  PARAM_FLAG_ROW("graph_padding", .help = "trtllm: decode batches round up to a captured CUDA graph size "     \
						  "(cuda_graph_config enable_padding; default off)"))                  \
	X(SERVE_GRAPH_SIZES,                                                                                           \
	  PARAM_TEXT_ROW("graph_batch_sizes", .metavar = "N,N,...",                                                    \
			 .help = "trtllm: the captured CUDA graph batch sizes, ascending (cuda_graph_config "          \
				 "batch_sizes; the largest is the graph maximum)"))                                    \
	X(SERVE_BATCH_WAIT_ITERS,                                                                                      \
	  PARAM_INT("batch_wait_iters", 0, 1e6, .metavar = "N",                                                        \
		    .help = "trtllm: hold new prompts back from an iteration with decode tokens for at most N "        \
			    "iterations in a row (batch_wait_timeout_iters; default 0: off)"))                         \
	X(SERVE_BATCH_WAIT_RATIO,                                                                                      \
	  PARAM_FRAC("batch_wait_tokens_ratio", 0, 1, .metavar = "R",                                                  \
		     .help = "trtllm: ... while prompts + decode tokens stay under R x the token budget "              \
			     "(batch_wait_max_tokens_ratio; default 0)"))                                              \
	X(SERVE_REQUEST_LATENCY,                                                                                       \
	  PARAM_NUM("request_latency", RIDGE_UNIT_SECONDS, 0, 60, .bare_unit = "us", .metavar = "T",                   \
		    .help = "host time of each request outside the iteration loop, added to its TTFT and E2E "         \
			    "(default 35 ms, fitted on published runs)",                                               \
		    .range = "0 to 60 s"))                                                                             \
	X(SERVE_CPU_OVERHEAD,                                                                                          \
	  PARAM_NUM("cpu_overhead", RIDGE_UNIT_SECONDS, 0, 10, .bare_unit = "us", .metavar = "T",                      \
		    .help = "host time per iteration the GPU waits for (default: the engine's, fitted: vLLM "          \
			    "0.75 ms, SGLang 0, TensorRT-LLM 0.5 ms)",                                                 \
		    .range = "0 to 10 s"))                                                                             \
	X(SERVE_ISL_DIST, PARAM_TEXT_ROW("isl_dist", .metavar = "D",                                                   \
					 .help = "prompt lengths: fixed (--isl), uniform:LO:HI or file:F (one number " \
						 "a line)"))                                                           \
	X(SERVE_OSL_DIST,                                                                                              \
	  PARAM_TEXT_ROW("osl_dist", .metavar = "D",                                                                   \
			 .help = "output lengths: fixed (--osl), uniform:LO:HI or file:F, as benchmark "               \
				 "clients vary them (vllm bench serve --random-range-ratio, ShareGPT)"))               \
	X(SERVE_MIXED, PARAM_FLAG_ROW("mixed_chunk", .help = "sglang only: running requests' decode tokens join the "  \
							     "prefill chunk's iteration (SGLang's "                    \
							     "--enable-mixed-chunk; vllm and trtllm always mix)"))     \
	X(SERVE_NO_MIXED,                                                                                              \
	  PARAM_FLAG_ROW("no_mixed_chunk", .help = "sglang only: prefill iterations run prompt chunks alone (its "     \
						   "default)"))                                                        \
	X(SERVE_MAX_CONTEXT,                                                                                           \
	  PARAM_INT("max_context", 1, 1e9, .metavar = "N",                                                             \
		    .help = "the model's context (default: max_position_embeddings of a config.json)"))                \
	X(SERVE_PRICE, PARAM_NUM("price", RIDGE_UNIT_USD, 0, 1e6, .metavar = "USD",                                    \
				 .help = "USD per GPU-hour (default: the GPU's hwdb price)"))                          \
	X(SERVE_WEIGHT_DTYPE, PARAM_TEXT_ROW("weight_dtype", .metavar = "DT",                                          \
					     .help = "weight storage: bf16 (default) fp16 fp8 int8 int4 fp4"))         \
	X(SERVE_KV_DTYPE, PARAM_TEXT_ROW("kv_dtype", .metavar = "DT", .help = "KV-cache storage (default bf16)"))      \
	X(SERVE_COMPUTE_DTYPE, PARAM_TEXT_ROW("compute_dtype", .metavar = "DT",                                        \
					      .help = "dtype the GEMMs run in, for their peak (default bf16; fp8 "     \
						      "for FP8 W8A8)"))                                                \
	X(SERVE_NO_CUSTOM_AR,                                                                                          \
	  PARAM_FLAG_ROW("no_custom_allreduce", .help = "every tensor-parallel all-reduce through NCCL (the engines' " \
							"--disable-custom-all-reduce; default: their own kernel for "  \
							"small messages)"))                                            \
	X(SERVE_NO_AR_FUSION,                                                                                          \
	  PARAM_FLAG_ROW("no_allreduce_fusion", .help = "trtllm: each all-reduce alone, the residual add and RMSNorm " \
							"after it as kernels of their own "                            \
							"(TRTLLM_LLAMA_EAGER_FUSION_DISABLED=1; default: fused in "    \
							"Llama layers wider than 4096)"))                              \
	X(SERVE_OVERLAP, PARAM_FLAG_ROW("overlap_scheduling",                                                          \
					.help = "the scheduler runs one iteration ahead: a request that arrives "      \
						"while an iteration runs joins the one after the next (vLLM's "        \
						"--async-scheduling; default: on for sglang and trtllm, off for "      \
						"vllm, whose default it is from v0.14)"))                              \
	X(SERVE_NO_OVERLAP,                                                                                            \
	  PARAM_FLAG_ROW("no_overlap_scheduling", .help = "each iteration built after the one before it ends "         \
							  "(SGLang's --disable-overlap-schedule, TensorRT-LLM's "      \
							  "disable_overlap_scheduler)"))                               \
	X(SERVE_NO_HYBRID, PARAM_FLAG_ROW("no_hybrid_kv_cache",                                                        \
					  .help = "vllm: every layer holds the whole context (sliding-window layers "  \
						  "keep only their window by default)"))                               \
	X(SERVE_SEPARATE_PROJECTIONS,                                                                                  \
	  PARAM_FLAG_ROW("separate_projections", .help = "one GEMM per q/k/v and gate/up projection (default: "        \
							 "fused, as every engine loads them)"))                        \
	X(SERVE_DISAGG, PARAM_FLAG_ROW("disagg", .help = "disaggregated serving: a prefill pool and a decode pool "    \
							 "(the four flags below)"))                                    \
	X(SERVE_PREFILL_TP, PARAM_INT("prefill_tp", 1, 1024, .metavar = "T",                                           \
				      .help = "--disagg: tensor-parallel GPUs of a prefill worker"))                   \
	X(SERVE_PREFILL_WORKERS,                                                                                       \
	  PARAM_INT("prefill_workers", 1, 64, .metavar = "P", .help = "--disagg: prefill workers (engine instances)")) \
	X(SERVE_DECODE_TP, PARAM_INT("decode_tp", 1, 1024, .metavar = "T",                                             \
				     .help = "--disagg: tensor-parallel GPUs of a decode worker"))                     \
	X(SERVE_DECODE_WORKERS,                                                                                        \
	  PARAM_INT("decode_workers", 1, 64, .metavar = "D", .help = "--disagg: decode workers (engine instances)"))   \
	X(SERVE_NETWORK_BW, PARAM_NUM("network_bw", RIDGE_UNIT_BYTES_PER_S, 0, PARAM_NET_BW_MAX,                       \
				      .flags = PARAM_OPEN_LO, .metavar = "B/s",                                        \
				      .help = "--disagg: network bandwidth per GPU between nodes for the KV "          \
					      "transfer (default: the hwdb entry's NICs)",                             \
				      .range = "greater than 0"))                                                      \
	X(SERVE_SVG, PARAM_TEXT_ROW("svg", .metavar = "FILE", .help = "write the batch and latencies over time"))      \
	X(SERVE_GPU, CALC_GPU_ROW)                                                                                     \
	X(SERVE_HWDB, CALC_HWDB_ROW)                                                                                   \
	X(SERVE_CALIBRATION, CALC_CALIBRATION_ROW)                                                                     \
	X(SERVE_JSON, CALC_JSON_ROW)
PARAMS_TABLE(serve_params, SERVE_PARAMS);

static const char serve_synopsis[] =
	"usage: ridge serve --model FILE --gpu GPU [--tp T] --isl N --osl M (--concurrency C | --rate R)\n"
	"                   [--requests K] [--engine vllm|sglang|trtllm] [--max-num-batched-tokens B]\n"
	"                   [--max-num-seqs S] [--chunked-prefill|--no-chunked-prefill] [--weight-dtype DT]\n"
	"                   [--kv-dtype DT] [--isl-dist fixed|uniform:LO:HI|file:F]\n"
	"                   [--osl-dist fixed|uniform:LO:HI|file:F] [--mixed-chunk|--no-mixed-chunk]\n"
	"                   [--calibration FILE]\n"
	"                   [--disagg --prefill-tp T --prefill-workers P --decode-tp T --decode-workers D]\n"
	"                   [--svg FILE] [--json]";
static const char serve_description[] =
	"Simulates a serving engine's iteration loop under load: requests arrive (closed loop: each of C\n"
	"clients sends its next request when the last one ends; open loop: Poisson arrivals), the\n"
	"scheduler admits them while their paged KV blocks fit and builds each iteration from decode\n"
	"tokens and prompt chunks up to the token budget, preempting when blocks run out. Every iteration\n"
	"is priced kernel by kernel as ridge cost decode|prefill --model price a step (GEMMs at the\n"
	"iteration's tokens, attention per request at its own context, TP all-reduces, CUDA graphs for\n"
	"decode batches the engine captured). Reports TTFT, TPOT, inter-token and end-to-end latency\n"
	"(mean, P50, P90, P99), throughput and $ per million output tokens. Exit 1 when the cache\n"
	"cannot hold one request. --disagg: P prefill workers of --prefill-tp GPUs run the prompts,\n"
	"D decode workers of --decode-tp GPUs the output tokens, each request's KV cache priced as it\n"
	"crosses (NVLink within a node, else the NICs). docs/models/serve-sim.md.\n";

const struct params_command serve_params_command = {
	.name = "serve",
	PARAMS_COMMAND_TABLE(serve_params),
	.synopsis = serve_synopsis,
	.description = serve_description,
	.check_required = true,
};

int serve_check_request(const struct param_values *v, struct app_status *st)
{
	bool closed = params_has(v, SERVE_CONCURRENCY), open = params_has(v, SERVE_RATE);
	if (closed == open) {
		app_error(st, "give one of --concurrency (closed loop) or --rate (open loop)%s",
			  closed ? ", not both" : "");
		return -1;
	}
	if (params_flag(v, SERVE_CHUNKED) && params_flag(v, SERVE_NO_CHUNKED)) {
		app_error(st, "--chunked-prefill and --no-chunked-prefill contradict each other");
		return -1;
	}
	if (!params_has(v, SERVE_ISL) && !params_has(v, SERVE_ISL_DIST)) {
		app_error(st, "--isl is required (or --isl-dist)");
		return -1;
	}
	if (!params_has(v, SERVE_OSL) && !params_has(v, SERVE_OSL_DIST)) {
		app_error(st, "--osl is required (or --osl-dist)");
		return -1;
	}
	if (params_flag(v, SERVE_MIXED) && params_flag(v, SERVE_NO_MIXED)) {
		app_error(st, "--mixed-chunk and --no-mixed-chunk contradict each other");
		return -1;
	}
	if (params_flag(v, SERVE_OVERLAP) && params_flag(v, SERVE_NO_OVERLAP)) {
		app_error(st, "--overlap-scheduling and --no-overlap-scheduling contradict each other");
		return -1;
	}
	static const int pool[] = { SERVE_PREFILL_TP, SERVE_PREFILL_WORKERS, SERVE_DECODE_TP, SERVE_DECODE_WORKERS,
				    SERVE_NETWORK_BW };
	static const char *const flags[] = { "--prefill-tp", "--prefill-workers", "--decode-tp", "--decode-workers" };
	bool disagg = params_flag(v, SERVE_DISAGG);
	for (size_t i = 0; i < sizeof pool / sizeof pool[0]; i++) {
		if (disagg && i < 4 && !params_has(v, pool[i])) {
			app_error(st,
				  "--disagg needs %s: the pools are --prefill-tp, --prefill-workers, --decode-tp and "
				  "--decode-workers",
				  flags[i]);
			return -1;
		}
		if (!disagg && params_has(v, pool[i])) {
			app_error_flag(st, params_where(v, pool[i]), "is for disaggregated serving: add --disagg");
			return -1;
		}
	}
	if (disagg && params_has(v, SERVE_TP)) {
		app_error_flag(st, params_where(v, SERVE_TP),
			       "is one engine's: with --disagg give --prefill-tp and --decode-tp");
		return -1;
	}
	return 0;
}

/* Everything the run holds until it has printed. */
struct serve_run {
	struct app_model_config config;
	struct ridge_serve_sim_input in;
	struct ridge_serve_sim_result result;
	struct ridge_serve_sim_sample *samples;
	double *lengths, *osl_lengths; /* --isl-dist file:F, --osl-dist file:F */
	char model_path[1024];
};

static int storage(const struct param_values *v, int param, struct ridge_storage *s, const char **name,
		   struct app_status *st)
{
	*name = params_text(v, param) ? params_text(v, param) : "bf16";
	if (!cost_storage_bytes(*name, &s->bytes)) {
		app_error_flag(st, params_where(v, param), "unknown storage type '%s' (known: %s)", *name,
			       cost_storage_list());
		return -1;
	}
	serve_storage_scale(*name, &s->scale_bytes, &s->group);
	return 0;
}

/* max_position_embeddings of a JSON config (YAML configs: unchecked). */
static double config_context(const char *path, struct app_status *st)
{
	size_t len = strlen(path);
	if (len < 5 || strcasecmp(path + len - 5, ".json") != 0)
		return 0;
	char *text = app_read_file(path, 16u << 20, "model config", &len, st);
	if (!text)
		return -1;
	cJSON *doc = cJSON_Parse(text);
	free(text);
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(doc, "max_position_embeddings");
	double context = cJSON_IsNumber(n) && n->valuedouble >= 1 ? n->valuedouble : 0;
	cJSON_Delete(doc);
	return context;
}

/* A length distribution as its flag gives it (--isl-dist, --osl-dist). */
struct length_spec {
	enum ridge_length_dist dist;
	double lo, hi;
	double *values; /* file:F, owned */
	size_t count;
};

/* file:F: one whole number a line (blank lines and # comments skipped).
 * what: "prompt" or "output". */
static int read_lengths(struct length_spec *spec, const char *flag, const char *what, const char *path,
			struct app_status *st)
{
	size_t len;
	char list_name[32];
	snprintf(list_name, sizeof list_name, "list of %s lengths", what);
	char *text = app_read_file(path, 64u << 20, list_name, &len, st);
	if (!text)
		return -1;
	size_t cap = 1024, n = 0;
	spec->values = malloc(cap * sizeof *spec->values);
	int line = 0, rc = 0;
	if (!spec->values) {
		app_error_env(st, "out of memory reading '%s'", path);
		rc = -1;
	}
	for (char *p = text; p && *p && rc == 0; line++) {
		char *end = strchr(p, '\n');
		if (end)
			*end = '\0';
		char *s = p + strspn(p, " \t\r");
		p = end ? end + 1 : NULL;
		if (*s == '\0' || *s == '#')
			continue;
		char *after;
		double x = strtod(s, &after);
		after += strspn(after, " \t\r");
		if (after == s || *after != '\0' || !(x >= 1 && x <= 1e7 && x == floor(x))) {
			app_error_at(st, path, line + 1, 1, "%s: '%s' is not a whole number of tokens from 1 to 1e7",
				     flag, s);
			rc = -1;
		} else {
			double *grown =
				n == cap ? realloc(spec->values, (cap *= 2) * sizeof *spec->values) : spec->values;
			if (!grown) {
				app_error_env(st, "out of memory reading '%s'", path);
				rc = -1;
			} else {
				spec->values = grown;
				spec->values[n++] = x;
			}
		}
	}
	free(text);
	if (rc == 0 && n == 0) {
		app_error_flag(st, flag, "'%s' holds no %s lengths", path, what);
		rc = -1;
	}
	spec->count = n;
	return rc;
}

/* --isl-dist or --osl-dist (dist_param) over --isl or --osl (fixed_param):
 * the same forms and errors for both. */
static int read_length_dist(const struct param_values *v, int fixed_param, int dist_param, const char *fixed_flag,
			    const char *what, struct length_spec *spec, struct app_status *st)
{
	const char *d = params_text(v, dist_param);
	const char *flag = params_where(v, dist_param);
	memset(spec, 0, sizeof *spec);
	if (!d || strcmp(d, "fixed") == 0) {
		if (!params_has(v, fixed_param)) {
			app_error_flag(st, flag, "fixed needs %s", fixed_flag);
			return -1;
		}
		spec->dist = RIDGE_LENGTH_FIXED;
		return 0;
	}
	if (strncmp(d, "uniform:", 8) == 0) {
		char tail;
		if (sscanf(d + 8, "%lf:%lf%c", &spec->lo, &spec->hi, &tail) != 2 ||
		    !(spec->lo >= 1 && spec->hi <= 1e7 && spec->lo <= spec->hi && spec->lo == floor(spec->lo) &&
		      spec->hi == floor(spec->hi))) {
			app_error_flag(st, flag, "'%s' is not uniform:LO:HI with whole 1 <= LO <= HI <= 1e7", d);
			return -1;
		}
		spec->dist = RIDGE_LENGTH_UNIFORM;
		return 0;
	}
	if (strncmp(d, "file:", 5) == 0 && d[5]) {
		spec->dist = RIDGE_LENGTH_LIST;
		return read_lengths(spec, flag, what, d + 5, st);
	}
	app_error_flag(st, flag, "'%s' is not fixed, uniform:LO:HI or file:F", d);
	return -1;
}

static int read_dists(struct serve_run *r, const struct param_values *v, struct app_status *st)
{
	struct ridge_serve_sim_input *in = &r->in;
	struct length_spec prompts, outputs = { 0 };
	in->isl = params_num(v, SERVE_ISL);
	in->osl = params_num(v, SERVE_OSL);
	int rc = read_length_dist(v, SERVE_ISL, SERVE_ISL_DIST, "--isl", "prompt", &prompts, st);
	r->lengths = prompts.values;
	if (rc == 0)
		rc = read_length_dist(v, SERVE_OSL, SERVE_OSL_DIST, "--osl", "output", &outputs, st);
	r->osl_lengths = outputs.values; /* freed with the run, read or not */
	if (rc)
		return -1;
	in->isl_dist = prompts.dist;
	in->isl_lo = prompts.lo;
	in->isl_hi = prompts.hi;
	in->isl_values = prompts.values;
	in->isl_count = prompts.count;
	in->osl_dist = outputs.dist;
	in->osl_lo = outputs.lo;
	in->osl_hi = outputs.hi;
	in->osl_values = outputs.values;
	in->osl_count = outputs.count;
	return 0;
}

/* Each flag given over an engine's preset. */
static void engine_overrides(const struct param_values *v, struct ridge_engine *e)
{
	if (params_has(v, SERVE_MAX_TOKENS))
		e->max_num_batched_tokens = params_num(v, SERVE_MAX_TOKENS);
	if (params_has(v, SERVE_MAX_SEQS))
		e->max_num_seqs = params_num(v, SERVE_MAX_SEQS);
	if (params_flag(v, SERVE_CHUNKED))
		e->chunked_prefill = true;
	if (params_flag(v, SERVE_NO_CHUNKED))
		e->chunked_prefill = false;
	if (params_has(v, SERVE_BLOCK_SIZE))
		e->block_size = params_num(v, SERVE_BLOCK_SIZE);
	if (params_has(v, SERVE_MEMORY_FRACTION))
		e->memory_fraction = params_num(v, SERVE_MEMORY_FRACTION);
	if (params_has(v, SERVE_GRAPH_MAX))
		e->graph_max_batch = params_num(v, SERVE_GRAPH_MAX);
	if (params_has(v, SERVE_CPU_OVERHEAD)) {
		e->cpu_overhead_s = params_num(v, SERVE_CPU_OVERHEAD);
		e->cpu_overhead_source = "given (--cpu-overhead)";
	}
	if (params_has(v, SERVE_REQUEST_LATENCY)) {
		e->request_latency_s = params_num(v, SERVE_REQUEST_LATENCY);
		e->request_latency_source = "given (--request-latency)";
	}
	if (params_flag(v, SERVE_NO_HYBRID))
		e->hybrid_kv_cache = false;
	if (params_flag(v, SERVE_OVERLAP))
		e->overlap_scheduling = true;
	if (params_flag(v, SERVE_NO_OVERLAP))
		e->overlap_scheduling = false;
	if (params_flag(v, SERVE_NO_AR_FUSION))
		e->allreduce_norm_fusion = false;
	if (params_flag(v, SERVE_NO_CUSTOM_AR)) {
		e->custom_allreduce_max_bytes = 0;
		e->custom_allreduce_source = "given (--no-custom-allreduce): NCCL for every all-reduce";
	}
	if (params_flag(v, SERVE_MIXED))
		e->mixed_batches = true;
	if (params_flag(v, SERVE_GRAPH_PADDING))
		e->graph_padding = true;
	if (params_has(v, SERVE_BATCH_WAIT_ITERS))
		e->batch_wait_iters = params_num(v, SERVE_BATCH_WAIT_ITERS);
	if (params_has(v, SERVE_BATCH_WAIT_RATIO))
		e->batch_wait_tokens_ratio = params_num(v, SERVE_BATCH_WAIT_RATIO);
}

/* --graph-batch-sizes: whole numbers, ascending, comma-separated; the largest
 * becomes the graph maximum (TensorRT-LLM requires max_batch_size to equal it). */
static int read_graph_sizes(const struct param_values *v, struct ridge_engine *e, struct app_status *st)
{
	const char *text = params_text(v, SERVE_GRAPH_SIZES);
	const char *flag = params_where(v, SERVE_GRAPH_SIZES);
	if (!text)
		return 0;
	int n = 0;
	for (const char *p = text; *p;) {
		char *after;
		double x = strtod(p, &after);
		if (after == p || !(x >= 1 && x <= 65536 && x == floor(x)) || (*after != ',' && *after != '\0')) {
			app_error_flag(st, flag,
				       "'%s' is not a list of whole batch sizes from 1 to 65536 (like 1,2,4,8)", text);
			return -1;
		}
		if (n == RIDGE_GRAPH_SIZES_MAX || (n > 0 && x <= e->graph_batch_sizes[n - 1])) {
			app_error_flag(st, flag, "'%s': at most %d sizes, each larger than the one before", text,
				       RIDGE_GRAPH_SIZES_MAX);
			return -1;
		}
		e->graph_batch_sizes[n++] = x;
		p = *after == ',' ? after + 1 : after;
	}
	if (n == 0) {
		app_error_flag(st, flag, "'%s' lists no sizes", text);
		return -1;
	}
	double largest = e->graph_batch_sizes[n - 1];
	if (params_has(v, SERVE_GRAPH_MAX) && params_num(v, SERVE_GRAPH_MAX) != largest) {
		app_error_flag(st, flag, "its largest size %g differs from --graph-max-batch %g", largest,
			       params_num(v, SERVE_GRAPH_MAX));
		return -1;
	}
	e->graph_batch_size_count = n;
	e->graph_max_batch = largest;
	return 0;
}

/* --graph-padding, the batch-waiting flags and the all-reduce fusion are TensorRT-LLM's options. */
static int check_trtllm_only(const struct param_values *v, const struct ridge_engine *e, struct app_status *st)
{
	static const int flags[] = { SERVE_GRAPH_PADDING, SERVE_GRAPH_SIZES, SERVE_BATCH_WAIT_ITERS,
				     SERVE_BATCH_WAIT_RATIO, SERVE_NO_AR_FUSION };
	if (e->kind == RIDGE_ENGINE_TRTLLM)
		return 0;
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
		if (params_has(v, flags[i])) {
			app_error_flag(st, params_where(v, flags[i]), "is TensorRT-LLM's (--engine trtllm), not %s's",
				       serve_engine_name(e->kind));
			return -1;
		}
	return 0;
}

/* --mixed-chunk and --no-mixed-chunk are SGLang's: vLLM and TensorRT-LLM
 * always mix; SGLang mixes only with chunked prefill on
 * (Scheduler.is_mixed_chunk needs a chunked_prefill_size). */
static int check_mixed_chunk(const struct param_values *v, const struct ridge_engine *e, struct app_status *st)
{
	int given = params_flag(v, SERVE_MIXED) ? SERVE_MIXED : params_flag(v, SERVE_NO_MIXED) ? SERVE_NO_MIXED : -1;
	if (given < 0)
		return 0;
	if (e->kind != RIDGE_ENGINE_SGLANG) {
		app_error_flag(st, params_where(v, given),
			       "is SGLang's (--engine sglang): %s always mixes decode tokens with prompt chunks",
			       serve_engine_name(e->kind));
		return -1;
	}
	if (given == SERVE_MIXED && !e->chunked_prefill) {
		app_error_flag(st, params_where(v, given),
			       "needs chunked prefill: SGLang mixes decode tokens only into prompt chunks");
		return -1;
	}
	return 0;
}

/* The engine's preset, then each flag given over it; --disagg: the decode
 * pool's (in->engine) and the prefill pool's, each at its own tp (SGLang's
 * preset reads it). */
static int read_engine(const struct param_values *v, const struct ridge_gpu *gpu, struct ridge_serve_sim_input *in,
		       struct app_status *st)
{
	enum ridge_engine_kind kind = RIDGE_ENGINE_VLLM;
	const char *name = params_text(v, SERVE_ENGINE);
	if (name && !serve_engine_parse(name, &kind)) {
		app_error_flag(st, params_where(v, SERVE_ENGINE), "unknown engine '%s' (known: vllm sglang trtllm)",
			       name);
		return -1;
	}
	serve_engine_defaults(kind, ridge_gpu_usable_memory(gpu), gpu->id, in->req.tp, &in->engine);
	engine_overrides(v, &in->engine);
	if (check_mixed_chunk(v, &in->engine, st) || check_trtllm_only(v, &in->engine, st) ||
	    read_graph_sizes(v, &in->engine, st))
		return -1;
	if (!params_flag(v, SERVE_DISAGG))
		return 0;
	/* the overlap schedulers' admission is modelled for aggregated engines
	 * only (model/serve_worker.c, admission_cutoff): say so rather than show
	 * a preset that the disaggregated pools do not run */
	if (params_flag(v, SERVE_OVERLAP)) {
		app_error_flag(st, params_where(v, SERVE_OVERLAP),
			       "is modelled for aggregated engines only, not with --disagg");
		return -1;
	}
	in->engine.overlap_scheduling = false;
	struct ridge_serve_disagg *d = &in->disagg;
	d->prefill_tp = params_num(v, SERVE_PREFILL_TP);
	d->prefill_workers = params_num(v, SERVE_PREFILL_WORKERS);
	d->decode_tp = params_num(v, SERVE_DECODE_TP);
	d->decode_workers = params_num(v, SERVE_DECODE_WORKERS);
	d->network_bandwidth = params_has(v, SERVE_NETWORK_BW) ? params_num(v, SERVE_NETWORK_BW) : 0;
	serve_engine_defaults(kind, ridge_gpu_usable_memory(gpu), gpu->id, d->prefill_tp, &d->prefill_engine);
	engine_overrides(v, &d->prefill_engine);
	d->prefill_engine.overlap_scheduling = false;
	return 0;
}

/* The model's context: --max-context, else the config's. */
static int read_context(struct serve_run *r, const struct param_values *v, struct app_status *st)
{
	if (params_has(v, SERVE_MAX_CONTEXT)) {
		r->in.max_context = params_num(v, SERVE_MAX_CONTEXT);
		return 0;
	}
	double context = config_context(r->model_path, st);
	if (context < 0)
		return -1;
	r->in.max_context = context;
	return 0;
}

static int read_request(struct serve_run *r, const struct param_values *v, const struct ridge_gpu *gpu,
			struct app_status *st)
{
	struct ridge_serve_sim_input *in = &r->in;
	snprintf(r->model_path, sizeof r->model_path, "%s", params_text(v, SERVE_MODEL));
	if (app_model_config_load(r->model_path, &r->config, st) != 0)
		return -1;
	for (int i = 0; i < r->config.warning_count; i++)
		app_warning_at(st, r->model_path, 0, 0, "%s", r->config.warnings[i]);
	char err[512];
	struct ridge_workload_model w;
	if (app_model_config_workload(&r->config, r->model_path, &w, err, sizeof err) != 0) {
		app_error(st, "%s", err);
		return -1;
	}
	r->config.workload = w;
	in->req.model = &r->config.workload;
	in->req.gpu = gpu;
	in->req.tp = params_flag(v, SERVE_DISAGG) ? params_num(v, SERVE_DECODE_TP)
		     : params_has(v, SERVE_TP)    ? params_num(v, SERVE_TP)
						  : 1;
	in->req.compute_dtype = RIDGE_BF16;
	const char *compute = params_text(v, SERVE_COMPUTE_DTYPE);
	if (compute && !ridge_dtype_parse(compute, &in->req.compute_dtype)) {
		app_error_flag(st, params_where(v, SERVE_COMPUTE_DTYPE), "unknown dtype '%s' (known: %s)", compute,
			       ridge_dtype_list());
		return -1;
	}
	in->req.launch = RIDGE_LAUNCH_GRAPH;
	in->req.fused_projections = !params_flag(v, SERVE_SEPARATE_PROJECTIONS);
	const char *wname, *kvname;
	if (storage(v, SERVE_WEIGHT_DTYPE, &in->req.weights, &wname, st) ||
	    storage(v, SERVE_KV_DTYPE, &in->req.kv, &kvname, st))
		return -1;
	/* a quantized checkpoint's own storage per tensor group, unless --weight-dtype says */
	const struct app_model_extras *x = &r->config.extras;
	if (x->quantized && !params_has(v, SERVE_WEIGHT_DTYPE)) {
		in->req.weights = x->dense.storage;
		in->req.expert_weights = x->experts.storage;
		in->req.embedding_weights = x->embedding.storage;
	} else if (x->quantized) {
		app_warning(st, "%s %s overrides the checkpoint's %s (experts %s, layers %s)",
			    params_where(v, SERVE_WEIGHT_DTYPE), wname, x->quant_note, x->experts.name, x->dense.name);
	}
	if (params_has(v, SERVE_PRICE))
		in->req.price_usd_per_gpu_hour = params_num(v, SERVE_PRICE);
	else if (gpu->has_price)
		in->req.price_usd_per_gpu_hour = gpu->price_usd_per_hour;
	else {
		app_error(st, "no price: give --price (USD per GPU-hour); %s has none in hwdb", gpu->id);
		return -1;
	}
	in->concurrency = params_num(v, SERVE_CONCURRENCY);
	in->rate = params_num(v, SERVE_RATE);
	bool closed = in->concurrency > 0;
	in->requests = params_has(v, SERVE_REQUESTS) ? params_num(v, SERVE_REQUESTS)
		       : closed                      ? fmax(200, fmin(10 * in->concurrency, 200000))
						     : 1000;
	in->warmup = params_has(v, SERVE_WARMUP) ? params_num(v, SERVE_WARMUP)
		     : closed                    ? in->concurrency
						 : floor(in->requests / 10);
	in->seed = params_has(v, SERVE_SEED) ? (uint64_t)params_num(v, SERVE_SEED) : 1;
	if (read_dists(r, v, st) || read_engine(v, gpu, in, st) || read_context(r, v, st))
		return -1;
	bool fused = serve_engine_fuses_allreduce_norm(&in->engine, app_model_config_is_llama(&r->config),
						       r->config.workload.hidden);
	in->req.fused_allreduce_norm_bytes = fused ? in->engine.custom_allreduce_max_bytes : 0;
	return 0;
}

/* Which flag a model error is about, by what it names. */
static const char *error_flag(const struct param_values *v, const char *err)
{
	static const struct {
		const char *word;
		int param;
	} words[] = { { "prefill tp", SERVE_PREFILL_TP },
		      { "decode tp", SERVE_DECODE_TP },
		      { "prefill workers", SERVE_PREFILL_WORKERS },
		      { "decode workers", SERVE_DECODE_WORKERS },
		      { "network bandwidth per GPU is needed", SERVE_NETWORK_BW },
		      { "tensor parallelism", SERVE_TP },
		      { "uniform output", SERVE_OSL_DIST },
		      { "output length", SERVE_OSL },
		      { "prompt length", SERVE_ISL },
		      { "uniform prompt", SERVE_ISL_DIST },
		      { "context", SERVE_ISL },
		      { "max-num-batched-tokens", SERVE_MAX_TOKENS },
		      { "max-num-seqs", SERVE_MAX_SEQS },
		      { "concurrency", SERVE_CONCURRENCY },
		      { "request rate", SERVE_RATE },
		      { "requests", SERVE_REQUESTS },
		      { "decode slots", SERVE_REQUESTS },
		      { "network bandwidth", SERVE_TP } };
	/* the lengths past the context: the output distribution's when given */
	if (strstr(err, "context") && params_has(v, SERVE_OSL_DIST))
		return params_where(v, SERVE_OSL_DIST);
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strstr(err, words[i].word))
			return params_where(v, words[i].param);
	return NULL;
}

static int simulate(struct serve_run *r, const struct param_values *v, struct app_status *st)
{
	char err[600];
	r->in.timeline_capacity = params_has(v, SERVE_SVG) ? SERVE_VIEW_SAMPLES : 0;
	size_t bytes = serve_sim_workspace_bytes(&r->in, err, sizeof err);
	void *workspace = bytes ? malloc(bytes) : NULL;
	if (r->in.timeline_capacity > 0)
		r->samples = calloc((size_t)r->in.timeline_capacity, sizeof *r->samples);
	int rc = -1;
	if (bytes && (!workspace || (r->in.timeline_capacity > 0 && !r->samples)))
		snprintf(err, sizeof err, "out of memory for the simulation (%zu bytes)", bytes);
	else if (bytes)
		rc = serve_sim_run(&r->in, workspace, bytes, r->samples, &r->result, err, sizeof err);
	free(workspace);
	if (rc == 1) {
		app_error(st, "%s", err); /* a finding: exit 1 */
		return EXIT_PROBLEM;
	}
	if (rc != 0) {
		const char *flag = error_flag(v, err);
		if (flag)
			app_error_flag(st, flag, "%s", err);
		else
			app_error(st, "%s", err);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int serve_command(FILE *out, const struct param_values *v, const struct ridge_gpu *gpu, cJSON **json,
		  struct app_status *st)
{
	struct serve_run *r = calloc(1, sizeof *r);
	if (!r) {
		app_error_env(st, "out of memory");
		return EXIT_ENV;
	}
	int rc = read_request(r, v, gpu, st) ? EXIT_USAGE : simulate(r, v, st);
	if (rc == EXIT_OK) {
		cJSON *doc = serve_view_json(&r->in, &r->result, r->model_path);
		const char *svg = params_text(v, SERVE_SVG);
		if (!doc) {
			app_error_env(st, "out of memory");
			rc = EXIT_ENV;
		} else if (svg && serve_view_svg(svg, &r->in, &r->result, r->samples, st) != 0) {
			rc = EXIT_ENV;
		} else if (params_flag(v, SERVE_JSON)) {
			if (svg)
				cJSON_AddStringToObject(doc, "svg", svg);
			*json = doc;
			doc = NULL;
		} else {
			serve_view_print(out, doc);
			if (svg)
				fprintf(out, "\nwrote %s\n", svg);
			rc = fflush(out) == 0 ? EXIT_OK : EXIT_ENV;
		}
		cJSON_Delete(doc);
	}
	free(r->samples);
	free(r->lengths);
	free(r->osl_lengths);
	free(r);
	return rc;
}
