#!/bin/sh
# The H200 decode/prefill measurements replayed through ridge cost
# decode/prefill --model: validation/decode_replay.py must reproduce
# validation/README.md's table (set, predicted, floor, measured, error) exactly,
# so the README cannot drift from what ridge predicts. Each lease's fixture
# (validation/heldout/decode_step.py's JSON) is judged with the calibration
# ridge-probe wrote on that lease:
#   tests/fixtures/decode_h200.json         the fitting and judged sets (lease 2;
#                                            its calibration replayed by this
#                                            tree's ridge-probe --replay, which
#                                            adds the hwdb keys it copies)
#   tests/fixtures/decode_h200_lease3.json  the held-out grid (lease 3)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
RIDGE=${RIDGE:-build/ridge}
set -- tests/fixtures/decode_h200.json measurements/2026-12-01-h200-lease2/calibration-replayed.yaml
if [ -f tests/fixtures/decode_h200_lease3.json ]; then
	set -- "$@" tests/fixtures/decode_h200_lease3.json measurements/2026-12-02-h200-decode/calibration.yaml
fi
if [ ! -f "$1" ]; then
	echo "SKIP decode replay: $1 not captured yet"
	echo "0 passed, 0 failed"
	exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP decode replay: python3 not installed"
	echo "0 passed, 0 failed"
	exit 0
fi
passed=0
failed=0
if python3 validation/decode_replay.py "$RIDGE" "$@" --check validation/README.md; then
	passed=$((passed + 1))
else
	echo "FAIL decode replay"
	failed=$((failed + 1))
fi
# A calibration an older ridge-probe wrote (no timing: section) inherits the
# entry's classes carried to its ceilings (timing_inherit): its replay must be
# the same table as the full calibration's, never the floor.
if [ $# -ge 4 ]; then
	tmp=$(mktemp -d)
	awk '/^timing:/ { skip = 1; next } skip && /^[^ #]/ { skip = 0 } !skip' "$4" >"$tmp/no-timing.yaml"
	if grep -q '^timing:' "$4" && ! grep -q 'timing' "$tmp/no-timing.yaml" &&
		python3 validation/decode_replay.py "$RIDGE" "$3" "$4" >"$tmp/full.txt" &&
		python3 validation/decode_replay.py "$RIDGE" "$3" "$tmp/no-timing.yaml" >"$tmp/stripped.txt" &&
		cmp -s "$tmp/full.txt" "$tmp/stripped.txt"; then
		passed=$((passed + 1))
	else
		echo "FAIL decode replay: a calibration without timing: does not predict as the full one"
		diff "$tmp/full.txt" "$tmp/stripped.txt" | head -n 10
		failed=$((failed + 1))
	fi
	rm -rf "$tmp"
fi
# The independent harnesses (validation/harnesses/, issue 34): their table in
# validation/README.md is what ridge predicts today.
if python3 validation/harnesses/replay.py "$RIDGE" measurements/2026-12-03-h200-harnesses --check validation/README.md; then
	passed=$((passed + 1))
else
	echo "FAIL harness replay"
	failed=$((failed + 1))
fi
# Harness C compiled, one process a shape (H100, 2026-12-06; that lease ran no probe:
# the same day's repeat-kv lease's calibration)
if python3 validation/harnesses/replay.py "$RIDGE" measurements/2026-12-06-h100-hf-profile \
	--calibration measurements/2026-12-06-h100-repeat-kv/calibration-replayed.yaml \
	--check validation/README.md --markers harness-replay-h100-compiled; then
	passed=$((passed + 1))
else
	echo "FAIL harness replay (H100, harness C compiled)"
	failed=$((failed + 1))
fi
# Harness C compiled on the second H100 lease of 2026-12-06 (its own probe; the lease whose
# Llama-3-8B shapes fitted --host-loop hf-generate)
if python3 validation/harnesses/replay.py "$RIDGE" measurements/2026-12-06-h100-host-gap \
	--check validation/README.md --markers harness-replay-h100-host-gap; then
	passed=$((passed + 1))
else
	echo "FAIL harness replay (H100 host-gap lease, harness C compiled)"
	failed=$((failed + 1))
fi
# Harness B (and C eager) on the fourth H100 lease of 2026-12-06 (its own probe, replayed)
if python3 validation/harnesses/replay.py "$RIDGE" measurements/2026-12-06-h100-eager \
	--check validation/README.md --markers harness-replay-h100-eager; then
	passed=$((passed + 1))
else
	echo "FAIL harness replay (H100 eager lease, harness B)"
	failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
