#!/bin/sh
# "-" is standard input for every file argument: each command below prints
# the same with FILE as with "- < FILE" (the file's name in the output
# becomes "-"); a terminal, an empty input and an SQLite trace on standard
# input are refused with exit 2 (issue 32).
# Prints "FAIL ..." per failure and "N passed, M failed" last.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
RIDGE=${RIDGE:-$root/build/ridge}
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config"
unset RIDGE_HWDB
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }

m=measurements
# FILE<TAB>arguments with @ where the file goes
cat >"$tmp/cases" <<CASES
examples/worked-example-7-1.yaml	eval @
examples/review-q9-rank.yaml	cost rank @
examples/models/llama-3-8b.json	model @
examples/models/llama-3-8b.json	cost decode --model @ --context 2048 --batch 8 --gpus 1
examples/models/llama-3-8b.json	cost prefill --model @ --seq 2048 --batch 1 --gpus 1
examples/models/d-model-6000.json	align --dtype bf16 --model @
examples/models/llama-3-70b.json	plan --model @ --tpot 50ms --ttft 2s --context 8k
hwdb/h100-sxm.yaml	hw check @
$m/2026-12-02-h200-decode/calibration.yaml	roofline --calibration @ --flops 137G --bytes 550GB
$m/2026-12-02-h200-decode/calibration.yaml	hw show h200-sxm --calibration @
examples/occupancy/ptxas-cuda13.txt	occupancy --ptxas @
examples/occupancy/cuobjdump-sm90.txt	occupancy --resource-usage @
$m/2026-11-30-h200/ncu_h200.csv	roofline --gpu h200-sxm --ncu @
$m/2026-12-03-h200-probe-sweep/validate.json	roofline --validation @
$m/2026-12-01-h200-heldout/timings.json	calibrate --timings @
$m/2026-12-01-h200-heldout/ncu_rows.csv	calibrate --ncu @
$m/2026-11-30-h200-passes/run4-memory-launch-1.json	compare @ $m/2026-11-30-h200-passes/run4-memory-launch-2.json
$m/2026-12-01-h200-lease2/torch_trace.json	trace @ --tokens 32
examples/worked-example-7-1.yaml	tui --dump @
CASES
tab=$(printf '\t')
while IFS=$tab read -r file args; do
	with_file=$(printf '%s' "$args" | sed "s|@|$file|")
	with_stdin=$(printf '%s' "$args" | sed "s|@|-|")
	# shellcheck disable=SC2086
	"$RIDGE" $with_file </dev/null >"$tmp/file.out" 2>"$tmp/file.err"
	want=$?
	# shellcheck disable=SC2086
	"$RIDGE" $with_stdin <"$file" >"$tmp/stdin.out" 2>"$tmp/stdin.err"
	got=$?
	# the file's name, where the output shows it, is "-" when read from standard input
	sed "s|$file|-|g" "$tmp/file.out" >"$tmp/file.named"
	if [ "$got" = "$want" ] && [ "$want" -le 1 ] && cmp -s "$tmp/file.named" "$tmp/stdin.out"; then ok; else
		bad "ridge $with_stdin < $file: exit $got (with the file: $want), $(diff "$tmp/file.named" "$tmp/stdin.out" | head -n 4 | tr '\n' ' ') $(head -c 200 "$tmp/stdin.err")"
	fi
done <"$tmp/cases"

# Refused, exit 2, nothing on stdout: an empty standard input, an SQLite
# trace (SQLite reads a file), and a terminal (nothing would end the read).
expect_refused() { # WHAT TEXT -- command...
	what=$1 text=$2
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	code=$?
	if [ "$code" = 2 ] && [ ! -s "$tmp/out" ] && grep -qF -- "$text" "$tmp/err"; then ok; else
		bad "$what: exit $code, stderr: $(head -c 200 "$tmp/err")"
	fi
}
expect_refused "eval - </dev/null" "empty file" -- sh -c '"$1" eval - </dev/null' _ "$RIDGE"
expect_refused "trace - < an SQLite export" "read from a file, not standard input" -- \
	sh -c '"$1" trace - <tests/fixtures/trace/nsys-schema.sqlite' _ "$RIDGE"
expect_refused "eval - </dev/zero" "larger than" -- sh -c '"$1" eval - </dev/zero' _ "$RIDGE"
if command -v script >/dev/null 2>&1; then
	script -qec "\"$RIDGE\" eval -" /dev/null </dev/null >"$tmp/tty.out" 2>&1
	grep -q "a terminal" "$tmp/tty.out" && ok || bad "eval - on a terminal: $(head -c 200 "$tmp/tty.out")"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
