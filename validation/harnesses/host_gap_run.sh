#!/bin/bash
# Issue 34's third set of harness measurements on a lent GPU (meant for an H200, the lease
# whose compiled harness C steps ridge prices 20 % fast), everything under $OUT:
#   1. ridge-probe --quick --out: this lease's calibration (PROBE_DIR, default .carry)
#   2. hf_profile.py --second (harness C): per shape, one process, the token's time split into
#      the GPU's busy time and the GPU's wait for generate's host loop; compiled and eager
#   3. sdpa_decode.py --prefill (harness B): prefills of 3 dense models on this GPU, with the
#      kernels of the 2,048- and 8,192-token prefills
#   4. whether FlashAttention-3 is in the image (torch's flash-attention registry, flash_attn_3)
# About 8 minutes on an H200.
set -u
probe_dir=${1:-.carry}
out=${OUT:-/tmp/hostgap-out}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export PYTHONUNBUFFERED=1 PATH="$PATH:/usr/local/cuda/bin"
log="$out/device-hostgap.log"
. "$here/../device_steps.sh"
lease_header >"$log" 2>&1
root=$PWD
cd "$here"
step probe sh -c "'$root/$probe_dir/ridge-probe' --quick --out '$out/calibration.yaml' --json >'$out/probe.json'"
step fa3 python3 -c '
import importlib, torch
import torch.nn.attention as a
print("flash-attention impls:", getattr(a, "list_flash_attention_impls", lambda: "no registry")())
for m in ("flash_attn_interface", "flash_attn_3", "flash_attn"):
    try:
        importlib.import_module(m); print(m, "importable")
    except Exception as e:
        print(m, "not importable:", repr(e)[:120])
try:
    a.activate_flash_attention_impl("FA3"); print("FA3 activated")
except Exception as e:
    print("FA3 not activated:", repr(e)[:200])
'
step hf_profile python3 hf_profile.py "$out/hf_profile.json" --second --budget 270
step prefill python3 sdpa_decode.py "$out/sdpa_prefill.json" --prefill --models llama-3-8b,qwen2.5-7b,mistral-nemo-12b
gpu_state >>"$log" 2>&1
grep -E "flash|FA3|importable" "$log" | head -n 8
grep -E "TPOT|prefill B|exit" "$log" | tail -n 40
grep -E "Error|error" "$log" | tail -n 15
