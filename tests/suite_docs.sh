#!/bin/sh
# Man pages and shell completions (scripts/gen-docs.sh, built into
# build/share by make): one page per command of `ridge --help`, each parsed by
# groff without a warning; the bash completion offers every flag a command's
# --help lists on its option lines, and every other flag it offers (from the
# synopsis) is one the command's parser accepts;
# make install-files puts them under share/ (the stage make test builds);
# every repository path and relative link in a tracked Markdown file exists
# (docs-paths, below).
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
# Where the suite is, for a run stopped from outside (tests/run.sh's
# SUITE_TIMEOUT sends TERM to the whole process group): it names the step.
stage="start"
trap 'echo "FAIL docs: stopped (TERM) during: $stage"; exit 1' TERM

commands=$("$RIDGE" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
for page in ridge $(printf 'ridge-%s\n' $commands); do
	f=$share/man/man1/$page.1
	stage="groff on $page.1"
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

# The subcommands of a command, as its synopsis gives them ("ridge hw show GPU").
subcommands_of() { "$RIDGE" "$1" --help | sed -n '/^usage:/,/^$/p' | sed 's/^usage: //' | awk -v c="$1" '$1 == "ridge" && $2 == c && $3 ~ /^[a-z]+$/ && !seen[$3]++ { print $3 }'; }
# Every command line that has a --help: "CMD" or "CMD SUB".
: >"$tmp/forms"
for cmd in $commands; do
	subs=$(subcommands_of "$cmd")
	if [ -n "$subs" ]; then
		for sub in $subs; do echo "$cmd $sub" >>"$tmp/forms"; done
	else
		echo "$cmd" >>"$tmp/forms"
	fi
done

# --help fits 80 columns: ridge's own, every command's and subcommand's.
{
	echo ""
	sed 's/ .*//' "$tmp/forms" | sort -u
	cat "$tmp/forms"
} | sort -u | while read -r words; do
	# shellcheck disable=SC2086
	"$RIDGE" $words --help 2>&1 | LC_ALL=C.UTF-8 awk -v w="ridge $words --help" 'length > 80 { printf "%s, line %d: %d columns: %s\n", w, NR, length, $0; n++ } END { exit n > 0 }' ||
		echo "wide"
done >"$tmp/wide"
if grep -q . "$tmp/wide"; then
	bad "docs-help-width: lines over 80 columns: $(grep -v '^wide$' "$tmp/wide" | head -n 5)"
else
	ok
fi
# Each man page at MANWIDTH=80 (man-db), or groff at 78 columns without it.
# Every man call runs under a time limit, without man-db's seccomp sandbox
# (MAN_DISABLE_SECCOMP): in some containers that sandbox's groff pipeline
# stalls, now and then, on any page (a whole check-asan run hung here on
# 2026-12-06 with only the first page's call limited); a page whose man call
# does not finish is checked by groff alone, and says so.
use_man=0
bounded=""
command -v timeout >/dev/null 2>&1 && bounded="timeout -k 5 60"
command -v man >/dev/null 2>&1 && use_man=1
for f in "$share"/man/man1/*.1; do
	stage="the width of $(basename "$f")"
	rendered=0
	if [ $use_man = 1 ]; then
		if MAN_DISABLE_SECCOMP=1 MANWIDTH=80 LC_ALL=C.UTF-8 $bounded man -l "$f" 2>/dev/null >"$tmp/page" </dev/null; then
			rendered=1
		else
			echo "SKIP docs-man-width through man: man -l $(basename "$f") failed or did not finish in 60 s; groff checks it and the pages after it"
			use_man=0
		fi
	fi
	if [ $rendered = 0 ] && command -v groff >/dev/null 2>&1; then
		LC_ALL=C.UTF-8 groff -man -Tutf8 -rLL=78n "$f" 2>/dev/null | sed 's/.\x08//g' >"$tmp/page"
	elif [ $rendered = 0 ]; then
		echo "SKIP docs-man-width: neither man nor groff installed"
		break
	fi
	wide=$(LC_ALL=C.UTF-8 awk 'length > 80 { n++ } END { print n + 0 }' "$tmp/page")
	[ "$wide" = 0 ] && [ -s "$tmp/page" ] && ok || bad "docs-man-width: $(basename "$f"): $wide lines over 80 columns"
done
# Every binary has its page: ridge-probe's, from its usage text (probe/usage.h),
# built without nvcc; groff clean and it shows the probe's own options.
f=$share/man/man1/ridge-probe.1
if [ ! -f "$f" ]; then
	bad "docs-man: no $f (ridge-probe's man page)"
elif command -v groff >/dev/null 2>&1; then
	LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$f" >"$tmp/groff" 2>&1
	[ -s "$tmp/groff" ] && bad "docs-man: groff warns on ridge-probe.1: $(head -n 2 "$tmp/groff")" || ok
	LC_ALL=C.UTF-8 groff -man -Tutf8 "$f" 2>/dev/null | sed 's/.\x08//g' | grep -q -- '--sustained' && ok ||
		bad "docs-man: ridge-probe(1) does not show --sustained"
fi
# ridge-cost(1) holds every subcommand's options (cost prefill's --seq among them).
if command -v groff >/dev/null 2>&1; then
	LC_ALL=C.UTF-8 groff -man -Tutf8 "$share/man/man1/ridge-cost.1" 2>/dev/null | sed 's/.\x08//g' >"$tmp/cost.page"
	for sub in $(subcommands_of cost); do
		grep -q "ridge cost $sub" "$tmp/cost.page" && ok || bad "docs-man: ridge-cost(1) lacks 'ridge cost $sub'"
	done
	# each subcommand's description: its first words, as its --help gives them
	for sub in $(subcommands_of cost); do
		first=$("$RIDGE" cost "$sub" --help | sed '1,/^$/d' | head -n 1 | cut -d' ' -f1-4)
		grep -qF -- "$first" "$tmp/cost.page" && ok || bad "docs-man: ridge-cost(1) lacks cost $sub's text ('$first')"
	done
fi

# What the bash completion offers for the words after "ridge" (the last one is
# being completed), one per line, sorted.
# Each completion runs under the same time limit as man: a shell that waits on
# something fails its check, naming it, instead of holding the suite.
complete_bash() {
	$bounded bash -c '. "$1"; r=$2; shift 2; COMP_WORDS=("$r" "$@"); COMP_CWORD=$#; _ridge; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$share/bash-completion/completions/ridge" "$RIDGE" "$@" 2>&1 | grep . | sort -u
}
# The same through zsh, with its completion builtins stood in for by functions
# that print what would be offered (no terminal needed).
complete_zsh() {
	$bounded zsh -f -c '
		f=$1; r=$2; shift 2
		words=("$r" "$@"); CURRENT=$(( $# + 1 )); PREFIX=$words[CURRENT]; IPREFIX=""
		compadd() { while [[ $1 == -* && $1 != -- ]]; do shift; done; [[ $1 == -- ]] && shift
			local w; for w in "$@"; do [[ $w == ${PREFIX}* ]] && print -r -- "$IPREFIX$w"; done; }
		compset() { if [[ $1 == -P && $PREFIX == *,* ]]; then IPREFIX=${PREFIX%,*},; PREFIX=${PREFIX##*,}; fi; }
		_describe() { local -a l; l=("${(@P)2}"); compadd -- "${l[@]%%:*}"; }
		_files() { print -r -- "@files"; }
		source "$f"' _ "$share/zsh/site-functions/_ridge" "$RIDGE" "$@" 2>&1 | grep . | sort -u
}
# The GPU ids ridge knows, and those starting with $1.
gpu_ids() { "$RIDGE" hw list | awk -v p="$1" 'NR > 1 && index($1, p) == 1 { print $1 }' | sort -u; }

shells=""
command -v bash >/dev/null 2>&1 && shells="bash" || echo "SKIP docs-completion: bash not installed"
command -v zsh >/dev/null 2>&1 && shells="$shells zsh" || echo "SKIP docs-completion-zsh: zsh not installed (Debian: zsh)"
if command -v zsh >/dev/null 2>&1; then
	zsh -n "$share/zsh/site-functions/_ridge" && ok || bad "docs-zsh: _ridge does not parse"
fi
for sh in $shells; do
	# Every flag each command's (and subcommand's) --help lists, after "--".
	while read -r words; do
		stage="the $sh completion of 'ridge $words'"
		# shellcheck disable=SC2086
		complete_$sh $words -- >"$tmp/offered"
		# shellcheck disable=SC2086
		help_flags $words >"$tmp/listed"
		missing=$(comm -23 "$tmp/listed" "$tmp/offered" | tr '\n' ' ')
		[ -z "$missing" ] && ok || bad "docs-completion-$sh: 'ridge $words' --help lists flags the completion lacks: $missing"
		# The flags taken from elsewhere than the option lines (the synopsis,
		# a "flags:" line) are the ones the generator could mistake: each
		# must be one the parser knows.
		[ "$sh" = bash ] || continue
		comm -13 "$tmp/listed" "$tmp/offered" | grep -vx -- --help | while read -r flag; do
			# shellcheck disable=SC2086
			"$RIDGE" $words "$flag" x </dev/null 2>&1 >/dev/null | grep -q "unknown option '$flag'" && echo "$flag"
		done >"$tmp/unknown"
		[ ! -s "$tmp/unknown" ] && ok || bad "docs-completion: 'ridge $words' refuses flags the completion offers: $(tr '\n' ' ' <"$tmp/unknown")"
	done <"$tmp/forms"
	# The commands after "ridge ", the subcommands after "ridge CMD " (at every level).
	complete_$sh "" | grep -qx trace && ok || bad "docs-completion-$sh: 'ridge <TAB>' does not offer trace"
	for cmd in $commands; do
		subs=$(subcommands_of "$cmd" | sort -u)
		[ -n "$subs" ] || continue
		got=$(complete_$sh "$cmd" "" | tr '\n' ' ')
		[ "$got" = "$(echo "$subs" | tr '\n' ' ')" ] && ok || bad "docs-completion-$sh: 'ridge $cmd <TAB>' offers '$got', not the subcommands '$(echo $subs)'"
	done
	got=$(complete_$sh cost pre)
	[ "$got" = prefill ] && ok || bad "docs-completion-$sh: 'ridge cost pre<TAB>' offers '$got', not prefill"
	# GPU ids: the operand of hw show, --gpu's value, each item of a --gpu list.
	gpu_ids h1 >"$tmp/want"
	complete_$sh hw show h1 >"$tmp/got"
	cmp -s "$tmp/want" "$tmp/got" && [ -s "$tmp/want" ] && ok || bad "docs-completion-$sh: 'ridge hw show h1<TAB>' offers $(tr '\n' ' ' <"$tmp/got"), not $(tr '\n' ' ' <"$tmp/want")"
	gpu_ids "" >"$tmp/want"
	complete_$sh gemm --gpu "" >"$tmp/got"
	cmp -s "$tmp/want" "$tmp/got" && ok || bad "docs-completion-$sh: 'ridge gemm --gpu <TAB>' offers $(head -n 3 "$tmp/got" | tr '\n' ' ')..., not the $(wc -l <"$tmp/want") ids of ridge hw list"
	gpu_ids h2 | sed 's/^/h100-sxm,/' >"$tmp/want"
	complete_$sh plan --gpu h100-sxm,h2 >"$tmp/got"
	cmp -s "$tmp/want" "$tmp/got" && ok || bad "docs-completion-$sh: 'ridge plan --gpu h100-sxm,h2<TAB>' offers $(tr '\n' ' ' <"$tmp/got")"
	# dtypes: --dtype's values are the ones its --help line lists.
	"$RIDGE" roofline --help | grep -E '^ +--dtype ' | grep -oE '\b(fp|bf|tf|int)[0-9]+\b' | sort -u >"$tmp/want"
	complete_$sh roofline --dtype "" >"$tmp/got"
	cmp -s "$tmp/want" "$tmp/got" && [ -s "$tmp/want" ] && ok || bad "docs-completion-$sh: 'ridge roofline --dtype <TAB>' offers $(tr '\n' ' ' <"$tmp/got"), not $(tr '\n' ' ' <"$tmp/want")"
	got=$(complete_$sh cost decode --weight-dtype in)
	[ "$got" = "$(printf 'int4\nint8')" ] && ok || bad "docs-completion-$sh: 'ridge cost decode --weight-dtype in<TAB>' offers '$got'"
	# Enum values: a metavar a|b|c, and a list in the flag's text.
	got=$(complete_$sh gemm --traffic "" | tr '\n' ' ')
	[ "$got" = "compulsory default tiled " ] && ok || bad "docs-completion-$sh: 'ridge gemm --traffic <TAB>' offers '$got'"
	got=$(complete_$sh comm --op all- | tr '\n' ' ')
	[ "$got" = "all-gather all-reduce all-to-all " ] && ok || bad "docs-completion-$sh: 'ridge comm --op all-<TAB>' offers '$got'"
	# A number's value: nothing offered (not file names).
	got=$(complete_$sh gemm --m "")
	[ -z "$got" ] && ok || bad "docs-completion-$sh: 'ridge gemm --m <TAB>' offers '$(echo $got | head -c 80)'"
done
if ! command -v zsh >/dev/null 2>&1; then
	grep -q "^	roofline)" "$share/zsh/site-functions/_ridge" && ok || bad "docs-zsh: no roofline case in _ridge"
fi

stage=$BUILD/stage/usr/share
for f in man/man1/ridge.1 man/man1/ridge-roofline.1 bash-completion/completions/ridge zsh/site-functions/_ridge; do
	[ -f "$stage/$f" ] && ok || bad "docs-install: make install-files did not install share/$f"
done
# docs-paths: every repository path a Markdown file names exists. The files: every tracked
# *.md, and every untracked one git does not ignore (git ls-files; without git, every *.md
# outside build*/ and .git/). A repository path:
#   - in an inline code span (`...`, outside fenced blocks), a word that starts with a
#     top-level folder of the repository and a slash (`app/core/calc.h`, `tests/golden/x`),
#     not preceded by a path character (so `build/obj/cli/x.o` and `../shared/spec/cli.md`
#     are not ours) and not a placeholder: one followed by `<`, `*`, `{`, `$` or `[`, or
#     holding `...` or `…` (`tests/unit/test_<name>.c`, `hwdb/*.yaml`), is left alone. It
#     exists from the repository's root or from the Markdown file's folder, or (a golden
#     case, `tests/golden/<case>`) as a case of a tests/golden/<command>.test file;
#   - a relative link target ([text](file.md#anchor), ![](fig.png); not a URL, not an
#     anchor alone): it exists from the Markdown file's folder, as the link resolves.
# A file of another project is written with that project's name in front
# (`cutlass/include/...`; docs/README.md). One FAIL line per missing path, with its file
# and line; one pass per Markdown file whose paths all exist.
md_paths() { # top-level-folder-alternation file... -> "file:line<TAB>code|link<TAB>path"
	top=$1
	shift
	awk -v top="$top" '
	function code(s,    rest, pre, p) {
		rest = s
		while (match(rest, "(^|[^A-Za-z0-9_./-])(" top ")/")) {
			pre = (RSTART == 1 && substr(rest, 1, 1) ~ /[A-Za-z0-9_.\/-]/) ? 0 : 1
			rest = substr(rest, RSTART + pre)
			match(rest, /^[A-Za-z0-9_.\/+-]*/)
			p = substr(rest, 1, RLENGTH)
			rest = substr(rest, RLENGTH + 1)
			if (substr(rest, 1, 1) ~ /[<*{$[]/ || index(p, "...") || index(rest, "…") == 1)
				continue
			sub(/[.]+$/, "", p)
			print FILENAME ":" FNR "\tcode\t" p
		}
	}
	function links(s,    rest, t) {
		rest = s
		while (match(rest, /\]\([^)]*\)/)) {
			t = substr(rest, RSTART + 2, RLENGTH - 3)
			rest = substr(rest, RSTART + RLENGTH)
			sub(/[ \t].*$/, "", t)
			sub(/#.*$/, "", t)
			if (t != "" && t !~ /^[A-Za-z][A-Za-z0-9+.-]*:/)
				print FILENAME ":" FNR "\tlink\t" t
		}
	}
	FNR == 1 { fence = 0; incode = 0 }
	/^[ \t]*(```|~~~)/ { fence = !fence; incode = 0; next }
	fence { next }
	/^[ \t]*$/ { incode = 0; next }
	{
		# A code span may run over a line break: backticks toggle it, a blank line ends it.
		n = split($0, seg, "`")
		text = ""
		for (i = 1; i <= n; i++) {
			if (i > 1)
				incode = !incode
			if (incode)
				code(seg[i])
			else
				text = text " " seg[i]
		}
		links(text)
	}' "$@"
}
# Reads md_paths' lines: a FAIL line per missing path, then "files-with-a-miss paths".
missing_paths() {
	tab=$(printf '\t')
	n=0
	bad_files=""
	while IFS=$tab read -r loc kind p; do
		n=$((n + 1))
		f=${loc%:*}
		case $f in */*) d=${f%/*} ;; *) d=. ;; esac
		if [ "$kind" = link ]; then
			[ -e "$d/$p" ] && continue
		else
			{ [ -e "$p" ] || [ -e "$d/$p" ]; } && continue
			case $p in tests/golden/?*) grep -qxF -- "=== ${p#tests/golden/}" "$root"/tests/golden/*.test && continue ;; esac
		fi
		echo "FAIL docs-paths: $loc names '$p', which does not exist"
		case " $bad_files " in *" $f "*) ;; *) bad_files="$bad_files $f" ;; esac
	done
	# shellcheck disable=SC2086
	echo "$(set -- $bad_files && echo $#) $n"
}
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git -C "$root" ls-files --cached --others --exclude-standard -- '*.md' >"$tmp/md"
	tops=$(git -C "$root" ls-files | sed -n 's|/.*||p' | sort -u)
else
	find . \( -name .git -o -name 'build*' \) -prune -o -name '*.md' -print | sed 's|^\./||' | sort >"$tmp/md"
	tops=$(find . -mindepth 1 -maxdepth 1 -type d ! -name .git ! -name 'build*' | sed 's|^\./||' | sort)
fi
# shellcheck disable=SC2086
top=$(printf '%s\n' $tops | sed 's/\./[.]/g' | paste -sd '|' -)
# The check checked: a probe file whose two missing paths sit among what must pass or be left alone.
mkdir -p "$tmp/probe"
# shellcheck disable=SC2016
printf '%s\n' \
	'`model/roofline.c`, `model/no-such-file.c`, `model/<name>.c`, `tests/golden/gemm-*`, `model/...`,' \
	'`build/obj/model/x.o`, `cutlass/include/cutlass/x.hpp`, [here](probe.md#top), [gone](no-such.md),' \
	'[web](https://example.com/x.md), [anchor](#top), `tests/golden/gemm-l2-h100-tile128`' \
	'```' 'model/fenced-no-such.c' '```' >"$tmp/probe/probe.md"
probe=$(md_paths "$top" "$tmp/probe/probe.md" | missing_paths)
if [ "$(printf '%s\n' "$probe" | grep -c '^FAIL')" -eq 2 ] &&
	printf '%s\n' "$probe" | grep -q "probe.md:1 names 'model/no-such-file.c'" &&
	printf '%s\n' "$probe" | grep -q "probe.md:2 names 'no-such.md'"; then ok; else
	bad "docs-paths: the check does not find exactly the two missing paths of its probe file: $probe"
fi
# shellcheck disable=SC2046
md_paths "$top" $(cat "$tmp/md") | missing_paths >"$tmp/paths"
grep '^FAIL' "$tmp/paths"
# shellcheck disable=SC2046
set -- $(tail -n 1 "$tmp/paths")
passed=$((passed + $(wc -l <"$tmp/md") - $1))
failed=$((failed + $(grep -c '^FAIL' "$tmp/paths")))
# A pattern or file list that matched nothing would pass every file: there are hundreds of paths.
if [ "$(wc -l <"$tmp/md")" -lt 20 ] || [ "$2" -lt 200 ]; then
	bad "docs-paths: only $(wc -l <"$tmp/md") Markdown files and $2 paths found: is the file list or the pattern broken?"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
