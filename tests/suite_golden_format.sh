#!/bin/sh
# The golden file format (tests/golden/README.md) holds any output: cases
# written by the writer (tests/golden_block.sh) and read back by the reader
# (tests/golden.awk) give back every file byte for byte, also stdout lines that
# look like the format's own lines, empty lines, CR, tabs, a missing last
# newline and a long stdout written in sections; the writer refuses what the
# format cannot hold; the reader refuses a malformed file, naming FILE:LINE.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { passed=$((passed + 1)); }
bad() {
	echo "FAIL $*"
	failed=$((failed + 1))
}

# Round trip: cases in $tmp/in written as x.test, read back into $tmp/back.
mkdir -p "$tmp/in" "$tmp/back"
printf 'roofline --gpu h100-sxm\n' >"$tmp/in/x-plain.cmd"
printf 'line\n' >"$tmp/in/x-plain.out"
printf 'eval a.yaml\n' >"$tmp/in/x-lookalikes.cmd"
printf '\n|\n| x\n=== x-fake\ncmd: fake\ncode: 3\nerr: e\nout:\nout: s\n\\ no newline at end\n# comment\n\ttab\ncr\r\ntrailing  \n  \n' \
	>"$tmp/in/x-lookalikes.out"
printf 'last' >>"$tmp/in/x-lookalikes.out"
printf 'hw show\n' >"$tmp/in/x-empty-out.cmd"
: >"$tmp/in/x-empty-out.out"
printf 'hw list\n' >"$tmp/in/x-one-empty-line.cmd"
printf '\n' >"$tmp/in/x-one-empty-line.out"
printf 'frob\n' >"$tmp/in/x-error.cmd"
printf '2\n' >"$tmp/in/x-error.code"
printf "ridge: error: 'frob'  " >"$tmp/in/x-error.err"
printf 'report --json\n' >"$tmp/in/x-sections.cmd"
awk 'BEGIN {
	print "== Head (h100) =="; print "text"; print "{"; print "\t\"gpu\":\t\"h100\","
	print "\t\"rows\":\t[{"; for (i = 0; i < 60; i++) print "\t\t\t\"a\":\t" i ","; print "\t}],"
	print "\t\"obj\":\t{"; for (i = 0; i < 60; i++) print "\t\t\"b\":\t" i ","; print "\t}"; printf "}"
}' >"$tmp/in/x-sections.out"
for c in "$tmp"/in/*.cmd; do
	name=$(basename "$c" .cmd)
	{
		echo
		sh tests/golden_block.sh "$tmp/in" "$name"
	} >>"$tmp/x.test" || bad "golden_block.sh refused $name"
done
if awk -v dir="$tmp/back" -f tests/golden.awk "$tmp/x.test" >"$tmp/index"; then
	ok
	for f in "$tmp"/in/*; do
		if cmp -s "$f" "$tmp/back/$(basename "$f")"; then ok; else bad "round trip: $(basename "$f") differs"; fi
	done
	[ "$(ls "$tmp/in" | wc -l)" = "$(ls "$tmp/back" | wc -l)" ] && ok || bad "round trip: other files back: $(ls "$tmp/back" | tr '\n' ' ')"
	[ "$(wc -l <"$tmp/index")" = 6 ] && ok || bad "round trip: 6 cases, the index has $(wc -l <"$tmp/index")"
else
	bad "golden.awk refused the writer's file (above)"
fi
# The long stdout is in sections: the header, then one per top-level JSON key
# opening an object or array; the short ones are not.
if [ "$(grep '^out' "$tmp/x.test" | grep -c .)" = 7 ] &&
	grep -qx 'out: == Head (h100) ==' "$tmp/x.test" && grep -qx 'out: rows' "$tmp/x.test" && grep -qx 'out: obj' "$tmp/x.test"; then
	ok
else
	bad "sections: expected 'out: == Head (h100) ==', 'out: rows', 'out: obj' and 4 plain out:, got: $(grep '^out' "$tmp/x.test" | tr '\n' ' ')"
fi

# What the writer refuses.
mkdir "$tmp/refused"
printf 'x\n' >"$tmp/refused/x-nul.cmd"
printf 'a\000b\n' >"$tmp/refused/x-nul.out"
printf 'x\n' >"$tmp/refused/x-two-lines.cmd"
printf 'one\ntwo\n' >"$tmp/refused/x-two-lines.err"
printf 'x\n' >"$tmp/refused/x-code.cmd"
printf 'two\n' >"$tmp/refused/x-code.code"
for name in x-nul x-two-lines x-code; do
	if sh tests/golden_block.sh "$tmp/refused" "$name" >/dev/null 2>"$tmp/err"; then
		bad "golden_block.sh wrote $name, which the format cannot hold"
	elif grep -q "golden_block.sh: $name: " "$tmp/err"; then ok; else bad "golden_block.sh: $name: no reason given: $(cat "$tmp/err")"; fi
done

# What the reader refuses, each at the line named (LINE TAB file text with \n).
tab=$(printf '\t')
while IFS="$tab" read -r line text; do
	printf "$text" >"$tmp/x.test"
	if awk -f tests/golden.awk "$tmp/x.test" >/dev/null 2>"$tmp/err"; then
		bad "golden.awk read a malformed file: $text"
	elif grep -q "^$tmp/x.test:$line: " "$tmp/err"; then ok; else bad "golden.awk: '$text': expected $tmp/x.test:$line:, got: $(cat "$tmp/err")"; fi
done <<'EOF'
2	=== x-a\nout:\n| a\n
3	=== x-a\ncmd: a\n| a\n
4	=== x-a\ncmd: a\nout:\n|a\n
6	=== x-a\ncmd: a\nout:\n| a\n\\ no newline at end\n| b\n
5	=== x-a\ncmd: a\nout:\n| a\n=== x-b\ncmd: b\n
6	=== x-a\ncmd: a\nout:\n| a\n\n=== x-a\ncmd: b\n
1	=== y-a\ncmd: a\n
4	=== x-a\ncmd: a\nerr: e\ncode: 2\n
3	=== x-a\ncmd: a\ncode: two\n
3	=== x-a\ncmd: a\n# comment\n
4	=== x-a\ncmd: a\n\nstray\n
1	=== x-a\n\n
4	=== x-a\ncmd: a\nout:\n\\ no newline at end\n
1	=== X-A\ncmd: a\n
1	| a\n
3	=== x-a\ncmd: a\ncmd: b\n
EOF

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
