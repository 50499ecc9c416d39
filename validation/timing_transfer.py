#!/usr/bin/env python3
"""The timing: sections of the hwdb entries no lease has measured (issue 27).

Every value is the H200's measured fit (hwdb/h200-sxm.yaml) carried to another
GPU by one rule per class (hwdb/README.md, "Timing of the unmeasured entries"),
through a published figure where one exists
(docs/sources/timing-public-measurements.md has them all, with their documents,
tables, hardware and software):

  G  gemm compute: the H200's 0.8593 x (this GPU's published library-GEMM
     fraction of peak / the H200's on the same harness): torch.mm squares of
     zzc0721/torch-performance-test-data for NVIDIA, stas00/ml-engineering's
     MAMF table for AMD (its H100 row, "H200 is the same"); without a figure
     for the SKU, the fraction of the nearest die of its family.
  M  every memory efficiency (gemm's GEMV, norm, softmax, elementwise,
     split-kv): the H200's fitted class fraction x (this GPU's BabelStream
     Triad fraction of spec / the H200's, Azure's AI-benchmarking-guide);
     RRZE gpu-benches' triad is put on Azure's footing by the A100 80GB both
     measured (1.70 TB/s / 1759 GB/s); without a figure, the fraction of the
     nearest GPU with the same memory technology.
  A  attention by implementation: sourced as the H200's fitted fraction x
     (this GPU's / Hopper's) on one harness (FA2 paper, Azure's
     benchmark_flash_attention.py run); transferred from the nearest GPU that
     has the implementation, x (this GPU's gemm compute efficiency / that
     GPU's): the tensor-core rate the card sustains (power cap, clocks).
  F  fixed costs: the H200's, absolute microseconds (launch, fill and drain
     are the driver's and the library's, not FLOPs or bytes).
  R  norm row_time: the H200's per row and pass x (132 SM x 1980 MHz) / (SMs
     x boost clock) of this GPU.
  K  attention_repeat_kv and attention_repeat_kv_fused: rule M on the H200's
     memory efficiency (itself the H100's measured repeat_kv + masked SDPA pair,
     eager or compiled, fraction of spec kept), rule F on its fixed cost.
  C  attention_per_head: the efficiencies and fixed cost of the entry's
     default attention slot (the H200's takes its cudnn's); cta_bandwidth the
     H200's 39.32 GB/s, absolute.
  L  launch.kernel_fixed_cost: the H200's measured 4.94 us.
  P  gemm_fp8 and gemm_fp4 compute (Blackwell only): this entry's gemm compute
     efficiency x (a published fp8 / fp4 GEMM's fraction of its peak / the
     bf16 GEMM's fraction in the same run, same machine); memory efficiency and
     fixed cost the gemm slot's. Elsewhere the class borrows the gemm slot's
     terms (model/timing.c says so in the output).
  W  the power limit (power.sustained_matrix_fraction, burst_time): the H200's
     measured pair, transferred. Rule G makes an entry's gemm efficiency the
     H200's burst fit x (this GPU's harness rate / the H200's on the same
     harness); such loops run partly past the burst time, so each rate holds
     some of its own card's throttling (the H200's 0.7988 sits between its
     burst 0.8593 and its settled 0.8593 x 0.8706, as such a loop's would; both
     cards measured at their limit throttle: H100 SXM 0.8532, H200 0.8706).
     The entry's efficiency is then its burst
     rate x (its throttling / the H200's), and the H200's settled fraction on
     top gives back its own settled rate where it throttles as the H200 does;
     without it, compute-bound work past the burst ran 1 / 0.8706 fast there.
     A card that does not throttle comes out 0.8706 / 0.9296 = 0.94 of its
     settled rate with it and 1 / 0.9296 fast without it, so the pair is the
     smaller error either way. How the burst comes back (recovery_idle,
     recovery_busy) is the H100 SXM's measured pair, transferred alike.

  python3 validation/timing_transfer.py          rewrite the 16 entries
  python3 validation/timing_transfer.py --check  exit 1 if any entry differs
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
HWDB = os.path.join(ROOT, "hwdb")
REF = "hwdb/README.md, 'Timing of the unmeasured entries'"


def read_h200():
    """The H200's fitted values, read from its entry (so a refit carries)."""
    text = open(os.path.join(HWDB, "h200-sxm.yaml"), encoding="utf-8").read()
    timing = text[text.index("\ntiming:") :]
    slots = {}
    for m in re.finditer(r"^  (\w+):[^\n]*\n((?:    [^\n]*\n)+)", timing, re.M):
        vals = {}
        for line in m.group(2).splitlines():
            k, _, v = line.strip().partition(":")
            v = v.split("#")[0].strip()
            if k in ("compute_efficiency", "memory_efficiency"):
                vals[k] = float(v)
            elif k in ("fixed_cost", "row_time", "cta_bandwidth"):
                vals[k] = v
        slots[m.group(1)] = vals
    kfc = re.search(r"kernel_fixed_cost: ([0-9.]+ us)", text).group(1)
    return slots, kfc


H200, KERNEL_FIXED_COST = read_h200()


def read_h200_power():
    """The H200's measured power limit: (sustained_matrix_fraction, burst_time)."""
    text = open(os.path.join(HWDB, "h200-sxm.yaml"), encoding="utf-8").read()
    fraction = re.search(r"^  sustained_matrix_fraction: ([0-9.]+)", text, re.M).group(1)
    burst = re.search(r"^  burst_time: ([0-9.]+ ms)", text, re.M).group(1)
    return fraction, burst


H200_POWER = read_h200_power()


def read_h100_recovery():
    """The H100 SXM's measured refill rates: (recovery_idle, recovery_busy)."""
    text = open(os.path.join(HWDB, "h100-sxm.yaml"), encoding="utf-8").read()
    return tuple(re.search(r"^  %s: ([0-9.]+)" % k, text, re.M).group(1) for k in ("recovery_idle", "recovery_busy"))


H100_RECOVERY = read_h100_recovery()


def us(quantity):
    return float(quantity.split()[0])


# ---------------------------------------------------------------- the figures
ZZC = "zzc0721/torch-performance-test-data database.md (torch.mm squares 1024-10240, best size, 10 warm-up + 30 timed, CUDA events)"
ZZC_H200 = 790.29 / 989.4  # row "NVIDIA H200 | 51.34 | | 759.40 | 790.29 | docker"
ZZC_H200_FP16 = 759.40 / 989.4
MAMF = "stas00/ml-engineering compute/accelerator/README.md, 'Maximum Achievable Matmul FLOPS comparison table' (mamf-finder.py, torch.matmul, best shape)"
MAMF_H100 = 794.5 / 989.4  # current row, torch 2.7.0+cu126, "H200 is the same"
MAMF_H100_2024 = 792.1 / 989.4  # the 2024-12-19 revision's row (CUDA-12.1), beside MI250X's

AZ_H200_TRIAD = 4.18 / 4.8  # ND_H200_v5_results.md, HBM Bandwidth, Triad (CUDA 12.8)
RRZE_TO_AZ = 1.70 / 1.759  # the A100 80GB: Azure Triad 1.70 TB/s, RRZE triad 1759 GB/s
AZ_H200_FA2 = 329.3 / 989.4  # ND_H200_v5_results.md, 'Flash Attention 2.0'
FA2_PAPER_A100 = 230 / 312  # FA2 paper: "up to 230 TFLOPs/s" on A100 80GB SXM4
FA2_PAPER_H100 = 335 / 989.4  # FA2 paper: "up to 335 TFLOPs/s" on H100
# FA3 paper Table 2: forward, head dim 128, seqlen 8448, non-causal, fp16: 661 TFLOP/s on an
# H100 SXM5 at 1830 MHz (740, its abstract's figure, is the peak over all its settings); hwdb/h100-sxm.yaml's fa3
FA3_PAPER_H100 = 661 / 989.4

STREAM = {
    # id: (fraction on Azure's footing, provenance, sentence)
    "a100-sxm-80gb": (
        1.70 / 2.039,
        "sourced",
        "BabelStream Triad 1.70 TB/s = 0.8337 of 2.039 on Azure ND A100 v4 (A100-SXM4-80GB, CUDA 12.5; Azure/AI-benchmarking-guide Azure_Results/ND_A100_v4_results.md, 'HBM Bandwidth')",
    ),
    "a100-pcie-40gb": (
        1375 / 1555 * RRZE_TO_AZ,
        "sourced",
        "RRZE gpu-benches gpu-stream/a100_40.txt (an A100 40GB, 1555 GB/s HBM2; SXM4 or PCIe not stated): triad 1375 GB/s = 0.8842, x 1.70/1.759 to Azure's BabelStream footing = 0.8546",
    ),
    "h100-pcie": (
        1832 / 2000 * RRZE_TO_AZ,
        "sourced",
        "RRZE gpu-benches gpu-stream/h100_pcie.txt (H100 PCIe, CUDA 11.7 per its README): triad 1832 GB/s = 0.916 of 2.0 TB/s, x 1.70/1.759 to Azure's BabelStream footing = 0.8853",
    ),
    "v100-sxm2": (
        814 / 900 * RRZE_TO_AZ,
        "sourced",
        "RRZE gpu-benches gpu-stream/v100.txt (a V100, 900 GB/s HBM2; its README's examples are a V100 PCIe 16GB): triad 814 GB/s = 0.9044, x 1.70/1.759 to Azure's BabelStream footing = 0.8741",
    ),
    "mi210": (
        1305 / 1600 * RRZE_TO_AZ,
        "sourced",
        "RRZE gpu-benches gpu-stream/mi210.txt (MI210, HIP): triad 1305 GB/s = 0.8156 of 1.6 TB/s, x 1.70/1.759 to Azure's BabelStream footing = 0.7883",
    ),
    "mi300x": (
        4.10 / 5.3,
        "sourced",
        "BabelStream Triad 4.10 TB/s = 0.7736 of 5.3 on Azure ND MI300X v5 (HIP 6.2.41134; samuel-bohman/AI-benchmarking-guide Azure_Results/ND_MI300X_v5_results.md, 'HBM Bandwidth')",
    ),
}
L40 = (
    803 / 864 * RRZE_TO_AZ,
    "RRZE gpu-benches gpu-stream/l40.txt (L40: AD102, 864 GB/s GDDR6): triad 803 GB/s = 0.9294, x 1.70/1.759 to Azure's BabelStream footing = 0.8982",
)
A40 = (
    663 / 696 * RRZE_TO_AZ,
    "RRZE gpu-benches gpu-stream/a40.txt (A40: GA102, 696 GB/s GDDR6): triad 663 GB/s = 0.9526, x 1.70/1.759 to Azure's BabelStream footing = 0.9206",
)
STREAM["l40s"] = (L40[0], "transferred", L40[1] + "; the L40S has the L40's die and memory")
STREAM["l4"] = (L40[0], "transferred", L40[1] + "; no L4 figure: the Ada GDDR6 fraction kept (72 W card: unverified)")
STREAM["rtx-4090"] = (L40[0], "transferred", L40[1] + "; no GDDR6X figure: the Ada GDDR6 fraction kept")
STREAM["rtx-5090"] = (L40[0], "transferred", L40[1] + "; no GDDR7 figure: the nearest NVIDIA GDDR part's fraction kept")
STREAM["a10"] = (A40[0], "transferred", A40[1] + "; no A10 figure: the GA102 GDDR6 fraction kept")
STREAM["t4"] = (A40[0], "transferred", A40[1] + "; no T4 figure: the nearest-generation GDDR6 fraction kept")
STREAM["mi250x"] = (
    STREAM["mi210"][0],
    "transferred",
    STREAM["mi210"][2] + "; no Triad figure per GCD: the MI210's (same CDNA2 die, HBM2e, 1.6 TB/s) kept; ORNL BabelStream's 1.3-1.4 TB/s per GCD (ROCm blog seismic-stencils part 1) agrees",
)
STREAM["mi325x"] = (
    STREAM["mi300x"][0],
    "transferred",
    STREAM["mi300x"][2] + "; no MI325X figure: the MI300X's (same die and memory controllers, HBM3E) kept",
)
STREAM["b200"] = (
    AZ_H200_TRIAD,
    "transferred",
    "no B200 stream figure: the H200's fraction kept (both HBM3e)",
)
STREAM["gb200"] = (
    AZ_H200_TRIAD,
    "transferred",
    "no GB200 stream figure (Azure's ND GB200 v6 results have none): the H200's fraction kept (both HBM3e)",
)

GEMM = {
    # id: (fraction of this entry's peak on the harness, anchor, provenance, sentence)
    "a100-sxm-80gb": (264.53 / 312, ZZC_H200, "sourced", "264.53 TFLOP/s bf16 = 0.8479 of 312 on an A100 SXM4 80GB (PyTorch 2.8.0, CUDA 12.8, container)"),
    "a100-pcie-40gb": (234.14 / 312, ZZC_H200, "sourced", "234.14 TFLOP/s bf16 = 0.7504 of 312 on an A100-PCIE-40GB (AutoDL; issue #108: torch 2.8.0+cu128)"),
    "h100-pcie": (495.93 / 756, ZZC_H200, "sourced", "495.93 TFLOP/s bf16 = 0.6560 of 756 on an H100 PCIe (bare metal, 'PyTorch 2.7.0 + CUDA 13.1')"),
    "b200": (1696.03 / 2250, ZZC_H200, "sourced", "1696.03 TFLOP/s bf16 = 0.7538 of 2250 on a B200 180GB (GCP a4-highgpu-8g, PyTorch 2.8.0); MAMF's 1745.0 agrees"),
    "l40s": (269.15 / 362.05, ZZC_H200, "sourced", "269.15 TFLOP/s bf16 = 0.7434 of 362.05 on an L40S (docker, versions not recorded)"),
    "l4": (70.89 / 121, ZZC_H200, "sourced", "70.89 TFLOP/s bf16 = 0.5859 of 121 on an L4 (bare metal, issue #120: torch 2.9.0+cu128)"),
    "rtx-4090": (
        166.575 / 165.2,
        ZZC_H200,
        "sourced",
        "median of the four RTX 4090 24GB rows (170.06, 173.31, 162.39, 163.09 TFLOP/s bf16; PyTorch 2.4.0-2.8.0) = 166.58 = 1.0083 of 165.2 (GeForce boosts above the 2520 MHz of the spec peak)",
    ),
    "rtx-5090": (
        239.105 / 209.5,
        ZZC_H200,
        "sourced",
        "median of the two RTX 5090 32GB rows (236.03, 242.18 TFLOP/s bf16; PyTorch 2.8.0, 2.7.1+cu128) = 239.11 = 1.1413 of 209.5 (GeForce boosts above the 2407 MHz of the spec peak)",
    ),
    "t4": (41.93 / 65, ZZC_H200_FP16, "sourced", "median of the three Tesla T4 rows (41.91, 42.71, 41.93 TFLOP/s fp16; Colab/Kaggle, PyTorch 2.6.0-2.8.0) = 0.6451 of 65, fp16 on both sides (no bf16 tensor cores)"),
    "v100-sxm2": (94.84 / 125, ZZC_H200_FP16, "sourced", "94.84 TFLOP/s fp16 = 0.7587 of 125 on a Tesla V100-SXM2-16GB (PyTorch 2.7.1, CUDA 12.8), fp16 on both sides (no bf16 tensor cores)"),
    "a10": (
        123.34 / 154.8,
        ZZC_H200,
        "transferred",
        "no A10 figure: the GA102 fraction of the RTX A6000 row, 123.34 TFLOP/s bf16 = 0.7968 of 154.8 (84 SM x 1024 FLOP/clk x 1.80 GHz, this entry's per-SM rate), no power penalty published for the 150 W A10 (likely optimistic)",
    ),
    "gb200": (1822.0 / 2500, MAMF_H100, "sourced", "1822.0 TFLOP/s bf16 = 0.7288 of 2500 on a GB200 (torch 2.10.0.dev20250916+cu130); the table's H100 SXM row 794.5 = 0.8030 ('H200 is the same'); no GB200 row in [ZZC]"),
    "mi300x": (668.4 / 1307.4, MAMF_H100, "sourced", "668.4 TFLOP/s bf16 = 0.5112 of 1307.4 on an MI300X (torch 2.5.1 + ROCm 6.3.42131, PYTORCH_TUNABLEOP_ENABLED=1); the table's H100 SXM row 794.5 = 0.8030 ('H200 is the same')"),
    "mi325x": (784.9 / 1307.4, MAMF_H100, "sourced", "784.9 TFLOP/s bf16 = 0.6004 of 1307.4 on an MI325X (torch 2.6.0 + ROCm 6.2.4, TunableOp, 1000 W); the table's H100 SXM row 794.5 = 0.8030 ('H200 is the same')"),
    "mi250x": (147.0 / 191.5, MAMF_H100_2024, "sourced", "the 2024-12-19 revision: 147.0 TFLOP/s bf16 = 0.7676 of 191.5 on one MI250X GCD (ROCm 6.2); that revision's H100 SXM row 792.1 = 0.8006 (CUDA 12.1)"),
}
GEMM["mi210"] = (
    GEMM["mi250x"][0],
    MAMF_H100_2024,
    "transferred",
    "no MI210 figure (hipBLASLt issue #1297's 48 GFLOP/s is an untuned path), the MI250X GCD's: " + GEMM["mi250x"][3],
)


# Rule P: (run's low-precision fraction of peak, the same run's bf16 fraction, provenance, sentence).
LOW_PRECISION = {
    "b200": {
        "gemm_fp8": (
            3432.5 / 4500,
            1745.0 / 2250,
            "sourced",
            "[MAMF] B200 SXM (torch 2.7.1+cu128, best shape): fp8 e4m3 3432.5 TFLOP/s = 0.7628 of 4500, bf16 1745.0 = "
            "0.7756 of 2250; the table's H200 pair, 0.7344 / 0.8030 = 0.915, sits under ridge's measured 0.8217 / "
            "0.8593 = 0.956; a CUTLASS pair at one Llama shape gives 0.84 of bf16 (vLLM PR #19566: "
            "docs/sources/timing-public-measurements.md)",
        ),
        "gemm_fp4": (
            5.37e15 / 9.0e15,
            1.42e15 / 2.25e15,
            "sourced",
            "pytorch/ao PR #2427 (B200, bench_matmul.py --recipe nvfp4, 8192^3): NVFP4 5.37e15 FLOP/s = 0.5967 of "
            "9e15, the same run's bf16 1.42e15 = 0.6311 of 2.25e15 (others span 0.72-0.82 of the bf16 "
            "fraction: docs/sources/timing-public-measurements.md)",
        ),
    },
}
LOW_PRECISION["gb200"] = {
    slot: (frac, bf16, "transferred", "no GB200 figure, the B200's ratio: " + sent)
    for slot, (frac, bf16, _, sent) in LOW_PRECISION["b200"].items()
}


def gemm_ce(gpu):
    frac, anchor, _, _ = GEMM[gpu]
    return H200["gemm"]["compute_efficiency"] * frac / anchor


# Entries: vendor, SMs/CUs and boost clock (rule R), attention implementations
# and the one PyTorch SDPA picks (sdp_utils.cpp check_prefer_cudnn_attention:
# cuDNN first on sm90/sm100 with cuDNN > 9.15, else flash; ROCm: CK flash).
ENTRIES = {
    "a10": ("nvidia", 72, 1695, ["fa2", "cudnn"], "fa2"),
    "a100-pcie-40gb": ("nvidia", 108, 1410, ["fa2", "cudnn"], "fa2"),
    "a100-sxm-80gb": ("nvidia", 108, 1410, ["fa2", "cudnn"], "fa2"),
    "b200": ("nvidia", 148, 1980, ["fa2", "cudnn"], "cudnn"),
    "gb200": ("nvidia", 152, 2062, ["fa2", "cudnn"], "cudnn"),
    "h100-pcie": ("nvidia", 114, 1755, ["fa2", "fa3", "cudnn"], "cudnn"),
    "l4": ("nvidia", 58, 2040, ["fa2", "cudnn"], "fa2"),
    "l40s": ("nvidia", 142, 2520, ["fa2", "cudnn"], "fa2"),
    "mi210": ("amd", 104, 1700, ["fa2"], "fa2"),
    "mi250x": ("amd", 110, 1700, ["fa2"], "fa2"),
    "mi300x": ("amd", 304, 2100, ["fa2"], "fa2"),
    "mi325x": ("amd", 304, 2100, ["fa2"], "fa2"),
    "rtx-4090": ("nvidia", 128, 2520, ["fa2", "cudnn"], "fa2"),
    "rtx-5090": ("nvidia", 170, 2407, ["fa2", "cudnn"], "fa2"),
    "t4": ("nvidia", 40, 1590, ["efficient"], "efficient"),
    "v100-sxm2": ("nvidia", 80, 1530, ["efficient"], "efficient"),
}

F_NOTE = {
    "nvidia": "kept absolute (rule F; RRZE gpu-benches gpu-small-kernels: back-to-back launches 2.6 us A100 80GB, 2.4 us H200, 1.6 us L40)",
    "amd": "kept absolute (rule F): no HIP per-kernel figure is published; RRZE gpu-benches gpu-small-kernels' MI210 back-to-back 2.0 us (H200 2.4 us on that harness) is the only one",
}


def fixed(slot, gpu, what=None):
    v = H200[slot]["fixed_cost"]
    return v, "the H200's fitted %s (%s, hwdb/h200-sxm.yaml), %s" % (v, what or slot, F_NOTE[ENTRIES[gpu][0]])


def fmt(x):
    return "%.4f" % x


# --------------------------------------------------------------- attention
def attention(gpu):
    """{impl: (ce, provenance, source, fixed_cost, fixed_source)}"""
    out = {}
    ce = gemm_ce(gpu)
    h = H200
    a100_fa2 = h["attention_fa2"]["compute_efficiency"] * FA2_PAPER_A100 / FA2_PAPER_H100
    a100_src = (
        "FA2 paper (Dao, arXiv 2307.08691, sec. 4.1, fp16, hdim 64/128, seqlen 512-16k): 'up to 230 TFLOPs/s' = 0.7372 of 312 on an A100 80GB SXM4 and 'up to 335' = 0.3386 of 989.4 on an H100; "
        "x the H200's fitted fa2 %.4f (0.3386, close to it) = %s" % (h["attention_fa2"]["compute_efficiency"], fmt(a100_fa2))
    )
    mi300x_fa2 = h["attention_fa2"]["compute_efficiency"] * (328.6 / 1307.4) / AZ_H200_FA2
    mi300x_src = (
        "Azure AI-benchmarking-guide 'Flash Attention 2.0' (benchmark_flash_attention.py, batch 2, seqlen 8192, hdim 64, fp16): MI300X 328.6 TFLOP/s = 0.2513 of 1307.4 (flash-attn CK in rocm/vllm, ND_MI300X_v5_results.md), H200 329.3 = 0.3328 of 989.4 (ND_H200_v5); "
        "x the H200's fitted fa2 = %s" % fmt(mi300x_fa2)
    )
    fa2_fixed = fixed("attention_fa2", gpu, "FlashAttention-2")
    cudnn_fixed = fixed("attention_cudnn", gpu, "cuDNN SDPA")

    def scaled(ref_value, ref_ce, ref_name):
        v = ref_value * ce / ref_ce
        return v, "x this entry's gemm compute efficiency / %s's (%s / %s; rule A) = %s" % (ref_name, fmt(ce), fmt(ref_ce), fmt(v))

    a100_ce = gemm_ce("a100-sxm-80gb")
    mi300x_ce = gemm_ce("mi300x")
    if gpu == "a100-sxm-80gb":
        out["fa2"] = (a100_fa2, "sourced", a100_src) + fa2_fixed
    elif gpu in ("a100-pcie-40gb", "a10", "l40s", "l4", "rtx-4090", "rtx-5090"):
        v, s = scaled(a100_fa2, a100_ce, "the A100 SXM 80GB")
        why = {
            "a100-pcie-40gb": "no A100 PCIe figure: the A100 SXM4 80GB's (same GA100)",
            "a10": "no A10 figure: the A100's (FA2's one sm80 code path serves sm86)",
            "l40s": "no Ada figure: the A100's (FA2 runs its sm80 mma.sync code on sm89)",
            "l4": "no Ada figure: the A100's (FA2 runs its sm80 mma.sync code on sm89)",
            "rtx-4090": "no Ada figure: the A100's (FA2 runs its sm80 mma.sync code on sm89)",
            "rtx-5090": "no sm120 figure: the A100's (FA2 runs its sm80 mma.sync code on sm120; no tcgen05 on GeForce Blackwell)",
        }[gpu]
        out["fa2"] = (v, "transferred", "%s %s, %s" % (why, fmt(a100_fa2), s) + "; " + a100_src.split(";")[0]) + fa2_fixed
    elif gpu == "h100-pcie":
        hce = h["gemm"]["compute_efficiency"]
        v, s = scaled(h["attention_fa2"]["compute_efficiency"], hce, "the H200")
        out["fa2"] = (v, "transferred", "the H200's fitted fa2 %.4f (same Hopper kernel), %s" % (h["attention_fa2"]["compute_efficiency"], s)) + fa2_fixed
        v, s = scaled(FA3_PAPER_H100, hce, "the H100 SXM")
        out["fa3"] = (
            v,
            "transferred",
            "the H100 SXM's sourced FA3 0.6681 (FA3 paper, Shah et al., arXiv 2407.08608, Table 2 and app. C.1: 661 TFLOP/s at head dim 128, H100 80GB SXM5 at 1830 MHz, CUDA 12.3, PyTorch 2.3.0; its peak over settings 740 = 0.7479), %s" % s,
            H200["attention_fa2"]["fixed_cost"],
            "no FA3 fixed cost measured: the H200's fitted FlashAttention-2 %s, the nearest FlashAttention kernel, %s" % (H200["attention_fa2"]["fixed_cost"], F_NOTE["nvidia"]),
        )
        v, s = scaled(h["attention_cudnn"]["compute_efficiency"], hce, "the H200")
        out["cudnn"] = (v, "transferred", "the H200's fitted cudnn %.4f (same Hopper kernel), %s" % (h["attention_cudnn"]["compute_efficiency"], s)) + cudnn_fixed
    elif gpu == "gb200":
        v = h["attention_fa2"]["compute_efficiency"] * (373.9 / 2500) / AZ_H200_FA2
        out["fa2"] = (
            v,
            "sourced",
            "Azure AI-benchmarking-guide 'Flash Attention 2.0' (benchmark_flash_attention.py, batch 2, seqlen 8192, fp16): GB200 373.9 TFLOP/s = 0.1496 of 2500 (ND_GB200_v6_results.md, CUDA 12.8, PyTorch 2.6.0), H200 329.3 = 0.3328 of 989.4 (ND_H200_v5); x the H200's fitted fa2 = %s" % fmt(v),
        ) + fa2_fixed
        out["cudnn"] = (
            1428 / 2500,
            "transferred",
            "Dao-AILab/flash-attention PR #2605's forward table with a 2500 TFLOP/s peak and 8 TB/s (a GB200's or GB300's figures; the GPU is not named): cuDNN hdim 128, non-causal, batch 32, seqlen 1024: 1428 TFLOP/s = 0.5712 of 2500, the fraction kept (same implementation and generation)",
        ) + cudnn_fixed
    elif gpu == "b200":
        v = h["attention_fa2"]["compute_efficiency"] * (343.07 / 2250) / AZ_H200_FA2
        out["fa2"] = (
            v,
            "sourced",
            "Dao-AILab/flash-attention issue #1589 (B200, flash_attn 2.7.4.post1, torch 2.8.0.dev20250408+cu128, benchmark_flash_attention.py batch 2, seqlen 8192, hdim 64, fp16): fwd 343.07 TFLOP/s = 0.1525 of 2250; the same script's H200 run 329.3 = 0.3328 (Azure ND_H200_v5_results.md); x the H200's fitted fa2 = %s" % fmt(v),
        ) + fa2_fixed
        out["cudnn"] = (
            1428 / 2500,
            "transferred",
            "Dao-AILab/flash-attention PR #2605's forward table with a 2500 TFLOP/s peak and 8 TB/s (a GB200 or B300: Blackwell, the GPU is not named): cuDNN hdim 128, non-causal, batch 32, seqlen 1024: 1428 TFLOP/s = 0.5712 (57.1 %%), the fraction kept (same implementation and generation); its hdim-64 rows rise 39 -> 46 %% from seqlen 1k to 16k",
        ) + cudnn_fixed
    elif gpu == "mi300x":
        out["fa2"] = (mi300x_fa2, "sourced", mi300x_src) + fa2_fixed
    elif gpu in ("mi325x", "mi210", "mi250x"):
        v, s = scaled(mi300x_fa2, mi300x_ce, "the MI300X")
        why = "no MI325X figure: the MI300X's CK fa2 %s (same CDNA3 die and kernels)" if gpu == "mi325x" else "no CDNA2 figure: the MI300X's CK fa2 %s (CK's FA2 also serves gfx90a)"
        out["fa2"] = (v, "transferred", (why % fmt(mi300x_fa2)) + ", " + s + "; " + mi300x_src.split("; x")[0]) + fa2_fixed
    elif gpu in ("t4", "v100-sxm2"):
        eff = h["attention_efficient"]["compute_efficiency"]
        v, sc = scaled(eff, h["gemm"]["compute_efficiency"], "the H200")
        arch = "Turing" if gpu == "t4" else "Volta"
        out["efficient"] = (
            v,
            "transferred",
            "no %s attention figure; FlashAttention-2 and cuDNN attention need sm80, so SDPA runs its memory-efficient (CUTLASS) kernel here: the H200's fitted efficient %s (the only measurement of that kernel), %s" % (arch, fmt(eff), sc),
        ) + fixed("attention_efficient", gpu, "memory-efficient SDPA")
    if "cudnn" in ENTRIES[gpu][3] and "cudnn" not in out:
        v = out["fa2"][0]
        out["cudnn"] = (
            v,
            "transferred",
            "no cuDNN attention figure before Hopper: this entry's fa2 %s (cuDNN's sm80-sm89 fused kernels are FlashAttention-2-style mma.sync kernels; its Hopper lead comes from wgmma and TMA, absent here)" % fmt(v),
        ) + cudnn_fixed
    return out


# ------------------------------------------------------------------- writer
def q(s):
    assert '"' not in s and len(s) <= 511, (len(s), s)
    return '"%s"' % s


def memory_slot(gpu, slot, ratio, stream_src, prov):
    v = H200[slot]["memory_efficiency"] * ratio
    return v, "%s; the H200's (Azure ND_H200_v5 BabelStream Triad 4.18 of 4.8 TB/s = 0.8708): ratio %s x the H200's fitted %s %s = %s (rule M)" % (
        stream_src,
        fmt(ratio),
        slot.replace("attention_", ""),
        fmt(H200[slot]["memory_efficiency"]),
        fmt(v),
    )


def timing_block(gpu):
    vendor, sms, boost, impls, default = ENTRIES[gpu]
    stream, mprov, msrc = STREAM[gpu]
    ratio = stream / AZ_H200_TRIAD
    lines = ["timing:   # the H200's measured fit carried here, one rule a class (%s); validation/timing_transfer.py writes it" % REF]
    lines.append('  attention_default: "%s"' % default)

    def slot(name, comment, prov, source, values, origins=None, cta=None):
        """One timing.<slot> map in the schema's order (hwdb/schema.c):
        provenance, each value with its own provenance and source where it
        came otherwise, source, cta_bandwidth."""
        origins = origins or {}
        lines.append("  %s:%s" % (name, ("   # " + comment) if comment else ""))
        lines.append("    provenance: %s" % prov)
        for k, v in values:
            lines.append("    %s: %s" % (k, v))
            if k in origins:
                lines.append("    %s_provenance: %s" % (k, origins[k][0]))
                lines.append("    %s_source: %s" % (k, q(origins[k][1])))
        lines.append("    source: %s" % q(source))
        if cta:
            lines.append("    cta_bandwidth: %s   # the H200's, absolute (rule C)" % cta[0])
            lines.append("    cta_bandwidth_provenance: transferred")
            lines.append("    cta_bandwidth_source: %s" % q(cta[1]))

    # gemm
    frac, anchor, gprov, gsent = GEMM[gpu]
    ce = gemm_ce(gpu)
    harness = MAMF if anchor in (MAMF_H100, MAMF_H100_2024) else ZZC
    anchor_text = {ZZC_H200: "; the same harness's H200 row 790.29 = 0.7988 of 989.4", ZZC_H200_FP16: "; the same harness's H200 row 759.40 fp16 = 0.7675"}.get(anchor, "")
    csrc = "%s: %s%s; the H200's fitted %s x %s / %s = %s (rule G)" % (
        harness.split(" (")[0], gsent, anchor_text, fmt(H200["gemm"]["compute_efficiency"]), fmt(frac), fmt(anchor), fmt(ce))
    gm, gmsrc = memory_slot(gpu, "gemm", ratio, msrc, mprov)
    gfix, gfixsrc = fixed("gemm", gpu, "cuBLAS GEMMs")
    slot("gemm", None, gprov, csrc,
         [("compute_efficiency", fmt(ce)), ("memory_efficiency", fmt(gm)), ("fixed_cost", gfix)],
         {"memory_efficiency": (mprov, "GEMV and decode GEMMs: " + gmsrc), "fixed_cost": ("transferred", gfixsrc)})
    # gemm_fp8, gemm_fp4 (rule P)
    for name, what in (("gemm_fp8", "fp8 (e4m3, scaled)"), ("gemm_fp4", "fp4 (NVFP4, block-scaled)")):
        if name not in LOW_PRECISION.get(gpu, {}):
            continue
        lfrac, lbf16, lprov, lsent = LOW_PRECISION[gpu][name]
        lce = ce * lfrac / lbf16
        slot(name, "the library GEMMs in %s: a gemm-class kernel of such a shape" % what, lprov,
             "%s; this entry's gemm %s x %s / %s = %s (rule P)" % (lsent, fmt(ce), fmt(lfrac), fmt(lbf16), fmt(lce)),
             [("compute_efficiency", fmt(lce)), ("memory_efficiency", fmt(gm)), ("fixed_cost", gfix)],
             {"memory_efficiency": ("transferred", "the gemm slot's: no GEMV figure in this dtype is published for the GPU"),
              "fixed_cost": ("transferred", "the gemm slot's: " + gfixsrc)})
    # attention, in the schema's slot order
    att = attention(gpu)
    names = {
        "fa2": "FlashAttention-2 (SDPA's FLASH_ATTENTION backend%s)" % ("; flash-attn's CK backend on ROCm" if vendor == "amd" else ""),
        "fa3": "FlashAttention-3 (flash-attn's hopper/ interface)",
        "cudnn": "cuDNN fused attention (SDPA's CUDNN_ATTENTION backend)",
        "efficient": "PyTorch SDPA's memory-efficient backend (EFFICIENT_ATTENTION)",
    }

    def fused(impl):
        if impl in att:
            v, prov, src, fx, fxsrc = att[impl]
            slot("attention_" + impl, names[impl], prov, src, [("compute_efficiency", fmt(v)), ("fixed_cost", fx)],
                 {"fixed_cost": ("transferred", fxsrc)})

    for impl in ("fa2", "fa3", "cudnn"):
        fused(impl)
    sm, smsrc = memory_slot(gpu, "attention_split_kv", ratio, msrc, mprov)
    sfix, sfixsrc = fixed("attention_split_kv", gpu, "split-kv decode attention")
    slot("attention_split_kv", "decode attention, the KV sequence split across CTAs", mprov, smsrc,
         [("memory_efficiency", fmt(sm)), ("fixed_cost", sfix)], {"fixed_cost": ("transferred", sfixsrc)})
    v, prov, _, fx, _ = att[default]
    slot("attention_per_head", "decode attention, one CTA per request x KV head", prov,
         "the efficiency of this entry's attention_%s (the H200's per-head slot takes its attention_cudnn's: the same fused kernel, the query group as its query axis; rule C); the stream limit from cta_bandwidth" % default,
         [("compute_efficiency", fmt(v)), ("fixed_cost", fx)],
         {"fixed_cost": ("transferred", "this entry's attention_%s fixed cost, %s (rules C, F)" % (default, fx))},
         (H200["attention_per_head"]["cta_bandwidth"],
          "the H200's (the slope of PyTorch 2.11's batch-1 per-head decode step, measurements/2026-12-01-h200-lease2/decode_h200.json) as an absolute rate: one CTA's stream is bound by its bytes in flight and the DRAM latency, not by the HBM rate; not measured here (rule C)"))
    fused("efficient")
    rm, rmsrc = memory_slot(gpu, "attention_repeat_kv", ratio, msrc, mprov)
    rfix, rfixsrc = fixed("attention_repeat_kv", gpu, "repeat_kv copies + masked SDPA")
    slot("attention_repeat_kv", "decode over a static cache as transformers runs it: repeat_kv copies, then masked SDPA over the copies",
         mprov, rmsrc,
         [("memory_efficiency", fmt(rm)), ("fixed_cost", rfix)], {"fixed_cost": ("transferred", rfixsrc)})
    fm, fmsrc = memory_slot(gpu, "attention_repeat_kv_fused", ratio, msrc, mprov)
    ffix, ffixsrc = fixed("attention_repeat_kv_fused", gpu, "compiled repeat_kv copies + masked SDPA")
    slot("attention_repeat_kv_fused", "the same under torch.compile: inductor's fused copy kernels, then masked SDPA",
         mprov, fmsrc,
         [("memory_efficiency", fmt(fm)), ("fixed_cost", ffix)], {"fixed_cost": ("transferred", ffixsrc)})
    # norm, softmax, elementwise
    for name, what in (("norm", "RMSNorm/LayerNorm"), ("softmax", "softmax"), ("elementwise", "element-wise")):
        v, src = memory_slot(gpu, name, ratio, msrc, mprov)
        fx, fxsrc = fixed(name, gpu, what + " kernels of PyTorch 2.11")
        values = [("memory_efficiency", fmt(v)), ("fixed_cost", fx)]
        origins = {"fixed_cost": ("transferred", fxsrc)}
        if name == "norm":
            rt = us(H200["norm"]["row_time"]) * (132 * 1980) / (sms * boost)
            values.append(("row_time", "%.4f ns" % rt))
            origins["row_time"] = (
                "transferred",
                "the H200's fitted %s per row and pass (3 narrow-row RMSNorms, validation/harnesses/fit_row_time.py) x (132 SM x 1980 MHz) / (%d %s x %d MHz): row-bound norms run a fixed number of rows per SM per clock (rule R)"
                % (H200["norm"]["row_time"], sms, "CU" if vendor == "amd" else "SM", boost),
            )
        slot(name, None, mprov, src, values, origins)
    return "\n".join(lines) + "\n"


def launch_line(gpu):
    if ENTRIES[gpu][0] == "amd":
        why = "measured on an H200 (ridge-probe, 2026-12-01), carried as absolute (hwdb/README.md rule L): no HIP figure is published beyond RRZE's MI210 back-to-back 2.0 us (H200 2.4 us on that harness)"
    else:
        why = "measured on an H200 (ridge-probe, 2026-12-01, measurements/2026-12-01-h200-lease2), carried as absolute (hwdb/README.md rule L): the launch latency CUDA events show around one kernel; RRZE's back-to-back intervals (A100 2.6, H200 2.4, L40 1.6 us) are a floor"
    return "  kernel_fixed_cost: %s  # %s\n" % (KERNEL_FIXED_COST, why)


def power_lines(gpu):
    fraction, burst = H200_POWER
    why = ("the H200's measured pair (ridge-probe --sustained, validation/power_limit.py; hwdb/h200-sxm.yaml), "
           "transferred by rule W (%s): this entry's gemm efficiency is the H200's fit x a harness ratio whose "
           "loops run partly past the burst, so the H200's settled fraction keeps its sustained rate on that footing; "
           "no %s was measured at its power limit" % (REF, gpu))
    idle, busy = H100_RECOVERY
    recovery = ("the H100 SXM's measured refill rates (validation/harnesses/power_recovery.py, "
                "measurements/2026-12-07-h100-power-recovery), transferred by rule W (%s) with the pair above; "
                "no %s was measured" % (REF, gpu))
    return ("  sustained_matrix_fraction: %s   # rule W: the H200's, transferred\n"
            "  burst_time: %s    # rule W: the H200's, transferred\n"
            "  provenance: transferred\n"
            "  source: %s\n"
            "  recovery_idle: %s   # rule W: the H100 SXM's, transferred\n"
            "  recovery_busy: %s\n"
            "  recovery_provenance: transferred\n"
            "  recovery_source: %s\n" % (fraction, burst, q(why), idle, busy, q(recovery)))


def rewrite_power(gpu, text):
    m = re.search(r"\npower:\n(  tdp: [^\n]*\n)(?:  (?:sustained_matrix_fraction|burst_time|provenance|source|recovery_idle|"
                  r"recovery_busy|recovery_provenance|recovery_source):[^\n]*\n)*", text)
    assert m, gpu
    return text[:m.start(1)] + m.group(1) + power_lines(gpu) + text[m.end():]


def rewrite(gpu, text):
    text = rewrite_power(gpu, text)
    # drop what an earlier run wrote
    text = re.sub(r"  kernel_fixed_cost: [^\n]*\n", "", text)
    text = re.sub(r"timing:   # the H200's measured fit carried here[^\n]*\n(?:  [^\n]*\n)*", "", text)
    m = re.search(r"\nlaunch:\n(?:  [^\n]*\n)+", text)
    assert m, gpu
    end = m.end()
    return text[:end] + launch_line(gpu) + timing_block(gpu) + text[end:]


def main():
    check = "--check" in sys.argv[1:]
    differ = []
    for gpu in ENTRIES:
        path = os.path.join(HWDB, gpu + ".yaml")
        old = open(path, encoding="utf-8").read()
        new = rewrite(gpu, old)
        if new != old:
            differ.append(gpu)
            if not check:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(new)
    if check:
        for gpu in differ:
            print("timing_transfer: hwdb/%s.yaml differs from its rules (run python3 validation/timing_transfer.py)" % gpu)
        return 1 if differ else 0
    print("timing_transfer: %d entries rewritten" % len(differ))
    return 0


if __name__ == "__main__":
    sys.exit(main())
