#!/bin/sh
# Regenerates what validation/README.md shows from the recorded H200 run
# (tests/fixtures/validate_h200.json): the replayed report, the validation
# cases (h200-validation.json) and the roofline plots, all with today's model.
# Needs build/ridge-probe (make, with nvcc) and build/ridge; no GPU.
#   validation/make-report.sh [--png]   (--png also renders PNGs with rsvg-convert to look at)
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
probe=$BUILD/ridge-probe
ridge=$BUILD/ridge
run=tests/fixtures/validate_h200.json
cal=validation/h200-calibration.yaml
"$probe" --replay "$run" --validation-json validation/h200-validation.json >tests/fixtures/validate_h200.txt
sed -i '$d' tests/fixtures/validate_h200.txt # the "validation written to" line
"$ridge" roofline --gpu h200-sxm --calibration "$cal" --validation validation/h200-validation.json \
	--svg validation/h200-roofline.svg >/dev/null
for group in fp32_gemm library_gemm fused; do
	"$ridge" roofline --gpu h200-sxm --calibration "$cal" --validation validation/h200-validation.json \
		--group "$group" --svg "validation/h200-roofline-$group.svg" >/dev/null
done
if [ "${1:-}" = --png ]; then
	for svg in validation/h200-roofline*.svg; do
		rsvg-convert -o "/tmp/$(basename "$svg" .svg).png" "$svg"
	done
	echo "PNGs in /tmp/h200-roofline*.png"
fi
