/* ridge-probe: measures a GPU's ceilings with the reference kernels of
 * kernels/ and sets them beside the device's hwdb entry (its spec sheet).
 *
 *   detect the device -> match hwdb -> run and time kernels (NVML clocks and
 *   power alongside) -> statistics -> report (table or JSON) -> calibration.
 *
 * Knows no CUDA or HIP: the backend linked in (kern_backend()) does. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../hwdb/hwdb.h"
#include "../util/atomic_file.h"
#include "../util/read_limits.h"
#include "../model/models.h"
#include "../model/units.h"
#include "calib.h"
#include "driver.h"
#include "launcher.h"
#include "monitor.h"
#include "report.h"
#include "result.h"
#include "validate.h"
#include "usage.h"
#include "../util/help_text.h"

#ifndef PROBE_NAME
#define PROBE_NAME "ridge-probe"
#endif

enum { EXIT_OK = 0, EXIT_PROBLEM = 1, EXIT_USAGE = 2, EXIT_ENV = 3 };

/* "ridge-probe: KIND: message" on stderr, after what stdout holds so far. */
static void message(const char *kind, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, PROBE_NAME ": %s: ", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void error_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void error_msg(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	message("error", fmt, ap);
	va_end(ap);
}

static void warning_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warning_msg(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	message("warning", fmt, ap);
	va_end(ap);
}

/* ---- what to run ---- */

enum group {
	G_MEMORY,
	G_L2,
	G_SMEM,
	G_COMPUTE,
	G_TENSOR,
	G_GEMM,
	G_GEMM_SWEEP,
	G_LAUNCH,
	G_OCCUPANCY,
	G_LATENCY,
	G_FIXED,
	G_V_STREAM,
	G_V_GEMM,
	G_V_BLAS,
	G_V_FUSED,
	G_V_LAUNCH,
	G_COUNT
};

struct selection {
	bool any; /* --only given */
	bool id[KERN_COUNT];
	bool group[G_COUNT]; /* whole groups (l2 sweep, gemm sweep, occupancy) */
};

static int parse_only(const char *list, struct selection *sel)
{
	static const struct {
		const char *name;
		int group;
		int ids[10];
	} groups[] = {
		{ "memory", -1, { KERN_COPY, KERN_TRIAD, KERN_READ, KERN_WRITE, KERN_READ_WIDE, -1 } },
		{ "l2", G_L2, { -1 } },
		{ "l2_read", G_L2, { -1 } },
		{ "smem", -1, { KERN_SMEM, -1 } },
		{ "compute", -1, { KERN_FMA_FP32, KERN_FMA_FP64, KERN_FMA_FP16X2, -1 } },
		{ "tensor",
		  -1,
		  { KERN_MMA_BF16, KERN_WGMMA_BF16, KERN_WGMMA_FP16, KERN_WGMMA_TF32, KERN_WGMMA_E4M3, KERN_WGMMA_E5M2,
		    KERN_WGMMA_INT8, KERN_WGMMA_SP_BF16, KERN_WGMMA_SP_E4M3, -1 } },
		{ "gemm",
		  G_GEMM_SWEEP,
		  { KERN_GEMM_BF16, KERN_GEMM_FP16, KERN_GEMM_TF32, KERN_GEMM_FP32, KERN_GEMM_FP8, -1 } },
		{ "gemm_sweep", G_GEMM_SWEEP, { -1 } },
		{ "launch", -1, { KERN_LAUNCH_ASYNC, KERN_LAUNCH_SYNC, KERN_GRAPH_NODE, KERN_GRAPH_LAUNCH, -1 } },
		{ "occupancy", G_OCCUPANCY, { -1 } },
		{ "latency", G_LATENCY, { -1 } },
		{ "fixed", G_FIXED, { -1 } },
		{ "v_stream", G_V_STREAM, { -1 } },
		{ "v_gemm", G_V_GEMM, { -1 } },
		{ "v_blas", G_V_BLAS, { -1 } },
		{ "v_fused", G_V_FUSED, { -1 } },
		{ "v_launch", G_V_LAUNCH, { -1 } },
	};
	char buf[512];
	snprintf(buf, sizeof buf, "%s", list);
	sel->any = true;
	char *save = NULL;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ')
			tok++;
		bool found = false;
		if (strcasecmp(tok, "validate") == 0) {
			for (int g = G_V_STREAM; g <= G_V_LAUNCH; g++)
				sel->group[g] = true;
			continue;
		}
		for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
			if (strcasecmp(tok, groups[g].name) == 0) {
				found = true;
				if (groups[g].group >= 0)
					sel->group[groups[g].group] = true;
				for (int i = 0; groups[g].ids[i] >= 0; i++)
					sel->id[groups[g].ids[i]] = true;
				/* "launch" is both a group and the id of its first member. */
			}
		for (int id = 0; id < KERN_COUNT && !found; id++)
			if (strcasecmp(tok, kern_id_name((enum kern_id)id)) == 0) {
				found = true;
				sel->id[id] = true;
			}
		if (!found) {
			error_msg(
				"--only: unknown measurement '%s' (memory, l2, smem, compute, tensor, gemm, gemm_sweep, "
				"launch, latency, fixed, occupancy, validate, v_stream, v_gemm, v_blas, v_fused, v_launch, or a name such "
				"as "
				"copy or gemm_bf16)",
				tok);
			return -1;
		}
	}
	return 0;
}

struct step {
	enum kern_id id;
	double bytes;
	long m, n, k;
	bool sweep;
	bool validation;
	int repeats;     /* 0: the run's; a long kernel takes fewer */
	double window_s; /* --sustained: window length (0: an ordinary measurement) */
};

#define MAX_STEPS PROBE_MAX_MEASUREMENTS

static void add_step(struct step *steps, int *n, enum kern_id id, double bytes, long m, long nn, long k, bool sweep)
{
	if (*n >= MAX_STEPS)
		return;
	steps[(*n)++] = (struct step){ id, bytes, m, nn, k, sweep, false, 0, 0 };
}

static void add_case(struct step *steps, int *n, enum kern_id id, double bytes, long m, long nn, long k, int repeats)
{
	if (*n >= MAX_STEPS)
		return;
	steps[(*n)++] = (struct step){ id, bytes, m, nn, k, true, true, repeats, 0 };
}

/* The validation suite: the model predicts each case's time (probe/validate.c). */
static void plan_validation(const struct selection *sel, bool quick, struct step *steps, int *n)
{
	if (sel->group[G_V_STREAM]) {
		/* c = a + b over working sets from 1 MiB to 4 GiB: L2, the cliff near the
		 * L2 size, then HBM. */
		static const double full[] = {
			1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 128, 256, 512, 1024, 4096
		};
		static const double fast[] = { 1, 16, 256, 1024 };
		const double *set = quick ? fast : full;
		int count = quick ? (int)(sizeof fast / sizeof fast[0]) : (int)(sizeof full / sizeof full[0]);
		for (int i = 0; i < count; i++)
			add_case(steps, n, KERN_V_STREAM, set[i] * 1048576.0, 0, 0, 0, 0);
	}
	if (sel->group[G_V_GEMM]) {
		static const long sizes[] = { 1024, 2048, 4096, 8192 };
		int count = quick ? 2 : 4;
		for (int i = 0; i < count; i++)
			for (int t = 0; t < 2; t++)
				add_case(steps, n, t ? KERN_V_GEMM_TILED : KERN_V_GEMM_NAIVE, 0, sizes[i], sizes[i],
					 sizes[i],
					 sizes[i] >= 8192   ? 5
					 : sizes[i] >= 4096 ? 8
							    : 0);
	}
	if (sel->group[G_V_BLAS]) {
		/* cuBLAS bf16 (TN: m = output features, n = tokens, k = reduction). */
		static const long full[][3] = {
			{ 1024, 1024, 1024 },  { 2048, 2048, 2048 }, { 4096, 4096, 4096 }, { 8192, 8192, 8192 },
			{ 14336, 4096, 4096 }, /* an MLP up projection of 4096 tokens */
			{ 8192, 1, 8192 },     { 8192, 2, 8192 },    { 8192, 4, 8192 },    { 8192, 8, 8192 },
			{ 8192, 16, 8192 },    { 8192, 32, 8192 },   { 8192, 64, 8192 },   /* decode: 1..64 tokens */
			{ 8192, 8192, 8191 },  { 8192, 8192, 8190 }, { 8192, 8192, 8184 }, /* K misaligned */
			{ 8191, 8192, 8192 },  { 8192, 8191, 8192 }, /* features odd, tokens odd */
		};
		static const long fast[][3] = {
			{ 4096, 4096, 4096 }, { 8192, 1, 8192 }, { 8192, 64, 8192 }, { 8192, 8192, 8191 }
		};
		const long(*set)[3] = quick ? fast : full;
		int count = quick ? (int)(sizeof fast / sizeof fast[0]) : (int)(sizeof full / sizeof full[0]);
		for (int i = 0; i < count; i++)
			add_case(steps, n, KERN_GEMM_BF16, 0, set[i][0], set[i][1], set[i][2], 0);
	}
	if (sel->group[G_V_FUSED]) {
		/* 256 MiB bf16 tensors: rows x width. */
		static const long shapes[][2] = { { 16384, 8192 }, { 65536, 2048 }, { 32768, 4096 } };
		int count = quick ? 1 : 3;
		for (int i = 0; i < count; i++)
			for (int id = KERN_V_RESNORM_UNFUSED; id <= KERN_V_SOFTMAX_FUSED; id++)
				add_case(steps, n, (enum kern_id)id, 0, shapes[i][0], shapes[i][1], 0, 0);
	}
	if (sel->group[G_V_LAUNCH]) {
		static const long kernels[] = { 10, 100, 1000 };
		for (int i = quick ? 1 : 0; i < (quick ? 2 : 3); i++) {
			add_case(steps, n, KERN_V_LAUNCH_EAGER, 0, kernels[i], 0, 0, 0);
			add_case(steps, n, KERN_V_LAUNCH_GRAPH, 0, kernels[i], 0, 0, 0);
		}
	}
}

/* The fixed cost per kernel: one pass of the copy kernel at small sizes, and
 * small cuBLAS bf16 GEMMs; the report fits time = fixed + work / rate
 * (probe/report.c, fixed_fit). */
static void plan_fixed(struct step *steps, int *n)
{
	static const double kib[] = { 64, 256, 1024, 4096, 16384 };
	for (size_t i = 0; i < sizeof kib / sizeof kib[0]; i++)
		add_step(steps, n, KERN_COPY_FIXED, kib[i] * 1024, 0, 0, 0, true);
	static const long sizes[] = { 64, 128, 256, 512 };
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		add_step(steps, n, KERN_GEMM_BF16, 0, sizes[i], sizes[i], sizes[i], true);
}

/* Pointer chases (kernels/cuda/latency.cu): m = stride in bytes, n = 1 for
 * L1-cached loads. L1, L2, HBM; then one random line per 2 MiB page over
 * growing sets (all of them fit in L2: what grows is the TLB reach). */
static void add_chase(struct step *steps, int *n, enum kern_id id, double bytes, long stride, long l1)
{
	if (*n >= MAX_STEPS)
		return;
	steps[(*n)++] = (struct step){ id, bytes, stride, l1, 0, true, false, 5, 0 };
}

static void plan_latency(bool quick, const struct kern_device *dev, struct step *steps, int *n)
{
	const double mib = 1048576;
	add_chase(steps, n, KERN_LATENCY, 16384, 128, 1);
	add_chase(steps, n, KERN_LATENCY, 4 * mib, 128, 0);
	add_chase(steps, n, KERN_LATENCY, 2048 * mib, 128, 0);
	add_chase(steps, n, KERN_LATENCY_SMEM, 4096, 4, 0);
	add_chase(steps, n, KERN_LATENCY_HOPS, 4 * mib, 128, 0);
	if (quick)
		return;
	static const double tlb_mib[] = { 32, 1024, 16384, 65536 };
	for (size_t i = 0; i < sizeof tlb_mib / sizeof tlb_mib[0]; i++)
		if (tlb_mib[i] * mib <= dev->memory_bytes / 2)
			add_chase(steps, n, KERN_LATENCY, tlb_mib[i] * mib, 2 * 1048576, 0);
}

/* --sustained: the bf16 and fp8 GEMMs and the HBM copy in windows (one
 * measurement per window). The fp8 GEMM draws its own power at its own rate:
 * its settled fraction need not be the bf16 one's (a card without an fp8
 * path reports it unsupported). */
static int plan_sustained(double seconds, struct step *steps, int n)
{
	int windows = (int)ceil(seconds);
	if (windows > KERN_MAX_REPEATS)
		windows = KERN_MAX_REPEATS;
	double window = seconds / windows;
	static const enum kern_id ids[] = { KERN_GEMM_BF16, KERN_GEMM_FP8, KERN_COPY };
	for (size_t i = 0; i < sizeof ids / sizeof ids[0] && n < MAX_STEPS; i++) {
		long size = ids[i] == KERN_COPY ? 0 : 8192;
		steps[n++] = (struct step){ ids[i], 0, size, size, size, true, false, windows, window };
	}
	return n;
}

static int plan(const struct selection *sel, bool quick, const struct kern_device *dev, struct step *steps)
{
	int n = 0;
	bool all = !sel->any;
	for (int id = KERN_COPY; id <= KERN_READ_WIDE; id++)
		if (all || sel->id[id])
			add_step(steps, &n, (enum kern_id)id, 0, 0, 0, 0, false);
	if (all || sel->group[G_L2]) {
		/* 1 MiB up to at least 4 x L2 in steps of x1.25 (x1.6 with --quick). */
		/* Whole chunks of the sweep kernel (256 KiB, kernels/common/stream.h); the
		 * sizes stay those of the earlier 512 KiB chunks, so sweeps compare. */
		double step = quick ? 1.6 : 1.25, top = 4 * dev->l2_bytes, chunk = 524288, last = 0;
		for (double w = 1048576;; w *= step) {
			double rounded = ceil(w / chunk) * chunk;
			if (rounded > last)
				add_step(steps, &n, KERN_L2_READ, rounded, 0, 0, 0, true);
			last = rounded;
			if (rounded >= top)
				break;
		}
	}
	if (all || sel->id[KERN_SMEM])
		add_step(steps, &n, KERN_SMEM, 0, 0, 0, 0, false);
	for (int id = KERN_FMA_FP32; id <= KERN_WGMMA_BF16; id++)
		if (all || sel->id[id])
			add_step(steps, &n, (enum kern_id)id, 0, 0, 0, 0, false);
	for (int id = KERN_WGMMA_FP16; id <= KERN_WGMMA_SP_E4M3; id++)
		if (all || sel->id[id])
			add_step(steps, &n, (enum kern_id)id, 0, 0, 0, 0, false);
	for (int id = KERN_GEMM_BF16; id <= KERN_GEMM_FP8; id++)
		if (all || sel->id[id])
			add_step(steps, &n, (enum kern_id)id, 0, 8192, 8192, 8192, false);
	/* LLM layers as cuBLAS sees F.linear (m = output features, n = tokens,
	 * k = hidden): a 3584-hidden MLP up projection (37888 features) at 2048
	 * tokens, which PyTorch's cuBLAS ran at 812 TFLOP/s on an H200 where
	 * 8192^3 gave 774 (issue 34), and Llama-3-70B's up projection (28672 x
	 * 8192) at 8192 tokens. */
	static const long llm[][3] = { { 37888, 2048, 3584 }, { 28672, 8192, 8192 } };
	bool full_sweep = (all && !quick) || sel->group[G_GEMM_SWEEP];
	if (!full_sweep) {
		/* The matrix ceilings are the best over a GEMM sweep (report.c,
		 * fill_gemm): without the full one, a few shapes that reached more
		 * than 8192^3 on the H200 (square 4096 and 16384, long K, the LLM
		 * layers), about 0.5 s together. */
		static const long bf16[][3] = { { 4096, 4096, 4096 }, { 16384, 16384, 16384 }, { 8192, 4096, 14336 } };
		static const long fp8[][3] = { { 16384, 16384, 16384 }, { 8192, 14336, 4096 } };
		if (all || sel->id[KERN_GEMM_BF16]) {
			for (size_t i = 0; i < sizeof bf16 / sizeof bf16[0]; i++)
				add_step(steps, &n, KERN_GEMM_BF16, 0, bf16[i][0], bf16[i][1], bf16[i][2], true);
			for (size_t i = 0; i < sizeof llm / sizeof llm[0]; i++)
				add_step(steps, &n, KERN_GEMM_BF16, 0, llm[i][0], llm[i][1], llm[i][2], true);
		}
		if (all || sel->id[KERN_GEMM_FP8])
			for (size_t i = 0; i < sizeof fp8 / sizeof fp8[0]; i++)
				add_step(steps, &n, KERN_GEMM_FP8, 0, fp8[i][0], fp8[i][1], fp8[i][2], true);
	}
	if (full_sweep) {
		static const long squares[] = { 1024, 2048, 4096, 6144, 12288, 16384 };
		/* Llama-3-8B-like layers at 8192 tokens: attention out, MLP up, MLP down. */
		static const long shapes[][3] = { { 8192, 14336, 4096 }, { 8192, 4096, 14336 }, { 8192, 4096, 4096 } };
		for (size_t i = 0; i < sizeof squares / sizeof squares[0]; i++)
			add_step(steps, &n, KERN_GEMM_BF16, 0, squares[i], squares[i], squares[i], true);
		for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
			add_step(steps, &n, KERN_GEMM_BF16, 0, shapes[i][0], shapes[i][1], shapes[i][2], true);
		for (size_t i = 0; i < sizeof llm / sizeof llm[0]; i++)
			add_step(steps, &n, KERN_GEMM_BF16, 0, llm[i][0], llm[i][1], llm[i][2], true);
		static const long fp8_squares[] = { 2048, 4096, 16384 };
		for (size_t i = 0; i < sizeof fp8_squares / sizeof fp8_squares[0]; i++)
			add_step(steps, &n, KERN_GEMM_FP8, 0, fp8_squares[i], fp8_squares[i], fp8_squares[i], true);
		add_step(steps, &n, KERN_GEMM_FP8, 0, 8192, 14336, 4096, true);
		add_step(steps, &n, KERN_GEMM_FP16, 0, 4096, 4096, 4096, true);
		add_step(steps, &n, KERN_GEMM_FP16, 0, 16384, 16384, 16384, true);
	}
	for (int id = KERN_LAUNCH_ASYNC; id <= KERN_GRAPH_LAUNCH; id++)
		if (all || sel->id[id])
			add_step(steps, &n, (enum kern_id)id, 0, 0, 0, 0, false);
	if (all || sel->group[G_FIXED] || sel->id[KERN_COPY_FIXED])
		plan_fixed(steps, &n);
	if (all || sel->group[G_LATENCY] || sel->id[KERN_LATENCY] || sel->id[KERN_LATENCY_SMEM] ||
	    sel->id[KERN_LATENCY_HOPS])
		plan_latency(quick, dev, steps, &n);
	plan_validation(sel, quick, steps, &n);
	return n;
}

/* ---- progress ---- */

static double monotonic_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* When the first step began: a log's progress lines carry the time since, so
 * a run's time can be read step by step (the --quick target is 15 s). */
static double progress_start;

static void progress(int i, int n, const struct step *s)
{
	char what[96];
	if (s->id == KERN_L2_READ || s->id == KERN_V_STREAM)
		snprintf(what, sizeof what, "%s %.2f MiB", kern_id_name(s->id), s->bytes / 1048576);
	else if (s->id == KERN_V_LAUNCH_EAGER || s->id == KERN_V_LAUNCH_GRAPH)
		snprintf(what, sizeof what, "%s %ld kernels", kern_id_name(s->id), s->m);
	else if (s->m)
		snprintf(what, sizeof what, "%s %ldx%ldx%ld", kern_id_name(s->id), s->m, s->n, s->k);
	else
		snprintf(what, sizeof what, "%s", kern_id_name(s->id));
	if (isatty(2))
		fprintf(stderr, "\r\033[K" PROBE_NAME ": [%d/%d] %s", i + 1, n, what);
	else {
		if (i == 0)
			progress_start = monotonic_s();
		fprintf(stderr, PROBE_NAME ": [%d/%d] %s (at %.2f s)\n", i + 1, n, what,
			monotonic_s() - progress_start);
	}
	fflush(stderr);
}

static void progress_done(void)
{
	if (isatty(2)) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
	}
}

/* ---- output ---- */

/* --out-dir: where this rank's result goes, and what the placement says. */
struct fleet_out {
	struct launcher_place place;
	int device, gpu_index;
	char uuid[96];
	int barrier_ranks; /* -1: no barrier */
	double barrier_wait_s;
	char json_path[4096], yaml_path[4096];
	bool claimed;
};

struct options {
	int device;
	bool quick, json, device_set, validate;
	const char *out, *hwdb_dir, *replay, *validation_json;
	const char *out_dir, *barrier_file;
	int barrier_timeout;
	int repeats, warmup;
	double sustained; /* seconds per kernel, 0: none */
	struct selection sel;
	struct fleet_out *fleet; /* with --out-dir */
};

/* The validation cases alone (what `ridge roofline --validation` reads), with
 * the device and the date of the run, written atomically. */
static int write_validation(const struct probe_result *r, const struct probe_validation *v, const char *path, char *err,
			    size_t err_len)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON *d = cJSON_AddObjectToObject(doc, "device");
	cJSON_AddStringToObject(d, "name", r->device.name);
	cJSON_AddStringToObject(d, "driver", r->nvml ? r->driver : "unknown");
	cJSON_AddNumberToObject(d, "sm_count", r->device.sm_count);
	cJSON_AddNumberToObject(d, "max_sm_clock_mhz", r->nvml ? r->max_sm_clock_mhz : r->device.clock_hz / 1e6);
	cJSON_AddStringToObject(doc, "date", r->date);
	cJSON_AddStringToObject(doc, "ridge_probe", r->version);
	cJSON_AddItemToObject(doc, "validation", probe_validation_json(v));
	cJSON_AddItemToObject(doc, "validation_summary", probe_validation_summary_json(v));
	char *text = cJSON_Print(doc);
	cJSON_Delete(doc);
	if (!text) {
		snprintf(err, err_len, "out of memory formatting JSON");
		return -1;
	}
	/* The one atomic writer (atomic_file_write: fsync, rename, devices
	 * written through, nothing left behind on failure). */
	size_t n = strlen(text);
	char *buf = realloc(text, n + 2);
	if (!buf) {
		free(text);
		snprintf(err, err_len, "out of memory formatting JSON");
		return -1;
	}
	buf[n] = '\n';
	buf[n + 1] = '\0';
	int rc = atomic_file_write(path, buf, n + 1, err, err_len);
	free(buf);
	return rc;
}

/* --out-dir: the result with its placement over this rank's claim, and the
 * calibration beside it; one line on stdout naming both. */
static int write_fleet_result(cJSON *doc, const struct probe_report *rep, const struct options *opt)
{
	struct fleet_out *f = opt->fleet;
	/* The runtime's occupancy table (1,788 rows, 570 of the 735 KB of an
	 * H200 --quick result) is the same on every GPU of one model and
	 * driver; the fleet's files keep its summary (occupancy_model). */
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "occupancy");
	cJSON_AddItemToObject(doc, "placement",
			      launcher_placement_json(&f->place, f->device, f->gpu_index, f->uuid, f->barrier_ranks,
						      f->barrier_wait_s));
	char *text = cJSON_Print(doc);
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "placement");
	char err[600];
	if (!text) {
		error_msg("--out-dir: out of memory formatting JSON");
		return -1;
	}
	size_t n = strlen(text);
	char *buf = realloc(text, n + 2);
	if (!buf) {
		free(text);
		error_msg("--out-dir: out of memory formatting JSON");
		return -1;
	}
	buf[n] = '\n';
	buf[n + 1] = '\0';
	int rc = atomic_file_write(f->json_path, buf, n + 1, err, sizeof err);
	free(buf);
	if (rc != 0) {
		error_msg("--out-dir: %s", err);
		return -1;
	}
	static struct ridge_gpu checked;
	bool yaml = probe_calibration_check(rep, f->yaml_path, &checked, err, sizeof err) == 0 &&
		    probe_calibration_write(rep, f->yaml_path, err, sizeof err) == 0;
	if (!yaml)
		warning_msg("--out-dir: no calibration beside the result: %s", err);
	printf("%s: rank %d (%s, %s gpu%d%s%s): wrote %s%s%s\n", PROBE_NAME, f->place.rank,
	       launcher_name(f->place.kind), f->place.host, f->gpu_index, f->uuid[0] ? ", " : "", f->uuid, f->json_path,
	       yaml ? " and " : "", yaml ? f->yaml_path : "");
	return 0;
}

static int finish(struct probe_result *r, const struct options *opt)
{
	struct hwdb db;
	struct hwdb_diags diags;
	memset(&diags, 0, sizeof diags);
	int failed = hwdb_open(&db, opt->hwdb_dir, &diags) != 0;
	for (int i = 0; i < diags.warning_count; i++) {
		char line[600];
		hwdb_diag_format(&diags.warnings[i], line, sizeof line);
		fprintf(stderr, PROBE_NAME ": warning: %s\n", line);
	}
	if (failed) {
		for (int i = 0; i < diags.count; i++) {
			char line[600];
			hwdb_diag_format(&diags.items[i], line, sizeof line);
			fprintf(stderr, PROBE_NAME ": error: %s\n", line);
		}
		return EXIT_USAGE;
	}
	const struct hwdb_entry *e = probe_match(&db, &r->device);
	static struct probe_report rep;
	probe_report_build(r, e ? &e->gpu : NULL, &rep);
	int rc = rep.failures ? EXIT_PROBLEM : EXIT_OK;
	/* The validation suite, when the run has one: predictions from the spec
	 * sheet and from this run's own calibration. */
	static struct probe_validation val;
	static struct ridge_gpu cal;
	char cal_err[600];
	bool has_cal = probe_calibration_build(&rep, &cal, cal_err, sizeof cal_err) == 0;
	probe_validation_build(r, e ? &e->gpu : NULL, has_cal ? &cal : NULL, &val);
	/* Input problems before any output (exit 2), not after a whole report. */
	if (opt->validation_json && !val.count) {
		error_msg("--validation-json: this run has no validation cases (run with --validate)");
		hwdb_close(&db);
		return EXIT_USAGE;
	}
	if (opt->out) {
		static struct ridge_gpu checked;
		char err[600];
		if (probe_calibration_check(&rep, opt->out, &checked, err, sizeof err) != 0) {
			error_msg("--out: %s", err);
			hwdb_close(&db);
			return EXIT_USAGE;
		}
	}
	cJSON *doc = NULL;
	if (opt->json || opt->out_dir) {
		doc = probe_report_json(&rep);
		if (val.count) {
			cJSON_AddItemToObject(doc, "validation", probe_validation_json(&val));
			cJSON_AddItemToObject(doc, "validation_summary", probe_validation_summary_json(&val));
		}
	}
	if (opt->json) {
		char *text = cJSON_Print(doc);
		if (!text) {
			cJSON_Delete(doc);
			error_msg("out of memory formatting JSON");
			hwdb_close(&db);
			return EXIT_ENV;
		}
		fputs(text, stdout);
		fputc('\n', stdout);
		free(text);
	} else if (!opt->out_dir) {
		probe_report_text(&rep, stdout);
		probe_validation_text(&val, stdout);
	}
	if (opt->out_dir && write_fleet_result(doc, &rep, opt) != 0)
		rc = EXIT_ENV;
	cJSON_Delete(doc);
	if (opt->validation_json) {
		char err[600];
		if (write_validation(r, &val, opt->validation_json, err, sizeof err) != 0) {
			error_msg("--validation-json: %s", err);
			rc = EXIT_ENV;
		} else if (!opt->json) {
			printf("validation written to %s (plot it with: ridge roofline --validation %s --calibration "
			       "FILE --svg OUT.svg)\n",
			       opt->validation_json, opt->validation_json);
		}
	}
	if (opt->out) {
		char err[600];
		if (probe_calibration_write(&rep, opt->out, err, sizeof err) != 0) {
			error_msg("--out: %s", err);
			rc = EXIT_ENV;
		} else if (!opt->json) {
			printf("calibration written to %s (load it with: ridge ... --calibration %s)\n", opt->out,
			       opt->out);
		}
	}
	hwdb_close(&db);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		error_msg("cannot write the report: %s", strerror(errno));
		return EXIT_ENV;
	}
	return rc;
}

static int place_rank(const struct options *opt, int device_count);

static int replay(struct probe_result *r, const struct options *opt)
{
	char *text;
	size_t len;
	int e;
	const char *type;
	switch (hwdb_read_file(opt->replay, READ_MAX_PROBE_REPLAY_BYTES, &text, &len, &e, &type)) {
	case HWDB_READ_OK:
		break;
	case HWDB_READ_OPEN:
		error_msg("--replay: cannot open '%s': %s", opt->replay, strerror(e));
		return EXIT_USAGE;
	case HWDB_READ_IO:
		error_msg("--replay: cannot read '%s': %s", opt->replay, strerror(e));
		return EXIT_USAGE;
	case HWDB_READ_NOT_REGULAR:
		error_msg("--replay: cannot read '%s': %s, not a regular file", opt->replay, type);
		return EXIT_USAGE;
	case HWDB_READ_TOO_BIG:
		error_msg("--replay: '%s' is larger than %u bytes: not a probe result", opt->replay,
			  READ_MAX_PROBE_REPLAY_BYTES);
		return EXIT_USAGE;
	case HWDB_READ_NOMEM:
		error_msg("--replay: out of memory reading '%s'", opt->replay);
		return EXIT_USAGE;
	}
	char err[300];
	int rc = probe_result_from_json(text, len, r, err, sizeof err);
	free(text);
	if (rc != 0) {
		error_msg("--replay: '%s': %s", opt->replay, err);
		return EXIT_USAGE;
	}
	/* --replay --out-dir: a saved run into a fleet's directory, placed by
	 * the launcher's environment (one device a rank; no UUID: NVML is not
	 * read). What the tests run the --out-dir path through without a GPU. */
	if (opt->fleet && place_rank(opt, 1) < 0)
		return EXIT_USAGE;
	return finish(r, opt);
}

static void now_utc(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* --sustained: clocks and power per window, collected by window_end(). */
static struct probe_env window_env[KERN_MAX_REPEATS];
static double window_at[KERN_MAX_REPEATS];
static int window_count;
static double sustained_start;

static double seconds_since(double t0)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9 - t0;
}

static void window_end(void *monitor, int window)
{
	struct monitor *mon = monitor;
	if (window < 0 || window >= KERN_MAX_REPEATS)
		return;
	monitor_end(mon, &window_env[window]);
	window_at[window] = seconds_since(sustained_start);
	window_count = window + 1;
	monitor_begin(mon);
}

/* One measurement per window of a sustained run (m holds the run's result). */
static void split_windows(struct probe_result *r, struct probe_measurement *m, const struct kern_result *res)
{
	struct probe_measurement first = *m;
	r->count--;
	for (int w = 0; w < res->repeats && r->count < PROBE_MAX_MEASUREMENTS; w++) {
		struct probe_measurement *o = &r->m[r->count++];
		*o = first;
		o->sustained = true;
		o->repeats = 1;
		o->seconds[0] = res->seconds[w];
		o->at_s = window_at[w];
		if (w < window_count)
			o->env = window_env[w];
		probe_measurement_derive(o);
	}
}

extern char **environ;

/* An output that is the --replay input of this command (by device and inode:
 * a link to it too) would destroy what is read: refused before anything is
 * written, as ridge refuses one (app_output_not_input). -1 after saying so. */
static int output_not_replay(const char *flag, const char *out, const struct options *opt)
{
	if (!out || !opt->replay || !atomic_file_same(out, opt->replay))
		return 0;
	error_msg("%s: '%s' is the input '%s' of this command: writing it would destroy what is read (name another "
		  "file)",
		  flag, out, opt->replay);
	return -1;
}

/* --out-dir: this rank's place, its device, and the claim on its file name.
 * Returns the device, or -1 after saying why (a usage error). */
static int place_rank(const struct options *opt, int device_count)
{
	struct fleet_out *f = opt->fleet;
	char host[256] = "", err[600];
	gethostname(host, sizeof host - 1);
	const char *const *env = (const char *const *)environ;
	if (launcher_detect(env, host, &f->place, err, sizeof err) != 0) {
		error_msg("%s", err);
		return -1;
	}
	f->device = launcher_device(&f->place, opt->device_set ? opt->device : -1, device_count, err, sizeof err);
	if (f->device < 0) {
		error_msg("%s", err);
		return -1;
	}
	f->gpu_index =
		launcher_gpu_index(env, strcmp(PROBE_NAME, "ridge-probe-hip") == 0, &f->place, f->device, device_count);
	if (launcher_result_path(opt->out_dir, f->place.host, f->gpu_index, "json", f->json_path,
				 sizeof f->json_path) != 0 ||
	    launcher_result_path(opt->out_dir, f->place.host, f->gpu_index, "yaml", f->yaml_path,
				 sizeof f->yaml_path) != 0) {
		error_msg("--out-dir: the path '%s' is too long", opt->out_dir);
		return -1;
	}
	if (output_not_replay("--out-dir", f->json_path, opt) || output_not_replay("--out-dir", f->yaml_path, opt))
		return -1;
	if (launcher_claim(f->json_path, err, sizeof err) != 0) {
		error_msg("--out-dir: %s", err);
		return -1;
	}
	f->claimed = true;
	return f->device;
}

static void wait_at_barrier(struct probe_result *r, const struct options *opt)
{
	struct fleet_out *f = opt->fleet;
	char err[600];
	double start = seconds_since(0);
	f->barrier_ranks = launcher_barrier(opt->barrier_file, &f->place, opt->barrier_timeout, 0.25, err, sizeof err);
	f->barrier_wait_s = seconds_since(start);
	if (f->barrier_ranks < 0) {
		warning_msg("--barrier-file: %s: starting unaligned", err);
		probe_note(r, "barrier: %s: started unaligned", err);
		f->barrier_ranks = 0;
	} else if (f->barrier_ranks < f->place.world_size) {
		warning_msg("--barrier-file: %d of %d ranks after %d s: starting unaligned", f->barrier_ranks,
			    f->place.world_size, opt->barrier_timeout);
		probe_note(r, "barrier: %d of %d ranks after %d s: started unaligned", f->barrier_ranks,
			   f->place.world_size, opt->barrier_timeout);
	}
}

static int measure(struct probe_result *r, const struct options *opt)
{
	const struct kern_backend *be = kern_backend();
	char err[1024];
	int count = 0;
	char why[600];
	if (be->device_count(&count, err, sizeof err) != 0) {
		if (probe_driver_check(be->name, why, sizeof why) != 0)
			error_msg("%s", why);
		else
			error_msg("no usable GPU (%s backend): %s", be->name, probe_runtime_message(err));
		return EXIT_ENV;
	}
	if (count < 1) {
		if (probe_driver_check(be->name, why, sizeof why) != 0)
			error_msg("%s", why);
		else
			error_msg("no GPU found (%s backend)", be->name);
		return EXIT_ENV;
	}
	int device = opt->device;
	if (opt->fleet) {
		device = place_rank(opt, count);
		if (device < 0)
			return EXIT_USAGE;
	}
	if (device >= count) {
		error_msg("--device: '%d' is out of range (0..%d)", device, count - 1);
		return EXIT_USAGE;
	}
	struct kern_ctx *ctx = NULL;
	if (be->open(device, &ctx, &r->device, err, sizeof err) != 0) {
		error_msg("cannot open %s device %d: %s", be->name, device, err);
		return EXIT_ENV;
	}
	snprintf(r->version, sizeof r->version, "%s", RIDGE_VERSION);
	now_utc(r->date, sizeof r->date);
	r->quick = opt->quick;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	r->seed = ((unsigned long long)ts.tv_sec * 1000003ull) ^ (unsigned long long)ts.tv_nsec;

	static struct monitor mon;
	monitor_open(&mon, r->device.pci_bus_id, r);
	if (!mon.ok)
		probe_note(r, "%s", mon.why);
	if (opt->fleet) {
		snprintf(opt->fleet->uuid, sizeof opt->fleet->uuid, "%s", mon.uuid);
		if (opt->barrier_file)
			wait_at_barrier(r, opt);
	}

	static struct step steps[MAX_STEPS];
	int n = plan(&opt->sel, opt->quick, &r->device, steps);
	if (opt->sustained > 0)
		n = plan_sustained(opt->sustained, steps, n);
	bool occupancy = !opt->sel.any || opt->sel.group[G_OCCUPANCY];
	int total = n + (occupancy ? 1 : 0);
	for (int i = 0; i < n; i++) {
		const struct step *s = &steps[i];
		struct probe_measurement *m = &r->m[r->count++];
		memset(m, 0, sizeof *m);
		snprintf(m->name, sizeof m->name, "%s", kern_id_name(s->id));
		m->id = s->id;
		m->sweep = s->sweep;
		m->validation = s->validation;
		m->m = s->m;
		m->n = s->n;
		m->k = s->k;
		m->bytes = s->bytes;
		m->verify_error = -1;
		progress(i, total, s);
		const char *why = be->unsupported(ctx, s->id);
		if (why) {
			m->unsupported = true;
			snprintf(m->error, sizeof m->error, "%s", why);
			continue;
		}
		int repeats = s->repeats > 0 && s->repeats < opt->repeats ? s->repeats : opt->repeats;
		int warmup = s->repeats > 0 && opt->warmup > 1 ? 1 : opt->warmup;
		if (s->window_s > 0)
			repeats = s->repeats;
		struct kern_config cfg;
		memset(&cfg, 0, sizeof cfg);
		cfg.id = s->id;
		cfg.bytes = s->bytes;
		cfg.m = s->m;
		cfg.n = s->n;
		cfg.k = s->k;
		cfg.warmup = warmup;
		cfg.repeats = repeats;
		cfg.seed = r->seed + (unsigned long long)i * 7919u;
		cfg.sample = monitor_sample;
		cfg.sample_user = &mon;
		cfg.window_s = s->window_s;
		cfg.window_end = s->window_s > 0 ? window_end : NULL;
		if (kern_id_is_latency(s->id)) {
			cfg.stride = (double)s->m;
			cfg.l1 = (int)s->n;
		}
		static struct kern_result res;
		window_count = 0;
		sustained_start = seconds_since(0);
		monitor_begin(&mon);
		int rc = be->run(ctx, &cfg, &res, err, sizeof err);
		monitor_end(&mon, &m->env);
		m->verify_error = res.verify_error;
		m->verify_tolerance = res.verify_tolerance;
		snprintf(m->method, sizeof m->method, "%s", res.method);
		if (rc != 0) {
			progress_done();
			snprintf(m->error, sizeof m->error, "%s", err);
			warning_msg("%s: %s", m->name, err);
			continue;
		}
		m->ok = true;
		m->repeats = res.repeats;
		memcpy(m->seconds, res.seconds, sizeof res.seconds);
		m->work = res.work;
		if (res.bytes > 0)
			m->bytes = res.bytes;
		if (s->window_s > 0) {
			split_windows(r, m, &res);
			continue;
		}
		probe_measurement_derive(m);
		if (m->stats.cv > PROBE_CV_WARN) {
			progress_done();
			warning_msg("%s: coefficient of variation %.1f%% > 5%% over %d runs", m->name,
				    100 * m->stats.cv, m->repeats);
		}
	}
	if (occupancy) {
		struct step s = { KERN_COUNT, 0, 0, 0, 0, false, false, 0, 0 };
		if (isatty(2))
			fprintf(stderr, "\r\033[K" PROBE_NAME ": [%d/%d] occupancy", total, total);
		else
			fprintf(stderr, PROBE_NAME ": [%d/%d] occupancy\n", total, total);
		(void)s;
		if (be->occupancy(ctx, r->occupancy, PROBE_MAX_OCCUPANCY, &r->occupancy_count, err, sizeof err) != 0) {
			progress_done();
			warning_msg("occupancy: %s", err);
			probe_note(r, "occupancy: %s", err);
		}
	}
	progress_done();
	be->close(ctx);
	monitor_close(&mon);
	return finish(r, opt);
}

static int parse_count(const char *flag, const char *text, long lo, long hi, int *out)
{
	double v;
	char err[200];
	if (ridge_quantity_parse(text, RIDGE_UNIT_COUNT, &v, err, sizeof err) != 0) {
		error_msg("%s: %s", flag, err);
		return -1;
	}
	if (v != floor(v) || v < lo || v > hi) {
		error_msg("%s: '%s' is out of range (%ld..%ld)", flag, text, lo, hi);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* --out-dir, --barrier-file and --barrier-timeout together, before any measuring. */
static int check_out_dir(struct options *opt, struct fleet_out *fleet)
{
	if (!opt->out_dir) {
		if (opt->barrier_file || opt->barrier_timeout) {
			error_msg("--barrier-file and --barrier-timeout go with --out-dir");
			return -1;
		}
		return 0;
	}
	if (opt->out) {
		error_msg("--out-dir writes a result and its calibration per GPU: not with --out");
		return -1;
	}
	if (opt->replay && opt->barrier_file) {
		error_msg("--barrier-file aligns measurements: not with --replay");
		return -1;
	}
	struct stat st;
	if (stat(opt->out_dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(opt->out_dir, W_OK | X_OK) != 0) {
		error_msg("--out-dir: '%s' is not a directory this process can write", opt->out_dir);
		return -1;
	}
	memset(fleet, 0, sizeof *fleet);
	fleet->barrier_ranks = -1;
	if (!opt->barrier_timeout)
		opt->barrier_timeout = 600;
	opt->fleet = fleet;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "quick", no_argument, NULL, 'q' },
		{ "only", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "out", required_argument, NULL, 'O' },
		{ "hwdb", required_argument, NULL, 'H' },
		{ "repeats", required_argument, NULL, 'r' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "replay", required_argument, NULL, 'R' },
		{ "validate", no_argument, NULL, 'V' },
		{ "validation-json", required_argument, NULL, 'J' },
		{ "sustained", required_argument, NULL, 'S' },
		{ "out-dir", required_argument, NULL, 'D' },
		{ "barrier-file", required_argument, NULL, 'B' },
		{ "barrier-timeout", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct options opt;
	memset(&opt, 0, sizeof opt);
	opt.repeats = -1;
	opt.warmup = -1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (parse_count("--device", optarg, 0, 1023, &opt.device))
				return EXIT_USAGE;
			opt.device_set = true;
			break;
		case 'q':
			opt.quick = true;
			break;
		case 'o':
			if (parse_only(optarg, &opt.sel))
				return EXIT_USAGE;
			break;
		case 'j':
			opt.json = true;
			break;
		case 'O':
			opt.out = optarg;
			break;
		case 'H':
			opt.hwdb_dir = optarg;
			break;
		case 'r':
			if (parse_count("--repeats", optarg, 1, KERN_MAX_REPEATS, &opt.repeats))
				return EXIT_USAGE;
			break;
		case 'w':
			if (parse_count("--warmup", optarg, 0, 100, &opt.warmup))
				return EXIT_USAGE;
			break;
		case 'R':
			opt.replay = optarg;
			break;
		case 'V':
			opt.validate = true;
			break;
		case 'J':
			opt.validation_json = optarg;
			break;
		case 'S': {
			int secs = 0;
			if (parse_count("--sustained", optarg, 1, 600, &secs))
				return EXIT_USAGE;
			opt.sustained = secs;
			break;
		}
		case 'D':
			opt.out_dir = optarg;
			break;
		case 'B':
			opt.barrier_file = optarg;
			break;
		case 'T':
			if (parse_count("--barrier-timeout", optarg, 1, 86400, &opt.barrier_timeout))
				return EXIT_USAGE;
			break;
		case 'h':
			help_text_print(probe_usage_text, stdout);
			return EXIT_OK;
		case ':':
			error_msg("%s: missing value", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			error_msg("unknown option '%s' (see " PROBE_NAME " --help)", argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		error_msg("unexpected argument '%s' (see " PROBE_NAME " --help)", argv[optind]);
		return EXIT_USAGE;
	}
	if (opt.replay && (opt.quick || opt.sel.any || opt.device_set || opt.repeats >= 0 || opt.warmup >= 0 ||
			   opt.validate || opt.sustained > 0)) {
		error_msg(
			"--replay re-renders a saved run (its validation too, if it has one): --device, --quick, --only, "
			"--validate, --sustained, --repeats and --warmup do not apply");
		return EXIT_USAGE;
	}
	if (opt.validate) {
		/* --validate alone runs the whole suite; with --only v_... only those parts. */
		bool any = false;
		for (int g = G_V_STREAM; g <= G_V_LAUNCH; g++)
			any = any || opt.sel.group[g];
		for (int g = G_V_STREAM; g <= G_V_LAUNCH && !any; g++)
			opt.sel.group[g] = true;
	}
	/* Before minutes of measuring, not after: a path that cannot be written
	 * would lose the calibration or the validation cases. */
	char path_err[600];
	if (output_not_replay("--out", opt.out, &opt) ||
	    output_not_replay("--validation-json", opt.validation_json, &opt))
		return EXIT_USAGE;
	if (opt.out && atomic_file_path_check(opt.out, path_err, sizeof path_err) != 0) {
		error_msg("--out: %s", path_err);
		return EXIT_USAGE;
	}
	if (opt.validation_json && atomic_file_path_check(opt.validation_json, path_err, sizeof path_err) != 0) {
		error_msg("--validation-json: %s", path_err);
		return EXIT_USAGE;
	}
	static struct fleet_out fleet;
	if (check_out_dir(&opt, &fleet) != 0)
		return EXIT_USAGE;
	if (opt.repeats < 0)
		opt.repeats = opt.quick ? 8 : 15;
	if (opt.warmup < 0)
		opt.warmup = opt.quick ? 2 : 3;
	struct probe_result *r = calloc(1, sizeof *r);
	if (!r) {
		error_msg("out of memory");
		return EXIT_ENV;
	}
	int rc = opt.replay ? replay(r, &opt) : measure(r, &opt);
	free(r);
	if (fleet.claimed) /* a claim no result filled (a failed run) is not left behind */
		launcher_release(fleet.json_path);
	return rc;
}
