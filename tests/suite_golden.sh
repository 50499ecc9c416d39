#!/bin/sh
# Golden CLI tests (jq style): tests/golden/<case>.cmd holds the arguments to
# ridge (one line, shell words, run from the repository root); <case>.out the
# exact expected stdout; <case>.code the exit code (default 0); <case>.err, if
# present, a text that stderr must contain.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
RIDGE=${RIDGE:-build/ridge}
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for cmd in tests/golden/*.cmd; do
	[ -f "$cmd" ] || continue
	case=${cmd%.cmd}
	name=$(basename "$case")
	want_code=0
	[ -f "$case.code" ] && want_code=$(cat "$case.code")
	eval "\"$RIDGE\" $(cat "$cmd")" >"$tmp/out" 2>"$tmp/err" </dev/null
	code=$?
	ok=1
	if [ "$code" != "$want_code" ]; then
		echo "FAIL $name: exit $code, expected $want_code"
		sed 's/^/     stderr: /' "$tmp/err" | head -n 5
		ok=0
	fi
	if [ -f "$case.out" ] && ! diff -u "$case.out" "$tmp/out" >"$tmp/diff"; then
		echo "FAIL $name: stdout differs"
		head -n 30 "$tmp/diff"
		ok=0
	fi
	if [ -f "$case.err" ] && ! grep -qF -- "$(cat "$case.err")" "$tmp/err"; then
		echo "FAIL $name: stderr lacks '$(cat "$case.err")'; got:"
		head -n 5 "$tmp/err"
		ok=0
	fi
	if [ $ok = 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "$passed passed, $failed failed"
