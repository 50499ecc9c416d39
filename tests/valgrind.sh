#!/bin/sh
# make check-valgrind: the golden CLI cases and the bad-input table, each run
# through valgrind (memcheck). A memory error or a definite leak makes ridge
# exit 99, which no case expects, so the case fails; stdout, exit code and
# stderr are otherwise checked exactly as in the ordinary run.
# Prints "N passed, M failed" last, like every suite.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
RIDGE=${RIDGE:-build/ridge}
case $RIDGE in /*) ;; *) RIDGE=$root/$RIDGE ;; esac
if ! command -v valgrind >/dev/null 2>&1; then
	echo "SKIP check-valgrind: valgrind is not installed (apt-get install -y valgrind)"
	echo "0 passed, 0 failed"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log=$tmp/valgrind.log
# One wrapper, so each suite runs it as it would run ridge. Reports go to a log
# (not stderr, where they could satisfy or spoil an expected-stderr check).
cat >"$tmp/ridge" <<WRAP
#!/bin/sh
exec valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \\
	--show-leak-kinds=definite --log-file="$log.%p" "$RIDGE" "\$@"
WRAP
chmod +x "$tmp/ridge"
passed=0
failed=0
for suite in tests/suite_golden.sh tests/suite_bad_input.sh; do
	[ -f "$suite" ] || continue
	# valgrind runs ridge 20-50 times slower: a hang is a longer wait here.
	out=$(RIDGE="$tmp/ridge" BAD_INPUT_TIMEOUT=120 sh "$suite" 2>&1)
	printf '%s\n' "$out" | grep -E '^(FAIL|SKIP)'
	line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
	p=$(printf '%s' "$line" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
	f=$(printf '%s' "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
	echo "$(basename "$suite" .sh) under valgrind: ${p:-0} passed, ${f:-0} failed"
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-1}))
done
for f in "$log".*; do
	[ -s "$f" ] || continue
	echo "FAIL valgrind report:"
	sed 's/^/     /' "$f" | head -n 40
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
