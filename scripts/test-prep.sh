#!/usr/bin/env bash
# test-prep.sh: builds, once, what the test files share, before `make test`
# runs them side by side: warpsim (library, driver, its tests) and each
# lesson's programs for warpsim with its judge, build/verify; where the
# tests to run include the lesson files (TESTS: tests/, tests/lessons*.bats),
# also every lesson alone, with nvcc, from one clean copy (--alone below).
# A test file run alone (bats tests/FILE.bats) builds what it needs itself.
# TEST_JOBS=N builds N things at a time, never more than the cores (the
# default): one lesson a core, each lesson's make one program at a time.
# (Builds beyond the cores cost CPU time: on 2 cores the nvcc builds below
# took 68 CPU-seconds three lessons at a time, each make -j2, and 61 two at
# a time, each make -j1, and 3 s less.)
#
# test-prep.sh --alone: only the nvcc builds, into tests/build/alone/: a
# copy of the working tree with no build outputs, where each lesson is built
# with make (no target), for one architecture where no GPU answers (SM=90;
# the every-architecture build is make compat's), lessons side by side.
# Each lesson's output and exit status are kept in tests/build/alone/NAME.log
# and NAME.rc for the tests (a failed build is theirs to report). Nothing is
# built again while the copy is newer than every source the builds read
# (lessons/, include/, mk/: .cu, .cuh, .h, Makefile, .mk; wrong/ aside) and
# was built with the same settings; one build at a time (flock).
# Without nvcc, nothing.
# Exit status: 0 built, 1 a build failed (its output is shown).
set -u
cd "$(dirname "$0")/.." || exit 1
cores=$(nproc 2>/dev/null || echo 1)
jobs=${TEST_JOBS:-$cores}
[ "$jobs" -le "$cores" ] 2>/dev/null || jobs=$cores

# build_alone: the nvcc builds of --alone.
build_alone() {
    command -v nvcc >/dev/null 2>&1 || return 0
    local dir=tests/build/alone sm="" stale=yes
    nvidia-smi -L 2>/dev/null | grep -q '^GPU' || sm=SM=90
    mkdir -p tests/build
    (
        flock 9
        if [ -f "$dir/.done" ] && [ "$(cat "$dir/.done")" = "nvcc $(nvcc --version | tail -n 1) $sm" ]; then
            stale=$(find lessons include mk \( -name build -o -name wrong \) -prune -o -type f \
                         \( -name '*.cu' -o -name '*.cuh' -o -name '*.h' -o -name Makefile -o -name '*.mk' \) \
                         -newer "$dir/.done" -print -quit)
        fi
        [ -n "$stale" ] || exit 0
        rm -rf "$dir"
        mkdir -p "$dir"
        tar --exclude=build --exclude=.git --exclude=_build -cf - . | tar -xf - -C "$dir"
        # shellcheck disable=SC2016   # $1, $2 and $3 are the inner shell's
        # the later lessons, with CUB and Cooperative Groups, take longest: first
        for d in lessons/[0-9][0-9]-*/; do d=${d%/}; printf '%s\n' "${d#lessons/}"; done | sort -r |
            xargs -P "$jobs" -I{} sh -c 'make -j1 --no-print-directory -C "$1/lessons/$2" $3 >"$1/$2.log" 2>&1
                echo $? >"$1/$2.rc"' sh "$dir" {} "$sm"
        echo "nvcc $(nvcc --version | tail -n 1) $sm" >"$dir/.done"
    ) 9>tests/build/alone.lock
}

if [ "${1:-}" = --alone ]; then
    build_alone
    exit 0
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "# building warpsim and every lesson's warpsim programs for the tests ($jobs at a time)"
if ! make -s --no-print-directory -j"$jobs" -C warpsim all tests >"$log" 2>&1; then
    cat "$log"; echo "test-prep.sh: warpsim did not build" >&2; exit 1
fi
# shellcheck disable=SC2016   # $1 and $out are the inner shell's
if ! for d in lessons/[0-9][0-9]-*/; do printf '%s\n' "$d"; done |
    xargs -P "$jobs" -I{} sh -c 'out=$(make -j1 -s --no-print-directory -C "$1" emu build/verify 2>&1) ||
        { printf "%s\n" "$out"; exit 1; }' sh {} >"$log"; then
    cat "$log"; echo "test-prep.sh: a lesson's warpsim programs did not build" >&2; exit 1
fi
case " ${TESTS:-tests} " in
    *" tests "*|*" tests/ "*|*" ./tests "*|*tests/lessons*)
        echo "# building every lesson alone from a clean copy with nvcc ($jobs at a time)"
        build_alone ;;
esac
exit 0
