#!/bin/bash
# Issue 33 on a lent GPU: ridge-probe --out-dir under torchrun (one process)
# and under a simulated Slurm step (the variables srun sets), each into its own
# directory; ridge fleet reads them on the development machine
# (measurements/2026-12-06-h200-fleet/README.md). Carry ridge-probe, built
# portable, in .carry/:
#   make BUILD=build-dev PROBE_PORTABLE=1 PROBE_CUDA_ARCHS=90 build-dev/ridge-probe
#   mkdir -p .carry && cp -r build-dev/ridge-probe build-dev/lib .carry/
set -u
out=${OUT:-/tmp/fleet-out}
probe=$(pwd)/.carry/ridge-probe
log="$out/device-fleet.log"
mkdir -p "$out/torchrun" "$out/slurm"
export PYTHONUNBUFFERED=1
. validation/device_steps.sh
{ gpu_state; python3 -c 'import torch; print("torch", torch.__version__)'; } >"$log" 2>&1
step torchrun torchrun --nproc_per_node=1 --no-python "$probe" --quick --out-dir "$out/torchrun"
step slurm env SLURMD_NODENAME=simnode1 SLURM_PROCID=1 SLURM_LOCALID=0 SLURM_NODEID=1 SLURM_NTASKS=2 \
	SLURM_JOB_ID=4242 "$probe" --quick --out-dir "$out/slurm"
# a second rank on the same GPU and directory is refused, the first file intact
step slurm_again env SLURMD_NODENAME=simnode1 SLURM_PROCID=1 SLURM_LOCALID=0 SLURM_NODEID=1 SLURM_NTASKS=2 \
	"$probe" --quick --out-dir "$out/slurm"
gpu_state >>"$log" 2>&1
ls -l "$out/torchrun" "$out/slurm" | tee -a "$log"
tar czf "$out/fleet_runs.tgz" -C "$out" torchrun slurm && rm -rf "$out/torchrun" "$out/slurm"
grep -E " exit |rror" "$log" | tail -n 12
