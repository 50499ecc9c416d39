/* Writes a struct ridge_gpu back as a hwdb entry (ridge-probe's calibrations,
 * ridge calibrate --out), walking the schema table (schema.c): one line a
 * row, in the table's order, nested maps indented two spaces a level.
 * Written with stdio rather than libyaml's emitter: the layout is fixed, every
 * string is re-validated by the loader (no control characters), and the only
 * escaping YAML's double-quoted style needs for such strings is \ and ". */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "hwdb.h"
#include "schema.h"

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* %.17g round-trips a double exactly: a calibration re-read equals what was written. */
#define NUM "%.17g"

static void put_quantity(FILE *f, double value, enum ridge_unit unit)
{
	const char *symbol = ridge_unit_symbol(unit);
	fprintf(f, NUM "%s%s", value, symbol[0] ? " " : "", symbol);
}

/* peak_flops is the one map the table does not spell out row by row: its
 * keys are the dtypes (model/units.h) and each holds up to three rates, on
 * one line ("bf16: {vector: ..., matrix: ...}"); int8 counts OP/s. */
static void put_peaks(FILE *f, const struct ridge_gpu *g)
{
	fprintf(f, "peak_flops:\n");
	for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
		const struct ridge_peak *p = &g->peak[d];
		if (!p->has_vector && !p->has_matrix && !p->has_matrix_sparse)
			continue;
		const char *unit = d == RIDGE_INT8 ? "OP/s" : "FLOP/s";
		fprintf(f, "  %s: {", ridge_dtype_name((enum ridge_dtype)d));
		const char *sep = "";
		if (p->has_vector) {
			fprintf(f, "%svector: " NUM " %s", sep, p->vector, unit);
			sep = ", ";
		}
		if (p->has_matrix) {
			fprintf(f, "%smatrix: " NUM " %s", sep, p->matrix, unit);
			sep = ", ";
		}
		if (p->has_matrix_sparse)
			fprintf(f, "%smatrix_sparse: " NUM " %s", sep, p->matrix_sparse, unit);
		fprintf(f, "}\n");
	}
}

static void put_rows(FILE *f, const struct ridge_gpu *g, const struct hwdb_field *rows, int indent);

static void put_row(FILE *f, const struct ridge_gpu *g, const struct hwdb_field *row, int indent)
{
	if (!hwdb_field_present(g, row))
		return;
	if (row->type == HWDB_PEAKS) {
		put_peaks(f, g);
		return;
	}
	fprintf(f, "%*s%s:", indent, "", row->key);
	switch (row->type) {
	case HWDB_STR:
		fputc(' ', f);
		put_string(f, hwdb_field_string(g, row));
		break;
	case HWDB_INT:
		fprintf(f, " %d", hwdb_field_int(g, row));
		break;
	case HWDB_QTY:
		fputc(' ', f);
		put_quantity(f, hwdb_field_double(g, row), row->unit);
		break;
	case HWDB_BOOL:
		fprintf(f, " %s", *(const bool *)hwdb_field_member(g, row->offset) ? "true" : "false");
		break;
	case HWDB_VENDOR:
		fprintf(f, " %s", g->vendor == RIDGE_VENDOR_AMD ? "amd" : "nvidia");
		break;
	case HWDB_CC:
		fprintf(f, " \"%d.%d\"", g->cc_major, g->cc_minor);
		break;
	case HWDB_SCHEMA:
		fprintf(f, " 1");
		break;
	case HWDB_STRLIST:
	case HWDB_QTYLIST: {
		int count = hwdb_field_count(g, row);
		bool block = (row->flags & HWDB_BLOCK_LIST) != 0;
		if (!block)
			fprintf(f, " [");
		for (int i = 0; i < count; i++) {
			if (block)
				fprintf(f, "\n%*s- ", indent + 2, "");
			else if (i)
				fprintf(f, ", ");
			if (row->type == HWDB_STRLIST)
				put_string(f, hwdb_field_item(g, row, i));
			else
				put_quantity(f, ((const double *)hwdb_field_member(g, row->offset))[i], row->unit);
		}
		if (!block)
			fputc(']', f);
		break;
	}
	case HWDB_MAP:
		fputc('\n', f);
		put_rows(f, g, row->children, indent + 2);
		return;
	case HWDB_MEASURED:
		fprintf(f, "\n%*son: ", indent + 2, "");
		put_string(f, g->measured_on);
		break;
	case HWDB_PEAKS:
		break;
	}
	fputc('\n', f);
}

static void put_rows(FILE *f, const struct ridge_gpu *g, const struct hwdb_field *rows, int indent)
{
	for (const struct hwdb_field *row = rows; row->key; row++) {
		if ((row->flags & HWDB_WRITE_AFTER_NEXT) && row[1].key) {
			put_row(f, g, row + 1, indent);
			put_row(f, g, row, indent);
			row++;
			continue;
		}
		put_row(f, g, row, indent);
	}
}

int hwdb_format(const struct ridge_gpu *gpu, char **text, size_t *len)
{
	*text = NULL;
	*len = 0;
	FILE *f = open_memstream(text, len);
	if (!f)
		return -1;
	fprintf(f, "# hwdb entry written by ridge%s\n",
		gpu->measured ? "-probe (a calibration: measured ceilings)" : "");
	put_rows(f, gpu, hwdb_schema, 0);
	int failed = ferror(f) != 0;
	failed |= fclose(f) != 0;
	if (failed) {
		free(*text);
		*text = NULL;
		*len = 0;
		return -1;
	}
	return 0;
}

int hwdb_write_file(const char *path, const struct ridge_gpu *gpu, char *err, size_t err_len)
{
	char *text = NULL;
	size_t len = 0;
	if (hwdb_format(gpu, &text, &len) != 0) {
		snprintf(err, err_len, "cannot write '%s': out of memory", path);
		return -1;
	}
	int rc = atomic_file_write(path, text, len, err, err_len);
	free(text);
	return rc;
}
