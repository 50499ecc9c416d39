#!/usr/bin/env python3
"""ridge serve against published serving measurements (validation/serve/*.csv).

Each row of validation/serve/trtllm_perf_overview.csv is a TensorRT-LLM
throughput run (trtllm-bench: every request queued at once). ridge serve
simulates it as an open loop at an arrival rate no engine keeps up with
(1e6 requests/s: every request waits from t = 0), the TensorRT-LLM preset with
the page's llm_options.yml (CUDA graphs padded to its listed batch sizes, 1 to
8192), the batch and token limits trtllm-bench itself chose for the run
(trtllm_bench_limits below), FP8 weights and GEMMs, the number of requests the
source used, none left out as warm-up. Prints one row per case and the median
|error| of the output throughput; --markdown prints the table for
validation/README.md.

Nothing is fitted: the engine preset is the engine's documented defaults
(docs/sources/serving-engines.md) and the CPU overhead per iteration is 0.

usage: python3 validation/serve_check.py [--ridge build/ridge] [--markdown]
       [--kv-dtype fp8|bf16] [--extra "--cpu-overhead 100us"]
"""
import argparse
import csv
import json
import math
import os
import re
import shlex
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# the page's llm_options.yml for dense models: cuda_graph_config enable_padding true, these batch_sizes
PAGE_GRAPH_SIZES = "1,2,4,8,16,32,64,128,256,384,512,1024,2048,4096,8192"


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def parameter_count(config):
    """A Llama-architecture checkpoint's parameters from its config.json: per layer the q, k, v, o
    and gate, up, down projections and two norms; the final norm; the embedding, and the LM head
    unless tied. (trtllm-bench reads the count from the safetensors header, which also holds the
    FP8 checkpoints' per-tensor scales: a few hundred numbers.)"""
    h, layers = config["hidden_size"], config["num_hidden_layers"]
    head = config.get("head_dim", h // config["num_attention_heads"])
    q, kv = config["num_attention_heads"] * head, config["num_key_value_heads"] * head
    per_layer = 2 * h * q + 2 * h * kv + 3 * h * config["intermediate_size"] + 2 * h
    embeddings = config["vocab_size"] * h * (1 if config.get("tie_word_embeddings") else 2)
    return layers * per_layer + h + embeddings


def device_memory_gib(gpu):
    """What NVML reports as the card's total memory (trtllm-bench's get_device_memory): hwdb's
    usable_size, the driver's total."""
    with open(os.path.join(HERE, "..", "hwdb", gpu + ".yaml")) as f:
        mib = re.search(r"^\s*usable_size:\s*([0-9]+)\s*MiB", f.read(), re.M)
    return int(mib.group(1)) / 1024


def trtllm_bench_limits(row, config, kv_fraction=0.90):
    """The max_batch_size and max_num_tokens trtllm-bench throughput runs with when, as on the
    performance page, neither is given: tensorrt_llm/bench/build/tuning.py calc_engine_setting and
    finetune_setting, then bench/benchmark/utils/general.py get_settings, which with chunked prefill
    off raises max_num_tokens to at least the longest prompt + max_batch_size (NVIDIA/TensorRT-LLM,
    read at 04cba882 and 0171265e). FP8 checkpoints: 1 byte a weight and a KV element; the KV
    heads per GPU group at least the TP; the free-memory fraction trtllm-bench's default, 0.90."""
    tp, isl, osl = int(row["tp"]), int(row["isl"]), int(row["osl"])
    head = config.get("head_dim", config["hidden_size"] // config["num_attention_heads"])
    gib_per_token = 2 * config["num_hidden_layers"] * max(tp, config["num_key_value_heads"]) * head / 1024**3
    free = device_memory_gib(row["gpu"]) * tp - parameter_count(config) / 1024**3
    requests = free * kv_fraction / (gib_per_token * (isl + osl))
    raw_batch = min(requests, 4096)
    raw_tokens = min(raw_batch * (1 + isl / osl), 32768)
    batch = stepped_round_up(raw_batch, ((256, 32, 64), (1024, 128, 0), (math.inf, 256, 0)))
    tokens = stepped_round_up(raw_tokens, ((4096, 256, 2048), (8192, 512, 0), (math.inf, 1024, 0)))
    return batch, max(tokens, isl + batch)


def stepped_round_up(value, rules):
    """value rounded up to the granule of the first (below, granule, least) rule it is below, and
    at least that rule's least (finetune_setting's rounding of the batch and the tokens)."""
    for below, granule, least in rules:
        if value < below:
            return max(least, granule * math.ceil(value / granule))
    raise ValueError(value)


def run(ridge, row, kv_dtype, extra):
    model = os.path.join(HERE, "serve", "models", row["model"] + ".json")
    with open(model) as f:
        batch, tokens = trtllm_bench_limits(row, json.load(f))
    cmd = [ridge, "serve", "--model", model, "--gpu", row["gpu"], "--tp", row["tp"],
           "--isl", row["isl"], "--osl", row["osl"], "--rate", "1e6",
           "--requests", row["requests"], "--warmup", "0", "--engine", "trtllm",
           "--weight-dtype", row["dtype"], "--compute-dtype", row["dtype"],
           "--kv-dtype", kv_dtype, "--graph-batch-sizes", PAGE_GRAPH_SIZES, "--graph-padding",
           "--max-num-seqs", str(batch), "--max-num-batched-tokens", str(tokens), "--json"] + shlex.split(extra)
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip()
    return json.loads(out.stdout), "max_batch_size %d, max_num_tokens %d" % (batch, tokens)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ridge", default=os.path.join(HERE, "..", "build", "ridge"))
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--kv-dtype", default="fp8")
    ap.add_argument("--extra", default="")
    args = ap.parse_args()
    errors = []
    lines = []
    for row in rows(os.path.join(HERE, "serve", "trtllm_perf_overview.csv")):
        doc, limits = run(args.ridge, row, args.kv_dtype, args.extra)
        measured = float(row["output_tokens_per_s"])
        label = "%s %s tp%s %s/%s" % (row["model"], row["gpu"], row["tp"], row["isl"], row["osl"])
        if doc is None:
            lines.append((label, measured, None, None, limits))
            continue
        predicted = doc["output_tokens_per_s"]
        error = predicted / measured - 1
        errors.append(abs(error))
        lines.append((label, measured, predicted, error, "%s; batch %.0f, preemptions %.0f" %
                      (limits, doc["iterations"]["mean_running"], doc["preemptions"])))
    if args.markdown:
        print("| case | published tok/s | ridge serve tok/s | error | |")
        print("|---|---:|---:|---:|---|")
    for label, measured, predicted, error, note in lines:
        if args.markdown:
            print("| %s | %.0f | %s | %s | %s |" % (label, measured,
                  "-" if predicted is None else "%.0f" % predicted,
                  "-" if error is None else "%+.1f %%" % (100 * error), note))
        else:
            print("%-40s %9.0f %9s %8s  %s" % (label, measured,
                  "-" if predicted is None else "%.0f" % predicted,
                  "-" if error is None else "%+.1f%%" % (100 * error), note))
    if errors:
        print("\n%d cases, median |error| %.1f %%, mean %.1f %%" %
              (len(errors), 100 * statistics.median(errors), 100 * statistics.mean(errors)))
    return 0 if errors else 1


if __name__ == "__main__":
    sys.exit(main())
