#!/usr/bin/env bats
# Lesson 01 (shfl reduction): build, command line, checker.

setup_file() {
    load helper
    build_lesson 01-shfl-reduction
}

setup() {
    load helper
    L=$REPO/lessons/01-shfl-reduction
}

@test "lesson 01 builds alone from a clean copy, with no warnings" {
    assert_builds_alone 01-shfl-reduction sync legacy
}

@test "--help explains every option, the variants and the exit status" {
    need_nvcc
    for prog in sync legacy; do
        run "$G/build/$prog" --help
        assert_success
        for opt in --size --seed --jitter --threads --variant --help; do
            assert_output --partial -- "$opt"
        done
        assert_output --partial 'exit status'
    done
    run "$G/build/sync" --help
    assert_line --partial '2  shfl: legacy.cu mask-less __shfl_down; sync.cu __shfl_xor_sync butterfly'
    assert_output --partial -- '--sleepers PATTERN'
    assert_output --partial -- '--dump FILE'
}

@test "bad arguments give one line on stderr and exit 2, before touching a GPU" {
    need_nvcc
    for args in "-n 0" "-n -5" "-n abc" "--bogus" "-j -1" "-b 48" "-b 2048" "-k 3" "-n" "-s 1x" \
                "--sleepers" "--sleepers bogus"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$G/build/sync" $args
        echo "args: $args -> $stderr"
        assert_failure 2
        assert_equal "$output" ""
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" '^sync: '
    done
    run --separate-stderr "$G/build/legacy" -k 3
    assert_failure 2
    assert_equal "$stderr" "legacy: --variant must be between 1 and 2 (got 3)"
}

@test "an n larger than the GPU's memory gives one line and exit 2" {
    need_gpu
    run --separate-stderr "$G/build/sync" -n 64G
    assert_failure 2
    assert_equal "${#stderr_lines[@]}" 1
    assert_regex "$stderr" 'needs 256\.0 GiB of GPU memory'
}

@test "the sync version matches the CPU on the GPU, under jitter too" {
    need_gpu
    run "$G/build/sync" -n 100000 -j 200 -k 2
    assert_success
    assert_line --regexp '^result: ok \(0 of [0-9]+ warps wrong, 0 of [0-9]+ blocks wrong\)$'
}

@test "make check passes, on the GPU or on warpsim where there is none" {
    assert_check_passes 01-shfl-reduction
}

@test "make check SRC= checks a learner's copy of sync.cu" {
    assert_src_check_passes 01-shfl-reduction
}

# ---- the harness: lesson files hold device code only ----------------------

@test "legacy.cu and sync.cu hold device code only: no main, no host calls, no jitter" {
    assert_device_only 01-shfl-reduction
}

@test "on warpsim the legacy tree is wrong under its with -j 200 and right under lockstep" {
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    WARPSIM_MODEL=its run "$L/build/verify" "$L/build/emu/legacy" -k 1 -n 2048 -j 200
    echo "$output"
    assert_failure 1
    assert_line --regexp '^result: WRONG \([1-9][0-9]* of 64 warps wrong'
    WARPSIM_MODEL=lockstep run "$L/build/verify" "$L/build/emu/legacy" -k 1 -n 2048 -j 200
    echo "$output"
    assert_success
    assert_line 'result: ok (0 of 64 warps wrong, 0 of 8 blocks wrong)'
    # Every sleeper pattern leaves sync.cu right under every model.
    for sleepers in odd even upper lower leader random; do
        for model in lockstep its random; do
            WARPSIM_MODEL=$model run "$L/build/verify" "$L/build/emu/sync" -k 1 -n 2048 -j 200 --sleepers "$sleepers"
            assert_success
        done
    done
}

@test "build/verify gives the verdict: a result line the program prints is only its words" {
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    run "$L/build/verify" "$L/build/emu/sync" -n 1000 -j 200
    echo "$output"
    assert_success
    assert_line 'result: ok (0 of 32 warps wrong, 0 of 4 blocks wrong)'
    assert_equal "$(grep -c '^result:' <<<"$output")" 1
    # A stand-in that prints a passing line and exits 0 without results.
    run "$L/build/verify" "$FIXTURES/right.sh" -n 1000
    echo "$output"
    assert_failure 1
    assert_line 'right.sh printed (not the verdict): result: ok (0 of 8 warps wrong)'
    assert_line --partial 'verify: right.sh exited 0 without writing its results'
    assert_line 'result: WRONG (no results written)'
    # The program's own non-zero status passes through.
    run "$L/build/verify" "$FIXTURES/watchdog.sh"
    assert_failure 3
    run "$L/build/verify" "$L/build/emu/sync" -n abc
    assert_failure 2
    run "$L/build/verify"
    assert_failure 2
}

@test "every wrong fix in wrong/ is rejected on warpsim, with a locating line, within the bound" {
    assert_wrong_fixes_rejected 01-shfl-reduction
}

@test "a check of a file whose kernel never ends ends within 60 s on warpsim" {
    SECONDS=0
    run make --no-print-directory -C "$L" check EMU=1 SRC="$L/wrong/never-ends.cu"
    echo "$output"
    assert_failure
    [ "$SECONDS" -lt 60 ] || fail "took ${SECONDS}s"
    assert_line --regexp '^# locate: (it never ended: stopped after [0-9]+s in kernel block_sum<<<|HANG detected: )'
    assert_line --regexp '^# [0-9]+ more runs not run after a program hung or crashed'
}

@test "SRC= that is no file, and EMU= or PASCAL= other than 1, are one line and exit 2" {
    for args in "SRC=does-not-exist.cu" "SRC=/tmp" "EMU=2" "EMU=abc" "PASCAL=2"; do
        # shellcheck disable=SC2086
        run --separate-stderr make --no-print-directory -C "$L" check $args
        echo "$args -> $stderr"
        assert_failure 2
        assert_equal "${#stderr_lines[@]}" 1
        assert_regex "$stderr" "01-shfl-reduction: ${args%%=*}="
    done
}

@test "make run runs on warpsim without a GPU, with one -n, and fails on bad arguments" {
    have_gpu && skip "a GPU is here: make run uses it"
    run make --no-print-directory -C "$L" run
    echo "$output"
    assert_success
    assert_line '$ build/emu/legacy -j 200 -n 64K'
    assert_line --regexp '^result: ok \(0 of 2048 warps wrong'
    run make --no-print-directory -C "$L" run ARGS="-n abc"
    assert_failure 2
}

@test "on the GPU target every run, the sanitizer's too, goes through build/verify" {
    # warpsim builds stand in for GPU programs, a script for compute-sanitizer
    make -s --no-print-directory -C "$L" emu build/verify >/dev/null
    SANITIZER=$FIXTURES/fake-sanitizer.sh run "$FIXTURES/sanitize-check.sh" --target gpu --only-sync \
        --name mine.cu --verify "$L/build/verify" --sync "$L/build/emu/sync"
    echo "$output"
    assert_success
    assert_line 'ok 1 - mine.cu: racecheck finds no hazard'
    assert_line 'ok 2 - mine.cu: n=1000 jitter=200ns matches CPU'
    # a file that prints a passing verdict fails there too, sanitizer run included
    make -s --no-print-directory -C "$L" check EMU=1 SRC=wrong/prints-verdict.cu >/dev/null 2>&1 || true
    SANITIZER=$FIXTURES/fake-sanitizer.sh run "$FIXTURES/sanitize-check.sh" --target gpu --only-sync \
        --name prints-verdict.cu --verify "$L/build/verify" --sync "$L/build/emu/mine"
    echo "$output"
    assert_failure 1
    assert_line 'not ok 1 - prints-verdict.cu: racecheck finds no hazard'
    assert_line --partial 'verify: mine exited 0 without writing its results'
    refute_line --regexp '^ok '
}

@test "the exercise is graded on the tree alone: DEMO=tree passes a __syncwarp fix and fails the starter" {
    local mine=$BATS_TEST_TMPDIR/mine.cu
    # The starter, legacy.cu as it is: it builds, and every tree check fails.
    cp "$L/legacy.cu" "$mine"
    run make --no-print-directory -C "$L" check EMU=1 SRC="$mine" DEMO=tree
    echo "$output"
    assert_failure
    assert_line --regexp '^0 passed, [1-9][0-9]* failed$'
    refute_line --partial 'variant 2'
    # A fix of the tree without shuffles: read, __syncwarp, write, __syncwarp.
    python3 - "$L/legacy.cu" "$mine" <<'PY'
import sys
src = open(sys.argv[1]).read()
a = src.index("__device__ int warp_sum(volatile int *s, int v)")
b = src.index("/*\n * Variant 2")
fix = """__device__ int warp_sum(volatile int *s, int v)
{
    int lane = LANE(), off, t;
    s[lane] = v;
    __syncwarp();
    for (off = 16; off > 0; off /= 2) {
        t = lane < off ? s[lane + off] : 0;
        __syncwarp();
        if (lane < off) s[lane] += t;
        __syncwarp();
    }
    t = s[0];
    __syncwarp();
    return t;
}

"""
open(sys.argv[2], "w").write(src[:a] + fix + src[b:])
PY
    run make --no-print-directory -C "$L" check EMU=1 SRC="$mine" DEMO=tree
    echo "$output"
    assert_success
    assert_line --regexp '^ok [0-9]+ - mine.cu: variant 1 n=1000 jitter=200ns, random lanes sleeping, matches CPU$'
    refute_line --partial 'variant 2'
    refute_line --partial 'not ok'
    # Without DEMO= the mask-less shuffle of variant 2 is graded too, and fails.
    run make --no-print-directory -C "$L" check EMU=1 SRC="$mine"
    echo "$output"
    assert_failure
    assert_line --regexp '^not ok [0-9]+ - mine.cu: variant 2 '
}

@test "a lesson builds its programs side by side by default, one per core; make -j1 one at a time" {
    run make --no-print-directory -C "$L" -pq emu
    assert_line --regexp "^MAKEFLAGS = .*-j$(nproc)( |$)"
    run make --no-print-directory -C "$L" -j1 -pq emu
    assert_line --regexp '^MAKEFLAGS = .*-j1( |$)'
}
