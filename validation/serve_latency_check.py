#!/usr/bin/env python3
"""ridge serve against published TTFT and TPOT (validation/serve/latency_published.csv).

Each row of the CSV is one published serving run: engine and version, GPU, model,
weights, TP, prompt and output tokens, the benchmark's concurrency (closed loop) or
request rate (open loop), and the TTFT / TPOT / throughput it printed. This script
runs `ridge serve` on each row with the engine's preset and compares:

  TTFT  against the source's mean (ttft_mean_ms), else its median (ttft_p50_ms), else
        its unnamed figure (ttft_ms, compared with ridge's mean);
  TPOT  likewise (tpot_mean_ms, tpot_p50_ms, tpot_ms);
  output tokens/s where the source prints it.

The flags each row runs with (what the source does not say is assumed, the same for
every row of an engine):
  - FP8 weights run FP8 GEMMs, FP4 (NVFP4) weights FP4 GEMMs; the KV cache is FP8 for a
    checkpoint quantized offline (its name says FP8 or FP4: its quantization config turns the
    FP8 cache on, as aiconfigurator's own predictor infers it, sdk/models/helpers.py
    _infer_quant_modes_from_raw_config) and the checkpoint's bf16 otherwise (the engines'
    kv-cache-dtype "auto": quantizing a bf16 checkpoint's GEMMs online leaves the cache);
    bf16 stays bf16;
  - the engine's preset (docs/sources/serving-engines.md), except TensorRT-LLM rows
    whose prompt and decode tokens exceed the preset's 8192-token budget (chunked
    prefill off cannot run them alongside the decodes): the budget aiconfigurator's
    generator writes for such runs, concurrency + isl + 1500 rounded up to the
    32-token block (src/aiconfigurator/generator/rule_plugin/trtllm.rule, "agg
    max_num_tokens", aiconfigurator@095f58a5). SGLang rows run SGLang's own default,
    mixed chunks off (prefill batches ahead of decode batches); aiconfigurator's generator
    turns --enable-mixed-chunk on, but the source does not say its runs were launched
    from it (validation/README.md gives both);
  - fixed prompt and output lengths, ridge's default request count (10 x concurrency,
    at least 200) after a warm-up of one round, where the source gives no count;
  - except the runs the source gives no engine version for (every Llama-3.1-70B row,
    measured 2025-10-29): they are InferenceMAX's nightly runs of that day, and run with
    InferenceMAX's own client and server settings (inferencemax_flags below;
    docs/sources/serving-measurements.md gives the evidence and the lines).

The CPU time per iteration is each engine's preset (--cpu-overhead ENGINE=T replaces
it for one engine). --fit ENGINE tries a grid of values on the engine's fitting rows
(FIT below) and prints the median |TPOT error| each gives; the other rows are held
out. --fit-request-latency does the same for the host time of each request outside the
iteration loop (ridge serve --request-latency, one value for every engine) on vLLM's
fitting rows, by the median |TTFT error|. --markdown prints the per-engine tables of validation/README.md; --check README
compares them with the README's (tests/suite_serve_latency.sh).

usage: python3 validation/serve_latency_check.py [--ridge build/ridge] [--jobs 2]
       [--markdown | --check validation/README.md | --fit ENGINE | --fit-request-latency]
       [--cpu-overhead ENGINE=T]
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
from multiprocessing import Pool

HERE = os.path.dirname(os.path.abspath(__file__))
CSV = os.path.join(HERE, "serve", "latency_published.csv")
BEGIN = "<!-- serve_latency_check.py: begin -->"
END = "<!-- serve_latency_check.py: end -->"

# The rows each engine's CPU overhead is fitted on: one engine version, model, GPU
# and weight dtype per engine (every other version, model, GPU and dtype is held out).
FIT = {
    "vllm": ("", "llama-3.1-70b", "h200-sxm", "fp8"),
    "sglang": ("0.5.1.post1", "qwen3-32b", "h100-sxm", "bf16"),
    "trtllm": ("1.0.0rc3", "llama-3.1-8b", "h100-sxm", "bf16"),
}
FIT_GRID = ["0", "100us", "200us", "300us", "500us", "750us", "1ms", "1.5ms", "2ms"]
# The host time of a request outside the iteration loop (ridge serve --request-latency): one
# value for every engine, fitted on vLLM's rows (FIT["vllm"]) by the least median |TTFT error|.
REQUEST_LATENCY = "request_latency"
REQUEST_LATENCY_FIT_ENGINE = "vllm"
REQUEST_LATENCY_GRID = ["0", "10ms", "20ms", "30ms", "35ms", "40ms", "45ms", "50ms", "55ms", "60ms", "70ms", "80ms"]


def read_rows(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def is_fit(row):
    return FIT.get(row["engine"]) == (row["engine_version"], row["model"], row["gpu"], row["weights"])


def kv_assumed(row):
    """The KV-cache dtype of a row whose source does not give it: FP8 for a checkpoint
    quantized offline (its name says FP8/FP4: its quantization config turns on an FP8
    cache, as aiconfigurator's own predictor infers, helpers.py
    _infer_quant_modes_from_raw_config); else the engines' default "auto", the
    checkpoint's bf16 (online FP8 quantization of a bf16 checkpoint leaves the cache)."""
    name = row["hf_model"].upper()
    return "fp8" if "FP8" in name or "FP4" in name else "bf16"


def is_inferencemax(row):
    """The aiconfigurator rows with no engine version: Llama-3.1-70B, measured 2025-10-29.
    Their grid is InferenceMAX's 70B sweep of that day, job for job (vLLM on H100 at TP 2-8 and on
    H200 and B200 at TP 1-8, concurrency 4-64; TensorRT-LLM on H200 and B200, 4-128; ISL/OSL
    1024/1024, 1024/8192, 8192/1024), and TensorRT-LLM's 1024/1024 TTFT at TP below 8 carries the
    batch waiting only InferenceMAX's scripts turn on there (docs/sources/serving-measurements.md)."""
    return (row["source"] == "aic-silicon" and not row["engine_version"] and row["model"] == "llama-3.1-70b"
            and row["measured"] == "2025-10-29")


def inferencemax_flags(row):
    """InferenceMAX's settings for its Llama-3.3-70B runs (SemiAnalysis InferenceMAX, commit
    9596d23d of 2025-10-29, benchmarks/70b_*.sh and .github/workflows/70b-tmpl.yml): the client,
    kimbochen/bench_serving's benchmark_serving.py, sends 10 x concurrency requests with no warm-up
    (one test request before) and draws each prompt and output length uniformly from
    [int(0.8 x L), L] (--random-range-ratio 0.8); every server keeps an FP8 KV cache. vLLM 0.10.2:
    --max-num-batched-tokens 8192, --max-num-seqs the concurrency (512 on the B200). TensorRT-LLM
    1.1.0rc2.post2: --max_num_tokens 16384, CUDA graphs padded to 1024, and for 1024/1024 at TP
    below 8 batch_wait_timeout_iters 20, batch_wait_max_tokens_ratio 0.9."""
    concurrency, isl, osl, tp = int(row["concurrency"]), int(row["isl"]), int(row["osl"]), int(row["tp"])
    flags = ["--requests", str(10 * concurrency), "--warmup", "0", "--kv-dtype", "fp8",
             "--isl-dist", "uniform:%d:%d" % (int(0.8 * isl), isl),
             "--osl-dist", "uniform:%d:%d" % (int(0.8 * osl), osl)]
    if row["engine"] == "vllm":
        flags += ["--overlap-scheduling", "--max-num-batched-tokens", "8192",
                  "--max-num-seqs", "512" if row["gpu"] == "b200" else str(concurrency)]
    elif row["engine"] == "trtllm":
        flags += ["--max-num-batched-tokens", "16384", "--graph-padding", "--graph-max-batch", "1024"]
        if isl == 1024 and osl == 1024 and tp < 8:
            flags += ["--batch-wait-iters", "20", "--batch-wait-tokens-ratio", "0.9"]
    return flags


def ridge_command(ridge, row, cpu_overhead):
    model = os.path.join(HERE, "serve", "models", row["model"] + ".json")
    cmd = [ridge, "serve", "--model", model, "--gpu", row["gpu"], "--tp", row["tp"], "--engine", row["engine"],
           "--json"]
    if is_inferencemax(row):
        weights = row["weights"]
        cmd += ["--weight-dtype", weights, "--compute-dtype", weights] + inferencemax_flags(row)
        cmd += ["--concurrency", row["concurrency"]]
        return cmd + overrides(row, cpu_overhead)
    cmd += ["--isl", row["isl"], "--osl", row["osl"]]
    if row["concurrency"]:
        cmd += ["--concurrency", row["concurrency"]]
    else:
        cmd += ["--rate", row["rate"]]
    if row["num_prompts"]:
        cmd += ["--requests", row["num_prompts"], "--warmup", "0"]
    weights = row["weights"]
    if weights in ("fp8", "fp4"):
        cmd += ["--weight-dtype", weights, "--compute-dtype", weights, "--kv-dtype", row["kv"] or kv_assumed(row)]
    elif row["kv"]:
        cmd += ["--kv-dtype", row["kv"]]
    concurrency = int(row["concurrency"] or 0)
    isl = int(row["isl"])
    if row["engine"] == "trtllm" and isl + concurrency > 8192:
        cmd += ["--max-num-batched-tokens", str((concurrency + isl + 1500 + 31) // 32 * 32)]
    return cmd + overrides(row, cpu_overhead)


def overrides(row, given):
    """--cpu-overhead for the row's engine and --request-latency for every engine where
    `given` names them ({engine: T, REQUEST_LATENCY: T})."""
    flags = []
    if row["engine"] in given:
        flags += ["--cpu-overhead", given[row["engine"]]]
    if REQUEST_LATENCY in given:
        flags += ["--request-latency", given[REQUEST_LATENCY]]
    return flags


def measured(row, metric):
    """(value in SI, statistic name) of TTFT or TPOT, ms in the CSV."""
    for column, stat in ((metric + "_mean_ms", "mean"), (metric + "_p50_ms", "p50"), (metric + "_ms", "mean")):
        if row.get(column):
            return float(row[column]) / 1e3, stat
    return None, None


def simulate(job):
    ridge, row, cpu_overhead = job
    out = subprocess.run(ridge_command(ridge, row, cpu_overhead), capture_output=True, text=True)
    if out.returncode != 0:
        return row, None, out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "exit %d" % out.returncode
    doc = json.loads(out.stdout)
    errors = {}
    for metric in ("ttft", "tpot"):
        value, stat = measured(row, metric)
        if value:
            errors[metric] = doc["%s_%s_s" % (metric, stat)] / value - 1
    # the whole request, TTFT + (osl - 1) x TPOT, where both are given as the same statistic
    (ttft, ts), (tpot, ps) = measured(row, "ttft"), measured(row, "tpot")
    if ttft and tpot and ts == ps:
        n = float(row["osl"]) - 1
        errors["e2e"] = (doc["ttft_%s_s" % ts] + n * doc["tpot_%s_s" % ps]) / (ttft + n * tpot) - 1
    if row["output_tok_s"]:
        errors["throughput"] = doc["output_tokens_per_s"] / float(row["output_tok_s"]) - 1
    return row, {"doc": doc, "errors": errors}, ""


def run_all(ridge, rows, cpu_overhead, jobs):
    work = [(ridge, row, cpu_overhead) for row in rows]
    if jobs <= 1:
        return [simulate(job) for job in work]
    with Pool(jobs) as pool:
        return pool.map(simulate, work)


def median_abs(values):
    return statistics.median(abs(v) for v in values) if values else None


def percent(v, signed=False):
    if v is None:
        return "-"
    return ("%+.1f %%" if signed else "%.1f %%") % (100 * v)


INFERENCEMAX_LABEL = "unstated (InferenceMAX)"


def group_key(row):
    version = INFERENCEMAX_LABEL if is_inferencemax(row) else row["engine_version"] or "unstated"
    return (row["engine"], version, row["model"], row["gpu"], row["weights"])


def summarize(results):
    """Per engine: groups (engine, version, model, GPU, weights) and the held-out total."""
    groups = {}
    failures = []
    for row, result, why in results:
        if result is None:
            failures.append((row, why))
            continue
        g = groups.setdefault(group_key(row), {"fit": is_fit(row), "ttft": [], "tpot": [], "e2e": [],
                                               "throughput": []})
        for metric, error in result["errors"].items():
            g[metric].append(error)
    return groups, failures


def band(values):
    """(P10, P90) of the signed errors, numpy's linear interpolation."""
    q = statistics.quantiles(values, n=10, method="inclusive")
    return q[0], q[8]


def held_out_errors(groups, engine):
    """The engine's held-out signed errors: {metric: [prediction / measurement - 1, ...]}."""
    errors = {"tpot": [], "ttft": [], "e2e": []}
    for key, g in groups.items():
        if key[0] == engine and not g["fit"]:
            for metric in errors:
                errors[metric] += g[metric]
    return errors


def held_out(groups):
    """Per engine: (held-out runs, TPOT, TTFT and E2E median |error|)."""
    out = {}
    for engine in sorted({k[0] for k in groups}):
        e = held_out_errors(groups, engine)
        out[engine] = (len(e["tpot"]), median_abs(e["tpot"]), median_abs(e["ttft"]), median_abs(e["e2e"]))
    return out


def check_trust(ridge, groups):
    """ridge serve's `validation` block (app/view/serve_view.c) must say what this
    script computes: the held-out runs and medians, to 0.1 %. Returns the mismatches."""
    bad = []
    for engine, (runs, tpot, ttft, e2e) in held_out(groups).items():
        cmd = [ridge, "serve", "--model", os.path.join(HERE, "serve", "models", "llama-3.1-8b.json"), "--gpu",
               "h100-sxm", "--isl", "128", "--osl", "8", "--concurrency", "1", "--requests", "1", "--warmup", "0",
               "--engine", engine, "--json"]
        out = subprocess.run(cmd, capture_output=True, text=True)
        v = json.loads(out.stdout).get("validation", {}) if out.returncode == 0 else {}
        want = {"held_out_runs": runs, "tpot_median_abs_error": round(tpot, 3),
                "ttft_median_abs_error": round(ttft, 3), "e2e_median_abs_error": round(e2e, 3)}
        errors = held_out_errors(groups, engine)
        for metric in ("tpot", "ttft", "e2e"):
            lo, hi = band(errors[metric])
            want[metric + "_error_p10"] = round(lo, 3)
            want[metric + "_error_p90"] = round(hi, 3)
        got = {k: v.get(k) for k in want}
        if any(got[k] is None or abs(got[k] - want[k]) > 1e-9 for k in want):
            bad.append("%s: ridge serve says %s, the rows give %s (app/view/serve_view.c, engine_validation)"
                       % (engine, got, want))
        # each *_range_s key is [prediction / (1 + P90), prediction / (1 + P10)] of its own statistic
        doc = json.loads(out.stdout) if out.returncode == 0 else {}
        for metric in ("tpot", "ttft", "e2e"):
            for stat in ("mean", "p50"):
                pred, pair = doc.get("%s_%s_s" % (metric, stat)), doc.get("%s_%s_range_s" % (metric, stat))
                lo, hi = v.get(metric + "_error_p90"), v.get(metric + "_error_p10")
                ok = (pred is not None and isinstance(pair, list) and len(pair) == 2 and lo is not None and
                      hi is not None and abs(pair[0] - pred / (1 + lo)) <= 1e-12 * pred and
                      abs(pair[1] - pred / (1 + hi)) <= 1e-12 * pred)
                if not ok:
                    bad.append("%s: %s_%s_range_s is %s, not the prediction %s / (1 + P90, 1 + P10 of %s, %s)"
                               % (engine, metric, stat, pair, pred, lo, hi))
    return bad


def markdown(groups, failures):
    lines = []
    for engine in sorted({k[0] for k in groups}):
        lines.append("")
        lines.append("**%s**" % engine)
        lines.append("")
        lines.append("| version | model | GPU | weights | rows | TTFT median \\|error\\| | TTFT median error "
                     "| TPOT median \\|error\\| | TPOT median error | E2E median \\|error\\| | |")
        lines.append("|---|---|---|---|---:|---:|---:|---:|---:|---:|---|")
        held = {"ttft": [], "tpot": [], "e2e": []}
        known = {"ttft": [], "tpot": [], "e2e": []}  # held out, run with their own setup (InferenceMAX's)
        for key in sorted(k for k in groups if k[0] == engine):
            g = groups[key]
            if not g["fit"]:
                for metric in held:
                    held[metric] += g[metric]
                    if key[1] == INFERENCEMAX_LABEL:
                        known[metric] += g[metric]
            lines.append("| %s | %s | %s | %s | %d | %s | %s | %s | %s | %s | %s |" % (
                key[1], key[2], key[3], key[4], len(g["tpot"]), percent(median_abs(g["ttft"])),
                percent(statistics.median(g["ttft"]) if g["ttft"] else None, True), percent(median_abs(g["tpot"])),
                percent(statistics.median(g["tpot"]) if g["tpot"] else None, True), percent(median_abs(g["e2e"])),
                "fitted (CPU overhead)" if g["fit"] else "held out"))
        lines.append("| **held out** | | | | %d | **%s** | %s | **%s** | %s | **%s** | |" % (
            len(held["tpot"]), percent(median_abs(held["ttft"])),
            percent(statistics.median(held["ttft"]) if held["ttft"] else None, True),
            percent(median_abs(held["tpot"])),
            percent(statistics.median(held["tpot"]) if held["tpot"] else None, True), percent(median_abs(held["e2e"]))))
        if known["tpot"]:
            lines.append("| of them, setup known (InferenceMAX's) | | | | %d | %s | %s | %s | %s | %s | |" % (
                len(known["tpot"]), percent(median_abs(known["ttft"])), percent(statistics.median(known["ttft"]), True),
                percent(median_abs(known["tpot"])), percent(statistics.median(known["tpot"]), True),
                percent(median_abs(known["e2e"]))))
        lines.append("")
        lines.append("Held out, P10 to P90 of the error (ridge serve's `*_range_s` keys): " + ", ".join(
            "%s %s to %s" % (name, percent(band(held[metric])[0], True), percent(band(held[metric])[1], True))
            for metric, name in (("ttft", "TTFT"), ("tpot", "TPOT"), ("e2e", "E2E"))) + ".")
    if failures:
        lines.append("")
        lines.append("Rows ridge could not run: %d" % len(failures))
    return "\n".join(lines).lstrip("\n") + "\n"


def print_rows(results):
    print("%-58s %9s %9s %7s  %8s %8s %7s" % ("row", "ttft ms", "ridge", "error", "tpot ms", "ridge", "error"))
    for row, result, why in results:
        label = "%s %s %s %s %s tp%s %s/%s c%s" % (row["engine"], row["engine_version"] or "-", row["model"],
                                                  row["gpu"], row["weights"], row["tp"], row["isl"], row["osl"],
                                                  row["concurrency"] or "r" + row["rate"])
        if is_fit(row):
            label += " *"
        if result is None:
            print("%-58s %s" % (label, why))
            continue
        cells = []
        for metric in ("ttft", "tpot"):
            value, stat = measured(row, metric)
            if value is None:
                cells.append("%9s %9s %7s" % ("-", "-", "-"))
                continue
            predicted = result["doc"]["%s_%s_s" % (metric, stat)]
            cells.append("%9.2f %9.2f %+6.0f%%" % (value * 1e3, predicted * 1e3, 100 * result["errors"][metric]))
        print("%-58s %s  %s" % (label, cells[0], cells[1]))
    print("(* the rows the engine's CPU overhead is fitted on)")


def grid_errors(ridge, chosen, jobs, grid, given_of):
    """(value, TPOT errors, TTFT errors) of the chosen rows for each value of a grid."""
    for value in grid:
        groups, _ = summarize(run_all(ridge, chosen, given_of(value), jobs))
        yield (value, [e for g in groups.values() for e in g["tpot"]],
               [e for g in groups.values() for e in g["ttft"]])


def fit(ridge, rows, engine, jobs):
    chosen = [row for row in rows if row["engine"] == engine and is_fit(row)]
    if not chosen:
        print("no fitting rows for engine '%s' (known: %s)" % (engine, " ".join(sorted(FIT))))
        return 2
    print("%s: %d rows (version %s, %s on %s, %s weights)" % (engine, len(chosen), *FIT[engine]))
    best = None
    for value, tpot, ttft in grid_errors(ridge, chosen, jobs, FIT_GRID, lambda v: {engine: v}):
        score = median_abs(tpot)
        print("  --cpu-overhead %-6s TPOT median |error| %s (median error %s), TTFT %s" % (
            value, percent(score), percent(statistics.median(tpot), True), percent(median_abs(ttft))))
        if best is None or score < best[1]:
            best = (value, score)
    print("best: %s" % best[0])
    return 0


def fit_request_latency(ridge, rows, jobs):
    engine = REQUEST_LATENCY_FIT_ENGINE
    chosen = [row for row in rows if row["engine"] == engine and is_fit(row)]
    print("request latency, every engine: fitted on %s's %d rows (version %s, %s on %s, %s weights)" % (
        engine, len(chosen), *FIT[engine]))
    best = None
    for value, _, ttft in grid_errors(ridge, chosen, jobs, REQUEST_LATENCY_GRID, lambda v: {REQUEST_LATENCY: v}):
        score = median_abs(ttft)
        print("  --request-latency %-5s TTFT median |error| %s (median error %s)" % (
            value, percent(score), percent(statistics.median(ttft), True)))
        if best is None or score < best[1]:
            best = (value, score)
    print("best: %s" % best[0])
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ridge", default=os.path.join(HERE, "..", "build", "ridge"))
    ap.add_argument("--csv", default=CSV)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--check")
    ap.add_argument("--fit")
    ap.add_argument("--fit-request-latency", action="store_true")
    ap.add_argument("--cpu-overhead", action="append", default=[])
    args = ap.parse_args()
    rows = read_rows(args.csv)
    cpu_overhead = dict(item.split("=", 1) for item in args.cpu_overhead)
    if args.fit:
        return fit(args.ridge, rows, args.fit, args.jobs)
    if args.fit_request_latency:
        return fit_request_latency(args.ridge, rows, args.jobs)
    results = run_all(args.ridge, rows, cpu_overhead, args.jobs)
    groups, failures = summarize(results)
    text = markdown(groups, failures)
    if args.markdown:
        sys.stdout.write(text)
        return 0
    if args.check:
        readme = open(args.check).read()
        if BEGIN not in readme or END not in readme:
            print("no %s ... %s table in %s" % (BEGIN, END, args.check))
            return 1
        recorded = readme.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n") + "\n"
        if recorded != text:
            print("the README's serving-latency tables differ from ridge serve; regenerate them "
                  "(python3 validation/serve_latency_check.py --markdown):")
            for a, b in zip(recorded.splitlines(), text.splitlines()):
                if a != b:
                    print("  README: " + a + "\n  ridge:  " + b)
                    break
            return 1
        trust = check_trust(args.ridge, groups)
        for line in trust:
            print(line)
        if trust:
            return 1
        for row, why in failures:
            print("ridge serve rejects %s: %s" % (row["row"], why))
        print("serve latency: %d rows, %d table lines match the README" % (len(rows), text.count("\n")))
        return 1 if failures else 0
    print_rows(results)
    print()
    sys.stdout.write(text)
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
