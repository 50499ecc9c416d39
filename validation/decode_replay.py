#!/usr/bin/env python3
"""Replays measured decode steps and prefills through ridge and compares.

Usage:
  python3 validation/decode_replay.py RIDGE FIXTURE.json CALIBRATION.yaml [FIXTURE.json CALIBRATION.yaml ...]
      # prints the table
  python3 validation/decode_replay.py RIDGE FIXTURE.json CALIBRATION.yaml ... --check README.md
      # exit 1 unless README.md holds exactly this table between the markers
      # <!-- decode-replay:begin --> and <!-- decode-replay:end -->
  python3 validation/decode_replay.py RIDGE FIXTURE.json CALIBRATION.yaml --fit-framework
      # the eager host cost per kernel (launch.framework_overhead) that each
      # host-bound case of the fitting set implies, and their median

Each FIXTURE is validation/heldout/decode_step.py's JSON from one lease
(tests/fixtures/decode_h200.json, tests/fixtures/decode_h200_lease3.json), each
judged with the calibration ridge-probe wrote on that same lease. Each case is
predicted by `ridge cost decode --model` (or `cost prefill`) on the H200 entry
with the calibration, in the case's launch mode, with the kernels per layer the
profiler counted for that model, phase and mode.

Which cases a constant may be fitted to (the column "set"):
  fit       the first lease's dense decode at batch 1 and 32 and its prefills of
            512 and 8192 tokens: launch.framework_overhead is the median of what
            its host-bound eager cases imply (--fit-framework)
  judge     the first lease's other cases (batch 8 and 64, prefills of 2048 and
            16384 tokens, the MoE): nothing is fitted to them
  held-out  a fixture whose cases say "set": "held-out" (a later lease's new
            shapes): measured after every constant was fixed
The power limit's constants come from other measurements (ridge-probe
--sustained, kernels.py's loops: validation/power_limit.py), the kernel classes'
efficiencies and fixed costs from kernels.py's isolated kernels.
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


def case_set(case):
    """fit, judge or held-out (the module's docstring)."""
    if "set" in case:
        return case["set"]
    if case["model"] != "dense":
        return "judge"
    if case["phase"] == "decode":
        return "fit" if case["batch"] in (1, 32) else "judge"
    return "fit" if case["seq"] in (512, 8192) else "judge"


def predict(ridge, cfg_path, case, calibration, k):
    r = predict_doc(ridge, cfg_path, case, calibration, k)
    key = "tpot" if case["phase"] == "decode" else "ttft"
    return r[key + "_s"], r[key + "_floor_s"], r["kernels_per_step"]


def predict_doc(ridge, cfg_path, case, calibration, k):
    """ridge's JSON for one case (validation/time_ranges.py reads its ranges)."""
    phase = case["phase"]
    if phase == "decode":
        args = ["cost", "decode", "--context", str(case["context"])]
    else:
        args = ["cost", "prefill", "--seq", str(case["seq"])]
    args += ["--model", cfg_path, "--batch", str(case["batch"]), "--gpus", "1", "--gpu", "h200-sxm",
             "--calibration", calibration, "--launch", case["mode"], "--json"]
    if k is not None:
        args += ["--kernels-per-layer", str(k)]
    if phase == "decode":
        # decode_step.py folds the query group into the query axis: one CTA per
        # request x KV head, the per-head implementation (ridge's default is split-kv)
        args += ["--impl", "per-head"]
    if case["model"] == "moe":
        # decode_step.py's MoE is transformers' MixtralSparseMoeBlock: one loop over
        # the experts, a GEMM launch each (ridge's default is one grouped GEMM)
        args += ["--moe-impl", "loop"]
    out = subprocess.run([ridge] + args, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"ridge {' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def cases(fixture_path, tmp):
    """(case, config path, kernels per layer) of a fixture's measured cases."""
    fixture = json.load(open(fixture_path))
    paths = {}
    for name, cfg in fixture["configs"].items():
        paths[name] = os.path.join(tmp, f"{os.path.basename(fixture_path)}-{name}.json")
        with open(paths[name], "w") as f:
            json.dump(cfg, f)
    for case in fixture["cases"]:
        if "error" in case:
            continue
        cfg = fixture["configs"][case["model"]]
        k = kernels_per_layer(fixture, case["model"], case["phase"], case["mode"], cfg["num_hidden_layers"])
        yield case, paths[case["model"]], k


def table(ridge, pairs):
    rows, errors = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for fixture_path, calibration in pairs:
            for case, cfg_path, k in cases(fixture_path, tmp):
                pred, floor, kernels = predict(ridge, cfg_path, case, calibration, k)
                meas = case["median_s"]
                err = (pred - meas) / meas
                size = case.get("context", case.get("seq"))
                s = case_set(case)
                rows.append((s, case["model"], case["phase"], case["mode"], case["batch"], size, pred, floor, meas,
                             err, kernels))
                key = (case["model"], case["phase"], case["mode"])
                for group in (("all",) + key, (s,) + key):
                    errors.setdefault(group, []).append(abs(err))
                errors.setdefault((s, "all", case["phase"], case["mode"]), []).append(abs(err))
    lines = ["| set | model | phase | launch | batch | context / seq | kernels (ridge) | predicted ms | floor ms | "
             "measured ms | error |", "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for s, m, ph, mode, b, size, pred, floor, meas, err, kernels in rows:
        lines.append(f"| {s} | {m} | {ph} | {mode} | {b} | {size} | {kernels:.0f} | {pred * 1e3:.3f} | "
                     f"{floor * 1e3:.3f} | {meas * 1e3:.3f} | {err * 100:+.1f}% |")
    lines.append("")
    lines.append("| set | group | cases | median \\|error\\| | max \\|error\\| |")
    lines.append("|---|---|---:|---:|---:|")
    order = {"fit": 0, "judge": 1, "held-out": 2, "all": 3}
    for (s, m, ph, mode), errs in sorted(errors.items(), key=lambda kv: (order.get(kv[0][0], 9), kv[0][1] == "all",
                                                                          list(errors).index(kv[0]))):
        lines.append(f"| {s} | {m} {ph} {mode} | {len(errs)} | {statistics.median(errs) * 100:.1f}% | "
                     f"{max(errs) * 100:.1f}% |")
    return "\n".join(lines) + "\n"


def with_framework_overhead(calibration, seconds, tmp):
    """A copy of the calibration with launch.framework_overhead set."""
    text = open(calibration).read()
    lines = [l for l in text.splitlines() if not l.strip().startswith(("framework_overhead:", "framework_source:"))]
    out = []
    for l in lines:
        out.append(l)
        if l.startswith("launch:"):
            out.append(f"  framework_overhead: {seconds!r} s")
    path = os.path.join(tmp, "fit.yaml")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    return path


def fit_framework(ridge, fixture_path, calibration):
    """Per host-bound eager case of the fitting set, the host cost per kernel
    at which ridge's eager simulation gives the measured time (bisection: the
    prediction grows with it); their median."""
    implied = []
    with tempfile.TemporaryDirectory() as tmp:
        for case, cfg_path, k in cases(fixture_path, tmp):
            if case_set(case) != "fit" or case["mode"] != "eager":
                continue
            graph_like, _, kernels = predict(ridge, cfg_path, case,
                                             with_framework_overhead(calibration, 1e-8, tmp), k)
            if graph_like > 0.8 * case["median_s"]:
                print(f"  {case['phase']} b{case['batch']} {case.get('context', case.get('seq'))}: GPU-bound "
                      f"({graph_like * 1e3:.3f} ms of GPU work, {case['median_s'] * 1e3:.3f} ms measured): no host cost to fit")
                continue
            lo, hi = 1e-7, 1e-3
            for _ in range(60):
                mid = (lo + hi) / 2
                pred, _, _ = predict(ridge, cfg_path, case, with_framework_overhead(calibration, mid, tmp), k)
                lo, hi = (mid, hi) if pred < case["median_s"] else (lo, mid)
            implied.append(lo)
            print(f"  {case['phase']} b{case['batch']} {case.get('context', case.get('seq'))}: "
                  f"{case['median_s'] * 1e3:.3f} ms over {kernels:.0f} kernels -> {lo * 1e6:.3f} us per kernel")
    print(f"median of {len(implied)}: {statistics.median(implied) * 1e6:.3f} us per kernel")
    return 0


def main():
    argv = sys.argv[1:]
    check = None
    if "--check" in argv:
        i = argv.index("--check")
        check = argv[i + 1]
        del argv[i:i + 2]
    fit = "--fit-framework" in argv
    argv = [a for a in argv if a != "--fit-framework"]
    if len(argv) < 3 or len(argv) % 2 == 0:
        print(__doc__)
        return 2
    ridge, pairs = argv[0], list(zip(argv[1::2], argv[2::2]))
    if fit:
        return fit_framework(ridge, *pairs[0])
    text = table(ridge, pairs)
    if check is None:
        sys.stdout.write(text)
        return 0
    readme = open(check).read()
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
