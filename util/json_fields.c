/* json_put_fields: a result struct's members as JSON by its table
 * (json_fields.h). */
#include "json_fields.h"

#include "json_out.h"

void json_put_fields(cJSON *object, const void *struct_ptr, const struct json_field *fields, size_t count)
{
	const char *base = struct_ptr;
	for (size_t i = 0; i < count; i++) {
		const struct json_field *f = &fields[i];
		const void *at = base + f->offset;
		switch (f->kind) {
		case JSON_FIELD_DOUBLE:
			json_number(object, f->key, *(const double *)at);
			break;
		case JSON_FIELD_FLOAT:
			json_number(object, f->key, *(const float *)at);
			break;
		case JSON_FIELD_INT:
			json_number(object, f->key, *(const int *)at);
			break;
		case JSON_FIELD_UINT:
			json_number(object, f->key, *(const unsigned *)at);
			break;
		case JSON_FIELD_LONG:
			json_number(object, f->key, (double)*(const long *)at);
			break;
		case JSON_FIELD_ULONG:
			json_number(object, f->key, (double)*(const unsigned long *)at);
			break;
		case JSON_FIELD_LLONG:
			json_number(object, f->key, (double)*(const long long *)at);
			break;
		case JSON_FIELD_ULLONG:
			json_number(object, f->key, (double)*(const unsigned long long *)at);
			break;
		case JSON_FIELD_BOOL:
			cJSON_AddBoolToObject(object, f->key, *(const bool *)at);
			break;
		case JSON_FIELD_STRING:
			cJSON_AddStringToObject(object, f->key, *(const char *const *)at);
			break;
		case JSON_FIELD_TEXT:
			cJSON_AddStringToObject(object, f->key, at);
			break;
		}
	}
}
