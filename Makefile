# Top-level Makefile: the same targets for every lesson, and the repository's
# tests. `make help` lists them.

LESSONS := $(sort $(patsubst %/Makefile,%,$(wildcard lessons/[0-9][0-9]-*/Makefile)))

.PHONY: all check test clean help $(LESSONS)
.DEFAULT_GOAL := all

# Build every lesson that can be built here; go on past failures, then fail.
all:
	@scripts/each-lesson.sh all $(LESSONS)

# Check every lesson (on the GPU if there is one), collecting failures:
# a skip (no GPU) is not a failure.
check:
	@scripts/each-lesson.sh check $(LESSONS)

# The repository's tests (bats). Installs bats and friends when missing.
test:
	@scripts/need-tools.sh test
	@bats --formatter tap $(BATS_FLAGS) tests

clean:
	@for d in $(LESSONS); do $(MAKE) --no-print-directory -C $$d clean; done

help:
	@echo "make [target] [SM=90] [EMU=1] [V=1]"
	@echo "  all     build every lesson's programs (into lessons/*/build/)"
	@echo "  check   run every lesson's checker: on the GPU if one is found;"
	@echo "          prints one summary line per lesson; a skip is not a failure"
	@echo "  test    run the repository's tests (tests/*.bats); installs bats if needed"
	@echo "  clean   remove every lesson's build/"
	@echo "  help    this text"
	@echo "one lesson: make -C lessons/01-shfl-reduction check (see its README.md)"
	@echo "your own fix: make -C lessons/01-shfl-reduction check SRC=path/to/mine.cu"
	@echo "lessons: $(notdir $(LESSONS))"
