#!/usr/bin/env python3
"""Fits model/serve.c's host loop `hf-generate`: the time each token of
transformers' generate the GPU waits for the host (logits processing, stopping
criteria, cache positions, the streamer's synchronize), from hf_profile.py
--second's split of each token into the GPU's busy time (torch.profiler's kernel
intervals, merged) and the rest.

  wait = TPOT (unprofiled run, median gap of tokens 8..64) - GPU busy per token
         (the profiled run's last 55 token periods)

Fitted: the median wait of the FIT model's compiled shapes; held out: the other
models' shapes of the same lease (the same harness and host: held out by model
only) and, through validation/harnesses/replay.py, whole compiled steps of other
leases and GPUs. Prints the fit, every shape and the C line for model/serve.c.

Usage: python3 validation/harnesses/fit_host_loop.py measurements/2026-12-06-h100-host-gap/hf_profile.json
"""
import json
import statistics
import sys

FIT = "llama-3-8b"


def waits(doc):
    out = []
    for c in doc["cases"]:
        if c["mode"] != "compiled":
            continue
        busy = c["busy_us_per_token"] * 1e-6
        out.append((c["model"], c["batch"], c["prompt"], c["tpot_s"], busy, c["tpot_s"] - busy))
    return out


def main():
    doc = json.load(open(sys.argv[1]))
    rows = waits(doc)
    fit = [w for m, *_, w in rows if m == FIT]
    if not fit:
        raise SystemExit(f"{sys.argv[1]}: no compiled {FIT} shape")
    value = statistics.median(fit)
    print(f"{doc['machine']['gpu']}, host {doc.get('cpu', '?')}, Python {doc.get('python', '?')}, "
          f"started {doc['started']}")
    print("| model | batch | prompt | TPOT ms | GPU busy ms | host wait ms | set | wait vs fitted |")
    print("|---|---:|---:|---:|---:|---:|---|---:|")
    for m, b, p, tpot, busy, w in rows:
        role = "fit" if m == FIT else "held out"
        print(f"| {m} | {b} | {p} | {tpot * 1e3:.3f} | {busy * 1e3:.3f} | {w * 1e3:.3f} | {role} | "
              f"{(value - w) / w * 100:+.1f} % |")
    lo, hi = min(w for *_, w in rows), max(w for *_, w in rows)
    print(f"\nfitted (median of {len(fit)} {FIT} shapes): {value * 1e3:.3f} ms; every shape {lo * 1e3:.3f}-"
          f"{hi * 1e3:.3f} ms")
    print(f'\t{{ "hf-generate", {value:.4g}, {{ {lo:.4g}, {hi:.4g} }}, RIDGE_PROVENANCE_MEASURED, ... }}')


if __name__ == "__main__":
    main()
