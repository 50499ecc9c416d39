#!/bin/sh
# Hostile environments and inputs whose right answer is not exit 2 (those are
# rows of tests/bad_input.tsv): issue 21. For each case: the exit status, a
# fragment stderr must hold, and what stdout must or must not hold.
#   - stdout that cannot be written (/dev/full): exit 3, "writing standard output";
#   - an optional hwdb directory that cannot be read, a FIFO in one: skipped
#     with a warning, the command runs (and does not hang);
#   - output paths: a dangling symlink's target is written, the link kept; a
#     FIFO that nobody reads is refused at once;
#   - a ratio to a zero cost is "none", never nan;
#   - names with ESC/BEL from scenario, ncu, ptxas and validation files are
#     printed escaped (\x1b), never raw;
#   - the TUI refuses a terminal that cannot address the cursor (TERM=dumb).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
RIDGE=${RIDGE:-build/ridge}
case $RIDGE in /*) ;; *) RIDGE=$root/$RIDGE ;; esac
corpus=$root/tests/fuzz/corpus
passed=0
failed=0
tmp=$(mktemp -d)
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
XDG_CONFIG_HOME=$tmp/xdg
export XDG_CONFIG_HOME
unset RIDGE_HWDB
esc=$(printf '\033')

# check NAME CODE STDERR_FRAGMENT STDOUT_GREP -- COMMAND...: runs COMMAND
# (10 s at most); STDOUT_GREP is a grep -E pattern stdout must match ("" for
# none), or !PATTERN for one it must not.
check() {
	name=$1 code=$2 want_err=$3 want_out=$4
	shift 5
	timeout -k 2 10 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	got=$?
	problem=""
	if [ "$got" != "$code" ]; then
		problem="exit $got, expected $code"
	elif [ -n "$want_err" ] && ! grep -qF -- "$want_err" "$tmp/err"; then
		problem="stderr lacks '$want_err'"
	elif [ -n "$want_out" ]; then
		case $want_out in
		!*) grep -qE -- "${want_out#!}" "$tmp/out" && problem="stdout has '${want_out#!}'" ;;
		*) grep -qE -- "$want_out" "$tmp/out" || problem="stdout lacks '$want_out'" ;;
		esac
	fi
	if [ -n "$problem" ]; then
		echo "FAIL $name: $problem"
		sed 's/^/     stderr: /' "$tmp/err" | head -n 3
		failed=$((failed + 1))
	else
		passed=$((passed + 1))
	fi
}

# ---- stdout that cannot be written: one check in main, exit 3
for cmd in "hw list" "report" "roofline --flops 1G --bytes 1G" "gemm --m 64 --n 64 --k 64 --json" \
	"eval examples/decode-launch-overhead.yaml" "occupancy --threads 256 --regs 32" "--help"; do
	# shellcheck disable=SC2086
	timeout 10 "$RIDGE" $cmd >/dev/full 2>"$tmp/err"
	got=$?
	if [ $got = 3 ] && grep -q '^ridge: error: writing standard output: No space left on device' "$tmp/err"; then
		passed=$((passed + 1))
	else
		echo "FAIL ridge $cmd > /dev/full: exit $got, stderr: $(head -c 200 "$tmp/err")"
		failed=$((failed + 1))
	fi
done

# ---- unusable optional hwdb directories: skipped with a warning
: >"$tmp/a-file"
check xdg-is-a-file 0 "hwdb directory skipped: Not a directory" "h100-sxm" -- \
	env XDG_CONFIG_HOME="$tmp/a-file" "$RIDGE" hw list
check ridge-hwdb-is-a-file 0 "hwdb directory skipped: Not a directory" "h100-sxm" -- \
	env RIDGE_HWDB="$tmp/a-file" "$RIDGE" hw list
mkdir -p "$tmp/fifo-xdg/ridge/hwdb"
mkfifo "$tmp/fifo-xdg/ridge/hwdb/stuck.yaml"
check xdg-fifo-entry 0 "stuck.yaml: skipped: a FIFO (named pipe), not a regular file" "h100-sxm" -- \
	env XDG_CONFIG_HOME="$tmp/fifo-xdg" "$RIDGE" hw list
check hwdb-dir-fifo-entry 0 "skipped: a FIFO" "" -- "$RIDGE" roofline --flops 1G --bytes 1G --hwdb "$tmp/fifo-xdg/ridge/hwdb"
if [ "$(id -u)" != 0 ]; then
	mkdir -p "$tmp/locked/ridge/hwdb"
	chmod 000 "$tmp/locked"
	check xdg-parent-locked 0 "hwdb directory skipped: Permission denied" "h100-sxm" -- \
		env XDG_CONFIG_HOME="$tmp/locked" "$RIDGE" hw list
	chmod 755 "$tmp/locked"
else
	echo "SKIP xdg-parent-locked: root enters any directory"
fi

mkdir -p "$tmp/empty-hwdb" # no *.yaml at all: nothing to sort (qsort(NULL, 0) was undefined)
check hwdb-dir-empty 0 "" "H100" -- "$RIDGE" hw show h100-sxm --hwdb "$tmp/empty-hwdb"

# ---- output paths: symbolic links followed (the link stays), FIFOs never waited on
ln -s plot-target.svg "$tmp/dangling.svg"
check svg-dangling-link 0 "" "wrote" -- "$RIDGE" roofline --flops 1G --bytes 1G --svg "$tmp/dangling.svg"
if [ -L "$tmp/dangling.svg" ] && grep -q '</svg>' "$tmp/plot-target.svg" 2>/dev/null; then
	passed=$((passed + 1))
else
	echo "FAIL svg-dangling-link: the link was replaced or its target not written"
	failed=$((failed + 1))
fi
mkfifo "$tmp/plot.fifo"
check svg-fifo-no-reader 3 "a FIFO that no process reads" "" -- \
	"$RIDGE" roofline --flops 1G --bytes 1G --svg "$tmp/plot.fifo"
check svg-stdout-pipe 0 "" "</svg>" -- "$RIDGE" roofline --flops 1G --bytes 1G --svg /dev/stdout

# ---- results: a ratio to a zero cost is "none"; nothing shows nan or inf
check launch-zero-costs 0 "" "saves 0 s, none\)" -- \
	"$RIDGE" launch --launch-us 0 --graph-node-us 0 --kernels-per-layer 6 --layers 80 --step-ms 25
check launch-zero-costs-json 0 "" '"graph_reduction":[[:space:]]*null' -- \
	"$RIDGE" launch --launch-us 0 --graph-node-us 0 --kernels-per-layer 6 --layers 80 --step-ms 25 --json
check launch-negative-zero 0 "" "!-0 s" -- "$RIDGE" launch --launch-us -0 --kernels-per-layer 6 --layers 80 --step-ms 25
check occupancy-negative-zero 0 "" "!-0 B" -- "$RIDGE" occupancy --threads 256 --regs 32 --smem -0
check eval-zero-costs 0 "" "!nan|inf" -- "$RIDGE" eval "$corpus/scenario/launch-zero-costs.yaml"

# ---- control characters from files are printed escaped, never raw
check escape-scenario 0 "" '\\x1b\[2J' -- "$RIDGE" eval "$corpus/scenario/escape-names.yaml"
check escape-scenario-raw 0 "" "!$esc" -- "$RIDGE" eval "$corpus/scenario/escape-names.yaml"
check escape-ncu 0 "" '\\x1b\[2J' -- "$RIDGE" roofline --gpu h200-sxm --ncu "$corpus/ncu/issue21-escape-name.csv"
check escape-ncu-raw 0 "" "!$esc" -- "$RIDGE" roofline --gpu h200-sxm --ncu "$corpus/ncu/issue21-escape-name.csv"
tail -c +2 "$corpus/ptxas/issue21-escape-name.txt" >"$tmp/ptxas.txt" # the harness's selector byte off
check escape-ptxas 0 "" '\\x1b\[2J' -- "$RIDGE" occupancy --ptxas "$tmp/ptxas.txt"
check escape-ptxas-raw 0 "" "!$esc" -- "$RIDGE" occupancy --ptxas "$tmp/ptxas.txt"
check escape-validation 0 "" '\\x1b\[2J' -- \
	"$RIDGE" roofline --gpu h200-sxm --validation "$corpus/validation/issue21-escape-kernel.json"
check escape-validation-raw 0 "" "!$esc" -- \
	"$RIDGE" roofline --gpu h200-sxm --validation "$corpus/validation/issue21-escape-kernel.json"
check escape-stderr 2 'unknown GPU '"'"'a\x1b[2Jb'"'" "" -- "$RIDGE" hw show "a${esc}[2Jb"
check escape-json-unchanged 0 "" '"scenario":[[:space:]]*"evil\\u001b\[2J\\u0007"' -- \
	"$RIDGE" eval --json "$corpus/scenario/escape-names.yaml"

# ---- the TUI: no cursor addressing, no TUI
if command -v script >/dev/null 2>&1; then
	check tui-term-dumb 0 "" "^rc=3" -- env TERM=dumb script -qec "$RIDGE tui; echo rc=\$?" /dev/null
	check tui-term-dumb-message 3 "" "the terminal 'dumb' cannot move the cursor" -- \
		env TERM=dumb script -qec "$RIDGE tui" /dev/null
else
	echo "SKIP tui-term-dumb: no script(1)"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
