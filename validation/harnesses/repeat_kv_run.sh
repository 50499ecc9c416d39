#!/bin/bash
# Issue 34's second set of harness measurements on a lent GPU, everything under $OUT:
#   1. ridge-probe --quick --out: this lease's calibration (PROBE_DIR, default .carry)
#   2. masked_decode.py: transformers' static-cache decode attention alone (repeat_kv
#      copies and the masked memory-efficient SDPA), 4 head layouts x batch x cache
#   3. sdpa_decode.py --prefill (harness B): prefills of 3 dense models and the Qwen3-30B-A3B sizes
#   4. hf_decode.py --compiled (harness C): generate compiled, 7 shapes
# About 9 minutes on an H100.
set -u
probe_dir=${1:-.carry}
out=${OUT:-/tmp/rkv-out}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export PYTHONUNBUFFERED=1 PATH="$PATH:/usr/local/cuda/bin"
log="$out/device-rkv.log"
. "$here/../device_steps.sh"
{
	gpu_state
	python3 -c 'import torch, transformers; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "transformers", transformers.__version__)'
} >"$log" 2>&1
root=$PWD
cd "$here"
step probe sh -c "'$root/$probe_dir/ridge-probe' --quick --out '$out/calibration.yaml' --json >'$out/probe.json'"
step masked python3 masked_decode.py "$out/masked_decode.json"
step prefill python3 sdpa_decode.py "$out/sdpa_prefill.json" --prefill --models llama-3-8b,qwen2.5-7b,mistral-nemo-12b,qwen3-30b-a3b
step hf_compiled python3 hf_decode.py "$out/hf_decode.json" --compiled --budget 240
gpu_state >>"$log" 2>&1
grep -E "prefill B|compiled" "$log" | tail -n 40
grep -E " exit |Error|error" "$log" | tail -n 25
