#!/bin/bash
# The held-out measurement on a lent GPU: ridge-probe's calibration (with its
# validation), the framework kernels of kernels.py, and ncu's DRAM bytes of
# PyTorch's row kernels. Everything under $OUT; a short table last.
#   validation/heldout/device-run.sh PROBE_DIR   (the folder holding ridge-probe)
set -u
dir=${1:-build-dev}
out=${OUT:-/tmp/heldout-out}
mkdir -p "$out"
export PATH="$PATH:/usr/local/cuda/bin" PYTHONUNBUFFERED=1
here=$(cd "$(dirname "$0")" && pwd)
log="$out/device.log"
{
	date -u +%Y-%m-%dT%H:%M:%SZ
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,memory.total --format=csv
	python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())'
} >"$log" 2>&1
t0=$(date +%s)
"$dir/ridge-probe" --validate --out "$out/calibration.yaml" --json >"$out/probe.json" 2>>"$log"
echo "probe exit $? in $(($(date +%s) - t0)) s" >>"$log"
t0=$(date +%s)
python3 "$here/kernels.py" "$out/timings.json" >>"$log" 2>&1
echo "kernels.py exit $? in $(($(date +%s) - t0)) s" >>"$log"
t0=$(date +%s)
ncu --clock-control none --profile-from-start off --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,lts__t_bytes.sum \
	--csv python3 "$here/ncu_rows.py" >"$out/ncu_rows.csv" 2>>"$log"
echo "ncu exit $? in $(($(date +%s) - t0)) s" >>"$log"
grep -E "exit|heldout|fit " "$log" | tail -n 90
