#!/bin/sh
# The one writer of golden cases: prints case NAME of a .test file
# (tests/golden/README.md) from DIR/NAME.cmd, .code, .err and .out, the files
# tests/golden.awk writes. tests/golden_convert.sh and
# `suite_golden.sh --update` call it, so a case is always written the same way.
#   sh tests/golden_block.sh DIR NAME
# Refuses (exit 1, saying why) what the format cannot hold: a NUL byte, a
# cmd or err of more than one line, a code that is not a number.
set -eu
dir=$1
name=$2
marker='\ no newline at end'

refuse() {
	echo "golden_block.sh: $name: $*" >&2
	exit 1
}

# No NUL byte: awk and the shell read text, and a .test file is text.
text() {
	[ "$(tr -d '\000' <"$1" | wc -c)" = "$(wc -c <"$1")" ] || refuse "$(basename "$1") holds a NUL byte"
}

# Whether file $1 ends without a newline (an empty file does: it has no line).
no_newline() {
	[ ! -s "$1" ] || [ -n "$(tail -c 1 "$1")" ]
}

# "KEY: TEXT" for a one-line file $2 (the marker after it if its newline is missing).
one_line() {
	text "$2"
	lines=$(wc -l <"$2")
	if [ "$lines" -gt 1 ] || { [ "$lines" = 1 ] && no_newline "$2"; }; then
		refuse "$(basename "$2") has more than one line"
	fi
	value=$(cat "$2")
	if [ -z "$value" ]; then printf '%s:\n' "$1"; else printf '%s: %s\n' "$1" "$value"; fi
	if no_newline "$2"; then printf '%s\n' "$marker"; fi
}

[ -f "$dir/$name.cmd" ] || refuse "no $name.cmd"
printf '=== %s\n' "$name"
one_line cmd "$dir/$name.cmd"
if [ -f "$dir/$name.code" ]; then
	code=$(cat "$dir/$name.code")
	case $code in '' | *[!0-9]*) refuse "$name.code is not an exit code" ;; esac
	printf '%s\n' "$code" | cmp -s - "$dir/$name.code" || refuse "$name.code is not one number and a newline"
	printf 'code: %s\n' "$code"
fi
if [ -f "$dir/$name.err" ]; then one_line err "$dir/$name.err"; fi
if [ -f "$dir/$name.out" ]; then
	text "$dir/$name.out"
	nonl=0
	if [ -s "$dir/$name.out" ] && no_newline "$dir/$name.out"; then nonl=1; fi
	# Stdout of 100 lines or more is stored in sections, so a reviewer can read
	# one: a section starts at each text report header (== ... ==) and at each
	# top-level JSON key whose value opens an object or array ("key": { or [);
	# what comes before the first is the unnamed first section.
	awk -v nonl=$nonl -v marker="$marker" '
		function starts(l) { return l ~ /^== .* ==$/ || l ~ /^\t"[^"]*":\t(\{|\[\{?)$/ }
		function label(l) {
			if (l ~ /^== /)
				return l
			sub(/^\t"/, "", l)
			sub(/":.*/, "", l)
			return l
		}
		{ line[NR] = $0 }
		END {
			sectioned = NR >= 100
			if (NR == 0)
				print "out:"
			for (i = 1; i <= NR; i++) {
				if (sectioned && starts(line[i]))
					print "out: " label(line[i])
				else if (i == 1)
					print "out:"
				print (line[i] == "" ? "|" : "| " line[i])
			}
			if (nonl)
				print marker
		}' "$dir/$name.out"
fi
