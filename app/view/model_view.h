/* ridge model (model_view.c): what ridge understood of a model config, as
 * one JSON document and its human printer. */
#ifndef RIDGE_MODEL_VIEW_H
#define RIDGE_MODEL_VIEW_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "status.h"

/* Reads the config at path and describes it: the architecture, the
 * parameters, every weight GEMM of a layer for tokens tokens, the KV-cache
 * bytes per token in kv_name storage (--kv-dtype) and the kernels of a
 * layer. Returns the document (the front end prints or frees it), or NULL
 * with the error in st; the config's warnings are in st after a success. */
cJSON *model_view_document(const char *path, double tokens, const char *kv_name, struct app_status *st);

/* The document as text on out. */
void model_view_print(FILE *out, const cJSON *d);

#endif
