#!/usr/bin/env python3
"""Fits the time model's repeat-kv decode attention (timing.attention_repeat_kv,
model/serve.c) to one head layout and judges it on the others.

transformers' decode over a static cache (harness C's path, validation/README.md
issue 34) runs per layer: K and V copied out to every query head (repeat_kv, two
strided copies), then SDPA with a mask over the whole static cache (PyTorch 2.11
picks cuDNN's kernel, which splits the keys: it streams near the HBM rate). ridge
prices the pair as one kernel:

  bytes = 2 B S D e (KV + 2 H)      the copies read KV heads and write H, the
                                    attention reads the H heads' copies
  time  = fixed + bytes / (memory_eff x HBM)

Data: measurements/2026-12-06-h100-repeat-kv/masked_decode.json (masked_decode.py:
each kernel in a CUDA graph of L calls on L buffers, back to back), an H100 SXM;
HBM = that lease's memory.bandwidth (calibration.yaml). Fitted: memory_eff and
fixed (least squares on relative error) on the FIT layout's 20 (batch, cache)
pairs; held out: the other three layouts' 60. The fixed cost is in a stream (the
graph hides the launch); the entry stores it as an isolated kernel's, plus the
lease's launch.kernel_fixed_cost, as the other classes are fitted (model/timing.c
takes it off again in a stream).

--fused: the same pair as torch.compile runs it (timing.attention_repeat_kv_fused),
from measurements/2026-12-06-h100-hf-profile/hf_profile.json (hf_profile.py: the
decode's kernels by torch.profiler, one process a shape; that lease ran no probe,
so the HBM is the 2026-12-06 repeat-kv lease's, the same machine type): fitted on
the llama-3-8b shapes, held out the others.

usage: python3 validation/harnesses/fit_repeat_kv.py [--fused] [--yaml]"""
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = os.path.join(HERE, "..", "..", "measurements", "2026-12-06-h100-repeat-kv")
SPEC_HBM = 3.35e12  # hwdb/h100-sxm.yaml memory.bandwidth
FIT = "llama-3-8b"


def lease():
    text = open(os.path.join(RUN, "calibration.yaml")).read()
    bw = float(re.search(r"\n  bandwidth: ([0-9.e+]+) B/s", text).group(1))
    launch = float(re.search(r"kernel_fixed_cost: ([0-9.e+-]+) s", text).group(1))
    return bw, launch


def pairs():
    doc = json.load(open(os.path.join(RUN, "masked_decode.json")))
    by = {}
    for c in doc["cases"]:
        by.setdefault((c["layout"], c["heads"], c["kv_heads"], c["head_dim"], c["batch"], c["cache"]), {})[c["kind"]] = c
    out = []
    for (layout, H, KV, D, B, S), k in sorted(by.items()):
        if "masked" in k and "repeat_kv" in k:
            t = (k["masked"]["median_ms"] + k["repeat_kv"]["median_ms"]) * 1e-3
            out.append({"layout": layout, "B": B, "S": S, "H": H, "KV": KV,
                        "bytes": 2 * B * S * D * 2 * (KV + 2 * H), "t": t})
    return out


def fit_rate(pairs, bw):
    """(memory_eff, fixed) of time = fixed + bytes / (memory_eff x bw) over (bytes, seconds)
    pairs: least squares of 1 = fixed / t + (bytes / bw) / me / t, linear in (fixed, 1 / me).
    fit_strided_elementwise.py fits its class the same way."""
    a11 = a12 = a22 = b1 = b2 = 0.0
    for nbytes, t in pairs:
        x1, x2 = 1 / t, nbytes / bw / t
        a11 += x1 * x1
        a12 += x1 * x2
        a22 += x2 * x2
        b1 += x1
        b2 += x2
    det = a11 * a22 - a12 * a12
    fixed = (b1 * a22 - b2 * a12) / det
    inv_me = (a11 * b2 - a12 * b1) / det
    return 1 / inv_me, fixed


def fit(rows, bw):
    return fit_rate([(r["bytes"], r["t"]) for r in rows], bw)


def judge(rows, me, fixed, bw, unit):
    """Prints each row's prediction and the per-layout medians; returns the held-out errors."""
    errs = {}
    for r in rows:
        p = fixed + r["bytes"] / (me * bw)
        e = p / r["t"] - 1
        errs.setdefault(r["layout"], []).append(abs(e))
        print(f"  {r['layout']:13s} B{r['B']:<3d} S{r['S']:<5d} measured {r['t'] * 1e6:8.1f} us{unit}  "
              f"predicted {p * 1e6:8.1f} us  {e * 100:+6.1f} %  {'fit' if r['layout'] == FIT else 'held out'}")
    for k, v in errs.items():
        print(f"{k:13s} {'fit' if k == FIT else 'held out'}: median |error| {statistics.median(v) * 100:.1f} %, "
              f"max {max(v) * 100:.1f} %")
    return [e for k, v in errs.items() if k != FIT for e in v]


def run(rows, slot, what, unit):
    """Fits the pair on FIT's rows, judges every row, prints the entry's values with --yaml."""
    bw, launch = lease()
    me, fixed = fit([r for r in rows if r["layout"] == FIT], bw)
    print(f"{slot}, fitted on {FIT}'s {sum(r['layout'] == FIT for r in rows)} {what}: memory_eff {me:.4f} of "
          f"the lease's {bw / 1e12:.3f} TB/s ({me * bw / 1e12:.3f} TB/s), fixed {fixed * 1e6:.2f} us in a stream")
    held = judge(rows, me, fixed, bw, unit)
    print(f"held out: {len(held)} {what.split()[-1]}, median |error| {statistics.median(held) * 100:.1f} %, "
          f"max {max(held) * 100:.1f} %")
    if "--yaml" in sys.argv:
        print(f"  {slot}: memory_efficiency {me * bw / SPEC_HBM:.4f} (of 3.35 TB/s, rate kept), "
              f"fixed_cost {(fixed + launch) * 1e6:.2f} us")


# ---- repeat-kv-fused: the same pair under torch.compile (harness C compiled) ----
PROFILE = os.path.join(HERE, "..", "..", "measurements", "2026-12-06-h100-hf-profile", "hf_profile.json")
# (layers, query heads, KV heads, head dim) of hf_decode.py's MODELS
LAYOUT = {"llama-3-8b": (32, 32, 8, 128), "llama-3.2-3b": (28, 24, 8, 128), "qwen2.5-7b": (28, 28, 4, 128)}


def fused_pairs():
    """Per case of hf_profile.py: the decode's attention pair per layer, from the
    kernels torch.profiler saw (the inductor kernel that fuses the repeat_kv
    copies with RoPE, named after the SDPA it feeds, and cuDNN's SDPA), per token."""
    out = []
    for c in json.load(open(PROFILE))["cases"]:
        layers, H, KV, D = LAYOUT[c["model"]]
        us = sum(k["us_per_token"] for k in c["kernels"]
                 if k["name"].startswith("triton_poi_fused__scaled_dot_product") or "sm80_flash_fprop_wmma" in k["name"])
        S = c["prompt"] + 64  # the static cache: prompt + hf_decode.py's NEW_TOKENS
        out.append({"layout": c["model"], "B": c["batch"], "S": S, "H": H, "KV": KV,
                    "bytes": 2 * c["batch"] * S * D * 2 * (KV + 2 * H), "t": us * 1e-6 / layers})
    return out


if __name__ == "__main__":
    if "--fused" in sys.argv:
        run(fused_pairs(), "attention_repeat_kv_fused", "compiled shapes", " a layer")
    else:
        run(pairs(), "attention_repeat_kv", "(batch, cache) pairs", "")
