/* JSON numbers for results: a value that is not finite becomes null, and
 * the first such key is remembered so that the calculator can refuse the
 * result naming the input that overflowed it. */
#include "json_out.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The first result that was not finite since json_take_nonfinite. */
static char nonfinite_key[64];

cJSON *json_number(cJSON *object, const char *key, double value)
{
	if (!isfinite(value)) {
		if (!nonfinite_key[0])
			snprintf(nonfinite_key, sizeof nonfinite_key, "%s", key);
		return cJSON_AddNullToObject(object, key);
	}
	return cJSON_AddNumberToObject(object, key, value);
}

cJSON *json_number_pair(cJSON *object, const char *key, const double pair[2])
{
	cJSON *array = cJSON_AddArrayToObject(object, key);
	for (int i = 0; array && i < 2; i++) {
		if (!isfinite(pair[i]) && !nonfinite_key[0])
			snprintf(nonfinite_key, sizeof nonfinite_key, "%s", key);
		cJSON_AddItemToArray(array, isfinite(pair[i]) ? cJSON_CreateNumber(pair[i]) : cJSON_CreateNull());
	}
	return array;
}

cJSON *json_ratio(cJSON *object, const char *key, double num, double den)
{
	if (den == 0)
		return cJSON_AddNullToObject(object, key); /* "none" */
	return json_number(object, key, num / den);
}

const char *json_take_nonfinite(void)
{
	static char taken[sizeof nonfinite_key];
	if (!nonfinite_key[0])
		return NULL;
	memcpy(taken, nonfinite_key, sizeof taken);
	nonfinite_key[0] = '\0';
	return taken;
}
