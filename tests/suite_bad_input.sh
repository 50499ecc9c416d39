#!/bin/sh
# The bad-input table (tests/bad_input.tsv): every line is a ridge command line
# that must be refused cleanly. For each, ridge must
#   - exit 2 (not crash: exit >= 128; not hang: killed after 10 s, or
#     $BAD_INPUT_TIMEOUT seconds: tests/valgrind.sh gives it 120),
#   - print "ridge: error:" and the expected fragment on stderr,
#   - print nothing on stdout,
#   - leave the scratch output directory exactly as it was: no new, partial
#     or temporary file, and the existing file there untouched.
# Columns (tab-separated): the command line (shell words, starting with
# `ridge`, optionally preceded by VAR=value environment assignments), and the
# text stderr must contain. Commands run in $T/out, which holds existing.svg,
# existing.yaml (a file to overwrite), readonly.svg (mode 444), dir/ (a directory) and, when not run as
# root, ro/ (a read-only directory). $R is the repository root and $T/in holds
# generated inputs: big.yaml (100 MB), deep.yaml (nesting bomb), million.yaml
# (a list of a million items), crlf.yaml, binary.yaml, two-docs.yaml,
# huge.json (hidden_size 1e308), deep.json, two-docs-scenario.yaml,
# huge-regs.txt and huge-cuobjdump.txt (register counts past INT_MAX),
# huge.bin (300 MB, sparse), empty and fifo (a FIFO nobody writes).
# SUITE_SHARD=k/N runs the k-th of N equal runs of consecutive cases (run.sh
# runs the parts side by side, each with its own $T: its own inputs, output
# directory and snapshot); SUITE_SAMPLE=n the first n cases of each "# ----"
# section (make check).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
RIDGE=${RIDGE:-$root/build/ridge}
case $RIDGE in /*) ;; *) RIDGE=$root/$RIDGE ;; esac
table=$root/tests/bad_input.tsv
limit=${BAD_INPUT_TIMEOUT:-10}
T=$(mktemp -d)
R=$root
export T R
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT

# ridge on PATH, so each line reads like what a user types (a link, not a
# script that execs it: one process less a case).
mkdir -p "$T/bin" "$T/in" "$T/out/dir" "$T/xdg"
ln -s "$RIDGE" "$T/bin/ridge"
PATH=$T/bin:$PATH
XDG_CONFIG_HOME=$T/xdg # no user hwdb directory can change the results
export PATH XDG_CONFIG_HOME
unset RIDGE_HWDB

# Inputs.
yes 'key: value' | head -c 104857600 >"$T/in/big.yaml"
awk 'BEGIN { printf "a: "; for (i = 0; i < 1000000; i++) printf "["; for (i = 0; i < 1000000; i++) printf "]"; print "" }' \
	>"$T/in/deep.yaml"
awk 'BEGIN { printf "aliases: ["; for (i = 0; i < 1000000; i++) printf "x, "; print "x]" }' >"$T/in/million.yaml"
sed 's/$/\r/' "$root/tests/fixtures/hwdb/broken-h100.yaml" >"$T/in/crlf.yaml"
printf 'schema: 1\nid: \0\n' >"$T/in/binary.yaml"
printf 'hidden_size: 4096\nintermediate_size: 14336\n---\nnum_attention_heads: 32\n' >"$T/in/two-docs.yaml"
printf '{"hidden_size": 1e308, "intermediate_size": 14336, "num_attention_heads": 32, "vocab_size": 32000, "num_hidden_layers": 32}\n' \
	>"$T/in/huge.json"
printf "ptxas info    : Compiling entry function 'k' for 'sm_90'\nptxas info    : Used 9999999999 registers\n" >"$T/in/huge-regs.txt"
printf 'Resource usage:\n Function k:\n  REG:99999999999 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:0\n' >"$T/in/huge-cuobjdump.txt"
printf 'items:\n  - kind: launch\n    kernels_per_layer: 6\n    layers: 80\n---\nitems: []\n' >"$T/in/two-docs-scenario.yaml"
awk 'BEGIN { printf "{\"a\": "; for (i = 0; i < 100000; i++) printf "["; for (i = 0; i < 100000; i++) printf "]"; print "}" }' \
	>"$T/in/deep.json"
# ridge fleet's directories: a result cut short, one GPU claimed twice.
cp -r "$root/tests/fixtures/fleet/before" "$T/in/fleet-truncated" && head -c 2000 "$root/tests/fixtures/fleet/before/node0000-gpu0.json" >"$T/in/fleet-truncated/node0000-gpu0.json"
cp -r "$root/tests/fixtures/fleet/before" "$T/in/fleet-twice" && cp "$T/in/fleet-twice/node0000-gpu0.json" "$T/in/fleet-twice/copy.json"
# An alias bomb: 550k aliases of one item (3.85 MB; grew past 16 GB once),
# "billion laughs" (10 anchors of 10 aliases each: 10^10 nodes from 10 lines),
# an alias inside its own node, and one item past the item limit.
awk 'BEGIN { print "items:\n  - &a {kind: launch, kernels_per_layer: 6, layers: 80}"; for (i = 0; i < 550000; i++) print "  - *a" }' \
	>"$T/in/alias-bomb.yaml"
awk 'BEGIN { print "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"; for (i = 1; i < 10; i++) { printf "a%d: &a%d [", i, i; for (j = 0; j < 10; j++) printf "%s*a%d", j ? ", " : "", i - 1; print "]" } }' \
	>"$T/in/laughs.yaml"
mkdir -p "$T/in/laughs-dir" && cp "$T/in/laughs.yaml" "$T/in/laughs-dir/x.yaml"
printf 'items: &a\n  - *a\n' >"$T/in/cycle.yaml"
awk 'BEGIN { print "items:"; for (i = 0; i < 5001; i++) print "  - {kind: launch, kernels_per_layer: 6, layers: 80}" }' >"$T/in/many-items.yaml"
truncate -s 300M "$T/in/huge.bin" # sparse: past every size limit, on no disk
: >"$T/in/empty"
mkfifo "$T/in/fifo" # no writer: an open(2) that blocks would hang
printf 'original plot\n' >"$T/out/existing.svg"
printf 'original: 1\n' >"$T/out/existing.yaml"
printf 'read-only plot\n' >"$T/out/readonly.svg"
chmod 444 "$T/out/readonly.svg" # not replaced, also by root
root_user=0
[ "$(id -u)" = 0 ] && root_user=1
if [ $root_user = 0 ]; then
	mkdir -p "$T/out/ro"
	chmod 555 "$T/out/ro"
fi

# Every path; for files their type, size, inode and modification time (to
# the nanosecond): a new, removed, rewritten or replaced file changes a line.
# Directories by name only (a temporary file created and removed changes a
# directory's time, not its content). One find per snapshot, no cksum.
snapshot() {
	(cd "$T/out" && find . -type d -printf '%p\n' -o -printf '%p %y %s %i %T@\n' | LC_ALL=C sort)
}

# The cases this run takes, each as "line TAB command TAB stderr text".
shard=${SUITE_SHARD:-1/1}
awk -F '\t' -v k="${shard%/*}" -v n="${shard#*/}" -v sample="${SUITE_SAMPLE:-0}" '
	/^# ----/ { in_section = 0 }
	$1 == "" || $1 ~ /^#/ { next }
	{ in_section++ }
	!sample || in_section <= sample { pick[++total] = NR "\t" $0 }
	END { for (i = 1; i <= total; i++) if (int((i - 1) * n / total) + 1 == k) print pick[i] }' \
	"$table" >"$T/cases"

passed=0
failed=0
skipped=0
tab=$(printf '\t')
# The directory's state after one case is its state before the next (nothing
# else writes there), so one snapshot a case: before the first, after each.
before=$(snapshot)
while IFS="$tab" read -r n cmd want; do
	case $cmd in
	*'$T/out/ro'*)
		if [ $root_user = 1 ]; then
			echo "SKIP line $n: root writes into read-only directories: $cmd"
			skipped=$((skipped + 1))
			continue
		fi
		;;
	esac
	# env only for a line that sets variables (VAR=value ridge ...).
	env=""
	case ${cmd%% *} in *=*) env=env ;; esac
	(cd "$T/out" && eval "timeout -k 2 $limit $env $cmd") >"$T/stdout" 2>"$T/stderr" </dev/null
	code=$?
	after=$(snapshot)
	problem=""
	if [ $code = 124 ] || [ $code = 137 ]; then
		problem="hung (killed after $limit s)"
	elif [ $code -ge 128 ]; then
		problem="crashed (exit $code, signal $((code - 128)))"
	elif [ $code != 2 ]; then
		problem="exit $code, expected 2"
	fi
	if [ -z "$problem" ] && ! grep -q '^ridge: error: ' "$T/stderr"; then
		problem="stderr has no 'ridge: error:' line"
	fi
	if [ -z "$problem" ] && ! grep -qF -- "$want" "$T/stderr"; then
		problem="stderr lacks '$want'"
	fi
	if [ -z "$problem" ] && [ -s "$T/stdout" ]; then
		problem="printed on stdout: $(head -c 200 "$T/stdout")"
	fi
	if [ -z "$problem" ] && [ "$before" != "$after" ]; then
		problem="changed the output directory: $(printf '%s\n' "$after" | grep -vxF -- "$before" | head -n 3 | tr '\n' ' ')"
	fi
	before=$after
	if [ -n "$problem" ]; then
		echo "FAIL line $n: $cmd: $problem"
		sed 's/^/     stderr: /' "$T/stderr" | head -n 5
		failed=$((failed + 1))
	else
		passed=$((passed + 1))
	fi
done <"$T/cases"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
