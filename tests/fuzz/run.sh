#!/bin/sh
# Runs each libFuzzer harness for a bounded time (make fuzz).
# usage: run.sh BUILD SECONDS TARGET...   (TARGET: fuzz_<name>)
# Each runs on a scratch corpus (BUILD/corpus/<name>, kept between runs) seeded
# from tests/fuzz/corpus/<name>/, so the seed corpus in git stays small; a crash
# is saved under BUILD/artifacts/ and makes this script fail.
set -u
build=$1
seconds=$2
shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
passed=0
failed=0
for target in "$@"; do
	name=${target#fuzz_}
	bin=$build/fuzz/$target
	work=$build/corpus/$name
	artifacts=$build/artifacts/$name/
	mkdir -p "$work" "$artifacts"
	seeds=tests/fuzz/corpus/$name
	[ -d "$seeds" ] || seeds=""
	log=$build/fuzz-$name.log
	# Per-target libFuzzer flags, e.g. -close_fd_mask=2 for a parser that
	# prints its errors (sanitizer reports still come through).
	options=""
	[ -f "tests/fuzz/$target.options" ] && options=$(cat "tests/fuzz/$target.options")
	# -rss_limit_mb: a parser must not need more than this on any input.
	if "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 $options \
		-artifact_prefix="$artifacts" "$work" $seeds >"$log" 2>&1; then
		stats=$(grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$log" | tail -n 2 | tr '\n' ' ')
		echo "ok   $target: $stats"
		passed=$((passed + 1))
	else
		echo "FAIL $target (log: $log, crash inputs in $artifacts)"
		grep -E 'ERROR|invariant|SUMMARY' "$log" | head -n 5
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
