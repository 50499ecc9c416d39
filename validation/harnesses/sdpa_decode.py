#!/usr/bin/env python3
"""Harness B: whole decode steps of dense decoders and one MoE written as a plain
loop, the way hand-written and framework decode loops call attention:
F.scaled_dot_product_attention(q, k_cache, v_cache, enable_gqa=True) with one
query token. Independent of validation/heldout/decode_step.py (harness A): fused
QKV and gate/up projections, its own cache layout and RoPE, the MoE's experts as
one grouped GEMM (torch._grouped_mm, tokens sorted by expert, groups padded to 16
rows) so the whole step is captured in a CUDA graph, as serving engines run it.

Usage: python3 sdpa_decode.py OUT.json [--quick] [--models NAME,NAME] [--prefill]
--prefill: prefills instead (PREFILL_CASES: P prompt tokens per request, causal
SDPA with enable_gqa=True, the logits of the last token), under a CUDA graph and eager.
Random bf16 weights scaled 1/sqrt(fan-in); caches filled with random values;
nothing downloaded. Each case: CUDA graph of one step (the new token's K/V written
at position C, attention over C + 1 positions, sampling by argmax), 3 warm-ups,
20 timed replays with CUDA events, median and every sample kept; a few cases also
eager. torch.profiler lists one eager step's kernels per model.
"""
import json
import math
import sys
import time

import torch
import torch.nn.functional as F

from timing import graphed, kernel_names, machine, time_ms

DT = torch.bfloat16
EPS = 1e-5
KV_BUDGET = 40e9  # bytes of KV cache a case may take

# config.json keys as the models' published configs give them (ridge model reads these)
CONFIGS = {
    "llama-3-8b": dict(model_type="llama", hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
                       num_attention_heads=32, num_key_value_heads=8, head_dim=128, vocab_size=128256,
                       tie_word_embeddings=False),
    "llama-3.2-3b": dict(model_type="llama", hidden_size=3072, intermediate_size=8192, num_hidden_layers=28,
                         num_attention_heads=24, num_key_value_heads=8, head_dim=128, vocab_size=128256,
                         tie_word_embeddings=True),
    "qwen2.5-7b": dict(model_type="qwen2", hidden_size=3584, intermediate_size=18944, num_hidden_layers=28,
                       num_attention_heads=28, num_key_value_heads=4, head_dim=128, vocab_size=152064,
                       tie_word_embeddings=False),
    "mistral-nemo-12b": dict(model_type="mistral", hidden_size=5120, intermediate_size=14336, num_hidden_layers=40,
                             num_attention_heads=32, num_key_value_heads=8, head_dim=128, vocab_size=131072,
                             tie_word_embeddings=False),
    "qwen2.5-14b": dict(model_type="qwen2", hidden_size=5120, intermediate_size=13824, num_hidden_layers=48,
                        num_attention_heads=40, num_key_value_heads=8, head_dim=128, vocab_size=152064,
                        tie_word_embeddings=False),
    "mixtral-8x7b": dict(model_type="mixtral", hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
                         num_attention_heads=32, num_key_value_heads=8, head_dim=128, vocab_size=32000,
                         num_local_experts=8, num_experts_per_tok=2, tie_word_embeddings=False),
    # Qwen/Qwen3-30B-A3B's sizes (hidden 2048, moe_intermediate_size 768, 128 experts, top 8) in
    # Mixtral's layout: this harness has no q/k norm, so ridge reads it as the Mixtral family does
    "qwen3-30b-a3b": dict(model_type="mixtral", hidden_size=2048, intermediate_size=768, num_hidden_layers=48,
                          num_attention_heads=32, num_key_value_heads=4, head_dim=128, vocab_size=151936,
                          num_local_experts=128, num_experts_per_tok=8, tie_word_embeddings=False),
}
DENSE_CASES = [(1, 2048), (1, 8192), (1, 32768), (4, 4096), (8, 2048), (8, 8192), (16, 4096), (32, 2048),
               (32, 8192), (64, 4096)]
MOE_CASES = [(1, 2048), (8, 2048), (32, 2048), (32, 4096), (64, 1024)]
EAGER_CASES = {(1, 2048), (32, 2048)}


def w(gen, *shape):
    t = torch.empty(*shape, device="cuda", dtype=DT)
    return t.normal_(0, 1.0 / math.sqrt(shape[-1]), generator=gen)


class Model:
    def __init__(self, cfg, gen):
        self.cfg = cfg
        self.h, self.ff = cfg["hidden_size"], cfg["intermediate_size"]
        self.H, self.KV, self.D = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
        self.E, self.topk = cfg.get("num_local_experts", 0), cfg.get("num_experts_per_tok", 0)
        bias = cfg["model_type"] == "qwen2"
        qkv_out = (self.H + 2 * self.KV) * self.D
        self.embed = w(gen, cfg["vocab_size"], self.h)
        self.lm_head = self.embed if cfg["tie_word_embeddings"] else w(gen, cfg["vocab_size"], self.h)
        self.norm = torch.ones(self.h, device="cuda", dtype=DT)
        self.layers = []
        for _ in range(cfg["num_hidden_layers"]):
            L = {"n1": torch.ones(self.h, device="cuda", dtype=DT), "n2": torch.ones(self.h, device="cuda", dtype=DT),
                 "qkv": w(gen, qkv_out, self.h), "qkv_b": w(gen, qkv_out) if bias else None,
                 "o": w(gen, self.h, self.H * self.D)}
            if self.E:
                L["router"] = w(gen, self.E, self.h)
                L["gate_up"] = w(gen, self.E, 2 * self.ff, self.h)  # [E, N, K]
                L["down"] = w(gen, self.E, self.h, self.ff)
            else:
                L["gate_up"] = w(gen, 2 * self.ff, self.h)
                L["down"] = w(gen, self.h, self.ff)
            self.layers.append(L)
        inv = 1.0 / (500000.0 ** (torch.arange(0, self.D, 2, device="cuda").float() / self.D))
        self.inv_freq = inv

    def kv_bytes(self, B, C):
        return len(self.layers) * 2 * B * self.KV * (C + 1) * self.D * 2

    def moe(self, L, x):
        T, k, E = x.shape[0], self.topk, self.E
        probs = F.softmax(F.linear(x, L["router"]).float(), dim=-1)
        weights, idx = torch.topk(probs, k, dim=-1)
        weights = (weights / weights.sum(-1, keepdim=True)).to(DT)
        flat = idx.flatten()
        # scatter_add, not bincount/one_hot: no host sync, so the step stays capturable
        counts = torch.zeros(E, dtype=torch.long, device="cuda").scatter_add_(0, flat, torch.ones_like(flat))
        padded = (counts + 15) // 16 * 16
        ends = torch.cumsum(padded, 0)
        starts = ends - padded
        order = torch.argsort(flat, stable=True)
        sorted_e = flat[order]
        first = torch.cumsum(counts, 0) - counts
        rank = torch.arange(T * k, device="cuda") - first[sorted_e]
        dest = starts[sorted_e] + rank
        buf = torch.zeros(T * k + E * 16, self.h, device="cuda", dtype=DT)
        buf[dest] = x[order // k]
        offs = ends.to(torch.int32)
        gu = torch._grouped_mm(buf, L["gate_up"].transpose(-2, -1), offs=offs)
        g, u = gu.chunk(2, dim=-1)
        out = torch._grouped_mm(F.silu(g) * u, L["down"].transpose(-2, -1), offs=offs)
        y = torch.empty(T * k, self.h, device="cuda", dtype=DT)
        y[order] = out[dest] * weights.flatten()[order].unsqueeze(-1)
        return y.view(T, k, self.h).sum(1)

    def step_fn(self, B, C, gen):
        """One decode step at context C (KV written at position C) as a closure."""
        caches = []
        for _ in self.layers:
            kc = torch.empty(B, self.KV, C + 1, self.D, device="cuda", dtype=DT).normal_(generator=gen)
            vc = torch.empty(B, self.KV, C + 1, self.D, device="cuda", dtype=DT).normal_(generator=gen)
            caches.append((kc, vc))
        tokens = torch.randint(0, self.cfg["vocab_size"], (B,), device="cuda", generator=gen)
        ang = C * self.inv_freq
        cos = torch.cat([ang.cos(), ang.cos()]).to(DT).view(1, 1, 1, self.D)
        sin = torch.cat([ang.sin(), ang.sin()]).to(DT).view(1, 1, 1, self.D)
        H, KV, D, half = self.H, self.KV, self.D, self.D // 2

        def rope(t):
            return t * cos + torch.cat((-t[..., half:], t[..., :half]), dim=-1) * sin

        def step():
            x = self.embed[tokens]
            for L, (kc, vc) in zip(self.layers, caches):
                a = F.rms_norm(x, (self.h,), L["n1"], EPS)
                qkv = F.linear(a, L["qkv"], L["qkv_b"])
                q, k, v = qkv.split([H * D, KV * D, KV * D], dim=-1)
                q = rope(q.reshape(B, H, 1, D))
                k = rope(k.reshape(B, KV, 1, D))
                kc[:, :, C:C + 1] = k
                vc[:, :, C:C + 1] = v.reshape(B, KV, 1, D)
                o = F.scaled_dot_product_attention(q, kc, vc, enable_gqa=True)
                x = x + F.linear(o.reshape(B, H * D), L["o"])
                a = F.rms_norm(x, (self.h,), L["n2"], EPS)
                if self.E:
                    x = x + self.moe(L, a)
                else:
                    g, u = F.linear(a, L["gate_up"]).chunk(2, dim=-1)
                    x = x + F.linear(F.silu(g) * u, L["down"])
            logits = F.linear(F.rms_norm(x, (self.h,), self.norm, EPS), self.lm_head)
            tokens.copy_(logits.argmax(-1))

        return step, caches

    def prefill_fn(self, B, P, gen):
        """One prefill of P prompt tokens per request as a closure: the projections
        over all B x P tokens, RoPE, K and V written to a cache of P positions,
        causal SDPA (enable_gqa=True, the backend PyTorch picks), the logits of each
        request's last token only (as serving engines compute them)."""
        H, KV, D, half, T = self.H, self.KV, self.D, self.D // 2, B * P
        caches = [(torch.empty(B, KV, P, D, device="cuda", dtype=DT), torch.empty(B, KV, P, D, device="cuda", dtype=DT))
                  for _ in self.layers]
        tokens = torch.randint(0, self.cfg["vocab_size"], (B, P), device="cuda", generator=gen)
        ang = torch.arange(P, device="cuda").float().view(P, 1) * self.inv_freq.view(1, -1)
        cos = torch.cat([ang.cos(), ang.cos()], -1).to(DT).view(1, 1, P, D)
        sin = torch.cat([ang.sin(), ang.sin()], -1).to(DT).view(1, 1, P, D)
        out = torch.empty(B, dtype=torch.long, device="cuda")

        def rope(t):
            return t * cos + torch.cat((-t[..., half:], t[..., :half]), dim=-1) * sin

        def prefill():
            x = self.embed[tokens.flatten()]
            for L, (kc, vc) in zip(self.layers, caches):
                a = F.rms_norm(x, (self.h,), L["n1"], EPS)
                qkv = F.linear(a, L["qkv"], L["qkv_b"])
                q, k, v = qkv.split([H * D, KV * D, KV * D], dim=-1)
                q = rope(q.reshape(B, P, H, D).transpose(1, 2))
                kc.copy_(rope(k.reshape(B, P, KV, D).transpose(1, 2)))
                vc.copy_(v.reshape(B, P, KV, D).transpose(1, 2))
                o = F.scaled_dot_product_attention(q, kc, vc, is_causal=True, enable_gqa=True)
                x = x + F.linear(o.transpose(1, 2).reshape(T, H * D), L["o"])
                a = F.rms_norm(x, (self.h,), L["n2"], EPS)
                if self.E:
                    x = x + self.moe(L, a)
                else:
                    g, u = F.linear(a, L["gate_up"]).chunk(2, dim=-1)
                    x = x + F.linear(F.silu(g) * u, L["down"])
            last = x.view(B, P, self.h)[:, -1]
            logits = F.linear(F.rms_norm(last, (self.h,), self.norm, EPS), self.lm_head)
            out.copy_(logits.argmax(-1))

        return prefill, caches


PREFILL_CASES = [(1, 512), (1, 2048), (1, 8192), (4, 2048)]


def run_prefill(doc, names, gen):
    """Harness B's prefills: each case under a CUDA graph and eager."""
    for name in names:
        try:
            m = Model(CONFIGS[name], gen)
        except Exception as e:
            doc["errors"].append({"model": name, "stage": "build", "error": repr(e)[:400]})
            continue
        for B, P in PREFILL_CASES:
            try:
                fn, caches = m.prefill_fn(B, P, gen)
                if (B, P) == (1, 2048):
                    doc["kernels"][name + " prefill"] = kernel_names(fn)
                elif (B, P) == (1, 8192):  # where ridge runs fast: which kernels
                    doc["kernels"][name + " prefill 8192"] = kernel_names(fn)
                for mode, f in [("graph", graphed(fn)), ("eager", fn)]:
                    med, samples = time_ms(f, warmup=2, reps=10)
                    doc["cases"].append({"model": name, "batch": B, "prompt": P, "mode": mode, "kind": "prefill",
                                         "median_ms": med, "samples_ms": samples})
                    print(f"{name:18s} prefill B{B:<3d} P{P:<6d} {mode:5s} {med:8.3f} ms", flush=True)
                del fn, caches
            except Exception as e:
                doc["errors"].append({"model": name, "batch": B, "prompt": P, "error": repr(e)[:400]})
                print(f"{name} prefill B{B} P{P}: {e!r}"[:300], flush=True)
            torch.cuda.empty_cache()
        del m
        torch.cuda.empty_cache()


def main():
    out_path = sys.argv[1]
    quick = "--quick" in sys.argv
    doc = {"harness": "sdpa_decode.py (harness B: SDPA enable_gqa, fused projections, grouped-GEMM MoE)",
           "machine": machine(), "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "configs": CONFIGS, "cases": [], "kernels": {}, "errors": []}
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1)
    names = ["llama-3-8b", "mixtral-8x7b"] if quick else list(CONFIGS)
    if "--models" in sys.argv:
        names = sys.argv[sys.argv.index("--models") + 1].split(",")
    if "--prefill" in sys.argv:
        doc["harness"] = "sdpa_decode.py --prefill (harness B's prefills: causal SDPA enable_gqa, fused projections)"
        with torch.inference_mode():
            run_prefill(doc, names, gen)
        doc["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        with open(out_path, "w") as f:
            json.dump(doc, f, indent=1)
        return
    for name in names:
        t0 = time.time()
        try:
            m = Model(CONFIGS[name], gen)
        except Exception as e:  # out of memory or an unsupported op: recorded, the run goes on
            doc["errors"].append({"model": name, "stage": "build", "error": repr(e)[:400]})
            continue
        cases = MOE_CASES if m.E else DENSE_CASES
        for B, C in cases:
            if m.kv_bytes(B, C) > KV_BUDGET:
                continue
            try:
                step, caches = m.step_fn(B, C, gen)
                if (B, C) == (8, 2048):
                    doc["kernels"][name] = kernel_names(step)
                modes = [("graph", graphed(step))]
                if (B, C) in EAGER_CASES:
                    modes.append(("eager", step))
                for mode, fn in modes:
                    med, samples = time_ms(fn, warmup=3, reps=20)
                    doc["cases"].append({"model": name, "batch": B, "context": C, "mode": mode, "median_ms": med,
                                         "samples_ms": samples})
                    print(f"{name:18s} B{B:<3d} C{C:<6d} {mode:5s} {med:8.3f} ms", flush=True)
                del step, caches, modes
            except Exception as e:
                doc["errors"].append({"model": name, "batch": B, "context": C, "error": repr(e)[:400]})
                print(f"{name} B{B} C{C}: {e!r}"[:300], flush=True)
            torch.cuda.empty_cache()
        del m
        torch.cuda.empty_cache()
        print(f"{name}: {time.time() - t0:.1f} s", flush=True)
    doc["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    with open(out_path, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
