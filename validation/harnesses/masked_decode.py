#!/usr/bin/env python3
"""The two kernels of transformers' decode attention over a static cache (issue 34,
harness C's path), timed alone:
  repeat_kv  K and V copied out to every query head: expand + reshape of
             [B, KV, S, D] to [B, H, S, D] (transformers' repeat_kv), one copy each
  masked     F.scaled_dot_product_attention(q [B, H, 1, D], k, v [B, H, S, D],
             attn_mask [B, 1, 1, S] bool): with a mask no flash or cuDNN kernel is
             eligible and SDPA takes the memory-efficient backend over the whole
             static cache (S = the cache's length, not the context)
transformers' sdpa_attention_forward passes enable_gqa only when there is no mask,
and generate with a static cache always has one (validation/README.md, issue 34).

Each case captures L calls on L separate buffers in one CUDA graph (L layers' worth,
together well past the L2, as a model's step reads them) and reports the median
replay / L over 20 replays (CUDA events), every sample kept. torch.profiler names
one call's kernels per head layout.

Usage: python3 masked_decode.py OUT.json
"""
import json
import sys
import time

import torch
import torch.nn.functional as F

from timing import graphed, kernel_names, machine, time_ms

DT = torch.bfloat16
# (name, query heads, KV heads, head dim): the head layouts of harness C's models and one more
LAYOUTS = [("llama-3-8b", 32, 8, 128), ("qwen2.5-7b", 28, 4, 128), ("llama-3.2-3b", 24, 8, 128),
           ("qwen2.5-14b", 40, 8, 128)]
BATCHES = [1, 4, 8, 16, 32]
CACHES = [1088, 2112, 4160, 8256]  # prompt + 64 new tokens, as hf_decode.py's static caches
BUDGET_BYTES = 12e9  # of buffers per case
MIN_BYTES = 400e6  # read per replay at least: past the L2


def layers_for(per_layer):
    return int(max(4, min(64, MIN_BYTES // max(per_layer, 1) + 1, BUDGET_BYTES // max(per_layer, 1))))


def case(kind, H, KV, D, B, S, gen):
    if kind == "repeat_kv":
        per = 2 * B * KV * S * D * 2 + 2 * B * H * S * D * 2  # read K, V; write their copies
    else:
        per = 2 * B * H * S * D * 2
    n = layers_for(per)
    bufs = []
    for _ in range(n):
        if kind == "repeat_kv":
            k = torch.empty(B, KV, S, D, device="cuda", dtype=DT).normal_(generator=gen)
            v = torch.empty(B, KV, S, D, device="cuda", dtype=DT).normal_(generator=gen)
            bufs.append((k, v))
        else:
            q = torch.empty(B, H, 1, D, device="cuda", dtype=DT).normal_(generator=gen)
            k = torch.empty(B, H, S, D, device="cuda", dtype=DT).normal_(generator=gen)
            v = torch.empty(B, H, S, D, device="cuda", dtype=DT).normal_(generator=gen)
            bufs.append((q, k, v))
    # the context reaches S - 32 (mid-generation): the cache's tail is masked out
    mask = (torch.arange(S, device="cuda") < S - 32).view(1, 1, 1, S).expand(B, 1, 1, S)

    def one(t):
        if kind == "repeat_kv":
            k, v = t
            g = H // KV
            k[:, :, None].expand(B, KV, g, S, D).reshape(B, H, S, D)
            v[:, :, None].expand(B, KV, g, S, D).reshape(B, H, S, D)
        else:
            q, k, v = t
            F.scaled_dot_product_attention(q, k, v, attn_mask=mask)

    def run():
        for t in bufs:
            one(t)

    med, samples = time_ms(graphed(run), warmup=2, reps=20)
    names = kernel_names(lambda: one(bufs[0])) if (B, S) == (BATCHES[0], CACHES[0]) else []
    del bufs
    torch.cuda.empty_cache()
    return {"kind": kind, "heads": H, "kv_heads": KV, "head_dim": D, "batch": B, "cache": S, "calls": n,
            "bytes_per_call": per, "median_ms": med / n, "samples_ms": [s / n for s in samples],
            "kernels": names}


def main():
    out_path = sys.argv[1]
    doc = {"harness": "masked_decode.py (repeat_kv + masked memory-efficient SDPA, transformers' static-cache decode)",
           "machine": machine(), "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "cases": [], "errors": []}
    gen = torch.Generator(device="cuda")
    gen.manual_seed(5)
    with torch.inference_mode():
        for name, H, KV, D in LAYOUTS:
            for B in BATCHES:
                for S in CACHES:
                    for kind in ("masked", "repeat_kv"):
                        try:
                            c = case(kind, H, KV, D, B, S, gen)
                            c["layout"] = name
                            doc["cases"].append(c)
                            print(f"{name:13s} {kind:9s} B{B:<3d} S{S:<5d} {c['median_ms'] * 1e3:9.2f} us"
                                  f"  {c['bytes_per_call'] / c['median_ms'] / 1e9:7.0f} GB/s", flush=True)
                        except Exception as e:
                            doc["errors"].append({"layout": name, "kind": kind, "batch": B, "cache": S,
                                                  "error": repr(e)[:400]})
                            print(f"{name} {kind} B{B} S{S}: {e!r}"[:300], flush=True)
                            torch.cuda.empty_cache()
    doc["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    with open(out_path, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
