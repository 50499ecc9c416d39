# ridge: one build for everything.
#   make            libridge.a + ridge (+ ridge-probe with nvcc, ridge-probe-hip with hipcc)
#   make run        the report for the default GPU
#   make test       unit, golden CLI, example and cross-check tests
#   make install PREFIX=/usr/local
CC ?= cc
CFLAGS ?= -O2 -g
PREFIX ?= /usr/local
WITH_CUDA ?= auto
WITH_HIP ?= auto
BUILD ?= build

PKGS := yaml-0.1 libcjson ncursesw
# -Wno-format-truncation: diagnostics are deliberately cut to fixed buffers.
RIDGE_CFLAGS := -std=c11 -Wall -Wextra -Werror -Wno-format-truncation -D_GNU_SOURCE -Imodel -Ihwdb -Icli -I$(BUILD)/gen $(CFLAGS)
DEPS_STAMP := $(BUILD)/.deps-ok
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm

MODEL_SRC := $(sort $(wildcard model/*.c))
HWDB_SRC := $(sort $(wildcard hwdb/*.c))
HWDB_YAML := $(sort $(wildcard hwdb/*.yaml))
CLI_SRC := $(sort $(wildcard cli/*.c))
CMD_SRC := $(sort $(wildcard cli/cmd_*.c))
TUI_SRC := $(sort $(wildcard tui/*.c))

LIB_OBJ := $(MODEL_SRC:%.c=$(BUILD)/obj/%.o) $(HWDB_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/gen/hwdb_embedded.o
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/obj/%.o) $(TUI_SRC:%.c=$(BUILD)/obj/%.o)
LIB := $(BUILD)/libridge.a
RIDGE := $(BUILD)/ridge

.PHONY: all run test install clean bench bench-tui fuzz check-asan deps
all: $(RIDGE) probes

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
	$(CC) $(RIDGE_CFLAGS) $(PKG_CFLAGS) -c $< -o $@

$(BUILD)/obj/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(RIDGE_CFLAGS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/cli/main.o: $(BUILD)/gen/commands.inc

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(RIDGE): $(CLI_OBJ) $(LIB)
	$(CC) $(RIDGE_CFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(PKG_LIBS)

-include $(wildcard $(BUILD)/obj/*/*.d $(BUILD)/obj/*/*/*.d)

# ---- probes: built when their compiler exists (probe/build.mk) ----
NVCC ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
HIPCC ?= $(shell command -v hipcc 2>/dev/null)
PROBES :=
-include probe/build.mk
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

test: all $(TEST_BIN)
	@sh tests/run.sh $(BUILD)

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
	$(CC) -std=c99 -O2 -Wall -Wextra -pedantic -I$(CUDA_OCC_INCLUDE) -Imodel -Ihwdb -o $@ $< $(LIB) \
		$(shell pkg-config --libs yaml-0.1 2>/dev/null) -lm

bench: $(LIB)
ifneq ($(CUDA_OCC_INCLUDE),)
	@$(MAKE) --no-print-directory $(BENCH_OCC)
	@$(BENCH_OCC)
else
	@echo "bench: skipped occupancy_bench: cuda_occupancy.h not found (set CUDA_OCC_INCLUDE=DIR)"
endif

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/ridge \
		$(DESTDIR)$(PREFIX)/share/ridge/hwdb
	install -m 755 $(RIDGE) $(PROBES) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(LIB) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 model/*.h hwdb/hwdb.h $(DESTDIR)$(PREFIX)/include/ridge/
	install -m 644 $(HWDB_YAML) $(DESTDIR)$(PREFIX)/share/ridge/hwdb/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(shell sed -n 's/.*RIDGE_VERSION "\(.*\)"/\1/p' model/ridge.h)|g' \
		scripts/ridge.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/ridge.pc

clean:
	rm -rf $(BUILD)
