/* Raw results: derivation, notes, JSON out and back in (see result.h). */
#include "result.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../util/json_check.h"
#include "../util/json_fields.h"

void probe_measurement_derive(struct probe_measurement *m)
{
	memset(&m->stats, 0, sizeof m->stats);
	m->rate = 0;
	if (m->repeats < 1 || probe_stats_compute(m->seconds, m->repeats, &m->stats) != 0)
		return;
	if (kern_id_is_launch(m->id) || kern_id_is_latency(m->id))
		m->rate = m->stats.median;
	else if (m->stats.median > 0)
		m->rate = m->work / m->stats.median;
}

void probe_note(struct probe_result *r, const char *fmt, ...)
{
	if (r->note_count >= PROBE_MAX_NOTES)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->notes[r->note_count++], PROBE_NOTE, fmt, ap);
	va_end(ap);
}

cJSON *probe_json_number(cJSON *object, const char *key, double value)
{
	if (!isfinite(value))
		return cJSON_AddNullToObject(object, key);
	return cJSON_AddNumberToObject(object, key, value);
}

/* The tables below are the JSON both ways: --json writes each row's member
 * under its key (json_put_fields), --replay reads it back by the row's rule
 * (json_get_fields: required or optional, the range a number must lie in;
 * a measured quantity, a clock, a size, a power, is finite and not negative,
 * the rule the YAML loader applies to a hwdb entry's values, or null:
 * unknown). */

/* device: the runtime's answers, in the order written. Beside them the
 * writer puts hwdb_id after the name and clock_mhz after sm_count. */
static const struct json_field device_fields[] = {
	JSON_FIELD(struct kern_device, name),
	JSON_FIELD_IN(struct kern_device, sm_count, 1, INT_MAX),
	JSON_FIELD(struct kern_device, backend),
	JSON_FIELD(struct kern_device, arch),
	JSON_FIELD_IN(struct kern_device, cc_major, 0, INT_MAX),
	JSON_FIELD_IN(struct kern_device, cc_minor, 0, INT_MAX),
	JSON_FIELD_IN(struct kern_device, warp_size, 1, INT_MAX),
	JSON_FIELD_AMOUNT(struct kern_device, clock_hz),
	JSON_FIELD_AMOUNT(struct kern_device, memory_clock_hz),
	JSON_FIELD_IN(struct kern_device, bus_width_bits, 0, INT_MAX),
	JSON_FIELD_AMOUNT(struct kern_device, l2_bytes),
	JSON_FIELD_AMOUNT(struct kern_device, smem_per_sm),
	JSON_FIELD_AMOUNT(struct kern_device, smem_per_block),
	JSON_FIELD_AMOUNT(struct kern_device, smem_per_block_optin),
	JSON_FIELD_AMOUNT(struct kern_device, smem_reserved_per_block),
	JSON_FIELD_IN(struct kern_device, regs_per_sm, 0, INT_MAX),
	JSON_FIELD_IN(struct kern_device, regs_per_block, 0, INT_MAX),
	JSON_FIELD_IN(struct kern_device, max_threads_per_sm, 0, INT_MAX),
	JSON_FIELD_IN(struct kern_device, max_threads_per_block, 0, INT_MAX),
	JSON_FIELD_IN(struct kern_device, max_blocks_per_sm, 0, INT_MAX),
	JSON_FIELD_AMOUNT(struct kern_device, memory_bytes),
	JSON_FIELD_READ(struct kern_device, "driver_api_version", driver_version, JSON_READ_OPTIONAL, true, 0, INT_MAX),
	JSON_FIELD_OPT_IN(struct kern_device, runtime_version, 0, INT_MAX),
	JSON_FIELD_OPT(struct kern_device, pci_bus_id),
};

/* device.nvml: null without NVML. */
static const struct json_field nvml_fields[] = {
	JSON_FIELD(struct probe_result, driver),
	JSON_FIELD_OPT(struct probe_result, max_sm_clock_mhz),
	JSON_FIELD_OPT(struct probe_result, power_limit_w),
};

/* A measurement's work and checks (its name, flags and seconds are written
 * and read by hand: some keys appear only when they say something). */
static const struct json_field measurement_fields[] = {
	JSON_FIELD_AMOUNT(struct probe_measurement, work),
	JSON_FIELD_AMOUNT(struct probe_measurement, bytes),
	JSON_FIELD_OPT_IN(struct probe_measurement, m, 0, 9223372036854774784.0),
	JSON_FIELD_OPT_IN(struct probe_measurement, n, 0, 9223372036854774784.0),
	JSON_FIELD_OPT_IN(struct probe_measurement, k, 0, 9223372036854774784.0),
	JSON_FIELD(struct probe_measurement, verify_error), /* -1: not verified */
	JSON_FIELD_AMOUNT(struct probe_measurement, verify_tolerance),
};

/* A measurement's env: the samples, then the rest when there were any. */
static const struct json_field env_fields[] = {
	JSON_FIELD_OPT_IN(struct probe_env, samples, 0, INT_MAX),
	JSON_FIELD_OPT(struct probe_env, clock_mhz_median),
	JSON_FIELD_OPT(struct probe_env, clock_mhz_min),
	JSON_FIELD_OPT(struct probe_env, clock_mhz_max),
	JSON_FIELD_OPT(struct probe_env, power_w_median),
	JSON_FIELD_OPT(struct probe_env, power_w_max),
	JSON_FIELD_OPT_IN(struct probe_env, clock_events, 0, 18446744073709549568.0),
};

/* occupancy[]: what the runtime said of each real kernel. */
static const struct json_field occupancy_fields[] = {
	JSON_FIELD(struct kern_occupancy_row, kernel),
	JSON_FIELD_IN(struct kern_occupancy_row, regs, 0, INT_MAX),
	JSON_FIELD_AMOUNT(struct kern_occupancy_row, static_smem),
	JSON_FIELD_OPT(struct kern_occupancy_row, local_bytes),
	JSON_FIELD_IN(struct kern_occupancy_row, max_threads, 0, INT_MAX),
	JSON_FIELD_OPT_IN(struct kern_occupancy_row, binary_version, 0, INT_MAX),
	JSON_FIELD_IN(struct kern_occupancy_row, block, 0, INT_MAX),
	JSON_FIELD_AMOUNT(struct kern_occupancy_row, dynamic_smem),
	JSON_FIELD_AMOUNT(struct kern_occupancy_row, max_dynamic_smem),
	JSON_FIELD_OPT(struct kern_occupancy_row, optin),
	JSON_FIELD_IN(struct kern_occupancy_row, carveout, -1, INT_MAX),
	JSON_FIELD_IN(struct kern_occupancy_row, blocks_per_sm, 0, INT_MAX),
};

/* The document's own keys (the rest of its head is report.c's). */
static const struct json_field document_fields[] = {
	JSON_FIELD(struct probe_result, version),
	JSON_FIELD(struct probe_result, date),
	JSON_FIELD_OPT_IN(struct probe_result, seed, 0, 18446744073709549568.0),
	JSON_FIELD_OPT(struct probe_result, quick),
};

void probe_result_json_device(const struct probe_result *r, const char *hwdb_id, cJSON *doc)
{
	const struct kern_device *d = &r->device;
	cJSON *o = cJSON_AddObjectToObject(doc, "device");
	for (size_t i = 0; i < JSON_FIELD_COUNT(device_fields); i++) {
		json_put_fields(o, d, &device_fields[i], 1);
		if (device_fields[i].offset == offsetof(struct kern_device, name)) {
			if (hwdb_id)
				cJSON_AddStringToObject(o, "hwdb_id", hwdb_id);
			else
				cJSON_AddNullToObject(o, "hwdb_id");
		} else if (device_fields[i].offset == offsetof(struct kern_device, sm_count)) {
			probe_json_number(o, "clock_mhz", d->clock_hz / 1e6);
		}
	}
	if (r->nvml)
		json_put_fields(cJSON_AddObjectToObject(o, "nvml"), r, nvml_fields, JSON_FIELD_COUNT(nvml_fields));
	else
		cJSON_AddNullToObject(o, "nvml");
}

static void json_env(cJSON *parent, const struct probe_env *e)
{
	cJSON *o = cJSON_AddObjectToObject(parent, "env");
	json_put_fields(o, e, env_fields, e->samples ? JSON_FIELD_COUNT(env_fields) : 1);
}

void probe_result_json_raw(const struct probe_result *r, cJSON *doc)
{
	cJSON *arr = cJSON_AddArrayToObject(doc, "measurements");
	for (int i = 0; i < r->count; i++) {
		const struct probe_measurement *m = &r->m[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", m->name);
		cJSON_AddBoolToObject(o, "sweep", m->sweep);
		if (m->validation)
			cJSON_AddBoolToObject(o, "validation", true);
		if (m->sustained) {
			cJSON_AddBoolToObject(o, "sustained", true);
			probe_json_number(o, "at_s", m->at_s);
		}
		cJSON_AddBoolToObject(o, "ok", m->ok);
		cJSON_AddBoolToObject(o, "unsupported", m->unsupported);
		if (m->error[0])
			cJSON_AddStringToObject(o, "error", m->error);
		cJSON_AddStringToObject(o, "method", m->method);
		cJSON_AddNumberToObject(o, "repeats", m->repeats);
		cJSON *s = cJSON_AddArrayToObject(o, "seconds");
		for (int k = 0; k < m->repeats; k++)
			cJSON_AddItemToArray(s, cJSON_CreateNumber(m->seconds[k]));
		json_put_fields(o, m, measurement_fields, JSON_FIELD_COUNT(measurement_fields));
		json_env(o, &m->env);
		cJSON_AddItemToArray(arr, o);
	}
	cJSON *occ = cJSON_AddArrayToObject(doc, "occupancy");
	for (int i = 0; i < r->occupancy_count; i++) {
		cJSON *o = cJSON_CreateObject();
		json_put_fields(o, &r->occupancy[i], occupancy_fields, JSON_FIELD_COUNT(occupancy_fields));
		cJSON_AddItemToArray(occ, o);
	}
	cJSON *notes = cJSON_AddArrayToObject(doc, "notes");
	for (int i = 0; i < r->note_count; i++)
		cJSON_AddItemToArray(notes, cJSON_CreateString(r->notes[i]));
}

/* ---- reading back ---- */

/* The first problem found, kept: reading stops at it. */
struct reader {
	char *err;
	size_t err_len;
	int failed;
};

static void read_rows(struct reader *rd, const cJSON *o, const char *where, void *dst, const struct json_field *rows,
		      size_t count)
{
	if (!rd->failed && json_get_fields(o, where, dst, rows, count, rd->err, rd->err_len) != 0)
		rd->failed = 1;
}

static void fail(struct reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct reader *rd, const char *fmt, ...)
{
	if (rd->failed)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rd->err, rd->err_len, fmt, ap);
	va_end(ap);
	rd->failed = 1;
}

static int id_from_name(const char *name)
{
	for (int i = 0; i < KERN_COUNT; i++)
		if (strcmp(kern_id_name((enum kern_id)i), name) == 0)
			return i;
	return -1;
}

static void read_device(struct reader *rd, const cJSON *doc, struct probe_result *r)
{
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(doc, "device");
	if (!d) {
		fail(rd, "missing key 'device' in the document");
		return;
	}
	read_rows(rd, d, "device", &r->device, device_fields, JSON_FIELD_COUNT(device_fields));
	const cJSON *nv = cJSON_GetObjectItemCaseSensitive(d, "nvml");
	if (cJSON_IsObject(nv)) {
		r->nvml = true;
		read_rows(rd, nv, "device.nvml", r, nvml_fields, JSON_FIELD_COUNT(nvml_fields));
	}
}

/* seconds: at most KERN_MAX_REPEATS positive, normal times (a denormal,
 * 1e-320 s, turns any rate into inf). */
static void read_seconds(struct reader *rd, const cJSON *item, const char *where, struct probe_measurement *m)
{
	const cJSON *secs = cJSON_GetObjectItemCaseSensitive(item, "seconds");
	if (!secs)
		fail(rd, "missing key 'seconds' in %s", where);
	int n = 0;
	const cJSON *s;
	cJSON_ArrayForEach (s, secs) {
		if (n >= KERN_MAX_REPEATS || !cJSON_IsNumber(s)) {
			fail(rd, "%s: 'seconds' must be at most %d numbers", where, KERN_MAX_REPEATS);
			break;
		}
		if (!(isfinite(s->valuedouble) && s->valuedouble >= DBL_MIN)) {
			fail(rd, "%s: 'seconds' must be positive, finite times, not %g", where, s->valuedouble);
			break;
		}
		m->seconds[n++] = s->valuedouble;
	}
	m->repeats = n;
}

static void read_measurement(struct reader *rd, const cJSON *item, const char *where, struct probe_measurement *m)
{
	static const struct json_field name_field[] = { JSON_FIELD(struct probe_measurement, name) };
	/* Flags read true only from true; error only from a string. */
	static const struct json_field head_fields[] = {
		JSON_FIELD_OPT(struct probe_measurement, sweep),
		JSON_FIELD_OPT(struct probe_measurement, validation),
		JSON_FIELD_OPT(struct probe_measurement, sustained),
		JSON_FIELD_OPT(struct probe_measurement, at_s),
		JSON_FIELD_OPT(struct probe_measurement, ok),
		JSON_FIELD_OPT(struct probe_measurement, unsupported),
		JSON_FIELD_OPT(struct probe_measurement, error),
		JSON_FIELD(struct probe_measurement, method),
	};
	read_rows(rd, item, where, m, name_field, 1);
	int id = id_from_name(m->name);
	if (id < 0) {
		fail(rd, "%s: unknown measurement '%s'", where, m->name);
		return;
	}
	m->id = (enum kern_id)id;
	read_rows(rd, item, where, m, head_fields, JSON_FIELD_COUNT(head_fields));
	read_seconds(rd, item, where, m);
	read_rows(rd, item, where, m, measurement_fields, JSON_FIELD_COUNT(measurement_fields));
	const cJSON *env = cJSON_GetObjectItemCaseSensitive(item, "env");
	if (cJSON_IsObject(env))
		read_rows(rd, env, where, &m->env, env_fields, JSON_FIELD_COUNT(env_fields));
	if (m->ok && m->repeats < 1)
		fail(rd, "%s: a successful measurement needs at least one time in 'seconds'", where);
	probe_measurement_derive(m);
	if (!isfinite(m->rate))
		fail(rd, "%s: its work and seconds give a rate out of range", where);
}

static void read_measurements(struct reader *rd, const cJSON *doc, struct probe_result *r)
{
	const cJSON *ms = cJSON_GetObjectItemCaseSensitive(doc, "measurements");
	if (!ms)
		fail(rd, "missing key 'measurements' in the document");
	const cJSON *item;
	cJSON_ArrayForEach (item, ms) {
		if (rd->failed)
			break;
		if (r->count >= PROBE_MAX_MEASUREMENTS) {
			fail(rd, "more than %d measurements", PROBE_MAX_MEASUREMENTS);
			break;
		}
		char where[64];
		snprintf(where, sizeof where, "measurements[%d]", r->count);
		read_measurement(rd, item, where, &r->m[r->count]);
		r->count++;
	}
}

/* Occupancy rows past PROBE_MAX_OCCUPANCY are left out. */
static void read_occupancy(struct reader *rd, const cJSON *doc, struct probe_result *r)
{
	const cJSON *item;
	cJSON_ArrayForEach (item, cJSON_GetObjectItemCaseSensitive(doc, "occupancy")) {
		if (rd->failed || r->occupancy_count >= PROBE_MAX_OCCUPANCY)
			break;
		char where[64];
		snprintf(where, sizeof where, "occupancy[%d]", r->occupancy_count);
		read_rows(rd, item, where, &r->occupancy[r->occupancy_count], occupancy_fields,
			  JSON_FIELD_COUNT(occupancy_fields));
		r->occupancy_count++;
	}
}

/* The text parsed, strictly (no control byte, no key twice), or NULL with err. */
static cJSON *parse_document(const char *text, size_t len, char *err, size_t err_len)
{
	size_t bad;
	if (hwdb_json_bad_byte(text, len, &bad)) {
		int line = 1;
		for (size_t i = 0; i < bad; i++)
			line += text[i] == '\n';
		snprintf(err, err_len, "line %d: not valid JSON: control byte 0x%02x", line, (unsigned char)text[bad]);
		return NULL;
	}
	cJSON *doc = cJSON_ParseWithLength(text, len);
	if (!doc) {
		const char *at = cJSON_GetErrorPtr();
		int line = 1;
		for (const char *c = text; at && c < at && c < text + len; c++)
			line += *c == '\n';
		snprintf(err, err_len, "line %d: not valid JSON", line);
		return NULL;
	}
	char dup_path[200];
	if (hwdb_json_duplicate(doc, dup_path, sizeof dup_path)) {
		snprintf(err, err_len, "'%s' is given twice", dup_path);
		cJSON_Delete(doc);
		return NULL;
	}
	const cJSON *tool = cJSON_GetObjectItemCaseSensitive(doc, "tool");
	if (!cJSON_IsString(tool) || strcmp(tool->valuestring, "ridge-probe") != 0) {
		snprintf(err, err_len, "not a ridge-probe --json document (no \"tool\": \"ridge-probe\")");
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

int probe_result_from_json(const char *text, size_t len, struct probe_result *r, char *err, size_t err_len)
{
	memset(r, 0, sizeof *r);
	cJSON *doc = parse_document(text, len, err, err_len);
	if (!doc)
		return -1;
	struct reader rd = { err, err_len, 0 };
	read_rows(&rd, doc, "the document", r, document_fields, JSON_FIELD_COUNT(document_fields));
	read_device(&rd, doc, r);
	read_measurements(&rd, doc, r);
	read_occupancy(&rd, doc, r);
	const cJSON *item;
	cJSON_ArrayForEach (item, cJSON_GetObjectItemCaseSensitive(doc, "notes")) {
		if (cJSON_IsString(item))
			probe_note(r, "%s", item->valuestring);
	}
	cJSON_Delete(doc);
	return rd.failed ? -1 : 0;
}
