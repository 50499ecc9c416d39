#!/bin/bash
# The held-out measurements on a lent GPU, in one call: ridge-probe's calibration
# (with its validation), the framework kernels of kernels.py, ncu's DRAM bytes of
# PyTorch's row kernels, and, where their scripts are given, decode/prefill steps
# (decode_step.py) and a PyTorch profiler trace (capture_traces.py) with an nsys
# attempt. Everything under $OUT; a short table last.
#   validation/heldout/device-run.sh PROBE_DIR [SCRIPTS_DIR]
set -u
dir=${1:-build-dev}
extra=${2:-}
out=${OUT:-/tmp/heldout-out}
mkdir -p "$out"
export PATH="$PATH:/usr/local/cuda/bin" PYTHONUNBUFFERED=1
here=$(cd "$(dirname "$0")" && pwd)
log="$out/device.log"
. "$(dirname "$0")/../device_steps.sh"
{
	date -u +%Y-%m-%dT%H:%M:%SZ
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,memory.total --format=csv
	python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())'
} >"$log" 2>&1
step probe sh -c "'$dir/ridge-probe' --validate --out '$out/calibration.yaml' --json >'$out/probe.json'"
step kernels python3 "$here/kernels.py" "$out/timings.json"
step ncu-rows ncu --clock-control none --profile-from-start off \
	--metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,lts__t_bytes.sum \
	--csv --log-file "$out/ncu_rows.csv" python3 "$here/ncu_rows.py"
if [ -n "$extra" ] && [ -f "$extra/decode_step.py" ]; then
	step decode python3 "$extra/decode_step.py" "$out/decode_h200.json"
fi
if [ -n "$extra" ] && [ -f "$extra/capture_traces.py" ]; then
	step trace python3 "$extra/capture_traces.py" "$out/torch_trace.json"
	nsys=$(command -v nsys || ls /opt/nvidia/nsight-*/*/host/target-linux-x64/nsys /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys 2>/dev/null | head -n 1)
	if [ -n "$nsys" ]; then
		step nsys "$nsys" profile --trace=cuda -o /tmp/decode python3 "$extra/capture_traces.py" /tmp/unused.json
		step nsys-export "$nsys" export --type sqlite -o "$out/decode.sqlite" /tmp/decode.nsys-rep
	else
		echo "nsys: not found" | tee -a "$log"
	fi
fi
grep -E "exit|error" "$log" | tail -n 20
