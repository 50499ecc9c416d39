#!/bin/sh
# The H200 decode/prefill measurements (tests/fixtures/decode_h200.json, from
# validation/heldout/decode_step.py) replayed through ridge cost decode/prefill
# --model: validation/decode_replay.py must reproduce validation/README.md's
# table (predicted, floor, measured, error) exactly, so the README cannot
# drift from what ridge predicts.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
RIDGE=${RIDGE:-build/ridge}
fixture=tests/fixtures/decode_h200.json
# the calibration ridge-probe wrote on the same lease as the measurement
calibration=measurements/2026-12-01-h200-lease2/calibration.yaml
[ -f "$calibration" ] || calibration=validation/h200-calibration.yaml
if [ ! -f "$fixture" ]; then
	echo "SKIP decode replay: $fixture not captured yet"
	echo "0 passed, 0 failed"
	exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP decode replay: python3 not installed"
	echo "0 passed, 0 failed"
	exit 0
fi
if python3 validation/decode_replay.py "$RIDGE" "$fixture" "$calibration" --check validation/README.md; then
	echo "1 passed, 0 failed"
else
	echo "FAIL decode replay"
	echo "0 passed, 1 failed"
fi
