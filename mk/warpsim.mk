# mk/warpsim.mk - how a lesson source is built for warpsim, the CPU emulator
# (included by mk/lesson.mk and by warpsim/Makefile; TOP must be set).
#
# The lesson file is compiled as C (gnu11) with WARPSIM defined, so that
# include/lesson.h takes warpsim/include/warpsim.h instead of the CUDA
# runtime, and with -fsanitize=thread, so that every memory access calls a
# hook. It is then linked, in a separate step without -fsanitize=thread,
# against libwarpsim.a, which implements those hooks, instead of libtsan.
# The program's main becomes ws_main; warpsim's main runs it and prints the
# summary.
#
# The lockstep model needs code laid out in source order (a then-block
# before its else-block, a loop body before the loop exit): no block
# reordering, no jump threading or cross-jumping, which duplicate or move
# statements.
#
#   WS_CC          the C compiler (gcc 12 or newer, for
#                  --param tsan-distinguish-volatile)
#   WS_FLAGS       extra flags for lesson files (e.g. -O0)
#   WS_DEPS        what a warpsim program depends on
#   $(call ws_build,SOURCE,OUTPUT[,EXTRA FLAGS])   the recipe

WS_DIR := $(TOP)/warpsim
WS_LIB := $(WS_DIR)/build/libwarpsim.a
WS_DRIVER := $(WS_DIR)/build/warpsim
WS_CC ?= gcc
WS_FLAGS ?=
WS_PROG_FLAGS := -std=gnu11 -DWARPSIM -Dmain=ws_main -I$(TOP)/include \
                 -I$(WS_DIR)/include -g -O1 -fno-reorder-blocks \
                 -fno-reorder-blocks-and-partition -fno-thread-jumps \
                 -fno-crossjumping -fsanitize=thread \
                 --param tsan-distinguish-volatile=1 -Wall -Wextra
WS_DEPS = $(WS_LIB) $(WS_DIR)/include/warpsim.h $(TOP)/include/lesson.h
ws_build = $(WS_CC) $(WS_PROG_FLAGS) $(WS_FLAGS) $(3) -x c -c $(1) -o $(2).o && \
           $(WS_CC) $(2).o $(WS_LIB) -lm -o $(2) && rm -f $(2).o
