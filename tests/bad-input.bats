#!/usr/bin/env bats
# What a lab machine and a student's checkout do to the lessons: a path
# with a space, no GPU driver.

setup() {
    load helper
}

@test "a checkout under a path with a space: every lesson's make reads, two lessons check, make doctor says so" {
    local t="$BATS_TEST_TMPDIR/my labs/repo" d
    lesson_sandbox "$t" $(lessons)
    cp "$REPO/Makefile" "$t/"
    for d in "$t"/lessons/*/; do
        run make --no-print-directory -n -C "$d" check EMU=1
        [ "$status" -eq 0 ] || { echo "$output"; fail "make -n check in ${d%/} failed"; }
        refute_output --partial 'No such file'
    done
    for d in 01 04; do
        DEMO=1 EMU_MODELS=its run make --no-print-directory -C "$t/lessons/$(lesson_name "$d")" check EMU=1
        echo "$output"
        assert_success
        assert_line --regexp '^[1-9][0-9]* passed, 0 failed$'
    done
    run bash -c "cd '$t' && make --no-print-directory doctor"
    echo "$output"
    assert_success
    assert_line "  checkout           $t (a space in the path: the lessons' makes name no file by it; SRC= takes no file name with a space)"
}

@test "a GPU program run where no driver is names its twin for warpsim, build/emu/NAME" {
    need_nvcc
    have_gpu && skip "a GPU answers here"
    "$REPO/scripts/test-prep.sh" --alone >/dev/null
    local g
    g=$(gpu_dir 01-shfl-reduction)
    [ -x "$g/build/legacy" ] || skip "no build/legacy in $g"
    cd "$g"
    run build/legacy -n 100
    echo "$output"
    assert_failure 77
    assert_output "legacy: no usable CUDA GPU here ($(cut -d'(' -f2- <<<"$output" | cut -d')' -f1)): build/emu/legacy is this program for warpsim, the CPU emulator ('make emu' builds it; 'make check EMU=1' checks on it)"
}
