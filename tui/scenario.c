#include "scenario.h"

#include <stdio.h>

int scenario_load(struct tui_state *s, const char *path, char *err, size_t err_len)
{
	(void)s;
	snprintf(err, err_len, "cannot open '%s': scenario files need ridge eval", path);
	return -1;
}

int scenario_save(const struct tui_state *s, const char *path, char *err, size_t err_len)
{
	(void)s;
	snprintf(err, err_len, "cannot save '%s': scenario files need ridge eval", path);
	return -1;
}
