#!/bin/sh
# Generates ridge(1), ridge-<command>(1) and the bash and zsh completions from
# what the built binary declares: `ridge --help` lists the commands, each
# `ridge CMD --help` (generated from the command's parameter table, or its own
# usage text where it has none) gives the synopsis, text and option lines,
# and `ridge CMD SUB --help` the same for a command with subcommands (cost).
# Nothing here repeats a flag: a new flag appears in the page and the
# completion when its command's --help shows it.
# usage: gen-docs.sh RIDGE OUTDIR   (writes OUTDIR/man/man1/*.1,
#        OUTDIR/bash-completion/completions/ridge, OUTDIR/zsh/site-functions/_ridge)
set -eu
ridge=$1
out=$2
man=$out/man/man1
bash_out=$out/bash-completion/completions/ridge
zsh_out=$out/zsh/site-functions/_ridge
mkdir -p "$man" "$(dirname "$bash_out")" "$(dirname "$zsh_out")"
version=$("$ridge" --version | sed 's/^ridge //')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The commands and their one-line summaries: "name<TAB>summary".
"$ridge" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { n = $1; $1 = ""; sub(/^ +/, ""); print n "\t" $0; next } on && !/^  / { on = 0 }' >"$tmp/commands"

# The option flags of one --help text, one per line, from the synopsis (the
# lines from "usage:" to the first blank one) and the option lines: indented
# 2 to 6 spaces and starting with --flag (continuation lines sit deeper); on
# those, every --flag before the description (the first word that is not a
# flag or a metavar: FILE, B, a|b), so "--flops F --bytes B   the work" gives
# both; and a "... flags: --m --n"
# line. Flags of other tools named in the prose (ncu --csv) are on none.
flags() {
	{
		sed -n '/^usage:/,/^$/p' "$1"
		grep -E '^ {2,6}(-[a-zA-Z], )?--[a-z]' "$1" | awk '{
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^--[a-z]/) print $i            # --flag, --a/--b
				else if ($i !~ /^[A-Z]/ && $i !~ /\|/ && $i !~ /^-[a-zA-Z],$/) break # the description starts
			}
		}'
		grep -E '^ {2,6}[a-z ]+ flags: ' "$1" # "shape flags: --m --n ..." (ridge roofline)
	} | grep -oE -- '--[a-z0-9][a-z0-9-]*' | grep -vx -- '--help' | awk '!seen[$0]++'
}
# Subcommands: lines "  word   text" before the first option line, when
# `ridge CMD word --help` answers with its own usage.
subcommands() { # cmd helpfile
	awk '/^ {2,6}--/ { exit } /^  [a-z]+  +[a-z]/ { print $1 }' "$2" | while read -r sub; do
		if "$ridge" "$1" "$sub" --help >"$tmp/sub" 2>/dev/null && ! cmp -s "$tmp/sub" "$2"; then echo "$sub"; fi
	done
}

# roff: backslashes doubled, a leading . or ' escaped, - as \- in flags.
roff_text() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }

# One man page: name, summary, help text file(s).
man_page() { # page-name title summary helpfile...
	page=$1 title=$2 summary=$3
	shift 3
	{
		printf '.TH %s 1 "" "ridge %s" "ridge manual"\n' "$title" "$version"
		printf '.SH NAME\n%s \\- %s\n' "$page" "$(printf '%s' "$summary" | roff_text)"
		printf '.SH SYNOPSIS\n.nf\n'
		for h in "$@"; do sed -n '/^usage:/,/^$/p' "$h" | sed -e 's/^usage: //' -e 's/^       //' -e '/^$/d' | roff_text; done
		printf '.fi\n.SH DESCRIPTION\n.nf\n'
		for h in "$@"; do sed '1,/^$/d' "$h" | roff_text; printf '\n'; done
		printf '.fi\n.SH OPTIONS\n'
		for h in "$@"; do
			grep -E '^ {2,6}(-[a-zA-Z], )?--[a-z]' "$h" | while IFS= read -r line; do
				flag=$(printf '%s\n' "$line" | sed -E 's/^ +((-[a-zA-Z], )?--[a-z0-9-]+( [A-Za-z][A-Za-z0-9_|.x-]*)?).*/\1/')
				text=$(printf '%s\n' "$line" | sed -E 's/^ +((-[a-zA-Z], )?--[a-z0-9-]+( [A-Za-z][A-Za-z0-9_|.x-]*)?) *//')
				printf '.TP\n.B %s\n%s\n' "$(printf '%s' "$flag" | sed 's/-/\\-/g')" "$(printf '%s' "$text" | roff_text)"
			done
		done
		printf '.SH EXIT STATUS\n0 ok, 1 problem found, 2 usage or input error, 3 environment error.\n'
		printf '.SH SEE ALSO\n.BR ridge (1)\n'
	} >"$man/$page.1"
}

# ridge(1)
"$ridge" --help >"$tmp/ridge.help"
{
	printf '.TH RIDGE 1 "" "ridge %s" "ridge manual"\n' "$version"
	printf '.SH NAME\nridge \\- roofline, occupancy, alignment, launch and cost models with measurement validation\n'
	printf '.SH SYNOPSIS\n.B ridge\n.I command\n[options]\n'
	printf '.SH DESCRIPTION\n.nf\n'
	roff_text <"$tmp/ridge.help"
	printf '.fi\n.SH COMMANDS\n'
	while IFS="$(printf '\t')" read -r cmd summary; do
		printf '.TP\n.BR ridge\\-%s (1)\n%s\n' "$cmd" "$(printf '%s' "$summary" | roff_text)"
	done <"$tmp/commands"
	printf '.SH SEE ALSO\n'
	sed 's/\t.*//' "$tmp/commands" | awk '{ printf "%s.BR ridge\\-%s (1)", (NR > 1 ? ",\n" : ""), $1 } END { print "" }'
} >"$man/ridge.1"

# Per command: its page, its flags and subcommands for the completions.
: >"$tmp/bash-cases"
: >"$tmp/zsh-cases"
while IFS="$(printf '\t')" read -r cmd summary; do
	"$ridge" "$cmd" --help >"$tmp/$cmd.help" 2>/dev/null || true
	subs=$(subcommands "$cmd" "$tmp/$cmd.help")
	helps="$tmp/$cmd.help"
	sub_cases=""
	for sub in $subs; do
		"$ridge" "$cmd" "$sub" --help >"$tmp/$cmd-$sub.help"
		helps="$helps $tmp/$cmd-$sub.help"
		sub_cases="$sub_cases		$sub) opts=\"$(flags "$tmp/$cmd-$sub.help" | tr '\n' ' ')--help\" ;;
"
	done
	title=$(printf 'RIDGE-%s' "$cmd" | tr '[:lower:]' '[:upper:]')
	# shellcheck disable=SC2086 # one argument per help file
	man_page "ridge-$cmd" "$title" "$summary" $helps
	opts="$(flags "$tmp/$cmd.help" | tr '\n' ' ')--help"
	if [ -n "$subs" ]; then
		subs_words=$(echo $subs)
		printf '\t%s)\n\t\tif [ "$COMP_CWORD" -eq 2 ]; then opts="%s"; else case ${COMP_WORDS[2]} in\n%s\t\tesac; fi ;;\n' \
			"$cmd" "$subs_words" "$sub_cases" >>"$tmp/bash-cases"
		printf '\t%s)\n\t\tif (( CURRENT == 3 )); then opts=(%s); else case $words[3] in\n%s\t\tesac; fi ;;\n' \
			"$cmd" "$subs_words" "$(printf '%s' "$sub_cases" | sed -E 's/opts="([^"]*)"/opts=(\1)/')
" >>"$tmp/zsh-cases"
	else
		printf '\t%s) opts="%s" ;;\n' "$cmd" "$opts" >>"$tmp/bash-cases"
		printf '\t%s) opts=(%s) ;;\n' "$cmd" "$opts" >>"$tmp/zsh-cases"
	fi
done <"$tmp/commands"

commands=$(sed 's/\t.*//' "$tmp/commands" | tr '\n' ' ' | sed 's/ $//')
{
	echo "# bash completion for ridge (generated by scripts/gen-docs.sh from each command's --help)"
	echo '_ridge() {'
	echo '	local cur=${COMP_WORDS[COMP_CWORD]} opts=""'
	echo '	if [ "$COMP_CWORD" -eq 1 ]; then'
	echo "		COMPREPLY=(\$(compgen -W \"$commands --help --version\" -- \"\$cur\"))"
	echo '		return'
	echo '	fi'
	echo '	case ${COMP_WORDS[1]} in'
	cat "$tmp/bash-cases"
	echo '	esac'
	echo '	case $cur in'
	echo '	-*) COMPREPLY=($(compgen -W "$opts" -- "$cur")) ;;'
	echo '	*) [ -n "$opts" ] && [ "${opts#-}" = "$opts" ] && COMPREPLY=($(compgen -W "$opts" -- "$cur")) || COMPREPLY=($(compgen -f -- "$cur")) ;;'
	echo '	esac'
	echo '}'
	echo 'complete -o filenames -F _ridge ridge'
} >"$bash_out"
{
	echo '#compdef ridge'
	echo "# zsh completion for ridge (generated by scripts/gen-docs.sh from each command's --help)"
	echo '_ridge() {'
	echo '	local -a opts commands'
	echo '	if (( CURRENT == 2 )); then'
	printf '\t\tcommands=('
	while IFS="$(printf '\t')" read -r cmd summary; do
		printf "'%s:%s' " "$cmd" "$(printf '%s' "$summary" | sed "s/'/'\\\\''/g; s/:/\\\\:/g")"
	done <"$tmp/commands"
	printf ')\n'
	echo "		_describe 'command' commands"
	echo '		return'
	echo '	fi'
	echo '	case $words[2] in'
	cat "$tmp/zsh-cases"
	echo '	esac'
	echo '	if [[ $PREFIX == -* || ${opts[1]} != -* ]]; then compadd -a opts; else _files; fi'
	echo '}'
	echo '_ridge "$@"'
} >"$zsh_out"
