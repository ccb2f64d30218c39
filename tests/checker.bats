#!/usr/bin/env bats
# The checker contract (scripts/checklib.sh), with stand-in programs, so that
# it is tested on machines with no GPU.

setup() {
    load helper
    CHECK01=$REPO/lessons/01-shfl-reduction/check.sh
}

@test "a lesson checker passes when sync is right and legacy shows its bug" {
    run "$CHECK01" --target emu --sync "$FIXTURES/right.sh" --legacy "$FIXTURES/wrong.sh"
    echo "$output"
    assert_success
    assert_line --regexp '^ok 1 - sync: variant 1 n=1 seed=1 jitter=0ns matches CPU$'
    assert_line --regexp '^ok [0-9]+ - legacy: wrong warp sums once odd lanes sleep'
    assert_line '# 3 of 8 warps wrong'
    refute_line --partial 'not ok'
    assert_line --regexp '^[1-9][0-9]* passed, 0 failed$'
    assert_equal "${lines[-1]}" "$(grep -c '^ok ' <<<"$output") passed, 0 failed"
}

@test "a legacy version that matches the CPU is not ok, and the checker says it was luck" {
    run "$CHECK01" --target emu --sync "$FIXTURES/right.sh" --legacy "$FIXTURES/right.sh"
    echo "$output"
    assert_failure 1
    assert_line --partial 'that is luck, not correctness'
    assert_line --regexp '^not ok [0-9]+ - legacy: wrong warp sums once odd lanes sleep'
    assert_line --partial 'the bug did not show on this run'
    assert_line --regexp '^[0-9]+ passed, 1 failed$'
}

@test "a wrong sync version fails every sync expectation and shows the mismatch" {
    run "$CHECK01" --target emu --sync "$FIXTURES/wrong.sh" --legacy "$FIXTURES/wrong.sh"
    echo "$output"
    assert_failure 1
    assert_line --regexp '^not ok 1 - sync: variant 1 n=1 seed=1 jitter=0ns matches CPU$'
    assert_line '#     warp 3: expected 12 got 7'
    assert_line --regexp '^1 passed, [0-9]+ failed$'
}

@test "make check SRC= runs only the sync expectations" {
    run "$CHECK01" --target emu --only-sync --sync "$FIXTURES/right.sh"
    echo "$output"
    assert_success
    refute_line --partial 'legacy'
}

@test "a program that never ends is stopped by the timeout and reported" {
    run "$FIXTURES/one-check.sh" right --target emu --only-sync --timeout 1 --sync "$FIXTURES/hang.sh"
    echo "$output"
    assert_failure 1
    assert_line 'not ok 1 - the program matches the CPU'
    assert_line --partial 'exit status 124: still running after 1s: stopped by the timeout'
    assert_line '0 passed, 1 failed'
}

@test "a hang counts as shown only when the program's own watchdog caught it" {
    run "$FIXTURES/one-check.sh" hang --target emu --only-sync --sync "$FIXTURES/watchdog.sh"
    assert_success
    assert_line '# HANG detected: lanes 16-31 spun for 100000 cycles'
    run "$FIXTURES/one-check.sh" hang --target emu --only-sync --timeout 1 --sync "$FIXTURES/hang.sh"
    assert_failure 1
    assert_line --partial 'the watchdog did not fire'
    run "$FIXTURES/one-check.sh" hang --target emu --only-sync --sync "$FIXTURES/right.sh"
    assert_failure 1
    assert_line --partial 'the hang did not show on this run'
}

@test "with nowhere to run, the checker skips with its reason and exit 77" {
    run "$CHECK01" --target none --why "no GPU found"
    assert_failure 77
    assert_line '# SKIP no GPU found'
    assert_line 'skipped: no GPU found'
}

@test "the checker rejects bad usage with exit 2" {
    run "$CHECK01" --target emu --bogus
    assert_failure 2
    assert_line --partial 'unknown option --bogus'
    run "$CHECK01" --target moon --sync "$FIXTURES/right.sh"
    assert_failure 2
    run "$CHECK01" --target emu --sync /nonexistent --legacy /nonexistent
    assert_failure 2
    assert_line --partial 'is not an executable program'
}
