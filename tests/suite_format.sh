#!/bin/sh
# The tree is formatted as .clang-format says, checked inside `make test` too:
# CI runs `make format-check` before anything else, and a commit that skipped
# `make format` has failed CI there before a single test ran. One line a file
# that differs (FAIL, with the file); a SKIP where clang-format or git is
# missing (CI installs both).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
if ! command -v "$CLANG_FORMAT" >/dev/null 2>&1 || ! git rev-parse --git-dir >/dev/null 2>&1; then
	echo "SKIP format: clang-format or git not found (make format-check needs both)"
	echo "0 passed, 0 failed"
	exit 0
fi
passed=0
failed=0
for f in $(git ls-files '*.c' '*.h' '*.cu' '*.cuh' '*.hip'); do
	if "$CLANG_FORMAT" --dry-run -Werror "$f" >/dev/null 2>&1; then
		passed=$((passed + 1))
	else
		echo "FAIL $f is not formatted (make format)"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
