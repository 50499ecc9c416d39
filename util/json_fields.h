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
 * char arrays.
 *
 * The same table reads the object back (json_get_fields), each row by its
 * rule: required (JSON_FIELD, JSON_FIELD_IN, JSON_FIELD_AMOUNT) or optional
 * (JSON_FIELD_OPT, JSON_FIELD_OPT_IN), and for a number the range it must
 * lie in:
 *
 *   static const struct json_field device_fields[] = {
 *           JSON_FIELD_IN(struct kern_device, sm_count, 1, INT_MAX),
 *           JSON_FIELD_AMOUNT(struct kern_device, l2_bytes),
 *           JSON_FIELD_OPT(struct kern_device, pci_bus_id),
 *   };
 */
#ifndef RIDGE_UTIL_JSON_FIELDS_H
#define RIDGE_UTIL_JSON_FIELDS_H

#include <math.h> /* INFINITY */
#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* The member types ridge's result and input structs use. */
enum json_field_kind {
	JSON_FIELD_DOUBLE,
	JSON_FIELD_INT,
	JSON_FIELD_LLONG, /* counts that pass 2^31: tiles, dimensions */
	JSON_FIELD_BOOL,
	JSON_FIELD_STRING, /* const char *: NULL adds no key; written only */
	JSON_FIELD_TEXT,   /* char array: a NUL-terminated text */
	JSON_FIELD_LONG,   /* long: a probe measurement's shape */
	JSON_FIELD_ULLONG, /* unsigned long long: seeds, bit sets */
};

/* How json_get_fields reads a row back. */
enum json_field_read {
	JSON_READ_REQUIRED, /* absent: an error; a number may be null (NaN: not known), else of the row's kind */
	JSON_READ_OPTIONAL, /* absent, null or of another kind: 0, "" or false (and the range applies to that 0) */
};

struct json_field {
	const char *key;
	size_t offset;
	enum json_field_kind kind;
	size_t size; /* the member's size: a text's capacity */
	enum json_field_read read;
	/* A number's range: an integer outside it (or null) is refused; a double
	 * must be finite and inside it, or null. Without one, an integer must fit
	 * its type and a double may be anything. */
	bool ranged;
	double lo, hi;
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
		 char (*)[sizeof(((type *)0)->member)]: JSON_FIELD_TEXT, long *: JSON_FIELD_LONG,                      \
		 unsigned long long *: JSON_FIELD_ULLONG)
/* A row with its reading rule: JSON_READ_REQUIRED or JSON_READ_OPTIONAL,
 * and whether (is_ranged) a number must lie in lo..hi. */
#define JSON_FIELD_READ(type, name, member, rule, is_ranged, lo_, hi_)                                                 \
	{ .key = name, .offset = offsetof(type, member), .kind = JSON_FIELD_KIND(type, member),                        \
	  .size = sizeof(((type *)0)->member), .read = rule, .ranged = is_ranged, .lo = lo_, .hi = hi_ }
/* clang-format on */
#define JSON_FIELD_AS(type, name, member) JSON_FIELD_READ(type, name, member, JSON_READ_REQUIRED, false, 0, 0)
#define JSON_FIELD(type, member) JSON_FIELD_AS(type, #member, member)
/* Required, a number within lo..hi (a double: or null). */
#define JSON_FIELD_IN(type, member, lo, hi) JSON_FIELD_READ(type, #member, member, JSON_READ_REQUIRED, true, lo, hi)
/* Required, a measured quantity (a clock, a size, a power): a finite double
 * >= 0, or null (not known). */
#define JSON_FIELD_AMOUNT(type, member) JSON_FIELD_IN(type, member, 0, INFINITY)
/* Optional (absent: 0, "", false). */
#define JSON_FIELD_OPT(type, member) JSON_FIELD_READ(type, #member, member, JSON_READ_OPTIONAL, false, 0, 0)
/* Optional, a number within lo..hi. */
#define JSON_FIELD_OPT_IN(type, member, lo, hi) JSON_FIELD_READ(type, #member, member, JSON_READ_OPTIONAL, true, lo, hi)
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

/* Reads each row's key of object into struct_ptr's member, in the table's
 * order, by the row's rule (a JSON_FIELD_STRING row is skipped: it has no
 * storage). Returns 0, or -1 with the first problem in err, naming the key
 * and where (the object's name: "device", "measurements[3]"): "missing key
 * 'K' in W", "'K' in W is not a number" (not a string, not true or false),
 * "'K' in W is out of range (LO..HI)" for an integer, "'K' in W must be a
 * finite number >= LO" for a double. */
int json_get_fields(const cJSON *object, const char *where, void *struct_ptr, const struct json_field *fields,
		    size_t count, char *err, size_t err_len);

#endif
