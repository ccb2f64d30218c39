# mk/lesson.mk - the rules every lesson's Makefile shares.
#
# A lesson's Makefile sets some of these, then includes this file:
#   PROGRAMS   programs built from PROGRAM.cu (default: legacy sync)
#   GPU_ONLY   programs built from PROGRAM.cu for the GPU only, such as
#              those using CUB or Cooperative Groups (default: none)
#   RUN_ARGS   arguments `make run` passes to each program
#   CHECK      the checker (default: ./check.sh)
#   BENCH      the benchmark script, if the lesson has one
#
# What a user may set on the command line:
#   SM=90        build for this compute capability (default: the GPU's;
#                with no GPU visible, every major architecture)
#   EMU=1        check (and `make run`) on warpsim, the CPU emulator, even
#                where a GPU is; without a GPU, `make check` uses warpsim anyway
#   SRC=mine.cu  check your own file against the sync expectations
#   ARGS="..."   arguments for `make run` instead of RUN_ARGS
#   V=1          show the commands
#   NVCC, NVCCFLAGS; WS_CC, WS_FLAGS for warpsim (mk/warpsim.mk)
#
# Targets: all (default), emu, check, run, bench, clean, help.
# `make emu` builds build/emu/legacy and build/emu/sync for warpsim.

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))..)
LESSON := $(notdir $(CURDIR))
BUILD := build

PROGRAMS ?= legacy sync
GPU_ONLY ?=
CHECK ?= ./check.sh
RUN_ARGS ?=

NVCC ?= nvcc
HAVE_NVCC := $(shell command -v $(NVCC) 2>/dev/null)

include $(TOP)/mk/warpsim.mk
HAVE_WS_CC := $(shell command -v $(WS_CC) 2>/dev/null)
EMU_BUILD := $(BUILD)/emu
EMU_BINS := $(addprefix $(EMU_BUILD)/,$(PROGRAMS))

# The GPU's compute capability ("90"), or nothing when no GPU answers.
GPU_CC := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null \
            | grep -E '^[0-9]+\.[0-9]+$$' | head -n 1 | tr -d .)
SM ?= $(GPU_CC)
ifneq ($(SM),)
  ARCH_FLAGS := -arch=sm_$(SM)
else
  ARCH_FLAGS := -arch=all-major
endif

NVCCFLAGS ?=
ALL_NVCCFLAGS := -O3 -lineinfo $(ARCH_FLAGS) -I$(TOP)/include \
                 -Xcompiler -Wall,-Wextra $(NVCCFLAGS)

ifeq ($(V),1)
  Q :=
else
  Q := @
endif

GPU_BINS := $(addprefix $(BUILD)/,$(PROGRAMS) $(GPU_ONLY))

# Where `make check` runs: the GPU when one answers; warpsim, the CPU
# emulator, where none does or with EMU=1.
ifeq ($(EMU),1)
  ifeq ($(HAVE_WS_CC),)
    CHECK_TARGET := none
    CHECK_WHY := EMU=1 but $(WS_CC) not found: warpsim needs a C compiler (gcc 12 or newer)
  else
    CHECK_TARGET := emu
    CHECK_WHY :=
  endif
else ifeq ($(GPU_CC),)
  ifeq ($(HAVE_WS_CC),)
    CHECK_TARGET := none
    CHECK_WHY := no GPU found (nvidia-smi lists none) and no $(WS_CC) to build warpsim, the CPU emulator
  else
    CHECK_TARGET := emu
    CHECK_WHY :=
  endif
else ifeq ($(HAVE_NVCC),)
  CHECK_TARGET := none
  CHECK_WHY := nvcc not found: install the CUDA Toolkit to build for the GPU (or make check EMU=1)
else
  CHECK_TARGET := gpu
  CHECK_WHY :=
endif

ifeq ($(CHECK_TARGET),gpu)
  CHECK_DIR := $(BUILD)
else
  CHECK_DIR := $(EMU_BUILD)
endif
ifneq ($(filter gpu emu,$(CHECK_TARGET)),)
  CHECK_BINS := $(if $(SRC),$(CHECK_DIR)/mine,$(CHECK_DIR)/sync $(CHECK_DIR)/legacy)
else
  CHECK_BINS :=
endif

.PHONY: all emu check run bench clean help
.DEFAULT_GOAL := all

ifeq ($(HAVE_NVCC),)
all:
	@echo "$(LESSON): nvcc not found, nothing built (install the CUDA Toolkit; 'make emu' builds for warpsim)"
else
all: $(GPU_BINS)
endif

emu: $(EMU_BINS)

# Rebuild when the flags change (SM=..., NVCCFLAGS=...).
FLAGS_STAMP := $(BUILD)/.nvccflags
$(shell mkdir -p $(BUILD); echo '$(NVCC) $(ALL_NVCCFLAGS)' | cmp -s - $(FLAGS_STAMP) \
    || echo '$(NVCC) $(ALL_NVCCFLAGS)' > $(FLAGS_STAMP))

$(BUILD)/%: %.cu $(TOP)/include/lesson.h $(FLAGS_STAMP) | $(BUILD)
	@$(if $(Q),echo "  NVCC    $(LESSON)/$@")
	$(Q)$(NVCC) $(ALL_NVCCFLAGS) $< -o $@

# A learner's file, built with the same flags wherever it lives.
$(BUILD)/mine: $(SRC) $(TOP)/include/lesson.h FORCE | $(BUILD)
	@$(if $(Q),echo "  NVCC    $(LESSON)/$@ from $(SRC)")
	$(Q)$(NVCC) $(ALL_NVCCFLAGS) -I$(CURDIR) $(SRC) -o $@

$(BUILD) $(EMU_BUILD):
	$(Q)mkdir -p $@

# warpsim: the library (its own Makefile knows when it is up to date), then
# each program with gcc against it.
$(WS_LIB): FORCE
	$(Q)$(MAKE) --no-print-directory -s -C $(WS_DIR) build/libwarpsim.a

# Rebuild when the flags change (WS_FLAGS=..., WS_CC=...).
EMU_STAMP := $(EMU_BUILD)/.flags
ifneq ($(HAVE_WS_CC),)
$(shell mkdir -p $(EMU_BUILD); echo '$(WS_CC) $(WS_PROG_FLAGS) $(WS_FLAGS)' | cmp -s - $(EMU_STAMP) \
    || echo '$(WS_CC) $(WS_PROG_FLAGS) $(WS_FLAGS)' > $(EMU_STAMP))
endif

$(EMU_BUILD)/%: %.cu $(WS_DEPS) $(EMU_STAMP) | $(EMU_BUILD)
	@$(if $(Q),echo "  CC-EMU  $(LESSON)/$@")
	$(Q)$(call ws_build,$<,$@)

$(EMU_BUILD)/mine: $(SRC) $(WS_DEPS) FORCE | $(EMU_BUILD)
	@$(if $(Q),echo "  CC-EMU  $(LESSON)/$@ from $(SRC)")
	$(Q)$(call ws_build,$(SRC),$@,-I$(CURDIR))

# The checker exits 77 on a skip (no GPU); `make check` then succeeds after
# saying why, so that a whole course's `make check` passes on a laptop.
ifneq ($(SRC),)
  CHECK_ARGS := --only-sync --sync $(CHECK_DIR)/mine
else
  CHECK_ARGS := --sync $(CHECK_DIR)/sync --legacy $(CHECK_DIR)/legacy
endif

check: $(CHECK_BINS)
	$(Q)$(if $(SRC),test -f "$(SRC)" || { echo "$(LESSON): SRC=$(SRC): no such file" >&2; exit 2; };) \
	rc=0; $(CHECK) --target $(CHECK_TARGET) --why "$(CHECK_WHY)" $(CHECK_ARGS) || rc=$$?; \
	test $$rc -eq 77 || exit $$rc

# On warpsim, RUN_ARGS are sized for a GPU: a later -n 64K (the last -n
# wins) keeps the run to a second or so; ARGS=... overrides both.
RUN_DIR := $(if $(filter 1,$(EMU)),$(EMU_BUILD),$(BUILD))
RUN_LINE := $(or $(ARGS),$(RUN_ARGS)$(if $(filter 1,$(EMU)), -n 64K))
run: $(RUN_DIR)/sync $(RUN_DIR)/legacy
	@for p in $(RUN_DIR)/legacy $(RUN_DIR)/sync; do \
	    echo "\$$ $$p $(RUN_LINE)"; $$p $(RUN_LINE); echo; \
	done

bench: $(GPU_BINS)
ifneq ($(BENCH),)
	$(Q)$(BENCH)
else
	@echo "$(LESSON): no benchmark in this lesson"
endif

clean:
	rm -rf $(BUILD)

help:
	@echo "$(LESSON): make [target] [SM=90] [EMU=1] [SRC=mine.cu] [ARGS=...] [V=1]"
	@echo "  all     build $(PROGRAMS) $(GPU_ONLY) into $(BUILD)/ (for SM=$(or $(SM),every major architecture))"
	@echo "  emu     build $(PROGRAMS) for warpsim, the CPU emulator, into $(EMU_BUILD)/"
	@echo "  check   run the checker: $(if $(filter gpu,$(CHECK_TARGET)),on the GPU,$(if $(filter emu,$(CHECK_TARGET)),on warpsim (no GPU here or EMU=1),skipped here: $(CHECK_WHY)))"
	@echo "          SRC=mine.cu checks your own file against the sync expectations"
	@echo "  run     run legacy and sync with ARGS (default: $(RUN_ARGS));"
	@echo "          EMU=1 on warpsim (default: $(RUN_ARGS) -n 64K)"
	@echo "  bench   run the lesson's benchmark, if it has one"
	@echo "  clean   remove $(BUILD)/"

.PHONY: FORCE
FORCE:
