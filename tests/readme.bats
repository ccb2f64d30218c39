#!/usr/bin/env bats
# The lesson READMEs show the real code and the recorded output, and stay so.

setup() {
    load helper
    command -v pandoc >/dev/null || skip "pandoc not found"
}

@test "every lesson README's code and output blocks are what the sources and records hold" {
    run "$REPO/scripts/readme-blocks.py" --check
    echo "$output"
    assert_success
}

@test "a README block that no longer matches its source is reported as stale" {
    copy_repo "$BATS_TEST_TMPDIR/repo"
    r=$BATS_TEST_TMPDIR/repo/lessons/01-shfl-reduction/README.md
    # blank one line inside the first pulled block
    awk '/include=/ && !done { print; getline; print "/* stale */"; done = 1; next } { print }' "$r" >"$r.new"
    mv "$r.new" "$r"
    run "$BATS_TEST_TMPDIR/repo/scripts/readme-blocks.py" --check
    echo "$output"
    assert_failure 1
    assert_output --partial 'lessons/01-shfl-reduction/README.md:'
    assert_output --partial 'is stale'
}
