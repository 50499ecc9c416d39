/* A result struct shown as JSON by a table instead of a run of
 * json_number(o, "key", r->key) lines: each row names a member once, the
 * JSON key is the member's name (JSON_FIELD_AS where the fixed key differs),
 * and the row's kind comes from the member's type, so a key cannot drift
 * from its field and a wrong type does not compile.
 *
 *   static const struct json_field train_fields[] = {
 *           JSON_FIELDS(struct ridge_train_result, mfu, flops_per_token, step_time_s),
 *           JSON_FIELD_AS(struct ridge_train_result, "required_bytes", memory_required),
 *   };
 *   json_put_fields(o, r, train_fields, JSON_FIELD_COUNT(train_fields));
 *
 * Numbers go through json_number (a non-finite one is null and refused by
 * the calculator), bools become true/false, strings are added as they are
 * (a NULL string adds no key, as cJSON_AddStringToObject does), and so are
 * char arrays. */
#ifndef RIDGE_UTIL_JSON_FIELDS_H
#define RIDGE_UTIL_JSON_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* The member types ridge's result and input structs use. */
enum json_field_kind {
	JSON_FIELD_DOUBLE,
	JSON_FIELD_INT,
	JSON_FIELD_LLONG, /* counts that pass 2^31: tiles, dimensions */
	JSON_FIELD_BOOL,
	JSON_FIELD_STRING, /* const char *: NULL adds no key */
	JSON_FIELD_TEXT,   /* char array: a NUL-terminated text */
};

struct json_field {
	const char *key;
	size_t offset;
	enum json_field_kind kind;
};

/* The kind of a member, from the type of its address (so that a char
 * array, text, is told from a const char * pointer); any other type (an
 * enum shown by name, a nested struct) has no association and fails to
 * compile. */
/* clang-format off */
#define JSON_FIELD_KIND(type, member)                                                                                  \
	_Generic(&((type *)0)->member,                                                                                 \
		 double *: JSON_FIELD_DOUBLE, int *: JSON_FIELD_INT, long long *: JSON_FIELD_LLONG,                   \
		 bool *: JSON_FIELD_BOOL, const char **: JSON_FIELD_STRING,                                            \
		 char (*)[sizeof(((type *)0)->member)]: JSON_FIELD_TEXT)
#define JSON_FIELD_AS(type, key, member) { key, offsetof(type, member), JSON_FIELD_KIND(type, member) }
/* clang-format on */
#define JSON_FIELD(type, member) JSON_FIELD_AS(type, #member, member)
#define JSON_FIELD_COUNT(table) (sizeof(table) / sizeof((table)[0]))

/* JSON_FIELDS(type, a, b, c) is JSON_FIELD(type, a), JSON_FIELD(type, b),
 * JSON_FIELD(type, c): a list map by repeated rescanning (the technique of
 * William Swanson's public-domain MAP macro); JSON_FIELDS_EVAL rescans 81
 * times, one member a rescan: more than any result struct has. */
#define JSON_FIELDS_EVAL0(...) __VA_ARGS__
#define JSON_FIELDS_EVAL1(...) JSON_FIELDS_EVAL0(JSON_FIELDS_EVAL0(JSON_FIELDS_EVAL0(__VA_ARGS__)))
#define JSON_FIELDS_EVAL2(...) JSON_FIELDS_EVAL1(JSON_FIELDS_EVAL1(JSON_FIELDS_EVAL1(__VA_ARGS__)))
#define JSON_FIELDS_EVAL3(...) JSON_FIELDS_EVAL2(JSON_FIELDS_EVAL2(JSON_FIELDS_EVAL2(__VA_ARGS__)))
#define JSON_FIELDS_EVAL(...) JSON_FIELDS_EVAL3(JSON_FIELDS_EVAL3(JSON_FIELDS_EVAL3(__VA_ARGS__)))
#define JSON_FIELDS_END(...)
#define JSON_FIELDS_OUT
#define JSON_FIELDS_COMMA ,
#define JSON_FIELDS_GET_END2() 0, JSON_FIELDS_END
#define JSON_FIELDS_GET_END1(...) JSON_FIELDS_GET_END2
#define JSON_FIELDS_GET_END(...) JSON_FIELDS_GET_END1
#define JSON_FIELDS_NEXT0(test, next, ...) next JSON_FIELDS_OUT
#define JSON_FIELDS_NEXT1(test, next) JSON_FIELDS_NEXT0(test, JSON_FIELDS_COMMA next, 0)
#define JSON_FIELDS_NEXT(test, next) JSON_FIELDS_NEXT1(JSON_FIELDS_GET_END test, next)
#define JSON_FIELDS_A(type, member, peek, ...) \
	JSON_FIELD(type, member) JSON_FIELDS_NEXT(peek, JSON_FIELDS_B)(type, peek, __VA_ARGS__)
#define JSON_FIELDS_B(type, member, peek, ...) \
	JSON_FIELD(type, member) JSON_FIELDS_NEXT(peek, JSON_FIELDS_A)(type, peek, __VA_ARGS__)
#define JSON_FIELDS(type, ...) JSON_FIELDS_EVAL(JSON_FIELDS_A(type, __VA_ARGS__, ()()(), ()()(), ()()(), 0))

/* A number row's member as a double (a long long beyond 2^53 rounds, as
 * JSON numbers do), and the member set from one (truncated toward zero for
 * the integer kinds); false for a row that is not a number (bool, text). */
bool json_field_number(const struct json_field *field, const void *struct_ptr, double *value);
bool json_field_set_number(const struct json_field *field, void *struct_ptr, double value);

/* Adds each row's member of struct_ptr to object, in the table's order. */
void json_put_fields(cJSON *object, const void *struct_ptr, const struct json_field *fields, size_t count);

#endif
