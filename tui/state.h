/* The explorer's state and its one transition: state + key -> new state.
 * Pure: no terminal, no files. Every number comes from the model/ functions
 * the CLI calls; file I/O (open/save a scenario) is requested here and done
 * by the caller (tui.c), which reports back with tui_state_message(). */
#ifndef RIDGE_TUI_STATE_H
#define RIDGE_TUI_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "actions.h"
#include "align.h"
#include "align_findings.h"
#include "calc.h"
#include "cost.h"
#include "hwdb.h"
#include "intensity.h"
#include "occupancy.h"
#include "models.h"
#include "roofline.h"

enum tui_panel_id {
	TUI_PANEL_HW,
	TUI_PANEL_ROOFLINE,
	TUI_PANEL_OCCUPANCY,
	TUI_PANEL_ALIGN,
	TUI_PANEL_COST,
	TUI_PANEL_COUNT
};

#define TUI_TEXT 256
#define TUI_PATH 512

/* ---- inputs: everything the user can change, the what-if ---- */

enum tui_roofline_mode { TUI_ROOFLINE_GEMM, TUI_ROOFLINE_INTENSITY };
enum tui_cost_mode { TUI_COST_TRAIN, TUI_COST_DECODE };

struct tui_inputs {
	/* hardware: indices into the hwdb; compare = -1 when not comparing */
	int gpu, compare;
	/* roofline */
	int roofline_mode;
	int gemm_algorithm; /* library tile, shared-memory tiled, naive */
	int gemm_traffic;   /* default (per kernel), tiled (every re-read from memory), compulsory (each matrix once) */
	char gemm_tile[32]; /* the tiled algorithm's CTA tile: "32" or "128x128x32"; empty: 32 */
	double gemm_m, gemm_n, gemm_k;
	int roofline_dtype;
	int roofline_no_tensor; /* 1: the vector (CUDA-core/SIMD) rate */
	int roofline_level;     /* memory level of the point: enum in state.c's choice list */
	double intensity;       /* FLOP/byte, intensity mode */
	/* occupancy */
	double threads, regs, smem, dyn_smem;
	double carveout; /* percent; -1: the driver's default */
	int optin;       /* the kernel raised its dynamic shared memory limit (NVIDIA) */
	double barriers; /* named barriers per block */
	/* alignment */
	int align_dtype;
	char align_dims[TUI_TEXT];  /* "4096,11008,..." */
	char align_model[TUI_PATH]; /* a model config, used instead of dims when set */
	double align_tokens;        /* M of every GEMM (batch x sequence) */
	/* cost */
	int cost_mode;
	double train_params, train_seq, train_batch, train_steps, train_gpus, train_mfu;
	double train_target_mfu;                          /* 0: none */
	double train_price, train_investment;             /* investment 0: none */
	int train_dtype;                                  /* the rate the run computes at */
	double train_peak;                                /* 0: the dtype's hwdb peak */
	int train_formula;                                /* 6n, palm */
	double train_layers, train_heads, train_head_dim; /* palm */
	int train_causal;
	double decode_params, decode_layers, decode_kv_heads, decode_head_dim, decode_context, decode_batch,
		decode_gpus, decode_price;
	int decode_weight_dtype, decode_kv_dtype; /* indices into the storage types */
	int decode_dtype;                         /* the rate the GEMMs compute at */
	double decode_peak;                       /* 0: the dtype's hwdb peak */
	double decode_overhead;                   /* seconds per step: launches, communication */
};

/* ---- the inputs as a table: the form, editing, scenario files and --dump all read it ---- */

enum tui_field_kind {
	TUI_FIELD_NUMBER,  /* double, with unit */
	TUI_FIELD_INTEGER, /* double holding an integer */
	TUI_FIELD_DTYPE,   /* int, enum ridge_dtype */
	TUI_FIELD_GPU,     /* int, hwdb index (compare: -1 = none) */
	TUI_FIELD_CHOICE,  /* int, index into choices */
	TUI_FIELD_TEXT     /* char[] */
};

enum tui_step_kind {
	TUI_STEP_ADD, /* +/- step */
	TUI_STEP_MUL, /* x/÷ step */
	TUI_STEP_WARP /* +/- the GPU's warp (wavefront) size; big step x2 */
};

struct tui_field {
	enum tui_panel_id panel;
	int mode;        /* shown only in this panel mode; -1 always */
	const char *key; /* the calculator's parameter, the scenario/--dump key */
	const char *label;
	enum tui_field_kind kind;
	size_t offset; /* into struct tui_inputs */
	size_t size;   /* TEXT: buffer size */
	/* NUMBER, INTEGER: how the arrow keys step (the values it takes are the parameter's) */
	enum tui_step_kind step_kind;
	double step, big_step;
	const char *const *choices; /* CHOICE */
	int choice_count;
	bool has_unset; /* unset_value means "not set", shown as unset_text */
	double unset_value;
	const char *unset_text;
	bool nvidia_only; /* hidden when the GPU is AMD (carveout, opt-in) */
	/* The calculator whose input this is: its parameter named key gives the
	 * range, unit (a fraction is shown as a percentage) and starting value,
	 * so that the TUI, the command line and scenario files accept the same
	 * values. Every NUMBER and INTEGER field has one; NULL: a field of the
	 * TUI's own (a panel mode, the hardware panel's GPUs). */
	const struct calc *calc;
};

extern const struct tui_field tui_fields[];
extern const size_t tui_field_count;

/* The calculator's parameter a field is (by key), or NULL. */
const struct param *tui_field_param(const struct tui_field *f);
/* The values a number field takes, its parameter's: lo..hi, lo itself
 * excluded when *open_lo (an MFU of 0). */
void tui_field_range(const struct tui_field *f, double *lo, double *hi, bool *open_lo);

/* ---- results: what the model computed from the inputs ---- */

struct tui_hw_row {
	bool has;
	double peak; /* default (matrix when present) dense rate */
	double vector, matrix;
	bool has_vector, has_matrix;
	double ridge_point; /* FLOP/byte against HBM */
};

/* One compute ceiling of the roofline plot. */
struct tui_roofline_compute {
	enum ridge_dtype dtype;
	bool matrix;
	double peak;
};

struct tui_roofline_results {
	bool ok;
	char error[TUI_TEXT];
	bool has_cost;       /* GEMM mode */
	bool has_time_model; /* GEMM mode: the prediction (model/timing.h) */
	struct ridge_kernel_time time_model;
	struct ridge_kernel_cost cost;
	struct ridge_kernel_path path;
	struct ridge_roofline_ceiling ceiling;
	struct ridge_roofline_point point;
	/* The plot: every dtype's ceiling and every memory level the GPU's
	 * entry knows the bandwidth of. */
	int compute_count;
	struct tui_roofline_compute compute[2 * RIDGE_DTYPE_COUNT];
	bool has_level[RIDGE_LEVEL_COUNT];
	double level_bandwidth[RIDGE_LEVEL_COUNT];
};

#define TUI_SWEEP_MAX 64

struct tui_occupancy_results {
	bool ok;
	char error[TUI_TEXT];
	struct ridge_occupancy_analysis analysis;
	/* occupancy over block sizes, warp-size steps */
	int sweep_count;
	int sweep_threads[TUI_SWEEP_MAX];
	double sweep_occupancy[TUI_SWEEP_MAX];
	enum ridge_occupancy_limiter sweep_limiter[TUI_SWEEP_MAX];
	bool has_best; /* cudaOccMaxPotentialOccupancyBlockSize */
	int best_block_size, best_min_grid, best_blocks_per_sm;
};

/* `ridge align`'s own computation (app/calc/align_findings.h): the same findings,
 * names, severities and next values as the command and `ridge eval`. */
struct tui_align_results {
	bool ok; /* computed; findings may still hold errors */
	char error[TUI_TEXT];
	struct align_run run;
};

struct tui_cost_results {
	bool ok;
	char error[TUI_TEXT];
	/* training */
	struct ridge_train_comparison train;
	bool has_target;
	/* decode */
	struct ridge_decode_result decode;
};

struct tui_results {
	/* hardware, for the GPU [0] and the compared one [1] */
	struct tui_hw_row hw[2][RIDGE_DTYPE_COUNT];
	struct tui_roofline_results roofline;
	struct tui_occupancy_results occupancy;
	struct tui_align_results align;
	struct tui_cost_results cost;
};

/* ---- the state ---- */

enum tui_prompt { TUI_PROMPT_NONE, TUI_PROMPT_FIELD, TUI_PROMPT_SAVE, TUI_PROMPT_OPEN };
enum tui_request { TUI_REQ_NONE, TUI_REQ_SAVE, TUI_REQ_OPEN, TUI_REQ_REDRAW, TUI_REQ_LOAD_MODEL };

/* A model config read from a file by the caller (tui_io.c) for the
 * alignment panel: the state only ever sees its parsed keys. */
struct tui_model_config {
	bool loaded;
	char path[TUI_PATH]; /* the file it came from */
	struct app_model_config config;
};

struct tui_state {
	const struct hwdb *db;
	/* Where the database came from, for loading scenarios the same way
	 * (`ridge eval --hwdb DIR --calibration FILE`); may be NULL. */
	const char *hwdb_dir, *calibration;
	/* ridge tui --gpu X with a scenario: X replaces every item's GPU, and
	 * with it the GPU terms (tui_inputs_use_gpu). -1: the scenario's own. */
	int gpu_override;
	enum tui_panel_id panel;
	int selected[TUI_PANEL_COUNT]; /* index among the panel's visible fields */
	bool help, quit;

	struct tui_inputs in;
	struct tui_model_config model_config;
	struct tui_results out;

	enum tui_prompt prompt;
	char edit[TUI_PATH];
	size_t edit_len;
	/* A field's prompt opens with its value selected, as a form's field
	 * does: the first character typed replaces it, Backspace clears it;
	 * End or an arrow key keeps it to edit. */
	bool edit_selected;

	enum tui_request request; /* for the caller; it clears it */
	char request_path[TUI_PATH];
	char scenario_path[TUI_PATH]; /* the file opened or last saved */

	char message[TUI_TEXT];
	bool message_error;
};

/* db must outlive the state; gpu is an index into it. Computes everything. */
void tui_state_init(struct tui_state *s, const struct hwdb *db, int gpu);
/* Default inputs for a GPU (prices from its hwdb entry when it has one). */
void tui_inputs_default(struct tui_inputs *in, const struct hwdb *db, int gpu);
/* The price a GPU's inputs start with: its hwdb entry's price_usd_per_hour,
 * else TUI_FALLBACK_PRICE (an editable starting point, shown as such). */
#define TUI_FALLBACK_PRICE 2.0
double tui_default_price(const struct hwdb *db, int gpu);
/* After in->gpu changed from old_gpu: prices still at the old GPU's default
 * follow the new GPU; prices the user set stay. */
void tui_inputs_follow_gpu(struct tui_inputs *in, const struct hwdb *db, int old_gpu);
/* A scenario run on another GPU (--gpu): the GPU and all its terms at once,
 * the price per GPU-hour and the peak rates (0: the new GPU's hwdb peak), so
 * no number of the scenario's GPU stays behind. */
void tui_inputs_use_gpu(struct tui_inputs *in, const struct hwdb *db, int gpu);
/* The one transition. KEY_RESIZE and unknown keys change nothing. */
void tui_state_key(struct tui_state *s, int key);
/* Shows a panel (the number keys, a click on a tab). */
void tui_state_goto(struct tui_state *s, enum tui_panel_id panel);
/* Applies one action as if its key had been pressed. */
void tui_state_action(struct tui_state *s, enum tui_action action);
/* Recomputes every result from the inputs. */
void tui_state_compute(struct tui_state *s);
/* Sets the status-line message. */
void tui_state_message(struct tui_state *s, bool error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

const struct ridge_gpu *tui_state_gpu(const struct tui_state *s);
const struct ridge_gpu *tui_state_compare_gpu(const struct tui_state *s); /* NULL when not comparing */

/* The panel's visible fields, in order: fills up to max pointers, returns the count. */
int tui_panel_fields(const struct tui_state *s, enum tui_panel_id panel, const struct tui_field **out, int max);
/* The selected field of the current panel, or NULL. */
const struct tui_field *tui_state_selected_field(const struct tui_state *s);
/* A field's value as text ("256", "32 KiB", "bf16", "h100-sxm", "45%", "-"). */
void tui_field_format(const struct tui_state *s, const struct tui_field *f, char *buf, size_t len);
/* Parses text into a field (the same parsers as the CLI's flags). Returns 0, or
 * -1 with err set; the inputs are unchanged on failure. */
int tui_field_set_text(struct tui_inputs *in, const struct hwdb *db, const struct tui_field *f, const char *text,
		       char *err, size_t err_len);
/* The field of a panel with that key (keys repeat across panels: "dtype"). */
const struct tui_field *tui_field_find_in(enum tui_panel_id panel, const char *key);

const char *tui_panel_name(enum tui_panel_id panel);
/* The tab of a panel as the tab row shows it: " 1 Hardware ". */
void tui_tab_label(enum tui_panel_id panel, char *buf, size_t len);
/* The panel whose tab covers column x of the tab row, or -1. */
int tui_tab_at(int x);
const char *tui_panel_title(enum tui_panel_id panel);
/* The panel's current mode (roofline: gemm/intensity; cost: train/decode; else 0). */
int tui_panel_mode(const struct tui_state *s, enum tui_panel_id panel);

#endif
