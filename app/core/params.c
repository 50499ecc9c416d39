#include "params.h"

#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "calc.h"
#include "app.h"

void params_init(struct param_values *v, const struct param *spec, int count)
{
	memset(v, 0, sizeof *v);
	v->spec = spec;
	v->count = count < PARAM_MAX ? count : PARAM_MAX;
}

/* "--kernels-per-layer" for a parameter's name, made once per name and kept
 * for the process (a few dozen names): what params_where returns for a value
 * from the command line, or one not given. */
static const char *flag_text(const char *name)
{
	static struct {
		const char *name;
		char *flag;
	} * table;
	static size_t used, cap;
	for (size_t i = 0; i < used; i++)
		if (table[i].name == name || strcmp(table[i].name, name) == 0)
			return table[i].flag;
	char buf[80];
	params_flag_name(name, buf, sizeof buf);
	if (used == cap) {
		size_t grown_cap = cap ? cap * 2 : 64;
		void *grown = realloc(table, grown_cap * sizeof *table);
		if (!grown)
			return "--?";
		table = grown;
		cap = grown_cap;
	}
	char *flag = strdup(buf);
	if (!flag)
		return "--?";
	table[used].name = name;
	table[used].flag = flag;
	used++;
	return flag;
}

int params_missing(const struct param_values *v)
{
	for (int i = 0; i < v->count; i++)
		if ((v->spec[i].flags & PARAM_REQUIRED) && !v->set[i] && !v->bad[i])
			return i;
	return -1;
}

int params_index(const struct param *spec, int count, const char *name)
{
	for (int i = 0; i < count; i++)
		if (strcmp(spec[i].name, name) == 0)
			return i;
	return -1;
}

/* An index code passed: in the table, or -1 (a name params_index did not find). */
static bool given(const struct param_values *v, int i)
{
	if (i < -1 || i >= v->count) {
		/* An index of another table, or past this one's end. */
		fprintf(stderr, "ridge: internal error: no parameter %d in a table of %d\n", i, v->count);
		abort();
	}
	return i >= 0 && v->set[i];
}

bool params_has(const struct param_values *v, int i)
{
	return given(v, i);
}

double params_num(const struct param_values *v, int i)
{
	return given(v, i) ? v->num[i] : 0;
}

const char *params_text(const struct param_values *v, int i)
{
	return given(v, i) ? v->text[i] : NULL;
}

bool params_flag(const struct param_values *v, int i)
{
	return given(v, i) && v->num[i] != 0;
}

const void *params_node(const struct param_values *v, int i)
{
	return given(v, i) ? v->node[i] : NULL;
}

const char *params_where(const struct param_values *v, int i)
{
	given(v, i);
	if (i < 0)
		return "--?";
	return v->where[i] ? v->where[i] : flag_text(v->spec[i].name);
}

/* A row the code names must be in the table (generic code: json_fields keys). */
static int must_index(const struct param_values *v, const char *name)
{
	int i = params_index(v->spec, v->count, name);
	if (i < 0) {
		/* A calculator asked for a parameter its own table lacks. */
		fprintf(stderr, "ridge: internal error: no parameter '%s'\n", name);
		abort();
	}
	return i;
}

void params_read_fields(const struct param_values *v, void *dst, const struct json_field *fields, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		int p = must_index(v, fields[i].key);
		if (!json_field_set_number(&fields[i], dst, params_num(v, p)) && fields[i].kind == JSON_FIELD_BOOL)
			*(bool *)((char *)dst + fields[i].offset) = params_flag(v, p);
	}
}

void params_flag_name(const char *name, char *buf, size_t len)
{
	size_t n = 0;
	if (len < 3)
		return;
	buf[n++] = '-';
	buf[n++] = '-';
	for (const char *p = name; *p && n + 1 < len; p++)
		buf[n++] = *p == '_' ? '-' : *p;
	buf[n] = '\0';
}

int params_parse_fraction(const char *text, double *out, char *err, size_t err_len)
{
	size_t n = strlen(text);
	while (n > 0 && isspace((unsigned char)text[n - 1]))
		n--;
	bool percent = n > 0 && text[n - 1] == '%';
	char buf[64];
	if (n >= sizeof buf) {
		snprintf(err, err_len, "not a fraction: '%s'", text);
		return -1;
	}
	memcpy(buf, text, n - (percent ? 1 : 0));
	buf[n - (percent ? 1 : 0)] = '\0';
	double v;
	char why[200];
	if (ridge_quantity_parse(buf, RIDGE_UNIT_COUNT, &v, why, sizeof why) != 0) {
		snprintf(err, err_len, "not a fraction: '%s' (write 0.4 or 40%%)", text);
		return -1;
	}
	*out = percent ? v / 100 : v;
	return 0;
}

static bool is_bare_number(const char *text)
{
	size_t n = strlen(text);
	while (n > 0 && isspace((unsigned char)text[n - 1]))
		n--;
	return n > 0 && (isdigit((unsigned char)text[n - 1]) || text[n - 1] == '.');
}

int params_parse_number(const struct param *p, const char *text, double *value, char *err, size_t err_len)
{
	if (!(p->bare_unit && is_bare_number(text)))
		return ridge_quantity_parse(text, p->unit, value, err, err_len);
	char buf[128];
	snprintf(buf, sizeof buf, "%s%s", text, p->bare_unit);
	if (ridge_quantity_parse(buf, p->unit, value, err, err_len) == 0)
		return 0;
	/* Say why in terms of what was typed ('1e309', not '1e309us'). */
	double unused;
	char plain[200];
	if (ridge_quantity_parse(text, p->unit, &unused, plain, sizeof plain) != 0)
		snprintf(err, err_len, "%s", plain);
	return -1;
}

/* Whole bounds are grouped from 10,000 up, as the result tables group them
 * (1..1024, 1..1,000,000). */
static void bound_text(double v, char *buf, size_t len)
{
	if (v == floor(v) && fabs(v) >= 10000)
		fmt_grouped(v, 0, buf, len);
	else
		cost_format_exact(v, buf, len);
}

void params_range_text(const struct param *p, char *buf, size_t len)
{
	if (p->range) {
		snprintf(buf, len, "%s", p->range);
		return;
	}
	char lo[40], hi[40];
	bound_text(p->lo, lo, sizeof lo);
	bound_text(p->hi, hi, sizeof hi);
	if (p->flags & PARAM_OPEN_LO)
		snprintf(buf, len, "greater than %s, at most %s", lo, hi);
	else
		snprintf(buf, len, "%s..%s", lo, hi);
}

static int out_of_range(const struct param *p, double v)
{
	if (!(v <= p->hi))
		return 1;
	return (p->flags & PARAM_OPEN_LO) ? !(v > p->lo) : !(v >= p->lo);
}

/* An error about parameter i: "FILE:LINE:COL: key: reason" from a scenario
 * file (at, the position text), "--flag: reason" (the flag) from argv. */
static void param_error(struct app_status *st, const char *at, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void param_error(struct app_status *st, const char *at, const char *where, const char *fmt, ...)
{
	char msg[APP_MSG_TEXT];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (at)
		app_error(st, "%s: %s", at, msg);
	else
		app_error_flag(st, where, "%s", msg);
}

/* CUDA users write 32KB for 32 KiB (cudaFuncAttributes, the occupancy
 * calculator and ptxas all count in KiB); ridge reads K as 1000, as it
 * documents. Where the decimal reading of a byte count with a K prefix
 * ("32KB", "48K") is within 3 % of the binary one (it always is: 1000/1024
 * is 2.3 % off; an M is 4.6 % off, a G 6.9 %, and are left alone), a
 * warning says what was read and how to write the other. */
#define PARAMS_BINARY_NOTE_TOLERANCE 0.03
static void binary_prefix_note(const struct param *p, const char *text, double value, const char *at, const char *where,
			       struct app_status *st)
{
	if (p->kind != PARAM_NUMBER || p->unit != RIDGE_UNIT_BYTES || !text)
		return;
	size_t digits = strspn(text, "0123456789.");
	const char *suffix = text + digits;
	if (digits == 0 || !(suffix[0] == 'K' || suffix[0] == 'k'))
		return;
	if (!(suffix[1] == '\0' || ((suffix[1] == 'B' || suffix[1] == 'b') && suffix[2] == '\0')))
		return; /* KiB, or anything else */
	double binary = value / 1000.0 * 1024.0;
	if (fabs(binary - value) > PARAMS_BINARY_NOTE_TOLERANCE * binary)
		return;
	char decimal_text[40], binary_text[40];
	fmt_grouped(value, 0, decimal_text, sizeof decimal_text);
	fmt_grouped(binary, 0, binary_text, sizeof binary_text);
	app_warning(st, "%s: '%s' is %s bytes (K = 1000, SI); if you meant %.*s KiB (%s bytes), write %.*sKiB",
		    at ? at : where, text, decimal_text, (int)digits, text, binary_text, (int)digits, text);
}

int params_set(struct param_values *v, int i, const char *text, const char *where, struct app_status *st)
{
	const struct param *p = &v->spec[i];
	char err[APP_MSG_TEXT], range[96];
	double value = 0;
	v->where[i] = where;
	if (!where)
		where = flag_text(p->name);
	v->bad[i] = true; /* until it parses */
	int rc = 0;
	switch (p->kind) {
	case PARAM_FLAG:
		if (!text || strcasecmp(text, "true") == 0 || strcasecmp(text, "yes") == 0 ||
		    strcasecmp(text, "on") == 0) {
			value = 1;
		} else if (strcasecmp(text, "false") == 0 || strcasecmp(text, "no") == 0 ||
			   strcasecmp(text, "off") == 0) {
			value = 0;
		} else {
			snprintf(err, sizeof err, "expected true or false, not '%s'", text);
			rc = -1;
		}
		break;
	case PARAM_TEXT:
	case PARAM_LIST:
		break;
	case PARAM_FRACTION:
		rc = params_parse_fraction(text, &value, err, sizeof err);
		break;
	case PARAM_INTEGER:
		rc = ridge_quantity_parse(text, RIDGE_UNIT_COUNT, &value, err, sizeof err);
		if (rc == 0 && value != floor(value)) {
			snprintf(err, sizeof err, "must be a whole number, not '%s'", text);
			rc = -1;
		}
		break;
	case PARAM_NUMBER:
		rc = params_parse_number(p, text, &value, err, sizeof err);
		break;
	}
	if (rc != 0) {
		param_error(st, v->where[i], where, "%s", err);
		return -1;
	}
	if ((p->flags & PARAM_WHOLE) && (out_of_range(p, value) || value != floor(value))) {
		params_range_text(p, range, sizeof range);
		param_error(st, v->where[i], where, "'%s' is not a whole number of %s from %s", text,
			    p->unit == RIDGE_UNIT_BYTES ? "bytes" : "units", range);
		return -1;
	}
	if ((p->kind == PARAM_NUMBER || p->kind == PARAM_INTEGER || p->kind == PARAM_FRACTION) &&
	    out_of_range(p, value) && (p->flags & PARAM_OPEN_LO) && p->lo == 0 && p->hi == INFINITY) {
		/* A positive quantity: the words of every such flag (app_parse_positive). */
		param_error(st, v->where[i], where, "must be greater than 0, not '%s'", text);
		return -1;
	}
	if ((p->kind == PARAM_NUMBER || p->kind == PARAM_INTEGER || p->kind == PARAM_FRACTION) &&
	    out_of_range(p, value)) {
		params_range_text(p, range, sizeof range);
		if (p->kind == PARAM_FRACTION && value > 1 && value <= 100 && !strchr(text, '%'))
			param_error(st, v->where[i], where, "'%s' is out of range (%s): write 0.4 or 40%%", text,
				    range);
		else
			param_error(st, v->where[i], where, "'%s' is out of range (%s)", text, range);
		return -1;
	}
	binary_prefix_note(p, text, value, v->where[i], where, st);
	v->bad[i] = false;
	v->set[i] = true;
	v->num[i] = value;
	v->text[i] = text ? text : "true";
	return 0;
}
