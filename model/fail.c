#include "fail.h"

#include <stdarg.h>
#include <stdio.h>

int model_fail(char *err, size_t err_len, const char *fmt, ...)
{
	if (err && err_len) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, err_len, fmt, ap);
		va_end(ap);
	}
	return -1;
}
