#!/bin/sh
# The README's tour is true: each "$ ridge ..." line in a ```console block of
# README.md is run, and its output (stdout and stderr) must equal the lines
# that follow it in the block.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
RIDGE=${RIDGE:-build/ridge}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Split README.md into one command file and one expected-output file per example.
awk -v dir="$tmp" '
	/^```console/ { inblock = 1; next }
	/^```/ { inblock = 0; next }
	inblock && /^\$ ridge / { n++; cmd = substr($0, 3); print cmd > (dir "/" n ".cmd"); close(dir "/" n ".cmd"); printf "" > (dir "/" n ".want"); next }
	inblock && n { print >> (dir "/" n ".want") }
' README.md
passed=0
failed=0
for c in "$tmp"/*.cmd; do
	[ -f "$c" ] || continue
	n=${c%.cmd}
	cmd=$(cat "$c")
	eval "\"$RIDGE\" ${cmd#ridge }" >"$n.got" 2>&1 </dev/null
	if diff -u "$n.want" "$n.got" >"$n.diff"; then
		passed=$((passed + 1))
	else
		echo "FAIL README: $cmd"
		head -n 20 "$n.diff"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
