#!/usr/bin/env python3
"""Times decode steps and prefills of LLM-shaped decoders in plain PyTorch.

Usage: python3 validation/heldout/decode_step.py OUT.json [--quick | --heldout] [--device cuda:0]

Models (bf16, random weights, nothing downloaded):
  dense  Llama-3-8B's shape: hidden 4096, intermediate 14336, 32 layers, 32 heads,
         8 KV heads, head_dim 128, vocab 128256, untied embeddings
  moe    Mixtral-8x7B's layer shape, 8 layers: 8 experts top-2 of 14336, hidden
         4096, 32 heads, 8 KV heads, vocab 32000
Each layer is the Hugging Face modelling code's eager sequence: RMSNorm, q/k/v
projections, RoPE, the KV-cache write, F.scaled_dot_product_attention over the
cache, o projection, residual, RMSNorm, SwiGLU (gate, up, silu * up, down) or the
routed experts (router, softmax top-k, one loop over the experts), residual.

Cases:
  decode   batch 1, 8, 32, 64 x context 2048, 4096, 8192 (dense), eager and under
           CUDA graphs (torch.cuda.CUDAGraph); the MoE at batch 1, 8, 32, 64 and
           context 2048, eager only (its expert loop has data-dependent shapes,
           which a graph cannot capture)
  prefill  batch 1 x 512, 2048, 8192, 16384 tokens (dense), eager and graph;
           the MoE at 2048, eager
  --heldout  the second grid, none of whose shapes the first has (every case
           marked "set": "held-out" for validation/decode_replay.py): dense
           decode at batch 2, 4, 16, 48 x context 1024, 3072, 6144, 16384
           under graphs and batch 4, 16 x 3072, 16384 eager; prefills of
           1024, 3072, 4096, 12288 tokens under graphs, 1024 and 4096 eager,
           batch 2 x 2048 under graphs; the MoE at batch 2, 4, 16 x context
           1024, 4096 and prefills of 512 and 4096 tokens, eager
A decode step at context C writes the new token's K and V at position C and
attends over C + 1 cached tokens; a prefill writes S positions and attends
causally. Each case: warm-up, then >= 10 timed repetitions with CUDA events
(median kept, every sample recorded). torch.profiler counts the kernels of one
step once per model, phase and mode.

The JSON (argv[1]): the GPU, torch and CUDA versions, each model's config (the
config.json keys ridge reads), and every case with its samples.
Keep the whole run under 4 minutes on an H200 (about 2 there).
"""
import json
import math
import statistics
import sys
import time

import torch
import torch.nn.functional as F

DTYPE = torch.bfloat16
WARMUP = 3
REPS = 10
EPS = 1e-5

DENSE = {
    "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
    "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 128256,
    "tie_word_embeddings": False, "rms_norm_eps": EPS, "rope_theta": 500000.0,
}
MOE = {
    "model_type": "mixtral", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 8,
    "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 32000,
    "num_local_experts": 8, "num_experts_per_tok": 2, "tie_word_embeddings": False,
    "rms_norm_eps": EPS, "rope_theta": 1000000.0,
}


def rms_norm(x, weight):
    if hasattr(F, "rms_norm"):
        return F.rms_norm(x, (x.shape[-1],), weight, EPS)
    var = x.float().pow(2).mean(-1, keepdim=True)
    return (x.float() * torch.rsqrt(var + EPS)).to(x.dtype) * weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rope(x, cos, sin):
    return x * cos + rotate_half(x) * sin


class Decoder:
    """Weights and the forward pass of one model; no nn.Module, no autograd."""

    def __init__(self, cfg, device, gen):
        self.cfg = cfg
        h, ff = cfg["hidden_size"], cfg["intermediate_size"]
        self.H, self.kv, self.d = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
        self.experts = cfg.get("num_local_experts", 0)
        self.topk = cfg.get("num_experts_per_tok", 0)
        self.device = device

        def w(*shape):
            # scaled so activations stay finite through the layers
            t = torch.empty(*shape, device=device, dtype=DTYPE)
            return t.normal_(0, 1.0 / math.sqrt(shape[-1]), generator=gen)

        self.embed = w(cfg["vocab_size"], h)
        self.lm_head = w(cfg["vocab_size"], h)
        self.final_norm = torch.ones(h, device=device, dtype=DTYPE)
        self.layers = []
        for _ in range(cfg["num_hidden_layers"]):
            layer = {
                "norm1": torch.ones(h, device=device, dtype=DTYPE),
                "norm2": torch.ones(h, device=device, dtype=DTYPE),
                "q": w(self.H * self.d, h), "k": w(self.kv * self.d, h), "v": w(self.kv * self.d, h),
                "o": w(h, self.H * self.d),
            }
            if self.experts:
                layer["router"] = w(self.experts, h)
                layer["gate"] = [w(ff, h) for _ in range(self.experts)]
                layer["up"] = [w(ff, h) for _ in range(self.experts)]
                layer["down"] = [w(h, ff) for _ in range(self.experts)]
            else:
                layer["gate"], layer["up"], layer["down"] = w(ff, h), w(ff, h), w(h, ff)
            self.layers.append(layer)
        inv = 1.0 / (cfg["rope_theta"] ** (torch.arange(0, self.d, 2, device=device).float() / self.d))
        self.inv_freq = inv

    def rope_tables(self, positions):
        freqs = positions.float()[:, None] * self.inv_freq[None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(DTYPE), emb.sin().to(DTYPE)

    def new_cache(self, batch, length, gen):
        shape = (batch, self.kv, length, self.d)
        return [(torch.empty(shape, device=self.device, dtype=DTYPE).normal_(generator=gen),
                 torch.empty(shape, device=self.device, dtype=DTYPE).normal_(generator=gen))
                for _ in self.layers]

    def mlp(self, layer, x):
        if not self.experts:
            return F.linear(F.silu(F.linear(x, layer["gate"])) * F.linear(x, layer["up"]), layer["down"])
        # Mixtral's sparse block (transformers' MixtralSparseMoeBlock): softmax,
        # top-k, renormalise, each expert on its tokens, index_add back
        flat = x.reshape(-1, x.shape[-1])
        logits = F.linear(flat, layer["router"])
        weights = F.softmax(logits, dim=-1, dtype=torch.float)
        weights, chosen = torch.topk(weights, self.topk, dim=-1)
        weights = (weights / weights.sum(dim=-1, keepdim=True)).to(x.dtype)
        out = torch.zeros_like(flat)
        mask = F.one_hot(chosen, num_classes=self.experts).permute(2, 1, 0)
        for e in range(self.experts):
            slot, token = torch.where(mask[e])
            if token.numel() == 0:
                continue
            xe = flat[token]
            ye = F.linear(F.silu(F.linear(xe, layer["gate"][e])) * F.linear(xe, layer["up"][e]), layer["down"][e])
            out.index_add_(0, token, ye * weights[token, slot, None])
        return out.view_as(x)

    def attention(self, layer, a, cache, start, cos, sin, causal):
        B, T, _ = a.shape
        q = F.linear(a, layer["q"]).view(B, T, self.H, self.d).transpose(1, 2)
        k = F.linear(a, layer["k"]).view(B, T, self.kv, self.d).transpose(1, 2)
        v = F.linear(a, layer["v"]).view(B, T, self.kv, self.d).transpose(1, 2)
        q, k = rope(q, cos, sin), rope(k, cos, sin)
        ck, cv = cache
        ck[:, :, start:start + T].copy_(k)
        cv[:, :, start:start + T].copy_(v)
        keys, values = ck[:, :, :start + T], cv[:, :, :start + T]
        group = self.H // self.kv
        if T == 1:
            # one query per head: the heads of a KV group attend as one group of
            # queries to their shared head (exact GQA, no repeated K/V)
            qg = q.reshape(B, self.kv, group, self.d)
            o = F.scaled_dot_product_attention(qg, keys, values).reshape(B, 1, self.H * self.d)
        else:
            try:
                o = F.scaled_dot_product_attention(q, keys, values, is_causal=causal, enable_gqa=True)
            except TypeError:  # torch < 2.5
                o = F.scaled_dot_product_attention(q, keys.repeat_interleave(group, 1),
                                                   values.repeat_interleave(group, 1), is_causal=causal)
            o = o.transpose(1, 2).reshape(B, T, self.H * self.d)
        return F.linear(o, layer["o"])

    def forward(self, ids, cache, start, positions):
        """ids (B, T); positions (T,) on the device. Returns the next tokens (B,)."""
        cos, sin = self.rope_tables(positions)
        x = F.embedding(ids, self.embed)
        T = ids.shape[1]
        for layer, c in zip(self.layers, cache):
            x = x + self.attention(layer, rms_norm(x, layer["norm1"]), c, start, cos, sin, causal=T > 1)
            x = x + self.mlp(layer, rms_norm(x, layer["norm2"]))
        last = rms_norm(x[:, -1], self.final_norm)
        return torch.argmax(F.linear(last, self.lm_head), dim=-1)


def time_calls(fn, reps=REPS):
    for _ in range(WARMUP):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) * 1e-3)
    return samples


def count_kernels(fn):
    """Kernels (and memcpy/memset) the GPU ran for one call, by torch.profiler."""
    try:
        from torch.profiler import ProfilerActivity, profile
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            fn()
            torch.cuda.synchronize()
        kernels = 0
        other = 0
        for e in prof.events():
            if e.device_type != torch.autograd.DeviceType.CUDA:
                continue
            name = e.name.lower()
            if "memcpy" in name or "memset" in name:
                other += 1
            else:
                kernels += 1
        return {"kernels": kernels, "memcpy_memset": other}
    except Exception as exc:  # the profiler is optional: record why it failed
        return {"error": repr(exc)}


def make_step(model, batch, start, tokens, gen, graph):
    """A callable running one forward of `tokens` new tokens per request after
    `start` cached ones; under a CUDA graph when graph is set."""
    dev = model.device
    cache = model.new_cache(batch, start + tokens, gen)
    ids = torch.randint(0, model.cfg["vocab_size"], (batch, tokens), device=dev, generator=gen)
    positions = torch.arange(start, start + tokens, device=dev)
    if not graph:
        return (lambda: model.forward(ids, cache, start, positions)), cache
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(2):  # warm up outside the capture (cuBLAS workspaces, SDPA choice)
            model.forward(ids, cache, start, positions)
    torch.cuda.current_stream().wait_stream(stream)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        model.forward(ids, cache, start, positions)
    return g.replay, (cache, g)


def run_case(model, name, phase, mode, batch, context, gen, profiled, log):
    tokens = 1 if phase == "decode" else context
    start = context if phase == "decode" else 0
    try:
        fn, keep = make_step(model, batch, start, tokens, gen, mode == "graph")
        samples = time_calls(fn)
        key = (name, phase, mode)
        kernels = None
        if key not in profiled:
            profiled[key] = count_kernels(fn)
            kernels = profiled[key]
    except (torch.cuda.OutOfMemoryError, RuntimeError) as exc:  # recorded, the run goes on
        log(f"  {name} {phase} {mode} b{batch} c{context}: {type(exc).__name__}: {str(exc)[:160]}")
        return {"model": name, "phase": phase, "mode": mode, "batch": batch, "context": context,
                "error": f"{type(exc).__name__}: {str(exc)[:400]}"}
    finally:
        keep = None
        torch.cuda.empty_cache()
    case = {"model": name, "phase": phase, "mode": mode, "batch": batch,
            ("context" if phase == "decode" else "seq"): context,
            "median_s": statistics.median(samples), "min_s": min(samples), "samples_s": samples}
    if kernels is not None:
        case["profiled_kernels"] = kernels
    log(f"  {name:5s} {phase:7s} {mode:5s} batch {batch:3d} x {context:6d}: {case['median_s'] * 1e3:8.3f} ms")
    return case


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    out_path = sys.argv[1]
    quick = "--quick" in sys.argv
    device = sys.argv[sys.argv.index("--device") + 1] if "--device" in sys.argv else "cuda:0"
    torch.cuda.set_device(torch.device(device))
    t0 = time.time()
    log = lambda s: print(f"[{time.time() - t0:6.1f}s] {s}", file=sys.stderr, flush=True)
    gen = torch.Generator(device=device)
    gen.manual_seed(1234)
    props = torch.cuda.get_device_properties(torch.device(device))
    doc = {
        "tool": "validation/heldout/decode_step.py",
        "gpu": props.name, "gpu_total_memory_bytes": props.total_memory,
        "sm_count": props.multi_processor_count,
        "torch": torch.__version__, "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "dtype": "bf16", "warmup": WARMUP, "reps": REPS,
        "configs": {"dense": DENSE, "moe": MOE},
        "notes": [
            "decode at context C: the new token's K/V written at position C, attention over C + 1 tokens",
            "prefill: S tokens, causal SDPA, logits of the last position only",
            "moe decode and prefill eager only: the expert loop's shapes depend on the routing",
            "profiled_kernels: torch.profiler's CUDA events of one call, once per model, phase and mode",
        ],
        "cases": [],
    }
    batches = [1, 8] if quick else [1, 8, 32, 64]
    contexts = [2048] if quick else [2048, 4096, 8192]
    prompts = [512, 2048] if quick else [512, 2048, 8192, 16384]
    # (model, phase, mode, batch, context or prompt) in the order run
    if "--heldout" in sys.argv:
        plan = [("dense", "decode", "graph", b, c) for c in (1024, 3072, 6144, 16384) for b in (2, 4, 16, 48)]
        plan += [("dense", "prefill", "graph", 1, s) for s in (1024, 3072, 4096, 12288)]
        plan += [("dense", "prefill", "graph", 2, 2048)]
        plan += [("dense", "decode", "eager", b, c) for c in (3072, 16384) for b in (4, 16)]
        plan += [("dense", "prefill", "eager", 1, s) for s in (1024, 4096)]
        plan += [("moe", "decode", "eager", b, c) for c in (1024, 4096) for b in (2, 4, 16)]
        plan += [("moe", "prefill", "eager", 1, s) for s in (512, 4096)]
        doc["notes"].append("the held-out grid (--heldout): no shape of the first grid; every case is set held-out")
    else:
        plan = []
        for mode in ("graph", "eager"):
            plan += [("dense", "decode", mode, b, c) for c in contexts for b in batches]
            plan += [("dense", "prefill", mode, 1, s) for s in prompts]
        plan += [("moe", "decode", "eager", b, 2048) for b in batches]
        plan += [("moe", "prefill", "eager", 1, 2048)]
    profiled = {}
    torch.set_grad_enabled(False)  # no autograd anywhere (graph capture included)
    for name, cfg in (("dense", DENSE), ("moe", MOE)):
        log(f"{name} model: allocating weights")
        model = Decoder(cfg, device, gen)
        for m, phase, mode, batch, size in plan:
            if m == name:
                case = run_case(model, name, phase, mode, batch, size, gen, profiled, log)
                if "--heldout" in sys.argv:
                    case["set"] = "held-out"
                doc["cases"].append(case)
        del model
        torch.cuda.empty_cache()
    doc["kernels_per_step"] = {f"{k[0]}/{k[1]}/{k[2]}": v for k, v in profiled.items()}
    doc["wall_s"] = time.time() - t0
    with open(out_path + ".tmp", "w") as f:
        json.dump(doc, f, indent=1)
    import os
    os.replace(out_path + ".tmp", out_path)
    log(f"wrote {out_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
