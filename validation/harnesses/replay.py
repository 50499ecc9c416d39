#!/usr/bin/env python3
"""Replays the independent harnesses' decode steps through ridge and compares.

Usage:
  python3 validation/harnesses/replay.py RIDGE MEASUREMENTS_DIR            # prints the table
  python3 validation/harnesses/replay.py RIDGE MEASUREMENTS_DIR --check README.md
      # exit 1 unless README.md holds exactly this table between
      # <!-- harness-replay:begin --> and <!-- harness-replay:end -->
      # (--markers NAME: between <!-- NAME:begin --> and <!-- NAME:end -->)

MEASUREMENTS_DIR holds sdpa_decode.json or sdpa_decode_moe.json (harness B) and/or
hf_decode.json (harness C) from one lease and that lease's calibration.yaml
(ridge-probe --quick --out; calibration-replayed.yaml instead where the directory has one:
the lease's probe JSON replayed through this tree's ridge-probe, so that an entry's class
changed since the lease is carried as it is now). Each case is predicted by `ridge cost decode --model`
on the calibration's entry (its id) with the calibration: harness B's graph steps with --launch graph, its eager steps and
harness C's eager generate with --launch eager, harness C's compiled generate with
--launch graph; the context is the case's. Harness C runs transformers'
attention over a static cache with a mask (repeat_kv copies, then masked SDPA over
every position of the cache): --impl repeat-kv (eager) or repeat-kv-fused
(compiled: inductor's copy kernels) at the cache's length, the prompt plus the new
tokens. hf_profile.json (one process a shape) is read like hf_decode.json; its lease
ran no probe, so --calibration names another lease's (the same machine type). MoE experts take ridge's default, --moe-impl grouped: harness B
runs them as one torch._grouped_mm per projection. Nothing was fitted to any of these cases: the kernel classes come
from validation/heldout/kernels.py (2026-12-01) and the split-kv decode class
from kernel_cases.py's decode-attention kernels (fit_decode_attention.py).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

BEGIN, END = "<!-- harness-replay:begin -->", "<!-- harness-replay:end -->"


def calibration_gpu(calibration):
    """The hwdb id a calibration file measured (its `id:` line)."""
    for line in open(calibration):
        if line.startswith("id:"):
            return line.split(":", 1)[1].strip().strip('"')
    raise SystemExit(f"{calibration}: no id line")


# Harness B's decoder layer as sdpa_decode.py writes it: fused q/k/v and gate/up weights
# (--fused-projections) and one kernel per torch op (--layer-ops pytorch: RoPE as t * cos,
# neg, cat, * sin, add on q and on k; the two cache writes; SiLU and the multiply apart; 23
# kernels a dense layer, as the prefill profile of
# measurements/2026-12-06-h100-repeat-kv/sdpa_prefill.json lists them). The MoE layers'
# routing runs some forty more small ops that ridge does not price one by one.
HARNESS_B_LAYER = ["--fused-projections", "--layer-ops", "pytorch"]
# harness C runs transformers' generate: between tokens the GPU waits for its host loop
# (model/serve.c, host_loops; fitted by fit_host_loop.py on the 2026-12-06 host-gap lease's
# Llama-3-8B shapes). HOST_LOOP = [] replays without it (the table before 2026-12-06).
HOST_LOOP = ["--host-loop", "hf-generate"]


def predict_doc(ridge, cfg, context, batch, launch, calibration, impl="default", plain=False):
    """plain: harness B's layer (HARNESS_B_LAYER); impl repeat-kv*: harness C, with its host loop."""
    args = [ridge, "cost", "decode", "--model", cfg, "--context", str(context), "--batch", str(batch), "--gpus", "1",
            "--gpu", calibration_gpu(calibration), "--launch", launch, "--calibration", calibration, "--impl", impl,
            "--json"]
    if plain:
        args += HARNESS_B_LAYER
    if impl.startswith("repeat-kv"):
        args += HOST_LOOP
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def predict(ridge, cfg, context, batch, launch, calibration, impl="default", plain=False):
    return predict_doc(ridge, cfg, context, batch, launch, calibration, impl, plain)["tpot_s"]


def hf_models():
    """hf_decode.py's MODELS (the configs hf_profile.py builds), read without importing torch."""
    import ast
    tree = ast.parse(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "hf_decode.py")).read())
    def value(n):  # literals and dict(key=literal, ...) calls
        if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "dict":
            return {k.arg: value(k.value) for k in n.keywords}
        if isinstance(n, ast.Dict):
            return {value(k): value(v) for k, v in zip(n.keys, n.values)}
        return ast.literal_eval(n)

    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "MODELS":
            return value(node.value)
    raise SystemExit("hf_decode.py: no MODELS")


def lease_calibration(mdir):
    """The lease's calibration: calibration-replayed.yaml where there is one (the probe's
    JSON replayed through this tree's ridge-probe: the lease's measured ceilings, the
    entry's current classes carried), else calibration.yaml as the lease wrote it."""
    replayed = os.path.join(mdir, "calibration-replayed.yaml")
    return replayed if os.path.exists(replayed) else os.path.join(mdir, "calibration.yaml")


def rows(ridge, mdir, tmp, predict=predict, cal=None):
    cal = cal or lease_calibration(mdir)
    out = []
    for harness, name, key in (("B", "sdpa_decode.json", "configs"), ("B", "sdpa_decode_moe.json", "configs"),
                               ("C", "hf_decode.json", "configs"), ("C", "hf_profile.json", "configs")):
        if not os.path.exists(os.path.join(mdir, name)):
            continue
        doc = json.load(open(os.path.join(mdir, name)))
        if name == "hf_profile.json":  # one process a shape; hf_decode.py's models and new tokens
            doc.setdefault("configs", hf_models())
            doc.setdefault("new_tokens", 64)
        paths = {}
        for model, cfg in doc[key].items():
            paths[model] = os.path.join(tmp, f"{harness}-{model}.json")
            with open(paths[model], "w") as f:
                json.dump(cfg, f)
        for c in doc["cases"]:
            if c.get("kind") == "prefill":
                continue
            if harness == "B":
                context, measured, impl = c["context"], c["median_ms"] * 1e-3, "default"
                mode, launch = c["mode"], ("graph" if c["mode"] == "graph" else "eager")
            else:
                # transformers' masked path over the static cache: every position of
                # the cache (prompt + new tokens) is read, the tail masked out
                mode, launch = c["mode"], ("graph" if c["mode"] == "compiled" else "eager")
                context, measured = c["prompt"] + doc["new_tokens"], c["tpot_s"]
                impl = "repeat-kv-fused" if mode == "compiled" else "repeat-kv"
            # harness B loads fused q/k/v and gate/up weights (sdpa_decode.py); transformers does not
            moe = "num_local_experts" in doc[key][c["model"]]
            predicted = predict(ridge, paths[c["model"]], context, c["batch"], launch, cal, impl, harness == "B")
            out.append((harness, c["model"], "moe" if moe else "dense", mode, c["batch"], context, measured,
                        predicted))
    return out


def table(rs):
    lines = ["| harness | model | batch | context | mode | measured ms | ridge ms | error |",
             "|---|---|---|---|---|---|---|---|"]
    for h, model, _, mode, b, ctx, m, p in rs:
        lines.append(f"| {h} | {model} | {b} | {ctx} | {mode} | {m * 1e3:.3f} | {p * 1e3:.3f} | "
                     f"{(p - m) / m * 100:+.1f}% |")
    lines += ["", "| harness | kind | mode | cases | median abs error | max abs error |", "|---|---|---|---|---|---|"]
    groups = {}
    for h, _, kind, mode, _, _, m, p in rs:
        groups.setdefault((h, kind, mode), []).append(abs(p - m) / m)
    for (h, kind, mode), errs in sorted(groups.items()):
        lines.append(f"| {h} | {kind} | {mode} | {len(errs)} | {statistics.median(errs) * 100:.1f}% | "
                     f"{max(errs) * 100:.1f}% |")
    return "\n".join(lines)


def main():
    ridge, mdir = sys.argv[1], sys.argv[2]
    cal = sys.argv[sys.argv.index("--calibration") + 1] if "--calibration" in sys.argv else None
    with tempfile.TemporaryDirectory() as tmp:
        text = table(rows(ridge, mdir, tmp, cal=cal))
    if "--check" in sys.argv:
        global BEGIN, END
        if "--markers" in sys.argv:  # another table: <!-- NAME:begin --> ... <!-- NAME:end -->
            name = sys.argv[sys.argv.index("--markers") + 1]
            BEGIN, END = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
        readme = open(sys.argv[sys.argv.index("--check") + 1]).read()
        if BEGIN not in readme or END not in readme:
            raise SystemExit("the README has no harness-replay markers")
        held = readme.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n")
        if held != text:
            print("the README's harness table differs from ridge's predictions; run:\n"
                  f"  python3 validation/harnesses/replay.py {ridge} {mdir}")
            sys.exit(1)
        print(f"harness replay: {len(text.splitlines())} lines match the README")
        return
    print(text)


if __name__ == "__main__":
    main()
