# ridge-probe (CUDA) and ridge-probe-hip (HIP): included by the top Makefile.
# Each is built when its compiler is found (and WITH_CUDA / WITH_HIP is not
# "no"); otherwise the reason goes to PROBE_SKIPPED. The probe's plain C
# (probe/*.c, kernels/verify.c) builds everywhere: its unit tests need no GPU.
#
#   make PROBE_CUDA_ARCHS="90"      only sm_90 (faster; default: every arch nvcc lists, 75..120)
#   make HIP_ARCHS="gfx90a gfx942"  AMD targets (default: gfx90a and gfx942, or gfx940 where hipcc lacks gfx942)
#   make PROBE_PORTABLE=1 ...       libyaml linked statically and libcjson copied to build/lib
#                                   (rpath $ORIGIN/lib): a binary to carry to another machine

PROBE_C_SRC := util/json_check.c util/json_fields.c util/json_out.c util/help_text.c probe/launcher.c probe/stats.c probe/result.c probe/report.c probe/match.c probe/calib.c probe/monitor.c probe/validate.c probe/driver.c \
	kernels/verify.c
PROBE_CORE_OBJ := $(PROBE_C_SRC:%.c=$(BUILD)/obj/%.o)
PROBE_TEST_SUPPORT := $(sort $(wildcard tests/support/*.c))
PROBE_HEADERS := $(wildcard kernels/*.h kernels/common/*.h)
PROBE_C_HEADERS := $(wildcard kernels/*.h probe/*.h)

# Unit tests of the probe's plain C (tests/unit/test_probe_*.c) link its objects too.
$(BUILD)/tests/test_probe_%: tests/unit/test_probe_%.c $(PROBE_TEST_SUPPORT) $(PROBE_CORE_OBJ) $(LIB) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(RIDGE_CFLAGS) $(PKG_CFLAGS) $(shell pkg-config --cflags cmocka) -Itests/support -DPROBE_FIXTURES='"$(CURDIR)/tests/fixtures"' \
		-o $@ $< $(PROBE_TEST_SUPPORT) $(PROBE_CORE_OBJ) $(LIB) $(PKG_LIBS) -ldl $(shell pkg-config --libs cmocka)

PROBE_LINK_LIBS = -lyaml -lcjson
PROBE_RPATH = -Wl,-rpath,'$$ORIGIN/lib'
ifeq ($(PROBE_PORTABLE),1)
PROBE_YAML_A := $(firstword $(wildcard /usr/lib/x86_64-linux-gnu/libyaml.a /usr/lib64/libyaml.a /usr/lib/libyaml.a))
PROBE_CJSON_SO := $(firstword $(wildcard /usr/lib/x86_64-linux-gnu/libcjson.so.1 /usr/lib64/libcjson.so.1 /usr/lib/libcjson.so.1))
PROBE_LINK_LIBS = $(if $(PROBE_YAML_A),$(PROBE_YAML_A),-lyaml) -L$(BUILD)/lib -l:libcjson.so.1
endif

$(BUILD)/lib/.cjson:
	@mkdir -p $(@D)
	$(if $(PROBE_CJSON_SO),cp -L $(PROBE_CJSON_SO) $(@D)/libcjson.so.1,)
	@touch $@

PROBE_PORTABLE_DEPS := $(if $(filter 1,$(PROBE_PORTABLE)),$(BUILD)/lib/.cjson)

# ---- CUDA ----
# Where libcudart lives. nvcc itself says best: `nvcc -dryrun` prints the -L
# paths it links with, right even when the nvcc on PATH is a wrapper or a
# symlink outside the toolkit (CI once found no library beside such an nvcc and
# linked without cudart). Then the usual places. The static runtime is
# preferred (the probe runs wherever a driver is); the shared one is the
# fallback; with neither, the probe is skipped, saying why.
CUDA_HOME := $(if $(strip $(NVCC)),$(patsubst %/bin/,%,$(dir $(realpath $(NVCC)))))
CUDA_LIB_CANDIDATES := $(if $(CUDA_HOME),$(shell $(NVCC) -dryrun -o /dev/null ridge-probe-libdirs.cu 2>&1 | \
	sed -n 's/^\#\$$ LIBRARIES=//p' | tr ' ' '\n' | sed -n 's/^"\{0,1\}-L\([^"]*\)"\{0,1\}$$/\1/p' | grep -v '/stubs$$') \
	$(CUDA_HOME)/lib64 $(CUDA_HOME)/targets/x86_64-linux/lib $(CUDA_HOME)/lib /usr/local/cuda/lib64 \
	/usr/local/cuda/targets/x86_64-linux/lib /usr/lib/x86_64-linux-gnu)
CUDART_STATIC := $(firstword $(wildcard $(addsuffix /libcudart_static.a,$(CUDA_LIB_CANDIDATES))))
CUDART_SHARED := $(firstword $(wildcard $(addsuffix /libcudart.so,$(CUDA_LIB_CANDIDATES))))
CUDA_LIBDIR := $(patsubst %/,%,$(dir $(or $(CUDART_STATIC),$(CUDART_SHARED))))
CUDART_LINK := $(if $(CUDART_STATIC),-lcudart_static,-lcudart)
ifeq ($(WITH_CUDA),no)
PROBE_SKIPPED += ridge-probe (WITH_CUDA=no)
else ifeq ($(strip $(NVCC)),)
PROBE_SKIPPED += ridge-probe (nvcc not found)
else ifeq ($(CUDA_LIBDIR),)
PROBE_SKIPPED += ridge-probe (no libcudart_static.a or libcudart.so where $(NVCC) links from)
else
# Every real architecture nvcc lists from sm_75 to sm_120, plus PTX of the newest.
# `make test` alone builds sm_90 plus its PTX (the fat build is 3 of its minutes
# on a 2-core machine); `make`, `make install` and CI build every architecture.
ifeq ($(origin PROBE_CUDA_ARCHS),undefined)
ifeq ($(filter-out test,$(MAKECMDGOALS))$(filter test,$(MAKECMDGOALS)),test)
PROBE_CUDA_ARCHS := 90
else
PROBE_CUDA_ARCHS := $(shell $(NVCC) --list-gpu-arch 2>/dev/null | sed -n 's/^compute_\([0-9]*\)$$/\1/p' | awk '$$1 >= 75 && $$1 <= 120' | sort -n | tr '\n' ' ')
endif
endif
PROBE_CUDA_PTX := $(lastword $(PROBE_CUDA_ARCHS))
probe_comma := ,
PROBE_GENCODE := $(foreach a,$(PROBE_CUDA_ARCHS),-gencode=arch=compute_$(a)$(probe_comma)code=sm_$(a)) \
	$(if $(PROBE_CUDA_PTX),-gencode=arch=compute_$(PROBE_CUDA_PTX)$(probe_comma)code=compute_$(PROBE_CUDA_PTX))
PROBE_HAS_CUBLAS := $(and $(wildcard $(CUDA_LIBDIR)/../include/cublas_v2.h $(CUDA_HOME)/include/cublas_v2.h $(CUDA_HOME)/targets/x86_64-linux/include/cublas_v2.h),$(wildcard $(CUDA_LIBDIR)/libcublas.so),$(wildcard $(CUDA_LIBDIR)/libcublasLt.so))
NVCC_FLAGS ?= -O3 -lineinfo
PROBE_NVCC := $(NVCC) -std=c++17 $(NVCC_FLAGS) -Xcompiler -Wall,-Wextra $(if $(PROBE_HAS_CUBLAS),,-DKERN_NO_CUBLAS)

PROBE_CU := kernels/cuda/backend.cu kernels/cuda/mma.cu kernels/cuda/latency.cu $(if $(PROBE_HAS_CUBLAS),kernels/cuda/gemm.cu)
# Each architecture set has its own object folder (build/obj/kernels/cuda-90,
# cuda-75_80_..._120), so `make test` after `make` (or the reverse) relinks
# instead of recompiling. wgmma is sm_90a whatever the set, so it is shared.
probe_space := $(subst ,, )
PROBE_CU_DIR := $(BUILD)/obj/kernels/cuda-$(subst $(probe_space),_,$(strip $(PROBE_CUDA_ARCHS)))
PROBE_CU_OBJ := $(PROBE_CU:kernels/cuda/%.cu=$(PROBE_CU_DIR)/%.o) $(BUILD)/obj/kernels/cuda/wgmma_sm90a.o \
	$(if $(PROBE_HAS_CUBLAS),$(BUILD)/obj/kernels/cuda/cublas_lazy.o)
# cuBLAS is dlopen()ed by cublas_lazy.cu on the first GEMM, by the soname of this toolkit's library.
probe_soname = $(shell objdump -p $(1) 2>/dev/null | sed -n 's/^ *SONAME *//p')
PROBE_CUBLAS_SONAMES := $(if $(PROBE_HAS_CUBLAS),-DCUBLAS_SONAME='"$(or $(call probe_soname,$(CUDA_LIBDIR)/libcublas.so),libcublas.so)"' \
	-DCUBLASLT_SONAME='"$(or $(call probe_soname,$(CUDA_LIBDIR)/libcublasLt.so),libcublasLt.so)"')
PROBES += $(BUILD)/ridge-probe

# Changing the compiler flags rebuilds the kernels; changing the architecture
# set relinks the probe from that set's folder. The stamps hold nvcc by its
# real path: `sudo make install` finds the same nvcc by another name (sudo's
# PATH: /usr/local/cuda/bin/nvcc for /usr/local/cuda-13.0/bin/nvcc), which
# must not rebuild the kernels `make` built (81 s for 11 architectures).
PROBE_NVCC_STAMP := $(subst $(NVCC) ,$(or $(realpath $(NVCC)),$(NVCC)) ,$(PROBE_NVCC))
$(PROBE_CU_DIR)/archs.stamp: FORCE
	@mkdir -p $(@D)
	@echo '$(PROBE_GENCODE) $(PROBE_NVCC_STAMP)' | cmp -s - $@ || echo '$(PROBE_GENCODE) $(PROBE_NVCC_STAMP)' > $@
$(BUILD)/obj/kernels/cuda/nvcc.stamp: FORCE
	@mkdir -p $(@D)
	@echo '$(PROBE_NVCC_STAMP)' | cmp -s - $@ || echo '$(PROBE_NVCC_STAMP)' > $@
$(BUILD)/obj/kernels/cuda/link.stamp: FORCE
	@mkdir -p $(@D)
	@echo '$(PROBE_CU_DIR)' | cmp -s - $@ || echo '$(PROBE_CU_DIR)' > $@

$(PROBE_CU_DIR)/%.o: kernels/cuda/%.cu $(PROBE_HEADERS) kernels/rand.h $(PROBE_CU_DIR)/archs.stamp
	@mkdir -p $(@D)
	$(PROBE_NVCC) $(PROBE_GENCODE) -c $< -o $@

# Host code only: no device architecture to build for.
$(BUILD)/obj/kernels/cuda/cublas_lazy.o: kernels/cuda/cublas_lazy.cu $(BUILD)/obj/kernels/cuda/nvcc.stamp
	@mkdir -p $(@D)
	$(PROBE_NVCC) $(PROBE_CUBLAS_SONAMES) -c $< -o $@

# wgmma exists only on sm_90a: this file is compiled for that target alone.
$(BUILD)/obj/kernels/cuda/wgmma_sm90a.o: kernels/cuda/wgmma_sm90a.cu $(PROBE_HEADERS) kernels/rand.h $(BUILD)/obj/kernels/cuda/nvcc.stamp
	@mkdir -p $(@D)
	$(PROBE_NVCC) -gencode=arch=compute_90a,code=sm_90a -c $< -o $@

$(BUILD)/obj/probe/main.o: probe/main.c $(PROBE_C_HEADERS) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(RIDGE_CFLAGS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/ridge-probe: $(BUILD)/obj/probe/main.o $(PROBE_CORE_OBJ) $(PROBE_CU_OBJ) $(LIB) $(PROBE_PORTABLE_DEPS) $(BUILD)/obj/kernels/cuda/link.stamp
	$(CC) -o $@ $(BUILD)/obj/probe/main.o $(PROBE_CORE_OBJ) $(PROBE_CU_OBJ) $(LIB) $(PROBE_LINK_LIBS) \
		-L$(CUDA_LIBDIR) $(CUDART_LINK) -lstdc++ -ldl -lpthread -lrt -lm \
		$(PROBE_RPATH) -Wl,-rpath,$(CUDA_LIBDIR)
endif

# ---- HIP ----
ifeq ($(WITH_HIP),no)
PROBE_SKIPPED += ridge-probe-hip (WITH_HIP=no)
else ifeq ($(strip $(HIPCC)),)
PROBE_SKIPPED += ridge-probe-hip (hipcc not found)
else
PROBES += $(BUILD)/ridge-probe-hip
HIP_ARCHS ?=
HIP_FLAGS ?= -O3
# The architectures: HIP_ARCHS, or gfx90a plus gfx942 (gfx940 where this hipcc's clang lacks gfx942).
$(BUILD)/obj/kernels/hip/archs: FORCE
	@mkdir -p $(@D)
	@if [ -n "$(HIP_ARCHS)" ]; then a="$(HIP_ARCHS)"; else \
		a=gfx90a; if echo '' | $(HIPCC) -x hip --offload-arch=gfx942 -c - -o /dev/null >/dev/null 2>&1; then \
		a="$$a gfx942"; else a="$$a gfx940"; fi; fi; \
		echo "$$a" | cmp -s - $@ || echo "$$a" > $@

$(BUILD)/obj/kernels/hip/%.o: kernels/hip/%.hip $(PROBE_HEADERS) kernels/rand.h $(BUILD)/obj/kernels/hip/archs
	@mkdir -p $(@D)
	$(HIPCC) -std=c++17 $(HIP_FLAGS) -Wall $$(for a in $$(cat $(BUILD)/obj/kernels/hip/archs); do printf -- '--offload-arch=%s ' $$a; done) -c $< -o $@

$(BUILD)/obj/probe/main-hip.o: probe/main.c $(PROBE_C_HEADERS) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(RIDGE_CFLAGS) $(PKG_CFLAGS) -MMD -MP -DPROBE_NAME='"ridge-probe-hip"' -c $< -o $@

PROBE_HIP_OBJ := $(BUILD)/obj/kernels/hip/backend.o $(BUILD)/obj/kernels/hip/mfma.o $(BUILD)/obj/kernels/hip/latency.o
$(BUILD)/ridge-probe-hip: $(BUILD)/obj/probe/main-hip.o $(PROBE_CORE_OBJ) $(PROBE_HIP_OBJ) $(LIB) $(PROBE_PORTABLE_DEPS) $(BUILD)/obj/kernels/hip/archs
	$(HIPCC) $$(for a in $$(cat $(BUILD)/obj/kernels/hip/archs); do printf -- '--offload-arch=%s ' $$a; done) -o $@ \
		$(BUILD)/obj/probe/main-hip.o $(PROBE_CORE_OBJ) $(PROBE_HIP_OBJ) $(LIB) $(PROBE_LINK_LIBS) -ldl -lm $(PROBE_RPATH)
endif

.PHONY: FORCE
FORCE:
