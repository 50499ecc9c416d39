#!/bin/sh
# Generates ridge(1), ridge-<command>(1) and the bash and zsh completions from
# what the built binary declares: `ridge --help` lists the commands, each
# `ridge CMD --help` (generated from the command's parameter table, or its own
# usage text where it has none) gives the synopsis, text and option lines,
# and `ridge CMD SUB --help` the same for a command with subcommands (cost).
# Nothing here repeats a flag: a new flag appears in the page and the
# completion when its command's --help shows it.
# usage: gen-docs.sh RIDGE OUTDIR [PROBE_USAGE]   (writes OUTDIR/man/man1/*.1,
#        OUTDIR/bash-completion/completions/ridge, OUTDIR/zsh/site-functions/_ridge;
#        with PROBE_USAGE, a program printing ridge-probe's --help, ridge-probe.1)
set -eu
# --help wrapped to 72 columns: a man page indents its text 7 (MANWIDTH=80 holds it)
export RIDGE_HELP_WIDTH=72
ridge=$1
out=$2
probe_usage=${3:-}
man=$out/man/man1
bash_out=$out/bash-completion/completions/ridge
zsh_out=$out/zsh/site-functions/_ridge
mkdir -p "$man" "$(dirname "$bash_out")" "$(dirname "$zsh_out")"
version=$("$ridge" --version | sed 's/^ridge //')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The commands and their one-line summaries: "name<TAB>summary".
# (a summary --help wrapped goes on on deeper lines: joined back)
"$ridge" --help | awk '
	/^commands:/ { on = 1; next }
	on && /^  [a-z]/ { if (n != "") print n "\t" text; n = $1; $1 = ""; sub(/^ +/, ""); text = $0; next }
	on && /^    +[^ ]/ { line = $0; sub(/^ +/, "", line); text = text " " line; next }
	on { if (n != "") print n "\t" text; n = ""; on = 0 }
	END { if (n != "") print n "\t" text }' >"$tmp/commands"

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
# Subcommands: the words after "ridge CMD" in the synopsis's forms (ridge cost
# train ..., ridge hw show GPU ...) and the "  word  text" rows before the first
# option line, each one `ridge CMD word --help` answers.
subcommands() { # cmd helpfile
	{
		sed -n '/^usage:/,/^$/p' "$2" | sed 's/^usage: //' | awk -v cmd="$1" '$1 == "ridge" && $2 == cmd && $3 ~ /^[a-z]+$/ { print $3 }'
		awk '/^ {2,6}--/ { exit } /^  [a-z]+ +[a-z]/ { print $1 }' "$2"
	} | awk '!seen[$0]++' | while read -r sub; do
		if "$ridge" "$1" "$sub" --help >/dev/null 2>&1 &&
			"$ridge" "$1" "$sub" --help | sed -n '/^usage:/,/^$/p' | grep -q "ridge $1 $sub"; then echo "$sub"; fi
	done
}

# What each option takes, from its option line and the lines continuing it:
# "--flag<TAB>kind", kind one of @gpu (a GPU id), @file, @dir, @none (a number
# or text: nothing to offer), @dtype (every dtype the --help texts name), or
# the words it takes: a metavar "a|b|c", the dtypes its text names (DT), or a
# list the text gives ("ring, tree, nvls or direct": three or more, or two
# with "or"; the first part between colons and semicolons that is one,
# parentheses left out, with a "(default auto" word). A "+" in front: a comma-separated list
# (GPU,...).
option_values() { # helpfile
	awk '
	function flush(    m, d, list, kind, n, i, t, words, defaults, tail, either, seg, nseg, g) {
		if (flag == "") return
		m = meta; d = desc
		list = (m ~ /,\.\.\.$/) ? "+" : ""
		sub(/,\.\.\.$/, "", m)
		if (m == "") kind = "@flag"
		else if (m ~ /\|/ && m !~ /[A-Z]/) { kind = m; gsub(/\|/, " ", kind) }
		else if (m == "GPU") kind = "@gpu"
		else if (m == "DT") {
			n = split(d, t, /[^a-z0-9]+/); words = ""
			for (i = 1; i <= n; i++) if (t[i] ~ /^(fp|bf|tf|int)[0-9]+$/ && index(" " words " ", " " t[i] " ") == 0) words = words (words == "" ? "" : " ") t[i]
			kind = (words == "" || words !~ / /) ? "@dtype" : words # "(default bf16)" alone lists none
		}
		else if (m ~ /^(FILE|BASE|AFTER)/ || m ~ /\.(json|yaml|csv|svg)$/) kind = "@file"
		else if (m == "DIR") kind = "@dir"
		else if (m == "LIST") kind = "@none" # items the user makes up (--dims)
		else {
			defaults = ""
			tail = d
			while (match(tail, /\(default [a-z][a-z0-9-]*[:)]/)) {
				defaults = defaults " " substr(tail, RSTART + 9, RLENGTH - 10)
				tail = substr(tail, RSTART + RLENGTH)
			}
			while (gsub(/\([^()]*\)/, "", d)) ;
			gsub(/ +/, " ", d); gsub(/ ,/, ",", d) # "graph (default) or": "graph or"
			gsub(/; /, ": ", d)
			# each part between ": " and "; " is tried: "vllm, sglang or trtllm: the
			# scheduler", "--model: attention implementation: default, ideal, fa2"
			nseg = split(d, seg, /: /); words = ""
			for (g = 1; g <= nseg && words == ""; g++) {
				d = seg[g]
				either = index(d, " or ") > 0
				gsub(/ or /, ", ", d); gsub(/\|/, ", ", d); sub(/[ .]+$/, "", d)
				n = split(d, t, /, */)
				if (n >= 3 || (n == 2 && either)) { # "a, b or c", "a or b"; not "per launch, us"
					sub(/.* /, "", t[1]) # "routed experts as grouped": the last word
					for (i = 1; i <= n; i++) {
						if (t[i] !~ /^[a-z][a-z0-9-]*$/) { words = ""; break }
						words = words (words == "" ? "" : " ") t[i]
					}
				}
			}
			if (words != "") {
				n = split(defaults, t, " ")
				for (i = 1; i <= n; i++) if (index(" " words " ", " " t[i] " ") == 0) words = words " " t[i]
			}
			kind = words == "" ? "@none" : words
		}
		if (kind != "@flag") print flag "\t" list kind
		flag = ""
	}
	/^  +(-[a-zA-Z], )?--[a-z]/ && match($0, /^ +/) && RLENGTH <= 6 { # (mawk has no {2,6})
		flush()
		line = $0; sub(/^ +(-[a-zA-Z], )?/, "", line)
		if (line ~ /,  *--[a-z]/) { next } # "--l2-bytes B, --smem-bytes B": numbers
		flag = line; sub(/ .*/, "", flag)
		rest = substr(line, length(flag) + 1); sub(/^ /, "", rest)
		meta = ""
		if (rest !~ /^ / && rest != "") { meta = rest; sub(/ .*/, "", meta); rest = substr(rest, length(meta) + 1) }
		if (meta ~ /^[a-z]/ && meta !~ /\|/) { rest = meta " " rest; meta = "" } # no metavar: the text
		sub(/^ +/, "", rest)
		desc = rest
		next
	}
	flag != "" && /^       +[^ ]/ { l = $0; sub(/^ +/, "", l); desc = desc " " l; next }
	{ flush() }
	END { flush() }
	' "$1" | awk -F '\t' '!seen[$1]++'
}

# What the operands of each form of a synopsis are: "SUB<TAB>kind" (SUB "-"
# for a command without subcommands): @gpu (ridge hw show GPU), @file (FILE,
# FILE.yaml, BASE.json, ...), else nothing (the flags are offered).
operand_kinds() { # cmd helpfile
	sed -n '/^usage:/,/^$/p' "$2" | sed 's/^usage: //' | tr '\n' ' ' | awk -v cmd="$1" '{
		sub_ = "-"; prev = ""; form = 0
		for (i = 1; i <= NF; i++) {
			if ($i == "ridge" && $(i + 1) == cmd) {
				form = 1; i++
				sub_ = ($(i + 1) ~ /^[a-z]+$/) ? $(i + 1) : "-"
				if (sub_ != "-") i++
				prev = ""
				continue
			}
			if (!form) continue
			w = $i; gsub(/[][()]/, "", w)
			if (prev !~ /^[[(|]*--/ && w ~ /^[A-Z]/) {
				kind = (w ~ /^GPU/) ? "@gpu" : (w ~ /^(FILE|BASE|AFTER)/ || w ~ /\.(json|yaml|sqlite)/) ? "@file" : ""
				if (kind != "" && !(sub_ in seen)) { seen[sub_] = 1; print sub_ "\t" kind }
			}
			prev = $i
		}
	}'
}

# The completion's block for one command or subcommand (the same text serves
# bash and zsh): its flags, what the flag before the cursor takes, what its
# operands are.
completion_block() { # helpfile operand-kind indent
	printf '%sopts="%s --help"\n' "$3" "$(flags "$1" | tr '\n' ' ' | sed 's/ $//')"
	option_values "$1" >"$tmp/values"
	if [ -s "$tmp/values" ]; then
		printf '%scase $prev in\n' "$3"
		awk -F '\t' -v ind="$3" '{ printf "%s%s) values=\"%s\" ;;\n", ind, $1, $2 }' "$tmp/values"
		printf '%sesac\n' "$3"
	fi
	printf '%soperand="%s"\n' "$3" "$2"
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

# ridge-probe(1), from the text its --help prints.
if [ -n "$probe_usage" ]; then
	"$probe_usage" >"$tmp/probe.help"
	man_page ridge-probe RIDGE-PROBE "measure a GPU's ceilings and check ridge's model against it" "$tmp/probe.help"
fi

# Per command: its page, and its block of the completions (one text for bash
# and zsh: both read it as sh case statements).
: >"$tmp/cases"
while IFS="$(printf '\t')" read -r cmd summary; do
	"$ridge" "$cmd" --help >"$tmp/$cmd.help" 2>/dev/null || true
	subs=$(subcommands "$cmd" "$tmp/$cmd.help")
	operand_kinds "$cmd" "$tmp/$cmd.help" >"$tmp/$cmd.operands"
	kind_of() { awk -F '\t' -v s="$1" '$1 == s { print $2 }' "$tmp/$cmd.operands"; }
	helps="$tmp/$cmd.help"
	for sub in $subs; do
		"$ridge" "$cmd" "$sub" --help >"$tmp/$cmd-$sub.help"
		# a page of its own text only where it differs (ridge hw's are one text)
		cmp -s "$tmp/$cmd-$sub.help" "$tmp/$cmd.help" || helps="$helps $tmp/$cmd-$sub.help"
	done
	title=$(printf 'RIDGE-%s' "$cmd" | tr '[:lower:]' '[:upper:]')
	# shellcheck disable=SC2086 # one argument per help file
	man_page "ridge-$cmd" "$title" "$summary" $helps
	if [ -n "$subs" ]; then
		{
			printf '\t%s)\n' "$cmd"
			printf '\t\tif [ "$cword" -eq 2 ]; then opts="%s"; operand=""; else\n' "$(echo $subs)"
			printf '\t\tcase $sub in\n'
			for sub in $subs; do
				printf '\t\t%s)\n' "$sub"
				completion_block "$tmp/$cmd-$sub.help" "$(kind_of "$sub")" '			'
				printf '\t\t\t;;\n'
			done
			printf '\t\tesac\n\t\tfi ;;\n'
		} >>"$tmp/cases"
	else
		{
			printf '\t%s)\n' "$cmd"
			completion_block "$tmp/$cmd.help" "$(kind_of -)" '		'
			printf '\t\t;;\n'
		} >>"$tmp/cases"
	fi
done <"$tmp/commands"

# The dtypes any --help names: for a DT flag whose own line lists none.
dtypes=$(cat "$tmp"/*.help | grep -oE '\b(fp|bf|tf|int)[0-9]+\b' | awk '!seen[$0]++' | tr '\n' ' ' | sed 's/ $//')
commands=$(sed 's/\t.*//' "$tmp/commands" | tr '\n' ' ' | sed 's/ $//')
{
	echo "# bash completion for ridge (generated by scripts/gen-docs.sh from each command's --help)"
	echo '# The GPU ids: those the ridge being completed knows (its hwdb, yours included).'
	echo '_ridge_gpus() { "${COMP_WORDS[0]}" hw list 2>/dev/null | awk '"'"'NR > 1 { print $1 }'"'"'; }'
	echo '# COMPREPLY for a value of kind $1 (@gpu, @file, @dir, @dtype, @none or the words;'
	echo '# "+" in front: after the last comma of a list) for the word $2.'
	echo '_ridge_values() {'
	echo '	local kind=$1 cur=$2 head="" words'
	echo '	case $kind in +*) kind=${kind#+}; case $cur in *,*) head=${cur%,*},; cur=${cur##*,} ;; esac ;; esac'
	echo '	case $kind in'
	echo '	@gpu) words=$(_ridge_gpus) ;;'
	echo '	@file) COMPREPLY=($(compgen -f -- "$cur")); return ;;'
	echo '	@dir) COMPREPLY=($(compgen -d -- "$cur")); return ;;'
	echo '	@none) COMPREPLY=(); return ;;'
	echo "	@dtype) words=\"$dtypes\" ;;"
	echo '	*) words=$kind ;;'
	echo '	esac'
	echo '	COMPREPLY=($(compgen -P "$head" -W "$words" -- "$cur"))'
	echo '}'
	echo '_ridge() {'
	echo '	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} cword=$COMP_CWORD sub=${COMP_WORDS[2]}'
	echo '	local opts="" values="" operand=""'
	echo '	if [ "$cword" -eq 1 ]; then'
	echo "		COMPREPLY=(\$(compgen -W \"$commands --help --version\" -- \"\$cur\"))"
	echo '		return'
	echo '	fi'
	echo '	case ${COMP_WORDS[1]} in'
	cat "$tmp/cases"
	echo '	esac'
	echo '	if [ -n "$values" ]; then'
	echo '		_ridge_values "$values" "$cur"'
	echo '	elif [ "${cur#-}" != "$cur" ] || [ -z "$operand" ]; then'
	echo '		COMPREPLY=($(compgen -W "$opts" -- "$cur"))'
	echo '	else'
	echo '		_ridge_values "$operand" "$cur"'
	echo '	fi'
	echo '}'
	echo 'complete -o filenames -F _ridge ridge'
} >"$bash_out"
{
	echo '#compdef ridge'
	echo "# zsh completion for ridge (generated by scripts/gen-docs.sh from each command's --help)"
	echo '# Values of kind $1 (@gpu, @file, @dir, @dtype, @none or the words; "+" in front: after'
	echo '# the last comma of a list).'
	echo '_ridge_values() {'
	echo '	local kind=$1'
	echo '	if [[ $kind == +* ]]; then kind=${kind#+}; compset -P "*,"; fi'
	echo '	case $kind in'
	echo '	@gpu) compadd -- ${(f)"$(${words[1]} hw list 2>/dev/null | awk '"'"'NR > 1 { print $1 }'"'"')"} ;;'
	echo '	@file) _files ;;'
	echo '	@dir) _files -/ ;;'
	echo '	@none) ;;'
	echo "	@dtype) compadd -- $dtypes ;;"
	echo '	*) compadd -- ${=kind} ;;'
	echo '	esac'
	echo '}'
	echo '_ridge() {'
	echo '	local prev=$words[CURRENT-1] cword=$((CURRENT - 1)) sub=$words[3] cur=$PREFIX'
	echo '	local opts="" values="" operand=""'
	echo '	local -a commands'
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
	cat "$tmp/cases"
	echo '	esac'
	echo '	if [[ -n $values ]]; then'
	echo '		_ridge_values "$values"'
	echo '	elif [[ $cur == -* || -z $operand ]]; then'
	echo '		compadd -- ${=opts}'
	echo '	else'
	echo '		_ridge_values "$operand"'
	echo '	fi'
	echo '}'
	echo '_ridge "$@"'
} >"$zsh_out"
