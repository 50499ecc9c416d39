#!/bin/sh
# ridge occupancy: what golden files cannot check: the SVG it writes (well
# formed, three charts, the configuration marked), that a failed write leaves
# no file, the size of --sweep, and --help. Prints "N passed, M failed" last.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
RIDGE=${RIDGE:-build/ridge}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }

# SVG: NVIDIA and AMD, each a complete document with three charts and a marker.
for gpu in h100-sxm mi300x; do
	svg="$tmp/$gpu.svg"
	if "$RIDGE" occupancy --gpu "$gpu" --threads 256 --regs 32 --smem 32KiB --svg "$svg" >"$tmp/out" 2>"$tmp/err"; then
		charts=$(grep -c '<polyline' "$svg")
		marks=$(grep -c 'this kernel: ' "$svg")
		if head -n 1 "$svg" | grep -q '^<?xml' && tail -n 1 "$svg" | grep -q '^</svg>$' && [ "$charts" -eq 3 ] &&
			[ "$marks" -eq 3 ] && grep -q "wrote $svg" "$tmp/out"; then
			ok
		else
			bad "svg $gpu: $charts charts, $marks marks, or not a complete document"
		fi
	else
		bad "svg $gpu: exit $?: $(head -n 1 "$tmp/err")"
	fi
done
if command -v xmllint >/dev/null 2>&1; then
	if xmllint --noout "$tmp/h100-sxm.svg" 2>/dev/null; then ok; else bad "svg: xmllint rejects the file"; fi
fi

# A path that cannot be written: a usage error (exit 2) before any work, naming
# the flag and the file, nothing left behind (app_output_path_ok).
"$RIDGE" occupancy --threads 256 --regs 32 --svg "$tmp/no/such/dir/x.svg" >/dev/null 2>"$tmp/err"
code=$?
if [ "$code" -eq 2 ] && grep -q "ridge: error: --svg: cannot write '$tmp/no/such/dir/x.svg'" "$tmp/err" &&
	[ -z "$(find "$tmp" -name 'x.svg*')" ]; then
	ok
else
	bad "svg to a missing directory: exit $code, $(head -n 1 "$tmp/err")"
fi
# Bad input is refused before anything is written.
"$RIDGE" occupancy --threads 0 --regs 32 --svg "$tmp/never.svg" >/dev/null 2>&1
code=$?
if [ "$code" -eq 2 ] && [ ! -e "$tmp/never.svg" ]; then ok; else bad "bad input with --svg: exit $code or a file was written"; fi

# --sweep --json: one row per warp-size step up to the block limit (32..1024 by 32 on NVIDIA, 64..1024 by 64 on AMD).
for pair in "h100-sxm 32" "mi300x 16"; do
	set -- $pair
	rows=$("$RIDGE" occupancy --gpu "$1" --regs 32 --sweep --json | grep -c '"threads_per_block"')
	# the document's own threads_per_block plus one per row
	if [ "$rows" -eq $(($2 + 1)) ]; then ok; else bad "sweep on $1: $((rows - 1)) rows, expected $2"; fi
done

# --help: usage on stdout, exit 0.
if "$RIDGE" occupancy --help | grep -q '^usage: ridge occupancy'; then ok; else bad "--help"; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
