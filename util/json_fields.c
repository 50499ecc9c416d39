/* json_put_fields and json_get_fields: a struct's members as JSON and back
 * by its table (json_fields.h); json_field_number and json_field_set_number,
 * the one place a row's member is read or written as a number. */
#include "json_fields.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>

#include "json_out.h"

bool json_field_number(const struct json_field *field, const void *struct_ptr, double *value)
{
	const char *at = (const char *)struct_ptr + field->offset;
	if (field->kind == JSON_FIELD_DOUBLE)
		*value = *(const double *)at;
	else if (field->kind == JSON_FIELD_INT)
		*value = *(const int *)at;
	else if (field->kind == JSON_FIELD_LLONG)
		*value = (double)*(const long long *)at;
	else if (field->kind == JSON_FIELD_LONG)
		*value = (double)*(const long *)at;
	else if (field->kind == JSON_FIELD_ULLONG)
		*value = (double)*(const unsigned long long *)at;
	else
		return false;
	return true;
}

bool json_field_set_number(const struct json_field *field, void *struct_ptr, double value)
{
	char *at = (char *)struct_ptr + field->offset;
	switch (field->kind) {
	case JSON_FIELD_DOUBLE:
		*(double *)at = value;
		return true;
	case JSON_FIELD_INT:
		*(int *)at = (int)value;
		return true;
	case JSON_FIELD_LLONG:
		*(long long *)at = (long long)value;
		return true;
	case JSON_FIELD_LONG:
		*(long *)at = (long)value;
		return true;
	case JSON_FIELD_ULLONG:
		*(unsigned long long *)at = (unsigned long long)value;
		return true;
	default:
		return false; /* bool, string, text */
	}
}

void json_put_fields(cJSON *object, const void *struct_ptr, const struct json_field *fields, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		const struct json_field *f = &fields[i];
		const char *at = (const char *)struct_ptr + f->offset;
		double number;
		if (json_field_number(f, struct_ptr, &number))
			json_number(object, f->key, number);
		else if (f->kind == JSON_FIELD_BOOL)
			cJSON_AddBoolToObject(object, f->key, *(const bool *)at);
		else if (f->kind == JSON_FIELD_STRING)
			cJSON_AddStringToObject(object, f->key, *(const char *const *)at);
		else
			cJSON_AddStringToObject(object, f->key, at); /* JSON_FIELD_TEXT */
	}
}

/* The values an integer member holds, as doubles that convert back without
 * overflow (the largest doubles below 2^63 and 2^64). */
static void integer_range(enum json_field_kind kind, double *lo, double *hi)
{
	if (kind == JSON_FIELD_INT) {
		*lo = INT_MIN;
		*hi = INT_MAX;
	} else if (kind == JSON_FIELD_ULLONG) {
		*lo = 0;
		*hi = 18446744073709549568.0;
	} else {
		*lo = -9223372036854775808.0;
		*hi = 9223372036854774784.0;
	}
}

/* One number row: its value (0 for an optional one that is not a number),
 * then its range. */
static int get_number(const struct json_field *f, const cJSON *v, const char *where, void *struct_ptr, char *err,
		      size_t err_len)
{
	double value = 0;
	if (f->read == JSON_READ_OPTIONAL)
		value = cJSON_IsNumber(v) ? v->valuedouble : 0;
	else if (cJSON_IsNull(v))
		value = NAN;
	else if (cJSON_IsNumber(v))
		value = v->valuedouble;
	else {
		snprintf(err, err_len, "'%s' in %s is not a number", f->key, where);
		return -1;
	}
	if (f->kind == JSON_FIELD_DOUBLE) {
		if (f->ranged && !(isnan(value) || (isfinite(value) && value >= f->lo && value <= f->hi))) {
			if (isinf(f->hi))
				snprintf(err, err_len, "'%s' in %s must be a finite number >= %g", f->key, where,
					 f->lo);
			else
				snprintf(err, err_len, "'%s' in %s must be a finite number in %g..%g", f->key, where,
					 f->lo, f->hi);
			return -1;
		}
	} else {
		/* An integer: null or outside the range is an error in the
		 * document, not a float-to-integer conversion with undefined
		 * behaviour. */
		double lo = f->lo, hi = f->hi;
		if (!f->ranged)
			integer_range(f->kind, &lo, &hi);
		if (!(value >= lo && value <= hi)) {
			snprintf(err, err_len, "'%s' in %s is out of range (%.0f..%.0f)", f->key, where, lo, hi);
			return -1;
		}
	}
	json_field_set_number(f, struct_ptr, value);
	return 0;
}

int json_get_fields(const cJSON *object, const char *where, void *struct_ptr, const struct json_field *fields,
		    size_t count, char *err, size_t err_len)
{
	for (size_t i = 0; i < count; i++) {
		const struct json_field *f = &fields[i];
		char *at = (char *)struct_ptr + f->offset;
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(object, f->key);
		if (f->kind == JSON_FIELD_STRING)
			continue;
		if (!v && f->read == JSON_READ_REQUIRED) {
			snprintf(err, err_len, "missing key '%s' in %s", f->key, where);
			return -1;
		}
		if (f->kind == JSON_FIELD_BOOL) {
			if (f->read == JSON_READ_REQUIRED && !cJSON_IsBool(v)) {
				snprintf(err, err_len, "'%s' in %s is not true or false", f->key, where);
				return -1;
			}
			*(bool *)at = cJSON_IsTrue(v);
		} else if (f->kind == JSON_FIELD_TEXT) {
			if (f->read == JSON_READ_REQUIRED && !cJSON_IsString(v)) {
				snprintf(err, err_len, "'%s' in %s is not a string", f->key, where);
				return -1;
			}
			snprintf(at, f->size, "%s", cJSON_IsString(v) ? v->valuestring : "");
		} else if (get_number(f, v, where, struct_ptr, err, err_len) != 0) {
			return -1;
		}
	}
	return 0;
}
