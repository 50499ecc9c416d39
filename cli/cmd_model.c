/* ridge model FILE [--tokens T] [--kv-dtype DT] [--json]: what ridge
 * understood of a model config (app/read/model_config.c reads it, model/workload.c
 * does the arithmetic): parameters total and active, every weight GEMM of a
 * layer with M x N x K, KV bytes per token, the kernels of a layer. The
 * options are here; the document and its printer are app/view/model_view.c. */

#include "calc.h"
#include "cli.h"
#include "model_view.h"
#include "params.h"

static const char synopsis[] = "usage: ridge model FILE [--tokens T] [--kv-dtype DT] [--json]";
static const char description[] =
	"Reads a Hugging Face config.json (or the same keys in YAML) and prints what ridge understood:\n"
	"the architecture (dense, GQA/MQA, sliding window, MoE routed and shared experts, MLA), the\n"
	"parameters (total; active per token), every weight GEMM of a layer as M x N x K for T tokens\n"
	"(an expert GEMM sees T x k / E of them), the KV-cache bytes per token and the kernels one\n"
	"layer launches. Keys it cannot interpret are named in warnings.\n";

static const struct param model_params[] = {
	{ "tokens", PARAM_INTEGER, 0, NULL, 1, 1e12, 0, "T",
	  "tokens through the GEMMs (M; default 1: decode at batch 1)", NULL, NULL },
	{ "kv_dtype", PARAM_TEXT, 0, NULL, 0, 0, 0, "DT", "KV-cache storage for the bytes per token (default bf16)",
	  NULL, NULL },
	CALC_JSON_PARAM,
};
#define MODEL_PARAM_COUNT (int)(sizeof model_params / sizeof model_params[0])

static int run_model(int argc, char **argv)
{
	struct param_values v;
	const char *files[1];
	int rc = params_parse_files(&v, model_params, MODEL_PARAM_COUNT, "model", synopsis, description, argc, argv,
				    files, 1, "model needs a config file: ridge model FILE (see 'ridge model --help')");
	if (rc != 0)
		return rc == 1 ? EXIT_OK : rc;
	const char *kv_name = params_text(&v, "kv_dtype") ? params_text(&v, "kv_dtype") : "bf16";
	double tokens = params_has(&v, "tokens") ? params_num(&v, "tokens") : 1;
	struct app_status st;
	app_status_init(&st);
	cJSON *doc = model_view_document(files[0], tokens, kv_name, &st);
	rc = cli_report(&st);
	if (!doc)
		return rc;
	if (params_flag(&v, "json"))
		return cli_json_print(doc);
	model_view_print(stdout, doc);
	cJSON_Delete(doc);
	return EXIT_OK;
}

const struct cli_command cli_cmd_model = {
	"model", run_model, "what ridge reads from a model config: parameters, GEMMs, KV cache, kernels"
};
