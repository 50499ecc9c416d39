#!/bin/sh
# ridge serve against the published TTFT/TPOT runs of
# validation/serve/latency_published.csv: validation/README.md's per-engine
# tables ("TTFT and TPOT against published runs") are what
# validation/serve_latency_check.py computes today (every row runs: a row
# ridge rejects fails the check), so the README cannot drift from ridge serve.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
RIDGE=${RIDGE:-build/ridge}
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP serve latency: python3 not installed"
	echo "0 passed, 0 failed"
	exit 0
fi
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if python3 validation/serve_latency_check.py --ridge "$RIDGE" --check validation/README.md >"$tmp/check" 2>&1; then
	passed=$((passed + 1))
else
	echo "FAIL serve latency: validation/README.md's tables are not what ridge serve predicts today"
	head -n 10 "$tmp/check"
	failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
