/* The terminal session: set-up, the key loop, restoring the terminal on every
 * exit path, scenario file requests, and the off-screen benchmark. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui.h"

#include <langinfo.h>
#include <math.h>
#include <locale.h>
#include <ncurses.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "draw.h"
#include "scenario.h"

/* Whether ncurses holds the terminal: read by the signal handler. */
static volatile sig_atomic_t curses_active;

void tui_restore_terminal(void)
{
	if (curses_active) {
		curses_active = 0;
		endwin();
	}
}

/* SIGINT/SIGTERM/SIGHUP/SIGQUIT/SIGSEGV/SIGBUS/SIGABRT: give the terminal back,
 * then die of the same signal (default action) so the exit status tells the
 * truth. endwin() is not async-signal-safe; htop does the same, and a
 * terminal left in raw mode is the worse outcome. */
static void on_fatal_signal(int sig)
{
	tui_restore_terminal();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_signal_handlers(void)
{
	static const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGABRT, SIGFPE };
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_fatal_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
		sigaction(signals[i], &sa, NULL);
}

static bool locale_is_utf8(void)
{
	const char *codeset = nl_langinfo(CODESET);
	return codeset && (strcmp(codeset, "UTF-8") == 0 || strcmp(codeset, "utf8") == 0);
}

static void handle_request(struct tui_state *s)
{
	enum tui_request req = s->request;
	s->request = TUI_REQ_NONE;
	char err[TUI_TEXT * 2];
	switch (req) {
	case TUI_REQ_NONE:
		break;
	case TUI_REQ_REDRAW:
		clearok(curscr, TRUE);
		break;
	case TUI_REQ_SAVE: {
		struct app_status st;
		app_status_init(&st);
		if (scenario_save(s, s->request_path, &st) != 0) {
			tui_status_text(&st, err, sizeof err);
			tui_state_message(s, true, "%s", err);
		} else {
			snprintf(s->scenario_path, sizeof s->scenario_path, "%s", s->request_path);
			tui_state_message(s, false, "saved %s ('ridge eval %s' runs it)", s->request_path,
					  s->request_path);
		}
		break;
	}
	case TUI_REQ_OPEN: {
		struct app_status st;
		app_status_init(&st);
		if (scenario_load(s, s->request_path, s->hwdb_dir, s->calibration, &st) != 0) {
			tui_status_text(&st, err, sizeof err);
			tui_state_message(s, true, "%s", err);
		} else
			snprintf(s->scenario_path, sizeof s->scenario_path, "%s", s->request_path);
		break;
	}
	case TUI_REQ_LOAD_MODEL:
		if (tui_load_model_config(s, s->in.align_model, err, sizeof err) != 0)
			tui_state_message(s, true, "%s", err);
		else
			tui_state_message(s, false, "read %s", s->in.align_model);
		tui_state_compute(s);
		break;
	}
}

/* A mouse click: on a tab selects the panel, on an input selects it. */
static void handle_click(struct tui_state *s, const struct tui_layout *l, int y, int x)
{
	if (y == l->tabs.y) {
		int p = tui_tab_at(x);
		if (p >= 0)
			tui_state_goto(s, (enum tui_panel_id)p);
		return;
	}
	struct tui_layout_spec spec = { 0 };
	if (tui_panel_views[s->panel].spec)
		tui_panel_views[s->panel].spec(s, &spec);
	if (!spec.form_on_top && tui_rect_contains(&l->form, y, x)) {
		const struct tui_field *fields[32];
		int n = tui_panel_fields(s, s->panel, fields, 32);
		if (y - l->form.y < n)
			s->selected[s->panel] = y - l->form.y;
	}
}

/* The most keys handled between two redraws (a paste): enough that a
 * 100 KB paste costs a few frames, few enough that a frame stays prompt. */
#define TUI_KEYS_PER_FRAME 4096

int tui_run(struct tui_state *s, FILE *terminal, struct app_status *st)
{
	setlocale(LC_ALL, "");
	bool ascii = !locale_is_utf8();
	/* terminal: the raw stdout (the front end's), not the escaping stream: ncurses draws control characters as ^X itself */
	if (!isatty(fileno(stdin)) || !isatty(fileno(terminal))) {
		app_error_env(
			st, "tui needs a terminal (stdin and stdout); for values without one, use 'ridge tui --dump'");
		return EXIT_ENV;
	}
	SCREEN *screen = newterm(NULL, terminal, stdin);
	if (!screen) {
		const char *term = getenv("TERM");
		app_error_env(st, "cannot start the terminal '%s' (check TERM)", term ? term : "");
		return EXIT_ENV;
	}
	/* A terminal that cannot move the cursor (TERM=dumb, an emacs shell)
	 * would get every frame appended as lines of garbage: refuse it. */
	char *cup = tigetstr("cup"), *clear_cap = tigetstr("clear");
	if (!cup || cup == (char *)-1 || !clear_cap || clear_cap == (char *)-1) {
		const char *term = getenv("TERM");
		endwin();
		delscreen(screen);
		app_error_env(
			st,
			"the terminal '%s' cannot move the cursor (no 'cup' or 'clear' in its terminfo): the TUI "
			"needs one (set TERM, e.g. xterm-256color); for values without one, use 'ridge tui --dump'",
			term ? term : "");
		return EXIT_ENV;
	}
	curses_active = 1;
	atexit(tui_restore_terminal);
	install_signal_handlers();
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED, NULL);
	mouseinterval(0);
	tui_color_init(tui_env_no_color());

	struct tui_layout layout;
	while (!s->quit) {
		/* Layout from LINES/COLS every time round: KEY_RESIZE has updated them. */
		tui_draw_layout(s, LINES, COLS, &layout);
		tui_draw(s, &layout, ascii);
		refresh();
		/* Every key already waiting (a paste of 100 KB arrives as 100,000
		 * keys) is handled before the next redraw: a redraw per key froze
		 * the screen for 30 s. A resize or a click needs the new layout. */
		int key = getch();
		for (int batch = 0; key != ERR && !s->quit; batch++) {
			if (key == KEY_RESIZE)
				break;
			if (key == KEY_MOUSE) {
				MEVENT ev;
				if (getmouse(&ev) == OK && (ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)))
					handle_click(s, &layout, ev.y, ev.x);
				break;
			}
			/* nonl(): Enter arrives as \r. */
			tui_state_key(s, key);
			if (s->request != TUI_REQ_NONE)
				handle_request(s);
			if (batch >= TUI_KEYS_PER_FRAME)
				break;
			nodelay(stdscr, TRUE);
			key = getch();
			nodelay(stdscr, FALSE);
		}
	}
	tui_restore_terminal();
	delscreen(screen);
	return EXIT_OK;
}

/* ---- off-screen benchmark ---- */

static double clock_us(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Sorts and returns the q-quantile (nearest rank). */
static double quantile(double *v, int n, double q)
{
	qsort(v, (size_t)n, sizeof *v, compare_double);
	int i = (int)ceil(q * n) - 1;
	return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

int tui_bench(struct tui_state *s, int lines, int cols, int presses, FILE *out, struct app_status *st)
{
	setlocale(LC_ALL, "");
	bool ascii = !locale_is_utf8();
	FILE *devnull_out = fopen("/dev/null", "w"), *devnull_in = fopen("/dev/null", "r");
	if (!devnull_out || !devnull_in) {
		app_error_env(st, "cannot open '/dev/null'");
		return EXIT_ENV;
	}
	/* A terminfo entry that is always installed with ncurses. */
	SCREEN *screen = newterm("xterm-256color", devnull_out, devnull_in);
	if (!screen)
		screen = newterm("xterm", devnull_out, devnull_in);
	if (!screen) {
		app_error_env(st, "cannot start an off-screen terminal (no xterm terminfo entry)");
		return EXIT_ENV;
	}
	resize_term(lines, cols);
	tui_color_init(false);
	double *wall = calloc((size_t)presses, sizeof *wall), *cpu = calloc((size_t)presses, sizeof *cpu);
	if (!wall || !cpu) {
		free(wall);
		free(cpu);
		endwin();
		delscreen(screen);
		app_error_env(st, "out of memory");
		return EXIT_ENV;
	}
	fprintf(out,
		"ridge tui --bench: key press -> state update + full redraw into an off-screen %dx%d terminal\n"
		"(newterm on /dev/null, %s), %d presses per panel; microseconds\n",
		cols, lines, ascii ? "ASCII plots" : "braille plots", presses);
	fprintf(out, "%-10s %10s %10s %10s %12s %12s\n", "panel", "median", "p99", "max", "cpu median", "cpu max");
	/* Per panel: walk the inputs, stepping each up and down, so every press
	 * recomputes through the model and redraws the whole screen. Wall time
	 * includes preemption by other processes; CPU time is the explorer's own
	 * cost. */
	static const int keys[] = { KEY_RIGHT, KEY_LEFT, KEY_PPAGE, KEY_NPAGE, KEY_DOWN };
	double worst_cpu = 0, worst_median = 0;
	for (int p = 0; p < TUI_PANEL_COUNT; p++) {
		tui_state_goto(s, (enum tui_panel_id)p);
		struct tui_layout layout;
		for (int i = 0; i < presses; i++) {
			double t0 = clock_us(CLOCK_MONOTONIC), c0 = clock_us(CLOCK_THREAD_CPUTIME_ID);
			tui_state_key(s, keys[i % (int)(sizeof keys / sizeof keys[0])]);
			tui_draw_layout(s, LINES, COLS, &layout);
			tui_draw(s, &layout, ascii);
			wnoutrefresh(stdscr);
			doupdate();
			cpu[i] = clock_us(CLOCK_THREAD_CPUTIME_ID) - c0;
			wall[i] = clock_us(CLOCK_MONOTONIC) - t0;
		}
		double median = quantile(wall, presses, 0.5), p99 = quantile(wall, presses, 0.99),
		       max = quantile(wall, presses, 1.0);
		double cpu_median = quantile(cpu, presses, 0.5), cpu_max = quantile(cpu, presses, 1.0);
		worst_cpu = fmax(worst_cpu, cpu_max);
		worst_median = fmax(worst_median, median);
		fprintf(out, "%-10s %10.1f %10.1f %10.1f %12.1f %12.1f\n", tui_panel_name((enum tui_panel_id)p), median,
			p99, max, cpu_median, cpu_max);
	}
	fprintf(out, "target <= 5000 us per key press: %s (worst median %.1f us, worst CPU time %.1f us)\n",
		worst_median <= 5000 && worst_cpu <= 5000 ? "met" : "NOT met", worst_median, worst_cpu);
	free(wall);
	free(cpu);
	endwin();
	delscreen(screen);
	fclose(devnull_out);
	fclose(devnull_in);
	return EXIT_OK;
}

void tui_print_keys(FILE *out)
{
	fprintf(out, "| keys | action |\n|---|---|\n");
	for (size_t i = 0; i < tui_binding_count; i++) {
		char keys[64];
		tui_binding_keys(&tui_bindings[i], keys, sizeof keys);
		fprintf(out, "| `%s` | %s |\n", keys, tui_bindings[i].help);
	}
}

/* ---- ridge tui ---- */

/* The hwdb index of the GPU to start on: --gpu, else the calibration's
 * entry (its measured ceilings), else the default. -1 with why in st. */
static int start_gpu(const struct app_hw *hw, const struct tui_options *opt, struct app_status *st)
{
	const char *name = opt->gpu ? opt->gpu : APP_DEFAULT_GPU;
	if (!opt->gpu && opt->calibration) {
		for (int i = hw->db.count - 1; i >= 0; i--)
			if (strcmp(hw->db.entries[i].origin, opt->calibration) == 0)
				return i;
	}
	const struct hwdb_entry *e = app_hw_find(hw, name, st);
	return e ? (int)(e - hw->db.entries) : -1;
}

int tui_main(const struct tui_options *opt, FILE *terminal, FILE *out, struct app_status *st)
{
	struct app_hw hw;
	if (app_hw_open(&hw, opt->hwdb_dir, opt->calibration, st) != 0)
		return EXIT_USAGE;
	int gpu = start_gpu(&hw, opt, st);
	if (gpu < 0) {
		app_hw_close(&hw);
		return EXIT_USAGE;
	}
	/* The state is large (text buffers, results): keep it off the stack. */
	struct tui_state *s = malloc(sizeof *s);
	if (!s) {
		app_hw_close(&hw);
		app_error_env(st, "out of memory");
		return EXIT_ENV;
	}
	tui_state_init(s, &hw.db, gpu);
	s->hwdb_dir = opt->hwdb_dir;
	s->calibration = opt->calibration;
	if (opt->gpu)
		s->gpu_override = gpu;
	int rc;
	if (opt->dump) {
		/* Each item from the defaults of the GPU the items name. */
		rc = tui_dump(s, opt->file, opt->hwdb_dir, opt->calibration, out, st);
		free(s);
		app_hw_close(&hw);
		return rc;
	}
	if (opt->file) {
		if (tui_open_scenario(s, opt->file, opt->hwdb_dir, opt->calibration, st) != 0) {
			free(s);
			app_hw_close(&hw);
			return EXIT_USAGE;
		}
		if (opt->gpu)
			tui_inputs_use_gpu(&s->in, &hw.db, gpu);
		tui_state_compute(s);
	}
	if (opt->bench)
		rc = tui_bench(s, opt->lines, opt->cols, opt->presses, out, st);
	else
		rc = tui_run(s, terminal, st);
	free(s);
	app_hw_close(&hw);
	return rc;
}

/* ---- the command line: ridge tui ---- */

static const char tui_usage[] =
	"usage: ridge tui [--gpu GPU] [--hwdb DIR] [--calibration FILE] [FILE.yaml]\n"
	"       ridge tui --dump FILE.yaml [--gpu GPU] [--hwdb DIR] [--calibration FILE]\n"
	"       ridge tui --bench [--size COLSxLINES] [--presses N]\n"
	"       ridge tui --keys\n"
	"\n"
	"The what-if explorer: hardware, roofline, occupancy, alignment and cost panels\n"
	"whose numbers change as you change the inputs (the same model functions as\n"
	"the other ridge commands). Press ? inside for the keys.\n"
	"\n"
	"  FILE.yaml           open a scenario file (the format 'ridge eval' reads);\n"
	"                      's' inside saves the what-if back to one\n"
	"  --gpu GPU           the GPU to start with (default " APP_DEFAULT_GPU "; overrides the scenario's)\n"
	"  --hwdb DIR          also load every *.yaml in DIR\n"
	"  --calibration FILE  also load FILE (a ridge-probe calibration); without\n"
	"                      --gpu, start on it\n"
	"  --dump              no terminal: print the panels' values as one JSON document\n"
	"  --bench             time key press -> update + redraw off-screen, per panel\n"
	"  --size COLSxLINES   --bench screen size (default 100x30)\n"
	"  --presses N         --bench key presses per panel (default 500)\n"
	"  --keys              print the key bindings as a Markdown table\n"
	"\n"
	"Colors follow the terminal; NO_COLOR=1 turns them off.\n";

static const struct param tui_params[] = PARAMS_ROWS(TUI_PARAMS);

const struct params_command tui_params_command = {
	.name = "tui",
	PARAMS_COMMAND_TABLE(tui_params),
	.usage = tui_usage,
	.operands = PARAMS_OPERANDS_ANY,
};
