/* app_gpu_json: `ridge hw show --json`, walking the hwdb schema table
 * (hwdb/schema.h) as the YAML writer does: each row's json_key, maps as
 * objects (or flattened into their parent: "memory_bytes"), lists always as
 * arrays. Numbers in SI base units, as the entry holds them. */
#include "app.h"
#include "schema.h"

/* peak_flops is the one map the table does not spell out row by row (its
 * keys are the dtypes). "peak_flops": dtype -> the default (dense matrix,
 * else vector) rate, and "<dtype>_vector" where the vector rate differs;
 * "peak_flops_detail" has all three. */
static void add_peaks(cJSON *o, const struct ridge_gpu *g)
{
	cJSON *peaks = cJSON_AddObjectToObject(o, "peak_flops");
	cJSON *detail = cJSON_AddObjectToObject(o, "peak_flops_detail");
	for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
		const struct ridge_peak *p = &g->peak[d];
		const char *name = ridge_dtype_name((enum ridge_dtype)d);
		double rate;
		if (!ridge_gpu_peak(g, (enum ridge_dtype)d, RIDGE_PEAK_DEFAULT, false, &rate, NULL))
			continue;
		json_number(peaks, name, rate);
		if (p->has_vector && p->has_matrix) {
			char key[32];
			snprintf(key, sizeof key, "%s_vector", name);
			json_number(peaks, key, p->vector);
		}
		cJSON *one = cJSON_AddObjectToObject(detail, name);
		if (p->has_vector)
			json_number(one, "vector", p->vector);
		if (p->has_matrix)
			json_number(one, "matrix", p->matrix);
		if (p->has_matrix_sparse)
			json_number(one, "matrix_sparse", p->matrix_sparse);
	}
}

static void add_rows(cJSON *o, const struct ridge_gpu *g, const struct hwdb_field *rows, unsigned only, unsigned skip);

static void add_row(cJSON *o, const struct ridge_gpu *g, const struct hwdb_field *row)
{
	bool is_list = row->type == HWDB_STRLIST || row->type == HWDB_QTYLIST;
	/* A list is an array whenever the vendor has it, empty or not: a
	 * reader iterates it without asking first. */
	bool flat = row->type == HWDB_MAP && (row->flags & HWDB_JSON_FLAT);
	if ((!row->json_key && !flat) || (is_list ? !(row->allowed & hwdb_vendor_bit(g)) : !hwdb_field_present(g, row)))
		return;
	switch (row->type) {
	case HWDB_STR:
		cJSON_AddStringToObject(o, row->json_key, hwdb_field_string(g, row));
		break;
	case HWDB_INT:
		cJSON_AddNumberToObject(o, row->json_key, hwdb_field_int(g, row));
		break;
	case HWDB_QTY:
		json_number(o, row->json_key, hwdb_field_double(g, row));
		break;
	case HWDB_BOOL:
		cJSON_AddBoolToObject(o, row->json_key, *(const bool *)hwdb_field_member(g, row->offset));
		break;
	case HWDB_VENDOR:
		cJSON_AddStringToObject(o, row->json_key, g->vendor == RIDGE_VENDOR_AMD ? "amd" : "nvidia");
		break;
	case HWDB_CC: {
		char cc[16];
		snprintf(cc, sizeof cc, "%d.%d", g->cc_major, g->cc_minor);
		cJSON_AddStringToObject(o, row->json_key, cc);
		break;
	}
	case HWDB_STRLIST:
	case HWDB_QTYLIST: {
		cJSON *array = cJSON_AddArrayToObject(o, row->json_key);
		const double *values = hwdb_field_member(g, row->offset);
		for (int i = 0; i < hwdb_field_count(g, row); i++)
			cJSON_AddItemToArray(array, row->type == HWDB_STRLIST
							    ? cJSON_CreateString(hwdb_field_item(g, row, i))
							    : cJSON_CreateNumber(values[i]));
		break;
	}
	case HWDB_MAP:
		add_rows(flat ? o : cJSON_AddObjectToObject(o, row->json_key), g, row->children, 0, 0);
		break;
	case HWDB_PEAKS:
		add_peaks(o, g);
		break;
	case HWDB_MEASURED:
	case HWDB_SCHEMA:
		break;
	}
}

/* The rows with every flag of only and none of skip. */
static void add_rows(cJSON *o, const struct ridge_gpu *g, const struct hwdb_field *rows, unsigned only, unsigned skip)
{
	for (const struct hwdb_field *row = rows; row->key; row++)
		if ((row->flags & only) == only && !(row->flags & skip))
			add_row(o, g, row);
}

/* Each timing slot's values resolved: "values": {"compute_efficiency":
 * {"provenance", "source"}, ...}, every value with its own provenance and
 * source string (the value's where it has one, else the slot's). */
static void add_timing_values(cJSON *o, const struct ridge_gpu *g)
{
	cJSON *timing = cJSON_GetObjectItemCaseSensitive(o, "timing");
	if (!timing)
		return;
	static const char *const keys[RIDGE_TIMING_VALUES] = { "compute_efficiency", "memory_efficiency",
							       "fixed_cost_s", "row_time_s", "cta_bandwidth" };
	for (int i = 0; i < RIDGE_TIMING_SLOTS; i++) {
		const struct ridge_timing_terms *t = &g->timing[i];
		cJSON *slot = cJSON_GetObjectItemCaseSensitive(timing, timing_slot_key(i));
		if (!slot)
			continue;
		const bool has[RIDGE_TIMING_VALUES] = { t->has_compute_efficiency, t->has_memory_efficiency,
							t->has_fixed_cost, t->has_row_time, t->has_cta_bandwidth };
		cJSON *values = cJSON_AddObjectToObject(slot, "values");
		for (int v = 0; v < RIDGE_TIMING_VALUES; v++) {
			if (!has[v])
				continue;
			cJSON *one = cJSON_AddObjectToObject(values, keys[v]);
			cJSON_AddStringToObject(
				one, "provenance",
				ridge_provenance_name(timing_value_provenance(t, (enum ridge_timing_value)v)));
			cJSON_AddStringToObject(one, "source", timing_value_source(t, (enum ridge_timing_value)v));
		}
	}
}

cJSON *app_gpu_json(const struct ridge_gpu *g, const char *origin)
{
	/* Who the GPU is, where the entry came from (no field: the file it was
	 * loaded from) and whether it was measured (the YAML's measured: {on}
	 * mark, last in a file, is one of the first things a reader wants). */
	cJSON *o = cJSON_CreateObject();
	add_rows(o, g, hwdb_schema, HWDB_IDENTITY, 0);
	if (origin)
		cJSON_AddStringToObject(o, "origin", origin);
	cJSON_AddBoolToObject(o, "measured", g->measured);
	if (g->measured)
		cJSON_AddStringToObject(o, "measured_on", g->measured_on);
	add_rows(o, g, hwdb_schema, 0, HWDB_IDENTITY);
	add_timing_values(o, g);
	return o;
}
