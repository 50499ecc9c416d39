#include "actions.h"

#include <ncurses.h>
#include <stdio.h>
#include <string.h>

#define CTRL(c) ((c)&0x1f)

const struct tui_binding tui_bindings[] = {
	{ TUI_ACT_HELP, { '?', KEY_F(1), 0 }, "help", "show this help (any key closes it)" },
	{ TUI_ACT_QUIT, { 'q', KEY_F(10), 0 }, "quit", "quit" },
	{ TUI_ACT_NEXT_PANEL, { '\t', 0 }, "panel", "next panel" },
	{ TUI_ACT_PREV_PANEL, { KEY_BTAB, 0 }, "panel", "previous panel" },
	{ TUI_ACT_GOTO_PANEL,
	  { '1', '2', '3', '4', '5', 0 },
	  "go to",
	  "go to panel: hardware roofline occupancy align cost" },
	{ TUI_ACT_FIELD_PREV, { KEY_UP, 'k', 0 }, "field", "select the previous input" },
	{ TUI_ACT_FIELD_NEXT, { KEY_DOWN, 'j', 0 }, "field", "select the next input" },
	{ TUI_ACT_DEC, { KEY_LEFT, '-', 0 }, "less", "decrease the input one step (or previous choice)" },
	{ TUI_ACT_INC, { KEY_RIGHT, '+', '=', 0 }, "more", "increase the input one step (or next choice)" },
	{ TUI_ACT_DEC_BIG, { KEY_NPAGE, '[', 0 }, "less x", "decrease the input a big step" },
	{ TUI_ACT_INC_BIG, { KEY_PPAGE, ']', 0 }, "more x", "increase the input a big step" },
	{ TUI_ACT_EDIT,
	  { '\n', '\r', KEY_ENTER, 'e' },
	  "edit",
	  "type a value (with units: 32KiB 70e9 989T 45%); Esc cancels" },
	{ TUI_ACT_MODE, { 'm', 0 }, "mode", "switch mode: roofline GEMM/intensity, cost train/decode" },
	{ TUI_ACT_COMPARE, { 'c', 0 }, "compare", "compare the GPU with a second one side by side, or stop" },
	{ TUI_ACT_RESET, { 'r', 0 }, "reset", "reset this panel's inputs to their defaults" },
	{ TUI_ACT_SAVE, { 's', CTRL('s'), 0 }, "save", "save the what-if to a scenario file (ridge eval reads it)" },
	{ TUI_ACT_OPEN, { 'o', 0 }, "open", "open a scenario file" },
	{ TUI_ACT_REDRAW, { CTRL('l'), 0 }, "redraw", "redraw the screen" },
};
const size_t tui_binding_count = sizeof tui_bindings / sizeof tui_bindings[0];

enum tui_action tui_action_for_key(int key)
{
	for (size_t i = 0; i < tui_binding_count; i++)
		for (int k = 0; k < TUI_MAX_KEYS && tui_bindings[i].keys[k]; k++)
			if (tui_bindings[i].keys[k] == key)
				return tui_bindings[i].action;
	return TUI_ACT_NONE;
}

const struct tui_binding *tui_binding_of(enum tui_action action)
{
	for (size_t i = 0; i < tui_binding_count; i++)
		if (tui_bindings[i].action == action)
			return &tui_bindings[i];
	return NULL;
}

const char *tui_key_name(int key, char *buf, size_t len)
{
	static const struct {
		int key;
		const char *name;
	} names[] = {
		{ '\t', "Tab" },       { KEY_BTAB, "S-Tab" },     { KEY_UP, "Up" },
		{ KEY_DOWN, "Down" },  { KEY_LEFT, "Left" },      { KEY_RIGHT, "Right" },
		{ KEY_NPAGE, "PgDn" }, { KEY_PPAGE, "PgUp" },     { '\n', "Enter" },
		{ '\r', NULL },        { KEY_ENTER, NULL },       { ' ', "Space" },
		{ 27, "Esc" },         { KEY_BACKSPACE, "Bksp" }, { KEY_RESIZE, "Resize" },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (names[i].key == key) {
			snprintf(buf, len, "%s", names[i].name ? names[i].name : "");
			return buf;
		}
	}
	if (key >= KEY_F(1) && key <= KEY_F(12))
		snprintf(buf, len, "F%d", key - KEY_F(0));
	else if (key > 0 && key < 32)
		snprintf(buf, len, "^%c", key + '@');
	else if (key >= 32 && key < 127)
		snprintf(buf, len, "%c", key);
	else
		snprintf(buf, len, "#%d", key);
	return buf;
}

const char *tui_binding_keys(const struct tui_binding *binding, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int k = 0; k < TUI_MAX_KEYS && binding->keys[k]; k++) {
		char name[16];
		tui_key_name(binding->keys[k], name, sizeof name);
		if (!name[0])
			continue; /* an alternative code of a key already named (\r for Enter) */
		int n = snprintf(buf + used, len - used, "%s%s", used ? " " : "", name);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
	return buf;
}
