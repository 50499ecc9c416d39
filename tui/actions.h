/* The one table of key bindings (htop's Action.c style): the key dispatch, the
 * help screen, the status-line hints and the README's key list all read it. */
#ifndef RIDGE_TUI_ACTIONS_H
#define RIDGE_TUI_ACTIONS_H

#include <stddef.h>

enum tui_action {
	TUI_ACT_NONE,
	TUI_ACT_QUIT,
	TUI_ACT_HELP,
	TUI_ACT_NEXT_PANEL,
	TUI_ACT_PREV_PANEL,
	TUI_ACT_GOTO_PANEL, /* the panel numbered by the key: '1' is the first */
	TUI_ACT_FIELD_PREV,
	TUI_ACT_FIELD_NEXT,
	TUI_ACT_DEC,
	TUI_ACT_INC,
	TUI_ACT_DEC_BIG,
	TUI_ACT_INC_BIG,
	TUI_ACT_EDIT,
	TUI_ACT_MODE,
	TUI_ACT_COMPARE,
	TUI_ACT_RESET,
	TUI_ACT_SAVE,
	TUI_ACT_OPEN,
	TUI_ACT_REDRAW,
	TUI_ACT_COUNT
};

#define TUI_MAX_KEYS 6

struct tui_binding {
	enum tui_action action;
	int keys[TUI_MAX_KEYS]; /* ncurses key codes or characters; 0 ends the list */
	const char *name;       /* short name for the status-line hints */
	const char *help;       /* one line for the help screen */
};

extern const struct tui_binding tui_bindings[];
extern const size_t tui_binding_count;

/* The action a key triggers in normal (not editing) mode; TUI_ACT_NONE if none. */
enum tui_action tui_action_for_key(int key);
/* The binding of an action, or NULL. */
const struct tui_binding *tui_binding_of(enum tui_action action);
/* "Tab", "S-Tab", "Up", "F1", "^L", "q": a key as the help screen writes it. */
const char *tui_key_name(int key, char *buf, size_t len);
/* All keys of a binding joined: "Up k". */
const char *tui_binding_keys(const struct tui_binding *binding, char *buf, size_t len);

#endif
