#!/bin/sh
# Runs every test suite and prints one closing line: "N passed, M failed".
#   unit tests (cmocka, build/tests/test_*), golden CLI tests (tests/golden),
#   and every extra suite script tests/suite_*.sh (each prints "N passed, M failed").
set -u
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
passed=0
failed=0
failures=""
total_start=$(date +%s.%N)

# Seconds since $1 (a `date +%s.%N`), to a tenth.
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# Adds one suite's counts $p and $f to the totals: a suite that exits non-zero
# without counting a failure counts one. On failures, shows the first $5 lines
# of its output $2 that match $4, and remembers its name $1.
tally() { # name output exit-status pattern lines
	p=${p:-0}
	f=${f:-0}
	if [ "$3" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$f" -ne 0 ]; then
		printf '%s\n' "$2" | grep -E "$4" | head -n "$5"
		failures="$failures $1"
	fi
}

for t in "$build"/tests/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	start=$(date +%s.%N)
	out=$("$t" 2>&1)
	rc=$?
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
	tally "$name" "$out" "$rc" '^\[  (FAILED|ERROR)|error|Failure|failed' 20
	printf '%-28s %4d passed, %d failed %7s s\n' "$name" "$p" "$f" "$(elapsed "$start")"
done

for s in "$root"/tests/suite_*.sh; do
	[ -f "$s" ] || continue
	name=$(basename "$s" .sh)
	start=$(date +%s.%N)
	out=$(RIDGE="$root/$build/ridge" BUILD="$root/$build" sh "$s" 2>&1)
	rc=$?
	line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
	p=$(printf '%s' "$line" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
	f=$(printf '%s' "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
	tally "$name" "$out" "$rc" '^(FAIL|SKIP)' 30
	printf '%s\n' "$out" | grep -E '^SKIP' | head -n 5
	printf '%-28s %4d passed, %d failed %7s s\n' "$name" "$p" "$f" "$(elapsed "$start")"
done
echo "tests took $(elapsed "$total_start") s"

[ -n "$failures" ] && echo "failing suites:$failures"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
