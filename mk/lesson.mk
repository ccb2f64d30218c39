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
#   EMU=1        check on warpsim, the CPU emulator, even where a GPU is
#   SRC=mine.cu  check your own file against the sync expectations
#   ARGS="..."   arguments for `make run` instead of RUN_ARGS
#   V=1          show the commands
#   NVCC, NVCCFLAGS
#
# Targets: all (default), check, run, bench, clean, help.

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))..)
LESSON := $(notdir $(CURDIR))
BUILD := build

PROGRAMS ?= legacy sync
GPU_ONLY ?=
CHECK ?= ./check.sh
RUN_ARGS ?=

NVCC ?= nvcc
HAVE_NVCC := $(shell command -v $(NVCC) 2>/dev/null)

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

# Where `make check` runs: the GPU when one answers, warpsim with EMU=1.
ifeq ($(EMU),1)
  CHECK_TARGET := none
  CHECK_WHY := warpsim, the CPU emulator, is not part of this repository yet
else ifeq ($(GPU_CC),)
  CHECK_TARGET := none
  CHECK_WHY := no GPU found (nvidia-smi lists none) and warpsim, the CPU emulator, is not part of this repository yet
else ifeq ($(HAVE_NVCC),)
  CHECK_TARGET := none
  CHECK_WHY := nvcc not found: install the CUDA Toolkit to build for the GPU
else
  CHECK_TARGET := gpu
  CHECK_WHY :=
endif

ifeq ($(CHECK_TARGET),gpu)
  CHECK_BINS := $(if $(SRC),$(BUILD)/mine,$(BUILD)/sync $(BUILD)/legacy)
else
  CHECK_BINS :=
endif

.PHONY: all check run bench clean help
.DEFAULT_GOAL := all

ifeq ($(HAVE_NVCC),)
all:
	@echo "$(LESSON): nvcc not found, nothing built (install the CUDA Toolkit)"
else
all: $(GPU_BINS)
endif

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

$(BUILD):
	$(Q)mkdir -p $@

# The checker exits 77 on a skip (no GPU); `make check` then succeeds after
# saying why, so that a whole course's `make check` passes on a laptop.
ifneq ($(SRC),)
  CHECK_ARGS := --only-sync --sync $(BUILD)/mine
else
  CHECK_ARGS := --sync $(BUILD)/sync --legacy $(BUILD)/legacy
endif

check: $(CHECK_BINS)
	$(Q)$(if $(SRC),test -f "$(SRC)" || { echo "$(LESSON): SRC=$(SRC): no such file" >&2; exit 2; };) \
	rc=0; $(CHECK) --target $(CHECK_TARGET) --why "$(CHECK_WHY)" $(CHECK_ARGS) || rc=$$?; \
	test $$rc -eq 77 || exit $$rc

run: $(BUILD)/sync $(BUILD)/legacy
	@for p in $(BUILD)/legacy $(BUILD)/sync; do \
	    echo "\$$ $$p $(or $(ARGS),$(RUN_ARGS))"; $$p $(or $(ARGS),$(RUN_ARGS)); echo; \
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
	@echo "  check   run the checker: $(if $(filter gpu,$(CHECK_TARGET)),on the GPU,skipped here: $(CHECK_WHY))"
	@echo "          SRC=mine.cu checks your own file against the sync expectations"
	@echo "  run     run legacy and sync with ARGS (default: $(RUN_ARGS))"
	@echo "  bench   run the lesson's benchmark, if it has one"
	@echo "  clean   remove $(BUILD)/"

.PHONY: FORCE
FORCE:
