/* ridge serve's views (serve_view.c): the --json document, the text printed
 * from it, and the --svg timeline of the batch, the queue, the KV cache and
 * the iteration time. */
#ifndef RIDGE_SERVE_VIEW_H
#define RIDGE_SERVE_VIEW_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "serve_sim.h"

/* Iteration samples the timeline keeps (model/serve_sim.h thins them evenly). */
#define SERVE_VIEW_SAMPLES 1024

/* The document: the fixed top-level keys (docs/serve.md), the inputs, the
 * engine with its sources, memory, iterations and where the time went. */
cJSON *serve_view_json(const struct ridge_serve_sim_input *in, const struct ridge_serve_sim_result *r,
		       const char *model_path);
void serve_view_print(FILE *out, const cJSON *doc);
/* parent.key: how far the engine's TPOT and TTFT held on held-out published
 * runs (validation/README.md; serve_latency_check.py --check keeps it true);
 * NULL for an unknown engine or out of memory. */
cJSON *serve_view_validation(cJSON *parent, const char *key, enum ridge_engine_kind kind);
/* The text line of one such object. */
void serve_view_print_trust(FILE *out, const char *engine, const cJSON *validation);
struct app_status;
int serve_view_svg(const char *path, const struct ridge_serve_sim_input *in, const struct ridge_serve_sim_result *r,
		   const struct ridge_serve_sim_sample *samples, struct app_status *st);

#endif
