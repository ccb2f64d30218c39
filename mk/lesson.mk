# mk/lesson.mk - the rules every lesson's Makefile shares.
#
# A lesson's Makefile sets some of these, then includes this file:
#   PROGRAMS   programs built from PROGRAM.cu (default: legacy sync)
#   GPU_ONLY   programs built from PROGRAM.cu for the GPU only, such as
#              those using CUB (default: none)
#   EMU_TOO    GPU_ONLY programs that warpsim runs too (Cooperative Groups:
#              cg): make emu builds them into build/emu/ as well, and make
#              check without a GPU (or EMU=1) checks them there
#   RUN_ARGS   arguments `make run` passes to each program
#   CHECK      the checker (default: ./check.sh)
#   BENCH      the benchmark script, if the lesson has one
#   PASCAL_TOO GPU_ONLY programs that also build as compute_60 (PASCAL=1)
#   P_PARTS    the parts GPU_ONLY's program P is linked from, beside P.cu:
#              top-level .cu files that are no program (PARTS: all of them)
#              (see "Programs built from parts" below; lesson 06's
#              cub_ref_PARTS := cub_sum, lesson 07's bench_PARTS := cub_scan)
#
# What a user may set on the command line:
#   SM=90        build for this compute capability (default: the GPU's;
#                with no GPU visible, every major architecture)
#   PASCAL=1     build compute_60 PTX with CUDA 11.8 or 12.x into
#                build/pascal/ and check those: the pre-Volta code paths,
#                JIT-compiled by the driver on a newer GPU (`make pascal`)
#   NVCC=...     another toolkit; mk/toolkit.mk chooses flags by its version
#   EMU=1        check (and `make run`) on warpsim, the CPU emulator, even
#                where a GPU is; without a GPU, `make check` uses warpsim anyway
#   SRC=mine.cu  check your own file against the sync expectations, once
#                scripts/device-only.py has proved it device code (it
#                needs libclang's Python bindings: need-tools.sh check);
#                where a GPU is, on the GPU and on warpsim side by side;
#                with no DEMO=, on the lesson's exercise (exercise.mk: its
#                parts' demonstrations); SRC=wrong/NAME.patch
#                (right/NAME.patch) checks the wrong fix (right
#                alternative) it makes of sync.cu, build/wrong/NAME.cu
#                (build/right/NAME.cu), proved device code the same way
#   DEMO="a b"   the demonstrations to check (names or numbers; all: every
#                one, all that sync.cu meets)
#   MINE=NAME    where SRC's programs go: build/NAME and build/emu/NAME
#                (default: mine; make check-wrong uses wrong/F for each fix)
#   JOBS=N       make check-wrong (check-right) checks N files at once
#                (default 1)
#   WRONG="wrong/a.patch wrong/b.patch"
#                the wrong fixes make check-wrong checks (default: every
#                wrong/*.patch, and wrong/*.cu kept whole)
#   RIGHT="right/a.patch right/b.cu"
#                the right alternatives make check-right checks (default:
#                every right/*.patch and right/*.cu)
#   ARGS="..."   arguments for `make run` instead of RUN_ARGS
#   V=1          show the commands
#   NVCC, NVCCFLAGS; WS_CC, WS_FLAGS for warpsim (mk/warpsim.mk)
#
# Targets: all (default), emu, check, check-wrong, check-right, run, bench,
# pascal, clean, help; build/wrong/NAME.cu (build/right/NAME.cu) makes a
# wrong fix (right alternative) from its patch. `make emu` builds
# build/emu/legacy and build/emu/sync for warpsim (and EMU_TOO's, and
# warpsim/$(WS_B)/warpsim, the driver).
#
# Lessons with a harness.cu (the harness convention, include/lesson.h):
# each program X is harness.cu + X.cu, two translation units: harness.cu
# compiled once per build folder with -DLESSON_HARNESS (build/harness.o,
# build/emu/harness.o), X.cu with -DLESSON_UNIT -DLESSON_SRC_NAME='"X.cu"',
# linked by nvcc into build/X and by WS_CC against warpsim into
# build/emu/X; SRC=path/mine.cu the same into
# build/mine and build/emu/mine (build/$(MINE) and build/emu/$(MINE)). build/verify is harness.cu built by
# HOST_CC with -DLESSON_VERIFY; the checker runs every program through it
# (check.sh --verify). Lessons without harness.cu build each X.cu alone.
#   make check-wrong   runs `make check SRC=wrong/F.patch MINE=wrong/F
#                      DEMO=all` (stopping at the first failed expectation)
#                      on every wrong fix in wrong/, JOBS=N of them at once,
#                      each built under its own name, and prints one TAP
#                      line each, in order: ok when the checker rejected it,
#                      with the line that locates it
#   make check-right   the same for each right alternative in right/: ok
#                      when the checker passed it
#   CHECK_FIRST_FAIL=1 the checker stops at its first failed expectation
#   HOST_CC=cc         the C compiler for build/verify
# Programs are built side by side, one per core, unless make is given -j
# (make -j1: one at a time) or is run by a make that shares its jobs with
# it (a jobserver: forcing -j there would only warn, "resetting jobserver
# mode", as make check-wrong's makes of each fix did).

# TOP, the repository, as the lesson's Makefile named this file (../..):
# relative, so that a checkout under a path with a space (~/my labs/) builds
# (make takes no file name with a space; the commands here name none).
space := $(subst ,, )
TOP := $(or $(patsubst %/mk/,%,$(filter %/mk/,$(dir $(lastword $(MAKEFILE_LIST))))),.)
LESSON := $(lastword $(subst /, ,$(CURDIR)))
ifeq ($(filter -j% --jobserver%,$(shell printenv MAKEFLAGS)),)
  MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif

# SRC=wrong/NAME.patch, right/NAME.patch: the file the patch stands for,
# made from sync.cu into build/wrong/NAME.cu (build/right/NAME.cu) first,
# is the SRC checked (scripts/apply-fix.sh; one line when it fails).
ifneq ($(filter %.patch,$(SRC)),)
  SRC_PATCH := $(SRC)
  override SRC := build/$(notdir $(patsubst %/,%,$(dir $(SRC))))/$(basename $(notdir $(SRC))).cu
  SRC_PATCH_ERROR := $(shell $(TOP)/scripts/apply-fix.sh '$(SRC_PATCH)' sync.cu '$(SRC)' 2>&1 >/dev/null)
  ifneq ($(SRC_PATCH_ERROR),)
    $(error $(LESSON): SRC=$(SRC_PATCH_ERROR))
  endif
endif

# Settings that are either 1 or unset, and SRC, checked before anything else.
ifneq ($(filter-out 1,$(EMU)),)
  $(error $(LESSON): EMU=$(EMU): EMU is 1 (use warpsim) or unset)
endif
ifneq ($(filter-out 1,$(PASCAL)),)
  $(error $(LESSON): PASCAL=$(PASCAL): PASCAL is 1 (compute_60 PTX) or unset)
endif
ifneq ($(SRC),)
  ifneq ($(words $(SRC)),1)
    $(error $(LESSON): SRC=$(SRC): a file name with a space, which make cannot take as a file: rename it (say, $(shell printf '%s' '$(SRC)' | tr ' ' _)))
  endif
  ifeq ($(shell test -f '$(SRC)' && echo yes),)
    $(error $(LESSON): SRC=$(SRC): no such file (give a .cu file, relative to the lesson folder or absolute))
  endif
endif
BUILD := $(if $(filter 1,$(PASCAL)),build/pascal,build)

PROGRAMS ?= legacy sync
HARNESS := $(wildcard harness.cu)
# Programs built with harness.cu: PROGRAMS, and the GPU_ONLY programs whose
# source has no main of its own (main or lesson_main: a benchmark, cg.cu).
HARNESS_PROGRAMS ?= $(if $(HARNESS),$(PROGRAMS) $(foreach p,$(GPU_ONLY),$(if $(shell grep -lE '^int (lesson_)?main' $(p).cu 2>/dev/null),,$(p))))
HOST_CC ?= cc
# A harness that judges in build/verify says LESSON_VERIFY somewhere.
VERIFY := $(if $(HARNESS),$(if $(shell grep -l LESSON_VERIFY harness.cu 2>/dev/null),build/verify))
SRC_NAME := $(notdir $(SRC))
# The lesson's exercise, declared once in exercise.mk (EXERCISE_STARTER, the
# file a learner copies; EXERCISE_PARTS, NAME:POINTS, the demonstrations
# graded): a check of a learner's file (SRC=) without DEMO= checks the
# parts, and says so in one line; DEMO= names others, DEMO=all every one.
# (A wrong fix or right alternative, SRC=NAME.patch, is an edit of sync.cu:
# checked on all that sync.cu meets.)
include $(wildcard exercise.mk)
ifneq ($(SRC),$(if $(SRC_PATCH),$(SRC)))
  ifneq ($(EXERCISE_PARTS),)
    ifeq ($(origin DEMO),undefined)
      DEMO := $(foreach p,$(EXERCISE_PARTS),$(firstword $(subst :, ,$(p))))
      export DEMO
      EXERCISE_SAYS := \# grading the exercise: DEMO="$(DEMO)"; DEMO= names others, DEMO=all every one
      ifneq ($(filter check,$(MAKECMDGOALS)),)
        $(info $(EXERCISE_SAYS))
      endif
    endif
  endif
endif
# MINE and JOBS are checked where they were given (their defaults are good).
MINE ?= mine
ifneq ($(origin MINE),file)
  ifeq ($(shell printf '%s' '$(MINE)' | grep -Ex '[A-Za-z0-9_][A-Za-z0-9_.-]*(/[A-Za-z0-9_][A-Za-z0-9_.-]*)?'),)
    $(error $(LESSON): MINE=$(MINE): a name such as mine or wrong/NAME (letters, digits, _ . -))
  endif
endif
JOBS ?= 1
ifneq ($(origin JOBS),file)
  ifeq ($(shell printf '%s' '$(JOBS)' | grep -Ex '[1-9][0-9]*'),)
    $(error $(LESSON): JOBS=$(JOBS): JOBS is how many wrong fixes make check-wrong checks at once, a number from 1)
  endif
endif
GPU_ONLY ?=
CHECK ?= ./check.sh
RUN_ARGS ?=

include $(TOP)/mk/warpsim.mk
# warpsim needs WS_CC (its library) and WS_CXX (lesson files, C++).
HAVE_WS_CC := $(and $(call which_cmd,$(WS_CC)),$(call which_cmd,$(WS_CXX)))
EMU_BUILD := build/emu
EMU_TOO ?=
EMU_BINS := $(addprefix $(EMU_BUILD)/,$(PROGRAMS) $(EMU_TOO))

# The GPU's compute capability ("90"), or nothing when no GPU answers (or
# there is no nvidia-smi to ask).
HAVE_SMI := $(call which_cmd,nvidia-smi)
GPU_SEEN := $(if $(HAVE_SMI),$(shell nvidia-smi -L 2>/dev/null | grep -m 1 '^GPU '))
GPU_CC := $(if $(GPU_SEEN),$(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null \
            | grep -E '^[0-9]+\.[0-9]+$$' | head -n 1 | tr -d .))
SM ?= $(GPU_CC)

# The toolkit, its version, and the flags for it (ARCH_FLAGS, HOST_FLAGS).
include $(TOP)/mk/toolkit.mk

NVCCFLAGS ?=
nvcc_flags = -O3 $(LINEINFO) $(1) -I$(TOP)/include -Xcompiler -Wall,-Wextra \
             $(HOST_FLAGS) -Xcompiler -pthread $(NVCCFLAGS)
ALL_NVCCFLAGS := $(call nvcc_flags,$(ARCH_FLAGS))
# Only GPUs older than compute capability 7.0 asked for (PASCAL=1, SM=60):
# the programs that need 7.0 are left out.
PRE_VOLTA_BUILD := $(if $(ARCH_FLAGS_70),,1)
RUN_NVCC := $(if $(TOOLS_PATH),PATH=$(TOOLS_PATH):$$PATH )$(NVCC)

# A toolkit that cannot build what was asked stops every target that builds
# for the GPU, with one line; emu, clean and help go on.
GOALS := $(or $(MAKECMDGOALS),all)
ifneq ($(ARCH_ERROR),)
  ifneq ($(filter-out emu clean help pascal $(if $(filter 1,$(EMU)),check run),$(GOALS)),)
    $(error $(LESSON): $(ARCH_ERROR))
  endif
endif

ifeq ($(V),1)
  Q :=
else
  Q := @
endif

# Builds for GPUs older than 7.0 (PASCAL=1, SM=60) hold PROGRAMS and those
# of GPU_ONLY named in PASCAL_TOO; the rest need compute capability 7.0
# (__match_any_sync, __nanosleep, ...) and are built, where they are, for
# the GPUs of 7.0 and newer only.
PASCAL_TOO ?=
NEEDS_70 := $(filter-out $(PASCAL_TOO),$(GPU_ONLY))
GPU_BINS := $(addprefix $(BUILD)/,$(PROGRAMS) $(PASCAL_TOO) $(if $(PRE_VOLTA_BUILD),,$(NEEDS_70)))

# Where `make check` runs: the GPU when one answers; warpsim, the CPU
# emulator, where none does or with EMU=1.
ifeq ($(EMU),1)
  ifeq ($(HAVE_WS_CC),)
    CHECK_TARGET := none
    CHECK_WHY := EMU=1 but $(WS_CC) or $(WS_CXX) not found: warpsim needs a C and a C++ compiler (gcc and g++ 12 or newer)
  else
    CHECK_TARGET := emu
    CHECK_WHY :=
  endif
else ifeq ($(GPU_CC)$(PASCAL),1)
  CHECK_TARGET := none
  CHECK_WHY := no GPU here to run the compute_60 programs (warpsim's lockstep model, in make check EMU=1, shows pre-Volta scheduling on the CPU)
else ifeq ($(GPU_CC),)
  ifeq ($(HAVE_WS_CC),)
    CHECK_TARGET := none
    CHECK_WHY := no GPU found (nvidia-smi lists none) and no $(WS_CC) and $(WS_CXX) to build warpsim, the CPU emulator
  else
    CHECK_TARGET := emu
    CHECK_WHY :=
  endif
else ifneq ($(HAVE_NVCC)$(if $(SRC),,$(wildcard $(BUILD)/sync)),)
  CHECK_TARGET := gpu
  CHECK_WHY :=
else ifeq ($(PASCAL),1)
  CHECK_TARGET := none
  CHECK_WHY := no CUDA 11.8 or 12.x to build compute_60 PTX, and no programs in $(BUILD)/: run scripts/get-cuda-11.8.sh (1.6 GB), or NVCC=/path/to/cuda-12/bin/nvcc
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
# On the GPU the checkers also run the lesson's other programs (cg.cu,
# cub_ref.cu, ...): `make check` builds all that `make` builds. Without a
# toolkit, programs already in $(BUILD)/ (say, build/pascal/ built on
# another machine) are used as they are.
ifeq ($(CHECK_TARGET),gpu)
  CHECK_BINS := $(if $(SRC),$(CHECK_DIR)/$(MINE),$(if $(HAVE_NVCC),$(GPU_BINS),$(wildcard $(GPU_BINS))))
else ifeq ($(CHECK_TARGET),emu)
  CHECK_BINS := $(if $(SRC),$(CHECK_DIR)/$(MINE),$(CHECK_DIR)/sync $(CHECK_DIR)/legacy \
                  $(addprefix $(CHECK_DIR)/,$(EMU_TOO))) $(WS_DRIVER)
else
  CHECK_BINS :=
endif
# Lab mode: a student's file (SRC=) checked on the GPU is checked on
# warpsim too (every model), and passes only if both pass.
LAB_EMU := $(if $(and $(SRC),$(filter gpu,$(CHECK_TARGET)),$(HAVE_WS_CC),$(HARNESS)),1)
CHECK_BINS += $(VERIFY) $(if $(LAB_EMU),$(EMU_BUILD)/$(MINE) $(WS_DRIVER))

.PHONY: all emu check check-wrong check-right run bench pascal clean help
.DEFAULT_GOAL := all

ifeq ($(HAVE_NVCC),)
all:
ifeq ($(PASCAL),1)
	@echo "$(LESSON): no CUDA 11.8 or 12.x found for compute_60 PTX, nothing built (scripts/get-cuda-11.8.sh installs CUDA 11.8; or NVCC=/path/to/nvcc)"
else
	@echo "$(LESSON): nvcc not found, nothing built (install the CUDA Toolkit; 'make emu' builds for warpsim)"
endif
else
all: $(GPU_BINS)
endif

emu: $(EMU_BINS) $(WS_DRIVER)

# Rebuild when the flags change (SM=..., NVCCFLAGS=...).
FLAGS_STAMP := $(BUILD)/.nvccflags
# (one shell, its builtins only: make runs it on every call)
$(shell test -d $(BUILD) || mkdir -p $(BUILD); { IFS= read -r f <$(FLAGS_STAMP); } 2>/dev/null; \
    [ "$$f" = '$(NVCC) $(ALL_NVCCFLAGS)' ] || echo '$(NVCC) $(ALL_NVCCFLAGS)' > $(FLAGS_STAMP))

# Without a toolkit, programs already in $(BUILD) (say, build/pascal/ built
# on another machine) are used as they are.
# $(call light,FILE): -DLESSON_LIGHT unless FILE names Cooperative Groups or
# the half-precision types: include/lesson.h then leaves out the CUDA headers
# that must be read before its macros (three quarters of a build's time).
light = $(if $(shell grep -lE 'cooperative_groups|cuda_fp16|cuda_bf16|__half|__nv_bfloat16' $(1) 2>/dev/null),,-DLESSON_LIGHT)
ifneq ($(HAVE_NVCC),)
$(BUILD)/%: %.cu $(TOP)/include/lesson.h $(FLAGS_STAMP) | $(BUILD)
	@$(if $(Q),echo "  NVCC    $(LESSON)/$@ (CUDA $(NVCC_VERSION), $(ARCH_WHAT))")
	$(Q)$(RUN_NVCC) $(ALL_NVCCFLAGS) $(call light,$<) $< -o $@
ifneq ($(HARNESS),)
# $(call harness_nvcc,LESSON FILE,OUTPUT): the lesson file, compiled, and
# $(BUILD)/harness.o linked into OUTPUT (no -rdc: the harness launches the
# kernels through their declarations).
# (A Makefile that still adds harness.cu or LESSON_SRC_NAME to the flags
# of a program has them filtered out here.)
harness_flags = $(filter-out %harness.cu -DLESSON_SRC_NAME=%,$(ALL_NVCCFLAGS))
define harness_nvcc
	$(Q)$(RUN_NVCC) $(harness_flags) $(call light,$(1)) -DLESSON_UNIT -DLESSON_SRC_NAME='"$(notdir $(1))"' -I. -x cu -c $(1) -o $(2).unit.o
	$(Q)$(RUN_NVCC) $(harness_flags) $(2).unit.o $(BUILD)/harness.o -o $(2)
	$(Q)rm -f $(2).unit.o
endef
# The harness, once for every program of the folder; the lesson's own
# headers may be in it.
$(BUILD)/harness.o: harness.cu $(TOP)/include/lesson.h $(wildcard *.h *.cuh) $(FLAGS_STAMP) | $(BUILD)
	@$(if $(Q),echo "  NVCC    $(LESSON)/$@ (CUDA $(NVCC_VERSION), $(ARCH_WHAT))")
	$(Q)$(RUN_NVCC) $(harness_flags) -DLESSON_HARNESS -x cu -c harness.cu -o $@
$(addprefix $(BUILD)/,$(HARNESS_PROGRAMS)): $(BUILD)/%: %.cu $(BUILD)/harness.o $(TOP)/include/lesson.h $(FLAGS_STAMP) | $(BUILD)
	@$(if $(Q),echo "  NVCC    $(LESSON)/$@ = harness.o + $< (CUDA $(NVCC_VERSION), $(ARCH_WHAT))")
	$(call harness_nvcc,$<,$@)
endif

ifneq ($(ARCH_FLAGS_70),$(ARCH_FLAGS))
$(addprefix $(BUILD)/,$(NEEDS_70)): ALL_NVCCFLAGS := $(call nvcc_flags,$(ARCH_FLAGS_70))
endif

# Programs built from parts: PROGRAM_PARTS := PART... (each a top-level
# PART.cu; PARTS lists every part) makes GPU_ONLY's PROGRAM from PROGRAM.o and
# PART.o, which compile side by side (CUB's code, the longest to compile,
# kept apart), then link; a part several programs name compiles once. The
# objects of a program that needs 7.0 get its flags: where those differ
# from the others', they go to $(BUILD)/70/.
PARTS := $(sort $(foreach p,$(GPU_ONLY),$($(p)_PARTS)))
ifneq ($(HAVE_NVCC),)
ifeq ($(ARCH_FLAGS_70),$(ARCH_FLAGS))
OBJ_70 := $(BUILD)
else
OBJ_70 := $(BUILD)/70
$(OBJ_70)/%.o: ALL_NVCCFLAGS := $(call nvcc_flags,$(ARCH_FLAGS_70))
endif
define nvcc_object
	@mkdir -p $(@D)
	@$(if $(Q),echo "  NVCC    $(LESSON)/$@ (CUDA $(NVCC_VERSION), $(ARCH_WHAT))")
	$(Q)$(RUN_NVCC) $(ALL_NVCCFLAGS) $(call light,$<) -c $< -o $@
endef
$(BUILD)/%.o: %.cu $(TOP)/include/lesson.h $(FLAGS_STAMP)
	$(nvcc_object)
ifneq ($(OBJ_70),$(BUILD))
$(OBJ_70)/%.o: %.cu $(TOP)/include/lesson.h $(FLAGS_STAMP)
	$(nvcc_object)
endif
# $(call obj_dir,PROGRAM): where PROGRAM's objects go.
obj_dir = $(if $(filter $(1),$(NEEDS_70)),$(OBJ_70),$(BUILD))
define parts_program
$(BUILD)/$(1): $(call obj_dir,$(1))/$(1).o $(addprefix $(call obj_dir,$(1))/,$(addsuffix .o,$($(1)_PARTS)))
	@$$(if $$(Q),echo "  NVCC    $$(LESSON)/$$@ = $$(notdir $$^)")
	$$(Q)$$(RUN_NVCC) $$(ALL_NVCCFLAGS) $$^ -o $$@
endef
$(foreach p,$(GPU_ONLY),$(if $($(p)_PARTS),$(eval $(call parts_program,$(p)))))
endif

# A learner's file, built with the same flags wherever it lives, once
# scripts/device-only.py has proved it device code (device-only below).
$(BUILD)/$(MINE): $(SRC) $(if $(HARNESS),$(BUILD)/harness.o) $(TOP)/include/lesson.h $(DEVICE_ONLY_GATE) FORCE | $(BUILD)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  NVCC    $(LESSON)/$@ from $(SRC)$(if $(HARNESS), and harness.cu)")
ifeq ($(HARNESS),)
	$(Q)$(RUN_NVCC) $(ALL_NVCCFLAGS) $(call light,$(SRC)) -I. $(SRC) -o $@
else
	$(call harness_nvcc,$(SRC),$@)
endif
endif

# device-only: scripts/device-only.py reads SRC with clang's CUDA front end
# before any build of it, GPU or warpsim: a lesson file is device code
# only (__device__ and __global__ functions, device variables, types,
# constants, the lesson's own includes), the same in the GPU build
# (__CUDA_ARCH__ of SM, or 8.0 and 9.0 where none is known) and the warpsim
# build. A file it refuses is not built: a TAP block names its first line
# that is not allowed, and the check fails. DEVICE_ONLY=0 skips it (for the
# lesson's own tests of the checker, never for a student's file).
DEVICE_ONLY ?= 1
ifneq ($(filter-out 0 1,$(DEVICE_ONLY)),)
  $(error $(LESSON): DEVICE_ONLY=$(DEVICE_ONLY): DEVICE_ONLY is 1 (check SRC first) or 0)
endif
DEVICE_ONLY_PY := $(or $(wildcard /usr/bin/python3),python3)
DEVICE_ONLY_ARCH := $(if $(and $(SM),$(filter-out 1,$(PASCAL))),--arch $(SM)0)
DEVICE_ONLY_GATE := $(if $(and $(SRC),$(HARNESS),$(filter 1,$(DEVICE_ONLY))),device-only)
# (once, while make reads this file, for the goals that build SRC: a file
# refused builds nothing, and its lines end the output)
ifneq ($(DEVICE_ONLY_GATE),)
  DEVICE_ONLY_TXT := build/$(MINE).device-only
  ifneq ($(filter-out clean help check-wrong check-wrong-one check-right check-right-one pascal bench,$(GOALS)),)
    DEVICE_ONLY_RC := $(shell mkdir -p '$(dir $(DEVICE_ONLY_TXT))' && \
        $(DEVICE_ONLY_PY) $(TOP)/scripts/device-only.py --tap --lesson . $(DEVICE_ONLY_ARCH) \
        --name '$(SRC_NAME)' '$(SRC)' >'$(DEVICE_ONLY_TXT)' 2>&1; echo $$?)
  endif
endif
ifneq ($(filter-out 0,$(DEVICE_ONLY_RC)),)
  CHECK_BINS := device-only
  LAB_EMU :=
endif
.PHONY: device-only
device-only:
	$(Q)cat '$(DEVICE_ONLY_TXT)' 2>/dev/null; exit $(or $(DEVICE_ONLY_RC),0)

# The judge: harness.cu with no lesson file and no CUDA (include/lesson.h).
build/verify: harness.cu $(TOP)/include/lesson.h
	@mkdir -p build
	@$(if $(Q),echo "  CC      $(LESSON)/$@")
	$(Q)$(HOST_CC) -std=gnu11 -O1 -Wall -Wextra -pthread -DLESSON_VERIFY -I$(TOP)/include -x c harness.cu -o $@

$(BUILD) $(EMU_BUILD):
	$(Q)mkdir -p $@

# warpsim: the library (its own Makefile knows when it is up to date), then
# each program with gcc against it. Lessons made side by side (make -C for
# several lessons at once) each build warpsim: flock, where there is one,
# lets one at a time into warpsim's folder, so that no two write one object.
WS_LOCK := $(if $(call which_cmd,flock),flock $(WS_DIR)/$(WS_B)/.make.lock)
$(WS_LIB): FORCE
	$(Q)mkdir -p $(WS_DIR)/$(WS_B) && $(WS_LOCK) $(MAKE) --no-print-directory -s -C $(WS_DIR) TOP=.. $(WS_B)/libwarpsim.a

# Rebuild when the flags change (WS_FLAGS=..., WS_CC=...).
EMU_STAMP := $(EMU_BUILD)/.flags
ifneq ($(HAVE_WS_CC),)
$(shell test -d $(EMU_BUILD) || mkdir -p $(EMU_BUILD); { IFS= read -r f <$(EMU_STAMP); } 2>/dev/null; \
    [ "$$f" = '$(WS_CC) $(WS_PROG_FLAGS) $(WS_FLAGS)' ] || echo '$(WS_CC) $(WS_PROG_FLAGS) $(WS_FLAGS)' > $(EMU_STAMP))
endif

# After the library: two makes in warpsim at once would build its objects twice.
$(WS_DRIVER): $(WS_LIB) FORCE
	$(Q)$(WS_LOCK) $(MAKE) --no-print-directory -s -C $(WS_DIR) TOP=.. $(WS_B)/warpsim

ifeq ($(HARNESS),)
$(EMU_BUILD)/%: %.cu $(WS_DEPS) $(EMU_STAMP) | $(EMU_BUILD)
	@$(if $(Q),echo "  CC-EMU  $(LESSON)/$@")
	$(Q)$(call ws_build,$<,$@)

$(EMU_BUILD)/$(MINE): $(SRC) $(WS_DEPS) FORCE | $(EMU_BUILD)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC-EMU  $(LESSON)/$@ from $(SRC)")
	$(Q)$(call ws_build,$(SRC),$@,-I.)
else
# $(call ws_harness_build,LESSON FILE,OUTPUT[,EXTRA FLAGS]): the same for
# warpsim: the lesson file, compiled, and $(EMU_BUILD)/harness.o.
# A fourth argument runs between the two (WS_LOCALIZE: on a student's object).
ws_harness_build = $(call ws_compile,$(1),$(2).unit.o,-DLESSON_UNIT -DLESSON_SRC_NAME='"$(notdir $(1))"' -I. $(3)) && \
    $(if $(4),$(call $(4),$(2).unit.o) &&) \
    $(call ws_link,$(2).unit.o $(EMU_BUILD)/harness.o,$(2)) && rm -f $(2).unit.o
# $(call ws_localize,OBJECT): leaves global in a student's object only the
# symbols harness.o takes from the lesson unit (the kernels,
# lesson_delay_set, lesson_src_name: $(EMU_BUILD)/harness.keep, what
# harness.o needs that neither the C library nor warpsim defines). On
# warpsim device code is host code, and a function of the file named free
# or exit must not replace the C library's for the harness and warpsim
# (scripts/device-only.py has refused such a file already: this is the
# second wall).
ws_localize = objcopy --keep-global-symbols=$(EMU_BUILD)/harness.keep $(1)
# (made whole under a name of its own, then renamed: makes side by side
# may each make it)
$(EMU_BUILD)/harness.keep: $(EMU_BUILD)/harness.o $(WS_LIB)
	$(Q)t=$@.$$$$; { nm -D --defined-only $$($(WS_CC) -print-file-name=libc.so.6) $$($(WS_CC) -print-file-name=libm.so.6); \
	  nm --defined-only $(WS_LIB); } 2>/dev/null | awk 'NF >= 3 { sub(/@.*/, "", $$3); print $$3 }' | sort -u >$$t.libs && \
	nm -u $(EMU_BUILD)/harness.o | awk '{ sub(/@.*/, "", $$2); print $$2 }' | sort -u | comm -23 - $$t.libs >$$t && \
	rm -f $$t.libs && mv -f $$t $@
WS_LOCALIZE := $(if $(and $(call which_cmd,objcopy),$(call which_cmd,nm)),ws_localize)
$(EMU_BUILD)/harness.o: harness.cu $(wildcard *.h *.cuh) $(WS_DEPS) $(EMU_STAMP) | $(EMU_BUILD)
	@$(if $(Q),echo "  CC-EMU  $(LESSON)/$@")
	$(Q)$(call ws_compile,harness.cu,$@,-DLESSON_HARNESS)
$(EMU_BUILD)/%: %.cu $(EMU_BUILD)/harness.o $(WS_DEPS) $(EMU_STAMP) | $(EMU_BUILD)
	@$(if $(Q),echo "  CC-EMU  $(LESSON)/$@ = harness.o + $<")
	$(Q)$(call ws_harness_build,$<,$@)

$(EMU_BUILD)/$(MINE): $(SRC) $(EMU_BUILD)/harness.o $(if $(WS_LOCALIZE),$(EMU_BUILD)/harness.keep) $(WS_DEPS) $(DEVICE_ONLY_GATE) FORCE | $(EMU_BUILD)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC-EMU  $(LESSON)/$@ from $(SRC) and harness.cu")
	$(Q)$(call ws_harness_build,$(SRC),$@,,$(WS_LOCALIZE))
# EMU_TOO's programs with a main of their own (lesson 06's cg.cu), alone.
EMU_ALONE := $(filter-out $(HARNESS_PROGRAMS),$(EMU_TOO))
ifneq ($(EMU_ALONE),)
$(addprefix $(EMU_BUILD)/,$(EMU_ALONE)): $(EMU_BUILD)/%: %.cu $(WS_DEPS) $(EMU_STAMP) | $(EMU_BUILD)
	@$(if $(Q),echo "  CC-EMU  $(LESSON)/$@")
	$(Q)$(call ws_build,$<,$@,-I.)
endif
endif

# The checker exits 77 on a skip (no GPU); `make check` then succeeds after
# saying why, so that a whole course's `make check` passes on a laptop.
ifneq ($(SRC),)
  CHECK_ARGS := --only-sync --sync $(CHECK_DIR)/$(MINE) $(if $(HARNESS),--name $(SRC_NAME))
  LAB_EMU_ARGS := --only-sync --sync $(EMU_BUILD)/$(MINE) --name $(SRC_NAME)
else
  CHECK_ARGS := --sync $(CHECK_DIR)/sync --legacy $(CHECK_DIR)/legacy
endif
CHECK_ARGS += $(if $(VERIFY),--verify $(VERIFY))
LAB_EMU_ARGS += $(if $(VERIFY),--verify $(VERIFY))

ifeq ($(LAB_EMU),)
check: $(CHECK_BINS)
	$(Q)$(if $(SRC),test -f "$(SRC)" || { echo "$(LESSON): SRC=$(SRC): no such file" >&2; exit 2; };) \
	rc=0; $(CHECK) --target $(CHECK_TARGET) --why "$(CHECK_WHY)" $(CHECK_ARGS) || rc=$$?; \
	test $$rc -eq 77 || exit $$rc
else
# Lab mode: the GPU checks and the warpsim checks side by side, each half
# as soon as its own programs are built (warpsim's runs while nvcc still
# builds the GPU's); both must pass. Their output is shown in turn, the
# GPU's first, then a line for each and, when one failed, its first failure
# again, last. CHECK_TIME_LOG gets a line for each half too ("lab-gpu",
# "lab-emu": its seconds from its start, when its programs were built).
LAB_LOG := build/$(MINE).lab
.PHONY: lab-gpu lab-emu
lab_half = t0=$${EPOCHREALTIME:-}; rc=0; $(CHECK) $(2) >$(LAB_LOG).$(1) 2>&1 || rc=$$?; echo $$rc >$(LAB_LOG).$(1).rc; \
    if [ -n "$${CHECK_TIME_LOG:-}" ] && [ -n "$$t0" ]; then \
        awk -v a="$$t0" -v b="$$EPOCHREALTIME" -v h=$(1) 'BEGIN { printf "%.2f\tlab-%s\tthe %s half of make check SRC=\t-\n", b - a, h, h }' >>"$$CHECK_TIME_LOG"; fi
lab-gpu: $(filter-out $(EMU_BUILD)/$(MINE) $(WS_DRIVER),$(CHECK_BINS))
	$(Q)$(call lab_half,gpu,--target gpu $(CHECK_ARGS))
lab-emu: $(EMU_BUILD)/$(MINE) $(WS_DRIVER) $(VERIFY)
	$(Q)$(call lab_half,emu,--target emu $(LAB_EMU_ARGS))
check: lab-gpu lab-emu
	$(Q)cat $(LAB_LOG).gpu $(LAB_LOG).emu; gpu=$$(cat $(LAB_LOG).gpu.rc); emu=$$(cat $(LAB_LOG).emu.rc); \
	g=$$(grep -E '^[0-9]+ passed, [0-9]+ failed$$' $(LAB_LOG).gpu | tail -n 1); \
	e=$$(grep -E '^[0-9]+ passed, [0-9]+ failed$$' $(LAB_LOG).emu | tail -n 1); \
	echo "# $(SRC_NAME) on the GPU: $$(test $$gpu -eq 0 && echo passed || echo FAILED) ($${g:-no summary})"; \
	echo "# $(SRC_NAME) on warpsim: $$(test $$emu -eq 0 && echo passed || echo FAILED) ($${e:-no summary})"; \
	for h in gpu emu; do \
	    if grep -q '^# ==== the first failure' $(LAB_LOG).$$h; then \
	        echo "# ---- on $$(test $$h = gpu && echo the GPU || echo warpsim):"; \
	        sed -n '/^# ==== the first failure/,/^[0-9]* passed, /p' $(LAB_LOG).$$h | sed '$$d'; break; \
	    fi; \
	done; \
	gp=$${g%% passed*}; ep=$${e%% passed*}; gf=$$(echo "$${g:-0 passed, 1 failed}" | sed 's/.*, \([0-9]*\) failed/\1/'); \
	ef=$$(echo "$${e:-0 passed, 1 failed}" | sed 's/.*, \([0-9]*\) failed/\1/'); \
	echo "$$(( $${gp:-0} + $${ep:-0} )) passed, $$(( gf + ef )) failed"; \
	rm -f $(LAB_LOG).gpu $(LAB_LOG).emu $(LAB_LOG).gpu.rc $(LAB_LOG).emu.rc; \
	test $$gpu -eq 0 && test $$emu -eq 0
endif

# Every wrong fix in wrong/ must be rejected by the checker, and every right
# alternative in right/ passed. Each is a patch of sync.cu, NAME.patch (its
# first line its reason, /* wrong: ... */ or /* right: ... */, then a unified
# diff; scripts/apply-fix.sh), made into build/wrong/NAME.cu
# (build/right/NAME.cu) before it is checked, or a whole file, NAME.cu (its
# first line the reason). A wrong fix is checked with DEMO=all (everything
# sync.cu meets). A right alternative's next line may say /* demos:
# NAME... */, the demonstrations whose code its edit reaches, which are then
# those checked (the rest of the file is sync.cu's; DEMO=all where it names
# none). Each is built under its own name
# (build/wrong/NAME, build/emu/wrong/NAME), so that JOBS=N of them run at
# once; what they share (build/verify, the harness objects, warpsim) is
# built first. The TAP lines come out in order once all have run.
fixes_in = $(sort $(wildcard $(1)/*.patch $(1)/*.cu))
ifeq ($(origin WRONG),command line)
  ifneq ($(filter-out $(wildcard $(WRONG)),$(WRONG)),)
    $(error $(LESSON): WRONG=$(WRONG): no such file: $(filter-out $(wildcard $(WRONG)),$(WRONG)))
  endif
else
  WRONG := $(call fixes_in,wrong)
endif
ifeq ($(origin RIGHT),command line)
  ifneq ($(filter-out $(wildcard $(RIGHT)),$(RIGHT)),)
    $(error $(LESSON): RIGHT=$(RIGHT): no such file: $(filter-out $(wildcard $(RIGHT)),$(RIGHT)))
  endif
else
  RIGHT := $(call fixes_in,right)
endif
WRONG_LIMIT ?= 150
FIXES_SHARED := $(VERIFY) $(if $(HAVE_WS_CC),$(WS_DRIVER) $(WS_LIB)) \
                $(if $(HARNESS),$(if $(HAVE_NVCC),$(if $(filter gpu,$(CHECK_TARGET)),$(BUILD)/harness.o)) \
                                $(if $(HAVE_WS_CC),$(EMU_BUILD)/harness.o $(if $(WS_LOCALIZE),$(EMU_BUILD)/harness.keep)))
.PHONY: check-wrong-one check-right-one

# The file a patch stands for.
build/wrong/%.cu: wrong/%.patch sync.cu
	$(Q)$(TOP)/scripts/apply-fix.sh $< sync.cu $@
build/right/%.cu: right/%.patch sync.cu
	$(Q)$(TOP)/scripts/apply-fix.sh $< sync.cu $@

# $(call check_fixes,KIND,FILES): check-KIND-one on each of FILES, JOBS at
# a time; their TAP lines in order, then the tally ("N skipped" where some
# were).
check_fixes = out=$$(mktemp -d); trap 'rm -rf "$$out"' EXIT; \
	echo "1..$(words $(2))"; \
	n=0; for f in $(2); do n=$$((n + 1)); echo "$$n $$f"; done | \
	    xargs -P $(JOBS) -L 1 sh -c '$(MAKE) --no-print-directory -s check-$(1)-one FIX_N=$$1 FIX_FILE=$$2 >"$$0/$$1.tap" 2>&1' "$$out" || true; \
	bad=0 skip=0 n=0; for f in $(2); do n=$$((n + 1)); \
	    if [ -s "$$out/$$n.tap" ]; then cat "$$out/$$n.tap"; else echo "not ok $$n - $$f: no result"; fi; \
	    grep -q '^ok ' "$$out/$$n.tap" 2>/dev/null || bad=$$((bad + 1)); \
	    ! grep -q '^ok .* \# SKIP ' "$$out/$$n.tap" 2>/dev/null || skip=$$((skip + 1)); \
	done; \
	echo "$$((n - bad - skip)) passed, $$bad failed$$([ $$skip -eq 0 ] || echo ", $$skip skipped")"; \
	test $$bad -eq 0

check-wrong: $(FIXES_SHARED)
ifeq ($(WRONG),)
	@echo "skipped: $(LESSON) has no wrong fixes (wrong/*.patch)"
else
	+$(Q)$(call check_fixes,wrong,$(WRONG))
endif

check-right: $(FIXES_SHARED)
ifeq ($(RIGHT),)
	@echo "skipped: $(LESSON) has no right alternatives (right/*.patch, right/*.cu)"
else
	+$(Q)$(call check_fixes,right,$(RIGHT))
endif

# $(call fix_source,KIND): the shell words that set f (FIX_FILE), name, src
# (the file to check: a patch made into build/KIND/NAME.cu, or not ok and
# done when it does not apply) and what (its reason).
fix_source = n=$(FIX_N); f=$(FIX_FILE); name=$${f\#\#*/}; name=$${name%.*}; src=$$f; \
	what=$$(sed -n '1s:^/\* $(1)\: \(.*\) \*/$$:\1:p' "$$f"); \
	case "$$f" in *.patch) src=build/$(1)/$$name.cu; \
	    err=$$($(TOP)/scripts/apply-fix.sh "$$f" sync.cu "$$src" 2>&1) || { echo "not ok $$n - $$err"; exit 0; } ;; esac

# One wrong fix (FIX_FILE, number FIX_N): its TAP line and detail.
check-wrong-one:
	$(Q)$(call fix_source,wrong); log=$$(mktemp); trap 'rm -f "$$log"' EXIT; start=$$(date +%s); \
	CHECK_FIRST_FAIL=1 timeout -k 5 $(WRONG_LIMIT) $(MAKE) --no-print-directory -s check SRC=$$src MINE=wrong/$$name DEMO=all >"$$log" 2>&1; rc=$$?; \
	secs=$$(( $$(date +%s) - start )); \
	where=$$(grep -m 1 '^# locate: ' "$$log" | sed 's/^# locate: //'); \
	if [ $$rc -eq 0 ]; then echo "not ok $$n - $$f passed the checker ($${what:-no /* wrong: */ line})"; \
	elif [ $$rc -eq 124 ] || [ $$rc -eq 137 ]; then echo "not ok $$n - $$f: the check took over $(WRONG_LIMIT)s"; \
	elif [ -z "$$where" ]; then echo "not ok $$n - $$f rejected, but with no line that locates the problem (exit status $$rc)"; tail -n 5 "$$log" | sed 's/^/#   /'; \
	else echo "ok $$n - $$f rejected in $${secs}s ($$what)"; echo "# $$where"; fi

# One right alternative (FIX_FILE, number FIX_N): its TAP line and detail.
check-right-one:
	$(Q)$(call fix_source,right); log=$$(mktemp); trap 'rm -f "$$log"' EXIT; start=$$(date +%s); \
	demos=$$(sed -n '2,5{/^--- /q;s:^/\* demos\: \(.*\) \*/$$:\1:p;}' "$$f"); \
	CHECK_FIRST_FAIL=1 timeout -k 5 $(WRONG_LIMIT) $(MAKE) --no-print-directory -s check SRC=$$src MINE=right/$$name DEMO="$${demos:-all}" >"$$log" 2>&1; rc=$$?; \
	secs=$$(( $$(date +%s) - start )); \
	where=$$(grep -m 1 '^# locate: ' "$$log" | sed 's/^# locate: //'); \
	if [ $$rc -eq 0 ]; then echo "ok $$n - $$f passed on DEMO=\"$${demos:-all}\" in $${secs}s ($${what:-no /* right: */ line})"; \
	elif [ $$rc -eq 124 ] || [ $$rc -eq 137 ]; then echo "not ok $$n - $$f: the check took over $(WRONG_LIMIT)s"; \
	else echo "not ok $$n - $$f rejected (exit status $$rc)$${where:+: $$where}"; tail -n 8 "$$log" | sed 's/^/#   /'; fi

# `make run` runs where `make check` does: on warpsim with EMU=1 or without
# a GPU. RUN_ARGS are sized for a GPU: on warpsim their -n becomes 64K,
# which keeps the run to a second or so; ARGS=... overrides both. A program
# that rejects its arguments (exit 2) fails `make run`; a wrong result
# (legacy code) does not.
RUN_EMU := $(filter emu,$(CHECK_TARGET))
RUN_DIR := $(if $(RUN_EMU),$(EMU_BUILD),$(BUILD))
RUN_ARGS_EMU = $(strip $(shell printf ' %s ' '$(RUN_ARGS)' | sed 's/ -n [^ ]*/ /g') -n 64K)
RUN_LINE = $(or $(ARGS),$(if $(RUN_EMU),$(RUN_ARGS_EMU),$(RUN_ARGS)))
run: $(RUN_DIR)/sync $(RUN_DIR)/legacy $(if $(RUN_EMU),$(WS_DRIVER))
	@rc=0; for p in $(RUN_DIR)/legacy $(RUN_DIR)/sync; do \
	    echo "\$$ $$p $(RUN_LINE)"; s=0; $$p $(RUN_LINE) || s=$$?; echo; \
	    [ $$s -ne 2 ] || rc=2; \
	done; exit $$rc

# Without a GPU nothing is built: the benchmark script says it needs one.
bench: $(if $(GPU_CC),$(GPU_BINS))
ifneq ($(PRE_VOLTA_BUILD),)
	@echo "$(LESSON): the benchmarks need compute capability 7.0 or newer ($(ARCH_WHAT) asked for)"
else ifneq ($(BENCH),)
	$(Q)$(BENCH)
else
	@echo "$(LESSON): no benchmark in this lesson"
endif

# The pre-Volta code paths for real: compute_60 PTX from CUDA 11.8 or 12.x,
# checked on this machine's GPU when there is one.
pascal:
ifeq ($(GPU_CC),)
	$(Q)$(MAKE) --no-print-directory PASCAL=1 all
	@if [ -x build/pascal/sync ]; then \
	    echo "$(LESSON): compute_60 programs in build/pascal/; no GPU here to run them ('make pascal' on a GPU machine checks them)"; \
	else exit 2; fi
else
	$(Q)$(MAKE) --no-print-directory PASCAL=1 check
endif

clean:
	rm -rf build

help:
	@echo "$(LESSON): make [target] [SM=90] [EMU=1] [SRC=mine.cu] [ARGS=...] [V=1]"
	@echo "  all     build $(PROGRAMS) $(GPU_ONLY) into $(BUILD)/"
	@echo "          $(if $(HAVE_NVCC),with CUDA $(NVCC_VERSION) for $(ARCH_WHAT),(no nvcc found))$(if $(ARCH_ERROR),: $(ARCH_ERROR))"
	@echo "  emu     build $(PROGRAMS) $(EMU_TOO) for warpsim, the CPU emulator, into $(EMU_BUILD)/"
	@echo "  check   run the checker: $(if $(filter gpu,$(CHECK_TARGET)),on the GPU,$(if $(filter emu,$(CHECK_TARGET)),on warpsim (no GPU here or EMU=1),skipped here: $(CHECK_WHY)))"
	@echo "          SRC=mine.cu checks your own file against the sync expectations,"
	@echo "          on the exercise's parts$(if $(EXERCISE_PARTS), ($(EXERCISE_PARTS)))"
	@echo "          unless DEMO= names others (DEMO=all: every one)"
	@echo "  check-wrong  check every wrong fix in wrong/ (a patch of sync.cu each):"
	@echo "          each must be rejected; JOBS=N checks N at once, each built as"
	@echo "          build/wrong/NAME; WRONG=\"wrong/a.patch ...\" checks only those;"
	@echo "          make check SRC=wrong/NAME.patch shows one in full"
	@echo "  check-right  check every right alternative in right/: each must pass"
	@echo "          (JOBS=, RIGHT=\"right/a.patch ...\" as for check-wrong)"
	@echo "  run     run legacy and sync with ARGS (default: $(RUN_ARGS));"
	@echo "          on warpsim with EMU=1 or without a GPU (default: $(RUN_ARGS_EMU))"
	@echo "  bench   run the lesson's benchmark, if it has one"
	@echo "  pascal  build compute_60 PTX with CUDA 11.8 or 12.x into build/pascal/ and,"
	@echo "          with a GPU, check it: the pre-Volta paths, JIT-compiled by the driver"
	@echo "  clean   remove build/ (every build: GPU, warpsim and build/pascal/)"

.PHONY: FORCE
FORCE:
