#!/bin/sh
# The include direction of the layers, checked (make test runs it through
# tests/suite_layers.sh). Each folder may include, in quotes, only headers of
# the folders listed for it; the per-layer -I paths of the Makefile make the
# compiler refuse most violations, and this catches the rest ("../cli/x.h").
#   model/  model/                         the pure models
#   hwdb/   model/ hwdb/ util/             the hardware database
#   util/   util/                          formatting, JSON, files
#   app/    model/ hwdb/ util/ app/        the calculators (app/core, calc, read, view)
#   tui/    model/ hwdb/ util/ app/ tui/   the explorer
#   cli/    model/ hwdb/ util/ app/ cli/, and tui/tui.h (ridge tui starts it)
#   probe/  model/ hwdb/ util/ probe/ kernels/
# Prints one line per violation and "N passed, M failed" (a file a check).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
passed=0
failed=0
allowed() { # layer -> allowed folders
	case $1 in
	model) echo "model" ;;
	hwdb) echo "model hwdb util" ;;
	util) echo "util" ;;
	app) echo "model hwdb util app" ;;
	tui) echo "model hwdb util app tui" ;;
	cli) echo "model hwdb util app cli" ;;
	probe) echo "model hwdb util probe kernels" ;;
	esac
}
# The folder that holds header $2 included from file $1.
resolve() {
	dir=$(dirname "$1")
	case $2 in
	*/*) target=$(cd "$dir" 2>/dev/null && realpath -m --relative-to="$root" "$2") ;;
	*)
		target=""
		for d in "$dir" model hwdb util app/core app/calc app/read app/view tui cli; do
			if [ -f "$d/$2" ]; then
				target="$d/$2"
				break
			fi
		done
		;;
	esac
	printf '%s\n' "$target"
}
for layer in model hwdb util app tui cli probe; do
	ok_dirs=$(allowed "$layer")
	for f in $(find "$layer" -name '*.c' -o -name '*.h' | sort); do
		bad=0
		for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
			target=$(resolve "$f" "$inc")
			[ -n "$target" ] || continue # generated (commands.inc) or not a header of the tree
			top=${target%%/*}
			ok=0
			for d in $ok_dirs; do [ "$top" = "$d" ] && ok=1; done
			[ "$layer" = cli ] && [ "$target" = tui/tui.h ] && ok=1
			if [ $ok = 0 ]; then
				echo "FAIL $f includes \"$inc\" ($target): $layer/ may include only $ok_dirs"
				bad=1
			fi
		done
		if [ $bad = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
	done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
