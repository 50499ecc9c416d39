/* One engine instance of the serving simulation (serve_sim_internal.h): its
 * cache, its scheduler, the price of its iterations and what an iteration
 * moves on. serve_sim.c runs one (aggregated), serve_disagg.c a pool of
 * prefill workers and a pool of decode workers. */
#include "serve_sim_internal.h"

#include <math.h>
#include <string.h>

#include "comm.h"
#include "fail.h"

int sim_token_rows(const struct ridge_engine *e)
{
	return (int)fmax(e->max_num_batched_tokens, e->graph_max_batch) + 1;
}

int sim_running_cap(const struct ridge_engine *e, double total)
{
	double running = fmin(e->max_num_seqs, total);
	return (int)fmax(running, fmin(e->graph_max_batch, 65536)) + 1;
}

void sim_prices_reset(struct sim_prices *p)
{
	for (int i = 0; i < p->tokens_cap; i++)
		p->tokens[i].kernel_s = NAN;
	for (int i = 0; i < p->rows_cap; i++) {
		p->logits[i].kernel_s = NAN;
		p->attention[i].filled = false;
	}
	for (int i = 0; i < SIM_CHUNK_MEMO; i++)
		p->chunks[i].chunk = -1;
}

/* ---- memory ---- */

/* The activations an engine keeps beside the weights and the cache,
 * estimated (not measured): the budget's tokens through the widest
 * tensors of a layer in the compute dtype, and fp32 logits for the
 * sampling rows. SGLang's reserve covers them (its memory fraction). */
static double activation_bytes(const struct sim *w)
{
	const struct ridge_workload_model *m = w->req->model;
	if (w->engine->kind == RIDGE_ENGINE_SGLANG)
		return 0;
	double tp = w->req->tp, e = ridge_dtype_bytes(w->req->compute_dtype);
	double tokens = w->engine->max_num_batched_tokens;
	double ff = (double)(m->experts > 0 ? m->expert_intermediate * m->experts_per_token : m->intermediate);
	double qkv = (double)((m->heads + 2 * m->kv_heads) * workload_qk_head_dim(m));
	double per_token = 4 * (double)m->hidden + qkv / tp + 2 * ff / tp;
	double rows = fmin(w->engine->max_num_seqs, tokens);
	return tokens * per_token * e + rows * ceil((double)m->vocab / tp) * 4;
}

/* vLLM's hybrid allocator (vllm/v1/core/kv_cache_utils.py,
 * _get_kv_cache_config_uniform_page_size): the layers of each attention
 * type in groups of group_size = the fewest layers of one type, one block
 * of the shared pool a group; a full-attention group holds every token, a
 * sliding-window group drops the blocks before its window. Returns the
 * block's bytes (one layer's token bytes x block size x group size). */
static double hybrid_groups(struct sim *w, double per_token_bytes)
{
	const struct ridge_workload_model *m = w->req->model;
	double layers = (double)m->layers, local = (double)workload_local_layers(m), global = layers - local;
	w->full_groups = 1;
	w->window_groups = 0;
	w->window = (double)m->sliding_window;
	if (!w->engine->hybrid_kv_cache || local <= 0 || !(w->window > 0))
		return w->engine->block_size * per_token_bytes;
	double group = global > 0 ? fmin(local, global) : layers;
	w->full_groups = global > 0 ? ceil(global / group) : 0;
	w->window_groups = ceil(local / group);
	return group * w->engine->block_size * (per_token_bytes / layers);
}

double sim_request_blocks(const struct sim *w, double computed, double tokens)
{
	double full = ceil(tokens / w->engine->block_size);
	if (w->window_groups == 0)
		return full;
	/* SlidingWindowManager.get_num_skipped_tokens: max(0, computed - window
	 * + 1); ChunkedLocalAttentionManager: the chunks before the current one
	 * (vllm/v1/core/single_type_kv_cache_manager.py) */
	double skipped = w->req->model->chunked_attention ? floor(computed / w->window) * w->window
							  : fmax(0, computed - w->window + 1);
	double kept = full - floor(skipped / w->engine->block_size);
	return w->full_groups * full + w->window_groups * kept;
}

/* The most blocks one request holds on its way to `longest` tokens: its
 * window groups at most a window and an iteration's chunk. */
static double peak_blocks(const struct sim *w, double longest, double longest_prompt)
{
	double full = ceil(longest / w->engine->block_size);
	if (w->window_groups == 0)
		return full;
	double chunk =
		w->engine->chunked_prefill ? fmin(longest_prompt, w->engine->max_num_batched_tokens) : longest_prompt;
	double window = fmin(full, ceil((w->window + chunk) / w->engine->block_size) + 1);
	return w->full_groups * full + w->window_groups * window;
}

int sim_worker_memory(struct sim *w, double memory_bytes, double longest, double longest_prompt)
{
	struct sim_shared *sh = w->sh;
	struct ridge_serve_sim_result *out = w->out;
	struct sim_step_memo *known = w->prices->step;
	if (!known->known) {
		struct ridge_serve_request req = *w->req;
		req.phase = RIDGE_PHASE_DECODE;
		req.batch = 1;
		req.context = 1;
		req.communication_s = 0;
		struct ridge_serve_result *step = &(struct ridge_serve_result){ 0 };
		if (serve_step(&req, step, sh->err, sh->err_len))
			return -1;
		*known = (struct sim_step_memo){ true, step->weights_stored_per_gpu, step->kv_bytes_per_token_per_gpu };
	}
	const struct ridge_engine *e = w->engine;
	double memory = memory_bytes > 0 ? memory_bytes : ridge_gpu_usable_memory(w->req->gpu);
	out->memory_bytes = memory;
	out->weights_bytes = known->weights_bytes;
	out->activation_bytes = activation_bytes(w);
	out->kv_bytes_per_token_per_gpu = known->kv_bytes_per_token_per_gpu;
	double rest = memory - out->weights_bytes - out->activation_bytes;
	double cache = e->kv_budget == RIDGE_KV_OF_FREE
			       ? e->memory_fraction * rest
			       : e->memory_fraction * memory - out->weights_bytes - out->activation_bytes;
	out->kv_cache_bytes = fmax(cache, 0);
	double block_bytes = hybrid_groups(w, out->kv_bytes_per_token_per_gpu);
	out->kv_blocks = floor(out->kv_cache_bytes / block_bytes);
	double groups = w->full_groups + w->window_groups;
	out->kv_tokens =
		w->window_groups > 0 ? floor(out->kv_blocks / groups) * e->block_size : out->kv_blocks * e->block_size;
	w->free_blocks = out->kv_blocks;
	if (out->kv_blocks < peak_blocks(w, longest, longest_prompt)) {
		model_fail(sh->err, sh->err_len,
			   "the KV cache holds %g tokens per GPU (%.4g GB left of %.4g GB after %.4g GB of weights and "
			   "%.4g GB of activations at memory fraction %g): not one request of %g tokens",
			   out->kv_tokens, out->kv_cache_bytes / 1e9, memory / 1e9, out->weights_bytes / 1e9,
			   out->activation_bytes / 1e9, e->memory_fraction, longest);
		return 1;
	}
	return 0;
}

/* ---- the queue and the scheduler ---- */

void sim_worker_push(struct sim *w, int index, bool front)
{
	int total = w->sh->total;
	if (front) {
		w->wait_head = (w->wait_head + total - 1) % total;
		w->waiting[w->wait_head] = index;
	} else
		w->waiting[(w->wait_head + w->wait_count) % total] = index;
	w->wait_count++;
	w->sh->reqs[index].state = REQUEST_WAITING;
}

void sim_worker_remove(struct sim *w, int position)
{
	memmove(&w->running[position], &w->running[position + 1],
		(size_t)(w->n_running - position - 1) * sizeof w->running[0]);
	w->n_running--;
}

/* Output tokens a request makes on this worker: a prefill worker makes the
 * first and hands the request on. */
static double worker_osl(const struct sim *w, const struct sim_request *r)
{
	return w->role == SIM_PREFILL ? 1 : r->osl;
}

/* Takes a request's prompt chunk out of this iteration. */
static void unschedule_chunk(struct sim *w, struct sim_request *r)
{
	if (r->chunk > 0) {
		w->prefill_tokens -= r->chunk;
		w->rows -= r->computed + r->chunk >= r->target;
	}
	r->chunk = 0;
}

/* The newest running request gives its blocks back and waits at the head
 * of the queue to recompute its prompt and what it generated. */
static void preempt_newest(struct sim *w)
{
	int index = w->running[w->n_running - 1];
	struct sim_request *r = &w->sh->reqs[index];
	/* scheduled in this iteration already (SGLang's mixed chunk schedules
	 * the decodes before the chunk that may need their blocks): out of it */
	if (r->decoding) {
		w->decode_n--;
		w->decode_context -= r->computed + 1;
		w->rows--;
	}
	unschedule_chunk(w, r);
	w->free_blocks += r->blocks;
	r->blocks = 0;
	r->computed = 0;
	r->target = r->isl + r->generated;
	r->decoding = false;
	sim_worker_remove(w, w->n_running - 1);
	sim_worker_push(w, index, true);
	w->out->preemptions++;
}

/* Grows running request `position` to hold `tokens`, preempting newer ones;
 * false when it was itself preempted. A window group's blocks that fell
 * out of the window go back to the pool. */
static bool grow(struct sim *w, int position, double tokens)
{
	struct sim_request *r = &w->sh->reqs[w->running[position]];
	if (w->window_groups == 0 && r->blocks * w->engine->block_size >= tokens)
		return true; /* its last block has room */
	double need = sim_request_blocks(w, r->computed, tokens) - r->blocks;
	while (need > w->free_blocks) {
		bool self = w->n_running - 1 == position;
		preempt_newest(w);
		if (self)
			return false;
	}
	if (need != 0) {
		w->free_blocks -= need;
		r->blocks += need;
	}
	return true;
}

static void schedule_chunk(struct sim *w, struct sim_request *r, double chunk, double *budget)
{
	r->chunk = chunk;
	*budget -= chunk;
	w->prefill_tokens += chunk;
	if (r->computed + chunk >= r->target)
		w->rows++;
}

/* The running requests' work: prompt chunks (prefill) and decode tokens
 * (decode), oldest first, within the budget. */
static void schedule_running(struct sim *w, double *budget, bool prefill, bool decode)
{
	const struct ridge_engine *e = w->engine;
	for (int i = 0; i < w->n_running; i++) {
		struct sim_request *r = &w->sh->reqs[w->running[i]];
		double remaining = r->target - r->computed;
		if (remaining > 0) {
			double chunk = fmin(remaining, *budget);
			if (!prefill || chunk <= 0 || (!e->chunked_prefill && chunk < remaining))
				continue;
			if (!e->reserve_output && !grow(w, i, r->computed + chunk)) {
				i--; /* it left: the next request is now at i */
				continue;
			}
			schedule_chunk(w, r, chunk, budget);
		} else if (decode) {
			if (e->mixed_batches && *budget < 1)
				break;
			if (!e->reserve_output && !grow(w, i, r->computed + 1))
				break; /* it was the newest: nothing after it */
			r->decoding = true;
			w->decode_n++;
			w->decode_context += r->computed + 1;
			w->rows++;
			*budget -= 1;
		}
	}
}

static void start_running(struct sim *w, int index, double blocks)
{
	struct sim_request *r = &w->sh->reqs[index];
	w->free_blocks -= blocks;
	r->blocks += blocks;
	w->wait_head = (w->wait_head + 1) % w->sh->total;
	w->wait_count--;
	r->state = REQUEST_RUNNING;
	w->running[w->n_running++] = index;
}

/* A decode worker's queue holds requests that came with their blocks
 * behind one that waits for blocks (preempted): the first of them moves to
 * the head, or the queue would wait on blocks those requests hold. */
static bool promote_holder(struct sim *w)
{
	int total = w->sh->total;
	for (int k = 1; k < w->wait_count; k++) {
		int at = (w->wait_head + k) % total, index = w->waiting[at];
		if (w->sh->reqs[index].blocks <= 0)
			continue;
		for (int j = k; j > 0; j--)
			w->waiting[(w->wait_head + j) % total] = w->waiting[(w->wait_head + j - 1) % total];
		w->waiting[w->wait_head] = index;
		return true;
	}
	return false;
}

/* The latest arrival this iteration can take. An engine that schedules one
 * iteration ahead (vLLM's EngineCore.step_with_batch_queue, SGLang's
 * event_loop_overlap, TensorRT-LLM's _executor_loop_overlap) takes in new
 * requests and builds this iteration right after the one before the last
 * ended, when the last started; an engine with nothing running builds it
 * as soon as a request comes. */
static double admission_cutoff(const struct sim *w)
{
	if (!w->engine->overlap_scheduling || w->role != SIM_WHOLE || !w->started || w->n_running == 0)
		return INFINITY;
	return w->previous_start;
}

/* Waiting requests, first come first served, while the budget, the
 * sequence limit and the free blocks allow. */
static void schedule_waiting(struct sim *w, double *budget)
{
	const struct ridge_engine *e = w->engine;
	double cutoff = admission_cutoff(w);
	while (w->wait_count > 0 && *budget >= 1 && w->n_running < w->max_running) {
		int index = w->waiting[w->wait_head];
		struct sim_request *r = &w->sh->reqs[index];
		if (r->arrival > cutoff)
			break; /* it reached the engine after this iteration was built */
		double remaining = r->target - r->computed;
		if (remaining <= 0)
			break; /* a prefilled request: sim_worker_schedule admits it */
		double chunk = e->chunked_prefill ? fmin(remaining, *budget) : remaining;
		if (chunk > *budget)
			break;
		/* TensorRT-LLM reserves prompt and output; SGLang admits a prompt only
		 * when all of it fits (PrefillAdder.add_one_req: the prompt and the
		 * clipped output against the tokens left); vLLM its next chunk */
		double need = e->reserve_output ? sim_request_blocks(w, 0, r->isl + worker_osl(w, r))
			      : e->kind == RIDGE_ENGINE_SGLANG
				      ? sim_request_blocks(w, r->computed, r->target)
				      : sim_request_blocks(w, r->computed, r->computed + chunk);
		need = fmax(need - r->blocks, 0); /* a decode worker's request came with its blocks */
		if (need > w->free_blocks) {
			if (w->role == SIM_DECODE && r->blocks <= 0 && promote_holder(w))
				continue;
			break;
		}
		start_running(w, index, need);
		schedule_chunk(w, r, chunk, budget);
	}
}

/* A decode worker's requests whose cache came whole from a prefill worker
 * join the running batch (their first token is the prefill's: SGLang's
 * prebuilt batch, TensorRT-LLM's generation-only request). */
static void admit_prefilled(struct sim *w)
{
	while (w->wait_count > 0 && w->n_running < w->max_running) {
		int index = w->waiting[w->wait_head];
		struct sim_request *r = &w->sh->reqs[index];
		if (r->target - r->computed > 0)
			return;
		start_running(w, index, 0);
		r->first_token = r->last_token = w->now;
	}
}

/* TensorRT-LLM's batch waiting (PyExecutor._schedule, _waiting_requests):
 * an iteration with both prompts and decode tokens runs the decodes alone,
 * holding the prompts back, while prompts + decodes stay under ratio x the
 * budget and it has held them fewer than batch_wait_iters times in a row.
 * The held requests keep their blocks (the capacity scheduler gave them). */
static void batch_wait(struct sim *w)
{
	const struct ridge_engine *e = w->engine;
	bool on = e->batch_wait_iters > 0 || e->batch_wait_tokens_ratio > 0;
	if (!on || w->prefill_tokens <= 0 || w->decode_n <= 0)
		return;
	if (w->batch_wait_count >= e->batch_wait_iters ||
	    w->prefill_tokens + w->decode_n >= e->batch_wait_tokens_ratio * e->max_num_batched_tokens) {
		w->batch_wait_count = 0;
		return;
	}
	w->batch_wait_count++;
	for (int i = 0; i < w->n_running; i++)
		unschedule_chunk(w, &w->sh->reqs[w->running[i]]);
}

/* One iteration's batch. vLLM and TensorRT-LLM put decode tokens first,
 * then the prompt chunks, within the budget. SGLang runs a prefill
 * iteration whenever a prompt can start or continue, else a decode one;
 * with its mixed chunk (and chunked prefill: Scheduler.is_mixed_chunk)
 * every running request's decode token joins the prefill iteration
 * (ScheduleBatch.mix_with_running) and the chunks get the budget the
 * decodes leave (PrefillAdder's mixed_with_decode_tokens). */
void sim_worker_schedule(struct sim *w)
{
	const struct ridge_engine *e = w->engine;
	w->decode_n = w->decode_context = w->prefill_tokens = w->rows = 0;
	for (int i = 0; i < w->n_running; i++) {
		w->sh->reqs[w->running[i]].chunk = 0;
		w->sh->reqs[w->running[i]].decoding = false;
	}
	if (w->role == SIM_DECODE)
		admit_prefilled(w);
	double budget = e->max_num_batched_tokens;
	if (e->mixed_batches && e->kind != RIDGE_ENGINE_SGLANG) {
		schedule_running(w, &budget, true, true);
		schedule_waiting(w, &budget);
		batch_wait(w);
		return;
	}
	if (e->mixed_batches && e->chunked_prefill) {
		double unbounded = INFINITY;
		schedule_running(w, &unbounded, false, true);
		budget -= w->decode_n;
		schedule_running(w, &budget, true, false);
		schedule_waiting(w, &budget);
		return;
	}
	schedule_running(w, &budget, true, false);
	schedule_waiting(w, &budget);
	if (w->prefill_tokens > 0)
		return;
	budget = INFINITY; /* a decode batch is bounded by the running requests alone */
	schedule_running(w, &budget, false, true);
}

/* ---- pricing an iteration ---- */

static int token_pass(struct sim *w, double tokens, struct pass_memo **out)
{
	struct sim_shared *sh = w->sh;
	struct pass_memo *m = &w->prices->tokens[(int)tokens];
	*out = m;
	if (!isnan(m->kernel_s))
		return 0;
	const struct ridge_serve_request *req = w->req;
	const struct ridge_workload_model *model = req->model;
	struct ridge_serve_pass pass;
	struct ridge_serve_comm eager, graph;
	if (serve_token_pass(req, tokens, &pass, sh->err, sh->err_len))
		return -1;
	/* the all-reduces of the pass, launched eagerly from the host and
	 * inside a CUDA graph (model/comm.h, "Launch mode") */
	const enum ridge_comm_launch launches[2] = { RIDGE_COMM_LAUNCH_EAGER, RIDGE_COMM_LAUNCH_GRAPH };
	struct ridge_serve_comm *comms[2] = { &eager, &graph };
	for (int i = 0; i < 2; i++)
		if (comm_serve_step_engine(req->gpu, req->tp, false, tokens, (double)model->hidden,
					   (double)model->layers, (double)model->experts_per_token,
					   (double)workload_moe_layers(model), 0, 0, launches[i],
					   w->engine->custom_allreduce_max_bytes, comms[i], sh->err, sh->err_len))
			return -1;
	/* Fewer rows than one library tile never run slower than a whole tile:
	 * the library can pad them (serve.c prices them as the GEMV class, whose
	 * fitted efficiencies come from a few rows and overprice 65 to 127) */
	if (tokens < RIDGE_LIBRARY_TILE_M) {
		struct ridge_serve_pass tile;
		if (serve_token_pass(req, RIDGE_LIBRARY_TILE_M, &tile, sh->err, sh->err_len))
			return -1;
		if (tile.kernel_time_s < pass.kernel_time_s)
			pass = tile;
	}
	*m = (struct pass_memo){ pass.kernel_time_s, pass.matrix_time_s, pass.kernels, eager.exposed_s,
				 graph.exposed_s };
	return 0;
}

static int logits_pass(struct sim *w, double rows, struct pass_memo **out)
{
	struct pass_memo *m = &w->prices->logits[(int)rows];
	*out = m;
	if (!isnan(m->kernel_s))
		return 0;
	struct ridge_serve_pass pass;
	if (serve_logits_pass(w->req, rows, &pass, w->sh->err, w->sh->err_len))
		return -1;
	*m = (struct pass_memo){ pass.kernel_time_s, pass.matrix_time_s, pass.kernels, 0, 0 };
	return 0;
}

static int attention_pass(struct sim *w, double n, double context_sum, struct ridge_serve_pass *out)
{
	struct sim_prices *p = w->prices;
	struct attention_memo *m = &p->attention[(int)n];
	if (!m->filled) {
		struct ridge_serve_pass lo, hi;
		double span = p->context_hi - p->context_lo;
		if (serve_decode_attention_pass(w->req, n, n * p->context_lo, &lo, w->sh->err, w->sh->err_len) ||
		    (span > 0 &&
		     serve_decode_attention_pass(w->req, n, n * p->context_hi, &hi, w->sh->err, w->sh->err_len)))
			return -1;
		m->base_s = lo.kernel_time_s;
		m->matrix_base_s = lo.matrix_time_s;
		m->slope_s = span > 0 ? (hi.kernel_time_s - lo.kernel_time_s) / (n * span) : 0;
		m->matrix_slope_s = span > 0 ? (hi.matrix_time_s - lo.matrix_time_s) / (n * span) : 0;
		m->kernels = lo.kernels;
		m->filled = true;
	}
	double extra = context_sum - n * p->context_lo;
	memset(out, 0, sizeof *out);
	out->kernel_time_s = m->base_s + m->slope_s * extra;
	out->matrix_time_s = m->matrix_base_s + m->matrix_slope_s * extra;
	out->kernels = m->kernels;
	return 0;
}

/* A prompt chunk's attention, remembered by (chunk, prefix) in a small
 * table (a direct-mapped cache: a run repeats the same chunks). */
static int chunk_pass(struct sim *w, double chunk, double prefix, struct ridge_serve_pass *out)
{
	uint64_t key = (uint64_t)chunk * 0x9E3779B97F4A7C15ull ^ (uint64_t)prefix * 0xBF58476D1CE4E5B9ull;
	struct chunk_memo *m = &w->prices->chunks[(key >> 40) % SIM_CHUNK_MEMO];
	if (m->chunk == chunk && m->prefix == prefix) {
		*out = m->pass;
		return 0;
	}
	if (serve_chunk_attention_pass(w->req, chunk, prefix, out, w->sh->err, w->sh->err_len))
		return -1;
	*m = (struct chunk_memo){ chunk, prefix, *out };
	return 0;
}

/* The launch cost: a graph replay (launch + a node per kernel), or the host
 * issuing launches while the GPU runs (host-bound when kernels are short). */
static double launch_cost(const struct sim *w, bool graph, double kernels, double gpu_time)
{
	const struct ridge_gpu *gpu = w->req->gpu;
	if (graph)
		return gpu->launch_overhead_s + kernels * gpu->graph_node_s;
	double per_layer = w->engine->host_launches_per_layer;
	double launches = per_layer > 0 ? per_layer * (double)w->req->model->layers + 4 : kernels;
	double issue = serve_eager_issue_s(gpu);
	return fmax(launches * issue - gpu_time, 0) + issue;
}

/* Whether an iteration's collectives launch inside a CUDA graph: a decode
 * batch replaying a captured graph does; so does every other iteration of
 * an engine that runs piecewise graphs (vLLM: the graph splits only at the
 * attention ops, so the all-reduces between them are captured); the others
 * (SGLang's and TensorRT-LLM's prefill and mixed iterations, batches past
 * the captured sizes) are enqueued by the host, eagerly. */
static bool collectives_in_graph(const struct sim *w, bool graph)
{
	return graph || w->engine->host_launches_per_layer > 0;
}

/* The power limit across a run's iterations (serve.h, "power limit"). A
 * rested GPU holds its burst rate for power.burst_time of compute-bound
 * matrix time; past that headroom the matrix time runs at the sustained
 * fraction f: + (1/f - 1) x the time past it. Where the entry knows how the
 * burst comes back (power.recovery_idle, recovery_busy), the headroom is
 * carried from one iteration to the next and refills at those rates while the
 * GPU waits (host time, no work queued) and while it runs other work
 * (memory-bound kernels, collectives); without them every iteration starts
 * rested, the rule of one step (serve_power_limit_extra). */
static double power_limit(struct sim *w, double matrix)
{
	const struct ridge_gpu *gpu = w->req->gpu;
	if (!gpu->has_sustained_matrix || !gpu->has_power_recovery)
		return serve_power_limit_extra(gpu, matrix);
	if (!w->power_tracked) { /* rested before its first iteration */
		w->power_tracked = true;
		w->power_headroom_s = gpu->burst_time_s;
		w->power_at = w->now;
	}
	/* the wait since the last iteration ended */
	double waited = fmax(w->now - w->power_at, 0);
	w->power_headroom_s = fmin(gpu->burst_time_s, w->power_headroom_s + waited * gpu->power_recovery_idle);
	double burst = fmin(w->power_headroom_s, matrix);
	w->power_headroom_s -= burst;
	return (matrix - burst) * (1 / gpu->sustained_matrix_fraction - 1);
}

/* The headroom the iteration's other work gave back: busy seconds of GPU
 * work that was not compute-bound matrix work, idle seconds of host time. */
static void power_recover(struct sim *w, double busy_s, double idle_s, double step_s)
{
	const struct ridge_gpu *gpu = w->req->gpu;
	if (!w->power_tracked)
		return;
	w->power_headroom_s = fmin(gpu->burst_time_s, w->power_headroom_s + fmax(busy_s, 0) * gpu->power_recovery_busy +
							      fmax(idle_s, 0) * gpu->power_recovery_idle);
	w->power_at = w->now + step_s;
}

int sim_worker_price(struct sim *w, struct iteration_cost *c)
{
	memset(c, 0, sizeof *c);
	double graph_size = w->prefill_tokens == 0 ? serve_engine_graph_size(w->engine, w->decode_n) : 0;
	c->graph = graph_size > 0;
	double tokens = c->graph ? graph_size : w->decode_n + w->prefill_tokens;
	double rows = c->graph ? graph_size : w->rows;
	struct pass_memo *t, *l = NULL;
	if (token_pass(w, tokens, &t) || (rows > 0 && logits_pass(w, rows, &l)))
		return -1;
	double matrix = t->matrix_s, kernels = t->kernels;
	c->token_s = t->kernel_s;
	c->communication_s = collectives_in_graph(w, c->graph) ? t->communication_graph_s : t->communication_s;
	if (rows > 0) {
		c->logits_s = l->kernel_s;
		matrix += l->matrix_s;
		kernels += l->kernels;
	}
	struct ridge_serve_pass a;
	if (w->decode_n > 0) {
		if (attention_pass(w, w->decode_n, w->decode_context, &a))
			return -1;
		c->attention_s += a.kernel_time_s;
		matrix += a.matrix_time_s;
		kernels += a.kernels;
	}
	for (int i = 0; i < w->n_running; i++) {
		const struct sim_request *r = &w->sh->reqs[w->running[i]];
		if (r->chunk <= 0)
			continue;
		if (chunk_pass(w, r->chunk, r->computed, &a))
			return -1;
		c->attention_s += a.kernel_time_s;
		matrix += a.matrix_time_s;
		kernels += a.kernels;
	}
	c->power_s = power_limit(w, matrix);
	double gpu_time = c->token_s + c->attention_s + c->logits_s + c->power_s;
	c->launch_s = launch_cost(w, c->graph, kernels, gpu_time);
	c->cpu_s = w->engine->cpu_overhead_s;
	c->step_s = gpu_time + c->launch_s + c->communication_s + c->cpu_s;
	power_recover(w, gpu_time - c->power_s - matrix + c->communication_s, c->launch_s + c->cpu_s, c->step_s);
	return 0;
}

/* ---- after the iteration ---- */

static void finish(struct sim *w, int position)
{
	struct sim_shared *sh = w->sh;
	int index = w->running[position];
	struct sim_request *r = &sh->reqs[index];
	r->state = REQUEST_DONE;
	w->free_blocks += r->blocks;
	r->blocks = 0;
	sim_worker_remove(w, position);
	sh->done++;
	if (r->measured)
		sim_record(sh, r, w->now);
	sh->client_next(sh, w->now); /* the client's next request */
}

void sim_worker_advance(struct sim *w)
{
	struct sim_shared *sh = w->sh;
	for (int i = 0; i < w->n_running; i++) {
		struct sim_request *r = &sh->reqs[w->running[i]];
		bool token = false;
		if (r->chunk > 0) {
			r->computed += r->chunk;
			token = r->computed >= r->target;
		} else if (r->decoding) {
			r->computed += 1;
			token = true;
		}
		if (!token)
			continue;
		r->generated++;
		if (w->role == SIM_PREFILL) {
			sh->handoff(w, i); /* the prompt's cache goes to a decode worker */
			i--;
			continue;
		}
		if (r->generated == 1)
			r->first_token = w->now;
		else if (r->measured)
			sim_itl_add(sh, w->now - r->last_token);
		r->last_token = w->now;
		if (r->generated >= r->osl) {
			finish(w, i);
			i--;
		}
	}
}

void sim_worker_sample(struct sim *w, const struct iteration_cost *c)
{
	struct ridge_serve_sim_result *out = w->out;
	int capacity = w->timeline_capacity;
	if (capacity <= 0 || !w->samples)
		return;
	double kv_used = out->kv_blocks > 0 ? (out->kv_blocks - w->free_blocks) / out->kv_blocks : 0;
	double iteration = out->iterations - 1;
	if (fmod(iteration, out->sample_stride) != 0)
		return;
	if (out->sample_count == capacity) {
		/* full: keep every other sample and sample half as often */
		for (int i = 0; i < capacity / 2; i++)
			w->samples[i] = w->samples[2 * i];
		out->sample_count = capacity / 2;
		out->sample_stride *= 2;
		if (fmod(iteration, out->sample_stride) != 0)
			return;
	}
	w->samples[out->sample_count++] =
		(struct ridge_serve_sim_sample){ w->now,       c->step_s,     w->decode_n, w->prefill_tokens,
						 w->n_running, w->wait_count, kv_used };
}

void sim_worker_account(struct sim *w, const struct iteration_cost *c)
{
	struct ridge_serve_sim_result *out = w->out;
	out->iterations++;
	out->graph_iterations += c->graph;
	out->mixed_iterations += w->decode_n > 0 && w->prefill_tokens > 0;
	out->token_pass_s += c->token_s;
	out->attention_s += c->attention_s;
	out->logits_s += c->logits_s;
	out->power_limit_s += c->power_s;
	out->launch_s += c->launch_s;
	out->communication_s += c->communication_s;
	out->cpu_s += c->cpu_s;
	w->batch_tokens_sum += w->decode_n + w->prefill_tokens;
	w->running_sum += w->n_running;
	double used = out->kv_blocks > 0 ? (out->kv_blocks - w->free_blocks) / out->kv_blocks : 0;
	out->kv_utilization_peak = fmax(out->kv_utilization_peak, used);
	if (w->now >= w->sh->window_start) {
		w->kv_integral += used * c->step_s;
		w->kv_time += c->step_s;
	}
}

void sim_worker_totals(struct sim *w)
{
	struct ridge_serve_sim_result *out = w->out;
	out->kv_utilization = w->kv_time > 0 ? w->kv_integral / w->kv_time : 0;
	out->mean_batch_tokens = out->iterations > 0 ? w->batch_tokens_sum / out->iterations : 0;
	out->mean_running = out->iterations > 0 ? w->running_sum / out->iterations : 0;
}
