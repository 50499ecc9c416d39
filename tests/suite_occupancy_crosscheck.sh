#!/bin/sh
# ridge's occupancy model against the CUDA toolkit's own calculator
# (cuda_occupancy.h) on 150,000 random configurations over every NVIDIA entry
# of the built-in hwdb, plus the max-potential-block-size search; zero
# mismatches required. Then the same check with errors planted in ridge's copy
# of each entry, which must be caught (the check can fail).
# SKIP (visibly) when the header is absent. Prints "N passed, M failed" last.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
BUILD=${BUILD:-build}
CC=${CC:-cc}
header=""
for dir in ${CUDA_OCC_INCLUDE:-} ${CUDA_HOME:+$CUDA_HOME/include} /usr/local/cuda/include /opt/cuda/include /usr/include; do
	if [ -f "$dir/cuda_occupancy.h" ]; then
		header=$dir
		break
	fi
done
if [ -z "$header" ]; then
	echo "SKIP occupancy cross-check: cuda_occupancy.h not found (set CUDA_HOME or CUDA_OCC_INCLUDE)"
	echo "0 passed, 0 failed"
	exit 0
fi
if [ ! -f "$BUILD/libridge.a" ]; then
	echo "FAIL occupancy cross-check: $BUILD/libridge.a is missing (run make)"
	echo "0 passed, 1 failed"
	exit 1
fi
bin="$BUILD/tests/occupancy_crosscheck"
mkdir -p "$BUILD/tests"
# C99 with -pedantic: the header compiles as C99; warnings are errors here.
# SANITIZE: the sanitizer flags libridge.a was built with (make check-asan).
if ! $CC -std=c99 -O2 ${SANITIZE:-} -Wall -Wextra -pedantic -Werror -I"$header" -Imodel -Ihwdb -Iutil \
	tests/crosscheck/occupancy_crosscheck.c "$BUILD/libridge.a" \
	$(pkg-config --libs yaml-0.1 2>/dev/null || echo -lyaml) -lm -o "$bin" 2>"$BUILD/tests/occupancy_crosscheck.log"; then
	echo "FAIL occupancy cross-check does not build against $header/cuda_occupancy.h:"
	sed 's/^/     /' "$BUILD/tests/occupancy_crosscheck.log" | head -n 20
	echo "0 passed, 1 failed"
	exit 1
fi
echo "using $header/cuda_occupancy.h"
out=$("$bin" 15000 2>&1)
printf '%s\n' "$out" | grep -v -E '^[0-9]+ passed, [0-9]+ failed'
passed=$(printf '%s\n' "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
failed=$(printf '%s\n' "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
passed=${passed:-0}
failed=${failed:-1}
planted=$("$bin" --plant 2000 2>/dev/null)
if [ $? -eq 0 ]; then
	echo "ok   the check fails when it should: $(printf '%s\n' "$planted" | tail -n 1)"
	passed=$((passed + 1))
else
	echo "FAIL planted errors were not all caught: $(printf '%s\n' "$planted" | tail -n 1)"
	failed=$((failed + 1))
fi
# The command itself, not only the model: half of these cannot launch (shared
# memory past the per-block limits), where the header answers 0 blocks and
# ridge must too, with exit 0 (its --help).
RIDGE=${RIDGE:-$BUILD/ridge}
cli_cases=0
cli_bad=0
cli_zero=0
"$bin" --cli 30 >"$BUILD/tests/occupancy_cli_cases.txt" || cli_bad=1
while read -r line; do
	want=${line##* }
	args=${line% *}
	cli_cases=$((cli_cases + 1))
	[ "$want" = 0 ] && cli_zero=$((cli_zero + 1))
	# shellcheck disable=SC2086 # the flags are words
	got=$("$RIDGE" occupancy $args --json 2>&1 | sed -n 's/^	"blocks_per_sm":	*\([0-9]*\),*$/\1/p')
	if [ "$got" != "$want" ]; then
		[ $cli_bad -lt 5 ] && echo "FAIL ridge occupancy $args: $got blocks, cuda_occupancy.h $want"
		cli_bad=$((cli_bad + 1))
	fi
done <"$BUILD/tests/occupancy_cli_cases.txt"
if [ $cli_bad -eq 0 ] && [ $cli_cases -gt 0 ]; then
	echo "ok   ridge occupancy (the command) on $cli_cases configurations, $cli_zero unable to launch: as cuda_occupancy.h"
	passed=$((passed + 1))
else
	echo "FAIL ridge occupancy (the command): $cli_bad of $cli_cases configurations differ from cuda_occupancy.h"
	failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
