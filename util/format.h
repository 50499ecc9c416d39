/* Human number formats, shared by every front end. A value that is not
 * finite is written "none". */
#ifndef RIDGE_UTIL_FORMAT_H
#define RIDGE_UTIL_FORMAT_H

#include <stddef.h>

/* "989.4 TFLOP/s": four significant digits with a decimal SI prefix. */
void fmt_si(double value, const char *unit, char *buf, size_t len);
/* "50 MiB": binary prefixes. */
void fmt_bytes(double bytes, char *buf, size_t len);
/* "3.2 ms": s, ms, us or ns. */
void fmt_seconds(double seconds, char *buf, size_t len);
/* printf of value with fmt ("%.3gx less"), or "none" when it is not finite. */
void fmt_none(double value, char *buf, size_t len, const char *fmt) __attribute__((format(printf, 4, 0)));
/* "3,523,215,360,000,000,000" with decimals after the point. */
void fmt_grouped(double v, int decimals, char *buf, size_t len);
/* "$7,421,670.37". */
void fmt_usd(double v, char *buf, size_t len);
/* "9.6%" for 0.096. */
void fmt_percent(double fraction, char *buf, size_t len);
/* GPU-hours, everywhere ridge shows them (cost train, ridge eval, the TUI's
 * cost panel): grouped with two decimals, "2,472,889.97". */
void fmt_gpu_hours(double hours, char *buf, size_t len);
/* A return on investment, net or gross, as a multiple of the investment
 * everywhere ridge shows one: four significant digits, "10.89x", "-11.31x",
 * "239x"; from 10,000 on grouped whole numbers ("12,346x") rather than an
 * exponent. */
void fmt_roi(double ratio, char *buf, size_t len);

#endif
