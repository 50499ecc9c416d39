#!/usr/bin/env python3
"""Harness C: decode with Hugging Face transformers' own model classes, built from
a config with random weights (nothing downloaded), through `generate` with a
static KV cache (cache_implementation="static"), greedy, as its documentation
shows for fast decoding. Two modes:
  eager     generate(..., disable_compile=True): each token one eager forward
  compiled  generate's default with a static cache: the forward compiled by
            torch.compile (CUDA graphs); a warm-up generate of the same shape pays
            the compilation first
Each token's host arrival is stamped by a streamer (the token reaches the host
after its step, as a server's would); the time per output token is the median of
the gaps between tokens 8..N (the first tokens and the prefill left out), and
every gap is kept.

Usage: python3 hf_decode.py OUT.json [--budget SECONDS] [--compiled]
"""
import json
import statistics
import sys
import time

import torch

from timing import machine

MODELS = {
    "llama-3-8b": dict(model_type="llama", hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
                       num_attention_heads=32, num_key_value_heads=8, head_dim=128, vocab_size=128256,
                       tie_word_embeddings=False, max_position_embeddings=131072, rope_theta=500000.0),
    "qwen2.5-7b": dict(model_type="qwen2", hidden_size=3584, intermediate_size=18944, num_hidden_layers=28,
                       num_attention_heads=28, num_key_value_heads=4, vocab_size=152064,
                       tie_word_embeddings=False, max_position_embeddings=32768, rope_theta=1000000.0),
    "llama-3.2-3b": dict(model_type="llama", hidden_size=3072, intermediate_size=8192, num_hidden_layers=28,
                         num_attention_heads=24, num_key_value_heads=8, head_dim=128, vocab_size=128256,
                         tie_word_embeddings=True, max_position_embeddings=131072, rope_theta=500000.0),
}
# (model, batch, prompt tokens, mode)
CASES = [(m, B, P, "eager") for m in MODELS for (B, P) in [(1, 2048), (8, 2048), (32, 1024), (1, 8192)]] + \
        [("llama-3-8b", 1, 2048, "compiled"), ("llama-3-8b", 8, 2048, "compiled"), ("qwen2.5-7b", 1, 2048, "compiled"),
         ("llama-3.2-3b", 16, 1024, "compiled")]
# --compiled: a second set, compiled only, on shapes the first set lacks (issue 34's repeat-kv
# path: batch and cache length across three head layouts)
COMPILED_CASES = [("llama-3-8b", 1, 2048, "compiled"), ("llama-3-8b", 4, 4096, "compiled"),
                  ("llama-3-8b", 8, 2048, "compiled"), ("qwen2.5-7b", 1, 2048, "compiled"),
                  ("qwen2.5-7b", 8, 4096, "compiled"), ("llama-3.2-3b", 1, 4096, "compiled"),
                  ("llama-3.2-3b", 16, 1024, "compiled")]
NEW_TOKENS = 64
SKIP = 8


class Stamps:
    """A generate streamer: the host time each token arrives."""

    def __init__(self):
        self.t = []

    def put(self, value):
        torch.cuda.synchronize()
        self.t.append(time.perf_counter())

    def end(self):
        pass


def build(name):
    from transformers import AutoConfig, AutoModelForCausalLM
    kw = dict(MODELS[name])
    model_type = kw.pop("model_type")
    cfg = AutoConfig.for_model(model_type, **kw)
    cfg.eos_token_id = None
    with torch.device("cuda"):
        try:
            model = AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16)
        except TypeError:
            model = AutoModelForCausalLM.from_config(cfg, torch_dtype=torch.bfloat16)
    model.eval()
    return model


def generate(model, B, P, mode, gen):
    ids = torch.randint(0, model.config.vocab_size, (B, P), device="cuda", generator=gen)
    stamps = Stamps()
    kw = dict(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=NEW_TOKENS,
              min_new_tokens=NEW_TOKENS, do_sample=False, cache_implementation="static", pad_token_id=0,
              streamer=stamps, disable_compile=(mode == "eager"))
    with torch.inference_mode():
        t0 = time.perf_counter()
        model.generate(**kw)
        torch.cuda.synchronize()
        total = time.perf_counter() - t0
    # the streamer's first put is the prompt itself, then one per new token
    gaps = [b - a for a, b in zip(stamps.t[1:], stamps.t[2:])]
    return total, gaps


def main():
    out_path = sys.argv[1]
    budget = float(sys.argv[sys.argv.index("--budget") + 1]) if "--budget" in sys.argv else 420.0
    start = time.time()
    import transformers
    doc = {"harness": "hf_decode.py (harness C: transformers generate, static cache)", "machine": machine(),
           "transformers": transformers.__version__, "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "configs": MODELS, "new_tokens": NEW_TOKENS, "skipped_gaps": SKIP, "cases": [], "errors": []}
    gen = torch.Generator(device="cuda")
    gen.manual_seed(3)
    loaded, model = None, None
    cases = COMPILED_CASES if "--compiled" in sys.argv else CASES
    for name, B, P, mode in cases:
        if time.time() - start > budget:
            doc["errors"].append({"case": [name, B, P, mode], "error": "skipped: over the time budget"})
            continue
        try:
            if loaded != name:
                model = None
                torch.cuda.empty_cache()
                model, loaded = build(name), name
            t0 = time.time()
            if mode == "compiled":
                generate(model, B, P, mode, gen)  # compiles this shape
            warm = time.time() - t0
            total, gaps = generate(model, B, P, mode, gen)
            tpot = statistics.median(gaps[SKIP:])
            doc["cases"].append({"model": name, "batch": B, "prompt": P, "mode": mode, "tpot_s": tpot,
                                 "context_mid": P + NEW_TOKENS // 2, "generate_s": total, "gaps_s": gaps,
                                 "warmup_s": warm})
            print(f"{name:14s} B{B:<3d} P{P:<5d} {mode:8s} TPOT {tpot * 1e3:8.3f} ms  (warm-up {warm:.1f} s)",
                  flush=True)
        except Exception as e:
            doc["errors"].append({"case": [name, B, P, mode], "error": repr(e)[:600]})
            print(f"{name} B{B} P{P} {mode}: {e!r}"[:400], flush=True)
        with open(out_path, "w") as f:
            json.dump(doc, f, indent=1)
    doc["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    with open(out_path, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
