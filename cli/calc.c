#include "calc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

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

bool calc_has(const cJSON *obj, const char *key)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
	return item && !cJSON_IsNull(item);
}

void calc_fmt_grouped(double v, int decimals, char *buf, size_t len)
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

void calc_fmt_usd(double v, char *buf, size_t len)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "none");
		return;
	}
	char num[96];
	calc_fmt_grouped(fabs(v), 2, num, sizeof num);
	snprintf(buf, len, "%s$%s", v < 0 ? "-" : "", num);
}

void calc_fmt_percent(double fraction, char *buf, size_t len)
{
	cli_format_none(fraction * 100, buf, len, "%.4g%%");
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
	return cli_extreme_index(values, given, v->count);
}

cJSON *calc_run(const struct calc *calc, struct calc_input *in)
{
	cli_json_take_nonfinite();
	cJSON *result = calc->run(in);
	const char *key = cli_json_take_nonfinite();
	if (!result || !key)
		return result;
	/* One rule for every result: finite, or refused (never nan or inf shown). */
	cJSON_Delete(result);
	int i = extreme_input(in->values);
	if (i >= 0)
		snprintf(in->err, sizeof in->err, "%s: '%s' is out of range: the result '%s' overflows", params_where_at(in->values, i),
			 in->values->text[i], key);
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
			calc_fmt_grouped(v, 0, buf, len);
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

static void print_rows(const cJSON *obj, const char *prefix, const char *indent)
{
	const cJSON *item;
	cJSON_ArrayForEach(item, obj)
	{
		char key[160];
		snprintf(key, sizeof key, "%s%s%s", prefix, *prefix ? "." : "", item->string ? item->string : "");
		if (cJSON_IsObject(item)) {
			print_rows(item, key, indent);
		} else if (cJSON_IsArray(item)) {
			printf("%s%s:\n", indent, key);
			char sub[64];
			snprintf(sub, sizeof sub, "%s    ", indent);
			const cJSON *first = item->child;
			if (first && cJSON_IsObject(first)) {
				/* a table: the first element's keys are the columns */
				const cJSON *col;
				printf("%s", sub);
				cJSON_ArrayForEach(col, first)
					printf("%-18s ", col->string);
				printf("\n");
				const cJSON *row;
				cJSON_ArrayForEach(row, item)
				{
					printf("%s", sub);
					cJSON_ArrayForEach(col, first)
					{
						char v[96];
						print_value(cJSON_GetObjectItemCaseSensitive(row, col->string), v, sizeof v);
						printf("%-18s ", v);
					}
					printf("\n");
				}
			} else {
				const cJSON *e;
				cJSON_ArrayForEach(e, item)
				{
					char v[96];
					print_value(e, v, sizeof v);
					printf("%s%s\n", sub, v);
				}
			}
		} else {
			char v[96];
			print_value(item, v, sizeof v);
			printf("%s%-34s %s\n", indent, key, v);
		}
	}
}

void calc_print_table(const cJSON *result, const char *indent)
{
	print_rows(result, "", indent ? indent : "");
}

/* ---- a calculator as a command ---- */

int calc_main(const struct calc *calc, int argc, char **argv)
{
	struct param_values v;
	params_init(&v, calc->params, calc->param_count);
	int rc = calc->usage ? params_parse_argv_usage(&v, calc->command, calc->usage, argc, argv)
			     : params_parse_argv(&v, calc->command, calc->synopsis, calc->description, argc, argv, NULL, 0,
						 NULL);
	if (rc == 1)
		return EXIT_OK;
	if (rc != 0)
		return rc;
	int missing = params_missing(&v);
	if (missing >= 0) {
		cli_error("%s is required (see 'ridge %s --help')", params_where_at(&v, missing), calc->command);
		return EXIT_USAGE;
	}
	struct cli_hw hw;
	struct calc_input in = { .values = &v };
	if (calc->needs_gpu) {
		if (cli_hw_open(&hw, params_text(&v, "hwdb"), params_text(&v, "calibration")) != 0)
			return EXIT_USAGE;
		const char *name = params_text(&v, "gpu");
		const struct hwdb_entry *e = cli_hw_find(&hw, name ? name : cli_hw_default_gpu(&hw));
		if (!e) {
			cli_hw_close(&hw);
			return EXIT_USAGE;
		}
		in.gpu = &e->gpu;
	}
	cJSON *result = calc_run(calc, &in);
	bool problem = result && calc->problem_unless_ok && cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(result, "ok"));
	if (!result) {
		if (in.err[0])
			cli_error("%s", in.err);
		rc = EXIT_USAGE;
	} else if (params_flag(&v, "json")) {
		rc = cli_json_print(result);
		result = NULL;
	} else {
		if (calc->print)
			calc->print(result);
		else
			calc_print_table(result, "");
		rc = fflush(stdout) == 0 ? EXIT_OK : EXIT_ENV;
	}
	if (rc == EXIT_OK && problem)
		rc = EXIT_PROBLEM;
	cJSON_Delete(result);
	if (calc->needs_gpu)
		cli_hw_close(&hw);
	return rc;
}
