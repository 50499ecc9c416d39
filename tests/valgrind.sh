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
# Each suite runs as JOBS shards side by side (SUITE_SHARD=k/JOBS, as
# tests/run.sh runs them): valgrind is the slowest step of CI, and serial it
# leaves a core idle.
jobs=${JOBS:-$(nproc 2>/dev/null || echo 1)}
case $jobs in '' | *[!0-9]* | 0) jobs=1 ;; esac
for suite in tests/suite_golden.sh tests/suite_bad_input.sh; do
	[ -f "$suite" ] || continue
	name=$(basename "$suite" .sh)
	k=1
	while [ $k -le "$jobs" ]; do
		# valgrind runs ridge 20-50 times slower: a hang is a longer wait here.
		RIDGE="$tmp/ridge" BAD_INPUT_TIMEOUT=120 SUITE_SHARD=$k/$jobs sh "$suite" >"$tmp/$name.$k.out" 2>&1 </dev/null &
		k=$((k + 1))
	done
	wait
	p=0
	f=0
	k=1
	while [ $k -le "$jobs" ]; do
		out=$tmp/$name.$k.out
		grep -E '^(FAIL|SKIP)' "$out"
		# its last "N passed, M failed" line; a shard that printed none failed
		counts=$(awk '/^[0-9]+ passed, [0-9]+ failed/ { p = $1; f = $3 } END { print (p == "" ? 0 : p), (f == "" ? 1 : f) }' "$out")
		p=$((p + ${counts% *}))
		f=$((f + ${counts#* }))
		k=$((k + 1))
	done
	echo "$name under valgrind: $p passed, $f failed"
	passed=$((passed + p))
	failed=$((failed + f))
done
for f in "$log".*; do
	[ -s "$f" ] || continue
	echo "FAIL valgrind report:"
	sed 's/^/     /' "$f" | head -n 40
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
