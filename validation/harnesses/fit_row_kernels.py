#!/usr/bin/env python3
"""Fits the CTA stream of row kernels (hwdb timing.norm.cta_bandwidth,
timing.softmax.cta_latency and cta_bandwidth) and judges every norm and
softmax case that no constant was fitted to, through `ridge roofline`.

The model (docs/models/timing.md, "Row kernels"): PyTorch runs one CTA per row
for RMSNorm/LayerNorm (vectorized_layer_norm_kernel, 128 threads) and for
softmax wider than 2048 columns (1024 threads: cunn_SoftMaxForwardReg, ...Smem,
cunn_SoftMaxForward); an SM holds 2048 / threads of them, so n = min(CTAs,
SMs x 2048 / threads) stream at once. Each streams its row (read and written,
b bytes) at cta_bandwidth, and the n streams queue at the HBM: a wave takes
cta_latency + b (1 / cta_bandwidth + n / memory.bandwidth), the kernel
max(1, CTAs / resident) waves, its fill and drain included; with the launch
latency CUDA events see (launch.kernel_fixed_cost) it is a term of the max
while n x cta_bandwidth is below memory.bandwidth (beyond, the bytes bind).

Fit sets (kernel_cases.py, 2026-12-03 lease, with that lease's calibration:
its memory.bandwidth and launch.kernel_fixed_cost), nothing else:
  norm     cta_bandwidth: the RMSNorms of 16384 and more columns (1024 x 16384,
           512 x 32768: fewer CTAs than the 2112 resident); the median of
           b / (measured - launch - n b / bandwidth).
  softmax  cta_latency, cta_bandwidth: the register-kernel softmaxes of 8192
           and more rows (the width sweep 2304..5120 columns); least squares on
           the relative error of measured - launch - waves n b / bandwidth =
           waves (latency + b / cta_bandwidth).
Held out: every other norm and softmax case of that lease and every case of
the 2026-12-01 lease's timings.json marked heldout (its fit cases set the class
efficiencies and are listed apart); with --decode SDPA_DECODE.json, harness B's
decode RMSNorms (8 rows, torch.profiler's kernel times, in a graph: no launch).
"before" is the same prediction without the CTA stream term.

Usage: fit_row_kernels.py KERNEL_CASES.json RIDGE CALIBRATION [TIMINGS.json CALIBRATION] [--decode SDPA_DECODE.json]
(CALIBRATION: the lease's ridge-probe calibration)"""
import json
import statistics
import subprocess
import sys

E = 2  # bf16
RESIDENT_PER_SM = {"norm": 2048 // 128, "softmax": 2048 // 1024}


def lease_terms(ridge, cal):
    """The calibration's launch latency and HBM bandwidth."""
    out = subprocess.run([ridge, "hw", "show", "h200-sxm", "--calibration", cal, "--json"], capture_output=True,
                         text=True, check=True)
    g = json.loads(out.stdout)
    return g.get("kernel_fixed_cost_s", 0), g["memory_bandwidth"]


def solve2(rows):
    """Least squares of 1 = a x + b y over rows (x, y)."""
    sxx = sum(x * x for x, _ in rows)
    sxy = sum(x * y for x, y in rows)
    syy = sum(y * y for _, y in rows)
    sx = sum(x for x, _ in rows)
    sy = sum(y for _, y in rows)
    det = sxx * syy - sxy * sxy
    return (sx * syy - sy * sxy) / det, (sxx * sy - sxy * sx) / det


def fit(doc, launch, bandwidth):
    sms = doc.get("sm_count", 132)
    cases = doc["cases"]
    norm_fit = [c for c in cases if c["kernel"] == "rmsnorm" and c["flags"]["n"] >= 16384]
    norm_bw = statistics.median(
        b / (c["median_s"] - launch - c["flags"]["m"] * b / bandwidth)
        for c in norm_fit for b in [2 * c["flags"]["n"] * E])
    reg = [c for c in cases if c["kernel"] == "softmax" and 2048 < c["flags"]["n"] <= 9216 and c["flags"]["m"] >= 8192]
    resident = sms * RESIDENT_PER_SM["softmax"]
    rows = []
    for c in reg:
        waves = max(1.0, c["flags"]["m"] / resident)
        b = 2 * c["flags"]["n"] * E
        t = c["median_s"] - launch - waves * min(c["flags"]["m"], resident) * b / bandwidth
        rows.append((waves / t, waves * b / t))
    latency, inv_bw = solve2(rows)
    print(f"lease                 launch {launch * 1e6:.4f} us, memory.bandwidth {bandwidth / 1e12:.4f} TB/s")
    print(f"norm.cta_bandwidth    {norm_bw / 1e9:.4f} GB/s  fitted to {len(norm_fit)} RMSNorms: "
          + ", ".join(f"{c['flags']['m']}x{c['flags']['n']}" for c in norm_fit))
    print(f"softmax.cta_latency   {latency * 1e6:.4f} us")
    print(f"softmax.cta_bandwidth {1 / inv_bw / 1e9:.4f} GB/s  fitted to {len(reg)} register-kernel softmaxes: "
          + ", ".join(f"{c['flags']['m']}x{c['flags']['n']}" for c in reg))
    return {id(c) for c in norm_fit + reg}


def predict(ridge, cal, c):
    f = c["flags"]
    out = subprocess.run([ridge, "roofline", "--gpu", "h200-sxm", "--calibration", cal, "--kernel", c["kernel"],
                          "--m", str(f["m"]), "--n", str(f["n"]), "--json"], capture_output=True, text=True, check=True)
    p = json.loads(out.stdout)["prediction"]
    # the same terms without the CTA stream: the prediction before it
    terms = [p["quantized_compute_time_s"] / p["compute_efficiency"], p["memory_time_s"] / p["memory_efficiency"],
             p.get("row_time_s", 0)]
    before = max(max(terms) + p["fixed_cost_s"], p["time_floor_s"])
    return p, before


def judge(ridge, lease, doc, cal, fitted, table):
    for c in doc["cases"]:
        if c["kernel"] not in ("rmsnorm", "layernorm", "softmax"):
            continue
        f = c["flags"]
        p, before = predict(ridge, cal, c)
        m = c["median_s"]
        narrow = lease == "2026-12-03" and c["kernel"] == "rmsnorm" and f["m"] >= 65536
        which = ("fit: cta" if id(c) in fitted else "fit: row_time" if narrow
                 else "fit: class" if c.get("set") == "fit" and lease == "2026-12-01" else "held out")
        e0, e1 = (before - m) / m, (p["predicted_time_s"] - m) / m
        table.append((which, c["kernel"], e0, e1, p["binds"]))
        print(f"| {lease} | {which} | {c['kernel']} | {f['m']} x {f['n']} | {p.get('library_kernel', '')} | "
              f"{m * 1e6:.1f} | {before * 1e6:.1f} | {p['predicted_time_s'] * 1e6:.1f} | {e0 * 100:+.1f}% | "
              f"{e1 * 100:+.1f}% | {p['binds']} |")


def judge_decode(ridge, cal, path, table):
    """Harness B's decode RMSNorms: torch.profiler's kernel time (no launch)
    against ridge's in-graph prediction (cost decode prices them so)."""
    doc = json.load(open(path))
    for name, kernels in doc["kernels"].items():
        width = doc["configs"][name]["hidden_size"]
        times = [k["us"] * 1e-6 for k in kernels if "layer_norm" in k["name"]]
        m = statistics.median(times)
        c = {"kernel": "rmsnorm", "flags": {"m": 8, "n": width}}
        p, before = predict(ridge, cal, c)
        # in a graph the launch latency is hidden: the stream alone, or the
        # class's fixed cost less the launch (timing_kernel's in_stream)
        out = subprocess.run([ridge, "hw", "show", "h200-sxm", "--calibration", cal, "--json"], capture_output=True,
                             text=True, check=True)
        launch = json.loads(out.stdout).get("kernel_fixed_cost_s", 0)
        after = max(p["predicted_time_s"] - launch, 0)
        before = max(before - launch, 0)
        e0, e1 = (before - m) / m, (after - m) / m
        table.append(("decode", "rmsnorm", e0, e1, p["binds"]))
        print(f"| harness B | decode ({len(times)} kernels) | rmsnorm | 8 x {width} ({name}) | "
              f"{p.get('library_kernel', '')} | {m * 1e6:.2f} | {before * 1e6:.2f} | {after * 1e6:.2f} | "
              f"{e0 * 100:+.1f}% | {e1 * 100:+.1f}% | {p['binds']} |")


def main():
    args = sys.argv[1:]
    decode = None
    if "--decode" in args:
        i = args.index("--decode")
        decode = args[i + 1]
        del args[i:i + 2]
    doc = json.load(open(args[0]))
    ridge, cal = args[1], args[2]
    fitted = fit(doc, *lease_terms(ridge, cal))
    print("\n| lease | set | kernel | shape | library kernel | measured us | before us | ridge us | before | error | binds |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    table = []
    judge(ridge, "2026-12-03", doc, cal, fitted, table)
    if len(args) > 4:
        judge(ridge, "2026-12-01", json.load(open(args[3])), args[4], fitted, table)
    if decode:
        judge_decode(ridge, cal, decode, table)
    print("\n| family | held-out cases | median abs error before | after | max after |")
    print("|---|---|---|---|---|")
    families = [("RMSNorm", ("rmsnorm",)), ("LayerNorm", ("layernorm",)), ("softmax", ("softmax",)),
                ("rows (all)", ("rmsnorm", "layernorm", "softmax"))]
    for name, kernels in families:
        rows = [(abs(e0), abs(e1)) for which, k, e0, e1, _ in table if which == "held out" and k in kernels]
        print(f"| {name} | {len(rows)} | {statistics.median(r[0] for r in rows) * 100:.1f}% | "
              f"{statistics.median(r[1] for r in rows) * 100:.1f}% | {max(r[1] for r in rows) * 100:.1f}% |")
    for name, pick in [("held out, where the CTA stream binds", lambda w, b: w == "held out" and b == "ctas"),
                       ("decode RMSNorm (harness B)", lambda w, b: w == "decode")]:
        rows = [(abs(e0), abs(e1)) for which, k, e0, e1, binds in table if pick(which, binds)]
        if rows:
            print(f"| {name} | {len(rows)} | {statistics.median(r[0] for r in rows) * 100:.1f}% | "
                  f"{statistics.median(r[1] for r in rows) * 100:.1f}% | {max(r[1] for r in rows) * 100:.1f}% |")


if __name__ == "__main__":
    main()
