#!/usr/bin/env python3
"""Does the power limit's throttling last across gaps in the work? (issue 29)

ridge prices the power limit per step (model/serve.c, "power limit"): a step's
compute-bound matrix time T runs its first power.burst_time (tau) at the burst
rate and the rest at power.sustained_matrix_fraction of it. A serving engine runs
its steps back to back, so whether the burst comes back at each step's start
depends on how fast the GPU recovers between compute-bound stretches. This
harness measures that on one GPU, with PyTorch and CUDA events:

  cold    after IDLE_S of idle, bf16 8192^3 GEMMs back to back for COLD_MS: the
          burst rate (median of GEMMs 2-10), the settled rate (median of the last
          100) and the onset (tensor-core time before the first GEMM 4 % slower
          than the burst that stays slower), as validation/power_limit.py reads it
  cycles  for each gap kind and length: PREHEAT_S of GEMMs (settled), then
          CYCLES x [BURST_MS of GEMMs, each timed] [the gap]; kinds:
            idle  the host sleeps (the GPU has nothing queued): host time
                  between iterations
            copy  1 GiB device-to-device copies back to back (memory-bound,
                  the HBM busy): a decode iteration between prefills

  patterns  (--patterns) serving-like cycles the fit never saw, PATTERNS: a
          stretch of GEMMs of its own length and a gap of either kind, to judge
          the refill rates fitted on the cycles above (validation/power_recovery.py
          --judge)

Writes one JSON file: every GEMM's time in every cycle, the cold loop's, the
GEMM's FLOPs and the copy's bytes, and the device. nvidia-smi's clock and power
at 20 ms go to SMI_LOG beside it when nvidia-smi is there.

usage: python3 power_recovery.py OUT.json [--patterns]
"""
import json
import os
import shutil
import subprocess
import sys
import time

import torch

N = 8192
IDLE_S = 5.0
COLD_MS = 600.0
PREHEAT_S = 2.0
BURST_MS = 40.0
CYCLES = 12
GAPS_MS = [1, 3, 10, 30, 100, 300]
COPY_BYTES = 1 << 30
# (GEMM stretch ms, gap kind, gap ms): a prefill-heavy iteration and a few decode ones, long
# prefills with short host gaps, short mixed ones, and a balanced one
PATTERNS = [(80, "copy", 10), (80, "copy", 30), (20, "copy", 20), (120, "idle", 5), (60, "copy", 60),
            (40, "copy", 100)]


def timed_gemms(a, b, c, count):
    """count GEMMs back to back, each between two events: their times in s."""
    events = [torch.cuda.Event(enable_timing=True) for _ in range(count + 1)]
    events[0].record()
    for i in range(count):
        torch.mm(a, b, out=c)
        events[i + 1].record()
    return events


def times_of(events):
    torch.cuda.synchronize()
    return [events[i].elapsed_time(events[i + 1]) / 1e3 for i in range(len(events) - 1)]


def main():
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] != "--patterns"):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    out_path = sys.argv[1]
    patterns = len(sys.argv) == 3
    dev = torch.device("cuda")
    torch.manual_seed(0)
    a = torch.randn(N, N, device=dev, dtype=torch.bfloat16)
    b = torch.randn(N, N, device=dev, dtype=torch.bfloat16)
    c = torch.empty(N, N, device=dev, dtype=torch.bfloat16)
    src = torch.empty(COPY_BYTES // 2, device=dev, dtype=torch.float16).normal_()
    dst = torch.empty_like(src)
    flops = 2.0 * N**3

    smi = None
    smi_path = os.path.splitext(out_path)[0] + "-smi.csv"
    if shutil.which("nvidia-smi"):
        smi = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu",
                                "--format=csv,noheader", "-lms", "20"], stdout=open(smi_path, "w"),
                               stderr=subprocess.DEVNULL)
    marks = []

    # one GEMM's burst time and one copy's time, to size the loops
    for _ in range(3):
        torch.mm(a, b, out=c)
        dst.copy_(src)
    torch.cuda.synchronize()
    e = timed_gemms(a, b, c, 5)
    gemm_s = sorted(times_of(e))[2]
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    for _ in range(5):
        dst.copy_(src)
    e1.record()
    torch.cuda.synchronize()
    copy_s = e0.elapsed_time(e1) / 5e3
    print("gemm %.3f ms (%.0f TFLOP/s), copy of 1 GiB %.3f ms (%.2f TB/s)" %
          (gemm_s * 1e3, flops / gemm_s / 1e12, copy_s * 1e3, 2 * COPY_BYTES / copy_s / 1e12), flush=True)

    marks.append(("idle", time.time()))
    time.sleep(IDLE_S)
    marks.append(("cold", time.time()))
    cold = times_of(timed_gemms(a, b, c, int(COLD_MS / 1e3 / gemm_s)))
    print("cold: %d GEMMs, first %.3f ms, last %.3f ms" % (len(cold), cold[1] * 1e3, cold[-1] * 1e3), flush=True)

    per_burst = max(1, int(round(BURST_MS / 1e3 / gemm_s)))
    configs = []
    plan = [(kind, gap_ms, per_burst) for kind in ("idle", "copy") for gap_ms in GAPS_MS]
    if patterns:
        plan = [(kind, gap_ms, max(1, int(round(ms / 1e3 / gemm_s)))) for ms, kind, gap_ms in PATTERNS]
    for kind, gap_ms, per_burst in plan:
        marks.append(("%s %g ms" % (kind, gap_ms), time.time()))
        pre = timed_gemms(a, b, c, int(PREHEAT_S / gemm_s))
        times_of(pre)
        cycles = []
        copies = max(1, int(round(gap_ms / 1e3 / copy_s)))
        for _ in range(CYCLES):
            ev = timed_gemms(a, b, c, per_burst)
            if kind == "idle":
                cycles.append(times_of(ev))
                time.sleep(gap_ms / 1e3)
            else:
                for _ in range(copies):
                    dst.copy_(src)
                cycles.append(times_of(ev))
        torch.cuda.synchronize()
        configs.append({"kind": kind, "gap_ms": gap_ms, "copies": copies if kind == "copy" else 0,
                        "gemms_per_burst": per_burst, "cycles_s": cycles})
        first = sorted(cy[0] for cy in cycles[2:])[len(cycles[2:]) // 2]
        print("%s gap %g ms: first GEMM of a burst %.3f ms, last %.3f ms" %
              (kind, gap_ms, first * 1e3, cycles[-1][-1] * 1e3), flush=True)
    marks.append(("end", time.time()))
    if smi:
        smi.terminate()
    props = torch.cuda.get_device_properties(0)
    json.dump({"device": props.name, "torch": torch.__version__, "gemm": "bf16 %d^3 torch.mm" % N,
               "gemm_flops": flops, "copy_bytes_moved": 2 * COPY_BYTES, "copy_s": copy_s, "burst_ms": BURST_MS,
               "idle_s": IDLE_S, "cold_s": cold, "configs": configs, "marks": marks,
               "smi_log": os.path.basename(smi_path) if smi else None}, open(out_path, "w"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
