/* Internal to model/: how every model function returns an error. */
#ifndef RIDGE_MODEL_FAIL_H
#define RIDGE_MODEL_FAIL_H
#include <stddef.h>

/* Formats the message into err (when err and err_len are given) and returns -1. */
int model_fail(char *err, size_t err_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
