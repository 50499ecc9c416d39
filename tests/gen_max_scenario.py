#!/usr/bin/env python3
"""Writes the largest valid scenario ridge accepts (tests/README.md, "Limits"):
MAX_SCENARIO_ITEMS items, cycling through the item kinds of the examples
(align, launch, cost, occupancy, gemm, roofline) with varied inputs, under the
4 MiB byte limit. usage: gen_max_scenario.py OUT [ITEMS]"""
import sys

out = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
kinds = [
    "kind: launch\n    kernels_per_layer: {k}\n    layers: 80\n    launch_us: 5\n    step_ms: 25\n",
    "kind: align\n    dtype: bf16\n    dims: [{b}, 4096, 11008]\n",
    "kind: occupancy\n    threads: 256\n    regs: {r}\n    smem: 16KiB\n",
    "kind: gemm\n    m: {b}\n    n: 4096\n    k: 4096\n    dtype: bf16\n",
    "kind: roofline\n    flops: {a}T\n    bytes: 550GB\n",
    "kind: cost-train\n    params: 70e9\n    seq: 4096\n    batch: 2048\n    steps: 1M\n    gpus: 512\n    mfu: 40%\n",
]
with open(out, "w") as f:
    f.write("scenario: the largest valid scenario\ngpu: h100-sxm\nitems:\n")
    for i in range(count):
        body = kinds[i % len(kinds)].format(a=1 + i % 97, b=1024 + 8 * (i % 500), r=16 + 8 * (i % 20), k=1 + i % 60)
        f.write("  - name: item {}\n    {}".format(i + 1, body))
