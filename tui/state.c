/* The explorer's state machine. Pure: no terminal, no files, no globals but
 * static const tables. Results come from model/ (panels.h lists each panel's
 * compute function, one file per panel: state_<panel>.c). */
#include "state.h"

#include <float.h>
#include <math.h>
#include <ncurses.h> /* KEY_* codes only: no terminal is touched here */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panels.h"

static const char *const roofline_modes[] = { "gemm", "intensity" };
static const char *const gemm_algorithms[] = { "library", "tiled", "naive" };
static const char *const gemm_traffic[] = { "default", "tiled", "compulsory" }; /* enum ridge_traffic order */
static const char *const memory_levels[] = { "hbm", "l2", "smem" };
static const char *const cost_modes[] = { "train", "decode" };
static const char *const tensor_choices[] = { "tensor", "vector" };
/* model/cost's storage types (cost_storage_bytes). */
static const char *const storage_types[] = { "fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4" };
#define STORAGE_BF16 1
static const char *const flops_formulas[] = { "6n", "palm" };
static const char *const booleans[] = { "false", "true" };
static const char *const booleans_yes[] = { "no", "yes" };

/* A row states what varies; these say the rest once. A number field's range,
 * unit and starting value are its calculator's parameter's (.calc), so no
 * row writes a range. */
/* clang-format off */
#define FIELD(panel_, mode_, key_, label_, kind_, member)                                                        \
	.panel = (panel_), .mode = (mode_), .key = (key_), .label = (label_), .kind = (kind_),                   \
	.offset = offsetof(struct tui_inputs, member), .size = sizeof(((struct tui_inputs *)0)->member)
#define STEP_ADD(step_, big) .step_kind = TUI_STEP_ADD, .step = (step_), .big_step = (big)
#define STEP_MUL(factor, big) .step_kind = TUI_STEP_MUL, .step = (factor), .big_step = (big)
#define STEP_WARP(big) .step_kind = TUI_STEP_WARP, .big_step = (big)
#define CHOICES(list) .choices = (list), .choice_count = (int)(sizeof(list) / sizeof((list)[0]))
#define UNSET(value, text) .has_unset = true, .unset_value = (value), .unset_text = (text)

/* The inputs both cost calculators take: labelled and stepped alike in both modes. */
#define COST_PARAMS(mode, calc_, member)                                                                         \
	{ FIELD(TUI_PANEL_COST, mode, "params", "parameters", TUI_FIELD_NUMBER, member), STEP_MUL(1.25, 10), .calc = (calc_) }
#define COST_GPUS(mode, calc_, member)                                                                           \
	{ FIELD(TUI_PANEL_COST, mode, "gpus", "GPUs", TUI_FIELD_INTEGER, member), STEP_MUL(2, 8), .calc = (calc_) }
#define COST_PRICE(mode, calc_, member)                                                                          \
	{ FIELD(TUI_PANEL_COST, mode, "price", "$/GPU-hour", TUI_FIELD_NUMBER, member), STEP_ADD(0.25, 1), .calc = (calc_) }
#define COST_PEAK(mode, calc_, member)                                                                           \
	{ FIELD(TUI_PANEL_COST, mode, "peak", "peak FLOP/s", TUI_FIELD_NUMBER, member), STEP_MUL(1.1, 2),            \
	  UNSET(0, "hwdb"), .calc = (calc_) }

const struct tui_field tui_fields[] = {
	/* The hardware panel is no calculator: its GPU is every panel's (an item's gpu), held as an hwdb index. */
	{ FIELD(TUI_PANEL_HW, -1, "gpu", "GPU", TUI_FIELD_GPU, gpu) },
	{ FIELD(TUI_PANEL_HW, -1, "compare", "compare with", TUI_FIELD_GPU, compare), UNSET(-1, "none") },

	/* The mode picks the calculator (gemm, or roofline with a kernel or an intensity); the algorithm is
	 * gemm's naive flag and tile, roofline's kernel name (scenario.c maps them): neither is one parameter.
	 * GEMM mode saves a gemm item at HBM and a roofline item elsewhere; their m, n, k agree (test_tui_tables.c). */
	{ FIELD(TUI_PANEL_ROOFLINE, -1, "mode", "kernel", TUI_FIELD_CHOICE, roofline_mode), CHOICES(roofline_modes) },
	{ FIELD(TUI_PANEL_ROOFLINE, TUI_ROOFLINE_GEMM, "algorithm", "algorithm", TUI_FIELD_CHOICE, gemm_algorithm), CHOICES(gemm_algorithms) },
	{ FIELD(TUI_PANEL_ROOFLINE, TUI_ROOFLINE_GEMM, "m", "M", TUI_FIELD_INTEGER, gemm_m), STEP_MUL(2, 16), .calc = &calc_gemm },
	{ FIELD(TUI_PANEL_ROOFLINE, TUI_ROOFLINE_GEMM, "n", "N", TUI_FIELD_INTEGER, gemm_n), STEP_MUL(2, 16), .calc = &calc_gemm },
	{ FIELD(TUI_PANEL_ROOFLINE, TUI_ROOFLINE_GEMM, "k", "K", TUI_FIELD_INTEGER, gemm_k), STEP_MUL(2, 16), .calc = &calc_gemm },
	{ FIELD(TUI_PANEL_ROOFLINE, TUI_ROOFLINE_GEMM, "tile", "tile (tiled)", TUI_FIELD_TEXT, gemm_tile), .calc = &calc_gemm },
	{ FIELD(TUI_PANEL_ROOFLINE, TUI_ROOFLINE_GEMM, "traffic", "traffic", TUI_FIELD_CHOICE, gemm_traffic), CHOICES(gemm_traffic), .calc = &calc_gemm },
	{ FIELD(TUI_PANEL_ROOFLINE, TUI_ROOFLINE_INTENSITY, "intensity", "FLOP/byte", TUI_FIELD_NUMBER, intensity), STEP_MUL(1.25, 10), .calc = &calc_roofline },
	{ FIELD(TUI_PANEL_ROOFLINE, -1, "dtype", "dtype", TUI_FIELD_DTYPE, roofline_dtype), .calc = &calc_roofline },
	{ FIELD(TUI_PANEL_ROOFLINE, -1, "no_tensor", "units", TUI_FIELD_CHOICE, roofline_no_tensor), CHOICES(tensor_choices), .calc = &calc_roofline },
	{ FIELD(TUI_PANEL_ROOFLINE, -1, "level", "memory level", TUI_FIELD_CHOICE, roofline_level), CHOICES(memory_levels), .calc = &calc_roofline },

	{ FIELD(TUI_PANEL_OCCUPANCY, -1, "threads", "threads/block", TUI_FIELD_INTEGER, threads), STEP_WARP(2), .calc = &calc_occupancy },
	{ FIELD(TUI_PANEL_OCCUPANCY, -1, "regs", "registers/thread", TUI_FIELD_INTEGER, regs), STEP_ADD(8, 32), .calc = &calc_occupancy },
	{ FIELD(TUI_PANEL_OCCUPANCY, -1, "smem", "shared mem/block", TUI_FIELD_NUMBER, smem), STEP_ADD(1024, 16384), .calc = &calc_occupancy },
	{ FIELD(TUI_PANEL_OCCUPANCY, -1, "dyn_smem", "dynamic smem", TUI_FIELD_NUMBER, dyn_smem), STEP_ADD(1024, 16384), .calc = &calc_occupancy },
	{ FIELD(TUI_PANEL_OCCUPANCY, -1, "carveout", "carveout %", TUI_FIELD_INTEGER, carveout), STEP_ADD(25, 50), UNSET(-1, "default"), .nvidia_only = true, .calc = &calc_occupancy },
	{ FIELD(TUI_PANEL_OCCUPANCY, -1, "optin", "opt-in smem", TUI_FIELD_CHOICE, optin), CHOICES(booleans_yes), .nvidia_only = true, .calc = &calc_occupancy },
	{ FIELD(TUI_PANEL_OCCUPANCY, -1, "barriers", "barriers/block", TUI_FIELD_INTEGER, barriers), STEP_ADD(1, 4), .calc = &calc_occupancy },

	{ FIELD(TUI_PANEL_ALIGN, -1, "dtype", "dtype", TUI_FIELD_DTYPE, align_dtype), .calc = &calc_align },
	{ FIELD(TUI_PANEL_ALIGN, -1, "dims", "dims", TUI_FIELD_TEXT, align_dims), .calc = &calc_align },
	{ FIELD(TUI_PANEL_ALIGN, -1, "model", "model config", TUI_FIELD_TEXT, align_model), .calc = &calc_align },
	{ FIELD(TUI_PANEL_ALIGN, -1, "tokens", "tokens (M)", TUI_FIELD_INTEGER, align_tokens), STEP_MUL(2, 16), .calc = &calc_align },

	/* The mode picks the calculator: cost train or cost decode. */
	{ FIELD(TUI_PANEL_COST, -1, "mode", "cost of", TUI_FIELD_CHOICE, cost_mode), CHOICES(cost_modes) },
	COST_PARAMS(TUI_COST_TRAIN, &calc_cost_train, train_params),
	{ FIELD(TUI_PANEL_COST, TUI_COST_TRAIN, "seq", "sequence", TUI_FIELD_INTEGER, train_seq), STEP_MUL(2, 16), .calc = &calc_cost_train },
	{ FIELD(TUI_PANEL_COST, TUI_COST_TRAIN, "batch", "global batch", TUI_FIELD_INTEGER, train_batch), STEP_MUL(2, 16), .calc = &calc_cost_train },
	{ FIELD(TUI_PANEL_COST, TUI_COST_TRAIN, "steps", "steps", TUI_FIELD_INTEGER, train_steps), STEP_MUL(2, 10), .calc = &calc_cost_train },
	COST_GPUS(TUI_COST_TRAIN, &calc_cost_train, train_gpus),
	{ FIELD(TUI_PANEL_COST, TUI_COST_TRAIN, "mfu", "MFU", TUI_FIELD_NUMBER, train_mfu), STEP_ADD(0.01, 0.1), .calc = &calc_cost_train },
	{ FIELD(TUI_PANEL_COST, TUI_COST_TRAIN, "target_mfu", "target MFU", TUI_FIELD_NUMBER, train_target_mfu), STEP_ADD(0.01, 0.1), UNSET(0, "-"), .calc = &calc_cost_train },
	COST_PRICE(TUI_COST_TRAIN, &calc_cost_train, train_price),
	{ FIELD(TUI_PANEL_COST, TUI_COST_TRAIN, "investment", "investment $", TUI_FIELD_NUMBER, train_investment), STEP_MUL(2, 10), UNSET(0, "-"), .calc = &calc_cost_train },
	{ FIELD(TUI_PANEL_COST, TUI_COST_TRAIN, "dtype", "compute dtype", TUI_FIELD_DTYPE, train_dtype), .calc = &calc_cost_train },
	COST_PEAK(TUI_COST_TRAIN, &calc_cost_train, train_peak),
	{ FIELD(TUI_PANEL_COST, TUI_COST_TRAIN, "flops_formula", "FLOPs formula", TUI_FIELD_CHOICE, train_formula), CHOICES(flops_formulas), .calc = &calc_cost_train },
	{ FIELD(TUI_PANEL_COST, TUI_COST_TRAIN, "layers", "layers (palm)", TUI_FIELD_INTEGER, train_layers), STEP_ADD(1, 8), .calc = &calc_cost_train },
	{ FIELD(TUI_PANEL_COST, TUI_COST_TRAIN, "heads", "heads (palm)", TUI_FIELD_INTEGER, train_heads), STEP_MUL(2, 8), .calc = &calc_cost_train },
	{ FIELD(TUI_PANEL_COST, TUI_COST_TRAIN, "head_dim", "head dim (palm)", TUI_FIELD_INTEGER, train_head_dim), STEP_MUL(2, 8), .calc = &calc_cost_train },
	{ FIELD(TUI_PANEL_COST, TUI_COST_TRAIN, "causal", "causal (palm)", TUI_FIELD_CHOICE, train_causal), CHOICES(booleans), .calc = &calc_cost_train },
	COST_PARAMS(TUI_COST_DECODE, &calc_cost_decode, decode_params),
	{ FIELD(TUI_PANEL_COST, TUI_COST_DECODE, "layers", "layers", TUI_FIELD_INTEGER, decode_layers), STEP_ADD(1, 8), .calc = &calc_cost_decode },
	{ FIELD(TUI_PANEL_COST, TUI_COST_DECODE, "kv_heads", "KV heads", TUI_FIELD_INTEGER, decode_kv_heads), STEP_MUL(2, 8), .calc = &calc_cost_decode },
	{ FIELD(TUI_PANEL_COST, TUI_COST_DECODE, "head_dim", "head dim", TUI_FIELD_INTEGER, decode_head_dim), STEP_MUL(2, 8), .calc = &calc_cost_decode },
	{ FIELD(TUI_PANEL_COST, TUI_COST_DECODE, "context", "context", TUI_FIELD_INTEGER, decode_context), STEP_MUL(2, 16), .calc = &calc_cost_decode },
	{ FIELD(TUI_PANEL_COST, TUI_COST_DECODE, "batch", "batch", TUI_FIELD_INTEGER, decode_batch), STEP_MUL(2, 16), .calc = &calc_cost_decode },
	COST_GPUS(TUI_COST_DECODE, &calc_cost_decode, decode_gpus),
	COST_PRICE(TUI_COST_DECODE, &calc_cost_decode, decode_price),
	{ FIELD(TUI_PANEL_COST, TUI_COST_DECODE, "weight_dtype", "weight dtype", TUI_FIELD_CHOICE, decode_weight_dtype), CHOICES(storage_types), .calc = &calc_cost_decode },
	{ FIELD(TUI_PANEL_COST, TUI_COST_DECODE, "kv_dtype", "KV dtype", TUI_FIELD_CHOICE, decode_kv_dtype), CHOICES(storage_types), .calc = &calc_cost_decode },
	{ FIELD(TUI_PANEL_COST, TUI_COST_DECODE, "compute_dtype", "compute dtype", TUI_FIELD_DTYPE, decode_dtype), .calc = &calc_cost_decode },
	COST_PEAK(TUI_COST_DECODE, &calc_cost_decode, decode_peak),
	{ FIELD(TUI_PANEL_COST, TUI_COST_DECODE, "overhead_ms", "overhead/step", TUI_FIELD_NUMBER, decode_overhead), STEP_ADD(1e-4, 1e-3), .calc = &calc_cost_decode },
};
/* clang-format on */
const size_t tui_field_count = sizeof tui_fields / sizeof tui_fields[0];

static const struct {
	const char *name, *title;
} panel_names[TUI_PANEL_COUNT] = {
	[TUI_PANEL_HW] = { "hardware", "Hardware" },
	[TUI_PANEL_ROOFLINE] = { "roofline", "Roofline" },
	[TUI_PANEL_OCCUPANCY] = { "occupancy", "Occupancy" },
	[TUI_PANEL_ALIGN] = { "align", "Alignment" },
	[TUI_PANEL_COST] = { "cost", "Cost" },
};

const char *tui_panel_name(enum tui_panel_id panel)
{
	return panel >= 0 && panel < TUI_PANEL_COUNT ? panel_names[panel].name : "?";
}

const char *tui_panel_title(enum tui_panel_id panel)
{
	return panel >= 0 && panel < TUI_PANEL_COUNT ? panel_names[panel].title : "?";
}

void tui_tab_label(enum tui_panel_id panel, char *buf, size_t len)
{
	snprintf(buf, len, " %d %s ", (int)panel + 1, tui_panel_title(panel));
}

int tui_tab_at(int x)
{
	int start = 0;
	for (int p = 0; p < TUI_PANEL_COUNT; p++) {
		char tab[32];
		tui_tab_label((enum tui_panel_id)p, tab, sizeof tab);
		int end = start + (int)strlen(tab);
		if (x >= start && x < end)
			return p;
		start = end;
	}
	return -1;
}

/* ---- field access ---- */

const struct param *tui_field_param(const struct tui_field *f)
{
	if (!f->calc)
		return NULL;
	int i = params_index(f->calc->params, f->calc->param_count, f->key);
	return i >= 0 ? &f->calc->params[i] : NULL;
}

void tui_field_range(const struct tui_field *f, double *lo, double *hi, bool *open_lo)
{
	const struct param *p = tui_field_param(f);
	*lo = p ? p->lo : 0;
	*hi = p ? p->hi : 0;
	*open_lo = p && (p->flags & PARAM_OPEN_LO);
}

/* The unit a number is typed and shown in: the parameter's. */
static enum ridge_unit field_unit(const struct tui_field *f)
{
	const struct param *p = tui_field_param(f);
	return p && p->kind == PARAM_NUMBER ? p->unit : RIDGE_UNIT_COUNT;
}

/* A fraction (an MFU) is shown and typed as a percentage. */
static bool field_percent(const struct tui_field *f)
{
	const struct param *p = tui_field_param(f);
	return p && p->kind == PARAM_FRACTION;
}

static double *num_ptr(struct tui_inputs *in, const struct tui_field *f)
{
	return (double *)((char *)in + f->offset);
}

static int *int_ptr(struct tui_inputs *in, const struct tui_field *f)
{
	return (int *)((char *)in + f->offset);
}

static char *text_ptr(struct tui_inputs *in, const struct tui_field *f)
{
	return (char *)in + f->offset;
}

static double num_value(const struct tui_inputs *in, const struct tui_field *f)
{
	return *(const double *)((const char *)in + f->offset);
}

static int int_value(const struct tui_inputs *in, const struct tui_field *f)
{
	return *(const int *)((const char *)in + f->offset);
}

int tui_panel_mode(const struct tui_state *s, enum tui_panel_id panel)
{
	switch (panel) {
	case TUI_PANEL_ROOFLINE:
		return s->in.roofline_mode;
	case TUI_PANEL_COST:
		return s->in.cost_mode;
	default:
		return 0;
	}
}

int tui_panel_fields(const struct tui_state *s, enum tui_panel_id panel, const struct tui_field **out, int max)
{
	int n = 0;
	int mode = tui_panel_mode(s, panel);
	const struct ridge_gpu *gpu = tui_state_gpu(s);
	bool amd = gpu && gpu->vendor == RIDGE_VENDOR_AMD;
	for (size_t i = 0; i < tui_field_count; i++) {
		const struct tui_field *f = &tui_fields[i];
		if (f->panel != panel || (f->mode >= 0 && f->mode != mode) || (f->nvidia_only && amd))
			continue;
		if (n < max)
			out[n] = f;
		n++;
	}
	return n;
}

#define MAX_PANEL_FIELDS 32

const struct tui_field *tui_state_selected_field(const struct tui_state *s)
{
	const struct tui_field *fields[MAX_PANEL_FIELDS];
	int n = tui_panel_fields(s, s->panel, fields, MAX_PANEL_FIELDS);
	if (n == 0)
		return NULL;
	int i = s->selected[s->panel];
	return fields[i < 0 ? 0 : i >= n ? n - 1 : i];
}

const struct tui_field *tui_field_find_in(enum tui_panel_id panel, const char *key)
{
	for (size_t i = 0; i < tui_field_count; i++)
		if (tui_fields[i].panel == panel && strcmp(tui_fields[i].key, key) == 0)
			return &tui_fields[i];
	return NULL;
}

const struct ridge_gpu *tui_state_gpu(const struct tui_state *s)
{
	if (!s->db || s->in.gpu < 0 || s->in.gpu >= s->db->count)
		return NULL;
	return &s->db->entries[s->in.gpu].gpu;
}

const struct ridge_gpu *tui_state_compare_gpu(const struct tui_state *s)
{
	if (!s->db || s->in.compare < 0 || s->in.compare >= s->db->count)
		return NULL;
	return &s->db->entries[s->in.compare].gpu;
}

/* Shortest text that reads back to the same value: "4096", "7e+10" -> "70G". */
static void format_number(double v, enum ridge_unit unit, bool integer, char *buf, size_t len)
{
	if (unit == RIDGE_UNIT_BYTES && v >= 1024 && fmod(v, 1024) == 0) {
		static const char *const bin[] = { "KiB", "MiB", "GiB", "TiB" };
		int i = 0;
		v /= 1024;
		while (i < 3 && v >= 1024 && fmod(v, 1024) == 0) {
			v /= 1024;
			i++;
		}
		snprintf(buf, len, "%.15g %s", v, bin[i]);
		return;
	}
	if (unit == RIDGE_UNIT_USD) {
		snprintf(buf, len, v >= 1e6 ? "$%.6g" : "$%.2f", v);
		return;
	}
	if (fabs(v) >= 1e6) {
		static const char *const si[] = { "K", "M", "G", "T", "P" };
		int i = -1;
		double scaled = v;
		while (i < 4 && fabs(scaled) >= 1000) {
			scaled /= 1000;
			i++;
		}
		snprintf(buf, len, "%.6g%s", scaled, si[i]);
		return;
	}
	if (integer)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.6g", v);
}

void tui_field_format(const struct tui_state *s, const struct tui_field *f, char *buf, size_t len)
{
	struct tui_inputs *in = (struct tui_inputs *)&s->in;
	switch (f->kind) {
	case TUI_FIELD_NUMBER:
	case TUI_FIELD_INTEGER: {
		double v = num_value(in, f);
		if (f->has_unset && v == f->unset_value)
			snprintf(buf, len, "%s", f->unset_text);
		else if (field_percent(f))
			snprintf(buf, len, "%.6g%%", v * 100);
		else
			format_number(v, field_unit(f), f->kind == TUI_FIELD_INTEGER, buf, len);
		break;
	}
	case TUI_FIELD_DTYPE:
		snprintf(buf, len, "%s", ridge_dtype_name((enum ridge_dtype)int_value(in, f)));
		break;
	case TUI_FIELD_GPU: {
		int i = int_value(in, f);
		if (!s->db || i < 0 || i >= s->db->count)
			snprintf(buf, len, "%s", f->has_unset ? f->unset_text : "?");
		else
			snprintf(buf, len, "%s", s->db->entries[i].gpu.id);
		break;
	}
	case TUI_FIELD_CHOICE: {
		int i = int_value(in, f);
		snprintf(buf, len, "%s", i >= 0 && i < f->choice_count ? f->choices[i] : "?");
		break;
	}
	case TUI_FIELD_TEXT:
		snprintf(buf, len, "%s", text_ptr(in, f)[0] ? text_ptr(in, f) : "-");
		break;
	}
}

static double clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

int tui_field_set_text(struct tui_inputs *in, const struct hwdb *db, const struct tui_field *f, const char *text,
		       char *err, size_t err_len)
{
	while (*text == ' ')
		text++;
	switch (f->kind) {
	case TUI_FIELD_NUMBER:
	case TUI_FIELD_INTEGER: {
		double v;
		if (f->has_unset && (strcmp(text, f->unset_text) == 0 || strcmp(text, "none") == 0 || !*text)) {
			*num_ptr(in, f) = f->unset_value;
			return 0;
		}
		if (field_percent(f)) {
			/* "45%" and "0.45" are both 45%; a plain number above 1 is read
			 * as a percentage too, since the field shows percentages. */
			char copy[64];
			snprintf(copy, sizeof copy, "%s", text);
			size_t n = strlen(copy);
			while (n && copy[n - 1] == ' ')
				copy[--n] = '\0';
			bool pct = n && copy[n - 1] == '%';
			if (pct)
				copy[--n] = '\0';
			if (ridge_quantity_parse(copy, RIDGE_UNIT_COUNT, &v, err, err_len) != 0)
				return -1;
			if (pct || v > 1)
				v /= 100;
		} else {
			/* The command line's parse: a bare number is in the flag's unit (ms for overhead_ms). */
			const struct param *p = tui_field_param(f);
			int rc = p && p->kind == PARAM_NUMBER
					 ? params_parse_number(p, text, &v, err, err_len)
					 : ridge_quantity_parse(text, RIDGE_UNIT_COUNT, &v, err, err_len);
			if (rc != 0)
				return -1;
		}
		if (f->kind == TUI_FIELD_INTEGER && v != floor(v)) {
			snprintf(err, err_len, "'%s' is not a whole number", text);
			return -1;
		}
		double lo, hi;
		bool open_lo;
		tui_field_range(f, &lo, &hi, &open_lo);
		if (!(v <= hi && (open_lo ? v > lo : v >= lo))) {
			/* The command line's words for the range. */
			char range[96];
			params_range_text(tui_field_param(f), range, sizeof range);
			snprintf(err, err_len, "'%s' is out of range (%s)", text, range);
			return -1;
		}
		*num_ptr(in, f) = v;
		return 0;
	}
	case TUI_FIELD_DTYPE: {
		enum ridge_dtype d;
		if (!ridge_dtype_parse(text, &d)) {
			snprintf(err, err_len, "unknown dtype '%s' (known: %s)", text, ridge_dtype_list());
			return -1;
		}
		*int_ptr(in, f) = (int)d;
		return 0;
	}
	case TUI_FIELD_GPU: {
		if (f->has_unset && (!*text || strcmp(text, f->unset_text) == 0 || strcmp(text, "-") == 0)) {
			*int_ptr(in, f) = -1;
			return 0;
		}
		const struct hwdb_entry *e = db ? hwdb_find(db, text) : NULL;
		if (!e) {
			const char *ids[3];
			int n = db ? hwdb_suggest(db, text, ids, 3) : 0;
			snprintf(err, err_len, "unknown GPU '%s'%s%s%s%s%s", text, n ? " (closest: " : "",
				 n ? ids[0] : "", n > 1 ? ", " : "", n > 1 ? ids[1] : "", n ? ")" : "");
			return -1;
		}
		*int_ptr(in, f) = (int)(e - db->entries);
		return 0;
	}
	case TUI_FIELD_CHOICE:
		for (int i = 0; i < f->choice_count; i++) {
			if (strcmp(text, f->choices[i]) == 0) {
				*int_ptr(in, f) = i;
				return 0;
			}
		}
		snprintf(err, err_len, "'%s' is not one of the choices", text);
		return -1;
	case TUI_FIELD_TEXT:
		if (strlen(text) >= f->size) {
			snprintf(err, err_len, "text too long (at most %zu characters)", f->size - 1);
			return -1;
		}
		snprintf(text_ptr(in, f), f->size, "%s", text);
		return 0;
	}
	snprintf(err, err_len, "cannot set '%s'", f->key);
	return -1;
}

/* ---- stepping ---- */

static void step_number(struct tui_state *s, const struct tui_field *f, int direction, bool big)
{
	double *p = num_ptr(&s->in, f);
	double v = *p;
	double lo, hi;
	bool open_lo;
	tui_field_range(f, &lo, &hi, &open_lo);
	/* The first value above an open lo the steps reach: one step above it
	 * on an additive scale (or where "not set" lies under it: a peak, an
	 * investment); dividing alone never reaches 0 (an intensity). */
	if (open_lo && f->kind == TUI_FIELD_INTEGER)
		lo += 1;
	else if (open_lo && (f->step_kind != TUI_STEP_MUL || f->has_unset))
		lo += f->step;
	else if (open_lo)
		lo = nextafter(lo, INFINITY);
	if (hi > DBL_MAX)
		hi = DBL_MAX;
	if (f->step_kind == TUI_STEP_WARP && tui_state_gpu(s) && tui_state_gpu(s)->max_threads_per_block > 0 &&
	    hi > tui_state_gpu(s)->max_threads_per_block)
		hi = tui_state_gpu(s)->max_threads_per_block; /* steps stay within the GPU's block */
	if (f->has_unset && v == f->unset_value) {
		/* Stepping up from "not set" starts at the first value of an
		 * additive scale; a multiplicative one (a peak, an investment) has
		 * no sensible first value: it is typed. */
		if (direction > 0 && f->step_kind != TUI_STEP_MUL)
			*p = f->unset_value < lo ? lo : f->step;
		else if (direction > 0)
			tui_state_message(s, false, "%s is not set: Enter types a value", f->label);
		return;
	}
	double next = v;
	switch (f->step_kind) {
	case TUI_STEP_ADD: {
		double step = big ? f->big_step : f->step;
		if (step < 1) {
			/* Fractional steps snap to their grid in exact decimal: 0.40 + 0.01
			 * is 41/100 (0.41), not 0.41000000000000003. */
			double per_unit = round(1 / step);
			next = (round(v * per_unit / (step * per_unit)) + direction) * (step * per_unit) / per_unit;
		} else {
			next = v + direction * step;
		}
		break;
	}
	case TUI_STEP_MUL: {
		double factor = big ? f->big_step : f->step;
		next = direction > 0 ? v * factor : v / factor;
		break;
	}
	case TUI_STEP_WARP: {
		const struct ridge_gpu *gpu = tui_state_gpu(s);
		double warp = gpu && gpu->warp_size > 0 ? gpu->warp_size : 32;
		if (big)
			next = direction > 0 ? v * 2 : v / 2;
		else if (direction > 0)
			next = (floor(v / warp) + 1) * warp; /* to the next whole warp */
		else
			next = (ceil(v / warp) - 1) * warp;
		if (next < warp && direction < 0)
			next = v > warp ? warp : lo;
		break;
	}
	}
	if (f->kind == TUI_FIELD_INTEGER) {
		next = direction > 0 ? ceil(next) : floor(next);
		if (next == v)
			next = v + direction;
	}
	/* Stepping below the minimum of an unsettable field unsets it. */
	if (f->has_unset && next < lo && direction < 0) {
		*p = f->unset_value;
		return;
	}
	if (f->has_unset && f->unset_value >= lo)
		lo = f->unset_value + (f->kind == TUI_FIELD_INTEGER ? 1 : f->step);
	*p = clamp(next, lo, hi);
}

static void step_field(struct tui_state *s, const struct tui_field *f, int direction, bool big)
{
	switch (f->kind) {
	case TUI_FIELD_NUMBER:
	case TUI_FIELD_INTEGER:
		step_number(s, f, direction, big);
		break;
	case TUI_FIELD_DTYPE: {
		int *p = int_ptr(&s->in, f);
		*p = (*p + direction + RIDGE_DTYPE_COUNT) % RIDGE_DTYPE_COUNT;
		break;
	}
	case TUI_FIELD_CHOICE: {
		int *p = int_ptr(&s->in, f);
		*p = (*p + direction + f->choice_count) % f->choice_count;
		break;
	}
	case TUI_FIELD_GPU: {
		int *p = int_ptr(&s->in, f);
		int count = s->db ? s->db->count : 0;
		if (count == 0)
			break;
		/* An unsettable GPU field cycles through "none" (-1) as well. */
		int lo = f->has_unset ? -1 : 0;
		int span = count - lo;
		int old_gpu = s->in.gpu;
		*p = ((*p - lo + direction) % span + span) % span + lo;
		if (p == &s->in.gpu)
			tui_inputs_follow_gpu(&s->in, s->db, old_gpu);
		break;
	}
	case TUI_FIELD_TEXT:
		break;
	}
}

/* ---- defaults ---- */

void tui_inputs_default(struct tui_inputs *in, const struct hwdb *db, int gpu)
{
	*in = (struct tui_inputs){ 0 };
	in->gpu = gpu;
	in->compare = -1;
	in->roofline_mode = TUI_ROOFLINE_GEMM;
	in->gemm_m = in->gemm_n = in->gemm_k = 4096;
	in->roofline_dtype = RIDGE_BF16;
	in->roofline_level = 0;
	in->intensity = 10;
	/* threads, regs, smem, dyn_smem, barriers: their parameters' defaults (below) */
	in->carveout = -1;
	in->optin = 0;
	in->align_dtype = RIDGE_BF16;
	snprintf(in->align_dims, sizeof in->align_dims, "4096,11008,50257");
	in->align_tokens = 4096;
	in->cost_mode = TUI_COST_TRAIN;
	in->train_params = 7e9;
	in->train_seq = 4096;
	in->train_batch = 1024;
	in->train_steps = 10000;
	in->train_gpus = 256;
	in->train_mfu = 0.40;
	in->train_target_mfu = 0.50;
	in->train_investment = 0;
	in->decode_params = 8e9;
	in->decode_layers = 32;
	in->decode_kv_heads = 8;
	in->decode_head_dim = 128;
	in->decode_context = 4096;
	in->decode_batch = 16;
	in->decode_gpus = 1;
	in->decode_weight_dtype = STORAGE_BF16;
	in->decode_kv_dtype = STORAGE_BF16;
	in->decode_dtype = RIDGE_BF16;
	in->train_dtype = RIDGE_BF16;
	in->train_layers = 32;
	in->train_heads = 32;
	in->train_head_dim = 128;
	in->train_price = in->decode_price = tui_default_price(db, gpu);
	/* The starting value of each field whose calculator's parameter has one;
	 * the values above are the starting examples of the parameters that have
	 * none (a required input: M, N, K, the model's size). */
	for (size_t i = 0; i < tui_field_count; i++) {
		const struct param *p = tui_field_param(&tui_fields[i]);
		char err[TUI_TEXT];
		if (p && p->def)
			tui_field_set_text(in, db, &tui_fields[i], p->def, err, sizeof err);
	}
}

double tui_default_price(const struct hwdb *db, int gpu)
{
	if (db && gpu >= 0 && gpu < db->count && db->entries[gpu].gpu.has_price)
		return db->entries[gpu].gpu.price_usd_per_hour;
	return TUI_FALLBACK_PRICE;
}

void tui_inputs_follow_gpu(struct tui_inputs *in, const struct hwdb *db, int old_gpu)
{
	/* A price still at the old GPU's default follows the GPU; one the
	 * user set stays. */
	double old_price = tui_default_price(db, old_gpu), new_price = tui_default_price(db, in->gpu);
	if (in->train_price == old_price)
		in->train_price = new_price;
	if (in->decode_price == old_price)
		in->decode_price = new_price;
}

void tui_inputs_use_gpu(struct tui_inputs *in, const struct hwdb *db, int gpu)
{
	in->gpu = gpu;
	in->train_price = in->decode_price = tui_default_price(db, gpu);
	in->train_peak = in->decode_peak = 0;
}

/* ---- the transition ---- */

void tui_state_message(struct tui_state *s, bool error, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->message, sizeof s->message, fmt, ap);
	va_end(ap);
	s->message_error = error;
}

void tui_state_init(struct tui_state *s, const struct hwdb *db, int gpu)
{
	*s = (struct tui_state){ 0 };
	s->db = db;
	s->gpu_override = -1;
	s->panel = TUI_PANEL_HW;
	tui_inputs_default(&s->in, db, gpu);
	tui_state_compute(s);
}

void tui_state_compute(struct tui_state *s)
{
	tui_compute_hw(s);
	tui_compute_panels(s);
}

static void open_prompt(struct tui_state *s, enum tui_prompt prompt, const char *initial)
{
	s->prompt = prompt;
	snprintf(s->edit, sizeof s->edit, "%s", initial);
	s->edit_len = strlen(s->edit);
	s->edit_selected = prompt == TUI_PROMPT_FIELD && s->edit_len > 0;
	s->message[0] = '\0';
}

static void commit_prompt(struct tui_state *s)
{
	enum tui_prompt prompt = s->prompt;
	s->prompt = TUI_PROMPT_NONE;
	if (prompt == TUI_PROMPT_SAVE || prompt == TUI_PROMPT_OPEN) {
		if (!s->edit[0]) {
			tui_state_message(s, true, "no file name given");
			return;
		}
		s->request = prompt == TUI_PROMPT_SAVE ? TUI_REQ_SAVE : TUI_REQ_OPEN;
		snprintf(s->request_path, sizeof s->request_path, "%s", s->edit);
		return;
	}
	const struct tui_field *f = tui_state_selected_field(s);
	if (!f)
		return;
	char err[TUI_TEXT];
	int old_gpu = s->in.gpu;
	if (tui_field_set_text(&s->in, s->db, f, s->edit, err, sizeof err) != 0) {
		tui_state_message(s, true, "%s: %s", f->label, err);
		return;
	}
	if (f->kind == TUI_FIELD_GPU && f->offset == offsetof(struct tui_inputs, gpu))
		tui_inputs_follow_gpu(&s->in, s->db, old_gpu);
	/* A model config is a file: the caller reads it, then recomputes. */
	if (f->offset == offsetof(struct tui_inputs, align_model) && s->in.align_model[0] &&
	    strcmp(s->in.align_model, s->model_config.path) != 0)
		s->request = TUI_REQ_LOAD_MODEL;
	tui_state_compute(s);
}

static void prompt_key(struct tui_state *s, int key)
{
	switch (key) {
	case 27: /* Esc */
		s->prompt = TUI_PROMPT_NONE;
		tui_state_message(s, false, "cancelled");
		return;
	case '\n':
	case '\r':
	case KEY_ENTER:
		commit_prompt(s);
		return;
	case KEY_LEFT:
	case KEY_RIGHT:
	case KEY_HOME:
	case KEY_END:
		s->edit_selected = false; /* keep the value, to edit its end */
		return;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		if (s->edit_selected) { /* the selection goes, as in a form */
			s->edit_selected = false;
			s->edit_len = 0;
			s->edit[0] = '\0';
			return;
		}
		/* Drop one UTF-8 character. */
		while (s->edit_len > 0) {
			unsigned char c = (unsigned char)s->edit[--s->edit_len];
			if ((c & 0xC0) != 0x80)
				break;
		}
		s->edit[s->edit_len] = '\0';
		return;
	case 21: /* ^U */
		s->edit_selected = false;
		s->edit_len = 0;
		s->edit[0] = '\0';
		return;
	default:
		if (key >= 32 && key < 256 && key != 127 && s->edit_selected) { /* typing replaces the value */
			s->edit_selected = false;
			s->edit_len = 0;
			s->edit[0] = '\0';
		}
		if (key >= 32 && key < 256 && key != 127 && s->edit_len + 1 < sizeof s->edit) {
			s->edit[s->edit_len++] = (char)key;
			s->edit[s->edit_len] = '\0';
		} else if (key >= 32 && key < 256 && key != 127) {
			/* The field is full: the rest of a paste is dropped, and said so. */
			snprintf(s->message, sizeof s->message, "the field is full (at most %zu characters)",
				 sizeof s->edit - 1);
			s->message_error = true;
		}
		return;
	}
}

void tui_state_action(struct tui_state *s, enum tui_action action)
{
	const struct tui_field *fields[MAX_PANEL_FIELDS];
	int nfields = tui_panel_fields(s, s->panel, fields, MAX_PANEL_FIELDS);
	int *sel = &s->selected[s->panel];
	const struct tui_field *f = tui_state_selected_field(s);

	/* A message stays until the next thing the user does. */
	if (action != TUI_ACT_NONE && action != TUI_ACT_REDRAW)
		s->message[0] = '\0';
	switch (action) {
	case TUI_ACT_NONE:
	case TUI_ACT_COUNT:
		return;
	case TUI_ACT_QUIT:
		s->quit = true;
		return;
	case TUI_ACT_HELP:
		s->help = true;
		return;
	case TUI_ACT_NEXT_PANEL:
		s->panel = (enum tui_panel_id)((s->panel + 1) % TUI_PANEL_COUNT);
		break;
	case TUI_ACT_PREV_PANEL:
		s->panel = (enum tui_panel_id)((s->panel + TUI_PANEL_COUNT - 1) % TUI_PANEL_COUNT);
		break;
	case TUI_ACT_GOTO_PANEL:
		/* Needs the key: tui_state_key and tui_state_goto handle it. */
		return;
	case TUI_ACT_FIELD_PREV:
		if (nfields)
			*sel = (*sel - 1 + nfields) % nfields;
		break;
	case TUI_ACT_FIELD_NEXT:
		if (nfields)
			*sel = (*sel + 1) % nfields;
		break;
	case TUI_ACT_DEC:
	case TUI_ACT_INC:
	case TUI_ACT_DEC_BIG:
	case TUI_ACT_INC_BIG:
		if (!f)
			break;
		if (f->kind == TUI_FIELD_TEXT) {
			open_prompt(s, TUI_PROMPT_FIELD, text_ptr(&s->in, f));
			return;
		}
		step_field(s, f, action == TUI_ACT_INC || action == TUI_ACT_INC_BIG ? 1 : -1,
			   action == TUI_ACT_INC_BIG || action == TUI_ACT_DEC_BIG);
		tui_state_compute(s);
		break;
	case TUI_ACT_EDIT:
		if (f) {
			char text[TUI_PATH];
			if (f->kind == TUI_FIELD_TEXT)
				snprintf(text, sizeof text, "%s", text_ptr(&s->in, f));
			else
				tui_field_format(s, f, text, sizeof text);
			if (f->has_unset && strcmp(text, f->unset_text) == 0)
				text[0] = '\0';
			open_prompt(s, TUI_PROMPT_FIELD, text);
			return;
		}
		break;
	case TUI_ACT_MODE:
		if (s->panel == TUI_PANEL_ROOFLINE)
			s->in.roofline_mode = !s->in.roofline_mode;
		else if (s->panel == TUI_PANEL_COST)
			s->in.cost_mode = !s->in.cost_mode;
		else
			break;
		/* Keep the mode selector selected; the field list changed. */
		*sel = 0;
		tui_state_compute(s);
		break;
	case TUI_ACT_COMPARE:
		if (s->in.compare >= 0) {
			s->in.compare = -1;
		} else if (s->db && s->db->count > 1) {
			s->in.compare = (s->in.gpu + 1) % s->db->count;
			s->panel = TUI_PANEL_HW;
		} else {
			tui_state_message(s, true, "only one GPU is known: nothing to compare with");
			return;
		}
		tui_state_compute(s);
		break;
	case TUI_ACT_RESET: {
		struct tui_inputs def;
		tui_inputs_default(&def, s->db, s->in.gpu);
		for (size_t i = 0; i < tui_field_count; i++) {
			const struct tui_field *g = &tui_fields[i];
			if (g->panel != s->panel || g->offset == offsetof(struct tui_inputs, gpu))
				continue;
			memcpy((char *)&s->in + g->offset, (char *)&def + g->offset, g->size);
		}
		*sel = 0;
		tui_state_compute(s);
		tui_state_message(s, false, "%s inputs reset", tui_panel_name(s->panel));
		return;
	}
	case TUI_ACT_SAVE:
		open_prompt(s, TUI_PROMPT_SAVE, s->scenario_path[0] ? s->scenario_path : "whatif.yaml");
		return;
	case TUI_ACT_OPEN:
		open_prompt(s, TUI_PROMPT_OPEN, s->scenario_path);
		return;
	case TUI_ACT_REDRAW:
		s->request = TUI_REQ_REDRAW;
		return;
	}
	nfields = tui_panel_fields(s, s->panel, fields, MAX_PANEL_FIELDS);
	if (s->selected[s->panel] >= nfields)
		s->selected[s->panel] = nfields ? nfields - 1 : 0;
}

void tui_state_goto(struct tui_state *s, enum tui_panel_id panel)
{
	if (panel < 0 || panel >= TUI_PANEL_COUNT)
		return;
	s->panel = panel;
	s->message[0] = '\0';
}

void tui_state_key(struct tui_state *s, int key)
{
	if (key == KEY_RESIZE)
		return;
	if (s->prompt != TUI_PROMPT_NONE) {
		prompt_key(s, key);
		return;
	}
	if (s->help) {
		/* Any key closes the help; q also quits. */
		s->help = false;
		if (tui_action_for_key(key) == TUI_ACT_QUIT)
			s->quit = true;
		return;
	}
	enum tui_action action = tui_action_for_key(key);
	if (action == TUI_ACT_GOTO_PANEL)
		tui_state_goto(s, (enum tui_panel_id)(key - '1'));
	else
		tui_state_action(s, action);
}
