/* The explorer's state machine: keys -> inputs -> results, with no terminal.
 * Results are checked against the model functions called directly (the TUI
 * must show what the CLI computes) and against the exact answers the
 * references give (75% for 256 threads / 32 registers / 32 KiB on H100). */
#include "test_util.h"

#include <ncurses.h>
#include <stdlib.h>
#include <string.h>

#include "panels.h"
#include "state.h"

static int gpu_index(const char *id)
{
	const struct hwdb_entry *e = hwdb_find(test_hwdb(), id);
	if (!e)
		fail_msg("no hwdb entry '%s'", id);
	return (int)(e - test_hwdb()->entries);
}

static struct tui_state *new_state(const char *gpu)
{
	struct tui_state *s = malloc(sizeof *s);
	assert_non_null(s);
	tui_state_init(s, test_hwdb(), gpu_index(gpu));
	return s;
}

static void keys(struct tui_state *s, const char *text)
{
	for (const char *c = text; *c; c++)
		tui_state_key(s, (unsigned char)*c);
}

/* Types a value into the selected field: Enter, clear, text, Enter. */
static void type_value(struct tui_state *s, const char *text)
{
	tui_state_key(s, '\r');
	assert_int_equal(s->prompt, TUI_PROMPT_FIELD);
	tui_state_key(s, 21); /* ^U */
	keys(s, text);
	tui_state_key(s, '\r');
	assert_int_equal(s->prompt, TUI_PROMPT_NONE);
}

/* Selects the field with key in the current panel. */
static void select_field(struct tui_state *s, const char *key)
{
	const struct tui_field *fields[32];
	int n = tui_panel_fields(s, s->panel, fields, 32);
	for (int i = 0; i < n; i++) {
		if (strcmp(fields[i]->key, key) == 0) {
			/* By keys, as a user would: Down wraps around. */
			while (tui_state_selected_field(s) != fields[i])
				tui_state_key(s, KEY_DOWN);
			return;
		}
	}
	fail_msg("panel %s has no field '%s'", tui_panel_name(s->panel), key);
}

static void test_panels_and_quit(void **state)
{
	(void)state;
	struct tui_state *s = new_state("h100-sxm");
	assert_int_equal(s->panel, TUI_PANEL_HW);
	/* Tab and Shift-Tab cycle; number keys jump. */
	for (int i = 1; i <= TUI_PANEL_COUNT; i++) {
		tui_state_key(s, '\t');
		assert_int_equal(s->panel, i % TUI_PANEL_COUNT);
	}
	tui_state_key(s, KEY_BTAB);
	assert_int_equal(s->panel, TUI_PANEL_COST);
	keys(s, "3");
	assert_int_equal(s->panel, TUI_PANEL_OCCUPANCY);
	keys(s, "1");
	assert_int_equal(s->panel, TUI_PANEL_HW);
	/* Help: ? opens, any key closes (and does nothing else), q quits. */
	keys(s, "?");
	assert_true(s->help);
	keys(s, "4");
	assert_false(s->help);
	assert_int_equal(s->panel, TUI_PANEL_HW);
	tui_state_key(s, KEY_F(1));
	assert_true(s->help);
	keys(s, "q");
	assert_true(s->quit);
	/* Resize changes nothing in the state. */
	struct tui_state *t = new_state("h100-sxm");
	struct tui_state before = *t;
	tui_state_key(t, KEY_RESIZE);
	assert_memory_equal(&before.in, &t->in, sizeof t->in);
	assert_int_equal(before.panel, t->panel);
	free(s);
	free(t);
}

/* The reference's case A: 256 threads, 32 registers, 32 KiB static on
 * H100/H200 -> 6 blocks, 48 warps, 75%, shared-memory limited (the textbook's
 * 87.5% forgets the 1 KiB reserve). Case B: 48 registers, 48 KiB -> 50%. */
static void test_occupancy_keys(void **state)
{
	(void)state;
	struct tui_state *s = new_state("h100-sxm");
	keys(s, "3");
	select_field(s, "threads");
	assert_true(s->in.threads == 256);
	select_field(s, "regs");
	type_value(s, "32");
	select_field(s, "smem");
	type_value(s, "32KiB");
	assert_true(s->in.smem == 32768);
	const struct tui_occupancy_results *r = &s->out.occupancy;
	assert_true(r->ok);
	assert_int_equal(r->analysis.result.blocks_per_sm, 6);
	assert_int_equal(r->analysis.result.active_warps, 48);
	assert_true(r->analysis.result.occupancy == 0.75);
	assert_int_equal(r->analysis.result.limiter, RIDGE_OCC_SHARED_MEMORY);

	select_field(s, "regs");
	type_value(s, "48");
	select_field(s, "smem");
	type_value(s, "48 KiB");
	assert_int_equal(r->analysis.result.blocks_per_sm, 4);
	assert_true(r->analysis.result.occupancy == 0.5);

	/* Threads step by whole warps, big steps double. */
	select_field(s, "threads");
	tui_state_key(s, KEY_RIGHT);
	assert_true(s->in.threads == 288);
	tui_state_key(s, KEY_LEFT);
	tui_state_key(s, KEY_LEFT);
	assert_true(s->in.threads == 224);
	type_value(s, "100");
	tui_state_key(s, KEY_RIGHT);
	assert_true(s->in.threads == 128); /* to the next whole warp */
	tui_state_key(s, KEY_PPAGE);
	assert_true(s->in.threads == 256);
	type_value(s, "1024");
	tui_state_key(s, KEY_RIGHT); /* clamped at the field's maximum */
	assert_true(s->in.threads == 1024);

	/* Every sweep point is occupancy_compute() at that block size. */
	const struct ridge_gpu *gpu = tui_state_gpu(s);
	assert_true(r->sweep_count == gpu->max_threads_per_block / gpu->warp_size);
	for (int i = 0; i < r->sweep_count; i++) {
		struct ridge_occupancy_input in;
		struct ridge_occupancy_result out;
		char err[200];
		tui_occupancy_input(&s->in, gpu, &in);
		in.threads_per_block = r->sweep_threads[i];
		assert_int_equal(occupancy_compute(gpu, &in, &out, err, sizeof err), 0);
		assert_true(out.occupancy == r->sweep_occupancy[i]);
	}
	free(s);
}

static void test_editing(void **state)
{
	(void)state;
	struct tui_state *s = new_state("h100-sxm");
	keys(s, "3");
	select_field(s, "regs");
	double before = s->in.regs;
	/* A bad value: an error message naming the input, the value unchanged. */
	type_value(s, "abc");
	assert_true(s->message_error);
	assert_non_null(strstr(s->message, "registers/thread"));
	assert_true(s->in.regs == before);
	type_value(s, "12.5");
	assert_true(s->message_error);
	assert_non_null(strstr(s->message, "whole number"));
	type_value(s, "100000");
	assert_non_null(strstr(s->message, "out of range"));
	assert_true(s->in.regs == before);
	/* Esc cancels; Backspace edits. */
	tui_state_key(s, '\r');
	keys(s, "99");
	tui_state_key(s, 27);
	assert_int_equal(s->prompt, TUI_PROMPT_NONE);
	assert_true(s->in.regs == before);
	tui_state_key(s, '\r');
	tui_state_key(s, 21);
	keys(s, "641");
	tui_state_key(s, KEY_BACKSPACE);
	tui_state_key(s, '\r');
	assert_true(s->in.regs == 64);
	/* The prompt opens with the value selected, as a form's field does: the
	 * first key typed replaces it (64, then 32 typed: 32, not 6432). */
	tui_state_key(s, '\r');
	assert_true(s->edit_selected);
	assert_string_equal(s->edit, "64");
	keys(s, "32");
	assert_string_equal(s->edit, "32");
	tui_state_key(s, '\r');
	assert_true(s->in.regs == 32);
	/* End keeps it to edit its end: 32, Backspace, 4 is 34. */
	tui_state_key(s, '\r');
	tui_state_key(s, KEY_END);
	assert_false(s->edit_selected);
	tui_state_key(s, KEY_BACKSPACE);
	keys(s, "4");
	tui_state_key(s, '\r');
	assert_true(s->in.regs == 34);
	/* Backspace on the selection clears it all. */
	tui_state_key(s, '\r');
	tui_state_key(s, KEY_BACKSPACE);
	assert_string_equal(s->edit, "");
	keys(s, "40");
	tui_state_key(s, '\r');
	assert_true(s->in.regs == 40);
	/* Keys typed into a prompt are text, not commands. */
	tui_state_key(s, '\r');
	keys(s, "q");
	assert_false(s->quit);
	tui_state_key(s, 27);

	/* Percent fields: 45%, 0.45 and 45 are all 45%. */
	keys(s, "5");
	select_field(s, "mfu");
	const char *forms[] = { "45%", "0.45", "45" };
	for (int i = 0; i < 3; i++) {
		type_value(s, forms[i]);
		assert_true(s->in.train_mfu == 0.45);
	}
	char text[64];
	tui_field_format(s, tui_state_selected_field(s), text, sizeof text);
	assert_string_equal(text, "45%");
	/* Unsettable fields: empty text unsets, stepping down past the minimum unsets. */
	select_field(s, "target_mfu");
	type_value(s, "");
	assert_true(s->in.train_target_mfu == 0);
	tui_field_format(s, tui_state_selected_field(s), text, sizeof text);
	assert_string_equal(text, "-");
	free(s);
}

static void test_gpu_choice(void **state)
{
	(void)state;
	struct tui_state *s = new_state("h100-sxm");
	/* The hardware panel's first field is the GPU: typed by alias too. */
	type_value(s, "NVIDIA H200");
	assert_string_equal(tui_state_gpu(s)->id, "h200-sxm");
	type_value(s, "h100");
	assert_true(s->message_error);
	assert_non_null(strstr(s->message, "closest"));
	assert_string_equal(tui_state_gpu(s)->id, "h200-sxm");
	/* Prices at the old GPU's default follow the GPU; typed ones stay. */
	assert_true(s->in.train_price == tui_state_gpu(s)->price_usd_per_hour);
	type_value(s, "mi300x");
	assert_true(s->in.train_price == tui_state_gpu(s)->price_usd_per_hour);
	keys(s, "5");
	select_field(s, "price");
	type_value(s, "$1.25");
	keys(s, "1");
	tui_state_key(s, KEY_RIGHT);
	assert_true(s->in.train_price == 1.25);
	/* c compares with the next GPU, again stops. */
	keys(s, "c");
	assert_non_null(tui_state_compare_gpu(s));
	assert_true(s->in.compare == (s->in.gpu + 1) % test_hwdb()->count);
	assert_true(s->out.hw[1][RIDGE_BF16].has);
	keys(s, "c");
	assert_null(tui_state_compare_gpu(s));
	/* The GPU field cycles through every entry and wraps. */
	int start = s->in.gpu;
	for (int i = 0; i < test_hwdb()->count; i++)
		tui_state_key(s, KEY_RIGHT);
	assert_int_equal(s->in.gpu, start);
	free(s);
}

static void test_roofline_matches_model(void **state)
{
	(void)state;
	struct tui_state *s = new_state("h100-sxm");
	keys(s, "2");
	const struct tui_roofline_results *r = &s->out.roofline;
	assert_true(r->ok);
	/* GEMM mode: the model's own calls give the same point, bit for bit. */
	struct ridge_kernel_shape shape;
	struct ridge_kernel_cost cost;
	struct ridge_roofline_ceiling ceiling;
	struct ridge_kernel_path path;
	struct ridge_roofline_point point;
	char err[200];
	assert_int_equal(tui_roofline_shape(&s->in, &shape, err, sizeof err), 0);
	const struct ridge_gpu *gpu = tui_state_gpu(s);
	assert_int_equal(intensity_kernel_on(gpu, &shape, &cost, err, sizeof err), 0);
	assert_int_equal(
		intensity_ceiling(gpu, &shape, &cost, false, false, RIDGE_LEVEL_HBM, &ceiling, &path, err, sizeof err),
		0);
	assert_int_equal(roofline_place(&ceiling, cost.flops, cost.bytes, 0, &point, err, sizeof err), 0);
	assert_true(r->point.intensity == point.intensity);
	assert_true(r->point.attainable_flops == point.attainable_flops);
	assert_true(r->point.time_floor_s == point.time_floor_s);
	assert_true(r->cost.flops == 2.0 * 4096 * 4096 * 4096);
	/* M x2 moves the point: FLOPs double. */
	select_field(s, "m");
	tui_state_key(s, KEY_RIGHT);
	assert_true(s->in.gemm_m == 8192);
	assert_true(r->cost.flops == 2.0 * 8192 * 4096 * 4096);
	/* A misaligned K leaves cuBLAS's aligned kernels (model/align.c's rule:
	 * K is lda and ldb of the TN call) but stays on tensor cores (cuBLAS >= 11). */
	select_field(s, "k");
	type_value(s, "4095");
	assert_true(r->path.tensor_eligible);
	assert_false(r->path.fast_path);
	assert_non_null(strstr(r->path.reason, "K=4095"));
	/* Intensity mode: attainable = min(peak, I x bandwidth): 10 x 3.35 TB/s. */
	keys(s, "m");
	assert_int_equal(s->in.roofline_mode, TUI_ROOFLINE_INTENSITY);
	assert_true(r->ok);
	assert_true(r->point.attainable_flops == 10 * 3.35e12);
	assert_int_equal(r->point.bound, RIDGE_BOUND_MEMORY);
	select_field(s, "intensity");
	type_value(s, "1000");
	assert_true(r->point.attainable_flops == 989.4e12);
	assert_int_equal(r->point.bound, RIDGE_BOUND_COMPUTE);
	/* Every dtype with a rate is a ceiling on the plot; HBM is always known. */
	assert_true(r->compute_count >= 7);
	assert_true(r->has_level[RIDGE_LEVEL_HBM]);
	assert_true(r->level_bandwidth[RIDGE_LEVEL_HBM] == 3.35e12);
	/* A dtype with no path on the GPU: an error, not a number. */
	struct tui_state *a = new_state("a100-sxm-80gb");
	keys(a, "2m");
	select_field(a, "dtype");
	type_value(a, "fp8");
	assert_false(a->out.roofline.ok);
	assert_true(a->out.roofline.error[0] != '\0');
	free(a);
	free(s);
}

static void test_align(void **state)
{
	(void)state;
	struct tui_state *s = new_state("h100-sxm");
	keys(s, "4");
	const struct tui_align_results *out = &s->out.align;
	const struct align_run *r = &out->run;
	/* 4096 and 11008 are multiples of 64; GPT-2's vocabulary 50257 is not even
	 * a multiple of 8: the next aligned value is 50264. */
	assert_true(out->ok);
	assert_int_equal(r->count, 3);
	assert_int_equal(r->errors, 1);
	assert_int_equal(r->findings[2].dim.severity, RIDGE_ALIGN_ERROR);
	assert_true(r->findings[2].dim.suggested == 50264);
	assert_true(r->findings[2].dim.suggested_recommended == 50304);
	select_field(s, "dims");
	type_value(s, "d_model=6000,ffn=21845");
	assert_int_equal(r->count, 2);
	assert_string_equal(r->findings[0].name, "d_model");
	assert_int_equal(r->findings[0].dim.severity, RIDGE_ALIGN_WARNING); /* 6000 = 8 x 750, not 64 x n */
	assert_int_equal(r->findings[1].dim.severity, RIDGE_ALIGN_ERROR);
	type_value(s, "4096,,8");
	assert_false(out->ok);
	assert_non_null(strstr(out->error, "empty item 2"));
	/* A model config path is a request for the caller (a file to read). */
	select_field(s, "model");
	type_value(s, "examples/models/llama-3-8b.json");
	assert_int_equal(s->request, TUI_REQ_LOAD_MODEL);
	assert_false(out->ok);
	free(s);
}

static void test_cost_matches_model(void **state)
{
	(void)state;
	struct tui_state *s = new_state("h100-sxm");
	keys(s, "5");
	const struct tui_cost_results *r = &s->out.cost;
	assert_true(r->ok);
	struct ridge_train_input t;
	struct ridge_train_comparison c;
	char err[200];
	const struct ridge_gpu *gpu = tui_state_gpu(s);
	assert_int_equal(tui_train_input(&s->in, gpu, &t, err, sizeof err), 0);
	assert_true(t.peak_flops == 989.4e12);
	assert_int_equal(cost_train_compare(&t, s->in.train_target_mfu, false, 0, &c, NULL, err, sizeof err), 0);
	assert_true(r->train.current.cost_usd == c.current.cost_usd);
	assert_true(r->train.savings_usd == c.savings_usd);
	/* MFU up one step: the cost falls. */
	select_field(s, "mfu");
	double cost = r->train.current.cost_usd;
	tui_state_key(s, KEY_RIGHT);
	assert_true(s->in.train_mfu == 0.41);
	assert_true(r->train.current.cost_usd < cost);
	/* Decode: the model's numbers for the panel's inputs. */
	keys(s, "m");
	assert_int_equal(s->in.cost_mode, TUI_COST_DECODE);
	struct ridge_decode_input d;
	struct ridge_decode_result out;
	assert_int_equal(tui_decode_input(&s->in, gpu, &d, err, sizeof err), 0);
	assert_true(d.weight_bytes == 2 && d.kv_bytes == 2);
	assert_int_equal(cost_decode(&d, &out, NULL, err, sizeof err), 0);
	assert_true(r->decode.tpot_s == out.tpot_s);
	assert_true(r->decode.usd_per_million_tokens == out.usd_per_million_tokens);
	/* Bigger batch: more tokens per second. */
	select_field(s, "batch");
	double tps = r->decode.tokens_per_s;
	tui_state_key(s, KEY_RIGHT);
	assert_true(r->decode.tokens_per_s > tps);
	free(s);
}

static void test_reset_and_requests(void **state)
{
	(void)state;
	struct tui_state *s = new_state("h100-sxm");
	keys(s, "3");
	select_field(s, "regs");
	type_value(s, "200");
	keys(s, "r");
	assert_true(s->in.regs == 32);
	/* Save and open only ask: the caller does the I/O. */
	keys(s, "s");
	assert_int_equal(s->prompt, TUI_PROMPT_SAVE);
	assert_string_equal(s->edit, "whatif.yaml");
	tui_state_key(s, 21);
	keys(s, "x.yaml");
	tui_state_key(s, '\r');
	assert_int_equal(s->request, TUI_REQ_SAVE);
	assert_string_equal(s->request_path, "x.yaml");
	s->request = TUI_REQ_NONE;
	keys(s, "o");
	assert_int_equal(s->prompt, TUI_PROMPT_OPEN);
	tui_state_key(s, 21);
	tui_state_key(s, '\r');
	assert_int_equal(s->request, TUI_REQ_NONE);
	assert_true(s->message_error);
	free(s);
}

/* Every field's default reads back through its own parser: what the form
 * shows can be typed back. */
static void test_format_parse_roundtrip(void **state)
{
	(void)state;
	struct tui_state *s = new_state("h100-sxm");
	for (int mode = 0; mode < 2; mode++) {
		s->in.roofline_mode = mode;
		s->in.cost_mode = mode;
		for (int p = 0; p < TUI_PANEL_COUNT; p++) {
			const struct tui_field *fields[32];
			int n = tui_panel_fields(s, (enum tui_panel_id)p, fields, 32);
			for (int i = 0; i < n; i++) {
				char text[TUI_PATH], err[200];
				tui_field_format(s, fields[i], text, sizeof text);
				struct tui_inputs copy = s->in;
				if (fields[i]->kind == TUI_FIELD_TEXT && strcmp(text, "-") == 0)
					continue;
				if (tui_field_set_text(&copy, test_hwdb(), fields[i], text, err, sizeof err) != 0)
					fail_msg("%s: '%s' does not read back: %s", fields[i]->key, text, err);
				assert_memory_equal(&copy, &s->in, sizeof copy);
			}
		}
	}
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_panels_and_quit),
		cmocka_unit_test(test_occupancy_keys),
		cmocka_unit_test(test_editing),
		cmocka_unit_test(test_gpu_choice),
		cmocka_unit_test(test_roofline_matches_model),
		cmocka_unit_test(test_align),
		cmocka_unit_test(test_cost_matches_model),
		cmocka_unit_test(test_reset_and_requests),
		cmocka_unit_test(test_format_parse_roundtrip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
