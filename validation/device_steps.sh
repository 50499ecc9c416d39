# Shared by the lent-GPU scripts (validation/heldout/*-run.sh,
# validation/harnesses/device-run.sh): sourced after $log is set.
#   step NAME COMMAND...   runs COMMAND with its output in $log, then prints and
#                          logs "NAME exit N in S s"
#   gpu_state              the UTC time and nvidia-smi's GPU, driver, clocks,
#                          power, temperature and memory (what measurements/ records)
#   lease_header           gpu_state, the host's CPU and cores, and the PyTorch,
#                          CUDA, cuDNN and transformers versions
step() {
	local name=$1 t0
	shift
	t0=$(date +%s)
	"$@" >>"$log" 2>&1
	echo "$name exit $? in $(($(date +%s) - t0)) s" | tee -a "$log"
}
gpu_state() {
	date -u +%Y-%m-%dT%H:%M:%SZ
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu,memory.total --format=csv
}
lease_header() {
	gpu_state
	grep -m1 "model name" /proc/cpuinfo
	nproc
	python3 -c 'import torch, transformers; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "transformers", transformers.__version__)'
}
