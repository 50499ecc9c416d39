/* Strict JSON input (util/json_check.c): what cJSON lets through that the
 * YAML loader refuses. Used by the model config reader, the validation
 * reader (ridge roofline --validation) and ridge-probe --replay. */
#ifndef RIDGE_JSON_CHECK_H
#define RIDGE_JSON_CHECK_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* 1 with the offset of the first control byte (below 0x20, other than tab,
 * newline, carriage return: a NUL, a 0x01), else 0. */
int hwdb_json_bad_byte(const char *text, size_t len, size_t *offset);

/* The first key given twice in one object of doc (depth first), with its
 * path ("measurements[2].name") in path; NULL when every key is unique. */
const char *hwdb_json_duplicate(const cJSON *doc, char *path, size_t path_len);

/* The 1-based line and column of the nth occurrence (1-based) of key as a key
 * at nesting depth (1: the top-level object's keys) of text. 0, or -1. */
int hwdb_json_key_position(const char *text, size_t len, int depth, const char *key, int nth, int *line, int *col);

#endif
