/* Raw results: derivation, notes, JSON out and back in (see result.h). */
#include "result.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../util/json_check.h"

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

void probe_result_json_device(const struct probe_result *r, const char *hwdb_id, cJSON *doc)
{
	const struct kern_device *d = &r->device;
	cJSON *o = cJSON_AddObjectToObject(doc, "device");
	cJSON_AddStringToObject(o, "name", d->name);
	if (hwdb_id)
		cJSON_AddStringToObject(o, "hwdb_id", hwdb_id);
	else
		cJSON_AddNullToObject(o, "hwdb_id");
	cJSON_AddNumberToObject(o, "sm_count", d->sm_count);
	probe_json_number(o, "clock_mhz", d->clock_hz / 1e6);
	cJSON_AddStringToObject(o, "backend", d->backend);
	cJSON_AddStringToObject(o, "arch", d->arch);
	cJSON_AddNumberToObject(o, "cc_major", d->cc_major);
	cJSON_AddNumberToObject(o, "cc_minor", d->cc_minor);
	cJSON_AddNumberToObject(o, "warp_size", d->warp_size);
	probe_json_number(o, "clock_hz", d->clock_hz);
	probe_json_number(o, "memory_clock_hz", d->memory_clock_hz);
	cJSON_AddNumberToObject(o, "bus_width_bits", d->bus_width_bits);
	probe_json_number(o, "l2_bytes", d->l2_bytes);
	probe_json_number(o, "smem_per_sm", d->smem_per_sm);
	probe_json_number(o, "smem_per_block", d->smem_per_block);
	probe_json_number(o, "smem_per_block_optin", d->smem_per_block_optin);
	probe_json_number(o, "smem_reserved_per_block", d->smem_reserved_per_block);
	cJSON_AddNumberToObject(o, "regs_per_sm", d->regs_per_sm);
	cJSON_AddNumberToObject(o, "regs_per_block", d->regs_per_block);
	cJSON_AddNumberToObject(o, "max_threads_per_sm", d->max_threads_per_sm);
	cJSON_AddNumberToObject(o, "max_threads_per_block", d->max_threads_per_block);
	cJSON_AddNumberToObject(o, "max_blocks_per_sm", d->max_blocks_per_sm);
	probe_json_number(o, "memory_bytes", d->memory_bytes);
	cJSON_AddNumberToObject(o, "driver_api_version", d->driver_version);
	cJSON_AddNumberToObject(o, "runtime_version", d->runtime_version);
	cJSON_AddStringToObject(o, "pci_bus_id", d->pci_bus_id);
	if (r->nvml) {
		cJSON *n = cJSON_AddObjectToObject(o, "nvml");
		cJSON_AddStringToObject(n, "driver", r->driver);
		probe_json_number(n, "max_sm_clock_mhz", r->max_sm_clock_mhz);
		probe_json_number(n, "power_limit_w", r->power_limit_w);
	} else {
		cJSON_AddNullToObject(o, "nvml");
	}
}

static void json_env(cJSON *parent, const struct probe_env *e)
{
	cJSON *o = cJSON_AddObjectToObject(parent, "env");
	cJSON_AddNumberToObject(o, "samples", e->samples);
	if (e->samples) {
		probe_json_number(o, "clock_mhz_median", e->clock_mhz_median);
		probe_json_number(o, "clock_mhz_min", e->clock_mhz_min);
		probe_json_number(o, "clock_mhz_max", e->clock_mhz_max);
		probe_json_number(o, "power_w_median", e->power_w_median);
		probe_json_number(o, "power_w_max", e->power_w_max);
		cJSON_AddNumberToObject(o, "clock_events", (double)e->clock_events);
	}
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
		probe_json_number(o, "work", m->work);
		probe_json_number(o, "bytes", m->bytes);
		cJSON_AddNumberToObject(o, "m", (double)m->m);
		cJSON_AddNumberToObject(o, "n", (double)m->n);
		cJSON_AddNumberToObject(o, "k", (double)m->k);
		probe_json_number(o, "verify_error", m->verify_error);
		probe_json_number(o, "verify_tolerance", m->verify_tolerance);
		json_env(o, &m->env);
		cJSON_AddItemToArray(arr, o);
	}
	cJSON *occ = cJSON_AddArrayToObject(doc, "occupancy");
	for (int i = 0; i < r->occupancy_count; i++) {
		const struct kern_occupancy_row *w = &r->occupancy[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "kernel", w->kernel);
		cJSON_AddNumberToObject(o, "regs", w->regs);
		cJSON_AddNumberToObject(o, "static_smem", w->static_smem);
		cJSON_AddNumberToObject(o, "local_bytes", w->local_bytes);
		cJSON_AddNumberToObject(o, "max_threads", w->max_threads);
		cJSON_AddNumberToObject(o, "binary_version", w->binary_version);
		cJSON_AddNumberToObject(o, "block", w->block);
		cJSON_AddNumberToObject(o, "dynamic_smem", w->dynamic_smem);
		cJSON_AddNumberToObject(o, "max_dynamic_smem", w->max_dynamic_smem);
		cJSON_AddBoolToObject(o, "optin", w->optin);
		cJSON_AddNumberToObject(o, "carveout", w->carveout);
		cJSON_AddNumberToObject(o, "blocks_per_sm", w->blocks_per_sm);
		cJSON_AddItemToArray(occ, o);
	}
	cJSON *notes = cJSON_AddArrayToObject(doc, "notes");
	for (int i = 0; i < r->note_count; i++)
		cJSON_AddItemToArray(notes, cJSON_CreateString(r->notes[i]));
}

/* ---- reading back ---- */

struct reader {
	char *err;
	size_t err_len;
	int failed;
};

static const cJSON *need(struct reader *rd, const cJSON *o, const char *key, const char *where)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v && !rd->failed) {
		snprintf(rd->err, rd->err_len, "missing key '%s' in %s", key, where);
		rd->failed = 1;
	}
	return v;
}

static double num(struct reader *rd, const cJSON *o, const char *key, const char *where)
{
	const cJSON *v = need(rd, o, key, where);
	if (!v)
		return 0;
	if (cJSON_IsNull(v))
		return NAN;
	if (!cJSON_IsNumber(v)) {
		if (!rd->failed) {
			snprintf(rd->err, rd->err_len, "'%s' in %s is not a number", key, where);
			rd->failed = 1;
		}
		return 0;
	}
	return v->valuedouble;
}

/* A measured quantity (a clock, a size, a power): finite and not negative,
 * the rule the YAML loader applies to a hwdb entry's values; null (unknown)
 * stays NaN. */
static double amount(struct reader *rd, double v, const char *key, const char *where)
{
	if (isnan(v) || (isfinite(v) && v >= 0))
		return v;
	if (!rd->failed) {
		snprintf(rd->err, rd->err_len, "'%s' in %s must be a finite number >= 0", key, where);
		rd->failed = 1;
	}
	return 0;
}

static double opt_num(const cJSON *o, const char *key, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static void str(struct reader *rd, const cJSON *o, const char *key, const char *where, char *out, size_t len)
{
	const cJSON *v = need(rd, o, key, where);
	out[0] = '\0';
	if (!v)
		return;
	if (!cJSON_IsString(v)) {
		if (!rd->failed) {
			snprintf(rd->err, rd->err_len, "'%s' in %s is not a string", key, where);
			rd->failed = 1;
		}
		return;
	}
	snprintf(out, len, "%s", v->valuestring);
}

/* A count read into an integer type: outside lo..hi (or null) it is an error
 * in the document, not a float-to-integer conversion with undefined
 * behaviour (found by tests/fuzz/fuzz_probe_replay.c: "regs": 3.9e10). */
static double whole(struct reader *rd, double v, double lo, double hi, const char *key, const char *where)
{
	if (!(v >= lo && v <= hi)) {
		if (!rd->failed) {
			snprintf(rd->err, rd->err_len, "'%s' in %s is out of range (%.0f..%.0f)", key, where, lo, hi);
			rd->failed = 1;
		}
		return 0;
	}
	return v;
}

static bool flag(const cJSON *o, const char *key)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static int id_from_name(const char *name)
{
	for (int i = 0; i < KERN_COUNT; i++)
		if (strcmp(kern_id_name((enum kern_id)i), name) == 0)
			return i;
	return -1;
}

int probe_result_from_json(const char *text, size_t len, struct probe_result *r, char *err, size_t err_len)
{
	memset(r, 0, sizeof *r);
	size_t bad;
	if (hwdb_json_bad_byte(text, len, &bad)) {
		int line = 1;
		for (size_t i = 0; i < bad; i++)
			line += text[i] == '\n';
		snprintf(err, err_len, "line %d: not valid JSON: control byte 0x%02x", line, (unsigned char)text[bad]);
		return -1;
	}
	cJSON *doc = cJSON_ParseWithLength(text, len);
	if (!doc) {
		const char *at = cJSON_GetErrorPtr();
		int line = 1;
		for (const char *c = text; at && c < at && c < text + len; c++)
			line += *c == '\n';
		snprintf(err, err_len, "line %d: not valid JSON", line);
		return -1;
	}
	char dup_path[200];
	if (hwdb_json_duplicate(doc, dup_path, sizeof dup_path)) {
		snprintf(err, err_len, "'%s' is given twice", dup_path);
		cJSON_Delete(doc);
		return -1;
	}
	struct reader rd = { err, err_len, 0 };
	const cJSON *tool = cJSON_GetObjectItemCaseSensitive(doc, "tool");
	if (!cJSON_IsString(tool) || strcmp(tool->valuestring, "ridge-probe") != 0) {
		snprintf(err, err_len, "not a ridge-probe --json document (no \"tool\": \"ridge-probe\")");
		cJSON_Delete(doc);
		return -1;
	}
	str(&rd, doc, "version", "the document", r->version, sizeof r->version);
	str(&rd, doc, "date", "the document", r->date, sizeof r->date);
	r->seed = (unsigned long long)whole(&rd, opt_num(doc, "seed", 0), 0, 18446744073709549568.0, "seed",
					    "the document");
	r->quick = flag(doc, "quick");

	const cJSON *d = need(&rd, doc, "device", "the document");
	if (d) {
		struct kern_device *k = &r->device;
		str(&rd, d, "name", "device", k->name, sizeof k->name);
		str(&rd, d, "backend", "device", k->backend, sizeof k->backend);
		str(&rd, d, "arch", "device", k->arch, sizeof k->arch);
		k->cc_major = (int)whole(&rd, num(&rd, d, "cc_major", "device"), 0, INT_MAX, "cc_major", "device");
		k->cc_minor = (int)whole(&rd, num(&rd, d, "cc_minor", "device"), 0, INT_MAX, "cc_minor", "device");
		k->sm_count = (int)whole(&rd, num(&rd, d, "sm_count", "device"), 1, INT_MAX, "sm_count", "device");
		k->warp_size = (int)whole(&rd, num(&rd, d, "warp_size", "device"), 1, INT_MAX, "warp_size", "device");
		k->clock_hz = amount(&rd, num(&rd, d, "clock_hz", "device"), "clock_hz", "device");
		k->memory_clock_hz = amount(&rd, num(&rd, d, "memory_clock_hz", "device"), "memory_clock_hz", "device");
		k->bus_width_bits = (int)whole(&rd, num(&rd, d, "bus_width_bits", "device"), 0, INT_MAX,
					       "bus_width_bits", "device");
		k->l2_bytes = amount(&rd, num(&rd, d, "l2_bytes", "device"), "l2_bytes", "device");
		k->smem_per_sm = amount(&rd, num(&rd, d, "smem_per_sm", "device"), "smem_per_sm", "device");
		k->smem_per_block = amount(&rd, num(&rd, d, "smem_per_block", "device"), "smem_per_block", "device");
		k->smem_per_block_optin =
			amount(&rd, num(&rd, d, "smem_per_block_optin", "device"), "smem_per_block_optin", "device");
		k->smem_reserved_per_block = amount(&rd, num(&rd, d, "smem_reserved_per_block", "device"),
						    "smem_reserved_per_block", "device");
		k->regs_per_sm =
			(int)whole(&rd, num(&rd, d, "regs_per_sm", "device"), 0, INT_MAX, "regs_per_sm", "device");
		k->regs_per_block = (int)whole(&rd, num(&rd, d, "regs_per_block", "device"), 0, INT_MAX,
					       "regs_per_block", "device");
		k->max_threads_per_sm = (int)whole(&rd, num(&rd, d, "max_threads_per_sm", "device"), 0, INT_MAX,
						   "max_threads_per_sm", "device");
		k->max_threads_per_block = (int)whole(&rd, num(&rd, d, "max_threads_per_block", "device"), 0, INT_MAX,
						      "max_threads_per_block", "device");
		k->max_blocks_per_sm = (int)whole(&rd, num(&rd, d, "max_blocks_per_sm", "device"), 0, INT_MAX,
						  "max_blocks_per_sm", "device");
		k->memory_bytes = amount(&rd, num(&rd, d, "memory_bytes", "device"), "memory_bytes", "device");
		k->driver_version = (int)whole(&rd, opt_num(d, "driver_api_version", 0), 0, INT_MAX,
					       "driver_api_version", "device");
		k->runtime_version =
			(int)whole(&rd, opt_num(d, "runtime_version", 0), 0, INT_MAX, "runtime_version", "device");
		const cJSON *pci = cJSON_GetObjectItemCaseSensitive(d, "pci_bus_id");
		if (cJSON_IsString(pci))
			snprintf(k->pci_bus_id, sizeof k->pci_bus_id, "%s", pci->valuestring);
		const cJSON *nv = cJSON_GetObjectItemCaseSensitive(d, "nvml");
		if (cJSON_IsObject(nv)) {
			r->nvml = true;
			str(&rd, nv, "driver", "device.nvml", r->driver, sizeof r->driver);
			r->max_sm_clock_mhz = opt_num(nv, "max_sm_clock_mhz", 0);
			r->power_limit_w = opt_num(nv, "power_limit_w", 0);
		}
	}

	const cJSON *ms = need(&rd, doc, "measurements", "the document");
	const cJSON *item;
	cJSON_ArrayForEach (item, ms) {
		if (rd.failed)
			break;
		if (r->count >= PROBE_MAX_MEASUREMENTS) {
			snprintf(err, err_len, "more than %d measurements", PROBE_MAX_MEASUREMENTS);
			rd.failed = 1;
			break;
		}
		struct probe_measurement *m = &r->m[r->count];
		char where[64];
		snprintf(where, sizeof where, "measurements[%d]", r->count);
		str(&rd, item, "name", where, m->name, sizeof m->name);
		int id = id_from_name(m->name);
		if (id < 0 && !rd.failed) {
			snprintf(err, err_len, "%s: unknown measurement '%s'", where, m->name);
			rd.failed = 1;
			break;
		}
		m->id = (enum kern_id)id;
		m->sweep = flag(item, "sweep");
		m->validation = flag(item, "validation");
		m->sustained = flag(item, "sustained");
		m->at_s = opt_num(item, "at_s", 0);
		m->ok = flag(item, "ok");
		m->unsupported = flag(item, "unsupported");
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(item, "error");
		if (cJSON_IsString(e))
			snprintf(m->error, sizeof m->error, "%s", e->valuestring);
		str(&rd, item, "method", where, m->method, sizeof m->method);
		const cJSON *secs = need(&rd, item, "seconds", where);
		int n = 0;
		const cJSON *s;
		cJSON_ArrayForEach (s, secs) {
			if (n >= KERN_MAX_REPEATS || !cJSON_IsNumber(s)) {
				snprintf(err, err_len, "%s: 'seconds' must be at most %d numbers", where,
					 KERN_MAX_REPEATS);
				rd.failed = 1;
				break;
			}
			/* A time is positive and normal: a denormal (1e-320 s) turns any
			 * rate into inf. */
			if (!(isfinite(s->valuedouble) && s->valuedouble >= DBL_MIN)) {
				snprintf(err, err_len, "%s: 'seconds' must be positive, finite times, not %g", where,
					 s->valuedouble);
				rd.failed = 1;
				break;
			}
			m->seconds[n++] = s->valuedouble;
		}
		m->repeats = n;
		m->work = amount(&rd, num(&rd, item, "work", where), "work", where);
		m->bytes = amount(&rd, num(&rd, item, "bytes", where), "bytes", where);
		m->m = (long)whole(&rd, opt_num(item, "m", 0), 0, 9223372036854774784.0, "m", where);
		m->n = (long)whole(&rd, opt_num(item, "n", 0), 0, 9223372036854774784.0, "n", where);
		m->k = (long)whole(&rd, opt_num(item, "k", 0), 0, 9223372036854774784.0, "k", where);
		m->verify_error = num(&rd, item, "verify_error", where); /* -1: not verified */
		m->verify_tolerance = amount(&rd, num(&rd, item, "verify_tolerance", where), "verify_tolerance", where);
		const cJSON *env = cJSON_GetObjectItemCaseSensitive(item, "env");
		if (cJSON_IsObject(env)) {
			m->env.samples = (int)whole(&rd, opt_num(env, "samples", 0), 0, INT_MAX, "samples", where);
			m->env.clock_mhz_median = opt_num(env, "clock_mhz_median", 0);
			m->env.clock_mhz_min = opt_num(env, "clock_mhz_min", 0);
			m->env.clock_mhz_max = opt_num(env, "clock_mhz_max", 0);
			m->env.power_w_median = opt_num(env, "power_w_median", 0);
			m->env.power_w_max = opt_num(env, "power_w_max", 0);
			m->env.clock_events = (unsigned long long)whole(&rd, opt_num(env, "clock_events", 0), 0,
									18446744073709549568.0, "clock_events", where);
		}
		if (m->ok && m->repeats < 1 && !rd.failed) {
			snprintf(err, err_len, "%s: a successful measurement needs at least one time in 'seconds'",
				 where);
			rd.failed = 1;
		}
		probe_measurement_derive(m);
		if (!rd.failed && !isfinite(m->rate)) {
			snprintf(err, err_len, "%s: its work and seconds give a rate out of range", where);
			rd.failed = 1;
		}
		r->count++;
	}

	const cJSON *occ = cJSON_GetObjectItemCaseSensitive(doc, "occupancy");
	cJSON_ArrayForEach (item, occ) {
		if (rd.failed || r->occupancy_count >= PROBE_MAX_OCCUPANCY)
			break;
		struct kern_occupancy_row *w = &r->occupancy[r->occupancy_count];
		char where[64];
		snprintf(where, sizeof where, "occupancy[%d]", r->occupancy_count);
		str(&rd, item, "kernel", where, w->kernel, sizeof w->kernel);
		w->regs = (int)whole(&rd, num(&rd, item, "regs", where), 0, INT_MAX, "regs", where);
		w->static_smem = amount(&rd, num(&rd, item, "static_smem", where), "static_smem", where);
		w->local_bytes = opt_num(item, "local_bytes", 0);
		w->max_threads =
			(int)whole(&rd, num(&rd, item, "max_threads", where), 0, INT_MAX, "max_threads", where);
		w->binary_version =
			(int)whole(&rd, opt_num(item, "binary_version", 0), 0, INT_MAX, "binary_version", where);
		w->block = (int)whole(&rd, num(&rd, item, "block", where), 0, INT_MAX, "block", where);
		w->dynamic_smem = amount(&rd, num(&rd, item, "dynamic_smem", where), "dynamic_smem", where);
		w->max_dynamic_smem = amount(&rd, num(&rd, item, "max_dynamic_smem", where), "max_dynamic_smem", where);
		w->optin = flag(item, "optin");
		w->carveout = (int)whole(&rd, num(&rd, item, "carveout", where), -1, INT_MAX, "carveout", where);
		w->blocks_per_sm =
			(int)whole(&rd, num(&rd, item, "blocks_per_sm", where), 0, INT_MAX, "blocks_per_sm", where);
		r->occupancy_count++;
	}
	const cJSON *notes = cJSON_GetObjectItemCaseSensitive(doc, "notes");
	cJSON_ArrayForEach (item, notes) {
		if (cJSON_IsString(item))
			probe_note(r, "%s", item->valuestring);
	}
	cJSON_Delete(doc);
	return rd.failed ? -1 : 0;
}
