#!/usr/bin/env bats
# make check SRC= where a GPU is (lab mode): the GPU half and the warpsim
# half side by side, each as soon as its programs are built, with stand-ins
# for the GPU (tests/fixtures/fake-gpu: nvidia-smi and an nvcc that takes 3 s
# a build) and for the checker (tests/fixtures/lab-check.sh).

setup_file() {
    load helper
    lesson_sandbox "$BATS_FILE_TMPDIR/tree" 01-shfl-reduction
}

setup() {
    load helper
    L=$BATS_FILE_TMPDIR/tree/lessons/01-shfl-reduction
    export LAB_TRACE=$BATS_TEST_TMPDIR/trace PATH=$FIXTURES/fake-gpu:$PATH
    cp "$REPO/lessons/01-shfl-reduction/sync.cu" "$BATS_TEST_TMPDIR/mine.cu"
}

@test "lab mode checks on warpsim while nvcc still builds, shows the GPU's output first, and passes when both pass" {
    run make --no-print-directory -C "$L" check SRC="$BATS_TEST_TMPDIR/mine.cu" CHECK="$FIXTURES/lab-check.sh"
    echo "$output"
    cat "$LAB_TRACE"
    assert_success
    # the warpsim half ended before the GPU half (after nvcc's 3 s) began
    assert_equal "$(tr '\n' ' ' <"$LAB_TRACE")" 'emu start emu end gpu start gpu end '
    assert_equal "$(grep -E '^(# checking|ok|# mine)' <<<"$output" | tr '\n' '|')" \
        '# checking on the gpu|ok 1 - mine.cu: on the gpu|# checking on the emu|ok 1 - mine.cu: on the emu|# mine.cu on the GPU: passed (1 passed, 0 failed)|# mine.cu on warpsim: passed (1 passed, 0 failed)|'
    assert_equal "${lines[-1]}" '2 passed, 0 failed'
}

@test "lab mode ends with the first failure of the half that failed, then the total" {
    LAB_FAIL=emu run make --no-print-directory -C "$L" check SRC="$BATS_TEST_TMPDIR/mine.cu" CHECK="$FIXTURES/lab-check.sh"
    echo "$output"
    assert_failure
    assert_line '# mine.cu on warpsim: FAILED (0 passed, 1 failed)'
    assert_equal "$(tail -n 6 <<<"$output" | grep -v '^make')" "$(printf '%s\n' '# ---- on warpsim:' '# ==== the first failure ====' \
        '# not ok 1 - mine.cu: on the emu' "# locate: the emu half's first problem" '1 passed, 1 failed')"
}
