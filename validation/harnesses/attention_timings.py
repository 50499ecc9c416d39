#!/usr/bin/env python3
"""The prefill-attention cases of kernel_cases.py as a `ridge calibrate --timings`
file, one implementation at a time, with the fit and held-out sets assigned:

  fit       32 heads x head dim 128 (Llama-3-8B's layout): B1 S2048, B1 S8192,
            B4 S4096 (causal), B8 S1024 (not causal)
  heldout   every other layout: 64, 40, 28, 48 and 16 heads, head dim 64

Usage: attention_timings.py KERNEL_CASES.json IMPL > OUT.json   (IMPL: fa2, cudnn)
"""
import json
import sys

doc = json.load(open(sys.argv[1]))
impl = sys.argv[2]
out = {k: doc[k] for k in ("format", "gpu", "sm_count", "date", "method", "dtype")}
out["harness"] = f"kernel_cases.py's SDPA[{impl}] prefill cases (validation/harnesses/attention_timings.py)"
out["cases"] = []
for c in doc["cases"]:
    if c["kernel"] != "flash-attention" or c.get("impl") != impl:
        continue
    f = c["flags"]
    fit = f["heads"] == 32 and f["head-dim"] == 128
    out["cases"].append({"set": "fit" if fit else "heldout", "kernel": c["kernel"], "flags": f, "call": c["call"],
                         "samples_s": c["samples_s"], "median_s": c["median_s"], "kernels": c["kernels"]})
json.dump(out, sys.stdout, indent=1)
