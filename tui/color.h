/* Colors by semantic role (htop's CRT.c idea): drawing code asks for a role,
 * never a color. Schemes: color, and monochrome (attributes only) when the
 * terminal has no colors or NO_COLOR is set (https://no-color.org). */
#ifndef RIDGE_TUI_COLOR_H
#define RIDGE_TUI_COLOR_H

#include <stdbool.h>

enum tui_role {
	TUI_ROLE_NORMAL,
	TUI_ROLE_TAB,
	TUI_ROLE_TAB_ACTIVE,
	TUI_ROLE_TITLE,
	TUI_ROLE_LABEL,
	TUI_ROLE_VALUE,
	TUI_ROLE_SELECTED,
	TUI_ROLE_EDIT,
	TUI_ROLE_RESULT,
	TUI_ROLE_GOOD,
	TUI_ROLE_WARN,
	TUI_ROLE_BAD,
	TUI_ROLE_DIM,
	TUI_ROLE_STATUS,
	TUI_ROLE_ERROR,
	TUI_ROLE_HELP,
	TUI_ROLE_AXIS,
	TUI_ROLE_COMPUTE, /* compute ceilings */
	TUI_ROLE_MEMORY,  /* memory ceilings */
	TUI_ROLE_POINT,   /* the kernel's point, the current block size */
	TUI_ROLE_CURVE,   /* a sweep curve */
	TUI_ROLE_COUNT
};

/* Decides the scheme: color unless no_color or the terminal lacks colors.
 * Call after initscr/newterm. */
void tui_color_init(bool no_color);
/* The attributes (color pair and A_*) of a role in the active scheme. */
int tui_color_attr(enum tui_role role);
bool tui_color_enabled(void);
/* True when the environment asks for no color: NO_COLOR set and not empty. */
bool tui_env_no_color(void);

#endif
