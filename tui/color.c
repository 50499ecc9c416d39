#include "color.h"

#include <ncurses.h>
#include <stdlib.h>

struct scheme_entry {
	short fg, bg;
	int color_attr; /* with colors */
	int mono_attr;  /* without */
};

/* -1: the terminal's default color (use_default_colors). */
static const struct scheme_entry scheme[TUI_ROLE_COUNT] = {
	[TUI_ROLE_NORMAL] = { -1, -1, A_NORMAL, A_NORMAL },
	[TUI_ROLE_TAB] = { COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE },
	[TUI_ROLE_TAB_ACTIVE] = { COLOR_BLACK, COLOR_GREEN, A_BOLD, A_BOLD | A_UNDERLINE },
	[TUI_ROLE_TITLE] = { COLOR_CYAN, -1, A_BOLD, A_BOLD },
	[TUI_ROLE_LABEL] = { -1, -1, A_NORMAL, A_NORMAL },
	[TUI_ROLE_VALUE] = { COLOR_CYAN, -1, A_BOLD, A_BOLD },
	[TUI_ROLE_SELECTED] = { COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE },
	[TUI_ROLE_EDIT] = { COLOR_BLACK, COLOR_YELLOW, A_NORMAL, A_REVERSE | A_UNDERLINE },
	[TUI_ROLE_RESULT] = { -1, -1, A_BOLD, A_BOLD },
	[TUI_ROLE_GOOD] = { COLOR_GREEN, -1, A_BOLD, A_BOLD },
	[TUI_ROLE_WARN] = { COLOR_YELLOW, -1, A_BOLD, A_UNDERLINE },
	[TUI_ROLE_BAD] = { COLOR_RED, -1, A_BOLD, A_BOLD | A_UNDERLINE },
	[TUI_ROLE_DIM] = { -1, -1, A_DIM, A_DIM },
	[TUI_ROLE_STATUS] = { COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE },
	[TUI_ROLE_ERROR] = { COLOR_WHITE, COLOR_RED, A_BOLD, A_REVERSE | A_BOLD },
	[TUI_ROLE_HELP] = { COLOR_WHITE, COLOR_BLUE, A_NORMAL, A_NORMAL },
	[TUI_ROLE_AXIS] = { -1, -1, A_DIM, A_DIM },
	[TUI_ROLE_COMPUTE] = { COLOR_RED, -1, A_NORMAL, A_NORMAL },
	[TUI_ROLE_MEMORY] = { COLOR_BLUE, -1, A_BOLD, A_NORMAL },
	[TUI_ROLE_POINT] = { COLOR_YELLOW, -1, A_BOLD, A_BOLD },
	[TUI_ROLE_CURVE] = { COLOR_GREEN, -1, A_NORMAL, A_NORMAL },
};

/* The scheme chosen at start-up; the only mutable file-scope state in tui/,
 * owned by the terminal session (like ncurses' own). */
static bool colors_on;

bool tui_env_no_color(void)
{
	const char *v = getenv("NO_COLOR");
	return v && *v;
}

void tui_color_init(bool no_color)
{
	colors_on = !no_color && has_colors();
	if (!colors_on)
		return;
	start_color();
	use_default_colors();
	for (int r = 1; r < TUI_ROLE_COUNT; r++)
		init_pair((short)r, scheme[r].fg, scheme[r].bg);
}

int tui_color_attr(enum tui_role role)
{
	if (role <= 0 || role >= TUI_ROLE_COUNT)
		return A_NORMAL;
	if (!colors_on)
		return scheme[role].mono_attr;
	return (int)COLOR_PAIR(role) | scheme[role].color_attr;
}

bool tui_color_enabled(void)
{
	return colors_on;
}
