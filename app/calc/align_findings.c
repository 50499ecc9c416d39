#include "align_findings.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "status.h"

void align_settings_default(struct align_settings *set)
{
	memset(set, 0, sizeof *set);
	set->dtype = RIDGE_BF16;
	set->tokens = ALIGN_DEFAULT_TOKENS;
	set->tile = (struct ridge_align_tile){ 128, 128, 1 };
}

int align_run_start(struct align_run *run, const struct ridge_gpu *gpu, const struct align_settings *set, char *err,
		    size_t err_len)
{
	memset(run, 0, sizeof *run);
	run->set = *set;
	run->gpu = gpu;
	return align_rule(gpu, set->dtype, &run->rule, err, err_len);
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
			snprintf(buf, len, "a multiple of %lld (%d bytes) but not of %lld (%d bytes)",
				 r->required_multiple, r->required_bytes, r->recommended_multiple,
				 r->recommended_bytes);
		else
			snprintf(buf, len, "a multiple of %lld (%d bytes of %s)", r->recommended_multiple,
				 r->recommended_bytes, dt);
		return;
	}
	bool amd = run->gpu->vendor == RIDGE_VENDOR_AMD;
	switch (d->severity) {
	case RIDGE_ALIGN_ERROR:
		if (r->alignment_required) {
			snprintf(buf, len,
				 "not a multiple of %lld (%d bytes of %s): required: cuBLAS has no %s kernel off the "
				 "16-byte conditions (no slower fallback); pad to %lld",
				 r->required_multiple, r->required_bytes, dt, dt, d->suggested);
			break;
		}
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

static int add_finding(struct align_run *run, const char *name, const char *from, int gemm, long long value,
		       const char *where, char *err, size_t err_len)
{
	if (run->count >= ALIGN_MAX_FINDINGS)
		return app_fail_text(err, err_len, "%s: more than %d dimensions", where, ALIGN_MAX_DIMS);
	struct align_finding *f = &run->findings[run->count];
	memset(f, 0, sizeof *f);
	snprintf(f->name, sizeof f->name, "%s", name);
	f->from = from;
	f->gemm = gemm;
	char why[300];
	if (align_check_dim(&run->rule, value, &f->dim, why, sizeof why) != 0)
		return app_fail_text(err, err_len, "%s: %s", name, why);
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
		      bool config_has_multiple, long long config_multiple, char *err, size_t err_len)
{
	const struct align_settings *o = &run->set;
	bool has_mult = o->has_multiplier || config_has_mult;
	double mult = o->has_multiplier ? o->multiplier : config_mult;
	long long multiple = o->has_multiple_of    ? o->multiple_of
			     : config_has_multiple ? config_multiple
						   : ALIGN_DEFAULT_MULTIPLE_OF;
	char why[300];
	if (align_swiglu(d_model, has_mult, mult, multiple, &run->swiglu, why, sizeof why) != 0)
		return app_fail_text(err, err_len, "SwiGLU size: %s", why);
	run->has_swiglu = true;
	return 0;
}

/* A whole number in 1..RIDGE_ALIGN_MAX_DIM, with app_parse_int's messages. */
static int parse_dim(const char *where, const char *text, long long *out, char *err, size_t err_len)
{
	double v;
	char why[200];
	if (ridge_quantity_parse(text, RIDGE_UNIT_COUNT, &v, why, sizeof why) != 0)
		return app_fail_text(err, err_len, "%s: %s", where, why);
	if (v != floor(v))
		return app_fail_text(err, err_len, "%s: must be a whole number, not '%s'", where, text);
	if (v < 1 || v > (double)RIDGE_ALIGN_MAX_DIM)
		return app_fail_text(err, err_len, "%s: '%s' is out of range (1..%lld)", where, text,
				     RIDGE_ALIGN_MAX_DIM);
	*out = (long long)v;
	return 0;
}

static int collect_dims(struct align_run *run, char *copy, const char *list, const char *where, char *err,
			size_t err_len)
{
	char *item = copy;
	long long d_model = 0;
	for (int index = 1;; index++) {
		char *comma = strchr(item, ',');
		if (comma)
			*comma = '\0';
		while (*item == ' ')
			item++;
		if (*item == '\0')
			return app_fail_text(err, err_len, "%s: empty item %d in '%s'", where, index, list);
		char name[64], item_where[600];
		const char *value_text = item;
		char *eq = strchr(item, '=');
		if (eq) {
			*eq = '\0';
			value_text = eq + 1;
			size_t n = strlen(item);
			while (n > 0 && item[n - 1] == ' ')
				item[--n] = '\0';
			bool ok = n > 0 && n < 48;
			for (size_t i = 0; ok && i < n; i++)
				ok = isalnum((unsigned char)item[i]) || strchr("_.-", item[i]);
			if (!ok)
				return app_fail_text(err, err_len,
						     "%s: bad name '%s' in '%s' (letters, digits, _ . - ; up to 47)",
						     where, item, list);
			snprintf(name, sizeof name, "%s", item);
			snprintf(item_where, sizeof item_where, "%s %s", where, item);
		} else {
			snprintf(name, sizeof name, "dim%d", index);
			snprintf(item_where, sizeof item_where, "%s", where);
		}
		long long value = 0;
		if (parse_dim(item_where, value_text, &value, err, err_len) != 0)
			return -1;
		if (add_finding(run, name, NULL, -1, value, where, err, err_len) != 0)
			return -1;
		struct align_finding *f = &run->findings[run->count - 1];
		char why[300];
		if (align_tiling(run->set.tokens, value, &run->set.tile, run->gpu->sm_count, &f->tiling, why,
				 sizeof why) != 0)
			return app_fail_text(err, err_len, "%s: %s", name, why);
		f->has_tiling = true;
		if (eq && d_model == 0 && name_in(name, d_model_names))
			d_model = value;
		if (!comma)
			break;
		item = comma + 1;
	}
	if (d_model > 0) {
		bool any = false;
		for (int i = 0; i < run->count; i++) {
			if (name_in(run->findings[i].name, ffn_names)) {
				run->findings[i].has_swiglu = true;
				any = true;
			}
		}
		if (any && swiglu_for(run, d_model, false, 0, false, 0, err, err_len) != 0)
			return -1;
	}
	return 0;
}

int align_run_dims(struct align_run *run, const char *list, const char *where, char *err, size_t err_len)
{
	size_t len = strlen(list);
	char *copy = malloc(len + 1);
	if (!copy)
		return app_fail_text(err, err_len, "out of memory");
	memcpy(copy, list, len + 1);
	int rc = collect_dims(run, copy, list, where, err, err_len);
	free(copy);
	return rc;
}

/* The workload model of a config: read from the file, or, for the shape
 * keys of a scenario item (no workload filled), the dense decoder they give. */
static int config_workload(const struct app_model_config *config, struct ridge_workload_model *w, char *err,
			   size_t err_len)
{
	if (config->workload.hidden > 0) {
		*w = config->workload;
		return workload_resolve(w, err, err_len);
	}
	const struct ridge_align_model *m = &config->model;
	*w = (struct ridge_workload_model){ 0 };
	w->hidden = m->hidden_size;
	w->intermediate = m->intermediate_size;
	w->layers = m->num_hidden_layers;
	w->heads = m->num_attention_heads;
	w->kv_heads = m->has_num_key_value_heads ? m->num_key_value_heads : 0;
	w->head_dim = m->has_head_dim ? m->head_dim : 0;
	w->vocab = m->vocab_size;
	return workload_resolve(w, err, err_len);
}

int align_run_model(struct align_run *run, const struct app_model_config *config, const char *label, char *err,
		    size_t err_len)
{
	run->model = config->model;
	char why[400];
	if (align_model_resolve(&run->model, why, sizeof why) != 0 ||
	    config_workload(config, &run->workload, why, sizeof why))
		return app_fail_text(err, err_len, "%s: %s", label, why);
	const struct ridge_workload_model *w = &run->workload;
	run->model.num_key_value_heads = w->kv_heads;
	run->model.head_dim = workload_qk_head_dim(w);
	struct ridge_workload_gemm wg[RIDGE_WORKLOAD_MAX_GEMMS];
	int n = workload_gemms(w, (double)run->set.tokens, wg, why, sizeof why);
	if (n < 0)
		return app_fail_text(err, err_len, "%s: %s", run->set.tokens_where ? run->set.tokens_where : "tokens",
				     why);
	run->model_mode = true;
	run->gemm_count = n;
	snprintf(run->model_type, sizeof run->model_type, "%s", config->model_type);
	const struct app_model_family *family = app_model_family(config->model_type);
	run->swiglu_applies = (family && family->swiglu_rule) || config->has_multiple_of ||
			      config->has_ffn_dim_multiplier || run->set.has_multiple_of || run->set.has_multiplier;
	if (swiglu_for(run, run->model.hidden_size, config->has_ffn_dim_multiplier, config->ffn_dim_multiplier,
		       config->has_multiple_of, config->multiple_of, err, err_len) != 0)
		return -1;
	for (int g = 0; g < n; g++) {
		struct ridge_align_gemm *gemm = &run->gemms[g];
		/* An expert's rows: the average tokens x k / E, rounded up to whole rows. */
		*gemm = (struct ridge_align_gemm){ wg[g].name,
						   wg[g].n_from,
						   wg[g].k_from,
						   (long long)ceil(wg[g].m),
						   wg[g].n,
						   wg[g].k,
						   (long long)(wg[g].instances * wg[g].layers),
						   0 };
		gemm->flops = 2.0 * (double)gemm->m * (double)gemm->n * (double)gemm->k * (double)gemm->count;
		bool ffn_n = strstr(gemm->name, "gate_proj") || strstr(gemm->name, "up_proj");
		bool ffn_k = strstr(gemm->name, "down_proj") != NULL;
		bool swiglu_dims = !wg[g].expert && strncmp(gemm->name, "shared", 6) != 0; /* the dense MLP's */
		char name[64];
		snprintf(name, sizeof name, "%s.N", gemm->name);
		if (add_finding(run, name, gemm->n_from, g, gemm->n, label, err, err_len) != 0)
			return -1;
		run->findings[run->count - 1].has_swiglu = ffn_n && swiglu_dims;
		enum ridge_align_severity worst = run->findings[run->count - 1].dim.severity;
		snprintf(name, sizeof name, "%s.K", gemm->name);
		if (add_finding(run, name, gemm->k_from, g, gemm->k, label, err, err_len) != 0)
			return -1;
		run->findings[run->count - 1].has_swiglu = ffn_k && swiglu_dims;
		if (run->findings[run->count - 1].dim.severity > worst)
			worst = run->findings[run->count - 1].dim.severity;
		/* The per-dimension findings above are the rule's conditions seen one
		 * dimension at a time: in the linear layout every condition falls on
		 * N or K. The GEMM's verdict is the rule's. */
		if (align_gemm_rule(run->gpu, run->set.dtype, RIDGE_GEMM_LAYOUT_LINEAR, gemm->m, gemm->n, gemm->k,
				    &run->gemm_rule[g], why, sizeof why) != 0)
			return app_fail_text(err, err_len, "%s: %s", gemm->name, why);
		if (run->gemm_rule[g].severity != worst)
			return app_fail_text(err, err_len, "%s: the rule's verdict %s differs from its dimensions' %s",
					     gemm->name, align_severity_name(run->gemm_rule[g].severity),
					     align_severity_name(worst));
		run->gemm_severity[g] = run->gemm_rule[g].severity;
		if (align_tiling(gemm->m, gemm->n, &run->set.tile, run->gpu->sm_count, &run->gemm_tiling[g], why,
				 sizeof why) != 0)
			return app_fail_text(err, err_len, "%s: %s", gemm->name, why);
	}
	/* The head sizes are K of Q K^T and N of P V in attention, per head. */
	if (!w->mla)
		return add_finding(run, "attention.head_dim", "head_dim", -1, run->model.head_dim, label, err, err_len);
	if (add_finding(run, "attention.qk_head_dim", "qk_nope_head_dim + qk_rope_head_dim", -1,
			workload_qk_head_dim(w), label, err, err_len))
		return -1;
	return add_finding(run, "attention.v_head_dim", "v_head_dim", -1, w->v_head_dim, label, err, err_len);
}

double align_run_misaligned_fraction(const struct align_run *run, double *total_out)
{
	double total = 0, bad = 0;
	for (int g = 0; g < run->gemm_count; g++) {
		total += run->gemms[g].flops;
		if (run->gemm_severity[g] == RIDGE_ALIGN_ERROR)
			bad += run->gemms[g].flops;
	}
	*total_out = total;
	return bad / total;
}
