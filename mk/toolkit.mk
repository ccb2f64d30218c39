# mk/toolkit.mk - which CUDA toolkit builds the lessons, for which GPUs, and
# the flags that go with its version. Included by mk/lesson.mk.
#
# Supported: CUDA 11.8 (the oldest; Debian 12 packages it), 12.x and 13.x
# (13 no longer builds for compute capability 6.0 nor has the mask-less
# legacy primitives); GPUs of compute capability 6.0 and newer.
#
# What a user may set:
#   NVCC=/path/to/nvcc  the toolkit (default: nvcc in PATH)
#   SM=75               build for this compute capability only
#   PASCAL=1            compute_60 PTX into build/pascal/, with CUDA 11.8 or
#                       12.x: the pre-Volta code paths, which the driver
#                       JIT-compiles on any newer GPU (see `make pascal`)
#   GENCODE="..."       the -gencode flags, instead of the ones chosen here
#   CCBIN=clang++-14    the host compiler (default: chosen by version)
#
# It sets NVCC_VERSION ("13.0"), LINEINFO, ARCH_FLAGS, ARCH_FLAGS_70 (the same GPUs
# from compute capability 7.0 on, for programs that need it, such as the
# benchmarks; empty when only older GPUs are asked for), HOST_FLAGS,
# TOOLS_PATH (put first in PATH when nvcc runs), ARCH_WHAT (for messages)
# and ARCH_ERROR, one line saying why this toolkit cannot build what was
# asked, or nothing.

LESSON_MIN_SM := 60
# Where CUDA 11.8 is looked for by PASCAL=1 when nvcc in PATH is 13 or newer:
# Debian 12's nvidia-cuda-toolkit (scripts/get-cuda-11.8.sh), NVIDIA's own.
OLD_NVCCS := /usr/lib/nvidia-cuda-toolkit/bin/nvcc /usr/local/cuda-11.8/bin/nvcc \
             $(sort $(wildcard /usr/local/cuda-12.*/bin/nvcc))

comma := ,
space := $(subst ,, )
# which_cmd NAME (mk/warpsim.mk): the path of the command NAME, or nothing.
NVCC ?= nvcc
# the release ("13.0") from nvcc --version on the input
nvcc_release = sed -n 's/.*release \([0-9][0-9]*\.[0-9][0-9]*\),.*/\1/p'
nvcc_version = $(shell $(1) --version 2>/dev/null | $(nvcc_release))
major_of = $(firstword $(subst ., ,$(1)))

ifeq ($(PASCAL),1)
  ifeq ($(filter 11 12,$(call major_of,$(call nvcc_version,$(NVCC)))),)
    ifeq ($(filter command line environment,$(origin NVCC)),)
      # None here: programs already in build/pascal/ are used as they are.
      NVCC := $(or $(firstword $(wildcard $(OLD_NVCCS))),no-cuda-11.8-or-12.x)
    endif
  endif
endif

HAVE_NVCC := $(call which_cmd,$(NVCC))
# What the toolkit says of itself: NVCC_VERSION ("13.0"), NVCC_ARCHS (the
# compute capabilities it builds for, "60 61 ... 90", lowest first) and
# SPLIT_COMPILE (--split-compile=0 where it has that option; see below).
# Asked once for each nvcc and kept in $(BUILD)/.toolkit_PATH.mk, asked
# again when that nvcc (or this file) is newer than what was kept: each
# make in a lesson would otherwise ask it three times more.
NVCC_VERSION :=
NVCC_ARCHS :=
SPLIT_COMPILE :=
ifneq ($(HAVE_NVCC),)
  NVCC_PROBE := $(BUILD)/.toolkit$(subst /,_,$(HAVE_NVCC)).mk
  $(shell test '$(NVCC_PROBE)' -nt '$(HAVE_NVCC)' && test '$(NVCC_PROBE)' -nt '$(TOP)/mk/toolkit.mk' || { \
    mkdir -p '$(dir $(NVCC_PROBE))' && { \
      printf 'NVCC_VERSION := %s\n' "$$('$(HAVE_NVCC)' --version 2>/dev/null | $(nvcc_release))"; \
      printf 'NVCC_ARCHS := %s\n' "$$('$(HAVE_NVCC)' --list-gpu-arch 2>/dev/null \
        | sed -n 's/^compute_\([0-9][0-9]*\)$$/\1/p' | sort -n | tr '\n' ' ')"; \
      printf 'SPLIT_COMPILE := %s\n' "$$('$(HAVE_NVCC)' --help 2>/dev/null \
        | grep -q -- '--split-compile ' && echo --split-compile=0)"; \
    } >'$(NVCC_PROBE)'.$$$$ && mv -f '$(NVCC_PROBE)'.$$$$ '$(NVCC_PROBE)'; })
  -include $(NVCC_PROBE)
endif
NVCC_MAJOR := $(call major_of,$(NVCC_VERSION))
NVCC_MINOR := $(word 2,$(subst ., ,$(NVCC_VERSION)))
# 60 -> 6.0, 100 -> 10.0
cc_text = $(shell echo '$(1)' | sed 's/^\(.*\)\(.\)$$/\1.\2/')
# ge A B: y when A >= B, both whole numbers (digits only), else nothing;
# as `test A -ge B`, without a shell: the longer number is the greater,
# and of two as long, the one sort puts last.
digits = $(strip $(subst 0,0 ,$(subst 1,1 ,$(subst 2,2 ,$(subst 3,3 ,$(subst 4,4 ,$(subst \
           5,5 ,$(subst 6,6 ,$(subst 7,7 ,$(subst 8,8 ,$(subst 9,9 ,$(1))))))))))))
whole = $(if $(filter-out 0 1 2 3 4 5 6 7 8 9,$(call digits,$(1))),,$(if $(strip $(1)),y))
unpad = $(if $(filter 0,$(firstword $(call digits,$(1)))),$(if $(word 2,$(call digits,$(1))),$(call \
          unpad,$(patsubst 0%,%,$(1))),0),$(1))
ge = $(if $(and $(call whole,$(1)),$(call whole,$(2))),$(call ge_,$(call unpad,$(1)),$(call unpad,$(2))))
ge_ = $(if $(filter $(words $(call digits,$(1))),$(words $(call digits,$(2)))),$(if $(filter \
        $(2),$(firstword $(sort $(1) $(2)))),y),$(if $(word $(words $(call digits,$(1))),$(call \
        digits,$(2))),,y))

ARCH_ERROR :=
ifneq ($(HAVE_NVCC),)
  ifeq ($(NVCC_VERSION),)
    ARCH_ERROR := $(NVCC) --version does not say which CUDA release it is
  else ifeq ($(call ge,$(NVCC_MAJOR)$(if $(word 2,$(call digits,$(NVCC_MINOR))),,0)$(NVCC_MINOR),1108),)
    ARCH_ERROR := CUDA $(NVCC_VERSION) is older than 11.8, the oldest toolkit these lessons support
  endif
endif

# ---- which GPUs ------------------------------------------------------------
gencodes = $(foreach a,$(1),-gencode arch=compute_$(a),code=sm_$(a)) \
           -gencode arch=compute_$(lastword $(1)),code=compute_$(lastword $(1))
ifneq ($(GENCODE),)
  ARCH_FLAGS := $(GENCODE)
  # The newest compute capability GENCODE names ("-arch=all-major" names none):
  # below 7.0, the programs that need 7.0 are left out, as with SM=60.
  GENCODE_MAX := $(lastword $(shell echo '$(GENCODE)' | grep -oE '(compute|sm)_[0-9]+' \
                   | sed 's/.*_//' | sort -n))
  ARCH_FLAGS_70 := $(if $(GENCODE_MAX),$(if $(call ge,$(GENCODE_MAX),70),$(GENCODE)),$(GENCODE))
  ARCH_WHAT := $(GENCODE)
else ifeq ($(PASCAL),1)
  ARCH_FLAGS := -gencode arch=compute_60,code=compute_60
  ARCH_FLAGS_70 :=
  ARCH_WHAT := compute_60 PTX
  ASKED_SM := 60
else ifneq ($(SM),)
  ARCH_FLAGS := -arch=sm_$(SM)
  ARCH_FLAGS_70 := $(if $(call ge,$(SM),70),-arch=sm_$(SM))
  ARCH_WHAT := compute capability $(call cc_text,$(SM))
  ASKED_SM := $(SM)
else ifneq ($(GPU_SEEN),)
  # A GPU whose driver does not say its compute capability.
  ifneq ($(call ge,$(NVCC_MAJOR),12),)
    ARCH_FLAGS := -arch=native
    ARCH_FLAGS_70 := -arch=native
    ARCH_WHAT := this machine's GPU (-arch=native)
  else
    ARCH_FLAGS := -arch=sm_$(LESSON_MIN_SM)
    ARCH_FLAGS_70 :=
    ARCH_WHAT := compute capability 6.0 (give SM=.. for your GPU)
  endif
else ifneq ($(call ge,$(NVCC_MAJOR),13),)
  ARCH_FLAGS := -arch=all-major
  ARCH_FLAGS_70 := -arch=all-major
  ARCH_WHAT := every major architecture
else
  # CUDA 11.8 and 12.x: all-major would include GPUs older than 6.0.
  MAJOR_SMS := $(strip $(foreach a,$(NVCC_ARCHS),$(if $(call ge,$(a),$(LESSON_MIN_SM)),$(if $(filter %0,$(a)),$(a)))))
  ARCH_FLAGS := $(call gencodes,$(MAJOR_SMS))
  ARCH_FLAGS_70 := $(call gencodes,$(foreach a,$(MAJOR_SMS),$(if $(call ge,$(a),70),$(a))))
  ARCH_WHAT := compute capability $(foreach a,$(MAJOR_SMS),$(call cc_text,$(a)))
endif

ifneq ($(ASKED_SM),)
  ifeq ($(shell echo '$(ASKED_SM)' | grep -xE '[0-9]{2,3}'),)
    ARCH_ERROR := SM=$(ASKED_SM): give a compute capability as digits, e.g. SM=90 for 9.0
  else ifeq ($(call ge,$(ASKED_SM),$(LESSON_MIN_SM)),)
    ARCH_ERROR := the lessons need compute capability 6.0 or newer (asked for $(call cc_text,$(ASKED_SM)))
  else ifneq ($(HAVE_NVCC),)
    ifeq ($(ARCH_ERROR)$(filter $(ASKED_SM),$(NVCC_ARCHS)),)
      ifeq ($(call ge,$(ASKED_SM),$(firstword $(NVCC_ARCHS))),)
        ARCH_ERROR := CUDA $(NVCC_VERSION) cannot build for compute capability $(call cc_text,$(ASKED_SM)); use CUDA 11.8-12.x, or 'make pascal' (scripts/get-cuda-11.8.sh installs CUDA 11.8)
      else
        ARCH_ERROR := CUDA $(NVCC_VERSION) cannot build for compute capability $(call cc_text,$(ASKED_SM)); use a newer CUDA toolkit
      endif
    endif
  endif
endif

# CUDA 11.8 crashes (a segmentation fault) compiling lesson 06 for sm_90
# with -lineinfo; without it, it builds. Line numbers in compute-sanitizer's
# reports are what -lineinfo buys, so only that case goes without them.
LINEINFO := -lineinfo
ifeq ($(NVCC_MAJOR),11)
  ifneq ($(findstring _90,$(ARCH_FLAGS)),)
    LINEINFO :=
  endif
endif

# ---- the host compiler -----------------------------------------------------
# CUDA 11.8 accepts gcc up to 11 and clang up to 14; Debian 12 has gcc 12.
ifeq ($(NVCC_MAJOR),11)
  GCC_MAJOR := $(call major_of,$(shell gcc -dumpfullversion 2>/dev/null))
  ifneq ($(call ge,$(GCC_MAJOR),12),)
    CCBIN ?= $(if $(call which_cmd,clang++-14),clang++-14)
    ifeq ($(CCBIN)$(ARCH_ERROR),)
      ARCH_ERROR := CUDA $(NVCC_VERSION) refuses gcc $(GCC_MAJOR); install clang-14 (apt-get install clang-14) or give CCBIN=g++-11
    endif
  endif
endif
HOST_FLAGS := $(if $(CCBIN),-ccbin $(CCBIN))
# Toolkits that can spread one file's device optimizations over the cores
# (--split-compile; "minimal (if any) impact" on the code, says nvcc --help)
# do: lesson 06 from a clean folder built in 14.0-15.6 s instead of
# 15.8-17.9 s (H100 host, 16 CPUs), its benchmark being the longest file.
HOST_FLAGS += $(SPLIT_COMPILE)
# Below compute capability 7.0 the legacy lessons call the mask-less
# primitives on purpose; CUDA 11.8 and 12.x would warn at each call.
HOST_FLAGS += $(if $(filter 11 12,$(NVCC_MAJOR)),-Wno-deprecated-declarations)
ifneq ($(findstring clang,$(CCBIN)),)
  # nvcc's preprocessed file looks like one big main file to clang.
  HOST_FLAGS += -Xcompiler -Wno-unused-function,-Wno-unused-command-line-argument
endif

# Some machines link one toolkit's headers into /usr/local/include, which
# the host compiler searches before the toolkit's own: another toolkit's
# build then leaves that directory out of the search.
SHADOW_CUDART := $(if $(wildcard /usr/local/include/cuda_runtime_api.h),$(shell \
                   sed -n 's/^\#define CUDART_VERSION *\([0-9]*\)$$/\1/p' \
                   /usr/local/include/cuda_runtime_api.h 2>/dev/null))
ifneq ($(SHADOW_CUDART),)
  ifneq ($(shell expr $(SHADOW_CUDART) / 1000 2>/dev/null),$(NVCC_MAJOR))
    HOST_DIRS := $(shell $(or $(CCBIN),g++) -E -v -x c++ /dev/null 2>&1 \
                   | sed -n '/^\#include <...> search starts here/,/^End of search/p' \
                   | sed -n 's/^ \(\/.*\)$$/\1/p' | grep -vx /usr/local/include)
    HOST_FLAGS += -Xcompiler -nostdinc,-isystem,$(subst $(space),$(comma)-isystem$(comma),$(strip $(HOST_DIRS)))
  endif
endif

# Debian's CUDA 11.8 keeps ptxas and nvlink in /usr/bin: put them before
# any newer toolkit's in PATH, which would refuse compute_60.
NVCC_DIR := $(patsubst %/,%,$(dir $(HAVE_NVCC)))
TOOLS_PATH := $(if $(HAVE_NVCC),$(if $(wildcard $(NVCC_DIR)/ptxas),$(NVCC_DIR),$(NVCC_DIR):/usr/bin))
