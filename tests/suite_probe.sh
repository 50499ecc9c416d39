#!/bin/sh
# ridge-probe and ridge-probe-hip as programs, without a GPU: help and usage
# errors, exit 3 with a clear message when no GPU is usable, --replay of the
# recorded H200 run (byte for byte tests/fixtures/probe_h200.txt), JSON
# round trip, and the calibration loaded by ridge (--calibration, --hwdb).
# A probe that was not built (no nvcc / hipcc) is a visible SKIP.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
BUILD=${BUILD:-build}
RIDGE=${RIDGE:-$BUILD/ridge}
fixtures=tests/fixtures
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }

# expect NAME CODE TEXT-IN-STDERR-OR-EMPTY -- command...
expect() {
	name=$1 code=$2 text=$3
	shift 4
	"$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	got=$?
	if [ "$got" != "$code" ]; then
		bad "$name: exit $got, expected $code"
		sed 's/^/     stderr: /' "$tmp/err" | head -n 3
	elif [ -n "$text" ] && ! grep -qF -- "$text" "$tmp/err"; then
		bad "$name: stderr lacks '$text'"
		sed 's/^/     stderr: /' "$tmp/err" | head -n 3
	else
		ok
	fi
}

gpu_present() {
	command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'
}

for probe in ridge-probe ridge-probe-hip; do
	bin=$BUILD/$probe
	if [ ! -x "$bin" ]; then
		echo "SKIP $probe: not built (make probes says why)"
		continue
	fi
	if ! "$bin" --help >"$tmp/help" 2>&1; then
		bad "$probe --help: does not run here: $(head -n 1 "$tmp/help")"
		continue
	fi
	grep -q "^usage: $probe " "$tmp/help" && ok || bad "$probe --help: no usage line"
	expect "$probe-bad-option" 2 "$probe: error: unknown option '--bogus'" -- "$bin" --bogus
	expect "$probe-bad-only" 2 "$probe: error: --only: unknown measurement 'fp128'" -- "$bin" --only memory,fp128
	expect "$probe-bad-repeats" 2 "$probe: error: --repeats: '0' is out of range (1..64)" -- "$bin" --repeats 0
	expect "$probe-bad-device" 2 "$probe: error: --device: " -- "$bin" --device x
	expect "$probe-extra-arg" 2 "$probe: error: unexpected argument 'now'" -- "$bin" now
	expect "$probe-replay-missing" 2 "$probe: error: --replay: cannot open 'no/such.json'" -- "$bin" --replay no/such.json
	expect "$probe-replay-with-quick" 2 "--replay re-renders a saved run" -- "$bin" --replay "$fixtures/probe_h200.json" --quick
	printf '{"tool": "ridge-probe",\n "device": [' >"$tmp/broken.json"
	expect "$probe-replay-broken" 2 "$probe: error: --replay: '$tmp/broken.json': line 2: not valid JSON" -- "$bin" --replay "$tmp/broken.json"

	# No GPU here: a clear error and exit 3, never a crash.
	# Without the driver it says what it looked for, with no source location.
	if gpu_present; then
		echo "SKIP $probe-no-gpu: a GPU is present"
	else
		case $probe in
		ridge-probe) lib=libcuda.so.1 vendor=NVIDIA ;;
		*) lib=libhsa-runtime64.so.1 vendor=AMD ;;
		esac
		if ldconfig -p 2>/dev/null | grep -q "$lib"; then
			expect "$probe-no-gpu" 3 "$probe: error: no " -- "$bin" --quick
		else
			expect "$probe-no-gpu" 3 "$probe: error: no $vendor driver or GPU found: looked for the driver library $lib (not found)" -- "$bin" --quick
		fi
		grep -Eq '\.(h|c|cu|hip):[0-9]+:' "$tmp/err" && bad "$probe-no-gpu: the message has a source location: $(cat "$tmp/err")" || ok
	fi
	# --help is instant: cuBLAS is loaded by the first GEMM (kernels/cuda/cublas_lazy.cu), not at start.
	if command -v readelf >/dev/null 2>&1; then
		readelf -d "$bin" | grep -q 'NEEDED.*libcublas' && bad "$probe-lazy-cublas: linked against cuBLAS at start" || ok
	fi

	# --replay renders the recorded run as tests/fixtures/probe_h200.txt says.
	expect "$probe-replay" 0 "" -- "$bin" --replay "$fixtures/probe_h200.json"
	if [ "$probe" = ridge-probe ]; then
		diff -u "$fixtures/probe_h200.txt" "$tmp/out" >"$tmp/diff" && ok ||
			{ bad "$probe-replay: differs from $fixtures/probe_h200.txt"; head -n 20 "$tmp/diff"; }
	fi
	# The --sustained run (copy and the bf16 GEMM, 20 windows each) replays byte for byte.
	expect "$probe-replay-sustained" 0 "" -- "$bin" --replay "$fixtures/probe_h200_sustained.json"
	if [ "$probe" = ridge-probe ]; then
		diff -u "$fixtures/probe_h200_sustained.txt" "$tmp/out" >"$tmp/diff" && ok ||
			{ bad "$probe-replay-sustained: differs from $fixtures/probe_h200_sustained.txt"; head -n 20 "$tmp/diff"; }
	fi
	expect "$probe-sustained-range" 2 "$probe: error: --sustained: '0' is out of range (1..600)" -- "$bin" --sustained 0
	expect "$probe-sustained-missing" 2 "$probe: error: --sustained: missing value" -- "$bin" --sustained
	expect "$probe-replay-with-sustained" 2 "--sustained" -- "$bin" --replay "$fixtures/probe_h200.json" --sustained 5
	expect "$probe-bad-only-latency" 2 "unknown measurement 'latencyy'" -- "$bin" --only latencyy
	# The validation run (--validate) replays with its predictions, byte for byte.
	expect "$probe-replay-validate" 0 "" -- "$bin" --replay "$fixtures/validate_h200.json"
	if [ "$probe" = ridge-probe ]; then
		diff -u "$fixtures/validate_h200.txt" "$tmp/out" >"$tmp/diff" && ok ||
			{ bad "$probe-replay-validate: differs from $fixtures/validate_h200.txt"; head -n 20 "$tmp/diff"; }
	fi
	grep -q '^Target (median |error| <= 10% with measured ceilings' "$tmp/out" && ok ||
		bad "$probe-replay-validate: no target line"
	# validation/README.md shows the replayed tables: every line of them.
	sed -n '/^Validation: /,$p' "$tmp/out" >"$tmp/tables"
	missing=0
	while IFS= read -r line; do
		[ -z "$line" ] && continue
		grep -qxF -- "$line" validation/README.md || missing=$((missing + 1))
	done <"$tmp/tables"
	[ "$missing" -eq 0 ] && ok || bad "$probe-validation-readme: $missing lines of the replayed tables are not in validation/README.md (run validation/make-report.sh and update it)"
	"$bin" --replay "$fixtures/validate_h200.json" --json >"$tmp/val.json" 2>"$tmp/err"
	grep -q '"predicted_spec_s"' "$tmp/val.json" && grep -q '"validation_summary"' "$tmp/val.json" && ok ||
		bad "$probe-replay-validate-json: no validation keys"
	# The calibration of that run is validation/h200-calibration.yaml.
	expect "$probe-validate-calibration" 0 "" -- "$bin" --replay "$fixtures/validate_h200.json" --out "$tmp/vcal.yaml"
	# Equal to 12 significant digits (JSON holds the times the H200 gave to
	# within the last bit of a double).
	digits12() { sed -E 's/([0-9]{12})[0-9]*(\.[0-9]+)?/\1/g; s/\.([0-9]{0,11})[0-9]*/.\1/g' "$1"; }
	digits12 "$tmp/vcal.yaml" >"$tmp/vcal12"
	digits12 validation/h200-calibration.yaml >"$tmp/ref12"
	cmp -s "$tmp/vcal12" "$tmp/ref12" && ok ||
		{ bad "$probe-validate-calibration: differs from validation/h200-calibration.yaml"; diff "$tmp/ref12" "$tmp/vcal12" | head -n 5; }
	# validation/h200-validation.json (what ridge roofline --validation plots) is this replay's.
	expect "$probe-validation-json" 0 "" -- "$bin" --replay "$fixtures/validate_h200.json" --validation-json "$tmp/v.json"
	cmp -s "$tmp/v.json" validation/h200-validation.json && ok ||
		bad "$probe-validation-json: differs from validation/h200-validation.json (run validation/make-report.sh)"
	expect "$probe-validation-json-none" 2 "this run has no validation cases" -- "$bin" --replay "$fixtures/probe_h200.json" --validation-json "$tmp/none.json"
	[ ! -e "$tmp/none.json" ] && ok || bad "$probe-validation-json-none: a file was written"
	expect "$probe-validate-with-replay" 2 "--validate" -- "$bin" --replay "$fixtures/validate_h200.json" --validate
	expect "$probe-bad-only-validate" 2 "unknown measurement 'v_nope'" -- "$bin" --only v_stream,v_nope

	"$bin" --replay "$fixtures/probe_h200.json" >"$tmp/out" 2>"$tmp/err"
	cp "$tmp/out" "$tmp/replay.txt"
	"$bin" --replay "$fixtures/probe_h200.json" --json >"$tmp/again.json" 2>"$tmp/err"
	"$bin" --replay "$tmp/again.json" >"$tmp/again.txt" 2>>"$tmp/err"
	cmp -s "$tmp/replay.txt" "$tmp/again.txt" && ok || bad "$probe-json-round-trip: the re-read JSON renders differently"

	# The calibration, loaded by ridge.
	expect "$probe-out" 0 "" -- "$bin" --replay "$fixtures/probe_h200.json" --out "$tmp/cal.yaml"
	grep -q "calibration written to $tmp/cal.yaml" "$tmp/out" && ok || bad "$probe-out: no confirmation line"
	expect "$probe-out-check" 0 "" -- "$RIDGE" hw check "$tmp/cal.yaml"
	expect "$probe-calibration-show" 0 "" -- "$RIDGE" hw show h200-sxm --calibration "$tmp/cal.yaml" --json
	bw=$(sed -n 's/.*"memory_bandwidth":[[:space:]]*\([0-9.e+]*\).*/\1/p' "$tmp/out" | head -n 1)
	case $bw in
	4594450162362.3*) ok ;;
	*) bad "$probe-calibration-show: memory_bandwidth '$bw', expected the measured 4.5945e12 (the read kernel of tests/fixtures/probe_h200.json)" ;;
	esac
	grep -q '"measured":[[:space:]]*true' "$tmp/out" && ok || bad "$probe-calibration-show: not marked measured"
	mkdir -p "$tmp/hwdb" && cp "$tmp/cal.yaml" "$tmp/hwdb/h200-sxm.yaml"
	expect "$probe-calibration-hwdb-dir" 0 "" -- "$RIDGE" hw show "NVIDIA H200" --hwdb "$tmp/hwdb"
	grep -q "(measured)" "$tmp/out" && ok || bad "$probe-calibration-hwdb-dir: the entry from --hwdb was not used"
	# An unusable --out path is refused before anything runs (exit 2, usage).
	expect "$probe-out-unwritable" 2 "$probe: error: --out: cannot write '/nonexistent-dir/cal.yaml'" -- "$bin" --replay "$fixtures/probe_h200.json" --out /nonexistent-dir/cal.yaml
	[ ! -e /nonexistent-dir/cal.yaml ] && ok || bad "$probe-out-unwritable: a file was left"
	# An output that is the --replay input, by any name (a symbolic link, ./, the file
	# --out-dir would write beside the result) is refused before anything is written,
	# and the input is left as it was (issue 31).
	od="$tmp/od-$probe" && mkdir -p "$od"
	cp "$fixtures/validate_h200.json" "$od/run.json"
	cp "$od/run.json" "$od/node9-gpu0.json" && cp "$od/run.json" "$od/node9-gpu0.yaml"
	cksum "$od/run.json" "$od/node9-gpu0.json" "$od/node9-gpu0.yaml" | sed 's|.*/||' >"$tmp/od.sum"
	expect "$probe-out-is-replay" 2 "$probe: error: --out: '$od/run.json' is the input '$od/run.json' of this command" -- \
		"$bin" --replay "$od/run.json" --out "$od/run.json"
	ln -s run.json "$od/link.yaml"
	expect "$probe-out-links-to-replay" 2 "$probe: error: --out: '$od/link.yaml' is the input" -- \
		"$bin" --replay "$od/run.json" --out "$od/link.yaml"
	expect "$probe-validation-json-is-replay" 2 "$probe: error: --validation-json: '$od/./run.json' is the input" -- \
		"$bin" --replay "$od/run.json" --validation-json "$od/./run.json"
	for ext in json yaml; do
		SLURMD_NODENAME=node9 SLURM_PROCID=0 SLURM_LOCALID=0 SLURM_NODEID=0 SLURM_NTASKS=1 \
			expect "$probe-out-dir-$ext-is-replay" 2 "$probe: error: --out-dir: '$od/node9-gpu0.$ext' is the input" -- \
			"$bin" --replay "$od/node9-gpu0.$ext" --out-dir "$od"
	done
	cksum "$od/run.json" "$od/node9-gpu0.json" "$od/node9-gpu0.yaml" | sed 's|.*/||' | cmp -s - "$tmp/od.sum" && ok ||
		bad "$probe-out-is-replay: an input was changed"
	# --out-dir under a simulated `srun -N 2 --ntasks-per-node 4` (issue 33): eight ranks at
	# once, each writing <node>-gpu<local rank>.json and .yaml; a ninth on a taken GPU is
	# refused and leaves the first's file intact; ridge fleet reads the eight.
	fleet="$tmp/fleet-$probe" && mkdir -p "$fleet"
	for node in 0 1; do
		for local in 0 1 2 3; do
			SLURMD_NODENAME=node$node SLURM_PROCID=$((node * 4 + local)) SLURM_LOCALID=$local SLURM_NODEID=$node \
				SLURM_NTASKS=8 "$bin" --replay "$fixtures/probe_h200.json" --out-dir "$fleet" \
				>"$fleet.rank$node$local" 2>&1 </dev/null &
		done
	done
	wait
	n=$(ls "$fleet"/node[01]-gpu[0-3].json "$fleet"/node[01]-gpu[0-3].yaml 2>/dev/null | wc -l)
	[ "$n" -eq 16 ] && ok || bad "$probe-out-dir: $n of the 16 files written ($(cat "$fleet".rank* | head -n 3))"
	grep -q '"launcher":[[:space:]]*"slurm"' "$fleet/node1-gpu2.json" && grep -q '"rank":[[:space:]]*6,' "$fleet/node1-gpu2.json" &&
		! grep -q '"occupancy":' "$fleet/node1-gpu2.json" && ok ||
		bad "$probe-out-dir: node1-gpu2.json lacks its placement (slurm, rank 6), or holds the occupancy table"
	cksum "$fleet/node0-gpu2.json" >"$tmp/sum"
	SLURMD_NODENAME=node0 SLURM_PROCID=2 SLURM_LOCALID=2 SLURM_NTASKS=8 \
		expect "$probe-out-dir-taken" 2 "node0-gpu2.json' exists: another rank measures this GPU" -- \
		"$bin" --replay "$fixtures/probe_h200.json" --out-dir "$fleet"
	cksum "$fleet/node0-gpu2.json" | cmp -s - "$tmp/sum" && ok || bad "$probe-out-dir-taken: the first rank's file changed"
	expect "$probe-out-dir-fleet" 0 "" -- "$RIDGE" fleet "$fleet"
	grep -q "8 GPUs on 2 hosts" "$tmp/out" && ok || bad "$probe-out-dir-fleet: ridge fleet did not read 8 GPUs on 2 hosts"
	SLURM_PROCID=x expect "$probe-out-dir-bad-rank" 2 "SLURM_PROCID='x' is not a whole number" -- \
		"$bin" --replay "$fixtures/probe_h200.json" --out-dir "$fleet"
	expect "$probe-out-dir-missing" 2 "--out-dir: '$tmp/none' is not a directory" -- \
		"$bin" --replay "$fixtures/probe_h200.json" --out-dir "$tmp/none"
	expect "$probe-out-dir-with-out" 2 "not with --out" -- "$bin" --replay "$fixtures/probe_h200.json" --out-dir "$fleet" --out "$tmp/c.yaml"
	expect "$probe-barrier-alone" 2 "--barrier-file and --barrier-timeout go with --out-dir" -- "$bin" --barrier-file "$tmp/b"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
