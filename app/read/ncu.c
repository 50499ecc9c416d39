#include "ncu.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <sys/wait.h>
#include <strings.h>

#include "read_limits.h"

/* CSV is parsed by hand: ncu's output is a narrow dialect (every field
 * quoted, no newlines inside fields) and the diagnostics must name the file
 * and line, which the CSV libraries packaged for Debian do not report. */

struct fields {
	int count, cap;
	char **items;
	char *buf; /* unquoted text of the line, fields NUL-separated */
};

static void fields_free(struct fields *f)
{
	free(f->items);
	free(f->buf);
	memset(f, 0, sizeof *f);
}

/* Splits one line (without its newline) into fields. Returns 0, or -1 with a
 * reason in err. */
static int split_line(const char *line, size_t len, struct fields *f, char *err, size_t err_len)
{
	free(f->buf);
	f->buf = malloc(len + 1);
	f->count = 0;
	if (!f->buf) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	char *out = f->buf;
	size_t i = 0;
	for (;;) {
		if (f->count == f->cap) {
			int cap = f->cap ? f->cap * 2 : 32;
			char **grown = realloc(f->items, (size_t)cap * sizeof *grown);
			if (!grown) {
				snprintf(err, err_len, "out of memory");
				return -1;
			}
			f->items = grown;
			f->cap = cap;
		}
		f->items[f->count++] = out;
		if (i < len && line[i] == '"') {
			i++;
			for (;;) {
				if (i >= len) {
					snprintf(err, err_len, "unterminated quoted field %d", f->count);
					return -1;
				}
				if (line[i] == '"') {
					if (i + 1 < len && line[i + 1] == '"') {
						*out++ = '"';
						i += 2;
						continue;
					}
					i++;
					break;
				}
				*out++ = line[i++];
			}
			if (i < len && line[i] != ',') {
				snprintf(err, err_len, "text after the closing quote of field %d", f->count);
				return -1;
			}
		} else {
			while (i < len && line[i] != ',') {
				if (line[i] == '"') {
					snprintf(err, err_len, "stray quote inside unquoted field %d", f->count);
					return -1;
				}
				*out++ = line[i++];
			}
		}
		*out++ = '\0';
		if (i >= len)
			return 0;
		i++; /* the comma */
	}
}

/* ---- units and values ---- */

enum unit_kind { UNIT_COUNT, UNIT_BYTES, UNIT_TIME, UNIT_OTHER };

static enum unit_kind unit_scale(const char *unit, double *factor)
{
	static const struct {
		const char *name;
		double factor;
	} times[] = {
		{ "nsecond", 1e-9 }, { "usecond", 1e-6 }, { "msecond", 1e-3 }, { "second", 1 },
		{ "ns", 1e-9 },      { "us", 1e-6 },      { "ms", 1e-3 },      { "s", 1 },
	};
	for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
		if (strcmp(unit, times[i].name) == 0) {
			*factor = times[i].factor;
			return UNIT_TIME;
		}
	}
	*factor = 1;
	const char *base = unit;
	const char *prefix = strchr("KMGTP", unit[0]);
	if (unit[0] && prefix && islower((unsigned char)unit[1])) {
		*factor = pow(1000, (double)(prefix - "KMGTP" + 1));
		base = unit + 1;
	}
	if (strcmp(base, "byte") == 0 || strcmp(base, "bytes") == 0)
		return UNIT_BYTES;
	if (base[0] == '\0' || strcmp(base, "inst") == 0 || strcmp(base, "op") == 0 || strcmp(base, "ops") == 0)
		return UNIT_COUNT;
	return UNIT_OTHER;
}

/* 0: a number; 1: absent ("", "n/a"); -1: not a number. */
static int parse_value(const char *text, double *out)
{
	char clean[128];
	size_t n = 0;
	while (isspace((unsigned char)*text))
		text++;
	if (*text == '\0' || strcasecmp(text, "n/a") == 0)
		return 1;
	for (const char *c = text; *c; c++) {
		if (*c == ',')
			continue; /* thousands separator */
		if (n + 1 >= sizeof clean)
			return -1;
		clean[n++] = *c;
	}
	while (n && isspace((unsigned char)clean[n - 1]))
		n--;
	clean[n] = '\0';
	char *end;
	double v = strtod(clean, &end);
	if (end == clean || *end != '\0' || !isfinite(v) || v < 0 || strpbrk(clean, "xXnN"))
		return -1;
	*out = v;
	return 0;
}

/* ---- metrics ---- */

struct context {
	const char *path;
	int line;
	char *err;
	size_t err_len;
	struct ncu_report *report;
	/* which prefix each SASS count came from: sm__ (2) wins over smsp__ (1) */
	unsigned char sass_source[NCU_PRECISIONS][NCU_OPS];
	int time_priority;
};

static int fail(struct context *cx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct context *cx, const char *fmt, ...)
{
	char what[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(cx->err, cx->err_len, "%s:%d: %s", cx->path, cx->line, what);
	return -1;
}

static bool tensor_dtype(const char *src, enum ridge_dtype *out)
{
	static const struct {
		const char *token;
		enum ridge_dtype dtype;
	} map[] = {
		{ "fp64", RIDGE_FP64 }, { "tf32", RIDGE_TF32 }, { "bf16", RIDGE_BF16 }, { "fp16", RIDGE_FP16 },
		{ "fp8", RIDGE_FP8 },   { "int8", RIDGE_INT8 }, { "fp4", RIDGE_FP4 },
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
		size_t n = strlen(map[i].token);
		if (strncmp(src, map[i].token, n) == 0 && (src[n] == '\0' || src[n] == '_' || src[n] == '.')) {
			*out = map[i].dtype;
			return true;
		}
	}
	return false;
}

static int expect_unit(struct context *cx, const char *name, const char *unit, enum unit_kind want, double *factor)
{
	enum unit_kind kind = unit_scale(unit, factor);
	if (kind == want)
		return 0;
	static const char *const words[] = { "a count", "bytes", "a time" };
	return fail(cx, "unit '%s' of %s is not %s", unit, name, words[want]);
}

/* What a metric is, from its name alone: most of a full ncu report is not used. */
enum metric_kind { M_NONE, M_TIME, M_DRAM_READ, M_DRAM_WRITE, M_DRAM, M_L2, M_SASS, M_TENSOR, M_TENSOR_INST };

struct metric {
	enum metric_kind what;
	int time_priority;         /* M_TIME: .sum 3, .avg 2, Duration 1 */
	int precision, op, source; /* M_SASS: which count, sm__ (2) or smsp__ (1) */
	enum ridge_dtype tensor;   /* M_TENSOR: the source dtype */
	bool tensor_has_dst;       /* M_TENSOR: a _dst_ breakdown */
};

/* An sm__ or smsp__ SASS count, "sass_thread_inst_executed_op_{d,f,h}{add,mul,fma}_pred_on.sum";
 * m->source says which prefix it was. */
static void classify_sass(const char *name, struct metric *m)
{
	int source = 0;
	if (!((strncmp(name, "sm__", 4) == 0 && (source = 2)) || (strncmp(name, "smsp__", 6) == 0 && (source = 1))))
		return;
	m->source = source;
	const char *rest = name + (source == 2 ? 4 : 6);
	static const char stem[] = "sass_thread_inst_executed_op_";
	if (strncmp(rest, stem, sizeof stem - 1) == 0) {
		rest += sizeof stem - 1;
		const char *p = strchr("dfh", rest[0]);
		static const char *const ops[] = { "add_pred_on.sum", "mul_pred_on.sum", "fma_pred_on.sum" };
		if (rest[0] && p) {
			for (int i = 0; i < NCU_OPS; i++) {
				if (strcmp(rest + 1, ops[i]) == 0) {
					m->what = M_SASS;
					m->precision = p[0] == 'd' ? NCU_FP64 : p[0] == 'f' ? NCU_FP32 : NCU_FP16;
					m->op = i;
				}
			}
		}
	}
}

static void classify_metric(const char *name, struct metric *m)
{
	*m = (struct metric){ .what = M_NONE, .tensor = RIDGE_FP16 };
	if (strcmp(name, "gpu__time_duration.sum") == 0)
		m->time_priority = 3;
	else if (strcmp(name, "gpu__time_duration.avg") == 0)
		m->time_priority = 2;
	else if (strcmp(name, "Duration") == 0)
		m->time_priority = 1;

	const char *rest;
	if (m->time_priority)
		m->what = M_TIME;
	else if (strcmp(name, "dram__bytes_read.sum") == 0)
		m->what = M_DRAM_READ;
	else if (strcmp(name, "dram__bytes_write.sum") == 0)
		m->what = M_DRAM_WRITE;
	else if (strcmp(name, "dram__bytes.sum") == 0)
		m->what = M_DRAM;
	else if (strcmp(name, "lts__t_bytes.sum") == 0)
		m->what = M_L2;
	else if (strncmp(name, "sm__inst_executed_pipe_tensor", 29) == 0 ||
		 strncmp(name, "smsp__inst_executed_pipe_tensor", 31) == 0)
		m->what = M_TENSOR_INST;
	else if (strncmp(name, "sm__ops_path_tensor_src_", 24) == 0) {
		rest = name + 24;
		if (!strstr(rest, "_sparsity_") && tensor_dtype(rest, &m->tensor)) {
			m->what = M_TENSOR;
			m->tensor_has_dst = strstr(rest, "_dst_") != NULL;
			size_t n = strlen(rest);
			if (n < 4 || strcmp(rest + n - 4, ".sum") != 0)
				m->what = M_NONE; /* .avg, .max, rates: not the count */
		}
	} else
		classify_sass(name, m);
}

/* The tensor pipe's instructions: the pipe's count less the HFMA2.MMA
 * register moves it includes. */
static void store_tensor_inst(struct ncu_kernel *k, const char *name, double value)
{
	size_t n = strlen(name);
	static const char hfma2[] = "_type_hfma2.sum";
	if (n >= sizeof hfma2 - 1 && strcmp(name + n - (sizeof hfma2 - 1), hfma2) == 0)
		k->tensor_hfma2 = value;
	else if (!strstr(name, "_type_hfma2") && value > k->tensor_pipe)
		k->tensor_pipe = value;
	k->tensor_instructions = k->tensor_pipe > k->tensor_hfma2 ? k->tensor_pipe - k->tensor_hfma2 : 0;
}

/* A classified metric's value, in its unit, into the kernel. */
static int store_metric(struct context *cx, struct ncu_kernel *k, const struct metric *m, const char *name,
			const char *unit, double value)
{
	double factor;
	enum metric_kind what = m->what;
	switch (what) {
	case M_TIME:
		if (expect_unit(cx, name, unit, UNIT_TIME, &factor))
			return -1;
		if (m->time_priority >= cx->time_priority) {
			cx->time_priority = m->time_priority;
			k->has_time = true;
			k->time_s = value * factor;
		}
		break;
	case M_DRAM_READ:
	case M_DRAM_WRITE:
	case M_DRAM:
	case M_L2:
		if (expect_unit(cx, name, unit, UNIT_BYTES, &factor))
			return -1;
		value *= factor;
		if (what == M_DRAM_READ) {
			k->has_dram_read = true;
			k->dram_read = value;
		} else if (what == M_DRAM_WRITE) {
			k->has_dram_write = true;
			k->dram_write = value;
		} else if (what == M_DRAM) {
			k->has_dram_total = true;
			k->dram_total = value;
		} else {
			k->has_l2 = true;
			k->l2_bytes = value;
		}
		break;
	case M_SASS:
		if (expect_unit(cx, name, unit, UNIT_COUNT, &factor))
			return -1;
		if (m->source >= cx->sass_source[m->precision][m->op]) {
			cx->sass_source[m->precision][m->op] = (unsigned char)m->source;
			k->has_sass[m->precision][m->op] = true;
			k->sass[m->precision][m->op] = value * factor;
		}
		break;
	case M_TENSOR:
		if (expect_unit(cx, name, unit, UNIT_COUNT, &factor))
			return -1;
		if (m->tensor_has_dst) {
			k->has_tensor_dst[m->tensor] = true;
			k->tensor_dst[m->tensor] += value * factor;
		} else {
			k->has_tensor_plain[m->tensor] = true;
			k->tensor_plain[m->tensor] = value * factor;
		}
		break;
	case M_TENSOR_INST:
		if (expect_unit(cx, name, unit, UNIT_COUNT, &factor))
			return -1;
		store_tensor_inst(k, name, value * factor);
		break;
	default:
		break;
	}
	return 0;
}

/* One metric of a kernel: what it is (classify_metric), its value, then
 * stored in its unit (store_metric). An unused metric is skipped, an
 * empty or "n/a" value too. */
static int apply_metric(struct context *cx, struct ncu_kernel *k, const char *name, const char *unit, const char *text)
{
	struct metric m;
	classify_metric(name, &m);
	if (m.what == M_NONE)
		return 0;
	if (m.what == M_SASS || m.what == M_TENSOR)
		cx->report->any_flop_metric = true;

	double value;
	int rc = parse_value(text, &value);
	if (rc < 0)
		return fail(cx, "value '%s' of %s is not a number", text, name);
	if (rc > 0)
		return 0;
	return store_metric(cx, k, &m, name, unit, value);
}

/* ---- the table ---- */

static int column(const struct fields *header, const char *name)
{
	for (int i = 0; i < header->count; i++)
		if (strcmp(header->items[i], name) == 0)
			return i;
	return -1;
}

static struct ncu_kernel *new_kernel(struct context *cx, int *cap, const char *id, const char *name)
{
	struct ncu_report *r = cx->report;
	if (r->count == *cap) {
		int grown_cap = *cap ? *cap * 2 : 16;
		struct ncu_kernel *grown = realloc(r->kernels, (size_t)grown_cap * sizeof *grown);
		if (!grown) {
			snprintf(cx->err, cx->err_len, "%s: out of memory", cx->path);
			return NULL;
		}
		r->kernels = grown;
		*cap = grown_cap;
	}
	struct ncu_kernel *k = &r->kernels[r->count++];
	memset(k, 0, sizeof *k);
	snprintf(k->id, sizeof k->id, "%s", id);
	snprintf(k->name, sizeof k->name, "%s", name);
	k->line = cx->line;
	memset(cx->sass_source, 0, sizeof cx->sass_source);
	cx->time_priority = 0;
	return k;
}

/* The table as read so far: the header's columns and, in the --page raw
 * layout, the units row under it. */
struct table {
	struct fields header, row;
	int id_col, name_col, metric_col, unit_col, value_col;
	bool have_header, units_seen;
	char **units; /* one per header column (raw layout), NULL until read */
	int cap;      /* kernels allocated in the report */
};

/* The header line: its columns found, the layout (details: a row per
 * metric; raw: a column per metric) decided. Returns 0 or -1 (cx->err). */
static int read_header(struct context *cx, struct table *t, const char *line, size_t line_len)
{
	char why[200];
	if (split_line(line, line_len, &t->header, why, sizeof why))
		return fail(cx, "%s", why);
	t->id_col = column(&t->header, "ID");
	t->name_col = column(&t->header, "Kernel Name");
	t->metric_col = column(&t->header, "Metric Name");
	t->unit_col = column(&t->header, "Metric Unit");
	t->value_col = column(&t->header, "Metric Value");
	if (t->name_col < 0)
		return fail(cx, "the header has no \"Kernel Name\" column");
	/* A header line can start with "ID" yet have no ID column
	 * ('"ID""ID",...'): every row was then read at items[-1]. */
	if (t->id_col < 0)
		return fail(cx, "the header has no \"ID\" column");
	cx->report->raw = t->metric_col < 0;
	if (!cx->report->raw && (t->unit_col < 0 || t->value_col < 0))
		return fail(cx, "the header has \"Metric Name\" but no \"Metric Unit\" and \"Metric Value\" columns");
	t->units = calloc((size_t)t->header.count, sizeof *t->units);
	if (!t->units) {
		snprintf(cx->err, cx->err_len, "%s: out of memory", cx->path);
		return -1;
	}
	t->have_header = true;
	return 0;
}

/* A row of the --page raw layout: the units row under the header, or one
 * kernel with every metric in its column. */
static int read_raw_row(struct context *cx, struct table *t, const char *id)
{
	struct ncu_report *out = cx->report;
	if (id[0] == '\0') {
		/* --page raw prints the units under the header. */
		if (t->units_seen || out->count)
			return fail(cx, "a row with no ID");
		t->units_seen = true;
		for (int i = 0; i < t->header.count; i++) {
			t->units[i] = strdup(t->row.items[i]);
			if (!t->units[i]) {
				snprintf(cx->err, cx->err_len, "%s: out of memory", cx->path);
				return -1;
			}
		}
		return 0;
	}
	struct ncu_kernel *k = new_kernel(cx, &t->cap, id, t->row.items[t->name_col]);
	if (!k)
		return -1;
	for (int i = 0; i < t->header.count; i++) {
		if (i == t->id_col || i == t->name_col)
			continue;
		if (apply_metric(cx, k, t->header.items[i], t->units[i] ? t->units[i] : "", t->row.items[i]))
			return -1;
	}
	return 0;
}

/* A row of the details layout: one metric of the kernel its ID names. */
static int read_details_row(struct context *cx, struct table *t, const char *id)
{
	struct ncu_report *out = cx->report;
	if (id[0] == '\0')
		return fail(cx, "a row with no ID");
	struct ncu_kernel *k = out->count ? &out->kernels[out->count - 1] : NULL;
	if (!k || strcmp(k->id, id) != 0) {
		/* ncu groups a kernel's rows together; a repeated ID later is a new result. */
		k = new_kernel(cx, &t->cap, id, t->row.items[t->name_col]);
		if (!k)
			return -1;
	}
	return apply_metric(cx, k, t->row.items[t->metric_col], t->row.items[t->unit_col], t->row.items[t->value_col]);
}

/* One line after the header, as wide as the header, in its layout. */
static int read_row(struct context *cx, struct table *t, const char *line, size_t line_len)
{
	char why[200];
	if (split_line(line, line_len, &t->row, why, sizeof why))
		return fail(cx, "%s", why);
	if (t->row.count != t->header.count)
		return fail(cx, "%d fields where the header has %d", t->row.count, t->header.count);
	const char *id = t->row.items[t->id_col];
	return cx->report->raw ? read_raw_row(cx, t, id) : read_details_row(cx, t, id);
}

/* Each value is finite, but a unit scale (1e308 Gbyte) or a sum (add +
 * mul + 2 fma, read + write) can overflow: refuse here, once, rather than
 * let inf reach a placement, a table or a plot. */
static int check_finite(const struct ncu_report *out, const char *path, char *err, size_t err_len)
{
	for (int i = 0; i < out->count; i++) {
		const struct ncu_kernel *k = &out->kernels[i];
		double bytes = 0;
		bool finite = isfinite(k->time_s) && isfinite(k->l2_bytes) && isfinite(ncu_flops(k)) &&
			      (!ncu_dram_bytes(k, &bytes) || isfinite(bytes));
		for (int d = 0; d < RIDGE_DTYPE_COUNT; d++)
			finite = finite && isfinite(k->tensor_plain[d] + k->tensor_dst[d]);
		for (int p = 0; p < NCU_PRECISIONS; p++)
			finite = finite && isfinite(ncu_vector_flops(k, p));
		if (!finite) {
			snprintf(err, err_len, "%s:%d: kernel '%s' (ID %s): a count too large to represent (overflow)",
				 path, k->line, k->name, k->id);
			return -1;
		}
	}
	return 0;
}

/* Line by line: the application's output and ncu's own lines skipped, the
 * header (read_header), then every row (read_row); at the end a header and
 * a kernel found, every count finite. */
int ncu_parse(const char *path, const char *text, size_t len, struct ncu_report *out, char *err, size_t err_len)
{
	memset(out, 0, sizeof *out);
	struct context cx = { .path = path, .err = err, .err_len = err_len, .report = out };
	struct table t = { .id_col = -1, .name_col = -1, .metric_col = -1, .unit_col = -1, .value_col = -1 };
	size_t pos = 0;
	int rc = -1;

	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		pos = 3; /* a UTF-8 byte-order mark, as Windows tools write */
	if (memchr(text, '\0', len)) {
		snprintf(err, err_len, "%s: not a text file (it contains NUL bytes)", path);
		return -1;
	}
	while (pos < len) {
		size_t end = pos;
		while (end < len && text[end] != '\n')
			end++;
		size_t line_len = end - pos;
		const char *line = text + pos;
		pos = end + 1;
		cx.line++;
		if (line_len && line[line_len - 1] == '\r')
			line_len--;
		if (line_len == 0 || (line_len >= 2 && line[0] == '=' && line[1] == '='))
			continue; /* blank, or ncu's own ==PROF== / ==WARNING== lines */
		if (!t.have_header) {
			/* Anything before the header is the application's output. */
			if (!(line_len >= 4 && strncmp(line, "\"ID\"", 4) == 0) &&
			    !(line_len >= 3 && strncmp(line, "ID,", 3) == 0))
				continue;
			if (read_header(&cx, &t, line, line_len))
				goto done;
			continue;
		}
		if (read_row(&cx, &t, line, line_len))
			goto done;
	}
	if (!t.have_header) {
		snprintf(err, err_len,
			 "%s: no Nsight Compute CSV header (a row starting \"ID\",...) found; write it with "
			 "ncu --csv [--page raw] --metrics ...",
			 path);
		goto done;
	}
	if (out->count == 0) {
		snprintf(err, err_len, "%s: the CSV has a header but no kernel rows", path);
		goto done;
	}
	if (check_finite(out, path, err, err_len))
		goto done;
	rc = 0;
done:
	if (t.units) {
		for (int i = 0; i < t.header.count; i++)
			free(t.units[i]);
		free(t.units);
	}
	fields_free(&t.header);
	fields_free(&t.row);
	if (rc)
		ncu_free(out);
	return rc;
}

void ncu_free(struct ncu_report *report)
{
	free(report->kernels);
	memset(report, 0, sizeof *report);
}

double ncu_vector_flops(const struct ncu_kernel *k, int precision)
{
	return k->sass[precision][NCU_ADD] + k->sass[precision][NCU_MUL] + 2 * k->sass[precision][NCU_FMA];
}

double ncu_tensor_flops(const struct ncu_kernel *k, enum ridge_dtype dtype)
{
	return k->has_tensor_plain[dtype] ? k->tensor_plain[dtype] : k->tensor_dst[dtype];
}

double ncu_flops(const struct ncu_kernel *k)
{
	double total = 0;
	for (int p = 0; p < NCU_PRECISIONS; p++)
		total += ncu_vector_flops(k, p);
	for (int d = 0; d < RIDGE_DTYPE_COUNT; d++)
		total += ncu_tensor_flops(k, (enum ridge_dtype)d);
	return total;
}

bool ncu_dram_bytes(const struct ncu_kernel *k, double *bytes)
{
	if (k->has_dram_read && k->has_dram_write) {
		*bytes = k->dram_read + k->dram_write;
		return true;
	}
	if (k->has_dram_total) {
		*bytes = k->dram_total;
		return true;
	}
	return false;
}

bool ncu_dominant(const struct ncu_kernel *k, enum ridge_dtype *dtype, bool *matrix)
{
	static const enum ridge_dtype vector_dtype[NCU_PRECISIONS] = { RIDGE_FP64, RIDGE_FP32, RIDGE_FP16 };
	double best = 0;
	for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
		double f = ncu_tensor_flops(k, (enum ridge_dtype)d);
		if (f > best) {
			best = f;
			*dtype = (enum ridge_dtype)d;
			*matrix = true;
		}
	}
	for (int p = 0; p < NCU_PRECISIONS; p++) {
		double f = ncu_vector_flops(k, p);
		if (f > best) {
			best = f;
			*dtype = vector_dtype[p];
			*matrix = false;
		}
	}
	return best > 0;
}

bool ncu_is_report(const char *path)
{
	size_t n = strlen(path);
	return n >= 8 && strcmp(path + n - 8, ".ncu-rep") == 0;
}

/* The ncu on PATH (its full name in buf), or false. */
static bool find_ncu(char *buf, size_t len)
{
	const char *path = getenv("PATH");
	while (path && *path) {
		size_t n = strcspn(path, ":");
		snprintf(buf, len, "%.*s/ncu", (int)n, path);
		if (n && access(buf, X_OK) == 0)
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

int ncu_import(const char *path, char **text, size_t *len, char *err, size_t err_len)
{
	*text = NULL;
	*len = 0;
	char ncu[4096];
	if (!find_ncu(ncu, sizeof ncu)) {
		snprintf(
			err, err_len,
			"'%s' is a saved Nsight Compute report; reading it takes ncu, which is not on PATH (install "
			"Nsight Compute, or export the CSV where it is: ncu --import %s --csv --page raw > profile.csv)",
			path, path);
		return 3;
	}
	int fds[2];
	if (pipe(fds) != 0) {
		snprintf(err, err_len, "cannot run ncu: %s", strerror(errno));
		return 3;
	}
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		snprintf(err, err_len, "cannot run ncu: %s", strerror(errno));
		return 3;
	}
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execl(ncu, "ncu", "--import", path, "--csv", "--page", "raw", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	size_t cap = 1 << 16;
	char *buf = malloc(cap);
	bool too_big = false;
	for (ssize_t got; buf && (got = read(fds[0], buf + *len, cap - *len - 1)) != 0;) {
		if (got < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		*len += (size_t)got;
		if (*len + 1 == cap) {
			char *grown = cap < READ_MAX_NCU_BYTES ? realloc(buf, cap * 2) : NULL;
			if (!grown) {
				too_big = cap >= READ_MAX_NCU_BYTES;
				break;
			}
			buf = grown;
			cap *= 2;
		}
	}
	close(fds[0]);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!buf || too_big || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		free(buf);
		*len = 0;
		if (too_big)
			snprintf(err, err_len, "ncu --import '%s' printed more than %zu bytes", path,
				 READ_MAX_NCU_BYTES);
		else if (!buf)
			snprintf(err, err_len, "out of memory reading ncu's output");
		else
			snprintf(err, err_len,
				 "ncu --import '%s' --csv --page raw failed (exit %d): not a report ncu can read?",
				 path, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		return too_big || buf ? 2 : 3;
	}
	buf[*len] = '\0';
	*text = buf;
	return 0;
}
