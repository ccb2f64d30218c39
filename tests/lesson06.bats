#!/usr/bin/env bats
# Lesson 06 (block reduce): build, command line, checker, benchmark scripts,
# and the top-level benchmark driver (scripts/bench-all.sh).

setup_file() {
    load helper
    build_lesson 06-block-reduce
}

setup() {
    load helper
    L=$REPO/lessons/06-block-reduce
}

# results_csv FILE RATIO PCT: a results file as build/bench writes it, for
# 2^28 and 2^30, where the fastest lesson kernel runs at RATIO x CUB and PCT%
# of a 4800 GB/s datasheet at 2^28 (input for bench.sh --report).
results_csv() {
    local gbps
    gbps=$(awk -v p="$3" 'BEGIN { printf "%.1f", 48 * p }')
    cat >"$1" <<CSV
table,gpu,n,bytes,method,setting,threads,blocks,unroll,ms,gbps,pct_peak,ratio_cub,check,peak_gbps
result,TEST GPU,268435456,1073741824,cub,library,,,,0.2430,4418.7,92.1,1.000,ok,4800
result,TEST GPU,268435456,1073741824,1-block-shfl,default,256,1056,,0.3000,3579.1,74.6,0.810,ok,4800
result,TEST GPU,268435456,1073741824,5-device-lastblock,default,256,1056,4,0.2400,$gbps,$3,$2,ok,4800
result,TEST GPU,268435456,1073741824,cub,library-again,,,,0.2431,4416.9,92.0,1.000,ok,4800
result,TEST GPU,1073741824,4294967296,cub,library,,,,0.9700,4427.8,92.2,1.000,ok,4800
result,TEST GPU,1073741824,4294967296,5-device-lastblock,default,256,1056,4,0.9600,4473.9,93.2,1.010,ok,4800
result,TEST GPU,1073741824,4294967296,cub,library-again,,,,0.9702,4426.9,92.2,1.000,ok,4800
CSV
}

@test "lesson 06 builds alone from a clean copy, with no warnings" {
    assert_builds_alone 06-block-reduce sync legacy cg cub_ref bench
}

@test "--help explains every option, the variants and the exit status" {
    need_nvcc
    for prog in sync legacy; do
        run "$G/build/$prog" --help
        assert_success
        for opt in --size --seed --jitter --threads --variant --blocks --unroll --max --help \
                   --sleepers --dump; do
            assert_output --partial -- "$opt"
        done
        assert_output --partial 'exit status'
        assert_line --partial '1  block: legacy.cu the volatile tree; sync.cu __shfl_down_sync'
        assert_line --partial '2  second: legacy.cu the second form, no ifs over zero-padded slots; sync.cu __reduce_add_sync'
        assert_line --partial '5  lastblock: 16-byte loads, -u in flight, one launch; the last block sums the partials'
        assert_line --partial '6  packed: 16-byte loads, -u in flight, one launch; one 64-bit atomicAdd per block carries its sum and a block count'
    done
}

@test "bad arguments give one line on stderr and exit 2, before touching a GPU" {
    need_nvcc
    for args in "-n 0" "-n -5" "-n abc" "--bogus" "-j -1" "-b 48" "-b 2048" "-k 7" "-k bogus" \
                "-u 3" "-u 16" "-g 0" "-g 65537" "-m 0" "-n" "-s 1x" "--sleepers" "--sleepers bogus"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$G/build/sync" $args
        echo "args: $args -> $stderr"
        assert_failure 2
        assert_equal "$output" ""
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" '^sync: '
    done
    run --separate-stderr "$G/build/legacy" -k 7
    assert_failure 2
    assert_equal "$stderr" "legacy: --variant must be between 1 and 6 (got 7)"
}

@test "the GPU-only programs explain themselves and reject bad arguments with exit 2" {
    need_nvcc
    run "$G/build/cg" --help
    assert_success
    assert_line --partial '1  block: cg::reduce over 32-thread tiles'
    assert_line --partial '3  tiles: group_sum over dynamic 8-thread tiles'
    run "$G/build/cub_ref" --help
    assert_success
    assert_line --partial '1  cub::DeviceReduce::Sum'
    run "$G/build/bench" --help
    assert_success
    for opt in --size --sizes --method --threads --unroll --per-sm --load --timing --flush \
               --sweep --verify --reps --warmup --peak; do
        assert_output --partial -- "$opt"
    done
    assert_line --partial '6  6-device-packed     sync.cu variant 6'
    assert_line --partial '9  cub                 cub::DeviceReduce::Sum'
    for prog_args in "cg -k 4" "cg -u 5" "cub_ref -n 0" "cub_ref -b 64" "bench -n 1000" \
                     "bench -b 48" "bench -u 3" "bench -u 12" "bench -u 32" "bench -k 10" \
                     "bench -t 3" "bench -l 9" "bench -L 10" "bench -T 2" "bench -F 2" \
                     "bench -V 2"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$G/build/"$prog_args
        echo "$prog_args -> $stderr"
        assert_failure 2
        assert_equal "$output" ""
        assert_equal "${#stderr_lines[@]}" 1
    done
    run --separate-stderr "$G/build/bench" -n 1000
    assert_equal "$stderr" "bench: --size must be a multiple of 4 x 4^(L-1) = 256 to split into 4 sizes (got 1000)"
    run --separate-stderr "$G/build/bench" -u 12
    assert_equal "$stderr" "bench: --unroll must be 1, 2, 4, 8 or 16 (got 12)"
}

@test "an n larger than the GPU's memory gives one line and exit 2" {
    need_gpu
    run --separate-stderr "$G/build/sync" -n 64G
    assert_failure 2
    assert_equal "${#stderr_lines[@]}" 1
    assert_regex "$stderr" 'needs 256\.0 GiB of GPU memory'
}

@test "every variant of sync matches the CPU on the GPU, under jitter too" {
    need_gpu
    make -s --no-print-directory -C "$L" build/verify >/dev/null
    for k in 1 2 3 4 5 6; do
        run "$L/build/verify" "$G/build/sync" -k "$k" -n 1000003 -j 200 -b 96
        echo "$output"
        assert_success
        assert_line --regexp "^result: ok \\(variant $k, n=1000003: .*sum right\\)$"
    done
}

@test "every setting the benchmark can time matches the CPU on the GPU (bench -V 1)" {
    need_gpu
    run "$G/build/bench" -V 1 -n 1M -l 1 -s 3
    echo "$output"
    assert_success
    assert_line --regexp '^result: ok \(([0-9]+) of \1 runs match the CPU: variants 3 to 6, 10 load kinds, unroll 1 to 16, '
}

@test "make check passes, on the GPU or on warpsim where there is none" {
    assert_check_passes 06-block-reduce
}

@test "make check SRC= passes a copy of sync.cu and fails a copy of legacy.cu" {
    assert_src_check_passes 06-block-reduce
    cp "$L/legacy.cu" "$BATS_TEST_TMPDIR/mine.cu"
    CHECK_FIRST_FAIL=1 run make --no-print-directory -C "$L" check SRC="$BATS_TEST_TMPDIR/mine.cu"
    echo "$output"
    assert_failure
    assert_line --regexp '^not ok [0-9]+ - mine\.cu: variant 1 \(block\) '
    assert_line --regexp '^# locate: '
}

# ---- the exercise: variant 2 fixed, graded on variant 2 alone ---------------

# exercise_answer FILE: legacy.cu with warp_sum_padded fixed the way the
# exercise asks (no shuffles, no ifs in the steps: a register, __syncwarp).
exercise_answer() {
    python3 - "$L/legacy.cu" "$1" <<'PY'
import re, sys
src = open(sys.argv[1]).read()
old = re.search(r'__device__ int warp_sum_padded\(volatile int \*s, int v\)\n\{.*?\n\}\n', src, re.S)
assert old, 'warp_sum_padded not found'
new = """__device__ int warp_sum_padded(volatile int *s, int v)
{
    int lane = LANE(), offset, x;
    s[lane] = v;
    if (lane < 16) s[32 + lane] = 0;
    __syncwarp();
    for (offset = 16; offset > 0; offset /= 2) {
        x = s[lane + offset];
        __syncwarp();
        s[lane] += x;
        __syncwarp();
    }
    return s[0];
}
"""
open(sys.argv[2], 'w').write(src[:old.start()] + new + src[old.end():])
PY
}

@test "the exercise's answer gets full marks with DEMO=2, and the unfixed file does not" {
    exercise_answer "$BATS_TEST_TMPDIR/mine.cu"
    run make --no-print-directory -C "$L" check EMU=1 DEMO=2 SRC="$BATS_TEST_TMPDIR/mine.cu"
    echo "$output"
    assert_success
    assert_line '# DEMO=2: checking variant(s) 2'
    assert_line --regexp '^[1-9][0-9]* passed, 0 failed$'
    refute_line --regexp '^(not )?ok [0-9]+ - mine\.cu: variant [13456] '
    cp "$L/legacy.cu" "$BATS_TEST_TMPDIR/mine.cu"
    CHECK_FIRST_FAIL=1 run make --no-print-directory -C "$L" check EMU=1 DEMO=second SRC="$BATS_TEST_TMPDIR/mine.cu"
    echo "$output"
    assert_failure
    assert_line --regexp '^not ok 1 - mine\.cu: variant 2 \(second\) '
    run make --no-print-directory -C "$L" check EMU=1 DEMO=9 SRC="$BATS_TEST_TMPDIR/mine.cu"
    assert_failure 2
    assert_output --partial 'DEMO: no variant 9 (1-6 or block second partials atomic lastblock packed)'
}

# ---- the harness: lesson files hold device code only ----------------------

@test "legacy.cu and sync.cu hold device code only: no main, no host calls, no jitter" {
    assert_device_only 06-block-reduce
    run grep -nE 'main *\(|cudaMalloc|cudaMemcpy|LAUNCH|jitter|printf' "$L/device.cuh"
    assert_failure 1
}

@test "on warpsim legacy is wrong under its with -j 200 and right under lockstep, in both forms" {
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    for k in 1 2; do
        WARPSIM_MODEL=its run "$L/build/verify" "$L/build/emu/legacy" -k "$k" -n 8192 -g 4 -j 200
        echo "$output"
        assert_failure 1
        assert_line --regexp "^result: WRONG \\(variant $k, n=8192: [1-4] of 4 blocks wrong"
        WARPSIM_MODEL=lockstep run "$L/build/verify" "$L/build/emu/legacy" -k "$k" -n 8192 -g 4 -j 200
        echo "$output"
        assert_success
        assert_line "result: ok (variant $k, n=8192: 0 of 4 blocks wrong, sum right)"
    done
}

@test "build/verify gives the verdict: a result line the program prints is only its words" {
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    run "$L/build/verify" "$L/build/emu/sync" -k 6 -n 1000 -j 200
    echo "$output"
    assert_success
    assert_line 'result: ok (variant 6, n=1000: sum right)'
    assert_equal "$(grep -c '^result:' <<<"$output")" 1
    run "$L/build/verify" "$FIXTURES/right.sh" -n 1000
    echo "$output"
    assert_failure 1
    assert_line 'right.sh printed (not the verdict): result: ok (0 of 8 warps wrong)'
    assert_line 'result: WRONG (no results written)'
    run "$L/build/verify" "$FIXTURES/watchdog.sh"
    assert_failure 3
    run "$L/build/verify" "$L/build/emu/sync" -u 3
    assert_failure 2
}

@test "every wrong fix in wrong/ is rejected on warpsim, with a locating line, within the bound" {
    assert_wrong_fixes_rejected 06-block-reduce
}

@test "a check of a file whose kernel never ends ends within 60 s on warpsim" {
    SECONDS=0
    run make --no-print-directory -C "$L" check EMU=1 SRC="$L/wrong/never-ends.cu"
    echo "$output"
    assert_failure
    [ "$SECONDS" -lt 60 ] || fail "took ${SECONDS}s"
    assert_line --regexp '^# locate: (it never ended: stopped after [0-9]+s in kernel block_reduce<<<|HANG detected: )'
    assert_line --regexp '^# [0-9]+ more runs not run after a program hung or crashed'
}

@test "make bench without a GPU says so and succeeds" {
    have_gpu && skip "a GPU is present: make bench would run the benchmark"
    need_nvcc
    run make --no-print-directory -C "$L" bench
    echo "$output"
    assert_success
    assert_line '06-block-reduce: no GPU found (nvidia-smi lists none): the benchmark needs one'
    assert_line 'skipped: no GPU'
}

@test "bench.sh --report turns results into a table, summary lines and a plot" {
    command -v gnuplot >/dev/null || skip "gnuplot not installed"
    results_csv "$BATS_TEST_TMPDIR/r.csv" 1.013 93.4
    run "$L/bench.sh" --report "$BATS_TEST_TMPDIR/r.csv" "$BATS_TEST_TMPDIR/r.png"
    echo "$output"
    assert_success
    assert_line --regexp '^2\^28 +5-device-lastblock +default +256 +1056 +4 +0\.2400 +4483\.2 +93\.4 +1\.013 ok$'
    assert_line --regexp '^2\^28 +1-block-shfl +default +256 +1056 +- '
    assert_line 'summary: n=2^28: fastest lesson kernel 5-device-lastblock (default: 256 threads, 1056 blocks, unroll 4): 4483.2 GB/s, 93.4% of the datasheet 4800 GB/s; 1.013 x CUB (CUB 4418.7 GB/s, again 4416.9 GB/s)'
    assert_line 'summary: goal, at least CUB at 2^28 and above: met'
    assert_line 'summary: goal, 93% of the datasheet at 2^28: met'
    [ "$(head -c 4 "$BATS_TEST_TMPDIR/r.png" | tail -c 3)" = PNG ]
}

@test "the benchmark summary says plainly when a goal is not met" {
    results_csv "$BATS_TEST_TMPDIR/r.csv" 0.990 90.1
    run "$L/bench.sh" --report "$BATS_TEST_TMPDIR/r.csv"
    echo "$output"
    assert_success
    assert_line 'summary: goal, at least CUB at 2^28 and above: NOT met'
    assert_line 'summary: goal, 93% of the datasheet at 2^28: NOT met'
    sed -i 's/^\(result,TEST GPU,268435456,.*,5-device-lastblock,.*\),ok,4800$/\1,WRONG,4800/' \
        "$BATS_TEST_TMPDIR/r.csv"
    run "$L/bench.sh" --report "$BATS_TEST_TMPDIR/r.csv"
    assert_line 'summary: 1 measurements FAILED their check'
}

# wide_csv FILE: build/bench's whole output with -t 2 (17 columns: load
# kind and timing; sweep, confirm and result rows), at 2^28 only.
wide_csv() {
    cat >"$1" <<CSV
table,gpu,n,bytes,method,setting,threads,blocks,unroll,ms,gbps,pct_peak,ratio_cub,check,peak_gbps,load,timing
sweep,TEST GPU,268435456,1073741824,cub,cub,,,,0.2450,4382.6,91.3,1.000,ok,4800,,0
sweep,TEST GPU,268435456,1073741824,cub,cub,,,,0.2420,4436.9,92.4,1.000,ok,4800,,1
sweep,TEST GPU,268435456,1073741824,4-device-atomic,load/waves=2.0,1024,528,4,0.2420,4436.9,92.4,1.012,ok,4800,nc,0
sweep,TEST GPU,268435456,1073741824,4-device-atomic,load/waves=2.0,1024,528,4,0.2410,4455.4,92.8,1.017,ok,4800,na-256B,0
sweep,TEST GPU,268435456,1073741824,6-device-packed,load/waves=2.0,1024,528,4,0.2380,4511.5,94.0,1.017,ok,4800,na-256B,1
sweep,TEST GPU,268435456,1073741824,6-device-packed,grid/even<=2.0,1024,512,4,0.2390,4492.6,93.6,1.013,ok,4800,nc,1
confirm,TEST GPU,268435456,1073741824,cub,confirm/round=1,,,,0.2420,4436.9,92.4,1.000,ok,4800,,1
confirm,TEST GPU,268435456,1073741824,6-device-packed,confirm/round=1,1024,528,4,0.2390,4492.6,93.6,1.013,ok,4800,na-256B,1
confirm,TEST GPU,268435456,1073741824,6-device-packed,confirm/round=1,1024,512,4,0.2395,4483.2,93.4,1.010,ok,4800,nc,1
confirm,TEST GPU,268435456,1073741824,6-device-packed,confirm/round=2,1024,528,4,0.2380,4511.5,94.0,1.017,ok,4800,na-256B,1
confirm,TEST GPU,268435456,1073741824,6-device-packed,confirm/round=2,1024,512,4,0.2385,4502.0,93.8,1.015,ok,4800,nc,1
confirm,TEST GPU,268435456,1073741824,6-device-packed,confirm/round=3,1024,528,4,0.2400,4473.9,93.2,1.008,ok,4800,na-256B,1
confirm,TEST GPU,268435456,1073741824,6-device-packed,confirm/round=3,1024,512,4,0.2380,4511.5,94.0,1.017,ok,4800,nc,1
result,TEST GPU,268435456,1073741824,cub,library,,,,0.2420,4436.9,92.4,1.000,ok,4800,,1
result,TEST GPU,268435456,1073741824,6-device-packed,default,256,1056,4,0.2400,4473.9,93.2,1.008,ok,4800,nc,1
result,TEST GPU,268435456,1073741824,6-device-packed,best-of-sweep,1024,512,4,0.2385,4502.0,93.8,1.015,ok,4800,nc,1
result,TEST GPU,268435456,1073741824,cub,library-again,,,,0.2421,4435.1,92.4,1.000,ok,4800,,1
CSV
}

@test "bench.sh --report reads the wide sweep's whole output: load kind, timing, confirmed best" {
    wide_csv "$BATS_TEST_TMPDIR/w.csv"
    run "$L/bench.sh" --report "$BATS_TEST_TMPDIR/w.csv"
    echo "$output"
    assert_success
    assert_line --regexp '^n +method +setting +threads +blocks +unroll +load +T +ms +GB/s +%peak +xCUB +check$'
    assert_line --regexp '^2\^28 +6-device-packed +best-of-sweep +1024 +512 +4 +nc +1 +0\.2385 +4502\.0 +93\.8 +1\.015 ok$'
    assert_line --regexp '^sweep: best 4-device-atomic +-T 0 1024 threads, 528 blocks, unroll 4, load na-256B \(load/waves=2\.0\): 4455\.4 GB/s'
    assert_line --regexp '^sweep: best 6-device-packed +-T 1 1024 threads, 528 blocks, unroll 4, load na-256B \(load/waves=2\.0\): 4511\.5 GB/s'
    assert_line --regexp '^confirmed: best 6-device-packed +-T 1 1024 threads, 512 blocks, unroll 4, load nc: 4502\.0 GB/s, 93\.8% of the datasheet, 1\.015 x CUB \(medians of the rounds\)$'
    assert_line 'summary: n=2^28: fastest lesson kernel 6-device-packed (best-of-sweep: 1024 threads, 512 blocks, unroll 4, load nc): 4502.0 GB/s, 93.8% of the datasheet 4800 GB/s; 1.015 x CUB (CUB 4436.9 GB/s, again 4435.1 GB/s)'
    assert_line 'summary: goal, 93% of the datasheet at 2^28: met (-T 1: GPU time, host launch time excluded)'
}

@test "the top-level make bench without a GPU runs only warpsim's throughput benchmark" {
    mkdir -p "$BATS_TEST_TMPDIR/ws"
    printf 'bench:\n\t@echo "model  M acc/s"; echo "its  21.0"\n' >"$BATS_TEST_TMPDIR/ws/Makefile"
    BENCH_GPU=0 WARPSIM_DIR="$BATS_TEST_TMPDIR/ws" run "$REPO/scripts/bench-all.sh" "$L"
    echo "$output"
    assert_success
    assert_line "bench: no GPU found (nvidia-smi lists none): the lessons' benchmarks need one"
    assert_line '==== warpsim: make bench'
    assert_line 'warpsim: ok'
    assert_line '    its  21.0'
    refute_output --partial '06-block-reduce'
    rm "$BATS_TEST_TMPDIR/ws/Makefile"
    BENCH_GPU=0 WARPSIM_DIR="$BATS_TEST_TMPDIR/ws" run "$REPO/scripts/bench-all.sh" "$L"
    assert_success
    assert_line --partial "warpsim: its throughput benchmark is not available"
}

@test "the top-level make bench with a GPU runs each lesson's benchmark in order and collects its summary" {
    local d=$BATS_TEST_TMPDIR/lessons
    mkdir -p "$d/01-a" "$d/02-b" "$d/03-c"
    printf 'bench:\n\t@echo timing; echo "summary: 1.01 x CUB"; echo "summary: goal met"\n' >"$d/01-a/Makefile"
    printf 'bench:\n\t@echo "02-b: no benchmark in this lesson"\n' >"$d/02-b/Makefile"
    printf 'bench:\n\t@echo "check failed"; exit 1\n' >"$d/03-c/Makefile"
    mkdir -p "$BATS_TEST_TMPDIR/ws"
    BENCH_GPU=1 WARPSIM_DIR="$BATS_TEST_TMPDIR/ws" run "$REPO/scripts/bench-all.sh" \
        "$d/01-a" "$d/02-b" "$d/03-c"
    echo "$output"
    assert_failure 1
    assert_line '==== [1/3] 01-a: make bench'
    assert_line '==== [3/3] 03-c: make bench'
    assert_line --regexp '^01-a: ok \([0-9]+s\)$'
    assert_line '    1.01 x CUB'
    assert_line '    goal met'
    assert_line '02-b: no benchmark'
    assert_line --regexp '^03-c: FAILED \(exit status [0-9]+\)$'
    assert_line --partial 'warpsim: its throughput benchmark is not available'
    assert_line 'lessons: 1 benchmarked, 1 failed, 0 skipped, 1 without a benchmark'
}
