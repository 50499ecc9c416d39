# ridge: one build for everything.
#   make            libridge.a + ridge (+ ridge-probe with nvcc, ridge-probe-hip with hipcc)
#   make run        the report for the default GPU
#   make test       unit, golden CLI, example and cross-check tests
#   make check      the edit loop's tier: unit tests, a sample of the goldens and of the bad input
#   make check-asan      the whole test suite built with ASan+UBSan (BUILD=build-asan)
#   make check-valgrind  every golden CLI case under valgrind (leaks are failures)
#   make fuzz            build the libFuzzer harnesses (clang) and run each FUZZ_SECONDS
#   make install PREFIX=/usr/local
#   make format / make format-check   clang-format the tree / check it (CI)
CC ?= cc
CFLAGS ?= -O2 -g
PREFIX ?= /usr/local
WITH_CUDA ?= auto
WITH_HIP ?= auto
BUILD ?= build

PKGS := yaml-0.1 libcjson ncursesw sqlite3
# What libridge itself links (hwdb: libyaml; the strict JSON checks that need
# cJSON live in util/, outside the library); ridge.pc's Requires.private.
LIB_PKGS := yaml-0.1
# -Wno-format-truncation: diagnostics are deliberately cut to fixed buffers.
RIDGE_CFLAGS = -std=c11 -Wall -Wextra -Werror -Wno-format-truncation -D_GNU_SOURCE $(LAYER_INC) $(CFLAGS)
# The layers, each seeing only what is below it (scripts/check-layers.sh
# checks the quoted includes too): model/ sees itself; hwdb/ and util/ see
# model/; app/ (the calculators) sees those; the front ends cli/ and tui/ see
# app/ and below, and cli/ starts the TUI through tui/tui.h alone.
APP_INC = -Iapp/core -Iapp/calc -Iapp/read -Iapp/view
LAYER_INC = -Imodel -Ihwdb -Iutil $(APP_INC) -Icli -Itui -I$(BUILD)/gen
$(BUILD)/obj/model/%.o: LAYER_INC = -Imodel
$(BUILD)/obj/hwdb/%.o: LAYER_INC = -Imodel -Ihwdb -Iutil
$(BUILD)/obj/util/%.o: LAYER_INC = -Iutil
$(BUILD)/obj/app/%.o: LAYER_INC = -Imodel -Ihwdb -Iutil $(APP_INC)
$(BUILD)/obj/tui/%.o: LAYER_INC = -Imodel -Ihwdb -Iutil $(APP_INC) -Itui
$(BUILD)/obj/cli/%.o: LAYER_INC = -Imodel -Ihwdb -Iutil $(APP_INC) -Icli -I$(BUILD)/gen
DEPS_STAMP := $(BUILD)/.deps-ok
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm

MODEL_SRC := $(sort $(wildcard model/*.c))
HWDB_SRC := $(sort $(wildcard hwdb/*.c))
HWDB_YAML := $(sort $(wildcard hwdb/*.yaml))
# app/ is four rooms (app/README.md): core/, calc/, read/, view/.
APP_SRC := $(sort $(wildcard app/*/*.c))
CLI_SRC := $(sort $(wildcard cli/*.c))
CMD_SRC := $(sort $(wildcard cli/cmd_*.c))
TUI_SRC := $(sort $(wildcard tui/*.c))

# util/ (util/README.md): the generic helpers under every layer. Those that
# hwdb/ needs and that need nothing but libc (the atomic file writer) are part
# of libridge; the rest (json_check and json_out need cJSON; libridge depends
# on libyaml alone) are linked into ridge and ridge-probe beside it.
UTIL_LIB_SRC := util/atomic_file.c util/suggest.c
UTIL_SRC := $(filter-out $(UTIL_LIB_SRC),$(sort $(wildcard util/*.c)))
LIB_OBJ := $(MODEL_SRC:%.c=$(BUILD)/obj/%.o) $(HWDB_SRC:%.c=$(BUILD)/obj/%.o) $(UTIL_LIB_SRC:%.c=$(BUILD)/obj/%.o) \
	$(BUILD)/obj/gen/hwdb_embedded.o
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/obj/%.o) $(APP_SRC:%.c=$(BUILD)/obj/%.o) $(TUI_SRC:%.c=$(BUILD)/obj/%.o) $(UTIL_SRC:%.c=$(BUILD)/obj/%.o)
LIB := $(BUILD)/libridge.a
# The shared library: libridge.so.0.1.0, soname libridge.so.0 (the major
# version), recording its own dependencies (libyaml, libm).
RIDGE_VERSION := $(shell sed -n 's/.*RIDGE_VERSION "\(.*\)"/\1/p' model/models.h)
RIDGE_SONAME := libridge.so.$(firstword $(subst ., ,$(RIDGE_VERSION)))
SHLIB := $(BUILD)/libridge.so.$(RIDGE_VERSION)
# What <ridge/ridge.h> brings in: the models and the hardware database (with
# util/read_limits.h, the limits hwdb.h names); not the internal model/fail.h.
PUBLIC_HEADERS := include/ridge/ridge.h $(filter-out model/fail.h model/names.h model/serve_sim_internal.h,$(sort $(wildcard model/*.h))) hwdb/hwdb.h util/read_limits.h
RIDGE := $(BUILD)/ridge
DOCS := $(BUILD)/share/.generated

.PHONY: all run test check install install-files clean bench bench-tui fuzz fuzz-build check-asan check-valgrind deps format format-check
all: $(RIDGE) $(SHLIB) $(DOCS) probes

deps: $(DEPS_STAMP)
$(DEPS_STAMP): scripts/deps.sh
	@sh scripts/deps.sh $@

$(BUILD)/gen/hwdb_embedded.c: scripts/embed-hwdb.sh $(HWDB_YAML) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@sh scripts/embed-hwdb.sh $@ $(HWDB_YAML)

$(BUILD)/gen/commands.inc: scripts/gen-commands.sh Makefile $(CMD_SRC)
	@mkdir -p $(@D)
	@sh scripts/gen-commands.sh $@ $(CMD_SRC)

$(BUILD)/obj/gen/hwdb_embedded.o: $(BUILD)/gen/hwdb_embedded.c
	@mkdir -p $(@D)
	$(CC) $(RIDGE_CFLAGS) $(PKG_CFLAGS) -fPIC -c $< -o $@

$(BUILD)/obj/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(RIDGE_CFLAGS) $(PKG_CFLAGS) $(LIB_PIC) -MMD -MP -c $< -o $@

# The library's objects go into libridge.a and libridge.so alike.
$(LIB_OBJ): LIB_PIC := -fPIC

$(BUILD)/obj/cli/main.o: $(BUILD)/gen/commands.inc

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(SHLIB): $(LIB_OBJ)
	$(CC) $(RIDGE_CFLAGS) -shared -Wl,-soname,$(RIDGE_SONAME) -Wl,--no-undefined -o $@ $^ \
		$(shell pkg-config --libs $(LIB_PKGS) 2>/dev/null) -lm
	ln -sf $(@F) $(BUILD)/$(RIDGE_SONAME)
	ln -sf $(RIDGE_SONAME) $(BUILD)/libridge.so

$(RIDGE): $(CLI_OBJ) $(LIB)
	$(CC) $(RIDGE_CFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(PKG_LIBS)

# Man pages and shell completions, generated from what the built ridge's
# --help declares (scripts/gen-docs.sh): build/share/{man/man1,bash-completion,zsh}.
# ridge-probe's page comes from its usage text (probe/usage.h), printed by a
# plain C program: it is written where no nvcc is.
PROBE_USAGE := $(BUILD)/gen/probe-usage
$(PROBE_USAGE): probe/usage_print.c probe/usage.h util/help_text.c util/help_text.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(RIDGE_CFLAGS) -o $@ probe/usage_print.c util/help_text.c
$(DOCS): $(RIDGE) $(PROBE_USAGE) scripts/gen-docs.sh
	@rm -rf $(BUILD)/share
	@sh scripts/gen-docs.sh $(RIDGE) $(BUILD)/share $(PROBE_USAGE)
	@touch $@

-include $(wildcard $(BUILD)/obj/*/*.d $(BUILD)/obj/*/*/*.d $(BUILD)/obj/*/*/*/*.d)

# ---- probes: built when their compiler exists (probe/build.mk) ----
NVCC ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
HIPCC ?= $(shell command -v hipcc 2>/dev/null)
PROBES :=
-include probe/build.mk
# The probe's plain C objects are prerequisites of the test_probe_* pattern
# rule only. Named as targets here, make builds them even when no probe binary
# is built (no nvcc, WITH_CUDA=no); otherwise it silently fell back to the
# generic test rule, which does not link them.
$(PROBE_CORE_OBJ): | $(DEPS_STAMP)
probes: $(PROBES)
	@echo "built: $(RIDGE) $(LIB) $(PROBES)"
	@$(if $(PROBE_SKIPPED),echo "skipped: $(PROBE_SKIPPED)")

run: $(RIDGE)
	@$(RIDGE) report

# ---- tests ----
TEST_SRC := $(sort $(wildcard tests/unit/test_*.c))
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TEST_SUPPORT := $(sort $(wildcard tests/support/*.c))

$(BUILD)/tests/%: tests/unit/%.c $(TEST_SUPPORT) $(LIB) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(RIDGE_CFLAGS) $(PKG_CFLAGS) $(shell pkg-config --cflags cmocka) -Itests/support -o $@ $< $(TEST_SUPPORT) \
		$(LIB) $(PKG_LIBS) $(shell pkg-config --libs cmocka)

# The tui tests also link tui/ and cli/ (all but main.o): state.c formats
# through cli_format_* and the drawers are exercised off-screen.
TUI_TEST_OBJ := $(filter-out $(BUILD)/obj/cli/main.o,$(CLI_OBJ))
$(BUILD)/tests/test_tui_%: tests/unit/test_tui_%.c $(TEST_SUPPORT) $(TUI_TEST_OBJ) $(LIB) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(RIDGE_CFLAGS) $(PKG_CFLAGS) $(shell pkg-config --cflags cmocka) -Itests/support -Itui -o $@ $< $(TEST_SUPPORT) \
		$(TUI_TEST_OBJ) $(LIB) $(PKG_LIBS) $(shell pkg-config --libs cmocka)

# The calculator tests (cli/ on calc.h) link cli/ and tui/ the same way.
$(BUILD)/tests/test_calc_%: tests/unit/test_calc_%.c $(TEST_SUPPORT) $(TUI_TEST_OBJ) $(LIB) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(RIDGE_CFLAGS) $(PKG_CFLAGS) $(shell pkg-config --cflags cmocka) -Itests/support -o $@ $< $(TEST_SUPPORT) \
		$(TUI_TEST_OBJ) $(LIB) $(PKG_LIBS) $(shell pkg-config --libs cmocka)

# The cli/ helper tests (test_cli_*: the demangler) link cli/ the same way.
$(BUILD)/tests/test_cli_%: tests/unit/test_cli_%.c $(TEST_SUPPORT) $(TUI_TEST_OBJ) $(LIB) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(RIDGE_CFLAGS) $(PKG_CFLAGS) $(shell pkg-config --cflags cmocka) -Itests/support -o $@ $< $(TEST_SUPPORT) \
		$(TUI_TEST_OBJ) $(LIB) $(PKG_LIBS) $(shell pkg-config --libs cmocka)

# The util/ tests (test_util_*: the number formats) link util/ alone.
UTIL_OBJ := $(UTIL_SRC:%.c=$(BUILD)/obj/%.o)
$(BUILD)/tests/test_util_%: tests/unit/test_util_%.c $(TEST_SUPPORT) $(UTIL_OBJ) $(LIB) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(RIDGE_CFLAGS) $(PKG_CFLAGS) $(shell pkg-config --cflags cmocka) -Itests/support -o $@ $< $(TEST_SUPPORT) \
		$(UTIL_OBJ) $(LIB) $(PKG_LIBS) $(shell pkg-config --libs cmocka)
# The application-layer tests (test_app_*: app/view/gpu_json.c, errors as values) link app/ the same way.
$(BUILD)/tests/test_app_%: tests/unit/test_app_%.c $(TEST_SUPPORT) $(TUI_TEST_OBJ) $(LIB) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(RIDGE_CFLAGS) $(PKG_CFLAGS) $(shell pkg-config --cflags cmocka) -Itests/support -o $@ $< $(TEST_SUPPORT) \
		$(TUI_TEST_OBJ) $(LIB) $(PKG_LIBS) $(shell pkg-config --libs cmocka)

# make test stages `make install-files` (PREFIX=/usr) in build/stage: the
# library suite builds examples/libridge/ against the installed files alone.
STAGE := $(BUILD)/stage
$(STAGE)/.installed: $(RIDGE) $(LIB) $(SHLIB) $(DOCS) $(PUBLIC_HEADERS) scripts/ridge.pc.in scripts/ridge-static.pc.in $(HWDB_YAML)
	@rm -rf $(STAGE)
	@$(MAKE) --no-print-directory install-files DESTDIR=$(abspath $(STAGE)) PREFIX=/usr >/dev/null
	@touch $@

# make test and make check build JOBS at a time (default: every core) unless
# make is given a -j, and tests/run.sh runs JOBS tests side by side.
JOBS ?= $(shell nproc 2>/dev/null || echo 1)
ifneq ($(filter test check,$(MAKECMDGOALS)),)
MAKEFLAGS += -j$(JOBS)
endif

test: all $(TEST_BIN) $(STAGE)/.installed
	@sh tests/run.sh -j $(JOBS) $(BUILD)

# The edit loop's tier (tests/README.md): ridge and the unit tests built, the
# unit tests, the first cases of each golden file and of each section of the
# bad-input table; no docs, probes, stage or other suite.
check: $(RIDGE) $(TEST_BIN)
	@sh tests/run.sh --quick -j $(JOBS) $(BUILD)

# ridge tui --bench: key press -> update + redraw per panel (tui/README.md).
bench: bench-tui
bench-tui: $(RIDGE)
	@$(RIDGE) tui --bench

# ---- bench: timings, not tests (bench/README.md) ----
# occupancy_bench needs the CUDA toolkit's cuda_occupancy.h (header only: no GPU).
CUDA_OCC_INCLUDE ?= $(firstword $(foreach d,$(CUDA_HOME)/include /usr/local/cuda/include /opt/cuda/include,$(if $(wildcard $(d)/cuda_occupancy.h),$(d))))
BENCH_OCC := $(BUILD)/bench/occupancy_bench

$(BENCH_OCC): bench/occupancy_bench.c $(LIB) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) -std=c99 -O2 -Wall -Wextra -pedantic -I$(CUDA_OCC_INCLUDE) -Imodel -Ihwdb -Iutil -o $@ $< $(LIB) \
		$(shell pkg-config --libs yaml-0.1 2>/dev/null) -lm

BENCH_PLAN := $(BUILD)/bench/plan_bench
# ridge fleet over this many generated results (bench/fleet_bench.sh).
FLEET_BENCH_GPUS ?= 10000

$(BENCH_PLAN): bench/plan_bench.c $(LIB) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(RIDGE_CFLAGS) $(PKG_CFLAGS) -o $@ $< $(LIB) $(PKG_LIBS)

BENCH_SERVE := $(BUILD)/bench/serve_bench

$(BENCH_SERVE): bench/serve_bench.c $(LIB) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(RIDGE_CFLAGS) $(PKG_CFLAGS) -o $@ $< $(LIB) $(PKG_LIBS)

bench: $(LIB) $(BENCH_PLAN) $(BENCH_SERVE) $(RIDGE)
	@$(BENCH_PLAN)
	@$(BENCH_SERVE)
	@sh bench/fleet_bench.sh $(RIDGE) $(FLEET_BENCH_GPUS)
ifneq ($(CUDA_OCC_INCLUDE),)
	@$(MAKE) --no-print-directory $(BENCH_OCC)
	@$(BENCH_OCC)
else
	@echo "bench: skipped occupancy_bench: cuda_occupancy.h not found (set CUDA_OCC_INCLUDE=DIR)"
endif

# ---- robustness: sanitizers, valgrind, fuzzing (tests/README.md) ----
# The same build and the same tests, in a separate build directory, with
# AddressSanitizer (+ LeakSanitizer) and UndefinedBehaviorSanitizer; any report
# fails the test that triggered it. Probes are left out: nvcc/hipcc code is
# not built with these flags. The bad-input table gets 60 s per case (10 s
# normally): the sanitizers slow the 100 MB and /dev/zero cases down.
ASAN_BUILD ?= build-asan
SANITIZE := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
check-asan:
	@SANITIZE="$(SANITIZE)" BAD_INPUT_TIMEOUT=60 ASAN_OPTIONS=detect_leaks=1:exitcode=86 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=87 \
		$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) WITH_CUDA=no WITH_HIP=no CFLAGS="$(SANITIZE)" test

check-valgrind: $(RIDGE)
	@RIDGE=$(RIDGE) sh tests/valgrind.sh

# libFuzzer harnesses tests/fuzz/fuzz_<target>.c, built with clang against a
# sanitized libridge in build-fuzz/. `make fuzz` runs each for FUZZ_SECONDS on a
# scratch corpus seeded from tests/fuzz/corpus/<target>/; crashes are written
# to build-fuzz/artifacts/ and fail the target.
FUZZ_SECONDS ?= 30
FUZZ_BUILD ?= build-fuzz
FUZZ_CC ?= clang
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES := $(FUZZ_SRC:tests/fuzz/%.c=%)
FUZZ_CFLAGS := -Wno-unknown-warning-option -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all

# Harnesses link the CLI's objects (without main) and the probe's plain C.
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(LIB) $(CLI_OBJ) $(PROBE_CORE_OBJ) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(RIDGE_CFLAGS) $(PKG_CFLAGS) -fsanitize=fuzzer -o $@ $< $(sort $(filter-out %/cli/main.o,$(CLI_OBJ)) \
		$(PROBE_CORE_OBJ)) $(LIB) $(PKG_LIBS) -ldl

fuzz-build:
	@command -v $(FUZZ_CC) >/dev/null || { echo "make fuzz needs clang (apt-get install -y clang)"; exit 1; }
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) WITH_CUDA=no WITH_HIP=no CFLAGS="$(FUZZ_CFLAGS)" \
		$(FUZZ_NAMES:%=$(FUZZ_BUILD)/fuzz/%)

fuzz: fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_NAMES)

# install-files: everything but the probes (make test stages it, above).
LIBDIR := $(DESTDIR)$(PREFIX)/lib
SHARE := $(DESTDIR)$(PREFIX)/share
install-files: $(RIDGE) $(LIB) $(SHLIB) $(DOCS)
	install -d $(DESTDIR)$(PREFIX)/bin $(LIBDIR)/pkgconfig $(DESTDIR)$(PREFIX)/include/ridge \
		$(SHARE)/ridge/hwdb $(SHARE)/man/man1 $(SHARE)/bash-completion/completions $(SHARE)/zsh/site-functions
	install -m 644 $(BUILD)/share/man/man1/*.1 $(SHARE)/man/man1/
	install -m 644 $(BUILD)/share/bash-completion/completions/ridge $(SHARE)/bash-completion/completions/
	install -m 644 $(BUILD)/share/zsh/site-functions/_ridge $(SHARE)/zsh/site-functions/
	install -m 755 $(RIDGE) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(LIB) $(LIBDIR)/
	install -m 755 $(SHLIB) $(LIBDIR)/
	ln -sf $(notdir $(SHLIB)) $(LIBDIR)/$(RIDGE_SONAME)
	ln -sf $(RIDGE_SONAME) $(LIBDIR)/libridge.so
	install -m 644 $(PUBLIC_HEADERS) $(DESTDIR)$(PREFIX)/include/ridge/
	install -m 644 $(HWDB_YAML) $(DESTDIR)$(PREFIX)/share/ridge/hwdb/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(RIDGE_VERSION)|g' -e 's|@REQUIRES@|$(LIB_PKGS)|g' \
		scripts/ridge.pc.in > $(LIBDIR)/pkgconfig/ridge.pc
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(RIDGE_VERSION)|g' -e 's|@REQUIRES@|$(LIB_PKGS)|g' \
		scripts/ridge-static.pc.in > $(LIBDIR)/pkgconfig/ridge-static.pc

install: all install-files
	$(if $(PROBES),install -m 755 $(PROBES) $(DESTDIR)$(PREFIX)/bin/)

# ---- source format (.clang-format; Debian 12's clang-format 14, as CI) ----
# Every C, CUDA and HIP file git tracks. `make format` rewrites them;
# `make format-check` (CI) lists the files that differ and fails.
CLANG_FORMAT ?= clang-format
FORMAT_FILES = $(shell git ls-files '*.c' '*.h' '*.cu' '*.cuh' '*.hip' 2>/dev/null)
format:
	@$(CLANG_FORMAT) -i $(FORMAT_FILES)
format-check:
	@command -v $(CLANG_FORMAT) >/dev/null || { echo "make format-check needs clang-format (apt-get install -y clang-format)"; exit 1; }
	@bad=0; for f in $(FORMAT_FILES); do \
		$(CLANG_FORMAT) --dry-run -Werror "$$f" 2>/dev/null || { echo "not formatted: $$f (make format)"; bad=1; }; \
	done; [ $$bad = 0 ] && echo "format-check: $(words $(FORMAT_FILES)) files formatted"

clean:
	rm -rf $(BUILD)
