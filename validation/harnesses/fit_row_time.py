#!/usr/bin/env python3
"""Fits the norms' time per row (hwdb timing.norm.row_time) to kernel_cases.py's
RMSNorm cases whose rows, not bytes, bind (the three narrowest: 262144 x 64,
131072 x 128, 65536 x 256, the same 67 MB each): row_time = median of
(measured - the entry's norm fixed cost) / rows. Then, with RIDGE given, judges
every norm case (the other RMSNorm widths and every LayerNorm, 2 passes: held
out) through `ridge roofline --kernel` with the lease's calibration.

Usage: fit_row_time.py KERNEL_CASES.json FIXED_COST_S [RIDGE CALIBRATION]"""
import json
import statistics
import subprocess
import sys

doc = json.load(open(sys.argv[1]))
fixed = float(sys.argv[2])
norms = [c for c in doc["cases"] if c["kernel"] in ("rmsnorm", "layernorm")]
fit = [c for c in norms if c["kernel"] == "rmsnorm" and c["flags"]["m"] >= 65536]
row_time = statistics.median((c["median_s"] - fixed) / c["flags"]["m"] for c in fit)
print(f"row_time {row_time * 1e9:.4f} ns per row and pass, from {len(fit)} RMSNorm cases")
if len(sys.argv) > 4:
    ridge, cal = sys.argv[3], sys.argv[4]
    errs = {"fit": [], "held-out": []}
    for c in norms:
        f = c["flags"]
        out = subprocess.run([ridge, "roofline", "--gpu", "h200-sxm", "--calibration", cal, "--kernel", c["kernel"],
                              "--m", str(f["m"]), "--n", str(f["n"]), "--json"], capture_output=True, text=True)
        p = json.loads(out.stdout)["prediction"]
        e = (p["predicted_time_s"] - c["median_s"]) / c["median_s"]
        which = "fit" if c in fit else "held-out"
        errs[which].append(abs(e))
        print(f"| {which} | {c['kernel']} | {f['m']} x {f['n']} | {c['median_s'] * 1e6:.1f} | "
              f"{p['predicted_time_s'] * 1e6:.1f} | {e * 100:+.1f}% | {p['binds']} |")
    for k, v in errs.items():
        print(f"{k}: {len(v)} cases, median |error| {statistics.median(v) * 100:.1f}%, max {max(v) * 100:.1f}%")
