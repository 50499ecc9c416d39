/* Alignment panel: `ridge align`'s computation (app/calc/align_findings.c) on the
 * panel's inputs, for the dimensions typed or every GEMM of a model config:
 * the findings the command and `ridge eval` report, named the same way (dim1..
 * or name=value, <gemm>.N / <gemm>.K, attention.head_dim). */
#include <stdio.h>
#include <string.h>

#include "panels.h"

void tui_compute_align(struct tui_state *s)
{
	struct tui_align_results *r = &s->out.align;
	const struct ridge_gpu *gpu = tui_state_gpu(s);
	r->ok = false;
	r->error[0] = '\0';
	if (!gpu) {
		memset(&r->run, 0, sizeof r->run);
		snprintf(r->error, sizeof r->error, "no GPU selected");
		return;
	}
	struct align_settings set;
	align_settings_default(&set);
	set.dtype = (enum ridge_dtype)s->in.align_dtype;
	set.tokens = (long long)s->in.align_tokens;
	char err[TUI_TEXT];
	int rc = align_run_start(&r->run, gpu, &set, err, sizeof err);
	if (rc == 0 && s->in.align_model[0]) {
		if (!s->model_config.loaded || strcmp(s->model_config.path, s->in.align_model) != 0) {
			snprintf(r->error, sizeof r->error, "model config '%s' is not loaded", s->in.align_model);
			return;
		}
		rc = align_run_model(&r->run, &s->model_config.config, s->model_config.path, err, sizeof err);
	} else if (rc == 0) {
		rc = align_run_dims(&r->run, s->in.align_dims, "dims", err, sizeof err);
	}
	if (rc != 0) {
		snprintf(r->error, sizeof r->error, "%s", err);
		return;
	}
	r->ok = true;
}
