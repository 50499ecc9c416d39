#!/bin/sh
# Every scenario file in examples/ runs as a test: `ridge eval` must succeed and
# every `expect` check in it must hold (exit 0), in human and JSON output. A file
# without an `expect` asserts nothing and is reported as a failure.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
RIDGE=${RIDGE:-build/ridge}
passed=0
failed=0
for f in examples/*.yaml; do
	[ -f "$f" ] || continue
	if ! grep -q '^ *expect:' "$f"; then
		echo "FAIL $f: no expect checks (an example must assert its key numbers)"
		failed=$((failed + 1))
		continue
	fi
	for mode in human json; do
		if [ $mode = json ]; then
			out=$("$RIDGE" eval "$f" --json 2>&1)
		else
			out=$("$RIDGE" eval "$f" 2>&1)
		fi
		rc=$?
		if [ $rc -ne 0 ]; then
			echo "FAIL $f ($mode): exit $rc"
			printf '%s\n' "$out" | grep -E 'FAIL|error' | head -n 10
			failed=$((failed + 1))
		elif [ $mode = json ] && ! printf '%s\n' "$out" | grep -q '"ok":[[:space:]]*true'; then
			echo "FAIL $f (json): no \"ok\": true"
			failed=$((failed + 1))
		else
			passed=$((passed + 1))
		fi
	done
done
echo "$passed passed, $failed failed"
