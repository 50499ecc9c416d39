#!/bin/sh
# Roofline plots: every --svg is well-formed XML (xmllint, or a structural
# check without it), renders to PNG with rsvg-convert (SKIP when absent),
# carries what it must show, and a failed command leaves no file behind.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
RIDGE=${RIDGE:-build/ridge}
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pass() { passed=$((passed + 1)); }
fail() {
	echo "FAIL $*"
	failed=$((failed + 1))
}

# Well-formed: xmllint when present; otherwise the document must open with the
# XML declaration and <svg, close with </svg>, and open and close as many
# <text> elements as it has.
well_formed() {
	if command -v xmllint >/dev/null 2>&1; then
		xmllint --noout "$1" 2>"$tmp/xmllint.err"
		return
	fi
	head -n 1 "$1" | grep -q '^<?xml version="1.0"' || return 1
	grep -q '<svg xmlns="http://www.w3.org/2000/svg"' "$1" || return 1
	[ "$(tail -n 1 "$1")" = "</svg>" ] || return 1
	[ "$(grep -o '<text ' "$1" | wc -l)" = "$(grep -o '</text>' "$1" | wc -l)" ]
}

have_rsvg=0
if command -v rsvg-convert >/dev/null 2>&1; then
	have_rsvg=1
else
	echo "SKIP rendering SVG to PNG: rsvg-convert not installed (Debian: librsvg2-bin)"
fi
command -v xmllint >/dev/null 2>&1 || echo "SKIP xmllint not installed: structural XML check instead"

# plot NAME TEXT... -- ARGS: draws, checks, and greps the SVG for each TEXT.
plot() {
	name=$1
	shift
	set -- "$@"
	texts=""
	while [ "$1" != "--" ]; do
		texts="$texts
$1"
		shift
	done
	shift
	svg="$tmp/$name.svg"
	if ! "$RIDGE" roofline "$@" --svg "$svg" >"$tmp/$name.out" 2>"$tmp/$name.err"; then
		fail "$name: ridge roofline $* --svg failed: $(head -n 2 "$tmp/$name.err")"
		return
	fi
	if [ ! -s "$svg" ]; then
		fail "$name: no SVG written"
		return
	fi
	if well_formed "$svg"; then pass; else fail "$name: SVG is not well-formed: $(head -n 3 "$tmp/xmllint.err" 2>/dev/null)"; fi
	printf '%s\n' "$texts" | while IFS= read -r t; do
		[ -z "$t" ] && continue
		grep -qF -- "$t" "$svg" || echo "missing: $t"
	done >"$tmp/$name.missing"
	if [ -s "$tmp/$name.missing" ]; then fail "$name: $(cat "$tmp/$name.missing" | tr '\n' ';')"; else pass; fi
	if [ $have_rsvg = 1 ]; then
		if rsvg-convert "$svg" -o "$tmp/$name.png" 2>"$tmp/$name.rsvg" &&
			[ "$(head -c 4 "$tmp/$name.png" | od -An -c | tr -d ' ')" = "211PNG" ]; then
			pass
		else
			fail "$name: rsvg-convert could not render it: $(head -n 2 "$tmp/$name.rsvg")"
		fi
	fi
}

plot seed-naive \
	'Roofline: NVIDIA H100 SXM5 80GB (h100-sxm), spec sheet ceilings' 'fp32 vector' 'bf16 matrix, fp16 matrix 989.4 TFLOP/s' \
	'ridge 19.97 FLOP/B' 'gemm-naive (l2-aware bytes)' 'gemm-naive (compulsory bytes)' 'HBM 3.35 TB/s' \
	'L2: bandwidth unknown' 'shared memory: bandwidth unknown' 'arithmetic intensity (FLOP/byte)' 'performance (FLOP/s)' \
	-- --gpu h100-sxm --kernel gemm-naive --m 4096 --n 4096 --k 4096 --dtype fp32
plot attention 'ridge 295.3 FLOP/B' 'attention (compulsory bytes)' \
	-- --kernel attention --seq 8192 --heads 64 --head-dim 128 --dtype bf16
plot measured 'measured' 'stroke-dasharray' -- --flops 137.4G --bytes 100.7MB --time 400us
plot sparse 'fp8 sparse matrix' 'ridge 1181 FLOP/B' -- --dtype fp8 --sparse --intensity 2000
plot calibrated 'L2 10 TB/s' 'shared memory 30 TB/s' -- --calibration tests/fixtures/roofline/h100-sxm-inner.yaml --intensity 50
plot ncu-raw '0 nvjet_hsh_256x128_64x4_2x1_v_bz_<' '1 vectorAdd<' 'NVIDIA H200 SXM 141GB' \
	-- --gpu h200-sxm --ncu tests/fixtures/ncu/raw_h200.csv
plot ncu-long '0 ampere_bf16_s16816gemm_bf16_128x' '1 rms_norm_kernel' '2 flash_fwd_kernel' \
	-- --gpu h200-sxm --ncu tests/fixtures/ncu/long_h200.csv
plot amd 'AMD Instinct MI300X' 'bf16 matrix, fp16 matrix' -- --gpu mi300x --intensity 10
# Names with quotes and & (a CSV "" escape) reach the SVG escaped, cut at the template.
plot escape '>1 k_&quot;quoted&quot;&amp;more</text>' -- --ncu tests/fixtures/ncu/names.csv --gpu h200-sxm

# Every point drawn: one circle per kernel on top of the ceiling markers.
n=$(grep -c '<circle[^>]*r="5.5"[^>]*fill="#\(1f5fbf\|c0392b\)" stroke="#ffffff"' "$tmp/ncu-long.svg")
# three kernels + two legend swatches
if [ "$n" = 5 ]; then pass; else fail "ncu-long: expected 3 kernel points and 2 legend marks, found $n circles"; fi

# A failed command writes nothing, and leaves an existing file alone.
if "$RIDGE" roofline --flops 0 --bytes 1 --svg "$tmp/bad.svg" >/dev/null 2>&1; then
	fail "bad input: exit 0"
elif [ -e "$tmp/bad.svg" ] || ls "$tmp"/bad.svg.tmp* >/dev/null 2>&1; then
	fail "bad input: left a file behind"
else
	pass
fi
echo keep >"$tmp/keep.svg"
"$RIDGE" roofline --ncu tests/fixtures/ncu/bad/unterminated.csv --svg "$tmp/keep.svg" >/dev/null 2>&1
if [ "$(cat "$tmp/keep.svg")" = keep ]; then pass; else fail "malformed CSV: overwrote an existing --svg file"; fi
if "$RIDGE" roofline --intensity 3 --svg "$tmp/no/such/dir/x.svg" >/dev/null 2>"$tmp/nodir.err"; then
	fail "unwritable --svg: exit 0"
elif grep -q "ridge: error: --svg: cannot write '$tmp/no/such/dir/x.svg': No such file or directory" "$tmp/nodir.err"; then
	pass
else fail "unwritable --svg: $(cat "$tmp/nodir.err")"; fi

# --json with --svg: stdout is still one JSON document, naming the file.
"$RIDGE" roofline --kernel softmax --m 8 --n 4096 --json --svg "$tmp/j.svg" >"$tmp/j.json" 2>&1
if command -v python3 >/dev/null 2>&1; then
	if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["svg"].endswith("j.svg") and d["bound"]=="memory"' "$tmp/j.json"; then
		pass
	else
		fail "--json --svg: stdout is not one JSON document: $(head -c 200 "$tmp/j.json")"
	fi
else
	echo "SKIP --json --svg document check: python3 not installed"
fi

# Every JSON golden of these commands parses, with no key twice in an object
# (tests/golden.awk writes each case's expected stdout to <case>.out).
mkdir "$tmp/golden"
if ! awk -v dir="$tmp/golden" -f tests/golden.awk tests/golden/roofline.test tests/golden/gemm.test >/dev/null; then
	fail "JSON goldens: tests/golden/roofline.test or gemm.test does not read (above)"
elif command -v python3 >/dev/null 2>&1; then
	if python3 - "$tmp"/golden/*.out <<'PY'; then pass; else fail "JSON goldens: see above"; fi
import json, sys
def no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        raise ValueError("duplicate keys %s" % dup)
    return dict(pairs)
bad = 0
for path in sys.argv[1:]:
    text = open(path).read()
    if not text.startswith("{"):
        continue
    try:
        json.loads(text, object_pairs_hook=no_duplicates)
    except ValueError as e:
        print("FAIL golden %s: %s" % (path.split("/")[-1][:-4], e))
        bad += 1
sys.exit(1 if bad else 0)
PY
else
	echo "SKIP JSON golden check: python3 not installed"
fi

# The committed example renders from the same command (docs/README.md).
if [ -f docs/roofline-h100.png ] && [ "$(head -c 4 docs/roofline-h100.png | od -An -c | tr -d ' ')" = "211PNG" ]; then
	pass
else
	fail "docs/roofline-h100.png is missing or not a PNG"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
