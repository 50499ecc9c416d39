#!/bin/sh
# DRAM, L2 traffic and time of bf16 cuBLAS GEMMs (torch F.linear) under Nsight
# Compute, one CSV row per profiled kernel: the measurements the L2-aware GEMM
# traffic model (model/README.md, "L2-aware GEMM traffic") is checked against.
#
#   sh validation/heldout/ncu_gemm_dram.sh > ncu_gemm_dram.csv
#
# Needs ncu, python3 with PyTorch and a CUDA GPU (written for the H200). Runs
# each shape of ncu_gemm_dram.py in its own process (every kernel of that
# process's profiled range belongs to the shape); about 5-10 s per shape, 14
# shapes. ncu flushes the caches before each kernel (--cache-control all, its
# default), so every kernel starts with a cold L2. Stdout: the CSV; stderr:
# progress and ncu's own messages.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
ncu=${NCU:-ncu}
metrics=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__cluster_size
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
count=$("$py" "$here/ncu_gemm_dram.py" --count)
echo "shape,m,n,k,kernel,grid,block,cluster,dram_read_bytes,dram_write_bytes,lts_bytes,time_s"
i=0
while [ "$i" -lt "$count" ]; do
	echo "ncu_gemm_dram: shape $i of $count" >&2
	"$ncu" --profile-from-start off --clock-control none --cache-control all --metrics "$metrics" \
		--csv --page raw --print-units base "$py" "$here/ncu_gemm_dram.py" "$i" >"$tmp/raw.csv" 2>"$tmp/err" ||
		{ cat "$tmp/err" >&2; exit 1; }
	"$py" - "$here/ncu_gemm_dram.py" "$i" "$tmp/raw.csv" <<'PY'
import csv, importlib.util, sys
spec = importlib.util.spec_from_file_location("shapes", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
name, m, n, k = mod.SHAPES[int(sys.argv[2])]
rows = [r for r in csv.reader(open(sys.argv[3])) if r]
head = next(i for i, r in enumerate(rows) if r[0] == "ID")
cols = rows[head]
def get(r, key):
    v = r[cols.index(key)].replace(",", "")
    return v
def num(r, key):
    return float(get(r, key))
out = csv.writer(sys.stdout)
found = 0
for r in rows[head + 2:]:  # the row after the header holds the units
    if len(r) != len(cols):
        continue
    found += 1
    out.writerow([name, m, n, k, get(r, "Kernel Name"), get(r, "launch__grid_size"), get(r, "launch__block_size"),
                  get(r, "launch__cluster_size"), repr(num(r, "dram__bytes_read.sum")),
                  repr(num(r, "dram__bytes_write.sum")), repr(num(r, "lts__t_bytes.sum")),
                  repr(num(r, "gpu__time_duration.sum") * 1e-9)])
if not found:
    sys.exit("ncu_gemm_dram: no kernel profiled for " + name)
PY
	i=$((i + 1))
done
