"""FP8 and bf16 library GEMMs at the serving engines' projection shapes, for the
gemm_fp8 timing class (hwdb `timing.gemm_fp8`; validation/harnesses/fit_fp8_gemm.py).

ridge priced an FP8 GEMM with the gemm class's bf16-fitted efficiency against the
FP8 spec rate. This measures, on one lease, per-tensor-scaled e4m3 GEMMs as
PyTorch runs them (torch._scaled_mm: cuBLASLt, bf16 out) and the bf16 F.linear of
the same shape, at M = 16 ... 8192 tokens against the fused projections (q/k/v
as one weight, gate/up as one) of three models at TP 1:

  llama-3.1-8b   (the fitting model of fit_fp8_gemm.py)
  llama-3.1-70b, qwen3-32b   (held out: other widths)

Each case starts after 0.15 s idle (the power limit's burst, about 37 ms of
tensor-core work, is not used up before the timed calls), then 2 warm-ups and
7 timed calls with the L2 flushed before each (CUDA events around one call);
the JSON keeps every sample, the median and the kernels one call launches.
Random data; nothing downloaded.

usage: python3 fp8_gemm.py OUT.json
"""
import json
import sys
import time

import torch
import torch.nn.functional as F

from timing import kernel_names, machine, time_ms

M_TOKENS = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192]
# (model, projection, N output features, K input features): engines' fused weights, TP 1
SHAPES = [
    ("llama-3.1-8b", "qkv_proj", 6144, 4096), ("llama-3.1-8b", "o_proj", 4096, 4096),
    ("llama-3.1-8b", "gate_up_proj", 28672, 4096), ("llama-3.1-8b", "down_proj", 4096, 14336),
    ("llama-3.1-70b", "qkv_proj", 10240, 8192), ("llama-3.1-70b", "o_proj", 8192, 8192),
    ("llama-3.1-70b", "gate_up_proj", 57344, 8192), ("llama-3.1-70b", "down_proj", 8192, 28672),
    ("qwen3-32b", "qkv_proj", 10240, 5120), ("qwen3-32b", "o_proj", 5120, 8192),
    ("qwen3-32b", "gate_up_proj", 51200, 5120), ("qwen3-32b", "down_proj", 5120, 25600),
]


def cases():
    rows = []
    one = torch.ones((), dtype=torch.float32, device="cuda")
    for model, proj, n, k in SHAPES:
        w16 = torch.randn(n, k, dtype=torch.bfloat16, device="cuda") / k**0.5
        w8 = w16.to(torch.float8_e4m3fn)
        for m in M_TOKENS:
            x16 = torch.randn(m, k, dtype=torch.bfloat16, device="cuda")
            x8 = x16.to(torch.float8_e4m3fn)
            calls = {
                "bf16": (lambda: F.linear(x16, w16), "F.linear(x[m,k], w[n,k]) (cuBLAS TN)"),
                "fp8": (lambda: torch._scaled_mm(x8, w8.t(), one, one, out_dtype=torch.bfloat16),
                        "torch._scaled_mm(x[m,k] e4m3, w[n,k].t() e4m3, per-tensor scales, bf16 out) (cuBLASLt)"),
            }
            for dtype, (fn, call) in calls.items():
                time.sleep(0.15)
                ms, samples = time_ms(fn, warmup=2, reps=7, flush=True)
                rows.append({"kernel": "gemm", "dtype": dtype, "model": model, "projection": proj, "m": m, "n": n,
                             "k": k, "time_s": ms / 1e3, "samples_ms": samples, "kernels": kernel_names(fn),
                             "call": call})
                print(f"{model} {proj} {dtype} m={m} n={n} k={k}: {ms * 1e3:.2f} us "
                      f"({2 * m * n * k / ms / 1e9:.0f} TFLOP/s) {rows[-1]['kernels'][0]['name'][:50]}", flush=True)
            del x16, x8
        del w16, w8
    return rows


if __name__ == "__main__":
    json.dump({"format": "ridge-timings-1", "machine": machine(), "cases": cases()}, open(sys.argv[1], "w"), indent=1)
