#!/usr/bin/env bats
# Lesson 07 (warp scan): build, command line, the scans on warpsim, the
# checker (its twins, a learner's copy, the wrong fixes), and bench.sh.

setup_file() {
    load helper
    build_lesson 07-warp-scan
}

setup() {
    load helper
    L=$REPO/lessons/07-warp-scan
    E=$L/build/emu
}

# results_csv FILE: results as build/bench writes them, in which the block
# scan beats cub::BlockScan, reduce-then-scan reaches 0.70x CUB and the
# look-back 0.97x (input for bench.sh --report).
results_csv() {
    cat >"$1" <<'CSV'
table,gpu,n,bytes,method,setting,threads,items,ms,gbps,pct_peak,ratio_cub,check,peak_gbps
block,TEST GPU,16777216,134217728,repeat-lesson,default,256,1,0.5000,,,1.100,ok,3350
block,TEST GPU,16777216,134217728,repeat-cub-raking,default,256,1,0.5500,,,1.000,ok,3350
block,TEST GPU,16777216,134217728,repeat-cub-warpscans,default,256,1,0.6000,,,0.917,ok,3350
block,TEST GPU,268435456,2147483648,tile-lesson,default,256,16,0.7000,3067.8,91.6,1.000,ok,3350
block,TEST GPU,268435456,2147483648,tile-cub-raking,default,256,16,0.7000,3067.8,91.6,1.000,ok,3350
block,TEST GPU,268435456,2147483648,tile-cub-warpscans,default,256,16,0.7100,3024.6,90.3,0.986,ok,3350
device,TEST GPU,268435456,2147483648,cub,default,0,0,0.7000,3067.8,91.6,1.000,ok,3350
device,TEST GPU,268435456,2147483648,reduce-then-scan,default,256,16,1.0000,2147.5,64.1,0.700,ok,3350
device,TEST GPU,268435456,2147483648,lookback,default,256,16,0.7200,2982.6,89.0,0.972,ok,3350
device,TEST GPU,268435456,2147483648,memcpy,default,0,0,0.6900,3112.3,92.9,1.014,ok,3350
CSV
}

@test "lesson 07 builds alone from a clean copy, with no warnings" {
    assert_builds_alone 07-warp-scan sync legacy cg bench
}

@test "--help names every option, the six variants and the exit status" {
    for prog in sync legacy; do
        run "$E/$prog" --help
        assert_success
        for opt in --size --seed --threads --variant --width --max --help; do
            assert_output --partial -- "$opt"
        done
        assert_line --partial '1  inclusive: scan of each -w-lane segment of a warp'
        assert_line --partial '6  device: one inclusive scan of all n'
        assert_output --partial 'exit status'
    done
}

@test "bad arguments give one line on stderr and exit 2" {
    for args in "-n 0" "-n abc" "--bogus" "-b 48" "-b 2048" "-k 7" "-k nosuch" \
                "-w 3" "-w 64" "-m 0" "-n"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$E/sync" $args
        echo "args: $args -> $stderr"
        assert_failure 2
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" '^sync: '
    done
}

@test "the benchmark rejects bad arguments with one line and exit 2, before touching a GPU" {
    need_nvcc
    for args in "-n 1000" "-n 4096 -l 3" "-l 9" "-r 0" "-V 2" "--bogus"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$G/build/bench" $args
        echo "args: $args -> $stderr"
        assert_failure 2
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" '^bench: '
    done
}

@test "on warpsim every variant of sync matches the CPU under every model, and nothing is reported" {
    for model in lockstep its random; do
        for k in inclusive exclusive block compact ballot device; do
            WARPSIM_MODEL=$model run timeout 60 "$E/sync" -k "$k" -n 3001 -w 8 -b 96
            assert_success
            assert_line --partial 'result: ok'
            assert_output --partial 'warpsim: 0 races, 0 hangs, 0 warp-primitive errors, 0 uninitialized reads, 0 memory errors'
        done
    done
}

@test "on warpsim the legacy block scan is wrong under its, right under lockstep, and a race every time" {
    WARPSIM_MODEL=its run timeout 60 "$E/legacy" -k block -n 4096
    assert_failure 1
    assert_line --partial 'result: WRONG'
    assert_output --regexp 'warpsim: race on shared s\[[0-9]+\]: .* at legacy\.cu:[0-9]+'
    WARPSIM_MODEL=lockstep run timeout 60 "$E/legacy" -k block -n 4096
    assert_success
    assert_line --partial 'result: ok'
    assert_output --regexp 'warpsim: [1-9][0-9]* races'
}

@test "make check passes, on the GPU or on warpsim where there is none" {
    assert_check_passes 07-warp-scan
}

@test "make check SRC= passes a copy of sync.cu and fails a copy of legacy.cu" {
    assert_src_check_passes 07-warp-scan
    cp "$L/legacy.cu" "$BATS_TEST_TMPDIR/mine.cu"
    run make --no-print-directory -C "$L" check EMU=1 SRC="$BATS_TEST_TMPDIR/mine.cu"
    echo "$output"
    assert_failure
    assert_line --regexp '^not ok '
}

@test "each wrong fix is one edit of sync.cu and says in its first line what is wrong" {
    local f n=0
    for f in "$L"/wrong/*.cu; do
        n=$((n + 1))
        run head -n 1 "$f"
        assert_output --regexp '^/\* wrong: [a-z].* \*/$'
        # One hunk of difference from sync.cu, besides the first line.
        run bash -c "tail -n +2 '$f' | diff '$L/sync.cu' - | grep -c '^[0-9]'"
        echo "$f: $output hunk(s)"
        assert_output 1
    done
    [ "$n" -ge 5 ]
}

@test "the checker rejects every wrong fix on warpsim, within 60 s each" {
    local f start took
    for f in "$L"/wrong/*.cu; do
        start=$SECONDS
        run timeout 90 make --no-print-directory -C "$L" check EMU=1 CHECK_FIRST_FAIL=1 SRC="$f"
        took=$((SECONDS - start))
        echo "$(basename "$f"): exit $status in ${took}s"
        echo "$output" | grep -m 3 -E '^(not ok|# )' || true
        assert_failure
        assert_line --regexp '^not ok '
        [ "$took" -le 60 ]
    done
}

@test "make bench without a GPU says so and succeeds" {
    have_gpu && skip "a GPU is present: make bench would run the benchmark"
    need_nvcc
    run make --no-print-directory -C "$L" bench
    assert_success
    assert_output --partial 'skipped: no GPU'
}

@test "bench.sh --report turns results into a table, the goals and a plot" {
    results_csv "$BATS_TEST_TMPDIR/r.csv"
    run "$L/bench.sh" --report "$BATS_TEST_TMPDIR/r.csv" "$BATS_TEST_TMPDIR/r.png"
    echo "$output"
    assert_success
    assert_line --regexp '^device +2\^28 +lookback +default +256 +16 '
    assert_line 'summary: block scan, repeat (256 threads x 1 items): lesson 0.5000 ms, 1.100 x the faster cub::BlockScan'
    assert_line 'summary: n=2^28: lookback (256 x 16): 2982.6 GB/s, 89.0% of the datasheet, 0.972 x CUB'
    assert_line 'summary: goal, block scan at least 1.0x cub::BlockScan: met'
    assert_line 'summary: goal, multi-pass device scan at least 0.8x CUB at every size: NOT met'
    assert_line 'summary: stretch, single-pass look-back at least 0.95x CUB at every size: met'
    if command -v gnuplot >/dev/null; then
        [ -s "$BATS_TEST_TMPDIR/r.png" ]
    fi
}

@test "bench.sh counts a wrong measurement and rejects stray arguments" {
    results_csv "$BATS_TEST_TMPDIR/r.csv"
    sed -i 's/lookback,default,256,16,0.7200,2982.6,89.0,0.972,ok/lookback,default,256,16,0.7200,2982.6,89.0,0.972,WRONG/' \
        "$BATS_TEST_TMPDIR/r.csv"
    run "$L/bench.sh" --report "$BATS_TEST_TMPDIR/r.csv"
    assert_line 'summary: 1 measurements FAILED their check'
    assert_line 'summary: n=2^28: lookback: no result passed its check'
    run "$L/bench.sh" --bogus
    assert_failure 2
}
