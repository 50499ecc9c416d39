#!/usr/bin/env python3
"""Fits the time model's class for PyTorch's element-wise ops on views
(timing.elementwise_strided, model/serve.c's --layer-ops pytorch) to one model's
prefill profile and judges it on the others'.

A decoder layer written with plain torch ops (harness B, sdpa_decode.py; the
rotate-half RoPE of Hugging Face's modelling code too) runs, besides its GEMMs,
attention, norms and residual adds, fourteen element-wise kernels a layer that an
engine fuses into three: RoPE on q and on k as t * cos, neg, cat, * sin and add on
the transposed [B, H, P, D] views; the two cache writes; SiLU and the multiply
over the halves of the fused gate/up output. PyTorch runs them with its
unvectorized elementwise_kernel<128, 4> (non-contiguous operands) and
CatArrayBatchedCopy, at 0.8-2.0 TB/s of traffic on an H100 where its vectorized
kernels stream near 3 TB/s. Their times go with the elements they write, not the
bytes they move (a two-input multiply or add takes about what a one-input op of
the same output takes: the kernel's index arithmetic per element binds), so ridge
prices each by its output:

  bytes = 2 x output elements x 2            one read and one write of the output's size
  time  = fixed + bytes / (memory_eff x HBM)

(pricing by all the bytes moved instead, (inputs + 1) x elements x 2, fits worse:
held-out ops 15.2 % in the median against 7.5 %.)

Data: measurements/2026-12-06-h100-repeat-kv/sdpa_prefill.json, torch.profiler's
kernels of one eager prefill of 2,048 tokens per model (Llama-3-8B, Qwen2.5-7B,
Mistral-NeMo-12B), an H100 SXM; HBM = that lease's memory.bandwidth
(calibration.yaml). Fitted: memory_eff and fixed (least squares on relative error)
on FIT's kernels (14 a layer x 32 layers); held out: the other two models' kernels,
each op summed over its layers, and the layer's fourteen together. The fixed cost
is in a stream (back to back in the profile); the entry stores it as an isolated
kernel's, plus the lease's launch.kernel_fixed_cost, as the other classes are
fitted (model/timing.c takes it off again in a stream).

usage: python3 validation/harnesses/fit_strided_elementwise.py [--yaml]"""
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fit_repeat_kv import fit_rate  # noqa: E402  (the same least squares)

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = os.path.join(HERE, "..", "..", "measurements", "2026-12-06-h100-repeat-kv")
SPEC_HBM = 3.35e12  # hwdb/h100-sxm.yaml memory.bandwidth
FIT = "llama-3-8b"
TOKENS = 2048  # the profiled prefill (sdpa_decode.py --prefill: batch 1 x 2,048)
E = 2  # bf16

# The fourteen element-wise ops of a layer in the order the profile lists them,
# each as (name, kernel-name piece, the tensor it runs over, inputs read):
# q = T x H x D, k = v = T x KV x D, ff = T x intermediate; half: half of the last axis.
OPS = [
    ("rope q: t * cos", "BinaryFunctor", "q", 1),
    ("rope q: neg", "neg_kernel", "q/2", 1),
    ("rope q: cat", "CatArrayBatchedCopy", "q", 1),
    ("rope q: * sin", "BinaryFunctor", "q", 1),
    ("rope q: add", "CUDAFunctor_add", "q", 2),
    ("rope k: t * cos", "BinaryFunctor", "k", 1),
    ("rope k: neg", "neg_kernel", "k/2", 1),
    ("rope k: cat", "CatArrayBatchedCopy", "k", 1),
    ("rope k: * sin", "BinaryFunctor", "k", 1),
    ("rope k: add", "CUDAFunctor_add", "k", 2),
    ("cache write k", "direct_copy", "k", 1),
    ("cache write v", "direct_copy", "k", 1),
    ("silu", "silu", "ff", 1),
    ("silu * up", "BinaryFunctor", "ff", 2),
]


def lease():
    text = open(os.path.join(RUN, "calibration.yaml")).read()
    bw = float(re.search(r"\n  bandwidth: ([0-9.e+]+) B/s", text).group(1))
    launch = float(re.search(r"kernel_fixed_cost: ([0-9.e+-]+) s", text).group(1))
    return bw, launch


def elements(cfg, tensor):
    d = cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]
    sizes = {"q": cfg["num_attention_heads"] * d, "k": cfg["num_key_value_heads"] * d, "ff": cfg["intermediate_size"]}
    base = tensor.split("/")[0]
    return TOKENS * sizes[base] / (2 if tensor.endswith("/2") else 1)


def strided(name):
    """The profile's unvectorized element-wise kernels and its cat (the vectorized
    residual adds and the norms are other classes)."""
    return ("elementwise_kernel<128, 4" in name and "vectorized" not in name) or "CatArrayBatchedCopy" in name


def kernels(doc, model):
    """Every strided kernel of the model's profile as (op, bytes, seconds), matched to
    OPS in order layer by layer."""
    cfg = doc["configs"][model]
    seq = [k for k in doc["kernels"][model + " prefill"] if strided(k["name"])]
    layers = cfg["num_hidden_layers"]
    if len(seq) != layers * len(OPS):
        raise SystemExit(f"{model}: {len(seq)} strided kernels, expected {layers} x {len(OPS)}")
    out = []
    for i, k in enumerate(seq):
        op, piece, tensor, _ = OPS[i % len(OPS)]
        if piece not in k["name"]:
            raise SystemExit(f"{model}: kernel {i} is {k['name'][:80]}, expected {piece} ({op})")
        out.append((op, 2 * elements(cfg, tensor) * E, k["us"] * 1e-6))  # by the output (above)
    return out


def fit(rows, bw):
    return fit_rate([(nbytes, t) for _, nbytes, t in rows], bw)


def judge(model, rows, me, fixed, bw):
    """Per op (summed over the layers) and the layer's fourteen together."""
    by = {}
    for op, nbytes, t in rows:
        s = by.setdefault(op, [0.0, 0.0])
        s[0] += t
        s[1] += fixed + nbytes / (me * bw)
    errs = []
    for op, _, _, _ in OPS:
        t, p = by[op]
        errs.append(abs(p / t - 1))
        print(f"  {model:17s} {op:16s} measured {t * 1e3:7.3f} ms  predicted {p * 1e3:7.3f} ms  {(p / t - 1) * 100:+6.1f} %")
    total_t = sum(v[0] for v in by.values())
    total_p = sum(v[1] for v in by.values())
    print(f"  {model:17s} {'all 14 ops':16s} measured {total_t * 1e3:7.3f} ms  predicted {total_p * 1e3:7.3f} ms  "
          f"{(total_p / total_t - 1) * 100:+6.1f} %   per op: median |error| {statistics.median(errs) * 100:.1f} %, "
          f"max {max(errs) * 100:.1f} %")
    return errs, total_p / total_t - 1


def held_out_residuals():
    """measured / predicted - 1 and measured / floor - 1 of each held-out model's ops,
    each op summed over its layers (validation/time_ranges.py's band for the class)."""
    doc = json.load(open(os.path.join(RUN, "sdpa_prefill.json")))
    bw, _ = lease()
    me, fixed = fit(kernels(doc, FIT), bw)
    residuals, over_floor = [], []
    for model in doc["configs"]:
        if model == FIT or model + " prefill" not in doc["kernels"]:
            continue
        by = {}
        for op, nbytes, t in kernels(doc, model):
            s = by.setdefault(op, [0.0, 0.0, 0.0])
            s[0] += t
            s[1] += fixed + nbytes / (me * bw)
            s[2] += nbytes / bw
        for t, p, floor in by.values():
            residuals.append(t / p - 1)
            over_floor.append(t / floor - 1)
    return residuals, over_floor


def main():
    doc = json.load(open(os.path.join(RUN, "sdpa_prefill.json")))
    bw, launch = lease()
    me, fixed = fit(kernels(doc, FIT), bw)
    print(f"elementwise_strided, fitted on {FIT}'s {len(kernels(doc, FIT))} kernels: memory_eff {me:.4f} of the "
          f"lease's {bw / 1e12:.3f} TB/s ({me * bw / 1e12:.3f} TB/s), fixed {fixed * 1e6:.2f} us in a stream")
    held = []
    for model in doc["configs"]:
        if model + " prefill" not in doc["kernels"]:
            continue
        errs, total = judge(model, kernels(doc, model), me, fixed, bw)
        if model != FIT:
            held += errs
            print(f"  {model}: held out")
    print(f"held out, per op summed over layers: median |error| {statistics.median(held) * 100:.1f} %, "
          f"max {max(held) * 100:.1f} %")
    if "--yaml" in sys.argv[1:]:
        print(f"    memory_efficiency: {me * bw / SPEC_HBM:.4f}")
        print(f"    fixed_cost: {(fixed + launch) * 1e6:.2f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
