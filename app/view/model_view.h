/* ridge model (model_view.c): what ridge understood of a model config, as
 * one JSON document and its human printer. */
#ifndef RIDGE_MODEL_VIEW_H
#define RIDGE_MODEL_VIEW_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "calc.h"
#include "params.h"
#include "status.h"

/* Reads the config at path and describes it: the architecture, the
 * parameters, every weight GEMM of a layer for tokens tokens, the KV-cache
 * bytes per token in kv_name storage (--kv-dtype) and the kernels of a
 * layer. Returns the document (the front end prints or frees it), or NULL
 * with the error in st; the config's warnings are in st after a success. */
cJSON *model_view_document(const char *path, const char *assume, double tokens, const char *kv_name,
			   struct app_status *st);

/* The document as text on out. */
void model_view_print(FILE *out, const cJSON *d);

/* ridge model FILE's options (the command: model_view.c). */
#define MODEL_VIEW_PARAMS(X)                                                                                 \
	X(MODEL_TOKENS, PARAM_INT("tokens", 1, PARAM_TOKENS_MAX, .metavar = "T",                             \
				  .help = "tokens through the GEMMs (M; default 1: decode at batch 1)"))     \
	X(MODEL_KV_DTYPE, PARAM_TEXT_ROW("kv_dtype", .metavar = "DT",                                        \
					 .help = "KV-cache storage for the bytes per token (default bf16)")) \
	X(MODEL_ASSUME_FAMILY, PARAM_TEXT_ROW("assume_family", .metavar = "TYPE",                            \
					      .help = "read as this family knowingly (llama): a hybrid or "  \
						      "unknown architecture ridge would refuse"))            \
	X(MODEL_FAMILIES,                                                                                    \
	  PARAM_FLAG_ROW("families", .help = "print the families ridge reads and refuses (Markdown) and "    \
					     "exit"))                                                        \
	X(MODEL_JSON, CALC_JSON_ROW)
PARAMS_ENUM(model_view_params, MODEL_VIEW_PARAMS);
extern const struct params_command model_params_command;

#endif
