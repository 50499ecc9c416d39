"""Library GEMMs as users call them (torch.mm, bf16, cuBLAS through PyTorch),
for issue 34's two open GEMM questions:

  dram   one GEMM per process under ncu (`--profile-from-start off`; the mm is
         the only kernel between cudaProfilerStart and Stop): its DRAM bytes
         read and written, L2 bytes, time and grid, and the kernel's name (the
         library's tile is in it). Run by gemm_library.sh, one shape a call:
         python3 gemm_library.py dram M N K
  small  M = 16 ... 512 tokens against a weight [N, K] as F.linear runs it
         (x W^T): CUDA-event median time of 50 calls (L2 flushed between) and
         the kernels the profiler saw. Writes JSON:
         python3 gemm_library.py small OUT.json

Random bf16 data; nothing downloaded."""
import json
import sys

import torch
import torch.nn.functional as F

from timing import kernel_names, machine, time_ms

SMALL_M = [16, 32, 48, 64, 72, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256, 320, 384, 512]
SMALL_NK = [(4096, 4096), (14336, 4096), (4096, 14336), (1024, 4096), (28672, 8192)]


def dram(m, n, k):
    a = torch.randn(m, k, dtype=torch.bfloat16, device="cuda")
    b = torch.randn(k, n, dtype=torch.bfloat16, device="cuda")
    torch.mm(a, b)  # the library's choice warmed (heuristics cached)
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    torch.mm(a, b)
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()


def small(out):
    rows = []
    for n, k in SMALL_NK:
        w = torch.randn(n, k, dtype=torch.bfloat16, device="cuda")
        for m in SMALL_M:
            x = torch.randn(m, k, dtype=torch.bfloat16, device="cuda")
            ms, samples = time_ms(lambda: F.linear(x, w), warmup=5, reps=50, flush=True)
            rows.append({"kernel": "gemm", "dtype": "bf16", "m": m, "n": n, "k": k, "time_s": ms / 1e3,
                         "samples_ms": samples, "kernels": kernel_names(lambda: F.linear(x, w)),
                         "call": "F.linear(x[m,k], w[n,k]) (cuBLAS TN)"})
            print(f"m={m} n={n} k={k}: {ms * 1e3:.2f} us {rows[-1]['kernels'][0]['name'][:60]}", flush=True)
    json.dump({"format": "ridge-timings-1", "machine": machine(), "cases": rows}, open(out, "w"), indent=1)


if __name__ == "__main__":
    if sys.argv[1] == "dram":
        dram(*(int(v) for v in sys.argv[2:5]))
    else:
        small(sys.argv[2])
