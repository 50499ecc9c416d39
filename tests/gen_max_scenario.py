#!/usr/bin/env python3
"""Writes the largest valid scenarios ridge accepts (tests/README.md, "Limits").
Default: MAX_SCENARIO_ITEMS items, cycling through the item kinds of the
examples (align, launch, cost, occupancy, gemm, roofline) with varied inputs.
--nodes: as many align items of 64 dims (align's limit) as fit in
MAX_SCENARIO_NODES YAML nodes: the heaviest output per node.
usage: gen_max_scenario.py OUT [ITEMS | --nodes]"""
import sys

out = sys.argv[1]
if len(sys.argv) > 2 and sys.argv[2] == "--nodes":
    nodes, items = 7, []  # the root mapping, its keys and values, the items list
    per_item = 1 + 6 + 1 + 64  # mapping, 3 keys and values, the dims list, 64 dims
    while nodes + per_item <= 100000 and len(items) < 5000:
        dims = ",".join(str(1024 + 8 * ((len(items) + j) % 300)) for j in range(64))
        items.append("  - {kind: align, dtype: bf16, dims: [%s]}\n" % dims)
        nodes += per_item
    with open(out, "w") as f:
        f.write("scenario: node-heavy\ngpu: h100-sxm\nitems:\n" + "".join(items))
    sys.exit(0)
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
