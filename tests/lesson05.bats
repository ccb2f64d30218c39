#!/usr/bin/env bats
# Lesson 05 (aggregated atomics): build, command line, benchmark scripts,
# the harness, the checker and its wrong fixes.

setup_file() {
    load helper
    build_lesson 05-aggregated-atomics
}

setup() {
    load helper
    L=$REPO/lessons/05-aggregated-atomics
}

@test "lesson 05 builds alone from a clean copy, with no warnings" {
    assert_builds_alone 05-aggregated-atomics sync legacy cg bench-one-counter bench-histogram bench-scatter-add
}

@test "--help explains every option, the variants and the exit status" {
    need_nvcc
    for prog in sync legacy cg; do
        run "$G/build/$prog" --help
        assert_success
        for opt in --size --seed --jitter --threads --variant --keep --queues --help; do
            assert_output --partial -- "$opt"
        done
        assert_output --partial 'exit status'
    done
    run "$G/build/sync" --help
    assert_line --partial '3  queues: a counter per queue (-q up to 32), members grouped by __match_any_sync'
    assert_output --partial -- '--sleepers PATTERN'
    assert_output --partial -- '--dump FILE'
}

@test "bad arguments give one line on stderr and exit 2, before touching a GPU" {
    need_nvcc
    for args in "-n 0" "-p 101" "-p -1" "-q 0" "-q 33" "-k 5" "-k 1 -q 2" "-b 100" "--bogus" "-q" \
                "--sleepers bogus" "-k bogus"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$G/build/sync" $args
        echo "args: $args -> $stderr"
        assert_failure 2
        assert_equal "$output" ""
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" '^sync: '
    done
    run --separate-stderr "$G/build/legacy" -k 2 -q 4
    assert_failure 2
    assert_equal "$stderr" "legacy: variant 2 fills one queue only: use -q 1 (got 4)"
    run --separate-stderr "$G/build/cg" -k 5
    assert_failure 2
    assert_equal "$stderr" "cg: --variant must be between 1 and 4 (got 5)"
    run --separate-stderr "$G/build/cg" -k 1 -q 4
    assert_failure 2
    assert_equal "$stderr" "cg: variant 1 fills one queue only: use -q 1 (got 4)"
}

@test "the benchmark programs explain themselves and reject bad arguments with exit 2" {
    need_nvcc
    for prog in bench-one-counter bench-histogram bench-scatter-add; do
        run "$G/build/$prog" --help
        assert_success
        assert_output --partial 'CSV on'
        assert_output --partial -- '--reps'
        run --separate-stderr "$G/build/$prog" -r 0
        assert_failure 2
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" "^$prog: "
    done
}

@test "bench.sh rejects an unknown benchmark, and does nothing where no GPU is found" {
    run "$L/bench.sh" d
    assert_failure 2
    assert_output --partial 'usage: bench.sh [a] [b] [c]'
    have_gpu && skip "a GPU is present: make bench would measure for real"
    need_nvcc
    run make --no-print-directory -C "$L" bench
    assert_success
    assert_line '05-aggregated-atomics: no GPU found (nvidia-smi lists none): nothing benchmarked'
}

@test "the three plot scripts draw PNGs from CSVs shaped like the benchmarks'" {
    command -v gnuplot >/dev/null || skip "gnuplot not installed"
    d=$BATS_TEST_TMPDIR
    {
        echo "gpu,n,kept,method,ms,gb_per_s,vs_plain"
        for m in plain ballot activemask match cg; do echo "test,64,32,$m,1.0,1.0,1.000"; done
    } >"$d/a.csv"
    {
        echo "gpu,n,bins,skew,keys_per_warp,method,ms,vs_plain,note"
        for s in uniform zipf; do
            for b in 1 32 65536; do
                for m in plain match shared shared+match; do
                    if [ "$b" = 65536 ] && [ "${m#shared}" != "$m" ]; then
                        echo "test,64,$b,$s,1.00,$m,,,too many bins"
                    else
                        echo "test,64,$b,$s,1.00,$m,1.0,1.000,"
                    fi
                done
            done
        done
    } >"$d/b.csv"
    {
        echo "gpu,pattern,in_len,out_len,method,ms,vs_B,note"
        for p in low high; do
            for i in 32 1024 32768; do
                for o in 32 1024 32768; do
                    [ "$o" -le "$i" ] || continue
                    for m in B A C D; do echo "test,$p,$i,$o,$m,1.0,1.000,"; done
                done
            done
        done
    } >"$d/c.csv"
    for x in one-counter:a histogram:b scatter-add:c; do
        run gnuplot -e "csv='$d/${x#*:}.csv'; png='$d/${x#*:}.png'" "$L/bench-${x%:*}.gp"
        echo "$output"
        assert_success
        [ -s "$d/${x#*:}.png" ] || fail "no PNG from bench-${x%:*}.gp"
    done
}

@test "the sync version compacts right on the GPU, under jitter too" {
    need_gpu
    run "$L/build/verify" "$G/build/sync" -n 100000 -j 200 -k 3 -q 4
    assert_success
    assert_line --regexp '^result: ok \(0 slots empty, 0 elements twice, 0 missing, 0 stray, 0 of 4 counters wrong\)$'
}

@test "make check passes, on the GPU or on warpsim where there is none" {
    assert_check_passes 05-aggregated-atomics
}

@test "make check SRC= checks a learner's copy of sync.cu" {
    assert_src_check_passes 05-aggregated-atomics
}

# ---- the harness: lesson files hold device code only ----------------------

@test "legacy.cu, sync.cu and cg.cu hold device code only: no main, no host calls, no jitter" {
    assert_device_only 05-aggregated-atomics
    run grep -nE 'main *\(|cudaMalloc|cudaMemcpy|LAUNCH|jitter|printf|lesson_parse' "$L/cg.cu"
    echo "cg.cu: $output"
    assert_failure 1
}

@test "on warpsim the legacy variants are wrong under its with -j 200 and right under lockstep" {
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    WARPSIM_MODEL=its run "$L/build/verify" "$L/build/emu/legacy" -k broadcast -n 2048 -j 200 --sleepers leader
    echo "$output"
    assert_failure 1
    assert_line --regexp '^result: WRONG \([1-9][0-9]* slots empty, .* missing'
    assert_line --regexp '^warpsim: race on shared published\[0\]: .* at legacy\.cu:[0-9]+'
    WARPSIM_MODEL=its run "$L/build/verify" "$L/build/emu/legacy" -k group -n 2048 -j 200
    echo "$output"
    assert_failure 1
    assert_line --regexp '^result: WRONG \([1-9][0-9]* slots empty, .*, 1 of 1 counters wrong\)$'
    for k in 1 2; do
        WARPSIM_MODEL=lockstep run "$L/build/verify" "$L/build/emu/legacy" -k "$k" -n 2048 -j 200
        echo "$output"
        assert_success
        assert_line 'result: ok (0 slots empty, 0 elements twice, 0 missing, 0 stray, 0 of 1 counters wrong)'
    done
}

@test "on warpsim the opportunistic group (sync.cu variant 2) is right and clean under every model and sleeper pattern" {
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    for sleepers in odd even upper lower leader random; do
        for model in lockstep its random; do
            WARPSIM_MODEL=$model WARPSIM_ERROR_EXITCODE=99 run "$L/build/verify" "$L/build/emu/sync" -k group -n 2048 -j 200 --sleepers "$sleepers"
            [ "$status" -eq 0 ] || { echo "$output"; fail "$model, $sleepers: exit status $status"; }
            assert_line --regexp '^warpsim: 0 races, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 0 memory errors'
        done
    done
}

@test "build/verify gives the verdict: a result line the program prints is only its words" {
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    run "$L/build/verify" "$L/build/emu/sync" -n 1000 -j 200
    echo "$output"
    assert_success
    assert_line 'result: ok (0 slots empty, 0 elements twice, 0 missing, 0 stray, 0 of 1 counters wrong)'
    assert_equal "$(grep -c '^result:' <<<"$output")" 1
    run "$L/build/verify" "$FIXTURES/right.sh" -n 1000
    echo "$output"
    assert_failure 1
    assert_line --partial 'verify: right.sh exited 0 without writing its results'
    assert_line 'result: WRONG (no results written)'
    run "$L/build/verify" "$L/build/emu/sync" -n abc
    assert_failure 2
}

@test "every wrong fix in wrong/ is rejected on warpsim, with a locating line, within the bound" {
    assert_wrong_fixes_rejected 05-aggregated-atomics
}

@test "the exercise's starter (legacy.cu as mine.cu) builds and fails the check at its first bug" {
    cp "$L/legacy.cu" "$BATS_TEST_TMPDIR/mine.cu"
    CHECK_FIRST_FAIL=1 run make --no-print-directory -C "$L" check EMU=1 SRC="$BATS_TEST_TMPDIR/mine.cu"
    echo "$output"
    assert_failure
    assert_line --regexp '^# locate: '
    refute_line --partial 'error:'
}
