#!/bin/sh
# Issue 31's reproducers: the profiler readers (ridge trace: nsys SQLite and
# PyTorch JSON), ridge compare and ridge calibrate against hostile and absurd
# input, one or more cases for each of the issue's numbered defect classes
# (the number leads each case's name). Every input is generated here, in a
# scratch directory (nothing large is committed), and every command runs
# bounded: at most 2 s of CPU time and 256 MB of address space (ulimit -t,
# ulimit -v) and 10 s of wall time (a hang guard on a shared machine; the
# CPU bound is the 2 s the issue asks for). For each: the exit status, a
# fragment stderr must hold, what stdout must or must not hold, and, where
# the command names an output, that every input is byte for byte intact.
# The SQLite inputs need the sqlite3 shell (SKIP without it).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
RIDGE=${RIDGE:-build/ridge}
case $RIDGE in /*) ;; *) RIDGE=$root/$RIDGE ;; esac
passed=0
failed=0
skipped=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
XDG_CONFIG_HOME=$tmp/xdg
export XDG_CONFIG_HOME
unset RIDGE_HWDB
t=$tmp # the inputs
timings=measurements/2026-12-01-h200-heldout/timings.json
h200cal=validation/h200-calibration.yaml

# The bounds hold for the plain build. Under make check-asan (SANITIZE set)
# AddressSanitizer reserves terabytes of address space and runs several times
# slower: there the cases keep their verdicts, with no address-space limit and
# 60 s of CPU, and the out-of-memory case is skipped.
if [ -n "${SANITIZE:-}" ]; then
	limits='ulimit -t 60' wall=120
else
	limits='ulimit -t 2; ulimit -v 262144' wall=10
fi

# check NAME CODE STDERR_FRAGMENT STDOUT_GREP -- COMMAND...: runs COMMAND
# bounded; STDOUT_GREP is a grep -E pattern stdout must match ("" for none),
# or !PATTERN for one it must not.
check() {
	name=$1 code=$2 want_err=$3 want_out=$4
	shift 5
	timeout -k 1 "$wall" sh -c "$limits"'; exec "$@"' sh "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	got=$?
	problem=""
	if [ "$got" != "$code" ]; then
		problem="exit $got, expected $code"
	elif [ -n "$want_err" ] && ! grep -qF -- "$want_err" "$tmp/err"; then
		problem="stderr lacks '$want_err'"
	elif [ "$code" = 2 ] && [ -s "$tmp/out" ]; then
		problem="printed on stdout when refusing"
	elif [ -n "$want_out" ]; then
		case $want_out in
		!*) grep -qE -- "${want_out#!}" "$tmp/out" && problem="stdout has '${want_out#!}'" ;;
		*) grep -qE -- "$want_out" "$tmp/out" || problem="stdout lacks '$want_out'" ;;
		esac
	fi
	result "$name" "$problem"
}

result() {
	if [ -n "$2" ]; then
		echo "FAIL $1: $2"
		sed 's/^/     stderr: /' "$tmp/err" | head -n 3
		failed=$((failed + 1))
	else
		passed=$((passed + 1))
	fi
}

# intact NAME FILE COPY: FILE is still byte for byte COPY.
intact() {
	if cmp -s "$2" "$3"; then result "$1" ""; else result "$1" "the input $2 was changed"; fi
}

# ---- PyTorch traces: events written by awk, ev() one kernel
# pt FILE AWK_BODY: {"traceEvents": [ what AWK_BODY prints ]}
prelude='function ev(name, ts, dur, dev) {
	return sprintf("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"ts\": %s, \"dur\": %s, \"args\": {\"device\": %d}}", name, ts, dur, dev)
}'
pt() {
	{
		printf '{"traceEvents": [\n'
		awk "$prelude BEGIN { $2 }"
		printf ']}\n'
	} >"$1"
}

# 1. time sums: 110,000 kernels of a day each pass 2^63 ns; a timestamp past 2^61 ns
pt "$t/sum.json" 'for (i = 0; i < 110000; i++) print (i ? "," : "") ev("k", 0, 86400000000, 0)'
check 1-trace-sum-overflow 2 "the kernels' durations add up past 2^63 ns" "" -- "$RIDGE" trace "$t/sum.json"
pt "$t/late.json" 'print ev("k", "9e15", 1, 0)'
check 1-trace-timestamp-range 2 "'ts' is not a time within +-2^61 ns" "" -- "$RIDGE" trace "$t/late.json"

# 2. durations: negative, absurd, zero (legal: shares are 0, never nan)
pt "$t/negative.json" 'print ev("k", 10, -40, 0)'
check 2-trace-negative-dur 2 "'dur' -40 us is not a duration" "" -- "$RIDGE" trace "$t/negative.json"
pt "$t/huge-dur.json" 'print ev("k", 10, "1e308", 0)'
check 2-trace-1e308-dur 2 "'dur' 1e+308 us is not a duration" "" -- "$RIDGE" trace "$t/huge-dur.json"
pt "$t/api-negative.json" 'print ev("k", 10, 5, 0) ", {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"ts\": 1, \"dur\": -3}"'
check 2-trace-negative-api 2 "cuda_runtime: 'dur' -3 us is not a duration" "" -- "$RIDGE" trace "$t/api-negative.json"
pt "$t/zero.json" 'for (i = 0; i < 3; i++) print (i ? "," : "") ev("k", i, 0, 0)'
check 2-trace-zero-durations 0 "" "GPU busy 0 s \(0.0%\)" -- "$RIDGE" trace "$t/zero.json"
check 2-trace-zero-no-nan 0 "" "!nan|inf" -- "$RIDGE" trace "$t/zero.json"

# 4. memory and time: 100 MB of zeros as events (refused at the first, in
# the bound); 200,000 distinct kernel names grouped in one pass (took
# 4 min 52 s); out of memory said as such (exit 3), not "not valid JSON"
{
	printf '{"traceEvents": ['
	yes 0, | head -c 100000000
	printf '0]}\n'
} >"$t/zeros.json"
check 4-trace-100MB-zeros 2 "traceEvents[0]: not an object" "" -- "$RIDGE" trace "$t/zeros.json"
pt "$t/names.json" 'for (i = 0; i < 200000; i++) print (i ? "," : "") ev("kernel_" i, i * 2, 1, 0)'
check 4-trace-200k-names 0 "" "200000 kernel launches" -- "$RIDGE" trace "$t/names.json" --top 1
if [ -z "${SANITIZE:-}" ]; then
	timeout -k 1 10 sh -c 'ulimit -v 40000; exec "$@"' sh "$RIDGE" trace "$t/names.json" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ $got = 3 ] && grep -q "out of memory" "$tmp/err"; then result 4-trace-oom-said ""; else result 4-trace-oom-said "exit $got, expected 3 and 'out of memory'"; fi
else
	echo "SKIP 4-trace-oom-said: an address-space limit and AddressSanitizer do not mix"
fi

# A trace of 1,000,000 kernels, each issued by one cpu_op (2,000,000 events,
# 253 MB, the layout of tests/fixtures/trace/pytorch-h200-decode.json): read
# as a stream, so within the bounds (it took 326 MB and 5.5 s of CPU when the
# whole text was held); the same through standard input
awk 'BEGIN {
	split("sm90_xmma_gemm_bf16|elementwise_kernel|reduce_kernel|softmax_warp_forward", kernel, "|")
	split("aten::mm|aten::add|aten::mean|aten::softmax", op, "|")
	print "{\"traceEvents\": ["
	for (i = 0; i < 1000000; i++) {
		j = i % 4 + 1
		printf "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"args\":{\"External id\":%d}},\n", op[j], i
		printf "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"ts\":%.0f.%03d,\"dur\":1.12,\"args\":{\"grid\":[8,1,1],\"block\":[128,1,1],\"registers per thread\":32,\"External id\":%d}}%s\n", kernel[j], 5301428333712 + i * 2, i % 1000, i, i < 999999 ? "," : ""
	}
	print "]}"
}' >"$t/1M.json"
check 4-trace-1M-kernels 0 "" "^$t/1M.json .*: 1000000 kernel launches" -- "$RIDGE" trace "$t/1M.json"
check 4-trace-1M-kernels-operators 0 "" "softmax_warp_forward +250000 .* aten::softmax" -- "$RIDGE" trace "$t/1M.json"
check 4-trace-1M-kernels-stdin 0 "" "^- .*: 1000000 kernel launches" -- sh -c 'exec "$1" trace - <"$2"' sh "$RIDGE" "$t/1M.json"
rm -f "$t/1M.json"
# 1,000,000 distinct names pass, one more is refused (the limit itself, no
# lowering: 82 MB of cpu_op events); an event of more than 16 MiB is refused,
# not held
names() { # N: a kernel named k and N operators of distinct names
	awk -v n="$1" 'BEGIN { printf "{\"traceEvents\": [{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":0,\"dur\":1}"
	for (i = 0; i < n; i++) printf ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op_%d\",\"args\":{\"External id\":%d}}", i, i
	print "]}" }'
}
names 999999 >"$t/names-1M.json"
check 4-trace-1M-names-pass 0 "" "1 kernel launches" -- "$RIDGE" trace "$t/names-1M.json"
names 1000000 >"$t/names-1M.json"
check 4-trace-1M-names-limit 2 "more than 1000000 distinct names, the limit of a trace" "" -- "$RIDGE" trace "$t/names-1M.json"
rm -f "$t/names-1M.json"
{
	printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "'
	yes abcdefghijklmnopqrstuvwxyzabcdef | head -c 18000000 | tr -d '\n'
	printf '", "ts": 0, "dur": 1}]}\n'
} >"$t/big-event.json"
check 4-trace-event-bytes 2 "1:18: not valid JSON: one value of more than 16777216 bytes, the limit of a PyTorch trace" "" -- \
	"$RIDGE" trace "$t/big-event.json"
rm -f "$t/big-event.json"
# The limits no input reaches within 2 s and 256 MB, lowered for the test by
# RIDGE_TEST_LIMITS (tests/README.md): 4,000,000 kernels are 288 MB of
# records; each bound exact (N pass, N + 1 refused); and the variable cannot
# raise a limit
pt "$t/k1000.json" 'for (i = 0; i < 1000; i++) print (i ? "," : "") ev("k" i % 7, i, 1, 0)'
pt "$t/k1001.json" 'for (i = 0; i < 1001; i++) print (i ? "," : "") ev("k" i % 7, i, 1, 0)'
check 4-trace-kernel-limit-pass 0 "" "1000 kernel launches" -- env RIDGE_TEST_LIMITS=trace_kernels=1000 "$RIDGE" trace "$t/k1000.json"
check 4-trace-kernel-limit 2 "more than 1000 kernels, the limit of a trace" "" -- \
	env RIDGE_TEST_LIMITS=trace_kernels=1000 "$RIDGE" trace "$t/k1001.json"
check 4-trace-name-limit-pass 0 "" "1000 kernel launches" -- env RIDGE_TEST_LIMITS=trace_names=7 "$RIDGE" trace "$t/k1000.json"
check 4-trace-name-limit 2 "more than 6 distinct names, the limit of a trace" "" -- \
	env RIDGE_TEST_LIMITS=trace_names=6 "$RIDGE" trace "$t/k1000.json"
check 4-trace-event-limit 2 "more than 1000 events, the limit of a trace" "" -- \
	env RIDGE_TEST_LIMITS=trace_events=1000 "$RIDGE" trace "$t/k1001.json"
check 4-limits-only-lower 2 "RIDGE_TEST_LIMITS: trace_kernels=4000001 is above ridge's own limit 4000000" "" -- \
	env RIDGE_TEST_LIMITS=trace_kernels=4000001 "$RIDGE" trace "$t/k1000.json"
check 4-limits-malformed 2 "RIDGE_TEST_LIMITS: 'kernels=x' is not LIMIT=N" "" -- \
	env RIDGE_TEST_LIMITS=kernels=x "$RIDGE" trace "$t/k1000.json"

# 12. the strict reader: a key twice, text after the document
printf '{"traceEvents": [], "traceEvents": []}\n' >"$t/dup-key.json"
check 12-trace-duplicate-key 2 "key \"traceEvents\" given twice" "" -- "$RIDGE" trace "$t/dup-key.json"
pt "$t/trailing.json" 'print ev("k", 1, 1, 0)'
printf 'garbage\n' >>"$t/trailing.json"
check 12-trace-trailing-text 2 "text after the JSON document" "" -- "$RIDGE" trace "$t/trailing.json"

# 14. a newline in a kernel name starts no line; 15. two GPUs each half busy
pt "$t/newline.json" 'print ev("gemm\\nFAKE 100.0%", 1, 1, 0)'
check 14-trace-newline-name 0 "" "gemm\\\\x0aFAKE" -- "$RIDGE" trace "$t/newline.json"
check 14-trace-no-fake-line 0 "" "!^FAKE" -- "$RIDGE" trace "$t/newline.json"
pt "$t/two-gpus.json" 'print ev("a", 0, 5, 0) "," ev("b", 5, 5, 1)'
check 15-trace-two-gpus 0 "" "GPU busy 10 us \(50.0%\) summed over 2 GPUs" -- "$RIDGE" trace "$t/two-gpus.json"

# ---- nsys SQLite exports, written by the sqlite3 shell
if command -v sqlite3 >/dev/null 2>&1; then
	schema='CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, correlationId INT, shortName INT,
  registersPerThread INT, gridX INT, gridY INT, gridZ INT, blockX INT, blockY INT, blockZ INT);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, nameId INT);'
	kernel='INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES'
	into='INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL'
	# db NAME SQL: $t/NAME.sqlite from the schema (or SQL's own) and SQL
	db() { rm -f "$t/$1.sqlite" && printf '%s\n' "$2" | sqlite3 "$t/$1.sqlite"; }
	db sum "$schema INSERT INTO StringIds VALUES (1, 'k');
WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < 110000)
  $into SELECT 0, 86400000000000, 0, i, 1, 32, 1, 1, 1, 1, 1, 1 FROM c;"
	check 1-nsys-sum-overflow 2 "the kernels' durations add up past 2^63 ns" "" -- "$RIDGE" trace "$t/sum.sqlite"
	db backwards "$schema INSERT INTO StringIds VALUES (1, 'k'); $kernel (100, 60, 0, 1, 1, 32, 1, 1, 1, 1, 1, 1);"
	check 2-nsys-end-before-start 2 "row 1: ends 40 ns before it starts" "" -- "$RIDGE" trace "$t/backwards.sqlite"
	db api "$schema INSERT INTO StringIds VALUES (1, 'k'), (2, 'cudaLaunchKernel_v7000');
$kernel (0, 10, 0, 1, 1, 32, 1, 1, 1, 1, 1, 1); INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (50, 10, 2);"
	check 2-nsys-negative-api 2 "CUPTI_ACTIVITY_KIND_RUNTIME row 1: ends 40 ns before it starts" "" -- "$RIDGE" trace "$t/api.sqlite"
	# 3. a repeated StringIds id multiplied every kernel joined to it (115 KB -> 5,000,000 launches)
	db repeated "$(printf '%s' "$schema" | sed 's/id INTEGER PRIMARY KEY/id INT/')
WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < 2000) INSERT INTO StringIds SELECT 1, 'k' FROM c;
WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < 2500) $into SELECT i, i + 1, 0, i, 1, 32, 1, 1, 1, 1, 1, 1 FROM c;"
	check 3-nsys-repeated-string-id 2 "StringIds: id 1 is given twice" "" -- "$RIDGE" trace "$t/repeated.sqlite"
	# 5. a view named like an nsys table (recursive: ran forever, spilling to /tmp)
	db view "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE c(s) AS (SELECT 0 UNION ALL SELECT s + 1 FROM c)
  SELECT s AS start, s + 1 AS end, 0 AS deviceId, 0 AS correlationId, 1 AS shortName, 1 AS registersPerThread,
  1 AS gridX, 1 AS gridY, 1 AS gridZ, 1 AS blockX, 1 AS blockY, 1 AS blockZ FROM c ORDER BY s DESC;"
	check 5-nsys-recursive-view 2 "CUPTI_ACTIVITY_KIND_KERNEL is a view, not a table" "" -- "$RIDGE" trace "$t/view.sqlite"
	db cross "CREATE TABLE StringIds0 (id INTEGER PRIMARY KEY, value TEXT);
CREATE VIEW StringIds AS SELECT a.id AS id, b.value AS value FROM StringIds0 a, StringIds0 b, StringIds0 c;"
	check 5-nsys-cross-join-view 2 "StringIds is a view, not a table" "" -- "$RIDGE" trace "$t/cross.sqlite"
	# 5. a virtual table named like an nsys table: fts4 reads its rows from a
	# recursive view (it ran 3 s, to the step budget)
	db fts "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT); INSERT INTO StringIds VALUES (1, 'k');
CREATE VIEW v AS WITH RECURSIVE c(s) AS (SELECT 0 UNION ALL SELECT s + 1 FROM c) SELECT s AS docid, s AS start,
  s + 1 AS end, 0 AS correlationId, 1 AS gridX, 1 AS gridY, 1 AS gridZ, 1 AS blockX, 1 AS blockY, 1 AS blockZ,
  32 AS registersPerThread, 1 AS shortName, 0 AS deviceId FROM c;
CREATE VIRTUAL TABLE CUPTI_ACTIVITY_KIND_KERNEL USING fts4(content='v', start, end, correlationId, gridX, gridY,
  gridZ, blockX, blockY, blockZ, registersPerThread, shortName, deviceId);"
	check 5-nsys-virtual-table 2 "CUPTI_ACTIVITY_KIND_KERNEL is a virtual table, not a table" "" -- "$RIDGE" trace "$t/fts.sqlite"
	# The step budget and the heap limit: no ordinary table reaches either
	# within 2 s (a scan is a few steps a row, and the budget 64 a byte), so
	# RIDGE_TEST_LIMITS lowers them on a valid export: 20,000 kernels take
	# more than 100,000 steps; a 16 MB name more than 8 MiB of heap
	db steps "$schema INSERT INTO StringIds VALUES (1, 'k');
WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < 20000)
  $into SELECT i, i + 1, 0, i, 1, 32, 1, 1, 1, 1, 1, 1 FROM c;"
	check 5-nsys-steps-valid 0 "" "20001 kernel launches" -- "$RIDGE" trace "$t/steps.sqlite"
	check 5-nsys-step-budget 2 "CUPTI_ACTIVITY_KIND_KERNEL: more than 100000 SQLite steps" "" -- \
		env RIDGE_TEST_LIMITS=sqlite_steps=100000 "$RIDGE" trace "$t/steps.sqlite"
	db heap "$schema INSERT INTO StringIds VALUES (1, replace(hex(zeroblob(8000000)), '0', 'a'));
$kernel (0, 10, 0, 1, 1, 32, 1, 1, 1, 1, 1, 1);"
	check 5-nsys-heap-valid 0 "" "1 kernel launches" -- "$RIDGE" trace "$t/heap.sqlite"
	check 5-nsys-heap-limit 2 "StringIds: SQLite needs more than 8 MiB (its limit here)" "" -- \
		env RIDGE_TEST_LIMITS=sqlite_heap=8388608 "$RIDGE" trace "$t/heap.sqlite"
	rm -f "$t/heap.sqlite"
	check 4-nsys-string-rows 2 "StringIds: more than 1000 rows, the limit of a trace" "" -- \
		env RIDGE_TEST_LIMITS=trace_names=1000 "$RIDGE" trace "$t/repeated.sqlite"
	# 11. a WAL-mode input is opened read-only and immutable: no -wal or -shm left
	db wal "$schema INSERT INTO StringIds VALUES (1, 'k'); $kernel (0, 10, 0, 1, 1, 32, 1, 1, 1, 1, 1, 1);
PRAGMA journal_mode = WAL;" >/dev/null
	cp "$t/wal.sqlite" "$t/wal.copy"
	check 11-nsys-wal-input 0 "" "1 kernel launches" -- "$RIDGE" trace "$t/wal.sqlite"
	if [ -e "$t/wal.sqlite-wal" ] || [ -e "$t/wal.sqlite-shm" ]; then
		result 11-nsys-no-wal-files "left $(ls "$t" | grep 'wal.sqlite-' | tr '\n' ' ')"
	else
		result 11-nsys-no-wal-files ""
	fi
	intact 11-nsys-wal-intact "$t/wal.sqlite" "$t/wal.copy"
	# 13, 14: names of arbitrary bytes: --json stays UTF-8, text gets no new line
	db bytes "$schema INSERT INTO StringIds VALUES (1, CAST(X'67656d6dff0a46414b45' AS TEXT));
$kernel (0, 10, 0, 1, 1, 32, 1, 1, 1, 1, 1, 1);"
	check 14-nsys-newline-name 0 "" "!^FAKE" -- "$RIDGE" trace "$t/bytes.sqlite"
	check 13-nsys-utf8-json 0 "" "gemm\\\\ufffd|gemm.\\\\\\\\x0aFAKE" -- "$RIDGE" trace "$t/bytes.sqlite" --json
	if timeout 10 "$RIDGE" trace "$t/bytes.sqlite" --json | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1; then
		result 13-nsys-json-valid-utf8 ""
	else
		result 13-nsys-json-valid-utf8 "--json is not valid UTF-8"
	fi
	# 15. per-device timelines: two GPUs each busy half the span
	db gpus "$schema INSERT INTO StringIds VALUES (1, 'k'); $kernel (0, 50, 0, 1, 1, 32, 1, 1, 1, 1, 1, 1),
  (50, 100, 1, 2, 1, 32, 1, 1, 1, 1, 1, 1);"
	check 15-nsys-two-gpus 0 "" "GPU busy 100 ns \(50.0%\) summed over 2 GPUs" -- "$RIDGE" trace "$t/gpus.sqlite"
else
	echo "SKIP nsys SQLite cases: no sqlite3 shell (apt-get install sqlite3)"
	skipped=$((skipped + 1))
fi

# ---- ridge compare
# 6. two names alike past 159 characters (the renaming looped); "m": 1e300
long=$(printf 'x%.0s' $(seq 1 200))
printf '[{"name": "%s", "samples": [1]}, {"name": "%s", "samples": [2]}, {"name": "%s #2", "samples": [3]}]\n' \
	"$long" "$long" "$long" >"$t/collide.json"
check 6-compare-long-names 0 "" "3 within noise" -- "$RIDGE" compare "$t/collide.json" "$t/collide.json"
check 6-compare-long-names-unique 0 "" "x #3\"" -- "$RIDGE" compare "$t/collide.json" "$t/collide.json" --json
printf '{"tool": "ridge-probe", "measurements": [{"name": "g", "m": 1e300, "n": 1, "k": 1, "seconds": [1]},
 {"name": "g", "m": 1e300, "n": 1, "k": 1, "seconds": [1]}]}\n' >"$t/m1e300.json"
check 6-compare-m-1e300 2 "m, n, k and bytes must be whole numbers" "" -- "$RIDGE" compare "$t/m1e300.json" "$t/m1e300.json"
# 7. verdicts: an overflowing spread; a zero base; a key given twice
printf '[{"name": "a", "samples": [1e308, -1e308]}]\n' >"$t/spread.json"
printf '[{"name": "a", "samples": [0]}]\n' >"$t/zero-base.json"
printf '[{"name": "a", "samples": [1]}]\n' >"$t/one.json"
check 7-compare-overflowing-spread 2 "sample 1 is not a finite number within +-1e+100" "" -- \
	"$RIDGE" compare "$t/spread.json" "$t/zero-base.json"
check 7-compare-zero-base 1 "" "\+1 \(n/a\) .* regression" -- "$RIDGE" compare "$t/zero-base.json" "$t/one.json"
check 7-compare-zero-base-json 1 "" '"delta_fraction":	null' -- "$RIDGE" compare "$t/zero-base.json" "$t/one.json" --json
printf '[{"name": "a", "samples": [1], "samples": [2]}]\n' >"$t/dup-samples.json"
check 7-compare-duplicate-samples 2 "key \"samples\" given twice" "" -- "$RIDGE" compare "$t/one.json" "$t/dup-samples.json"
# 12. text after the document
printf '[{"name": "a", "samples": [1]}] ]\n' >"$t/trailing-compare.json"
check 12-compare-trailing-text 2 "text after the JSON document" "" -- "$RIDGE" compare "$t/one.json" "$t/trailing-compare.json"
# 4. a compare file of 100 MB of zeros: refused by its size, before it is read
{
	printf '['
	yes 0, | head -c 100000000
	printf '0]\n'
} >"$t/zeros-compare.json"
check 4-compare-100MB-zeros 2 "is larger than 67108864 bytes" "" -- "$RIDGE" compare "$t/one.json" "$t/zeros-compare.json"
# a million values in 4 MB: past the value bound, refused before cJSON parses
{
	printf '[{"name": "a", "samples": ['
	yes 1, | head -n 1100000 | tr -d '\n'
	printf '1]}]\n'
} >"$t/values.json"
check 4-compare-value-bound 2 "more than 1000000 JSON values" "" -- "$RIDGE" compare "$t/one.json" "$t/values.json"
# 13. a long name of two-byte characters is cut between characters
name=$(printf 'é%.0s' $(seq 1 100))
printf '[{"name": "%s", "samples": [1]}]\n' "$name" >"$t/utf8.json"
if timeout 10 "$RIDGE" compare "$t/utf8.json" "$t/utf8.json" --json | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1; then
	result 13-compare-json-valid-utf8 ""
else
	result 13-compare-json-valid-utf8 "--json is not valid UTF-8"
fi
# 13. a file path that is not UTF-8, echoed in --json: every string of a result is made valid
cp examples/models/llama-3-8b.json "$t/$(printf 'bad\377name').json"
if timeout 10 "$RIDGE" model "$t/$(printf 'bad\377name').json" --json | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1; then
	result 13-path-json-valid-utf8 ""
else
	result 13-path-json-valid-utf8 "--json echoes a non-UTF-8 path byte for byte"
fi

# ---- ridge calibrate (its timings rewritten by sed: "samples_s": [...] of every case)
# 8. durations no kernel has; a shape no kernel has; an ncu duration of 1e308 ns
# timed SAMPLE: a timings file of one fitted 4096^3 GEMM measured at SAMPLE seconds
timed() {
	printf '{"format": "ridge-timings-1", "gpu": "NVIDIA H200", "cases": [{"set": "fit", "kernel": "gemm",
 "flags": {"m": 4096, "n": 4096, "k": 4096}, "samples_s": [%s]}]}\n' "$1"
}
timed 1e-300 >"$t/tiny.json"
check 8-calibrate-1e-300-samples 2 "a sample is not a kernel's duration in seconds (1e-9 <= t <= 3600)" "" -- \
	"$RIDGE" calibrate --timings "$t/tiny.json"
timed 1e-320 >"$t/denormal.json"
check 8-calibrate-1e-320-samples 2 "a sample is not a kernel's duration" "" -- "$RIDGE" calibrate --timings "$t/denormal.json"
timed 0.000177 >"$t/legal.json"
check 8-calibrate-legal-sample 0 "" "gemm" -- "$RIDGE" calibrate --timings "$t/legal.json"
printf '{"format": "ridge-timings-1", "gpu": "NVIDIA H200", "cases": [{"set": "fit", "kernel": "flash-attention",
 "flags": {"batch": 1099511627776, "seq": 1099511627776, "heads": 1099511627776, "head-dim": 1099511627776},
 "samples_s": [0.001]}]}\n' >"$t/shape.json"
check 8-calibrate-2-40-shapes 2 "no kernel that ran" "" -- "$RIDGE" calibrate --timings "$t/shape.json"
sed 's/"190,112"/"1e308"/' tests/fixtures/ncu/raw_h200.csv >"$t/ncu-1e308.csv"
check 8-calibrate-ncu-1e308-ns 2 "not a kernel's duration (1e-9 to 3600 s)" "" -- "$RIDGE" calibrate --ncu "$t/ncu-1e308.csv"
# 9. small GEMMs at ~2 ms fit a memory efficiency the loader refuses: not written
printf '{"format": "ridge-timings-1", "gpu": "NVIDIA H200", "cases": [
 {"set": "fit", "kernel": "gemm", "flags": {"m": 256, "n": 256, "k": 256}, "samples_s": [0.002]},
 {"set": "fit", "kernel": "gemm", "flags": {"m": 512, "n": 256, "k": 256}, "samples_s": [0.0021]},
 {"set": "fit", "kernel": "gemm", "flags": {"m": 256, "n": 512, "k": 512}, "samples_s": [0.0022]}]}\n' >"$t/slow.json"
check 9-calibrate-unloadable-fit 2 "not written: ridge would refuse to load" "" -- \
	"$RIDGE" calibrate --timings "$t/slow.json" --out "$t/slow.yaml"
[ -e "$t/slow.yaml" ] && result 9-calibrate-unloadable-not-written "wrote $t/slow.yaml" || result 9-calibrate-unloadable-not-written ""
check 9-calibrate-written-loads 0 "" "wrote" -- "$RIDGE" calibrate --timings "$timings" --out "$t/fit.yaml"
check 9-calibrate-written-loads-back 0 "" "1 of 1 entries ok" -- "$RIDGE" hw check "$t/fit.yaml"
# 10. an unknown GPU beside --calibration: exit 2, no --out; --gpu of another GPU refused
sed 's/"gpu": "[^"]*"/"gpu": "NVIDIA Frobnicator 9000"/' "$timings" >"$t/unknown-gpu.json"
check 10-calibrate-unknown-gpu 2 "ran on 'NVIDIA Frobnicator 9000', which is no hwdb entry" "" -- \
	"$RIDGE" calibrate --timings "$t/unknown-gpu.json" --calibration "$h200cal" --out "$t/unknown.yaml"
[ -e "$t/unknown.yaml" ] && result 10-calibrate-unknown-not-written "wrote it" || result 10-calibrate-unknown-not-written ""
check 10-calibrate-unknown-gpu-named 0 "which is no hwdb entry: fitted to --gpu h200-sxm as asked" "" -- \
	"$RIDGE" calibrate --timings "$t/unknown-gpu.json" --gpu h200-sxm
check 10-calibrate-gpu-a100 2 "ran on NVIDIA H200 (h200-sxm), not a100-sxm-80gb" "" -- \
	"$RIDGE" calibrate --timings "$timings" --gpu a100-sxm-80gb
check 10-calibrate-gpu-mi300x 2 "ran on NVIDIA H200 (h200-sxm), not mi300x" "" -- \
	"$RIDGE" calibrate --timings "$timings" --gpu mi300x
# 12. the timings file through the strict reader
sed 's/"format": "ridge-timings-1"/"format": "ridge-timings-1", "format": "ridge-timings-1"/' "$timings" >"$t/dup-format.json"
check 12-calibrate-duplicate-key 2 "key \"format\" given twice" "" -- "$RIDGE" calibrate --timings "$t/dup-format.json"
{ cat "$timings"; printf '{}\n'; } >"$t/two-docs.json"
check 12-calibrate-trailing-text 2 "text after the JSON document" "" -- "$RIDGE" calibrate --timings "$t/two-docs.json"
# 16. nothing to fit (every case held out) with --out: refused, not "wrote" an entry without timing
sed 's/"set": "fit"/"set": "heldout"/g' "$timings" >"$t/heldout.json"
check 16-calibrate-nothing-to-fit 2 "nothing to fit" "" -- "$RIDGE" calibrate --timings "$t/heldout.json" --out "$t/held.yaml"
[ -e "$t/held.yaml" ] && result 16-calibrate-nothing-not-written "wrote it" || result 16-calibrate-nothing-not-written ""

# ---- 17. an output that is an input of the same command: refused, the input intact
cp "$timings" "$t/timings.json"
cp "$t/timings.json" "$t/timings.copy"
check 17-out-is-timings 2 "is the input" "" -- "$RIDGE" calibrate --timings "$t/timings.json" --out "$t/timings.json"
intact 17-out-is-timings-intact "$t/timings.json" "$t/timings.copy"
ln -s timings.json "$t/link.yaml"
check 17-out-links-to-timings 2 "is the input" "" -- "$RIDGE" calibrate --timings "$t/timings.json" --out "$t/link.yaml"
intact 17-out-links-intact "$t/timings.json" "$t/timings.copy"
cp "$h200cal" "$t/cal.yaml"
cp "$t/cal.yaml" "$t/cal.copy"
check 17-out-is-calibration 2 "is the input" "" -- \
	"$RIDGE" calibrate --timings "$t/timings.json" --calibration "$t/cal.yaml" --out "$t/cal.yaml"
check 17-svg-is-calibration 2 "is the input" "" -- \
	"$RIDGE" roofline --flops 1e12 --bytes 1e9 --calibration "$t/cal.yaml" --svg "$t/cal.yaml"
intact 17-calibration-intact "$t/cal.yaml" "$t/cal.copy"
cp tests/fixtures/ncu/raw_h200.csv "$t/ncu.csv"
cp "$t/ncu.csv" "$t/ncu.copy"
check 17-svg-is-ncu 2 "is the input" "" -- "$RIDGE" roofline --gpu h200-sxm --ncu "$t/ncu.csv" --svg "$t/ncu.csv"
check 17-svg-is-ncu-dotted 2 "is the input" "" -- "$RIDGE" roofline --gpu h200-sxm --ncu "$t/ncu.csv" --svg "$t/./ncu.csv"
intact 17-ncu-intact "$t/ncu.csv" "$t/ncu.copy"
cp examples/models/llama-3-8b.json "$t/model.json"
cp "$t/model.json" "$t/model.copy"
check 17-svg-is-model 2 "is the input" "" -- "$RIDGE" plan --model "$t/model.json" --tpot 50ms --ttft 2s --context 8k --gpu h100-sxm --svg "$t/model.json"
intact 17-model-intact "$t/model.json" "$t/model.copy"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
