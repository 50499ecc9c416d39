/* Adding numbers to a JSON result (cJSON). */
#ifndef RIDGE_UTIL_JSON_OUT_H
#define RIDGE_UTIL_JSON_OUT_H

#include <cjson/cJSON.h>

/* Every number a result shows goes through here. Adds value; one that is
 * not finite (an overflow: --price 1e308 x hours) is added as null and its
 * key remembered, and calc_run refuses the result, naming the input. */
cJSON *json_number(cJSON *object, const char *key, double value);
/* key: [pair[0], pair[1]] (a range), each checked as json_number checks one. */
cJSON *json_number_pair(cJSON *object, const char *key, const double pair[2]);
/* num / den, or null ("none": shown so, never nan) when den is 0: a ratio
 * that does not exist, not an error. */
cJSON *json_ratio(cJSON *object, const char *key, double num, double den);
/* The key of the first non-finite number added since the last call, or
 * NULL; resets. */
const char *json_take_nonfinite(void);

#endif
