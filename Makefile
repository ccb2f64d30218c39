# Top-level Makefile: the same targets for every lesson, and the repository's
# tests. `make help` lists them.

LESSONS := $(sort $(patsubst %/Makefile,%,$(wildcard lessons/[0-9][0-9]-*/Makefile)))

.PHONY: all check check-wrong test bench pascal compat docs grade classroom gradescope doctor clean help $(LESSONS)
.DEFAULT_GOAL := all

# Build every lesson that can be built here; go on past failures, then fail.
all:
	@scripts/each-lesson.sh all $(LESSONS)

# Check every lesson (on the GPU if there is one, else on warpsim, the CPU
# emulator), collecting failures: a skip is not a failure.
check:
	@scripts/each-lesson.sh check $(LESSONS)

# Every lesson's wrong fixes (lessons/*/wrong/*.cu) through its checker:
# one TAP line each, ok when the checker rejected it.
check-wrong:
	@scripts/each-lesson.sh check-wrong $(LESSONS)

# With a GPU, every lesson's benchmark (CSV and plots in docs/results/<gpu>/)
# and a summary table; warpsim's throughput always. Never run by `make test`.
bench:
	@scripts/bench-all.sh $(LESSONS)

# The pre-Volta code paths for real: every lesson as compute_60 PTX, built
# with CUDA 11.8 or 12.x (scripts/get-cuda-11.8.sh installs 11.8) into
# lessons/*/build/pascal/, and checked on the GPU when there is one: the
# driver JIT-compiles the PTX with __CUDA_ARCH__ 600.
pascal:
	@scripts/each-lesson.sh pascal $(LESSONS)

# Every lesson built with CUDA 11.8 (sm_60 + compute_60 PTX) and CUDA 13
# (every major architecture), one line per lesson and toolkit; the record is
# docs/results/compat.txt. Heavy: not part of `make test`.
compat:
	@scripts/compat.sh $(LESSONS)

# The repository's tests (bats). Installs bats and friends when missing.
# JUNIT=dir also writes dir/report.xml (JUnit XML). TESTS=FILE.bats runs
# some of them. scripts/test-prep.sh first builds what the files share;
# then the files run side by side, TEST_JOBS at a time (default: one more
# than the cores, so that a file that waits on a timeout leaves no core
# idle; GNU parallel), each file's tests in order. The TAP output ends with
# one line, "N passed, N failed" (", N skipped" when some were), counted
# from the TAP lines; the exit status is bats's. The longest files start
# first (TEST_FIRST), so that the last ones to start are short. The tests'
# makes get none of this make's flags (MAKEFLAGS=): under make -j test they
# would find a jobserver they cannot reach.
TEST_FIRST := tests/lessons.bats tests/checker.bats tests/docs.bats tests/browser.bats \
              tests/warpsim-portable.bats tests/warpsim.bats tests/lessons-own.bats \
              tests/lab.bats tests/labkit.bats tests/toolkit.bats tests/warpsim-corpus.bats
TEST_FILES := $(wildcard tests/*.bats)
TESTS ?= $(filter $(TEST_FILES),$(TEST_FIRST)) $(filter-out $(TEST_FIRST),$(sort $(TEST_FILES)))
TEST_JOBS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
test:
	@scripts/need-tools.sh test
	@MAKEFLAGS= TEST_JOBS=$(TEST_JOBS) TESTS="$(TESTS)" scripts/test-prep.sh
	@$(if $(JUNIT),mkdir -p $(JUNIT) &&) rc=$$(mktemp); \
	{ MAKEFLAGS= PARALLEL=--will-cite bats --formatter tap \
	    $(if $(filter-out 0 1,$(TEST_JOBS)),--jobs $(TEST_JOBS) --no-parallelize-within-files) \
	    $(if $(JUNIT),--report-formatter junit --output $(JUNIT)) \
	    $(BATS_FLAGS) $(TESTS); echo $$? >"$$rc"; } | awk ' \
	    { print; fflush() } \
	    /^ok [0-9]+ .*# [Ss][Kk][Ii][Pp]/ { s++; next } \
	    /^ok [0-9]+/ { p++; next } \
	    /^not ok [0-9]+/ { f++ } \
	    END { printf "%d passed, %d failed%s\n", p, f, (s ? sprintf(", %d skipped", s) : "") }'; \
	status=$$(cat "$$rc"); rm -f "$$rc"; exit $${status:-1}

# The site and the handouts, in docs/_build/. Installs Pandoc and WeasyPrint
# when missing.
docs:
	@scripts/need-tools.sh docs
	@docs/build.sh

# Lab grading (scripts/grade.py), each lesson on the parts of its exercise
# (lessons/*/exercise.mk): lessons/*/$(GRADE_FILE) (default mine.cu) of
# this tree, or with SUBMISSIONS=dir a class, one folder per student, into
# one table and $(CSV) (default grades.csv). LESSONS="01 06" grades those.
# JUNIT=dir also writes dir/results.json (Gradescope) and dir/grade.xml.
grade:
	@$(if $(SUBMISSIONS),python3 scripts/grade.py --submissions '$(SUBMISSIONS)'$(if $(CSV), --csv '$(CSV)')$(if \
	    $(GRADE_LOGS), --logs '$(GRADE_LOGS)'),scripts/grade.sh$(if $(JUNIT), --report '$(JUNIT)')) $(LESSONS)

# The lab kits (scripts/labkit.py): a GitHub Classroom template repository
# in DEST (a new folder), a Gradescope autograder in DEST (a .zip), for
# LESSONS (default: all).
classroom gradescope:
	@$(if $(DEST),python3 scripts/labkit.py $@ '$(DEST)' $(LESSONS),echo "make $@: DEST=... names the $(if $(filter classroom,$@),folder,zip file) to write" >&2; exit 2)

# What this machine can do, and the next step for each gap.
doctor:
	@scripts/doctor.sh

clean:
	@for d in $(LESSONS); do $(MAKE) --no-print-directory -C $$d clean; done
	@$(MAKE) --no-print-directory -C warpsim clean

help:
	@echo "make [target] [SM=90] [EMU=1] [PASCAL=1] [NVCC=path] [V=1]"
	@echo "  all     build every lesson's programs (into lessons/*/build/)"
	@echo "  check   run every lesson's checker: on the GPU if one is found, else on"
	@echo "          warpsim, the CPU emulator (EMU=1: on warpsim anyway);"
	@echo "          prints one summary line per lesson; a skip is not a failure"
	@echo "  test    run the repository's tests (tests/*.bats); installs bats if needed;"
	@echo "          JUNIT=dir also writes dir/report.xml"
	@echo "  bench   with a GPU, every lesson's benchmark and a summary; warpsim's throughput always"
	@echo "  pascal  build every lesson as compute_60 PTX with CUDA 11.8 or 12.x and, with a"
	@echo "          GPU, check it: the pre-Volta code paths, JIT-compiled by the driver"
	@echo "  compat  build every lesson with CUDA 11.8 and CUDA 13, one line per lesson and"
	@echo "          toolkit, recorded in docs/results/compat.txt (slow)"
	@echo "  docs    build the site and the PDF handouts into docs/_build/"
	@echo "  check-wrong  run every lesson's wrong fixes (wrong/*.cu) through its checker:"
	@echo "          each must be rejected"
	@echo "  grade   lab grading, each lesson on its exercise's parts: lessons/*/mine.cu"
	@echo "          (GRADE_FILE=...), Score X/Y; LESSONS=\"01 06\" grades those;"
	@echo "          JUNIT=dir also writes dir/results.json (Gradescope) and dir/grade.xml;"
	@echo "          SUBMISSIONS=dir grades a class (a folder per student) into grades.csv (CSV=...)"
	@echo "  classroom  DEST=dir [LESSONS=\"01 06\"]: a GitHub Classroom template repository"
	@echo "  gradescope DEST=file.zip [LESSONS=...]: a Gradescope autograder"
	@echo "  doctor  what this machine has and what each target will do here"
	@echo "  clean   remove every lesson's build/"
	@echo "  help    this text"
	@echo "one lesson: make -C lessons/01-shfl-reduction check (see its README.md)"
	@echo "your own fix: make -C lessons/01-shfl-reduction check SRC=path/to/mine.cu"
	@echo "lessons: $(notdir $(LESSONS))"
