#!/bin/sh
# Man pages and shell completions (scripts/gen-docs.sh, built into
# build/share by make): one page per command of `ridge --help`, each parsed by
# groff without a warning; the bash completion offers every flag a command's
# --help lists on its option lines, and every other flag it offers (from the
# synopsis) is one the command's parser accepts;
# make install-files puts them under share/ (the stage make test builds);
# every path and relative link in a README exists.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
BUILD=${BUILD:-build}
RIDGE=${RIDGE:-$BUILD/ridge}
share=$BUILD/share
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }

commands=$("$RIDGE" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
for page in ridge $(printf 'ridge-%s\n' $commands); do
	f=$share/man/man1/$page.1
	if [ ! -f "$f" ]; then
		bad "docs-man: no $f"
		continue
	fi
	if command -v groff >/dev/null 2>&1; then
		LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$f" >"$tmp/groff" 2>&1
		[ -s "$tmp/groff" ] && bad "docs-man: groff warns on $page.1: $(head -n 2 "$tmp/groff")" || ok
	fi
done
if command -v groff >/dev/null 2>&1; then
	LC_ALL=C.UTF-8 groff -man -Tutf8 "$share/man/man1/ridge-roofline.1" 2>/dev/null | grep -q -- '--validation' && ok ||
		bad "docs-man: ridge-roofline(1) does not show --validation"
else
	echo "SKIP docs-man: groff not installed (Debian: groff-base)"
fi

# A command's flags as its --help lists them: the option lines (indented, --flag first).
help_flags() { "$RIDGE" "$@" --help | grep -oE '^ {2,6}--[a-z0-9][a-z0-9-]*' | sed 's/^ *//' | sort -u; }

if command -v bash >/dev/null 2>&1; then
	for cmd in $commands; do
		case $cmd in cost) words="cost train" ;; *) words=$cmd ;; esac
		# What the completion offers after "ridge CMD --".
		# shellcheck disable=SC2086
		bash -c '. "$1"; shift; COMP_WORDS=(ridge "$@" --); COMP_CWORD=$(($# + 1)); _ridge; printf "%s\n" "${COMPREPLY[@]}"' \
			_ "$share/bash-completion/completions/ridge" $words | sort -u >"$tmp/offered"
		# shellcheck disable=SC2086
		help_flags $words >"$tmp/listed"
		missing=$(comm -23 "$tmp/listed" "$tmp/offered" | tr '\n' ' ')
		[ -z "$missing" ] && ok || bad "docs-completion: 'ridge $words' --help lists flags the completion lacks: $missing"
		# The flags taken from elsewhere than the option lines (the synopsis,
		# a "flags:" line) are the ones the generator could mistake: each
		# must be one the parser knows.
		unknown=""
		comm -13 "$tmp/listed" "$tmp/offered" | grep -vx -- --help | while read -r flag; do
			# shellcheck disable=SC2086
			"$RIDGE" $words "$flag" x </dev/null 2>&1 >/dev/null | grep -q "unknown option '$flag'" && echo "$flag"
		done >"$tmp/unknown"
		[ ! -s "$tmp/unknown" ] && ok || bad "docs-completion: 'ridge $words' refuses flags the completion offers: $(tr '\n' ' ' <"$tmp/unknown")"
	done
	# After "ridge ", the commands.
	bash -c '. "$1"; COMP_WORDS=(ridge ""); COMP_CWORD=1; _ridge; printf "%s\n" "${COMPREPLY[@]}"' _ "$share/bash-completion/completions/ridge" |
		grep -qx trace && ok || bad "docs-completion: 'ridge <TAB>' does not offer trace"
else
	echo "SKIP docs-completion: bash not installed"
fi
if command -v zsh >/dev/null 2>&1; then
	zsh -n "$share/zsh/site-functions/_ridge" && ok || bad "docs-zsh: _ridge does not parse"
else
	grep -q "roofline) opts=(--gpu" "$share/zsh/site-functions/_ridge" && ok || bad "docs-zsh: no roofline options in _ridge"
fi

stage=$BUILD/stage/usr/share
for f in man/man1/ridge.1 man/man1/ridge-roofline.1 bash-completion/completions/ridge zsh/site-functions/_ridge; do
	[ -f "$stage/$f" ] && ok || bad "docs-install: make install-files did not install share/$f"
done
# Every README's repository paths (`app/core/calc.h`, `measurements/...`) and relative links
# ([text](file.svg)) name files that exist: at the root, beside the README, or (a golden
# test named without its extension) as TEST.cmd. A moved file is a broken path here.
find . -name '*.md' -not -path './build/*' -not -path './.git/*' -not -path './tests/fuzz/*' | sort >"$tmp/readmes"
while read -r f; do
	d=$(dirname "$f")
	{
		grep -oE '`(model|hwdb|kernels|probe|tui|cli|app|util|examples|tests|validation|measurements|bench|scripts|docs|include/ridge)/[A-Za-z0-9_./+-]*`' "$f" |
			tr -d '`' | sed 's/[.,:;]*$//'
		grep -oE '\]\([^)#: ]+(#[^)]*)?\)' "$f" | sed 's/^](//; s/)$//; s/#.*//'
	} | sort -u >"$tmp/paths"
	while read -r p; do
		[ -z "$p" ] && continue
		if [ -e "$p" ] || [ -e "$d/$p" ] || [ -e "$p.cmd" ]; then ok; else bad "docs-paths: $f names '$p', which does not exist"; fi
	done <"$tmp/paths"
done <"$tmp/readmes"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
