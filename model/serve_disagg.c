/* Disaggregated serving (serve_sim.h): a prefill pool and a decode pool of
 * engine instances, each the worker of serve_worker.c, joined by the KV
 * cache's transfer. A discrete-event loop over the workers' iterations and
 * the requests' moves:
 *
 *   arrival     a request joins the next prefill worker's queue (round
 *               robin, as vLLM's proxy and SGLang's mini load balancer
 *               spread requests)
 *   prefilled   its prompt's last chunk ran (and sampled a token): it is
 *               queued on the next decode worker (round robin); the prefill
 *               worker keeps its blocks until the transfer ends
 *   transfer    when the decode worker can hold the prompt's blocks (its
 *               scheduler allocates them between iterations, as vLLM's does
 *               for a remote prefill and SGLang's prealloc queue) and the
 *               prefill worker's link is free (one transfer at a time a
 *               worker: what they move shares its links)
 *   landed      the decode worker runs it: SGLang and TensorRT-LLM send the
 *               prefill's token with the cache (the first token reaches the
 *               client when the decode worker takes the request in); vLLM
 *               loads all but the last prompt token's cache and recomputes
 *               that token, sampling the first output token in the decode
 *               worker's next iteration (vllm/v1/core/sched/scheduler.py,
 *               _update_waiting_for_remote_kv)
 *
 * Each worker's iteration is priced and scheduled as in an aggregated run.
 * docs/models/serve-sim.md, "Disaggregated". */
#include "serve_sim_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "comm.h"
#include "fail.h"

enum event_kind { EVENT_ARRIVAL, EVENT_PREFILLED, EVENT_LANDED, EVENT_WORKER };

struct disagg {
	struct sim_space *sp;
	struct ridge_serve_request prefill_req, decode_req;
	int heap_n;
	long long seq;
	int next_prefill, next_decode;
	double transfer_latency_s, transfer_bandwidth, streams, bytes_per_layer_token;
	bool first_token_on_decode;
	int pending_head[64], pending_count[64], transferring[64];
	bool scheduled[64];
	double link_free[64];
};

int serve_disagg_transfer(const struct ridge_serve_request *req, double prefill_tp, double decode_tp, double prompt,
			  double gpus, double network_bandwidth, struct ridge_serve_disagg_result *out, char *err,
			  size_t err_len)
{
	const struct ridge_workload_model *m = req->model;
	struct ridge_kv_layout kv;
	if (workload_kv_layout(m, decode_tp, &kv, err, err_len))
		return -1;
	const struct ridge_interconnect *ic = &req->gpu->ic;
	double domain = ic->domain_gpus > 0 ? ic->domain_gpus : 1;
	bool local = gpus <= domain;
	double per_layer_token = kv.elements_per_token_layer_per_gpu * serve_storage_bytes(&req->kv) * decode_tp;
	out->transfer_bytes = workload_cached_layer_tokens(m, prompt) * per_layer_token;
	out->transfer_streams = fmin(prefill_tp, decode_tp);
	out->transfer_domain_gpus = domain;
	/* The KV transfer runs beside the engines' steps (its own stream): device time alone. */
	struct ridge_comm_input ci = { .op = RIDGE_SEND_RECV,
				       .gpus = local ? 2 : 2 * domain,
				       .bytes = out->transfer_bytes / out->transfer_streams,
				       .algorithm = RIDGE_ALGO_AUTO,
				       .launch = RIDGE_COMM_LAUNCH_DEVICE };
	if (!local) {
		ci.network_bandwidth = network_bandwidth > 0 ? network_bandwidth : comm_network_per_gpu(ic);
		if (!(ci.network_bandwidth > 0))
			return model_fail(err, err_len,
					  "%g GPUs span more than one fabric domain of %g and %s has no NICs in hwdb "
					  "(interconnect.nics, nic_bandwidth): the network bandwidth per GPU is needed",
					  gpus, domain, req->gpu->id);
	}
	struct ridge_comm_result r;
	if (comm_collective(req->gpu, &ci, &r, err, err_len))
		return -1;
	out->transfer_s = r.time_s;
	out->transfer_latency_s = r.alpha_s;
	out->transfer_bandwidth = r.bus_bandwidth;
	out->transfer_path = local ? "NVLink" : "network";
	return 0;
}

/* ---- the events: a binary heap by time, then kind, then order ---- */

static bool before(const struct sim_event *a, const struct sim_event *b)
{
	if (a->time != b->time)
		return a->time < b->time;
	if (a->kind != b->kind)
		return a->kind < b->kind;
	return a->seq < b->seq;
}

static void push(struct disagg *d, double time, int kind, int id)
{
	struct sim_event *h = d->sp->heap;
	int i = d->heap_n++;
	h[i] = (struct sim_event){ time, kind, id, d->seq++ };
	while (i > 0 && before(&h[i], &h[(i - 1) / 2])) {
		struct sim_event t = h[i];
		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static struct sim_event pop(struct disagg *d)
{
	struct sim_event *h = d->sp->heap, top = h[0];
	h[0] = h[--d->heap_n];
	for (int i = 0;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		if (l < d->heap_n && before(&h[l], &h[m]))
			m = l;
		if (r < d->heap_n && before(&h[r], &h[m]))
			m = r;
		if (m == i)
			break;
		struct sim_event t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
	return top;
}

/* A worker with nothing scheduled looks at its queues at `time`. */
static void wake(struct disagg *d, int worker, double time)
{
	if (d->scheduled[worker])
		return;
	d->scheduled[worker] = true;
	push(d, fmax(time, d->sp->workers[worker].now), EVENT_WORKER, worker);
}

/* ---- the moves ---- */

static void client_next(struct sim_shared *sh, double time)
{
	struct disagg *d = sh->context;
	if (sh->in->concurrency > 0 && sh->issued < sh->total)
		push(d, time, EVENT_ARRIVAL, sim_issue(sh, time));
}

static void handoff(struct sim *w, int position)
{
	struct disagg *d = w->sh->context;
	int index = w->running[position];
	struct sim_request *r = &w->sh->reqs[index];
	r->prefill_worker = w->index;
	r->prefill_blocks = r->blocks;
	r->blocks = 0;
	r->state = REQUEST_MOVING;
	r->prefill_done = w->now;
	sim_worker_remove(w, position);
	push(d, w->now, EVENT_PREFILLED, index);
}

static void arrival(struct disagg *d, const struct sim_event *e)
{
	struct sim_shared *sh = &d->sp->sh;
	int index = e->id;
	if (index < 0) { /* open loop: this Poisson arrival, and the draw of the next */
		index = sim_issue(sh, e->time);
		sim_next_arrival(sh);
		if (sh->issued < sh->total)
			push(d, sh->next_arrival, EVENT_ARRIVAL, -1);
	}
	int p = d->next_prefill;
	d->next_prefill = (p + 1) % d->sp->n_prefill;
	sim_worker_push(&d->sp->workers[p], index, false);
	wake(d, p, e->time);
}

static void prefilled(struct disagg *d, const struct sim_event *e)
{
	struct sim_space *sp = d->sp;
	int n_decode = sp->n_workers - sp->n_prefill;
	int k = d->next_decode;
	d->next_decode = (k + 1) % n_decode;
	sp->sh.reqs[e->id].decode_worker = k;
	int total = sp->sh.total;
	sp->pending[(size_t)k * (size_t)total + (size_t)((d->pending_head[k] + d->pending_count[k]) % total)] = e->id;
	d->pending_count[k]++;
	wake(d, sp->n_prefill + k, e->time);
}

static double transfer_time(const struct disagg *d, const struct sim_request *r, const struct ridge_serve_request *req)
{
	double bytes = workload_cached_layer_tokens(req->model, r->isl) * d->bytes_per_layer_token;
	return d->transfer_latency_s + bytes / d->streams / d->transfer_bandwidth;
}

/* A decode worker, between iterations, gives the requests prefilled for it
 * their blocks (first come first served, within its sequence limit) and
 * starts their transfers. */
static void start_transfers(struct disagg *d, struct sim *w)
{
	struct sim_space *sp = d->sp;
	int k = w->index, total = sp->sh.total;
	while (d->pending_count[k] > 0 && w->n_running + w->wait_count + d->transferring[k] < w->max_running) {
		int index = sp->pending[(size_t)k * (size_t)total + (size_t)d->pending_head[k]];
		struct sim_request *r = &sp->sh.reqs[index];
		double need = sim_request_blocks(w, 0, w->engine->reserve_output ? r->isl + r->osl : r->isl);
		if (need > w->free_blocks)
			return;
		w->free_blocks -= need;
		r->blocks = need;
		d->pending_head[k] = (d->pending_head[k] + 1) % total;
		d->pending_count[k]--;
		d->transferring[k]++;
		int p = r->prefill_worker;
		r->transfer_start = fmax(w->now, d->link_free[p]);
		r->transfer_end = r->transfer_start + transfer_time(d, r, &d->decode_req);
		d->link_free[p] = r->transfer_end;
		push(d, r->transfer_end, EVENT_LANDED, index);
	}
}

static void landed(struct disagg *d, const struct sim_event *e)
{
	struct sim_space *sp = d->sp;
	struct sim_shared *sh = &sp->sh;
	struct sim_request *r = &sh->reqs[e->id];
	struct sim *p = &sp->workers[r->prefill_worker];
	p->free_blocks += r->prefill_blocks;
	r->prefill_blocks = 0;
	wake(d, r->prefill_worker, e->time);
	int worker = sp->n_prefill + r->decode_worker;
	struct sim *w = &sp->workers[worker];
	d->transferring[r->decode_worker]--;
	if (d->first_token_on_decode) {
		r->computed = r->isl - 1; /* the last prompt token runs again and samples the first */
		r->generated = 0;
	} else {
		r->computed = r->isl;
		r->generated = 1;
	}
	r->target = r->isl;
	r->chunk = 0;
	r->decoding = false;
	if (r->generated >= r->osl) { /* one output token: the prefill's, and done */
		r->first_token = r->last_token = e->time;
		w->free_blocks += r->blocks;
		r->blocks = 0;
		r->state = REQUEST_DONE;
		sh->done++;
		if (r->measured)
			sim_record(sh, r, e->time);
		sh->client_next(sh, e->time);
		wake(d, worker, e->time);
		return;
	}
	sim_worker_push(w, e->id, false);
	wake(d, worker, e->time);
}

/* One iteration of a worker (a decode worker first starts the transfers it
 * has room for); it looks again when the iteration ends, or sleeps when it
 * has nothing it can run. */
static int iterate(struct disagg *d, int worker, double time)
{
	struct sim *w = &d->sp->workers[worker];
	w->now = fmax(w->now, time);
	if (w->role == SIM_DECODE)
		start_transfers(d, w);
	sim_worker_schedule(w);
	if (w->decode_n + w->prefill_tokens == 0) {
		d->scheduled[worker] = false;
		return 0;
	}
	struct iteration_cost c;
	if (sim_worker_price(w, &c))
		return -1;
	int rc = sim_stop_check(w->sh);
	if (rc)
		return rc;
	sim_worker_account(w, &c);
	w->now += c.step_s;
	sim_worker_sample(w, &c);
	sim_worker_advance(w);
	push(d, w->now, EVENT_WORKER, worker);
	return 0;
}

/* ---- the run ---- */

/* Each pool's cache, worked out on its first worker and copied to the
 * others (the same engine on the same GPUs). */
static int pool_memory(struct disagg *d, int first, int count, double longest, double longest_prompt, const char *pool)
{
	struct sim_space *sp = d->sp;
	struct sim *w0 = &sp->workers[first];
	int rc = sim_worker_memory(w0, sp->sh.in->memory_bytes, longest, longest_prompt);
	if (rc) {
		char why[512];
		snprintf(why, sizeof why, "%s", sp->sh.err);
		model_fail(sp->sh.err, sp->sh.err_len, "%s pool: %s", pool, why);
		return rc;
	}
	for (int i = first + 1; i < first + count; i++) {
		struct sim *w = &sp->workers[i];
		struct ridge_serve_sim_result *o = w->out, *o0 = w0->out;
		o->memory_bytes = o0->memory_bytes;
		o->weights_bytes = o0->weights_bytes;
		o->activation_bytes = o0->activation_bytes;
		o->kv_bytes_per_token_per_gpu = o0->kv_bytes_per_token_per_gpu;
		o->kv_cache_bytes = o0->kv_cache_bytes;
		o->kv_blocks = o0->kv_blocks;
		o->kv_tokens = o0->kv_tokens;
		w->free_blocks = w0->free_blocks;
		w->full_groups = w0->full_groups;
		w->window_groups = w0->window_groups;
		w->window = w0->window;
	}
	return 0;
}

static int setup(struct disagg *d, struct ridge_serve_sim_sample *samples, struct ridge_serve_sim_result *out)
{
	struct sim_space *sp = d->sp;
	struct sim_shared *sh = &sp->sh;
	const struct ridge_serve_sim_input *in = sh->in;
	const struct ridge_serve_disagg *dg = &in->disagg;
	d->prefill_req = in->req;
	d->prefill_req.tp = dg->prefill_tp;
	d->decode_req = in->req;
	d->decode_req.tp = dg->decode_tp;
	for (int i = 0; i < sp->n_workers; i++) {
		struct sim *w = &sp->workers[i];
		bool prefill = i < sp->n_prefill;
		w->role = prefill ? SIM_PREFILL : SIM_DECODE;
		w->req = prefill ? &d->prefill_req : &d->decode_req;
		w->index = prefill ? i : i - sp->n_prefill;
	}
	struct sim *first_decode = &sp->workers[sp->n_prefill];
	first_decode->samples = samples;
	first_decode->timeline_capacity = in->timeline_capacity;
	sh->context = d;
	sh->client_next = client_next;
	sh->handoff = handoff;
	double longest = sim_max_prompt(in);
	int rc = pool_memory(d, 0, sp->n_prefill, longest + 1, longest, "the prefill");
	if (rc == 0)
		rc = pool_memory(d, sp->n_prefill, sp->n_workers - sp->n_prefill, longest + sim_max_output(in), longest,
				 "the decode");
	if (rc)
		return rc;
	struct ridge_serve_disagg_result *res = &out->disagg;
	double gpus = dg->prefill_tp * dg->prefill_workers + dg->decode_tp * dg->decode_workers;
	if (serve_disagg_transfer(&in->req, dg->prefill_tp, dg->decode_tp, longest, gpus, dg->network_bandwidth, res,
				  sh->err, sh->err_len))
		return -1;
	struct ridge_kv_layout kv;
	if (workload_kv_layout(in->req.model, dg->decode_tp, &kv, sh->err, sh->err_len))
		return -1;
	d->bytes_per_layer_token =
		kv.elements_per_token_layer_per_gpu * serve_storage_bytes(&in->req.kv) * dg->decode_tp;
	d->transfer_latency_s = res->transfer_latency_s;
	d->transfer_bandwidth = res->transfer_bandwidth;
	d->streams = res->transfer_streams;
	d->first_token_on_decode = in->engine.kind == RIDGE_ENGINE_VLLM;
	res->first_token_on_decode = d->first_token_on_decode;
	return 0;
}

static void pool_summary(const struct sim_space *sp, int first, int count, double tp, double span,
			 struct ridge_serve_pool *p)
{
	const struct ridge_serve_sim_result *o0 = sp->workers[first].out;
	memset(p, 0, sizeof *p);
	p->tp = tp;
	p->workers = count;
	p->gpus = tp * count;
	p->memory_bytes = o0->memory_bytes;
	p->weights_bytes = o0->weights_bytes;
	p->activation_bytes = o0->activation_bytes;
	p->kv_cache_bytes = o0->kv_cache_bytes;
	p->kv_blocks = o0->kv_blocks;
	p->kv_tokens = o0->kv_tokens;
	double tokens = 0, running = 0, busy = 0;
	for (int i = first; i < first + count; i++) {
		const struct sim *w = &sp->workers[i];
		const struct ridge_serve_sim_result *o = w->out;
		p->kv_utilization += o->kv_utilization / count;
		p->kv_utilization_peak = fmax(p->kv_utilization_peak, o->kv_utilization_peak);
		p->preemptions += o->preemptions;
		p->iterations += o->iterations;
		tokens += w->batch_tokens_sum;
		running += w->running_sum;
		busy += w->kv_time; /* its iterations' time in the measured span */
	}
	p->mean_batch_tokens = p->iterations > 0 ? tokens / p->iterations : 0;
	p->mean_running = p->iterations > 0 ? running / p->iterations : 0;
	p->busy_fraction = span > 0 ? fmin(busy / (count * span), 1) : 0;
}

/* The decode pool's memory, iterations and time as the run's top-level
 * figures (the prefill pool's are in disagg.prefill). */
static void totals(struct disagg *d, struct ridge_serve_sim_result *out)
{
	struct sim_space *sp = d->sp;
	struct sim_shared *sh = &sp->sh;
	const struct ridge_serve_disagg *dg = &sh->in->disagg;
	for (int i = 0; i < sp->n_workers; i++)
		sim_worker_totals(&sp->workers[i]);
	const struct sim *w0 = &sp->workers[sp->n_prefill];
	const struct ridge_serve_sim_result *o0 = w0->out;
	out->memory_bytes = o0->memory_bytes;
	out->weights_bytes = o0->weights_bytes;
	out->activation_bytes = o0->activation_bytes;
	out->kv_cache_bytes = o0->kv_cache_bytes;
	out->kv_bytes_per_token_per_gpu = o0->kv_bytes_per_token_per_gpu;
	out->kv_blocks = o0->kv_blocks;
	out->kv_tokens = o0->kv_tokens;
	out->sample_count = o0->sample_count;
	out->sample_stride = o0->sample_stride;
	for (int i = sp->n_prefill; i < sp->n_workers; i++) {
		const struct ridge_serve_sim_result *o = sp->workers[i].out;
		out->iterations += o->iterations;
		out->graph_iterations += o->graph_iterations;
		out->mixed_iterations += o->mixed_iterations;
		out->token_pass_s += o->token_pass_s;
		out->attention_s += o->attention_s;
		out->logits_s += o->logits_s;
		out->power_limit_s += o->power_limit_s;
		out->launch_s += o->launch_s;
		out->communication_s += o->communication_s;
		out->cpu_s += o->cpu_s;
	}
	double gpus = dg->prefill_tp * dg->prefill_workers + dg->decode_tp * dg->decode_workers;
	sim_statistics(sh, gpus, out);
	struct ridge_serve_disagg_result *res = &out->disagg;
	pool_summary(sp, 0, sp->n_prefill, dg->prefill_tp, out->duration_s, &res->prefill);
	pool_summary(sp, sp->n_prefill, sp->n_workers - sp->n_prefill, dg->decode_tp, out->duration_s, &res->decode);
	out->kv_utilization = res->decode.kv_utilization;
	out->kv_utilization_peak = res->decode.kv_utilization_peak;
	out->preemptions = res->prefill.preemptions + res->decode.preemptions;
	out->mean_batch_tokens = res->decode.mean_batch_tokens;
	out->mean_running = res->decode.mean_running;
	double n = sh->measured_done > 0 ? sh->measured_done : 1;
	res->ttft_prefill_s = sh->ttft_prefill_sum / n;
	res->ttft_wait_s = sh->ttft_wait_sum / n;
	res->ttft_transfer_s = sh->ttft_transfer_sum / n;
	res->ttft_decode_s = sh->ttft_decode_sum / n;
	res->ttft_request_s = sh->ttft_request_sum / n;
	out->disaggregated = true;
}

int sim_disagg_run(struct sim_space *sp, struct ridge_serve_sim_sample *samples, struct ridge_serve_sim_result *out)
{
	struct disagg *d = &(struct disagg){ 0 };
	d->sp = sp;
	struct sim_shared *sh = &sp->sh;
	const struct ridge_serve_sim_input *in = sh->in;
	int rc = setup(d, samples, out);
	if (rc)
		return rc;
	if (in->concurrency > 0)
		while (sh->issued < (int)fmin(in->concurrency, sh->total))
			push(d, 0, EVENT_ARRIVAL, sim_issue(sh, 0));
	else
		push(d, 0, EVENT_ARRIVAL, -1);
	while (sh->done < sh->total) {
		if (d->heap_n == 0)
			return model_fail(sh->err, sh->err_len,
					  "the pools found no work they could run (%d of %d requests done)", sh->done,
					  sh->total);
		struct sim_event e = pop(d);
		switch (e.kind) {
		case EVENT_ARRIVAL:
			arrival(d, &e);
			break;
		case EVENT_PREFILLED:
			prefilled(d, &e);
			break;
		case EVENT_LANDED:
			landed(d, &e);
			break;
		default:
			rc = iterate(d, e.id, e.time);
			if (rc)
				return rc;
		}
	}
	totals(d, out);
	return 0;
}
