#!/usr/bin/env python3
"""Runs PyTorch's row and element-wise kernels once each (after a warm-up) so
that ncu can count the DRAM bytes they really move: how framework kernels move
bytes (passes over the input, fp32 upcasts) decides their memory floor.
Run under: ncu --clock-control none --metrics dram__bytes_read.sum,
dram__bytes_write.sum,gpu__time_duration.sum --csv python3 ncu_rows.py"""
import torch
import torch.nn.functional as F

DT, dev = torch.bfloat16, "cuda"
r = lambda *s: torch.randn(*s, device=dev, dtype=DT)
ops = []
for T, H in ((16384, 4096), (2048, 8192)):
    x, w, b = r(T, H), r(H), r(H)
    ops += [lambda x=x, w=w, H=H: F.rms_norm(x, (H,), w, 1e-6),
            lambda x=x, w=w, b=b, H=H: F.layer_norm(x, (H,), w, b)]
for T, V in ((8192, 4096), (256, 128256)):
    x = r(T, V)
    ops.append(lambda x=x: torch.softmax(x, dim=-1))
x, y = r(16384, 4096), r(16384, 4096)
ops += [lambda: F.silu(x), lambda: x + y]
q, k, v = r(1, 32, 4096, 128), r(1, 32, 4096, 128), r(1, 32, 4096, 128)
ops.append(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
for op in ops:
    op()
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStart()
for op in ops:
    op()
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStop()
