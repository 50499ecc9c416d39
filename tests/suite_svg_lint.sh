#!/bin/sh
# Every kind of SVG plot ridge writes, drawn from files in the repository,
# renders to PNG with rsvg-convert (SKIP when absent) and passes
# tests/support/svg_lint.py: no two text boxes overlap, every text inside the
# canvas (and inside its clip rectangle), a title, and every axis titled with
# its unit and at least 4 tick labels. The lint is first shown a bad plot and
# must name each of its faults; and every file that starts an SVG
# (svg_begin) must be one whose plots are drawn here.
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
lint="python3 tests/support/svg_lint.py"

if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP suite_svg_lint: python3 not installed (tests/support/svg_lint.py)"
	echo "0 passed, 0 failed"
	exit 0
fi
have_rsvg=0
if command -v rsvg-convert >/dev/null 2>&1; then
	have_rsvg=1
else
	echo "SKIP rendering SVG to PNG: rsvg-convert not installed (Debian: librsvg2-bin)"
fi

# The lint catches what it is there to catch: a plot with two overlapping
# labels, a text off the canvas, one cut by its clip rectangle, no visible
# title, an axis title without a unit, an axis with 3 ticks, and no y axis.
cat >"$tmp/bad.svg" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300" viewBox="0 0 400 300">
<title>bad</title>
<text x="100" y="50" font-size="12" text-anchor="start" fill="#000">first label</text>
<text x="100" y="50" font-size="12" text-anchor="start" fill="#000">first label</text>
<text x="150" y="55" font-size="12" text-anchor="start" fill="#000">second label</text>
<text x="390" y="100" font-size="12" text-anchor="start" fill="#000">off the edge</text>
<clipPath id="plot"><rect x="50" y="150" width="100" height="100"/></clipPath>
<g clip-path="url(#plot)">
<text x="140" y="200" font-size="12" text-anchor="start" fill="#000">cut</text>
</g>
<g class="axis x">
<text x="60" y="280" font-size="12" text-anchor="middle" fill="#000" class="tick">1</text>
<text x="160" y="280" font-size="12" text-anchor="middle" fill="#000" class="tick">10</text>
<text x="260" y="280" font-size="12" text-anchor="middle" fill="#000" class="tick">100</text>
<text x="200" y="296" font-size="12" text-anchor="middle" fill="#000" class="axis-title">time</text>
</g>
</svg>
EOF
$lint "$tmp/bad.svg" >"$tmp/bad.out" 2>&1
code=$?
for want in "texts overlap: 'first label'" "text outside the 400x300 canvas: 'off the edge'" \
	"text cut by its clip rectangle" "no visible title" "its title 'time' gives no unit" \
	"3 tick labels, fewer than 4" "no y axis"; do
	if [ $code -eq 1 ] && grep -qF -- "$want" "$tmp/bad.out"; then pass; else fail "lint self-test: '$want' not reported (exit $code): $(head -n 3 "$tmp/bad.out")"; fi
done
# ... and a halo copy (the same text at the same place) is not an overlap.
if grep -q "'first label'.*'first label'" "$tmp/bad.out"; then fail "lint self-test: a text overlaps its own copy"; else pass; fi

# kind NAME ARGS...: ridge ARGS --svg (exit 0, or 1: a fleet with flagged GPUs),
# rendered to PNG, and listed for the lint (one run over every plot, below).
covered=""
: >"$tmp/kinds"
kind() {
	name=$1
	shift
	svg="$tmp/$name.svg"
	"$RIDGE" "$@" --svg "$svg" >"$tmp/$name.out" 2>"$tmp/$name.err"
	code=$?
	if [ $code -gt 1 ] || [ ! -s "$svg" ]; then
		fail "$name: ridge $* --svg: exit $code: $(head -n 2 "$tmp/$name.err")"
		return
	fi
	pass
	if [ $have_rsvg = 1 ]; then
		if rsvg-convert "$svg" -o "$tmp/$name.png" 2>"$tmp/$name.rsvg" &&
			[ "$(head -c 4 "$tmp/$name.png" | od -An -c | tr -d ' ')" = "211PNG" ]; then
			pass
		else
			fail "$name: rsvg-convert could not render it: $(head -n 2 "$tmp/$name.rsvg")"
		fi
	fi
	echo "$name $*" >>"$tmp/kinds"
}

# Roofline (app/view/roofline_svg.c): from the spec sheet, a kernel, a
# measurement, a sparse rate, an AMD GPU, with Nsight Compute kernels, with a
# validation run (with and without the calibration it was measured with, and
# one group), and with a calibration's measured ceilings.
kind roofline-spec roofline --gpu h100-sxm --dtype bf16 --flops 1e12 --bytes 1e9
kind roofline-kernel roofline --gpu h100-sxm --kernel gemm-naive --m 4096 --n 4096 --k 4096 --dtype fp32
kind roofline-measured roofline --flops 137.4G --bytes 100.7MB --time 400us
kind roofline-sparse roofline --dtype fp8 --sparse --intensity 2000
kind roofline-amd roofline --gpu mi300x --intensity 10
kind roofline-ncu roofline --gpu h200-sxm --ncu tests/fixtures/ncu_h200_raw.csv
kind roofline-ncu-long roofline --gpu h200-sxm --ncu tests/fixtures/ncu/long_h200.csv
kind roofline-ncu-names roofline --gpu h200-sxm --ncu tests/fixtures/ncu/names.csv
kind roofline-validation roofline --validation validation/h200-validation.json
kind roofline-validation-calibrated roofline --gpu h200-sxm --calibration validation/h200-calibration.yaml \
	--validation validation/h200-validation.json
kind roofline-validation-group roofline --gpu h200-sxm --calibration validation/h200-calibration.yaml \
	--validation validation/h200-validation.json --group library_gemm
kind roofline-calibration roofline --calibration tests/fixtures/roofline/h100-sxm-inner.yaml --intensity 50
kind roofline-calibration-ncu roofline --gpu h200-sxm --calibration validation/h200-calibration.yaml \
	--ncu tests/fixtures/ncu_h200_raw.csv
covered="$covered app/view/roofline_svg.c"

# Occupancy charts (app/calc/occupancy_charts.c): NVIDIA and AMD.
kind occupancy occupancy --gpu h100-sxm --threads 256 --regs 32 --smem 32KiB
kind occupancy-amd occupancy --gpu mi300x --threads 256 --regs 32 --smem 32KiB
covered="$covered app/calc/occupancy_charts.c"

# The plan's Pareto front (app/calc/plan_calc.c).
kind plan plan --model examples/models/llama-3-70b.json --tpot 50ms --ttft 2s --context 8k \
	--gpu h100-sxm,h200-sxm,mi300x
kind plan-one-gpu plan --model examples/models/mixtral-8x7b.json --tpot 50ms --ttft 2s --context 4k --gpu h100-sxm
covered="$covered app/calc/plan_calc.c"

# The serving search's front (app/calc/plan_serve_calc.c): aggregated and
# disaggregated on one GPU type, and an open loop over two.
kind plan-serve plan --model examples/models/llama-3-70b.json --isl 1024 --osl 128 --concurrency 64 --tpot 50ms \
	--ttft 2s --gpu h100-sxm --weight-dtype fp8 --max-gpus 4
kind plan-serve-open plan --model examples/models/llama-3-8b.json --isl 2000 --osl 200 --rate 8 --tpot 30ms \
	--ttft 1s --gpu h100-sxm,l40s --max-gpus 2 --layout agg
covered="$covered app/calc/plan_serve_calc.c"

# The serving timeline (app/view/serve_view.c): a closed loop and a rate.
kind serve serve --model examples/models/llama-3-8b.json --gpu h100-sxm --isl 1024 --osl 128 --concurrency 16 \
	--requests 64
kind serve-rate serve --model examples/models/llama-3-70b.json --gpu h200-sxm --tp 4 --isl-dist uniform:500:1500 \
	--osl 200 --rate 4 --requests 100 --engine sglang
kind serve-disagg serve --model examples/models/llama-3-8b.json --gpu h100-sxm --isl 1024 --osl 128 \
	--concurrency 16 --requests 64 --disagg --prefill-tp 1 --prefill-workers 1 --decode-tp 1 --decode-workers 1
covered="$covered app/view/serve_view.c"

# The fleet's strip plots (app/view/fleet_view.c): one run, two compared.
kind fleet fleet tests/fixtures/fleet/after
kind fleet-compare fleet tests/fixtures/fleet/before tests/fixtures/fleet/after
covered="$covered app/view/fleet_view.c"

# The lint, once over every plot drawn; each plot's problems under its name.
$lint $(sed "s|^\([^ ]*\) .*|$tmp/\1.svg|" "$tmp/kinds") >"$tmp/lint.out" 2>&1
while read -r name args; do
	if grep -q "^$tmp/$name.svg: " "$tmp/lint.out"; then
		fail "$name: ridge $args: $(grep -c "^$tmp/$name.svg: " "$tmp/lint.out") problems:"
		grep "^$tmp/$name.svg: " "$tmp/lint.out" | sed "s|^$tmp/||; s/^/     /" | head -n 8
	else
		pass
	fi
done <"$tmp/kinds"
if grep -v "^$tmp/[a-z-]*\.svg: " "$tmp/lint.out" | grep -q .; then
	fail "lint: $(grep -v "^$tmp/[a-z-]*\.svg: " "$tmp/lint.out" | head -n 3)"
fi

# Every file that starts an SVG has its plots drawn above.
for file in $(grep -rl 'svg_begin(' app cli tui --include='*.c' | grep -v '^app/view/svg\.c$' | sort); do
	case " $covered " in
	*" $file "*) pass ;;
	*) fail "$file starts an SVG (svg_begin) that this suite does not draw" ;;
	esac
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
