#!/usr/bin/env python3
"""Training at scale (issue 30): ridge's collectives across nodes and its training-step model
against published numbers, printed as validation/README.md's tables.

Each row names its source and whether any constant was fitted to it. Nothing here runs a
GPU: the published figures are the measurements.

  collectives  nccl-tests all-reduce busbw: 16 GiB on 2 and 4 nodes of 8 x H100 with
               8 x 400 Gb/s (the figures quoted in issue 30), and NVLS on one node at
               4..8 GPUs (NVIDIA/nccl issue #1455, 8 x H100 SXM, 2-4 GiB). The NIC
               efficiency 47/50 is the NCCL maintainer's "46-48GB/s per NIC" (nccl-tests
               #290); the NVLS formula is pinned to the published 480 GB/s at 8 GPUs.
  gb200        nccl-tests all-reduce busbw on GB200 NVL72 at 4, 8, 72 GPUs of one rack, 2 and 20
               racks (Azure, a blog, CoreWeave's README); the NVLS figure is pinned to the 72-GPU
               834.57 GB/s (hwdb/gb200.yaml), the others are held out.
  korthikanti  Korthikanti et al. 2022 (arXiv 2205.05198) Tables 3 and 5: four GPT models on
               A100 80GB, seq 2048, vocabulary 51200, TP 8, selective recomputation + sequence
               parallelism ("present work") and full recomputation (MFU = present MFU x
               present time / full time). One kernel efficiency for all eight rows, fitted to
               530B present (56.0 %): the other seven are held out.
  llama3       Llama 3 Herd of Models (arXiv 2407.21783 v3) Table 4: 405B on 8k / 16k H100,
               TP 8 PP 16, 8k and 131k sequences, BF16 MFU. Kernels at ridge's own H100
               GEMM efficiency (hwdb timing.gemm 0.8593, transferred from H200
               measurements); nothing fitted to these rows.

  latency      small-message all-reduce latency by launch mode (issue 30): the sourced points of
               docs/sources/nccl-small-message-latency.md. ridge comm's device time is NCCL's tuner
               estimate; eager adds the host's enqueue, p GPUs per thread x h, as max(device, p h);
               graph adds one graph node (hwdb launch.graph_node). h is fitted here on the fit set
               (nccl-tests #123) and must equal model/comm.h's RIDGE_NCCL_HOST_ENQUEUE_S; every other
               row is held out.
  moe          expert-parallel MoE training: NVIDIA Megatron-Bridge's published BF16 GPT-OSS-120B
               rows (docs/performance-summary.md and -archive.md) priced at their layout with each
               GPU's own hwdb GEMM efficiency; nothing fitted.

Usage: train_layouts.py RIDGE
"""
import json
import subprocess
import sys

GIB = 2**30


def ridge(binary, args):
    out = subprocess.run([binary] + args + ["--json"], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"ridge {' '.join(args)}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def collectives(binary):
    print("| collective | measured busbw | predicted busbw | error | algorithm | fitted? |")
    print("|---|---|---|---|---|---|")
    rows = [
        ("all-reduce 16 GiB, 2 nodes x 8 H100, 8 x 400 Gb/s", 16, 469, "issue 30's nccl-tests figure"),
        ("all-reduce 16 GiB, 4 nodes x 8 H100, 8 x 400 Gb/s", 32, 366, "issue 30's nccl-tests figure"),
    ]
    for name, gpus, measured, _ in rows:
        d = ridge(binary, ["comm", "--gpu", "h100-sxm", "--op", "all-reduce", "--gpus", str(gpus), "--bytes",
                           "16GiB", "--network-bw", "50GB/s"])
        print(f"| {name} | {measured} GB/s | {d['busbw'] / 1e9:.0f} GB/s | {d['busbw'] / 1e9 / measured - 1:+.1%} "
              f"| {d['algorithm']} ({d['path']}) | no |")
    nvls = {4: (366, "issue 30 (4 x H100); nccl #1455: 365-370"), 5: (420, "nccl #1455"), 6: (440, "nccl #1455"),
            7: (460, "nccl #1455"), 8: (480, "nccl-tests #212: the figure the formula is pinned to")}
    for gpus, (measured, source) in nvls.items():
        d = ridge(binary, ["comm", "--gpu", "h100-sxm", "--op", "all-reduce", "--gpus", str(gpus), "--bytes", "8GiB"])
        fitted = "pinned" if gpus == 8 else "no"
        print(f"| all-reduce 8 GiB, {gpus} x H100 one node ({source}) | {measured} GB/s | {d['busbw'] / 1e9:.0f} GB/s "
              f"| {d['busbw'] / 1e9 / measured - 1:+.1%} | {d['algorithm']} | {fitted} |")


# GB200 NVL72 (nccl-tests all_reduce_perf busbw at the largest size printed): gpus, size, measured GB/s, source,
# fitted. No published figure was found for 16 or 36 GPUs of one rack.
GB200 = [
    (4, "8GiB", 679.61, "Azure ND GB200 v6, one tray, NCCL 2.25.1, in place (Azure_Results/ND_GB200_v6_results.md)", "no"),
    (8, "8GiB", 811, "lixueduan.com '13-gb200-mnnvl-nccl-test': 2 trays x 4 over MNNVL, the peak; size not stated", "no"),
    (72, "8GiB", 834.57, "coreweave/nccl-tests README, 1 rack, NCCL 2.26.2: interconnect.nvls_bus_bandwidth", "pinned"),
    (144, "16GiB", 810.41, "coreweave/nccl-tests README, 2 racks, NCCL 2.26.2", "no"),
    (1440, "16GiB", 405.74, "coreweave/nccl-tests README, 20 racks, NCCL 2.26.2 (still rising: 381.48 at 8 GiB)", "no"),
]


def gb200_collectives(binary):
    print("| all-reduce on GB200 NVL72 (source) | measured busbw | predicted busbw | error | algorithm | fitted? |")
    print("|---|---|---|---|---|---|")
    for gpus, size, measured, source, fitted in GB200:
        d = ridge(binary, ["comm", "--gpu", "gb200", "--op", "all-reduce", "--gpus", str(gpus), "--bytes", size])
        print(f"| {size.replace('GiB', ' GiB')}, {gpus} GPUs ({source}) | {measured} GB/s | {d['busbw'] / 1e9:.0f} GB/s "
              f"| {d['busbw'] / 1e9 / measured - 1:+.1%} | {d['algorithm']} ({d['path']}) | {fitted} |")


KORTHIKANTI = [  # name, hidden, heads, layers, pp, gpus, batch, micro-batch, virtual stages, t_full, t_present, MFU
    ("22B", 6144, 64, 48, 1, 8, 4, 4, 1, 1.42, 1.10, 0.415),
    ("175B", 12288, 96, 96, 8, 64, 64, 1, 3, 18.13, 13.75, 0.514),
    ("530B", 20480, 128, 105, 35, 280, 280, 1, 3, 49.05, 37.83, 0.560),
    ("1T", 25600, 160, 128, 64, 512, 512, 1, 1, 94.42, 71.49, 0.563),
]
KORTHIKANTI_EFFICIENCY = 0.6349  # fitted: 530B present work predicts 56.0 %


def korthikanti(binary):
    print("| model (Korthikanti Table 3) | recompute | published MFU | predicted MFU | error | step s pub / pred "
          "| memory GiB | fitted? |")
    print("|---|---|---|---|---|---|---|---|")
    for name, h, a, layers, pp, gpus, batch, mb, v, t_full, t_present, mfu in KORTHIKANTI:
        params = 12 * layers * h * h + 51200 * h  # their model FLOPs: 72 B s L h^2 (1 + s/6h + V/12hL)
        for mode, published, t_pub in (("selective + SP", mfu, t_present), ("full", mfu * t_present / t_full, t_full)):
            args = ["cost", "train", "--params", str(params), "--seq", "2048", "--batch", str(batch), "--steps", "1",
                    "--gpus", str(gpus), "--gpu", "a100-sxm-80gb", "--price", "1", "--tp", "8", "--pp", str(pp),
                    "--micro-batch", str(mb), "--hidden-size", str(h), "--layers", str(layers), "--heads", str(a),
                    "--head-dim", str(h // a), "--flops-formula", "palm", "--network-bw", "25GB/s",
                    "--efficiency", f"gemm={KORTHIKANTI_EFFICIENCY}"]
            args += ["--virtual-stages", str(v)] if v > 1 else []
            args += ["--recompute", "selective", "--sequence-parallel"] if mode != "full" else ["--recompute", "full"]
            p = ridge(binary, args)["parallel"]
            fitted = "yes" if (name == "530B" and mode != "full") else "no"
            print(f"| {name} (TP 8, PP {pp}, v {v}) | {mode} | {published:.1%} | {p['predicted_mfu']:.1%} "
                  f"| {p['predicted_mfu'] / published - 1:+.1%} | {t_pub} / {p['step_time_s']:.2f} "
                  f"| {p['memory']['required_bytes'] / GIB:.1f} | {fitted} |")


LLAMA3 = [(8192, 1, 64, 8192, 32, 0.43), (16384, 1, 128, 8192, 16, 0.41), (16384, 16, 8, 131072, 16, 0.38)]


def llama3(binary):
    print("| Llama 3 405B (Table 4) | published MFU | predicted MFU | error | bubble s | exposed comm s "
          "| memory GiB | fits |")
    print("|---|---|---|---|---|---|---|---|")
    for gpus, cp, dp, seq, per_dp, mfu in LLAMA3:
        args = ["cost", "train", "--params", "405e9", "--seq", str(seq), "--batch", str(dp * per_dp), "--steps", "1",
                "--gpus", str(gpus), "--gpu", "h100-sxm", "--price", "2", "--tp", "8", "--pp", "16", "--cp", str(cp),
                "--micro-batch", "1", "--hidden-size", "16384", "--layers", "126", "--heads", "128", "--kv-heads", "8",
                "--head-dim", "128", "--network-bw", "50GB/s", "--sharding", "zero2", "--sequence-parallel",
                "--recompute", "selective", "--efficiency", "gemm=0.8593", "--causal", "--flops-formula", "palm",
                "--dp-overlap", "0.8"]
        p = ridge(binary, args)["parallel"]
        m = p["memory"]
        print(f"| {gpus} GPUs, TP 8 CP {cp} PP 16 DP {dp}, seq {seq} | {mfu:.0%} | {p['predicted_mfu']:.1%} "
              f"| {p['predicted_mfu'] / mfu - 1:+.1%} | {p['bubble_s']:.2f} | {p['exposed_comm_s']:.2f} "
              f"| {m['required_bytes'] / GIB:.1f} | {'yes' if m['fits'] else 'NO'} |")


# Small-message all-reduce latency (us, nccl-tests' out-of-place "time" at the smallest size; 8 B unless
# said). set: fit (the host-enqueue constant is fitted to these), held (held out). p: GPUs per host thread.
LATENCY = [  # set, source, gpu, gpus, p, launch, algorithm, bytes, measured us, note
    ("fit", "nccl-tests #123", "a100-sxm-80gb", 2, 2, "eager", "ring", 8, 10.0, "DGX-A100, Ring, 1 channel, -g N"),
    ("fit", "nccl-tests #123", "a100-sxm-80gb", 3, 3, "eager", "ring", 8, 13.76, ""),
    ("fit", "nccl-tests #123", "a100-sxm-80gb", 4, 4, "eager", "ring", 8, 16.88, ""),
    ("fit", "nccl-tests #123", "a100-sxm-80gb", 5, 5, "eager", "ring", 8, 20.8, ""),
    ("fit", "nccl-tests #123", "a100-sxm-80gb", 6, 6, "eager", "ring", 8, 25.2, ""),
    ("fit", "nccl-tests #123", "a100-sxm-80gb", 7, 7, "eager", "ring", 8, 29.5, ""),
    ("fit", "nccl-tests #123", "a100-sxm-80gb", 8, 8, "eager", "ring", 8, 33.7, ""),
    ("held", "NVIDIA/dgxc-benchmarking nccl/README.md", "h100-sxm", 8, 1, "eager", None, 8, 13.67,
     "DGX H100, mpirun -g 1, NeMo 25.09 container"),
    ("held", "nccl-tests #287", "rtx-5090", 4, 4, "eager", None, 8, 15.60, "NCCL 2.26.2, -g 4, PCIe"),
    ("held", "rcgsheffield/sheffield_hpc (CUDA page)", "a100-sxm-80gb", 4, 4, "eager", None, 8, 15.29,
     "4 x A100-SXM4-80GB, nccl-tests 2.13.6, -g 4"),
    ("held", "issue 30", "h100-sxm", 4, 4, "eager", None, 8, 23.3, "p not stated: 4 (one process) assumed"),
    ("held", "nccl #1259", "h100-sxm", 2, 2, "graph", None, 128, 6.0,
     "NCCL 2.20.5, -G 10; 'Ring produces the same result as NVLSTree', about 6 us"),
    ("held", "nccl #1259", "h100-sxm", 2, 2, "graph", "nvls", 128, 5.56, "NCCL_ALGO=NVLS forced"),
    ("held", "issue 30", "h100-sxm", 4, 4, "graph", None, 8, 15.0, "14-16 us"),
]


def latency_row(binary, gpu, gpus, p, launch, algorithm, size):
    args = ["comm", "--gpu", gpu, "--op", "all-reduce", "--gpus", str(gpus), "--bytes", str(size), "--launch", launch]
    args += ["--gpus-per-process", str(p)] if launch == "eager" else []
    args += ["--algorithm", algorithm] if algorithm else []
    return ridge(binary, args)


def fit_host_enqueue(points):
    """h minimizing the squared relative error of max(device, p h) over the fit set (us, to 0.01)."""
    best = None
    for i in range(100, 1001):
        h = i / 100
        ss = sum((max(dev, p * h) / meas - 1) ** 2 for dev, p, meas in points)
        if best is None or ss < best[0]:
            best = (ss, h)
    return best[1]


def latency(binary):
    rows = [(r, latency_row(binary, r[2], r[3], r[4], r[5], r[6], r[7])) for r in LATENCY]
    fit = [(d["device_s"] * 1e6, r[4], r[8]) for r, d in rows if r[0] == "fit"]
    h = fit_host_enqueue(fit)
    used = rows[0][1]["host_issue_s"] / rows[0][0][4] * 1e6
    print(f"Host enqueue per GPU fitted to the fit set: {h:.2f} us; model/comm.h uses {used:.2f} us "
          f"({'the same' if abs(h - used) < 0.005 else 'DIFFERENT: update RIDGE_NCCL_HOST_ENQUEUE_S'})")
    print()
    print("| set | source | GPU | GPUs | p | launch | size | measured us | tuner (device) us | predicted us | error "
          "| tuner alone error |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    errors = {}
    for r, d in rows:
        dev, pred = d["device_s"] * 1e6, d["time_s"] * 1e6
        err, err_dev = pred / r[8] - 1, dev / r[8] - 1
        key = (r[0], r[5])
        errors.setdefault(key, []).append((abs(err), abs(err_dev)))
        algo = d["algorithm"] + (" (forced)" if r[6] else "")
        print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4] if r[5] == 'eager' else '-'} | {r[5]} | {r[7]} B "
              f"({algo}) | {r[8]} | {dev:.2f} | {pred:.2f} | {err:+.1%} | {err_dev:+.1%} |")
    print()
    print("| set | launch | rows | median abs error | tuner alone |")
    print("|---|---|---|---|---|")
    for (sset, launch), e in sorted(errors.items()):
        e_m = sorted(x[0] for x in e)
        d_m = sorted(x[1] for x in e)
        med = lambda v: (v[len(v) // 2] + v[(len(v) - 1) // 2]) / 2
        print(f"| {sset} | {launch} | {len(e)} | {med(e_m):.1%} | {med(d_m):.1%} |")


# Megatron-Bridge performance summary (NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md, 25.11
# container; -archive.md, 26.02), BF16, balanced routing ("we force-balance the token distribution").
MOE = [  # release, system gpu, gpus, GBS, MBS, seq, TP, PP, EP, published tokens/s/GPU
    ("25.11", "h100-sxm", 64, 512, 4, 4096, 1, 4, 8, 5630),
    ("26.02", "h100-sxm", 64, 1280, 1, 4096, 1, 4, 8, 5993),
    ("25.11", "b200", 64, 512, 4, 4096, 1, 1, 8, 8213),
    ("26.02", "b200", 64, 1280, 4, 4096, 1, 1, 64, 8047),
]
GPT_OSS = "tests/fixtures/model-configs/openai--gpt-oss-120b.json"


def moe(binary):
    m = ridge(binary, ["model", GPT_OSS])
    cfg, prm = m["model"], m["params"]
    expert_params = cfg["moe_layers"] * cfg["experts"] * prm["expert"]
    print(f"GPT-OSS-120B ({GPT_OSS}): {prm['total']:.4g} parameters, {expert_params:.4g} in {cfg['experts']} routed "
          f"experts x {cfg['moe_layers']} layers, top-{cfg['experts_per_token']}, {prm['active']:.4g} active")
    print()
    print("| release | GPUs | GBS x seq | TP PP EP | published tok/s/GPU | predicted tok/s/GPU | error | EP all-to-all "
          "exposed s | step s | memory GiB | kernels must reach for the published rate |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for rel, gpu, gpus, gbs, mbs, seq, tp, pp, ep, published in MOE:
        eff = ridge(binary, ["hw", "show", gpu])["timing"]["gemm"]["compute_efficiency"]
        base = ["cost", "train", "--params", str(prm["total"]), "--experts", str(cfg["experts"]), "--top-k",
                str(cfg["experts_per_token"]), "--expert-params", str(expert_params), "--seq", str(seq), "--batch",
                str(gbs), "--steps", "1", "--gpus", str(gpus), "--gpu", gpu, "--price", "1", "--tp", str(tp), "--pp",
                str(pp), "--ep", str(ep), "--micro-batch", str(mbs), "--hidden-size", str(cfg["hidden_size"]),
                "--layers", str(cfg["num_hidden_layers"]), "--heads", str(cfg["num_attention_heads"]), "--kv-heads",
                str(cfg["num_key_value_heads"]), "--head-dim", str(cfg["head_dim"]), "--flops-formula", "palm",
                "--causal", "--sharding", "zero1"]
        p = ridge(binary, base + ["--efficiency", f"gemm={eff}"])["parallel"]
        predicted = gbs * seq / (p["step_time_s"] * gpus)
        # the kernel efficiency the published rate implies, ridge's communication and bubble kept
        step = gbs * seq / (published * gpus)
        flops = ridge(binary, base + ["--efficiency", f"gemm={eff}"])["flops_per_step"]
        peak = ridge(binary, base + ["--efficiency", f"gemm={eff}"])["peak_flops"]
        implied = ridge(binary, base + ["--mfu", str(flops / (gpus * peak * step))])["parallel"]
        print(f"| {rel} {gpu} | {gpus} | {gbs} x {seq} | {tp} {pp} {ep} | {published} | {predicted:.0f} "
              f"| {predicted / published - 1:+.1%} | {p.get('ep_exposed_s', 0):.3f} | {p['step_time_s']:.3f} "
              f"| {p['memory']['required_bytes'] / GIB:.1f} | {implied['implied_compute_efficiency']:.1%} of peak "
              f"(ridge's {eff:.1%}) |")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for section in (collectives, gb200_collectives, korthikanti, llama3, latency, moe):
        section(sys.argv[1])
        print()


if __name__ == "__main__":
    main()
