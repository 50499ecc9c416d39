#!/usr/bin/env python3
"""Replays measured decode steps and prefills through ridge and compares.

Usage:
  python3 validation/decode_replay.py RIDGE FIXTURE.json CALIBRATION.yaml          # prints the table
  python3 validation/decode_replay.py RIDGE FIXTURE.json CALIBRATION.yaml --check README.md
      # exit 1 unless README.md holds exactly this table between the markers
      # <!-- decode-replay:begin --> and <!-- decode-replay:end -->

FIXTURE is validation/heldout/decode_step.py's JSON (tests/fixtures/decode_h200.json).
Each case is predicted by `ridge cost decode --model` (or `cost prefill`) on the
H200 entry with the calibration, in the case's launch mode, with the kernels per
layer the profiler counted for that model, phase and mode. Nothing is fitted to
these cases: the calibration and the hwdb entry's timing section come from other
measurements.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

BEGIN, END = "<!-- decode-replay:begin -->", "<!-- decode-replay:end -->"
STEP_KERNELS = 4  # ridge's own kernels outside the layers: embedding, final norm, LM head, argmax


def kernels_per_layer(fixture, model, phase, mode, layers):
    counts = fixture.get("kernels_per_step", {}).get(f"{model}/{phase}/{mode}", {})
    if "kernels" not in counts:
        return None
    return max(1, round((counts["kernels"] - STEP_KERNELS) / layers))


def predict(ridge, cfg_path, case, calibration, k):
    phase = case["phase"]
    if phase == "decode":
        args = ["cost", "decode", "--context", str(case["context"])]
    else:
        args = ["cost", "prefill", "--seq", str(case["seq"])]
    args += ["--model", cfg_path, "--batch", str(case["batch"]), "--gpus", "1", "--gpu", "h200-sxm",
             "--calibration", calibration, "--launch", case["mode"], "--json"]
    if k is not None:
        args += ["--kernels-per-layer", str(k)]
    out = subprocess.run([ridge] + args, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"ridge {' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
    r = json.loads(out.stdout)
    key = "tpot" if phase == "decode" else "ttft"
    return r[key + "_s"], r[key + "_floor_s"], r["kernels_per_step"]


def table(ridge, fixture_path, calibration):
    fixture = json.load(open(fixture_path))
    rows, errors = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for name, cfg in fixture["configs"].items():
            paths[name] = os.path.join(tmp, name + ".json")
            with open(paths[name], "w") as f:
                json.dump(cfg, f)
        for case in fixture["cases"]:
            if "error" in case:
                continue
            cfg = fixture["configs"][case["model"]]
            k = kernels_per_layer(fixture, case["model"], case["phase"], case["mode"], cfg["num_hidden_layers"])
            pred, floor, kernels = predict(ridge, paths[case["model"]], case, calibration, k)
            meas = case["median_s"]
            err = (pred - meas) / meas
            size = case.get("context", case.get("seq"))
            rows.append((case["model"], case["phase"], case["mode"], case["batch"], size, pred, floor, meas, err,
                         kernels))
            errors.setdefault((case["model"], case["phase"], case["mode"]), []).append(abs(err))
    lines = ["| model | phase | launch | batch | context / seq | kernels (ridge) | predicted ms | floor ms | "
             "measured ms | error |", "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for m, ph, mode, b, size, pred, floor, meas, err, kernels in rows:
        lines.append(f"| {m} | {ph} | {mode} | {b} | {size} | {kernels:.0f} | {pred * 1e3:.3f} | {floor * 1e3:.3f} | "
                     f"{meas * 1e3:.3f} | {err * 100:+.1f}% |")
    lines.append("")
    lines.append("| group | cases | median \\|error\\| | max \\|error\\| |")
    lines.append("|---|---:|---:|---:|")
    for (m, ph, mode), errs in errors.items():
        lines.append(f"| {m} {ph} {mode} | {len(errs)} | {statistics.median(errs) * 100:.1f}% | "
                     f"{max(errs) * 100:.1f}% |")
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    ridge, fixture, calibration = sys.argv[1:4]
    text = table(ridge, fixture, calibration)
    if "--check" not in sys.argv:
        sys.stdout.write(text)
        return 0
    readme = open(sys.argv[sys.argv.index("--check") + 1]).read()
    if BEGIN not in readme or END not in readme:
        print(f"no {BEGIN} ... {END} table in the README")
        return 1
    recorded = readme.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n") + "\n"
    if recorded != text:
        print("the README's decode table differs from the replay; regenerate it:")
        for a, b in zip(recorded.splitlines(), text.splitlines()):
            if a != b:
                print("  README: " + a + "\n  replay: " + b)
                break
        return 1
    print(f"decode replay: {text.count(chr(10))} lines match the README")
    return 0


if __name__ == "__main__":
    sys.exit(main())
