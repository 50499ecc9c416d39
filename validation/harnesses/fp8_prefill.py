"""Whole FP8 prefills of Llama-3.1-70B on one GPU, as a serving engine's prompt
iteration runs them, burst and sustained: the case behind issue 29's TTFT rows
(InferenceMAX's Llama-3.3-70B FP8 runs, TP 1 to 8), which ridge priced fast.

The network is the 70B's (hidden 8192, 80 layers, 64 query and 8 KV heads of 128,
MLP 28672, vocabulary 128256), written the way FP8 (W8A8, per-tensor static
scales, ModelOpt's checkpoints) engines run it: fused q/k/v and gate/up weights
in e4m3; each GEMM's input quantized to e4m3 by one kernel (x * 1/scale, cast);
torch._scaled_mm (cuBLASLt) with per-tensor scales and bf16 out; RMSNorm, RoPE,
causal SDPA in bf16 (the backend PyTorch picks), SiLU x up; the logits of the last
token only. Random weights and scales of 1; nothing downloaded. To fit 80 layers'
70 GB in memory alongside the rest, the layers cycle through 4 distinct weight
sets (a 0.86 GB layer never stays in the 60 MB L2 either way).

Cases: one request of P = 1024, 2048, 4096, 8192 tokens, and 4 x 2048; each
after 0.5 s idle: 1 warm-up, then 3 timed calls (the burst), then calls back to
back for SUSTAIN seconds, the last third's median kept (settled at the power
limit). CUDA events around each call; every sample kept; nvidia-smi's SM clock
and power read at the end of each sustained run.

usage: python3 fp8_prefill.py OUT.json [--sustain SECONDS]
"""
import math
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

from timing import kernel_names, machine, time_call_ms, write_doc

CONFIG = dict(model_type="llama", hidden_size=8192, intermediate_size=28672, num_hidden_layers=80,
              num_attention_heads=64, num_key_value_heads=8, head_dim=128, vocab_size=128256,
              rms_norm_eps=1e-5, rope_theta=500000.0, max_position_embeddings=131072, tie_word_embeddings=False,
              torch_dtype="bfloat16")
CASES = [(1, 1024), (1, 2048), (1, 4096), (1, 8192), (4, 2048)]
WEIGHT_SETS = 4
DT, F8 = torch.bfloat16, torch.float8_e4m3fn


def e4m3(gen, *shape):
    t = torch.empty(*shape, device="cuda", dtype=DT).normal_(0, 1.0 / math.sqrt(shape[-1]), generator=gen)
    return t.to(F8)


class Fp8Llama:
    def __init__(self, gen):
        c = CONFIG
        self.h, self.ff, self.H, self.KV, self.D = (c["hidden_size"], c["intermediate_size"],
                                                   c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"])
        self.layers_n = c["num_hidden_layers"]
        self.embed = torch.empty(c["vocab_size"], self.h, device="cuda", dtype=DT).normal_(generator=gen)
        self.lm_head = torch.empty(c["vocab_size"], self.h, device="cuda", dtype=DT).normal_(0, self.h**-0.5,
                                                                                            generator=gen)
        self.norm = torch.ones(self.h, device="cuda", dtype=DT)
        qkv_out = (self.H + 2 * self.KV) * self.D
        # weights [N, K] row-major; _scaled_mm takes w.t() (column-major), as engines store them
        self.sets = [{"qkv": e4m3(gen, qkv_out, self.h), "o": e4m3(gen, self.h, self.H * self.D),
                      "gate_up": e4m3(gen, 2 * self.ff, self.h), "down": e4m3(gen, self.h, self.ff)}
                     for _ in range(WEIGHT_SETS)]
        self.n1 = torch.ones(self.h, device="cuda", dtype=DT)
        self.n2 = torch.ones(self.h, device="cuda", dtype=DT)
        self.scale = torch.ones((), dtype=torch.float32, device="cuda")
        self.inv_freq = 1.0 / (c["rope_theta"] ** (torch.arange(0, self.D, 2, device="cuda").float() / self.D))

    def linear(self, x, w):
        """W8A8: quantize the input (one elementwise kernel), FP8 GEMM, bf16 out."""
        xq = (x * (1.0 / self.scale)).to(F8)
        return torch._scaled_mm(xq, w.t(), self.scale, self.scale, out_dtype=DT)

    def prefill_fn(self, B, P, gen):
        H, KV, D, half, T = self.H, self.KV, self.D, self.D // 2, B * P
        tokens = torch.randint(0, CONFIG["vocab_size"], (B, P), device="cuda", generator=gen)
        ang = torch.arange(P, device="cuda").float().view(P, 1) * self.inv_freq.view(1, -1)
        cos = torch.cat([ang.cos(), ang.cos()], -1).to(DT).view(1, 1, P, D)
        sin = torch.cat([ang.sin(), ang.sin()], -1).to(DT).view(1, 1, P, D)
        # one layer's cache reused by every layer: the writes are the same size either way
        kc = torch.empty(B, KV, P, D, device="cuda", dtype=DT)
        vc = torch.empty(B, KV, P, D, device="cuda", dtype=DT)
        out = torch.empty(B, dtype=torch.long, device="cuda")

        def rope(t):
            return t * cos + torch.cat((-t[..., half:], t[..., :half]), dim=-1) * sin

        def prefill():
            x = self.embed[tokens.flatten()]
            for i in range(self.layers_n):
                L = self.sets[i % WEIGHT_SETS]
                a = F.rms_norm(x, (self.h,), self.n1, CONFIG["rms_norm_eps"])
                q, k, v = self.linear(a, L["qkv"]).split([H * D, KV * D, KV * D], dim=-1)
                q = rope(q.reshape(B, P, H, D).transpose(1, 2))
                kc.copy_(rope(k.reshape(B, P, KV, D).transpose(1, 2)))
                vc.copy_(v.reshape(B, P, KV, D).transpose(1, 2))
                o = F.scaled_dot_product_attention(q, kc, vc, is_causal=True, enable_gqa=True)
                x = x + self.linear(o.transpose(1, 2).reshape(T, H * D), L["o"])
                a = F.rms_norm(x, (self.h,), self.n2, CONFIG["rms_norm_eps"])
                g, u = self.linear(a, L["gate_up"]).chunk(2, dim=-1)
                x = x + self.linear(F.silu(g) * u, L["down"])
            last = x.view(B, P, self.h)[:, -1]
            logits = F.linear(F.rms_norm(last, (self.h,), self.norm, CONFIG["rms_norm_eps"]), self.lm_head)
            out.copy_(logits.argmax(-1))

        return prefill


def smi():
    return subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,power.draw,temperature.gpu",
                           "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()


def main():
    out_path = sys.argv[1]
    sustain = float(sys.argv[sys.argv.index("--sustain") + 1]) if "--sustain" in sys.argv else 8.0
    doc = {"harness": "fp8_prefill.py (Llama-3.1-70B W8A8 FP8 prefill, torch._scaled_mm, causal SDPA)",
           "machine": machine(), "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "configs": {"llama-3.1-70b": CONFIG}, "cases": [], "kernels": {}, "errors": []}
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1)
    with torch.inference_mode():
        m = Fp8Llama(gen)
        for B, P in CASES:
            try:
                fn = m.prefill_fn(B, P, gen)
                fn()
                torch.cuda.synchronize()
                if (B, P) == (1, 2048):
                    doc["kernels"]["llama-3.1-70b fp8 prefill"] = kernel_names(fn)
                time.sleep(0.5)
                burst = [time_call_ms(fn) for _ in range(3)]
                sustained, t0 = [], time.time()
                while time.time() - t0 < sustain:
                    sustained.append(time_call_ms(fn))
                state = smi()
                tail = sustained[len(sustained) * 2 // 3:] or sustained
                case = {"model": "llama-3.1-70b", "weights": "fp8", "batch": B, "prompt": P, "kind": "prefill",
                        "burst_ms": statistics.median(burst), "settled_ms": statistics.median(tail),
                        "burst_samples_ms": burst, "sustained_samples_ms": sustained, "smi_after": state}
                doc["cases"].append(case)
                print(f"llama-3.1-70b fp8 prefill B{B} P{P}: burst {case['burst_ms']:.1f} ms, settled "
                      f"{case['settled_ms']:.1f} ms over {len(sustained)} calls ({state})", flush=True)
                del fn
            except Exception as e:  # out of memory or an unsupported op: recorded, the run goes on
                doc["errors"].append({"batch": B, "prompt": P, "error": repr(e)[:400]})
                print(f"B{B} P{P}: {e!r}"[:300], flush=True)
            torch.cuda.empty_cache()
    write_doc(doc, out_path)


if __name__ == "__main__":
    main()
