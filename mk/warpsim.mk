# mk/warpsim.mk - how a lesson source is built for warpsim, the CPU emulator
# (included by mk/lesson.mk and by warpsim/Makefile; TOP must be set).
#
# The lesson file is compiled as C++17 (gnu++17, by WS_CXX: g++ or
# clang++) with WARPSIM defined, so that include/lesson.h takes
# warpsim/include/warpsim.h, CUDA's device API in C++, instead of the CUDA
# runtime, and with -fsanitize=thread, so that every memory access calls a
# hook. Its __shared__ variables, each marked `retain` in a section of its
# own (-fdata-sections), are then moved into the section ws_shared by
# renaming those sections with objcopy (warpsim.h says why: g++ ignores a
# section attribute in a function template). It is linked, in a separate
# step without -fsanitize=thread, against libwarpsim.a, which implements
# those hooks, instead of libtsan. The program's main becomes ws_main;
# warpsim's main runs it and prints the summary. gcc and clang both work
# (`make check CC=clang`, or WS_CC=clang): WS_CXX follows WS_CC. warpsim's
# own sources are C11, built by WS_CC.
#
# -gdwarf-4: with g++ 12's DWARF 5, binutils 2.40's addr2line names the
# file of an out-of-line copy of lesson.h's inline functions wrongly (the
# including .cu, with lesson.h's line numbers).
#
# -fno-exceptions: CUDA device code has none, and without them the
# instrumented functions need no unwinding paths (and the program no
# libstdc++, which --as-needed then leaves out).
#
# -O0, for two reasons. Every access the source makes must reach the race
# detector: at -O1 the compilers delete stores to shared arrays that
# nothing reads and loads whose value is unused, before the instrumentation
# sees them. And the lockstep model needs code laid out in source order (a
# then-block before its else-block, a loop body before the loop exit),
# which is what both compilers emit at -O0 and no longer promise once they
# optimize (block reordering, jump threading, cross-jumping). It costs no
# measurable throughput: the time goes to warpsim, which is built with -O3.
#
#   WS_CC          the C compiler of warpsim's library: $(CC) (make's
#                  default cc, or CC=clang on the command line), gcc 12 or
#                  newer or clang 14 or newer
#   WS_CXX         the C++ compiler of lesson files: the one that goes with
#                  WS_CC (g++ for gcc, clang++ for clang, c++ for cc,
#                  aarch64-linux-gnu-g++ for aarch64-linux-gnu-gcc)
#   WS_OBJCOPY     objcopy for WS_CC's objects (a cross compiler's own)
#   WS_FLAGS       extra flags for lesson files
#   WS_B           warpsim's build folder, relative to warpsim/ (build; a
#                  cross build uses its own)
#   WS_DEPS        what a warpsim program depends on
#   $(call ws_build,SOURCE,OUTPUT[,EXTRA FLAGS])      one source, one program
#   $(call ws_compile,SOURCE,OBJECT[,EXTRA FLAGS])    one translation unit
#   $(call ws_link,OBJECTS,OUTPUT)                    link against libwarpsim.a
#                                                     (shared_head.o first)

WS_DIR := $(TOP)/warpsim
WS_B ?= build
WS_LIB = $(WS_DIR)/$(WS_B)/libwarpsim.a
WS_DRIVER = $(WS_DIR)/$(WS_B)/warpsim
WS_CC ?= $(CC)
# which_cmd NAME: the path of the command NAME (in PATH, or NAME itself when
# it names a file), or nothing; as `command -v`, without a shell. (Here, as
# the first file mk/lesson.mk includes, for mk/lesson.mk and mk/toolkit.mk
# too.)
which_cmd = $(if $(findstring /,$(1)),$(wildcard $(1)),$(firstword $(wildcard $(addsuffix /$(1),$(subst :, ,$(PATH))))))
# (cc's C++ twin is c++ where the system names one, else g++: a system with
# gcc and g++ installed need not have the c++ name, as Ubuntu 24.04 images)
# (the name alone is changed: CC=/opt/gcc/bin/gcc has /opt/gcc/bin/g++)
ws_cxx_of = $(if $(findstring /,$(1)),$(dir $(1)))$(subst clang,clang++,$(subst gcc,g++,$(notdir $(1))))
WS_CXX ?= $(if $(findstring ++,$(WS_CC)),$(WS_CC),$(if $(filter cc %/cc,$(WS_CC)),$(if $(call which_cmd,c++),$(WS_CC:cc=c++),$(WS_CC:cc=g++)),$(call ws_cxx_of,$(WS_CC))))
WS_OBJCOPY ?= $(patsubst %gcc,%,$(filter %-gcc,$(notdir $(WS_CC))))objcopy
WS_FLAGS ?=
# gcc's and clang's spelling of "volatile accesses call their own hooks";
# clang also drops the hook of a read that a write to the same place
# follows (s[i] += 1 would be a write only, and an uninitialized read
# would go unseen) unless told to keep it. An integer division by zero
# traps on x86-64 and gives 0 on arm64: -fsanitize=integer-divide-by-zero
# checks the divisor, and warpsim's hook (src/tsan.c) reports it.
# (asked once: a make that knows it passes it to the makes it starts)
ifneq ($(WS_CC_KNOWN),$(WS_CC))
  WS_CC_IS_CLANG := $(findstring clang,$(shell $(WS_CC) --version 2>/dev/null | head -n 1))
  WS_CC_KNOWN := $(WS_CC)
endif
export WS_CC_KNOWN WS_CC_IS_CLANG
WS_TSAN_FLAGS := $(if $(WS_CC_IS_CLANG),-mllvm -tsan-distinguish-volatile=1 \
                   -mllvm -tsan-instrument-read-before-write=1,--param tsan-distinguish-volatile=1)
WS_PROG_FLAGS := -std=gnu++17 -DWARPSIM -Dmain=ws_main -I$(TOP)/include \
                 -I$(WS_DIR)/include -gdwarf-4 -O0 -fsanitize=thread $(WS_TSAN_FLAGS) \
                 -fsanitize=integer-divide-by-zero -fdata-sections -fno-exceptions \
                 -Wall -Wextra
WS_HEADERS = $(addprefix $(WS_DIR)/include/,warpsim.h warpsim_device.h cooperative_groups.h \
               cooperative_groups/reduce.h cooperative_groups/scan.h)
WS_DEPS = $(WS_LIB) $(WS_HEADERS) $(TOP)/include/lesson.h
# The sections that hold __shared__ variables (flag R, retain; .bss or
# .data) become ws_shared.
ws_shared_sections = $(WS_OBJCOPY) $$(readelf -SW $(1) | sed -n 's/^ *\[ *[0-9]*\] //p' | \
    awk '$$7 ~ /R/ && $$1 ~ /^\.(bss|data)\./ { printf " --rename-section %s=ws_shared,alloc,load,contents,data", $$1 }') $(1)
ws_compile = { $(WS_CXX) $(WS_PROG_FLAGS) $(WS_FLAGS) $(3) -x c++ -c $(1) -o $(2) || \
    { $(call ws_why_not,$(1)); false; }; } && $(call ws_shared_sections,$(2))
# ws_why_not SOURCE: after a failed compile, one line more where the cause
# is a thing warpsim does not have rather than the code: dynamic shared
# memory (`extern __shared__`, which warpsim's static __shared__ makes a
# "conflicting specifiers" error).
ws_why_not = awk -v f=$(1) '/^[^\/]*extern[ \t]+__shared__/ { printf "%s:%d: warpsim has no dynamic shared memory (extern __shared__): give the array a constant size, as __shared__ int s[256];\n", f, FNR; exit }' $(1) >&2
# shared_head.o (built with the library) comes before the program's objects:
# its red zone is then the start of the section ws_shared, and s[-1] on the
# first __shared__ array lands in it.
WS_HEAD = $(WS_DIR)/$(WS_B)/shared_head.o
# (--as-needed: a program that uses nothing of libstdc++, as the lessons'
# do not, does not load it: a start 1 M instructions shorter.)
ws_link = $(WS_CXX) -Wl,--as-needed $(WS_HEAD) $(1) $(WS_LIB) -lm -o $(2)
ws_build = $(call ws_compile,$(1),$(2).o,$(3)) && $(call ws_link,$(2).o,$(2)) && rm -f $(2).o
