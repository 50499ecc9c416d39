#!/bin/sh
# Issue 34: the probe's matrix ceilings are the best over its GEMM sweep.
# Runs `ridge-probe --quick --json` once on the GPU and prints, for each
# library GEMM ceiling, the rate, the shape that reached it and the 8192^3
# headline beside it, then every GEMM shape the run timed; fails (exit 1) when
# a ceiling is below a shape of its own kind (the floor would be above a run)
# or --quick took longer than its 15 s target by more than half.
#
#   validation/probe_sweep_check.sh          from the repository root, on the device
#
# The probe: $PROBE, else build/ridge-probe; when neither runs it is built
# here for sm_90 (needs nvcc; about a minute on 16 cores). To carry one from
# the development machine instead:
#   make PROBE_PORTABLE=1 PROBE_CUDA_ARCHS="90" build/ridge-probe   (carry build/ridge-probe and build/lib)
# Everything it writes goes under $OUT (default /tmp/probe-sweep): quick.json,
# quick.err, calibration.yaml. Under 2 minutes in all with a carried binary.
set -u
cd "$(dirname "$0")/.." || exit 3
out=${OUT:-/tmp/probe-sweep}
mkdir -p "$out"
export PATH="$PATH:/usr/local/cuda/bin"
probe=${PROBE:-build/ridge-probe}
if ! "$probe" --help >/dev/null 2>&1; then
	echo "building $probe (sm_90)"
	make -j"$(nproc)" PROBE_CUDA_ARCHS="90" build/ridge-probe >"$out/build.log" 2>&1 || {
		tail -n 20 "$out/build.log"
		exit 3
	}
	probe=build/ridge-probe
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader 2>/dev/null
start=$(date +%s%N)
"$probe" --quick --json --out "$out/calibration.yaml" >"$out/quick.json" 2>"$out/quick.err"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
echo "ridge-probe --quick --json: exit $rc, $ms ms"
[ "$rc" -le 1 ] || { tail -n 20 "$out/quick.err"; exit "$rc"; }
python3 - "$out/quick.json" "$ms" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
seconds = float(sys.argv[2]) / 1000
kinds = {"bf16_matrix": "bf16", "fp16_matrix": "fp16", "tf32_matrix": "tf32", "fp32_gemm": "fp32", "fp8_matrix": "fp8"}
sweep = doc.get("gemm_sweep", [])
bad = 0
print("\nmatrix ceilings (the best of the run's GEMM shapes of each kind):")
print("  %-12s %10s %7s  %-20s %7s  %s" % ("ceiling", "TFLOP/s", "of spec", "best shape (m x n x k)", "shapes", "8192^3"))
for c in doc["ceilings"]:
    kind = kinds.get(c["name"])
    if not kind:
        continue
    shape = c.get("shape") or {}
    runs = [g for g in sweep if g["dtype"] == kind]
    head = [g for g in runs if g["m"] == g["n"] == g["k"] == 8192]
    text = "%dx%dx%d" % (shape.get("m", 0), shape.get("n", 0), shape.get("k", 0))
    frac = c.get("fraction_of_spec")
    print("  %-12s %10.1f %6s  %-20s %7s  %s" % (c["name"], c["measured"] / 1e12,
          "%.1f%%" % (100 * frac) if frac else "-", text, c.get("shapes", "-"),
          "%.1f" % (head[0]["flops_per_s"] / 1e12) if head else "-"))
    for g in runs:
        if g["flops_per_s"] > c["measured"] * (1 + 1e-12):
            print("  FAIL %s: %dx%dx%d ran at %.1f TFLOP/s, above the ceiling" % (c["name"], g["m"], g["n"], g["k"], g["flops_per_s"] / 1e12))
            bad += 1
print("\nGEMM shapes timed (TFLOP/s, cv):")
for g in sweep:
    print("  %-5s %6d x %6d x %6d  %7.1f  %4.1f%%" % (g["dtype"], g["m"], g["n"], g["k"], g["flops_per_s"] / 1e12, 100 * g["cv"]))
if seconds > 22.5:
    print("FAIL --quick took %.1f s (target 15 s)" % seconds)
    bad += 1
print("\n%s" % ("ok" if not bad else "%d problem(s)" % bad))
sys.exit(1 if bad else 0)
EOF
