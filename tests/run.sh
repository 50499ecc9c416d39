#!/bin/sh
# Runs every test suite and prints one closing line: "N passed, M failed".
#   unit tests (cmocka, build/tests/test_*), golden CLI tests (tests/golden),
#   and every extra suite script tests/suite_*.sh (each prints "N passed, M failed").
#   sh tests/run.sh [-j JOBS] [--quick] [BUILD]
# JOBS pieces of work run side by side (default: the number of cores, nproc;
# the machine is shared, so each piece keeps its own temporary directory). A
# suite that reads SUITE_SHARD (suite_bad_input, suite_golden) runs as JOBS
# parts, SUITE_SHARD=k/JOBS, counted as one suite. The lines come in a fixed
# order (unit tests, then suites, by name), each as soon as it and those before
# it are done, so the output reads the same however the work was spread.
# --quick (make check): the unit tests and a sample (SUITE_SAMPLE) of the
# goldens and of the bad-input table.
set -u
jobs=$(nproc 2>/dev/null || echo 1)
quick=0
while [ $# -gt 0 ]; do
	case $1 in
	-j) jobs=${2:-} && shift 2 ;;
	-j*) jobs=${1#-j} && shift ;;
	--quick) quick=1 && shift ;;
	*) break ;;
	esac
done
root=$(cd "$(dirname "$0")/.." && pwd)

# Seconds from $1 to $2 (default: now), each a `date +%s.%N`, to a tenth.
elapsed() { awk -v a="$1" -v b="${2:-$(date +%s.%N)}" 'BEGIN { printf "%.1f", b - a }'; }

# One piece of work, run by xargs: line $3 of $2/items ("KIND TAB PATH TAB
# SHARD TAB SAMPLE TAB BUILD"). Its output goes to $2/$3.out, its start and
# end to $2/$3.time, and last its exit status to $2/$3.rc (renamed into place:
# the printer takes a .rc as the sign that the piece is done).
if [ "${1:-}" = --item ]; then
	dir=$2
	id=$3
	IFS=$(printf '\t') read -r kind path shard sample build <<EOF
$(sed -n "${id}p" "$dir/items")
EOF
	start=$(date +%s.%N)
	# A piece that hangs fails after SUITE_TIMEOUT seconds (default 900: the
	# slowest, suite_serve_latency under ASan, takes about 220) and says so,
	# instead of holding CI until its own limit with no word of which piece.
	# Its stdin is /dev/null: a command that reads stdin by mistake sees EOF
	# rather than waiting on whatever stdin CI's runner leaves open.
	limit=${SUITE_TIMEOUT:-900}
	guard=""
	command -v timeout >/dev/null 2>&1 && guard="timeout -k 10 $limit"
	if [ "$kind" = unit ]; then
		$guard "$path" >"$dir/$id.out" 2>&1 </dev/null
	else
		RIDGE="$root/$build/ridge" BUILD="$root/$build" SUITE_SHARD=$shard SUITE_SAMPLE=$sample \
			$guard sh "$path" >"$dir/$id.out" 2>&1 </dev/null
	fi
	rc=$?
	if [ -n "$guard" ] && { [ $rc -eq 124 ] || [ $rc -eq 137 ]; }; then
		echo "FAIL $(basename "$path"): failed to finish within $limit s (SUITE_TIMEOUT)" >>"$dir/$id.out"
	fi
	echo "$start $(date +%s.%N)" >"$dir/$id.time"
	echo $rc >"$dir/$id.rc.new" && mv "$dir/$id.rc.new" "$dir/$id.rc"
	exit 0
fi

case $jobs in '' | *[!0-9]* | 0) echo "run.sh: -j takes a number of jobs, not '$jobs'" >&2 && exit 2 ;; esac
build=${1:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
total_start=$(date +%s.%N)

# The work, $tmp/items, one line a piece in the order they start: the slow
# suites first (a hint: a stale one costs time, not results), so that the
# short pieces fill in beside them and the last to finish is short. What is
# printed, $tmp/show, in order: "unit NAME ID" or "suite NAME ID...".
slow="suite_bad_input suite_occupancy_crosscheck suite_layers suite_golden suite_tui suite_docs"
n=0
add() { # kind path shard sample
	n=$((n + 1))
	printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$build" >>"$tmp/items"
}
add_suite() { # name
	s=$root/tests/$1.sh
	# make check: the first 3 cases of each golden file, the first of each
	# section of the bad-input table (its cases are slower).
	sample=0
	if [ $quick = 1 ]; then
		case $1 in suite_golden) sample=3 ;; suite_bad_input) sample=1 ;; *) return ;; esac
	fi
	ids=""
	if grep -q SUITE_SHARD "$s"; then
		k=1
		while [ $k -le "$jobs" ]; do
			add suite "$s" "$k/$jobs" $sample
			ids="$ids $n"
			k=$((k + 1))
		done
	else
		add suite "$s" 1/1 0
		ids=" $n"
	fi
	printf 'suite %s%s\n' "$1" "$ids" >>"$tmp/suites"
}
: >"$tmp/items"
: >"$tmp/suites"
for name in $slow; do
	[ -f "$root/tests/$name.sh" ] && add_suite "$name"
done
for s in "$root"/tests/suite_*.sh; do
	[ -f "$s" ] || continue
	name=$(basename "$s" .sh)
	case " $slow " in *" $name "*) continue ;; esac
	add_suite "$name"
done
: >"$tmp/show"
for t in "$build"/tests/test_*; do
	[ -x "$t" ] || continue
	add unit "$t" - 0
	printf 'unit %s %s\n' "$(basename "$t")" "$n" >>"$tmp/show"
done
LC_ALL=C sort -k2,2 "$tmp/suites" >>"$tmp/show"

passed=0
failed=0
failures=""

# Adds one suite's counts $p and $f to the totals: a suite that exits non-zero
# without counting a failure counts one. On failures, shows the first $5 lines
# of its output $2 that match $4, and remembers its name $1.
tally() { # name output exit-status pattern lines
	p=${p:-0}
	f=${f:-0}
	if [ "$3" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$f" -ne 0 ]; then
		printf '%s\n' "$2" | grep -E "$4" | head -n "$5"
		failures="$failures $1"
	fi
}

# Waits until piece $1 is done. One that xargs left unfinished (it stopped)
# fails with exit 125.
wait_item() {
	while [ ! -f "$tmp/$1.rc" ]; do
		[ -d "$tmp" ] || exit 1 # the run was stopped
		if [ -f "$tmp/all-done" ] && [ ! -f "$tmp/$1.rc" ]; then
			echo "run.sh: not run to the end" >>"$tmp/$1.out"
			echo "$total_start $total_start" >"$tmp/$1.time"
			echo 125 >"$tmp/$1.rc"
		fi
		sleep 0.1
	done
}

# Prints each line of $tmp/show once its pieces are done, then the totals.
print_all() {
	while read -r kind name ids; do
		out=""
		rc=0
		first=""
		last=""
		p=0
		f=0
		for id in $ids; do
			wait_item "$id"
			o=$(cat "$tmp/$id.out")
			out="$out$o
"
			r=$(cat "$tmp/$id.rc")
			[ "$r" -ne 0 ] && rc=$r
			read -r s e <"$tmp/$id.time"
			first=${first:-$s}
			last=${last:-$e}
			first=$(awk -v a="$s" -v b="$first" 'BEGIN { print (a < b ? a : b) }')
			last=$(awk -v a="$e" -v b="$last" 'BEGIN { print (a > b ? a : b) }')
			if [ "$kind" = unit ]; then
				pp=$(printf '%s\n' "$o" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
				ff=$(printf '%s\n' "$o" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
			else
				line=$(printf '%s\n' "$o" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
				pp=$(printf '%s' "$line" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
				ff=$(printf '%s' "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
			fi
			p=$((p + ${pp:-0}))
			f=$((f + ${ff:-0}))
		done
		if [ "$kind" = unit ]; then
			tally "$name" "$out" "$rc" '^\[  (FAILED|ERROR)|error|Failure|failed' 20
		else
			tally "$name" "$out" "$rc" '^(FAIL|SKIP)' 30
			printf '%s\n' "$out" | grep -E '^SKIP' | head -n 5
		fi
		printf '%-28s %4d passed, %d failed %7s s\n' "$name" "$p" "$f" "$(elapsed "$first" "$last")"
	done <"$tmp/show"
	echo "tests took $(elapsed "$total_start") s"
	[ -n "$failures" ] && echo "failing suites:$failures"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}

# The printer in the background, the pieces (xargs, JOBS at a time) in the
# foreground: Ctrl-C reaches them (a background job ignores SIGINT), and the
# trap stops the printer.
print_all &
printer=$!
trap 'kill $printer 2>/dev/null; exit 130' INT
trap 'kill $printer 2>/dev/null; exit 143' TERM
seq 1 "$n" | xargs -P "$jobs" -n 1 sh "$root/tests/run.sh" --item "$tmp"
: >"$tmp/all-done"
wait $printer
