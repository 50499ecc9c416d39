/* Cost panel: model/cost's training comparison (cost, savings, ROI) and
 * decode (TPOT, tokens/s, $ per million tokens) on the chosen GPU. */
#include <stdio.h>
#include <string.h>

#include "cost_calc.h"
#include "panels.h"

/* The rate a cost is priced at, `ridge cost`'s lookup: the given peak, else
 * the dtype's hwdb rate. Returns 0, or -1 with err (the GPU has neither). */
static int peak_rate(const struct ridge_gpu *gpu, int dtype, double given, double *peak, char *err, size_t err_len)
{
	struct cost_peak pk;
	if (cost_peak_lookup(gpu, (enum ridge_dtype)dtype, given, &pk) != 0) {
		snprintf(err, err_len, "%s on %s: %s", ridge_dtype_name((enum ridge_dtype)dtype), gpu->id, pk.why);
		return -1;
	}
	*peak = pk.peak;
	return 0;
}

int tui_train_input(const struct tui_inputs *in, const struct ridge_gpu *gpu, struct ridge_train_input *t, char *err,
		    size_t err_len)
{
	memset(t, 0, sizeof *t);
	if (peak_rate(gpu, in->train_dtype, in->train_peak, &t->peak_flops, err, err_len) != 0)
		return -1;
	t->params = in->train_params;
	t->seq = in->train_seq;
	t->batch = in->train_batch;
	t->steps = in->train_steps;
	t->gpus = in->train_gpus;
	t->mfu = in->train_mfu;
	t->price_usd_per_gpu_hour = in->train_price;
	t->formula = in->train_formula ? RIDGE_FLOPS_PALM : RIDGE_FLOPS_6N;
	if (t->formula == RIDGE_FLOPS_PALM) {
		t->layers = in->train_layers;
		t->heads = in->train_heads;
		t->head_dim = in->train_head_dim;
		t->causal = in->train_causal != 0;
	}
	return 0;
}

int tui_decode_input(const struct tui_inputs *in, const struct ridge_gpu *gpu, struct ridge_decode_input *d, char *err,
		     size_t err_len)
{
	memset(d, 0, sizeof *d);
	if (peak_rate(gpu, in->decode_dtype, in->decode_peak, &d->peak_flops, err, err_len) != 0)
		return -1;
	const struct tui_field *w = tui_field_find_in(TUI_PANEL_COST, "weight_dtype");
	const struct tui_field *kv = tui_field_find_in(TUI_PANEL_COST, "kv_dtype");
	if (!cost_storage_bytes(w->choices[in->decode_weight_dtype], &d->weight_bytes) ||
	    !cost_storage_bytes(kv->choices[in->decode_kv_dtype], &d->kv_bytes)) {
		snprintf(err, err_len, "unknown storage type (known: %s)", cost_storage_list());
		return -1;
	}
	d->params = in->decode_params;
	d->layers = in->decode_layers;
	d->kv_heads = in->decode_kv_heads;
	d->head_dim = in->decode_head_dim;
	d->context = in->decode_context;
	d->batch = in->decode_batch;
	d->gpus = in->decode_gpus;
	d->bandwidth = gpu->memory_bandwidth;
	d->memory_bytes = ridge_gpu_usable_memory(gpu);
	d->price_usd_per_gpu_hour = in->decode_price;
	d->overhead_s = in->decode_overhead;
	return 0;
}

void tui_compute_cost(struct tui_state *s)
{
	struct tui_cost_results *r = &s->out.cost;
	const struct ridge_gpu *gpu = tui_panel_gpu(s, r, sizeof *r, r->error, sizeof r->error);
	if (!gpu)
		return;
	char err[TUI_TEXT];
	if (s->in.cost_mode == TUI_COST_TRAIN) {
		struct ridge_train_input t;
		/* `ridge cost train`'s sequence: without a target only the current run. */
		r->has_target = s->in.train_target_mfu > 0;
		bool has_investment = s->in.train_investment > 0;
		if (tui_train_input(&s->in, gpu, &t, err, sizeof err) != 0 ||
		    cost_train_run(&t, r->has_target, s->in.train_target_mfu, has_investment, s->in.train_investment,
				   &r->train, NULL, err, sizeof err) != 0) {
			snprintf(r->error, sizeof r->error, "%s", err);
			return;
		}
	} else {
		struct ridge_decode_input d;
		if (tui_decode_input(&s->in, gpu, &d, err, sizeof err) != 0 ||
		    cost_decode(&d, &r->decode, NULL, err, sizeof err) != 0) {
			snprintf(r->error, sizeof r->error, "%s", err);
			return;
		}
	}
	r->ok = true;
}
