#!/usr/bin/env python3
"""Fits the split-kv decode-attention class (hwdb timing.attention_split_kv) to
kernel_cases.py's split-kv cases: time = KV bytes / (memory_efficiency x HBM)
+ fixed_cost, least squares on the relative error (as ridge calibrate fits a
class), HBM the same lease's measured bandwidth (calibration.yaml).
Fit set: H/KV 32/8 and 64/8 (Llama-3-8B/70B head layouts); held out: 28/4
(Qwen2.5-7B's layout), judged here with the fitted values.
Usage: fit_decode_attention.py KERNEL_CASES.json HBM_BYTES_PER_S"""
import json
import statistics
import sys

doc = json.load(open(sys.argv[1]))
hbm = float(sys.argv[2])
rows = [c for c in doc["decode_attention"] if c["impl"] == "split-kv"]
fit = [c for c in rows if (c["heads"], c["kv_heads"]) != (28, 4)]
held = [c for c in rows if (c["heads"], c["kv_heads"]) == (28, 4)]
# minimise sum((a x + b) / y - 1)^2 over a = 1 / (eff hbm), b = fixed
s11 = s12 = s22 = t1 = t2 = 0.0
for c in fit:
    x, y = c["kv_bytes"], c["median_s"]
    u, v = x / y, 1 / y
    s11 += u * u; s12 += u * v; s22 += v * v; t1 += u; t2 += v
det = s11 * s22 - s12 * s12
a = (t1 * s22 - t2 * s12) / det
b = (s11 * t2 - s12 * t1) / det
eff = 1 / (a * hbm)
print(f"fit on {len(fit)} cases: memory_efficiency {eff:.4f} of {hbm / 1e12:.3f} TB/s "
      f"({1 / a / 1e12:.3f} TB/s), fixed_cost {b * 1e6:.2f} us")
for name, cases in (("fit", fit), ("held-out", held)):
    errs = [((a * c["kv_bytes"] + b) - c["median_s"]) / c["median_s"] for c in cases]
    print(f"{name:8s} n={len(cases)} median |err| {statistics.median(abs(e) for e in errs) * 100:.1f}% "
          f"max {max(abs(e) for e in errs) * 100:.1f}%")
