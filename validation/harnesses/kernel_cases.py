#!/usr/bin/env python3
"""Kernel-level cases the time model lacked (issue 34), timed on the GPU at hand:

  decode attention  one query token per request against a KV cache, two ways:
                    split-kv   F.scaled_dot_product_attention(q[B,H,1,D], K, V, enable_gqa=True),
                               what hand-written loops and SDPA users run (the KV sequence
                               split across CTAs, flash-decoding style);
                    per-head   the query group folded into the query-length axis
                               (q[B,KV,H/KV,D] against K[B,KV,C,D]): one CTA per
                               request x KV head, the layout of validation/heldout/decode_step.py
  prefill attention SDPA forced to one backend at a time: FLASH_ATTENTION (FlashAttention-2),
                    EFFICIENT_ATTENTION (xformers-style), CUDNN_ATTENTION (cuDNN's fused
                    attention); K and V expanded to every query head so each backend
                    computes the same thing
  row kernels       F.rms_norm, F.layer_norm, torch.softmax over narrow and wide rows
  fp8 GEMMs         torch._scaled_mm (e4m3, per-tensor scales, bf16 out) at token counts
                    that are and are not multiples of 16, beside bf16 F.linear at the same M

Each case: CUDA events around one call, L2 flushed (512 MiB write) before each of
25 repetitions after 5 warm-ups; median and samples kept; one profiler pass names
the kernels. Random data, never zeros; nothing downloaded.

Usage: python3 kernel_cases.py OUT.json
OUT.json is "ridge-timings-1" (what `ridge calibrate --timings` reads) for the cases
ridge already names (flash-attention with "impl", rmsnorm, layernorm, softmax, gemm);
decode attention is in the same file under "decode_attention" (ridge has no kernel
name for it yet).
"""
import json
import sys
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from timing import kernel_names, machine, time_ms

DT = torch.bfloat16
WARMUP, REPS = 5, 25


def rand(*shape, dtype=DT):
    return torch.randn(*shape, device="cuda", dtype=dtype)


def timed(fn):
    med, samples = time_ms(fn, warmup=WARMUP, reps=REPS, flush=True)
    return med * 1e-3, [s * 1e-3 for s in samples]


# (batch, heads, kv heads, context, head dim)
DECODE_ATTENTION = [(B, H, KV, C, 128) for (H, KV) in [(32, 8), (64, 8), (28, 4)] for (B, C) in
                    [(1, 2048), (1, 8192), (1, 32768), (1, 131072), (4, 8192), (8, 2048), (8, 16384), (16, 4096),
                     (32, 2048), (32, 8192), (64, 4096), (128, 1024), (256, 2048)]]


def decode_attention_cases(doc):
    for B, H, KV, C, D in DECODE_ATTENTION:
        if B * KV * C * D * 2 * 2 > 24e9:
            continue
        q, k, v = rand(B, H, 1, D), rand(B, KV, C, D), rand(B, KV, C, D)
        G = H // KV
        qf = q.view(B, KV, G, D)  # the group folded into the query-length axis
        impls = {
            "split-kv": lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True),
            "per-head": lambda: F.scaled_dot_product_attention(qf, k, v),
        }
        for impl, fn in impls.items():
            try:
                med, samples = timed(fn)
                names = [e["name"] for e in kernel_names(fn)]
            except Exception as e:
                doc["errors"].append({"case": f"decode {impl} B{B} H{H}/{KV} C{C}", "error": repr(e)[:300]})
                continue
            doc["decode_attention"].append({
                "impl": impl, "batch": B, "heads": H, "kv_heads": KV, "context": C, "head_dim": D,
                "kv_bytes": 2 * B * KV * C * D * 2, "median_s": med, "samples_s": samples, "kernels": names})
            print(f"decode {impl:8s} B{B:<4d} H{H}/{KV} C{C:<7d} {med * 1e6:10.2f} us", flush=True)
        del q, k, v, qf
        torch.cuda.empty_cache()


# (batch, heads, seq, head dim, causal); every one with K/V at all heads
PREFILL = [(1, 32, 2048, 128, True), (1, 32, 8192, 128, True), (4, 32, 4096, 128, True), (1, 64, 4096, 128, True),
           (8, 32, 1024, 128, False), (1, 40, 16384, 128, True), (2, 28, 8192, 128, True), (1, 32, 4096, 64, True),
           (16, 16, 512, 64, False), (2, 48, 6144, 128, True)]
BACKENDS = {"fa2": SDPBackend.FLASH_ATTENTION, "efficient": SDPBackend.EFFICIENT_ATTENTION,
            "cudnn": SDPBackend.CUDNN_ATTENTION}


def prefill_cases(doc):
    for B, H, S, D, causal in PREFILL:
        q, k, v = rand(B, H, S, D), rand(B, H, S, D), rand(B, H, S, D)
        flags = {"batch": B, "heads": H, "kv-heads": H, "seq": S, "head-dim": D}
        if causal:
            flags["causal"] = True
        for impl, backend in BACKENDS.items():
            def fn():
                with sdpa_kernel([backend]):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            try:
                med, samples = timed(fn)
                names = kernel_names(fn)
            except Exception as e:
                doc["errors"].append({"case": f"prefill {impl} {flags}", "error": repr(e)[:300]})
                continue
            doc["cases"].append({"set": "heldout", "kernel": "flash-attention", "impl": impl, "flags": flags,
                                 "call": f"SDPA[{impl}] B{B} H{H} S{S} D{D}{' causal' if causal else ''}",
                                 "samples_s": samples, "median_s": med, "kernels": names})
            print(f"prefill {impl:9s} B{B} H{H} S{S} D{D} {'causal' if causal else '':6s} {med * 1e6:10.2f} us",
                  flush=True)
        del q, k, v
        torch.cuda.empty_cache()


ROWS = [(131072, 128), (65536, 256), (32768, 512), (16384, 1024), (8192, 2048), (4096, 4096), (2048, 8192),
        (1024, 16384), (512, 32768), (262144, 64)]
SOFTMAX = ROWS + [(8192, 2560), (8192, 3072), (8192, 3584), (8192, 5120), (16384, 2304)]


def row_cases(doc):
    for T, N in ROWS:
        x, w, b = rand(T, N), rand(N), rand(N)
        for kernel, fn, call in [("rmsnorm", lambda: F.rms_norm(x, (N,), w, 1e-6), f"F.rms_norm [{T},{N}]"),
                                 ("layernorm", lambda: F.layer_norm(x, (N,), w, b), f"F.layer_norm [{T},{N}]")]:
            med, samples = timed(fn)
            doc["cases"].append({"set": "heldout", "kernel": kernel, "flags": {"m": T, "n": N}, "call": call,
                                 "samples_s": samples, "median_s": med, "kernels": kernel_names(fn)})
            print(f"{call:36s} {med * 1e6:10.2f} us", flush=True)
    for T, N in SOFTMAX:
        x = rand(T, N)
        fn = lambda: torch.softmax(x, dim=-1)
        med, samples = timed(fn)
        doc["cases"].append({"set": "heldout", "kernel": "softmax", "flags": {"m": T, "n": N},
                             "call": f"torch.softmax [{T},{N}]", "samples_s": samples, "median_s": med,
                             "kernels": kernel_names(fn)})
        print(f"torch.softmax [{T},{N}] {med * 1e6:10.2f} us", flush=True)


# (K, N): Llama-3.1-70B's layers at tensor parallel 2 (QKV, O, gate+up, down)
FP8_SHAPES = [(8192, 5120), (4096, 8192), (8192, 14336), (14336, 8192)]
FP8_TOKENS = [1, 8, 16, 24, 32, 40, 48, 56, 64, 72, 96, 128, 200, 256]


def fp8_cases(doc):
    for K, N in FP8_SHAPES:
        w_bf16 = rand(N, K)
        w8 = w_bf16.to(torch.float8_e4m3fn)
        one = torch.ones((), device="cuda", dtype=torch.float32)
        for T in FP8_TOKENS:
            x = rand(T, K)
            x8 = x.to(torch.float8_e4m3fn)
            runs = [("fp8", lambda: torch._scaled_mm(x8, w8.t(), scale_a=one, scale_b=one, out_dtype=DT)),
                    ("bf16", lambda: F.linear(x, w_bf16))]
            for dtype, fn in runs:
                flags = {"m": N, "n": T, "k": K}
                try:
                    med, samples = timed(fn)
                    names = kernel_names(fn)
                except Exception as e:
                    doc["errors"].append({"case": f"{dtype} T{T} K{K} N{N}", "error": repr(e)[:300]})
                    print(f"{dtype} T{T} K{K} N{N}: {e!r}"[:200], flush=True)
                    continue
                doc["cases"].append({"set": "heldout", "kernel": "gemm", "dtype": dtype, "flags": flags,
                                     "call": f"{'torch._scaled_mm' if dtype == 'fp8' else 'F.linear'} x[{T},{K}] W[{N},{K}]",
                                     "samples_s": samples, "median_s": med, "kernels": names})
                print(f"{dtype:4s} T{T:<4d} K{K:<6d} N{N:<6d} {med * 1e6:10.2f} us", flush=True)


def main():
    doc = {"format": "ridge-timings-1", "harness": "kernel_cases.py", "machine": machine(),
           "gpu": torch.cuda.get_device_name(0), "sm_count": torch.cuda.get_device_properties(0).multi_processor_count,
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "method": f"CUDA events around one call, L2 flushed before each, {WARMUP} warm-ups, {REPS} repetitions",
           "dtype": "bf16", "cases": [], "decode_attention": [], "errors": []}
    for part in (decode_attention_cases, prefill_cases, row_cases, fp8_cases):
        t0 = time.time()
        try:
            part(doc)
        except Exception as e:
            doc["errors"].append({"part": part.__name__, "error": repr(e)[:400]})
            print(f"{part.__name__}: {e!r}"[:300], flush=True)
        print(f"{part.__name__}: {time.time() - t0:.1f} s", flush=True)
        with open(sys.argv[1], "w") as f:
            json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
