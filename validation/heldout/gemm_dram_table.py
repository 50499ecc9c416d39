"""The L2-aware GEMM traffic model against ncu's DRAM reads.

  python3 validation/heldout/gemm_dram_table.py import CAPTURE.csv >> tests/fixtures/ncu_h200_gemm_dram.csv
      CAPTURE.csv is what ncu_gemm_dram.sh printed on the H200; prints one fixture row per shape.
  python3 validation/heldout/gemm_dram_table.py table [--ridge build/ridge]
      the error table of validation/README.md ("L2-aware GEMM traffic"), every prediction made
      by `ridge roofline --gpu h200-sxm --kernel ... --json` (the model, not a copy of it).

Fixture columns: source, kernel, model (the ridge kernel that models it: gemm-naive, gemm-tiled,
gemm with the kernel's own tile, gemv, or none with the reason in `source`), dtype, m, n, k (as the
kernel sees them: cuBLAS is column-major, so torch's x (M x K) @ W^T gives cuBLAS m = N, n = M),
tile_m, tile_n (from the kernel's name; no field holds a comma), the mean of the launches' dram__bytes_read.sum,
dram__bytes_write.sum, lts__t_bytes.sum, gpu__time_duration.sum, and the number of launches.
"""
import csv
import json
import re
import subprocess
import sys

FIXTURE = "tests/fixtures/ncu_h200_gemm_dram.csv"
TILE = re.compile(r"_(\d+)x(\d+)_")


def import_capture(path):
    by_shape = {}
    order = []
    for r in csv.DictReader(open(path)):
        if r["shape"] not in by_shape:
            order.append(r["shape"])
            by_shape[r["shape"]] = []
        by_shape[r["shape"]].append(r)
    out = csv.writer(sys.stdout, lineterminator="\n")
    for name in order:
        rows = by_shape[name]
        r = max(rows, key=lambda x: float(x["time_s"]))
        m_torch, n_torch, k = int(r["m"]), int(r["n"]), int(r["k"])
        kernel = r["kernel"]
        tile = TILE.search(kernel)
        grid_z = r["grid"].strip("()").split(",")[-1].strip()
        source = "ncu_gemm_dram.sh " + name
        if len(rows) > 1:
            model, source = "none", source + ": %d kernels (split-K or a reduction); outside the model" % len(rows)
        elif grid_z not in ("", "1"):
            model, source = "none", source + ": grid z = %s (split-K); outside the model" % grid_z
        elif "gemv" in kernel.lower():
            model = "gemv"
        elif tile:
            model = "gemm"
        else:
            model, source = "none", source + ": no tile in the kernel's name"
        tm, tn = (int(tile.group(1)), int(tile.group(2))) if tile else (0, 0)
        mean = lambda key: float(r[key])  # one launch per shape: the main kernel's own counters
        # No commas inside a field: tests/unit/test_gemm_l2.c splits lines at commas.
        name_only = kernel.split("(")[0].replace("void ", "").replace(",", ";")
        out.writerow([source.replace(",", ";"), name_only, model, "bf16", n_torch, m_torch, k, tm, tn,
                      "%.0f" % mean("dram_read_bytes"), "%.0f" % mean("dram_write_bytes"),
                      "%.0f" % mean("lts_bytes"), "%.9g" % mean("time_s"), 1])


def predict(ridge, r):
    args = [ridge, "roofline", "--gpu", "h200-sxm", "--json", "--kernel", r["model"], "--dtype", r["dtype"],
            "--m", r["m"], "--n", r["n"], "--k", r["k"]]
    if r["model"] in ("gemm", "gemm-tiled"):
        args += ["--tile", "%sx%sx64" % (r["tile_m"], r["tile_n"])]
    kernel = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)["kernel"]
    hbm = kernel["hbm_bytes"] if "hbm_bytes" in kernel else kernel["compulsory_bytes"]
    write = kernel["write_bytes"]
    return hbm - write, kernel


def table(ridge):
    rows = list(csv.DictReader(open(FIXTURE)))
    print("| kernel | model | dtype | m x n x k | tile | measured DRAM reads | predicted | error | A, B reads | compulsory |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    groups = {"ridge": [], "cublas": []}
    for r in rows:
        shape = "%s x %s x %s" % (r["m"], r["n"], r["k"])
        measured = float(r["dram_read_bytes"])
        if r["model"] == "none":
            print("| %s | not modelled | %s | %s | %sx%s | %.4g GB | | | | |" % (r["kernel"], r["dtype"], shape,
                  r["tile_m"], r["tile_n"], measured / 1e9))
            continue
        predicted, k = predict(ridge, r)
        error = (predicted - measured) / measured
        l2 = k.get("l2_model")
        reads = "%.4g, %.4g" % (l2["a_reads"], l2["b_reads"]) if l2 else "1, 1"
        e = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1}[r["dtype"]]
        compulsory = e * int(r["k"]) * (int(r["m"]) + int(r["n"]))
        groups["cublas" if r["model"] in ("gemm", "gemv") else "ridge"].append(abs(error))
        print("| %s | %s | %s | %s | %sx%s | %.4g GB | %.4g GB | %+.1f%% | %s | %.4g GB |" % (
            r["kernel"], r["model"], r["dtype"], shape, r["tile_m"], r["tile_n"], measured / 1e9, predicted / 1e9,
            100 * error, reads, compulsory / 1e9))

    def median(v):
        v = sorted(v)
        return (v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2) if v else float("nan")
    every = groups["ridge"] + groups["cublas"]
    print()
    print("median |error|: %.1f%% over %d modelled cases (ridge's kernels %.1f%% over %d, cuBLAS %.1f%% over %d)" % (
        100 * median(every), len(every), 100 * median(groups["ridge"]), len(groups["ridge"]),
        100 * median(groups["cublas"]), len(groups["cublas"])))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "import":
        import_capture(sys.argv[2])
    elif len(sys.argv) >= 2 and sys.argv[1] == "table":
        table(sys.argv[3] if len(sys.argv) == 4 and sys.argv[2] == "--ridge" else "build/ridge")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
