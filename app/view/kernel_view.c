#include "kernel_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calc.h"
#include "app.h"
#include "json_fields.h"

int kernel_tile_parse(const char *text, double *tile_m, double *tile_n, double *tile_k)
{
	double dims[3];
	int count = 0;
	const char *p = text;
	for (;;) {
		char *end;
		if (*p < '0' || *p > '9' || count == 3)
			break;
		dims[count++] = strtod(p, &end);
		p = end;
		if (*p != 'x' && *p != 'X')
			break;
		p++;
	}
	bool whole = true;
	for (int i = 0; i < count; i++)
		whole = whole && dims[i] >= 1 && dims[i] <= 65536 && dims[i] == (double)(long)dims[i];
	if (*p != '\0' || (count != 1 && count != 3) || !whole)
		return -1;
	*tile_m = dims[0];
	*tile_n = count == 3 ? dims[1] : dims[0];
	*tile_k = count == 3 ? dims[2] : dims[0];
	return 0;
}

int app_parse_tile(const char *flag, const char *text, double *tile_m, double *tile_n, double *tile_k,
		   struct app_status *st)
{
	if (kernel_tile_parse(text, tile_m, tile_n, tile_k) == 0)
		return 0;
	app_error_flag(st, flag,
		       "'%s' is not a tile: give T (square, T x T x T) or MxNxK, whole numbers from 1 to 65536", text);
	return -1;
}

static bool is_attention(enum ridge_kernel k)
{
	return k == RIDGE_KERNEL_ATTENTION || k == RIDGE_KERNEL_FLASH_ATTENTION;
}

void kernel_describe(const struct ridge_kernel_shape *s, char *buf, size_t len)
{
	size_t used = 0;
#define PUT(...)                                                                         \
	do {                                                                             \
		int w_ = snprintf(buf + used, len > used ? len - used : 0, __VA_ARGS__); \
		if (w_ > 0)                                                              \
			used += (size_t)w_;                                              \
	} while (0)
	PUT("%s, %s", intensity_kernel_name(s->kernel), ridge_dtype_name(s->dtype));
	if (is_attention(s->kernel)) {
		PUT(", seq %.17g, %.17g heads", s->seq, s->heads);
		if (s->kv_heads > 0 && s->kv_heads != s->heads)
			PUT(" (%.17g KV heads)", s->kv_heads);
		PUT(", head dim %.17g", s->head_dim);
		if (s->causal)
			PUT(", causal");
	} else {
		if (s->m > 0)
			PUT(", M=%.17g", s->m);
		if (s->n > 0)
			PUT(", N=%.17g", s->n);
		if (s->k > 0)
			PUT(", K=%.17g", s->k);
	}
	if (s->batch > 1)
		PUT(", batch %.17g", s->batch);
	if (s->kernel == RIDGE_KERNEL_RESIDUAL_RMSNORM || s->kernel == RIDGE_KERNEL_RMSNORM_LINEAR)
		PUT(", %s", s->fused ? "fused" : "unfused");
	if (s->kernel == RIDGE_KERNEL_SOFTMAX)
		PUT(", %d pass%s", s->passes ? s->passes : 2, (s->passes ? s->passes : 2) == 1 ? "" : "es");
#undef PUT
}

static void print_bytes(FILE *out, const char *label, double bytes, double flops)
{
	char b[48];
	fmt_si(bytes, "B", b, sizeof b);
	fprintf(out, "  %-34s %12s  (%.17g B) -> %.4g FLOP/byte\n", label, b, bytes, flops / bytes);
}

/* The shape back from JSON, for the one-line description. */
static void shape_from_json(const cJSON *k, struct ridge_kernel_shape *s)
{
	memset(s, 0, sizeof *s);
	intensity_kernel_parse(calc_str(k, "name"), &s->kernel);
	ridge_dtype_parse(calc_str(k, "dtype"), &s->dtype);
	const cJSON *shape = cJSON_GetObjectItemCaseSensitive(k, "shape");
	const struct {
		const char *key;
		double *field;
	} dims[] = { { "m", &s->m },
		     { "n", &s->n },
		     { "k", &s->k },
		     { "batch", &s->batch },
		     { "seq", &s->seq },
		     { "heads", &s->heads },
		     { "kv_heads", &s->kv_heads },
		     { "head_dim", &s->head_dim } };
	for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
		if (calc_has(shape, dims[i].key))
			*dims[i].field = calc_num(shape, dims[i].key);
	s->causal = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(shape, "causal"));
	s->fused = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(shape, "fused"));
	if (calc_has(shape, "passes"))
		s->passes = (int)calc_num(shape, "passes");
}

/* The L2-aware GEMM traffic (model/intensity.h, struct ridge_gemm_l2). */
static void l2_json(cJSON *k, const struct ridge_gemm_l2 *l)
{
	json_number(k, "hbm_bytes", l->hbm_bytes);
	json_number(k, "l2_bytes", l->l2_traffic);
	json_number(k, "wave_ctas", l->wave_ctas);
	cJSON_AddBoolToObject(k, "l2_resident", l->a_resident && l->b_resident);
	cJSON *o = cJSON_AddObjectToObject(k, "l2_model");
	cJSON_AddStringToObject(o, "raster", l->raster_along_n ? "along_n" : "along_m");
	static const struct json_field gemm_l2_fields[] = {
		JSON_FIELD_AS(struct ridge_gemm_l2, "raster_source", raster),
		JSON_FIELDS(struct ridge_gemm_l2, tiles_m, tiles_n, ctas_per_sm),
		JSON_FIELD_AS(struct ridge_gemm_l2, "ctas_per_sm_source", ctas_per_sm_why),
		JSON_FIELDS(struct ridge_gemm_l2, wave_ctas, waves),
		JSON_FIELD_AS(struct ridge_gemm_l2, "l2_size_bytes", l2_bytes),
		JSON_FIELDS(struct ridge_gemm_l2, l2_usable_fraction),
		JSON_FIELD_AS(struct ridge_gemm_l2, "l2_usable_source", l2_usable_why),
		JSON_FIELD_AS(struct ridge_gemm_l2, "l2_capacity_bytes", l2_capacity),
		JSON_FIELD_AS(struct ridge_gemm_l2, "wave_footprint_bytes", wave_footprint),
		JSON_FIELD_AS(struct ridge_gemm_l2, "reuse_footprint_bytes", reuse_footprint),
		JSON_FIELDS(struct ridge_gemm_l2, a_resident, b_resident, a_reads, b_reads),
	};
	json_put_fields(o, l, gemm_l2_fields, JSON_FIELD_COUNT(gemm_l2_fields));
	if (l->library) {
		static const struct json_field library_fields[] = {
			JSON_FIELDS(struct ridge_gemm_l2, tile_m, tile_n, group_tiles, drift_x, drift_factor),
			JSON_FIELD_AS(struct ridge_gemm_l2, "wave_read_bytes", wave_bytes),
		};
		cJSON *lib = cJSON_AddObjectToObject(o, "library");
		json_put_fields(lib, l, library_fields, JSON_FIELD_COUNT(library_fields));
		json_number(lib, "drift_onset", RIDGE_LIBRARY_DRIFT_ONSET);
		json_number(lib, "drift_slope", RIDGE_LIBRARY_DRIFT_SLOPE);
		cJSON_AddStringToObject(lib, "source",
					"fitted to ncu's DRAM bytes of 18 torch.mm (cuBLAS) shapes on an H100, "
					"measurements/2026-12-06-h100-gemm-library; held out: 12 shapes of "
					"measurements/2026-12-06-h100-moe-gemm (median 9.0 %)");
	}
}

/* The naive GEMM's access pattern (model/intensity.h, struct ridge_naive_gemm). */
static void naive_json(cJSON *k, const struct ridge_naive_gemm *v)
{
	cJSON *o = cJSON_AddObjectToObject(k, "naive_model");
	static const struct json_field naive_fields[] = {
		JSON_FIELDS(struct ridge_naive_gemm, warp_size, warps, a_wavefronts, b_wavefronts, c_wavefronts,
			    l1_wavefronts, l1_bytes, l1_sector_bytes, b_sector_bytes, l2_bytes),
	};
	json_put_fields(o, v, naive_fields, JSON_FIELD_COUNT(naive_fields));
}

static void naive_print(FILE *out, const cJSON *k)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(k, "naive_model");
	if (!o)
		return;
	char a[48], b[48], c[48];
	fmt_si(calc_num(o, "l1_wavefronts"), "", a, sizeof a);
	fprintf(out,
		"  access pattern: %.17g warps of %.17g threads x (K x (%.6g A broadcast%s + %.6g B line%s) + %.6g C) = %s L1 "
		"wavefronts\n",
		calc_num(o, "warps"), calc_num(o, "warp_size"), calc_num(o, "a_wavefronts"),
		calc_num(o, "a_wavefronts") == 1 ? "" : "s", calc_num(o, "b_wavefronts"),
		calc_num(o, "b_wavefronts") == 1 ? "" : "s", calc_num(o, "c_wavefronts"), a);
	fmt_si(calc_num(o, "l1_bytes"), "B", a, sizeof a);
	fmt_si(calc_num(o, "l1_sector_bytes"), "B", b, sizeof b);
	fmt_si(calc_num(o, "l2_bytes"), "B", c, sizeof c);
	fprintf(out,
		"    L1 %s at 128 B a wavefront (%s of 32-byte sectors asked for); L2 %s: each 32 x 32 block's rows "
		"of A and columns of B once, C once\n",
		a, b, c);
}

static void l2_print(FILE *out, const cJSON *k)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(k, "l2_model");
	if (!o)
		return;
	char a[48], b[48];
	bool ar = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "a_resident"));
	bool br = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "b_resident"));
	fmt_si(calc_num(k, "hbm_bytes"), "B", a, sizeof a);
	fmt_si(calc_num(k, "l2_bytes"), "B", b, sizeof b);
	fprintf(out, "  L2-aware: HBM %s (%.17g B), L2 %s (%.17g B, %s)\n", a, calc_num(k, "hbm_bytes"), b,
		calc_num(k, "l2_bytes"),
		cJSON_GetObjectItemCaseSensitive(k, "naive_model") ? "the L1 misses" : "the tiled re-reads");
	fprintf(out,
		"    wave: %.17g SMs x %.17g CTA%s/SM = %.17g CTAs over %.17g x %.17g tiles: %.17g wave%s, raster %s "
		"(%s)\n",
		calc_num(o, "wave_ctas") / calc_num(o, "ctas_per_sm"), calc_num(o, "ctas_per_sm"),
		calc_num(o, "ctas_per_sm") == 1 ? "" : "s", calc_num(o, "wave_ctas"), calc_num(o, "tiles_m"),
		calc_num(o, "tiles_n"), calc_num(o, "waves"), calc_num(o, "waves") == 1 ? "" : "s",
		strcmp(calc_str(o, "raster"), "along_n") == 0 ? "along N" : "along M", calc_str(o, "raster_source"));
	fmt_bytes(calc_num(o, "l2_capacity_bytes"), a, sizeof a);
	fmt_bytes(calc_num(o, "l2_size_bytes"), b, sizeof b);
	fprintf(out, "    L2 capacity used: %s = %.4g x %s (%s)\n", a, calc_num(o, "l2_usable_fraction"), b,
		calc_str(o, "l2_usable_source"));
	fmt_bytes(calc_num(o, "wave_footprint_bytes"), a, sizeof a);
	fmt_bytes(calc_num(o, "reuse_footprint_bytes"), b, sizeof b);
	const cJSON *lib = cJSON_GetObjectItemCaseSensitive(o, "library");
	if (lib) {
		fmt_bytes(calc_num(lib, "wave_read_bytes"), a, sizeof a);
		fprintf(out, "    tile %.6g x %.6g, groups of %.6g N-tiles; the waves' panels read once: %s\n",
			calc_num(lib, "tile_m"), calc_num(lib, "tile_n"), calc_num(lib, "group_tiles"), a);
		fprintf(out, "    CTAs drifting apart: x = %.4g (onset %.4g): re-reads x %.4g (%s)\n",
			calc_num(lib, "drift_x"), calc_num(lib, "drift_onset"), calc_num(lib, "drift_factor"),
			calc_str(lib, "source"));
	} else {
		fprintf(out, "    panels (all of K) one wave touches: %s; up to the next row of tiles: %s\n", a, b);
	}
	fprintf(out, "    A panels %s: A read %.6g time%s; B panels %s: B read %.6g time%s\n",
		ar ? "stay in L2" : "do not stay in L2", calc_num(o, "a_reads"), calc_num(o, "a_reads") == 1 ? "" : "s",
		br ? "stay in L2" : "do not stay in L2", calc_num(o, "b_reads"),
		calc_num(o, "b_reads") == 1 ? "" : "s");
}

void kernel_print_json(FILE *out, const cJSON *k)
{
	char line[400], a[48], b[48];
	struct ridge_kernel_shape s;
	shape_from_json(k, &s);
	kernel_describe(&s, line, sizeof line);
	fprintf(out, "Kernel: %s\n", line);
	double flops = calc_num(k, "flops");
	fmt_si(flops, "FLOP", a, sizeof a);
	fprintf(out, "  FLOPs %s (%.17g)\n", a, flops);
	const cJSON *t;
	cJSON_ArrayForEach (t, cJSON_GetObjectItemCaseSensitive(k, "flop_terms")) {
		fmt_si(calc_num(t, "flops"), "FLOP", a, sizeof a);
		fprintf(out, "    %-46s %14s\n", calc_str(t, "name"), a);
	}
	fprintf(out, "  traffic (%s): %s\n", calc_str(k, "traffic"), calc_str(k, "traffic_model"));
	cJSON_ArrayForEach (t, cJSON_GetObjectItemCaseSensitive(k, "terms")) {
		fmt_si(calc_num(t, "bytes"), "B", a, sizeof a);
		double times = calc_num(t, "times");
		if (times != 1) {
			/* bytes counts every read: show the tensor once and the count. */
			fmt_si(calc_num(t, "bytes") / times, "B", b, sizeof b);
			fprintf(out, "    %-46s %14s (%s x %.6g)\n", calc_str(t, "name"), a, b, times);
		} else {
			fprintf(out, "    %-46s %14s\n", calc_str(t, "name"), a);
		}
	}
	fmt_si(calc_num(k, "read_bytes"), "B", a, sizeof a);
	fmt_si(calc_num(k, "write_bytes"), "B", b, sizeof b);
	fprintf(out, "  bytes %s read + %s written\n", a, b);
	const cJSON *tile = cJSON_GetObjectItemCaseSensitive(k, "tile");
	if (tile && s.kernel == RIDGE_KERNEL_FLASH_ATTENTION) {
		fprintf(out, "  query tile %.17g rows\n", calc_num(tile, "m"));
	} else if (tile) {
		fprintf(out, "  tile %.17gx%.17gx%.17g", calc_num(tile, "m"), calc_num(tile, "n"), calc_num(tile, "k"));
		if (calc_has(tile, "smem_per_block")) {
			fmt_bytes(calc_num(tile, "smem_per_block"), a, sizeof a);
			fprintf(out, ", %s of A and B tiles per stage in shared memory", a);
		}
		fprintf(out, "\n");
	}
	print_bytes(out, "tiled (the algorithm's re-reads):", calc_num(k, "tiled_bytes"), flops);
	print_bytes(out, "compulsory (every tensor once):", calc_num(k, "compulsory_bytes"), flops);
	if (calc_has(k, "unfused_bytes"))
		print_bytes(out, "unfused would move:", calc_num(k, "unfused_bytes"), flops);
	if (calc_has(k, "fused_bytes"))
		print_bytes(out, "fused would move:", calc_num(k, "fused_bytes"), flops);
	naive_print(out, k);
	l2_print(out, k);
	if (calc_has(k, "tensor_core_eligible")) {
		bool eligible = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(k, "tensor_core_eligible"));
		bool fast = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(k, "tensor_core_fast_path"));
		bool used = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(k, "uses_tensor_cores"));
		if (!eligible)
			fprintf(out, "  tensor cores: not eligible: %s\n", calc_str(k, "reason"));
		else
			fprintf(out, "  tensor cores: eligible%s%s%s\n",
				fast ? "" : ", off the aligned fast path: ", fast ? "" : calc_str(k, "reason"),
				!used ? " (not used here)" : "");
		if (calc_has(k, "layout"))
			fprintf(out, "  layout: %s\n", calc_str(k, "layout_text"));
	}
	if (calc_has(k, "note"))
		fprintf(out, "  note: %s\n", calc_str(k, "note"));
}

void kernel_rule_json(cJSON *o, const struct ridge_gemm_tensor_rule *rule)
{
	const struct ridge_blas_call *c = &rule->call;
	char text[200];
	cJSON_AddStringToObject(o, "layout", align_layout_name(rule->layout));
	snprintf(text, sizeof text, "%s: cuBLAS %c%c, m=%lld n=%lld k=%lld, lda=%lld ldb=%lld ldc=%lld",
		 rule->layout == RIDGE_GEMM_LAYOUT_LINEAR ? "linear (x W^T, W [N,K] row-major, as F.linear)"
							  : "matmul (A [M,K] x B [K,N], both row-major)",
		 c->trans_a ? 'T' : 'N', c->trans_b ? 'T' : 'N', c->m, c->n, c->k, c->lda, c->ldb, c->ldc);
	cJSON_AddStringToObject(o, "layout_text", text);
	cJSON_AddStringToObject(o, "alignment_severity", align_severity_name(rule->severity));
	cJSON_AddBoolToObject(o, "alignment_required", rule->required);
	cJSON *conds = cJSON_AddArrayToObject(o, "alignment_conditions");
	for (int i = 0; i < RIDGE_GEMM_CONDITIONS; i++) {
		const struct ridge_gemm_condition *cond = &rule->conditions[i];
		cJSON *t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "term", cond->term);
		char dim[2] = { cond->dim, '\0' };
		cJSON_AddStringToObject(t, "dim", dim);
		cJSON_AddNumberToObject(t, "value", (double)cond->value);
		cJSON_AddNumberToObject(t, "multiple", (double)cond->multiple);
		cJSON_AddBoolToObject(t, "ok", cond->ok);
		cJSON_AddItemToArray(conds, t);
	}
}

cJSON *kernel_json(const struct ridge_kernel_shape *s, const struct ridge_kernel_cost *c,
		   const struct ridge_kernel_path *path)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", intensity_kernel_name(s->kernel));
	cJSON_AddStringToObject(o, "dtype", ridge_dtype_name(s->dtype));
	cJSON *shape = cJSON_AddObjectToObject(o, "shape");
	const struct {
		const char *key;
		double value;
	} dims[] = { { "m", s->m },
		     { "n", s->n },
		     { "k", s->k },
		     { "batch", s->batch },
		     { "seq", s->seq },
		     { "heads", s->heads },
		     { "kv_heads", s->kv_heads },
		     { "head_dim", s->head_dim } };
	for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
		if (dims[i].value > 0)
			json_number(shape, dims[i].key, dims[i].value);
	if (is_attention(s->kernel))
		cJSON_AddBoolToObject(shape, "causal", s->causal);
	if (s->kernel == RIDGE_KERNEL_RESIDUAL_RMSNORM || s->kernel == RIDGE_KERNEL_RMSNORM_LINEAR)
		cJSON_AddBoolToObject(shape, "fused", s->fused);
	if (s->kernel == RIDGE_KERNEL_SOFTMAX)
		cJSON_AddNumberToObject(shape, "passes", s->passes ? s->passes : 2);
	if (c->tile_m > 0) {
		cJSON *tile = cJSON_AddObjectToObject(o, "tile");
		json_number(tile, "m", c->tile_m);
		if (c->tile_n > 0) {
			json_number(tile, "n", c->tile_n);
			json_number(tile, "k", c->tile_k);
		}
		if (c->smem_per_block > 0)
			json_number(tile, "smem_per_block", c->smem_per_block);
	}
	cJSON_AddStringToObject(o, "traffic", intensity_traffic_name(c->traffic));
	static const struct json_field kernel_cost_fields[] = {
		JSON_FIELD_AS(struct ridge_kernel_cost, "traffic_model", model),
		JSON_FIELDS(struct ridge_kernel_cost, flops, bytes, read_bytes, write_bytes, intensity, tiled_bytes,
			    compulsory_bytes),
	};
	json_put_fields(o, c, kernel_cost_fields, JSON_FIELD_COUNT(kernel_cost_fields));
	json_number(o, "compulsory_intensity", c->flops / c->compulsory_bytes);
	if (c->has_alternative)
		json_number(o, s->fused ? "unfused_bytes" : "fused_bytes", c->alternative_bytes);
	cJSON *flop_terms = cJSON_AddArrayToObject(o, "flop_terms");
	for (int i = 0; i < c->flop_term_count; i++) {
		cJSON *t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "name", c->flop_terms[i].name);
		json_number(t, "flops", c->flop_terms[i].flops);
		cJSON_AddItemToArray(flop_terms, t);
	}
	cJSON *terms = cJSON_AddArrayToObject(o, "terms");
	for (int i = 0; i < c->term_count; i++) {
		cJSON *t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "name", c->terms[i].name);
		json_number(t, "bytes", c->terms[i].bytes);
		json_number(t, "times", c->terms[i].times);
		cJSON_AddBoolToObject(t, "write", c->terms[i].write);
		cJSON_AddItemToArray(terms, t);
	}
	if (c->naive.modelled)
		naive_json(o, &c->naive);
	if (c->l2.modelled)
		l2_json(o, &c->l2);
	if (path) {
		if (c->matrix_work) {
			cJSON_AddBoolToObject(o, "tensor_core_eligible", path->tensor_eligible);
			cJSON_AddBoolToObject(o, "tensor_core_fast_path", path->fast_path);
			if (!path->tensor_eligible || !path->fast_path)
				cJSON_AddStringToObject(o, "reason", path->reason);
			if (path->has_rule)
				kernel_rule_json(o, &path->rule);
		}
		cJSON_AddBoolToObject(o, "uses_tensor_cores", path->uses_matrix);
		if (path->note[0])
			cJSON_AddStringToObject(o, "note", path->note);
	}
	return o;
}
