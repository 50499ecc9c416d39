#!/bin/sh
# The proof of issue 26's conversion: every golden case read from the .test
# files (tests/golden.awk) gives back, byte for byte, the .cmd, .out, .err and
# .code files tests/golden held at REV (default b8ba4f0, the last commit with
# one file per expectation), no file more and none less; and the .test files
# are exactly what the writer (tests/golden_convert.sh, tests/golden_block.sh)
# makes of them, so `suite_golden.sh --update` rewrites only the case it updates.
#   sh tests/golden_verify.sh [REV]
# Prints what it compared and "N passed, M failed" last, like a suite.
set -u
rev=${1:-b8ba4f0}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/new" "$tmp/old" "$tmp/canon"
passed=0
failed=0
if ! awk -v dir="$tmp/new" -f tests/golden.awk tests/golden/*.test >"$tmp/index"; then
	echo "FAIL the .test files do not read (above)"
	echo "0 passed, 1 failed"
	exit 1
fi
if ! git archive "$rev" tests/golden | tar -x -C "$tmp/old"; then
	echo "FAIL cannot read tests/golden at $rev"
	echo "0 passed, 1 failed"
	exit 1
fi
old=$tmp/old/tests/golden
(cd "$old" && LC_ALL=C ls) >"$tmp/old.list"
(cd "$tmp/new" && LC_ALL=C ls) >"$tmp/new.list"
if ! cmp -s "$tmp/old.list" "$tmp/new.list"; then
	echo "FAIL the files differ from those at $rev:"
	diff "$tmp/old.list" "$tmp/new.list" | sed 's/^/     /' | head -n 20
	failed=$((failed + 1))
fi
while read -r f; do
	if [ -f "$tmp/new/$f" ] && cmp -s "$old/$f" "$tmp/new/$f"; then
		passed=$((passed + 1))
	else
		echo "FAIL $f differs from $rev:tests/golden/$f"
		failed=$((failed + 1))
	fi
done <"$tmp/old.list"
for ext in cmd out err code; do
	printf '%s: %s files\n' "$ext" "$(grep -c "\.$ext\$" "$tmp/old.list")"
done
echo "$(wc -l <"$tmp/index") cases in $(ls tests/golden/*.test | wc -l) .test files, $(wc -l <"$tmp/old.list") files at $rev"
# Written as the writer writes them.
if sh tests/golden_convert.sh "$tmp/new" "$tmp/canon"; then
	for t in tests/golden/*.test; do
		if cmp -s "$t" "$tmp/canon/$(basename "$t")"; then
			passed=$((passed + 1))
		else
			echo "FAIL $t is not as tests/golden_convert.sh writes it:"
			diff -u "$t" "$tmp/canon/$(basename "$t")" | head -n 20
			failed=$((failed + 1))
		fi
	done
	[ "$(ls "$tmp/canon" | wc -l)" = "$(ls tests/golden/*.test | wc -l)" ] || {
		echo "FAIL the writer makes other .test files: $(ls "$tmp/canon" | tr '\n' ' ')"
		failed=$((failed + 1))
	}
else
	echo "FAIL tests/golden_convert.sh refused a case (above)"
	failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
