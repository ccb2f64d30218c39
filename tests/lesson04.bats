#!/usr/bin/env bats
# Lesson 04 (match-any): build, command line, benchmark script, checker.

setup_file() {
    load helper
    if have_nvcc; then build_lesson 04-match-any; fi
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
        run "$L/build/$prog" --help
        assert_success
        for opt in --size --seed --jitter --threads --variant --keys --divergent --help; do
            assert_output --partial -- "$opt"
        done
        assert_output --partial 'exit status'
    done
    run "$L/build/sync" --help
    assert_line --partial '2  fallback, one trip per lane'
    assert_line --partial '3  fallback, one trip per group'
    run "$L/build/legacy" --help
    assert_line --partial '1  __match_all_sync where __match_any_sync was meant'
}

@test "bad arguments give one line on stderr and exit 2, before touching a GPU" {
    need_nvcc
    for args in "-n 0" "-c 0" "-c 17M" "-c abc" "-d 2" "-d -1" "-k 4" "-b 48" "--bogus" "-c"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$L/build/sync" $args
        echo "args: $args -> $stderr"
        assert_failure 2
        assert_equal "$output" ""
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" '^sync: '
    done
    run --separate-stderr "$L/build/legacy" -k 3
    assert_failure 2
    assert_equal "$stderr" "legacy: --variant must be between 1 and 2 (got 3)"
}

@test "the benchmark program explains itself and rejects bad arguments with exit 2" {
    need_nvcc
    run "$L/build/bench" --help
    assert_success
    assert_output --partial '__match_any_sync'
    for opt in --size --seed --reps --method; do assert_output --partial -- "$opt"; done
    for args in "-k 4" "-r 0" "-n 16" "--bogus"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$L/build/bench" $args
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
    run "$L/build/sync" -n 100000 -c 4 -d 1 -j 200 -k 3
    assert_success
    assert_line --regexp '^result: ok \(0 of 100000 group masks wrong, 0 of 4 counts wrong, 0 of 100000 tickets wrong\)$'
}

@test "MATCH_FALLBACK=1 makes variant 1 run the fallback loop, and it is right" {
    need_gpu
    run "$L/build/sync-fallback" -n 5000 -c 32 -d 1
    assert_success
    assert_line --partial 'built as the fallback loop'
    run "$L/build/sync" -n 5000 -c 32 -d 1
    assert_line --partial 'built as the __match_any_sync instruction'
}

@test "make check passes, on the GPU or on warpsim where there is none" {
    assert_check_passes 04-match-any
}

@test "make check SRC= checks a learner's copy of sync.cu" {
    assert_src_check_passes 04-match-any
}
