#!/bin/bash
# Issue 29's FP8 GEMM measurements on a lent GPU, everything under $OUT:
#   1. ridge-probe --quick --out: this lease's calibration (PROBE_DIR, default .carry)
#   2. ridge-probe --only copy,gemm_bf16,gemm_fp8 --sustained 15: the bf16 and fp8 GEMMs'
#      settled rate at the power limit, each beside its burst
#   3. fp8_prefill.py: whole Llama-3.1-70B W8A8 FP8 prefills, burst and sustained
#   4. fp8_gemm.py: e4m3 torch._scaled_mm and bf16 F.linear at three models' projections,
#      M = 16 ... 8192 tokens
# About 6 minutes on an H200.
set -u
probe_dir=${1:-.carry}
out=${OUT:-/tmp/fp8-out}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export PYTHONUNBUFFERED=1 PATH="$PATH:/usr/local/cuda/bin"
# the carried probe's shared libraries (libcjson: copy it into $PROBE_DIR/lib before the lease)
export LD_LIBRARY_PATH="$PWD/$probe_dir/lib:${LD_LIBRARY_PATH:-}"
log="$out/device-fp8.log"
. "$here/../device_steps.sh"
lease_header >"$log" 2>&1
root=$PWD
cd "$here"
# FP8_STEPS: which of the four to run (a short lease: "probe prefill")
steps=" ${FP8_STEPS:-probe sustained prefill gemm} "
case $steps in *" probe "*) step probe sh -c "'$root/$probe_dir/ridge-probe' --quick --out '$out/calibration.yaml' --json >'$out/probe.json'" ;; esac
case $steps in *" sustained "*) step sustained sh -c "'$root/$probe_dir/ridge-probe' --quick --only copy,gemm_bf16,gemm_fp8 --sustained 15 --json >'$out/sustained.json' 2>'$out/sustained.log'" ;; esac
case $steps in *" prefill "*) step fp8_prefill python3 fp8_prefill.py "$out/fp8_prefill.json" --sustain 6 ;; esac
case $steps in *" gemm "*) step fp8_gemm python3 fp8_gemm.py "$out/fp8_gemm.json" ;; esac
gpu_state >>"$log" 2>&1
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
try:
    for s in json.load(open(out + "/sustained.json")).get("sustained", []):
        print("sustained %-10s burst %s settled %s clock %s -> %s MHz, %s W" % (
            s["name"], s.get("burst"), s.get("settled"), s.get("clock_mhz_first"), s.get("clock_mhz_last"),
            s.get("power_w_max")))
except (OSError, ValueError) as e:
    print("sustained.json:", e)
try:
    for c in json.load(open(out + "/fp8_prefill.json"))["cases"]:
        print("prefill 70B fp8 B%d P%d: burst %.1f ms, settled %.1f ms (%s)" % (
            c["batch"], c["prompt"], c["burst_ms"], c["settled_ms"], c["smi_after"]))
except (OSError, ValueError, KeyError) as e:
    print("fp8_prefill.json:", e)
try:
    cases = json.load(open(out + "/fp8_gemm.json"))["cases"]
except (OSError, ValueError) as e:
    print("fp8_gemm.json:", e)
    cases = []
by = {}
for c in cases:
    by.setdefault((c["model"], c["projection"], c["m"]), {})[c["dtype"]] = c["time_s"]
print("model projection m: fp8 TFLOP/s, bf16 TFLOP/s, bf16/fp8 time")
for (model, proj, m), t in sorted(by.items()):
    if m in (16, 512, 8192):
        c = next(x for x in cases if x["model"] == model and x["projection"] == proj and x["m"] == m)
        f = 2 * m * c["n"] * c["k"]
        print("%-13s %-12s %5d %7.0f %7.0f %5.2f" % (model, proj, m, f / t["fp8"] / 1e12, f / t["bf16"] / 1e12,
                                                     t["bf16"] / t["fp8"]))
PY
