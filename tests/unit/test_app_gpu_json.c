/* app_gpu_json (`ridge hw show --json`) shows every row of the hwdb schema
 * table, with the value the entry holds, under the key the table gives it:
 * the test walks the table, so a row added to it is covered here. */
#include "test_util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "schema_fill.h"

/* No object may hold one key twice (flattened maps share their parent). */
static void expect_unique_keys(const cJSON *object, const char *where)
{
	for (const cJSON *a = object->child; a; a = a->next) {
		for (const cJSON *b = a->next; b; b = b->next)
			if (strcmp(a->string, b->string) == 0)
				fail_msg("%s: key '%s' twice", where, a->string);
		if (cJSON_IsObject(a))
			expect_unique_keys(a, a->string);
	}
}

static void expect_rows(const struct ridge_gpu *g, const cJSON *object, const struct hwdb_field *rows,
			const char *prefix)
{
	for (const struct hwdb_field *row = rows; row->key; row++) {
		if (!(row->allowed & hwdb_vendor_bit(g)))
			continue;
		char path[128];
		snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "", row->key);
		if (!row->json_key) {
			/* Only the file format's version is no property of the GPU. */
			if (row->type != HWDB_SCHEMA && !(row->type == HWDB_MAP && (row->flags & HWDB_JSON_FLAT)))
				fail_msg("%s has no JSON key in the schema table", path);
			if (row->type == HWDB_MAP)
				expect_rows(g, object, row->children, path);
			continue;
		}
		const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, row->json_key);
		if (!item)
			fail_msg("%s: no \"%s\" in the JSON", path, row->json_key);
		switch (row->type) {
		case HWDB_STR:
			if (!cJSON_IsString(item) || strcmp(item->valuestring, hwdb_field_string(g, row)) != 0)
				fail_msg("%s: \"%s\" is not '%s'", path, row->json_key, hwdb_field_string(g, row));
			break;
		case HWDB_INT:
			if (!cJSON_IsNumber(item) || item->valuedouble != hwdb_field_int(g, row))
				fail_msg("%s: \"%s\" is not %d", path, row->json_key, hwdb_field_int(g, row));
			break;
		case HWDB_QTY:
			if (!cJSON_IsNumber(item) || item->valuedouble != hwdb_field_double(g, row))
				fail_msg("%s: \"%s\" is not %.17g", path, row->json_key, hwdb_field_double(g, row));
			break;
		case HWDB_BOOL:
			if (!cJSON_IsBool(item) ||
			    cJSON_IsTrue(item) != *(const bool *)hwdb_field_member(g, row->offset))
				fail_msg("%s: \"%s\" is not the entry's", path, row->json_key);
			break;
		case HWDB_STRLIST:
		case HWDB_QTYLIST:
			if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != hwdb_field_count(g, row))
				fail_msg("%s: \"%s\" is not an array of %d", path, row->json_key,
					 hwdb_field_count(g, row));
			for (int i = 0; i < hwdb_field_count(g, row); i++) {
				const cJSON *v = cJSON_GetArrayItem(item, i);
				bool same = row->type == HWDB_STRLIST
						    ? cJSON_IsString(v) &&
							      strcmp(v->valuestring, hwdb_field_item(g, row, i)) == 0
						    : cJSON_IsNumber(v) &&
							      v->valuedouble == ((const double *)hwdb_field_member(
											g, row->offset))[i];
				if (!same)
					fail_msg("%s[%d] differs in the JSON", path, i);
			}
			break;
		case HWDB_MAP:
			if (!cJSON_IsObject(item))
				fail_msg("%s: \"%s\" is not an object", path, row->json_key);
			expect_rows(g, item, row->children, path);
			break;
		case HWDB_MEASURED:
			if (!cJSON_IsTrue(item) ||
			    !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(object, "measured_on")))
				fail_msg("measured: no \"measured\": true with \"measured_on\"");
			break;
		case HWDB_PEAKS:
			if (!cJSON_IsObject(item) || !cJSON_GetObjectItemCaseSensitive(object, "peak_flops_detail"))
				fail_msg("peak_flops: no \"peak_flops\" and \"peak_flops_detail\"");
			break;
		case HWDB_CC:
		case HWDB_VENDOR:
			if (!cJSON_IsString(item))
				fail_msg("%s: \"%s\" is not a string", path, row->json_key);
			break;
		case HWDB_SCHEMA:
			break;
		}
	}
}

static void test_every_field_in_the_json(void **state)
{
	(void)state;
	static const char *const ids[] = { "h100-sxm", "mi300x" };
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		struct ridge_gpu gpu;
		test_fill_every_field(ids[i], &gpu);
		cJSON *json = app_gpu_json(&gpu, "filled.yaml");
		assert_non_null(json);
		expect_unique_keys(json, ids[i]);
		expect_rows(&gpu, json, hwdb_schema, "");
		cJSON_Delete(json);
	}
}

/* The keys the CLI spec names for hw show (spec/cli.md), on a real entry. */
static void test_spec_keys(void **state)
{
	(void)state;
	cJSON *json = app_gpu_json(test_gpu("h100-sxm"), "hwdb/h100-sxm.yaml");
	static const char *const keys[] = { "id",       "sm_count",   "warp_size", "memory_bandwidth",
					    "l2_bytes", "peak_flops", "sources" };
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (!cJSON_GetObjectItemCaseSensitive(json, keys[i]))
			fail_msg("no \"%s\"", keys[i]);
	cJSON_Delete(json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_field_in_the_json),
		cmocka_unit_test(test_spec_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
