#!/bin/sh
# ridge roofline --ncu FILE.ncu-rep: a saved Nsight Compute report is read
# through `ncu --import FILE --csv --page raw`. Without ncu on PATH: exit 3 and
# the export command; with a stand-in ncu that prints the recorded raw CSV:
# the same placement as --ncu on that CSV; an ncu that fails on the file: exit 2.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
RIDGE=${RIDGE:-build/ridge}
case $RIDGE in /*) ;; *) RIDGE=$root/$RIDGE ;; esac
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }

csv=tests/fixtures/ncu_h200_raw.csv
rep=$tmp/run.ncu-rep
printf 'not really a report\n' >"$rep"
mkdir -p "$tmp/none" "$tmp/fake" "$tmp/failing"

PATH=$tmp/none "$RIDGE" roofline --gpu h200-sxm --ncu "$rep" >"$tmp/out" 2>"$tmp/err"
code=$?
[ "$code" = 3 ] && ok || bad "ncu-import-missing: exit $code, expected 3"
grep -qF "reading it takes ncu, which is not on PATH" "$tmp/err" && grep -qF "ncu --import $rep --csv --page raw" "$tmp/err" && ok ||
	bad "ncu-import-missing: stderr: $(cat "$tmp/err")"

# A stand-in ncu: checks it was asked for the raw page of this file, prints the recorded CSV.
cat >"$tmp/fake/ncu" <<EOS
#!/bin/sh
[ "\$1 \$2 \$3 \$4 \$5" = "--import $rep --csv --page raw" ] || { echo "bad arguments: \$*" >&2; exit 9; }
cat "$root/$csv"
EOS
chmod +x "$tmp/fake/ncu"
PATH=$tmp/fake:/usr/bin:/bin "$RIDGE" roofline --gpu h200-sxm --ncu "$rep" >"$tmp/out" 2>"$tmp/err"
code=$?
[ "$code" = 0 ] && ok || bad "ncu-import: exit $code: $(head -n 2 "$tmp/err")"
"$RIDGE" roofline --gpu h200-sxm --ncu "$csv" >"$tmp/want" 2>/dev/null
sed "s|$rep|$csv|" "$tmp/out" | cmp -s - "$tmp/want" && ok || bad "ncu-import: differs from --ncu $csv"

printf '#!/bin/sh\necho "==ERROR== cannot open report" >&2\nexit 1\n' >"$tmp/failing/ncu"
chmod +x "$tmp/failing/ncu"
PATH=$tmp/failing:/usr/bin:/bin "$RIDGE" roofline --gpu h200-sxm --ncu "$rep" >"$tmp/out" 2>"$tmp/err"
code=$?
[ "$code" = 2 ] && grep -qF "ncu --import '$rep' --csv --page raw failed (exit 1)" "$tmp/err" && ok ||
	bad "ncu-import-fails: exit $code: $(cat "$tmp/err")"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
