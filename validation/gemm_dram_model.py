#!/usr/bin/env python3
"""ridge's library-GEMM DRAM model (model/intensity.c, library_gemm_dram)
against ncu's dram__bytes_read.sum + dram__bytes_write.sum of torch.mm (bf16,
cuBLAS's nvjet kernels) on an H100.

  fit       measurements/2026-12-06-h100-gemm-library/gemm_dram.csv (18 shapes):
            the drift term's onset and slope (RIDGE_LIBRARY_DRIFT_*, model/intensity.h)
            were fitted to these (least median plus 0.3 x max |error|, grid search)
  held out  measurements/2026-12-06-h100-moe-gemm/gemm_dram.csv (12 shapes, another
            lease; 8 shapes the fit never saw and the 4 squares 4096^3-16384^3 again)

Prints one row per shape and the median and max |error| per set; --markdown
prints the table for validation/README.md.
usage: python3 validation/gemm_dram_model.py [--ridge build/ridge] [--markdown]"""
import argparse
import csv
import json
import os
import statistics
import subprocess

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SETS = [("fit", "measurements/2026-12-06-h100-gemm-library/gemm_dram.csv"),
        ("held out", "measurements/2026-12-06-h100-moe-gemm/gemm_dram.csv")]


def predict(ridge, m, n, k):
    out = subprocess.run([ridge, "gemm", "--gpu", "h100-sxm", "--m", m, "--n", n, "--k", k, "--dtype", "bf16",
                          "--json"], capture_output=True, text=True, check=True)
    d = json.loads(out.stdout)
    return d["bytes"], d["compulsory_bytes"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ridge", default=os.path.join(ROOT, "build", "ridge"))
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    rows = []
    for name, path in SETS:
        for r in csv.DictReader(open(os.path.join(ROOT, path))):
            measured = float(r["dram_read_bytes"]) + float(r["dram_write_bytes"])
            model, compulsory = predict(a.ridge, r["m"], r["n"], r["k"])
            rows.append((name, r["m"], r["n"], r["k"], r["kernel"].strip('"')[:40], measured, model, compulsory))
    if a.markdown:
        print("| set | M x N x K | ncu read + write | ridge | error | compulsory bytes' error |")
        print("|---|---|---|---|---|---|")
    for s, m, n, k, kern, meas, model, comp in rows:
        if a.markdown:
            print(f"| {s} | {m} x {n} x {k} | {meas / 1e9:.2f} GB | {model / 1e9:.2f} GB | "
                  f"{100 * (model / meas - 1):+.1f} % | {100 * (comp / meas - 1):+.1f} % |")
        else:
            print(f"{s:8s} {m:>6s} {n:>6s} {k:>6s} ncu {meas / 1e9:7.2f} GB ridge {model / 1e9:7.2f} GB "
                  f"{100 * (model / meas - 1):+6.1f} %  (compulsory {100 * (comp / meas - 1):+6.1f} %)  {kern}")
    for name, _ in SETS:
        errs = [abs(r[6] / r[5] - 1) for r in rows if r[0] == name]
        line = f"{name}: {len(errs)} shapes, median |error| {100 * statistics.median(errs):.1f} %, " \
               f"max {100 * max(errs):.1f} %"
        print(("\n" if a.markdown else "") + line)


if __name__ == "__main__":
    main()
