#!/bin/sh
# Golden CLI tests (jq style): tests/golden/<command>.test holds the cases of
# one command, each its name, ridge's arguments (shell words, run from the
# repository root), the exit code, a text stderr must contain and the exact
# stdout (the format: tests/golden/README.md; tests/golden.awk reads it and
# refuses a malformed file, naming FILE:LINE).
#   sh tests/suite_golden.sh                  every case
#   sh tests/suite_golden.sh --update CASE... rewrite each case (a shell
#       pattern: 'report-*') from what ridge now does: its stdout (if the
#       case checks stdout) and exit code; its expected stderr text is kept
# SUITE_SHARD=k/N runs the k-th of N equal runs of consecutive cases (run.sh
# runs the parts side by side); SUITE_SAMPLE=n the first n cases of each file
# (make check).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
RIDGE=${RIDGE:-build/ridge}
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/cases"
if ! awk -v dir="$tmp/cases" -f tests/golden.awk tests/golden/*.test >"$tmp/index" 2>"$tmp/malformed"; then
	echo "FAIL malformed golden file: $(cat "$tmp/malformed")"
	echo "0 passed, 1 failed"
	exit 1
fi

# Runs case $1 from $tmp/cases: stdout to $tmp/out, stderr to $tmp/err, exit
# code in $code. (A case's .cmd, .code and .err are one line each: read, not
# cat, spares a process each, which is most of what a case costs besides ridge.)
run_case() {
	IFS= read -r args <"$tmp/cases/$1.cmd" || :
	eval "\"$RIDGE\" $args" >"$tmp/out" 2>"$tmp/err" </dev/null
	code=$?
}

if [ "${1:-}" = --update ]; then
	shift
	[ $# -gt 0 ] || {
		echo "usage: sh tests/suite_golden.sh --update CASE... (a case name or a shell pattern)" >&2
		exit 2
	}
	tab=$(printf '\t')
	status=0
	for pattern in "$@"; do
		found=0
		while IFS="$tab" read -r name file line; do
			# shellcheck disable=SC2254 # the pattern is meant to match
			case $name in $pattern) ;; *) continue ;; esac
			found=1
			c=$tmp/cases/$name
			run_case "$name"
			# What the case checks, from what ridge did now: stdout if the case
			# has an out:, the exit code (none written for 0), the stderr text as it was.
			if [ -f "$c.out" ]; then cp "$tmp/out" "$c.out"; fi
			rm -f "$c.code"
			if [ "$code" != 0 ]; then echo "$code" >"$c.code"; fi
			if ! sh tests/golden_block.sh "$tmp/cases" "$name" >"$tmp/block"; then
				echo "$name: not updated" >&2
				exit 1
			fi
			# The case's lines (from its === to the blank line after it) replaced.
			awk -v name="$name" -v block="$tmp/block" '
				$0 == "=== " name { while ((getline l <block) > 0) print l; skip = 1; next }
				skip && $0 == "" { skip = 0 }
				!skip' "$file" >"$tmp/new.test" && cat "$tmp/new.test" >"$file"
			echo "updated $name ($file:$line): exit $code$([ -f "$c.out" ] && echo ", stdout $(wc -l <"$c.out") lines")"
			if [ -f "$c.err" ]; then
				IFS= read -r want_err <"$c.err" || :
				if ! grep -qF -- "$want_err" "$tmp/err"; then
					echo "  but stderr lacks '$want_err' (edit its err: line); got:"
					head -n 5 "$tmp/err"
				fi
			fi
		done <"$tmp/index"
		if [ $found = 0 ]; then
			echo "no golden case matches '$pattern'" >&2
			status=1
		fi
	done
	exit $status
fi

# The cases this run takes: a shard (SUITE_SHARD=k/N) and/or a sample
# (SUITE_SAMPLE=n first cases of each file).
shard=${SUITE_SHARD:-1/1}
awk -F '\t' -v k="${shard%/*}" -v n="${shard#*/}" -v sample="${SUITE_SAMPLE:-0}" '
	{ in_file[$2]++ }
	!sample || in_file[$2] <= sample { pick[++total] = $0 }
	END { for (i = 1; i <= total; i++) if (int((i - 1) * n / total) + 1 == k) print pick[i] }' \
	"$tmp/index" >"$tmp/run"
tab=$(printf '\t')
while IFS="$tab" read -r name file line; do
	c=$tmp/cases/$name
	want_code=0
	[ -f "$c.code" ] && read -r want_code <"$c.code"
	run_case "$name"
	ok=1
	if [ "$code" != "$want_code" ]; then
		echo "FAIL $name ($file:$line): exit $code, expected $want_code"
		sed 's/^/     stderr: /' "$tmp/err" | head -n 5
		ok=0
	fi
	if [ -f "$c.out" ] && ! diff -u --label "$name expected" --label "$name stdout" "$c.out" "$tmp/out" >"$tmp/diff"; then
		echo "FAIL $name ($file:$line): stdout differs"
		head -n 30 "$tmp/diff"
		ok=0
	fi
	if [ -f "$c.err" ]; then
		IFS= read -r want_err <"$c.err" || :
		if ! grep -qF -- "$want_err" "$tmp/err"; then
			echo "FAIL $name ($file:$line): stderr lacks '$want_err'; got:"
			head -n 5 "$tmp/err"
			ok=0
		fi
	fi
	if [ $ok = 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done <"$tmp/run"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
