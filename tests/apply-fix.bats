#!/usr/bin/env bats
# scripts/apply-fix.sh on what is not sync.cu and a file: a patch given
# another file than the one it was made from, standard output, and OUTPUTs
# it must refuse. Its patches of sync.cu (wrong/, right/) are tested in
# tests/lessons.bats.

setup() {
    load helper
    L=$REPO/lessons/07-warp-scan
}

@test "a patch given another file than the one it was made from is refused in one line naming both, exit 2, nothing written" {
    run --separate-stderr "$REPO/scripts/apply-fix.sh" "$L/right/cg-scan.patch" "$L/legacy.cu" "$BATS_TEST_TMPDIR/x.cu"
    echo "$stderr"
    assert_failure 2
    assert_equal "${#stderr_lines[@]}" 1
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
