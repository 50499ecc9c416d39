/* The hwdb schema: one table of fields (hwdb/schema.c) that drives the
 * loader (hwdb.c), the YAML writer (write.c), the JSON of `ridge hw show`
 * (app/view/gpu_json.c). A row says where a value lives in a YAML entry (its
 * key, nested under its parent's) and in struct ridge_gpu (offset, type,
 * unit), what may be read (range, required/allowed per vendor), when it is
 * written (present, gate, flags) and its JSON key.
 * Adding a field is adding a row: every front end and the tests pick it up
 * (hwdb/README.md, "Adding a field"). Not installed with libridge. */
#ifndef RIDGE_HWDB_SCHEMA_H
#define RIDGE_HWDB_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include "gpu.h"
#include "units.h"

/* Vendor bits of required/allowed. */
#define HWDB_NV 1u
#define HWDB_AMD 2u
#define HWDB_ALL (HWDB_NV | HWDB_AMD)
#define HWDB_NO_OFFSET ((size_t)-1)

enum hwdb_field_type {
	HWDB_STR,     /* char[size] */
	HWDB_INT,     /* int, min..max */
	HWDB_QTY,     /* double with unit, min..max; optional has_ bool */
	HWDB_STRLIST, /* char[max][size] with an int count */
	HWDB_QTYLIST, /* double[max] with an int count */
	HWDB_MAP,     /* nested fields */
	HWDB_PEAKS,   /* dtype -> {vector, matrix, matrix_sparse} */
	HWDB_CC,      /* "9.0" -> cc_major, cc_minor */
	HWDB_VENDOR,  /* nvidia | amd */
	HWDB_BOOL,    /* true | false */
	HWDB_SCHEMA,  /* must be 1 */
	HWDB_MEASURED /* {on: "..."}: marks a calibration */
};

/* flags */
enum {
	/* An int that is written and shown only when not 0 (interconnect.links:
	 * NVLink counts them, a PCIe card has none). */
	HWDB_OMIT_ZERO = 1u << 0,
	/* Written after the row that follows it (memory.usable_size after
	 * bandwidth): every calibration written so far has it there, and the
	 * JSON wants the table's order. */
	HWDB_WRITE_AFTER_NEXT = 1u << 1,
	/* A list written one item a line ("- ..."), not inline ([a, b]). */
	HWDB_BLOCK_LIST = 1u << 2,
	/* A map whose rows go into the enclosing JSON object with their own
	 * keys ("memory" -> "memory_bytes", "memory_bandwidth"). */
	HWDB_JSON_FLAT = 1u << 3,
	/* What names the GPU (id .. aliases): the JSON opens with these, then
	 * the entry's origin and whether it was measured. */
	HWDB_IDENTITY = 1u << 4,
};

struct hwdb_field {
	const char *key; /* YAML key; its path is the keys of the maps above it */
	enum hwdb_field_type type;
	enum ridge_unit unit;
	double min, max;
	unsigned required; /* vendors for which it must be present */
	unsigned allowed;  /* vendors for which it may be present */
	size_t offset;     /* in struct ridge_gpu, or HWDB_NO_OFFSET */
	size_t has_offset; /* bool set when present, or HWDB_NO_OFFSET */
	size_t count_offset;
	size_t size; /* string capacity */
	int max_items;
	const struct hwdb_field *children;
	/* Written and shown only when this bool is true (ic.has_fabric: the
	 * fabric keys go together), or HWDB_NO_OFFSET. */
	size_t gate_offset;
	unsigned flags;
	/* The key in hw show's JSON (SI units, so seconds say "_s"); for a map,
	 * its object's key unless HWDB_JSON_FLAT. NULL: not in the JSON (schema,
	 * the file format's version, is no property of the GPU). */
	const char *json_key;
};

/* The rows of an entry's top level, ending with a row whose key is NULL. */
extern const struct hwdb_field hwdb_schema[];

/* The vendor bit of gpu (HWDB_NV or HWDB_AMD). */
unsigned hwdb_vendor_bit(const struct ridge_gpu *gpu);

/* Whether the writer writes f for gpu, and JSON and hw show show it: allowed
 * for the vendor, its gate open, and then: a required row always; a has_
 * row when has_; a string when not empty; a list when not empty (the JSON
 * shows every allowed list, empty or not); an HWDB_OMIT_ZERO int when not 0;
 * a map that is not required when any row under it holds a value; the
 * measured mark when measured. */
bool hwdb_field_present(const struct ridge_gpu *gpu, const struct hwdb_field *f);

/* Whether f holds a value in gpu: a has_ row its has_, a string not empty,
 * a number or bool not 0, a list not empty, a map any row under it. */
bool hwdb_field_set(const struct ridge_gpu *gpu, const struct hwdb_field *f);

/* The member of gpu a row points at (f->offset). */
static inline const void *hwdb_field_member(const struct ridge_gpu *gpu, size_t offset)
{
	return (const char *)gpu + offset;
}
static inline double hwdb_field_double(const struct ridge_gpu *gpu, const struct hwdb_field *f)
{
	return *(const double *)hwdb_field_member(gpu, f->offset);
}
static inline int hwdb_field_int(const struct ridge_gpu *gpu, const struct hwdb_field *f)
{
	return *(const int *)hwdb_field_member(gpu, f->offset);
}
static inline const char *hwdb_field_string(const struct ridge_gpu *gpu, const struct hwdb_field *f)
{
	return (const char *)hwdb_field_member(gpu, f->offset);
}
static inline int hwdb_field_count(const struct ridge_gpu *gpu, const struct hwdb_field *f)
{
	return *(const int *)hwdb_field_member(gpu, f->count_offset);
}
/* Item i of a string list. */
static inline const char *hwdb_field_item(const struct ridge_gpu *gpu, const struct hwdb_field *f, int i)
{
	return (const char *)hwdb_field_member(gpu, f->offset + (size_t)i * f->size);
}

/* The row at path ("memory.usable_size"), or NULL. */
const struct hwdb_field *hwdb_field_find(const char *path);

#endif
