#!/bin/sh
# The README's tour is true: each "$ ridge ..." line in a ```console block of
# README.md is run, and its output (stdout and stderr) must equal the lines
# that follow it in the block.
# And every command of the "What it answers" table runs from a fresh clone
# exactly as printed: the tracked and unignored files are copied to an empty
# directory and each `ridge ...` span of a row is run there; it must exit 0
# (or 1 where its row says "exit 1"). ridge-probe needs a GPU and is skipped
# (SKIP line), and so is a command naming a file a ridge-probe of its row
# writes (--out FILE); ridge tui runs in a tmux window and is quit with q.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
RIDGE=${RIDGE:-build/ridge}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Split README.md into one command file and one expected-output file per example.
awk -v dir="$tmp" '
	/^```console/ { inblock = 1; next }
	/^```/ { inblock = 0; next }
	inblock && /^\$ ridge / { n++; cmd = substr($0, 3); print cmd > (dir "/" n ".cmd"); close(dir "/" n ".cmd"); printf "" > (dir "/" n ".want"); next }
	inblock && n { print >> (dir "/" n ".want") }
' README.md
passed=0
failed=0
for c in "$tmp"/*.cmd; do
	[ -f "$c" ] || continue
	n=${c%.cmd}
	cmd=$(cat "$c")
	eval "\"$RIDGE\" ${cmd#ridge }" >"$n.got" 2>&1 </dev/null
	if diff -u "$n.want" "$n.got" >"$n.diff"; then
		passed=$((passed + 1))
	else
		echo "FAIL README: $cmd"
		head -n 20 "$n.diff"
		failed=$((failed + 1))
	fi
done

# ---- the "What it answers" table, from a fresh clone ----
clone="$tmp/clone"
mkdir "$clone"
git ls-files -z -c -o --exclude-standard | tar -c --null -T - -f - 2>/dev/null | tar -x -C "$clone" -f -
ridge_abs=$(cd "$(dirname "$RIDGE")" && pwd)/$(basename "$RIDGE")
# One line per command: allowed exit codes, a tab, a probe-written file list
# (space-separated, may be empty), a tab, the command.
awk '
	/^## What it answers/ { table = 1; next }
	/^## / { table = 0 }
	!table || !/^\| / { next }
	{
		row = $0
		codes = (row ~ /exit 1/) ? "0 1" : "0"
		written = "-"
		n = 0
		while (match(row, /`[^`]*`/)) {
			span = substr(row, RSTART + 1, RLENGTH - 2)
			row = substr(row, RSTART + RLENGTH)
			if (span ~ /^ridge-probe/ && match(span, /--out [^ ]+/))
				written = written " " substr(span, RSTART + 6, RLENGTH - 6)
			if (span ~ /^ridge(-probe)? / || span == "ridge-probe")
				cmds[++n] = span
		}
		for (i = 1; i <= n; i++)
			printf "%s\t%s\t%s\n", codes, written, cmds[i]
	}
' README.md >"$tmp/rows"
rows=0
while IFS='	' read -r codes written cmd; do
	rows=$((rows + 1))
	case $cmd in
	ridge-probe*)
		echo "SKIP README row needs a GPU: $cmd"
		continue
		;;
	esac
	skip=""
	for f in $written; do
		case " $cmd " in *" $f "*) skip=$f ;; esac
	done
	if [ -n "$skip" ]; then
		echo "SKIP README row reads $skip, which ridge-probe writes on a GPU: $cmd"
		continue
	fi
	case $cmd in
	"ridge tui"*)
		if ! command -v tmux >/dev/null 2>&1; then
			echo "SKIP README row needs tmux: $cmd"
			continue
		fi
		session="ridge-readme-$$"
		: >"$tmp/row.out"
		tmux new-session -d -s "$session" -x 100 -y 30 -c "$clone" \
			"XDG_CONFIG_HOME=$tmp/config TERM=xterm-256color \"$ridge_abs\" ${cmd#ridge }; echo \$? >$tmp/tui.code"
		sleep 1
		tmux send-keys -t "$session" q
		i=0
		while [ ! -s "$tmp/tui.code" ] && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		tmux kill-session -t "$session" >/dev/null 2>&1
		code=$(cat "$tmp/tui.code" 2>/dev/null)
		rm -f "$tmp/tui.code"
		;;
	*)
		(cd "$clone" && XDG_CONFIG_HOME="$tmp/config" eval "\"$ridge_abs\" ${cmd#ridge }") >"$tmp/row.out" 2>&1 </dev/null
		code=$?
		;;
	esac
	case " $codes " in
	*" $code "*) passed=$((passed + 1)) ;;
	*)
		echo "FAIL README row (exit ${code:-none}, want $codes): $cmd"
		head -n 5 "$tmp/row.out" 2>/dev/null
		failed=$((failed + 1))
		;;
	esac
done <"$tmp/rows"
if [ "$rows" -lt 20 ]; then
	echo "FAIL README table: only $rows commands found (the table's format changed?)"
	failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
