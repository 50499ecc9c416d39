#!/usr/bin/env python3
"""Fits the H100's decode-GEMV memory efficiency (`timing.gemm.memory_efficiency` of
hwdb/h100-sxm.yaml) on harness C's compiled decode profiles of one lease, and judges it.

hwdb/h100-sxm.yaml's gemm class was transferred from the H200 (its fraction of spec); on
H100 leases ridge's decode GEMVs ran 10-19 % slower than the profiles show. Here, per
profiled shape of hf_profile.py (torch.profiler's kernels of one generate), the decode
steps' library GEMM time: every cuBLAS kernel of a decode shape (nvjet's tiles of N = 8 to 64)
and the split-K reductions, x 64 / 63 (63 decode forwards among the 64 tokens). ridge prices
the same step's GEMMs (`ridge cost decode --json`, class gemm) as sum of count x (bytes /
(e x HBM) + f), f the in-stream fixed cost of the lease's calibration; e is solved per shape
so that the sums match, and the fit is the median over the FIT model's shapes. Held out: the
other models' shapes of the lease, and the whole steps of harnesses B and C on other leases
(validation/harnesses/replay.py). Prints the per-shape table and the entry's value (the
rate kept: e x the lease's HBM / the spec's 3.35 TB/s).

Usage: python3 validation/harnesses/fit_gemv.py RIDGE measurements/2026-12-06-h100-host-gap
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import replay  # noqa: E402

FIT = "llama-3-8b"
# cuBLAS's decode-shaped kernels: nvjet tiles of N = 8 to 64 tokens (a prefill's are 128 and up)
DECODE_TILE = re.compile(r"nvjet_sm90_tst_\d+x(8|16|24|32|48|64)_")
SPEC_BW = 3.35e12  # hwdb/h100-sxm.yaml memory.bandwidth


def measured_gemm_s(case):
    us = sum(k["us_per_token"] for k in case["kernels"]
             if DECODE_TILE.search(k["name"]) or "splitKreduce" in k["name"])
    return us * 64 / 63 * 1e-6


def ridge_gemms(ridge, cfg, case, calibration):
    args = [ridge, "cost", "decode", "--model", cfg, "--context", str(case["prompt"] + 64), "--batch",
            str(case["batch"]), "--gpus", "1", "--gpu", "h100-sxm", "--calibration", calibration, "--impl",
            "repeat-kv-fused", "--json"]
    r = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    g = [k for k in r["kernels"] if k["class"] == "gemm"]
    total = sum(k["count"] * k["predicted_s"] for k in g)
    fixed = sum(k["count"] * k["fixed_cost_s"] for k in g)
    byts = sum(k["count"] * k["bytes"] for k in g)
    return total, fixed, byts, r["bandwidth"]


def main():
    ridge, mdir = sys.argv[1], sys.argv[2]
    doc = json.load(open(os.path.join(mdir, "hf_profile.json")))
    cal = os.path.join(mdir, "calibration.yaml")
    models = replay.hf_models()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for c in doc["cases"]:
            if c["mode"] != "compiled":
                continue
            cfg = os.path.join(tmp, c["model"] + ".json")
            json.dump(models[c["model"]], open(cfg, "w"))
            meas = measured_gemm_s(c)
            total, fixed, byts, bw = ridge_gemms(ridge, cfg, c, cal)
            e = byts / (bw * (meas - fixed))
            rows.append((c["model"], c["batch"], c["prompt"], meas, total, fixed, byts, bw, e))
    fit = statistics.median(r[8] for r in rows if r[0] == FIT)
    bw = rows[0][7]
    print("| model | batch | prompt | GEMMs measured ms | ridge ms (as the lease wrote its calibration: the H200's fraction) | e solved | set | ridge ms with the fit | error |")
    print("|---|---:|---:|---:|---:|---:|---|---:|---:|")
    for m, b, p, meas, total, fixed, byts, bw_, e in rows:
        pred = fixed + byts / (fit * bw_)
        print(f"| {m} | {b} | {p} | {meas * 1e3:.3f} | {total * 1e3:.3f} | {e:.4f} | "
              f"{'fit' if m == FIT else 'held out'} | {pred * 1e3:.3f} | {(pred - meas) / meas * 100:+.1f} % |")
    print(f"\nfitted: {fit:.4f} of the lease's {bw / 1e12:.3f} TB/s = {fit * bw / 1e12:.3f} TB/s "
          f"= {fit * bw / SPEC_BW:.4f} of the h100-sxm spec ({SPEC_BW / 1e12:.2f} TB/s)")


if __name__ == "__main__":
    main()
