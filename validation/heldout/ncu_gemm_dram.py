"""One bf16 cuBLAS GEMM per run, between cudaProfilerStart/Stop, for ncu.

Run by ncu_gemm_dram.sh (one process per shape, so every profiled kernel of a
run belongs to its shape). Shapes are torch's: x (M x K) @ W^T (K x N) through
F.linear, as a transformer layer calls cuBLAS; cuBLAS (column-major) sees
m = N, n = M. Prints nothing but errors.
"""
import sys

# (name, M, N, K): the fixed list the lead runs (validation/README.md,
# "L2-aware GEMM traffic"); ncu_gemm_dram.sh iterates over it by index.
SHAPES = [
    ("square-1024", 1024, 1024, 1024),
    ("square-2048", 2048, 2048, 2048),
    ("square-4096", 4096, 4096, 4096),
    ("square-8192", 8192, 8192, 8192),
    ("square-16384", 16384, 16384, 16384),
    ("decode-1", 1, 14336, 4096),
    ("decode-16", 16, 14336, 4096),
    ("decode-64", 64, 4096, 14336),
    ("decode-256", 256, 8192, 8192),
    ("tallk-1024x1024x65536", 1024, 1024, 65536),
    ("tallk-4096x4096x32768", 4096, 4096, 32768),
    ("overflow-16384x16384x4096", 16384, 16384, 4096),
    ("overflow-8192x28672x4096", 8192, 28672, 4096),
    ("tallm-32768x4096x4096", 32768, 4096, 4096),
]


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--count":
        print(len(SHAPES))
        return
    if len(sys.argv) != 2 or not sys.argv[1].isdigit() or int(sys.argv[1]) >= len(SHAPES):
        sys.exit("usage: ncu_gemm_dram.py INDEX (0..%d) | --count" % (len(SHAPES) - 1))
    import torch  # here, so that ncu_gemm_dram.sh can read SHAPES without loading torch
    import torch.nn.functional as F

    _, m, n, k = SHAPES[int(sys.argv[1])]
    torch.manual_seed(0)
    # Random data: zeros could be compressed on the way to DRAM.
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):  # cuBLAS picks and loads its kernel outside the profiled range
        F.linear(x, w)
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    F.linear(x, w)
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()


if __name__ == "__main__":
    main()
