#!/bin/bash
# Issue 34's fourth set on a lent GPU (an H100), everything under $OUT:
#   1. ridge-probe --quick --out: this lease's calibration (PROBE_DIR, default .carry)
#   2. hf_profile.py --second --only 6,7,8,9 (harness C eager: kernels a token, GPU busy, host)
#   3. sdpa_decode.py on 3 dense models (harness B decode, graph and eager, on this GPU)
# About 4 minutes on an H100.
set -u
probe_dir=${1:-.carry}
out=${OUT:-/tmp/eager-out}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export PYTHONUNBUFFERED=1 PATH="$PATH:/usr/local/cuda/bin"
log="$out/device-eager.log"
. "$here/../device_steps.sh"
lease_header >"$log" 2>&1
root=$PWD
cd "$here"
step probe sh -c "'$root/$probe_dir/ridge-probe' --quick --out '$out/calibration.yaml' --json >'$out/probe.json'"
step hf_eager python3 hf_profile.py "$out/hf_profile.json" --second --only 6,7,8,9 --budget 200
step sdpa_decode python3 sdpa_decode.py "$out/sdpa_decode.json" --models llama-3-8b,qwen2.5-7b,llama-3.2-3b
gpu_state >>"$log" 2>&1
grep -E "TPOT| B[0-9]+ +C|exit" "$log" | tail -n 50
grep -E "Error|error" "$log" | tail -n 10
