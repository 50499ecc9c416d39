#!/bin/bash
# Issue 34's library-GEMM measurements on a lent H200, everything under $OUT:
# ncu's DRAM bytes of torch.mm (bf16) over square, tall, wide and long-K shapes
# (one process a shape), then gemm_library.py small. ~3 min.
set -u
out=${OUT:-/tmp/gemm-out}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export PYTHONUNBUFFERED=1 PATH="$PATH:/usr/local/cuda/bin"
log="$out/device-gemm.log"
[ -e "$log" ] && log="$out/device-gemm-dram.log"
. "$here/../device_steps.sh"
{ gpu_state; ncu --version | tail -1; } >"$log" 2>&1
cd "$here"
# GEMM_SHAPES overrides the shapes ("M,N,K M,N,K ..."); GEMM_SMALL=0 skips the small-M run
shapes=${GEMM_SHAPES:-"4096,4096,4096 8192,8192,8192 12288,12288,12288 16384,16384,16384
32768,4096,4096 65536,4096,4096 4096,32768,4096 4096,65536,4096
4096,4096,32768 8192,8192,32768 2048,2048,65536 8192,14336,4096 8192,4096,14336 16384,28672,8192
16384,8192,28672 1024,8192,8192 8192,1024,8192 2048,16384,16384"}
metrics=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,gpu__time_duration.sum,launch__grid_size,launch__block_size
echo "m,n,k,kernel,grid,block,dram_read_bytes,dram_write_bytes,lts_bytes,time_ns" >"$out/gemm_dram.csv"
for s in $shapes; do
	IFS=, read -r m n k <<<"$s"
	ncu --profile-from-start off --clock-control none --metrics "$metrics" --csv \
		python3 gemm_library.py dram "$m" "$n" "$k" >"$out/ncu_$m-$n-$k.csv" 2>>"$log"
	python3 - "$out/ncu_$m-$n-$k.csv" "$m" "$n" "$k" >>"$out/gemm_dram.csv" <<'PY'
import csv, sys
path, m, n, k = sys.argv[1:5]
lines = [l for l in open(path) if l.startswith('"')]
kern = {}
for r in csv.DictReader(lines):
    key = r["ID"]
    kern.setdefault(key, {"name": r["Kernel Name"]})[r["Metric Name"]] = r["Metric Value"].replace(",", "")
for key, v in kern.items():
    print(",".join([m, n, k, '"' + v["name"][:120].replace('"', "'") + '"', v.get("launch__grid_size", ""),
                    v.get("launch__block_size", ""), v.get("dram__bytes_read.sum", ""),
                    v.get("dram__bytes_write.sum", ""), v.get("lts__t_bytes.sum", ""),
                    v.get("gpu__time_duration.sum", "")]))
PY
	echo "ncu $m x $n x $k: $(tail -n 1 "$out/gemm_dram.csv" | cut -c1-160)" >>"$log"
done
[ "${GEMM_SMALL:-1}" = 0 ] || step small python3 gemm_library.py small "$out/gemm_small_m.json"
gpu_state >>"$log" 2>&1
tar czf "$out/ncu_raw.tgz" -C "$out" $(cd "$out" && ls ncu_*.csv) && rm -f "$out"/ncu_*.csv
cat "$out/gemm_dram.csv"
grep -E "Error|error" "$log" | tail -n 10
