#!/bin/bash
# Issue 34's MoE and library-GEMM measurements on a lent GPU, everything under $OUT:
#   1. ridge-probe --quick --out: this lease's calibration (PROBE_DIR, default .carry)
#   2. grouped_gemm.py: torch._grouped_mm alone over 7 MoE layer shapes (fit and held-out sets)
#   3. sdpa_decode.py (harness B) on its two MoE models: whole decode steps under CUDA graphs
#   4. gemm_library.sh: ncu's DRAM bytes of torch.mm at shapes the H100 fit never saw
# About 7 minutes on an H200.
set -u
probe_dir=${1:-.carry}
out=${OUT:-/tmp/moe-out}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export PYTHONUNBUFFERED=1 PATH="$PATH:/usr/local/cuda/bin"
log="$out/device-moe.log"
. "$here/../device_steps.sh"
{
	gpu_state
	python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())'
} >"$log" 2>&1
root=$PWD
cd "$here"
step probe sh -c "'$root/$probe_dir/ridge-probe' --quick --out '$out/calibration.yaml' --json >'$out/probe.json'"
step grouped_gemm python3 grouped_gemm.py "$out/grouped_gemm.json"
step sdpa_moe python3 sdpa_decode.py "$out/sdpa_decode_moe.json" --models mixtral-8x7b,qwen3-30b-a3b
GEMM_SMALL=0 GEMM_SHAPES="4096,4096,4096 8192,8192,8192 12288,12288,12288 16384,16384,16384
6144,6144,24576 10240,10240,10240 20480,5120,5120 5120,20480,5120 3072,3072,49152 12288,24576,6144
24576,12288,12288 14336,14336,14336" step gemm_dram ./gemm_library.sh
gpu_state >>"$log" 2>&1
tail -n 14 "$out/gemm_dram.csv" | cut -d, -f1-3,7-8,10
grep -E " exit |Error|error" "$log" "$out"/device-gemm*.log | tail -n 25
