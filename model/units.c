#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A multiplier is either a power of ten (applied by re-reading the number
 * with a shifted exponent, so "5us" is exactly the double nearest 5e-6) or a
 * power of two (exact by multiplication). */
struct suffix {
	const char *text;
	int decimal_exponent; /* used when binary_factor is 0 */
	double binary_factor;
};

static const char *const unit_symbols[RIDGE_UNIT_KIND_COUNT] = {
	"", "B", "B/s", "FLOP", "FLOP/s", "s", "Hz", "W", "USD",
};

/* Unit spellings accepted after the multiplier, per unit kind. */
static const char *const bytes_units[] = { "B", NULL };
static const char *const bandwidth_units[] = { "B/s", "Bps", NULL };
static const char *const flop_units[] = { "FLOP", "FLOPs", NULL };
static const char *const flops_units[] = { "FLOP/s", "FLOPS", "OP/s", "OPS", NULL };
static const char *const hz_units[] = { "Hz", NULL };
static const char *const watt_units[] = { "W", NULL };
static const char *const usd_units[] = { "USD", "$", NULL };
static const char *const no_units[] = { NULL };

static const char *const *const units_of[RIDGE_UNIT_KIND_COUNT] = {
	no_units, bytes_units, bandwidth_units, flop_units, flops_units, no_units, hz_units, watt_units, usd_units,
};

/* Binary prefixes first so "Ki" is not read as "K" followed by unit "i". */
static const struct suffix multipliers[] = {
	{ "Ki", 0, 1024.0 },
	{ "Mi", 0, 1048576.0 },
	{ "Gi", 0, 1073741824.0 },
	{ "Ti", 0, 1099511627776.0 },
	{ "Pi", 0, 1125899906842624.0 },
	{ "K", 3, 0 },
	{ "k", 3, 0 },
	{ "M", 6, 0 },
	{ "G", 9, 0 },
	{ "T", 12, 0 },
	{ "P", 15, 0 },
};

static const struct suffix time_units[] = {
	{ "s", 0, 0 }, { "ms", -3, 0 }, { "us", -6, 0 }, { "\xc2\xb5s", -6, 0 }, { "ns", -9, 0 },
};

const char *ridge_unit_symbol(enum ridge_unit unit)
{
	if ((int)unit < 0 || unit >= RIDGE_UNIT_KIND_COUNT)
		return "?";
	return unit_symbols[unit];
}

static int fail(char *err, size_t err_len, const char *fmt, const char *text)
{
	if (err && err_len)
		snprintf(err, err_len, fmt, text);
	return -1;
}

static bool unit_matches(enum ridge_unit unit, const char *rest)
{
	for (const char *const *u = units_of[unit]; *u; u++)
		if (strcmp(rest, *u) == 0)
			return true;
	return false;
}

/* Reads the part after the number: an optional multiplier, then the unit. */
static int parse_suffix(const char *rest, enum ridge_unit unit, struct suffix *found)
{
	found->decimal_exponent = 0;
	found->binary_factor = 0;
	if (unit == RIDGE_UNIT_SECONDS) {
		if (*rest == '\0')
			return 0;
		for (size_t i = 0; i < sizeof time_units / sizeof time_units[0]; i++) {
			if (strcmp(rest, time_units[i].text) == 0) {
				*found = time_units[i];
				return 0;
			}
		}
		return -1;
	}
	for (size_t i = 0; i < sizeof multipliers / sizeof multipliers[0]; i++) {
		size_t n = strlen(multipliers[i].text);
		if (strncmp(rest, multipliers[i].text, n) == 0) {
			/* Only a multiplier if what follows is empty or a valid unit. */
			if (rest[n] == '\0' || unit_matches(unit, rest + n)) {
				*found = multipliers[i];
				rest += n;
				break;
			}
		}
	}
	if (*rest != '\0' && !unit_matches(unit, rest))
		return -1;
	return 0;
}

/* The number text [start, end) times 10^shift, correctly rounded. */
static double shifted(const char *start, const char *end, int shift)
{
	char buf[96];
	const char *e = start;
	while (e < end && *e != 'e' && *e != 'E')
		e++;
	long exponent = e < end ? strtol(e + 1, NULL, 10) : 0;
	if (exponent > 100000 || exponent < -100000)
		return exponent > 0 ? HUGE_VAL : 0.0;
	if ((size_t)(e - start) > 60)
		return strtod(start, NULL) * pow(10.0, shift);
	snprintf(buf, sizeof buf, "%.*se%ld", (int)(e - start), start, exponent + shift);
	return strtod(buf, NULL);
}

int ridge_quantity_parse(const char *text, enum ridge_unit unit, double *out, char *err, size_t err_len)
{
	if (!text)
		return fail(err, err_len, "%s", "no value given");
	if ((int)unit < 0 || unit >= RIDGE_UNIT_KIND_COUNT)
		return fail(err, err_len, "%s", "unknown unit kind");

	const char *p = text;
	while (isspace((unsigned char)*p))
		p++;
	if (unit == RIDGE_UNIT_USD && *p == '$')
		p++;
	if (*p == '\0')
		return fail(err, err_len, "empty number '%s'", text);
	/* strtod also takes "inf", "nan" and hex: none of those is a quantity. */
	const char *digits = p;
	if (*digits == '+' || *digits == '-')
		digits++;
	if (!(isdigit((unsigned char)*digits) || (*digits == '.' && isdigit((unsigned char)digits[1]))))
		return fail(err, err_len, "not a number: '%s'", text);
	if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
		return fail(err, err_len, "hexadecimal is not accepted: '%s'", text);

	errno = 0;
	char *end = NULL;
	double value = strtod(p, &end);
	if (errno == ERANGE && fabs(value) > 1.0)
		return fail(err, err_len, "number too large: '%s'", text);

	/* The suffix: one optional space, then the multiplier and unit; trailing spaces ignored. */
	char rest[32];
	const char *s = end;
	if (*s == ' ')
		s++;
	size_t n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= sizeof rest)
		return fail(err, err_len, "unknown unit in '%s'", text);
	memcpy(rest, s, n);
	rest[n] = '\0';

	struct suffix factor;
	if (parse_suffix(rest, unit, &factor) != 0) {
		if (err && err_len) {
			if (unit == RIDGE_UNIT_COUNT)
				snprintf(err, err_len, "unknown suffix in '%s' (expected K M G T P, Ki Mi Gi Ti)",
					 text);
			else if (unit == RIDGE_UNIT_SECONDS)
				snprintf(err, err_len, "unknown unit in '%s' (expected s, ms, us or ns)", text);
			else
				snprintf(
					err, err_len,
					"unknown unit in '%s' (expected %s, with an optional K M G T P or Ki Mi Gi Ti prefix)",
					text, unit_symbols[unit]);
		}
		return -1;
	}
	double result = factor.binary_factor != 0      ? value * factor.binary_factor
			: factor.decimal_exponent != 0 ? shifted(p, end, factor.decimal_exponent)
						       : value;
	if (!isfinite(result))
		return fail(err, err_len, "number too large: '%s'", text);
	/* A subnormal (1e-320) has lost its precision and overflows anything
	 * divided by it; no quantity ridge takes is that small. */
	if (result != 0 && fabs(result) < DBL_MIN)
		return fail(err, err_len, "number too small: '%s' (below 2.2e-308)", text);
	/* -0 is 0: it passes every "not negative" check and must not print as "-0". */
	*out = result == 0 ? 0.0 : result;
	return 0;
}
