/* Alignment panel: model/align's rule and check for each dimension typed, or
 * for every GEMM of a model config (the findings `ridge align` reports, named
 * the same way: dim1.. or name=value, <gemm>.N / <gemm>.K, attention.head_dim). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panels.h"

static int add_finding(struct tui_align_results *r, const char *name, long long value, char *err, size_t err_len)
{
	if (r->count >= TUI_ALIGN_MAX) {
		snprintf(err, err_len, "more than %d dimensions", TUI_ALIGN_MAX);
		return -1;
	}
	struct tui_align_finding *f = &r->findings[r->count];
	memset(f, 0, sizeof *f);
	snprintf(f->name, sizeof f->name, "%s", name);
	char why[TUI_TEXT];
	if (align_check_dim(&r->rule, value, &f->dim, why, sizeof why) != 0) {
		snprintf(err, err_len, "%s: %s", name, why);
		return -1;
	}
	r->count++;
	if (f->dim.severity == RIDGE_ALIGN_ERROR)
		r->errors++;
	else if (f->dim.severity == RIDGE_ALIGN_WARNING)
		r->warnings++;
	return 0;
}

/* "4096,11008" or "d_model=6000,ffn=21845", as `ridge align --dims` takes. */
static int collect_dims(const char *list, struct tui_align_results *r, char *err, size_t err_len)
{
	char copy[TUI_TEXT];
	snprintf(copy, sizeof copy, "%s", list);
	char *item = copy;
	for (int index = 1;; index++) {
		char *comma = strchr(item, ',');
		if (comma)
			*comma = '\0';
		while (*item == ' ')
			item++;
		if (!*item) {
			snprintf(err, err_len, "empty item %d in '%s'", index, list);
			return -1;
		}
		char name[64];
		const char *value_text = item;
		char *eq = strchr(item, '=');
		if (eq) {
			*eq = '\0';
			value_text = eq + 1;
			snprintf(name, sizeof name, "%s", item);
		} else {
			snprintf(name, sizeof name, "dim%d", index);
		}
		double value;
		char why[TUI_TEXT];
		if (ridge_quantity_parse(value_text, RIDGE_UNIT_COUNT, &value, why, sizeof why) != 0) {
			snprintf(err, err_len, "%s: %s", name, why);
			return -1;
		}
		if (value != (double)(long long)value || value < 1 || value > (double)RIDGE_ALIGN_MAX_DIM) {
			snprintf(err, err_len, "%s: '%s' is not a whole number in 1..%lld", name, value_text,
				 RIDGE_ALIGN_MAX_DIM);
			return -1;
		}
		if (add_finding(r, name, (long long)value, err, err_len) != 0)
			return -1;
		if (!comma)
			return 0;
		item = comma + 1;
	}
}

static int collect_model(const struct tui_model_config *config, long long tokens, struct tui_align_results *r,
			 char *err, size_t err_len)
{
	struct ridge_align_model model = config->model;
	struct ridge_align_gemm gemms[RIDGE_GEMM_COUNT];
	char why[TUI_TEXT];
	if (align_model_resolve(&model, why, sizeof why) != 0) {
		snprintf(err, err_len, "%s: %s", config->path, why);
		return -1;
	}
	if (align_model_gemms(&model, tokens, gemms, why, sizeof why) != 0) {
		snprintf(err, err_len, "tokens: %s", why);
		return -1;
	}
	r->model_mode = true;
	for (int g = 0; g < RIDGE_GEMM_COUNT; g++) {
		char name[64];
		snprintf(name, sizeof name, "%s.N", gemms[g].name);
		if (add_finding(r, name, gemms[g].n, err, err_len) != 0)
			return -1;
		snprintf(name, sizeof name, "%s.K", gemms[g].name);
		if (add_finding(r, name, gemms[g].k, err, err_len) != 0)
			return -1;
		for (int i = r->count - 2; i < r->count; i++) {
			r->findings[i].has_gemm = true;
			r->findings[i].gemm_m = gemms[g].m;
			r->findings[i].gemm_n = gemms[g].n;
			r->findings[i].gemm_k = gemms[g].k;
		}
	}
	return add_finding(r, "attention.head_dim", model.head_dim, err, err_len);
}

void tui_compute_align(struct tui_state *s)
{
	struct tui_align_results *r = &s->out.align;
	const struct ridge_gpu *gpu = tui_state_gpu(s);
	memset(r, 0, sizeof *r);
	if (!gpu) {
		snprintf(r->error, sizeof r->error, "no GPU selected");
		return;
	}
	char err[TUI_TEXT];
	if (align_rule(gpu, (enum ridge_dtype)s->in.align_dtype, &r->rule, err, sizeof err) != 0) {
		snprintf(r->error, sizeof r->error, "%s", err);
		return;
	}
	int rc;
	if (s->in.align_model[0]) {
		if (!s->model_config.loaded || strcmp(s->model_config.path, s->in.align_model) != 0) {
			snprintf(r->error, sizeof r->error, "model config '%s' is not loaded", s->in.align_model);
			return;
		}
		rc = collect_model(&s->model_config, (long long)s->in.align_tokens, r, err, sizeof err);
	} else {
		rc = collect_dims(s->in.align_dims, r, err, sizeof err);
	}
	if (rc != 0) {
		snprintf(r->error, sizeof r->error, "%s", err);
		return;
	}
	r->ok = true;
}
