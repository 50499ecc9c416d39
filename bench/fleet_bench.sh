#!/bin/sh
# ridge fleet over a 10,000-GPU directory (issue 33: under 5 s and 500 MB on
# the 2-core build machine): tests/gen_fleet.py writes N results as
# ridge-probe --out-dir writes them (a real H200 result, 116 KB, the
# occupancy table left out) into FLEET_BENCH_DIR (default build/bench/fleet-N,
# kept for the next run: 1.2 GB at 10,000), then ridge fleet reads it three
# times, warm, under /usr/bin/time: the best wall time and the largest
# resident set count. The flagged GPUs are checked against the generator's
# manifest, so that the work cannot silently shrink.
# usage: sh bench/fleet_bench.sh [RIDGE] [N]
set -eu
RIDGE=${1:-build/ridge}
N=${2:-10000}
DIR=${FLEET_BENCH_DIR:-build/bench/fleet-$N}
if ! command -v python3 >/dev/null 2>&1 || [ ! -x /usr/bin/time ]; then
	echo "fleet_bench: skipped: needs python3 and /usr/bin/time"
	exit 0
fi
if [ ! -f "$DIR/.complete" ]; then
	rm -rf "$DIR"
	start=$(date +%s)
	python3 tests/gen_fleet.py "$DIR" --gpus "$N" --seed 33 --hbm-degraded 5 --throttled-hosts 3 \
		--manifest "$DIR.manifest.json"
	touch "$DIR/.complete"
	echo "fleet_bench: generated $N results in $(($(date +%s) - start)) s ($(du -sh "$DIR" | cut -f1))"
fi
best=""
rss=0
for pass in 1 2 3; do
	/usr/bin/time -f '%e %M' -o "$DIR.time" "$RIDGE" fleet "$DIR" --json >"$DIR.out.json" || [ $? -eq 1 ]
	read -r wall kb <<EOT
$(tail -n 1 "$DIR.time")
EOT
	best=$(awk -v a="$wall" -v b="${best:-$wall}" 'BEGIN { print (a < b ? a : b) }')
	[ "$kb" -gt "$rss" ] && rss=$kb
done
python3 - "$DIR.out.json" "$DIR.manifest.json" <<'PY'
import json, sys
got, want = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
flagged = {g["file"] for grp in got["groups"] for g in grp["flagged"]}
if flagged != set(want["gpus"]) or got["results"] != got["files"]:
    sys.exit("fleet_bench: the flagged GPUs differ from the generator's manifest")
PY
echo "fleet_bench: ridge fleet over $N results: best of 3 $best s, max RSS $((rss / 1024)) MiB;" \
	"$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) ($(uname -m), $(date -u +%Y-%m-%d))"
