#!/usr/bin/env python3
"""Fits a GPU's small-M FP8 GEMM terms (`timing.gemm_fp8.memory_efficiency` and
`fixed_cost` of hwdb/<gpu>.yaml) on fp8_gemm.py's e4m3 GEMMs of one lease, and judges
them on another model's shapes. Written for the H100 (2026-12-07 lease); the H200's lease of
the same day ran it too (measurements/2026-12-07-h200-fp8-gemm).

Until this fit the H100's gemm_fp8 class took the gemm class's memory terms (bf16 cuBLAS
decode GEMVs: 0.8816 of spec, 9.31 us), and its fp8 GEMMs of 16 to 128 tokens ran about 9 %
slower than that (measurements/2026-12-07-h100-fp8). Here, on those GEMMs (memory-bound:
M = 16, 32, 64, 128 tokens):

  predicted = bytes / (e x the entry's spec bandwidth) + f

with each case's bytes as ridge counts them (`ridge calibrate --no-fit --json`: its memory
time at the entry's spec bandwidth), e and f on a grid (e 0.500 to 0.998 by 0.002, f 0 to
20 us by 0.1 us), least median |error| over the FIT models' projections (Llama-3.1-8B,
Qwen3-32B: 32 GEMMs, 16 to 262 MB of weights); held out: Llama-3.1-70B's (16 GEMMs, 67 to
470 MB). The rate is the entry's spec rate (what hwdb keeps); the compute efficiency stays the
transferred one (the compute-bound cases of the same run judge it: validation/README.md).

The lease's fp8_gemm.json (fp8_gemm.py's output) is converted to ridge calibrate's timings
(fp8_gemm_cases.json beside it) where that is missing: flags m = the output features, n = the
tokens, as ridge names a TN GEMM's sides.

Usage: python3 validation/harnesses/fit_fp8_gemv.py RIDGE MEASUREMENT_DIR [GPU]
       (GPU: the hwdb id, default h100-sxm; e.g. measurements/2026-12-07-h200-fp8-gemm h200-sxm)
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

FIT = ("llama-3.1-8b", "qwen3-32b")
MAX_TOKENS = 128


def timings_cases(mdir):
    """The lease's cases as ridge calibrate reads them, converted from fp8_gemm.json once."""
    path = os.path.join(mdir, "fp8_gemm_cases.json")
    if not os.path.exists(path):
        raw = json.load(open(os.path.join(mdir, "fp8_gemm.json")))
        cases = [{"set": "heldout", "kernel": c["kernel"], "dtype": c["dtype"],
                  "flags": {"m": c["n"], "n": c["m"], "k": c["k"]}, "call": c["call"],
                  "samples_s": [x / 1e3 for x in c["samples_ms"]], "median_s": c["time_s"],
                  "kernels": c["kernels"], "model": c["model"], "projection": c["projection"]}
                 for c in raw["cases"]]
        with open(path, "w") as f:
            json.dump({"format": "ridge-timings-1", "machine": raw["machine"], "cases": cases}, f, indent=1)
    return json.load(open(path))["cases"]


def ridge_predictions(ridge, gpu, cases):
    """Each case's memory time at the GPU's spec bandwidth, as ridge counts its bytes, and
    ridge's prediction with the entry's terms as they stand."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"format": "ridge-timings-1", "cases": cases}, f)
        path = f.name
    try:
        out = subprocess.run([ridge, "calibrate", "--timings", path, "--gpu", gpu, "--no-fit", "--json"],
                             check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(path)
    doc = json.loads(out)
    return [(c["memory_time_s"], c["predicted_time_s"]) for c in doc["cases"]]


def main():
    ridge, mdir = sys.argv[1], sys.argv[2]
    gpu = sys.argv[3] if len(sys.argv) > 3 else "h100-sxm"
    cases = [dict(c, set="heldout") for c in timings_cases(mdir) if c["dtype"] == "fp8" and c["flags"]["n"] <= MAX_TOKENS]
    predicted = ridge_predictions(ridge, gpu, cases)
    rows = [(c["model"], c["projection"], c["flags"]["n"], m, c["median_s"]) for c, (m, _) in zip(cases, predicted)]
    now = {(c["model"], c["projection"], c["flags"]["n"]): p for c, (_, p) in zip(cases, predicted)}
    fit = [r for r in rows if r[0] in FIT]
    held = [r for r in rows if r[0] not in FIT]

    def errors(subset, e, f):
        return [(m / e + f) / t - 1 for _, _, _, m, t in subset]

    best = None
    for ei in range(500, 1000, 2):
        for fi in range(0, 201):
            e, f = ei / 1000, fi * 1e-7
            score = statistics.median(abs(x) for x in errors(fit, e, f))
            if best is None or score < best[0]:
                best = (score, e, f)
    score, e, f = best
    print("%s: fit on %d GEMMs of %s, %d to %d tokens: memory efficiency %.3f of the entry's spec bandwidth, "
          "fixed cost %.1f us (median |error| %.1f %%)" % (gpu, len(fit), " and ".join(FIT), 16, MAX_TOKENS, e,
                                                            f * 1e6, 100 * score))
    h = errors(held, e, f)
    print("  %-32s held out (%d, Llama-3.1-70B): median |error| %.1f %%, median error %+.1f %%" % (
        "fitted", len(h), 100 * statistics.median(abs(x) for x in h), 100 * statistics.median(h)))
    for name, subset in (("fitting", fit), ("held out", held)):
        h = [now[r[:3]] / r[4] - 1 for r in subset]
        print("  %-32s %-8s (%d): median |error| %.1f %%, median error %+.1f %%" % (
            "the entry's terms as they stand", name, len(h), 100 * statistics.median(abs(x) for x in h),
            100 * statistics.median(h)))
    for (model, proj, m, mem, t), x in zip(held, errors(held, e, f)):
        print("    %s %-12s M=%-4d measured %7.1f us  fitted %7.1f us  %+5.1f %%" % (model, proj, m, t * 1e6,
                                                                                   (mem / e + f) * 1e6, 100 * x))


if __name__ == "__main__":
    main()
