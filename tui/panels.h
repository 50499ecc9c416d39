/* Inside tui/: each panel's compute step (state_<panel>.c, pure, calling
 * model/) and draw step (draw_<panel>.c, ncurses). */
#ifndef RIDGE_TUI_PANELS_H
#define RIDGE_TUI_PANELS_H

#include "layout.h"
#include "state.h"

/* Compute: inputs -> s->out, through model/ only. */
void tui_compute_hw(struct tui_state *s);
/* Every other panel (one call per panel inside). */
void tui_compute_panels(struct tui_state *s);

#endif
