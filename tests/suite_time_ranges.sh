#!/bin/sh
# The uncertainty bands of predicted times (model/timing_range.c) are what
# validation/time_ranges.py computes from the held-out measurements it names,
# and validation/README.md's coverage table ("How far to trust a prediction")
# is what those bands cover today: neither can drift from the data.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
RIDGE=${RIDGE:-build/ridge}
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP time ranges: python3 not installed"
	echo "0 passed, 0 failed"
	exit 0
fi
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bands() { grep -o -e 'BAND([A-Z]*, [A-Z]*, [-0-9.]*, [-0-9.]*, [0-9]*)' -e '^#define RIDGE_EAGER_HOST_BAND .*'; }
if python3 validation/time_ranges.py "$RIDGE" >"$tmp/computed" &&
	bands <"$tmp/computed" >"$tmp/a" && bands <model/timing_range.c >"$tmp/b" && [ -s "$tmp/a" ] &&
	cmp -s "$tmp/a" "$tmp/b"; then
	passed=$((passed + 1))
else
	echo "FAIL time ranges: model/timing_range.c's bands differ from validation/time_ranges.py's"
	diff "$tmp/a" "$tmp/b" | head -n 10
	failed=$((failed + 1))
fi
if python3 validation/time_ranges.py "$RIDGE" --coverage >"$tmp/coverage" &&
	awk '/<!-- time-ranges:begin -->/ { on = 1; next } /<!-- time-ranges:end -->/ { on = 0 } on' \
		validation/README.md >"$tmp/readme" && cmp -s "$tmp/coverage" "$tmp/readme"; then
	passed=$((passed + 1))
else
	echo "FAIL time ranges: validation/README.md's coverage table is not what ridge's ranges cover today"
	diff "$tmp/coverage" "$tmp/readme" | head -n 10
	failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
