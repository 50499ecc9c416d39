#!/usr/bin/env python3
"""How fast the burst rate comes back after the power limit throttled it, from
validation/harnesses/power_recovery.py's JSON (issue 29: serving iterations).

usage: python3 validation/power_recovery.py POWER_RECOVERY.json
       python3 validation/power_recovery.py --judge POWER_PATTERNS.json [BURST_MS IDLE BUSY]

For the cold loop: the burst GEMM time (median of GEMMs 2-10), the settled time
(median of the last 100) and the onset (the tensor-core time before the first
GEMM 4 % slower than the burst that stays slower: validation/power_limit.py's
rule). For each cycle configuration (a gap kind and length between 40 ms bursts
of GEMMs, after a settled preheat): the burst time regained, each GEMM after
a burst's first (which pays a fixed start-up after any gap, cold too) counted
by how far its time lies from settled toward burst, summed (median over
cycles 3 to the last: the first two still leave the preheat).

The fit (hwdb power.recovery_idle and recovery_busy): the rate r of a bucket
that refills r seconds of burst a second of gap, up to the full burst (the
idle gaps' regained at the longest gap), the least squares over the gaps of
each kind, on a grid of 0.05.

--judge reads power_recovery.py --patterns' serving-like cycles (a stretch of
GEMMs, a gap) and sets each cycle's measured GEMM time (after its first GEMM)
beside three predictions from the cold loop's burst and settled GEMM times: the
headroom carried across cycles at the refill rates (ridge serve: burst time
BURST_MS, default the H100 entry's 37.3 ms, rates IDLE and BUSY, default 0.95
and 0.60), every cycle rested (a full burst each, the rule before), and none
(settled throughout).
"""
import json
import statistics
import sys

SLOWER = 1.04


def onset(times, burst):
    slow = next((i for i, t in enumerate(times) if i > 0 and t > SLOWER * burst), None)
    if slow is None or statistics.median(times[slow:]) <= SLOWER * burst:
        return None
    return sum(times[:slow])


def regained(cycle, burst, settled):
    """The burst time in a cycle: each GEMM after the first weighted by where its time lies
    between settled (0) and burst (1)."""
    return sum(min(1.0, max(0.0, (settled - t) / (settled - burst))) * t for t in cycle[1:])


def analyse(d):
    cold = d["cold_s"]
    burst = statistics.median(cold[1:10])
    settled = statistics.median(cold[-100:])
    rows = []
    for c in d["configs"]:
        got = [regained(cy, burst, settled) for cy in c["cycles_s"][2:]]
        first = statistics.median(cy[0] for cy in c["cycles_s"][2:])
        rows.append((c["kind"], c["gap_ms"], statistics.median(got), first))
    return burst, settled, onset(cold, burst), rows


def fit_rate(points, cap):
    """The r of min(cap, r x gap) nearest the (gap s, regained s) points, grid 0.05 to 5."""
    grid = [0.05 * k for k in range(1, 101)]
    return min(grid, key=lambda r: sum((min(cap, r * g) - got) ** 2 for g, got in points))


def cycle_prediction(n, t_burst, t_settled, headroom):
    """The GEMM time of n GEMMs from the given headroom, and the headroom left."""
    k = min(n, headroom / t_burst)
    return k * t_burst + (n - k) * t_settled, headroom - k * t_burst


def judge(path, burst_s, idle_rate, busy_rate):
    d = json.load(open(path))
    cold = d["cold_s"]
    t_b, t_s = statistics.median(cold[1:10]), statistics.median(cold[-100:])
    print("%s: GEMM %.3f ms burst, %.3f ms settled; burst time %.1f ms, refill %.2f idle, %.2f busy" %
          (d["device"], t_b * 1e3, t_s * 1e3, burst_s * 1e3, idle_rate, busy_rate))
    print("%-22s %10s %10s %10s %10s" % ("cycle", "measured", "carried", "rested", "none"))
    errors = {"carried": [], "rested": [], "none": []}
    for c in d["configs"]:
        n = c["gemms_per_burst"] - 1  # the first GEMM of a cycle pays a start-up: left out
        measured = statistics.median(sum(cy[1:]) for cy in c["cycles_s"][2:])
        rate = idle_rate if c["kind"] == "idle" else busy_rate
        headroom = burst_s
        for _ in range(100):  # the steady state of the cycle
            carried, left = cycle_prediction(n, t_b, t_s, headroom)
            headroom = min(burst_s, left + rate * c["gap_ms"] / 1e3)
        rested, _ = cycle_prediction(n, t_b, t_s, burst_s)
        predictions = {"carried": carried, "rested": rested, "none": n * t_s}
        for k, v in predictions.items():
            errors[k].append(v / measured - 1)
        label = "%.0f ms, %s %g ms" % ((n + 1) * t_b * 1e3, c["kind"], c["gap_ms"])
        print("%-22s %8.2f ms %+9.1f%% %+9.1f%% %+9.1f%%" % (label, measured * 1e3, 100 * errors["carried"][-1],
                                                        100 * errors["rested"][-1], 100 * errors["none"][-1]))
    print("median |error|: carried %.1f %%, rested %.1f %%, none %.1f %%" %
          tuple(100 * statistics.median(abs(e) for e in errors[k]) for k in ("carried", "rested", "none")))
    return 0


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--judge":
        rest = [float(x) for x in sys.argv[3:]]
        if len(rest) not in (0, 3):
            print(__doc__.strip().splitlines()[3], file=sys.stderr)
            return 2
        burst_ms, idle, busy = rest if rest else (37.3, 0.95, 0.60)
        return judge(sys.argv[2], burst_ms / 1e3, idle, busy)
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    d = json.load(open(sys.argv[1]))
    burst, settled, on, rows = analyse(d)
    flops = d["gemm_flops"]
    print("%s: burst %.3f ms (%.0f TFLOP/s), settled %.3f ms (%.0f TFLOP/s): fraction %.4f; onset %s" %
          (d["device"], burst * 1e3, flops / burst / 1e12, settled * 1e3, flops / settled / 1e12, burst / settled,
           "%.1f ms" % (on * 1e3) if on is not None else "none (no lasting drop)"))
    print("%-5s %8s %14s %16s %18s" % ("gap", "ms", "regained ms", "per s of gap", "first GEMM / burst"))
    for kind, gap_ms, got, first in rows:
        print("%-5s %8g %14.2f %16.3f %18.3f" % (kind, gap_ms, got * 1e3, got / (gap_ms / 1e3), first / burst))
    longest = max(g for k, g, _, _ in rows if k == "idle")
    cap = next(got for k, g, got, _ in rows if k == "idle" and g == longest)
    print("full burst in a cycle (idle %g ms): %.1f ms" % (longest, cap * 1e3))
    for kind, key in (("idle", "recovery_idle"), ("copy", "recovery_busy")):
        points = [(g / 1e3, got) for k, g, got, _ in rows if k == kind]
        r = fit_rate(points, cap)
        fitted = " ".join("%g ms: %.1f (%.1f)" % (g * 1e3, min(cap, r * g) * 1e3, got * 1e3) for g, got in points)
        print("power.%s: %.2f   # fitted (measured) ms: %s" % (key, r, fitted))
    return 0


if __name__ == "__main__":
    sys.exit(main())
