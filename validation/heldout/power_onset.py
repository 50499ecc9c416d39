#!/usr/bin/env python3
"""How long the burst clock holds under continuous tensor-core work.

Usage: python3 validation/heldout/power_onset.py OUT.json [--idle 3] [--calls 700]

After --idle seconds with the GPU idle, one bf16 8192^3 torch.matmul (cuBLAS)
after another, each timed with its own CUDA events, no gap but the event
records. The JSON holds every call's time and when it started (seconds since
the first call), the burst time (median of calls 2-6), and the onset: the GEMM
time before the first call 4 % slower than the burst median. ridge's
power.burst_time (hwdb) is the duration the burst rate holds
(validation/power_limit.py reads this file beside kernels.py's loops).
"""
import json
import statistics
import sys
import time

import torch


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    idle = float(sys.argv[sys.argv.index("--idle") + 1]) if "--idle" in sys.argv else 3.0
    calls = int(sys.argv[sys.argv.index("--calls") + 1]) if "--calls" in sys.argv else 700
    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
    torch.matmul(a, b, out=c)  # cuBLAS handle and workspace, outside the timing
    torch.cuda.synchronize()
    time.sleep(idle)
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(calls)]
    for start, end in events:
        start.record()
        torch.matmul(a, b, out=c)
        end.record()
    torch.cuda.synchronize()
    times = [s.elapsed_time(e) * 1e-3 for s, e in events]
    starts = [events[0][0].elapsed_time(s) * 1e-3 for s, _ in events]
    burst = statistics.median(times[1:6])
    slow = next((i for i, t in enumerate(times) if i > 0 and t > 1.04 * burst), None)
    onset = sum(times[:slow]) if slow is not None else None
    settled = statistics.median(times[-100:])
    flop = 2.0 * n ** 3
    doc = {"tool": "validation/heldout/power_onset.py", "gpu": torch.cuda.get_device_name(),
           "torch": torch.__version__, "shape": [n, n, n], "dtype": "bf16", "idle_s": idle, "calls": calls,
           "burst_s": burst, "burst_flops": flop / burst, "settled_s": settled, "settled_flops": flop / settled,
           "settled_over_burst": burst / settled, "first_slow_call": slow, "onset_s": onset,
           "times_s": times, "starts_s": starts}
    with open(sys.argv[1], "w") as f:
        json.dump(doc, f, indent=1)
    print(f"burst {flop / burst / 1e12:.1f} TFLOP/s, settled (last 100) {flop / settled / 1e12:.1f} TFLOP/s "
          f"({burst / settled:.4f}), first slow call {slow}, onset {onset if onset is None else round(onset * 1e3, 1)} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
