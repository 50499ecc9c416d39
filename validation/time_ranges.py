#!/usr/bin/env python3
"""The uncertainty bands of ridge's predicted times (issue 27), computed from held-out
measurements, and their coverage judged on a harness the bands never saw.

A band is the P10 and P90 of r = measured / predicted - 1 over held-out cases of one
kernel class: a prediction p is shown with the range [p (1 + P10), p (1 + P90)].

  measured     the class's residuals with the shipped entry's timing and nothing fitted
               on the judged lease: the held-out cases of validation/heldout/kernels.py on
               2026-12-01 (the entry's fit never saw them) and every case of the second
               lease the same day (nothing fitted there), each against its own lease's
               probe calibration
  sourced      the measured band widened by the spread of independent public measurements
               of one quantity on one GPU (PUBLIC_SPREAD below: document and table each)
  transferred  the measured band widened by the error of the transfer rules where both
               ends of a transfer are published (TRANSFER_ERRORS below)
  floor        a library class priced at its roofline floor (nothing known): the same
               cases' measured time over their floor; the own class (ridge's reference
               kernels, whose algorithm is the model): validation/h200-validation.json's
               roofline cases against the floor

Widening: the public errors e_i are treated as a zero-mean normal of standard deviation
s = rms(e_i), independent of the model's residuals, so P10/P90 widen in quadrature by
1.2816 s (the normal's P90). Coverage is then measured on kernel_cases.py of 2026-12-03 (a
different harness and lease; the cases that fitted attention_fa2/efficient and norm
row_time and CTA-stream constants excluded): the fraction of measured times inside their
range, per class.

The eager band (eager_band below) is of whole eager steps of harnesses B and C.

Usage: time_ranges.py RIDGE            prints the bands as model/timing.c's table rows
       time_ranges.py RIDGE --coverage  prints the coverage table of validation/README.md
"""
import json
import math
import subprocess
import sys

M = "measurements/"
DECODE_REPLAY = [  # harness A's fixtures and their leases' calibrations (tests/suite_decode_replay.sh)
    ("tests/fixtures/decode_h200.json", M + "2026-12-01-h200-lease2/calibration-replayed.yaml"),
    ("tests/fixtures/decode_h200_lease3.json", M + "2026-12-02-h200-decode/calibration.yaml"),
]
BAND_SETS = [  # (timings, calibration, which cases)
    (M + "2026-12-01-h200-heldout/timings.json", M + "2026-12-01-h200-heldout/calibration.yaml", "heldout"),
    (M + "2026-12-01-h200-lease2/timings.json", M + "2026-12-01-h200-lease2/calibration.yaml", "all"),
]
COVERAGE_SET = (M + "2026-12-03-h200-harnesses/kernel_cases.json", M + "2026-12-03-h200-harnesses/calibration.yaml")
CLASSES = ["gemm", "attention", "norm", "softmax", "elementwise"]
Z90 = 1.2816

# Independent public figures of one quantity on one GPU, as fractions of its spec sheet
# (docs/sources/timing-public-measurements.md, the section named): each pair's relative
# difference is one sample of how far a sourced figure sits from another measurement.
PUBLIC_SPREAD = [
    ("A100 SXM bf16 GEMM: MAMF current 0.869 vs Azure cuBLASLt 8192^3 fp16 0.813 (sec. 1)", 0.869, 0.813),
    ("A100 SXM bf16 GEMM: MAMF 0.869 vs ZZC torch.mm max 0.848 (sec. 1)", 0.869, 0.848),
    ("B200 bf16 GEMM: MAMF 0.776 vs ZZC torch.mm max 0.754 (sec. 5)", 0.776, 0.754),
    ("MI300X bf16 GEMM: MAMF mean 0.511 vs MAMF ROCm 6.2 0.598 (sec. 4)", 0.511, 0.598),
    ("H200 bf16 GEMM: MAMF H100/H200 0.803 vs ridge's H200 fit 0.859 (sec. 0)", 0.803, 0.859),
    ("A100-80 stream: Azure BabelStream triad 0.834 vs RRZE triad 0.863 (sec. 1)", 0.834, 0.863),
    ("H200 stream: Azure BabelStream triad 0.871 vs ridge's H200 element-wise fit 0.864 (sec. 4)", 0.871, 0.864),
    ("H100 FA2: FA3 paper 'FlashAttention-2 ... 35% utilization' vs ridge's H200 FA2 fit 0.349 (sec. 0)", 0.35,
     0.349),
]
# Transfer rules judged where both ends are published: the target's own figure against
# the source entry's fraction carried by the rule (same die: fraction of peak kept;
# same memory technology: stream fraction kept).
TRANSFER_ERRORS = [
    ("GEMM A100 SXM -> A100 PCIe (MAMF 0.869 -> 0.811)", 0.869, 0.811),
    ("GEMM H100 SXM -> H100 PCIe (ZZC same harness 0.806 -> 0.652)", 0.806, 0.652),
    ("GEMM B200 -> B300 (MAMF 0.776 -> 0.786)", 0.776, 0.786),
    ("GEMM MI300X -> MI325X (MAMF 0.511 -> 0.604)", 0.511, 0.604),
    ("stream A100-80 -> A100-40 (RRZE triad 0.863 -> 0.884)", 0.863, 0.884),
    ("stream A40 -> L40 (RRZE triad 0.953 -> 0.929)", 0.953, 0.929),
    ("stream V100 -> A100-80 (RRZE triad 0.904 -> 0.863)", 0.904, 0.863),
    ("stream MI210 -> MI250X GCD (RRZE triad 0.797 -> ORNL BabelStream 1.35/1.638 = 0.824)", 0.797, 0.824),
]


def quantile(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    pos = q * (len(xs) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def cases(ridge, timings, calibration):
    out = subprocess.run([ridge, "calibrate", "--no-fit", "--json", "--timings", timings, "--calibration",
                          calibration], check=True, capture_output=True, text=True).stdout
    return json.loads(out)["cases"]


def residual(case):
    return case["measured_s"] / case["predicted_time_s"] - 1


def class_of(case):
    """The band a case counts toward: attention's implementations share one, and the fp8
    GEMM uses the gemm class's (model/timing_range.c)."""
    if case["class"].startswith("attention"):
        return "attention"
    return "gemm" if case["class"] == "gemm_fp8" else case["class"]


def rms(pairs):
    return math.sqrt(sum((b / a - 1) ** 2 for _, a, b in pairs) / len(pairs))


def widen(lo, hi, s):
    w = Z90 * s
    return -math.sqrt(lo * lo + w * w) if lo < 0 else lo - w, math.sqrt(hi * hi + w * w) if hi > 0 else hi + w


def bands(ridge):
    by_class = {c: [] for c in CLASSES}
    floor_of = {c: [] for c in CLASSES}
    for timings, calibration, which in BAND_SETS:
        for c in cases(ridge, timings, calibration):
            if which == "all" or c["set"] == "heldout":
                by_class[class_of(c)].append(residual(c))
                floor_of[class_of(c)].append(c["measured_s"] / c["time_floor_s"] - 1)
    floor = [v["measured_s"] / v["predicted_s"] - 1
             for v in json.load(open("validation/h200-validation.json"))["validation"] if v.get("roofline_case")]
    s_sourced, s_transfer = rms(PUBLIC_SPREAD), rms(TRANSFER_ERRORS)
    rows = [("own", "floor", quantile(floor, 0.1), quantile(floor, 0.9), len(floor))]
    for c in CLASSES:
        r = by_class[c]
        lo, hi = quantile(r, 0.1), quantile(r, 0.9)
        rows.append((c, "measured", lo, hi, len(r)))
        rows.append((c, "sourced", *widen(lo, hi, s_sourced), len(r)))
        rows.append((c, "transferred", *widen(lo, hi, s_transfer), len(r)))
        f = floor_of[c]
        rows.append((c, "floor", quantile(f, 0.1), quantile(f, 0.9), len(f)))
    # PyTorch's element-wise ops on views (no kernel_cases.py case is one): the two
    # held-out models' prefill profiles, each op summed over its layers, against the
    # fit on the third (validation/harnesses/fit_strided_elementwise.py)
    sys.path.insert(0, "validation/harnesses")
    import fit_strided_elementwise
    r, f = fit_strided_elementwise.held_out_residuals()
    lo, hi = quantile(r, 0.1), quantile(r, 0.9)
    rows.append(("elementwise_strided", "measured", lo, hi, len(r)))
    rows.append(("elementwise_strided", "sourced", *widen(lo, hi, s_sourced), len(r)))
    rows.append(("elementwise_strided", "transferred", *widen(lo, hi, s_transfer), len(r)))
    rows.append(("elementwise_strided", "floor", quantile(f, 0.1), quantile(f, 0.9), len(f)))
    return rows, s_sourced, s_transfer


# kernel_cases.py's calls that fitted a constant (validation/harnesses/): fit_row_time.py's
# three narrow RMSNorms, fit_row_kernels.py's two widest RMSNorms (norm.cta_bandwidth) and
# five register-kernel softmaxes (softmax.cta_latency, .cta_bandwidth).
ROW_FIT_CALLS = {
    "F.rms_norm [65536,256]", "F.rms_norm [131072,128]", "F.rms_norm [262144,64]",
    "F.rms_norm [1024,16384]", "F.rms_norm [512,32768]",
    "torch.softmax [8192,2560]", "torch.softmax [8192,3072]", "torch.softmax [8192,3584]",
    "torch.softmax [8192,5120]", "torch.softmax [16384,2304]",
}


def held_out_for_coverage(c):
    """kernel_cases.py cases no constant was fitted to (attention_timings.py's fit set:
    32 heads x 128; ROW_FIT_CALLS)."""
    call = c["call"]
    if c["class"].startswith("attention") and " H32 " in call and " D128" in call:
        return False
    return call not in ROW_FIT_CALLS


def coverage(ridge, rows):
    band = {(c, p): (lo, hi) for c, p, lo, hi, _ in rows}
    print("| class | held-out cases (kernel_cases.py, 2026-12-03) | band P10 / P90 (measured) | inside | below | above |")
    print("|---|---|---|---|---|---|")
    total = inside_all = 0
    for cls in CLASSES:
        lo, hi = band[(cls, "measured")]
        sel = [c for c in cases(ridge, *COVERAGE_SET) if class_of(c) == cls and held_out_for_coverage(c)]
        if not sel:
            print(f"| {cls} | 0 | {lo * 100:+.1f} % / {hi * 100:+.1f} % | - | - | - |")
            continue
        r = [residual(c) for c in sel]
        inside = sum(lo <= x <= hi for x in r)
        below = sum(x < lo for x in r)
        total += len(r)
        inside_all += inside
        print(f"| {cls} | {len(r)} | {lo * 100:+.1f} % / {hi * 100:+.1f} % | {inside / len(r) * 100:.0f} % "
              f"| {below} | {len(r) - inside - below} |")
    print(f"| **all** | {total} | | **{inside_all / total * 100:.0f} %** | | |")


def eager_band(ridge):
    """The host issue time of an eager step (model/serve.c, launch_time): P10 and P90 of
    measured / predicted - 1 over the eager decode steps of harnesses B and C (H200,
    2026-12-03; validation/harnesses/replay.py, each with its own layer and host loop).
    launch.framework_overhead was fitted on harness A's eager loop alone, so these steps
    are held out from it; eager steps are host-bound, so the ratio is that of the host
    time a kernel costs (harness B's plain torch ops run cheaper than harness A's, and
    transformers' modelling code launches more kernels than ridge's sequence counts)."""
    import tempfile
    sys.path.insert(0, "validation/harnesses")
    import replay
    with tempfile.TemporaryDirectory() as tmp:
        table = replay.rows(ridge, M + "2026-12-03-h200-harnesses", tmp)
    r = [row[6] / row[7] - 1 for row in table if row[3] == "eager"]
    return quantile(r, 0.1), quantile(r, 0.9), len(r)


def tally(groups, key, measured, lo, hi):
    """Counts a step below, inside or above its range [lo, hi] in groups[key]."""
    g = groups.setdefault(key, [0, 0, 0])
    g[0 if measured < lo else 2 if measured > hi else 1] += 1


def step_coverage(ridge):
    """Whole decode steps of harnesses B and C (validation/harnesses/replay.py): the
    fraction inside `ridge cost decode`'s predicted_time_range_s."""
    import os
    import tempfile
    sys.path.insert(0, "validation/harnesses")
    import replay
    docs = []

    def keep(*args):
        docs.append(replay.predict_doc(*args))
        return docs[-1]["tpot_s"]

    with tempfile.TemporaryDirectory() as tmp:
        table = replay.rows(ridge, M + "2026-12-03-h200-harnesses", tmp, predict=keep)
    print()
    print("| harness | launch | steps | inside the step range | below | above |")
    print("|---|---|---|---|---|---|")
    groups = {}
    for row, doc in zip(table, docs):
        harness, mode, measured = row[0], row[3], row[6]
        lo, hi = doc["predicted_time_range_s"]
        tally(groups, (harness, "graph" if mode in ("graph", "compiled") else "eager"), measured, lo, hi)
    # harness A's eager steps that fitted nothing (its judged and held-out sets, both
    # leases): the eager band's held-out judgement (the band is harnesses B's and C's)
    sys.path.insert(0, "validation")
    import decode_replay
    with tempfile.TemporaryDirectory() as tmp:
        for fixture, calibration in DECODE_REPLAY:
            for case, cfg, k in decode_replay.cases(fixture, tmp):
                if case["mode"] != "eager" or decode_replay.case_set(case) == "fit":
                    continue
                doc = decode_replay.predict_doc(ridge, cfg, case, calibration, k)
                lo, hi = doc["predicted_time_range_s"]
                tally(groups, ("A (" + case["phase"] + ")", "eager"), case["median_s"], lo, hi)
    for (harness, launch), (below, inside, above) in sorted(groups.items()):
        n = below + inside + above
        print(f"| {harness} | {launch} | {n} | {inside / n * 100:.0f} % | {below} | {above} |")


def main():
    ridge = sys.argv[1]
    rows, s_sourced, s_transfer = bands(ridge)
    if "--coverage" in sys.argv[2:]:
        coverage(ridge, rows)
        step_coverage(ridge)
        return
    print(f"/* sourced: rms of the public spread {s_sourced:.4f}; transferred: rms of the transfer errors "
          f"{s_transfer:.4f} */")
    for c, p, lo, hi, n in rows:
        print(f"\tBAND({c.upper()}, {p.upper()}, {lo:.4f}, {hi:.4f}, {n})")
    lo, hi, n = eager_band(ridge)
    print(f"#define RIDGE_EAGER_HOST_BAND {{ {lo:.4f}, {hi:.4f}, {n} }}")


if __name__ == "__main__":
    main()
