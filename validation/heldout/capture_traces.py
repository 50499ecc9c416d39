#!/usr/bin/env python3
"""Captures a PyTorch profiler trace of LLM-style decoding for `ridge trace`.

A small Llama-shaped decoder (RMSNorm, grouped-query attention with a KV cache,
SwiGLU MLP; random weights, nothing downloaded) runs a few decode steps under
torch.profiler with CPU and CUDA activities; the Chrome trace (kernels, their
cudaLaunchKernel calls and the aten operators that issued them) is written to
argv[1].

    python3 capture_traces.py pytorch-decode.json [--steps 8] [--layers 4]
    ridge trace pytorch-decode.json --steps 8 --tokens 8

The nsys export of the same run (when nsys can write a report on the machine):

    nsys profile --trace=cuda,nvtx -o decode python3 capture_traces.py /tmp/unused.json && \
        nsys export --type sqlite -o decode.sqlite decode.nsys-rep
"""
import argparse
import sys

import torch
from torch.profiler import ProfilerActivity, profile


class RMSNorm(torch.nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class DecoderLayer(torch.nn.Module):
    def __init__(self, hidden, heads, kv_heads, intermediate):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, hidden // heads
        self.q = torch.nn.Linear(hidden, heads * self.head_dim, bias=False)
        self.kv = torch.nn.Linear(hidden, 2 * kv_heads * self.head_dim, bias=False)
        self.o = torch.nn.Linear(heads * self.head_dim, hidden, bias=False)
        self.gate_up = torch.nn.Linear(hidden, 2 * intermediate, bias=False)
        self.down = torch.nn.Linear(intermediate, hidden, bias=False)
        self.norm1, self.norm2 = RMSNorm(hidden), RMSNorm(hidden)

    def forward(self, x, cache_k, cache_v, pos):
        b = x.shape[0]
        h = self.norm1(x)
        q = self.q(h).view(b, 1, self.heads, self.head_dim).transpose(1, 2)
        k, v = self.kv(h).view(b, 1, 2, self.kv_heads, self.head_dim).unbind(2)
        cache_k[:, :, pos] = k.squeeze(1)
        cache_v[:, :, pos] = v.squeeze(1)
        keys = cache_k[:, :, : pos + 1].repeat_interleave(self.heads // self.kv_heads, dim=1)
        values = cache_v[:, :, : pos + 1].repeat_interleave(self.heads // self.kv_heads, dim=1)
        attn = torch.nn.functional.scaled_dot_product_attention(q, keys, values)
        x = x + self.o(attn.transpose(1, 2).reshape(b, 1, -1))
        gate, up = self.gate_up(self.norm2(x)).chunk(2, dim=-1)
        return x + self.down(torch.nn.functional.silu(gate) * up)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", help="where the Chrome trace JSON goes")
    p.add_argument("--steps", type=int, default=8, help="decode steps profiled")
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--hidden", type=int, default=2048)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--kv-heads", type=int, default=4)
    p.add_argument("--intermediate", type=int, default=5632)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--context", type=int, default=512, help="tokens already in the KV cache")
    args = p.parse_args()
    if not torch.cuda.is_available():
        sys.exit("capture_traces.py: no CUDA device: the trace needs kernels")
    torch.manual_seed(0)
    dev, dtype = "cuda", torch.bfloat16
    layers = [DecoderLayer(args.hidden, args.heads, args.kv_heads, args.intermediate).to(dev, dtype)
              for _ in range(args.layers)]
    head_dim = args.hidden // args.heads
    max_len = args.context + args.steps + 4
    caches = [(torch.randn(args.batch, args.kv_heads, max_len, head_dim, device=dev, dtype=dtype),
               torch.randn(args.batch, args.kv_heads, max_len, head_dim, device=dev, dtype=dtype))
              for _ in layers]
    lm_head = torch.nn.Linear(args.hidden, 32000, bias=False).to(dev, dtype)
    x = torch.randn(args.batch, 1, args.hidden, device=dev, dtype=dtype)

    def step(pos):
        h = x
        for layer, (ck, cv) in zip(layers, caches):
            h = layer(h, ck, cv, pos)
        token = lm_head(h).argmax(-1)
        return token.cpu()  # the host waits for the token, as a server does

    with torch.no_grad():
        for i in range(3):  # warm-up: cuBLAS handles, kernel selection
            step(args.context + i)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for i in range(args.steps):
                step(args.context + 3 + i)
            torch.cuda.synchronize()
    prof.export_chrome_trace(args.out)
    print(f"{args.out}: {args.steps} decode steps of {args.layers} layers, batch {args.batch}; "
          f"ridge trace {args.out} --steps {args.steps} --tokens {args.steps * args.batch}")


if __name__ == "__main__":
    main()
