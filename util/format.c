/* Number formatting for people: the one place every front end (ridge, the
 * TUI, ridge-probe's report) turns a number into text. A value that is not
 * finite (an overflow, a ratio that does not exist) is always "none". */
#include "format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void fmt_none(double value, char *buf, size_t len, const char *fmt)
{
	if (!isfinite(value))
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, fmt, value);
}

void fmt_si(double value, const char *unit, char *buf, size_t len)
{
	if (!isfinite(value)) {
		snprintf(buf, len, "none");
		return;
	}
	static const char *const prefixes[] = { "", "K", "M", "G", "T", "P", "E" };
	int i = 0;
	double v = value;
	while (fabs(v) >= 1000 && i < 6) {
		v /= 1000;
		i++;
	}
	snprintf(buf, len, "%.4g %s%s", v, prefixes[i], unit);
}

void fmt_bytes(double bytes, char *buf, size_t len)
{
	if (!isfinite(bytes)) {
		snprintf(buf, len, "none");
		return;
	}
	static const char *const prefixes[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	int i = 0;
	double v = bytes;
	while (fabs(v) >= 1024 && i < 5) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, "%.4g %s", v, prefixes[i]);
}

void fmt_seconds(double seconds, char *buf, size_t len)
{
	if (!isfinite(seconds)) {
		snprintf(buf, len, "none");
		return;
	}
	double a = fabs(seconds);
	if (a >= 1 || a == 0)
		snprintf(buf, len, "%.4g s", seconds);
	else if (a >= 1e-3)
		snprintf(buf, len, "%.4g ms", seconds * 1e3);
	else if (a >= 1e-6)
		snprintf(buf, len, "%.4g us", seconds * 1e6);
	else
		snprintf(buf, len, "%.4g ns", seconds * 1e9);
}

void fmt_grouped(double v, int decimals, char *buf, size_t len)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "none");
		return;
	}
	if (fabs(v) >= 1e21) {
		snprintf(buf, len, "%.6g", v);
		return;
	}
	char digits[64];
	snprintf(digits, sizeof digits, "%.*f", decimals, fabs(v));
	const char *dot = strchr(digits, '.');
	size_t int_len = dot ? (size_t)(dot - digits) : strlen(digits);
	char out[96];
	size_t n = 0;
	if (v < 0 && strspn(digits, "0.") != strlen(digits))
		out[n++] = '-';
	for (size_t i = 0; i < int_len; i++) {
		if (i > 0 && (int_len - i) % 3 == 0)
			out[n++] = ',';
		out[n++] = digits[i];
	}
	out[n] = '\0';
	snprintf(buf, len, "%s%s", out, dot ? dot : "");
}

void fmt_usd(double v, char *buf, size_t len)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "none");
		return;
	}
	char num[96];
	fmt_grouped(fabs(v), 2, num, sizeof num);
	snprintf(buf, len, "%s$%s", v < 0 ? "-" : "", num);
}

void fmt_percent(double fraction, char *buf, size_t len)
{
	fmt_none(fraction * 100, buf, len, "%.4g%%");
}

void fmt_gpu_hours(double hours, char *buf, size_t len)
{
	fmt_grouped(hours, 2, buf, len);
}

void fmt_roi(double ratio, char *buf, size_t len)
{
	if (!isfinite(ratio)) {
		snprintf(buf, len, "none");
		return;
	}
	if (ratio == 0) {
		snprintf(buf, len, "0x"); /* not "-0x" */
		return;
	}
	/* Below 9999.5: %.4g would round 9999.7 up to "1e+04". */
	if (fabs(ratio) < 9999.5) {
		snprintf(buf, len, "%.4gx", ratio);
		return;
	}
	char num[96];
	fmt_grouped(ratio, 0, num, sizeof num);
	snprintf(buf, len, "%sx", num);
}
