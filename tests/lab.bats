#!/usr/bin/env bats
# Lab mode: make grade scores learners' files; make doctor describes the machine.

setup() {
    load helper
}

@test "make grade gives the reference sync.cu files full marks and exits 0" {
    run make --no-print-directory -C "$REPO" grade GRADE_FILE=sync.cu
    echo "$output"
    assert_success
    assert_line --regexp '^01-shfl-reduction +10/10 '
    assert_line --regexp '^Score ([0-9]+)/\1$'
}

@test "make grade does not give the legacy.cu files full marks, and exits 1" {
    run make --no-print-directory -C "$REPO" grade GRADE_FILE=legacy.cu
    echo "$output"
    assert_failure
    assert_line --regexp '^01-shfl-reduction +0/10 '
    assert_line --regexp '^Score [0-9]+/[0-9]+$'
    refute_line --regexp '^Score ([0-9]+)/\1$'
}

@test "a lesson without the learner's file scores 0 and says what to do" {
    run "$REPO/scripts/grade.sh" "$REPO/lessons/01-shfl-reduction"
    assert_failure 1
    assert_line --partial '0/10  (no mine.cu: copy legacy.cu to mine.cu and fix it)'
    assert_line 'Score 0/10'
}
