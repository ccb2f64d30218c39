#!/usr/bin/env bats
# The checker contract (scripts/checklib.sh), with stand-in programs, so that
# it is tested on machines with no GPU.

setup() {
    load helper
    CHECK01=$REPO/lessons/01-shfl-reduction/check.sh
}

# Lesson 01's checker on the emu target, with stand-ins that behave like
# programs built for warpsim (they print its summary line).
@test "a lesson checker passes when sync is right and legacy shows its bug" {
    run "$CHECK01" --target emu --sync "$FIXTURES/emu-clean.sh" --legacy "$FIXTURES/emu-legacy.sh"
    echo "$output"
    assert_success
    assert_line --regexp '^ok 1 - sync: variant 1 n=1 seed=1 jitter=0ns matches CPU$'
    assert_line --regexp '^ok [0-9]+ - legacy: tree gives wrong warp sums once odd lanes sleep'
    assert_line '# 3 of 8 warps wrong'
    refute_line --partial 'not ok'
    assert_line --regexp '^[1-9][0-9]* passed, 0 failed$'
    assert_equal "${lines[-1]}" "$(grep -c '^ok ' <<<"$output") passed, 0 failed"
}

@test "a legacy version that matches the CPU is not ok, and the checker says it was luck" {
    run "$CHECK01" --target emu --sync "$FIXTURES/emu-clean.sh" --legacy "$FIXTURES/emu-lucky.sh"
    echo "$output"
    assert_failure 1
    assert_line --partial 'that is luck, not correctness'
    assert_line --regexp '^not ok [0-9]+ - legacy: tree gives wrong warp sums once odd lanes sleep'
    assert_line --partial 'the bug did not show on this run'
    assert_line --regexp '^not ok [0-9]+ - legacy: shfl: warpsim reports shuffles from lanes outside'
    assert_line --regexp '^[0-9]+ passed, 3 failed$'
}

# The pre-Volta path (make pascal): the programs say so with --path. The
# programming model promises the legacy code right there no more than
# wrong, and no Pascal run is recorded: the checker expects nothing of it
# and says what the run did.
@test "on the pre-Volta path the checker expects nothing of legacy code and says what each run did" {
    SANITIZER=none run "$CHECK01" --target gpu --sync "$FIXTURES/pre-volta.sh" --legacy "$FIXTURES/pre-volta.sh"
    echo "$output"
    assert_success
    assert_line --regexp '^# path: pre-Volta fallback \(__CUDA_ARCH__ 600\)'
    refute_line --regexp '^ok [0-9]+ - legacy: (tree|shfl)'
    assert_line --regexp '^# legacy: tree on the pre-Volta path \(-k 1 -n 2M -j 200\): matched the CPU .*; right on this run of the pre-Volta path, which the programming model does not promise either: not correctness$'
    assert_line --regexp '^# legacy: shfl on the pre-Volta path'
    refute_line --partial 'that is luck'
    refute_line --partial 'not ok'
}

@test "on the pre-Volta path a subject ending in a colon is named with one colon" {
    SANITIZER=none DEMO="tree converged" run "$REPO/lessons/03-syncwarp-races/check.sh" \
        --target gpu --sync "$FIXTURES/pre-volta.sh" --legacy "$FIXTURES/pre-volta.sh"
    echo "$output"
    assert_line --regexp '^# legacy: tree on the pre-Volta path'
    assert_line --regexp '^# legacy: converged on the pre-Volta path'
    refute_line --partial '::'
}

@test "on warpsim the checker says once that a pass under lockstep is no pass on a pre-Volta GPU" {
    run "$CHECK01" --target emu --only-sync --sync "$FIXTURES/emu-clean.sh"
    echo "$output"
    assert_success
    assert_equal "$(grep -c 'it does not model the pre-Volta rules' <<<"$output")" 1
    assert_line --partial 'a shuffle or __syncwarp on both sides of a branch is undefined before 7.0'
    EMU_MODELS="its random" run "$CHECK01" --target emu --only-sync --sync "$FIXTURES/emu-clean.sh"
    refute_output --partial 'pre-Volta rules'
}

@test "on the Volta-and-newer path the same always-right legacy is not ok" {
    SANITIZER=none PATH_LINE="path: Volta and newer (__CUDA_ARCH__ 900) on a stand-in GPU, compute capability 9.0" \
        run "$CHECK01" --target gpu --sync "$FIXTURES/pre-volta.sh" --legacy "$FIXTURES/pre-volta.sh"
    echo "$output"
    assert_failure 1
    assert_line --regexp '^# path: Volta and newer'
    assert_line --regexp '^not ok [0-9]+ - legacy: tree gives wrong warp sums once odd lanes sleep'
    assert_line --regexp '^not ok [0-9]+ - legacy: shfl \(mask-less __shfl_down\) gives wrong warp sums'
    assert_line --regexp '^[0-9]+ passed, 2 failed$'
}

@test "a wrong sync version fails every sync expectation and shows the mismatch" {
    run "$CHECK01" --target emu --sync "$FIXTURES/wrong.sh" --legacy "$FIXTURES/wrong.sh"
    echo "$output"
    assert_failure 1
    assert_line --regexp '^not ok 1 - sync: variant 1 n=1 seed=1 jitter=0ns matches CPU$'
    assert_line '#     warp 3: expected 12 got 7'
    assert_line '# locate: warp 3: expected 12 got 7'
    assert_line --regexp '^2 passed, [0-9]+ failed$'   # the two legacy expectations of a wrong result hold
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

# ---- the emu target: programs built for warpsim ---------------------------

@test "on warpsim, expect_right runs the program under lockstep, its and random" {
    export EMU_LOG=$BATS_TEST_TMPDIR/models
    run "$FIXTURES/one-check.sh" right --target emu --only-sync --sync "$FIXTURES/emu-clean.sh"
    echo "$output"
    assert_success
    assert_line 'ok 1 - the program matches the CPU'
    assert_equal "$(tr '\n' ' ' <"$EMU_LOG")" "lockstep its random "
}

@test "on warpsim, expect_right fails a right result that warpsim reported a race in" {
    run "$FIXTURES/one-check.sh" right --target emu --only-sync --sync "$FIXTURES/emu-legacy.sh"
    echo "$output"
    assert_failure 1
    assert_line 'not ok 1 - the program matches the CPU'
    assert_line "# under warpsim's lockstep model: exit status 99: warpsim or the sanitizer reported a hazard (the locate line is the first report)"
    # The report that locates the problem comes first, before the output.
    assert_equal "${lines[4]}" "# locate: warpsim: race on shared s[1]: thread 1 (block 0, warp 0, lane 1) writes it at legacy.cu:51 and thread 0 (block 0, warp 0, lane 0) reads it at legacy.cu:53; same warp"
}

@test "a failing run on warpsim comes with the one command that draws it" {
    # a stand-in driver: only its being there matters
    export WS_DRIVER_BIN=$BATS_TEST_TMPDIR/warpsim
    printf '#!/bin/sh\nexit 0\n' >"$WS_DRIVER_BIN"; chmod +x "$WS_DRIVER_BIN"
    # named relative to the working directory when that is shorter, and
    # always with a slash, so that it runs as typed
    cd "$BATS_TEST_TMPDIR"
    run "$FIXTURES/one-check.sh" right --target emu --only-sync --sync "$FIXTURES/emu-legacy.sh"
    echo "$output"
    assert_failure 1
    assert_line "# draw it: ./warpsim --trace emu-legacy.sh-lockstep.svg --trace-block 0 --trace-warp 0 --model lockstep --seed 1 $FIXTURES/emu-legacy.sh"
    # emulate's failures too, with the block and warp of the first report
    run "$FIXTURES/emulate.sh" its clean --target emu --only-sync --sync "$FIXTURES/emu-legacy.sh"
    echo "$output"
    assert_failure 1
    assert_line "# draw it: ./warpsim --trace emu-legacy.sh-its.svg --trace-block 0 --trace-warp 0 --model its --seed 1 $FIXTURES/emu-legacy.sh"
    # no driver, no line
    WS_DRIVER_BIN=$BATS_TEST_TMPDIR/none run "$FIXTURES/one-check.sh" right --target emu --only-sync --sync "$FIXTURES/emu-legacy.sh"
    assert_failure 1
    refute_line --partial '# draw it:'
}

@test "on warpsim, expect_wrong and observe run under the adversarial its model" {
    run "$FIXTURES/one-check.sh" wrong --target emu --only-sync --sync "$FIXTURES/emu-legacy.sh"
    echo "$output"
    assert_success
    assert_line 'ok 1 - the program shows its bug'
    assert_line '# 3 of 8 warps wrong'
}

@test "emulate checks the result or the report under the model it names" {
    run "$FIXTURES/emulate.sh" lockstep right --target emu --only-sync --sync "$FIXTURES/emu-legacy.sh"
    echo "$output"
    assert_success
    assert_line '# warpsim: 1 race, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 0 memory errors (model lockstep, seed 1)'
    assert_line '#   result: ok (0 of 8 warps wrong)'
    run "$FIXTURES/emulate.sh" its right --target emu --only-sync --sync "$FIXTURES/emu-legacy.sh"
    assert_failure 1
    assert_line --partial "under warpsim's its model: exit status 1"
    run "$FIXTURES/emulate.sh" all race --target emu --only-sync --sync "$FIXTURES/emu-legacy.sh"
    assert_success
    assert_line --regexp '^#   warpsim: race on shared s\[1\]: thread 1 '
    run "$FIXTURES/emulate.sh" all clean --target emu --only-sync --sync "$FIXTURES/emu-legacy.sh"
    assert_failure 1
    run "$FIXTURES/emulate.sh" all clean --target emu --only-sync --sync "$FIXTURES/emu-clean.sh"
    assert_success
    run "$FIXTURES/emulate.sh" its hang --target emu --only-sync --sync "$FIXTURES/emu-clean.sh"
    assert_failure 1
}

@test "emulate cannot pass a program that is not built for warpsim" {
    run "$FIXTURES/emulate.sh" its clean --target emu --only-sync --sync "$FIXTURES/right.sh"
    echo "$output"
    assert_failure 1
    assert_line '# warpsim: no summary'
    run "$FIXTURES/emulate.sh" its right --target emu --only-sync --sync "$FIXTURES/right.sh"
    assert_failure 1
}

# ---- bounded time, whatever the program does ------------------------------

@test "a program that hangs once is not run again: one not ok, the rest counted" {
    SECONDS=0
    run "$FIXTURES/many-checks.sh" --target emu --only-sync --timeout 2 --sync "$FIXTURES/hang-kernel.sh"
    echo "$output"
    assert_failure 1
    [ "$SECONDS" -lt 10 ] || fail "took ${SECONDS}s: the hang was waited for more than once"
    assert_line 'not ok 1 - run 1 matches the CPU'
    assert_line '# locate: it never ended: stopped after 2s in kernel spin<<<1, 32>>> (the last it launched)'
    assert_line 'not ok 2 - run 2 matches the CPU'
    assert_line '# not run: hang-kernel.sh never ended before (stopped after 2s); its remaining runs are not run either'
    assert_line '# 3 more runs not run after a program hung or crashed (see the not ok above)'
    assert_line '0 passed, 2 failed'
}

@test "a program that crashes is reported with its signal and not run again" {
    run "$FIXTURES/many-checks.sh" --target gpu --only-sync --sync "$FIXTURES/crash.sh"
    echo "$output"
    assert_failure 1
    assert_line --regexp '^# exit status 139: crashed: killed by signal 11 \(SEGV\)$'
    assert_line --partial 'not run: crash.sh crashed before (exit status 139)'
    assert_line '0 passed, 2 failed'
}

@test "with CHECK_FIRST_FAIL=1 the checker stops at the first failed expectation" {
    CHECK_FIRST_FAIL=1 run "$FIXTURES/many-checks.sh" --target gpu --only-sync --sync "$FIXTURES/wrong.sh"
    echo "$output"
    assert_failure 1
    assert_line 'not ok 1 - run 1 matches the CPU'
    refute_line --partial 'run 2'
    assert_line '# stopped at the first failed expectation (CHECK_FIRST_FAIL=1)'
    assert_line '0 passed, 1 failed'
    run "$FIXTURES/many-checks.sh" --target gpu --only-sync --sync "$FIXTURES/wrong.sh"
    assert_line '0 passed, 5 failed'
}

@test "a student's check has a time budget for all its runs together" {
    # run 1 takes 2 s, run 2 would take 30: the budget's 6 s leave room for
    # the first however slowly the check starts, and stop the second
    SECONDS=0
    CHECK_BUDGET=6 run "$FIXTURES/many-checks.sh" --target gpu --only-sync --sync "$FIXTURES/slow.sh"
    echo "$output"
    assert_failure 1
    [ "$SECONDS" -lt 12 ] || fail "took ${SECONDS}s with a 6s budget"
    assert_line 'ok 1 - run 1 matches the CPU'
    assert_line 'not ok 2 - run 2 matches the CPU'
    assert_line --regexp "^# locate: stopped after [0-9]+s, when the check's 6s ran out$"
    assert_line --partial "not run: the check's 6s were spent"
}

@test "a student's file is named by its own name, never sync or legacy.cu" {
    run "$CHECK01" --target emu --only-sync --name mine.cu --sync "$FIXTURES/emu-clean.sh"
    echo "$output"
    assert_success
    assert_line '# only-sync: mine.cu must meet what sync.cu meets'
    assert_line --regexp '^ok 1 - mine.cu: variant 1 n=1 seed=1 jitter=0ns matches CPU$'
    refute_line --regexp '^(not )?ok [0-9]+ - (sync|legacy)'
}

@test "DEMO= picks demonstrations by number or name; an unknown one is one line and exit 2" {
    DEMO=2 run "$CHECK01" --target emu --sync "$FIXTURES/emu-clean.sh" --legacy "$FIXTURES/emu-legacy.sh"
    echo "$output"
    assert_success
    assert_line --regexp '^ok [0-9]+ - legacy: shfl \(mask-less __shfl_down\) gives wrong warp sums'
    refute_line --partial 'legacy: tree'
    DEMO=bogus run --separate-stderr "$CHECK01" --target emu --sync "$FIXTURES/emu-clean.sh" --legacy "$FIXTURES/emu-legacy.sh"
    assert_failure 2
    assert_equal "$stderr" "$CHECK01: DEMO: no demonstration bogus (1-2 or tree shfl)"
}

# ---- expectations side by side (CHECK_JOBS) -------------------------------

# overlaps LOG: from a RUN_LOG of tests/fixtures/logged.sh, one line per
# pair of runs that overlapped in time where one of them must run alone (a
# run with delays, -j 200, or a legacy run with no -j: -n 3 last), and last
# "shared N": how many pairs of the other runs overlapped.
overlaps() {
    awk '$1 == "start" { s[$3] = $2; a[$3] = $0 }
         $1 == "end" { e[$3] = $2 }
         END {
             for (i in s) for (j in s) if (i < j && s[i] < e[j] && s[j] < e[i]) {
                 if (a[i] ~ / -j 200/ || a[i] ~ / -n 3$/ || a[j] ~ / -j 200/ || a[j] ~ / -n 3$/)
                     print "alone-run overlapped: " a[i] " | " a[j]
                 else shared++
             }
             print "shared " shared + 0
         }' "$1"
}

@test "side by side, a check prints exactly what it prints one expectation at a time" {
    local fx=$FIXTURES/side-by-side.sh
    CHECK_JOBS=1 SANITIZER=none run "$fx" --target gpu --timeout 2 --sync "$FIXTURES/mixed.sh" --legacy "$FIXTURES/mixed.sh"
    local one=$output
    assert_failure 1
    assert_line 'not ok 5 - sync n=5 matches the CPU'
    assert_line '# not run: mixed.sh never ended before (stopped after 2s); its remaining runs are not run either'
    assert_line '# a line of check.sh'"'"'s own, in its place'
    assert_line '# 7 more runs not run after a program hung or crashed (see the not ok above)'
    assert_line '3 passed, 3 failed'
    CHECK_JOBS=4 SANITIZER=none run "$fx" --target gpu --timeout 2 --sync "$FIXTURES/mixed.sh" --legacy "$FIXTURES/mixed.sh"
    assert_failure 1
    assert_equal "$output" "$one"
    # on warpsim too, where every expectation may run side by side
    CHECK_JOBS=1 run "$REPO/lessons/01-shfl-reduction/check.sh" --target emu --sync "$FIXTURES/emu-clean.sh" --legacy "$FIXTURES/emu-legacy.sh"
    one=$output
    CHECK_JOBS=3 run "$REPO/lessons/01-shfl-reduction/check.sh" --target emu --sync "$FIXTURES/emu-clean.sh" --legacy "$FIXTURES/emu-legacy.sh"
    assert_success
    assert_equal "$output" "$one"
}

@test "on the GPU, runs with delays and legacy runs have it alone, against another check too" {
    export RUN_LOG=$BATS_TEST_TMPDIR/runs.log CHECK_GPU_LOCK=$BATS_TEST_TMPDIR/gpu.lock SANITIZER=none
    local fx=$FIXTURES/side-by-side.sh prog=$FIXTURES/logged.sh
    CHECK_JOBS=4 "$fx" --target gpu --sync "$prog" --legacy "$prog" >"$BATS_TEST_TMPDIR/a" &
    CHECK_JOBS=4 run "$fx" --target gpu --sync "$prog" --legacy "$prog"
    wait $! || true
    echo "$output"
    assert_failure 1
    assert_equal "$output" "$(cat "$BATS_TEST_TMPDIR/a")"
    assert_line 'not ok 3 - sync n=3 matches the CPU'
    assert_line 'ok 10 - legacy n=3 is wrong with delays'
    assert_line '# legacy n=3 with no delay: wrong (1 of 8 warps wrong)'
    assert_line '12 passed, 1 failed'
    assert_equal "$(grep -c '^start' "$RUN_LOG")" 28
    run overlaps "$RUN_LOG"
    echo "$output"
    refute_line --partial 'alone-run overlapped'
    assert_line --regexp '^shared [1-9][0-9]*$'
}

@test "a student's check runs one expectation at a time; CHECK_JOBS must be a number" {
    export RUN_LOG=$BATS_TEST_TMPDIR/runs.log SANITIZER=none
    CHECK_JOBS=4 run "$FIXTURES/many-checks.sh" --target gpu --only-sync --sync "$FIXTURES/logged.sh"
    assert_line '4 passed, 1 failed'
    assert_equal "$(grep -c '^start' "$RUN_LOG")" 5
    run overlaps "$RUN_LOG"
    assert_output 'shared 0'
    CHECK_JOBS=abc run --separate-stderr "$FIXTURES/many-checks.sh" --target gpu --sync "$FIXTURES/right.sh" --legacy "$FIXTURES/right.sh"
    assert_failure 2
    assert_equal "$stderr" "$FIXTURES/many-checks.sh: CHECK_JOBS=abc: how many expectations run at once, a number from 1"
}

# The last screen of make check SRC= (--only-sync): what failed first, how
# many failed alike, the command that makes the run again and the one that
# draws it.
@test "a failing check of a learner's file ends with the first failure, the count alike, its command and its picture" {
    cd "$REPO/lessons/01-shfl-reduction"
    # (no time budget: a busy machine must not cut the runs short)
    CHECK_BUDGET=100000 run ./check.sh --target emu --only-sync --name mine.cu --sync "$FIXTURES/wrong.sh"
    echo "$output"
    assert_failure 1
    # each failure after the first that says the same is one line
    assert_equal "$(grep -c '^# alike: not ok 1 above$' <<<"$output")" "$(( $(grep -c '^not ok' <<<"$output") - 1 ))"
    assert_equal "${lines[-6]}" "# ==== the first failure of $(grep -c '^not ok' <<<"$output"); $(grep -c '^not ok' <<<"$output") alike ===="
    assert_equal "${lines[-5]}" '# not ok 1 - mine.cu: variant 1 n=1 seed=1 jitter=0ns matches CPU'
    assert_equal "${lines[-4]}" '# locate: warp 3: expected 12 got 7'
    assert_equal "${lines[-3]}" "# again (in lessons/01-shfl-reduction): WARPSIM_MODEL=lockstep WARPSIM_SEED=1 $FIXTURES/wrong.sh -k 1 -n 1 -s 1 -j 0"
    [[ ${lines[-2]} == '# draw it: '*' --trace-block 0 --trace-warp 0 --model lockstep '* ]]
    assert_equal "${lines[-1]}" "0 passed, $(grep -c '^not ok' <<<"$output") failed"
}

@test "the locating line is warpsim's first report, and draw it names both warps of a race between warps" {
    cd "$REPO/lessons/01-shfl-reduction"
    run "$FIXTURES/one-check.sh" right --target emu --only-sync --sync "$FIXTURES/emu-race-warps.sh"
    echo "$output"
    assert_failure 1
    assert_line --regexp '^# locate: warpsim: race on shared s\[33\]: thread 33 \(block 2, warp 1, lane 1\)'
    assert_line --regexp "^# draw it: .* --trace-block 2 --trace-warp 1 .*emu-race-warps.sh \(the race's other side is warp 0 of block 2: --trace-block 2 --trace-warp 0 draws it\)$"
}

@test "an assert that fails in a kernel is located by its assertion line, not by the signal or the CUDA error" {
    run "$FIXTURES/one-check.sh" right --target gpu --only-sync --sync "$FIXTURES/assert.sh"
    echo "$output"
    assert_failure 1
    assert_line '# locate: mine.cu:30: int warp_sum(int): block: [0,0,0], thread: [3,0,0] Assertion `v > 0` failed.'
    ASSERT_ABORT=1 run "$FIXTURES/one-check.sh" right --target emu --only-sync --sync "$FIXTURES/assert.sh"
    echo "$output"
    assert_failure 1
    assert_line "# locate: mine: mine.cu:30: int warp_sum(int): Assertion \`v > 0' failed."
}
