#!/usr/bin/env python3
"""ridge serve against published serving measurements (validation/serve/*.csv).

Each row of validation/serve/trtllm_perf_overview.csv is a TensorRT-LLM
throughput run (trtllm-bench: every request queued at once). ridge serve
simulates it as an open loop at an arrival rate no engine keeps up with
(1e6 requests/s: every request waits from t = 0), the TensorRT-LLM preset with
the page's llm_options.yml (CUDA graphs padded to its listed batch sizes, 1 to
8192), FP8 weights and GEMMs, the number of requests the source used, none left
out as warm-up. Prints one row per case and the median |error| of the output
throughput; --markdown prints the table for validation/README.md.

Nothing is fitted: the engine preset is the engine's documented defaults
(docs/sources/serving-engines.md) and the CPU overhead per iteration is 0.

usage: python3 validation/serve_check.py [--ridge build/ridge] [--markdown]
       [--kv-dtype fp8|bf16] [--extra "--cpu-overhead 100us"]
"""
import argparse
import csv
import json
import os
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


def run(ridge, row, kv_dtype, extra):
    model = os.path.join(HERE, "serve", "models", row["model"] + ".json")
    cmd = [ridge, "serve", "--model", model, "--gpu", row["gpu"], "--tp", row["tp"],
           "--isl", row["isl"], "--osl", row["osl"], "--rate", "1e6",
           "--requests", row["requests"], "--warmup", "0", "--engine", "trtllm",
           "--weight-dtype", row["dtype"], "--compute-dtype", row["dtype"],
           "--kv-dtype", kv_dtype, "--graph-batch-sizes", PAGE_GRAPH_SIZES, "--graph-padding",
           "--json"] + shlex.split(extra)
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip()
    return json.loads(out.stdout), ""


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
        doc, why = run(args.ridge, row, args.kv_dtype, args.extra)
        measured = float(row["output_tokens_per_s"])
        label = "%s %s tp%s %s/%s" % (row["model"], row["gpu"], row["tp"], row["isl"], row["osl"])
        if doc is None:
            lines.append((label, measured, None, None, why))
            continue
        predicted = doc["output_tokens_per_s"]
        error = predicted / measured - 1
        errors.append(abs(error))
        lines.append((label, measured, predicted, error, "batch %.0f, preemptions %.0f" %
                      (doc["iterations"]["mean_running"], doc["preemptions"])))
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
