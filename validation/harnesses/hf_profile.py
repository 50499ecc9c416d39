#!/usr/bin/env python3
"""Harness C's compiled decode, one case per process, with the kernels of its
steps: what runs in a step of transformers' generate (static cache, torch.compile)
and for how long. For each case (a fresh process each, so every shape compiles
on its own, as a user's first run does): a warm-up generate (compiles), a timed
generate (the TPOT of hf_decode.py: median gap of tokens 8..N), then one more
generate under torch.profiler; the kernels' GPU time is summed by name and divided
by the new tokens.

Usage: python3 hf_profile.py OUT.json                 all CASES, one process each
       python3 hf_profile.py OUT.json --case I        one case (what the parent runs)
"""
import json
import os
import statistics
import subprocess
import sys
import time

CASES = [("llama-3-8b", 1, 2048), ("llama-3-8b", 4, 4096), ("llama-3-8b", 8, 2048), ("llama-3.2-3b", 16, 1024),
         ("qwen2.5-7b", 8, 4096)]


def one(i, out_path):
    import torch
    from torch.profiler import ProfilerActivity, profile

    import hf_decode
    name, B, P = CASES[i]
    gen = torch.Generator(device="cuda")
    gen.manual_seed(3)
    model = hf_decode.build(name)
    t0 = time.time()
    hf_decode.generate(model, B, P, "compiled", gen)
    warm = time.time() - t0
    total, gaps = hf_decode.generate(model, B, P, "compiled", gen)
    tpot = statistics.median(gaps[hf_decode.SKIP:])
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        hf_decode.generate(model, B, P, "compiled", gen)
    kernels = {}
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            us = e.device_time if hasattr(e, "device_time") else e.cuda_time
            k = kernels.setdefault(e.name[:140], [0, 0.0])
            k[0] += 1
            k[1] += us
    rows = sorted(({"name": n, "calls": c, "us_per_token": us / hf_decode.NEW_TOKENS} for n, (c, us) in kernels.items()),
                  key=lambda r: -r["us_per_token"])
    doc = {"model": name, "batch": B, "prompt": P, "mode": "compiled", "tpot_s": tpot, "warmup_s": warm,
           "gaps_s": gaps, "kernels": rows[:60],
           "gpu_us_per_token": sum(r["us_per_token"] for r in rows)}
    with open(out_path, "w") as f:
        json.dump(doc, f)
    print(f"{name:14s} B{B:<3d} P{P:<5d} TPOT {tpot * 1e3:8.3f} ms, kernels {doc['gpu_us_per_token'] / 1e3:8.3f} ms "
          f"a token (warm-up {warm:.0f} s)", flush=True)
    for r in rows[:8]:
        print(f"    {r['us_per_token']:9.1f} us  x{r['calls'] / hf_decode.NEW_TOKENS:5.1f}  {r['name'][:100]}", flush=True)


def main():
    out_path = sys.argv[1]
    if "--case" in sys.argv:
        one(int(sys.argv[sys.argv.index("--case") + 1]), out_path)
        return
    from timing import machine
    doc = {"harness": "hf_profile.py (harness C compiled, one process a case, kernels by torch.profiler)",
           "machine": machine(), "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "cases": [],
           "errors": []}
    for i in range(len(CASES)):
        part = out_path + f".{i}"
        r = subprocess.run([sys.executable, __file__, part, "--case", str(i)], timeout=240)
        if r.returncode == 0 and os.path.exists(part):
            doc["cases"].append(json.load(open(part)))
            os.remove(part)
        else:
            doc["errors"].append({"case": CASES[i], "exit": r.returncode})
        with open(out_path, "w") as f:
            json.dump(doc, f, indent=1)
    doc["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    with open(out_path, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
