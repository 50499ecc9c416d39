#include "schema_fill.h"

#include <stdio.h>
#include <string.h>

#include "test_util.h"

static void fill_rows(struct ridge_gpu *g, const struct hwdb_field *rows, int *serial)
{
	for (const struct hwdb_field *row = rows; row->key; row++) {
		if (!(row->allowed & hwdb_vendor_bit(g)))
			continue;
		char *member = row->offset == HWDB_NO_OFFSET ? NULL : (char *)g + row->offset;
		double third = row->min + (row->max - row->min) / 3;
		++*serial;
		if (row->gate_offset != HWDB_NO_OFFSET)
			*(bool *)((char *)g + row->gate_offset) = true;
		if (row->has_offset != HWDB_NO_OFFSET)
			*(bool *)((char *)g + row->has_offset) = true;
		switch (row->type) {
		case HWDB_STR:
			snprintf(member, row->size, "%s-%d", row->key, *serial);
			break;
		case HWDB_INT:
			*(int *)member = (int)third;
			break;
		case HWDB_QTY:
			*(double *)member = third;
			break;
		case HWDB_BOOL:
			*(bool *)member = true;
			break;
		case HWDB_STRLIST:
		case HWDB_QTYLIST:
			*(int *)((char *)g + row->count_offset) = 2;
			for (int i = 0; i < 2; i++) {
				if (row->type == HWDB_STRLIST)
					snprintf(member + (size_t)i * row->size, row->size, "%s-%d-%d", row->key,
						 *serial, i);
				else
					((double *)member)[i] = row->min + (row->max - row->min) * (i + 1) / 3;
			}
			break;
		case HWDB_MAP:
			fill_rows(g, row->children, serial);
			break;
		case HWDB_MEASURED:
			g->measured = true;
			snprintf(g->measured_on, sizeof g->measured_on, "measured-%d", *serial);
			break;
		case HWDB_PEAKS:
		case HWDB_CC:
		case HWDB_VENDOR:
		case HWDB_SCHEMA:
			break;
		}
	}
}

void test_fill_every_field(const char *id, struct ridge_gpu *gpu)
{
	*gpu = *test_gpu(id);
	int serial = 0;
	fill_rows(gpu, hwdb_schema, &serial);
}
