#!/usr/bin/env python3
"""The power limit's two constants from measurements (hwdb power.* keys).

Usage: python3 validation/power_limit.py [POWER_ONSET.json ...]

  sustained_matrix_fraction  ridge-probe --sustained's settled over burst bf16
                             GEMM rate (tests/fixtures/probe_h200_sustained.json)
  burst_time                 the median, over every back-to-back loop that
                             slowed for good (the calls after stay 4 % slower),
                             of the tensor-core time before the first call 4 %
                             slower than the loop's burst (median of calls
                             2-6; calls of 0.3 ms or more): kernels.py's loops of 5 warm-ups and 25
                             timed calls (measurements/*/timings.json; warm-ups
                             counted at the burst time) and power_onset.py's
                             long loop from idle (given as arguments)
"""
import glob
import json
import os
import statistics
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SLOWER = 1.04


def onsets_of_timings(path):
    d = json.load(open(path))
    found = []
    for c in d["cases"]:
        s = c["samples_s"]
        if c["kernel"] not in ("gemm", "flash-attention") or len(s) < 7:
            continue
        burst = statistics.median(s[1:6])
        if burst < 3e-4:
            continue  # shorter calls jitter by more than the step looked for
        slow = next((i for i, t in enumerate(s) if i > 0 and t > SLOWER * burst), None)
        # a drop that lasts: the calls after it stay slow
        if slow is not None and statistics.median(s[slow:]) > SLOWER * burst:
            found.append((5 * burst + sum(s[:slow]), f"{path}: {c['call']}"))
    return found


def main():
    sus = json.load(open(os.path.join(ROOT, "tests/fixtures/probe_h200_sustained.json")))["sustained"]
    gemm = next(s for s in sus if s["name"] == "gemm_bf16")
    print(f"sustained_matrix_fraction = {gemm['settled']:.6g} / {gemm['burst']:.6g} = "
          f"{gemm['settled'] / gemm['burst']:.4f}")
    onsets = []
    for path in sorted(glob.glob(os.path.join(ROOT, "measurements/*/timings.json"))):
        onsets += onsets_of_timings(os.path.relpath(path, ROOT))
    for path in sys.argv[1:]:
        d = json.load(open(path))
        if d.get("onset_s") is not None:
            onsets.append((d["onset_s"], f"{path}: {d['calls']} calls of bf16 {d['shape']} after {d['idle_s']} s idle"))
    for t, what in onsets:
        print(f"  {t * 1e3:7.1f} ms  {what}")
    print(f"burst_time = median of {len(onsets)} = {statistics.median(t for t, _ in onsets) * 1e3:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
