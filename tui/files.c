/* Files the explorer reads on the state's request: model configs for the
 * alignment panel, through the same reader as `ridge align --model`; and the
 * one line of a status the status line shows. */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "model_config.h"
#include "tui.h"

void tui_status_text(const struct app_status *st, char *buf, size_t len)
{
	const struct app_msg *m = app_status_first_error(st);
	if (m)
		app_msg_format(m, buf, len);
	else if (len)
		buf[0] = '\0';
}

int tui_load_model_config(struct tui_state *s, const char *path, char *err, size_t err_len)
{
	struct app_model_config config;
	struct app_status st;
	app_status_init(&st);
	if (app_model_config_load(path, &config, &st) != 0) {
		tui_status_text(&st, err, err_len);
		if (!err[0])
			snprintf(err, err_len, "cannot read the model config");
		return -1;
	}
	s->model_config.loaded = true;
	snprintf(s->model_config.path, sizeof s->model_config.path, "%s", path);
	s->model_config.config = config;
	return 0;
}
