#!/bin/bash
# Issue 34's independent harnesses on a lent GPU. Everything under $OUT.
#   validation/harnesses/device-run.sh kernels PROBE_DIR   ridge-probe --quick --out (the same
#        lease's calibration), kernel_cases.py, sdpa_decode.py (harness B)
#   validation/harnesses/device-run.sh hf                  hf_decode.py (harness C)
# PROBE_DIR holds ridge-probe built portable on the development machine
# (make BUILD=build-dev PROBE_PORTABLE=1 PROBE_CUDA_ARCHS=90 build-dev/ridge-probe)
# with its lib/, carried beside the checkout.
set -u
mode=${1:-kernels}
probe_dir=${2:-.carry}
out=${OUT:-/tmp/harness-out}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export PYTHONUNBUFFERED=1 PATH="$PATH:/usr/local/cuda/bin"
log="$out/device-$mode.log"
. "$(dirname "$0")/../device_steps.sh"
{
	gpu_state
	python3 -c 'import torch, transformers; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "transformers", transformers.__version__)'
} >"$log" 2>&1
cd "$here"
case $mode in
kernels)
	step probe sh -c "'$OLDPWD/$probe_dir/ridge-probe' --quick --out '$out/calibration.yaml' --json >'$out/probe.json'"
	step kernel_cases python3 kernel_cases.py "$out/kernel_cases.json"
	step sdpa_decode python3 sdpa_decode.py "$out/sdpa_decode.json"
	;;
hf)
	step hf_decode python3 hf_decode.py "$out/hf_decode.json" --budget 400
	;;
esac
gpu_state >>"$log" 2>&1
grep -E " exit |Error|error" "$log" | tail -n 25
