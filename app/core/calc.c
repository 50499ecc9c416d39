#include "calc.h"

#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "timing.h"

struct params_command calc_params_command(const struct calc *calc)
{
	return (struct params_command){
		.name = calc_command(calc),
		.params = calc->params,
		.param_count = calc->param_count,
		.synopsis = calc->synopsis,
		.description = calc->description,
		.usage = calc->usage,
		.check_required = true,
	};
}

const char *calc_command(const struct calc *calc)
{
	return calc->command ? calc->command : calc->name;
}

int calc_fail(struct calc_input *in, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(in->err, sizeof in->err, fmt, ap);
	va_end(ap);
	return -1;
}

double calc_num(const cJSON *obj, const char *key)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsNumber(item) ? item->valuedouble : NAN;
}

const char *calc_str(const cJSON *obj, const char *key)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsString(item) ? item->valuestring : "";
}

static char *next_slot(struct calc_text *t)
{
	char *slot = t->slot[t->next];
	t->next = (t->next + 1) % CALC_TEXT_SLOTS;
	return slot;
}

static const char *format_into(struct calc_text *t, void (*format)(double, char *, size_t), const cJSON *obj,
			       const char *key)
{
	char *s = next_slot(t);
	format(calc_num(obj, key), s, sizeof t->slot[0]);
	return s;
}

const char *calc_text_seconds(struct calc_text *t, const cJSON *obj, const char *key)
{
	return format_into(t, fmt_seconds, obj, key);
}

const char *calc_text_bytes(struct calc_text *t, const cJSON *obj, const char *key)
{
	return format_into(t, fmt_bytes, obj, key);
}

const char *calc_text_percent(struct calc_text *t, const cJSON *obj, const char *key)
{
	return format_into(t, fmt_percent, obj, key);
}

const char *calc_text_usd(struct calc_text *t, const cJSON *obj, const char *key)
{
	return format_into(t, fmt_usd, obj, key);
}

const char *calc_text_si(struct calc_text *t, const cJSON *obj, const char *key, const char *unit)
{
	char *s = next_slot(t);
	fmt_si(calc_num(obj, key), unit, s, sizeof t->slot[0]);
	return s;
}

bool calc_has(const cJSON *obj, const char *key)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
	return item && !cJSON_IsNull(item);
}

/* The given number that most likely made a result overflow. */
static int extreme_input(const struct param_values *v)
{
	double values[PARAM_MAX];
	bool given[PARAM_MAX];
	for (int i = 0; i < v->count; i++) {
		enum param_kind k = v->spec[i].kind;
		given[i] = v->set[i] && (k == PARAM_NUMBER || k == PARAM_INTEGER || k == PARAM_FRACTION);
		values[i] = v->num[i];
	}
	return app_extreme_index(values, given, v->count);
}

cJSON *calc_run(const struct calc *calc, struct calc_input *in)
{
	json_take_nonfinite();
	cJSON *result = calc->run(in);
	const char *key = json_take_nonfinite();
	if (!result || !key)
		return result;
	/* One rule for every result: finite, or refused (never nan or inf shown). */
	cJSON_Delete(result);
	int i = extreme_input(in->values);
	if (i >= 0)
		snprintf(in->err, sizeof in->err, "%s: '%s' is out of range: the result '%s' overflows",
			 params_where(in->values, i), in->values->text[i], key);
	else
		snprintf(in->err, sizeof in->err, "the inputs give a result out of range ('%s' overflows)", key);
	return NULL;
}

void calc_json_gpu(cJSON *obj, const struct ridge_gpu *gpu)
{
	cJSON_AddStringToObject(obj, "gpu", gpu->id);
	cJSON_AddStringToObject(obj, "ceilings", gpu->measured ? "measured" : "spec");
}

/* ---- the generic table ---- */

static void print_value(const cJSON *item, char *buf, size_t len)
{
	if (cJSON_IsNumber(item)) {
		double v = item->valuedouble;
		char exact[40];
		cost_format_exact(v, exact, sizeof exact);
		if (v == floor(v) && fabs(v) >= 10000 && fabs(v) < 1e21)
			fmt_grouped(v, 0, buf, len);
		else
			snprintf(buf, len, "%s", exact);
	} else if (cJSON_IsString(item)) {
		snprintf(buf, len, "%s", item->valuestring);
	} else if (cJSON_IsBool(item)) {
		snprintf(buf, len, "%s", cJSON_IsTrue(item) ? "true" : "false");
	} else if (cJSON_IsNull(item)) {
		snprintf(buf, len, "none");
	} else {
		snprintf(buf, len, "?");
	}
}

static void print_rows(FILE *out, const cJSON *obj, const char *prefix, const char *indent)
{
	const cJSON *item;
	cJSON_ArrayForEach (item, obj) {
		char key[160];
		snprintf(key, sizeof key, "%s%s%s", prefix, *prefix ? "." : "", item->string ? item->string : "");
		if (cJSON_IsObject(item)) {
			print_rows(out, item, key, indent);
		} else if (cJSON_IsArray(item)) {
			fprintf(out, "%s%s:\n", indent, key);
			char sub[64];
			snprintf(sub, sizeof sub, "%s    ", indent);
			const cJSON *first = item->child;
			if (first && cJSON_IsObject(first)) {
				/* a table: the first element's keys are the columns */
				const cJSON *col;
				fprintf(out, "%s", sub);
				cJSON_ArrayForEach (col, first)
					fprintf(out, "%-18s ", col->string);
				fprintf(out, "\n");
				const cJSON *row;
				cJSON_ArrayForEach (row, item) {
					fprintf(out, "%s", sub);
					cJSON_ArrayForEach (col, first) {
						char v[96];
						print_value(cJSON_GetObjectItemCaseSensitive(row, col->string), v,
							    sizeof v);
						fprintf(out, "%-18s ", v);
					}
					fprintf(out, "\n");
				}
			} else {
				const cJSON *e;
				cJSON_ArrayForEach (e, item) {
					char v[96];
					print_value(e, v, sizeof v);
					fprintf(out, "%s%s\n", sub, v);
				}
			}
		} else {
			char v[96];
			print_value(item, v, sizeof v);
			fprintf(out, "%s%-34s %s\n", indent, key, v);
		}
	}
}

void calc_print_table(FILE *out, const cJSON *result, const char *indent)
{
	print_rows(out, result, "", indent ? indent : "");
}

int calc_timing_overrides(const struct param_values *v, int efficiency, int fixed_cost,
			  struct ridge_timing_overrides *o, bool *given, char *err, size_t err_len)
{
	const int rows[2] = { efficiency, fixed_cost };
	for (int i = 0; i < 2; i++) {
		const char *text = rows[i] >= 0 ? params_text(v, rows[i]) : NULL; /* -1: no such flag */
		char why[300];
		if (!text)
			continue;
		if (timing_parse_overrides(text, i == 1, o, why, sizeof why) != 0) {
			snprintf(err, err_len, "%s: %s", params_where(v, rows[i]), why);
			return -1;
		}
		*given = true;
	}
	return 0;
}
