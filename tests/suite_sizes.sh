#!/bin/sh
# The sizes issue 26 set, kept: no file in app/ over 900 lines and no function
# in app/ or model/ over 120 (a function: from a line that is "{" at column 0
# to the next "}" at column 0, the tree being clang-formatted). A file or
# function over its limit is a FAIL line naming it and its length.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
MAX_FILE=900
MAX_FUNCTION=120
passed=0
failed=0
for f in app/*/*.c app/*/*.h; do
	n=$(wc -l <"$f")
	if [ "$n" -gt "$MAX_FILE" ]; then
		echo "FAIL $f: $n lines (app/ files stay at or under $MAX_FILE: split it by phase)"
		failed=$((failed + 1))
	else
		passed=$((passed + 1))
	fi
done
long=$(awk -v max="$MAX_FUNCTION" '
	FNR == 1 { open = 0 }
	/^\{/ { start = FNR; name = prev; open = 1 }
	/^\}/ { if (open && FNR - start + 1 > max) printf "%s:%d %s (%d lines)\n", FILENAME, start, name, FNR - start + 1; open = 0 }
	$0 !~ /^[ \t{}]/ && $0 != "" { prev = $0 }
' app/*/*.c model/*.c)
if [ -n "$long" ]; then
	printf '%s\n' "$long" | while IFS= read -r l; do echo "FAIL function over $MAX_FUNCTION lines: $l"; done
	failed=$((failed + $(printf '%s\n' "$long" | wc -l)))
else
	passed=$((passed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
