/* Scenario files (the format `ridge eval` reads, examples/README.md): the
 * what-if of the explorer read from and written to one. */
#ifndef RIDGE_TUI_SCENARIO_H
#define RIDGE_TUI_SCENARIO_H

#include <stddef.h>

#include "state.h"

/* Reads path into s->in (the GPU by id through s->db). Returns 0, or -1
 * with err ("file:line:col: problem") and s unchanged. */
int scenario_load(struct tui_state *s, const char *path, char *err, size_t err_len);
/* Writes the current what-if to path atomically. Returns 0, or -1 with err. */
int scenario_save(const struct tui_state *s, const char *path, char *err, size_t err_len);

#endif
