#!/usr/bin/env bash
# test-prep.sh: builds, once, what the test files share, before `make test`
# runs them side by side: warpsim (library, driver, its tests) and each
# lesson's programs for warpsim with its judge, build/verify. A test file
# run alone (bats tests/FILE.bats) builds what it needs itself.
# TEST_JOBS=N builds N things at a time (default: the number of cores).
# Exit status: 0 built, 1 a build failed (its output is shown).
set -u
cd "$(dirname "$0")/.." || exit 1
jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "# building warpsim and every lesson's warpsim programs for the tests ($jobs at a time)"
if ! make -s --no-print-directory -j"$jobs" -C warpsim all tests >"$log" 2>&1; then
    cat "$log"; echo "test-prep.sh: warpsim did not build" >&2; exit 1
fi
# shellcheck disable=SC2016   # $1 and $out are the inner shell's
if ! for d in lessons/[0-9][0-9]-*/; do printf '%s\n' "$d"; done |
    xargs -P "$jobs" -I{} sh -c 'out=$(make -s --no-print-directory -C "$1" emu build/verify 2>&1) ||
        { printf "%s\n" "$out"; exit 1; }' sh {} >"$log"; then
    cat "$log"; echo "test-prep.sh: a lesson's warpsim programs did not build" >&2; exit 1
fi
