#!/usr/bin/env python3
"""Harness C's compiled decode, one case per process, with the kernels of its
steps: what runs in a step of transformers' generate (static cache, torch.compile)
and for how long. For each case (a fresh process each, so every shape compiles
on its own, as a user's first run does): a warm-up generate (compiles), a timed
generate (the TPOT of hf_decode.py: median gap of tokens 8..N), then one more
generate under torch.profiler; the kernels' GPU time is summed by name and divided
by the new tokens. Since 2026-12-06 (second set) it also splits each token's time
into the GPU's busy time and the time the GPU sat idle waiting for the host:
the profiled generate's last W = NEW_TOKENS - SKIP - 1 token periods (its own
streamer's median gap T), the union of its kernels' intervals inside the window
[last kernel end - W T, last kernel end] over W is the busy time a token, T less
that the host's share; the merged busy intervals are kept so the split can be
redone. Eager cases (generate's disable_compile) run no warm-up compile.

Usage: python3 hf_profile.py OUT.json [--second] [--budget S] [--only I,J]   all CASES
                                               (--second: CASES_SECOND; --only: those), one process each
       python3 hf_profile.py OUT.json --case I [--second]  one case (what the parent runs)
"""
import json
import os
import statistics
import subprocess
import sys
import time

CASES = [("llama-3-8b", 1, 2048), ("llama-3-8b", 4, 4096), ("llama-3-8b", 8, 2048), ("llama-3.2-3b", 16, 1024),
         ("qwen2.5-7b", 8, 4096)]
# the second set (2026-12-06, meant for an H200; the leases gave H100s): the four compiled
# shapes of the 2026-12-03 H200 lease
# first, the two above they lack, then two eager shapes (kernels and host time a token)
CASES_SECOND = [("llama-3-8b", 1, 2048, "compiled"), ("llama-3-8b", 8, 2048, "compiled"),
              ("qwen2.5-7b", 1, 2048, "compiled"), ("llama-3.2-3b", 16, 1024, "compiled"),
              ("llama-3-8b", 4, 4096, "compiled"), ("qwen2.5-7b", 8, 4096, "compiled"),
              ("llama-3-8b", 1, 2048, "eager"), ("qwen2.5-7b", 8, 2048, "eager"),
              ("llama-3.2-3b", 1, 2048, "eager"), ("llama-3-8b", 8, 2048, "eager")]


def case_list(second):
    return CASES_SECOND if second else [c + ("compiled",) for c in CASES]


def busy_split(intervals, tpot_us, tokens):
    """Merge kernel intervals (us) and split the last `tokens` periods of tpot_us
    into GPU busy and idle: returns (merged, busy_us_per_token, window start)."""
    merged = []
    for a, b in sorted(intervals):
        if merged and a <= merged[-1][1] + 1.0:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    end = merged[-1][1]
    lo = end - tokens * tpot_us
    busy = sum(max(0.0, b - max(a, lo)) for a, b in merged if b > lo)
    return merged, busy / tokens, lo


def one(i, out_path, second):
    import torch
    from torch.profiler import ProfilerActivity, profile

    import hf_decode
    name, B, P, mode = case_list(second)[i]
    gen = torch.Generator(device="cuda")
    gen.manual_seed(3)
    model = hf_decode.build(name)
    t0 = time.time()
    hf_decode.generate(model, B, P, mode, gen)
    warm = time.time() - t0
    total, gaps = hf_decode.generate(model, B, P, mode, gen)
    tpot = statistics.median(gaps[hf_decode.SKIP:])
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        _, prof_gaps = hf_decode.generate(model, B, P, mode, gen)
    prof_tpot = statistics.median(prof_gaps[hf_decode.SKIP:])
    kernels = {}
    intervals = []
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            us = e.device_time if hasattr(e, "device_time") else e.cuda_time
            k = kernels.setdefault(e.name[:140], [0, 0.0])
            k[0] += 1
            k[1] += us
            intervals.append((e.time_range.start, e.time_range.end))
    window = hf_decode.NEW_TOKENS - hf_decode.SKIP - 1
    merged, busy, lo = busy_split(intervals, prof_tpot * 1e6, window)
    launched = sum(1 for a, b in intervals if a >= lo) / window
    rows = sorted(({"name": n, "calls": c, "us_per_token": us / hf_decode.NEW_TOKENS} for n, (c, us) in kernels.items()),
                  key=lambda r: -r["us_per_token"])
    doc = {"model": name, "batch": B, "prompt": P, "mode": mode, "tpot_s": tpot, "warmup_s": warm,
           "gaps_s": gaps, "kernels": rows[:200],
           "gpu_us_per_token": sum(r["us_per_token"] for r in rows),
           "profiled_tpot_s": prof_tpot, "profiled_gaps_s": prof_gaps, "window_tokens": window,
           "busy_us_per_token": busy, "idle_us_per_token": prof_tpot * 1e6 - busy,
           "kernels_per_token": launched, "busy_intervals_us": merged[-20000:]}
    with open(out_path, "w") as f:
        json.dump(doc, f)
    print(f"{name:14s} B{B:<3d} P{P:<5d} {mode:8s} TPOT {tpot * 1e3:8.3f} ms (profiled {prof_tpot * 1e3:8.3f}): "
          f"GPU busy {busy / 1e3:8.3f} ms, idle {(prof_tpot * 1e6 - busy) / 1e3:7.3f} ms, "
          f"{launched:6.0f} kernels a token (warm-up {warm:.0f} s)", flush=True)
    for r in rows[:8]:
        print(f"    {r['us_per_token']:9.1f} us  x{r['calls'] / hf_decode.NEW_TOKENS:5.1f}  {r['name'][:100]}", flush=True)


def main():
    out_path = sys.argv[1]
    second = "--second" in sys.argv
    if "--case" in sys.argv:
        one(int(sys.argv[sys.argv.index("--case") + 1]), out_path, second)
        return
    budget = float(sys.argv[sys.argv.index("--budget") + 1]) if "--budget" in sys.argv else 1e9
    start = time.time()
    import platform

    from timing import machine
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "")
    doc = {"harness": "hf_profile.py (harness C, one process a case, kernels by torch.profiler)",
           "machine": machine(), "cpu": cpu, "python": platform.python_version(),
           "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "cases": [], "errors": []}
    cases = case_list(second)
    only = [int(x) for x in sys.argv[sys.argv.index("--only") + 1].split(",")] if "--only" in sys.argv else None
    for i in range(len(cases)):
        if only is not None and i not in only:
            continue
        if time.time() - start > budget:
            doc["errors"].append({"case": cases[i], "error": "skipped: over the time budget"})
            continue
        part = out_path + f".{i}"
        args = [sys.executable, __file__, part, "--case", str(i)] + (["--second"] if second else [])
        try:
            r = subprocess.run(args, timeout=240)
            code = r.returncode
        except subprocess.TimeoutExpired:
            code = "timeout"
        if code == 0 and os.path.exists(part):
            doc["cases"].append(json.load(open(part)))
            os.remove(part)
        else:
            doc["errors"].append({"case": cases[i], "exit": code})
        with open(out_path, "w") as f:
            json.dump(doc, f, indent=1)
    doc["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    with open(out_path, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
