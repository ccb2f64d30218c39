#!/usr/bin/env bats
# scripts/apply-fix.sh on what is not sync.cu: a patch of another lesson
# file (each exercise's reference solution, tests/fixtures/exercises/, a
# patch of its starter), standard output, and OUTPUTs it must refuse.
# Its patches of sync.cu (wrong/, right/) are tested in tests/lessons.bats.

setup() {
    load helper
    L=$REPO/lessons/07-warp-scan
}

# nopatch DIR: DIR holds links to what apply-fix.sh runs, but patch: a PATH
# on which it takes git apply.
nopatch() {
    local t
    mkdir -p "$1"
    for t in bash env git sed cat mktemp grep cp cmp mv mkdir dirname rm; do
        ln -sf "$(command -v "$t")" "$1/$t"
    done
}

@test "each exercise's reference solution applies to its starter, with patch and with git apply alike: its reason, then the starter fixed" {
    local name starter p out=$BATS_TEST_TMPDIR/made.cu n=0
    nopatch "$BATS_TEST_TMPDIR/bin"
    for name in $(lessons); do
        p=$FIXTURES/exercises/$name.patch
        [ -f "$p" ] || fail "$name: no reference solution tests/fixtures/exercises/$name.patch"
        starter=$(sed -n 's/^EXERCISE_STARTER := //p' "$REPO/lessons/$name/exercise.mk")
        # (a failure names the patch: "...NAME.patch no longer applies to legacy.cu: ...")
        "$REPO/scripts/apply-fix.sh" "$p" "$REPO/lessons/$name/$starter" "$out" || fail "$p does not apply (above)"
        assert_regex "$(head -n 1 "$out")" "^/\\* right: lesson ${name%%-*}'s exercise done: .+ \\*/\$"
        assert_equal "$(head -n 1 "$out")" "$(head -n 1 "$p")"
        ! cmp -s <(tail -n +2 "$out") "$REPO/lessons/$name/$starter" || fail "$p changes nothing in $starter"
        PATH=$BATS_TEST_TMPDIR/bin "$REPO/scripts/apply-fix.sh" "$p" "$REPO/lessons/$name/$starter" "$out.git" ||
            fail "$p does not apply with git apply (above)"
        cmp "$out" "$out.git"
        n=$((n + 1))
    done
    echo "$n reference solutions apply"
    [ "$n" -ge 7 ]
    # exercise_solution (tests/helper.bash) makes the same file
    exercise_solution "$name" "$out.helper"
    cmp "$out" "$out.helper"
}

@test "a patch given another file than the one it was made from is refused in one line naming both, exit 2, nothing written" {
    run --separate-stderr "$REPO/scripts/apply-fix.sh" "$FIXTURES/exercises/01-shfl-reduction.patch" \
        "$REPO/lessons/01-shfl-reduction/sync.cu" "$BATS_TEST_TMPDIR/x.cu"
    echo "$stderr"
    assert_failure 2
    assert_equal "${#stderr_lines[@]}" 1
    assert_regex "$stderr" 'exercises/01-shfl-reduction\.patch is a patch of legacy\.cu, not of sync\.cu: '
    [ ! -e "$BATS_TEST_TMPDIR/x.cu" ]
    run --separate-stderr "$REPO/scripts/apply-fix.sh" "$L/right/cg-scan.patch" "$L/legacy.cu" "$BATS_TEST_TMPDIR/x.cu"
    assert_failure 2
    assert_regex "$stderr" 'right/cg-scan\.patch is a patch of sync\.cu, not of legacy\.cu: '
    [ ! -e "$BATS_TEST_TMPDIR/x.cu" ]
}

@test "OUTPUT - writes the file to standard output, and nothing when the patch does not apply" {
    "$REPO/scripts/apply-fix.sh" "$L/right/cg-scan.patch" "$L/sync.cu" "$BATS_TEST_TMPDIR/made.cu"
    run --separate-stderr timeout 20 "$REPO/scripts/apply-fix.sh" "$L/right/cg-scan.patch" "$L/sync.cu" -
    assert_success
    assert_equal "$output" "$(cat "$BATS_TEST_TMPDIR/made.cu")"
    assert_equal "$stderr" ''
    # sync.cu moved on where the patch edits it
    mkdir "$BATS_TEST_TMPDIR/moved"
    sed 's/int x = warp_scan(v, 32);/int x = warp_scan(v, 32);   \/* moved *\//' "$L/sync.cu" >"$BATS_TEST_TMPDIR/moved/sync.cu"
    ! cmp -s "$L/sync.cu" "$BATS_TEST_TMPDIR/moved/sync.cu"
    run --separate-stderr timeout 20 "$REPO/scripts/apply-fix.sh" "$L/right/cg-scan.patch" "$BATS_TEST_TMPDIR/moved/sync.cu" -
    assert_failure 1
    assert_output ''
    assert_regex "$stderr" 'right/cg-scan\.patch no longer applies to sync\.cu: '
}

@test "an OUTPUT that is no regular file (/dev/stdout, /dev/null, a folder, a pipe, a link) is refused at once in one line, exit 2" {
    local o t=$BATS_TEST_TMPDIR
    mkdir "$t/folder"
    mkfifo "$t/pipe"
    touch "$t/file"
    ln -s "$t/file" "$t/link"
    for o in /dev/stdout /dev/null "$t/folder" "$t/pipe" "$t/link"; do
        # (it once read /dev/stdout to compare, and waited for ever)
        run --separate-stderr timeout 20 "$REPO/scripts/apply-fix.sh" "$L/right/cg-scan.patch" "$L/sync.cu" "$o"
        echo "$o: $status: $stderr"
        assert_failure 2
        assert_equal "${#stderr_lines[@]}" 1
        assert_equal "$stderr" "$L/right/cg-scan.patch: OUTPUT $o is not a regular file (- writes to standard output)"
        assert_output ''
    done
    [ -L /dev/stdout ] || [ -c /dev/stdout ] || fail "/dev/stdout was replaced"
    [ -L "$t/link" ] && [ ! -s "$t/file" ]
}
