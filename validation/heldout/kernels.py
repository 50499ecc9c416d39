#!/usr/bin/env python3
"""Times the framework kernels users run (PyTorch's own cuBLAS GEMMs, SDPA
attention, norms, softmax, element-wise ops) on the GPU at hand, for ridge's
time model: `ridge calibrate --timings OUT.json` fits the per-class
efficiencies and fixed costs on the cases marked "fit" and judges the model on
the cases marked "heldout", which no fit ever sees.

Each case names the ridge kernel and shape flags that describe it
(`ridge roofline --kernel NAME FLAGS`), the PyTorch call, and the timed
samples: CUDA events around the one call, L2 flushed (a 512 MiB write)
before every repetition, 5 warm-ups, 25 repetitions. One torch.profiler pass
per case lists the kernels the call launched (names, GPU time).

Random bf16 data (never zeros), nothing downloaded. Usage: kernels.py OUT.json
"""
import json
import statistics
import sys
import time

import torch
import torch.nn.functional as F

DT = torch.bfloat16
WARMUP, REPS = 5, 25
dev = torch.device("cuda")
flush_buf = torch.empty(512 * 1024 * 1024, dtype=torch.uint8, device=dev)


def rand(*shape):
    return torch.randn(*shape, device=dev, dtype=DT)


# ---- the cases: (set, ridge kernel, ridge flags, builder returning a thunk) ----
# GEMMs as F.linear(x[T, K], W[N, K]): ridge's --m = output features N,
# --n = tokens T, --k = K (cuBLAS TN, the layout PyTorch's row-major linear uses).
def linear_case(T, K, N):
    x, w = rand(T, K), rand(N, K)
    kernel = "gemm" if T > 1 else "gemv"
    flags = {"m": N, "n": T, "k": K} if T > 1 else {"n": N, "k": K, "m": 1}
    return kernel, flags, lambda: F.linear(x, w), f"F.linear x[{T},{K}] W[{N},{K}]"


def sdpa_case(B, H, KVH, S, D, causal):
    q = rand(B, H, S, D)
    k, v = rand(B, KVH, S, D), rand(B, KVH, S, D)
    gqa = H != KVH
    flags = {"batch": B, "heads": H, "kv-heads": KVH, "seq": S, "head-dim": D}
    if causal:
        flags["causal"] = True
    fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa)
    return "flash-attention", flags, fn, f"SDPA B{B} H{H}/{KVH} S{S} D{D}{' causal' if causal else ''}"


def rmsnorm_case(T, H):
    x, w = rand(T, H), rand(H)
    return "rmsnorm", {"m": T, "n": H}, lambda: F.rms_norm(x, (H,), w, 1e-6), f"F.rms_norm [{T},{H}]"


def layernorm_case(T, H):
    x, w, b = rand(T, H), rand(H), rand(H)
    return "layernorm", {"m": T, "n": H}, lambda: F.layer_norm(x, (H,), w, b), f"F.layer_norm [{T},{H}]"


def softmax_case(T, V):
    x = rand(T, V)
    return "softmax", {"m": T, "n": V}, lambda: torch.softmax(x, dim=-1), f"torch.softmax [{T},{V}]"


def silu_case(T, H):
    x = rand(T, H)
    return "activation", {"m": T, "n": H}, lambda: F.silu(x), f"F.silu [{T},{H}]"


def add_case(T, H):
    x, y = rand(T, H), rand(T, H)
    return "vector-add", {"m": T, "n": H}, lambda: x + y, f"x + y [{T},{H}]"


# Fit and held-out shapes never coincide; held-out ones are other models'
# layer shapes (Llama-3-70B, Mixtral, Qwen, Mistral), other batch sizes and
# sequence lengths, so a fit to one set that merely memorised it fails the other.
CASES = [
    # GEMM (prefill and training shapes): Llama-3-8B-like for the fit
    ("fit", linear_case, (4096, 4096, 4096)),
    ("fit", linear_case, (2048, 4096, 14336)),
    ("fit", linear_case, (4096, 14336, 4096)),
    ("fit", linear_case, (1024, 4096, 6144)),
    ("fit", linear_case, (8192, 8192, 8192)),
    ("fit", linear_case, (512, 4096, 4096)),
    ("fit", linear_case, (256, 4096, 14336)),
    ("fit", linear_case, (128, 8192, 8192)),
    # GEMV / decode widths
    ("fit", linear_case, (1, 4096, 4096)),
    ("fit", linear_case, (1, 4096, 14336)),
    ("fit", linear_case, (8, 14336, 4096)),
    ("fit", linear_case, (32, 4096, 28672)),
    ("fit", linear_case, (64, 8192, 8192)),
    ("heldout", linear_case, (4096, 8192, 10240)),   # 70B fused QKV
    ("heldout", linear_case, (4096, 28672, 8192)),   # 70B down
    ("heldout", linear_case, (2048, 8192, 57344)),   # 70B gate+up
    ("heldout", linear_case, (8192, 4096, 6144)),    # 8B QKV at 8k tokens
    ("heldout", linear_case, (3072, 5120, 13824)),   # Qwen-14B-like MLP
    ("heldout", linear_case, (1536, 4096, 14336)),   # Mixtral expert at 1536 tokens
    ("heldout", linear_case, (384, 4096, 14336)),    # Mixtral expert, few tokens
    ("heldout", linear_case, (1, 8192, 10240)),      # 70B QKV decode
    ("heldout", linear_case, (1, 8192, 57344)),      # 70B gate+up decode
    ("heldout", linear_case, (16, 4096, 14336)),
    ("heldout", linear_case, (4, 14336, 4096)),
    ("heldout", linear_case, (48, 5120, 5120)),
    ("heldout", linear_case, (1, 4096, 128256)),     # Llama-3 LM head, decode
    # attention (prefill): SDPA, bf16
    ("fit", sdpa_case, (1, 32, 32, 4096, 128, True)),
    ("fit", sdpa_case, (4, 32, 32, 2048, 128, True)),
    ("fit", sdpa_case, (1, 32, 8, 8192, 128, True)),
    ("fit", sdpa_case, (2, 32, 32, 4096, 128, False)),
    ("fit", sdpa_case, (8, 16, 16, 1024, 64, True)),
    ("fit", sdpa_case, (1, 32, 32, 16384, 128, True)),
    ("heldout", sdpa_case, (1, 64, 8, 4096, 128, True)),
    ("heldout", sdpa_case, (2, 32, 8, 8192, 128, True)),
    ("heldout", sdpa_case, (8, 32, 8, 1024, 128, True)),
    ("heldout", sdpa_case, (1, 40, 40, 6144, 128, True)),
    ("heldout", sdpa_case, (4, 32, 32, 3072, 128, False)),
    ("heldout", sdpa_case, (16, 12, 12, 512, 64, True)),
    ("heldout", sdpa_case, (1, 48, 8, 12288, 128, True)),
    # norms
    ("fit", rmsnorm_case, (4096, 4096)),
    ("fit", rmsnorm_case, (16384, 4096)),
    ("fit", rmsnorm_case, (2048, 8192)),
    ("fit", rmsnorm_case, (65536, 4096)),
    ("fit", layernorm_case, (8192, 4096)),
    ("fit", layernorm_case, (32768, 1024)),
    ("heldout", rmsnorm_case, (8192, 8192)),
    ("heldout", rmsnorm_case, (32768, 5120)),
    ("heldout", rmsnorm_case, (1024, 4096)),
    ("heldout", rmsnorm_case, (131072, 2048)),
    ("heldout", layernorm_case, (16384, 4096)),
    ("heldout", layernorm_case, (4096, 8192)),
    ("heldout", layernorm_case, (65536, 768)),
    # softmax (attention scores, vocabulary logits)
    ("fit", softmax_case, (32768, 1024)),
    ("fit", softmax_case, (8192, 4096)),
    ("fit", softmax_case, (1024, 32000)),
    ("fit", softmax_case, (256, 128256)),
    ("heldout", softmax_case, (65536, 2048)),
    ("heldout", softmax_case, (16384, 8192)),
    ("heldout", softmax_case, (2048, 50257)),
    ("heldout", softmax_case, (512, 152064)),
    # element-wise
    ("fit", silu_case, (16384, 14336)),
    ("fit", silu_case, (4096, 4096)),
    ("fit", add_case, (16384, 4096)),
    ("fit", add_case, (1024, 4096)),
    ("heldout", silu_case, (8192, 28672)),
    ("heldout", silu_case, (2048, 11008)),
    ("heldout", add_case, (8192, 8192)),
    ("heldout", add_case, (65536, 5120)),
    ("heldout", add_case, (256, 4096)),
]


def time_case(fn):
    start = [torch.cuda.Event(enable_timing=True) for _ in range(REPS)]
    end = [torch.cuda.Event(enable_timing=True) for _ in range(REPS)]
    for _ in range(WARMUP):
        fn()
    torch.cuda.synchronize()
    for i in range(REPS):
        flush_buf.fill_(i & 0xFF)  # evicts the inputs from the 60 MiB L2
        start[i].record()
        fn()
        end[i].record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) * 1e-3 for s, e in zip(start, end)]


def kernels_of(fn):
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    out = []
    for ev in prof.events():
        if ev.device_type == torch.autograd.DeviceType.CUDA:
            out.append({"name": ev.name, "time_s": ev.device_time * 1e-6})
    return out


def main():
    out_path = sys.argv[1]
    props = torch.cuda.get_device_properties(0)
    doc = {
        "format": "ridge-timings-1",
        "gpu": props.name,
        "sm_count": props.multi_processor_count,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "method": f"CUDA events around one call, L2 flushed before each, {WARMUP} warm-ups, {REPS} repetitions",
        "dtype": "bf16",
        "cases": [],
    }
    t0 = time.time()
    for i, (which, build, args) in enumerate(CASES):
        kernel, flags, fn, call = build(*args)
        samples = time_case(fn)
        med = statistics.median(samples)
        doc["cases"].append({
            "set": which, "kernel": kernel, "flags": flags, "call": call,
            "samples_s": samples, "median_s": med, "kernels": kernels_of(fn),
        })
        print(f"[{i + 1}/{len(CASES)}] {which:8s} {call:44s} {med * 1e6:10.2f} us", flush=True)
        del fn
        torch.cuda.empty_cache()
    doc["elapsed_s"] = time.time() - t0
    with open(out_path, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
