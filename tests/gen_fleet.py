#!/usr/bin/env python3
"""A synthetic fleet of ridge-probe results, for ridge fleet's tests and bench.

Every file is a real H200 result (tests/fixtures/probe_h200.json, by default)
as `ridge-probe --out-dir` writes it (the occupancy table left out, a
"placement" added), each GPU's numbers moved by a seeded uniform noise of
+-NOISE, and some GPUs made slow on purpose, so that a test knows which must
be flagged:

  --hbm-degraded K     K GPUs (on healthy hosts) with every HBM kernel 8 % slower
                       (a degraded HBM stack): hbm_* ceilings x 0.92
  --throttled-hosts K  K hosts whose every GPU runs at 0.88 x the SM clock (a
                       power or cooling cap): every ceiling but HBM's, the SM
                       clock and the pointer-chase latencies (x 1/0.88) move,
                       power drops to 0.8 x

--manifest FILE writes what was degraded: {"gpus": {file: [ceilings]},
"hosts": {host: [ceilings]}}: exactly what ridge fleet (5 % threshold, noise
at most 1.5 %) must flag. --trim keeps only the members ridge fleet reads
(small files for the golden tests).

usage: gen_fleet.py OUT_DIR --gpus N [--per-host 8] [--seed 1] [--noise 0.015]
                    [--hbm-degraded 1] [--throttled-hosts 1] [--trim]
                    [--source FILE] [--manifest FILE]
"""
import argparse
import copy
import hashlib
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
READ_BY_FLEET = ("tool", "version", "date", "device", "ceilings", "launch", "latency", "placement")
HBM_FACTOR = 0.92
THROTTLE = 0.88
LATENCY_LEVELS = {"L1": "latency_l1", "shared memory": "latency_smem", "L2": "latency_l2", "HBM": "latency_hbm"}


def throttled_ceilings(doc):
    names = [c["name"] for c in doc["ceilings"] if c.get("measured") is not None and not c["name"].startswith("hbm_")]
    levels = {p["level"] for p in doc.get("latency", {}).get("points", [])}
    return names + ["sm_clock"] + [m for level, m in LATENCY_LEVELS.items() if level in levels]


def hbm_ceilings(doc):
    return [c["name"] for c in doc["ceilings"] if c.get("measured") is not None and c["name"].startswith("hbm_")]


def one_gpu(base, rng, noise, host, index, hbm_degraded, throttled):
    def jitter():
        return 1 + rng.uniform(-noise, noise)

    device = copy.deepcopy(base["device"])
    ceilings = copy.deepcopy(base["ceilings"])
    clock = 1.0 + rng.uniform(-noise, noise) * 0.2 if not throttled else THROTTLE
    power = jitter() * (0.8 if throttled else 1)
    for c in ceilings:
        if c.get("measured") is None:
            continue
        factor = jitter()
        if throttled and not c["name"].startswith("hbm_"):
            factor *= THROTTLE
        if hbm_degraded and c["name"].startswith("hbm_"):
            factor *= HBM_FACTOR
        c["measured"] *= factor
        if c.get("spec"):
            c["fraction_of_spec"] = c["measured"] / c["spec"]
        if c.get("clock_mhz") is not None:
            c["clock_mhz"] = round(c["clock_mhz"] * clock, 1)
        if c.get("power_w") is not None:
            c["power_w"] = round(c["power_w"] * power, 3)
    launch = copy.deepcopy(base.get("launch", {}))
    for key in ("launch_us", "graph_node_us"):
        if key in launch:
            launch[key] *= jitter()
    latency = copy.deepcopy(base.get("latency", {}))
    for p in latency.get("points", []):
        p["seconds"] *= jitter() / (THROTTLE if throttled else 1)
    # The same GPU has the same UUID in every run generated (runs compared by DIR2).
    h = hashlib.sha256(("%s-%d" % (host, index)).encode()).hexdigest()
    uuid = "GPU-%s-%s-%s-%s-%s" % (h[0:8], h[8:12], h[12:16], h[16:20], h[20:32])
    placement = {"launcher": "slurm", "rank": None, "local_rank": index, "node_rank": None, "world_size": None,
                 "host": host, "device": index, "gpu_index": index, "uuid": uuid}
    return {"device": device, "ceilings": ceilings, "launch": launch, "latency": latency, "placement": placement}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--gpus", type=int, required=True)
    ap.add_argument("--per-host", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--noise", type=float, default=0.015)
    ap.add_argument("--hbm-degraded", type=int, default=1)
    ap.add_argument("--throttled-hosts", type=int, default=1)
    ap.add_argument("--trim", action="store_true")
    ap.add_argument("--source", default=os.path.join(HERE, "fixtures", "probe_h200.json"))
    ap.add_argument("--manifest")
    args = ap.parse_args()
    hosts = (args.gpus + args.per_host - 1) // args.per_host
    if args.throttled_hosts + (1 if args.hbm_degraded else 0) > hosts and args.hbm_degraded:
        sys.exit("gen_fleet.py: too few hosts for the degraded GPUs asked for")
    with open(args.source) as f:
        base = json.load(f)
    base.pop("occupancy", None)  # as ridge-probe --out-dir writes
    rest = {k: v for k, v in base.items() if k not in READ_BY_FLEET[3:]}
    if args.trim:
        rest = {k: v for k, v in rest.items() if k in READ_BY_FLEET}
    rest_text = json.dumps(rest, indent="\t")[1:-2]  # its members, without the braces
    rng = random.Random(args.seed)
    host_names = ["node%04d" % h for h in range(hosts)]
    throttled = set(rng.sample(range(hosts), args.throttled_hosts))
    healthy = [g for g in range(args.gpus) if g // args.per_host not in throttled]
    hbm = set(rng.sample(healthy, args.hbm_degraded))
    manifest = {"gpus": {}, "hosts": {}}
    os.makedirs(args.out_dir, exist_ok=True)
    for g in range(args.gpus):
        host, index = host_names[g // args.per_host], g % args.per_host
        name = "%s-gpu%d.json" % (host, index)
        part = one_gpu(base, rng, args.noise, host, index, g in hbm, g // args.per_host in throttled)
        if args.trim:  # what ridge fleet does not read: the methods, the sources, the cycles
            for c in part["ceilings"]:
                for key in ("method", "spec_source", "verify_error", "shape"):
                    c.pop(key, None)
            part["latency"] = {"points": [p for p in part["latency"].get("points", [])
                                          if p["level"] in LATENCY_LEVELS]}
        text = "{" + rest_text + ",\n" + json.dumps(part, indent="\t")[2:] + "\n"
        with open(os.path.join(args.out_dir, name), "w") as f:
            f.write(text)
        if g in hbm:
            manifest["gpus"][name] = sorted(hbm_ceilings(base))
        if g // args.per_host in throttled:
            manifest["gpus"][name] = sorted(throttled_ceilings(base))
    for h in throttled:
        if args.per_host >= 2:
            manifest["hosts"][host_names[h]] = sorted(throttled_ceilings(base))
    if args.manifest:
        with open(args.manifest, "w") as f:
            json.dump(manifest, f, indent=1, sort_keys=True)
            f.write("\n")


if __name__ == "__main__":
    main()
