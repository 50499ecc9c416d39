/* Scenario files: expect and book (each key a path into the item's result, compared within a tolerance), eval_file's document and its printer. */
#include "eval.h"
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>
#include "app.h"
#include "model_config.h"
#include "eval_internal.h"

/* ---- expect and book ---- */

/* "target.cost_usd", "ranking.0.name": parsed strictly, so that a check
 * can never pass against the wrong value. Every component is non-empty and
 * must resolve: a key of the object it is under, or a decimal index (digits
 * only) within the array's length, and the whole at most
 * READ_MAX_RESULT_PATH characters; else NULL with why set. */
static const cJSON *result_path(const cJSON *root, const char *path, char *why, size_t why_len)
{
	size_t len = strlen(path);
	if (len == 0 || len > READ_MAX_RESULT_PATH) {
		snprintf(why, why_len, len ? "the key is longer than %d characters" : "the key is empty",
			 READ_MAX_RESULT_PATH);
		return NULL;
	}
	const cJSON *cur = root;
	const char *seg = path;
	for (;;) {
		const char *dot = strchr(seg, '.');
		size_t n = dot ? (size_t)(dot - seg) : strlen(seg);
		char name[READ_MAX_RESULT_PATH + 1];
		memcpy(name, seg, n);
		name[n] = '\0';
		int done = (int)(seg - path);
		if (n == 0) {
			snprintf(why, why_len, "an empty component at character %d of '%s'", done + 1, path);
			return NULL;
		}
		if (cJSON_IsArray(cur)) {
			int size = cJSON_GetArraySize(cur);
			if (strspn(name, "0123456789") != n) {
				snprintf(why, why_len, "'%.*s' is a list: '%s' is not an index (0..%d)",
					 done ? done - 1 : 0, path, name, size - 1);
				return NULL;
			}
			/* Compared as text first: 4294967296 must not wrap to 0. */
			char *end;
			unsigned long long idx = n <= 10 ? strtoull(name, &end, 10) : ULLONG_MAX;
			if (idx >= (unsigned long long)size) {
				snprintf(why, why_len, "index %s is out of range: '%.*s' has %d elements", name,
					 done ? done - 1 : 0, path, size);
				return NULL;
			}
			cur = cJSON_GetArrayItem(cur, (int)idx);
		} else if (cJSON_IsObject(cur)) {
			const cJSON *next = cJSON_GetObjectItemCaseSensitive(cur, name);
			if (!next) {
				if (done)
					snprintf(why, why_len, "'%.*s' has no '%s'", done - 1, path, name);
				else
					snprintf(why, why_len, "no '%s'", name);
				return NULL;
			}
			cur = next;
		} else {
			snprintf(why, why_len, "'%.*s' is a value, not a list or mapping: it has no '%s'", done - 1,
				 path, name);
			return NULL;
		}
		if (!dot)
			return cur;
		seg = dot + 1;
	}
}

static int parse_expected_number(const char *text, double *out)
{
	char err[200];
	if (ridge_quantity_parse(text, RIDGE_UNIT_COUNT, out, err, sizeof err) == 0)
		return 0;
	if (ridge_quantity_parse(text, RIDGE_UNIT_USD, out, err, sizeof err) == 0)
		return 0;
	if (strchr(text, '%') && params_parse_fraction(text, out, err, sizeof err) == 0)
		return 0;
	return -1;
}

static bool close_enough(double actual, double expected, double tolerance)
{
	if (expected == 0)
		return fabs(actual) <= tolerance;
	return fabs(actual - expected) <= tolerance * fabs(expected);
}

/* One key of an item's expect: or book: mapping, found in its result. */
struct result_key {
	const yaml_node_t *key_node, *value_node;
	const char *key;     /* a result path (result_path) */
	const char *text;    /* the scenario's value for it */
	const cJSON *actual; /* the result's */
};

/* What expect: and book: do with each key: append to out; returns 1 for a
 * failed check, 0, or -1 after an error. */
typedef int result_key_fn(struct eval_scenario *sc, const struct eval_item *it, const struct result_key *rk,
			  cJSON *out);

/* Resolves each key of an item's section ("expect" or "book", a mapping, or
 * NULL) in its result, the value a number when numbers_only, and hands it to
 * fn. Returns the sum of fn's answers, or -1 after the first error. */
static int each_result_key(struct eval_scenario *sc, const struct eval_item *it, const yaml_node_t *section,
			   const char *section_name, bool numbers_only, const cJSON *result, result_key_fn *fn,
			   cJSON *out)
{
	int sum = 0;
	if (!section)
		return 0;
	for (yaml_node_pair_t *p = section->data.mapping.pairs.start; p < section->data.mapping.pairs.top; p++) {
		struct result_key rk = { .key_node = eval_node_at(sc, p->key),
					 .value_node = eval_node_at(sc, p->value) };
		rk.key = eval_key_text(rk.key_node);
		char why[400];
		rk.actual = result_path(result, rk.key, why, sizeof why);
		if (!rk.actual || (numbers_only && !cJSON_IsNumber(rk.actual))) {
			eval_node_error(sc, rk.key_node, "%s: the %s item has no %s '%.300s'%s%s", section_name,
					it->calc->name, numbers_only ? "number" : "result", rk.key,
					rk.actual ? "" : ": ", rk.actual ? "" : why);
			return -1;
		}
		if (!(rk.text = eval_scalar(sc, rk.value_node, rk.key)))
			return -1;
		int answer = fn(sc, it, &rk, out);
		if (answer < 0)
			return -1;
		sum += answer;
	}
	return sum;
}

/* expect: one check appended to checks; 1 when it fails. */
static int add_check(struct eval_scenario *sc, const struct eval_item *it, const struct result_key *rk, cJSON *checks)
{
	const cJSON *actual = rk->actual;
	const char *key = rk->key, *text = rk->text;
	bool ok;
	cJSON *c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "key", key);
	if (cJSON_IsNumber(actual)) {
		double want;
		if (parse_expected_number(text, &want) != 0) {
			cJSON_Delete(c);
			eval_node_error(sc, rk->value_node, "expect: %s: '%s' is not a number", key, text);
			return -1;
		}
		ok = close_enough(actual->valuedouble, want, it->tolerance);
		json_number(c, "expected", want);
		json_number(c, "actual", actual->valuedouble);
	} else if (cJSON_IsBool(actual)) {
		bool want = strcasecmp(text, "true") == 0 || strcasecmp(text, "yes") == 0;
		ok = want == (bool)cJSON_IsTrue(actual);
		cJSON_AddBoolToObject(c, "expected", want);
		cJSON_AddBoolToObject(c, "actual", cJSON_IsTrue(actual));
	} else if (cJSON_IsString(actual)) {
		ok = strcmp(text, actual->valuestring) == 0;
		cJSON_AddStringToObject(c, "expected", text);
		cJSON_AddStringToObject(c, "actual", actual->valuestring);
	} else if (cJSON_IsNull(actual)) {
		ok = strcasecmp(text, "none") == 0;
		cJSON_AddStringToObject(c, "expected", text);
		cJSON_AddNullToObject(c, "actual");
	} else {
		cJSON_Delete(c);
		eval_node_error(sc, rk->key_node, "expect: '%s' is a list or mapping; name one of its values", key);
		return -1;
	}
	char where[PARAM_WHERE];
	eval_where_of(sc, rk->value_node, where, sizeof where);
	cJSON_AddStringToObject(c, "where", where);
	cJSON_AddBoolToObject(c, "ok", ok);
	cJSON_AddItemToArray(checks, c);
	return !ok;
}

/* book: the source's printed value beside the exact one, appended to book. */
static int add_book(struct eval_scenario *sc, const struct eval_item *it, const struct result_key *rk, cJSON *book)
{
	(void)it;
	double printed, exact = rk->actual->valuedouble;
	if (parse_expected_number(rk->text, &printed) != 0) {
		eval_node_error(sc, rk->value_node, "book: %s: '%s' is not a number", rk->key, rk->text);
		return -1;
	}
	cJSON *b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "key", rk->key);
	json_number(b, "book", printed);
	json_number(b, "exact", exact);
	json_number(b, "drift", printed - exact);
	json_number(b, "drift_relative", exact != 0 ? (printed - exact) / exact : NAN);
	cJSON_AddItemToArray(book, b);
	return 0;
}

static void print_number(double v, char *buf, size_t len)
{
	if (v == floor(v) && fabs(v) >= 10000 && fabs(v) < 1e21)
		fmt_grouped(v, 0, buf, len);
	else
		cost_format_exact(v, buf, len);
}

static void print_book(FILE *out, const cJSON *book)
{
	if (cJSON_GetArraySize(book) == 0)
		return;
	fprintf(out, "\n  The source's printed values against the exact ones:\n");
	fprintf(out, "    %-28s %26s %26s %24s %10s\n", "key", "book", "exact", "drift (book - exact)", "drift");
	const cJSON *b;
	cJSON_ArrayForEach (b, book) {
		char printed[48], exact[48], drift[48], rel[32];
		print_number(calc_num(b, "book"), printed, sizeof printed);
		print_number(calc_num(b, "exact"), exact, sizeof exact);
		double dv = calc_num(b, "drift");
		if (dv == floor(dv))
			print_number(dv, drift, sizeof drift);
		else
			snprintf(drift, sizeof drift, "%.6g", dv);
		snprintf(rel, sizeof rel, "%+.3g%%", calc_num(b, "drift_relative") * 100);
		fprintf(out, "    %-28s %26s %26s %24s %10s\n", calc_str(b, "key"), printed, exact, drift, rel);
	}
}

static void print_checks(FILE *out, const cJSON *checks)
{
	int n = cJSON_GetArraySize(checks), bad = 0;
	if (n == 0)
		return;
	const cJSON *c;
	cJSON_ArrayForEach (c, checks) {
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "ok")))
			continue;
		bad++;
		char want[64], got[64];
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(c, "expected");
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(c, "actual");
		if (cJSON_IsNumber(e)) {
			cost_format_exact(e->valuedouble, want, sizeof want);
			cost_format_exact(a->valuedouble, got, sizeof got);
		} else {
			snprintf(want, sizeof want, "%s",
				 cJSON_IsString(e) ? e->valuestring
				 : cJSON_IsTrue(e) ? "true"
						   : "false");
			snprintf(got, sizeof got, "%s",
				 cJSON_IsString(a) ? a->valuestring
				 : cJSON_IsNull(a) ? "none"
				 : cJSON_IsTrue(a) ? "true"
						   : "false");
		}
		fprintf(out, "  FAIL %s: %s expected %s, got %s\n", calc_str(c, "where"), calc_str(c, "key"), want,
			got);
	}
	fprintf(out, "\n  checks: %d of %d as expected\n", n - bad, n);
}

cJSON *eval_file(const char *path, const char *hwdb_dir, const char *calibration, const char *only_kind,
		 struct app_status *st)
{
	struct eval_scenario *sc = eval_open(path, hwdb_dir, calibration, st);
	if (!sc)
		return NULL;
	int selected = 0;
	bool needs_gpu = false;
	for (int i = 0; i < sc->count; i++) {
		if (!only_kind || strcmp(sc->items[i].calc->name, only_kind) == 0) {
			selected++;
			needs_gpu |= !sc->items[i].calc->takes_no_gpu;
		}
	}
	if (selected == 0) {
		app_error_at(st, path, 0, 0, "no '%s' item in this scenario", only_kind);
		eval_close(sc);
		return NULL;
	}
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "file", sc->path);
	if (sc->title[0])
		cJSON_AddStringToObject(doc, "scenario", sc->title);
	if (sc->gpu && needs_gpu)
		calc_json_gpu(doc, sc->gpu);
	if (sc->model_name[0])
		cJSON_AddStringToObject(doc, "model", sc->model_name);
	cJSON *items = cJSON_AddArrayToObject(doc, "items");

	/* Everything runs before anything is printed: a bad item leaves no half report. */
	int failures = 0;
	for (int i = 0; i < sc->count; i++) {
		struct eval_item *it = &sc->items[i];
		if (only_kind && strcmp(it->calc->name, only_kind) != 0)
			continue;
		cJSON *result = eval_run(sc, i, st);
		if (!result)
			goto bad;
		cJSON *entry = cJSON_CreateObject();
		cJSON_AddStringToObject(entry, "name", it->name);
		cJSON_AddStringToObject(entry, "kind", it->calc->name);
		cJSON_AddStringToObject(entry, "where", it->where);
		cJSON_AddItemToObject(entry, "result", result);
		cJSON *book = cJSON_AddArrayToObject(entry, "book");
		cJSON *checks = cJSON_AddArrayToObject(entry, "checks");
		cJSON_AddItemToArray(items, entry);
		if (each_result_key(sc, it, it->book, "book", true, result, add_book, book) != 0)
			goto bad;
		int failed = each_result_key(sc, it, it->expect, "expect", false, result, add_check, checks);
		if (failed < 0)
			goto bad;
		failures += failed;
	}
	cJSON_AddBoolToObject(doc, "ok", failures == 0);
	eval_close(sc);
	return doc;
bad:
	cJSON_Delete(doc);
	eval_close(sc);
	return NULL;
}

void eval_print(FILE *out, const cJSON *doc)
{
	const char *title = calc_str(doc, "scenario");
	fprintf(out, "Scenario %s%s%s%s\n", title[0] ? "'" : "", title, title[0] ? "' " : "", calc_str(doc, "file"));
	if (calc_has(doc, "gpu")) {
		const char *model = calc_str(doc, "model");
		/* The words of app_ceiling_source(), from the document's "ceilings". */
		fprintf(out, "GPU %s (%s ceilings)%s%s\n", calc_str(doc, "gpu"),
			strcmp(calc_str(doc, "ceilings"), "measured") == 0 ? "measured (calibration)" : "spec sheet",
			model[0] ? ", model " : "", model);
	}
	int n = 0;
	const cJSON *entry;
	cJSON_ArrayForEach (entry, cJSON_GetObjectItemCaseSensitive(doc, "items")) {
		const struct calc *calc = eval_find_kind(calc_str(entry, "kind"));
		const cJSON *result = cJSON_GetObjectItemCaseSensitive(entry, "result");
		fprintf(out, "\n[%d] %s  (%s, %s)\n", ++n, calc_str(entry, "name"), calc->name,
			calc_str(entry, "where"));
		if (calc->print_item)
			calc->print_item(out, result);
		else if (calc->print)
			calc->print(out, result);
		else
			calc_print_table(out, result, "  ");
		print_book(out, cJSON_GetObjectItemCaseSensitive(entry, "book"));
		print_checks(out, cJSON_GetObjectItemCaseSensitive(entry, "checks"));
	}
	fprintf(out, "\n%d item%s, %s\n", n, n == 1 ? "" : "s",
		cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "ok")) ? "every check as expected"
									  : "some checks FAILED");
}
