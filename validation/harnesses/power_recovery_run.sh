#!/bin/bash
# Issue 29's power-limit recovery measurement on a lent GPU, everything under $OUT:
# the lease's header (GPU, driver, clocks, power limit, versions), then
# power_recovery.py (about 1 minute on an H100: power_recovery.json; with
# --patterns its serving-like cycles instead: power_patterns.json), then the
# GPU's state again.
set -u
out=${OUT:-/tmp/power-recovery-out}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export PYTHONUNBUFFERED=1
log="$out/device-power.log"
. "$here/../device_steps.sh"
lease_header >"$log" 2>&1
name=power_recovery
[ "${1:-}" = --patterns ] && name=power_patterns
step $name python3 "$here/power_recovery.py" "$out/$name.json" ${1:-}
gpu_state >>"$log" 2>&1
grep -E "^(gemm|cold|idle|copy)" "$log"
