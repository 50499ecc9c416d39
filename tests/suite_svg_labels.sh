#!/bin/sh
# Roofline SVG labels: every kernel is drawn and labelled (zero-FLOP ones on
# the bandwidth axis, marked "(0 FLOP)"), and no two texts overlap on the
# validation plot (58 of its 64 cases have FLOPs and bytes to place; 20 pairs
# of labels touched before placement searched rings of spots with leader
# lines, 1 before it searched the whole frame), on the ncu plot, or on either
# with a calibration's ceilings (whose labels piled up where two rates are
# close: 4 pairs on the H200 calibration); every ceiling keeps its label.
# Boxes are estimated as the drawing code does (tests/support/svg_lint.py).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
RIDGE=${RIDGE:-build/ridge}
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }

# Pairs of texts whose boxes overlap (svg_lint.py's check), and every
# ceiling (its ridge marker, r 3 or 4.5) labelled "... FLOP/s" in the plot.
overlaps() {
	python3 tests/support/svg_lint.py "$1" | grep -c 'texts overlap'
}
ceilings_labelled() {
	[ "$(grep -c '<circle[^>]*r="\(3\|4.5\)"' "$1")" = "$(grep -c 'paint-order="stroke">[^<]*FLOP/s</text>' "$1")" ]
}
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP suite_svg_labels: python3 not installed (tests/support/svg_lint.py)"
	echo "0 passed, 0 failed"
	exit 0
fi

"$RIDGE" roofline --validation validation/h200-validation.json --svg "$tmp/v.svg" >/dev/null 2>&1 && ok || bad "svg-validation: does not run"
ceilings_labelled "$tmp/v.svg" && ok || bad "svg-validation: a ceiling without its label"
# Every point of the plot (--json lists them) has its label.
points=$("$RIDGE" roofline --validation validation/h200-validation.json --json 2>/dev/null | grep -c '"kernel":')
labels=$(grep -o 'font-size="13"[^>]*>[^<]*<' "$tmp/v.svg" | sed 's/.*>\(.*\)</\1/' | sort -u | wc -l)
[ "$points" -gt 50 ] && [ "$labels" -ge "$points" ] && ok || bad "svg-validation: $labels labels for $points points"
n=$(overlaps "$tmp/v.svg")
[ "$n" -eq 0 ] && ok || bad "svg-validation: $n pairs of texts overlap"

"$RIDGE" roofline --gpu h200-sxm --ncu tests/fixtures/ncu_h200_raw.csv --svg "$tmp/n.svg" >/dev/null 2>&1 && ok || bad "svg-ncu: does not run"
# rp_copy counts no FLOPs: drawn on the bandwidth axis and marked.
grep -q 'rp_copy (0 FLOP)' "$tmp/n.svg" && ok || bad "svg-ncu: the zero-FLOP rp_copy is not drawn and marked"
grep -q '0 FLOP: left edge' "$tmp/n.svg" && ok || bad "svg-ncu: no legend entry for zero-FLOP kernels"
n=$(overlaps "$tmp/n.svg")
[ "$n" -eq 0 ] && ok || bad "svg-ncu: $n pairs of texts overlap"

# With a calibration: the measured ceilings (H200: fp16 and bf16 matrix 7 %
# apart, fp64 matrix and fp32 vector 3 %) and the inner levels' slopes.
for plot in "validation-calibrated --gpu h200-sxm --calibration validation/h200-calibration.yaml --validation validation/h200-validation.json" \
	"ncu-calibrated --gpu h200-sxm --calibration validation/h200-calibration.yaml --ncu tests/fixtures/ncu_h200_raw.csv" \
	"inner-calibrated --calibration tests/fixtures/roofline/h100-sxm-inner.yaml --flops 137.4G --bytes 100.7MB --time 400us"; do
	set -- $plot
	name=$1
	shift
	"$RIDGE" roofline "$@" --svg "$tmp/$name.svg" >/dev/null 2>&1 && ok || bad "svg-$name: does not run"
	n=$(overlaps "$tmp/$name.svg")
	[ "$n" -eq 0 ] && ok || bad "svg-$name: $n pairs of texts overlap"
	ceilings_labelled "$tmp/$name.svg" && ok || bad "svg-$name: a ceiling without its label"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
