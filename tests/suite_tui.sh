#!/bin/sh
# ridge tui for real: a detached tmux session of fixed size (TERM=xterm-256color
# inside), keys sent with send-keys, the screen read with capture-pane.
# Starts, visits every panel, changes values, resizes, opens help, saves and
# reopens a scenario, quits; checks the terminal is given back on q and on
# SIGTERM/SIGSEGV; checks NO_COLOR; and compares `ridge tui --dump FILE` with
# `ridge eval --json FILE` for every example scenario.
# Prints "FAIL ..." per failure, "SKIP ..." when tmux is absent, and
# "N passed, M failed" last.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
RIDGE=${RIDGE:-$root/build/ridge}
passed=0
failed=0
tmp=$(mktemp -d)
session="ridge-tui-test-$$"
# The tests must not see the user's hwdb entries.
export XDG_CONFIG_HOME="$tmp/config"
unset RIDGE_HWDB
cleanup() {
	tmux kill-session -t "$session" 2>/dev/null
	tmux kill-session -t "$session-mono" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

ok() { passed=$((passed + 1)); }
bad() {
	failed=$((failed + 1))
	echo "FAIL $*"
}

# ---- without a terminal: --dump against ridge eval, errors, --keys ----

"$RIDGE" tui --keys >"$tmp/keys.md" 2>&1
if grep -q '^| `q F10` | quit |$' "$tmp/keys.md"; then ok; else bad "tui --keys lacks the quit row"; fi
# The README's key table is the generated one.
if sed -n '/^<!-- keys: generated/,/^<!-- end keys -->/p' tui/README.md | grep '^|' | diff -q - "$tmp/keys.md" >/dev/null; then
	ok
else
	bad "tui/README.md key table differs from 'ridge tui --keys' (regenerate it)"
fi

"$RIDGE" tui "$tmp/missing.yaml" </dev/null >"$tmp/out" 2>"$tmp/err"
code=$?
if [ "$code" = 2 ] && grep -q "ridge: error: cannot open '$tmp/missing.yaml'" "$tmp/err"; then ok; else
	bad "tui on a missing file: exit $code, stderr: $(head -c 200 "$tmp/err")"
fi
"$RIDGE" tui --gpu h100 </dev/null >"$tmp/out" 2>"$tmp/err"
code=$?
if [ "$code" = 2 ] && grep -q "unknown GPU 'h100'; did you mean" "$tmp/err"; then ok; else bad "tui --gpu h100: exit $code"; fi
"$RIDGE" tui </dev/null >"$tmp/out" 2>"$tmp/err"
code=$?
if [ "$code" = 3 ] && grep -q "needs a terminal" "$tmp/err"; then ok; else bad "tui without a terminal: exit $code"; fi

# Every number --dump prints for an item must be what ridge eval prints for
# it: each "key": value line of a dumped result appears among eval's lines
# for the same item (cJSON prints one key per line, with tabs).
result_lines() { # json-file item-index -> the item's result lines, indentation and commas cut
	awk -v want="$2" '
		/^\t\t\t"index":/ { idx = $2; sub(/,$/, "", idx) }
		/^\t\t\t"where":/ { idx = n++ }
		/^\t\t\t"result":/ { inside = 1; next }
		inside && /^\t\t\t}/ { inside = 0 }
		inside && (idx == want) { line = $0; gsub(/^\t+/, "", line); sub(/,$/, "", line); print line }
	' "$1"
}
dumped=0
for f in examples/*.yaml; do
	[ -f "$f" ] || continue
	if ! "$RIDGE" eval --json "$f" >"$tmp/eval.json" 2>"$tmp/eval.err"; then
		# a scenario whose expect checks fail (exit 1) still prints its results
		[ -s "$tmp/eval.json" ] || continue
	fi
	if ! "$RIDGE" tui --dump "$f" >"$tmp/dump.json" 2>"$tmp/dump.err"; then
		bad "tui --dump $f: $(head -c 300 "$tmp/dump.err")"
		continue
	fi
	for index in $(sed -n 's/^\t\t\t"index":\t\([0-9]*\),$/\1/p' "$tmp/dump.json"); do
		result_lines "$tmp/dump.json" "$index" >"$tmp/d.lines"
		awk -v want="$index" '
			/^\t\t\t"where":/ { idx = n++ }
			/^\t\t\t"result":/ { inside = 1; next }
			inside && /^\t\t\t}/ { inside = 0 }
			inside && (idx == want) { line = $0; gsub(/^\t+/, "", line); sub(/,$/, "", line); print line }
		' "$tmp/eval.json" >"$tmp/e.lines"
		if [ ! -s "$tmp/d.lines" ]; then
			bad "tui --dump $f item $index: no result ($(grep -m1 '"error"' "$tmp/dump.json"))"
			continue
		fi
		missing=$(grep -vxF -f "$tmp/e.lines" "$tmp/d.lines" | grep -v '^[{}]' | head -n 3)
		if [ -z "$missing" ]; then
			ok
			dumped=$((dumped + 1))
		else
			bad "tui --dump $f item $index differs from ridge eval: $missing"
		fi
	done
done
if [ -d examples ] && ls examples/*.yaml >/dev/null 2>&1 && [ "$dumped" = 0 ]; then
	bad "no example scenario item was compared between tui --dump and eval"
fi
# The alignment panel takes align items: dimensions (a YAML list or "a,b") and
# model configs named relative to the scenario; their findings are compared above.
if [ -f examples/alignment-seed.yaml ]; then
	"$RIDGE" tui --dump examples/alignment-seed.yaml >"$tmp/dump.json" 2>&1
	n=$(grep -c '^			"kind":	"align",$' "$tmp/dump.json")
	if [ "$n" -ge 4 ] && grep -q '"name":	"attention.head_dim",' "$tmp/dump.json" &&
		grep -q '"name":	"ffn",' "$tmp/dump.json"; then ok; else
		bad "tui --dump examples/alignment-seed.yaml: $n align items, expected dims and model items"
	fi
fi

# ---- in a terminal ----

if ! command -v tmux >/dev/null 2>&1; then
	echo "SKIP tmux not installed: the interactive tui tests did not run"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
fi
utf8=C.UTF-8
locale -a 2>/dev/null | grep -qi '^c\.utf-\?8$' || utf8=C

screen() { tmux capture-pane -p -t "$session"; }
# wait_for TEXT [TENTHS]: until the screen shows TEXT (default 6 s: loaded CI machines).
wait_for() {
	i=0
	while [ "$i" -lt "${2:-60}" ]; do
		screen | grep -qF -- "$1" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
wait_gone() {
	i=0
	while [ "$i" -lt "${2:-60}" ]; do
		screen | grep -qF -- "$1" || return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
expect() { # TEXT WHAT
	if wait_for "$1"; then ok; else
		bad "$2: screen lacks '$1'"
		screen | sed 's/^/     | /' | head -n 32
	fi
}
expect_not() {
	if wait_gone "$1"; then ok; else bad "$2: screen still shows '$1'"; fi
}
keys() { tmux send-keys -t "$session" "$@"; }
# type_value TEXT: Enter, clear, the text, Enter.
type_value() {
	keys Enter C-u
	keys -l "$1"
	keys Enter
}

# The command runs under an outer shell that reports how it ended and
# whether the terminal is back in cooked mode with echo.
start() { # [NAME=VALUE...] [--option...]: environment for, and arguments to, ridge tui
	env="" args=""
	for word in "$@"; do
		case $word in *=*) env="$env $word" ;; *) args="$args $word" ;; esac
	done
	cat >"$tmp/run.sh" <<SCRIPT
ulimit -c 0
sh -c 'echo \$\$ >"$tmp/pid"; exec env TERM=xterm-256color LANG=$utf8 LC_ALL=$utf8 $env "$RIDGE" tui $args'
echo "EXIT=\$?"
stty -a | tr ' ;' '\n\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\n' ' '
echo
sleep 600
SCRIPT
	# On a loaded 2-core machine tmux itself can be slow to come up: one retry
	# of the whole session, then the start counts as failed.
	for attempt in 1 2; do
		rm -f "$tmp/pid"
		tmux kill-session -t "$session" 2>/dev/null
		tmux -u new-session -d -s "$session" -x 100 -y 30 "sh $tmp/run.sh"
		wait_for "1 Hardware" 100 && return 0
	done
	bad "tui did not start"
	screen | head -n 5
}
terminal_back() { # WHAT EXIT
	if wait_for "EXIT=$2" 50; then ok; else bad "$1: not 'EXIT=$2'"; screen | tail -n 5; fi
	wait_for "icanon" 30
	if screen | grep -q '^icanon echo'; then ok; else bad "$1: terminal not restored: $(screen | grep -e icanon | head -n 1)"; fi
}

start
expect "h100-sxm" "start: hardware panel"
expect "989.4 / 133.8" "start: bf16 peaks"
# Compare side by side.
keys c
expect "side by side" "compare"
expect "h200-sxm" "compare: second GPU"
keys c
expect_not "side by side" "compare off"
# The GPU by its alias.
type_value "NVIDIA H200"
expect "NVIDIA H200 SXM 141GB" "gpu typed by alias"
type_value h100-sxm

# Roofline: the plot in braille, the point moves with M.
keys 2
expect "roofline: FLOP/s vs FLOP/byte" "roofline panel"
# Braille cells are U+2801..U+28FF: E2 A0..A3 xx in UTF-8; without a UTF-8
# locale the plot falls back to ASCII dots.
if [ "$utf8" = C ]; then
	if screen | grep -q "[.':][.':][.':][.':]"; then ok; else bad "roofline: no ASCII plot"; fi
elif screen | LC_ALL=C grep -q "$(printf '\342')[$(printf '\240-\243')]"; then ok; else bad "roofline: no braille plot"; fi
expect "137.4 GFLOP" "roofline: 4096^3 GEMM FLOPs"
keys Down Down Right
expect "274.9 GFLOP" "roofline: M doubled"
keys m
expect "FLOP/byte" "roofline: intensity mode"
keys Down
type_value 1000
expect "compute" "roofline: intensity 1000 is compute-bound"

# Occupancy: the reference's case A.
keys 3
expect "occupancy vs block size" "occupancy panel"
keys Down Down
type_value 32KiB
expect "75%" "occupancy: 256 threads, 32 registers, 32 KiB on h100-sxm"
expect "shared_memory" "occupancy: limiter"
keys Up
type_value 48
keys Down
type_value 48KiB
expect "50%" "occupancy: case B"
# A field's prompt opens with its value selected, as a form's field does: the
# first key typed replaces it (48, then 40 typed: 40, not 4840); an arrow
# key (or End) keeps it to edit.
keys Up Enter
expect "typing replaces it" "edit: the status line says the value is selected"
keys -l 40
keys Enter
expect "registers/thread  40 " "edit: typing replaced 48 with 40"
if screen | grep -qF "4840"; then bad "edit: typing appended to the old value (4840)"; else ok; fi
keys Enter Right
keys -l 8
expect "408_" "edit: Right, then 8 typed, appends"
keys Enter
expect "out of range" "edit: 408 registers refused"
keys Down

# Alignment.
keys 4
expect "50264" "align: vocab 50257 -> 50264"
keys Down
type_value "d_model=6000,ffn=21845"
expect "d_model" "align: named dims"
expect "warning" "align: 6000 is a warning"

# Cost: train and decode.
keys 5
expect "training run" "cost panel"
expect "savings" "cost: savings with a target MFU"
keys Down Down Down Down Down Down
type_value 45%
expect "45%" "cost: MFU typed"
keys m
expect "TPOT" "cost: decode"
expect "per 1M tokens" "cost: decode price"

# Help from the key table, closed by any key.
keys '?'
expect "ridge tui: keys" "help"
expect "go to panel" "help: the table"
keys x
expect_not "ridge tui: keys" "help closed"

# Resize: layout follows LINES/COLS.
tmux resize-window -t "$session" -x 80 -y 24
sleep 0.3
keys 3
expect "occupancy vs block size" "resize 80x24: occupancy panel"
last=$(screen | sed -n '24p')
case $last in *"? help"*) ok ;; *) bad "resize 80x24: status line not on row 24: '$last'" ;; esac
tmux resize-window -t "$session" -x 50 -y 12
expect "terminal too small" "resize 50x12"
tmux resize-window -t "$session" -x 100 -y 30
expect "occupancy vs block size" "resize back to 100x30"

# Save the what-if, then reopen it.
keys 5 s C-u
keys -l "$tmp/whatif.yaml"
keys Enter
if "$RIDGE" eval --help >/dev/null 2>&1; then
	expect "saved" "save"
	if [ -f "$tmp/whatif.yaml" ] && "$RIDGE" eval "$tmp/whatif.yaml" >"$tmp/eval.out" 2>&1; then ok; else
		bad "ridge eval on the saved what-if: $(head -c 300 "$tmp/eval.out" 2>/dev/null)"
	fi
	# The alignment what-if typed above is in the file, and eval finds what the panel showed.
	if grep -q '^    kind: align$' "$tmp/whatif.yaml" && grep -q '^    dims: "d_model=6000,ffn=21845"$' "$tmp/whatif.yaml" &&
		grep -q '^1 error, 1 warning: misaligned$' "$tmp/eval.out"; then ok; else
		bad "saved what-if: no align item with the typed dims, or eval disagrees: $(grep -A3 'kind: align' "$tmp/whatif.yaml")"
	fi
	# Other dimensions on the alignment panel; reopening brings the saved ones back.
	keys 4
	type_value 4096
	expect_not "ffn" "align: dims replaced before reopening"
	keys 1 o C-u
	keys -l "$tmp/whatif.yaml"
	keys Enter
	expect "opened" "open the saved what-if"
	keys 4
	expect "ffn" "reopened what-if: the alignment panel has the saved dims"
	keys o C-u
	keys -l "$tmp/missing.yaml"
	keys Enter
	expect "cannot open" "open a missing file: message on the status line"
	if screen | grep -q "ridge: error"; then bad "open: stderr leaked onto the screen"; else ok; fi
fi
keys s C-u
keys -l "$tmp/no/such/dir/x.yaml"
keys Enter
expect "cannot" "save into a missing directory: message"

# q quits and gives the terminal back.
keys q
terminal_back "quit" 0

# A calibration (a measured entry, hwdb format): the explorer starts on it and
# says its ceilings are measured; its bandwidth is the one used.
sed -e 's|^  bandwidth: 3.35 TB/s|  bandwidth: 3.01 TB/s|' hwdb/h100-sxm.yaml >"$tmp/cal.yaml"
printf 'measured:\n  on: "test rig, suite_tui.sh"\n' >>"$tmp/cal.yaml"
start --calibration "$tmp/cal.yaml"
expect "measured" "calibration: the ceilings are measured"
expect "3.01 TB/s" "calibration: measured bandwidth"
keys q

# --gpu X with a scenario: X brings all its GPU terms, the price per GPU-hour
# and the peak, in the explorer as in --dump (which prints the same numbers).
# worked-example-7-1.yaml pins the H100 terms of the book ($3, 989 TFLOP/s);
# on mi300x (hwdb: $1.85, bf16 1307.4 TFLOP/s) the first item at 40% MFU on
# 512 GPUs runs at 267.8 PFLOP/s and takes 1,871,406.86 GPU-hours.
"$RIDGE" tui --dump examples/worked-example-7-1.yaml --gpu mi300x >"$tmp/dump-gpu.json" 2>&1
tab=$(printf '\t')
first=$(sed -n '/"index":\t0,/,/"index":\t1,/p' "$tmp/dump-gpu.json")
if printf '%s\n' "$first" | grep -qF "\"gpu\":$tab\"mi300x\"," &&
	printf '%s\n' "$first" | grep -qF "\"cluster_flops\":${tab}2.6775552e+17," &&
	printf '%s\n' "$first" | grep -qF "\"gpu_hours\":${tab}1871406.86"; then ok; else
	bad "tui --dump --gpu mi300x: the first item is not on mi300x's price and peak"
fi
start --gpu mi300x examples/worked-example-7-1.yaml
expect "training run" "--gpu with a scenario: cost panel"
expect '$1.85' "--gpu with a scenario: mi300x's price"
expect "267.8 PFLOP/s" "--gpu with a scenario: mi300x's peak"
expect "1,871,406.86" "--gpu with a scenario: GPU-hours as the CLI writes them"
expect "4.548x" "--gpu with a scenario: ROI as the CLI writes it"
if screen | grep -qF '$3.00'; then bad "--gpu with a scenario: the scenario's \$3 price stayed"; else ok; fi
keys q

# The roofline panel's result labels stay whole at 80x24 and 120x40 (a fresh
# explorer, GEMM mode): a value too wide for its row loses its details, not
# its label.
for size in "80 24" "120 40"; do
	# shellcheck disable=SC2086
	set -- $size
	start
	tmux resize-window -t "$session" -x "$1" -y "$2"
	sleep 0.3
	keys 2
	expect "ridge point" "$1x$2: roofline panel"
	for label in "time floor" "predicted" "range" "attainable"; do
		if screen | grep -q "^ $label  *[0-9]"; then ok; else
			bad "$1x$2: roofline label '$label' cut or missing"
			screen | sed 's/^/     | /' | sed -n 15,$2p
		fi
	done
	keys q
done

# SIGTERM and SIGSEGV: the handler restores the terminal, the status tells the signal.
for sig in TERM SEGV INT; do
	start
	case $sig in TERM) code=143 ;; SEGV) code=139 ;; INT) code=130 ;; esac
	kill -s "$sig" "$(cat "$tmp/pid")"
	terminal_back "SIG$sig" "$code"
done

# NO_COLOR: attributes only, no color escapes; colors otherwise.
colors() { tmux capture-pane -e -p -t "$session" | grep -c "$(printf '\033')\[[0-9;]*3[0-7]m\|$(printf '\033')\[[0-9;]*38;5"; }
start
sleep 0.3
if [ "$(colors)" -gt 0 ]; then ok; else bad "colors: none without NO_COLOR"; fi
keys q
start NO_COLOR=1
sleep 0.3
if [ "$(colors)" -eq 0 ]; then ok; else bad "NO_COLOR=1: color escapes on screen"; fi
if tmux capture-pane -e -p -t "$session" | grep -q "$(printf '\033')\[[0-9;]*7m"; then ok; else bad "NO_COLOR=1: no reverse video (monochrome scheme)"; fi
keys q

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
