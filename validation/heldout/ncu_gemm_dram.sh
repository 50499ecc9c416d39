#!/bin/sh
# DRAM, L2 traffic and time of bf16 cuBLAS GEMMs (torch F.linear) under Nsight
# Compute, one CSV row per profiled kernel: the measurements the L2-aware GEMM
# traffic model (docs/models/gemm-traffic.md) is checked against.
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
metrics=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,gpu__time_duration.sum,launch__cluster_size
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
count=$("$py" "$here/ncu_gemm_dram.py" --count)
echo "shape,m,n,k,kernel,grid,block,cluster,dram_read_bytes,dram_write_bytes,lts_bytes,time_s"  # m, n, k: torch's x (m x k) @ W^T (k x n)
i=0
while [ "$i" -lt "$count" ]; do
	echo "ncu_gemm_dram: shape $i of $count" >&2
	"$ncu" --target-processes all --profile-from-start off --clock-control none --cache-control all --metrics "$metrics" \
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
SCALE = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Tbyte": 1e12,
         "nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "second": 1, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}
units = rows[head + 1]
def num(r, key):  # in bytes or seconds, whatever unit ncu printed
    return float(get(r, key)) * SCALE[units[cols.index(key)]]
out = csv.writer(sys.stdout)
found = 0
for r in rows[head + 2:]:  # the row after the header holds the units
    if len(r) != len(cols):
        continue
    found += 1
    out.writerow([name, m, n, k, r[cols.index("Kernel Name")], r[cols.index("Grid Size")], r[cols.index("Block Size")],
                  get(r, "launch__cluster_size"), repr(num(r, "dram__bytes_read.sum")),
                  repr(num(r, "dram__bytes_write.sum")), repr(num(r, "lts__t_bytes.sum")),
                  repr(num(r, "gpu__time_duration.sum"))])
if not found:
    sys.exit("ncu_gemm_dram: no kernel profiled for " + name)
PY
	i=$((i + 1))
done
