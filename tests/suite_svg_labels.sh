#!/bin/sh
# Roofline SVG labels: every kernel is drawn and labelled (zero-FLOP ones on
# the bandwidth axis, marked "(0 FLOP)"), and the greedy placement keeps
# labels off each other: on the validation plot (58 of its 64 cases have
# FLOPs and bytes to place) at most 1 pair of
# point labels may touch (20 pairs did before placement searched rings of
# spots with leader lines), on the ncu plot none. Boxes are estimated as the
# drawing code does (0.6 em per character).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
RIDGE=${RIDGE:-build/ridge}
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }

# Pairs of distinct 13 px labels (the point labels) whose boxes overlap.
overlaps() {
	grep -o '<text x="[0-9.]*" y="[0-9.]*" font-size="13"[^>]*text-anchor="[a-z]*"[^>]*>[^<]*</text>' "$1" |
		sed -E 's/<text x="([0-9.]+)" y="([0-9.]+)" font-size="13"[^>]*text-anchor="([a-z]+)"[^>]*>([^<]*)<\/text>/\1\t\2\t\3\t\4/' |
		awk -F '\t' '{
			w = 0.6 * 13 * length($4); x0 = $3 == "end" ? $1 - w : $3 == "middle" ? $1 - w / 2 : $1
			if (seen[$4 SUBSEP $1 SUBSEP $2]++) next # the halo copy of a label
			n++; X0[n] = x0; X1[n] = x0 + w; Y0[n] = $2 - 13; Y1[n] = $2 + 3; T[n] = $4
		} END {
			c = 0
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
				if (T[i] != T[j] && X0[i] < X1[j] && X0[j] < X1[i] && Y0[i] < Y1[j] && Y0[j] < Y1[i]) c++
			print c
		}'
}

"$RIDGE" roofline --validation validation/h200-validation.json --svg "$tmp/v.svg" >/dev/null 2>&1 && ok || bad "svg-validation: does not run"
# Every point of the plot (--json lists them) has its label.
points=$("$RIDGE" roofline --validation validation/h200-validation.json --json 2>/dev/null | grep -c '"kernel":')
labels=$(grep -o 'font-size="13"[^>]*>[^<]*<' "$tmp/v.svg" | sed 's/.*>\(.*\)</\1/' | sort -u | wc -l)
[ "$points" -gt 50 ] && [ "$labels" -ge "$points" ] && ok || bad "svg-validation: $labels labels for $points points"
n=$(overlaps "$tmp/v.svg")
[ "$n" -le 1 ] && ok || bad "svg-validation: $n pairs of labels overlap"

"$RIDGE" roofline --gpu h200-sxm --ncu tests/fixtures/ncu_h200_raw.csv --svg "$tmp/n.svg" >/dev/null 2>&1 && ok || bad "svg-ncu: does not run"
# rp_copy counts no FLOPs: drawn on the bandwidth axis and marked.
grep -q 'rp_copy (0 FLOP)' "$tmp/n.svg" && ok || bad "svg-ncu: the zero-FLOP rp_copy is not drawn and marked"
grep -q '0 FLOP: left edge' "$tmp/n.svg" && ok || bad "svg-ncu: no legend entry for zero-FLOP kernels"
n=$(overlaps "$tmp/n.svg")
[ "$n" -eq 0 ] && ok || bad "svg-ncu: $n pairs of labels overlap"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
