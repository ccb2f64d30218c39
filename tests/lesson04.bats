#!/usr/bin/env bats
# Lesson 04 (match-any): build, command line, harness and verify, benchmark
# script, checker, wrong fixes.

setup_file() {
    load helper
    build_lesson 04-match-any
}

setup() {
    load helper
    L=$REPO/lessons/04-match-any
}

@test "lesson 04 builds alone from a clean copy, with no warnings" {
    assert_builds_alone 04-match-any sync legacy sync-fallback bench
}

@test "--help explains every option, the groupings and the exit status" {
    need_nvcc
    for prog in sync legacy sync-fallback; do
        run "$G/build/$prog" --help
        assert_success
        for opt in --size --seed --jitter --threads --variant --keys --divergent --sleepers --help; do
            assert_output --partial -- "$opt"
        done
        assert_output --partial 'exit status'
    done
    run "$G/build/sync" --help
    assert_line --partial '1  match: legacy.cu __match_all_sync where __match_any_sync was meant'
    assert_line --partial '2  lanes: legacy.cu keys through shared memory, no warp sync; sync.cu the fallback, one trip per lane'
    assert_line --partial '3  groups: the fallback, one trip per group'
}

@test "bad arguments give one line on stderr and exit 2, before touching a GPU" {
    need_nvcc
    for args in "-n 0" "-c 0" "-c 17M" "-c abc" "-d 2" "-d -1" "-k 4" "-k bogus" "-b 48" "--bogus" "-c" \
                "--sleepers bogus"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$G/build/sync" $args
        echo "args: $args -> $stderr"
        assert_failure 2
        assert_equal "$output" ""
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" '^sync: '
    done
    run --separate-stderr "$G/build/legacy" -k 4
    assert_failure 2
    assert_equal "$stderr" "legacy: --variant must be between 1 and 3 (got 4)"
}

@test "the benchmark program explains itself and rejects bad arguments with exit 2" {
    need_nvcc
    run "$G/build/bench" --help
    assert_success
    assert_output --partial '__match_any_sync'
    for opt in --size --seed --reps --method; do assert_output --partial -- "$opt"; done
    for args in "-k 4" "-r 0" "-n 16" "--bogus"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$G/build/bench" $args
        assert_failure 2
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" '^bench: '
    done
}

@test "make bench does nothing and succeeds where no GPU is found" {
    have_gpu && skip "a GPU is present: make bench would measure for real"
    need_nvcc
    run make --no-print-directory -C "$L" bench
    assert_success
    assert_line '04-match-any: no GPU found (nvidia-smi lists none): nothing benchmarked'
}

@test "bench.gp draws a PNG from a CSV shaped like the benchmark's" {
    command -v gnuplot >/dev/null || skip "gnuplot not installed"
    csv=$BATS_TEST_TMPDIR/t.csv
    echo "gpu,n,rounds,keys,method,ms,vs_native" >"$csv"
    for r in 1 16; do
        for k in 1 4 32 1000; do
            echo "test,1024,$r,$k,native,1.0,1.000" >>"$csv"
            echo "test,1024,$r,$k,per-lane,4.0,4.000" >>"$csv"
            echo "test,1024,$r,$k,per-group,2.0,2.000" >>"$csv"
        done
    done
    run gnuplot -e "csv='$csv'; png='$BATS_TEST_TMPDIR/t.png'" "$L/bench.gp"
    assert_success
    [ -s "$BATS_TEST_TMPDIR/t.png" ]
    assert_equal "$(head -c 4 "$BATS_TEST_TMPDIR/t.png" | tail -c 3)" "PNG"
}

@test "the sync version groups divergent warps right on the GPU, under jitter too" {
    need_gpu
    make -s --no-print-directory -C "$L" build/verify >/dev/null
    run "$L/build/verify" "$G/build/sync" -n 100000 -c 4 -d 1 -j 200 -k 3
    assert_success
    assert_line --regexp '^result: ok \(0 of 100000 group masks wrong, 0 of 4 counts wrong, 0 of 100000 tickets wrong\)$'
}

@test "MATCH_FALLBACK=1 makes variant 1 run the fallback loop, and it is right" {
    need_gpu
    make -s --no-print-directory -C "$L" build/verify >/dev/null
    run "$L/build/verify" "$G/build/sync-fallback" -n 5000 -c 32 -d 1
    assert_success
    assert_line --partial 'built as the fallback loop'
    run "$G/build/sync" -n 5000 -c 32 -d 1
    assert_line --partial 'built as the __match_any_sync instruction'
}

@test "make check passes, on the GPU or on warpsim where there is none" {
    assert_check_passes 04-match-any
}

@test "make check SRC= checks a learner's copy of sync.cu" {
    assert_src_check_passes 04-match-any
}

# ---- the harness: lesson files hold device code only ----------------------

@test "legacy.cu and sync.cu hold device code only: no main, no host calls, no jitter" {
    assert_device_only 04-match-any
}

@test "on warpsim sync-fallback runs the loop as variant 1, and sync the instruction" {
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    WARPSIM_MODEL=its run "$L/build/verify" "$L/build/emu/sync-fallback" -n 1000 -c 4 -d 1 -j 200
    echo "$output"
    assert_success
    assert_line --partial 'built as the fallback loop'
    assert_line 'result: ok (0 of 1000 group masks wrong, 0 of 4 counts wrong, 0 of 1000 tickets wrong)'
    WARPSIM_MODEL=its run "$L/build/verify" "$L/build/emu/sync" -n 1000 -c 4
    assert_success
    assert_line --partial 'built as the __match_any_sync instruction'
}

@test "on warpsim legacy match is wrong with no delay, lanes wrong under its with -j 200 and right under lockstep" {
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    WARPSIM_MODEL=lockstep run "$L/build/verify" "$L/build/emu/legacy" -k match -c 4 -n 2048
    echo "$output"
    assert_failure
    assert_line --regexp '^result: WRONG \(2048 of 2048 group masks wrong, 4 of 4 counts wrong'
    WARPSIM_MODEL=its run "$L/build/verify" "$L/build/emu/legacy" -k lanes -c 4 -n 2048 -j 200
    echo "$output"
    assert_failure
    assert_line --regexp '^result: WRONG \([1-9][0-9]* of 2048 group masks wrong'
    assert_line --regexp '^warpsim: race on shared seen\[[0-9]+\]: .* at legacy\.cu:[0-9]+ '
    WARPSIM_MODEL=lockstep run "$L/build/verify" "$L/build/emu/legacy" -k lanes -c 4 -n 2048 -j 200
    echo "$output"
    assert_line 'result: ok (0 of 2048 group masks wrong, 0 of 4 counts wrong, 0 of 2048 tickets wrong)'
    # Every sleeper pattern leaves every variant of sync.cu right and clean.
    for sleepers in odd even upper lower leader random; do
        for k in 1 2 3; do
            WARPSIM_MODEL=its WARPSIM_ERROR_EXITCODE=99 run "$L/build/verify" "$L/build/emu/sync" \
                -k "$k" -n 1000 -c 4 -d 1 -j 200 --sleepers "$sleepers"
            assert_success
        done
    done
}

@test "build/verify gives the verdict: a result line the program prints is only its words" {
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    run "$L/build/verify" "$L/build/emu/sync" -n 1000 -c 4 -j 200
    echo "$output"
    assert_success
    assert_line 'result: ok (0 of 1000 group masks wrong, 0 of 4 counts wrong, 0 of 1000 tickets wrong)'
    assert_equal "$(grep -c '^result:' <<<"$output")" 1
    run "$L/build/verify" "$FIXTURES/right.sh" -n 1000
    echo "$output"
    assert_failure 1
    assert_line 'result: WRONG (no results written)'
    run "$L/build/verify" "$L/build/emu/sync" -c abc
    assert_failure 2
}

@test "every wrong fix in wrong/ is rejected on warpsim, with a locating line, within the bound" {
    assert_wrong_fixes_rejected 04-match-any
}

@test "a check of a file whose fallback loop never ends ends within 60 s on warpsim" {
    SECONDS=0
    run make --no-print-directory -C "$L" check EMU=1 SRC="$L/wrong/never-ends.cu"
    echo "$output"
    assert_failure
    [ "$SECONDS" -lt 60 ] || fail "took ${SECONDS}s"
    assert_line --regexp '^# locate: (it never ended: stopped after [0-9]+s in kernel count_keys<<<|HANG detected: )'
    assert_line --regexp '^# [0-9]+ more runs not run after a program hung or crashed'
}
