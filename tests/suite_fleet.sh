#!/bin/sh
# ridge fleet on synthetic fleets (tests/gen_fleet.py: real H200 results with
# noise, some GPUs made slow on purpose): the GPUs it flags are exactly the
# degraded ones, on exactly the ceilings degraded, and the host it names is
# the throttled one; nothing is flagged in a healthy fleet; hostile files
# are refused naming the file (exit 2), or listed with --skip-bad (exit 1);
# the strip plots label every flagged GPU.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
BUILD=${BUILD:-build}
RIDGE=${RIDGE:-$BUILD/ridge}
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }

if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP suite_fleet: python3 not found (tests/gen_fleet.py)"
	echo "0 passed, 0 failed"
	exit 0
fi

# expect NAME CODE TEXT-IN-STDERR-OR-EMPTY -- ridge args...
expect() {
	name=$1 code=$2 text=$3
	shift 4
	"$RIDGE" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	got=$?
	if [ "$got" != "$code" ]; then
		bad "$name: exit $got, expected $code"
		sed 's/^/     stderr: /' "$tmp/err" | head -n 3
	elif [ -n "$text" ] && ! grep -qF -- "$text" "$tmp/err" && ! grep -qF -- "$text" "$tmp/out"; then
		bad "$name: neither stderr nor stdout holds '$text'"
		sed 's/^/     stderr: /' "$tmp/err" | head -n 3
	else
		ok
	fi
}

# matches NAME DIR MANIFEST: ridge fleet --json flags exactly the manifest's
# GPUs on exactly its ceilings, and names exactly its hosts.
matches() {
	name=$1 dir=$2 manifest=$3
	"$RIDGE" fleet "$dir" --json >"$tmp/fleet.json" 2>"$tmp/err"
	code=$?
	want_code=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(1 if m["gpus"] else 0)' "$manifest")
	if [ "$code" != "$want_code" ]; then
		bad "$name: exit $code, expected $want_code"
		return
	fi
	if python3 - "$tmp/fleet.json" "$manifest" >"$tmp/diff" <<'EOF'; then ok; else bad "$name: flags differ from the manifest"; sed 's/^/     /' "$tmp/diff" | head -n 8; fi
import json, sys
got, want = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
flagged = {g["file"]: sorted(c["name"] for c in g["ceilings"]) for grp in got["groups"] for g in grp["flagged"]}
hosts = {n["host"]: sorted(c["name"] for c in n["ceilings"]) for grp in got["groups"] for n in grp["nodes"]}
problems = []
for f in sorted(set(flagged) | set(want["gpus"])):
    if flagged.get(f) != want["gpus"].get(f):
        problems.append("%s: flagged %s, degraded %s" % (f, flagged.get(f), want["gpus"].get(f)))
for h in sorted(set(hosts) | set(want["hosts"])):
    if hosts.get(h) != want["hosts"].get(h):
        problems.append("host %s: named for %s, throttled %s" % (h, hosts.get(h), want["hosts"].get(h)))
if got["flagged_gpus"] != len(want["gpus"]) or got["flagged_nodes"] != len(want["hosts"]):
    problems.append("counts %d GPUs %d nodes" % (got["flagged_gpus"], got["flagged_nodes"]))
print("\n".join(problems))
sys.exit(1 if problems else 0)
EOF
}

# ---- the degraded GPUs are exactly the flagged ones ----
matches "fixture after" tests/fixtures/fleet/after tests/fixtures/fleet/after.manifest.json
matches "fixture before" tests/fixtures/fleet/before tests/fixtures/fleet/before.manifest.json
for seed in 1 2; do
	python3 tests/gen_fleet.py "$tmp/g$seed" --gpus 64 --seed "$seed" --manifest "$tmp/g$seed.m" --trim
	matches "64 GPUs, seed $seed" "$tmp/g$seed" "$tmp/g$seed.m"
done
python3 tests/gen_fleet.py "$tmp/big" --gpus 256 --seed 7 --hbm-degraded 3 --throttled-hosts 2 --manifest "$tmp/big.m" --trim
matches "256 GPUs, 3 HBM, 2 hosts" "$tmp/big" "$tmp/big.m"
python3 tests/gen_fleet.py "$tmp/full" --gpus 16 --per-host 4 --seed 4 --manifest "$tmp/full.m"
matches "16 full-size results" "$tmp/full" "$tmp/full.m"
# Read by two threads or more (64 files a thread): a unit that disagrees with the
# files before refuses the file that disagrees, as one reader would.
sed -i '0,/"unit": "B\/s"/s//"unit": "GB\/s"/' "$tmp/big/node0031-gpu7.json"
expect "unit disagrees" 2 "node0031-gpu7.json': 'hbm_bandwidth' is in 'GB/s' here but in 'B/s' in the files before" -- fleet "$tmp/big"
rm -rf "$tmp/g1" "$tmp/g2" "$tmp/big" "$tmp/full"

# A GPU 8 % short is flagged at 5 % and not at 10 %; the host is flagged at 10 % (12 %).
expect "threshold 10%" 1 "4 GPUs flagged, 1 host" -- fleet tests/fixtures/fleet/after --threshold 10% --metric hbm_bandwidth,sm_clock
expect "threshold 10% hbm only" 0 "0 GPUs flagged" -- fleet tests/fixtures/fleet/after --threshold 10% --metric hbm_bandwidth
expect "metric unknown" 2 "--metric: no ceiling 'hbm' in the results" -- fleet tests/fixtures/fleet/after --metric hbm
expect "before, after" 1 "5 GPUs flagged, 1 host with every GPU short, 0 ceilings regressed" -- \
	fleet tests/fixtures/fleet/before tests/fixtures/fleet/after
expect "spec floor 80%" 1 "under the spec floor" -- fleet tests/fixtures/fleet/before --spec-floor 80% --metric bf16_matrix

# ---- the strip plots ----
"$RIDGE" fleet tests/fixtures/fleet/after --svg "$tmp/fleet.svg" >/dev/null 2>&1
if python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$tmp/fleet.svg" 2>/dev/null &&
	grep -q '>node0001 gpu1<' "$tmp/fleet.svg" && grep -q '>node0000 gpu3<' "$tmp/fleet.svg"; then
	ok
else
	bad "svg: not well-formed XML, or a flagged GPU without its label"
fi

# ---- hostile and odd files ----
mk() { # mk NAME: a fresh directory holding the 'before' fleet
	rm -rf "$tmp/$1"
	cp -r tests/fixtures/fleet/before "$tmp/$1"
}
f0=node0000-gpu0.json
mk truncated && head -c 3000 tests/fixtures/fleet/before/$f0 >"$tmp/truncated/$f0"
expect "truncated" 2 "truncated/$f0': the document ends inside a value" -- fleet "$tmp/truncated"
expect "truncated, --skip-bad" 1 "unreadable results in" -- fleet "$tmp/truncated" --skip-bad
mk empty && : >"$tmp/empty/$f0"
expect "empty result" 2 "empty (a rank that claimed it did not finish?)" -- fleet "$tmp/empty"
mk twice && cp "$tmp/twice/$f0" "$tmp/twice/node0099-gpu0.json"
expect "one UUID twice" 2 "claims the GPU (uuid GPU-" -- fleet "$tmp/twice"
expect "one UUID twice, both named" 2 "that 'node0099-gpu0.json' claims too" -- fleet "$tmp/twice"
mk dupkey && sed '0,/"version"/s//"version": "0.1.0",\n\t"version"/' tests/fixtures/fleet/before/$f0 >"$tmp/dupkey/$f0"
expect "duplicate top-level key" 2 "the key 'version' is given twice" -- fleet "$tmp/dupkey"
mk dupinner && sed '0,/"unit":/s//"unit": "B\/s", "unit":/' tests/fixtures/fleet/before/$f0 >"$tmp/dupinner/$f0"
expect "duplicate key in a ceiling" 2 "the key 'unit' is given twice in \"ceilings\"" -- fleet "$tmp/dupinner"
mk huge && truncate -s 17M "$tmp/huge/$f0"
expect "huge file" 2 "larger than 16777216 bytes" -- fleet "$tmp/huge"
mk notjson && printf 'placement: yaml\n' >"$tmp/notjson/$f0"
expect "not JSON" 2 "not a JSON object" -- fleet "$tmp/notjson"
mk other && printf '{"tool": "nvidia-smi", "version": "1", "device": {"name": "x"}, "ceilings": []}\n' >"$tmp/other/$f0"
expect "another tool's JSON" 2 "\"tool\" is not \"ridge-probe\"" -- fleet "$tmp/other"
mk deep && awk 'BEGIN { printf "{\"tool\": \"ridge-probe\", \"x\": "; for (i = 0; i < 100000; i++) printf "["; print "" }' \
	>"$tmp/deep/$f0"
expect "deep nesting" 2 "nested more than 64 deep" -- fleet "$tmp/deep"
mk nul && printf '{"tool": "ridge-probe\0"}' >"$tmp/nul/$f0"
expect "a NUL byte" 2 "a control byte (0x00)" -- fleet "$tmp/nul"
mkdir -p "$tmp/none"
expect "no results" 2 "holds no readable ridge-probe result (0 *.json files)" -- fleet "$tmp/none"
expect "not a directory" 2 "cannot read the directory" -- fleet tests/fixtures/fleet/before.manifest.json
# Results of two probe versions: both read, with a note.
mk versions && sed -i 's/"version": "0.1.0"/"version": "0.2.0"/' "$tmp/versions/$f0"
expect "two probe versions" 0 "results of 2 ridge-probe versions" -- fleet "$tmp/versions"
# A GPU hwdb does not know: its own group, no spec sheet, a finding in the text.
mk unknown && sed -i 's/"hwdb_id": "h200-sxm"/"hwdb_id": null/; s/"name": "NVIDIA H200"/"name": "NVIDIA H999"/' \
	"$tmp/unknown/$f0"
expect "unknown model" 0 "NVIDIA H999 (no hwdb entry: no spec sheet to compare with): 1 GPU on 1 host" -- fleet "$tmp/unknown"
# Temporaries of the atomic writers (.name.tmp...) and other files are not results.
mk others && : >"$tmp/others/.node0000-gpu9.json.tmp" && cp "$tmp/others/$f0" "$tmp/others/notes.txt"
expect "temporaries skipped" 0 "16 results" -- fleet "$tmp/others"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
