/* ridge plan: the cheapest serving configurations that meet a TPOT and a TTFT
 * limit (model/plan.h): GPU type x count (tensor parallel) x batch x weight
 * dtype x launch mode, ranked by $ per million output tokens; --svg draws the
 * cost-latency Pareto front. Exit 1 when no configuration meets the limits.
 * The options are here; the search and its views are app/calc/plan_calc.c. */
#include <stdlib.h>

#include "calc.h"
#include "cli.h"
#include "plan_calc.h"

static const struct param plan_params[] = {
	{ "model", PARAM_TEXT, 0, NULL, 0, 0, PARAM_REQUIRED, "FILE", "model config (Hugging Face config.json or YAML)",
	  NULL, NULL },
	{ "tpot", PARAM_NUMBER, RIDGE_UNIT_SECONDS, NULL, 0, 3600, PARAM_REQUIRED | PARAM_OPEN_LO, "T",
	  "time per output token limit (50ms)", "greater than 0, at most 3600 s", NULL },
	{ "ttft", PARAM_NUMBER, RIDGE_UNIT_SECONDS, NULL, 0, 3600, PARAM_REQUIRED | PARAM_OPEN_LO, "T",
	  "time to first token limit (2s)", "greater than 0, at most 3600 s", NULL },
	{ "context", PARAM_INTEGER, 0, NULL, 1, 1e9, PARAM_REQUIRED, "C",
	  "tokens per request: prompt and KV cache (8k)", NULL, NULL },
	{ "gpu", PARAM_TEXT, 0, NULL, 0, 0, 0, "GPU,...", "GPU types to consider (default " APP_DEFAULT_GPU ")", NULL,
	  NULL },
	{ "price", PARAM_TEXT, 0, NULL, 0, 0, 0, "GPU=USD,...", "USD per GPU-hour for a GPU (default: its hwdb price)",
	  NULL, NULL },
	{ "weight_dtype", PARAM_TEXT, 0, NULL, 0, 0, 0, "DT,...", "weight storage types to consider (default bf16)",
	  NULL, NULL },
	{ "kv_dtype", PARAM_TEXT, 0, NULL, 0, 0, 0, "DT", "KV-cache storage (default bf16)", NULL, NULL },
	{ "kernels_per_layer", PARAM_INTEGER, 0, NULL, 1, 1e6, 0, "K",
	  "kernel launches per layer per step (default: the modelled kernel sequence, as ridge cost decode --model)",
	  NULL, NULL },
	{ "max_batch", PARAM_INTEGER, 0, NULL, 1, 65536, 0, "B", "largest batch tried: 1, 2, 4 ... (default 256)", NULL,
	  NULL },
	{ "max_gpus", PARAM_INTEGER, 0, NULL, 1, 1024, 0, "N", "most GPUs per replica: 1, 2, 4 ... (default 8)", NULL,
	  NULL },
	{ "top", PARAM_INTEGER, 0, NULL, 1, 1000, 0, "N", "configurations printed (default 5)", NULL, NULL },
	{ "svg", PARAM_TEXT, 0, NULL, 0, 0, 0, "FILE", "write the cost-latency Pareto front", NULL, NULL },
	{ "hwdb", PARAM_TEXT, 0, NULL, 0, 0, 0, "DIR", "also load the hwdb entries in DIR", NULL, NULL },
	{ "calibration", PARAM_TEXT, 0, NULL, 0, 0, 0, "FILE", "a ridge-probe calibration (measured ceilings)", NULL,
	  NULL },
	CALC_JSON_PARAM,
};

static const char synopsis[] =
	"usage: ridge plan --model FILE --tpot T --ttft T --context C [--gpu GPU,...] [--price GPU=USD,...]\n"
	"                  [--weight-dtype DT,...] [--kv-dtype DT] [--top N] [--svg FILE] [--json]";
static const char description[] =
	"Searches GPU type x GPU count (= tensor parallel) x batch x weight dtype x launch mode (eager,\n"
	"CUDA graph, persistent) for the configurations that fit in memory and meet the TPOT and TTFT limits, and\n"
	"ranks them by $ per million output tokens (then tokens/s per GPU). Each is priced as ridge cost\n"
	"decode --model and ridge cost prefill price it (every kernel, launches by mode) with ridge comm's\n"
	"tensor-parallel all-reduces; TTFT is the prefill of one request of --context tokens. Exit 1 when\n"
	"none meets the limits (the nearest are shown).\n";

static int run_plan(int argc, char **argv)
{
	struct param_values v;
	params_init(&v, plan_params, sizeof plan_params / sizeof plan_params[0]);
	int rc = params_parse_required(&v, "plan", synopsis, description, NULL, argc, argv);
	if (rc == 1)
		return EXIT_OK;
	if (rc != 0)
		return rc;
	struct app_status st;
	app_status_init(&st);
	cJSON *json = NULL;
	rc = plan_command(stdout, &v, &json, &st);
	int reported = cli_report(&st);
	if (rc < 0)
		return reported;
	if (json) {
		int printed = cli_json_print(json);
		return printed != EXIT_OK ? printed : rc;
	}
	return rc;
}

const struct cli_command cli_cmd_plan = { "plan", run_plan, "cheapest GPUs, TP and batch that meet a TPOT/TTFT limit" };
