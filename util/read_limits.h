/* The bounds of every input ridge and ridge-probe read (issue 21), in one
 * place: each is far past what a valid file holds, so that memory and time
 * stay proportional to what a real input can hold, and each refusal names
 * its limit (tests/README.md, "Limits", has the table and the measured worst
 * cases). A byte limit is passed to hwdb_read_file (through app_read_file in
 * app/), which reads no further; a YAML limit is checked before libyaml
 * builds its document (hwdb_yaml_bounds: nodes written, nesting) and after
 * (hwdb_yaml_expanded: nodes with aliases expanded). The types are those the
 * messages print them with (%u, %ld, %d, %zu).
 *
 * Installed with the library's headers: hwdb.h's HWDB_MAX_NESTING and
 * HWDB_MAX_NODES are the hwdb's names for two of these. */
#ifndef RIDGE_UTIL_READ_LIMITS_H
#define RIDGE_UTIL_READ_LIMITS_H

/* ---- YAML: hwdb entries, scenarios, model configs ---- */

/* libyaml's scanner is quadratic in the nesting depth (a 2 MB file of '['
 * takes minutes); every ridge YAML file is shallow (an hwdb entry needs 3). */
#define READ_MAX_YAML_NESTING 16

/* ---- hwdb entries and calibrations (hwdb/hwdb.c) ---- */

/* An entry is a few KiB (hwdb/h200-sxm.yaml, the largest, 11 KiB). */
#define READ_MAX_HWDB_BYTES (4u << 20)
/* A real entry has ~200 nodes; libyaml's document costs ~150 bytes a node,
 * and a 4 MiB file of one flat list (2 M nodes) took 343 MB and 4.2 s. */
#define READ_MAX_HWDB_NODES 100000L

/* ---- scenario files (app/core/eval.c: ridge eval, ridge cost rank, the TUI) ---- */

/* A real scenario has tens of items and a few hundred nodes; at these limits
 * the heaviest valid one (tests/gen_max_scenario.py) runs in 265 MB, 1.9 s. */
#define READ_MAX_SCENARIO_BYTES (4u << 20)
#define READ_MAX_SCENARIO_NODES 100000L
#define READ_MAX_SCENARIO_ITEMS 5000
/* An expect/book key ("prediction.predicted_time_s"): a path, not a document. */
#define READ_MAX_RESULT_PATH 255

/* ---- model configs (app/read/model_config.c: config.json or YAML) ---- */

/* A config is a few kilobytes (~50 nodes); anything near this is not one. */
#define READ_MAX_MODEL_CONFIG_BYTES (16L * 1024 * 1024)
#define READ_MAX_MODEL_CONFIG_NODES 100000L

/* ---- profiler and benchmark files ---- */

/* An Nsight Compute CSV (ridge roofline --ncu, ridge calibrate, and what
 * `ncu --import` prints for a report, app/read/ncu.c): a row a kernel and
 * metric, so a long profile runs to many MB; this is far past any. */
#define READ_MAX_NCU_BYTES ((size_t)256 << 20)
/* A compiler report (ridge occupancy --ptxas / --resource-usage): a few
 * lines a kernel; even a whole library's is some MB. */
#define READ_MAX_COMPILER_REPORT_BYTES ((size_t)64 << 20)
/* A PyTorch trace (ridge trace, launch --trace): a few decode steps are a
 * few MB, a long one some hundred. It is read as a stream (the strict
 * reader's window, event by event), so its memory is the window plus 72
 * bytes a kernel kept, whatever its size; the bound is on time (about 4 s a
 * GB here). One event is held in the window while it is read: a real one is
 * a few hundred bytes (a kernel's long template name some KB), and one past
 * READ_MAX_TRACE_EVENT_BYTES is refused rather than held. */
#define READ_MAX_TRACE_JSON_BYTES (1024u << 20)
#define READ_MAX_TRACE_EVENT_BYTES ((size_t)16 << 20)
/* Events of any kind in one trace: past 20 M the reading alone takes minutes. */
#define READ_MAX_TRACE_EVENTS 20000000L
/* Kernels kept from a trace (either format): 72 bytes each, 288 MB at most;
 * a long decode run is some hundred thousand. */
#define READ_MAX_TRACE_KERNELS 4000000
/* Distinct kernel, operator and API names, and the nsys StringIds rows read
 * (each kept to 255 bytes): a real export holds tens of thousands. */
#define READ_MAX_TRACE_NAMES 1000000
/* One kernel, copy or API call longer than a day is no measurement, and a
 * timestamp past +-2^61 ns (73 years) none either: inside these the end of
 * any interval and the difference of any two timestamps fit in 64 bits; the
 * sums over many are checked. */
#define READ_MAX_TRACE_DURATION_NS 86400000000000LL
#define READ_MAX_TRACE_TIMESTAMP_NS (1LL << 61)
/* SQLite's work on one query of an nsys export: a budget of virtual-machine
 * steps (counted every 1000) of 64 a byte of the file plus 10^8, far past
 * what a scan of every row costs; and the heap SQLite may use (temporary
 * B-trees, sorts and automatic indexes are kept in memory, so this is the
 * temp store's limit too). */
#define READ_TRACE_SQLITE_STEPS_PER_BYTE 64
#define READ_TRACE_SQLITE_BASE_STEPS 100000000LL
#define READ_TRACE_SQLITE_HEAP_BYTES (256LL << 20)
/* ridge compare's inputs (probe, validation or {name, samples} JSON): a
 * probe run is tens of KiB. The file is parsed whole, so its values are
 * bounded (~110 bytes each in cJSON: 110 MB at most), and so are its
 * entries (paired by name in a hash table). */
#define READ_MAX_COMPARE_BYTES (64u << 20)
#define READ_MAX_COMPARE_VALUES 1000000
#define READ_MAX_COMPARE_ENTRIES 100000
#define READ_MAX_COMPARE_SAMPLES 100000
/* A benchmark number larger than 1e100 in magnitude is no measurement; inside
 * it no mean, square or difference of 100,000 of them overflows. */
#define READ_MAX_COMPARE_MAGNITUDE 1e100
/* ridge calibrate's timings (validation/heldout/kernels.py: the H200's has 69
 * cases of 25 samples, 80 KiB). */
#define READ_MAX_TIMINGS_BYTES (16u << 20)
#define READ_MAX_TIMINGS_VALUES 1000000
#define READ_MAX_TIMINGS_CASES 4096
#define READ_MAX_TIMINGS_SAMPLES 100000
/* A kernel's time, measured or placed, in seconds: 1 ns is below any GPU
 * kernel's launch (a few microseconds), an hour past any one kernel. */
#define READ_MIN_KERNEL_SECONDS 1e-9
#define READ_MAX_KERNEL_SECONDS 3600.0
/* Keys of the JSON objects open at once (the strict reader's duplicate
 * check holds them, 16 bytes each): a real file has tens. */
#define READ_MAX_JSON_OPEN_KEYS 100000

/* ---- ridge-probe's runs ---- */

/* ridge-probe --validation-json (ridge roofline --validation): 64 cases a run
 * (validation/h200-validation.json, 61 KiB); every case is drawn, so the
 * count is bounded too. */
#define READ_MAX_VALIDATION_BYTES ((size_t)256 << 20)
#define READ_MAX_VALIDATION_CASES 256
/* ridge-probe --json read back by --replay: tens of KiB; its measurement and
 * occupancy tables are bounded by probe/probe.h's PROBE_MAX_MEASUREMENTS and
 * PROBE_MAX_OCCUPANCY. */
#define READ_MAX_PROBE_REPLAY_BYTES (64u << 20)
/* ridge fleet DIR: one result a GPU, read one at a time (a full run with its
 * occupancy table is 0.8 MB); the files a directory may hold (a row of
 * ~1.3 KB each is kept per GPU: 130 MB at the limit); the nesting of the
 * members skipped unparsed (a result nests 4 deep). */
#define READ_MAX_FLEET_RESULT_BYTES (16u << 20)
#define READ_MAX_FLEET_FILES 100000
#define READ_MAX_FLEET_NESTING 64

#endif
