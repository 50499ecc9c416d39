#!/bin/bash
# Runs ridge-probe on a lent GPU machine in one go and leaves everything under
# $OUT: the build check, SASS checks, the measurements (JSON + the text
# report), the calibration, and the ncu fixture for the roofline tests.
#
#   probe/device-run.sh smoke   binary runs? SASS right? --quick, ncu and
#                               compute-sanitizer reachable? (about a minute)
#   probe/device-run.sh full    the full run + calibration + ncu CSVs
#   probe/device-run.sh extra   a second full run (run-to-run spread) and an
#                               ncu capture with the tensor-core FLOP counters
#   probe/device-run.sh ceilings  issue 19: SASS of the new kernels, the scratch
#                               experiment (measurements/2026-12-01-h200-ceilings/exp.cu),
#                               the full run with calibration, --quick, and
#                               --sustained 20 over copy and the bf16 GEMM
#   probe/device-run.sh lease3  the third lease of 2026-12-01: SASS of the chases,
#                               the scratch experiment (measurements/2026-12-01-h200-lease3/
#                               exp.cu, carried prebuilt as DIR/exp), two full runs
#                               and two --quick runs (latency_hops stable?)
#   probe/device-run.sh validate  --quick --validate (fast failure check), the
#                               full --validate run with its calibration, the
#                               plain --quick time, compute-sanitizer on the
#                               validation kernels, and ncu's traffic per
#                               memory level for the validation kernels
#
# The binary is built on the development machine (make PROBE_PORTABLE=1) and
# carried with its lib/ next to it; DIR is the folder holding ridge-probe.
set -u
mode=${1:-smoke}
dir=${2:-$(cd "$(dirname "$0")" && pwd)}
out=${OUT:-/tmp/probe-out}
mkdir -p "$out"
probe="$dir/ridge-probe"
log="$out/device.log"
export PATH="$PATH:/usr/local/cuda/bin"
say() { printf '\n==== %s\n' "$*" | tee -a "$log"; }
run() { echo "\$ $*" >>"$log"; "$@" >>"$log" 2>&1; rc=$?; echo "(exit $rc)" >>"$log"; return $rc; }

say "machine $(date -u +%Y-%m-%dT%H:%M:%SZ)"
run uname -a
run nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu,memory.total --format=csv
run nvcc --version
run ldd "$probe"
run "$probe" --help

say "SASS (cuobjdump, sm_90 and sm_90a)"
sass="$out/sass.txt"
{
	echo "cuobjdump --dump-resource-usage (sm_90/sm_90a):"
	cuobjdump --dump-resource-usage "$probe" 2>&1 | grep -A1 -E "arch = sm_90|Function rp_|Function _Z[0-9]+rp_" | grep -E "Function|REG" | head -60
	cuobjdump --dump-sass -arch sm_90 "$probe" >/tmp/sass_sm90.txt 2>&1
	cuobjdump --dump-sass -arch sm_90a "$probe" >/tmp/sass_sm90a.txt 2>&1
	for k in rp_copy rp_triad rp_read rp_write rp_l2_read rp_smem rp_fma_f32 rp_fma_f64 rp_fma_f16x2 rp_mma_bf16 rp_wgmma_bf16; do
		for arch in sm_90 sm_90a; do
			body=$(awk -v k="$k" '/Function : /{p = index($0, k "P") > 0} p' /tmp/sass_$(echo $arch | tr -d _).txt)
			[ -n "$body" ] || continue
			printf '%-13s %-6s lines %5d  LDG.128 %2d  STG.128 %2d  LDS.128 %2d  FFMA %4d  DFMA %4d  HFMA2 %4d  HMMA %3d  HGMMA %3d  LDL/STL %d  reuse %d\n' \
				"$k" "$arch" "$(echo "$body" | wc -l)" \
				"$(echo "$body" | grep -cE 'LDG\.E[.A-Z0-9]*\.128')" "$(echo "$body" | grep -cE 'STG\.E[.A-Z0-9]*\.128')" \
				"$(echo "$body" | grep -c 'LDS.128')" "$(echo "$body" | grep -c 'FFMA')" "$(echo "$body" | grep -c 'DFMA')" \
				"$(echo "$body" | grep -c 'HFMA2')" "$(echo "$body" | grep -c 'HMMA')" "$(echo "$body" | grep -c 'HGMMA')" \
				"$(echo "$body" | grep -cE 'LDL|STL')" "$(echo "$body" | grep -c 'reuse')"
		done
	done
	echo "the FFMA loop of rp_fma_f32 (sm_90), first lines:"
	awk '/Function : .*rp_fma_f32P/{p = 1} p' /tmp/sass_sm90.txt | grep -m6 FFMA
	echo
	echo "one HGMMA and one HMMA line as issued:"
	grep -m2 HGMMA /tmp/sass_sm90a.txt
	grep -m2 HMMA /tmp/sass_sm90.txt
} >"$sass" 2>&1
cat "$sass" >>"$log"

if [ "$mode" = ceilings ]; then
	say "SASS of the issue-19 kernels"
	{
		for k in rp_copy rp_triad rp_l2_read rp_chase aux_check_stream; do
			body=$(awk -v k="$k" '/Function : /{p = index($0, k) > 0} p' /tmp/sass_sm90.txt)
			printf '%-17s sm_90  lines %5d  LDG.128 %2d  STG.128 %2d  LDG.64 %2d  LDG.STRONG.GPU %2d  LDL/STL %d\n' "$k" \
				"$(echo "$body" | wc -l)" "$(echo "$body" | grep -cE 'LDG\.E[.A-Z0-9]*\.128')" \
				"$(echo "$body" | grep -cE 'STG\.E[.A-Z0-9]*\.128')" "$(echo "$body" | grep -cE 'LDG\.E[.A-Z0-9]*\.64')" \
				"$(echo "$body" | grep -c 'STRONG.GPU')" "$(echo "$body" | grep -cE 'LDL|STL')"
		done
		echo "rp_l2_read loads:"; awk '/Function : .*rp_l2_read/{p = 1} /Function : /{if (!index($0, "rp_l2_read")) p = 0} p' /tmp/sass_sm90.txt | grep -m4 LDG
		echo "rp_chase loads:"; awk '/Function : .*rp_chase/{p = 1} p' /tmp/sass_sm90.txt | grep -m4 -E 'LDG|LDS'
		echo "wgmma instructions per kernel (sm_90a):"
		awk '/Function : /{name = $3} /GMMA/{split($0, a, /[ ;]+/); for (i in a) if (a[i] ~ /GMMA/) {print name, a[i]; break}}' /tmp/sass_sm90a.txt | sort | uniq -c
		echo "wgmma kernels, LDL/STL:"; grep -cE 'LDL|STL' /tmp/sass_sm90a.txt
	} >>"$sass" 2>&1
	if [ "${EXP:-1}" = 1 ]; then
		say "scratch experiment"
		exp=measurements/2026-12-01-h200-ceilings/exp.cu
		nvcc -O3 -arch=sm_90 "$exp" -o /tmp/exp19 >>"$log" 2>&1 && /tmp/exp19 >"$out/exp.txt" 2>&1
		echo "(exp exit $?)" >>"$log"
	fi
	say "full run"
	start=$(date +%s%N)
	"$probe" --json --out "$out/h200-measured.yaml" >"$out/probe_h200.json" 2>>"$log"
	echo "(exit $?, $(( ($(date +%s%N) - start) / 1000000 )) ms)" | tee -a "$log"
	"$probe" --replay "$out/probe_h200.json" >"$out/probe_h200.txt" 2>>"$log"
	say "quick run"
	start=$(date +%s%N)
	"$probe" --quick --json >"$out/quick.json" 2>>"$log"
	echo "(exit $?, $(( ($(date +%s%N) - start) / 1000000 )) ms)" | tee -a "$log"
	say "sustained 20 s: copy and the bf16 GEMM"
	start=$(date +%s%N)
	"$probe" --only copy,gemm_bf16 --sustained 20 --json >"$out/sustained.json" 2>>"$log"
	echo "(exit $?, $(( ($(date +%s%N) - start) / 1000000 )) ms)" | tee -a "$log"
	"$probe" --replay "$out/sustained.json" >>"$log" 2>&1
	say "quick validation suite (nothing of it changed: a check that it still runs)"
	start=$(date +%s%N)
	"$probe" --quick --only validate >"$out/validate_quick.txt" 2>>"$log"
	echo "(exit $?, $(( ($(date +%s%N) - start) / 1000000 )) ms)" | tee -a "$log"
elif [ "$mode" = lease3 ]; then
	say "SASS of the chases and the L2 kernel (sm_90)"
	for k in rp_chase rp_chase_hops rp_chase_smem aux_chain_checksum rp_l2_read; do
		echo "$k:"
		awk -v k="$k" '/Function : /{p = index($0, k "I") > 0 || index($0, k "P") > 0} p' /tmp/sass_sm90.txt | grep -m6 -E 'LDG|LDS|CS2R|S2UR|S2R'
	done >>"$sass" 2>&1
	if [ -x "$dir/exp" ]; then
		say "scratch experiment (measurements/2026-12-01-h200-lease3/exp.cu, built on the development machine)"
		start=$(date +%s%N)
		"$dir/exp" >"$out/exp.txt" 2>&1
		echo "(exp exit $?, $(( ($(date +%s%N) - start) / 1000000 )) ms)" | tee -a "$log"
	fi
	for r in 1 2; do
		say "full run $r"
		start=$(date +%s%N)
		if [ $r = 1 ]; then
			"$probe" --json --out "$out/h200-measured.yaml" >"$out/full$r.json" 2>>"$log"
		else
			"$probe" --json >"$out/full$r.json" 2>>"$log"
		fi
		echo "(exit $?, $(( ($(date +%s%N) - start) / 1000000 )) ms)" | tee -a "$log"
	done
	for r in 1 2; do
		say "quick run $r"
		start=$(date +%s%N)
		"$probe" --quick --json >"$out/quick$r.json" 2>>"$log"
		echo "(exit $?, $(( ($(date +%s%N) - start) / 1000000 )) ms)" | tee -a "$log"
	done
elif [ "$mode" = smoke ]; then
	say "quick run"
	start=$(date +%s%N)
	"$probe" --quick --json >"$out/quick.json" 2>>"$log"
	echo "(exit $?, $(( ($(date +%s%N) - start) / 1000000 )) ms)" >>"$log"
	run "$probe" --replay "$out/quick.json"
	say "ncu reachable, metric names"
	ncu --query-metrics 2>/dev/null | grep -E '^(gpu__time_duration|dram__bytes_read|dram__bytes_write|sm__sass_thread_inst_executed_op_(ffma|fadd|fmul|dfma|hfma)_pred_on|sm__inst_executed_pipe_tensor)' >>"$log" 2>&1
	timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,sm__inst_executed_pipe_tensor.sum \
		-k 'regex:^(rp_|[^a])' "$probe" --only copy,mma_bf16 --repeats 1 --warmup 0 --quick >>"$log" 2>&1
	echo "(ncu exit $?)" >>"$log"
	say "compute-sanitizer memcheck (compute, tensor, smem, launch; one run each)"
	timeout 150 compute-sanitizer --tool memcheck "$probe" --only compute,tensor,smem,graph_node --repeats 1 --warmup 0 >>"$log" 2>&1
	echo "(compute-sanitizer exit $?)" >>"$log"
elif [ "$mode" = extra ]; then
	say "second full run"
	start=$(date +%s%N)
	"$probe" --json >"$out/probe_h200_run2.json" 2>>"$log"
	echo "(exit $?, $(( ($(date +%s%N) - start) / 1000000 )) ms)" >>"$log"
	say "ncu: tensor-core metrics available"
	ncu --query-metrics 2>/dev/null | grep -E '^(sm__ops_path_tensor|sm__inst_executed_pipe_tensor|lts__t_bytes |dram__bytes )' >>"$log" 2>&1
	tensor=$(ncu --query-metrics 2>/dev/null | awk '/^sm__ops_path_tensor_src_[a-z0-9]+_dst_[a-z0-9]+ / && !/sparsity/ {printf "%s.sum,", $1}')
	metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__sass_thread_inst_executed_op_dfma_pred_on.sum,sm__sass_thread_inst_executed_op_hfma_pred_on.sum,sm__inst_executed_pipe_tensor.sum,sm__inst_executed_pipe_tensor_op_hmma.sum,sm__inst_executed_pipe_tensor_op_gmma.sum,sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum,${tensor%,}
	echo "metrics: $metrics" >>"$log"
	timeout 300 ncu --clock-control none --metrics "$metrics" -k 'regex:^(rp_|[^a])' -o /tmp/ridge-ncu-ext -f \
		"$probe" --only copy,triad,fma_fp32,mma_bf16,wgmma_bf16,gemm_bf16,gemm_fp8 --repeats 1 --warmup 0 --quick >>"$log" 2>&1
	echo "(ncu exit $?)" >>"$log"
	ncu -i /tmp/ridge-ncu-ext.ncu-rep --csv --page details >"$out/ncu_h200_tensor.csv" 2>>"$log"
	ncu -i /tmp/ridge-ncu-ext.ncu-rep --csv --page raw >"$out/ncu_h200_tensor_raw.csv" 2>>"$log"
elif [ "$mode" = validate ]; then
	say "quick validate"
	start=$(date +%s%N)
	"$probe" --quick --validate --json >"$out/validate_quick.json" 2>>"$log"
	echo "(exit $?, $(( ($(date +%s%N) - start) / 1000000 )) ms)" | tee -a "$log"
	say "full validate"
	start=$(date +%s%N)
	"$probe" --validate --json --out "$out/h200-calibration.yaml" >"$out/validate_h200.json" 2>>"$log"
	echo "(exit $?, $(( ($(date +%s%N) - start) / 1000000 )) ms)" | tee -a "$log"
	"$probe" --replay "$out/validate_h200.json" >"$out/validate_h200.txt" 2>>"$log"
	say "plain --quick (time only)"
	start=$(date +%s%N)
	"$probe" --quick --json >/dev/null 2>>"$log"
	echo "(exit $?, $(( ($(date +%s%N) - start) / 1000000 )) ms)" | tee -a "$log"
	say "compute-sanitizer memcheck on the validation kernels (quick set, one run each)"
	timeout 150 compute-sanitizer --tool memcheck "$probe" --only v_gemm,v_fused,v_launch --quick --repeats 1 --warmup 0 >>"$log" 2>&1
	echo "(compute-sanitizer exit $?)" | tee -a "$log"
	say "ncu: bytes per memory level of the validation kernels"
	avail=$(ncu --query-metrics 2>/dev/null | awk '{print $1}')
	metrics=""
	for mtr in gpu__time_duration dram__bytes_read dram__bytes_write lts__t_bytes l1tex__t_bytes \
		l1tex__data_pipe_lsu_wavefronts_mem_shared l1tex__t_requests_pipe_lsu_mem_global_op_ld \
		sm__sass_thread_inst_executed_op_ffma_pred_on sm__inst_executed_pipe_tensor \
		sm__inst_executed_pipe_tensor_op_hmma_type_hfma2; do
		echo "$avail" | grep -qx "$mtr" && metrics="$metrics${metrics:+,}$mtr.sum"
	done
	echo "metrics: $metrics" | tee -a "$log"
	timeout 300 ncu --clock-control none --metrics "$metrics" -k 'regex:^(rv_|[^a])' -o /tmp/ridge-ncu-val -f \
		"$probe" --only v_stream,v_gemm,v_blas,v_fused --quick --repeats 1 --warmup 0 >>"$log" 2>&1
	echo "(ncu exit $?)" | tee -a "$log"
	ncu -i /tmp/ridge-ncu-val.ncu-rep --csv --page raw >"$out/ncu_h200_validate.csv" 2>>"$log"
	timeout 200 ncu --clock-control none --metrics "$metrics" -k 'regex:^rv_gemm' -o /tmp/ridge-ncu-gemm -f \
		"$probe" --only v_gemm --repeats 1 --warmup 0 >>"$log" 2>&1
	echo "(ncu gemm exit $?)" | tee -a "$log"
	ncu -i /tmp/ridge-ncu-gemm.ncu-rep --csv --page raw >"$out/ncu_h200_gemm.csv" 2>>"$log"
	run ncu --version
else
	say "full run"
	start=$(date +%s%N)
	"$probe" --json --out "$out/h200-measured.yaml" >"$out/probe_h200.json" 2>>"$log"
	echo "(exit $?, $(( ($(date +%s%N) - start) / 1000000 )) ms)" >>"$log"
	"$probe" --replay "$out/probe_h200.json" >"$out/probe_h200.txt" 2>>"$log"
	say "ncu fixture"
	metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__sass_thread_inst_executed_op_dfma_pred_on.sum,sm__sass_thread_inst_executed_op_hfma_pred_on.sum,sm__inst_executed_pipe_tensor.sum
	timeout 300 ncu --clock-control none --metrics "$metrics" -k 'regex:^(rp_|[^a])' -o /tmp/ridge-ncu -f \
		"$probe" --only copy,triad,fma_fp32,gemm_bf16 --repeats 1 --warmup 0 --quick >>"$log" 2>&1
	echo "(ncu exit $?)" >>"$log"
	ncu -i /tmp/ridge-ncu.ncu-rep --csv --page details >"$out/ncu_h200.csv" 2>>"$log"
	ncu -i /tmp/ridge-ncu.ncu-rep --csv --page raw >"$out/ncu_h200_raw.csv" 2>>"$log"
	run ncu --version
fi
say "after"
run nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
# The short table last: the reply carries the end of the output.
if [ "$mode" = extra ]; then
	"$probe" --replay "$out/probe_h200_run2.json" 2>&1 | head -30
	grep -E 'metrics:|ncu exit|ERR' "$log" | cut -c1-600
	wc -l "$out"/ncu_h200_tensor*.csv
elif [ "$mode" = validate ]; then
	grep -E 'ERROR SUMMARY|warning|error' "$log" | head -20
	wc -l "$out"/ncu_h200_validate.csv
	sed -n '/^Validation/,$p' "$out/validate_h200.txt"
elif [ "$mode" = ceilings ]; then
	grep -E 'exit|warning|error' "$log" | grep -v 'exit 0' | head -20
	[ -f "$out/exp.txt" ] && cat "$out/exp.txt"
	sed -n '/^ceiling/,/^checks/p' "$out/probe_h200.txt"
	grep -E 'FAILED|not run' "$out/probe_h200.txt"
	tail -4 "$out/validate_quick.txt"
	sed -n '/^sustained/,+8p' "$log" | head -20
elif [ "$mode" = lease3 ]; then
	grep -E 'exit|error|FAILED|latency_hops|\[1/|occupancy \(' "$log" | head -40
	[ -f "$out/exp.txt" ] && cut -c1-400 "$out/exp.txt"
	for r in 1 2; do
		"$probe" --replay "$out/full$r.json" >/tmp/full$r.txt 2>&1
		grep -E '^(hbm|l2_|smem)|FAILED' /tmp/full$r.txt | cut -c1-120
		sed -n '/^latency/,/partitions/p' /tmp/full$r.txt | cut -c1-160
	done
elif [ "$mode" = smoke ]; then
	"$probe" --replay "$out/quick.json" 2>&1 | head -60
	grep -E 'ERROR SUMMARY|exit [1-9]|error' "$log" | head -20
	cat "$sass"
else
	cat "$out/probe_h200.txt"
	wc -l "$out"/ncu_h200*.csv
fi
