#!/usr/bin/env python3
"""MoE experts' grouped GEMMs measured alone (issue 34): torch._grouped_mm
(CUTLASS's sm90 grouped GEMM in PyTorch 2.11) over E experts' weights
[E, N, K], rows sorted by expert and each group padded to 16 rows, as
harness B (sdpa_decode.py) and the engines' fused-MoE kernels run it.

Each case: `touched` experts hold `rows` rows each (the rest hold none), one
call captured in a CUDA graph, 3 warm-ups and 30 timed replays with CUDA
events (the median kept with every sample). The weights (E x N x K bf16) are
larger than the L2 for every shape but the smallest, so each call streams them
from HBM as a decode step does.

Shapes are expert layers of published MoE configs (hidden, expert width,
experts). validation/harnesses/fit_grouped_gemm.py fits the grouped_gemm
timing class on the FIT set and judges it on the HELD_OUT set (other models'
shapes), then harness B's whole MoE decode steps judge it again.

Usage: python3 grouped_gemm.py OUT.json
Writes ridge-timings-1 cases: kernel "grouped_gemm", m = rows per touched
expert, n, k, groups = touched experts, experts = E. Random bf16; nothing
downloaded."""
import json
import sys
import time

import torch

from timing import graphed, machine, time_ms

DT = torch.bfloat16
PAD = 16

# (name, hidden, expert intermediate, experts): gate_up is [E, 2I, H], down [E, H, I]
FIT = [
    ("deepseek-v2-lite", 2048, 1408, 64),   # DeepSeek-V2-Lite config.json
    ("olmoe-1b-7b", 2048, 1024, 64),        # allenai/OLMoE-1B-7B-0924 config.json
    ("gpt-oss-20b", 2880, 2880, 32),        # openai/gpt-oss-20b config.json (bf16 here)
    ("deepseek-v3-ep8", 7168, 2048, 32),    # DeepSeek-V3's experts, 256 / 8 per GPU
]
HELD_OUT = [
    ("mixtral-8x7b", 4096, 14336, 8),       # mistralai/Mixtral-8x7B-v0.1 config.json
    ("qwen3-30b-a3b", 2048, 768, 128),      # Qwen/Qwen3-30B-A3B config.json
    ("qwen3-235b-a22b-tp4", 4096, 384, 128),  # Qwen3-235B-A22B: 1536 / TP 4
]
ROWS = [1, 4, 16, 48, 128, 256]


def case(name, h, inter, E, part, touched, rows, gen):
    """Both projections of one layer at `touched` experts x `rows` rows."""
    out = []
    for proj, n, k in (("gate_up", 2 * inter, h), ("down", h, inter)):
        # [E, N, K] seen as [E, K, N] (a transposed view), as harness B passes nn.Linear-style weights
        wt = torch.empty(E, n, k, device="cuda", dtype=DT).normal_(0, k ** -0.5, generator=gen).transpose(-2, -1)
        padded = (rows + PAD - 1) // PAD * PAD
        sizes = torch.zeros(E, dtype=torch.int64, device="cuda")
        sizes[:touched] = padded
        offs = torch.cumsum(sizes, 0).to(torch.int32)
        x = torch.empty(int(padded * touched), k, device="cuda", dtype=DT).normal_(generator=gen)
        fn = lambda: torch._grouped_mm(x, wt, offs=offs)  # noqa: E731
        med, samples = time_ms(graphed(fn), warmup=3, reps=30)
        out.append({"kernel": "grouped_gemm", "dtype": "bf16", "model": name, "set": part, "projection": proj,
                    "m": rows, "m_padded": padded, "n": n, "k": k, "groups": touched, "experts": E,
                    "time_s": med / 1e3, "samples_ms": samples,
                    "call": "torch._grouped_mm(x[sum rows, K], w[E, K, N], offs) in a CUDA graph"})
        print(f"{name:22s} {proj:7s} E{E:<3d} touched {touched:<3d} rows {rows:<4d} {med * 1e3:9.1f} us", flush=True)
        del wt, x
    return out


def main():
    doc = {"format": "ridge-timings-1", "harness": "grouped_gemm.py (torch._grouped_mm alone)",
           "machine": machine(), "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "cases": [],
           "errors": []}
    gen = torch.Generator(device="cuda")
    gen.manual_seed(3)
    for part, shapes in (("fit", FIT), ("held_out", HELD_OUT)):
        for name, h, inter, E in shapes:
            for touched in sorted({1, min(8, E), E}):
                for rows in ROWS:
                    try:
                        doc["cases"] += case(name, h, inter, E, part, touched, rows, gen)
                    except Exception as e:  # recorded, the run goes on
                        doc["errors"].append({"model": name, "touched": touched, "rows": rows, "error": repr(e)[:300]})
                        print(f"{name} touched {touched} rows {rows}: {e!r}"[:200], flush=True)
                    torch.cuda.empty_cache()
    doc["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    with open(sys.argv[1], "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
