/* ridge plan's shared flag readers (plan_lists.h). */
#include "plan_lists.h"

#include <string.h>

#include "cost_model_calc.h"

int plan_split_list(const char *text, char out[][RIDGE_TEXT], int max)
{
	int n = 0;
	const char *p = text;
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == 0 || len >= RIDGE_TEXT || n >= max)
			return -1;
		memcpy(out[n], p, len);
		out[n][len] = '\0';
		n++;
		if (!comma)
			break;
		p = comma + 1;
		if (!*p)
			return -1;
	}
	return n;
}

int plan_read_storage(const struct param_values *v, int param, const char *name, struct ridge_storage *out,
		      struct app_status *st)
{
	if (!cost_storage_bytes(name, &out->bytes)) {
		app_error_flag(st, params_where(v, param), "unknown storage type '%s' (known: %s)", name,
			       cost_storage_list());
		return -1;
	}
	serve_storage_scale(name, &out->scale_bytes, &out->group);
	return 0;
}
