/* ridge fleet's reader (fleet_read.h). */
#include "fleet_read.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "json_check.h"
#include "read_limits.h"

/* ---- the top level, scanned without a parse tree ----
 *
 * Hand-written because cJSON (the JSON library here) parses a whole document
 * into a tree and has no way to skip a member: at its ~230 MB/s the raw times
 * and the occupancy table of 10,000 results (mostly what a result holds)
 * would take the whole time budget of the fleet view. The scan finds each
 * top-level member's extent, checking strings (closed, no control bytes) and
 * brackets (balanced, matched, at most READ_MAX_FLEET_NESTING deep); each
 * member the fleet reads is then parsed by cJSON, strictly. */

#define TOP_MAX_MEMBERS 64

struct top_member {
	const char *key; /* into the text, unterminated */
	size_t key_len;
	const char *value;
	size_t value_len;
};

/* The bytes the scan stops at. Inside a bracketed value the scan looks only
 * at strings and brackets (numbers, commas and colons there are cJSON's to
 * check when a member is parsed, and nobody's in a member skipped): most of
 * a result is skipped, so this loop is most of the time a large fleet
 * takes. GNU range designators (GCC, Clang). */
enum { B_PLAIN, B_SPACE, B_SCALAR, B_QUOTE, B_OPEN, B_CLOSE, B_CONTROL };
static const unsigned char byte_class[256] = {
	[0 ... 0x08] = B_CONTROL,
	[0x0b ... 0x0c] = B_CONTROL,
	[0x0e ... 0x1f] = B_CONTROL,
	[' '] = B_SPACE,
	['\t'] = B_SPACE,
	['\n'] = B_SPACE,
	['\r'] = B_SPACE,
	['0' ... '9'] = B_SCALAR,
	['a' ... 'z'] = B_SCALAR,
	['A' ... 'Z'] = B_SCALAR,
	['-'] = B_SCALAR,
	['+'] = B_SCALAR,
	['.'] = B_SCALAR,
	['"'] = B_QUOTE,
	['{'] = B_OPEN,
	['['] = B_OPEN,
	['}'] = B_CLOSE,
	[']'] = B_CLOSE,
};
/* Inside brackets: stop at strings, brackets and control bytes. */
static const bool bracket_stop[256] = {
	[0 ... 0x08] = true, [0x0b ... 0x0c] = true, [0x0e ... 0x1f] = true, ['"'] = true,
	['{'] = true,        ['['] = true,           ['}'] = true,           [']'] = true,
};
/* Inside a string: stop at its end, an escape or a control byte. */
static const bool string_stop[256] = { [0 ... 0x1f] = true, ['"'] = true, ['\\'] = true };

static size_t skip_space(const char *t, size_t i, size_t len)
{
	while (i < len && byte_class[(unsigned char)t[i]] == B_SPACE)
		i++;
	return i;
}

/* t[*i] is '"': moves *i past the closing quote. */
static int skip_string(const char *t, size_t len, size_t *i, char *why, size_t why_len)
{
	size_t j = *i + 1;
	for (;;) {
		while (j < len && !string_stop[(unsigned char)t[j]])
			j++;
		if (j >= len)
			return app_fail_text(why, why_len, "a string that does not end (the file is cut short?)");
		unsigned char c = (unsigned char)t[j];
		if (c == '"') {
			*i = j + 1;
			return 0;
		}
		if (c < 0x20)
			return app_fail_text(why, why_len, "a control byte (0x%02x) in a string at byte %zu", c, j);
		j += 2; /* an escape: the byte after the backslash is taken as it is */
	}
}

/* t[*i] opens an object or a list: moves *i past its closing bracket. */
static int skip_brackets(const char *t, size_t len, size_t *i, char *why, size_t why_len)
{
	char open[READ_MAX_FLEET_NESTING];
	int depth = 0;
	size_t j = *i;
	do {
		while (j < len && !bracket_stop[(unsigned char)t[j]])
			j++;
		if (j >= len)
			return app_fail_text(why, why_len, "the document ends inside a value (the file is cut short?)");
		char c = t[j];
		switch (byte_class[(unsigned char)c]) {
		case B_QUOTE:
			if (skip_string(t, len, &j, why, why_len) != 0)
				return -1;
			break;
		case B_OPEN:
			if (depth == READ_MAX_FLEET_NESTING)
				return app_fail_text(why, why_len, "nested more than %d deep at byte %zu",
						     READ_MAX_FLEET_NESTING, j);
			open[depth++] = c;
			j++;
			break;
		case B_CLOSE:
			if (open[depth - 1] != (c == '}' ? '{' : '['))
				return app_fail_text(why, why_len, "a '%c' that closes nothing at byte %zu", c, j);
			depth--;
			j++;
			break;
		default:
			return app_fail_text(why, why_len, "a control byte (0x%02x) at byte %zu: not JSON",
					     (unsigned char)c, j);
		}
	} while (depth > 0);
	*i = j;
	return 0;
}

/* Moves *i (at a value) past it: a string, a scalar, or a bracketed whole. */
static int skip_value(const char *t, size_t len, size_t *i, char *why, size_t why_len)
{
	size_t j = *i;
	if (j >= len)
		return app_fail_text(why, why_len, "the document ends where a value belongs (the file is cut short?)");
	switch (byte_class[(unsigned char)t[j]]) {
	case B_QUOTE:
		return skip_string(t, len, i, why, why_len);
	case B_OPEN:
		return skip_brackets(t, len, i, why, why_len);
	case B_SCALAR:
		while (j < len && byte_class[(unsigned char)t[j]] == B_SCALAR)
			j++;
		*i = j;
		return 0;
	case B_CONTROL:
		return app_fail_text(why, why_len, "a control byte (0x%02x) at byte %zu: not JSON", (unsigned char)t[j],
				     j);
	default:
		return app_fail_text(why, why_len, "'%c' is not JSON at byte %zu", t[j], j);
	}
}

/* The members of the top-level object of text. */
static int scan_top(const char *t, size_t len, struct top_member *members, int *count, char *why, size_t why_len)
{
	*count = 0;
	size_t i = skip_space(t, 0, len);
	if (i >= len || t[i] != '{')
		return app_fail_text(why, why_len, "not a JSON object");
	i = skip_space(t, i + 1, len);
	if (i < len && t[i] == '}')
		return app_fail_text(why, why_len, "an empty object, not a ridge-probe result");
	for (;;) {
		if (i >= len || t[i] != '"')
			return app_fail_text(why, why_len, "a key must follow at byte %zu", i);
		size_t key_start = i + 1;
		if (skip_string(t, len, &i, why, why_len) != 0)
			return -1;
		if (*count == TOP_MAX_MEMBERS)
			return app_fail_text(why, why_len, "more than %d top-level keys: not a ridge-probe result",
					     TOP_MAX_MEMBERS);
		struct top_member *m = &members[(*count)++];
		m->key = t + key_start;
		m->key_len = i - 1 - key_start;
		for (int k = 0; k < *count - 1; k++)
			if (members[k].key_len == m->key_len && memcmp(members[k].key, m->key, m->key_len) == 0)
				return app_fail_text(why, why_len, "the key '%.*s' is given twice", (int)m->key_len,
						     m->key);
		i = skip_space(t, i, len);
		if (i >= len || t[i] != ':')
			return app_fail_text(why, why_len, "':' must follow the key '%.*s'", (int)m->key_len, m->key);
		i = skip_space(t, i + 1, len);
		m->value = t + i;
		if (skip_value(t, len, &i, why, why_len) != 0)
			return -1;
		m->value_len = (size_t)(t + i - m->value);
		i = skip_space(t, i, len);
		if (i < len && t[i] == ',') {
			i = skip_space(t, i + 1, len);
			continue;
		}
		if (i < len && t[i] == '}')
			break;
		return app_fail_text(why, why_len, "',' or '}' must follow at byte %zu (the file is cut short?)", i);
	}
	i = skip_space(t, i + 1, len);
	if (i != len)
		return app_fail_text(why, why_len, "text after the document at byte %zu", i);
	return 0;
}

static const struct top_member *top_find(const struct top_member *members, int count, const char *key)
{
	size_t n = strlen(key);
	for (int i = 0; i < count; i++)
		if (members[i].key_len == n && memcmp(members[i].key, key, n) == 0)
			return &members[i];
	return NULL;
}

/* The member key parsed by cJSON (strict: the whole value, no key twice);
 * NULL with why when absent (and required) or malformed. */
static cJSON *top_parse(const struct top_member *members, int count, const char *key, bool required, char *why,
			size_t why_len)
{
	const struct top_member *m = top_find(members, count, key);
	if (!m) {
		if (required)
			app_fail_text(why, why_len, "no \"%s\": not a ridge-probe result", key);
		return NULL;
	}
	const char *end = NULL;
	cJSON *value = cJSON_ParseWithLengthOpts(m->value, m->value_len, &end, 0);
	if (!value || end != m->value + m->value_len) {
		cJSON_Delete(value);
		app_fail_text(why, why_len, "\"%s\" is not valid JSON", key);
		return NULL;
	}
	char path[200];
	const char *twice = hwdb_json_duplicate(value, path, sizeof path);
	if (twice) {
		app_fail_text(why, why_len, "the key '%s' is given twice in \"%s\" (%s)", twice, key, path);
		cJSON_Delete(value);
		return NULL;
	}
	return value;
}

/* ---- the numbers of one result ---- */

int fleet_metric_find(const struct fleet_run *run, const char *name)
{
	for (int i = 0; i < run->metric_count; i++)
		if (strcmp(run->metrics[i].name, name) == 0)
			return i;
	return -1;
}

int fleet_metric_register(struct fleet_run *run, const char *name, const char *unit, enum ridge_direction direction,
			  char *why, size_t why_len)
{
	/* Every result lists its ceilings in one order: try the one after the last first. */
	int i = run->metric_hint < run->metric_count && strcmp(run->metrics[run->metric_hint].name, name) == 0
			? run->metric_hint
			: fleet_metric_find(run, name);
	run->metric_hint = i + 1;
	if (i >= 0) {
		if (strcmp(run->metrics[i].unit, unit) != 0)
			return app_fail_text(why, why_len, "'%s' is in '%s' here but in '%s' in the files before", name,
					     unit, run->metrics[i].unit);
		return i;
	}
	if (run->metric_count == FLEET_MAX_METRICS)
		return app_fail_text(why, why_len, "more than %d distinct ceilings in the directory",
				     FLEET_MAX_METRICS);
	if (strlen(name) >= FLEET_NAME || strlen(unit) >= sizeof run->metrics[0].unit)
		return app_fail_text(why, why_len, "the ceiling name '%.40s...' or its unit is too long", name);
	struct fleet_metric *m = &run->metrics[run->metric_count];
	snprintf(m->name, sizeof m->name, "%s", name);
	snprintf(m->unit, sizeof m->unit, "%s", unit);
	m->direction = direction;
	run->metric_hint = run->metric_count + 1;
	return run->metric_count++;
}

static int set_value(struct fleet_run *run, struct fleet_gpu *gpu, const char *name, const char *unit,
		     enum ridge_direction direction, double value, double spec, char *why, size_t why_len)
{
	if (!isfinite(value) || value < 0)
		return app_fail_text(why, why_len, "'%s' is not a finite number >= 0", name);
	int i = fleet_metric_register(run, name, unit, direction, why, why_len);
	if (i < 0)
		return -1;
	if (!isnan(gpu->value[i]))
		return app_fail_text(why, why_len, "the ceiling '%s' is given twice", name);
	gpu->value[i] = value;
	gpu->spec[i] = spec;
	gpu->metric_order[gpu->metric_order_count++] = (unsigned char)i;
	return 0;
}

/* A number member: its value, NaN when absent or null; -1 when of another type. */
static int number_member(const cJSON *o, const char *key, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	*out = NAN;
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsNumber(v))
		return -1;
	*out = v->valuedouble;
	return 0;
}

static int text_member(const cJSON *o, const char *key, char *out, size_t out_len, bool required, char *why,
		       size_t why_len)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	out[0] = '\0';
	if (cJSON_IsString(v) && strlen(v->valuestring) < out_len) {
		snprintf(out, out_len, "%s", v->valuestring);
		return 0;
	}
	if (!required && (!v || cJSON_IsNull(v)))
		return 0;
	return app_fail_text(why, why_len, "\"%s\" must be a text of at most %zu bytes", key, out_len - 1);
}

/* Each ceiling's measured rate, and the SM clock (median) and power (highest)
 * the probe read while they ran. */
static int read_ceilings(const cJSON *ceilings, struct fleet_run *run, struct fleet_gpu *gpu, char *why, size_t why_len)
{
	if (!cJSON_IsArray(ceilings))
		return app_fail_text(why, why_len, "\"ceilings\" must be a list");
	double clocks[FLEET_MAX_METRICS], power = NAN;
	int clock_count = 0, index = 0;
	const cJSON *c;
	cJSON_ArrayForEach (c, ceilings) {
		char name[FLEET_NAME], unit[16];
		double measured, spec, clock_mhz, power_w;
		if (!cJSON_IsObject(c) || text_member(c, "name", name, sizeof name, true, why, why_len) ||
		    text_member(c, "unit", unit, sizeof unit, true, why, why_len) ||
		    number_member(c, "measured", &measured) || number_member(c, "spec", &spec) ||
		    number_member(c, "clock_mhz", &clock_mhz) || number_member(c, "power_w", &power_w))
			return app_fail_text(why, why_len, "ceilings[%d] is not a ceiling (name, unit, measured, spec)",
					     index);
		index++;
		if (isnan(measured))
			continue; /* not run on this GPU (unsupported, failed) */
		if (set_value(run, gpu, name, unit, RIDGE_HIGHER_IS_BETTER, measured, spec, why, why_len) != 0)
			return -1;
		if (isfinite(clock_mhz) && clock_mhz > 0 && clock_count < FLEET_MAX_METRICS)
			clocks[clock_count++] = clock_mhz * 1e6;
		if (isfinite(power_w) && (isnan(power) || power_w > power))
			power = power_w;
	}
	if (clock_count && set_value(run, gpu, "sm_clock", "Hz", RIDGE_HIGHER_IS_BETTER,
				     ridge_median(clocks, (size_t)clock_count), NAN, why, why_len) != 0)
		return -1;
	if (!isnan(power) && set_value(run, gpu, "power", "W", RIDGE_NO_DIRECTION, power, NAN, why, why_len) != 0)
		return -1;
	return 0;
}

static int read_launch(const cJSON *launch, struct fleet_run *run, struct fleet_gpu *gpu, char *why, size_t why_len)
{
	static const struct {
		const char *key, *metric;
	} rows[] = { { "launch_us", "launch" }, { "graph_node_us", "graph_node" } };
	if (!launch)
		return 0;
	if (!cJSON_IsObject(launch))
		return app_fail_text(why, why_len, "\"launch\" must be an object");
	for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
		double us;
		if (number_member(launch, rows[r].key, &us) != 0)
			return app_fail_text(why, why_len, "launch.%s must be a number", rows[r].key);
		if (!isnan(us) &&
		    set_value(run, gpu, rows[r].metric, "s", RIDGE_LOWER_IS_BETTER, us * 1e-6, NAN, why, why_len) != 0)
			return -1;
	}
	return 0;
}

/* The pointer chases' first point of each level (the TLB points repeat a level). */
static int read_latency(const cJSON *latency, struct fleet_run *run, struct fleet_gpu *gpu, char *why, size_t why_len)
{
	static const struct {
		const char *level, *metric;
	} rows[] = { { "L1", "latency_l1" },
		     { "shared memory", "latency_smem" },
		     { "L2", "latency_l2" },
		     { "HBM", "latency_hbm" } };
	if (!latency)
		return 0;
	const cJSON *points = cJSON_GetObjectItemCaseSensitive(latency, "points");
	if (!cJSON_IsObject(latency) || (points && !cJSON_IsArray(points)))
		return app_fail_text(why, why_len, "\"latency\" must be an object with a list of points");
	for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
		const cJSON *p;
		cJSON_ArrayForEach (p, points) {
			const char *level = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "level"));
			double seconds;
			if (!level || strcmp(level, rows[r].level) != 0)
				continue;
			if (number_member(p, "seconds", &seconds) != 0)
				return app_fail_text(why, why_len, "a latency point's seconds must be a number");
			if (!isnan(seconds) && set_value(run, gpu, rows[r].metric, "s", RIDGE_LOWER_IS_BETTER, seconds,
							 NAN, why, why_len) != 0)
				return -1;
			break;
		}
	}
	return 0;
}

/* "node007-gpu3.json": host node007, GPU 3 (what ridge-probe --out-dir names). */
static void placement_from_name(const char *file, struct fleet_gpu *gpu)
{
	const char *dash = strrchr(file, '-');
	int index, used = 0;
	size_t host_len = dash ? (size_t)(dash - file) : 0;
	if (dash && host_len > 0 && host_len < sizeof gpu->host && sscanf(dash, "-gpu%d.json%n", &index, &used) == 1 &&
	    dash[used] == '\0' && index >= 0) {
		memcpy(gpu->host, file, host_len);
		gpu->host[host_len] = '\0';
		gpu->gpu_index = index;
		return;
	}
	size_t stem = strlen(file) > 5 ? strlen(file) - 5 : strlen(file); /* without ".json" */
	snprintf(gpu->host, sizeof gpu->host, "%.*s", (int)(stem < sizeof gpu->host ? stem : sizeof gpu->host - 1),
		 file);
	gpu->gpu_index = -1;
}

static int read_identity(const cJSON *tool, const cJSON *version, const cJSON *device, const cJSON *placement,
			 const char *file, struct fleet_gpu *gpu, char *why, size_t why_len)
{
	const char *tool_name = cJSON_GetStringValue(tool);
	if (!tool_name || strncmp(tool_name, "ridge-probe", 11) != 0)
		return app_fail_text(why, why_len, "\"tool\" is not \"ridge-probe\": not a ridge-probe result");
	if (!cJSON_IsString(version) || strlen(version->valuestring) >= sizeof gpu->version)
		return app_fail_text(why, why_len, "\"version\" must be a short text");
	snprintf(gpu->version, sizeof gpu->version, "%s", version->valuestring);
	if (!cJSON_IsObject(device) ||
	    text_member(device, "name", gpu->device_name, sizeof gpu->device_name, true, why, why_len) ||
	    text_member(device, "hwdb_id", gpu->model, sizeof gpu->model, false, why, why_len))
		return app_fail_text(why, why_len, "\"device\" must be an object with a \"name\" (and \"hwdb_id\")");
	gpu->known_model = gpu->model[0] != '\0';
	if (!gpu->known_model)
		snprintf(gpu->model, sizeof gpu->model, "%s", gpu->device_name);
	placement_from_name(file, gpu);
	if (!placement)
		return 0;
	double index;
	if (!cJSON_IsObject(placement) ||
	    text_member(placement, "uuid", gpu->uuid, sizeof gpu->uuid, false, why, why_len) ||
	    number_member(placement, "gpu_index", &index) != 0 || (!isnan(index) && (index < 0 || index > 1e6)))
		return app_fail_text(why, why_len, "\"placement\" must be an object with host, gpu_index and uuid");
	char host[FLEET_NAME];
	if (text_member(placement, "host", host, sizeof host, false, why, why_len) != 0)
		return -1;
	if (host[0])
		snprintf(gpu->host, sizeof gpu->host, "%s", host);
	if (!isnan(index))
		gpu->gpu_index = (int)index;
	return 0;
}

int fleet_result_parse(const char *text, size_t len, const char *file, struct fleet_run *run, struct fleet_gpu *gpu,
		       char *why, size_t why_len)
{
	memset(gpu, 0, sizeof *gpu);
	snprintf(gpu->file, sizeof gpu->file, "%s", file);
	for (int i = 0; i < FLEET_MAX_METRICS; i++)
		gpu->value[i] = gpu->spec[i] = NAN;
	/* Every byte is checked by the scan: a control byte in a string or
	 * between values is refused there (what hwdb_json_bad_byte finds). */
	struct top_member members[TOP_MAX_MEMBERS];
	int count;
	if (scan_top(text, len, members, &count, why, why_len) != 0)
		return -1;
	static const char *const keys[] = { "tool", "version", "device", "placement", "ceilings", "launch", "latency" };
	enum { TOOL, VERSION, DEVICE, PLACEMENT, CEILINGS, LAUNCH, LATENCY, KEY_COUNT };
	cJSON *parts[KEY_COUNT] = { NULL };
	int rc = 0;
	for (int k = 0; k < KEY_COUNT && rc == 0; k++) {
		bool required = k == TOOL || k == VERSION || k == DEVICE || k == CEILINGS;
		parts[k] = top_parse(members, count, keys[k], required, why, why_len);
		if (!parts[k] && (required || top_find(members, count, keys[k])))
			rc = -1;
	}
	if (rc == 0)
		rc = read_identity(parts[TOOL], parts[VERSION], parts[DEVICE], parts[PLACEMENT], file, gpu, why,
				   why_len);
	if (rc == 0)
		rc = read_ceilings(parts[CEILINGS], run, gpu, why, why_len);
	if (rc == 0)
		rc = read_launch(parts[LAUNCH], run, gpu, why, why_len);
	if (rc == 0)
		rc = read_latency(parts[LATENCY], run, gpu, why, why_len);
	for (int k = 0; k < KEY_COUNT; k++)
		cJSON_Delete(parts[k]);
	if (rc == 0) {
		bool any = false;
		for (int i = 0; i < run->metric_count && !any; i++)
			any = !isnan(gpu->value[i]);
		if (!any)
			rc = app_fail_text(why, why_len, "no measured ceiling");
	}
	return rc;
}
