#!/bin/sh
# Writes the golden cases held one file per expectation (FROM/<case>.cmd, .out,
# .err, .code: the layout before issue 26, and what tests/golden.awk writes)
# as one .test file per command, TO/<command>.test, <command> being the case
# name up to its first '-'. Cases in name order (C locale), each written by
# tests/golden_block.sh, separated by a blank line.
#   sh tests/golden_convert.sh FROM TO
# Ran once to convert tests/golden at b8ba4f0 (tests/README.md);
# tests/golden_verify.sh runs it again to check that the .test files are
# written exactly as the writer writes them.
set -eu
from=$1
to=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$to"
prev=""
for cmd in $(cd "$from" && LC_ALL=C ls | sed -n 's/\.cmd$//p' | LC_ALL=C sort); do
	stem=${cmd%%-*}
	if [ "$stem" != "$prev" ]; then
		{
			echo "# Golden cases $stem-*: ridge's arguments, exit code, a text stderr holds, exact stdout."
			echo "# The format: tests/golden/README.md. Run: sh tests/suite_golden.sh"
		} >"$to/$stem.test"
		prev=$stem
	fi
	{
		echo
		sh "$here/golden_block.sh" "$from" "$cmd"
	} >>"$to/$stem.test"
done
