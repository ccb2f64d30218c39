#!/usr/bin/env bats
# Several runs in one process: PROGRAM --cases (include/lesson.h), build/verify
# --judge, and the checker's batches on the GPU target (scripts/checklib.sh),
# with lesson 01's programs built for warpsim standing in for the GPU's.

setup() {
    load helper
    L=$REPO/lessons/01-shfl-reduction
    # (these test the checker's own machinery, whose time budget only a
    # student's check has by default: none here unless a test sets it)
    unset CHECK_BUDGET
    E=$L/build/emu
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    T=$BATS_TEST_TMPDIR
}

# cases_file FILE TAG LINE...: a list of runs, one LINE each, words between spaces.
cases_file() {
    local file=$1 tag=$2 line; shift 2
    { printf 'lesson-cases 1 %s\n' "$tag"; for line; do printf '%s\n' "${line// /$'\t'}"; done; } >"$file"
}

@test "PROGRAM --cases makes each run as its own, framed, and goes on past a bad one" {
    cases_file "$T/c" T9 "10 -k 1 -n 100 --dump $T/d1" "10 -k 9" "10 -k 2 -n 1000 -j 200 --dump $T/d3"
    run "$E/sync" --cases "$T/c"
    echo "$output"
    assert_success
    assert_equal "$(grep '^@@' <<<"$output" | tr '\n' '|')" \
        '@@T9 case 1|@@T9 status 1 0|@@T9 case 2|@@T9 status 2 2|@@T9 case 3|@@T9 status 3 0|'
    assert_line 'sync: --variant must be between 1 and 2 (got 9)'
    # run 3, judged from what it printed and wrote, gets the verdict of a run of its own
    awk '/^@@T9 case 3$/ { f = 1; next } /^@@T9 status 3 / { f = 0 } f' <<<"$output" >"$T/log3"
    run "$L/build/verify" --judge "$T/log3" 0 "$T/d3" "$E/sync" -k 2 -n 1000 -j 200
    echo "$output"
    assert_success
    local judged=$output
    run "$L/build/verify" "$E/sync" -k 2 -n 1000 -j 200
    assert_success
    # (a run of its own also shows warpsim's summary, which verify read from
    # its channel: a batch's runs share one process, and one summary)
    assert_equal "$(grep -v '^results written' <<<"$judged")" "$(grep -v '^results written' <<<"$output" | grep -v -e '^warpsim: ' -e '^verify: warpsim summary: ')"
    [ ! -e "$T/d3" ]    # the judge removes the results it read
}

@test "a run of --cases that never ends stops the process with its marker and exit 124" {
    cases_file "$T/c" T7 "10 -k 1 -n 10" "1 -k 1 -n 16M --dump $T/d2" "10 -k 1 -n 10"
    run "$E/sync" --cases "$T/c"
    echo "$output"
    assert_failure 124
    assert_line '@@T7 status 1 0'
    assert_line --regexp '@@T7 timeout 2 1$'
    refute_line '@@T7 case 3'
}

@test "--cases is in --help; a list that is not one is one line and exit 2" {
    run "$E/sync" --help
    assert_line --regexp '^  --cases FILE +make the runs listed in FILE in this one process'
    printf 'not a list\n' >"$T/bad"
    run "$E/sync" --cases "$T/bad"
    assert_failure 2
    assert_output --partial 'is not a list of runs (lesson-cases 1)'
    run "$E/sync" --cases "$T/none"
    assert_failure 2
    assert_output --partial 'cannot read'
    run "$E/sync" --cases
    assert_failure 2
    cases_file "$T/c" T1 "abc -k 1"
    run "$E/sync" --cases "$T/c"
    assert_failure 2
    assert_output --partial 'is not SECONDS<TAB>ARGS'
    cases_file "$T/c" T1 "5 -k 1 --help"
    run "$E/sync" --cases "$T/c"
    assert_failure 2
    assert_output --partial '--help is not for a run of'
}

@test "verify --judge: what the program printed stays its words, its status passes through" {
    printf 'launch: block_sum<<<1, 32>>>\nresult: ok (0 of 1 warps wrong)\n' >"$T/log"
    run "$L/build/verify" --judge "$T/log" 0 "$T/none" "$E/sync" -n 32
    echo "$output"
    assert_failure 1
    assert_line 'sync printed (not the verdict): result: ok (0 of 1 warps wrong)'
    assert_line 'result: WRONG (no results written)'
    run "$L/build/verify" --judge "$T/log" 3 "$T/none" "$E/sync" -n 32
    assert_failure 3
    run "$L/build/verify" --judge "$T/log" abc "$T/none" "$E/sync" -n 32
    assert_failure 2
    assert_output "verify: --judge: 'abc' is not an exit status"
    run "$L/build/verify" --judge "$T/log" 0
    assert_failure 2
    run "$L/build/verify" --help
    assert_line --partial '--judge OUTPUT STATUS RESULTS PROGRAM'
}

# The output of the fixture's check, less what differs between runs: the
# time the runs took, where results went, and what the run stopped after a
# second had printed by then, which depends on the machine's load (on a busy
# one, nothing yet): its locating line and printout.
steady() {
    grep -v -e '^# made first: ' -e 'results written to' <<<"$1" |
        awk '/^(not )?ok [0-9]+ - legacy n=16M/ { cut = 1; print; next }
             /^(not )?ok [0-9]+ - / { cut = 0 }
             !cut || /^# (exit status|command): / { print }'
}

@test "on the GPU target, batches give every expectation the verdict and output of runs of its own" {
    local args=(--target gpu --sync "$E/sync" --legacy "$E/legacy" --verify "$L/build/verify")
    CHECK_BATCH=0 SANITIZER=$FIXTURES/fake-sanitizer.sh run "$FIXTURES/batch-check.sh" "${args[@]}"
    echo "$output"
    assert_failure 1
    local single=$output
    assert_line --regexp '^not ok [0-9]+ - legacy with delays matches the CPU \(it does not\)$'
    assert_line --regexp '^not ok [0-9]+ - legacy n=16M ends within a second \(it does not\)$'
    assert_line '# exit status 124: still running after 1s: stopped by the timeout'
    assert_line '# not run: legacy never ended before (stopped after 1s); its remaining runs are not run either'
    assert_line --regexp '^not ok [0-9]+ - sync is wrong \(it is not\)$'
    assert_line '# run_right: exit status 0, 0 of 8 warps wrong, 0 of 1 blocks wrong'
    assert_line '9 passed, 4 failed'
    CHECK_BATCH=1 CHECK_TIME_LOG=$T/times SANITIZER=$FIXTURES/fake-sanitizer.sh run "$FIXTURES/batch-check.sh" "${args[@]}"
    echo "$output"
    assert_failure 1
    assert_line '# made first: 15 runs in 6 processes (batches, each run judged as its own), 0 runs one by one (CHECK_BATCH=0: a process each, in turn)'
    assert_equal "$(steady "$output")" "$(steady "$single")"
    cat "$T/times"
    # a process a batch: each program's runs without delays, with them and
    # legacy runs (alone), each tool's; the wrong run was made again on its
    # own, the one that never ended was not
    assert_equal "$(grep -c -- '--cases' "$T/times")" 6
    assert_equal "$(grep -c $'\talone\t.*--cases' "$T/times")" 2
    assert_equal "$(grep -c $'\talone\t.*/legacy --cases (3 runs)\t' "$T/times")" 1
    assert_equal "$(grep -c $'\talone\t.*/build/verify .*/legacy -k 1 -n 2048 -j 200\t' "$T/times")" 1
    refute grep -q $'/build/verify .*/legacy -k 2 -n 16M\t' "$T/times"
    # legacy runs: taken from their batch where the bug showed (and an
    # observation whatever it saw), made again alone where it did not
    refute grep -q $'/legacy -k 1 -n 2048 -j 200 -s 2\t' "$T/times"
    refute grep -q $'/legacy -k 1 -n 64\t' "$T/times"
    assert_equal "$(grep -c $'\talone\t.*/build/verify .*/sync -k 1 -n 64 -s 5\t' "$T/times")" 1
}

@test "on the GPU target, a check whose time runs out after a run made first never ended names that run's kernel" {
    local args=(--target gpu --sync "$E/sync" --legacy "$E/legacy" --verify "$L/build/verify")
    CHECK_BUDGET=4 run "$FIXTURES/budget-check.sh" "${args[@]}"
    echo "$output"
    assert_failure 1
    assert_line --regexp '^# made first: 2 runs in 2 processes '
    assert_line --regexp '^not ok 1 - legacy n=16M with delays ends \(it does not\)$'
    # the batch's run (no delays) never ended within the budget, stopped by
    # its own bound; the one with delays came after it, with little or no
    # time left: either way the locating line names the kernel
    assert_line --regexp '^# locate: (legacy never ended in a run made first: stopped after [1-4]s in kernel block_sum<<<65536, 256>>> \(the last it launched\); then the check.s 4s ran out|stopped after [1-3]s in kernel block_sum<<<65536, 256>>> \(the last it launched\), when the check.s 4s ran out)$'
    assert_line --regexp '^not ok 2 - legacy n=16M ends \(it does not\)$'
    assert_line '0 passed, 2 failed'
    # a sanitizer's batch, started first, never ended: named with its tool
    # (its bound is what is left of the budget when it starts: on a busy
    # machine a second or more less; the budget is 4 s, not 2, so that the
    # program has launched its kernel by then even on a 2-core runner)
    BUDGET_TOOL=1 CHECK_BUDGET=4 SANITIZER=$FIXTURES/fake-sanitizer.sh run "$FIXTURES/budget-check.sh" "${args[@]}"
    echo "$output"
    assert_failure 1
    assert_line --regexp '^not ok 1 - legacy n=16M: memcheck is clean$'
    assert_line --regexp '^# locate: legacy never ended in a run made first \(under memcheck\): stopped after [1-4]s in kernel block_sum<<<65536, 256>>> \(the last it launched\); then the check.s 4s ran out$'
}

@test "verify --timeout stops the program and what it started, as timeout -k 5 would, and exits 124" {
    local start pid
    run "$L/build/verify" --timeout 0 "$E/sync"
    assert_failure 2
    assert_output --partial "verify: --timeout: '0' is not a number of seconds"
    run "$L/build/verify" --timeout abc "$E/sync"
    assert_failure 2
    # a program that ignores SIGTERM: SIGKILL 5 s later, its child too
    start=$SECONDS
    NEVER_ENDS_PIDS=$T/pids run "$L/build/verify" --timeout 1 "$FIXTURES/never-ends.sh" -n 1
    echo "$output"
    assert_failure 124
    assert_line 'launch: spin<<<1, 32>>>'
    [ $((SECONDS - start)) -le 9 ] || fail "verify took $((SECONDS - start)) s"
    sleep 0.2
    for pid in $(cat "$T/pids"); do       # gone, or a zombie not reaped yet
        [[ $(ps -o stat= -p "$pid") != [^Z]* ]] || fail "process $pid still runs"
    done
    # a program that ends in time: its own verdict and status
    run "$L/build/verify" --timeout 20 "$E/sync" -n 1000
    assert_success
    assert_line --regexp '^result: ok '
    run "$L/build/verify" --timeout 20 "$FIXTURES/watchdog.sh"
    assert_failure 3
}

@test "verify hands the program its results file with no name: nothing in TMPDIR for it to find, and none left" {
    local pid i d=$T/tmpdir
    mkdir -p "$d"
    TMPDIR=$d run "$L/build/verify" "$E/sync" -n 1000
    assert_success
    refute_output --partial 'results written'
    refute_output --partial "$d"
    [ -z "$(ls -A "$d")" ] || fail "a right run left $(ls "$d")"
    # while the program runs, its results file has no name in TMPDIR
    NEVER_ENDS_PIDS=$T/pids-term TMPDIR=$d "$L/build/verify" "$FIXTURES/never-ends.sh" -n 1 \
        >/dev/null 2>&1 3>&- &
    pid=$!
    for ((i = 0; i < 50; i++)); do [ -s "$T/pids-term" ] && break; sleep 0.1; done
    [ -z "$(ls -A "$d")" ] || fail "a results file with a name while it runs: $(ls "$d")"
    kill -TERM "$pid"
    wait "$pid" || true
    # shellcheck disable=SC2046   # two pids
    kill -9 $(cat "$T/pids-term") 2>/dev/null || true
    TMPDIR=/nonexistent-dir run "$L/build/verify" "$E/sync" -n 1000
    assert_failure 2
    assert_output --partial 'verify: cannot make a file in /nonexistent-dir: '
}

@test "verify drops the WARPSIM_* variables it inherits and sets warpsim's model and seed itself" {
    WARPSIM_MODEL=bogus WARPSIM_SPIN_LIMIT=abc run "$L/build/verify" --model lockstep --seed 5 "$E/sync" -n 1000
    echo "$output"
    assert_success
    assert_line --regexp '^warpsim: 0 races, .*\(model lockstep, seed 5\)$'
    # the environment cannot change the model a run is judged under
    WARPSIM_MODEL=lockstep run "$L/build/verify" --model its "$E/legacy" -k 1 -n 2048 -j 200
    assert_failure 1
    assert_line --regexp '^warpsim: .*\(model its, seed 1\)$'
    run "$L/build/verify" --model moon "$E/sync"
    assert_failure 2
    assert_output --partial "--model: 'moon' is no model of warpsim"
    run "$L/build/verify" --seed -1 "$E/sync"
    assert_failure 2
}

# FAKE_SUMMARY (tests/fixtures/ws-summary.sh): a program built with a
# warpsim that writes its summary line to the channel verify opened.
@test "verify reads warpsim's summary from its own channel and checks it: there, one line, its settings, its status" {
    export FAKE_PROGRAM=$E/sync
    FAKE_SUMMARY=good run "$L/build/verify" --model random --seed 7 "$FIXTURES/ws-summary.sh" -n 100
    echo "$output"
    assert_success
    assert_line 'verify: warpsim summary: 0 races, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 0 memory errors, 0 other reports (model random, seed 7)'
    FAKE_SUMMARY=none run "$L/build/verify" --model its "$FIXTURES/ws-summary.sh" -n 100
    echo "$output"
    assert_failure 1
    assert_line --regexp "^verify: ws-summary.sh ended without warpsim's summary \(exit status 0\)"
    assert_line 'result: WRONG (no warpsim summary)'
    # a run that failed already (bad usage) may end without it
    FAKE_SUMMARY=none run "$L/build/verify" --model its "$FIXTURES/ws-summary.sh" -n abc
    assert_failure 2
    refute_output --partial "warpsim's summary"
    FAKE_SUMMARY=model run "$L/build/verify" --model its "$FIXTURES/ws-summary.sh" -n 100
    assert_failure 1
    assert_line --regexp '^verify: warpsim ran with other settings than verify set \(model its, seed 1\)'
    FAKE_SUMMARY=status run "$L/build/verify" --model its "$FIXTURES/ws-summary.sh" -n 100
    assert_failure 1
    assert_line --regexp 'exited 1, but warpsim ended it with status 0'
    FAKE_SUMMARY=twice run "$L/build/verify" --model its "$FIXTURES/ws-summary.sh" -n 100
    assert_failure 1
    assert_line --regexp "^verify: warpsim's summary channel held something else than one summary line"
    # a report makes a run that passed exit --error-exitcode
    FAKE_SUMMARY=races run "$L/build/verify" --model its --error-exitcode 99 "$FIXTURES/ws-summary.sh" -n 100
    assert_failure 99
    assert_line --regexp '^verify: warpsim summary: 3 races, '
}

@test "the checker judges warpsim's counts by verify's summary, not by a line the program prints" {
    # a program that prints a clean summary of its own but whose channel says 3 races
    export FAKE_PROGRAM=$E/sync FAKE_SUMMARY=races
    run "$FIXTURES/one-check.sh" right --target emu --only-sync --verify "$L/build/verify" --sync "$FIXTURES/ws-summary.sh"
    echo "$output"
    assert_failure 1
    assert_line --regexp '^# locate: verify: warpsim summary: 3 races'
    assert_line --regexp '^# command: .*/build/verify --model [a-z]+ --seed 1 .*ws-summary.sh'
}

@test "a WARPSIM_* variable set around the check is one line saying it is ignored, and the check passes" {
    WARPSIM_MODEL=bogus WARPSIM_SEED=abc run "$L/check.sh" --target emu --sync "$FIXTURES/emu-clean.sh" \
        --legacy "$FIXTURES/emu-legacy.sh"
    echo "$output"
    assert_success
    assert_line "# ignored: WARPSIM_MODEL=bogus WARPSIM_SEED=abc: the checker sets warpsim's settings itself (build/verify --model, --seed)"
    assert_line --regexp '^[1-9][0-9]* passed, 0 failed$'
    refute_output --partial bogus,
}

@test "verify shows a program's output up to 4 MiB and says the rest is not shown" {
    printf '#!/bin/sh\nyes "a line of output that never ends" | head -c 20000000\nexit 0\n' >"$T/loud.sh"
    chmod +x "$T/loud.sh"
    run "$L/build/verify" "$T/loud.sh"
    [ "${#output}" -lt $((5 << 20)) ] || fail "verify showed ${#output} bytes"
    assert_line 'verify: loud.sh printed more than 4 MiB: the rest of its output is not shown'
    assert_line --partial 'exited 0 without writing its results'
}

@test "a student's check on the GPU target makes its runs that may share the GPU side by side, and takes them in order" {
    local args=(--target gpu --only-sync --sync "$E/sync" --verify "$L/build/verify")
    CHECK_TIME_LOG=$T/times SANITIZER=$FIXTURES/fake-sanitizer.sh run "$FIXTURES/prefetch-check.sh" "${args[@]}"
    echo "$output"
    cat "$T/times"
    assert_success
    assert_equal "$(grep -c '^ok' <<<"$output")" 5
    # three processes that may share the GPU (sync's runs, each tool's), at
    # least two of them made at once: the second starts before the first ends
    assert_equal "$(grep -c $'\tshared\t.*--cases' "$T/times")" 3
    awk -F '\t' '$2 == "shared" { start[++n] = $4; end[n] = $4 + $1 }
        END { for (i = 1; i <= n; i++) for (j = 1; j <= n; j++)
                  if (i != j && start[j] >= start[i] && start[j] < end[i]) exit 0
              exit 1 }' "$T/times" || fail "no two shared processes overlapped"
    # CHECK_JOBS=1 asked for: one at a time
    rm -f "$T/times"
    CHECK_JOBS=1 CHECK_TIME_LOG=$T/times SANITIZER=$FIXTURES/fake-sanitizer.sh run "$FIXTURES/prefetch-check.sh" "${args[@]}"
    assert_success
    ! awk -F '\t' '$2 == "shared" { start[++n] = $4; end[n] = $4 + $1 }
        END { for (i = 1; i <= n; i++) for (j = 1; j <= n; j++)
                  if (i != j && start[j] > start[i] + 0.005 && start[j] < end[i] - 0.005) exit 0
              exit 1 }' "$T/times" || fail "processes overlapped under CHECK_JOBS=1"
}
