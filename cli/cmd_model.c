/* ridge model FILE [--tokens T] [--kv-dtype DT] [--json]: what ridge
 * understood of a model config (app/read/model_config.c reads it, model/workload.c
 * does the arithmetic): parameters total and active, every weight GEMM of a
 * layer with M x N x K, KV bytes per token, the kernels of a layer. The
 * options are here; the document and its printer are app/view/model_view.c. */

#include "calc.h"
#include "cli.h"
#include "model_family.h"
#include "model_view.h"
#include "params.h"

static int run_model(int argc, char **argv)
{
	struct param_values v;
	int rc;
	if (params_parse(&v, &model_params_command, argc, argv, &rc) < 0)
		return rc;
	if (params_flag(&v, MODEL_FAMILIES)) {
		static char table[16384];
		app_model_family_table(table, sizeof table);
		fputs(table, stdout);
		return EXIT_OK;
	}
	if (v.operand_count < 1) {
		cli_error("model needs a config file: ridge model FILE (see 'ridge model --help')");
		return EXIT_USAGE;
	}
	const char *kv_name = params_has(&v, MODEL_KV_DTYPE) ? params_text(&v, MODEL_KV_DTYPE) : "bf16";
	double tokens = params_has(&v, MODEL_TOKENS) ? params_num(&v, MODEL_TOKENS) : 1;
	const char *assume = params_has(&v, MODEL_ASSUME_FAMILY) ? params_text(&v, MODEL_ASSUME_FAMILY) : NULL;
	struct app_status st;
	app_status_init(&st);
	if (assume && !app_model_assume_ok(assume, &st))
		return cli_report(&st);
	cJSON *doc = model_view_document(v.operands[0], assume, tokens, kv_name, &st);
	rc = cli_report(&st);
	if (!doc)
		return rc;
	if (params_flag(&v, MODEL_JSON))
		return cli_json_print(doc);
	model_view_print(stdout, doc);
	cJSON_Delete(doc);
	return EXIT_OK;
}

const struct cli_command cli_cmd_model = {
	"model", run_model, "what ridge reads from a model config: parameters, GEMMs, KV cache, kernels"
};
