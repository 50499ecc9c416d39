/* The hwdb loader. A YAML entry is validated against the schema table
 * (hwdb_schema[] in schema.c, which also drives the writer and hw show's
 * JSON): type, unit, range, required/optional per vendor, unknown and
 * duplicate keys; then cross-field plausibility checks. Every problem is a
 * diagnostic with file:line:column, and loading goes on to find the rest. */
#include "hwdb.h"
#include "timing.h"
#include "arch.h"
#include "schema.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "units.h"

#define V_NV HWDB_NV
#define V_AMD HWDB_AMD
#define NO_OFFSET HWDB_NO_OFFSET
#define G(member) offsetof(struct ridge_gpu, member)

/* ---- diagnostics ---- */

struct parse_state {
	const char *name;
	yaml_document_t *doc;
	struct ridge_gpu *gpu;
	struct hwdb_diags *diags;
	unsigned vendor_bit;
	int errors; /* problems found, whether or not diags collects them */
	/* Where each field was set, for cross-field checks. */
	struct {
		size_t offset;
		int line, column;
	} marks[192];
	int mark_count;
};

static void diag_add(struct hwdb_diags *diags, const char *file, int line, int column, const char *fmt, ...)
{
	if (!diags)
		return;
	if (diags->count >= HWDB_MAX_DIAGS) {
		diags->dropped++;
		return;
	}
	struct hwdb_diag *d = &diags->items[diags->count++];
	snprintf(d->file, sizeof d->file, "%s", file);
	d->line = line;
	d->column = column;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->message, sizeof d->message, fmt, ap);
	va_end(ap);
}

#define AT(node) (int)(node)->start_mark.line + 1, (int)(node)->start_mark.column + 1

static void node_error(struct parse_state *st, const yaml_node_t *node, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	st->errors++;
	diag_add(st->diags, st->name, AT(node), "%s", msg);
}

void hwdb_diag_format(const struct hwdb_diag *d, char *buf, size_t len)
{
	if (d->line > 0)
		snprintf(buf, len, "%s:%d:%d: %s", d->file, d->line, d->column, d->message);
	else
		snprintf(buf, len, "%s: %s", d->file, d->message);
}

static void remember(struct parse_state *st, size_t offset, const yaml_node_t *node)
{
	if (st->mark_count < (int)(sizeof st->marks / sizeof st->marks[0])) {
		st->marks[st->mark_count].offset = offset;
		st->marks[st->mark_count].line = (int)node->start_mark.line + 1;
		st->marks[st->mark_count].column = (int)node->start_mark.column + 1;
		st->mark_count++;
	}
}

static void check_error(struct parse_state *st, size_t offset, const char *fmt, ...)
{
	int line = 0, column = 0;
	for (int i = 0; i < st->mark_count; i++) {
		if (st->marks[i].offset == offset) {
			line = st->marks[i].line;
			column = st->marks[i].column;
		}
	}
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	st->errors++;
	diag_add(st->diags, st->name, line, column, "%s", msg);
}

/* ---- scalar readers ---- */

const char *hwdb_yaml_type_name(const yaml_node_t *node)
{
	switch (node->type) {
	case YAML_SCALAR_NODE:
		return "a scalar";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "nothing";
	}
}

const char *hwdb_yaml_scalar(const yaml_node_t *node, const char *subject, char *why, size_t why_len)
{
	if (node->type != YAML_SCALAR_NODE) {
		snprintf(why, why_len, "'%s' must be a scalar, not %s", subject, hwdb_yaml_type_name(node));
		return NULL;
	}
	const char *text = (const char *)node->data.scalar.value;
	if (node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    (text[0] == '\0' || strcmp(text, "~") == 0 || strcasecmp(text, "null") == 0)) {
		snprintf(why, why_len, "'%s' has no value", subject);
		return NULL;
	}
	return text;
}

static const char *scalar_text(struct parse_state *st, const yaml_node_t *node, const char *path)
{
	char why[256];
	const char *text = hwdb_yaml_scalar(node, path, why, sizeof why);
	if (!text)
		node_error(st, node, "%s", why);
	return text;
}

static bool read_int(struct parse_state *st, const yaml_node_t *node, const char *path, double lo, double hi, int *out)
{
	const char *text = scalar_text(st, node, path);
	if (!text)
		return false;
	const char *p = text;
	if (*p == '-' || *p == '+')
		p++;
	if (!isdigit((unsigned char)*p)) {
		node_error(st, node, "'%s' must be an integer, not '%s'", path, text);
		return false;
	}
	for (const char *q = p; *q; q++) {
		if (!isdigit((unsigned char)*q)) {
			node_error(st, node, "'%s' must be an integer, not '%s'", path, text);
			return false;
		}
	}
	errno = 0;
	long v = strtol(text, NULL, 10);
	if (errno == ERANGE || v < (long)lo || v > (long)hi) {
		node_error(st, node, "'%s' is %s, outside %.0f..%.0f", path, text, lo, hi);
		return false;
	}
	*out = (int)v;
	return true;
}

static void format_range_value(double v, enum ridge_unit unit, char *buf, size_t len)
{
	snprintf(buf, len, "%g%s%s", v, *ridge_unit_symbol(unit) ? " " : "", ridge_unit_symbol(unit));
}

static bool read_qty(struct parse_state *st, const yaml_node_t *node, const char *path, enum ridge_unit unit, double lo,
		     double hi, double *out)
{
	const char *text = scalar_text(st, node, path);
	if (!text)
		return false;
	char err[200];
	double v;
	if (ridge_quantity_parse(text, unit, &v, err, sizeof err) != 0) {
		node_error(st, node, "'%s': %s", path, err);
		return false;
	}
	/* A quantity with a unit kind must say its unit: a bare number is ambiguous. */
	if (unit != RIDGE_UNIT_COUNT) {
		const char *end = text + strlen(text);
		while (end > text && isspace((unsigned char)end[-1]))
			end--;
		if (end > text && (isdigit((unsigned char)end[-1]) || end[-1] == '.')) {
			node_error(st, node, "'%s': '%s' has no unit (expected %s)", path, text,
				   ridge_unit_symbol(unit));
			return false;
		}
	}
	if (v < lo || v > hi) {
		char a[48], b[48];
		format_range_value(lo, unit, a, sizeof a);
		format_range_value(hi, unit, b, sizeof b);
		node_error(st, node, "'%s' is %s, outside %s..%s", path, text, a, b);
		return false;
	}
	*out = v;
	return true;
}

/* What YAML does not print as itself: C0 controls, DEL, C1 controls (NEL,
 * U+0085, is a line break), U+2028/U+2029 (line and paragraph separators),
 * U+FEFF, U+FFFE, U+FFFF. Such a character can only arrive through an escape
 * ("\N", "\x7f") and would not survive being written back into a calibration
 * (hwdb/write.c quotes strings but escapes only \ and "); no name or source
 * needs one. text is valid UTF-8 (libyaml checks). */
static bool has_control_character(const char *text)
{
	for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
		if (*c < 0x20 || *c == 0x7f)
			return true;
		if (c[0] == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f)
			return true;
		if (c[0] == 0xe2 && c[1] == 0x80 && (c[2] == 0xa8 || c[2] == 0xa9))
			return true;
		if (c[0] == 0xef &&
		    ((c[1] == 0xbb && c[2] == 0xbf) || (c[1] == 0xbf && (c[2] == 0xbe || c[2] == 0xbf))))
			return true;
	}
	return false;
}

static bool read_str(struct parse_state *st, const yaml_node_t *node, const char *path, char *dst, size_t size)
{
	const char *text = scalar_text(st, node, path);
	if (!text)
		return false;
	size_t n = strlen(text);
	if (n == 0) {
		node_error(st, node, "'%s' is empty", path);
		return false;
	}
	if (n >= size) {
		node_error(st, node, "'%s' is too long (%zu characters, at most %zu)", path, n, size - 1);
		return false;
	}
	if (has_control_character(text)) {
		node_error(st, node, "'%s' contains a control character", path);
		return false;
	}
	memcpy(dst, text, n + 1);
	return true;
}

/* ---- structured readers ---- */

static void walk_map(struct parse_state *st, const yaml_node_t *map, const struct hwdb_field *fields,
		     const char *prefix);

static void read_peaks(struct parse_state *st, const yaml_node_t *node, const struct hwdb_field *f)
{
	if (node->type != YAML_MAPPING_NODE) {
		node_error(st, node, "'peak_flops' must be a mapping of dtype to rates, not %s",
			   hwdb_yaml_type_name(node));
		return;
	}
	bool seen[RIDGE_DTYPE_COUNT] = { false };
	int found = 0;
	for (yaml_node_pair_t *pair = node->data.mapping.pairs.start; pair < node->data.mapping.pairs.top; pair++) {
		yaml_node_t *key = yaml_document_get_node(st->doc, pair->key);
		yaml_node_t *value = yaml_document_get_node(st->doc, pair->value);
		const char *name = scalar_text(st, key, "peak_flops key");
		if (!name)
			continue;
		enum ridge_dtype dtype;
		if (!ridge_dtype_parse(name, &dtype)) {
			node_error(st, key, "unknown dtype 'peak_flops.%s' (known: %s)", name, ridge_dtype_list());
			continue;
		}
		if (seen[dtype]) {
			node_error(st, key, "duplicate key 'peak_flops.%s'", name);
			continue;
		}
		seen[dtype] = true;
		if (value->type != YAML_MAPPING_NODE) {
			node_error(st, value,
				   "'peak_flops.%s' must be a mapping {vector, matrix, matrix_sparse}, not %s", name,
				   hwdb_yaml_type_name(value));
			continue;
		}
		struct ridge_peak *peak = &st->gpu->peak[dtype];
		static const char *const kinds[] = { "vector", "matrix", "matrix_sparse" };
		bool kind_seen[3] = { false };
		for (yaml_node_pair_t *kp = value->data.mapping.pairs.start; kp < value->data.mapping.pairs.top; kp++) {
			yaml_node_t *k = yaml_document_get_node(st->doc, kp->key);
			yaml_node_t *v = yaml_document_get_node(st->doc, kp->value);
			const char *kind = scalar_text(st, k, "peak_flops rate");
			if (!kind)
				continue;
			int which = -1;
			for (int i = 0; i < 3; i++)
				if (strcmp(kind, kinds[i]) == 0)
					which = i;
			char path[96];
			snprintf(path, sizeof path, "peak_flops.%s.%s", name, kind);
			if (which < 0) {
				node_error(st, k, "unknown key '%s' (known: vector, matrix, matrix_sparse)", path);
				continue;
			}
			if (kind_seen[which]) {
				node_error(st, k, "duplicate key '%s'", path);
				continue;
			}
			kind_seen[which] = true;
			double rate;
			if (!read_qty(st, v, path, f->unit, f->min, f->max, &rate))
				continue;
			size_t offset = G(peak) + (size_t)dtype * sizeof(struct ridge_peak);
			if (which == 0) {
				peak->vector = rate;
				peak->has_vector = true;
				offset += offsetof(struct ridge_peak, vector);
			} else if (which == 1) {
				peak->matrix = rate;
				peak->has_matrix = true;
				offset += offsetof(struct ridge_peak, matrix);
			} else {
				peak->matrix_sparse = rate;
				peak->has_matrix_sparse = true;
				offset += offsetof(struct ridge_peak, matrix_sparse);
			}
			remember(st, offset, v);
		}
		if (!kind_seen[0] && !kind_seen[1] && !kind_seen[2])
			node_error(st, value, "'peak_flops.%s' lists no rate", name);
		found++;
	}
	if (found == 0)
		node_error(st, node, "'peak_flops' lists no dtype");
}

static void read_list(struct parse_state *st, const yaml_node_t *node, const struct hwdb_field *f, const char *path)
{
	if (node->type != YAML_SEQUENCE_NODE) {
		node_error(st, node, "'%s' must be a list, not %s", path, hwdb_yaml_type_name(node));
		return;
	}
	int *count = (int *)((char *)st->gpu + f->count_offset);
	*count = 0;
	int n = (int)(node->data.sequence.items.top - node->data.sequence.items.start);
	if (n > f->max_items) {
		node_error(st, node, "'%s' has %d items, at most %d", path, n, f->max_items);
		return;
	}
	for (yaml_node_item_t *item = node->data.sequence.items.start; item < node->data.sequence.items.top; item++) {
		yaml_node_t *v = yaml_document_get_node(st->doc, *item);
		char item_path[160];
		snprintf(item_path, sizeof item_path, "%s[%d]", path, *count);
		if (f->type == HWDB_STRLIST) {
			char *dst = (char *)st->gpu + f->offset + (size_t)*count * f->size;
			if (read_str(st, v, item_path, dst, f->size))
				(*count)++;
		} else {
			double *dst = (double *)((char *)st->gpu + f->offset) + *count;
			if (read_qty(st, v, item_path, f->unit, f->min, f->max, dst))
				(*count)++;
		}
	}
}

static void read_field(struct parse_state *st, const yaml_node_t *value, const struct hwdb_field *f, const char *path)
{
	char *base = (char *)st->gpu;
	switch (f->type) {
	case HWDB_STR:
		read_str(st, value, path, base + f->offset, f->size);
		break;
	case HWDB_INT:
		read_int(st, value, path, f->min, f->max, (int *)(base + f->offset));
		break;
	case HWDB_QTY:
		if (read_qty(st, value, path, f->unit, f->min, f->max, (double *)(base + f->offset)) &&
		    f->has_offset != NO_OFFSET)
			*(bool *)(base + f->has_offset) = true;
		break;
	case HWDB_STRLIST:
	case HWDB_QTYLIST:
		read_list(st, value, f, path);
		break;
	case HWDB_MAP:
		if (value->type != YAML_MAPPING_NODE) {
			node_error(st, value, "'%s' must be a mapping, not %s", path, hwdb_yaml_type_name(value));
			return;
		}
		walk_map(st, value, f->children, path);
		break;
	case HWDB_PEAKS:
		read_peaks(st, value, f);
		break;
	case HWDB_CC: {
		const char *text = scalar_text(st, value, path);
		int major, minor;
		char tail;
		if (!text)
			return;
		if (sscanf(text, "%d.%d%c", &major, &minor, &tail) != 2 || major < 1 || major > 99 || minor < 0 ||
		    minor > 9) {
			node_error(st, value, "'%s' must look like \"9.0\", not '%s'", path, text);
			return;
		}
		st->gpu->cc_major = major;
		st->gpu->cc_minor = minor;
		break;
	}
	case HWDB_BOOL: {
		const char *text = scalar_text(st, value, path);
		if (!text)
			return;
		if (strcmp(text, "true") == 0)
			*(bool *)(base + f->offset) = true;
		else if (strcmp(text, "false") == 0)
			*(bool *)(base + f->offset) = false;
		else
			node_error(st, value, "'%s' must be true or false, not '%s'", path, text);
		break;
	}
	case HWDB_VENDOR: {
		const char *text = scalar_text(st, value, path);
		if (!text)
			return;
		if (strcmp(text, "nvidia") == 0)
			st->gpu->vendor = RIDGE_VENDOR_NVIDIA;
		else if (strcmp(text, "amd") == 0)
			st->gpu->vendor = RIDGE_VENDOR_AMD;
		else
			node_error(st, value, "'vendor' must be 'nvidia' or 'amd', not '%s'", text);
		break;
	}
	case HWDB_SCHEMA: {
		int version;
		if (read_int(st, value, path, 1, 1000, &version) && version != 1)
			node_error(st, value, "unsupported schema version %d (this ridge reads schema 1)", version);
		break;
	}
	case HWDB_MEASURED:
		if (value->type != YAML_MAPPING_NODE) {
			node_error(st, value, "'measured' must be a mapping {on: ...}, not %s",
				   hwdb_yaml_type_name(value));
			return;
		}
		for (yaml_node_pair_t *p = value->data.mapping.pairs.start; p < value->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(st->doc, p->key);
			yaml_node_t *v = yaml_document_get_node(st->doc, p->value);
			const char *key = scalar_text(st, k, "measured key");
			if (!key)
				continue;
			if (strcmp(key, "on") != 0) {
				node_error(st, k, "unknown key 'measured.%s' (known: on)", key);
				continue;
			}
			if (read_str(st, v, "measured.on", st->gpu->measured_on, sizeof st->gpu->measured_on))
				st->gpu->measured = true;
		}
		break;
	}
}

static void list_keys(const struct hwdb_field *fields, unsigned vendor_bit, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (const struct hwdb_field *f = fields; f->key; f++) {
		if (!(f->allowed & vendor_bit))
			continue;
		int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", f->key);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
}

static void walk_map(struct parse_state *st, const yaml_node_t *map, const struct hwdb_field *fields,
		     const char *prefix)
{
	const yaml_node_t *seen_at[64] = { NULL };
	for (yaml_node_pair_t *pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *key = yaml_document_get_node(st->doc, pair->key);
		yaml_node_t *value = yaml_document_get_node(st->doc, pair->value);
		const char *name = scalar_text(st, key, prefix[0] ? prefix : "key");
		if (!name)
			continue;
		char path[96];
		snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "", name);
		int index = -1;
		for (int i = 0; fields[i].key; i++)
			if (strcmp(fields[i].key, name) == 0)
				index = i;
		if (index < 0) {
			char known[512];
			list_keys(fields, st->vendor_bit, known, sizeof known);
			node_error(st, key, "unknown key '%s' (known: %s)", path, known);
			continue;
		}
		const struct hwdb_field *f = &fields[index];
		if (seen_at[index]) {
			node_error(st, key, "duplicate key '%s' (first at line %d)", path,
				   (int)seen_at[index]->start_mark.line + 1);
			continue;
		}
		seen_at[index] = key;
		if (!(f->allowed & st->vendor_bit)) {
			node_error(st, key, "key '%s' does not apply to %s entries", path,
				   st->vendor_bit == V_AMD ? "amd" : "nvidia");
			continue;
		}
		if (f->offset != NO_OFFSET)
			remember(st, f->offset, value);
		read_field(st, value, f, path);
	}
	for (int i = 0; fields[i].key; i++) {
		if ((fields[i].required & st->vendor_bit) && !seen_at[i]) {
			char path[96];
			snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "", fields[i].key);
			node_error(st, map, "missing required key '%s'", path);
		}
	}
}

/* ---- cross-field plausibility ---- */

static bool id_valid(const char *id)
{
	if (!islower((unsigned char)id[0]) && !isdigit((unsigned char)id[0]))
		return false;
	for (const char *c = id; *c; c++)
		if (!islower((unsigned char)*c) && !isdigit((unsigned char)*c) && *c != '-')
			return false;
	return true;
}

/* The per-compute-capability constants against cuda_occupancy.h's table
 * (hwdb/arch.c): a wrong one makes every occupancy answer for the entry wrong. */
static void check_cc_constants(struct parse_state *st)
{
	const struct ridge_gpu *g = st->gpu;
	struct hwdb_cc_occupancy cc;
	if (g->vendor != RIDGE_VENDOR_NVIDIA || !g->cc_major)
		return;
	if (!hwdb_cc_occupancy(g->cc_major, g->cc_minor, &cc)) {
		check_error(st, G(cc_major),
			    "compute capability %d.%d is not in cuda_occupancy.h's table (7.0 to 12.1)", g->cc_major,
			    g->cc_minor);
		return;
	}
	const struct {
		int have, want;
		size_t offset;
		const char *key, *header;
	} ints[] = {
		{ g->max_blocks_per_sm, cc.blocks_per_sm, G(max_blocks_per_sm), "limits.blocks_per_sm",
		  "cudaOccMaxBlocksPerMultiprocessor" },
		{ g->nv.barriers_per_block_slot, cc.barriers_per_block_slot, G(nv.barriers_per_block_slot),
		  "limits.barriers_per_block_slot", "cudaOccMaxBlocksPerSMBlockBarrierLimit (from 9.0)" },
		{ (int)g->nv.smem_alloc_unit, cc.smem_alloc_unit, G(nv.smem_alloc_unit), "shared_memory.alloc_unit",
		  "cudaOccSMemAllocationGranularity" },
		{ g->nv.reg_alloc_unit, cc.reg_alloc_unit, G(nv.reg_alloc_unit), "registers.alloc_unit",
		  "cudaOccRegAllocationGranularity" },
		{ g->nv.sub_partitions, cc.sub_partitions, G(nv.sub_partitions), "limits.sub_partitions",
		  "cudaOccSubPartitionsPerMultiprocessor" },
		{ g->nv.virtual_resources_per_sm, cc.virtual_resources_per_sm, G(nv.virtual_resources_per_sm),
		  "limits.virtual_resources_per_sm", "cudaOccMaxVirtualResourceCountPerSM" },
		{ (int)g->nv.smem_reserved_per_block, cc.smem_reserved_per_block, G(nv.smem_reserved_per_block),
		  "shared_memory.reserved_per_block", "reservedSharedMemPerBlock, 1 KiB from 8.0" },
	};
	for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
		if (ints[i].have != ints[i].want)
			check_error(st, ints[i].offset, "%s is %d; compute capability %d.%d has %d (%s)", ints[i].key,
				    ints[i].have, g->cc_major, g->cc_minor, ints[i].want, ints[i].header);
	bool same = g->nv.carveout_count == cc.carveout_count;
	for (int i = 0; same && i < cc.carveout_count; i++)
		same = g->nv.carveout_sizes[i] == cc.carveout_kib[i] * 1024.0;
	if (!same) {
		char want[128] = "";
		size_t used = 0;
		for (int i = 0; i < cc.carveout_count && used < sizeof want; i++)
			used += (size_t)snprintf(want + used, sizeof want - used, "%s%d", i ? ", " : "",
						 cc.carveout_kib[i]);
		check_error(st, G(nv.carveout_sizes),
			    "shared_memory.carveout_sizes differ from compute capability %d.%d's legal sizes [%s] KiB "
			    "(cudaOccAlignUpShmemSizeVoltaPlus)",
			    g->cc_major, g->cc_minor, want);
	}
}

/* Each peak against SMs x clock x the architecture's FLOP per clock per SM
 * (hwdb/arch.c): a datasheet number off by a factor (fp32 at 669 TFLOP/s on
 * an H100) cannot pass. The clock is the entry's matrix or vector peak clock
 * (NVIDIA quotes FP64 tensor rates at the boost clock, bf16 at a lower one). */
static void check_peaks(struct parse_state *st)
{
	const struct ridge_gpu *g = st->gpu;
	int count;
	const char *source;
	const struct hwdb_peak_rate *rates = hwdb_peak_rates(g, &count, &source);
	if (!rates || g->measured || g->sm_count <= 0)
		return; /* calibrations are measurements, not arithmetic */
	const double clocks[2] = { g->matrix_clock_hz, g->vector_clock_hz };
	for (int i = 0; i < count; i++) {
		const struct hwdb_peak_rate *r = &rates[i];
		const struct ridge_peak *p = &g->peak[r->dtype];
		if (!(r->matrix ? p->has_matrix : p->has_vector))
			continue;
		double value = r->matrix ? p->matrix : p->vector;
		bool ok = false;
		double nearest = 0;
		for (int k = 0; k < 3 && r->per_clock[k]; k++) {
			for (int c = 0; c < 2; c++) {
				double expect = (double)g->sm_count * clocks[c] * r->per_clock[k];
				if (!(expect > 0))
					continue;
				if (fabs(value / expect - 1) <= HWDB_PEAK_TOLERANCE)
					ok = true;
				if (nearest == 0 || fabs(value - expect) < fabs(value - nearest))
					nearest = expect;
			}
		}
		if (!ok) {
			size_t base = G(peak) + (size_t)r->dtype * sizeof(struct ridge_peak);
			check_error(
				st,
				base + (r->matrix ? offsetof(struct ridge_peak, matrix)
						  : offsetof(struct ridge_peak, vector)),
				"peak_flops.%s.%s %.6g TFLOP/s is not %d SMs x clock x the architecture's %d FLOP/clk "
				"per SM (nearest %.6g TFLOP/s; %s; tolerance %.0f%%)",
				ridge_dtype_name(r->dtype), r->matrix ? "matrix" : "vector", value / 1e12, g->sm_count,
				r->per_clock[0], nearest / 1e12, source, HWDB_PEAK_TOLERANCE * 100);
		}
	}
}

/* The fabric keys go together: the communication model needs all of them,
 * and half a fabric would be priced from guesses. */
static void check_interconnect(struct parse_state *st)
{
	struct ridge_gpu *g = st->gpu;
	struct ridge_interconnect *ic = &g->ic;
	const struct {
		bool present;
		const char *key;
	} fabric[] = {
		{ ic->topology_name[0] != '\0', "topology" },
		{ ic->per_direction > 0, "per_direction" },
		{ ic->peer_bandwidth > 0, "peer_bandwidth" },
		{ ic->domain_gpus > 0, "domain_gpus" },
		{ ic->latency > 0, "latency" },
		{ ic->base_latency > 0, "base_latency" },
		{ ic->pcie_bandwidth > 0, "pcie_bandwidth" },
	};
	size_t n = sizeof fabric / sizeof fabric[0], present = 0;
	for (size_t i = 0; i < n; i++)
		present += fabric[i].present;
	if (present > 0 && present < n) {
		char missing[160] = "";
		for (size_t i = 0; i < n; i++)
			if (!fabric[i].present)
				snprintf(missing + strlen(missing), sizeof missing - strlen(missing), "%s%s",
					 missing[0] ? ", " : "", fabric[i].key);
		check_error(st, G(interconnect), "interconnect: the fabric keys go together; missing %s", missing);
	}
	ic->has_fabric = present == n;
	if (ic->topology_name[0] && !ridge_topology_parse(ic->topology_name, &ic->topology))
		check_error(st, G(ic.topology_name),
			    "interconnect.topology '%s' is not one of switch, mesh, bridge, pcie", ic->topology_name);
	if (ic->has_fabric && ic->peer_bandwidth > ic->per_direction * (1 + 1e-9))
		check_error(st, G(ic.peer_bandwidth),
			    "interconnect.peer_bandwidth is above per_direction (all links together)");
	if (ic->has_fabric && g->interconnect_bandwidth > 0 &&
	    ic->per_direction > g->interconnect_bandwidth * (1 + 1e-9))
		check_error(st, G(ic.per_direction), "interconnect.per_direction is above the bidirectional bandwidth");
	if (ic->nvls && ic->topology != RIDGE_TOPOLOGY_SWITCH)
		check_error(st, G(ic.nvls), "interconnect.nvls needs a switch (NVLink SHARP reduces in the NVSwitch)");
	if (ic->has_nvls_bus_bandwidth && !ic->nvls)
		check_error(st, G(ic.nvls_bus_bandwidth),
			    "interconnect.nvls_bus_bandwidth given, but nvls is not true");
	if ((ic->nics > 0) != ic->has_nic_bandwidth)
		check_error(st, ic->nics > 0 ? G(ic.nics) : G(ic.nic_bandwidth),
			    "interconnect.nics and nic_bandwidth go together (the node's NICs and each one's rate)");
}

/* A provenance a file may give: measured, sourced or transferred (floor and
 * what-if are what ridge says of a prediction, not of a value). */
static bool file_provenance(const char *text)
{
	enum ridge_provenance p;
	return ridge_provenance_parse(text, &p) &&
	       (p == RIDGE_PROVENANCE_MEASURED || p == RIDGE_PROVENANCE_SOURCED || p == RIDGE_PROVENANCE_TRANSFERRED);
}

/* The power limit says how it came, as a timing slot does: a calibration
 * without power.provenance (or recovery_provenance) measured it, any other
 * file must say; the two refill rates go together, with a source, and only
 * beside the fraction they refill. */
static void check_power_provenance(struct parse_state *st)
{
	struct ridge_gpu *g = st->gpu;
	if (g->has_power_recovery != g->has_power_recovery_busy)
		check_error(st, g->has_power_recovery ? G(power_recovery_idle) : G(power_recovery_busy),
			    "power.recovery_idle and power.recovery_busy go together (how fast the burst comes back "
			    "with the GPU idle and with it busy)");
	else if (g->has_power_recovery && !g->has_sustained_matrix)
		check_error(
			st, G(power_recovery_idle),
			"power.recovery_idle needs power.sustained_matrix_fraction and burst_time (what comes back)");
	else if (g->has_power_recovery) {
		if (!g->power_recovery_source[0])
			check_error(st, G(power_recovery_idle),
				    "power.recovery_idle has no power.recovery_source: say where it comes from");
		if (!g->power_recovery_provenance[0] && g->measured)
			snprintf(g->power_recovery_provenance, sizeof g->power_recovery_provenance, "measured");
		else if (!g->power_recovery_provenance[0])
			check_error(st, G(power_recovery_idle),
				    "power.recovery_idle has no power.recovery_provenance: measured, sourced or "
				    "transferred");
		else if (!file_provenance(g->power_recovery_provenance))
			check_error(st, G(power_recovery_idle),
				    "power.recovery_provenance '%s' is not measured, sourced or transferred",
				    g->power_recovery_provenance);
	}
	if (!g->has_sustained_matrix)
		return;
	if (!g->power_provenance[0]) {
		if (g->measured)
			snprintf(g->power_provenance, sizeof g->power_provenance, "measured");
		else
			check_error(st, G(sustained_matrix_fraction),
				    "power.sustained_matrix_fraction has no power.provenance: measured, sourced or "
				    "transferred");
	} else if (!file_provenance(g->power_provenance)) {
		check_error(st, G(power_provenance), "power.provenance '%s' is not measured, sourced or transferred",
			    g->power_provenance);
	}
}

/* Every time-model value says where it came from and how: a slot with an
 * efficiency, a fixed cost or a time per row needs timing.<slot>.source and
 * timing.<slot>.provenance (a calibration ridge-probe wrote before
 * provenance existed holds values measured on its GPU: measured), a
 * cta_bandwidth its cta_bandwidth_source, which also covers a cta_latency (a
 * prediction never uses a value it cannot trace). */
static void check_timing_sources(struct parse_state *st)
{
	static const char *const value_keys[RIDGE_TIMING_VALUES] = { "compute_efficiency", "memory_efficiency",
								     "fixed_cost", "row_time", "cta_bandwidth" };
	struct ridge_gpu *g = st->gpu;
	for (int i = 0; i < RIDGE_TIMING_SLOTS; i++) {
		struct ridge_timing_terms *t = &g->timing[i];
		size_t base = G(timing) + (size_t)i * sizeof(struct ridge_timing_terms);
		const char *key = timing_slot_key(i);
		bool any =
			t->has_compute_efficiency || t->has_memory_efficiency || t->has_fixed_cost || t->has_row_time;
		if (any && !t->source[0]) {
			const char *what = t->has_compute_efficiency  ? "compute_efficiency"
					   : t->has_memory_efficiency ? "memory_efficiency"
					   : t->has_fixed_cost        ? "fixed_cost"
								      : "row_time";
			size_t at = t->has_compute_efficiency  ? offsetof(struct ridge_timing_terms, compute_efficiency)
				    : t->has_memory_efficiency ? offsetof(struct ridge_timing_terms, memory_efficiency)
				    : t->has_fixed_cost        ? offsetof(struct ridge_timing_terms, fixed_cost_s)
							       : offsetof(struct ridge_timing_terms, row_time_s);
			check_error(st, base + at, "timing.%s has %s but no timing.%s.source: say where it comes from",
				    key, what, key);
		}
		if (t->has_cta_bandwidth && !t->value[RIDGE_TIMING_CTA].source[0])
			check_error(st, base + offsetof(struct ridge_timing_terms, cta_bandwidth),
				    "timing.%s.cta_bandwidth has no timing.%s.cta_bandwidth_source", key, key);
		if ((any || t->has_cta_bandwidth) && !t->provenance[0]) {
			if (g->measured)
				snprintf(t->provenance, sizeof t->provenance, "measured");
			else
				check_error(st, base + offsetof(struct ridge_timing_terms, source),
					    "timing.%s has values but no timing.%s.provenance: measured, sourced or "
					    "transferred",
					    key, key);
		}
		if (t->provenance[0] && !file_provenance(t->provenance))
			check_error(st, base + offsetof(struct ridge_timing_terms, provenance),
				    "timing.%s.provenance '%s' is not measured, sourced or transferred", key,
				    t->provenance);
		for (int v = 0; v < RIDGE_TIMING_VALUES; v++) {
			const struct ridge_timing_origin *o = &t->value[v];
			size_t at = base + offsetof(struct ridge_timing_terms, value) +
				    (size_t)v * sizeof(struct ridge_timing_origin);
			if (o->provenance[0] && !file_provenance(o->provenance))
				check_error(st, at + offsetof(struct ridge_timing_origin, provenance),
					    "timing.%s.%s_provenance '%s' is not measured, sourced or transferred", key,
					    value_keys[v], o->provenance);
		}
		/* a CTA's latency is half of its stream term: alone it prices nothing */
		if (t->has_cta_latency && !t->has_cta_bandwidth)
			check_error(st, base + offsetof(struct ridge_timing_terms, cta_latency_s),
				    "timing.%s.cta_latency needs timing.%s.cta_bandwidth (and its source)", key, key);
	}
}

static void check_entry(struct parse_state *st)
{
	const struct ridge_gpu *g = st->gpu;
	if (g->id[0] && !id_valid(g->id))
		check_error(st, G(id), "id '%s' must be lowercase letters, digits and '-'", g->id);
	int expected_warp = g->vendor == RIDGE_VENDOR_AMD ? 64 : 32;
	if (g->warp_size && g->warp_size != expected_warp)
		check_error(st, G(warp_size), "warp_size %d is not %d, the %s warp/wavefront width", g->warp_size,
			    expected_warp, g->vendor == RIDGE_VENDOR_AMD ? "CDNA" : "NVIDIA");
	if (g->max_warps_per_sm && g->warp_size && g->max_threads_per_sm != g->max_warps_per_sm * g->warp_size)
		check_error(st, G(max_threads_per_sm), "limits.threads_per_sm %d is not warps_per_sm %d x warp_size %d",
			    g->max_threads_per_sm, g->max_warps_per_sm, g->warp_size);
	if (g->max_threads_per_block > g->max_threads_per_sm && g->max_threads_per_sm)
		check_error(st, G(max_threads_per_block), "limits.threads_per_block %d exceeds threads_per_sm %d",
			    g->max_threads_per_block, g->max_threads_per_sm);
	if (g->smem_per_block > g->smem_per_block_optin && g->smem_per_block_optin > 0)
		check_error(st, G(smem_per_block), "shared_memory.per_block exceeds per_block_optin");
	if (g->smem_per_block_optin > g->smem_per_sm && g->smem_per_sm > 0)
		check_error(st, G(smem_per_block_optin), "shared_memory.per_block_optin exceeds per_sm");
	if (g->regs_per_block > g->regs_per_sm && g->regs_per_sm)
		check_error(st, G(regs_per_block), "registers.per_block exceeds per_sm");
	if (g->vendor == RIDGE_VENDOR_NVIDIA && g->nv.carveout_count > 0) {
		for (int i = 1; i < g->nv.carveout_count; i++)
			if (g->nv.carveout_sizes[i] <= g->nv.carveout_sizes[i - 1])
				check_error(st, G(nv.carveout_sizes), "shared_memory.carveout_sizes must be ascending");
		if (g->smem_per_sm > 0 && g->nv.carveout_sizes[g->nv.carveout_count - 1] != g->smem_per_sm)
			check_error(st, G(nv.carveout_sizes),
				    "the largest carveout size must equal shared_memory.per_sm");
	}
	/* The mixed-traffic bandwidths are measured kernels; memory.bandwidth is
	 * the ceiling (the best of them in a calibration). */
	const struct {
		bool has;
		double value;
		size_t offset;
		const char *name;
	} mixes[] = {
		{ g->has_read_bandwidth, g->read_bandwidth, G(read_bandwidth), "read_bandwidth" },
		{ g->has_triad_bandwidth, g->triad_bandwidth, G(triad_bandwidth), "triad_bandwidth" },
		{ g->has_copy_bandwidth, g->copy_bandwidth, G(copy_bandwidth), "copy_bandwidth" },
		{ g->has_write_bandwidth, g->write_bandwidth, G(write_bandwidth), "write_bandwidth" },
	};
	for (size_t i = 0; i < sizeof mixes / sizeof mixes[0]; i++)
		if (mixes[i].has && g->memory_bandwidth > 0 && mixes[i].value > g->memory_bandwidth * (1 + 1e-9))
			check_error(st, mixes[i].offset, "memory.%s is above memory.bandwidth, the ceiling",
				    mixes[i].name);
	if (g->l2_bytes > 0 && g->memory_bytes > 0 && g->l2_bytes >= g->memory_bytes)
		check_error(st, G(l2_bytes), "cache.l2 is not smaller than memory.size");
	if (g->has_usable_memory && g->usable_memory_bytes > g->memory_bytes)
		check_error(st, G(usable_memory_bytes),
			    "memory.usable_size is above memory.size (the driver reports less than the card has)");
	if (g->matrix_clock_hz > g->boost_clock_hz * 1.05 && g->boost_clock_hz > 0)
		check_error(st, G(matrix_clock_hz), "clocks.matrix_peak is above the boost clock");
	if (g->vector_clock_hz > g->boost_clock_hz * 1.05 && g->boost_clock_hz > 0)
		check_error(st, G(vector_clock_hz), "clocks.vector_peak is above the boost clock");
	check_interconnect(st);
	check_timing_sources(st);
	check_power_provenance(st);
	for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
		const struct ridge_peak *p = &g->peak[d];
		size_t base = G(peak) + (size_t)d * sizeof(struct ridge_peak);
		if (p->has_matrix_sparse && !p->has_matrix)
			check_error(st, base + offsetof(struct ridge_peak, matrix_sparse),
				    "peak_flops.%s has a sparse rate but no dense matrix rate",
				    ridge_dtype_name((enum ridge_dtype)d));
		if (p->has_matrix_sparse && p->has_matrix && fabs(p->matrix_sparse / p->matrix - 2.0) > 0.03)
			check_error(st, base + offsetof(struct ridge_peak, matrix_sparse),
				    "peak_flops.%s.matrix_sparse is not 2x the dense rate (2:4 sparsity doubles it)",
				    ridge_dtype_name((enum ridge_dtype)d));
		if (p->has_vector && p->has_matrix && p->vector > p->matrix)
			check_error(st, base + offsetof(struct ridge_peak, vector),
				    "peak_flops.%s.vector is above the matrix rate",
				    ridge_dtype_name((enum ridge_dtype)d));
	}
	check_cc_constants(st);
	check_peaks(st);
}

/* ---- entry points ---- */

static void offset_to_position(const char *text, size_t len, size_t offset, int *line, int *column)
{
	*line = 1;
	*column = 1;
	for (size_t i = 0; i < offset && i < len; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*column = 1;
		} else {
			(*column)++;
		}
	}
}

int hwdb_yaml_bounds(const char *text, size_t len, int nesting_limit, long node_limit, int *line, int *column)
{
	yaml_parser_t parser;
	if (!yaml_parser_initialize(&parser))
		return 0; /* the real load reports it */
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	int depth = 0, rc = 0;
	long nodes = 0;
	for (;;) {
		yaml_event_t event;
		if (!yaml_parser_parse(&parser, &event))
			break; /* a syntax error: the real load reports it, with its position */
		yaml_event_type_t type = event.type;
		if (type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT) {
			if (++depth > nesting_limit)
				rc = HWDB_YAML_TOO_DEEP;
		} else if (type == YAML_SEQUENCE_END_EVENT || type == YAML_MAPPING_END_EVENT) {
			depth--;
		}
		if ((type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT ||
		     type == YAML_SCALAR_EVENT || type == YAML_ALIAS_EVENT) &&
		    ++nodes > node_limit && rc == 0)
			rc = HWDB_YAML_TOO_MANY_NODES;
		if (rc != 0) {
			*line = (int)event.start_mark.line + 1;
			*column = (int)event.start_mark.column + 1;
		}
		yaml_event_delete(&event);
		if (rc != 0 || type == YAML_STREAM_END_EVENT)
			break;
	}
	yaml_parser_delete(&parser);
	return rc;
}

int hwdb_yaml_nesting(const char *text, size_t len, int limit, int *line, int *column)
{
	return hwdb_yaml_bounds(text, len, limit, LONG_MAX, line, column) == 0 ? 0 : -1;
}

int hwdb_yaml_expanded(const struct yaml_document_s *doc, long limit, int *line, int *column)
{
	/* Post-order over the graph the aliases make, each node's expanded size
	 * computed once (memo), so that the check costs what the document
	 * holds, not what it expands to. An explicit stack: a chain of aliases
	 * can be far deeper than the text's nesting. */
	long count = (long)(doc->nodes.top - doc->nodes.start);
	if (count == 0)
		return 0;
	long *size = calloc((size_t)count + 1, sizeof *size); /* 0 unseen, -1 on the stack, else the size */
	int *stack = malloc(((size_t)count + 1) * sizeof *stack);
	long *next = malloc(((size_t)count + 1) * sizeof *next); /* the child to visit next */
	int rc = 0;
	if (!size || !stack || !next) {
		rc = HWDB_YAML_TOO_MANY_NODES;
		*line = *column = 1;
		goto done;
	}
	int top = 0;
	stack[top++] = 1; /* the root */
	next[1] = 0;
	size[1] = -1;
	while (top > 0 && rc == 0) {
		int id = stack[top - 1];
		const yaml_node_t *n = doc->nodes.start + (id - 1);
		long children = 0;
		if (n->type == YAML_SEQUENCE_NODE)
			children = (long)(n->data.sequence.items.top - n->data.sequence.items.start);
		else if (n->type == YAML_MAPPING_NODE)
			children = 2 * (long)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
		if (next[id] < children) {
			long k = next[id]++;
			int child;
			if (n->type == YAML_SEQUENCE_NODE)
				child = n->data.sequence.items.start[k];
			else
				child = k % 2 ? n->data.mapping.pairs.start[k / 2].value
					      : n->data.mapping.pairs.start[k / 2].key;
			if (child < 1 || child > count)
				continue;
			if (size[child] == -1) {
				/* An alias inside the node it names: an endless expansion. */
				rc = HWDB_YAML_CYCLE;
				*line = (int)n->start_mark.line + 1;
				*column = (int)n->start_mark.column + 1;
			} else if (size[child] == 0) {
				size[child] = -1;
				next[child] = 0;
				stack[top++] = child;
			}
			continue;
		}
		/* All children done: this node's expanded size, saturating past limit. */
		long total = 1;
		for (long k = 0; k < children && total <= limit; k++) {
			int child = n->type == YAML_SEQUENCE_NODE ? n->data.sequence.items.start[k]
				    : k % 2                       ? n->data.mapping.pairs.start[k / 2].value
								  : n->data.mapping.pairs.start[k / 2].key;
			if (child >= 1 && child <= count)
				total += size[child];
		}
		size[id] = total > limit ? limit + 1 : total;
		if (total > limit) {
			rc = HWDB_YAML_TOO_MANY_NODES;
			*line = (int)n->start_mark.line + 1;
			*column = (int)n->start_mark.column + 1;
		}
		top--;
	}
done:
	free(size);
	free(stack);
	free(next);
	return rc;
}

static void yaml_error(const yaml_parser_t *parser, const char *name, const char *text, size_t len,
		       struct hwdb_diags *diags)
{
	int line, column;
	if (parser->error == YAML_READER_ERROR) {
		offset_to_position(text, len, parser->problem_offset, &line, &column);
	} else {
		line = (int)parser->problem_mark.line + 1;
		column = (int)parser->problem_mark.column + 1;
	}
	diag_add(diags, name, line, column, "invalid YAML: %s%s%s", parser->problem ? parser->problem : "parse error",
		 parser->context ? " " : "", parser->context ? parser->context : "");
}

static void bound_error(struct hwdb_diags *diags, const char *name, int bound, int line, int column)
{
	if (bound == HWDB_YAML_TOO_DEEP)
		diag_add(diags, name, line, column, "nested deeper than %d levels: not a hwdb entry", HWDB_MAX_NESTING);
	else if (bound == HWDB_YAML_CYCLE)
		diag_add(diags, name, line, column, "an alias inside the node it names: an endless expansion");
	else
		diag_add(diags, name, line, column, "more than %ld YAML nodes (aliases expanded): not a hwdb entry",
			 HWDB_MAX_NODES);
}

int hwdb_parse(const char *name, const char *text, size_t len, struct ridge_gpu *out, struct hwdb_diags *diags)
{
	memset(out, 0, sizeof *out);
	if (len == 0) {
		diag_add(diags, name, 1, 1, "empty file: expected a hwdb entry (a YAML mapping)");
		return -1;
	}
	if (memchr(text, '\0', len)) {
		int line, column;
		offset_to_position(text, len, (size_t)((const char *)memchr(text, '\0', len) - text), &line, &column);
		diag_add(diags, name, line, column, "binary data (a NUL byte): not a YAML file");
		return -1;
	}

	int deep_line, deep_column;
	int bound = hwdb_yaml_bounds(text, len, HWDB_MAX_NESTING, HWDB_MAX_NODES, &deep_line, &deep_column);
	if (bound != 0) {
		bound_error(diags, name, bound, deep_line, deep_column);
		return -1;
	}

	yaml_parser_t parser;
	yaml_document_t doc;
	if (!yaml_parser_initialize(&parser)) {
		diag_add(diags, name, 0, 0, "cannot initialize the YAML parser");
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		yaml_error(&parser, name, text, len, diags);
		yaml_parser_delete(&parser);
		return -1;
	}
	bound = hwdb_yaml_expanded(&doc, HWDB_MAX_NODES, &deep_line, &deep_column);
	if (bound != 0) {
		bound_error(diags, name, bound, deep_line, deep_column);
		yaml_document_delete(&doc);
		yaml_parser_delete(&parser);
		return -1;
	}

	int rc = 0;
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (!root) {
		diag_add(diags, name, 1, 1, "empty file: expected a hwdb entry (a YAML mapping)");
		rc = -1;
	} else if (root->type != YAML_MAPPING_NODE) {
		diag_add(diags, name, AT(root), "the top level must be a mapping of keys (id, name, ...), not %s",
			 hwdb_yaml_type_name(root));
		rc = -1;
	} else {
		struct parse_state st = { .name = name, .doc = &doc, .gpu = out, .diags = diags, .vendor_bit = V_NV };
		/* The vendor decides which keys are required: find it first. */
		for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(&doc, p->key);
			yaml_node_t *v = yaml_document_get_node(&doc, p->value);
			if (k->type == YAML_SCALAR_NODE && strcmp((char *)k->data.scalar.value, "vendor") == 0 &&
			    v->type == YAML_SCALAR_NODE && strcmp((char *)v->data.scalar.value, "amd") == 0)
				st.vendor_bit = V_AMD;
		}
		walk_map(&st, root, hwdb_schema, "");
		check_entry(&st);
		if (st.errors)
			rc = -1;
	}
	/* yaml_parser_load stops after the first document: whatever follows a
	 * "---" would be dropped without a word. A file holds one entry. */
	if (root) {
		yaml_document_t next;
		if (!yaml_parser_load(&parser, &next)) {
			yaml_error(&parser, name, text, len, diags);
			rc = -1;
		} else {
			yaml_node_t *extra = yaml_document_get_root_node(&next);
			if (extra) {
				diag_add(diags, name, AT(extra), "a second YAML document: a hwdb file holds one entry");
				rc = -1;
			}
			yaml_document_delete(&next);
		}
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return rc;
}

static char *read_whole_file(const char *path, size_t *len, struct hwdb_diags *diags)
{
	char *text;
	int e;
	const char *type;
	switch (hwdb_read_file(path, READ_MAX_HWDB_BYTES, &text, len, &e, &type)) {
	case HWDB_READ_OK:
		return text;
	case HWDB_READ_OPEN:
		diag_add(diags, path, 0, 0, "cannot open: %s", strerror(e));
		break;
	case HWDB_READ_IO:
		diag_add(diags, path, 0, 0, "cannot read: %s", strerror(e));
		break;
	case HWDB_READ_NOT_REGULAR:
		diag_add(diags, path, 0, 0, "cannot read: %s, not a regular file", type);
		break;
	case HWDB_READ_TOO_BIG:
		diag_add(diags, path, 0, 0, "file is larger than %u bytes: not a hwdb entry", READ_MAX_HWDB_BYTES);
		break;
	case HWDB_READ_NOMEM:
		diag_add(diags, path, 0, 0, "out of memory");
		break;
	}
	return NULL;
}

int hwdb_load_file(const char *path, struct ridge_gpu *out, struct hwdb_diags *diags)
{
	size_t len = 0;
	char *text = read_whole_file(path, &len, diags);
	if (!text) {
		memset(out, 0, sizeof *out);
		return -1;
	}
	int rc = hwdb_parse(path, text, len, out, diags);
	free(text);
	return rc;
}
