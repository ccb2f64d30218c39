#!/usr/bin/env bats
# Lesson 05 (aggregated atomics): build, command line, benchmark scripts, checker.

setup_file() {
    load helper
    if have_nvcc; then build_lesson 05-aggregated-atomics; fi
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
        run "$L/build/$prog" --help
        assert_success
        for opt in --size --seed --jitter --threads --variant --keep --queues --help; do
            assert_output --partial -- "$opt"
        done
        assert_output --partial 'exit status'
    done
    run "$L/build/sync" --help
    assert_line --partial '2  a counter per queue: __match_any_sync'
    run "$L/build/cg" --help
    assert_line --partial '1  one counter: cg::coalesced_threads()'
}

@test "bad arguments give one line on stderr and exit 2, before touching a GPU" {
    need_nvcc
    for args in "-n 0" "-p 101" "-p -1" "-q 0" "-q 33" "-k 4" "-k 1 -q 2" "-b 100" "--bogus" "-q"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$L/build/sync" $args
        echo "args: $args -> $stderr"
        assert_failure 2
        assert_equal "$output" ""
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" '^sync: '
    done
    run --separate-stderr "$L/build/legacy" -k 2 -q 4
    assert_failure 2
    assert_equal "$stderr" "legacy: variant 2 fills one queue only: use -q 1 (got 4)"
    run --separate-stderr "$L/build/cg" -k 4
    assert_failure 2
    assert_equal "$stderr" "cg: --variant must be between 1 and 3 (got 4)"
    run --separate-stderr "$L/build/cg" -k 3 -q 4
    assert_failure 2
    assert_equal "$stderr" "cg: variant 3 fills one queue only: use -q 1 (got 4)"
}

@test "the benchmark programs explain themselves and reject bad arguments with exit 2" {
    need_nvcc
    for prog in bench-one-counter bench-histogram bench-scatter-add; do
        run "$L/build/$prog" --help
        assert_success
        assert_output --partial 'CSV on'
        assert_output --partial -- '--reps'
        run --separate-stderr "$L/build/$prog" -r 0
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
    run "$L/build/sync" -n 100000 -j 200 -k 2 -q 4
    assert_success
    assert_line --regexp '^result: ok \(0 slots empty, 0 elements twice, 0 missing, 0 stray, 0 of 4 counters wrong\)$'
}

@test "make check passes, on the GPU or on warpsim where there is none" {
    assert_check_passes 05-aggregated-atomics
}

@test "make check SRC= checks a learner's copy of sync.cu" {
    assert_src_check_passes 05-aggregated-atomics
}
