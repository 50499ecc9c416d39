/* json_put_fields: a result struct's members as JSON by its table
 * (json_fields.h); json_field_number and json_field_set_number, the one
 * place a row's member is read or written as a number. */
#include "json_fields.h"

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
