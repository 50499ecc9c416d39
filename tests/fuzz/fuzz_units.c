/* libFuzzer harness: the number/unit parser (ridge_quantity_parse), every
 * input tried as every unit kind.
 *
 * Invariants checked beyond "no crash":
 *   - success gives a finite value (never inf or nan) and leaves err alone;
 *   - failure leaves the output untouched and writes a lowercase message that
 *     fits the buffer, also when the buffer is tiny;
 *   - a parsed value printed with %.17g parses back, as a plain count, to the
 *     same value (no silent overflow or rounding on the way);
 *   - never -0 (it passed "not negative" checks and printed "-0") and never
 *     a subnormal (it overflows what it divides): issue 21. */
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "units.h"

#define MAX_INPUT 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > MAX_INPUT)
		return 0; /* command-line arguments and YAML scalars are short; longer adds nothing */
	char *text = malloc(size + 1);
	CHECK(text);
	memcpy(text, data, size);
	text[size] = '\0'; /* the parser takes C strings: an embedded NUL ends the text */

	for (int kind = 0; kind < RIDGE_UNIT_KIND_COUNT; kind++) {
		double value = 12345.0;
		char err[200];
		memset(err, 'X', sizeof err);
		err[sizeof err - 1] = '\0';
		int rc = ridge_quantity_parse(text, (enum ridge_unit)kind, &value, err, sizeof err);
		if (rc == 0) {
			CHECK(isfinite(value));
			CHECK(!(value == 0 && signbit(value)));
			CHECK(value == 0 || fabs(value) >= DBL_MIN);
			CHECK(err[0] == 'X'); /* untouched */
			char printed[64];
			snprintf(printed, sizeof printed, "%.17g", value);
			double back = -1;
			char err2[200];
			CHECK(ridge_quantity_parse(printed, RIDGE_UNIT_COUNT, &back, err2, sizeof err2) == 0);
			CHECK(back == value);
		} else {
			CHECK(rc == -1);
			CHECK(value == 12345.0);
			CHECK(memchr(err, '\0', sizeof err) != NULL);
			CHECK(islower((unsigned char)err[0]));
			/* A small buffer truncates, never overruns; no buffer at all is allowed. */
			char small[8];
			CHECK(ridge_quantity_parse(text, (enum ridge_unit)kind, &value, small, sizeof small) == -1);
			CHECK(memchr(small, '\0', sizeof small) != NULL);
			CHECK(ridge_quantity_parse(text, (enum ridge_unit)kind, &value, NULL, 0) == -1);
		}
		CHECK(ridge_unit_symbol((enum ridge_unit)kind) != NULL);
	}
	free(text);
	return 0;
}
