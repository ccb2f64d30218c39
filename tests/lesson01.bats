#!/usr/bin/env bats
# Lesson 01 (shfl reduction): build, command line, checker.

setup_file() {
    load helper
    if have_nvcc; then build_lesson 01-shfl-reduction; fi
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
        run "$L/build/$prog" --help
        assert_success
        for opt in --size --seed --jitter --threads --variant --help; do
            assert_output --partial -- "$opt"
        done
        assert_output --partial 'exit status'
    done
    run "$L/build/sync" --help
    assert_line --partial '2  butterfly: __shfl_xor_sync'
}

@test "bad arguments give one line on stderr and exit 2, before touching a GPU" {
    need_nvcc
    for args in "-n 0" "-n -5" "-n abc" "--bogus" "-j -1" "-b 48" "-b 2048" "-k 3" "-n" "-s 1x"; do
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

@test "an n larger than the GPU's memory gives one line and exit 2" {
    need_gpu
    run --separate-stderr "$L/build/sync" -n 64G
    assert_failure 2
    assert_equal "${#stderr_lines[@]}" 1
    assert_regex "$stderr" 'needs 256\.0 GiB of GPU memory'
}

@test "the sync version matches the CPU on the GPU, under jitter too" {
    need_gpu
    run "$L/build/sync" -n 100000 -j 200 -k 2
    assert_success
    assert_line --regexp '^result: ok \(0 of [0-9]+ warps wrong, 0 of [0-9]+ blocks wrong\)$'
}

@test "make check passes, on the GPU or on warpsim where there is none" {
    assert_check_passes 01-shfl-reduction
}

@test "make check SRC= checks a learner's copy of sync.cu" {
    assert_src_check_passes 01-shfl-reduction
}
