#!/bin/bash
# The held-out decode/prefill measurement on a lent GPU, in one call: the power
# limit's onset from idle (power_onset.py), ridge-probe's calibration of the same
# lease, and decode_step.py's held-out grid (--heldout). Everything under $OUT.
#   validation/heldout/decode-run.sh DIR
# DIR holds ridge-probe (with its lib/), decode_step.py and power_onset.py: on a
# lent machine that runs the session's checkout, the folder carried beside it.
set -u
dir=${1:-.}
out=${OUT:-/tmp/decode-out}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
log="$out/device.log"
. "$(dirname "$0")/../device_steps.sh"
{
	gpu_state
	python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())'
} >"$log" 2>&1
step power python3 "$dir/power_onset.py" "$out/power_onset.json" --idle 3 --calls 700
step probe sh -c "'$dir/ridge-probe' --out '$out/calibration.yaml' --json >'$out/probe.json'"
step decode python3 "$dir/decode_step.py" "$out/decode_h200.json" --heldout
gpu_state >>"$log" 2>&1
grep -E "exit|error|Error|burst" "$log" | tail -n 20
