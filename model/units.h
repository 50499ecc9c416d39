/* Numbers with units, as people type them and as hwdb files write them:
 * "70e9", "32KiB", "3.35TB/s", "989T", "5us", "25ms", "1980 MHz".
 * K M G T P are powers of 1000; Ki Mi Gi Ti Pi powers of 1024. */
#ifndef RIDGE_UNITS_H
#define RIDGE_UNITS_H

#include <stddef.h>

enum ridge_unit {
	RIDGE_UNIT_COUNT,       /* a plain number: "70e9", "70G", "8K" */
	RIDGE_UNIT_BYTES,       /* "B": "32KiB", "80 GB" */
	RIDGE_UNIT_BYTES_PER_S, /* "B/s": "3.35TB/s" */
	RIDGE_UNIT_FLOP,        /* "FLOP": an operation count, "137 GFLOP" */
	RIDGE_UNIT_FLOPS,       /* "FLOP/s", "FLOPS", "OP/s", "OPS": "989T", "989.4 TFLOP/s" */
	RIDGE_UNIT_SECONDS,     /* "s ms us µs ns": "5us", "25ms" */
	RIDGE_UNIT_HZ,          /* "Hz": "1980 MHz", "1.98GHz" */
	RIDGE_UNIT_WATTS,       /* "W": "700 W", "1 kW" */
	RIDGE_UNIT_USD,         /* "$" prefix or "USD" suffix: "$240k", "3 USD" */
	RIDGE_UNIT_KIND_COUNT
};

/* The unit's canonical symbol for messages: "B/s", "FLOP/s", ... */
const char *ridge_unit_symbol(enum ridge_unit unit);

/* Parses text as a quantity of the given unit, in SI base units.
 * Surrounding spaces and one space before the unit are allowed. The unit may
 * be left out (the number is then taken in base units). Rejects empty text,
 * trailing garbage, a wrong unit, NaN, infinities and values that overflow.
 * On failure returns -1 and writes a lowercase reason into err. */
int ridge_quantity_parse(const char *text, enum ridge_unit unit, double *out, char *err, size_t err_len);

#endif
