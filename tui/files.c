/* Files the explorer reads on the state's request: model configs for the
 * alignment panel, through the same reader as `ridge align --model`; and the
 * stderr capture that keeps the readers' messages off the screen. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "model_config.h"
#include "tui.h"

void tui_capture_begin(struct tui_capture *c)
{
	fflush(stderr);
	c->file = tmpfile();
	c->saved_fd = c->file ? dup(STDERR_FILENO) : -1;
	if (c->saved_fd >= 0)
		dup2(fileno(c->file), STDERR_FILENO);
}

void tui_capture_end(struct tui_capture *c, char *message, size_t len)
{
	if (message && len)
		message[0] = '\0';
	if (c->saved_fd >= 0) {
		fflush(stderr);
		dup2(c->saved_fd, STDERR_FILENO);
		close(c->saved_fd);
	}
	if (c->file && message && len) {
		char line[1024] = "";
		rewind(c->file);
		if (!fgets(line, sizeof line, c->file))
			line[0] = '\0';
		line[strcspn(line, "\n")] = '\0';
		const char *text = line;
		static const char prefix[] = "ridge: error: ";
		if (strncmp(text, prefix, sizeof prefix - 1) == 0)
			text += sizeof prefix - 1;
		snprintf(message, len, "%s", text);
	}
	if (c->file)
		fclose(c->file);
	c->file = NULL;
	c->saved_fd = -1;
}

int tui_load_model_config(struct tui_state *s, const char *path, char *err, size_t err_len)
{
	struct app_model_config config;
	/* The reader prints its problem: on the screen that would scribble,
	 * so it is caught and handed back as the message. */
	struct tui_capture capture;
	tui_capture_begin(&capture);
	int rc = app_model_config_load(path, &config);
	char message[512];
	tui_capture_end(&capture, message, sizeof message);
	if (rc != 0) {
		snprintf(err, err_len, "%s", message[0] ? message : "cannot read the model config");
		return -1;
	}
	s->model_config.loaded = true;
	snprintf(s->model_config.path, sizeof s->model_config.path, "%s", path);
	s->model_config.config = config;
	return 0;
}
