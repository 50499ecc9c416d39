#!/usr/bin/env python3
"""Fits the compute efficiency of the H200's gemm_fp8 timing class (hwdb/h200-sxm.yaml
`timing.gemm_fp8`) on fp8 GEMMs already measured on H200 leases, and judges it on the ones it
did not see, on the H200 and the H100.

Before this class an fp8 GEMM was priced with the gemm class's efficiencies, fitted to bf16
GEMMs, against the fp8 spec rate (twice bf16's); the probe's cuBLASLt e4m3 GEMMs reach 1.86 to
1.95 times its bf16 ones at 8192^3 on eleven leases, not 2. Each fitting case gives
e = quantized compute time at the spec rate / (measured - the class's fixed cost), the time
model's own compute term solved for its efficiency (model/timing.c); the fit is the median. The
cases, each a kernel timed alone with CUDA events (the probe's 15 timed launches):

  fit       ridge-probe's compute-bound fp8 GEMMs of the 2026-12-01 lease
            (measurements/2026-12-01-h200-heldout): 4096^3, 8192^3 and 8192 x 14336 x 4096
            (2048^3 is judged, not fitted: half its time is the fixed cost; 16384^3 is left out
            everywhere: its 15 calls of 5.6 ms run past the power limit's 37 ms burst, which
            model/serve.c prices apart)
  held out  the probe's fp8 GEMMs of the other H200 leases (2026-12-01 second lease,
            2026-12-02, 2026-12-03) and of five H100 leases (2026-12-06), the H100's judged with
            hwdb/h100-sxm.yaml (its gemm_fp8 compute efficiency the H200's, transferred), and
            kernel_cases.py's 56 fp8 torch._scaled_mm GEMMs at 1 to 256 tokens
            (measurements/2026-12-03-h200-harnesses), which the memory side binds

The memory efficiency and fixed cost stay the gemm class's: fitted to kernel_cases.py's fp8
families they came out at 0.637 of HBM with the fixed cost at its floor (the launch latency),
from two weight sizes (42 and 117 MB) that extrapolate to a 70B layer's 470 MB at 10 % slower
than the gemm class prices it, and the gemm class already judges those 56 cases at a median
|error| of 4.8 %.

usage: python3 validation/harnesses/fit_fp8_gemm.py [RIDGE]
"""
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
FIT_PROBE = "measurements/2026-12-01-h200-heldout/probe.json"
KERNEL_CASES = "measurements/2026-12-03-h200-harnesses/kernel_cases.json"
BURST_S = 37.3e-3  # hwdb/h200-sxm.yaml power.burst_time


def probe_cases(path, role):
    """ridge-probe's fp8 GEMMs (m = output features, n = tokens, as the probe names cuBLAS's
    operands) whose timed calls stay inside the power limit's burst."""
    out = []
    for m in json.load(open(os.path.join(ROOT, path)))["measurements"]:
        if m.get("name") != "gemm_fp8" or m.get("sustained") or m.get("validation") or not m.get("ok"):
            continue
        samples = m["seconds"] if isinstance(m["seconds"], list) else [m["seconds"]]
        if sum(samples) > BURST_S:
            continue
        out.append({"set": role, "kernel": "gemm", "dtype": "fp8", "flags": {"m": m["m"], "n": m["n"], "k": m["k"]},
                    "call": "%s probe %dx%dx%d" % (path.split("/")[1], m["m"], m["n"], m["k"]),
                    "samples_s": samples, "median_s": statistics.median(samples)})
    return out


def kernel_cases():
    out = []
    for c in json.load(open(os.path.join(ROOT, KERNEL_CASES)))["cases"]:
        if c["kernel"] != "gemm" or c.get("dtype") != "fp8":
            continue
        family = (c["flags"]["m"], c["flags"]["k"])
        c = dict(c, set="heldout")
        c["call"] = "kernel_cases N%d K%d %s" % (family[0], family[1], c["call"])
        out.append(c)
    return out


def calibrate(ridge, gpu, cases, no_fit=False):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "timings.json")
        json.dump({"format": "ridge-timings-1", "cases": cases}, open(path, "w"))
        cmd = [ridge, "calibrate", "--timings", path, "--gpu", gpu, "--json"] + (["--no-fit"] if no_fit else [])
        return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def group(call):
    words = call.split()
    return " ".join(words[:3]) if words[0] == "kernel_cases" else words[0]


def report(doc, role):
    groups = {}
    for c in doc["cases"]:
        if c["set"] == role or role == "all":
            groups.setdefault(group(c["call"]), []).append(c["error"])
    every = []
    for name, errors in sorted(groups.items()):
        every += errors
        print("  %-38s %3d: median %+5.1f %%, median |error| %4.1f %%, max |error| %4.1f %%" % (
            name, len(errors), 100 * statistics.median(errors), 100 * statistics.median(abs(e) for e in errors),
            100 * max(abs(e) for e in errors)))
    return every


COMPUTE_SHARE = 0.8  # a fitting case's compute term (measured - fixed cost) is at least this share of its measured time


def compute_fit(ridge, cases):
    """The median over the fitting cases of quantized compute / (measured - fixed cost), with
    the entry's own compute term and fixed cost (calibrate --no-fit prints both)."""
    doc = calibrate(ridge, "h200-sxm", cases, no_fit=True)
    gemm = subprocess.run([ridge, "gemm", "--m", "4096", "--n", "4096", "--k", "4096", "--dtype", "fp8", "--gpu",
                           "h200-sxm", "--json"], check=True, capture_output=True, text=True).stdout
    fixed = json.loads(gemm)["prediction"]["fixed_cost_s"]
    values = []
    for c in doc["cases"]:
        compute_s = c["measured_s"] - fixed
        e = c["compute_time_s"] / compute_s
        used = c["set"] == "fit" and compute_s >= COMPUTE_SHARE * c["measured_s"]
        print("  %-7s %-42s measured %8.2f us, compute at spec %8.2f us: e = %.4f%s" % (
            c["set"], c["call"], c["measured_s"] * 1e6, c["compute_time_s"] * 1e6, e, "" if used else " (not fitted)"))
        if used:
            values.append(e)
    return statistics.median(values), len(values), fixed


def main():
    ridge = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "ridge")
    h200_probes = [os.path.relpath(p, ROOT) for p in sorted(glob.glob(os.path.join(ROOT, "measurements/*h200*/probe.json")))]
    probes = probe_cases(FIT_PROBE, "fit") + [c for p in h200_probes if p != FIT_PROBE for c in probe_cases(p, "heldout")]
    print("compute efficiency of each probe GEMM (e over the spec's fp8 rate):")
    value, n, fixed = compute_fit(ridge, probes)
    print("\nhwdb/h200-sxm.yaml timing.gemm_fp8.compute_efficiency: %.4f (median of %d; fixed cost %.2f us, the "
          "gemm class's)" % (value, n, fixed * 1e6))
    print("\nevery case judged with this ridge's entries (run again after writing the value to judge it):")
    h200 = calibrate(ridge, "h200-sxm", probes + kernel_cases(), no_fit=True)
    print(" H200 fitting cases:")
    report(h200, "fit")
    print(" H200 held out:")
    held = report(h200, "heldout")
    big = [c["error"] for c in h200["cases"] if c["set"] == "heldout" and "probe" in c["call"]]
    print("  held-out probe GEMMs: %d, median |error| %.1f %%; all %d held out: %.1f %%" % (
        len(big), 100 * statistics.median(abs(e) for e in big), len(held), 100 * statistics.median(abs(e) for e in held)))
    h100 = [os.path.relpath(p, ROOT) for p in sorted(glob.glob(os.path.join(ROOT, "measurements/*h100*/probe*.json")))]
    h100_cases = [c for p in h100 for c in probe_cases(p, "heldout")]
    if h100_cases:
        print(" H100 held out (hwdb/h100-sxm.yaml):")
        held = report(calibrate(ridge, "h100-sxm", h100_cases, no_fit=True), "heldout")
        print("  all %d: median |error| %.1f %%" % (len(held), 100 * statistics.median(abs(e) for e in held)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
